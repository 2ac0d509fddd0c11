"""Stored faithfulness results beside each checkpoint: ``pretrained/<name>.faithfulness.json``.

Like the claims files (``claims_file.py``), a results file records the SHA-256 of the
checkpoint it measured; when the checkpoint changes the file is *stale*, and
``python -m disan faithfulness --all --write --stale-only`` recomputes exactly those.

Older files are migrated when read. Schema 1 (before gated rollout had its name): the ``flow`` keys
become ``rollout``, the one-line answer is rebuilt from their own numbers by today's rules, and
what schema 1 did not measure (attention flow, the agreement intervals, Jain & Wallace's like-with-
like τ, the DSA's pooling series, ERASER's own AOPC) is null and listed in ``not_computed``. Schema 2
(before the normalised AOPC): ``aopc_steps``, ``naopc`` and ``naopc_how`` are null and listed. Any
other schema version is refused by name.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..api import PRETRAINED_DIR
from ..checkpoint import sha256
from ..claims_file import card_fold, checkpoint_changed, checkpoint_path, trained_model_and_examples
from ..errors import InputError
from ..output import write_atomic
from .corpus import NAOPC_LIMIT, SCHEMA_VERSION, TAU_BANDS, answer, run
from .resume import cache_folder
from .rollout import REFERENCE as ROLLOUT_REFERENCE
from .sentence import METHODS

#: The command that (re)computes the stored files; the app and the README quote it.
REFRESH_COMMAND = "python -m disan faithfulness --all --write --stale-only"


def faithfulness_path(name: str, directory: Path = PRETRAINED_DIR) -> Path:
    return directory / f"{name}.faithfulness.json"


#: What a schema 1 file lacks, each with the reason it is null after migration.
NOT_IN_SCHEMA_1 = ("attention_flow", "agreement", "jain_wallace", "pooling", "aopc_eraser")
#: What a schema 2 file lacks (the normalised AOPC, naopc.py).
NOT_IN_SCHEMA_2 = ("aopc_steps", "naopc", "naopc_how")


def _renamed(key: str) -> str:
    return "rollout" if key == "flow" else key


def _not_computed(key: str, model: str, version: int) -> dict:
    return {"key": key, "why": f"not measured by schema {version} (migrated); recompute with python -m disan "
                              f"faithfulness --model {model} --write"}


def migrate(data: dict) -> dict:
    """A schema 1 or 2 result in today's schema (module docstring); a current one unchanged; anything else
    refused."""
    version = data.get("schema_version")
    if version == SCHEMA_VERSION:
        return data
    if version == 2:
        out = {**data, "schema_version": SCHEMA_VERSION, "migrated_from": data.get("migrated_from", 2)}
        for key in NOT_IN_SCHEMA_2:
            out[key] = None
        out["not_computed"] = [*data.get("not_computed", []),
                               *(_not_computed(key, data["model"], 2) for key in NOT_IN_SCHEMA_2)]
        return out
    if version != 1:
        model = data.get("model", "NAME")
        raise InputError(f"{model}.faithfulness.json has schema_version {version!r}; this code reads 1 (migrated) "
                         f"and 2 (migrated) and {SCHEMA_VERSION}. Recompute it with: python -m disan faithfulness "
                         f"--model {model} --write")
    out = {k: v for k, v in data.items() if k not in ("flow", "answer")}
    out["schema_version"] = 2
    out["migrated_from"] = 1
    out["methods"] = {_renamed(k): ({"label": METHODS["rollout"][0], "measures": METHODS["rollout"][1]}
                                    if k == "flow" else v) for k, v in data["methods"].items()}
    out["tau"] = [{**t, "a": _renamed(t["a"]), "b": _renamed(t["b"])} for t in data["tau"]]
    out["eraser"] = [{**r, "ranking": _renamed(r["ranking"])} for r in data["eraser"]]
    out["aopc"] = {kind: {_renamed(r): v for r, v in by.items()} for kind, by in data["aopc"].items()}
    out["rollout"] = {**data["flow"], "what": ROLLOUT_REFERENCE + "; mixing-weight shares, mean over the sentence "
                                              "features"}
    out["aopc_bins"] = {"ours": sorted({r["fraction"] for r in data["eraser"]})}
    out["tau_bands"] = [{"below": None if lim == float("inf") else lim, "name": name} for lim, name in TAU_BANDS]
    for key in NOT_IN_SCHEMA_1:
        out[key] = None
    out["not_computed"] = [_not_computed(key, data["model"], 1) for key in NOT_IN_SCHEMA_1]
    out["answer"] = answer(out)
    return migrate(out)


def read_faithfulness(name: str, directory: Path = PRETRAINED_DIR) -> dict | None:
    """The stored results of ``name`` in today's schema (``migrate``), or None when there is no file."""
    path = faithfulness_path(name, directory)
    return migrate(json.loads(path.read_text())) if path.is_file() else None


def stale_reason(result: dict, directory: Path = PRETRAINED_DIR, schema: int | None = None) -> str | None:
    """Why a stored result no longer describes its checkpoint, or None when it is current; with ``schema``, a
    result written by an older schema (one without LRP or NAOPC, say) is stale too."""
    written = result.get("migrated_from") or result.get("schema_version")  # read_faithfulness migrates old files
    if schema is not None and written != schema:
        return f"written by schema {written}; this code writes schema {schema}"
    return checkpoint_changed(result, directory)


def compute(name: str, split: str = "test", task: str | None = None, data_dir: str | None = None,
            limit: int | None = None, progress: bool = True, directory: Path = PRETRAINED_DIR,
            cache: str | None = None, naopc: bool = True, data: str | None = None,
            naopc_limit: int | None = NAOPC_LIMIT) -> dict:
    """Measure model ``name`` (a bundled name or a .safetensors path) on its task's ``split`` (or on the rows of
    ``data``, a labelled file); with a ``cache`` folder, resuming from the batches an earlier, cut-off run saved
    there (``resume.py``)."""
    if limit is not None and limit < 1:
        raise InputError(f"--limit {limit} measures nothing; give a positive number of examples or leave it out.")
    if naopc_limit is not None and naopc_limit < 0:
        raise InputError(f"--naopc-limit {naopc_limit} is negative; give a number of examples, or 0 for all of them.")
    folder = cache_folder(cache) if cache is not None else None
    path, model, task, examples = trained_model_and_examples(name, split, task, data_dir, directory, "attributions",
                                                             data)
    result = run(model, examples, task, split, sha256(path), limit, progress=progress, cache=folder, naopc=naopc,
                 naopc_limit=naopc_limit)
    fold = card_fold(model.name, task, directory)
    return result if fold is None else {**result, "fold": fold}  # the split is this fold's part, as in claims


def write_faithfulness(result: dict, directory: Path = PRETRAINED_DIR) -> Path:
    path = faithfulness_path(result["model"], directory)
    return write_atomic(path, lambda: json.dumps(result, indent=1, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    """``python -m disan.attribution.stored --migrate NAME ...``: rewrite stored schema 1 files as schema 2 (``migrate``:
    keys renamed, the answer rebuilt from their own numbers, what they lack null and listed), measuring nothing."""
    import argparse

    p = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    p.add_argument("--migrate", nargs="+", required=True, metavar="NAME")
    p.add_argument("--pretrained-dir", default=None)
    args = p.parse_args(argv)
    directory = Path(args.pretrained_dir) if args.pretrained_dir else PRETRAINED_DIR
    for name in args.migrate:
        data = read_faithfulness(name, directory)
        if data is None:
            raise InputError(f"No {faithfulness_path(name, directory).name}; nothing to migrate.")
        print(f"{name}: wrote {write_faithfulness(data, directory)} (schema {data['schema_version']})")
    return 0


if __name__ == "__main__":
    from ..errors import run_script

    run_script(main)
