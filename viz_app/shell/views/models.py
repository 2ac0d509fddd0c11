"""Models: one page per bundled checkpoint — data, recipe, cost, test scores with their intervals, plots.

Reads the model card (``pretrained/<name>.json``) and the stored claims
(``<name>.claims.json``); runs no model. The page follows the sidebar's model. A classifier shows its test
accuracy, confusion matrix and accuracy by length; a relatedness model (SICK) its Pearson's r, Spearman's ρ and
MSE, a scatter of predicted against gold relatedness and Pearson's r by length; a model of several seeds or folds
lists them.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import disan.api
from disan.card_relatedness import is_relatedness
from disan.cards import read_card

from viz_app.draw import corpus_figures as cf
from viz_app.draw import model_pages as mp
from viz_app.shell import models
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.links import claim_url, md_link
from viz_app.shell.results import REFRESH_COMMAND, load_results
from viz_app.draw.verdicts import on_test_set_with_n
from viz_app.draw.text import md_escape, md_escape_code

_PICK = "models_pick"


def _switch() -> None:
    st.session_state["model"] = st.session_state[_PICK]


def _pick(ctx: Context) -> str | None:
    names = models.trained(ctx.models)
    if not names:
        st.info("No trained checkpoint in pretrained/; every model here has random weights.")
        return None
    if ctx.model not in names:
        st.info(md_escape(f"{ctx.model} has random weights and no card; showing {names[0]}."))
    current = ctx.model if ctx.model in names else names[0]
    st.session_state[_PICK] = current
    st.selectbox("Checkpoint (also sets the sidebar model)", names, key=_PICK, on_change=_switch)
    return current


def _title(name: str, card: dict) -> None:
    train = card.get("train", {})
    mcfg = train.get("model_config", {})
    task = train.get("train_config", {}).get("task", "?")
    st.markdown(f"### {md_escape(name)} — {md_escape(str(mcfg.get('arch', '?')).upper())} on {md_escape(task)}")


def _cost(cols, train: dict) -> None:
    steps = mp.total_steps(train)
    cols[2].metric("Optimizer steps", f"{steps:,}" if steps else "–")
    cols[3].metric("Wall time", mp.wall_time(train), help=train.get("hardware"))


def _fold_note(card: dict) -> str:
    fold = card.get("evaluation", {}).get("test", {}).get("fold")
    return "" if fold is None else f" on the test part of fold {fold}"


def headline(name: str, card: dict, acc: mp.Accuracy | None) -> None:
    _title(name, card)
    cols = st.columns(4)
    cols[0].metric("Test accuracy", f"{100 * acc.value:.2f}%" if acc else "–",
                   help=acc.text() + f"{_fold_note(card)} — from the {acc.source}" if acc else None)
    cols[1].metric("95% interval", f"{100 * acc.lo:.1f}–{100 * acc.hi:.1f}%" if acc and acc.lo is not None else "–")
    _cost(cols, card.get("train", {}))


def relatedness_headline(name: str, card: dict, scores: list[mp.Score] | None) -> None:
    _title(name, card)
    cols = st.columns(4)
    pearson = scores[0] if scores else None
    cols[0].metric("Test Pearson's r", f"{pearson.value:.4f}" if pearson else "–",
                   help=f"{pearson.text()} (n = {pearson.n:,} pairs) — from the {pearson.source}" if pearson else None)
    cols[1].metric("95% interval", f"{pearson.lo:.3f}–{pearson.hi:.3f}" if pearson and pearson.lo is not None else "–")
    _cost(cols, card.get("train", {}))


@st.cache_data(max_entries=8, show_spinner="Bootstrapping the test pairs …")
def _relatedness_scores(report: dict) -> list[mp.Score] | None:
    """Cached: the bootstrap of Spearman's ρ over ~5,000 SICK pairs takes a second or two."""
    return mp.test_relatedness(report)


def by_length(ctx: Context, name: str, claims: dict | None, relatedness: bool) -> None:
    """Accuracy by length for a classifier; for a relatedness model, whose accuracy has no meaning, Pearson's r of
    the test pairs in each length bucket (the measure Shen Table 4 leads with), MSE in the hover."""
    x_title = "length (tokens; pairs: mean of both)"
    if relatedness and claims and claims.get("relatedness_by_length"):
        show_figure(cf.relatedness_by_length_plot({name: claims["relatedness_by_length"]}, measure="pearson_r",
                                                  title="Test Pearson's r by length (95% intervals)", x_title=x_title,
                                                  theme=ctx.theme), ctx, key="mdl_length")
        st.caption("Pearson's r of gold against predicted relatedness over the test pairs of each length bucket "
                   "(5 tokens wide; a pair's length is the mean of its two sentences'), with 95% bootstrap "
                   "intervals over the bucket's pairs; the hover gives the bucket's MSE. No point: r is undefined "
                   "(fewer than two pairs, or constant scores).")
    elif relatedness:
        st.info(md_escape(f"Pearson's r by length comes from the stored claims; compute them with: {REFRESH_COMMAND}"))
    elif claims and claims.get("accuracy_by_length"):
        show_figure(cf.accuracy_by_length_plot({name: claims["accuracy_by_length"]},
                                               title="Test accuracy by length (95% intervals)",
                                               x_title=x_title, theme=ctx.theme), ctx, key="mdl_length")
    else:
        st.info(md_escape(f"Accuracy by length comes from the stored claims; compute them with: {REFRESH_COMMAND}"))


def plots(ctx: Context, name: str, card: dict, claims: dict | None, relatedness: bool) -> None:
    train = card.get("train", {})
    xs, dev, loss, x_title = mp.curve(train)
    left, right = st.columns(2)
    with left:
        if xs:
            show_figure(cf.learning_curve(xs, dev, loss, title="Learning curve", x_title=x_title,
                                          dev_title=mp.dev_title(train), theme=ctx.theme), ctx, key="mdl_curve")
        else:
            st.info("The card has no learning curve.")
    with right:
        if relatedness:
            pairs = (mp.relatedness_pairs(card.get("evaluation", {}).get("test", {}))
                     or mp.relatedness_pairs({"n": (claims or {}).get("n_examples"), **(claims or {})}))
            if pairs:
                show_figure(cf.relatedness_scatter(*pairs, title="Test pairs: predicted against gold relatedness",
                                                   theme=ctx.theme), ctx, key="mdl_scatter")
            else:
                st.info(md_escape("The card stores no per-pair test scores; re-score it with: "
                                  + mp.reproduce(card)[1]))
        else:
            cm = mp.confusion(card)
            if cm:
                show_figure(cf.confusion_matrix(*cm, title=f"Test confusion matrix{_fold_note(card)}",
                                                theme=ctx.theme), ctx, key="mdl_cm")
            else:
                st.info("The card has no test confusion matrix.")
    by_length(ctx, name, claims, relatedness)


def several_runs(card: dict) -> None:
    """The seeds or folds behind this checkpoint, their summary beside the paper, and what a fold model never saw."""
    several = mp.runs(card)
    if several is None:
        return
    st.markdown(f"**{md_escape(several.heading)}**")
    st.table(pd.DataFrame(several.rows))
    st.caption(md_escape(" ".join(several.lines)))
    unseen = card.get("never_seen")
    if unseen:
        st.markdown(md_escape(f"The {unseen['n']['test']:,} examples of fold {unseen['fold']}'s test part were never "
                              f"trained on; their positions in load_task('{unseen['task']}', 'all') are this card's "
                              "never_seen.test_indices, regenerated by:"))
        st.code(unseen["command"], language="bash")


def claims_summary(name: str, stored) -> None:
    if stored is None:
        return
    if stored.stale:
        st.warning(md_escape(f"These claim results are STALE: {stored.stale}. Recompute with: {REFRESH_COMMAND}"))
    st.markdown("**Paper claims measured on this model's test set** (links open the Evidence view):")
    for c in stored.data["claims"]:
        st.markdown(f"- {md_link(md_escape(c['figure'] + ': ' + c['claim']), claim_url(c['id'], name))} — "
                    f"{md_escape(on_test_set_with_n(c))}")


def render(ctx: Context) -> None:
    st.title("Models")
    name = _pick(ctx)
    if name is None:
        return
    card = read_card(name, disan.api.PRETRAINED_DIR)
    stored = load_results(disan.api.PRETRAINED_DIR).by_name(name)
    claims = stored.data if stored else None
    # A checkpoint without a card is known as a relatedness model by the scores its stored claims hold.
    relatedness = is_relatedness(card) or bool(claims and "relatedness" in claims)
    if relatedness:
        scores = (_relatedness_scores(card.get("evaluation", {}).get("test", {}))
                  or mp.claims_relatedness(claims))
        relatedness_headline(name, card, scores)
        if scores:
            st.caption(md_escape("Test " + "; ".join(s.text() for s in scores) + f" (n = {scores[0].n:,} pairs)"
                                 + ("; 95% percentile bootstrap over test pairs" if scores[0].lo is not None else "")
                                 + f", from the {scores[0].source}."))
    else:
        acc = mp.test_accuracy(card, claims)
        headline(name, card, acc)
        if acc:
            st.caption(md_escape(f"Test accuracy{_fold_note(card)} {acc.text()}; 95% percentile bootstrap over test "
                                 f"examples, from the {acc.source}."))
    st.table(pd.DataFrame(mp.facts(card), columns=["", name]).set_index(""))
    several_runs(card)
    if card.get("recipe"):
        st.markdown("**Recipe choices (decided on dev)**  \n" + "  \n".join(f"- {md_escape_code(r)}" for r in card["recipe"]))
    plots(ctx, name, card, claims, relatedness)
    per_class = mp.per_class(card)
    if per_class:
        st.markdown("**Test accuracy per class:** " + ", ".join(
            f"{md_escape(k)} {100 * v:.1f}%" for k, v in per_class.items() if v is not None))
    claims_summary(name, stored)
    st.markdown("**Reproduce**")
    st.code("\n".join(mp.reproduce(card)), language="bash")
    if card.get("shortfall"):
        st.caption(md_escape(card["shortfall"]))
