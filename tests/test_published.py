"""viz_app/draw/published.py: Jain & Wallace's Table 2 beside the stored faithfulness results."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from viz_app.draw.published import CAPTION, CITATION, NOT_COMPUTED, TABLE_2, comparison_rows
from viz_app.shell.faithfulness_results import read_all

#: The authors' own result files (successar/AttentionExplanation at 19cfd61; SOURCE.md there).
AUTHORS = Path(__file__).resolve().parent / "fixtures" / "jain_wallace_2019"
DATASET = {"SST (binary)": "sst", "SNLI": "snli"}


def _authors(measure: str, row) -> tuple[float, float, float]:
    frame = pd.read_csv(AUTHORS / f"{measure}--{DATASET[row.dataset]}+lstm+tanh.csv", index_col=0)
    r = frame.loc[int(row.predicted_class)]
    return float(r["mean"]), float(r["std"]), float(r["pval_sig"])


@pytest.mark.parametrize("row", TABLE_2, ids=lambda r: f"{r.dataset}-{r.predicted_class}")
def test_every_quoted_number_equals_the_authors_result_file_rounded(row):
    for measure, quoted in (("GradientPval", row.tau_g), ("pyxc-pyc_pval", row.tau_loo)):
        assert quoted == tuple(round(v, 2) for v in _authors(measure, row)), (measure, row)


def test_the_authors_files_hold_no_class_the_table_leaves_out():
    for dataset, name in DATASET.items():
        classes = set(pd.read_csv(AUTHORS / f"GradientPval--{name}+lstm+tanh.csv", index_col=0).index.astype(str))
        assert classes == {r.predicted_class for r in TABLE_2 if r.dataset == dataset}


def test_every_quoted_row_and_every_model_of_the_same_task_appear_once_with_a_like_for_like_row():
    results = read_all()
    rows = comparison_rows(results.measured)
    theirs = [r for r in rows if r["source"] == CITATION]
    assert len(theirs) == len(TABLE_2)
    ours = [r["source"].removeprefix("ours: ") for r in rows if r["source"].startswith("ours: ")]
    like = [r["source"].removeprefix("ours, like theirs: ") for r in rows if r["source"].startswith("ours, like")]
    tasks = {t.task for t in TABLE_2}
    assert sorted(ours) == sorted(like) == sorted(m.name for m in results.measured if m.data["task"] in tasks)


def test_our_cells_are_the_stored_values_and_the_like_for_like_row_says_when_it_was_not_computed():
    results = read_all()
    rows = {r["source"]: r for r in comparison_rows(results.measured)}
    tasks = {t.task for t in TABLE_2}
    for m in (m for m in results.measured if m.data["task"] in tasks):  # other tasks have no published row
        t = m.tau("attention", "grad_input")
        assert rows[f"ours: {m.name}"]["τ attention ~ gradient"].startswith(f"{t['value']:+.2f} [")
        jw = m.data.get("jain_wallace")
        cell = rows[f"ours, like theirs: {m.name}"]["τ attention ~ gradient"]
        if jw is None:
            assert cell == NOT_COMPUTED
        else:
            assert cell.startswith(f"{jw['tau_g_detached']['value']:+.2f} [") and "detached" in cell
    first = next(r for r in comparison_rows(results.measured) if r["source"] == CITATION)
    assert first["τ attention ~ gradient"] == "0.40 ± 0.21 (sig. 0.59)"


def test_the_caption_states_both_differences():
    assert "detached" in CAPTION and "premise tokens only" in CAPTION


def test_each_task_block_starts_with_the_papers_rows():
    rows = comparison_rows(read_all().measured)
    sources = [r["source"] == CITATION for r in rows]
    assert sources[0] and sources.index(False) == sum(1 for t in TABLE_2 if t.task == TABLE_2[0].task)
