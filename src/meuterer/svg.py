"""Pictures of the table: a self-contained SVG of a state or of one player's view.

:func:`board` draws the ring of islands (name, the good each buys, its I/II/III sale
values and ship value, light when active and dark when passive), the merchant ship, the
pirate ship in the variant, the captain's (C) and mutineer's (M) destination markers,
the captain cards with the offer, the deck and discard pile, and a panel per seat with
the role card, hand, face-up cards, face-down pile, sales and score.

Given a :class:`~meuterer.views.PlayerView` it draws only what that player may see:
other players' hands and face-down piles as counts, unrevealed roles as card backs; while
the viewer chooses his role, the roles left are cards in the centre. The things a move can
be about name themselves for a page that makes them clickable: each island's group its
``data-island``, each card chip of a seat's panel its ``data-card`` and ``data-pile``
(``hand``, ``drawn``, ``face_up``, ``face_down``), each role card its ``data-role``.
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
from collections.abc import Sequence
from typing import Final

from meuterer._cache import bounded
from meuterer.cards import ROLES, Role
from meuterer.errors import MeutererError
from meuterer.islands import Island
from meuterer.record import display
from meuterer.rulings import strengths, winners
from meuterer.state import State, Step
from meuterer.svg_parts import CARD_COLOURS as CARD_COLOURS
from meuterer.svg_parts import CARD_LETTERS as CARD_LETTERS
from meuterer.svg_parts import Element, Written, chip, chips, el, panel, role_name, seat_infos, shorten
from meuterer.svg_parts import island_title as island_title
from meuterer.views import PlayerView, view

__all__ = ["CARD_COLOURS", "CARD_LETTERS", "SIZE", "Svg", "board", "island_title"]

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


def _ship(parent: Element, x: float, y: float, colour: str, label: str) -> None:
    """A small ship glyph centred on (x, y), with a one-letter label (if any) on its sail."""
    group = el(parent, "g", transform=f"translate({x:.1f},{y:.1f})")
    el(group, "path", d="M-10,2 L10,2 L6,8 L-6,8 Z", fill=colour, stroke="#000")
    el(group, "path", d="M0,2 L0,-10 L8,0 Z", fill="#fff", stroke="#000")
    if label:
        el(group, "text", label, x=-4, y=0, class_="mt-s mt-b mt-c")


def _flag(parent: Element, x: float, y: float, colour: str, label: str) -> None:
    """A destination flag centred on (x, y) with a white letter."""
    group = el(parent, "g", transform=f"translate({x:.1f},{y:.1f})")
    el(group, "path", d="M-7,11 L-7,-11", stroke="#000", stroke_width=1.5)
    el(group, "path", d="M-7,-11 L11,-4 L-7,3 Z", fill=colour, stroke="#000")
    el(group, "text", label, x=-1, y=-0.5, class_="mt-w mt-b mt-c", font_size=9)


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


def _islands(svg: Element, subject: State | PlayerView, cx: float, cy: float) -> None:
    markers: dict[int, list[tuple[str, str, str]]] = {}
    markers.setdefault(subject.start, []).append(("ship", "#E69F00", ""))  # no letter: S is salt
    if subject.pirate is not None:
        markers.setdefault(subject.pirate, []).append(("ship", "#000000", "P"))
    if subject.captain_destination is not None:
        markers.setdefault(subject.captain_destination, []).append(("flag", "#0072B2", "C"))
    if subject.mutineer_destination is not None:
        markers.setdefault(subject.mutineer_destination, []).append(("flag", "#D55E00", "M"))
    n = len(subject.ring)
    ring = tuple((subject.island(pos), pos in subject.active, tuple(markers.get(pos, ()))) for pos in range(n))
    svg.children.append(Written(_ring(ring, cx, cy)))


@bounded(size=1024)
def _ring(ring: tuple[tuple[Island, bool, tuple[tuple[str, str, str], ...]], ...], cx: float, cy: float) -> str:
    """The ring of islands, written: each island (whether active) with the ships and flags at
    it. A function of what it shows, remembered: it changes a few times a round."""
    svg = Element("g", {})
    radius, inner = 196, 136
    n = len(ring)
    for pos, (island, active, here) in enumerate(ring):
        angle = math.radians(-90 + 360 * pos / n)
        x, y = cx + radius * math.cos(angle), cy + radius * math.sin(angle)
        group = el(svg, "g", class_="mt-island", data_pos=pos, data_island=island.name)
        el(
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
        el(group, "text", island_title(island.name), x=f"{x:.1f}", y=f"{y - 12:.1f}", class_="mt-s mt-b mt-c" + tone)
        if island.buys is None:
            el(group, "text", "buys any good", x=f"{x:.1f}", y=f"{y + 3:.1f}", class_="mt-s mt-c" + tone)
        else:
            chip(group, x - 34, y - 7, island.buys)
            el(group, "text", f"buys {island.buys}", x=f"{x - 17:.1f}", y=f"{y + 3:.1f}", class_="mt-s" + tone)
        values = "/".join(map(str, island.values))
        el(group, "text", f"{values}  ship {island.ship}", x=f"{x:.1f}", y=f"{y + 19:.1f}", class_="mt-s mt-c" + tone)
        # The ships and flags of an island stand in a row just inside it, on its own side of
        # the ring (never out towards its neighbours).
        mx, my = cx + inner * math.cos(angle), cy + inner * math.sin(angle)
        for k, (kind, colour, label) in enumerate(here):
            offset = (k - (len(here) - 1) / 2) * 22
            px, py = mx + offset, my
            if kind == "ship":
                _ship(svg, px, py, colour, label)
            else:
                _flag(svg, px, py, colour, label)
    return svg.inner()


def _centre(svg: Element, subject: State | PlayerView, cx: float, cy: float) -> None:
    # The captain cards: the offer face up, on a card in the captain's colour.
    el(svg, "rect", x=cx - 70, y=cy - 92, width=140, height=40, rx=5, fill="#0072B2", stroke="#000")
    el(svg, "text", f"captain p{subject.captain}", x=cx, y=cy - 76, class_="mt-m mt-b mt-c mt-w")
    offer = "no offer yet" if subject.offer is None else f"offer {subject.offer} VP to a mate"
    el(svg, "text", offer, x=cx, y=cy - 60, class_="mt-s mt-c mt-w")
    if isinstance(subject, State):
        el(svg, "text", f"deck {sum(subject.deck)}:", x=cx - 50, y=cy - 28, class_="mt-s mt-e")
        chips(svg, cx - 45, cy - 40, subject.deck, cx + 115)
        y = cy - 2
    else:
        el(svg, "text", f"deck {subject.deck_size} cards (face down)", x=cx, y=cy - 28, class_="mt-s mt-c")
        y = cy - 12
    el(svg, "text", f"discard {sum(subject.discard)}:", x=cx - 50, y=y + 12, class_="mt-s mt-e")
    y = chips(svg, cx - 45, y, subject.discard, cx + 115)
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
    choosing = _choosing(subject)
    if subject.step in (Step.PLAY, Step.CHOOSE_ROLE):
        if isinstance(subject, State):
            left = [role for role in ROLES if role not in subject.roles]
            lines.append("roles left: " + ", ".join(role_name(role) for role in left))
        elif subject.roles_seen is not None and not choosing:
            lines.append("roles left when you chose: " + ", ".join(role_name(role) for role in subject.roles_seen))
    for k, line in enumerate(lines):
        el(svg, "text", line, x=cx, y=y + 40 + 15 * k, class_="mt-s mt-c")
    if choosing:
        _role_cards(svg, choosing, cx, y + 40 + 15 * len(lines))


def _choosing(subject: State | PlayerView) -> tuple[Role, ...]:
    """The roles the viewer of ``subject`` chooses from now (none when he is not choosing)."""
    if isinstance(subject, State) or subject.step is not Step.CHOOSE_ROLE or subject.to_act != subject.player:
        return ()
    return subject.roles_seen or ()


def _role_cards(svg: Element, roles: Sequence[Role], cx: float, y: float) -> None:
    """The roles left in the centre as cards, three to a row (groups ``mt-role`` naming their
    role, ``data-role``), under the line ``roles left:`` at ``y``."""
    el(svg, "text", "roles left:", x=cx, y=y, class_="mt-s mt-c")
    for k, role in enumerate(roles):
        row, column = divmod(k, 3)
        across = min(3, len(roles) - 3 * row)
        left = cx - (across * 74 - 4) / 2 + 74 * column
        top = y + 6 + 22 * row
        group = el(svg, "g", class_="mt-role", data_role=role)
        el(group, "rect", x=f"{left:.1f}", y=f"{top:.1f}", width=70, height=18, rx=3, fill="#FFF", stroke="#000")
        el(group, "text", role_name(role), x=f"{left + 35:.1f}", y=f"{top + 13:.1f}", class_="mt-s mt-b mt-c")


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
    svg = Element(
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
    el(svg, "title", f"Meuterer, round {subject.round} of {rounds}, {_step_text(subject)}: {who}")
    el(svg, "style", _STYLE)
    background = el(svg, "rect", x=0, y=0, width=_WIDTH, height=height, fill="#FFFFFF")
    el(svg, "text", f"Round {subject.round} of {rounds}", x=8, y=20, class_="mt-l")
    step = _step_text(subject)
    if subject.step is Step.GAME_OVER:
        step += ": won by " + " and ".join(seat_names[seat] for seat in winners(subject))
    el(svg, "text", step, x=8, y=36, class_="mt-s")
    el(svg, "text", who, x=_WIDTH - 8, y=20, class_="mt-m mt-b mt-e")
    scores = " \u00b7 ".join(f"{shorten(seat_names[s], 10)} {subject.scores[s]} VP" for s in range(players))
    el(svg, "text", scores, x=_WIDTH - 8, y=36, class_="mt-s mt-e")
    cx, cy = _WIDTH / 2, 262
    _islands(svg, subject, cx, cy)
    _centre(svg, subject, cx, cy)
    seats = seat_infos(subject)
    order = list(range(players))
    if viewer is not None:
        order = order[viewer:] + order[:viewer]
    width = _WIDTH / players
    top = 494
    panels = [
        panel(svg, subject, seat, seats[seat], k * width, top, width, seat_names[seat], seat == viewer)
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
    el(svg, "text", legend, x=cx, y=height - 6, class_="mt-s mt-c")
    return Svg(svg.markup())


def register_pictures() -> None:
    """Give :class:`~meuterer.state.State` and :class:`~meuterer.views.PlayerView` a
    ``_repr_svg_`` that draws them with :func:`board` (Jupyter shows it). Done when this
    module is imported, which ``import meuterer`` does: the core never imports pictures.
    """
    for cls in (State, PlayerView):
        setattr(cls, "_repr_svg_", board)  # noqa: B010 - a method added from above, by name


register_pictures()
