"""Observation vectors read straight off a reference :class:`~meuterer.state.State`.

:func:`observation_vector` gives exactly what the declared layout gives for the view of
the same state (:func:`meuterer.views.observation_layout`, :func:`meuterer.views.view`)
without building the view or the layout's pieces: the environments' hot loop. It is a
second writer of one fact, so it is held to the first by tests (the Gymnasium and
PettingZoo observations against the declared layout's, at every step of games under
every rule option).

A :class:`Writer` packs the entries straight into an array with ``struct``
(``pack_into``), in an order of its own (:func:`value_names`: the entries of one kind for
every seat side by side), the entries that repeat from one step to the next looked up in
small bounded memos keyed on their whole input (the role entries, the ring with its active
flags, the queue places: module memos; a seat's declared sales: the writer's own), as bytes
packed once. The adapters encode or reorder the packed ints; :func:`observation_vector`
reads them back in the layout's order, as a list.

>>> import meuterer, random
>>> from meuterer.views import observation_layout, view
>>> state = meuterer.new_game(4)
>>> while meuterer.is_chance_node(state):
...     state = meuterer.apply(state, meuterer.sample_chance(state, random.Random(1)))
>>> vector = observation_vector(state, 2)
>>> vector == list(observation_layout(4).vector(view(state, 2)))
True
"""

from __future__ import annotations

import functools
import operator
import struct
from collections.abc import Callable
from typing import Any

from meuterer._cache import Memo
from meuterer.actions import Sale
from meuterer.cards import CARDS, ROLES, Role
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.phases.offer_cargo import roles_seen
from meuterer.rules import Rules
from meuterer.state import State, Step
from meuterer.views import observation_layout

__all__ = ["Writer", "observation_values", "observation_vector", "value_names", "values_struct"]

Buffer = Any
"""A writable buffer (a ``bytearray``, a numpy array)."""

_NONE = -1
_OVER = Step.GAME_OVER
_CHOOSE_ROLE = Step.CHOOSE_ROLE
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
_SEEN_LIMIT = 1 << 15
"""More than the role entries' keys can number, so the memo never forgets what it will
need again: the role order is a sequence of distinct seats, fewer than the players, each
holding a distinct role and the others none, so with four seats there are 1,701 (role
order, roles) pairs, times five viewers and three combinations of the two flags; 27,147
keys in all with three seats'."""
_LIMIT = 4096
"""The size at which the other memos forget everything (their keys come in small sets per game)."""


def _packed(entries: tuple[int, ...]) -> bytes:
    """Entries as a :class:`Writer` packs them: native int64s, one after the other."""
    return struct.pack(f"={len(entries)}q", *entries)


_EMPTY_PACKED = _packed(_EMPTY)
_UNDECLARED_PACKED = _packed(_UNDECLARED)
_PARTS: Memo[tuple[int, ...], tuple[int, ...]] = Memo(lambda part: part, size=_LIMIT)
"""One copy of each tuple the role memo's values hold (a few hundred, shared)."""


def _roles(key: _RolesKey) -> _Roles:
    # The rules are phases.offer_cargo.roles_seen and machine.ROLES_SECRET; here as the
    # layout's entries.
    player, order, roles, secret, choosing = key
    shown = [r if not secret or s == player else None for s, r in enumerate(roles)]
    codes = _PARTS[tuple(_NONE if r is None else _ROLE_CODE[r] for r in shown)]
    places = _PARTS[tuple(order.index(seat) if seat in order else _NONE for seat in range(len(roles)))]
    if player is None:
        seen, role = _UNKNOWN_ROLES, _NONE
    else:
        left = roles_seen(player, order, roles, choosing)
        seen = _UNKNOWN_ROLES if left is None else _PARTS[tuple(int(role in left) for role in ROLES)]
        role = codes[player]
    return (seen, role, codes, places, _packed((role, *seen, *codes, *places)))


_SEEN: Memo[_RolesKey, _Roles] = Memo(_roles, size=_SEEN_LIMIT)
"""The layout's role entries, memoised on everything they read: ``player``'s roles-seen
entries and own role code, and each seat's role code (as ``player`` sees it) and place in
the role order; and the four as a :class:`Writer` packs them (one ``bytes``)."""


def _queue(queue: tuple[int, ...]) -> bytes:
    # Each seat's place in the queue (or -1), for the most seats the rules allow, packed.
    return _packed(tuple(queue.index(seat) if seat in queue else _NONE for seat in range(_SEATS)))


_QUEUE_PACKED: Memo[tuple[int, ...], bytes] = Memo(_queue, size=_LIMIT)
"""The queue's entries packed, per queue."""


def _ring(key: tuple[tuple[int, ...], tuple[int, ...]]) -> bytes:
    ring, active = key
    flags = [0] * len(ring)
    for pos in active:
        flags[pos] = 1
    return _packed((*ring, *flags))


_RING_PACKED: Memo[tuple[tuple[int, ...], tuple[int, ...]], bytes] = Memo(_ring, size=_LIMIT)
"""The ring's entries and the active flags packed, per (ring, active)."""


def observation_vector(state: State, player: int | None) -> list[int]:
    """``observation_layout(state.players, state.rules).vector(view(state, player))`` as a
    list, for a seat or ``None`` (a spectator): the values a :class:`Writer` packs, read
    back in the layout's order."""
    writer, unpack, reorder = _reading(state.players, state.rules)
    buffer = bytearray(writer.struct.size)
    writer.write(state, player, buffer)
    return list(reorder(unpack(buffer)))


@functools.lru_cache(maxsize=32)
def _reading(players: int, rules: Rules) -> tuple[Writer, Callable[[Buffer], tuple[int, ...]], Any]:
    """How :func:`observation_vector` reads a writer's buffer back: the writer, its
    unpacking as ints and the reordering into the layout's entries (32 rule sets kept)."""
    writer = Writer(players, rules)
    place = {name: k for k, name in enumerate(value_names(players, len(rules.islands))) if name is not None}
    order = [place[name] for name in observation_layout(players, rules).names]
    return writer, struct.Struct(f"={writer.struct.size // 8}q").unpack, operator.itemgetter(*order)


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
    """The packing :meth:`Writer.write` writes with, for ``players`` seats and a ring of
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


class Writer:
    """Packs the entries of :func:`observation_vector` for games of ``players`` seats under
    ``rules`` into a buffer (from its start) with :attr:`struct` (:func:`values_struct`),
    in another order, faster to write: the entries of one kind for every seat side by side
    (all the scores, then all the passed flags, ...), so that each kind is one unpacking of
    the state's tuples, and the memoised entries as bytes packed once. :func:`value_names`
    names the entry at each place (``None``: padding, where a fourth seat's entries would be
    in a three-seat game). The writer owns the memo of the seats' declared sales (bounded:
    4,096 entries); an environment makes one and keeps it.

    >>> import meuterer
    >>> writer = Writer(3, meuterer.Rules())
    >>> buffer = bytearray(writer.struct.size)
    >>> writer.write(meuterer.new_game(3), 0, buffer)
    >>> struct.unpack_from("=3q", buffer)  # players, viewer, round
    (3, 0, 1)
    """

    def __init__(self, players: int, rules: Rules) -> None:
        self.struct = values_struct(players, len(rules.islands))
        """The packing (native int64s, some packed as blocks of bytes)."""
        self._islands = rules.islands
        self._sold: Memo[tuple[tuple[Sale, ...], tuple[int, ...]], bytes] = Memo(self._sold_entries, size=_LIMIT)
        """A seat's declared flag and sale entries packed, per (declaration, ring)."""
        self._ring: tuple[tuple[int, ...], tuple[int, ...], bytes] = ((), (), b"")
        """The ring and active positions last written and their entries packed (compared by
        identity: a state's tuples never change, and holding them keeps them alive)."""

    def _sold_entries(self, key: tuple[tuple[Sale, ...], tuple[int, ...]]) -> bytes:
        sales, ring = key
        islands = self._islands
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
        return _packed(tuple(entries))

    def write(self, state: State, player: int | None, buffer: Buffer) -> None:
        """Pack ``player``'s (``None``: a spectator's) entries of ``state`` into ``buffer``."""
        step = state.step
        drawn = state.drawn
        to_act = state.to_act
        rolepart = _SEEN[
            player, state.role_order, state.roles, step in ROLES_SECRET, step is _CHOOSE_ROLE and to_act == player
        ][4]
        hands, downs, face_up = state.hands, state.face_down, state.face_up
        if player is None:
            hand = down = mine = _EMPTY
        else:
            hand = hands[player]
            down = downs[player]
            mine = drawn if to_act == player else _EMPTY  # all zeros when nothing is drawn
        ring = state.ring
        offer, pirate, mutiny = state.offer, state.pirate, state.mutiny
        captain_to, mutineer_to = state.captain_destination, state.mutineer_destination
        n0, n1, n2, n3, n4, n5, n6 = state.rules.deck
        b0, b1, b2, b3, b4, b5, b6 = discard = state.discard
        c0, c1, c2, c3, c4, c5, c6 = hand
        d0, d1, d2, d3, d4, d5, d6 = down
        t0, t1, t2, t3, t4, t5, t6 = map(sum, zip(*face_up, strict=True))  # face up, all seats together
        sales = state.sales
        sold = self._sold
        if sales.count(None) == len(sales):  # nothing declared (all but the sales step and after)
            x = [_UNDECLARED_PACKED] * len(sales)
        else:
            x = [_UNDECLARED_PACKED if sale is None else sold[sale, ring] for sale in sales]
        last, active = self._ring, state.active
        if last[0] is not ring or last[1] is not active:
            last = self._ring = (ring, active, _RING_PACKED[ring, active])
        if len(face_up) == 4:
            e, f, g, h = face_up
        else:
            (e, f, g), h = face_up, _EMPTY  # padding: no fourth seat
            x.append(_UNDECLARED_PACKED)
        self.struct.pack_into(
            buffer,
            0,
            state.players,
            _NONE if player is None else player,
            state.round,
            STEP_CODES[step],
            state.captain,
            _NONE if step is _OVER else to_act,
            _NONE if offer is None else offer,
            state.start,
            _NONE if pirate is None else pirate,
            _NONE if captain_to is None else captain_to,
            _NONE if mutineer_to is None else mutineer_to,
            _NONE if mutiny is None else mutiny,  # a bool packs as 1 or 0
            state.draws_left,
            sum(drawn),
            sum(state.deck),
            last[2],
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
            _QUEUE_PACKED[state.queue],
            *state.scores,
            *state.passed,  # bools pack as 1 and 0
            *map(sum, hands),
            *map(sum, downs),
            *e,
            *f,
            *g,
            *h,
            *x,
        )


def observation_values(state: State, player: int | None) -> tuple[int, ...]:
    """The ints a :class:`Writer` packs, read back (for tests and examples; the adapters
    read the packed buffer itself).

    >>> import meuterer
    >>> from meuterer.views import observation_layout
    >>> state = meuterer.new_game(3)
    >>> values = dict(zip(value_names(3, len(state.ring)), observation_values(state, 1), strict=True))
    >>> [values[name] for name in observation_layout(3).names] == observation_vector(state, 1)
    True
    """
    writer = _reading(state.players, state.rules)[0]
    buffer = bytearray(writer.struct.size)
    writer.write(state, player, buffer)
    return struct.unpack(f"={writer.struct.size // 8}q", buffer)
