"""Issue 57: ``disan faithfulness --model NAME --write`` also stores the model's sanity checks
(pretrained/NAME.sanity.json) and, for an SST-5 model, its plausibility (NAME.plausibility.json), each with its
schema, sample and seed, and skips current ones with --stale-only; the stored files match their schemas and
checkpoints, and scripts/sanity_table.py reads them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from disan.__main__ import main
from disan.api import PRETRAINED_DIR
from disan.attribution import data_randomisation
from disan.attribution import sanity_file as S
from disan.attribution.plausibility_file import read_plausibility
from disan.attribution.plausibility_file import stale_reason as plausibility_stale
from disan.claims_file import bundled
from fixture_data import fixture_data_dir

ROOT = Path(__file__).resolve().parents[1]
SANITY_SCHEMA = json.loads((ROOT / "docs" / "sanity.schema.json").read_text())
PLAUSIBILITY_SCHEMA = json.loads((ROOT / "docs" / "plausibility.schema.json").read_text())


def _copy(names, folder):
    for name in names:
        for suffix in (".safetensors", ".json"):
            shutil.copy(PRETRAINED_DIR / f"{name}{suffix}", folder)


def _faithfulness(folder, *extra) -> int:
    return main(["faithfulness", "--model", "disan-sst5", "--data-dir", str(fixture_data_dir()), "--no-progress",
                 "--pretrained-dir", str(folder), "--write", *extra])


def test_one_command_writes_the_sanity_and_plausibility_files_and_stale_only_skips_them(tmp_path, capsys):
    _copy(["disan-sst5"], tmp_path)
    assert _faithfulness(tmp_path, "--parts", "sanity,plausibility", "--sanity-limit", "2") == 0
    sanity = json.loads((tmp_path / "disan-sst5.sanity.json").read_text())
    jsonschema.validate(sanity, SANITY_SCHEMA)
    assert sanity["sample"] == {"limit": 2, "seed": 0, "n": 2, "n_examples": 3,
                                "how": "seeded random sample of the split (corpus.sample)"}
    assert sanity["cascading"]["steps"][0] == "head" and sanity["cascading"]["steps"][-1] == "embeddings"
    assert set(sanity["cascading"]["verdicts"]) == set(sanity["cascading"]["by_step"]["head"])
    assert sanity["data_randomisation"] is None and "--shuffled" in sanity["data_randomisation_missing"]
    assert "--sanity-limit 2 --write" in sanity["command"]
    plaus = json.loads((tmp_path / "disan-sst5.plausibility.json").read_text())
    jsonschema.validate(plaus, PLAUSIBILITY_SCHEMA)
    assert plaus["limit"] == 0 and plaus["n"] == plaus["n_trees"] == 3 and "--parts plausibility" in plaus["command"]
    assert S.stale_reason(sanity, tmp_path) is None and plausibility_stale(plaus, tmp_path) is None
    before = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")}
    capsys.readouterr()
    assert _faithfulness(tmp_path, "--parts", "sanity,plausibility", "--stale-only") == 0
    err = capsys.readouterr().err
    assert "sanity checks are current" in err and "plausibility is current" in err
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.json")} == before
    with open(tmp_path / "disan-sst5.safetensors", "ab") as f:
        f.write(b"\0")
    assert "changed" in S.stale_reason(sanity, tmp_path)
    assert "changed" in plausibility_stale(read_plausibility("disan-sst5", tmp_path), tmp_path)


def test_the_data_randomisation_test_is_stored_and_kept_when_recomputed_without_its_model(tmp_path, capsys):
    _copy(["disan-sst5"], tmp_path)
    other = PRETRAINED_DIR / "disan-sst5-nodir.safetensors"  # any other trained SST-5 model stands in here
    assert _faithfulness(tmp_path, "--parts", "sanity", "--sanity-limit", "1", "--shuffled", str(other),
                         "--shuffled-limit", "2") == 0
    data = json.loads((tmp_path / "disan-sst5.sanity.json").read_text())
    jsonschema.validate(data, SANITY_SCHEMA)
    test = data["data_randomisation"]
    assert test["n"] == 2 and len(test["shuffled_sha256"]) == 64 and test["steps"] == [data_randomisation.STEP]
    assert data["data_randomisation_missing"] is None and f"--shuffled {other}" in data["command"]
    assert S.stale_reason(data, tmp_path, str(other)) is None
    assert "no data randomisation" in S.stale_reason({**data, "data_randomisation": None}, tmp_path, str(other))
    assert _faithfulness(tmp_path, "--parts", "sanity", "--sanity-limit", "1") == 0  # no --shuffled: nothing lost
    again = json.loads((tmp_path / "disan-sst5.sanity.json").read_text())
    assert again["data_randomisation"] == test


def test_plausibility_part_skips_a_model_of_another_task_and_bad_parts_are_one_line(tmp_path, capsys):
    _copy(["dsa-nli"], tmp_path)
    assert main(["faithfulness", "--model", "dsa-nli", "--parts", "plausibility", "--pretrained-dir", str(tmp_path),
                 "--write", "--no-progress"]) == 0
    assert "SST-5 models only" in capsys.readouterr().err and not list(tmp_path.glob("*.plausibility.json"))
    assert main(["faithfulness", "--model", "dsa-nli", "--parts", "sanity,nonsense"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--parts" in err[0]
    assert main(["faithfulness", "--model", "dsa-nli", "--parts", "sanity", "--sanity-limit", "-1"]) == 2


def test_default_samples_are_the_docs_ones():
    assert S.default_limit("disan-sst5", "disan") == S.default_limit("dsa-sst5", "dsa") == 50
    assert S.default_limit("disan-trec", "disan") == 30 and S.default_limit("dsa-nli", "dsa") == 20


STORED = [n for n in bundled() if S.sanity_path(n).is_file()]


@pytest.mark.parametrize("name", STORED)
def test_stored_sanity_files_match_the_schema_their_checkpoint_and_the_docs_sample(name):
    data = S.read_sanity(name)
    jsonschema.validate(data, SANITY_SCHEMA)
    assert S.stale_reason(data) is None, f"{name}.sanity.json is stale: recompute with {data['command']}"
    arch = "disan" if name.startswith("disan") else "dsa"
    assert data["sample"]["n"] == min(S.default_limit(name, arch), data["sample"]["n_examples"])


@pytest.mark.parametrize("name", [n for n in bundled() if (PRETRAINED_DIR / f"{n}.plausibility.json").is_file()])
def test_stored_plausibility_files_match_the_schema_and_their_checkpoint(name):
    data = read_plausibility(name)
    jsonschema.validate(data, PLAUSIBILITY_SCHEMA)
    assert plausibility_stale(data) is None
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "plausibility_table.py"),
                          str(PRETRAINED_DIR / f"{name}.plausibility.json")], capture_output=True, text=True,
                         check=True).stdout
    lrp = data["references"]["word"]["lrp"]["auprc"]
    assert f"| lrp | {lrp['value']:.2f} [{lrp['ci95'][0]:.2f}, {lrp['ci95'][1]:.2f}] |" in out


@pytest.mark.skipif(not STORED, reason="no pretrained/<name>.sanity.json stored")
def test_sanity_table_reads_the_stored_files():
    files = [str(S.sanity_path(n)) for n in STORED]
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "sanity_table.py"), "--verdicts", *files],
                         capture_output=True, text=True, check=True).stdout
    first = S.read_sanity(STORED[0])["cascading"]
    rho = first["by_step"][first["steps"][-1]]["lrp"]["spearman"]["value"]
    assert f"{STORED[0]} (n={first['n']})" in out and f"{first['verdicts']['lrp']} ({rho:+.2f})" in out
