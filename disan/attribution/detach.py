"""Gradients with the attention weights held constant, as Jain & Wallace (2019, Sec. 3) take them.

Jain & Wallace's gradient importance "detaches" the attention distribution: the gradient flows
through the values the attention mixes, not through the weights. ``detached_attention()`` does the
same for both encoders without touching them: inside it, every softmax over a tensor of three or
more dimensions (DiSAN's token2token P (B, Tq, Tk, D) and source2token P² (B, T, D), the DSA's
per-head P (B, H, T, T) and its source2token weights) returns a detached result. The classifier's
softmax over classes, (B, K), is left alone, so the gradient of the class probability still flows.
The fusion gates are not attention weights and keep their gradient (Jain & Wallace's models have none).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch.overrides import TorchFunctionMode

from .forward import ClassProbability, Embedded

_SOFTMAX = {torch.softmax, torch.nn.functional.softmax, torch.Tensor.softmax}


class _DetachAttention(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in _SOFTMAX and isinstance(out, torch.Tensor) and out.dim() >= 3:
            return out.detach()  # an attention distribution: a constant for autograd
        return out


@contextmanager
def detached_attention() -> Iterator[None]:
    """Inside: the encoders' attention weights carry no gradient (module docstring)."""
    with _DetachAttention():
        yield


def detached_gradient_x_input(fn: ClassProbability, emb: Embedded, target: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """``gradient.gradient_x_input`` with the attention weights detached: per side (B, T_s), zero at padding.

    Outside ``fused.fused_gradients()``, so DiSAN runs the reference token2token, whose softmax is detached."""
    xs = [x.clone().requires_grad_(True) for x in emb.xs]
    with torch.enable_grad(), detached_attention():
        p = fn.outputs(xs, emb.valids).gather(1, target[:, None]).sum()  # examples are independent: one backward
        grads = torch.autograd.grad(p, xs)
    return tuple(((g * x).sum(-1) * v).detach() for g, x, v in zip(grads, xs, emb.valids))  # (B, T_s) each
