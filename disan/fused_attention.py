"""Fast path for DiSAN's multi-dimensional token2token attention (Shen Eqs. 15 and 11).

The reference ``attention.multi_dim_token2token`` builds the (B, T, T, D)
logits with plain tensor operations, so autograd keeps about eight tensors of
that size alive until the backward pass and allocates as many again while it
runs. ``fused_token2token`` computes the same ``s`` (B, T, D) with a custom
``torch.autograd.Function`` that

* keeps **no** 4-D tensor between forward and backward: it saves the (B, T, D)
  inputs, the output ``s``, the softmax denominators ``Z`` (B, T, D) and a
  (B, T, T) mask bias, and recomputes the 4-D intermediates in the backward
  pass, block by block;
* works in blocks of (batch rows × query rows) small enough to stay in the CPU
  cache (``FUSED_BLOCK_ELEMENTS``), with the batch rows sorted by length, and
  for every block only over the span of keys that the mask allows for any of
  its queries — for the forward and backward masks that skips about half of
  the T × T square, and most of the padding;
* uses that the logits ``c·tanh(·/c)`` lie in ``[−c, c]``, so the softmax
  needs no running maximum: ``E = exp(logit − c + bias)`` (≤ 1) with
  ``bias`` = 0 where allowed and −∞ elsewhere, ``Z = Σ_keys E``,
  ``P = E / Z``. Queries with no allowed key have ``Z = 0`` and get an
  exact-zero output and zero gradients, as in the reference;
* evaluates ``tanh`` through one sigmoid, ``t = tanh(pre/c) = 1 − 2v`` with
  ``v = σ(−2·pre/c)``, so ``logit − c = −2c·v`` and ``1 − t² = 4v(1 − v)``
  (torch's CPU ``tanh`` costs about five times a sigmoid per element);
* uses closed-form gradients. With ``g = ∂L/∂s / Z``::

      ∂L/∂h_i (value path)  = Σ_j E_ji ⊙ g_j
      ∂L/∂pre_ji            = E_ji ⊙ g_j ⊙ 4v_ji(1 − v_ji) ⊙ (h_i − s_j)
      ∂L/∂query_j = Σ_i ∂L/∂pre_ji,   ∂L/∂key_i = Σ_j ∂L/∂pre_ji

Equality with the reference is tested in ``tests/test_fast_path.py``: outputs
and gradients agree to ``atol = 1e-5, rtol = 1e-4`` in float32 and to
``1e-10`` in float64, for every mask kind, with padding, rows with no
allowed key, sorted and unsorted batches and several block shapes.

Valid for float32 / float64 and ``0 < c ≤ MAX_C`` (``supported``); callers
fall back to the reference otherwise. The attention probabilities are never
returned, so traces (``record=True``) stay on the reference path.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch
from torch import Tensor

#: Elements of one (Bc, Tq, Tk, D) block: 2¹⁸ float32 = 1 MiB, so the two live
#: block tensors stay in the cache. Measured on the 2-core CPU (SNLI-like
#: batches): 2¹⁶–2¹⁸ within noise of each other, 2²⁰ 1.5× slower.
FUSED_BLOCK_ELEMENTS = 1 << 18

#: Block budget on CUDA (2²⁶ float32 = 256 MiB per block tensor): kernel launches, not caches, limit a GPU.
FUSED_BLOCK_ELEMENTS_CUDA = 1 << 26

#: Largest ``c`` for which the shifted exponentials E ∈ [e^−2c, 1] stay normal float32 numbers.
MAX_C = 40.0

#: Implementations a ``DiSABlock`` can use for its token2token attention:
#: ``auto`` = this fused kernel whenever no trace is recorded and the block is
#: training, autograd is off, or ``fused_gradients()`` is active (else
#: ``reference``, so that a trace and an untraced call with autograd on give
#: bit-identical outputs); ``reference`` = the
#: chunked reference (``attention.auto_chunk``); ``naive`` = the reference in
#: one piece (no chunking, no fusion), the baseline of ``python -m viz_app bench``.
#: ``auto`` is a block's default, but ``train`` does not assume it is the fastest
#: for training (fused 1.87× naive on the 2-core CPU, 0.85× on an H100): it times
#: the three on the training device and sets the fastest (``kernel_choice``,
#: ``--t2t-impl``).
IMPLS = ("auto", "reference", "naive")


def supported(h: Tensor, c: float) -> bool:
    """Whether the fused kernel may be used for these inputs (else use the reference)."""
    return h.dtype in (torch.float32, torch.float64) and 0.0 < float(c) <= MAX_C


def block_shape(B: int, T: int, D: int, budget: int = FUSED_BLOCK_ELEMENTS) -> tuple[int, int]:
    """(batch rows, query rows) per block so that one (Bc, Tq, T, D) block holds about ``budget`` elements."""
    per_query = max(1, B * T * D)
    if per_query <= budget:
        return B, max(1, min(T, budget // per_query))
    groups = -(-B // max(1, budget // max(1, T * D)))  # ceil: batch groups of at most budget / (T·D) rows
    return -(-B // groups), 1  # equal-sized groups


def plan_blocks(allowed: Tensor, b_step: int, q_step: int) -> list[tuple[int, int, int, int, int, int, bool]]:
    """Blocks ``(b0, b1, q0, q1, k0, k1, full)`` that cover every allowed (batch, query, key) cell.

    ``[k0, k1)`` is the span of keys that any query of the block may attend
    to (blocks without one are left out); ``full`` says every cell of the
    block is allowed, so no mask bias is needed. One host transfer, then numpy.
    """
    a = allowed.detach().to("cpu", torch.bool).numpy()  # (B, T, T)
    B, T, _ = a.shape
    blocks = []
    for b0 in range(0, B, b_step):
        b1 = min(B, b0 + b_step)
        count = a[b0:b1].sum(axis=0, dtype=np.int64)  # (T, T) allowed batch rows per (query, key)
        prefix = np.zeros((T + 1, T + 1), dtype=np.int64)
        prefix[1:, 1:] = count.cumsum(0).cumsum(1)
        for q0 in range(0, T, q_step):
            q1 = min(T, q0 + q_step)
            keys = np.flatnonzero(count[q0:q1].any(axis=0))
            if keys.size == 0:
                continue
            k0, k1 = int(keys[0]), int(keys[-1]) + 1
            inside = prefix[q1, k1] - prefix[q0, k1] - prefix[q1, k0] + prefix[q0, k0]
            blocks.append((b0, b1, q0, q1, k0, k1, bool(inside == (b1 - b0) * (q1 - q0) * (k1 - k0))))
    return blocks


def _exp_logits(query_n: Tensor, key_n: Tensor, bias: Tensor | None, c: float) -> tuple[Tensor, Tensor]:
    """v = σ(−2·pre/c) and E = exp(logit − c + bias); both (Bc, Tq, Tk, D).

    ``query_n``/``key_n`` are pre-scaled by −2/c, so ``v = σ(query_n + key_n)``.
    With t = tanh(pre/c) = 1 − 2v: ``logit − c = c·t − c = −2c·v`` (≤ 0, so E ≤ 1)
    and ``1 − t² = 4·v·(1 − v)``. One sigmoid replaces the tanh: torch's CPU
    tanh costs ~5× a sigmoid per element.
    """
    v = torch.add(query_n[:, :, None, :], key_n[:, None, :, :]).sigmoid_()  # (Bc, Tq, Tk, D)
    e = torch.mul(v, -2.0 * c) if bias is None else torch.add(bias, v, alpha=-2.0 * c)  # (Bc, Tq, Tk, D)
    return v, e.exp_()


def _mask_bias(allowed: Tensor, dtype: torch.dtype) -> Tensor:
    """(B, T, T, 1): 0 where allowed, −∞ elsewhere."""
    bias = torch.zeros(allowed.shape, dtype=dtype, device=allowed.device)
    return bias.masked_fill_(~allowed, float("-inf"))[..., None]


def _scaled(key_part: Tensor, query_part: Tensor, c: float) -> tuple[Tensor, Tensor]:
    return key_part * (-2.0 / c), query_part * (-2.0 / c)  # (B, T, D) each


def _add_over_queries(target: Tensor, block: Tensor) -> None:
    """``target += block.sum(dim=1)``; a one-query block is added as a view (a size-1 sum is slow)."""
    target += block[:, 0] if block.shape[1] == 1 else block.sum(dim=1)


def _forward(key_part: Tensor, query_part: Tensor, h: Tensor, bias: Tensor, c: float, blocks) -> tuple[Tensor, Tensor]:
    """s (B, T, D) and Z (B, T, D) (the softmax denominator, up to the factor e^−c), block by block."""
    key_n, query_n = _scaled(key_part, query_part, c)
    num = torch.zeros_like(h)
    z = torch.zeros_like(h)
    for b0, b1, q0, q1, k0, k1, full in blocks:  # the blocks partition the (batch, query) rows
        _, e = _exp_logits(
            query_n[b0:b1, q0:q1], key_n[b0:b1, k0:k1], None if full else bias[b0:b1, q0:q1, k0:k1], c
        )  # (Bc, Tq, Tk, D)
        torch.sum(e, dim=2, out=z[b0:b1, q0:q1])
        torch.sum(e.mul_(h[b0:b1, None, k0:k1]), dim=2, out=num[b0:b1, q0:q1])
    return num.div_(z.masked_fill(z == 0, 1.0)), z  # queries without keys: 0 / 1 = 0


class _Token2Token(torch.autograd.Function):
    """s_j = Σ_i softmax_i(c·tanh((q_j + k_i)/c) | allowed) ⊙ h_i with a recomputing backward."""

    @staticmethod
    def forward(ctx, key_part, query_part, h, bias, c, blocks):
        s, z = _forward(key_part, query_part, h, bias, c, blocks)
        ctx.save_for_backward(key_part, query_part, h, bias, s, z)
        ctx.c, ctx.blocks = c, blocks
        return s

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_s):
        key_part, query_part, h, bias, s, z = ctx.saved_tensors
        c = ctx.c
        key_n, query_n = _scaled(key_part, query_part, c)
        g = grad_s / z.masked_fill(z == 0, 1.0)  # (B, T, D)  ∂L/∂s / Z
        h4, s4 = h * 4.0, s * 4.0  # (B, T, D)  the 4 of 1 − t² = 4v(1 − v)
        d_key = torch.zeros_like(key_part)
        d_query = torch.zeros_like(query_part)
        d_h = torch.zeros_like(h)
        for b0, b1, q0, q1, k0, k1, full in ctx.blocks:
            v, e = _exp_logits(
                query_n[b0:b1, q0:q1], key_n[b0:b1, k0:k1], None if full else bias[b0:b1, q0:q1, k0:k1], c
            )  # (Bc, Tq, Tk, D) each
            e.mul_(g[b0:b1, q0:q1, None, :])  # E ⊙ g_j = P ⊙ ∂L/∂s_j
            _add_over_queries(d_h[b0:b1, k0:k1], e)  # value path
            v.addcmul_(v, v, value=-1.0)  # v(1 − v) = (1 − t²)/4
            e.mul_(v).mul_(torch.sub(h4[b0:b1, None, k0:k1], s4[b0:b1, q0:q1, None]))  # ∂L/∂pre
            torch.sum(e, dim=2, out=d_query[b0:b1, q0:q1])  # each (batch, query) row is in one block
            _add_over_queries(d_key[b0:b1, k0:k1], e)
        return d_key, d_query, d_h, None, None, None


def fused_token2token(
    h: Tensor,
    allowed: Tensor,
    w1: Tensor,
    w2: Tensor,
    b1: Tensor,
    c: float = 5.0,
    block: tuple[int, int] | None = None,
    sort: bool = True,
    values: Tensor | None = None,
) -> Tensor:
    """Same ``s`` (B, T, D) as ``multi_dim_token2token(...)[0]``, without the probability views.

    h: (B, T, D); allowed: (B, T, T) rows = query; w1, w2: (D, D); b1: (D,).
    ``block`` = (batch rows, query rows) per block (``None``: ``block_shape``
    picks it from ``FUSED_BLOCK_ELEMENTS``). ``values`` (B, T, D) replaces h in
    Eq. 11 only (``None``: h). Differentiable in h, w1, w2, b1 and values.
    """
    if not supported(h, c):
        raise ValueError(f"The fused token2token needs float32/float64 and 0 < c <= {MAX_C}; use the reference.")
    B, T, D = h.shape
    c = float(c)
    key_part = h @ w1.T + b1  # (B, T, D)  W1 h_i + b1
    query_part = h @ w2.T  # (B, T, D)  W2 h_j
    h = h if values is None else values  # (B, T, D)  from here on h means the values of Eq. 11
    order = None
    if sort and B > 1 and not h.is_cuda:
        order = allowed.sum(dim=(1, 2)).argsort(descending=True, stable=True)  # (B,) busiest rows first
        if bool((order == torch.arange(B, device=order.device)).all()):
            order = None
    if order is not None:
        key_part, query_part, h, allowed = key_part[order], query_part[order], h[order], allowed[order]
    if block is None:  # GPUs want few, large blocks; CPUs cache-sized ones
        block = block_shape(B, T, D, FUSED_BLOCK_ELEMENTS_CUDA if h.is_cuda else FUSED_BLOCK_ELEMENTS)
    b_step, q_step = max(1, block[0]), max(1, block[1])
    blocks = plan_blocks(allowed, b_step, q_step)
    bias = _mask_bias(allowed, h.dtype)  # (B, T, T, 1)
    if torch.is_grad_enabled() and (key_part.requires_grad or query_part.requires_grad or h.requires_grad):
        s = _Token2Token.apply(key_part, query_part, h, bias, c, blocks)
    else:
        s = _forward(key_part, query_part, h, bias, c, blocks)[0]
    if order is not None:
        s = s[order.argsort()]
    return s


#: Set by ``fused_gradients``; a context variable, so one thread's (or task's) attribution never switches the
#: kernel of another's trace of the same shared model.
_FUSED_GRADIENTS = contextvars.ContextVar("disan_fused_gradients", default=False)


@contextmanager
def fused_gradients() -> Iterator[None]:
    """Within this block, an evaluated model's gradients also take the fused kernel (closed-form backward,
    tested against the reference's). For attributions, whose outputs are never compared bit for bit with a
    trace: the reference's autograd made Integrated Gradients most of the Attribution view's time per submit
    at T = 64 (issue 19; ``bench app``'s attribution rows)."""
    token = _FUSED_GRADIENTS.set(True)
    try:
        yield
    finally:
        _FUSED_GRADIENTS.reset(token)


def use_fused(impl: str, record: bool, training: bool, h: Tensor, c: float) -> bool:
    """The policy of ``DiSABlock``: see ``IMPLS``."""
    if impl not in IMPLS:
        raise ValueError(f"Unknown token2token implementation {impl!r}; use one of {', '.join(IMPLS)}.")
    fast_mode = training or not torch.is_grad_enabled() or _FUSED_GRADIENTS.get()
    return impl == "auto" and not record and fast_mode and supported(h, c)


def set_impl(module: torch.nn.Module, impl: str) -> list[str]:
    """Set the token2token implementation of every DiSA block in ``module``; returns the previous ones."""
    if impl not in IMPLS:
        raise ValueError(f"Unknown token2token implementation {impl!r}; use one of {', '.join(IMPLS)}.")
    before = []
    for m in module.modules():
        if hasattr(m, "token2token_impl"):
            before.append(m.token2token_impl)
            m.token2token_impl = impl
    return before
