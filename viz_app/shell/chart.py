"""The app's charts: one ``st.components.v2`` component per chart key, drawn by the page's own definitions.

A chart that follows the sentence (``draw_figure``) names a figure of ``viz_app/browser/sections.js`` and the
trace views it reads; the page builds it there, as the report and the static site do (one definition,
issue 27), and draws it with the project's canvas components through ``figure_host.js`` in one persistent
element, whose update repaints only what changed (docs/figure-components.md: each figure carries
``data-figure`` and ``data-drawn``; its export menu writes the checkpoint's SHA-256 and the project's version,
``provenance``). A figure of a whole corpus (``draw``) is built by the server and drawn by plotly.js.
``st.plotly_chart`` would derive a chart's identity from its figure, so every new sentence would unmount each
chart and lay it out from scratch.

The same component draws the *live controls* (``live_control``): an ordinary
``input[type=range]`` for α or DiSAN's feature k that recomputes every chart of
its group in the page while it moves (``viz_app/browser``: ``recompute.js`` for
the maths, ``chart.js`` for the wiring; each control's key from ``live.py``, bindings from the figures themselves) and
tells the server the final value afterwards, for the link and the other views.

plotly.js (for the corpus figures) is served from ``viz_app/static/`` by Streamlit's static file serving
(``server.enableStaticServing`` in ``.streamlit/config.toml``; ``plotly_js.py`` copies it there): no CDN, so
the app stays offline. The component's own bundle (``chart.js`` with what it imports, 235 kB) is served
from there too, as ``chart-<digest>.js``: Streamlit puts a component's module text into every element's message
on every rerun, so the component's module is a loader of a few lines that imports the served bundle once per page
(a probe of typing in the app last session: 27 MB of messages before, 4.5 MB after). Where static serving is off
or a copy cannot be written, the component carries plotly.js and the bundle in its own module (``component``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from functools import partial

import plotly.graph_objects as go
import streamlit as st

from disan.errors import DisanError
from viz_app.draw import bundles, settings
from viz_app.draw.figure_json import figure_json, figure_spec
from viz_app.draw.site_view import PageView, figure_context
from viz_app.draw.plotly_bundle import plotly_bundle
from viz_app.draw.provenance import project_version, provenance
from viz_app.shell.plotly_js import PLOTLY_URL, STATIC_DIR, plotly_js_served


# The component's module: the app's bundle (bundles.py), chart.js with everything it imports: the figures and
# sections the report draws, the figure host and its canvas components, recompute.js, plotly_ready.js (plotly.js
# fetched once per page for the corpus figures, shared with the preloader), the minimal pair's page drawn as the
# report draws it (live groups redrawn in the page).
_JS = bundles.text("chart")
_TOKENS_CSS = (bundles.BROWSER / "tokens.css").read_text(encoding="utf-8")
_CSS = _TOKENS_CSS + """
.viz-live label { font-size: 0.875rem; }
.viz-live output { font-weight: 600; }
.viz-live input[type=range] { width: 100%; margin: 0.25rem 0; touch-action: pan-y; }
.viz-live-help { font-size: 0.8rem; opacity: 0.7; }
.viz-pair figure.fig { margin: 0 0 1rem; }
.viz-pair figcaption { font-size: 0.8rem; opacity: 0.75; }
.viz-pair p.error { color: #a00; }
.viz-pair .plot { width: 100%; min-height: 120px; }
"""

def wire(data: dict) -> dict:
    """``data`` as the component receives it: nested dicts and lists as JSON text, named in ``data["json"]``
    (``chart.js``'s ``unwire`` parses them back). Streamlit looks for data frames in every dict or list at the
    top of a component's data, which imported pandas on the first page (0.4 s of the cold start, issue 19)
    and cost each chart a type check per rerun; text and numbers it passes over."""
    nested = [name for name, value in data.items() if isinstance(value, (dict, list))]
    out = {name: figure_json(value) if name in nested else value for name, value in data.items()}
    out["json"] = ",".join(nested)
    return out


def unwire(data: dict) -> dict:
    """The inverse of ``wire`` (what ``chart.js`` does in the page); for tests and benchmarks."""
    out = dict(data)
    for name in filter(None, data.get("json", "").split(",")):
        out[name] = json.loads(data[name])
    return out


#: The module the served component carries instead of the bundle: it imports the served bundle once per page (kept
#: on ``window``, so a render after the first is synchronous) and hands it each render.
_LOADER = """const url = new URL(%s, document.baseURI).href;
export default function (component) {
  const got = window.__disanChart;
  if (got && got.url === url) return got.module.default(component);
  return import(url).then((module) => {
    window.__disanChart = { url, module };
    return module.default(component);
  });
}
"""
CHART_JS = "chart-{digest}.js"


def chart_js_name() -> str:
    """The served bundle's file name: its digest in the name, so a rebuilt bundle is a new address (no stale cache)."""
    return CHART_JS.format(digest=hashlib.sha256(_JS.encode("utf-8")).hexdigest()[:16])


def copy_chart_js() -> bool:
    """Write the chart bundle into ``viz_app/static/`` (and remove older ones); False when it cannot be written."""
    target = STATIC_DIR / chart_js_name()
    try:
        if not target.is_file() or target.read_text(encoding="utf-8") != _JS:
            STATIC_DIR.mkdir(exist_ok=True)
            partial_file = target.with_suffix(f".{os.getpid()}.tmp")  # one per process, as copy_plotly_js
            partial_file.write_text(_JS, encoding="utf-8")
            partial_file.replace(target)
        for old in STATIC_DIR.glob(CHART_JS.format(digest="*")):
            if old != target:
                old.unlink(missing_ok=True)
    except OSError:
        return False
    return True


@functools.cache
def _served_component():
    """The component whose module loads the bundle from ``app/static/`` (its messages carry the loader alone)."""
    url = json.dumps(f"app/static/{chart_js_name()}")
    return st.components.v2.component("viz_plotly_chart", js=_LOADER % url, css=_CSS, isolate_styles=False)


@functools.cache
def _inline_component():
    """The same component with plotly.js inlined in its module, for a server that does not serve
    ``viz_app/static/`` (``server.enableStaticServing`` off, or a folder that cannot be written): every chart
    is still drawn by the page's own definitions, offline; only the first page loads a larger module."""
    source = plotly_bundle().read_text(encoding="utf-8")
    return st.components.v2.component("viz_plotly_chart_inline", js=source + "\n" + _JS, css=_CSS,
                                      isolate_styles=False)


@st.cache_resource(show_spinner=False)
def chart_js_copied() -> bool:
    """True when the chart bundle is in ``viz_app/static/`` (written once per process)."""
    return copy_chart_js()


def component():
    """The chart component: plotly.js and the chart bundle from the static folder when served, else inlined."""
    return _served_component() if plotly_js_served() and chart_js_copied() else _inline_component()


def plotly_url() -> str | None:
    return PLOTLY_URL if plotly_js_served() else None


def draw(fig: go.Figure, *, key: str, config: dict) -> None:
    """Draw ``fig``, a figure the server built (the corpus figures of Evidence and Models), under ``key``."""
    data = {"role": "chart", "spec": figure_json(figure_spec(fig)), "config": config, "selectable": False,
            "plotly_url": plotly_url(), "live": None}
    component()(key=key, data=wire(data))


#: Session key of the trace views this session's page has been sent (``draw_figure``).
SENT_VIEWS = "_chart_sent_views"
#: Session key of {chart key: the trace view that chart asked for}: carried by that chart on the next rerun.
ASKED_VIEWS = "_chart_asked_views"


def _view_missing(key: str) -> None:
    """The page asked for a trace view it does not hold (a rerun cut short before the chart that carried it
    reached the page): the chart that asked carries it on the next rerun. Carried by another chart, it would not
    reach the one that asked: that chart's own message would be unchanged, and Streamlit renders no chart again
    whose message is the same (the Attribution view's bars then stayed at "Loading")."""
    missing = (st.session_state.get(key) or {}).get("missing")
    if missing:
        st.session_state.setdefault(ASKED_VIEWS, {})[key] = missing


@functools.lru_cache(maxsize=64)
def _provenance(view: PageView) -> dict[str, str]:
    """``{checkpointSha256, version}`` of the model whose trace ``view`` is, for the figure's exports."""
    head = json.loads(view.view)
    try:
        return provenance(str(head.get("model")), bool(head.get("random_weights")))
    except (DisanError, OSError, ValueError):  # a model given by a path without a manifest beside it
        return {"checkpointSha256": "unknown", "version": project_version()}


def _carry(views: Sequence[PageView], data: dict, key: str) -> None:
    """Put into ``data`` the trace views this session's page has not been sent yet, and the one the chart ``key``
    asked for (and the figure context)."""
    sent = st.session_state.setdefault(SENT_VIEWS, set())
    asked = st.session_state.setdefault(ASKED_VIEWS, {}).pop(key, None)
    carried = {v.id: {"view": v.view, "arrays": v.arrays} for v in views if v.id not in sent or v.id == asked}
    if carried:
        data.update(views=carried, context=figure_context())
        sent.update(carried)


def draw_section(view: PageView, section: str, *, key: str, params: dict | None = None,
                 follow: dict | None = None) -> None:
    """The HTML of the page's section ``section`` of ``view`` (``Sections.sectionBody``: "tokens"), built in
    the page as the report builds its sections; ``follow`` as for ``draw_figure``."""
    data = {"role": "section", "view_ids": [view.id], "section": section, "params": params or {}, "follow": follow}
    _carry([view], data, key)
    component()(key=key, data=wire(data), on_missing_change=partial(_view_missing, key))


def draw_figure(
    views: PageView | Sequence[PageView],
    figure: str,
    *,
    key: str,
    theme: str,
    config: dict,
    params: dict | None = None,
    on_select: Callable[[], None] | None = None,
    live: dict | None = None,
    follow: dict | None = None,
) -> None:
    """Draw the page's figure ``figure`` of ``views`` under ``key``: the page builds it from the trace views
    (``Sections.draw`` in ``viz_app/browser/sections.js``: a figure of the report's page by id, or a
    ``define``d figure with ``params``), as the report and the static site do.

    A trace view travels with the first chart that draws it in this session; later charts and reruns name it
    by id, and a page that lacks it asks again (``_view_missing``). ``live`` (``{"group", "payload_id"}``)
    makes the chart follow that group's control; the binding is the figure's own. ``follow`` (``{"text",
    "hypothesis"}``: the sentence of ``views``) makes it follow typing (``typing_control``)."""
    views = [views] if isinstance(views, PageView) else list(views)
    data = {
        "role": "figure",
        "view_ids": [v.id for v in views],
        "figure": figure,
        "params": params or {},
        "theme": theme,
        "config": config,
        "selectable": on_select is not None,
        "live": live,
        "follow": follow,
        "provenance": _provenance(views[0]),
    }
    _carry(views, data, key)
    callbacks = {"on_missing_change": partial(_view_missing, key)}
    if on_select is not None:
        callbacks["on_selection_change"] = on_select
    component()(key=key, data=wire(data), **callbacks)


def draw_pair(view_a: PageView, view_b: PageView, *, key: str, theme: str, loo: dict | None,
              on_swap: Callable[[], None] | None = None) -> None:
    """The Minimal pair view's page of sentences A and B: ``PairView.page`` of the two trace views
    (``viz_app/browser/pair_view.js``, the page the static explorer and the pair report draw), drawn in the page
    by ``Report.show``. ``loo``: the leave-one-out rows (``pair_report.pair_leave_one_out``), or None until
    they are computed; a rerun that brings them with the same views fills the rows and redraws no map.
    ``on_swap``: B's words become buttons, and a click sets ``st.session_state[key]["swap"]`` to "side:index"
    (then ``on_swap``)."""
    data = {"role": "pair", "view_ids": [view_a.id, view_b.id], "theme": theme, "loo": loo,
            "swap": on_swap is not None, "provenance": _provenance(view_a)}
    _carry([view_a, view_b], data, key)
    callbacks = {"on_missing_change": partial(_view_missing, key)}
    if on_swap is not None:
        callbacks["on_swap_change"] = on_swap
    component()(key=key, data=wire(data), **callbacks)


def typing_control(*, key: str, base: str | None, model: str, alpha: float | None, text: str, hypothesis: str | None,
                   on_change: Callable[[], None], draws: bool = True, boxes: dict[str, str] | None = None) -> None:
    """Explore follows typing: the sidebar's sentence box drives the model in the page (the explorer folder at
    ``base``, ``explorer.py``) and every chart drawn with ``follow`` redraws from the trace view it computes.
    The typed ``{"text", "hypothesis"}`` reaches ``st.session_state[key]["typed"]`` (then ``on_change``)
    ``settings.TYPING_SEND_AFTER_MS`` after the last key, or on Enter as soon as the page has drawn the text.
    With ``draws`` False (a page whose view drew no chart that follows; ``base`` may then be None) the page runs no
    model and only sends. ``boxes`` (widget key → the server's text): the view's own text boxes whose text it sends
    too, as ``{"boxes": {key: text}}`` in the typed value (``follow.hold``)."""
    data = {"role": "typing", "base": base, "model": model, "alpha": alpha, "text": text,
            "hypothesis": hypothesis or "", "send_after_ms": settings.TYPING_SEND_AFTER_MS, "draws": draws,
            "boxes": boxes or {}}
    component()(key=key, data=wire(data), default={"typed": None}, on_typed_change=on_change)


def live_available() -> bool:
    """True unless the page's recomputation is switched off (``VIZ_BROWSER_RECOMPUTE=0``): every chart is drawn
    by the component, so a ``live_control`` can recompute them in the page."""
    return settings.BROWSER_RECOMPUTE


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
    }
    component()(key=key, data=wire(data), default={"value": value}, on_value_change=on_change)
