"""Pictures of the table: a self-contained SVG of a state or of one player's view.

:func:`board` draws the ring of islands (name, the good each buys, its I/II/III sale
values and ship value, light when active and dark when passive), the merchant ship, the
pirate ship in the variant, the captain's (C) and mutineer's (M) destination markers,
the captain cards with the offer, the deck and discard pile, and a panel per seat with
the role card, hand, face-up cards, face-down pile, sales and score.

Given a :class:`~meuterer.views.PlayerView` it draws only what that player may see:
other players' hands and face-down piles as counts, unrevealed roles as card backs.
The picture is written with the standard library only, in the Okabe-Ito colour-blind-safe
palette, every colour doubled by a letter, and is drawn 900 px wide by default (readable
from 600 px).

>>> import meuterer
>>> from meuterer.svg import board
>>> actions, _ = meuterer.random_game(seed=3, players=3)
>>> state = meuterer.Game.replay(actions[:30], players=3).state
>>> picture = board(state)
>>> picture.startswith("<svg") and "Hochland" in picture
True
>>> board(state, perspective=1) == board(meuterer.view(state, 1))
True
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Final

import attrs

from meuterer.cards import CARDS, ROLES, Card, Counts, Role
from meuterer.errors import MeutererError
from meuterer.record import display
from meuterer.rulings import strengths, winners
from meuterer.state import State, Step
from meuterer.views import PlayerView, view

__all__ = ["CARD_COLOURS", "CARD_LETTERS", "SIZE", "Svg", "board", "island_title"]

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

_DARK_TEXT: Final = frozenset({Card.SALT, Card.WINE, Card.GRAIN})
_WIDTH: Final = 600
"""The picture's own width (its coordinates); it is drawn :data:`SIZE` pixels wide by default."""
SIZE: Final = 900
"""The default width in pixels (text about 15 px high)."""
_STYLE: Final = (
    "text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;fill:#111}"
    ".mt-s{font-size:10px}.mt-m{font-size:12px}.mt-l{font-size:15px;font-weight:bold}"
    ".mt-b{font-weight:bold}.mt-w{fill:#fff}.mt-c{text-anchor:middle}.mt-e{text-anchor:end}"
)


class Svg(str):
    """SVG text that Jupyter shows as a picture (the idea of python-chess's ``chess.svg``)."""

    __slots__ = ()

    def _repr_svg_(self) -> str:
        return str(self)


@attrs.frozen
class _Seat:
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


def _seats(subject: State | PlayerView) -> tuple[_Seat, ...]:
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
            _Seat(
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


def _el(parent: ET.Element, tag: str, text: str | None = None, **attributes: object) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v) for k, v in attributes.items()})
    if text is not None:
        element.text = text
    return element


def _chip(parent: ET.Element, x: float, y: float, card: Card, count: int | None = None) -> float:
    """A card chip (coloured square with a letter, and ``x count``) at (x, y); returns its width."""
    _el(parent, "rect", x=x, y=y, width=13, height=15, rx=2, fill=CARD_COLOURS[card], stroke="#333")
    colour = "mt-c mt-s mt-b" + ("" if card in _DARK_TEXT else " mt-w")
    _el(parent, "text", CARD_LETTERS[card], x=x + 6.5, y=y + 11.5, class_=colour)
    if count is None or count == 1:
        return 15
    _el(parent, "text", f"\u00d7{count}", x=x + 14, y=y + 11.5, class_="mt-s")
    return 15 + 7 * len(str(count)) + 9


def _chips(parent: ET.Element, x: float, y: float, counts: Counts, right: float) -> float:
    """The chips of a multiset from (x, y), wrapping at ``right`` (a dash when empty);
    returns the top of the last row."""
    if not any(counts):
        _el(parent, "text", "\u2013", x=x, y=y + 11.5, class_="mt-s")
        return y
    start = x
    for card in CARDS:
        count = counts[card]
        if count:
            width = 15 if count == 1 else 15 + 7 * len(str(count)) + 9
            if x > start and x + width - 2 > right:
                x, y = start, y + 17
            x += _chip(parent, x, y, card, count)
    return y


def _ship(parent: ET.Element, x: float, y: float, colour: str, label: str) -> None:
    """A small ship glyph centred on (x, y), with a one-letter label (if any) on its sail."""
    group = _el(parent, "g", transform=f"translate({x:.1f},{y:.1f})")
    _el(group, "path", d="M-10,2 L10,2 L6,8 L-6,8 Z", fill=colour, stroke="#000")
    _el(group, "path", d="M0,2 L0,-10 L8,0 Z", fill="#fff", stroke="#000")
    if label:
        _el(group, "text", label, x=-4, y=0, class_="mt-s mt-b mt-c")


def _flag(parent: ET.Element, x: float, y: float, colour: str, label: str) -> None:
    """A destination flag centred on (x, y) with a white letter."""
    group = _el(parent, "g", transform=f"translate({x:.1f},{y:.1f})")
    _el(group, "path", d="M-7,11 L-7,-11", stroke="#000", stroke_width=1.5)
    _el(group, "path", d="M-7,-11 L11,-4 L-7,3 Z", fill=colour, stroke="#000")
    _el(group, "text", label, x=-1, y=-0.5, class_="mt-w mt-b mt-c", font_size=9)


def _step_text(subject: State | PlayerView) -> str:
    step = subject.step
    if step is Step.GAME_OVER:
        return "game over"
    text = f"phase {int(subject.phase)} ({step.value.replace('_', ' ')})"
    if step in (Step.DEAL, Step.DRAW):
        return f"{text}: p{subject.to_act} draws, {subject.draws_left} to go"
    if step is Step.RING:
        return f"{text}: the islands are laid out"
    return f"{text}: p{subject.to_act} to act"


def _islands(svg: ET.Element, subject: State | PlayerView, cx: float, cy: float) -> None:
    radius, inner = 196, 136
    n = len(subject.ring)
    markers: dict[int, list[tuple[str, str, str]]] = {}
    markers.setdefault(subject.start, []).append(("ship", "#E69F00", ""))  # no letter: S is salt
    if subject.pirate is not None:
        markers.setdefault(subject.pirate, []).append(("ship", "#000000", "P"))
    if subject.captain_destination is not None:
        markers.setdefault(subject.captain_destination, []).append(("flag", "#0072B2", "C"))
    if subject.mutineer_destination is not None:
        markers.setdefault(subject.mutineer_destination, []).append(("flag", "#D55E00", "M"))
    for pos in range(n):
        island = subject.island(pos)
        angle = math.radians(-90 + 360 * pos / n)
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        active = pos in subject.active
        group = _el(svg, "g", class_="mt-island", data_pos=pos)
        _el(
            group,
            "rect",
            x=f"{x - 44:.1f}",
            y=f"{y - 26:.1f}",
            width=88,
            height=52,
            rx=6,
            fill="#FFFFFF" if active else "#4D4D4D",
            stroke="#000" if active else "#4D4D4D",
            stroke_width=2.5 if active else 1,
        )
        tone = "" if active else " mt-w"
        _el(group, "text", island_title(island.name), x=f"{x:.1f}", y=f"{y - 12:.1f}", class_="mt-s mt-b mt-c" + tone)
        if island.buys is None:
            _el(group, "text", "buys any good", x=f"{x:.1f}", y=f"{y + 3:.1f}", class_="mt-s mt-c" + tone)
        else:
            _chip(group, x - 34, y - 7, island.buys)
            _el(group, "text", f"buys {island.buys}", x=f"{x - 17:.1f}", y=f"{y + 3:.1f}", class_="mt-s" + tone)
        values = "/".join(map(str, island.values))
        _el(group, "text", f"{values}  ship {island.ship}", x=f"{x:.1f}", y=f"{y + 19:.1f}", class_="mt-s mt-c" + tone)
        # The ships and flags of an island stand in a row just inside it, on its own side of
        # the ring (never out towards its neighbours).
        here = markers.get(pos, [])
        mx, my = cx + inner * math.cos(angle), cy + inner * math.sin(angle)
        for k, (kind, colour, label) in enumerate(here):
            offset = (k - (len(here) - 1) / 2) * 22
            px, py = mx + offset, my
            if kind == "ship":
                _ship(svg, px, py, colour, label)
            else:
                _flag(svg, px, py, colour, label)


def _centre(svg: ET.Element, subject: State | PlayerView, cx: float, cy: float) -> None:
    # The captain cards: the offer face up, on a card in the captain's colour.
    _el(svg, "rect", x=cx - 70, y=cy - 92, width=140, height=40, rx=5, fill="#0072B2", stroke="#000")
    _el(svg, "text", f"captain p{subject.captain}", x=cx, y=cy - 76, class_="mt-m mt-b mt-c mt-w")
    offer = "no offer yet" if subject.offer is None else f"offer {subject.offer} VP to a mate"
    _el(svg, "text", offer, x=cx, y=cy - 60, class_="mt-s mt-c mt-w")
    if isinstance(subject, State):
        _el(svg, "text", f"deck {sum(subject.deck)}:", x=cx - 50, y=cy - 28, class_="mt-s mt-e")
        _chips(svg, cx - 45, cy - 40, subject.deck, cx + 115)
        y = cy - 2
    else:
        _el(svg, "text", f"deck {subject.deck_size} cards (face down)", x=cx, y=cy - 28, class_="mt-s mt-c")
        y = cy - 12
    _el(svg, "text", f"discard {sum(subject.discard)}:", x=cx - 50, y=y + 12, class_="mt-s mt-e")
    y = _chips(svg, cx - 45, y, subject.discard, cx + 115)
    lines = []
    if subject.step is Step.MUTINY:
        # Strengths as the core counts them, while the participants add supports.
        captain_side, mutineer_side = strengths(subject)
        lines.append(f"mutiny: captain's side {captain_side}, mutineer's side {mutineer_side}")
    elif subject.mutiny is not None:
        lines.append("the mutiny succeeded" if subject.mutiny else "the mutiny failed")
    destinations = []
    if subject.captain_destination is not None:
        destinations.append(f"C captain to {island_title(subject.island_name(subject.captain_destination))}")
    if subject.mutineer_destination is not None:
        destinations.append(f"M mutineer to {island_title(subject.island_name(subject.mutineer_destination))}")
    lines.extend(destinations)
    if subject.step in (Step.PLAY, Step.CHOOSE_ROLE):
        if isinstance(subject, State):
            left = [role for role in ROLES if role not in subject.roles]
            lines.append("roles left: " + ", ".join(_role_name(role) for role in left))
        elif subject.roles_seen is not None:
            lines.append("roles left when you chose: " + ", ".join(_role_name(role) for role in subject.roles_seen))
    for k, line in enumerate(lines):
        _el(svg, "text", line, x=cx, y=y + 40 + 15 * k, class_="mt-s mt-c")


def _panel(
    svg: ET.Element,
    subject: State | PlayerView,
    seat: int,
    info: _Seat,
    x: float,
    y: float,
    width: float,
    name: str,
    you: bool,
) -> tuple[ET.Element, float]:
    """Draw one seat's panel; returns its frame (to stretch) and the bottom of its content."""
    right = x + width - 6
    acting = subject.step is not Step.GAME_OVER and subject.to_act == seat
    group = _el(svg, "g", class_="mt-seat", data_seat=seat)
    frame = _el(
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
    # "(you)" goes on the line below, with "passed" and "to act": a long name never cuts it off.
    title = _shorten(f"p{seat}" if name == f"p{seat}" else f"p{seat} {name}", int((width - 60) / 7.5))
    _el(group, "text", title, x=x + 8, y=y + 16, class_="mt-m mt-b")
    _el(group, "text", f"{info.score} VP", x=right, y=y + 16, class_="mt-m mt-b mt-e")
    # The role card: its name face up, or a card back for a role chosen but not known.
    if info.role is not None or info.chose_role:
        back = info.role is None
        label = "role ?" if back or info.role is None else _role_name(info.role)
        fill = "#000" if back else "#FFF"
        _el(group, "rect", x=x + 8, y=y + 22, width=72, height=16, rx=3, fill=fill, stroke="#000")
        _el(group, "text", label, x=x + 44, y=y + 34, class_="mt-s mt-b mt-c" + (" mt-w" if back else ""))
    if seat == subject.captain:
        _el(group, "rect", x=right - 50, y=y + 22, width=50, height=16, rx=3, fill="#0072B2", stroke="#000")
        _el(group, "text", "captain", x=right - 25, y=y + 34, class_="mt-s mt-b mt-c mt-w")
    tags = [tag for tag, on in (("(you)", you), ("passed", info.passed), ("to act", acting)) if on]
    line = y + 52
    _el(group, "text", ", ".join(tags) or " ", x=x + 8, y=line, class_="mt-s")
    rows: list[tuple[str, Counts | None, int]] = [
        ("hand", info.hand, info.hand_size),
        ("face up", info.face_up, sum(info.face_up)),
        ("face down", info.face_down, info.face_down_size),
    ]
    if info.drawn_size:
        rows.insert(1, ("of which drawn now", info.drawn, info.drawn_size))  # part of the hand
    line += 8
    for label, cards, size in rows:
        _el(group, "text", f"{label} {size}", x=x + 8, y=line + 11.5, class_="mt-s")
        if cards is not None and size:
            line = _chips(group, x + 72, line, cards, right) + 17
        else:
            line += 17
    sales = subject.sales[seat]
    if sales is not None:
        parts = [f"{s.count} {s.card} on {island_title(s.island)}" for s in sales] or ["nothing"]
        for k, part in enumerate(parts):
            _el(group, "text", ("sold " if k == 0 else "and ") + part, x=x + 8, y=line + 11, class_="mt-s")
            line += 14
    return frame, line + 6


_TITLES: Final = {
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
    return _TITLES.get(name) or name.replace("_", " ").title()


def _role_name(role: Role) -> str:
    return str(role).replace("_", " ")


def _shorten(text: str, most: int) -> str:
    """``text`` cut to ``most`` characters, with an ellipsis where it was cut."""
    return text if len(text) <= most else text[: max(1, most - 1)] + "\u2026"


def board(
    state_or_view: State | PlayerView,
    *,
    size: int = SIZE,
    perspective: int | None = None,
    names: Sequence[str] | None = None,
) -> Svg:
    """An SVG picture of ``state_or_view``, ``size`` pixels wide, as text (a ``str`` that
    Jupyter shows as the picture).

    A :class:`~meuterer.state.State` is drawn whole (every hand, the deck's composition)
    unless ``perspective`` names a seat: then it is drawn as that seat sees it, exactly
    as ``board(view(state, perspective))``. A :class:`~meuterer.views.PlayerView` is drawn
    with what its player may see only (its ``perspective`` may only be its own seat).
    ``names`` are the seats' names, shown beside ``p0``, ``p1``...
    """
    subject: State | PlayerView = state_or_view
    if isinstance(subject, State):
        if perspective is not None:
            subject = view(subject, perspective)
    elif not isinstance(subject, PlayerView):
        raise MeutererError(f"board draws a State or a PlayerView, got {type(subject).__name__}")
    elif perspective is not None and perspective != subject.player:
        raise MeutererError(f"a view of {subject.player} cannot be drawn from the perspective of {perspective}")
    if type(size) is not int or size <= 0:
        raise MeutererError(f"size must be a positive number of pixels, got {size!r}")
    players = subject.players
    if names is not None and len(names) != players:
        raise MeutererError(f"names must name the {players} seats, got {len(names)}")
    seat_names = [f"p{seat}" for seat in range(players)] if names is None else [display(str(n)) for n in names]
    height = 664  # stretched below to fit the tallest seat panel
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {_WIDTH} {height}",
            "width": str(size),
            "height": str(round(size * height / _WIDTH)),
            "class": "meuterer-board",
            "role": "img",
        },
    )
    viewer = subject.player if isinstance(subject, PlayerView) else None
    who = (
        "the whole table"
        if isinstance(subject, State)
        else ("a spectator's view" if viewer is None else f"p{viewer}'s view")
    )
    rounds = subject.rules.rounds_for(players)
    _el(svg, "title", f"Meuterer, round {subject.round} of {rounds}, {_step_text(subject)}: {who}")
    _el(svg, "style", _STYLE)
    background = _el(svg, "rect", x=0, y=0, width=_WIDTH, height=height, fill="#FFFFFF")
    _el(svg, "text", f"Round {subject.round} of {rounds}", x=8, y=20, class_="mt-l")
    step = _step_text(subject)
    if subject.step is Step.GAME_OVER:
        step += ": won by " + " and ".join(seat_names[seat] for seat in winners(subject))
    _el(svg, "text", step, x=8, y=36, class_="mt-s")
    _el(svg, "text", who, x=_WIDTH - 8, y=20, class_="mt-m mt-b mt-e")
    scores = " \u00b7 ".join(f"{_shorten(seat_names[s], 10)} {subject.scores[s]} VP" for s in range(players))
    _el(svg, "text", scores, x=_WIDTH - 8, y=36, class_="mt-s mt-e")
    cx, cy = _WIDTH / 2, 262
    _islands(svg, subject, cx, cy)
    _centre(svg, subject, cx, cy)
    seats = _seats(subject)
    order = list(range(players))
    if viewer is not None:
        order = order[viewer:] + order[:viewer]
    width = _WIDTH / players
    top = 494
    panels = [
        _panel(svg, subject, seat, seats[seat], k * width, top, width, seat_names[seat], seat == viewer)
        for k, seat in enumerate(order)
    ]
    bottom = max(max(end for _, end in panels), top + 150)
    for frame, _ in panels:
        frame.set("height", f"{bottom - top:.0f}")
    height = round(bottom) + 20
    svg.set("viewBox", f"0 0 {_WIDTH} {height}")
    svg.set("height", str(round(size * height / _WIDTH)))
    background.set("height", str(height))
    legend = "light island: active · dark: passive · values I/II/III · orange ship: merchant, P: pirates · C/M flags"
    _el(svg, "text", legend, x=cx, y=height - 6, class_="mt-s mt-c")
    return Svg(ET.tostring(svg, encoding="unicode"))


def register_pictures() -> None:
    """Give :class:`~meuterer.state.State` and :class:`~meuterer.views.PlayerView` a
    ``_repr_svg_`` that draws them with :func:`board` (Jupyter shows it). Done when this
    module is imported, which ``import meuterer`` does: the core never imports pictures.
    """
    for cls in (State, PlayerView):
        setattr(cls, "_repr_svg_", board)  # noqa: B010 - a method added from above, by name


register_pictures()
