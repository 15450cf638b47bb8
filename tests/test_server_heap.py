"""The server's collector policy (meuterer.server.heap): survivors are set aside, so a
collection walks only what is new; garbage among them is freed by the periodic full one."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from meuterer.server.heap import FULL_SECONDS, SETTLE_SECONDS, Heap


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Node:
    """An object of a reference cycle (freed only by the cyclic collector)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture
def clock() -> Iterator[Clock]:
    yield Clock()
    gc.unfreeze()  # the test process's collector as it was


def test_it_sets_the_survivors_aside_when_due_and_only_then(clock: Clock) -> None:
    heap = Heap(clock)
    gc.unfreeze()
    clock.now = SETTLE_SECONDS - 0.5
    assert heap.tend() is None
    assert gc.get_freeze_count() == 0
    clock.now = SETTLE_SECONDS
    assert heap.tend() == "settled"
    assert gc.get_freeze_count() > 0
    clock.now += SETTLE_SECONDS / 2
    assert heap.tend() is None


def test_a_collection_skips_what_was_set_aside(clock: Clock) -> None:
    heap = Heap(clock)
    kept = [Node() for _ in range(10_000)]
    clock.now = SETTLE_SECONDS
    heap.tend()
    assert gc.get_freeze_count() >= len(kept)
    assert not any(o is kept[0] for o in gc.get_objects(generation=2))  # no collection walks it now


def test_garbage_among_the_frozen_objects_is_freed_by_the_full_collection(clock: Clock) -> None:
    heap = Heap(clock)
    dead = cycle()  # unreachable at once, but only the cyclic collector frees it
    gc.freeze()  # as if it had been alive when the survivors were last set aside
    gc.collect()
    assert dead() is not None  # frozen: the usual collections skip it
    clock.now = SETTLE_SECONDS
    assert heap.tend() == "settled"
    assert dead() is not None
    clock.now = FULL_SECONDS
    assert heap.tend() == "full"
    assert dead() is None


def test_meuterer_serve_tends_its_heap_and_a_test_app_does_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import argparse
    import inspect

    from meuterer.server import app as app_module
    from meuterer.server import command

    asked: list[dict[str, Any]] = []

    def create_app(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs)
        raise app_module.StoreError("not started in a test")

    assert inspect.signature(app_module.create_app).parameters["tend_heap"].default is False
    monkeypatch.setattr(app_module, "create_app", create_app)
    parser = argparse.ArgumentParser()
    command.register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert args.run(args) == 1
    assert asked[0]["tend_heap"] is True
