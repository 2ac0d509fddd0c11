"""Block-level equations against per-token, per-feature loops using the modules' own weights."""

import math

import pytest
import torch

from disan.disan_encoder import DiSABlock
from disan.distance_encoder import DistanceBlock
from disan.masks import padding_mask


def elu(v):
    return v if v > 0 else math.exp(v) - 1


def relu(v):
    return max(v, 0.0)


def sigmoid(v):
    return 1 / (1 + math.exp(-v))


@pytest.mark.parametrize("activation", ["elu", "relu"])
def test_disa_block_eq14_19_20_against_loops(activation):
    torch.manual_seed(0)
    block = DiSABlock(d_in=3, d_h=4, c=5.0, dropout=0.0, activation=activation).double().eval()
    sigma = elu if activation == "elu" else relu
    x = torch.randn(1, 5, 3, dtype=torch.float64)
    u, tr = block(x, padding_mask([5], 5), "fw", record=True)
    with torch.no_grad():  # the loops below compare plain numbers (no autograd graph)
        W, b = block.fc_h.weight, block.fc_h.bias
        for t in range(5):
            for k in range(4):
                h = sigma(float(sum(W[k, m] * x[0, t, m] for m in range(3)) + b[k]))  # Eq. 14
                assert abs(h - float(tr.h[0, t, k])) < 1e-6
        s, h = tr.s[0].double(), tr.h[0].double()
        for t in range(5):
            for k in range(4):
                pre = sum(block.gate_s.weight[k, m] * s[t, m] + block.gate_h.weight[k, m] * h[t, m] for m in range(4))
                F = sigmoid(float(pre + block.gate_h.bias[k]))  # Eq. 19
                assert abs(F - float(tr.gate[0, t, k])) < 1e-6
                assert abs(F * h[t, k] + (1 - F) * s[t, k] - float(u[0, t, k])) < 1e-6  # Eq. 20


def test_distance_block_eq12_13_against_loops():
    torch.manual_seed(0)
    d, ff = 4, 8
    block = DistanceBlock(d, heads=2, ffn_mult=2, dropout=0.0).double().eval()
    x = torch.randn(1, 4, d, dtype=torch.float64)
    u, tr = block(x, padding_mask([4], 4), "bw", alpha=1.5, record=True)
    with torch.no_grad():  # the loops below compare plain numbers (no autograd graph)
        sf = block.gate_s(x)[0]  # (T, d)  Eq. 11, LayerNorm'd projections
        hf = block.gate_h(tr.attn_out.double())[0]
        for t in range(4):
            fused = []
            for k in range(d):
                F = sigmoid(float(sf[t, k] + hf[t, k] + block.gate_b[k]))  # Eq. 12
                assert abs(F - float(tr.gate[0, t, k])) < 1e-6
                fused.append(F * float(sf[t, k]) + (1 - F) * float(hf[t, k]))
            hidden = [max(0.0, sum(block.ffn1.weight[j, m].item() * fused[m] for m in range(d)) + block.ffn1.bias[j].item())
                      for j in range(ff)]  # Eq. 13 first layer, ReLU
            assert abs(sum(v == 0 for v in hidden) / ff - float(tr.ffn_deactivation[0, t])) < 1e-9
            out = [fused[k] + sum(block.ffn2.weight[k, j].item() * hidden[j] for j in range(ff)) + block.ffn2.bias[k].item()
                   for k in range(d)]  # residual
            mu = sum(out) / d
            var = sum((o - mu) ** 2 for o in out) / d
            ln = block.ffn_norm
            normed = [(o - mu) / math.sqrt(var + ln.eps) * ln.weight[k].item() + ln.bias[k].item() for k, o in enumerate(out)]
            for k in range(d):
                assert abs(normed[k] - float(u[0, t, k])) < 1e-6
            assert abs(max(normed) - float(tr.ln_max[0, t])) < 1e-6


def layer_norm(row, ln):
    mu = sum(row) / len(row)
    var = sum((v - mu) ** 2 for v in row) / len(row)
    return [(v - mu) / math.sqrt(var + ln.eps) * ln.weight[k].item() + ln.bias[k].item() for k, v in enumerate(row)]


def test_distance_block_without_projection_biases_eq5_7_11_against_loops():
    # dsa_proj_bias=False: Im Eqs. 8 and 11 have no bias, only the LayerNorm after each projection.
    torch.manual_seed(1)
    d, heads, T, alpha = 4, 2, 4, 1.5
    block = DistanceBlock(d, heads=heads, ffn_mult=2, dropout=0.0, proj_bias=False).double().eval()
    for name in ("q", "k", "v", "o", "gate_s", "gate_h"):
        assert getattr(block, name).fc.bias is None
    x = torch.randn(1, T, d, dtype=torch.float64)
    u, tr = block(x, padding_mask([T], T), "fw", alpha=alpha, record=True)
    with torch.no_grad():  # the loops below compare plain numbers (no autograd graph)

        def project(layer, rows):
            W = layer.fc.weight
            return [layer_norm([sum(W[k, m].item() * r[m] for m in range(d)) for k in range(d)], layer.norm) for r in rows]

        rows = x[0].tolist()
        q, k = project(block.q, rows), project(block.k, rows)
        dk = d // heads
        for head in range(heads):
            cols = range(head * dk, (head + 1) * dk)
            for j in range(T):
                keys = [i for i in range(T) if i < j]  # fw: earlier tokens only
                scores = {i: sum(q[j][c] * k[i][c] for c in cols) / math.sqrt(dk) - alpha * abs(i - j) for i in keys}
                z = sum(math.exp(v) for v in scores.values())
                for i in range(T):
                    expected = math.exp(scores[i]) / z if i in scores else 0.0  # Eq. 7, masked entries exactly 0
                    assert abs(expected - float(tr.probs[0, head, j, i])) < 1e-6
        sf = project(block.gate_s, rows)  # Eq. 11: LN(W^S x)
        hf = project(block.gate_h, tr.attn_out[0].double().tolist())  # Eq. 11: LN(W^H attn)
        for t in range(T):
            for c in range(d):
                gate = sigmoid(sf[t][c] + hf[t][c] + block.gate_b[c].item())  # Eq. 12
                assert abs(gate - float(tr.gate[0, t, c])) < 1e-6
