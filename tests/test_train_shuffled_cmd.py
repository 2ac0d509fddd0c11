"""scripts/train_shuffled.sh: the data randomisation test's runs are their trained partners' recipes plus shuffled
labels (issue 57 item 1)."""

import dataclasses
import json
import re
import shlex
from pathlib import Path

from disan.train import TrainConfig
from tests.test_train_pretrained_cmd import config_from

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "train_shuffled.sh").read_text()


def commands() -> dict[str, dict]:
    trec = re.search(r'^TREC="([^"]*)"', SCRIPT, re.M).group(1)
    return {name: config_from(shlex.split(flags.replace("$TREC", trec)))
            for name, flags in re.findall(r'^\s+\[([\w-]+)\]="([^"]*)"', SCRIPT, re.M)}


def test_disan_trec_shuffled_is_the_shipped_disan_trec_with_permuted_labels_for_its_steps():
    card = json.loads((ROOT / "pretrained" / "disan-trec.json").read_text())
    trained = {**{f.name: f.default for f in dataclasses.fields(TrainConfig)}, **card["train"]["train_config"]}
    ours = commands()["disan-trec-shuffled"]
    differs = {k: (ours[k], trained[k]) for k in ours.keys() - {"out", "threads"} if ours[k] != trained[k]}
    best = card["train"]["best_step"]  # the shipped weights' step
    assert differs == {"shuffle_labels": (1, None), "min_steps": (best, 0), "max_steps": (best, None)}


def test_the_dsa_pair_differs_only_in_the_labels_and_the_step_rule():
    runs = commands()
    trained, shuffled = runs["dsa-trec"], runs["dsa-trec-shuffled"]
    differs = {k for k in trained if trained[k] != shuffled[k]} - {"out"}
    assert differs == {"shuffle_labels", "min_steps"} and shuffled["max_steps"] == trained["max_steps"] == 616
    assert shuffled["min_steps"] == 616 and trained["model"] == "dsa" and trained["task"] == "trec"
