"""meuterer: the reference rules library for the card game Meuterer (Casasola Merkle, 2000).

>>> import meuterer
>>> actions, final = meuterer.random_game(seed=1, players=3)
>>> len(final.scores), meuterer.is_terminal(final)
(3, True)
"""

from meuterer._version import __version__
from meuterer.actions import (
    Action,
    ArrangeRing,
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
    FormatError,
    HistoryError,
    IllegalActionError,
    MeutererError,
    RulesError,
    SetupError,
)
from meuterer.game import Game
from meuterer.islands import ISLANDS, Island, load_islands
from meuterer.record import Finding, Record, Report, Result, read_record, verify, write_record
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.serialize import dumps_state, loads_state, state_digest
from meuterer.state import Phase, State, Step

__all__ = [
    "CHANCE",
    "ISLANDS",
    "Action",
    "ActionParseError",
    "ArrangeRing",
    "Card",
    "ChooseRole",
    "Discard",
    "DiscardPool",
    "Draw",
    "Finding",
    "FormatError",
    "Game",
    "HistoryError",
    "IllegalActionError",
    "Island",
    "MeutererError",
    "Offer",
    "Pass",
    "Phase",
    "Play",
    "Record",
    "Report",
    "Reshuffle",
    "Result",
    "Ring",
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
    "dumps_state",
    "is_chance_node",
    "is_terminal",
    "legal_actions",
    "load_islands",
    "loads_state",
    "new_game",
    "parse_action",
    "random_game",
    "read_record",
    "sample_chance",
    "scores",
    "state_digest",
    "verify",
    "winners",
    "write_record",
]
