"""Observation vectors read straight off a :class:`~meuterer.fast.FastGame`.

:func:`observation_vector` gives exactly what the declared layout gives for the view of
the same game (:func:`meuterer.views.observation_layout`, :func:`meuterer.views.view`)
without building the reference state, the view or the layout's pieces: the adapters'
hot loop. Like the fast engine it is a second writer of one fact, so it is held to the
first by tests: every entry, for every seat and the spectator, at every step of games
under every rule option (``tests/test_fast_observation.py``).

>>> from meuterer.fast import FastGame
>>> from meuterer.views import observation_layout, view
>>> import random
>>> game = FastGame.new(4)
>>> while game.is_chance_node():
...     _ = game.apply_chance(random.Random(1))
>>> vector = observation_vector(game, 2)
>>> vector == list(observation_layout(4).vector(view(game.to_state(), 2)))
True
"""

from __future__ import annotations

from meuterer.cards import CARDS, ROLES, Role
from meuterer.fast.engine import FastGame
from meuterer.islands import Island
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.phases.offer_cargo import roles_seen
from meuterer.state import Step

__all__ = ["observation_vector"]

_NONE = -1
_STEP_LIST = tuple(Step)
"""The fast engine numbers steps in :class:`Step`'s order."""
_CODE = tuple(STEP_CODES[step] for step in _STEP_LIST)
_SECRET = tuple(step in ROLES_SECRET for step in _STEP_LIST)
_GAME_OVER = _STEP_LIST.index(Step.GAME_OVER)
_CHOOSE_ROLE = _STEP_LIST.index(Step.CHOOSE_ROLE)
_EMPTY = [0] * len(CARDS)
_UNKNOWN_ROLES = [_NONE] * len(ROLES)
_NO_SALE = [_NONE, _NONE, 0]
_UNDECLARED = [0, *_NO_SALE, *_NO_SALE]
_SALES = 2
_ROLE_CODE = {role: int(role) for role in ROLES}


_SEEN: dict[tuple[int, tuple[int, ...], tuple[Role | None, ...], bool], list[int]] = {}
"""The layout's roles-seen entries, memoised on everything roles_seen reads."""
_SEEN_LIMIT = 4096


def _roles_seen(game: FastGame, player: int) -> list[int]:
    # The rule is phases.offer_cargo.roles_seen; here as the layout's entries (memoised).
    key = (player, tuple(game.role_order), tuple(game.roles), game.step == _CHOOSE_ROLE and game.to_act == player)
    found = _SEEN.get(key)
    if found is None:
        left = roles_seen(*key)
        found = _UNKNOWN_ROLES if left is None else [int(role in left) for role in ROLES]
        if len(_SEEN) >= _SEEN_LIMIT:
            _SEEN.clear()
        _SEEN[key] = found
    return found


def observation_vector(game: FastGame, player: int | None) -> list[int]:
    """``observation_layout(game.players, game.rules).vector(view(game.to_state(), player))``
    as a list, for a seat or ``None`` (a spectator), read straight off the game."""
    step = game.step
    drawn = game.drawn
    drawn_count = sum(drawn)
    ring = game.ring
    roles: list[Role | None] = game.roles
    if _SECRET[step]:
        roles = [None] * game.players if player is None else [r if s == player else None for s, r in enumerate(roles)]
    if player is None:
        hand = down = mine = _EMPTY
        seen = _UNKNOWN_ROLES
        role = _NONE
    else:
        hand = game.hands[player]
        down = game.face_down[player]
        mine = drawn if drawn_count and game.to_act == player else _EMPTY
        seen = _roles_seen(game, player)
        own = roles[player]
        role = _NONE if own is None else int(own)
    face_up = game.face_up
    up = map(sum, zip(*face_up, strict=True))
    unseen = [n - a - b - c - d for n, a, b, c, d in zip(game.rules.deck, game.discard, hand, down, up, strict=True)]
    mutiny = game.mutiny
    flags = [0] * len(ring)
    for pos in game.active:
        flags[pos] = 1
    offer, pirate = game.offer, game.pirate
    captain_to, mutineer_to = game.captain_destination, game.mutineer_destination
    out = [
        game.players,
        _NONE if player is None else player,
        game.round,
        _CODE[step],
        game.captain,
        _NONE if step == _GAME_OVER else game.to_act,
        _NONE if offer is None else offer,
        game.start,
        _NONE if pirate is None else pirate,
        _NONE if captain_to is None else captain_to,
        _NONE if mutineer_to is None else mutineer_to,
        _NONE if mutiny is None else int(mutiny),
        game.draws_left,
        drawn_count,
        sum(game.deck),
        *ring,
        *flags,
        *game.discard,
        *unseen,
        *hand,
        *down,
        *mine,
        role,
        *seen,
    ]
    order, queue, hands, downs, passed, scores = (
        game.role_order,
        game.queue,
        game.hands,
        game.face_down,
        game.passed,
        game.scores,
    )
    append, extend = out.append, out.extend
    for seat, sales in enumerate(game.sales):
        seat_role = roles[seat]
        out += (
            sum(hands[seat]),
            sum(downs[seat]),
            1 if passed[seat] else 0,
            _NONE if seat_role is None else _ROLE_CODE[seat_role],
            order.index(seat) if seat in order else _NONE,
            queue.index(seat) if seat in queue else _NONE,
            scores[seat],
        )
        out += face_up[seat]
        if sales is None:
            out += _UNDECLARED
            continue
        append(1)
        where = _positions(game)
        for k in range(_SALES):
            if k < len(sales):
                sale = sales[k]
                extend((where[sale.island], int(sale.card), sale.count))
            else:
                extend(_NO_SALE)
    return out


_POSITIONS: dict[tuple[int, tuple[int, ...]], tuple[tuple[Island, ...], dict[str, int]]] = {}
"""Each island's ring position by name, per island list (held, so its id stays its own) and ring."""


def _positions(game: FastGame) -> dict[str, int]:
    islands, ring = game.rules.islands, game.ring
    found = _POSITIONS.get((id(islands), ring))
    if found is None or found[0] is not islands:
        where: dict[str, int] = {}
        for pos, index in enumerate(ring):
            where.setdefault(islands[index].name, pos)  # the first position of a name
        if len(_POSITIONS) >= _SEEN_LIMIT:
            _POSITIONS.clear()
        found = _POSITIONS[id(islands), ring] = (islands, where)
    return found[1]
