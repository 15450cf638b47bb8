"""Clicking the board: every legal action in a frame says what it is about (a card of the
seat's panel, an island, a role), made on the server from the seat's view only; the page
plays by clicking those things, asks before a move that cannot be taken back, and plays a
forced move for a seat that asked for it (a real server, Debian's chromium)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from meuterer.actions import ChooseRole, Discard, Pass, Play, Sell, Support, parse_action
from meuterer.cards import Card, Role
from meuterer.rules import Rules
from meuterer.server import core
from meuterer.server.app import create_app
from meuterer.server.frames import state_frame
from meuterer.server.table import Seat, Table
from meuterer.state import Step
from meuterer.views import PlayerView, sample_state, view
from tests.test_server_group import play_to_the_end

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(core, "RATE", 1e6)
    monkeypatch.setattr(core, "BURST", 1e6)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'clicks.db'}")) as test_client:
        yield test_client


def _pile(v: PlayerView, pile: str) -> tuple[int, ...]:
    """The seat's own cards of ``pile`` as its view shows them."""
    assert v.player is not None
    return {"hand": v.hand, "drawn": v.drawn, "face_down": v.face_down, "face_up": v.face_up[v.player]}[pile]


def _things(svg: str, seat: int) -> set[tuple[str, ...]]:
    """What the seat's board lets it click: its panel's chips, the islands, the role cards."""
    root = ET.fromstring(svg)
    found: set[tuple[str, ...]] = set()
    for g in root.iter(NS + "g"):
        if g.get("class") == "mt-island":
            found.add(("island", g.get("data-island", "")))
        elif g.get("class") == "mt-role":
            found.add(("role", g.get("data-role", "")))
        elif g.get("class") == "mt-seat" and g.get("data-seat") == str(seat):
            for chip in g.iter(NS + "g"):
                if chip.get("class") == "mt-card":
                    found.add(("card", chip.get("data-card", ""), chip.get("data-pile", "")))
    return found


def _check_choice(v: PlayerView, choice: dict[str, Any], board: set[tuple[str, ...]]) -> None:
    action = parse_action(choice["action"])
    about = choice["about"]
    for thing in about:  # only the seat's own cards (or face up), each on its board
        if "card" in thing:
            assert _pile(v, thing["pile"])[Card[thing["card"].upper()]] >= thing["count"] >= 1, (choice, v)
            assert ("card", thing["card"], thing["pile"]) in board, choice
        if "island" in thing:
            assert ("island", thing["island"]) in board and thing["island"] in {v.island(k).name for k in v.active}
        if "role" in thing:
            assert ("role", thing["role"]) in board and v.roles_seen and Role[thing["role"].upper()] in v.roles_seen
    if isinstance(action, Play):
        assert about == [{"card": str(action.card), "pile": "hand", "count": 1}]
    elif isinstance(action, ChooseRole):
        assert about == [{"role": str(action.role)}]
    elif isinstance(action, Support):
        assert sum(t["count"] for t in about) == action.count and all(t["card"] == "support" for t in about)
    elif isinstance(action, Sell):
        assert [(t["island"], t["card"], t["count"]) for t in about] == [
            (s.island, str(s.card), s.count) for s in action.sales
        ]
    elif isinstance(action, Discard):
        assert Counter({Card[t["card"].upper()]: t["count"] for t in about}) == Counter(action.cards)
    else:
        assert about == []
    asks = isinstance(action, ChooseRole) or (isinstance(action, Pass) and v.hand_sizes[action.player] > 0)
    assert (choice["confirm"] is not None) == asks, choice


def _check_frame(frame: dict[str, Any], state: Any, kinds: Counter[str]) -> None:
    """Every legal action of ``frame`` (sent at ``state``) against the seat's view and board."""
    seat = frame["seat"]
    v = view(state, seat)
    if seat is None or state.to_act != seat or state.step is Step.GAME_OVER:
        assert frame["state"]["legal"] == []  # a seat not to act (or a spectator) is told of no move
    if seat is None:
        return
    board = _things(frame["state"]["svg"], seat)
    if v.step is not Step.CHOOSE_ROLE or state.to_act != seat:
        assert not any(t[0] == "role" for t in board)  # the role cards: only while choosing
    keys = set()
    for choice in frame["state"]["legal"]:
        _check_choice(v, choice, board)
        kinds[parse_action(choice["action"]).kind] += 1
        if choice["about"]:  # a move about something is told apart by what it is about
            keys.add(repr(choice["about"]))
    assert len(keys) == sum(1 for c in frame["state"]["legal"] if c["about"])


@pytest.mark.parametrize(
    "rules", [Rules(rounds=3, pirates=True, loadmaster_extra=2), Rules(rounds=3, withholding=True, discard_pool="hand")]
)
def test_each_legal_action_says_what_on_the_board_it_is_about(rules: Rules, monkeypatch: pytest.MonkeyPatch) -> None:
    from meuterer.server import autoplay

    monkeypatch.setattr(autoplay, "SECRET", random.Random(1))  # the same draws every time
    table = Table("clicks-about", players=3, seats=[Seat(name=f"n{p}") for p in range(3)], rules=rules)
    for p in range(3):
        table.join(p, f"n{p}")
    rng = random.Random(1)
    kinds: Counter[str] = Counter()
    while True:
        table.commit(table.propose_auto())
        for seat in (0, 1, 2, None):
            _check_frame(table.snapshot(seat), table.game.state, kinds)
        if table.over:
            break
        seat = table.waiting_for()
        assert seat is not None
        legal = table.snapshot(seat)["state"]["legal"]
        table.commit(table.propose(seat, rng.choice(legal)["action"], table.at))
    assert {"play", "pass", "role", "sell", "discard"} <= set(kinds), kinds


def test_a_seats_frames_over_its_socket_say_what_each_move_is_about(client: TestClient) -> None:
    rules = {"rounds": 2, "loadmaster_extra": 2}
    bots = {"1": "greedy", "2": "greedy"}
    opened = client.post("/api/tables", json={"players": 3, "name": "ann", "rules": rules, "bots": bots}).json()
    with client.websocket_connect(f"/ws/{opened['table']}") as ws:
        ws.send_json({"token": opened["token"]})
        frames = play_to_the_end({0: ws})
    game = client.app.state.hub.tables[opened["table"]].game  # type: ignore[attr-defined]
    kinds: Counter[str] = Counter()
    for frame in frames:
        _check_frame(frame, game.at(frame["at"]), kinds)
    assert {"play", "pass", "sell"} <= set(kinds), kinds
    assert any(c["about"] and c["confirm"] is None for f in frames for c in f["state"]["legal"])


def test_what_a_move_is_about_is_a_function_of_the_seats_view() -> None:
    # a second state that differs only in what the seat cannot see gives the same legal moves,
    # about and confirm included: nothing in them tells a hidden card
    rng = random.Random(39)
    table = Table("clicks-view", players=4, seats=[Seat(name=f"n{p}") for p in range(4)], rules=Rules(pirates=True))
    for p in range(4):
        table.join(p, f"n{p}")
    checked = 0
    while not table.over:
        table.commit(table.propose_auto())
        if table.over:
            break
        seat = table.waiting_for()
        assert seat is not None
        v = view(table.game.state, seat)
        other = view(sample_state(v, rng), seat)
        assert other == v
        assert state_frame(other, ["a"] * 4)["legal"] == state_frame(v, ["a"] * 4)["legal"]
        checked += 1
        table.commit(table.propose(seat, str(rng.choice(v.legal_actions())), table.at))
    assert checked > 30


# In the browser -------------------------------------------------------------------------------


def _prepare(
    table_id: str, rules: Rules, want: Callable[[PlayerView], bool], prefer: Callable[[PlayerView], Any] | None = None
) -> tuple[Table, str]:
    """A three-player table of people, played (draws from a seeded generator, moves at random,
    ``prefer`` choosing p0's where it says) until p0 is to act in a view for which ``want``
    holds: the table and p0's token."""
    from meuterer.server import autoplay

    for seed in range(200):
        rng = random.Random(seed)
        saved, autoplay.SECRET = autoplay.SECRET, random.Random(seed)  # type: ignore[misc,assignment]
        try:
            table = Table(table_id, players=3, seats=[Seat() for _ in range(3)], rules=rules)
            token = table.join(0, "ann")
            table.join(1, "bob")
            table.join(2, "cy")
            while True:
                table.commit(table.propose_auto())
                if table.over:
                    break
                seat = table.waiting_for()
                assert seat is not None
                v = view(table.game.state, seat)
                if seat == 0 and want(v):
                    return table, token
                chosen = prefer(v) if seat == 0 and prefer else None
                action = chosen or rng.choice(v.legal_actions())
                table.commit(table.propose(seat, str(action), table.at))
        finally:
            autoplay.SECRET = saved  # type: ignore[misc]
    raise AssertionError("no such game")


def _loadmaster(v: PlayerView) -> Any:
    """p0 takes the loadmaster's role when he may."""
    return next((a for a in v.legal_actions() if isinstance(a, ChooseRole) and a.role is Role.LOADMASTER), None)


SCENES: dict[str, tuple[Rules, Callable[[PlayerView], bool], Callable[[PlayerView], Any] | None]] = {
    "play": (Rules(), lambda v: v.step is Step.PLAY and sum(v.hand) >= 2, None),
    "role": (Rules(), lambda v: v.step is Step.CHOOSE_ROLE and len(v.legal_actions()) >= 3, None),
    "sell": (
        Rules(withholding=True),
        lambda v: v.step is Step.SELL and sum(1 for a in v.legal_actions() if isinstance(a, Sell) and a.sales) >= 2,
        None,
    ),
    "discard": (
        Rules(loadmaster_extra=2),
        lambda v: v.step is Step.LOADMASTER_DISCARD and len(v.legal_actions()) >= 3,
        _loadmaster,
    ),
    "forced": (Rules(), lambda v: len(v.legal_actions()) == 1, None),
}
"""The tables the browser is shown: rules, the moment p0 is to act at, and p0's way there."""


def _legal(page: Any) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = page.evaluate(
        "moves.legal.map((c) => ({action: c.action, label: c.label, about: c.about, confirm: c.confirm}))"
    )
    return got


def _done(page: Any, at: object = None) -> bool:
    """Was a move sent (or answered already: the page left state ``at``), or is one asking first?"""
    return bool(
        page.evaluate(
            "(at) => moves.sent || (at !== null && moves.at !== at) || !document.getElementById('confirm').hidden", at
        )
    )


def _thing(thing: dict[str, Any], seat: object = 0) -> str:
    """The board's element of a role or card ``thing`` (a card of ``seat``'s panel)."""
    if "role" in thing:
        return f'#board g.mt-role[data-role="{thing["role"]}"]'
    return f'#board g.mt-seat[data-seat="{seat}"] g.mt-card[data-card="{thing["card"]}"][data-pile="{thing["pile"]}"]'


def _click_move(page: Any, choice: dict[str, Any]) -> int:
    """Play ``choice`` by clicking the things it is about (then its button in the picks' bar if
    the clicks leave more than one move); the number of clicks on the board."""
    clicks = 0
    seat, at = page.evaluate("[document.body.dataset.seat, moves.at]")
    for thing in choice["about"]:
        if "island" in thing and not _done(page, at):
            page.click(f'#board g.mt-island[data-island="{thing["island"]}"]')
            clicks += 1
        for _ in range(thing.get("count", 1)):
            if _done(page, at):
                return clicks
            page.click(_thing(thing, seat))
            clicks += 1
    if not _done(page, at):
        assert page.inner_text("#picks-text").startswith("Chosen: ")
        page.locator("#picks-go button", has_text=choice["label"]).click()
    return clicks


def _sent(base: str, table: str, token: str, at: int) -> str:
    """The action at index ``at`` of the table's record, as p0's record tells it."""
    import httpx

    record = httpx.post(f"{base}/api/tables/{table}/record", json={"token": token}).json()
    return str(record["actions"][at])


@pytest.mark.browser  # about 30 s
def test_a_seat_plays_by_clicking_its_cards_the_islands_and_the_roles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import sync_playwright

    from meuterer.server.store import Store
    from tests.browser import chromium_path
    from tests.test_server import _free_port, _start
    from tests.test_server_browser import FLAGS

    executable = chromium_path()
    url = f"sqlite:///{tmp_path / 'clicks.db'}"
    store = Store(url)
    tokens = {}
    for name, (rules, want, prefer) in SCENES.items():
        table, tokens[name] = _prepare(f"clicks-{name}".ljust(12, "x"), rules, want, prefer)
        store.add(table)
    store.close()
    port = _free_port()
    server = _start(url, port)
    base = f"http://127.0.0.1:{port}"
    errors: list[str] = []
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, args=FLAGS)
            try:

                def page_of(name: str, token: str | None) -> tuple[Any, int]:
                    page = browser.new_context(viewport={"width": 1150, "height": 900}, bypass_csp=True).new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    page.goto(f"{base}/table/{'clicks-' + name:x<12}" + (f"#token={token}" if token else ""))
                    page.wait_for_function("Number(document.body.dataset.at) > 0")
                    return page, int(page.evaluate("Number(document.body.dataset.at)"))

                def moved(page: Any, at: int) -> None:
                    page.wait_for_function(f"Number(document.body.dataset.at) > {at}")

                table_of = {name: f"{'clicks-' + name:x<12}" for name in SCENES}
                # a card in the hand: clickable, by keyboard too; passing with cards asks first
                page, at = page_of("play", tokens["play"])
                hand = page.locator('#board g.mt-seat[data-seat="0"] g.mt-card[data-pile="hand"]')
                assert hand.count() >= 1 and page.locator("#board .clickable").count() == hand.count()
                assert hand.first.get_attribute("role") == "button" and hand.first.get_attribute("tabindex") == "0"
                assert page.locator('#board g.mt-seat:not([data-seat="0"]) .clickable').count() == 0
                (passing,) = [c for c in _legal(page) if c["action"] == "p0 pass"]
                page.click('#actions button.action[data-action="p0 pass"]')
                assert page.is_visible("#confirm") and page.inner_text("#confirm-text") == passing["confirm"]
                page.click("#confirm-no")
                assert page.is_hidden("#confirm") and not _done(page)
                card = hand.first.get_attribute("data-card")
                hand.first.focus()
                page.keyboard.press("Enter")
                moved(page, at)
                assert _sent(base, table_of["play"], tokens["play"], at) == f"p0 play {card}"
                # a role card: clicked, confirmed (after a cancel)
                page, at = page_of("role", tokens["role"])
                choice = _legal(page)[-1]
                (role,) = choice["about"]
                page.click(_thing(role))
                assert page.inner_text("#confirm-text") == choice["confirm"] and "Take the role" in choice["confirm"]
                page.keyboard.press("Escape")
                assert page.is_hidden("#confirm")
                page.click(_thing(role))
                page.click("#confirm-yes")
                moved(page, at)
                assert _sent(base, table_of["role"], tokens["role"], at) == choice["action"]
                watcher, _ = page_of("role", None)  # a spectator is offered nothing to click
                assert watcher.locator("#board .clickable").count() == 0
                assert watcher.locator("#board g.mt-role").count() == 0
                # sales: the island, then the cards sold there
                page, at = page_of("sell", tokens["sell"])
                choice = max(_legal(page), key=lambda c: sum(t.get("count", 1) for t in c["about"]))
                assert _click_move(page, choice) >= 2
                moved(page, at)
                assert _sent(base, table_of["sell"], tokens["sell"], at) == choice["action"]
                # discards: several cards picked, then the move they make
                page, at = page_of("discard", tokens["discard"])
                choice = _legal(page)[1]
                assert sum(t["count"] for t in choice["about"]) >= 2
                first = choice["about"][0]
                page.click(_thing(first))
                assert page.is_visible("#picks") and page.locator("#actions button.unfit").count() >= 1
                page.click("#picks-clear")
                assert page.is_hidden("#picks") and page.locator("#actions button.unfit").count() == 0
                _click_move(page, choice)
                moved(page, at)
                assert _sent(base, table_of["discard"], tokens["discard"], at) == choice["action"]
                # a forced move: not played unless asked, then played after a visible wait
                page, at = page_of("forced", tokens["forced"])
                (only,) = _legal(page)
                page.wait_for_timeout(2500)
                assert int(page.evaluate("Number(document.body.dataset.at)")) == at and not _done(page)
                page.check("#forced")
                note = page.inner_text("#forced-note")
                assert note.startswith(f"Playing \u201c{only['label']}\u201d in ")
                assert note.endswith(" s (the only move)")
                # frames of the same state (someone comes or goes) do not start the wait again
                again = "setInterval(() => showMoves(moves.legal, moves.at, true, moves.send), 400)"
                page.evaluate(f"window.again = {again}")
                moved(page, at)
                page.evaluate("clearInterval(window.again)")
                assert _sent(base, table_of["forced"], tokens["forced"], at) == only["action"]
                # leaving asks first
                page.click("#leave")
                assert page.inner_text("#confirm-text").startswith("Leave the table?")
                page.click("#confirm-no")
                page.click("#leave")
                page.click("#confirm-yes")
                page.wait_for_url(f"{base}/")
            finally:
                browser.close()
        assert not errors, errors
    finally:
        server.kill()
        server.wait()
