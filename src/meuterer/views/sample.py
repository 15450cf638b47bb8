"""Determinisation: complete states drawn at random from a view."""

from __future__ import annotations

import random

import attrs

from meuterer.cards import CARDS
from meuterer.errors import FormatError, MeutererError
from meuterer.invariants import check_state
from meuterer.serialize import MAX_STATE_TEXT
from meuterer.state import State
from meuterer.views.player_view import PlayerView, _structure_view, complete_state, view


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
    recall could infer from the history beyond SPEC section 6 (such as the discard pile
    that was shuffled into the present deck).

    The work is proportional to the cards in the other players' hands and face-down
    piles, not to the deck's size: the cards are drawn one at a time by kind, from the
    counts, and the deck takes what is left.

    :class:`TypeError` unless ``view`` is a :class:`PlayerView` and ``rng`` a
    :class:`random.Random`.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"sample_state takes a PlayerView, got {type(view).__name__}")
    if not isinstance(rng, random.Random):
        raise TypeError(f"sample_state draws from a random.Random, got {type(rng).__name__}")
    return complete_state(view, rng)


def check_view(v: PlayerView) -> None:
    """Raise :class:`~meuterer.errors.FormatError` unless some state has the view ``v``.

    The view's shapes and counts are bounded first (one entry per seat, 7 counts per
    multiset, no count beyond the rule set's deck), then a state is made from it
    (:func:`sample_state`'s canonical completion) and checked like any state read from
    outside (:func:`meuterer.invariants.check_state`), and its view must be ``v`` again:
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
        state = complete_state(v, None)
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
