"""DiSAN token2token attention (Shen Fig. 6; Eqs. 15–18): forward and backward blocks side by side."""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrices_table, series_table, show_page_figure
from viz_app.shell.session import ensure
from viz_app.shell.state import REDUCTIONS
from viz_app.shell.widgets import (
    get_trace,
    live_feature,
    live_payload,
    require_arch,
    select_row_from_chart,
    sentence_of,
    side_of,
    summary_text,
    token_select,
    trace_json_source,
)

_REDUCTION_NAMES = {
    "mean": "mean over features",
    "max": "max over features",
    "entropy": "feature entropy",
    "feature": "one feature k",
}
_EXPLAIN = (
    "DiSAN's probability P has one softmax per feature (Shen Eq. 15), shape T×T×d_h. **mean** averages the "
    "d_h maps (as in Shen Fig. 6); **max** takes the largest; **feature entropy** is, per cell, the entropy of "
    "the normalised feature profile q_k = P[i,j,k] / Σ_k P[i,j,k], divided by log d_h: 1 = every feature "
    "attends to this key equally, near 0 = a few features carry it (blank = masked cell); **one feature k** "
    "shows P[:, :, k]. Rows attend, columns are attended; the forward mask allows only earlier tokens, the "
    "backward mask only later ones (Shen Eqs. 17–18)."
)


def _matrices(ctx: Context, sent, reduction: str, feature: int) -> tuple[np.ndarray, np.ndarray]:
    """The two maps the page draws, for the table (the page computes its own from the trace view)."""
    if reduction == "max":
        return sent.fw.probs_max, sent.bw.probs_max
    if reduction == "entropy":
        return tuple(loaders.entropy_matrix(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, d)
                     for d in ("fw", "bw"))
    if reduction == "feature":
        return tuple(loaders.feature_matrix(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, d, feature)
                     for d in ("fw", "bw"))
    return sent.fw.attention, sent.bw.attention


def render(ctx: Context) -> None:
    st.title("DiSAN attention (Shen Fig. 6)")
    if not require_arch(ctx, "disan", "Multi-dimensional token2token attention"):
        return
    tv = get_trace(ctx)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    follow = follow_typing(ctx)
    ensure("reduce", "mean")
    left, right = st.columns([2, 1])
    reduction = left.radio(
        "Reduce over features", REDUCTIONS, key="reduce", horizontal=True, format_func=_REDUCTION_NAMES.get
    )
    per_feature = reduction in ("entropy", "feature")
    if per_feature and not loaders.has_per_feature(ctx.model, ctx.text, ctx.hypothesis, ctx.masks):
        st.warning(
            f"The {_REDUCTION_NAMES[reduction]} needs the full per-feature tensor, which the trace keeps only for "
            "shorter sentences; showing the mean. Shorten the sentence to see it."
        )
        reduction, per_feature = "mean", False
    feature, payload = 0, None
    if reduction == "feature":
        payload = live_payload(ctx, "features")
        with right if payload is None else left:
            feature = live_feature(ctx.d_h, payload)
    fw, bw = _matrices(ctx, sent, reduction, feature)
    live = {"group": "feature", "payload_id": payload["id"]} if payload else None
    params = {"side": side_of(ctx, tv), "reduction": reduction, "feature": feature}
    show_page_figure(
        ctx,
        "disan-pair",
        key="disan_pair",
        params=params,
        per_feature=per_feature,
        table=matrices_table({"forward": fw, "backward": bw}, sent.tokens, sent.tokens),
        trace_json=trace_json_source(ctx),
        on_select=partial(select_row_from_chart, "disan_pair"),
        live=live,
        follow=follow,
    )
    st.caption(_EXPLAIN)
    if reduction in ("mean", "feature"):
        st.caption(f"Forward: {summary_text(fw)}  \nBackward: {summary_text(bw)}")
    token = token_select(sent.tokens, "Token (or click a heatmap row)")
    row = {"forward": fw[token], "backward": bw[token]}
    show_page_figure(ctx, "disan-row", key="disan_row", params={**params, "token": token}, per_feature=per_feature,
                     table=series_table(row, sent.tokens), live=live, follow=follow)
