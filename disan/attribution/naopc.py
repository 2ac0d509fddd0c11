"""Normalised AOPC (Edin et al. 2024, "Normalized AOPC: Fixing Misleading Faithfulness Metrics for Feature
Attribution Explainability", arXiv:2408.08137, ACL 2025), per example, beside the ERASER AOPC of ``corpus.py``.

Edin et al.'s AOPC of an ordering e of an input's n tokens runs over *every* perturbation step:

    AOPC(x, e) = 1/(n + 1) · Σ_{k=0..n} [f(x) − f(x^(k))],

where for comprehensiveness x^(k) masks e's first k tokens and for sufficiency it keeps only them (the rest
masked). A token is masked by replacing its embedding with ``<unk>``'s (the zero vector of the bundled
checkpoints; Edin et al. replace with a baseline token), so sentence lengths never change and an NLI pair's
tokens are ordered jointly over premise and hypothesis. The AOPC of the *best* and the *worst* orderings
(for comprehensiveness the largest and the smallest, for sufficiency the smallest and the largest) bound it,
and depend on the model and the input; NAOPC puts every example on one scale:

    NAOPC = (AOPC − AOPC_worst) / (AOPC_best − AOPC_worst)  ∈ [0, 1], 1 = the best ordering.

Comprehensiveness and sufficiency share their bounds: masking e's first k tokens keeps the last n − k, i.e. the
first n − k of e reversed, so AOPC_comp(e) = AOPC_suff(reverse(e)) over the same n + 1 steps, and reversal maps the
n! orderings onto themselves. Hence max_e AOPC_comp = max_e AOPC_suff (comprehensiveness' best, sufficiency's worst)
and min_e AOPC_comp = min_e AOPC_suff; one search per bound serves both kinds (``shared_bounds``), half the forward
passes of a search per kind and bound.

The bounds are found as Edin et al. do: exactly when the input has at most ``EXACT_MAX`` tokens (their
NAOPC_exact: f of every subset, then a dynamic programme over the subset lattice for the best and the worst
chain ∅ ⊂ S_1 ⊂ … ⊂ S_n), otherwise by their beam search (NAOPC_beam) of width ``BEAM``: orderings grow one token
at a time, the ``BEAM`` highest (for the worst: lowest) cumulative sums are kept. A beam bound is an inner bound:
the true best is at least as good, so NAOPC_beam can exceed 1 slightly; values are not clipped. An example whose
bounds coincide (one token, or a constant f) has no NAOPC (NaN).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import torch

from .erasure import ROWS_PER_PASS
from .forward import ClassProbability, Embedded

#: Inputs up to this many tokens get exact bounds (2^n evaluations), longer ones beam-search bounds.
EXACT_MAX = 10
#: Beam width of the bounds' search (Edin et al.'s NAOPC_beam) for longer inputs.
BEAM = 4
KINDS = ("comprehensiveness", "sufficiency")


class MaskedOutputs:
    """f(x with only the kept tokens unmasked) of one example, cached: keep sets are frozensets of flat
    positions (side s's token t at ``offsets[s] + t``)."""

    def __init__(self, fn: ClassProbability, emb: Embedded, b: int, target: int):
        self.fn, self.target = fn, target
        self.lengths = [int(v[b].sum()) for v in emb.valids]
        self.offsets = np.cumsum([0] + self.lengths[:-1]).tolist()
        self.n = sum(self.lengths)
        self.xs = [x[b : b + 1] for x in emb.xs]  # (1, T_s, d) per side
        self.valids = [v[b : b + 1] for v in emb.valids]
        self.unk = fn.unk_vector()  # (d,)
        self.cache: dict[frozenset, float] = {}

    def __call__(self, keeps: Sequence[frozenset]) -> list[float]:
        """f for each keep set, computing the ones not seen yet in batches of ``erasure.ROWS_PER_PASS``."""
        todo = list({k for k in keeps if k not in self.cache})
        for start in range(0, len(todo), ROWS_PER_PASS):
            chunk = todo[start : start + ROWS_PER_PASS]
            xs = []
            for s, x in enumerate(self.xs):
                keep = torch.zeros(len(chunk), x.shape[1], dtype=torch.bool, device=x.device)  # (V, T_s)
                for v, kept in enumerate(chunk):
                    for pos in kept:
                        t = pos - self.offsets[s]
                        if 0 <= t < self.lengths[s]:
                            keep[v, t] = True
                xs.append(torch.where(keep[..., None], x.expand(len(chunk), -1, -1), self.unk))  # (V, T_s, d)
            with torch.no_grad():
                out = self.fn.outputs(xs, [v.expand(len(chunk), -1) for v in self.valids])[:, self.target]  # (V,)
            self.cache.update(zip(chunk, out.tolist()))
        return [self.cache[k] for k in keeps]


def step_scores(f: MaskedOutputs, kind: str) -> Callable[[list[frozenset]], list[float]]:
    """f(x) − f(x^(k)) for prefixes S (the first k tokens of an ordering): comprehensiveness masks S, sufficiency
    keeps only S."""
    everything = frozenset(range(f.n))
    full = f([everything])[0]

    def scores(prefixes: list[frozenset]) -> list[float]:
        keeps = [everything - S for S in prefixes] if kind == "comprehensiveness" else list(prefixes)
        return [full - v for v in f(keeps)]

    return scores


def aopc_of(order: Sequence[int], score: Callable[[list[frozenset]], list[float]]) -> float:
    """Edin et al.'s AOPC of one ordering (flat positions): the mean of the n + 1 steps' scores."""
    prefixes = [frozenset(order[:k]) for k in range(len(order) + 1)]
    return float(np.mean(score(prefixes)))


def exact_bounds(n: int, score: Callable[[list[frozenset]], list[float]]) -> tuple[float, float]:
    """(largest, smallest) AOPC over all n! orderings: the best and worst chains through the subset lattice."""
    subsets = [frozenset(c) for k in range(n + 1) for c in itertools.combinations(range(n), k)]
    value = dict(zip(subsets, score(subsets)))
    hi, lo = {frozenset(): value[frozenset()]}, {frozenset(): value[frozenset()]}
    for S in subsets[1:]:  # by size, so every S minus one token is done before S
        hi[S] = value[S] + max(hi[S - {i}] for i in S)
        lo[S] = value[S] + min(lo[S - {i}] for i in S)
    everything = frozenset(range(n))
    return hi[everything] / (n + 1), lo[everything] / (n + 1)


def beam_bound(n: int, score: Callable[[list[frozenset]], list[float]], largest: bool, width: int = BEAM) -> float:
    """Edin et al.'s beam search for the largest (or smallest) AOPC: orderings grow one token at a time and the
    ``width`` best cumulative sums survive each step."""
    beam = [((), score([frozenset()])[0])]  # (ordering so far, cumulative sum of its steps' scores)
    for _ in range(n):
        grown = [(order + (i,), total) for order, total in beam for i in range(n) if i not in order]
        values = score([frozenset(order) for order, _ in grown])
        grown = [(order, total + v) for (order, total), v in zip(grown, values)]
        grown.sort(key=lambda item: item[1], reverse=largest)
        unique, seen = [], set()
        for order, total in grown:  # two orderings of one set with one sum continue identically: keep one
            key = (frozenset(order), round(total, 12))
            if key not in seen:
                seen.add(key)
                unique.append((order, total))
        beam = unique[:width]
    return beam[0][1] / (n + 1)


def bounds(n: int, score: Callable[[list[frozenset]], list[float]]) -> tuple[float, float]:
    """(largest, smallest) AOPC of any ordering: exact up to ``EXACT_MAX`` tokens, else beam search."""
    if n <= EXACT_MAX:
        return exact_bounds(n, score)
    return beam_bound(n, score, True), beam_bound(n, score, False)


def shared_bounds(f: "MaskedOutputs") -> dict[str, tuple[float, float]]:
    """kind → (best, worst) AOPC: the largest and smallest sufficiency AOPC over all orderings, which are also
    comprehensiveness' (the module docstring: reversal)."""
    high, low = bounds(f.n, step_scores(f, "sufficiency"))
    return {"comprehensiveness": (high, low), "sufficiency": (low, high)}


def normalise(aopc: float, best: float, worst: float) -> float:
    """(AOPC − worst) / (best − worst); NaN when the bounds coincide."""
    return (aopc - worst) / (best - worst) if best != worst else float("nan")


def naopc_batch(fn: ClassProbability, emb: Embedded, rankings: dict[str, list[list[np.ndarray]]],
                target: torch.Tensor) -> dict[tuple[str, str, str], np.ndarray]:
    """(measure, kind, ranking) → (B,) per example, measure ``aopc_steps`` (Edin et al.'s AOPC of the ranking)
    or ``naopc``; rankings[r][s][b]: side s's (T_s,) scores, ordered jointly over the sides (highest first)."""
    out: dict[tuple[str, str, str], np.ndarray] = {}
    for b in range(emb.batch):
        f = MaskedOutputs(fn, emb, b, int(target[b]))
        limits = shared_bounds(f)
        for kind in KINDS:
            score = step_scores(f, kind)
            best, worst = limits[kind]
            for r, scores in rankings.items():
                joint = np.concatenate([scores[s][b] for s in range(len(emb.xs))])  # (n,)
                value = aopc_of(_order(joint), score)
                out.setdefault(("aopc_steps", kind, r), np.full(emb.batch, np.nan))[b] = value
                out.setdefault(("naopc", kind, r), np.full(emb.batch, np.nan))[b] = normalise(value, best, worst)
    return out


def _order(scores: np.ndarray) -> list[int]:
    """Positions from the highest score to the lowest (ties: the earlier token first), the order in which
    ``rank.top_positions`` picks its top k."""
    return [int(i) for i in np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")]
