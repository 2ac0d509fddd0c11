"""Pure Plotly builders for corpus-level figures: plain data in, ``go.Figure`` out (no Streamlit).

Forest plots of claim values with their 95% intervals, the distributions
behind a claim, accuracy against length (Shen Fig. 5, Im Fig. 6), the
length distribution (Im Fig. 5), learning curves, confusion matrices and, for a
relatedness model, predicted against gold relatedness and Pearson's r (or MSE) by length.
Text arguments are plain text and are escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from viz_app.draw.figures import _figure, _layout, _scale
from viz_app.draw.text import html_escape
from viz_app.draw.theme import NORMAL, Theme

#: Verdict colours (Okabe–Ito): supported blue, contradicted vermillion, inconclusive grey.
VERDICT_COLOURS = {"supported": "#0072B2", "contradicted": "#D55E00", "inconclusive": "#7f7f7f"}


@dataclass(frozen=True)
class ForestRow:
    """One model's value of one claim: ``stale`` rows are drawn hollow and labelled."""

    label: str
    value: float
    lo: float
    hi: float
    verdict: str
    n: int
    stale: bool = False


@dataclass(frozen=True)
class ForestPanel:
    title: str
    rows: Sequence[ForestRow]
    no_effect: float
    x_title: str = "value"


def _forest_traces(panel: ForestPanel, axis: str, yaxis: str, shown: set) -> list[dict]:
    data = []
    for verdict, colour in VERDICT_COLOURS.items():
        rows = [r for r in panel.rows if r.verdict == verdict]
        if not rows:
            continue
        data.append({
            "type": "scatter", "mode": "markers", "xaxis": axis, "yaxis": yaxis,
            "x": [r.value for r in rows],
            "y": [html_escape(r.label + (" (stale)" if r.stale else "")) for r in rows],
            "error_x": {"type": "data", "symmetric": False, "array": [r.hi - r.value for r in rows],
                        "arrayminus": [r.value - r.lo for r in rows], "color": colour, "thickness": 2},
            "marker": {"color": colour, "size": 11,
                       "symbol": ["circle-open" if r.stale else "circle" for r in rows]},
            "name": verdict, "legendgroup": verdict, "showlegend": verdict not in shown,
            "customdata": [[r.lo, r.hi, r.n] for r in rows],
            "hovertemplate": "%{y}: %{x:.4g} [%{customdata[0]:.4g}, %{customdata[1]:.4g}], "
                             f"n = %{{customdata[2]:,}}<br>{verdict}<extra></extra>",
        })
        shown.add(verdict)
    return data


def forest_plot(panels: Sequence[ForestPanel], *, title: str = "", theme: Theme = NORMAL) -> go.Figure:
    """Value ± 95% interval per model, one panel per claim, a dashed line at "no effect".

    Side by side, the panels share one row per model, named once at the left (a second panel's names would be
    drawn into the first panel's plot), and each panel's title is split at its first ": " into two centred lines
    (on one line, neighbouring titles ran into each other)."""
    n = len(panels)
    gap = 0.06 if n > 1 else 0.0
    width = (1 - gap * (n - 1)) / n
    order = list(dict.fromkeys(html_escape(r.label + (" (stale)" if r.stale else "")) for p in panels for r in p.rows))
    layout_axes: dict = {}
    data: list[dict] = []
    shapes, annotations, shown = [], [], set()
    for k, panel in enumerate(panels):
        suffix = "" if k == 0 else str(k + 1)
        x0 = k * (width + gap)
        layout_axes[f"xaxis{suffix}"] = {"domain": [x0, x0 + width], "title": {"text": html_escape(panel.x_title)},
                                         "zeroline": False, "anchor": f"y{suffix}"}
        layout_axes[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "automargin": True, "autorange": "reversed",
                                         "type": "category", "categoryorder": "array", "categoryarray": order,
                                         **({} if k == 0 else {"matches": "y", "showticklabels": False})}
        data += _forest_traces(panel, f"x{suffix}", f"y{suffix}", shown)
        shapes.append({"type": "line", "xref": f"x{suffix}", "yref": f"y{suffix} domain", "x0": panel.no_effect,
                       "x1": panel.no_effect, "y0": 0, "y1": 1, "line": {"dash": "dash", "color": "#444"}})
        head, _, tail = panel.title.partition(": ")
        text = f"<b>{html_escape(head)}</b>" + (f"<br>{html_escape(tail)}" if tail and n > 1 else
                                                 (f"<b>: {html_escape(tail)}</b>" if tail else ""))
        annotations.append({"text": text, "xref": f"x{suffix} domain", "yref": "paper", "x": 0.5, "y": 1.0,
                            "xanchor": "center", "yanchor": "bottom", "showarrow": False})
    rows = len(order) or 1
    layout = _layout(theme, title, 170 + 34 * rows + 3 * theme.font_size + (2 * theme.font_size if n > 1 else 0),
                     shapes=shapes, annotations=annotations, legend={"orientation": "h", "y": -0.25}, **layout_axes)
    if n > 1:  # room for the two-line panel titles under the figure's title
        layout["margin"] = {**layout["margin"], "t": layout["margin"]["t"] + 2 * theme.font_size}
    return _figure(data, layout)


def distribution_plot(distribution: Mapping, *, title: str = "", x_title: str = "", theme: Theme = NORMAL) -> go.Figure:
    """Overlaid histograms (share of each group per bin) from a claim's stored ``distribution``."""
    edges = np.asarray(distribution.get("edges") or [0.0, 1.0], dtype=float)
    centres = (edges[:-1] + edges[1:]) / 2
    data = []
    for k, (name, group) in enumerate(distribution.get("groups", {}).items()):
        counts = np.asarray(group["counts"], dtype=float)
        share = counts / counts.sum() if counts.sum() else counts
        mean = group.get("mean")
        label = f"{name} (n = {group['n']:,}" + (f", mean {mean:.3g})" if mean is not None else ")")
        data.append({
            "type": "bar", "x": centres, "y": share, "width": float(np.diff(edges).mean()),
            "name": html_escape(label), "opacity": 0.55,
            "marker": {"color": theme.categorical[k % len(theme.categorical)]},
            "hovertemplate": f"{html_escape(name)}<br>%{{x:.4g}}: %{{y:.1%}}<extra></extra>",
        })
    return _figure(data, _layout(
        theme, title, 340 + 4 * theme.font_size, barmode="overlay", showlegend=True,
        legend={"orientation": "h", "y": -0.3}, xaxis={"title": {"text": html_escape(x_title)}},
        yaxis={"title": {"text": "share of the group"}, "tickformat": ".0%"},
    ))


def accuracy_by_length_plot(series: Mapping[str, Sequence[Mapping]], *, title: str = "", x_title: str = "length",
                            theme: Theme = NORMAL) -> go.Figure:
    """Accuracy per length bucket with 95% intervals, one line per model (Shen Fig. 5, Im Fig. 6)."""
    data = []
    for k, (name, buckets) in enumerate(series.items()):
        mids = [(b["lo"] + b["hi"]) / 2 for b in buckets]
        acc = [b["accuracy"] for b in buckets]
        ci = [b.get("ci95") or [b["accuracy"], b["accuracy"]] for b in buckets]
        colour = theme.categorical[k % len(theme.categorical)]
        data.append({
            # not clipped at the axis: on the fixed 0–100% range a bucket at 100% (or 0%) lost half its marker
            "type": "scatter", "mode": "lines+markers", "x": mids, "y": acc, "name": html_escape(name),
            "line": {"color": colour}, "marker": {"color": colour}, "cliponaxis": False,
            "error_y": {"type": "data", "symmetric": False, "array": [c[1] - a for c, a in zip(ci, acc)],
                        "arrayminus": [a - c[0] for c, a in zip(ci, acc)], "color": colour},
            "customdata": [[b["lo"], b["hi"], b["n"]] for b in buckets],
            "hovertemplate": f"{html_escape(name)}<br>%{{customdata[0]:g}} ≤ length < %{{customdata[1]:g}}"
                             "<br>accuracy %{y:.1%} (n = %{customdata[2]:,})<extra></extra>",
        })
    return _figure(data, _layout(
        theme, title, 380 + 4 * theme.font_size, showlegend=True, legend={"orientation": "h", "y": -0.25},
        xaxis={"title": {"text": html_escape(x_title)}},
        yaxis={"title": {"text": "accuracy"}, "tickformat": ".0%", "range": [0, 1]},
    ))


#: What ``relatedness_by_length_plot`` can draw per bucket (``disan.evidence.relatedness_by_length``): its short
#: name and the y axis title. The titles stay short: a vertical title longer than the plot is tall runs up into the
#: figure's title ("Pearson's r (gold against predicted relatedness)" did at the Models view's height); what is
#: correlated is the figure's caption's to say.
BY_LENGTH_MEASURES = {
    "pearson_r": ("Pearson's r", "Pearson's r"),
    "mse": ("MSE", "mean squared error"),
}


def relatedness_by_length_plot(series: Mapping[str, Sequence[Mapping]], *, measure: str = "pearson_r",
                               title: str = "", x_title: str = "length", theme: Theme = NORMAL) -> go.Figure:
    """A relatedness model's ``measure`` (Pearson's r or MSE of its test pairs) per length bucket with 95%
    intervals, one line per model: accuracy by length (Shen Fig. 5) has no meaning for a score. A bucket where the
    measure is undefined (r of fewer than two pairs, or of constant scores: None) is a gap in the line."""
    if measure not in BY_LENGTH_MEASURES:
        raise ValueError(f"relatedness_by_length_plot draws one of {', '.join(BY_LENGTH_MEASURES)}, not {measure!r}.")
    short, y_title = BY_LENGTH_MEASURES[measure]
    other = "mse" if measure == "pearson_r" else "pearson_r"

    def number(v):
        return np.nan if v is None else float(v)

    data = []
    for k, (name, buckets) in enumerate(series.items()):
        mids = [(b["lo"] + b["hi"]) / 2 for b in buckets]
        values = np.array([number(b.get(measure)) for b in buckets])  # (buckets,)
        ci = np.array([[number(c) for c in (b.get(f"{measure}_ci95") or [None, None])]
                       for b in buckets]).reshape(-1, 2)  # (buckets, 2)
        colour = theme.categorical[k % len(theme.categorical)]
        data.append({
            "type": "scatter", "mode": "lines+markers", "x": mids, "y": values, "name": html_escape(name),
            "connectgaps": False, "line": {"color": colour}, "marker": {"color": colour},
            "error_y": {"type": "data", "symmetric": False, "array": np.nan_to_num(ci[:, 1] - values),
                        "arrayminus": np.nan_to_num(values - ci[:, 0]), "color": colour},
            "customdata": [[b["lo"], b["hi"], b["n"], number(b.get(other))] for b in buckets],
            "hovertemplate": f"{html_escape(name)}<br>%{{customdata[0]:g}} ≤ length < %{{customdata[1]:g}}"
                             f"<br>{short} %{{y:.3f}} (n = %{{customdata[2]:,}} pairs)"
                             f"<br>{BY_LENGTH_MEASURES[other][0]} %{{customdata[3]:.3f}}<extra></extra>",
        })
    return _figure(data, _layout(
        theme, title, 380 + 4 * theme.font_size, showlegend=True, legend={"orientation": "h", "y": -0.25},
        xaxis={"title": {"text": html_escape(x_title)}},
        yaxis={"title": {"text": html_escape(y_title)}, "tickformat": ".2f"},
    ))


def length_histogram(distribution: Sequence[Mapping], *, title: str = "", x_title: str = "length",
                     theme: Theme = NORMAL) -> go.Figure:
    """How many examples have each length (Im Fig. 5)."""
    data = [{
        "type": "bar", "x": [d["length"] for d in distribution], "y": [d["n"] for d in distribution],
        "marker": {"color": theme.categorical[0]}, "name": "examples",
        "hovertemplate": "length %{x:g}: %{y:,} examples<extra></extra>",
    }]
    return _figure(data, _layout(
        theme, title, 340 + 4 * theme.font_size, xaxis={"title": {"text": html_escape(x_title)}},
        yaxis={"title": {"text": "examples"}},
    ))


def learning_curve(steps: Sequence[float], dev_accuracy: Sequence[float | None], train_loss: Sequence[float | None],
                   *, title: str = "", x_title: str = "optimizer step", dev_title: str = "dev accuracy",
                   theme: Theme = NORMAL) -> go.Figure:
    """The dev measure (left axis) and mean training loss since the previous evaluation (right axis).

    ``dev_title``: what the dev values are; anything but "dev accuracy" (a relatedness run's dev Pearson's r)
    is drawn as a plain number, not a percentage.
    """
    def clean(values):
        return [np.nan if v is None else float(v) for v in values]

    percent = dev_title == "dev accuracy"
    dev_format = ".2%" if percent else ".4f"
    data = [
        {"type": "scatter", "mode": "lines+markers", "x": list(steps), "y": clean(dev_accuracy),
         "name": html_escape(dev_title), "line": {"color": theme.categorical[0]},
         "hovertemplate": f"step %{{x:,}}: {html_escape(dev_title)} %{{y:{dev_format}}}<extra></extra>"},
        {"type": "scatter", "mode": "lines+markers", "x": list(steps), "y": clean(train_loss), "yaxis": "y2",
         "name": "train loss", "line": {"color": theme.categorical[1], "dash": "dot"},
         "hovertemplate": "step %{x:,}: train loss %{y:.4f}<extra></extra>"},
    ]
    return _figure(data, _layout(
        theme, title, 360 + 4 * theme.font_size, showlegend=True, legend={"orientation": "h", "y": -0.25},
        xaxis={"title": {"text": html_escape(x_title)}},
        yaxis={"title": {"text": html_escape(dev_title)}, "tickformat": ".0%" if percent else ".2f"},
        # tickmode "auto": plotly.js 4 gives an overlaying axis "sync" ticks by default, placed at the left axis's
        # grid lines, so the loss axis read 0.967, 0.893, 0.819 … instead of round numbers.
        yaxis2={"title": {"text": "train loss"}, "overlaying": "y", "side": "right", "showgrid": False,
                "tickmode": "auto"},
    ))


def confusion_matrix(labels: Sequence[str], counts: Sequence[Sequence[int]], *, title: str = "",
                     theme: Theme = NORMAL) -> go.Figure:
    """Counts with rows = gold label, columns = predicted label; colour = share of the gold row."""
    z = np.asarray(counts, dtype=float)  # (K, K)
    share = z / np.maximum(z.sum(1, keepdims=True), 1)  # (K, K)
    names = [html_escape(x) for x in labels]
    data = [{
        "type": "heatmap", "z": share, "x": names, "y": names, "colorscale": _scale(theme.sequential),
        "zmin": 0, "zmax": 1, "text": z.astype(int).astype(str), "texttemplate": "%{text}",
        "colorbar": {"title": {"text": "share of row"}, "tickformat": ".0%"},
        "hovertemplate": "gold %{y}, predicted %{x}: %{text} (%{z:.1%} of the row)<extra></extra>",
    }]
    return _figure(data, _layout(
        theme, title, 300 + 40 * len(labels),
        xaxis={"title": {"text": "predicted"}, "side": "bottom"},
        yaxis={"title": {"text": "gold"}, "autorange": "reversed"},
    ))


def relatedness_scatter(gold: Sequence[float], predicted: Sequence[float], *, grades: tuple[float, float] = (1.0, 5.0),
                        title: str = "", theme: Theme = NORMAL) -> go.Figure:
    """Each test pair's predicted relatedness (y) against its gold score (x), with the line y = x.

    ``grades``: the scale's ends (SICK: 1 to 5; Tai et al. 2015's ŷ = rᵀp̂ cannot leave them). The hover names
    the pair by its position in the test file, the order the scores are stored in.
    """
    gold = np.asarray(gold, dtype=float)  # (n,)
    predicted = np.asarray(predicted, dtype=float)  # (n,)
    if gold.shape != predicted.shape:
        raise ValueError(f"relatedness_scatter needs one predicted score per gold score, got {gold.shape} "
                         f"and {predicted.shape}.")
    lo, hi = grades
    pad = 0.05 * (hi - lo)
    data = [{
        "type": "scatter", "mode": "markers", "x": gold, "y": predicted,
        "customdata": np.arange(len(gold)), "name": "test pairs",
        "marker": {"color": theme.categorical[0], "size": 5, "opacity": 0.45},
        "hovertemplate": "pair %{customdata:,}: gold %{x:.2f}, predicted %{y:.2f}<extra></extra>",
    }]
    diagonal = {"type": "line", "x0": lo, "y0": lo, "x1": hi, "y1": hi, "xref": "x", "yref": "y",
                "line": {"color": theme.categorical[5], "dash": "dash", "width": 1.5}}
    return _figure(data, _layout(
        theme, title, 380 + 4 * theme.font_size, shapes=[diagonal],
        # constrain "domain": the 1:1 aspect shrinks the wider side's plot area; Plotly's default ("range") widened
        # its range instead, so in a column wider than tall the gold axis ran from 0 past 6 on a 1–5 scale.
        xaxis={"title": {"text": "gold relatedness"}, "range": [lo - pad, hi + pad], "constrain": "domain"},
        yaxis={"title": {"text": "predicted relatedness (rᵀp̂)"}, "range": [lo - pad, hi + pad],
               "scaleanchor": "x", "scaleratio": 1, "constrain": "domain"},
    ))
