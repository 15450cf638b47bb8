"""A small learned policy shipped with the package, played with numpy only.

:class:`PolicyAgent` reads the encoded observation of its view
(:func:`meuterer.views.observation_layout`'s ``encode``: quantities in [0, 1], categories
one-hot), runs a small multi-layer perceptron (:class:`PolicyNet`) and plays the legal
action with the highest score, the actions numbered by :mod:`meuterer.encoding`. The
weights are ``meuterer/agents/data/policy-v2.npz``, made by ``scripts/train_policy.py``
(torch is needed to train them, never to play); the model card is ``docs/policy.md``.

A network knows the seat count and the rule set it was trained for, and refuses any other
with :class:`PolicyRulesError` (the layout of its inputs and the meaning of its outputs
depend on both).

>>> from meuterer.agents import GreedyAgent, play_game
>>> agent = PolicyAgent()
>>> _, final = play_game([agent, GreedyAgent(), GreedyAgent(), GreedyAgent()], seed=3)
>>> len(final.scores), agent.net.players
(4, 4)
>>> agent.check(3, agent.net.rules)
Traceback (most recent call last):
...
meuterer.agents.policy.PolicyRulesError: the policy 'policy-v2' plays 4-player games only; use greedy or ismcts
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from meuterer._cache import bounded
from meuterer._install import install_hint
from meuterer.actions import Action
from meuterer.encoding import action_ids
from meuterer.errors import SetupError
from meuterer.rules import Rules
from meuterer.serialize import converter
from meuterer.views import PlayerView, observation_layout

try:
    import numpy as np
    import numpy.typing as npt
except ImportError as error:  # pragma: no cover - without numpy
    raise ImportError(f"the policy agent needs numpy ({install_hint('vector')}; {error})") from error

__all__ = ["DEFAULT_WEIGHTS", "PolicyAgent", "PolicyNet", "PolicyRulesError"]

FloatArray = npt.NDArray[np.float32]

DEFAULT_WEIGHTS = "policy-v2.npz"
"""The shipped weights, in ``meuterer/agents/data``."""


class PolicyRulesError(SetupError):
    """A seat count or rule set the policy was not trained for."""


def _shipped(name: str) -> Path:
    return Path(str(resources.files("meuterer.agents") / "data" / name))


@attrs.frozen(eq=False)
class PolicyNet:
    """A multi-layer perceptron (ReLU between layers) from an encoded observation to one
    score per action id, with what it was trained for: the seat count, the rule set and
    the free-form ``meta`` of its model card (the command, the commit, the figures)."""

    weights: tuple[FloatArray, ...]
    """Each layer's (inputs, outputs) matrix."""
    biases: tuple[FloatArray, ...]
    players: int
    rules: Rules
    meta: dict[str, Any] = attrs.field(factory=dict)

    @property
    def name(self) -> str:
        """The weights' name and version (``policy-v2``)."""
        return str(self.meta.get("name", "policy"))

    def scores(self, encoded: FloatArray) -> FloatArray:
        """(B, actions) scores of (B, inputs) encoded observations (unmasked logits)."""
        scored: FloatArray = self.features(encoded) @ self.weights[-1] + self.biases[-1]
        return scored

    def features(self, encoded: FloatArray) -> FloatArray:
        """(B, width) activations of the last hidden layer: the scores of ids ``a`` are
        ``features @ weights[-1][:, a] + biases[-1][a]``."""
        h = encoded
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            h = h @ w + b
            np.maximum(h, 0.0, out=h)
        return h

    def save(self, path: str | Path) -> None:
        """Write the network as an ``.npz`` (float16 weights: half the size, the same moves
        but for near-ties)."""
        arrays: dict[str, Any] = {}
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{k}"], arrays[f"b{k}"] = w.astype(np.float16), b.astype(np.float16)
        card = {"players": self.players, "rules": converter.unstructure(self.rules), "meta": self.meta}
        arrays["card"] = np.array(json.dumps(card, sort_keys=True))
        with open(path, "wb") as out:
            np.savez_compressed(out, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNet:
        """Read a network written by :meth:`save` (numpy only; no pickled objects)."""
        with np.load(path, allow_pickle=False) as data:
            card = json.loads(str(data["card"]))
            layers = sum(1 for key in data.files if key.startswith("w"))
            weights = tuple(np.asarray(data[f"w{k}"], dtype=np.float32) for k in range(layers))
            biases = tuple(np.asarray(data[f"b{k}"], dtype=np.float32) for k in range(layers))
        rules = converter.structure(card["rules"], Rules)
        return cls(weights, biases, int(card["players"]), rules, dict(card.get("meta", {})))


@bounded(size=4)
def _load(path: str) -> PolicyNet:
    """The weights at ``path``, loaded once for every agent that plays them."""
    return PolicyNet.load(path)


class PolicyAgent:
    """Plays the action the network scores highest among the legal ones (deterministic
    given its view). ``weights``: an ``.npz`` written by :meth:`PolicyNet.save` (default
    the shipped ``policy-v2``), or a :class:`PolicyNet`. Refuses, with
    :class:`PolicyRulesError`, games of another seat count or rule set than its network's."""

    name = "policy"

    def __init__(self, weights: str | Path | PolicyNet | None = None) -> None:
        if isinstance(weights, PolicyNet):
            self.net = weights
        else:
            self.net = _load(str(_shipped(DEFAULT_WEIGHTS) if weights is None else Path(weights)))
        self.layout = observation_layout(self.net.players, self.net.rules)
        self.ids = action_ids(self.net.rules)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.net.name!r})"

    def check(self, players: int, rules: Rules) -> None:
        """Raise :class:`PolicyRulesError` unless the network was trained for ``players``
        seats under ``rules``."""
        name = self.net.name
        if players != self.net.players:
            raise PolicyRulesError(
                f"the policy {name!r} plays {self.net.players}-player games only; use greedy or ismcts"
            )
        if rules != self.net.rules:
            raise PolicyRulesError(
                f"the policy {name!r} does not play {_rules_text(rules)}, only {_rules_text(self.net.rules)}; "
                "use greedy or ismcts"
            )

    def scores(self, view: PlayerView, legal: Sequence[Action]) -> FloatArray:
        """The network's score of each of ``legal`` in ``view``."""
        self.check(view.players, view.rules)
        encoded = np.array(self.layout.encode(view), dtype=np.float32)[None]
        ids = [self.ids.action_id(view, action) for action in legal]
        chosen: FloatArray = self.net.scores(encoded)[0, ids]
        return chosen

    def probabilities(self, view: PlayerView, legal: Sequence[Action]) -> list[float]:
        """The softmax of :meth:`scores`: the network's probability of each of ``legal`` in
        ``view`` (they sum to 1; the prior of a search guided by the policy).

        >>> import meuterer
        >>> from meuterer.views import view
        >>> state = meuterer.new_game(4)
        >>> while meuterer.is_chance_node(state):
        ...     state = meuterer.apply(state, meuterer.sample_chance(state, random.Random(0)))
        >>> probabilities = PolicyAgent().probabilities(view(state, 0), meuterer.legal_actions(state))
        >>> round(sum(probabilities), 6), all(p > 0 for p in probabilities)
        (1.0, True)
        """
        scores = self.scores(view, legal).astype(np.float64)
        exp = np.exp(scores - scores.max())
        return [float(p) for p in exp / exp.sum()]

    def act(self, view: PlayerView, legal: Sequence[Action], rng: random.Random) -> Action:
        """The legal action the network scores highest."""
        if len(legal) == 1:
            self.check(view.players, view.rules)
            return legal[0]
        return legal[int(np.argmax(self.scores(view, legal)))]


def _rules_text(rules: Rules) -> str:
    """``Rules()``, or the options that differ from its defaults (``Rules(pirates=True)``)."""
    default = Rules()
    changed = [
        f"{f.name}={getattr(rules, f.name)!r}"
        for f in attrs.fields(Rules)
        if getattr(rules, f.name) != getattr(default, f.name)
    ]
    return "Rules()" if not changed else "Rules(" + ", ".join(changed) + ")"
