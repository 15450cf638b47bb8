"""The game's parameters and type: :data:`PARAMETERS` (the game's, then every rule option but
the tables, read from the fields of :class:`~meuterer.rules.Rules`), :func:`parameters` and
:func:`rules_from_parameters` between them and a rule set, and :func:`game_type`."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

import attrs
import pyspiel

from meuterer.encoding import UTILITIES
from meuterer.rules import DEFAULT_RULES, Rules

SHORT_NAME: Final = "python_meuterer"
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)

REWARDS: Final[Mapping[str, str]] = {
    "terminal": "rewards only at the end (the returns): what mcts.MCTSBot and most algorithms expect",
    "step": "the change of utility since the previous decision (by anyone); 0 at chance nodes",
    "turn": "on a player's turns and at the end, his change of utility since his previous turn (DQN, NFSP)",
}
"""The values of the ``reward`` parameter and what each is for."""


def _parameter(value: object) -> int | bool | str:
    """A rule option's value as a game parameter: ``rounds=None`` is 0, a choice its name."""
    if value is None:
        return 0
    if isinstance(value, StrEnum):
        return value.value
    assert isinstance(value, int)
    return value


PARAMETERS: Final[Mapping[str, int | bool | str]] = {
    "players": 4,
    "first_captain": 0,
    "reward": "terminal",
    "utility": "score",
    **{
        field.name: _parameter(getattr(DEFAULT_RULES, field.name))
        for field in attrs.fields(Rules)
        if not isinstance(getattr(DEFAULT_RULES, field.name), tuple)  # not the tables (islands, deck)
    },
}
"""The game parameters and their defaults (``rounds=0``: 8 rounds with 4 players, 9 with 3):
the game's, then every rule option but the tables, read from the fields of :class:`Rules`."""

_CHOICES: Final = {
    **{
        field.name: tuple(member.value for member in type(default))
        for field in attrs.fields(Rules)
        if isinstance(default := getattr(DEFAULT_RULES, field.name), StrEnum)
    },
    "reward": tuple(REWARDS),
    "utility": tuple(UTILITIES),
}
_GAME_OPTIONS: Final = ("players", "first_captain", "reward", "utility")
_RULE_OPTIONS: Final = tuple(name for name in PARAMETERS if name not in _GAME_OPTIONS)


def game_type(reward: str = "terminal", utility: str = "score") -> Any:
    """The ``pyspiel.GameType`` of a game with these ``reward`` and ``utility`` parameters.

    >>> kind = game_type("turn", "relative")
    >>> kind.reward_model == pyspiel.GameType.RewardModel.REWARDS, kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    (True, True)
    """
    models = pyspiel.GameType.RewardModel
    kinds = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="Python Meuterer",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility={"score": kinds.GENERAL_SUM, "relative": kinds.ZERO_SUM, "win": kinds.CONSTANT_SUM}[utility],
        reward_model=models.TERMINAL if reward == "terminal" else models.REWARDS,
        max_num_players=4,
        min_num_players=3,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS),
    )


GAME_TYPE: Final = game_type()
"""The registered game type (the default parameters: terminal rewards, scores)."""


def rules_from_parameters(params: Mapping[str, Any]) -> Rules:
    """The rule set named by game parameters (missing ones take their defaults)."""
    values = _checked(params)
    options = {name: values[name] for name in _RULE_OPTIONS}
    options["rounds"] = options["rounds"] or None
    return Rules(**options)


def _checked(params: Mapping[str, Any]) -> dict[str, Any]:
    values = {**PARAMETERS, **params}
    unknown = sorted(set(values) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {SHORT_NAME} parameter(s) {', '.join(unknown)}; known: {', '.join(PARAMETERS)}")
    for name, value in values.items():
        if type(value) is not type(PARAMETERS[name]):
            raise ValueError(f"parameter {name} must be {type(PARAMETERS[name]).__name__}, got {value!r}")
        choices = _CHOICES.get(name)
        if choices is not None and value not in choices:
            raise ValueError(f"parameter {name} must be one of {', '.join(choices)}, got {value!r}")
    return values


def parameters(
    rules: Rules | None = None,
    players: int = 4,
    first_captain: int = 0,
    reward: str = "terminal",
    utility: str = "score",
) -> dict[str, int | bool | str]:
    """The game parameters of a game (for ``pyspiel.load_game``).

    Raises ``ValueError`` if ``rules`` has its own island table or deck, which parameters
    cannot carry.

    >>> parameters(Rules(pirates=True, rounds=2), players=3)["rounds"]
    2
    """
    rules = Rules() if rules is None else rules
    values: dict[str, int | bool | str] = {
        "players": players,
        "first_captain": first_captain,
        "reward": reward,
        "utility": utility,
    }
    for name in _RULE_OPTIONS:
        value = getattr(rules, name)
        values[name] = 0 if value is None else value if isinstance(value, bool | int) else str(value)
    if rules_from_parameters(values) != rules:
        raise ValueError("game parameters cannot carry an island table or deck of one's own")
    return values
