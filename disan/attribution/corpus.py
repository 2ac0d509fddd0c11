"""Attention against attributions over a whole test set: ``python -m disan faithfulness``.

Per example (an SST sentence, or an NLI pair) and its predicted class:

* **Kendall τ-b** between the importance rankings of every two series (``sentence.methods_for``;
  signed attributions by magnitude). An NLI pair's τ is the mean of its premise's and its
  hypothesis's, since the weight series rank tokens within one sentence. Beside attention's τ with
  the three attributions (gradient × input, IG, leave-one-out) stands the attributions' τ with each
  other, the baseline that says how alike two attributions rank tokens at all (``agreement``).
* **Jain & Wallace's row, like with like** (``jain_wallace``): τ over the premise (or the one
  sentence) only, with the gradient taken with the attention weights detached (``detach.py``), as
  their Table 2 does; and the same τ with the gradient through the attention, to show each difference.
* **ERASER** (DeYoung et al. 2020, Sec. 4): with r = the top k% of tokens of each side by a
  ranking, comprehensiveness = p(x) − p(x without r), the drop in the predicted class's probability
  when r is deleted, and sufficiency = p(x) − p(r alone), at k ∈ ``FRACTIONS`` (⌈k·T⌉ tokens, at
  most T − 1). Two summaries: ours, the plain mean over 10, 20 and 50% (``aopc``), and ERASER's own
  AOPC over their bins B = {1, 5, 10, 20, 50}%, Σ_k / (|B| + 1) (``aopc_eraser``; the + 1 is their
  empty-removal bin, whose value is 0). Rankings: attention, the DSA's pooling series, IG (signed:
  evidence for the class first), gated rollout, attention flow and random (a seeded permutation).
* **Normalised AOPC** (``aopc_steps``, ``naopc``; ``naopc.py``): Edin et al.'s (2024) AOPC over every masking
  step, and the same put between the worst (0) and the best (1) ordering of the example's own tokens, so that
  models and lengths compare on one scale.
* **The DSA's pooling** (``pooling``): half its sentence features come from source2token and half from
  max pooling, which the attention series does not decide; the pooling series covers both.

Every value is averaged over examples with a 95% percentile bootstrap interval over examples
(``stats.bootstrap_ci``). Examples run in batches of similar length; IG's steps, the leave-one-out
variants and the ERASER erasures of a batch each run batched (identical erasures once). With a cache
folder (``--cache DIR``) a cut-off run resumes from the batches it finished (``resume.py``).
"""

from __future__ import annotations

import itertools
import math
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from ..data import Example
from ..model import SentenceModel
from ..stats import BOOT_SEED, N_BOOT, bootstrap_ci, verdict
from ..vocab import tokenize
from .attention_flow import HOW as FLOW_HOW
from .attention_flow import attention_flow
from .budget import IG_ELEMENTS, ig_rows, row_elements
from .detach import detached_gradient_x_input
from .erasure import leave_one_out, subset_probs
from .forward import ClassProbability, Embedded
from .naopc import BEAM, EXACT_MAX, naopc_batch
from .gradient import IG_BASELINE, IG_METHOD, IG_STEPS, gradient_x_input, integrated_gradients
from .lrp import lrp
from .rank import kendall_tau, top_count, top_positions
from .resume import BatchCache, tokens_sha256
from .rollout import REFERENCE as ROLLOUT_REFERENCE
from .rollout import gated_rollout
from .sentence import METHODS, SIGNED, methods_for, weight_series

SCHEMA_VERSION = 3
#: ERASER's AOPC bins (DeYoung et al. 2020, Sec. 4); ours average the last three.
FRACTIONS = (0.01, 0.05, 0.1, 0.2, 0.5)
OUR_BINS = (0.1, 0.2, 0.5)
RANKINGS = ("attention", "pooling", "integrated_gradients", "lrp", "rollout", "attention_flow", "random")
#: The attributions attention is judged against: rollout and flow are built from attention itself.
ATTRIBUTIONS = ("grad_input", "integrated_gradients", "leave_one_out")
#: Bands of the signed mean τ for the one-line answer (our convention, stated with every answer): the first
#: band whose upper limit the mean lies below. A negative mean reads as disagreement.
TAU_BANDS = ((-0.1, "disagreement"), (0.1, "no agreement"), (0.3, "weak agreement"), (0.5, "moderate agreement"),
             (math.inf, "strong agreement"))
#: How ``aopc_steps`` and ``naopc`` are measured (``naopc.py``), stored with every result.
NAOPC_HOW = {
    "reference": "Edin et al. 2024, Normalized AOPC (arXiv:2408.08137)",
    "aopc_steps": "their AOPC: the mean over every step k = 0..n of f(x) − f(x^(k)), x^(k) masking (comprehensiveness) "
                  "or keeping only (sufficiency) the ranking's first k tokens, masked tokens replaced by <unk>; an NLI "
                  "pair's tokens ranked jointly",
    "naopc": "(AOPC − AOPC_worst) / (AOPC_best − AOPC_worst) per example, best/worst over all orderings of its tokens "
             "(comprehensiveness: largest/smallest; sufficiency: smallest/largest)",
    "exact_max_tokens": EXACT_MAX, "beam": BEAM,
    "bounds": f"exact (every subset) up to {EXACT_MAX} tokens, else beam search of width {BEAM} (an inner bound: "
              "NAOPC may exceed 1 slightly)",
}
#: Seed of the --limit sample and of the random rankings (the latter also keyed by example index).
SEED = 0
MAX_BATCH = 64
#: NAOPC's bound searches are about 92% of a run's time (disan-cr's profile), 9-23 h a whole NLI test set on one
#: thread here: by default it is measured on a seeded sample of this many of the measured examples (all of a
#: smaller set; --naopc-limit 0: every one), its own seed so the sample differs from --limit's draws.
NAOPC_LIMIT = 1000
NAOPC_SEED = 1


def sample(n: int, limit: int | None, seed: int = SEED) -> np.ndarray:
    """Indices of the examples measured: all, or a seeded random sample of ``limit`` in file order."""
    if limit is None or limit >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


def naopc_sample(n: int, limit: int | None) -> np.ndarray:
    """(n,) bool: which of the n measured examples get the normalised AOPC (``NAOPC_LIMIT``; 0 or None: all)."""
    chosen = np.zeros(n, bool)
    chosen[sample(n, limit or None, NAOPC_SEED)] = True
    return chosen


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


def rankings_for(arch: str) -> tuple[str, ...]:
    """The ERASER rankings of an architecture (the pooling series only for the DSA)."""
    return tuple(r for r in RANKINGS if r != "pooling" or arch == "dsa")


def _eraser(fn: ClassProbability, emb: Embedded, rankings: dict[str, list[list[np.ndarray]]], target: torch.Tensor,
            p_full: torch.Tensor) -> dict[tuple[str, str, float], np.ndarray]:
    """(kind, ranking, fraction) → (B,) comprehensiveness / sufficiency; rankings[r][s][b]: (T_s,) scores.
    Variants that keep the same tokens of the same example (e.g. 1% and 10% of a short sentence) run once."""
    lengths = [[len(t) for t in side] for side in emb.tokens]  # [s][b]
    keys, variant_of, seen = [], [], {}
    example, keep = [], [[] for _ in emb.xs]
    for b in range(emb.batch):
        for r, scores in rankings.items():
            for frac in FRACTIONS:
                tops = [top_positions(scores[s][b], top_count(lengths[s][b], frac)) for s in range(len(emb.xs))]
                for kind in ("comprehensiveness", "sufficiency"):
                    kept = []
                    for s, top in enumerate(tops):
                        everything = range(lengths[s][b])
                        if not top:  # a one-token side: left whole in both variants
                            kept.append(tuple(everything))
                        elif kind == "comprehensiveness":
                            removed = set(top)
                            kept.append(tuple(i for i in everything if i not in removed))
                        else:
                            kept.append(tuple(top))
                    key = (b, tuple(kept))
                    if key not in seen:
                        seen[key] = len(example)
                        example.append(b)
                        for s, k in enumerate(kept):
                            keep[s].append(list(k))
                    keys.append((kind, r, frac, b))
                    variant_of.append(seen[key])
    probs = subset_probs(fn, emb, example, keep, target).cpu().numpy()  # (V,) one per distinct variant
    full = p_full.cpu().numpy()
    out: dict[tuple[str, str, float], np.ndarray] = {}
    for (kind, r, frac, b), v in zip(keys, variant_of):
        out.setdefault((kind, r, frac), np.zeros(emb.batch))[b] = full[b] - probs[v]
    return out


def _taus(series: dict[str, list[list[np.ndarray]]], a: str, b: str, sides: Sequence[int], B: int) -> np.ndarray:
    """(B,) Kendall τ of methods ``a`` and ``b`` per example, the mean over ``sides`` (NaN where undefined)."""
    taus = np.array([[kendall_tau(*(np.abs(series[m][s][e]) if m in SIGNED else series[m][s][e] for m in (a, b)))
                      for e in range(B)] for s in sides])  # (sides, B)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a pair whose sides are all one token: NaN
        return np.nanmean(taus, 0)


#: What a relatedness model's attributions explain over a corpus (``target`` in its faithfulness JSON).
TARGET_SCORE = "the predicted relatedness score ŷ = rᵀp̂ of the pair (Tai, Socher & Manning 2015, Sec. 4.2)"
#: The same of a one-sentence score model (``train --data --regression``): a rating of the sentence.
TARGET_SENTENCE_SCORE = "the predicted score ŷ = rᵀp̂ of the sentence (grades as Tai, Socher & Manning 2015, Sec. 4.2)"
SCORE_MEASURES = {TARGET_SCORE: "the predicted relatedness score", TARGET_SENTENCE_SCORE: "the predicted score"}


def measure_batch(model: SentenceModel, fn: ClassProbability, sides: Sequence[tuple[tuple[str, ...], ...]],
                  ids: Sequence[int], steps: int, naopc: bool | Sequence[bool] = True) -> dict[str, np.ndarray]:
    """Per-example values of one batch: τ per method pair, Jain & Wallace's premise-only τ, ERASER per
    (kind, ranking, fraction), the normalised AOPC (``naopc``: for every example, none, or those whose flag is
    set; NaN for the others), IG delta/gap, the rollout's remainder and the DSA's pooled share of |s|."""
    n_sides = len(sides[0])
    arch = model.cfg.arch
    methods = methods_for(arch)
    emb = fn.embed([[list(s[k]) for s in sides] for k in range(n_sides)])
    with torch.no_grad():
        encs = [model.encoder(x, v, True, fn.masks, fn.alpha) for x, v in zip(emb.xs, emb.valids)]
        probs = torch.softmax(model.head(*[s for s, _ in encs]).float(), -1)  # (B, K)
        if model.cfg.relatedness:  # its score ŷ = rᵀp̂, column K of fn.outputs, as attribute() explains it
            grades = torch.arange(1, probs.shape[-1] + 1, dtype=probs.dtype, device=probs.device)  # (K,)
            probs = torch.cat([probs, (probs @ grades)[:, None]], -1)  # (B, K + 1)
            target = torch.full((probs.shape[0],), probs.shape[-1] - 1, device=probs.device)  # (B,) the score
        else:
            target = probs.argmax(-1)  # (B,) the predicted class
        p_full = probs.gather(1, target[:, None])[:, 0]  # (B,)
        p_base = fn.outputs([torch.zeros_like(x) for x in emb.xs], emb.valids).gather(1, target[:, None])[:, 0]
    T = max(x.shape[1] for x in emb.xs)
    rolls = [gated_rollout(t) for _, t in encs]
    flows = [attention_flow(t) for _, t in encs]
    gi = gradient_x_input(fn, emb, target)
    gi_detached = detached_gradient_x_input(fn, emb, target)
    ig = integrated_gradients(fn, emb, target, steps, internal_batch_size=ig_rows(model.cfg, T))
    loo = leave_one_out(fn, emb, target, p_full)
    relevance = lrp(fn, emb, target).scores
    series = {m: [] for m in methods + ("grad_input_detached",)}  # method → [side][b] (T_s,) numpy
    for s, (_, t) in enumerate(encs):
        full = {**weight_series(t), "grad_input": gi[s], "integrated_gradients": ig.scores[s],
                "leave_one_out": loo[s], "rollout": rolls[s].shares, "attention_flow": flows[s].shares,
                "grad_input_detached": gi_detached[s], "lrp": relevance[s]}
        lengths = emb.valids[s].sum(-1).tolist()
        for m in series:
            values = full[m].detach().float().cpu().numpy()
            series[m].append([values[b, :n] for b, n in enumerate(lengths)])
    B = emb.batch
    out: dict[str, np.ndarray] = {}
    for a, b in itertools.combinations(methods, 2):
        out[f"tau:{a}:{b}"] = _taus(series, a, b, range(n_sides), B)
    # Jain & Wallace's Table 2: premise tokens only (their SNLI model attends over the premise).
    for key, other in (("tau_g_detached", "grad_input_detached"), ("tau_g", "grad_input"),
                       ("tau_loo", "leave_one_out")):
        out[f"jw:{key}"] = _taus(series, "attention", other, [0], B)
    rankings = {r: series[r] for r in rankings_for(arch) if r != "random"}
    rankings["random"] = [[np.random.default_rng([SEED, int(ids[e]), s]).random(len(series["attention"][s][e]))
                           for e in range(B)] for s in range(n_sides)]
    for (kind, r, frac), v in _eraser(fn, emb, rankings, target, p_full).items():
        out[f"{kind}:{r}:{frac:g}"] = v
    flags = [bool(naopc)] * B if isinstance(naopc, bool) else list(naopc)
    rows = [b for b in range(B) if flags[b]]
    for (what, kind, r), v in (naopc_batch(fn, emb, rankings, target, rows) if rows else {}).items():
        out[f"{what}:{kind}:{r}"] = v
    out["ig_delta"] = ig.delta.cpu().numpy()
    out["ig_gap"] = (p_full - p_base).cpu().numpy()
    out["rollout_remainder"] = np.mean([r.remainder.cpu().numpy() for r in rolls], 0)
    out["length"] = np.mean([v.sum(-1).cpu().numpy() for v in emb.valids], 0)
    if arch == "dsa":  # the source2token half's part of |s|: Σ|pooled| / Σ|[pooled; maxed]|
        shares = []
        for sentence, _ in encs:
            a = sentence.abs().float()  # (B, 4D)
            shares.append((a[:, : a.shape[1] // 2].sum(-1) / a.sum(-1).clamp_min(1e-30)).cpu().numpy())
        out["pooling_s2t_l1_share"] = np.mean(shares, 0)
    return out


def measure(model: SentenceModel, examples: Sequence[Example], ids: Sequence[int], steps: int | None = None,
            progress: bool = True, cache: Path | None = None, key: dict | None = None,
            naopc: bool | np.ndarray = True) -> dict[str, np.ndarray]:
    """Per-example values (see ``measure_batch``) of every example, in the order given, and ``seconds``: its
    batch's compute time over the batch's size. ids: their indices in the split (they seed the random rankings,
    so a sample draws the same as the whole run). ``naopc``: True, False, or per example whether to measure its
    normalised AOPC (``naopc_sample``). With a ``cache`` folder, finished batches are saved there and a rerun
    skips them (``resume.py``); ``key`` (model, checkpoint_sha256, task, split) names the run."""
    model.eval()
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    sides = [example_sides(e, model.cfg.max_tokens) for e in examples]
    steps = steps or IG_STEPS[model.cfg.arch]
    layout = batches(sides, model.cfg, steps)
    done, out, store = np.zeros(len(layout), bool), {}, None
    flags = np.full(len(sides), naopc) if isinstance(naopc, bool) else np.asarray(naopc, bool)  # (N,)
    if cache is not None:
        # a whole-set key stays as before this sample existed, so the caches of those runs still resume
        which = bool(flags.all()) if flags.all() or not flags.any() else np.flatnonzero(flags).tolist()
        full_key = {"model": model.name, **(key or {}), "schema_version": SCHEMA_VERSION, "steps": steps, "naopc": which,
                    "ids": [int(i) for i in ids], "tokens_sha256": tokens_sha256(sides), "batches": layout}
        store = BatchCache(cache, full_key, len(sides), len(layout))
        done, out = store.load()
        if done.any():
            print(f"{model.name}: resuming from {store.path}: {int(done.sum())} of {len(layout)} batches "
                  f"({sum(len(b) for b, d in zip(layout, done) if d):,} examples) done", file=sys.stderr)
    bar = tqdm(total=len(sides), initial=sum(len(b) for b, d in zip(layout, done) if d),
               desc=f"{model.name}: attributions", unit="example", disable=not progress)
    saved, last_save = done.copy(), time.perf_counter()
    try:
        for j, batch in enumerate(layout):
            if done[j]:
                continue
            start = time.perf_counter()
            values = measure_batch(model, fn, [sides[i] for i in batch], [ids[i] for i in batch], steps,
                                   [bool(flags[i]) for i in batch])
            values["seconds"] = np.full(len(batch), (time.perf_counter() - start) / len(batch))
            for name, v in values.items():
                out.setdefault(name, np.full(len(sides), np.nan))[batch] = v
            done[j] = True
            bar.update(len(batch))
            if store is not None and time.perf_counter() - last_save >= store.save_every_s:
                store.save(done, out)
                saved, last_save = done.copy(), time.perf_counter()
    finally:  # an interrupted run (Ctrl-C, an error) keeps the batches it finished since the last save
        bar.close()
        if store is not None and (done != saved).any():
            store.save(done, out)
    return out


def _ci(values: np.ndarray) -> dict:
    ok = values[np.isfinite(values)]
    lo, hi = bootstrap_ci(ok)
    return {"value": float(ok.mean()) if ok.size else float("nan"), "ci95": [lo, hi], "n": int(ok.size)}


def _paired(a: np.ndarray, b: np.ndarray) -> dict:
    """Mean of a − b over the examples where both are defined, with its interval and the verdict on > 0."""
    both = np.isfinite(a) & np.isfinite(b)
    d = _ci(a[both] - b[both])
    d["verdict"] = verdict(d["value"], *d["ci95"], 0.0, 1)
    return d


def _row_mean(rows: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(np.stack(rows), 0)


def band(tau: float) -> str:
    """The band of ``TAU_BANDS`` the signed mean τ falls in ("weak agreement", "disagreement", …)."""
    return next(name for limit, name in TAU_BANDS if tau < limit)


def tau_of(result: dict, a: str, b: str) -> dict | None:
    """The stored τ row of methods ``a`` and ``b`` (either order), or None."""
    return next((t for t in result["tau"] if (t["a"], t["b"]) in ((a, b), (b, a))), None)


def _iv(t: dict, f: str = "{:+.2f}") -> str:
    lo, hi = t["ci95"]
    return f"{f.format(t['value'])} [{f.format(lo)}, {f.format(hi)}]"


def answer(result: dict) -> str:
    """The one-line answer: how alike attention and the attributions rank tokens, read against how alike the
    attributions rank them with each other, and whether deleting the most-attended tokens matters."""
    label = {m: METHODS[m][0] for m in METHODS}
    mine = [tau_of(result, "attention", m) for m in ATTRIBUTIONS]
    pairs = [(a, b, tau_of(result, a, b)) for a, b in itertools.combinations(ATTRIBUTIONS, 2)]
    mean_tau = float(np.mean([t["value"] for t in mine]))
    agreement = result.get("agreement")
    att = _iv(agreement["attention"]) if agreement else f"{mean_tau:+.2f}"
    rank = (f"attention's token ranking shows {band(mean_tau)} with its attributions (mean τ {att}: "
            + ", ".join(f"{label[m]} {_iv(t)}" for m, t in zip(ATTRIBUTIONS, mine)) + ")")
    base_mean = float(np.mean([t["value"] for _, _, t in pairs]))
    base = _iv(agreement["attributions"]) if agreement else f"{base_mean:+.2f}"
    rank += (f"; the attributions with each other: mean τ {base} ("
             + ", ".join(f"{label[a]} ~ {label[b]} {_iv(t)}" for a, b, t in pairs) + ")")
    if agreement:
        d = agreement["attention_minus_attributions"]
        how = {"supported": "more than", "contradicted": "less than",
               "inconclusive": "inconclusive whether more or less than"}[d["verdict"]]
        rank += f", so attention agrees with them {how} they agree with each other (difference {_iv(d)})"
    extras = [f"{label[m]} {t['value']:+.2f}" for m in ("rollout", "attention_flow")
              if (t := tau_of(result, "attention", m)) is not None]
    if extras:
        rank += "; attention with " + ", ".join(extras)
    diff = result["attention_minus_random"]
    comp = result["aopc"]["comprehensiveness"]
    # a relatedness model's target is its score ŷ = rᵀp̂ (Tai et al. 2015), not a class's probability
    measure = SCORE_MEASURES.get(result.get("target"), "the predicted class's probability")
    values = (f"comprehensiveness, mean over 10/20/50%: "
              f"{comp['attention']['value']:.3f} vs {comp['random']['value']:.3f}, difference {_iv(diff, '{:+.3f}')}")
    if diff["verdict"] == "inconclusive":
        erase = (f"whether deleting the most-attended tokens lowers {measure} more than "
                 f"deleting random ones is inconclusive: the interval contains 0 ({values})")
    else:
        what = "more" if diff["verdict"] == "supported" else "less"
        erase = (f"deleting the most-attended tokens lowers {measure} {what} than deleting "
                 f"random ones ({values})")
    return f"{result['model']}: {rank}; {erase}."


def summarize(per: dict[str, np.ndarray], arch: str) -> dict:
    """Means with bootstrap intervals, the baselines, the attention − random comparison and ERASER's AOPC."""
    methods = methods_for(arch)
    tau = {}
    for a, b in itertools.combinations(methods, 2):
        tau[f"{a}:{b}"] = _ci(per[f"tau:{a}:{b}"])
    kinds = ("comprehensiveness", "sufficiency")
    eraser, aopc, aopc_eraser, per_aopc = [], {k: {} for k in kinds}, {k: {} for k in kinds}, {}
    for r in rankings_for(arch):
        for frac in FRACTIONS:
            eraser.append({"ranking": r, "fraction": frac, **{kind: _ci(per[f"{kind}:{r}:{frac:g}"]) for kind in kinds}})
        for kind in kinds:
            per_aopc[(kind, r)] = np.mean([per[f"{kind}:{r}:{f:g}"] for f in OUR_BINS], 0)
            aopc[kind][r] = _ci(per_aopc[(kind, r)])
            # ERASER: Σ over the bins / (|B| + 1), the extra bin being the empty removal (value 0).
            aopc_eraser[kind][r] = _ci(np.sum([per[f"{kind}:{r}:{f:g}"] for f in FRACTIONS], 0) / (len(FRACTIONS) + 1))
    diff = _ci(per_aopc[("comprehensiveness", "attention")] - per_aopc[("comprehensiveness", "random")])
    diff["verdict"] = verdict(diff["value"], *diff["ci95"], 0.0, 1)
    key = lambda a, b: f"tau:{a}:{b}" if f"tau:{a}:{b}" in per else f"tau:{b}:{a}"  # noqa: E731
    per_att = _row_mean([per[key("attention", m)] for m in ATTRIBUTIONS])
    per_base = _row_mean([per[key(a, b)] for a, b in itertools.combinations(ATTRIBUTIONS, 2)])
    agreement = {"attention": _ci(per_att), "attributions": _ci(per_base),
                 "attention_minus_attributions": _paired(per_att, per_base)}
    if arch == "dsa":
        per_pool = _row_mean([per[key("pooling", m)] for m in ATTRIBUTIONS])
        agreement["pooling"] = _ci(per_pool)
        agreement["pooling_minus_attributions"] = _paired(per_pool, per_base)
    jw = {k: _ci(per[f"jw:{k}"]) for k in ("tau_g_detached", "tau_g", "tau_loo")}
    steps = {what: {kind: {r: _ci(per[f"{what}:{kind}:{r}"]) for r in rankings_for(arch)} for kind in kinds}
             if f"{what}:comprehensiveness:random" in per else None for what in ("aopc_steps", "naopc")}
    return {"tau": tau, "eraser": eraser, "aopc": aopc, "aopc_eraser": aopc_eraser, "attention_minus_random": diff,
            "agreement": agreement, "jain_wallace": jw, **steps}


def run(model: SentenceModel, examples: Sequence[Example], task: str, split: str, checkpoint_sha256: str,
        limit: int | None = None, steps: int | None = None, progress: bool = True, cache: Path | None = None,
        naopc: bool = True, naopc_limit: int | None = NAOPC_LIMIT) -> dict:
    """The faithfulness JSON of ``model`` on the split's ``examples`` (all, or a ``limit`` sample); with a
    ``cache`` folder, resumable (``measure``). ``seconds``: the batches' compute time, earlier runs' included.
    The normalised AOPC (about 2·BEAM·n² extra forward rows per example of n tokens) is measured on a seeded
    sample of ``naopc_limit`` of those examples (``naopc_sample``; 0 or None: all); ``naopc=False`` skips it: its
    keys are then null and listed in ``not_computed``."""
    arch = model.cfg.arch
    steps = steps or IG_STEPS[arch]
    ids = sample(len(examples), limit)
    n_split = len(examples)
    examples = [examples[i] for i in ids]
    chosen = naopc_sample(len(examples), naopc_limit) if naopc else np.zeros(len(examples), bool)  # (N,)
    per = measure(model, examples, ids, steps, progress, cache,
                  {"model": model.name, "checkpoint_sha256": checkpoint_sha256, "task": task, "split": split}, chosen)
    seconds = float(np.sum(per["seconds"]))
    s = summarize(per, arch)
    tau_rows = [{"a": a, "b": b, **s["tau"][f"{a}:{b}"]} for a, b in itertools.combinations(methods_for(arch), 2)]
    delta, gap = np.abs(per["ig_delta"]), np.abs(per["ig_gap"])
    with np.errstate(all="ignore"):
        rel = delta / gap
    result = {
        "schema_version": SCHEMA_VERSION, "model": model.name, "checkpoint_sha256": checkpoint_sha256,
        "task": task, "split": split, "n_examples": n_split, "n": len(examples),
        "complete": len(examples) == n_split,
        "sample": {"limit": limit, "seed": SEED, "how": "all examples" if len(examples) == n_split else
                   "seeded random sample of the split (numpy default_rng(0).choice without replacement)"},
        "target": ("the predicted class of the whole input" if not model.cfg.relatedness
                   else TARGET_SCORE if model.cfg.pair else TARGET_SENTENCE_SCORE),
        "methods": {m: {"label": METHODS[m][0], "measures": METHODS[m][1]} for m in methods_for(arch)},
        "integrated_gradients": {
            "steps": steps, "method": IG_METHOD, "baseline": IG_BASELINE,
            "mean_abs_delta": float(delta.mean()), "max_abs_delta": float(delta.max()),
            "median_relative_delta": float(np.nanmedian(rel[gap > 1e-3])) if (gap > 1e-3).any() else None,
        },
        "rollout": {"exact": arch == "disan", "mean_remainder": float(np.nanmean(per["rollout_remainder"])),
                    "what": ROLLOUT_REFERENCE + "; mixing-weight shares, mean over the sentence features"},
        "attention_flow": {"exact": arch == "disan", "how": FLOW_HOW},
        "tau": tau_rows,
        "agreement": s["agreement"],
        "jain_wallace": {**s["jain_wallace"], "tokens": "the premise only (SST: the sentence)",
                         "detached": "tau_g_detached: gradient × input with the attention weights detached "
                                     "(Jain & Wallace); tau_g: through the attention, as our other rows"},
        "pooling": None if arch != "dsa" else {
            "source2token_feature_fraction": 0.5,
            "source2token_l1_share": _ci(per["pooling_s2t_l1_share"]),
            "what": "half the sentence features are source2token's pooled U, half max pooling of U (Im Sec. 4.2); "
                    "l1 share: Σ|pooled| / Σ|sentence| per example"},
        "eraser": s["eraser"],
        "aopc": s["aopc"],
        "aopc_eraser": s["aopc_eraser"],
        "aopc_bins": {"ours": list(OUR_BINS), "eraser": list(FRACTIONS), "eraser_denominator": len(FRACTIONS) + 1},
        "aopc_steps": s["aopc_steps"],
        "naopc": s["naopc"],
        "naopc_how": {**NAOPC_HOW, "sample": {
            "limit": naopc_limit or None, "seed": NAOPC_SEED, "n": int(chosen.sum()),
            "how": "every measured example" if chosen.all() else
                   f"seeded random sample of the {len(examples):,} measured examples (numpy default_rng({NAOPC_SEED})"
                   ".choice without replacement); every other measure uses all of them"}} if naopc else None,
        "attention_minus_random": s["attention_minus_random"],
        "tau_bands": [{"below": None if math.isinf(lim) else lim, "name": name} for lim, name in TAU_BANDS],
        "mean_length": float(np.mean(per["length"])),
        "seconds": round(seconds, 1),
        "bootstrap": {"replicates": N_BOOT, "seed": BOOT_SEED, "unit": "example", "level": 0.95},
        "not_computed": [] if naopc else [
            {"key": k, "why": "skipped (--no-naopc); recompute with python -m disan faithfulness --model "
                              f"{model.name} --write"} for k in ("aopc_steps", "naopc", "naopc_how")],
    }
    result["answer"] = answer(result)
    return result
