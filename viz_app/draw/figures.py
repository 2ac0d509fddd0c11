"""Pure Plotly figure builders: numpy in, ``go.Figure`` out (no Streamlit import).

Figures are assembled as plain dicts in Plotly's canonical form and wrapped
without property validation (``_figure``): validating costs 15–50 ms per
figure, several times the rest of a rerun. ``tests/test_figures.py`` checks
that validating every builder's output changes nothing, so the fast form is
exactly what Plotly would have built.

Every text argument (tokens, titles, labels) is *plain text*; builders escape
``& < > "`` themselves because Plotly renders a subset of HTML in labels and
hover text. Axes are numeric with token tick labels, so repeated tokens keep
their own row and column. Heatmaps put token 0 at the top; rows are the
attending token and columns the attended token, as in both papers' figures.
Hover text shows the exact value with its row and column token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import copy
from functools import lru_cache

import numpy as np
import plotly.colors
import plotly.graph_objects as go
import plotly.io as pio

from viz_app.draw.reduce import block_mean
from viz_app.draw.settings import CELL_TEXT_MAX, SMALL_MULTIPLE_MAX
from viz_app.draw.text import html_escape
from viz_app.draw.theme import NORMAL, Theme

ROW_TITLE = "attending token (row)"
COL_TITLE = "attended token (column)"
#: Label every tick up to this many tokens, then every k-th.
TICK_MAX = 60
#: Grids with more panels than this per row hide tick labels beyond this many tokens.
GRID_TICK_MAX = 24


#: Longest token drawn whole in a tick label / hover box; longer ones are cut with "…" (a pasted
#: 5,000-character word or URL would otherwise push the heatmap out of its own figure).
TICK_LABEL_MAX = 24
HOVER_LABEL_MAX = 120


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last one "…", before escaping (never mid-entity)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Escaped (and clipped) tokens for tick labels."""
    return [html_escape(clip(t, TICK_LABEL_MAX)) for t in tokens]


def _hover_labels(tokens: Sequence[str]) -> list[str]:
    return [f"#{i} {html_escape(clip(t, HOVER_LABEL_MAX))}" for i, t in enumerate(tokens)]


def cell_customdata(rows: Sequence[str], cols: Sequence[str]) -> np.ndarray:
    """(R, C, 2) array of escaped ``[row token, column token]`` for heatmap hover text."""
    r, c = _hover_labels(rows), _hover_labels(cols)
    # A fixed-width unicode array, not dtype=object: go.Figure deep-copies its data, element by element for
    # object arrays (most of a T = 64 figure's build time), in one memcpy for this.
    width = max((len(t) for t in r + c), default=1)
    data = np.empty((len(r), len(c), 2), dtype=f"<U{width}")
    data[:, :, 0] = np.asarray(r)[:, None]
    data[:, :, 1] = np.asarray(c)[None, :]
    return data


def _ticks(labels: Sequence[str], limit: int = TICK_MAX) -> dict:
    step = max(1, -(-len(labels) // limit))
    idx = list(range(0, len(labels), step))
    return {"tickmode": "array", "tickvals": idx, "ticktext": [labels[i] for i in idx]}


def _tick_limit(pixels: int, theme: Theme) -> int:
    """How many token labels fit along an axis of ``pixels`` without overlapping."""
    return max(8, min(TICK_MAX, int((pixels - 80) / (theme.font_size + 2))))


def _limits(mats: Sequence[np.ndarray], zmin: float | None, zmax: float | None) -> tuple[float, float]:
    finite = [m[np.isfinite(m)] for m in mats]
    values = np.concatenate([f.ravel() for f in finite]) if finite else np.zeros(1)
    values = values if values.size else np.zeros(1)
    lo = float(values.min()) if zmin is None else zmin
    hi = float(values.max()) if zmax is None else zmax
    return lo, (hi if hi > lo else lo + 1e-9)


@lru_cache(maxsize=8)
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


def _axis_names(k: int) -> tuple[str, str, str, str]:
    """Layout keys and trace references of subplot ``k``: ("xaxis2", "yaxis2", "x2", "y2")."""
    n = "" if k == 0 else str(k + 1)
    return f"xaxis{n}", f"yaxis{n}", f"x{n}", f"y{n}"


def _grid(rows: int, cols: int, titles: Sequence[str], h_space: float, v_space: float, font_size: int) -> dict:
    """Subplot axes on a rows × cols grid (top-left first) and their titles, as ``make_subplots`` lays them out."""
    width = (1.0 - h_space * (cols - 1)) / cols
    height = (1.0 - v_space * (rows - 1)) / rows
    layout: dict = {"annotations": []}
    for k in range(rows * cols):
        r, c = divmod(k, cols)
        x0 = c * (width + h_space)
        y1 = 1.0 - r * (height + v_space)
        xa, ya, xr, yr = _axis_names(k)
        layout[xa] = {"anchor": yr, "domain": [max(0.0, x0), min(1.0, x0 + width)]}
        layout[ya] = {"anchor": xr, "domain": [max(0.0, y1 - height), min(1.0, y1)]}
        if k < len(titles):
            layout["annotations"].append({
                "text": titles[k], "x": x0 + width / 2, "y": y1, "xref": "paper", "yref": "paper",
                "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": font_size},
            })
    return layout


def _heat(
    z: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    theme: Theme,
    zmin: float,
    zmax: float,
    value_name: str,
    colorscale: str | None = None,
    zmid: float | None = None,
    showscale: bool = True,
    colorbar: dict | None = None,
    show_text: bool = False,
) -> dict:
    z = np.asarray(z, dtype=np.float64)
    name = html_escape(value_name)
    trace = {
        "type": "heatmap",
        "z": np.where(np.isfinite(z), z, np.nan),
        "x": np.arange(z.shape[1]),
        "y": np.arange(z.shape[0]),
        "customdata": cell_customdata(rows, cols),
        "hovertemplate": f"row: %{{customdata[0]}}<br>column: %{{customdata[1]}}<br>{name} = %{{z:.6g}}<extra></extra>",
        "colorscale": _scale(colorscale or theme.sequential),
        "zmin": zmin,
        "zmax": zmax,
        "showscale": showscale,
        "colorbar": {"title": {"text": name}, **(colorbar or {})},
        "textfont": {"size": max(9, theme.font_size - 3)},
        "xgap": 0,
        "ygap": 0,
    }
    if zmid is not None:
        trace["zmid"] = zmid
    if show_text:
        trace["texttemplate"] = "%{z:.2f}"
    return trace


def _masked_overlay(masked: np.ndarray, rows: Sequence[str], cols: Sequence[str], theme: Theme) -> dict:
    """Masked (−∞) cells in ``theme.masked``, a colour outside every scale, with ``−∞`` hover text."""
    z = np.where(masked, 1.0, np.nan)
    trace = {
        "type": "heatmap",
        "z": z,
        "x": np.arange(z.shape[1]),
        "y": np.arange(z.shape[0]),
        "customdata": cell_customdata(rows, cols),
        "hovertemplate": "row: %{customdata[0]}<br>column: %{customdata[1]}<br>value = −∞ (masked)<extra></extra>",
        "colorscale": [[0.0, theme.masked], [1.0, theme.masked]],
        "showscale": False,
        "textfont": {"size": max(9, theme.font_size - 3), "color": "#333333"},
        "name": "masked",
    }
    if masked.shape[0] <= 2 * CELL_TEXT_MAX:
        trace["text"] = np.where(masked, "−∞", "")
        trace["texttemplate"] = "%{text}"
    return trace


#: The ``name`` of the click layers (``_click_layer``): ``is_click_layer`` finds them by it.
CLICK_LAYER = "cells"


def is_click_layer(trace: Mapping) -> bool:
    """True for a trace dict (``figure_spec(fig)["data"][i]``) that ``_click_layer`` made."""
    return trace.get("type") == "scatter" and trace.get("name") == CLICK_LAYER


def _click_layer(z: np.ndarray, rows: Sequence[str], cols: Sequence[str], value_name: str) -> dict:
    """Invisible markers on every cell: Plotly heatmaps cannot be selected, scatter points can.

    Clicking a cell selects its marker, so the app learns the row (the token) that was clicked;
    the markers also carry the hover text (row, column, exact value).
    """
    R, C = z.shape
    yy, xx = np.mgrid[0:R, 0:C]
    data = cell_customdata(rows, cols).reshape(R * C, 2)
    values = np.asarray(z, np.float64).ravel()
    custom = np.empty((R * C, 3), dtype=object)  # [row label, column label, value]: mixed types
    custom[:, :2] = data
    custom[:, 2] = np.where(np.isfinite(values), values, np.nan)
    name = html_escape(value_name)
    invisible = {"marker": {"opacity": 0}}
    return {
        "type": "scatter",
        "x": xx.ravel(),
        "y": yy.ravel(),
        "mode": "markers",
        "customdata": custom,
        "showlegend": False,
        "marker": {"opacity": 0, "size": 12, "symbol": "square"},
        "selected": invisible,
        "unselected": invisible,
        "hovertemplate": (
            f"row: %{{customdata[0]}}<br>column: %{{customdata[1]}}<br>{name} = %{{customdata[2]:.6g}}<extra></extra>"
        ),
        "name": CLICK_LAYER,
    }


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


def _square_height(n: int, theme: Theme, lo: int = 340, hi: int = 900) -> int:
    return int(min(hi, max(lo, 120 + theme.cell_height * n)))


def heatmap(
    z: np.ndarray,
    row_tokens: Sequence[str],
    col_tokens: Sequence[str] | None = None,
    *,
    title: str = "",
    theme: Theme = NORMAL,
    zmin: float | None = None,
    zmax: float | None = None,
    diverging: bool = False,
    value_name: str = "P",
    x_title: str = COL_TITLE,
    y_title: str = ROW_TITLE,
    masked: np.ndarray | None = None,
) -> go.Figure:
    """One heatmap; ``masked`` (bool, same shape) draws −∞ cells in a distinct colour."""
    col_tokens = row_tokens if col_tokens is None else col_tokens
    z = np.asarray(z, dtype=np.float64)
    lo, hi = _limits([z], zmin, zmax)
    if diverging:
        bound = max(abs(lo), abs(hi), 1e-9)
        lo, hi = -bound, bound
    data = [
        _heat(
            z,
            row_tokens,
            col_tokens,
            theme=theme,
            zmin=lo,
            zmax=hi,
            value_name=value_name,
            colorscale=theme.diverging if diverging else None,
            zmid=0.0 if diverging else None,
            show_text=max(z.shape) <= CELL_TEXT_MAX,
        )
    ]
    if masked is not None and masked.any():
        data.append(_masked_overlay(masked, row_tokens, col_tokens, theme))
    height = _square_height(z.shape[0], theme)
    limit = _tick_limit(height, theme)
    return _figure(data, _layout(
        theme, title, height,
        xaxis={"title": {"text": html_escape(x_title)}, "tickangle": -60, **_ticks(token_labels(col_tokens), limit)},
        yaxis={"title": {"text": html_escape(y_title)}, "autorange": "reversed",
               **_ticks(token_labels(row_tokens), limit)},
    ))


def heatmap_grid(
    mats: Sequence[np.ndarray],
    titles: Sequence[str],
    row_tokens: Sequence[str],
    col_tokens: Sequence[str] | None = None,
    *,
    title: str = "",
    theme: Theme = NORMAL,
    cols: int | None = None,
    value_name: str = "P",
    zmin: float | None = None,
    zmax: float | None = None,
    masked: Sequence[np.ndarray | None] | None = None,
    panel_height: int | None = None,
    clickable: bool = False,
) -> go.Figure:
    """Panels sharing ONE colour scale (same zmin/zmax on every trace, one colour bar).

    ``clickable`` adds an invisible marker layer so a click selects a cell (see ``_click_layer``).
    """
    col_tokens = row_tokens if col_tokens is None else col_tokens
    n = len(mats)
    cols = cols or n
    rows = -(-n // cols)
    lo, hi = _limits([np.asarray(m, float) for m in mats], zmin, zmax)
    layout = _grid(
        rows, cols, [html_escape(t) for t in titles],
        h_space=0.06 if cols > 1 else 0.02, v_space=0.12 if rows > 1 else 0.05, font_size=theme.font_size,
    )
    T = len(row_tokens)
    show_ticks = T <= (GRID_TICK_MAX if cols > 2 else TICK_MAX)
    per = panel_height or int(min(760, max(260, 90 + theme.cell_height * T * (1.0 if cols <= 2 else 0.6))))
    limit = _tick_limit(per, theme)
    x_ticks, y_ticks = _ticks(token_labels(col_tokens), limit), _ticks(token_labels(row_tokens), limit)
    data = []
    for k, mat in enumerate(mats):
        xa, ya, xr, yr = _axis_names(k)
        on_axes = {"xaxis": xr, "yaxis": yr}
        heat = _heat(
            mat,
            row_tokens,
            col_tokens,
            theme=theme,
            zmin=lo,
            zmax=hi,
            value_name=value_name,
            showscale=k == n - 1,
            show_text=n <= 2 and T <= CELL_TEXT_MAX,
        )
        data.append({**heat, **on_axes})
        mask = None if masked is None else masked[k]
        if mask is not None and mask.any():
            data.append({**_masked_overlay(mask, row_tokens, col_tokens, theme), **on_axes})
        if clickable:
            top = data[-1]
            for hover_key in ("customdata", "hovertemplate"):
                top.pop(hover_key, None)
            top["hoverinfo"] = "skip"
            data.append({**_click_layer(np.asarray(mat, np.float64), row_tokens, col_tokens, value_name), **on_axes})
        bottom = k + cols >= n  # no panel below: label the columns here
        layout[xa].update(tickangle=-60, showticklabels=show_ticks and bottom, **x_ticks)
        layout[ya].update(autorange="reversed", showticklabels=show_ticks and k % cols == 0, **y_ticks)
    layout.update(_layout(theme, title, per * rows + 40))
    return _figure(data, layout)


def compare_heatmaps(
    a: np.ndarray,
    b: np.ndarray,
    tokens: Sequence[str],
    *,
    titles: tuple[str, str] = ("A", "B"),
    title: str = "",
    theme: Theme = NORMAL,
    value_name: str = "P",
) -> go.Figure:
    """A and B on ONE colour scale (identical zmin/zmax) and A − B on a diverging scale centred at 0."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    lo, hi = _limits([a, b], None, None)
    diff = a - b
    bound = float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 0.0
    bound = bound if bound > 0 else 1e-9
    names = [html_escape(titles[0]), html_escape(titles[1]), html_escape(f"{titles[0]} − {titles[1]}")]
    layout = _grid(1, 3, names, h_space=0.09, v_space=0.0, font_size=theme.font_size)
    small = len(tokens) <= CELL_TEXT_MAX // 2
    shared = {"theme": theme, "zmin": lo, "zmax": hi, "value_name": value_name, "show_text": small}
    data = [
        _heat(a, tokens, tokens, showscale=False, **shared),
        {**_heat(b, tokens, tokens, showscale=True, colorbar={"x": 0.645, "len": 0.9, "thickness": 12}, **shared),
         "xaxis": "x2", "yaxis": "y2"},
        {**_heat(
            diff,
            tokens,
            tokens,
            theme=theme,
            zmin=-bound,
            zmax=bound,
            zmid=0.0,
            colorscale=theme.diverging,
            value_name=f"Δ{value_name}",
            colorbar={"x": 1.0, "len": 0.9, "thickness": 12},
            show_text=small,
        ), "xaxis": "x3", "yaxis": "y3"},
    ]
    labels = token_labels(tokens)
    show = len(tokens) <= GRID_TICK_MAX * 2
    height = int(min(640, max(340, 110 + theme.cell_height * len(tokens) * 0.7)))
    limit = _tick_limit(height, theme)
    for k in range(3):
        xa, ya, _, _ = _axis_names(k)
        layout[xa].update(tickangle=-60, showticklabels=show, **_ticks(labels, limit))
        layout[ya].update(autorange="reversed", showticklabels=show and k == 0, **_ticks(labels, limit))
    layout.update(_layout(theme, title, height))
    return _figure(data, layout)


def small_multiples(
    stack: np.ndarray,
    tokens: Sequence[str],
    titles: Sequence[str],
    *,
    title: str = "",
    theme: Theme = NORMAL,
    cols: int | None = None,
    value_name: str = "P",
    max_cells: int = SMALL_MULTIPLE_MAX,
) -> go.Figure:
    """One panel per head on a shared scale; long sentences are block-averaged to ``max_cells`` per side."""
    pooled, block = block_mean(np.asarray(stack, np.float64), max_cells)
    labels = list(tokens)
    if block > 1:
        labels = [f"{tokens[i]}…{tokens[min(i + block, len(tokens)) - 1]}" for i in range(0, len(tokens), block)]
        title = f"{title} (averaged over blocks of {block} tokens)"
    cols = cols or min(len(pooled), 5)
    return heatmap_grid(list(pooled), titles, labels, title=title, theme=theme, cols=cols, value_name=value_name)


def bar_chart(
    series: Mapping[str, Sequence[float]],
    tokens: Sequence[str],
    *,
    title: str = "",
    y_title: str = "",
    theme: Theme = NORMAL,
    y_range: tuple[float, float] | None = None,
) -> go.Figure:
    """Grouped bars per token, one colour per series (Okabe–Ito)."""
    hover = _hover_labels(tokens)
    data = [
        {
            "type": "bar",
            "x": np.arange(len(tokens)),
            "y": np.asarray(values, np.float64),
            "name": html_escape(name),
            "marker": {"color": theme.categorical[k % len(theme.categorical)]},
            "customdata": hover,
            "hovertemplate": f"%{{customdata}}<br>{html_escape(name)} = %{{y:.6g}}<extra></extra>",
        }
        for k, (name, values) in enumerate(series.items())
    ]
    y_axis = {"title": {"text": html_escape(y_title)}}
    if y_range:
        y_axis["range"] = list(y_range)
    return _figure(data, _layout(
        theme, title, 360 + 4 * theme.font_size,
        barmode="group",
        showlegend=len(series) > 1,
        legend={"orientation": "h", "y": 1.12},
        xaxis={"tickangle": -60, **_ticks(token_labels(tokens))},
        yaxis=y_axis,
    ))


def prediction_chart(prediction: Mapping[str, float], *, title: str = "Prediction", theme: Theme = NORMAL) -> go.Figure:
    """Horizontal bars of label probabilities; the predicted label in the accent colour."""
    labels = list(prediction)
    values = [float(prediction[k]) for k in labels]
    best = int(np.argmax(values)) if values else -1
    colors = [theme.categorical[1] if i == best else theme.categorical[0] for i in range(len(labels))]
    bar = {
        "type": "bar",
        "y": [html_escape(k) for k in labels],
        "x": values,
        "orientation": "h",
        "marker": {"color": colors},
        "hovertemplate": "%{y}: %{x:.4f}<extra></extra>",
        "text": [f"{v:.2f}" for v in values],
        "textposition": "outside",
        "textangle": 0,
        "cliponaxis": False,
    }
    return _figure([bar], _layout(
        theme, title, 120 + 40 * max(1, len(labels)) + 2 * theme.font_size,
        xaxis={"title": {"text": "probability"}, "range": [0, 1]},
        yaxis={"autorange": "reversed"},
    ))


def token_feature_heatmap(
    matrix: np.ndarray,
    tokens: Sequence[str],
    *,
    title: str = "",
    theme: Theme = NORMAL,
    value_name: str = "value",
    zmin: float | None = None,
    zmax: float | None = None,
) -> go.Figure:
    """Rows = tokens, columns = feature index k (e.g. the fusion gate F, Shen Eq. 19)."""
    matrix = np.asarray(matrix, np.float64)
    features = [f"feature {k}" for k in range(matrix.shape[1])]
    lo, hi = _limits([matrix], zmin, zmax)
    heat = _heat(matrix, tokens, features, theme=theme, zmin=lo, zmax=hi, value_name=value_name)
    return _figure([heat], _layout(
        theme, title, int(min(900, max(300, 120 + 18 * len(tokens)))),
        xaxis={"title": {"text": "feature k"}, "tickmode": "auto"},
        yaxis={"title": {"text": "token"}, "autorange": "reversed", **_ticks(token_labels(tokens))},
    ))


def vector_grids(
    vectors: Sequence[np.ndarray],
    titles: Sequence[str],
    *,
    title: str = "",
    theme: Theme = NORMAL,
    cols: int = 30,
    value_name: str = "P",
) -> go.Figure:
    """Feature vectors folded into (rows × ``cols``) grids side by side on ONE scale (Shen Fig. 8)."""
    vecs = [np.asarray(v, np.float64).ravel() for v in vectors]
    size = max(v.size for v in vecs)
    rows = -(-size // cols)
    grids = []
    for v in vecs:
        padded = np.full(rows * cols, np.nan)
        padded[: v.size] = v
        grids.append(padded.reshape(rows, cols))
    lo, hi = _limits(grids, None, None)
    layout = _grid(1, len(grids), [html_escape(t) for t in titles], h_space=0.06, v_space=0.0,
                   font_size=theme.font_size)
    name = html_escape(value_name)
    index = np.arange(rows * cols).reshape(rows, cols)
    data = []
    for k, grid in enumerate(grids):
        xa, ya, xr, yr = _axis_names(k)
        data.append({
            "type": "heatmap",
            "z": grid,
            "customdata": index,
            "colorscale": _scale(theme.sequential),
            "zmin": lo,
            "zmax": hi,
            "showscale": k == len(grids) - 1,
            "colorbar": {"title": {"text": name}},
            "hovertemplate": f"feature %{{customdata}}<br>{name} = %{{z:.6g}}<extra></extra>",
            "xaxis": xr,
            "yaxis": yr,
        })
        layout[xa]["showticklabels"] = False
        layout[ya].update(showticklabels=False, autorange="reversed")
    layout.update(_layout(theme, title, 200 + 14 * rows + 2 * theme.font_size))
    return _figure(data, layout)


def mask_panels(
    panels: Mapping[str, np.ndarray],
    tokens: Sequence[str],
    *,
    title: str = "",
    theme: Theme = NORMAL,
    cols: int = 3,
) -> go.Figure:
    """Additive masks (0 / −∞ / −α|i−j|): finite cells on the sequential scale, −∞ cells in ``theme.masked``."""
    mats = [np.asarray(m, np.float64) for m in panels.values()]
    finite = [np.where(np.isfinite(m), m, np.nan) for m in mats]
    masked = [~np.isfinite(m) for m in mats]
    return heatmap_grid(
        finite,
        list(panels),
        tokens,
        title=title,
        theme=theme,
        cols=cols,
        value_name="mask value",
        masked=masked,
        zmax=0.0,
    )


def standalone_html(fig: go.Figure, config: dict | None = None) -> str:
    """A self-contained HTML page of ``fig``: plotly.js is inlined, so it opens offline (no CDN)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config=config or {})
