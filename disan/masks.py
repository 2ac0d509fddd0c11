"""Attention masks as pure functions of a sequence length.

Convention (used everywhere in this project): a T×T mask is indexed
``[query, key]`` — **rows are the attending token, columns the attended
token** — which is how both papers draw their heatmaps.

Shen et al. (2018) write ``M_ij`` with ``j`` attending and ``i`` attended
(Eq. 11 sums over ``i`` for output ``s_j``), so Eq. 17 ``M^fw_ij = 0 if i < j``
means a query may attend to keys *strictly before it*: in our row/column
layout the forward mask allows the cells left of the diagonal. Im & Cho
(2017) Fig. 3 draws the same matrices (diagonal disabled too).

Masks come in two forms:

* **boolean "allowed"** matrices (``True`` = the query may attend to the key),
  used by the attention functions, which turn disallowed cells into exact zeros;
* **additive** matrices with ``0`` / ``-inf`` entries, as printed in the papers,
  plus the distance mask ``M_dis[i, j] = -|i - j|`` (Im Fig. 4, Eq. 7).
"""

from __future__ import annotations

import torch
from torch import Tensor

from .config import MASK_KINDS


def direction_mask(T: int, kind: str, device: torch.device | str | None = None) -> Tensor:
    """Boolean ``(T, T)`` allowed-matrix for one direction, rows = query.

    * ``fw``   — Shen Eq. 17 / Im Fig. 3a: attend to earlier tokens only.
    * ``bw``   — Shen Eq. 18 / Im Fig. 3b: attend to later tokens only.
    * ``diag`` — Shen Eq. 16: attend to every token except oneself.
    * ``none`` — no mask: attend to every token, oneself included.
    """
    q = torch.arange(T, device=device)[:, None]  # (T, 1) query index
    k = torch.arange(T, device=device)[None, :]  # (1, T) key index
    if kind == "fw":
        return k < q  # (T, T)
    if kind == "bw":
        return k > q  # (T, T)
    if kind == "diag":
        return k != q  # (T, T)
    if kind == "none":
        return torch.ones(T, T, dtype=torch.bool, device=device)  # (T, T)
    raise ValueError(f"Unknown mask kind {kind!r}; use one of {', '.join(MASK_KINDS)}.")


def additive_mask(allowed: Tensor) -> Tensor:
    """``0`` where allowed and ``-inf`` elsewhere: the papers' ``M`` (Shen Eqs. 16–18)."""
    zeros = torch.zeros(allowed.shape, dtype=torch.float32, device=allowed.device)
    return zeros.masked_fill(~allowed, float("-inf"))


def distance_mask(T: int, device: torch.device | str | None = None) -> Tensor:
    """Im Fig. 4: ``M_dis[i, j] = -|i - j|``, shape ``(T, T)``, float32."""
    idx = torch.arange(T, device=device, dtype=torch.float32)  # (T,)
    return -(idx[:, None] - idx[None, :]).abs()  # (T, T)


def combined_mask(T: int, kind: str, alpha: float, device: torch.device | str | None = None) -> Tensor:
    """Im Eq. 7's additive term ``M_dir + α·M_dis`` as a ``(T, T)`` float matrix."""
    return additive_mask(direction_mask(T, kind, device)) + alpha * distance_mask(T, device)


def padding_mask(lengths: Tensor | list[int], T: int | None = None) -> Tensor:
    """``(B, T)`` boolean, ``True`` at real tokens, for right-padded batches."""
    lengths = torch.as_tensor(lengths)  # (B,)
    T = int(lengths.max()) if T is None else T
    return torch.arange(T, device=lengths.device)[None, :] < lengths[:, None]  # (B, T)


def attention_allowed(direction: Tensor, valid: Tensor) -> Tensor:
    """Combine a ``(T, T)`` direction mask with a ``(B, T)`` padding mask.

    A cell is allowed when the direction allows it and both the query and the
    key are real tokens. Padded queries therefore have no allowed key at all.
    """
    return direction[None] & valid[:, :, None] & valid[:, None, :]  # (B, T, T)
