"""Shared helpers for the rules tests: apply scripts in the canonical notation, deal chosen
hands, and read legal actions as text.

Chance is explicit in meuterer (every card drawn is a ``draw pN card`` action), so a test
controls every hand exactly by choosing the draws.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import meuterer
from meuterer import Card, Rules, State, Step
from meuterer.cards import Counts, counts_of

MAX_STEPS = 100
"""A bound on every loop of these helpers, so that a broken engine fails instead of hanging."""


def cards(text: str) -> list[Card]:
    """The cards named in ``text`` (``"wine wine salt"``), in the given order."""
    return [Card[name.upper()] for name in text.split()]


def counts(text: str) -> Counts:
    """The multiset named in ``text``: ``counts("wine salt wine")`` = 2 wine + 1 salt."""
    return counts_of(cards(text))


def play(state: State, *texts: str) -> State:
    """Apply the actions written in canonical notation, one by one."""
    for text in texts:
        state = meuterer.apply(state, meuterer.parse_action(text))
    return state


def run(state: State, script: Iterable[str]) -> State:
    """Apply a script (a sequence of action texts)."""
    return play(state, *script)


def legal(state: State) -> set[str]:
    """The legal actions of ``state`` as canonical text."""
    return {str(action) for action in meuterer.legal_actions(state)}


def legal_list(state: State) -> list[str]:
    """The legal actions of ``state`` as canonical text, in the engine's order."""
    return [str(action) for action in meuterer.legal_actions(state)]


def deal_script(hands: Sequence[str], captain: int = 0) -> list[str]:
    """The draw actions dealing ``hands`` (one string of five cards per seat).

    The deal starts with the captain and goes clockwise; each player draws his five
    cards in turn.
    """
    n = len(hands)
    script = []
    for i in range(n):
        seat = (captain + i) % n
        script += [f"draw p{seat} {card}" for card in cards(hands[seat])]
    return script


def deal(hands: Sequence[str], captain: int = 0, rules: Rules | None = None) -> State:
    """A new game (``len(hands)`` players) with exactly ``hands`` dealt; phase 1 is next."""
    state = meuterer.new_game(len(hands), captain, rules)
    return run(state, deal_script(hands, captain))


def draw(state: State, text: str) -> State:
    """Draw the cards named in ``text`` for whoever is to draw, one after the other."""
    for card in cards(text):
        state = play(state, f"draw p{state.to_act} {card}")
    return state


def remaining(used: Iterable[str], rules: Rules | None = None) -> Counts:
    """The deck composition left after the cards named in ``used`` are taken out."""
    deck = list((rules or Rules()).deck)
    for text in used:
        for card in cards(text):
            deck[card] -= 1
            assert deck[card] >= 0, f"more {card} than the deck holds"
    return tuple(deck)


def filler(left: Counts, n: int, avoid: Iterable[Card] = ()) -> str:
    """``n`` cards of one good still in ``left`` (the most plentiful good not in ``avoid``)."""
    avoided = set(avoid) | {Card.SUPPORT, Card.PIRATE}
    best = max((c for c in Card if c not in avoided), key=lambda c: left[c])
    assert left[best] >= n, "not enough cards of one kind left for the filler"
    return " ".join([str(best)] * n)


def sail_to(
    destination: int,
    round_two_hands: Sequence[str],
    captain: int = 0,
    rules: Rules | None = None,
) -> State:
    """Play round 1 so that the ship sails from Hochland to ring position ``destination``
    without a mutiny, and every player holds exactly ``round_two_hands`` in round 2.

    Round 1: each non-captain passes at once (his whole hand face down, so he gets the
    same five cards back) and takes a role that is neither mutineer nor loadmaster; the
    captain offers 0, plays ``5 - destination`` filler cards of one good, passes with the
    first ``destination`` cards of his round-2 hand and, in phase 8, draws the rest of it.
    Returns the state at phase 1 of round 2 (the captain is to offer).
    """
    n = len(round_two_hands)
    assert 0 <= destination <= 5
    mine = cards(round_two_hands[captain])
    keep, later = mine[:destination], mine[destination:]
    left = remaining(round_two_hands, rules)
    extra = filler(left, 5 - destination)
    hands = list(round_two_hands)
    hands[captain] = " ".join([*map(str, keep), *extra.split()])
    state = deal(hands, captain, rules)
    state = play(state, f"p{captain} offer 0")
    roles = iter(["merchant", "cabin_boy", "mate"])
    others = [(captain + i) % n for i in range(1, n)]
    good = extra.split()[0] if extra else ""
    # The captain acts first: he plays a filler card (or passes at once with five).
    state = play(state, f"p{captain} pass" if destination == 5 else f"p{captain} play {good}")
    for seat in others:
        state = play(state, f"p{seat} pass", f"p{seat} role {next(roles)}")
    if destination < 5:
        for _ in range(4 - destination):
            state = play(state, f"p{captain} play {good}")
        state = play(state, f"p{captain} pass")
    assert state.phase is meuterer.Phase.SCORING
    state = sell_first(state, last=True)
    state = draw(state, " ".join(map(str, later)))
    assert state.phase is meuterer.Phase.OFFER and state.round == 2
    assert state.start == destination
    for seat, hand in enumerate(round_two_hands):
        assert state.hands[seat] == counts(hand)
    return state


def phase_two(state: State, plays: Sequence[str], roles: Mapping[int, str], offer: int = 0) -> State:
    """From phase 1 to the end of phase 2: the captain offers ``offer``; then, on each
    turn, a player plays the next card of ``plays[seat]`` (cards in order) or, when he
    has none left to play, passes; a non-captain then takes ``roles[seat]``.
    """
    state = play(state, f"p{state.captain} offer {offer}")
    todo = [cards(text) for text in plays]
    for _ in range(MAX_STEPS):
        if state.step not in (Step.PLAY, Step.CHOOSE_ROLE):
            return state
        p = state.to_act
        if state.step is Step.CHOOSE_ROLE:
            state = play(state, f"p{p} role {roles[p]}")
        elif todo[p]:
            state = play(state, f"p{p} play {todo[p].pop(0)}")
        else:
            assert not state.passed[p], f"the turn went to p{p}, who has passed"
            state = play(state, f"p{p} pass")
    raise AssertionError("phase 2 does not end")


def mutiny(state: State, supports: Mapping[int, int]) -> State:
    """Phase 4: each participant, in the engine's order, adds ``supports[seat]`` (default 0)."""
    for _ in range(MAX_STEPS):
        if state.step is not Step.MUTINY:
            return state
        p = state.to_act
        state = play(state, f"p{p} support {supports.get(p, 0)}")
    raise AssertionError("phase 4 does not end")


def sell_first(state: State, last: bool = False) -> State:
    """Phase 5: every player in turn makes the first (or ``last``) legal declaration."""
    for _ in range(MAX_STEPS):
        if state.step is not Step.SELL:
            return state
        state = meuterer.apply(state, meuterer.legal_actions(state)[-1 if last else 0])
    raise AssertionError("phase 5 does not end")


def draw_any(state: State) -> tuple[State, list[int]]:
    """Draw the first available card while the state is a chance node.

    Returns the state afterwards and the seat of each draw, in order.
    """
    seats: list[int] = []
    for _ in range(MAX_STEPS):
        if not meuterer.is_chance_node(state):
            return state, seats
        seats.append(state.to_act)
        state = meuterer.apply(state, meuterer.legal_actions(state)[0])
    raise AssertionError("the drawing does not end")


def deltas(before: State, after: State) -> tuple[int, ...]:
    """Points each seat scored between two states."""
    return tuple(a - b for a, b in zip(after.scores, before.scores, strict=True))


def load_script(name: str) -> ModuleType:
    """The module ``scripts/<name>.py`` of the repository (the scripts are not a package)."""
    path = Path(__file__).resolve().parent.parent / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def check_env_opponents(env: Any, seats: Sequence[int], agent: Any, seed: int, steps: int = 120) -> None:
    """Play the vector env ``env`` (a ``MeutererVectorEnv`` of 8 games) for ``steps`` steps of
    random learner actions from ``seed``, and check that every move of an opponent in
    ``seats`` is the one ``agent`` makes on the state it was made in (the env's batched
    opponents choose as the scalar agent); at least a whole game in each, 300 moves a seat."""
    import random

    g = env.game
    seen: list[tuple[State, int]] = []
    plain = g._apply

    def recording(idx: Any, actions: Any, *rest: Any) -> None:
        for k, game in enumerate(idx.tolist()):
            if not g.chance[game] and int(g.to_act[game]) in seats:
                seen.append((g.to_state(game), int(actions[k])))
        plain(idx, actions, *rest)

    g._apply = recording
    env.reset(seed=seed)
    finished = 0
    for _ in range(steps):
        finished += int(env.step(env.random_actions())[2].sum())
    assert finished >= 8 and len(seen) > 300 * len(seats)
    rng = random.Random(0)
    for state, chosen in seen:
        seat = meuterer.current_player(state)
        assert seat is not None
        action = agent.act(meuterer.view(state, seat), meuterer.legal_actions(state), rng)
        assert g.ids.action_id(state, action) == chosen
