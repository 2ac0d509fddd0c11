"""Training on the device ``TrainConfig.device`` names (issue 28: "when a GPU is lent, train there"), and a run
summary and card that state what the run used, not what the machine has."""

import json
import platform
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from disan.__main__ import main
from disan.cards import render
from disan.config import ConfigError
from disan.train import TrainConfig, hardware_text, resolve_device, train
from tests.fixture_data import fixture_data_dir

FAKE_GPU = "Fake GPU 80GB"



def config(tmp_path, glove_txt, name: str, **kw) -> TrainConfig:
    base = dict(model="dsa", task="sst5", out=str(tmp_path / name / "m"), data_dir=str(fixture_data_dir()),
                glove=glove_txt, d_h=10, batch_size=4, optimizer="adam", lr=1e-2, dropout=0.1, epochs=2,
                save_every=1, threads=1)
    return TrainConfig(**{**base, **kw})


def cuda_seen(monkeypatch, available: bool, count: int = 1) -> None:
    """What torch reports about CUDA; the device's name answers either way, as on a machine with a GPU."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count if available else 0)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: FAKE_GPU)


def test_auto_is_the_cpu_without_cuda_and_the_gpu_with_it(monkeypatch):
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    cuda_seen(monkeypatch, False)
    assert resolve_device("auto") == torch.device("cpu")
    cuda_seen(monkeypatch, True)
    assert resolve_device("auto") == torch.device("cuda", 0)
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("cuda:0") == torch.device("cuda", 0)


def test_under_torchrun_each_process_takes_its_local_rank_gpu(monkeypatch):
    cuda_seen(monkeypatch, True, count=2)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert resolve_device("auto") == resolve_device("cuda") == torch.device("cuda", 1)
    with pytest.raises(ConfigError, match=r"device='cuda:0' names one GPU for all 2 torchrun processes; use --device cuda"):
        resolve_device("cuda:0")
    monkeypatch.setenv("LOCAL_RANK", "2")
    with pytest.raises(ConfigError, match=r"LOCAL_RANK 2 asks for cuda:2 but torch sees 2 CUDA device"):
        resolve_device("cuda")


@pytest.mark.parametrize("value, says", [
    ("cuda", "device='cuda' but torch sees no CUDA device here; use --device cpu or --device auto."),
    ("cuda:1", "device='cuda:1' but torch sees no CUDA device here; use --device cpu or --device auto."),
    ("gpu", "device='gpu' is not understood; use auto, cpu, cuda or cuda:N (e.g. cuda:0)."),
    ("cpu:1", "device='cpu:1' is not understood; use auto, cpu, cuda or cuda:N (e.g. cuda:0)."),
])
def test_a_device_torch_cannot_train_on_is_one_line_before_any_data_is_read(monkeypatch, capsys, tmp_path, value,
                                                                            says):
    cuda_seen(monkeypatch, False)
    missing = tmp_path / "no-data-here"  # reading it would fail with another message
    code = main(["train", "--model", "dsa", "--task", "sst5", "--device", value, "--out", str(tmp_path / "m"),
                 "--data-dir", str(missing)])
    err = capsys.readouterr().err
    assert code == 2 and err == f"error: {says}\n"
    assert not any(tmp_path.iterdir())


def test_training_with_device_cpu_is_bit_identical_to_the_default_without_cuda(monkeypatch, tmp_path, glove_txt):
    cuda_seen(monkeypatch, False)
    default = train(config(tmp_path, glove_txt, "default"))
    on_cpu = train(config(tmp_path, glove_txt, "cpu", device="cpu"))
    assert default["train_config"]["device"] == "auto" and default["device"] == on_cpu["device"] == "cpu"
    assert default["rank_weight_sha256"] == on_cpu["rank_weight_sha256"]
    a = load_file(str(Path(config(tmp_path, glove_txt, "default").out).with_suffix(".safetensors")))
    b = load_file(str(Path(config(tmp_path, glove_txt, "cpu").out).with_suffix(".safetensors")))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    other = train(config(tmp_path, glove_txt, "seed1", device="cpu", seed=1))
    assert other["rank_weight_sha256"] != on_cpu["rank_weight_sha256"]  # the digest sees the weights


@pytest.mark.parametrize("available", [False, True])
def test_the_summary_names_the_cpu_it_trained_on_even_where_a_gpu_answers(monkeypatch, tmp_path, glove_txt,
                                                                          available):
    """Before, ``hardware`` named torch.cuda.get_device_name() whenever CUDA was available, though training ran on
    the CPU."""
    cuda_seen(monkeypatch, available)
    cfg = config(tmp_path, glove_txt, "run", epochs=1, device="cpu" if available else "auto")
    summary = train(cfg)
    expected = f"{platform.machine()} CPU, 1 threads × 1 process(es)"
    assert (summary["device"], summary["hardware"]) == ("cpu", expected)
    on_disk = json.loads(Path(cfg.out).with_suffix(".train.json").read_text())
    assert (on_disk["device"], on_disk["hardware"]) == ("cpu", expected)
    assert FAKE_GPU not in json.dumps(on_disk)


def test_on_a_gpu_the_hardware_is_its_name_and_the_number_of_processes(monkeypatch):
    cuda_seen(monkeypatch, True)
    assert hardware_text(torch.device("cuda", 0), 2) == f"{FAKE_GPU} × 2 process(es)"
    assert hardware_text(torch.device("cpu"), 1) == f"{platform.machine()} CPU, {torch.get_num_threads()} threads × 1 process(es)"


def card_with(record: dict | None) -> dict:
    train_summary = {"train_config": {"task": "sst5", "batch_size": 64}, "model_config": {"arch": "disan"},
                     "wall_time_s": 12.5, "hardware": "x86_64 CPU, 1 threads × 1 process(es)", "torch": "2.x"}
    if record is not None:
        train_summary["token2token"] = record
    return {"name": "disan-x", "train": train_summary}


def test_the_card_states_the_kernel_the_run_trained_with_beside_the_hardware():
    measured = {"choice": "fused", "impl": "auto", "how": "measured", "device": "cpu",
                "ms_per_step": {"fused": 352.4, "reference": 1324.2, "naive": 2147.0},
                "batch": {"sentences": 64, "longest": 27}, "rounds": 5}
    before = render(card_with(None)).splitlines()
    after = render(card_with(measured)).splitlines()
    hw = next(i for i, line in enumerate(after) if "wall time 12.5 s on x86_64 CPU" in line)
    assert after[hw + 1] == ("- token2token kernel: `fused`, chosen by `kernel_choice.pick` from the timings taken "
                             "before the first step: fused 352 ms, reference 1,324 ms, naive 2,147 ms per training "
                             "step on cpu (a batch of 64 sentences, longest 27 tokens; best of 5 rounds)")
    assert after[: hw + 1] + after[hw + 2 :] == before  # an older card, without the record, says nothing new
    assert not any("token2token" in line for line in before)
    forced = {"choice": "naive", "impl": "naive", "how": "forced", "device": "cuda:0", "ms_per_step": {}, "batch": {},
              "rounds": 0}
    assert "- token2token kernel: `naive`, forced by `--t2t-impl naive` (not measured)" in render(card_with(forced))
    old_state = {"choice": "fused", "how": "resumed", "device": "not recorded", "ms_per_step": {}}
    assert "kept from the resumed run's state, saved before kernels were recorded" in render(card_with(old_state))
