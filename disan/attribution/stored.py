"""Stored faithfulness results beside each checkpoint: ``pretrained/<name>.faithfulness.json``.

Like the claims files (``claims_file.py``), a results file records the SHA-256 of the
checkpoint it measured; when the checkpoint changes the file is *stale*, and
``python -m disan faithfulness --all --write --stale-only`` recomputes exactly those.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..api import PRETRAINED_DIR
from ..checkpoint import sha256
from ..claims_file import checkpoint_path, trained_model_and_examples
from ..errors import InputError
from ..output import write_atomic
from .corpus import run

#: The command that (re)computes the stored files; the app and the README quote it.
REFRESH_COMMAND = "python -m disan faithfulness --all --write --stale-only"


def faithfulness_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return directory / f"{name}.faithfulness.json"


def read_faithfulness(name: str, directory: Path = PRETRAINED_DIR) -> dict | None:
    """The stored results of ``name``, or None when there is no file."""
    path = faithfulness_path(name, directory)
    return json.loads(path.read_text()) if path.is_file() else None


def stale_reason(result: dict, directory: Path = PRETRAINED_DIR) -> str | None:
    """Why a stored result no longer describes its checkpoint, or None when it is current."""
    ckpt = checkpoint_path(result["model"], directory)
    if not ckpt.is_file():
        return f"{ckpt.name} is missing"
    if sha256(ckpt) != result["checkpoint_sha256"]:
        return f"{ckpt.name} changed since these results were computed"
    return None


def compute(name: str, split: str = "test", task: str | None = None, data_dir: str | None = None,
            limit: int | None = None, progress: bool = True, directory: Path = PRETRAINED_DIR) -> dict:
    """Measure model ``name`` (a bundled name or a .safetensors path) on its task's ``split``."""
    if limit is not None and limit < 1:
        raise InputError(f"--limit {limit} measures nothing; give a positive number of examples or leave it out.")
    path, model, task, examples = trained_model_and_examples(name, split, task, data_dir, directory, "attributions")
    return run(model, examples, task, split, sha256(path), limit, progress=progress)


def write_faithfulness(result: dict, directory: Path = PRETRAINED_DIR) -> Path:
    path = faithfulness_path(result["model"], directory)
    return write_atomic(path, lambda: json.dumps(result, indent=1, ensure_ascii=False) + "\n")
