"""``TraceView`` records on disk, so that a restarted app draws its opening page before torch has loaded.

Issue 19's cold start: importing torch (1.3 s here) and loading a model (0.4 s) came before the first heatmap.
The records a page draws are numpy arrays (``records.py``), so the opening page of each model (its default
sentence, masks and α) is kept in a folder once it has been computed, and the next start draws it from there;
torch and the model load in the background right after (``loaders.warm_up``). Every other input is traced as
before.

A record is one ``.npz`` file (``allow_pickle=False``: reading one never runs code) holding the arrays and
their JSON description. Its name is a SHA-256 of everything the record depends on: the checkpoint file (path,
size, modification time), the installed torch, the source of ``disan/`` and of the records code, and the
inputs. A record that is missing, unreadable or of another format is simply not used, and a folder that cannot
be written only costs the next start its head start. At most ``KEEP`` records are kept.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import os
import zipfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path

import numpy as np

from viz_app.draw.records import BlockView, SentenceView, TraceView

#: Bumped when the file layout changes (older files are then ignored).
FORMAT = 2
#: Most records kept in the folder (the oldest go first).
KEEP = 32
#: Environment variable naming the folder; else platformdirs' user cache (``$XDG_CACHE_HOME/disan/views`` or
#: ``~/.cache/disan/views`` on Linux).
ENV = "DISAN_VIEW_CACHE"

def folder() -> Path:
    """``$DISAN_VIEW_CACHE``, else platformdirs' user cache (``~/.cache/disan/views`` on Linux), as Explore's
    in-page models (``viz_app/shell/explorer.py``) and ``python -m viz_app prepare`` use it."""
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("disan", appauthor=False)) / "views"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 of the model core's and the records' source and of the installed torch's version."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    sources = sorted((root / "disan").rglob("*.py")) + [Path(__file__).with_name("records.py"), Path(__file__)]
    for path in sources:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    try:
        digest.update(metadata.version("torch").encode())
    except metadata.PackageNotFoundError:  # torch from a source tree: its code is not hashed, so keep no records
        digest.update(os.urandom(16))
    return digest.hexdigest()


def source_id(checkpoint: Path | None, arch: str, glove: str) -> str:
    """What identifies a model's weights: its checkpoint file's path, size and time, or its seeded random arch."""
    if checkpoint is None:
        return f"random:{arch}:{glove}"
    stat = checkpoint.stat()
    return f"{checkpoint.resolve()}:{stat.st_size}:{stat.st_mtime_ns}:{glove}"


def opening_path(model: str, checkpoint: Path | None, arch: str, glove: str, text: str, hypothesis: str | None,
                 masks: str) -> Path:
    """The file of ``model``'s opening page (its default sentence, ``hypothesis`` and masks, the trained α): the
    app's ``loaders.trace_view`` reads it, ``python -m viz_app prepare`` writes it at install."""
    return record_path(model, source_id(checkpoint, arch, glove), {"text": text, "hypothesis": hypothesis,
                                                                   "masks": masks})


def record_path(model: str, source: str, inputs: Mapping[str, object]) -> Path:
    """The file of one model's record for ``inputs`` (text, hypothesis, masks, alpha)."""
    key = json.dumps([FORMAT, code_fingerprint(), model, source, dict(inputs)], sort_keys=True, ensure_ascii=False)
    return folder() / f"{hashlib.sha256(key.encode()).hexdigest()}.npz"


def _describe(view: TraceView) -> tuple[dict, dict[str, np.ndarray]]:
    """(JSON-able description, arrays by name) of ``view``."""
    arrays: dict[str, np.ndarray] = {}

    def sentence(name: str, s: SentenceView) -> dict:
        blocks = {}
        for d, block in (("fw", s.fw), ("bw", s.bw)):
            # every array field of BlockView is stored as an array, every other one in the JSON: a field added
            # to BlockView is kept with no change here (docs/trace-view.md)
            blocks[d] = {}
            for field in dataclasses.fields(block):
                value = getattr(block, field.name)
                if isinstance(value, np.ndarray):
                    arrays[f"{name}.{d}.{field.name}"] = value
                else:
                    blocks[d][field.name] = value
        arrays[f"{name}.s2t"] = np.asarray(s.s2t)
        if s.maxpool_share is not None:
            arrays[f"{name}.maxpool_share"] = np.asarray(s.maxpool_share)
        return {"tokens": list(s.tokens), "status": list(s.status), "blocks": blocks}

    meta = {
        "format": FORMAT, "model": view.model, "arch": view.arch, "random_weights": view.random_weights,
        "prediction": view.prediction, "masks": list(view.masks), "alpha": view.alpha,
        "premise": sentence("premise", view.premise),
        "hypothesis": None if view.hypothesis is None else sentence("hypothesis", view.hypothesis),
        "relatedness": view.relatedness,
    }
    return meta, arrays


def _rebuild(meta: dict, arrays: Mapping[str, np.ndarray]) -> TraceView:
    def sentence(name: str) -> SentenceView:
        m = meta[name]
        blocks = {}
        for d in ("fw", "bw"):
            prefix = f"{name}.{d}."
            stored = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
            blocks[d] = BlockView(**m["blocks"][d], **stored)
        return SentenceView(tokens=tuple(m["tokens"]), status=tuple(m["status"]), fw=blocks["fw"], bw=blocks["bw"],
                            s2t=arrays[f"{name}.s2t"], maxpool_share=arrays.get(f"{name}.maxpool_share"))

    return TraceView(
        model=meta["model"], arch=meta["arch"], random_weights=meta["random_weights"],
        prediction={k: float(v) for k, v in meta["prediction"].items()}, masks=tuple(meta["masks"]),
        alpha=meta["alpha"], premise=sentence("premise"),
        hypothesis=None if meta["hypothesis"] is None else sentence("hypothesis"),
        relatedness=meta.get("relatedness"),
    )


def write(view: TraceView, path: Path) -> bool:
    """Store ``view`` at ``path`` (atomically) and drop the oldest records past ``KEEP``; False if it could not."""
    meta, arrays = _describe(view)
    buffer = io.BytesIO()
    np.savez(buffer, __meta__=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8), **arrays)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(buffer.getvalue())
        partial.replace(path)
        for old in sorted(path.parent.glob("*.npz"), key=lambda p: p.stat().st_mtime_ns)[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        return False
    return True


def read(path: Path) -> TraceView | None:
    """The record at ``path``, or None when there is none or it cannot be used (any damage or older format)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {k: stored[k] for k in stored.files}
        meta = json.loads(arrays.pop("__meta__").tobytes().decode("utf-8"))
        if meta.get("format") != FORMAT:
            return None
        return _rebuild(meta, arrays)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zipfile.BadZipFile):
        return None
