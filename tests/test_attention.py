"""Each attention equation against a naive per-element loop of the paper's formula (T=5, D=4)."""

import math

import pytest
import torch
import torch.nn.functional as F

from disan.attention import (
    masked_attention,
    masked_softmax,
    merge_heads,
    multi_dim_token2token,
    scaled_dot_scores,
    source2token,
    split_heads,
)
from disan.masks import attention_allowed, direction_mask, distance_mask, padding_mask

T, D = 5, 4


@pytest.fixture
def g():
    return torch.Generator().manual_seed(0)


def rand(g, *shape):
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def naive_token2token(h, allowed, w1, w2, b1, c):
    """Shen Eq. 15 + Eq. 11 with explicit loops; h: (T, D), allowed: (T, T) [query j, key i]."""
    n, d = h.shape
    s = torch.zeros(n, d, dtype=h.dtype)
    P = torch.zeros(n, n, d, dtype=h.dtype)
    for j in range(n):  # attending token
        for k in range(d):
            logits = {}
            for i in range(n):
                if allowed[j, i]:
                    pre = sum(w1[k, m] * h[i, m] + w2[k, m] * h[j, m] for m in range(d)) + b1[k]
                    logits[i] = c * math.tanh(pre / c)
            if not logits:
                continue
            z = sum(math.exp(v) for v in logits.values())
            for i, v in logits.items():
                P[j, i, k] = math.exp(v) / z
                s[j, k] += P[j, i, k] * h[i, k]
    return s, P


@pytest.mark.parametrize("autograd", [False, True], ids=["in-place", "autograd"])
@pytest.mark.parametrize("kind", ["fw", "bw", "diag", "none"])
def test_token2token_matches_naive_loop(g, kind, autograd):
    """Both code paths: in place when nothing needs a gradient (traces), out of place under autograd."""
    h, w1, w2, b1 = rand(g, T, D), rand(g, D, D), rand(g, D, D), rand(g, D)
    h.requires_grad_(autograd)
    allowed = attention_allowed(direction_mask(T, kind), torch.ones(1, T, dtype=torch.bool))
    s, views = multi_dim_token2token(h[None], allowed, w1, w2, b1, c=5.0)
    assert s.requires_grad == autograd
    s_ref, p_ref = naive_token2token(h.detach(), allowed[0], w1, w2, b1, 5.0)
    assert torch.allclose(s[0], s_ref, atol=1e-6)
    assert torch.allclose(views["probs"][0], p_ref, atol=1e-6)
    assert torch.allclose(views["mean"][0], p_ref.mean(-1), atol=1e-6)


def test_token2token_rows_sum_to_one_masked_exact_zero_and_first_token_zero(g):
    h = rand(g, 2, T, D)
    valid = padding_mask([T, 3], T)
    allowed = attention_allowed(direction_mask(T, "fw"), valid)
    s, views = multi_dim_token2token(h, allowed, rand(g, D, D), rand(g, D, D), rand(g, D))
    P = views["probs"]  # (B, T, T, D)
    assert not torch.isnan(P).any() and not torch.isnan(s).any()
    assert (P[~allowed] == 0).all()  # masked entries exactly 0
    row_sums = P.sum(2)  # (B, T, D)
    has_key = allowed.any(-1)  # (B, T)
    assert torch.allclose(row_sums[has_key], torch.ones_like(row_sums[has_key]))
    assert (row_sums[~has_key] == 0).all()
    # First token under the forward mask, and padded queries, give exact-zero outputs.
    assert (s[:, 0] == 0).all()
    assert (s[1, 3:] == 0).all()


def test_backward_mask_last_token_zero(g):
    h = rand(g, 1, T, D)
    allowed = attention_allowed(direction_mask(T, "bw"), torch.ones(1, T, dtype=torch.bool))
    s, _ = multi_dim_token2token(h, allowed, rand(g, D, D), rand(g, D, D), rand(g, D))
    assert (s[0, -1] == 0).all()


@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_chunked_equals_direct(g, chunk):
    h = rand(g, 2, 7, D)
    allowed = attention_allowed(direction_mask(7, "bw"), padding_mask([7, 4], 7))
    args = (rand(g, D, D), rand(g, D, D), rand(g, D))
    s1, v1 = multi_dim_token2token(h, allowed, *args, chunk=None, feature=2)
    s2, v2 = multi_dim_token2token(h, allowed, *args, chunk=chunk, feature=2)
    assert torch.allclose(s1, s2, atol=1e-5)
    for key in ("probs", "mean", "max", "feature"):
        assert torch.allclose(v1[key], v2[key], atol=1e-5)
    assert torch.equal(v1["feature"], v1["probs"][..., 2])


def naive_source2token(x, valid, w1, b1, w, b):
    """Shen Eqs. 12–13 with loops: softmax over tokens per feature; x: (T, D)."""
    n, d = x.shape
    f = torch.zeros(n, d, dtype=x.dtype)
    for i in range(n):
        hidden = [F.elu(sum(w1[k, m] * x[i, m] for m in range(d)) + b1[k]) for k in range(d)]
        for k in range(d):
            f[i, k] = sum(w[k, m] * hidden[m] for m in range(d)) + b[k]
    P = torch.zeros(n, d, dtype=x.dtype)
    s = torch.zeros(d, dtype=x.dtype)
    for k in range(d):
        z = sum(math.exp(f[i, k]) for i in range(n) if valid[i])
        for i in range(n):
            if valid[i]:
                P[i, k] = math.exp(f[i, k]) / z
                s[k] += P[i, k] * x[i, k]
    return s, P


def test_source2token_matches_naive_loop_and_sums_to_one(g):
    x = rand(g, T, D)
    valid = torch.tensor([True, True, True, True, False])
    params = rand(g, D, D), rand(g, D), rand(g, D, D), rand(g, D)
    s, P = source2token(x[None], valid[None], *params)
    s_ref, P_ref = naive_source2token(x, valid, *params)
    assert torch.allclose(s[0], s_ref, atol=1e-6)
    assert torch.allclose(P[0], P_ref, atol=1e-6)
    assert torch.allclose(P[0].sum(0), torch.ones(D, dtype=P.dtype))
    assert (P[0, 4] == 0).all()


def naive_masked_multihead(x, wq, wk, wv, heads, allowed, alpha):
    """Im Eq. 7 per head with loops; x: (T, D); returns concat heads (T, D) and probs (H, T, T)."""
    n, d = x.shape
    dk = d // heads
    q, k, v = x @ wq.T, x @ wk.T, x @ wv.T
    out = torch.zeros(n, d, dtype=x.dtype)
    P = torch.zeros(heads, n, n, dtype=x.dtype)
    for hd in range(heads):
        sl = slice(hd * dk, (hd + 1) * dk)
        for i in range(n):
            logits = {}
            for j in range(n):
                if allowed[i, j]:
                    logits[j] = float(q[i, sl] @ k[j, sl]) / math.sqrt(dk) - alpha * abs(i - j)
            if not logits:
                continue
            z = sum(math.exp(val) for val in logits.values())
            for j, val in logits.items():
                P[hd, i, j] = math.exp(val) / z
                out[i, sl] += P[hd, i, j] * v[j, sl]
    return out, P


@pytest.mark.parametrize("kind,alpha", [("fw", 1.5), ("bw", 0.0), ("diag", 3.0), ("none", 1.5)])
def test_masked_multihead_matches_naive_loop(g, kind, alpha):
    heads, d = 2, 4
    x = rand(g, T, d)
    wq, wk, wv = rand(g, d, d), rand(g, d, d), rand(g, d, d)
    allowed = attention_allowed(direction_mask(T, kind), torch.ones(1, T, dtype=torch.bool))
    q, k, v = (split_heads((x @ w.T)[None], heads) for w in (wq, wk, wv))
    scores = scaled_dot_scores(q, k)
    out, P = masked_attention(scores, v, allowed, alpha * distance_mask(T).double())
    out_ref, P_ref = naive_masked_multihead(x, wq, wk, wv, heads, allowed[0], alpha)
    assert torch.allclose(merge_heads(out)[0], out_ref, atol=1e-6)
    assert torch.allclose(P[0], P_ref, atol=1e-6)


def test_masked_softmax_all_masked_row_is_zero_not_nan():
    logits = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    allowed = torch.tensor([[True, False], [False, False]])
    p = masked_softmax(logits, allowed, dim=-1)
    assert p.tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_in_place_path_equals_autograd_path(g):
    """The no-grad path (in-place ops, einsum) and the autograd path agree, masked entries exactly 0 in both."""
    h = rand(g, 2, 9, D)
    allowed = attention_allowed(direction_mask(9, "fw"), padding_mask([9, 6], 9))
    args = (rand(g, D, D), rand(g, D, D), rand(g, D))
    s_fast, v_fast = multi_dim_token2token(h, allowed, *args)
    s_ref, v_ref = multi_dim_token2token(h.clone().requires_grad_(True), allowed, *args)
    torch.testing.assert_close(s_fast, s_ref.detach(), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(v_fast["probs"], v_ref["probs"].detach(), rtol=0, atol=0)
    assert (v_fast["probs"][~allowed] == 0).all()


@pytest.mark.parametrize("kind, direction, T", [("fw", None, 9), ("fw", "fw", 9), ("bw", "bw", 9), ("fw", "fw", 2),
                                                ("bw", "bw", 3), ("diag", None, 7)])
def test_the_exported_token2token_equals_the_eager_path_masked_zero_and_empty_rows_zero(g, monkeypatch, kind, direction, T):
    """The ONNX export's Eqs. 15 and 11 (exp of logits in [−c, c] with no shift, no per-feature P: s and the mean
    over features from the unnormalised terms, the sums as MatMuls; with a direction, by blocks of queries that
    skip the keys it never allows, some empty for T < 4) equal the eager path's s, mean, max and key/query parts
    within 1e-6; a query with no allowed key (the forward mask's first token, the backward mask's last, a padded
    sentence's rows) keeps all-zero s and mean rows, not NaN, and a masked cell's mean is exactly 0."""
    c = 5.0
    h = rand(g, 2, T, D)
    w1, w2, b1 = rand(g, D, D) / D**0.5, rand(g, D, D) / D**0.5, rand(g, D)
    allowed = attention_allowed(direction_mask(T, kind), padding_mask([T, T - 1], T))
    with torch.no_grad():
        s_want, want = multi_dim_token2token(h * 4, allowed, w1, w2, b1, c)
        monkeypatch.setattr(torch.onnx, "is_in_onnx_export", lambda: True)
        s, got = multi_dim_token2token(h * 4, allowed, w1, w2, b1, c, direction=direction)
    assert "probs" not in got
    torch.testing.assert_close(s, s_want, rtol=0, atol=1e-6)
    for name in ("mean", "max", "key_part", "query_part"):
        torch.testing.assert_close(got[name], want[name], rtol=0, atol=1e-6)
    assert (got["mean"][~allowed] == 0).all() and not got["mean"].isnan().any() and not s.isnan().any()
    empty = ~allowed.any(dim=2)  # (B, T): queries with no allowed key
    assert empty.any() and (got["mean"][empty] == 0).all() and (s[empty] == 0).all()
    rows = got["mean"].sum(dim=2)[allowed.any(dim=2)]  # (rows with a key,): a mean of distributions sums to 1
    torch.testing.assert_close(rows, torch.ones_like(rows), rtol=0, atol=1e-6)
