"""Seeded, stratified k-fold cross-validation with a dev slice from each training part, and its record.

Shen Table 5 reports CR, MPQA and SUBJ as the mean of 10-fold cross-validation. Fold ``f``'s test
part is the examples assigned to ``f``; its training part is the other k-1 folds, from which a
stratified dev slice (1/``dev_parts`` of it, the same size as a test part by default) is held out
for model selection. The assignment is a pure function of the labels and the seed, and
:func:`fold_record` writes it down so a run says exactly which examples it never saw.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..errors import InputError
from .example import Example
from .labels import CV_TASKS

CV_FOLDS = 10
CV_SEED = 13
#: The training part (k-1 folds) is cut into this many stratified parts; one is the dev slice,
#: so each fold trains on 8/10 of the data, selects on 1/10 and tests on 1/10.
CV_DEV_PARTS = CV_FOLDS - 1


def check_fold(task: str, fold: int | None) -> None:
    """``--fold`` (train and evaluate) belongs to the cross-validated tasks only, and names one of their folds."""
    if fold is None:
        return
    if task not in CV_TASKS:
        raise InputError(f"--fold {fold} applies to the cross-validated tasks ({', '.join(sorted(CV_TASKS))}), "
                         f"not to --task {task}; drop --fold.")
    if not 0 <= fold < CV_FOLDS:
        raise InputError(f"--fold {fold} does not exist; use a fold from 0 to {CV_FOLDS - 1}.")


def stratified_folds(labels: Sequence[int], k: int = CV_FOLDS, seed: int = CV_SEED) -> list[int]:
    """The fold (0..k-1) of every example, stratified by label.

    Each class's examples are shuffled (seeded) and dealt to the folds in turn, each class starting
    where the previous one stopped: every fold gets each class's count to within one, and fold
    sizes differ by at most one.
    """
    labels = np.asarray(labels)
    if not 2 <= k <= len(labels):
        raise ValueError(f"k must be between 2 and the number of examples ({len(labels)}), got {k}")
    rng = np.random.default_rng(seed)
    folds = np.empty(len(labels), dtype=np.int64)
    start = 0
    for label in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == label))  # (n_c,)
        folds[members] = (start + np.arange(len(members))) % k
        start = (start + len(members)) % k
    return folds.tolist()


def fold_indices(labels: Sequence[int], fold: int, k: int = CV_FOLDS, seed: int = CV_SEED,
                 dev_parts: int = CV_DEV_PARTS) -> dict[str, list[int]]:
    """Indices (ascending) of fold ``fold``'s train, dev and test parts; disjoint, covering all.

    The dev slice is the first of ``dev_parts`` stratified parts of the training part, drawn with
    a seed of its own per fold (``seed * 1000 + fold``).
    """
    if not 0 <= fold < k:
        raise ValueError(f"fold must be between 0 and {k - 1}, got {fold}")
    assignment = np.asarray(stratified_folds(labels, k, seed))
    rest = np.flatnonzero(assignment != fold)  # (n - n_test,)
    inner = np.asarray(stratified_folds(np.asarray(labels)[rest], dev_parts, seed * 1000 + fold))
    return {"train": rest[inner != 0].tolist(), "dev": rest[inner == 0].tolist(),
            "test": np.flatnonzero(assignment == fold).tolist()}


def fold_parts(examples: Sequence[Example], fold: int, k: int = CV_FOLDS, seed: int = CV_SEED,
               dev_parts: int = CV_DEV_PARTS) -> dict[str, list[Example]]:
    """Fold ``fold``'s train / dev / test examples, each in file order."""
    idx = fold_indices([ex.label for ex in examples], fold, k, seed, dev_parts)
    return {part: [examples[i] for i in rows] for part, rows in idx.items()}


def fold_record(task: str, examples: Sequence[Example], fold: int, k: int = CV_FOLDS,
                seed: int = CV_SEED, dev_parts: int = CV_DEV_PARTS) -> dict:
    """A JSON-able record of the assignment a run used: every example's fold and this fold's parts.

    Examples are named by ``source`` (``file:line``); ``examples_sha256`` digests sources, labels
    and texts, so a record can be checked against the data it was drawn from.
    """
    labels = [ex.label for ex in examples]
    digest = hashlib.sha256()
    for ex in examples:
        digest.update(f"{ex.source}\t{ex.label}\t{ex.text}\n".encode())
    idx = fold_indices(labels, fold, k, seed, dev_parts)
    return {
        "task": task, "k": k, "seed": seed, "dev_parts": dev_parts, "fold": fold,
        "n_examples": len(examples), "examples_sha256": digest.hexdigest(),
        "sources": [ex.source for ex in examples],
        "fold_of_example": stratified_folds(labels, k, seed),
        "this_fold": {part: {"n": len(rows), "indices": rows} for part, rows in idx.items()},
    }
