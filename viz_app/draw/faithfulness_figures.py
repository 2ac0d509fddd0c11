"""Pure Plotly builders for the stored faithfulness results (no Streamlit): values ± 95% intervals per model.

One builder, ``interval_plot``, draws every figure of the Evidence view's "Attention as
explanation" tab: attention's mean Kendall τ with its attributions beside the attributions' with
each other, τ per pair, and ERASER's comprehensiveness or sufficiency by ranking (ours and ERASER's
AOPC). Rows are models, colours the series.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from viz_app.draw.figures import _figure, _layout
from viz_app.draw.text import html_escape
from viz_app.draw.theme import NORMAL, Theme


@dataclass(frozen=True)
class IntervalRow:
    """One model's value of one series; ``note`` is appended to the model's label (a sample, stale)."""

    model: str
    series: str
    value: float
    lo: float
    hi: float
    n: int
    note: str = ""


def interval_plot(rows: Sequence[IntervalRow], *, title: str = "", x_title: str = "value",
                  reference: float | None = 0.0, theme: Theme = NORMAL) -> go.Figure:
    """Markers with 95% intervals, one colour per series, models down the y axis (nudged apart per series)."""
    series = list(dict.fromkeys(r.series for r in rows))
    models = list(dict.fromkeys(r.model + r.note for r in rows))
    data = []
    for k, name in enumerate(series):
        mine = [r for r in rows if r.series == name]
        colour = theme.categorical[k % len(theme.categorical)]
        offset = (k - (len(series) - 1) / 2) * 0.14
        data.append({
            "type": "scatter", "mode": "markers", "name": html_escape(name),
            "x": [r.value for r in mine], "y": [models.index(r.model + r.note) + offset for r in mine],
            "error_x": {"type": "data", "symmetric": False, "array": [r.hi - r.value for r in mine],
                        "arrayminus": [r.value - r.lo for r in mine], "color": colour, "thickness": 2},
            "marker": {"color": colour, "size": 10},
            "customdata": [[html_escape(r.model + r.note), r.lo, r.hi, r.n] for r in mine],
            "hovertemplate": f"%{{customdata[0]}} — {html_escape(name)}: %{{x:.3f}} "
                             "[%{customdata[1]:.3f}, %{customdata[2]:.3f}], n = %{customdata[3]:,}<extra></extra>",
        })
    line = {"dash": "dash", "color": "#444"}
    shapes = [] if reference is None else [
        {"type": "line", "xref": "x", "yref": "paper", "x0": reference, "x1": reference, "y0": 0, "y1": 1, "line": line}]
    return _figure(data, _layout(
        theme, title, 200 + 46 * max(1, len(models)) + 3 * theme.font_size, shapes=shapes, showlegend=True,
        legend={"orientation": "h", "y": -0.2}, xaxis={"title": {"text": html_escape(x_title)}, "zeroline": False},
        yaxis={"tickvals": list(range(len(models))), "ticktext": [html_escape(m) for m in models],
               "autorange": "reversed", "automargin": True, "range": [len(models) - 0.5, -0.5]},
    ))
