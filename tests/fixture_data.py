"""Small invented files in each real dataset format, materialised under their real names.

They are stored as ``<real name with "." written "__">.fixture`` (``TREC__train__all.fixture``)
so that nothing in the repository is named like, or could be mistaken for, a copy of a real
dataset.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from pathlib import Path

SOURCE = Path(__file__).parent / "fixtures" / "data"


@functools.lru_cache(maxsize=1)
def fixture_data_dir() -> Path:
    """A temporary data directory laid out like ``../shared/data`` (created once per run)."""
    dest = Path(tempfile.mkdtemp(prefix="disan-fixture-data-"))
    for src in SOURCE.rglob("*.fixture"):
        rel = src.relative_to(SOURCE)
        target = dest / rel.parent / rel.name.removesuffix(".fixture").replace("__", ".")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    return dest
