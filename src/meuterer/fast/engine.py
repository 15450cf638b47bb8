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
test across every rule option. It holds only its data layout and its loop: every rule
it applies is a function of ``meuterer.phases``, called on the game itself (it reads
only the core's data and those rule functions).

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
from collections.abc import Callable, Sequence
from operator import itemgetter, mul
from typing import Any, Final

from meuterer._cache import Memo
from meuterer.actions import (
    Action,
    ChooseRole,
    Draw,
    Pass,
    Play,
    Sale,
    Sell,
    Support,
)
from meuterer.cards import CARDS, GOODS, ROLES, Card, Counts, Role, counts_of, plus
from meuterer.errors import IllegalActionError
from meuterer.islands import Island
from meuterer.phases.common import Changes, discarded, next_unpassed
from meuterer.phases.mutiny import legal_support, resolve_mutiny, reveal
from meuterer.phases.offer_cargo import destination, legal_offer, make_offer, plays, roles_left
from meuterer.phases.pirates import pirate_destination, robbery
from meuterer.phases.scoring import leaders, sale_declarations, sale_points, score_roles
from meuterer.phases.setup import arrange_ring, initial_state, legal_ring, sample_ring
from meuterer.phases.voyage import (
    cards_needed,
    clean_up,
    discard_choices,
    draw_from,
    legal_draw,
    next_round,
    return_roles,
    sail,
    sample_card,
    sample_draw,
)
from meuterer.rules import DiscardPool, Rules
from meuterer.state import FIELDS, STEP_PHASE, Phase, State, Step, make_state

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
_STEPS: tuple[Step, ...] = tuple(Step)
_STEP_NUMBER: dict[Step, int] = {step: i for i, step in enumerate(_STEPS)}
CHANCE_STEPS: Final = frozenset((RING, DEAL, DRAW))
"""The steps at which chance acts (``FastGame.step`` in it: a chance node); the machine's
chance steps (``tests/test_fast.py`` holds the two equal: this engine reads only the core's
data and rule functions, not the machine)."""
_DRAWING = frozenset((DEAL, DRAW))
_PHASES: tuple[Phase, ...] = tuple(STEP_PHASE[step] for step in _STEPS)
assert [s.value for s in _STEPS[:3]] == ["ring", "deal", "offer"] and _STEPS[GAME_OVER] is Step.GAME_OVER

_SUPPORT = Card.SUPPORT
assert tuple(FIELDS) == (
    *("players", "rules", "step", "round", "captain", "to_act", "queue", "offer", "ring", "start", "active"),
    *("pirate", "hands", "face_up", "face_down", "passed", "roles", "role_order", "captain_destination"),
    *("mutineer_destination", "mutiny", "sales", "scores", "deck", "discard", "draws_left", "drawn"),
), "FastGame.to_state lists State's fields"
_PIRATE = Card.PIRATE
_MUTINEER, _CABIN_BOY, _MATE, _MERCHANT, _LOADMASTER = ROLES
_KINDS = range(len(CARDS))
_GOODS_END = max(GOODS) + 1

_RANDRANGE = random.Random.randrange
_DRAW = tuple(tuple(Draw(p, c) for c in CARDS) for p in range(4))
_PLAY = tuple(tuple(Play(p, c) for c in CARDS) for p in range(4))
_PASS = tuple(Pass(p) for p in range(4))
_ROLE = tuple(tuple(ChooseRole(p, r) for r in ROLES) for p in range(4))
_SUPPORTS = tuple(tuple(Support(p, k) for k in range(8)) for p in range(4))


def _choose(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n > 0``: for a plain generator its ``_randbelow(n)``, what
    randrange returns (random.py) without its argument checks, unless a subclass has a
    randrange of its own."""
    if type(rng).randrange is _RANDRANGE:
        return rng._randbelow(n)  # type: ignore[attr-defined,no-any-return]
    return rng.randrange(n)


def _randbelow_with_getrandbits(self: random.Random, n: int) -> int:
    # random.Random's own, as CPython 3.11 writes it (compared with this Python's at import).
    getrandbits = self.getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def _same_code(mine: Callable[..., object], theirs: object) -> bool:
    code, other = mine.__code__, getattr(theirs, "__code__", None)
    # the same instructions on the same names and constants (a docstring is the first constant)
    return other is not None and (code.co_code, code.co_names, code.co_varnames, code.co_consts[1:]) == (
        other.co_code,
        other.co_names,
        other.co_varnames,
        other.co_consts[1:],
    )


_PLAIN: type[random.Random] | None = (
    random.Random
    if random.Random._randbelow is getattr(random.Random, "_randbelow_with_getrandbits", None)  # type: ignore[attr-defined]
    and _same_code(_randbelow_with_getrandbits, random.Random._randbelow)  # type: ignore[attr-defined]
    else None
)
"""``random.Random`` if ``rng.randrange(n)`` of a generator of exactly that class is, as
this module's :func:`_randbelow_with_getrandbits` spells out (its very bytecode), the
first ``getrandbits(n.bit_length())`` below ``n``: then :meth:`FastGame.play_random`
draws that without a call; ``None`` (every generator asked through :func:`_choose`) on a
Python whose generator draws otherwise."""


def _out_of_range(index: int, legal: Sequence[Action]) -> IllegalActionError:
    return IllegalActionError(f"#{index}", f"there are {len(legal)} legal action(s), numbered from 0")


_Declarations = tuple[tuple[tuple[Sale, ...], ...], list[tuple[Sell, ...] | None]]
"""The sale declarations for some goods, and each seat's :class:`Sell` actions once built."""


# Fields as FastGame lays them out: these are lists changed in place (the lists of lists
# per seat, then the flat ones), made from the reference's tuples by these expressions; the
# others are kept as the reference holds them.
_LAYOUT: dict[str, str] = {
    **dict.fromkeys(("hands", "face_up", "face_down"), "list(map(list, {}))"),
    **dict.fromkeys(("queue", "passed", "sales", "scores", "drawn"), "list({})"),
}
_NAMES = frozenset(FIELDS)


def _updater(names: tuple[str, ...]) -> Callable[[FastGame, Changes], None]:
    """A function taking over an effect's changes to the fields ``names`` (in that order)
    into a game in this layout: one statement a field, compiled once for each set of
    names an effect returns (a loop over the names, with a setattr for each, cost several
    times more; :meth:`FastGame._update` keeps them)."""
    lines = ["def update(game, changes):"]
    for name in names:
        value = f"changes[{name!r}]"
        if name in _NAMES:  # (an identifier)
            lines.append(f"    game.{name} = {_LAYOUT.get(name, '{}').format(value)}")
        else:  # no field: raises as setattr does
            lines.append(f"    setattr(game, {name!r}, {value})")
    if "active" in names or "ring" in names:
        lines.append("    game._where = None")
    if "hands" in names or "face_down" in names:
        lines.append("    game.sizes = [*map(sum, game.hands), *map(sum, game.face_down)]")
    if "face_up" in names:
        lines.append("    game.face_up_total = [*map(sum, zip(*game.face_up, strict=True))]")
    lines.append("    return None")  # (a body for no names)
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # noqa: S102 - field names, checked above
    update: Callable[[FastGame, Changes], None] = namespace["update"]
    return update


_UPDATERS: Memo[tuple[str, ...], Callable[[FastGame, Changes], None]] = Memo(_updater, size=256)


class FastGame:
    """A Meuterer game as one mutable object: legal actions, apply in place, clone.

    Start one with :meth:`new` or from any reference state with :meth:`from_state`;
    :meth:`to_state` gives the reference :class:`State` it is in. Actions are the
    reference's typed actions, listed in the reference order; :meth:`apply` raises
    :class:`~meuterer.errors.IllegalActionError` for any other.

    It holds only its data layout (lists changed in place) and its loop; every rule it
    applies is the reference's own function in ``meuterer.phases``, called on it (it
    lays out the fields of a ``phases.common.Table``).
    """

    __slots__ = (
        "_c",
        "_legal",
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
        "face_up_total",
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
        "sizes",
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
    ring: tuple[int, ...]
    start: int
    active: tuple[int, ...]
    pirate: int | None
    hands: list[list[int]]
    face_up: list[list[int]]
    face_down: list[list[int]]
    passed: list[bool]
    roles: tuple[Role | None, ...]
    """Each seat's role (``None``: none yet), a tuple replaced whenever a role changes
    (never changed in place: readers may hold it and compare it by identity)."""
    role_order: tuple[int, ...]
    """The seats in the order they chose their roles, replaced like ``roles``."""
    captain_destination: int | None
    mutineer_destination: int | None
    mutiny: bool | None
    sales: list[tuple[Sale, ...] | None]
    scores: list[int]
    deck: Counts
    discard: Counts
    draws_left: int
    drawn: list[int]
    sizes: list[int]
    """Each seat's hand size, then each seat's face-down size: the sums of ``hands`` and
    ``face_down``, kept up to date by every move (read them here, not by summing)."""
    face_up_total: list[int]
    """Each card kind's count face up, all seats together: the sums of ``face_up``'s
    columns, kept up to date by every move (like ``sizes``)."""
    _legal: Sequence[Action] | None
    _where: _Market | None
    """The market of the active islands, once looked up (``None`` after they change)."""
    _c: _Constants

    # Construction and conversion ---------------------------------------------------------

    @classmethod
    def new(cls, players: int = 4, first_captain: int = 0, rules: Rules | None = None) -> FastGame:
        """The game before the deal, as :func:`meuterer.new_game` (same errors)."""
        return cls.from_state(initial_state(players, first_captain, rules))

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
        g.ring = state.ring
        g.start = state.start
        g.active = state.active
        g._where = None
        g.pirate = state.pirate
        g.hands = [list(h) for h in state.hands]
        g.face_up = [list(h) for h in state.face_up]
        g.face_down = [list(h) for h in state.face_down]
        g.passed = list(state.passed)
        g.roles = state.roles
        g.role_order = state.role_order
        g.captain_destination = state.captain_destination
        g.mutineer_destination = state.mutineer_destination
        g.mutiny = state.mutiny
        g.sales = list(state.sales)
        g.scores = list(state.scores)
        g.deck = state.deck
        g.discard = state.discard
        g.draws_left = state.draws_left
        g.drawn = list(state.drawn)
        g.sizes = [*map(sum, g.hands), *map(sum, g.face_down)]
        g.face_up_total = [*map(sum, zip(*g.face_up, strict=True))]
        g._legal = None
        return g

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
            "ring": self.ring,
            "start": self.start,
            "active": self.active,
            "pirate": self.pirate,
            "hands": tuple(map(tuple, self.hands)),
            "face_up": tuple(map(tuple, self.face_up)),
            "face_down": tuple(map(tuple, self.face_down)),
            "passed": tuple(self.passed),
            "roles": self.roles,
            "role_order": self.role_order,
            "captain_destination": self.captain_destination,
            "mutineer_destination": self.mutineer_destination,
            "mutiny": self.mutiny,
            "sales": tuple(self.sales),
            "scores": tuple(self.scores),
            "deck": self.deck,
            "discard": self.discard,
            "draws_left": self.draws_left,
            "drawn": tuple(self.drawn),
        }
        return make_state(fields)

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
        g.ring = self.ring
        g.start = self.start
        g.active = self.active
        g._where = self._where
        g.pirate = self.pirate
        g.hands = [h[:] for h in self.hands]
        g.face_up = [h[:] for h in self.face_up]
        g.face_down = [h[:] for h in self.face_down]
        g.passed = self.passed[:]
        g.roles = self.roles
        g.role_order = self.role_order
        g.captain_destination = self.captain_destination
        g.mutineer_destination = self.mutineer_destination
        g.mutiny = self.mutiny
        g.sales = self.sales[:]
        g.scores = self.scores[:]
        g.deck = self.deck
        g.discard = self.discard
        g.draws_left = self.draws_left
        g.drawn = self.drawn[:]
        g.sizes = self.sizes[:]
        g.face_up_total = self.face_up_total[:]
        g._legal = self._legal
        return g

    def _update(self, changes: Changes) -> None:
        """Take over a reference effect's changes, in this layout."""
        _UPDATERS[tuple(changes)](self, changes)

    @classmethod
    def random_game(
        cls, seed: int | None = None, players: int = 4, first_captain: int = 0, rules: Rules | None = None
    ) -> tuple[tuple[Action, ...], State]:
        """:func:`random_game` played by this class through its public methods (a subclass
        plays its own rules): each choice is ``rng.choice`` over the legal actions' indices,
        as :func:`meuterer.random_game` chooses among the same list."""
        rng = random.Random(seed)
        game = cls.new(players, first_captain, rules)
        history: list[Action] = []
        record, choose = history.append, rng.choice
        while game.step != GAME_OVER:
            if game.step in CHANCE_STEPS:
                record(game.apply_chance(rng))
            else:
                record(game.apply_at(choose(range(len(game.legal_actions())))))
        return tuple(history), game.to_state()

    # Queries ----------------------------------------------------------------------------

    @property
    def current_player(self) -> int | None:
        """The seat to decide, :data:`CHANCE` at a chance node, ``None`` when over."""
        step = self.step
        if step == GAME_OVER:
            return None
        if step in CHANCE_STEPS:
            return CHANCE
        return self.to_act

    @property
    def phase(self) -> Phase:
        """The rulebook phase (as :attr:`meuterer.State.phase`)."""
        return _PHASES[self.step]

    def island(self, position: int) -> Island:
        """The island at ring ``position`` (as :meth:`meuterer.State.island`)."""
        return self.rules.islands[self.ring[position % len(self.ring)]]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.step == GAME_OVER

    def is_chance_node(self) -> bool:
        """Whether the next action is drawn by chance."""
        step = self.step
        return step in CHANCE_STEPS

    def winners(self) -> tuple[int, ...]:
        """The seats with the most points once the game is over; ``()`` before."""
        return leaders(self.scores) if self.step == GAME_OVER else ()

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
            return plays(p, tuple(self.hands[p]))
        if step == CHOOSE_ROLE:
            return roles_left(p, self.roles)
        if step == SELL:
            return self._sell_options()
        if step == MUTINY:
            return legal_support(self)
        if step in _DRAWING:
            return legal_draw(self)
        if step == OFFER:
            return legal_offer(self)
        if step == LOADMASTER_DISCARD:
            held = self.hands[p] if self._c.discard_from_hand else self.drawn
            return discard_choices(p, tuple(held), self._c.extra)
        if step == RING:
            return legal_ring(self)
        return ()

    def _sell_options(self) -> tuple[Sell, ...]:
        """The Sell actions of the player to act: one for each of the sale declarations
        open to him (:func:`~meuterer.phases.scoring.sale_declarations`, cached per market
        on the goods it buys, with each seat's actions once built)."""
        p = self.to_act
        market = self._where or self._find_market()
        face_up = self.face_up[p]
        key = market.key(face_up)  # goods no active island buys play no part
        shared = market.cache.get(key)
        if shared is None:
            goods = tuple(map(mul, face_up[:_GOODS_END], market.mask))
            sales = sale_declarations(goods, market.named, self._c.withholding)
            shared = market.cache.put(key, (sales, [None] * 4))
        sells = shared[1][p]
        if sells is None:
            sells = shared[1][p] = tuple(Sell(p, sales) for sales in shared[0])
        return sells

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
        self._fire(legal[index])

    def apply_at(self, index: int) -> Action:
        """Apply the ``index``-th of :meth:`legal_actions` (no search for it); returns it.

        Raises :class:`~meuterer.errors.IllegalActionError` for an index out of range."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._list_legal()
        if index < 0:
            raise _out_of_range(index, legal)
        try:
            action = legal[index]
        except IndexError:  # (past the end: no length to compare with first)
            raise _out_of_range(index, legal) from None
        self._fire(action)
        return action

    def apply_chance(self, rng: random.Random) -> Action:
        """Draw a chance outcome as :meth:`sample_chance` does, apply it, and return it."""
        if self.step == RING:
            action = sample_ring(self, rng)
            self._fire(action)
            return action
        draw = sample_draw(self, rng)
        self._legal = None
        self._draw(draw.card)  # type: ignore[union-attr]  # sample_draw gives a Draw
        return draw

    def play_random(self, chance: random.Random, rngs: Sequence[random.Random | None]) -> None:
        """Play on until a seat without a generator is to decide or the game is over:
        chance as :meth:`apply_chance` draws it from ``chance``, and each seat ``s`` with a
        generator ``rngs[s]`` takes the ``rngs[s].randrange(len(legal))``-th of its legal
        actions (as :class:`~meuterer.agents.RandomAgent` chooses). The same draws, in the
        same order, as that loop written with :meth:`apply_chance` and :meth:`apply_at`,
        one call instead of one per move (the Gymnasium env's opponents).

        >>> game, rng = FastGame.new(3), random.Random(2)
        >>> game.play_random(random.Random(1), [None, rng, rng])
        >>> game.current_player, len(game.legal_actions())
        (0, 4)
        """
        while True:
            step = self.step
            if step == PLAY:  # the commonest decision (without _list_legal's and _fire's dispatch)
                p = self.to_act
                rng = rngs[p]
                if rng is None:
                    return
                legal = self._legal
                if legal is None:
                    legal = plays(p, tuple(self.hands[p]))
                else:
                    self._legal = None  # (as _fire clears it)
            elif step in _DRAWING:  # a drawing player's draws in one run (sample_draw's cards, no actions)
                self._legal = None
                self._draw_run(chance)
                continue
            elif step == GAME_OVER:
                return
            elif step == RING:
                self._fire(sample_ring(self, chance))
                continue
            else:
                p = self.to_act
                rng = rngs[p]
                if rng is None:
                    return
                legal = self._legal
                if legal is None:  # (the next two commonest decisions without _list_legal's dispatch)
                    if step == CHOOSE_ROLE:
                        legal = roles_left(p, self.roles)
                    elif step == SELL:
                        legal = self._sell_options()
                    else:
                        legal = self._list_legal()
                else:
                    self._legal = None
            n = len(legal)
            if type(rng) is _PLAIN:  # rng.randrange(n): _randbelow_with_getrandbits, inlined (see _PLAIN)
                k = n.bit_length()
                index = rng.getrandbits(k)
                while index >= n:
                    index = rng.getrandbits(k)
            else:
                index = _choose(rng, n)
            action: Any = legal[index]
            if step == PLAY:
                if type(action) is Play:
                    self._play(action.card)
                else:
                    self._pass()
            elif step == CHOOSE_ROLE:  # (and without _fire's)
                self._take_role(action.role)
            elif step == SELL:
                self._sell(action.sales)
            else:
                self._fire(action)

    def _why_illegal(self, action: object) -> str:
        if self.step == GAME_OVER:
            return "the game is over"
        who = "chance" if self.is_chance_node() else f"p{self.to_act}"
        return f"it is not among the {len(self.legal_actions())} legal action(s) at step {_STEPS[self.step]} ({who})"

    def sample_chance(self, rng: random.Random) -> Action:
        """A chance outcome drawn with its probability, using ``rng`` exactly as
        :func:`meuterer.sample_chance` does (the same outcome for the same generator)."""
        return sample_ring(self, rng) if self.step == RING else sample_draw(self, rng)

    def _fire(self, action: Any) -> None:
        """Apply a listed action."""
        self._legal = None
        step = self.step
        if step == PLAY:  # the commonest decision first
            if type(action) is Play:
                self._play(action.card)
            else:
                self._pass()
        elif step == CHOOSE_ROLE:
            self._take_role(action.role)
        elif step == SELL:
            self._sell(action.sales)
        elif step == MUTINY:
            self._support(action.count)
        elif step in _DRAWING:  # (play_random and apply_chance draw without it)
            self._draw(action.card)
        elif step == OFFER:
            self._update(make_offer(self, action))
            self.step = PLAY
        elif step == LOADMASTER_DISCARD:
            self._discard(counts_of(action.cards))
        elif step == RING:
            self._update(arrange_ring(self, action))
            self.step = DEAL
        else:
            raise AssertionError("unreachable: no action at an automatic step or at the end")

    # The loop, step by step (as meuterer.machine declares it), calling the rules ---------

    def _draw(self, card: int) -> None:
        self.deck, self.discard = draw_from(self.deck, self.discard, card, self.rules)
        p = self.to_act
        self.hands[p][card] += 1
        self.sizes[p] += 1
        self.drawn[card] += 1
        left = self.draws_left
        self.draws_left = left - 1
        if left == 1:
            self._drawn_all()

    def _draw_run(self, chance: random.Random) -> None:
        """The drawing player's remaining draws, each card as :func:`sample_card` draws it
        from ``chance`` (:meth:`_draw` over and over, without the dispatch per card)."""
        for _ in range(self.draws_left):
            self._draw(sample_card(self, chance))

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
        self.draws_left = cards_needed(self.rules, self.roles[seat], self.sizes[seat])

    def _discard(self, cards: Counts) -> None:
        p = self.to_act
        hand = self.hands[p]
        for c in _KINDS:
            hand[c] -= cards[c]
        self.sizes[p] -= sum(cards)
        self.discard = plus(self.discard, cards)
        last = not self.queue
        self._next_drawer()
        if last:
            self._roles_return()
        else:
            self.step = DRAW

    def _play(self, card: int) -> None:
        p = self.to_act
        hand = self.hands[p]
        hand[card] -= 1
        self.sizes[p] -= 1
        self.face_up[p][card] += 1
        self.face_up_total[card] += 1
        self.to_act = next_unpassed(self.players, self.passed, p)
        if card == _PIRATE:
            left = self.sizes[p]
            robbed = robbery(self, left)
            self.pirate = pirate_destination(self, left)
            if robbed:
                self.discard = discarded(self.discard, self.face_up)
                self.face_up = [[0] * 7 for _ in range(self.players)]
                self.face_up_total = [0] * 7

    def _pass(self) -> None:
        p = self.to_act
        hand = self.hands[p]
        last = sum(self.passed) == self.players - 1
        self.face_down[p] = hand
        self.hands[p] = [0] * 7
        sizes = self.sizes
        held = sizes[self.players + p] = sizes[p]  # the hand laid face down, as it replaces it
        sizes[p] = 0
        self.passed[p] = True
        if p == self.captain:
            self.captain_destination = destination(self, held)
            self.to_act = next_unpassed(self.players, self.passed, p)
            if last:
                self._reveal()
            # else: phase 2 goes on
        else:
            self.step = CHOOSE_ROLE

    def _take_role(self, role: Role) -> None:
        p = self.to_act
        roles = list(self.roles)
        roles[p] = role
        self.roles = tuple(roles)  # replaced, never changed in place
        self.role_order = (*self.role_order, p)
        self.to_act = next_unpassed(self.players, self.passed, p)
        if all(self.passed):
            self._reveal()
        else:
            self.step = PLAY

    def _reveal(self) -> None:
        if _MUTINEER not in self.roles:
            self._role_points()
            return
        self._update(reveal(self, None))
        self.step = MUTINY

    def _support(self, k: int) -> None:
        p = self.to_act
        self.face_down[p][_SUPPORT] -= k
        self.sizes[self.players + p] -= k
        self.face_up[p][_SUPPORT] += k
        self.face_up_total[_SUPPORT] += k
        if self.queue:
            self.to_act = self.queue.pop(0)
            self.step = MUTINY
            return
        self._update(resolve_mutiny(self, None))
        self._role_points()

    def _role_points(self) -> None:
        self._update(score_roles(self, None))
        self.step = SELL

    def _sell(self, sales: tuple[Sale, ...]) -> None:
        p = self.to_act
        self.sales[p] = sales
        if self.queue:
            self.to_act = self.queue.pop(0)
            return
        # Every player has declared: score each active island.
        for seat, points in enumerate(sale_points(self, self.sales)):
            self.scores[seat] += points
        if self.round >= self._c.rounds:
            self.step = GAME_OVER
            return
        self._sail()

    def _sail(self) -> None:
        self._update(sail(self, None))  # phase 6
        changes = clean_up(self, None)  # phase 7, and phase 8 set up
        self._update(changes)
        if "draws_left" in changes:  # someone draws (else nobody_draws holds)
            self.step = DRAW
        else:
            self._roles_return()

    def _roles_return(self) -> None:
        # Phase 9, then phase 10, taken over at once: next_round reads none of the fields
        # return_roles changes (its round, captain and seat count).
        changes = return_roles(self, None)
        changes.update(next_round(self, None))
        self._update(changes)
        self.step = OFFER


def _no_goods(face_up: Sequence[int]) -> tuple[()]:
    return ()


class _Market:
    """What sales on some active islands depend on: which kinds they buy (``mask``), the
    face-up counts of those kinds (``key``, the cache key), and the declarations for each
    such key, once listed."""

    __slots__ = ("cache", "key", "mask", "named")

    def __init__(self, islands: tuple[Island, ...]) -> None:
        self.named = tuple((island.name, island) for island in islands)
        self.mask = tuple(int(any(island.buys_card(card) for island in islands)) for card in CARDS)
        kinds = [k for k in _KINDS if self.mask[k]]
        self.key: Callable[[Sequence[int]], object] = itemgetter(*kinds) if kinds else _no_goods
        self.cache: Memo[object, _Declarations] = Memo(size=50_000)


class _Constants:
    """What a game reads from its rules, looked up once per rule set and player count."""

    __slots__ = (
        "declarations",
        "discard_from_hand",
        "extra",
        "islands",
        "rounds",
        "withholding",
    )

    def __init__(self, rules: Rules, players: int) -> None:
        self.islands = rules.islands
        self.extra = rules.loadmaster_extra
        self.rounds = rules.rounds_for(players)
        self.withholding = rules.withholding
        self.discard_from_hand = rules.discard_pool is DiscardPool.HAND
        self.declarations: dict[tuple[int, ...], _Market] = {}


_CONSTANTS: Memo[tuple[Rules, int], _Constants] = Memo(lambda key: _Constants(*key), size=256)
_LAST: list[Any] = [None, 0, None]


def _constants(rules: Rules, players: int) -> _Constants:
    last = _LAST
    if last[0] is rules and last[1] == players:
        known: _Constants = last[2]
        return known
    found = _CONSTANTS[rules, players]
    last[:] = [rules, players, found]
    return found


def random_game(
    seed: int | None = None, players: int = 4, first_captain: int = 0, rules: Rules | None = None
) -> tuple[tuple[Action, ...], State]:
    """Exactly :func:`meuterer.random_game` (same actions, same final state): uniform
    random legal choices and seeded chance draws, the generator used in the same way."""
    return FastGame.random_game(seed, players, first_captain, rules)
