"""Determinisation: complete states drawn at random from a view."""

from __future__ import annotations

import random

from meuterer.state import State
from meuterer.views.player_view import PlayerView, complete_state


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
