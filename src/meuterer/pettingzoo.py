"""PettingZoo adapter: Meuterer as an AEC environment (extra ``meuterer[pettingzoo]``).

>>> from meuterer.pettingzoo import env
>>> e = env(players=3)
>>> e.reset(seed=7)
>>> e.agent_selection
'player_0'
>>> observation, reward, terminated, truncated, info = e.last()
>>> legal = observation["action_mask"].nonzero()[0]
>>> observation["observation"].shape, [e.unwrapped.action_to_string(a) for a in legal]
((143,), ['p0 offer 0', 'p0 offer 1', 'p0 offer 2', 'p0 offer 3'])

The agents ``player_0`` to ``player_{n-1}`` are the seats. Chance (every card drawn, the
shuffled ring) is played inside the environment with its own random generator, seeded by
``reset(seed=...)``; an agent only ever sees his own decisions.

- **Actions**: ``Discrete(n)`` with the fixed numbering of :mod:`meuterer.encoding` (784
  ids under the default rules), the same as the OpenSpiel adapter's;
  ``env.unwrapped.action_to_string(a)`` gives the canonical notation.
- **Observations**: ``{"observation": ..., "action_mask": int8 mask of the legal ids}``
  from the agent's view; the mask is all zeros except for the agent to act. With
  ``observation="vector"`` (default) the observation is
  :func:`~meuterer.views.observation_vector` (int64, a ``Box`` with each
  entry's own bounds); with ``"encoded"`` it is the normalised/one-hot encoding of the same
  layout (float32 in [0, 1]; :func:`meuterer.views.observation_layout` declares both).
  Observations are built once per step and agent (treat them as read-only); masks are
  shared and read-only.
- **Rendering** (``render_mode`` ``"ansi"`` or ``"human"``): by default the spectator's
  view; ``render_view="current"`` renders the view of the agent to act, and an agent name
  (``"player_2"``) that agent's view throughout.
- **Rewards**: the victory points each seat scored during the step (the decision and the
  chance and automatic steps after it), so an agent's rewards add up to his score.
- **Termination** after the last round; there is no truncation.

:func:`env` behaves like PettingZoo's classic games (an illegal action ends the game with
reward -1 for the player at fault); :class:`raw_env` itself raises
:class:`~meuterer.errors.IllegalActionError` and leaves the game as it was (or, with
``illegal="terminate"``, ends the game as :func:`env` does).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from meuterer._install import install_hint

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
    from pettingzoo.utils.env_logger import EnvLogger
    from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.pettingzoo needs PettingZoo ({install_hint('pettingzoo')}; {error})") from error

from meuterer import engine
from meuterer.encoding import action_ids, as_action_id
from meuterer.envcore import LegalIds, check_choice, dealer, loadable, observation_space, observer
from meuterer.errors import IllegalActionError, SetupError
from meuterer.fast import FastGame
from meuterer.fast.engine import CHANCE_STEPS
from meuterer.rules import Rules
from meuterer.state import State, Step
from meuterer.views import observation_layout, observation_text, view

__all__ = ["env", "raw_env"]

_OVER = Step.GAME_OVER


def env(**kwargs: Any) -> Any:
    """The environment as PettingZoo's classic games come: an illegal action ends the game
    with reward -1 for the player at fault (as ``TerminateIllegalWrapper`` does, done inside
    :class:`raw_env` to spare two wrappers' cost on every step), an action out of range is
    refused, and ``OrderEnforcingWrapper`` checks the order of calls."""
    return _OrderEnforcing(raw_env(**{"illegal": "terminate", **kwargs}))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order checks, with :meth:`last` answered by the environment itself
    (the inherited one reads six attributes through two ``__getattr__`` layers per call)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """As ``AECEnv.last`` of the environment inside (read here, one call fewer); before
        ``reset`` it raises as the wrapper's attributes do."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        inner: raw_env = self.env
        agent = inner.agent_selection
        assert agent is not None
        return (
            inner.observe(agent) if observe else None,
            inner._cumulative_rewards[agent],
            inner.terminations[agent],
            inner.truncations[agent],
            inner.infos[agent],
        )

    def __str__(self) -> str:
        return str(self.env)

    # The attributes agent_iter reads at every step, and step, without the inherited
    # __getattr__ layers (the same checks).
    @property
    def agents(self) -> list[str]:
        """The environment's agents; before ``reset`` it raises as the wrapper does."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents  # type: ignore[no-any-return]

    @property
    def agent_selection(self) -> str:
        """The agent to act; before ``reset`` it raises as the wrapper does."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection  # type: ignore[no-any-return]

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """As ``OrderEnforcingWrapper.agent_iter``, with an iterator that reads the
        environment's attributes directly (the same checks, in the same order)."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def step(self, action: Any) -> None:
        """As ``OrderEnforcingWrapper.step``."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        inner = self.env
        if not inner.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            inner.step(action)


class _Iterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """``AECOrderEnforcingIterator`` of an :class:`_OrderEnforcing` wrapper, its
    ``agents`` and ``agent_selection`` read off the environment inside (the wrapper's
    ``agents`` never refuses here: an iterator is only made after ``reset``)."""

    def __init__(self, env: _OrderEnforcing, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._inner: raw_env = env.env

    def __next__(self) -> str:
        wrapper = self.env
        inner = self._inner
        if not inner.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent: str = inner.agent_selection
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return agent


def _check_rendering(players: int, render_mode: str | None, render_view: str | None) -> None:
    """Refuse a render mode or a render view that :class:`raw_env` does not know."""
    modes = raw_env.metadata["render_modes"]
    if render_mode is not None and render_mode not in modes:
        raise SetupError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
    names = [f"player_{seat}" for seat in range(players)] if players in (3, 4) else []
    if render_view not in (None, "current", *names):
        raise SetupError(f"render_view must be None, 'current' or an agent name, got {render_view!r}")


class _Moves(AECEnv):  # type: ignore[misc]
    """What :class:`raw_env` does between its API calls: the legal ids, the chance steps, and
    an action other than a legal id checked, refused or ending the game."""

    _moves: dict[int, int] | None
    _observed: dict[str, dict[str, Any]]
    infos: dict[str, dict[str, Any]]

    def _legal(self) -> dict[int, int]:
        # Each legal id and the place of its action in the game's legal list (and the int8
        # mask of the ids).
        moves = self._moves
        if moves is None:
            game = self._game
            entry = game.read(self._legal_ids, game.legal_actions())
            moves = self._moves = entry[0]
            self._mask = entry[2]
        return moves

    def _chance(self) -> None:
        # The chance steps, drawn from the environment's generator as the reference's
        # sample_chance draws them.
        self._game.play_random(self._rng, self._no_seats)  # chance only: no seat plays at random
        self._moves = None
        self._observed = {}

    def _index(self, agent: str, action: Any) -> int | None:
        # The place in the legal list of an action other than a plain int legal id: None
        # is refused, other types converted; an id out of range or not legal is refused,
        # or ends the game (illegal="terminate": then None).
        if action is None:
            raise TypeError(f"{agent} must act: an action id, not None (None is only for agents who are done)")
        number = action if type(action) is int else as_action_id(action)
        if not 0 <= number < self._num_actions:
            raise IllegalActionError(
                f"action id {number}", f"not in the action space of {agent}: ids are 0 to {self.ids.num_actions - 1}"
            )
        index = self._legal().get(number)
        if index is None:
            if self.illegal == "terminate":
                self._terminate_illegal(agent)
                return None
            # The reference engine words the refusal (and leaves everything as it was).
            state = self.game_state
            engine.apply(state, self.ids.action(state, number))
            raise AssertionError(f"the engine accepted action id {action}, which is not legal")  # pragma: no cover
        return index

    def _terminate_illegal(self, agent: str) -> None:
        # What pettingzoo.utils.wrappers.TerminateIllegalWrapper does.
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.infos = {name: {} for name in self.agents}
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self._accumulate_rewards()
        self._deads_step_first()


class raw_env(_Moves):
    """Meuterer for ``players`` seats under ``rules``, ``first_captain`` captain in round 1."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "meuterer_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        first_captain: int = 0,
        rules: Rules | None = None,
        render_mode: str | None = None,
        observation: str = "vector",
        render_view: str | None = None,
        illegal: str = "raise",
    ) -> None:
        super().__init__()
        check_choice("illegal", illegal, ("raise", "terminate"))
        self.illegal = illegal
        """``"raise"``: an illegal action raises; ``"terminate"``: it ends the game, reward -1 for its player."""
        _check_rendering(players, render_mode, render_view)
        self.render_mode = render_mode
        self.render_view = render_view
        """Whose view :meth:`render` shows: ``None`` a spectator's, ``"current"`` the agent to act's, or an agent's."""
        self._initial = engine.new_game(players, first_captain, rules)
        self.rules = self._initial.rules
        """The rule set."""
        self.ids = action_ids(self.rules)
        """The action numbering (:class:`meuterer.encoding.ActionIds`)."""
        self.possible_agents: list[str] = [f"player_{seat}" for seat in range(players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        self.layout = observation_layout(players, self.rules)
        """The declared observation layout (:func:`meuterer.views.observation_layout`)."""
        self.observation_kind = observation
        box = observation_space(self.layout, observation)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": box,
                    "action_mask": spaces.Box(0, 1, (self.ids.num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.ids.num_actions) for agent in self.possible_agents}
        self._game = FastGame(self._initial)
        self._scores = self._initial.scores
        """The scores when the last step (or reset) ended: only steps change them."""
        self._rng = dealer(None)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[self._initial.to_act]
        self._observed: dict[str, dict[str, Any]] = {}
        self._moves: dict[int, int] | None = None
        self._legal_ids = LegalIds(self.ids)
        self._no_mask = self._legal_ids.none[2]
        self._mask = self._no_mask
        # an agent's observation, read straight off the state into this environment's own
        # scratch arrays (encoded as Layout.encode_values)
        self._write = observer(self.layout, observation, self.rules)
        self._num_actions = self.ids.num_actions
        self._no_seats: list[random.Random | None] = [None] * players
        self._no_rewards = dict.fromkeys(self.possible_agents, 0.0)  # copied: a step's rewards are its own

    @property
    def game_state(self) -> State:
        """The engine's state (after any chance steps)."""
        return self._game.state

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` reseeds the generator that plays chance.

        ``options={"state": state}`` starts from ``state`` (a :class:`~meuterer.State` of this
        environment's seats and rules) instead of a new game (see :meth:`load`)."""
        start = self._initial
        if options and "state" in options:
            start = loadable(options["state"], len(self.possible_agents), self.rules)
        if seed is not None:
            self._rng = dealer(seed)
        self._game = FastGame(start)
        self._chance()
        self._scores = self._game.state.scores
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self._game.state.to_act]
        if self._game.state.step is _OVER:  # a finished game loaded
            self.terminations = dict.fromkeys(self.agents, True)

    def load(self, state: State, seed: int | None = None) -> None:
        """Start from ``state``: ``reset(seed=seed, options={"state": state})``. Chance plays
        first if ``state`` is a chance node.

        >>> import meuterer
        >>> e = raw_env(players=3)
        >>> actions, final = meuterer.random_game(seed=5, players=3)
        >>> e.load(meuterer.Game.replay(actions[:20], players=3).state, seed=1)
        >>> e.game_state == meuterer.Game.replay(actions[:20], players=3).state, e.agent_selection
        (True, 'player_1')
        """
        self.reset(seed=seed, options={"state": state})

    def step(self, action: int | None) -> None:
        """Apply the selected agent's action (``None`` once he is done), then the chance steps after it."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = None
        if type(action) is int:  # a plain int as it is: a legal id is found at once
            moves = self._moves
            if moves is None:
                moves = self._legal()
            index = moves.get(action)
        if index is None:  # anything else: checked, converted, refused (or terminating)
            index = self._index(agent, action)
            if index is None:
                return
        game = self._game
        before = self._scores  # the scores as the previous step (or reset) left them
        game.apply_at(index)
        if game.step in CHANCE_STEPS:  # (play_random would return at once otherwise)
            game.play_random(self._rng, self._no_seats)  # as _chance
        self._moves = None
        self._observed = {}
        self._cumulative_rewards[agent] = 0.0
        after = game.scores
        if after is before:  # no points scored (most steps): nothing to add up
            self.rewards = self._no_rewards.copy()  # dict.fromkeys(self.agents, 0.0): all agents play until the end
        else:
            seat = self._seat
            self.rewards = {name: float(after[seat[name]] - before[seat[name]]) for name in self.agents}
            self._scores = after
            self._accumulate_rewards()
        if game.step is _OVER:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[game.to_act]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s view as an observation, and the mask of his legal action ids (built
        once per step and agent: do not change them in place)."""
        observed = self._observed.get(agent)
        if observed is None:
            seat = self._seat[agent]
            game = self._game
            if seat == game.to_act and agent == self.agent_selection and game.step is not _OVER:
                if self._moves is None:
                    self._legal()
                mask = self._mask
            else:
                mask = self._no_mask
            observed = self._observed[agent] = {"observation": game.read(self._write, seat), "action_mask": mask}
        return observed

    def action_to_string(self, action: int) -> str:
        """The canonical notation of action id ``action`` for the agent to act."""
        return str(self.ids.action(self.game_state, as_action_id(action)))

    def render(self) -> str | None:
        """The game as :attr:`render_view` sees it: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (use 'human' or 'ansi')")
            return None
        who = self.agent_selection if self.render_view == "current" else self.render_view
        text = self.view_text(who)
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

    def view_text(self, agent: str | None) -> str:
        """The game as ``agent`` (``None``: a spectator) sees it, as text."""
        return observation_text(view(self.game_state, None if agent is None else self._seat[agent]))

    def close(self) -> None:
        """Nothing to release."""
