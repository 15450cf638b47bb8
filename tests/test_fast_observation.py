"""The fast observation writer equals the declared layout of the view, entry by entry."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings

from meuterer import Rules
from meuterer.cards import ROLES
from meuterer.fast import FastGame
from meuterer.fast.engine import CHOOSE_ROLE, PLAY, SELL
from meuterer.fast.observation import observation_values, observation_vector, value_names
from meuterer.views import observation_layout, view

from .strategies import seeded_setups
from .test_fast import RULE_SETS


def differences(game: FastGame, player: int | None) -> list[str]:
    """The layout entries where a fast writer (the vector, or the packed values in their
    own order) and the reference view disagree."""
    layout = observation_layout(game.players, game.rules)
    expected = layout.vector(view(game.to_state(), player))
    actual = observation_vector(game, player)
    assert len(actual) == layout.size
    named = dict(zip(value_names(game.players, len(game.ring)), observation_values(game, player), strict=True))
    packed = [named[name] for name in layout.names]
    return [
        f"{name}: {a} != {e}" + ("" if p == e else f" (packed {p})")
        for name, a, p, e in zip(layout.names, actual, packed, expected, strict=True)
        if a != e or p != e
    ]


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
    monkeypatch.setattr(writer, "_LIMIT", 0)
    memos = ("_SEEN", "_SOLD", "_QUEUE_PACKED", "_RING_PACKED")
    for memo in memos:
        monkeypatch.setattr(writer, memo, {})
    monkeypatch.setattr(writer, "_RING_LAST", (None, None, b""))
    assert check_game(3, 4, 1, Rules(ring="shuffled")) > 100
    assert all(len(getattr(writer, memo)) <= 1 for memo in memos)


def test_the_last_ring_is_matched_by_identity() -> None:
    # The writer keeps the ring and active positions it last read (tuples the game replaces,
    # never changes): games with other rings, written in turn, each get their own.
    games = []
    for seed in range(3):
        rng = random.Random(seed)
        game = FastGame.new(3 + seed % 2, 0, Rules(ring="shuffled"))
        while game.is_chance_node():
            game.apply_chance(rng)
        games.append(game)
    assert len({game.ring for game in games}) == 3
    for game in (*games, *reversed(games), *games):
        for player in (None, 0, 1):
            assert differences(game, player) == []
    game = games[0]
    game.active = tuple(reversed(game.active))  # an equal set in a new tuple
    game.ring = tuple(game.ring)  # (a tuple of a tuple is the tuple itself)
    assert differences(game, 0) == []
    game.active = ((game.active[0] + 1) % len(game.ring),)
    assert differences(game, 0) == []


def test_the_role_memo_holds_every_key_it_can_meet() -> None:
    # The role memo's keys: a viewer, the role order (fewer distinct seats than there are
    # players: the captain of the choice does not choose), the roles (distinct; exactly the
    # role order's seats hold one) and two flags (choosing only while the roles are secret).
    # Counted for 3 and 4 seats, they fit under its limit, so it never forgets (and works
    # out again) any; and the games' keys are of that kind.
    import meuterer.fast.observation as writer

    bound = sum(
        math.perm(players, k) * math.perm(len(ROLES), k) * (players + 1) * 3
        for players in (3, 4)
        for k in range(players)
    )
    assert bound < writer._SEEN_LIMIT
    for seed in range(20):
        rng = random.Random(seed)
        game = FastGame.new(4 - seed % 2, seed % 3, RULE_SETS[seed % len(RULE_SETS)])
        while not game.is_terminal():
            order, roles = game.role_order, game.roles
            assert len(set(order)) == len(order) < game.players
            assert [seat for seat, role in enumerate(roles) if role is not None] == sorted(order)
            assert len({roles[seat] for seat in order}) == len(order)
            if game.is_chance_node():
                game.apply_chance(rng)
            else:
                game.apply_at(rng.randrange(len(game.legal_actions())))


def test_the_memos_do_not_go_stale() -> None:
    # Change what the memoised entries read, in place, after they were written: the writer
    # still equals the layout of the view.
    rng = random.Random(5)
    game = FastGame.new(4, 0, Rules(ring="shuffled"))
    while not (game.sales.count(None) == 0 and game.active):
        if game.is_chance_node():
            game.apply_chance(rng)
        else:
            game.apply_at(rng.randrange(len(game.legal_actions())))
    players = (None, *range(4))

    def agree() -> None:
        for player in players:
            assert differences(game, player) == [], player

    agree()
    game.ring = (*game.ring[1:], game.ring[0])  # the sales' islands move
    agree()
    game.active = tuple(sorted({(pos + 1) % len(game.ring) for pos in game.active}))
    agree()
    game.queue[:] = [3, 1, 2]
    agree()
    game.queue.reverse()
    agree()
    first, second = game.role_order[:2]
    roles = list(game.roles)  # (the game replaces its roles, never changes them in place)
    roles[first], roles[second] = roles[second], roles[first]
    game.roles = tuple(roles)
    agree()
    game.role_order = game.role_order[::-1]
    agree()
    game.sales[0], game.sales[1] = game.sales[1], game.sales[0]
    agree()
    game.sales[2] = None
    agree()
    game.hands[1][0] += 1
    game.face_up[2][1] += 1
    game.face_down[3][2] += 1
    game.sizes[1] += 1  # (the sums are the game's to keep, as every move does)
    game.sizes[4 + 3] += 1
    game.face_up_total[1] += 1
    game.passed[0] = not game.passed[0]
    game.scores[1] += 5
    agree()


def test_the_role_entries_follow_the_roles() -> None:
    # The role entries are memoised on the role order, the roles and two flags: games whose
    # roles differ, written in turn, each get their own entries, and so do the same roles
    # in another order or with other flags.
    games = []
    for seed in range(4):
        rng = random.Random(seed)
        game = FastGame.new(4)
        while len(game.role_order) < 1 + seed % 3:
            if game.is_chance_node():
                game.apply_chance(rng)
            else:
                game.apply_at(rng.randrange(len(game.legal_actions())))
        games.append(game)
    assert len({(game.role_order, game.roles) for game in games}) == 4
    for game in (*games, *reversed(games), *games):
        for player in (None, 0, 1, 2, 3):
            assert differences(game, player) == [], player
    game = games[0]
    roles = list(game.roles)
    seat = game.role_order[0]
    roles[seat], roles[(seat + 1) % 4] = roles[(seat + 1) % 4], roles[seat]
    game.roles = tuple(roles)  # a new tuple, other roles
    for player in (None, 0, 1, 2, 3):
        assert differences(game, player) == [], player
    game = games[2]
    assert len(game.role_order) > 1
    for player in (None, 0, 1, 2, 3):
        assert differences(game, player) == [], player
    game.role_order = game.role_order[::-1]  # the same roles tuple, another order
    for player in (None, 0, 1, 2, 3):
        assert differences(game, player) == [], player
    for step in (SELL, CHOOSE_ROLE, PLAY):  # the roles shown, then a seat choosing: the flags change
        game.step = step
        for player in (None, 0, 1, 2, 3):
            game.to_act = 0 if player is None else player
            assert differences(game, player) == [], (step, player)
