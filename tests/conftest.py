"""Shared fixtures: tiny seeded models that need no checkpoint and no GloVe download."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
import torch

from disan.config import NLI_LABELS, ModelConfig
from disan.model import SentenceModel
from disan.vocab import Glove, build_vocab

ROOT = Path(__file__).resolve().parents[1]

#: The words of the fixture data's sentences (tests/fixture_data.py) that the training tests' GloVe file covers.
TRAIN_WORDS = ["the", "movie", "is", "good", "bad", "a", "great", "awful", "film", ".", ",", "not", "and", "it", "'s"]


@pytest.fixture
def glove_txt(tmp_path):
    """A seeded 8-d GloVe text file of ``TRAIN_WORDS``, as ``train --glove`` reads one."""
    rng = np.random.default_rng(0)
    path = tmp_path / "vectors.8d.txt"
    path.write_text("".join(f"{w} {' '.join(f'{v:.4f}' for v in rng.standard_normal(8))}\n" for w in TRAIN_WORDS))
    return str(path)


#: Set to 1 to let the browser and load tests rewrite their figures in docs/ (screenshots, load table).
REFRESH_DOCS = "DISAN_REFRESH_DOCS"


def docs_out(*parts: str) -> Path:
    """Where a test writes a figure the docs show: docs/ under DISAN_REFRESH_DOCS=1, else a temporary
    folder, so an ordinary test run leaves the tracked files as they are."""
    base = Path(__file__).resolve().parents[1] / "docs" if os.environ.get(REFRESH_DOCS) == "1" else Path(tempfile.mkdtemp(prefix="disan-docs-"))
    return base.joinpath(*parts)


WORDS = ("the", "a", "movie", "is", "good", "bad", "dog", "dogs", "man", "tea", ".", ",", "n't", "do", "glass")


#: The app's stored opening pages (``viz_app/draw/view_store.py``) go to a folder of the test run's own, never
#: to the user's ``~/.cache``; servers started by tests inherit it.
os.environ["DISAN_VIEW_CACHE"] = tempfile.mkdtemp(prefix="disan-views-")
#: The GloVe package's word index that loading a bundled model keeps (disan/glove_index.py, ``DISAN_GLOVE_CACHE``)
#: goes to a folder of this test session's own, removed at its end, never to the user's ``~/.cache/disan/glove``;
#: servers and subprocesses started by tests inherit it (tests/test_glove_index.py checks both).
GLOVE_CACHE = tempfile.mkdtemp(prefix="disan-glove-")
os.environ["DISAN_GLOVE_CACHE"] = GLOVE_CACHE
atexit.register(shutil.rmtree, GLOVE_CACHE, True)
#: Explore's in-page model is exported (seconds per model, into the user's cache) only where a test asks
#: for it (tests/test_browser_typing.py); servers started by tests inherit this.
os.environ.setdefault("VIZ_EXPLORE_TYPING", "0")
#: ... into a folder of the tests' own, not the user's cache, kept between runs (its folders are named by checkpoint
#: and page code, and written all-or-nothing), and not for every bundled model ahead unless a test asks
#: (tests/test_browser_cache.py, with a folder of its own).
os.environ.setdefault("DISAN_EXPLORER_CACHE", os.path.join(tempfile.gettempdir(), "disan-test-explorer"))
os.environ.setdefault("VIZ_EXPLORER_AHEAD", "0")


@pytest.fixture(scope="session", autouse=True)
def browser_bundles() -> None:
    """The page code's bundles rebuilt once per session when an edited module left them stale (``npm ci`` builds
    them on a clean clone: scripts/build_browser.mjs); without node, the ones there are used as they are."""
    from viz_app.draw import bundles

    manifest = bundles.DIST / "sources.json"
    fresh = manifest.is_file() and f'"{bundles.source_digest()}"' in manifest.read_text(encoding="utf-8")
    node = shutil.which("node")
    if not fresh and node is not None:
        subprocess.run([node, str(ROOT / "scripts" / "build_browser.mjs")], check=True, capture_output=True,
                       timeout=120)


@pytest.fixture(autouse=True)
def view_store_folder(tmp_path_factory, monkeypatch):
    """Each test starts with an empty store of opening pages, so no test draws a page another one stored."""
    monkeypatch.setenv("DISAN_VIEW_CACHE", str(tmp_path_factory.mktemp("views")))


@pytest.fixture(scope="session")
def tiny_glove() -> Glove:
    rng = np.random.default_rng(0)
    return Glove(WORDS, rng.standard_normal((len(WORDS), 8)).astype(np.float32), source="test")


def make_tiny(arch: str, glove: Glove, pair: bool = False, **kw) -> SentenceModel:
    cfg = ModelConfig(
        arch=arch,
        d_in=glove.dim,
        d_h=10,
        heads=2,
        head_hidden=6,
        pair=pair,
        labels=NLI_LABELS if pair else ("neg", "pos"),
        finetune_embeddings=arch == "disan",
        **kw,
    )
    torch.manual_seed(0)
    vocab = build_vocab([["the", "movie", "is", "good", "bad", "."]])
    return SentenceModel(cfg, vocab, glove, f"tiny-{arch}", random_weights=True).eval()


@pytest.fixture(params=["disan", "dsa"])
def tiny_model(request, tiny_glove) -> SentenceModel:
    return make_tiny(request.param, tiny_glove)


@contextmanager
def offline_page(*scripts: dict):
    """A blank headless-Chromium page that may fetch nothing, holding the given script tags
    (Playwright's ``add_script_tag`` arguments: ``{"path": ...}`` or ``{"content": ...}``).
    Skips the calling test when chromium or Playwright is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: route.abort())  # nothing may be fetched: every script is inline
            page.set_content("<!doctype html><body></body>")
            for script in scripts:
                page.add_script_tag(**script)
            yield page
        finally:
            browser.close()


#: Flags every browser test launches Debian's chromium with (no background requests: the network is closed).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="module")
def chromium():
    """One headless Chromium per test module; skips the module's browser tests when it is missing."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def guarded_page(browser, allowed, timeout_ms: int, width: int = 1400):
    """A new context and page that may load only URLs ``allowed(url)`` accepts; every other request is aborted
    and listed. Returns (context, page, blocked URLs, page errors: exceptions, console errors, dialogs)."""
    context = browser.new_context(viewport={"width": width, "height": 1000})
    blocked: list[str] = []
    errors: list[str] = []

    def guard(route):
        if allowed(route.request.url):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.on("dialog", lambda dialog: (errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))
    page.set_default_timeout(timeout_ms)
    return context, page, blocked, errors


# ------------------------------------------------------------------ built once per test session


#: Every bundled checkpoint; the one static site the tests share holds them all (issue 18: every bundled model works).
BUNDLED = tuple(sorted(p.stem for p in (ROOT / "pretrained").glob("*.safetensors")))


@pytest.fixture(scope="session")
def static_site(tmp_path_factory):
    """The static explorer (``python -m viz_app site``) of every bundled model, built once per test session: each
    module that opens it reads the same folder and writes nothing into it (a test that edits a site copies it).
    Skips where onnxruntime-web is missing (npm ci installs it)."""
    from disan.errors import DisanError
    from viz_app.draw import site

    try:
        site.ort_dir()
    except DisanError as err:
        pytest.skip(f"onnxruntime-web is not installed: {err}")
    return site.build_site(tmp_path_factory.mktemp("site") / "explorer", list(BUNDLED))


#: Where the app's browser pages may load from: the local server, and what the page makes itself.
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")
#: Playwright's wait for the app's pages (a first page loads its model).
APP_TIMEOUT_MS = 90_000


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def app_index_cache(tmp_path_factory) -> Path:
    """The session server's ``DISAN_INDEX_CACHE``: a test builds the corpus index it searches into it first."""
    return tmp_path_factory.mktemp("index-cache")


@pytest.fixture(scope="session")
def app_server_log(tmp_path_factory) -> Path:
    """Where the session's app server writes its output, for a test that says what the server said."""
    return tmp_path_factory.mktemp("streamlit") / "server.log"


@pytest.fixture(scope="session")
def server(app_server_log, app_index_cache):
    """One ``streamlit run viz_app/app.py`` on 127.0.0.1 for every browser test of the session that needs no
    server settings of its own (its base URL). Skips without chromium or Playwright."""
    from benchmarks.server import free_port, streamlit_server

    if chromium_path() is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    env = {"DISAN_INDEX_CACHE": str(app_index_cache)}
    with streamlit_server(free_port(), log_path=app_server_log, env=env) as (url, _):
        yield url


def local_page(browser, width: int = 1500, height: int = 1100, timeout_ms: int = APP_TIMEOUT_MS):
    """A new context and page of ``browser`` that may load only ``LOCAL`` addresses; every other request is
    aborted and listed. Returns (context, page, outside requests, page errors)."""
    outside: list[str] = []
    page_errors: list[str] = []

    def only_local(route):
        if route.request.url.startswith(LOCAL):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context = browser.new_context(viewport={"width": width, "height": height})
    context.route("**/*", only_local)
    page = context.new_page()
    page.on("pageerror", lambda err: page_errors.append(str(err)))
    page.set_default_timeout(timeout_ms)
    return context, page, outside, page_errors


@pytest.fixture(scope="module")
def browser_page(server, chromium):
    """One page of the module's Chromium on the session's app server, kept across the module's tests;
    yields (page, outside requests, page errors)."""
    context, page, outside, page_errors = local_page(chromium)
    try:
        yield page, outside, page_errors
    finally:
        context.close()
