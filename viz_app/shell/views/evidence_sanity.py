"""The Evidence view's "Sanity checks" tab: does each explanation change when the weights it explains are random?

Reads ``pretrained/<name>.sanity.json`` (``python -m disan faithfulness --model NAME --parts sanity --write``,
``disan/attribution/sanity_file.py``); runs no model. Per model and method: the verdict of the cascading
randomisation test (Adebayo et al. 2018, Sec. 3.1) with Spearman's ρ at the last step and its 95% interval, the
top-k overlap beside chance, and ρ at every step; the data randomisation test where a shuffled-label model was
measured. A model without the file gets one line naming the command; a changed checkpoint reads as stale.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd
import streamlit as st

from disan.api import PRETRAINED_DIR
from disan.attribution.sanity_file import read_sanity, stale_reason
from disan.attribution.sentence import METHODS
from disan.claims_file import bundled
from disan.errors import InputError

from viz_app.draw.faithfulness_figures import IntervalRow, interval_plot
from viz_app.draw.text import md_escape
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.faithfulness_results import rows_table

COMMAND = "python -m disan faithfulness --model {name} --parts sanity --write"
INTRO = (
    "Adebayo et al. (2018) showed that some explanations barely change when a model's weights are randomised: "
    "they explain the architecture, not what the model learned. The cascading test re-draws the weights from the "
    "head down to the embeddings, one block per step, and compares each explanation of the trained model with that "
    "of the randomised one: Spearman's ρ of the two rankings and the top-k overlap (k = 20% of the tokens) beside "
    "chance, means over a seeded sample of the test set with 95% bootstrap intervals. Verdict (our convention): at "
    "the last step a method **passes** when the interval of ρ lies below {rho}, **fails** when it lies above, and is "
    "**inconclusive** otherwise. 'token2token' is the maps as drawn (every cell, masked ones included); "
    "'token2token_rows' each query's row over the keys its mask allows."
)


def label(method: str) -> str:
    return METHODS[method][0] if method in METHODS else method


def read_sanity_files(directory: Path = PRETRAINED_DIR) -> tuple[list[tuple[str, dict, str | None]], list[str]]:
    """(model, stored result, why it is stale or None) of every bundled model with a sanity file, and the names
    of those without one (or with one this code cannot read, named on stderr by ``read_sanity``)."""
    stored, missing = [], []
    for name in bundled(directory):
        try:
            data = read_sanity(name, directory)
        except (InputError, ValueError):
            data = None
        if data is None:
            missing.append(name)
        else:
            stored.append((name, data, stale_reason(data, directory)))
    return stored, missing


def _iv(v: dict, f: str = "{:+.2f}") -> str:
    return f"{f.format(v['value'])} [{f.format(v['ci95'][0])}, {f.format(v['ci95'][1])}]"


def verdict_frame(stored: list[tuple[str, dict, str | None]], test: str = "cascading") -> pd.DataFrame:
    """Methods down, models across: each cell the verdict with ρ at the last step (its interval) and the top-k
    overlap beside chance. ``test``: "cascading" or "data_randomisation" (models without it are left out)."""
    columns = {}
    for name, data, stale in stored:
        result = data.get(test)
        if not result:
            continue
        last = result["by_step"][result["steps"][-1]]
        head = f"{name} (n={result['n']:,})" + (" (stale)" if stale else "")
        columns[head] = {label(m): f"{v}: ρ {_iv(last[m]['spearman'])}, top-k {last[m]['top_k_overlap']['value']:.2f}"
                                   f" (chance {last[m]['top_k_chance']:.2f})" for m, v in result["verdicts"].items()}
    return pd.DataFrame(columns)


def rho_rows(stored: list[tuple[str, dict, str | None]]) -> list[IntervalRow]:
    """Spearman's ρ at the cascading test's last step, one row per model and method."""
    rows = []
    for name, data, stale in stored:
        result = data["cascading"]
        note = f" (n={result['n']:,})" + (" (stale)" if stale else "")
        for m, v in result["by_step"][result["steps"][-1]].items():
            rho = v["spearman"]
            rows.append(IntervalRow(name, label(m), rho["value"], *rho["ci95"], rho["n"], note))
    return rows


def steps_frame(data: dict) -> pd.DataFrame:
    """One model's ρ (interval) per method and cascading step, in the order the weights were randomised."""
    result = data["cascading"]
    return pd.DataFrame({step: {label(m): _iv(v["spearman"]) for m, v in result["by_step"][step].items()}
                         for step in result["steps"]})


def render(ctx: Context) -> None:
    stored, missing = read_sanity_files()
    rho = stored[0][1]["cascading"]["rho_pass"] if stored else 0.5
    st.markdown(md_escape(INTRO.format(rho=rho)))
    for name in missing:
        st.caption(md_escape(f"{name}: no sanity checks stored; compute them with: {COMMAND.format(name=name)}"))
    if not stored:
        return
    for name, data, stale in stored:
        if stale:
            st.warning(md_escape(f"{name}: STALE — {stale}. Recompute with: {COMMAND.format(name=name)}"))
    st.markdown("**Cascading randomisation: verdict per method and model** (ρ and top-k overlap at the last step, "
                "every weight random)")
    st.dataframe(verdict_frame(stored), width="stretch")
    rows = rho_rows(stored)
    show_figure(interval_plot(rows, title=f"Spearman ρ, trained vs fully randomised model (passes below {rho})",
                              x_title="Spearman ρ", reference=rho, theme=ctx.theme),
                ctx, key="ev_sanity_rho", table=partial(rows_table, rows))
    data_rows = verdict_frame(stored, "data_randomisation")
    if not data_rows.empty:
        st.markdown("**Data randomisation: trained vs a model trained on shuffled labels** (Adebayo et al. 2018, "
                    "Sec. 3.2; the same measures and verdict rule)")
        st.dataframe(data_rows, width="stretch")
    with st.expander("ρ at every cascading step, per model"):
        for name, data, _ in stored:
            st.markdown(md_escape(f"{name}: steps {' → '.join(data['cascading']['steps'])} (cumulative)"))
            st.dataframe(steps_frame(data), width="stretch")
    st.caption(md_escape("; ".join(
        f"{name}: a seeded sample of {d['sample']['n']:,} of {d['sample']['n_examples']:,} {d['split']} examples "
        f"(seed {d['sample']['seed']}), {d['cascading']['seconds']:.0f} s, by `{d['command']}`"
        for name, d, _ in stored) + "."))
