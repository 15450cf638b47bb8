"""The invariants every state the engine makes satisfies (:func:`check_state`).

A state read from outside (:func:`meuterer.loads_state`, a record, a conformance
fixture) passes :func:`check_state` before anything uses it. The step sets are read from
``meuterer.machine.STEPS`` and every rule is asked of ``phases/`` (a full hand, the
loadmaster's pool, the legal sale declarations), so no rule is written here a second time.

>>> import meuterer
>>> _, final = meuterer.random_game(seed=3, players=3)
>>> check_state(final)
>>> check_state(meuterer.state.evolve(final, {"round": 0}))
Traceback (most recent call last):
...
meuterer.errors.FormatError: $: round must be positive and draws_left not negative
"""

from __future__ import annotations

from typing import NoReturn

from meuterer.actions import Action, Discard, Draw, Offer, Sell
from meuterer.cards import CARDS, Role
from meuterer.errors import FormatError
from meuterer.islands import MAX_POINTS
from meuterer.machine import ROLES_SECRET, STEPS, Actor
from meuterer.phases.common import clockwise_from
from meuterer.phases.mutiny import holder
from meuterer.phases.scoring import legal_sell
from meuterer.phases.voyage import cards_needed, discard_pool
from meuterer.state import State, Step, evolve


def check_state(state: State) -> None:
    """Raise :class:`FormatError` unless ``state`` is internally consistent.

    Checks shapes (one entry per seat, 7 counts per multiset), ranges (seats, ring
    positions, non-negative counts), card conservation against ``rules.deck``, and that
    the fields agree with the step (who acts, the offer, roles, destinations, the mutiny,
    draws, sales on known islands): every state the engine makes passes, and a state that
    passes never stalls or crashes the engine, the views or the samplers.
    """
    n, ring = state.players, len(state.rules.islands)
    if n not in (3, 4):
        raise FormatError("$.players", f"3 or 4 players, got {n}")
    for name in ("hands", "face_up", "face_down", "passed", "roles", "sales", "scores"):
        if len(getattr(state, name)) != n:
            raise FormatError(f"$.{name}", f"one entry per seat ({n}), got {len(getattr(state, name))}")
    piles = {"deck": [state.deck], "discard": [state.discard], "drawn": [state.drawn]}
    piles.update(hands=list(state.hands), face_up=list(state.face_up), face_down=list(state.face_down))
    for name, counts in piles.items():
        for seat, pile in enumerate(counts):
            where = f"$.{name}" if name in ("deck", "discard", "drawn") else f"$.{name}[{seat}]"
            if len(pile) != len(CARDS) or min(pile) < 0:
                raise FormatError(where, f"{len(CARDS)} non-negative card counts, got {list(pile)}")
    total = [sum(p[c] for k in ("deck", "discard", "hands", "face_up", "face_down") for p in piles[k]) for c in CARDS]
    if tuple(total) != state.rules.deck:
        raise FormatError("$", f"cards are not conserved: {total} in play, the deck has {list(state.rules.deck)}")
    seats = [("captain", state.captain), ("to_act", state.to_act)] + [("queue", q) for q in state.queue]
    seats += [("role_order", q) for q in state.role_order]
    for name, seat in seats:
        if not 0 <= seat < n:
            raise FormatError(f"$.{name}", f"seat {seat} is not one of 0 to {n - 1}")
    if sorted(state.ring) != list(range(ring)):
        raise FormatError("$.ring", "the ring must place each island once")
    positions = [("start", state.start), ("captain_destination", state.captain_destination)]
    positions += [("mutineer_destination", state.mutineer_destination)] + [("active", a) for a in state.active]
    for name, position in positions:
        if position is not None and not 0 <= position < ring:
            raise FormatError(f"$.{name}", f"ring position {position} is not one of 0 to {ring - 1}")
    if state.round < 1 or state.draws_left < 0:
        raise FormatError("$", "round must be positive and draws_left not negative")
    if state.offer is not None and not 0 <= state.offer <= state.rules.max_offer:
        raise FormatError("$.offer", f"an offer is 0 to {state.rules.max_offer}, got {state.offer}")
    # A loose bound (encoding.score_bounds is the tight one): a round gives a seat at most
    # role points and two sales, each at most MAX_POINTS, and takes at most max_offer.
    most = state.rules.rounds_for(n) * 3 * MAX_POINTS
    for seat, score in enumerate(state.scores):
        if not -most <= score <= most:
            raise FormatError(f"$.scores[{seat}]", f"a score is from {-most} to {most}, got {str(score)[:60]}")
    _check_step(state)


# The step sets, read from the machine's declaration (in its order).
_ORDER = list(STEPS)


def _taking(*kinds: type) -> frozenset[Step]:
    return frozenset(step for step, spec in STEPS.items() if any(kind in spec.takes for kind in kinds))


def _from(first: Step, steps: frozenset[Step]) -> frozenset[Step]:
    return frozenset(step for step in steps if _ORDER.index(step) >= _ORDER.index(first))


_RESTING = frozenset(step for step, spec in STEPS.items() if spec.actor is not Actor.AUTOMATIC)
"""The steps a state rests at (apply moves on through the automatic ones)."""
_CHANCE = frozenset(step for step, spec in STEPS.items() if spec.actor is Actor.CHANCE)
"""The steps where cards (or the ring) are still to be drawn."""
_OFFER = next(iter(_taking(Offer)))
_BEFORE_OFFER = _RESTING - _from(_ORDER[_ORDER.index(_OFFER) + 1], _RESTING)
_DRAWING = _taking(Draw, Discard)
_NO_TABLE = _BEFORE_OFFER | _DRAWING
"""Steps where no card lies on the table and nobody has passed."""
_SECRET = ROLES_SECRET & _RESTING
"""Steps before the roles are revealed (no mutiny yet)."""
_SELL = next(iter(_taking(Sell)))
_DECLARED = _from(_SELL, _RESTING)
"""Steps at which this round's sale declarations are kept."""
_SAILED = _DECLARED - {_SELL, Step.GAME_OVER}
"""Steps after the ship has sailed (the active islands are the next round's)."""
_SIDES = (Role.MATE, Role.MUTINEER, Role.CABIN_BOY)


def _fail(path: str, message: str) -> NoReturn:
    raise FormatError(path, message)


def _check_step(state: State) -> None:
    """The step-dependent fields agree with the step: who acts, the round's progress so
    far, sales on known and active islands. Every state :func:`meuterer.apply` makes
    passes; a state that fails would stall or crash the engine."""
    step, n, p = state.step, state.players, state.to_act
    rules = state.rules
    if step not in _RESTING:
        _fail("$.step", f"a game never rests at the automatic step {step.value!r}")
    if (state.pirate is None) == rules.pirates:
        _fail("$.pirate", "the pirate ship is at a ring position exactly in the pirate variant")
    if p in state.queue or len(set(state.queue)) != len(state.queue):
        _fail("$.queue", "seats still to act are distinct and do not include to_act")
    if state.start not in state.active or list(state.active) != sorted(set(state.active)) or len(state.active) > 2:
        _fail("$.active", "one or two ring positions, ascending, the start island among them")
    if not state.round <= rules.rounds_for(n):
        _fail("$.round", f"round {state.round} is beyond the game's {rules.rounds_for(n)}")
    chosen = {seat for seat, role in enumerate(state.roles) if role is not None}
    taken = [role for role in state.roles if role is not None]
    if len(set(state.role_order)) != len(state.role_order) or set(state.role_order) != chosen:
        _fail("$.role_order", "the seats that chose a role, each once")
    if len(set(taken)) != len(taken):
        _fail("$.roles", "each role is held by one seat at most")
    if (state.offer is None) != (step in _BEFORE_OFFER):
        _fail("$.offer", "the offer is made in phase 1 and kept until the round ends")
    if step in _NO_TABLE:
        if any(map(any, state.face_up)) or any(map(any, state.face_down)) or any(state.passed):
            _fail("$", f"at step {step.value!r} no card is on the table and nobody has passed")
        if state.captain_destination is not None or state.mutineer_destination is not None:
            _fail("$", f"at step {step.value!r} no destination is set")
    for seat in range(n):
        if state.passed[seat] and any(state.hands[seat]):
            _fail(f"$.hands[{seat}]", "a player who passed has laid his hand face down")
        if not state.passed[seat] and any(state.face_down[seat]):
            _fail(f"$.face_down[{seat}]", "only a player who passed has cards face down")
    if step in _SECRET:
        if state.mutiny is not None or state.mutineer_destination is not None:
            _fail("$.mutiny", "no mutiny before the roles are revealed")
        if state.captain in chosen:
            _fail("$.roles", "the captain takes no role")
        if (state.captain_destination is None) == state.passed[state.captain] and step not in _BEFORE_OFFER:
            _fail("$.captain_destination", "set exactly when the captain has passed")
    if step in _BEFORE_OFFER and (chosen or any(sales is not None for sales in state.sales)):
        _fail("$", "no role or sale before phase 2")
    if step in _DRAWING:
        if not all(d <= h for d, h in zip(state.drawn, state.hands[p], strict=True)):
            _fail("$.drawn", "the cards drawn this turn are in the drawer's hand")
    elif any(state.drawn):
        _fail("$.drawn", "cards are drawn only in the deal and phase 8")
    if (state.draws_left > 0) != (step in _CHANCE):
        _fail("$.draws_left", "at least one card is left to draw exactly in the deal and phase 8")
    if step is Step.RING:
        others = clockwise_from(state, state.captain)[1:]
        fresh = state.round == 1 and p == state.captain and state.queue == others and not any(state.scores)
        fresh = fresh and state.deck == rules.deck and state.draws_left == rules.hand_size
        if not fresh or state.ring != tuple(range(len(state.ring))) or (state.start, state.active) != (0, (0,)):
            _fail("$", "before the ring is arranged, the game is as new_game makes it")
    for seat in range(n):
        held = sum(state.hands[seat]) + sum(state.face_up[seat]) + sum(state.face_down[seat])
        if held > _full(state, seat):
            _fail(f"$.hands[{seat}]", f"p{seat} holds {held} cards, more than a full hand ({_full(state, seat)})")
    if step in _CHANCE - {Step.RING} and state.draws_left != cards_needed(rules, state.roles[p], sum(state.hands[p])):
        _fail("$.draws_left", "the drawer draws until his hand is full")
    if step in _DRAWING:
        for seat in state.queue:
            if (step is Step.DEAL and any(state.hands[seat])) or sum(state.hands[seat]) >= _full(state, seat):
                _fail("$.queue", f"p{seat}, still to draw, needs cards")
    if step is _OFFER and p != state.captain:
        _fail("$.to_act", "the captain makes the offer")
    if step is Step.PLAY and (state.passed[p] or all(state.passed)):
        _fail("$.to_act", "the player to play has not passed")
    if step is Step.CHOOSE_ROLE and (not state.passed[p] or p == state.captain or p in chosen):
        _fail("$.to_act", "the player to choose a role has passed, is not the captain and has no role yet")
    mutineer = holder(state, Role.MUTINEER)
    if step in (Step.MUTINY, _SELL):
        if not all(state.passed) or state.captain_destination is None:
            _fail("$", f"at step {step.value!r} everyone has passed and the captain's destination is set")
        if (mutineer is None) != (state.mutineer_destination is None):
            _fail("$.mutineer_destination", "set exactly when someone is the mutineer")
    if step is Step.MUTINY:
        if mutineer is None or state.mutiny is not None:
            _fail("$.mutiny", "a mutiny is fought only with a mutineer, and not yet resolved")
        for seat in (p, *state.queue):
            if seat != state.captain and state.roles[seat] not in _SIDES:
                _fail("$.queue", f"p{seat} takes no part in the mutiny")
    if step is _SELL and (state.mutiny is None) != (mutineer is None):
        _fail("$.mutiny", "resolved exactly when someone is the mutineer")
    if step is Step.LOADMASTER_DISCARD and (
        state.roles[p] is not Role.LOADMASTER or sum(discard_pool(state)) < rules.loadmaster_extra
    ):
        _fail("$.to_act", f"the loadmaster discards, and holds {rules.loadmaster_extra} cards to discard")
    _check_sales(state)


def _full(state: State, seat: int) -> int:
    """A full hand of ``seat``: with the loadmaster's extra cards while he draws and discards."""
    if state.step in (Step.DRAW, Step.LOADMASTER_DISCARD):
        return cards_needed(state.rules, state.roles[seat], 0)
    return state.rules.hand_size


def _legal(state: State, seat: int) -> tuple[Action, ...]:
    return legal_sell(evolve(state, {"to_act": seat}))


def _check_sales(state: State) -> None:
    step = state.step
    open_seats = {state.to_act, *state.queue} if step is _SELL else set()
    for seat, declared in enumerate(state.sales):
        where = f"$.sales[{seat}]"
        if (step is _SELL and (declared is None) != (seat in open_seats)) or (
            step is Step.GAME_OVER and declared is None
        ):
            _fail(where, "every seat that has had its turn to sell has declared, and only those")
        if declared is not None and step not in _DECLARED:
            _fail(where, f"no sale is declared at step {step.value!r}")
        for sale in declared or ():
            position = state.position_of(sale.island)
            if position is None:
                _fail(where, f"there is no island {sale.island!r}")
            if step in _SAILED and (not state.island(position).buys_card(sale.card) or sale.count < 1):
                _fail(where, f"{sale.island} does not buy {sale.count} {sale.card}")
        # Until the ship sails the declaration is one of the seller's legal ones.
        if declared is not None and step not in _SAILED and Sell(seat, declared) not in _legal(state, seat):
            _fail(where, "not a legal declaration of the seller's face-up goods on the active islands")
