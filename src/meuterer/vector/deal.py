"""The batch engine's chance steps: the shuffled ring, the deal and the draws of phase 8
(the draw effects and guards of :mod:`meuterer.phases.voyage` and
:func:`meuterer.phases.setup.arrange_ring`, batched), and how chance outcomes are drawn.

>>> from meuterer.phases import voyage
>>> from meuterer.vector import engine
>>> from meuterer.vector.registry import EFFECTS
>>> EFFECTS[voyage.draw_card].__module__
'meuterer.vector.deal'
"""

from __future__ import annotations

import numpy as np

from meuterer.actions import lehmer_digits
from meuterer.phases import setup, voyage
from meuterer.phases.voyage import cards_to_fill, reshuffles
from meuterer.rules import Reshuffle
from meuterer.state import Step
from meuterer.vector.arrays import (
    DEAL,
    LOADMASTER,
    OFFER,
    BoolArray,
    FloatArray,
    IntArray,
    c_einsum,
    pick_weighted,
    rowsum,
)
from meuterer.vector.batch import Batch
from meuterer.vector.registry import ChanceDraw, effect, guard, sample


@effect(setup.arrange_ring)
def arrange_ring(g: Batch, idx: IntArray, rank: IntArray) -> None:
    """Unrank each arrangement as :class:`~meuterer.actions.RingArrangements` does: Hochland
    first, then the pick-th island left (in table order) for each position."""
    m, rest = len(idx), g.n_islands - 1
    rows = np.arange(m)
    avail = np.ones((m, rest), dtype=np.bool_)
    ring = np.zeros((m, g.n_islands), dtype=np.int64)
    for k, pick in enumerate(lehmer_digits(rank, rest)):
        col = np.argmax(np.cumsum(avail, axis=1) > pick[:, None], axis=1)
        ring[:, k + 1] = col + 1
        avail[rows, col] = False
    g.ring[idx] = ring
    if g.piratennest >= 0:
        g.pirate[idx] = np.argmax(ring == g.piratennest, axis=1)


def _draw(g: Batch, idx: IntArray, card: IntArray) -> None:
    # One card from the deck, or from the discard pile shuffled into a new deck (before the
    # draw once the deck is empty; after it, under "when_empty", if it emptied the deck).
    # A legal draw takes a card the deck holds: the deck lacks the card drawn only when empty.
    at = idx * 7 + card
    empty = reshuffles(g._deck_flat[at], True, False)
    if np.count_nonzero(empty):
        g._refill(idx[empty])
    g._deck_flat[at] -= 1
    when_empty = g.rules.reshuffle is Reshuffle.WHEN_EMPTY
    if when_empty:
        empty = reshuffles(rowsum(g.deck.take(idx, axis=0)), False, when_empty)
        if np.count_nonzero(empty):
            g._refill(idx[empty])
    g._hand_flat[(idx * g.players + g.to_act[idx]) * 7 + card] += 1
    g._drawn_flat[at] += 1
    g.draws_left[idx] -= 1


@effect(voyage.draw_card)
def draw_card(g: Batch, idx: IntArray, card: IntArray) -> None:
    """Draw one card; the same seat draws on."""
    _draw(g, idx, card)


def _next_after(g: Batch, idx: IntArray, card: IntArray) -> None:
    next_drawer(g, idx)


def _deal_done(g: Batch, idx: IntArray, card: IntArray) -> None:
    g._fill("drawn", idx, 0)
    g.to_act[idx] = g.captain[idx]


@effect(voyage.draw_last_card, stages=(draw_card, _next_after))
def draw_last_card(g: Batch, idx: IntArray, card: IntArray) -> None:
    """Draw a seat's last card; the next seat of the queue draws."""
    draw_card(g, idx, card)
    _next_after(g, idx, card)


@effect(voyage.finish_deal, stages=(draw_card, _deal_done))
def finish_deal(g: Batch, idx: IntArray, card: IntArray) -> None:
    """Draw the deal's last card; the captain makes his offer."""
    draw_card(g, idx, card)
    _deal_done(g, idx, card)


def next_drawer(g: Batch, idx: IntArray) -> None:
    """The next seat of each queue draws what he needs (:func:`~meuterer.phases.voyage.cards_to_fill`);
    none left: nobody draws."""
    if not len(idx):
        return
    g._fill("drawn", idx, 0)
    none = g.queue_len[idx] == 0
    if np.count_nonzero(none):
        g.draws_left[idx[none]] = 0
        idx = idx[~none]
        if not len(idx):
            return
    seat = g._pop(idx)
    g.to_act[idx] = seat
    row = idx * g.players + seat
    held = rowsum(g._hand_rows.take(row, axis=0)).astype(np.int64)
    g.draws_left[idx] = cards_to_fill(g.hand_size, held, g.extra, g._roles_flat[row] == LOADMASTER)


@guard(voyage.last_draw_of_turn)
def last_draw_of_turn(g: Batch, idx: IntArray, card: IntArray) -> BoolArray:
    last: BoolArray = g.draws_left[idx] == 1
    return last


@guard(voyage.last_draw_of_deal)
def last_draw_of_deal(g: Batch, idx: IntArray, card: IntArray) -> BoolArray:
    last: BoolArray = (g.draws_left[idx] == 1) & (g.queue_len[idx] == 0)
    return last


@guard(voyage.loadmaster_draws)
def loadmaster_draws(g: Batch, idx: IntArray, card: IntArray) -> BoolArray:
    drawing: BoolArray = g._roles_flat[idx * g.players + g.to_act[idx]] == LOADMASTER
    return drawing


@guard(voyage.no_one_left_to_draw)
def no_one_left_to_draw(g: Batch, idx: IntArray, a: IntArray) -> BoolArray:
    none: BoolArray = g.queue_len[idx] == 0
    return none


# Chance ------------------------------------------------------------------------------------


@sample(Step.DEAL, Step.DRAW)
def sample_cards(g: Batch, games: IntArray, rng: ChanceDraw) -> IntArray:
    """The card each game draws, with its share of the draw pool."""
    return pick_card(g, games, rng.random(len(games)))


@sample(Step.RING)
def sample_rings(g: Batch, games: IntArray, rng: ChanceDraw) -> IntArray:
    """A uniform arrangement of the ring (its rank) for each game."""
    ranks: IntArray = rng.integers(len(g.arrangements), size=len(games))
    return ranks


def pick_card(g: Batch, games: IntArray, u: FloatArray) -> IntArray:
    """The card each of the games ``games`` draws from its draw pool (the deck, or the
    discard pile once the deck is empty), from one uniform each (:func:`pick_weighted`)."""
    deck = g.deck.take(games, axis=0)
    if len(games) >= 256:  # (kind, game) arrays: numpy is slow over the short axis of many rows
        return _pick_cards(g, deck, games, u)
    cumulative = deck.cumsum(axis=1)
    total = cumulative[:, -1]
    empty = total == 0
    if np.count_nonzero(empty):
        cumulative = np.where(empty[:, None], g.discard.take(games, axis=0), deck).cumsum(axis=1)
        total = cumulative[:, -1]
    target = (u * total).astype(np.int64)
    picked: IntArray = (cumulative > target[:, None]).argmax(axis=1)
    return picked


def _pick_cards(g: Batch, deck: IntArray, games: IntArray, u: FloatArray) -> IntArray:
    # pick_card for many games: the running sums by kind (rows), and the card drawn is
    # the number of kinds whose running sum is at most the target
    cumulative = deck.T.copy()
    for kind in range(1, 7):
        cumulative[kind] += cumulative[kind - 1]
    empty = cumulative[6] == 0
    if np.count_nonzero(empty):
        cumulative = np.where(empty, g.discard.take(games, axis=0).T, deck.T)
        for kind in range(1, 7):
            cumulative[kind] += cumulative[kind - 1]
    target = (u * cumulative[6]).astype(np.int64)
    picked: IntArray = c_einsum("ki->i", (cumulative <= target).view(np.int8)).astype(np.int64)
    picked *= cumulative[6] > 0  # (an empty pool: 0, as pick_weighted)
    return picked


def deal_at_once(g: Batch, idx: IntArray, rng: np.random.Generator, skip: int = 0) -> bool:
    """Deal every hand of the games ``idx`` (ascending), all just reset: the same cards and
    the same state as the deal's chance steps played one at a time for these games, each
    step first drawing ``skip`` uniforms it does not use (as the env's loop draws its
    random choices for the batch), in a few operations per card (the env's new games).
    Returns False, having done nothing, unless every one of the games is a new game at
    the deal and the deck cannot run out in it."""
    n, p, hand, c = len(idx), g.players, g.hand_size, g.first_captain
    if g.record or not n or int(g.deck0.sum()) < p * hand + 2:
        return False
    queue = [(c + k) % p for k in range(1, p)]
    fresh = (
        (g.step_[idx] == DEAL).all()
        and (g.to_act[idx] == c).all()
        and (g.queue_len[idx] == p - 1).all()
        and (g.queue[idx, : p - 1] == queue).all()
        and (g.draws_left[idx] == hand).all()
        and (g.deck[idx] == g.deck0).all()
        and not g.hands[idx].any()
        and not g.drawn[idx].any()
        and (g.roles[idx] < 0).all()
    )
    if not fresh:
        return False
    g._version += 1
    deck = g.deck[idx]
    hands = g.hands[idx]
    rows = np.arange(n)
    for seat in (c, *queue):  # as draw_card, draw_last_card and finish_deal deal, card by card
        held = hands[:, seat]
        for _ in range(hand):
            if skip:
                rng.random(skip)
            card = pick_weighted(deck, rng.random(n))
            deck[rows, card] -= 1
            held[rows, card] += 1
    g.deck[idx] = deck
    g.hands[idx] = hands
    for _ in queue:
        g._pop(idx)
    g.to_act[idx] = g.captain[idx]
    g.draws_left[idx] = 0
    g.step_[idx] = OFFER
    return True
