"""Evaluation: ``python -m disan evaluate --model NAME --task ...``.

Reports accuracy, per-class accuracy, the confusion matrix and accuracy by
sentence-length bucket (Shen Fig. 5, Im Fig. 6: average length of the pair);
for a relatedness model (SICK) Pearson's r, Spearman's ρ and MSE (Shen Table 4), with every pair's gold
and predicted score (``scores_f32``: what the Models view's scatter and a bootstrap over pairs need).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from .data import Example
from .errors import InputError
from .model import SentenceModel
from .relatedness import expected_score, relatedness_metrics
from .vocab import tokenize

#: Upper bounds of the length buckets (tokens; pairs use the mean of both).
LENGTH_BUCKETS = (5, 10, 15, 20, 25, 30, 40, 60, 1_000_000)


@dataclass(frozen=True)
class Encoded:
    """Tokenised examples: premise tokens, hypothesis tokens (or None), labels and graded scores (or None)."""

    premises: tuple[tuple[str, ...], ...]
    hypotheses: tuple[tuple[str, ...], ...] | None
    labels: np.ndarray
    scores: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.premises)

    def lengths(self) -> np.ndarray:
        """Per example: the longer sentence's length (what padding costs)."""
        p = np.array([len(t) for t in self.premises])
        if self.hypotheses is None:
            return p
        return np.maximum(p, np.array([len(t) for t in self.hypotheses]))

    def mean_lengths(self) -> np.ndarray:
        """Per example: sentence length, or the pair's average length (Im Fig. 5)."""
        p = np.array([len(t) for t in self.premises], dtype=float)
        return p if self.hypotheses is None else (p + np.array([len(t) for t in self.hypotheses])) / 2

    def all_token_lists(self) -> list[tuple[str, ...]]:
        return list(self.premises) + list(self.hypotheses or ())

    def batch(self, idx: Sequence[int]) -> tuple[list, list | None, torch.Tensor]:
        """Premises, hypotheses and the targets: float scores (B,) for graded data, else label ids (B,)."""
        prem = [self.premises[i] for i in idx]
        hyp = [self.hypotheses[i] for i in idx] if self.hypotheses is not None else None
        if self.scores is not None:
            return prem, hyp, torch.as_tensor(self.scores[np.asarray(idx)], dtype=torch.float32)
        return prem, hyp, torch.as_tensor(self.labels[np.asarray(idx)], dtype=torch.long)


def encode_examples(examples: Sequence[Example], max_len: int = 128) -> Encoded:
    """Tokenise once; empty texts become ``<unk>`` and long ones are cut to ``max_len``."""

    def tok(text: str) -> tuple[str, ...]:
        return tuple(tokenize(text)[:max_len]) or ("<unk>",)

    pair = any(e.hypothesis is not None for e in examples)
    graded = bool(examples) and all(e.score is not None for e in examples)
    return Encoded(
        premises=tuple(tok(e.text) for e in examples),
        hypotheses=tuple(tok(e.hypothesis or "") for e in examples) if pair else None,
        labels=np.array([e.label for e in examples], dtype=np.int64),
        scores=np.array([e.score for e in examples], dtype=np.float64) if graded else None,
    )


@torch.inference_mode()
def _per_example(model: SentenceModel, data: Encoded, of_logits, dtype, batch_size: int) -> np.ndarray:
    """``of_logits(logits)`` for every example, batched by length (similar lengths pad little): (n,)."""
    model.eval()
    order = np.argsort(data.lengths(), kind="stable")
    out = np.zeros(len(data), dtype=dtype)
    for start in range(0, len(order), batch_size):
        idx = order[start : start + batch_size]
        prem, hyp, _ = data.batch(idx)
        logits, _, _ = model(prem, hyp)  # (B, labels)
        out[idx] = of_logits(logits).cpu().numpy()
    return out


def predict_encoded(model: SentenceModel, data: Encoded, batch_size: int = 256) -> np.ndarray:
    """Predicted label ids for every example, batched by length."""
    return _per_example(model, data, lambda logits: logits.argmax(-1), np.int64, batch_size)


def accuracy(model: SentenceModel, data: Encoded) -> float:
    return float((predict_encoded(model, data) == data.labels).mean()) if len(data) else 0.0


def predict_scores(model: SentenceModel, data: Encoded, batch_size: int = 256) -> np.ndarray:
    """A relatedness model's score rᵀp̂ for every pair, batched by length: (n,)."""
    return _per_example(model, data, expected_score, np.float64, batch_size)


def dev_metric(model: SentenceModel, data: Encoded) -> tuple[str, float]:
    """The model-selection measure on dev: (history key, value); higher is better.

    Accuracy for classifiers; Pearson's r for relatedness models (Shen Table 4's first measure).
    """
    if model.cfg.relatedness:
        return "dev_pearson", relatedness_metrics(data.scores, predict_scores(model, data))["pearson_r"]
    return "dev_acc", accuracy(model, data)


def pack_correct(correct: np.ndarray) -> str:
    """Per-example correctness (in the split's file order) as base64 bits: what a paired bootstrap needs."""
    return base64.b64encode(np.packbits(correct.astype(bool)).tobytes()).decode("ascii")


def unpack_correct(packed: str, n: int) -> np.ndarray:
    """(n,) bool, the inverse of ``pack_correct``."""
    return np.unpackbits(np.frombuffer(base64.b64decode(packed), dtype=np.uint8))[:n].astype(bool)


def pack_scores(values: np.ndarray) -> str:
    """Scores in the split's file order as base64 of little-endian float32: 4 bytes a pair, one line in the card."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def unpack_scores(packed: str, n: int) -> np.ndarray:
    """(n,) float64, the inverse of ``pack_scores``; a string of another length is refused, naming both lengths."""
    raw = base64.b64decode(packed)
    if len(raw) != 4 * n:
        raise ValueError(f"packed scores hold {len(raw) // 4} values, not the report's n = {n}; re-evaluate the model.")
    return np.frombuffer(raw, dtype="<f4").astype(np.float64)


def metrics(labels: np.ndarray, preds: np.ndarray, names: Sequence[str], lengths: np.ndarray) -> dict:
    """Accuracy, per-class accuracy, confusion matrix (rows = gold), accuracy by length bucket and
    the per-example correctness bits (``correct_bits``, see ``pack_correct``)."""
    k = len(names)
    confusion = np.zeros((k, k), dtype=np.int64)
    np.add.at(confusion, (labels, preds), 1)
    per_class = {
        name: (float(confusion[i, i] / confusion[i].sum()) if confusion[i].sum() else None)
        for i, name in enumerate(names)
    }
    buckets = []
    lower = 0
    for upper in LENGTH_BUCKETS:
        sel = (lengths > lower) & (lengths <= upper)
        if sel.any():
            label = f"{lower + 1}-{upper}" if upper < LENGTH_BUCKETS[-1] else f">{lower}"
            buckets.append({"lengths": label, "n": int(sel.sum()), "accuracy": float((labels[sel] == preds[sel]).mean())})
        lower = upper
    from .stats import bootstrap_ci

    correct = labels == preds
    f1 = [2 * confusion[i, i] / (confusion[i].sum() + confusion[:, i].sum()) for i in range(k)
          if confusion[i].sum() + confusion[:, i].sum()]
    return {
        "n": int(len(labels)),
        "accuracy": float(correct.mean()) if len(labels) else 0.0,
        # percentile bootstrap over examples (disan.stats.bootstrap_ci: 95%, seeded)
        "accuracy_ci95": list(bootstrap_ci(correct.astype(float))),
        # mean over the classes that occur in gold or predictions of 2·TP / (2·TP + FP + FN)
        "macro_f1": float(np.mean(f1)) if f1 else None,
        "per_class_accuracy": per_class,
        "confusion_matrix": {"labels": list(names), "rows_gold_cols_pred": confusion.tolist()},
        "accuracy_by_length": buckets,
        "correct_bits": pack_correct(labels == preds),
    }


def evaluate(model: SentenceModel, examples: Sequence[Example], max_len: int | None = None) -> dict:
    """Full evaluation report of ``model`` on labelled examples."""
    data = encode_examples(examples, max_len or model.cfg.max_tokens)
    if model.cfg.relatedness:
        if data.scores is None:
            raise InputError(f"Model {model.name!r} scores relatedness; evaluate it on --task sick.")
        predicted = predict_scores(model, data)
        from .relatedness import RELATEDNESS_MEASURES
        from .stats import bootstrap_ci

        # each measure's 95% percentile bootstrap over the pairs (sentences), resampled together (disan.stats)
        return {**relatedness_metrics(data.scores, predicted),
                **{f"{m}_ci95": list(bootstrap_ci((data.scores, predicted), fn)) for m, fn in RELATEDNESS_MEASURES.items()},
                "scores_f32": {"gold": pack_scores(data.scores), "predicted": pack_scores(predicted)}}
    preds = predict_encoded(model, data)
    return metrics(data.labels, preds, model.cfg.labels, data.mean_lengths())
