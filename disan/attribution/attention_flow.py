"""Attention flow (Abnar & Zuidema 2020, Sec. 3): a maximum flow through the layer graph rollout walks.

Abnar & Zuidema treat the attention graph as a flow network whose edge capacities are the
attention weights, and score input token i by the value of a maximum flow from i to the output
node. Here the network is ``rollout.layer_graph`` per sentence feature k (tokens → fused vectors
u_j → s[k]; capacities: the gate-and-attention mixing weights, then the pooling weights), so flow
and rollout read the same weights; a token's score is its flow averaged over the features. It is
exact for DiSAN's graph and carries the DSA's approximations (heads averaged, LayerNorm and FFN
passing shares through: ``rollout.py``).

The flows are computed by SciPy's ``scipy.sparse.csgraph.maximum_flow`` (Dinic), which needs
integer capacities: they are scaled by ``SCALE`` = 2²⁰ and rounded, so a flow is off by at most
(edges of a minimum cut) / 2²¹ ≤ n / 2²¹ for n tokens. One call per source token solves every
feature's network at once: the networks are disjoint copies joined to a super-source and a
super-sink, and a maximum flow of disjoint networks is a maximum flow of each. A copy holds only
the nodes reachable from token i (i, the u_j it feeds, s[k]); the other input tokens have no path
from i in a two-layer graph, so leaving them out changes no flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow
from torch import Tensor

from ..trace import DiSANTrace, EncoderTrace
from .rollout import LayerGraph, layer_graph

#: Capacities are multiples of 1 / SCALE (SciPy's maximum_flow takes int32 capacities).
SCALE = 2**20
HOW = ("maximum flow from each token to the sentence feature through the layer graph of gated rollout, per "
       "feature, averaged over features (scipy.sparse.csgraph.maximum_flow, Dinic; capacities rounded to 2^-20)")


@dataclass(frozen=True)
class Flow:
    """shares: (B, T) each token's flow averaged over the sentence features (0 at padding); exact: DiSAN."""

    shares: Tensor
    exact: bool


def token_flows(graph: LayerGraph) -> np.ndarray:
    """(n, F) the maximum flow from each token to each feature's output node, in capacity units."""
    mix = np.rint(graph.mix.detach().double().cpu().numpy() * SCALE).astype(np.int64)  # (F, n, n) [k, j, i]
    out = np.rint(graph.out.detach().double().cpu().numpy() * SCALE).astype(np.int64)  # (F, n)
    F, n = out.shape
    if F * (SCALE + n) >= 2**31:
        raise ValueError(f"{F} features overflow SciPy's int32 flow value at SCALE 2^20; split the features.")
    flows = np.zeros((n, F))
    # Nodes of copy k: source 2 + k(n + 2), middles u_j at +1 + j, output at +n + 1; 0 = super-source, 1 = sink.
    base = 2 + np.arange(F) * (n + 2)  # (F,)
    mids = base[:, None] + 1 + np.arange(n)[None]  # (F, n)
    sink = base + n + 1  # (F,)
    for i in range(n):
        rows = np.concatenate([np.zeros(F, np.int64), np.repeat(base, n), mids.ravel(), sink])
        cols = np.concatenate([base, mids.ravel(), np.repeat(sink, n), np.ones(F, np.int64)])
        cap = np.concatenate([np.full(F, 2 * SCALE), mix[:, :, i].ravel(), out.ravel(), np.full(F, 2 * SCALE)])
        keep = cap > 0
        g = csr_matrix((cap[keep].astype(np.int32), (rows[keep], cols[keep])), shape=(2 + F * (n + 2),) * 2)
        result = maximum_flow(g, 0, 1, method="dinic")
        flows[i] = np.asarray(result.flow[0, base].todense()).ravel()  # (F,) the flow into each copy
    return flows / SCALE


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
