"""The rules page of ``meuterer serve``: roles, scoring and the island table with its steps,
made from the table's own rule set (:class:`~meuterer.rules.Rules`): the roles' help texts,
the islands and the payouts are read from the library, never written out here.

>>> from meuterer.rules import Rules
>>> page = rules_html(Rules(cabin_boy_points=4), players=3)
>>> "4 VP if a mutiny succeeds" in page, "<th>steps</th>" in page, "9 rounds" in page
(True, True, True)
"""

from __future__ import annotations

from html import escape

from meuterer.cards import Role
from meuterer.cli.play.render import role_help, role_name
from meuterer.phases.scoring import role_payouts
from meuterer.rules import Rules
from meuterer.svg import island_title

__all__ = ["rules_html"]

_STYLE = """body{font:16px/1.45 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 .8rem}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ccc;padding:.2rem .5rem;text-align:left}
td.n{text-align:right}"""


def _rows(rows: list[list[str]], header: list[str]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def rules_html(rules: Rules, players: int, start: int = 0) -> str:
    """The rules page for a game of ``players`` under ``rules``; the island table's steps
    count clockwise from the island at ``start`` (where the merchant ship lies)."""
    n = len(rules.islands)
    islands = []
    for k in range(n):
        island = rules.islands[(start + k) % n]
        buys = "any good" if island.buys is None else str(island.buys)
        islands.append([f"+{k}", island_title(island.name), buys, "/".join(map(str, island.values)), str(island.ship)])
    roles = [[role_name(role), role_help(rules, role)] for role in Role]
    ship, offer = 5, min(2, rules.max_offer)  # an example: the numbers come from the payouts
    kept = role_payouts(0, ship, offer, True, True, rules.cabin_boy_points)
    lost = role_payouts(1, ship, offer, True, True, rules.cabin_boy_points)
    scoring = [
        f"A game has {rules.rounds_for(players)} rounds with {players} players; the most VP wins (ties share).",
        f"The captain offers 0 to {rules.max_offer} VP to a mate. With a ship worth {ship} and an offer of "
        f"{offer}: if the captain keeps the ship he scores {kept[0]} VP and the mate {kept[1]}; if the mutiny "
        f"succeeds the mutineer scores {lost[0]} VP and becomes captain, the cabin boy {lost[2]}, the mate "
        f"{lost[1]}.",
        "In the sales, on each active island the players selling the most cards of the good it buys score "
        "its value I (alone), II (two tied) or III (three tied).",
        f"A full hand is {rules.hand_size} cards (at the setup and after the draw in phase 8)."
        + (" Pirates sail the ring (the pirate variant)." if rules.pirates else ""),
    ]
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'><title>Meuterer: the rules</title>"
        f"<style>{_STYLE}</style></head><body><h1>The rules at this table</h1>"
        "<h2 id='roles'>Roles</h2>"
        + _rows(roles, ["role", "what it does"])
        + "<h2 id='scoring'>Scoring</h2><ul>"
        + "".join(f"<li>{escape(line)}</li>" for line in scoring)
        + "</ul><h2 id='islands'>The island table</h2><p>Clockwise from the merchant ship: a destination "
        "of N face-down cards is the island N steps on (the <em>steps</em> column).</p>"
        + _rows(islands, ["steps", "island", "buys", "I/II/III", "ship VP"])
        + "</body></html>"
    )
