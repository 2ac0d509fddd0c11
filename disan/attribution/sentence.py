"""``attribute(model, trace)``: the four attributions and the model's own attention for one input.

The trace fixes the tokens, masks and α; ``target`` picks the class explained
(default: the predicted one). NLI inputs get scores for every token of premise and
hypothesis (the class probability depends on both); attention and flow are per
sentence, because each sentence goes through the tied encoder on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..errors import InputError
from ..model import SentenceModel
from ..trace import ModelTrace, SentenceTrace
from .budget import ig_rows
from .erasure import leave_one_out
from .flow import attention_flow
from .forward import ClassProbability
from .gradient import IG_BASELINE, IG_METHOD, IG_STEPS, gradient_x_input, integrated_gradients
from .rank import kendall_tau

#: Per-token series in display order: key → (label, what it measures).
METHODS = {
    "attention": ("source2token attention",
                  "the model's own pooling weight of the token (Shen Eq. 13 / Im Eq. 15), mean over features"),
    "grad_input": ("gradient × input",
                   "∂p(class)/∂x ⊙ x summed over the embedding: the first-order change of the class probability "
                   "if the token's embedding were scaled to zero"),
    "integrated_gradients": ("Integrated Gradients",
                             "the gradient averaged along the straight path from the zero embedding (every token "
                             "<unk>) to the input, times the input; the tokens' scores add up to p(x) − p(baseline)"),
    "leave_one_out": ("leave-one-out",
                      "the drop in the class probability when this token alone is replaced by <unk> (a re-run)"),
    "flow": ("attention flow",
             "the token's share of the sentence vector, composed through token2token attention, fusion gates and "
             "pooling with this input's weights (exact for DiSAN; approximate through the DSA's FFN and LayerNorm)"),
}
#: Methods with a sign (positive: the token raises the class probability); rankings use their magnitude.
SIGNED = ("grad_input", "integrated_gradients", "leave_one_out")


@dataclass(frozen=True)
class SideAttribution:
    """One sentence of the input: tokens and a (T,) score per method (``METHODS``); ``flow_remainder``: the
    mean share of the sentence vector that comes from no token (rows with no allowed key)."""

    tokens: tuple[str, ...]
    scores: dict[str, Tensor]
    flow_remainder: float

    def importance(self, method: str) -> Tensor:
        """(T,) what rankings compare: |score| for signed methods, the score itself for attention and flow."""
        s = self.scores[method]
        return s.abs() if method in SIGNED else s

    def tau(self, a: str, b: str) -> float:
        """Kendall τ-b between the importance rankings of methods ``a`` and ``b`` (NaN below 2 tokens)."""
        return kendall_tau(self.importance(a).numpy(), self.importance(b).numpy())


@dataclass(frozen=True)
class Attribution:
    """Every attribution of one input for one class.

    target / target_index / probability: the class explained and p(class | input).
    sides: the premise (and the hypothesis for NLI models).
    ig_steps, ig_method, ig_baseline: how Integrated Gradients ran; ig_gap = p(x) − p(baseline);
    ig_delta: Captum's convergence delta (Σ IG scores − ig_gap). flow_exact: DiSAN True, DSA False.
    """

    model: str
    target: str
    target_index: int
    probability: float
    sides: tuple[SideAttribution, ...]
    ig_steps: int
    ig_method: str
    ig_baseline: str
    ig_gap: float
    ig_delta: float
    flow_exact: bool

    def to_json(self) -> dict:
        return {
            "model": self.model, "target": self.target, "probability": self.probability,
            "integrated_gradients": {"steps": self.ig_steps, "method": self.ig_method, "baseline": self.ig_baseline,
                                     "gap": self.ig_gap, "convergence_delta": self.ig_delta},
            "flow_exact": self.flow_exact,
            "sides": [{"tokens": list(s.tokens), "flow_remainder": s.flow_remainder,
                       **{k: [round(float(v), 7) for v in s.scores[k]] for k in METHODS}} for s in self.sides],
        }


def _sides(trace: ModelTrace) -> list[SentenceTrace]:
    return [trace.premise] + ([trace.hypothesis] if trace.hypothesis is not None else [])


def attribute(model: SentenceModel, trace: ModelTrace, target: str | int | None = None,
              steps: int | None = None) -> Attribution:
    """The four attributions of ``trace``'s input for class ``target`` (a label or index; None: predicted)."""
    labels = list(model.cfg.labels)
    if target is None:
        k = max(range(len(labels)), key=lambda i: trace.prediction[labels[i]])
    elif isinstance(target, str):
        if target not in labels:
            raise InputError(
                f"Class {target!r} is not one of {model.name}'s labels; choose one of {', '.join(labels)}.")
        k = labels.index(target)
    else:
        if not 0 <= int(target) < len(labels):
            raise InputError(f"Class index {target} is out of range; choose 0 to {len(labels) - 1}.")
        k = int(target)
    model.eval()
    steps = steps or IG_STEPS[model.cfg.arch]
    sents = _sides(trace)
    fn = ClassProbability(model, tuple(trace.masks), trace.alpha)
    emb = fn.embed([[list(s.tokens)] for s in sents])
    tgt = torch.tensor([k], device=model.device)
    with torch.no_grad():
        p = fn.probs(emb.xs, emb.valids)[:, k]  # (1,)
        p_base = fn.probs([torch.zeros_like(x) for x in emb.xs], emb.valids)[:, k]  # (1,)
    gi = gradient_x_input(fn, emb, tgt)
    T = max(x.shape[1] for x in emb.xs)
    ig = integrated_gradients(fn, emb, tgt, steps, internal_batch_size=ig_rows(model.cfg, T))  # bounded memory
    loo = leave_one_out(fn, emb, tgt, p)
    out = []
    for s, sent in enumerate(sents):
        flow = attention_flow(sent.encoder)
        scores = {
            "attention": sent.encoder.s2t_probs[0].mean(-1),
            "grad_input": gi[s][0].cpu(), "integrated_gradients": ig.scores[s][0].cpu(),
            "leave_one_out": loo[s][0].cpu(), "flow": flow.shares[0],
        }
        out.append(SideAttribution(sent.tokens, {m: scores[m].float() for m in METHODS}, float(flow.remainder[0])))
    return Attribution(
        model=model.name, target=labels[k], target_index=k, probability=float(p[0]), sides=tuple(out),
        ig_steps=steps, ig_method=IG_METHOD, ig_baseline=IG_BASELINE, ig_gap=float(p[0] - p_base[0]),
        ig_delta=float(ig.delta[0]), flow_exact=trace.arch == "disan",
    )
