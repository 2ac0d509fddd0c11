"""Position-wise FFN and pooling (Im Figs. 10–11; Eqs. 13–16)."""

from __future__ import annotations

import streamlit as st

from viz_app.draw import claims
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import series_table, show_page_figure
from viz_app.shell.widgets import (
    alpha_slider,
    caption_claim,
    get_trace,
    require_arch,
    sentence_of,
    side_of,
    trace_json_source,
)


def render(ctx: Context) -> None:
    st.title("FFN and pooling (Im Figs. 10, 11)")
    if ctx.arch == "disan":
        tv = get_trace(ctx)
        if tv is not None:
            sent = sentence_of(ctx, tv)
            follow = follow_typing(ctx)
            weight = {"source2token weight": sent.s2t.mean(-1)}
            show_page_figure(ctx, f"s2t-mean-{side_of(ctx, tv)}", key="disan_pool",
                             table=series_table(weight, sent.tokens), trace_json=trace_json_source(ctx),
                             follow=follow)
        require_arch(ctx, "dsa", "A position-wise FFN and max pooling")
        return
    alpha_slider(ctx, "FFN and pooling are recomputed by a full encoder pass at this α (cached per α).")
    tv = get_trace(ctx, alpha=ctx.trace_alpha)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    follow = follow_typing(ctx)
    source = trace_json_source(ctx, ctx.trace_alpha)
    ffn = {"forward": sent.fw.ffn_deactivation, "backward": sent.bw.ffn_deactivation}
    side = side_of(ctx, tv)
    show_page_figure(ctx, f"ffn-deact-{side}", key="ffn_deact", alpha=ctx.trace_alpha,
                     table=series_table(ffn, sent.tokens), trace_json=source, follow=follow)
    ln = {"forward": sent.fw.ln_max, "backward": sent.bw.ln_max}
    show_page_figure(ctx, f"ffn-max-{side}", key="ffn_max", alpha=ctx.trace_alpha, table=series_table(ln, sent.tokens),
                     follow=follow)
    caption_claim(claims.ffn_keywords(sent.fw.ffn_deactivation, sent.fw.ln_max, sent.tokens), ctx.model)
    pool = {
        "multi-dimensional attention (mean over 2d features)": sent.s2t.mean(-1),
        "share of features won in max pooling": sent.maxpool_share,
    }
    show_page_figure(ctx, f"pool-{side}", key="pooling", alpha=ctx.trace_alpha, table=series_table(pool, sent.tokens),
                     follow=follow)
    st.caption(
        "Im Eqs. 14–16: the sentence vector is [Σ_t softmax(L)_t ⊙ U_t ; max_t U_t]. (a) averages softmax(L) "
        "over its 2d_e features; (b) is the share of the 2d_e features whose maximum comes from this token."
    )
    caption_claim(claims.pooling_agreement(sent.s2t.mean(-1), sent.maxpool_share), ctx.model)
