"""`disan tables`: paper numbers as the papers print them, ours from the cards, and the docs block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from disan.__main__ import main
from disan.locations import CHECKOUT
from disan.paper_tables import END, START, TABLES, tables_text, write_block

PAPERS = Path("/work/shared/papers")
ROOT = Path(__file__).resolve().parents[1]


def test_docs_block_equals_the_commands_output(capsys):
    body = (ROOT / "docs" / "reproduction.md").read_text(encoding="utf-8")
    shown = body[body.index(START) + len(START):body.index(END)].strip()
    assert shown == tables_text(ROOT / "pretrained").strip(), "stale: run python -m disan tables --docs"
    assert main(["tables"]) == 0
    assert capsys.readouterr().out.strip() == shown
    assert main(["tables", "--check"]) == 0


@pytest.mark.skipif(not PAPERS.is_dir(), reason="the papers' text is not beside the project (../shared/papers)")
def test_every_paper_number_is_printed_on_its_row_of_its_table():
    for table in TABLES:
        lines = (PAPERS / table.paper).read_text(encoding="utf-8").splitlines()
        caption = next(i for i, line in enumerate(lines) if line.lstrip("*").startswith(f"Table {table.number}:")
                       or line.startswith(f"Table {table.number}: "))
        block = lines[max(0, caption - 40):caption]  # the papers' text puts each table's rows above its caption
        for cell in table.cells:
            rows = [line.split("\t") for line in block if line.split("\t")[0].strip() == cell.row]
            assert rows, (table.heading, cell.row)
            values = [field.replace("<b>", "").replace("</b>", "").strip() for field in rows[-1][1:]]
            assert cell.paper in values, (table.heading, cell.row, cell.paper, values)


def card_dir(tmp_path, cards: dict[str, dict], claims: dict[str, dict] | None = None) -> Path:
    for name, card in cards.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({"name": name, **card}))
    for name, result in (claims or {}).items():
        (tmp_path / f"{name}.claims.json").write_text(json.dumps(result))
    return tmp_path


def row_of(text: str, model: str, measure: str = "") -> list[str]:
    line = next(r for r in text.splitlines() if r.endswith(f"`{model}` |") and measure in r)
    return [c.strip() for c in line.split("|")[1:-1]]


def test_runs_give_mean_sd_interval_and_a_verdict(tmp_path):
    folder = card_dir(tmp_path, {
        "disan-trec": {"test_runs": {"unit": "seed", "accuracy": [0.90, 0.92, 0.94, 0.91, 0.93]}},
        "disan-subj": {"test_runs": {"unit": "fold", "accuracy": [0.93, 0.95] * 5}},
        "disan-sick": {"test_runs": {"unit": "seed", "pearson_r": [0.80, 0.82], "mse": [0.20, 0.22],
                                     "spearman_rho": [0.75, 0.77]}},
    })
    text = tables_text(folder)
    trec = row_of(text, "disan-trec")
    assert trec[3] == "92.00" and trec[4].startswith("sd 1.58 over 5 seeds; 95% CI of the mean [")
    assert trec[5] == "below the paper by 2.20 points"  # the best run is 94.0 < 94.2: outside any interval
    subj = row_of(text, "disan-subj")
    assert subj[3] == "94.00" and "over 10 folds" in subj[4]
    assert subj[5] == "matches (the paper's value is inside our 95% interval)"  # 94.2 lies between 93 and 95
    assert row_of(text, "disan-sick", "MSE")[5] == "better than the paper by 0.0779"
    assert row_of(text, "disan-sick", "Pearson")[5] == "below the paper by 0.0595"
    assert row_of(text, "disan-cr")[3] == "not trained yet"


def test_one_run_takes_its_interval_from_the_claims_file_only_when_it_measured_the_same_model(tmp_path):
    card = {"evaluation": {"test": {"accuracy": 0.5, "n": 2210}}}
    folder = card_dir(tmp_path, {"disan-sst5": card, "disan-sst5-nodir": card},
                      {"disan-sst5": {"accuracy": {"value": 0.5, "ci95": [0.48, 0.52]}},
                       "disan-sst5-nodir": {"accuracy": {"value": 0.49, "ci95": [0.47, 0.51]}}})
    text = tables_text(folder)
    assert row_of(text, "disan-sst5")[4:6] == [
        "one run; 95% CI [48.00, 52.00] (bootstrap over 2,210 test examples)",
        "matches (the paper's value is inside our 95% interval)"]
    assert row_of(text, "disan-sst5-nodir")[4:6] == ["one run; no interval stored", "above the paper by 0.59 points"]


def test_write_block_appends_markers_once_then_replaces_between_them(tmp_path):
    doc = tmp_path / "reproduction.md"
    doc.write_text("# Page\n\nText kept.\n")
    write_block(doc, "first")
    write_block(doc, "second")
    body = doc.read_text()
    assert body.startswith("# Page\n\nText kept.\n") and body.count(START) == 1
    assert f"{START}\nsecond\n{END}" in body and "first" not in body
    fresh = tmp_path / "new.md"
    write_block(fresh, "block")
    assert f"{START}\nblock\n{END}" in fresh.read_text()


def test_check_fails_on_a_stale_page_and_docs_writes_it(tmp_path, capsys):
    doc = tmp_path / "page.md"
    doc.write_text(f"# P\n\n{START}\nold\n{END}\n")
    assert main(["tables", "--check", "--doc", str(doc)]) == 1
    assert "paper tables differ" in capsys.readouterr().err
    assert main(["tables", "--docs", "--doc", str(doc)]) == 0
    assert main(["tables", "--check", "--doc", str(doc)]) == 0
    assert CHECKOUT is not None
