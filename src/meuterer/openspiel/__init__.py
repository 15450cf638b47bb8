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
- **Observations.** ``observation_string`` is :func:`~meuterer.views.observation_text`
  and ``observation_tensor`` is :func:`~meuterer.views.observation_vector` of
  the player's view (:func:`meuterer.views.observation_layout` declares the entries; the
  observer's ``dict`` holds one array per declared piece).
- **Information states** have perfect recall: ``information_state_string`` is the
  observation text followed by the whole game as the player saw it, one action a line in
  the notation of redacted records (``meuterer.views.seen_actions``: ``draw p1 ?``, ``p1 role ?``,
  with the ``centre`` and ``reveal`` notes), which determines every view he had.
  ``information_state_tensor`` is the observation tensor followed by the public facts of
  every round so far (:func:`meuterer.views.history_layout`: captain, offer, destinations,
  mutiny, revealed roles, scores and sales of each round).
- **Observers** (``make_py_observer``, ``observation.make_observation``): public
  information only (a spectator's view), private only (:func:`meuterer.views.private_text`
  and the pieces of :data:`~meuterer.views.PRIVATE_PIECES`), or both; each with or without
  perfect recall. With ``public_info=False`` the private record keeps the lines the
  player saw differently from a spectator.
- **Returns and rewards** (parameters ``utility`` and ``reward``, see :data:`UTILITIES`
  and :data:`REWARDS`): ``utility="score"`` (default) returns the victory points
  (general sum), ``"relative"`` the points minus the mean of the others' (zero sum),
  ``"win"`` 1 shared among the winners at the end (constant sum). ``reward="terminal"``
  (default; what ``mcts.MCTSBot`` and most algorithms expect) gives rewards only at the
  end; ``"step"`` the change of utility since the previous decision by anyone (0 at chance
  nodes, whose changes go to the next decision); ``"turn"``, on a
  player's turns and at the end, his change of utility since his previous turn (0
  otherwise), so an agent reading its reward on its own turns and at the end (DQN, NFSP)
  loses nothing. In every model the returns are the sum of the rewards so far, as
  OpenSpiel requires. The game type declares the combination (``reward_model``, ``utility``,
  ``utility_sum``, utility bounds).
- **Parameters** (:data:`PARAMETERS`): ``players``, ``first_captain``, ``reward``,
  ``utility`` and the options of :class:`~meuterer.rules.Rules` except the island table and
  the deck, which keep their defaults; ``rounds=0`` means the rulebook's number.

``MeutererState.resample_from_infostate`` (used by OpenSpiel's IS-MCTS bot) draws a state
the player cannot tell from this one (:func:`meuterer.views.sample_state`). The resampled
state keeps that player's information state; its ``history()`` is empty, and every other
seat's information state is rebuilt from the sample: his view of the sampled state and
the public record of the game so far (what a spectator saw), never his real history.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from meuterer._install import install_hint

try:
    import numpy  # noqa: F401 - the observer needs it: fail here, with the message below
    import pyspiel
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.openspiel needs OpenSpiel ({install_hint('openspiel')}; {error})") from error

from meuterer import engine
from meuterer.actions import Action, ArrangeRing, Draw
from meuterer.cards import counts_str
from meuterer.encoding import NUM_DRAWS, UTILITIES, ActionIds, action_ids, utilities, utility_bounds
from meuterer.envcore import legal_moves
from meuterer.errors import MeutererError
from meuterer.openspiel.history import _Move, _Node, _Origin, _Setup
from meuterer.openspiel.observer import _Observer
from meuterer.openspiel.params import (
    _CHANCE,
    _TERMINAL,
    GAME_TYPE,
    PARAMETERS,
    REWARDS,
    SHORT_NAME,
    _checked,
    game_type,
    parameters,
    rules_from_parameters,
)
from meuterer.rules import Ring
from meuterer.rulings import draw_pool, legal_draw
from meuterer.state import State, Step
from meuterer.views import (
    Layout,
    PlayerView,
    Rounds,
    history_layout,
    observation_layout,
    observation_text,
    sample_state,
    view,
)

__all__ = [
    "GAME_TYPE",
    "PARAMETERS",
    "REWARDS",
    "SHORT_NAME",
    "UTILITIES",
    "MeutererGame",
    "MeutererState",
    "game_type",
    "parameters",
    "resample",
    "resampler",
    "rules_from_parameters",
    "utilities",
    "utility_bounds",
]


class MeutererGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game; ``pyspiel.load_game("python_meuterer", params)`` makes one."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        try:
            values = _checked(params or {})
            rules = rules_from_parameters(values)
            initial = engine.new_game(values["players"], values["first_captain"], rules)
        except MeutererError as error:
            raise ValueError(f"{SHORT_NAME}: {error}") from None
        n, ids = initial.players, action_ids(rules)
        self.reward: str = values["reward"]
        """The reward model (:data:`REWARDS`)."""
        self.utility: str = values["utility"]
        """The utility (:data:`UTILITIES`)."""
        low, high = utility_bounds(n, rules, self.utility)
        rounds = rules.rounds_for(n)
        shuffled = rules.ring is Ring.SHUFFLED
        info = pyspiel.GameInfo(
            num_distinct_actions=ids.num_actions,
            max_chance_outcomes=NUM_DRAWS + (len(rules.islands) if shuffled else 0),
            num_players=n,
            min_utility=low,
            max_utility=high,
            utility_sum={"score": None, "relative": 0.0, "win": 1.0}[self.utility],
            max_game_length=rounds * (n * (rules.hand_size + 4) + 1),
        )
        super().__init__(game_type(self.reward, self.utility), info, values)
        self.rules = rules
        """The rule set."""
        self.ids = ids
        """The action numbering (:class:`meuterer.encoding.ActionIds`)."""
        self.observation_layout: Layout[PlayerView] = observation_layout(n, rules)
        """The declared layout of observation tensors."""
        self.history_layout: Layout[Rounds] = history_layout(n, rules)
        """The declared layout of the perfect-recall part of information-state tensors."""
        zeros = (0.0,) * n
        self._initial = _Node(
            _Setup(ids, self.reward, self.utility),
            initial,
            previous=zeros if self.reward == "step" else None,
            bases=zeros if self.reward == "turn" else None,
        )
        hands = n * rules.hand_size
        placements = len(rules.islands) - 2 if shuffled else 0
        self._max_chance = hands + rounds * (hands + rules.loadmaster_extra) + placements

    def __reduce__(self) -> tuple[Any, ...]:
        # pyspiel's own pickling restores the C++ game only (this class's __init__ never
        # runs, so it could not make states): a game is rebuilt from its parameters.
        return MeutererGame, (dict(self.get_parameters()),)

    def new_initial_state(self) -> MeutererState:
        """The state before the deal (or before the islands are laid out)."""
        return MeutererState(self)

    def max_chance_nodes_in_history(self) -> int:
        """An upper bound on the chance nodes of one game."""
        return self._max_chance

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> _Observer:
        """An observer (see the module's documentation); by default a player's view without recall."""
        if isinstance(iig_obs_type, Mapping):  # pyspiel calls make_py_observer(params) without a type
            iig_obs_type, params = None, iig_obs_type
        return _Observer(self, iig_obs_type, params)


def _draws(state: State) -> tuple[list[tuple[int, float]], dict[int, Action]]:
    # The draws (ids ascending) with float probabilities, each card's share of the pool the
    # core draws from: the engine's chance_outcomes without building Fractions.
    pool = draw_pool(state)
    total = sum(pool)
    moves: dict[int, Action] = {int(draw.card): draw for draw in legal_draw(state) if isinstance(draw, Draw)}
    return [(card, pool[card] / total) for card in moves], moves


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
        return self._node.record(player)

    def public_rounds(self) -> Rounds:
        """The public facts of each round so far (the perfect-recall part of information-state tensors)."""
        return self._node.rounds()

    # The pyspiel API ----------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        return self._node.player

    def _legal_actions(self, player: int) -> list[int]:
        if player != self._node.player:
            return []
        if self._node.state.step is Step.RING:
            return [outcome for outcome, _ in self.chance_outcomes()]
        return list(self._moves())

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (default: the player to act, or chance), ascending.

        The same as pyspiel's, answered in Python (Python callers skip a round trip through C++).
        """
        return self._legal_actions(self._node.player if player is None else player)

    def is_chance_node(self) -> bool:
        """Whether a card is drawn (or an island placed) next."""
        return self._node.player == _CHANCE

    def _moves(self) -> dict[int, Action]:
        """The legal action ids, ascending, with the engine's actions (at a chance node: the
        draws; none while a shuffled ring is laid out)."""
        node = self._node
        moves: dict[int, Action] | None = node.memo.get("moves")
        if moves is None:
            s = node.state
            if s.step is Step.RING:
                moves = {}
            elif self._node.player == _CHANCE:
                self.chance_outcomes()
                moves = node.memo["moves"]
            else:
                legal = engine.legal_actions(s)
                moves = {number: legal[place] for number, place in legal_moves(node.setup.ids, s, legal).items()}
            node.memo["moves"] = moves
        return moves

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance outcome ids and their probabilities (floats)."""
        node = self._node
        memo = node.memo
        outcomes: list[tuple[int, float]] | None = memo.get("chance")
        if outcomes is None:
            if self._node.player != _CHANCE:
                return []
            if node.state.step is Step.RING:
                left = self._islands_left()
                outcomes = [(NUM_DRAWS + index, 1.0 / len(left)) for index in left]
            else:
                outcomes, memo["moves"] = _draws(node.state)
            memo["chance"] = outcomes
        return list(outcomes)

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
        game = node.setup
        chance = self._node.player == _CHANCE
        if s.step is Step.RING:
            placed, ring = self._ring_action(action)
            if len(placed) < len(s.rules.islands) - 1:
                self._node = _Node(node.setup, s, placed, node.last, node.origin, node.previous, node.bases)
                return
            move: Action = ring
        else:
            # The engine's own instance (no lookup); an illegal id is decoded for the engine to refuse.
            known = self._moves().get(action)
            move = known or (game.ids.draw(s, action) if chance else game.ids.action(s, action))
        after = engine.apply(s, move)
        previous, bases = node.previous, node.bases
        if previous is not None and not chance:
            previous = utilities(s, game.utility)
        if bases is not None and not chance:
            bases = (*bases[: s.to_act], utilities(s, game.utility)[s.to_act], *bases[s.to_act + 1 :])
        self._node = _Node(game, after, (), _Move(node.last, s, move, after), node.origin, previous, bases)

    def _action_to_string(self, player: int, action: int) -> str:
        s = self._node.state
        if player == _CHANCE:
            if s.step is Step.RING:
                return str(self._ring_action(action)[1])
            return str(ActionIds.draw(s, action))
        return str(self._node.setup.ids.action(s, action, player))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._node.player == _TERMINAL

    def returns(self) -> list[float]:
        """The sum of the rewards so far (:data:`REWARDS`): the utility (:data:`UTILITIES`)
        at the end; before it, 0 (``terminal``), the utility at the latest decision (``step``), or each
        player's utility at his latest turn (``turn``)."""
        node = self._node
        setup = node.setup
        terminal = engine.is_terminal(node.state)
        if setup.reward == "terminal" and not terminal:
            return [0.0] * node.state.players
        actor = engine.current_player(node.state)
        if setup.reward == "step" and actor == engine.CHANCE:
            assert node.previous is not None
            return list(node.previous)
        now = utilities(node.state, setup.utility)
        if setup.reward != "turn" or terminal:
            return list(now)
        assert node.bases is not None
        return [now[p] if p == actor else base for p, base in enumerate(node.bases)]

    def rewards(self) -> list[float]:
        """The rewards of this state (:data:`REWARDS`): the utility at the end
        (``terminal``); the change of utility since the previous decision, 0 at chance
        nodes (``step``); for the
        player to act and at the end, each player's change since his previous turn, else 0
        (``turn``). Summed over the states so far, the rewards are the returns."""
        node = self._node
        setup = node.setup
        if setup.reward == "terminal":
            return self.returns()
        now = utilities(node.state, setup.utility)
        if setup.reward == "step":
            assert node.previous is not None
            if engine.is_chance_node(node.state):
                return [0.0] * node.state.players
            return [a - b for a, b in zip(now, node.previous, strict=True)]
        assert node.bases is not None
        terminal = engine.is_terminal(node.state)
        actor = engine.current_player(node.state)
        return [now[p] - base if terminal or p == actor else 0.0 for p, base in enumerate(node.bases)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> MeutererState:
        """A state with the same information state for ``player_id``, the hidden cards and
        roles drawn at random (seeded from ``probability_sampler()``, a number in [0, 1))."""
        seed = int(float(probability_sampler()) * 2**53)
        return resample(self, player_id, random.Random(seed))

    def __str__(self) -> str:
        node = self._node
        s = node.state
        lines = [observation_text(view(s, None)).rstrip("\n")]
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
    the cards and roles he cannot see are drawn with ``rng`` (:func:`meuterer.views.sample_state`).

    The other seats' information states are rebuilt from the sample: each sees his view of
    the sampled state and, as the game so far, the public record (what a spectator saw).
    """
    node = state._node
    public = node.record(None)
    mine = node.record(player)
    records = tuple(mine if seat == player else public for seat in range(node.state.players)) + (public,)
    other: MeutererState = state.get_game().new_initial_state()
    other._node = _Node(
        node.setup,
        sample_state(view(node.state, player), rng),
        node.placed,
        None,
        _Origin(records, node.rounds()),
        node.previous,
        node.bases,
    )
    return other


def resampler(rng: random.Random) -> Callable[[MeutererState, int], MeutererState]:
    """A resampling function for ``ISMCTSBot.set_resampler`` that draws with ``rng`` (reproducible)."""
    return lambda state, player: resample(state, player, rng)


if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(GAME_TYPE, MeutererGame)
