"""The labelled example every loader returns, and the argument check they share."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from ..errors import InputError

StrPath = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Example:
    """One labelled example.

    ``text`` is the sentence (the premise for pair tasks), ``hypothesis`` the
    second sentence of a pair or ``None``; ``label`` indexes the task's label
    tuple; ``source`` is ``"<file name>:<1-based line>"``; ``score`` is a
    graded gold value (SICK relatedness, 1-5) or ``None`` for class-only tasks.
    """

    text: str
    label: int
    hypothesis: str | None = None
    source: str = ""
    score: float | None = None


def _check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r}; choose one of them.")
