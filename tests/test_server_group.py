"""The group at a table: a rematch moves every person at the finished table to the new one,
each at his own seat; a seat nobody holds stays open unless the host asks for a bot."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from meuterer.server import core
from meuterer.server.app import create_app


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setattr(core, "RATE", 1e6)  # these sockets play as fast as they can
    monkeypatch.setattr(core, "BURST", 1e6)
    with TestClient(create_app(f"sqlite:///{tmp_path / 'group.db'}")) as test_client:
        yield test_client


def _snapshot(ws: Any) -> dict[str, Any]:
    ws.send_json({"resync": True})
    while True:
        frame: dict[str, Any] = ws.receive_json()
        if frame["type"] == "snapshot":
            return frame


def play_to_the_end(sockets: dict[int, Any]) -> list[dict[str, Any]]:
    """Play the first legal action of whichever seat is to act until the game is over; every
    frame each socket was sent (its last snapshot included), in order."""
    frames: list[dict[str, Any]] = []
    first = next(iter(sockets.values()))
    while True:
        frame = _snapshot(first)
        frames.append(frame)
        state = frame["state"]
        if state["winners"] is not None:
            return frames
        ws = sockets.get(state["to_act"])
        if ws is None:
            continue
        frame = _snapshot(ws)
        frames.append(frame)
        if frame["state"]["legal"]:
            ws.send_json({"act": frame["state"]["legal"][0]["action"], "at": frame["at"]})


def test_a_rematch_moves_everyone_at_the_table_to_his_own_seat(client: TestClient) -> None:
    opened = client.post(
        "/api/tables", json={"players": 3, "rules": {"rounds": 1}, "name": "ann", "seat": 0, "key": "a" * 16}
    ).json()
    table = opened["table"]
    bob = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob", "key": "b" * 16}).json()
    carl = client.post(f"/api/tables/{table}/join", json={"seat": 2, "name": "carl"}).json()
    assert client.post(f"/api/tables/{table}/leave", json={"token": carl["token"]}).json()["left"]
    with client.websocket_connect(f"/ws/{table}") as ann_ws, client.websocket_connect(f"/ws/{table}") as bob_ws:
        ann_ws.send_json({"token": opened["token"]})
        bob_ws.send_json({"token": bob["token"]})
        play_to_the_end({0: ann_ws, 1: bob_ws})
        # only the host may ask for bots in the seats nobody will hold
        asked = client.post(f"/api/tables/{table}/rematch", json={"token": bob["token"], "bots": {"2": "random"}})
        assert asked.status_code == 403
        answer = client.post(f"/api/tables/{table}/rematch", json={"token": opened["token"], "bots": {"2": "random"}})
        assert answer.status_code == 200, answer.text
        again = answer.json()
        moved = {}
        for seat, ws in ((0, ann_ws), (1, bob_ws)):
            frame = ws.receive_json()
            while frame["type"] != "rematch":
                frame = ws.receive_json()
            assert frame["table"] == again["table"] and frame["seat"] == seat
            moved[seat] = frame["token"]
    assert moved[0] == again["token"] and moved[1] != again["token"]
    new = again["table"]
    with client.websocket_connect(f"/ws/{new}") as ws:
        ws.send_json({"token": moved[1]})
        frame = ws.receive_json()
        assert frame["seat"] == 1 and frame["seats"][1]["name"] == "bob" and not frame["started"]
        assert frame["seats"][1]["asked"] and not frame["seats"][0]["asked"]  # the asker said yes by asking
        assert frame["seats"][2]["bot"] == "random"
        assert client.post(f"/api/tables/{new}/accept", json={"token": moved[1]}).json()["plays"]
        frame = _until(ws, lambda seats: not seats[1]["asked"])
        assert frame["started"] and frame["seats"][1]["label"] == "bob (connected)"
    # bob's page lost its token: his browser gets a fresh one for his seat there, nobody else does
    assert client.post(f"/api/tables/{table}/rematch", json={"token": bob["token"]}).status_code == 409
    fresh = client.post(f"/api/tables/{table}/rematch", json={"token": bob["token"], "key": "b" * 16}).json()
    assert fresh["table"] == new and fresh["seat"] == 1 and fresh["token"] != moved[1]
    with client.websocket_connect(f"/ws/{table}") as ws:  # a page coming back to the old table is shown the way
        ws.send_json({"watch": True})
        assert ws.receive_json()["rematch"] == new


def _rematch_of_three(client: TestClient, ask: dict[str, Any]) -> tuple[str, dict[int, str]]:
    """ann (the host), bob and carl play a one-round game, their pages open; ann asks for the
    rematch with ``ask``: the rematch's id and each seat's token there."""
    opened = client.post("/api/tables", json={"players": 3, "rules": {"rounds": 1}, "name": "ann"}).json()
    table = opened["table"]
    tokens = {0: opened["token"]}
    for seat, name in ((1, "bob"), (2, "carl")):
        tokens[seat] = client.post(f"/api/tables/{table}/join", json={"seat": seat, "name": name}).json()["token"]
    with contextlib.ExitStack() as stack:
        sockets = {seat: stack.enter_context(client.websocket_connect(f"/ws/{table}")) for seat in tokens}
        for seat, ws in sockets.items():
            ws.send_json({"token": tokens[seat]})
        play_to_the_end(sockets)
        if ask.get("if_declined"):  # only the host chooses a bot for the seats declined
            refused = client.post(f"/api/tables/{table}/rematch", json={"token": tokens[1], **ask})
            assert refused.status_code == 403
        again = client.post(f"/api/tables/{table}/rematch", json={"token": tokens[0], **ask}).json()
        moved = {0: again["token"]}
        for seat in (1, 2):
            frame = sockets[seat].receive_json()
            while frame["type"] != "rematch":
                frame = sockets[seat].receive_json()
            moved[seat] = frame["token"]
    return again["table"], moved


@pytest.mark.parametrize("fill", [None, "random"])
def test_a_player_who_declines_the_rematch_leaves_his_seat_open_unless_the_host_chose_a_bot(
    client: TestClient, fill: str | None
) -> None:
    new, tokens = _rematch_of_three(client, {"if_declined": fill} if fill else {})
    with client.websocket_connect(f"/ws/{new}") as bob_ws, client.websocket_connect(f"/ws/{new}") as watch_ws:
        bob_ws.send_json({"token": tokens[1]})
        watch_ws.send_json({"watch": True})
        first = watch_ws.receive_json()
        assert not first["started"] and [s["asked"] for s in first["seats"]] == [False, True, True]
        assert first["seats"][1]["label"] == "bob (asked: plays again?)"
        declined = client.post(f"/api/tables/{new}/decline", json={"token": tokens[1]})
        assert declined.json() == {"table": new, "seat": 1, "plays": False}
        with pytest.raises(WebSocketDisconnect) as closed:  # his page is told, and closed
            _drain(bob_ws)
        assert closed.value.code == 4001
        seats = _until(watch_ws, lambda seats: not seats[1]["asked"])["seats"]
        assert seats[1]["open"] == (fill is None) and seats[1]["bot"] == fill
        assert client.post(f"/api/tables/{new}/accept", json={"token": tokens[1]}).status_code == 403
        assert client.post(f"/api/tables/{new}/accept", json={"token": tokens[2]}).status_code == 200
        assert client.post(f"/api/tables/{new}/decline", json={"token": tokens[2]}).status_code == 409
        if fill is None:  # open to anyone with the table's link
            assert not _until(watch_ws, lambda seats: not seats[2]["asked"])["started"]
            code = client.app.state.hub.invites[new].code  # type: ignore[attr-defined]
            client.post(f"/api/tables/{new}/join", json={"seat": 1, "name": "dee", "code": code}).raise_for_status()
        frame = _until(watch_ws, lambda seats: all(not s["open"] and not s["asked"] for s in seats))
        assert frame["started"]


def test_a_rematch_seat_not_answered_in_the_tables_time_is_given_up(client: TestClient) -> None:
    new, tokens = _rematch_of_three(client, {})
    hub = client.app.state.hub  # type: ignore[attr-defined]
    assert client.post(f"/api/tables/{new}/accept", json={"token": tokens[2]}).status_code == 200
    hub.tables[new].turn_seconds = 0.0  # bob's time to answer runs out at the next tick
    deadline = time.monotonic() + 10
    while hub.tables[new].seats[1].asked and time.monotonic() < deadline:
        time.sleep(0.05)
    seat = hub.tables[new].seats[1]
    assert seat.open and not seat.asked and not hub.tables[new].started
    assert client.post(f"/api/tables/{new}/accept", json={"token": tokens[1]}).status_code == 403


def test_the_status_of_remembered_tables_says_what_they_became_and_leaves_out_the_forgotten(
    client: TestClient,
) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    waiting = client.post("/api/tables", json={"players": 3, "name": "ann"}).json()["table"]
    bots = {"1": "random", "2": "random"}
    playing = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": bots}).json()
    over = client.post("/api/tables", json={"players": 3, "rules": {"rounds": 1}, "name": "ann", "bots": bots}).json()
    with client.websocket_connect(f"/ws/{over['table']}") as ws:
        ws.send_json({"token": over["token"]})
        play_to_the_end({0: ws})
    ids = [waiting, playing["table"], over["table"], "gone", "x" * 41]
    found = client.get("/api/status", params={"tables": ",".join(ids)}).json()
    assert found == {
        waiting: {"state": "waiting", "rematch": None},
        playing["table"]: {"state": "playing", "rematch": None},
        over["table"]: {"state": "over", "rematch": None},
    }
    hub.limits.keep_finished = 0.0  # the finished table is archived at the next ticks
    deadline = time.monotonic() + 10
    while over["table"] in hub.tables and time.monotonic() < deadline:
        time.sleep(0.05)
    found = client.get("/api/status", params={"tables": over["table"]}).json()
    assert found == {over["table"]: {"state": "archived", "rematch": None}}
    assert client.get("/api/status").json() == {}


def test_a_private_table_is_joined_by_its_code_only_and_not_listed(client: TestClient) -> None:
    body = {"players": 3, "name": "ann", "title": " Friday  night ", "private": True, "turn_seconds": None}
    opened = client.post("/api/tables", json=body).json()
    table, code = opened["table"], opened["code"]
    shown = client.post("/api/tables", json={"players": 3, "name": "bo", "title": "open", "turn_seconds": 30}).json()
    listed = client.get("/api/tables").json()["tables"]
    assert [t["table"] for t in listed] == [shown["table"]] and listed[0]["turn_seconds"] == 30
    assert listed[0]["title"] == "open" and listed[0]["host"] == "bo"
    (found,) = client.get("/api/tables", params={"code": code.lower()}).json()["tables"]
    assert found["table"] == table and found["title"] == "Friday night" and found["turn_seconds"] is None
    assert "code" not in found and found["private"]
    assert client.get("/api/tables", params={"code": "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"}).json()["tables"] == []
    refused = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob"})
    assert refused.status_code == 403 and "private" in refused.json()["error"]
    wrong = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob", "code": shown["code"]})
    assert wrong.status_code == 403
    bob = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob", "code": code}).json()
    with client.websocket_connect(f"/ws/{table}") as seat_ws, client.websocket_connect(f"/ws/{table}") as watch_ws:
        seat_ws.send_json({"token": bob["token"]})
        watch_ws.send_json({"watch": True})
        assert seat_ws.receive_json()["invite"] == {
            "title": "Friday night",
            "private": True,
            "turn_seconds": None,
            "code": code,
        }
        assert "code" not in watch_ws.receive_json()["invite"]  # a spectator is not told the code
    assert client.app.state.hub.tables[table].turn_seconds == math.inf  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "body", [{"turn_seconds": 5}, {"turn_seconds": "60"}, {"private": "yes"}, {"title": 7}, {"title": "a\u200bb"}]
)
def test_bad_invites_are_refused(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post("/api/tables", json={"players": 3, "name": "ann", **body})
    assert response.status_code == 400, response.text


def test_the_chat_tells_everyone_the_lines_of_the_seats_bounded_in_length_and_rate(client: TestClient) -> None:
    opened = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": {"2": "random"}}).json()
    table = opened["table"]
    bob = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob"}).json()
    with client.websocket_connect(f"/ws/{table}") as ann_ws, client.websocket_connect(f"/ws/{table}") as watch_ws:
        ann_ws.send_json({"token": opened["token"]})
        watch_ws.send_json({"watch": True})
        first = ann_ws.receive_json()
        watch_ws.receive_json()
        assert first["chat"] == [] and first["turn"]["seat"] in (0, 1) and 100 < first["turn"]["left"] <= 120
        ann_ws.send_json({"chat": "  <b>hi</b>\n bob "})
        for ws in (ann_ws, watch_ws):
            assert ws.receive_json() == {"type": "chat", "seat": 0, "name": "ann", "text": "<b>hi</b> bob"}
        watch_ws.send_json({"chat": "me too"})
        assert watch_ws.receive_json()["type"] == "refused"  # a spectator reads only
        for bad in ("x" * 201, "", "a\u0007b", 7):
            ann_ws.send_json({"chat": bad})
            assert ann_ws.receive_json()["type"] == "refused", bad
        said = 1
        while True:
            ann_ws.send_json({"chat": "again"})
            frame = ann_ws.receive_json()
            if frame["type"] != "chat":
                break
            said += 1
        assert frame["type"] == "refused" and "wait" in frame["reason"] and said == 5
    with client.websocket_connect(f"/ws/{table}") as ws:  # a page opening the table is sent the last lines
        ws.send_json({"token": bob["token"]})
        frame = ws.receive_json()
        assert [line["text"] for line in frame["chat"]] == ["<b>hi</b> bob"] + ["again"] * 4


def _drain(ws: Any) -> None:
    while True:
        ws.receive_json()


def _until(ws: Any, wanted: Any) -> dict[str, Any]:
    """The next frame with seats for which ``wanted(seats)`` holds (a few frames at most)."""
    for _ in range(20):
        frame: dict[str, Any] = ws.receive_json()
        if "seats" in frame and wanted(frame["seats"]):
            return frame
    raise AssertionError("no such frame")


def test_seats_show_who_is_connected_away_or_a_bot(client: TestClient) -> None:
    opened = client.post("/api/tables", json={"players": 3, "name": "ann", "bots": {"2": "random"}}).json()
    table = opened["table"]
    bob = client.post(f"/api/tables/{table}/join", json={"seat": 1, "name": "bob"}).json()
    with client.websocket_connect(f"/ws/{table}") as ann_ws:
        ann_ws.send_json({"token": opened["token"]})
        first = _until(ann_ws, lambda seats: seats[0]["presence"] == "connected")
        assert [s["presence"] for s in first["seats"]][1:] == ["away", "bot"]
        assert [s["label"] for s in first["seats"]][1:] == ["bob (away)", "bot: random"]
        with client.websocket_connect(f"/ws/{table}") as bob_ws:
            bob_ws.send_json({"token": bob["token"]})
            _until(ann_ws, lambda seats: seats[1]["presence"] == "connected")
        frame = _until(ann_ws, lambda seats: seats[1]["presence"] == "away")
        assert frame["seats"][1]["label"] == "bob (away)"


def test_the_rules_page_follows_the_tables_rules(client: TestClient) -> None:
    from meuterer.islands import ISLANDS
    from meuterer.svg import island_title

    default = client.get("/rules")
    assert default.status_code == 200 and "2 VP if a mutiny succeeds" in default.text and "8 rounds" in default.text
    rules = {"cabin_boy_points": 4, "rounds": 3, "max_offer": 1}
    opened = client.post("/api/tables", json={"players": 3, "name": "ann", "rules": rules}).json()
    page = client.get(f"/rules/{opened['table']}").text
    assert "4 VP if a mutiny succeeds" in page and "2 VP if" not in page
    assert "3 rounds with 3 players" in page and "offers 0 to 1 VP" in page
    assert page.index("<th>steps</th>") < page.index(f"<td>+0</td><td>{island_title(ISLANDS[0].name)}</td>")
    for island in ISLANDS:  # every island, with its values, from the library's table
        assert f"<td>{island_title(island.name)}</td>" in page and "/".join(map(str, island.values)) in page
    assert client.get("/rules/nope").status_code == 404
    assert 'id="rules"' in client.get(f"/table/{opened['table']}").text


def test_the_ending_shows_standings_with_a_breakdown_and_the_replay(client: TestClient) -> None:
    import meuterer

    rules = {"rounds": 2}
    opened = client.post(
        "/api/tables", json={"players": 3, "name": "ann", "rules": rules, "bots": {"1": "greedy", "2": "greedy"}}
    ).json()
    table = opened["table"]
    with client.websocket_connect(f"/ws/{table}") as ws:
        ws.send_json({"token": opened["token"]})
        first = ws.receive_json()
        assert first["state"]["standings"] is None  # not before the end
        frames = play_to_the_end({0: ws})
    state = frames[-1]["state"]
    table_ = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    final = table_.game.state
    rows = state["standings"]["rows"]
    assert [row["total"] for row in rows] == sorted(final.scores, reverse=True)
    assert {row["seat"] for row in rows if row["winner"]} == set(meuterer.winners(final)) == set(state["winners"])
    for row in rows:
        assert row["total"] == final.scores[row["seat"]] == row["roles"] + row["sales"]
        assert [r["round"] for r in row["rounds"]] == [1, 2] or row["total"] == 0
        assert all(r["sales"] >= 0 for r in row["rounds"])  # sales never cost points
    assert any(row["roles"] for row in rows)  # someone scored role points (the captain or the mutineer)
    assert 'id="replay-end"' in client.get(f"/table/{table}").text
    replay = client.get(f"/api/tables/{table}/replay")
    assert replay.status_code == 200 and "<html" in replay.text.lower()
