"""The view: what one seat (or a spectator) knows of a state, and its JSON form."""

from __future__ import annotations

import random
from collections.abc import Mapping
from operator import attrgetter
from typing import Final

import attrs
from cattrs.gen import make_dict_unstructure_fn, override

from meuterer import engine
from meuterer.actions import Action, Sale
from meuterer.cards import CARDS, EMPTY, ROLES, Counts, Role, plus
from meuterer.errors import FormatError, MeutererError
from meuterer.islands import Island
from meuterer.machine import ROLES_SECRET as _ROLES_SECRET
from meuterer.phases.offer_cargo import roles_seen
from meuterer.rules import Rules
from meuterer.serialize import converter, json_with_rules, parse_json, structure
from meuterer.state import STEP_PHASE, Phase, State, Step

PUBLIC_FIELDS: Final = (
    "players",
    "rules",
    "step",
    "round",
    "captain",
    "to_act",
    "queue",
    "offer",
    "ring",
    "start",
    "active",
    "pirate",
    "face_up",
    "passed",
    "role_order",
    "captain_destination",
    "mutineer_destination",
    "mutiny",
    "sales",
    "scores",
    "discard",
    "draws_left",
)
"""State fields every player sees as they are (copied into every view under the same name)."""

PRIVATE_FIELDS: Final = ("hands", "face_down", "roles", "drawn")
"""State fields each seat sees only his own entry of (roles: until the reveal, phase 3;
``drawn``: the cards the player now drawing has drawn this turn). Their sizes are public."""

HIDDEN_FIELDS: Final = ("deck",)
"""State fields nobody sees; only the deck's size is public."""

ROLES_SECRET: Final = _ROLES_SECRET
"""Steps in which the roles chosen this round are still secret (they are revealed in phase 3)."""


class ViewError(MeutererError):
    """A view that no state can have (an edited or forged view), or a seat that is not one."""


@attrs.frozen
class PlayerView:
    """A game as one seat (``player``) or a spectator (``player is None``) sees it.

    Immutable, hashable, compared by value and serialisable (:func:`dumps_view`). It
    holds no reference to the state it was made from. Fields named as in
    :class:`~meuterer.state.State` hold the same public values; the others are:
    the seat's own ``hand``, ``face_down`` and ``drawn`` cards (empty for a spectator),
    the sizes of everyone's hand and face-down pile, the deck's size, the roles he
    knows, the roles he saw in the centre when choosing, and ``unseen``: every card he
    has not seen (the deck and the other players' hands and face-down cards together).
    """

    player: int | None
    """The seat whose view this is; ``None`` for a spectator (public information only)."""
    players: int
    rules: Rules
    step: Step
    round: int
    captain: int
    to_act: int
    queue: tuple[int, ...]
    offer: int | None
    ring: tuple[int, ...]
    start: int
    active: tuple[int, ...]
    pirate: int | None
    face_up: tuple[Counts, ...]
    passed: tuple[bool, ...]
    role_order: tuple[int, ...]
    """Seats in the order they chose roles this round (public: each chooses right after passing)."""
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    sales: tuple[tuple[Sale, ...] | None, ...]
    scores: tuple[int, ...]
    discard: Counts
    """The discard pile (public, SPEC section 6)."""
    draws_left: int
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    face_down_sizes: tuple[int, ...]
    """Face-down cards of each seat (non-zero only for players who have passed)."""
    deck_size: int
    drawn_count: int
    """How many cards the player now drawing has drawn this turn (0 outside drawing)."""
    roles: tuple[Role | None, ...]
    """Each seat's role as the viewer knows it: everyone's from phase 3 (the reveal) on,
    before that only his own. ``None`` for no role or a role he cannot know; ``role_order``
    says who has chosen one."""
    hand: Counts
    """The viewer's hand (empty for a spectator)."""
    face_down: Counts
    """The viewer's face-down cards (empty for a spectator)."""
    drawn: Counts
    """The cards the viewer drew this turn while he is the one drawing (the loadmaster
    discards from these); empty otherwise."""
    roles_seen: tuple[Role, ...] | None
    """The roles that were in the centre when the viewer chose his (those he could choose
    from), in canonical order, from the moment he has to choose until the roles return;
    ``None`` otherwise."""
    unseen: Counts
    """Every card the viewer has not seen: the rule set's deck minus the discard pile, all
    face-up cards and his own hand and face-down cards."""

    @property
    def phase(self) -> Phase:
        """The rulebook phase."""
        return STEP_PHASE[self.step]

    @property
    def role(self) -> Role | None:
        """The viewer's own role this round, if he has one."""
        return None if self.player is None else self.roles[self.player]

    @property
    def roles_revealed(self) -> bool:
        """Whether this round's roles are public (phase 3 on)."""
        return self.step not in ROLES_SECRET

    def island(self, position: int) -> Island:
        """The island card at ring ``position``."""
        return self.rules.islands[self.ring[position % len(self.ring)]]

    def island_name(self, position: int) -> str:
        """The notation name of the island at ring ``position``."""
        return self.island(position).name

    def legal_actions(self) -> tuple[Action, ...]:
        """The actions the viewer may take now: ``legal_actions(state)`` when he is the
        player to decide, ``()`` otherwise (someone else decides, a card is drawn by
        chance, the game is over, or this is a spectator's view).

        :func:`meuterer.legal_actions` accepts a view and calls this.
        """
        if self.player is None or self.to_act != self.player or self.step is Step.GAME_OVER:
            return ()
        stand_in = complete_state(self, None)
        if engine.current_player(stand_in) != self.player:
            return ()
        return tuple(engine.legal_actions(stand_in))


def _check_seat(state: State, player: int | None) -> None:
    if player is not None and (type(player) is not int or not 0 <= player < state.players):
        raise ViewError(f"a view is of a seat from 0 to {state.players - 1} or None (a spectator), got {player!r}")


def view(state: State, player: int | None) -> PlayerView:
    """What ``player`` (a seat, or ``None`` for a spectator) knows of ``state``.

    Public (SPEC section 6): the captain, his offer, all face-up cards, hand sizes,
    face-down counts, deck and discard sizes, the discard pile, the ships, destinations,
    revealed roles, sales, scores, and whose turn it is. The seat's own: his hand, his
    face-down cards, his role before the reveal, the roles he saw when choosing, the
    cards he has drawn this turn. Never another player's cards, an unrevealed role, or
    the deck's composition (only ``unseen``, which mixes it with the other hands).
    """
    _check_seat(state, player)
    secret = state.step in ROLES_SECRET
    drawn_count = sum(state.drawn)
    if player is None:
        hand = own_down = drawn = EMPTY
        roles = (None,) * state.players if secret else state.roles
        seen = None
    else:
        hand = state.hands[player]
        own_down = state.face_down[player]
        drawn = state.drawn if state.to_act == player and drawn_count else EMPTY
        if secret:
            roles = tuple(role if seat == player else None for seat, role in enumerate(state.roles))
        else:
            roles = state.roles
        seen = _roles_seen(state, player)
    unseen = list(state.rules.deck)
    for pile in (state.discard, hand, own_down, *state.face_up):
        for card, count in enumerate(pile):
            if count:
                unseen[card] -= count
    # The public fields, copied in the order of PUBLIC_FIELDS (checked below to be the order
    # of PlayerView's fields after ``player``), then the rest by keyword.
    return PlayerView(  # type: ignore[misc]
        player,
        *_public(state),
        # The sizes of the private and hidden fields are public.
        hand_sizes=tuple(map(sum, state.hands)),
        face_down_sizes=tuple(map(sum, state.face_down)),
        deck_size=sum(state.deck),
        drawn_count=drawn_count,
        # The viewer's own entries of the private fields, and what he saw.
        hand=hand,
        face_down=own_down,
        drawn=drawn,
        roles=roles,
        roles_seen=seen,
        unseen=tuple(unseen),
    )


_public: Final = attrgetter(*PUBLIC_FIELDS)
"""The public fields of a state, in the order of :data:`PUBLIC_FIELDS`."""
if tuple(f.name for f in attrs.fields(PlayerView))[1 : 1 + len(PUBLIC_FIELDS)] != PUBLIC_FIELDS:  # pragma: no cover
    raise ImportError("PlayerView must list PUBLIC_FIELDS right after player, in that order")


def _roles_seen(state: State, player: int) -> tuple[Role, ...] | None:
    choosing = state.step is Step.CHOOSE_ROLE and state.to_act == player
    return roles_seen(player, state.role_order, state.roles, choosing)


# Serialisation -----------------------------------------------------------------------------


def unstructure_view(v: PlayerView) -> dict[str, object]:
    """A view as plain JSON-compatible data (cards, roles and steps by name)."""
    data: dict[str, object] = converter.unstructure(v)
    return data


# The rule set (with its island table) is most of a view's text and hardly ever changes:
# serialize.json_with_rules writes it once per rule set and splices it in at its place.
_without_rules = converter.copy()
_without_rules.register_unstructure_hook(
    PlayerView, make_dict_unstructure_fn(PlayerView, _without_rules, rules=override(omit=True))
)


def dumps_view(v: PlayerView) -> str:
    """The canonical JSON text of a view: ``json.dumps`` of :func:`unstructure_view` with keys
    sorted, no white space between tokens and non-ASCII characters as they are."""
    return json_with_rules(_without_rules.unstructure(v), v.rules)


def _structure_view(text: str | bytes) -> PlayerView:
    """A view of JSON text, its types checked only (:func:`meuterer.views.loads_view` checks the rest)."""
    data = parse_json(text)
    if not isinstance(data, dict):
        raise FormatError("$", f"a view is a JSON object, got {type(data).__name__}")
    return structure(data, PlayerView)


_HAND, _DRAWN, _FACE_DOWN, _DECK = "hand", "drawn", "face_down", "deck"
Slot = tuple[str, int]
"""A hidden place cards can be in: (``"hand"``, seat), (``"drawn"``, seat) for the part of
the drawing player's hand drawn this turn, (``"face_down"``, seat) or (``"deck"``, -1)."""


def _slots(v: PlayerView) -> list[tuple[Slot, int]]:
    drawer = v.to_act if v.drawn_count else -1
    slots: list[tuple[Slot, int]] = []
    for seat in range(v.players):
        if seat == v.player:
            continue
        size = v.hand_sizes[seat]
        if seat == drawer:
            slots.append(((_DRAWN, seat), v.drawn_count))
            size -= v.drawn_count
        slots.append(((_HAND, seat), size))
        slots.append(((_FACE_DOWN, seat), v.face_down_sizes[seat]))
    slots.append(((_DECK, -1), v.deck_size))
    return slots


def _deal(pool: list[int], size: int, rng: random.Random | None) -> list[int]:
    """``size`` cards taken from the counts ``pool`` (which lose them): drawn one at a time
    without replacement with ``rng``, or the lowest kinds first when it is ``None``."""
    counts = [0] * len(pool)
    left = sum(pool)
    for _ in range(size):
        if rng is None:
            card = next(card for card, count in enumerate(pool) if count)
        else:
            pick = rng.randrange(left)
            card = 0
            while pick >= pool[card]:
                pick -= pool[card]
                card += 1
        pool[card] -= 1
        counts[card] += 1
        left -= 1
    return counts


def complete_state(v: PlayerView, rng: random.Random | None, need: Mapping[Slot, Counts] | None = None) -> State:
    """A state with view ``v``: the unseen cards dealt into the hidden places (at random
    with ``rng``, or in canonical order when it is ``None``), each place (a :data:`Slot`)
    holding at least ``need`` of it. :func:`~meuterer.views.sample_state` draws with it;
    :mod:`meuterer.redact` places the cards a record shows."""
    n, p = v.players, v.player
    slots = _slots(v)
    pool = list(v.unseen)
    if min(pool) < 0 or sum(pool) != sum(size for _, size in slots) or min(size for _, size in slots) < 0:
        raise ViewError("inconsistent view: the unseen cards do not fill the hidden places")
    if need:
        for cards in need.values():
            for card, count in enumerate(cards):
                pool[card] -= count
        if min(pool) < 0:
            raise ViewError(f"cannot place {dict(need)}: not among the unseen cards")
    filled: dict[Slot, Counts] = {}
    for slot, size in slots:
        wanted = need.get(slot) if need else None
        if wanted is not None:
            size -= sum(wanted)
            if size < 0:
                raise ViewError(f"cannot place {wanted} in {slot}: it holds fewer cards")
        if slot[0] == _DECK:  # the last place: what is left
            counts, pool = pool, [0] * len(CARDS)
        else:
            counts = _deal(pool, size, rng)
        filled[slot] = tuple(counts) if wanted is None else plus(tuple(counts), wanted)
    hands: list[Counts] = []
    downs: list[Counts] = []
    drawn = v.drawn
    for seat in range(n):
        if seat == p:
            hands.append(v.hand)
            downs.append(v.face_down)
            continue
        hand = filled[_HAND, seat]
        part = filled.get((_DRAWN, seat))
        if part is not None:
            hand = plus(hand, part)
            drawn = part
        hands.append(hand)
        downs.append(filled[_FACE_DOWN, seat])
    if p is not None and hands[p] != v.hand:  # pragma: no cover - guarded by the slot sums
        raise ViewError("inconsistent view")
    return State(
        players=n,
        rules=v.rules,
        step=v.step,
        round=v.round,
        captain=v.captain,
        to_act=v.to_act,
        queue=v.queue,
        offer=v.offer,
        ring=v.ring,
        start=v.start,
        active=v.active,
        pirate=v.pirate,
        hands=tuple(hands),
        face_up=v.face_up,
        face_down=tuple(downs),
        passed=v.passed,
        roles=_complete_roles(v, rng),
        role_order=v.role_order,
        captain_destination=v.captain_destination,
        mutineer_destination=v.mutineer_destination,
        mutiny=v.mutiny,
        sales=v.sales,
        scores=v.scores,
        deck=filled[_DECK, -1],
        discard=v.discard,
        draws_left=v.draws_left,
        drawn=drawn,
    )


def _complete_roles(v: PlayerView, rng: random.Random | None) -> tuple[Role | None, ...]:
    order = v.role_order
    if v.roles_revealed or not order:
        return v.roles
    roles = list(v.roles)
    p = v.player
    before: tuple[int, ...] = ()
    after = order
    if v.roles_seen is not None and p is not None:
        mine = order.index(p) if p in order else len(order)
        before, after = order[:mine], order[mine + 1 :]
        gone = [role for role in ROLES if role not in v.roles_seen]
        if len(gone) != len(before):
            raise ViewError("inconsistent view: roles_seen does not match the players who chose before")
        if rng is not None:
            rng.shuffle(gone)
        for seat, role in zip(before, gone, strict=True):
            roles[seat] = role
        left = [role for role in v.roles_seen if role != v.roles[p]]
    else:
        left = list(ROLES)
    picked = rng.sample(left, len(after)) if rng is not None else left[: len(after)]
    for seat, role in zip(after, picked, strict=True):
        roles[seat] = role
    return tuple(roles)
