"""Plotly figures updated in place: one ``st.components.v2`` component per chart key.

``st.plotly_chart`` derives a chart's identity from its figure, so every new
sentence or α value unmounts each chart and plotly.js lays it out from
scratch; in a Chrome profile on the 2-core benchmark machine that was most of
the browser's work per rerun. This
component keeps one element per ``key`` and hands each new figure to
``Plotly.react``, which redraws only what changed.

plotly.js is the copy bundled with the installed ``plotly`` package, written
to ``viz_app/static/`` and served by Streamlit's static file serving
(``server.enableStaticServing`` in ``.streamlit/config.toml``): no CDN, so
the app stays offline. Where static serving is off or the copy cannot be
written, charts fall back to ``st.plotly_chart``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

STATIC_DIR = Path(__file__).resolve().parent / "static"
PLOTLY_JS = "plotly.min.js"

# The module loads plotly.js once per page (fetched as text: Streamlit serves unknown types as text/plain with
# nosniff, which a <script src> would refuse), then draws each figure into one persistent element.
_JS = """
function plotlyReady(url) {
  if (!window.__vizPlotly) {
    window.__vizPlotly = fetch(url)
      .then(r => { if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`); return r.text(); })
      .then(src => { const s = document.createElement("script"); s.textContent = src;
                     document.head.appendChild(s); return window.Plotly; });
  }
  return window.__vizPlotly;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let gd = parentElement.querySelector(".viz-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "viz-chart";
    parentElement.appendChild(gd);
  }
  gd.__vizSelect = data.selectable ? setTriggerValue : null;
  const fig = JSON.parse(data.spec);
  const config = Object.assign({ responsive: true }, data.config);
  gd.__vizQueue = (gd.__vizQueue || Promise.resolve())
    .then(() => plotlyReady(data.plotly_url))
    .then(Plotly => Plotly.react(gd, fig.data, fig.layout, config))
    .then(() => {
      if (gd.__vizBound) return;
      gd.__vizBound = true;
      gd.on("plotly_click", ev => {
        if (!gd.__vizSelect || !ev.points.length) return;
        const p = ev.points[0];
        gd.__vizSelect("selection", { points: [{ x: p.x, y: p.y, curve_number: p.curveNumber }] });
      });
    })
    .catch(err => { gd.textContent = `This chart could not be drawn: ${err.message}`; });
}
"""

_component = st.components.v2.component("viz_plotly_chart", js=_JS, isolate_styles=False)


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
            partial = target.with_suffix(".tmp")
            shutil.copyfile(source, partial)
            partial.replace(target)
    except OSError:
        return False
    return True


def draw(fig: go.Figure, *, key: str, config: dict, on_select: Callable[[], None] | None = None) -> None:
    """Draw ``fig`` under ``key``; with ``on_select``, a click on a point stores
    ``{"selection": {"points": [{"x", "y", "curve_number"}]}}`` in ``st.session_state[key]`` and calls it."""
    if not plotly_js_served():
        if on_select is None:
            st.plotly_chart(fig, key=key, theme=None, config=config)
        else:
            st.plotly_chart(fig, key=key, theme=None, config=config, on_select=on_select, selection_mode="points")
        return
    data = {
        "spec": pio.to_json(fig, validate=False),
        "config": config,
        "selectable": on_select is not None,
        "plotly_url": f"app/static/{PLOTLY_JS}",
    }
    if on_select is None:
        _component(key=key, data=data)
    else:
        _component(key=key, data=data, on_selection_change=on_select)
