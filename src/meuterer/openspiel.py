"""OpenSpiel adapter: Meuterer as the pyspiel game ``python_meuterer`` (extra ``meuterer[openspiel]``).

Importing this module registers the game with ``pyspiel``:

>>> import pyspiel
>>> import meuterer.openspiel
>>> game = pyspiel.load_game("python_meuterer", {"players": 3, "pirates": True})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 784, 7)
>>> state = game.new_initial_state()
>>> state.is_chance_node(), state.chance_outcomes()[0]
(True, (0, 0.10810810810810811))
>>> state.action_to_string(pyspiel.PlayerId.CHANCE, 0)
'draw p0 ruby'

The game:

- **Players and chance.** Seats 0 to ``players - 1`` are the OpenSpiel players. Every card
  drawn is an explicit chance node whose outcomes are the kinds of card in the pile drawn
  from, with their probabilities. A shuffled ring (``ring="shuffled"``) cannot list its
  11! arrangements as outcomes, so it is laid out by ten chance nodes instead: each
  places one island, chosen uniformly from those left, at the next ring position (the
  eleventh island takes the last position), which gives every arrangement the same
  probability 1/11!. Their action strings show the ring laid so far
  (``ring hochland,sandkap``); the last one is the engine's ``ring ...`` action.
- **Action ids.** Decisions use the fixed numbering of :mod:`meuterer.encoding` (784 ids
  under the default rules); a draw's chance outcome id is the card drawn (0 to 6), a ring
  placement's is 7 plus the island's index in the island table (so there are 19 chance
  outcome ids with a shuffled ring, else 7). ``action_to_string`` gives the canonical
  notation.
- **Observations.** ``observation_string`` is :meth:`~meuterer.views.PlayerView.observation_text`
  and ``observation_tensor`` is :meth:`~meuterer.views.PlayerView.observation_vector` of
  the player's view (``observation_names(players)`` names the entries).
- **Information states** have perfect recall: ``information_state_string`` is the
  observation text followed by the whole game as the player saw it, one action a line in
  the notation of redacted records (:mod:`meuterer.redact`: ``draw p1 ?``, ``p1 role ?``,
  with the ``centre`` and ``reveal`` notes), which determines every view he had.
  ``information_state_tensor`` cannot hold a history of unbounded length: it is the
  observation tensor.
- **Returns** are the victory points so far (general sum); ``rewards`` are the points
  scored since the previous decision.
- **Parameters** (:data:`PARAMETERS`): ``players``, ``first_captain`` and the options of
  :class:`~meuterer.rules.Rules` except the island table and the deck, which keep their
  defaults; ``rounds=0`` means the rulebook's number.

``MeutererState.resample_from_infostate`` (used by OpenSpiel's IS-MCTS bot) draws a state
the player cannot tell from this one (:func:`meuterer.views.sample_state`). Only that
player's information state is kept: the resampled state's ``history()`` is empty, and the
other seats' records are those of the game it was sampled from.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

try:
    import numpy as np
    import pyspiel
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.openspiel needs OpenSpiel: pip install 'meuterer[openspiel]' ({error})") from error

from meuterer import engine
from meuterer.actions import Action, ArrangeRing, ChooseRole, Draw, Pass
from meuterer.cards import ROLES, counts_str
from meuterer.encoding import NUM_DRAWS, ActionIds, action_ids, score_bounds
from meuterer.errors import MeutererError
from meuterer.redact import HiddenDraw, HiddenRole, Seen, SeenAction
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.state import State, Step
from meuterer.views import ROLES_SECRET, PlayerView, observation_names, sample_state, view

SHORT_NAME: Final = "python_meuterer"
_CHANCE: Final = int(pyspiel.PlayerId.CHANCE)
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)

PARAMETERS: Final[Mapping[str, int | bool | str]] = {
    "players": 4,
    "first_captain": 0,
    "pirates": False,
    "ring": "fixed",
    "rounds": 0,
    "sale_order": "new_captain",
    "withholding": False,
    "discard_pool": "drawn",
    "reshuffle": "on_draw",
    "pirates_rob_at_start": False,
    "pirates_return": False,
    "hand_size": 5,
    "loadmaster_extra": 3,
    "max_offer": 3,
    "cabin_boy_points": 2,
}
"""The game parameters and their defaults (``rounds=0``: 8 rounds with 4 players, 9 with 3)."""

_CHOICES: Final = {
    option: tuple(member.value for member in kind)
    for option, kind in (
        ("ring", Ring),
        ("sale_order", SaleOrder),
        ("discard_pool", DiscardPool),
        ("reshuffle", Reshuffle),
    )
}
_RULE_OPTIONS: Final = tuple(name for name in PARAMETERS if name not in ("players", "first_captain"))

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Meuterer",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=4,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(PARAMETERS),
)


def rules_from_parameters(params: Mapping[str, Any]) -> Rules:
    """The rule set named by game parameters (missing ones take their defaults)."""
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
    options = {name: values[name] for name in _RULE_OPTIONS}
    options["rounds"] = options["rounds"] or None
    return Rules(**options)


def parameters(rules: Rules | None = None, players: int = 4, first_captain: int = 0) -> dict[str, int | bool | str]:
    """The game parameters of a game (for ``pyspiel.load_game``).

    Raises ``ValueError`` if ``rules`` has its own island table or deck, which parameters
    cannot carry.

    >>> parameters(Rules(pirates=True, rounds=2), players=3)["rounds"]
    2
    """
    rules = Rules() if rules is None else rules
    values: dict[str, int | bool | str] = {"players": players, "first_captain": first_captain}
    for name in _RULE_OPTIONS:
        value = getattr(rules, name)
        values[name] = 0 if value is None else value if isinstance(value, bool | int) else str(value)
    if rules_from_parameters(values) != rules:
        raise ValueError("game parameters cannot carry an island table or deck of one's own")
    return values


@attrs.frozen
class _Node:
    """Everything a state holds, immutable (so cloning a state copies nothing)."""

    state: State
    placed: tuple[int, ...] = ()
    """Shuffled ring being laid out: table indices of the islands placed after Hochland."""
    record: tuple[tuple[str, ...], ...] = ()
    """Each action as each seat saw it, then as a spectator saw it (redacted notation)."""
    base: tuple[int, ...] | None = None
    """The scores when the last decision was taken (``None``: no decision yet)."""

    def __deepcopy__(self, memo: object) -> _Node:
        return self


def _seen(before: State, action: Action, after: State) -> tuple[str, ...]:
    """``action`` as each seat, then a spectator, saw it (the notation of :mod:`meuterer.redact`)."""
    reveal = after.roles if before.step in ROLES_SECRET and after.step not in ROLES_SECRET else None
    centre = None
    if isinstance(action, Pass) and after.step is Step.CHOOSE_ROLE:
        centre = tuple(role for role in ROLES if role not in after.roles)
    public = str(Seen(action, None, reveal))
    texts = []
    for viewer in (*range(before.players), None):
        shown: SeenAction = action
        if isinstance(action, Draw) and action.player != viewer:
            shown = HiddenDraw(action.player)
        elif isinstance(action, ChooseRole) and action.player != viewer:
            shown = HiddenRole(action.player)
        own_centre = centre if centre is not None and after.to_act == viewer else None
        texts.append(public if shown is action and own_centre is None else str(Seen(shown, own_centre, reveal)))
    return tuple(texts)


class MeutererGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game; ``pyspiel.load_game("python_meuterer", params)`` makes one."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        values = {**PARAMETERS, **(params or {})}
        try:
            rules = rules_from_parameters(values)
            initial = engine.new_game(values["players"], values["first_captain"], rules)
        except MeutererError as error:
            raise ValueError(f"{SHORT_NAME}: {error}") from None
        n, ids = initial.players, action_ids(rules)
        low, high = score_bounds(n, rules)
        rounds = rules.rounds_for(n)
        shuffled = rules.ring is Ring.SHUFFLED
        info = pyspiel.GameInfo(
            num_distinct_actions=ids.num_actions,
            max_chance_outcomes=NUM_DRAWS + (len(rules.islands) if shuffled else 0),
            num_players=n,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=None,
            max_game_length=rounds * (n * (rules.hand_size + 4) + 1),
        )
        super().__init__(GAME_TYPE, info, values)
        self.rules = rules
        """The rule set."""
        self.ids = ids
        """The action numbering (:class:`meuterer.encoding.ActionIds`)."""
        self._initial = _Node(initial)
        hands = n * rules.hand_size
        placements = len(rules.islands) - 2 if shuffled else 0
        self._max_chance = hands + rounds * (hands + rules.loadmaster_extra) + placements

    def new_initial_state(self) -> MeutererState:
        """The state before the deal (or before the islands are laid out)."""
        return MeutererState(self)

    def max_chance_nodes_in_history(self) -> int:
        """An upper bound on the chance nodes of one game."""
        return self._max_chance

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> _Observer:
        """An observer: a player's view (``private_info`` ``SINGLE_PLAYER``, the default) or a
        spectator's (``NONE``); with perfect recall, the information state."""
        if isinstance(iig_obs_type, Mapping):  # pyspiel calls make_py_observer(params) without a type
            iig_obs_type, params = None, iig_obs_type
        return _Observer(self, iig_obs_type, params)


class MeutererState(pyspiel.State):  # type: ignore[misc]
    """A pyspiel state wrapping a :class:`meuterer.State`."""

    def __init__(self, game: MeutererGame) -> None:
        super().__init__(game)
        self._node = game._initial

    @property
    def meuterer_state(self) -> State:
        """The engine's state (for a shuffled ring being laid out: the state before the ring)."""
        return self._node.state

    def record(self, player: int | None) -> tuple[str, ...]:
        """The game so far as ``player`` (a seat, or ``None`` for a spectator) saw it, one action a line."""
        column = self._node.state.players if player is None else player
        return tuple(entry[column] for entry in self._node.record)

    # The pyspiel API ----------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        player = engine.current_player(self._node.state)
        if player is None:
            return _TERMINAL
        return _CHANCE if player == engine.CHANCE else player

    def _legal_actions(self, player: int) -> list[int]:
        ids: tuple[int, ...] = self.get_game().ids.legal_ids(self._node.state)
        return list(ids)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcome ids and their probabilities."""
        node = self._node
        if node.state.step is Step.RING:
            left = self._islands_left()
            return [(NUM_DRAWS + index, 1.0 / len(left)) for index in left]
        outcomes = engine.chance_outcomes(node.state)
        return sorted((int(draw.card), float(p)) for draw, p in outcomes if isinstance(draw, Draw))

    def _islands_left(self) -> list[int]:
        placed = set(self._node.placed)
        return [index for index in range(1, len(self._node.state.rules.islands)) if index not in placed]

    def _ring_action(self, outcome: int) -> tuple[tuple[int, ...], ArrangeRing]:
        # The islands placed once ``outcome`` is placed, and the ring laid so far (once
        # complete, the engine's action).
        island = outcome - NUM_DRAWS
        left = self._islands_left()
        if island not in left:
            raise ValueError(f"chance outcome {outcome} does not place an island still to be placed")
        placed = self._node.placed + (island,)
        if len(left) == 2:  # the last island takes the last position
            placed += tuple(index for index in left if index != island)
        islands = self._node.state.rules.islands
        return placed, ArrangeRing((islands[0].name, *(islands[index].name for index in placed)))

    def _apply_action(self, action: int) -> None:
        node = self._node
        s = node.state
        game: MeutererGame = self.get_game()
        if s.step is Step.RING:
            placed, ring = self._ring_action(action)
            if len(placed) < len(s.rules.islands) - 1:
                self._node = attrs.evolve(node, placed=placed)
                return
            move: Action = ring
        elif engine.is_chance_node(s):
            move = game.ids.draw(s, action)
        else:
            move = game.ids.action(s, action)
        after = engine.apply(s, move)
        base = node.base if engine.is_chance_node(s) else s.scores
        self._node = _Node(after, (), node.record + (_seen(s, move, after),), base)

    def _action_to_string(self, player: int, action: int) -> str:
        s = self._node.state
        if player == _CHANCE:
            if s.step is Step.RING:
                return str(self._ring_action(action)[1])
            return str(ActionIds.draw(s, action))
        return str(self.get_game().ids.action(s, action, player))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return engine.is_terminal(self._node.state)

    def returns(self) -> list[float]:
        """Each seat's victory points so far."""
        return [float(score) for score in self._node.state.scores]

    def rewards(self) -> list[float]:
        """The points each seat scored since the previous decision."""
        node = self._node
        base = node.base or (0,) * node.state.players
        return [float(now - then) for now, then in zip(node.state.scores, base, strict=True)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MeutererState:
        """A state with the same information state for ``player_id``, the hidden cards and
        roles drawn at random (seeded from ``probability_sampler()``, a number in [0, 1))."""
        seed = int(float(probability_sampler()) * 2**53)
        return resample(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        node = self._node
        s = node.state
        lines = [view(s, None).observation_text().rstrip("\n")]
        if node.placed:
            lines.append("ring so far: " + ",".join(s.rules.islands[i].name for i in (0, *node.placed)))
        for seat in range(s.players):
            role = s.roles[seat]
            lines.append(
                f"p{seat}: hand {counts_str(s.hands[seat])}; face down {counts_str(s.face_down[seat])}; "
                f"role {'-' if role is None else role}"
            )
        lines.append(f"deck {counts_str(s.deck)}; drawn {counts_str(s.drawn)}")
        return "\n".join(lines)


def resample(state: MeutererState, player: int, rng: random.Random) -> MeutererState:
    """A state ``player`` cannot tell from ``state``: his information state is the same,
    the cards and roles he cannot see are drawn with ``rng`` (:func:`meuterer.views.sample_state`)."""
    node = state._node
    other: MeutererState = state.get_game().new_initial_state()
    other._node = attrs.evolve(node, state=sample_state(view(node.state, player), rng))
    return other


def resampler(rng: random.Random) -> Callable[[MeutererState, int], MeutererState]:
    """A resampling function for ``ISMCTSBot.set_resampler`` that draws with ``rng`` (reproducible)."""
    return lambda state, player: resample(state, player, rng)


class _Observer:
    """A pyspiel Python observer (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, game: MeutererGame, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        private = iig_obs_type.private_info
        if not iig_obs_type.public_info or private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations include the public information and at most one player's own")
        self._spectator = private == pyspiel.PrivateInfoType.NONE
        self._recall = bool(iig_obs_type.perfect_recall)
        self.tensor = np.zeros(len(observation_names(game.num_players())), np.float32)
        self.dict = {"observation": self.tensor}

    def _view(self, state: MeutererState, player: int) -> PlayerView:
        return view(state.meuterer_state, None if self._spectator else player)

    def set_from(self, state: MeutererState, player: int) -> None:
        """Write the view of ``player`` into :attr:`tensor`."""
        self.tensor[:] = self._view(state, player).observation_vector()

    def string_from(self, state: MeutererState, player: int) -> str:
        """The view of ``player`` as text; with perfect recall, followed by his record."""
        text = self._view(state, player).observation_text()
        if not self._recall:
            return text
        lines = state.record(None if self._spectator else player)
        return text + f"history ({len(lines)} actions):\n" + "".join(line + "\n" for line in lines)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, MeutererGame)
