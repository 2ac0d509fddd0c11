"""Deterministic held-out splits and k-fold cross-validation."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import TypeVar

E = TypeVar("E")
SENTEVAL_HOLDOUT_FRACTION = 0.10


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
