"""One rule for verdicts (issue 58, item 4): a view that reads a claim on one sentence says so, and names the
test set's verdict on the same claim and model beside it in the words the Evidence view uses."""

from __future__ import annotations

import pytest

import disan
from disan.claims_file import read_claims
from tests.test_app import assert_clean, run_app
from viz_app.draw.verdicts import SENTENCE_READINGS, TEST_SET_MARKS, on_test_set

MODEL, CLAIM = "disan-sst5", "shen7-gate-stop-words"


def _plain(markdown: str) -> str:
    return markdown.replace("\\", "")  # Markdown escapes (md_escape)


@pytest.fixture(scope="module")
def stored() -> dict:
    if MODEL not in disan.available():
        pytest.skip(f"{MODEL} is not in pretrained/")
    data = read_claims(MODEL)
    claim = next((c for c in (data or {}).get("claims", []) if c["id"] == CLAIM), None)
    if claim is None:
        pytest.skip(f"no stored {CLAIM} result for {MODEL}")
    return claim


def test_fusion_gate_names_the_sentence_reading_and_evidences_test_set_verdict_for_the_same_claim(stored):
    want = on_test_set(stored)
    assert want.startswith(TEST_SET_MARKS[stored["verdict"]])
    # The Evidence view's Verdict table, for the claim and model.
    evidence = run_app(view="evidence", model=MODEL, claim=CLAIM)
    assert_clean(evidence)
    table = next(d.value for d in evidence.dataframe if MODEL in d.value.columns
                 and any(stored["claim"] in str(i) for i in d.value.index))
    row = next(i for i in table.index if stored["claim"] in str(i))
    assert table.loc[row, MODEL] == want
    # The Fusion gate view on one sentence: Shen Fig. 7's caption.
    view = run_app(view="fusion_gate", model=MODEL)
    assert_clean(view)
    caption = next(_plain(m.value) for m in view.markdown
                   if _plain(m.value).startswith("**Paper:** Shen Fig. 7") and "**This sentence:**" in m.value)
    sentence_line, test_line = (next(line for line in caption.split("\n") if line.startswith(head))
                                for head in ("**This sentence:**", "**Test set"))
    assert any(f"**{reading}**" in sentence_line for reading in SENTENCE_READINGS.values()), sentence_line
    assert not any(mark.split()[1] in sentence_line for mark in TEST_SET_MARKS.values()), sentence_line
    assert f"**Test set ({MODEL}):** **{want}, n = {stored['n']:,}**" in test_line, test_line
    assert stored["statistic"] in test_line, test_line  # what the number measures (Im Fig. 8's line did not say)
