"""meuterer: the reference rules library for the card game Meuterer (Casasola Merkle, 2000).

>>> import meuterer
>>> actions, final = meuterer.random_game(seed=1, players=3)
>>> len(final.scores), meuterer.is_terminal(final)
(3, True)
"""

from meuterer import svg as _svg  # noqa: F401 - gives State and PlayerView their _repr_svg_
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
    REFUSAL_CODES,
    ActionParseError,
    ActionTypeError,
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
from meuterer.redact import (
    HiddenDraw,
    HiddenRole,
    RedactedRecord,
    Seen,
    dumps_redacted,
    loads_redacted,
    redact,
    replay_views,
)
from meuterer.rules import DiscardPool, Reshuffle, Ring, Rules, SaleOrder
from meuterer.serialize import dumps_state, loads_state, state_digest
from meuterer.state import Phase, State, Step
from meuterer.views import PlayerView, ViewError, dumps_view, loads_view, observation_names, sample_state, view

__all__ = [
    "CHANCE",
    "ISLANDS",
    "REFUSAL_CODES",
    "Action",
    "ActionParseError",
    "ActionTypeError",
    "ArrangeRing",
    "Card",
    "ChooseRole",
    "Discard",
    "DiscardPool",
    "Draw",
    "Finding",
    "FormatError",
    "Game",
    "HiddenDraw",
    "HiddenRole",
    "HistoryError",
    "IllegalActionError",
    "Island",
    "MeutererError",
    "Offer",
    "Pass",
    "Phase",
    "Play",
    "PlayerView",
    "Record",
    "RedactedRecord",
    "Report",
    "Reshuffle",
    "Result",
    "Ring",
    "Role",
    "Rules",
    "RulesError",
    "Sale",
    "SaleOrder",
    "Seen",
    "Sell",
    "SetupError",
    "State",
    "Step",
    "Support",
    "ViewError",
    "__version__",
    "apply",
    "chance_outcomes",
    "current_player",
    "dumps_redacted",
    "dumps_state",
    "dumps_view",
    "is_chance_node",
    "is_terminal",
    "legal_actions",
    "load_islands",
    "loads_redacted",
    "loads_state",
    "loads_view",
    "new_game",
    "observation_names",
    "parse_action",
    "random_game",
    "read_record",
    "redact",
    "replay_views",
    "sample_chance",
    "sample_state",
    "scores",
    "state_digest",
    "verify",
    "view",
    "winners",
    "write_record",
]
