"""The reference engine behind the protocol (docs/protocol.md): every command, every
error reply, and the stdio loop."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import meuterer
from meuterer.conform.client import rules_data
from meuterer.conform.engine import MAX_REQUEST_BYTES, ReferenceEngine, legal_reply, serve
from meuterer.views import dumps_view, view


def ask(engine: ReferenceEngine, **request: Any) -> dict[str, Any]:
    reply = engine.handle({"id": 7, **request})
    assert reply["id"] == 7
    return reply


def started(rules: dict[str, Any] | None = None, players: int = 3) -> tuple[ReferenceEngine, str]:
    engine = ReferenceEngine()
    reply = ask(engine, cmd="new", rules=rules or {}, players=players, first_captain=0)
    assert reply["status"] == "ok"
    return engine, reply["game"]


def test_hello_declares_everything() -> None:
    reply = ask(ReferenceEngine(), cmd="hello", protocol=1)
    assert reply["status"] == "ok"
    assert reply["protocol"] == 1
    assert reply["implementation"]["language"] == "python"
    assert reply["capabilities"]["players"] == [3, 4]
    # Every rule option, by the names a rules object has in a record and in `new`.
    assert reply["capabilities"]["options"] == list(rules_data(meuterer.Rules()))
    assert reply["capabilities"]["views"] is True
    assert reply["capabilities"]["clone"] is True


def test_a_game_through_the_protocol_matches_the_engine() -> None:
    actions, final = meuterer.random_game(seed=5, players=3)
    engine, game = started()
    state = meuterer.new_game(3, 0)
    for action in actions:
        legal = ask(engine, cmd="legal", game=game)
        assert legal == {"id": 7, "status": "ok", **legal_reply(state)}
        assert ask(engine, cmd="apply", game=game, action=str(action)) == {"id": 7, "status": "ok"}
        state = meuterer.apply(state, action)
    assert ask(engine, cmd="legal", game=game) == {"id": 7, "status": "ok", "actor": None, "actions": []}
    assert ask(engine, cmd="scores", game=game)["scores"] == list(final.scores)
    text = ask(engine, cmd="view", game=game, seat=1, form="text")["text"]
    assert text == dumps_view(view(final, 1))
    digest = ask(engine, cmd="view", game=game, seat=None, form="digest")["digest"]
    assert digest == hashlib.sha256(dumps_view(view(final, None)).encode()).hexdigest()


def test_chance_outcomes_are_fractions_in_lowest_terms() -> None:
    engine, game = started()
    reply = ask(engine, cmd="legal", game=game)
    assert reply["actor"] == "chance"
    assert reply["probabilities"] == ["1/9", "5/36", "1/6", "7/36", "2/9", "1/6"]


def test_the_shuffled_ring_is_described() -> None:
    engine, game = started({"ring": "shuffled"})
    reply = ask(engine, cmd="legal", game=game)
    assert reply["actions"] is None
    assert reply["ring"]["first"] == "hochland"
    assert reply["ring"]["others"] == [island.name for island in meuterer.ISLANDS[1:]]
    assert reply["ring"]["probability"] == "1/39916800"
    names = [island.name for island in meuterer.ISLANDS]
    arranged = "ring " + ",".join([names[0], *reversed(names[1:])])
    assert ask(engine, cmd="apply", game=game, action=arranged)["status"] == "ok"
    assert ask(engine, cmd="apply", game=game, action="ring hochland")["code"] == "wrong-step"


def test_refusals_carry_codes_and_leave_the_game_alone() -> None:
    engine, game = started()
    before = ask(engine, cmd="legal", game=game)
    assert ask(engine, cmd="apply", game=game, action="p0 offer 1")["code"] == "wrong-step"
    assert ask(engine, cmd="apply", game=game, action="P0 pass")["code"] == "malformed"
    assert ask(engine, cmd="apply", game=game, action=3)["code"] == "malformed"
    refused = ask(engine, cmd="apply", game=game, action="draw p1 ruby")
    assert refused["status"] == "refused"
    assert refused["code"] == "not-your-turn"
    assert "p0" in refused["message"]
    assert ask(engine, cmd="legal", game=game) == before


def test_clone_and_drop() -> None:
    engine, game = started()
    twin = ask(engine, cmd="clone", game=game)["game"]
    assert twin != game
    assert ask(engine, cmd="apply", game=twin, action="draw p0 ruby")["status"] == "ok"
    assert ask(engine, cmd="legal", game=game)["probabilities"][0] == "1/9"
    assert ask(engine, cmd="legal", game=twin)["probabilities"][0] == "3/35"
    assert ask(engine, cmd="drop", game=twin) == {"id": 7, "status": "ok"}
    assert ask(engine, cmd="legal", game=twin)["status"] == "errored"


@pytest.mark.parametrize(
    ("request_", "status"),
    [
        ({"cmd": "legal", "game": "g99"}, "errored"),
        ({"cmd": "legal"}, "errored"),
        ({"cmd": "view", "game": "g1", "seat": 3}, "errored"),
        ({"cmd": "view", "game": "g1", "seat": "p1"}, "errored"),
        ({"cmd": "new", "rules": {"pirates": "yes"}, "players": 3, "first_captain": 0}, "errored"),
        ({"cmd": "new", "rules": {}, "players": 5, "first_captain": 0}, "errored"),
        ({"cmd": "dance"}, "skipped"),
        ({"cmd": "quit"}, "ok"),
    ],
)
def test_bad_requests_get_replies_not_exceptions(request_: dict[str, Any], status: str) -> None:
    engine, _ = started()
    assert ask(engine, **request_)["status"] == status


def test_a_request_that_is_not_an_object() -> None:
    assert ReferenceEngine().handle([1, 2]) == {
        "id": None,
        "status": "errored",
        "message": "a request is a JSON object",
    }


def run_serve(data: bytes) -> list[dict[str, Any]]:
    """Feed ``data`` to serve() through a real pipe and parse what it wrote."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)

    feeder = threading.Thread(target=feed)
    feeder.start()
    out = io.BytesIO()
    with os.fdopen(read_end, "rb") as pipe:
        assert serve(pipe, out) == 0
    feeder.join()
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def test_serve_answers_lines_in_order_and_stops_at_quit() -> None:
    requests = [
        {"id": 1, "cmd": "hello", "protocol": 1},
        {"id": 2, "cmd": "new", "rules": {}, "players": 4, "first_captain": 2},
        {"id": 3, "cmd": "scores", "game": "g1"},
        {"id": 4, "cmd": "quit"},
        {"id": 5, "cmd": "scores", "game": "g1"},
    ]
    data = b"".join(json.dumps(r).encode() + b"\n" for r in requests)
    replies = run_serve(data.replace(b"\n", b"\n\n", 1))  # a blank line is ignored
    assert [r["id"] for r in replies] == [1, 2, 3, 4]
    assert replies[2]["scores"] == [0, 0, 0, 0]


def test_serve_survives_garbage_and_ends_at_end_of_input() -> None:
    replies = run_serve(b'not json\n{"id": 1, "cmd": "hello"}\n{"id": 2, "cmd": "sco')
    assert replies[0]["status"] == "errored"
    assert replies[0]["id"] is None
    assert replies[1]["id"] == 1


def test_serve_refuses_an_endless_line() -> None:
    replies = run_serve(b"x" * (MAX_REQUEST_BYTES + (1 << 16) + 1) + b'\n{"id": 3, "cmd": "quit"}\n')
    assert replies[0] == {"id": None, "status": "errored", "message": "request line longer than 1048576 bytes"}
    assert replies[1:] == [{"id": 3, "status": "ok"}]


# Issue 37, defect 6: no line ends the engine, and every line gets exactly one reply ----------

DEEP = 100_000
"""Deeper than any recursion limit: on aa94876 json.loads raised RecursionError out of serve."""

BAD_LINES: list[tuple[str, bytes, object, str]] = [
    ("cmd-array", b'{"id": 1, "cmd": [1]}', 1, "cmd is a string, not an array"),
    ("cmd-object", b'{"id": 2, "cmd": {}}', 2, "cmd is a string, not an object"),
    ("cmd-missing", b'{"id": 3}', 3, "cmd is a string, not null"),
    ("deep-array", b'{"id": 4, "x": ' + b"[" * DEEP + b"]" * DEEP + b"}", 4, "nests arrays and objects"),
    ("deep-object", b'{"id": 5, "x": ' + b'{"a":' * DEEP + b"1" + b"}" * DEEP + b"}", 5, "the most is 32"),
    ("deep-unclosed", b"[" * DEEP, None, "the most is 32"),
    ("deep-id-after", b'{"x": ' + b"[" * 40 + b"]" * 40 + b', "s": "id", "id": "r7"}', "r7", "41 deep"),
    ("not-an-object", b"[1, 2]", None, "a request is a JSON object"),
    ("a-string", b'"hello"', None, "a request is a JSON object"),
    ("a-number", b"17", None, "a request is a JSON object"),
    ("not-json", b"hello", None, "not JSON"),
    ("not-utf8", b'{"id": 6, "cmd": "\xff"}', None, "not JSON"),
    ("nan", b'{"id": 7, "cmd": "hello", "protocol": NaN}', None, "not JSON"),
    ("huge-float", b'{"id": 8, "cmd": "hello", "protocol": 1e999}', None, "not JSON"),
    ("huge-int", b'{"id": 9, "cmd": "hello", "protocol": 1' + b"0" * 5000 + b"}", None, "not JSON"),
]


@pytest.mark.parametrize(("line", "ident", "message"), [case[1:] for case in BAD_LINES], ids=[c[0] for c in BAD_LINES])
def test_a_bad_line_gets_one_errored_reply_with_its_id_and_the_engine_goes_on(
    line: bytes, ident: object, message: str
) -> None:
    replies = run_serve(line + b'\n{"id": 10, "cmd": "hello"}\n{"id": 11, "cmd": "quit"}\n')
    assert len(replies) == 3
    assert replies[0]["status"] == "errored"
    assert replies[0]["id"] == ident
    assert message in replies[0]["message"]
    assert [r["id"] for r in replies[1:]] == [10, 11]
    assert replies[1]["status"] == "ok"


def test_a_lone_surrogate_is_echoed_as_an_escape_not_a_crash() -> None:
    replies = run_serve(b'{"id": "\\ud800", "cmd": "dance\\udfff"}\n{"id": 2, "cmd": "quit"}\n')
    assert replies[0]["id"] == "\ud800"
    assert replies[0]["status"] == "skipped"
    assert [r["id"] for r in replies] == ["\ud800", 2]


def test_a_40_mb_line_gets_exactly_one_reply() -> None:
    # On aa94876: three replies (two "too long" and one "not JSON" for its tail).
    line = b'{"id": 1, "cmd": "hello", "pad": "' + b"x" * (40 << 20) + b'"}'
    replies = run_serve(line + b'\n{"id": 2, "cmd": "quit"}\n')
    assert replies == [
        {"id": None, "status": "errored", "message": f"request line longer than {MAX_REQUEST_BYTES} bytes"},
        {"id": 2, "status": "ok"},
    ]


def test_a_line_just_within_the_limits_is_read() -> None:
    # The limits docs/protocol.md states: 1 MiB a line, arrays and objects nested 32 deep.
    pad = MAX_REQUEST_BYTES - 100
    line = b'{"id": 1, "cmd": "hello", "x": ' + b"[" * 31 + b"]" * 31 + b', "p": "'
    line += b"x" * (pad - len(line)) + b'"}'
    assert len(line) <= MAX_REQUEST_BYTES
    replies = run_serve(line + b"\n")
    assert [(r["id"], r["status"]) for r in replies] == [(1, "ok")]


def test_meuterer_engine_survives_every_bad_line_as_a_process() -> None:
    # On aa94876 the process exited with status 1 and a traceback at the first of these lines.
    lines = [case[1] for case in BAD_LINES]
    lines += [b'{"id": 20, "cmd": "new", "rules": {}, "players": 3, "first_captain": 0}', b'{"id": 21, "cmd": "quit"}']
    env = {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "meuterer", "engine"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [case[2] for case in BAD_LINES] + [20, 21]
    assert replies[-2] == {"id": 20, "status": "ok", "game": "g1"}


def test_meuterer_engine_on_the_command_line() -> None:
    lines = b'{"id":1,"cmd":"hello","protocol":1}\n{"id":2,"cmd":"quit"}\n'
    env = {**os.environ, "PYTHONPATH": str(Path(meuterer.__file__).parents[1])}
    done = subprocess.run(
        [sys.executable, "-m", "meuterer", "engine"], input=lines, capture_output=True, timeout=60, check=True, env=env
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["implementation"]["name"] == "meuterer"
