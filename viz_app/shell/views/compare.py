"""Masked vs unmasked on one colour scale, with A − B (Shen Tables 1–2 ablations; Im Fig. 8, Table 3)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from viz_app.draw import figures, live

from viz_app.shell import loaders, models
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, show_figure
from viz_app.shell.session import ensure
from viz_app.shell.state import COMPARE_MODES, NO_DIRECTION_MASKS
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import (
    DIRECTION_NAMES,
    alpha_slider,
    direction_radio,
    get_trace,
    live_alpha,
    live_payload,
    summary_text,
    trace_for,
)

_MODE_NAMES = {
    "direction": "direction masks on / off (same weights)",
    "distance": "distance mask α vs α = 0 (same weights)",
    "ablation": "separately trained ablation",
}


def _attention(ctx: Context, masks: str, direction: str, alpha: float | None) -> tuple[np.ndarray, tuple] | None:
    """(head/feature-averaged attention, tokens) of the current model; DSA maps re-weighted to ``alpha``."""
    tv = get_trace(ctx, masks=masks)
    if tv is None:
        return None
    sent = tv.side(ctx.side)
    if tv.arch == "disan":
        return sent.block(direction).attention, sent.tokens
    heads = loaders.heads_at_alpha(ctx.model, ctx.text, ctx.hypothesis, masks, ctx.side, alpha)
    return heads[direction].mean(0), sent.tokens


def _panels(a, b, title_a: str, title_b: str, live_payload: dict | None = None):
    if a is None or b is None:
        return None
    return a[0], b[0], title_a, title_b, a[1], live_payload


def _same_weights(ctx: Context, mode: str, direction: str):
    if mode == "distance":
        payload = live_payload(ctx, "distance")
        alpha = live_alpha(
            ctx, "Panel A uses this α, panel B α = 0; both re-weighted from cached scores (no encoder pass).", payload
        )
        a = _attention(ctx, ctx.masks, direction, alpha)
        b = _attention(ctx, ctx.masks, direction, 0.0)
        return _panels(a, b, f"α = {alpha:g}", "α = 0 (no distance mask)", payload)
    ensure("cmp_b", "none")
    b_masks = st.radio(
        "Panel B masks",
        NO_DIRECTION_MASKS,
        key="cmp_b",
        horizontal=True,
        format_func={"none": "none (attend everywhere)", "diag": "diag (all but itself)"}.get,
    )
    alpha = alpha_slider(ctx, "Both panels at this α, re-weighted from cached scores.") if ctx.is_dsa else None
    a = _attention(ctx, "default", direction, alpha)
    b = _attention(ctx, b_masks, direction, alpha)
    return _panels(a, b, "trained direction masks", f"masks {b_masks}")


def _ablation(ctx: Context, direction: str):
    pairs = models.ablation_pairs(ctx.models)
    labels = [f"{a} vs {b}" for a, b, _ in pairs]
    start = next((i for i, (a, b, _) in enumerate(pairs) if ctx.model in (a, b)), 0)
    ensure("cmp_pair", labels[start])
    choice = st.selectbox("Pair", labels, key="cmp_pair")
    a_name, b_name, missing = pairs[labels.index(choice)]
    if missing:
        st.warning(
            md_escape(
                f"Checkpoint {' and '.join(missing)} is missing (expected pretrained/{missing[0]}.safetensors); "
                "train it or pick another pair. The other two modes override masks on one model instead."
            )
        )
        return None
    out = []
    for name in (a_name, b_name):
        tv = trace_for(name, ctx.text)
        if tv is None:
            return None
        out.append(tv)
    if out[0].premise.tokens != out[1].premise.tokens:
        st.error("The two models tokenised the sentence differently; they cannot be compared cell by cell.")
        return None
    titles = [f"{tv.model} (α = {tv.alpha:g})" if tv.alpha is not None else tv.model for tv in out]
    return (
        out[0].premise.block(direction).attention,
        out[1].premise.block(direction).attention,
        titles[0],
        titles[1],
        out[0].premise.tokens,
        None,
    )


def render(ctx: Context) -> None:
    st.title("Compare: masked vs unmasked")
    ensure("cmp", "direction")
    modes = COMPARE_MODES if ctx.is_dsa else tuple(m for m in COMPARE_MODES if m != "distance")
    if st.session_state["cmp"] not in modes:
        st.session_state["cmp"] = "direction"
    mode = st.radio("Compare", modes, key="cmp", format_func=_MODE_NAMES.get, horizontal=True)
    direction = direction_radio()
    result = _ablation(ctx, direction) if mode == "ablation" else _same_weights(ctx, mode, direction)
    if result is None:
        return
    a, b, title_a, title_b, tokens, payload = result
    what = "mean over features" if ctx.arch == "disan" else "mean over heads"
    fig = figures.compare_heatmaps(
        a,
        b,
        tokens,
        titles=(f"A: {title_a}", f"B: {title_b}"),
        theme=ctx.theme,
        title=f"{DIRECTION_NAMES[direction].capitalize()} block, {what} — A and B share one colour scale",
    )
    table = matrices_table({"A": a, "B": b, "A − B": a - b}, tokens, tokens)
    show_figure(fig, ctx, key="compare", table=table, live=None if payload is None else _live(payload, fig, direction, title_a))
    st.markdown(f"**A** — {summary_text(a)}  \n**B** — {summary_text(b)}")
    st.caption(
        "Mean attention distance Σ_j P[i,j]·|i − j| and row entropy −Σ_j P log P, averaged over rows that "
        "attend (disan.stats.summarize). The difference panel is A − B on a diverging scale centred at 0."
    )


def _live(payload: dict, fig, direction: str, title_a: str) -> dict:
    """A (α from the slider), B (α = 0) and A − B recomputed in the page (Im Eq. 7 from cached scores)."""
    a, b, diff = live.panel_traces(fig)
    at_alpha = {"op": "mean", "dir": direction}
    at_zero = {"op": "mean", "dir": direction, "alpha": 0.0}
    binding = live.binding(
        [
            {"trace": a, "z": at_alpha},
            {"trace": b, "z": at_zero},
            {"trace": diff, "z": {"op": "diff", "a": at_alpha, "b": at_zero}},
        ],
        scales=[live.shared_scale([a, b]), live.shared_scale([diff], diverging=True)],
        texts=live.templates(fig, {f"A: {title_a}": "A: α = {alpha}"}),  # "A: " keeps B's "α = 0" untouched
    )
    return {"group": "alpha", "payload_id": payload["id"], "binding": binding}
