"""Variants of the game: each is one module whose rules the phases reach through hooks.

As python-chess's variant boards override a few hooks of the base board, a variant here
is an object with the hooks of :class:`Variant`; :data:`BASE` (the rulebook's game) does
nothing in each, and :func:`variant_of` names the one a rule set plays. The phases call
the hooks where the variant changes the game (setup and the ring's arrangement, phase 7's
clean-up); the machine adds each variant's :attr:`Variant.transitions` to its declaration,
ahead of the base game's transitions on the same step and trigger. Today's one variant is
the pirates' (:mod:`meuterer.phases.pirates`).

>>> from meuterer import Rules
>>> variant_of(Rules()).name, variant_of(Rules(pirates=True)).name
('base', 'pirates')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from meuterer.phases.common import Changes, Table
from meuterer.phases.pirates import PIRATES
from meuterer.rules import Rules
from meuterer.state import State, Step

VariantTransition = tuple[str, Step, Step, Callable[[State, Any], Changes], tuple[Callable[[State, Any], bool], ...]]
"""A transition a variant adds: trigger, source step, destination step, effect, guards
(the shape of the machine's declaration)."""


class Variant(Protocol):
    """The hooks a variant provides (see :data:`BASE` for the base game's)."""

    @property
    def name(self) -> str:
        """The variant's name."""

    def applies(self, rules: Rules) -> bool:
        """Whether ``rules`` play this variant."""

    def pirate_ship(self, rules: Rules, ring: Sequence[int]) -> int | None:
        """The pirate ship's ring position at setup and once the ring is laid out
        (``None``: no pirate ship)."""

    def clean_up(self, state: Table) -> Changes:
        """What the variant changes at phase 7's clean-up, besides the base game's."""

    @property
    def transitions(self) -> tuple[VariantTransition, ...]:
        """The variant's own transitions, tried before the base game's from the same step
        on the same trigger."""


class BaseGame:
    """The rulebook's game: no pirate ship, nothing more at the clean-up, no transitions of its own."""

    name = "base"
    transitions: tuple[VariantTransition, ...] = ()

    def applies(self, rules: Rules) -> bool:
        return True

    def pirate_ship(self, rules: Rules, ring: Sequence[int]) -> int | None:
        return None

    def clean_up(self, state: Table) -> Changes:
        return {}


BASE: Variant = BaseGame()
"""The base game's hooks."""

VARIANTS: tuple[Variant, ...] = (PIRATES,)
"""Every variant, each asked in turn whether a rule set plays it (the base game when none does)."""


def variant_of(rules: Rules) -> Variant:
    """The variant ``rules`` play (:data:`BASE` when no variant applies)."""
    for variant in VARIANTS:
        if variant.applies(rules):
            return variant
    return BASE
