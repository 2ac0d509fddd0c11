"""Attention flow (Abnar & Zuidema 2020, Sec. 3): a maximum flow through the layer graph rollout walks.

Abnar & Zuidema treat the attention graph as a flow network whose edge capacities are the
attention weights, and score input token i by the value of a maximum flow from i to the output
node. Here the network is ``rollout.layer_graph`` per sentence feature k (tokens → fused vectors
u_j → s[k]; capacities: the gate-and-attention mixing weights, then the pooling weights), so flow
and rollout read the same weights; a token's score is its flow averaged over the features. It is
exact for DiSAN's graph and carries the DSA's approximations (heads averaged, LayerNorm and FFN
passing shares through: ``rollout.py``).

In this two-layer graph every path from token i is i → u_j → s[k], and no two paths share an
edge, so the maximum flow has a closed form: each path carries the smaller of its two capacities,
flow_i[k] = Σ_j min(mix[k, j, i], out[k, j]) (exact; tested against NetworkX's maximum flow on the
whole graph of a feature, every input token included). The other input tokens have no path from
i, so they change no flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from ..trace import DiSANTrace, EncoderTrace
from .rollout import LayerGraph, layer_graph

HOW = ("maximum flow from each token to the sentence feature through the layer graph of gated rollout, per "
       "feature, averaged over features (two-layer graph: Σ_j min(mix[k, j, i], out[k, j]))")


@dataclass(frozen=True)
class Flow:
    """shares: (B, T) each token's flow averaged over the sentence features (0 at padding); exact: DiSAN."""

    shares: Tensor
    exact: bool


def token_flows(graph: LayerGraph) -> np.ndarray:
    """(n, F) the maximum flow from each token to each feature's output node (module docstring)."""
    mix = graph.mix.detach().double().cpu().numpy()  # (F, n, n) [k, j, i]
    out = graph.out.detach().double().cpu().numpy()  # (F, n) [k, j]
    return np.minimum(mix, out[:, :, None]).sum(1).T  # (n, F): each path i → u_j → s carries its smaller capacity


def attention_flow(enc: EncoderTrace) -> Flow:
    """Every sentence of the trace's batch: per-token flow averaged over features (module docstring)."""
    B, T = enc.valid.shape
    shares = torch.zeros(B, T, dtype=torch.float64)
    for b in range(B):
        graph = layer_graph(enc, b)
        idx = enc.valid[b].nonzero()[:, 0].cpu()
        if idx.numel():
            shares[b, idx] = torch.from_numpy(token_flows(graph).mean(1))
    return Flow(shares.float(), isinstance(enc, DiSANTrace))
