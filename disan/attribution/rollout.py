"""Gated attention rollout: each token's mixing-weight share of the sentence vector.

Rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", Sec. 3) multiplies
the attention matrices of successive layers along the layer graph; here the graph has DiSAN's or
the DSA's own layers, and the fusion gate plays the part of the residual connection (hence *gated*
rollout). Its companion, attention flow (a maximum flow through the same graph), is in
``attention_flow.py``.

**The layer graph, per sentence feature k.** Input nodes: the token-local vectors (DiSAN h_i,
Eq. 14); middle nodes: the fused vectors u_j (Shen Eq. 20, Im Eq. 12); one output node: the
sentence feature s[k]. Edge i → j carries F_j[k]·[i = j] + (1 − F_j[k])·P_{j,i}[k] (the gate
keeps the token's own vector, the attention mixes the others); edge j → s carries the pooling
weight of u_j: P²_j[k] (source2token, Shen Eq. 13 / Im Eq. 15) or, for the DSA's max-pooled
features, 1 for the arg-max token and 0 for the rest. Rollout sums the products along paths:

    A_i[k] = Σ_j P²_j[k] (F_j[k] [i = j] + (1 − F_j[k]) P_{j,i}[k]).

**DiSAN (exact).** The sentence vector is linear in the token-local h_i given one input's weights:
s[k] = Σ_i A_i[k] h_i[k]. So A_i[k] is token i's *mixing weight* in feature k (``per_feature``),
and |A_i[k] h_i[k]| / Σ_i' |A_i'[k] h_i'[k]| its share of the vector itself (``vector_shares``,
which differ: with ELU a token whose h_i[k] is near 0 has a mixing weight but almost no part of
s[k]). Per feature the mixing weights add up to 1 less the **remainder** Σ_j P²_j[k](1 − F_j[k])
over the rows j with no allowed key (the first token under the forward mask, the last under the
backward mask), whose attention output is the zero vector.

**Distance-based SAN (approximate).** The same graph through Im's blocks, exact given the weights
for the pooling (Eqs. 14–16), the max pooling, the fusion gate (Eq. 12) and the attention's
mixing of value vectors (Eq. 7), and approximate because (a) the heads are averaged,
ā_{j,i} = mean_h P^h_{j,i}, since W^O mixes every head into every feature; (b) the LayerNorms
of Q, K, V, W^O, W^S, W^H and the FFN with its residual and LayerNorm (Im Eq. 13, Fig. 2) are
treated as passing each token's share through unchanged: they are position-wise, so no other token
enters, but they mix features non-linearly; (c) the biases of W^O and W^H and the LayerNorm
offsets ride with the attended tokens. The DSA has no token-local vector whose features add up to
s[k], so it has mixing-weight shares only.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..errors import InputError
from ..trace import DiSANTrace, DistanceTrace, EncoderTrace

#: What the rollout's per-token series is, for captions and the results files.
REFERENCE = "gated rollout (Abnar & Zuidema 2020), the fusion gate as the residual"


@dataclass(frozen=True)
class Rollout:
    """per_feature: (B, T, F) mixing weights A_i[k] (F = 2D DiSAN, 4D DSA); shares: (B, T) their mean over
    features; remainder: (B,) the mean weight of no token; vector_shares: (B, T) DiSAN's mean over features
    of |A_i[k] h_i[k]| / Σ_i' |A_i'[k] h_i'[k]| (None for the DSA); exact: True for DiSAN."""

    per_feature: Tensor
    shares: Tensor
    remainder: Tensor
    vector_shares: Tensor | None
    exact: bool


@dataclass(frozen=True)
class LayerGraph:
    """The two-layer graph of one sentence's n real tokens, per feature k. mix: (F, n, n) [k, j, i] the edge
    token i → u_j; out: (F, n) [k, j] the edge u_j → s[k]; exact: DiSAN True."""

    mix: Tensor
    out: Tensor
    exact: bool


def _no_key(allowed: Tensor, valid: Tensor) -> Tensor:
    """(B, T) float: real query rows with no allowed key (their attention output is zero)."""
    return (~allowed.any(-1) & valid).float()  # (B, T)


def _probs(block, T: int) -> Tensor:
    if block.probs is None:
        raise InputError(f"Rollout needs DiSAN's per-feature probabilities, which traces keep only up to 256 tokens; "
                         f"this sentence has {T}. Shorten it.")
    return block.probs


def disan_rollout(enc: DiSANTrace) -> Rollout:
    """Exact mixing weights A_i[k] and vector shares for DiSAN (module docstring)."""
    parts, rest = [], []
    D = enc.fw.h.shape[-1]
    for half, block in enumerate((enc.fw, enc.bw)):
        probs = _probs(block, block.h.shape[1])  # (B, T, T, D)
        p2 = enc.s2t_probs[..., half * D:(half + 1) * D]  # (B, T, D)  Eq. 13 weights of this block's features
        mixed = p2 * (1 - block.gate)  # (B, T, D)  the part of u_j that is attention output
        parts.append(p2 * block.gate + torch.einsum("bjk,bjik->bik", mixed, probs))  # (B, T, D)
        rest.append((mixed * _no_key(block.allowed, enc.valid)[..., None]).sum(1))  # (B, D)
    per_feature = torch.cat(parts, -1) * enc.valid[..., None]  # (B, T, 2D)
    part = (per_feature * torch.cat([enc.fw.h, enc.bw.h], -1)).abs()  # (B, T, 2D)  |A_i[k] h_i[k]|
    vector = (part / part.sum(1, keepdim=True).clamp_min(1e-30)).mean(-1)  # (B, T)
    return Rollout(per_feature, per_feature.mean(-1), torch.cat(rest, -1).mean(-1), vector, exact=True)


def dsa_rollout(enc: DistanceTrace) -> Rollout:
    """Mixing weights through pooling, gates and head-averaged attention for the DSA (module docstring)."""
    gates = torch.cat([enc.fw.gate, enc.bw.gate], -1)  # (B, T, 2D)
    D = enc.fw.gate.shape[-1]
    avg = [enc.fw.probs.mean(1), enc.bw.probs.mean(1)]  # (B, T, T) each: head-averaged ā_{j,i}
    empty = [_no_key(b.allowed, enc.valid) for b in (enc.fw, enc.bw)]  # (B, T) each
    pool, rest_pool = [], []
    for half in range(2):
        f = slice(half * D, (half + 1) * D)
        mixed = enc.s2t_probs[..., f] * (1 - gates[..., f])  # (B, T, D)
        pool.append(enc.s2t_probs[..., f] * gates[..., f] + torch.einsum("bjk,bji->bik", mixed, avg[half]))
        rest_pool.append((mixed * empty[half][..., None]).sum(1))  # (B, D)
    # Max pooling: feature k is U_m[k] of its arg-max token m = argmax[k]; m's own share is F_m[k].
    m = enc.maxpool_argmax  # (B, 2D)
    g_m = gates.gather(1, m[:, None])[:, 0]  # (B, 2D)
    rows = torch.cat([avg[0].gather(1, m[:, :D, None].expand(-1, -1, avg[0].shape[-1])),
                      avg[1].gather(1, m[:, D:, None].expand(-1, -1, avg[1].shape[-1]))], 1)  # (B, 2D, T) ā_{m_k, ·}
    own = torch.nn.functional.one_hot(m, gates.shape[1]).float()  # (B, 2D, T)
    maxed = (g_m[..., None] * own + (1 - g_m[..., None]) * rows).transpose(1, 2)  # (B, T, 2D)
    empty_m = torch.cat([empty[0].gather(1, m[:, :D]), empty[1].gather(1, m[:, D:])], 1)  # (B, 2D)
    rest_max = (1 - g_m) * empty_m  # (B, 2D)
    per_feature = torch.cat(pool + [maxed], -1) * enc.valid[..., None]  # (B, T, 4D)
    remainder = torch.cat(rest_pool + [rest_max], -1).mean(-1)  # (B,)
    return Rollout(per_feature, per_feature.mean(-1), remainder, None, exact=False)


def gated_rollout(enc: EncoderTrace) -> Rollout:
    """``disan_rollout`` or ``dsa_rollout`` by the trace's type."""
    return disan_rollout(enc) if isinstance(enc, DiSANTrace) else dsa_rollout(enc)


def layer_graph(enc: EncoderTrace, b: int = 0) -> LayerGraph:
    """The graph both rollout and attention flow walk (module docstring), for batch row ``b``."""
    idx = enc.valid[b].nonzero()[:, 0]  # (n,) the real tokens
    pick = (slice(None), idx[:, None], idx[None, :])  # [k, j, i] over real tokens
    if isinstance(enc, DiSANTrace):
        blocks = (enc.fw, enc.bw)
        gate = torch.cat([blk.gate[b] for blk in blocks], -1).T  # (F, T)  F_j[k]
        attn = torch.cat([_probs(blk, blk.h.shape[1])[b] for blk in blocks], -1).permute(2, 0, 1)  # (F, T, T)
        out = enc.s2t_probs[b].T  # (F, T)  P²_j[k]
    else:
        D = enc.fw.gate.shape[-1]
        g = torch.cat([enc.fw.gate[b], enc.bw.gate[b]], -1).T  # (2D, T)
        avg = torch.cat([enc.fw.probs[b].mean(0)[None].expand(D, -1, -1),
                         enc.bw.probs[b].mean(0)[None].expand(D, -1, -1)], 0)  # (2D, T, T)  ā_{j,i}
        gate, attn = torch.cat([g, g], 0), torch.cat([avg, avg], 0)  # (4D, T), (4D, T, T)
        won = torch.nn.functional.one_hot(enc.maxpool_argmax[b], enc.valid.shape[1]).to(g.dtype)  # (2D, T)
        out = torch.cat([enc.s2t_probs[b].T, won], 0)  # (4D, T)  P²_j[k], then 1 for the arg-max token
    eye = torch.eye(gate.shape[-1], dtype=gate.dtype, device=gate.device)  # (T, T)
    mix = gate[..., None] * eye + (1 - gate[..., None]) * attn  # (F, T, T)
    return LayerGraph(mix[pick], out[:, idx], isinstance(enc, DiSANTrace))
