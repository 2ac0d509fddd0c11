"""Word vectors for the train --data tests, written by the tests (seeded), never committed: an 8-d GloVe-format
file of the fixtures' words (``GLOVE``) and a broken one whose line 8 has 5 numbers (``MIXED``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.task_files import write_glove

WORDS = ". a and awful bad café film fine good great is it movie plot poor surprise the ".split()
_DIR = Path(tempfile.mkdtemp(prefix="disan-user-vectors-"))
GLOVE = Path(write_glove(_DIR / "glove.8d.txt", words=WORDS))
MIXED = Path(write_glove(_DIR / "mixed.8d.txt", words=WORDS, short_line=8))
