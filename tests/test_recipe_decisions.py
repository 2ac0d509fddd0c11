"""scripts/recipe_decisions.py compares two runs on dev over the steps both reached."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("recipe_decisions", ROOT / "scripts" / "recipe_decisions.py")
rd = importlib.util.module_from_spec(spec)
sys.modules["recipe_decisions"] = rd  # dataclasses look their module up
spec.loader.exec_module(rd)


def _curve(*pairs):
    return [{"global_step": s, "dev_acc": a} for s, a in pairs]


def test_compare_only_counts_evaluations_both_runs_reached():
    ours = _curve((100, 0.50), (200, 0.60), (300, 0.70))  # its 0.70 comes after the other run stopped
    authors = _curve((100, 0.55), (200, 0.62))
    r = rd.compare(ours, authors)
    assert (r["steps_compared"], r["ours_dev"], r["authors_dev"], r["choice"]) == (200, 0.60, 0.62, "authors")


def test_ours_wins_only_when_strictly_better_on_dev():
    assert rd.compare(_curve((10, 0.7)), _curve((10, 0.6)))["choice"] == "ours"
    assert rd.compare(_curve((10, 0.6)), _curve((10, 0.6)))["choice"] == "authors"


def test_decide_reads_the_run_logs_and_says_what_is_missing(tmp_path):
    point = rd.POINTS[0]
    for name, accs in ((point.ours, (0.40, 0.45)), (point.authors, (0.41, 0.44))):
        lines = [json.dumps({"global_step": 1000 * (i + 1), "dev_acc": a}) for i, a in enumerate(accs)]
        (tmp_path / f"{name}.log.jsonl").write_text("\n".join(lines) + "\n")
    rows = {r["id"]: r for r in rd.decide(tmp_path)}
    assert rows[point.id]["choice"] == "ours" and rows[point.id]["steps_compared"] == 2000
    assert rows["dsa-bias"]["choice"] is None and "missing" in rows["dsa-bias"]["missing"]
    lines = rd.card_lines(list(rows.values()), point.models[0])
    assert len(lines) == 1 and "our way" in lines[0] and "45.00%" in lines[0] and "44.00%" in lines[0]
    assert "not measured yet" in rd.markdown(list(rows.values()))
