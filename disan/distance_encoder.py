"""Distance-based Self-Attention Network encoder (Im & Cho 2017, Sec. 4.2, Fig. 2).

Deviation (documented in docs/deviations.md): with 50-d GloVe inputs the words are
first projected linearly to ``d_model`` (300 by default), so the encoder has
the paper's width; with ``d_in == d_model`` there is no projection.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .attention import masked_attention, merge_heads, scaled_dot_scores, split_heads
from .disan_encoder import Source2Token, glorot_
from .masks import attention_allowed, direction_mask, distance_mask
from .trace import DistanceBlockTrace, DistanceTrace, detach


class NormedLinear(nn.Module):
    """A linear projection followed by LayerNorm (Im Sec. 5.2: LN on all linear projections).

    ``bias=False`` follows Im Eqs. 8 and 11, which have no bias (``ModelConfig.dsa_proj_bias``).
    """

    def __init__(self, d_in: int, d_out: int, bias: bool = True):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out, bias=bias)
        self.norm = nn.LayerNorm(d_out)

    def forward(self, x: Tensor) -> Tensor:
        return self.norm(self.fc(x))


class DistanceBlock(nn.Module):
    """Masked multi-head attention → fusion gate → position-wise FFN (one direction)."""

    def __init__(self, d: int, heads: int, ffn_mult: int, dropout: float, proj_bias: bool = True):
        super().__init__()
        self.heads = heads
        self.q = NormedLinear(d, d, proj_bias)  # Eq. 8: W^Q_i for all heads
        self.k = NormedLinear(d, d, proj_bias)  # W^K_i
        self.v = NormedLinear(d, d, proj_bias)  # W^V_i
        self.o = NormedLinear(d, d, proj_bias)  # W^O
        self.gate_s = NormedLinear(d, d, proj_bias)  # Eq. 11: W^S
        self.gate_h = NormedLinear(d, d, proj_bias)  # Eq. 11: W^H
        self.gate_b = nn.Parameter(torch.zeros(d))  # Eq. 12: b^F
        self.ffn1 = nn.Linear(d, ffn_mult * d)  # Eq. 13: W^P_1, b^P_1
        self.ffn2 = nn.Linear(ffn_mult * d, d)  # Eq. 13: W^P_2, b^P_2
        self.ffn_norm = nn.LayerNorm(d)  # Fig. 2: LN(x + FFN(x))
        self.drop = nn.Dropout(dropout)

    def forward(
        self, x: Tensor, valid: Tensor, mask: str, alpha: float | Tensor, record: bool = False
    ) -> tuple[Tensor, DistanceBlockTrace | None]:
        """x: (B, T, D), valid: (B, T), α a float or a (1,) tensor → U (B, T, D) and an optional trace."""
        B, T, D = x.shape
        allowed = attention_allowed(direction_mask(T, mask, x.device), valid)  # (B, T, T)
        bias = alpha * distance_mask(T, x.device).to(x.dtype)  # (T, T)  α·M_dis
        q = split_heads(self.q(x), self.heads)  # (B, H, T, dk)
        k = split_heads(self.k(x), self.heads)  # (B, H, T, dk)
        v = split_heads(self.v(x), self.heads)  # (B, H, T, dk)
        scores = scaled_dot_scores(q, k)  # (B, H, T, T)
        heads, probs = masked_attention(scores, v, allowed, bias)  # (B, H, T, dk), (B, H, T, T)  Eq. 7
        attn = self.drop(self.o(merge_heads(heads)))  # (B, T, D)  Eq. 8, residual dropout
        s_f = self.gate_s(x)  # (B, T, D)  Eq. 11
        h_f = self.gate_h(attn)  # (B, T, D)  Eq. 11
        gate = torch.sigmoid(self.drop(s_f + h_f + self.gate_b))  # (B, T, D)  Eq. 12
        fused = gate * s_f + (1 - gate) * h_f  # (B, T, D)  Eq. 12
        hidden = F.relu(self.ffn1(fused))  # (B, T, 4D)  Eq. 13
        u = self.ffn_norm(fused + self.ffn2(self.drop(hidden)))  # (B, T, D)  Fig. 2 residual + LN
        if not record:
            return u, None
        trace = DistanceBlockTrace(
            mask=mask,
            alpha=float(alpha),
            allowed=detach(allowed),
            distance_bias=detach(bias),
            scores=detach(scores),
            probs=detach(probs),
            attn_out=detach(attn),
            gate=detach(gate),
            ffn_deactivation=detach((hidden <= 0).float().mean(-1) * valid),  # (B, T)  Im Fig. 10a
            ln_max=detach(u.amax(-1) * valid),  # (B, T)  Im Fig. 10b
            u=detach(u),
        )
        return u, trace


class DistanceEncoder(nn.Module):
    """Forward and backward distance-masked blocks, then source2token + max pooling (Im Sec. 4.2)."""

    def __init__(
        self,
        d_in: int,
        d_model: int = 300,
        heads: int = 5,
        alpha: float = 1.5,
        ffn_mult: int = 4,
        dropout: float = 0.1,
        masks=("fw", "bw"),
        proj_bias: bool = True,
    ):
        super().__init__()
        self.alpha = alpha
        self.masks = tuple(masks)
        self.proj = nn.Linear(d_in, d_model) if d_in != d_model else None  # deviation: 50-d GloVe → d_model
        self.fw = DistanceBlock(d_model, heads, ffn_mult, dropout, proj_bias)
        self.bw = DistanceBlock(d_model, heads, ffn_mult, dropout, proj_bias)
        self.s2t = Source2Token(2 * d_model, layer_norm=True)
        self.out_dim = 4 * d_model
        glorot_(self)

    def forward(
        self,
        x: Tensor,
        valid: Tensor,
        record: bool = False,
        masks: tuple[str, str] | None = None,
        alpha: float | None = None,
        chunk: int | None = -1,
    ) -> tuple[Tensor, DistanceTrace | None]:
        """x: (B, T, d_in), valid: (B, T) → sentence (B, 4D) and an optional trace.

        ``masks`` and ``alpha`` override the trained ones at inference without
        touching the weights. ``chunk`` is accepted for a uniform interface. A tensor ``alpha`` (1,) stays a
        tensor, so that the ONNX export (``onnx_export.py``) keeps α an input of the graph.
        """
        alpha = self.alpha if alpha is None else alpha if isinstance(alpha, Tensor) else float(alpha)
        m_fw, m_bw = masks or self.masks
        if self.proj is not None:
            x = self.proj(x)  # (B, T, D)
        u_fw, t_fw = self.fw(x, valid, m_fw, alpha, record)  # (B, T, D)
        u_bw, t_bw = self.bw(x, valid, m_bw, alpha, record)  # (B, T, D)
        u = torch.cat([u_fw, u_bw], dim=-1)  # (B, T, 2D)  U = [U^fw; U^bw]
        pooled, p = self.s2t(u, valid)  # (B, 2D), (B, T, 2D)  Eqs. 14–16
        neg = torch.finfo(u.dtype).min
        maxed, argmax = u.masked_fill(~valid[..., None], neg).max(dim=1)  # (B, 2D), (B, 2D)
        sentence = torch.cat([pooled, maxed], dim=-1)  # (B, 4D)
        if not record:
            return sentence, None
        won = F.one_hot(argmax, u.shape[1]).float().mean(dim=1)  # (B, T) share of features won
        return sentence, DistanceTrace(
            detach(valid), t_fw, t_bw, detach(p), detach(argmax), detach(won), detach(sentence)
        )
