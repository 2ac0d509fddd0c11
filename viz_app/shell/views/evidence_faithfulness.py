"""The Evidence view's "Attention as explanation" tab: attention against attributions over whole test sets.

Reads ``pretrained/<name>.faithfulness.json`` (``python -m disan faithfulness --all --write``);
runs no model.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from disan.attribution.corpus import FRACTIONS
from disan.attribution.stored import REFRESH_COMMAND

from viz_app.draw.faithfulness_figures import interval_plot
from viz_app.draw.published import comparison_rows
from viz_app.draw.text import md_escape
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.faithfulness_results import aopc_rows, eraser_table, load_faithfulness, rows_table, tau_rows
from viz_app.shell.links import md_link, view_url
from viz_app.shell.session import ensure

INTRO = (
    "Does the model use what it attends to? Jain & Wallace (2019) and Wiegreffe & Pinter (2019) ask whether "
    "attention ranks tokens as gradient and erasure attributions do. Per test example and its predicted class: "
    "Kendall τ-b between the source2token attention and each attribution (signed ones by magnitude; an NLI "
    "pair's τ is the mean of its two sentences'), and ERASER's comprehensiveness (the drop in the class "
    "probability when the top k% of tokens are deleted) and sufficiency (the drop when only they are kept; lower "
    "is better), at k = {fractions}, averaged here over the three levels. Intervals: 95% bootstrap over examples."
)


def render(ctx: Context) -> None:
    st.markdown(md_escape(INTRO.format(fractions=", ".join(f"{100 * f:g}%" for f in FRACTIONS))))
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
    st.caption("Agreement bands of mean |τ|: below 0.1 none, 0.1–0.3 weak, 0.3–0.5 moderate, from 0.5 strong "
               "(our convention). Attention flow is built from the attention weights themselves, so it is shown "
               "but not counted as an independent attribution.")
    rows = tau_rows(results)
    show_figure(interval_plot(rows, title="Kendall τ between attention and each attribution", x_title="Kendall τ-b",
                              theme=ctx.theme), ctx, key="ev_faith_tau", table=partial(rows_table, rows))
    for kind, better in (("comprehensiveness", "higher: removing the ranked tokens hurts more"),
                         ("sufficiency", "lower: the ranked tokens alone keep the prediction")):
        rows = aopc_rows(results, kind)
        show_figure(interval_plot(rows, title=f"ERASER {kind} by ranking (mean over 10/20/50%; {better})",
                                  x_title=f"{kind} (probability of the predicted class)", theme=ctx.theme),
                    ctx, key=f"ev_faith_{kind}", table=partial(rows_table, rows))
    st.markdown("**Beside Jain & Wallace (2019), Table 2**")
    st.dataframe(pd.DataFrame(comparison_rows(results.measured)), width="stretch", hide_index=True)
    st.caption("Theirs: mean ± std over test instances per predicted class (the fraction with p ≤ 0.05), BiLSTM "
               "with additive attention, binary SST; gradient = |gradient × input|, leave-one-out = total-variation "
               "distance after deleting the token. Ours: mean over every test example with its 95% bootstrap "
               "interval; leave-one-out replaces the token by <unk>. Different encoders: side by side, not a "
               "replication.")
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
        f"(max {ig['max_abs_delta']:.3f}); attention flow {'exact' if pick.data['flow']['exact'] else 'approximate'}"
        f", mean remainder {pick.data['flow']['mean_remainder']:.4f}; {pick.data['seconds']:,.0f} s."))
