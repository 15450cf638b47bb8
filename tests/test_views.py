"""Hidden information: per-player views, redacted records, determinisation.

What a view holds is checked against SPEC section 6 item by item (completeness). What it
must not hold is checked by non-interference: states or histories that differ only in
what a player cannot know give him equal views, byte-equal serialisations and equal
redacted records. Sampled states are checked against the exact distribution with a
chi-square bound on cases small enough to enumerate.
"""

from __future__ import annotations

import doctest
import gc
import json
import math
import random
import types
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import Action, Card, ChooseRole, Draw, FormatError, Game, IllegalActionError, Role, Rules, State, Step
from meuterer.cards import CARDS, EMPTY, ROLES, Counts, plus
from meuterer.invariants import check_state
from meuterer.record import make_record
from meuterer.redact import (
    HiddenDraw,
    HiddenRole,
    RedactedRecord,
    Seen,
    dumps_redacted,
    loads_redacted,
    parse_seen,
    redact,
    replay_views,
)
from meuterer.views import (
    HIDDEN_FIELDS,
    PRIVATE_FIELDS,
    PUBLIC_FIELDS,
    ROLES_SECRET,
    STEP_CODES,
    PlayerView,
    ViewError,
    dumps_view,
    loads_view,
    observation_layout,
    observation_names,
    observation_text,
    observation_vector,
    sample_state,
    unstructure_view,
    view,
)
from tests.helpers import deal_script
from tests.strategies import GameSetup, game_setups, walk

GAMES = settings(max_examples=15, deadline=None)
Setup = GameSetup


def viewers(players: int) -> list[int | None]:
    """Every seat and the spectator."""
    return [None, *range(players)]


def total(*piles: Counts) -> Counts:
    result = EMPTY
    for pile in piles:
        result = plus(result, pile)
    return result


def contains(big: Counts, small: Counts) -> bool:
    return all(b >= s for b, s in zip(big, small, strict=True))


# A small scripted position ----------------------------------------------------------------
#
# Four players, a 24-card deck of 18 grain and 6 support cards. Phase 2 of round 1: p2
# passed first (mate), p1 second (merchant), p3 third (mutineer); p0, the captain, still
# holds one card and is to act. p1 has not seen ten cards: p0's hand (1), p2's and p3's
# face-down cards (3 and 2) and the deck (4); five of them are supports.

SMALL = Rules(deck=(0, 0, 0, 0, 18, 6, 0))
SMALL_HANDS = (
    "grain grain grain grain support",
    "grain grain grain grain support",
    "grain grain grain grain support",
    "grain grain grain grain grain",
)
SMALL_SCRIPT = (
    "p0 offer 0",
    *["p0 play grain", "p1 play grain", "p2 play grain", "p3 play grain"] * 2,
    *["p0 play grain", "p1 play grain", "p2 pass", "p2 role mate", "p3 play grain"],
    *["p0 play grain", "p1 pass", "p1 role merchant", "p3 pass", "p3 role mutineer"],
)


def small_game() -> Game:
    return Game.replay([*deal_script(SMALL_HANDS), *SMALL_SCRIPT], 4, 0, SMALL)


def small_position() -> State:
    return small_game().state


# The field classification ----------------------------------------------------------------


def test_every_state_field_is_public_private_or_hidden() -> None:
    fields = [f.name for f in attrs.fields(State)]
    classified = [*PUBLIC_FIELDS, *PRIVATE_FIELDS, *HIDDEN_FIELDS]
    assert sorted(classified) == sorted(fields), "a new State field must be classified in meuterer.views"
    view_fields = {f.name for f in attrs.fields(PlayerView)}
    assert set(PUBLIC_FIELDS) <= view_fields
    assert not (set(PRIVATE_FIELDS) - {"face_down", "drawn", "roles"}) & view_fields
    assert "deck" not in view_fields and "hands" not in view_fields


def test_every_step_has_a_fixed_observation_code() -> None:
    assert set(STEP_CODES) == set(Step)
    assert sorted(STEP_CODES.values()) == list(range(len(Step)))


# Completeness: every item of SPEC section 6 the player may know is in his view -----------


def check_complete(state: State, player: int | None, v: PlayerView, chose_from: Mapping[int, tuple[Role, ...]]) -> None:
    """``chose_from``: the roles each seat could choose from (his legal role choices) this
    round, for the seats that have had to choose (an oracle kept by the caller's walk)."""
    n = state.players
    others = [seat for seat in range(n) if seat != player]
    # Public (SPEC section 6), item by item.
    assert v.captain == state.captain, "the captain"
    assert v.offer == state.offer, "his offer"
    assert v.face_up == state.face_up, "all face-up cards"
    assert v.face_down_sizes == tuple(map(sum, state.face_down)), "the number of face-down cards of each player"
    assert v.passed == state.passed, "who has passed"
    assert v.hand_sizes == tuple(map(sum, state.hands)), "hand sizes"
    assert v.deck_size == sum(state.deck), "the deck size"
    assert sum(v.discard) == sum(state.discard), "the discard pile's size"
    assert v.discard == state.discard, "the discard pile's content"
    assert v.start == state.start, "the merchant ship's position"
    assert v.pirate == state.pirate, "the pirate ship's position"
    assert v.captain_destination == state.captain_destination, "the captain's destination"
    assert v.mutineer_destination == state.mutineer_destination, "the mutineer's destination"
    if state.step not in ROLES_SECRET:
        assert v.roles == state.roles, "revealed roles"
    assert v.scores == state.scores, "scores"
    for name in PUBLIC_FIELDS:  # whose turn, sales, the ring, the mutiny's outcome, ...
        assert getattr(v, name) == getattr(state, name), name
    assert v.drawn_count == sum(state.drawn), "how many cards the drawing player has drawn"
    # Private to the viewer.
    if player is None:
        assert (v.hand, v.face_down, v.drawn, v.roles_seen) == (EMPTY, EMPTY, EMPTY, None)
    else:
        assert v.hand == state.hands[player], "his hand"
        assert v.face_down == state.face_down[player], "his face-down cards"
        assert v.roles[player] == state.roles[player] == v.role, "his role (also before phase 3)"
        assert v.roles_seen == chose_from.get(player), "the roles he saw when choosing"
        if state.to_act == player and state.step in (Step.DEAL, Step.DRAW, Step.LOADMASTER_DISCARD):
            assert v.drawn == state.drawn, "the cards he drew this turn"
        else:
            assert v.drawn == EMPTY
    # Nothing more: before the reveal no other role; the unseen cards only as one pile.
    if state.step in ROLES_SECRET:
        assert all(v.roles[seat] is None for seat in others)
    hidden = [state.deck, *(state.hands[s] for s in others), *(state.face_down[s] for s in others)]
    assert v.unseen == total(*hidden), "the unseen cards: deck and the others' hands and face-down cards"


@pytest.mark.rule("hidden.discard", "hidden.roles")
@GAMES
@given(game_setups())
def test_a_view_holds_every_public_item_and_the_players_own(setup: Setup) -> None:
    players = setup[1]
    # The roles a player saw are exactly the roles he could choose from (his legal role
    # choices when he had to choose), and he keeps knowing them until the roles return.
    chose_from: dict[int, tuple[Role, ...]] = {}
    for _, _, after in walk(*setup):
        if after.step is Step.CHOOSE_ROLE:
            choices = tuple(a.role for a in meuterer.legal_actions(after) if isinstance(a, ChooseRole))
            chose_from[after.to_act] = choices
        if not after.role_order and after.step is not Step.CHOOSE_ROLE:
            chose_from.clear()
        for player in viewers(players):
            check_complete(after, player, view(after, player), chose_from)


def test_the_view_of_a_scripted_position() -> None:
    state = small_position()
    mine = view(state, 1)
    assert mine.hand == EMPTY and mine.face_down == state.face_down[1]
    assert mine.roles == (None, Role.MERCHANT, None, None) and mine.role is Role.MERCHANT
    assert mine.roles_seen == (Role.MUTINEER, Role.CABIN_BOY, Role.MERCHANT, Role.LOADMASTER)
    assert mine.unseen == (0, 0, 0, 0, 5, 5, 0) and mine.deck_size == 4
    assert view(state, 2).roles_seen == ROLES  # he chose first
    assert view(state, 3).roles_seen == (Role.MUTINEER, Role.CABIN_BOY, Role.LOADMASTER)  # he chose last
    assert view(state, 0).roles_seen is None and view(state, 0).roles == (None,) * 4
    spectator = view(state, None)
    assert spectator.unseen == (0, 0, 0, 0, 6, 6, 0) and spectator.hand == EMPTY


def test_a_view_is_of_a_seat_or_the_spectator() -> None:
    state = meuterer.new_game(3)
    for bad in (3, -1, True, "1"):
        with pytest.raises(ViewError):
            view(state, bad)  # type: ignore[arg-type]


# Non-interference: what a player cannot know does not change his view ---------------------


def check_sample(state: State, player: int | None, v: PlayerView, rng: random.Random) -> State:
    other = sample_state(v, rng)
    assert view(other, player) == v
    assert dumps_view(view(other, player)).encode() == dumps_view(v).encode()
    assert observation_vector(view(other, player)) == observation_vector(v)
    # The engine's invariants hold: shapes, ranges, card conservation...
    check_state(other)
    assert tuple(map(sum, other.hands)) == tuple(map(sum, state.hands))
    assert tuple(map(sum, other.face_down)) == tuple(map(sum, state.face_down))
    assert sum(other.deck) == sum(state.deck) and sum(other.drawn) == sum(state.drawn)
    assert contains(other.hands[other.to_act], other.drawn)
    # ...one distinct role for each player who chose, none for the others.
    chosen = [other.roles[seat] for seat in other.role_order]
    assert None not in chosen and len(set(chosen)) == len(chosen)
    assert all(other.roles[seat] is None for seat in range(other.players) if seat not in other.role_order)
    # The player to decide has the same choices, whatever the others hold.
    if player is not None and meuterer.current_player(state) == player:
        assert tuple(meuterer.legal_actions(other)) == tuple(meuterer.legal_actions(state))
        assert tuple(meuterer.legal_actions(v)) == tuple(meuterer.legal_actions(state))
    else:
        assert meuterer.legal_actions(v) == ()
    return other


@GAMES
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_a_sampled_state_gives_the_same_view_byte_for_byte(setup: Setup, seed: int) -> None:
    rng = random.Random(seed)  # the samples' randomness (the game itself shrinks)
    players = setup[1]
    for state, action, _ in walk(*setup):
        for player in viewers(players):
            other = check_sample(state, player, view(state, player), rng)
            # The sample is a state the game can go on from.
            if meuterer.is_chance_node(other):
                meuterer.apply(other, meuterer.sample_chance(other, rng))
            elif not meuterer.is_terminal(other):
                meuterer.apply(other, rng.choice(meuterer.legal_actions(other)))
            if action.player == player and not isinstance(action, Draw | meuterer.ArrangeRing):
                meuterer.apply(other, action)  # the viewer's own decision fits every sample


def hidden_variants(actions: tuple[Action, ...], player: int | None) -> Iterator[list[Action]]:
    """Histories that differ from ``actions`` only in what ``player`` cannot see: two draws
    of other players exchanged (legal or not: later plays may need the cards)."""
    draws = [i for i, a in enumerate(actions) if isinstance(a, Draw) and a.player != player]
    tried = 0
    for j in reversed(draws):  # the latest draws are the likeliest to be still unseen
        for i in reversed([i for i in draws if i < j]):
            first, second = actions[i], actions[j]
            assert isinstance(first, Draw) and isinstance(second, Draw)
            if first.card == second.card:
                continue
            alt = list(actions)
            alt[i], alt[j] = Draw(first.player, second.card), Draw(second.player, first.card)
            yield alt
            tried += 1
            if tried >= 25:
                return


def role_variants(actions: tuple[Action, ...], final: State, player: int | None) -> Iterator[list[Action]]:
    """This round's secret role choices of two other players exchanged, when the viewer
    did not choose between them (so the centre he saw is the same)."""
    if final.step not in ROLES_SECRET or len(final.role_order) < 2:
        return
    indices = [i for i, a in enumerate(actions) if isinstance(a, ChooseRole)][-len(final.role_order) :]
    order = final.role_order
    mine = order.index(player) if player in order else len(order)
    for x, y in combinations(range(len(order)), 2):
        if player in (order[x], order[y]) or (x < mine < y):
            continue
        alt = list(actions)
        a, b = actions[indices[x]], actions[indices[y]]
        assert isinstance(a, ChooseRole) and isinstance(b, ChooseRole)
        alt[indices[x]], alt[indices[y]] = ChooseRole(a.player, b.role), ChooseRole(b.player, a.role)
        yield alt


def replayable(actions: list[Action], players: int, captain: int, rules: Rules) -> Game | None:
    try:
        return Game.replay(actions, players, captain, rules)
    except IllegalActionError:
        return None


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.large_base_example]
)
@given(game_setups(), st.integers(1, 100), st.integers(-1, 3))
def test_histories_that_differ_only_in_hidden_cards_and_roles_look_the_same(
    setup: Setup, percent: int, seat: int
) -> None:
    everything, players, captain, rules = setup
    player = None if seat < 0 else seat % players
    actions = tuple(everything[: max(1, len(everything) * percent // 100)])
    game = Game.replay(actions, players, captain, rules)
    found: list[Game] = []
    for alt in [*role_variants(actions, game.state, player), *hidden_variants(actions, player)]:
        other = replayable(alt, players, captain, rules)
        if other is not None:
            found.append(other)
        if len(found) >= 2:
            break
    assume(found)
    mine = redact(make_record(game, digests=False), player)
    for other in found:
        assert any(a != b for a, b in zip(game.states, other.states, strict=True)), "the histories differ"
        theirs = redact(make_record(other, digests=False), player)
        assert theirs == mine
        assert dumps_redacted(theirs).encode() == dumps_redacted(mine).encode()
        for a, b in zip(game.states, other.states, strict=True):
            assert view(a, player) == view(b, player)
            assert dumps_view(view(a, player)).encode() == dumps_view(view(b, player)).encode()


def test_a_hidden_draw_exchanged_between_two_others_is_invisible_to_a_third() -> None:
    game = small_game()
    actions = list(game.actions)
    # p2's fifth card (support) and p3's first (grain) change places: p2 lays down three
    # grain instead of support and two grain, p3 two grain... and a support, unseen by p1.
    i, j = 14, 15
    assert str(actions[i]) == "draw p2 support" and str(actions[j]) == "draw p3 grain"
    actions[i], actions[j] = Draw(2, Card.GRAIN), Draw(3, Card.SUPPORT)
    other = Game.replay(actions, 4, 0, SMALL)
    assert other.state != game.state
    assert view(other.state, 1) == view(game.state, 1)
    assert view(other.state, 2) != view(game.state, 2)  # p2 himself sees the difference
    assert redact(make_record(other), 1) == redact(make_record(game), 1)
    assert redact(make_record(other), 3) != redact(make_record(game), 3)


@pytest.mark.rule("hidden.roles")
def test_secret_roles_exchanged_between_two_others_are_invisible_unless_one_chose_between_them() -> None:
    game = small_game()  # p2 took mate, then p1 merchant, then p3 mutineer
    actions = list(game.actions)
    i, j = actions.index(ChooseRole(2, Role.MATE)), actions.index(ChooseRole(3, Role.MUTINEER))
    actions[i], actions[j] = ChooseRole(2, Role.MUTINEER), ChooseRole(3, Role.MATE)
    other = Game.replay(actions, 4, 0, SMALL)
    for player in (None, 0):  # the spectator and the captain saw no centre
        assert redact(make_record(other), player) == redact(make_record(game), player)
        assert [view(s, player) for s in other.states] == [view(s, player) for s in game.states]
    # p1 chose in between: the centre he saw differs (mutineer gone, not mate).
    assert view(other.state, 1).roles_seen != view(game.state, 1).roles_seen
    assert redact(make_record(other), 1) != redact(make_record(game), 1)
    for player in (2, 3):  # and each of the two knows his own role
        assert view(other.state, player) != view(game.state, player)


# Undo and replay ---------------------------------------------------------------------------


@GAMES
@given(game_setups())
def test_undo_redo_and_replay_never_bring_back_hidden_information(setup: Setup) -> None:
    everything, players, captain, rules = setup
    game = Game.new(players, captain, rules)
    seats = viewers(players)
    history = [{p: view(game.state, p) for p in seats}]
    for action in everything:
        before = {p: view(game.state, p) for p in seats}
        game.push(action)
        after = {p: view(game.state, p) for p in seats}
        game.pop()
        assert {p: view(game.state, p) for p in seats} == before
        game.redo()
        assert {p: view(game.state, p) for p in seats} == after
        history.append(after)
    replayed = Game.replay(game.actions, players, captain, rules)
    assert [{p: view(s, p) for p in seats} for s in replayed.states] == history


def test_an_undone_draw_leaves_no_trace_in_views_or_redacted_records() -> None:
    game = small_game()
    while not meuterer.is_chance_node(game.state):
        game.pop()  # back before the last draw of the deal
    clean = Game.replay(game.actions, 4, 0, SMALL)
    game.push("draw p3 support")  # a card the real deal did not give him ...
    game.pop()  # ... taken back
    assert view(game.state, 1) == view(clean.state, 1)
    assert redact(make_record(game), 1) == redact(make_record(clean), 1)


def reachable(root: object) -> Iterator[object]:
    """Every object reachable from ``root`` through containers and meuterer instances."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, type | types.ModuleType | types.FunctionType):
            continue
        stack.extend(gc.get_referents(item))


def test_a_view_keeps_no_reference_to_the_state() -> None:
    game = small_game()
    for player in viewers(4):
        v = view(game.state, player)
        assert not any(isinstance(item, State) for item in reachable(v))
    assert any(isinstance(item, State) for item in reachable([game.state]))  # the walk does find states


# Redacted records ------------------------------------------------------------------------


@GAMES
@given(game_setups(), st.integers(0, 100))
def test_a_redacted_record_replays_into_the_players_views(setup: Setup, percent: int) -> None:
    everything, players, captain, rules = setup
    game = Game.replay(everything[: len(everything) * percent // 100], players, captain, rules)
    record = make_record(game)
    for player in viewers(players):
        mine = redact(record, player)
        assert loads_redacted(dumps_redacted(mine)) == mine
        assert replay_views(mine) == tuple(view(state, player) for state in game.states)
        for action, seen, before, after in zip(
            record.actions, mine.actions, game.states[:-1], game.states[1:], strict=True
        ):
            own = action.player == player
            if isinstance(action, Draw):
                assert seen.action == (action if own else HiddenDraw(action.player))
            elif isinstance(action, ChooseRole):
                assert seen.action == (action if own else HiddenRole(action.player))
            else:
                assert seen.action == action
            revealed = before.step in ROLES_SECRET and after.step not in ROLES_SECRET
            assert (seen.reveal == after.roles) if revealed else seen.reveal is None
            if seen.centre is not None:
                assert player is not None and action == meuterer.Pass(player)
                assert seen.centre == tuple(r for r in ROLES if r not in after.roles)
        assert mine.result == record.result
        assert "digests" not in json.loads(dumps_redacted(mine))


def test_the_redacted_record_of_a_scripted_round() -> None:
    game = small_game()
    game.push("p0 pass")  # the last to pass: the roles are revealed
    mine = redact(make_record(game), 1)
    lines = [str(seen) for seen in mine.actions]
    assert lines[:5] == ["draw p0 ?"] * 5
    assert lines[5:10] == [f"draw p1 {card}" for card in SMALL_HANDS[1].split()]
    assert lines[-11:] == [
        "p0 play grain",
        "p1 play grain",
        "p2 pass",
        "p2 role ?",
        "p3 play grain",
        "p0 play grain",
        "p1 pass; centre mutineer,cabin_boy,merchant,loadmaster",
        "p1 role merchant",
        "p3 pass",
        "p3 role ?",
        "p0 pass; reveal p1:merchant,p2:mate,p3:mutineer",
    ]
    spectator = redact(make_record(game), None)
    assert [str(seen) for seen in spectator.actions][-5:] == [
        "p1 pass",
        "p1 role ?",
        "p3 pass",
        "p3 role ?",
        "p0 pass; reveal p1:merchant,p2:mate,p3:mutineer",
    ]
    data = json.loads(dumps_redacted(mine))
    assert data["format"] == {"name": "meuterer-redacted-record", "version": 1}
    assert data["viewer"] == 1 and data["players"] == ["p0", "p1", "p2", "p3"]


def test_seen_entries_round_trip_and_only_the_canonical_form_is_read() -> None:
    for text in (
        "draw p1 ?",
        "p2 role ?",
        "draw p0 grain",
        "p1 pass; centre mutineer,mate,merchant,loadmaster",
        "p3 role ?; reveal p1:mutineer,p2:mate,p3:merchant",
        "p0 pass; reveal p1:cabin_boy,p2:loadmaster",
    ):
        assert str(parse_seen(text, 4)) == text
    for bad in (
        "draw p1 ?grain",
        "p1 play ?",
        "draw p4 ?",
        "draw p3 ?",  # three players
        "p1 role ?; reveal p1:captain",
        "p1 pass; centre mate,,merchant",
        "p0 pass; reveal p2:mate,p1:mutineer",  # not in seat order
        "p1 pass;  centre mate",
        "p1 pass; secret",
    ):
        with pytest.raises(FormatError):
            parse_seen(bad, 3)


def test_reading_a_redacted_record_names_the_bad_path() -> None:
    game = small_game()
    text = dumps_redacted(redact(make_record(game), 1))
    cases = {
        "$.format": text.replace("meuterer-redacted-record", "meuterer-record"),
        "$.viewer": text.replace('"viewer": 1', '"viewer": 7'),
        "$.actions[0]": text.replace('"draw p0 ?"', '"draw p0 support?"', 1),
        "$": text.replace('"viewer": 1', '"viewer": 1, "digests": []'),
    }
    for path, bad in cases.items():
        with pytest.raises(FormatError) as error:
            loads_redacted(bad)
        assert error.value.path == path
    with pytest.raises(FormatError):
        loads_redacted("[]")


def test_replaying_a_forged_redacted_record_fails() -> None:
    game = small_game()
    game.push("p0 pass")
    mine = redact(make_record(game), 1)
    no_reveal = attrs.evolve(mine, actions=(*mine.actions[:-1], Seen(mine.actions[-1].action)))
    with pytest.raises(IllegalActionError):
        replay_views(no_reveal)
    cheating = attrs.evolve(mine, actions=(*mine.actions[:5], Seen(Draw(1, Card.RUBY)), *mine.actions[6:]))
    with pytest.raises(IllegalActionError):
        replay_views(cheating)  # no ruby in this deck
    own_hidden = attrs.evolve(mine, actions=(*mine.actions[:5], Seen(HiddenDraw(1)), *mine.actions[6:]))
    with pytest.raises(IllegalActionError):
        replay_views(own_hidden)  # his own draws are not hidden from him
    assert isinstance(mine, RedactedRecord)


# Serialisation and observations ----------------------------------------------------------


@GAMES
@given(game_setups())
def test_views_serialise_and_observe_with_a_fixed_layout(setup: Setup) -> None:
    players = setup[1]
    names = observation_names(players)
    assert len(set(names)) == len(names) == 80 + 21 * players
    layout = observation_layout(players, setup[3])
    assert layout.names == names
    for _, _, state in walk(*setup):
        for player in viewers(players):
            v = view(state, player)
            back = loads_view(dumps_view(v))
            assert back == v and hash(back) == hash(v)
            assert dumps_view(v) == json.dumps(unstructure_view(v), sort_keys=True, separators=(",", ":"))
            vector = observation_vector(v)
            assert len(vector) == len(names) and all(type(x) is int for x in vector)
            assert vector == layout.vector(v)
            assert all(low <= x <= high for low, x, high in zip(layout.low, vector, layout.high, strict=True))
            if player == state.to_act:  # the encoding: in [0, 1], one 1.0 per category
                encoded = layout.encode(v)
                assert len(encoded) == layout.encoded_size and all(0.0 <= x <= 1.0 for x in encoded)
                hot: Counter[str] = Counter()
                for name, x in zip(layout.encoded_names, encoded, strict=True):
                    if "=" in name:
                        hot[name.split("=")[0]] += int(x == 1.0)
                assert set(hot.values()) == {1} and len(hot) == sum(layout.categorical)
            entry = dict(zip(names, vector, strict=True))
            assert entry["viewer"] == (-1 if player is None else player)
            assert entry["deck_size"] == sum(state.deck) and entry["round"] == state.round
            assert [entry[f"unseen.{c}"] for c in CARDS] == list(v.unseen)
            assert [entry[f"hand.{c}"] for c in CARDS] == list(v.hand)
            for seat in range(players):
                role = v.roles[seat]
                assert entry[f"p{seat}.role"] == (-1 if role is None else int(role))
                assert entry[f"p{seat}.hand_size"] == sum(state.hands[seat])
                assert entry[f"p{seat}.score"] == state.scores[seat]


def test_the_observation_text_of_the_scripted_position() -> None:
    mine = view(small_position(), 1)
    assert observation_text(mine) == (
        "view of p1, 4 players, round 1, phase 2 play: p0 to act\n"
        "captain p0, offer 0; ship at hochland; active hochland\n"
        "deck 4; discard -; unseen grain grain grain grain grain support support support support support\n"
        "you: hand -; face down grain support; centre when choosing mutineer cabin_boy merchant loadmaster\n"
        "  p0; captain; hand 1; face up grain grain grain grain; score 0\n"
        "  p1 (you); merchant; hand 0; face up grain grain grain; passed, face down 2; score 0\n"
        "  p2; role ?; hand 0; face up grain grain; passed, face down 3; score 0\n"
        "  p3; role ?; hand 0; face up grain grain grain; passed, face down 2; score 0\n"
    )
    assert "mate" not in observation_text(view(small_position(), None))


def test_a_forged_view_cannot_be_completed() -> None:
    mine = view(small_position(), 1)
    with pytest.raises(ViewError):
        sample_state(attrs.evolve(mine, unseen=(0, 0, 0, 0, 5, 6, 0)), random.Random(0))
    with pytest.raises(ViewError):
        sample_state(attrs.evolve(mine, roles_seen=ROLES), random.Random(0))


# The distribution of sampled states ------------------------------------------------------

# Upper 0.1% points of the chi-square distribution (any statistics table), by degrees of freedom.
CHI2_999 = {
    **{1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 8: 26.124},
    **{9: 27.877, 10: 29.588, 11: 31.264, 12: 32.909, 59: 98.324, 65: 105.988},
}


def chi_square(counts: Mapping[Any, int], exact: Mapping[Any, float], samples: int) -> tuple[float, int]:
    """The statistic and its degrees of freedom; a sample outside the support is infinite."""
    if set(counts) - set(exact):
        return math.inf, len(exact) - 1
    statistic = sum((counts.get(key, 0) - samples * p) ** 2 / (samples * p) for key, p in exact.items())
    return statistic, len(exact) - 1


def hidden_key(state: State) -> Hashable:
    return (state.hands, state.face_down, state.deck, state.drawn, state.roles)


def exact_completions(state: State, player: int) -> dict[Hashable, float]:
    """The exact law of the hidden part, by enumeration: every arrangement of the unseen
    cards (two kinds here: the positions of the supports in a row cut into the hidden
    places) is equally likely; independently, every role assignment that gives the same
    view is equally likely."""
    v = view(state, player)
    kinds = [c for c in CARDS if v.unseen[c]]
    assert len(kinds) == 2, "the enumeration handles two kinds of unseen cards"
    size = sum(v.unseen)
    others = [seat for seat in range(state.players) if seat != player]
    places = [("hand", s, v.hand_sizes[s]) for s in others] + [("down", s, v.face_down_sizes[s]) for s in others]
    places.append(("deck", -1, v.deck_size))
    arrangements: Counter[tuple[tuple[Counts, ...], tuple[Counts, ...], Counts]] = Counter()
    for positions in combinations(range(size), v.unseen[kinds[1]]):
        row = [kinds[1] if i in positions else kinds[0] for i in range(size)]
        hands, downs, deck, start = list(state.hands), list(state.face_down), EMPTY, 0
        for kind, seat, count in places:
            cards = total(*[tuple(int(c == card) for c in CARDS) for card in row[start : start + count]])
            start += count
            if kind == "hand":
                hands[seat] = cards
            elif kind == "down":
                downs[seat] = cards
            else:
                deck = cards
        arrangements[tuple(hands), tuple(downs), deck] += 1
    role_sets = []
    for roles in permutations(ROLES, len(state.role_order)):
        assigned = list(state.roles)
        for seat, role in zip(state.role_order, roles, strict=True):
            assigned[seat] = role
        candidate = attrs.evolve(state, roles=tuple(assigned))
        if view(candidate, player) == v:
            role_sets.append(candidate.roles)
    ways = sum(arrangements.values())
    return {
        (hands, downs, deck, state.drawn, roles): n / ways / len(role_sets)
        for (hands, downs, deck), n in arrangements.items()
        for roles in role_sets
    }


def kindwise_sample(v: PlayerView, rng: random.Random) -> State:
    """A plausible wrong sampler: each hidden card's kind is uniform among the kinds left
    (not weighted by how many cards of each kind are left)."""
    state = sample_state(v, rng)
    pool = list(v.unseen)
    places = []
    for seat in range(v.players):
        if seat != v.player:
            places += [("hand", seat, v.hand_sizes[seat]), ("down", seat, v.face_down_sizes[seat])]
    places.append(("deck", -1, v.deck_size))
    hands, downs, deck = list(state.hands), list(state.face_down), EMPTY
    for kind, seat, count in places:
        cards = [0] * len(CARDS)
        for _ in range(count):
            card = rng.choice([c for c in CARDS if pool[c]])
            pool[card] -= 1
            cards[card] += 1
        if kind == "hand":
            hands[seat] = tuple(cards)
        elif kind == "down":
            downs[seat] = tuple(cards)
        else:
            deck = tuple(cards)
    return attrs.evolve(state, hands=tuple(hands), face_down=tuple(downs), deck=deck)


def sampled(sampler: Callable[[PlayerView, random.Random], State], v: PlayerView, n: int) -> Counter[Hashable]:
    rng = random.Random(20260)
    return Counter(hidden_key(sampler(v, rng)) for _ in range(n))


def test_sampled_cards_and_roles_follow_the_exact_law() -> None:
    state = small_position()
    v = view(state, 1)
    exact = exact_completions(state, 1)
    assert len(exact) == 66  # 22 ways to split the supports x p3's 3 possible roles
    assert math.isclose(sum(exact.values()), 1.0)
    samples = 8000
    assert min(exact.values()) * samples >= 5
    statistic, df = chi_square(sampled(sample_state, v, samples), exact, samples)
    assert statistic < CHI2_999[df], (statistic, df)
    # The test has the power to tell a wrong sampler apart.
    wrong, _ = chi_square(sampled(kindwise_sample, v, samples), exact, samples)
    assert wrong > CHI2_999[df]


@pytest.mark.rule("hidden.roles")
@pytest.mark.parametrize(("player", "outcomes"), [(None, 60), (0, 60), (2, 12), (3, 2)])
def test_sampled_roles_are_uniform_among_those_consistent_with_what_he_saw(player: int | None, outcomes: int) -> None:
    state = small_position()
    v = view(state, player)
    consistent = []
    for roles in permutations(ROLES, 3):
        candidate = attrs.evolve(state, roles=(None, *roles))
        if view(candidate, player) == v:
            consistent.append(candidate.roles)
    assert len(consistent) == outcomes
    samples = 3000
    rng = random.Random(4)
    counts = Counter(sample_state(v, rng).roles for _ in range(samples))
    statistic, df = chi_square(counts, dict.fromkeys(consistent, 1 / outcomes), samples)
    assert statistic < CHI2_999[df], (statistic, df)


def drawing_position() -> tuple[State, int]:
    """A seeded position in phase 8 where someone has drawn three or more cards so far."""
    for seed in range(200):
        for state, _, _ in walk(seed, 4, 0, Rules()):
            if state.step is Step.LOADMASTER_DISCARD or (state.step is Step.DRAW and sum(state.drawn) >= 3):
                return state, (state.to_act + 1) % 4
    raise AssertionError("no drawing position found")


def test_the_cards_drawn_by_another_player_follow_the_hypergeometric_law() -> None:
    state, player = drawing_position()
    v = view(state, player)
    k, size = v.drawn_count, sum(v.unseen)
    card = max(CARDS, key=lambda c: v.unseen[c])
    good = v.unseen[card]
    law = {a: math.comb(good, a) * math.comb(size - good, k - a) / math.comb(size, k) for a in range(k + 1)}
    samples = 4000
    rng = random.Random(8)
    counts = Counter(sample_state(v, rng).drawn[card] for _ in range(samples))
    # Pool the rare outcomes into one category so that every expected count is at least 5.
    rare = [a for a, p in law.items() if p * samples < 5]
    exact: dict[Hashable, float] = {a: p for a, p in law.items() if a not in rare}
    pooled: Counter[Hashable] = Counter({a: n for a, n in counts.items() if a not in rare})
    if rare:
        exact["rare"] = sum(law[a] for a in rare)
        pooled["rare"] = sum(counts[a] for a in rare)
    statistic, df = chi_square(pooled, exact, samples)
    assert statistic < CHI2_999[df], (statistic, df, k)
    # And the drawn cards are always part of that player's hand.
    other = sample_state(v, rng)
    assert contains(other.hands[state.to_act], other.drawn) and sum(other.drawn) == k


def test_the_examples_in_the_documentation_run() -> None:
    page = Path(__file__).parent.parent / "docs" / "views.md"
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0


# The declared observation layout -----------------------------------------------------------


def test_the_layout_derives_names_bounds_pieces_and_encodings() -> None:
    layout = observation_layout(4, SMALL)  # the bounds depend on the rules
    assert observation_layout(4).names == layout.names
    assert len(layout.low) == len(layout.high) == len(layout.categorical) == layout.size == len(layout.names)
    assert all(low <= high for low, high in zip(layout.low, layout.high, strict=True))
    assert sum(piece.size for piece in layout.pieces) == layout.size
    v = view(small_position(), 1)
    vector = observation_vector(v)
    pieces = layout.pieces_of(v)
    assert tuple(x for piece in layout.pieces for x in pieces[piece.name]) == vector
    for name, part in pieces.items():
        assert vector[layout.slices[name]] == part
    # Entries read independently of the layout, by name.
    entry = dict(zip(layout.names, vector, strict=True))
    assert entry["viewer"] == 1 and entry["step"] == STEP_CODES[Step.PLAY] and entry["offer"] == 0
    assert [entry[f"face_down.{c}"] for c in CARDS] == list(small_position().face_down[1])
    assert entry["p2.role"] == -1 and entry["p1.role"] == int(Role.MERCHANT) and entry["p3.role_order"] == 2
    assert [entry[f"roles_seen.{r}"] for r in ROLES] == [1, 1, 0, 1, 1]
    assert entry["p0.face_up.grain"] == 4 and entry["p1.passed"] == 1 and entry["p0.queue"] == -1
    assert "hand: 0 0 0 0 0 0 0\n" in layout.text(v)
    # The encoding: a quantity scaled by its bounds, a category one-hot.
    encoded = layout.encode(v)
    assert len(encoded) == len(layout.encoded_names) == layout.encoded_size
    assert all(0.0 <= x <= 1.0 for x in encoded)
    coded = dict(zip(layout.encoded_names, encoded, strict=True))
    assert coded["step=3"] == 1.0 and sum(coded[f"step={k}"] for k in range(17)) == 1.0
    assert coded["deck_size"] == pytest.approx(4 / sum(SMALL.deck))
    assert coded["p3.role_order=2"] == 1.0 and coded["p3.role_order=-1"] == 0.0


def test_sampling_does_not_materialise_the_deck() -> None:
    """Issue 11 #2: a view with a billion unseen cards is completed at once (by counts)."""
    v = view(meuterer.new_game(3), 0)
    big = 10**9
    huge = attrs.evolve(v, deck_size=v.deck_size + big, unseen=(v.unseen[0] + big, *v.unseen[1:]))
    state = sample_state(huge, random.Random(1))
    assert sum(state.deck) == huge.deck_size and state.deck[0] >= big
    assert tuple(map(sum, state.hands)) == huge.hand_sizes and state.hands[0] == huge.hand


def test_what_each_seat_saw_agrees_with_redacted_records() -> None:
    from meuterer.record import make_record
    from meuterer.redact import redact
    from meuterer.views import seen, seen_by_all

    actions, _ = meuterer.random_game(seed=12, players=4)
    game = Game.replay(actions, players=4)
    record = make_record(game)
    redacted = [redact(record, p).actions for p in (0, 1, 2, 3, None)]
    for k, (before, action, after) in enumerate(zip(game.states, actions, game.states[1:], strict=False)):
        texts = [str(entry) for entry in seen_by_all(before, action, after)]
        assert texts == [str(entries[k]) for entries in redacted]
        assert texts[1] == str(seen(before, action, after, 1))
