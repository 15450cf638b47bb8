"""A conformance kit: hypothesis strategies over Meuterer games, and a harness that checks
another implementation against this one, step by step.

Another engine plugs in through an :class:`EngineAdapter` (a handful of methods speaking
the canonical notation). :func:`check_engine` plays many games drawn by hypothesis and, at
every step, compares the set of legal actions, the public view and the scores with the
reference. On a mismatch it raises :class:`ConformanceError` with the shortest action
sequence that shows it (hypothesis shrinks it).

>>> from meuterer.testing import ReferenceAdapter, check_engine
>>> check_engine(ReferenceAdapter(), max_examples=3, seed=1)  # the reference agrees with itself
"""

from meuterer.testing.harness import (
    FIND_SETTINGS,
    ConformanceError,
    EngineAdapter,
    ReferenceAdapter,
    check_engine,
    compare,
    drop_rounds,
)
from meuterer.testing.strategies import (
    STYLES,
    Setup,
    action_sequences,
    games,
    option_choices,
    option_strategy,
    records,
    rules,
    setups,
    states,
    style_weights,
)

__all__ = [
    "FIND_SETTINGS",
    "STYLES",
    "ConformanceError",
    "EngineAdapter",
    "ReferenceAdapter",
    "Setup",
    "action_sequences",
    "check_engine",
    "compare",
    "drop_rounds",
    "games",
    "option_choices",
    "option_strategy",
    "records",
    "rules",
    "setups",
    "states",
    "style_weights",
]
