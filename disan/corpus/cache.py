"""Where the app's indexes live: a user cache folder, one index per model version and corpus.

A fresh clone holds no index: the Search view builds the one it is asked for on first use (with a progress
bar) into ``$DISAN_INDEX_CACHE`` or ``~/.cache/disan/index``, under ``<model>-<first 12 hex of its checkpoint
SHA-256>/<corpus>``, so a changed checkpoint gets a new folder and never reads an old index.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .manifest import MANIFEST


def cache_root() -> Path:
    env = os.environ.get("DISAN_INDEX_CACHE", "")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "disan" / "index"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "corpus"


def model_folder(model: str, sha256: str) -> Path:
    return cache_root() / f"{slug(model)}-{sha256[:12]}"


def index_folder(model: str, sha256: str, corpus: str) -> Path:
    return model_folder(model, sha256) / slug(corpus)


def built(model: str, sha256: str) -> list[str]:
    """The corpora of the finished indexes of this model version in the cache."""
    folder = model_folder(model, sha256)
    return sorted(p.parent.name for p in folder.glob(f"*/{MANIFEST}")) if folder.is_dir() else []
