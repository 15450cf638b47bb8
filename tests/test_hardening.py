"""Issue 11: every reader refuses what it cannot mean, and its errors stay in the hierarchy."""

from __future__ import annotations

import json
import random
import time
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import meuterer
import meuterer.serialize
import meuterer.views
from meuterer import FormatError, Game, Rules
from meuterer.record import make_record
from meuterer.redact import dumps_redacted, loads_redacted, redact, replay_views
from meuterer.views import dumps_view, loads_view, observation_text, observation_vector, sample_state, view
from tests.strategies import walk


@cache
def game() -> Game:
    actions, _ = meuterer.random_game(seed=11, players=4)
    return Game.replay(actions, players=4)


def record_text() -> str:
    return meuterer.write_record(game())


def redacted_text() -> str:
    return dumps_redacted(redact(make_record(game()), 1))


def state_text() -> str:
    return meuterer.dumps_state(game().at(40))


def view_text() -> str:
    return dumps_view(view(game().at(40), 2))


READERS = {
    "record": (record_text, meuterer.read_record),
    "redacted": (redacted_text, loads_redacted),
    "state": (state_text, meuterer.loads_state),
    "view": (view_text, loads_view),
}


def repeat_key(text: str, key: str, value: str) -> str:
    """``text`` with a second ``key`` member (``value``) added after the first ``{``."""
    return text.replace("{", "{" + json.dumps(key) + ":" + value + ",", 1)


# Duplicate keys (item 8) ----------------------------------------------------------------------


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_a_repeated_key(reader: str) -> None:
    make, read = READERS[reader]
    text = make()
    first_key = next(iter(json.loads(text)))
    value = json.dumps(json.loads(text)[first_key])
    with pytest.raises(FormatError) as info:
        read(repeat_key(text, first_key, value))
    assert info.value.path == "$" and f"the key {first_key!r} appears twice" in info.value.message


@pytest.mark.parametrize("key", ["result", "actions", "rules", "first_captain", "players", "digests"])
def test_verify_refuses_a_tampered_first_copy_of_a_member(key: str) -> None:
    text = record_text()
    data = json.loads(text)
    tampered = {"result": '{"scores":[99,0,0,0],"winners":[0]}', "actions": "[]", "rules": '{"hand_size":4}'}
    value = tampered.get(key, json.dumps(data[key]))
    doubled = text.replace(f'"{key}":', f'"{key}": {value}, "{key}":', 1)
    report = meuterer.verify(doubled)
    assert not report.ok and "appears twice" in report.findings[0].message


def test_a_repeated_key_deep_inside_is_refused() -> None:
    text = record_text().replace('"hand_size":5', '"hand_size":5,"hand_size":5')
    with pytest.raises(FormatError, match="'hand_size' appears twice"):
        meuterer.read_record(text)


# Lone surrogates (item 7) ---------------------------------------------------------------------


@pytest.mark.parametrize("name", ["\\ud800", "\\udfff", "a\\udc80b", "\\ude00\\ud83d"])
def test_a_seat_name_with_a_lone_surrogate_is_refused(name: str) -> None:
    text = record_text().replace('"players": ["p0"', f'"players": ["{name}"')
    assert text != record_text()
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$.players[0]" and "surrogate" in info.value.message
    assert not meuterer.verify(text).ok
    redacted = redacted_text().replace('"players": ["p0"', f'"players": ["{name}"')
    with pytest.raises(FormatError, match="surrogate"):
        loads_redacted(redacted)


def test_a_literal_surrogate_in_a_python_string_is_refused_too() -> None:
    text = record_text().replace('"players": ["p0"', '"players": ["\ud800"')
    with pytest.raises(FormatError, match="surrogate"):
        meuterer.read_record(text)


def test_an_escaped_surrogate_pair_is_text() -> None:
    text = record_text().replace('"players": ["p0"', '"players": ["\\ud83d\\ude00"')
    assert meuterer.read_record(text).players[0] == "\U0001f600"
    assert meuterer.verify(text).ok


def test_names_with_a_lone_surrogate_cannot_be_written() -> None:
    with pytest.raises(meuterer.SetupError):
        meuterer.write_record(game(), names=("\ud800", "b", "c", "d"))


# JSON error messages ------------------------------------------------------------------------


def test_an_unterminated_string_is_reported_once_with_its_place() -> None:
    text = '{\n  "format": {"name": "meuterer-record"},\n  "library": "x",\n  "rules": "abc'
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert "at at" not in info.value.message
    assert info.value.message == "not JSON: Unterminated string starting at line 4, column 12"


def test_too_many_arrays_and_objects_are_refused_before_parsing() -> None:
    limit = meuterer.serialize.MAX_CONTAINERS
    text = "[" + ",".join(["[]"] * limit) + "]"
    with pytest.raises(FormatError, match="arrays and objects"):
        meuterer.read_record(text)
    assert not meuterer.verify(text).ok


# Wrong argument types (item 5): TypeError from readers, a finding from verify ----------------

WRONG = [None, 3, 2.5, {}, [], object(), {"format": 1}]


def _name(argument: object) -> str:
    """A test id that is the same in every process (``repr`` of an object shows its address)."""
    text = repr(argument)
    return f"<{type(argument).__name__}>" if " at 0x" in text else text


@pytest.mark.parametrize("argument", WRONG, ids=_name)
def test_readers_raise_type_error_for_a_wrong_argument(argument: object) -> None:
    for read in (meuterer.read_record, loads_redacted, meuterer.loads_state):
        with pytest.raises(TypeError, match="read from"):
            read(argument)  # type: ignore[arg-type]


@pytest.mark.parametrize("argument", [*WRONG, bytearray(), bytearray(b"{}"), memoryview(b"[]")], ids=_name)
def test_verify_reports_a_wrong_argument_as_one_finding(argument: object) -> None:
    report = meuterer.verify(argument)  # type: ignore[arg-type]
    assert not report.ok and len(report.findings) == 1 and report.findings[0].path == "$"
    assert report.steps == 0 and report.final is None


def test_bytes_like_sources_are_read_as_utf8_text() -> None:
    text = record_text()
    assert meuterer.read_record(bytearray(text.encode())) == meuterer.read_record(text)  # type: ignore[arg-type]
    assert meuterer.verify(memoryview(text.encode())).ok  # type: ignore[arg-type]


def test_verify_reports_even_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(state: object, action: object) -> object:
        raise MemoryError

    monkeypatch.setattr(meuterer.record, "apply", broken)
    report = meuterer.verify(record_text())
    assert not report.ok and "MemoryError" in report.findings[0].message


# The shared document reader (issue 10 §2) --------------------------------------------------


def test_records_and_redacted_records_share_one_reader_and_writer() -> None:
    record, redacted = json.loads(record_text()), json.loads(redacted_text())
    assert list(record)[:5] == list(redacted)[:5] == ["format", "library", "rules", "players", "first_captain"]
    long_library = '"library": "' + "x" * (meuterer.record.MAX_LIBRARY_CHARS + 1) + '"'
    for text, read in ((record_text(), meuterer.read_record), (redacted_text(), loads_redacted)):
        bad = text.replace(f'"library": "meuterer {meuterer.__version__}"', long_library)
        with pytest.raises(FormatError) as info:
            read(bad)
        assert info.value.path == "$.library"


def test_an_overlong_action_text_is_refused_before_it_is_parsed() -> None:
    sales = ", ".join(["1 ruby at eisfelsen"] * 100_000)
    text = record_text().replace('"draw p0', f'"p0 sell {sales}", "draw p0', 1)
    with pytest.raises(FormatError) as info:
        meuterer.read_record(text)
    assert info.value.path == "$.actions[0]" and "at most 1000 characters" in info.value.message


# Bounded rule options (items 1 and 2) ------------------------------------------------------

BIGGEST = Rules(
    deck=(80, 80, 80, 80, 80, 99, 1),
    pirates=True,
    hand_size=meuterer.rules.MAX_HAND_SIZE,
    loadmaster_extra=meuterer.rules.MAX_LOADMASTER_EXTRA,
    max_offer=meuterer.rules.MAX_OFFER,
    withholding=True,
    discard_pool=meuterer.DiscardPool.HAND,
    rounds=3,
)
"""The largest rule set the bounds allow (500 cards)."""


@pytest.mark.parametrize(
    "options",
    [
        {"max_offer": 10**7},
        {"max_offer": 10**9},
        {"loadmaster_extra": 40},
        {"hand_size": 10**6},
        {"deck": (10**9, 5, 6, 7, 8, 6, 0)},
        {"deck": (100, 100, 100, 100, 100, 1, 0)},
        {"rounds": 10**6},
        {"rounds": True},
    ],
    ids=repr,
)
def test_options_that_size_the_game_are_bounded(options: dict[str, object]) -> None:
    with pytest.raises(meuterer.RulesError, match=r"at most|from"):
        Rules(**options)  # type: ignore[arg-type]


def test_the_documented_bounds() -> None:
    r = meuterer.rules
    assert (r.MAX_DECK, r.MAX_HAND_SIZE, r.MAX_LOADMASTER_EXTRA, r.MAX_OFFER, r.MAX_ROUNDS) == (500, 20, 6, 100, 1000)
    assert sum(BIGGEST.deck) == r.MAX_DECK
    Rules(max_offer=100, loadmaster_extra=6, hand_size=20, deck=(20, 20, 20, 20, 20, 20, 0), rounds=1000)


@pytest.mark.parametrize(("option", "value"), [("max_offer", 10**7), ("max_offer", 10**9), ("loadmaster_extra", 10**4)])
def test_verify_refuses_an_unbounded_option_quickly(option: str, value: int) -> None:
    text = record_text().replace(f'"{option}":{getattr(Rules(), option)}', f'"{option}":{value}')
    started = time.process_time()
    report = meuterer.verify(text)
    assert time.process_time() - started < 1
    assert not report.ok and report.findings[0].path == "$.rules"
    assert option in report.findings[0].message


def test_a_redacted_record_with_a_huge_deck_is_refused() -> None:
    text = redacted_text().replace('"deck":[4,5,6,7,8,6,0]', '"deck":[1000000000,5,6,7,8,6,0]')
    assert text != redacted_text()
    with pytest.raises(FormatError) as info:
        loads_redacted(text)
    assert info.value.path == "$.rules" and "at most 500 cards" in info.value.message


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 4))
def test_every_action_space_under_the_largest_rules_is_small(seed: int, players: int) -> None:
    rng = random.Random(seed)
    state = meuterer.new_game(players, 0, BIGGEST)
    while not meuterer.is_terminal(state):
        legal = meuterer.legal_actions(state)
        assert 0 < len(legal) <= 1000, state.step
        action = meuterer.sample_chance(state, rng) if meuterer.is_chance_node(state) else rng.choice(legal)
        state = meuterer.apply(state, action)


def test_views_and_replays_of_the_largest_deck_are_quick() -> None:
    actions, _ = meuterer.random_game(seed=3, players=4, rules=BIGGEST)
    big = Game.replay(actions, players=4, rules=BIGGEST)
    started = time.process_time()
    mine = redact(make_record(big), 0)
    assert replay_views(mine)[-1] == view(big.state, 0)
    sample_state(view(big.at(len(actions) // 2), 1), random.Random(0))
    assert time.process_time() - started < 10


# loads_state checks what it reads (item 6) -------------------------------------------------


def smoke(state: meuterer.State, rng: random.Random, steps: int = 30) -> None:
    """Use a loaded state as callers do: views of every seat, samples, a short playout."""
    meuterer.dumps_state(state)
    for p in [None, *range(state.players)]:
        v = view(state, p)
        observation_vector(v), observation_text(v), v.legal_actions()
        if p is not None:
            sample_state(v, rng)
    for _ in range(steps):
        if meuterer.is_terminal(state):
            return
        if meuterer.is_chance_node(state):
            if state.step is not meuterer.Step.RING:
                assert meuterer.chance_outcomes(state)
            action = meuterer.sample_chance(state, rng)
        else:
            legal = meuterer.legal_actions(state)
            assert legal, f"no legal action at {state.step}"
            action = rng.choice(legal)
        state = meuterer.apply(state, action)


def mutate(data: dict[str, object], rng: random.Random) -> None:
    """Change one field of a state's data to another plausible value."""
    key = rng.choice(sorted(k for k in data if k != "rules"))
    value = data[key]
    small = [-1, 0, 1, 2, 3, 4, 5, 7, 11, 12, 40]
    if key == "step":
        data[key] = rng.choice([s.value for s in meuterer.Step])
    elif key == "mutiny" or isinstance(value, bool):
        data[key] = rng.choice([True, False, None])
    elif isinstance(value, int) or value is None:
        data[key] = rng.choice([None, *small])
    elif isinstance(value, list):
        if not value or rng.random() < 0.2:
            data[key] = rng.choice([[], [rng.choice(small)], value + value[:1], value[:-1]])
            return
        i = rng.randrange(len(value))
        item = value[i]
        if isinstance(item, list) and item and isinstance(item[0], int):
            counts = list(item)
            counts[rng.randrange(len(counts))] += (delta := rng.choice([-1, 1]))
            if rng.random() < 0.7:  # move a card: the total stays right
                counts[rng.randrange(len(counts))] -= delta
            value[i] = counts
        elif isinstance(item, bool):
            value[i] = not item
        elif isinstance(item, int):
            value[i] = rng.choice(small)
        elif key == "roles":
            value[i] = rng.choice([None, "mutineer", "cabin_boy", "mate", "merchant", "loadmaster"])
        elif key == "sales":
            island = rng.choice(["atlantis", "hochland", "sandkap", "eisfelsen", "gruenland"])
            value[i] = rng.choice([None, [], [{"card": "ruby", "count": 1, "island": island}]])


@cache
def resting_states() -> tuple[meuterer.State, ...]:
    found = []
    for g in range(8):
        rules = Rules(pirates=g % 2 == 0, ring="shuffled" if g % 3 == 0 else "fixed", withholding=g % 4 == 1)
        found += [before for before, _, _ in walk(g, 3 + g % 2, g % 3, rules)][:: 1 + g]
    return tuple(found)


@settings(max_examples=300, deadline=None)
@given(pick=st.integers(0, 10**6), seed=st.integers(0, 2**32 - 1), count=st.integers(1, 3))
def test_a_mutated_state_is_refused_or_safe_to_use(pick: int, seed: int, count: int) -> None:
    states = resting_states()
    rng = random.Random(seed)
    data = meuterer.serialize.unstructure_state(states[pick % len(states)])
    for _ in range(count):
        mutate(data, rng)
    try:
        state = meuterer.loads_state(json.dumps(data))
    except FormatError:
        return
    smoke(state, rng)  # nothing may fail: not even a MeutererError


def test_every_resting_state_of_real_games_loads() -> None:
    for state in resting_states():
        assert meuterer.loads_state(meuterer.dumps_state(state)) == state


def edited_state(k: int, changes: dict[str, object]) -> str:
    data = meuterer.serialize.unstructure_state(game().at(k))
    data.update(changes)
    if data["mutiny"] == "flip":  # resolved without a mutineer, or unresolved with one
        data["mutiny"] = True if game().at(k).mutiny is None else None
    return json.dumps(data)


def first_step(kind: meuterer.Step) -> int:
    return next(k for k, s in enumerate(game().states) if s.step is kind)


@pytest.mark.parametrize(
    ("kind", "changes", "path", "words"),
    [
        (
            "game_over",
            {"sales": [[{"card": "ruby", "count": 1, "island": "atlantis"}], [], [], []]},
            "$.sales[0]",
            "no island",
        ),
        ("play", {"step": "reveal"}, "$.step", "automatic"),
        ("play", {"pirate": 3}, "$.pirate", "pirate variant"),
        ("draw", {"draws_left": 40}, "$.draws_left", "until his hand is full"),
        ("sell", {"mutiny": "flip"}, "$.mutiny", "mutineer"),
        ("sell", {"captain_destination": None}, "$", "destination"),
        ("offer", {"offer": 2}, "$.offer", "phase 1"),
        ("play", {"to_act": 0, "passed": [True, False, False, False]}, "$.hands[0]", "passed"),
        ("choose_role", {"roles": ["mate", "mate", None, None], "role_order": [0, 1]}, "$.roles", "one seat"),
        ("loadmaster_discard", {"drawn": [0, 0, 0, 0, 0, 0, 0]}, "$.to_act", "discard"),
    ],
)
def test_inconsistent_states_are_refused_with_a_clear_error(
    kind: str, changes: dict[str, object], path: str, words: str
) -> None:
    with pytest.raises(FormatError) as info:
        meuterer.loads_state(edited_state(first_step(meuterer.Step(kind)), changes))
    assert info.value.path == path and words in info.value.message, str(info.value)


# One rules-JSON splice (issue 10 §2) ---------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    data=st.dictionaries(
        st.text(max_size=8).filter(lambda key: key != "rules"),
        st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=3),
        max_size=6,
    ),
    rules=st.sampled_from([Rules(), Rules(pirates=True, hand_size=6), BIGGEST]),
)
def test_json_with_rules_is_the_canonical_json_of_the_whole(data: dict[str, object], rules: Rules) -> None:
    whole = {**data, "rules": meuterer.serialize.converter.unstructure(rules)}
    expected = json.dumps(whole, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert meuterer.serialize.json_with_rules(data, rules) == expected


def test_json_with_rules_gives_the_canonical_text_of_states_and_views() -> None:
    state = game().at(40)
    data = meuterer.serialize.unstructure_state(state)
    rules = data.pop("rules")
    assert rules == meuterer.serialize.converter.unstructure(state.rules)
    assert meuterer.serialize.json_with_rules(data, state.rules) == meuterer.dumps_state(state)
    v = view(state, 1)
    data = meuterer.views.unstructure_view(v)
    del data["rules"]
    assert meuterer.serialize.json_with_rules(data, v.rules) == dumps_view(v)
    with pytest.raises(ValueError, match="already"):
        meuterer.serialize.json_with_rules({"rules": 1}, v.rules)


def test_a_seat_still_to_draw_after_the_loadmaster_needs_cards() -> None:
    k = first_step(meuterer.Step.LOADMASTER_DISCARD)
    state = game().at(k)
    full = next(s for s in range(4) if s != state.to_act and sum(state.hands[s]) == state.rules.hand_size)
    with pytest.raises(FormatError) as info:
        meuterer.loads_state(edited_state(k, {"queue": [full]}))
    assert info.value.path == "$.queue" and "needs cards" in info.value.message
