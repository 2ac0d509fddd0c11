"""A batch's encoder trace → the index's per-token numbers, per-sentence summaries and attention signature.

Pure functions of padded batch tensors (``B`` sentences, ``T`` tokens; rows attend, columns are attended, as in
``masks.py``). A value that is undefined for a token (a row with no key, a column no row may attend) is NaN here
and null in the Parquet (``chunk.py``), so a filter never matches it by accident.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ..measures import group_mean, received_attention
from ..stats import mean_attention_distance, row_entropy
from ..trace import DiSANTrace, EncoderTrace

BLOCKS = ("fw", "bw")
#: Lower edges of the |i − j| bins of the signature's distance profile: 0, 1, 2, 3, 4–7, 8–15, ≥ 16.
DISTANCE_BIN_EDGES = (0, 1, 2, 3, 4, 8, 16)
#: Distances 0..PROFILE_MAX − 1 are kept one by one in the corpus profile (the last bin holds every longer one).
PROFILE_MAX = 64


def block_probs(trace: EncoderTrace, block: str) -> Tensor:
    """(B, T, T) attention of one block averaged over features (DiSAN, Shen Fig. 6) or heads (DSA)."""
    b = getattr(trace, block)
    return b.probs_mean if isinstance(trace, DiSANTrace) else b.probs.mean(1)


def head_probs(trace: EncoderTrace, block: str) -> Tensor:
    """(B, H, T, T): the DSA's heads (Im Eq. 7); DiSAN's feature-averaged map as one head."""
    b = getattr(trace, block)
    return b.probs_mean[:, None] if isinstance(trace, DiSANTrace) else b.probs


def _nan_where(values: Tensor, keep: Tensor) -> Tensor:
    return torch.where(keep, values, torch.full_like(values, float("nan")))


def token_measures(trace: EncoderTrace) -> dict[str, Tensor]:
    """Column name → (B, T) values of every token-level attention measure (see ``columns.TOKEN_COLUMNS``)."""
    out: dict[str, Tensor] = {}
    for name in BLOCKS:
        block = getattr(trace, name)
        probs = block_probs(trace, name)  # (B, T, T)
        live = block.allowed.any(-1)  # (B, T) rows with at least one key
        out[f"{name}_gate"] = block.gate.mean(-1)  # (B, T) Shen Eq. 19 / Im Eq. 12, features averaged
        out[f"{name}_received"] = received_attention(probs, block.allowed)  # (B, T)
        out[f"{name}_given_max"] = _nan_where(probs.amax(-1), live)  # (B, T)
        out[f"{name}_entropy"] = _nan_where(row_entropy(probs), live)  # (B, T)
        out[f"{name}_distance"] = _nan_where(mean_attention_distance(probs), live)  # (B, T)
        if not isinstance(trace, DiSANTrace):
            heads = mean_attention_distance(block.probs)  # (B, H, T)
            for h in range(heads.shape[1]):
                out[f"{name}_h{h}_distance"] = _nan_where(heads[:, h], live)  # (B, T)
    out["s2t"] = trace.s2t_probs.mean(-1)  # (B, T) Shen Eqs. 12-13 / Im Eq. 15, features averaged
    if not isinstance(trace, DiSANTrace):
        out["maxpool_share"] = trace.maxpool_share  # (B, T) Im Fig. 11b
    return out


def sentence_measures(tokens: dict[str, Tensor], valid: Tensor) -> dict[str, Tensor]:
    """Per-sentence means (B,) of the token measures a query sorts whole sentences by."""
    out = {}
    for name in BLOCKS:
        for what in ("gate", "entropy", "distance"):
            col = f"{name}_{what}"
            out[f"mean_{col}"] = group_mean(tokens[col], valid)  # (B,)
    return out


def distance_histogram(probs: Tensor, allowed: Tensor, edges: tuple[int, ...]) -> Tensor:
    """Attention mass per |i − j| bin averaged over attending rows: (B, H, T, T) → (B, H, len(edges)).

    Bin k holds distances edges[k] ≤ |i − j| < edges[k + 1] (the last bin is open).
    """
    B, H, T, _ = probs.shape
    idx = torch.arange(T, device=probs.device)
    dist = (idx[:, None] - idx[None, :]).abs()  # (T, T)
    bin_of = torch.bucketize(dist, torch.tensor(edges[1:], device=probs.device), right=True)  # (T, T)
    live = allowed.any(-1)  # (B, T)
    weighted = (probs * live[:, None, :, None]).reshape(B, H, T * T)  # (B, H, T·T) rows with no key dropped
    out = torch.zeros(B, H, len(edges), dtype=probs.dtype, device=probs.device)  # (B, H, K)
    out.scatter_add_(2, bin_of.reshape(1, 1, T * T).expand(B, H, -1), weighted)
    rows = live.sum(-1).clamp(min=1).to(probs.dtype)  # (B,)
    return out / rows[:, None, None]  # (B, H, K)


def signature(trace: EncoderTrace) -> Tensor:
    """(B, S) the fixed-length attention signature of each sentence, for ``--like`` (docs/search.md).

    Per block: the distance profile of the head-averaged map (``DISTANCE_BIN_EDGES``), the mean row entropy
    over log n_i (1 = uniform over the allowed keys), the mean gate; for the DSA each head's mean distance over
    the sentence length; then source2token's entropy over log T. Every entry lies in [0, 1].
    """
    parts = []
    valid = trace.valid  # (B, T)
    lengths = valid.sum(-1).clamp(min=1).to(torch.float32)  # (B,)
    for name in BLOCKS:
        block = getattr(trace, name)
        probs = block_probs(trace, name)  # (B, T, T)
        parts.append(distance_histogram(probs[:, None], block.allowed, DISTANCE_BIN_EDGES)[:, 0])  # (B, K)
        n = block.allowed.sum(-1).to(probs.dtype)  # (B, T)
        norm = _nan_where(row_entropy(probs) / n.clamp(min=2).log(), n > 1)  # (B, T)
        parts.append(torch.nan_to_num(group_mean(norm, n > 1), nan=0.0)[:, None])  # (B, 1)
        parts.append(group_mean(block.gate.mean(-1), valid)[:, None])  # (B, 1)
        if not isinstance(trace, DiSANTrace):
            live = block.allowed.any(-1)  # (B, T)
            heads = mean_attention_distance(block.probs)  # (B, H, T)
            per_head = torch.stack([group_mean(heads[:, h], live) for h in range(heads.shape[1])], 1)  # (B, H)
            parts.append(torch.nan_to_num(per_head, nan=0.0) / lengths[:, None])  # (B, H)
    s2t = trace.s2t_probs.mean(-1)  # (B, T)
    ent = row_entropy(s2t) / lengths.clamp(min=2).log()  # (B,)
    parts.append(ent[:, None])  # (B, 1)
    return torch.cat(parts, 1).float()  # (B, S)


def signature_length(arch: str, heads: int) -> int:
    per_block = len(DISTANCE_BIN_EDGES) + 2 + (heads if arch == "dsa" else 0)
    return 2 * per_block + 1


def distance_profile(trace: EncoderTrace) -> dict[str, Tensor]:
    """Block → (H, PROFILE_MAX) attention mass at each |i − j| summed over the batch's attending rows, and
    ``rows`` → (2,) the number of attending rows per block: the corpus figure's numbers (``profile.py``)."""
    out = {}
    edges = tuple(range(PROFILE_MAX))
    for name in BLOCKS:
        block = getattr(trace, name)
        probs = head_probs(trace, name)  # (B, H, T, T)
        live = block.allowed.any(-1)  # (B, T)
        hist = distance_histogram(probs, block.allowed, edges)  # (B, H, K) mean over rows
        rows = live.sum(-1).to(probs.dtype)  # (B,)
        out[name] = (hist * rows[:, None, None]).sum(0)  # (H, K) summed over rows
        out[f"{name}_rows"] = rows.sum()
    return out
