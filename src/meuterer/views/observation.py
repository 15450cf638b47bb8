"""Observations of a view: its text, and one declared layout of numbers.

The numeric layout is declared once, in :func:`observation_layout`, as a list of
:class:`Piece` entries (name, entry names, getter, bounds, kind), the way OpenSpiel's
observers declare their pieces; the flat vector, its entry names, its per-entry bounds,
the named tensor pieces and the normalised/one-hot encoding are all derived from it.
:func:`history_layout` declares the perfect-recall part of an information state (the
public facts of each round played) in the same way.

>>> import meuterer
>>> from meuterer.views import view, observation_layout, observation_vector
>>> layout = observation_layout(4)
>>> layout.size, layout.names[:3], layout.slices["hand"]
(164, ('players', 'viewer', 'round'), slice(53, 60, None))
>>> v = view(meuterer.new_game(4), 0)
>>> layout.vector(v) == observation_vector(v), len(layout.encode(v)) == layout.encoded_size
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from meuterer._cache import bounded
from meuterer.cards import CARDS, GOODS, ROLES, counts_str
from meuterer.encoding import score_bounds
from meuterer.machine import STEP_CODES as _STEP_CODES
from meuterer.rules import Rules
from meuterer.state import State, Step
from meuterer.views.layout import Layout as Layout  # re-exported: the machinery lived here
from meuterer.views.layout import Piece as Piece
from meuterer.views.layout import piece
from meuterer.views.player_view import ROLES_SECRET, PlayerView


def _seat_name(seat: int) -> str:
    return f"p{seat}"


def observation_text(v: PlayerView) -> str:
    """The view as stable, human-readable text (one line per topic, one per seat)."""
    who = "a spectator" if v.player is None else _seat_name(v.player)
    if v.step is Step.GAME_OVER:
        turn = "game over"
    elif v.step in (Step.DEAL, Step.DRAW):
        turn = f"{_seat_name(v.to_act)} draws ({v.draws_left} to go)"
    elif v.step is Step.RING:
        turn = "the islands are laid out"
    else:
        turn = f"{_seat_name(v.to_act)} to act"
    lines = [f"view of {who}, {v.players} players, round {v.round}, phase {int(v.phase)} {v.step.value}: {turn}"]
    offer = "-" if v.offer is None else str(v.offer)
    ships = f"ship at {v.island_name(v.start)}"
    if v.pirate is not None:
        ships += f", pirates at {v.island_name(v.pirate)}"
    active = " ".join(v.island_name(pos) for pos in v.active)
    lines.append(f"captain {_seat_name(v.captain)}, offer {offer}; {ships}; active {active}")
    goals = []
    if v.captain_destination is not None:
        goals.append(f"captain to {v.island_name(v.captain_destination)}")
    if v.mutineer_destination is not None:
        goals.append(f"mutineer to {v.island_name(v.mutineer_destination)}")
    if v.mutiny is not None:
        goals.append("mutiny succeeded" if v.mutiny else "mutiny failed")
    if goals:
        lines.append("; ".join(goals))
    lines.append(f"deck {v.deck_size}; discard {counts_str(v.discard)}; unseen {counts_str(v.unseen)}")
    if v.player is not None:
        mine = f"you: hand {counts_str(v.hand)}; face down {counts_str(v.face_down)}"
        if v.drawn_count and v.to_act == v.player:
            mine += f"; drawn {counts_str(v.drawn)}"
        if v.roles_seen is not None:
            mine += f"; centre when choosing {' '.join(map(str, v.roles_seen))}"
        lines.append(mine)
    for seat in range(v.players):
        parts = [_seat_name(seat) + (" (you)" if seat == v.player else "")]
        if seat == v.captain:
            parts.append("captain")
        role = v.roles[seat]
        if role is not None:
            parts.append(str(role))
        elif seat in v.role_order:
            parts.append("role ?")
        parts.append(f"hand {v.hand_sizes[seat]}")
        parts.append(f"face up {counts_str(v.face_up[seat])}")
        if v.passed[seat]:
            parts.append(f"passed, face down {v.face_down_sizes[seat]}")
        sales = v.sales[seat]
        if sales is not None:
            parts.append("sold " + (",".join(map(str, sales)) or "none"))
        parts.append(f"score {v.scores[seat]}")
        lines.append("  " + "; ".join(parts))
    return "\n".join(lines) + "\n"


def private_text(v: PlayerView) -> str:
    """What only the viewer knows (his cards, his role, what he saw when choosing), as text;
    ``""`` for a spectator. The public rest is the spectator's :func:`observation_text`."""
    if v.player is None:
        return ""
    role = "-" if v.role is None else str(v.role)
    mine = f"{_seat_name(v.player)}: hand {counts_str(v.hand)}; face down {counts_str(v.face_down)}; role {role}"
    if v.drawn_count and v.to_act == v.player:
        mine += f"; drawn {counts_str(v.drawn)}"
    if v.roles_seen is not None:
        mine += f"; centre when choosing {' '.join(map(str, v.roles_seen))}"
    return mine + "\n"


STEP_CODES: Final[Mapping[Step, int]] = _STEP_CODES
"""The number of each step in observation vectors (fixed; never reused)."""


_NONE: Final = -1
"""Absent values (no offer yet, no pirate ship, a role not known, ...)."""
_SALES: Final = 2
"""Sales per declaration in observation vectors: one per active island, at most two."""


def _opt(value: int | None) -> int:
    return _NONE if value is None else int(value)


def _index(seats: tuple[int, ...], seat: int) -> int:
    return seats.index(seat) if seat in seats else _NONE


def _sale_entries(v: PlayerView | State, seat: int) -> list[int]:
    sales = v.sales[seat] or ()
    out: list[int] = []
    for k in range(_SALES):
        if k < len(sales):
            sale = sales[k]
            out += (_island_position(v, sale.island), int(sale.card), sale.count)
        else:
            out += (_NONE, _NONE, 0)
    return out


def _island_position(v: PlayerView | State, name: str) -> int:
    return next(pos for pos in range(len(v.ring)) if v.rules.islands[v.ring[pos]].name == name)


def _seat_piece(seat: int, players: int, rules: Rules) -> Piece[PlayerView]:
    ring, most = len(rules.islands), rules.hand_size + rules.loadmaster_extra
    low_score, high_score = score_bounds(players, rules)

    def get(v: PlayerView) -> list[int]:
        return [
            v.hand_sizes[seat],
            v.face_down_sizes[seat],
            int(v.passed[seat]),
            _opt(v.roles[seat]),
            _index(v.role_order, seat),
            _index(v.queue, seat),
            v.scores[seat],
            *v.face_up[seat],
            int(v.sales[seat] is not None),
            *_sale_entries(v, seat),
        ]

    keys = [".hand_size", ".face_down_size", ".passed", ".role", ".role_order", ".queue", ".score"]
    low = [0, 0, 0, _NONE, _NONE, _NONE, low_score]
    high = [most, most, 1, len(ROLES) - 1, players - 1, players - 1, high_score]
    kind = [False, False, False, True, True, True, False]
    keys += [f".face_up.{card}" for card in CARDS] + [".declared"]
    low += [0] * (len(CARDS) + 1)
    high += [*rules.deck, 1]
    kind += [False] * (len(CARDS) + 1)
    for k in range(_SALES):
        keys += [f".sale[{k}].island", f".sale[{k}].card", f".sale[{k}].count"]
        low += [_NONE, _NONE, 0]
        high += [ring - 1, max(GOODS), most]
        kind += [True, True, False]
    return piece(f"p{seat}", get, low, high, keys=keys, categorical=kind)


@bounded(size=32)  # per seat count and rule set: a server fed many rule sets keeps the last 32
def observation_layout(players: int, rules: Rules | None = None) -> Layout[PlayerView]:
    """The declared layout of :func:`observation_vector` for
    ``players`` seats under ``rules`` (default ``Rules()``; only the bounds and the ring's
    length depend on the rules)."""
    rules = Rules() if rules is None else rules
    n, ring, deck = players, len(rules.islands), rules.deck
    most = rules.hand_size + rules.loadmaster_extra
    rounds = rules.rounds_for(players)
    cards = [f".{card}" for card in CARDS]
    pieces: list[Piece[PlayerView]] = [
        piece("players", lambda v: (v.players,), 3, 4),
        piece("viewer", lambda v: (_opt(v.player),), _NONE, n - 1, categorical=True),
        piece("round", lambda v: (v.round,), 0, rounds + 1),
        piece("step", lambda v: (STEP_CODES[v.step],), 0, len(STEP_CODES) - 1, categorical=True),
        piece("captain", lambda v: (v.captain,), 0, n - 1, categorical=True),
        piece("to_act", lambda v: (_NONE if v.step is Step.GAME_OVER else v.to_act,), _NONE, n - 1, categorical=True),
        piece("offer", lambda v: (_opt(v.offer),), _NONE, rules.max_offer, categorical=True),
        piece("start", lambda v: (v.start,), 0, ring - 1, categorical=True),
        piece("pirate", lambda v: (_opt(v.pirate),), _NONE, ring - 1, categorical=True),
        piece("captain_destination", lambda v: (_opt(v.captain_destination),), _NONE, ring - 1, categorical=True),
        piece("mutineer_destination", lambda v: (_opt(v.mutineer_destination),), _NONE, ring - 1, categorical=True),
        piece("mutiny", lambda v: (_opt(v.mutiny),), _NONE, 1, categorical=True),
        piece("draws_left", lambda v: (v.draws_left,), 0, most),
        piece("drawn_count", lambda v: (v.drawn_count,), 0, most),
        piece("deck_size", lambda v: (v.deck_size,), 0, sum(deck)),
        piece("ring", lambda v: v.ring, 0, ring - 1, keys=[f"[{pos}]" for pos in range(ring)], categorical=True),
        piece(
            "active",
            lambda v: [int(pos in v.active) for pos in range(len(v.ring))],
            0,
            1,
            keys=[f"[{pos}]" for pos in range(ring)],
        ),
        piece("discard", lambda v: v.discard, 0, deck, keys=cards),
        piece("unseen", lambda v: v.unseen, 0, deck, keys=cards),
        piece("hand", lambda v: v.hand, 0, deck, keys=cards),
        piece("face_down", lambda v: v.face_down, 0, deck, keys=cards),
        piece("drawn", lambda v: v.drawn, 0, deck, keys=cards),
        piece("role", lambda v: (_opt(v.role),), _NONE, len(ROLES) - 1, categorical=True),
        piece(
            "roles_seen",
            lambda v: [_NONE] * len(ROLES) if v.roles_seen is None else [int(r in v.roles_seen) for r in ROLES],
            _NONE,
            1,
            keys=[f".{role}" for role in ROLES],
            categorical=True,
        ),
    ]
    pieces += [_seat_piece(seat, n, rules) for seat in range(n)]
    return Layout(pieces)


PRIVATE_PIECES: Final = ("hand", "face_down", "drawn", "role", "roles_seen")
"""The pieces of :func:`observation_layout` that only the viewer knows (a spectator's are
empty or absent); the others are public, except the viewer's own ``p{seat}.role`` before
the reveal, and ``viewer`` and ``unseen``, which depend on who views."""


def observation_bounds(players: int, rules: Rules) -> tuple[int, int]:
    """One range holding every entry of :func:`observation_vector`
    (:func:`observation_layout` bounds each entry on its own).

    >>> observation_bounds(4, Rules())
    (-24, 136)
    """
    layout = observation_layout(players, rules)
    return min(layout.low), max(layout.high)


def observation_vector(v: PlayerView) -> tuple[int, ...]:
    """The view as a flat tuple of ints, as :func:`observation_layout` declares it."""
    return observation_layout(v.players, v.rules).vector(v)


@bounded(size=8)
def observation_names(players: int) -> tuple[str, ...]:
    """The name of each entry of :func:`observation_vector` for ``players`` seats.

    >>> names = observation_names(4)
    >>> len(names), names[:4], names.index("hand.ruby")
    (164, ('players', 'viewer', 'round', 'step'), 53)
    """
    return observation_layout(players).names


# Perfect recall: the public facts of each round ------------------------------------------

Rounds = tuple[tuple[int, ...], ...]
"""The public facts of each round so far, one row a round (see :func:`history_layout`)."""

_ROUND_KEYS: Final = (".captain", ".offer", ".captain_destination", ".mutineer_destination", ".mutiny", ".pirate")


def _round_row(s: State | PlayerView) -> list[int]:
    revealed = s.step not in ROLES_SECRET
    row = [
        s.captain,
        _opt(s.offer),
        _opt(s.captain_destination),
        _opt(s.mutineer_destination),
        _opt(s.mutiny),
        _opt(s.pirate),
    ]
    for seat in range(s.players):
        role = s.roles[seat] if revealed else None
        row += (_opt(role), s.scores[seat], *_sale_entries(s, seat))
    return row


def update_rounds(rounds: Rounds, s: State | PlayerView) -> Rounds:
    """``rounds`` once ``s`` (a state or view; only public facts are read) has been seen.

    A fact, once public in a round, stays in that round's row (destinations, the mutiny,
    revealed roles, sales); the captain is the round's first (who made the offer); scores
    are each seat's latest.

    >>> import meuterer
    >>> actions, final = meuterer.random_game(seed=3, players=3)
    >>> rows: Rounds = ()
    >>> for state in meuterer.Game.replay(actions, players=3).states:
    ...     rows = update_rounds(rows, state)
    >>> len(rows) == final.round, [rows[-1][7 + 8 * seat] for seat in range(3)] == list(final.scores)
    (True, True)
    """
    index = s.round - 1
    if index < 0:
        return rounds
    new = _round_row(s)
    if index < len(rounds):
        old = rounds[index]
        width = 8  # per seat: role, score, six sale entries
        merged = [b if b != _NONE else a for a, b in zip(old, new, strict=True)]
        merged[0] = old[0]  # the round's captain: the one who made the offer, even if deposed
        for seat in range(s.players):
            at = len(_ROUND_KEYS) + seat * width
            merged[at + 1] = new[at + 1]  # the latest score, negative or not
            if new[at + 2] == _NONE:  # sales cleared: keep the round's declaration whole
                merged[at + 2 : at + width] = old[at + 2 : at + width]
        row = tuple(merged)
        return rounds if row == old else (*rounds[:index], row, *rounds[index + 1 :])
    return (*rounds, *([(_NONE,) * len(new)] * (index - len(rounds))), tuple(new))


@bounded(size=32)
def history_layout(players: int, rules: Rules | None = None) -> Layout[Rounds]:
    """The declared layout of the perfect-recall part of an information state: for each
    round of the game (absent rounds all -1), its captain, offer, destinations, mutiny,
    pirate ship, and each seat's revealed role, score and sales."""
    rules = Rules() if rules is None else rules
    ring, most = len(rules.islands), rules.hand_size + rules.loadmaster_extra
    low_score, high_score = score_bounds(players, rules)
    keys = list(_ROUND_KEYS)
    low = [_NONE] * len(_ROUND_KEYS)
    high = [players - 1, rules.max_offer, ring - 1, ring - 1, 1, ring - 1]
    kind = [True] * len(_ROUND_KEYS)
    for seat in range(players):
        keys += [f".p{seat}.role", f".p{seat}.score"]
        low += [_NONE, min(low_score, _NONE)]
        high += [len(ROLES) - 1, high_score]
        kind += [True, False]
        for k in range(_SALES):
            keys += [f".p{seat}.sale[{k}].island", f".p{seat}.sale[{k}].card", f".p{seat}.sale[{k}].count"]
            low += [_NONE, _NONE, _NONE]
            high += [ring - 1, max(GOODS), most]
            kind += [True, True, False]
    absent = (_NONE,) * len(keys)

    def row(index: int) -> Callable[[Rounds], Sequence[int]]:
        return lambda rounds: rounds[index] if index < len(rounds) else absent

    return Layout(
        piece(f"round[{r}]", row(r), low, high, keys=keys, categorical=kind) for r in range(rules.rounds_for(players))
    )
