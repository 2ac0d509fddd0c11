"""Masked vs unmasked on one colour scale, with A − B (Shen Tables 1–2 ablations; Im Fig. 8, Table 1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from viz_app.draw import settings
from viz_app.shell import loaders, models
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrices_table, show_page_figure
from viz_app.shell.session import ensure
from viz_app.shell.state import COMPARE_MODES, NO_DIRECTION_MASKS
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import (
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


def _inputs(ctx: Context, masks: str) -> tuple:
    return ctx.model, ctx.text, ctx.hypothesis, masks, None


@dataclass(frozen=True)
class Pair:
    """What the view compares: maps A and B (for the table and the summary), the inputs of the traces the
    page draws them from (``export.Inputs``), and the "compare" figure's parameters (``sections.js``)."""

    a: np.ndarray
    b: np.ndarray
    tokens: tuple
    views: list
    params: dict
    payload: dict | None = None


def _same_weights(ctx: Context, mode: str, direction: str) -> Pair | None:
    if mode == "distance":
        payload = live_payload(ctx, "distance")
        alpha = live_alpha(
            ctx, "Panel A uses this α, panel B α = 0; both re-weighted from cached scores (no encoder pass).", payload
        )
        a = _attention(ctx, ctx.masks, direction, alpha)
        b = _attention(ctx, ctx.masks, direction, 0.0)
        if a is None or b is None:
            return None
        params = {"alphas": [alpha, 0.0], "titles": [f"α = {alpha:g}", "α = 0 (no distance mask)"],
                  "live": payload is not None}
        return Pair(a[0], b[0], a[1], [_inputs(ctx, ctx.masks)], params, payload)
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
    if a is None or b is None:
        return None
    params = {"alphas": [alpha, alpha], "titles": ["trained direction masks", f"masks {b_masks}"]}
    return Pair(a[0], b[0], a[1], [_inputs(ctx, "default"), _inputs(ctx, b_masks)], params)


def _ablation(ctx: Context, direction: str) -> Pair | None:
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
    views = [(name, ctx.text, settings.DEFAULT_HYPOTHESIS if loaders.model_config(name).pair else None, "default",
              None) for name in (a_name, b_name)]
    return Pair(out[0].premise.block(direction).attention, out[1].premise.block(direction).attention,
                out[0].premise.tokens, views, {"titles": titles, "side": "premise"})


def render(ctx: Context) -> None:
    st.title("Compare: masked vs unmasked")
    ensure("cmp", "direction")
    modes = COMPARE_MODES if ctx.is_dsa else tuple(m for m in COMPARE_MODES if m != "distance")
    if st.session_state["cmp"] not in modes:
        st.session_state["cmp"] = "direction"
    mode = st.radio("Compare", modes, key="cmp", format_func=_MODE_NAMES.get, horizontal=True)
    direction = direction_radio()
    pair = _ablation(ctx, direction) if mode == "ablation" else _same_weights(ctx, mode, direction)
    if pair is None:
        return
    a, b = pair.a, pair.b
    # The page's model follows typing where it can draw both panels: one model under other direction masks or α
    # (recompute.js remask: the logits before the mask); a second model keeps the submit path.
    follow = mode != "ablation" and follow_typing(ctx)
    show_page_figure(
        ctx,
        "compare",
        key="compare",
        sentences=pair.views,
        params={"side": ctx.side, "dir": direction, **pair.params},
        table=matrices_table({"A": a, "B": b, "A − B": a - b}, pair.tokens, pair.tokens),
        live=None if pair.payload is None else {"group": "alpha", "payload_id": pair.payload["id"]},
        follow=follow,
    )
    st.markdown(f"**A** — {summary_text(a)}  \n**B** — {summary_text(b)}")
    st.caption(
        "Mean attention distance Σ_j P[i,j]·|i − j| and row entropy −Σ_j P log P, averaged over rows that "
        "attend (disan.stats.summarize). The difference panel is A − B on a diverging scale centred at 0."
    )
