"""What one player may know: per-player views, and states sampled from a view.

SPEC section 6 splits a game into what is public, what is private to one player and
what nobody knows. :func:`view` keeps, for one seat (or for a spectator), exactly the
public part and that seat's private part; :func:`sample_state` goes the other way and
fills in everything a view leaves open, at random. See ``docs/views.md``.

>>> import random
>>> import meuterer
>>> from meuterer.views import view, sample_state
>>> actions, _ = meuterer.random_game(seed=7, players=4)
>>> state = meuterer.Game.replay(actions[:40], players=4).state
>>> mine = view(state, 2)
>>> mine.hand == state.hands[2], mine.hand_sizes == tuple(map(sum, state.hands))
(True, True)
>>> others = [seat for seat in range(4) if seat != 2]
>>> hidden = [state.deck] + [state.hands[seat] for seat in others] + [state.face_down[seat] for seat in others]
>>> mine.deck_size == sum(state.deck), mine.unseen == tuple(map(sum, zip(*hidden)))
(True, True)
>>> guess = sample_state(mine, random.Random(1))
>>> view(guess, 2) == mine
True
>>> acting = view(state, state.to_act)
>>> meuterer.legal_actions(acting) == meuterer.legal_actions(state), meuterer.legal_actions(mine)
(True, ())
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Final

import attrs
from cattrs.gen import make_dict_unstructure_fn, override

from meuterer import engine
from meuterer.actions import Action, Sale
from meuterer.cards import CARDS, EMPTY, ROLES, Counts, Role, counts_str, plus
from meuterer.errors import FormatError, MeutererError
from meuterer.islands import Island
from meuterer.rules import Rules
from meuterer.serialize import converter, parse_json, structure
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

ROLES_SECRET: Final = frozenset({Step.RING, Step.DEAL, Step.OFFER, Step.PLAY, Step.CHOOSE_ROLE})
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
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand."""
    face_up: tuple[Counts, ...]
    face_down_sizes: tuple[int, ...]
    """Face-down cards of each seat (non-zero only for players who have passed)."""
    passed: tuple[bool, ...]
    roles: tuple[Role | None, ...]
    """Each seat's role as the viewer knows it: everyone's from phase 3 (the reveal) on,
    before that only his own. ``None`` for no role or a role he cannot know; ``role_order``
    says who has chosen one."""
    role_order: tuple[int, ...]
    """Seats in the order they chose roles this round (public: each chooses right after passing)."""
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    sales: tuple[tuple[Sale, ...] | None, ...]
    scores: tuple[int, ...]
    deck_size: int
    discard: Counts
    """The discard pile (public, SPEC section 6)."""
    draws_left: int
    drawn_count: int
    """How many cards the player now drawing has drawn this turn (0 outside drawing)."""
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
        stand_in = _complete(self, None)
        if engine.current_player(stand_in) != self.player:
            return ()
        return tuple(engine.legal_actions(stand_in))

    def observation_text(self) -> str:
        """The view as stable, human-readable text (one line per topic, one per seat)."""
        return _text(self)

    def observation_vector(self) -> tuple[int, ...]:
        """The view as a flat tuple of ints; :func:`observation_names` names each entry.

        The length depends only on the number of players (see ``docs/views.md``).
        """
        return _vector(self)


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
    n = state.players
    hands = state.hands
    face_down = state.face_down
    secret = state.step in ROLES_SECRET
    drawn_count = sum(state.drawn)
    if player is None:
        hand = own_down = drawn = EMPTY
        roles = (None,) * n if secret else state.roles
        seen = None
    else:
        hand = hands[player]
        own_down = face_down[player]
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
    return PlayerView(
        player,
        n,
        state.rules,
        state.step,
        state.round,
        state.captain,
        state.to_act,
        state.queue,
        state.offer,
        state.ring,
        state.start,
        state.active,
        state.pirate,
        tuple(map(sum, hands)),
        state.face_up,
        tuple(map(sum, face_down)),
        state.passed,
        roles,
        state.role_order,
        state.captain_destination,
        state.mutineer_destination,
        state.mutiny,
        state.sales,
        state.scores,
        sum(state.deck),
        state.discard,
        state.draws_left,
        drawn_count,
        hand,
        own_down,
        drawn,
        seen,
        tuple(unseen),
    )


def _roles_seen(state: State, player: int) -> tuple[Role, ...] | None:
    order = state.role_order
    if player in order:
        before = order[: order.index(player)]
    elif state.step is Step.CHOOSE_ROLE and state.to_act == player:
        before = order
    else:
        return None
    gone = {state.roles[seat] for seat in before}
    return tuple(role for role in ROLES if role not in gone)


# Determinisation ---------------------------------------------------------------------------

_HAND, _DRAWN, _FACE_DOWN, _DECK = "hand", "drawn", "face_down", "deck"
Slot = tuple[str, int]
"""A hidden place cards can be in: (``"hand"``, seat), (``"drawn"``, seat) for the part of
the drawing player's hand drawn this turn, (``"face_down"``, seat) or (``"deck"``, -1)."""


def sample_state(view: PlayerView, rng: random.Random) -> State:
    """A complete state that ``view`` could have been made from, drawn at random with ``rng``.

    ``view(sample_state(v, rng), v.player) == v`` always holds, and the sample satisfies
    every engine invariant (card conservation, hand sizes, one role per chooser).

    The distribution: the unseen cards are shuffled and dealt into the hidden places
    (the other players' hands, split into the cards the player now drawing has drawn
    this turn and the rest; their face-down piles; the deck), so every physical
    arrangement of the unseen cards is equally likely: each place's contents follow the
    multivariate hypergeometric law. Independently, the unrevealed roles are uniform among
    the assignments consistent with what the viewer saw: the players who chose before him
    hold the roles that were gone from the centre, in any order; those after him distinct
    roles from the rest. This is the "unseen cards were shuffled" model: it does not
    weigh in how likely each player's past choices were, nor what a player with perfect
    recall could infer from the history beyond SPEC section 6 (such as the discard pile
    that was shuffled into the present deck).
    """
    return _complete(view, rng)


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


def _complete(v: PlayerView, rng: random.Random | None, need: Mapping[Slot, Counts] | None = None) -> State:
    """A state with view ``v``: the unseen cards dealt into the hidden places (shuffled
    with ``rng``, or in canonical order when it is ``None``), each place holding at least
    ``need`` of it."""
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
    tokens = [card for card in CARDS for _ in range(pool[card])]
    if rng is not None:
        rng.shuffle(tokens)
    filled: dict[Slot, Counts] = {}
    start = 0
    for slot, size in slots:
        counts = [0] * len(CARDS)
        wanted = need.get(slot) if need else None
        if wanted is not None:
            counts = list(wanted)
            size -= sum(wanted)
            if size < 0:
                raise ViewError(f"cannot place {wanted} in {slot}: it holds fewer cards")
        for card in tokens[start : start + size]:
            counts[card] += 1
        start += size
        filled[slot] = tuple(counts)
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


# Serialisation -----------------------------------------------------------------------------


def unstructure_view(v: PlayerView) -> dict[str, object]:
    """A view as plain JSON-compatible data (cards, roles and steps by name)."""
    data: dict[str, object] = converter.unstructure(v)
    return data


def _json(data: object) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# The rule set (with its island table) is most of a view's text and hardly ever changes:
# write it once per rule set and splice it in at its sorted place.
_without_rules = converter.copy()
_without_rules.register_unstructure_hook(
    PlayerView, make_dict_unstructure_fn(PlayerView, _without_rules, rules=override(omit=True))
)


@lru_cache(maxsize=16)
def _rules_text(rules: Rules) -> str:
    return _json(converter.unstructure(rules))


def dumps_view(v: PlayerView) -> str:
    """The canonical JSON text of a view: ``json.dumps`` of :func:`unstructure_view` with keys
    sorted, no white space between tokens and non-ASCII characters as they are."""
    data: dict[str, object] = _without_rules.unstructure(v)
    low = {key: data.pop(key) for key in sorted(data) if key < "rules"}
    return _json(low)[:-1] + ',"rules":' + _rules_text(v.rules) + "," + _json(data)[1:]


def loads_view(text: str | bytes) -> PlayerView:
    """The view of a JSON text written by :func:`dumps_view`; raises :class:`FormatError`."""
    data = parse_json(text)
    if not isinstance(data, dict):
        raise FormatError("$", f"a view is a JSON object, got {type(data).__name__}")
    return structure(data, PlayerView)


# Text and vector observations ------------------------------------------------------------


def _seat_name(seat: int) -> str:
    return f"p{seat}"


def _text(v: PlayerView) -> str:
    who = "a spectator" if v.player is None else _seat_name(v.player)
    if v.step is Step.GAME_OVER:
        turn = "game over"
    elif v.step in (Step.DEAL, Step.DRAW):
        turn = f"{_seat_name(v.to_act)} draws ({v.draws_left} to go)"
    elif v.step is Step.RING:
        turn = "the islands are laid out"
    else:
        turn = f"{_seat_name(v.to_act)} to act"
    lines = [f"view of {who}, {v.players} players, round {v.round}, phase {int(v.phase)} {v.step.value}: {turn}"]
    offer = "-" if v.offer is None else str(v.offer)
    ships = f"ship at {v.island_name(v.start)}"
    if v.pirate is not None:
        ships += f", pirates at {v.island_name(v.pirate)}"
    active = " ".join(v.island_name(pos) for pos in v.active)
    lines.append(f"captain {_seat_name(v.captain)}, offer {offer}; {ships}; active {active}")
    goals = []
    if v.captain_destination is not None:
        goals.append(f"captain to {v.island_name(v.captain_destination)}")
    if v.mutineer_destination is not None:
        goals.append(f"mutineer to {v.island_name(v.mutineer_destination)}")
    if v.mutiny is not None:
        goals.append("mutiny succeeded" if v.mutiny else "mutiny failed")
    if goals:
        lines.append("; ".join(goals))
    lines.append(f"deck {v.deck_size}; discard {counts_str(v.discard)}; unseen {counts_str(v.unseen)}")
    if v.player is not None:
        mine = f"you: hand {counts_str(v.hand)}; face down {counts_str(v.face_down)}"
        if v.drawn_count and v.to_act == v.player:
            mine += f"; drawn {counts_str(v.drawn)}"
        if v.roles_seen is not None:
            mine += f"; centre when choosing {' '.join(map(str, v.roles_seen))}"
        lines.append(mine)
    for seat in range(v.players):
        parts = [_seat_name(seat) + (" (you)" if seat == v.player else "")]
        if seat == v.captain:
            parts.append("captain")
        role = v.roles[seat]
        if role is not None:
            parts.append(str(role))
        elif seat in v.role_order:
            parts.append("role ?")
        parts.append(f"hand {v.hand_sizes[seat]}")
        parts.append(f"face up {counts_str(v.face_up[seat])}")
        if v.passed[seat]:
            parts.append(f"passed, face down {v.face_down_sizes[seat]}")
        sales = v.sales[seat]
        if sales is not None:
            parts.append("sold " + (",".join(map(str, sales)) or "none"))
        parts.append(f"score {v.scores[seat]}")
        lines.append("  " + "; ".join(parts))
    return "\n".join(lines) + "\n"


STEP_CODES: Final[Mapping[Step, int]] = {
    Step.RING: 0,
    Step.DEAL: 1,
    Step.OFFER: 2,
    Step.PLAY: 3,
    Step.CHOOSE_ROLE: 4,
    Step.REVEAL: 5,
    Step.MUTINY: 6,
    Step.RESOLVE_MUTINY: 7,
    Step.ROLE_POINTS: 8,
    Step.SELL: 9,
    Step.SAIL: 10,
    Step.CLEAN_UP: 11,
    Step.DRAW: 12,
    Step.LOADMASTER_DISCARD: 13,
    Step.ROLES_RETURN: 14,
    Step.END_OF_ROUND: 15,
    Step.GAME_OVER: 16,
}
"""The number of each step in observation vectors (fixed; never reused)."""

_NONE = -1
_SALES = 2
"""Sales per declaration in observation vectors: one per active island, at most two."""


def _position(v: PlayerView, name: str) -> int:
    return next(pos for pos in range(len(v.ring)) if v.island_name(pos) == name)


def _opt(value: int | None) -> int:
    return _NONE if value is None else int(value)


def _observation(v: PlayerView) -> list[tuple[str, int]]:
    items: list[tuple[str, int]] = [
        ("players", v.players),
        ("viewer", _opt(v.player)),
        ("round", v.round),
        ("step", STEP_CODES[v.step]),
        ("captain", v.captain),
        ("to_act", _NONE if v.step is Step.GAME_OVER else v.to_act),
        ("offer", _opt(v.offer)),
        ("start", v.start),
        ("pirate", _opt(v.pirate)),
        ("captain_destination", _opt(v.captain_destination)),
        ("mutineer_destination", _opt(v.mutineer_destination)),
        ("mutiny", _NONE if v.mutiny is None else int(v.mutiny)),
        ("draws_left", v.draws_left),
        ("drawn_count", v.drawn_count),
        ("deck_size", v.deck_size),
    ]
    items += [(f"ring[{pos}]", index) for pos, index in enumerate(v.ring)]
    items += [(f"active[{pos}]", int(pos in v.active)) for pos in range(len(v.ring))]
    for name, pile in (("discard", v.discard), ("unseen", v.unseen), ("hand", v.hand)):
        items += [(f"{name}.{card}", pile[card]) for card in CARDS]
    for name, pile in (("face_down", v.face_down), ("drawn", v.drawn)):
        items += [(f"{name}.{card}", pile[card]) for card in CARDS]
    items.append(("role", _opt(v.role)))
    seen = v.roles_seen
    items += [(f"roles_seen.{role}", _NONE if seen is None else int(role in seen)) for role in ROLES]
    for seat in range(v.players):
        prefix = f"p{seat}."
        role = v.roles[seat]
        items += [
            (prefix + "hand_size", v.hand_sizes[seat]),
            (prefix + "face_down_size", v.face_down_sizes[seat]),
            (prefix + "passed", int(v.passed[seat])),
            (prefix + "role", _opt(role)),
            (prefix + "role_order", v.role_order.index(seat) if seat in v.role_order else _NONE),
            (prefix + "queue", v.queue.index(seat) if seat in v.queue else _NONE),
            (prefix + "score", v.scores[seat]),
        ]
        items += [(f"{prefix}face_up.{card}", v.face_up[seat][card]) for card in CARDS]
        sales = v.sales[seat] or ()
        items.append((prefix + "declared", int(v.sales[seat] is not None)))
        for k in range(_SALES):
            sale = sales[k] if k < len(sales) else None
            items += [
                (f"{prefix}sale[{k}].island", _NONE if sale is None else _position(v, sale.island)),
                (f"{prefix}sale[{k}].card", _NONE if sale is None else int(sale.card)),
                (f"{prefix}sale[{k}].count", 0 if sale is None else sale.count),
            ]
    return items


def _vector(v: PlayerView) -> tuple[int, ...]:
    # The values of _observation(v), computed without building the names.
    out = [
        v.players,
        _opt(v.player),
        v.round,
        STEP_CODES[v.step],
        v.captain,
        _NONE if v.step is Step.GAME_OVER else v.to_act,
        _opt(v.offer),
        v.start,
        _opt(v.pirate),
        _opt(v.captain_destination),
        _opt(v.mutineer_destination),
        _NONE if v.mutiny is None else int(v.mutiny),
        v.draws_left,
        v.drawn_count,
        v.deck_size,
        *v.ring,
    ]
    active = v.active
    out += [int(pos in active) for pos in range(len(v.ring))]
    out += (*v.discard, *v.unseen, *v.hand, *v.face_down, *v.drawn, _opt(v.role))
    seen = v.roles_seen
    out += [_NONE] * len(ROLES) if seen is None else [int(role in seen) for role in ROLES]
    order, queue = v.role_order, v.queue
    for seat in range(v.players):
        out += (
            v.hand_sizes[seat],
            v.face_down_sizes[seat],
            int(v.passed[seat]),
            _opt(v.roles[seat]),
            order.index(seat) if seat in order else _NONE,
            queue.index(seat) if seat in queue else _NONE,
            v.scores[seat],
            *v.face_up[seat],
            int(v.sales[seat] is not None),
        )
        sales = v.sales[seat] or ()
        for k in range(_SALES):
            if k < len(sales):
                out += (_position(v, sales[k].island), int(sales[k].card), sales[k].count)
            else:
                out += (_NONE, _NONE, 0)
    return tuple(out)


@cache
def observation_names(players: int) -> tuple[str, ...]:
    """The name of each entry of :meth:`PlayerView.observation_vector` for ``players`` seats.

    >>> names = observation_names(4)
    >>> len(names), names[:4], names.index("hand.ruby")
    (164, ('players', 'viewer', 'round', 'step'), 53)
    """
    return tuple(name for name, _ in _observation(view(engine.new_game(players), None)))
