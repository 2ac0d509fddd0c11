"""Pure attention functions: tensors in, ``(output, probabilities)`` out.

Every function takes its weights as arguments so that tests can check it
against a naive per-element loop, and so that the modules in
``disan_encoder.py`` and ``distance_encoder.py`` stay thin.

Masking follows ``masks.py``: boolean ``allowed`` tensors indexed
``[..., query, key]``. Disallowed probabilities are **exactly 0**, and a query
with no allowed key gets an all-zero probability row (and hence an all-zero
output) instead of the NaN that ``softmax`` over ``-inf`` would produce.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from .masks import distance_mask

#: Queries per chunk are chosen so that one chunk of DiSAN's 4-D logits holds
#: about this many elements (64 MB in float32).
CHUNK_ELEMENTS = 1 << 24


def masked_softmax(logits: Tensor, allowed: Tensor, dim: int, in_place: bool = False) -> Tensor:
    """Softmax over ``dim`` with disallowed entries set to exactly 0.

    Like the authors' code: fill masked logits with a very large negative
    number, take the softmax, then multiply by the mask, so that rows with no
    allowed entry become all zeros rather than NaN. ``in_place`` overwrites
    ``logits`` and masks the result in place (only where autograd is off).
    """
    neg = torch.finfo(logits.dtype).min
    if in_place:
        return torch.softmax(logits.masked_fill_(~allowed, neg), dim=dim).mul_(allowed.to(logits.dtype))
    probs = torch.softmax(logits.masked_fill(~allowed, neg), dim=dim)
    return probs * allowed.to(probs.dtype)


def token2token_chunk(
    key_part: Tensor, query_part: Tensor, h: Tensor, allowed: Tensor, c: float
) -> tuple[Tensor, Tensor]:
    """Shen Eqs. 15 and 11 for a block of queries.

    key_part:   (B, Tk, D)  ``W1 h_i + b1`` for every key i
    query_part: (B, Tq, D)  ``W2 h_j`` for the queries j in this chunk
    h:          (B, Tk, D)  values
    allowed:    (B, Tq, Tk)
    Returns s (B, Tq, D) and P (B, Tq, Tk, D), softmax over keys per feature.
    """
    logits = query_part[:, :, None, :] + key_part[:, None, :, :]  # (B, Tq, Tk, D)
    if torch.is_grad_enabled() and any(t.requires_grad for t in (key_part, query_part, h)):
        logits = c * torch.tanh(logits / c)  # (B, Tq, Tk, D)
        probs = masked_softmax(logits, allowed[..., None], dim=2)  # (B, Tq, Tk, D)
        s = (probs * h[:, None, :, :]).sum(dim=2)  # (B, Tq, D)  Eq. 11
        return s, probs
    # No autograd (traces, inference): the same operations in place on the one (B, Tq, Tk, D) buffer, which
    # saves four passes and allocations of it; tests/test_attention.py checks both paths agree (P bit for bit).
    logits.div_(c).tanh_().mul_(c)
    probs = masked_softmax(logits, allowed[..., None], dim=2, in_place=True)  # (B, Tq, Tk, D)
    s = torch.einsum("bqkd,bkd->bqd", probs, h)  # (B, Tq, D)  Eq. 11
    return s, probs


def multi_dim_token2token(
    h: Tensor,
    allowed: Tensor,
    w1: Tensor,
    w2: Tensor,
    b1: Tensor,
    c: float = 5.0,
    chunk: int | None = None,
    keep_probs: bool = True,
    feature: int | None = None,
    values: Tensor | None = None,
    direction: str | None = None,
) -> tuple[Tensor, dict[str, Tensor]]:
    """Multi-dimensional token2token self-attention with a positional mask.

    Shen Eq. 15: ``f(h_i, h_j) = c·tanh([W1 h_i + W2 h_j + b1]/c) + M_ij·1``,
    a softmax over keys i for every query j and feature k, then Eq. 11:
    ``s_j = Σ_i P^j_{·i} ⊙ h_i``.

    h: (B, T, D); allowed: (B, T, T) rows = query; w1, w2: (D, D); b1: (D,).
    ``values`` (B, T, D) replaces h in Eq. 11 only (the authors' code takes the
    values from h before dropout, the logits from h after it); ``None``: h.
    ``chunk`` = queries per chunk (``None``: all at once). The (B, T, T, D)
    tensor is the memory bottleneck; chunking gives the same numbers.

    Returns ``s`` (B, T, D) and a dict of probability views:
    ``probs`` (B, T, T, D) when ``keep_probs``; always ``mean`` and ``max``
    over features (B, T, T), computed chunk by chunk; ``feature`` (B, T, T),
    the probabilities of one feature k, when ``feature`` is given; and the
    logits' parts ``key_part`` (W1 h_i + b1) and ``query_part`` (W2 h_j), (B, T, D). Under the ONNX
    export, ``_exported_token2token`` computes them without ``probs`` or ``feature``; ``direction``
    (``masks.direction_mask``'s kind of ``allowed``: ``fw``, ``bw``, or ``None``) lets it skip the keys the
    direction never allows (the eager path reads ``allowed`` alone).
    """
    B, T, D = h.shape
    key_part = h @ w1.T + b1  # (B, T, D)
    query_part = h @ w2.T  # (B, T, D)
    values = h if values is None else values  # (B, T, D)
    if torch.onnx.is_in_onnx_export():
        return _exported_token2token(key_part, query_part, values, allowed, c, direction)
    step = T if chunk is None else max(1, chunk)
    outs, means, maxes, full, one = [], [], [], [], []
    for start in range(0, T, step):
        stop = min(T, start + step)
        s, p = token2token_chunk(key_part, query_part[:, start:stop], values, allowed[:, start:stop], c)
        outs.append(s)  # (B, Tq, D)
        means.append(p.mean(dim=-1))  # (B, Tq, T)
        maxes.append(p.amax(dim=-1))  # (B, Tq, T)
        if keep_probs:
            full.append(p)  # (B, Tq, T, D)
        if feature is not None:
            one.append(p[..., feature])  # (B, Tq, T)
    views = {"mean": _join(means), "max": _join(maxes)}  # (B, T, T) each
    views["key_part"], views["query_part"] = key_part, query_part  # (B, T, D) each: the logits' two parts
    if keep_probs:
        views["probs"] = _join(full)  # (B, T, T, D)
    if feature is not None:
        views["feature"] = _join(one)  # (B, T, T)
    return _join(outs), views


def _exported_terms(
    key_part: Tensor, query_part: Tensor, values: Tensor, allowed: Tensor, c: float
) -> tuple[Tensor, Tensor, Tensor]:
    """Shen Eqs. 15 and 11 as the ONNX export (the static page) computes them: ``s`` and P's mean over features
    without P itself, and without a tanh.

    The page's maps need the mean only; one feature's P follows from the key and query parts it receives
    (recompute.js). With ``tanh(y) = 1 − 2r``, ``r = 1 / (e^{2y} + 1)`` and ``e^{2(q + k)/c} = e^{2q/c}·e^{2k/c}``,
    the logit is ``c·tanh = c − 2c·r``: per cell a product of two (B, T, D) exponentials, ``+ 1``, one division
    (of the constant −2c, one op) and one exp, where onnxruntime-web's Tanh over the (B, T, T, D) tensor cost
    more than its Exp, and its Sigmoid (``r = σ(−2y)``) more than the product, the sum and the division. The
    factor e^c of every term cancels in the softmax, so ``e = exp(−2c·r)`` (in [e^{−2c}, 1]: no shift needed).

    Every pass over a (B, T, T, D) tensor is most of a long sentence's run in the page (onnxruntime's
    elementwise kernels each read and write all of it), so the mask and the sums over keys and features are
    batched MatMuls, one pass each: ``Z_j = a_j·e_j`` (the mask row ``a_j`` over keys), ``s_j = a_j·(e_j ⊙ h) / Z_j``
    and ``mean_ji = a_ji · (e_ji · (1/Z_j)) / D``, never ``e`` masked nor P itself (4 passes fewer than
    masking ``e``, then dividing and reducing it). A masked entry is exactly 0 and a query with no allowed key
    keeps an all-zero row, as ``masked_softmax`` (its Z is 0 and is divided as 1, so nothing overflows before
    the mask). The doubling is an addition, not a scale: onnxruntime fuses a scale into the MatMul before it
    only where that MatMul's output is no graph output (leave-one-out's lean graph), which would round the lean
    and the whole graph apart. tests/test_attention.py checks it against the eager path.
    """
    # key_part, values: (B, Tk, D); query_part: (B, Tq, D); allowed: (B, Tq, Tk). Returns s (B, Tq, D), the mean
    # and the max over features (B, Tq, Tk).
    D = key_part.shape[-1]
    eq, ek = torch.exp((query_part + query_part) / c), torch.exp((key_part + key_part) / c)  # (B, Tq, D), (B, Tk, D)
    x = eq[:, :, None, :] * ek[:, None, :, :] + 1  # (B, Tq, Tk, D): e^{2(q + k)/c} + 1 = 2 / (1 − tanh)
    e = torch.exp(torch.full((), -2 * c, dtype=x.dtype) / x)  # (B, Tq, Tk, D): exp(c·tanh) / e^c, unmasked
    a = allowed.to(e.dtype)[:, :, None, :]  # (B, Tq, 1, Tk)
    z = (a @ e).squeeze(2)  # (B, Tq, D): Σ_i over allowed keys
    inv = 1 / torch.where(z > 0, z, torch.ones_like(z))  # (B, Tq, D); 1 for a row with no allowed key
    s = (a @ (e * values[:, None, :, :])).squeeze(2) * inv  # (B, Tq, D)  Eq. 11
    mean = (e @ inv[:, :, :, None]).squeeze(3) * (allowed.to(e.dtype) / D)  # (B, Tq, Tk)
    # max is no graph output (the exporter drops it): P itself, masked, only for the trace's field
    probs_max = (e * inv[:, :, None, :]).amax(dim=-1) * allowed.to(e.dtype)  # (B, Tq, Tk)
    return s, mean, probs_max


#: The exported graph's query blocks under a directional mask (``_exported_token2token``).
EXPORT_QUERY_BLOCKS = 4


def _exported_token2token(
    key_part: Tensor, query_part: Tensor, values: Tensor, allowed: Tensor, c: float, direction: str | None = None
) -> tuple[Tensor, dict[str, Tensor]]:
    """The ONNX export's Eqs. 15 and 11 (``_exported_terms``), by blocks of queries under a directional mask.

    The forward mask (Shen Eq. 17) allows a query j only the keys i < j, the backward mask (Eq. 18) only i > j:
    half of the (T, T, D) terms are masked. The queries go in ``EXPORT_QUERY_BLOCKS`` blocks of rows, each with
    the keys its direction can allow (forward: from the first key to the block's last query; backward: from
    its first query to the last key), so the graph computes (k + 1) / 2k of the terms (5/8 for 4 blocks) and
    the rest of each row of ``mean`` is the exact 0 the mask gives. ``allowed`` still masks every block (the
    diagonal, padding). Other masks (``None``: ``diag``, ``none``) compute all the terms. The block bounds follow
    T in the graph (one graph serves every T; a block is empty for T < 4).
    """
    if direction not in ("fw", "bw"):
        s, mean, probs_max = _exported_terms(key_part, query_part, values, allowed, c)
        return s, {"mean": mean, "max": probs_max, "key_part": key_part, "query_part": query_part}
    T = query_part.shape[1]
    outs, means, maxes = [], [], []
    for b in range(EXPORT_QUERY_BLOCKS):
        j0, j1 = b * T // EXPORT_QUERY_BLOCKS, (b + 1) * T // EXPORT_QUERY_BLOCKS
        k0, k1 = (0, j1) if direction == "fw" else (j0, T)
        s, mean, probs_max = _exported_terms(
            key_part[:, k0:k1], query_part[:, j0:j1], values[:, k0:k1], allowed[:, j0:j1, k0:k1], c
        )  # s: (B, Tb, D); mean, max: (B, Tb, k1 − k0)
        outs.append(s)
        means.append(F.pad(mean, (k0, T - k1)))  # (B, Tb, T): the keys outside the block are masked, 0
        maxes.append(F.pad(probs_max, (k0, T - k1)))  # (B, Tb, T)
    views = {"mean": torch.cat(means, dim=1), "max": torch.cat(maxes, dim=1),  # (B, T, T) each
             "key_part": key_part, "query_part": query_part}
    return torch.cat(outs, dim=1), views  # s: (B, T, D)


def _join(chunks: list[Tensor]) -> Tensor:
    """Chunks concatenated along the query axis (dim 1); a single chunk is returned as is, not copied."""
    return chunks[0] if len(chunks) == 1 else torch.cat(chunks, dim=1)


def auto_chunk(B: int, T: int, D: int, budget: int = CHUNK_ELEMENTS) -> int | None:
    """Queries per chunk so one chunk of (B, Tq, T, D) stays under ``budget`` elements."""
    if B * T * T * D <= budget:
        return None
    return max(1, budget // max(1, B * T * D))


def source2token(
    x: Tensor,
    valid: Tensor,
    w1: Tensor,
    b1: Tensor,
    w: Tensor,
    b: Tensor,
    act: Callable[[Tensor], Tensor] = F.elu,
    pre_norm: Callable[[Tensor], Tensor] | None = None,
    drop: Callable[[Tensor], Tensor] | None = None,
) -> tuple[Tensor, Tensor]:
    """Multi-dimensional source2token self-attention.

    Shen Eq. 12: ``f(x_i) = W^T σ(W1 x_i + b1) + b`` (σ = ELU), a softmax over
    tokens per feature, then Eq. 13: ``s = Σ_i P_{·i} ⊙ x_i``. Im Eqs. 14–16
    are the same with row vectors; ``pre_norm`` inserts Im's LayerNorm on the
    first projection (Im Sec. 5.2). ``drop`` (dropout) is applied to the input
    of both dense layers, as in the authors' code; the weighted sum uses the
    undropped x.

    x: (B, T, D); valid: (B, T); w1, w: (D, D); b1, b: (D,).
    Returns s (B, D) and P (B, T, D) (zero at padding, sums to 1 over tokens).
    """
    hidden = (x if drop is None else drop(x)) @ w1.T + b1  # (B, T, D)
    if pre_norm is not None:
        hidden = pre_norm(hidden)  # (B, T, D)
    hidden = act(hidden)  # (B, T, D)
    logits = (hidden if drop is None else drop(hidden)) @ w.T + b  # (B, T, D)
    probs = masked_softmax(logits, valid[..., None], dim=1)  # (B, T, D)
    return (probs * x).sum(dim=1), probs  # (B, D), (B, T, D)


def scaled_dot_scores(q: Tensor, k: Tensor) -> Tensor:
    """Im Eq. 5 per head: ``<q, k> / sqrt(d_k)``; q, k: (B, H, T, dk) → (B, H, T, T)."""
    return q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (B, H, T, T)


def masked_attention(scores: Tensor, v: Tensor, allowed: Tensor, distance_bias: Tensor) -> tuple[Tensor, Tensor]:
    """Im Eq. 7 given the unmasked scores: ``softmax(scores + M_dir + α·M_dis) V``.

    scores: (B, H, T, T); v: (B, H, T, dk); allowed: (B, T, T) — the ``-inf``
    of ``M_dir`` and of padding; distance_bias: (T, T) = ``α·M_dis``.
    Returns the per-head outputs (B, H, T, dk) and probabilities (B, H, T, T).
    Keeping ``scores`` lets a caller re-weight α without re-running the encoder.
    """
    probs = masked_softmax(scores + distance_bias, allowed[:, None], dim=-1)  # (B, H, T, T)
    return probs @ v, probs  # (B, H, T, dk), (B, H, T, T)


def reweight_distance(scores: Tensor, allowed: Tensor, alpha: float) -> Tensor:
    """Im Eq. 7's probabilities for any α from stored scores, with no encoder pass.

    scores: (..., H, T, T) ``QK^T/√d_k``; allowed: (..., T, T) bool.
    Returns ``softmax(scores + M_dir + α·M_dis)`` (..., H, T, T).
    """
    T = scores.shape[-1]
    bias = float(alpha) * distance_mask(T, scores.device).to(scores.dtype)  # (T, T)
    return masked_softmax(scores + bias, allowed.unsqueeze(-3), dim=-1)  # (..., H, T, T)


def split_heads(x: Tensor, heads: int) -> Tensor:
    """(B, T, D) → (B, H, T, D/H)."""
    B, T, D = x.shape
    return x.view(B, T, heads, D // heads).transpose(1, 2)  # (B, H, T, dk)


def merge_heads(x: Tensor) -> Tensor:
    """(B, H, T, dk) → (B, T, H·dk): Im Eq. 8's concat(head_1, …, head_h)."""
    B, H, T, dk = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dk)  # (B, T, D)
