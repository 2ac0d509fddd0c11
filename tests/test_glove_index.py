"""disan/glove_index.py: the GloVe package's words and a sorted word → row index kept in the user cache, read
instead of parsing the parquet index and building a dict (issue 58's cold start)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from disan import glove_index, vocab


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(glove_index.ENV, str(tmp_path / "glove"))
    vocab._load_package_glove.cache_clear()
    yield tmp_path / "glove"
    vocab._load_package_glove.cache_clear()


def test_the_cached_index_finds_every_word_as_the_parsed_one(cache, monkeypatch):
    parsed = vocab.load_glove()  # no file yet: the parquet, and the file written for the next process
    assert isinstance(parsed.word_to_row, type(vocab._first_index(("a",))))
    assert len(list(cache.glob("*.npz"))) == 1
    vocab._load_package_glove.cache_clear()
    monkeypatch.setattr("pyarrow.parquet.ParquetFile", None)  # the cached load never opens the parquet
    cached = vocab.load_glove()
    assert isinstance(cached.word_to_row, glove_index.SortedIndex)
    assert cached.words == parsed.words and len(cached.word_to_row) == len(parsed.word_to_row)
    rng = np.random.default_rng(0)
    for word in [parsed.words[i] for i in rng.integers(0, len(parsed.words), 2000)] + ["the", ",", "carousel"]:
        assert cached.index(word) == parsed.index(word) and word in cached
    for unknown in ("zzqxq", "", "The", "carousel ", "\U0001f600"):
        assert cached.index(unknown) is None and unknown not in cached
    assert cached.word_to_row.get(3) is None  # a non-word key is simply absent
    with pytest.raises(TypeError):
        cached.word_to_row["new"] = 3  # type: ignore[index]
    assert np.array_equal(cached.vector("film"), parsed.vector("film"))


def test_a_repeated_word_keeps_its_first_row():
    words = ("b", "a", "c", "a", "b")
    index = glove_index.SortedIndex(words, glove_index.sorted_rows(words, vocab._first_index(words).values()))
    assert dict(index) == {"b": 0, "a": 1, "c": 2} and list(index) == ["b", "a", "c"]


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not a zip"])
def test_a_damaged_file_is_not_used_and_written_again(cache, damage):
    parsed = vocab.load_glove()
    (path,) = cache.glob("*.npz")
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":
        # a byte of the stored words (uncompressed npz): the SHA-256 no longer matches
        at = data.index(b"\nthe\n") + 1
        path.write_bytes(data[:at] + b"T" + data[at + 1:])
    else:
        path.write_bytes(b"nothing")
    assert glove_index.read(vocab._package_root() / "glove_6B_index.parquet") is None
    vocab._load_package_glove.cache_clear()
    again = vocab.load_glove()  # parsed again, and the file written again
    assert again.words == parsed.words and glove_index.read(vocab._package_root() / "glove_6B_index.parquet")


def test_an_unwritable_folder_costs_only_the_speed(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(glove_index.ENV, str(blocker / "glove"))
    vocab._load_package_glove.cache_clear()
    try:
        assert vocab.load_glove().index("the") == 0
    finally:
        vocab._load_package_glove.cache_clear()


def test_the_test_session_keeps_the_index_in_a_folder_of_its_own():
    """tests/conftest.py points DISAN_GLOVE_CACHE at a temporary folder of the session, not the user's cache."""
    import platformdirs

    from tests.conftest import GLOVE_CACHE

    assert os.environ[glove_index.ENV] == GLOVE_CACHE and glove_index.folder() == Path(GLOVE_CACHE)
    assert Path(GLOVE_CACHE).is_relative_to(tempfile.gettempdir())
    user = Path(platformdirs.user_cache_dir("disan", appauthor=False))
    assert not glove_index.folder().is_relative_to(user)


def test_a_process_the_tests_start_writes_no_user_cache(tmp_path):
    """A process started by a test (a server, a CLI run) loads the bundled GloVe with the session's environment:
    its index goes to the session's folder, and nothing into its user cache (here a fresh HOME, so the check does
    not depend on what other processes of the machine do to the real ~/.cache/disan)."""
    from tests.conftest import GLOVE_CACHE, ROOT

    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    code = ("from disan import glove_index, vocab; g = vocab.load_glove(); "
            "print(glove_index.folder()); assert g.index('the') == 0")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == GLOVE_CACHE
    assert list(Path(GLOVE_CACHE).glob("*.npz"))  # the index was kept, in the session's folder
    assert not (home / ".cache").exists(), sorted(map(str, (home / ".cache").rglob("*")))
