"""The measured token2token kernel (disan.kernel_choice, issue 28): the fastest wins, the model is left as it was,
and training with the measurement is bit for bit training with the chosen kernel set by hand."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from disan import kernel_choice
from disan.config import ConfigError
from disan.errors import DisanError
from disan.kernel_choice import CANDIDATES, measure, pick
from disan.evaluate import Encoded
from disan.train import TrainConfig, measure_kernel, state_path, train
from tests.conftest import make_tiny
from tests.fixture_data import fixture_data_dir

SENTENCES = [["the", "movie", "is", "good", "."], ["bad", "."], ["the", "film", "is", "not", "good", "at", "all"]]



def config(tmp_path, glove_txt, name: str, **kw) -> TrainConfig:
    base = dict(model="disan", task="sst5", out=str(tmp_path / name / "m"), data_dir=str(fixture_data_dir()),
                glove=glove_txt, d_h=10, batch_size=4, optimizer="adadelta", lr=0.5, dropout=0.3, epochs=2,
                save_every=1, threads=1, device="cpu")  # the CPU's timings and bits, also where a GPU is
    return TrainConfig(**{**base, **kw})


def current_impl(model) -> str:
    impls = {m.token2token_impl for m in kernel_choice.blocks_of(model)}
    assert len(impls) == 1, impls
    return impls.pop()


def stub_timer(monkeypatch, seconds: dict, run_step: bool = False):
    """Time each candidate as ``seconds`` says (by candidate name); ``run_step`` still runs the real step."""
    by_impl = {CANDIDATES[name]: s for name, s in seconds.items()}
    real = kernel_choice._timed_step

    def fake(model, step, device):
        if run_step:
            real(model, step, device)
        spent = by_impl[current_impl(model)]
        if isinstance(spent, BaseException):
            raise spent
        return spent

    monkeypatch.setattr(kernel_choice, "_timed_step", fake)


def tiny_step(model):
    targets = torch.tensor([0, 1, 1])
    return lambda: F.cross_entropy(model(SENTENCES)[0], targets)


@pytest.mark.parametrize("fastest", list(CANDIDATES))
def test_the_candidate_the_timer_makes_fastest_is_chosen(tiny_glove, monkeypatch, fastest):
    model = make_tiny("disan", tiny_glove)
    stub_timer(monkeypatch, {name: 0.010 if name == fastest else 0.030 for name in CANDIDATES})
    got = measure(model, tiny_step(model))
    assert got.choice == fastest and got.impl == CANDIDATES[fastest] and got.how == "measured"
    assert got.ms_per_step == {name: pytest.approx(10.0 if name == fastest else 30.0) for name in CANDIDATES}
    assert got.line().endswith(f"per step on cpu → {fastest}") and f"{fastest} 10 ms" in got.line()


def test_a_candidate_out_of_memory_is_skipped_and_named(tiny_glove, monkeypatch):
    model = make_tiny("disan", tiny_glove)
    stub_timer(monkeypatch, {"fused": 0.030, "reference": 0.020, "naive": torch.OutOfMemoryError("CUDA out of memory")})
    got = measure(model, tiny_step(model))
    assert got.choice == "reference" and got.ms_per_step["naive"] is None
    assert "naive out of memory" in got.line()


def test_pick_prefers_the_leaner_kernel_within_the_margin_and_is_a_function_of_the_timings():
    assert pick({"fused": 10.0, "reference": 9.7, "naive": 9.6}) == "fused"  # within 5%: no switch
    assert pick({"fused": 10.0, "reference": 9.0, "naive": 8.9}) == "reference"
    assert pick({"fused": 10.0, "reference": 9.0, "naive": 5.0}) == "naive"
    assert pick({"fused": 204.0, "naive": 174.0}) == "naive"  # the H100's SNLI epoch (docs/benchmarks-gpu.md)
    assert pick({"fused": 2121.0, "naive": 3972.0}) == "fused"  # the 2-core CPU's
    assert pick({"fused": None, "reference": 12.0, "naive": 11.9}) == "reference"
    with pytest.raises(DisanError, match="--batch-size"):
        pick({"fused": None, "naive": None})


def test_measuring_leaves_weights_gradients_modes_implementations_and_rng_as_they_were(tiny_glove):
    model = make_tiny("disan", tiny_glove)  # in eval mode
    model.encoder.train()  # a mixed state, as a caller might leave it
    tiny_step(model)().backward()  # gradients to keep
    blocks = kernel_choice.blocks_of(model)
    blocks[0].token2token_impl = "naive"  # one block set by hand, the others on the class default
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    modes = {n: m.training for n, m in model.named_modules()}
    rng = torch.get_rng_state()
    expected_next = torch.rand(5)  # what the next draw must be after measuring
    torch.set_rng_state(rng)

    got = measure(model, tiny_step(model))  # the real timer: dropout draws random numbers in every step

    assert got.rounds >= 1 and set(got.ms_per_step) == set(CANDIDATES)
    assert all(ms > 0 for ms in got.ms_per_step.values())
    assert torch.equal(torch.rand(5), expected_next)
    assert all(torch.equal(v, weights[k]) for k, v in model.state_dict().items())
    assert {n: p.grad for n, p in model.named_parameters() if p.grad is not None}.keys() == grads.keys()
    assert all(torch.equal(p.grad, grads[n]) for n, p in model.named_parameters() if p.grad is not None)
    assert {n: m.training for n, m in model.named_modules()} == modes
    assert blocks[0].__dict__["token2token_impl"] == "naive"
    assert all("token2token_impl" not in b.__dict__ and b.token2token_impl == "auto" for b in blocks[1:])


def test_fused_is_not_a_candidate_where_the_kernel_does_not_apply(tiny_glove, monkeypatch):
    model = make_tiny("disan", tiny_glove)
    for block in kernel_choice.blocks_of(model):
        block.c = 100.0  # above MAX_C: DiSABlock's auto takes the reference
    assert kernel_choice.candidates_for(model) == ["reference", "naive"]
    with pytest.raises(ValueError, match="no DiSA block"):
        kernel_choice.candidates_for(make_tiny("dsa", tiny_glove))


def test_train_times_the_batch_at_the_middle_of_the_attention_work_not_the_median_one(tiny_glove, monkeypatch):
    model = make_tiny("disan", tiny_glove)
    short, long = ("good",), ("the", "movie", "is", "not", "bad", ".")
    data = Encoded((short,) * 12 + (long,) * 4, None, np.zeros(16, dtype=np.int64))  # batches of 4: T = 1, 1, 1, 6
    stub_timer(monkeypatch, {"fused": 0.030, "reference": 0.020, "naive": 0.010})
    got = measure_kernel(TrainConfig(batch_size=4), model, data, data.lengths())
    assert got.batch == {"sentences": 4, "longest": 6}  # B·T² work: 4 + 4 + 4 + 144


def digest(summary: dict) -> str:
    return summary["rank_weight_sha256"][0]


def test_training_after_the_measurement_is_bit_identical_to_the_chosen_kernel_set_by_hand(tmp_path, glove_txt,
                                                                                        monkeypatch, capsys):
    stub_timer(monkeypatch, {"fused": 0.030, "reference": 0.020, "naive": 0.010}, run_step=True)  # steps draw dropout
    measured = train(config(tmp_path, glove_txt, "measured"))
    assert "per step on cpu → naive" in capsys.readouterr().out
    record = measured["token2token"]
    assert (record["choice"], record["impl"], record["how"]) == ("naive", "naive", "measured")
    assert record["ms_per_step"] == {"fused": pytest.approx(30.0), "reference": pytest.approx(20.0),
                                     "naive": pytest.approx(10.0)}
    assert record["batch"]["sentences"] <= 4 and record["rounds"] >= 1
    on_disk = json.loads(Path(config(tmp_path, glove_txt, "measured").out).with_suffix(".train.json").read_text())
    assert on_disk["token2token"] == record

    by_hand = train(config(tmp_path, glove_txt, "naive", t2t_impl="naive"))
    assert by_hand["token2token"]["how"] == "forced"
    assert "token2token: naive (--t2t-impl naive; not measured)" in capsys.readouterr().out
    assert digest(measured) == digest(by_hand)
    fused = train(config(tmp_path, glove_txt, "fused", t2t_impl="fused"))
    assert digest(fused) != digest(measured)  # the kernel matters to the bits, so the equality above could fail


def test_a_resumed_run_keeps_the_kernel_its_state_records(tmp_path, glove_txt, monkeypatch, capsys):
    stub_timer(monkeypatch, {"fused": 0.030, "reference": 0.020, "naive": 0.010})
    interrupted = config(tmp_path, glove_txt, "b", time_budget_min=0.0)
    assert train(interrupted)["history"][-1]["step"] == 1  # stopped after one step, state saved
    stub_timer(monkeypatch, {"fused": 0.010, "reference": 0.020, "naive": 0.030})  # another device's timings
    resumed = train(TrainConfig(**{**interrupted.__dict__, "time_budget_min": None}))
    assert "token2token: naive, kept from the resumed run's state (fused 30 ms" in capsys.readouterr().out
    assert (resumed["token2token"]["choice"], resumed["token2token"]["how"]) == ("naive", "resumed")
    assert resumed["token2token"]["ms_per_step"]["naive"] == pytest.approx(10.0)
    straight = train(config(tmp_path, glove_txt, "a", t2t_impl="naive"))
    assert digest(resumed) == digest(straight)


def test_a_state_saved_before_kernels_were_recorded_resumes_with_the_fused_kernel(tmp_path, glove_txt, monkeypatch,
                                                                                 capsys):
    stub_timer(monkeypatch, {"fused": 0.030, "reference": 0.020, "naive": 0.010})
    interrupted = config(tmp_path, glove_txt, "old", time_budget_min=0.0)
    train(interrupted)
    state = torch.load(state_path(interrupted), weights_only=True)
    del state["token2token"]
    torch.save(state, state_path(interrupted))
    resumed = train(TrainConfig(**{**interrupted.__dict__, "time_budget_min": None}))
    assert (resumed["token2token"]["choice"], resumed["token2token"]["how"]) == ("fused", "resumed")
    assert "token2token: fused, kept from the resumed run's state (saved before kernels were" in capsys.readouterr().out


@pytest.mark.slow
def test_ddp_ranks_wait_for_rank_0s_measurement_and_train_with_it(tmp_path, glove_txt):
    cfg = config(tmp_path, glove_txt, "ddp")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           "-m", "disan", "train", "--model", "disan", "--task", "sst5", "--out", cfg.out, "--data-dir", cfg.data_dir,
           "--glove", glove_txt, "--d-h", "10", "--batch-size", "2", "--epochs", "1", "--threads", "1",
           "--device", "cpu"]  # two CPU processes: on a one-GPU machine rank 1's cuda:1 does not exist
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"},
                          cwd=Path(__file__).parents[1])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("token2token: ") == 1  # rank 0 measures and prints; rank 1 takes its choice
    summary = json.loads(Path(cfg.out).with_suffix(".train.json").read_text())
    assert summary["token2token"]["how"] == "measured" and summary["token2token"]["choice"] in CANDIDATES
    assert len(set(summary["rank_weight_sha256"])) == 1


def test_dsa_has_nothing_to_measure_and_bad_values_are_one_line(tmp_path, glove_txt, monkeypatch):
    stub_timer(monkeypatch, {})  # any measurement would fail on a missing key
    summary = train(config(tmp_path, glove_txt, "dsa", model="dsa", optimizer="adam", lr=1e-2, epochs=1))
    assert "token2token" not in summary
    with pytest.raises(ConfigError, match="t2t_impl='fast' is not allowed; use one of measure, fused, reference"):
        train(config(tmp_path, glove_txt, "x", t2t_impl="fast"))
    with pytest.raises(ConfigError, match="applies to DiSAN only"):
        train(config(tmp_path, glove_txt, "y", model="dsa", t2t_impl="naive"))
