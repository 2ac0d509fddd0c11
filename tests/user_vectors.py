"""Word vectors for the train --data tests, written by the tests (seeded), never committed: an 8-d GloVe-format
file of the fixtures' words (``GLOVE``) and a broken one whose line 8 has 5 numbers (``MIXED``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

WORDS = ". a and awful bad café film fine good great is it movie plot poor surprise the ".split()
_DIR = Path(tempfile.mkdtemp(prefix="disan-user-vectors-"))


def _write(name: str, short_line: int | None = None) -> Path:
    rng = np.random.default_rng(8)
    rows = []
    for k, word in enumerate(WORDS, 1):
        values = rng.normal(size=5 if k == short_line else 8)
        rows.append(" ".join([word, *(f"{v:.4f}" for v in values)]))
    path = _DIR / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


GLOVE = _write("glove.8d.txt")
MIXED = _write("mixed.8d.txt", short_line=8)
