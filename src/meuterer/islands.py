"""The island table: data, not code.

Each :class:`Island` names the good it buys (``None`` for any good), its sale values
for a sole leader (I), two tied leaders (II) and three tied leaders (III), and the
victory points of a captain or mutineer whose destination it is (``ship``).
``ISLANDS`` is the table of SPEC section 1 in clockwise ring order; a user holding the
physical cards may pass a corrected table through :class:`meuterer.Rules`.

>>> from meuterer.islands import ISLANDS
>>> ISLANDS[3]
Island(name='karge_zunge', buys=<Card.GRAIN: 4>, values=(6, 3, 2), ship=4)
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import attrs

from meuterer.cards import GOODS, Card
from meuterer.errors import RulesError


@attrs.frozen(cache_hash=True)
class Island:
    """One island card."""

    name: str
    buys: Card | None
    """The good this island buys, or ``None`` when it buys any good."""
    values: tuple[int, int, int]
    """Sale values for one, two and three tied leaders (I, II, III)."""
    ship: int
    """Victory points for the captain or mutineer whose destination this is."""

    def buys_card(self, card: Card) -> bool:
        """Whether this island buys ``card`` (support and pirate cards never sell)."""
        return card in GOODS and (self.buys is None or self.buys == card)


ISLANDS: tuple[Island, ...] = (
    Island("hochland", None, (4, 3, 2), 5),
    Island("frosthoehle", Card.CLOTH, (3, 2, 1), 3),
    Island("gruenland", Card.SALT, (5, 3, 2), 4),
    Island("karge_zunge", Card.GRAIN, (6, 3, 2), 4),
    Island("eisfelsen", Card.RUBY, (6, 4, 3), 5),
    Island("affeninsel", Card.GRAIN, (2, 1, 1), 2),
    Island("kalte_klippe", Card.CLOTH, (5, 2, 2), 4),
    Island("sommerland", Card.SALT, (3, 1, 1), 2),
    Island("rotes_riff", Card.WINE, (4, 2, 2), 3),
    Island("piratennest", None, (4, 3, 2), 5),
    Island("fingerhut", Card.RUBY, (2, 1, 0), 2),
    Island("sandkap", Card.WINE, (4, 2, 1), 3),
)
"""The default island table (SPEC section 1), in clockwise ring order from Hochland."""

ISLAND_NAMES: tuple[str, ...] = tuple(island.name for island in ISLANDS)


MAX_POINTS = 1_000
"""The most victory points one sale value, ship value (or the cabin boy) may give: the
rulebook's highest is 8. Bounded so that scores and observations stay small numbers."""


def validate_islands(islands: tuple[Island, ...]) -> None:
    """Raise :class:`RulesError` unless ``islands`` is a usable island table.

    >>> validate_islands(ISLANDS[:11])
    Traceback (most recent call last):
    ...
    meuterer.errors.RulesError: the island table needs 12 islands, got 11
    """
    if not isinstance(islands, tuple) or not all(isinstance(island, Island) for island in islands):
        raise RulesError("the island table is a tuple of meuterer.Island")
    if len(islands) != len(ISLANDS):
        raise RulesError(f"the island table needs {len(ISLANDS)} islands, got {len(islands)}")
    for index, island in enumerate(islands):
        numbers = (*island.values, island.ship) if isinstance(island.values, tuple) else ()
        if not isinstance(island.name, str) or len(numbers) != 4 or any(type(v) is not int for v in numbers):
            raise RulesError(f"island {index}: a name, three whole sale values and whole ship points")
    names = sorted(island.name for island in islands)
    if names != sorted(ISLAND_NAMES):
        raise RulesError(f"the island table must name each island once: expected {sorted(ISLAND_NAMES)}, got {names}")
    if islands[0].name != "hochland":
        raise RulesError("Hochland must be at ring position 0 (the ship starts there)")
    for index, island in enumerate(islands):
        where = f"island {index} ({island.name})"
        if island.buys is not None and island.buys not in GOODS:
            raise RulesError(f"{where}: buys {island.buys!s}, which is not a good")
        if len(island.values) != 3 or any(not 0 <= v <= MAX_POINTS for v in (*island.values, island.ship)):
            raise RulesError(
                f"{where}: values must be three non-negative numbers and ship one, each at most {MAX_POINTS}"
            )
    for good in GOODS:
        if not any(island.buys_card(good) for island in islands):
            raise RulesError(f"no island buys {good!s}")


def islands_from_data(data: object) -> tuple[Island, ...]:
    """An island table from plain data: a list of 12 objects with ``name``, ``buys`` (a
    good, or ``"any"``/``null``), ``values`` (I, II, III) and ``ship``, in clockwise order
    from Hochland. Raises :class:`RulesError` naming the entry at fault.

    >>> table = islands_from_data([{"name": i.name, "buys": "any" if i.buys is None else str(i.buys),
    ...                             "values": list(i.values), "ship": i.ship} for i in ISLANDS])
    >>> table == ISLANDS
    True
    """
    rows = data.get("islands") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise RulesError("an island table is a list of islands (or an object with an 'islands' list)")
    if len(rows) != len(ISLANDS):
        raise RulesError(f"the island table needs {len(ISLANDS)} islands, got {len(rows)}")
    table = []
    goods = {str(good): good for good in GOODS}
    for index, row in enumerate(rows):
        where = f"island {index}"
        if not isinstance(row, dict) or set(row) != {"name", "buys", "values", "ship"}:
            raise RulesError(f"{where}: expected the keys name, buys, values and ship, got {_short(row)}")
        name, buys, values, ship = row["name"], row["buys"], row["values"], row["ship"]
        if not isinstance(name, str) or name not in ISLAND_NAMES:
            raise RulesError(f"{where}: name must be one of {', '.join(ISLAND_NAMES)}, got {_short(name)}")
        if buys is not None and (not isinstance(buys, str) or (buys != "any" and buys not in goods)):
            raise RulesError(f"{where} ({name}): buys must be a good or 'any', got {_short(buys)}")
        if not isinstance(values, list) or len(values) != 3 or not all(type(v) is int for v in values):
            raise RulesError(f"{where} ({name}): values must be three whole numbers, got {_short(values)}")
        if type(ship) is not int:
            raise RulesError(f"{where} ({name}): ship must be a whole number, got {_short(ship)}")
        card = None if buys in (None, "any") else goods[buys]
        table.append(Island(name, card, (values[0], values[1], values[2]), ship))
    result = tuple(table)
    validate_islands(result)
    return result


MAX_TABLE_BYTES = 64 * 1024
"""The largest island table file :func:`load_islands` reads (a table has about 1 KB)."""

_MAX_BRACKETS = 100  # a table has 12 islands, each with a list of values


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_islands(path: str | os.PathLike[str]) -> tuple[Island, ...]:
    """Read and validate an island table from a JSON or TOML file (by its suffix).

    In TOML, write one ``[[islands]]`` table per island. Use the result as
    ``Rules(islands=load_islands("my-islands.toml"))``. Every problem, including a file
    over :data:`MAX_TABLE_BYTES`, nesting, repeated JSON keys or a wrong type anywhere, is
    a :class:`RulesError`.
    """
    file = Path(path)
    try:
        with file.open("rb") as stream:
            raw = stream.read(MAX_TABLE_BYTES + 1)
    except OSError as error:
        raise RulesError(f"cannot read {str(file)!r}: {error.strerror}") from None
    kind = "TOML" if file.suffix.lower() == ".toml" else "JSON"
    if len(raw) > MAX_TABLE_BYTES:
        raise RulesError(f"{str(file)!r}: an island table file has at most {MAX_TABLE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
        if text.count("[") + text.count("{") > _MAX_BRACKETS:
            raise ValueError("too many arrays, tables or objects for an island table")
        data: object = tomllib.loads(text) if kind == "TOML" else json.loads(text, object_pairs_hook=_unique)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and TOMLDecodeError are ValueErrors
        raise RulesError(f"{str(file)!r} is not valid {kind}: {error}") from None
    return islands_from_data(data)


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a key appears twice in an object")
    return data
