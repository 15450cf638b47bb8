"""The fast engine: a mutable engine for hot loops (rollouts, mass simulation), equal to
the reference.

:class:`FastGame` keeps a game in plain mutable lists and changes it in place; it lists
the same legal actions as :func:`meuterer.legal_actions` (the same typed actions, in the
same order), accepts exactly those, and converts back to the reference :class:`State`
(:meth:`FastGame.to_state`) at any point. :func:`random_game` plays exactly the game
:func:`meuterer.random_game` plays for the same arguments: same actions, same final state.

Its agreement with the reference is not argued but proven: ``tests/test_fast.py`` runs
the conformance kit (:func:`meuterer.testing.check_engine`) through
:class:`meuterer.testing.FastAdapter`, the golden playthroughs, and a same-seed equality
test across every rule option. It reads only the core's data (cards, islands, rules,
state, actions).

>>> import meuterer
>>> from meuterer.fast import FastGame
>>> game = FastGame.new(players=3)
>>> str(game.apply_at(0))
'draw p0 ruby'
>>> copy = game.clone()
>>> action = copy.apply_at(len(copy.legal_actions()) - 1)
>>> copy.to_state() == meuterer.apply(game.to_state(), action)
True
"""

from __future__ import annotations

import random
from bisect import bisect
from collections.abc import Callable, Sequence
from itertools import accumulate, combinations_with_replacement, product, repeat
from operator import add, itemgetter, mul
from typing import Any, Final

from meuterer.actions import (
    Action,
    ChooseRole,
    Discard,
    Draw,
    Offer,
    Pass,
    Play,
    RingArrangements,
    Sale,
    Sell,
    Support,
)
from meuterer.cards import CARDS, GOODS, ROLES, Card, Counts, Role
from meuterer.errors import IllegalActionError, SetupError
from meuterer.islands import Island
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.state import FIELDS, STEP_PHASE, Phase, State, Step

__all__ = ["CHANCE", "FastGame", "random_game"]

CHANCE: Final = -1
"""What :attr:`FastGame.current_player` is at a chance node (as :data:`meuterer.CHANCE`)."""

# Steps as small ints (the reference's Step values, by position).
(
    RING,
    DEAL,
    OFFER,
    PLAY,
    CHOOSE_ROLE,
    REVEAL,
    MUTINY,
    RESOLVE_MUTINY,
    ROLE_POINTS,
    SELL,
    SAIL,
    CLEAN_UP,
    DRAW,
    LOADMASTER_DISCARD,
    ROLES_RETURN,
    END_OF_ROUND,
    GAME_OVER,
) = range(17)
_CHANCE_STEPS = frozenset((RING, DEAL, DRAW))
_DRAWING = frozenset((DEAL, DRAW))
_STEPS: tuple[Step, ...] = tuple(Step)
_STEP_NUMBER: dict[Step, int] = {step: i for i, step in enumerate(_STEPS)}
_PHASES: tuple[Phase, ...] = tuple(STEP_PHASE[step] for step in _STEPS)
assert [s.value for s in _STEPS[:3]] == ["ring", "deal", "offer"] and _STEPS[GAME_OVER] is Step.GAME_OVER

_SUPPORT = Card.SUPPORT
_new_object = object.__new__
_set_attribute = object.__setattr__
assert tuple(FIELDS) == (
    *("players", "rules", "step", "round", "captain", "to_act", "queue", "offer", "ring", "start", "active"),
    *("pirate", "hands", "face_up", "face_down", "passed", "roles", "role_order", "captain_destination"),
    *("mutineer_destination", "mutiny", "sales", "scores", "deck", "discard", "draws_left", "drawn"),
), "FastGame.to_state lists State's fields"
_PIRATE = Card.PIRATE
_MUTINEER, _CABIN_BOY, _MATE, _MERCHANT, _LOADMASTER = ROLES
_SIDES = (_MATE, _MUTINEER, _CABIN_BOY)
_KINDS = range(len(CARDS))
_EMPTY7 = (0,) * len(CARDS)
_ITEM: tuple[Callable[[Any], int], ...] = tuple(itemgetter(i) for i in range(16))

_DRAW = tuple(tuple(Draw(p, c) for c in CARDS) for p in range(4))
_PLAY = tuple(tuple(Play(p, c) for c in CARDS) for p in range(4))
_PASS = tuple(Pass(p) for p in range(4))
_ROLE = tuple(tuple(ChooseRole(p, r) for r in ROLES) for p in range(4))
_SUPPORTS = tuple(tuple(Support(p, k) for k in range(8)) for p in range(4))

# Caches of legal-action lists that depend only on small hashable keys.
_Declarations = tuple[tuple[tuple[Sale, ...], ...], tuple[tuple[int, ...], ...], list[tuple[Sell, ...] | None]]
"""The sale declarations for some goods: their sales, the cards sold per island, and each
seat's :class:`Sell` actions once built."""
_DISCARD_CACHE: dict[tuple[int, int], tuple[tuple[Discard, ...], tuple[Counts, ...], Any]] = {}
_OFFER_CACHE: dict[tuple[int, int], tuple[Offer, ...]] = {}
_DISCARD_CHOICES: dict[tuple[Counts, int], tuple[tuple[tuple[Card, ...], ...], tuple[Counts, ...]]] = {}
_DISCARD_ACTIONS: dict[tuple[int, tuple[Card, ...]], Discard] = {}


def _discards(pool: Counts, extra: int) -> tuple[tuple[tuple[Card, ...], ...], tuple[Counts, ...]]:
    """Every multiset of ``extra`` cards of ``pool`` (reference order), as cards and counts."""
    kinds = [c for c in CARDS if pool[c]]
    found: list[tuple[Card, ...]] = []
    counts: list[Counts] = []
    for cards in combinations_with_replacement(kinds, extra):
        chosen = [0] * 7
        for card in cards:
            chosen[card] += 1
        if all(chosen[c] <= pool[c] for c in kinds):
            found.append(cards)
            counts.append(tuple(chosen))
    return tuple(found), tuple(counts)


def _declarations(
    goods: Counts, islands: tuple[Island, ...], withholding: bool
) -> tuple[tuple[tuple[Sale, ...], ...], tuple[tuple[int, ...], ...]]:
    """Every sale declaration (in the reference order) and, for each, the cards sold per island."""
    if len(islands) > 2:
        return _declarations_product(goods, islands, withholding)
    # One or two active islands (always, in a game): the options of each island, and the
    # pairs that fit checked directly, in the reference's product order. ``buys`` holds
    # only the kinds held (a kind not held is never sold nor kept).
    buys = [[k for k in range(5) if goods[k] and island.buys_card(GOODS[k])] for island in islands]
    options: list[list[tuple[int, int] | None]] = [
        [None, *((k, n) for k in bought for n in range(1, goods[k] + 1))] for bought in buys
    ]
    if not withholding and len(islands) == 2:  # part of a kind only if the other island buys the rest
        options = [[o for o in options[0] if o is None or o[1] == goods[o[0]] or o[0] in buys[1]]] + [
            [o for o in options[1] if o is None or o[1] == goods[o[0]] or o[0] in buys[0]]
        ]
    sales = [
        [None if o is None else _sale(island.name, *o) for o in opts]
        for island, opts in zip(islands, options, strict=True)
    ]
    found: list[tuple[Sale, ...]] = []
    counts: list[tuple[int, ...]] = []
    if len(islands) == 1:
        for o, sale in zip(options[0], sales[0], strict=True):
            if o is None:
                if withholding or not buys[0]:  # selling what one can: nothing only if nothing sells
                    found.append(())
                    counts.append((0,))
            elif withholding or o[1] == goods[o[0]]:
                found.append((sale,))  # type: ignore[arg-type]
                counts.append((o[1],))
        return tuple(found), tuple(counts)
    buys0, buys1 = buys
    for o0, s0 in zip(options[0], sales[0], strict=True):
        for o1, s1 in zip(options[1], sales[1], strict=True):
            if o0 is None:
                if o1 is None:
                    fits = withholding or not (buys0 or buys1)
                    n0 = n1 = 0
                else:
                    k1, n1 = o1
                    n0 = 0
                    fits = withholding or (n1 == goods[k1] and all(k == k1 for k in buys0))
            elif o1 is None:
                k0, n0 = o0
                n1 = 0
                fits = withholding or (n0 == goods[k0] and all(k == k0 for k in buys1))
            else:
                k0, n0 = o0
                k1, n1 = o1
                if k0 == k1:
                    fits = n0 + n1 <= goods[k0] if withholding else n0 + n1 == goods[k0]
                else:
                    fits = withholding or (n0 == goods[k0] and n1 == goods[k1])
            if fits:
                found.append(tuple(s for s in (s0, s1) if s is not None))
                counts.append((n0, n1))
    return tuple(found), tuple(counts)


_SALES: dict[tuple[str, int, int], Sale] = {}


def _sale(island: str, kind: int, count: int) -> Sale:
    """``Sale(island, GOODS[kind], count)``, built once."""
    key = (island, kind, count)
    found = _SALES.get(key)
    if found is None:
        if len(_SALES) >= 1 << 12:
            _SALES.clear()
        found = _SALES[key] = Sale(island, GOODS[kind], count)
    return found


def _declarations_product(
    goods: Counts, islands: tuple[Island, ...], withholding: bool
) -> tuple[tuple[tuple[Sale, ...], ...], tuple[tuple[int, ...], ...]]:
    """:func:`_declarations` for any number of islands: the product of their options, filtered."""
    buys = [[k for k in range(5) if island.buys_card(GOODS[k])] for island in islands]
    options: list[list[tuple[int, int] | None]] = [
        [None, *((k, n) for k in bought for n in range(1, goods[k] + 1))] for bought in buys
    ]
    if not withholding:
        # Selling what one can, part of a kind is sold on one island only if another island
        # buys the rest: leave out the options that no valid declaration can contain
        # (the order of the rest stays the reference's).
        options = [
            [o for o in opts if o is None or o[1] == goods[o[0]] or any(o[0] in b for b in buys[:i] + buys[i + 1 :])]
            for i, opts in enumerate(options)
        ]
    found: list[tuple[Sale, ...]] = []
    counts: list[tuple[int, ...]] = []
    sales = [
        [None if o is None else Sale(island.name, GOODS[o[0]], o[1]) for o in opts]
        for island, opts in zip(islands, options, strict=True)
    ]
    indices = [range(len(opts)) for opts in options]
    for choice in product(*indices):
        sold = [0, 0, 0, 0, 0]
        for opts, c in zip(options, choice, strict=True):
            option = opts[c]
            if option is not None:
                sold[option[0]] += option[1]
        if not _allowed(goods, sold, withholding, buys, options, choice):
            continue
        found.append(tuple(s[c] for s, c in zip(sales, choice, strict=True) if s[c] is not None))  # type: ignore[misc]
        counts.append(tuple(0 if opts[c] is None else opts[c][1] for opts, c in zip(options, choice, strict=True)))  # type: ignore[index]
    return tuple(found), tuple(counts)


def _allowed(
    goods: Counts,
    sold: list[int],
    withholding: bool,
    buys: list[list[int]],
    options: list[list[tuple[int, int] | None]],
    choice: tuple[int, ...],
) -> bool:
    for k in range(5):
        if sold[k] > goods[k]:
            return False
        # Sell what you can: no face-up card of a declared kind stays unsold...
        if not withholding and sold[k] and sold[k] != goods[k]:
            return False
    if withholding:
        return True
    # ...and an island left undeclared buys none of the unsold goods.
    for bought, opts, c in zip(buys, options, choice, strict=True):
        if opts[c] is None:
            for k in bought:
                if goods[k] > sold[k]:
                    return False
    return True


def _piratennest(rules: Rules, ring: Sequence[int]) -> int | None:
    if not rules.pirates:
        return None
    return next(pos for pos, index in enumerate(ring) if rules.islands[index].name == "piratennest")


class FastGame:
    """A Meuterer game as one mutable object: legal actions, apply in place, clone.

    Start one with :meth:`new` or from any reference state with :meth:`from_state`;
    :meth:`to_state` gives the reference :class:`State` it is in. Actions are the
    reference's typed actions, listed in the reference order; :meth:`apply` raises
    :class:`~meuterer.errors.IllegalActionError` for any other.
    """

    __slots__ = (
        "_act_counts",
        "_c",
        "_legal",
        "_sale_counts",
        "_where",
        "active",
        "captain",
        "captain_destination",
        "deck",
        "discard",
        "drawn",
        "draws_left",
        "face_down",
        "face_up",
        "hands",
        "mutineer_destination",
        "mutiny",
        "offer",
        "passed",
        "pirate",
        "players",
        "queue",
        "ring",
        "role_order",
        "roles",
        "round",
        "rules",
        "sales",
        "scores",
        "start",
        "step",
        "to_act",
    )

    players: int
    rules: Rules
    step: int
    round: int
    captain: int
    to_act: int
    queue: list[int]
    offer: int | None
    ring: list[int]
    start: int
    active: list[int]
    pirate: int | None
    hands: list[list[int]]
    face_up: list[list[int]]
    face_down: list[list[int]]
    passed: list[bool]
    roles: list[Role | None]
    role_order: list[int]
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    sales: list[tuple[Sale, ...] | None]
    scores: list[int]
    deck: list[int]
    discard: list[int]
    draws_left: int
    drawn: list[int]
    _legal: Sequence[Action] | None
    _act_counts: tuple[tuple[int, ...], ...]
    _sale_counts: list[tuple[int, ...] | None]
    _where: _Market | None
    """The market of the active islands, once looked up (``None`` after they change)."""
    _c: _Constants

    # Construction and conversion ---------------------------------------------------------

    @classmethod
    def new(cls, players: int = 4, first_captain: int = 0, rules: Rules | None = None) -> FastGame:
        """The game before the deal, as :func:`meuterer.new_game` (same errors)."""
        if rules is None:
            rules = _DEFAULT_RULES
        if not isinstance(rules, Rules):
            raise SetupError(f"rules must be a meuterer.Rules, got {type(rules).__name__}")
        if type(players) is not int or players not in (3, 4):
            raise SetupError(f"Meuterer is played by 3 or 4 players, got {players!r}")
        if type(first_captain) is not int or not 0 <= first_captain < players:
            raise SetupError(f"first_captain must be a seat from 0 to {players - 1}, got {first_captain!r}")
        g = cls.__new__(cls)
        g.players = players
        g.rules = rules
        g._c = _constants(rules, players)
        g.step = RING if rules.ring is Ring.SHUFFLED else DEAL
        g.round = 1
        g.captain = first_captain
        g.to_act = first_captain
        g.queue = [(first_captain + i) % players for i in range(1, players)]
        g.offer = None
        g.ring = list(range(len(rules.islands)))
        g.start = 0
        g.active = [0]
        g._where = None
        g.pirate = _piratennest(rules, g.ring)
        g.hands = [[0] * 7 for _ in range(players)]
        g.face_up = [[0] * 7 for _ in range(players)]
        g.face_down = [[0] * 7 for _ in range(players)]
        g.passed = [False] * players
        g.roles = [None] * players
        g.role_order = []
        g.captain_destination = None
        g.mutineer_destination = None
        g.mutiny = None
        g.sales = [None] * players
        g._sale_counts = [None] * players
        g.scores = [0] * players
        g.deck = list(rules.deck)
        g.discard = [0] * 7
        g.draws_left = rules.hand_size
        g.drawn = [0] * 7
        g._legal = None
        g._act_counts = ()
        return g

    @classmethod
    def from_state(cls, state: State) -> FastGame:
        """The game in reference state ``state``."""
        g = cls.__new__(cls)
        g.players = state.players
        g.rules = state.rules
        g._c = _constants(state.rules, state.players)
        g.step = _STEP_NUMBER[state.step]
        g.round = state.round
        g.captain = state.captain
        g.to_act = state.to_act
        g.queue = list(state.queue)
        g.offer = state.offer
        g.ring = list(state.ring)
        g.start = state.start
        g.active = list(state.active)
        g._where = None
        g.pirate = state.pirate
        g.hands = [list(h) for h in state.hands]
        g.face_up = [list(h) for h in state.face_up]
        g.face_down = [list(h) for h in state.face_down]
        g.passed = list(state.passed)
        g.roles = list(state.roles)
        g.role_order = list(state.role_order)
        g.captain_destination = state.captain_destination
        g.mutineer_destination = state.mutineer_destination
        g.mutiny = state.mutiny
        g.sales = list(state.sales)
        g._sale_counts = [None if s is None else g._count_sales(s) for s in state.sales]
        g.scores = list(state.scores)
        g.deck = list(state.deck)
        g.discard = list(state.discard)
        g.draws_left = state.draws_left
        g.drawn = list(state.drawn)
        g._legal = None
        g._act_counts = ()
        return g

    def _count_sales(self, sales: tuple[Sale, ...]) -> tuple[int, ...]:
        islands = self.rules.islands
        names = [islands[self.ring[pos]].name for pos in self.active]
        return tuple(sum(s.count for s in sales if s.island == name) for name in names)

    def to_state(self) -> State:
        """The reference state this game is in."""
        # State's fields, in order, set as its attrs __init__ would (it converts nothing)
        # but without a guarded setattr per field.
        fields = {
            "players": self.players,
            "rules": self.rules,
            "step": _STEPS[self.step],
            "round": self.round,
            "captain": self.captain,
            "to_act": self.to_act,
            "queue": tuple(self.queue),
            "offer": self.offer,
            "ring": tuple(self.ring),
            "start": self.start,
            "active": tuple(self.active),
            "pirate": self.pirate,
            "hands": tuple(map(tuple, self.hands)),
            "face_up": tuple(map(tuple, self.face_up)),
            "face_down": tuple(map(tuple, self.face_down)),
            "passed": tuple(self.passed),
            "roles": tuple(self.roles),
            "role_order": tuple(self.role_order),
            "captain_destination": self.captain_destination,
            "mutineer_destination": self.mutineer_destination,
            "mutiny": self.mutiny,
            "sales": tuple(self.sales),
            "scores": tuple(self.scores),
            "deck": tuple(self.deck),
            "discard": tuple(self.discard),
            "draws_left": self.draws_left,
            "drawn": tuple(self.drawn),
        }
        state = _new_object(State)
        _set_attribute(state, "__dict__", fields)
        return state

    def clone(self) -> FastGame:
        """An independent copy."""
        g = FastGame.__new__(FastGame)
        g.players = self.players
        g.rules = self.rules
        g._c = self._c
        g.step = self.step
        g.round = self.round
        g.captain = self.captain
        g.to_act = self.to_act
        g.queue = self.queue[:]
        g.offer = self.offer
        g.ring = self.ring  # never changed in place
        g.start = self.start
        g.active = self.active  # replaced, never changed in place
        g._where = self._where
        g.pirate = self.pirate
        g.hands = [h[:] for h in self.hands]
        g.face_up = [h[:] for h in self.face_up]
        g.face_down = [h[:] for h in self.face_down]
        g.passed = self.passed[:]
        g.roles = self.roles[:]
        g.role_order = self.role_order[:]
        g.captain_destination = self.captain_destination
        g.mutineer_destination = self.mutineer_destination
        g.mutiny = self.mutiny
        g.sales = self.sales[:]
        g._sale_counts = self._sale_counts[:]
        g.scores = self.scores[:]
        g.deck = self.deck[:]
        g.discard = self.discard[:]
        g.draws_left = self.draws_left
        g.drawn = self.drawn[:]
        g._legal = self._legal
        g._act_counts = self._act_counts
        return g

    @classmethod
    def random_game(
        cls, seed: int | None = None, players: int = 4, first_captain: int = 0, rules: Rules | None = None
    ) -> tuple[tuple[Action, ...], State]:
        """:func:`random_game` played by this class (a subclass plays its own rules)."""
        return _random_game(cls, seed, players, first_captain, rules)

    # Queries ----------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        """The seat to decide, :data:`CHANCE` at a chance node, ``None`` when over."""
        step = self.step
        if step == GAME_OVER:
            return None
        if step in _CHANCE_STEPS:
            return CHANCE
        return self.to_act

    @property
    def phase(self) -> Phase:
        """The rulebook phase (as :attr:`meuterer.State.phase`)."""
        return _PHASES[self.step]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.step == GAME_OVER

    def is_chance_node(self) -> bool:
        """Whether the next action is drawn by chance."""
        step = self.step
        return step in _CHANCE_STEPS

    def winners(self) -> tuple[int, ...]:
        """The seats with the most points once the game is over; ``()`` before."""
        if self.step != GAME_OVER:
            return ()
        best = max(self.scores)
        return tuple(p for p, s in enumerate(self.scores) if s == best)

    def legal_actions(self) -> Sequence[Action]:
        """Every action :meth:`apply` accepts, in the reference order (``()`` when over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._list_legal()
        return legal

    def _list_legal(self) -> Sequence[Action]:
        step = self.step
        p = self.to_act
        if step == PLAY:
            hand = self.hands[p]
            plays = _PLAY[p]
            return [plays[c] for c in _KINDS if hand[c]] + [_PASS[p]]
        if step in _DRAWING:
            pool = self.deck if any(self.deck) else self.discard
            draws = _DRAW[p]
            return [draws[c] for c in _KINDS if pool[c]]
        if step == CHOOSE_ROLE:
            taken = self.roles
            return [a for r, a in zip(ROLES, _ROLE[p], strict=True) if r not in taken]
        if step == SELL:
            found = self._sell_options()
            self._act_counts = found[1]
            return found[0]
        if step == MUTINY:
            most = self.face_down[p][_SUPPORT]
            return [_SUPPORTS[p][k] if k < 8 else Support(p, k) for k in range(most + 1)]
        if step == OFFER:
            return self._offers()
        if step == LOADMASTER_DISCARD:
            return self._discard_options()[0]
        if step == RING:
            return self._c.arrangements
        return ()

    def _offers(self) -> tuple[Offer, ...]:
        """The captain's offers, 0 to ``rules.max_offer`` points (the amount is the index)."""
        key = (self.captain, self.rules.max_offer)
        offers = _OFFER_CACHE.get(key)
        if offers is None:
            offers = _OFFER_CACHE[key] = tuple(Offer(self.captain, n) for n in range(key[1] + 1))
        return offers

    def _sell_options(self) -> tuple[tuple[Sell, ...], tuple[tuple[int, ...], ...]]:
        p = self.to_act
        shared = self._declarations()
        sells = shared[2][p]
        if sells is None:
            sells = shared[2][p] = tuple(Sell(p, sales) for sales in shared[0])
        return sells, shared[1]

    def bought(self) -> tuple[int, ...]:
        """For each card kind, 1 if an active island buys it, else 0."""
        return (self._where or self._find_market()).mask

    def _find_market(self) -> _Market:
        """The sales market of the active islands (shared by every game with the same rules)."""
        c = self._c
        where = tuple(map(self.ring.__getitem__, self.active))
        market = c.declarations.get(where)
        if market is None:
            market = c.declarations[where] = _Market(tuple(c.islands[i] for i in where))
        self._where = market
        return market

    def _declarations(self) -> _Declarations:
        """The sale declarations open to the player to act: sales, cards sold per island, and
        each seat's :class:`Sell` actions once built."""
        market = self._where or self._find_market()
        face_up = self.face_up[self.to_act]
        key = market.key(face_up)  # goods no active island buys play no part
        shared = market.cache.get(key)
        if shared is None:
            cache = market.cache
            if len(cache) > 50_000:
                cache.clear()
            goods = tuple(map(mul, face_up, market.mask))
            sales, counts = _declarations(goods, market.islands, self._c.withholding)
            shared = cache[key] = (sales, counts, [None] * 4)
        return shared

    def _discard_options(self) -> tuple[tuple[Discard, ...], tuple[Counts, ...]]:
        p = self.to_act
        shared = self._discards()
        key = (p, id(shared))
        found = _DISCARD_CACHE.get(key)
        if found is None or found[2] is not shared:
            found = _DISCARD_CACHE[key] = (tuple(Discard(p, cards) for cards in shared[0]), shared[1], shared)
        return found[0], found[1]

    def _discards(self) -> tuple[tuple[tuple[Card, ...], ...], tuple[Counts, ...]]:
        """The loadmaster's choices: the cards of each discard and their counts."""
        pool = tuple(self.hands[self.to_act] if self._c.discard_from_hand else self.drawn)
        key = (pool, self._c.extra)
        found = _DISCARD_CHOICES.get(key)
        if found is None:
            found = _DISCARD_CHOICES[key] = _discards(pool, self._c.extra)
        return found

    # Acting -----------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` in place, then the automatic steps that follow it.

        Raises :class:`~meuterer.errors.IllegalActionError` (the game unchanged) unless
        ``action`` is one of :meth:`legal_actions`.
        """
        legal = self.legal_actions()
        try:
            index = legal.index(action)
        except ValueError:
            code = "game-over" if self.step == GAME_OVER else "not-legal"
            raise IllegalActionError(action, self._why_illegal(action), code) from None
        self._fire(legal[index], index)

    def apply_at(self, index: int) -> Action:
        """Apply the ``index``-th of :meth:`legal_actions` (no search for it); returns it.

        Raises :class:`~meuterer.errors.IllegalActionError` for an index out of range."""
        legal = self.legal_actions()
        if not 0 <= index < len(legal):
            raise IllegalActionError(f"#{index}", f"there are {len(legal)} legal action(s), numbered from 0")
        action = legal[index]
        self._fire(action, index)
        return action

    def apply_chance(self, rng: random.Random) -> Action:
        """Draw a chance outcome as :meth:`sample_chance` does, apply it, and return it."""
        action = self.sample_chance(rng)
        if self.step == RING:
            self._fire(action, 0)
        else:
            assert isinstance(action, Draw)
            self._legal = None
            self._draw(action.card)
        return action

    def _why_illegal(self, action: object) -> str:
        if self.step == GAME_OVER:
            return "the game is over"
        who = "chance" if self.is_chance_node() else f"p{self.to_act}"
        return f"it is not among the {len(self.legal_actions())} legal action(s) at step {_STEPS[self.step]} ({who})"

    def sample_chance(self, rng: random.Random) -> Action:
        """A chance outcome drawn with its probability, using ``rng`` exactly as
        :func:`meuterer.sample_chance` does (the same outcome for the same generator)."""
        if self.step == RING:
            arrangements = self._c.arrangements
            return arrangements[rng.randrange(len(arrangements))]
        pool = self.deck if any(self.deck) else self.discard
        return _DRAW[self.to_act][_pick(pool, rng.random())]

    def _fire(self, action: Any, index: int) -> None:
        """Apply a listed action (``index`` is its place in the legal list)."""
        self._legal = None
        step = self.step
        if step in _DRAWING:
            self._draw(action.card)
        elif step == PLAY:
            if type(action) is Play:
                self._play(action.card)
            else:
                self._pass()
        elif step == CHOOSE_ROLE:
            self._take_role(action.role)
        elif step == SELL:
            self._sell(action.sales, self._act_counts[index])
        elif step == MUTINY:
            self._support(action.count)
        elif step == OFFER:
            self.offer = action.amount
            self.to_act = self.captain
            self.step = PLAY
        elif step == LOADMASTER_DISCARD:
            self._discard(self._discard_options()[1][index])
        elif step == RING:
            names = self._c.names
            self.ring = [names.index(name) for name in action.islands]
            self.pirate = _piratennest(self.rules, self.ring)
            self._where = None
            self.step = DEAL
        else:
            raise AssertionError("unreachable: no action at an automatic step or at the end")

    # The rules, step by step (mirroring meuterer.machine's declaration) ------------------

    def _draw(self, card: int) -> None:
        deck = self.deck
        if not any(deck):  # the discard pile is shuffled into a new deck
            deck = self.deck = self.discard
            self.discard = [0] * 7
        deck[card] -= 1
        if self._c.reshuffle_when_empty and not any(deck):
            self.deck = self.discard
            self.discard = deck  # all zero
        self.hands[self.to_act][card] += 1
        self.drawn[card] += 1
        left = self.draws_left
        self.draws_left = left - 1
        if left == 1:
            self._drawn_all()

    def _drawn_all(self) -> None:
        """The drawing player has drawn his last card: the loadmaster discards, or the
        next player draws, or the deal or phase 8 ends."""
        if self.step == DEAL:
            if not self.queue:
                self.drawn = [0] * 7
                self.to_act = self.captain
                self.step = OFFER
            else:
                self._next_drawer()
        elif self.roles[self.to_act] is _LOADMASTER:
            self.step = LOADMASTER_DISCARD
        elif not self.queue:
            self._next_drawer()
            self._roles_return()
        else:
            self._next_drawer()

    def _next_drawer(self) -> None:
        self.drawn = [0] * 7
        queue = self.queue
        if not queue:
            self.draws_left = 0
            return
        seat = self.to_act = queue.pop(0)
        need = self._c.hand_size - sum(self.hands[seat])
        if self.roles[seat] is _LOADMASTER:
            need += self._c.extra
        self.draws_left = need

    def _discard(self, cards: Counts) -> None:
        hand = self.hands[self.to_act]
        discard = self.discard
        for c in _KINDS:
            k = cards[c]
            if k:
                hand[c] -= k
                discard[c] += k
        last = not self.queue
        self._next_drawer()
        if last:
            self._roles_return()
        else:
            self.step = DRAW

    def _next_unpassed(self, after: int) -> int:
        n = self.players
        passed = self.passed
        for i in range(1, n + 1):
            seat = (after + i) % n
            if not passed[seat]:
                return seat
        return after

    def _play(self, card: int) -> None:
        p = self.to_act
        hand = self.hands[p]
        hand[card] -= 1
        self.face_up[p][card] += 1
        self.to_act = self._next_unpassed(p)
        if card == _PIRATE:
            pirate = self.pirate
            assert pirate is not None
            left = sum(hand)
            n = len(self.ring)
            self.pirate = (pirate - left) % n
            if left and (
                ((pirate - self.start) % n or n) <= left or (pirate == self.start and self.rules.pirates_rob_at_start)
            ):
                discard = self.discard
                for cards in self.face_up:
                    for c in _KINDS:
                        discard[c] += cards[c]
                self.face_up = [[0] * 7 for _ in range(self.players)]

    def _pass(self) -> None:
        p = self.to_act
        hand = self.hands[p]
        last = sum(self.passed) == self.players - 1
        self.face_down[p] = hand
        self.hands[p] = [0] * 7
        self.passed[p] = True
        if p == self.captain:
            self.captain_destination = (self.start + sum(hand)) % len(self.ring)
            self.to_act = self._next_unpassed(p)
            if last:
                self._reveal()
            # else: phase 2 goes on
        else:
            self.step = CHOOSE_ROLE

    def _take_role(self, role: Role) -> None:
        p = self.to_act
        self.roles[p] = role
        self.role_order.append(p)
        self.to_act = self._next_unpassed(p)
        if all(self.passed):
            self._reveal()
        else:
            self.step = PLAY

    def _reveal(self) -> None:
        roles = self.roles
        if _MUTINEER not in roles:
            self._role_points()
            return
        mutineer = roles.index(_MUTINEER)
        self.mutineer_destination = (self.start + sum(self.face_down[mutineer])) % len(self.ring)
        n = self.players
        captain = self.captain
        order = [p for p in ((captain + i) % n for i in range(n)) if p == captain or roles[p] in _SIDES]
        self.to_act = order[0]
        self.queue = order[1:]
        self.step = MUTINY

    def _support(self, k: int) -> None:
        p = self.to_act
        self.face_down[p][_SUPPORT] -= k
        self.face_up[p][_SUPPORT] += k
        if self.queue:
            self.to_act = self.queue.pop(0)
            self.step = MUTINY
            return
        # Resolve: the stronger side wins; a tie goes to the mutineer.
        face_up = self.face_up
        captain_side = face_up[self.captain][_SUPPORT]
        mutineer_side = 0
        for seat, role in enumerate(self.roles):
            if role is _MATE:
                captain_side += face_up[seat][_SUPPORT] + 1
            elif role is _MUTINEER or role is _CABIN_BOY:
                mutineer_side += face_up[seat][_SUPPORT]
        self.mutiny = mutineer_side >= captain_side
        self._role_points()

    def _role_points(self) -> None:
        scores = self.scores
        roles = self.roles
        c = self._c
        old_captain = captain = self.captain
        if self.mutiny:
            mutineer = roles.index(_MUTINEER)
            assert self.mutineer_destination is not None
            scores[mutineer] += c.islands[self.ring[self.mutineer_destination]].ship
            if _CABIN_BOY in roles:
                scores[roles.index(_CABIN_BOY)] += self.rules.cabin_boy_points
            captain = self.captain = mutineer
        else:
            assert self.captain_destination is not None and self.offer is not None
            scores[captain] += c.islands[self.ring[self.captain_destination]].ship
            if _MATE in roles:
                scores[captain] -= self.offer
                scores[roles.index(_MATE)] += 1 + self.offer
        first = captain if c.new_captain_sells_first else old_captain
        n = self.players
        self.to_act = first
        self.queue = [(first + i) % n for i in range(1, n)]
        self.step = SELL

    def _sell(self, sales: tuple[Sale, ...], counts: tuple[int, ...]) -> None:
        p = self.to_act
        self.sales[p] = sales
        self._sale_counts[p] = counts
        if self.queue:
            self.to_act = self.queue.pop(0)
            return
        # Every player has declared: score each active island.
        c = self._c
        scores = self.scores
        roles = self.roles
        declared = self._sale_counts
        for i, position in enumerate(self.active):
            sold = [0 if d is None else d[i] for d in declared] if None in declared else list(map(_ITEM[i], declared))
            most = max(sold)
            if most == 0:
                continue
            values = c.islands[self.ring[position]].values
            leaders = sold.count(most)
            shared = values[leaders - 1] if leaders <= len(values) else 0
            for seat, k in enumerate(sold):
                if k == most:
                    scores[seat] += values[0] if roles[seat] is _MERCHANT else shared
        if self.round >= c.rounds:
            self.step = GAME_OVER
            return
        self._sail()

    def _sail(self) -> None:
        destination = self.mutineer_destination if self.mutiny else self.captain_destination
        assert destination is not None
        start = self.start
        self.start = destination
        self.active = [start] if start == destination else sorted((start, destination))
        self._where = None
        # Phase 7: clean up.
        n = self.players
        c = self._c
        self.discard = list(map(sum, zip(self.discard, *self.face_up, strict=True)))
        # Face-down cards go back to the hands: everyone has passed, so a hand is empty and
        # its face-down list simply becomes it.
        hands = self.hands
        face_down = self.face_down
        if any(map(any, hands)):
            for p in range(n):
                hands[p] = list(map(add, hands[p], face_down[p]))
        else:
            hands = self.hands = face_down
        self.face_up = list(map(list, repeat(_EMPTY7, n)))
        self.face_down = list(map(list, repeat(_EMPTY7, n)))
        self.passed = [False] * n
        self.captain_destination = None
        self.mutineer_destination = None
        self.drawn = [0] * 7
        if self.rules.pirates_return:
            self.pirate = _piratennest(self.rules, self.ring)
        # Phase 8 is set up: drawing from the captain on, skipping full hands.
        roles = self.roles
        hand_size, extra = c.hand_size, c.extra
        first = -1
        queue = []
        p = self.captain
        for _ in range(n):
            need = hand_size - sum(hands[p])
            if roles[p] is _LOADMASTER:
                need += extra
            if need > 0:
                if first < 0:
                    first = p
                    self.draws_left = need
                else:
                    queue.append(p)
            p = p + 1 if p + 1 < n else 0
        if first >= 0:
            self.to_act = first
            self.queue = queue
            self.step = DRAW
        else:
            self._roles_return()

    def _roles_return(self) -> None:
        n = self.players
        self.roles = [None] * n
        self.role_order = []
        # Phase 10: the next round.
        self.round += 1
        self.offer = None
        self.mutiny = None
        self.sales = [None] * n
        self._sale_counts = [None] * n
        self.to_act = self.captain
        self.queue = []
        self.draws_left = 0
        self.step = OFFER


_FREE_ROLES: dict[tuple[Role | None, ...], tuple[Role, ...]] = {}


def _free_roles(taken: list[Role | None]) -> tuple[Role, ...]:
    """The role cards still in the centre, in order, when ``taken`` are held."""
    key = tuple(taken)
    found = _FREE_ROLES.get(key)
    if found is None:
        if len(_FREE_ROLES) >= 1 << 12:
            _FREE_ROLES.clear()
        found = _FREE_ROLES[key] = tuple(role for role in ROLES if role not in taken)
    return found


def _last_kind(pool: Sequence[int]) -> int:
    """The last kind ``pool`` holds (0 if none): what a draw picks when the target is rounded up to the total."""
    for c in reversed(_KINDS):
        if pool[c]:
            return c
    return 0


def _pick(pool: Sequence[int], x: float) -> int:
    """The card kind ``random.choices`` picks from ``pool``'s non-empty kinds, weighted by
    their counts, for ``random()`` returning ``x`` (the same float arithmetic and bisection)."""
    total = 0
    for c in _KINDS:
        total += pool[c]
    target = x * float(total)
    cumulative = 0
    last = -1
    for c in _KINDS:
        k = pool[c]
        if k:
            cumulative += k
            if target < cumulative:
                return c
            last = c
    return last


def _no_goods(face_up: Sequence[int]) -> tuple[()]:
    return ()


class _Market:
    """What sales on some active islands depend on: which kinds they buy (``mask``), the
    face-up counts of those kinds (``key``, the cache key), and the declarations for each
    such key, once listed."""

    __slots__ = ("cache", "islands", "key", "mask")

    def __init__(self, islands: tuple[Island, ...]) -> None:
        self.islands = islands
        self.mask = tuple(int(any(island.buys_card(card) for island in islands)) for card in CARDS)
        kinds = [k for k in _KINDS if self.mask[k]]
        self.key: Callable[[Sequence[int]], object] = itemgetter(*kinds) if kinds else _no_goods
        self.cache: dict[object, _Declarations] = {}


class _Constants:
    """What a game reads from its rules, looked up once per rule set and player count."""

    __slots__ = (
        "arrangements",
        "declarations",
        "discard_from_hand",
        "extra",
        "hand_size",
        "islands",
        "names",
        "new_captain_sells_first",
        "reshuffle_when_empty",
        "rounds",
        "withholding",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        self.islands = rules.islands
        self.names = tuple(island.name for island in rules.islands)
        self.arrangements = RingArrangements(self.names)
        self.hand_size = rules.hand_size
        self.extra = rules.loadmaster_extra
        self.rounds = rules.rounds_for(players)
        self.withholding = rules.withholding
        self.discard_from_hand = rules.discard_pool is DiscardPool.HAND
        self.reshuffle_when_empty = rules.reshuffle is Reshuffle.WHEN_EMPTY
        self.new_captain_sells_first = rules.sale_order is SaleOrder.NEW_CAPTAIN
        self.declarations: dict[tuple[int, ...], _Market] = {}


_DEFAULT_RULES = Rules()
_CONSTANTS: dict[tuple[Rules, int], _Constants] = {}
_LAST: list[Any] = [None, 0, None]


def _constants(rules: Rules, players: int) -> _Constants:
    last = _LAST
    if last[0] is rules and last[1] == players:
        known: _Constants = last[2]
        return known
    found = _CONSTANTS.get((rules, players))
    if found is None:
        if len(_CONSTANTS) > 256:
            _CONSTANTS.clear()
        found = _CONSTANTS[rules, players] = _Constants(rules, players)
    last[:] = [rules, players, found]
    return found


def random_game(
    seed: int | None = None, players: int = 4, first_captain: int = 0, rules: Rules | None = None
) -> tuple[tuple[Action, ...], State]:
    """Exactly :func:`meuterer.random_game` (same actions, same final state), faster:
    uniform random legal choices and seeded chance draws, the generator used in the same way."""
    return FastGame.random_game(seed, players, first_captain, rules)


def _randbelow_is_getrandbits() -> bool:
    """Whether ``Random._randbelow(n)`` (what ``choice`` uses) draws ``getrandbits(n.bit_length())``
    until below ``n``, as :func:`_random_game` does inline (true of CPython 3.11 to 3.13)."""
    for seed in range(4):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in (*range(1, 40), 1000):
            k = _BITS[n] if n < len(_BITS) else n.bit_length()
            r = ours.getrandbits(k)
            while r >= n:
                r = ours.getrandbits(k)
            if r != theirs._randbelow(n):  # type: ignore[attr-defined]
                return False
    return True


_BITS = tuple(n.bit_length() for n in range(64))
_INLINE_CHOICE = _randbelow_is_getrandbits()


def _plain_random_game(
    cls: type[FastGame], seed: int | None, players: int, first_captain: int, rules: Rules | None
) -> tuple[tuple[Action, ...], State]:
    """:func:`random_game` through the public methods: ``rng.choice`` over the legal actions."""
    rng = random.Random(seed)
    game = cls.new(players, first_captain, rules)
    history: list[Action] = []
    while not game.is_terminal():
        if game.is_chance_node():
            history.append(game.apply_chance(rng))
        else:
            history.append(game.apply_at(rng._randbelow(len(game.legal_actions()))))  # type: ignore[attr-defined]
    return tuple(history), game.to_state()


def _random_game(
    cls: type[FastGame], seed: int | None, players: int, first_captain: int, rules: Rules | None
) -> tuple[tuple[Action, ...], State]:
    if not _INLINE_CHOICE:
        return _plain_random_game(cls, seed, players, first_captain, rules)
    rng = random.Random(seed)
    game = cls.new(players, first_captain, rules)
    history: list[Action] = []
    append = history.append
    getrandbits = rng.getrandbits
    rand = rng.random
    bits = _BITS
    kinds = _KINDS
    when_empty = game._c.reshuffle_when_empty
    own_play = cls._play is FastGame._play  # a subclass's own methods are called
    own_sell = cls._sell is FastGame._sell
    own_pass = cls._pass is FastGame._pass and cls._take_role is FastGame._take_role
    own_drawn = cls._drawn_all is FastGame._drawn_all and cls._next_drawer is FastGame._next_drawer
    hand_size, extra = game._c.hand_size, game._c.extra
    plays, passes = _PLAY, _PASS
    # The steps are inlined: the same choices as listing the legal actions and picking one
    # with rng.choice (its _randbelow inlined: getrandbits until below the count), without
    # building the lists.
    while True:
        step = game.step
        if step in _DRAWING:
            # Each drawing player's draws in one go (FastGame._draw inlined): each is one
            # rand(), the first kind whose running count exceeds it (bisect, as
            # random.choices does; the cap at the total keeps the last kind left).
            while True:
                p = game.to_act
                hand = game.hands[p]
                drawn = game.drawn
                draws = _DRAW[p]
                pool = game.deck
                total = sum(pool)
                for _ in range(game.draws_left):
                    if not total:  # the discard pile becomes the deck
                        pool = game.deck = game.discard
                        game.discard = [0] * 7
                        total = sum(pool)
                    card = bisect(list(accumulate(pool)), rand() * total)
                    if card == 7:  # the target rounded up to the total
                        card = _last_kind(pool)
                    append(draws[card])
                    pool[card] -= 1
                    total -= 1
                    hand[card] += 1
                    drawn[card] += 1
                    if not total and when_empty:
                        pool = game.deck = game.discard
                        game.discard = [0] * 7
                        total = sum(pool)
                queue = game.queue
                if queue and own_drawn and (step == DEAL or game.roles[p] is not _LOADMASTER):
                    # FastGame._drawn_all and _next_drawer, inlined: the next player draws
                    game.drawn = [0] * 7
                    seat = game.to_act = queue.pop(0)
                    need = hand_size - sum(game.hands[seat])
                    if game.roles[seat] is _LOADMASTER:
                        need += extra
                    game.draws_left = need
                    continue
                game.draws_left = 0
                game._drawn_all()
                break
        elif step == PLAY:
            # Plays until someone passes (a play keeps the game at this step).
            face_up = game.face_up
            passed = game.passed
            while True:
                p = game.to_act
                hand = game.hands[p]
                n = 8 - hand.count(0)
                index = getrandbits(bits[n])
                while index >= n:
                    index = getrandbits(bits[n])
                if index < n - 1:  # the index-th kind held (the pass is listed last)
                    for card in kinds:
                        if hand[card]:
                            if not index:
                                break
                            index -= 1
                else:
                    append(passes[p])
                    if not own_pass:
                        game._pass()
                        break
                    # FastGame._pass, inlined; a non-captain then chooses his role right
                    # away (FastGame._take_role inlined: the same draws, in the same order).
                    everyone = sum(passed) == players - 1
                    game.face_down[p] = hand
                    game.hands[p] = [0] * 7
                    passed[p] = True
                    if p == game.captain:
                        game.captain_destination = (game.start + sum(hand)) % len(game.ring)
                    else:
                        taken = game.roles
                        n = len(ROLES) + taken.count(None) - players
                        index = getrandbits(bits[n])
                        while index >= n:
                            index = getrandbits(bits[n])
                        role = _free_roles(taken)[index]
                        append(_ROLE[p][role])
                        taken[p] = role
                        game.role_order.append(p)
                    seat = p + 1  # the next unpassed player (p himself if none)
                    for _ in range(players):
                        if seat == players:
                            seat = 0
                        if not passed[seat]:
                            break
                        seat += 1
                    else:
                        seat = p
                    game.to_act = seat
                    if everyone:
                        game._reveal()
                        break
                    continue
                append(plays[p][card])
                if card == _PIRATE or not own_play:
                    game._play(card)
                    face_up = game.face_up  # a robbery empties the table
                    continue
                # FastGame._play without the pirate, inlined
                hand[card] -= 1
                face_up[p][card] += 1
                seat = p + 1
                for _ in range(players):
                    if seat == players:
                        seat = 0
                    if not passed[seat]:
                        game.to_act = seat
                        break
                    seat += 1
        elif step == CHOOSE_ROLE:
            taken = game.roles
            n = len(ROLES) + taken.count(None) - players
            index = getrandbits(bits[n])
            while index >= n:
                index = getrandbits(bits[n])
            role = _free_roles(taken)[index]
            append(_ROLE[game.to_act][role])
            game._take_role(role)
        elif step == SELL:
            p = game.to_act
            market = game._where or game._find_market()  # FastGame._declarations, inlined
            shared = market.cache.get(market.key(game.face_up[p]))
            sales, counts, sells = shared if shared is not None else game._declarations()
            n = len(sales)
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            mine = sells[p]
            if mine is None:
                mine = sells[p] = tuple(Sell(p, declared) for declared in sales)
            append(mine[index])
            if game.queue and own_sell:  # FastGame._sell before the last seller, inlined
                game.sales[p] = sales[index]
                game._sale_counts[p] = counts[index]
                game.to_act = game.queue.pop(0)
            else:
                game._sell(sales[index], counts[index])
        elif step == MUTINY:
            p = game.to_act
            n = game.face_down[p][_SUPPORT] + 1
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            append(_SUPPORTS[p][index] if index < 8 else Support(p, index))
            game._support(index)
        elif step == OFFER:  # FastGame._fire's offer, inlined
            offers = game._offers()
            n = len(offers)
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            append(offers[index])
            game.offer = index  # offers[index].amount
            game.to_act = game.captain
            game.step = PLAY
        elif step == GAME_OVER:
            break
        elif step == LOADMASTER_DISCARD:  # only the chosen Discard is built
            choices, chosen = game._discards()
            n = len(choices)
            k = n.bit_length()
            index = getrandbits(k)
            while index >= n:
                index = getrandbits(k)
            key = (game.to_act, choices[index])
            discarded = _DISCARD_ACTIONS.get(key)
            if discarded is None:
                if len(_DISCARD_ACTIONS) >= 1 << 12:
                    _DISCARD_ACTIONS.clear()
                discarded = _DISCARD_ACTIONS[key] = Discard(*key)
            append(discarded)
            game._discard(chosen[index])
        else:
            if step == RING:
                action = game.sample_chance(rng)
                index = 0
            else:
                legal = game._list_legal()
                n = len(legal)
                k = n.bit_length()
                index = getrandbits(k)
                while index >= n:
                    index = getrandbits(k)
                action = legal[index]
            append(action)
            game._fire(action, index)
    return tuple(history), game.to_state()
