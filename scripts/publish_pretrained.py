"""Copy trained runs into pretrained/, score them on test once, and write their model cards.

Usage: python scripts/publish_pretrained.py [--runs DIR] NAME[=RUN[,RUN ...]] [NAME[=RUN] ...]
Reads DIR/<RUN>.safetensors and DIR/<RUN>.train.json (RUN defaults to NAME; a recipe arm such as
disan-nli+authors-dropout is published as disan-nli with NAME=RUN) (written by `python -m disan train`; DIR
defaults to runs/), refuses a run that has not finished (no stopped_by, or the wall-clock safety stop),
writes pretrained/<NAME>.safetensors (+ MANIFEST.json hash), pretrained/<NAME>.json and <NAME>.card.md.
The test split is scored here, once, after model selection on dev.

Several runs of one model (the seeds or the ten folds of scripts/train_tasks.sh), comma-separated; in bash,
every model of scripts/train_tasks.sh at once:
    python scripts/publish_pretrained.py --runs ~/disan-runs --machine "..." \
        disan-sick=$(echo sick-seed{0..4}/disan-sick | tr ' ' ,) \
        disan-subj=$(echo subj-fold{0..9}/disan-subj | tr ' ' ,) \
        disan-mpqa=$(echo mpqa-fold{0..9}/disan-mpqa | tr ' ' ,) \
        disan-cr=$(echo cr-fold{0..9}/disan-cr | tr ' ' ,)
scores each run once on its own test part (a fold run: its test fold), ships the run with the best dev value
(accuracy; Pearson's r for sick) and lists every run's test scores with their mean, sd and 95% interval in the
card's ``test_runs`` (disan.seed_runs), with each run's wall time and hardware. A shipped fold model's card
names the examples it never saw (``never_seen``, disan.fold_runs). A missing file or field is one line naming
the run and what is missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone
sys.path.insert(0, str(ROOT / "scripts"))  # its sibling scripts (task_texts, recipe_decisions)

from disan import checkpoint  # noqa: E402
from disan.api import PRETRAINED_DIR, load  # noqa: E402
from disan.cards import PAPER_REFERENCE, TARGETS, stopping_text, write_card  # noqa: E402
from disan.data import load_task  # noqa: E402
from disan.data.labels import RELATEDNESS_TASKS  # noqa: E402
from disan.errors import run_script  # noqa: E402
from disan.evaluate import evaluate  # noqa: E402
from disan.fold_runs import never_seen, read_record  # noqa: E402
from disan.seed_runs import Run, RunError, check_together, dev_text, pick_on_dev, runs_block  # noqa: E402
from task_texts import ADAM_NOTE, DATA_NOTES, DESCRIPTIONS, WHY  # noqa: E402


def primary(task: str) -> str:
    """The measure a task's floor and the run picker read: accuracy, or Pearson's r for relatedness."""
    return "pearson_r" if task in RELATEDNESS_TASKS else "accuracy"


def floor_text(measure: str, target: float, value: float) -> tuple[str, str]:
    """(the floor, how ``value`` stands against it): points for accuracy, Pearson's r as itself."""
    if measure == "accuracy":
        gap = 100 * (target - value)
        verdict = f"misses it by {gap:.2f} points" if gap > 0 else f"meets it (+{-gap:.2f} points)"
        return f"≥ {100 * target:.0f}%", verdict
    gap = target - value
    return f"Pearson's r ≥ {target:.2f}", (f"misses it by {gap:.4f}" if gap > 0 else f"meets it (+{-gap:.4f})")


def shortfall(name: str, task: str, test: dict, summary: dict, runs: dict | None = None) -> str:
    """``test``: the shipped model's test report; ``runs``: a multi-run card's ``test_runs``, whose mean the floor
    is then checked on (over seeds, or over the ten folds)."""
    measure = primary(task)
    value = runs["mean"] if runs else test[measure]
    target = TARGETS.get(name)
    lines = []
    if target is not None:
        floor, verdict = floor_text(measure, target, value)
        many = f"{len(runs['runs'])} {'runs' if runs['unit'] == 'seed' else 'folds'}" if runs else ""
        who = f"the mean of the {many}" if runs else "this model"
        lines.append(f"Target on test: {floor}; {who} {verdict}.")
    why = WHY[task] + (ADAM_NOTE if name.startswith("disan") else "")
    if target is not None and value < target:
        lines.append(f"Training converged on dev ({stopping_text(summary)}; the learning curve below shows it).")
    lines.append(f"Paper: {PAPER_REFERENCE.get(name, 'not in the paper')}. Why we differ: {why}")
    return " ".join(lines)


def recipe_lines(name: str) -> list[str]:
    """The card's recipe choices, from docs/recipe.json (written by scripts/recipe_decisions.py --write)."""
    path = ROOT / "docs" / "recipe.json"
    if not path.exists():
        return []
    from recipe_decisions import card_lines  # noqa: PLC0415  (a sibling script)

    return card_lines(json.loads(path.read_text()), name)


def unk_zero_chosen() -> bool:
    path = ROOT / "docs" / "recipe.json"
    rows = json.loads(path.read_text()) if path.exists() else []
    return any(r["id"] == "unk" and r.get("choice") == "authors" for r in rows)


def copy_checkpoint(source: Path, target: Path) -> None:
    """Copy a run's checkpoint; with the authors' zero ``<unk>`` row chosen, apply it to a run trained without it.

    ``<unk>`` never occurs in training, so zeroing the row afterwards gives exactly the model a run with
    --unk-zero would have trained (tests/test_recipe_decisions.py checks it).
    """
    if not unk_zero_chosen():
        shutil.copyfile(source, target)
        return
    import dataclasses

    model = load(str(source), device="cpu")
    if not model.cfg.unk_zero:
        model.cfg = dataclasses.replace(model.cfg, unk_zero=True)
        model.zero_unk_row()
    checkpoint.save(model, target, manifest=False)


def finished_summary(run: Path, label: str) -> dict:
    path = run.with_suffix(".train.json")
    if not path.is_file():
        raise RunError(f"run {label}: {path} is missing; the run has not finished (or --runs names the wrong "
                       "folder): resume it, or give --runs DIR.")
    summary = json.loads(path.read_text())
    if summary.get("stopped_by") not in ("patience", "max_steps"):
        raise RunError(f"run {label}: it ended by {summary.get('stopped_by')!r}, not by early stopping or its step "
                       "budget; resume it (rerun its training line) before publishing.")
    return summary


def test_examples(run: Run) -> list:
    """The run's test part, on the data it trained on: the official test set, or its own fold's test part."""
    fold = {} if run.fold is None else {"fold": run.fold}
    return load_task(run.task, "test", run.summary["train_config"].get("data_dir"), **fold)


def publish(name: str, runs: Path, run_name: str | None = None) -> dict:
    label = run_name or name
    run = runs / label
    pending = Run(label, finished_summary(run, label), {})
    pending.dev  # noqa: B018  (refuses a summary without its dev value before anything is copied)
    summary, task = pending.summary, pending.task
    unseen = None if pending.fold is None else never_seen(
        label, run, load_task(task, "all", summary["train_config"].get("data_dir")))
    PRETRAINED_DIR.mkdir(exist_ok=True)
    target = PRETRAINED_DIR / f"{name}.safetensors"
    copy_checkpoint(run.with_suffix(".safetensors"), target)
    checkpoint.update_manifest(target)
    model = load(str(target), device="cpu")
    report = evaluate(model, test_examples(pending))
    fold = {} if pending.fold is None else {"fold": pending.fold}
    card = {
        "name": name,
        "description": DESCRIPTIONS[task],
        "data_note": DATA_NOTES[task],
        "train": summary,
        "train_command": f"bash scripts/train_pretrained.sh {name}   # = {summary['command']}",
        "evaluation": {"test": {"model": name, "task": task, "split": "test", **fold, **report}},
        "shortfall": shortfall(name, task, report, summary),
        "recipe": recipe_lines(name),
    }
    if unseen is not None:
        card["never_seen"] = unseen
    write_card(card, PRETRAINED_DIR)
    measure = primary(task)
    print(f"{name}: dev {dev_text(pending, pending.dev)}  test {measure} {report[measure]:.4f}")
    return card


def check_all_folds(name: str, runs: list[Run], ks: set) -> None:
    """A cross-validated model is published with every fold of its split: its card's mean is the k-fold mean the
    paper reports (Shen Table 5), so a set with folds missing is refused, not summarised over fewer folds."""
    if len(ks) != 1 or not isinstance(next(iter(ks)), int):
        raise RunError(f"{name}: the fold records give k = {sorted(map(str, ks))}; the folds of one model come from "
                       "one k-fold split: rerun the odd ones with scripts/train_tasks.sh.")
    k = next(iter(ks))
    missing = sorted(set(range(k)) - {r.fold for r in runs})
    if missing:
        raise RunError(f"{name}: fold{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of the "
                       f"{k}-fold cross-validation {'are' if len(missing) > 1 else 'is'} not among the runs given; "
                       f"the card reports the mean over all {k} folds: publish when every fold has finished, "
                       f"naming all {k} runs.")


def publish_runs(name: str, runs: Path, run_names: list[str], machine: str | None) -> dict:
    """Several seeds (or the ten folds) of one model: score each run once on its test part, ship the dev pick."""
    pending, unfinished = [], []
    for r in run_names:
        try:
            pending.append(Run(r, finished_summary(runs / r, r), {}))
        except RunError as err:
            unfinished.append((r, err))
    if len(unfinished) > 1:  # every run still training named at once (folds train in turn: several can be left)
        raise RunError(f"{name}: {len(unfinished)} of the {len(run_names)} runs have not finished "
                       f"({', '.join(r for r, _ in unfinished)}); the first: {unfinished[0][1]}")
    if unfinished:
        raise unfinished[0][1]
    check_together(pending)
    ks = set()
    for r in pending:  # every run's dev value, and a fold run's record, are checked before any run is scored
        r.dev  # noqa: B018
        if r.fold is not None:
            ks.add(read_record(r.run, runs / r.run).get("k"))
    if ks:
        check_all_folds(name, pending, ks)
    scored = []
    for r in pending:
        model = load(str((runs / r.run).with_suffix(".safetensors")), device="cpu")
        scored.append(Run(r.run, r.summary, evaluate(model, test_examples(r))))
        tests = "  ".join(f"{m} {scored[-1].score(m):.4f}" for m in r.measures)
        print(f"{r.run}: dev {dev_text(r, r.dev)}  test {tests}")
    block = runs_block(scored)
    task = scored[0].task
    block["paper"] = {"value": PAPER_REFERENCE.get(name, "not in the paper"), "note": WHY[task]}
    if machine:
        block["machine"] = machine
    shipped = scored[pick_on_dev(scored)]
    card = publish(name, runs, shipped.run)
    measure = primary(task)
    if abs(card["evaluation"]["test"][measure] - shipped.score(measure)) > 1e-9:
        raise RunError(f"{name}: the shipped copy scores differently from run {shipped.run}; not published.")
    card["test_runs"] = block
    card["train_command"] = (f"bash scripts/train_tasks.sh {task}   # {shipped.unit} {shipped.number}: "
                             f"{shipped.summary['command']}")
    card["shortfall"] = shortfall(name, task, card["evaluation"]["test"], shipped.summary, block)
    write_card(card, PRETRAINED_DIR)
    sd = "–" if block["sd"] is None else f"{block['sd']:.4f}"
    print(f"{name}: ships {shipped.run}; test {measure} mean {block['mean']:.4f} sd {sd} over {len(scored)} "
          f"{shipped.unit}s")
    return card


def refresh_text(name: str) -> None:
    """Rewrite a published card's generated text (after a later decision), leaving its checkpoint and scores alone."""
    path = PRETRAINED_DIR / f"{name}.json"
    if not path.exists():
        raise RunError(f"{path} does not exist: publish {name} first (python scripts/publish_pretrained.py {name}).")
    card = json.loads(path.read_text())
    card["recipe"] = recipe_lines(name)
    test = card["evaluation"]["test"]
    card["shortfall"] = shortfall(name, test["task"], test, card["train"], card.get("test_runs"))
    write_card(card, PRETRAINED_DIR)
    print(f"{name}: recipe lines ({len(card['recipe'])}) and shortfall rewritten")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs", help="folder of finished runs (default runs/)")
    parser.add_argument("--text-only", action="store_true",
                        help="only rewrite the generated text of published cards (recipe lines from docs/recipe.json, "
                        "shortfall from the stored figures): no checkpoint copied, nothing scored")
    parser.add_argument("--machine", default=None,
                        help="where several runs trained, for their card (CPU model, cores, what else shared them)")
    parser.add_argument("names", nargs="+", metavar="NAME[=RUN[,RUN ...]]")
    args = parser.parse_args(argv)
    if args.text_only:
        for name in args.names:
            refresh_text(name.partition("=")[0])
        return 0
    for arg in args.names:
        name, _, run_name = arg.partition("=")
        if "," in run_name:
            publish_runs(name, args.runs, run_name.split(","), args.machine)
        else:
            publish(name, args.runs, run_name or None)
    return 0


if __name__ == "__main__":
    run_script(main)
