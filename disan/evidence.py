"""Measure every claim of ``claims.py`` over a whole test set: ``python -m disan claims``.

Token-level claims run on the split's distinct sentences (an NLI pair's
premise and hypothesis go through the same tied encoder separately, so each
is one sentence; SNLI repeats each premise for about three hypotheses), in
batches of similar length with the trace recorded. Accuracy comes from the
fast ``predict`` path. Every interval is a percentile bootstrap over
sentences (``stats.bootstrap_ci``); the JSON layout is documented in
``docs/evidence.md`` and in ``docs/claims.schema.json``.

A relatedness model (SICK) has no accuracy: its performance is Shen Table 4's Pearson's r, Spearman's ρ and
MSE of the predicted against the gold relatedness, each with a bootstrap interval over pairs, by length too, and
a claim that compares accuracy (Shen Fig. 5, Im Fig. 6) compares Pearson's r instead (``Outcome``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from tqdm import tqdm

from .claims import (ACCURACY_BY_LENGTH, CONTEXT, IM_LONG, SENTENCE, SHEN_LONG, Claim, SentenceBatch,
                     claims_for)
from .context_pairs import ContextPairs
from .data import Example
from .errors import InputError
from .evaluate import encode_examples, pack_correct, pack_scores, predict_encoded, predict_scores
from .model import SentenceModel
from .relatedness import RELATEDNESS_MEASURES, pearson
from .stats import BOOT_SEED, N_BOOT, bootstrap_ci, paired_bootstrap_diff, verdict
from .vocab import tokenize
from .wordclass import CLASS_NAMES

#: Length buckets are [lo, lo + BUCKET_WIDTH) tokens (pairs: mean of both sentences), as in Shen Fig. 5 / Im Fig. 6.
BUCKET_WIDTH = 5
#: Sentences listed per claim as the strongest and the weakest examples of its effect.
N_EXAMPLES = 5
#: Example sentences shorter than this are listed only when too few longer ones exist.
EXAMPLE_MIN_TOKENS = 6
#: Histogram bins of each claim's distribution.
N_BINS = 30
#: Elements of the largest per-batch (B, T, T, D) tensor (DiSAN keeps it in the trace).
BATCH_ELEMENTS = 2**24
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Corpus:
    """A labelled split tokenised once, and its distinct sentences.

    lengths: (N,) tokens per example (pairs: the mean of both sentences).
    sentences / texts: the distinct token lists and one raw text of each.
    """

    examples: tuple[Example, ...]
    lengths: np.ndarray
    sentences: tuple[tuple[str, ...], ...]
    texts: tuple[str, ...]

    @property
    def pair(self) -> bool:
        return any(e.hypothesis is not None for e in self.examples)


def make_corpus(examples: Sequence[Example]) -> Corpus:
    seen: dict[tuple[str, ...], str] = {}
    lengths = []
    for e in examples:
        sides = [e.text] if e.hypothesis is None else [e.text, e.hypothesis]
        toks = [tuple(tokenize(s)) for s in sides]
        lengths.append(float(np.mean([len(t) for t in toks])))
        for t, s in zip(toks, sides):
            if t:
                seen.setdefault(t, s)
    return Corpus(tuple(examples), np.array(lengths, dtype=float), tuple(seen), tuple(seen.values()))


def batches(sentences: Sequence[Sequence[str]], width: int, max_tokens: int) -> list[list[int]]:
    """Sentence ids in batches of similar length, each under ``BATCH_ELEMENTS`` of (B, T, T, width)."""
    order = sorted(range(len(sentences)), key=lambda i: len(sentences[i]))
    out: list[list[int]] = []
    for i in order:
        T = min(len(sentences[i]), max_tokens)
        if out and (len(out[-1]) + 1) * T * T * width <= BATCH_ELEMENTS and len(out[-1]) < 256:
            out[-1].append(i)
        else:
            out.append([i])
    return out


@torch.inference_mode()
def measure_sentences(model: SentenceModel, corpus: Corpus, claims: Sequence[Claim], progress: bool = True) -> dict:
    """claim id → {"values": (S,) per distinct sentence (NaN = undefined), "groups": name → token values}."""
    model.eval()
    S = len(corpus.sentences)
    values = {c.id: np.full(S, np.nan) for c in claims if c.kind in (SENTENCE, CONTEXT)}
    groups: dict[str, dict[str, list[np.ndarray]]] = {c.id: {} for c in claims}
    pairs = ContextPairs() if any(c.kind == CONTEXT for c in claims) else None
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    bar = tqdm(total=S, desc=f"{model.name}: traces", unit="sentence", disable=not progress, leave=False)
    for ids in batches(corpus.sentences, model.cfg.d_h, model.cfg.max_tokens):
        toks = tuple(corpus.sentences[i][: model.cfg.max_tokens] for i in ids)
        x, valid = model.embed(toks)  # (B, T, d_in), (B, T)
        _, trace = model.encoder(x, valid, record=True)
        batch = SentenceBatch(toks, trace, alpha)
        for c in claims:
            if c.kind == SENTENCE:
                values[c.id][ids] = c.per_sentence(batch).double().numpy()
                for name, v in (c.tokens(batch) if c.tokens else {}).items():
                    groups[c.id].setdefault(name, []).append(v.double().numpy())
            elif c.kind == CONTEXT:
                per_sentence, r = pairs.update(batch, ids)
                values[c.id][ids] = per_sentence.double().numpy()
                groups[c.id].setdefault("word pairs", []).append(r.double().numpy())
        bar.update(len(ids))
    bar.close()
    return {cid: {"values": values.get(cid), "groups": {k: np.concatenate(v) for k, v in g.items()}}
            for cid, g in groups.items()}


def predict_correct(model: SentenceModel, corpus: Corpus) -> np.ndarray:
    """(N,) bool, prediction == gold for every example (fast path, no trace)."""
    data = encode_examples(corpus.examples, model.cfg.max_tokens)
    return predict_encoded(model, data) == data.labels


@dataclass(frozen=True)
class Outcome:
    """How a model did on each example, for the claims that compare performance (Shen Fig. 5, Im Fig. 6).

    A classifier: ``correct`` (N,) bool, measured by accuracy. A relatedness model: ``gold`` and ``predicted``
    (N,) relatedness, measured by Pearson's r (Shen Table 4's first measure; higher is better, as accuracy).
    """

    correct: np.ndarray | None = None
    gold: np.ndarray | None = None
    predicted: np.ndarray | None = None

    @property
    def relatedness(self) -> bool:
        return self.correct is None

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The per-example arrays ``measure`` takes, resampled together by a bootstrap."""
        return (self.gold, self.predicted) if self.relatedness else (self.correct.astype(float),)

    def measure(self, *arrays: np.ndarray) -> float:
        """Accuracy of (correct,), or Pearson's r of (gold, predicted); NaN on no examples."""
        if self.relatedness:
            return pearson(*arrays)
        return float(arrays[0].mean()) if arrays[0].size else float("nan")

    def statistic(self, claim: Claim) -> str:
        """The claim's statistic as measured here: a relatedness model's says Pearson's r where it says accuracy."""
        return claim.statistic.replace("accuracy", "Pearson's r (gold against predicted relatedness)", 1).replace(
            "accuracy", "Pearson's r") if self.relatedness else claim.statistic


def refuse_unscored(model: SentenceModel, examples: Sequence[Example]) -> None:
    """``InputError`` when a relatedness model is given examples without a gold relatedness (another task)."""
    if model.cfg.relatedness and not all(e.score is not None for e in examples):
        raise InputError(f"Model {model.name!r} scores relatedness; measure its claims on --task sick.")


def predict_outcome(model: SentenceModel, corpus: Corpus) -> Outcome:
    """Every example's ``Outcome`` (fast path, no trace): correctness, or a relatedness model's score rᵀp̂."""
    if not model.cfg.relatedness:
        return Outcome(correct=predict_correct(model, corpus))
    refuse_unscored(model, corpus.examples)
    data = encode_examples(corpus.examples, model.cfg.max_tokens)
    return Outcome(gold=data.scores, predicted=predict_scores(model, data))


def histogram(groups: dict[str, np.ndarray], of: str) -> dict:
    """Shared-bin histograms of each group (bins span the 1st–99th percentile; outliers go to the end bins).

    ``of`` says what one count is: ``tokens``, ``sentences`` or ``word pairs``.
    """
    finite = {k: v[np.isfinite(v)] for k, v in groups.items()}
    pooled = np.concatenate([v for v in finite.values()] or [np.zeros(0)])
    if pooled.size == 0:
        return {"of": of, "edges": [], "groups": {}}
    lo, hi = np.percentile(pooled, [1, 99])
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    edges = np.linspace(lo, hi, N_BINS + 1)
    return {
        "of": of,
        "edges": [round(float(e), 6) for e in edges],
        "groups": {
            k: {"counts": np.histogram(np.clip(v, lo, hi), edges)[0].tolist(), "n": int(v.size),
                "mean": float(v.mean()) if v.size else None}
            for k, v in finite.items()
        },
    }


def examples_of(claim: Claim, values: np.ndarray, corpus: Corpus) -> dict:
    """The sentences where the claimed effect is strongest and weakest (signed towards the claim).

    Sentences of at least ``EXAMPLE_MIN_TOKENS`` tokens are preferred: a per-sentence mean over two
    or three tokens is mostly noise.
    """
    ok = np.flatnonzero(np.isfinite(values))
    long_enough = ok[[len(corpus.sentences[i]) >= EXAMPLE_MIN_TOKENS for i in ok]]
    ok = long_enough if long_enough.size >= 2 * N_EXAMPLES else ok
    effect = (values[ok] - claim.no_effect) * claim.direction
    order = ok[np.argsort(-effect, kind="stable")]

    def rows(idx):
        return [{"text": corpus.texts[i], "value": float(values[i])} for i in idx]

    return {"strongest": rows(order[:N_EXAMPLES]), "weakest": rows(order[::-1][:N_EXAMPLES])}


def _result(claim: Claim, value: float, lo: float, hi: float, n: int, statistic: str | None = None) -> dict:
    return {
        "id": claim.id, "figure": claim.figure, "claim": claim.claim, "statistic": statistic or claim.statistic,
        "value": float(value), "ci95": [float(lo), float(hi)], "n": int(n),
        "verdict": verdict(value, lo, hi, claim.no_effect, claim.direction),
        "no_effect": claim.no_effect, "direction": claim.direction, "view": claim.view,
    }


def sentence_result(claim: Claim, measured: dict, corpus: Corpus) -> dict | None:
    v = measured["values"]
    ok = v[np.isfinite(v)]
    if ok.size == 0:
        return None
    out = _result(claim, ok.mean(), *bootstrap_ci(ok), ok.size)
    groups = {CLASS_NAMES.get(k, k): g for k, g in measured["groups"].items()}
    of = "word pairs" if claim.kind == CONTEXT else "tokens" if groups else "sentences"
    out["distribution"] = histogram(groups or {"sentences": ok}, of)
    out["examples"] = examples_of(claim, v, corpus)
    return out


def long_gap(outcome: Outcome, lengths: np.ndarray, claim: Claim) -> dict | None:
    """Shen Fig. 5: accuracy (a relatedness model's Pearson's r) on long sentences minus on the rest, bootstrap
    over sentences."""
    long = lengths >= SHEN_LONG
    if not long.any() or long.all():
        return None

    def gap(*arrays):
        *values, is_long = arrays
        if not (is_long.any() and (~is_long).any()):
            return np.nan
        return outcome.measure(*(v[is_long] for v in values)) - outcome.measure(*(v[~is_long] for v in values))

    value = gap(*outcome.arrays, long)
    out = _result(claim, value, *bootstrap_ci((*outcome.arrays, long), gap), len(long), outcome.statistic(claim))
    out["n_long"] = int(long.sum())
    return out


def ablation_gap(outcome: Outcome, other: Outcome, lengths: np.ndarray, claim: Claim) -> dict | None:
    """Im Fig. 6: this model minus its ablation on long pairs, paired bootstrap (accuracy, or Pearson's r of a
    relatedness model against the same gold scores)."""
    long = lengths >= IM_LONG
    if not long.any():
        return None
    n, statistic = int(long.sum()), outcome.statistic(claim)
    if not outcome.relatedness:
        return _result(claim, *paired_bootstrap_diff(outcome.correct[long], other.correct[long]), n, statistic)
    gold, mine, theirs = outcome.gold[long], outcome.predicted[long], other.predicted[long]

    def diff(g, a, b):
        return pearson(g, a) - pearson(g, b)

    return _result(claim, diff(gold, mine, theirs), *bootstrap_ci((gold, mine, theirs), diff), n, statistic)


def accuracy_by_length(correct: np.ndarray, lengths: np.ndarray) -> list[dict]:
    """Buckets lo ≤ length < hi of width ``BUCKET_WIDTH``; the non-empty ones cover every example."""
    lows = np.floor(lengths / BUCKET_WIDTH) * BUCKET_WIDTH
    out = []
    for lo in np.unique(lows):
        c = correct[lows == lo].astype(float)
        ci = bootstrap_ci(c)
        out.append({"lo": float(lo), "hi": float(lo + BUCKET_WIDTH), "n": int(c.size),
                    "accuracy": float(c.mean()), "ci95": list(ci)})
    return out


def _finite(value: float) -> float | None:
    """A JSON number, or None where a measure is undefined (Pearson's r of one pair)."""
    return float(value) if np.isfinite(value) else None


def relatedness_block(gold: np.ndarray, predicted: np.ndarray) -> dict:
    """Shen Table 4's measures of the predicted against the gold relatedness, each {value, ci95, n} with a
    bootstrap interval over pairs."""
    out = {}
    for name, fn in RELATEDNESS_MEASURES.items():
        lo, hi = bootstrap_ci((gold, predicted), fn)
        out[name] = {"value": _finite(fn(gold, predicted)), "ci95": [_finite(lo), _finite(hi)], "n": int(gold.size)}
    return out


def relatedness_by_length(gold: np.ndarray, predicted: np.ndarray, lengths: np.ndarray) -> list[dict]:
    """``accuracy_by_length``'s buckets for a relatedness model: Pearson's r and MSE per bucket, each with a
    bootstrap interval over its pairs (None where undefined: fewer than two pairs, or constant scores)."""
    lows = np.floor(lengths / BUCKET_WIDTH) * BUCKET_WIDTH
    out = []
    for lo in np.unique(lows):
        sel = lows == lo
        g, p = gold[sel], predicted[sel]
        row = {"lo": float(lo), "hi": float(lo + BUCKET_WIDTH), "n": int(sel.sum())}
        for name in ("pearson_r", "mse"):
            fn = RELATEDNESS_MEASURES[name]
            ci = bootstrap_ci((g, p), fn)
            row[name], row[f"{name}_ci95"] = _finite(fn(g, p)), [_finite(ci[0]), _finite(ci[1])]
        out.append(row)
    return out


def length_distribution(lengths: np.ndarray) -> list[dict]:
    """Im Fig. 5: how many examples have each length (pairs: half-token steps)."""
    values, counts = np.unique(lengths, return_counts=True)
    return [{"length": float(v), "n": int(k)} for v, k in zip(values, counts)]


def run(model: SentenceModel, examples: Sequence[Example], task: str, split: str, checkpoint_sha256: str,
        ablation: SentenceModel | None = None, ablation_sha256: str | None = None, progress: bool = True) -> dict:
    """Every claim for ``model`` on ``examples``: the claims JSON (docs/evidence.md, "The claims JSON")."""
    refuse_unscored(model, examples)  # before any trace is computed
    corpus = make_corpus(examples)
    claims = claims_for(model.cfg.arch, task, ablation is not None)
    measured = measure_sentences(model, corpus, [c for c in claims if c.kind in (SENTENCE, CONTEXT)], progress)
    if progress:
        tqdm.write(f"{model.name}: predicting {len(corpus.examples):,} examples"
                   + (f" with it and with {ablation.name}" if ablation is not None else ""))
    outcome = predict_outcome(model, corpus)
    results, skipped = [], []
    for c in claims:
        if c.kind in (SENTENCE, CONTEXT):
            r = sentence_result(c, measured[c.id], corpus)
        elif c.kind == ACCURACY_BY_LENGTH:
            r = long_gap(outcome, corpus.lengths, c)
        else:
            r = ablation_gap(outcome, predict_outcome(ablation, corpus), corpus.lengths, c)
        if r is None:
            skipped.append({"id": c.id, "reason": "no example qualifies"})
        else:
            results.append(r)
    out = {
        "schema_version": SCHEMA_VERSION, "model": model.name, "checkpoint_sha256": checkpoint_sha256,
        "task": task, "split": split, "n_examples": len(corpus.examples), "n_sentences": len(corpus.sentences),
        "claims": results, "skipped": skipped,
    }
    length_unit = "tokens (disan.tokenize); pairs: mean of premise and hypothesis"
    if outcome.relatedness:
        out.update({
            "relatedness": relatedness_block(outcome.gold, outcome.predicted),
            "relatedness_by_length": relatedness_by_length(outcome.gold, outcome.predicted, corpus.lengths),
            "length_distribution": length_distribution(corpus.lengths), "length_unit": length_unit,
            "scores_f32": {"gold": pack_scores(outcome.gold), "predicted": pack_scores(outcome.predicted)},
        })
    else:
        correct = outcome.correct
        acc = correct.astype(float)
        out.update({
            "accuracy": {"value": float(acc.mean()), "ci95": list(bootstrap_ci(acc)), "n": int(acc.size)},
            "accuracy_by_length": accuracy_by_length(correct, corpus.lengths),
            "length_distribution": length_distribution(corpus.lengths), "length_unit": length_unit,
            "correct_bits": pack_correct(correct),
        })
    out["bootstrap"] = {"replicates": N_BOOT, "seed": BOOT_SEED, "unit": "sentence", "level": 0.95}
    if ablation is not None:
        out["ablation"] = {"model": ablation.name, "checkpoint_sha256": ablation_sha256}
    return out
