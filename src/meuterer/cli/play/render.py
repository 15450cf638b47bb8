"""Tables and texts of the terminal game, each made from the human's view only."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from rich import box
from rich.table import Table

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sale, Sell, Support
from meuterer.cards import CARD_BY_NAME, Card, Role, counts_str
from meuterer.machine import STEPS, Actor
from meuterer.rules import DiscardPool, Rules
from meuterer.rulings import destination as ruled_destination
from meuterer.rulings import mate_points, pirate_destination, robbery, strengths
from meuterer.state import Step
from meuterer.views import PlayerView

NUMBER_WORDS: Final = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(n: int) -> str:
    """``n`` in words up to ten (``no`` for 0), else in digits: the texts state the rule set's numbers.

    >>> number_word(3), number_word(0), number_word(12)
    ('three', 'no', '12')
    """
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def _discard_pool_text(rules: Rules) -> str:
    return "the cards you have just drawn" if rules.discard_pool is DiscardPool.DRAWN else "your hand"


def role_help(rules: Rules, role: Role) -> str:
    """What ``role`` does under ``rules``, in a line (every number read from the rule set).

    >>> role_help(Rules(), Role.CABIN_BOY)
    'side with the mutineer: 2 VP if a mutiny succeeds'
    >>> role_help(Rules(loadmaster_extra=2, discard_pool="hand"), Role.LOADMASTER)
    'draw two extra cards in phase 8, then discard two cards of your hand'
    """
    if role is Role.MUTINEER:
        return "seize the ship: your face-down cards set your own destination"
    if role is Role.CABIN_BOY:
        return f"side with the mutineer: {rules.cabin_boy_points} VP if a mutiny succeeds"
    if role is Role.MATE:
        return "side with the captain (counts as 1 support): 1 VP + the offer if he keeps the ship"
    if role is Role.MERCHANT:
        return "a tie for the lead on an island still pays you value I"
    if not rules.loadmaster_extra:
        return "draw no extra cards: under these rules the role brings nothing in phase 8"
    extra = number_word(rules.loadmaster_extra)
    noun = "card" if rules.loadmaster_extra == 1 else "cards"
    where = "of them" if rules.discard_pool is DiscardPool.DRAWN else f"{noun} of your hand"
    return f"draw {extra} extra {noun} in phase 8, then discard {extra} {where}"


def _any_buyers(rules: Rules) -> str:
    names = [island.name for island in rules.islands if island.buys is None]
    if not names:
        return "Every island buys only its own good."
    verb = "buys" if len(names) == 1 else "buy"
    return f"{' and '.join(names)} {verb} any good; the other islands only their own."


def phase_help(v: PlayerView) -> str:
    """The rules of the step ``v`` is at, in a few lines, for the player to act ("" for a
    step without a decision); every number is read from the rule set ``v.rules``."""
    rules = v.rules
    step = v.step
    if step is Step.OFFER:
        return (
            f"Phase 1, the captain's offer: choose how many VP (0 to {rules.max_offer}) you hand over to a mate. "
            "The mate scores 1 + the offer, which you pay, if you keep the ship; with no mate you pay nothing."
        )
    if step is Step.PLAY:
        return (
            "Phase 2, offering goods: play one card face up, or pass. Passing lays your whole hand face down; "
            "the number N of face-down cards is your destination, N islands clockwise from the ship (the 'steps' "
            "column of the island table). The captain's destination is fixed when he passes; anyone else takes a "
            "role at once. Face-up goods are sold in phase 5 on the active islands, where the players selling "
            "the most cards score I (alone), II (two tied) or III (three tied)."
        )
    if step is Step.CHOOSE_ROLE:
        return (
            "Phase 2, taking a role: pick one of the roles still in the centre. Roles are secret until everyone "
            "has passed; a mutineer's destination is N islands clockwise from the ship, N being his face-down cards."
        )
    if step is Step.MUTINY:
        return (
            "Phase 4, mutiny: turn any of your face-down support cards face up. The captain's side (captain, "
            "mate +1) faces the mutineer's side (mutineer, cabin boy); the stronger wins and a tie goes to the "
            "mutineer. Cards turned up here are lost at the clean-up."
        )
    if step is Step.SELL:
        keep = (
            "You may keep back any goods."
            if rules.withholding
            else "You must sell what you can: every face-up card of a kind you declare, and something on every "
            "active island that buys one of your goods."
        )
        return (
            "Phase 5, sales: declare what you sell, one kind of good per active island. "
            f"{_any_buyers(rules)} Support and pirate cards never sell. {keep}"
        )
    if step is Step.LOADMASTER_DISCARD:
        if not rules.loadmaster_extra:
            return "Phase 8, the loadmaster's discard: the rules give him no extra cards, so he discards nothing."
        return (
            f"Phase 8, the loadmaster's discard: choose {number_word(rules.loadmaster_extra)} of "
            f"{_discard_pool_text(rules)}."
        )
    return ""


HELP: Final = """\
Commands:
  a number        play the move with that number
  a move's text   e.g. 'p0 play wine', 'play wine', 'pass', 'offer 2', 'sell hochland:wine:2'
  undo            take back your last decision (and the bots' moves and the draws after it)
  board           show the whole table again
  help            this text
  why             the reasons the bots gave for their moves since yours
  quit            stop (the game is saved after every action; 'meuterer play --resume FILE' goes on)"""


def role_name(role: Role) -> str:
    return str(role).replace("_", " ")


def article(card: Card) -> str:
    if card is Card.SUPPORT:
        return "a support card"
    if card is Card.PIRATE:
        return "the pirate card"
    return f"a {card}"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cards(n: int) -> str:
    return plural(n, "card")


def sales_text(sales: Sequence[Sale]) -> str:
    return " and ".join(f"{sale.count} {sale.card} on {sale.island}" for sale in sales) or "nothing"


def buys(v: PlayerView, position: int) -> str:
    buys = v.island(position).buys
    return "any good" if buys is None else str(buys)


def steps(v: PlayerView, position: int) -> int:
    return (position - v.start) % len(v.ring)


def destination(v: PlayerView, n: int) -> str:
    position = ruled_destination(v, n)
    return f"+{n} {v.island_name(position)} (ship value {v.island(position).ship})"


# Tables and texts made from a view only -------------------------------------------------------


def ring_table(v: PlayerView) -> Table:
    table = Table(
        title="Islands, clockwise from the merchant ship", box=box.SIMPLE, show_edge=False, title_justify="left"
    )
    table.add_column("steps", justify="right")
    table.add_column("island")
    table.add_column("buys")
    table.add_column("I/II/III")
    table.add_column("ship VP", justify="right")
    table.add_column("")
    n = len(v.ring)
    for k in range(n):
        position = (v.start + k) % n
        island = v.island(position)
        notes = []
        if position == v.start:
            notes.append("merchant ship")
        if position == v.pirate:
            notes.append("pirate ship")
        if position in v.active:
            notes.append("active")
        if position == v.captain_destination:
            notes.append("deposed captain's destination" if round_captain(v) != v.captain else "captain's destination")
        if position == v.mutineer_destination:
            notes.append("mutineer's destination")
        style = "bold" if position in v.active else ""
        table.add_row(
            f"+{k}",
            island.name,
            buys(v, position),
            "/".join(map(str, island.values)),
            str(island.ship),
            ", ".join(notes),
            style=style,
        )
    return table


def round_captain(v: PlayerView) -> int:
    """The seat that was captain when the round began: after a successful mutiny the
    captain cards are the mutineer's, and the round's captain is the seat without a role."""
    if v.mutiny and Role.MUTINEER in v.roles:
        return next(p for p, role in enumerate(v.roles) if role is None)
    return v.captain


def seat_role(v: PlayerView, p: int) -> str:
    """What ``v`` shows of seat ``p``'s part this round: captain, a role, ``?`` (taken,
    still secret) or nothing; after a successful mutiny, the deposed captain and the new one."""
    if p == round_captain(v):
        return "captain (deposed)" if p != v.captain else "captain"
    known = v.roles[p]
    if known is None:
        return "?" if p in v.role_order else ""
    text = role_name(known) + ("" if v.roles_revealed else " (secret)")
    return text + (", now captain" if p == v.captain else "")


def players_table(v: PlayerView, name: Callable[[int], str]) -> Table:
    table = Table(box=box.SIMPLE, show_edge=False)
    for column in ("seat", "player", "score", "hand", "face up", "face down", "role", ""):
        numeric = column in ("score", "hand", "face down")
        table.add_column(column, justify="right" if numeric else "left", no_wrap=column in ("seat", "player"))
    for p in range(v.players):
        role = seat_role(v, p)
        notes = []
        if v.to_act == p and STEPS[v.step].actor is Actor.PLAYER:  # the machine says who decides
            notes.append("to act")
        if v.passed[p]:
            notes.append("passed")
        sales = v.sales[p]
        if sales is not None:
            notes.append("declared " + sales_text(sales))
        table.add_row(
            f"p{p}",
            name(p),
            str(v.scores[p]),
            str(v.hand_sizes[p]),
            counts_str(v.face_up[p]),
            str(v.face_down_sizes[p]) if v.passed[p] else "-",
            role,
            ", ".join(notes),
            style="bold" if p == v.player else None,
        )
    return table


def move_help(v: PlayerView, action: Action) -> str:
    """What ``action`` does, in words, for the human who may choose it."""
    if isinstance(action, Offer):
        return f"offer {action.amount} VP: a mate would score {mate_points(v, action.amount)} if you keep the ship"
    if isinstance(action, Play):
        left = v.hand_sizes[action.player] - 1
        text = f"play {article(action.card)} face up"
        if action.card is Card.PIRATE and v.pirate is not None:
            if not left:
                return text + ": the pirate ship does not move (no cards left in your hand)"
            target = pirate_destination(v, left)
            assert target is not None
            text += f": the pirate ship sails {left} island(s) counter-clockwise to {v.island_name(target)}"
            if robbery(v, left):
                text += " and robs every face-up card!"
        elif action.card is not Card.SUPPORT and not any(v.island(pos).buys_card(action.card) for pos in v.active):
            text += " (no active island buys it)"
        return text
    if isinstance(action, Pass):
        n = v.hand_sizes[action.player]
        if action.player == v.captain:
            return f"lay your {cards(n)} face down: your destination is {destination(v, n)}"
        return f"lay your {cards(n)} face down and take a role; a mutineer would sail to {destination(v, n)}"
    if isinstance(action, ChooseRole):
        text = role_help(v.rules, action.role)
        if action.role is Role.MUTINEER:
            text += f": {destination(v, v.face_down_sizes[action.player])}"
        elif action.role is Role.MATE and v.offer is not None:
            text += f" ({mate_points(v, v.offer)} VP)"
        return text
    if isinstance(action, Support):
        captain, mutineer = strengths(v)
        mine, theirs = (captain, mutineer) if v.roles[action.player] in (None, Role.MATE) else (mutineer, captain)
        text = "keep your support cards face down" if not action.count else f"turn {action.count} support card(s) up"
        return text + f": your side {mine + action.count} against {theirs} so far"
    if isinstance(action, Sell):
        return "sell nothing" if not action.sales else "sell " + sales_text(action.sales)
    if isinstance(action, Discard):
        if not action.cards:
            return "discard nothing (the rules give the loadmaster no extra cards)"
        return f"discard these {number_word(len(action.cards))}, keep the rest"
    return ""


def canonical(text: str) -> str:
    """``text`` with a discard's cards put in canonical order (the notation asks for it)."""
    tokens = text.split(" ")
    if len(tokens) > 2 and tokens[1] == "discard" and all(t in CARD_BY_NAME for t in tokens[2:]):
        tokens[2:] = sorted(tokens[2:], key=lambda t: CARD_BY_NAME[t])
    return " ".join(tokens)
