"""The reproduction table and ablation gaps of docs/reproduction.md are exactly what scripts/repro_table.py prints."""

import importlib.util
from pathlib import Path

import numpy as np

from disan.evaluate import pack_correct

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("repro_table", ROOT / "scripts" / "repro_table.py")
repro_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(repro_table)


def test_docs_table_is_regenerated_from_the_cards():
    body = repro_table.DOC.read_text()
    assert repro_table.DOC == ROOT / "docs" / "reproduction.md"
    start, end = body.index(repro_table.START), body.index(repro_table.END)
    shown = body[start + len(repro_table.START):end].strip()
    assert shown == repro_table.tables().strip(), "docs/reproduction.md is stale: run python scripts/repro_table.py --docs"


def _card(correct, steps):
    correct = np.asarray(correct, dtype=bool)
    return {"train": {"total_steps": steps},
            "evaluation": {"test": {"n": len(correct), "accuracy": float(correct.mean()),
                                    "correct_bits": pack_correct(correct)}}}


def test_gap_row_states_the_difference_its_interval_and_whether_steps_match():
    rng = np.random.default_rng(0)
    a = rng.random(400) < 0.7
    b = a.copy()
    b[:60] = False  # the ablation loses 60 examples the model gets right, whatever a[:60] was
    cards = {"dsa-nli": _card(a, 1000), "dsa-nli-nodist": _card(b, 1000)}
    row = next(r for r in repro_table.gap_rows(cards) if r.startswith("| `dsa-nli`"))
    diff = 100 * (a.mean() - b.mean())
    cells = [c.strip() for c in row.split("|")]
    assert cells[3] == f"{diff:+.2f}"
    lo, hi = (float(x) for x in cells[4].strip("[]").split(","))
    assert lo <= diff <= hi and lo > 0  # every flip goes one way, so the interval excludes 0
    assert cells[5] == "yes"
    cards["dsa-nli-nodist"]["train"]["total_steps"] = 900
    row = next(r for r in repro_table.gap_rows(cards) if r.startswith("| `dsa-nli`"))
    assert "no (1000 vs 900)" in row


def test_gap_row_without_per_example_bits_says_so():
    cards = {"dsa-nli": _card([1, 0, 1], 5), "dsa-nli-nodist": _card([1, 1, 1], 5)}
    del cards["dsa-nli"]["evaluation"]["test"]["correct_bits"]
    row = next(r for r in repro_table.gap_rows(cards) if r.startswith("| `dsa-nli`"))
    assert "not available" in row
