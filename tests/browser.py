"""A real browser for the tests: Debian's chromium driven by Python playwright.

``browser_page()`` skips the calling test, with the reason, when playwright or a chromium
executable is missing. Playwright's own browser builds are never used (they cannot be
downloaded here): the executable is whatever ``chromium`` is on the PATH.
"""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def chromium_path() -> str:
    """The chromium executable, or skip the test saying what is missing."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("browser test: Python playwright is not installed (pip install playwright)")
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("browser test: no chromium executable on the PATH (apt-get install -y chromium)")


@contextmanager
def browser_page(width: int = 1150, height: int = 820) -> Iterator[Any]:
    """A fresh page in headless chromium; page errors fail the test when the page closes."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page
            assert not errors, errors
        finally:
            browser.close()


def screenshot(page: Any, path: Path, full_page: bool = False) -> bytes:
    """A PNG of the page, written to ``path``. Taken over the DevTools protocol: playwright's
    own ``page.screenshot`` waits forever on Debian's newer chromium."""
    cdp = page.context.new_cdp_session(page)
    options: dict[str, object] = {"format": "png"}
    if full_page:
        size = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
        options.update(
            captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        )
    data = base64.b64decode(cdp.send("Page.captureScreenshot", options)["data"])
    path.write_bytes(data)
    return data


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG image."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
