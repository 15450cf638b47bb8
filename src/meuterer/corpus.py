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
from typing import Any

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


def check_playthrough(data: dict[str, Any]) -> list[str]:
    """Replay a playthrough with this library; every disagreement as a line of text."""
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
