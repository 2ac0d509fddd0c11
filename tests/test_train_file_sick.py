"""Issue 55, item 7: real data the project does not ship as a task, through the public command.

SICK's ``entailment_judgment`` on its official split (SICK_train / SICK_trial / SICK_test_annotated from
../shared/data/sick/) is written as one CSV pair task with a split column, trained small (a DSA with d_h = 50,
two epochs, the 50-d GloVe package) by ``python -m disan train --data``, then explored through ``disan.load`` and
a built site opened in headless Chromium. Marked ``data``: it skips without the files.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import disan
from disan.data import DataFileError, data_dir
from tests.conftest import guarded_page

ROOT = Path(__file__).resolve().parents[1]
FILES = {"train": "SICK_train.txt", "dev": "SICK_trial.txt", "test": "SICK_test_annotated.txt"}
LABELS = ("CONTRADICTION", "ENTAILMENT", "NEUTRAL")


def sick_csv(folder: Path) -> tuple[Path, dict[str, Counter]]:
    try:
        root = data_dir() / "sick"
    except DataFileError as err:
        pytest.skip(str(err))
    if not all((root / f).is_file() for f in FILES.values()):
        pytest.skip(f"SICK's official split files are not in {root}")
    out = folder / "sick_entailment.csv"
    counts: dict[str, Counter] = {}
    with out.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["pair_ID", "sentence_A", "sentence_B", "entailment_judgment", "split"])
        for split, name in FILES.items():
            with (root / name).open(encoding="utf-8", newline="") as src:
                rows = list(csv.DictReader(src, delimiter="\t"))
            counts[split] = Counter(r["entailment_judgment"].strip() for r in rows)
            for r in rows:
                w.writerow([r["pair_ID"], r["sentence_A"], r["sentence_B"], r["entailment_judgment"].strip(), split])
    return out, counts


@pytest.fixture(scope="module")
def sick_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sick")
    data, counts = sick_csv(folder)
    out = folder / "runs" / "dsa-sick-entailment"
    cmd = [sys.executable, "-m", "disan", "train", "--model", "dsa", "--data", str(data), "--text", "sentence_A",
           "--text-pair", "sentence_B", "--label", "entailment_judgment", "--split", "split", "--d-h", "50",
           "--epochs", "2", "--out", str(out)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "TQDM_MININTERVAL": "30"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out.with_suffix(".safetensors"), counts, proc


@pytest.mark.data
@pytest.mark.slow
def test_sick_entailment_trains_through_the_public_command(sick_model):
    path, counts, proc = sick_model
    card = json.loads(path.with_suffix(".json").read_text())
    splits = card["data_file"]["splits"]
    assert {k: v["n"] for k, v in splits.items()} == {"train": 4500, "dev": 500, "test": 4927}
    assert card["data_file"]["class_counts"]["test"] == {k: counts["test"][k] for k in LABELS}
    test = card["evaluation"]["test"]
    majority = max(counts["test"].values()) / sum(counts["test"].values())
    assert test["accuracy"] > majority, (test["accuracy"], majority)  # learnt more than the majority class
    assert test["overlap"]["in_train"] == 49  # the count: SICK test pairs verbatim in train
    assert "appear verbatim after tokenisation" in proc.stderr


@pytest.mark.data
@pytest.mark.slow
def test_sick_entailment_model_loads_and_runs_in_a_built_site(sick_model, chromium, tmp_path):
    from viz_app.draw import site

    path, _, _ = sick_model
    model = disan.load(str(path), "cpu")
    assert model.cfg.labels == LABELS and model.cfg.pair
    trace = model.trace("A man is playing a guitar", "A person is playing an instrument")
    assert set(trace.prediction) == set(LABELS)
    try:
        site.ort_dir()
    except disan.DisanError as err:
        pytest.skip(f"onnxruntime-web is not installed: {err}")
    info = site.build_site(tmp_path / "explorer", [str(path)])
    folder = info.out.as_uri() + "/"
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(folder), 120_000)
    try:
        page.goto((info.out / "index.html").as_uri() + "#m=dsa-sick-entailment&t=A+man+is+playing+a+guitar"
                  "&h=A+person+is+playing+an+instrument")
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)", timeout=120_000)
        assert page.evaluate("document.body.dataset.state") == "ready", page.inner_text("#status")
        assert page.input_value("#model") == "dsa-sick-entailment"
        assert page.locator("#report [data-figure^='heatmap:'] canvas[data-layer='cells']").count() >= 2  # the maps drawn
        assert any(label in page.inner_text("#report") for label in LABELS)
        presets = page.locator("#preset option").all_inner_texts()
        assert sum(p.startswith("dsa-sick-entailment: test") for p in presets) == 3  # one per class
        assert blocked == [] and errors == []
    finally:
        context.close()
