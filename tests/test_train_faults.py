"""Training faults (issue #6, item 6): a real SIGKILL mid-epoch, and corrupt data lines.

* ``python -m disan train ... --save-every N`` on the fixture SST task is killed with
  SIGKILL right after a mid-epoch state save. The state file (read with
  ``torch.load(weights_only=True)``) is at most N steps behind the last step the
  process finished, the same command then resumes and completes, and its final
  weights are bit-identical to an uninterrupted run's: nothing was lost but the
  at most N steps it recomputed.
* A corrupt line in a data file: ``--on-error raise`` exits 2 with one line naming
  the file and line number; ``--on-error skip`` warns with the same and completes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
import torch

from disan.data import CorruptLineWarning, load_task
from tests.fixture_data import fixture_data_dir

ROOT = Path(__file__).resolve().parents[1]
SAVE_EVERY = 3
EPOCHS = 20
#: tqdm prints after every step (env overrides of its defaults), so the last "k/n" on stderr is the
#: number of steps of that epoch the process had finished when it was killed.
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"}
_PROGRESS = re.compile(r"epoch (\d+)/\d+:\s+\d+%\|[^|]*\|\s*(\d+)/(\d+)")



def train_cmd(out: Path, glove: str, data_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "disan", "train", "--model", "dsa", "--task", "sst5", "--out", str(out),
        "--data-dir", str(data_dir), "--glove", glove, "--d-h", "10", "--batch-size", "4", "--threads", "1",
        "--optimizer", "adam", "--lr", "0.01", *extra,
    ]


def read_state(out: Path) -> dict | None:
    path = out.with_suffix(".state.pt")
    if not path.exists():
        return None
    try:
        return torch.load(path, weights_only=True)
    except (RuntimeError, EOFError, OSError):  # pragma: no cover - replaced between exists() and open()
        return None


def last_progress(stderr_text: str) -> tuple[int, int, int]:
    """(epoch index from 0, steps done in it, steps per epoch) of the last tqdm update."""
    matches = _PROGRESS.findall(stderr_text)
    assert matches, stderr_text[-2000:]
    epoch, done, total = map(int, matches[-1])
    return epoch - 1, done, total


@pytest.mark.slow
def test_sigkill_mid_epoch_resumes_and_loses_at_most_the_save_interval(tmp_path, glove_txt):
    data = fixture_data_dir()
    args = ("--epochs", str(EPOCHS), "--save-every", str(SAVE_EVERY))
    killed_out = tmp_path / "killed" / "m"
    log_path = tmp_path / "killed.stderr"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(train_cmd(killed_out, glove_txt, data, *args), cwd=ROOT, env=ENV,
                                stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + 240
            seen = None
            while time.monotonic() < deadline and proc.poll() is None:
                state = read_state(killed_out)
                # The first mid-epoch save of an epoch: the kill then lands several steps before the epoch
                # ends (a later save, one step before the end, let the epoch finish first on a fast machine).
                if state is not None and state["epoch"] >= 1 and state["step"] == SAVE_EVERY:
                    seen = (state["epoch"], state["step"])
                    break
                time.sleep(0.02)
            assert proc.poll() is None, "training ended before it could be killed; raise EPOCHS"
            assert seen is not None, "no mid-epoch state file within the time limit"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == -signal.SIGKILL
    epoch, done, per_epoch = last_progress(log_path.read_text(errors="replace"))
    state = torch.load(killed_out.with_suffix(".state.pt"), weights_only=True)
    finished = epoch * per_epoch + done  # steps the killed process had completed
    saved = state["epoch"] * per_epoch + state["step"]  # where the resumed run starts
    lost = finished - saved
    assert 0 <= lost <= SAVE_EVERY, (finished, saved)
    assert (state["epoch"], state["step"]) >= seen
    assert 0 < done < per_epoch or 0 < state["step"], "the kill did not land mid-epoch"

    resumed = subprocess.run(train_cmd(killed_out, glove_txt, data, *args), cwd=ROOT, env=ENV,
                             capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "Traceback" not in resumed.stderr
    summary = json.loads(killed_out.with_suffix(".train.json").read_text())
    assert summary["epochs_run"] == EPOCHS
    final = torch.load(killed_out.with_suffix(".state.pt"), weights_only=True)
    assert (final["epoch"], final["step"]) == (EPOCHS, 0)

    straight_out = tmp_path / "straight" / "m"
    straight = subprocess.run(train_cmd(straight_out, glove_txt, data, *args), cwd=ROOT, env=ENV,
                              capture_output=True, text=True, timeout=600)
    assert straight.returncode == 0, straight.stderr[-3000:]
    reference = json.loads(straight_out.with_suffix(".train.json").read_text())
    assert summary["rank_weight_sha256"] == reference["rank_weight_sha256"]  # bit-identical weights
    print(f"\nkilled at epoch {epoch + 1} step {done}/{per_epoch}; state at epoch {state['epoch'] + 1} "
          f"step {state['step']}; {lost} step(s) recomputed (interval {SAVE_EVERY}); resumed run identical")


# ------------------------------------------------------------ corrupt data lines
CORRUPT_LINE = 3


@pytest.fixture
def corrupt_data(tmp_path) -> Path:
    """A copy of the fixture data dir whose SST train trees have one malformed line."""
    dest = tmp_path / "data"
    shutil.copytree(fixture_data_dir(), dest)
    trees = dest / "sst" / "trees" / "train.txt"
    lines = trees.read_text().splitlines()
    lines[CORRUPT_LINE - 1] = "(2 (2 this tree never closes"
    trees.write_text("\n".join(lines) + "\n")
    return dest


def test_corrupt_line_stops_the_run_with_file_and_line(tmp_path, glove_txt, corrupt_data):
    out = tmp_path / "raise" / "m"
    proc = subprocess.run(train_cmd(out, glove_txt, corrupt_data, "--epochs", "1", "--on-error", "raise"),
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-3000:]
    err = proc.stderr.strip()
    assert "Traceback" not in err and err.count("\n") == 0, err
    assert err.startswith("error: ") and f"train.txt, line {CORRUPT_LINE}:" in err
    assert str(corrupt_data / "sst" / "trees" / "train.txt") in err
    assert not out.with_suffix(".state.pt").exists()  # stopped before training started


def test_corrupt_line_is_skipped_with_a_warning_and_the_run_completes(tmp_path, glove_txt, corrupt_data):
    out = tmp_path / "skip" / "m"
    proc = subprocess.run(train_cmd(out, glove_txt, corrupt_data, "--epochs", "1", "--on-error", "skip"),
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "CorruptLineWarning" in line]
    assert len(warned) == 1 and f"train.txt, line {CORRUPT_LINE}:" in warned[0] and "skipped" in warned[0]
    summary = json.loads(out.with_suffix(".train.json").read_text())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLineWarning)
        kept = load_task("sst5", "train", corrupt_data, on_error="skip")
    clean = load_task("sst5", "train", fixture_data_dir())
    assert summary["train_examples"] == len(kept) < len(clean)
    assert Path(out).with_suffix(".safetensors").exists()


def test_truncated_state_file_is_one_clear_line(tmp_path, glove_txt):
    out = tmp_path / "run" / "m"
    out.parent.mkdir(parents=True)
    out.with_suffix(".state.pt").write_bytes(b"PK\x03\x04 truncated zip")
    proc = subprocess.run(train_cmd(out, glove_txt, fixture_data_dir(), "--epochs", "1"),
                          cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "m.state.pt" in proc.stderr.strip().splitlines()[-1]
