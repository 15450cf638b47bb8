"""Observation vectors read straight off a :class:`~meuterer.fast.FastGame`.

:func:`observation_vector` gives exactly what the declared layout gives for the view of
the same game (:func:`meuterer.views.observation_layout`, :func:`meuterer.views.view`)
without building the reference state, the view or the layout's pieces: the adapters'
hot loop. Like the fast engine it is a second writer of one fact, so it is held to the
first by tests: every entry, for every seat and the spectator, at every step of games
under every rule option (``tests/test_fast_observation.py``).

It is written for CPython's speed, which is mostly the number of bytecodes run: the
vector is one list display with the seats spelled out (a fourth seat's entries appended),
the seven card kinds are unpacked into locals so that the unseen cards are plain
subtractions, and the entries that repeat from one step to the next are looked up in
small memos keyed on their whole input (the role entries, the ring with its active
flags, the queue places, a seat's declared sales).

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

from meuterer.actions import Sale
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
assert len(CARDS) == 7, "the writer spells out the seven card kinds"
_EMPTY: tuple[int, ...] = (0,) * len(CARDS)
_UNKNOWN_ROLES = (_NONE,) * len(ROLES)
_NO_SALE = (_NONE, _NONE, 0)
_UNDECLARED: tuple[int, ...] = (0, *_NO_SALE, *_NO_SALE)
_SALES = 2
_SEATS = 4
"""The most seats the rules allow (the queue places are worked out for this many)."""
_ROLE_CODE = {role: int(role) for role in ROLES}

_Roles = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...]]
_RolesKey = tuple[int | None, tuple[int, ...], tuple[Role | None, ...], bool, bool]
_SEEN: dict[_RolesKey, _Roles] = {}
"""The layout's role entries, memoised on everything they read: ``player``'s roles-seen
entries and own role code, and each seat's role code (as ``player`` sees it) and place in
the role order."""
_SEEN_LIMIT = 1 << 15
"""More than the role entries' keys can number, so the memo never forgets what it will
need again (it used to hold 4,096, fewer than a few thousand games of four meet): the
role order is a sequence of distinct seats, fewer than the players, each holding a
distinct role and the others none, so with four seats there are 1,701 (role order, roles)
pairs, times five viewers and three combinations of the two flags; 27,147 keys in all
with three seats' (counted in ``tests/test_fast_observation.py``)."""
_PARTS: dict[tuple[int, ...], tuple[int, ...]] = {}
"""One copy of each tuple the role memo's values hold (a few hundred, shared)."""

_LIMIT = 4096
"""The size at which the other memos forget everything (their keys come in small sets per game)."""
_QUEUE: dict[tuple[int, ...], tuple[int, ...]] = {}
"""Each seat's place in the queue (or -1), per queue."""
_RING: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}
"""The ring's entries and the active flags, per (ring, active)."""
_SOLD: dict[int, tuple[tuple[Sale, ...], tuple[int, ...], tuple[Island, ...], tuple[int, ...]]] = {}
"""A seat's sale entries, by the id of his declaration: (the declaration, held so that its
id stays its own; the ring and island table they were worked out for; the entries)."""


def _shared(part: tuple[int, ...]) -> tuple[int, ...]:
    return _PARTS.setdefault(part, part)


def _roles(key: _RolesKey, order: list[int], roles: list[Role | None]) -> _Roles:
    # The rules are phases.offer_cargo.roles_seen and machine.ROLES_SECRET; here as the
    # layout's entries (memoised).
    player, _, _, secret, choosing = key
    shown = [r if not secret or s == player else None for s, r in enumerate(roles)]
    codes = _shared(tuple(_NONE if r is None else _ROLE_CODE[r] for r in shown))
    places = _shared(tuple(order.index(seat) if seat in order else _NONE for seat in range(len(roles))))
    if player is None:
        found = (_UNKNOWN_ROLES, _NONE, codes, places)
    else:
        left = roles_seen(player, order, roles, choosing)
        seen = _UNKNOWN_ROLES if left is None else _shared(tuple(int(role in left) for role in ROLES))
        found = (seen, codes[player], codes, places)
    if len(_SEEN) >= _SEEN_LIMIT:
        _SEEN.clear()
    _SEEN[key] = found
    return found


def _queue(queue: tuple[int, ...]) -> tuple[int, ...]:
    if len(_QUEUE) >= _LIMIT:
        _QUEUE.clear()
    found = _QUEUE[queue] = tuple(queue.index(seat) if seat in queue else _NONE for seat in range(_SEATS))
    return found


def _ring(ring: tuple[int, ...], active: tuple[int, ...]) -> tuple[int, ...]:
    flags = [0] * len(ring)
    for pos in active:
        flags[pos] = 1
    if len(_RING) >= _LIMIT:
        _RING.clear()
    found = _RING[ring, active] = (*ring, *flags)
    return found


def _sold(sales: tuple[Sale, ...] | None, ring: tuple[int, ...], islands: tuple[Island, ...]) -> tuple[int, ...]:
    """A seat's declared flag and sale entries."""
    if sales is None:
        return _UNDECLARED
    found = _SOLD.get(id(sales))
    if found is not None and found[0] is sales and found[1] == ring and found[2] is islands:
        return found[3]
    where: dict[str, int] = {}
    for pos, index in enumerate(ring):
        where.setdefault(islands[index].name, pos)  # the first position of a name
    entries = [1]
    for k in range(_SALES):
        if k < len(sales):
            sale = sales[k]
            entries += (where[sale.island], int(sale.card), sale.count)
        else:
            entries += _NO_SALE
    if len(_SOLD) >= _LIMIT:
        _SOLD.clear()
    _SOLD[id(sales)] = (sales, ring, islands, tuple(entries))
    return _SOLD[id(sales)][3]


def observation_vector(game: FastGame, player: int | None) -> list[int]:
    """``observation_layout(game.players, game.rules).vector(view(game.to_state(), player))``
    as a list, for a seat or ``None`` (a spectator), read straight off the game."""
    step = game.step
    drawn = game.drawn
    drawn_count = sum(drawn)
    order, roles = game.role_order, game.roles
    key = (player, tuple(order), tuple(roles), _SECRET[step], step == _CHOOSE_ROLE and game.to_act == player)
    found = _SEEN.get(key)
    seen, role, codes, places = _roles(key, order, roles) if found is None else found
    hands, downs, face_up = game.hands, game.face_down, game.face_up
    hand: list[int] | tuple[int, ...]
    down: list[int] | tuple[int, ...]
    mine: list[int] | tuple[int, ...]
    if player is None:
        hand = down = mine = _EMPTY
    else:
        hand = hands[player]
        down = downs[player]
        mine = drawn if drawn_count and game.to_act == player else _EMPTY
    ring, active = game.ring, game.active
    queue = tuple(game.queue)
    queued = _QUEUE.get(queue) or _queue(queue)
    offer, pirate, mutiny = game.offer, game.pirate, game.mutiny
    captain_to, mutineer_to = game.captain_destination, game.mutineer_destination
    # The unseen cards of each kind: the deck less the discards, the viewer's hand and
    # face-down cards and everyone's face-up cards.
    n0, n1, n2, n3, n4, n5, n6 = game.rules.deck
    b0, b1, b2, b3, b4, b5, b6 = discard = game.discard
    c0, c1, c2, c3, c4, c5, c6 = hand
    d0, d1, d2, d3, d4, d5, d6 = down
    passed, scores, sales = game.passed, game.scores, game.sales
    h: list[int] | tuple[int, ...]
    if len(face_up) == 4:
        e, f, g, h = face_up
    else:
        e, f, g = face_up
        h = _EMPTY
    e0, e1, e2, e3, e4, e5, e6 = e
    f0, f1, f2, f3, f4, f5, f6 = f
    g0, g1, g2, g3, g4, g5, g6 = g
    h0, h1, h2, h3, h4, h5, h6 = h
    if sales.count(None) == len(sales):
        x0 = x1 = x2 = x3 = _UNDECLARED
    else:
        islands = game.rules.islands
        x0, x1, x2 = _sold(sales[0], ring, islands), _sold(sales[1], ring, islands), _sold(sales[2], ring, islands)
        x3 = _sold(sales[3], ring, islands) if len(sales) == 4 else _UNDECLARED
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
        *(_RING.get((ring, active)) or _ring(ring, active)),
        *discard,
        n0 - b0 - c0 - d0 - e0 - f0 - g0 - h0,
        n1 - b1 - c1 - d1 - e1 - f1 - g1 - h1,
        n2 - b2 - c2 - d2 - e2 - f2 - g2 - h2,
        n3 - b3 - c3 - d3 - e3 - f3 - g3 - h3,
        n4 - b4 - c4 - d4 - e4 - f4 - g4 - h4,
        n5 - b5 - c5 - d5 - e5 - f5 - g5 - h5,
        n6 - b6 - c6 - d6 - e6 - f6 - g6 - h6,
        *hand,
        *down,
        *mine,
        role,
        *seen,
        # each seat: hand and face-down sizes, passed, role, role order, queue, score,
        # face-up cards, sales
        sum(hands[0]),
        sum(downs[0]),
        1 if passed[0] else 0,
        codes[0],
        places[0],
        queued[0],
        scores[0],
        *e,
        *x0,
        sum(hands[1]),
        sum(downs[1]),
        1 if passed[1] else 0,
        codes[1],
        places[1],
        queued[1],
        scores[1],
        *f,
        *x1,
        sum(hands[2]),
        sum(downs[2]),
        1 if passed[2] else 0,
        codes[2],
        places[2],
        queued[2],
        scores[2],
        *g,
        *x2,
    ]
    if len(face_up) == 4:
        out += (sum(hands[3]), sum(downs[3]), 1 if passed[3] else 0, codes[3], places[3], queued[3], scores[3])
        out += h
        out += x3
    return out
