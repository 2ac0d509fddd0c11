"""One click per case-study figure of both papers, on the papers' own sentences, with a measured verdict."""

from __future__ import annotations

import streamlit as st

from viz_app.shell import models
from viz_app.shell.context import Context
from viz_app.shell.session import ensure
from viz_app.shell.state import PAPER_FIGURES
from . import paper_im, paper_shen

FIGURES = {
    "shen6": ("Shen Fig. 6 — token2token attention", "disan", paper_shen.fig6),
    "shen7": ("Shen Fig. 7 — fusion gate", "disan", paper_shen.fig7),
    "shen8": ("Shen Fig. 8 — source2token vectors", "disan", paper_shen.fig8),
    "im7": ("Im Fig. 7 — head-averaged attention", "dsa", paper_im.fig7),
    "im8": ("Im Fig. 8 — with / without distance mask", "dsa", paper_im.fig8),
    "im9": ("Im Fig. 9 — fusion gate", "dsa", paper_im.fig9),
    "im10": ("Im Fig. 10 — position-wise FFN", "dsa", paper_im.fig10),
    "im11": ("Im Fig. 11 — pooling", "dsa", paper_im.fig11),
    "im12": ("Im Fig. 12 — forward heads", "dsa", paper_im.fig12),
    "im13": ("Im Fig. 13 — backward heads", "dsa", paper_im.fig13),
}


def _model_picker(ctx: Context, arch: str, key: str, label: str) -> str:
    """Models of ``arch``: the current model if it has that arch, else the best case-study model."""
    names = [n for n in ctx.models if models.arch_of(n) == arch]
    start = ctx.model if ctx.arch == arch else models.best_of_arch(arch, ctx.models)
    if st.session_state.get(key) not in names:
        st.session_state[key] = start if start in names else names[0]
    return st.selectbox(label, names, key=key, format_func=models.label)


def render(ctx: Context) -> None:
    st.title("Paper figures")
    st.caption(
        "Each button redraws one case-study figure on the paper's sentence with the chosen model and "
        "measures the paper's claim on it. NLI models are shown on the premise side (the tied encoder "
        "gives the same premise trace whatever the hypothesis)."
    )
    left, right = st.columns(2)
    with left:
        shen_model = _model_picker(ctx, "disan", "shen_model", "Model for Shen et al. figures")
    with right:
        im_model = _model_picker(ctx, "dsa", "im_model", "Model for Im & Cho figures")
    ensure("fig", PAPER_FIGURES[0])
    choice = st.pills("Figure", list(FIGURES), key="fig", format_func=lambda f: FIGURES[f][0])
    if choice is None:
        st.info("Pick a figure above.")
        return
    title, arch, draw = FIGURES[choice]
    st.subheader(title)
    draw(ctx, shen_model if arch == "disan" else im_model)
