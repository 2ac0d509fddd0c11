"""Token attributions: IG completeness, gated rollout against a brute-force composition, attention flow against
NetworkX's maximum flow, detached-attention gradients, leave-one-out and ERASER erasures against direct re-runs,
Kendall τ against hand counts."""

from __future__ import annotations

import math

import pytest
import torch

import networkx as nx
import numpy as np

from disan.attribution import METHODS, attribute, methods_for
from disan.attribution.attention_flow import attention_flow, token_flows
from disan.attribution.detach import detached_attention, detached_gradient_x_input
from disan.attribution.erasure import leave_one_out, subset_probs
from disan.attribution.rollout import gated_rollout, layer_graph
from disan.attribution.forward import ClassProbability
from disan.attribution.gradient import gradient_x_input, integrated_gradients
from disan.attribution.rank import kendall_tau, top_count, top_positions
from disan.errors import InputError
from tests.conftest import make_tiny

SENTENCE = "the dog is n't good , the man is bad ."
PAIR = ("the man is good .", "a dog is bad .")


def _trace(model, masks=None):
    return model.trace(*PAIR, masks=masks) if model.cfg.pair else model.trace(SENTENCE, masks=masks)


@pytest.fixture(params=[("disan", False), ("dsa", False), ("disan", True), ("dsa", True)],
                ids=["disan", "dsa", "disan-nli", "dsa-nli"])
def model(request, tiny_glove):
    arch, pair = request.param
    return with_biases(make_tiny(arch, tiny_glove, pair=pair, unk_zero=True))


def with_biases(model):
    """Random biases, as training leaves them (Glorot init zeroes them): with zero biases the DSA's
    LayerNorm(W x) is scale-invariant in x, so p(αx) jumps at α = 0 and no integration rule converges."""
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1 and ("bias" in name or name.endswith("b1")):
                p.add_(0.3 * torch.randn(p.shape, generator=gen))
    return model


def test_integrated_gradients_add_up_to_the_probability_gap_within_the_reported_delta(model):
    trace = _trace(model)
    result = attribute(model, trace, target=1)
    fn = ClassProbability(model, trace.masks, trace.alpha)
    emb = fn.embed([[list(s.tokens)] for s in ([trace.premise] + ([trace.hypothesis] if trace.hypothesis else []))])
    with torch.no_grad():  # f(x) and f(baseline) straight from the model, not from Captum
        gap = float(fn.probs(emb.xs, emb.valids)[0, 1] - fn.probs([x * 0 for x in emb.xs], emb.valids)[0, 1])
    total = sum(float(s.scores["integrated_gradients"].sum()) for s in result.sides)
    assert abs(total - gap) <= abs(result.ig_delta) + 1e-5
    assert result.ig_gap == pytest.approx(gap, abs=1e-6)
    assert abs(result.ig_delta) < 0.05 * max(abs(gap), 0.05)  # the steps are enough on these small models


def test_integrated_gradients_through_a_batch_equal_one_at_a_time(tiny_glove):
    model = make_tiny("dsa", tiny_glove, unk_zero=True)
    fn = ClassProbability(model, model.cfg.masks, model.cfg.alpha)
    sents = [["the", "movie", "is", "good", "."], ["a", "bad", "dog"]]
    both = integrated_gradients(fn, fn.embed([sents]), torch.tensor([0, 1]), 16, internal_batch_size=20)
    for b, toks in enumerate(sents):
        one = integrated_gradients(fn, fn.embed([[toks]]), torch.tensor([b]), 16)
        assert torch.allclose(both.scores[0][b, :len(toks)], one.scores[0][0], atol=1e-5)
        assert float(both.scores[0][b, len(toks):].abs().sum()) == 0.0  # padding gets nothing


def test_gradient_x_input_matches_a_finite_difference(tiny_glove):
    """Σ_t grad·x_t is the derivative of p(class) along x at scale 1: compare with (p(1+ε)x − p(1−ε)x) / 2ε."""
    model = make_tiny("disan", tiny_glove, unk_zero=True).double()
    fn = ClassProbability(model, model.cfg.masks, None)
    emb = fn.embed([[["the", "movie", "is", "bad", "."]]])
    emb = type(emb)(tuple(x.double() for x in emb.xs), emb.valids, emb.tokens)
    scores = gradient_x_input(fn, emb, torch.tensor([1]))[0]
    eps = 1e-6
    with torch.no_grad():
        up, down = (fn.probs([x * (1 + s * eps) for x in emb.xs], emb.valids)[0, 1] for s in (1, -1))
    assert float(scores.sum()) == pytest.approx(float(up - down) / (2 * eps), rel=1e-5, abs=1e-9)


def test_leave_one_out_equals_a_direct_rerun_with_unk(model):
    trace = _trace(model)
    result = attribute(model, trace)
    k = result.target_index
    sides = [list(s.tokens) for s in result.sides]
    with torch.no_grad():
        base = torch.softmax(model(*[[s] for s in sides])[0], -1)[0, k]
        for side, sa in enumerate(result.sides):
            for t in range(len(sa.tokens)):
                variant = [list(s) for s in sides]
                variant[side][t] = "<unk>"  # the vocabulary's own <unk> entry
                p = torch.softmax(model(*[[s] for s in variant])[0], -1)[0, k]
                assert float(sa.scores["leave_one_out"][t]) == pytest.approx(float(base - p), abs=2e-6)


def test_leave_one_out_uses_the_unk_row_when_it_is_not_zero(tiny_glove):
    model = make_tiny("dsa", tiny_glove, unk_zero=False)
    fn = ClassProbability(model, model.cfg.masks, model.cfg.alpha)
    assert float(fn.unk_vector().abs().sum()) > 0
    toks = ["the", "movie", "is", "good"]
    emb = fn.embed([[toks]])
    with torch.no_grad():
        p = fn.probs(emb.xs, emb.valids)[:, 0]
        drops = leave_one_out(fn, emb, torch.tensor([0]), p)[0][0]
        direct = torch.softmax(model([toks[:2] + ["<unk>"] + toks[3:]])[0], -1)[0, 0]
    assert float(drops[2]) == pytest.approx(float(p[0] - direct), abs=2e-6)


def test_subset_probs_equal_the_model_on_the_shortened_sentence(model):
    fn = ClassProbability(model, tuple(model.cfg.masks), model.cfg.alpha if model.cfg.arch == "dsa" else None)
    sides = [["the", "dog", "is", "n't", "good", "."], ["a", "man", "."]][: 2 if model.cfg.pair else 1]
    emb = fn.embed([[s] for s in sides])
    keep = [[[0, 2, 4]], [[1, 2]]][: len(sides)]
    p = subset_probs(fn, emb, [0], keep, torch.tensor([1]))
    with torch.no_grad():
        direct = torch.softmax(model(*[[[s[i] for i in k[0]]] for s, k in zip(sides, keep)])[0], -1)[0, 1]
    assert float(p[0]) == pytest.approx(float(direct), abs=2e-6)


def _disan_brute(enc):
    """A_i[k] by loops over blocks, queries j and keys i (Shen Eqs. 11, 13, 20 with the weights held fixed)."""
    T, D = enc.fw.h.shape[1], enc.fw.h.shape[2]
    A = torch.zeros(T, 2 * D, dtype=torch.float64)
    for half, block in enumerate((enc.fw, enc.bw)):
        for k in range(D):
            kk = half * D + k
            for j in range(T):
                w = float(enc.s2t_probs[0, j, kk])
                f = float(block.gate[0, j, k])
                A[j, kk] += w * f
                for i in range(T):
                    A[i, kk] += w * (1 - f) * float(block.probs[0, j, i, k])
    return A


@pytest.mark.parametrize("masks", [None, "none", "diag"])
def test_disan_rollout_equals_a_brute_force_composition_and_rebuilds_the_sentence(tiny_glove, masks):
    model = make_tiny("disan", tiny_glove)
    enc = model.trace(SENTENCE, masks=masks).premise.encoder
    roll = gated_rollout(enc)
    assert roll.exact
    brute = _disan_brute(enc)
    assert torch.allclose(roll.per_feature[0].double(), brute, atol=1e-6)
    # Which share rebuilds the sentence vector: the mixing weights A_i[k] times the token-local h_i[k] sum to
    # s[k] exactly; the vector shares are those terms' magnitudes, normalised per feature.
    h = torch.cat([enc.fw.h, enc.bw.h], -1)[0].double()  # (T, 2D) token-local h_i of each block
    terms = brute * h  # (T, 2D)  A_i[k] h_i[k]
    assert torch.allclose(terms.sum(0), enc.sentence[0].double(), atol=1e-5)  # exact: Σ_i A_i ⊙ h_i = s
    vector = (terms.abs() / terms.abs().sum(0)).mean(-1)  # (T,)
    assert torch.allclose(roll.vector_shares[0].double(), vector, atol=1e-5)
    assert float(roll.vector_shares.sum()) == pytest.approx(1.0, abs=1e-5)
    assert not torch.allclose(roll.vector_shares[0], roll.shares[0], atol=1e-3)  # two different quantities
    # The remainder comes from the rows with no allowed key (token 1 under fw, token T under bw), computed apart.
    assert float(roll.shares.sum() + roll.remainder) == pytest.approx(1.0, abs=1e-5)
    if masks is None:
        assert float(roll.remainder) > 0.0
    else:  # no empty row: nothing is left over
        assert float(roll.remainder) == pytest.approx(0.0, abs=1e-7)


def _dsa_brute(enc):
    """Shares by loops: pooling and max pooling over U, gates, head-averaged attention (flow.py's rule)."""
    T, D = enc.fw.gate.shape[1], enc.fw.gate.shape[2]
    A = torch.zeros(T, 4 * D, dtype=torch.float64)
    blocks = (enc.fw, enc.bw)

    def share(j, i, kk):  # token i's share of U_j[kk]
        block, k = blocks[kk // D], kk % D
        g = float(block.gate[0, j, k])
        return g * (i == j) + (1 - g) * float(block.probs[0, :, j, i].mean())

    for kk in range(2 * D):
        m = int(enc.maxpool_argmax[0, kk])
        for i in range(T):
            A[i, kk] = sum(float(enc.s2t_probs[0, j, kk]) * share(j, i, kk) for j in range(T))
            A[i, 2 * D + kk] = share(m, i, kk)
    return A


@pytest.mark.parametrize("masks", [None, "none"])
def test_dsa_rollout_equals_a_brute_force_composition_and_adds_up_with_its_remainder(tiny_glove, masks):
    model = make_tiny("dsa", tiny_glove)
    enc = model.trace(SENTENCE, masks=masks).premise.encoder
    roll = gated_rollout(enc)
    assert not roll.exact and roll.vector_shares is None
    assert torch.allclose(roll.per_feature[0].double(), _dsa_brute(enc), atol=1e-6)
    assert float(roll.shares.sum() + roll.remainder) == pytest.approx(1.0, abs=1e-5)
    assert (float(roll.remainder) > 0.0) == (masks is None)


def test_rollout_and_flow_of_a_batch_equal_each_sentence_alone(tiny_glove):
    for arch in ("disan", "dsa"):
        model = make_tiny(arch, tiny_glove)
        sents = [["the", "movie", "is", "good", "."], ["a", "bad", "dog"]]
        x, valid = model.embed(sents)
        with torch.no_grad():
            _, enc = model.encoder(x, valid, record=True)
        both, both_flow = gated_rollout(enc), attention_flow(enc)
        for b, toks in enumerate(sents):
            alone = model.trace(" ".join(toks)).premise.encoder
            one = gated_rollout(alone)
            assert torch.allclose(both.shares[b, :len(toks)], one.shares[0], atol=1e-6)
            assert float(both.remainder[b]) == pytest.approx(float(one.remainder[0]), abs=1e-6)
            assert torch.allclose(both_flow.shares[b, :len(toks)], attention_flow(alone).shares[0], atol=1e-5)
            assert float(both_flow.shares[b, len(toks):].abs().sum()) == 0.0


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_rollout_walks_the_layer_graph_that_flow_uses(tiny_glove, arch):
    """Rollout = Σ over paths of the products of the graph's capacities: Σ_j out[k, j] · mix[k, j, i]."""
    enc = make_tiny(arch, tiny_glove).trace(SENTENCE).premise.encoder
    g = layer_graph(enc)
    paths = torch.einsum("kj,kji->ik", g.out, g.mix)  # (T, F)
    assert torch.allclose(paths, gated_rollout(enc).per_feature[0], atol=1e-6)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_attention_flow_equals_networkx_maximum_flow_on_the_whole_layer_graph(tiny_glove, arch):
    """The closed-form flows per token and feature against NetworkX's maximum flow on the full graph of one
    feature (every input token, every fused node, the output)."""
    enc = make_tiny(arch, tiny_glove).trace(SENTENCE).premise.encoder
    g = layer_graph(enc)
    mix, out = g.mix.double().numpy(), g.out.double().numpy()  # (F, n, n), (F, n)
    ours = token_flows(g)  # (n, F)
    n = out.shape[1]
    tol = 1e-9
    for k in range(0, out.shape[0], 7):
        graph = nx.DiGraph()
        for j in range(n):
            graph.add_edge(("u", j), "s", capacity=float(out[k, j]))
            for i in range(n):
                graph.add_edge(("x", i), ("u", j), capacity=float(mix[k, j, i]))
        for i in range(n):
            assert ours[i, k] == pytest.approx(nx.maximum_flow_value(graph, ("x", i), "s"), abs=tol)
            # two layers: each path i → u_j → s carries the smaller of its two capacities
            assert ours[i, k] == pytest.approx(np.minimum(mix[k, :, i], out[k]).sum(), abs=tol)
    flow = attention_flow(enc)
    assert flow.exact == (arch == "disan")
    assert torch.allclose(flow.shares[0].double(), torch.from_numpy(ours.mean(1)), atol=1e-6)
    # a path carries at least the product of its capacities (both ≤ 1), so flow ≥ rollout token by token
    assert bool((flow.shares[0] >= gated_rollout(enc).shares[0] - 1e-5).all())


def test_detached_attention_stops_the_gradient_through_the_weights_only(tiny_glove):
    """With the attention's logit weights zeroed the attention is constant in x, so detaching it changes
    nothing; with trained-like weights it does. The class probabilities keep their gradient either way."""
    for arch in ("disan", "dsa"):
        model = with_biases(make_tiny(arch, tiny_glove, unk_zero=True))
        fn = ClassProbability(model, tuple(model.cfg.masks), model.cfg.alpha if arch == "dsa" else None)
        emb = fn.embed([[SENTENCE.split()]])
        target = torch.tensor([1])
        attached, detached = gradient_x_input(fn, emb, target)[0], detached_gradient_x_input(fn, emb, target)[0]
        assert not torch.allclose(attached, detached, atol=1e-7)
        with torch.no_grad():
            for name, p in model.encoder.named_parameters():
                # the parameters that only feed attention logits (DiSAN Eqs. 12, 15; Im Eqs. 8, 14)
                if any(part in name for part in ("w1.", "w2.", ".b1", "s2t.", ".q.", ".k.")):
                    p.zero_()
        attached, detached = gradient_x_input(fn, emb, target)[0], detached_gradient_x_input(fn, emb, target)[0]
        assert torch.allclose(attached, detached, atol=1e-6)
        x = emb.xs[0].clone().requires_grad_(True)
        with detached_attention():
            assert fn.probs([x], emb.valids).requires_grad


def test_kendall_tau_counts_pairs_and_corrects_for_ties():
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)  # 2 concordant, 1 discordant
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # a ties one pair (positions 0, 1); of the other 5 pairs C = 2 ((0,2), (1,2)) and D = 3 ((0,3), (1,3), (2,3));
    # 5 untied pairs in a, all 6 untied in b → (2 − 3) / √(5·6)
    assert kendall_tau([1, 1, 2, 3], [1, 2, 3, 0]) == pytest.approx((2 - 3) / math.sqrt(5 * 6))
    assert math.isnan(kendall_tau([1.0], [2.0])) and math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="one length"):
        kendall_tau([1, 2], [1, 2, 3])


def test_top_count_never_empties_a_side_and_top_positions_break_ties_by_order():
    assert [top_count(10, f) for f in (0.1, 0.2, 0.5)] == [1, 2, 5]
    assert [top_count(3, f) for f in (0.1, 0.5)] == [1, 2] and top_count(1, 0.5) == 0 and top_count(2, 0.5) == 1
    assert top_positions([0.1, 0.5, 0.5, 0.9], 2) == [1, 3]


def test_attribute_explains_any_class_and_refuses_a_bad_one(tiny_glove):
    model = make_tiny("disan", tiny_glove, unk_zero=True)
    trace = model.trace(SENTENCE)
    default = attribute(model, trace)
    assert default.target == max(trace.prediction, key=trace.prediction.get)
    other = attribute(model, trace, target="neg" if default.target == "pos" else "pos")
    assert other.target != default.target
    # the two classes' probabilities sum to 1, so their gradients are opposite
    assert torch.allclose(default.sides[0].scores["grad_input"], -other.sides[0].scores["grad_input"], atol=1e-6)
    assert set(default.sides[0].scores) == set(methods_for("disan")) and default.rollout_exact
    assert "pooling" in METHODS and "pooling" not in default.sides[0].scores
    with pytest.raises(InputError, match="labels"):
        attribute(model, trace, target="happy")
    with pytest.raises(InputError, match="out of range"):
        attribute(model, trace, target=7)


def test_attribute_follows_the_trace_masks_and_alpha(tiny_glove):
    model = make_tiny("dsa", tiny_glove, unk_zero=True)
    plain, shifted = (attribute(model, model.trace(SENTENCE, alpha=a)) for a in (None, 0.0))
    assert not torch.allclose(plain.sides[0].scores["leave_one_out"], shifted.sides[0].scores["leave_one_out"])
    assert plain.to_json()["sides"][0]["tokens"] == SENTENCE.split()
    side = plain.sides[0]
    assert set(side.scores) == set(METHODS) and side.vector_shares is None  # the DSA: pooling, no vector shares
    enc = model.trace(SENTENCE).premise.encoder
    expected = (enc.s2t_probs[0].mean(-1) + enc.maxpool_share[0]) / 2  # source2token half, max-pool half
    assert torch.allclose(side.scores["pooling"], expected, atol=1e-6)
    assert float(side.scores["pooling"].sum()) == pytest.approx(1.0, abs=1e-5)


def test_the_erasure_reference_equals_disans_vector_shares_and_holds_the_weights(tiny_glove):
    """With the weights replayed, erasing DiSAN's h_i removes exactly A_i[k] h_i[k] (s is linear in h): the
    reference equals rollout's vector shares, so the mechanism is exact where rollout is."""
    from disan.attribution.approximation import compare, erasure_parts

    model = make_tiny("disan", tiny_glove)
    parts, enc, erased = erasure_parts(model, SENTENCE.split())
    roll = gated_rollout(enc)
    h = torch.cat([enc.fw.h, enc.bw.h], -1)[0].double()  # (T, 2D)
    assert torch.allclose(parts, roll.per_feature[0].double() * h, atol=1e-5)
    assert torch.allclose(erased.fw.gate, enc.fw.gate.expand_as(erased.fw.gate))  # gates replayed
    check = compare(model, [SENTENCE.split(), ["a", "bad", "dog"]])
    assert check["vector"]["total_variation"]["value"] < 1e-5
    assert check["vector"]["kendall_tau"]["value"] == pytest.approx(1.0)
    assert check["mixing"]["total_variation"]["value"] > 1e-3  # weights are not the vector
    dsa = make_tiny("dsa", tiny_glove)
    parts, enc, erased = erasure_parts(dsa, SENTENCE.split())
    assert torch.allclose(erased.fw.probs, enc.fw.probs.expand_as(erased.fw.probs))  # attention replayed
    assert torch.equal(erased.maxpool_argmax, enc.maxpool_argmax.expand_as(erased.maxpool_argmax))
    assert not torch.allclose(erased.fw.u[1], enc.fw.u[0])  # yet erasing token 1 changed the fused vectors
    check = compare(dsa, [SENTENCE.split()])
    assert set(check) == {"mixing"} and 0 < check["mixing"]["total_variation"]["value"] < 1
