"""viz_app/draw/published.py: Jain & Wallace's Table 2 beside the stored faithfulness results."""

from __future__ import annotations

from viz_app.draw.published import CITATION, TABLE_2, comparison_rows
from viz_app.shell.faithfulness_results import read_all


def test_every_quoted_row_and_every_model_of_the_same_task_appear_once():
    results = read_all()
    rows = comparison_rows(results.measured)
    theirs = [r for r in rows if r["source"] == CITATION]
    assert len(theirs) == len(TABLE_2)
    ours = [r["source"].removeprefix("ours: ") for r in rows if r["source"] != CITATION]
    tasks = {t.task for t in TABLE_2}
    assert sorted(ours) == sorted(m.name for m in results.measured if m.data["task"] in tasks)


def test_our_cells_are_the_stored_values_and_theirs_the_quoted_ones():
    results = read_all()
    rows = {r["source"]: r for r in comparison_rows(results.measured)}
    for m in results.measured:
        t = m.tau("attention", "grad_input")
        assert rows[f"ours: {m.name}"]["τ attention ~ gradient"].startswith(f"{t['value']:+.2f} [")
    first = next(r for r in comparison_rows(results.measured) if r["source"] == CITATION)
    assert first["τ attention ~ gradient"] == f"{TABLE_2[0].tau_g[0]:.2f} ± {TABLE_2[0].tau_g[1]:.2f} (sig. {TABLE_2[0].tau_g[2]:.2f})"


def test_each_task_block_starts_with_the_papers_rows():
    rows = comparison_rows(read_all().measured)
    sources = [r["source"] == CITATION for r in rows]
    assert sources[0] and sources.index(False) == sum(1 for t in TABLE_2 if t.task == TABLE_2[0].task)
