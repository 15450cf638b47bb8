"""Greedy rollouts on the fast engine without the reference state in between.

:func:`seat_view` is :func:`meuterer.views.view` of ``game.to_state()``, built straight
from a :class:`~meuterer.fast.FastGame`'s lists: a greedy rollout asks for one view per
move, and skipping the reference state makes each step cheaper (the same views, tested).
:func:`greedy_sell` is the greedy declaration computed from the engine's counts, without
a view, each distinct declaration scored once.
"""

from __future__ import annotations

from meuterer.cards import EMPTY, ROLES, Role
from meuterer.fast.engine import FastGame
from meuterer.state import Step
from meuterer.views import PlayerView
from meuterer.views.player_view import ROLES_SECRET

from .greedy import bought, points_on

_STEPS: tuple[Step, ...] = tuple(Step)
_SECRET = frozenset(i for i, step in enumerate(_STEPS) if step in ROLES_SECRET)
_CHOOSE_ROLE = _STEPS.index(Step.CHOOSE_ROLE)


def seat_view(game: FastGame, player: int) -> PlayerView:
    """What seat ``player`` knows of ``game``: ``view(game.to_state(), player)``."""
    step = game.step
    secret = step in _SECRET
    drawn_list = game.drawn
    drawn_count = sum(drawn_list)
    hand = tuple(game.hands[player])
    own_down = tuple(game.face_down[player])
    drawn = tuple(drawn_list) if game.to_act == player and drawn_count else EMPTY
    if secret:
        roles: tuple[Role | None, ...] = tuple(role if seat == player else None for seat, role in enumerate(game.roles))
    else:
        roles = tuple(game.roles)
    order = game.role_order
    seen: tuple[Role, ...] | None
    if player in order:
        gone = {game.roles[seat] for seat in order[: order.index(player)]}
        seen = tuple(role for role in ROLES if role not in gone)
    elif step == _CHOOSE_ROLE and game.to_act == player:
        gone = {game.roles[seat] for seat in order}
        seen = tuple(role for role in ROLES if role not in gone)
    else:
        seen = None
    face_up = tuple(map(tuple, game.face_up))
    unseen = list(game.rules.deck)
    for pile in (game.discard, hand, own_down, *face_up):
        for card, count in enumerate(pile):
            if count:
                unseen[card] -= count
    return PlayerView(
        player=player,
        players=game.players,
        rules=game.rules,
        step=_STEPS[step],
        round=game.round,
        captain=game.captain,
        to_act=game.to_act,
        queue=tuple(game.queue),
        offer=game.offer,
        ring=tuple(game.ring),
        start=game.start,
        active=tuple(game.active),
        pirate=game.pirate,
        face_up=face_up,
        passed=tuple(game.passed),
        role_order=tuple(order),
        captain_destination=game.captain_destination,
        mutineer_destination=game.mutineer_destination,
        mutiny=game.mutiny,
        sales=tuple(game.sales),
        scores=tuple(game.scores),
        discard=tuple(game.discard),
        draws_left=game.draws_left,
        hand_sizes=tuple(map(sum, game.hands)),
        face_down_sizes=tuple(map(sum, game.face_down)),
        deck_size=sum(game.deck),
        drawn_count=drawn_count,
        roles=roles,
        hand=hand,
        face_down=own_down,
        drawn=drawn,
        roles_seen=seen,
        unseen=tuple(unseen),
    )


def greedy_sell(game: FastGame) -> int:
    """The index, among ``game``'s legal declarations, of the one
    :meth:`GreedyAgent.sell <meuterer.agents.greedy.GreedyAgent.sell>` chooses on the
    seat's view, computed from the fast engine's counts (the same choice, tested)."""
    p = game.to_act
    options = game._sell_options()[1]
    islands = game.rules.islands
    ring = game.ring
    active = [islands[ring[pos]] for pos in game.active]
    declared = game._sale_counts
    face_up = game.face_up
    seats = range(game.players)
    rows = []
    for i, island in enumerate(active):
        kinds = bought(island)
        row = []
        for seat in seats:
            counts = declared[seat]
            if counts is not None:
                row.append(counts[i])
            else:
                up = face_up[seat]
                row.append(max((up[card] for card in kinds), default=0))
        rows.append(row)
    merchant = [role is Role.MERCHANT for role in game.roles]
    seen: dict[tuple[int, ...], tuple[int, int]] = {}
    best: tuple[int, int] = (-1, 0)
    choice = 0
    for index, sold in enumerate(options):
        key = seen.get(sold)
        if key is None:
            mine = others = 0
            for island, row, count in zip(active, rows, sold, strict=True):
                row = row[:]
                row[p] = count
                for seat in seats:
                    points = points_on(island, row[seat], row[:seat] + row[seat + 1 :], merchant[seat])
                    if seat == p:
                        mine += points
                    else:
                        others += points
            key = seen[sold] = (mine, -others)
        if key > best:
            best, choice = key, index
    return choice
