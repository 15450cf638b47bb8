"""Redacted records: a game record as one player saw it, and its replay into his views.

:func:`redact` keeps, for each action of a :class:`~meuterer.record.Record`, what the
viewer saw of it: another player's draw becomes ``draw p1 ?`` and another player's role
choice ``p1 role ?``. Two notes add what the viewer learnt beyond the action itself: on his
own pass, the roles left in the centre (``; centre ...``), and on the action after which
the roles are revealed (phase 3), every role (``; reveal p1:mutineer,...``). The JSON form
is ``meuterer-redacted-record`` (see ``docs/views.md``). :func:`replay_views` turns a
redacted record back into the sequence of the viewer's views, without any hidden card.

>>> import meuterer
>>> from meuterer.record import make_record
>>> from meuterer.redact import redact, replay_views, dumps_redacted, loads_redacted
>>> from meuterer.views import view
>>> actions, _ = meuterer.random_game(seed=7, players=4)
>>> game = meuterer.Game.replay(actions[:60], players=4)
>>> mine = redact(make_record(game), 2)
>>> print(*mine.actions[:2], sep="; ")
draw p0 ?; draw p0 ?
>>> loads_redacted(dumps_redacted(mine)) == mine
True
>>> replay_views(mine) == tuple(view(state, 2) for state in game.states)
True
"""

from __future__ import annotations

import os
import re
from typing import IO, Any, Final

import attrs

from meuterer import engine
from meuterer._version import __version__ as _version
from meuterer.actions import Action, ChooseRole, Discard, Draw, Pass, Play, Support, parse_action
from meuterer.cards import EMPTY, ROLE_BY_NAME, ROLES, Card, Role, add, counts_of
from meuterer.errors import FormatError, IllegalActionError, MeutererError
from meuterer.record import Record, Result, document_data, layout, parse_source, read_document
from meuterer.rules import Rules
from meuterer.state import State, Step, evolve
from meuterer.views import ROLES_SECRET, PlayerView, Slot, complete_state, view
from meuterer.views import HiddenDraw as HiddenDraw  # re-exported: redacted records are made of these
from meuterer.views import HiddenRole as HiddenRole
from meuterer.views import Seen as Seen
from meuterer.views import SeenAction as SeenAction
from meuterer.views import seen as seen_by

FORMAT_NAME: Final = "meuterer-redacted-record"
FORMAT_VERSION: Final = 1


@attrs.frozen
class RedactedRecord:
    """A game record as one seat (``viewer``), or a spectator (``viewer is None``), saw it."""

    rules: Rules
    players: tuple[str, ...]
    first_captain: int
    viewer: int | None
    actions: tuple[Seen, ...]
    """One entry per action of the game, in order."""
    result: Result | None = None
    library: str = f"meuterer {_version}"


# Redacting -----------------------------------------------------------------------------------


def redact(record: Record, player: int | None) -> RedactedRecord:
    """What ``player`` (a seat, or ``None`` for a spectator) saw of the game ``record`` holds.

    The digests are left out (a digest of a whole state would give away the hidden cards to
    anyone who tries the few possible hands); the result is public and kept. Raises
    :class:`~meuterer.errors.IllegalActionError` if the record is not a legal game.
    """
    n = len(record.players)
    if player is not None and (type(player) is not int or not 0 <= player < n):
        raise MeutererError(f"a redacted record is for a seat from 0 to {n - 1} or None, got {player!r}")
    state = engine.new_game(n, record.first_captain, record.rules)
    seen: list[Seen] = []
    for index, action in enumerate(record.actions):
        try:
            after = engine.apply(state, action)
        except MeutererError as error:
            error.add_note(f"at action {index + 1} of the record")
            raise
        seen.append(seen_by(state, action, after, player))
        state = after
    return RedactedRecord(record.rules, record.players, record.first_captain, player, tuple(seen), record.result)


# Replaying -----------------------------------------------------------------------------------


def replay_views(record: RedactedRecord) -> tuple[PlayerView, ...]:
    """The viewer's view before the first action and after each action of ``record``.

    Equal to ``[view(s, viewer) for s in game.states]`` for the game the record was redacted
    from. The replay never needs a hidden card: it plays a stand-in game in which every
    hidden draw and role is made up, and whenever a later action needs a card or a role the
    stand-in lacks, it deals the unseen cards again (a state with the same view). Raises
    :class:`~meuterer.errors.IllegalActionError` if no game fits the record.
    """
    p = record.viewer
    state = engine.new_game(len(record.players), record.first_captain, record.rules)
    views = [view(state, p)]
    for index, seen in enumerate(record.actions):
        try:
            state = _step(state, seen, p, views[-1])
        except MeutererError as error:
            error.add_note(f"at action {index + 1} of the redacted record")
            raise
        views.append(view(state, p))
    return tuple(views)


def _step(state: State, seen: Seen, p: int | None, before: PlayerView) -> State:
    shown = seen.action
    if seen.reveal is not None:
        state = _with_revealed(state, seen, p)
    action: Action
    if isinstance(shown, HiddenDraw):
        if shown.player == p or not engine.is_chance_node(state) or state.to_act != shown.player:
            raise IllegalActionError(shown, "no hidden draw for this seat here")
        # At a draw every outcome is a Draw (the first one stands in for the hidden card);
        # any other chance node (the shuffled ring's 11! arrangements) is refused at once.
        outcomes = engine.legal_actions(state)
        first = outcomes[0] if len(outcomes) else None
        if not isinstance(first, Draw):
            raise IllegalActionError(shown, "no hidden draw for this seat here")
        action = Draw(shown.player, first.card)
    elif isinstance(shown, HiddenRole):
        if shown.player == p or state.step is not Step.CHOOSE_ROLE or state.to_act != shown.player:
            raise IllegalActionError(shown, "no hidden role choice for this seat here")
        if seen.reveal is not None and seen.reveal[shown.player] is not None:
            role = seen.reveal[shown.player]
        else:
            role = next((r for r in ROLES if r not in state.roles), None)
        if role is None:
            raise IllegalActionError(shown, "no role is left to choose")
        action = ChooseRole(shown.player, role)
    else:
        action = shown
    if action not in engine.legal_actions(state):
        need = _need(state, action, p)
        if need is not None:
            try:
                state = _with_roles(complete_state(before, None, need), state.roles)
            except MeutererError:
                raise IllegalActionError(action, "no cards the player could hold allow it") from None
    after = engine.apply(state, action)
    if (after.step is Step.CHOOSE_ROLE and after.to_act == p and isinstance(action, Pass)) != (seen.centre is not None):
        raise IllegalActionError(action, "the roles in the centre are seen exactly on one's own pass before choosing")
    if seen.centre is not None:
        after = _with_centre(after, seen.centre, p)
    if (state.step in ROLES_SECRET and after.step not in ROLES_SECRET) != (seen.reveal is not None):
        raise IllegalActionError(action, "the roles are revealed exactly after the last role is chosen")
    return after


def _need(state: State, action: Action, p: int | None) -> dict[Slot, tuple[int, ...]] | None:
    """The hidden cards ``action`` needs (a place and the cards it must hold), if any."""
    if isinstance(action, Draw) and action.player == p and any(state.deck):
        return {("deck", -1): add(EMPTY, action.card)}
    if action.player == p or action.player != state.to_act:
        return None
    if isinstance(action, Play) and state.step is Step.PLAY:
        return {("hand", action.player): add(EMPTY, action.card)}
    if isinstance(action, Support) and state.step is Step.MUTINY:
        return {("face_down", action.player): add(EMPTY, Card.SUPPORT, action.count)}
    if isinstance(action, Discard) and state.step is Step.LOADMASTER_DISCARD:
        # Whether he discards from his draws or from his whole hand, the cards he drew
        # this turn (at least as many as he discards) can be the ones.
        return {("drawn", action.player): counts_of(action.cards)}
    return None


def _with_roles(state: State, roles: tuple[Role | None, ...]) -> State:
    return evolve(state, {"roles": roles}) if state.roles != roles else state


def _with_revealed(state: State, seen: Seen, p: int | None) -> State:
    reveal = seen.reveal
    assert reveal is not None
    chosen = set(state.role_order)
    if isinstance(seen.action, HiddenRole | ChooseRole):
        chosen.add(seen.action.player)
    given = {seat for seat, role in enumerate(reveal) if role is not None}
    roles = [role for role in reveal if role is not None]
    if len(reveal) != state.players or given != chosen or len(set(roles)) != len(roles):
        raise IllegalActionError(seen.action, "the revealed roles are not one role for each player who chose")
    own = seen.action.role if isinstance(seen.action, ChooseRole) and seen.action.player == p else None
    if p is not None and reveal[p] != (state.roles[p] if p in state.role_order else own):
        raise IllegalActionError(seen.action, f"p{p} revealed with a role he did not choose")
    mine = view(state, p).roles_seen
    if mine is not None and p is not None and p in state.role_order:
        before = state.role_order[: state.role_order.index(p)]
        if {reveal[seat] for seat in before} != {role for role in ROLES if role not in mine}:
            raise IllegalActionError(seen.action, "the revealed roles contradict the centre the viewer saw")
    return _with_roles(
        state, tuple(reveal[seat] if seat in state.role_order else None for seat in range(state.players))
    )


def _with_centre(state: State, centre: tuple[Role, ...], p: int | None) -> State:
    gone = [role for role in ROLES if role not in centre]
    if len(gone) != len(state.role_order):
        raise IllegalActionError(f"p{p} pass", "the centre does not fit the roles already chosen")
    roles = list(state.roles)
    for seat, role in zip(state.role_order, gone, strict=True):
        roles[seat] = role
    return _with_roles(state, tuple(roles))


# The JSON form -------------------------------------------------------------------------------

_SEAT = re.compile(r"p([0-3])")


def _seat_of(text: str, token: str, players: int) -> int:
    match = _SEAT.fullmatch(token)
    if match is None or int(match.group(1)) >= players:
        raise FormatError("$", f"{text!r}: {token!r} is not a seat of this game")
    return int(match.group(1))


def parse_seen(text: str, players: int) -> Seen:
    """Read one entry of a redacted record (canonical text only); raises :class:`FormatError`.

    >>> str(parse_seen("p3 role ?; reveal p1:mutineer,p2:mate,p3:merchant", 4).reveal[1])
    'mutineer'
    """
    head, *notes = text.split("; ")
    action: SeenAction
    tokens = head.split(" ")
    if tokens[-1] == "?":
        if len(tokens) == 3 and tokens[0] == "draw":
            action = HiddenDraw(_seat_of(text, tokens[1], players))
        elif len(tokens) == 3 and tokens[1] == "role":
            action = HiddenRole(_seat_of(text, tokens[0], players))
        else:
            raise FormatError("$", f"{text!r}: only a draw ('draw p1 ?') or a role ('p1 role ?') can be hidden")
    else:
        try:
            action = parse_action(head)
        except MeutererError as error:
            raise FormatError("$", str(error)) from None
    centre = reveal = None
    for note in notes:
        key, _, value = note.partition(" ")
        if key == "centre" and centre is None and reveal is None:
            names = value.split(",")
            if not all(name in ROLE_BY_NAME for name in names):
                raise FormatError("$", f"{text!r}: the centre names roles")
            centre = tuple(ROLE_BY_NAME[name] for name in names)
        elif key == "reveal" and reveal is None:
            found: list[Role | None] = [None] * players
            for item in value.split(","):
                seat, _, name = item.partition(":")
                if name not in ROLE_BY_NAME:
                    raise FormatError("$", f"{text!r}: {item!r} is not seat:role")
                found[_seat_of(text, seat, players)] = ROLE_BY_NAME[name]
            reveal = tuple(found)
        else:
            raise FormatError("$", f"{text!r}: unknown or repeated note {key!r} (centre, then reveal)")
    seen = Seen(action, centre, reveal)
    if str(seen) != text:
        raise FormatError("$", f"{text!r}: not in canonical form (expected {str(seen)!r})")
    return seen


def redacted_data(record: RedactedRecord) -> dict[str, Any]:
    """The JSON document of a redacted record as plain data."""
    return document_data(FORMAT_NAME, record, {"viewer": record.viewer})


def dumps_redacted(record: RedactedRecord) -> str:
    """A redacted record as JSON text, laid out like a record (one action per line)."""
    return layout(redacted_data(record))


def redacted_from_data(data: object) -> RedactedRecord:
    """The redacted record of a parsed JSON document; raises :class:`FormatError` naming the path."""
    document = read_document(data, FORMAT_NAME, {"viewer": True}, "a redacted record")
    assert isinstance(data, dict)
    n = len(document.players)
    viewer = data["viewer"]
    if viewer is not None and (type(viewer) is not int or not 0 <= viewer < n):
        raise FormatError("$.viewer", f"a seat from 0 to {n - 1}, or null for a spectator")
    actions = []
    for index, text in enumerate(document.actions):
        try:
            actions.append(parse_seen(text, n))
        except FormatError as error:
            raise FormatError(f"$.actions[{index}]", error.message) from None
    d = document
    return RedactedRecord(d.rules, d.players, d.first_captain, viewer, tuple(actions), d.result, d.library)


def loads_redacted(source: str | bytes | os.PathLike[str] | IO[str]) -> RedactedRecord:
    """Read a redacted record from JSON text, bytes, a path or a text stream.

    Raises :class:`~meuterer.errors.FormatError` naming the path of the first problem, and
    :class:`TypeError` for an argument of another type (as :func:`meuterer.read_record`).
    """
    return redacted_from_data(parse_source(source, "a redacted record"))
