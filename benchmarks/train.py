"""Training throughput as an SNLI-epoch equivalent (Shen Table 1: 587 s, Im Table 1: 693 s per epoch).

One SNLI training epoch is 549,367 pairs in 8,584 batches of 64. The SNLI
training file is not available here, so the epoch is *simulated*: 549,367
pairs are drawn (with replacement, seeded) from the SNLI dev + test pairs
(19,684 real sentence pairs, tokenized with ``disan.tokenize``), bucketed
into batches exactly as ``train.py`` does (``train.epoch_batches``), and a
uniform random sample of those batches is timed — forward, backward and an
optimizer step with each paper's optimizer, through ``SentenceModel`` as in
``train.py``. The epoch time is the mean step time × the number of batches.

Without the SNLI files the pair lengths come from ``FALLBACK_LENGTHS``
(a fixed, documented distribution) and the words from ``FILLER_WORDS``.

DiSAN is timed twice on the same batches, interleaved: with the fused
token2token (``auto``) and with the naive reference (``naive``: unchunked,
unfused, plain autograd), so the speed-up is a ratio measured under the same
conditions. ``train`` itself uses neither by default: it measures the kernels
on its own device and batch (``disan/kernel_choice.py``); the table's notes
say which of the two its rule picks at the table's times.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .common import FILLER_WORDS, Table

SNLI_TRAIN_PAIRS = 549_367
BATCH_SIZE = 64
#: Shen et al. 2018 Table 1 and Im & Cho 2017 Table 1, T(s)/epoch on one GTX 1080 Ti.
PAPER_EPOCH_S = {"disan": 587.0, "dsa": 693.0}
PAPER_SOURCE = {"disan": "Shen et al. 2018, Table 1", "dsa": "Im & Cho 2017, Table 1"}

#: Fallback when the SNLI dev/test files are absent: (premise, hypothesis) token
#: lengths ~ 1 + Poisson(mean − 1), with the means of SNLI dev+test under
#: ``disan.tokenize`` (premise 15.2, hypothesis 8.3), clipped to [1, 82].
FALLBACK_LENGTHS = {"premise_mean": 15.2, "hypothesis_mean": 8.3, "max": 82, "seed": 0, "pairs": 20_000}


@dataclass
class PairPool:
    """The pairs an epoch is drawn from."""

    premises: list[tuple[str, ...]]
    hypotheses: list[tuple[str, ...]]
    source: str

    def lengths(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array([len(p) for p in self.premises]), np.array([len(h) for h in self.hypotheses])


def load_pairs(data_dir: str | None = None, limit: int | None = None) -> PairPool:
    """SNLI dev + test pairs (tokenized; the first ``limit`` of dev only if given), or the documented fallback."""
    from disan.errors import DisanError
    from disan.vocab import tokenize

    try:
        from disan.data import load_snli

        examples = load_snli("dev", data_dir)[:limit] if limit else load_snli("dev", data_dir) + load_snli("test", data_dir)
    except (DisanError, OSError) as err:
        rng = np.random.default_rng(FALLBACK_LENGTHS["seed"])
        n, cap = min(FALLBACK_LENGTHS["pairs"], limit or FALLBACK_LENGTHS["pairs"]), FALLBACK_LENGTHS["max"]
        lp = np.clip(1 + rng.poisson(FALLBACK_LENGTHS["premise_mean"] - 1, n), 1, cap)
        lh = np.clip(1 + rng.poisson(FALLBACK_LENGTHS["hypothesis_mean"] - 1, n), 1, cap)
        words = np.array(FILLER_WORDS)

        def sent(k: int) -> tuple[str, ...]:
            return tuple(words[rng.integers(0, len(words), k)])

        return PairPool(
            [sent(k) for k in lp], [sent(k) for k in lh],
            f"fallback lengths (SNLI files not found: {type(err).__name__}): premise 1+Poisson(14.2), "
            "hypothesis 1+Poisson(7.3), filler words",
        )
    prem = [tuple(tokenize(e.text)) or ("<unk>",) for e in examples]
    hyp = [tuple(tokenize(e.hypothesis or "")) or ("<unk>",) for e in examples]
    what = f"SNLI dev (first {len(examples):,} pairs)" if limit else f"SNLI dev+test, {len(examples):,} pairs"
    return PairPool(prem, hyp, f"{what}, tokenized with disan.tokenize")


@dataclass
class EpochPlan:
    """A simulated SNLI epoch: which pool pairs each batch holds, and which batches are timed."""

    pair_of: np.ndarray  # (SNLI_TRAIN_PAIRS,) index into the pool
    batches: list[np.ndarray]  # positions in pair_of, as train.epoch_batches gives them
    timed: list[int]  # indices into batches
    warmup: list[int]


def plan_epoch(pool: PairPool, n_timed: int, n_warmup: int, seed: int = 0, pairs: int = SNLI_TRAIN_PAIRS) -> EpochPlan:
    from disan.train import epoch_batches

    rng = np.random.default_rng(seed)
    lp, lh = pool.lengths()
    pair_of = rng.integers(0, len(lp), pairs)
    batches = epoch_batches(np.maximum(lp, lh)[pair_of], BATCH_SIZE, seed, 0)
    chosen = rng.choice(len(batches), size=min(len(batches), n_timed + n_warmup), replace=False)
    return EpochPlan(pair_of, batches, [int(i) for i in chosen[n_warmup:]], [int(i) for i in chosen[:n_warmup]])


def build(arch: str, pool: PairPool, device: str):
    """A model and optimizer as ``train.py`` builds them (paper defaults, vocabulary of the pool's words)."""
    import torch

    from disan.config import NLI_LABELS
    from disan.evaluate import Encoded
    from disan.train import TrainConfig, build_model, make_optimizer, paper_defaults

    cfg = TrainConfig(model=arch, task="snli", out="runs/bench", **paper_defaults(arch, "snli"))
    data = Encoded(tuple(pool.premises), tuple(pool.hypotheses), np.zeros(len(pool.premises), dtype=np.int64))
    torch.manual_seed(0)
    model = build_model(cfg, data).to(device)
    assert model.cfg.labels == NLI_LABELS
    return model, make_optimizer(cfg, model)


def run(
    archs, pool: PairPool, n_timed: int, n_warmup: int, device: str = "cpu", threads: int | None = None, log=print,
) -> dict:
    """Time the plan's batches for every (arch, implementation); returns per-row step times."""
    import torch
    import torch.nn.functional as F

    from disan.fused_attention import set_impl

    if threads:
        torch.set_num_threads(threads)
    plan = plan_epoch(pool, n_timed, n_warmup)
    sync = torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)
    rows = {}
    for arch in archs:
        model, opt = build(arch, pool, device)
        impls = ("auto", "naive") if arch == "disan" else ("auto",)
        labels = torch.zeros(BATCH_SIZE, dtype=torch.long, device=device)

        def step(b: int) -> float:
            idx = plan.pair_of[plan.batches[b]]
            prem = [pool.premises[i] for i in idx]
            hyp = [pool.hypotheses[i] for i in idx]
            y = labels[: len(idx)]
            sync()
            start = time.perf_counter()
            model.train()
            logits, _, _ = model(prem, hyp)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss.item()
            sync()
            return time.perf_counter() - start

        for impl in impls:
            set_impl(model, impl)
            for b in plan.warmup:
                step(b)
        times = {impl: [] for impl in impls}
        pairs = []
        for k, b in enumerate(plan.timed):
            pairs.append(len(plan.batches[b]))
            for impl in impls:  # interleaved: both implementations see the same load
                set_impl(model, impl)
                times[impl].append(step(b))
            if (k + 1) % max(1, len(plan.timed) // 4) == 0:
                log(f"  {arch}: {k + 1}/{len(plan.timed)} batches " +
                    ", ".join(f"{i} {np.mean(t):.3f} s/step" for i, t in times.items()))
        set_impl(model, "auto")
        for impl in impls:
            rows[(arch, impl)] = {"times": times[impl], "pairs": pairs}
        del model, opt
    lp, lh = pool.lengths()
    return {
        "rows": rows,
        "n_batches": len(plan.batches),
        "n_timed": len(plan.timed),
        "n_warmup": len(plan.warmup),
        "pool": pool.source,
        "mean_lengths": (float(lp.mean()), float(lh.mean())),
        "device": device,
        "threads": torch.get_num_threads(),
    }


def epoch_seconds(row: dict, n_batches: int) -> float:
    return float(np.mean(row["times"])) * n_batches


def sentences_per_second(row: dict) -> float:
    return 2 * sum(row["pairs"]) / sum(row["times"])  # a pair is two sentences


IMPL_NAMES = {"auto": "fused token2token", "naive": "naive reference (unchunked, unfused)"}

def kernel_notes(res: dict, hardware: str) -> list[str]:
    """What ``train`` does about the token2token kernel, and what its rule picks at this table's DiSAN times."""
    from disan.kernel_choice import MARGIN, pick

    rows, n = res["rows"], res["n_batches"]
    if ("disan", "auto") not in rows or ("disan", "naive") not in rows:
        return []
    epoch = {"fused": epoch_seconds(rows[("disan", "auto")], n), "naive": epoch_seconds(rows[("disan", "naive")], n)}
    chosen = {"fused": "fused kernel", "naive": "naive reference"}[pick(epoch)]
    return [
        "`train` does not assume a token2token kernel: before its first step it times fused, chunked reference and "
        "naive forward + backward on the device it trains on (`--device`, the GPU when present), at the batch in the "
        "middle of the first epoch's B·T² attention work, and trains with the fastest (`disan/kernel_choice.py`; "
        "`--t2t-impl measure`, the default; `fused|reference|naive` force one). The run's `train.json` records the "
        "choice and its ms per step under `token2token`, and the model card states them; a resumed run keeps its "
        "kernel.",
        f"At this table's times that rule (`kernel_choice.pick`: the fastest, or a leaner kernel within "
        f"{MARGIN:.0%} of it) picks the {chosen} on {hardware} (fused {epoch['fused']:,.0f} s, naive "
        f"{epoch['naive']:,.0f} s per epoch); `train` decides on its own device and batch, with the chunked "
        f"reference as a third candidate.",
    ]


def table(res: dict, hardware: str) -> Table:
    t = Table(
        "SNLI-epoch equivalent: forward + backward + optimizer step over 549,367 pairs, batch 64",
        ["model", "implementation", "hardware", "s / epoch", "sentences / s", "vs paper", "speed-up vs naive"],
    )
    for arch in ("disan", "dsa"):
        if any(a == arch for a, _ in res["rows"]):
            t.add(arch, "TensorFlow (paper)", "1 × GTX 1080 Ti", f"{PAPER_EPOCH_S[arch]:,.0f}",
                  "–", "1.00×", "–")
    n = res["n_batches"]
    for (arch, impl), row in res["rows"].items():
        ep = epoch_seconds(row, n)
        naive = res["rows"].get((arch, "naive"))
        speed = f"{epoch_seconds(naive, n) / ep:.2f}×" if naive is not None else "–"
        vs = f"{ep / PAPER_EPOCH_S[arch]:.2f}× paper time"
        name = IMPL_NAMES[impl] if arch == "disan" else "default (no 4-D tensor; one implementation)"
        t.add(arch, name, hardware, f"{ep:,.0f}", f"{sentences_per_second(row):,.0f}", vs, speed)
    t.notes.append(
        f"Extrapolated: mean step time over {res['n_timed']} timed batches (after {res['n_warmup']} warm-up batches), "
        f"drawn uniformly from the {n:,} length-bucketed batches of a simulated epoch, × {n:,}."
    )
    t.notes.append(
        f"Pairs: {res['pool']}; mean tokens premise {res['mean_lengths'][0]:.1f}, hypothesis {res['mean_lengths'][1]:.1f}. "
        "Embeddings 50-d GloVe (the papers: 300-d), d_h 300, each paper's optimizer and dropout."
    )
    t.notes.append("Paper rows: Shen et al. 2018 Table 1 (DiSAN, 587 s) and Im & Cho 2017 Table 1 (DSA, 693 s), "
                   "TensorFlow on one GTX 1080 Ti, real SNLI train.")
    t.notes += kernel_notes(res, hardware)
    return t
