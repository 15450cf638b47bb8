"""The vector engine held to the reference, step by step (in the spirit of EnvPool's
``pgx_align_test``).

:func:`align` plays ``games`` random games in a :class:`~meuterer.vector.VectorGame` and,
for each, the same game on the reference engine (:mod:`meuterer.engine`), and checks at
every step of every game: the legal mask equals the reference's legal ids
(:meth:`meuterer.encoding.ActionIds.legal_ids`); at a chance node the outcomes and their
probabilities equal :func:`meuterer.chance_outcomes`; the scores and the utilities
(:func:`meuterer.encoding.utilities`, what rewards are made of), the terminal
flags and the current player agree; every seat's observation equals the declared layout
of his view (:func:`meuterer.views.view`); and ``to_state`` round-trips through
``set_state``. The first disagreement raises ``AssertionError`` naming the game, the step
and what differs.

>>> from meuterer.vector.align import align
>>> align(games=4, players=3, seed=1).games
4
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import attrs
import numpy as np

from meuterer import engine
from meuterer.actions import Draw, parse_action
from meuterer.cards import Card
from meuterer.encoding import UTILITIES, utilities
from meuterer.rules import Rules, option_values
from meuterer.state import Step
from meuterer.vector.engine import CHANCE, RING, TERMINAL, VectorGame
from meuterer.vector.observation import observations
from meuterer.views import dumps_view, observation_layout, view

__all__ = ["INTERACTIONS", "RULE_SETS", "Alignment", "VectorAdapter", "align", "covering"]

INTERACTIONS: tuple[Rules, ...] = (
    Rules(),
    Rules(pirates=True),
    Rules(pirates=True, pirates_rob_at_start=True, pirates_return=True, reshuffle="when_empty"),
    Rules(ring="shuffled", withholding=True, sale_order="round_captain", discard_pool="hand"),
    Rules(ring="shuffled", pirates=True, discard_pool="hand", reshuffle="when_empty", rounds=3),
    Rules(withholding=True, rounds=12, hand_size=4, loadmaster_extra=2, max_offer=5, cabin_boy_points=3),
    Rules(hand_size=7, loadmaster_extra=1, deck=(6, 6, 6, 8, 8, 8, 0), rounds=4, pirates_return=True),
)
"""Rule sets chosen for how their options act together (the pirates' options with and
without each other, a bigger deck and hand)."""


def covering(chosen: Iterable[Rules]) -> tuple[Rules, ...]:
    """Rule sets that, with ``chosen``, let every value of every rule option
    (:func:`meuterer.rules.option_values`, from the fields of :class:`~meuterer.Rules`) appear:
    the ``i``-th takes the ``i``-th value each option still lacks.

    >>> [(r.hand_size, r.max_offer) for r in covering([Rules()])][:2]
    [(3, 0), (4, 1)]
    """
    chosen = tuple(chosen)
    missing = {
        field.name: [
            value for value in option_values(field.name) if all(getattr(r, field.name) != value for r in chosen)
        ]
        for field in attrs.fields(Rules)
    }
    width = max(map(len, missing.values()), default=0)
    return tuple(
        Rules(**{name: values[i] for name, values in missing.items() if i < len(values)}) for i in range(width)
    )


RULE_SETS: tuple[Rules, ...] = INTERACTIONS + covering(INTERACTIONS)
"""Rule sets in which every value of every rule option appears: :data:`INTERACTIONS`, then
:func:`covering` for the values they lack."""


@attrs.frozen
class Alignment:
    """What :func:`align` checked: games played to the end, steps compared, decisions
    and chance outcomes among them, observation vectors compared."""

    games: int
    steps: int
    decisions: int
    chance: int
    observations: int


def align(
    games: int,
    players: int = 4,
    rules: Rules | None = None,
    *,
    seed: int = 0,
    game_class: type[VectorGame] = VectorGame,
    every_seat: bool = True,
) -> Alignment:
    """Play ``games`` random games in lockstep on ``game_class`` and on the reference; see
    the module. ``every_seat=False`` compares the observation of ``to_act`` only."""
    g = game_class(games, players, rules, seed=seed)
    layout = observation_layout(players, g.rules)
    states = [engine.new_game(players, 0, g.rules) for _ in range(games)]
    rng = np.random.default_rng(seed + 1)
    steps = decisions = chance = compared = 0
    ids = g.ids
    while True:
        live = [i for i in range(games) if not engine.is_terminal(states[i])]
        # Everything the vector engine says of every game, against the reference.
        mask = g.legal_mask()
        current = g.current_player
        probabilities = g.chance_probabilities()
        utility = {kind: g.utilities(kind) for kind in UTILITIES}
        seen = observations(g) if every_seat else observations(g, g.to_act)[:, None, :]
        for i in range(games):
            s = states[i]
            where = f"game {i}, round {s.round}, step {s.step.value}"
            _same(g.to_state(i), s, f"{where}: state")
            _same(bool(g.terminal[i]), engine.is_terminal(s), f"{where}: terminal")
            _same(g.scores[i].tolist(), list(s.scores), f"{where}: scores")
            for kind, values in utility.items():
                _same(values[i].tolist(), list(utilities(s, kind)), f"{where}: {kind} utilities")
            who = engine.current_player(s)
            _same(int(current[i]), TERMINAL if who is None else who if who != engine.CHANCE else CHANCE, where)
            _same(np.flatnonzero(mask[i]).tolist(), list(ids.legal_ids(s)), f"{where}: legal ids")
            if engine.is_chance_node(s) and s.step is not Step.RING:
                expected = [0.0] * 7
                for action, p in engine.chance_outcomes(s):
                    assert isinstance(action, Draw)
                    expected[int(action.card)] = float(Fraction(p))
                _same(probabilities[i].tolist(), expected, f"{where}: chance probabilities")
            elif engine.is_chance_node(s):
                outcomes = engine.chance_outcomes(s)
                _same(len(g.arrangements), len(outcomes), f"{where}: ring outcomes")
            for k, seat in enumerate(range(players) if every_seat else [s.to_act]):
                _same(seen[i, k].tolist(), list(layout.vector(view(s, seat))), f"{where}: observation of p{seat}")
                compared += 1
        if not live:
            break
        # One random step in every game, applied to both.
        actions = g.random_actions(rng)
        for i in live:
            s = states[i]
            code = int(actions[i])
            if engine.is_chance_node(s):
                chance += 1
                action = g.arrangements[code] if s.step is Step.RING else Draw(s.to_act, Card(code))
            else:
                decisions += 1
                action = ids.action(s, code)
            states[i] = engine.apply(s, action)
            steps += 1
        g.step(actions)
        # Conversion both ways: a game put back from its reference state is the same.
        i = int(rng.integers(games))
        g.set_state(i, states[i])
    return Alignment(games, steps, decisions, chance, compared)


def _same(got: object, expected: object, where: str) -> None:
    if got != expected:
        raise AssertionError(f"{where}: vector {got!r} != reference {expected!r}")


class VectorAdapter:
    """A :class:`~meuterer.vector.VectorGame` of one game as an engine adapter (the
    protocol of :class:`meuterer.testing.EngineAdapter`: actions as canonical text), so the
    golden playthroughs and the conformance kit replay through it."""

    def __init__(self, game_class: type[VectorGame] = VectorGame) -> None:
        self.game_class = game_class

    def start(self, players: int, first_captain: int, rules: Rules) -> VectorGame:
        return self.game_class(1, players, rules, first_captain=first_captain)

    def legal_actions(self, game: VectorGame) -> Iterable[str]:
        state = game.to_state(0)
        if game.step_[0] == RING:
            return ()  # the shuffled ring's 11! arrangements are not listed
        if game.chance[0]:
            return [str(Draw(state.to_act, Card(c))) for c in np.flatnonzero(game.draw_pool()[0]).tolist()]
        return [str(game.ids.action(state, a)) for a in np.flatnonzero(game.legal_mask()[0]).tolist()]

    def apply(self, game: VectorGame, action: str) -> VectorGame:
        game.step(np.array([game.code(0, parse_action(action))]))
        return game

    def scores(self, game: VectorGame) -> Sequence[int]:
        return [int(x) for x in game.scores[0]]

    def public_view(self, game: VectorGame) -> str | None:
        return dumps_view(view(game.to_state(0), None))
