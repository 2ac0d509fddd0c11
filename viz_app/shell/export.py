"""Exports: each figure with its mode-bar image, HTML, CSV, trace JSON and a table; the whole report."""

from __future__ import annotations

import re
from html import escape
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import disan

from viz_app.shell import chart, loaders

from viz_app.draw import report, site
from viz_app.shell.context import Context
from viz_app.draw.figures import standalone_html
from viz_app.draw.text import md_escape

if TYPE_CHECKING:
    import pandas as pd

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: A figure's table, built only when someone opens its "Table and downloads" (``show_figure``): building every
#: table on every rerun cost each submit time for nothing, and importing pandas cost the first page 0.4 s.
Table = Callable[[], "pd.DataFrame"]


def chart_key(key: str) -> str:
    """Session key of a chart's selection state (prefixed so it never collides with a widget key)."""
    return f"chart_{key}"


def chart_config(name: str, image_format: str) -> dict:
    """Plotly config: the camera button saves ``image_format`` (svg or png); no logo, no cloud links."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": image_format, "filename": name, "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }


def safe_name(text: str) -> str:
    """A file-name stem from any text."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80] or "figure"


def _cell_label(text: str) -> str:
    """Spreadsheet-safe label: a leading ``= + - @`` would be read as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def token_index(tokens: Sequence[str]) -> list[str]:
    """``#i token`` labels, unique even for repeated tokens, spreadsheet-safe."""
    return [_cell_label(f"#{i} {t}") for i, t in enumerate(tokens)]


def _series_frame(series: Mapping[str, Sequence[float]], tokens: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({k: np.asarray(v, dtype=np.float64) for k, v in series.items()}, index=token_index(tokens))


def _matrix_frame(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str] | None = None) -> pd.DataFrame:
    import pandas as pd

    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    return pd.DataFrame(matrix, index=token_index(rows), columns=token_index(cols) if cols is not None else None)


def _matrices_frame(panels: Mapping[str, np.ndarray], rows: Sequence[str], cols: Sequence[str] | None) -> pd.DataFrame:
    import pandas as pd

    return pd.concat({name: _matrix_frame(m, rows, cols) for name, m in panels.items()}, axis=1)


def _plain_frame(data, index: Sequence[str] | None, columns: Sequence[str] | None) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(data, index=None if index is None else list(index),
                        columns=None if columns is None else list(columns))


def series_table(series: Mapping[str, Sequence[float]], tokens: Sequence[str]) -> Table:
    """One column per series, one row per token."""
    return partial(_series_frame, series, tokens)


def matrix_table(matrix: np.ndarray, rows: Sequence[str], cols: Sequence[str] | None = None) -> Table:
    """A 2-D matrix with ``#i token`` labels (unique even for repeated tokens)."""
    return partial(_matrix_frame, matrix, rows, cols)


def matrices_table(panels: Mapping[str, np.ndarray], rows: Sequence[str], cols: Sequence[str] | None = None) -> Table:
    """Several matrices side by side, one column group per panel name (``matrix_table`` labels)."""
    return partial(_matrices_frame, dict(panels), rows, cols)


def plain_table(data, index: Sequence[str] | None = None, columns: Sequence[str] | None = None) -> Table:
    """``pd.DataFrame(data, index, columns)`` with labels as given (method names, class labels)."""
    return partial(_plain_frame, data, index, columns)


def show_figure(
    fig: go.Figure,
    ctx: Context,
    *,
    key: str,
    table: Table | None = None,
    trace_json: Callable[[], str] | None = None,
) -> None:
    """Draw ``fig``, a figure of a whole corpus that the server builds (Evidence, Models), and, outside
    presentation mode, a table fallback and download buttons."""
    name = safe_name(f"{key}-{ctx.model}")
    config = chart_config(name, ctx.image_format)
    chart.draw(fig, key=chart_key(key), config=config)
    _table_and_downloads(ctx, key, name, table, trace_json, lambda: standalone_html(fig, config))


#: The inputs of one trace: (model, text, hypothesis, masks, alpha), as ``loaders.full_trace`` takes them.
Inputs = tuple[str, str, "str | None", str, "float | None"]


def show_page_figure(
    ctx: Context,
    figure: str,
    *,
    key: str,
    alpha: float | None = None,
    params: dict | None = None,
    sentences: Sequence[Inputs] | None = None,
    per_feature: bool = False,
    table: Table | None = None,
    trace_json: Callable[[], str] | None = None,
    on_select: Callable[[], None] | None = None,
    live: dict | None = None,
    follow: bool = False,
) -> None:
    """Draw the page's figure ``figure`` (``viz_app/browser/sections.js``: a figure of the report's page, or a
    ``define``d one with ``params``) of the current sentence at ``alpha`` (or of the traces of ``sentences``),
    as the report and the static site draw it, with the table and downloads of ``show_figure``. A figure of one
    trace downloads as the report of that one figure. ``live``: ``{"group", "payload_id"}`` of a slider;
    ``per_feature``: the figure reads DiSAN's per-feature P (``loaders.page_view``); ``follow``: it follows
    typing (``chart.typing_control``)."""
    name = safe_name(f"{key}-{ctx.model}")
    config = chart_config(name, ctx.image_format)
    if sentences is None:
        sentences = [(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, alpha)]
    views = [loaders.page_view(*inputs, per_feature) for inputs in sentences]
    # A chart of several views follows typing when they are one sentence of one model under other masks (the
    # page derives them: recompute.js remask).
    one = len({(s[0], s[1], s[2]) for s in sentences}) == 1
    # The model and α name the drawing too: a rerun that brings what the page drew from its own run of the typed
    # text keeps that drawing (chart.js adoptTyped). α as the page's model runs it (follow.follow_typing).
    # Sentences at several α (a page's single run cannot be all of them) name none: the server's drawing is kept.
    alpha_run = sentences[0][4] if sentences[0][4] is not None else (ctx.alpha if ctx.is_dsa else None)
    alpha_run = alpha_run if len({s[4] for s in sentences}) == 1 else "several"
    shown = ({"text": sentences[0][1], "hypothesis": sentences[0][2] or "", "masks": [s[3] for s in sentences],
              "model": sentences[0][0], "alpha": alpha_run} if follow and one else None)
    chart.draw_figure(views, figure, key=chart_key(key), theme=ctx.theme.name, config=config, params=params,
                      on_select=on_select, live=live, follow=shown)
    html = None
    if len(sentences) == 1:  # the report of this one figure (a figure of two traces has none: PNG/SVG only)
        html = lambda: report.report_html(loaders.full_trace(*sentences[0]), only=figure, params=params)  # noqa: E731
    _table_and_downloads(ctx, key, name, table, trace_json, html)


def _table_and_downloads(ctx: Context, key: str, name: str, table: Table | None,
                         trace_json: Callable[[], str] | None, html: Callable[[], str] | None) -> None:
    """Outside presentation mode: the "Table and downloads" expander, built only once opened.

    The HTML download is self-contained (plotly.js inlined, no CDN); the table (``table``, a ``Table``) is
    built once the expander is open and drawn when its toggle is on, and HTML, CSV and JSON are built only when
    clicked."""
    if ctx.presentation:
        return
    more = st.expander("Table and downloads", key=f"{key}_more", on_change="rerun")
    if not more.open:
        # Its toggle, columns and buttons are built once opened: they were a third of the elements every
        # submit sent and the page re-rendered (issue 19).
        return
    with more:
        # Tables and file contents are built only on demand: serialising every matrix to Arrow and CSV on
        # every rerun was the largest part of the Distance view's server time in a profile.
        frame = None if table is None else table()
        if frame is not None and st.toggle("Show the numbers as a table", key=f"{key}_table"):
            st.dataframe(frame, width="stretch")
        downloads = [] if html is None else [
            ("HTML (self-contained)", _html_bytes(html), f"{name}.html", "text/html", "html")]
        if frame is not None:
            downloads.append(("Matrix as CSV", lambda: frame.to_csv().encode("utf-8"), f"{name}.csv", "text/csv", "csv"))
        if trace_json is not None:
            downloads.append(("Trace as JSON", trace_json, f"{name}-trace.json", "application/json", "json"))
        for col, (label, data, file_name, mime, suffix) in zip(st.columns(3), downloads):
            col.download_button(
                label, data=data, file_name=file_name, mime=mime, key=f"{key}_{suffix}", on_click="ignore"
            )


def _html_bytes(html: Callable[[], str]) -> Callable[[], bytes]:
    """The download's bytes; a figure whose report cannot be written (a sentence longer than a report holds)
    downloads a one-line page that says why, rather than failing the click."""
    def build() -> bytes:
        try:
            return html().encode("utf-8")
        except disan.InputError as err:
            return f"<!DOCTYPE html><meta charset=utf-8><p>{escape(str(err))}</p>".encode("utf-8")

    return build


def report_bytes(model: str, text: str, hypothesis: str | None, masks: str, alpha: float | None) -> bytes:
    """The standalone report (``python -m viz_app report``) of these inputs, from the cached trace."""
    return report.report_html(loaders.full_trace(model, text, hypothesis, masks, alpha)).encode("utf-8")


def report_download(ctx: Context) -> None:
    """The export area: "Download report" for the current sentence and model, built only when clicked."""
    st.subheader("Export")
    if ctx.input_error:
        st.caption("Type a valid sentence to download its report.")
        return
    try:
        report.check_text(ctx.text, ctx.hypothesis, loaders.model_config(ctx.model).input_names)
    except disan.InputError as err:
        st.caption(md_escape(str(err)))
        return
    st.download_button(
        "Download report",
        data=partial(report_bytes, ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.trace_alpha),
        file_name=f"{safe_name(f'report-{ctx.model}-{ctx.source_text[:40]}')}.html",
        mime="text/html",
        key="report_download",
        on_click="ignore",
        help="One HTML file with this sentence's figures, the α / feature controls and a talk mode; opens offline.",
    )


@st.cache_data(max_entries=2, show_spinner="Building the explorer (exporting the model to ONNX)…")
def explorer_zip(model: str, text: str, hypothesis: str | None) -> bytes:
    """The static explorer of ``model`` as a zip, opening on this sentence (cached: an export takes seconds)."""
    return site.site_zip(model, (text, hypothesis or ""))


def explorer_download(ctx: Context) -> None:
    """ "Download explorer": the static explorer (``python -m viz_app site``) of the current model, as a zip."""
    if ctx.random_weights or ctx.input_error:
        st.caption("The explorer download needs a trained model and a valid sentence.")
        return
    try:
        site.ort_dir()
    except disan.DisanError as err:
        st.caption(md_escape(str(err)))
        return
    st.download_button(
        "Download explorer (zip)",
        data=partial(explorer_zip, ctx.model, ctx.text, ctx.hypothesis),
        file_name=f"{safe_name(f'explorer-{ctx.model}')}.zip",
        mime="application/zip",
        key="explorer_download",
        on_click="ignore",
        help="A folder where this model runs in the browser: type any sentence, no server; open index.html from "
        "disk or put the folder on any static host. It opens on the current sentence.",
    )
