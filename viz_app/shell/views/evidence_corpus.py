"""The papers' corpus figures drawn from our stored results: Shen Fig. 5, Im Figs. 5 and 6."""

from __future__ import annotations

import streamlit as st

from disan.claims_file import ABLATIONS

from viz_app.draw import corpus_figures as cf
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.results import Results
from viz_app.draw.text import md_escape

SST_TASKS = ("sst5", "sst2")
NLI_TASKS = ("nli", "snli")


def _label(s) -> str:
    acc = s.data["accuracy"]
    lo, hi = acc["ci95"]
    return f"{s.label}: {100 * acc['value']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def shen_fig5(ctx: Context, results: Results) -> None:
    sst = [s for s in results.stored if s.data["task"] in SST_TASKS]
    st.subheader("Shen Fig. 5 — SST accuracy against sentence length")
    if not sst:
        st.info("No stored SST results.")
        return
    series = {_label(s): s.data["accuracy_by_length"] for s in sst}
    show_figure(cf.accuracy_by_length_plot(series, title="Test accuracy by sentence length (95% intervals)",
                                           x_title="sentence length (tokens)", theme=ctx.theme), ctx, key="ev_shen5")
    st.caption("Buckets hold the sentences with lo ≤ length < hi; points sit at the bucket middle. Shen et al. "
               "report DiSAN strongest for 5–12 tokens and weak from 38 tokens on (claim shen5-long-sentences).")


def im_fig5(ctx: Context, results: Results) -> None:
    nli = [s for s in results.stored if s.data["task"] in NLI_TASKS]
    st.subheader("Im Fig. 5 — SNLI test: average length of the two sentences")
    if not nli:
        st.info("No stored NLI results.")
        return
    s = nli[0]
    dist = s.data["length_distribution"]
    n = sum(d["n"] for d in dist)
    show_figure(cf.length_histogram(dist, title=f"{s.data['split']} split, {n:,} pairs",
                                    x_title="mean of premise and hypothesis length (tokens)", theme=ctx.theme),
                ctx, key="ev_im5")


def im_fig6(ctx: Context, results: Results) -> None:
    st.subheader("Im Fig. 6 — accuracy by average pair length, with and without the distance mask")
    pairs = [(a, b) for a, b in ABLATIONS.items() if results.by_name(a) and results.by_name(b)
             and results.by_name(a).data["task"] in NLI_TASKS]
    if not pairs:
        st.info("Needs stored results of an NLI model and its no-distance-mask ablation (dsa-nli, dsa-nli-nodist).")
        return
    for with_mask, without in pairs:
        a, b = results.by_name(with_mask), results.by_name(without)
        series = {f"with the distance mask — {_label(a)}": a.data["accuracy_by_length"],
                  f"without — {_label(b)}": b.data["accuracy_by_length"]}
        show_figure(cf.accuracy_by_length_plot(series, title=f"{with_mask} vs {without}",
                                               x_title="mean of premise and hypothesis length (tokens)",
                                               theme=ctx.theme), ctx, key=f"ev_im6_{with_mask}")
        claim = a.claim("im6-distance-mask-long")
        if claim:
            lo, hi = claim["ci95"]
            st.markdown(md_escape(
                f"On the {claim['n']} pairs of mean length ≥ 25: {with_mask} − {without} = "
                f"{100 * claim['value']:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}] (paired bootstrap) → "
                f"{claim['verdict']}."))


def render(ctx: Context, results: Results) -> None:
    shen_fig5(ctx, results)
    im_fig5(ctx, results)
    im_fig6(ctx, results)
