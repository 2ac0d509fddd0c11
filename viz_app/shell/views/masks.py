"""The masks themselves (Shen Fig. 3, Eqs. 16–18; Im Figs. 3–4, Eq. 7) for the current sentence length."""

from __future__ import annotations

import streamlit as st

import disan
from disan.masks import additive_mask, direction_mask, distance_mask

from viz_app.shell import chart

from viz_app.draw import live
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import matrices_table, show_page_figure
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import get_trace, live_alpha, side_of


def render(ctx: Context) -> None:
    st.title("Masks (Shen Fig. 3, Im Figs. 3–4)")
    if ctx.input_error:
        st.error(md_escape(ctx.input_error))
        return
    tokens = disan.tokenize(ctx.source_text)
    payload = live.live_key("masks", tokens) if chart.live_available() else None
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
    tv = get_trace(ctx)
    if tv is None:
        return
    # Drawn by the page from the sentence's length (Im Eq. 7's masks); the α panels follow the α control.
    show_page_figure(
        ctx,
        "masks",
        key="masks",
        params={"side": side_of(ctx, tv), "alpha": alpha},
        table=table,
        live=None if payload is None else {"group": "alpha", "payload_id": payload["id"]},
        follow=follow_typing(ctx),
    )
    st.caption(
        "Rows are the attending token, columns the attended token. Additive masks are added to the logits before "
        "the softmax: 0 leaves a cell as is, −∞ (grey, hover says −∞) forbids it, −α|i − j| penalises distance. "
        "The forward mask lets a token attend only to earlier tokens, the backward mask only to later ones; both "
        f"disable the diagonal. This model uses masks {ctx.masks!r} ({ctx.arch.upper()})."
    )
