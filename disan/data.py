"""Dataset loaders for the DiSAN and distance-based self-attention experiments.

Pure Python (no torch): every loader returns a ``list[Example]`` whose ``text``
is the raw sentence string; tokenisation happens elsewhere.

Expected layout under the data dir (see :func:`data_dir`)::

    snli/snli_1.0_{train,dev,test}.jsonl[.gz]     official SNLI 1.0 jsonl
    sst/trees/{train,dev,test}.txt                SST PTB trees, one per line
    sst/sentences/stsa.{fine,binary}.{train,dev,test}   "label sentence"
    sick/SICK.txt                                 tab-separated, with a header
    senteval/TREC.{train,test}.all, subj.all, mpqa.all, custrev.all
                                                  "label sentence"

Malformed lines are handled by every loader's ``on_error`` argument:
``"raise"`` raises :class:`CorruptLineError` naming the file and 1-based line,
``"skip"`` emits a :class:`CorruptLineWarning` with the same text and goes on.
Blank lines, and ``label sentence`` lines whose sentence is empty (3 in the
public mpqa.all, 4 in custrev.all), are dropped silently.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import BinaryIO, TypeVar, Union

from .errors import DisanError

StrPath = Union[str, "os.PathLike[str]"]
E = TypeVar("E")
Line = TypeVar("Line", str, bytes)

# --------------------------------------------------------------------------- labels

SST5_LABELS: tuple[str, ...] = ("very negative", "negative", "neutral", "positive", "very positive")
SST2_LABELS: tuple[str, ...] = ("negative", "positive")
NLI_LABELS: tuple[str, ...] = ("entailment", "neutral", "contradiction")
TREC_LABELS: tuple[str, ...] = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
SUBJ_LABELS: tuple[str, ...] = ("subjective", "objective")
MPQA_LABELS: tuple[str, ...] = ("negative", "positive")
CR_LABELS: tuple[str, ...] = ("negative", "positive")

#: Meaning of the numeric labels 0..5 in the ``TREC.*.all`` files
#: (harvardnlp/sent-conv-torch order, checked against the official class counts).
TREC_FILE_CODES: tuple[str, ...] = ("DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM")

TASK_LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "sst5": SST5_LABELS,
    "sst2": SST2_LABELS,
    "nli": NLI_LABELS,
    "snli": NLI_LABELS,
    "trec": TREC_LABELS,
    "subj": SUBJ_LABELS,
    "mpqa": MPQA_LABELS,
    "cr": CR_LABELS,
})
PAIR_TASKS: frozenset[str] = frozenset({"nli", "snli"})

# --------------------------------------------------------------------------- constants

#: Sentences in the official SST train split. Some public copies of ``train.txt``
#: (e.g. munikarmanish/RNTN) hold train followed by dev; only these lines are train.
SST_TRAIN_SENTENCES = 8544
SST_NEUTRAL = 2
#: Copies of each non-neutral phrase / whole sentence under ``balance=True``:
#: the original plus 3 extra, as in the DiSAN release (SST_disan/src/dataset.py,
#: ``add_data_list += [sample] * 3`` then ``nn_data_list += add_data_list``).
BALANCE_COPIES = 4
HELDOUT_SEED = 13
NLI_DEV_FRACTION = 0.05
TREC_DEV_FRACTION = 0.10
SENTEVAL_HOLDOUT_FRACTION = 0.10
ON_ERROR_CHOICES = ("raise", "skip")

_SENTEVAL_FILES: Mapping[str, str] = MappingProxyType({
    "subj": "subj.all", "mpqa": "mpqa.all", "cr": "custrev.all",
})
_SENTEVAL_LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "subj": SUBJ_LABELS, "mpqa": MPQA_LABELS, "cr": CR_LABELS,
})

_NLI_URLS = ("https://nlp.stanford.edu/projects/snli/", "https://cims.nyu.edu/~sbowman/multinli/")
_SENTEVAL_URL = ("https://github.com/facebookresearch/SentEval "
                 "(data/downstream/get_transfer_data.bash)")
_DOWNLOADS: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType({
    "snli": ("SNLI", _NLI_URLS),
    "multinli": ("MultiNLI", _NLI_URLS),
    "nli": ("SNLI/MultiNLI", _NLI_URLS),
    "sst": ("SST", ("https://nlp.stanford.edu/sentiment/",)),
    "sick": ("SICK", ("https://marcobaroni.org/composes/sick.html",)),
    "trec": ("TREC", ("https://cogcomp.seas.upenn.edu/Data/QA/QC/",)),
    "subj": ("SUBJ", (_SENTEVAL_URL,)),
    "mpqa": ("MPQA", (_SENTEVAL_URL,)),
    "cr": ("CR", (_SENTEVAL_URL,)),
    "senteval": ("SentEval", (_SENTEVAL_URL,)),
})


# --------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Example:
    """One labelled example.

    ``text`` is the sentence (the premise for pair tasks), ``hypothesis`` the
    second sentence of a pair or ``None``; ``label`` indexes the task's label
    tuple; ``source`` is ``"<file name>:<1-based line>"``.
    """

    text: str
    label: int
    hypothesis: str | None = None
    source: str = ""


class DataFileError(DisanError, FileNotFoundError):
    """A dataset file is missing; the message says where to download it."""

    def __init__(self, message: str, path: StrPath) -> None:
        super().__init__(message)
        self.path = Path(path)


class CorruptLineError(DisanError, ValueError):
    """A malformed line in a dataset file.

    Attributes: ``file`` (path as a string), ``line`` (1-based), ``reason``.
    """

    def __init__(self, file: StrPath, line: int, reason: str) -> None:
        self.file = str(file)
        self.line = line
        self.reason = reason
        super().__init__(f"{self.file}, line {line}: {reason}")


class CorruptLineWarning(UserWarning):
    """Warning emitted for a malformed line skipped under ``on_error="skip"``."""


# --------------------------------------------------------------------------- paths


def data_dir(path: StrPath | None = None) -> Path:
    """Resolve the dataset root folder.

    Order: ``path`` if given; else ``$DISAN_DATA_DIR`` if set and non-empty;
    else ``<repo root>/../shared/data`` if that folder exists; else
    ``../shared/data`` relative to the current working directory.
    The result is not checked for existence: loaders raise :class:`DataFileError`.
    """
    return _resolve_root(path)


def _resolve_root(path: StrPath | None) -> Path:
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get("DISAN_DATA_DIR", "")
    if env:
        return Path(env).expanduser()
    beside_repo = Path(__file__).resolve().parents[2] / "shared" / "data"
    if beside_repo.is_dir():
        return beside_repo
    return (Path.cwd() / ".." / "shared" / "data").resolve()


def _missing_message(paths: Sequence[Path], what: str) -> str:
    """Message for a missing dataset file: which file, where to get it, how to point at it."""
    name, urls = _DOWNLOADS[what]
    tried = " or ".join(str(p) for p in paths)
    return (f"{name} file not found: {tried}. Download the original from "
            f"{' and '.join(urls)} and place it there, "
            f"or pass --data-dir / set DISAN_DATA_DIR to the folder that holds it.")


def _check_dataset_key(what: str) -> None:
    if what not in _DOWNLOADS:
        raise ValueError(f"unknown dataset {what!r}; expected one of {sorted(_DOWNLOADS)}")


def require_file(path: StrPath, what: str) -> Path:
    """Return ``path`` as a Path if it is a file, else raise :class:`DataFileError`.

    ``what`` names the dataset (``snli``, ``multinli``, ``nli``, ``sst``, ``sick``,
    ``trec``, ``subj``, ``mpqa``, ``cr``, ``senteval``) and picks the download URL.
    """
    return _first_existing([Path(path)], what)


def _first_existing(paths: Sequence[Path], what: str) -> Path:
    """First of ``paths`` that is a file; DataFileError naming all of them otherwise."""
    _check_dataset_key(what)
    for path in paths:
        if path.is_file():
            return path
    raise DataFileError(_missing_message(paths, what), paths[0])


def _check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")


# --------------------------------------------------------------------------- reading


def _open_binary(path: Path) -> BinaryIO:
    """Open a plain or gzip-compressed (``.gz``) file for binary reading."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


def _decode(data: bytes) -> str:
    """Decode a whole file as UTF-8 (BOM allowed), falling back to Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _text_lines(path: Path) -> list[str]:
    """All lines of a text file, decoded per :func:`_decode`, without line ends.

    Splits on ``\\n`` only (``str.splitlines`` would also split on Latin-1
    ``\\x85`` and similar, shifting line numbers).
    """
    with _open_binary(path) as handle:
        text = _decode(handle.read())
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def _check_on_error(on_error: str) -> None:
    _check_choice("on_error", on_error, ON_ERROR_CHOICES)


def _excerpt(line: str | bytes, width: int = 60) -> str:
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.strip()
    return repr(text if len(text) <= width else text[:width] + "...")


def _report(path: Path, lineno: int, reason: str, on_error: str) -> None:
    """Raise or warn about a malformed line, per ``on_error``."""
    error = CorruptLineError(path, lineno, reason)
    if on_error == "raise":
        raise error
    warnings.warn(f"{error}; skipped", CorruptLineWarning, stacklevel=4)


def _collect(path: Path, lines: Iterable[Line], parse: Callable[[Line, str], list[Example]],
             on_error: str, start: int = 1) -> list[Example]:
    """Run ``parse(line, source)`` over numbered non-blank lines, handling ValueErrors."""
    _check_on_error(on_error)
    examples: list[Example] = []
    for lineno, line in enumerate(lines, start):
        if not line.strip():
            continue
        try:
            examples.extend(parse(line, f"{path.name}:{lineno}"))
        except ValueError as exc:
            _report(path, lineno, f"{exc} (line: {_excerpt(line)})", on_error)
    return examples


def _int_label(token: str, n_labels: int) -> int:
    """Parse an integer class label in ``0..n_labels-1``."""
    try:
        label = int(token)
    except ValueError:
        raise ValueError(f"label {token!r} is not an integer") from None
    if not 0 <= label < n_labels:
        raise ValueError(f"label {label} is outside 0..{n_labels - 1}")
    return label


def _split_label(line: str) -> tuple[str, str]:
    """Split ``"label sentence"`` into the label token and the stripped sentence."""
    parts = line.split(None, 1)
    return parts[0], parts[1].strip() if len(parts) > 1 else ""


# --------------------------------------------------------------------------- NLI


def _str_field(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} is missing or not a string")
    return value


def _parse_nli_record(raw: bytes, source: str) -> list[Example]:
    """One SNLI/MultiNLI jsonl record -> [Example], or [] when ``gold_label == "-"``."""
    record = json.loads(raw.decode("utf-8"))
    if not isinstance(record, dict):
        raise ValueError("expected a JSON object")
    gold = _str_field(record, "gold_label")
    premise = _str_field(record, "sentence1")
    hypothesis = _str_field(record, "sentence2")
    if gold == "-":
        return []
    if gold not in NLI_LABELS:
        raise ValueError(f"gold_label {gold!r} is not one of {list(NLI_LABELS)} or '-'")
    return [Example(premise, NLI_LABELS.index(gold), hypothesis, source)]


def load_nli_jsonl(path: StrPath, on_error: str = "raise") -> list[Example]:
    """Load an official SNLI 1.0 / MultiNLI ``.jsonl`` file, plain or ``.gz``.

    Uses ``sentence1`` (text), ``sentence2`` (hypothesis) and ``gold_label``;
    pairs with ``gold_label == "-"`` (no annotator consensus) are dropped.
    Labels index :data:`NLI_LABELS`. The file is streamed line by line.
    """
    path = require_file(path, "nli")
    with _open_binary(path) as handle:
        return _collect(path, handle, _parse_nli_record, on_error)


def load_snli(split: str, data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load SNLI ``split`` (train/dev/test) from ``snli/snli_1.0_{split}.jsonl[.gz]``.

    Also accepts ``snli/snli_1.0/snli_1.0_{split}.jsonl`` (the layout of the
    unzipped official download).
    """
    _check_choice("split", split, ("train", "dev", "test"))
    folder = _resolve_root(data_dir) / "snli"
    name = f"snli_1.0_{split}.jsonl"
    candidates = [folder / name, folder / f"{name}.gz", folder / "snli_1.0" / name]
    return load_nli_jsonl(_first_existing(candidates, "snli"), on_error)


def _sick_columns(header: str) -> tuple[int, int, int]:
    """Indices of sentence_A, sentence_B and the entailment label in a SICK header."""
    names = header.split("\t")
    label_names = [n for n in ("entailment_judgment", "entailment_label") if n in names]
    missing = [n for n in ("sentence_A", "sentence_B") if n not in names]
    if missing or not label_names:
        raise ValueError(f"header {names} lacks {missing or ['entailment_judgment']}; expected "
                         "pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment")
    return names.index("sentence_A"), names.index("sentence_B"), names.index(label_names[0])


def _parse_sick_row(line: str, source: str, columns: tuple[int, int, int]) -> list[Example]:
    """One SICK TSV row -> [Example] with an NLI_LABELS index."""
    fields = line.split("\t")
    if len(fields) <= max(columns):
        raise ValueError(f"expected at least {max(columns) + 1} tab-separated fields, "
                         f"found {len(fields)}")
    text, hypothesis, judgment = (fields[i].strip() for i in columns)
    if judgment.lower() not in NLI_LABELS:
        raise ValueError(f"entailment label {judgment!r} is not one of "
                         "ENTAILMENT, NEUTRAL, CONTRADICTION")
    if not text or not hypothesis:
        raise ValueError("empty sentence_A or sentence_B")
    return [Example(text, NLI_LABELS.index(judgment.lower()), hypothesis, source)]


def load_sick(data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load all pairs of ``sick/SICK.txt`` (tab-separated, first line a header).

    Columns are found by name: ``sentence_A`` (text), ``sentence_B`` (hypothesis)
    and ``entailment_judgment`` (or ``entailment_label`` as in the official
    release); ENTAILMENT/NEUTRAL/CONTRADICTION map to :data:`NLI_LABELS`.
    A bad header always raises :class:`CorruptLineError` (line 1).
    """
    path = require_file(_resolve_root(data_dir) / "sick" / "SICK.txt", "sick")
    lines = _text_lines(path)
    try:
        columns = _sick_columns(lines[0] if lines else "")
    except ValueError as exc:
        raise CorruptLineError(path, 1, str(exc)) from None
    parse = partial(_parse_sick_row, columns=columns)
    return _collect(path, lines[1:], parse, on_error, start=2)


# --------------------------------------------------------------------------- SST


_PTB_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class _OpenNode:
    """A tree node whose closing parenthesis has not been read yet."""

    index: int
    words: int = 0
    children: int = 0


def _ptb_label(tokens: list[str], position: int) -> int:
    """The integer label that must follow the ``(`` at ``tokens[position - 1]``."""
    if position >= len(tokens) or tokens[position] in ("(", ")"):
        raise ValueError(f"'(' at token {position} is not followed by a label")
    try:
        return int(tokens[position])
    except ValueError:
        raise ValueError(f"node label {tokens[position]!r} is not an integer") from None


def _close_node(nodes: list[tuple[int, list[str]]], stack: list[_OpenNode]) -> None:
    """Pop the innermost open node and add its span to its parent."""
    if not stack:
        raise ValueError("unbalanced ')': no open node")
    node = stack.pop()
    if node.words + node.children == 0:
        raise ValueError("node has neither a word nor children")
    if node.words and node.children:
        raise ValueError(f"node over {nodes[node.index][1]} mixes words and child nodes")
    if stack:
        nodes[stack[-1].index][1].extend(nodes[node.index][1])
        stack[-1].children += 1


def parse_ptb_tree(line: str) -> list[tuple[int, list[str]]]:
    """Parse one SST tree, e.g. ``(3 (2 It) (4 (2 's) (3 good)))``.

    Returns every labelled node as ``(label, tokens of its span)`` in pre-order,
    the root first. A node holds either child nodes or words (usually one; the
    real treebank has a few multi-word leaves such as ``(2 8 1\\/2)``). Words are
    runs of characters other than whitespace and parentheses (``-LRB-``,
    ``\\/``, ``'s``, ``n't`` stay as they are). Raises ValueError on malformed input.
    """
    tokens = _PTB_TOKEN.findall(line)
    nodes: list[tuple[int, list[str]]] = []
    stack: list[_OpenNode] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "(":
            if nodes and not stack:
                raise ValueError("text continues after the root node closed")
            nodes.append((_ptb_label(tokens, position + 1), []))
            stack.append(_OpenNode(len(nodes) - 1))
            position += 2
            continue
        if token == ")":
            _close_node(nodes, stack)
        elif not stack:
            raise ValueError(f"word {token!r} outside any node")
        else:
            nodes[stack[-1].index][1].append(token)
            stack[-1].words += 1
        position += 1
    if stack:
        raise ValueError(f"{len(stack)} unclosed '('")
    if not nodes:
        raise ValueError("no tree on this line")
    return nodes


def _parse_sst_tree(line: str, source: str, phrases: bool, copies: int) -> list[Example]:
    """Examples of one SST tree: the root only, or every node; balanced copies."""
    nodes = parse_ptb_tree(line)
    for label, _ in nodes:
        if not 0 <= label < len(SST5_LABELS):
            raise ValueError(f"label {label} is outside 0..{len(SST5_LABELS) - 1}")
    examples: list[Example] = []
    for position, (label, tokens) in enumerate(nodes if phrases else nodes[:1]):
        repeat = copies if position == 0 or label != SST_NEUTRAL else 1
        examples.extend([Example(" ".join(tokens), label, source=source)] * repeat)
    return examples


def load_sst_trees(split: str, data_dir: StrPath | None = None, phrases: bool = False,
                   balance: bool = False, on_error: str = "raise",
                   balance_copies: int = BALANCE_COPIES) -> list[Example]:
    """Load SST PTB trees from ``sst/trees/{split}.txt`` (labels index SST5_LABELS).

    ``phrases=False``: one Example per tree (the root, i.e. the whole sentence).
    ``phrases=True``: one Example per labelled node of every tree, root first,
    leaves included, duplicates across trees kept (DiSAN's ``only_sentence=False``).
    ``balance=True`` (needs ``phrases=True``): every whole sentence and every
    phrase whose label is not neutral (2) appears ``balance_copies`` times in a
    row (default 4 = original + 3 extra copies, as in the DiSAN release);
    neutral non-root phrases appear once.

    For ``train`` only the first :data:`SST_TRAIN_SENTENCES` (8,544) lines are
    read: some public copies append the dev trees to ``train.txt``.
    """
    _check_choice("split", split, ("train", "dev", "test"))
    if balance and not phrases:
        raise ValueError("balance=True repeats phrases and needs phrases=True")
    if balance_copies < 1:
        raise ValueError(f"balance_copies must be >= 1, got {balance_copies}")
    path = require_file(_resolve_root(data_dir) / "sst" / "trees" / f"{split}.txt", "sst")
    lines = _text_lines(path)
    if split == "train":
        lines = lines[:SST_TRAIN_SENTENCES]
    parse = partial(_parse_sst_tree, phrases=phrases, copies=balance_copies if balance else 1)
    return _collect(path, lines, parse, on_error)


def sst2_from_sst5(examples: Iterable[Example]) -> list[Example]:
    """Map SST-5 examples to SST-2: drop neutral (2), 0/1 -> 0, 3/4 -> 1."""
    return [replace(ex, label=int(ex.label > SST_NEUTRAL))
            for ex in examples if ex.label != SST_NEUTRAL]


def _parse_labelled(line: str, source: str, n_labels: int) -> list[Example]:
    """``"label sentence"`` -> [Example]; [] when the sentence is empty."""
    token, text = _split_label(line)
    label = _int_label(token, n_labels)
    return [Example(text, label, source=source)] if text else []


def _load_labelled(path: Path, n_labels: int, on_error: str) -> list[Example]:
    return _collect(path, _text_lines(path), partial(_parse_labelled, n_labels=n_labels), on_error)


def load_sst_sentences(split: str, fine: bool = True, data_dir: StrPath | None = None,
                       on_error: str = "raise") -> list[Example]:
    """Load ``sst/sentences/stsa.{fine,binary}.{split}`` (``label sentence`` lines).

    ``fine=True``: labels 0-4 (SST5_LABELS); ``fine=False``: labels 0-1 (SST2_LABELS).
    """
    _check_choice("split", split, ("train", "dev", "test"))
    kind, labels = ("fine", SST5_LABELS) if fine else ("binary", SST2_LABELS)
    path = require_file(_resolve_root(data_dir) / "sst" / "sentences" / f"stsa.{kind}.{split}", "sst")
    return _load_labelled(path, len(labels), on_error)


# --------------------------------------------------------------------------- SentEval / TREC


def _trec_label(token: str) -> int:
    """TREC label token -> TREC_LABELS index.

    Accepts the numeric codes of the ``TREC.*.all`` files (see TREC_FILE_CODES)
    and the original UIUC ``COARSE:fine`` form (e.g. ``DESC:manner``).
    """
    if ":" in token:
        coarse = token.split(":", 1)[0]
        if coarse not in TREC_LABELS:
            raise ValueError(f"TREC coarse label {coarse!r} is not one of {list(TREC_LABELS)}")
        return TREC_LABELS.index(coarse)
    return TREC_LABELS.index(TREC_FILE_CODES[_int_label(token, len(TREC_FILE_CODES))])


def _parse_trec(line: str, source: str) -> list[Example]:
    token, text = _split_label(line)
    label = _trec_label(token)
    return [Example(text, label, source=source)] if text else []


def load_trec(split: str, data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load TREC ``train`` (5,452) or ``test`` (500) from ``senteval/TREC.{split}.all``.

    Lines are ``label question``; labels index :data:`TREC_LABELS` (6 coarse classes).
    Files are decoded as UTF-8 with a per-file Latin-1 fallback.
    """
    _check_choice("split", split, ("train", "test"))
    path = require_file(_resolve_root(data_dir) / "senteval" / f"TREC.{split}.all", "trec")
    return _collect(path, _text_lines(path), _parse_trec, on_error)


def load_senteval(name: str, data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load all of SUBJ, MPQA or CR (``senteval/{subj,mpqa,custrev}.all``).

    Lines are ``label sentence`` with binary labels (SUBJ_LABELS, MPQA_LABELS,
    CR_LABELS); UTF-8 with a per-file Latin-1 fallback. Lines whose sentence is
    empty (a few in mpqa.all and custrev.all) are dropped. For TREC use
    :func:`load_trec`.
    """
    if name == "trec":
        raise ValueError("TREC has official splits: use load_trec('train') / load_trec('test')")
    _check_choice("name", name, tuple(_SENTEVAL_FILES))
    path = require_file(_resolve_root(data_dir) / "senteval" / _SENTEVAL_FILES[name], name)
    return _load_labelled(path, len(_SENTEVAL_LABELS[name]), on_error)


# --------------------------------------------------------------------------- splits


def _permutation(n: int, seed: int) -> list[int]:
    """A deterministic permutation of ``range(n)`` (stdlib ``random``, stable across runs)."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return order


def _partition(examples: Sequence[E], chosen: set[int]) -> tuple[list[E], list[E]]:
    """(examples not in chosen, examples in chosen), both in original order."""
    rest = [ex for i, ex in enumerate(examples) if i not in chosen]
    picked = [ex for i, ex in enumerate(examples) if i in chosen]
    return rest, picked


def train_dev_split(examples: Sequence[E], dev_fraction: float, seed: int) -> tuple[list[E], list[E]]:
    """Deterministically hold out ``round(len * dev_fraction)`` examples.

    Returns ``(train, dev)``, disjoint, each in the input order. The same
    ``examples``, ``dev_fraction`` and ``seed`` always give the same split.
    """
    if not 0.0 <= dev_fraction < 1.0:
        raise ValueError(f"dev_fraction must be in [0, 1), got {dev_fraction}")
    n_dev = round(len(examples) * dev_fraction)
    return _partition(examples, set(_permutation(len(examples), seed)[:n_dev]))


def kfold(examples: Sequence[E], k: int = 10, seed: int = 0) -> Iterator[tuple[list[E], list[E]]]:
    """Yield ``(train, test)`` for k-fold cross-validation over a shuffled order.

    Fold sizes differ by at most one; every example is in exactly one test fold.
    """
    if not 2 <= k <= len(examples):
        raise ValueError(f"k must be between 2 and the number of examples ({len(examples)}), got {k}")
    order = _permutation(len(examples), seed)
    size, extra = divmod(len(examples), k)
    start = 0
    for fold in range(k):
        stop = start + size + (1 if fold < extra else 0)
        yield _partition(examples, set(order[start:stop]))
        start = stop


def _three_way(examples: Sequence[E], seed: int) -> dict[str, list[E]]:
    """Fixed 80/10/10 train/dev/test split (test first, then dev from the rest)."""
    rest, test = train_dev_split(examples, SENTEVAL_HOLDOUT_FRACTION, seed)
    dev_share = SENTEVAL_HOLDOUT_FRACTION / (1.0 - SENTEVAL_HOLDOUT_FRACTION)
    train, dev = train_dev_split(rest, dev_share, seed)
    return {"train": train, "dev": dev, "test": test}


# --------------------------------------------------------------------------- tasks


def _sst_task(split: str, root: StrPath | None, *, fine: bool, phrases: bool | None = None,
              balance: bool = False, balance_copies: int = BALANCE_COPIES,
              on_error: str = "raise") -> list[Example]:
    """SST from trees: phrases (train) or sentences (dev/test); binary drops neutral."""
    examples = load_sst_trees(split, root, phrases=split == "train" if phrases is None else phrases,
                              balance=balance, on_error=on_error, balance_copies=balance_copies)
    return examples if fine else sst2_from_sst5(examples)


def _nli_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    """SNLI dev + SICK for train/dev (5% held out, seed 13); SNLI test for test."""
    if split == "test":
        return load_snli("test", root, on_error)
    pool = load_snli("dev", root, on_error) + load_sick(root, on_error)
    train, dev = train_dev_split(pool, NLI_DEV_FRACTION, HELDOUT_SEED)
    return train if split == "train" else dev


def _snli_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    return load_snli(split, root, on_error)


def _trec_task(split: str, root: StrPath | None, *, on_error: str = "raise") -> list[Example]:
    """Official TREC test; dev = 10% of official train (seed 13), train = the rest."""
    if split == "test":
        return load_trec("test", root, on_error)
    train, dev = train_dev_split(load_trec("train", root, on_error), TREC_DEV_FRACTION, HELDOUT_SEED)
    return train if split == "train" else dev


def _senteval_task(split: str, root: StrPath | None, *, name: str,
                   on_error: str = "raise") -> list[Example]:
    """SUBJ/MPQA/CR: 'all', or a fixed 80/10/10 split (seed 13)."""
    examples = load_senteval(name, root, on_error)
    return examples if split == "all" else _three_way(examples, HELDOUT_SEED)[split]


_TASK_LOADERS: Mapping[str, Callable[..., list[Example]]] = MappingProxyType({
    "sst5": partial(_sst_task, fine=True),
    "sst2": partial(_sst_task, fine=False),
    "nli": _nli_task,
    "snli": _snli_task,
    "trec": _trec_task,
    "subj": partial(_senteval_task, name="subj"),
    "mpqa": partial(_senteval_task, name="mpqa"),
    "cr": partial(_senteval_task, name="cr"),
})
_TASK_SPLITS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    task: ("train", "dev", "test", "all") if task in _SENTEVAL_FILES else ("train", "dev", "test")
    for task in _TASK_LOADERS
})


def load_task(task: str, split: str, data_dir: StrPath | None = None, **kw: object) -> list[Example]:
    """Load ``split`` of ``task`` as used for training and evaluation.

    - ``sst5``/``sst2``: SST trees; train = all phrases (``phrases=True``), dev/test
      = whole sentences; kw ``phrases``, ``balance``, ``balance_copies`` override.
      sst2 maps labels via :func:`sst2_from_sst5` (neutral dropped).
    - ``nli``: train = SNLI dev + SICK minus a 5% held-out slice (seed 13),
      dev = that slice, test = SNLI test. No SNLI train needed.
    - ``snli``: official SNLI splits (train needs ``snli_1.0_train.jsonl``).
    - ``trec``: official train/test; dev = 10% of train (seed 13), train = the rest.
    - ``subj``/``mpqa``/``cr``: ``all``, or a fixed 80/10/10 train/dev/test
      split (seed 13); use :func:`kfold` on ``all`` for cross-validation.

    Every task accepts kw ``on_error``. Pair tasks are listed in :data:`PAIR_TASKS`.
    """
    _check_choice("task", task, tuple(_TASK_LOADERS))
    _check_choice(f"split for task {task!r}", split, _TASK_SPLITS[task])
    return _TASK_LOADERS[task](split, data_dir, **kw)
