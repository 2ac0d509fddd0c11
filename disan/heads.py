"""Task heads on top of a sentence encoding (premise and hypothesis share one encoder)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class ClassifierHead(nn.Module):
    """Single-sentence classification: a 300-D layer, then logits over K classes.

    ``output_bias=False``: the logit layer has no bias (the authors' SST classifier).
    """

    def __init__(self, d_in: int, hidden: int, classes: int, dropout: float, relu: bool, output_bias: bool = True):
        super().__init__()
        self.fc = nn.Linear(d_in, hidden)
        self.out = nn.Linear(hidden, classes, bias=output_bias)
        self.act = F.relu if relu else F.elu
        self.drop = nn.Dropout(dropout)

    def forward(self, s: Tensor) -> Tensor:
        """s: (B, d_in) → logits (B, K)."""
        return self.out(self.drop(self.act(self.fc(self.drop(s)))))


class ShenNLIHead(nn.Module):
    """Shen Sec. 5.1: ``[s_p; s_h; s_p − s_h; s_p ⊙ s_h]`` → 300-D (ELU, or ReLU) → 3-way."""

    def __init__(self, d_in: int, hidden: int, classes: int, dropout: float, relu: bool = False,
                 output_bias: bool = True):
        super().__init__()
        self.fc = nn.Linear(4 * d_in, hidden)
        self.out = nn.Linear(hidden, classes, bias=output_bias)
        self.act = F.relu if relu else F.elu
        self.drop = nn.Dropout(dropout)

    def forward(self, sp: Tensor, sh: Tensor) -> Tensor:
        """sp, sh: (B, d_in) → logits (B, 3)."""
        feats = torch.cat([sp, sh, sp - sh, sp * sh], dim=-1)  # (B, 4·d_in)
        return self.out(self.drop(self.act(self.fc(self.drop(feats)))))


class ImNLIHead(nn.Module):
    """Im Sec. 4.1: ``[u; v; |u − v|; u * v]`` → 300-D ReLU with LayerNorm and dropout → 3-way."""

    def __init__(self, d_in: int, hidden: int, classes: int, dropout: float, output_bias: bool = True):
        super().__init__()
        self.fc = nn.Linear(4 * d_in, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.out = nn.Linear(hidden, classes, bias=output_bias)
        self.drop = nn.Dropout(dropout)

    def forward(self, u: Tensor, v: Tensor) -> Tensor:
        """u, v: (B, d_in) → logits (B, 3)."""
        feats = torch.cat([u, v, (u - v).abs(), u * v], dim=-1)  # (B, 4·d_in)
        return self.out(self.drop(F.relu(self.norm(self.fc(feats)))))


class RelatednessHead(nn.Module):
    """Tai, Socher & Manning 2015, Sec. 4.2 (Shen Sec. 5.3 puts it on DiSAN for SICK).

    Features of the pair h× = s_a ⊙ s_b and h+ = |s_a − s_b|; one hidden layer
    h_s = sigmoid(W× h× + W+ h+ + b) and logits W_p h_s + b_p over the grades r = 1..K, whose softmax
    is p̂ (the score is rᵀp̂: ``relatedness.expected_score``). Hidden size: ``cfg.head_hidden`` (Tai used
    50 with a 150-D Tree-LSTM; Shen does not say, so the 300-D layer of the other heads is kept).
    """

    def __init__(self, d_in: int, hidden: int, classes: int, dropout: float):
        super().__init__()
        self.w_mul = nn.Linear(d_in, hidden)  # W× and the hidden bias b
        self.w_abs = nn.Linear(d_in, hidden, bias=False)  # W+
        self.out = nn.Linear(hidden, classes)  # W_p, b_p
        self.drop = nn.Dropout(dropout)

    def forward(self, sa: Tensor, sb: Tensor) -> Tensor:
        """sa, sb: (B, d_in) → logits (B, K)."""
        h_mul = self.drop(sa * sb)  # (B, d_in)  h×
        h_abs = self.drop((sa - sb).abs())  # (B, d_in)  h+
        return self.out(self.drop(torch.sigmoid(self.w_mul(h_mul) + self.w_abs(h_abs))))
