"""The model in the page, for Explore: the static explorer's folder of one model, served by Streamlit.

Explore follows typing as the static explorer does (issue 27): the page runs the model itself (the torch
modules exported to ONNX, run by onnxruntime-web: ``viz_app/draw/site.py``, ``site.js``) and redraws the maps
from the trace view it computed, with no round trip to the server; the server learns the sentence once typing
rests, for the address, the other views and the exports (``chart.js``'s "typing" role).

The folder is ``python -m viz_app site --model NAME`` written into the user's cache (``folder()``: platformdirs'
user cache, ``~/.cache/disan/explorer`` on Linux; ``DISAN_EXPLORER_CACHE`` names another), never into the package
(site-packages may be read-only, and in a checkout Streamlit's file watcher warned of every file written). It is
served by Streamlit's route for a component's files (``component/<name>/``, ``_served``). The folders are built
once per checkpoint and page code, ahead of time: the default model's at install (``python -m viz_app prepare``,
run by ``bash scripts/app.sh``: ``build_now``; a folder found in the cache is ready at once, so that model's first
page follows typing), and ``build_ahead`` (called by ``app.py`` once the first page is
drawn) queues every bundled trained model, the page's own first, for one low-priority background thread, so a
model's first use finds its folder; no build starts before that first page has been drawn. A page drawn before its folder is ready works as before (the text goes to the server)
and moves that model to the head of the queue; the next rerun finds it. Where it cannot be built (random weights,
no onnxruntime-web in ``node_modules/``, a cache that cannot be written, no static serving), Explore simply does
not follow typing; the reason is kept for the caption.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs
import streamlit as st
import streamlit.components.v1 as components

from disan.config import ARCHS

from viz_app.draw import presets, settings, site
from viz_app.shell.plotly_js import plotly_js_served

#: A half-written folder (a build stopped with its server) this many seconds old is removed by the next build.
STALE_PART_S = 3600

#: Environment variable naming the cache folder of the explorer folders (tests give one of their own).
ENV = "DISAN_EXPLORER_CACHE"


def folder() -> Path:
    """Where the explorer folders are written: ``$DISAN_EXPLORER_CACHE``, else platformdirs' user cache."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    return Path(platformdirs.user_cache_dir("disan", appauthor=False)) / "explorer"


@st.cache_resource(show_spinner=False)
def _served() -> str | None:
    """The URL (relative to the page) the cache folder is served at, or None when it cannot be created.

    A component's folder (``declare_component(path=…)``) is the one folder outside the script's ``static/`` that
    Streamlit serves as files; nothing is drawn with the component."""
    root = folder()
    try:
        root.mkdir(parents=True, exist_ok=True)
        served = components.declare_component("explorer_folders", path=str(root))
    except OSError:
        return None
    return f"component/{served.name}"


@dataclass
class Build:
    """One model's folder: ``base`` (its URL, with a trailing slash) once written, or why it cannot be."""

    base: str | None = None
    problem: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    #: The folder, once written (``explorer_base`` checks it is still there).
    out: Path | None = None
    #: The queue's arguments, to build the folder again when it has gone.
    args: tuple = ()


def _build(root: Path, url: str, name: str, folder_name: str, build: Build) -> None:
    from disan.errors import DisanError

    out = root / folder_name
    try:
        if (out / site.MARKER).is_file():
            os.utime(out / site.MARKER)  # in use: another app's clean-up keeps it (below)
        else:
            root.mkdir(parents=True, exist_ok=True)
            # the app's limit, not a page's: the server refuses longer sentences once typing rests
            site.build_site(out, [name], max_tokens=settings.MAX_TOKENS)
            for old in root.iterdir():
                # this model's folders of earlier checkpoints or code (not disan-sst5-nodir's), unless an app (another
                # checkout or version sharing the user cache) built or opened it within STALE_PART_S: removing a
                # folder a running app serves left its page without its model (404s, typing silently off)
                if (old != out and re.fullmatch(re.escape(name) + r"-[0-9a-f]{12}", old.name)
                        and (old / site.MARKER).is_file()
                        and time.time() - (old / site.MARKER).stat().st_mtime > STALE_PART_S):
                    shutil.rmtree(old, ignore_errors=True)
                # half-written folders of a build whose server was stopped (site.build_site's ".NAME.*.part"),
                # old enough that no running build still writes them
                elif (re.fullmatch(r"\." + re.escape(name) + r"-[0-9a-f]{12}\..+\.part", old.name)
                      and time.time() - old.stat().st_mtime > STALE_PART_S):
                    shutil.rmtree(old, ignore_errors=True)
        build.out = out
        build.base = f"{url}/{folder_name}/"
    except (DisanError, OSError) as err:
        build.problem = str(err)
    finally:
        build.done.set()


def _code_fingerprint() -> str:
    """The page code, the site builder, its presets (site-data.js carries them, the pair presets per model), the
    exporter the folder was written with and the cutter of its graphs: a changed file builds a new folder."""
    browser = Path(__file__).resolve().parents[1] / "browser"
    # found, not imported (torch)
    exporters = [Path(importlib.util.find_spec(f"disan.{m}").origin) for m in ("onnx_export", "onnx_graphs")]
    digest = hashlib.sha256()
    # the sources, not dist/: its site bundle is checked to be built from them (bundles.py)
    sources = [p for p in sorted(browser.glob("*")) if p.is_file()]
    for path in sources + [Path(site.__file__), Path(presets.__file__)] + exporters:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


class _Queue:
    """The builds waiting for the one background thread, in order; a build a page waits for goes first."""

    def __init__(self) -> None:
        self.waiting: list[tuple[Build, tuple]] = []
        self.cond = threading.Condition()
        self.thread: threading.Thread | None = None

    def put(self, build: Build, args: tuple) -> None:
        with self.cond:
            self.waiting.append((build, args))
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="disan-explorer-builds", daemon=True)
                self.thread.start()

    def first(self, build: Build) -> None:
        with self.cond:
            for i, (queued, args) in enumerate(self.waiting):
                if queued is build:
                    self.waiting.insert(0, self.waiting.pop(i))
                    return

    def _run(self) -> None:
        # After the first page has been drawn, and a while more for the browser to paint it: the export imports
        # torch and runs the model, which hold Python's lock for long stretches (settings.WARM_UP_DELAY_S, as
        # loaders.warm_up). A page queues its own model's build before its maps are sent (explorer_base).
        _PAGE_DRAWN.wait(PAGE_WAIT_S)
        time.sleep(settings.WARM_UP_DELAY_S)
        try:  # a background job: on Linux this lowers this thread's priority only (its id is a task id)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        except (AttributeError, OSError):
            pass
        while True:
            with self.cond:
                if not self.waiting:  # done: no thread is left waiting (a later put starts another)
                    self.thread = None
                    self.cond.notify_all()
                    return
                build, args = self.waiting.pop(0)
            _build(*args, build)

    def join(self, timeout_s: float) -> bool:
        """Wait until every queued build is done (tests); False on timeout."""
        with self.cond:
            return self.cond.wait_for(lambda: self.thread is None, timeout_s)


_QUEUE = _Queue()

#: Set once a page of this process has been drawn (``build_ahead``, called by ``app.py`` after the page): no build
#: starts before it, so a first start that loads the model for its opening page (no stored page) does not share
#: the CPU and Python's lock with an export before its first map (``bench cold-start``).
_PAGE_DRAWN = threading.Event()
#: A build waits at most this long for that page (a page that raised still lets the builds run).
PAGE_WAIT_S = 60.0


def folder_name(name: str, source: str) -> str:
    """The cache folder of ``name``'s page copy: a SHA-256 of its checkpoint (``source``:
    ``view_store.source_id``), the page code and the app's token limit, so that a change of any builds a new one."""
    key = source + _code_fingerprint() + f"max_tokens={settings.MAX_TOKENS}"
    return f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def build_now(name: str, source: str) -> Build:
    """Write ``name``'s folder into ``folder()`` in this thread (``python -m viz_app prepare``, at install), with
    the clean-up of a queued build; a folder already there is kept. ``Build.out`` is the folder."""
    build = Build()
    _build(folder(), "", name, folder_name(name, source), build)
    return build


@st.cache_resource(max_entries=64, show_spinner=False)
def _started(name: str, source: str) -> Build:
    """Once per process, model and checkpoint (``source``: ``view_store.source_id``): the build, queued; a folder
    already in the cache (written at install by ``python -m viz_app prepare``, or by an earlier start) is ready at
    once, so that the model's first page follows typing."""
    name_of_folder = folder_name(name, source)
    build = Build()
    url = _served()
    if url is None:
        build.problem = f"the cache folder {str(folder())!r} cannot be created; set {ENV} to a folder you can write to."
        build.done.set()
        return build
    build.args = (folder(), url, name, name_of_folder)
    out = folder() / name_of_folder
    if (out / site.MARKER).is_file():
        try:
            os.utime(out / site.MARKER)  # in use: another app's clean-up keeps it (_build)
        except OSError:
            pass
        build.out, build.base = out, f"{url}/{name_of_folder}/"
        build.done.set()
    else:
        _QUEUE.put(build, build.args)
    return build


def _gone(build: Build) -> bool:
    """True when ``build``'s folder was written and has since been removed (by another app sharing the cache, or
    by hand); it is then queued again, first."""
    if build.out is None or (build.out / site.MARKER).is_file():
        return False
    with _QUEUE.cond:
        if not build.done.is_set():  # another session queued it again already
            return True
        build.done.clear()
        build.base = build.out = None
    _QUEUE.put(build, build.args)
    _QUEUE.first(build)
    return True


def _build_of(name: str) -> Build | None:
    if not settings.EXPLORE_TYPING or name in ARCHS or not plotly_js_served():  # off; random weights; no static
        return None
    from viz_app.draw import view_store
    from viz_app.shell import loaders

    cfg = loaders.model_config(name)
    return _started(name, view_store.source_id(loaders.checkpoint_of(name), cfg.arch, cfg.glove))


def explorer_base(name: str) -> str | None:
    """The URL of ``name``'s explorer folder when it is ready, else None (building, or not possible: a build
    still queued then goes first)."""
    build = _build_of(name)
    if build is not None and build.done.is_set() and _gone(build):
        return None
    if build is not None and not build.done.is_set():
        _QUEUE.first(build)
    return build.base if build is not None and build.done.is_set() else None


def build_ahead(first: str, names: list[str]) -> None:
    """Queue the folder of every trained model in ``names``, ``first`` first (once per process and model): a
    model's first use then follows typing. Cheap once queued or built (a folder already in the cache is kept).
    With ``settings.EXPLORER_AHEAD`` off, ``first`` only. A checkpoint that cannot be read is skipped: the
    sidebar names it when it is picked. Also lets the queued builds start: a page has been drawn."""
    from disan.errors import DisanError

    _PAGE_DRAWN.set()
    for name in [first] + [n for n in names if n != first and settings.EXPLORER_AHEAD]:
        try:
            _build_of(name)
        except DisanError:
            continue


def why_not(name: str) -> str | None:
    """Why ``name``'s folder could not be built (one sentence), or None (ready, building, or not wanted)."""
    build = _build_of(name)
    return build.problem if build is not None and build.done.is_set() else None


def building(name: str) -> bool:
    """True while ``name``'s folder is queued or being built (the page then says that typing waits for it)."""
    build = _build_of(name)
    return build is not None and not build.done.is_set()
