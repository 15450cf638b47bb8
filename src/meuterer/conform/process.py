"""Process management for an engine: its process group's CPU time, its exit status without
reaping it, the verdict on a late reply (slow or hung) and the kept end of its stderr."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections import deque
from typing import Any, Final

STDERR_KEPT: Final = 64 << 10
"""How much of the engine's stderr is kept (the last 64 KiB) for reports."""
BUSY_FACTOR: Final = 10
"""A reply is awaited at most this many times the time limit while the engine keeps using CPU
time (a slow or starved engine); see ``EngineProcess.pipeline``."""
IDLE_SHARE: Final = 0.01
"""An engine that used less CPU time than this share of a waiting period is idle (hung)."""
_TICK: Final = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


def group_cpu_seconds(pgid: int) -> float | None:
    """The CPU time (user and system, seconds) the live processes of process group ``pgid``
    have used, with that of their children they waited for; ``None`` where it cannot be read
    (no ``/proc``).

    >>> group_cpu_seconds(os.getpgid(0)) is None or group_cpu_seconds(os.getpgid(0)) > 0
    True
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    ticks = 0
    found = False
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                text = stat.read()
        except OSError:  # gone meanwhile
            continue
        fields = text[text.rfind(b")") + 2 :].split()
        if len(fields) > 14 and int(fields[2]) == pgid:
            found = True
            ticks += sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
    return ticks * _TICK if found else None


class StderrTail:
    """The last :data:`STDERR_KEPT` bytes of a stream, read by a thread (:meth:`drain`)."""

    def __init__(self) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()

    def drain(self, stream: Any) -> None:
        while True:
            try:
                chunk = stream.read1(1 << 14) if hasattr(stream, "read1") else stream.read(1 << 14)
            except (OSError, ValueError):
                return
            if not chunk:
                return
            with self._lock:
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size - len(self._chunks[0]) >= STDERR_KEPT:
                    self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)[-STDERR_KEPT:]
        return data.decode("utf-8", "replace")


def exit_status(proc: subprocess.Popen[bytes], wait: float = 0.0) -> int | None:
    """The engine's exit status once it has exited (waiting up to ``wait`` seconds), else
    ``None``, without reaping it: until ``EngineProcess.kill`` reaps it, its pid (the
    id of its process group) stays its own."""
    if proc.returncode is not None:
        return proc.returncode
    if not hasattr(os, "waitid"):  # pragma: no cover - POSIX systems without waitid
        with contextlib.suppress(subprocess.TimeoutExpired):
            return proc.wait(wait)
        return None
    end = time.monotonic() + wait
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # pragma: no cover - reaped by someone else
            return proc.poll()
        if info is not None:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        if time.monotonic() >= end:
            return None
        time.sleep(0.01)


def verdict(cpu: list[float | None], limit: float, waited: float) -> str | None:
    """Why to stop waiting for a reply, or ``None`` to wait ``limit`` seconds more. ``cpu``:
    the engine's CPU time at each deadline passed so far, ``waited``: seconds since the
    request.

    >>> verdict([3.0], 2, 2.0) is None  # first deadline: measure over the next period
    True
    >>> verdict([3.0, 4.5], 2, 4.0) is None  # it computes: slow, not hung
    True
    >>> verdict([3.0, 3.0], 2, 4.0)
    'hung: no reply within 4.0 s, and the engine used no CPU time in the last 2 s'
    >>> verdict([3.0 + n for n in range(10)], 2, 20.0)[:63]
    'slow: no reply within 20.0 s although the engine kept computing'
    >>> verdict([None, None], 2, 4.0)[:60]  # no /proc: the second period was a plain retry
    'no reply within 4.0 s (the time limit, then as long again: t'

    """
    if len(cpu) < 2:
        return None
    before, now = cpu[-2], cpu[-1]
    if before is None or now is None:
        return (
            f"no reply within {waited:.1f} s (the time limit, then as long again: the engine's CPU time "
            "cannot be measured here to tell a slow engine from a hung one)"
        )
    if now - before < max(_TICK, IDLE_SHARE * limit):
        return f"hung: no reply within {waited:.1f} s, and the engine used no CPU time in the last {limit:g} s"
    if waited >= BUSY_FACTOR * limit:
        first = cpu[0] or 0.0
        return (
            f"slow: no reply within {waited:.1f} s although the engine kept computing ({now - first:.1f} s of CPU "
            f"time after the first {limit:g} s); raise --timeout if it is only slow"
        )
    return None
