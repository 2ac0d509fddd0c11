"""scripts/train_pretrained.sh reproduces the published checkpoints: its flags give each card's training config."""

import argparse
import dataclasses
import json
import re
import shlex
from pathlib import Path

import pytest

from disan.__main__ import add_train
from disan.api import describe
from disan.train import TrainConfig, paper_defaults

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "train_pretrained.sh").read_text()
#: Fields a run may set beyond its recipe: where it writes, its threads, how often it saves its state (a run on a
#: shared machine saves more often, to resume), the pair protocol's step budget, and --unk-zero, which publish
#: applies afterwards to runs trained without it (an identical model).
RUN_FIELDS = {"out", "threads", "save_every", "min_steps", "max_steps", "unk_zero"}


def script_commands() -> dict[str, list[str]]:
    """NAME → the `python -m disan train` arguments the script runs for it, with $SST/$NLI expanded."""
    shared = dict(re.findall(r'^(SST|NLI)="([^"]*)"', SCRIPT, re.M))
    commands = {}
    for name, flags in re.findall(r'^\s+\[([\w+.-]+)\]="([^"]*)"', SCRIPT, re.M):
        for var, value in shared.items():
            flags = flags.replace(f"${var}", value)
        commands[name] = shlex.split(flags)
    return commands


def config_from(argv: list[str]) -> dict:
    sub = argparse.ArgumentParser().add_subparsers(dest="command")
    add_train(sub)
    args = vars(sub.choices["train"].parse_args(argv))
    given = {k: v for k, v in args.items() if v is not None}
    return TrainConfig(**{**paper_defaults(args["model"], args["task"]), "out": "x", **given}).__dict__


def published_cards() -> list[dict]:
    names = [Path(f).stem for f in json.loads((ROOT / "pretrained" / "MANIFEST.json").read_text())]
    cards = [json.loads((ROOT / "pretrained" / f"{name}.json").read_text()) for name in names]
    # cards from runs that trained to a stop rule; issue 28's task models come from scripts/train_tasks.sh
    # (tests/test_train_tasks_cmd.py checks those)
    return [c for c in cards if "stopped_by" in c["train"] and not c["train_command"].startswith("bash scripts/train_tasks.sh")]


def test_every_published_model_and_recipe_arm_has_a_command():
    commands = script_commands()
    expected = {"disan-sst5", "disan-sst5-nodir", "dsa-sst5", "dsa-sst5-nodist", "disan-nli", "dsa-nli", "dsa-nli-nodist"}
    assert expected <= commands.keys()
    for argv in commands.values():
        config_from(argv)  # every line parses as `python -m disan train` arguments


@pytest.mark.parametrize("card", published_cards(), ids=lambda c: c["name"])
def test_script_flags_give_the_cards_training_config(card):
    ours = config_from(script_commands()[card["name"]])
    # a run started before the recipe options existed has no recipe keys: it trained with the defaults
    trained = {**{f.name: f.default for f in dataclasses.fields(TrainConfig)}, **card["train"]["train_config"]}
    differs = {k: (ours[k], trained[k]) for k in ours.keys() - RUN_FIELDS if ours[k] != trained[k]}
    assert not differs, f"{card['name']}: scripts/train_pretrained.sh differs from the run that was published: {differs}"
    # runs trained without --unk-zero get the zero row at publish when the <unk> decision is the authors' way
    decisions = json.loads((ROOT / "docs" / "recipe.json").read_text())
    zero_row = any(r["id"] == "unk" and r["choice"] == "authors" for r in decisions)
    assert describe(card["name"]).unk_zero == zero_row


@pytest.mark.slow
def test_the_pair_protocol_takes_its_partners_from_the_ablation_map():
    import subprocess
    import sys

    from disan.claims_file import ABLATIONS

    function = re.search(r"^partner_of\(\) \{.*?^\}$", SCRIPT, re.S | re.M).group(0)
    names = [*ABLATIONS, *ABLATIONS.values(), "dsa-nli+nobias"]  # every pair member and one model without a partner
    assert set(names) <= script_commands().keys()
    out = subprocess.run(["bash", "-c", f'{function}\nfor n in "$@"; do echo "$n=$(partner_of "$n")"; done', "_", *names],
                         env={"PY": sys.executable, "PATH": "/usr/bin:/bin"}, cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    got = dict(line.split("=") for line in out.splitlines())
    expected = {**ABLATIONS, **{b: a for a, b in ABLATIONS.items()}}
    assert got == {n: expected.get(n, "") for n in names}


def test_disan_nli_nodir_is_disan_nlis_recipe_with_the_directions_removed():
    """Shen Table 1's "DiSAN without directions": the published disan-nli's flags, seed and data, plus --ablation nodir."""
    card = json.loads((ROOT / "pretrained" / "disan-nli.json").read_text())
    trained = {**{f.name: f.default for f in dataclasses.fields(TrainConfig)}, **card["train"]["train_config"]}
    ours = config_from(script_commands()["disan-nli-nodir"])
    differs = {k: (ours[k], trained[k]) for k in ours.keys() - RUN_FIELDS if ours[k] != trained[k]}
    assert differs == {"ablation": ("nodir", None)}
