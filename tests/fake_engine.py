"""Tiny engines that misbehave, for the driver's robustness tests (tests/test_conform_driver.py).

    python tests/fake_engine.py MODE

Every mode answers ``hello`` like the reference (except ``no-hello``) and then:

- ``reference``: behaves (the reference engine);
- ``basic``: the reference, declaring no rule option, no views and no clone;
- ``garbage``: prints a line that is not JSON for every later request;
- ``hang``: never answers ``new``;
- ``die``: exits with status 3 on ``new``, after writing to stderr;
- ``flood``: answers ``new`` with 2 MiB and no newline;
- ``lines``: answers ``new`` with endless JSON lines;
- ``wrong-id``: answers every later request with the wrong id;
- ``no-hello``: answers ``hello`` with garbage;
- ``hello-errored``: answers ``hello`` with ``errored``;
- ``protocol-2``: says it speaks protocol 2;
- ``list``: answers every later request with a JSON array;
- ``bad-status``: answers every later request with an unknown status;
- ``mutant``: the reference with one rule changed: the captain may not offer the highest amount;
- ``slow``: computes for ``FAKE_ENGINE_BUSY`` seconds (CPU time, default 1.5) before it answers
  ``new`` (a slow engine, not a hung one);
- ``busy``: computes for ever on ``new`` (an endless loop).

``spawn:MODE`` first starts two processes that sleep for an hour, one of them with a child of
its own (the helpers an engine may start), then behaves as ``MODE``; with ``FAKE_ENGINE_PIDS``
set, it appends its own pid and their three pids to that file, one a line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

HELLO = {
    "status": "ok",
    "protocol": 1,
    "implementation": {"name": "fake", "version": "0", "language": "python"},
    "capabilities": {"players": [3, 4], "options": [], "views": False, "clone": False},
}
"""The greeting of the misbehaving modes (they start fast: they never import meuterer)."""


def write(reply: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()


SLEEPER = "import time; time.sleep(3600)"
PARENT = (
    "import subprocess, sys, time; "
    f"child = subprocess.Popen([sys.executable, '-c', {SLEEPER!r}]); "
    "print(child.pid, flush=True); time.sleep(3600)"
)


def spawn() -> None:
    """Start the helper processes (see the module's docstring)."""
    sleeper = subprocess.Popen([sys.executable, "-c", SLEEPER])  # inherits stdin, stdout, stderr
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert parent.stdout is not None
    grandchild = int(parent.stdout.readline())
    path = os.environ.get("FAKE_ENGINE_PIDS")
    if path:
        with open(path, "a", encoding="ascii") as pids:
            pids.write(f"{os.getpid()}\n{sleeper.pid}\n{parent.pid}\n{grandchild}\n")


def compute(seconds: float) -> None:
    """Use ``seconds`` of CPU time."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def main(mode: str) -> int:
    if mode.startswith("spawn:"):
        spawn()
        mode = mode[6:]
    if mode in ("reference", "basic", "mutant"):
        return behave(mode)
    for line in sys.stdin:
        request = json.loads(line)
        command = request.get("cmd")
        if command == "hello":
            if mode == "no-hello":
                sys.stdout.write("Welcome to my engine!\n")
                sys.stdout.flush()
            elif mode == "protocol-2":
                write({"id": request["id"], **HELLO, "protocol": 2})
            elif mode == "hello-errored":
                write({"id": request["id"], "status": "errored", "message": "cannot start"})
            else:
                write({"id": request["id"], **HELLO})
            continue
        if mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if mode == "list":
            sys.stdout.write("[1, 2]\n")
            sys.stdout.flush()
            continue
        if mode == "bad-status":
            write({"id": request["id"], "status": "fine"})
            continue
        if mode == "wrong-id":
            write({"id": request["id"] + 1, "status": "ok"})
            continue
        if command == "new":
            if mode == "hang":
                time.sleep(3600)
            if mode == "die":
                sys.stderr.write("Traceback (most recent call last):\n  boom: the fake engine died\n")
                sys.stderr.flush()
                return 3
            if mode == "flood":
                sys.stdout.write("x" * (2 << 20))
                sys.stdout.flush()
                time.sleep(3600)
            if mode == "lines":
                while True:
                    write({"id": 0, "status": "ok"})
            if mode == "slow":
                compute(float(os.environ.get("FAKE_ENGINE_BUSY", "1.5")))
            if mode == "busy":
                while True:
                    pass
        write({"id": request["id"], "status": "ok"})
        if command == "quit":
            return 0
    return 0


def behave(mode: str) -> int:
    """The reference, or with ``mutant`` the reference without the highest offer."""
    from meuterer.conform.engine import ReferenceEngine

    engine = ReferenceEngine()
    for line in sys.stdin:
        request = json.loads(line)
        command = request.get("cmd")
        reply = engine.handle(request)
        if mode == "basic" and command == "hello":
            reply["capabilities"] = {"players": [3, 4], "options": [], "views": False, "clone": False}
        if mode == "mutant" and command == "legal":
            top = f" offer {engine.games[request['game']].rules.max_offer}"
            actions = reply.get("actions")
            if actions and isinstance(reply.get("actor"), int):
                reply["actions"] = [a for a in actions if not a.endswith(top)]
        write(reply)
        if command == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
