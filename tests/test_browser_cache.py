"""The model's in-page copy is built ahead, into the user's cache, never into the checkout (issue 58, item 3).

A real headless Chromium against ``streamlit run viz_app/app.py`` with ``VIZ_EXPLORE_TYPING=1`` and a cache
folder of the test's own (``DISAN_EXPLORER_CACHE``): the explorer folders of the page's model and of the models
queued after it are written there, in the background, a model opened after its folder was built ahead follows
typing on its first page, and after every view has been opened the checkout's ``git status`` and the files in
the package's folder are as before. Skips without chromium, Playwright, onnxruntime-web (``npm ci``), git or
the bundled checkpoints.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

import disan
from benchmarks.server import CHROMIUM_ARGS, free_port, streamlit_server
from tests.app_figures import TOKENS
from tests.test_site import ort_or_skip
from viz_app.draw import site
from viz_app.shell.catalog import VIEWS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FIRST, NEXT = "disan-sst5", "disan-cr"
TIMEOUT_MS = 180_000
BUILD_S = 300


def _git_status() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True, timeout=60).stdout


def _package_files() -> dict[str, int]:
    """Every file under viz_app/ (ignored ones too) but Python's byte code, with its modification time.

    plotly.js is left out: the app copies it into ``viz_app/static/`` for Streamlit's static serving (an ignored
    file, the same bytes each start; issue 58 asks this of the in-page model copy)."""
    package = ROOT / "viz_app"
    return {str(p.relative_to(package)): p.stat().st_mtime_ns for p in package.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.name != "plotly.min.js"}


def _built(cache: Path, name: str) -> bool:
    return any((d / site.MARKER).is_file() for d in cache.glob(f"{name}-" + "[0-9a-f]" * 12))


def _wait_built(cache: Path, name: str) -> None:
    deadline = time.monotonic() + BUILD_S
    while not _built(cache, name):
        assert time.monotonic() < deadline, f"{name}'s explorer folder was never built in {cache}"
        time.sleep(1)


def _settled(tab) -> None:
    tab.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                          ".getAttribute('data-test-script-state') !== 'running'")


def test_the_in_page_copy_is_built_ahead_into_the_user_cache_and_the_checkout_stays_clean(tmp_path):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    ort_or_skip()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a checkout")
    missing = {FIRST, NEXT} - set(disan.available())
    if missing:
        pytest.skip(f"{sorted(missing)} not in pretrained/")
    from playwright.sync_api import sync_playwright

    cache = tmp_path / "cache"
    status, files = _git_status(), _package_files()
    env = {"VIZ_EXPLORE_TYPING": "1", "VIZ_EXPLORER_AHEAD": "1", "DISAN_EXPLORER_CACHE": str(cache)}
    with streamlit_server(free_port(), log_path=tmp_path / "server.log", env=env) as (url, _), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
        tab.set_default_timeout(TIMEOUT_MS)
        tab.goto(f"{url}/?model={FIRST}")
        tab.wait_for_selector(".st-key-chart_overview [data-figure^='figure:'][data-drawn]")
        # Built ahead, in the background: the page's model first, then the others, into the cache.
        _wait_built(cache, FIRST)
        _wait_built(cache, NEXT)
        # A model opened after its folder was built ahead follows typing on its very first page (no reload).
        tab.goto(f"{url}/?model={NEXT}")
        tab.wait_for_selector(".st-key-chart_overview [data-figure^='figure:'][data-drawn]")
        tab.wait_for_function("() => { const t = document.querySelector('.viz-typing');"
                              " return t && t.textContent.includes('follow typing'); }")
        box = tab.locator(".st-key-sentence textarea")
        box.click()
        box.press("Control+a")
        box.press_sequentially("the zebra hums", delay=30)
        tab.wait_for_function(f"() => ({TOKENS})('chart_overview').includes('zebra')")
        # The server has it (700 ms after the last key) before the views are opened: what a click does to a send
        # still to come is tests/test_browser_typing.py's, not this test's.
        tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'the zebra hums'")
        # ... its files came from the cache's folder, served by Streamlit
        loaded = tab.evaluate("() => performance.getEntriesByType('resource').map(r => r.name)"
                              ".filter(n => n.includes('site-data.js'))")
        assert loaded and all("/component/viz_app.shell.explorer.explorer_folders/" in n for n in loaded), loaded
        # Every view, once.
        for spec in VIEWS:
            tab.locator("[data-testid=stSidebarNav] a", has_text=spec.title).first.click()
            tab.wait_for_function("(t) => (document.querySelector('[data-testid=stMain] h1') || {}).textContent"
                                  "?.startsWith(t)", arg=spec.title.split(" ")[0])
            _settled(tab)
            assert not tab.locator('[data-testid="stException"]').count(), spec.title
        browser.close()
    assert _git_status() == status
    after = _package_files()
    assert after == files, {k: after.get(k) for k in set(after) ^ set(files) | {k for k in files if after.get(k) != files[k]}}
