"""Explore (home): tokens with their vocabulary status, the prediction, and an overview of the main maps."""

from __future__ import annotations

import streamlit as st

from viz_app.shell import chart, loaders
from viz_app.shell.context import Context
from viz_app.draw.text import md_escape
from viz_app.shell.explorer import building, why_not
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrices_table, plain_table, series_table, show_page_figure
from viz_app.shell.widgets import (
    alpha_slider,
    get_trace,
    sentence_of,
    side_of,
    summary_line,
    trace_json_source,
)


def render(ctx: Context) -> None:
    st.title("Explore")
    st.caption("Type a sentence in the sidebar; every other view opens on the same sentence and model.")
    if ctx.is_dsa:
        alpha_slider(ctx, "Changes the distance mask of both blocks; the prediction is recomputed at this α.")
    tv = get_trace(ctx, alpha=ctx.trace_alpha)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    follow = follow_typing(ctx)
    # The tokens with their vocabulary status and the predicted label: the report's Tokens section, in the page.
    chart.draw_section(loaders.page_view(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.trace_alpha), "tokens",
                       key="tokens", params={"side": side_of(ctx, tv)},
                       follow={"text": ctx.text, "hypothesis": ctx.hypothesis or ""} if follow else None)
    st.caption(f"masks {tv.masks[0]}/{tv.masks[1]}" + (f" · α = {tv.alpha:g}" if tv.alpha is not None else ""))
    if not follow and (problem := why_not(ctx.model)):
        st.caption(md_escape(f"The maps follow a submitted sentence (Ctrl+Enter) only: {problem}"))
    elif not follow and not ctx.input_error and ctx.masks == "default" and building(ctx.model):
        st.caption(md_escape(f"The page's copy of {ctx.model} is still being built: until it is, the maps follow a "
                             "submitted sentence (Ctrl+Enter); the next one after it is ready follows typing."))
    left, right = st.columns([1, 2])
    trace_json = trace_json_source(ctx, ctx.trace_alpha)
    with left:
        table = plain_table({"probability": list(tv.prediction.values())}, index=list(tv.prediction))
        show_page_figure(ctx, "prediction", key="prediction", alpha=ctx.trace_alpha, table=table, trace_json=trace_json,
                         follow=follow)
    with right:
        pair = ("mean-" if tv.arch == "disan" else "alpha-mean-") + side_of(ctx, tv)
        table = matrices_table({"forward": sent.fw.attention, "backward": sent.bw.attention}, sent.tokens, sent.tokens)
        show_page_figure(ctx, pair, key="overview", alpha=ctx.trace_alpha, table=table, trace_json=trace_json,
                         follow=follow)
        st.caption(f"Forward: {summary_line(sent.fw.summary)}  \nBackward: {summary_line(sent.bw.summary)}")
    gates = {"forward gate": sent.fw.gate.mean(-1), "backward gate": sent.bw.gate.mean(-1)}
    show_page_figure(ctx, f"gate-{side_of(ctx, tv)}", key="overview_gate", alpha=ctx.trace_alpha,
                     table=series_table(gates, sent.tokens), follow=follow)

