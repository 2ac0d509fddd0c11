"""Model-parameter randomisation tests (Adebayo et al. 2018, Sec. 3.1): ``python -m disan sanity``.

An explanation that barely changes when the weights it explains are replaced by random ones explains the
architecture (the masks, the input), not what the model learned. Cascading randomisation replaces the weights
from the output layer down to the embeddings, one block per step, cumulatively (``STEPS``):

* DiSAN: head → source2token (Shen Eqs. 12–13) → backward DiSA block → forward DiSA block (Shen Eqs. 14–20)
  → word embeddings;
* distance-based network: head → source2token (Im Eqs. 14–16; max pooling has no weights) → backward block →
  forward block (Im Eqs. 5–13) → input projection (50-d GloVe → d_model, where there is one) → word embeddings.

A block's weights are re-drawn i.i.d. normal with each tensor's own mean and standard deviation (a tensor of one
value, or of zero spread, keeps it). The embedding step gives every word a fresh random vector (seeded by the
word, the same vector for every occurrence) with the mean and spread of the model's embedded inputs, since
words outside the model's table take GloVe's vectors, which are no parameters.

Per example, the explanation of the class the *trained* model predicts (a relatedness model: its score) is
compared between the trained and the randomised model: Spearman's ρ between the two rankings (signed
attributions by magnitude, as ``sentence.SIGNED``) and the top-k overlap |top_k(a) ∩ top_k(b)| / k with
k = ⌈``TOP_FRACTION``·n⌉; an NLI pair's value is the mean over its two sentences. The methods: every series of
``sentence.methods_for`` (LRP included, ``lrp.py``) and the token2token maps, as drawn (every cell of the real
tokens, masked cells included, forward and backward block: ``token2token``) and row by row (each query's
probabilities over the keys its mask allows, the mean over rows with at least two: ``token2token_rows``), which
leaves out what the mask and each row's normalisation fix and compares which keys a query prefers.

Verdict per method (our convention, stated beside every result): at the last step (every weight random), the
method **passes** when the 95% bootstrap interval of its mean ρ lies below ``RHO_PASS``, **fails** when it lies
above, and is **inconclusive** otherwise.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np
import torch
from scipy.stats import spearmanr
from tqdm import tqdm

from ..model import SentenceModel
from ..stats import bootstrap_ci
from .attention_flow import attention_flow
from .budget import ig_rows
from .corpus import SEED, batches, example_sides, sample
from .erasure import leave_one_out
from .forward import ClassProbability, Embedded
from .gradient import IG_STEPS, gradient_x_input, integrated_gradients
from .lrp import lrp
from .rank import top_positions
from .rollout import gated_rollout
from .sentence import SIGNED, methods_for, weight_series

#: Cascading steps per architecture: (name, parameter-name prefixes randomised at this step). ``EMBEDDINGS``
#: stands for the embedding step (the table and GloVe's vectors, ``random_embeddings``).
EMBEDDINGS = "embeddings"
STEPS = {
    "disan": (("head", ("head.",)), ("source2token", ("encoder.s2t.",)), ("backward block", ("encoder.bw.",)),
              ("forward block", ("encoder.fw.",)), (EMBEDDINGS, ("embedding.",))),
    "dsa": (("head", ("head.",)), ("source2token", ("encoder.s2t.",)), ("backward block", ("encoder.bw.",)),
            ("forward block", ("encoder.fw.",)), ("input projection", ("encoder.proj.",)),
            (EMBEDDINGS, ("embedding.",))),
}
#: Extra series compared here (beside ``methods_for``, LRP included): the token2token maps.
MAPS = ("token2token", "token2token_rows")
#: The top-k overlap's k as a share of the sentence (at least one token or cell).
TOP_FRACTION = 0.2
#: A method passes when its mean ρ at the last step is significantly below this (module docstring).
RHO_PASS = 0.5
#: Seed of the re-drawn weights (the sample's seed is ``corpus.SEED``).
WEIGHT_SEED = 1


def methods(arch: str) -> tuple[str, ...]:
    return methods_for(arch) + MAPS


def steps_for(model: SentenceModel) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``STEPS`` of the model's architecture, without a step that has no parameter (a DSA without projection)."""
    names = [n for n, _ in model.named_parameters()]
    return tuple((step, prefixes) for step, prefixes in STEPS[model.cfg.arch]
                 if any(n.startswith(prefixes) for n in names))


def _clone(model: SentenceModel) -> SentenceModel:
    """A copy of the model with its own weights, sharing its vocabulary and (large, read-only) GloVe table."""
    clone = SentenceModel(model.cfg, model.vocab, model.glove, f"{model.name} (randomised)", random_weights=True)
    clone.load_state_dict(model.state_dict())
    return clone.to(model.device).eval()


def redraw_(model: SentenceModel, prefixes: Sequence[str], seed: int) -> None:
    """Re-draw every parameter whose name starts with one of ``prefixes``: i.i.d. normal with the tensor's own
    mean and standard deviation (a one-value or constant tensor keeps its value)."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if not name.startswith(tuple(prefixes)) or p.numel() < 2:
                continue
            mean, std = p.float().mean(), p.float().std()
            p.copy_((torch.randn(p.shape, generator=gen) * std + mean).to(p))
    model.zero_unk_row()


def cascade(model: SentenceModel, seed: int = WEIGHT_SEED) -> Iterator[tuple[str, SentenceModel, bool]]:
    """(step name, a randomised copy, whether the embeddings are random too) per cumulative step; ``model``
    itself is never changed."""
    clone = _clone(model)
    for i, (step, prefixes) in enumerate(steps_for(model)):
        redraw_(clone, prefixes, seed * 1000 + i)
        yield step, clone, step == EMBEDDINGS


def random_embeddings(emb: Embedded, mean: float, std: float, seed: int = WEIGHT_SEED) -> Embedded:
    """``emb`` with every real token's vector replaced by a random one seeded by (seed, the word): the same word
    gets the same vector anywhere; padding stays zero."""
    xs = []
    for x, v, tokens in zip(emb.xs, emb.valids, emb.tokens):
        out = torch.zeros_like(x)
        for b, toks in enumerate(tokens):
            for t, word in enumerate(toks):
                gen = torch.Generator().manual_seed(seed * 2**32 + zlib.crc32(word.encode("utf-8")))
                out[b, t] = (torch.randn(x.shape[-1], generator=gen) * std + mean).to(x)
        xs.append(out * v[..., None])
    return replace(emb, xs=tuple(xs))


def block_maps(trace) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(map (B, T, T), allowed (B, T, T)) of the forward and the backward block: DiSAN's P mean over features
    (Shen Fig. 6), the DSA's P mean over heads."""
    out = []
    for block in (trace.fw, trace.bw):
        probs = block.probs_mean if hasattr(block, "probs_mean") else block.probs.mean(1)  # (B, T, T)
        out.append((probs.float().cpu(), block.allowed.cpu()))
    return out


def _cells(maps: list[tuple[torch.Tensor, torch.Tensor]], b: int, n: int, rows: bool) -> list[np.ndarray]:
    """Example b's map over its n real tokens, both blocks: as drawn (one vector of every cell), or ``rows``:
    each query's row over the keys the mask allows (one vector per row with at least two)."""
    if not rows:
        return [np.concatenate([probs[b, :n, :n].numpy().ravel() for probs, _ in maps])]
    out = []
    for probs, allowed in maps:
        p, a = probs[b, :n, :n].numpy(), allowed[b, :n, :n].numpy()
        out.extend(p[j][a[j]] for j in range(n) if a[j].sum() >= 2)
    return out


def explain(model: SentenceModel, fn: ClassProbability, emb: Embedded, target: torch.Tensor,
            steps: int) -> dict[str, list[list[list[np.ndarray]]]]:
    """method → [side][b] the example's explanation for ``target`` (B,): a list of vectors compared part by
    part (one vector per token series; the maps' rows for ``token2token_rows``)."""
    arch = model.cfg.arch
    with torch.no_grad():
        encs = [model.encoder(x, v, True, fn.masks, fn.alpha)[1] for x, v in zip(emb.xs, emb.valids)]
        p_full = fn.outputs(emb.xs, emb.valids).gather(1, target[:, None])[:, 0]  # (B,)
    T = max(x.shape[1] for x in emb.xs)
    gi = gradient_x_input(fn, emb, target)
    ig = integrated_gradients(fn, emb, target, steps, internal_batch_size=ig_rows(model.cfg, T))
    loo = leave_one_out(fn, emb, target, p_full)
    rel = lrp(fn, emb, target).scores
    out: dict[str, list[list[np.ndarray]]] = {m: [] for m in methods(arch)}
    for s, trace in enumerate(encs):
        full = {**weight_series(trace), "grad_input": gi[s], "integrated_gradients": ig.scores[s],
                "leave_one_out": loo[s], "rollout": gated_rollout(trace).shares,
                "attention_flow": attention_flow(trace).shares, "lrp": rel[s]}
        lengths = emb.valids[s].sum(-1).tolist()
        for m in methods_for(arch):
            values = full[m].detach().float().cpu().numpy()
            out[m].append([[np.abs(values[b, :n]) if m in SIGNED else values[b, :n]]
                           for b, n in enumerate(lengths)])
        maps = block_maps(trace)
        for m in MAPS:
            out[m].append([_cells(maps, b, n, m == "token2token_rows") for b, n in enumerate(lengths)])
    return out


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ of two equally long vectors; NaN below two values or for a constant vector."""
    if a.size < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def top_overlap(a: np.ndarray, b: np.ndarray, fraction: float = TOP_FRACTION) -> float:
    """|top_k(a) ∩ top_k(b)| / k with k = ⌈fraction·n⌉ (at least 1); NaN below two values."""
    if a.size < 2:
        return float("nan")
    k = max(1, math.ceil(fraction * a.size - 1e-9))
    return len(set(top_positions(a, k)) & set(top_positions(b, k))) / k


def _mean(values: list[float]) -> float:
    finite = [v for v in values if np.isfinite(v)]
    return float(np.mean(finite)) if finite else float("nan")


def _per_example(trained, other, fn) -> np.ndarray:
    """(B,) ``fn`` of trained vs randomised per example: the mean over its parts, then over its sides (NaN where
    nothing is defined)."""
    B = len(trained[0])
    return np.array([_mean([_mean([fn(a, b) for a, b in zip(trained[s][e], other[s][e])])
                            for s in range(len(trained))]) for e in range(B)])


def _chance(trained) -> np.ndarray:
    """(B,) the top-k overlap two independent random rankings have on average, k/n, averaged as ``_per_example``."""
    def k_over_n(a: np.ndarray) -> float:
        return max(1, math.ceil(TOP_FRACTION * a.size - 1e-9)) / a.size if a.size >= 2 else float("nan")

    B = len(trained[0])
    return np.array([_mean([_mean([k_over_n(a) for a in trained[s][e]]) for s in range(len(trained))])
                     for e in range(B)])


def measure(model: SentenceModel, sides: Sequence[tuple[tuple[str, ...], ...]], progress: bool = False,
            steps: int | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Per example: ``{step: {f"rho:{method}" | f"top:{method}" | f"chance:{method}": (n,)}}`` over ``sides``."""
    model.eval()
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    steps = steps or IG_STEPS[model.cfg.arch]
    n = len(sides)
    layout = batches(sides, model.cfg, steps)
    cascade_steps = [s for s, _ in steps_for(model)]
    out = {step: {} for step in cascade_steps}
    bar = tqdm(total=n * (1 + len(cascade_steps)), desc=f"{model.name}: randomisation", unit="explanation",
               disable=not progress)
    for batch in layout:
        n_sides = len(sides[batch[0]])
        emb = fn.embed([[list(sides[i][k]) for i in batch] for k in range(n_sides)])
        with torch.no_grad():
            outputs = fn.outputs(emb.xs, emb.valids)
            target = (torch.full((emb.batch,), outputs.shape[-1] - 1) if model.cfg.relatedness
                      else outputs.argmax(-1))  # (B,) what the trained model predicts, kept for every step
        trained = explain(model, fn, emb, target, steps)
        bar.update(len(batch))
        real = torch.cat([x[v] for x, v in zip(emb.xs, emb.valids)])  # (N, d_in) the real tokens' vectors
        for step, randomised, words in cascade(model):
            rfn = replace(fn, model=randomised)
            remb = random_embeddings(emb, float(real.mean()), float(real.std())) if words else emb
            other = explain(randomised, rfn, remb, target, steps)
            for m in trained:
                for key, fn_ in (("rho", spearman), ("top", top_overlap)):
                    out[step].setdefault(f"{key}:{m}", np.full(n, np.nan))[batch] = _per_example(
                        trained[m], other[m], fn_)
                out[step].setdefault(f"chance:{m}", np.full(n, np.nan))[batch] = _chance(trained[m])
            bar.update(len(batch))
    bar.close()
    return out


def _ci(values: np.ndarray) -> dict:
    v = values[np.isfinite(values)]
    lo, hi = bootstrap_ci(v)
    return {"value": float(v.mean()) if v.size else float("nan"), "ci95": [lo, hi], "n": int(v.size)}


def verdict(rho: dict) -> str:
    """``passes`` / ``fails`` / ``inconclusive`` from the last step's mean ρ and its interval (``RHO_PASS``)."""
    lo, hi = rho["ci95"]
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return "inconclusive"
    if hi < RHO_PASS:
        return "passes"
    if lo > RHO_PASS:
        return "fails"
    return "inconclusive"


def summarize(per: dict[str, dict[str, np.ndarray]], arch: str) -> dict:
    """Means with 95% bootstrap intervals per step and method, and a verdict per method."""
    steps = list(per)
    table = {step: {m: {"spearman": _ci(per[step][f"rho:{m}"]), "top_k_overlap": _ci(per[step][f"top:{m}"]),
                        "top_k_chance": _mean(list(per[step][f"chance:{m}"]))}
                    for m in methods(arch)} for step in steps}
    last = table[steps[-1]]
    return {"steps": steps, "by_step": table,
            "verdicts": {m: verdict(last[m]["spearman"]) for m in methods(arch)}}


def run(model: SentenceModel, examples: Sequence, task: str, split: str, limit: int | None,
        progress: bool = False) -> dict:
    """The randomisation test of ``model`` on a seeded sample (``corpus.sample``) of ``examples``."""
    ids = sample(len(examples), limit)
    sides = [example_sides(examples[i], model.cfg.max_tokens) for i in ids]
    per = measure(model, sides, progress)
    return {"model": model.name, "task": task, "split": split, "n_examples": len(examples), "n": len(ids),
            "sample_seed": SEED, "weight_seed": WEIGHT_SEED, "top_fraction": TOP_FRACTION, "rho_pass": RHO_PASS,
            "reference": "Adebayo et al. 2018, Sanity Checks for Saliency Maps, Sec. 3.1 (cascading)",
            **summarize(per, model.cfg.arch)}


def table(result: dict) -> str:
    """The result as aligned text: per method, ρ and top-k overlap at every step, then its verdict."""
    head = f"{result['model']} on {result['task']} {result['split']}: {result['n']:,} of {result['n_examples']:,} " \
           f"examples (seed {result['sample_seed']}), "
    if "shuffled_model" in result:  # the data randomisation test (data_randomisation.py)
        head += f"trained vs shuffled-label model {result['shuffled_model']}"
    else:
        head += f"weights re-drawn with seed {result['weight_seed']}; steps: {' → '.join(result['steps'])} (cumulative)"
    lines = [head, f"verdict at the last step: passes when the 95% interval of mean Spearman ρ lies below "
                   f"{result['rho_pass']}, fails above it; top-k overlap with k = ⌈{result['top_fraction']}·n⌉"]
    if result.get("sample_accuracy"):
        acc = result["sample_accuracy"]
        lines.append(f"accuracy on the sample: trained {acc['trained']:.3f}, shuffled {acc['shuffled']:.3f}; "
                     f"same prediction on {result['prediction_agreement']:.3f}")
    for m, v in result["verdicts"].items():
        lines.append(f"  {m}: {v}")
        for step in result["steps"]:
            row = result["by_step"][step][m]
            rho, top = row["spearman"], row["top_k_overlap"]
            lines.append(f"    {step:<17} ρ {rho['value']:+.3f} [{rho['ci95'][0]:+.3f}, {rho['ci95'][1]:+.3f}]  "
                         f"top-k {top['value']:.3f} [{top['ci95'][0]:.3f}, {top['ci95'][1]:.3f}] "
                         f"(chance {row['top_k_chance']:.3f})  n={rho['n']}")
    return "\n".join(lines)
