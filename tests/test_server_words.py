"""The table speaks in words: over whole games, no button, help text, confirm question, hint or
log line a seat (or a spectator) is sent shows record notation."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("starlette")

from meuterer.rules import Rules
from meuterer.server.table import Seat, Table
from meuterer.server.words import NOTATION, label, plain


def test_the_notation_pattern_catches_what_the_players_saw() -> None:
    for text in ("p2 sell hochland:ruby:1", "p3 discard ruby cloth cloth", "p2 role cabin_boy", "at karge_zunge"):
        assert NOTATION.search(text), text
    for text in ("Sell 1 ruby on Hochland", "Discard ruby, cloth, cloth", "p2 passes with 3 cards face down"):
        assert not NOTATION.search(text), text


@pytest.mark.parametrize(("players", "rules"), [(4, Rules(pirates=True)), (3, Rules(loadmaster_extra=2))])
def test_no_text_sent_to_a_seat_is_notation_over_a_whole_game(players: int, rules: Rules) -> None:
    table = Table("w", players=players, seats=[Seat(name=f"n{p}") for p in range(players)], rules=rules)
    for p in range(players):
        table.join(p, f"n{p}")
    rng = random.Random(players)
    told = dict.fromkeys((*range(players), None), 0)
    texts = 0
    while True:
        table.commit(table.propose_auto())
        for seat in told:
            frame = table.snapshot(seat)
            state = frame["state"]
            shown = [*frame["lines"][told[seat] :], frame["pending"] or "", state["hint"]]
            shown += [text for choice in state["legal"] for text in (choice["label"], choice["help"])]
            shown += [choice["confirm"] for choice in state["legal"] if choice["confirm"]]
            told[seat] = len(frame["lines"])
            bad = [text for text in shown if NOTATION.search(text)]
            assert not bad, bad
            texts += len(shown)
        if table.over:
            break
        seat = table.waiting_for()
        assert seat is not None
        legal = table.snapshot(seat)["state"]["legal"]
        table.commit(table.propose(seat, rng.choice(legal)["action"], table.at))
    assert texts > 500


def test_labels_and_plain_words_name_islands_and_roles_as_the_board_does() -> None:
    from meuterer.actions import parse_action
    from meuterer.engine import new_game
    from meuterer.views import view

    v = view(new_game(4), 2)
    assert label(v, parse_action("p2 sell hochland:ruby:1")) == "Sell 1 ruby on Hochland"
    assert label(v, parse_action("p3 discard cloth cloth ruby")) == "Discard cloth, cloth, ruby"
    assert label(v, parse_action("p2 role cabin_boy")) == "Take the role: cabin boy"
    assert plain("frosthoehle, kalte_klippe and the cabin_boy") == "Frosthöhle, Kalte Klippe and the cabin boy"
