"""DiSAN token2token attention (Shen Fig. 6; Eqs. 15–18): forward and backward blocks side by side."""

from __future__ import annotations

from functools import partial

import numpy as np
import streamlit as st

from viz_app.draw import figures, live

from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, series_table, show_figure
from viz_app.shell.session import ensure
from viz_app.shell.state import REDUCTIONS
from viz_app.shell.widgets import (
    get_trace,
    live_feature,
    live_payload,
    require_arch,
    select_row_from_chart,
    sentence_of,
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


def _matrix(ctx: Context, block, direction: str, reduction: str, feature: int) -> np.ndarray:
    if reduction == "max":
        return block.probs_max
    if reduction == "entropy":
        entropy = loaders.entropy_matrix(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, direction)
        if entropy is None:
            st.warning(
                "Feature entropy needs the full per-feature tensor, which the trace keeps up to 256 tokens; "
                "showing the mean."
            )
            return block.attention
        return entropy
    if reduction == "feature":
        return loaders.feature_matrix(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, direction, feature)
    return block.attention


def render(ctx: Context) -> None:
    st.title("DiSAN attention (Shen Fig. 6)")
    if not require_arch(ctx, "disan", "Multi-dimensional token2token attention"):
        return
    tv = get_trace(ctx)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    ensure("reduce", "mean")
    left, right = st.columns([2, 1])
    reduction = left.radio(
        "Reduce over features", REDUCTIONS, key="reduce", horizontal=True, format_func=_REDUCTION_NAMES.get
    )
    feature, payload = 0, None
    if reduction == "feature":
        payload = live_payload(ctx, "features")
        with right if payload is None else left:
            feature = live_feature(ctx.d_h, payload)
    fw = _matrix(ctx, sent.fw, "fw", reduction, feature)
    bw = _matrix(ctx, sent.bw, "bw", reduction, feature)
    value = {"entropy": "H (normalised)", "feature": f"P[k={feature}]"}.get(reduction, "P")
    fig = figures.heatmap_grid(
        [fw, bw],
        [f"forward block (mask {tv.masks[0]})", f"backward block (mask {tv.masks[1]})"],
        sent.tokens,
        title=f"Token2token attention — {_REDUCTION_NAMES[reduction]}",
        theme=ctx.theme,
        value_name=value,
        clickable=True,
    )
    table = matrices_table({"forward": fw, "backward": bw}, sent.tokens, sent.tokens)
    shown = {f"P[k={feature}]": "P[k={feature}]"}
    by_feature = [{"op": "feature", "dir": "fw"}, {"op": "feature", "dir": "bw"}]
    show_figure(
        fig,
        ctx,
        key="disan_pair",
        table=table,
        trace_json=trace_json_source(ctx),
        on_select=partial(select_row_from_chart, "disan_pair"),
        live=_live(payload, live.grid_binding(fig, by_feature, shown, hover=True)) if payload else None,
    )
    st.caption(_EXPLAIN)
    if reduction in ("mean", "feature"):
        st.caption(f"Forward: {summary_text(fw)}  \nBackward: {summary_text(bw)}")
    token = token_select(sent.tokens, "Token (or click a heatmap row)")
    row = {"forward": fw[token], "backward": bw[token]}
    bars = figures.bar_chart(
        row, sent.tokens, title=f"Row #{token} '{sent.tokens[token]}': what it attends to", y_title=value,
        theme=ctx.theme,
    )
    row_binding = live.binding(
        [], rows=[{"trace": k, "z": z, "row": token} for k, z in enumerate(by_feature)],
        texts=live.templates(bars, shown),
    ) if payload else None
    show_figure(bars, ctx, key="disan_row", table=series_table(row, sent.tokens), live=_live(payload, row_binding))


def _live(payload: dict | None, binding: dict | None) -> dict | None:
    """The chart follows the feature slider in the page (``live.py``), or None on the server path."""
    if payload is None or binding is None:
        return None
    return {"group": "feature", "payload_id": payload["id"], "binding": binding}
