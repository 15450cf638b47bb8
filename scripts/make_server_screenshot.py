"""Take docs/images/server.png and server-phone.png: a table of ``meuterer serve`` in
Debian's chromium, seat 0's page after a few moves against three bots, on a desktop window
and then on a phone-sized one (390 x 844), the things a move is about outlined.

    python scripts/make_server_screenshot.py
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from tests.browser import screenshot  # noqa: E402
from tests.test_server import _free_port, _start  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main() -> None:
    chromium = shutil.which("chromium")
    assert chromium, "apt-get install -y chromium"
    port = _free_port()
    database = ROOT / ".screenshot.db"
    database.unlink(missing_ok=True)
    server = _start(f"sqlite:///{database}", port)
    try:
        base = f"http://127.0.0.1:{port}"
        bots = {"1": "greedy", "2": "greedy", "3": "random"}
        opened = httpx.post(f"{base}/api/tables", json={"players": 4, "name": "ann", "bots": bots}).json()
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=chromium, args=FLAGS)
            page = browser.new_context(viewport={"width": 1150, "height": 820}, bypass_csp=True).new_page()
            page.goto(f"{base}/table/{opened['table']}#token={opened['token']}")
            page.wait_for_function("Number(document.body.dataset.at) > 0")
            for _ in range(6):
                at = int(page.evaluate("document.body.dataset.at"))
                page.locator("#actions button.action").first.click()
                page.wait_for_function(f"Number(document.body.dataset.at) > {at}")
            time.sleep(0.3)
            screenshot(page, ROOT / "docs" / "images" / "server.png")
            link = page.url
            page.context.close()
            phone = browser.new_context(
                viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, bypass_csp=True
            ).new_page()
            phone.goto(link)
            phone.wait_for_function("Number(document.body.dataset.at) > 0")
            time.sleep(0.3)
            screenshot(phone, ROOT / "docs" / "images" / "server-phone.png")
            browser.close()
    finally:
        server.kill()
        server.wait()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)
    print("wrote docs/images/server.png and docs/images/server-phone.png")


if __name__ == "__main__":
    main()
