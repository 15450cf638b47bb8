"""The HTML replay viewer: the page's content, and clicking through it in a real browser."""

from __future__ import annotations

import base64
import gzip
import json
import re
from pathlib import Path

import attrs
import pytest

import meuterer
from meuterer import FormatError, MeutererError, Record, Rules
from meuterer.record import Result, make_record, record_data
from meuterer.redact import RedactedRecord, dumps_redacted, redact
from meuterer.svg import board
from meuterer.viewer import read_any_record, replay_html, write_html
from meuterer.views import view

from .browser import browser_page, png_size, screenshot

NAMES = ("Ann", "Bob", "Cy", "Dee")


@pytest.fixture(scope="module")
def game() -> meuterer.Game:
    rules = Rules(pirates=True)
    actions, _ = meuterer.random_game(seed=3, players=4, rules=rules)
    return meuterer.Game.replay(actions, players=4, rules=rules)


@pytest.fixture(scope="module")
def record(game: meuterer.Game) -> Record:
    return make_record(game, names=NAMES)


def boards_of(page: str) -> list[str]:
    packed = re.search(r'<script type="application/octet-stream" id="boards">([^<]*)</script>', page)
    assert packed is not None
    boards: list[str] = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    return boards


def action_items(page: str) -> list[str]:
    return re.findall(r"<li [^>]*><span class=n>\d+</span> ([^<]*)</li>", page)


def test_the_page_holds_a_board_per_step_and_every_action(game: meuterer.Game, record: Record) -> None:
    page = replay_html(record)
    assert boards_of(page) == [board(state, names=NAMES) for state in game.states]
    assert action_items(page) == [str(action) for action in game.actions]
    assert "Verdict:</b> valid: " in page and 'class="ok"' in page
    assert page.count("<option ") == record.rules.rounds_for(4)


def test_the_page_needs_no_network(record: Record) -> None:
    page = replay_html(record)
    outside = re.findall(r"(?i)\b(?:src|href)\s*=|@import|url\(|https?:|//[a-z0-9.-]+\.[a-z]{2,}/", page)
    assert outside == []
    assert all("http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "") for svg in boards_of(page))


def test_a_players_perspective_shows_his_views_and_hides_the_rest(game: meuterer.Game, record: Record) -> None:
    page = replay_html(record, perspective=2)
    assert boards_of(page) == [board(view(state, 2), names=NAMES) for state in game.states]
    shown = action_items(page)
    assert shown == [str(seen) for seen in redact(record, 2).actions]
    hidden = [str(a) for a in game.actions if str(a).startswith("draw p1 ")]
    assert hidden and not set(hidden) & set(shown) and "draw p1 ?" in shown
    assert "shown as p2 (Cy) saw it" in page
    # The same page from the redacted record itself, which the viewer opens too.
    redacted = dumps_redacted(redact(record, 2))
    from_redacted = replay_html(redacted)
    assert boards_of(from_redacted) == boards_of(page)
    assert "cannot be verified" in from_redacted and 'class="info"' in from_redacted


def test_an_invalid_record_is_shown_up_to_its_first_illegal_action(game: meuterer.Game, record: Record) -> None:
    actions = list(record.actions)
    bad = next(k for k, a in enumerate(actions) if str(a).startswith("p0 offer"))
    actions[bad] = meuterer.parse_action("p1 offer 9")
    tampered = attrs.evolve(record, actions=tuple(actions), digests=None, result=None)
    page = replay_html(tampered)
    assert 'class="bad"' in page and "Verdict:</b> invalid:" in page
    assert len(boards_of(page)) == bad + 1
    assert page.count("class=unplayed") == len(actions) - bad
    with pytest.raises(MeutererError, match="invalid record"):
        replay_html(tampered, perspective=1)
    wrong = attrs.evolve(record, result=Result((0, 0, 0, 0), (0, 1, 2, 3)))
    assert "Verdict:</b> invalid:" in replay_html(wrong)


def test_a_game_is_shown_as_its_record(game: meuterer.Game) -> None:
    assert replay_html(game) == replay_html(make_record(game))
    half = meuterer.Game.replay(game.actions[:50], players=4, rules=game.rules)
    page = replay_html(half)
    assert len(boards_of(page)) == 51 and "Verdict:</b> valid: 50 actions" in page


def test_sources_and_bad_input(tmp_path: Path, record: Record) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_data(record)), encoding="utf-8")
    assert read_any_record(path) == record
    out = write_html(path, tmp_path / "game.html")
    assert out.read_text(encoding="utf-8") == replay_html(record)
    redacted = read_any_record(dumps_redacted(redact(record, None)))
    assert isinstance(redacted, RedactedRecord) and redacted.viewer is None
    with pytest.raises(FormatError):
        replay_html('{"format": {"name": "chess", "version": 1}}')
    with pytest.raises(FormatError):
        replay_html("[1, 2")
    for seat in (4, -1, "1", True):
        with pytest.raises(MeutererError, match="perspective"):
            replay_html(record, perspective=seat)  # type: ignore[arg-type]
    with pytest.raises(MeutererError, match="redacted for 2"):
        replay_html(redact(record, 2), perspective=1)
    with pytest.raises(FormatError, match="cannot write"):
        write_html(record, tmp_path / "missing" / "game.html")


def test_names_are_escaped(game: meuterer.Game) -> None:
    record = make_record(game, names=("<b>Ann</b>", "Bob & co", "Cy", "</script>"))
    page = replay_html(record)
    assert page.count("</script>") == 3  # the three script elements only
    outside = re.sub(r"(?s)<script[^>]*>.*?</script>", "", page)
    assert "<b>Ann" not in outside and "&lt;b&gt;Ann&lt;/b&gt;" in outside and "Bob &amp; co" in outside


# In a real browser -------------------------------------------------------------------------


@pytest.mark.browser
def test_clicking_through_a_replay_in_chromium(tmp_path: Path, game: meuterer.Game, record: Record) -> None:
    path = write_html(record, tmp_path / "replay.html")
    last = len(game.actions)
    with browser_page() as page:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)

        def at() -> int:
            return int(page.evaluate("document.body.dataset.step"))

        def shown_title() -> str:
            return str(page.text_content("#board svg title"))

        def expected_title(k: int) -> str:
            title = re.search(r"<title>([^<]*)</title>", board(game.states[k], names=NAMES))
            assert title is not None
            return title.group(1)

        assert page.inner_text("#position") == f"action 0 of {last}"
        assert shown_title() == expected_title(0)
        assert "valid:" in page.inner_text("#verdict")
        page.click("#next")
        page.click("#next")
        assert at() == 2 and shown_title() == expected_title(2)
        assert page.inner_text("#actions li.current").endswith(str(game.actions[1]))
        assert page.inner_text("#now") == str(game.actions[1])
        page.click("#prev")
        assert at() == 1
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        assert at() == 2
        page.keyboard.press("End")
        assert at() == last and shown_title() == expected_title(last)
        final = page.inner_text("#scores tr.now")
        assert final.split()[0] == "final"
        assert [int(n) for n in final.split()[1:]] == list(game.states[-1].scores)
        assert page.locator("#scores tr").count() == 1 + record.rules.rounds_for(4)
        page.click("#first")
        assert at() == 0 and page.inner_text("#now") == "the start of the game"
        # The slider and the round selector.
        page.fill("#slider", "100")
        page.dispatch_event("#slider", "input")
        assert at() == 100 and shown_title() == expected_title(100)
        start3 = next(k for k, s in enumerate(game.states) if s.round == 3)
        page.select_option("#round", label="round 3")
        assert at() == start3 and "Round 3 of" in (page.text_content("#board") or "")
        rows = page.inner_text("#scores").splitlines()
        assert [row.split("\t")[0] for row in rows[1:]] == ["after round 1", "after round 2", "now"]
        end1 = next(k for k, s in enumerate(game.states) if s.round == 2) - 1
        assert [int(n) for n in rows[1].split("\t")[1:]] == list(game.states[end1].scores)
        # Clicking an action in the list goes to the state after it.
        page.click("#a7")
        assert at() == 7 and page.inner_text("#now") == str(game.actions[6])
        shot = screenshot(page, tmp_path / "replay.png")
        assert png_size(shot) == (1150, 820) and len(shot) > 20_000
        # The address opens the page at a step.
        page.goto(path.as_uri() + "#step=42")
        page.wait_for_selector("body[data-ready=yes]")
        assert at() == 42 and shown_title() == expected_title(42)


@pytest.mark.browser
def test_names_are_shown_as_written_in_chromium(tmp_path: Path, game: meuterer.Game) -> None:
    names = ("<b>Ann</b>", "Bob &amp; co", 'Cy "C"', "</script>")
    path = write_html(make_record(game, names=names), tmp_path / "names.html")
    with browser_page() as page:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
        header = page.inner_text("#scores tr").split("\t")[1:]
        assert header == [f"p{seat} {name}" for seat, name in enumerate(names)]
        assert page.locator("#scores b").count() == 0
        assert page.title() == "Meuterer: " + ", ".join(names)


@pytest.mark.browser
def test_a_redacted_replay_in_chromium(tmp_path: Path, game: meuterer.Game, record: Record) -> None:
    path = write_html(dumps_redacted(redact(record, 1)), tmp_path / "redacted.html")
    with browser_page() as page:
        page.goto(path.as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
        assert page.inner_text("#side") == "p1 (Bob)"
        assert "cannot be verified" in page.inner_text("#verdict")
        chosen = next(k for k, s in enumerate(game.states) if len(s.role_order) >= 2 and s.step.value == "play")
        other = next(seat for seat in game.states[chosen].role_order if seat != 1)
        page.fill("#slider", str(chosen))
        page.dispatch_event("#slider", "input")
        seat = page.locator(f"#board g[data-seat='{other}']")
        assert "role ?" in (seat.text_content() or "")
        shown = page.text_content("#board") or ""
        assert "p1 Bob" in shown and "(you)" in shown
        screenshot(page, tmp_path / "redacted.png")
