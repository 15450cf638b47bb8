"""Observation vectors read straight off a :class:`~meuterer.fast.FastGame`.

:func:`observation_vector` gives exactly what the declared layout gives for the view of
the same game (:func:`meuterer.views.observation_layout`, :func:`meuterer.views.view`)
without building the reference state, the view or the layout's pieces: the adapters'
hot loop. Like the fast engine it is a second writer of one fact, so it is held to the
first by tests: every entry, for every seat and the spectator, at every step of games
under every rule option (``tests/test_fast_observation.py``).

One function writes the entries: :func:`write_values` packs them straight into an array
with ``struct`` (``pack_into``), in an order of its own (:func:`value_names`: the entries
of one kind for every seat side by side). It is written for CPython's speed, which is
mostly the number of bytecodes run: one call with the seats spelled out, the seven card
kinds unpacked into locals so that the unseen cards are plain subtractions, and the
entries that repeat from one step to the next looked up in small memos keyed on their
whole input (the role entries, the ring with its active flags, the queue places, a seat's
declared sales), as bytes packed once. The adapters encode or reorder the packed ints;
:func:`observation_vector` reads them back in the layout's order, as a list.

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

import functools
import operator
import struct
from collections.abc import Callable
from typing import Any

from meuterer.actions import Sale
from meuterer.cards import CARDS, ROLES, Role
from meuterer.fast.engine import FastGame
from meuterer.islands import Island
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.phases.offer_cargo import roles_seen
from meuterer.rules import Rules
from meuterer.state import Step
from meuterer.views import observation_layout

__all__ = ["observation_values", "observation_vector", "value_names", "values_struct", "write_values"]

PackInto = Callable[..., None]
"""A ``struct.Struct.pack_into``."""
Buffer = Any
"""A writable buffer (a ``bytearray``, a numpy array)."""

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

_Roles = tuple[tuple[int, ...], int, tuple[int, ...], tuple[int, ...], bytes]
_RolesKey = tuple[int | None, tuple[int, ...], tuple[Role | None, ...], bool, bool]
_SEEN: dict[_RolesKey, _Roles] = {}
"""The layout's role entries, memoised on everything they read: ``player``'s roles-seen
entries and own role code, and each seat's role code (as ``player`` sees it) and place in
the role order; and the four as :func:`write_values` packs them (one ``bytes``)."""
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
_SOLD: dict[int, tuple[tuple[Sale, ...], tuple[int, ...], tuple[Island, ...], tuple[int, ...], bytes]] = {}
"""A seat's sale entries, by the id of his declaration: (the declaration, held so that its
id stays its own; the ring and island table they were worked out for; the entries, and
packed)."""


def _packed(entries: tuple[int, ...]) -> bytes:
    """Entries as :func:`write_values` packs them: native int64s, one after the other."""
    return struct.pack(f"={len(entries)}q", *entries)


_EMPTY_PACKED = _packed(_EMPTY)
_UNDECLARED_PACKED = _packed(_UNDECLARED)
_QUEUE_PACKED: dict[tuple[int, ...], bytes] = {}
"""The queue's entries (each of four seats' place in it, or -1) packed, per queue."""
_RING_PACKED: dict[tuple[tuple[int, ...], tuple[int, ...]], bytes] = {}
"""The ring's entries and the active flags packed, per (ring, active)."""


def _shared(part: tuple[int, ...]) -> tuple[int, ...]:
    return _PARTS.setdefault(part, part)


def _roles(key: _RolesKey, order: tuple[int, ...], roles: tuple[Role | None, ...]) -> _Roles:
    # The rules are phases.offer_cargo.roles_seen and machine.ROLES_SECRET; here as the
    # layout's entries (memoised).
    player, _, _, secret, choosing = key
    shown = [r if not secret or s == player else None for s, r in enumerate(roles)]
    codes = _shared(tuple(_NONE if r is None else _ROLE_CODE[r] for r in shown))
    places = _shared(tuple(order.index(seat) if seat in order else _NONE for seat in range(len(roles))))
    if player is None:
        seen, role = _UNKNOWN_ROLES, _NONE
    else:
        left = roles_seen(player, order, roles, choosing)
        seen = _UNKNOWN_ROLES if left is None else _shared(tuple(int(role in left) for role in ROLES))
        role = codes[player]
    found = (seen, role, codes, places, _packed((role, *seen, *codes, *places)))
    if len(_SEEN) >= _SEEN_LIMIT:
        _SEEN.clear()
    _SEEN[key] = found
    return found


def _queue_packed(queue: tuple[int, ...]) -> bytes:
    # Each seat's place in the queue (or -1), for the most seats the rules allow, packed.
    if len(_QUEUE_PACKED) >= _LIMIT:
        _QUEUE_PACKED.clear()
    places = tuple(queue.index(seat) if seat in queue else _NONE for seat in range(_SEATS))
    found = _QUEUE_PACKED[queue] = _packed(places)
    return found


_RING_LAST: tuple[tuple[int, ...] | None, tuple[int, ...] | None, bytes] = (None, None, b"")
"""The ring and active positions :func:`write_values` last read, and their entries packed
(compared by identity: the game replaces these tuples, it never changes them, and holding
them here keeps their identities their own)."""


def _ring_part(ring: tuple[int, ...], active: tuple[int, ...]) -> bytes:
    """The ring's entries and active flags packed (memoised), remembered as the last."""
    global _RING_LAST
    packed = _RING_PACKED.get((ring, active))
    if packed is None:
        flags = [0] * len(ring)
        for pos in active:
            flags[pos] = 1
        if len(_RING_PACKED) >= _LIMIT:
            _RING_PACKED.clear()
        packed = _RING_PACKED[ring, active] = _packed((*ring, *flags))
    _RING_LAST = (ring, active, packed)
    return packed


def _sold_packed(sales: tuple[Sale, ...] | None, ring: tuple[int, ...], islands: tuple[Island, ...]) -> bytes:
    """A seat's declared flag and sale entries, packed."""
    if sales is None:
        return _UNDECLARED_PACKED
    found = _SOLD.get(id(sales))
    if found is not None and found[0] is sales and found[1] == ring and found[2] is islands:
        return found[4]
    return _sold_record(sales, ring, islands)[4]


def _sold_record(
    sales: tuple[Sale, ...], ring: tuple[int, ...], islands: tuple[Island, ...]
) -> tuple[tuple[Sale, ...], tuple[int, ...], tuple[Island, ...], tuple[int, ...], bytes]:
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
    record = _SOLD[id(sales)] = (sales, ring, islands, tuple(entries), _packed(tuple(entries)))
    return record


def observation_vector(game: FastGame, player: int | None) -> list[int]:
    """``observation_layout(game.players, game.rules).vector(view(game.to_state(), player))``
    as a list, for a seat or ``None`` (a spectator): the values :func:`write_values` packs,
    read back in the layout's order."""
    unpack, reorder, pack_into, size = _reading(game.players, game.rules)
    buffer = bytearray(size)
    write_values(game, player, pack_into, buffer)
    return list(reorder(unpack(buffer)))


@functools.lru_cache(maxsize=32)
def _reading(players: int, rules: Rules) -> tuple[Callable[[Buffer], tuple[int, ...]], Any, PackInto, int]:
    """How :func:`observation_vector` reads :func:`write_values`' buffer back: its unpacking
    as ints, the reordering into the layout's entries, the packing and its size."""
    ring = len(rules.islands)
    place = {name: k for k, name in enumerate(value_names(players, ring)) if name is not None}
    order = [place[name] for name in observation_layout(players, rules).names]
    packing = values_struct(players, ring)
    return struct.Struct(f"={packing.size // 8}q").unpack, operator.itemgetter(*order), packing.pack_into, packing.size


def value_names(players: int, ring: int) -> tuple[str | None, ...]:
    """The name (in :func:`meuterer.views.observation_layout`) of the entry each value of
    :func:`observation_values` is, for ``players`` seats and a ring of ``ring`` islands;
    ``None`` for padding.

    >>> names = value_names(4, 12)
    >>> len(names), names[:3], names.index("p2.score") - names.index("p0.score")
    (164, ('players', 'viewer', 'round'), 2)
    """
    seats = range(players)
    pad: list[str | None] = [None] * (_SEATS - players)
    cards = [f".{card}" for card in CARDS]
    names: list[str | None] = [
        "players",
        "viewer",
        "round",
        "step",
        "captain",
        "to_act",
        "offer",
        "start",
        "pirate",
        "captain_destination",
        "mutineer_destination",
        "mutiny",
        "draws_left",
        "drawn_count",
        "deck_size",
    ]
    names += [f"ring[{pos}]" for pos in range(ring)] + [f"active[{pos}]" for pos in range(ring)]
    for piece in ("discard", "unseen", "hand", "face_down", "drawn"):
        names += [piece + card for card in cards]
    names += ["role", *(f"roles_seen.{role}" for role in ROLES)]
    names += [f"p{seat}.role" for seat in seats] + [f"p{seat}.role_order" for seat in seats]
    names += [f"p{seat}.queue" for seat in seats] + pad
    for entry in ("score", "passed", "hand_size", "face_down_size"):
        names += [f"p{seat}.{entry}" for seat in seats]
    for seat in seats:
        names += [f"p{seat}.face_up{card}" for card in cards]
    names += [None] * len(cards) * (_SEATS - players)
    sale = [".declared"] + [f".sale[{k}].{what}" for k in range(_SALES) for what in ("island", "card", "count")]
    for seat in seats:
        names += [f"p{seat}{what}" for what in sale]
    names += [None] * len(sale) * (_SEATS - players)
    return tuple(names)


def values_struct(players: int, ring: int) -> struct.Struct:
    """The packing :func:`write_values` writes with, for ``players`` seats and a ring of
    ``ring`` islands: native int64s (``struct.Struct.size // 8`` of them), some of them
    packed as blocks of bytes (the memoised entries, packed once).

    >>> values_struct(4, 12).size // 8
    164
    """
    blocks = [
        "15q",  # players to deck_size
        f"{16 * ring}s",  # ring, active
        "35q",  # discard, unseen, hand, face_down, drawn
        f"{8 * (1 + len(ROLES) + 2 * players)}s",  # role, roles seen, role codes, places in the role order
        f"{8 * _SEATS}s",  # places in the queue
        f"{4 * players}q",  # scores, passed, hand and face-down sizes
        f"{len(CARDS) * _SEATS}q",  # face-up cards
        *[f"{8 * len(_UNDECLARED)}s"] * _SEATS,  # sales
    ]
    return struct.Struct("=" + "".join(blocks))


def write_values(game: FastGame, player: int | None, pack_into: PackInto, buffer: Buffer) -> None:
    """Pack the entries of :func:`observation_vector` into ``buffer`` (from its start) with
    ``pack_into``, the ``pack_into`` of :func:`values_struct` for the game's seats and
    ring, in another order, faster to write: the entries of one kind for every seat side
    by side (all the scores, then all the passed flags, ...), so that each kind is one
    unpacking of the game's list, and the memoised entries as bytes packed once.
    :func:`value_names` names the entry at each place (``None``: padding, where a fourth
    seat's entries would be in a three-seat game). :func:`observation_values` reads them
    back. The adapters reorder the packed ints in one ``take``, or encode them as they are.
    """
    step = game.step
    drawn = game.drawn
    to_act = game.to_act
    order, roles = game.role_order, game.roles  # tuples (the game replaces them)
    key = (player, order, roles, _SECRET[step], step == _CHOOSE_ROLE and to_act == player)
    found = _SEEN.get(key)
    rolepart = (_roles(key, order, roles) if found is None else found)[4]
    hands, downs, face_up = game.hands, game.face_down, game.face_up
    hand: list[int] | tuple[int, ...]
    down: list[int] | tuple[int, ...]
    mine: list[int] | tuple[int, ...]
    if player is None:
        hand = down = mine = _EMPTY
    else:
        hand = hands[player]
        down = downs[player]
        mine = drawn if to_act == player else _EMPTY  # all zeros when nothing is drawn
    ring, active = game.ring, game.active
    last_ring = _RING_LAST
    ringpart = last_ring[2] if last_ring[0] is ring and last_ring[1] is active else _ring_part(ring, active)
    queue = tuple(game.queue)
    offer, pirate, mutiny = game.offer, game.pirate, game.mutiny
    captain_to, mutineer_to = game.captain_destination, game.mutineer_destination
    n0, n1, n2, n3, n4, n5, n6 = game.rules.deck
    b0, b1, b2, b3, b4, b5, b6 = discard = game.discard
    c0, c1, c2, c3, c4, c5, c6 = hand
    d0, d1, d2, d3, d4, d5, d6 = down
    sales = game.sales
    h: list[int] | tuple[int, ...]
    if len(face_up) == 4:
        e, f, g, h = face_up
        if sales.count(None) == 4:
            x0 = x1 = x2 = x3 = _UNDECLARED_PACKED
        else:
            islands = game.rules.islands
            x0, x1 = _sold_packed(sales[0], ring, islands), _sold_packed(sales[1], ring, islands)
            x2, x3 = _sold_packed(sales[2], ring, islands), _sold_packed(sales[3], ring, islands)
    else:
        e, f, g = face_up
        h, x3 = _EMPTY, _UNDECLARED_PACKED  # padding: no fourth seat
        if sales.count(None) == 3:
            x0 = x1 = x2 = _UNDECLARED_PACKED
        else:
            islands = game.rules.islands
            x0, x1 = _sold_packed(sales[0], ring, islands), _sold_packed(sales[1], ring, islands)
            x2 = _sold_packed(sales[2], ring, islands)
    t0, t1, t2, t3, t4, t5, t6 = game.face_up_total
    pack_into(
        buffer,
        0,
        game.players,
        _NONE if player is None else player,
        game.round,
        _CODE[step],
        game.captain,
        _NONE if step == _GAME_OVER else to_act,
        _NONE if offer is None else offer,
        game.start,
        _NONE if pirate is None else pirate,
        _NONE if captain_to is None else captain_to,
        _NONE if mutineer_to is None else mutineer_to,
        _NONE if mutiny is None else mutiny,  # a bool packs as 1 or 0
        game.draws_left,
        sum(drawn),
        sum(game.deck),
        ringpart,
        *discard,
        n0 - b0 - t0 - c0 - d0,
        n1 - b1 - t1 - c1 - d1,
        n2 - b2 - t2 - c2 - d2,
        n3 - b3 - t3 - c3 - d3,
        n4 - b4 - t4 - c4 - d4,
        n5 - b5 - t5 - c5 - d5,
        n6 - b6 - t6 - c6 - d6,
        *hand,
        *down,
        *mine,
        rolepart,
        _QUEUE_PACKED.get(queue) or _queue_packed(queue),
        *game.scores,
        *game.passed,  # bools pack as 1 and 0
        *game.sizes,  # the hand sizes, then the face-down sizes
        *e,
        *f,
        *g,
        *h,
        x0,
        x1,
        x2,
        x3,
    )


def observation_values(game: FastGame, player: int | None) -> tuple[int, ...]:
    """The ints :func:`write_values` packs, read back (for tests and examples; the
    adapters read the packed buffer itself).

    >>> from meuterer.fast import FastGame
    >>> from meuterer.views import observation_layout
    >>> import random
    >>> game = FastGame.new(3)
    >>> while game.is_chance_node():
    ...     _ = game.apply_chance(random.Random(1))
    >>> values = dict(zip(value_names(3, len(game.ring)), observation_values(game, 1), strict=True))
    >>> [values[name] for name in observation_layout(3).names] == observation_vector(game, 1)
    True
    """
    packing = values_struct(game.players, len(game.ring))
    buffer = bytearray(packing.size)
    write_values(game, player, packing.pack_into, buffer)
    return struct.unpack(f"={packing.size // 8}q", buffer)
