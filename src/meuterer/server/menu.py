"""The online tables' bot menu: strengths by name (easy, medium, hard), each the agent spec it
plays, what it plays and how strong it was measured, and a practice bot.

:data:`MENU` is the one place the menu's specs are declared. A level may have several
entries: a table is offered, for each level, the first of its entries that plays the
table's player count and rules (the learned ``policy`` plays 4-player games under
``Rules()`` only, so a 3-player table's easy bot is ``greedy`` instead). Whether an entry plays
a table is :func:`meuterer.server.bots.check_spec`'s answer, the check a table's opening
makes, so the menu never offers a bot the server would refuse.

>>> [choice.label for choice in offered(3, Rules())]
['easy bot (greedy)', 'medium bot (ismcts:10)', 'hard bot (ismcts:40)', 'random (practice)']
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from meuterer.cards import SEAT_COUNTS
from meuterer.errors import MeutererError
from meuterer.rules import Rules
from meuterer.server.bots import check_spec

__all__ = ["LEVELS", "MENU", "Choice", "menu_json", "offered"]

LEVELS: Final = ("easy", "medium", "hard", "practice")
"""The menu's levels, weakest first; ``practice`` is the random bot, offered apart."""


@attrs.frozen
class Choice:
    """A menu entry: its ``level``, the agent ``spec`` it plays, a one-line ``description``
    (how it plays, its measured strength) and the games it plays (``players``; whether only
    under ``Rules()``). The claims are checked against the server's ``check_spec`` by the
    tests; :meth:`plays` asks ``check_spec`` itself."""

    level: str = attrs.field(validator=attrs.validators.in_(LEVELS))
    spec: str
    description: str
    players: tuple[int, ...] = SEAT_COUNTS
    default_rules_only: bool = False

    @property
    def label(self) -> str:
        """The entry in words: ``easy bot (greedy)``, or ``random (practice)``."""
        return f"{self.spec} (practice)" if self.level == "practice" else f"{self.level} bot ({self.spec})"

    def plays(self, players: int, rules: Rules) -> bool:
        """Whether the server accepts this bot at a table of ``players`` under ``rules``.

        >>> Choice("hard", "ismcts:40", "").plays(3, Rules()), Choice("hard", "ismcts:401", "").plays(3, Rules())
        (True, False)
        """
        try:
            check_spec(self.spec, players, rules)
        except MeutererError:
            return False
        return True

    def as_json(self) -> dict[str, Any]:
        """The entry as ``GET /api/tables`` lists it."""
        return {
            "level": self.level,
            "label": self.label,
            "spec": self.spec,
            "description": self.description,
            "players": list(self.players),
            "default_rules_only": self.default_rules_only,
        }


MENU: Final = (
    Choice(
        "easy",
        "policy",
        "a small learned network, no search (4 players, standard rules): wins 42.3 % against three greedy bots, "
        "about greedy's rank among stronger bots",
        players=(4,),
        default_rules_only=True,
    ),
    Choice(
        "easy",
        "greedy",
        "hand-written estimates, no search: wins 24.7 % of 4-player games against three greedy bots (par 25 %)",
    ),
    Choice(
        "medium",
        "ismcts:10",
        "searches 10 iterations a move: wins 44.5 % of 4-player games against three greedy bots",
    ),
    Choice(
        "hard",
        "ismcts:40",
        "searches 40 iterations a move: wins 51.3 % of 4-player games against three greedy bots",
    ),
    Choice(
        "practice",
        "random",
        "plays any legal move at random, to learn the rules against: won 0.1 % of its 1,360 games in the rating league",
    ),
)
"""The bot menu, each level's entries in the order they are tried (the figures: win shares
from ``docs/bots.md``, ``docs/policy.md``, ``docs/rating.md`` and, for ``ismcts:10``,
``docs/server.md``)."""


def offered(players: int, rules: Rules) -> list[Choice]:
    """For each level, the first entry of :data:`MENU` that plays ``players`` under
    ``rules`` (a level none plays is left out).

    >>> [choice.spec for choice in offered(4, Rules(pirates=True))]
    ['greedy', 'ismcts:10', 'ismcts:40', 'random']
    """
    chosen: list[Choice] = []
    for level in LEVELS:
        found = next((c for c in MENU if c.level == level and c.plays(players, rules)), None)
        if found is not None:
            chosen.append(found)
    return chosen


def menu_json(players: int | None = None, rules: Rules | None = None) -> list[dict[str, Any]]:
    """``GET /api/tables``'s ``bot_menu``: every entry of :data:`MENU`, or with ``players``
    only those :func:`offered` at such a table (under ``rules``, default ``Rules()``).

    >>> [entry["spec"] for entry in menu_json()]
    ['policy', 'greedy', 'ismcts:10', 'ismcts:40', 'random']
    >>> menu_json(3)[1]["label"]
    'medium bot (ismcts:10)'
    """
    chosen = list(MENU) if players is None else offered(players, Rules() if rules is None else rules)
    return [choice.as_json() for choice in chosen]
