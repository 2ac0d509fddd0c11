"""The shared look of the figures Python still builds, and what the page's figures take from Plotly.

Every figure that follows a sentence is defined once, in the page (``viz_app/browser/figures.js`` and
``sections.js``); Python hands it a trace view. Python builds only the figures of a whole corpus (Evidence,
Models: ``corpus_figures.py``, ``faithfulness_figures.py``), with the template, scales and layout here, and
``site_view.figure_context`` hands the page the same templates, scales and the tick constants below.

Figures are assembled as plain dicts in Plotly's canonical form and wrapped without property validation
(``_figure``): validating costs 15–50 ms per figure, several times the rest of a rerun.
"""

from __future__ import annotations

import copy
from functools import lru_cache

import plotly.colors
import plotly.graph_objects as go
import plotly.io as pio

from viz_app.draw.text import html_escape
from viz_app.draw.theme import Theme

#: Label every tick up to this many tokens, then every k-th (figures.js).
TICK_MAX = 60
#: Grids with more panels than this per row hide tick labels beyond this many tokens (figures.js).
GRID_TICK_MAX = 24
#: Longest token drawn whole in a tick label / hover box; longer ones are cut with "…" (a pasted
#: 5,000-character word or URL would otherwise push the heatmap out of its own figure).
TICK_LABEL_MAX = 24
HOVER_LABEL_MAX = 120


def _template(name: str) -> dict:
    """A named Plotly template as a plain dict (``_layout`` copies it, so one figure's edit cannot leak).

    Tick labels may overflow the plot (``ticklabeloverflow="allow"``): Plotly's default for numeric axes and
    colour bars ("hide past div") measures every label's box after each draw, which was a third of
    plotly.js's time per redraw of the app's charts (Chrome profile, issue 19)."""
    template = pio.templates[name].to_plotly_json()
    for axis in ("xaxis", "yaxis"):
        template["layout"].setdefault(axis, {})["ticklabeloverflow"] = "allow"
    for trace in template["data"].get("heatmap", []):
        trace.setdefault("colorbar", {})["ticklabeloverflow"] = "allow"
    return template


@lru_cache(maxsize=16)
def _colorscale(name: str) -> tuple[tuple[float, str], ...]:
    """A named colour scale as explicit [position, colour] stops (what Plotly's validator would store)."""
    return tuple((float(p), c) for p, c in plotly.colors.get_colorscale(name))


def _scale(name_or_stops) -> list[list]:
    stops = _colorscale(name_or_stops) if isinstance(name_or_stops, str) else name_or_stops
    return [[p, c] for p, c in stops]


def _figure(data: list[dict], layout: dict) -> go.Figure:
    """Wrap canonical trace/layout dicts without validation (see the module docstring)."""
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def _layout(theme: Theme, title: str, height: int, **extra) -> dict:
    """The shared look: template, escaped title, font, height and margins."""
    return {
        "template": copy.deepcopy(_template(theme.template)),
        "title": {"text": html_escape(title), "x": 0.01, "xanchor": "left"},
        "font": {"size": theme.font_size},
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 60 + theme.font_size, "b": 10},
        **extra,
    }


def standalone_html(fig: go.Figure, config: dict | None = None) -> str:
    """A self-contained HTML page of ``fig``: plotly.js is inlined, so it opens offline (no CDN)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config=config or {})
