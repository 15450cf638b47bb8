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
    """Text that is not an action in the canonical notation."""


class IllegalActionError(MeutererError):
    """An action that the rules do not allow in the given state.

    ``action`` is the rejected action and ``reason`` says, in plain words, why.
    The state the action was applied to is never changed.
    """

    def __init__(self, action: object, reason: str) -> None:
        super().__init__(f"illegal action {str(action)!r}: {reason}")
        self.action = action
        self.reason = reason


class ActionTypeError(MeutererError, TypeError):
    """An action built with a field of the wrong type: a bool or a float where a number
    goes (``Offer(0, True)``), text where a card goes. Both a :class:`MeutererError` and a
    :class:`TypeError`, so that no action is ever made that its own text cannot read back."""


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
