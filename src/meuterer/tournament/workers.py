"""The worker processes of a local tournament: they leave Ctrl-C to the main process, die
with it however it ends, and remove a record half written when stopped."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

from meuterer.record import PENDING_WRITES

_PR_SET_PDEATHSIG = 1
"""``prctl`` option (Linux): the signal a process gets when its parent dies."""


def worker_init() -> None:  # pragma: no cover - runs in the worker processes
    """In a worker: leave Ctrl-C to the main process, which stops the workers itself, and
    die with the main process however it ends (even ``SIGKILL``): on Linux the kernel
    sends ``SIGKILL`` when the parent dies (``PR_SET_PDEATHSIG``); everywhere a thread
    watches the parent and ends the worker once it is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, stop_worker)
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    threading.Thread(target=watch_parent, args=(parent,), name="meuterer-parent-watch", daemon=True).start()


def stop_worker(signum: int, frame: object) -> None:  # pragma: no cover - runs in the workers
    """On ``SIGTERM`` (the pool stopping): remove a record being written, and end at once."""
    for temporary in list(PENDING_WRITES):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    os._exit(128 + signum)


def watch_parent(parent: int, every: float = 0.5) -> None:  # pragma: no cover - runs in the workers
    """End this process (at once, without clean-up) when its parent ``parent`` is gone."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)
