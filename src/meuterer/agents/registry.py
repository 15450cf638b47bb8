"""One registry of agents and one spec grammar for every command and program.

A spec is ``NAME`` or ``NAME:OPTION[:OPTION...]``, case and surrounding blanks ignored:

- ``random``: uniform over the legal actions;
- ``greedy``: :class:`~meuterer.agents.greedy.GreedyAgent`;
- ``ismcts`` or ``ismcts:ITERATIONS[:ROLLOUT[:OPPONENTS]]``: :class:`~meuterer.agents.ismcts.ISMCTSAgent`
  (``ROLLOUT`` is ``greedy``, ``random``, or ``policy``: the search guided by the learned
  policy, numpy needed, 4 players under ``Rules()`` only; ``OPPONENTS`` is ``search`` or
  ``model``: the other seats searched over, or played by the rollout policy). Without
  ``ITERATIONS`` the agent class's own default budget is used: there is one default, the class's;
- ``policy``: :class:`~meuterer.agents.policy.PolicyAgent`, the learned policy shipped with
  the package (numpy needed; 4 players under ``Rules()`` only).

A spec may also be a factory (an agent class, or any picklable callable returning an
agent). Agent modules are imported only when a spec asks for them. Programs may add their
own names with :func:`register_agent`.

>>> make_agent("ismcts:50:random")
ISMCTSAgent(iterations=50, seed=None, rollout='random', opponents='search')
>>> make_agent(" Greedy ").name
'greedy'
>>> make_agent("clever")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
meuterer.agents.registry.AgentSpecError: unknown agent 'clever': use random, greedy, ismcts[...], ...
>>> make_agent("random:5")
Traceback (most recent call last):
...
meuterer.agents.registry.AgentSpecError: bad agent 'random:5': random takes no option
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from meuterer.agents.base import Agent
from meuterer.errors import SetupError

__all__ = ["AgentSpec", "AgentSpecError", "Entry", "agent_label", "agent_names", "make_agent", "register_agent"]

AgentSpec = str | Callable[[], Agent]
"""An agent spec (``"greedy"``, ``"ismcts:100"``) or a picklable factory, such as an agent class."""


class AgentSpecError(SetupError):
    """An agent spec that names no registered agent, has bad options, or cannot be loaded."""


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{text!r} is not a positive number")
    return int(text)


_ROLLOUTS = ("greedy", "random", "policy")
"""The rollouts an ``ismcts`` spec may name (``ismcts:40:policy``): the agent's ``Rollout``
but ``quick``, written out so that reading a spec imports no agent (a test holds the two
together)."""


def _rollout(text: str) -> str:
    if text not in _ROLLOUTS:
        raise ValueError(f"the rollout is greedy, random or policy, not {text!r}")
    return text


_OPPONENTS = ("search", "model")
"""How an ``ismcts`` spec's search treats the other seats (``ismcts:40:policy:model``): the
agent's ``Opponents``, written out as :data:`_ROLLOUTS` is."""


def _opponents(text: str) -> str:
    if text not in _OPPONENTS:
        raise ValueError(f"the opponents are search or model, not {text!r}")
    return text


@attrs.frozen
class Entry:
    """A registered agent: where its factory lives (imported on first use) and the
    keyword arguments its positional options fill, each with its parser."""

    factory: str | Callable[..., Agent]
    """``"module:attribute"`` or the factory itself."""
    options: tuple[tuple[str, Callable[[str], Any]], ...] = ()
    usage: str = ""
    """How the spec is written, e.g. ``ismcts[:ITERATIONS[:ROLLOUT]]``."""

    def load(self) -> Callable[..., Agent]:
        """The factory (imports its module if needed)."""
        if not isinstance(self.factory, str):
            return self.factory
        module, _, attribute = self.factory.partition(":")
        factory: Callable[..., Agent] = getattr(importlib.import_module(module), attribute)
        return factory


_REGISTRY: dict[str, Entry] = {
    "random": Entry("meuterer.agents.base:RandomAgent", usage="random"),
    "greedy": Entry("meuterer.agents.greedy:GreedyAgent", usage="greedy"),
    "ismcts": Entry(
        "meuterer.agents.ismcts:ISMCTSAgent",
        (("iterations", _positive), ("rollout", _rollout), ("opponents", _opponents)),
        usage="ismcts[:ITERATIONS[:ROLLOUT[:OPPONENTS]]]",
    ),
    "policy": Entry("meuterer.agents.policy:PolicyAgent", usage="policy"),
}


def register_agent(
    name: str,
    factory: str | Callable[..., Agent],
    options: Sequence[tuple[str, Callable[[str], Any]]] = (),
    usage: str | None = None,
) -> None:
    """Make ``name`` (lower case, no ``:`` or ``,``) a spec for agents made by ``factory``;
    ``options`` name the keyword arguments that ``name:A:B`` fills, each with a parser.
    For example ``register_agent("trader", Trader)`` makes ``meuterer.tournament`` and
    ``make_agent("trader")`` know the ``Trader`` class of ``examples/write_a_bot.py``.
    """
    if not name or name != name.strip().lower() or ":" in name or "," in name:
        raise AgentSpecError(f"an agent name is lower case without ':' or ',', got {name!r}")
    _REGISTRY[name] = Entry(factory, tuple(options), usage or name + "".join(f"[:{o.upper()}" for o, _ in options))


def agent_names() -> tuple[str, ...]:
    """The registered names, in registration order."""
    return tuple(_REGISTRY)


def _usage() -> str:
    return ", ".join(entry.usage or name for name, entry in _REGISTRY.items())


def _accepts_seed(factory: Callable[..., Agent]) -> bool:
    try:
        return "seed" in inspect.signature(factory).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def make_agent(spec: AgentSpec, seed: int | None = None) -> Agent:
    """A new agent from ``spec`` (see the module's grammar), or the result of calling a
    factory. ``seed`` is passed to agents whose factory takes a ``seed`` argument.
    Raises :class:`AgentSpecError`."""
    if not isinstance(spec, str):
        agent = spec()
    else:
        name, *texts = [part.strip() for part in spec.strip().lower().split(":")]
        entry = _REGISTRY.get(name)
        if entry is None:
            raise AgentSpecError(f"unknown agent {spec!r}: use {_usage()}")
        if len(texts) > len(entry.options):
            takes = "no option" if not entry.options else f"at most {len(entry.options)} option(s): {entry.usage}"
            raise AgentSpecError(f"bad agent {spec!r}: {name} takes {takes}")
        kwargs: dict[str, Any] = {}
        try:
            for (keyword, parse), text in zip(entry.options, texts, strict=False):
                kwargs[keyword] = parse(text)
        except ValueError as error:
            raise AgentSpecError(f"bad agent {spec!r}: {error} ({entry.usage})") from None
        try:
            factory = entry.load()
        except (ImportError, AttributeError) as error:
            raise AgentSpecError(f"agent {name!r} is not available ({error}); use 'random' instead") from None
        if seed is not None and _accepts_seed(factory):
            kwargs["seed"] = seed
        try:
            agent = factory(**kwargs)
        except (TypeError, ValueError) as error:
            raise AgentSpecError(f"agent {spec!r} cannot be made: {error}") from None
    if not isinstance(agent, Agent):
        raise AgentSpecError(f"agent {spec!r} is not an agent (it needs a name and act(view, legal, rng))")
    return agent


def agent_label(spec: AgentSpec) -> str:
    """The name an agent spec goes by in results: the spec itself, or a factory's ``name``
    (an agent class's) or ``__name__``.

    >>> from meuterer.agents import GreedyAgent
    >>> agent_label("ismcts:50"), agent_label(GreedyAgent)
    ('ismcts:50', 'greedy')
    """
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or getattr(spec, "__name__", None) or repr(spec))
