"""The one error hierarchy of meuterer.

Every error the library raises on bad input is a :class:`MeutererError`, which is a
:class:`ValueError`, so ``except ValueError`` catches them all.

>>> import meuterer
>>> try:
...     meuterer.parse_action("p1 dance")
... except meuterer.MeutererError as error:
...     print(type(error).__name__, "-", error)
ActionParseError - 'p1 dance': unknown action kind 'dance'
"""

from __future__ import annotations


class MeutererError(ValueError):
    """Base class of every error raised by meuterer on bad input."""


class ActionParseError(MeutererError):
    """Text that is not an action in the canonical notation.

    Its :attr:`code` is ``"malformed"``, the refusal code of the engine protocol."""

    code = "malformed"


REFUSAL_CODES: dict[str, str] = {
    "malformed": "the text is not an action in the canonical notation",
    "game-over": "the game is over",
    "no-such-seat": "the action names a seat the game does not have",
    "not-an-arrangement": "a ring that is not an arrangement of the island table",
    "wrong-step": "the game does not take this kind of action now",
    "not-your-turn": "the right kind of action, for another seat than the one to act",
    "not-in-deck": "a draw of a card that is not in the pile drawn from",
    "out-of-range": "a number out of its range (an offer, a support count, a sale of 0 cards)",
    "not-in-hand": "a card played or discarded that the player does not hold",
    "role-taken": "a role another player has already chosen this round",
    "no-such-island": "a sale on an island the table does not have",
    "island-inactive": "a sale on an island that is not active this round",
    "not-bought": "a sale of a card the island does not buy",
    "bad-order": "sales or discarded cards out of canonical order (or repeated islands)",
    "not-face-up": "a sale of more cards than the player has face up",
    "must-sell": "sales that withhold goods the player must sell (without withholding)",
    "wrong-count": "a discard of another number of cards than the loadmaster's extra cards",
    "spectator": "a spectator takes no action",
    "chance-action": "a player sends a chance action (a draw or a ring), which only the dealer makes",
    "not-your-seat": "a player sends an action for another seat",
    "not-legal": "any other illegal action",
}
"""The stable refusal codes, each with what it means: :attr:`IllegalActionError.code` is
one of them (``docs/protocol.md`` says which applies when). The reasons' words may change;
the codes do not. The last three are the referee's (:func:`meuterer.referee.apply_as`)."""


class IllegalActionError(MeutererError):
    """An action that the rules do not allow in the given state.

    ``action`` is the rejected action and ``reason`` says, in plain words, why; ``code``
    is a stable :data:`REFUSAL_CODES` key for programs (``"not-your-turn"``, ...).
    The state the action was applied to is never changed.

    >>> IllegalActionError("p0 offer 9", "the offer is a number from 0 to 3, not 9", "out-of-range").code
    'out-of-range'
    """

    def __init__(self, action: object, reason: str, code: str = "not-legal") -> None:
        if code not in REFUSAL_CODES:
            raise ValueError(f"unknown refusal code {code!r}")
        super().__init__(f"illegal action {str(action)!r}: {reason}")
        self.action = action
        self.reason = reason
        self.code = code


class RulesError(MeutererError):
    """An invalid rule set or island table."""


class SetupError(MeutererError):
    """Invalid arguments for starting a game (player count, first captain)."""


class FormatError(MeutererError):
    """Malformed data: a state, record or rule set that cannot be read.

    ``path`` locates the problem in the input (``$.actions[12]``; ``$`` for the whole).
    """

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class HistoryError(MeutererError):
    """Nothing to undo or redo, or a step outside a game's history."""
