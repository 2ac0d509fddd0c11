"""Attention against attributions over a whole test set: ``python -m disan faithfulness``.

Per example (an SST sentence, or an NLI pair) and its predicted class:

* **Kendall τ-b** between the importance rankings of every two methods (``sentence.METHODS``;
  signed methods by magnitude). An NLI pair's τ is the mean of its premise's and its
  hypothesis's, since attention and flow rank tokens within one sentence.
* **ERASER** (DeYoung et al. 2020, Sec. 4): with r = the top k% of tokens of each side by a
  ranking, comprehensiveness = p(x) − p(x without r) and sufficiency = p(x) − p(r alone),
  for the predicted class, at k = 10, 20 and 50% (⌈k·T⌉ tokens, at most T − 1), and their
  mean over the three levels (ERASER's AOPC over our bins). Rankings: attention, IG (signed:
  evidence for the class first), attention flow and random (a seeded permutation per example).

Every value is averaged over examples with a 95% percentile bootstrap interval over
examples (``stats.bootstrap_ci``). Examples run in batches of similar length; IG's steps,
the leave-one-out variants and the ERASER erasures of a batch each run batched.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from collections.abc import Sequence

import numpy as np
import torch
from tqdm import tqdm

from ..data import Example
from ..model import SentenceModel
from ..stats import BOOT_SEED, N_BOOT, bootstrap_ci, verdict
from ..vocab import tokenize
from .budget import IG_ELEMENTS, ig_rows, row_elements
from .erasure import leave_one_out, subset_probs
from .flow import attention_flow
from .forward import ClassProbability, Embedded
from .gradient import IG_BASELINE, IG_METHOD, IG_STEPS, gradient_x_input, integrated_gradients
from .rank import kendall_tau, top_count, top_positions
from .sentence import METHODS, SIGNED

SCHEMA_VERSION = 1
FRACTIONS = (0.1, 0.2, 0.5)
RANKINGS = ("attention", "integrated_gradients", "flow", "random")
#: The attributions attention is judged against: flow is built from attention itself, so it is reported apart.
ATTRIBUTIONS = ("grad_input", "integrated_gradients", "leave_one_out")
#: |τ| bands for the one-line answer (our convention, stated with every answer): none, weak, moderate, strong.
TAU_BANDS = ((0.1, "no"), (0.3, "weak"), (0.5, "moderate"), (math.inf, "strong"))
#: Seed of the --limit sample and of the random rankings (the latter also keyed by example index).
SEED = 0
MAX_BATCH = 64


def sample(n: int, limit: int | None) -> np.ndarray:
    """Indices of the examples measured: all, or a seeded random sample of ``limit`` in file order."""
    if limit is None or limit >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(SEED).choice(n, size=limit, replace=False))


def example_sides(e: Example, max_tokens: int) -> tuple[tuple[str, ...], ...]:
    sides = [e.text] if e.hypothesis is None else [e.text, e.hypothesis]
    return tuple(tuple(tokenize(s)[:max_tokens]) for s in sides)


def batches(items: Sequence[tuple[tuple[str, ...], ...]], cfg, steps: int) -> list[list[int]]:
    """Example ids in batches of similar length whose IG rows (examples·steps) stay under ``IG_ELEMENTS``."""
    order = sorted(range(len(items)), key=lambda i: max(len(s) for s in items[i]))
    out: list[list[int]] = []
    for i in order:
        T = max(1, max(len(s) for s in items[i]))
        if out and len(out[-1]) < MAX_BATCH and (len(out[-1]) + 1) * steps * row_elements(cfg, T) <= IG_ELEMENTS:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _eraser(fn: ClassProbability, emb: Embedded, rankings: dict[str, list[list[np.ndarray]]], target: torch.Tensor,
            p_full: torch.Tensor) -> dict[tuple[str, str, float], np.ndarray]:
    """(kind, ranking, fraction) → (B,) comprehensiveness / sufficiency; rankings[r][s][b]: (T_s,) scores."""
    lengths = [[len(t) for t in side] for side in emb.tokens]  # [s][b]
    keys, example, keep = [], [], [[] for _ in emb.xs]
    for b in range(emb.batch):
        for r, scores in rankings.items():
            for frac in FRACTIONS:
                tops = [top_positions(scores[s][b], top_count(lengths[s][b], frac)) for s in range(len(emb.xs))]
                for kind in ("comprehensiveness", "sufficiency"):
                    keys.append((kind, r, frac, b))
                    example.append(b)
                    for s, top in enumerate(tops):
                        everything = range(lengths[s][b])
                        if not top:  # a one-token side: left whole in both variants
                            keep[s].append(list(everything))
                        elif kind == "comprehensiveness":
                            removed = set(top)
                            keep[s].append([i for i in everything if i not in removed])
                        else:
                            keep[s].append(top)
    probs = subset_probs(fn, emb, example, keep, target).cpu().numpy()  # (V,)
    full = p_full.cpu().numpy()
    out: dict[tuple[str, str, float], np.ndarray] = {}
    for (kind, r, frac, b), p in zip(keys, probs):
        out.setdefault((kind, r, frac), np.zeros(emb.batch))[b] = full[b] - p
    return out


def measure_batch(model: SentenceModel, fn: ClassProbability, sides: Sequence[tuple[tuple[str, ...], ...]],
                  ids: Sequence[int], steps: int) -> dict[str, np.ndarray]:
    """Per-example values of one batch: τ per method pair, ERASER per (kind, ranking, fraction), IG delta/gap."""
    n_sides = len(sides[0])
    emb = fn.embed([[list(s[k]) for s in sides] for k in range(n_sides)])
    with torch.no_grad():
        encs = [model.encoder(x, v, True, fn.masks, fn.alpha) for x, v in zip(emb.xs, emb.valids)]
        probs = torch.softmax(model.head(*[s for s, _ in encs]).float(), -1)  # (B, K)
        target = probs.argmax(-1)  # (B,) the predicted class
        p_full = probs.gather(1, target[:, None])[:, 0]  # (B,)
        p_base = fn.probs([torch.zeros_like(x) for x in emb.xs], emb.valids).gather(1, target[:, None])[:, 0]
    T = max(x.shape[1] for x in emb.xs)
    flows = [attention_flow(t) for _, t in encs]
    gi = gradient_x_input(fn, emb, target)
    ig = integrated_gradients(fn, emb, target, steps, internal_batch_size=ig_rows(model.cfg, T))
    loo = leave_one_out(fn, emb, target, p_full)
    series = {m: [] for m in METHODS}  # method → [side][b] (T_s,) numpy
    for s, (_, t) in enumerate(encs):
        full = {"attention": t.s2t_probs.mean(-1), "grad_input": gi[s], "integrated_gradients": ig.scores[s],
                "leave_one_out": loo[s], "flow": flows[s].shares}
        lengths = emb.valids[s].sum(-1).tolist()
        for m in METHODS:
            values = full[m].detach().float().cpu().numpy()
            series[m].append([values[b, :n] for b, n in enumerate(lengths)])
    B = emb.batch
    out: dict[str, np.ndarray] = {}
    for a, b in itertools.combinations(METHODS, 2):
        taus = np.array([[kendall_tau(*(np.abs(series[m][s][e]) if m in SIGNED else series[m][s][e] for m in (a, b)))
                          for e in range(B)] for s in range(n_sides)])  # (sides, B)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a pair whose sides are all one token: NaN
            out[f"tau:{a}:{b}"] = np.nanmean(taus, 0)  # (B,) mean over the sides
    rankings = {r: series[r] for r in RANKINGS if r != "random"}
    rankings["random"] = [[np.random.default_rng([SEED, int(ids[e]), s]).random(len(series["attention"][s][e]))
                           for e in range(B)] for s in range(n_sides)]
    for (kind, r, frac), v in _eraser(fn, emb, rankings, target, p_full).items():
        out[f"{kind}:{r}:{frac:g}"] = v
    out["ig_delta"] = ig.delta.cpu().numpy()
    out["ig_gap"] = (p_full - p_base).cpu().numpy()
    out["flow_remainder"] = np.mean([f.remainder.cpu().numpy() for f in flows], 0)
    out["length"] = np.mean([v.sum(-1).cpu().numpy() for v in emb.valids], 0)
    return out


def measure(model: SentenceModel, examples: Sequence[Example], ids: Sequence[int], steps: int | None = None,
            progress: bool = True) -> dict[str, np.ndarray]:
    """Per-example values (see ``measure_batch``) of every example, in the order given; ids: their indices
    in the split (they seed the random rankings, so a sample draws the same as the whole run)."""
    model.eval()
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    sides = [example_sides(e, model.cfg.max_tokens) for e in examples]
    steps = steps or IG_STEPS[model.cfg.arch]
    out: dict[str, np.ndarray] = {}
    bar = tqdm(total=len(sides), desc=f"{model.name}: attributions", unit="example", disable=not progress)
    for batch in batches(sides, model.cfg, steps):
        values = measure_batch(model, fn, [sides[i] for i in batch], [ids[i] for i in batch], steps)
        for key, v in values.items():
            out.setdefault(key, np.full(len(sides), np.nan))[batch] = v
        bar.update(len(batch))
    bar.close()
    return out


def _ci(values: np.ndarray) -> dict:
    ok = values[np.isfinite(values)]
    lo, hi = bootstrap_ci(ok)
    return {"value": float(ok.mean()) if ok.size else float("nan"), "ci95": [lo, hi], "n": int(ok.size)}


def band(tau: float) -> str:
    """The |τ| band of ``TAU_BANDS`` ("weak", …)."""
    return next(name for limit, name in TAU_BANDS if abs(tau) < limit)


def answer(model: str, tau: dict, diff: dict, comp: dict) -> str:
    """The one-line answer: does attention rank tokens like the attributions, and does removing it matter?"""
    taus = [tau[f"attention:{m}"] for m in ATTRIBUTIONS]
    parts = ", ".join(f"{METHODS[m][0]} {t['value']:+.2f}" for m, t in zip(ATTRIBUTIONS, taus))
    mean_tau = float(np.mean([t["value"] for t in taus]))
    rank = (f"attention ranks tokens {'like' if band(mean_tau) in ('moderate', 'strong') else 'unlike'} its "
            f"attributions ({band(mean_tau)} agreement: mean Kendall τ {mean_tau:+.2f}; {parts}; "
            f"attention flow {tau['attention:flow']['value']:+.2f})")
    v = diff["verdict"]
    lo, hi = diff["ci95"]
    what = {"supported": "more than", "contradicted": "less than", "inconclusive": "no more than"}[v]
    erase = (f"removing the most-attended tokens changes the prediction {what} removing random ones (comprehensiveness "
             f"averaged over 10/20/50%: {comp['attention']['value']:.3f} vs {comp['random']['value']:.3f}, "
             f"difference {diff['value']:+.3f} [{lo:+.3f}, {hi:+.3f}])")
    return f"{model}: {rank}; {erase}."


def summarize(per: dict[str, np.ndarray]) -> dict:
    """Means with bootstrap intervals, the attention − random comparison and the one-line answer's parts."""
    tau = {}
    for a, b in itertools.combinations(METHODS, 2):
        tau[f"{a}:{b}"] = _ci(per[f"tau:{a}:{b}"])
    eraser = []
    aopc = {kind: {} for kind in ("comprehensiveness", "sufficiency")}
    per_aopc = {}
    for r in RANKINGS:
        for frac in FRACTIONS:
            eraser.append({"ranking": r, "fraction": frac,
                           **{kind: _ci(per[f"{kind}:{r}:{frac:g}"]) for kind in aopc}})
        for kind in aopc:
            per_aopc[(kind, r)] = np.mean([per[f"{kind}:{r}:{f:g}"] for f in FRACTIONS], 0)
            aopc[kind][r] = _ci(per_aopc[(kind, r)])
    gap = per_aopc[("comprehensiveness", "attention")] - per_aopc[("comprehensiveness", "random")]
    diff = _ci(gap)
    diff["verdict"] = verdict(diff["value"], *diff["ci95"], 0.0, 1)
    return {"tau": tau, "eraser": eraser, "aopc": aopc, "attention_minus_random": diff}


def run(model: SentenceModel, examples: Sequence[Example], task: str, split: str, checkpoint_sha256: str,
        limit: int | None = None, steps: int | None = None, progress: bool = True) -> dict:
    """The faithfulness JSON of ``model`` on the split's ``examples`` (all, or a ``limit`` sample)."""
    steps = steps or IG_STEPS[model.cfg.arch]
    ids = sample(len(examples), limit)
    n_split = len(examples)
    examples = [examples[i] for i in ids]
    start = time.perf_counter()
    per = measure(model, examples, ids, steps, progress)
    seconds = time.perf_counter() - start
    s = summarize(per)
    tau_rows = [{"a": a, "b": b, **s["tau"][f"{a}:{b}"]} for a, b in itertools.combinations(METHODS, 2)]
    delta, gap = np.abs(per["ig_delta"]), np.abs(per["ig_gap"])
    with np.errstate(all="ignore"):
        rel = delta / gap
    attention_tau = {f"attention:{m}": s["tau"][f"attention:{m}"] for m in METHODS if m != "attention"}
    return {
        "schema_version": SCHEMA_VERSION, "model": model.name, "checkpoint_sha256": checkpoint_sha256,
        "task": task, "split": split, "n_examples": n_split, "n": len(examples),
        "complete": len(examples) == n_split,
        "sample": {"limit": limit, "seed": SEED, "how": "all examples" if len(examples) == n_split else
                   "seeded random sample of the split (numpy default_rng(0).choice without replacement)"},
        "target": "the predicted class of the whole input",
        "methods": {m: {"label": lab, "measures": what} for m, (lab, what) in METHODS.items()},
        "integrated_gradients": {
            "steps": steps, "method": IG_METHOD, "baseline": IG_BASELINE,
            "mean_abs_delta": float(delta.mean()), "max_abs_delta": float(delta.max()),
            "median_relative_delta": float(np.nanmedian(rel[gap > 1e-3])) if (gap > 1e-3).any() else None,
        },
        "flow": {"exact": model.cfg.arch == "disan", "mean_remainder": float(np.nanmean(per["flow_remainder"]))},
        "tau": tau_rows,
        "eraser": s["eraser"],
        "aopc": s["aopc"],
        "attention_minus_random": s["attention_minus_random"],
        "answer": answer(model.name, attention_tau, s["attention_minus_random"], s["aopc"]["comprehensiveness"]),
        "tau_bands": [{"below": None if math.isinf(lim) else lim, "name": name} for lim, name in TAU_BANDS],
        "mean_length": float(np.mean(per["length"])),
        "seconds": round(seconds, 1),
        "bootstrap": {"replicates": N_BOOT, "seed": BOOT_SEED, "unit": "example", "level": 0.95},
    }
