"""pyspiel's Python observer of a Meuterer game: a player's (or the public) observation as a
tensor, a dict of named slices and text, with perfect recall optionally. The game and state
are typed ``Any``: they are :class:`meuterer.openspiel.MeutererGame` and
:class:`meuterer.openspiel.MeutererState`, which import this module."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from meuterer.views import (
    PRIVATE_PIECES,
    PlayerView,
    observation_text,
    private_text,
    view,
)


class _Observer:
    """A pyspiel Python observer (``tensor``, ``dict``, ``set_from``, ``string_from``)."""

    def __init__(self, game: Any, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {dict(params)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("observations include the public information and at most one player's own")
        self._public = bool(iig_obs_type.public_info)
        self._private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._recall = bool(iig_obs_type.perfect_recall)
        layout = game.observation_layout
        if not self._public:
            layout = layout.subset(PRIVATE_PIECES if self._private else ())
        self._layout = layout
        self._history = game.history_layout if self._recall and self._public else None
        self._kind = (self._public, self._private, self._recall)
        size = layout.size + (self._history.size if self._history else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {name: self.tensor[part] for name, part in layout.slices.items()}
        if self._history:
            offset = layout.size
            for name, part in self._history.slices.items():
                self.dict[name] = self.tensor[offset + part.start : offset + part.stop]

    def _view(self, state: Any, player: int) -> PlayerView:
        return view(state.meuterer_state, player if self._private else None)

    def set_from(self, state: Any, player: int) -> None:
        """Write what ``player`` observes into :attr:`tensor` (remembered per state and player)."""
        memo = state._node.memo
        key = ("tensor", self._kind, player if self._private else None)
        values: np.ndarray | None = memo.get(key)
        if values is None:
            values = np.empty(len(self.tensor), np.float32)
            size = self._layout.size
            if size:
                values[:size] = self._layout.vector(self._view(state, player))
            if self._history:
                rounds = memo.get("rounds tensor")
                if rounds is None:  # public: the same for every player
                    rounds = memo["rounds tensor"] = np.array(self._history.vector(state.public_rounds()), np.float32)
                values[size:] = rounds
            memo[key] = values
        self.tensor[:] = values

    def string_from(self, state: Any, player: int) -> str:
        """What ``player`` observes as text; with perfect recall, followed by his record."""
        v = self._view(state, player)
        text = observation_text(v) if self._public else private_text(v)
        if not self._recall:
            return text
        lines = state.record(player if self._private else None)
        if not self._public:  # only what he saw differently from a spectator
            lines = tuple(mine for mine, public in zip(lines, state.record(None), strict=True) if mine != public)
        return text + f"history ({len(lines)} actions):\n" + "".join(line + "\n" for line in lines)
