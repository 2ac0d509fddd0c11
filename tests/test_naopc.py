"""Normalised AOPC (disan/attribution/naopc.py, Edin et al. 2024): the bounds against every ordering, the beam
search as an inner bound, the masked outputs against a direct run, and NAOPC in [0, 1] on tiny models."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import torch

from disan.attribution import naopc as N
from disan.attribution.forward import ClassProbability
from disan.attribution.stored import NOT_IN_SCHEMA_2, migrate

from conftest import make_tiny


def table_score(n: int, seed: int = 0):
    """A literal step score: a seeded value per subset (0 for the empty one), and a counter of calls."""
    rng = np.random.default_rng(seed)
    values = {frozenset(c): float(rng.normal()) for k in range(1, n + 1) for c in itertools.combinations(range(n), k)}
    values[frozenset()] = 0.0
    return lambda prefixes: [values[p] for p in prefixes]


def every_ordering(n: int, score) -> list[float]:
    return [N.aopc_of(order, score) for order in itertools.permutations(range(n))]


@pytest.mark.parametrize("n", [1, 3, 5, 6])
def test_exact_bounds_are_the_best_and_worst_of_every_ordering(n):
    score = table_score(n, seed=n)
    high, low = N.exact_bounds(n, score)
    all_aopc = every_ordering(n, score)
    assert high == pytest.approx(max(all_aopc)) and low == pytest.approx(min(all_aopc))


def test_beam_search_is_an_inner_bound_and_exact_when_wide_enough():
    n = 6
    score = table_score(n, seed=11)
    high, low = N.exact_bounds(n, score)
    assert N.beam_bound(n, score, True, width=720) == pytest.approx(high)
    assert N.beam_bound(n, score, False, width=720) == pytest.approx(low)
    for width in (1, 2, 4):
        assert low - 1e-12 <= N.beam_bound(n, score, False, width) and N.beam_bound(n, score, True, width) <= high + 1e-12
    greedy = N.beam_bound(n, score, True, width=1)  # the greedy ordering is one of the n! orderings
    assert any(v == pytest.approx(greedy) for v in every_ordering(n, score))


def test_normalise_maps_the_worst_to_0_and_the_best_to_1():
    assert N.normalise(0.3, best=0.3, worst=-0.1) == 1.0 and N.normalise(-0.1, best=0.3, worst=-0.1) == 0.0
    assert N.normalise(0.1, best=-0.2, worst=0.4) == pytest.approx(0.5)  # sufficiency: best is the smallest
    assert np.isnan(N.normalise(0.2, 0.2, 0.2))


def test_masked_outputs_are_the_models_output_with_unk_rows(tiny_glove):
    model = make_tiny("dsa", tiny_glove, pair=True, unk_zero=True)
    fn = ClassProbability(model, model.cfg.masks, model.cfg.alpha)
    emb = fn.embed([[["the", "movie", "is", "good"], ["a", "dog"]], [["tea", "."], ["the", "man", "is", "bad", "."]]])
    f = N.MaskedOutputs(fn, emb, torch.tensor([0, 2]))
    assert f.n[1] == 2 + 5 and f.offsets[1] == [0, 2]
    keep = frozenset({0, 3, 5})  # premise token 0, hypothesis tokens 1 and 3
    x_p, x_h = emb.xs[0][1:2].clone(), emb.xs[1][1:2].clone()
    x_p[0, 1] = 0
    x_h[0, [0, 2, 4]] = 0
    with torch.no_grad():
        direct = fn.outputs([x_p, x_h], [emb.valids[0][1:2], emb.valids[1][1:2]])[0, 2]
        whole = fn.outputs([x[1:2] for x in emb.xs], [v[1:2] for v in emb.valids])[0, 2]
    assert f([(1, keep)])[0] == pytest.approx(float(direct), abs=1e-6)
    assert f([(1, frozenset(range(7)))])[0] == pytest.approx(float(whole), abs=1e-6)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_naopc_of_a_batch_lies_between_0_and_1_with_exact_bounds(tiny_glove, arch):
    model = make_tiny(arch, tiny_glove, unk_zero=True)
    fn = ClassProbability(model, model.cfg.masks, None if arch == "disan" else model.cfg.alpha)
    emb = fn.embed([[["the", "movie", "is", "good", "."], ["a", "bad", "dog", ",", "the", "man"]]])
    rng = np.random.default_rng(0)
    rankings = {"random": [[rng.random(5), rng.random(6)]], "first": [[np.arange(5.0)[::-1], np.arange(6.0)[::-1]]]}
    out = N.naopc_batch(fn, emb, rankings, torch.tensor([0, 1]))
    for kind in N.KINDS:
        for r in rankings:
            v = out[("naopc", kind, r)]
            assert v.shape == (2,) and ((v >= -1e-9) & (v <= 1 + 1e-9)).all()
    # the ranking that is the best ordering gets NAOPC 1: find it by brute force for the 5-token example
    f = N.MaskedOutputs(fn, emb, torch.tensor([0, 1]))
    score = N.step_scores(f, "comprehensiveness", 0)
    best = max(itertools.permutations(range(5)), key=lambda o: N.aopc_of(o, score))
    scores = np.zeros(5)
    scores[list(best)] = np.arange(5.0)[::-1]
    res = N.naopc_batch(fn, emb, {"best": [[scores, np.zeros(6)]]}, torch.tensor([0, 1]))
    assert res[("naopc", "comprehensiveness", "best")][0] == pytest.approx(1.0)


def test_a_schema_2_file_reads_as_schema_3_with_the_normalised_aopc_null():
    old = {"schema_version": 2, "model": "m", "not_computed": []}
    new = migrate(old)
    assert new["schema_version"] == 3 and new["migrated_from"] == 2
    assert all(new[k] is None for k in NOT_IN_SCHEMA_2)
    assert [n["key"] for n in new["not_computed"]] == list(NOT_IN_SCHEMA_2)
    assert "--model m --write" in new["not_computed"][0]["why"]


@pytest.mark.slow
def test_a_run_without_naopc_leaves_its_keys_null_and_says_so(tiny_glove):
    import json
    from pathlib import Path

    import jsonschema

    from disan.attribution.corpus import run
    from disan.data import Example

    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "faithfulness.schema.json").read_text())
    model = make_tiny("disan", tiny_glove, unk_zero=True)
    examples = [Example("the movie is good .", 1), Example("a bad movie .", 0)]
    off = run(model, examples, "sst5", "test", "0" * 64, progress=False, naopc=False)
    jsonschema.validate(off, schema)
    assert off["naopc"] is None and off["aopc_steps"] is None and off["naopc_how"] is None
    assert [c["key"] for c in off["not_computed"]] == ["aopc_steps", "naopc", "naopc_how"]
    on = run(model, examples, "sst5", "test", "0" * 64, progress=False)
    jsonschema.validate(on, schema)
    assert on["not_computed"] == [] and on["naopc_how"]["beam"] == N.BEAM
    assert 0 <= on["naopc"]["comprehensiveness"]["attention"]["value"] <= 1
    assert on["aopc"] == off["aopc"]  # the ERASER numbers do not depend on it


def test_the_evidence_views_rows_read_naopc_where_a_file_holds_it():
    from viz_app.shell.faithfulness_results import Faithfulness, Measured, aopc_rows

    ci = {"value": 0.7, "ci95": [0.6, 0.8], "n": 20}
    by = {"comprehensiveness": {"attention": ci, "random": {**ci, "value": 0.5}}, "sufficiency": {"attention": ci}}
    new = Measured("new", {"complete": True, "naopc": by, "aopc_steps": by}, None)
    old = Measured("old", {"complete": True, "naopc": None}, None)
    results = Faithfulness((new, old), (), ())
    rows = aopc_rows(results, "comprehensiveness", "naopc")
    assert [(r.model, r.series, r.value) for r in rows] == [("new", "attention", 0.7), ("new", "random", 0.5)]
    assert len(aopc_rows(results, "sufficiency", "aopc_steps")) == 1


@pytest.mark.parametrize("n", [3, 5])
def test_comprehensiveness_and_sufficiency_share_their_bounds(tiny_glove, n):
    """AOPC_comp(e) = AOPC_suff(reverse(e)): the two kinds' best and worst over every ordering coincide, so
    shared_bounds searches once (checked against both kinds' own exact bounds on a literal model)."""
    model = make_tiny("disan", tiny_glove)
    fn = ClassProbability(model, model.cfg.masks, None)
    emb = fn.embed([[["the", "movie", "is", "good", "."][:n]]])
    f = N.MaskedOutputs(fn, emb, torch.tensor([1]))
    comp, suff = N.step_scores(f, "comprehensiveness", 0), N.step_scores(f, "sufficiency", 0)
    for order in itertools.permutations(range(n)):
        assert N.aopc_of(order, comp) == pytest.approx(N.aopc_of(order[::-1], suff), abs=1e-9)
    shared = N.shared(*N.bounds(n, suff))
    c_high, c_low = N.exact_bounds(n, comp)
    s_high, s_low = N.exact_bounds(n, suff)
    assert shared["comprehensiveness"] == pytest.approx((c_high, c_low), abs=1e-9)
    assert shared["sufficiency"] == pytest.approx((s_low, s_high), abs=1e-9)


def one_at_a_time(fn, emb, b: int, target: int, kind: str):
    """The plain path NAOPC took before its batched form: example b alone, each step's input built and run on its
    own (one forward row per keep set, both sides encoded every time, nothing cached). Returns (n, score)."""
    lengths = [int(v[b].sum()) for v in emb.valids]
    offsets = np.cumsum([0] + lengths[:-1])
    n = sum(lengths)
    everything = frozenset(range(n))

    def f(keep: frozenset) -> float:
        xs = [x[b : b + 1].clone() for x in emb.xs]  # (1, T_s, d) per side
        for s, x in enumerate(xs):
            x[0, [t for t in range(lengths[s]) if offsets[s] + t not in keep]] = 0  # <unk> is the zero vector
        with torch.no_grad():
            return float(fn.outputs(xs, [v[b : b + 1] for v in emb.valids])[0, target])

    full = f(everything)
    return n, lambda prefixes: [full - f(everything - S if kind == "comprehensiveness" else S) for S in prefixes]


@pytest.mark.parametrize("arch,pair,relatedness", [("disan", False, False), ("dsa", False, False),
                                                   ("disan", True, False), ("dsa", True, True)])
def test_the_batched_naopc_equals_the_plain_one_example_at_a_time(tiny_glove, monkeypatch, arch, pair, relatedness):
    """naopc_batch (every example's searches in lockstep, rows of a round in shared passes, a pair's sides encoded
    apart and cached) gives the values of the plain path to 1e-9 in float64, with the beam search as well as exact
    bounds (EXACT_MAX lowered so that both run), padding (unequal lengths) and a relatedness model's score."""
    monkeypatch.setattr(N, "EXACT_MAX", 4)
    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True, relatedness=relatedness).double()
    fn = ClassProbability(model, model.cfg.masks, None if arch == "disan" else model.cfg.alpha)
    premises = [["the", "movie", "is", "good", "."], ["a", "bad", "dog"], ["the", "man", "is", "bad", "the", "movie"]]
    hypotheses = [["good", "."], ["the", "dog", "is", "a", "dog"], ["bad"]]
    emb = fn.embed([premises, hypotheses] if pair else [premises])
    assert emb.xs[0].dtype == torch.float64
    rng = np.random.default_rng(1)
    rankings = {r: [[rng.random(len(side[b])) for b in range(3)] for side in emb.tokens] for r in ("a", "b", "c")}
    target = torch.tensor([3, 3, 0] if relatedness else [2, 0, 1] if pair else [1, 0, 1])  # 3: the score ŷ
    out = N.naopc_batch(fn, emb, rankings, target)
    for b in range(3):
        n, suff = one_at_a_time(fn, emb, b, int(target[b]), "sufficiency")
        high, low = N.exact_bounds(n, suff) if n <= 4 else (N.beam_bound(n, suff, True), N.beam_bound(n, suff, False))
        for kind in N.KINDS:
            _, score = one_at_a_time(fn, emb, b, int(target[b]), kind)
            best, worst = (high, low) if kind == "comprehensiveness" else (low, high)
            for r, scores in rankings.items():
                aopc = N.aopc_of(N._order(np.concatenate([side[b] for side in scores])), score)
                assert out[("aopc_steps", kind, r)][b] == pytest.approx(aopc, abs=1e-9)
                expected = N.normalise(aopc, best, worst)
                assert out[("naopc", kind, r)][b] == pytest.approx(expected, abs=1e-9, nan_ok=True)


def test_a_naopc_sample_measures_only_its_examples_and_equals_the_whole_runs_values(tiny_glove):
    """--naopc-limit: NAOPC on a seeded sample of the measured examples (NaN elsewhere, the same values as the
    whole run's where measured); every other measure on all of them, unchanged; the file states the sample."""
    import json
    from pathlib import Path

    import jsonschema

    from disan.attribution.corpus import measure, naopc_sample, run
    from disan.data import Example

    chosen = naopc_sample(100, 7)
    assert chosen.sum() == 7 and (naopc_sample(100, 7) == chosen).all()
    assert naopc_sample(5, 9).all() and naopc_sample(5, 0).all() and naopc_sample(5, None).all()
    model = make_tiny("dsa", tiny_glove, unk_zero=True)
    examples = [Example(t, i % 2) for i, t in enumerate((
        "the movie is good .", "a bad movie .", "the dog is n't good , the man is bad .", "the glass of tea .",
        "the man is good and the movie is bad .", "a man is good ."))]
    ids = list(range(len(examples)))
    whole = measure(model, examples, ids, progress=False)
    flags = np.array([False, True, False, True, True, False])
    part = measure(model, examples, ids, progress=False, naopc=flags)
    for key in ("naopc:comprehensiveness:attention", "aopc_steps:sufficiency:random"):
        assert np.isnan(part[key][~flags]).all()
        assert np.allclose(part[key][flags], whole[key][flags], atol=1e-6)
    assert np.array_equal(part["comprehensiveness:attention:0.2"], whole["comprehensiveness:attention:0.2"])
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "faithfulness.schema.json").read_text())
    out = run(model, examples, "sst5", "test", "0" * 64, progress=False, naopc_limit=2)
    jsonschema.validate(out, schema)
    assert out["naopc_how"]["sample"]["n"] == 2 and out["naopc_how"]["sample"]["limit"] == 2
    assert "seeded random sample" in out["naopc_how"]["sample"]["how"]
    assert out["naopc"]["comprehensiveness"]["attention"]["n"] <= 2 < out["n"] == len(examples)
    assert run(model, examples[:2], "sst5", "test", "0" * 64, progress=False,
               naopc_limit=5)["naopc_how"]["sample"]["how"] == "every measured example"


def test_a_whole_set_runs_cache_key_is_unchanged_by_the_naopc_sample(tiny_glove, tmp_path):
    """A cache written before --naopc-limit existed (key "naopc": true) still resumes a whole-set run."""
    from disan.attribution.corpus import measure
    from disan.data import Example

    model = make_tiny("disan", tiny_glove, unk_zero=True)
    examples = [Example("the movie is good .", 1), Example("a bad movie .", 0)]
    measure(model, examples, [0, 1], progress=False, cache=tmp_path, naopc=np.ones(2, bool))
    (path,) = tmp_path.glob("*.npz")
    with np.load(path, allow_pickle=False) as f:
        assert json.loads(str(f["key"]))["naopc"] is True
    measure(model, examples, [0, 1], progress=False, cache=tmp_path, naopc=np.array([True, False]))
    keys = [json.loads(str(np.load(p, allow_pickle=False)["key"]))["naopc"] for p in sorted(tmp_path.glob("*.npz"))]
    assert sorted(map(str, keys)) == ["True", "[0]"]
