"""Why the greedy bot chose an action, in a line: :func:`explain` (what
:meth:`~meuterer.agents.greedy.GreedyAgent.explain` says)."""

from __future__ import annotations

from collections.abc import Sequence

from meuterer.actions import Action, ChooseRole, Discard, Offer, Pass, Play, Sell, Support
from meuterer.cards import Card, Role
from meuterer.rulings import destination, strengths
from meuterer.views import PlayerView

from .estimates import role_label, role_values


def explain(view: PlayerView, legal: Sequence[Action], action: Action) -> str:
    """Why the greedy bot chose ``action``, in a line (costs a second look at the options)."""
    if len(legal) == 1:
        return "the only legal move"
    if isinstance(action, Offer):
        return f"offers {action.amount}: the likelier a mutiny, the more it offers, so that a mate sides with it"
    if isinstance(action, Play | Pass):
        return _explain_play(view, legal, action)
    if isinstance(action, ChooseRole):
        values = role_values(view)
        listed = ", ".join(f"{role_label(r)} {v:.1f}" for r, v in sorted(values.items(), key=lambda i: -i[1]))
        text = f"expected VP: {listed}"
        if action.role is Role.MUTINEER:
            mine = destination(view, sum(view.face_down))
            text += f"; as mutineer it sails to {view.island_name(mine)}"
            if mine == view.captain_destination:
                text += (
                    ", the captain's destination too: a successful mutiny takes the captain's ship value "
                    "and the captain cards from him"
                )
        return text
    if isinstance(action, Support):
        captain_side, mutineer_side = strengths(view)
        return (
            f"sides so far: captain {captain_side}, mutineer {mutineer_side}; turning up {action.count} "
            "gives the best chance of winning for the price of the cards"
        )
    if isinstance(action, Sell):
        return "the declaration scoring the most for itself, then leaving the others the least"
    if isinstance(action, Discard):
        return "keeps the hand worth most next round (supports, goods the active islands buy)"
    return "the best estimated value"  # pragma: no cover - chance actions never reach an agent


def _explain_play(view: PlayerView, legal: Sequence[Action], action: Action) -> str:
    me = view.player
    assert me is not None
    if isinstance(action, Play) and action.card is Card.PIRATE:
        return "the pirates' robbery costs the others more than itself"
    size = sum(view.hand)
    if not isinstance(action, Play):
        where = view.island_name(view.start + size)
        return f"passes with {size} card(s), destination {where}: no card is worth more played than kept"
    islands = [view.island(pos) for pos in view.active]
    buyers = [island.name for island in islands if island.buys_card(action.card)]
    if buyers:
        return f"plays {action.card} toward a majority on {', '.join(buyers)}"
    return "plays a card it does not need, to shorten its hand toward a better destination"
