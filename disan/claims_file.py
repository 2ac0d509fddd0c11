"""Stored claim results beside each checkpoint: ``pretrained/<name>.claims.json``.

A results file records the SHA-256 of the checkpoint it measured (and of the
ablation, for Im Fig. 6). When a checkpoint changes, its file is *stale*:
``stale_reason`` says so, ``python -m disan claims --all --write --stale-only``
recomputes exactly those, and the app labels a stale file instead of
showing it as current.
"""

from __future__ import annotations

import json
from pathlib import Path

from .ablations import ABLATIONS
from .api import PRETRAINED_DIR, load
from .cards import read_card
from .checkpoint import sha256
from .claims import ABLATION, claims_for
from .config import ARCHS
from .data import SST2_LABELS, SST5_LABELS, load_task
from .data.labels import CV_TASKS
from .errors import DisanError, InputError
from .evidence import run
from .model import SentenceModel



def checkpoint_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return directory / f"{name}.safetensors"


def checkpoint_changed(result: dict, directory: Path = PRETRAINED_DIR) -> str | None:
    """Why the checkpoint a stored result (claims, faithfulness, sanity, plausibility) was computed from is no
    longer the one on disk, or None when it is."""
    ckpt = checkpoint_path(result["model"], directory)
    if not ckpt.is_file():
        return f"{ckpt.name} is missing"
    if sha256(ckpt) != result["checkpoint_sha256"]:
        return f"{ckpt.name} changed since these results were computed"
    return None


def claims_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return directory / f"{name}.claims.json"


def bundled(directory: Path = PRETRAINED_DIR) -> list[str]:
    """Names of the checkpoints in ``directory``."""
    return sorted(p.name.removesuffix(".safetensors") for p in directory.glob("*.safetensors"))


def read_claims(name: str, directory: Path = PRETRAINED_DIR) -> dict | None:
    """The stored results of ``name``, or None when there is no file."""
    path = claims_path(name, directory)
    return json.loads(path.read_text()) if path.is_file() else None


def stale_reason(result: dict, directory: Path = PRETRAINED_DIR) -> str | None:
    """Why a stored result no longer describes the checkpoints on disk, or None when it is current."""
    changed = checkpoint_changed(result, directory)
    if changed:
        return changed
    ab = result.get("ablation")
    if ab:
        other = checkpoint_path(ab["model"], directory)
        if not other.is_file() or sha256(other) != ab["checkpoint_sha256"]:
            return f"the ablation {other.name} changed since these results were computed"
    return None


def task_of(model: SentenceModel, task: str | None = None, directory: Path = PRETRAINED_DIR) -> str:
    """The model's task: ``task`` if given, else its card's training task, else guessed from its labels."""
    if task:
        return task
    card_task = read_card(model.name, directory).get("train", {}).get("train_config", {}).get("task")
    if card_task:
        return card_task
    labels = tuple(model.cfg.labels)
    if model.cfg.relatedness:
        return "sick"
    if model.cfg.pair:
        return "nli"
    if labels in (SST5_LABELS, SST2_LABELS):
        return "sst5" if labels == SST5_LABELS else "sst2"
    raise InputError(f"Cannot tell which test set {model.name!r} belongs to; pass --task (e.g. sst5 or nli).")


def card_fold(name: str, task: str, directory: Path) -> int | None:
    """The fold a cross-validated model (SUBJ, MPQA, CR) trained on, from its card: its ``split`` is that fold's
    part (``load_task(..., fold=N)``), the examples it never trained on. Without ``fold``, load_task's fixed
    80/10/10 split would put most of a fold model's training examples in the test set. None for other tasks,
    for a model trained without --fold, and for a checkpoint without a card."""
    train_config = read_card(name, directory).get("train", {}).get("train_config", {})
    if task not in CV_TASKS or train_config.get("task") != task or train_config.get("fold") is None:
        return None
    return int(train_config["fold"])


def file_examples(model: SentenceModel, split: str, data: str | None, directory: Path) -> list:
    """A model trained by ``disan train --data``: the rows of ``data`` (its card's columns), else ``split`` of the
    file task its card records (the same seeded split)."""
    import dataclasses

    from .data.file_task import FileSpec, load_file_task, read_for_model
    from .train_config import TrainConfig
    from .train_file import spec_of

    card = read_card(model.name, directory)
    trained = card.get("train", {}).get("train_config", {})
    if data is not None:
        cols = card.get("data_file", {}).get("columns", {})
        spec = FileSpec(data, cols.get("text") or "text", cols.get("text_pair"), cols.get("label") or "label",
                        model.cfg.relatedness)
        return read_for_model(data, spec, model.cfg.labels, model.cfg.relatedness)
    if not trained.get("data"):
        raise InputError(f"{model.name!r} has no card naming its data file; pass --data FILE.")
    if split not in ("train", "dev", "test"):
        raise InputError(f"A file task has the splits train, dev and test, not {split!r}.")
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    return load_file_task(spec_of(TrainConfig(**{k: v for k, v in trained.items() if k in known}))).parts[split]


def trained_model_and_examples(name: str, split: str, task: str | None, data_dir: str | None, directory: Path,
                               results: str, data: str | None = None) -> tuple[Path, SentenceModel, str, list]:
    """The checkpoint path, model, task and examples a whole-test-set command measures (claims, faithfulness).

    ``name``: a bundled name or a .safetensors path; random-weight models are refused, since their
    ``results`` would mean nothing. ``data``: a labelled file to measure on instead (a model trained on a file).
    """
    if name in ARCHS:
        raise InputError(f"{name!r} has random weights; its {results} mean nothing. Choose a trained checkpoint.")
    path = checkpoint_path(name, directory)
    path = path if path.is_file() else Path(name)
    if not path.is_file():
        load(name)  # raises ModelNotFoundError naming the available models
    model = load(str(path), device="cpu")
    task = "file" if data is not None else task_of(model, task, directory)
    if task == "file":
        return path, model, task, file_examples(model, split, data, directory)
    fold = card_fold(model.name, task, directory)
    try:
        examples = load_task(task, split, data_dir, **({} if fold is None else {"fold": fold}))
    except ValueError as err:  # an unknown task or split name; DataFileError (missing file) passes through
        if isinstance(err, DisanError):
            raise
        raise InputError(f"{err}; pass a valid --task / --split.") from None
    return path, model, task, examples


def compute(name: str, split: str = "test", task: str | None = None, data_dir: str | None = None,
            progress: bool = True, directory: Path = PRETRAINED_DIR, data: str | None = None) -> dict:
    """Measure every claim of model ``name`` (a bundled name or a .safetensors path) on its task's ``split``
    (or on the rows of ``data``)."""
    path, model, task, examples = trained_model_and_examples(name, split, task, data_dir, directory, "claims", data)
    ablation, ablation_sha = None, None
    other = ABLATIONS.get(model.name)
    needs_ablation = any(c.kind == ABLATION for c in claims_for(model.cfg.arch, task, True))
    if needs_ablation and other and checkpoint_path(other, directory).is_file():
        ablation = load(str(checkpoint_path(other, directory)), device="cpu")
        ablation_sha = sha256(checkpoint_path(other, directory))
    result = run(model, examples, task, split, sha256(path), ablation, ablation_sha, progress)
    fold = card_fold(model.name, task, directory)
    return result if fold is None else {**result, "fold": fold}  # the split is this fold's part


def write_claims(result: dict, directory: Path = PRETRAINED_DIR) -> Path:
    path = claims_path(result["model"], directory)
    path.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return path
