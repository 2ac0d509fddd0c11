"""The model in the page, for Explore: the static explorer's folder of one model, served by Streamlit.

Explore follows typing as the static explorer does (issue 27): the page runs the model itself (the torch
modules exported to ONNX, run by onnxruntime-web: ``viz_app/draw/site.py``, ``site.js``) and redraws the maps
from the trace view it computed, with no round trip to the server; the server learns the sentence once typing
rests, for the address, the other views and the exports (``chart.js``'s "typing" role).

The folder is ``python -m viz_app site --model NAME`` written into ``viz_app/static/explorer/`` (served at
``app/static/explorer/``), built once per checkpoint and page code in a background thread: a page drawn before it is ready
works as before (Ctrl+Enter submits), and the next rerun finds it. Where it cannot be built (random weights,
no onnxruntime-web in ``node_modules/``, a folder that cannot be written, no static serving), Explore simply
does not follow typing; the reason is kept for the caption.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from disan.config import ARCHS

from viz_app.draw import presets, settings, site
from viz_app.shell.plotly_js import STATIC_DIR, plotly_js_served

FOLDER = STATIC_DIR / "explorer"
URL = "app/static/explorer"


@dataclass
class Build:
    """One model's folder: ``base`` (its URL, with a trailing slash) once written, or why it cannot be."""

    base: str | None = None
    problem: str | None = None
    done: threading.Event = field(default_factory=threading.Event)


def _build(name: str, folder_name: str, build: Build) -> None:
    from disan.errors import DisanError

    out = FOLDER / folder_name
    try:
        if not (out / site.MARKER).is_file():
            FOLDER.mkdir(parents=True, exist_ok=True)
            site.build_site(out, [name])
            for old in FOLDER.iterdir():  # this model's folders of earlier checkpoints or code (not disan-sst5-nodir's)
                if old != out and re.fullmatch(re.escape(name) + r"-[0-9a-f]{12}", old.name) and (old / site.MARKER).is_file():
                    shutil.rmtree(old, ignore_errors=True)
        build.base = f"{URL}/{folder_name}/"
    except (DisanError, OSError) as err:
        build.problem = str(err)
    finally:
        build.done.set()


def _code_fingerprint() -> str:
    """The page code, the site builder, its presets (site-data.js carries them, the pair presets per model) and
    the exporter the folder was written with: a changed file builds a new folder."""
    browser = Path(__file__).resolve().parents[1] / "browser"
    exporter = Path(importlib.util.find_spec("disan.onnx_export").origin)  # found, not imported (torch)
    digest = hashlib.sha256()
    # the sources, not dist/: its site bundle is checked to be built from them (bundles.py)
    sources = [p for p in sorted(browser.glob("*")) if p.is_file()]
    for path in sources + [Path(site.__file__), Path(presets.__file__), exporter]:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


@st.cache_resource(max_entries=32, show_spinner=False)
def _started(name: str, source: str) -> Build:
    """Once per process, model and checkpoint (``source``: ``view_store.source_id``): the build, started."""
    key = source + _code_fingerprint()
    folder_name = f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    build = Build()
    threading.Thread(target=_build, args=(name, folder_name, build), name=f"disan-explorer-{name}", daemon=True).start()
    return build


def _build_of(name: str) -> Build | None:
    if not settings.EXPLORE_TYPING or name in ARCHS or not plotly_js_served():  # off; random weights; no static
        return None
    from viz_app.draw import view_store
    from viz_app.shell import loaders

    cfg = loaders.model_config(name)
    return _started(name, view_store.source_id(loaders.checkpoint_of(name), cfg.arch, cfg.glove))


def explorer_base(name: str) -> str | None:
    """The URL of ``name``'s explorer folder when it is ready, else None (building, or not possible)."""
    build = _build_of(name)
    return build.base if build is not None and build.done.is_set() else None


def why_not(name: str) -> str | None:
    """Why ``name``'s folder could not be built (one sentence), or None (ready, building, or not wanted)."""
    build = _build_of(name)
    return build.problem if build is not None and build.done.is_set() else None
