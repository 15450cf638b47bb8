"""Golden conformance playthroughs: every step of a game with its legal actions, the
digest of the public view and the scores, for implementations in any language.

>>> from meuterer.corpus import playthrough, check_playthrough
>>> import meuterer
>>> data = playthrough(seed=1, players=3, first_captain=0, rules=meuterer.Rules())
>>> data["steps"][0]["legal"][:2], data["steps"][-1]["legal"]
(['draw p0 cloth', 'draw p0 grain'], [])
>>> check_playthrough(data)
[]
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from meuterer.actions import parse_action
from meuterer.engine import apply, is_chance_node, legal_actions, new_game, random_game
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.serialize import converter, structure
from meuterer.state import State
from meuterer.views import dumps_view, view

FORMAT = {"name": "meuterer-playthrough", "version": 1}
LISTED_AT_MOST = 1000
"""Chance nodes with more outcomes (the shuffled ring's 11! arrangements) list ``null``."""


def view_digest(state: State) -> str:
    """SHA-256 of the canonical JSON of the public (spectator) view of ``state``."""
    return hashlib.sha256(dumps_view(view(state, None)).encode()).hexdigest()


def _step(state: State) -> dict[str, Any]:
    legal = legal_actions(state)
    listed = None if is_chance_node(state) and len(legal) > LISTED_AT_MOST else sorted(map(str, legal))
    return {"legal": listed, "view": view_digest(state), "scores": list(state.scores)}


def playthrough(seed: int, players: int, first_captain: int, rules: Rules) -> dict[str, Any]:
    """A seeded random game written step by step: before each action, the sorted legal
    actions, the public view digest and the scores; then the action; the final step has
    no action."""
    actions, _ = random_game(seed=seed, players=players, first_captain=first_captain, rules=rules)
    state = new_game(players, first_captain, rules)
    steps = []
    for action in actions:
        steps.append({**_step(state), "action": str(action)})
        state = apply(state, action)
    steps.append(_step(state))
    return {
        "format": FORMAT,
        "rules": converter.unstructure(rules),
        "players": players,
        "first_captain": first_captain,
        "steps": steps,
    }


class Engine(Protocol):
    """Any engine with the methods of :class:`meuterer.testing.EngineAdapter` (games are
    opaque handles, actions canonical text)."""

    def start(self, players: int, first_captain: int, rules: Rules) -> Any: ...
    def legal_actions(self, game: Any) -> Iterable[str]: ...
    def apply(self, game: Any, action: str) -> Any: ...
    def scores(self, game: Any) -> Sequence[int]: ...
    def public_view(self, game: Any) -> str | None: ...


def check_playthrough(data: dict[str, Any], engine: Engine | None = None) -> list[str]:
    """Replay a playthrough with this library, or with ``engine`` (such as
    :class:`meuterer.conform.ProcessAdapter`); every disagreement as a line of text."""
    if engine is not None:
        return _check_with(engine, data)
    problems: list[str] = []
    try:
        rules = structure(data["rules"], Rules, "$.rules")
        state = new_game(data["players"], data["first_captain"], rules)
    except (MeutererError, KeyError, TypeError) as error:
        return [f"cannot start the game: {error}"]
    for index, step in enumerate(data["steps"]):
        expected = _step(state)
        for key in ("legal", "view", "scores"):
            if step.get(key) != expected[key]:
                problems.append(f"step {index}: {key} {'differ' if key == 'scores' else 'differs'}")
        if "action" not in step:
            break
        try:
            state = apply(state, parse_action(step["action"]))
        except MeutererError as error:
            problems.append(f"step {index}: {error}")
            break
    return problems


def _check_with(engine: Engine, data: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    try:
        rules = structure(data["rules"], Rules, "$.rules")
        game = engine.start(data["players"], data["first_captain"], rules)
    except (MeutererError, KeyError, TypeError) as error:
        return [f"cannot start the game: {error}"]
    for index, step in enumerate(data["steps"]):
        legal = sorted(engine.legal_actions(game))
        shown = engine.public_view(game)
        found = {
            "legal": None if step.get("legal") is None and not legal else legal,
            "view": None if shown is None else hashlib.sha256(shown.encode()).hexdigest(),
            "scores": list(engine.scores(game)),
        }
        for key in ("legal", "view", "scores"):
            if step.get(key) != found[key] and found[key] is not None:
                problems.append(f"step {index}: {key} {'differ' if key == 'scores' else 'differs'}")
        if "action" not in step:
            break
        try:
            game = engine.apply(game, step["action"])
        except MeutererError as error:
            problems.append(f"step {index}: {error}")
            break
    return problems
