"""The docs site: built with ``mkdocs build --strict``, complete, and working offline.

The site is built once into a temporary folder; its pages are checked as files (no raw
Sphinx roles on the API page, nothing loaded from the network) and in Debian's chromium
with every request outside the site refused (the Mermaid diagram renders, search answers,
the pictures and the example replay load). Skipped without the docs extra or a browser.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .browser import browser_page, png_size, screenshot

ROOT = Path(__file__).resolve().parent.parent


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_doc_pictures_are_what_the_library_draws_now() -> None:
    script = load(ROOT / "scripts" / "make_doc_pictures.py")
    for name, text in script.pictures().items():
        assert (ROOT / "docs" / name).read_text(encoding="utf-8") == text, (
            f"docs/{name} is out of date: run python scripts/make_doc_pictures.py"
        )


def test_every_cross_reference_in_the_docstrings_resolves() -> None:
    griffe = pytest.importorskip("griffe", reason="the docs extra (griffe) is not installed")
    extension = load(ROOT / "docs" / "griffe_doctests.py")
    pkg = griffe.load("meuterer", search_paths=[str(ROOT / "src")])
    names = extension._index(pkg)
    unresolved = []
    count = 0
    for obj in extension._walk(pkg):
        if obj.docstring is None:
            continue
        for match in extension.ROLE.finditer(obj.docstring.value):
            target = match.group(3)
            count += 1
            external = target.split(".")[0] not in ("meuterer", target) or hasattr(builtins, target)
            if extension.resolve(pkg, obj, target, names) is None and not external:
                unresolved.append(f"{obj.path}: {match.group(0)}")
    assert count > 50
    assert unresolved == []


def test_a_role_becomes_a_link_to_its_canonical_path() -> None:
    griffe = pytest.importorskip("griffe", reason="the docs extra (griffe) is not installed")
    extension = load(ROOT / "docs" / "griffe_doctests.py")
    pkg = griffe.load("meuterer", search_paths=[str(ROOT / "src")])
    names = extension._index(pkg)
    views = pkg["views"]
    assert extension.resolve(pkg, views, "sample_state", names) == "meuterer.views.sample.sample_state"
    assert extension.resolve(pkg, views, "meuterer.new_game", names) == "meuterer.engine.new_game"
    assert extension.resolve(pkg, views, "PlayerView.legal_actions", names) == (
        "meuterer.views.player_view.PlayerView.legal_actions"
    )
    assert extension.resolve(pkg, pkg["record"], "FormatError", names) == "meuterer.errors.FormatError"
    assert extension.resolve(pkg, views, "transitions.Machine", names) is None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"docs site: {module} is not installed (pip install '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    return out


NEW_PAGES = ("bots", "play", "simulate", "viewer", "record-viewer")


def test_the_api_page_links_instead_of_showing_sphinx_roles(site: Path) -> None:
    page = (site / "api.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", page)
    assert re.findall(r":(?:func|meth|class|exc|attr|data|const|obj|mod):`?\w", text) == []
    assert 'href="#meuterer.engine.current_player"' in page
    assert 'href="#meuterer.errors.SetupError"' in page
    assert len(re.findall(r'class="autorefs autorefs-internal"', page)) > 300
    assert re.findall(r'<span title="meuterer[^"]*"><code>', page) == []


def test_no_page_loads_anything_from_the_network(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert {f"{name}.html" for name in NEW_PAGES} <= {p.name for p in pages}
    for path in pages:
        html = path.read_text(encoding="utf-8")
        loads = re.findall(r'<(?:script|img|link|iframe)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]*)"', html)
        assert loads == [], f"{path.name} loads {loads}"
        assert "fonts.googleapis" not in html and "unpkg.com" not in html
        assert "SPEC section" not in html, f"{path.name} cites the specification, which readers do not have"


@pytest.mark.browser
def test_the_built_site_works_offline_in_chromium(site: Path, tmp_path: Path) -> None:
    refused: list[str] = []

    def only_the_site(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    with browser_page(width=1300, height=900) as page:
        page.route("**/*", only_the_site)
        # The state machine: Mermaid (bundled) replaces the diagram's text with a drawing.
        page.goto((site / "state-machine.html").as_uri())
        page.wait_for_function(
            "document.querySelector('div.mermaid') && document.querySelector('div.mermaid').offsetHeight > 500",
            timeout=30_000,
        )
        assert page.locator("pre.mermaid").count() == 0
        page.locator("div.mermaid").scroll_into_view_if_needed()
        shot = screenshot(page, tmp_path / "state-machine.png")
        assert png_size(shot) == (1300, 900)
        # Search, from file:// (Material's offline plugin and the bundled iframe-worker shim).
        page.goto((site / "index.html").as_uri())
        page.fill("input.md-search__input", "mutineer")
        page.wait_for_selector(".md-search-result__item", timeout=20_000)
        assert page.locator(".md-search-result__item").count() > 0
        # The new pages, their pictures, and the API page's links.
        for name in NEW_PAGES:
            page.goto((site / f"{name}.html").as_uri())
            assert page.locator("h1").count() == 1
            broken = page.evaluate("[...document.images].filter(i => !i.complete || !i.naturalWidth).map(i => i.src)")
            assert broken == [], broken
            screenshot(page, tmp_path / f"{name}.png", full_page=True)
        page.goto((site / "viewer.html").as_uri())
        sizes = page.evaluate("[...document.images].map(i => [i.src.split('/').pop(), i.naturalWidth])")
        assert ["board.svg", 900] in sizes and ["board-p1.svg", 900] in sizes  # the board's default width
        page.goto((site / "api.html").as_uri())
        page.locator("a.autorefs-internal[href='#meuterer.views.sample_state']").first.click()
        assert page.evaluate("location.hash") == "#meuterer.views.sample_state"
        assert page.evaluate("document.getElementById('meuterer.views.sample_state').getBoundingClientRect().top") < 200
        # The example replay page shipped with the docs.
        page.goto((site / "examples" / "replay.html").as_uri())
        page.wait_for_selector("body[data-ready=yes]", timeout=20_000)
        page.click("#last")
        assert page.inner_text("#position").startswith("action ")
        time.sleep(0.1)
    assert refused == []


def test_every_link_between_pages_finds_its_anchor(site: Path) -> None:
    pages = {path.relative_to(site).as_posix(): path.read_text(encoding="utf-8") for path in site.rglob("*.html")}
    anchors = {name: set(re.findall(r'\bid="([^"]+)"', html)) for name, html in pages.items()}
    broken = []
    checked = 0
    for name, html in pages.items():
        for target, anchor in re.findall(r'href="([\w./-]*\.html)?#([^"]+)"', html):
            page = (Path(name).parent / target).as_posix() if target else name
            page = page.removeprefix("./")
            checked += page in anchors
            if page in anchors and anchor not in anchors[page]:
                broken.append(f"{name} -> {target}#{anchor}")
    assert checked > 1000
    assert broken == []


def _edge_label_overlaps(page: Any) -> list[tuple[str, str]]:
    boxes = page.evaluate(
        "[...document.querySelectorAll('svg g.edgeLabel')].map(e => {const r = e.getBoundingClientRect();"
        " return [e.textContent.trim(), r.x, r.y, r.width, r.height]}).filter(b => b[3] > 0)"
    )
    overlaps = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if a[1] < b[1] + b[3] and b[1] < a[1] + a[3] and a[2] < b[2] + b[4] and b[2] < a[2] + a[4]:
                overlaps.append((a[0], b[0]))
    return overlaps


@pytest.mark.browser
def test_no_two_edge_labels_of_the_state_machine_overlap(tmp_path: Path) -> None:
    import html

    from meuterer.diagram import mermaid

    script = (ROOT / "docs" / "assets" / "javascripts" / "mermaid.min.js").as_uri()
    page_file = tmp_path / "diagram.html"
    page_file.write_text(
        f'<html><body><script src="{script}"></script><pre class="mermaid">{html.escape(mermaid())}</pre>'
        "<script>mermaid.initialize({startOnLoad: true});</script></body></html>",
        encoding="utf-8",
    )
    with browser_page(width=1600, height=1200) as page:
        page.goto(page_file.as_uri())
        page.wait_for_selector("svg g.edgeLabel", timeout=30_000)
        assert page.locator("svg g.edgeLabel").count() >= 30
        screenshot(page, tmp_path / "state-machine.png", full_page=True)
        assert _edge_label_overlaps(page) == []
