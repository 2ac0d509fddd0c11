"""Several seeds of one model: the run that ships is picked on dev only, and the card lists every run's test score."""

import json

import numpy as np
import pytest

from disan.cards import render
from disan.paper_tables import TABLES, ours
from disan.seed_runs import Run, pick_on_dev, runs_block


def run(seed: int, dev: float, test: float) -> Run:
    summary = {"train_config": {"task": "trec", "seed": seed, "fold": None}, "best_dev_acc": dev,
               "best_step": 100 * seed + 77, "total_steps": 1000 + seed, "stopped_by": "patience", "wall_time_s": 300.0 + seed,
               "hardware": "x86_64 CPU, 1 threads × 1 process(es)"}
    return Run(f"trec-seed{seed}/disan-trec", summary, {"accuracy": test})


RUNS = [run(0, 0.90, 0.95), run(1, 0.92, 0.88), run(2, 0.91, 0.93), run(3, 0.92, 0.90), run(4, 0.89, 0.91)]


def test_the_best_dev_run_ships_whatever_the_test_says_and_a_tie_takes_the_lowest_seed():
    assert pick_on_dev(RUNS) == 1  # seeds 1 and 3 tie on dev (92%); seed 0 has the best test and is not taken
    assert pick_on_dev(RUNS[::-1]) == 3  # the same tie in reverse order: still seed 1 (index 3 here)
    assert pick_on_dev([run(7, 0.5, 0.1)]) == 0
    with pytest.raises(ValueError):
        pick_on_dev([])


def test_block_lists_every_run_in_order_with_mean_and_sample_sd():
    block = runs_block(RUNS)
    tests = [0.95, 0.88, 0.93, 0.90, 0.91]
    assert block["unit"] == "seed" and block["measures"] == ["accuracy"] and block["accuracy"] == tests
    assert block["mean"] == pytest.approx(np.mean(tests)) and block["sd"] == pytest.approx(np.std(tests, ddof=1))
    assert block["stats"]["accuracy"]["mean"] == block["mean"] and block["stats"]["accuracy"]["sd"] == block["sd"]
    lo, hi = block["stats"]["accuracy"]["ci95"]
    assert min(tests) < lo < block["mean"] < hi < max(tests)
    assert [r["seed"] for r in block["runs"]] == [0, 1, 2, 3, 4]
    assert [r["wall_time_s"] for r in block["runs"]] == [300.0, 301.0, 302.0, 303.0, 304.0]
    assert block["shipped"]["seed"] == 1 and block["shipped"]["run"] == "trec-seed1/disan-trec"
    assert "seeds 1, 3 tie on dev" in block["shipped"]["why"] and "picked on dev" in block["shipped"]["why"]


def test_disan_tables_reads_the_block_as_mean_sd_over_five_seeds(tmp_path):
    (tmp_path / "disan-trec.json").write_text(json.dumps({"name": "disan-trec", "test_runs": runs_block(RUNS)}))
    cell = next(c for t in TABLES for c in t.cells if c.model == "disan-trec")
    mine = ours(cell, tmp_path)
    assert mine.value == pytest.approx(91.4)
    assert mine.spread.startswith(f"sd {100 * np.std(runs_block(RUNS)['accuracy'], ddof=1):.2f} over 5 seeds")


def test_card_shows_each_run_and_marks_the_shipped_one_once():
    block = runs_block(RUNS) | {"paper": {"note": "the paper's TREC figures are dev accuracies"}, "machine": "a CPU"}
    text = render({"name": "disan-trec", "test_runs": block})
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.endswith("process(es) |")]
    assert len(rows) == 5 and sum("(shipped)" in r for r in rows) == 1 and rows[1].startswith("| 1 (shipped)")
    assert "| accuracy | 91.40% | 2.70 |" in text and "94.2 (0.1) (Shen Table 5)" in text
    assert "the paper's TREC figures are dev accuracies" in text and "Machine: a CPU" in text


def test_the_static_sites_picker_names_the_task_and_the_mean_of_the_seeds():
    from disan.cards import read_card
    from viz_app.draw import site

    card = read_card("disan-trec")
    if "test_runs" not in card:
        pytest.skip("disan-trec is not in pretrained/")
    title, facts = site._facts("disan-trec", {"pair": False, "arch": "disan", "masks": ["fw", "bw"], "alpha": None})
    assert title.endswith("TREC question types")
    assert f"test accuracy {100 * card['evaluation']['test']['accuracy']:.2f}%" in facts
    assert f"mean of 5: {100 * card['test_runs']['mean']:.2f}%" in facts
