"""Nothing above the engines restates a rule (issue 36, item 3).

Every option of :class:`meuterer.Rules` is played at a value other than its default, and
what the greedy bot estimates and what the help texts of the terminal game (which the web
table shows too) say is held to what the engine then does: the numbers a text states are
the numbers of the game being played, and the bot's estimates are what the engine pays.
The options are read from ``attrs.fields(Rules)``, so a new option is played here too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from enum import Enum
from typing import Any

import attrs
import pytest

from meuterer import ISLANDS, Rules
from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell
from meuterer.agents import GreedyAgent, RandomAgent
from meuterer.agents.greedy import best_sales, competition
from meuterer.cards import GOODS, Card, Role
from meuterer.cli.play import render
from meuterer.engine import apply, is_chance_node, is_terminal, legal_actions, new_game, sample_chance
from meuterer.errors import RulesError
from meuterer.phases.voyage import discard_pool
from meuterer.state import State, Step
from meuterer.views import PlayerView, view

ODD_ISLANDS = tuple(
    attrs.evolve(island, values=(1, 4, 3), buys=Card.RUBY if island.name == "piratennest" else island.buys)
    for island in ISLANDS
)
"""An island table unlike the box's: a tie pays more than a lone lead (so selling fewer cards
may score more, where the rules allow it), and Piratennest buys rubies only."""

NO_ANY = tuple(attrs.evolve(island, buys=Card.GRAIN if island.buys is None else island.buys) for island in ISLANDS)
"""An island table where no island buys any good (Hochland and Piratennest buy grain)."""

SPECIAL = {"islands": (ODD_ISLANDS, NO_ANY), "deck": ((5, 6, 6, 7, 8, 7, 0),), "rounds": (2,)}
"""Non-default values of the options that are not a flag, a choice or a number."""

NEEDS = {"pirates_rob_at_start": {"pirates": True}, "pirates_return": {"pirates": True}}
"""Options that only act together with another."""


def non_default_values(field: attrs.Attribute[Any]) -> tuple[Any, ...]:
    """Valid values of an option other than its default, derived from the default's type."""
    default = getattr(Rules(), field.name)
    if field.name in SPECIAL:
        return SPECIAL[field.name]
    if isinstance(default, bool):
        return (not default,)
    if isinstance(default, Enum):
        return tuple(member for member in type(default) if member is not default)
    if isinstance(default, int):  # none, and one either side of the default
        values = {0, default - 1, default + 1} - {default}
        return tuple(n for n in sorted(values) if n >= 0 and valid(field.name, n))
    raise AssertionError(f"no non-default value for the rule option {field.name}: add one to SPECIAL")


def valid(name: str, value: Any) -> bool:
    try:
        Rules(**{name: value})
    except RulesError:
        return False
    return True


CASES = [
    (field.name, value, Rules(**{**NEEDS.get(field.name, {}), field.name: value}))
    for field in attrs.fields(Rules)
    for value in non_default_values(field)
]
IDS = [
    f"{name}={value if name != 'islands' else ('odd' if value is ODD_ISLANDS else 'no-any')}"
    for name, value, _ in CASES
]


def test_every_option_is_played_off_its_default() -> None:
    assert {name for name, _, _ in CASES} == {field.name for field in attrs.fields(Rules)}
    for name, value, rules in CASES:
        assert getattr(rules, name) == value != getattr(Rules(), name)


# Playing -----------------------------------------------------------------------------------


@attrs.frozen
class Moment:
    state: State
    legal: tuple[Action, ...]
    """The legal actions (empty at a chance node)."""
    action: Action
    after: State


def play(rules: Rules) -> Iterator[Moment]:
    """Three games (3 and 4 players), greedy bots in the even seats and random ones in the odd
    seats (they take the roles the greedy bots leave)."""
    for players, seed in ((3, 1), (4, 2), (4, 3)):
        rng = random.Random(seed)
        agents = [GreedyAgent() if seat % 2 == 0 else RandomAgent() for seat in range(players)]
        state = new_game(players, 0, rules)
        while not is_terminal(state):
            if is_chance_node(state):
                legal: tuple[Action, ...] = ()
                action = sample_chance(state, rng)
            else:
                legal = tuple(legal_actions(state))
                action = agents[state.to_act].act(view(state, state.to_act), legal, rng)
            after = apply(state, action)
            yield Moment(state, legal, action, after)
            state = after


def role_points_scored(step: Moment) -> tuple[int, ...] | None:
    """The role points the engine gave in this step (``None`` if it gave none): the step that
    ends at the first declaration of phase 5 scored them, and nothing else."""
    if step.after.step is Step.SELL and step.state.step is not Step.SELL:
        return tuple(new - old for old, new in zip(step.state.scores, step.after.scores, strict=True))
    return None


def mine(v: PlayerView) -> int:
    assert v.player is not None
    return v.player


WORDS = {w: n for n, w in enumerate(("no", "one", "two", "three", "four", "five", "six", "seven", "eight"))}


def number(text: str) -> int:
    """A number as a text writes it (``two``, ``no``, ``12``)."""
    return int(text) if text.isdigit() else WORDS[text]


def found(pattern: str, text: str) -> re.Match[str]:
    match = re.search(pattern, text)
    assert match is not None, f"{pattern!r} not in {text!r}"
    return match


# Help texts --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value", "rules"), CASES, ids=IDS)
def test_move_help_says_what_the_engine_does(name: str, value: object, rules: Rules) -> None:
    """Each legal move's help (the terminal lists them; the web table shows them too)."""
    promised_mate: dict[int, int] = {}  # what the help of the chosen offer and of the mate promised
    promised_boy: int | None = None
    checked = 0
    for step in play(rules):
        state, after = step.state, step.after
        if step.legal:
            v = view(state, state.to_act)
            texts = {action: render.move_help(v, action) for action in step.legal}
            for action, text in texts.items():
                if isinstance(action, Discard):  # "discard these two" or "discard nothing"
                    said = 0 if "nothing" in text else number(found(r"discard these (\w+)", text)[1])
                    assert said == len(action.cards) == rules.loadmaster_extra, text
                    checked += 1
                elif isinstance(action, ChooseRole) and action.role is Role.LOADMASTER:
                    drawn = number(found(r"draw (\w+) extra", text)[1])
                    assert drawn == rules.loadmaster_extra, text
                    if drawn:
                        assert number(found(r"then discard (\w+)", text)[1]) == drawn, text
                        assert ("of your hand" in text) == (rules.discard_pool == "hand"), text
                    checked += 1
                elif isinstance(action, ChooseRole) and action.role is Role.CABIN_BOY:
                    promised_boy = int(found(r"(\d+) VP if a mutiny succeeds", text)[1])
            chosen = texts[step.action]
            if isinstance(step.action, Offer):
                promised_mate[state.round] = int(found(r"a mate would score (\d+)", chosen)[1])
            elif isinstance(step.action, ChooseRole) and step.action.role is Role.MATE:
                assert int(found(r"\((\d+) VP\)", chosen)[1]) == promised_mate[state.round], chosen
            elif isinstance(step.action, Pass) and state.to_act == state.captain:
                assert after.captain_destination is not None
                assert f" {after.island_name(after.captain_destination)} " in chosen, chosen
                checked += 1
            elif isinstance(step.action, Play) and step.action.card is Card.PIRATE:
                assert after.pirate is not None
                assert ("does not move" in chosen) == (after.pirate == state.pirate), chosen
                if after.pirate != state.pirate:
                    assert chosen.split(" to ")[1].split(" ")[0] == after.island_name(after.pirate), chosen
                robbed = not any(map(any, after.face_up))
                assert ("robs every face-up card" in chosen) == robbed, chosen
                checked += 1
        scored = role_points_scored(step)
        if scored is not None:
            roles = after.roles
            if after.mutiny and Role.CABIN_BOY in roles:
                assert promised_boy is not None
                assert scored[roles.index(Role.CABIN_BOY)] == promised_boy
                checked += 1
            if not after.mutiny and Role.MATE in roles:
                assert scored[roles.index(Role.MATE)] == promised_mate[state.round]
                checked += 1
    assert checked


@pytest.mark.parametrize(("name", "value", "rules"), CASES, ids=IDS)
def test_phase_help_says_what_the_engine_does(name: str, value: object, rules: Rules) -> None:
    """The help of each step (the terminal's ``help``; the web table's hint)."""
    seen: set[Step] = set()
    for step in play(rules):
        if not step.legal:
            continue
        state, legal = step.state, step.legal
        v = view(state, state.to_act)
        text = render.phase_help(v)
        if state.step is Step.OFFER:
            amounts = [a.amount for a in legal if isinstance(a, Offer)]
            assert found(r"\((\d+) to (\d+)\)", text).groups() == (str(min(amounts)), str(max(amounts))), text
        elif state.step is Step.SELL:
            for island in rules.islands:  # named as buying any good exactly when it buys every good
                assert (island.name in text) == all(island.buys_card(good) for good in GOODS), text
            if any(isinstance(a, Sell) and a.sales for a in legal):  # he has something to sell
                assert ("may keep back" in text) == (Sell(state.to_act, ()) in legal), text
        elif state.step is Step.LOADMASTER_DISCARD:
            count = {len(a.cards) for a in legal if isinstance(a, Discard)}
            if "nothing" in text:
                assert count == {0}, text
            else:
                assert {number(found(r"choose (\w+) of", text)[1])} == count, text
                drawn = discard_pool(state) is state.drawn
                assert ("the cards you have just drawn" in text) == drawn, text
        seen.add(state.step)
    assert {Step.OFFER, Step.SELL} <= seen


# The greedy bot's estimates --------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value", "rules"), CASES, ids=IDS)
def test_greedy_values_the_roles_as_the_engine_pays(name: str, value: object, rules: Rules) -> None:
    """The cabin boy is worth the points the engine gives him, the loadmaster the cards it deals
    him: the bot's estimate under these rules is the estimate for one point (one card) times that."""
    greedy = GreedyAgent()
    paid_boy: set[int] = set()
    extra_cards: set[int] = set()
    compared = 0
    for step in play(rules):
        state = step.state
        if state.step is Step.CHOOSE_ROLE:
            v = view(state, state.to_act)
            values = greedy.role_values(v)
            if Role.CABIN_BOY in values:
                one_point = greedy.role_values(attrs.evolve(v, rules=attrs.evolve(rules, cabin_boy_points=1)))
                assert values[Role.CABIN_BOY] == pytest.approx(one_point[Role.CABIN_BOY] * rules.cabin_boy_points)
                compared += 1
            if Role.LOADMASTER in values and rules.loadmaster_extra:
                one_card = greedy.role_values(attrs.evolve(v, rules=attrs.evolve(rules, loadmaster_extra=1)))
                assert values[Role.LOADMASTER] == pytest.approx(one_card[Role.LOADMASTER] * rules.loadmaster_extra)
        elif state.step is Step.LOADMASTER_DISCARD:
            extra_cards.update(len(a.cards) for a in step.legal if isinstance(a, Discard))
        scored = role_points_scored(step)
        if scored is not None and step.after.mutiny and Role.CABIN_BOY in step.after.roles:
            paid_boy.add(scored[step.after.roles.index(Role.CABIN_BOY)])
    assert compared
    # ... and the numbers the estimates were scaled by are what the engine paid and dealt.
    assert paid_boy <= {rules.cabin_boy_points}
    assert extra_cards <= {rules.loadmaster_extra}


@pytest.mark.parametrize(("name", "value", "rules"), CASES, ids=IDS)
def test_greedy_mutiny_stakes_are_what_the_engine_pays(name: str, value: object, rules: Rules) -> None:
    """What the bot plays for in a mutiny (its role points if its side wins) is what its seat
    scores when its side wins."""
    greedy = GreedyAgent()
    compared = 0
    stakes: dict[int, int] = {}
    for step in play(rules):
        state = step.state
        if state.step is Step.MUTINY:
            stakes[state.to_act] = greedy.mutiny_points(view(state, state.to_act))
        scored = role_points_scored(step)
        if scored is not None:
            after = step.after
            for seat, stake in stakes.items():
                attacking = after.roles[seat] in (Role.MUTINEER, Role.CABIN_BOY)
                if attacking == after.mutiny:  # his side won
                    assert scored[seat] == stake, (seat, after.roles, after.mutiny)
                    compared += 1
            stakes.clear()
    assert compared or name == "rounds"


@pytest.mark.parametrize(("name", "value", "rules"), CASES, ids=IDS)
def test_greedy_sale_estimate_is_the_best_the_engine_allows(name: str, value: object, rules: Rules) -> None:
    """For the last seller (every other declaration known) the bot's best sales are the most
    any legal declaration scores him."""
    compared = 0
    for step in play(rules):
        state = step.state
        if state.step is not Step.SELL or state.queue:
            continue
        p = state.to_act
        v = view(state, p)
        merchant = v.roles[p] is Role.MERCHANT
        estimate = best_sales(competition(v, p), v.face_up[p], merchant, rules.withholding)
        best = max(apply(state, action).scores[p] - state.scores[p] for action in step.legal)
        assert estimate == best, (mine(v), v.face_up[p], [str(a) for a in step.legal])
        compared += 1
    assert compared


def test_the_odd_islands_make_withholding_matter() -> None:
    """On the island table above "sell what you can" lowers what a seller can score: one who
    shows two wine against a single card there ties (II = 4) only by holding one back, and
    alone (I = 1) otherwise; a second active island that buys no wine changes nothing."""
    hochland, karge_zunge = ODD_ISLANDS[0], ODD_ISLANDS[3]
    two_wine = (0, 0, 2, 0, 0, 0, 0)
    for islands in (((hochland, (1,)),), ((hochland, (1,)), (karge_zunge, (0,)))):
        assert best_sales(islands, two_wine, False, True) == 4
        assert best_sales(islands, two_wine, False, False) == 1
