"""Attention flow: each token's share of the sentence vector, composed through the model's own weights.

**DiSAN (exact).** Given one input's probabilities P (Eq. 11), gates F (Eq. 19) and
source2token weights P² (Eq. 13), the sentence vector is linear in the token
representations h_i = σ(W_h x_i + b_h) (Eq. 14), each a function of token i alone.
Per block and feature k,

    s[k] = Σ_j P²_j[k] u_j[k],   u_j = F_j ⊙ h_j + (1 − F_j) ⊙ Σ_i P_{j,i} ⊙ h_i      (Eqs. 20, 11)
         = Σ_i A_i[k] h_i[k],     A_i[k] = P²_i[k] F_i[k] + Σ_j P²_j[k] (1 − F_j[k]) P_{j,i}[k].

A_i[k] is token i's exact share of feature k; the forward block gives the first D
features and the backward block the last D. Per feature the shares add up to 1 less the
**remainder** Σ_j P²_j[k] (1 − F_j[k]) over the rows j with no allowed key (the first
token under the forward mask, the last under the backward mask), whose attention output
is the zero vector: that part of the sentence vector comes from no token.

**Distance-based SAN (partly approximate).** The same composition through Im's blocks:

* exact, given the weights: the multi-dimensional pooling (Eqs. 14–16: share P²_j[k] of
  U_j[k]); max pooling (feature k comes wholly from its arg-max token); the fusion gate
  (Eq. 12: share F_j[k] to the token's own S^F_j, 1 − F_j[k] to the attention side H^F_j);
  the attention's mixing of value vectors (Eq. 7: token i's part of head h at j is
  P^h_{j,i} v_i, and v_i, S^F_i depend on token i alone);
* approximate: (a) the heads are averaged, share ā_{j,i} = mean_h P^h_{j,i}, because
  W^O mixes every head into every feature; (b) the LayerNorms of Q, K, V, W^O, W^S, W^H and
  the FFN with its residual and LayerNorm (Im Eq. 13, Fig. 2) are treated as passing each
  token's share through unchanged: they are position-wise, so no other token enters, but
  they mix features non-linearly, so the per-feature split is not preserved; (c) the
  biases of W^O and W^H and the LayerNorm offsets ride with the attended tokens. Rows with
  no allowed key get only those biases: their 1 − F share is the remainder.

Both return per-token shares averaged over the sentence vector's features (their sum is
1 − remainder) and the remainder itself.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from ..errors import InputError
from ..trace import DiSANTrace, DistanceTrace, EncoderTrace


@dataclass(frozen=True)
class Flow:
    """per_feature: (B, T, F) token shares of each sentence feature (F = 2D DiSAN, 4D DSA);
    shares: (B, T) their mean over features; remainder: (B,) the mean share of no token;
    exact: True for DiSAN (given the weights), False for the DSA (see the module docstring)."""

    per_feature: Tensor
    shares: Tensor
    remainder: Tensor
    exact: bool


def _no_key(allowed: Tensor, valid: Tensor) -> Tensor:
    """(B, T) float: real query rows with no allowed key (their attention output is zero)."""
    return (~allowed.any(-1) & valid).float()  # (B, T)


def disan_flow(enc: DiSANTrace) -> Flow:
    """Exact shares A_i[k] for DiSAN (module docstring); needs the per-feature P of both blocks."""
    parts, rest = [], []
    D = enc.fw.h.shape[-1]
    for half, block in enumerate((enc.fw, enc.bw)):
        if block.probs is None:
            raise InputError(f"Attention flow needs DiSAN's per-feature probabilities, which traces keep only up to "
                             f"256 tokens; this sentence has {block.h.shape[1]}. Shorten it.")
        p2 = enc.s2t_probs[..., half * D:(half + 1) * D]  # (B, T, D)  Eq. 13 weights of this block's features
        mixed = p2 * (1 - block.gate)  # (B, T, D)  the part of u_j that is attention output
        parts.append(p2 * block.gate + torch.einsum("bjk,bjik->bik", mixed, block.probs))  # (B, T, D)
        rest.append((mixed * _no_key(block.allowed, enc.valid)[..., None]).sum(1))  # (B, D)
    per_feature = torch.cat(parts, -1) * enc.valid[..., None]  # (B, T, 2D)
    return Flow(per_feature, per_feature.mean(-1), torch.cat(rest, -1).mean(-1), exact=True)


def dsa_flow(enc: DistanceTrace) -> Flow:
    """Shares through pooling, gates and head-averaged attention for the DSA (module docstring)."""
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
    return Flow(per_feature, per_feature.mean(-1), remainder, exact=False)


def attention_flow(enc: EncoderTrace) -> Flow:
    """``disan_flow`` or ``dsa_flow`` by the trace's type."""
    return disan_flow(enc) if isinstance(enc, DiSANTrace) else dsa_flow(enc)
