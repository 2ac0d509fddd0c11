"""Issue 57: the Evidence view's "Sanity checks" tab shows the stored randomisation verdicts per method and model
with their numbers, and one line with the command for a model without the file; the Plausibility tab does the same
for an SST-5 model without its file."""

from __future__ import annotations

import shutil

import pytest

from disan.api import PRETRAINED_DIR
from disan.attribution.sanity_file import read_sanity, sanity_path
from disan.claims_file import bundled
from viz_app.shell.views import evidence_plausibility as EP
from viz_app.shell.views import evidence_sanity as ES

from tests.test_app import assert_clean, chart_by_key, plain, run_app

STORED = [n for n in bundled() if sanity_path(n).is_file()]


def _copy(name, folder, with_file: bool):
    for suffix in (".safetensors", ".json") + ((".sanity.json",) if with_file else ()):
        shutil.copy(PRETRAINED_DIR / f"{name}{suffix}", folder)


@pytest.mark.skipif("disan-sst5" not in STORED, reason="no pretrained/disan-sst5.sanity.json stored")
def test_the_tables_carry_each_verdict_with_its_numbers_and_models_without_a_file_are_named(tmp_path):
    _copy("disan-sst5", tmp_path, True)
    _copy("dsa-nli", tmp_path, False)
    stored, missing = ES.read_sanity_files(tmp_path)
    assert [name for name, _, _ in stored] == ["disan-sst5"] and missing == ["dsa-nli"] and stored[0][2] is None
    result = stored[0][1]["cascading"]
    last = result["by_step"][result["steps"][-1]]
    frame = ES.verdict_frame(stored)
    cell = frame.loc[ES.label("attention_flow"), f"disan-sst5 (n={result['n']})"]
    rho = last["attention_flow"]["spearman"]
    assert cell.startswith(result["verdicts"]["attention_flow"]) and f"ρ {rho['value']:+.2f} [{rho['ci95'][0]:+.2f}" in cell
    rows = {r.series: r for r in ES.rho_rows(stored)}
    assert (rows["token2token"].value, rows["token2token"].lo) == (last["token2token"]["spearman"]["value"],
                                                                  last["token2token"]["spearman"]["ci95"][0])
    assert list(ES.steps_frame(stored[0][1]).columns) == result["steps"]
    assert ES.verdict_frame(stored, "data_randomisation").empty  # disan-sst5 has no shuffled-label partner
    with open(tmp_path / "disan-sst5.safetensors", "ab") as f:
        f.write(b"\0")
    assert "changed" in ES.read_sanity_files(tmp_path)[0][0][2]
    assert "(stale)" in ES.verdict_frame(ES.read_sanity_files(tmp_path)[0]).columns[0]


def test_the_evidence_view_renders_the_sanity_and_plausibility_tabs():
    at = run_app(view="evidence")
    assert_clean(at)
    captions = [plain(c.value) for c in at.caption]
    for name in bundled():
        if name not in STORED:
            assert any(c.startswith(f"{name}: no sanity checks stored") and
                       f"--model {name} --parts sanity --write" in c for c in captions), name
    for name in EP.sst5_without_file():
        assert any(c.startswith(f"{name}: no plausibility stored") and "--parts plausibility --write" in c
                   for c in captions), name
    if not STORED:
        return
    drawn = {}
    for trace in chart_by_key(at, "ev_sanity_rho")["data"]:
        drawn[trace["name"]] = sorted(round(x, 6) for x in trace["x"])
    expected = []
    for name in STORED:
        result = read_sanity(name)["cascading"]
        expected.append(round(result["by_step"][result["steps"][-1]]["lrp"]["spearman"]["value"], 6))
    assert drawn[ES.label("lrp")] == sorted(expected)
    tables = [t.value for t in at.dataframe]
    assert any(f"{STORED[0]} (n=" in str(list(t.columns)) and ES.label("attention") in list(t.index) for t in tables)
