"""The masks themselves (Shen Fig. 3, Eqs. 16–18; Im Figs. 3–4, Eq. 7) for the current sentence length."""

from __future__ import annotations

import streamlit as st

import disan
from disan.masks import additive_mask, direction_mask, distance_mask

from viz_app.shell import chart

from viz_app.draw import figures, live
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, show_figure
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import live_alpha


def render(ctx: Context) -> None:
    st.title("Masks (Shen Fig. 3, Im Figs. 3–4)")
    if ctx.input_error:
        st.error(md_escape(ctx.input_error))
        return
    tokens = disan.tokenize(ctx.source_text)
    payload = live.mask_payload(tokens) if chart.live_available() else None  # only T is needed
    alpha = live_alpha(ctx, "Weight of the distance mask in Im Eq. 7 (the DSA is trained with α = 1.5).", payload)
    T = len(tokens)
    dist = alpha * distance_mask(T)
    panels = {
        "M_diag (Shen Eq. 16)": additive_mask(direction_mask(T, "diag")),
        "M_fw (Shen Eq. 17, Im Fig. 3a)": additive_mask(direction_mask(T, "fw")),
        "M_bw (Shen Eq. 18, Im Fig. 3b)": additive_mask(direction_mask(T, "bw")),
        f"α·M_dis, α = {alpha:g} (Im Fig. 4)": dist,
        "M_fw + α·M_dis (Im Eq. 7)": additive_mask(direction_mask(T, "fw")) + dist,
        "M_bw + α·M_dis (Im Eq. 7)": additive_mask(direction_mask(T, "bw")) + dist,
    }
    panels = {k: v.numpy() for k, v in panels.items()}
    table = matrices_table(panels, tokens, tokens)
    fig = figures.mask_panels(panels, tokens, title=f"Masks for T = {T} tokens", theme=ctx.theme)
    # Every panel is M_dir + a·M_dis: a = 0 for the pure direction masks, the slider's α for the others.
    exprs = [{"op": "mask", "dir": kind, "alpha": 0.0} for kind in ("diag", "fw", "bw")]
    exprs += [{"op": "mask", "dir": kind} for kind in ("none", "fw", "bw")]
    binding = live.grid_binding(fig, exprs, {f"α = {live.format_value(alpha)}": "α = {alpha}"}, zmax=0.0)
    show_figure(
        fig,
        ctx,
        key="masks",
        table=table,
        live=None if payload is None else {"group": "alpha", "payload_id": payload["id"], "binding": binding},
    )
    st.caption(
        "Rows are the attending token, columns the attended token. Additive masks are added to the logits before "
        "the softmax: 0 leaves a cell as is, −∞ (grey, hover says −∞) forbids it, −α|i − j| penalises distance. "
        "The forward mask lets a token attend only to earlier tokens, the backward mask only to later ones; both "
        f"disable the diagonal. This model uses masks {ctx.masks!r} ({ctx.arch.upper()})."
    )
