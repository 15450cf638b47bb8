"""The SVG board: what it draws, and that a view's picture shows nothing the view hides."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meuterer
from meuterer import MeutererError, PlayerView, Role, Rules, State, Step
from meuterer.cards import CARDS, Counts
from meuterer.phases.mutiny import strengths
from meuterer.svg import CARD_LETTERS, board, island_title
from meuterer.views import ROLES_SECRET, sample_state, view

from .strategies import GameSetup, game_setups, walk

NS = "{http://www.w3.org/2000/svg}"


def states(
    game: tuple[meuterer.Action, ...], players: int, first_captain: int, rules: Rules, every: int
) -> Iterator[State]:
    for k, (state, _, _) in enumerate(walk(game, players, first_captain, rules)):
        if k % every == 0:
            yield state


def game(seed: int = 3, players: int = 4, rules: Rules | None = None) -> meuterer.Game:
    actions, _ = meuterer.random_game(seed=seed, players=players, rules=rules)
    return meuterer.Game.replay(actions, players=players, rules=rules)


def seat_group(svg: str, seat: int) -> ET.Element:
    root = ET.fromstring(svg)
    groups = [g for g in root.iter(NS + "g") if g.get("data-seat") == str(seat)]
    assert len(groups) == 1
    return groups[0]


def chips(group: ET.Element) -> list[str]:
    """The letters on the card chips drawn in ``group`` (hand, face up and face down)."""
    letters = set(CARD_LETTERS.values())
    return [t.text or "" for t in group.iter(NS + "text") if t.text in letters]


def kinds(*piles: Counts) -> list[str]:
    return sorted(CARD_LETTERS[card] for pile in piles for card in CARDS if pile[card])


def texts(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.iter(NS + "text")]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
@given(game_setups(), st.integers(0, 2**32 - 1))
def test_a_views_picture_depends_on_the_view_only(setup: GameSetup, seed: int) -> None:
    # Non-interference: another state with the same view (the hidden cards and roles dealt
    # again) gives a byte-identical picture, for every seat and for a spectator.
    rng = random.Random(seed)
    for state in states(*setup, every=23):
        for seat in (*range(state.players), None):
            mine = view(state, seat)
            other = sample_state(mine, rng)
            assert view(other, seat) == mine
            assert board(view(other, seat)) == board(mine)
            if seat is not None:
                assert board(other, perspective=seat) == board(state, perspective=seat)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
@given(game_setups())
def test_a_view_draws_only_the_cards_its_player_may_see(setup: GameSetup) -> None:
    for state in states(*setup, every=17):
        for seat in range(state.players):
            whole = board(state)
            seen = board(view(state, seat))
            for other in range(state.players):
                drawing = other == state.to_act and state.step in (Step.DRAW, Step.LOADMASTER_DISCARD)
                just_drawn = (state.drawn,) if drawing and any(state.drawn) else ()
                everything = kinds(state.hands[other], state.face_up[other], state.face_down[other], *just_drawn)
                shown = sorted(chips(seat_group(seen, other)))
                if other == seat:
                    assert shown == everything
                else:
                    assert shown == kinds(state.face_up[other])
                assert sorted(chips(seat_group(whole, other))) == everything
                sizes = texts(seat_group(seen, other))
                assert f"hand {sum(state.hands[other])}" in sizes
                assert f"face down {sum(state.face_down[other])}" in sizes
                if just_drawn:
                    assert f"of which drawn now {sum(state.drawn)}" in sizes


def test_unrevealed_roles_are_card_backs() -> None:
    g = game(seed=5)
    chosen = next(s for s in g.states if s.step in ROLES_SECRET and len(s.role_order) >= 2)
    chooser, other = chosen.role_order[0], chosen.role_order[1]
    role = chosen.roles[chooser]
    assert role is not None
    name = str(role).replace("_", " ")
    assert name in texts(seat_group(board(chosen), chooser))
    assert name in texts(seat_group(board(chosen, perspective=chooser), chooser))
    hidden = texts(seat_group(board(chosen, perspective=other), chooser))
    assert "role ?" in hidden and name not in hidden
    revealed = next(s for s in g.states if s.round == chosen.round and s.step not in ROLES_SECRET)
    assert name in texts(seat_group(board(revealed, perspective=other), chooser))


def test_the_roles_in_the_centre() -> None:
    g = game(seed=5)
    state = next(s for s in g.states if s.step is Step.PLAY and len(s.role_order) == 2)
    left = [role for role in Role if role not in state.roles]
    names = ", ".join(str(role).replace("_", " ") for role in left)
    assert f"roles left: {names}" in board(state)
    second = state.role_order[1]
    seen = view(state, second).roles_seen
    assert seen is not None and len(seen) == 4
    shown = ", ".join(str(role).replace("_", " ") for role in seen)
    assert f"roles left when you chose: {shown}" in board(state, perspective=second)
    outsider = next(seat for seat in range(4) if seat not in state.role_order)
    assert "roles left" not in board(state, perspective=outsider)


def test_the_mutiny_shows_the_cores_strengths() -> None:
    for seed in range(40):
        g = game(seed=seed)
        during = [s for s in g.states if s.step is Step.MUTINY]
        if any(sum(strengths(s)) for s in during):
            break
    state = next(s for s in during if sum(strengths(s)))
    captain_side, mutineer_side = strengths(state)
    line = f"mutiny: captain's side {captain_side}, mutineer's side {mutineer_side}"
    assert line in board(state)
    assert line in board(state, perspective=(state.captain + 1) % 4)
    after = next(s for s in g.states if s.round == state.round and s.mutiny is not None)
    outcome = "the mutiny succeeded" if after.mutiny else "the mutiny failed"
    assert outcome in board(after) and "mutiny:" not in board(after)


def test_the_board_shows_the_table() -> None:
    rules = Rules(pirates=True)
    g = game(seed=3, rules=rules)
    state = next(s for s in g.states if s.captain_destination is not None and s.round == 2)
    root = ET.fromstring(board(state, size=900, names=("Ann", "Bob", "Cy", "Dee")))
    assert root.get("width") == "900" and root.get("viewBox", "").startswith("0 0 600 ")
    islands = [g for g in root.iter(NS + "g") if g.get("class") == "mt-island"]
    titles = [g.find(NS + "text").text for g in islands]  # type: ignore[union-attr]
    assert titles == [island_title(state.island_name(p)) for p in range(12)]
    assert "Karge Zunge" in titles and "Frosthöhle" in titles  # the cards' names, not the notation's
    active = {int(g.get("data-pos", "")) for g in islands if g.find(NS + "rect").get("fill") == "#FFFFFF"}  # type: ignore[union-attr]
    assert active == set(state.active)
    words = [t.text for t in root.iter(NS + "text")]
    assert f"captain p{state.captain}" in words
    assert f"C captain to {island_title(state.island_name(state.captain_destination))}" in words  # type: ignore[arg-type]
    assert f"Round 2 of {rules.rounds_for(4)}" in words
    assert any(w and "Ann" in w for w in words)
    assert "P" in words  # the pirate ship (the merchant ship has no letter: S is salt)
    text = board(state)
    assert "href" not in text and "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_the_picture_shows_in_jupyter() -> None:
    picture = board(meuterer.new_game(3))
    assert isinstance(picture, str)
    shown = picture._repr_svg_()
    assert type(shown) is str and shown == picture and shown.startswith("<svg")


def test_the_last_state_shows_the_final_scores() -> None:
    g = game(seed=8, players=3)
    final = g.states[-1]
    won = " and ".join(f"p{seat}" for seat in meuterer.winners(final))
    assert f"game over: won by {won}" in texts(ET.fromstring(board(final)))
    assert f"game over: won by {won}" in texts(ET.fromstring(board(final, perspective=1)))
    for seat, score in enumerate(final.scores):
        assert f"{score} VP" in texts(seat_group(board(final), seat))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 0}, "size must be"),
        ({"size": 1.5}, "size must be"),
        ({"names": ("a", "b")}, "names must name"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    state = meuterer.new_game(3)
    with pytest.raises(MeutererError, match=message):
        board(state, **kwargs)


def test_a_view_is_drawn_from_its_own_perspective_only() -> None:
    state = game(seed=1).states[40]
    mine = view(state, 1)
    assert board(mine, perspective=1) == board(mine)
    with pytest.raises(MeutererError, match="perspective"):
        board(mine, perspective=2)
    with pytest.raises(MeutererError, match="State or a PlayerView"):
        board("p0 pass")  # type: ignore[arg-type]
    assert isinstance(mine, PlayerView) and mine.roles[1] in (*Role, None)


def test_the_loadmasters_drawn_cards_are_shown_to_him_only() -> None:
    g = game(seed=3)
    state = next(s for s in g.states if s.step is Step.LOADMASTER_DISCARD)
    loadmaster, other = state.to_act, (state.to_act + 1) % state.players
    count = sum(state.drawn)
    assert count >= 3
    for picture in (board(state), board(state, perspective=loadmaster), board(state, perspective=other)):
        assert f"of which drawn now {count}" in texts(seat_group(picture, loadmaster))
    mine = sorted(chips(seat_group(board(state, perspective=loadmaster), loadmaster)))
    assert mine == kinds(state.hands[loadmaster], state.face_up[loadmaster], state.face_down[loadmaster], state.drawn)
    assert chips(seat_group(board(state, perspective=other), loadmaster)) == kinds(state.face_up[loadmaster])


def test_every_seat_panel_holds_its_content() -> None:
    long_names = ("A" * 100, "Bob", "Cy", "Dee")
    g = game(seed=3, rules=Rules(pirates=True))
    for state in g.states[::7]:
        root = ET.fromstring(board(state, names=long_names))
        height = float(root.get("viewBox", "").split()[3])
        for seat in range(state.players):
            group = seat_group(ET.tostring(root, encoding="unicode"), seat)
            frame = group.find(NS + "rect")
            assert frame is not None
            top, bottom = float(frame.get("y", "")), float(frame.get("y", "")) + float(frame.get("height", ""))
            assert bottom < height - 10
            for element in group.iter():
                if element.get("y") is not None:
                    assert top <= float(element.get("y", "")) <= bottom
        title = texts(seat_group(ET.tostring(root, encoding="unicode"), 0))[0]
        assert title.endswith("\u2026") and len(title) < 20


def test_states_show_as_their_board_in_jupyter() -> None:
    # registered by meuterer.svg (the core does not import it); Jupyter looks it up by name
    state = meuterer.new_game(3)
    drawn = getattr(state, "_repr_svg_")()  # noqa: B009
    assert drawn == board(state) and drawn.startswith("<svg")
    seen = view(state, 1)
    assert getattr(seen, "_repr_svg_")() == board(seen) == board(state, perspective=1)  # noqa: B009


def test_ships_and_flags_stand_beside_their_own_island() -> None:
    # Issue 19, item 18: they stood between islands.
    rules = Rules(pirates=True)
    for state in game(seed=3, rules=rules).states[::5]:
        root = ET.fromstring(board(state))
        centres = {}
        for group in root.iter(NS + "g"):
            if group.get("class") == "mt-island":
                rect = group.find(NS + "rect")
                assert rect is not None
                x, y = float(rect.get("x", "")) + 44, float(rect.get("y", "")) + 26
                centres[int(group.get("data-pos", ""))] = (x, y)
        wanted = [state.start, state.pirate, state.captain_destination, state.mutineer_destination]
        places = []
        for group in root.iter(NS + "g"):
            move = group.get("transform", "")
            if move.startswith("translate("):
                x, y = map(float, move[len("translate(") : -1].split(","))
                places.append(min(centres, key=lambda p: math.dist(centres[p], (x, y))))
        assert sorted(places) == sorted(p for p in wanted if p is not None)


def test_the_board_names_you_whole_and_scores_apart_from_names() -> None:
    state = game(seed=5).states[40]
    names = ("greedy", "greedy", "a very long name indeed, longer than a panel", "greedy")
    root = ET.fromstring(board(state, perspective=2, names=names))
    words = [t.text or "" for t in root.iter(NS + "text")]
    panel = texts(seat_group(board(state, perspective=2, names=names), 2))
    assert any(w.startswith("p2 a very") and w.endswith("\u2026") for w in panel)
    assert any(w.startswith("(you)") for w in panel)
    scores = next(w for w in words if w.startswith("greedy "))
    assert scores.count(" VP") == 4 and " \u00b7 " in scores  # "greedy 0 VP · greedy 0 VP"


_TEXTS = st.text(alphabet=st.sampled_from(list("ab <>&\"'\t\n\r\u00e9\u00a0")), max_size=8)


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> tuple[str, dict[str, str], str | None, list[Any]]:
    attributes = draw(st.dictionaries(st.sampled_from(["x", "class", "data-name", "fill"]), _TEXTS, max_size=3))
    text = draw(st.none() | _TEXTS)
    children = draw(st.lists(_trees(depth + 1), max_size=0 if depth >= 2 else 3))
    return ("g", attributes, text, children)


@given(_trees())
def test_the_boards_elements_are_written_as_elementtree_writes_them(
    tree: tuple[str, dict[str, str], str | None, list[Any]],
) -> None:
    """The board's own element type (faster to write) gives ElementTree's markup, escapes
    included, whatever the texts and attributes (a player's name is one)."""
    from meuterer.svg_parts import Element

    def ours(node: tuple[str, dict[str, str], str | None, list[Any]]) -> Element:
        tag, attributes, text, children = node
        element = Element(tag, dict(attributes), text)
        element.children = [ours(child) for child in children]
        return element

    def theirs(node: tuple[str, dict[str, str], str | None, list[Any]]) -> ET.Element:
        tag, attributes, text, children = node
        element = ET.Element(tag, dict(attributes))
        element.text = text
        element.extend(theirs(child) for child in children)
        return element

    assert ours(tree).markup() == ET.tostring(theirs(tree), encoding="unicode")
