"""The library's one cache helper: every memo states its bound.

:class:`Memo` is a dict that computes a missing value and forgets everything once it
holds ``size`` entries (hashable keys; lookups are a C-level dict access, so
``map(memo.__getitem__, keys)`` runs without a Python call for known keys).
:func:`bounded` memoises a function on its arguments, keeping the ``size`` most recently
used (``functools.lru_cache`` with a stated, checked bound). A cache lives as long as the
object that owns it: a module memo for values of the game's data (its bound is what keeps
a server fed arbitrary rule sets small), an attribute for a cache of one object's life.
``docs/architecture.md`` lists every cache with its owner, key and bound, and
``tests/test_cache.py`` holds the list to the code.

>>> squares = Memo(lambda n: n * n, size=2)
>>> squares[3], squares[4], len(squares)
(9, 16, 2)
>>> squares[5], len(squares)  # full: forgets the rest first
(25, 1)
>>> seen = Memo(size=8)  # no maker: filled with put, read with get
>>> seen.put("a", 1), seen.get("a"), seen.get("b")
(1, 1, None)
>>> @bounded(size=2)
... def double(n: int) -> int:
...     return 2 * n
>>> double(4), double.cache_parameters()["maxsize"]
(8, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])


def _checked(size: int) -> int:
    if type(size) is not int or size < 1:
        raise ValueError(f"a memo holds at least one entry, not {size!r}")
    return size


class Memo(dict[K, V], Generic[K, V]):
    """``make(key)`` remembered per key, at most ``size`` keys at a time."""

    def __init__(self, make: Callable[[K], V] | None = None, *, size: int) -> None:
        super().__init__()
        self._make = make
        self.size = _checked(size)
        """The most entries this memo holds."""

    def __missing__(self, key: K) -> V:
        if self._make is None:
            raise KeyError(key)
        return self.put(key, self._make(key))

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` (forgetting everything first when full); ``value``."""
        if key not in self and len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


def bounded(*, size: int) -> Callable[[F], F]:
    """A decorator remembering a function's results by its (hashable) arguments, the
    ``size`` most recently used at most (``functools.lru_cache(maxsize=size)``)."""
    return lru_cache(maxsize=_checked(size))  # type: ignore[return-value]
