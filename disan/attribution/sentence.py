"""``attribute(model, trace)``: the attributions and the model's own attention for one input.

The trace fixes the tokens, masks and α; ``target`` picks the class explained
(default: the predicted one; a relatedness model's default is its score ŷ = rᵀp̂, ``forward.SCORE``,
Tai, Socher & Manning 2015 Sec. 4.2, a grade's probability only when one is named). NLI inputs get
scores for every token of premise and hypothesis (the class probability depends on both); attention,
pooling, rollout and attention flow are per sentence, because each sentence goes through the tied encoder
on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..errors import InputError
from ..model import SentenceModel
from ..relatedness import score_name
from ..trace import DiSANTrace, ModelTrace, SentenceTrace
from .budget import ig_rows
from .erasure import leave_one_out
from .attention_flow import attention_flow
from .forward import SCORE, ClassProbability
from .gradient import IG_BASELINE, IG_METHOD, IG_STEPS, gradient_x_input, integrated_gradients
from .lrp import lrp
from .rank import kendall_tau
from .rollout import gated_rollout

#: Per-token series in display order: key → (label, what it measures).
METHODS = {
    "attention": ("source2token attention",
                  "the model's own pooling weight of the token (Shen Eq. 13 / Im Eq. 15), mean over features"),
    "pooling": ("pooling (source2token + max pool)",
                "the DSA only: the token's weight in the whole pooling layer, mean over all sentence features: its "
                "source2token weight in the first half, 1 where it wins max pooling in the second (Im Sec. 4.2)"),
    "grad_input": ("gradient × input",
                   "∂p(class)/∂x ⊙ x summed over the embedding: the first-order change of the class probability "
                   "if the token's embedding were scaled to zero"),
    "integrated_gradients": ("Integrated Gradients",
                             "the gradient averaged along the straight path from the zero embedding (every token "
                             "<unk>) to the input, times the input; the tokens' scores add up to p(x) − p(baseline)"),
    "leave_one_out": ("leave-one-out",
                      "the drop in the class probability when this token alone is replaced by <unk> (a re-run)"),
    "lrp": ("LRP (AttnLRP)",
            "layer-wise relevance of the class's logit by AttnLRP's rules (docs/lrp.md): the token's part of the "
            "logit; the tokens' parts and what the rules keep (biases, softmax remainders, the gates' constants, the "
            "distance mask) add up to the logit"),
    "rollout": ("gated rollout",
                "the token's mixing-weight share of the sentence vector, mean over features: attention rollout "
                "(Abnar & Zuidema 2020) through token2token attention, fusion gates and pooling with this input's "
                "weights (exact for DiSAN; approximate through the DSA's head average, FFN and LayerNorm). A share "
                "of the weights, not of the vector"),
    "attention_flow": ("attention flow",
                       "Abnar & Zuidema's (2020) attention flow: the maximum flow from the token to the sentence "
                       "vector through rollout's layer graph, with the weights as capacities, mean over features"),
}


def methods_for(arch: str) -> tuple[str, ...]:
    """The series of an architecture: the pooling series only where it differs from attention (the DSA)."""
    return tuple(m for m in METHODS if m != "pooling" or arch == "dsa")


def method_text(method: str, score: bool = False, pair: bool = True) -> str:
    """What ``method`` measures (``METHODS``), said of a score model's ŷ when ``score`` (of a pair's relatedness
    score, or of one sentence's score when not ``pair``)."""
    what = METHODS[method][1]
    if not score:
        return what
    for theirs, ours in (("class probability", f"{score_name(pair)} ŷ = rᵀp̂"), ("p(class)", "ŷ"),
                         ("p(x) − p(baseline)", "ŷ(x) − ŷ(baseline)")):
        what = what.replace(theirs, ours)
    return what


#: Methods with a sign (positive: the token raises the class probability); rankings use their magnitude.
SIGNED = ("grad_input", "integrated_gradients", "leave_one_out", "lrp")


@dataclass(frozen=True)
class SideAttribution:
    """One sentence of the input: tokens and a (T,) score per method (``methods_for(arch)``);
    ``rollout_remainder``: the mean mixing weight of no token (rows with no allowed key);
    ``vector_shares``: DiSAN's (T,) share of the sentence vector itself (``rollout.Rollout``), None for the DSA."""

    tokens: tuple[str, ...]
    scores: dict[str, Tensor]
    rollout_remainder: float
    vector_shares: Tensor | None = None

    def importance(self, method: str) -> Tensor:
        """(T,) what rankings compare: |score| for signed methods, the score itself for the weight series."""
        s = self.scores[method]
        return s.abs() if method in SIGNED else s

    def tau(self, a: str, b: str) -> float:
        """Kendall τ-b between the importance rankings of methods ``a`` and ``b`` (NaN below 2 tokens)."""
        return kendall_tau(self.importance(a).numpy(), self.importance(b).numpy())


@dataclass(frozen=True)
class Attribution:
    """Every attribution of one input for one class.

    target / target_index / probability: the class explained and p(class | input); for a relatedness model's
    score (target ``forward.SCORE``, index K) the score ŷ = rᵀp̂ itself (``explains_score``).
    sides: the premise (and the hypothesis for NLI models).
    ig_steps, ig_method, ig_baseline: how Integrated Gradients ran; ig_gap = p(x) − p(baseline);
    ig_delta: Captum's convergence delta (Σ IG scores − ig_gap). rollout_exact: DiSAN True, DSA False.
    lrp_explained: the logit (or score) LRP spreads; lrp_absorbed: what each kind of rule kept (``lrp.ABSORBED``).
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
    rollout_exact: bool
    lrp_explained: float | None = None
    lrp_absorbed: dict[str, float] | None = None

    @property
    def explains_score(self) -> bool:
        """True when the target is a relatedness model's score ŷ (``probability`` then holds ŷ, and the IG gap
        is in ŷ's units)."""
        return self.target == SCORE

    @property
    def score_name(self) -> str:
        """What the explained score is called: a pair's "relatedness score", one sentence's "score"."""
        return score_name(len(self.sides) > 1)

    def to_json(self) -> dict:
        return {
            "model": self.model, "target": self.target, "probability": self.probability,
            "explained": f"{self.score_name} ŷ = rᵀp̂" if self.explains_score else "class probability",
            "integrated_gradients": {"steps": self.ig_steps, "method": self.ig_method, "baseline": self.ig_baseline,
                                     "gap": self.ig_gap, "convergence_delta": self.ig_delta},
            "rollout_exact": self.rollout_exact,
            "lrp": {"explained": self.lrp_explained, "absorbed": self.lrp_absorbed,
                    "what": "the class's logit (a relatedness model's score ŷ), spread over the tokens; absorbed: "
                            "what the rules kept (docs/lrp.md)"},
            "sides": [{"tokens": list(s.tokens), "rollout_remainder": s.rollout_remainder,
                       "rollout_vector_shares": None if s.vector_shares is None else
                       [round(float(v), 7) for v in s.vector_shares],
                       **{k: [round(float(v), 7) for v in s.scores[k]] for k in s.scores}} for s in self.sides],
        }


def weight_series(enc) -> dict[str, Tensor]:
    """(B, T) attention (source2token, mean over features) and, for the DSA, the pooling series: the mean over
    all 4D sentence features of the token's pooling weight (source2token half, then the max-pool half's 1/0)."""
    attention = enc.s2t_probs.mean(-1)  # (B, T)
    if isinstance(enc, DiSANTrace):
        return {"attention": attention}
    return {"attention": attention, "pooling": (attention + enc.maxpool_share) / 2}


def _sides(trace: ModelTrace) -> list[SentenceTrace]:
    return [trace.premise] + ([trace.hypothesis] if trace.hypothesis is not None else [])


def attribute(model: SentenceModel, trace: ModelTrace, target: str | int | None = None,
              steps: int | None = None) -> Attribution:
    """The attributions of ``trace``'s input for class ``target`` (a label or index; None: the predicted class,
    or a relatedness model's score ``forward.SCORE``)."""
    fn = ClassProbability(model, tuple(trace.masks), trace.alpha)
    labels = fn.targets()  # the class labels, then SCORE for a relatedness model
    if target is None:
        k = (len(labels) - 1 if model.cfg.relatedness
             else max(range(len(labels)), key=lambda i: trace.prediction[labels[i]]))
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
    emb = fn.embed([[list(s.tokens)] for s in sents])
    tgt = torch.tensor([k], device=model.device)
    with torch.no_grad():
        p = fn.outputs(emb.xs, emb.valids)[:, k]  # (1,)
        p_base = fn.outputs([torch.zeros_like(x) for x in emb.xs], emb.valids)[:, k]  # (1,)
    gi = gradient_x_input(fn, emb, tgt)
    T = max(x.shape[1] for x in emb.xs)
    ig = integrated_gradients(fn, emb, tgt, steps, internal_batch_size=ig_rows(model.cfg, T))  # bounded memory
    loo = leave_one_out(fn, emb, tgt, p)
    relevance = lrp(fn, emb, tgt)
    out = []
    for s, sent in enumerate(sents):
        roll = gated_rollout(sent.encoder)
        scores = {
            **{k: v[0] for k, v in weight_series(sent.encoder).items()}, "rollout": roll.shares[0],
            "attention_flow": attention_flow(sent.encoder).shares[0],
            "grad_input": gi[s][0].cpu(), "integrated_gradients": ig.scores[s][0].cpu(),
            "leave_one_out": loo[s][0].cpu(), "lrp": relevance.scores[s][0].cpu(),
        }
        out.append(SideAttribution(sent.tokens, {m: scores[m].float() for m in methods_for(trace.arch)}, float(roll.remainder[0]),
                                   None if roll.vector_shares is None else roll.vector_shares[0].float()))
    return Attribution(
        model=model.name, target=labels[k], target_index=k, probability=float(p[0]), sides=tuple(out),
        ig_steps=steps, ig_method=IG_METHOD, ig_baseline=IG_BASELINE, ig_gap=float(p[0] - p_base[0]),
        ig_delta=float(ig.delta[0]), rollout_exact=trace.arch == "disan",
        lrp_explained=float(relevance.explained[0]),
        lrp_absorbed={k: float(v[0]) for k, v in relevance.absorbed.items()},
    )
