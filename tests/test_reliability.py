"""Hostile text through the model core and the command line; untrusted files; shared-model determinism.

Issue #6, items 1, 2 and 4, on the real random-weight ``disan``/``dsa`` models (50-d GloVe, d_h 300),
so that "words outside GloVe" really are outside GloVe. The hypothesis fuzz test in
``test_fuzz.py`` covers random Unicode on tiny models; this file pins every named category.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

import disan
from disan import InputError, checkpoint
from disan.__main__ import main
from tests.bad_text import BY_ID, CASES, Case

ROOT = Path(__file__).resolve().parents[1]
ARCHS = ("disan", "dsa")


@pytest.fixture(scope="module")
def models():
    return {arch: disan.load(arch, device="cpu") for arch in ARCHS}


def _rows_ok(probs: torch.Tensor, dim: int) -> bool:
    """Every row finite and summing to 1, or exactly 0 (no allowed key)."""
    sums = probs.sum(dim)
    return bool(torch.isfinite(probs).all() and (((sums - 1).abs() < 1e-4) | (probs == 0).all(dim)).all())


def _strict_json(text: str):
    """json.loads that refuses NaN/Infinity (the CLI must never print them)."""

    def refuse(name):
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def assert_good_trace(tr, case: Case) -> None:
    enc = tr.premise.encoder
    assert tr.tokens and len(tr.tokens) == enc.valid.shape[1]
    for tok in tr.tokens:  # no empty, whitespace, control or invisible token survives
        assert tok and tok == tok.strip()
        assert not any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in tok), repr(tok)
        assert not any(ch in "\u200b\u200c\u200d\u2060\ufeff" for ch in tok), repr(tok)
    if case.tokens is not None:
        assert tr.tokens == case.tokens
    for block in (enc.fw, enc.bw):
        assert _rows_ok(block.probs, 2 if tr.arch == "disan" else -1)
        assert torch.isfinite(block.gate).all() and (block.gate >= 0).all() and (block.gate <= 1).all()
    assert _rows_ok(enc.s2t_probs.transpose(1, 2), -1)
    assert all(math.isfinite(p) for p in tr.prediction.values())
    assert abs(sum(tr.prediction.values()) - 1) < 1e-5
    json.dumps(tr.to_json(), allow_nan=False)  # the exported trace has no NaN/Infinity either


def assert_one_sentence(message: str, fragment: str) -> None:
    assert fragment in message, message
    assert message and "\n" not in message and "Traceback" not in message
    assert message.rstrip().endswith("."), message


# ------------------------------------------------------------------- API (item 1)
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_api_gives_a_correct_trace_or_one_clear_sentence(models, arch, case):
    model = models[arch]
    if case.error is not None:
        with pytest.raises(InputError) as err:
            model.trace(case.text)
        assert_one_sentence(str(err.value), case.error)
        with pytest.raises(InputError):
            model.predict([case.text])
        return
    tr = model.trace(case.text)
    assert_good_trace(tr, case)
    (pred,) = model.predict([case.text])
    assert all(abs(pred[k] - tr.prediction[k]) < 1e-5 for k in pred)


def test_words_outside_glove_are_flagged_unknown(models):
    tr = models["dsa"].trace(BY_ID["outside_glove"].text)
    assert tr.premise.token_status == ("unknown", "unknown", "unknown")
    tr = models["dsa"].trace(BY_ID["url"].text)
    assert tr.premise.token_status[1] == "unknown" and tr.premise.token_status[0] == "glove"


def test_non_string_input_is_a_clear_error(models):
    for value in (None, 42, b"bytes", ["a", "list"]):
        with pytest.raises(InputError, match="must be a string"):
            models["disan"].trace(value)


# ------------------------------------------------------------------- CLI (item 1)

@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_trace_exit_0_with_a_trace_or_exit_2_with_one_line(capsys, arch, case):
    """In-process ``main()`` (every case, NUL included; argv cannot carry NUL, see the subprocess test)."""
    code = main(["trace", "--model", arch, case.text, "--json"])
    out, err = capsys.readouterr()
    if case.error is not None:
        assert code == 2 and out == ""
        assert err.startswith("error: ") and err.count("\n") == 1
        assert_one_sentence(err.strip(), case.error)
        return
    assert code == 0 and err == ""
    summary = _strict_json(out)
    assert summary["tokens"] and len(summary["fw_attention"]) == len(summary["tokens"])
    if case.tokens is not None:
        assert tuple(summary["tokens"]) == case.tokens
    assert abs(sum(summary["prediction"].values()) - 1) < 1e-5
    assert main(["trace", "--model", arch, case.text]) == 0  # the plain-text printout too
    assert "tokens:" in capsys.readouterr().out


def _run_cli(*args: str | bytes, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "disan", *args], capture_output=True, cwd=ROOT, timeout=timeout,
        env={**os.environ, "OMP_NUM_THREADS": "1", **(env or {})},
    )


@pytest.mark.slow
@pytest.mark.parametrize("case_id", ["emoji", "right_to_left", "control", "markdown", "whitespace", "chars_10000_words"])
def test_cli_subprocess_never_prints_a_traceback(case_id):
    """The real process, a few representative cases (each start costs seconds)."""
    case = BY_ID[case_id]
    assert case.argv_ok  # NUL and lone surrogates cannot be passed in argv; main() covers them in-process
    proc = _run_cli("trace", "--model", "dsa", case.text, "--json")
    out, err = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert "Traceback" not in err
    if case.error is None:
        assert proc.returncode == 0, err
        _strict_json(out)
    else:
        assert proc.returncode == 2 and err.count("\n") == 1
        assert_one_sentence(err.strip(), case.error)


@pytest.mark.slow
def test_cli_subprocess_invalid_utf8_argument():
    """Bytes that are not UTF-8 reach Python as lone surrogates; the tokenizer drops them."""
    proc = _run_cli(b"trace", b"--model", b"disan", b"caf\xe9 \xff\xfe ok", b"--json")
    assert proc.returncode == 0, proc.stderr.decode()
    assert _strict_json(proc.stdout.decode("utf-8"))["tokens"] == ["caf", "ok"]


@pytest.mark.slow
def test_cli_on_a_non_utf8_console():
    proc = _run_cli("trace", "--model", "dsa", "I 😀 it", env={"PYTHONIOENCODING": "ascii"})
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr


# ------------------------------------------------------ untrusted files (item 2)
class _Exploit:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.mark.parametrize("suffix", [".safetensors", ".pt", ".bin"])
def test_a_pickle_posing_as_a_checkpoint_runs_no_code(tmp_path, suffix):
    marker = tmp_path / "pwned"
    evil = tmp_path / f"evil{suffix}"
    evil.write_bytes(pickle.dumps({"state_dict": _Exploit(marker)}))
    with pytest.raises(disan.DisanError) as err:
        disan.load(str(evil), device="cpu")
    assert "evil" in str(err.value) and "\n" not in str(err.value)
    assert not marker.exists()
    assert main(["trace", "--model", str(evil), "hello"]) == 2
    assert not marker.exists()


def test_a_hostile_training_state_runs_no_code(tmp_path):
    """``<out>.state.pt`` is read with ``torch.load(weights_only=True)``: the unpickler refuses code."""
    from disan.train import TrainConfig, load_state

    cfg = TrainConfig(out=str(tmp_path / "m"))
    marker = tmp_path / "pwned"
    torch.save({"model": _Exploit(marker)}, tmp_path / "m.state.pt")
    with pytest.raises(disan.CheckpointError, match="m.state.pt"):
        load_state(cfg, torch.nn.Linear(1, 1), None)
    assert not marker.exists()


def test_manifest_is_checked_at_every_load(tmp_path):
    model = disan.random_model("dsa", "cpu", d_h=10, heads=2)
    path = checkpoint.save(model, tmp_path / "m")
    assert disan.load(str(path), device="cpu").cfg == model.cfg
    manifest = path.parent / checkpoint.MANIFEST
    entries = json.loads(manifest.read_text())
    entries[path.name] = "0" * 64
    manifest.write_text(json.dumps(entries))
    with pytest.raises(disan.CheckpointError, match=f"{path.name}.*SHA-256"):
        disan.load(str(path), device="cpu")
    manifest.write_text("{not json")
    with pytest.raises(disan.CheckpointError, match="MANIFEST.json is not valid JSON"):
        disan.load(str(path), device="cpu")


# ---------------------------------------------------------- determinism (item 4)
def _fingerprint(model) -> list:
    return [(k, v.clone()) for k, v in sorted(model.state_dict().items())]


def test_concurrent_users_with_different_overrides_get_exact_sequential_results(models):
    """Streamlit serves sessions from threads: 8 threads share one model with mixed α/mask overrides."""
    model = models["dsa"]
    before = _fingerprint(model)
    sentences = ["the restaurant is about to close .", "a gorgeous , witty , seductive movie .", "ThE “quick” fox 😀"]
    requests = [(s, a, m) for s in sentences for a in (None, 0.0, 3.0) for m in ("default", "none", "swap")]
    reference = {r: model.trace(r[0], alpha=r[1], masks=r[2]) for r in requests}

    def run(r):
        return r, model.trace(r[0], alpha=r[1], masks=r[2])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(run, requests * 3))
    for r, tr in results:
        ref = reference[r]
        assert tr.prediction == ref.prediction
        for a, b in ((tr.premise.encoder.fw, ref.premise.encoder.fw), (tr.premise.encoder.bw, ref.premise.encoder.bw)):
            assert torch.equal(a.probs, b.probs) and torch.equal(a.gate, b.gate)
        assert torch.equal(tr.premise.encoder.s2t_probs, ref.premise.encoder.s2t_probs)
    assert reference[(sentences[0], None, "default")].prediction != reference[(sentences[0], 0.0, "default")].prediction
    for (k, v), (k2, v2) in zip(before, _fingerprint(model)):
        assert k == k2 and torch.equal(v, v2), f"an override mutated {k}"
    assert model.cfg.alpha == 1.5 and model.cfg.masks == ("fw", "bw") and not model.training


def test_random_models_are_the_same_for_every_user():
    """Two independent loads (two workers, two processes) give bit-identical traces."""
    text = "the lighthouse keeper waved at the passing ships ."
    for arch in ARCHS:
        a, b = disan.load(arch, device="cpu").trace(text), disan.load(arch, device="cpu").trace(text)
        assert a.prediction == b.prediction
        assert torch.equal(a.premise.encoder.fw.probs, b.premise.encoder.fw.probs)


def test_trace_is_in_eval_mode_even_after_someone_calls_train(models):
    """Dropout never reaches a trace: ``trace`` switches the model back to eval."""
    model = models["disan"]
    ref = model.trace("the movie is good .")
    model.train()
    try:
        again = model.trace("the movie is good .")
        assert not model.training and again.prediction == ref.prediction
    finally:
        model.eval()
