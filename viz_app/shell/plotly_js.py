"""plotly.js for the app: copied into ``viz_app/static/``, served by Streamlit, and preloaded by the first script run.

The copy is ``viz_app/draw/plotly_bundle.py``'s choice (npm's cartesian bundle in a checkout after
``bash scripts/setup.sh``, else the full bundle of the plotly package), always served as ``plotly.min.js``.

``preload`` is called by ``viz_app/app.py`` before it imports torch and the views: the browser fetches and
parses plotly.js while the server imports and loads the model, instead of after the first figure arrives
(issue 19's cold start). This module imports neither torch nor plotly's figure classes, so that it is quick.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import streamlit as st

from viz_app.draw import bundles
from viz_app.draw.plotly_bundle import plotly_bundle

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
PLOTLY_JS = "plotly.min.js"
PLOTLY_URL = f"app/static/{PLOTLY_JS}"
PRELOAD_KEY = "viz_plotly_preload"

# The preloader draws nothing; hidden, its element takes no room (no gap in the layout either).
_preloader = st.components.v2.component(
    "viz_plotly_preload",
    js=bundles.text("preload"),
    css=f".st-key-{PRELOAD_KEY} {{ display: none; }}",
    isolate_styles=False,
)


@st.cache_resource(show_spinner=False)
def plotly_js_served() -> bool:
    """True when plotly.js is in ``viz_app/static/`` and Streamlit serves that folder (copied once per process)."""
    if not st.get_option("server.enableStaticServing"):
        return False
    return copy_plotly_js()


def copy_plotly_js() -> bool:
    """Copy plotly.js into ``viz_app/static/`` unless the same file is there (also at install: ``python -m viz_app
    prepare``); False when the folder cannot be written."""
    source = plotly_bundle()
    target = STATIC_DIR / PLOTLY_JS
    try:
        if not target.is_file() or target.stat().st_size != source.stat().st_size:
            STATIC_DIR.mkdir(exist_ok=True)
            # One partial file per process: processes started together (viz_app/serve.py) copy at once, and a
            # shared name would let one process move the file away under another's copy.
            partial = target.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(source, partial)
            partial.replace(target)
    except OSError:
        return False
    return True


def preload() -> None:
    """Start fetching and parsing plotly.js in the page (once per page; a no-op when it is not served)."""
    if plotly_js_served():
        _preloader(key=PRELOAD_KEY, data={"plotly_url": PLOTLY_URL})
