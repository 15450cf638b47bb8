"""A socket's bounded send queue and the task that sends it, so that nobody waits for a reader.

The server never sends while it holds a table's lock: it puts the frame in the socket's
:class:`Outbox` (no wait) and the outbox's own sender task writes it out. A socket whose
reader does not keep up (more than :data:`MAX_QUEUED` frames or :data:`MAX_QUEUED_BYTES`
waiting, or one frame taking over ``send_seconds``) is dropped: closed with code
:data:`TOO_SLOW` and a reason, and ``on_drop`` is told, so that the server can say why when
the same reader comes back.

>>> import asyncio
>>> class Reader:  # a socket that keeps what it is sent
...     def __init__(self): self.got = []
...     async def send_text(self, text): self.got.append(text)
...     async def close(self, code, reason): self.got.append((code, reason))
>>> async def main():
...     reader = Reader()
...     box = Outbox(reader)
...     box.start()
...     box.put("one"); box.put("two"); box.close(4001, "bye")
...     await box.finish()
...     return reader.got
>>> asyncio.run(main())
['one', 'two', (4001, 'bye')]
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Callable
from typing import Any, Final

__all__ = ["MAX_QUEUED", "MAX_QUEUED_BYTES", "SEND_SECONDS", "TOO_SLOW", "Outbox"]

MAX_QUEUED: Final = 64
"""Most frames waiting to be sent to one socket."""
MAX_QUEUED_BYTES: Final = 256 * 1024
"""Most characters of frames waiting to be sent to one socket (a frame is 12 to 20 KB)."""
SEND_SECONDS: Final = 5.0
"""Longest wait for one frame (or the closing handshake) to be written."""
TOO_SLOW: Final = 4008
"""The close code of a socket dropped because its reader did not keep up."""


class _Close:
    def __init__(self, code: int, reason: str) -> None:
        self.code = code
        self.reason = reason


class Outbox:
    """The frames waiting for ``socket`` (anything with ``send_text`` and ``close(code,
    reason)``) and their sender task; ``on_drop(reason)`` is called once if it is dropped."""

    def __init__(
        self,
        socket: Any,
        *,
        on_drop: Callable[[str], None] | None = None,
        max_frames: int = MAX_QUEUED,
        max_bytes: int = MAX_QUEUED_BYTES,
        send_seconds: float = SEND_SECONDS,
    ) -> None:
        self.socket = socket
        self.on_drop = on_drop
        self.max_frames = max_frames
        self.max_bytes = max_bytes
        self.send_seconds = send_seconds
        self._queue: collections.deque[str | _Close] = collections.deque()
        self._bytes = 0
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.closing = False
        self.dropped: str | None = None
        """Why the socket was dropped, once it is."""

    def start(self) -> None:
        """Start the sender task (in the running event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._send())

    def put(self, text: str) -> bool:
        """Queue ``text`` without waiting; ``False`` if the socket is closing or was dropped
        (now, because the queue is full)."""
        if self.closing:
            return False
        if len(self._queue) >= self.max_frames or self._bytes + len(text) > self.max_bytes:
            self.drop(f"dropped: {len(self._queue)} frames were waiting to be read (the connection did not keep up)")
            return False
        self._queue.append(text)
        self._bytes += len(text)
        self._ready.set()
        return True

    def close(self, code: int, reason: str) -> None:
        """Close the socket with ``code`` and ``reason`` once the frames queued before are sent."""
        if not self.closing:
            self.closing = True
            self._queue.append(_Close(code, reason))
            self._ready.set()

    def drop(self, reason: str) -> None:
        """Give up on the socket: forget what waits, close it with :data:`TOO_SLOW` and ``reason``."""
        if self.dropped is not None:
            return
        self.dropped = reason
        self.closing = True
        self._queue.clear()
        self._bytes = 0
        if self._task is not None:
            self._task.cancel()
        with contextlib.suppress(RuntimeError):  # no running loop: nothing was started
            self._task = asyncio.get_running_loop().create_task(self._close(TOO_SLOW, reason[:120]))
        if self.on_drop is not None:
            self.on_drop(reason)

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code, reason), self.send_seconds)

    async def _send(self) -> None:
        while True:
            while not self._queue:
                self._ready.clear()
                await self._ready.wait()
            item = self._queue.popleft()
            if isinstance(item, _Close):
                await self._close(item.code, item.reason)
                return
            self._bytes -= len(item)
            try:
                await asyncio.wait_for(self.socket.send_text(item), self.send_seconds)
            except asyncio.CancelledError:
                raise
            except Exception:  # a reader that stopped reading, or is gone
                self._task = None  # this task ends here: drop must not cancel it
                self.drop(f"dropped: a frame could not be sent in {self.send_seconds:g} s")
                return

    async def finish(self, seconds: float = SEND_SECONDS) -> None:
        """Wait (at most ``seconds``) for the sender to send what is queued up to a close, then
        stop it: when the socket's handler ends."""
        task = self._task
        if task is None:
            return
        if self.closing and not task.done():
            await asyncio.wait([task], timeout=seconds)
        task.cancel()
