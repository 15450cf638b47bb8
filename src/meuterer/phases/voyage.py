"""The deal and phases 6 to 10: sailing, clean-up, drawing (with the loadmaster's
discard and reshuffles), roles returning and the end of the round."""

from __future__ import annotations

import random
from bisect import bisect
from fractions import Fraction
from itertools import accumulate
from operator import itemgetter

from meuterer.actions import DRAWS, Action, Discard, Draw
from meuterer.cards import CARDS, EMPTY, Card, Counts, Role, counts_of, minus, plus
from meuterer.phases.common import Changes, clockwise_from, set_at
from meuterer.phases.setup import piratennest
from meuterer.rules import DiscardPool, Reshuffle
from meuterer.state import State

_DRAW: tuple[tuple[Action, ...], ...] = DRAWS
_LOADMASTER = Role.LOADMASTER
_SEAT = itemgetter(0)
_WHEN_EMPTY = Reshuffle.WHEN_EMPTY


# Drawing (the deal and phase 8) -----------------------------------------------------------


def draw_pool(state: State) -> Counts:
    """The cards the next draw comes from: the deck, or the discard pile once the deck is empty."""
    return state.deck if any(state.deck) else state.discard


_DRAWS: dict[tuple[int, Counts], tuple[Action, ...]] = {}


def legal_draw(state: State) -> tuple[Action, ...]:
    """Chance: the drawing player gets one of the unseen kinds still in the pool."""
    key = (state.to_act, state.deck if any(state.deck) else state.discard)  # draw_pool, inlined
    found = _DRAWS.get(key)
    if found is None:
        if len(_DRAWS) >= 1 << 14:
            _DRAWS.clear()
        draws, pool = _DRAW[key[0]], key[1]
        found = _DRAWS[key] = tuple(draws[c] for c in CARDS if pool[c])
    return found


def draw_outcomes(state: State) -> tuple[tuple[Action, Fraction], ...]:
    """Chance: each draw of :func:`legal_draw` with its probability, its kind's share of the pool."""
    pool = draw_pool(state)
    total = sum(pool)
    return tuple((a, Fraction(pool[a.card], total)) for a in legal_draw(state) if isinstance(a, Draw))


def sample_draw(state: State, rng: random.Random) -> Action:
    """Draw one card with probability proportional to its count in the pool, using ``rng``.

    Exactly ``rng.choices(legal_draw(state), weights)[0]`` with the pool's counts as
    weights (one ``rng.random()`` call, the first kind whose running count exceeds it),
    returning the listed action instance.
    """
    pool = draw_pool(state)
    # the first kind whose running count exceeds x (bisect_right over the running counts)
    card = bisect(list(accumulate(pool)), rng.random() * (sum(pool) + 0.0))
    if card == len(pool):  # x rounded up to the total: the last kind, as bisect caps it
        card = max((c for c in CARDS if pool[c]), default=0)
    return _DRAW[state.to_act][card]


def cards_needed(state: State, seat: int, hand: Counts) -> int:
    """Cards ``seat`` must draw to fill ``hand``, plus the loadmaster's extra cards."""
    need = state.rules.hand_size - sum(hand)
    if state.roles[seat] is _LOADMASTER:
        need += state.rules.loadmaster_extra
    return need


def _draw(state: State, action: Draw) -> Changes:
    # add and set_at inlined (every third step of a game is a draw)
    p, card = action.player, action.card
    if any(state.deck):
        pile, discard = list(state.deck), state.discard
    else:  # the discard pile is shuffled into a new deck
        pile, discard = list(state.discard), EMPTY
    pile[card] -= 1
    deck = tuple(pile)
    if state.rules.reshuffle is _WHEN_EMPTY and not any(deck):
        deck, discard = discard, EMPTY
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


def _next_drawer(state: State, hands: tuple[Counts, ...]) -> Changes:
    if not state.queue:
        return {"drawn": EMPTY, "draws_left": 0}
    seat = state.queue[0]
    return {
        "to_act": seat,
        "queue": state.queue[1:],
        "draws_left": cards_needed(state, seat, hands[seat]),
        "drawn": EMPTY,
    }


def last_draw_of_turn(state: State, action: Action) -> bool:
    """Guard: this draw completes the drawing player's draws."""
    return state.draws_left == 1


def last_draw_of_deal(state: State, action: Action) -> bool:
    """Guard: this draw completes the deal."""
    return state.draws_left == 1 and not state.queue


def loadmaster_draws(state: State, action: Action) -> bool:
    """Guard: the drawing player is the loadmaster, who discards after his draws."""
    return state.roles[state.to_act] is _LOADMASTER


def no_one_left_to_draw(state: State, action: Action | None) -> bool:
    """Guard: nobody after the current player draws in phase 8."""
    return not state.queue


def draw_card(state: State, action: Draw) -> Changes:
    """Draw one card; the same player keeps drawing until he has drawn what he needs."""
    return _draw(state, action)


def draw_last_card(state: State, action: Draw) -> Changes:
    """Draw the player's last card; the next player in the queue starts drawing."""
    changes = _draw(state, action)
    changes.update(_next_drawer(state, changes["hands"]))
    return changes


def finish_deal(state: State, action: Draw) -> Changes:
    """Draw the deal's last card; phase 1 starts with the captain."""
    changes = _draw(state, action)
    changes.update({"drawn": EMPTY, "to_act": state.captain, "queue": ()})
    return changes


# The loadmaster's discard ---------------------------------------------------------------


def discard_pool(state: State) -> Counts:
    """The cards the loadmaster may discard from (see :attr:`meuterer.Rules.discard_pool`)."""
    if state.rules.discard_pool is DiscardPool.HAND:
        return state.hands[state.to_act]
    return state.drawn


_DISCARDS: dict[tuple[int, Counts, int], tuple[Action, ...]] = {}
_CACHED_LISTS_UP_TO = 1024


def legal_discard(state: State) -> tuple[Action, ...]:
    """Every multiset of ``loadmaster_extra`` cards of the pool, cards in canonical order."""
    key = (state.to_act, discard_pool(state), state.rules.loadmaster_extra)
    found = _DISCARDS.get(key)
    if found is None:
        if len(_DISCARDS) >= 1 << 14:
            _DISCARDS.clear()
        found = _discards(*key)
        if len(found) <= _CACHED_LISTS_UP_TO:  # huge lists (extreme rule options) are not kept
            _DISCARDS[key] = found
    return found


def _discards(seat: int, pool: Counts, extra: int) -> tuple[Action, ...]:
    # The multisets of ``extra`` cards within ``pool``, as itertools'
    # combinations_with_replacement over the kinds present would list them (filtered to
    # what the pool holds): sorted card tuples in lexicographic order, which is the order
    # of their count vectors from the most of the first kind down.
    kinds = [c for c in CARDS if pool[c]]
    found: list[Action] = []
    chosen: list[Card] = []

    def fill(index: int, left: int) -> None:
        if index == len(kinds) - 1:
            if left <= pool[kinds[index]]:
                found.append(Discard(seat, (*chosen, *(kinds[index],) * left)))
            return
        kind = kinds[index]
        for take in range(min(left, pool[kind]), -1, -1):
            chosen.extend((kind,) * take)
            fill(index + 1, left - take)
            del chosen[len(chosen) - take :]

    if kinds:
        fill(0, extra)
    elif extra == 0:
        found.append(Discard(seat, ()))
    return tuple(found)


def discard(state: State, action: Discard) -> Changes:
    """Put the chosen cards on the discard pile; the next player draws."""
    p, cards = action.player, counts_of(action.cards)
    hands = set_at(state.hands, p, minus(state.hands[p], cards))
    changes: Changes = {"hands": hands, "discard": plus(state.discard, cards)}
    changes.update(_next_drawer(state, hands))
    return changes


# Phases 6, 7, 9 and 10 ---------------------------------------------------------------------


def sail(state: State, action: Action | None) -> Changes:
    """Phase 6: the ship sails to the winning destination, which becomes the new start
    island; the old and new start islands are the active ones."""
    destination = state.mutineer_destination if state.mutiny else state.captain_destination
    assert destination is not None
    start = state.start
    active = (start,) if start == destination else (start, destination) if start < destination else (destination, start)
    return {"start": destination, "active": active}


_last_drawers: tuple[State | None, tuple[tuple[int, int], ...]] = (None, ())


def _drawers(state: State) -> tuple[tuple[int, int], ...]:
    # (seat, cards needed) in drawing order, once face-down cards are back in hand. The
    # guard nobody_draws and the effect clean_up ask in turn about the same state.
    global _last_drawers
    cached = _last_drawers  # one read: another thread may replace it meanwhile
    if cached[0] is state:
        return cached[1]
    hands, face_down, roles = state.hands, state.face_down, state.roles
    full, extra = state.rules.hand_size, state.rules.loadmaster_extra
    needs = []
    for p in clockwise_from(state, state.captain):  # cards_needed, without building the hand
        n = full - sum(hands[p]) - sum(face_down[p]) + (extra if roles[p] is _LOADMASTER else 0)
        if n > 0:
            needs.append((p, n))
    found = tuple(needs)
    _last_drawers = (state, found)
    return found


def nobody_draws(state: State, action: Action | None) -> bool:
    """Guard: every hand is full after clean-up and there is no loadmaster."""
    return not _drawers(state)


def clean_up(state: State, action: Action | None) -> Changes:
    """Phase 7: face-up cards go to the discard pile, face-down cards back to the hands.

    Then phase 8 is set up: drawing starts with the captain and goes clockwise, skipping
    players whose hands are already full.
    """
    n = state.players
    discarded = tuple(map(sum, zip(state.discard, *state.face_up, strict=True)))
    drawers = _drawers(state)
    changes: Changes = {
        # (after phase 2 every hand is empty: the face-down cards are the new hands)
        "hands": tuple(map(plus, state.hands, state.face_down)) if any(map(any, state.hands)) else state.face_down,
        "face_up": (EMPTY,) * n,
        "face_down": (EMPTY,) * n,
        "discard": discarded,
        "passed": (False,) * n,
        "captain_destination": None,
        "mutineer_destination": None,
        "drawn": EMPTY,
    }
    if state.rules.pirates_return:  # pirate variant option: back to Piratennest
        changes["pirate"] = piratennest(state.rules, state.ring)
    if drawers:
        changes["to_act"], changes["draws_left"] = drawers[0]
        changes["queue"] = tuple(map(_SEAT, drawers[1:]))
    return changes


def return_roles(state: State, action: Action | None) -> Changes:
    """Phase 9: role cards go back to the centre."""
    return {"roles": (None,) * state.players, "role_order": ()}


def next_round(state: State, action: Action | None) -> Changes:
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
