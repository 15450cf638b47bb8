"""The parts of :func:`meuterer.svg.board`'s picture: the palette, the drawing primitives
(an element, a card chip, a row of chips), the islands' printed names, and one panel per
seat with its role, cards, sales and score.

A picture is built as a tree of :class:`Element` and written out once, with the markup
``xml.etree.ElementTree.tostring`` gives such a tree, in a fraction of its time (the server
draws a board for every seat after every move).

>>> from meuterer.cards import Card
>>> island_title("karge_zunge"), CARD_LETTERS[Card.SUPPORT], shorten("Annabelle", 5)
('Karge Zunge', '+', 'Anna\u2026')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import attrs

from meuterer._cache import bounded
from meuterer.actions import Sale
from meuterer.cards import CARDS, Card, Counts, Role
from meuterer.state import State, Step
from meuterer.views import PlayerView

CARD_COLOURS: Final[dict[Card, str]] = {
    Card.RUBY: "#D55E00",  # vermillion
    Card.SALT: "#56B4E9",  # sky blue
    Card.WINE: "#CC79A7",  # reddish purple
    Card.CLOTH: "#0072B2",  # blue
    Card.GRAIN: "#F0E442",  # yellow
    Card.SUPPORT: "#009E73",  # bluish green
    Card.PIRATE: "#000000",  # black
}
"""The fill of each card kind (Okabe-Ito palette, safe for the common colour blindnesses)."""

CARD_LETTERS: Final[dict[Card, str]] = {
    Card.RUBY: "R",
    Card.SALT: "S",
    Card.WINE: "W",
    Card.CLOTH: "C",
    Card.GRAIN: "G",
    Card.SUPPORT: "+",
    Card.PIRATE: "P",
}
"""The letter on each card chip, so that no information is carried by colour alone."""

DARK_TEXT: Final = frozenset({Card.SALT, Card.WINE, Card.GRAIN})


@attrs.frozen
class Seat:
    hand: Counts | None
    hand_size: int
    face_up: Counts
    face_down: Counts | None
    face_down_size: int
    passed: bool
    role: Role | None
    chose_role: bool
    score: int
    drawn: Counts | None
    """The cards this seat has drawn this turn (phase 8), where the picture may show them."""
    drawn_size: int


def seat_infos(subject: State | PlayerView) -> tuple[Seat, ...]:
    seats = []
    for seat in range(subject.players):
        drawing = subject.to_act == seat and subject.step in (Step.DRAW, Step.LOADMASTER_DISCARD)
        if isinstance(subject, State):
            hand: Counts | None = subject.hands[seat]
            down: Counts | None = subject.face_down[seat]
            hand_size, down_size = sum(subject.hands[seat]), sum(subject.face_down[seat])
            drawn: Counts | None = subject.drawn if drawing else None
            drawn_size = sum(subject.drawn) if drawing else 0
        else:
            mine = seat == subject.player
            hand = subject.hand if mine else None
            down = subject.face_down if mine else None
            hand_size, down_size = subject.hand_sizes[seat], subject.face_down_sizes[seat]
            drawn = subject.drawn if mine and drawing else None
            drawn_size = subject.drawn_count if drawing else 0
        seats.append(
            Seat(
                hand,
                hand_size,
                subject.face_up[seat],
                down,
                down_size,
                subject.passed[seat],
                subject.roles[seat],
                seat in subject.role_order,
                subject.scores[seat],
                drawn,
                drawn_size,
            )
        )
    return tuple(seats)


class Written:
    """A part of a picture already written out as markup (a remembered part: see
    :func:`meuterer.svg.board`), placed among an :class:`Element`'s children as it stands.

    >>> svg = Element("svg", {})
    >>> svg.children.append(Written('<rect x="1" />'))
    >>> svg.markup()
    '<svg><rect x="1" /></svg>'
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def _write(self, write: Callable[[str], object]) -> None:
        write(self.text)


class Element:
    """An SVG element being drawn: its tag, attributes (in order), text and children.
    :meth:`markup` writes it as ``xml.etree.ElementTree.tostring`` writes such an element:
    ``&``, ``<`` and ``>`` escaped (and quotes, tabs and line breaks in attributes), an
    element without text or children closed as ``<tag ... />``.

    >>> svg = Element("svg", {"width": "10"})
    >>> _ = el(svg, "text", "a < b", x=1, class_="mt-s")
    >>> svg.set("height", "5")
    >>> svg.markup()
    '<svg width="10" height="5"><text x="1" class="mt-s">a &lt; b</text></svg>'
    """

    __slots__ = ("attributes", "children", "tag", "text")

    def __init__(self, tag: str, attributes: dict[str, str], text: str | None = None) -> None:
        self.tag = tag
        self.attributes = attributes
        self.text = text
        self.children: list[Element | Written] = []

    def set(self, name: str, value: str) -> None:
        """Set (or replace) an attribute."""
        self.attributes[name] = value

    def markup(self) -> str:
        """The element and everything in it as SVG text."""
        parts: list[str] = []
        self._write(parts.append)
        return "".join(parts)

    def inner(self) -> str:
        """Its children's markup, without the element itself."""
        parts: list[str] = []
        for child in self.children:
            child._write(parts.append)
        return "".join(parts)

    def _write(self, write: Callable[[str], object]) -> None:
        write("<" + self.tag)
        for name, value in self.attributes.items():
            write(f' {name}="{_escape_attribute(value)}"')
        if self.text or self.children:
            write(">")
            if self.text:
                write(_escape_text(self.text))
            for child in self.children:
                child._write(write)
            write(f"</{self.tag}>")
        else:
            write(" />")


def _escape_text(text: str) -> str:
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    return text


_ATTRIBUTE_ESCAPES: Final = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"))
_ATTRIBUTE_ESCAPES_RARE: Final = (("\r", "&#13;"), ("\n", "&#10;"), ("\t", "&#09;"))


def _escape_attribute(value: str) -> str:
    for plain, escaped in _ATTRIBUTE_ESCAPES:
        if plain in value:
            value = value.replace(plain, escaped)
    if value.isprintable():
        return value
    for plain, escaped in _ATTRIBUTE_ESCAPES_RARE:
        value = value.replace(plain, escaped)
    return value


def el(parent: Element, tag: str, text: str | None = None, **attributes: object) -> Element:
    """A new child of ``parent``; an attribute's name is its keyword with ``_`` for ``-``
    and a trailing ``_`` dropped (``class_``, ``stroke_width``, ``data_card``)."""
    element = Element(tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attributes.items()}, text)
    parent.children.append(element)
    return element


def chip(parent: Element, x: float, y: float, card: Card, count: int | None = None) -> float:
    """A card chip (coloured square with a letter, and ``x count``) at (x, y); returns its width."""
    el(parent, "rect", x=x, y=y, width=13, height=15, rx=2, fill=CARD_COLOURS[card], stroke="#333")
    colour = "mt-c mt-s mt-b" + ("" if card in DARK_TEXT else " mt-w")
    el(parent, "text", CARD_LETTERS[card], x=x + 6.5, y=y + 11.5, class_=colour)
    if count is None or count == 1:
        return 15
    el(parent, "text", f"\u00d7{count}", x=x + 14, y=y + 11.5, class_="mt-s")
    return 15 + 7 * len(str(count)) + 9


def chips(parent: Element, x: float, y: float, counts: Counts, right: float, pile: str = "") -> float:
    """The chips of a multiset from (x, y), wrapping at ``right`` (a dash when empty);
    returns the top of the last row. With a ``pile`` (a seat's ``hand``, ``drawn``,
    ``face_up`` or ``face_down``) each chip is a group ``mt-card`` naming its card and pile
    (``data-card``, ``data-pile``), which the server's page makes clickable."""
    if not any(counts):
        el(parent, "text", "\u2013", x=x, y=y + 11.5, class_="mt-s")
        return y
    start = x
    for card in CARDS:
        count = counts[card]
        if count:
            width = 15 if count == 1 else 15 + 7 * len(str(count)) + 9
            if x > start and x + width - 2 > right:
                x, y = start, y + 17
            group = el(parent, "g", class_="mt-card", data_card=card, data_pile=pile) if pile else parent
            x += chip(group, x, y, card, count)
    return y


def panel(
    svg: Element,
    subject: State | PlayerView,
    seat: int,
    info: Seat,
    x: float,
    y: float,
    width: float,
    name: str,
    you: bool,
) -> tuple[Element, float]:
    """Draw one seat's panel; returns its frame (to stretch) and the bottom of its content."""
    acting = subject.step is not Step.GAME_OVER and subject.to_act == seat
    group = el(svg, "g", class_="mt-seat", data_seat=seat)
    frame = el(
        group,
        "rect",
        x=x + 2,
        y=y,
        width=width - 4,
        height=0,
        rx=6,
        fill="#FFF8E1" if acting else "#F2F2F2",
        stroke="#E69F00" if acting else "#999",
        stroke_width=3 if acting else 1,
    )
    content, bottom = _panel_content(
        seat, info, x, y, width, name, you, acting, seat == subject.captain, subject.sales[seat]
    )
    group.children.append(Written(content))
    return frame, bottom


@bounded(size=4096)
def _panel_content(
    seat: int,
    info: Seat,
    x: float,
    y: float,
    width: float,
    name: str,
    you: bool,
    acting: bool,
    captain: bool,
    sales: tuple[Sale, ...] | None,
) -> tuple[str, float]:
    """A seat panel's content inside its frame, written, and the bottom of it: a function of
    what the panel shows, remembered (a move changes one or two of a table's panels, and a
    broadcast draws the same panel of another seat for every viewer)."""
    group = Element("g", {})
    right = x + width - 6
    # "(you)" goes on the line below, with "passed" and "to act": a long name never cuts it off.
    title = shorten(f"p{seat}" if name == f"p{seat}" else f"p{seat} {name}", int((width - 60) / 7.5))
    el(group, "text", title, x=x + 8, y=y + 16, class_="mt-m mt-b")
    el(group, "text", f"{info.score} VP", x=right, y=y + 16, class_="mt-m mt-b mt-e")
    # The role card: its name face up, or a card back for a role chosen but not known.
    if info.role is not None or info.chose_role:
        back = info.role is None
        label = "role ?" if back or info.role is None else role_name(info.role)
        fill = "#000" if back else "#FFF"
        el(group, "rect", x=x + 8, y=y + 22, width=72, height=16, rx=3, fill=fill, stroke="#000")
        el(group, "text", label, x=x + 44, y=y + 34, class_="mt-s mt-b mt-c" + (" mt-w" if back else ""))
    if captain:
        el(group, "rect", x=right - 50, y=y + 22, width=50, height=16, rx=3, fill="#0072B2", stroke="#000")
        el(group, "text", "captain", x=right - 25, y=y + 34, class_="mt-s mt-b mt-c mt-w")
    tags = [tag for tag, on in (("(you)", you), ("passed", info.passed), ("to act", acting)) if on]
    line = y + 52
    el(group, "text", ", ".join(tags) or " ", x=x + 8, y=line, class_="mt-s")
    rows: list[tuple[str, str, Counts | None, int]] = [
        ("hand", "hand", info.hand, info.hand_size),
        ("face up", "face_up", info.face_up, sum(info.face_up)),
        ("face down", "face_down", info.face_down, info.face_down_size),
    ]
    if info.drawn_size:
        rows.insert(1, ("of which drawn now", "drawn", info.drawn, info.drawn_size))  # part of the hand
    line += 8
    for label, pile, cards, size in rows:
        el(group, "text", f"{label} {size}", x=x + 8, y=line + 11.5, class_="mt-s")
        if cards is not None and size:
            line = chips(group, x + 72, line, cards, right, pile) + 17
        else:
            line += 17
    if sales is not None:
        parts = [f"{s.count} {s.card} on {island_title(s.island)}" for s in sales] or ["nothing"]
        for k, part in enumerate(parts):
            el(group, "text", ("sold " if k == 0 else "and ") + part, x=x + 8, y=line + 11, class_="mt-s")
            line += 14
    return group.inner(), line + 6


TITLES: Final = {
    "hochland": "Hochland",
    "frosthoehle": "Frosthöhle",
    "gruenland": "Grünland",
    "karge_zunge": "Karge Zunge",
    "eisfelsen": "Eisfelsen",
    "affeninsel": "Affeninsel",
    "kalte_klippe": "Kalte Klippe",
    "sommerland": "Sommerland",
    "rotes_riff": "Rotes Riff",
    "piratennest": "Piratennest",
    "fingerhut": "Fingerhut",
    "sandkap": "Sandkap",
}
"""The islands' names as printed on the cards (docs/rules.md, "The islands")."""


def island_title(name: str) -> str:
    """An island's name as a person reads it: the card's name, or the notation name in words.

    >>> island_title("karge_zunge"), island_title("frosthoehle")
    ('Karge Zunge', 'Frosthöhle')
    """
    return TITLES.get(name) or name.replace("_", " ").title()


def role_name(role: Role) -> str:
    return str(role).replace("_", " ")


def shorten(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters, with an ellipsis where it was cut."""
    return text if len(text) <= most else text[: max(1, most - 1)] + "\u2026"
