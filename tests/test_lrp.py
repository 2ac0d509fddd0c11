"""LRP (disan/attribution/lrp.py): each rule on literal tensors against a loop over its formula, and
conservation on small seeded models of both architectures, single sentences and pairs."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from disan.attention import masked_attention, masked_softmax, multi_dim_token2token, scaled_dot_scores
from disan.attribution import lrp_rules
from disan.attribution.forward import SCORE, ClassProbability
from disan.attribution.lrp import ABSORBED, LRPMode, lrp, sinks_for
from disan.masks import direction_mask, distance_mask

from conftest import make_tiny


def relevance(f, inputs, g, constants=()):
    """Run ``f(*inputs)`` under the LRP rules and explain Σ g ⊙ f: (per input x ⊙ grad, absorbed per kind)."""
    xs = [x.clone().requires_grad_(True) for x in inputs]
    sinks = sinks_for(xs[0].shape[0])
    with torch.enable_grad(), LRPMode(sinks, {c.data_ptr() for c in constants}):
        out = f(*xs)
    grads = torch.autograd.grad((out * g).sum(), [*xs, *sinks.values()], allow_unused=True)
    absorbed = {k: 0.0 if gr is None else float(gr.sum()) for k, gr in zip(sinks, grads[len(xs):])}
    return [(gr * x).detach() for gr, x in zip(grads, xs)], absorbed, float((out * g).sum().detach())


def close(a, b, tol=1e-5):
    return torch.allclose(torch.as_tensor(a, dtype=torch.float64), torch.as_tensor(b, dtype=torch.float64),
                          atol=tol, rtol=tol)


def seeded(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# ----------------------------------------------------------------------------- rules alone, against loops
def test_softmax_rule_over_masked_keys():
    """AttnLRP Prop. 3.1: R_in_i = x_i (R_i − s_i Σ_j R_j); masked keys get nothing; the rest is absorbed."""
    x = torch.tensor([[0.3, -1.2, 2.0, 0.5], [1.0, 0.0, -0.5, 0.25]])
    allowed = torch.tensor([[True, True, False, True], [True, False, True, True]])
    g = torch.tensor([[0.7, -0.4, 1.3, 0.2], [-0.5, 0.9, 0.3, 1.1]])
    (got,), absorbed, total = relevance(lambda t: masked_softmax(t, allowed, dim=-1), [x], g)
    want = torch.zeros_like(x)
    kept = 0.0
    for b in range(2):
        keys = [i for i in range(4) if allowed[b, i]]
        e = {i: math.exp(float(x[b, i])) for i in keys}
        s = {i: e[i] / sum(e.values()) for i in keys}
        r = {i: s[i] * float(g[b, i]) for i in keys}
        for i in keys:
            want[b, i] = float(x[b, i]) * (r[i] - s[i] * sum(r.values()))
        kept += sum(r.values()) - sum(float(want[b, i]) for i in keys)
    assert close(got, want) and close(absorbed["softmax"], kept)
    assert close(got.sum() + absorbed["softmax"], total)


def test_elementwise_rules():
    """Identity (AttnLRP Eq. 9) for ELU and tanh, exact at 0 too; the gate's σ: ½ absorbed, σ(x) − ½ passed."""
    x = torch.tensor([[-2.0, -0.3, 0.0, 0.4, 3.0]])
    g = torch.tensor([[0.5, -1.0, 2.0, 0.25, -0.75]])
    (elu,), _, _ = relevance(F.elu, [x], g)
    (tanh,), _, _ = relevance(torch.tanh, [x], g)
    (sig,), absorbed, total = relevance(torch.sigmoid, [x], g)
    assert close(elu, F.elu(x) * g) and close(tanh, torch.tanh(x) * g)
    assert close(sig, (torch.sigmoid(x) - 0.5) * g) and close(absorbed["constant"], float((0.5 * g).sum()))
    assert close(sig.sum() + absorbed["constant"], total)


def test_uniform_rule_for_products_and_matrix_products():
    """AttnLRP Eq. 7 / Props. 3.2–3.3: every product term a·b gives half its relevance to each operand."""
    a, b = seeded(2, 3, seed=1), seeded(2, 3, seed=2)
    g = seeded(2, 3, seed=3)
    (ra, rb), _, _ = relevance(lambda u, v: u * v, [a, b], g)
    assert close(ra, a * b * g / 2) and close(rb, a * b * g / 2)
    A, V, G = seeded(2, 2, 3, seed=4), seeded(2, 3, 4, seed=5), seeded(2, 2, 4, seed=6)
    (rA, rV), _, total = relevance(lambda p, v: p @ v, [A, V], G)
    wA, wV = torch.zeros_like(A), torch.zeros_like(V)
    for n in range(2):
        for i in range(2):
            for j in range(3):
                for k in range(4):
                    term = float(A[n, i, j] * V[n, j, k] * G[n, i, k])  # the term's share t / y · R_ik
                    wA[n, i, j] += term / 2
                    wV[n, j, k] += term / 2
    assert close(rA, wA) and close(rV, wV) and close(rA.sum() + rV.sum(), total)


def test_linear_and_layer_norm_rules():
    """Linear: z-rule, the bias absorbs; LayerNorm: σ detached (AttnLRP Prop. 3.4), β absorbs."""
    x, W, bias, g = seeded(2, 3, seed=7), seeded(4, 3, seed=8), seeded(4, seed=9), seeded(2, 4, seed=10)
    (rx,), absorbed, total = relevance(lambda t: F.linear(t, W, bias), [x], g, constants=[bias])
    assert close(rx, torch.einsum("im,bm,bi->bm", W, x, g))
    assert close(absorbed["bias"], float((bias * g).sum())) and close(rx.sum() + absorbed["bias"], total)
    gamma, beta, y = seeded(4, seed=11), seeded(4, seed=12), seeded(2, 4, seed=13)
    (ry,), absorbed, total = relevance(lambda t: F.layer_norm(t, (4,), gamma, beta, 1e-5), [y], g)
    want = torch.zeros_like(y)
    for b in range(2):
        sigma = math.sqrt(float(y[b].var(unbiased=False)) + 1e-5)
        for m in range(4):
            want[b, m] = sum(float(gamma[i]) / sigma * ((i == m) - 1 / 4) * float(y[b, m] * g[b, i]) for i in range(4))
    assert close(ry, want) and close(absorbed["bias"], float((beta * g).sum()))
    assert close(ry.sum() + absorbed["bias"], total)


def test_max_pooling_is_winner_take_all():
    """Im Sec. 4.2's max pooling over tokens: each feature's relevance goes to the token that wins it."""
    u = torch.tensor([[[0.2, -1.0], [0.9, -0.5], [0.1, 3.0]]])  # (1, T=3, D=2)
    valid = torch.tensor([[True, True, False]])  # token 2 is padding: it may not win feature 1
    g = torch.tensor([[1.5, -2.0]])
    (ru,), _, total = relevance(
        lambda t: t.masked_fill(~valid[..., None], torch.finfo(t.dtype).min).max(dim=1).values, [u], g)
    want = torch.zeros_like(u)
    want[0, 1, 0], want[0, 1, 1] = 0.9 * 1.5, -0.5 * -2.0
    assert close(ru, want) and close(ru.sum(), total)


def test_feature_wise_token2token_against_a_loop():
    """Shen Eqs. 15 and 11 under the forward mask: uniform on P ⊙ h, softmax per query and feature over the
    allowed keys, identity on c·tanh(·/c), z-rule on W1 h_i + b1 + W2 h_j (b1 absorbed)."""
    T, D, c = 4, 2, 5.0
    h, w1, w2, b1 = seeded(1, T, D, seed=14) * 2, seeded(D, D, seed=15), seeded(D, D, seed=16), seeded(D, seed=17)
    allowed = direction_mask(T, "fw")[None]  # (1, T, T)
    g = seeded(1, T, D, seed=18)
    (rh,), absorbed, total = relevance(
        lambda t: multi_dim_token2token(t, allowed, w1, w2, b1, c)[0], [h], g, constants=[b1])
    H, want = h[0].double(), torch.zeros(T, D, dtype=torch.float64)
    kept_softmax = kept_bias = 0.0
    for j in range(T):
        keys = [i for i in range(T) if allowed[0, j, i]]
        for k in range(D):
            if not keys:
                continue
            a = {i: float(w1[k].double() @ H[i] + b1[k] + w2[k].double() @ H[j]) for i in keys}
            logit = {i: c * math.tanh(a[i] / c) for i in keys}
            z = sum(math.exp(v) for v in logit.values())
            p = {i: math.exp(logit[i]) / z for i in keys}
            rp = {}
            for i in keys:
                r_term = p[i] * float(H[i, k]) * float(g[0, j, k])  # the term's share of R(s_jk) = s_jk g_jk
                want[i, k] += r_term / 2  # the value's half
                rp[i] = r_term / 2  # the probability's half
            for i in keys:
                r_logit = logit[i] * (rp[i] - p[i] * sum(rp.values()))  # softmax rule; identity through tanh
                kept_softmax += rp[i] - r_logit
                for m in range(D):
                    want[i, m] += float(w1[k, m] * H[i, m]) / a[i] * r_logit  # key part
                    want[j, m] += float(w2[k, m] * H[j, m]) / a[i] * r_logit  # query part
                kept_bias += float(b1[k]) / a[i] * r_logit
    assert close(rh[0], want, 1e-4)
    assert close(absorbed["softmax"], kept_softmax, 1e-4) and close(absorbed["bias"], kept_bias, 1e-4)
    assert close(rh.sum() + sum(absorbed.values()), total, 1e-4)


def test_distance_masked_attention_against_a_loop():
    """Im Eq. 7: uniform on QKᵀ and on P V, softmax over the allowed keys, and the distance mask −α|i − j|
    absorbs its share of each logit's relevance."""
    Hh, T, dk, alpha = 2, 4, 3, 1.5
    q, k, v = (seeded(1, Hh, T, dk, seed=s) for s in (19, 20, 21))
    allowed = direction_mask(T, "bw")[None]
    bias = alpha * distance_mask(T)
    g = seeded(1, Hh, T, dk, seed=22)
    (rq, rk, rv), absorbed, total = relevance(
        lambda a, b, c_: masked_attention(scaled_dot_scores(a, b), c_, allowed, bias)[0], [q, k, v], g)
    want = [torch.zeros(Hh, T, dk, dtype=torch.float64) for _ in range(3)]
    kept_softmax = kept_distance = 0.0
    for hh in range(Hh):
        for j in range(T):
            keys = [i for i in range(T) if allowed[0, j, i]]
            if not keys:
                continue
            score = {i: float(q[0, hh, j] @ k[0, hh, i]) / math.sqrt(dk) for i in keys}
            x = {i: score[i] + float(bias[j, i]) for i in keys}
            z = sum(math.exp(val) for val in x.values())
            p = {i: math.exp(x[i]) / z for i in keys}
            rp = {i: 0.0 for i in keys}
            for i in keys:
                for a in range(dk):
                    r_term = p[i] * float(v[0, hh, i, a] * g[0, hh, j, a])
                    want[2][hh, i, a] += r_term / 2
                    rp[i] += r_term / 2
            for i in keys:
                r_x = x[i] * (rp[i] - p[i] * sum(rp.values()))
                kept_softmax += rp[i] - r_x
                kept_distance += float(bias[j, i]) / x[i] * r_x
                for a in range(dk):
                    r_u = float(q[0, hh, j, a] * k[0, hh, i, a]) / math.sqrt(dk) / x[i] * r_x
                    want[0][hh, j, a] += r_u / 2
                    want[1][hh, i, a] += r_u / 2
    for got, w in zip((rq, rk, rv), want):
        assert close(got[0], w, 1e-4)
    assert close(absorbed["softmax"], kept_softmax, 1e-4) and close(absorbed["distance mask"], kept_distance, 1e-4)
    assert abs(kept_distance) > 1e-3  # the mask does absorb here: the check above is not of two zeros


def test_fusion_gate_against_a_loop():
    """Shen Eqs. 19–20 (and Im Eq. 12): u = F ⊙ h + (1 − F) ⊙ s, F = σ(W_s s + W_h h + b): halves to each
    factor, the 1 of 1 − F and the ½ of σ absorbed as constants, the bias b absorbed."""
    D = 3
    s, h = seeded(1, D, seed=23), seeded(1, D, seed=24)
    ws, wh, b = seeded(D, D, seed=25), seeded(D, D, seed=26), seeded(D, seed=27)
    g = seeded(1, D, seed=28)

    def gate(s_, h_):
        f = torch.sigmoid(F.linear(s_, ws) + F.linear(h_, wh, b))
        return f * h_ + (1 - f) * s_

    (rs, rh), absorbed, total = relevance(gate, [s, h], g, constants=[b])
    want_s, want_h = torch.zeros(D, dtype=torch.float64), torch.zeros(D, dtype=torch.float64)
    const = bias_kept = 0.0
    for k in range(D):
        zk = float(ws[k] @ s[0] + wh[k] @ h[0] + b[k])
        f = 1 / (1 + math.exp(-zk))
        r1, r2 = f * float(h[0, k] * g[0, k]), (1 - f) * float(s[0, k] * g[0, k])
        want_h[k] += r1 / 2
        want_s[k] += r2 / 2
        r_f = r1 / 2 + (-f) / (1 - f) * (r2 / 2)  # 1 − F: the linear rule, the 1's share absorbed
        const += 1 / (1 - f) * (r2 / 2) + 0.5 / f * r_f  # and the ½ of σ
        r_z = (f - 0.5) / f * r_f
        for m in range(D):
            want_s[m] += float(ws[k, m] * s[0, m]) / zk * r_z
            want_h[m] += float(wh[k, m] * h[0, m]) / zk * r_z
        bias_kept += float(b[k]) / zk * r_z
    assert close(rs[0], want_s, 1e-4) and close(rh[0], want_h, 1e-4)
    assert close(absorbed["constant"], const, 1e-4) and close(absorbed["bias"], bias_kept, 1e-4)
    assert close(rs.sum() + rh.sum() + sum(absorbed.values()), total, 1e-4)


# ----------------------------------------------------------------------------- whole models: conservation
SENTENCES = [["the", "movie", "is", "good", "."], ["a", "dog", "is", "n't", "bad", ",", "the", "man", "do", "."],
             ["tea"], ["glass", "dogs", "zzunknown", "good"]]
HYPOTHESES = [["the", "man", "do", "n't"], ["tea", "glass", ",", "bad", "dogs", "."], ["a", "movie"], ["good"]]
RECIPES = {
    "disan": [{}, {"activation": "relu", "output_bias": False, "dropout_mode": "authors", "unk_zero": True},
              {"masks": ("diag", "diag")}],
    "dsa": [{}, {"dsa_proj_bias": False}, {"alpha": 0.0}],
}
CASES = [(arch, pair, kw) for arch in RECIPES for pair in (False, True) for kw in RECIPES[arch]]


def model_logits(model, fn, emb):
    with torch.no_grad():
        alpha = None if model.cfg.arch == "disan" else fn.alpha
        enc = [model.encoder(x, v, False, fn.masks, alpha)[0] for x, v in zip(emb.xs, emb.valids)]
        return model.head(*enc)


@pytest.mark.parametrize("arch,pair,kw", CASES, ids=[f"{a}-{'pair' if p else 'one'}-{i}" for a, p, i in
                                                      [(a, p, RECIPES[a].index(k)) for a, p, k in CASES]])
def test_relevance_is_conserved_on_seeded_models(tiny_glove, arch, pair, kw):
    """Σ tokens' relevance + Σ absorbed (per kind) = the explained logit within 1e-3 relative error (it is
    ~1e-6 here), for every example of a padded batch and every class; the logit is the model's own."""
    model = make_tiny(arch, tiny_glove, pair=pair, **kw)
    fn = ClassProbability(model, model.cfg.masks, None if arch == "disan" else model.cfg.alpha)
    emb = fn.embed([SENTENCES, HYPOTHESES] if pair else [SENTENCES])
    logits = model_logits(model, fn, emb)
    for k in range(len(model.cfg.labels)):
        res = lrp(fn, emb, torch.full((len(SENTENCES),), k))
        assert torch.allclose(res.explained, logits[:, k], atol=1e-5)
        assert float(res.relative_error().max()) < 1e-3, (res.total(), res.explained, res.absorbed)
        for scores, valid in zip(res.scores, emb.valids):
            assert scores.shape == valid.shape and bool((scores[~valid] == 0).all())
    assert set(res.absorbed) == set(ABSORBED)
    if arch == "disan" or kw.get("alpha") == 0.0:
        assert float(res.absorbed["distance mask"].abs().max()) == 0.0
    else:
        assert float(res.absorbed["distance mask"].abs().max()) > 1e-4


def test_relatedness_score_is_conserved(tiny_glove):
    """SICK's head (Tai et al.: sigmoid hidden layer, s_a ⊙ s_b, |s_a − s_b|) and the score ŷ = rᵀ softmax."""
    model = make_tiny("disan", tiny_glove, pair=True, relatedness=True)
    fn = ClassProbability(model, model.cfg.masks, None)
    emb = fn.embed([SENTENCES, HYPOTHESES])
    K = len(model.cfg.labels)
    for k in (0, K):  # a grade's logit, then the score (column K, ``forward.SCORE``)
        res = lrp(fn, emb, torch.full((len(SENTENCES),), k))
        assert float(res.relative_error().max()) < 1e-3
    assert fn.targets()[K] == SCORE
    p = torch.softmax(model_logits(model, fn, emb), -1) @ torch.arange(1.0, K + 1)
    assert torch.allclose(res.explained, p, atol=1e-5)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_conservation_check_fails_without_a_rule(tiny_glove, monkeypatch, arch):
    """The check can fail: with ELU's identity rule replaced by its plain gradient (gradient × input through
    ELU), the relevance no longer adds up."""
    model = make_tiny(arch, tiny_glove)
    fn = ClassProbability(model, model.cfg.masks, None if arch == "disan" else model.cfg.alpha)
    emb = fn.embed([SENTENCES])
    monkeypatch.setattr(lrp_rules, "identity", lambda f, x, at_zero=1.0: f(x))
    res = lrp(fn, emb, torch.zeros(len(SENTENCES), dtype=torch.long))
    assert float(res.relative_error().max()) > 1e-3


def test_a_zero_embedding_gets_no_relevance(tiny_glove):
    """With ``unk_zero`` an unknown word's embedding is 0: its relevance is exactly 0, and the sum still holds."""
    model = make_tiny("disan", tiny_glove, unk_zero=True)
    fn = ClassProbability(model, model.cfg.masks, None)
    emb = fn.embed([[["good", "zzunknown", "movie"]]])
    res = lrp(fn, emb, torch.tensor([1]))
    assert float(res.scores[0][0, 1]) == 0.0 and float(res.scores[0][0, 0]) != 0.0
    assert float(res.relative_error()[0]) < 1e-3
