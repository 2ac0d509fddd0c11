"""The Search view's corpus figures: plain data in (``disan.corpus.profile``), ``go.Figure`` out (no Streamlit).

* attention mass against |i − j| per block and head over the corpus, on a log axis, with the DSA's prior
  −α|i − j| (Im Eq. 7, Fig. 4) drawn as the weights exp(−α·d) it alone would give, scaled to the mass at d = 1;
* the words with the highest and the lowest mean gate F (Shen Eq. 19 / Im Eq. 12);
* the heads clustered by their distance profiles (``profile.head_clusters``), one row per head in dendrogram
  order, labelled with its cluster.
Text arguments are plain text and are escaped here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from viz_app.draw.figures import _figure, _layout
from viz_app.draw.text import html_escape
from viz_app.draw.theme import Theme

MAX_DISTANCE = 30


def distance_mass(profile: pd.DataFrame, alpha: float | None, theme: Theme, title: str) -> go.Figure:
    data = []
    colours = theme.categorical
    for k, ((block, head), part) in enumerate(profile.groupby(["block", "head"], sort=False)):
        part = part[(part.distance >= 1) & (part.distance <= MAX_DISTANCE)]
        name = f"{block}" + ("" if profile["head"].nunique() == 1 else f" head {head}")
        data.append({"type": "scatter", "mode": "lines+markers", "name": html_escape(name),
                     "x": part.distance.tolist(), "y": part.mass.tolist(),
                     "line": {"color": colours[k % len(colours)], "dash": "solid" if block == "fw" else "dot"}})
    if alpha:
        d = np.arange(1, MAX_DISTANCE + 1)
        at_one = profile[profile.distance == 1].mass.mean()
        data.append({"type": "scatter", "mode": "lines", "name": html_escape(f"prior −α|i − j|, α = {alpha:g}"),
                     "x": d.tolist(), "y": (at_one * np.exp(-alpha * (d - 1))).tolist(),
                     "line": {"color": "#000000", "width": 3, "dash": "dash"}})
    layout = _layout(theme, title, 420, xaxis={"title": {"text": "distance |i − j|"}},
                     # powers of ten: Plotly's default SI prefixes read "1f, 1p, 1n, 1μ" on a DSA's prior (issue 58)
                     yaxis={"title": {"text": "mean attention mass (log)"}, "type": "log", "exponentformat": "power"})
    return _figure(data, layout)


def gate_words_bar(words: pd.DataFrame, theme: Theme, title: str) -> go.Figure:
    words = words.sort_values("gate")
    colour = {"high": theme.categorical[1 % len(theme.categorical)], "low": theme.categorical[2 % len(theme.categorical)]}
    data = [{"type": "bar", "orientation": "h", "name": end,
             "x": part.gate.tolist(), "y": [html_escape(w) for w in part.word],
             "customdata": part["count"].tolist(), "hovertemplate": "%{y}: F = %{x:.3f} (%{customdata} tokens)",
             "marker": {"color": colour[end]}} for end, part in words.groupby("end")]
    layout = _layout(theme, title, max(360, 22 * len(words) + 120), xaxis={"title": {"text": "mean gate F"}},
                     yaxis={"type": "category", "categoryorder": "array",
                            "categoryarray": [html_escape(w) for w in words.word]})
    return _figure(data, layout)


def head_cluster_map(clusters: pd.DataFrame, theme: Theme, title: str) -> go.Figure:
    z = np.stack(clusters.profile.to_list())[:, 1 : MAX_DISTANCE + 1]  # (heads, distances 1..30)
    labels = [html_escape(f"{lab} (cluster {c})") for lab, c in zip(clusters.label, clusters.cluster)]
    data = [{"type": "heatmap", "z": z.tolist(), "x": list(range(1, z.shape[1] + 1)), "y": labels,
             "colorscale": theme.sequential, "colorbar": {"title": {"text": "share"}}}]
    layout = _layout(theme, title, max(260, 34 * len(labels) + 140), xaxis={"title": {"text": "distance |i − j|"}},
                     yaxis={"autorange": "reversed"})
    return _figure(data, layout)
