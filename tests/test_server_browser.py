"""A whole game at a real ``meuterer serve`` played by four browser contexts in Debian's
chromium, clicking the board's cards, islands and roles (the action buttons for the moves
about none of them), with a reload mid-game and a spectator."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from meuterer.rules import Rules
from meuterer.server.menu import offered
from tests.browser import chromium_path
from tests.test_server import _free_port, _start
from tests.test_server_clicks import _click_move, _legal

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


SMALLEST_BOARD_TEXT = """Math.min(...Array.from(document.querySelectorAll('#board svg text'),
    (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
"""The rendered height in CSS pixels of the board's smallest text: its font size in the
picture's units times the picture's scale on the page."""


def _bot_options(page: Any, seat: int) -> list[str]:
    """The bots the lobby offers for ``seat``: its select's options but the open seat."""
    texts: list[str] = page.eval_on_selector_all(
        f"#seat-{seat} option[value]:not([value=''])", "os => os.map(o => o.text)"
    )
    return texts


def _bot_specs(page: Any, seat: int) -> list[str]:
    specs: list[str] = page.eval_on_selector_all(f"#seat-{seat} option", "os => os.map(o => o.value)")
    return specs


def _at(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.at || '-1'"))


@pytest.mark.browser  # about 30 s
def test_four_browsers_play_a_whole_game_with_a_reload_a_spectator_and_a_rematch(tmp_path: Path) -> None:
    executable = chromium_path()
    import httpx
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = _start(f"sqlite:///{tmp_path / 'browser.db'}", port)
    base = f"http://127.0.0.1:{port}"
    try:
        opened = httpx.post(
            f"{base}/api/tables",
            json={"players": 4, "rules": {"rounds": 2}, "name": "ann", "key": "browser-key-of-seat-0"},
        ).json()
        table = opened["table"]
        tokens = [opened["token"]]
        keys = [f"browser-key-of-seat-{seat}" for seat in range(4)]  # as each browser's lobby would send
        for seat, name in ((1, "bob"), (2, "<i>cy</i>"), (3, "dee")):
            body = {"seat": seat, "name": name, "key": keys[seat]}
            tokens.append(httpx.post(f"{base}/api/tables/{table}/join", json=body).json()["token"])
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, args=FLAGS)
            errors: list[str] = []
            try:
                pages = []
                for token, key in zip([*tokens, None], [*keys, "browser-key-of-the-spectator"], strict=True):
                    # a phone-sized window; bypass_csp lets playwright evaluate its wait conditions
                    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True)
                    context.add_init_script(f"localStorage.setItem('meuterer-key', '{key}')")
                    page = context.new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    page.goto(f"{base}/table/{table}" + (f"#token={token}" if token else ""))
                    pages.append(page)
                players, spectator = pages[:4], pages[4]
                for page in pages:
                    page.wait_for_function("Number(document.body.dataset.at) > 0")
                assert spectator.inner_text("#who") == "Watching"
                assert spectator.locator("#actions button").count() == 0
                assert players[2].inner_text("#who") == "You are p2 (<i>cy</i>)"  # escaped: shown as text
                # a phone (390 px wide): the board's smallest text renders at least 11 px high
                smallest = players[0].evaluate(SMALLEST_BOARD_TEXT)
                assert smallest >= 11, smallest
                # the turn alert: the tab's title of the player to act, and only his, says so
                to_act = players[0].evaluate("document.getElementById('status').textContent")
                turn = next(p for p in players if p.locator("#actions button.action").count())
                turn.wait_for_function("document.title.includes('Your turn')")
                assert sum("Your turn" in p.title() for p in players) == 1, to_act
                assert turn.inner_text("#clock").startswith("your time: ")
                # chat: a line with markup shows as text on every page
                players[1].fill("#chat-text", "<b>hi</b> all")
                players[1].click("#chat-send")
                for page in pages:
                    page.wait_for_function("document.getElementById('chat').textContent.includes('hi')")
                    assert page.inner_text("#chat") == "p1 bob: <b>hi</b> all" and page.locator("#chat b").count() == 0
                rng = random.Random(5)
                clicks = confirmed = board_clicks = 0
                reloaded = returned = False
                while players[0].evaluate("document.body.dataset.over") != "true":
                    at = max(_at(page) for page in players)
                    mover = next(
                        (p for p in players if _at(p) == at and p.locator("#actions button.action").count()), None
                    )
                    if mover is None:
                        players[0].wait_for_timeout(50)
                        continue
                    choice = rng.choice(_legal(mover))
                    if choice["about"]:  # a move about a card, an island or a role: clicked on the board
                        board_clicks += _click_move(mover, choice) > 0
                    else:
                        mover.click(f'#actions button.action[data-action="{choice["action"]}"]')
                    if mover.is_visible("#confirm"):  # a pass with cards, a role: the page asks first
                        mover.click("#confirm-yes")
                        confirmed += 1
                    mover.wait_for_function(f"Number(document.body.dataset.at) > {at}")
                    clicks += 1
                    if clicks == 12 and not reloaded:
                        players[1].reload()
                        players[1].wait_for_function(f"Number(document.body.dataset.at) >= {at}")
                        reloaded = True
                    if clicks == 20 and not returned:  # dee leaves (a bot plays for her) and comes back
                        dee = players[3]
                        dee.click("#leave")
                        dee.click("#confirm-yes")
                        dee.wait_for_url(base + "/")
                        dee.wait_for_selector("#back button.back")  # the browser remembers her seat
                        dee.click("#back button.back")
                        dee.wait_for_url(f"**/table/{table}#token=*")  # she joins her kept seat again
                        dee.wait_for_function(f"Number(document.body.dataset.at) >= {at}")
                        assert dee.inner_text("#who").startswith("You are p3 (dee")
                        assert "came back" in dee.inner_text("#log")  # the account says so
                        returned = True
                for page in pages:
                    page.wait_for_function("document.body.dataset.over === 'true'")
                final = _at(players[0])
                assert all(_at(page) == final for page in pages)
                status = players[0].inner_text("#status")
                assert status.startswith("Game over: won by") and status == spectator.inner_text("#status")
                assert clicks > 20 and reloaded and returned and confirmed > 0 and board_clicks > 5
                assert "Scores" in players[3].inner_text("body")
                assert players[0].locator("#log p").count() > 20
                players[2].click("#rematch")  # the rematch moves every player's page to his seat there
                for seat, page in enumerate(players):
                    page.wait_for_url(lambda url: table not in url and "#token=" in url)
                    page.wait_for_function("document.getElementById('who').textContent.startsWith('You are')")
                    assert page.inner_text("#who").startswith(f"You are p{seat} (")
                rematch = players[0].url.split("/table/")[1].split("#")[0]
                spectator.wait_for_selector("#rematch-link:not([hidden])")
                assert spectator.get_attribute("#rematch-link", "href") == f"/table/{rematch}"
                # the others are asked whether they play again: two say yes, dee says no thanks
                assert players[2].locator("#asked").is_hidden()  # he asked: that was his yes
                for page in players[:2]:
                    page.click("#accept")
                    page.wait_for_selector("#asked", state="hidden")
                players[3].wait_for_selector("#asked:not([hidden])")
                players[3].click("#decline")
                players[3].wait_for_url(f"{base}/")
                players[0].wait_for_function("document.getElementById('status').textContent.includes('1 open seat')")
                dee = players[3]  # dee's lobby: her games, the rematch she declined forgotten
                dee.wait_for_selector("#mine:not([hidden])")
                assert dee.locator("#back button.back").count() == 0
                assert table in dee.inner_html("#games") and rematch not in dee.inner_html("#games")
                assert dee.get_attribute("#games a", "href") == f"/api/tables/{table}/replay"
                spectator.goto(base + "/")  # her seat is open to anyone: the spectator sits down
                spectator.fill("#name", "eve")
                spectator.click("button.join[data-seat='3']")
                spectator.wait_for_url(f"**/table/{rematch}#token=*")
                for page in [*players[:3], spectator]:
                    page.wait_for_function("Number(document.body.dataset.at) > 0")
                ann = players[0]  # back in the lobby, ann finds her seat at the rematch and her games
                ann.goto(base + "/")
                ann.wait_for_selector("#back button.back")
                assert "Back to your seat" in ann.inner_text("#mine")
                assert ann.locator("#games li").count() == 2
                html = ann.content()
                for token in tokens:  # the seats' tokens are in no page's text or markup
                    assert token not in html
                assert not any(t in ann.content() for t in ann.evaluate("mySeats().map((e) => e.token)"))
                ann.click("#back button.back")
                ann.wait_for_url(f"**/table/{rematch}#token=*")
                ann.wait_for_function("document.getElementById('who').textContent === 'You are p0 (ann)'")
            finally:
                browser.close()
            assert not errors, errors
        record = httpx.get(f"{base}/api/tables/{table}/record").json()
        assert record["players"] == ["ann", "bob", "<i>cy</i>", "dee"] and len(record["actions"]) == final
    finally:
        server.kill()
        server.wait()


@pytest.mark.browser  # about 10 s
def test_the_lobby_opens_a_private_table_and_a_friend_joins_by_its_invite_link(tmp_path: Path) -> None:
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = _start(f"sqlite:///{tmp_path / 'lobby.db'}", port)
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, args=FLAGS)
            errors: list[str] = []
            try:
                pages = []
                for _ in range(2):
                    page = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True).new_page()
                    page.on("pageerror", lambda error: errors.append(str(error)))
                    page.goto(base + "/")
                    pages.append(page)
                ann, bob = pages
                ann.fill("#name", "ann")
                ann.fill("#title", "Friday <b>night</b>")
                ann.check("#private")
                ann.wait_for_selector("#seat-3")  # 4 players: the menu's levels, by name
                assert _bot_options(ann, 1) == [c.label for c in offered(4, Rules())]
                assert "policy" in _bot_specs(ann, 1)
                ann.select_option("#seat-1", label="easy bot (policy)")
                ann.select_option("#players", "3")  # the menu again, for 3 players: no policy
                ann.wait_for_selector("#seats[data-players='3']")
                assert _bot_options(ann, 1) == [c.label for c in offered(3, Rules())]
                assert "policy" not in _bot_specs(ann, 1) + _bot_specs(ann, 2)
                assert ann.input_value("#seat-1") == "greedy"  # the seat keeps its level
                assert "medium bot (ismcts:10): searches" in ann.inner_text("#bot-menu")
                ann.select_option("#seat-1", "")
                assert ann.input_value("#seat-2") == ""  # a new seat is open unless a bot is chosen for it
                ann.select_option("#seat-2", "random")
                ann.check("#pirates")
                ann.wait_for_function("document.getElementById('seat-2').value === 'random'")
                ann.click("#create-button")
                ann.wait_for_url("**/table/**")
                assert "#token=" in ann.url
                ann.wait_for_function("document.getElementById('status').textContent.startsWith('Waiting for players')")
                ann.wait_for_selector("#invite:not([hidden])")
                link = ann.input_value("#invite-link")
                assert ann.inner_text("#title") == "Friday <b>night</b>"  # shown as text
                ann.click("#copy")
                ann.wait_for_function("document.getElementById('notice').textContent !== ''")
                bob.reload()  # a private table is not listed
                bob.wait_for_function("document.getElementById('seats').children.length > 0")
                assert "Friday" not in bob.inner_text("#tables") and bob.locator("button.join").count() == 0
                bob.goto(link)  # the invite link: bob picks the free seat
                bob.wait_for_selector("#invited:not([hidden])")
                assert bob.inner_text("#invited-title").startswith("Friday <b>night</b>, host ann")
                bob.fill("#name", "bob")
                bob.click("#invited-seats button.join")
                bob.wait_for_url("**/table/**")
                for page in pages:
                    page.wait_for_function("Number(document.body.dataset.at) > 0")
                    page.wait_for_function(
                        "!document.getElementById('status').textContent.startsWith('Waiting for players')"
                    )
                assert ann.inner_text("#who") == "You are p0 (ann)" and bob.inner_text("#who") == "You are p1 (bob)"
            finally:
                browser.close()
            assert not errors, errors
    finally:
        server.kill()
        server.wait()


ALERT_PROBES = """
window.__hidden = false;  // the test hides the tab: document.hidden reads this
Object.defineProperty(Document.prototype, "hidden", {configurable: true, get() { return window.__hidden; }});
window.__notes = [];
if (window.Notification) {
  const Real = window.Notification;
  class Recorded extends Real {
    constructor(title, options) { window.__notes.push(title); super(title, options); }
  }
  Object.defineProperty(Recorded, "permission", {get: () => Real.permission});
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
}
window.__tones = 0;
const made = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () { window.__tones += 1; return made.call(this); };
"""
"""Counts the tones played and the notifications shown, and lets the test hide the tab."""


@pytest.mark.browser  # about 10 s
def test_turn_alerts_a_sound_and_a_notification_while_hidden_chosen_and_remembered(tmp_path: Path) -> None:
    executable = chromium_path()
    import httpx
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = _start(f"sqlite:///{tmp_path / 'alerts.db'}", port)
    base = f"http://127.0.0.1:{port}"
    try:
        body = {"players": 3, "name": "ann", "title": "Friday", "bots": {"1": "greedy", "2": "greedy"}}
        opened = httpx.post(f"{base}/api/tables", json=body).json()
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=executable, args=FLAGS)
            errors: list[str] = []
            try:
                context = browser.new_context(bypass_csp=True, permissions=["notifications"])
                context.add_init_script(ALERT_PROBES)
                page = context.new_page()
                page.on("pageerror", lambda error: errors.append(str(error)))
                page.goto(f"{base}/table/{opened['table']}#token={opened['token']}")
                page.wait_for_function("document.title.includes('Your turn')")  # the title alert still works
                assert page.evaluate("window.__tones") == 0 and not page.is_checked("#alert-sound")  # opt-in
                page.check("#alert-sound")
                page.check("#alert-notify")  # asks the browser, which the context granted
                page.wait_for_function("JSON.parse(localStorage.getItem('meuterer-alerts') || '{}').notify === true")
                page.reload()  # remembered: the next decision plays the sound
                page.wait_for_function("document.title.includes('Your turn')")
                assert page.is_checked("#alert-sound") and page.is_checked("#alert-notify")
                page.wait_for_function("window.__tones === 2")  # two short tones
                assert page.evaluate("window.__notes") == []  # the tab is shown: no notification
                page.evaluate("window.__hidden = true")
                at = _at(page)
                page.locator("#actions button.action").first.click()
                page.wait_for_function(f"Number(document.body.dataset.at) > {at} && window.__notes.length > 0")
                assert page.evaluate("window.__notes") == ["Your turn at Friday"]
                assert page.evaluate("window.__tones") == 4
            finally:
                browser.close()
            assert not errors, errors
    finally:
        server.kill()
        server.wait()
