"""``disan train --model disan|dsa --data FILE``: a user's labelled file to a checkpoint with a model card.

The file is read and checked first (``disan.data.file_task``), with the GloVe file, so a bad file or column
writes nothing. The run then trains with ``disan.train.train`` (the loop of the built-in tasks) in a staging
folder beside the output, ``.<name>.unfinished/``: the best-on-dev checkpoint, the resumable state and the log
live there while it runs, so an interrupted or failed run leaves no ``<name>.safetensors`` that looks finished.
``--resume`` continues from that folder's state. When training ends the best checkpoint is scored on the test
part, the card (``<name>.json``, ``<name>.card.md``) is written, and the files are moved into place.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from .data.file_task import FileSpec, FileTask, load_file_task
from .errors import InputError, OutputError
from .train_config import TrainConfig

#: The files a finished run leaves beside each other.
FINAL_SUFFIXES = (".safetensors", ".json", ".card.md", ".train.json", ".log.jsonl")


def spec_of(cfg: TrainConfig) -> FileSpec:
    return FileSpec(cfg.data, cfg.text, cfg.text_pair, cfg.label, cfg.regression, cfg.dev, cfg.test, cfg.split,
                    cfg.split_seed)


def final_paths(out: str) -> tuple[str, dict[str, Path], Path]:
    """The model's name, its finished files and its staging folder."""
    base = Path(out).expanduser()
    base = base.with_suffix("") if base.suffix == ".safetensors" else base
    name = base.name
    return name, {s: base.parent / f"{name}{s}" for s in FINAL_SUFFIXES}, base.parent / f".{name}.unfinished"


def prepare_output(out: str, overwrite: bool, resume: bool) -> tuple[str, dict[str, Path], Path]:
    """Refuse an existing model unless ``overwrite``; an interrupted run unless ``resume`` or ``overwrite``."""
    name, files, stage = final_paths(out)
    check_writable(stage.parent)
    existing = [p for p in files.values() if p.exists()]
    if existing and not overwrite:
        raise OutputError(f"{existing[0]} already exists; pass --overwrite to replace it or choose another --out.")
    if resume and overwrite:
        raise InputError("--resume continues an interrupted run and --overwrite starts over; give one of them.")
    if stage.exists() and not (resume or overwrite):
        raise OutputError(f"An interrupted run of {name!r} is in {stage}; pass --resume to continue it or "
                          "--overwrite to start over.")
    if resume and not (stage / f"{name}.state.pt").exists():
        raise InputError(f"Nothing to resume: {stage / (name + '.state.pt')} does not exist (the run saved no state "
                         "before it stopped); pass --overwrite instead of --resume to start over.")
    return name, files, stage


def check_writable(folder: Path) -> None:
    """--out's folder, or the nearest one that exists, is a folder this process may write in (checked before the
    data file is read: a run that cannot save is refused at once).

    Not ``disan.output.check_writable``, which checks one file's path: that one refuses a folder that does not exist
    yet, where a training run makes its folders (``stage.mkdir(parents=True)``).
    """
    nearest = folder
    while not nearest.exists() and nearest != nearest.parent:
        nearest = nearest.parent
    if not nearest.is_dir():
        raise OutputError(f"--out: {nearest} is a file, not a folder; choose another --out.")
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise OutputError(f"--out: cannot write in {nearest}; choose a folder you can write to.")


def check_glove(path: str | None):
    """The run's GloVe table; a missing file or one of mixed vector sizes is one line."""
    from .vocab import load_glove

    try:
        glove = load_glove(path)
    except (FileNotFoundError, ImportError, ValueError) as err:
        raise InputError(str(err).splitlines()[0] + " (--glove)") from None
    if glove.other_sizes:
        line, count = glove.first_other_size
        if line == 1 and count == 1 and glove.other_sizes == 1:  # "400000 300": a word2vec/fastText .vec header
            raise InputError(f"GloVe file {path}, line 1 has 1 number where the file's vectors have {glove.dim}: a "
                             "word2vec header ('count size'), which GloVe files lack; remove it (tail -n +2).")
        raise InputError(f"GloVe file {path} mixes vector sizes: line {line} has {count} number{'s' * (count != 1)} "
                         f"where the file's vectors have {glove.dim} ({glove.other_sizes:,} such "
                         f"line{'s' * (glove.other_sizes != 1)}); pass a file of one size.")
    return glove


def length_report(task: FileTask, max_len: int, max_tokens: int) -> dict:
    """Per part: rows longer than the training cut (``--max-len``) and than the model's limit; the longest."""
    from .vocab import tokenize

    out = {}
    for name, examples in task.parts.items():
        lengths = [max(len(tokenize(e.text)), len(tokenize(e.hypothesis)) if e.hypothesis else 0) for e in examples]
        out[name] = {"n": len(lengths), "longest": max(lengths, default=0),
                     "over_max_len": sum(n > max_len for n in lengths),
                     "over_model_limit": sum(n > max_tokens for n in lengths)}
    return out


def length_lines(report: dict, max_len: int, max_tokens: int) -> list[str]:
    lines = []
    for name, r in report.items():
        if r["over_max_len"] and name in ("train", "dev"):
            lines.append(f"{r['over_max_len']:,} of {r['n']:,} {name} rows are longer than --max-len {max_len} tokens "
                         f"(longest {r['longest']:,}); training reads their first {max_len} tokens (raise --max-len, "
                         f"up to {max_tokens}, to keep them whole).")
        if r["over_model_limit"]:
            lines.append(f"{r['over_model_limit']:,} of {r['n']:,} {name} rows are longer than the model's limit of "
                         f"{max_tokens} tokens (longest {r['longest']:,}); they are scored on their first {max_tokens}.")
    return lines


def test_presets(name: str, task: FileTask) -> list[dict]:
    """The app's and the site's presets for the model: the first test example of each class (grade), verbatim."""
    out = []
    for index, label in enumerate(task.labels):
        example = next((e for e in task.parts["test"] if e.label == index), None)
        if example is not None:
            what = f"score {example.score:g}" if example.score is not None else f"gold {label}"
            out.append({"label": f"{name}: test, {example.source} ({what}) — {example.text[:60]}",
                        "text": example.text, "hypothesis": example.hypothesis or ""})
    return out


def train_file(cfg: TrainConfig, overwrite: bool = False, resume: bool = False) -> dict:
    """Train on ``cfg.data``; returns the card."""
    from . import checkpoint
    from .cards import write_card
    from .config import ModelConfig
    from .evaluate import evaluate
    from .overlap import overlap, overlap_line
    from .train import train

    if int(os.environ.get("WORLD_SIZE", "1")) > 1:  # one process scores, writes the card and moves the files
        raise InputError("train --data runs in one process, not under torchrun; --device auto takes a GPU when "
                         "there is one, and the CPU's every core otherwise.")
    name, files, stage = prepare_output(cfg.out, overwrite, resume)
    task = load_file_task(spec_of(cfg))  # every check of the file before anything is written
    glove = check_glove(cfg.glove)
    lengths = length_report(task, cfg.max_len, ModelConfig.max_tokens)
    for line in length_lines(lengths, cfg.max_len, ModelConfig.max_tokens):
        print(line, file=sys.stderr)
    if overwrite:
        for path in files.values():
            path.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
    try:
        stage.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise OutputError(f"--out: cannot make {stage} ({err.strerror}); choose a folder you can write to.") from None
    staged = dataclasses.replace(cfg, out=str(stage / name))
    summary = train(staged, task)
    best = stage / f"{name}.safetensors"
    if not best.exists():
        again = ("keeps its state: rerun with --resume and more --epochs or --max-steps"
                 if (stage / f"{name}.state.pt").exists() else "holds no state either: rerun with --overwrite and more "
                 "--epochs or --max-steps, or a smaller --eval-every")
        raise OutputError(f"The run ended before its first dev evaluation, so it saved no model; {stage} {again}.")
    model = checkpoint.load_checkpoint(best, glove, name=name)
    report = evaluate(model, task.parts["test"])
    block = overlap(task.parts["test"], {"train": task.parts["train"], "dev": task.parts["dev"]}, report)
    print(overlap_line(block), file=sys.stderr)
    summary["train_config"] = {**summary["train_config"], "out": str(files[".safetensors"].with_suffix("").resolve())}
    card = {
        "name": name,
        "description": (f"`{cfg.model}` trained by `disan train --data` on {Path(cfg.data).name} "
                        f"({task.record['kind']}; labels {', '.join(task.labels)})."),
        "data_file": task.record,
        "lengths": lengths,
        "train": summary,
        "train_command": f"cd {shlex.quote(os.getcwd())} && {summary['command']}",  # its paths may be relative
        "evaluation": {"test": {"model": name, "split": "test", **report, "overlap": block}},
        "presets": test_presets(name, task),
    }
    (stage / f"{name}.train.json").write_text(json.dumps(summary, indent=2) + "\n")
    write_card(card, stage)
    for suffix, final in files.items():  # the checkpoint last: its presence means a finished run
        if suffix != ".safetensors":
            (stage / f"{name}{suffix}").replace(final)
    best.replace(files[".safetensors"])
    shutil.rmtree(stage, ignore_errors=True)
    return card
