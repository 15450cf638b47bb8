"""Issue 19, part B: bounded readers, nothing lost on a full disk or a killed run, one
numbering, one meaning for ``str``, and what users tripped on."""

from __future__ import annotations

import json
from functools import cache

import pytest

import meuterer
from meuterer import FormatError, Game, Rules
from meuterer.errors import IllegalActionError
from meuterer.record import make_record
from meuterer.redact import dumps_redacted, loads_redacted, redact, replay_views
from meuterer.views import dumps_view, loads_view, view


@cache
def game() -> Game:
    actions, _ = meuterer.random_game(seed=11, players=4)
    return Game.replay(actions, players=4)


# Item 4: a hidden draw where no card is drawn ------------------------------------------------


def shuffled_ring_record(actions: list[str]) -> str:
    data = json.loads(dumps_redacted(redact(make_record(Game.new(4, 0, Rules(ring="shuffled"))), 1)))
    data["actions"] = actions
    return json.dumps(data)


def test_a_hidden_draw_before_the_ring_is_arranged_is_refused_at_once() -> None:
    # Before the fix: a scan of all 11! arrangements (about a minute), then StopIteration.
    record = loads_redacted(shuffled_ring_record(["draw p0 ?"]))
    with pytest.raises(IllegalActionError, match="no hidden draw") as info:
        replay_views(record)
    assert "at step 0 (0-based) of the redacted record" in str(info.value.__notes__)


# Item 5: views read from outside are checked like states -----------------------------------------


def view_data() -> dict[str, object]:
    data: dict[str, object] = json.loads(dumps_view(view(game().at(40), 2)))
    return data


@pytest.mark.parametrize(
    ("key", "value", "path"),
    [
        ("face_up", "drop", "$.face_up"),
        ("hand", [10**12, 0, 0, 0, 0, 0, 0], "$.hand"),
        ("unseen", [], "$.unseen"),
        ("deck_size", 10**12, "$.deck_size"),
        ("hand_sizes", [-1, 5, 5, 5], "$.hand_sizes"),
        ("players", 9, "$.players"),
        ("player", 7, "$.player"),
        ("deck_size", 3, "$"),
        ("round", 10**6, "$"),
    ],
)
def test_a_forged_view_is_refused_with_a_format_error(key: str, value: object, path: str) -> None:
    data = view_data()
    if value == "drop":
        data[key] = data[key][:-1]  # type: ignore[index]
    else:
        data[key] = value
    with pytest.raises(FormatError) as info:
        loads_view(json.dumps(data))
    assert info.value.path == path


def test_a_view_whose_derived_fields_disagree_is_refused() -> None:
    data = view_data()
    unseen = list(data["unseen"])  # type: ignore[call-overload]
    card = next(i for i, c in enumerate(unseen) if c)
    unseen[card] -= 1
    unseen[(card + 1) % 7] += 1
    data["unseen"] = unseen
    with pytest.raises(FormatError):
        loads_view(json.dumps(data))


def test_every_view_of_real_games_still_reads_back() -> None:
    for rules in (Rules(), Rules(ring="shuffled", pirates=True), Rules(withholding=True, discard_pool="hand")):
        actions, _ = meuterer.random_game(seed=3, players=3, rules=rules)
        for state in Game.replay(actions, players=3, rules=rules).states[::7]:
            for seat in (None, 0, 1, 2):
                v = view(state, seat)
                assert loads_view(dumps_view(v)) == v


def test_loads_view_has_a_size_cap_and_refuses_other_types() -> None:
    with pytest.raises(FormatError, match="at most"):
        loads_view(" " * (meuterer.serialize.MAX_STATE_TEXT + 1))
    with pytest.raises(TypeError):
        loads_view(None)  # type: ignore[arg-type]
