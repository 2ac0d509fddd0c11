"""Fusion gate F (Shen Eq. 19, Fig. 7; Im Eq. 12, Fig. 9): how much each token keeps its input."""

from __future__ import annotations

import streamlit as st

from viz_app.draw import claims
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrix_table, series_table, show_page_figure
from viz_app.shell.widgets import (
    alpha_slider,
    caption_claim,
    direction_radio,
    get_trace,
    sentence_of,
    side_of,
    trace_json_source,
)

_EXPLAIN = {
    "disan": "DiSAN (Shen Eqs. 19–20): F = σ(W⁽ᶠ¹⁾s + W⁽ᶠ²⁾h + b⁽ᶠ⁾), u = F ⊙ h + (1 − F) ⊙ s — a large F keeps "
    "the token's own input h, a small F takes the attention output s (its context).",
    "dsa": "Distance-based SAN (Im Eqs. 11–12): F = σ(S_F + H_F + b_F), fused = F ⊙ S_F + (1 − F) ⊙ H_F with S_F "
    "from the input and H_F from the multi-head attention — a large F keeps the input, a small F the attention.",
}


def render(ctx: Context) -> None:
    st.title("Fusion gate (Shen Fig. 7, Im Fig. 9)")
    if ctx.is_dsa:
        alpha_slider(ctx, "Gates depend on α through the attention output; recomputed by a full pass at this α.")
    tv = get_trace(ctx, alpha=ctx.trace_alpha)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    follow = follow_typing(ctx)
    means = {"forward": sent.fw.gate.mean(-1), "backward": sent.bw.gate.mean(-1)}
    show_page_figure(
        ctx,
        f"gate-{side_of(ctx, tv)}",
        key="gate_bars",
        alpha=ctx.trace_alpha,
        table=series_table(means, sent.tokens),
        trace_json=trace_json_source(ctx, ctx.trace_alpha),
        follow=follow,
    )
    st.caption(_EXPLAIN[tv.arch])
    caption_claim(
        claims.gate_by_word_type((means["forward"] + means["backward"]) / 2, sent.tokens, True, "Shen Fig. 7"), ctx.model
    )
    caption_claim(claims.gate_by_word_type(means["forward"], sent.tokens, False, "Im Fig. 9 (forward block)"), ctx.model)
    direction = direction_radio("Token × feature map: block")
    gate = sent.block(direction).gate
    show_page_figure(
        ctx,
        "gate-features",
        key="gate_features",
        alpha=ctx.trace_alpha,
        params={"side": side_of(ctx, tv), "dir": direction},
        table=matrix_table(gate, sent.tokens, [f"feature {k}" for k in range(gate.shape[1])]),
        follow=follow,
    )
