"""Honest splits: test examples that appear verbatim, after the model's tokenisation, in train or dev.

An example's key is its token tuple (a pair's: both), as ``disan.vocab.tokenize`` gives them, so two texts
that differ only in spacing or in the characters the tokeniser cleans are the same example to the model.
``overlap`` reports how many test examples are duplicates and the test score on the duplicate-free part beside
the whole (accuracy; for a relatedness model Pearson's r and MSE).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data import Example
from .vocab import tokenize


def key(example: Example) -> tuple:
    return (tuple(tokenize(example.text)),
            None if example.hypothesis is None else tuple(tokenize(example.hypothesis)))


def duplicate_mask(test: Sequence[Example], others: Sequence[Example]) -> np.ndarray:
    """(n_test,) bool: whether each test example's key is also some example's of ``others``."""
    seen = {key(e) for e in others}
    return np.array([key(e) in seen for e in test], dtype=bool)


def overlap(test: Sequence[Example], parts: dict[str, Sequence[Example]], report: dict) -> dict:
    """Duplicates of ``test`` in each of ``parts`` (train, dev) and the evaluation ``report``'s score without them.

    ``report`` is ``disan.evaluate.evaluate``'s: its ``correct_bits`` (a classifier) or ``scores_f32``
    (a relatedness model) give the per-example results in test order.
    """
    masks = {name: duplicate_mask(test, examples) for name, examples in parts.items()}
    dup = np.zeros(len(test), dtype=bool)
    for mask in masks.values():
        dup |= mask
    out = {"n_test": len(test), **{f"in_{name}": int(m.sum()) for name, m in masks.items()},
           "duplicates": int(dup.sum()), "n_duplicate_free": int((~dup).sum()),
           "compared_with": sorted(parts), "tokenised_by": "disan.vocab.tokenize"}
    if "correct_bits" in report:
        from .evaluate import unpack_correct

        correct = unpack_correct(report["correct_bits"], len(test))
        out["accuracy_duplicate_free"] = float(correct[~dup].mean()) if (~dup).any() else None
        out["accuracy_duplicates"] = float(correct[dup].mean()) if dup.any() else None
    elif "scores_f32" in report:
        from .evaluate import unpack_scores
        from .relatedness import mse, pearson

        gold = unpack_scores(report["scores_f32"]["gold"], len(test))
        predicted = unpack_scores(report["scores_f32"]["predicted"], len(test))
        out["pearson_r_duplicate_free"] = pearson(gold[~dup], predicted[~dup])
        out["mse_duplicate_free"] = mse(gold[~dup], predicted[~dup])
    return out


def overlap_line(block: dict) -> str:
    """One sentence for the terminal and the card."""
    parts = ", ".join(f"{block.get('in_' + name, 0):,} in {name}" for name in block["compared_with"])
    head = (f"{block['duplicates']:,} of {block['n_test']:,} test examples appear verbatim after tokenisation in "
            f"train/dev ({parts})")
    if "accuracy_duplicate_free" in block:
        free = block["accuracy_duplicate_free"]
        dups = block["accuracy_duplicates"]
        tail = (f"; accuracy on the {block['n_duplicate_free']:,} duplicate-free: "
                f"{'–' if free is None else f'{100 * free:.2f}%'}"
                + ("" if dups is None else f", on the duplicates: {100 * dups:.2f}%"))
    elif "pearson_r_duplicate_free" in block:
        tail = (f"; on the {block['n_duplicate_free']:,} duplicate-free: Pearson's r "
                f"{block['pearson_r_duplicate_free']:.4f}, MSE {block['mse_duplicate_free']:.4f}")
    else:
        tail = ""
    return head + tail
