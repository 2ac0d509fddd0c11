"""DiSAN: Directional Self-Attention Network (Shen et al. 2018, Sec. 4, Figs. 2 and 4)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .attention import auto_chunk, multi_dim_token2token, source2token
from .fused_attention import fused_token2token, use_fused
from .masks import attention_allowed, direction_mask
from .trace import DiSABlockTrace, DiSANTrace, detach

#: σ of DiSAN by ``ModelConfig.activation`` (Shen Sec. 5: ELU unless specified).
ACTIVATIONS = {"elu": F.elu, "relu": F.relu}

#: Above this many tokens the trace keeps only reduced probability views
#: (mean/max over features) instead of the full (B, T, T, D) tensor.
FULL_PROBS_MAX_TOKENS = 256


def glorot_(module: nn.Module) -> None:
    """Shen Sec. 5: Glorot-initialised weight matrices, zero biases."""
    for name, p in module.named_parameters():
        if p.dim() >= 2:
            nn.init.xavier_uniform_(p)
        elif name.endswith("bias") or name.endswith("b1"):
            nn.init.zeros_(p)


class DiSABlock(nn.Module):
    """Directional self-attention block (Shen Fig. 2).

    ``dropout_mode`` (``ModelConfig.dropout_mode``): ``ours`` drops h before
    token2token, for the logits and the values; ``authors`` follows the
    authors' code (SST_disan/src/nn_utils/disan.py): dropout on x before
    Eq. 14, on h for the logits only (the values are h before dropout), and on
    both inputs of the fusion gate (Eq. 19), while Eq. 20 mixes undropped h and s.
    """

    #: token2token implementation (``fused_attention.IMPLS``): ``auto`` uses the
    #: fused kernel when no trace is recorded and the block trains or autograd is
    #: off (train.py, ``predict``); traces always use the reference.
    token2token_impl = "auto"

    def __init__(self, d_in: int, d_h: int, c: float, dropout: float, activation: str = "elu",
                 dropout_mode: str = "ours"):
        super().__init__()
        self.c = c
        self.act = ACTIVATIONS[activation]
        self.authors_dropout = dropout_mode == "authors"
        self.fc_h = nn.Linear(d_in, d_h)  # Eq. 14: W^(h), b^(h)
        self.w1 = nn.Linear(d_h, d_h, bias=False)  # Eq. 15: W^(1) (keys)
        self.w2 = nn.Linear(d_h, d_h, bias=False)  # Eq. 15: W^(2) (queries)
        self.b1 = nn.Parameter(torch.zeros(d_h))  # Eq. 15: b^(1)
        self.gate_s = nn.Linear(d_h, d_h, bias=False)  # Eq. 19: W^(f1)
        self.gate_h = nn.Linear(d_h, d_h)  # Eq. 19: W^(f2), b^(f)
        self.drop = nn.Dropout(dropout)

    def forward(
        self, x: Tensor, valid: Tensor, mask: str, record: bool = False, chunk: int | None = -1
    ) -> tuple[Tensor, DiSABlockTrace | None]:
        """x: (B, T, d_in), valid: (B, T) → u (B, T, D) and an optional trace.

        ``chunk=-1`` picks a query chunk size from the memory budget.
        """
        B, T, _ = x.shape
        h = self.act(self.fc_h(self.drop(x) if self.authors_dropout else x))  # (B, T, D)  Eq. 14
        allowed = attention_allowed(direction_mask(T, mask, x.device), valid)  # (B, T, T)
        h_att = self.drop(h)  # dropout on h before the attention logits (both modes)
        values = h if self.authors_dropout else None  # authors: Eq. 11 sums the undropped h
        keep = record and T <= FULL_PROBS_MAX_TOKENS
        if use_fused(self.token2token_impl, record, self.training, h_att, self.c):
            s = fused_token2token(
                h_att, allowed, self.w1.weight, self.w2.weight, self.b1, self.c, values=values
            )  # (B, T, D)
        else:
            if chunk == -1:
                chunk = None if self.token2token_impl == "naive" else auto_chunk(B, T, h.shape[-1])
            s, views = multi_dim_token2token(
                h_att, allowed, self.w1.weight, self.w2.weight, self.b1, self.c, chunk=chunk, keep_probs=keep,
                values=values, direction=mask,
            )  # s: (B, T, D)
        gate_s, gate_h = (self.drop(s), self.drop(h)) if self.authors_dropout else (s, h)  # (B, T, D) each
        gate = torch.sigmoid(self.gate_s(gate_s) + self.gate_h(gate_h))  # (B, T, D)  Eq. 19
        u = gate * h + (1 - gate) * s  # (B, T, D)  Eq. 20
        u = u * valid[..., None]  # (B, T, D)  padding stays zero
        if not record:
            return u, None
        trace = DiSABlockTrace(
            mask=mask,
            allowed=detach(allowed),
            h=detach(h),
            probs=detach(views["probs"]) if "probs" in views else None,  # kept (keep_probs) and not exported
            probs_mean=detach(views["mean"]),
            probs_max=detach(views["max"]),
            s=detach(s),
            gate=detach(gate),
            u=detach(u),
            key_part=detach(views["key_part"]),  # (B, T, D)  Eq. 15's W1 h_i + b1
            query_part=detach(views["query_part"]),  # (B, T, D)  Eq. 15's W2 h_j
            c=float(self.c),
        )
        return u, trace


class Source2Token(nn.Module):
    """Multi-dimensional source2token self-attention (Shen Eqs. 12–13).

    ``dropout`` (the authors' dropout mode): drop the input of both dense
    layers; ``None``: no dropout here.
    """

    def __init__(self, d: int, layer_norm: bool = False, activation: str = "elu", dropout: float | None = None):
        super().__init__()
        self.fc1 = nn.Linear(d, d)  # W^(1), b^(1)
        self.fc2 = nn.Linear(d, d)  # W, b
        self.norm = nn.LayerNorm(d) if layer_norm else None  # Im Sec. 5.2
        self.act = ACTIVATIONS[activation]
        self.drop = nn.Dropout(dropout) if dropout is not None else None

    def forward(self, x: Tensor, valid: Tensor) -> tuple[Tensor, Tensor]:
        """x: (B, T, d), valid: (B, T) → s (B, d), P (B, T, d)."""
        return source2token(
            x, valid, self.fc1.weight, self.fc1.bias, self.fc2.weight, self.fc2.bias, self.act, self.norm, self.drop
        )


class DiSANEncoder(nn.Module):
    """Two untied DiSA blocks (forward, backward), concatenated, then source2token (Shen Sec. 4)."""

    def __init__(
        self,
        d_in: int,
        d_h: int = 300,
        c: float = 5.0,
        dropout: float = 0.2,
        masks=("fw", "bw"),
        activation: str = "elu",
        dropout_mode: str = "ours",
    ):
        super().__init__()
        self.masks = tuple(masks)
        self.fw = DiSABlock(d_in, d_h, c, dropout, activation, dropout_mode)
        self.bw = DiSABlock(d_in, d_h, c, dropout, activation, dropout_mode)
        self.s2t = Source2Token(2 * d_h, activation=activation, dropout=dropout if dropout_mode == "authors" else None)
        self.out_dim = 2 * d_h
        glorot_(self)

    def forward(
        self,
        x: Tensor,
        valid: Tensor,
        record: bool = False,
        masks: tuple[str, str] | None = None,
        alpha: float | None = None,
        chunk: int | None = -1,
    ) -> tuple[Tensor, DiSANTrace | None]:
        """x: (B, T, d_in), valid: (B, T) → sentence (B, 2D) and an optional trace.

        ``masks`` overrides the two blocks' masks at inference; ``alpha`` is
        accepted for a uniform interface and must be ``None`` (DiSAN has no
        distance mask).
        """
        if alpha is not None:
            raise ValueError(f"alpha={alpha} was given, but DiSAN has no distance mask; leave alpha unset.")
        m_fw, m_bw = masks or self.masks
        u_fw, t_fw = self.fw(x, valid, m_fw, record, chunk)  # (B, T, D)
        u_bw, t_bw = self.bw(x, valid, m_bw, record, chunk)  # (B, T, D)
        u = torch.cat([u_fw, u_bw], dim=-1)  # (B, T, 2D)
        sentence, p = self.s2t(u, valid)  # (B, 2D), (B, T, 2D)
        if not record:
            return sentence, None
        return sentence, DiSANTrace(detach(valid), t_fw, t_bw, detach(p), detach(sentence))
