"""Plotly figures updated in place: one ``st.components.v2`` component per chart key.

``st.plotly_chart`` derives a chart's identity from its figure, so every new
sentence or α value unmounts each chart and plotly.js lays it out from
scratch; in a Chrome profile on the 2-core benchmark machine that was most of
the browser's work per rerun. This
component keeps one element per ``key`` and hands each new figure to
``Plotly.react``, which redraws only what changed.

The same component draws the *live controls* (``live_control``): an ordinary
``input[type=range]`` for α or DiSAN's feature k that recomputes every chart of
its group in the page while it moves (``viz_app/browser``: ``recompute.js`` for
the maths, ``paint.js`` to repaint drawn heatmaps in place, ``chart.js`` for the
wiring; payloads and bindings from ``live.py``) and tells the server the final
value afterwards, for the link and the other views.

plotly.js is the copy bundled with the installed ``plotly`` package, written
to ``viz_app/static/`` and served by Streamlit's static file serving
(``server.enableStaticServing`` in ``.streamlit/config.toml``): no CDN, so
the app stays offline. Where static serving is off or the copy cannot be
written, charts fall back to ``st.plotly_chart`` and sliders to ``st.slider``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from viz_app.draw import live, settings
from viz_app.draw.live import static_key as live_static_key

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
PLOTLY_JS = "plotly.min.js"

# The component's module: recompute.js and paint.js (classic scripts defining DisanRecompute and DisanPaint,
# shared with the offline report) followed by chart.js (charts drawn in place; live groups redrawn in the page).
_JS = live.recompute_js() + "\n" + (Path(__file__).resolve().parents[1] / "browser" / "chart.js").read_text(encoding="utf-8")
_CSS = """
.viz-live label { font-size: 0.875rem; }
.viz-live output { font-weight: 600; }
.viz-live input[type=range] { width: 100%; margin: 0.25rem 0; touch-action: pan-y; }
.viz-live-help { font-size: 0.8rem; opacity: 0.7; }
"""

_component = st.components.v2.component("viz_plotly_chart", js=_JS, css=_CSS, isolate_styles=False)


@st.cache_resource(show_spinner=False)
def plotly_js_served() -> bool:
    """True when plotly.js is in ``viz_app/static/`` and Streamlit serves that folder (copied once per process)."""
    if not st.get_option("server.enableStaticServing"):
        return False
    source = Path(plotly.__file__).resolve().parent / "package_data" / PLOTLY_JS
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


def draw(
    fig: go.Figure,
    *,
    key: str,
    config: dict,
    on_select: Callable[[], None] | None = None,
    live: dict | None = None,
) -> None:
    """Draw ``fig`` under ``key``; with ``on_select``, a click on a point stores
    ``{"selection": {"points": [{"x", "y", "curve_number"}]}}`` in ``st.session_state[key]`` and calls it.

    ``live`` (``{"group", "payload_id", "binding"}``, see ``viz_app/draw/live.py``) makes the chart follow the
    ``live_control`` of that group in the page."""
    if not plotly_js_served():
        if on_select is None:
            st.plotly_chart(fig, key=key, theme=None, config=config)
        else:
            st.plotly_chart(fig, key=key, theme=None, config=config, on_select=on_select, selection_mode="points")
        return
    data = {
        "role": "chart",
        "spec": pio.to_json(fig, validate=False),
        "config": config,
        "selectable": on_select is not None,
        "plotly_url": f"app/static/{PLOTLY_JS}",
        "live": None if live is None else {**live, "static": live_static_key(fig, live["binding"])},
    }
    if on_select is None:
        _component(key=key, data=data)
    else:
        _component(key=key, data=data, on_selection_change=on_select)


def live_available() -> bool:
    """True when charts are drawn by the component, so a ``live_control`` can recompute them in the page."""
    return settings.BROWSER_RECOMPUTE and plotly_js_served()


def live_control(
    *,
    key: str,
    group: str,
    param: str,
    label: str,
    value: float,
    bounds: tuple[float, float, float],
    payload: dict,
    on_change: Callable[[], None],
    help_text: str = "",
) -> None:
    """A slider (``input[type=range]``) that recomputes every chart of ``group`` in the page while it moves.

    ``param`` is ``alpha`` or ``feature``; ``bounds`` = (min, max, step). The value reaches the server
    (``st.session_state[key]["value"]``, then ``on_change``) ``settings.LIVE_SEND_AFTER_MS`` after the last move.
    """
    lo, hi, step = bounds
    data = {
        "role": "control",
        "group": group,
        "param": param,
        "label": label,
        "help": help_text,
        "value": value,
        "values": {param: value},
        "min": lo,
        "max": hi,
        "step": step,
        "payload": payload,
        "send_after_ms": settings.LIVE_SEND_AFTER_MS,
        "settle_ms": settings.LIVE_SETTLE_MS,
        "plotly_url": f"app/static/{PLOTLY_JS}",
    }
    _component(key=key, data=data, default={"value": value}, on_value_change=on_change)
