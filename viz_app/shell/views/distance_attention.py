"""Distance-masked multi-head attention (Im Figs. 7, 12, 13; Eq. 7): head averages and every head."""

from __future__ import annotations

import streamlit as st

from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrices_table, show_page_figure
from viz_app.draw.records import TraceView
from viz_app.shell.session import write_url
from viz_app.shell.widgets import (
    get_trace,
    live_alpha,
    live_payload,
    require_arch,
    sentence_of,
    side_of,
    summary_text,
    trace_json_source,
)

VIEW = "distance_attention"


def render(ctx: Context) -> None:
    st.title("Distance-based attention (Im Figs. 7, 12, 13)")
    if not require_arch(ctx, "dsa", "Distance-masked multi-head attention"):
        return
    tv = get_trace(ctx)
    if tv is None:
        return
    alpha_panels(ctx, tv, follow_typing(ctx))


@st.fragment
def alpha_panels(ctx: Context, tv: TraceView, follow: bool) -> None:
    """The α slider and every map it changes. The page recomputes the maps while the slider moves
    (``live.py``); the final α reruns only this fragment (no sidebar, no encoder pass)."""
    payload = live_payload(ctx, "distance")
    alpha = live_alpha(
        ctx, "Re-weights the cached pre-softmax scores: softmax(QKᵀ/√d_k + M_dir + α·M_dis). No encoder pass.", payload
    )
    sent = sentence_of(ctx, tv)
    side = side_of(ctx, tv)
    heads = loaders.heads_at_alpha(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, alpha)
    fw, bw = heads["fw"].mean(0), heads["bw"].mean(0)
    # With the page recomputing α (a payload), the page view is the trained pass and each chart is drawn at
    # the slider's α; without, the server's figures come from a pass at α (Eq. 7: the same maps).
    at = None if payload is not None else alpha
    live = None if payload is None else {"group": "alpha", "payload_id": payload["id"]}
    table = matrices_table({"forward": fw, "backward": bw}, sent.tokens, sent.tokens)
    show_page_figure(ctx, f"alpha-mean-{side}", key="dsa_pair", alpha=at, table=table,
                     trace_json=trace_json_source(ctx), live=live, follow=follow)
    st.caption(
        f"Forward: {summary_text(fw)}  \nBackward: {summary_text(bw)}  \n"
        f"Attention maps at this α come from the cached scores QKᵀ/√d_k of the last encoder pass "
        f"(α only enters Eq. 7 after them, so they are exact). Gates, FFN, pooling and the prediction in other "
        f"views are recomputed by a full pass at α (trained α = {ctx.trained_alpha:g})."
    )
    for direction in ("fw", "bw"):
        stack = heads[direction]
        titles = [f"head {h + 1}" for h in range(stack.shape[0])]
        show_page_figure(ctx, f"alpha-heads-{direction}-{side}", key=f"dsa_heads_{direction}", alpha=at,
                         table=matrices_table(dict(zip(titles, stack)), sent.tokens, sent.tokens), live=live,
                         follow=follow)
    write_url(VIEW)  # a fragment rerun skips the app's own write_url: keep α in the link

