"""Shared readers: plain/gzip files, decoding, numbered lines and corrupt-line handling."""

from __future__ import annotations

import gzip
import warnings
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import BinaryIO, TypeVar

from ..errors import DisanError
from .example import Example, StrPath, _check_choice

Line = TypeVar("Line", str, bytes)
ON_ERROR_CHOICES = ("raise", "skip")


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


def _parse_labelled(line: str, source: str, n_labels: int) -> list[Example]:
    """``"label sentence"`` -> [Example]; [] when the sentence is empty."""
    token, text = _split_label(line)
    label = _int_label(token, n_labels)
    return [Example(text, label, source=source)] if text else []


def _load_labelled(path: Path, n_labels: int, on_error: str) -> list[Example]:
    return _collect(path, _text_lines(path), partial(_parse_labelled, n_labels=n_labels), on_error)
