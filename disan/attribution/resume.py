"""Resuming a cut-off faithfulness run from the batches it finished: ``python -m disan faithfulness --cache DIR``.

A whole NLI test set takes hours on one CPU thread (``corpus.measure``), and a run that stops midway would
otherwise lose it all. With a cache folder, ``measure`` saves the per-example values of the batches done so
far every ``SAVE_EVERY_S`` seconds and at the end, as one ``.npz`` file (numbers and text only, read with
``allow_pickle=False``) written whole: a temporary file in the same folder, then ``os.replace``. A rerun
with the same folder skips those batches.

A value can depend on which examples share its batch: padding changes the shapes of the matrix products
and so the order of float additions, and near-ties in a ranking then flip (the tiny DSA of the tests,
each sentence alone against all six in one batch: 166 of its values differ, by up to 0.33 in τ). So a
resumed run redoes whole batches of the same layout, and its numbers equal an uninterrupted run's.

A file is used only when its key is this run's: the code's ``SCHEMA_VERSION``, the model's name and
checkpoint SHA-256, task, split, IG steps, the example ids, their tokens and the batch layout. The key's
SHA-256 names the file and the key itself is stored in it and compared on reading, so a file of another
run (an older code version, a retrained checkpoint, another --limit) is never read as this one's.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError, OutputError

#: How often the finished batches are saved: a cut-off run loses at most this much work.
SAVE_EVERY_S = 120.0


def cache_folder(path: str | os.PathLike) -> Path:
    """``path`` as an existing, writable folder (created if missing); else ``InputError`` naming the fix."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--cache {str(folder)!r} is a file; give a folder for the resume files.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"--cache {str(folder)!r} cannot be created ({err.strerror}); "
                         "give a writable folder.") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"--cache {str(folder)!r} is not writable; give a folder you can write to.")
    return folder


def tokens_sha256(sides: Sequence[tuple[tuple[str, ...], ...]]) -> str:
    return hashlib.sha256(json.dumps(sides, ensure_ascii=False).encode()).hexdigest()


class BatchCache:
    """The saved values of one run (``key``) in ``folder``: which batches are done and their per-example values."""

    def __init__(self, folder: Path, key: dict, n_examples: int, n_batches: int, save_every_s: float | None = None):
        self.key_text = json.dumps(key, sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(self.key_text.encode()).hexdigest()
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{key.get('model', 'model')}.{key.get('split', 'split')}")
        self.path = folder / f"{stem}.{digest[:16]}.npz"
        self.n_examples, self.n_batches = n_examples, n_batches
        self.save_every_s = SAVE_EVERY_S if save_every_s is None else save_every_s

    def load(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(done: (n_batches,) bool, values: name → (n_examples,)); nothing done when there is no usable file."""
        nothing = np.zeros(self.n_batches, bool), {}
        if not self.path.is_file():
            return nothing
        try:
            with np.load(self.path, allow_pickle=False) as f:
                key, names, values, done = str(f["key"]), [str(n) for n in f["names"]], f["values"], f["done"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
            print(f"{self.path}: unreadable ({err}); starting afresh.", file=sys.stderr)
            return nothing
        if key != self.key_text or done.shape != (self.n_batches,) or values.shape != (len(names), self.n_examples):
            print(f"{self.path}: saved by another run (its key differs); starting afresh.", file=sys.stderr)
            return nothing
        return done.astype(bool), {name: values[i].copy() for i, name in enumerate(names)}

    def save(self, done: np.ndarray, values: dict[str, np.ndarray]) -> None:
        names = sorted(values)
        arrays = {"key": np.array(self.key_text), "names": np.array(names, dtype=str), "done": done,
                  "values": np.stack([values[n] for n in names]) if names else np.zeros((0, self.n_examples))}
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent)
        except OSError as err:
            raise OutputError(f"Cannot write {str(self.path)!r}: {err.strerror}; "
                              "give another --cache folder.") from None
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, **arrays)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as err:
            Path(tmp).unlink(missing_ok=True)
            raise OutputError(f"Cannot write {str(self.path)!r}: {err.strerror or err}; give another --cache "
                              "folder.") from None
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
