"""The state machine as a Mermaid diagram, drawn by ``transitions`` from the declaration.

>>> from meuterer.diagram import mermaid
>>> text = mermaid()
>>> text.splitlines()[0]
'stateDiagram-v2'
>>> "play --> choose_role: pass [passer_is_not_captain]" in text
True
"""

from __future__ import annotations

from transitions.extensions import GraphMachine

from meuterer.machine import TRANSITIONS
from meuterer.state import Step


class _Model:
    pass


def _self_loop_in_the_box(line: str) -> list[str]:
    """A self-loop's label goes into its state's box (``deal : ↻ draw``), the loop stays unlabelled.

    Mermaid's layout lays a self-loop's label over the labels of the state's other exits.

    >>> _self_loop_in_the_box("  sell --> sell: sell")
    ['  sell --> sell', '  sell : ↻ sell']
    >>> _self_loop_in_the_box("  sell --> sail: sell [last_seller]")
    ['  sell --> sail: sell [last_seller]']
    """
    edge, colon, label = line.partition(": ")
    source, arrow, dest = edge.partition(" --> ")
    if not colon or not arrow or source.strip() != dest.strip():
        return [line]
    return [edge, f"{source} : ↻ {label}"]


def mermaid() -> str:
    """The Mermaid source of the round's state machine (states, triggers, guards).

    It is drawn by ``transitions``' own diagram extension from the same declaration the
    engine is compiled from, then stripped of styling so that it is stable; a self-loop's
    label is written inside its state's box, where it cannot overlap other labels.
    """
    model = _Model()
    machine = GraphMachine(
        model=model,
        states=[step.value for step in Step],
        transitions=TRANSITIONS,
        initial=Step.RING.value,
        auto_transitions=False,
        graph_engine="mermaid",
        show_conditions=True,
    )
    source = machine.models[0].get_graph().draw(None)
    assert isinstance(source, str)
    body = source.split("stateDiagram-v2", 1)[1]
    styling = ("classDef", "Class ", "direction")
    kept = [line.rstrip() for line in body.splitlines() if line.strip() and not line.lstrip().startswith(styling)]
    kept = [moved for line in kept for moved in _self_loop_in_the_box(line)]
    # transitions already draws ``[*] --> ring`` for the initial state; add what it cannot know.
    ends = [line for line in ("  [*] --> ring", "  [*] --> deal", "  game_over --> [*]") if line not in kept]
    return "\n".join(["stateDiagram-v2", *kept, *ends]) + "\n"
