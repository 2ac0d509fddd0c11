"""Shared by the corpus-index tests: small indexes of the fixture corpus built once per test session."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "corpus"
SENTENCES = FIXTURES / "sentences.txt"
PAIRS = FIXTURES / "pairs.tsv"


@functools.lru_cache(maxsize=None)
def built_index(model: str, data: str, chunk: int = 3) -> Path:
    """An index of ``data`` under ``model`` in a temporary folder (chunks of 3: several parts)."""
    from disan.corpus.build import build_index

    out = Path(tempfile.mkdtemp(prefix="disan-index-")) / "index"
    build_index(model, data, out, progress=False, chunk=chunk, threads=1)
    return out


def sentence_lines() -> list[str]:
    return [line for line in SENTENCES.read_text(encoding="utf-8").splitlines() if line.strip()]
