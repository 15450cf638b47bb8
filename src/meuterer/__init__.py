"""meuterer: the reference rules library for the card game Meuterer (Casasola Merkle, 2000).

>>> import meuterer
>>> actions, final = meuterer.random_game(seed=1, players=3)
>>> len(final.scores), meuterer.is_terminal(final)
(3, True)
"""

from meuterer.actions import (
    Action,
    ChooseRole,
    Discard,
    Draw,
    Offer,
    Pass,
    Play,
    Sale,
    Sell,
    Support,
    parse_action,
)
from meuterer.cards import Card, Role
from meuterer.engine import (
    CHANCE,
    apply,
    chance_outcomes,
    current_player,
    is_chance_node,
    is_terminal,
    legal_actions,
    new_game,
    random_game,
    sample_chance,
    scores,
    winners,
)
from meuterer.errors import (
    ActionParseError,
    IllegalActionError,
    MeutererError,
    RulesError,
    SetupError,
)
from meuterer.islands import ISLANDS, Island
from meuterer.rules import DiscardPool, Rules, SaleOrder
from meuterer.state import Phase, State, Step

__version__ = "0.1.0"

__all__ = [
    "CHANCE",
    "ISLANDS",
    "Action",
    "ActionParseError",
    "Card",
    "ChooseRole",
    "Discard",
    "DiscardPool",
    "Draw",
    "IllegalActionError",
    "Island",
    "MeutererError",
    "Offer",
    "Pass",
    "Phase",
    "Play",
    "Role",
    "Rules",
    "RulesError",
    "Sale",
    "SaleOrder",
    "Sell",
    "SetupError",
    "State",
    "Step",
    "Support",
    "__version__",
    "apply",
    "chance_outcomes",
    "current_player",
    "is_chance_node",
    "is_terminal",
    "legal_actions",
    "new_game",
    "parse_action",
    "random_game",
    "sample_chance",
    "scores",
    "winners",
]
