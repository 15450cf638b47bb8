"""The fast engine is the reference, faster: the same games for the same seeds, the same
state at every step, and the conformance kit finds no difference (it does find a changed rule)."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import product
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import IllegalActionError, Rules, SetupError
from meuterer.actions import Action, ChooseRole, Discard, Draw, Offer, Pass, Play, Sale, Sell, Support
from meuterer.agents import Agent, GreedyAgent, RandomAgent, play_game
from meuterer.cards import Card, Role
from meuterer.corpus import check_playthrough
from meuterer.fast import CHANCE, FastGame, random_game
from meuterer.fast import play_game as fast_play_game
from meuterer.state import FIELDS
from meuterer.testing import ConformanceError, FastAdapter, Setup, action_sequences, check_engine, setups

CORPUS = Path(__file__).parent / "data" / "conformance"

# Every value of every rule option appears in at least one of these.
RULE_SETS = [
    Rules(),
    Rules(pirates=True),
    Rules(pirates=True, pirates_rob_at_start=True, pirates_return=True, reshuffle="when_empty"),
    Rules(ring="shuffled", withholding=True, sale_order="round_captain", discard_pool="hand"),
    Rules(ring="shuffled", pirates=True, discard_pool="hand", reshuffle="when_empty", rounds=3),
    Rules(withholding=True, rounds=12, hand_size=4, loadmaster_extra=2, max_offer=5, cabin_boy_points=3),
]


class PirateShipGoesHome(FastGame):
    """A broken fast engine: one rule changed. After every round the pirate ship goes
    back to Piratennest (the rule says it stays where it stopped)."""

    def _sail(self) -> None:
        super()._sail()
        self.pirate = FastGame.new(self.players, 0, self.rules).pirate


@pytest.mark.parametrize(("rules", "players"), list(product(RULE_SETS, (3, 4))))
def test_random_game_plays_the_reference_game_for_every_seed(rules: Rules, players: int) -> None:
    for seed in range(12):
        first = seed % players
        expected = meuterer.random_game(seed=seed, players=players, first_captain=first, rules=rules)
        assert random_game(seed=seed, players=players, first_captain=first, rules=rules) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**64), setups())
def test_random_game_equals_the_reference_for_any_options(seed: int, setup: Setup) -> None:
    args = (seed, setup.players, setup.first_captain, setup.rules)
    assert random_game(*args) == meuterer.random_game(*args)


class CountsItsOwnSteps(FastGame):
    """A fast engine whose step methods are counted: random_game calls a subclass's own."""

    calls: ClassVar[Counter[str]] = Counter()

    def _play(self, card: int) -> None:
        self.calls["play"] += 1
        super()._play(card)

    def _pass(self) -> None:
        self.calls["pass"] += 1
        super()._pass()

    def _take_role(self, role: Role) -> None:
        self.calls["role"] += 1
        super()._take_role(role)

    def _sell(self, sales: tuple[Sale, ...]) -> None:
        self.calls["sell"] += 1
        super()._sell(sales)

    def _drawn_all(self) -> None:
        self.calls["drawn_all"] += 1
        super()._drawn_all()


def test_random_game_of_a_subclass_calls_its_own_step_methods() -> None:
    CountsItsOwnSteps.calls.clear()
    actions, final = CountsItsOwnSteps.random_game(seed=4, players=4)
    assert (actions, final) == meuterer.random_game(seed=4, players=4)
    calls = CountsItsOwnSteps.calls
    assert calls["play"] == sum(isinstance(a, Play) for a in actions)
    assert calls["pass"] == sum(isinstance(a, Pass) for a in actions)
    assert calls["role"] == sum(isinstance(a, ChooseRole) for a in actions)
    assert calls["sell"] == sum(isinstance(a, Sell) for a in actions)
    assert calls["drawn_all"] > 0


def test_random_game_without_a_seed_and_with_bad_arguments() -> None:
    actions, final = random_game()
    assert meuterer.is_terminal(final) and len(actions) > 100
    for players, first in ((2, 0), (5, 0), (4, 4), (3, -1)):
        with pytest.raises(SetupError) as fast_error:
            random_game(players=players, first_captain=first)
        with pytest.raises(SetupError) as reference_error:
            meuterer.random_game(players=players, first_captain=first)
        assert str(fast_error.value) == str(reference_error.value)


def _totals(state: meuterer.State) -> tuple[list[int], list[int]]:
    """The sums a fast game keeps in ``state``: the hand sizes, then the face-down sizes,
    of its seats (``FastGame.sizes``), and each kind's count face up (``face_up_total``)."""
    return [*map(sum, state.hands), *map(sum, state.face_down)], [*map(sum, zip(*state.face_up, strict=True))]


def _kept(game: FastGame) -> tuple[list[int], list[int]]:
    return game.sizes, game.face_up_total


def _walk(setup: Setup, actions: tuple[Action, ...]) -> None:
    """Play ``actions`` on both engines and compare everything at every step."""
    state = meuterer.new_game(setup.players, setup.first_captain, setup.rules)
    game = FastGame.new(setup.players, setup.first_captain, setup.rules)
    for action in (*actions, None):
        assert game.to_state() == state
        assert _kept(game) == _totals(state)  # kept up to date by every move
        assert type(game.roles) is tuple and type(game.role_order) is tuple  # replaced, never changed in place
        assert FastGame.from_state(state).to_state() == state
        assert game.current_player == meuterer.current_player(state)
        assert game.is_chance_node() == meuterer.is_chance_node(state)
        assert game.is_terminal() == meuterer.is_terminal(state)
        assert tuple(game.scores) == meuterer.scores(state)
        assert game.winners() == meuterer.winners(state)
        legal = meuterer.legal_actions(state)
        if len(legal) < 1000:
            assert list(game.legal_actions()) == list(legal)
            assert list(FastGame.from_state(state).legal_actions()) == list(legal)
        else:
            assert len(game.legal_actions()) == len(legal) and game.legal_actions()[77] == legal[77]
        if action is None:
            break
        # A clone is independent: acting on it leaves the original as it was.
        copy = game.clone()
        copy.apply(action)
        assert game.to_state() == state and _kept(game) == _totals(state)
        state = meuterer.apply(state, action)
        assert copy.to_state() == state and _kept(copy) == _totals(state)
        game.apply(action)


@settings(max_examples=40, deadline=None)
@given(action_sequences())
def test_every_step_of_any_game_agrees_with_the_reference(example: tuple[Setup, tuple[Action, ...]]) -> None:
    _walk(*example)


def test_every_step_agrees_under_every_rule_set() -> None:
    for index, rules in enumerate(RULE_SETS):
        for players in (3, 4):
            first = index % players
            actions, _ = meuterer.random_game(seed=100 + index, players=players, first_captain=first, rules=rules)
            _walk(Setup(players, first, rules), actions)


def _states(count: int) -> list[meuterer.State]:
    found = []
    for seed in range(count):
        actions, _ = meuterer.random_game(seed=seed, rules=RULE_SETS[seed % len(RULE_SETS)])
        found.append(meuterer.Game.replay(actions, rules=RULE_SETS[seed % len(RULE_SETS)]).states)
    return [s for states in found for s in states[::7]]


CANDIDATES: list[Action] = [
    Draw(0, Card.PIRATE),
    Draw(1, Card.GRAIN),
    Offer(0, 0),
    Offer(2, 4),
    Play(1, Card.WINE),
    Play(0, Card.PIRATE),
    Pass(3),
    Pass(0),
    Support(2, 1),
    Support(0, 9),
    Sell(1, ()),
    Discard(2, (Card.GRAIN, Card.GRAIN, Card.GRAIN)),
    meuterer.parse_action("p0 role mutineer"),
]


def test_illegal_actions_raise_the_reference_error_and_change_nothing() -> None:
    for state in _states(6):
        game = FastGame.from_state(state)
        for action in CANDIDATES:
            legal = action in meuterer.legal_actions(state)
            if legal:
                continue
            with pytest.raises(IllegalActionError):
                meuterer.apply(state, action)
            with pytest.raises(IllegalActionError) as caught:
                game.apply(action)
            assert caught.value.action == action and str(action) in str(caught.value)
            assert game.to_state() == state


def test_current_player_and_sample_chance_match_the_reference() -> None:
    chances = 0
    for seed, state in enumerate(_states(4)):
        game = FastGame.from_state(state)
        assert game.current_player == meuterer.current_player(state)
        if meuterer.is_chance_node(state):
            assert game.current_player == CHANCE
            assert game.sample_chance(random.Random(seed)) == meuterer.sample_chance(state, random.Random(seed))
            drawn = game.apply_chance(random.Random(seed))
            assert game.to_state() == meuterer.apply(state, drawn)
            chances += 1
    assert chances > 5


def test_the_chance_steps_are_the_machines() -> None:
    # The fast engine declares its own (it reads no machine); the PettingZoo env calls its
    # chance loop only at these steps.
    from meuterer.fast.engine import _STEPS, CHANCE_STEPS
    from meuterer.machine import STEPS, Actor

    declared = {step for step, spec in STEPS.items() if spec.actor is Actor.CHANCE}
    assert {_STEPS[step] for step in CHANCE_STEPS} == declared


def test_the_conformance_kit_finds_no_difference() -> None:
    # About 300 whole games drawn by hypothesis across every rule option, compared step by step.
    check_engine(FastAdapter(), max_examples=300, seed=13)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json")), ids=lambda p: p.name)
def test_the_golden_playthroughs(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert check_playthrough(data, FastAdapter()) == []
    # ...and the check is not blind: a tampered playthrough is caught.
    data["steps"][20]["scores"][0] += 1
    assert check_playthrough(data, FastAdapter()) == ["step 20: scores differ"]


def test_a_broken_fast_engine_is_caught() -> None:
    pirates = Rules(pirates=True)
    # The kit finds it...
    with pytest.raises(ConformanceError) as caught:
        check_engine(
            FastAdapter(PirateShipGoesHome), max_examples=50, seed=1, setup=Setup(4, 0, pirates), max_shrink_seconds=5
        )
    assert caught.value.what == "public view"
    assert any(a.endswith("play pirate") for a in caught.value.actions)
    # ...and so does the same-seed test.
    reference = {s: meuterer.random_game(s, rules=pirates) for s in range(12)}
    differ = [s for s in range(12) if PirateShipGoesHome.random_game(s, rules=pirates) != reference[s]]
    assert differ
    assert all(FastGame.random_game(s, rules=pirates) == reference[s] for s in differ)


@pytest.mark.parametrize(("players", "rules"), [(4, Rules()), (3, RULE_SETS[2]), (4, RULE_SETS[3])])
def test_play_game_gives_the_reference_results(players: int, rules: Rules) -> None:
    pool: list[Agent] = [GreedyAgent(), RandomAgent(), GreedyAgent(), RandomAgent()]
    agents = pool[:players]
    for seed in range(3):
        assert fast_play_game(agents, seed=seed, first_captain=seed % players, rules=rules) == play_game(
            agents, seed=seed, first_captain=seed % players, rules=rules
        )


def test_play_game_rejects_an_illegal_choice_as_the_reference_does() -> None:
    class Cheat:
        name = "cheat"

        def act(self, view: object, legal: object, rng: random.Random) -> Action:
            return Offer(0, 99)

    with pytest.raises(IllegalActionError):
        fast_play_game([Cheat(), Cheat(), Cheat()], seed=1)


def test_apply_at_applies_the_listed_action_and_rejects_other_indices() -> None:
    actions, _ = meuterer.random_game(seed=3, players=3)
    state = meuterer.new_game(players=3)
    game = FastGame.new(players=3)
    for action in actions[:60]:
        index = list(meuterer.legal_actions(state)).index(action)
        for bad in (-1, len(meuterer.legal_actions(state))):
            with pytest.raises(IllegalActionError, match="numbered from 0"):
                game.apply_at(bad)
        assert game.apply_at(index) == action
        state = meuterer.apply(state, action)
        assert game.to_state() == state


def test_to_state_builds_a_state_as_its_constructor_does() -> None:
    state = FastGame.new(4, 1, Rules(pirates=True)).to_state()
    assert list(vars(state)) == list(FIELDS)
    assert vars(state) == vars(meuterer.State(**vars(state)))
    assert state == meuterer.new_game(4, 1, Rules(pirates=True)) and hash(state) == hash(
        meuterer.new_game(4, 1, Rules(pirates=True))
    )


@pytest.mark.parametrize(("rules", "players"), [(Rules(), 4), (Rules(pirates=True, ring="shuffled"), 3)])
def test_play_random_makes_the_moves_of_the_loop_it_fuses(rules: Rules, players: int) -> None:
    # play_random is apply_chance for chance and apply_at(rng.randrange(len(legal))) for each
    # seat with a generator, stopping at a seat without one: the same draws, the same game.
    for seed in range(12):
        stop = seed % players
        fused, loop = FastGame.new(players, rules=rules), FastGame.new(players, rules=rules)
        chances = random.Random(seed), random.Random(seed)
        seats = [[None if s == stop else random.Random(f"{seed}/{s}") for s in range(players)] for _ in range(2)]
        chooser = random.Random(seed)
        while True:
            fused.play_random(chances[0], seats[0])
            while (player := loop.current_player) is not None and player != stop:
                if player == CHANCE:
                    loop.apply_chance(chances[1])
                else:
                    generator = seats[1][player]
                    assert generator is not None
                    loop.apply_at(generator.randrange(len(loop.legal_actions())))
            assert fused.to_state() == loop.to_state() and fused.legal_actions() == loop.legal_actions()
            assert _kept(fused) == _kept(loop) == _totals(loop.to_state())
            if player is None:
                break
            index = chooser.randrange(len(loop.legal_actions()))
            fused.apply_at(index)
            loop.apply_at(index)


def test_play_random_asks_a_generator_with_its_own_randrange_for_it() -> None:
    # The fused loop calls Random._randbelow for a plain generator (what randrange(n) calls),
    # and randrange itself for a subclass that changes it. Here it plays a whole game.
    class Last(random.Random):
        def randrange(self, *args: int) -> int:  # type: ignore[override]
            return args[0] - 1

    fused, loop = FastGame.new(3), FastGame.new(3)
    fused.play_random(random.Random(5), [random.Random(0), Last(), random.Random(1)])
    chance, plain = random.Random(5), [random.Random(0), None, random.Random(1)]
    while (player := loop.current_player) is not None:
        if player == CHANCE:
            loop.apply_chance(chance)
        else:
            count, generator = len(loop.legal_actions()), plain[player]
            loop.apply_at(count - 1 if generator is None else generator.randrange(count))
    assert fused.is_terminal() and fused.to_state() == loop.to_state()


def test_play_random_draws_inline_only_what_randrange_draws() -> None:
    # play_random spells out random.Random's _randbelow_with_getrandbits only where its
    # bytecode is the generator's own (this Python's): a body that draws otherwise is not it.
    from meuterer.fast import engine

    def other(self: random.Random, n: int) -> int:
        getrandbits = self.getrandbits
        k = (n - 1).bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    assert engine._PLAIN is random.Random
    assert engine._same_code(engine._randbelow_with_getrandbits, random.Random._randbelow)  # type: ignore[attr-defined]
    assert not engine._same_code(other, random.Random._randbelow)  # type: ignore[attr-defined]
    assert not engine._same_code(engine._randbelow_with_getrandbits, len)
    for n in (1, 2, 3, 5, 8, 13, 40):
        mine, theirs = random.Random(n), random.Random(n)
        assert [engine._randbelow_with_getrandbits(mine, n) for _ in range(50)] == [
            theirs.randrange(n) for _ in range(50)
        ]


def test_update_takes_over_any_changes_in_the_layout() -> None:
    # _update runs code compiled once for each tuple of names: every field, in any order,
    # with the values of the changes at hand (not those it was compiled for).
    # (Effects change every field but the step, which the engine keeps as a number.)
    _, later = random_game(seed=4)
    fields = {name: value for name, value in vars(later).items() if name != "step"}
    for names in (tuple(fields), tuple(reversed(fields))):
        game = FastGame.new(4)
        game._update({name: fields[name] for name in names})  # type: ignore[arg-type]
        game.step = FastGame.from_state(later).step
        assert game.to_state() == later and game.clone().to_state() == later
        assert _kept(game) == _totals(later)
        assert type(game.hands) is list and all(type(hand) is list for hand in game.face_up)
        assert type(game.queue) is list and type(game.scores) is list
    game = FastGame.new(4)
    for scores in ((1, 2, 3, 4), (5, 6, 7, 8)):
        game._update({"scores": scores, "offer": scores[0]})
        assert game.scores == list(scores) and game.offer == scores[0]
    game.bought()
    assert game._where is not None
    game._update({"active": (0, 1)})
    assert game._where is None and game.active == (0, 1)
    game._update({})
    with pytest.raises(AttributeError):
        game._update({"no_such_field": 1})
