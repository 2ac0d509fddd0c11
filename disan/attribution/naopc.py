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
and min_e AOPC_comp = min_e AOPC_suff; one search per bound serves both kinds (``shared``), half the forward
passes of a search per kind and bound.

The bounds are found as Edin et al. do: exactly when the input has at most ``EXACT_MAX`` tokens (their
NAOPC_exact: f of every subset, then a dynamic programme over the subset lattice for the best and the worst
chain ∅ ⊂ S_1 ⊂ … ⊂ S_n), otherwise by their beam search (NAOPC_beam) of width ``BEAM``: orderings grow one token
at a time, the ``BEAM`` highest (for the worst: lowest) cumulative sums are kept. A beam bound is an inner bound:
the true best is at least as good, so NAOPC_beam can exceed 1 slightly; values are not clipped. An example whose
bounds coincide (one token, or a constant f) has no NAOPC (NaN).

Cost: the searches ask for f of masked inputs, one forward row each (2^n for exact bounds, about 2·BEAM·n² for the
two beams). Each search is a generator that yields the prefixes whose scores it needs (``drive``), so a batch's
searches run in lockstep (``drive_all``) and each round's rows share passes; and each side's sentence vector is
cached by its own kept tokens (``MaskedOutputs``), so an NLI or SICK pair's variants mostly encode one sentence
instead of two. The values are those of running every row on its own up to float rounding (a row's output differs
in the last bits with the size of its pass): equal to 1e-9 in float64 (``tests/test_naopc.py``); against the earlier
code's, within 1.3e-7 on disan-cr's test set and 5.4e-7 on 6 disan-sick pairs (a score on 1–5), every other measure
bit for bit (``scripts/faithfulness_compare.py``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Sequence

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
    """f(x with only the kept tokens unmasked) of a batch's examples, cached: ``(b, keep)`` asks for batch row b with
    the keep set ``keep``, a frozenset of flat positions (side s's token t at ``offsets[b][s] + t``). Each side's
    sentence vector is cached by that side's own kept tokens, since the sides run through the encoder apart
    (``forward.ClassProbability.encode``): a variant of an NLI pair that differs in one side encodes only that side,
    and the 2^n subsets of exact bounds need 2^n_p + 2^n_h encodings instead of 2 · 2^n."""

    def __init__(self, fn: ClassProbability, emb: Embedded, target: torch.Tensor):
        self.fn, self.emb, self.target = fn, emb, target.tolist()
        self.lengths = [[int(v[b].sum()) for v in emb.valids] for b in range(emb.batch)]  # [b][s]
        self.offsets = [np.cumsum([0] + lengths[:-1]).tolist() for lengths in self.lengths]
        self.n = [sum(lengths) for lengths in self.lengths]
        self.unk = fn.unk_vector()  # (d,)
        self.cache: dict[tuple[int, frozenset], float] = {}
        self.encoded: dict[tuple[int, int, tuple[int, ...]], torch.Tensor] = {}  # (b, s, kept of s) → (E,)

    def _side(self, b: int, s: int, keep: frozenset) -> tuple[int, int, tuple[int, ...]]:
        """The cache key of side s's part of ``keep``: its kept token positions within the side."""
        start = self.offsets[b][s]
        return b, s, tuple(sorted(p - start for p in keep if start <= p < start + self.lengths[b][s]))

    def _encode(self, s: int, todo: list[tuple[int, int, tuple[int, ...]]]) -> None:
        """Side s's sentence vectors of ``todo`` (b, s, kept) in passes of ``erasure.ROWS_PER_PASS`` rows."""
        x, valid = self.emb.xs[s], self.emb.valids[s]  # (B, T_s, d), (B, T_s)
        for start in range(0, len(todo), ROWS_PER_PASS):
            chunk = todo[start : start + ROWS_PER_PASS]
            rows = torch.tensor([b for b, _, _ in chunk], device=x.device)  # (V,)
            keep = torch.zeros(len(chunk), x.shape[1], dtype=torch.bool, device=x.device)  # (V, T_s)
            for v, (_, _, kept) in enumerate(chunk):
                keep[v, list(kept)] = True
            with torch.no_grad():
                enc = self.fn.encode(torch.where(keep[..., None], x[rows], self.unk), valid[rows])  # (V, E)
            self.encoded.update(zip(chunk, enc))

    def __call__(self, wanted: Sequence[tuple[int, frozenset]]) -> list[float]:
        """f for each (b, keep), computing the ones not seen yet: first the sides' new vectors, then the head."""
        todo = list(dict.fromkeys(w for w in wanted if w not in self.cache))
        sides = [[self._side(b, s, keep) for s in range(len(self.emb.xs))] for b, keep in todo]  # [v][s]
        for s in range(len(self.emb.xs)):
            self._encode(s, list(dict.fromkeys(k[s] for k in sides if k[s] not in self.encoded)))
        for start in range(0, len(todo), ROWS_PER_PASS):
            rows = range(start, min(start + ROWS_PER_PASS, len(todo)))
            encs = [torch.stack([self.encoded[sides[v][s]] for v in rows]) for s in range(len(self.emb.xs))]  # (V, E)
            with torch.no_grad():
                out = self.fn.head_outputs(encs)  # (V, K) or (V, K + 1)
            self.cache.update((todo[v], float(out[i, self.target[todo[v][0]]])) for i, v in enumerate(rows))
        return [self.cache[w] for w in wanted]


def _keeps(n: int, kind: str, prefixes: Sequence[frozenset]) -> list[frozenset]:
    """The whole input's keep set, then each prefix S's: comprehensiveness masks S, sufficiency keeps only S."""
    everything = frozenset(range(n))
    return [everything] + ([everything - S for S in prefixes] if kind == "comprehensiveness" else list(prefixes))


def step_scores(f: MaskedOutputs, kind: str, b: int) -> Callable[[list[frozenset]], list[float]]:
    """f(x) − f(x^(k)) of example b for prefixes S (the first k tokens of an ordering, ``_keeps``)."""

    def scores(prefixes: list[frozenset]) -> list[float]:
        full, *values = f([(b, keep) for keep in _keeps(f.n[b], kind, prefixes)])
        return [full - v for v in values]

    return scores


#: A search asks for the step scores of lists of prefixes (it yields them and is sent their scores) and returns
#: its result; ``drive`` answers one search, ``drive_all`` many in lockstep, one batched evaluation per round.
Search = Generator[list[frozenset], list[float], object]


def drive(search: Search, score: Callable[[list[frozenset]], list[float]]):
    """The result of one search, its requests answered by ``score``."""
    return drive_all({0: search}, lambda requests: {0: score(requests[0])})[0]


def drive_all(searches: dict, score: Callable[[dict], dict]) -> dict:
    """key → result of every search, run in rounds: ``score`` gets every running search's request at once (key →
    prefixes) and answers them all (key → scores), so one round's forward rows share passes."""
    requests, results = {}, {}
    for key, search in searches.items():
        requests[key] = next(search)
    while requests:
        answered, requests = score(requests), {}
        for key, values in answered.items():
            try:
                requests[key] = searches[key].send(values)
            except StopIteration as done:
                results[key] = done.value
    return results


def aopc_search(order: Sequence[int]) -> Search:
    """Edin et al.'s AOPC of one ordering (flat positions): the mean of the n + 1 steps' scores."""
    return float(np.mean((yield [frozenset(order[:k]) for k in range(len(order) + 1)])))


def aopc_of(order: Sequence[int], score: Callable[[list[frozenset]], list[float]]) -> float:
    return drive(aopc_search(order), score)


def exact_search(n: int) -> Search:
    """(largest, smallest) AOPC over all n! orderings: the best and worst chains through the subset lattice."""
    subsets = [frozenset(c) for k in range(n + 1) for c in itertools.combinations(range(n), k)]
    value = dict(zip(subsets, (yield subsets)))
    hi, lo = {frozenset(): value[frozenset()]}, {frozenset(): value[frozenset()]}
    for S in subsets[1:]:  # by size, so every S minus one token is done before S
        hi[S] = value[S] + max(hi[S - {i}] for i in S)
        lo[S] = value[S] + min(lo[S - {i}] for i in S)
    everything = frozenset(range(n))
    return hi[everything] / (n + 1), lo[everything] / (n + 1)


def exact_bounds(n: int, score: Callable[[list[frozenset]], list[float]]) -> tuple[float, float]:
    return drive(exact_search(n), score)


def beam_search(n: int, largest: bool, width: int = BEAM) -> Search:
    """Edin et al.'s beam search for the largest (or smallest) AOPC: orderings grow one token at a time and the
    ``width`` best cumulative sums survive each step."""
    beam = [((), (yield [frozenset()])[0])]  # (ordering so far, cumulative sum of its steps' scores)
    for _ in range(n):
        grown = [(order + (i,), total) for order, total in beam for i in range(n) if i not in order]
        values = yield [frozenset(order) for order, _ in grown]
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


def beam_bound(n: int, score: Callable[[list[frozenset]], list[float]], largest: bool, width: int = BEAM) -> float:
    return drive(beam_search(n, largest, width), score)


def bound_searches(n: int) -> dict[str, Search]:
    """The searches for the (largest, smallest) AOPC of any ordering: exact up to ``EXACT_MAX`` tokens (one search,
    key "both"), else beam search (keys "largest" and "smallest")."""
    if n <= EXACT_MAX:
        return {"both": exact_search(n)}
    return {"largest": beam_search(n, True), "smallest": beam_search(n, False)}


def bounds_of(results: dict[str, object]) -> tuple[float, float]:
    """(largest, smallest) from the results of ``bound_searches``."""
    return results["both"] if "both" in results else (results["largest"], results["smallest"])


def bounds(n: int, score: Callable[[list[frozenset]], list[float]]) -> tuple[float, float]:
    """(largest, smallest) AOPC of any ordering: exact up to ``EXACT_MAX`` tokens, else beam search."""
    return bounds_of({name: drive(search, score) for name, search in bound_searches(n).items()})


def shared(high: float, low: float) -> dict[str, tuple[float, float]]:
    """kind → (best, worst) AOPC from the largest and smallest sufficiency AOPC over all orderings, which are also
    comprehensiveness' (the module docstring: reversal)."""
    return {"comprehensiveness": (high, low), "sufficiency": (low, high)}


def normalise(aopc: float, best: float, worst: float) -> float:
    """(AOPC − worst) / (best − worst); NaN when the bounds coincide."""
    return (aopc - worst) / (best - worst) if best != worst else float("nan")


def naopc_batch(fn: ClassProbability, emb: Embedded, rankings: dict[str, list[list[np.ndarray]]],
                target: torch.Tensor, rows: Sequence[int] | None = None) -> dict[tuple[str, str, str], np.ndarray]:
    """(measure, kind, ranking) → (B,) per example, measure ``aopc_steps`` (Edin et al.'s AOPC of the ranking)
    or ``naopc``; rankings[r][s][b]: side s's (T_s,) scores, ordered jointly over the sides (highest first).
    Only the batch rows ``rows`` (default: all) are measured, the others are NaN (a sample, ``corpus.NAOPC_LIMIT``).
    Every example's bound searches (in sufficiency's scores, ``shared``) and rankings' AOPCs run in lockstep
    (``drive_all``), so each round's forward rows of the whole batch share passes."""
    rows = range(emb.batch) if rows is None else rows
    out = {(what, kind, r): np.full(emb.batch, np.nan)
           for what, kind, r in itertools.product(("aopc_steps", "naopc"), KINDS, rankings)}
    f = MaskedOutputs(fn, emb, target)
    searches = {}
    for b in rows:
        searches.update({(b, "bound", name): s for name, s in bound_searches(f.n[b]).items()})
        for kind, r in itertools.product(KINDS, rankings):
            joint = np.concatenate([rankings[r][s][b] for s in range(len(emb.xs))])  # (n,)
            searches[(b, kind, r)] = aopc_search(_order(joint))

    def answer(requests: dict) -> dict:
        kinds = {key: "sufficiency" if key[1] == "bound" else key[1] for key in requests}
        f([(key[0], keep) for key, prefixes in requests.items()
           for keep in _keeps(f.n[key[0]], kinds[key], prefixes)])  # the round's rows, in shared passes
        return {key: step_scores(f, kinds[key], key[0])(prefixes) for key, prefixes in requests.items()}

    results = drive_all(searches, answer)
    for b in rows:
        limits = shared(*bounds_of({key[2]: v for key, v in results.items() if key[:2] == (b, "bound")}))
        for kind, r in itertools.product(KINDS, rankings):
            value = results[(b, kind, r)]
            out[("aopc_steps", kind, r)][b] = value
            out[("naopc", kind, r)][b] = normalise(value, *limits[kind])
    return out


def _order(scores: np.ndarray) -> list[int]:
    """Positions from the highest score to the lowest (ties: the earlier token first), the order in which
    ``rank.top_positions`` picks its top k."""
    return [int(i) for i in np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")]
