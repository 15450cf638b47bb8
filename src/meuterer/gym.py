"""Gymnasium adapter: one learning seat against bots (extra ``meuterer[gym]``).

>>> import gymnasium
>>> import meuterer.gym  # registers meuterer/Meuterer-v0
>>> env = gymnasium.make("meuterer/Meuterer-v0", players=4, opponents="greedy")
>>> observation, info = env.reset(seed=1)
>>> observation.shape, observation.dtype, int(info["action_mask"].sum()) > 0
((579,), dtype('float32'), True)
>>> action = int(info["action_mask"].nonzero()[0][0])
>>> observation, reward, terminated, truncated, info = env.step(action)

:class:`MeutererEnv` plays one seat (the learner); chance and the other seats
(``opponents``) are played inside ``step`` until it is the learner's turn again or the
game ends. Keyword arguments:

- ``players`` (3 or 4), ``rules`` (a :class:`~meuterer.rules.Rules`), ``rounds`` (a
  shorter game: ``Rules(rounds=...)``), ``first_captain``.
- ``opponents``: an agent name of :mod:`meuterer.agents` (``"random"``, ``"greedy"``,
  ``"ismcts"``, ``"ismcts:20"``, ...), an agent (anything with ``act(view, legal, rng)``),
  a callable ``policy(view, legal, rng) -> action``, or a list of these, one per other seat.
  The game runs on the reference engine (a :class:`~meuterer.fast.FastGame` cursor); a
  view is built only for an opponent that reads one (none for ``"random"``).
- ``seat``: the learner's seat, or ``"rotate"`` (seat ``k % players`` in the ``k``-th
  episode since the last seeded reset) or ``"random"``.
- ``reward``: ``"step"`` (default: after each of the learner's decisions, his change of
  utility since his previous decision, the opponents' moves included, so the rewards of an
  episode add up to his final utility) or ``"terminal"`` (the utility at the end only).
  ``utility``: ``"relative"`` (default: points minus the others' mean), ``"score"`` or
  ``"win"`` (see :data:`meuterer.encoding.UTILITIES`).
- ``observation``: ``"encoded"`` (default: floats in [0, 1], quantities scaled and
  categories one-hot, :meth:`meuterer.views.Layout.encode`) or ``"vector"`` (the ints of
  :func:`~meuterer.views.observation_vector`, with per-entry bounds).
- ``max_steps``: truncate an episode after this many learner decisions (``None``: never).
- ``illegal``: ``"end"`` (default: an illegal action ends the episode with
  ``illegal_reward``) or ``"raise"`` (:class:`~meuterer.errors.IllegalActionError`).
- ``render_mode``: ``"ansi"`` (``render()`` returns the learner's view as text) or ``"human"``.

``action_masks()`` gives the learner's legal action ids (for sb3-contrib's
``MaskablePPO``); ``info["action_mask"]`` holds the same. Action ids are those of
:mod:`meuterer.encoding`. Every observation and mask handed out is a new array of the
caller's own (no buffer is reused between steps): keep it or change it freely.

Random opponents are played without a view (:meth:`~meuterer.fast.FastGame.play_random`:
chance and their moves in one loop, the same draws as one call per move).
``reset(options={"state": state})`` (or :meth:`MeutererEnv.load`) starts an episode from
a given state. The environment wraps :mod:`meuterer.envcore` (legal ids, observations,
utilities, seeding, loading).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Final

from meuterer._install import install_hint

try:
    import gymnasium
    import numpy as np
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.gym needs Gymnasium ({install_hint('gym')}; {error})") from error

from meuterer import engine
from meuterer.actions import Action
from meuterer.encoding import UTILITIES, action_ids, as_action_id, score_utilities
from meuterer.envcore import (
    OBSERVATIONS,
    LegalIds,
    ScalarEncoder,
    check_choice,
    dealer,
    loadable,
    observation_space,
    observer,
    opponent_rngs,
    rules_with_rounds,
)
from meuterer.errors import IllegalActionError, SetupError
from meuterer.fast import FastGame
from meuterer.gym_seeding import Actions, SeededWhenRead
from meuterer.rules import Rules
from meuterer.state import State, Step
from meuterer.views import Layout, PlayerView, observation_layout, observation_text, view

__all__ = [
    "ENV_ID",
    "OBSERVATIONS",
    "LegalIds",
    "MeutererEnv",
    "Policy",
    "ScalarEncoder",
    "observation_space",
    "observe",
]

_OVER: Final = Step.GAME_OVER

ENV_ID: Final = "meuterer/Meuterer-v0"
"""The id :func:`gymnasium.make` knows the environment by, once this module is imported
(``gymnasium.make("meuterer.gym:meuterer/Meuterer-v0")`` imports it first)."""

Policy = Callable[[PlayerView, Sequence[Action], random.Random], Action]
"""A policy: the action to take, given one's view, the legal actions and a generator."""


def observe(layout: Layout[PlayerView], v: PlayerView, observation: str) -> np.ndarray:
    """A view as an observation of the given encoding (a new array)."""
    if observation == "vector":
        return np.array(layout.vector(v), np.int64)
    return np.array(layout.encode(v), np.float32)


def _policy(spec: Any) -> Policy:
    if isinstance(spec, str):
        from meuterer.agents import make_agent

        return make_agent(spec).act
    act = getattr(spec, "act", None)
    if callable(act):
        return act  # type: ignore[no-any-return]
    if callable(spec):
        return spec  # type: ignore[no-any-return]
    raise SetupError(f"an opponent is an agent name, an agent or a callable policy, got {spec!r}")


class _Episode:
    """The learner's episode as :class:`MeutererEnv` keeps it: his legal ids and mask, his
    utility, observation and info, and the seats the game plays itself."""

    players: int
    seat: int
    utility: str
    _game: FastGame
    _legal_ids: LegalIds
    _observe: Any
    _moves: dict[int, int] | None
    _mask: np.ndarray | None
    _utility_scores: tuple[int, ...] | None
    _utility_over: bool
    _utilities: tuple[float, ...]
    _opponent_rngs: list[random.Random]
    _blind: list[bool]
    _seat_rngs: tuple[int, list[random.Random], list[random.Random | None]]

    def _legal(self) -> dict[int, int]:
        # The learner's legal ids, each with the place of its action in the game's legal list.
        moves = self._moves
        if moves is None:
            game = self._game
            entry = game.read(self._legal_ids, game.legal_actions())
            moves, self._mask = entry[0], entry[1]
            self._moves = moves
        return moves

    def _utility(self) -> float:
        # The learner's utility (the core's, worked out again only when the scores or the end change).
        game = self._game
        scores, over = game.scores, game.step is _OVER
        if over is not self._utility_over or scores != self._utility_scores:
            self._utility_scores, self._utility_over = scores, over
            self._utilities = score_utilities(scores, over, self.utility)
        return self._utilities[self.seat]

    def _blind_seats(self) -> list[random.Random | None]:
        # Each seat's generator if a blind opponent plays it (the game plays those
        # seats itself, as RandomAgent.act, without a view), else None (the learner, and the
        # opponents that read a view). Kept with the seat and the generators' list it was
        # worked out for, and worked out again when either changes.
        seat, rngs = self.seat, self._opponent_rngs
        known = self._seat_rngs
        if known[0] == seat and known[1] is rngs:
            return known[2]
        seats: list[random.Random | None] = [None] * self.players
        for which, (rng, blind) in enumerate(zip(rngs, self._blind, strict=True)):
            if blind:
                seats[which if which < seat else which + 1] = rng
        self._seat_rngs = (seat, rngs, seats)
        return seats

    def _observation(self) -> np.ndarray:
        # The learner's observation, read straight off the state (the declared layout's).
        return self._game.read(self._observe, self.seat)

    def _current_mask(self) -> np.ndarray:
        # The learner's legal ids as booleans (worked out on first demand after each move).
        mask = self._mask
        if mask is None:
            self._legal()
            mask = self._mask
            assert mask is not None
        return mask

    def _info(self) -> dict[str, Any]:
        # (written out in step too)
        return {"action_mask": self._current_mask().copy(), "seat": self.seat, "scores": self._game.scores}


class MeutererEnv(_Episode, SeededWhenRead, gymnasium.Env[np.ndarray, np.int64]):
    """Meuterer for one learning seat against ``opponents`` (see the module's documentation)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        players: int = 4,
        opponents: Any = "random",
        seat: int | str = 0,
        reward: str = "step",
        utility: str = "relative",
        observation: str = "encoded",
        rules: Rules | None = None,
        rounds: int | None = None,
        first_captain: int = 0,
        max_steps: int | None = None,
        illegal: str = "end",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._initial = engine.new_game(players, first_captain, rules_with_rounds(rules, rounds))
        self.rules: Rules = self._initial.rules
        """The rule set."""
        self.players = players
        specs = _check_arguments(players, opponents, seat, reward, utility, illegal, render_mode)
        self._opponent_specs = specs
        self._policies = [_policy(spec) for spec in specs]
        # Opponents that read no view (uniformly random ones) get none built.
        self._blind = [_is_random(policy) for policy in self._policies]
        self._all_blind = all(self._blind)
        """Whether every opponent is blind: then the game plays every move but the learner's itself."""
        self.seat_choice = seat
        self.reward_model = reward
        self.utility = utility
        self.observation_kind = observation
        self.max_steps = max_steps
        self.illegal = illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.ids = action_ids(self.rules)
        """The action numbering (:class:`meuterer.encoding.ActionIds`)."""
        self.layout = observation_layout(players, self.rules)
        """The declared observation layout (:func:`meuterer.views.observation_layout`)."""
        self.observation_space = observation_space(self.layout, observation)
        # the learner's observation, read straight off the state into this environment's
        # own scratch arrays (encoded as Layout.encode_values)
        self._observe = observer(self.layout, observation, self.rules)
        self.action_space = Actions(self.ids.num_actions)
        self._legal_ids = LegalIds(self.ids)
        self._game = FastGame(self._initial)
        self._moves: dict[int, int] | None = None
        self._utility_scores: tuple[int, ...] | None = None  # the scores and the end the utilities are of
        self._utility_over = False
        self._utilities: tuple[float, ...] = ()
        self.seat = seat if isinstance(seat, int) else 0
        """The learner's seat in this episode."""
        self._rng = random.Random()
        """The dealer's generator: chance and the seat choice. No policy ever sees it."""
        self._opponent_rngs = [random.Random() for _ in specs]
        """Each opponent's own generator, so that no policy can read or reseed the deck."""
        self._episodes = 0
        self._seat_rngs: tuple[int, list[random.Random], list[random.Random | None]] = (-1, [], [])
        self._steps = 0
        self._base = 0.0
        self._mask: np.ndarray | None = None

    # Gymnasium API -----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode; ``seed`` seeds chance, the opponents and the seat choice
        (each opponent draws from its own generator, derived from ``seed``).

        ``options={"state": state}`` starts it from ``state`` (a :class:`~meuterer.State` of
        this environment's seats and rules, say one read back from a record) instead of a new
        game; chance and the opponents then play until it is the learner's turn (see :meth:`load`)."""
        start = self._initial
        if options and "state" in options:
            start = loadable(options["state"], self.players, self.rules)
        if type(seed) is int and seed >= 0:
            # Gymnasium's seeding of np_random, the generator made when first read (SeededWhenRead)
            super().reset(options=options)
            self._np_seed, self._np_random_seed = seed, seed  # a SeedSequence's entropy is its int seed
        else:
            super().reset(seed=seed, options=options)  # None, or refused as Gymnasium refuses it
        if seed is not None:  # a seeded reset starts over: chance, opponents, seat rotation
            self._rng = dealer(seed)
            self._opponent_rngs = opponent_rngs(seed, len(self._policies))
            self.action_space.seed(seed)
            self._episodes = 0
        if self.seat_choice == "rotate":
            self.seat = self._episodes % self.players
        elif self.seat_choice == "random":
            self.seat = self._rng.randrange(self.players)
        self._episodes += 1
        self._steps = 0
        self._game = FastGame(start)
        self._advance()
        self._base = self._utility() if self.reward_model == "step" else 0.0
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """The learner takes action id ``action``; then chance and the opponents play."""
        game = self._game
        if game.step is _OVER:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset()")
        number = action if type(action) is int else as_action_id(action)  # a plain int as it is
        moves = self._moves
        if moves is None:
            moves = self._legal()
        index = moves.get(number)
        if index is None:
            if self.illegal == "raise":
                legal = tuple(moves)
                raise IllegalActionError(f"action id {number}", f"not legal for p{self.seat}: legal ids {legal}")
            return self._observation(), self.illegal_reward, True, False, {**self._info(), "illegal": True}
        game.apply_at(index)
        self._advance()
        self._steps += 1
        terminated = game.is_terminal()
        now = self._utility()
        if self.reward_model == "step":
            reward, self._base = now - self._base, now
        else:
            reward = now if terminated else 0.0
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        if self.render_mode == "human":
            self.render()
        seat = self.seat
        observation = game.read(self._observe, seat)
        mask = self._mask
        if mask is None:
            self._legal()
            mask = self._mask
            assert mask is not None
        info = {"action_mask": mask.copy(), "seat": seat, "scores": game.scores}  # as _info
        return observation, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal action ids as booleans (sb3-contrib's ``MaskablePPO`` asks for this)."""
        return self._current_mask().copy()

    def render(self) -> str | None:
        """The learner's view as text: returned (``"ansi"``) or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode (use 'ansi' or 'human')")
            return None
        if self.render_mode not in self.metadata["render_modes"]:
            gymnasium.logger.warn(f"render_mode {self.render_mode!r} is not one of ansi, human: nothing rendered")
            return None
        text = observation_text(view(self.state, self.seat))
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

    # The game -------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The engine's state (the learner to act, or the game over)."""
        return self._game.state

    def load(self, state: State, seed: int | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start an episode from ``state``: ``reset(seed=seed, options={"state": state})``.

        ``state`` must have this environment's seats and rules
        (:class:`~meuterer.errors.SetupError` otherwise). Chance and the opponents play
        until it is the learner's turn, or the game is over.

        >>> import meuterer
        >>> env = MeutererEnv(players=3)
        >>> _, final = meuterer.random_game(seed=2, players=3)
        >>> observation, info = env.load(final)
        >>> env.state is final, int(info["action_mask"].sum())
        (True, 0)
        """
        return self.reset(seed=seed, options={"state": state})

    def _advance(self) -> None:
        """Play chance and the opponents (chance drawn from the dealer's generator as the
        reference's sample_chance draws it) until the learner is to decide or the game is
        over. A view is built only for an opponent that reads one."""
        self._mask = self._moves = None
        game, seat, chance = self._game, self.seat, self._rng
        blind = self._blind_seats()
        game.play_random(chance, blind)  # chance and the blind opponents
        if self._all_blind:  # then it stops only for the learner or at the end
            return
        while True:
            player = game.current_player
            if player is None or player == seat:
                return
            which = player if player < seat else player - 1
            legal = game.legal_actions()
            game.apply(self._policies[which](view(game.state, player), legal, self._opponent_rngs[which]))
            game.play_random(chance, blind)


def _check_arguments(
    players: int, opponents: Any, seat: int | str, reward: str, utility: str, illegal: str, render_mode: str | None
) -> list[Any]:
    """Refuse :class:`MeutererEnv`'s arguments as its documentation says; the opponents' specs."""
    check_choice("reward", reward, ("step", "terminal"))
    check_choice("utility", utility, tuple(UTILITIES))
    check_choice("illegal", illegal, ("end", "raise"))
    if not (seat in ("rotate", "random") or (type(seat) is int and 0 <= seat < players)):
        raise SetupError(f"seat must be a seat from 0 to {players - 1}, 'rotate' or 'random', got {seat!r}")
    if render_mode is not None and not isinstance(render_mode, str):
        raise TypeError(f"render_mode is ansi, human or None, got {type(render_mode).__name__}")
    if render_mode is not None and render_mode not in MeutererEnv.metadata["render_modes"]:
        # as Gymnasium's own environments do: accepted with a warning (Stable-Baselines3's
        # make_vec_env asks every environment for "rgb_array")
        gymnasium.logger.warn(f"render_mode {render_mode!r} is not one of ansi, human: render() will return None")
    specs = list(opponents) if isinstance(opponents, list | tuple) else [opponents] * (players - 1)
    if len(specs) != players - 1:
        raise SetupError(f"{players - 1} opponents are needed, got {len(specs)}")
    return specs


def _is_random(policy: Policy) -> bool:
    from meuterer.agents import RandomAgent

    return isinstance(getattr(policy, "__self__", None), RandomAgent)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        ENV_ID, entry_point="meuterer.gym:MeutererEnv", vector_entry_point="meuterer.vector.env:MeutererVectorEnv"
    )
