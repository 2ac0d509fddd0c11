"""Stored sanity checks beside each checkpoint: ``pretrained/<name>.sanity.json``.

``python -m disan faithfulness --model NAME --write`` stores them (``--parts sanity`` alone). The file holds the
cascading model-parameter randomisation test (``randomisation.run``, Adebayo et al. 2018, Sec. 3.1) on a seeded
sample of the test set, and, where a model trained on shuffled labels is given (``--shuffled PATH``), the data
randomisation test (``data_randomisation.run``, Sec. 3.2), with the SHA-256 of both checkpoints, the sample's
size and seed, the command, and the wall and CPU seconds. Like the claims and faithfulness files it is *stale*
when a checkpoint changes, and ``--stale-only`` recomputes only stale and missing ones. Schema:
``docs/sanity.schema.json``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..api import PRETRAINED_DIR
from ..checkpoint import sha256
from ..claims_file import checkpoint_changed, checkpoint_path, trained_model_and_examples
from ..errors import InputError
from ..output import write_atomic
from . import data_randomisation, randomisation

SCHEMA_VERSION = 1

#: The seeded samples of docs/sanity-checks.md's table (sized to the shared 2-core machine): 50 examples for the
#: two SST-5 models the page reads first, 30 for the other DiSAN models, 20 for the other distance-based ones.
SAMPLE_BY_MODEL = {"disan-sst5": 50, "dsa-sst5": 50}
SAMPLE_BY_ARCH = {"disan": 30, "dsa": 20}


def sanity_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return Path(directory) / f"{name}.sanity.json"


def default_limit(name: str, arch: str) -> int:
    """The cascading test's sample size for model ``name`` when none is given (``SAMPLE_BY_MODEL``)."""
    return SAMPLE_BY_MODEL.get(name, SAMPLE_BY_ARCH[arch])


def read_sanity(name: str, directory: Path = PRETRAINED_DIR) -> dict | None:
    """The stored result of ``name``, or None when there is no file; a file of another schema is refused by name."""
    path = sanity_path(name, directory)
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if data.get("schema_version") != SCHEMA_VERSION:
        raise InputError(f"{path.name} has schema_version {data.get('schema_version')!r}; this code reads "
                         f"{SCHEMA_VERSION}. Recompute it with: python -m disan faithfulness --model {name} "
                         "--parts sanity --write")
    return data


def stale_reason(result: dict, directory: Path = PRETRAINED_DIR, shuffled: str | None = None) -> str | None:
    """Why a stored result no longer describes its checkpoint (or lacks the data randomisation test of the
    ``shuffled`` model asked for), or None when it is current."""
    changed = checkpoint_changed(result, directory)
    if changed:
        return changed
    data = result.get("data_randomisation")
    if shuffled is not None and (data is None or data.get("shuffled_sha256") != sha256(Path(shuffled))):
        return f"no data randomisation test against {shuffled} stored"
    return None


def _timed(fn):
    wall, cpu, load = time.perf_counter(), time.process_time(), os.getloadavg()[0]
    out = fn()
    return out, {"seconds": round(time.perf_counter() - wall, 1), "cpu_seconds": round(time.process_time() - cpu, 1),
                 "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}


def compute(name: str, split: str = "test", task: str | None = None, data_dir: str | None = None,
            directory: Path = PRETRAINED_DIR, limit: int | None = None, shuffled: str | None = None,
            shuffled_limit: int = 0, progress: bool = True, previous: dict | None = None) -> dict:
    """The sanity file of model ``name``: the cascading test on a seeded sample of ``limit`` examples (default
    ``default_limit``; 0 = the whole split) and, with ``shuffled`` (a model trained on shuffled labels), the data
    randomisation test on ``shuffled_limit`` examples (0 = the whole split). Without ``shuffled``, a ``previous``
    file's data randomisation test is kept when it describes this checkpoint: nothing stored is lost."""
    if limit is not None and limit < 0 or shuffled_limit < 0:
        raise InputError(f"A sample size is negative ({limit}, {shuffled_limit}); give a number of examples, or 0 for "
                         "the whole split.")
    path, model, task, examples = trained_model_and_examples(name, split, task, data_dir, directory, "sanity checks")
    digest = sha256(path)
    limit = default_limit(model.name, model.cfg.arch) if limit is None else limit
    cascading, cost = _timed(lambda: randomisation.run(model, examples, task, split, limit or None, progress))
    command = f"python -m disan faithfulness --model {model.name} --parts sanity --sanity-limit {limit} --write"
    data, why_not = None, None
    if shuffled is not None:
        other_path, other, _, _ = trained_model_and_examples(shuffled, split, task, data_dir, directory, "sanity checks")
        data, data_cost = _timed(lambda: data_randomisation.run(model, other, other_path, examples, task, split,
                                                                shuffled_limit or None, progress))
        data = {**data, "shuffled_sha256": sha256(other_path), **data_cost}
        command += f" --shuffled {shuffled} --shuffled-limit {shuffled_limit}"
    elif previous and previous.get("checkpoint_sha256") == digest and previous.get("data_randomisation"):
        data = previous["data_randomisation"]
        command = previous.get("command", command)
    else:
        why_not = ("no model trained on shuffled labels given; train one with python -m disan train --shuffle-labels "
                   "SEED (docs/sanity-checks.md) and pass it with --shuffled PATH")
    return {"schema_version": SCHEMA_VERSION, "model": model.name, "checkpoint_sha256": digest, "task": task,
            "split": split, "sample": {"limit": limit, "seed": cascading["sample_seed"], "n": cascading["n"],
                                       "n_examples": cascading["n_examples"],
                                       "how": "all examples" if cascading["n"] == cascading["n_examples"] else
                                       "seeded random sample of the split (corpus.sample)"},
            "cascading": {**cascading, **cost}, "data_randomisation": data, "data_randomisation_missing": why_not,
            "command": command}


def write_sanity(result: dict, directory: Path = PRETRAINED_DIR) -> Path:
    return write_atomic(sanity_path(result["model"], directory),
                        lambda: json.dumps(result, indent=1, ensure_ascii=False) + "\n")
