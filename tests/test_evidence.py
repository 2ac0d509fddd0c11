"""Bootstrap intervals, the claims run end to end on tiny models, the JSON schema, stored files and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from disan.__main__ import main
from disan.cards import read_card
from disan.claims import CLAIMS, GATE_CLAIMS, claims_for
from disan.checkpoint import sha256
from disan.claims_file import claims_path, read_claims, stale_reason, write_claims
from disan.data import Example
from disan.evaluate import unpack_correct
from disan.evidence import run
from disan.stats import bootstrap_ci, paired_bootstrap_diff, verdict
from tests.conftest import make_tiny
from viz_app.shell.results import read_results
from tests.fixture_data import fixture_data_dir

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "claims.schema.json").read_text())
PRETRAINED = ROOT / "pretrained"

SST = [Example(t, i % 2) for i, t in enumerate((
    "the movie is good .", "a bad movie .", "the dog is n't good , the man is bad .", "tea .",
    "the glass of tea is good and the movie is bad but the dog is good .", "a man .",
))]
NLI = [Example(p, i % 3, h) for i, (p, h) in enumerate((
    ("the man is good .", "a man ."), ("the man is good .", "the dog is bad ."), ("a glass of tea .", "tea ."),
    ("the dog do n't .", "a dog is good ."),
))]


def test_bootstrap_interval_covers_the_true_mean():
    """95% intervals of a known effect (mean 0.3) cover it in about 95% of 200 synthetic samples."""
    rng = np.random.default_rng(1)
    hits = sum(lo <= 0.3 <= hi for lo, hi in (bootstrap_ci(rng.normal(0.3, 1.0, 150), n_boot=400, seed=s)
                                              for s in range(200)))
    assert 0.89 <= hits / 200 <= 0.99
    lo, hi = bootstrap_ci(rng.normal(0.3, 1.0, 2000))
    assert 0 < lo < 0.3 < hi and verdict(0.3, lo, hi, 0.0, +1) == "supported"
    assert verdict(0.3, lo, hi, 0.0, -1) == "contradicted" and verdict(0.0, -0.1, 0.1, 0.0, +1) == "inconclusive"


def test_bootstrap_is_deterministic_and_handles_joint_arrays():
    x = np.arange(50.0)
    assert bootstrap_ci(x, seed=3) == bootstrap_ci(x, seed=3)
    lo, hi = bootstrap_ci((x, x > 25), lambda v, m: v[m].mean() - v[~m].mean())
    assert 20 < lo < 26 < hi < 32  # the true gap of the two halves is 26
    assert np.isnan(bootstrap_ci(np.zeros(0))[0])


def test_paired_bootstrap_diff_covers_a_known_accuracy_gap():
    rng = np.random.default_rng(2)
    hits = 0
    for s in range(100):
        a = rng.random(600) < 0.70
        b = np.where(rng.random(600) < 0.9, a, rng.random(600) < 0.60)  # mostly the same examples right
        diff, lo, hi = paired_bootstrap_diff(a, b, n_boot=400, seed=s)
        assert diff == pytest.approx(a.mean() - b.mean())
        hits += lo <= 0.1 * (0.70 - 0.60) <= hi
    assert hits >= 85
    with pytest.raises(ValueError):
        paired_bootstrap_diff([1, 0], [1, 0, 1])


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_claims_run_on_a_tiny_sst_model(tiny_glove, arch):
    model = make_tiny(arch, tiny_glove)
    out = run(model, SST, "sst5", "test", "0" * 64, progress=False)
    jsonschema.validate(out, SCHEMA)
    ids = [c["id"] for c in out["claims"]] + [s["id"] for s in out["skipped"]]
    assert sorted(ids) == sorted(c.id for c in claims_for(arch, "sst5", False))
    assert [s["id"] for s in out["skipped"]] == (["shen5-long-sentences"] if arch == "disan" else [])  # none ≥ 38
    assert set(GATE_CLAIMS) <= set(ids)
    assert out["n_examples"] == len(SST) and out["n_sentences"] == len(SST)
    assert sum(b["n"] for b in out["accuracy_by_length"]) == len(SST)
    correct = unpack_correct(out["correct_bits"], len(SST))
    assert out["accuracy"]["value"] == pytest.approx(correct.mean())
    for c in out["claims"]:
        lo, hi = c["ci95"]
        assert lo <= c["value"] + 1e-9 and c["value"] <= hi + 1e-9 or c["n"] < 3
        assert c["n"] <= len(SST)


def test_claims_run_on_pairs_uses_distinct_sentences_and_mean_lengths(tiny_glove):
    model = make_tiny("dsa", tiny_glove, pair=True)
    out = run(model, NLI, "nli", "test", "0" * 64, progress=False)
    jsonschema.validate(out, SCHEMA)
    distinct = {p for e in NLI for p in (e.text, e.hypothesis)}
    assert out["n_sentences"] == len(distinct) == 7
    lengths = sorted(d["length"] for d in out["length_distribution"] for _ in range(d["n"]))
    assert lengths == sorted([(5 + 3) / 2, (5 + 5) / 2, (5 + 2) / 2, (5 + 5) / 2])
    assert not any(c["id"] == "im6-distance-mask-long" for c in out["claims"])  # no ablation given


def test_every_claim_names_its_figure_as_in_the_captions():
    for c in CLAIMS:
        assert c.figure.split(" Fig. ")[0] in ("Shen", "Im") and c.direction in (-1, 1)
    assert len({c.id for c in CLAIMS}) == len(CLAIMS)


def test_stored_file_is_stale_when_the_checkpoint_changes(tmp_path, tiny_glove):
    ckpt = tmp_path / "tiny.safetensors"
    ckpt.write_bytes(b"weights v1")
    result = {"model": "tiny", "checkpoint_sha256": sha256(ckpt), "claims": []}
    write_claims(result, tmp_path)
    assert read_claims("tiny", tmp_path)["checkpoint_sha256"] == result["checkpoint_sha256"]
    assert stale_reason(result, tmp_path) is None
    ckpt.write_bytes(b"weights v2")
    assert "changed" in stale_reason(result, tmp_path)
    ckpt.unlink()
    assert "missing" in stale_reason(result, tmp_path)


def test_a_damaged_results_file_is_reported_not_raised(tmp_path):
    for name, text in (("broken", "{not json"), ("partial", '{"model": "partial", "claims": []}'), ("none", None)):
        (tmp_path / f"{name}.safetensors").write_bytes(b"weights")
        if text is not None:
            (tmp_path / f"{name}.claims.json").write_text(text)
    results = read_results(tmp_path)
    assert results.stored == () and results.missing == ("none",)
    assert [n for n, _ in results.unreadable] == ["broken", "partial"]
    assert all("claims.json" in why for _, why in results.unreadable)


@pytest.mark.parametrize("name", sorted(p.name.removesuffix(".claims.json") for p in PRETRAINED.glob("*.claims.json")))
def test_stored_results_match_the_schema_and_their_checkpoint(name):
    data = read_claims(name)
    jsonschema.validate(data, SCHEMA)
    assert data["model"] == name
    assert stale_reason(data) is None, f"{name}: run python -m disan claims --all --write --stale-only"
    card_test = read_card(name).get("evaluation", {}).get("test")
    if card_test and data["split"] == "test" and "relatedness" in data:  # SICK: the same scores as the card's
        assert data["relatedness"]["pearson_r"]["value"] == pytest.approx(card_test["pearson_r"], abs=1e-12)
        assert data["scores_f32"] == card_test["scores_f32"]
    elif card_test and data["split"] == "test":  # the same predictions as `python -m disan evaluate --card`
        assert data["accuracy"]["value"] == pytest.approx(card_test["accuracy"], abs=1e-12)
        if card_test.get("correct_bits"):
            assert data["correct_bits"] == card_test["correct_bits"]


def test_cli_unknown_model_and_missing_data_exit_2(capsys, tmp_path):
    assert main(["claims", "--model", "no-such-model"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no-such-model" in err
    assert main(["claims", "--model", "disan-sst5", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "SST" in err and "--data-dir" in err
    assert main(["claims"]) == 2 and "--all" in capsys.readouterr().err


def test_cli_json_on_fixture_data(capsys):
    assert main(["claims", "--model", "disan-sst5", "--data-dir", str(fixture_data_dir()), "--json",
                 "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    jsonschema.validate(out, SCHEMA)
    assert out["model"] == "disan-sst5" and out["n_examples"] == 3 and out["task"] == "sst5"
    assert out["checkpoint_sha256"] == sha256(PRETRAINED / "disan-sst5.safetensors")


def test_cli_write_stale_only_recomputes_only_stale_files(tmp_path, capsys):
    """--write --stale-only rewrites a stale file and then skips it as current (in a copy of pretrained/)."""
    for suffix in (".safetensors", ".json"):
        shutil.copy(PRETRAINED / f"disan-sst5{suffix}", tmp_path / f"disan-sst5{suffix}")
    write_claims({"model": "disan-sst5", "checkpoint_sha256": "0" * 64, "claims": []}, tmp_path)
    args = ["claims", "--all", "--write", "--stale-only", "--no-progress", "--data-dir", str(fixture_data_dir()),
            "--pretrained-dir", str(tmp_path)]
    assert main(args) == 0
    fresh = read_claims("disan-sst5", tmp_path)
    assert fresh["checkpoint_sha256"] == sha256(tmp_path / "disan-sst5.safetensors") and fresh["claims"]
    capsys.readouterr()
    assert main(args) == 0
    assert "current" in capsys.readouterr().err
    assert claims_path("disan-sst5", tmp_path).is_file() and not (PRETRAINED / "x").exists()
