"""Integer ids for actions, shared by the OpenSpiel and PettingZoo adapters.

Reinforcement-learning frameworks number the actions. :class:`ActionIds` gives every
decision of a rule set one fixed id, whatever the state, and every draw a chance
outcome id. Decision ids do not name the player: the player to act is the state's.

The decision ids come in blocks, in this order (sizes for ``Rules()``, 784 in all):

=========  ===========================  ==================================================
block      size                         id within the block
=========  ===========================  ==================================================
offer      ``max_offer + 1`` (4)        the amount offered
play       7                            the card (ruby, salt, wine, cloth, grain, support,
                                        pirate)
pass       1                            0
role       5                            the role (mutineer, cabin boy, mate, merchant,
                                        loadmaster)
support    ``deck[support] + 1`` (7)    the number of support cards added
sell       ``K * K`` (676)              ``k0 * K + k1``: one slot per active island,
                                        ``k0`` for the one at the lower ring position
discard    multisets of                 the rank of the cards (canonical order) among all
           ``loadmaster_extra`` (84)    such multisets, in lexicographic order
=========  ===========================  ==================================================

A sale slot ``k`` is 0 when nothing is sold on that island, else
``1 + good * hand_size + count - 1`` for ``count`` cards of ``good`` (ruby 0 to grain 4),
so ``K = 1 + 5 * hand_size`` (26). There are at most two active islands; with only one,
its slot is the first.

Chance outcomes: a draw is the card drawn (0 to 6); the drawing player is the state's.

>>> import meuterer
>>> from meuterer.encoding import action_ids
>>> ids = action_ids(meuterer.Rules())
>>> ids.num_actions, ids.template(ids.sell.start + 1 * 26 + 0), ids.template(ids.discard.stop - 1)
(784, 'sell ruby:1|-', 'discard pirate pirate pirate')
>>> actions, _ = meuterer.random_game(seed=1, players=3)
>>> s = meuterer.Game.replay(actions[:15], players=3).state  # after the deal
>>> [str(ids.action(s, i)) for i in ids.legal_ids(s)]
['p0 offer 0', 'p0 offer 1', 'p0 offer 2', 'p0 offer 3']
>>> ids.action_id(s, meuterer.parse_action("p0 offer 2"))
2
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Final, Protocol

from meuterer import engine
from meuterer.actions import Action, ChooseRole, Discard, Draw, Offer, Pass, Play, Sale, Sell, Support
from meuterer.cards import CARDS, GOODS, ROLES, Card, Role
from meuterer.phases.scoring import leaders, relative_utilities, win_shares
from meuterer.rules import Rules
from meuterer.state import State

NUM_DRAWS: Final = len(CARDS)
"""Chance outcome ids of draws: the card, 0 to 6."""

_SLOTS = 2
"""Sale slots: one per active island (at most two)."""


def as_action_id(value: object) -> int:
    """``value`` as an action id: an ``int``, or an integer that is not one, such as a
    NumPy integer or a one-entry integer array (vectorised wrappers pass these). Anything
    else, a float, text, a bool or ``None``, is a :class:`TypeError`, never truncated.
    Whether the id is in range and legal is the caller's to check.

    >>> as_action_id(3)
    3
    >>> as_action_id(1.7)
    Traceback (most recent call last):
    ...
    TypeError: an action id is an int, got float 1.7
    """
    if isinstance(value, bool) or type(value).__name__ in ("bool", "bool_"):
        raise TypeError(f"an action id is an int, got {type(value).__name__} {value!r}")
    if getattr(value, "shape", None) == (1,):
        value = value[0]  # type: ignore[index]
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"an action id is an int, got {type(value).__name__} {repr(value)[:60]}") from None


class Table(Protocol):
    """What the numbering reads of a game: who acts, the ring and its active islands
    (a :class:`~meuterer.state.State`, or a player's view)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def to_act(self) -> int: ...
    @property
    def ring(self) -> Sequence[int]: ...
    @property
    def active(self) -> Sequence[int]: ...


def _active_names(table: Table) -> list[str]:
    islands, ring = table.rules.islands, table.ring
    names = []  # (a plain loop: cheaper than a comprehension for one or two islands)
    for position in table.active:
        names.append(islands[ring[position]].name)
    return names


def _blocks(*sizes: int) -> list[range]:
    starts = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
    return [range(starts[k], starts[k + 1]) for k in range(len(sizes))]


class ActionIds:
    """The fixed integer ids of the decisions of games played under ``rules``.

    Build one with :func:`action_ids` (cached per rule set).
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.hand_size = rules.hand_size
        self.slot_size = 1 + len(GOODS) * rules.hand_size
        """``K``: the values of one sale slot (nothing, or a good and a count)."""
        self.discards: tuple[tuple[Card, ...], ...] = tuple(
            combinations_with_replacement(CARDS, rules.loadmaster_extra)
        )
        """Every discard (cards in canonical order), in id order."""
        self._discard_rank = {cards: rank for rank, cards in enumerate(self.discards)}
        self._weights = tuple(self.slot_size ** (_SLOTS - 1 - at) for at in range(_SLOTS))
        """What a sale slot's value counts for in the sale's index (``K`` for the first, 1 for the second)."""
        blocks = _blocks(
            rules.max_offer + 1,
            len(CARDS),
            1,
            len(ROLES),
            rules.deck[Card.SUPPORT] + 1,
            self.slot_size**_SLOTS,
            len(self.discards),
        )
        self.offer = blocks[0]
        """The ids of offers (each block is a ``range``)."""
        self.play = blocks[1]
        self.pass_ = blocks[2]
        self.role = blocks[3]
        self.support = blocks[4]
        self.sell = blocks[5]
        self.discard = blocks[6]
        self.num_actions: int = blocks[-1].stop
        """How many decision ids there are."""

    # Decisions --------------------------------------------------------------------------

    def action_id(self, state: Table, action: Action) -> int:
        """The id of decision ``action`` in ``state`` (sales are numbered by the active islands).

        Raises ``ValueError`` for a draw or ring arrangement (chance) or an action
        outside the numbering (an offer above ``max_offer``, a sale slot used twice, ...).
        """
        if isinstance(action, Offer) and 0 <= action.amount < len(self.offer):
            return self.offer[action.amount]
        if isinstance(action, Play):
            return self.play[action.card]
        if isinstance(action, Pass):
            return self.pass_[0]
        if isinstance(action, ChooseRole):
            return self.role[action.role]
        if isinstance(action, Support) and 0 <= action.count < len(self.support):
            return self.support[action.count]
        if isinstance(action, Sell):
            return self.sell[self._sell_index(_active_names(state), action)]
        if isinstance(action, Discard) and action.cards in self._discard_rank:
            return self.discard[self._discard_rank[action.cards]]
        raise ValueError(f"no action id for {str(action)!r}")

    def sell_ids(self, state: Table, sells: Iterable[Sell]) -> list[int]:
        """The ids of ``sells`` in ``state``, in their order: each one's :meth:`action_id`,
        with the active islands read once for all.

        >>> import meuterer
        >>> from meuterer.actions import Sale
        >>> ids = action_ids(meuterer.Rules())
        >>> s = meuterer.Game.new(3).state
        >>> names = [s.rules.islands[s.ring[p]].name for p in s.active]
        >>> sells = [Sell(0, ()), Sell(1, (Sale(names[0], Card.RUBY, 1),))]
        >>> ids.sell_ids(s, sells) == [ids.action_id(s, sell) for sell in sells]
        True
        """
        names, start = _active_names(state), self.sell.start
        numbers = []  # (a plain loop, adding to the block's start: cheaper than a comprehension indexing the range)
        for action in sells:
            numbers.append(start + self._sell_index(names, action))
        return numbers

    def discard_ids(self, discards: Sequence[Discard]) -> list[int]:
        """The ids of ``discards``, in their order: each one's :meth:`action_id` (a
        discard's id depends on its cards only, not on the state).

        >>> import meuterer
        >>> ids = action_ids(meuterer.Rules())
        >>> ids.discard_ids([Discard(0, (Card.RUBY,) * 3), Discard(2, (Card.PIRATE,) * 3)])
        [700, 783]
        """
        rank, start = self._discard_rank, self.discard.start
        numbers = []  # (a plain loop, adding to the block's start: cheaper than a comprehension indexing the range)
        try:
            for action in discards:
                numbers.append(start + rank[action.cards])
        except KeyError:
            wrong = next(action for action in discards if action.cards not in rank)
            raise ValueError(f"no action id for {str(wrong)!r}") from None
        return numbers

    def _sell_index(self, names: list[str], action: Sell) -> int:
        # The place of a sale in the sell block, given the names of the active islands:
        # the sum of each slot's value times its weight (bit ``at`` of ``used`` once slot
        # ``at`` has its sale).
        index = used = 0
        hand = self.hand_size
        for sale in action.sales:
            island, card, count = sale.island, sale.card, sale.count
            at = names.index(island) if island in names else -1
            if at < 0 or used >> at & 1:
                raise ValueError(f"no action id for {str(action)!r}: one sale per active island")
            if card not in GOODS or not 1 <= count <= hand:
                raise ValueError(f"no action id for {str(action)!r}: 1 to {hand} goods per island")
            used |= 1 << at
            index += (1 + card * hand + count - 1) * self._weights[at]
        return index

    def action(self, state: Table, action_id: int, player: int | None = None) -> Action:
        """The decision with id ``action_id`` for ``player`` (default: the player to act) in ``state``.

        Raises ``ValueError`` for an id out of range, or a sale on a second active
        island when there is only one. The action need not be legal.
        """
        p = state.to_act if player is None else player
        a = int(action_id)
        if a in self.offer:
            return Offer(p, a - self.offer.start)
        if a in self.play:
            return Play(p, Card(a - self.play.start))
        if a in self.pass_:
            return Pass(p)
        if a in self.role:
            return ChooseRole(p, Role(a - self.role.start))
        if a in self.support:
            return Support(p, a - self.support.start)
        if a in self.sell:
            sales = []
            names = _active_names(state)
            for slot, value in enumerate(self._slots(a - self.sell.start)):
                if value is None:
                    continue
                if slot >= len(names):
                    raise ValueError(f"action id {a} sells on a second active island, and there is one")
                sales.append(Sale(names[slot], value[0], value[1]))
            return Sell(p, tuple(sales))
        if a in self.discard:
            return Discard(p, self.discards[a - self.discard.start])
        raise ValueError(f"action id {a} is not one of 0 to {self.num_actions - 1}")

    def _slots(self, index: int) -> list[tuple[Card, int] | None]:
        # Each slot's (good, count), or None when nothing is sold there; the first slot first.
        values: list[tuple[Card, int] | None] = []
        for _ in range(_SLOTS):
            index, slot = divmod(index, self.slot_size)
            good, count = divmod(slot - 1, self.hand_size)
            values.insert(0, None if slot == 0 else (Card(good), count + 1))
        return values

    def legal_ids(self, state: State) -> tuple[int, ...]:
        """The ids of the legal decisions in ``state``, ascending; ``()`` at a chance node or the end."""
        if engine.current_player(state) in (None, engine.CHANCE):
            return ()
        return tuple(sorted(self.action_id(state, action) for action in engine.legal_actions(state)))

    def template(self, action_id: int) -> str:
        """A state-free name of an id: the action without its player, sales by slot
        (``sell grain:2|-``: two grain on the first active island, nothing on the second)."""
        a = int(action_id)
        if a in self.offer:
            return f"offer {a - self.offer.start}"
        if a in self.play:
            return f"play {Card(a - self.play.start)}"
        if a in self.pass_:
            return "pass"
        if a in self.role:
            return f"role {Role(a - self.role.start)}"
        if a in self.support:
            return f"support {a - self.support.start}"
        if a in self.sell:
            slots = self._slots(a - self.sell.start)
            return "sell " + "|".join("-" if v is None else f"{v[0]}:{v[1]}" for v in slots)
        if a in self.discard:
            return "discard " + (" ".join(map(str, self.discards[a - self.discard.start])) or "none")
        raise ValueError(f"action id {a} is not one of 0 to {self.num_actions - 1}")

    # Chance -----------------------------------------------------------------------------

    @staticmethod
    def draw_id(action: Draw) -> int:
        """The chance outcome id of a draw: the card."""
        return int(action.card)

    @staticmethod
    def draw(state: State, outcome: int) -> Draw:
        """The draw with chance outcome id ``outcome`` by the player drawing in ``state``."""
        if not 0 <= outcome < NUM_DRAWS:
            raise ValueError(f"chance outcome {outcome} is not a card (0 to {NUM_DRAWS - 1})")
        return Draw(state.to_act, Card(outcome))


@lru_cache(maxsize=32)
def action_ids(rules: Rules) -> ActionIds:
    """The :class:`ActionIds` of ``rules`` (cached)."""
    return ActionIds(rules)


def score_bounds(players: int, rules: Rules) -> tuple[int, int]:
    """Bounds on any seat's victory points during a game of ``players`` seats under ``rules``.

    A round gives one seat at most the best of his role points (a destination's ship
    value, the mate's ``1 + max_offer``, the cabin boy's points) plus the best sale value
    on each of the two active islands; it takes at most ``max_offer`` (the captain pays
    the mate).

    >>> score_bounds(4, Rules())
    (-24, 136)
    """
    rounds = rules.rounds_for(players)
    role = max(max(island.ship for island in rules.islands), 1 + rules.max_offer, rules.cabin_boy_points)
    sale = max(max(island.values) for island in rules.islands)
    low, high = -rounds * rules.max_offer, rounds * (role + _SLOTS * sale)
    return low, max(high, low + 1)


UTILITIES: Final[Mapping[str, str]] = {
    "score": "the victory points (general sum)",
    "relative": "the victory points minus the mean of the others' (zero sum)",
    "win": "1 shared equally among the players with the most points, at the end (constant sum)",
}
"""What an adapter may return as a player's utility, and what each is for."""


def utilities(state: State, utility: str) -> tuple[float, ...]:
    """Each seat's utility in ``state`` (see :data:`UTILITIES`; ``win`` is 0 before the end).

    >>> import meuterer
    >>> actions, final = meuterer.random_game(seed=3, players=3)
    >>> final.scores, utilities(final, "relative"), utilities(final, "win")
    ((24, 25, 27), (-2.0, -0.5, 2.5), (0.0, 0.0, 1.0))
    """
    return score_utilities(state.scores, engine.is_terminal(state), utility)


def score_utilities(scores: Sequence[int], over: bool, utility: str) -> tuple[float, ...]:
    """:func:`utilities` of a game whose seats have ``scores``, over or not (all a utility reads).

    >>> score_utilities((24, 25, 27), True, "win"), score_utilities((24, 25, 27), False, "win")
    ((0.0, 0.0, 1.0), (0.0, 0.0, 0.0))
    """
    if utility == "score":
        return tuple(map(float, scores))
    if utility == "relative":
        total = sum(scores)
        return tuple(float(relative_utilities(score, total, len(scores))) for score in scores)
    if utility != "win":
        raise ValueError(f"utility must be one of {', '.join(UTILITIES)}, got {utility!r}")
    if not over:
        return (0.0,) * len(scores)
    winners = leaders(scores)
    return tuple(float(win_shares(p in winners, len(winners))) for p in range(len(scores)))


def utility_bounds(players: int, rules: Rules, utility: str) -> tuple[float, float]:
    """The least and greatest utility of a seat (:data:`UTILITIES`).

    >>> utility_bounds(4, Rules(), "relative"), utility_bounds(4, Rules(), "win")
    ((-160.0, 160.0), (0.0, 1.0))
    """
    low, high = score_bounds(players, rules)
    if utility == "relative":
        return float(low - high), float(high - low)
    if utility == "win":
        return 0.0, 1.0
    return float(low), float(high)
