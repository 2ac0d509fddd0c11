"""The Evidence view's "Attention as explanation" tab: attention against attributions over whole test sets.

Reads ``pretrained/<name>.faithfulness.json`` (``python -m disan faithfulness --all --write``);
runs no model.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from disan.attribution.corpus import FRACTIONS, OUR_BINS, TAU_BANDS
from disan.attribution.stored import REFRESH_COMMAND

from viz_app.draw.faithfulness_figures import interval_plot
from viz_app.draw.published import CAPTION, comparison_rows
from viz_app.draw.text import md_escape
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.faithfulness_results import (agreement_rows, aopc_rows, eraser_table, load_faithfulness,
                                                naopc_examples, rows_table, tau_rows)
from viz_app.shell.links import md_link, view_url
from viz_app.shell.session import ensure

INTRO = (
    "Does the model use what it attends to? Jain & Wallace (2019) and Wiegreffe & Pinter (2019) ask whether "
    "attention ranks tokens as gradient and erasure attributions do. Per test example and its predicted class: "
    "Kendall τ-b between the source2token attention and each attribution (signed ones by magnitude; an NLI "
    "pair's τ is the mean of its two sentences'), read beside the τ of the attributions with each other; and "
    "ERASER's comprehensiveness (the drop in the predicted class's probability, a relatedness model's score, "
    "when the top k% of tokens are "
    "deleted) and sufficiency (the drop when only they are kept; lower is better), at k = {fractions}: ours "
    "averages {ours}, ERASER's AOPC sums all five and divides by 6. Intervals: 95% bootstrap over examples."
)

#: The AOPC figures, in order: (result key, what it averages, chart-key suffix). NAOPC: Edin et al. 2024.
AOPC_FIGURES = (
    ("aopc", "ours: mean over 10/20/50%", ""),
    ("aopc_eraser", "ERASER's AOPC: {1,5,10,20,50}%, ÷ 6", "_eraser"),
    ("aopc_steps", "Edin et al.'s AOPC: every step, masked tokens <unk>", "_steps"),
    ("naopc", "Edin et al. 2024, per example between the worst and the best ordering of its tokens", "_naopc"),
)


def band_caption() -> str:
    """The bands of the signed mean τ, from ``TAU_BANDS``."""
    parts, low = [], None
    for limit, name in TAU_BANDS:
        span = (f"below {limit:+g}" if low is None else f"from {low:+g}" if limit == float("inf")
                else f"{low:+g} to {limit:+g}")
        parts.append(f"{span} {name}")
        low = limit
    return "Bands of the signed mean τ (our convention): " + ", ".join(parts) + "."


def render(ctx: Context) -> None:
    st.markdown(md_escape(INTRO.format(fractions=", ".join(f"{100 * f:g}%" for f in FRACTIONS),
                                       ours="/".join(f"{100 * f:g}" for f in OUR_BINS) + "%")))
    st.markdown(md_link("One sentence at a time: the Attribution view ↗", view_url("attribution", model=ctx.model)))
    results = load_faithfulness()
    for m in results.measured:
        if m.stale:
            st.warning(md_escape(f"{m.name}: STALE — {m.stale}. Recompute with: {REFRESH_COMMAND}"))
    if results.missing:
        st.info(md_escape(f"No faithfulness results for {', '.join(results.missing)}; compute them with: "
                          f"{REFRESH_COMMAND}"))
    for name, why in results.unreadable:
        st.error(md_escape(f"{name}: {why}. Recompute with: {REFRESH_COMMAND.replace(' --stale-only', '')}"))
    if not results.measured:
        return
    st.markdown("**The answer, per model**")
    for m in results.measured:
        sample = ("" if m.data.get("complete") else
                  f" (a random sample of {m.data['n']:,} of the {m.data['n_examples']:,} test examples)")
        st.markdown("- " + md_escape(m.data["answer"] + sample + (" (stale)" if m.stale else "")))
    st.caption(md_escape(band_caption() + " Gated rollout and attention flow are built from the attention weights "
                         "themselves, so they are shown but not counted as independent attributions."))
    for version in (1, 2):
        old = [m.name for m in results.measured if m.not_computed and m.data.get("migrated_from") == version]
        if old:
            lacking = ("attention flow, the agreement intervals, the like-for-like Jain & Wallace row, the DSA's "
                       "pooling series, ERASER's AOPC and the normalised AOPC" if version == 1 else
                       "the normalised AOPC (NAOPC, Edin et al. 2024)")
            st.info(md_escape(f"{', '.join(old)}: measured with schema {version} and migrated; {lacking} "
                              "were not computed for them. Recompute with: python -m disan faithfulness "
                              "--model NAME --write"))
    rows = agreement_rows(results)
    if rows:
        show_figure(interval_plot(rows, title="Attention's agreement with its attributions, beside theirs with each "
                                              "other (mean Kendall τ per example)", x_title="Kendall τ-b",
                                  theme=ctx.theme), ctx, key="ev_faith_agreement", table=partial(rows_table, rows))
    rows = tau_rows(results)
    show_figure(interval_plot(rows, title="Kendall τ per pair: attention ~ each attribution, the attributions with "
                                          "each other, attention ~ the series built from it",
                              x_title="Kendall τ-b", theme=ctx.theme), ctx, key="ev_faith_tau",
                table=partial(rows_table, rows))
    pooled = [(m.name, m.data["pooling"]) for m in results.measured if m.data.get("pooling")]
    if pooled:
        st.caption(md_escape(
            "The DSA's sentence vector is half source2token pooling and half max pooling (Im Sec. 4.2); the "
            "attention series decides only the first half. Source2token's share of Σ|s|: " + "; ".join(
                f"{name} {p['source2token_l1_share']['value']:.3f} [{p['source2token_l1_share']['ci95'][0]:.3f}, "
                f"{p['source2token_l1_share']['ci95'][1]:.3f}]" for name, p in pooled)
            + ". The pooling series (source2token + max pool) ranks tokens by their weight in the whole pooling."))
    for which, bins, suffix in AOPC_FIGURES:
        for kind, better in (("comprehensiveness", "higher: deleting the ranked tokens lowers the probability more"),
                             ("sufficiency", "lower: the ranked tokens alone keep the probability")):
            rows = aopc_rows(results, kind, which)
            if not rows:
                continue  # not in these files (NAOPC: schema 3 onwards)
            if which == "naopc":
                title, x_title = (f"Normalised AOPC, {kind}, by ranking ({bins}; higher: closer to the best "
                                  "ordering)"), f"NAOPC of {kind} (0 = the worst ordering, 1 = the best)"
                if kind == "comprehensiveness":
                    st.caption(md_escape("NAOPC is measured on a seeded sample of at most 1,000 of each test set's "
                                         "examples (its bounds' searches are most of a run's time); examples: "
                                         + naopc_examples(results.measured) + "."))
            else:
                title = f"{'ERASER ' if which != 'aopc_steps' else ''}{kind} by ranking ({bins}; {better})"
                x_title = f"{kind} (drop in the predicted class's probability or score)"
            show_figure(interval_plot(rows, title=title, x_title=x_title, theme=ctx.theme),
                        ctx, key=f"ev_faith_{kind}{suffix}", table=partial(rows_table, rows))
    st.markdown("**Beside Jain & Wallace (2019), Table 2**")
    st.dataframe(pd.DataFrame(comparison_rows(results.measured)), width="stretch", hide_index=True)
    st.caption(md_escape(CAPTION))
    names = [m.name for m in results.measured]
    ensure("ev_faith_model", ctx.model if ctx.model in names else names[0])
    if st.session_state["ev_faith_model"] not in names:
        st.session_state["ev_faith_model"] = names[0]
    pick = results.by_name(st.selectbox("Every level of", names, key="ev_faith_model"))
    st.dataframe(eraser_table(pick), width="stretch")
    ig = pick.data["integrated_gradients"]
    st.caption(md_escape(
        f"{pick.name}: n = {pick.data['n']:,} of {pick.data['n_examples']:,} examples; Integrated Gradients "
        f"{ig['steps']} steps from the {ig['baseline']}, mean |convergence delta| {ig['mean_abs_delta']:.4f} "
        f"(max {ig['max_abs_delta']:.3f}); gated rollout {'exact' if pick.data['rollout']['exact'] else 'approximate'}"
        f", mean remainder {pick.data['rollout']['mean_remainder']:.4f}; {pick.data['seconds']:,.0f} s."))
