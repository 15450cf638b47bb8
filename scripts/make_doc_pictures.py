"""Make the pictures of the docs: SVG boards, a replay page and a screenshot of it.

    python scripts/make_doc_pictures.py          # writes docs/images/ and docs/examples/

The SVG boards and the replay page are made by the library and checked by the tests to be
what this script makes now. The screenshot needs Debian's chromium and Python playwright;
without them it is left as it is.
"""

from __future__ import annotations

import base64
import shutil
import sys
from pathlib import Path

import meuterer
from meuterer.record import Record, make_record
from meuterer.svg import board
from meuterer.viewer import replay_html

DOCS = Path(__file__).resolve().parent.parent / "docs"
NAMES = ("Ann", "Bob", "Cy", "Dee")
STEP = 59
"""The state shown: round 2, the mutiny, in the game below."""


def example_record() -> Record:
    """A four-player game of the pirate variant (seed 3)."""
    rules = meuterer.Rules(pirates=True)
    actions, _ = meuterer.random_game(seed=3, players=4, rules=rules)
    return make_record(meuterer.Game.replay(actions, players=4, rules=rules), names=NAMES)


def pictures() -> dict[str, str]:
    """The text files: path under docs/ -> content."""
    record = example_record()
    state = meuterer.Game.from_record(record).states[STEP]
    return {
        "images/board.svg": board(state, names=NAMES) + "\n",
        "images/board-p1.svg": board(state, perspective=1, names=NAMES) + "\n",
        "examples/replay.html": replay_html(record, title="Meuterer: an example game"),
        "examples/replay-p2.html": replay_html(record, perspective=2, title="Meuterer: the example game as Cy saw it"),
    }


def screenshot(page_path: Path, out: Path, step: int) -> bool:
    """A PNG of the replay page at ``step``; False when no browser is available."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return False
    executable = shutil.which("chromium")
    if executable is None:
        return False
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1150, "height": 800})
        page.goto(f"{page_path.as_uri()}#step={step}")
        page.wait_for_selector("body[data-ready=yes]")
        cdp = page.context.new_cdp_session(page)
        out.write_bytes(base64.b64decode(cdp.send("Page.captureScreenshot", {"format": "png"})["data"]))
        browser.close()
    return True


def main() -> int:
    for name, text in pictures().items():
        path = DOCS / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    shot = DOCS / "images" / "replay.png"
    if screenshot(DOCS / "examples" / "replay.html", shot, STEP):
        print(f"wrote {shot}")
    else:
        print("no chromium or playwright: the screenshot is left as it is", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
