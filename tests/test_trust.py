"""Issue 19, part A: nothing a player may not see leaks, and nothing the library accepts is lost.

Each test here failed before its fix (the issue's item in brackets)."""

from __future__ import annotations

import copy
import pickle
from typing import Any, cast

import attrs
import pytest

import meuterer
from meuterer import Card, Role
from meuterer.actions import ChooseRole, Discard, Draw, Offer, Pass, Play, Sale, Sell, Support

# [8] actions refuse numbers that would not read back ------------------------------------------


class _Shouting(int):
    """An int that prints otherwise: a record would hold 'p0 offer ONE'."""

    def __str__(self) -> str:
        return "ONE"

    __format__ = None  # type: ignore[assignment]


_BUILDERS: dict[str, Any] = {
    "Draw.player": lambda n: Draw(n, Card.WINE),
    "Offer.player": lambda n: Offer(n, 1),
    "Offer.amount": lambda n: Offer(0, n),
    "Play.player": lambda n: Play(n, Card.WINE),
    "Pass.player": lambda n: Pass(n),
    "ChooseRole.player": lambda n: ChooseRole(n, Role.MATE),
    "Support.player": lambda n: Support(n, 1),
    "Support.count": lambda n: Support(0, n),
    "Sale.count": lambda n: Sell(0, (Sale("hochland", Card.WINE, n),)),
    "Sell.player": lambda n: Sell(n, ()),
    "Discard.player": lambda n: Discard(n, (Card.WINE,)),
}


@pytest.mark.parametrize("field", sorted(_BUILDERS))
@pytest.mark.parametrize("number", [True, False, _Shouting(1), 1.0])
def test_every_number_of_an_action_is_a_plain_int(field: str, number: object) -> None:
    build = _BUILDERS[field]
    assert str(meuterer.parse_action(str(build(1)))) == str(build(1))  # a plain int reads back
    with pytest.raises(meuterer.ActionTypeError, match=rf"^{field} is an int, got {type(number).__name__} ") as caught:
        build(number)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, meuterer.MeutererError)


def test_island_names_are_plain_str() -> None:
    class Loud(str):
        def __str__(self) -> str:
            return "LOUD"

    with pytest.raises(TypeError, match=r"Sale\.island is a str"):
        Sale(Loud("hochland"), Card.WINE, 1)
    with pytest.raises(TypeError, match=r"ArrangeRing\.islands are str"):
        meuterer.actions.ArrangeRing((Loud("hochland"),))


def test_a_game_never_holds_an_action_its_record_cannot_read() -> None:
    game = meuterer.Game.new(3)
    while not isinstance(meuterer.current_player(game.state), int) or meuterer.is_chance_node(game.state):
        game.push(meuterer.chance_outcomes(game.state)[0][0])
    with pytest.raises(TypeError):
        game.push(Offer(0, True))
    assert meuterer.verify(meuterer.write_record(game)).ok


# [9] a frozen State cannot be changed -----------------------------------------------------------


def test_the_storage_of_a_state_is_read_only() -> None:
    actions, _ = meuterer.random_game(seed=3, players=3)
    game = meuterer.Game.replay(actions, players=3)
    state = game.at(10)
    digest, before = meuterer.state_digest(state), hash(state)
    legal = meuterer.legal_actions(state)
    for storage in (vars(state), state.__dict__):
        with pytest.raises(TypeError):
            storage["round"] = 7  # type: ignore[index]
        with pytest.raises(TypeError):
            del storage["round"]  # type: ignore[attr-defined]
        with pytest.raises(AttributeError):
            storage.update(round=7)  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        state.__dict__ = {}  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.round = 7  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.__setstate__({**vars(state), "round": 7})
    assert dict(vars(state)) == attrs.asdict(state, recurse=False)
    assert (meuterer.state_digest(state), hash(state), meuterer.legal_actions(state)) == (digest, before, legal)
    assert meuterer.verify(meuterer.write_record(game)).ok


def test_a_state_still_copies_pickles_and_evolves() -> None:
    _, final = meuterer.random_game(seed=4, players=4)
    for twin in (pickle.loads(pickle.dumps(final)), copy.copy(final), copy.deepcopy(final)):
        assert twin == final and hash(twin) == hash(final)
        assert meuterer.state_digest(twin) == meuterer.state_digest(final)
        with pytest.raises(TypeError):
            vars(twin)["round"] = 1
    changed = attrs.evolve(final, round=1)
    assert (changed.round, final.round) == (1, final.rules.rounds_for(4))
    assert meuterer.State(**attrs.asdict(final, recurse=False)) == final


# [14] every rule option is checked when a rule set is made ---------------------------------------

_BAD_OPTIONS: list[tuple[str, object, str]] = [
    ("islands", (), "the island table needs 12 islands"),
    ("pirates", "yes", "pirates must be True or False, got 'yes'"),
    ("pirates", 1, "pirates must be True or False, got 1"),
    ("deck", (1, 2), "deck must hold 7 non-negative counts"),
    ("ring", "round", "ring must be one of fixed, shuffled, got 'round'"),
    ("ring", 0, "ring must be one of fixed, shuffled, got 0"),
    ("rounds", 0, "rounds must be a positive whole number, at most 1000, got 0"),
    ("sale_order", "foo", "sale_order must be one of new_captain, round_captain, got 'foo'"),
    ("withholding", "yes", "withholding must be True or False, got 'yes'"),
    ("withholding", None, "withholding must be True or False, got None"),
    ("discard_pool", "all", "discard_pool must be one of drawn, hand, got 'all'"),
    ("reshuffle", "never", "reshuffle must be one of on_draw, when_empty, got 'never'"),
    ("pirates_rob_at_start", 0, "pirates_rob_at_start must be True or False, got 0"),
    ("pirates_return", "no", "pirates_return must be True or False, got 'no'"),
    ("hand_size", 0, "hand_size must be a whole number of at least 1 and at most 20, got 0"),
    ("loadmaster_extra", True, "loadmaster_extra must be a whole number of at least 0 and at most 6, got True"),
    ("max_offer", 101, "max_offer must be a whole number of at least 0 and at most 100, got 101"),
    ("cabin_boy_points", 10**400, "cabin_boy_points must be a whole number of at least 0 and at most 1000, got 1000"),
]


def test_every_rule_option_is_checked_on_construction() -> None:
    assert {name for name, _, _ in _BAD_OPTIONS} == {f.name for f in attrs.fields(meuterer.Rules)}
    for name, value, message in _BAD_OPTIONS:
        with pytest.raises(meuterer.RulesError) as caught:
            meuterer.Rules(**{name: cast(Any, value)})
        assert str(caught.value).startswith(message), (name, str(caught.value))
        assert len(str(caught.value)) < 200  # never the whole of a huge value
    good = meuterer.Rules(ring="shuffled", sale_order="round_captain", discard_pool="hand", reshuffle="when_empty")
    assert (good.ring, good.sale_order) == (meuterer.rules.Ring.SHUFFLED, meuterer.rules.SaleOrder.ROUND_CAPTAIN)


# [6] points are bounded, so observations never overflow --------------------------------------------


def test_island_values_and_cabin_boy_points_are_bounded() -> None:
    table = meuterer.Rules().islands
    for change in ({"values": (10**400, 1, 1)}, {"values": (1001, 1, 1)}, {"ship": 10**400}, {"ship": -1}):
        islands = (table[0], attrs.evolve(table[1], **change), *table[2:])
        with pytest.raises(meuterer.RulesError, match="each at most 1000"):
            meuterer.Rules(islands=islands)
    most = (table[0], attrs.evolve(table[1], values=(1000, 1000, 1000), ship=1000), *table[2:])
    rules = meuterer.Rules(islands=most, cabin_boy_points=1000, rounds=1000, max_offer=100)
    state = meuterer.new_game(4, 0, rules)
    np = pytest.importorskip("numpy")
    layout = meuterer.views.observation_layout(4, rules)
    assert np.array(layout.high, np.int64).max() < 2**31
    assert np.array(layout.vector(meuterer.view(state, 0)), np.int64).shape == (layout.size,)


def test_a_loaded_state_holds_no_unbounded_number() -> None:
    state = meuterer.new_game(3, 0)
    text = meuterer.dumps_state(state)
    for old, new in (
        ('"cabin_boy_points":2', '"cabin_boy_points":' + "9" * 400),
        ('"scores":[0,0,0]', '"scores":[0,' + "9" * 400 + ",0]"),
    ):
        assert old in text.replace(" ", "")
        with pytest.raises(meuterer.FormatError):
            meuterer.loads_state(text.replace(" ", "").replace(old, new))


# [16] a wrong type is a TypeError that says what was wrong ------------------------------------------


def test_wrong_types_are_type_errors_that_say_so(tmp_path: Any) -> None:
    import random

    from meuterer.views import sample_state

    state: Any = meuterer.new_game(3, 0)
    mine: Any = meuterer.view(state, 0)
    first = meuterer.legal_actions(state)[0]
    nothing: Any = None
    path = tmp_path / "game.json"
    cases: list[tuple[Any, str]] = [
        (lambda: meuterer.Game.from_record(path), "Game.from_record takes a meuterer.Record, got PosixPath (read"),
        (lambda: meuterer.Game.from_record(nothing), "Game.from_record takes a meuterer.Record, got NoneType"),
        (lambda: sample_state(mine, cast(Any, 5)), "sample_state draws from a random.Random, got int"),
        (lambda: sample_state(state, random.Random(1)), "sample_state takes a PlayerView, got State"),
        (lambda: meuterer.apply(mine, first), "apply takes a State, got PlayerView (a player's view"),
        (lambda: meuterer.apply(nothing, first), "apply takes a State, got NoneType"),
        (lambda: meuterer.legal_actions(nothing), "legal_actions takes a State or a PlayerView, got NoneType"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value).startswith(message), str(caught.value)
    assert meuterer.legal_actions(mine) == ()  # a view still lists its own actions


def test_pettingzoo_step_refuses_what_is_not_an_action_id() -> None:
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    np = pytest.importorskip("numpy")
    from meuterer import pettingzoo

    env = pettingzoo.raw_env(players=3)
    env.reset(seed=1)
    for bad in ("abc", 1.7, True, [0]):
        with pytest.raises(TypeError, match="an action id is an int, got "):
            env.step(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must act: an action id, not None"):
        env.step(None)
    for outside in (-1, env.ids.num_actions):
        with pytest.raises(meuterer.IllegalActionError, match=r"not in the action space of player_0: ids are 0 to"):
            env.step(outside)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(np.int64(legal))  # a NumPy integer is an id
