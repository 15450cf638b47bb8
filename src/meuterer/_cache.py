"""The library's one bounded memo: a dict that computes a missing value and forgets
everything once it holds ``size`` entries (hashable keys; lookups are a C-level dict access,
so ``map(memo.__getitem__, keys)`` runs without a Python call for known keys).

>>> squares = Memo(lambda n: n * n, size=2)
>>> squares[3], squares[4], len(squares)
(9, 16, 2)
>>> squares[5], len(squares)  # full: forgets the rest first
(25, 1)
>>> seen = Memo(size=8)  # no maker: filled with put, read with get
>>> seen.put("a", 1), seen.get("a"), seen.get("b")
(1, 1, None)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(dict[K, V], Generic[K, V]):
    """``make(key)`` remembered per key, at most ``size`` keys at a time."""

    def __init__(self, make: Callable[[K], V] | None = None, size: int = 1 << 14) -> None:
        super().__init__()
        if size < 1:
            raise ValueError(f"a memo holds at least one entry, not {size}")
        self._make = make
        self._size = size

    def __missing__(self, key: K) -> V:
        if self._make is None:
            raise KeyError(key)
        return self.put(key, self._make(key))

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (forgetting everything first when full); ``value``."""
        if key not in self and len(self) >= self._size:
            self.clear()
        self[key] = value
        return value
