"""Between the batch and the reference: one game of a :class:`~meuterer.vector.batch.Batch`
as a reference :class:`~meuterer.state.State` and back, and the legal ids the reference
lists for a key the batch has not seen (:func:`ask_reference`: the combinatorial rules,
sale declarations and the loadmaster's discards, asked once per key).

>>> import meuterer
>>> from meuterer.vector.batch import Batch
>>> from meuterer.vector.convert import set_state, to_state
>>> games = Batch(2, 3)
>>> state = meuterer.apply(meuterer.new_game(3), meuterer.Draw(0, meuterer.Card.WINE))
>>> set_state(games, 1, state)
>>> to_state(games, 1) == state
True
"""

from __future__ import annotations

from typing import Any

from meuterer import engine
from meuterer.actions import Action, ArrangeRing, Draw, Sale
from meuterer.cards import Card, Role
from meuterer.state import State, Step
from meuterer.vector.arrays import NO, NUMBER, STEPS_BY_CODE, Choices, IntArray
from meuterer.vector.batch import Batch


def to_state(g: Batch, game: int) -> State:
    """The reference :class:`State` game ``game`` of the batch is in."""
    i = game
    n = g.players
    rules = g.rules
    ring = tuple(int(x) for x in g.ring[i])
    active = tuple(int(x) for x in g.active[i] if x >= 0)

    def opt(x: Any) -> int | None:
        return None if x < 0 else int(x)

    def counts(a: Any) -> tuple[int, ...]:
        return tuple(a.tolist())

    sales: list[tuple[Sale, ...] | None] = []
    for seat in range(n):
        slots = g.sales[i, seat]
        if slots[0] < 0:
            sales.append(None)
            continue
        sold = []
        for slot, pos in zip(slots.tolist(), g.sale_islands[i, seat].tolist(), strict=True):
            if slot:
                name = rules.islands[ring[pos]].name
                sold.append(Sale(name, Card(int(g.slot_good[slot])), int(g.slot_count[slot])))
        sales.append(tuple(sold))
    mutiny = int(g.mutiny[i])
    fields: dict[str, Any] = {
        "players": n,
        "rules": rules,
        "step": STEPS_BY_CODE[int(g.step_[i])],
        "round": int(g.round[i]),
        "captain": int(g.captain[i]),
        "to_act": int(g.to_act[i]),
        "queue": tuple(int(x) for x in g.queue[i, : g.queue_len[i]]),
        "offer": opt(g.offer[i]),
        "ring": ring,
        "start": int(g.start[i]),
        "active": active,
        "pirate": opt(g.pirate[i]),
        "hands": tuple(map(tuple, g.hands[i].tolist())),
        "face_up": tuple(map(tuple, g.face_up[i].tolist())),
        "face_down": tuple(map(tuple, g.face_down[i].tolist())),
        "passed": tuple(g.passed[i].tolist()),
        "roles": tuple(None if r < 0 else Role(int(r)) for r in g.roles[i]),
        "role_order": tuple(int(x) for x in g.role_order[i, : g.role_order_len[i]]),
        "captain_destination": opt(g.captain_destination[i]),
        "mutineer_destination": opt(g.mutineer_destination[i]),
        "mutiny": None if mutiny < 0 else bool(mutiny),
        "sales": tuple(sales),
        "scores": counts(g.scores[i]),
        "deck": counts(g.deck[i]),
        "discard": counts(g.discard[i]),
        "draws_left": int(g.draws_left[i]),
        "drawn": counts(g.drawn[i]),
    }
    return State(**fields)


def set_state(g: Batch, game: int, state: State) -> None:
    """Put game ``game`` in reference state ``state`` (same players and rules); its history
    starts afresh."""
    if not isinstance(state, State):
        raise TypeError(f"state must be a meuterer.State, got {type(state).__name__}")
    if state.players != g.players or state.rules != g.rules:
        raise ValueError("the state's players and rules must be the batch's")
    i = game
    g._version += 1

    def opt(x: int | bool | None) -> int:
        return NO if x is None else int(x)

    g.step_[i] = NUMBER[state.step]
    g.round[i] = state.round
    g.captain[i] = state.captain
    g.to_act[i] = state.to_act
    g.queue[i] = 0
    g.queue[i, : len(state.queue)] = state.queue
    g.queue_len[i] = len(state.queue)
    g.offer[i] = opt(state.offer)
    g.ring[i] = state.ring
    g.start[i] = state.start
    g.active[i] = (*state.active, NO)[:2]
    g.pirate[i] = opt(state.pirate)
    g.hands[i] = state.hands
    g.face_up[i] = state.face_up
    g.face_down[i] = state.face_down
    g.passed[i] = state.passed
    g.roles[i] = [opt(r) for r in state.roles]
    g.role_order[i] = 0
    g.role_order[i, : len(state.role_order)] = state.role_order
    g.role_order_len[i] = len(state.role_order)
    g.captain_destination[i] = opt(state.captain_destination)
    g.mutineer_destination[i] = opt(state.mutineer_destination)
    g.mutiny[i] = opt(state.mutiny)
    names = [state.island_name(pos) for pos in state.active]
    for seat, sales in enumerate(state.sales):
        g.sales[i, seat] = NO
        g.sale_islands[i, seat] = NO
        if sales is not None:
            g.sales[i, seat] = 0
            for k, sale in enumerate(sales):
                # the slot of its active island (before the ship sails), else its place
                slot = names.index(sale.island) if state.step is Step.SELL else k
                g.sales[i, seat, slot] = 1 + int(sale.card) * g.hand_size + sale.count - 1
                g.sale_islands[i, seat, slot] = NO if (at := state.position_of(sale.island)) is None else at
    g.scores[i] = state.scores
    g.deck[i] = state.deck
    g.discard[i] = state.discard
    g.draws_left[i] = state.draws_left
    g.drawn[i] = state.drawn
    g._history.pop(range(g.batch)[i], None)


def ask_reference(g: Batch, key: IntArray, idx: IntArray, choices: Choices) -> IntArray:
    """The rows of ``choices`` (legal ids by key) of the games ``idx`` with keys ``key``:
    keys seen before are looked up; for a new key the reference lists the legal ids of one
    game with that key (:meth:`meuterer.encoding.ActionIds.legal_ids`), once per key."""
    return choices.rows_of(key, lambda i: g.ids.legal_ids(to_state(g, int(idx[i]))))


def history(g: Batch, game: int) -> tuple[Action, ...]:
    """The actions game ``game`` has taken since its start (when recorded)."""
    replay = engine.new_game(g.players, g.first_captain, g.rules)
    out: list[Action] = []
    for code in g._history.get(range(g.batch)[game], []):
        action = action_of(g, replay, code)
        out.append(action)
        replay = engine.apply(replay, action)
    return tuple(out)


def code_of(g: Batch, game: int, action: Action) -> int:
    """The id a batch takes for ``action`` in game ``game`` (``ValueError`` if none)."""
    state = to_state(g, game)
    if isinstance(action, ArrangeRing):
        return g.arrangements.index(action)
    if isinstance(action, Draw):
        return int(action.card)
    return g.ids.action_id(state, action)


def action_of(g: Batch, state: State, code: int) -> Action:
    """The action of id (or chance outcome) ``code`` in ``state``."""
    if state.step is Step.RING:
        return g.arrangements[code]
    if state.step in (Step.DEAL, Step.DRAW):
        return Draw(state.to_act, Card(code))
    return g.ids.action(state, code)
