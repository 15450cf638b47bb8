"""The fast observation writer equals the declared layout of the view, entry by entry."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

from meuterer import Rules
from meuterer.fast import FastGame
from meuterer.fast.observation import observation_vector
from meuterer.views import observation_layout, view

from .strategies import seeded_setups
from .test_fast import RULE_SETS


def differences(game: FastGame, player: int | None) -> list[str]:
    """The layout entries where the fast writer and the reference view disagree."""
    layout = observation_layout(game.players, game.rules)
    expected = layout.vector(view(game.to_state(), player))
    actual = observation_vector(game, player)
    assert len(actual) == layout.size
    return [f"{name}: {a} != {e}" for name, a, e in zip(layout.names, actual, expected, strict=True) if a != e]


def check_game(seed: int, players: int, first_captain: int, rules: Rules) -> int:
    """Compare every seat's and the spectator's vector at every step of a random game."""
    rng = random.Random(seed)
    game = FastGame.new(players, first_captain, rules)
    checked = 0
    while True:
        for player in (None, *range(players)):
            wrong = differences(game, player)
            assert wrong == [], (seed, game.to_state().step, player, wrong)
            checked += 1
        if game.is_terminal():
            return checked
        if game.is_chance_node():
            game.apply_chance(rng)
        else:
            game.apply_at(rng.randrange(len(game.legal_actions())))


@pytest.mark.parametrize("rules", RULE_SETS, ids=range(len(RULE_SETS)))
@pytest.mark.parametrize("players", [3, 4])
def test_every_entry_equals_the_layout_of_the_view(rules: Rules, players: int) -> None:
    assert sum(check_game(seed, players, seed % players, rules) for seed in range(4)) > 1000


@settings(max_examples=30, deadline=None)
@given(seeded_setups())
def test_equal_under_every_rule_option(setup: tuple[int, int, int, Rules]) -> None:
    check_game(*setup)


def test_a_broken_writer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # The comparison can fail: a writer that forgets what a seat saw when choosing his role.
    import meuterer.fast.observation as writer

    monkeypatch.setattr(writer, "roles_seen", lambda player, order, roles, choosing: None)
    monkeypatch.setattr(writer, "_SEEN", {})
    with pytest.raises(AssertionError, match="roles_seen"):
        check_game(1, 4, 0, Rules())


def test_the_writers_memos_forget_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    import meuterer.fast.observation as writer

    monkeypatch.setattr(writer, "_SEEN_LIMIT", 0)  # forgotten before every entry
    monkeypatch.setattr(writer, "_SEEN", {})
    monkeypatch.setattr(writer, "_POSITIONS", {})
    assert check_game(3, 4, 1, Rules(ring="shuffled")) > 100
    assert len(writer._SEEN) <= 1 and len(writer._POSITIONS) == 1
