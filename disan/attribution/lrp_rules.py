"""LRP rules as gradient × input: each rule keeps the forward value and changes only the backward.

AttnLRP (Achtibat et al., ICML 2024) writes every rule it uses as ``R_in = x ⊙ (Mᵀ (R_out / y))`` for some
matrix M, so if the upstream gradient equals ``R_out / y`` the input's relevance is gradient × input with M in
place of the Jacobian. Chained through a whole network, gradient × input at the embeddings is then the LRP
relevance, from one backward pass (their Sec. 3 and the "efficient" implementation of their library ``lxt``).
The functions below are those modified backwards; docs/lrp.md derives each and says where it is used:

* ``identity``: elementwise nonlinearities through the origin (ELU, tanh): ``R_in = R_out`` (AttnLRP Eq. 9);
* ``sigmoid_chord``: the gates' sigmoid, which does not pass through the origin: ``σ(x) = ½ + (σ(x) − ½)``,
  the constant ½ absorbed and the identity rule on the rest (docs/lrp.md derives it);
* ``halve``: behind a product of two activations (elementwise or a matrix product), the uniform rule
  (AttnLRP Eq. 7, Props. 3.2 and 3.3): each operand receives half of each product term's relevance;
* ``softmax``: Taylor decomposition at x with its bias absorbed (AttnLRP Prop. 3.1),
  ``R_in_i = x_i (R_i − s_i Σ_j R_j)``, which is the softmax's own Jacobian;
* ``layer_norm``: the normaliser detached (AttnLRP Prop. 3.4), so LayerNorm is linear in x and its β absorbs;
* linear layers need nothing: their own Jacobian is the z-rule (ε = 0; no division by z happens in this form).

A *sink* is a (B,) tensor of ones, one per kind of absorbed relevance; ``absorb`` adds ``term · (sink −
sink.detach())``, zero in value, so that the gradient at the sink is Σ term ⊙ (R_out / y) per example: the
relevance that rule kept for itself (a bias, a constant, the softmax's Taylor remainder).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor
from torch.autograd import Function


class _Slope(Function):
    """Forward ``value``; backward ``slope ⊙ g`` to ``x``: the modified Jacobian of an elementwise rule."""

    @staticmethod
    def forward(ctx, x: Tensor, value: Tensor, slope: Tensor) -> Tensor:
        ctx.save_for_backward(slope)
        return value.clone()  # a new tensor, so autograd never sees an input returned as the output

    @staticmethod
    def backward(ctx, g: Tensor):
        (slope,) = ctx.saved_tensors
        return g * slope, None, None


def _ratio(y: Tensor, x: Tensor, at_zero: float) -> Tensor:
    """``y / x`` elementwise, ``at_zero`` where x = 0 (the limit for the functions used here)."""
    nonzero = x != 0
    return torch.where(nonzero, y / torch.where(nonzero, x, torch.ones_like(x)), torch.full_like(x, at_zero))


def identity(fn: Callable[[Tensor], Tensor], x: Tensor, at_zero: float = 1.0) -> Tensor:
    """AttnLRP Eq. 9 for ``y = fn(x)`` with ``fn(0) = 0``: the value ``fn(x)``, the backward ``(y / x) ⊙ g``, so
    that ``x ⊙ grad = y ⊙ g = R_out``. ``at_zero``: fn'(0) (R is 0 there either way)."""
    y = fn(x.detach())
    return _Slope.apply(x, y, _ratio(y, x.detach(), at_zero))


def sigmoid_chord(x: Tensor) -> tuple[Tensor, Tensor]:
    """A gate's ``σ(x)``: returns (the value, whose backward is ``((σ(x) − ½) / x) ⊙ g``, and the constant
    term ½ (same shape) that the caller absorbs). ``x ⊙ grad + ½ ⊙ g = σ(x) ⊙ g = R_out``; the slope lies in
    (0, ¼] (¼ at 0), so no relevance is amplified near x = 0, as the plain identity rule ``σ(x)/x`` would."""
    y = torch.sigmoid(x.detach())
    return _Slope.apply(x, y, _ratio(y - 0.5, x.detach(), 0.25)), torch.full_like(y, 0.5)


class _ScaleGrad(Function):
    @staticmethod
    def forward(ctx, y: Tensor, factor: float) -> Tensor:
        ctx.factor = factor
        return y.view_as(y)

    @staticmethod
    def backward(ctx, g: Tensor):
        return g * ctx.factor, None


def halve(product: Tensor) -> Tensor:
    """The uniform rule behind ``a * b`` or ``a @ b`` of two activations (AttnLRP Eq. 7, Props. 3.2–3.3): the
    product's gradient halved, so ``a ⊙ grad_a = ½ R`` per product term, and as much to b."""
    return _ScaleGrad.apply(product, 0.5)


class _Softmax(Function):
    """Softmax whose backward is its Jacobian (AttnLRP Prop. 3.1) and whose sink gets the Taylor remainder
    ``Σ_j s_j g_j − Σ_i x_i (Jᵀ g)_i`` per example (batch = dim 0)."""

    @staticmethod
    def forward(ctx, x: Tensor, dim: int, sink: Tensor) -> Tensor:
        s = torch.softmax(x, dim=dim)
        ctx.save_for_backward(x, s)
        ctx.dim = dim
        return s

    @staticmethod
    def backward(ctx, g: Tensor):
        x, s = ctx.saved_tensors
        sg = s * g
        gx = sg - s * sg.sum(ctx.dim, keepdim=True)  # Jᵀ g
        # Masked logits are finite (finfo.min) and carry s = 0 and Jᵀ g = 0: x · 0 is 0, never NaN.
        rest = (sg - x * gx).flatten(1).sum(1)  # (B,) relevance kept by the rule
        return gx, None, rest


def softmax(x: Tensor, dim: int, sink: Tensor) -> Tensor:
    """``softmax(x, dim)`` under AttnLRP Prop. 3.1; ``sink`` (B,) collects what the rule absorbs."""
    return _Softmax.apply(x, dim, sink)


def layer_norm(x: Tensor, shape: tuple[int, ...], weight: Tensor | None, eps: float) -> Tensor:
    """LayerNorm without its β, the normaliser detached (AttnLRP Prop. 3.4): ``γ ⊙ (x − μ(x)) / σ(x)`` with
    σ a constant, linear in x. The centring is linear too, so relevance is conserved up to β (the caller's)."""
    dims = tuple(range(-len(shape), 0))
    centred = x - x.mean(dim=dims, keepdim=True)
    sigma = torch.sqrt(x.detach().var(dim=dims, unbiased=False, keepdim=True) + eps)
    y = centred / sigma
    return y if weight is None else y * weight


def absorb(out: Tensor, term: Tensor, sink: Tensor) -> Tensor:
    """``out`` unchanged in value, with ``term`` (broadcast to out) credited to ``sink`` (B,) in the backward:
    the sink's gradient becomes Σ term ⊙ g per example (batch = dim 0)."""
    B = sink.shape[0]
    if out.shape[0] != B:
        raise ValueError(f"An absorbed term's batch is {out.shape[0]}, the sink's {B}; batch must be dim 0.")
    zero = (sink - sink.detach()).view(B, *([1] * (out.dim() - 1)))  # (B, 1, …): 0 in value, ∂/∂sink = 1
    return out + term.detach().expand_as(out) * zero
