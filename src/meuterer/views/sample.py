"""Determinisation: complete states drawn at random from a view."""

from __future__ import annotations

import random
from collections.abc import Mapping

import attrs

from meuterer.cards import CARDS, ROLES, Counts, Role, plus
from meuterer.errors import FormatError, MeutererError
from meuterer.serialize import MAX_STATE_TEXT, check_state
from meuterer.state import State
from meuterer.views.player_view import PlayerView, ViewError, _structure_view, view

_HAND, _DRAWN, _FACE_DOWN, _DECK = "hand", "drawn", "face_down", "deck"
Slot = tuple[str, int]
"""A hidden place cards can be in: (``"hand"``, seat), (``"drawn"``, seat) for the part of
the drawing player's hand drawn this turn, (``"face_down"``, seat) or (``"deck"``, -1)."""


def sample_state(view: PlayerView, rng: random.Random) -> State:
    """A complete state that ``view`` could have been made from, drawn at random with ``rng``.

    ``view(sample_state(v, rng), v.player) == v`` always holds, and the sample satisfies
    every engine invariant (card conservation, hand sizes, one role per chooser).

    The distribution: the unseen cards are shuffled and dealt into the hidden places
    (the other players' hands, split into the cards the player now drawing has drawn
    this turn and the rest; their face-down piles; the deck), so every physical
    arrangement of the unseen cards is equally likely: each place's contents follow the
    multivariate hypergeometric law. Independently, the unrevealed roles are uniform among
    the assignments consistent with what the viewer saw: the players who chose before him
    hold the roles that were gone from the centre, in any order; those after him distinct
    roles from the rest. This is the "unseen cards were shuffled" model: it does not
    weigh in how likely each player's past choices were, nor what a player with perfect
    recall could infer from the history beyond what the view holds (such as the discard pile
    that was shuffled into the present deck).

    The work is proportional to the cards in the other players' hands and face-down
    piles, not to the deck's size: the cards are drawn one at a time by kind, from the
    counts, and the deck takes what is left.
    """
    return _complete(view, rng)


def _slots(v: PlayerView) -> list[tuple[Slot, int]]:
    drawer = v.to_act if v.drawn_count else -1
    slots: list[tuple[Slot, int]] = []
    for seat in range(v.players):
        if seat == v.player:
            continue
        size = v.hand_sizes[seat]
        if seat == drawer:
            slots.append(((_DRAWN, seat), v.drawn_count))
            size -= v.drawn_count
        slots.append(((_HAND, seat), size))
        slots.append(((_FACE_DOWN, seat), v.face_down_sizes[seat]))
    slots.append(((_DECK, -1), v.deck_size))
    return slots


def _deal(pool: list[int], size: int, rng: random.Random | None) -> list[int]:
    """``size`` cards taken from the counts ``pool`` (which lose them): drawn one at a time
    without replacement with ``rng``, or the lowest kinds first when it is ``None``."""
    counts = [0] * len(pool)
    left = sum(pool)
    for _ in range(size):
        if rng is None:
            card = next(card for card, count in enumerate(pool) if count)
        else:
            pick = rng.randrange(left)
            card = 0
            while pick >= pool[card]:
                pick -= pool[card]
                card += 1
        pool[card] -= 1
        counts[card] += 1
        left -= 1
    return counts


def _complete(v: PlayerView, rng: random.Random | None, need: Mapping[Slot, Counts] | None = None) -> State:
    """A state with view ``v``: the unseen cards dealt into the hidden places (at random
    with ``rng``, or in canonical order when it is ``None``), each place holding at least
    ``need`` of it."""
    n, p = v.players, v.player
    slots = _slots(v)
    pool = list(v.unseen)
    if min(pool) < 0 or sum(pool) != sum(size for _, size in slots) or min(size for _, size in slots) < 0:
        raise ViewError("inconsistent view: the unseen cards do not fill the hidden places")
    if need:
        for cards in need.values():
            for card, count in enumerate(cards):
                pool[card] -= count
        if min(pool) < 0:
            raise ViewError(f"cannot place {dict(need)}: not among the unseen cards")
    filled: dict[Slot, Counts] = {}
    for slot, size in slots:
        wanted = need.get(slot) if need else None
        if wanted is not None:
            size -= sum(wanted)
            if size < 0:
                raise ViewError(f"cannot place {wanted} in {slot}: it holds fewer cards")
        if slot[0] == _DECK:  # the last place: what is left
            counts, pool = pool, [0] * len(CARDS)
        else:
            counts = _deal(pool, size, rng)
        filled[slot] = tuple(counts) if wanted is None else plus(tuple(counts), wanted)
    hands: list[Counts] = []
    downs: list[Counts] = []
    drawn = v.drawn
    for seat in range(n):
        if seat == p:
            hands.append(v.hand)
            downs.append(v.face_down)
            continue
        hand = filled[_HAND, seat]
        part = filled.get((_DRAWN, seat))
        if part is not None:
            hand = plus(hand, part)
            drawn = part
        hands.append(hand)
        downs.append(filled[_FACE_DOWN, seat])
    if p is not None and hands[p] != v.hand:  # pragma: no cover - guarded by the slot sums
        raise ViewError("inconsistent view")
    return State(
        players=n,
        rules=v.rules,
        step=v.step,
        round=v.round,
        captain=v.captain,
        to_act=v.to_act,
        queue=v.queue,
        offer=v.offer,
        ring=v.ring,
        start=v.start,
        active=v.active,
        pirate=v.pirate,
        hands=tuple(hands),
        face_up=v.face_up,
        face_down=tuple(downs),
        passed=v.passed,
        roles=_complete_roles(v, rng),
        role_order=v.role_order,
        captain_destination=v.captain_destination,
        mutineer_destination=v.mutineer_destination,
        mutiny=v.mutiny,
        sales=v.sales,
        scores=v.scores,
        deck=filled[_DECK, -1],
        discard=v.discard,
        draws_left=v.draws_left,
        drawn=drawn,
    )


def _complete_roles(v: PlayerView, rng: random.Random | None) -> tuple[Role | None, ...]:
    order = v.role_order
    if v.roles_revealed or not order:
        return v.roles
    roles = list(v.roles)
    p = v.player
    before: tuple[int, ...] = ()
    after = order
    if v.roles_seen is not None and p is not None:
        mine = order.index(p) if p in order else len(order)
        before, after = order[:mine], order[mine + 1 :]
        gone = [role for role in ROLES if role not in v.roles_seen]
        if len(gone) != len(before):
            raise ViewError("inconsistent view: roles_seen does not match the players who chose before")
        if rng is not None:
            rng.shuffle(gone)
        for seat, role in zip(before, gone, strict=True):
            roles[seat] = role
        left = [role for role in v.roles_seen if role != v.roles[p]]
    else:
        left = list(ROLES)
    picked = rng.sample(left, len(after)) if rng is not None else left[: len(after)]
    for seat, role in zip(after, picked, strict=True):
        roles[seat] = role
    return tuple(roles)


def check_view(v: PlayerView) -> None:
    """Raise :class:`~meuterer.errors.FormatError` unless some state has the view ``v``.

    The view's shapes and counts are bounded first (one entry per seat, 7 counts per
    multiset, no count beyond the rule set's deck), then a state is made from it
    (:func:`sample_state`'s canonical completion) and checked like any state read from
    outside (:func:`meuterer.serialize.check_state`), and its view must be ``v`` again:
    the rules are written once, in the state checks.
    """
    n, total = v.players, sum(v.rules.deck)
    if n not in (3, 4):
        raise FormatError("$.players", f"3 or 4 players, got {n}")
    if v.player is not None and not 0 <= v.player < n:
        raise FormatError("$.player", f"a seat from 0 to {n - 1} or null, got {v.player}")
    per_seat = ("face_up", "passed", "sales", "scores", "hand_sizes", "face_down_sizes", "roles")
    for name in per_seat:
        if len(getattr(v, name)) != n:
            raise FormatError(f"$.{name}", f"one entry per seat ({n}), got {len(getattr(v, name))}")
    piles = {name: getattr(v, name) for name in ("discard", "hand", "face_down", "drawn", "unseen")}
    piles.update({f"face_up[{seat}]": pile for seat, pile in enumerate(v.face_up)})
    for name, pile in piles.items():
        if len(pile) != len(CARDS) or not all(0 <= count <= total for count in pile):
            raise FormatError(f"$.{name}", f"{len(CARDS)} card counts from 0 to {total}")
    sizes: dict[str, tuple[int, ...]] = {"deck_size": (v.deck_size,), "drawn_count": (v.drawn_count,)}
    sizes.update(hand_sizes=v.hand_sizes, face_down_sizes=v.face_down_sizes)
    for name, values in sizes.items():
        if not all(0 <= size <= total for size in values):
            raise FormatError(f"$.{name}", f"card counts from 0 to {total}")
    try:
        state = _complete(v, None)
        check_state(state)
        again = view(state, v.player)
    except FormatError as error:
        raise FormatError("$", f"no state has this view: {error.path}: {error.message}") from None
    except MeutererError as error:
        raise FormatError("$", f"no state has this view: {error}") from None
    if again != v:
        wrong = next(f.name for f in attrs.fields(PlayerView) if getattr(again, f.name) != getattr(v, f.name))
        raise FormatError(f"$.{wrong}", "does not agree with the rest of the view")


def loads_view(text: str | bytes) -> PlayerView:
    """The view of a JSON text written by :func:`dumps_view`, checked (:func:`check_view`).

    Raises :class:`FormatError` for bad data (a text over
    :data:`~meuterer.serialize.MAX_STATE_TEXT` characters included), :class:`TypeError`
    unless ``text`` is ``str`` or ``bytes``."""
    if not isinstance(text, str | bytes | bytearray):
        raise TypeError(f"a view is read from str or bytes, not {type(text).__name__}")
    if len(text) > MAX_STATE_TEXT:
        raise FormatError("$", f"a view text is at most {MAX_STATE_TEXT} characters, got {len(text)}")
    v = _structure_view(text)
    check_view(v)
    return v
