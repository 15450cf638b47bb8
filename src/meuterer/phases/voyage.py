"""The deal and phases 6 to 10: sailing, clean-up, drawing (with the loadmaster's
discard and reshuffles), roles returning and the end of the round."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations_with_replacement
from operator import add, itemgetter
from typing import Any

from meuterer._cache import Memo
from meuterer.actions import DRAWS, Action, Discard, Draw
from meuterer.cards import CARDS, EMPTY, Card, Counts, Role, counts_of, minus, plus
from meuterer.phases.common import Changes, Table, clockwise_from, discarded, set_at
from meuterer.phases.ids import rule
from meuterer.phases.variants import variant_of
from meuterer.rules import DiscardPool, Reshuffle, Rules
from meuterer.state import State

_DRAW: tuple[tuple[Action, ...], ...] = DRAWS
_LOADMASTER = Role.LOADMASTER
_SEAT = itemgetter(0)
_WHEN_EMPTY = Reshuffle.WHEN_EMPTY
assert len(CARDS) == 7, "pick_card spells out the seven card kinds"


# Drawing (the deal and phase 8) -----------------------------------------------------------


def draw_pool(state: Table) -> Counts:
    """The cards the next draw comes from: the deck, or the discard pile once the deck is empty."""
    return state.deck if any(state.deck) else state.discard


_DRAWS: Memo[tuple[int, Counts], tuple[Action, ...]] = Memo(
    lambda key: tuple(_DRAW[key[0]][c] for c in CARDS if key[1][c]), size=1 << 14
)


def legal_draw(state: Table) -> tuple[Action, ...]:
    """Chance: the drawing player gets one of the unseen kinds still in the pool."""
    key = (state.to_act, state.deck if any(state.deck) else state.discard)  # draw_pool, inlined
    return _DRAWS[key]


def draw_outcomes(state: State) -> tuple[tuple[Action, Fraction], ...]:
    """Chance: each draw of :func:`legal_draw` with its probability, its kind's share of the pool."""
    pool = draw_pool(state)
    total = sum(pool)
    return tuple((a, Fraction(pool[a.card], total)) for a in legal_draw(state) if isinstance(a, Draw))


def sample_draw(state: Table, rng: random.Random) -> Action:
    """Draw one card with probability proportional to its count in the pool, using ``rng``.

    Exactly ``rng.choices(legal_draw(state), weights)[0]`` with the pool's counts as
    weights (one ``rng.random()`` call, the first kind whose running count exceeds it),
    returning the listed action instance.
    """
    return _DRAW[state.to_act][sample_card(state, rng)]


def sample_card(state: Table, rng: random.Random) -> int:
    """The card kind :func:`sample_draw` draws (the same one ``rng.random()`` call), for
    engines that apply a draw without its action instance.

    >>> from meuterer import Rules, new_game
    >>> sample_card(new_game(3, 0, Rules()), random.Random(1)) in range(7)
    True
    """
    deck = state.deck
    return pick_card(deck if any(deck) else state.discard, rng.random())  # draw_pool, inlined


def pick_card(pool: Sequence[int], x: float) -> int:
    """The card kind a draw takes from ``pool`` (the counts of the seven kinds) for a
    uniform ``x`` in [0, 1): the first kind whose running count exceeds ``x`` times the
    pool's size, as ``random.choices`` weighted by the counts picks it (the same float
    arithmetic; a bisection of the running counts, walked here without building them).

    >>> pick_card((1, 0, 2, 0, 0, 0, 0), 0.0), pick_card((1, 0, 2, 0, 0, 0, 0), 0.5)
    (0, 2)
    """
    target = x * sum(pool)  # (a float times an int: the int as a float, as choices' total)
    # The walk spelled out for the seven kinds (every draw runs it: a loop costs twice as much).
    c0, c1, c2, c3, c4, c5, c6 = pool
    running = c0
    if running > target:
        return 0
    running += c1
    if running > target:
        return 1
    running += c2
    if running > target:
        return 2
    running += c3
    if running > target:
        return 3
    running += c4
    if running > target:
        return 4
    running += c5
    if running > target:
        return 5
    if running + c6 > target:
        return 6
    # x rounded up to the total: the last kind, as random.choices' bisection caps it
    return max((c for c in CARDS if pool[c]), default=0)


def draw_from(deck: Sequence[int], discard: Counts, card: int, rules: Rules) -> tuple[Counts, Counts]:
    """The deck and the discard pile after a draw of ``card``: from the deck, or from the
    discard pile shuffled into a new deck once the deck is empty (and at once when the
    deck runs out under ``Rules(reshuffle="when_empty")``).

    >>> from meuterer import Rules
    >>> draw_from((0,) * 7, (1, 2, 0, 0, 0, 0, 0), 1, Rules())
    ((1, 1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0, 0))
    """
    if not reshuffles(sum(deck), True, False):
        pile = [*deck]
    else:  # the discard pile is shuffled into a new deck
        pile, discard = [*discard], EMPTY
    pile[card] -= 1
    new_deck = (*pile,)  # (the displays, not list() and tuple(): no call, on every draw)
    if reshuffles(sum(new_deck), False, rules.reshuffle is _WHEN_EMPTY):
        new_deck, discard = discard, EMPTY
    return new_deck, discard


@rule("p8.reshuffle")
def reshuffles(cards_left: Any, drawing: Any, when_empty: Any) -> Any:
    """Whether the discard pile is shuffled into a new deck when the deck holds
    ``cards_left`` cards: before a draw (``drawing``) once the deck is empty, and right
    after one that empties it under ``Rules(reshuffle="when_empty")`` (``when_empty``);
    over ints or numpy arrays alike.

    >>> reshuffles(0, True, False), reshuffles(0, False, False), reshuffles(0, False, True), reshuffles(3, True, True)
    (True, False, True, False)
    """
    return (cards_left == 0) & (drawing | when_empty)


def cards_needed(rules: Rules, role: Role | None, held: int) -> int:
    """Cards a player holding ``held`` cards must draw to fill his hand, plus the
    loadmaster's extra cards when ``role`` is the loadmaster.

    >>> from meuterer import Rules, Role
    >>> cards_needed(Rules(), None, 2), cards_needed(Rules(loadmaster_extra=2), Role.LOADMASTER, 5)
    (3, 2)
    """
    return int(cards_to_fill(rules.hand_size, held, rules.loadmaster_extra, role is _LOADMASTER))


@rule("p8.loadmaster")
def cards_to_fill(hand_size: int, held: Any, extra: int, loadmaster: Any) -> Any:
    """Cards to draw for a hand of ``held`` cards to hold ``hand_size``, plus ``extra`` for
    the loadmaster (``loadmaster``: whether he is): the arithmetic of :func:`cards_needed`,
    over ints or numpy arrays alike.

    >>> cards_to_fill(5, 2, 1, False), cards_to_fill(5, 5, 2, True)
    (3, 2)
    """
    return hand_size - held + extra * loadmaster


def _next_drawer(state: State, hands: tuple[Counts, ...]) -> Changes:
    if not state.queue:
        return {"drawn": EMPTY, "draws_left": 0}
    seat = state.queue[0]
    return {
        "to_act": seat,
        "queue": state.queue[1:],
        "draws_left": cards_needed(state.rules, state.roles[seat], sum(hands[seat])),
        "drawn": EMPTY,
    }


def last_draw_of_turn(state: State, action: Action) -> bool:
    """Guard: this draw completes the drawing player's draws."""
    return state.draws_left == 1


def last_draw_of_deal(state: State, action: Action) -> bool:
    """Guard: this draw completes the deal."""
    return state.draws_left == 1 and not state.queue


@rule("p8.loadmaster-when")
def loadmaster_draws(state: State, action: Action) -> bool:
    """Guard: the drawing player is the loadmaster, who discards after his draws."""
    return state.roles[state.to_act] is _LOADMASTER


def no_one_left_to_draw(state: State, action: Action | None) -> bool:
    """Guard: nobody after the current player draws in phase 8."""
    return not state.queue


def draw_card(state: State, action: Draw) -> Changes:
    """Draw one card; the same player keeps drawing until he has drawn what he needs."""
    # add and set_at inlined (every third step of a game is a draw)
    p, card = action.player, action.card
    deck, discard = draw_from(state.deck, state.discard, card, state.rules)
    hands = list(state.hands)
    hand = list(hands[p])
    hand[card] += 1
    hands[p] = tuple(hand)
    drawn = list(state.drawn)
    drawn[card] += 1
    return {
        "deck": deck,
        "discard": discard,
        "hands": tuple(hands),
        "drawn": tuple(drawn),
        "draws_left": state.draws_left - 1,
    }


def draw_last_card(state: State, action: Draw) -> Changes:
    """Draw the player's last card; the next player in the queue starts drawing."""
    changes = draw_card(state, action)
    changes.update(_next_drawer(state, changes["hands"]))
    return changes


def finish_deal(state: State, action: Draw) -> Changes:
    """Draw the deal's last card; phase 1 starts with the captain."""
    changes = draw_card(state, action)
    changes.update({"drawn": EMPTY, "to_act": state.captain, "queue": ()})
    return changes


# The loadmaster's discard ---------------------------------------------------------------


def discard_pool(state: State) -> Counts:
    """The cards the loadmaster may discard from (see :attr:`meuterer.Rules.discard_pool`)."""
    if state.rules.discard_pool is DiscardPool.HAND:
        return state.hands[state.to_act]
    return state.drawn


_DISCARDS: Memo[tuple[int, Counts, int], tuple[Action, ...]] = Memo(size=1 << 14)
_CACHED_LISTS_UP_TO = 1024


def legal_discard(state: State) -> tuple[Action, ...]:
    """Every multiset of ``loadmaster_extra`` cards of the pool, cards in canonical order."""
    return discard_choices(state.to_act, discard_pool(state), state.rules.loadmaster_extra)


def discard_choices(seat: int, pool: Counts, extra: int) -> tuple[Action, ...]:
    """Every :class:`Discard` of ``extra`` cards of ``pool`` by ``seat``, cards in
    canonical order, the most of the first kind first.

    >>> [str(a) for a in discard_choices(0, (1, 0, 2, 0, 0, 0, 0), 2)]
    ['p0 discard ruby wine', 'p0 discard wine wine']
    """
    key = (seat, pool, extra)
    found = _DISCARDS.get(key)
    if found is None:
        found = _discards(seat, pool, extra)
        if len(found) <= _CACHED_LISTS_UP_TO:  # huge lists (extreme rule options) are not kept
            _DISCARDS.put(key, found)
    return found


def _discards(seat: int, pool: Counts, extra: int) -> tuple[Action, ...]:
    # Every multiset of ``extra`` cards of the kinds present (see _multisets) that the
    # pool holds, as the seat's discard.
    if extra >= 0 and min(pool) < 0:  # (no game has one) with a negative count no walk over the kinds ends
        return ()
    found: list[Action] = []
    for cards, demands in _MULTISETS[tuple([c for c in CARDS if pool[c]]), extra]:
        for kind, need in demands:
            if pool[kind] < need:
                break
        else:
            found.append(_DISCARD[seat, cards])
    return tuple(found)


def _multisets(key: tuple[tuple[Card, ...], int]) -> tuple[tuple[tuple[Card, ...], tuple[tuple[int, int], ...]], ...]:
    # The multisets of ``extra`` cards of ``kinds`` in the order of the legal list: as
    # itertools' combinations_with_replacement lists them, sorted card tuples in
    # lexicographic order (the order of their count vectors from the most of the first
    # kind down); each with the count of each of its kinds, what a pool must hold.
    kinds, extra = key
    if extra < 0:  # (no rules allow it) as a walk over the kinds ends: nothing, or of one kind holding ``extra``
        return (((), ((kinds[0], extra),)),) if len(kinds) == 1 else ()
    return tuple(
        (cards, tuple((kind, cards.count(kind)) for kind in kinds if kind in cards))
        for cards in combinations_with_replacement(kinds, extra)
    )


_MULTISETS = Memo(_multisets, size=1 << 10)
"""The multisets of ``extra`` cards of some kinds, and what each needs of a pool."""
_DISCARD: Memo[tuple[int, tuple[Card, ...]], Discard] = Memo(lambda key: Discard(*key), size=1 << 12)
"""Each seat's discard of some cards, built once (many lists hold it)."""


def discard(state: State, action: Discard) -> Changes:
    """Put the chosen cards on the discard pile; the next player draws."""
    p, cards = action.player, counts_of(action.cards)
    hands = set_at(state.hands, p, minus(state.hands[p], cards))
    changes: Changes = {"hands": hands, "discard": plus(state.discard, cards)}
    changes.update(_next_drawer(state, hands))
    return changes


# Phases 6, 7, 9 and 10 ---------------------------------------------------------------------


@rule("p6.sail")
def sail(state: Table, action: Action | None) -> Changes:
    """Phase 6: the ship sails to the winning destination, which becomes the new start
    island; the old and new start islands are the active ones."""
    destination = state.mutineer_destination if state.mutiny else state.captain_destination
    assert destination is not None
    start = state.start
    active = (start,) if start == destination else (start, destination) if start < destination else (destination, start)
    return {"start": destination, "active": active}


@rule("p8.draw")
def drawers(state: Table) -> tuple[tuple[int, int], ...]:
    """Who draws in phase 8, once the face-down cards are back in hand: (seat, cards
    needed) clockwise from the captain, skipping full hands."""
    held = list(map(add, map(sum, state.hands), map(sum, state.face_down)))
    roles, rules = state.roles, state.rules
    needs = []
    for p in clockwise_from(state, state.captain):
        n = cards_needed(rules, roles[p], held[p])
        if n > 0:
            needs.append((p, n))
    return tuple(needs)


def nobody_draws(state: Table, action: Action | None) -> bool:
    """Guard: every hand is full after clean-up and there is no loadmaster."""
    return not drawers(state)


@rule("p7.clean-up")
def clean_up(state: Table, action: Action | None) -> Changes:
    """Phase 7: face-up cards go to the discard pile, face-down cards back to the hands.

    Then phase 8 is set up: drawing starts with the captain and goes clockwise, skipping
    players whose hands are already full.
    """
    n = state.players
    drawing = drawers(state)
    changes: Changes = {
        # (after phase 2 every hand is empty: the face-down cards are the new hands)
        "hands": tuple(tuple(map(add, *hand)) for hand in zip(state.hands, state.face_down, strict=True))
        if any(map(any, state.hands))
        else tuple(map(tuple, state.face_down)),
        "face_up": (EMPTY,) * n,
        "face_down": (EMPTY,) * n,
        "discard": discarded(state.discard, state.face_up),
        "passed": (False,) * n,
        "captain_destination": None,
        "mutineer_destination": None,
        "drawn": EMPTY,
    }
    changes.update(variant_of(state.rules).clean_up(state))  # the pirates may sail home
    if drawing:
        changes["to_act"], changes["draws_left"] = drawing[0]
        changes["queue"] = tuple(map(_SEAT, drawing[1:]))
    return changes


@rule("p9.roles-return")
def return_roles(state: Table, action: Action | None) -> Changes:
    """Phase 9: role cards go back to the centre."""
    return {"roles": (None,) * state.players, "role_order": ()}


@rule("p10.next-round")
def next_round(state: Table, action: Action | None) -> Changes:
    """Phase 10: a new round starts with phase 1 under the current captain."""
    return {
        "round": state.round + 1,
        "offer": None,
        "mutiny": None,
        "sales": (None,) * state.players,
        "to_act": state.captain,
        "queue": (),
        "draws_left": 0,
    }
