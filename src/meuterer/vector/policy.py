"""The learned policy over a batch: :class:`BatchPolicyAgent` chooses in every game of a
:class:`~meuterer.vector.VectorGame` the action
:class:`~meuterer.agents.policy.PolicyAgent` takes there (what
``MeutererVectorEnv(opponents="policy")`` plays).

The agent takes a decision's only legal action as it is, and otherwise scores its view's
encoded observation with its network and takes the legal action scored highest. Over a
batch the observations are the batch's own
(:func:`~meuterer.vector.observation.observations`, encoded by
:class:`~meuterer.vector.observation.Encoder`: the same numbers as the view's), run through
the same network's hidden layers in one product, and each decision's ids are scored by the
output layer's columns of its block of ids only (the plays of a play, the roles of a role);
the legal mask picks the best legal id (of equal scores, which the network does not give
in practice, the lowest id).

>>> import numpy as np
>>> from meuterer.vector import VectorGame
>>> games = VectorGame(batch=4, players=4, seed=3)
>>> games.advance_chance()
>>> chosen = BatchPolicyAgent(4)(games, np.arange(4))
>>> games.step(chosen)                     # every captain's offer, as PolicyAgent makes it
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from meuterer.agents.policy import PolicyAgent, PolicyNet
from meuterer.machine import STEP_CODES
from meuterer.rules import Rules
from meuterer.state import Step
from meuterer.vector.arrays import Groups, IntArray
from meuterer.vector.choice import mask_rows
from meuterer.vector.observation import Encoder, observations

__all__ = ["BatchPolicyAgent"]


class BatchPolicyAgent:
    """:class:`~meuterer.agents.policy.PolicyAgent`'s choices over a batch of ``players``
    seats under ``rules`` (the rulebook's by default; ``weights`` as the agent's, the
    shipped ones by default). A seat count or rule set the network was not trained for is
    refused with :class:`~meuterer.agents.policy.PolicyRulesError`.

    ``BatchPolicyAgent(players, rules)(game, idx)`` is the id the agent picks in each game
    ``idx`` (every one at a decision, any seat to act)."""

    def __init__(
        self, players: int = 4, rules: Rules | None = None, weights: str | Path | PolicyNet | None = None
    ) -> None:
        self.agent = PolicyAgent(weights)
        self.agent.check(players, rules or Rules())
        self.encoder = Encoder(self.agent.layout)
        ids = self.agent.ids
        # each decision step's block of ids (a play's: the cards and the pass)
        self._blocks = {
            STEP_CODES[Step.OFFER]: slice(ids.offer.start, ids.offer.stop),
            STEP_CODES[Step.PLAY]: slice(ids.play.start, ids.pass_.stop),
            STEP_CODES[Step.CHOOSE_ROLE]: slice(ids.role.start, ids.role.stop),
            STEP_CODES[Step.MUTINY]: slice(ids.support.start, ids.support.stop),
            STEP_CODES[Step.SELL]: slice(ids.sell.start, ids.sell.stop),
            STEP_CODES[Step.LOADMASTER_DISCARD]: slice(ids.discard.start, ids.discard.stop),
        }

    def __call__(self, g: Any, idx: IntArray) -> IntArray:
        """The policy's id in each game ``idx`` of the batch ``g``."""
        mask = mask_rows(g, idx, Groups(g.step_[idx]))
        chosen: IntArray = mask.argmax(axis=1).astype(np.int64)  # the first legal id: right where it is the only one
        choosing = np.flatnonzero(np.count_nonzero(mask, axis=1) > 1)
        if not len(choosing):
            return chosen
        part = g._subset(idx[choosing])
        encoded = self.encoder(observations(part, part.to_act)).astype(np.float32, copy=False)
        net = self.agent.net
        features = net.features(encoded)
        steps = part.step_
        for step in np.unique(steps).tolist():
            rows = np.flatnonzero(steps == step)
            block = self._blocks[step]
            scores = features[rows] @ net.weights[-1][:, block] + net.biases[-1][block]
            legal = mask[choosing[rows], block]
            chosen[choosing[rows]] = block.start + np.where(legal, scores, -np.inf).argmax(axis=1)
        return chosen
