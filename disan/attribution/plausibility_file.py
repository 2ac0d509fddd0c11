"""Stored plausibility beside each SST-5 checkpoint: ``pretrained/<name>.plausibility.json``.

Written by ``python -m disan plausibility --model NAME --write`` and by ``python -m disan faithfulness --model NAME
--write`` (``--parts plausibility``): the result of ``plausibility.run`` with the checkpoint's SHA-256, the split,
the sample (size and seed; 0 = every tree), the command, and the wall and CPU seconds. Stale when the checkpoint
changes (``stale_reason``), like the claims and faithfulness files. Schema: ``docs/plausibility.schema.json``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..api import PRETRAINED_DIR, load
from ..checkpoint import sha256
from ..claims_file import checkpoint_changed, checkpoint_path, task_of
from ..errors import InputError
from ..output import write_atomic
from .plausibility import plausibility_path, run, tree_lines

SCHEMA_VERSION = 1


def migrate(data: dict) -> dict:
    """A file written before schema 1 (by ``disan plausibility --write``, without ``schema_version``, ``limit`` and
    ``cpu_seconds``) in schema 1: its sample size from its own counts, its CPU seconds null (never measured)."""
    if "schema_version" in data:
        return data
    return {**data, "schema_version": SCHEMA_VERSION, "migrated_from": 0, "cpu_seconds": None,
            "limit": 0 if data["n"] == data["n_trees"] else data["n"]}


def read_plausibility(name: str, directory: Path = PRETRAINED_DIR) -> dict | None:
    """The stored result of ``name`` in schema 1 (``migrate``), or None when there is no file."""
    path = plausibility_path(name, directory)
    return migrate(json.loads(path.read_text())) if path.is_file() else None


def stale_reason(result: dict, directory: Path = PRETRAINED_DIR) -> str | None:
    """Why a stored result no longer describes its checkpoint, or None when it is current."""
    return checkpoint_changed(result, directory)


def sst5_model(name: str, directory: Path = PRETRAINED_DIR):
    """(checkpoint path, model) of ``name``, or None when it is no SST-5 model (plausibility needs SST's labels)."""
    path = checkpoint_path(name, directory)
    model = load(str(path) if path.is_file() else name, device="cpu")
    return (path, model) if task_of(model, None, directory) == "sst5" else None


def compute(name: str, split: str = "test", data_dir: str | None = None, directory: Path = PRETRAINED_DIR,
            limit: int = 0, progress: bool = True, command: str | None = None) -> dict:
    """The plausibility file of SST-5 model ``name`` on a seeded sample of ``limit`` trees (0 = every tree)."""
    if limit < 0:
        raise InputError(f"--limit {limit} is negative; give a number of trees, or 0 for the whole split.")
    found = sst5_model(name, directory)
    if found is None:
        raise InputError(f"{name} is no SST-5 model; plausibility needs SST's word labels, so choose an SST-5 model "
                         "(disan-sst5, dsa-sst5, …).")
    path, model = found
    wall, cpu, load_start = time.perf_counter(), time.process_time(), os.getloadavg()[0]
    result = run(model, tree_lines(split, data_dir), limit or None, progress=progress)
    return {"schema_version": SCHEMA_VERSION, **result, "split": split, "limit": limit,
            "checkpoint_sha256": sha256(path) if path.is_file() else None,
            "seconds": round(time.perf_counter() - wall, 1), "cpu_seconds": round(time.process_time() - cpu, 1),
            "load_average": [round(load_start, 2), round(os.getloadavg()[0], 2)],
            "command": command or f"python -m disan plausibility --model {model.name} --limit {limit} --write"}


def write_plausibility(result: dict, directory: Path = PRETRAINED_DIR) -> Path:
    path = checkpoint_path(result["model"], directory)
    if not path.is_file():
        raise InputError(f"--write stores results beside a bundled checkpoint; {result['model']!r} is not one in "
                         f"{directory}.")
    return write_atomic(plausibility_path(result["model"], directory),
                        lambda: json.dumps(result, ensure_ascii=False, indent=1) + "\n")
