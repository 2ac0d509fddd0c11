"""viz_app/browser/recompute.js in headless Chromium, against the Python core.

The script is inlined into a blank page (as the offline report does) and fed
the payloads of ``viz_app/draw/live.py``; its numbers must equal
``DistanceBlockTrace.probs_at(α)`` within 1e-5 and DiSAN's per-feature
probabilities within the stated quantisation error.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from disan.masks import combined_mask
from tests.conftest import make_tiny, offline_page
from tests.page_js import node_jobs
from viz_app.draw import bundles, live
from viz_app.draw.reduce import block_mean

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page():
    with offline_page({"content": bundles.text("report")}) as pg:
        assert pg.evaluate("typeof Disan.Recompute.distanceProbs") == "function"
        yield pg


@pytest.fixture(scope="module")
def traces(tiny_glove):
    dsa = make_tiny("dsa", tiny_glove).trace("the movie is good . the dog is bad , a man")
    disan = make_tiny("disan", tiny_glove).trace("the movie is good . a dog")
    return dsa, disan


def _js(page, body: str, arg):
    return page.evaluate(f"(arg) => {{ const R = Disan.Recompute; {body} }}", arg)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.5, 5.0])
@pytest.mark.parametrize("direction", ["fw", "bw"])
def test_distance_probs_equal_probs_at(page, traces, alpha, direction):
    dsa, _ = traces
    block = getattr(dsa.premise.encoder, direction)
    got = _js(page, "const L = R.prepare(arg.p); const b = L.blocks[arg.d];"
                    "return Array.from(R.distanceProbs(b.scores, L.T, b.allowed, arg.a));",
              {"p": live.distance_payload(dsa.premise), "d": direction, "a": alpha})
    ref = block.probs_at(alpha)[0].numpy()  # (H, T, T)
    got = np.array(got).reshape(ref.shape)
    assert np.abs(got - ref).max() <= 1e-5
    empty = ~block.allowed[0].numpy().any(-1)  # the row with no allowed key
    assert empty.any() and (got[:, empty] == 0).all()
    assert np.allclose(got.sum(-1)[:, ~empty], 1, atol=1e-5)


def test_head_mean_block_mean_and_masks_match_python(page, traces):
    dsa, _ = traces
    T = len(dsa.tokens)
    out = _js(page, """const L = R.prepare(arg.p); const b = L.blocks.fw;
        const m = R.headMean(R.distanceProbs(b.scores, L.T, b.allowed, 1.5), L.T);
        return {mean: Array.from(m), pooled: Disan.Figures.blockMean(R.rows(m, L.T), 4).z.flat(),
                mask: Array.from(R.maskPanel(L.T, 'bw', 0.7)).map(v => isNaN(v) ? null : v)};""",
              {"p": live.distance_payload(dsa.premise)})
    mean = dsa.premise.encoder.fw.probs_at(1.5)[0].mean(0).numpy()
    assert np.abs(np.array(out["mean"]).reshape(T, T) - mean).max() <= 1e-5
    pooled, _ = block_mean(mean, 4)
    assert np.allclose(np.array(out["pooled"], float).reshape(pooled.shape), pooled, atol=1e-5, equal_nan=True)
    mask = np.array([np.nan if v is None else v for v in out["mask"]]).reshape(T, T)
    ref = combined_mask(T, "bw", 0.7).numpy()
    assert np.array_equal(np.isnan(mask), np.isinf(ref)) and np.allclose(mask[~np.isnan(mask)], ref[np.isfinite(ref)])


@pytest.mark.parametrize("k", [0, 4, 9])
def test_feature_slice_matches_the_trace(page, traces, k):
    _, disan = traces
    got = _js(page, "const L = R.prepare(arg.p); return Array.from(R.evaluate(L, {op: 'feature', dir: 'fw'}, "
                    "{feature: arg.k}));", {"p": live.feature_payload(disan.premise), "k": k})
    ref = disan.premise.encoder.fw.probs[0, :, :, k].numpy()
    got = np.array(got).reshape(ref.shape)
    assert np.abs(got - ref).max() <= live.QUANTISATION_ERROR
    assert (got[~disan.premise.encoder.fw.allowed[0].numpy()] == 0).all()


def test_render_rewrites_a_figure_the_page_built(page, traces):
    """A binding recomputes z, the shared colour domain and the α in the titles of a figures.js grid (its spec's
    panel views, which the host hands to the components)."""
    dsa, _ = traces
    tokens = list(dsa.tokens)
    enc = dsa.premise.encoder
    maps = [enc.fw.probs_at(1.5)[0].mean(0).numpy().tolist(), enc.bw.probs_at(1.5)[0].mean(0).numpy().tolist()]
    [fig] = node_jobs([{"fn": "F.heatmapGrid", "args": [maps, ["fw α = 1.5", "bw"], tokens, {"title": "maps at α = 1.5"}]}])
    [bind] = node_jobs([{"fn": "S.gridBinding", "args": [fig, [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}],
                                                          {"α = 1.5": "α = {alpha}"}]}])
    assert "error" not in fig and "error" not in bind, (fig, bind)
    out = _js(page, "const L = R.prepare(arg.p); const f = R.render(L, arg.b, arg.f, {alpha: 0.3});"
                    "const v = f.panels.map(p => p.view);"
                    "return {z: v.map(x => Array.from(x.z, r => Array.from(r))), lim: v.map(x => [x.zmin, x.zmax]), "
                    "title: f.title, sub: v[0].title};",
              {"p": live.distance_payload(dsa.premise), "b": bind, "f": fig})
    fw, bw = enc.fw.probs_at(0.3)[0].mean(0).numpy(), enc.bw.probs_at(0.3)[0].mean(0).numpy()
    assert np.abs(np.array(out["z"][0]) - fw).max() <= 1e-5 and np.abs(np.array(out["z"][1]) - bw).max() <= 1e-5
    both = np.stack([fw, bw])  # one scale over both panels, from their finite values
    assert out["lim"][0] == out["lim"][1] == pytest.approx([both.min(), both.max()], abs=1e-6)
    assert out["title"] == "maps at α = 0.3" and out["sub"] == "fw α = 0.3"


def test_render_pools_a_bound_head_as_its_figure_was_drawn(page, traces):
    """A bound panel with ``pool`` (the heads' HEAD_CELLS) is redrawn block-averaged as viz_app.reduce.block_mean
    averages it, its colour domain taken from the pooled cells."""
    dsa, _ = traces
    fig = {"title": "", "panels": [{"kind": "heatmap", "name": "head-2", "view": {"title": ""}}]}
    bind = {"panels": [{"panel": 0, "z": {"op": "head", "dir": "fw", "head": 1}, "pool": 4}],
            "scales": [{"panels": [0], "zmin": None, "zmax": None, "diverging": False}], "texts": {}, "rows": []}
    out = _js(page, "const L = R.prepare(arg.p); const v = R.render(L, arg.b, arg.f, {alpha: 0.3}).panels[0].view;"
                    "return {z: v.z.map(r => Array.from(r, x => isNaN(x) ? null : x)), lim: [v.zmin, v.zmax]};",
              {"p": live.distance_payload(dsa.premise), "b": bind, "f": fig})
    pooled, block = block_mean(dsa.premise.encoder.fw.probs_at(0.3)[0][1].numpy(), 4)
    assert block > 1 and np.array(out["z"], float).shape == pooled.shape
    assert np.allclose(np.array(out["z"], float), pooled, atol=1e-5, equal_nan=True)
    assert out["lim"] == pytest.approx([np.nanmin(pooled), np.nanmax(pooled)], abs=1e-6)


def test_decode_refuses_a_wrong_length(page):
    bad = {**live.encode(np.zeros(4), "float32"), "shape": [5]}
    msg = page.evaluate("(a) => { try { Disan.Recompute.decode(a); return ''; } catch (e) { return e.message; } }", bad)
    assert "16 bytes" in msg and "float32" in msg


def test_payload_is_plain_json(traces):
    dsa, disan = traces
    for p in (live.distance_payload(dsa.premise), live.feature_payload(disan.premise), live.mask_payload(["a"])):
        assert json.loads(json.dumps(p)) == p
