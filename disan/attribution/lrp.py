"""Layer-wise relevance propagation (LRP) for DiSAN and the distance-based network, following AttnLRP.

The relevance of the explained logit (a relatedness model's score ŷ = rᵀp̂ for ``forward.SCORE``) is spread
over the input tokens by the rules of ``lrp_rules.py``, applied to the unchanged model code: inside
``LRPMode`` every torch operation the encoders and heads call is mapped to its rule (the table below),
the weights are constants (``torch.func.functional_call`` with detached parameters), and one backward pass
gives gradient × input at the embeddings = each token's relevance (AttnLRP's own construction; docs/lrp.md
derives the rules for feature-wise attention, the direction and distance masks and max pooling, and says
why neither ``lxt`` nor ``zennit`` is used):

=====================================  ===================================================  ==============
operation (Shen / Im equation)          rule                                                 absorbs
=====================================  ===================================================  ==============
linear maps (Shen 12, 14, 15, 19;      z-rule (ε = 0): their own Jacobian                   ``bias``
Im 5, 8, 11, 13), heads, projection
ELU, tanh (Shen 14, 15; heads)         identity (AttnLRP Eq. 9)                             nothing
ReLU, |·|, max pooling (Im 13, Sec.    their own gradient, which is the identity rule, and  nothing
4.2; Im's NLI head)                    winner-take-all for the max
sigmoid of the fusion gates            ½ + identity on σ(x) − ½ (``lrp_rules.sigmoid_chord``) ``constant``
(Shen 19, Im 12; SICK's head)
``1 − F`` (Shen 20, Im 12)             linear: the 1 absorbs                                ``constant``
products of two activations: P ⊙ h     uniform (AttnLRP Eq. 7, Props. 3.2–3.3): half each   nothing
(Shen 11, 13), F ⊙ h (Shen 20, Im 12),
Q Kᵀ and P V (Im 5, 7), s_p ⊙ s_h
softmax over masked keys, per feature  Taylor at x (AttnLRP Prop. 3.1), per query and       ``softmax``
(Shen 11, 13, 15), per head (Im 7)     feature; masked keys get none
distance mask −α|i − j| (Im 7)         a constant added to the logits: absorbs its share    ``distance mask``
LayerNorm (Im Sec. 5.2, Fig. 2)        normaliser detached (AttnLRP Prop. 3.4); β absorbs   ``bias``
=====================================  ===================================================  ==============

Conservation: the tokens' relevance plus the four absorbed amounts equals the explained value, per example,
up to float rounding (tests/test_lrp.py); ``LRPResult.absorbed`` states each amount.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.func import functional_call
from torch.overrides import TorchFunctionMode

from . import lrp_rules as rules
from .forward import ClassProbability, Embedded

#: The kinds of relevance a rule keeps for itself (``lrp_rules.absorb``), in report order.
ABSORBED = ("bias", "softmax", "constant", "distance mask")

_SOFTMAX = {torch.softmax, F.softmax, Tensor.softmax}
_MUL = {torch.mul, Tensor.mul, Tensor.__mul__, Tensor.__rmul__}
_MATMUL = {torch.matmul, Tensor.matmul, Tensor.__matmul__, Tensor.__rmatmul__, torch.bmm}
_ADD = {torch.add, Tensor.add, Tensor.__add__, Tensor.__radd__}
_SUB = {torch.sub, Tensor.sub, Tensor.__sub__}
_RSUB = {Tensor.__rsub__, torch.rsub}


def _act(t) -> bool:
    """An activation: a tensor that depends on the input (only those carry a gradient here)."""
    return isinstance(t, Tensor) and t.requires_grad


def _ln_args(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return input, tuple(normalized_shape), weight, bias, eps


def _linear_args(input, weight, bias=None):
    return input, weight, bias


class LRPMode(TorchFunctionMode):
    """Maps the operations of both encoders and all heads to their LRP rules (module docstring's table).

    sinks: ``ABSORBED`` kind → (B,) ones with a gradient (``lrp_rules.absorb``); param_ptrs: the data pointers
    of the constants that are parameters (their absorbed share is ``bias``; any other constant tensor added
    to an activation is the distance mask, the only one in these models)."""

    def __init__(self, sinks: dict[str, Tensor], param_ptrs: set[int]):
        super().__init__()
        self.sinks = sinks
        self.param_ptrs = param_ptrs

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in _SOFTMAX and _act(args[0]):
            dim = args[1] if len(args) > 1 else kwargs["dim"]
            return rules.softmax(args[0], dim, self.sinks["softmax"])
        if func is F.elu and _act(args[0]):
            alpha = kwargs.get("alpha", args[1] if len(args) > 1 else 1.0)
            return rules.identity(lambda t: F.elu(t, alpha), args[0])
        if func is torch.tanh and _act(args[0]):
            return rules.identity(torch.tanh, args[0])
        if func is torch.sigmoid and _act(args[0]):
            y, half = rules.sigmoid_chord(args[0])
            return rules.absorb(y, half, self.sinks["constant"])
        if func is F.layer_norm and _act(args[0]):
            x, shape, weight, bias, eps = _ln_args(*args, **kwargs)
            y = rules.layer_norm(x, shape, weight, eps)
            return y if bias is None else rules.absorb(y + bias, bias, self.sinks["bias"])
        out = func(*args, **kwargs)
        if not _act(out):
            return out
        if func is F.linear:
            _, _, bias = _linear_args(*args, **kwargs)
            return out if bias is None else rules.absorb(out, bias, self.sinks["bias"])
        if func in _MUL or func in _MATMUL:
            return rules.halve(out) if _act(args[0]) and _act(args[1]) else out
        if func is torch.einsum and sum(_act(a) for a in args[1:]) == 2:
            return rules.halve(out)
        if func in _ADD or func in _SUB or func in _RSUB:
            return self._constant_sum(func, args, kwargs, out)
        return out

    def _constant_sum(self, func, args, kwargs, out: Tensor) -> Tensor:
        """``a ± c`` with c a constant: c's share of the relevance is absorbed (its kind from what c is)."""
        a, b = args[0], args[1]
        if _act(a) and _act(b):
            return out
        if kwargs.get("alpha", 1) != 1:
            raise ValueError("LRP does not expect an add/sub with alpha; the models use none.")
        const, first = (b, False) if _act(a) else (a, True)
        sign = -1.0 if func in _SUB and not first else 1.0  # a − c: −c; c − a and c + a, a + c: +c
        if not isinstance(const, Tensor):
            return rules.absorb(out, torch.full_like(out, sign * float(const)), self.sinks["constant"])
        kind = "bias" if const.data_ptr() in self.param_ptrs else "distance mask"
        return rules.absorb(out, sign * const.to(out.dtype), self.sinks[kind])


@dataclass(frozen=True)
class LRPResult:
    """scores: per side (B, T_s), each token's relevance (summed over its embedding), zero at padding;
    absorbed: ``ABSORBED`` kind → (B,) relevance the rules kept; explained: (B,) the explained value."""

    scores: tuple[Tensor, ...]
    absorbed: dict[str, Tensor]
    explained: Tensor

    def total(self) -> Tensor:
        """(B,) the tokens' relevance plus every absorbed amount: the explained value when conserved."""
        return sum(s.sum(-1) for s in self.scores) + sum(self.absorbed.values())

    def relative_error(self) -> Tensor:
        """(B,) |total − explained| / |explained| (the denominator at least float32's tiny)."""
        return (self.total() - self.explained).abs() / self.explained.abs().clamp_min(torch.finfo(torch.float32).tiny)


def sinks_for(B: int, device=None) -> dict[str, Tensor]:
    """One (B,) sink of ones per ``ABSORBED`` kind."""
    return {k: torch.ones(B, device=device, requires_grad=True) for k in ABSORBED}


def lrp(fn: ClassProbability, emb: Embedded, target: Tensor) -> LRPResult:
    """AttnLRP relevance of the logit ``target`` (B,) (column K: a relatedness model's score) per token."""
    model = fn.model.eval()
    params = {n: p.detach() for n, p in model.named_parameters()}
    ptrs = {p.data_ptr() for p in params.values()}
    B = emb.batch
    sinks = sinks_for(B, model.device)
    xs = [x.clone().requires_grad_(True) for x in emb.xs]
    with torch.enable_grad(), LRPMode(sinks, ptrs):
        out = explained_outputs(model, params, fn, xs, emb.valids)  # (B, K) or (B, K + 1)
        y = out.gather(1, target[:, None])[:, 0]  # (B,)
    grads = torch.autograd.grad(y.sum(), [*xs, *sinks.values()], allow_unused=True)
    scores = tuple(((g * x).sum(-1) * v).detach() for g, x, v in zip(grads, xs, emb.valids))  # (B, T_s) each
    absorbed = {k: (torch.zeros(B, device=model.device) if g is None else g.detach())
                for k, g in zip(sinks, grads[len(xs):])}
    return LRPResult(scores, absorbed, y.detach())


def explained_outputs(model, params: dict[str, Tensor], fn: ClassProbability, xs, valids) -> Tensor:
    """What LRP explains, with ``params`` (name → tensor) in place of the model's parameters: (B, K) the logits,
    or (B, K + 1) with a relatedness model's score ŷ = rᵀ softmax(logits) appended (``forward.SCORE``)."""
    enc_params = {n[len("encoder."):]: p for n, p in params.items() if n.startswith("encoder.")}
    head_params = {n[len("head."):]: p for n, p in params.items() if n.startswith("head.")}
    alpha = None if model.cfg.arch == "disan" else fn.alpha
    enc = [functional_call(model.encoder, enc_params, (x, v, False, fn.masks, alpha))[0]
           for x, v in zip(xs, valids)]  # (B, E) per side
    logits = functional_call(model.head, head_params, tuple(enc))  # (B, K)
    if not model.cfg.relatedness:
        return logits
    grades = torch.arange(1, logits.shape[-1] + 1, dtype=logits.dtype, device=logits.device)  # (K,)
    return torch.cat([logits, (torch.softmax(logits, -1) @ grades)[:, None]], -1)  # (B, K + 1)
