"""Attribution: the model's own attention beside token attributions, and how alike they rank tokens.

Does the model use what it attends to? For the current sentence and a class (default:
the predicted one; a relatedness model's score ŷ = rᵀp̂, Tai, Socher & Manning 2015): source2token attention (and the DSA's whole pooling layer), gradient × input,
Integrated Gradients, leave-one-out, gated rollout and attention flow as aligned per-token bars, and
the Kendall τ between every two rankings (``disan.attribution``). The whole-test-set answer is on the
Evidence view's "Attention as explanation" tab.
"""

from __future__ import annotations

import streamlit as st

import disan
from disan.attribution import METHODS, method_text
from disan.relatedness import score_name

from viz_app.draw.attribution import LABELS, bars_params, ig_sentence, tau_params
from viz_app.draw.text import md_escape
from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing
from viz_app.shell.export import plain_table, series_table, show_page_figure
from viz_app.shell.links import md_link, view_url
from viz_app.shell.session import ensure
from viz_app.shell.sidebar import side_names
from viz_app.shell.waiting import wait_for
from viz_app.shell.widgets import alpha_slider, get_trace, side_of, trace_json_source

#: The line shown while the attributions are computed (it contains tests/test_app.py's COMPUTING).
COMPUTING = "Computing the attributions (gradient × input, Integrated Gradients, leave-one-out, rollout, flow)…"

PREDICTED = ""


def class_picker(ctx: Context, score: str | None = None) -> str | None:
    """Selectbox of the class explained (key ``cls``); returns the label, or None for the predicted class (a
    score model: its ``score`` ŷ = rᵀp̂, the value it predicts; a grade's probability only when picked)."""
    ensure("cls", PREDICTED)
    default = f"the {score} ŷ = rᵀp̂" if score else "the predicted class"
    if st.session_state["cls"] not in (PREDICTED, *ctx.labels):
        st.warning(md_escape(f"cls={st.session_state['cls']} is not a class of {ctx.model}; explaining {default} "
                             f"(choose one of {', '.join(ctx.labels)})."))
        st.session_state["cls"] = PREDICTED
    if score:
        label, named = "Output explained", lambda c: f"the probability of grade {c}"
    else:
        label, named = "Class explained", str
    choice = st.selectbox(label, (PREDICTED, *ctx.labels), key="cls", format_func=lambda c: named(c) if c else default)
    return choice or None


def methods_caption(view) -> str:
    ig = ig_sentence(view)
    graph = ("Gated rollout and attention flow walk DiSAN's exact layer graph, given this input's weights."
             if view.rollout_exact else
             "Gated rollout and attention flow for the distance-based model walk a layer graph that is exact through "
             "pooling, gates and the attention's mixing of values, and approximate through the head average, the FFN "
             "and the LayerNorms.")
    shown = view.sides[0].methods
    lines = [f"**{md_escape(label)}:** {md_escape(method_text(m, view.explains_score, len(view.sides) > 1))}."
             for m, (label, _) in METHODS.items() if m in shown]
    return "  \n".join(lines + [md_escape(ig), md_escape(graph)])


def render(ctx: Context) -> None:
    st.title("Attribution — does the model use what it attends to?")
    cfg = loaders.model_config(ctx.model)
    score = score_name(cfg.pair) if cfg.relatedness else None
    explained = f"the {score} ŷ = rᵀp̂" if score else "the class probability"
    st.caption(f"The model's own source2token attention, and series composed from its weights (gated rollout, "
               f"attention flow), beside three attributions of {explained}, one bar group per token, and "
               "how alike they rank the tokens (Jain & Wallace 2019; Wiegreffe & Pinter 2019; Abnar & Zuidema "
               "2020). Each series is scaled to its largest magnitude; the table has the raw values.")
    if ctx.is_dsa:
        alpha_slider(ctx, "The attributions explain the model at this α (a full pass).")
    if ctx.input_error:
        st.error(md_escape(ctx.input_error))
        return
    target = class_picker(ctx, score)
    tv = get_trace(ctx, alpha=ctx.trace_alpha)
    if tv is None:
        return
    # The attention maps follow the sentence at once; the attributions are computed in a background thread while
    # this run waits below the maps (shell/waiting.py; a DSA sentence of 64 tokens takes about half a second of CPU).
    what = "mean over features" if tv.arch == "disan" else "mean over heads"
    st.caption(f"The model's own token2token attention ({what}), drawn at once; the attributions below follow "
               "when computed.")
    pair = ("mean-" if tv.arch == "disan" else "alpha-mean-") + side_of(ctx, tv)
    show_page_figure(ctx, pair, key="attr_maps", alpha=ctx.trace_alpha, follow=follow_typing(ctx))
    job = loaders.attribution_job(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.trace_alpha, target)
    wait_for(job, COMPUTING)
    if isinstance(job.exception(), disan.DisanError):
        st.error(md_escape(str(job.exception())))
        return
    _attributions(ctx, job.result(), side_names(loaders.model_config(ctx.model)))



def _attributions(ctx: Context, view, names: tuple[str, str]) -> None:
    side = view.side(ctx.side)
    shown = names[1] if ctx.side == "hypothesis" else names[0]  # the sidebar's name of the side drawn
    what = f" ({shown})" if ctx.pair else ""
    if view.explains_score:
        st.markdown(md_escape(f"Explaining the predicted {view.score_name} ŷ = rᵀp̂ = {view.probability:.3f} "
                              f"(the expectation over the grades, Tai, Socher & Manning 2015){what}; the "
                              "attributions are in units of that score."))
    else:
        st.markdown(md_escape(f"Explaining '{view.target}' (p = {view.probability:.3f}){what}."))
    raw = {LABELS[m]: v for m, v in side.scores.items()}
    if side.vector_shares is not None:
        raw["gated rollout, share of the vector"] = side.vector_shares
    show_page_figure(ctx, "attribution-bars", key="attr_bars", alpha=ctx.trace_alpha,
                     params=bars_params(side, ctx.side, f"Attention and attributions per token{what}"),
                     table=series_table(raw, side.tokens), trace_json=trace_json_source(ctx, ctx.trace_alpha))
    st.markdown(methods_caption(view))
    if side.rollout_remainder > 0:
        st.caption(md_escape(f"The rollout's mixing weights add up to {1 - side.rollout_remainder:.4f}: the remaining "
                             f"{side.rollout_remainder:.4f} goes to rows with no allowed key (the first token under "
                             "the forward mask, the last under the backward mask), whose attention output is zero."))
    if side.vector_shares is not None:
        top = max(range(len(side.tokens)), key=lambda i: side.vector_shares[i])
        st.caption(md_escape(
            "Rollout's bars are shares of the mixing weights A_i[k] (s[k] = Σ_i A_i[k] h_i[k]), not of the sentence "
            "vector: a token whose h_i[k] is near zero keeps its weight. Its share of the vector itself, "
            "|A_i[k] h_i[k]| / Σ_i |A_i[k] h_i[k]| averaged over features, is largest for "
            f"'{side.tokens[top]}' ({side.vector_shares[top]:.3f}); the table lists it per token."))
    if ctx.pair:
        explained = f"the {view.score_name}" if view.explains_score else "one class probability"
        st.caption(md_escape(f"Gradient, IG and leave-one-out score every token of {names[0]} and {names[1]} for "
                             f"{explained}; attention, rollout and flow are per sentence (the tied encoder reads "
                             "each alone). Switch sentences with 'Draw' in the sidebar."))
    names = [LABELS[m] for m in side.methods]
    table = plain_table(side.tau, index=names, columns=names)
    show_page_figure(ctx, "tau", key="attr_tau", alpha=ctx.trace_alpha, table=table,
                     params=tau_params(side, f"Kendall τ between the rankings{what}"))
    st.caption("Kendall τ-b over this sentence's tokens: +1 = the same order, 0 = unrelated, −1 = reversed. "
               "Signed attributions are ranked by magnitude (attention has no sign).")
    st.markdown(md_link("The same comparison over the whole test set (Evidence → Attention as explanation) ↗",
                        view_url("evidence", model=ctx.model)))
