"""The faithfulness run (Kendall τ, ERASER) on tiny models, its JSON schema, the stored files and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import torch

from disan.__main__ import main
from disan.attribution.corpus import FRACTIONS, RANKINGS, measure, run, sample
from disan.attribution.rank import top_count, top_positions
from disan.attribution.stored import faithfulness_path, read_faithfulness, stale_reason, write_faithfulness
from disan.checkpoint import sha256
from disan.data import Example
from tests.conftest import make_tiny
from tests.fixture_data import fixture_data_dir

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "faithfulness.schema.json").read_text())
PRETRAINED = ROOT / "pretrained"

SST = [Example(t, i % 2) for i, t in enumerate((
    "the movie is good .", "a bad movie .", "the dog is n't good , the man is bad .", "tea .",
    "the glass of tea is good and the movie is bad but the dog is good .", "a man .",
))]
NLI = [Example(p, i % 3, h) for i, (p, h) in enumerate((
    ("the man is good .", "a man ."), ("the man is good .", "the dog is bad ."), ("a glass of tea .", "tea ."),
))]


@pytest.mark.parametrize("arch", ["disan", "dsa"])
@pytest.mark.parametrize("pair", [False, True], ids=["sst", "nli"])
def test_run_on_a_tiny_model_matches_the_schema(tiny_glove, arch, pair):
    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True)
    examples = NLI if pair else SST
    out = run(model, examples, "nli" if pair else "sst5", "test", "0" * 64, progress=False)
    jsonschema.validate(out, SCHEMA)
    assert out["n"] == out["n_examples"] == len(examples) and out["complete"]
    assert len(out["tau"]) == 10 and all(-1 <= t["value"] <= 1 for t in out["tau"])
    assert {(r["ranking"], r["fraction"]) for r in out["eraser"]} == {(r, f) for r in RANKINGS for f in FRACTIONS}
    assert out["flow"]["exact"] == (arch == "disan") and 0 < out["flow"]["mean_remainder"] < 1
    assert out["answer"].startswith(f"tiny-{arch}: attention ranks tokens")
    assert out["integrated_gradients"]["steps"] == (20 if arch == "disan" else 48)


def test_eraser_values_equal_direct_reruns_of_the_shortened_sentence(tiny_glove):
    """One sentence: comprehensiveness and sufficiency at every level by attention, recomputed by hand."""
    model = make_tiny("dsa", tiny_glove, unk_zero=True)
    example = SST[4]
    per = measure(model, [example], [0], progress=False)
    toks = example.text.split()
    trace = model.trace(example.text)
    attention = trace.premise.encoder.s2t_probs[0].mean(-1).numpy()
    k = max(range(2), key=lambda i: list(trace.prediction.values())[i])
    p_full = list(trace.prediction.values())[k]

    def p(tokens):
        with torch.no_grad():
            return float(torch.softmax(model([tokens])[0], -1)[0, k])

    for frac in FRACTIONS:
        top = top_positions(attention, top_count(len(toks), frac))
        comp = p_full - p([t for i, t in enumerate(toks) if i not in top])
        suff = p_full - p([toks[i] for i in top])
        assert per[f"comprehensiveness:attention:{frac:g}"][0] == pytest.approx(comp, abs=2e-6)
        assert per[f"sufficiency:attention:{frac:g}"][0] == pytest.approx(suff, abs=2e-6)


def test_a_sample_is_seeded_sorted_and_draws_the_same_random_ranking_as_the_whole_run(tiny_glove):
    assert list(sample(5, None)) == list(range(5)) and list(sample(5, 9)) == list(range(5))
    picked = sample(100, 7)
    assert list(picked) == sorted(picked) and len(set(picked)) == 7 and list(sample(100, 7)) == list(picked)
    model = make_tiny("disan", tiny_glove, unk_zero=True)
    whole = measure(model, SST, list(range(len(SST))), progress=False)
    part = measure(model, [SST[2], SST[4]], [2, 4], progress=False)
    for key in ("comprehensiveness:random:0.5", "sufficiency:random:0.2", "tau:attention:integrated_gradients"):
        assert np.allclose(part[key], whole[key][[2, 4]], atol=1e-6)


def test_stored_file_is_stale_when_the_checkpoint_changes(tmp_path):
    ckpt = tmp_path / "tiny.safetensors"
    ckpt.write_bytes(b"weights v1")
    result = {"model": "tiny", "checkpoint_sha256": sha256(ckpt)}
    write_faithfulness(result, tmp_path)
    assert read_faithfulness("tiny", tmp_path) == result and stale_reason(result, tmp_path) is None
    ckpt.write_bytes(b"weights v2")
    assert "changed" in stale_reason(result, tmp_path)
    ckpt.unlink()
    assert "missing" in stale_reason(result, tmp_path)


@pytest.mark.parametrize("name", sorted(p.name.removesuffix(".faithfulness.json")
                                        for p in PRETRAINED.glob("*.faithfulness.json")))
def test_stored_results_match_the_schema_and_their_checkpoint(name):
    data = read_faithfulness(name)
    jsonschema.validate(data, SCHEMA)
    assert data["model"] == name and data["split"] == "test"
    assert stale_reason(data) is None, f"{name}: run python -m disan faithfulness --all --write --stale-only"
    assert data["complete"] == (data["n"] == data["n_examples"])


def test_cli_limit_json_on_fixture_data(capsys):
    assert main(["faithfulness", "--model", "dsa-sst5", "--data-dir", str(fixture_data_dir()), "--limit", "2",
                 "--json", "--no-progress"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    jsonschema.validate(out, SCHEMA)
    assert out["n"] == 2 and out["n_examples"] == 3 and not out["complete"]
    assert out["checkpoint_sha256"] == sha256(PRETRAINED / "dsa-sst5.safetensors")
    assert "dsa-sst5: measured in" in captured.err and "ms each" in captured.err


def test_cli_bad_input_exits_2_with_one_line(capsys, tmp_path):
    for args, needle in ((["--model", "no-such-model"], "no-such-model"), (["--model", "disan"], "random weights"),
                         (["--model", "dsa-sst5", "--limit", "0"], "--limit"), ([], "--all"),
                         (["--model", "dsa-sst5", "--data-dir", str(tmp_path)], "--data-dir")):
        assert main(["faithfulness", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and needle in err


def test_cli_write_stale_only_recomputes_only_stale_files(tmp_path, capsys):
    for suffix in (".safetensors", ".json"):
        shutil.copy(PRETRAINED / f"dsa-sst5{suffix}", tmp_path / f"dsa-sst5{suffix}")
    write_faithfulness({"model": "dsa-sst5", "checkpoint_sha256": "0" * 64}, tmp_path)
    args = ["faithfulness", "--all", "--write", "--stale-only", "--no-progress", "--limit", "2",
            "--data-dir", str(fixture_data_dir()), "--pretrained-dir", str(tmp_path)]
    assert main(args) == 0
    fresh = read_faithfulness("dsa-sst5", tmp_path)
    assert fresh["checkpoint_sha256"] == sha256(tmp_path / "dsa-sst5.safetensors") and fresh["n"] == 2
    capsys.readouterr()
    assert main(args) == 0
    assert "current" in capsys.readouterr().err and faithfulness_path("dsa-sst5", tmp_path).is_file()


def test_tau_bands_and_the_answer_follow_the_numbers():
    from disan.attribution.corpus import answer, band

    assert [band(t) for t in (0.05, -0.2, 0.3, -0.49, 0.5)] == ["no", "weak", "moderate", "moderate", "strong"]
    tau = {f"attention:{m}": {"value": v} for m, v in
           (("grad_input", 0.6), ("integrated_gradients", 0.5), ("leave_one_out", 0.4), ("flow", 0.9))}
    comp = {"attention": {"value": 0.2}, "random": {"value": 0.25}}
    diff = {"value": -0.05, "ci95": [-0.08, -0.02], "verdict": "contradicted"}
    line = answer("m", tau, diff, comp)
    assert line.startswith("m: attention ranks tokens like its attributions (strong agreement: mean Kendall τ +0.50")
    assert "less than removing random ones" in line and "-0.050 [-0.080, -0.020]" in line
