"""Attributions of a relatedness model (SICK) explain its predicted score ŷ = rᵀp̂ (Tai, Socher & Manning 2015,
Sec. 4.2), not the probability of one grade, on the tiny seeded relatedness checkpoints (tests/relatedness_model.py).

Each attribution is checked against a naive computation through the public API or the model itself: gradient ×
input against a central finite difference of the score per token, leave-one-out against ``predict()`` re-run with
the token made unknown, Integrated Gradients against ŷ(x) − ŷ(baseline).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from disan.api import load
from disan.attribution import SCORE, attribute, method_text
from disan.attribution.forward import ClassProbability
from disan.attribution.gradient import gradient_x_input
import disan
import disan.api
from tests.relatedness_model import PAIRS, write_relatedness_model

#: A word in neither the model's vocabulary nor the fixture's GloVe file: the tokenizer keeps it, the model
#: reads it as <unk> (its zero row with --unk-zero, else the <unk> embedding), as leave-one-out replaces a token.
UNKNOWN = "qqzxv"


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory):
    """A pretrained/ folder holding tiny disan-sick and dsa-sick relatedness checkpoints."""
    folder = tmp_path_factory.mktemp("rel-attr") / "pretrained"
    for arch in ("disan", "dsa"):
        write_relatedness_model(folder, arch)
    return folder


@pytest.fixture()
def app_models(pretrained, monkeypatch):
    """The app reads the tiny checkpoints by name and lists them in its model picker."""
    from disan.config import ARCHS
    from viz_app.shell import loaders

    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", pretrained)
    monkeypatch.setattr(disan, "available", lambda *a: ["disan-sick", "dsa-sick", *ARCHS])
    caches = (loaders.load_model, loaders.model_config, loaders.trace_view, loaders.full_trace,
              loaders.attribution_view)
    for cache in caches:
        cache.clear()
    yield pretrained
    for cache in caches:
        cache.clear()


def model_of(folder, arch: str):
    return load(str(folder / f"{arch}-sick.safetensors"), device="cpu")


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_default_target_is_the_score_and_leave_one_out_is_its_drop_under_predict(pretrained, arch):
    model = model_of(pretrained, arch)
    a, b = PAIRS[1]
    trace = model.trace(a, b)
    result = attribute(model, trace)
    [score] = model.predict([(a, b)])
    assert result.target == SCORE and result.explains_score and result.target_index == len(model.cfg.labels)
    assert result.probability == pytest.approx(score, abs=1e-5) and 1.0 <= result.probability <= 5.0
    assert result.to_json()["explained"] == "relatedness score ŷ = rᵀp̂"
    sentences = [a.split(), b.split()]
    assert [list(s.tokens) for s in result.sides] == sentences  # the fixture's words are single tokens
    variants, where = [], []
    for side, words in enumerate(sentences):
        for t in range(len(words)):
            pair = [list(s) for s in sentences]
            pair[side][t] = UNKNOWN
            variants.append((" ".join(pair[0]), " ".join(pair[1])))
            where.append((side, t))
    dropped = model.predict(variants)  # the naive loop: one public predict() per erased token
    for (side, t), value in zip(where, dropped):
        assert float(result.sides[side].scores["leave_one_out"][t]) == pytest.approx(score - value, abs=1e-5)
    assert any(abs(score - v) > 1e-3 for v in dropped)  # the check is not vacuous: some tokens move the score


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_gradient_x_input_is_the_scores_derivative_per_token(pretrained, arch):
    """Token t's grad·x_t is d ŷ((1 + ε) x_t) / dε at 0: compared with a central difference in float64."""
    model = model_of(pretrained, arch).double()  # load() reads a fresh model: no other test sees this one
    fn = ClassProbability(model, tuple(model.cfg.masks), model.cfg.alpha if arch == "dsa" else None)
    emb = fn.embed([[s.split()] for s in PAIRS[0]])
    emb = type(emb)(tuple(x.double() for x in emb.xs), emb.valids, emb.tokens)
    k = len(model.cfg.labels)  # the score column
    scores = gradient_x_input(fn, emb, torch.tensor([k]))
    eps = 1e-6
    for side, x in enumerate(emb.xs):
        for t in range(x.shape[1]):
            moved = []
            for sign in (1, -1):
                xs = [y.clone() for y in emb.xs]
                xs[side][0, t] *= 1 + sign * eps
                with torch.no_grad():
                    moved.append(float(fn.outputs(xs, emb.valids)[0, k]))
            expected = (moved[0] - moved[1]) / (2 * eps)
            assert float(scores[side][0, t]) == pytest.approx(expected, rel=1e-5, abs=1e-8), (side, t)
    with torch.no_grad():  # column K is rᵀp̂ of the grade columns, as predict() computes it
        out = fn.outputs(emb.xs, emb.valids)[0]
    assert float(out[k]) == pytest.approx(float(out[:k] @ torch.arange(1, k + 1, dtype=out.dtype)), abs=1e-12)


def test_integrated_gradients_add_up_to_the_score_gap_and_a_grade_can_still_be_explained(pretrained):
    model = model_of(pretrained, "disan")
    trace = model.trace(*PAIRS[2])
    result = attribute(model, trace)
    total = sum(float(s.scores["integrated_gradients"].sum()) for s in result.sides)
    assert total == pytest.approx(result.ig_gap, abs=abs(result.ig_delta) + 1e-5)
    fn = ClassProbability(model, tuple(trace.masks), trace.alpha)
    emb = fn.embed([[list(s.tokens)] for s in (trace.premise, trace.hypothesis)])
    with torch.no_grad():
        base = float(fn.outputs([torch.zeros_like(x) for x in emb.xs], emb.valids)[0, -1])
    assert result.ig_gap == pytest.approx(result.probability - base, abs=1e-6)
    grade = attribute(model, trace, "3")
    assert grade.target == "3" and not grade.explains_score
    assert grade.probability == pytest.approx(trace.prediction["3"], abs=1e-6)
    assert not torch.allclose(grade.sides[0].scores["grad_input"], result.sides[0].scores["grad_input"])
    assert "relatedness score ŷ = rᵀp̂" in method_text("leave_one_out", score=True)
    assert "ŷ(x) − ŷ(baseline)" in method_text("integrated_gradients", score=True)
    assert method_text("leave_one_out") == "the drop in the class probability when this token alone is replaced by " \
                                           "<unk> (a re-run)"


def test_the_attribution_view_explains_the_score_and_names_sentence_a_and_b(app_models):
    from tests.test_app import assert_clean, chart_by_key, plain, run_app, settled

    a, b = PAIRS[1]
    at = run_app(view="attribution", model="disan-sick", sentence=a)
    settled(at.text_input(key="hypothesis").set_value(b).run())
    assert_clean(at)
    picker = at.selectbox(key="cls")
    assert picker.label == "Output explained" and picker.value == ""
    text = " ".join(plain(m.value) for m in at.markdown)
    [score] = model_of(app_models, "disan").predict([(a, b)])
    assert f"Explaining the predicted relatedness score ŷ = rᵀp̂ = {score:.3f}" in text and "(sentence A)" in text
    assert "ŷ(x) − ŷ(baseline)" in text and "p(x) − p(baseline)" not in text
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "every token of sentence A and sentence B for the relatedness score" in captions
    bars = {p["name"]: np.array(p["view"]["values"], dtype=float)  # a bars panel per method (figure spec)
            for p in chart_by_key(at, "attr_bars")["panels"] if p["kind"] == "bars"}
    expected = attribute(model_of(app_models, "disan"), model_of(app_models, "disan").trace(a, b))
    loo = expected.sides[0].scores["leave_one_out"].numpy()
    assert bars["leave-one-out"] == pytest.approx(loo / abs(loo).max(), abs=1e-5)  # each series scaled in the page
    settled(picker.set_value("5").run())
    assert_clean(at)
    assert "Explaining '5'" in " ".join(plain(m.value) for m in at.markdown)


@pytest.mark.slow
def test_faithfulness_over_a_test_set_explains_each_pairs_score(pretrained, tmp_path):
    """disan faithfulness's per-pair values explain ŷ too: IG's gap is ŷ(x) − ŷ(baseline) of each pair, and the
    τ between attention and leave-one-out ranks the same leave-one-out ``attribute`` gives."""
    from disan.attribution.corpus import TARGET_SCORE, measure, run
    from disan.data import load_task
    from tests.task_files import write_task_data

    model = model_of(pretrained, "disan")
    test = load_task("sick", "test", write_task_data(tmp_path / "data"))[:6]
    per = measure(model, test, list(range(len(test))), steps=8, progress=False)
    for i, e in enumerate(test):
        trace = model.trace(e.text, e.hypothesis)
        one = attribute(model, trace, steps=8)
        assert per["ig_gap"][i] == pytest.approx(one.ig_gap, abs=1e-5)
        loo_tau = np.nanmean([s.tau("attention", "leave_one_out") for s in one.sides])
        assert per["tau:attention:leave_one_out"][i] == pytest.approx(loo_tau, abs=1e-6, nan_ok=True)
    assert run(model, test, "sick", "test", "0" * 64, steps=8, progress=False)["target"] == TARGET_SCORE
