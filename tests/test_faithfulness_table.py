"""The faithfulness table of docs/attention-as-explanation.md is exactly what scripts/faithfulness_table.py makes from pretrained/*.faithfulness.json."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from disan.output import replace_marked

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("faithfulness_table", ROOT / "scripts" / "faithfulness_table.py")
faithfulness_table = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(faithfulness_table)


def test_docs_table_matches_the_stored_results():
    page = faithfulness_table.DOC.read_text()
    assert faithfulness_table.DOC == ROOT / "docs" / "attention-as-explanation.md"
    block = faithfulness_table.block()
    assert replace_marked(page, faithfulness_table.START, faithfulness_table.END, block) == page, (
        "docs/attention-as-explanation.md is out of date: run python scripts/faithfulness_table.py --docs")


def test_every_stored_model_its_sample_and_its_answer_are_in_the_table():
    results = faithfulness_table._results(ROOT / "pretrained")
    text = faithfulness_table.block()
    for m in results.measured:
        d = m.data
        assert f"`{m.name}`" in text and d["answer"] in text
        assert f"{d['n']:,} of {d['n_examples']:,}" in text
        assert ("random sample" in text.split(f"`{m.name}`")[1].split("\n")[0]) == (not d["complete"])
    for name in results.missing if results.measured else ():
        assert f"`{name}`" in text.split("Not measured:")[1]
