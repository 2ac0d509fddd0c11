"""The faithfulness run (Kendall τ, ERASER) on tiny models, its JSON schema, the stored files, their migration
from schema 1, the verdict rules and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import torch

from disan.__main__ import main
from disan.attribution.corpus import FRACTIONS, SCHEMA_VERSION, measure, rankings_for, run, sample, summarize
from disan.attribution.rank import top_count, top_positions
from disan.attribution.sentence import methods_for
from disan.attribution.stored import faithfulness_path, migrate, read_faithfulness, stale_reason, write_faithfulness
from disan.claims_file import card_fold
from disan.errors import InputError
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
    assert out["schema_version"] == SCHEMA_VERSION and out["not_computed"] == []
    assert out["n"] == out["n_examples"] == len(examples) and out["complete"]
    m = len(methods_for(arch))  # DiSAN 6 series, the DSA 7 (its pooling series)
    assert len(out["tau"]) == m * (m - 1) // 2 and all(-1 <= t["value"] <= 1 for t in out["tau"])
    assert {(r["ranking"], r["fraction"]) for r in out["eraser"]} == {(r, f) for r in rankings_for(arch) for f in FRACTIONS}
    assert out["rollout"]["exact"] == (arch == "disan") and 0 < out["rollout"]["mean_remainder"] < 1
    assert out["attention_flow"]["exact"] == (arch == "disan")
    assert out["answer"].startswith(f"tiny-{arch}: attention's token ranking shows")
    assert "the attributions with each other: mean τ" in out["answer"]
    assert out["integrated_gradients"]["steps"] == (20 if arch == "disan" else 48)
    assert (out["pooling"] is None) == (arch == "disan")
    assert set(out["jain_wallace"]) >= {"tau_g_detached", "tau_g", "tau_loo"}


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
    result = {"schema_version": SCHEMA_VERSION, "model": "tiny", "checkpoint_sha256": sha256(ckpt)}
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
    # a cross-validated model is measured on its own fold's test part, the one its card names (not the fixed split)
    assert data.get("fold") == card_fold(name, data["task"], PRETRAINED)


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


@pytest.mark.slow
def test_cli_write_stale_only_recomputes_only_stale_files(tmp_path, capsys):
    for suffix in (".safetensors", ".json"):
        shutil.copy(PRETRAINED / f"dsa-sst5{suffix}", tmp_path / f"dsa-sst5{suffix}")
    write_faithfulness({"schema_version": SCHEMA_VERSION, "model": "dsa-sst5", "checkpoint_sha256": "0" * 64}, tmp_path)
    args = ["faithfulness", "--all", "--write", "--stale-only", "--no-progress", "--limit", "2",
            "--data-dir", str(fixture_data_dir()), "--pretrained-dir", str(tmp_path)]
    assert main(args) == 0
    fresh = read_faithfulness("dsa-sst5", tmp_path)
    assert fresh["checkpoint_sha256"] == sha256(tmp_path / "dsa-sst5.safetensors") and fresh["n"] == 2
    capsys.readouterr()
    assert main(args) == 0
    assert "current" in capsys.readouterr().err and faithfulness_path("dsa-sst5", tmp_path).is_file()


def test_stale_only_counts_an_older_schema_as_stale(tmp_path):
    from disan.attribution.stored import stale_reason

    for suffix in (".safetensors", ".json"):
        shutil.copy(PRETRAINED / f"dsa-sst5{suffix}", tmp_path / f"dsa-sst5{suffix}")
    current = {"schema_version": SCHEMA_VERSION, "model": "dsa-sst5",
               "checkpoint_sha256": sha256(tmp_path / "dsa-sst5.safetensors")}
    assert stale_reason(current, tmp_path, SCHEMA_VERSION) is None
    older = {**current, "schema_version": SCHEMA_VERSION - 1}
    assert f"schema {SCHEMA_VERSION - 1}" in stale_reason(older, tmp_path, SCHEMA_VERSION)
    assert stale_reason(older, tmp_path) is None  # without a schema: only the checkpoint is compared
    migrated = {**current, "migrated_from": 2}  # what read_faithfulness makes of a stored schema 2 file
    assert "schema 2" in stale_reason(migrated, tmp_path, SCHEMA_VERSION)


def _result(att, pairs, diff):
    """A minimal result: attention's τ with the three attributions, the three pairs, and the erasure comparison."""
    tau = [{"a": "attention", "b": m, "value": v, "ci95": [v - 0.01, v + 0.01], "n": 10}
           for m, v in zip(("grad_input", "integrated_gradients", "leave_one_out"), att)]
    tau += [{"a": a, "b": b, "value": v, "ci95": [v - 0.01, v + 0.01], "n": 10} for (a, b), v in
            zip((("grad_input", "integrated_gradients"), ("grad_input", "leave_one_out"),
                 ("integrated_gradients", "leave_one_out")), pairs)]
    return {"model": "m", "tau": tau, "attention_minus_random": diff,
            "aopc": {"comprehensiveness": {"attention": {"value": 0.2}, "random": {"value": 0.25}}}}


def test_tau_bands_use_the_signed_mean_and_a_negative_mean_reads_as_disagreement():
    from disan.attribution.corpus import answer, band

    # The old rule banded |mean τ|: −0.49 read "moderate" and −0.6 "strong agreement".
    assert [band(t) for t in (0.05, -0.05, 0.2, 0.3, 0.49, 0.5)] == [
        "no agreement", "no agreement", "weak agreement", "moderate agreement", "moderate agreement",
        "strong agreement"]
    assert band(-0.49) == band(-0.2) == band(-0.6) == "disagreement"
    diff = {"value": -0.05, "ci95": [-0.08, -0.02], "verdict": "contradicted"}
    line = answer(_result((-0.6, -0.6, -0.6), (0.3, 0.3, 0.3), diff))
    assert line.startswith("m: attention's token ranking shows disagreement with its attributions (mean τ -0.60")
    assert " agreement with" not in line.split(";")[0]  # not "strong agreement", as the old |τ| rule read it


def test_the_answer_reads_against_the_attributions_agreement_and_names_an_inconclusive_comparison():
    from disan.attribution.corpus import answer

    diff = {"value": 0.004, "ci95": [-0.002, 0.01], "verdict": "inconclusive"}
    result = _result((0.6, 0.5, 0.4), (0.7, 0.6, 0.5), diff)
    line = answer(result)
    assert "strong agreement with its attributions (mean τ +0.50" in line
    assert "the attributions with each other: mean τ +0.60" in line
    assert "gradient × input ~ Integrated Gradients +0.70 [+0.69, +0.71]" in line
    assert "inconclusive" in line and "+0.004 [-0.002, +0.010]" in line and "no more than" not in line
    assert "lowers the predicted class's probability" in line and "changes the prediction" not in line
    result["agreement"] = {"attention": {"value": 0.5, "ci95": [0.45, 0.55], "n": 10},
                           "attributions": {"value": 0.6, "ci95": [0.55, 0.65], "n": 10},
                           "attention_minus_attributions": {"value": -0.1, "ci95": [-0.15, -0.05], "n": 10,
                                                            "verdict": "contradicted"}}
    assert "attention agrees with them less than they agree with each other (difference -0.10 [-0.15, -0.05])" in (
        answer(result))
    result["attention_minus_random"] = {"value": -0.05, "ci95": [-0.08, -0.02], "verdict": "contradicted"}
    assert "lowers the predicted class's probability less than deleting random ones" in answer(result)


def test_eraser_aopc_uses_its_own_bins_and_denominator_beside_ours(tiny_glove):
    per = measure(make_tiny("disan", tiny_glove, unk_zero=True), SST, list(range(len(SST))), progress=False)
    s = summarize(per, "disan")
    for kind in ("comprehensiveness", "sufficiency"):
        for r in rankings_for("disan"):
            levels = {f: per[f"{kind}:{r}:{f:g}"] for f in FRACTIONS}
            eraser = (sum(levels.values()) / 6).mean()  # {1, 5, 10, 20, 50}% and 1 / (|B| + 1)
            ours = np.mean([levels[0.1], levels[0.2], levels[0.5]], 0).mean()
            assert s["aopc_eraser"][kind][r]["value"] == pytest.approx(eraser)
            assert s["aopc"][kind][r]["value"] == pytest.approx(ours)


def test_the_agreement_baseline_is_the_per_example_mean_of_the_attribution_pairs(tiny_glove):
    per = measure(make_tiny("dsa", tiny_glove, unk_zero=True), SST, list(range(len(SST))), progress=False)
    s = summarize(per, "dsa")
    base = np.nanmean([per["tau:grad_input:integrated_gradients"], per["tau:grad_input:leave_one_out"],
                       per["tau:integrated_gradients:leave_one_out"]], 0)
    att = np.nanmean([per["tau:attention:grad_input"], per["tau:attention:integrated_gradients"],
                      per["tau:attention:leave_one_out"]], 0)
    assert s["agreement"]["attributions"]["value"] == pytest.approx(np.nanmean(base))
    ok = np.isfinite(att) & np.isfinite(base)
    assert s["agreement"]["attention_minus_attributions"]["value"] == pytest.approx((att - base)[ok].mean())
    assert "pooling" in s["agreement"]
    # an SST sentence has one side, so Jain & Wallace's premise-only τ with leave-one-out is the ordinary one
    assert np.allclose(per["jw:tau_loo"], per["tau:attention:leave_one_out"], equal_nan=True)
    assert np.allclose(per["jw:tau_g"], per["tau:attention:grad_input"], equal_nan=True)


def test_a_schema_1_file_is_migrated_and_any_other_version_is_refused_by_name(tmp_path):
    old = json.loads((ROOT / "tests" / "fixtures" / "faithfulness_schema1.json").read_text())  # dsa-sst5 at 18fbda6
    new = migrate(old)
    jsonschema.validate(new, SCHEMA)
    assert new["migrated_from"] == 1 and new["schema_version"] == SCHEMA_VERSION
    assert "flow" not in new and new["rollout"]["mean_remainder"] == old["flow"]["mean_remainder"]
    pairs = {(t["a"], t["b"]) for t in new["tau"]}
    assert ("attention", "rollout") in pairs and not any("flow" in p for p in pairs)
    assert {r["ranking"] for r in new["eraser"]} == {"attention", "integrated_gradients", "rollout", "random"}
    assert new["aopc"]["comprehensiveness"]["rollout"] == old["aopc"]["comprehensiveness"]["flow"]
    assert {c["key"] for c in new["not_computed"]} == {"attention_flow", "agreement", "jain_wallace", "pooling",
                                                       "aopc_eraser", "aopc_steps", "naopc", "naopc_how"}
    assert all(new[k] is None for k in ("attention_flow", "agreement", "jain_wallace", "pooling", "aopc_eraser",
                                        "aopc_steps", "naopc", "naopc_how"))
    assert "attention flow" not in new["answer"] and "gated rollout" in new["answer"]
    assert migrate(new) is new
    for version in (None, 4):
        with pytest.raises(InputError, match=f"schema_version {version!r}.*--model dsa-sst5 --write"):
            migrate({**old, "schema_version": version})
    write_faithfulness({**old, "schema_version": 4}, tmp_path)
    with pytest.raises(InputError, match="schema_version 4"):
        read_faithfulness("dsa-sst5", tmp_path)
    # the stored file rewritten in the new schema: the same numbers, read back unchanged
    from disan.attribution.stored import main as stored_main

    write_faithfulness(old, tmp_path)
    assert stored_main(["--migrate", "dsa-sst5", "--pretrained-dir", str(tmp_path)]) == 0
    on_disk = json.loads(faithfulness_path("dsa-sst5", tmp_path).read_text())
    assert on_disk == new and read_faithfulness("dsa-sst5", tmp_path) == new


def test_the_answer_names_the_score_a_relatedness_model_is_measured_on():
    """A relatedness model's erasure target is its score ŷ (corpus.target), so the answer must not speak of a class."""
    from disan.attribution.corpus import TARGET_SCORE, answer

    names = [p.name.removesuffix(".faithfulness.json") for p in PRETRAINED.glob("*.faithfulness.json")]
    if not names:
        pytest.skip("no stored faithfulness result in pretrained/")
    data = read_faithfulness(sorted(names)[0])
    classifier = answer({**data, "target": "the predicted class of the whole input"})
    related = answer({**data, "target": TARGET_SCORE})
    assert "lowers the predicted class's probability" in classifier and "relatedness" not in classifier
    assert "lowers the predicted relatedness score" in related and "class's probability" not in related
