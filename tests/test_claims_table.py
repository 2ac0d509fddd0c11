"""The verdict table of docs/evidence.md is exactly what scripts/claims_table.py makes from pretrained/*.claims.json."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from disan.output import replace_marked

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("claims_table", ROOT / "scripts" / "claims_table.py")
claims_table = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(claims_table)


def test_docs_table_matches_the_stored_results():
    page = claims_table.DOC.read_text()
    assert claims_table.DOC == ROOT / "docs" / "evidence.md"
    assert replace_marked(page, claims_table.START, claims_table.END, claims_table.block()) == page, (
        "docs/evidence.md is out of date: run python scripts/claims_table.py --docs")


def test_every_stored_model_and_claim_is_in_the_table():
    results = claims_table._results(ROOT / "pretrained")
    text = claims_table.block()
    for s in results.stored:
        assert f"`{s.label}`" in text
        for c in s.data["claims"]:
            assert f"(`{c['id']}`)" in text
    bullets = {line.split(" (")[0]: line for line in text.splitlines() if line.startswith("- ")}
    for claim_id, bullet in (("shen7-gate-stop-words", "- Shen Fig. 7"), ("im9-gate-of-period", "- Im Fig. 9")):
        for s, c in results.with_claim(claim_id):
            assert f"`{s.name}` ({c['value']:+.4f})" in bullets[bullet]


def test_replace_marked_keeps_the_rest_of_the_readme():
    readme = f"intro\n{claims_table.START}\nold\n{claims_table.END}\noutro\n"
    assert replace_marked(readme, claims_table.START, claims_table.END, "new") == f"intro\n{claims_table.START}\nnew\n{claims_table.END}\noutro\n"


def test_rewrite_marked_replaces_the_block_in_place_and_refuses_a_file_without_markers(tmp_path):
    import pytest

    from disan.errors import OutputError
    from disan.output import rewrite_marked

    doc = tmp_path / "README.md"
    doc.write_text(f"intro\n{claims_table.START}\nold\n{claims_table.END}\noutro\n")
    rewrite_marked(doc, claims_table.START, claims_table.END, "new")
    assert doc.read_text() == f"intro\n{claims_table.START}\nnew\n{claims_table.END}\noutro\n"
    plain = tmp_path / "plain.md"
    plain.write_text("no markers")
    with pytest.raises(OutputError, match="markers"):
        rewrite_marked(plain, claims_table.START, claims_table.END, "new")
    assert plain.read_text() == "no markers" and sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "plain.md"]
