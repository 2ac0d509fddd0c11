"""Evidence: every case-study claim measured over a whole test set, per model, from the stored results.

Reads ``pretrained/<name>.claims.json`` (``python -m disan claims --all
--write``) and runs no model, so it opens instantly. Results whose checkpoint
changed are labelled stale (hollow markers, "(stale)") and never shown as current.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from disan.claims import GATE_CLAIMS, claim_by_id

from viz_app.draw import corpus_figures as cf
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.links import md_link, model_url, sentence_url
from viz_app.shell.results import (REFRESH_COMMAND, Results, forest_rows, forest_table, load_results,
                                   verdict_column_config, verdict_table)
from viz_app.shell.session import ensure
from viz_app.shell.state import DEFAULT_CLAIM
from viz_app.draw.text import md_escape
from . import evidence_corpus, evidence_faithfulness, evidence_plausibility, evidence_sanity, evidence_tables


def notices(results: Results) -> None:
    """Stale, missing and unreadable results, each with the command that fixes it."""
    for s in results.stored:
        if s.stale:
            st.warning(md_escape(f"{s.name}: STALE — {s.stale}; its numbers describe the old checkpoint. "
                                 f"Recompute with: {REFRESH_COMMAND}"))
    if results.missing:
        st.info(md_escape(f"No stored results for {', '.join(results.missing)}; compute them with: {REFRESH_COMMAND}"))
    for name, why in results.unreadable:
        st.error(md_escape(f"{name}: {why}. Recompute with: {REFRESH_COMMAND.replace('--stale-only', '')}".strip()))


def _claim_label(results: Results, claim_id: str) -> str:
    rows = results.with_claim(claim_id)
    text = rows[0][1]["claim"] if rows else claim_id
    figure = rows[0][1]["figure"] if rows else ""
    return f"{figure} — {text}"


def _pick_claim(results: Results) -> str:
    ids = results.claim_ids()
    ensure("claim", DEFAULT_CLAIM)
    if st.session_state["claim"] not in ids:
        st.info(md_escape(f"No stored result measures claim {st.session_state['claim']}; showing {ids[0]}."))
        st.session_state["claim"] = ids[0]
    return st.selectbox("Claim", ids, key="claim", format_func=lambda i: _claim_label(results, i))


def _examples(claim: dict, model: str) -> None:
    """The strongest and weakest sentences of one model, each a link to the view that draws it."""
    ex = claim.get("examples") or {}
    if not ex:
        return
    left, right = st.columns(2)
    for col, key, title in ((left, "strongest", "Strongest effect"), (right, "weakest", "Weakest (or reversed)")):
        with col:
            st.markdown(f"**{title}** ({md_escape(model)}; opens in the {md_escape(claim['view'])} view)")
            for row in ex.get(key, []):
                url = sentence_url(claim["id"], claim["view"], model, row["text"])
                st.markdown(f"- {md_link(md_escape(row['text']), url)} — {row['value']:+.3g}")


def claim_section(ctx: Context, results: Results) -> None:
    claim_id = _pick_claim(results)
    rows = results.with_claim(claim_id)
    first = rows[0][1]
    st.markdown(f"**Paper ({md_escape(first['figure'])}):** {md_escape(first['claim'])}\\.  \n"
                f"**Statistic:** {md_escape(first['statistic'])}\\.  \n"
                f"**No effect** = {first.get('no_effect', 0):g}; the claim is supported when the 95% interval lies "
                f"{'above' if first.get('direction', 1) > 0 else 'below'} it, inconclusive when it contains it\\.")
    rows_of_plot = forest_rows(results, claim_id)
    panel = cf.ForestPanel(claim_id, rows_of_plot, first.get("no_effect", 0.0), "value")
    show_figure(cf.forest_plot([panel], title=f"{first['figure']}: every model, 95% bootstrap interval",
                               theme=ctx.theme), ctx, key="ev_forest", table=partial(forest_table, rows_of_plot))
    names = [s.name for s, _ in rows]
    ensure("ev_model", ctx.model if ctx.model in names else names[0])
    if st.session_state["ev_model"] not in names:
        st.session_state["ev_model"] = ctx.model if ctx.model in names else names[0]
    model = st.selectbox("Distribution and examples of", names, key="ev_model")
    stored = results.by_name(model)
    claim = stored.claim(claim_id)
    if stored.stale:
        st.warning(md_escape(f"{model}'s results are stale ({stored.stale})."))
    if claim.get("distribution", {}).get("groups"):
        of = claim["distribution"].get("of", "sentences")
        x_title = {"tokens": "value of each token, by word class", "word pairs": "Pearson r of each word pair"}.get(
            of, "value of each sentence")
        show_figure(cf.distribution_plot(claim["distribution"], title=f"What the statistic is made of — {model}",
                                         x_title=x_title, theme=ctx.theme), ctx, key="ev_distribution")
    _examples(claim, model)
    st.markdown(md_link(f"Model page of {md_escape(model)}", model_url(model)))


def gate_section(ctx: Context, results: Results) -> None:
    st.markdown(
        "Both papers' fusion gate F weights the **input** side (Shen Eq. 20: u = F ⊙ h + (1 − F) ⊙ s; "
        "Im Eq. 12: F ⊙ S^F + (1 − F) ⊙ H^F), so a small F means a word takes context from attention. "
        "Shen Fig. 7 says stop words get small gates; Im Fig. 9 says 'of' and '.' get large ones: opposite claims "
        "about the same quantity, measured here on every model."
    )
    panels = []
    for claim_id in GATE_CLAIMS:
        c = claim_by_id(claim_id)
        rows = forest_rows(results, claim_id)
        if rows:
            side = "below" if c.direction < 0 else "above"
            panels.append(cf.ForestPanel(f"{c.figure}: supported {side} 0", rows, c.no_effect,
                                         "stop − content" if c.direction < 0 else "'of','.' − content"))
    if panels:
        show_figure(cf.forest_plot(panels, title="The two papers' gate claims, side by side", theme=ctx.theme),
                    ctx, key="ev_gates")


def render(ctx: Context) -> None:
    st.title("Evidence")
    st.caption(
        "Each case-study claim of both papers, measured over the whole test set of each model's task: value, "
        "95% bootstrap interval over sentences, n and verdict. Loaded from pretrained/<name>.claims.json "
        f"(made by `{REFRESH_COMMAND}`); nothing is recomputed here."
    )
    results = load_results()
    notices(results)
    if not results.stored:
        st.info(md_escape(f"No stored claim results yet. Compute them with: {REFRESH_COMMAND}"))
        evidence_faithfulness.render(ctx)
        return
    claims_tab, gates_tab, corpus_tab, table_tab, faith_tab, sanity_tab, plaus_tab, papers_tab = st.tabs(
        ["Claim by claim", "The two gate claims", "Accuracy and length (Shen Fig. 5, Im Figs. 5–6)", "Verdict table",
         "Attention as explanation", "Sanity checks (randomisation)", "Plausibility (human word labels)",
         "The papers' tables"])
    with claims_tab:
        claim_section(ctx, results)
    with gates_tab:
        gate_section(ctx, results)
    with corpus_tab:
        evidence_corpus.render(ctx, results)
    with table_tab:
        table = verdict_table(results)
        st.dataframe(table, width="stretch", column_config=verdict_column_config(table))
    with faith_tab:
        evidence_faithfulness.render(ctx)
    with sanity_tab:
        evidence_sanity.render(ctx)
    with plaus_tab:
        evidence_plausibility.render(ctx)
    with papers_tab:
        evidence_tables.render()
