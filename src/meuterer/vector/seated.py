"""Seated games on the batch engine: games between batched bots, each game drawing its chance
and its random players' choices from streams of its own (:mod:`meuterer.vector.streams`),
so that a game is the same whatever else the batch plays; what a league plays when every
agent is batched (``meuterer.tournament.rate.run_league``).

Two games given the same chance key draw the same cards as long as their decks hold the
same cards at each draw: a draw maps the game's next uniform through the deck's counts. A
duplicate deal (the same key, the seats rotated) so gives every rotation the same ring, the
same opening hands and the same cards off the deck until a reshuffle, as the reference's
duplicate deals do.

>>> games = [SeatedGame(i, ("greedy", "random", "random"), chance=5, choices=i) for i in range(3)]
>>> played = list(play_seated(games, players=3, batch=2))
>>> sorted(game.index for game in played)
[0, 1, 2]
>>> again = {game.index: game for game in play_seated(games[1:], players=3, batch=1)}
>>> again[2].scores == next(game for game in played if game.index == 2).scores
True
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

import attrs
import numpy as np

from meuterer.actions import Action
from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.vector.arrays import MUTINEER, BoolArray, IntArray
from meuterer.vector.choice import chance_at, random_at
from meuterer.vector.engine import VectorGame
from meuterer.vector.playouts import BATCHED_AGENTS, _choosers
from meuterer.vector.streams import GameStreams

__all__ = ["PlayedGame", "SeatedGame", "play_seated"]


@attrs.frozen
class SeatedGame:
    """A game to play: its number, the agent in each seat (each of
    :data:`~meuterer.vector.playouts.BATCHED_AGENTS`), the key of its chance stream and the
    key of its random players' stream (64-bit integers)."""

    index: int
    agents: tuple[str, ...]
    chance: int
    choices: int


@attrs.frozen
class PlayedGame:
    """A game :func:`play_seated` played: its number, final scores, rounds, all actions
    (chance included), each seat's decisions, mutinies led and won, each seat's seconds
    spent deciding (the batched bots' time shared out over the decisions they took at
    once) and the game's seconds (each step's time shared out over the games it moved); with
    ``record``, its actions (the reference's, chance included)."""

    index: int
    scores: tuple[int, ...]
    rounds: int
    actions: int
    moves: tuple[int, ...]
    mutineers: tuple[int, ...]
    mutinies_won: tuple[int, ...]
    think: tuple[float, ...] = attrs.field(eq=False)
    seconds: float = attrs.field(eq=False)
    history: tuple[Action, ...] | None = None


def play_seated(
    games: Sequence[SeatedGame],
    players: int = 4,
    rules: Rules | None = None,
    *,
    batch: int = 1024,
    record: bool = False,
) -> Iterator[PlayedGame]:
    """Play ``games``, ``batch`` at a time in lockstep (a finished game's place taken by the
    next one), yielding each as it ends, with its actions if ``record``. Each game's play
    depends on the game alone: its seats, its keys and ``rules``."""
    if type(batch) is not int or batch < 1:
        raise SetupError(f"batch must be a positive whole number, got {batch!r}")
    names = sorted({name for game in games for name in game.agents})
    for game in games:
        if len(game.agents) != players or any(name not in BATCHED_AGENTS for name in game.agents):
            raise SetupError(f"name one agent per seat ({players}), each of {', '.join(BATCHED_AGENTS)}: {game}")
    if not games:
        return
    run = _Run(games, players, rules, min(batch, len(games)), names, record)
    yield from run.play()


class _Run:
    """The state of one :func:`play_seated`: the batch, the streams, and per place in the
    batch the game there and its counts."""

    def __init__(
        self,
        games: Sequence[SeatedGame],
        players: int,
        rules: Rules | None,
        size: int,
        names: list[str],
        record: bool,
    ) -> None:
        self.games, self.names = games, names
        self.g = VectorGame(size, players, rules, seed=0, record=record)  # (its generator is not used)
        self.choosers = _choosers(names, players, self.g.rules)
        self.chance, self.choices = GameStreams(size), GameStreams(size)
        self.game = np.full(size, -1, dtype=np.int64)  # the number in ``games`` of the game at each place
        self.seated = np.zeros((size, players), dtype=np.int64)  # each seat's agent, as its index in ``names``
        self.actions = np.zeros(size, dtype=np.int64)
        self.moves = np.zeros((size, players), dtype=np.int64)
        self.mutineers = np.zeros((size, players), dtype=np.int64)
        self.won = np.zeros((size, players), dtype=np.int64)
        self.think = np.zeros((size, players))
        self.spent = np.zeros(size)
        self.next = 0

    def start(self, places: IntArray) -> None:
        """Start the next games in the places ``places`` (as many as remain)."""
        places = places[: len(self.games) - self.next]
        if not len(places):
            return
        todo = self.games[self.next : self.next + len(places)]
        self.game[places] = np.arange(self.next, self.next + len(places))
        self.next += len(places)
        where = np.zeros(self.g.batch, dtype=np.bool_)
        where[places] = True
        self.g.reset(where)
        self.seated[places] = [[self.names.index(name) for name in game.agents] for game in todo]
        self.chance.start(places, np.array([game.chance for game in todo], dtype=np.uint64))
        self.choices.start(places, np.array([game.choices for game in todo], dtype=np.uint64))
        for counts in (self.actions, self.moves, self.mutineers, self.won, self.think, self.spent):
            counts[places] = 0

    def decide(self, live: BoolArray, actions: IntArray) -> None:
        """Each seated bot's decisions in the live games at a decision, into ``actions``."""
        g = self.g
        deciding = np.flatnonzero(live & ~g.chance & ~g.terminal)
        seat = g.to_act[deciding]
        who = self.seated[deciding, seat]
        for code, name in enumerate(self.names):
            mine = who == code
            idx = deciding[mine]
            if not len(idx):
                continue
            clock = time.perf_counter()
            if name == "random":
                u = np.zeros(g.batch)
                u[idx] = self.choices.uniforms(idx)
                actions[idx] = random_at(g, idx, u)
            else:
                actions[idx] = self.choosers[name](g, idx)
            self.think[idx, seat[mine]] += (time.perf_counter() - clock) / len(idx)
            self.moves[idx, seat[mine]] += 1

    def play(self) -> Iterator[PlayedGame]:
        g = self.g
        self.start(np.arange(g.batch))
        while True:
            live = (self.game >= 0) & ~g.terminal
            if not live.any():
                return
            clock = time.perf_counter()
            actions = np.zeros(g.batch, dtype=np.int64)
            drawing = np.flatnonzero(live & g.chance)
            if len(drawing):
                actions[drawing] = chance_at(g, drawing, g.step_[drawing], self.chance)
            self.decide(live, actions)
            before = g.mutiny.copy()
            g.step(actions, live, checked=False)
            self.actions[live] += 1
            self.count_mutinies(np.flatnonzero(live & (before < 0) & (g.mutiny >= 0)))
            self.spent[live] += (time.perf_counter() - clock) / np.count_nonzero(live)
            over = np.flatnonzero(live & g.terminal)
            if len(over):
                yield from (self.result(place) for place in over.tolist())
                self.game[over] = -1
                self.start(over)

    def count_mutinies(self, places: IntArray) -> None:
        """A mutiny was decided in the games at ``places``: count it for its leader."""
        if len(places):
            leader = np.argmax(self.g.roles[places] == MUTINEER, axis=1)
            self.mutineers[places, leader] += 1
            self.won[places, leader] += self.g.mutiny[places] == 1

    def result(self, place: int) -> PlayedGame:
        return PlayedGame(
            index=self.games[int(self.game[place])].index,
            scores=tuple(self.g.scores[place].tolist()),
            rounds=int(self.g.round[place]),
            actions=int(self.actions[place]),
            moves=tuple(self.moves[place].tolist()),
            mutineers=tuple(self.mutineers[place].tolist()),
            mutinies_won=tuple(self.won[place].tolist()),
            think=tuple(self.think[place].tolist()),
            seconds=float(self.spent[place]),
            history=self.g.history(place) if self.g.record else None,
        )
