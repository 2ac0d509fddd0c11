"""The Evidence view's "Plausibility" tab: each token ranking against SST's human word labels, not faithfulness.

Reads ``pretrained/<name>.plausibility.json`` (``python -m disan faithfulness --model NAME --parts plausibility
--write``, or ``disan plausibility --write``); runs no model. A result whose checkpoint changed is labelled stale; an
SST-5 model without the file gets one line naming the command.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import streamlit as st

from disan.api import PRETRAINED_DIR
from disan.attribution.plausibility import plausibility_path
from disan.attribution.sentence import METHODS
from disan.attribution.plausibility_file import stale_reason
from disan.cards import read_card
from disan.claims_file import bundled

from viz_app.draw.faithfulness_figures import IntervalRow, interval_plot
from viz_app.draw.text import md_escape
from viz_app.shell.context import Context
from viz_app.shell.export import show_figure
from viz_app.shell.faithfulness_results import rows_table

COMMAND = "python -m disan faithfulness --model {name} --parts plausibility --write"
INTRO = (
    "Plausibility asks whether a ranking agrees with people, a separate question from whether it is faithful to "
    "the model. SST's treebank labels every word and phrase with a sentiment (0–4). Per sentence and method: the "
    "average precision (AUPRC) of the token ranking (signed attributions by magnitude) against the words whose own "
    "label is not neutral (**word**), and against the tokens whose lowest non-neutral phrase agrees with the "
    "sentence's polarity (**phrase**); chance is the share of positives. Means over sentences with 95% bootstrap "
    "intervals; a sentence without positives (or all positive) has no AUPRC and is left out (n)."
)
REFERENCES = {"word": "the words' own labels", "phrase": "the phrases that agree with the sentence"}


def read_plausibility(directory: Path = PRETRAINED_DIR) -> list[tuple[str, dict, str | None]]:
    """(model, stored result, why it is stale or None) of every bundled model with a plausibility file."""
    out = []
    for name in bundled(directory):
        path = plausibility_path(name, directory)
        if path.is_file():
            data = json.loads(path.read_text())
            out.append((name, data, stale_reason(data, directory)))
    return out


def sst5_without_file(directory: Path = PRETRAINED_DIR) -> list[str]:
    """The bundled SST-5 models (by their card's training task) that have no plausibility file."""
    return [name for name in bundled(directory)
            if read_card(name, directory).get("train", {}).get("train_config", {}).get("task") == "sst5"
            and not plausibility_path(name, directory).is_file()]


def plausibility_rows(stored: list[tuple[str, dict, str | None]], reference: str) -> list[IntervalRow]:
    """One row per model and method (and one for chance), AUPRC against ``reference`` with its interval."""
    rows = []
    for name, data, stale in stored:
        note = f" ({data['n'] - data['skipped']:,} of {data['n_trees']:,})" + (" (stale)" if stale else "")
        by_method = data["references"][reference]
        for method, values in by_method.items():
            a = values["auprc"]
            rows.append(IntervalRow(name, METHODS.get(method, (method,))[0], a["value"], *a["ci95"], a["n"], note))
        chance = next(iter(by_method.values()))["chance"]
        rows.append(IntervalRow(name, "chance (share of positives)", chance["value"], *chance["ci95"], chance["n"],
                                note))
    return rows


def render(ctx: Context) -> None:
    st.markdown(md_escape(INTRO))
    stored = read_plausibility()
    for name in sst5_without_file():
        st.caption(md_escape(f"{name}: no plausibility stored; compute it with: {COMMAND.format(name=name)}"))
    if not stored:
        return
    for name, data, stale in stored:
        if stale:
            st.warning(md_escape(f"{name}: STALE — {stale}. Recompute with: "
                                 f"{data.get('command', COMMAND.format(name=name))}"))
    for reference, what in REFERENCES.items():
        rows = plausibility_rows(stored, reference)
        show_figure(interval_plot(rows, title=f"Plausibility against {what}: AUPRC per method (higher: the "
                                              "labelled words ranked first)", x_title="AUPRC", reference=None,
                                  theme=ctx.theme), ctx, key=f"ev_plaus_{reference}", table=partial(rows_table, rows))
    st.caption(md_escape("; ".join(
        f"{name}: " + ("every one" if data['n'] == data['n_trees'] else f"a seeded sample of {data['n']:,}")
        + f" of {data['n_trees']:,} {data.get('split', 'test')} trees (seed {data['sample_seed']}), {data['skipped']} skipped (tokenized differently), by `{data.get('command', '')}`"
        for name, data, _ in stored) + "."))
