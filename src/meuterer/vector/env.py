"""A Gymnasium ``VectorEnv`` on the vector engine, and a Pgx-style functional API.

:class:`MeutererVectorEnv` plays ``num_envs`` games in lockstep, the learner in one seat of
each; chance and the other seats are played inside :meth:`~MeutererVectorEnv.step`, by
batched opponent policies, until every game is back at the learner's turn or over. It is
registered as ``meuterer/Meuterer-v0``'s ``vector_entry_point``, so
``gymnasium.make_vec("meuterer/Meuterer-v0", num_envs=64, vectorization_mode="vector_entry_point")``
builds it. Finished games restart in the same step (``AutoresetMode.SAME_STEP``: the last
observation and info are in ``info["final_obs"]`` and ``info["final_info"]``, in the rows
where ``info["_final_obs"]`` is true; the other rows of ``final_obs`` are zeros).

>>> import gymnasium
>>> import meuterer.gym  # registers meuterer/Meuterer-v0
>>> envs = gymnasium.make_vec("meuterer/Meuterer-v0", num_envs=8, vectorization_mode="vector_entry_point")
>>> observations, info = envs.reset(seed=1)
>>> observations.shape, info["action_mask"].shape
((8, 579), (8, 784))
>>> actions = envs.unwrapped.random_actions()
>>> observations, rewards, terminated, truncated, info = envs.step(actions)
>>> rewards.dtype, bool(terminated.any())
(dtype('float32'), False)

Keyword arguments: ``players``, ``rules``, ``rounds``, ``first_captain``, ``seat`` (the
learner's, fixed), ``opponents`` (``"random"``, ``"greedy"``: :class:`~meuterer.agents.GreedyAgent`'s
choices, computed over the batch by ``meuterer.vector.greedy.BatchGreedy``, ``"policy"``: the
learned policy's, by ``meuterer.vector.policy.BatchPolicyAgent`` (4 players under the
rulebook's rules), or a
callable ``policy(observations, masks) -> actions`` on a batch of the acting seats'
observations and legal masks, or a list of these, one per other seat), ``reward`` (``"step"``: the change of
the learner's utility since his previous decision; ``"terminal"``), ``utility``
(``"relative"``, ``"score"``, ``"win"``) and ``observation`` (``"encoded"`` floats or the
``"vector"`` ints), as :class:`meuterer.gym.MeutererEnv`.

Illegal actions refuse the whole step, naming the games (``IllegalActionError``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from meuterer._install import install_hint

try:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as error:  # pragma: no cover - without the extra
    raise ImportError(f"meuterer.vector.env needs Gymnasium ({install_hint('gym')}; {error})") from error

import attrs

from meuterer.encoding import UTILITIES
from meuterer.envcore import OBSERVATIONS, check_choice, rules_with_rounds
from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.vector.arrays import DEAL, DRAW, GAME_OVER, RING, BoolArray, IntArray
from meuterer.vector.arrays import STEPS_BY_CODE as _STEPS
from meuterer.vector.arrays import Groups as _groups
from meuterer.vector.choice import chance_at, legal_at, random_at, refuse
from meuterer.vector.engine import VectorGame
from meuterer.vector.greedy import BatchGreedy
from meuterer.vector.observation import Encoder, _seat_observations, observations
from meuterer.vector.policy import BatchPolicyAgent
from meuterer.views import observation_layout

__all__ = ["BatchPolicy", "MeutererVectorEnv", "PgxState", "init", "step"]

BatchPolicy = Callable[[npt.NDArray[Any], npt.NDArray[np.bool_]], npt.NDArray[np.integer[Any]]]
"""A batched policy: the action ids of a batch of seats, given their observations and masks."""

_CHANCE_STEP: Final = np.isin(np.arange(len(_STEPS)), [RING, DEAL, DRAW])
"""Whether each step code is a chance node's (a lookup: one call where three comparisons were)."""


class MeutererVectorEnv(VectorEnv[npt.NDArray[Any], npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` games of Meuterer, one learning seat in each (see the module)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 4,
        opponents: Any = "random",
        seat: int = 0,
        reward: str = "step",
        utility: str = "relative",
        observation: str = "encoded",
        rules: Rules | None = None,
        rounds: int | None = None,
        first_captain: int = 0,
        render_mode: str | None = None,
    ) -> None:
        rules = rules_with_rounds(rules, rounds)
        if type(seat) is not int or not 0 <= seat < players:
            raise SetupError(f"seat must be a seat from 0 to {players - 1}, got {seat!r}")
        check_choice("reward", reward, ("step", "terminal"))
        check_choice("utility", utility, tuple(UTILITIES))
        check_choice("observation", observation, OBSERVATIONS)
        self.num_envs = num_envs
        self.game = VectorGame(num_envs, players, rules, first_captain=first_captain)
        self.players, self.seat = players, seat
        self.reward_kind, self.utility, self.observation_kind = reward, utility, observation
        self.render_mode = render_mode
        self.layout = observation_layout(players, rules)
        self.encoder = Encoder(self.layout)
        self._opponent_spec = opponents
        self._policies = _make_policies(opponents, players, rules)
        n = self.game.ids.num_actions
        self.single_action_space = spaces.Discrete(n)
        self.action_space = batch_space(self.single_action_space, num_envs)
        if observation == "vector":
            low, high = np.array(self.layout.low, np.int32), np.array(self.layout.high, np.int32)
            self.single_observation_space = spaces.Box(low, high, dtype=np.int32)
        else:
            self.single_observation_space = spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._last = np.zeros(num_envs, dtype=np.float64)
        self._vectors: npt.NDArray[np.int32] | None = None
        self._mask: tuple[VectorGame, int, BoolArray] | None = None

    # The Gymnasium API -------------------------------------------------------------------

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """Start every game anew and play up to the learner's first decision."""
        if seed is not None:
            first = seed[0] if isinstance(seed, list) else seed
            self.game.rng = np.random.default_rng(first)
        self.game.reset()
        self._advance()
        self._last = self.game.utilities(self.utility)[:, self.seat].copy()
        return self._observe(), self._info()

    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.float32], BoolArray, BoolArray, dict[str, Any]]:
        """Apply the learner's action in every game, then play chance and the opponents."""
        g = self.game
        a = self._checked(actions)
        if a is None:  # no mask kept for this state: the batch's own check
            g.step(actions)
        else:
            g.step(a, checked=False)
        self._advance()
        terminated = g.terminal
        now = g.utilities(self.utility)[:, self.seat]
        rewards = now - self._last if self.reward_kind == "step" else np.where(terminated, now, 0.0)
        self._last = now.copy()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        info: dict[str, Any] = {"action_mask": None}  # first, as the info of reset
        if terminated.any():
            # The finished games' last observations, before they restart; the batch's
            # observations once, after.
            done = np.flatnonzero(terminated)
            last = self._observe(done)
            info["final_obs"] = None  # (the keys in Gymnasium's order)
            info["final_info"] = {"scores": g.scores.copy(), "_scores": terminated.copy()}
            info["_final_obs"] = terminated.copy()
            info["_final_info"] = terminated.copy()
            g.reset(terminated)
            self._advance()
            self._last[terminated] = g.utilities(self.utility)[terminated, self.seat]
            observed = self._observe()
            # Zeros in the rows of the games that went on (Gymnasium defines the rows of
            # ``_final_obs`` only): a copy of the observations there would cost more.
            final = np.zeros(observed.shape, dtype=observed.dtype)
            final[done] = last
            info["final_obs"] = final
        else:
            observed = self._observe()
        info["action_mask"] = self.action_masks()
        return observed, rewards.astype(np.float32), terminated, truncated, info

    def action_masks(self) -> BoolArray:
        """(num_envs, num_actions): the learner's legal action ids in each game."""
        g = self.game
        kept = self._mask
        if kept is not None and kept[0] is g and kept[1] == g._version:
            return kept[2].copy()
        mask = g.legal_mask()
        # A copy of its own, to check the learner's next actions against (whatever is done
        # to the one handed out), while the batch is in this state; only if every game is
        # at the learner's decision or over (as after reset and step).
        if not _CHANCE_STEP[g.step_].any():
            self._mask = (g, g._version, mask.copy())
        return mask

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action of the learner in each game."""
        return self.game.random_actions()

    # Inside -----------------------------------------------------------------------------

    def _advance(self) -> None:
        """Play chance and the opponents until every game waits for the learner or is over.

        Each round of the loop is what ``step(random_actions(), moving)`` over the batch
        would do (the same draws from the generator, so the same games), with the work
        done for the moving games only: the others wait for the learner, or are over."""
        g = self.game
        seat, policies = self.seat, self._policies
        callers = any(policy is not None for policy in policies)
        s = g.step_
        idx = np.flatnonzero(_CHANCE_STEP[s] | ((g.to_act != seat) & (s != GAME_OVER)))  # the moving games
        # New games (at a reset, or restarted) deal in lockstep: their hands in one go, with
        # the draws the rounds below would make (each round's uniforms for the batch too).
        if len(idx) and g._deal(idx, g.rng, skip=g.batch):
            idx = idx[g.to_act[idx] != seat]
        while len(idx):
            u = g.rng.random(g.batch)  # random_actions' draw, for every game
            s = g.step_[idx]
            group = _groups(s)  # shared by the choices and their application
            chances = group.size(RING) + group.size(DEAL) + group.size(DRAW)
            # (no chance node among idx: _chance_at would draw nothing)
            actions = chance_at(g, idx, s, g.rng, group) if chances else np.zeros(len(idx), dtype=np.int64)
            if chances < len(idx) and not callers:
                random_at(g, idx, u, group, actions)
            elif chances < len(idx):
                _opponents_act(g, idx, s, u, seat, policies, self._policy_actions, actions)
            g._apply(idx, actions, group)
            s = g.step_[idx]
            idx = idx[_CHANCE_STEP[s] | ((g.to_act[idx] != seat) & (s != GAME_OVER))]  # still moving

    def _checked(self, actions: object) -> IntArray | None:
        """The learner's ``actions`` as int64, checked against the mask kept by
        :meth:`action_masks` (the batch's :meth:`~VectorGame.check`, with its
        :class:`~meuterer.errors.IllegalActionError`, in fewer steps); ``None`` if no mask is
        kept for the batch's state, or the actions are not a (B,) integer array (the
        batch's check then raises its error)."""
        g = self.game
        kept = self._mask
        if kept is None or kept[0] is not g or kept[1] != g._version:
            return None
        if not isinstance(actions, np.ndarray) or actions.dtype.kind not in "iu" or actions.shape != (g.batch,):
            return None
        a = actions.astype(np.int64)
        mask = kept[2]
        inside = (a >= 0) & (a < mask.shape[1])
        legal = mask[np.arange(g.batch), np.where(inside, a, 0)]
        legal &= inside
        legal |= g.step_ == GAME_OVER  # (any id: finished games ignore theirs)
        if not legal.all():
            refuse(g, np.flatnonzero(~legal), a)
        return a

    def _policy_actions(self, policy: Opponent, games: IntArray) -> IntArray:
        """An opponent's actions in the games ``games`` (its seat to act in each)."""
        if isinstance(policy, BatchGreedy | BatchPolicyAgent):
            return policy(self.game, games)
        part = self.game._subset(games)
        seen: npt.NDArray[Any] = observations(part, part.to_act)
        if self.observation_kind == "encoded":
            seen = self.encoder(seen)
        chosen: IntArray = np.asarray(policy(seen, part.legal_mask()), dtype=np.int64)
        return chosen

    def _observe(self, games: IntArray | None = None) -> npt.NDArray[Any]:
        """The learner's observations in every game, or in the games ``games``."""
        part = self.game if games is None else self.game._subset(games)
        seats = np.full(part.batch, self.seat, dtype=np.int64)
        if self.observation_kind != "encoded":
            return observations(part, seats)
        if games is not None:
            return self.encoder(observations(part, seats))
        # Only encoded, the vectors of every game are written into an array kept for them.
        if self._vectors is None:
            self._vectors = np.empty((self.layout.size, self.num_envs), dtype=np.int32)
        return self.encoder(_seat_observations(part, seats, self._vectors))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks()}


Opponent = BatchPolicy | BatchGreedy | BatchPolicyAgent
"""An opponent that is not random: a callable policy, the greedy bot or the learned policy over the batch."""


def _make_policies(spec: Any, players: int, rules: Rules) -> list[Opponent | None]:
    """The opponents' batch policies (``None`` for a random one), one per other seat (the
    greedy seats share one :class:`BatchGreedy`, the policy's one :class:`BatchPolicyAgent`)."""
    specs = list(spec) if isinstance(spec, (list, tuple)) else [spec] * (players - 1)
    if len(specs) != players - 1:
        raise SetupError(f"opponents lists one policy per other seat ({players - 1}), got {len(specs)}")
    named = {one for one in specs if isinstance(one, str)}
    shared: dict[str, Opponent | None] = {"random": None}
    if "greedy" in named:
        shared["greedy"] = BatchGreedy(rules)
    if "policy" in named:
        shared["policy"] = BatchPolicyAgent(players, rules)
    policies: list[Opponent | None] = []
    for one in specs:
        if isinstance(one, str) and one in shared:
            policies.append(shared[one])
        elif callable(one):
            policies.append(one)
        else:
            raise SetupError(
                f"an opponent is 'random', 'greedy', 'policy' or a callable policy(observations, masks), got {one!r}"
            )
    return policies


def _opponents_act(
    g: VectorGame,
    idx: IntArray,
    s: IntArray,
    u: npt.NDArray[np.float64],
    seat: int,
    policies: list[Opponent | None],
    call: Callable[[Opponent, IntArray], IntArray],
    actions: IntArray,
) -> None:
    """Write into ``actions`` the deciding opponents' actions in the moving games ``idx``
    (steps ``s``): a callable opponent's from ``call`` (checked, an illegal one refused),
    a greedy or learned one's from ``call`` too (legal by construction: not checked), a random one's
    from the uniforms ``u`` as ``random_actions`` draws them."""
    deciding = np.flatnonzero(~_CHANCE_STEP[s])
    who = g.to_act[idx[deciding]]
    chosen = np.zeros(len(deciding), dtype=np.int64)
    called = np.zeros(len(deciding), dtype=np.bool_)
    checked = np.zeros(len(deciding), dtype=np.bool_)
    for k, policy in enumerate(policies):
        if policy is None:
            continue
        theirs = np.flatnonzero(who == (k if k < seat else k + 1))
        if len(theirs):
            chosen[theirs] = call(policy, idx[deciding[theirs]])
            called[theirs] = True
            checked[theirs] = not isinstance(policy, BatchGreedy | BatchPolicyAgent)
    if checked.any():
        games, ids = idx[deciding[checked]], chosen[checked]
        legal = (ids >= 0) & (ids < g.ids.num_actions)
        legal[legal] = legal_at(g, games[legal], ids[legal])
        if not legal.all():
            every = np.zeros(g.batch, dtype=np.int64)
            every[games] = ids
            refuse(g, games[~legal], every)
    if called.any():
        random = deciding[~called]
        actions[random] = random_at(g, idx[random], u)
        actions[deciding[called]] = chosen[called]
    else:
        actions[deciding] = random_at(g, idx[deciding], u)


# A Pgx-style functional API ----------------------------------------------------------------


@attrs.frozen
class PgxState:
    """One batch's state in the Pgx style: what every seat needs after a step.

    ``current_player`` (B,) (``-2`` once over), ``observation`` (B, P, entries): every seat's
    observation vector; ``legal_action_mask`` (B, num_actions); ``rewards`` (B, P): each
    seat's change of utility in the step; ``terminated`` (B,); ``game``: the batch itself
    (a copy owned by this state).
    """

    game: VectorGame
    current_player: IntArray
    observation: npt.NDArray[np.int32]
    legal_action_mask: BoolArray
    rewards: npt.NDArray[np.float32]
    terminated: BoolArray
    utility: str = "relative"


def _state(game: VectorGame, rewards: npt.NDArray[np.float64], utility: str) -> PgxState:
    return PgxState(
        game,
        game.current_player,
        observations(game),
        game.legal_mask(),
        rewards.astype(np.float32),
        game.terminal.copy(),
        utility,
    )


def init(
    batch: int, players: int = 4, rules: Rules | None = None, *, seed: int | None = None, utility: str = "relative"
) -> PgxState:
    """``batch`` new games, chance played up to the first decision (the deal).

    >>> from meuterer.vector.env import init, step
    >>> state = init(16, players=3, seed=1)
    >>> state.observation.shape, state.legal_action_mask.shape
    ((16, 3, 143), (16, 784))
    >>> state = step(state, state.game.random_actions())
    >>> state.rewards.shape, bool(state.terminated.any())
    ((16, 3), False)
    """
    game = VectorGame(batch, players, rules, seed=seed)
    game.advance_chance()
    return _state(game, np.zeros((batch, players)), utility)


def step(state: PgxState, action: npt.NDArray[np.integer[Any]]) -> PgxState:
    """The state after each game's player to act takes ``action`` (chance then played up
    to the next decision); finished games stay finished (their action is ignored)."""
    game = state.game.copy()
    before = game.utilities(state.utility)
    game.step(action)
    game.advance_chance()
    return _state(game, game.utilities(state.utility) - before, state.utility)
