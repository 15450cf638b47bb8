"""Leagues and ratings (``meuterer.tournament.rate``, ``meuterer rate``): seat rotation and
duplicate deals, intervals, ratings in a rigged league, the command's outputs, interrupts."""

from __future__ import annotations

import collections
import csv
import importlib.util
import io
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from meuterer.actions import Action, ArrangeRing, Draw
from meuterer.cli import rate as rate_cli
from meuterer.cli.main import main
from meuterer.errors import SetupError
from meuterer.tournament import GameResult, game_seed, ray_available, read_results
from meuterer.tournament.rate import (
    Interval,
    deal_seed,
    league_engine,
    league_games,
    league_seating,
    league_tables,
    mean_interval,
    rate_results,
    run_league,
    share_interval,
)
from meuterer.tournament.run import play_game_result
from meuterer.views import PlayerView

DECK = 36
"""Cards in the goods deck without the pirate card (SPEC: setup, step 3)."""


def _needs(module: str) -> None:
    pytest.importorskip(module, reason=f"{module} is not installed (extra meuterer[rate]; CI installs it)")


def _opening(history: tuple[Action, ...]) -> list[Action]:
    """The chance actions before the first decision: the ring (if shuffled) and the deal."""
    opening: list[Action] = []
    for action in history:
        if not isinstance(action, Draw | ArrangeRing):
            break
        opening.append(action)
    return opening


def _draws(history: tuple[Action, ...]) -> list[object]:
    return [action.card for action in history if isinstance(action, Draw)]


# Seats and deals ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_every_rotation_of_a_deal_is_dealt_the_same_cards(players: int) -> None:
    table = ("greedy", "random", "random", "random")[:players]
    for deal in range(3):
        games = [play_game_result(table, deal * players + r, 11, duplicate=True) for r in range(players)]
        seatings = [result.agents for result, _ in games]
        # the seats rotate: the greedy player holds each seat once
        assert sorted(agents.index("greedy") for agents in seatings) == list(range(players))
        assert {result.seed for result, _ in games} == {game_seed(11, deal)}
        openings = [_opening(history) for _, history in games]
        assert len([a for a in openings[0] if isinstance(a, Draw)]) == 5 * players  # five cards each
        # the same cards to the same seats in every rotation ...
        assert all(opening == openings[0] for opening in openings)
        # ... and the same first deck, card by card, whoever draws it
        assert all(_draws(history)[:DECK] == _draws(games[0][1])[:DECK] for _, history in games)


def test_without_duplicate_deals_the_rotations_are_dealt_different_cards() -> None:
    table = ("greedy", "random", "random", "random")
    openings = [_opening(play_game_result(table, index, 11)[1]) for index in range(4)]
    assert len({tuple(map(str, opening)) for opening in openings}) == 4


def test_deals_differ_from_one_another() -> None:
    table = ("random",) * 4
    openings = {
        tuple(map(str, _opening(play_game_result(table, 4 * deal, 11, duplicate=True)[1]))) for deal in range(5)
    }
    assert len(openings) == 5


class First:
    """Always the first legal action."""

    name = "first"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[0]


class Last:
    """Always the last legal action."""

    name = "last"

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[-1]


def test_a_league_plays_every_table_in_every_rotation_from_one_seed_per_deal() -> None:
    league = run_league(["greedy", "random", First, Last], games=6, players=3, seed=4)
    assert len(league.results) == 12  # rounded up to a round: 4 tables x 3 rotations
    assert league.tables == (
        ("greedy", "random", "first"),
        ("greedy", "random", "last"),
        ("greedy", "first", "last"),
        ("random", "first", "last"),
    )
    for deal in range(4):
        games = league.results[3 * deal : 3 * deal + 3]
        assert {game.seed for game in games} == {game_seed(4, deal)}
        assert {frozenset(game.agents) for game in games} == {frozenset(league.tables[deal])}
        assert sorted(game.agents for game in games) == sorted(
            tuple(league.tables[deal][(seat - r) % 3] for seat in range(3)) for r in range(3)
        )


def test_a_league_gives_the_same_games_with_one_process_or_two() -> None:
    one = run_league(["greedy", "random"], games=6, players=3, seed=8)
    two = run_league(["greedy", "random"], games=6, players=3, seed=8, jobs=2)
    assert two.results == one.results and two.jobs == 2


@pytest.mark.skipif(not ray_available(), reason="ray is not installed (pip install 'meuterer[ray]')")
def test_a_league_on_ray_gives_the_same_games_as_local_processes() -> None:
    import ray

    try:
        on_ray = run_league(["greedy", "random"], games=6, players=3, seed=8, jobs=2, backend="ray")
    finally:
        ray.shutdown()
    local = run_league(["greedy", "random"], games=6, players=3, seed=8)
    assert on_ray.results == local.results and on_ray.backend == "ray"


@pytest.mark.parametrize(("agents", "players"), [(5, 4), (4, 4), (6, 4), (4, 3), (2, 4)])
def test_over_a_round_every_agent_holds_every_seat_equally_often(agents: int, players: int) -> None:
    names = [f"a{k}" for k in range(agents)]
    tables = league_tables(names, players)
    size = league_games(1, players, len(tables))
    held = collections.Counter(
        (label, seat) for index in range(size) for seat, label in enumerate(league_seating(tables, players, index))
    )
    for name in names:  # (the last agent fills several seats when there are fewer agents than seats)
        assert len({held[name, seat] for seat in range(players)}) == 1
    assert {label for label, _ in held} == set(names)
    assert {seat for _, seat in held} == set(range(players))


def test_league_sizes_and_refusals() -> None:
    assert league_games(1, 4, 15) == league_games(60, 4, 15) == 60
    assert league_games(61, 4, 15) == 120
    with pytest.raises(SetupError, match="named once"):
        league_tables(["greedy", "greedy", "random"], 3)
    with pytest.raises(SetupError, match="3 or 4 players"):
        run_league(["greedy"], 3, players=5)
    with pytest.raises(SetupError, match="unknown agent"):
        run_league(["greedy", "clever"], 3, players=3)


# The batch engine --------------------------------------------------------------------------


def test_a_league_of_batched_agents_plays_on_the_batch_engine_when_it_can() -> None:
    batched = importlib.util.find_spec("numpy") is not None
    assert league_engine(["greedy", "random", "policy"]) == ("vector" if batched else "reference")
    assert league_engine(["greedy", "random"], "reference") == "reference"
    assert league_engine(["greedy", First]) == league_engine(["greedy", "ismcts:10"]) == "reference"
    with pytest.raises(SetupError, match="engine is one of"):
        league_engine(["greedy"], "gpu")  # type: ignore[arg-type]
    if batched:
        with pytest.raises(SetupError, match="the batch engine plays random, greedy, policy, not ismcts:10"):
            league_engine(["greedy", "ismcts:10"], "vector")
        # a spec as the registry reads it (case and blanks ignored), its label kept in the results
        league = run_league([" Greedy", "RANDOM"], games=3, players=3, seed=1)
        assert league.engine == "vector" and league.results[0].agents == (" Greedy", "RANDOM", "RANDOM")


def test_without_numpy_the_batch_engine_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("meuterer.tournament.rate.find_spec", lambda name: None)
    assert league_engine(["greedy", "random"]) == "reference"
    with pytest.raises(SetupError, match="the batch engine needs numpy"):
        league_engine(["greedy", "random"], "vector")


def test_a_league_on_the_batch_engine_deals_duplicates_and_is_the_same_however_it_is_split() -> None:
    _needs("numpy")
    league = run_league(["random", "greedy", "policy"], games=12, players=4, seed=6, batch=5)
    assert league.engine == "vector" and len(league.results) == 12
    for deal in range(3):
        games = league.results[4 * deal : 4 * deal + 4]
        assert {game.seed for game in games} == {deal_seed(6, deal, "vector")} != {game_seed(6, deal)}
        assert sorted(game.agents for game in games) == sorted(
            tuple(league.tables[0][(seat - r) % 4] for seat in range(4)) for r in range(4)
        )
        assert all(sum(game.moves) < game.actions and game.rounds >= 1 for game in games)
    assert len({game.scores for game in league.results}) > 3
    for jobs, batch in ((1, 1), (2, 4)):
        again = run_league(["random", "greedy", "policy"], games=12, players=4, seed=6, jobs=jobs, batch=batch)
        assert again.results == league.results
    reference = run_league(["random", "greedy", "policy"], games=12, players=4, seed=6, engine="reference")
    assert reference.engine == "reference" and reference.results[0].seed == game_seed(6, 0)


def test_a_league_resumes_only_the_results_of_its_own_engine() -> None:
    _needs("numpy")
    vector = run_league(["greedy", "random"], games=6, players=3, seed=2)
    resumed = run_league(["greedy", "random"], games=6, players=3, seed=2, done=vector.results[:4])
    assert resumed.results == vector.results
    reference = run_league(["greedy", "random"], games=3, players=3, seed=2, engine="reference")
    with pytest.raises(SetupError, match=r"is not game 0 of this league \(on the batch engine\)"):
        run_league(["greedy", "random"], games=6, players=3, seed=2, done=reference.results)
    with pytest.raises(SetupError, match="batch must be"):
        run_league(["greedy", "random"], games=6, players=3, batch=0)


# Intervals ---------------------------------------------------------------------------------


def test_a_mean_interval_is_the_mean_plus_or_minus_z_standard_errors() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    interval = mean_interval(values)
    half = 1.96 * math.sqrt(2.5) / math.sqrt(5)  # sample variance 2.5
    assert interval.mean == 3.0
    assert interval.low == pytest.approx(3.0 - half)
    assert interval.high == pytest.approx(3.0 + half)
    assert mean_interval(values, z=1.0).high == pytest.approx(3.0 + math.sqrt(0.5))
    assert interval.n == 5


def test_a_share_interval_stays_within_zero_and_one() -> None:
    clipped = mean_interval([0.0, 0.0, 1.0], bounds=(0.0, 1.0))
    assert clipped.low == 0.0 and clipped.high < 1.0
    assert share_interval([0.0, 0.0, 1.0]) == clipped
    assert mean_interval([0.0, 0.0, 1.0]).low < 0


def test_a_share_interval_without_spread_falls_back_to_wilson() -> None:
    never = share_interval([0.0] * 10)
    assert never.mean == never.low == 0.0
    assert never.high == pytest.approx(3.8415 / (10 + 3.8415), rel=1e-3)  # Wilson, no success: z²/(n+z²)
    always = share_interval([1.0] * 10)
    assert always.high == 1.0 and always.low == pytest.approx(1 - never.high)


def test_an_interval_of_fewer_than_two_values_is_the_bounds() -> None:
    assert mean_interval([0.5], bounds=(0.0, 1.0)) == Interval(0.5, 0.0, 1.0, 1)
    one = mean_interval([3.0])
    assert one.data() == {"mean": 3.0, "low": None, "high": None, "n": 1}


def _result(index: int, agents: tuple[str, ...], scores: tuple[int, ...], seed: int = 0) -> GameResult:
    top = max(scores)
    winners = tuple(seat for seat, score in enumerate(scores) if score == top)
    n = len(agents)
    return GameResult(index, seed, agents, 0, scores, winners, 5, 100, (10,) * n, (0,) * n, (0,) * n)


def test_statistics_are_averaged_per_deal_and_count_whole_deals_only() -> None:
    _needs("openskill")
    a, b, c = "a", "b", "c"
    results = [
        # deal 0: a wins twice, shares one tie with b
        _result(0, (a, b, c), (10, 5, 0)),
        _result(1, (c, a, b), (0, 10, 10)),
        _result(2, (b, c, a), (0, 0, 10)),
        # deal 1: b wins every rotation
        _result(3, (a, b, c), (0, 10, 0)),
        _result(4, (c, a, b), (0, 0, 10)),
        _result(5, (b, c, a), (10, 0, 0)),
        # deal 2, incomplete (an interrupted run): left out
        _result(6, (a, b, c), (10, 0, 0)),
    ]
    ratings = rate_results(results, 3, [a, b, c])
    assert (ratings.games, ratings.deals, ratings.left_out) == (6, 2, 1)
    by = {agent.label: agent for agent in ratings.agents}
    assert by[a].wins.mean == pytest.approx((2.5 / 3 + 0) / 2)
    assert by[b].wins.mean == pytest.approx((0.5 / 3 + 1) / 2)
    assert by[c].wins.mean == 0.0
    # a's margins: deal 0: 10 - 2.5, 10 - 5, 10 - 0; deal 1: 0 - 5 three times
    assert by[a].margin.mean == pytest.approx(((7.5 + 5 + 10) / 3 - 5) / 2)
    assert [seat.mean for seat in by[b].seats] == [0.5, 0.5, 0.75]
    assert [seat.mean for seat in ratings.seats] == [pytest.approx(1 / 3), pytest.approx(0.25), pytest.approx(5 / 12)]
    assert sum(a.games for a in ratings.agents) == 18


# Ratings -----------------------------------------------------------------------------------


def test_ratings_rank_a_strong_agent_above_random_players() -> None:
    _needs("openskill")
    league = run_league(["greedy", "random"], games=40, players=4, seed=3)
    ratings = league.ratings()
    greedy, random_ = ratings.agents  # best rated first
    assert (greedy.label, random_.label) == ("greedy", "random")
    assert greedy.mu > 25 > random_.mu  # both moved away from the prior, the right way
    assert greedy.ordinal > random_.ordinal
    assert greedy.wins.low > 0.25 > random_.wins.mean  # par is 1/4
    assert greedy.wins.low > random_.wins.high
    assert greedy.margin.low > 0 > random_.margin.high
    assert greedy.games == 40 and random_.games == 120
    assert greedy.ms_per_move is not None and greedy.ms_per_move > 0


def test_a_rating_follows_the_results_not_the_names() -> None:
    """The same games with the names swapped swap the ratings: the rating comes from the results."""
    _needs("openskill")
    strong = [_result(i, ("x", "y", "z"), (10, 0, 0), seed=i // 3) for i in range(30)]
    ratings = {agent.label: agent for agent in rate_results(strong, 3, ["x", "y", "z"]).agents}
    swapped = [_result(r.index, ("y", "x", "z"), r.scores) for r in strong]
    again = {agent.label: agent for agent in rate_results(swapped, 3, ["x", "y", "z"]).agents}
    assert ratings["x"].mu > ratings["y"].mu
    assert again["y"].mu == pytest.approx(ratings["x"].mu)
    assert again["x"].mu == pytest.approx(ratings["y"].mu)


def test_rate_results_without_openskill_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openskill.models", None)  # import openskill.models fails
    with pytest.raises(SetupError, match=r"the rate extra"):
        rate_results([_result(0, ("x", "y", "z"), (1, 0, 0))] * 3, 3)


# The command -------------------------------------------------------------------------------


ARGS = ["rate", "--agents", "greedy,random", "--players", "3", "-n", "6", "--seed", "5", "--no-progress"]


def test_the_command_prints_the_tables_and_writes_csv_json_and_a_plot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs("openskill")
    _needs("matplotlib")
    _needs("numpy")
    paths = {name: tmp_path / name for name in ("games.csv", "ratings.csv", "ratings.json", "plot.png")}
    common = [*ARGS, "--baseline", "300", "--out", str(paths["games.csv"])]
    assert main([*common, "--table", str(paths["ratings.csv"]), "--plot", str(paths["plot.png"])]) == 0
    printed = capsys.readouterr().out
    assert "League of 2 agents, 3 players: 6 games (2 deals x 3 rotations); seed 5" in printed
    assert "Per agent" in printed and "Per seat" in printed and "random players (300 games)" in printed
    rows = list(csv.DictReader(io.StringIO(paths["ratings.csv"].read_text())))
    assert [row["agent"] for row in rows] == ["greedy", "random"]
    assert {"wins", "wins_low", "wins_high", "margin", "mu", "sigma", "ordinal", "wins_p0", "wins_p2"} <= set(rows[0])
    assert float(rows[0]["wins_low"]) <= float(rows[0]["wins"]) <= float(rows[0]["wins_high"])
    assert paths["plot.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    games = read_results(io.StringIO(paths["games.csv"].read_text()), "csv")
    assert sorted(game.index for game in games) == list(range(6))

    assert main([*common, "--resume", "--table", str(paths["ratings.json"]), "--baseline", "0"]) == 0
    data = json.loads(paths["ratings.json"].read_text())
    assert (data["players"], data["games"], data["deals"], data["baseline"]) == (3, 6, 2, [])
    assert [agent["agent"] for agent in data["agents"]] == ["greedy", "random"]
    assert data["agents"][0]["games"] == 6 and len(data["agents"][0]["seats"]) == 3
    assert data["agents"][0]["ms_per_move"] is None  # results read back have no timings
    assert "Resumed: 6 games of this league were already in" in capsys.readouterr().out


def test_the_command_refuses_what_it_cannot_do(capsys: pytest.CaptureFixture[str]) -> None:
    _needs("openskill")
    assert main(["rate", "--agents", "greedy,greedy,random", "--no-progress"]) == 2
    assert "named once" in capsys.readouterr().err
    assert main(["rate", "-n", "0"]) == 2
    assert main(["rate", "--resume"]) == 2
    assert "--resume needs --out" in capsys.readouterr().err


def _interrupt_after(count: int) -> Callable[..., Any]:
    real = run_league

    def league(*args: Any, on_result: Callable[[GameResult], None], **kwargs: Any) -> Any:
        seen = [0]

        def keep(result: GameResult) -> None:
            on_result(result)
            seen[0] += 1
            if seen[0] == count:
                raise KeyboardInterrupt

        return real(*args, on_result=keep, **kwargs)

    return league


@pytest.mark.parametrize("engine", ["reference", "vector"])
def test_an_interrupted_league_keeps_its_games_and_resumes_to_the_same_results(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs("openskill")
    if engine == "vector":
        _needs("numpy")
    out = tmp_path / "games.jsonl"
    args = [*ARGS, "--baseline", "0", "--out", str(out), "--engine", engine]
    with monkeypatch.context() as patch:
        patch.setattr(rate_cli, "run_league", _interrupt_after(4))
        assert main(args) == 130
    printed = capsys.readouterr().out
    assert "Interrupted: 4 of 6 games finished." in printed
    kept = read_results(io.StringIO(out.read_text()), "jsonl")
    assert len(kept) == 4
    if engine == "reference":  # one game at a time, in order (the batch engine's end as they end)
        assert "Left out: 1 game of a deal not played in every rotation." in printed
        assert sorted(game.index for game in kept) == [0, 1, 2, 3]
    assert main([*args, "--resume"]) == 0
    assert f"{'batch' if engine == 'vector' else 'reference'} engine" in capsys.readouterr().out
    resumed = sorted(read_results(io.StringIO(out.read_text()), "jsonl"), key=lambda r: r.index)
    whole = run_league(["greedy", "random"], 6, players=3, seed=5, engine=engine).results  # type: ignore[arg-type]
    assert resumed == list(whole)


def test_the_command_says_what_is_missing_or_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _needs("openskill")
    out = tmp_path / "games.jsonl"
    assert main([*ARGS, "--baseline", "0", "--out", str(out)]) == 0
    assert main([*ARGS, "--baseline", "0", "--out", str(out)]) == 2  # exists: --resume or --force
    assert "--resume, or replace it with --force" in capsys.readouterr().err
    other_seed = ["6" if arg == "5" else arg for arg in ARGS]  # --seed 6 instead of 5
    assert main([*other_seed, "--baseline", "0", "--out", str(out), "--resume"]) == 2
    assert "is not game 0 of this league" in capsys.readouterr().err
    if Path("/dev/full").exists():
        assert main([*ARGS, "--baseline", "0", "--out", "/dev/full", "--force"]) == 1
        assert "cannot write" in capsys.readouterr().err
    real = importlib.util.find_spec
    monkeypatch.setattr("meuterer.cli.rate.find_spec", lambda name: None if name == "matplotlib" else real(name))
    assert main([*ARGS, "--plot", str(tmp_path / "p.png")]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err
    monkeypatch.setattr("meuterer.cli.rate.find_spec", lambda name: None)
    assert main(ARGS) == 2
    assert 'ratings need openskill (the rate extra: pip install ".[rate]"' in capsys.readouterr().err


def test_the_library_refuses_bad_leagues_and_missing_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    from meuterer.tournament.rate import plot_ratings, seat_baseline

    with pytest.raises(SetupError, match="games must be"):
        run_league(["greedy", "random"], 0, players=3)
    with pytest.raises(SetupError, match="backend"):
        run_league(["greedy", "random"], 3, players=3, backend="cloud")  # type: ignore[arg-type]
    assert run_league(["greedy", "random"], 3, players=3).seed >= 0  # a random seed, kept
    monkeypatch.setitem(sys.modules, "meuterer.vector", None)
    with pytest.raises(SetupError, match=r"the vector extra"):
        seat_baseline(10)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(SetupError, match=r"the rate extra"):
        plot_ratings(None, "x.png")  # type: ignore[arg-type]
