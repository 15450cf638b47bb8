"""The layout machinery: a :class:`Layout` is a sequence of declared :class:`Piece` entries,
and everything an encoder needs is derived from it (the flat vector, entry names, bounds,
named slices, the normalised and one-hot encoding). The declared layouts themselves are in
:mod:`meuterer.views.observation`.

>>> layout = Layout([piece("round", lambda n: [n], 1, 8), piece("step", lambda n: [n % 3], 0, 2, categorical=True)])
>>> layout.names, layout.vector(5), layout.encode(5)
(('round', 'step'), (5, 2), (0.5714285714285714, 0.0, 0.0, 1.0))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain
from typing import Generic, TypeVar

import attrs

S = TypeVar("S")


@attrs.frozen
class Piece(Generic[S]):
    """One declared piece of a layout: ``size`` entries read from a source by ``get``.

    ``keys`` name the entries (appended to ``name``: ``hand`` and ``.ruby`` give
    ``hand.ruby``); ``low``/``high`` bound each entry; a ``categorical`` entry is a
    category numbered ``low`` to ``high`` (one-hot encoded), the others are quantities
    (normalised to [0, 1]).
    """

    name: str
    keys: tuple[str, ...]
    get: Callable[[S], Sequence[int]]
    low: tuple[int, ...]
    high: tuple[int, ...]
    categorical: tuple[bool, ...]

    @property
    def size(self) -> int:
        """How many entries the piece has."""
        return len(self.keys)


def piece(
    name: str,
    get: Callable[[S], Sequence[int]],
    low: int | Sequence[int],
    high: int | Sequence[int],
    *,
    keys: Sequence[str] = ("",),
    categorical: bool | Sequence[bool] = False,
) -> Piece[S]:
    """A :class:`Piece` whose ``low``, ``high`` and ``categorical`` may each be one value for
    every entry.

    >>> piece("hand", len, 0, 9, keys=(".a", ".b")).high
    (9, 9)
    """
    size = len(keys)

    def spread(value: int | bool | Sequence[int] | Sequence[bool]) -> tuple[int, ...]:
        return tuple(value) if isinstance(value, Sequence) else (int(value),) * size

    return Piece(name, tuple(keys), get, spread(low), spread(high), tuple(map(bool, spread(categorical))))


class Layout(Generic[S]):
    """A sequence of :class:`Piece` entries and everything derived from it."""

    def __init__(self, pieces: Iterable[Piece[S]]) -> None:
        self.pieces: tuple[Piece[S], ...] = tuple(pieces)
        self.names: tuple[str, ...] = tuple(p.name + key for p in self.pieces for key in p.keys)
        """The name of each entry of :meth:`vector`."""
        self.low: tuple[int, ...] = tuple(chain.from_iterable(p.low for p in self.pieces))
        """The least value of each entry."""
        self.high: tuple[int, ...] = tuple(chain.from_iterable(p.high for p in self.pieces))
        """The greatest value of each entry."""
        self.categorical: tuple[bool, ...] = tuple(chain.from_iterable(p.categorical for p in self.pieces))
        """Which entries are categories (one-hot encoded by :meth:`encode`)."""
        self.size = len(self.names)
        """The length of :meth:`vector`."""
        slices: dict[str, slice] = {}
        start = 0
        for p in self.pieces:
            slices[p.name] = slice(start, start + p.size)
            start += p.size
        self.slices: Mapping[str, slice] = slices
        """Each piece's entries in :meth:`vector` (the pieces of OpenSpiel's ``observer.dict``)."""
        encoded: list[str] = []
        for name, low, high, categorical in zip(self.names, self.low, self.high, self.categorical, strict=True):
            encoded += [f"{name}={value}" for value in range(low, high + 1)] if categorical else [name]
        self.encoded_names: tuple[str, ...] = tuple(encoded)
        """The name of each entry of :meth:`encode` (``step=3``: the step is the one coded 3)."""
        self.encoded_size = len(encoded)
        """The length of :meth:`encode`."""
        self._getters = tuple(p.get for p in self.pieces)
        self._plan = tuple(
            (categorical, low, 1.0 / (high - low) if high > low else 0.0, high - low + 1)
            for low, high, categorical in zip(self.low, self.high, self.categorical, strict=True)
        )

    def vector(self, source: S) -> tuple[int, ...]:
        """The entries, piece after piece."""
        return tuple(chain.from_iterable([get(source) for get in self._getters]))

    def pieces_of(self, source: S) -> dict[str, tuple[int, ...]]:
        """The entries by piece name."""
        return {p.name: tuple(p.get(source)) for p in self.pieces}

    def encode(self, source: S) -> tuple[float, ...]:
        """The entries for a network: quantities scaled to [0, 1] by their bounds,
        categories one-hot (one 1.0 among ``high - low + 1`` entries)."""
        return self.encode_values(self.vector(source))

    def encode_values(self, values: Sequence[int]) -> tuple[float, ...]:
        """:meth:`encode` of entries already read (a :meth:`vector`)."""
        out: list[float] = []
        for value, (categorical, low, scale, width) in zip(values, self._plan, strict=True):
            if categorical:
                hot = [0.0] * width
                hot[value - low] = 1.0
                out += hot
            else:
                out.append((value - low) * scale)
        return tuple(out)

    def subset(self, names: Iterable[str]) -> Layout[S]:
        """The layout of the pieces named ``names`` only, in this layout's order."""
        wanted = set(names)
        return Layout(p for p in self.pieces if p.name in wanted)

    def text(self, source: S) -> str:
        """The entries as text, one piece a line (``hand: 0 1 0 0 2 0 0``)."""
        return "".join(f"{p.name}: {' '.join(map(str, p.get(source)))}\n" for p in self.pieces)
