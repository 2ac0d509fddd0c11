"""Pure Plotly figure builders: numpy in, ``go.Figure`` out (no Streamlit import).

Every text argument (tokens, titles, labels) is *plain text*; builders escape
``& < > "`` themselves because Plotly renders a subset of HTML in labels and
hover text. Axes are numeric with token tick labels, so repeated tokens keep
their own row and column. Heatmaps put token 0 at the top; rows are the
attending token and columns the attended token, as in both papers' figures.
Hover text shows the exact value with its row and column token.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .reduce import block_mean
from .settings import CELL_TEXT_MAX, SMALL_MULTIPLE_MAX
from .text import html_escape
from .theme import NORMAL, Theme

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
    data = np.empty((len(r), len(c), 2), dtype=object)
    for i, row in enumerate(r):
        data[i, :, 0] = row
        data[i, :, 1] = c
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
) -> go.Heatmap:
    z = np.asarray(z, dtype=np.float64)
    name = html_escape(value_name)
    return go.Heatmap(
        z=np.where(np.isfinite(z), z, np.nan),
        x=np.arange(z.shape[1]),
        y=np.arange(z.shape[0]),
        customdata=cell_customdata(rows, cols),
        hovertemplate=f"row: %{{customdata[0]}}<br>column: %{{customdata[1]}}<br>{name} = %{{z:.6g}}<extra></extra>",
        colorscale=colorscale or theme.sequential,
        zmin=zmin,
        zmax=zmax,
        zmid=zmid,
        showscale=showscale,
        colorbar={"title": {"text": name}, **(colorbar or {})},
        texttemplate="%{z:.2f}" if show_text else None,
        textfont={"size": max(9, theme.font_size - 3)},
        xgap=0,
        ygap=0,
    )


def _masked_overlay(masked: np.ndarray, rows: Sequence[str], cols: Sequence[str], theme: Theme) -> go.Heatmap:
    """Masked (−∞) cells in ``theme.masked``, a colour outside every scale, with ``−∞`` hover text."""
    z = np.where(masked, 1.0, np.nan)
    small = masked.shape[0] <= 2 * CELL_TEXT_MAX
    return go.Heatmap(
        z=z,
        x=np.arange(z.shape[1]),
        y=np.arange(z.shape[0]),
        customdata=cell_customdata(rows, cols),
        hovertemplate="row: %{customdata[0]}<br>column: %{customdata[1]}<br>value = −∞ (masked)<extra></extra>",
        colorscale=[[0, theme.masked], [1, theme.masked]],
        showscale=False,
        text=np.where(masked, "−∞", "") if small else None,
        texttemplate="%{text}" if small else None,
        textfont={"size": max(9, theme.font_size - 3), "color": "#333333"},
        name="masked",
    )


def _click_layer(z: np.ndarray, rows: Sequence[str], cols: Sequence[str], value_name: str) -> go.Scatter:
    """Invisible markers on every cell: Plotly heatmaps cannot be selected, scatter points can.

    Clicking a cell selects its marker, so the app learns the row (the token) that was clicked;
    the markers also carry the hover text (row, column, exact value).
    """
    R, C = z.shape
    yy, xx = np.mgrid[0:R, 0:C]
    data = cell_customdata(rows, cols).reshape(R * C, 2)
    values = np.asarray(z, np.float64).ravel()
    custom = np.column_stack([data, np.where(np.isfinite(values), values, np.nan)])
    name = html_escape(value_name)
    invisible = {"marker": {"opacity": 0}}
    return go.Scatter(
        x=xx.ravel(),
        y=yy.ravel(),
        mode="markers",
        customdata=custom,
        showlegend=False,
        marker={"opacity": 0, "size": 12, "symbol": "square"},
        selected=invisible,
        unselected=invisible,
        hovertemplate=(
            f"row: %{{customdata[0]}}<br>column: %{{customdata[1]}}<br>{name} = %{{customdata[2]:.6g}}<extra></extra>"
        ),
        name="cells",
    )


def _style(fig: go.Figure, theme: Theme, title: str, height: int) -> go.Figure:
    fig.update_layout(
        template=theme.template,
        title={"text": html_escape(title), "x": 0.01, "xanchor": "left"},
        font={"size": theme.font_size},
        height=height,
        margin={"l": 10, "r": 10, "t": 60 + theme.font_size, "b": 10},
    )
    return fig


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
    fig = go.Figure(
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
    )
    if masked is not None and masked.any():
        fig.add_trace(_masked_overlay(masked, row_tokens, col_tokens, theme))
    height = _square_height(z.shape[0], theme)
    limit = _tick_limit(height, theme)
    fig.update_xaxes(title=x_title, tickangle=-60, **_ticks(token_labels(col_tokens), limit))
    fig.update_yaxes(title=y_title, autorange="reversed", **_ticks(token_labels(row_tokens), limit))
    return _style(fig, theme, title, height)


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
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[html_escape(t) for t in titles],
        horizontal_spacing=0.06 if cols > 1 else 0.02,
        vertical_spacing=0.12 if rows > 1 else 0.05,
    )
    T = len(row_tokens)
    show_ticks = T <= (GRID_TICK_MAX if cols > 2 else TICK_MAX)
    per = panel_height or int(min(760, max(260, 90 + theme.cell_height * T * (1.0 if cols <= 2 else 0.6))))
    limit = _tick_limit(per, theme)
    for k, mat in enumerate(mats):
        r, c = k // cols + 1, k % cols + 1
        fig.add_trace(
            _heat(
                mat,
                row_tokens,
                col_tokens,
                theme=theme,
                zmin=lo,
                zmax=hi,
                value_name=value_name,
                showscale=k == n - 1,
                show_text=n <= 2 and T <= CELL_TEXT_MAX,
            ),
            row=r,
            col=c,
        )
        mask = None if masked is None else masked[k]
        if mask is not None and mask.any():
            fig.add_trace(_masked_overlay(mask, row_tokens, col_tokens, theme), row=r, col=c)
        if clickable:
            fig.data[-1].update(hoverinfo="skip", customdata=None, hovertemplate=None)
            fig.add_trace(_click_layer(np.asarray(mat, np.float64), row_tokens, col_tokens, value_name), row=r, col=c)
        bottom = k + cols >= n  # no panel below: label the columns here
        fig.update_xaxes(
            row=r,
            col=c,
            tickangle=-60,
            showticklabels=show_ticks and bottom,
            **_ticks(token_labels(col_tokens), limit),
        )
        fig.update_yaxes(
            row=r,
            col=c,
            autorange="reversed",
            showticklabels=show_ticks and c == 1,
            **_ticks(token_labels(row_tokens), limit),
        )
    fig.update_annotations(font_size=theme.font_size)
    return _style(fig, theme, title, per * rows + 40)


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
    fig = make_subplots(
        rows=1,
        cols=3,
        horizontal_spacing=0.09,
        subplot_titles=[html_escape(titles[0]), html_escape(titles[1]), html_escape(f"{titles[0]} − {titles[1]}")],
    )
    small = len(tokens) <= CELL_TEXT_MAX // 2
    shared = {"theme": theme, "zmin": lo, "zmax": hi, "value_name": value_name, "show_text": small}
    fig.add_trace(_heat(a, tokens, tokens, showscale=False, **shared), row=1, col=1)
    fig.add_trace(
        _heat(b, tokens, tokens, showscale=True, colorbar={"x": 0.645, "len": 0.9, "thickness": 12}, **shared),
        row=1,
        col=2,
    )
    fig.add_trace(
        _heat(
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
        ),
        row=1,
        col=3,
    )
    labels = token_labels(tokens)
    show = len(tokens) <= GRID_TICK_MAX * 2
    height = int(min(640, max(340, 110 + theme.cell_height * len(tokens) * 0.7)))
    limit = _tick_limit(height, theme)
    fig.update_xaxes(tickangle=-60, showticklabels=show, **_ticks(labels, limit))
    fig.update_yaxes(autorange="reversed", showticklabels=False, **_ticks(labels, limit))
    fig.update_yaxes(row=1, col=1, showticklabels=show)
    fig.update_annotations(font_size=theme.font_size)
    return _style(fig, theme, title, height)


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
    fig = go.Figure()
    hover = _hover_labels(tokens)
    for k, (name, values) in enumerate(series.items()):
        fig.add_trace(
            go.Bar(
                x=np.arange(len(tokens)),
                y=np.asarray(values, np.float64),
                name=html_escape(name),
                marker_color=theme.categorical[k % len(theme.categorical)],
                customdata=hover,
                hovertemplate=f"%{{customdata}}<br>{html_escape(name)} = %{{y:.6g}}<extra></extra>",
            )
        )
    fig.update_layout(barmode="group", showlegend=len(series) > 1, legend={"orientation": "h", "y": 1.12})
    fig.update_xaxes(tickangle=-60, **_ticks(token_labels(tokens)))
    fig.update_yaxes(title=html_escape(y_title), range=list(y_range) if y_range else None)
    return _style(fig, theme, title, 360 + 4 * theme.font_size)


def prediction_chart(prediction: Mapping[str, float], *, title: str = "Prediction", theme: Theme = NORMAL) -> go.Figure:
    """Horizontal bars of label probabilities; the predicted label in the accent colour."""
    labels = list(prediction)
    values = [float(prediction[k]) for k in labels]
    best = int(np.argmax(values)) if values else -1
    colors = [theme.categorical[1] if i == best else theme.categorical[0] for i in range(len(labels))]
    fig = go.Figure(
        go.Bar(
            y=[html_escape(k) for k in labels],
            x=values,
            orientation="h",
            marker_color=colors,
            hovertemplate="%{y}: %{x:.4f}<extra></extra>",
            text=[f"{v:.2f}" for v in values],
            textposition="outside",
            textangle=0,
            cliponaxis=False,
        )
    )
    fig.update_xaxes(title="probability", range=[0, 1])
    fig.update_yaxes(autorange="reversed")
    return _style(fig, theme, title, 120 + 40 * max(1, len(labels)) + 2 * theme.font_size)


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
    fig = go.Figure(_heat(matrix, tokens, features, theme=theme, zmin=lo, zmax=hi, value_name=value_name))
    fig.update_xaxes(title="feature k", tickmode="auto")
    fig.update_yaxes(title="token", autorange="reversed", **_ticks(token_labels(tokens)))
    return _style(fig, theme, title, int(min(900, max(300, 120 + 18 * len(tokens)))))


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
    fig = make_subplots(
        rows=1, cols=len(grids), subplot_titles=[html_escape(t) for t in titles], horizontal_spacing=0.06
    )
    name = html_escape(value_name)
    for k, grid in enumerate(grids):
        index = np.arange(rows * cols).reshape(rows, cols)
        fig.add_trace(
            go.Heatmap(
                z=grid,
                customdata=index,
                colorscale=theme.sequential,
                zmin=lo,
                zmax=hi,
                showscale=k == len(grids) - 1,
                colorbar={"title": {"text": name}},
                hovertemplate=f"feature %{{customdata}}<br>{name} = %{{z:.6g}}<extra></extra>",
            ),
            row=1,
            col=k + 1,
        )
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False, autorange="reversed")
    fig.update_annotations(font_size=theme.font_size)
    return _style(fig, theme, title, 200 + 14 * rows + 2 * theme.font_size)


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
