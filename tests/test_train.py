"""Training on fixtures: the loss goes down, resume replays exactly, DDP keeps ranks identical."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from disan.evaluate import metrics, unpack_correct
from disan.train import TrainConfig, epoch_batches, train
from tests.fixture_data import fixture_data_dir




def config(tmp_path, glove_txt, **kw) -> TrainConfig:
    base = dict(
        model="dsa",
        task="sst5",
        out=str(tmp_path / "run" / "m"),
        data_dir=str(fixture_data_dir()),
        glove=glove_txt,
        d_h=10,
        batch_size=4,
        optimizer="adam",
        lr=1e-2,
        dropout=0.1,
        epochs=2,
        save_every=1,
        threads=1,
    )
    return TrainConfig(**{**base, **kw})


def test_loss_goes_down_and_best_checkpoint_is_written(tmp_path, glove_txt):
    cfg = config(tmp_path, glove_txt, epochs=8)
    summary = train(cfg)
    losses = [h["train_loss"] for h in summary["history"]]
    assert losses[-1] < 0.7 * losses[0], losses
    assert Path(cfg.out).with_suffix(".safetensors").exists()
    log = [json.loads(x) for x in Path(cfg.out).with_suffix(".log.jsonl").read_text().splitlines()]
    assert len(log) == 8 and summary["best_dev_acc"] == max(e["dev_acc"] for e in log)


@pytest.mark.parametrize("arch", ["dsa", "disan"])
def test_resume_after_interruption_reproduces_the_uninterrupted_run(tmp_path, glove_txt, arch):
    # one DiSAN kernel for both runs: "measure" times the kernels, and on a busy machine the two runs could pick
    # different ones, whose sums differ in the last bits (the kernel a resumed run keeps: test_kernel_choice.py)
    kernel = "fused" if arch == "disan" else "measure"
    straight = config(tmp_path / "a", glove_txt, model=arch, optimizer="adadelta" if arch == "disan" else "adam",
                      t2t_impl=kernel)
    train(straight)
    interrupted = config(tmp_path / "b", glove_txt, model=arch, time_budget_min=0.0,
                         optimizer="adadelta" if arch == "disan" else "adam", t2t_impl=kernel)
    first = train(interrupted)  # stops after its first step, state saved mid-epoch
    assert first["history"][-1]["step"] == 1
    state = torch.load(Path(interrupted.out).with_suffix(".state.pt"), weights_only=True)
    assert (state["epoch"], state["step"]) == (0, 1)
    resumed = train(TrainConfig(**{**interrupted.__dict__, "time_budget_min": None}))
    assert resumed["rank_weight_sha256"] == train_digest(straight)


def train_digest(cfg):
    return json.loads(Path(cfg.out).with_suffix(".train.json").read_text())["rank_weight_sha256"]


def test_epoch_batches_are_deterministic_and_cover_everything():
    lengths = np.array([5, 1, 3, 8, 2, 2, 7, 4, 6, 1])
    a = epoch_batches(lengths, 3, seed=1, epoch=0)
    b = epoch_batches(lengths, 3, seed=1, epoch=0)
    c = epoch_batches(lengths, 3, seed=1, epoch=1)
    assert [x.tolist() for x in a] == [x.tolist() for x in b]
    assert [x.tolist() for x in a] != [x.tolist() for x in c]
    assert sorted(np.concatenate(a).tolist()) == list(range(10))


def test_metrics_on_known_labels():
    labels = np.array([0, 0, 1, 1, 2, 2])
    preds = np.array([0, 1, 1, 1, 0, 2])
    lengths = np.array([3, 4, 12, 13, 30, 31])
    m = metrics(labels, preds, ("a", "b", "c"), lengths)
    assert m["accuracy"] == pytest.approx(4 / 6)
    assert m["per_class_accuracy"] == {"a": 0.5, "b": 1.0, "c": 0.5}
    assert m["confusion_matrix"]["rows_gold_cols_pred"] == [[1, 1, 0], [0, 2, 0], [1, 0, 1]]
    assert [(b["lengths"], b["n"], b["accuracy"]) for b in m["accuracy_by_length"]] == [
        ("1-5", 2, 0.5), ("11-15", 2, 1.0), ("26-30", 1, 0.0), ("31-40", 1, 1.0)
    ]
    assert unpack_correct(m["correct_bits"], 6).tolist() == [True, False, True, True, False, True]


@pytest.mark.slow
def test_ddp_two_cpu_processes_end_with_identical_weights(tmp_path, glove_txt):
    cfg = config(tmp_path, glove_txt, epochs=1)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
           "-m", "disan", "train", "--model", "dsa", "--task", "sst5", "--out", cfg.out,
           "--data-dir", cfg.data_dir, "--glove", glove_txt, "--d-h", "10", "--batch-size", "2",
           "--optimizer", "adam", "--lr", "0.01", "--epochs", "2", "--threads", "1", "--device", "cpu"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=Path(__file__).parents[1])
    assert proc.returncode == 0, proc.stderr[-2000:]
    digests = train_digest(cfg)
    assert len(digests) == 2 and digests[0] == digests[1]
    weights = load_file(str(Path(cfg.out).with_suffix(".safetensors")))
    assert all(torch.isfinite(v).all() for v in weights.values())


def test_embeddings_are_not_weight_decayed(tmp_path, glove_txt):
    from disan.train import make_optimizer
    from tests.conftest import make_tiny
    from disan.vocab import load_glove

    model = make_tiny("disan", load_glove(glove_txt))
    opt = make_optimizer(config(tmp_path, glove_txt, weight_decay=1e-4), model)
    decayed = {id(p) for g in opt.param_groups if g["weight_decay"] > 0 for p in g["params"]}
    assert id(model.embedding.weight) not in decayed
    assert id(model.encoder.fw.w1.weight) in decayed


def test_max_steps_counts_optimizer_steps_across_epochs_and_a_rerun_adds_none(tmp_path, glove_txt):
    cfg = config(tmp_path, glove_txt, epochs=100, max_steps=7, eval_every=3)
    summary = train(cfg)
    assert summary["total_steps"] == 7 and summary["stopped_by"] == "max_steps"
    assert [h["global_step"] for h in summary["history"]][-3:] == [3, 6, 7]
    again = train(cfg)  # resuming a finished run trains nothing more
    assert again["total_steps"] == 7 and again["history"] == summary["history"]


def test_patience_stops_after_that_many_evaluations_without_a_new_best(tmp_path, glove_txt):
    cfg = config(tmp_path, glove_txt, epochs=100, lr=0.0, eval_every=2, patience=3)  # lr 0: dev never improves
    summary = train(cfg)
    assert summary["stopped_by"] == "patience"
    assert [h["global_step"] for h in summary["history"]] == [2, 4, 6, 8]
    assert summary["total_steps"] == 8 and summary["best_step"] == 2


def test_learning_curve_losses_are_per_interval_means(tmp_path, glove_txt, monkeypatch):
    cfg = config(tmp_path, glove_txt, epochs=100, max_steps=6, eval_every=2)
    seen = []
    real = torch.nn.functional.cross_entropy

    def spy(*a, **k):
        out = real(*a, **k)
        if out.requires_grad:
            seen.append(out.item())
        return out

    monkeypatch.setattr(torch.nn.functional, "cross_entropy", spy)
    summary = train(cfg)
    want = [np.mean(seen[i : i + 2]) for i in (0, 2, 4)]
    assert [h["train_loss"] for h in summary["history"]] == pytest.approx(want)


def test_min_steps_extends_a_patience_stopped_run_to_exactly_that_step(tmp_path, glove_txt):
    """The pair protocol: a run that stopped early is resumed to its partner's step count."""
    cfg = config(tmp_path, glove_txt, epochs=100, lr=0.0, eval_every=2, patience=1)
    assert train(cfg)["total_steps"] == 4
    longer = train(TrainConfig(**{**cfg.__dict__, "min_steps": 9, "max_steps": 9}))
    assert longer["total_steps"] == 9 and longer["stopped_by"] == "max_steps"
    assert [h["global_step"] for h in longer["history"]] == [2, 4, 6, 8, 9]


def test_shuffle_labels_permutes_the_gold_values_and_keeps_each_class_count():
    from disan.data.example import Example
    from disan.train import shuffled_labels

    examples = [Example(text=f"s{i}", label=i % 3) for i in range(60)]
    shuffled = shuffled_labels(examples, 1)
    assert [e.text for e in shuffled] == [e.text for e in examples]
    assert sorted(e.label for e in shuffled) == sorted(e.label for e in examples)
    assert sum(a.label != b.label for a, b in zip(examples, shuffled)) > 20
    assert shuffled == shuffled_labels(examples, 1) and shuffled != shuffled_labels(examples, 2)


def test_a_shuffled_label_run_trains_on_permuted_labels_and_keeps_its_last_weights(tmp_path, glove_txt, monkeypatch):
    import disan.train as training

    seen = []
    real = training.encode_examples

    def spy(examples, max_len):
        seen.append([e.label for e in examples])
        return real(examples, max_len)

    monkeypatch.setattr(training, "encode_examples", spy)
    plain = train(config(tmp_path / "a", glove_txt, epochs=100, max_steps=6, eval_every=2))
    cfg = config(tmp_path / "b", glove_txt, epochs=100, min_steps=6, max_steps=6, eval_every=2, shuffle_labels=3)
    shuffled = train(cfg)
    assert sorted(seen[0]) == sorted(seen[2]) and seen[0] != seen[2]  # train labels: the same counts, moved
    assert seen[1] == seen[3]  # dev keeps its true labels
    assert shuffled["checkpoint_step"] == 6 and "shuffled_train_acc" in shuffled and "checkpoint_step" not in plain
    final = torch.load(Path(cfg.out).with_suffix(".state.pt"), weights_only=True)["model"]
    kept = load_file(str(Path(cfg.out).with_suffix(".safetensors")))
    names = [k for k in kept if k in final]
    assert names and all(torch.equal(kept[k], final[k].half()) for k in names)  # the last weights (stored in fp16)
