"""Models: one page per bundled checkpoint — data, recipe, cost, test accuracy with its interval, plots.

Reads the model card (``pretrained/<name>.json``) and the stored claims
(``<name>.claims.json``); runs no model. The page follows the sidebar's model.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from disan.cards import read_card

from viz_app.draw import corpus_figures as cf
from viz_app.draw import model_pages as mp
from viz_app.shell import models
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.links import claim_url, md_link
from viz_app.shell.results import REFRESH_COMMAND, VERDICT_MARKS, load_results
from viz_app.draw.text import md_escape

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


def headline(name: str, card: dict, acc: mp.Accuracy | None) -> None:
    train = card.get("train", {})
    mcfg = train.get("model_config", {})
    task = train.get("train_config", {}).get("task", "?")
    st.markdown(f"### {md_escape(name)} — {md_escape(str(mcfg.get('arch', '?')).upper())} on {md_escape(task)}")
    cols = st.columns(4)
    cols[0].metric("Test accuracy", f"{100 * acc.value:.2f}%" if acc else "–",
                   help=acc.text() + f" — from the {acc.source}" if acc else None)
    cols[1].metric("95% interval", f"{100 * acc.lo:.1f}–{100 * acc.hi:.1f}%" if acc and acc.lo is not None else "–")
    steps = mp.total_steps(train)
    cols[2].metric("Optimizer steps", f"{steps:,}" if steps else "–")
    cols[3].metric("Wall time", mp.wall_time(train), help=train.get("hardware"))


def plots(ctx: Context, name: str, card: dict, claims: dict | None) -> None:
    xs, dev, loss, x_title = mp.curve(card.get("train", {}))
    left, right = st.columns(2)
    with left:
        if xs:
            show_figure(cf.learning_curve(xs, dev, loss, title="Learning curve", x_title=x_title, theme=ctx.theme),
                        ctx, key="mdl_curve")
        else:
            st.info("The card has no learning curve.")
    with right:
        cm = mp.confusion(card)
        if cm:
            show_figure(cf.confusion_matrix(*cm, title="Test confusion matrix", theme=ctx.theme), ctx, key="mdl_cm")
        else:
            st.info("The card has no test confusion matrix.")
    if claims:
        show_figure(cf.accuracy_by_length_plot({name: claims["accuracy_by_length"]},
                                               title="Test accuracy by length (95% intervals)",
                                               x_title="length (tokens; pairs: mean of both)", theme=ctx.theme),
                    ctx, key="mdl_length")
    else:
        st.info(md_escape(f"Accuracy by length comes from the stored claims; compute them with: {REFRESH_COMMAND}"))


def claims_summary(name: str, stored) -> None:
    if stored is None:
        return
    if stored.stale:
        st.warning(md_escape(f"These claim results are STALE: {stored.stale}. Recompute with: {REFRESH_COMMAND}"))
    st.markdown("**Paper claims measured on this model's test set** (links open the Evidence view):")
    for c in stored.data["claims"]:
        lo, hi = c["ci95"]
        st.markdown(f"- {md_link(md_escape(c['figure'] + ': ' + c['claim']), claim_url(c['id'], name))} — "
                    f"{md_escape(VERDICT_MARKS[c['verdict']])} ({c['value']:+.3g} [{lo:+.3g}, {hi:+.3g}], "
                    f"n = {c['n']:,})")


def render(ctx: Context) -> None:
    st.title("Models")
    name = _pick(ctx)
    if name is None:
        return
    card = read_card(name)
    stored = load_results().by_name(name)
    claims = stored.data if stored else None
    acc = mp.test_accuracy(card, claims)
    headline(name, card, acc)
    if acc:
        st.caption(md_escape(f"Test accuracy {acc.text()}; 95% percentile bootstrap over test examples, "
                             f"from the {acc.source}."))
    st.table(pd.DataFrame(mp.facts(card), columns=["", name]).set_index(""))
    several = mp.runs(card)
    if several:
        rows, line = several
        st.markdown(f"**This checkpoint is one of {len(rows)} runs**")
        st.table(pd.DataFrame(rows))
        st.caption(md_escape(line))
    if card.get("recipe"):
        st.markdown("**Recipe choices (decided on dev)**  \n" + "  \n".join(f"- {md_escape(r)}" for r in card["recipe"]))
    plots(ctx, name, card, claims)
    per_class = mp.per_class(card)
    if per_class:
        st.markdown("**Test accuracy per class:** " + ", ".join(
            f"{md_escape(k)} {100 * v:.1f}%" for k, v in per_class.items() if v is not None))
    claims_summary(name, stored)
    st.markdown("**Reproduce**")
    st.code("\n".join(mp.reproduce(card)), language="bash")
    if card.get("shortfall"):
        st.caption(md_escape(card["shortfall"]))
