"""SentEval classification files: TREC (official splits), SUBJ, MPQA and CR."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .example import Example, StrPath, _check_choice
from .labels import CR_LABELS, MPQA_LABELS, SUBJ_LABELS, TREC_FILE_CODES, TREC_LABELS
from .lines import _collect, _int_label, _load_labelled, _split_label, _text_lines
from .paths import _resolve_root, require_file

_SENTEVAL_FILES: Mapping[str, str] = MappingProxyType({
    "subj": "subj.all", "mpqa": "mpqa.all", "cr": "custrev.all",
})
_SENTEVAL_LABELS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "subj": SUBJ_LABELS, "mpqa": MPQA_LABELS, "cr": CR_LABELS,
})


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
