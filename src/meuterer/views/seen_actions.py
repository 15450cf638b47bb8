"""What each seat saw of one action: the one rule shared by redacted records and adapters.

Another player's draw is seen as ``draw p1 ?`` and another player's role choice as
``p1 role ?``. Two notes add what a seat learnt beyond the action: on his own pass, the
roles left in the centre (``; centre ...``), and on the action after which the roles are
revealed (phase 3), every role (``; reveal p1:mutineer,...``).

>>> import meuterer
>>> from meuterer.views import seen_by_all
>>> state = meuterer.new_game(3)
>>> draw = meuterer.legal_actions(state)[0]
>>> [str(s) for s in seen_by_all(state, draw, meuterer.apply(state, draw))]
['draw p0 ruby', 'draw p0 ?', 'draw p0 ?', 'draw p0 ?']
"""

from __future__ import annotations

from typing import ClassVar

import attrs

from meuterer.actions import Action, ChooseRole, Draw, Pass
from meuterer.cards import ROLES, Role
from meuterer.state import State, Step
from meuterer.views.player_view import ROLES_SECRET


@attrs.frozen
class HiddenDraw:
    """Chance, as seen by everyone but the drawer: ``player`` drew a card (``draw p1 ?``)."""

    kind: ClassVar[str] = "draw"
    player: int

    def __str__(self) -> str:
        return f"draw p{self.player} ?"


@attrs.frozen
class HiddenRole:
    """Phase 2, as seen by the others: ``player`` took a role, which one is secret (``p1 role ?``)."""

    kind: ClassVar[str] = "role"
    player: int

    def __str__(self) -> str:
        return f"p{self.player} role ?"


SeenAction = Action | HiddenDraw | HiddenRole
"""An action as one player saw it."""


@attrs.frozen
class Seen:
    """One action of a game as one player saw it, and what he learnt with it.

    ``centre``: on the viewer's own pass (when he goes on to choose a role), the roles
    still in the centre. ``reveal``: on the action after which phase 3 reveals the
    roles, each seat's role (``None`` for the captain).
    """

    action: SeenAction
    centre: tuple[Role, ...] | None = None
    reveal: tuple[Role | None, ...] | None = None

    def __str__(self) -> str:
        text = str(self.action)
        if self.centre is not None:
            text += "; centre " + ",".join(map(str, self.centre))
        if self.reveal is not None:
            text += "; reveal " + ",".join(
                f"p{seat}:{role}" for seat, role in enumerate(self.reveal) if role is not None
            )
        return text


def seen(before: State, action: Action, after: State, viewer: int | None) -> Seen:
    """``action`` (taken in ``before``, giving ``after``) as ``viewer`` (a seat, or ``None``
    for a spectator) saw it."""
    shown: SeenAction = action
    if isinstance(action, Draw) and action.player != viewer:
        shown = HiddenDraw(action.player)
    elif isinstance(action, ChooseRole) and action.player != viewer:
        shown = HiddenRole(action.player)
    centre = None
    if after.step is Step.CHOOSE_ROLE and after.to_act == viewer and isinstance(action, Pass):
        centre = tuple(role for role in ROLES if role not in after.roles)
    reveal = after.roles if before.step in ROLES_SECRET and after.step not in ROLES_SECRET else None
    return Seen(shown, centre, reveal)


def seen_by_all(before: State, action: Action, after: State) -> tuple[Seen, ...]:
    """:func:`seen` for every seat, then for a spectator."""
    return tuple(seen(before, action, after, viewer) for viewer in (*range(before.players), None))
