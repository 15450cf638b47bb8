"""The driver's side of the engine protocol: an engine process, its requests and replies.

:class:`EngineProcess` runs a command in a process group of its own, sends requests as JSON
lines and reads the replies with a time limit per reply that tells a slow engine from a hung
one (by the CPU time its processes use), a bound on each line's length and on what it keeps
of stderr. Whatever the engine does wrong (garbage, a hang, death, a flood, a wrong ``id``)
becomes an :class:`EngineFailure` saying so, never a hang or another exception; when it is
killed, its whole process group goes with it.

:class:`ProcessAdapter` plugs a protocol engine into :func:`meuterer.testing.check_engine`.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, Final, Protocol

from meuterer.conform.process import BUSY_FACTOR as BUSY_FACTOR
from meuterer.conform.process import IDLE_SHARE as IDLE_SHARE
from meuterer.conform.process import STDERR_KEPT as STDERR_KEPT
from meuterer.conform.process import StderrTail, exit_status, group_cpu_seconds, verdict
from meuterer.rules import Rules
from meuterer.serialize import converter

MAX_LINE_BYTES: Final = 1 << 20
"""The longest reply line the driver reads (1 MiB)."""
HELLO_TIMEOUT: Final = 10.0
"""Seconds allowed for the reply to ``hello`` (the engine's start-up)."""
Reply = dict[str, Any]


class EngineFailure(Exception):
    """The engine misbehaved: ``kind`` is one of ``timeout``, ``died``, ``garbage``,
    ``too-long``, ``wrong-id``, ``start``, ``protocol`` or ``errored``; ``stderr`` the end
    of its stderr."""

    def __init__(self, kind: str, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.kind, self.message, self.stderr = kind, message, stderr


def rules_data(rules: Rules) -> dict[str, Any]:
    """A rule set as the protocol sends it: every option, as in a game record."""
    data: dict[str, Any] = converter.unstructure(rules)
    return data


class Channel(Protocol):
    """What the driver needs of an engine: requests answered in order (an
    :class:`EngineProcess`, or in tests an engine in the same process)."""

    def request(self, request: Reply, timeout: float | None = None) -> Reply: ...

    def pipeline(self, requests: Sequence[Reply], timeout: float | None = None) -> list[Reply]: ...

    @property
    def stderr(self) -> str: ...


class EngineProcess:
    """One engine process speaking the protocol. ``transcript`` (if a list) receives every
    line sent (``"> ..."``) and read (``"< ..."``).

    The engine runs in a new session, so in a process group of its own: :meth:`kill` and
    :meth:`close` end the group, the engine's children too (a child that starts a session of
    its own escapes). ``restarts`` counts the restarts after a failure."""

    def __init__(self, command: Sequence[str], timeout: float = 2.0) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.transcript: list[str] | None = None
        self._next_id = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr = StderrTail()
        self._drainer: threading.Thread | None = None
        self.hello: Reply | None = None
        self.restarts = 0

    # Process ------------------------------------------------------------------------------

    def start(self) -> Reply:
        """Start the process and greet it; returns the ``hello`` reply."""
        self.close()
        try:
            self._proc = subprocess.Popen(  # noqa: S603 - running the engine the user named is the point
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                start_new_session=True,
            )
        except OSError as error:
            raise EngineFailure("start", f"cannot start {' '.join(self.command)}: {error}") from None
        self._buffer = b""
        self._stderr = StderrTail()
        assert self._proc.stderr is not None
        self._drainer = threading.Thread(target=self._stderr.drain, args=(self._proc.stderr,), daemon=True)
        self._drainer.start()
        try:
            reply = self._greet()
        except EngineFailure:
            self.kill()  # an engine that cannot greet is not left running
            raise
        self.hello = reply
        return reply

    def _greet(self) -> Reply:
        reply = self.request({"cmd": "hello", "protocol": 1}, timeout=HELLO_TIMEOUT)
        if reply.get("status") != "ok":
            raise EngineFailure("errored", f"hello was answered {reply.get('status')!r}: {_brief(reply)}", self.stderr)
        if reply.get("protocol") != 1:
            said = reply.get("protocol")
            raise EngineFailure("protocol", f"the engine speaks protocol {said!r}; this driver speaks 1", self.stderr)
        return reply

    def restart(self) -> Reply:
        """Kill the process (without asking: it misbehaved) and start a new one."""
        self.restarts += 1
        self.kill()
        return self.start()

    @property
    def alive(self) -> bool:
        return self._proc is not None and exit_status(self._proc) is None

    def close(self) -> None:
        """Ask the engine to quit (if it is alive), wait up to 2 s for it to exit, then end
        its process group (what it started and left running too)."""
        proc = self._proc
        if proc is None:
            return
        if exit_status(proc) is None:
            with contextlib.suppress(EngineFailure):
                self._exchange([{"cmd": "quit"}], min(self.timeout, 2.0), patient=False)
            exit_status(proc, 2.0)
        self.kill()

    def kill(self) -> None:
        """Kill the engine's process group without asking, and reap the engine."""
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        # The engine is not reaped yet (see _exit_status): its pid, the group's id, cannot
        # have been given to another process.
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5.0)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    @property
    def stderr(self) -> str:
        """The last 64 KiB of the engine's stderr."""
        return self._stderr.text()

    # Requests -----------------------------------------------------------------------------

    def request(self, request: Reply, timeout: float | None = None) -> Reply:
        """Send one request (an ``id`` is added) and return its reply."""
        return self.pipeline([request], timeout)[0]

    def pipeline(self, requests: Sequence[Reply], timeout: float | None = None) -> list[Reply]:
        """Send several requests at once and read their replies, in order.

        Each reply is awaited ``timeout`` seconds (default: the engine's). If none came, the
        driver waits as long again and measures the CPU time of the engine's processes
        meanwhile: none used, the engine is hung (an ``EngineFailure`` of kind ``timeout``
        that says so); some used, it is slow (starved by a loaded machine, or computing) and
        the driver keeps waiting, up to :data:`~meuterer.conform.process.BUSY_FACTOR` times ``timeout`` in all. Where
        CPU time cannot be measured, the second wait is a plain retry."""
        limit = self.timeout if timeout is None else timeout
        return self._exchange(requests, limit, patient=True)

    def _exchange(self, requests: Sequence[Reply], limit: float, patient: bool) -> list[Reply]:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise EngineFailure("died", "the engine is not running", self.stderr)
        idents = []
        lines: list[str] = []
        for request in requests:
            self._next_id += 1
            idents.append(self._next_id)
            sent = json.dumps({"id": self._next_id, **request}, separators=(",", ":"), ensure_ascii=False)
            lines.append(sent)
            if self.transcript is not None:
                self.transcript.append("> " + sent)
        try:
            proc.stdin.write(("\n".join(lines) + "\n").encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineFailure("died", self._death("while the driver wrote a request"), self.stderr) from None
        replies = []
        for ident in idents:
            line = self._read_line(limit, patient)
            if self.transcript is not None:
                self.transcript.append("< " + line.decode("utf-8", "replace"))
            replies.append(_reply(line, ident, self._stderr))
        return replies

    def _read_line(self, limit: float, patient: bool = True) -> bytes:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        began = time.monotonic()
        deadline = began + limit
        cpu: list[float | None] = []  # the engine's CPU time at each deadline passed
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                end = self._buffer.find(b"\n")
                if end >= 0:
                    line, self._buffer = self._buffer[:end], self._buffer[end + 1 :]
                    if len(line) > MAX_LINE_BYTES:
                        raise EngineFailure(
                            "too-long", f"a reply line of more than {MAX_LINE_BYTES} bytes", self.stderr
                        )
                    return line
                if len(self._buffer) > MAX_LINE_BYTES:
                    raise EngineFailure("too-long", f"a reply line of more than {MAX_LINE_BYTES} bytes", self.stderr)
                left = deadline - time.monotonic()
                if left > 0 and selector.select(left):
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        raise EngineFailure("died", self._death("before it replied"), self.stderr)
                    self._buffer += chunk
                    continue
                if time.monotonic() < deadline:
                    continue
                if exit_status(proc) is not None:  # its children hold the pipe open
                    raise EngineFailure("died", self._death("before it replied"), self.stderr)
                if not patient:
                    raise EngineFailure("timeout", f"no reply within {limit:g} s", self.stderr)
                cpu.append(group_cpu_seconds(proc.pid))
                waited = time.monotonic() - began
                found = verdict(cpu, limit, waited)
                if found is not None:
                    raise EngineFailure("timeout", found, self.stderr)
                deadline = time.monotonic() + limit

    def _death(self, when: str) -> str:
        proc = self._proc
        code = None if proc is None else exit_status(proc, 1.0)
        if code is None:
            return f"the engine closed its output {when}"
        # It has exited: let the reader take in what it wrote to stderr last (the error
        # that killed it), which a loaded machine may not have scheduled yet.
        drainer = self._drainer
        if drainer is not None:
            drainer.join(1.0)
        return f"the engine exited with status {code} {when}"


def _reply(line: bytes, ident: int, tail: StderrTail) -> Reply:
    """The reply that ``line`` holds, checked: a JSON object with id ``ident`` and a known status."""
    try:
        reply = json.loads(line)
    except ValueError:
        raise EngineFailure(
            "garbage", f"the engine wrote a line that is not JSON: {_clip(line)}", tail.text()
        ) from None
    if not isinstance(reply, dict):
        raise EngineFailure("garbage", f"the engine wrote JSON that is not an object: {_clip(line)}", tail.text())
    if reply.get("id") != ident or type(reply.get("id")) is not int:
        raise EngineFailure("wrong-id", f"expected a reply with id {ident}, got {_clip(line)}", tail.text())
    if reply.get("status") not in ("ok", "refused", "skipped", "errored"):
        raise EngineFailure("garbage", f"a reply with an unknown status: {_clip(line)}", tail.text())
    return reply


def _clip(line: bytes | str, most: int = 200) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    return repr(text if len(text) <= most else text[:most] + "…")


def _brief(reply: Reply) -> str:
    return str(reply.get("message") or reply.get("reason") or "")


class ProcessAdapter:
    """A protocol engine as a :class:`meuterer.testing.EngineAdapter`, so that
    :func:`meuterer.testing.check_engine` can check it. Each ``start`` drops the games
    started before it. A refusal or a failure raises :class:`EngineFailure`."""

    def __init__(self, engine: EngineProcess) -> None:
        self.engine = engine
        if engine.hello is None:
            engine.start()
        assert engine.hello is not None
        self.views = bool(engine.hello.get("capabilities", {}).get("views"))
        self._live: list[str] = []

    def _ok(self, request: Reply) -> Reply:
        reply = self.engine.request(request)
        if reply["status"] != "ok":
            raise EngineFailure(reply["status"], f"{request['cmd']}: {_brief(reply)}", self.engine.stderr)
        return reply

    def start(self, players: int, first_captain: int, rules: Rules) -> str:
        for handle in self._live:
            self._ok({"cmd": "drop", "game": handle})
        reply = self._ok({"cmd": "new", "rules": rules_data(rules), "players": players, "first_captain": first_captain})
        handle = str(reply["game"])
        self._live = [handle]
        return handle

    def legal_actions(self, game: str) -> Iterable[str]:
        actions = self._ok({"cmd": "legal", "game": game}).get("actions")
        return () if actions is None else list(actions)

    def apply(self, game: str, action: str) -> str:
        self._ok({"cmd": "apply", "game": game, "action": action})
        return game

    def scores(self, game: str) -> Sequence[int]:
        return list(self._ok({"cmd": "scores", "game": game})["scores"])

    def public_view(self, game: str) -> str | None:
        if not self.views:
            return None
        return str(self._ok({"cmd": "view", "game": game, "seat": None, "form": "text"})["text"])
