"""Erasure: leave-one-out and ERASER's token removal, batched in embedding space.

* **Leave-one-out** replaces one token's embedding by the ``<unk>`` embedding and
  records the drop p(x) − p(x with token t as <unk>) of the target class: positive when
  the token supports the class. Every variant of a batch runs in one pass.
* **Subsets** (ERASER, DeYoung et al. 2020) keep some positions of each side, in their
  order, and *delete* the rest (the shorter sentence is re-encoded, as ERASER deletes
  rationale tokens); ``subset_probs`` runs many such variants sorted by length.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from .forward import ClassProbability, Embedded

#: Variants per forward pass (the DiSAN fast path never holds a (B, T, T, D) tensor, so rows are cheap).
ROWS_PER_PASS = 256


def _run(fn: ClassProbability, xs: Sequence[Tensor], valids: Sequence[Tensor], target: Tensor) -> Tensor:
    """Target output (V,) of V variants (a class probability, or a relatedness score: ``ClassProbability.outputs``),
    ``ROWS_PER_PASS`` at a time, no autograd."""
    out = []
    with torch.no_grad():
        for start in range(0, target.shape[0], ROWS_PER_PASS):
            rows = slice(start, start + ROWS_PER_PASS)
            p = fn.outputs([x[rows] for x in xs], [v[rows] for v in valids])  # (v, K) or (v, K + 1)
            out.append(p.gather(1, target[rows, None])[:, 0])  # (v,)
    return torch.cat(out) if out else torch.zeros(0, device=target.device)


def leave_one_out(fn: ClassProbability, emb: Embedded, target: Tensor, p_full: Tensor) -> tuple[Tensor, ...]:
    """Per side (B, T_s): p_full − p(token t of that side → <unk>), zero at padding. p_full: (B,) target probs."""
    unk = fn.unk_vector()  # (d_in,)
    out = []
    for s, (x_s, v_s) in enumerate(zip(emb.xs, emb.valids)):
        B, T, d = x_s.shape
        b_idx, t_idx = v_s.nonzero(as_tuple=True)  # (V,) one variant per real token
        xs = [x[b_idx].clone() for x in emb.xs]  # (V, T_r, d) per side: the variant's example
        xs[s][torch.arange(b_idx.numel()), t_idx] = unk  # token t of side s becomes <unk>
        p = _run(fn, xs, [v[b_idx] for v in emb.valids], target[b_idx])  # (V,)
        drop = torch.zeros(B, T, device=x_s.device)
        drop[b_idx, t_idx] = p_full[b_idx] - p
        out.append(drop)
    return tuple(out)


def subset_probs(
    fn: ClassProbability, emb: Embedded, example: Sequence[int], keep: Sequence[Sequence[Sequence[int]]],
    target: Tensor,
) -> Tensor:
    """Target-class probability (V,) of V variants.

    example: (V,) the batch row each variant comes from; keep[s][v]: the positions of side s that
    variant v keeps (ascending); target: (B,) class per batch row. Variants run sorted by length.
    """
    V, device = len(example), target.device
    order = sorted(range(V), key=lambda v: max(len(keep[s][v]) for s in range(len(keep))))
    probs = torch.zeros(V, device=device)
    for start in range(0, V, ROWS_PER_PASS):
        chunk = order[start : start + ROWS_PER_PASS]
        rows = torch.tensor([example[v] for v in chunk], device=device)  # (v,)
        xs, valids = [], []
        for s, x_s in enumerate(emb.xs):
            kept = [keep[s][v] for v in chunk]
            T = max(1, max(len(k) for k in kept))
            padded = [list(k) + [0] * (T - len(k)) for k in kept]
            idx = torch.tensor(padded, device=device)  # (v, T) positions, 0-padded
            lengths = torch.tensor([len(k) for k in kept], device=device)  # (v,)
            valid = torch.arange(T, device=device)[None] < lengths[:, None]  # (v, T)
            xs.append(x_s[rows[:, None], idx] * valid[..., None])  # (v, T, d_in)
            valids.append(valid)
        probs[torch.tensor(chunk, device=device)] = _run(fn, xs, valids, target[rows])
    return probs
