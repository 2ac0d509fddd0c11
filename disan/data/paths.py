"""Where the datasets live, and the error that says where to download a missing one."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from ..errors import DisanError
from ..locations import CHECKOUT, PACKAGE
from .example import StrPath

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


class DataFileError(DisanError, FileNotFoundError):
    """A dataset file or the dataset folder is missing; the message says where to get it or how to name it."""

    def __init__(self, message: str, path: StrPath | None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)  # None: no dataset folder was given at all


def data_dir(path: StrPath | None = None) -> Path:
    """Resolve the dataset root folder.

    Order: ``path`` if given; else ``$DISAN_DATA_DIR`` if set and non-empty; else, inside a checkout
    only, ``<repo root>/../shared/data`` if that folder exists, else ``../shared/data`` relative to the
    current working directory. An installed package has no default and raises :class:`DataFileError`.
    The result is not checked for existence: loaders raise :class:`DataFileError`.
    """
    return _resolve_root(path)


def _resolve_root(path: StrPath | None) -> Path:
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get("DISAN_DATA_DIR", "")
    if env:
        return Path(env).expanduser()
    if CHECKOUT is None:  # beside site-packages, ../shared/data would name an unrelated folder
        raise DataFileError(
            "No dataset folder given: pass --data-dir DIR or set DISAN_DATA_DIR=DIR (the default "
            f"../shared/data applies only inside a repository checkout, and disan is installed at {PACKAGE}).",
            None,
        )
    beside_repo = CHECKOUT.parent / "shared" / "data"
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
