"""viz_app/browser/recompute.js in headless Chromium, against the Python core.

The report's bundle is inlined into a blank page (as the offline report does) and fed the trace view's fields
(``viz_app/draw/site_view.py``); its numbers must equal ``DistanceBlockTrace.probs_at(α)`` within 1e-5 and
DiSAN's per-feature probabilities within 1e-5, and a live figure redrawn at new values (``render``) must hold
them.
"""

from __future__ import annotations

import numpy as np
import pytest

from disan.masks import combined_mask
from tests.conftest import make_tiny, offline_page
from tests.page_js import node_jobs
from viz_app.draw import bundles
from viz_app.draw.reduce import block_mean
from viz_app.draw.site_view import figure_context, trace_view_json

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


def _block(tv: dict, direction: str) -> dict:
    """One block of a trace view's premise (trace_view_json: JSON lists), with its T."""
    return {**tv["premise"][direction], "T": len(tv["premise"]["tokens"])}


@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.5, 5.0])
@pytest.mark.parametrize("direction", ["fw", "bw"])
def test_distance_probs_equal_probs_at(page, traces, alpha, direction):
    dsa, _ = traces
    block = getattr(dsa.premise.encoder, direction)
    got = _js(page, "const b = arg.b; return Array.from(R.distanceProbs(Float32Array.from(b.scores), b.T, b.allowed, arg.a));",
              {"b": _block(trace_view_json(dsa), direction), "a": alpha})
    ref = block.probs_at(alpha)[0].numpy()  # (H, T, T)
    got = np.array(got).reshape(ref.shape)
    assert np.abs(got - ref).max() <= 1e-5
    empty = ~block.allowed[0].numpy().any(-1)  # the row with no allowed key
    assert empty.any() and (got[:, empty] == 0).all()
    assert np.allclose(got.sum(-1)[:, ~empty], 1, atol=1e-5)


def test_head_mean_block_mean_and_masks_match_python(page, traces):
    dsa, _ = traces
    T = len(dsa.tokens)
    out = _js(page, """const b = arg.b, m = R.headMean(R.distanceProbs(b.scores, b.T, b.allowed, 1.5), b.T);
        const rows = Array.from({length: b.T}, (_, r) => m.subarray(r * b.T, (r + 1) * b.T));
        return {mean: Array.from(m), pooled: Disan.Figures.blockMean(rows, 4).z.flat(),
                mask: Array.from(R.maskPanel(b.T, 'bw', 0.7)).map(v => isNaN(v) ? null : v)};""",
              {"b": _block(trace_view_json(dsa), "fw")})
    mean = dsa.premise.encoder.fw.probs_at(1.5)[0].mean(0).numpy()
    assert np.abs(np.array(out["mean"]).reshape(T, T) - mean).max() <= 1e-5
    pooled, _ = block_mean(mean, 4)
    assert np.allclose(np.array(out["pooled"], float).reshape(pooled.shape), pooled, atol=1e-5, equal_nan=True)
    mask = np.array([np.nan if v is None else v for v in out["mask"]]).reshape(T, T)
    ref = combined_mask(T, "bw", 0.7).numpy()
    assert np.array_equal(np.isnan(mask), np.isinf(ref)) and np.allclose(mask[~np.isnan(mask)], ref[np.isfinite(ref)])


@pytest.mark.parametrize("k", [0, 4, 9])
def test_feature_slice_matches_the_trace(page, traces, k):
    """DiSAN's P[:, :, k] from Shen Eq. 15's keys, queries and c alone (what the feature-k control redraws)."""
    _, disan = traces
    got = _js(page, "const b = arg.b; return Array.from(R.disanProbs(b.keys, b.queries, b.T, b.allowed, b.c, arg.k));",
              {"b": _block(trace_view_json(disan), "fw"), "k": k})
    ref = disan.premise.encoder.fw.probs[0, :, :, k].numpy()
    got = np.array(got).reshape(ref.shape)
    assert np.abs(got - ref).max() <= 1e-5
    assert (got[~disan.premise.encoder.fw.allowed[0].numpy()] == 0).all()


def _rendered(page, trace, figure: str, values: dict, context: dict | None = None) -> dict:
    """Figure ``figure`` of the report page of ``trace`` redrawn by its binding at ``values`` (recompute.js render,
    as report.js and chart.js redraw a live figure), before and after: each panel's view."""
    return _js(page, """Disan.Figures.configure(arg.ctx);
        const p = Disan.Sections.page(arg.tv), f = p.data.figures[arg.fig], info = p.data.live[arg.fig];
        const views = (s) => s.panels.map(x => JSON.parse(JSON.stringify(Object.assign({}, x.view, {z: x.view.z &&
          Array.from(x.view.z, r => Array.from(r, v => Number.isFinite(v) ? v : null))}))));
        const before = {title: f.title, views: views(f)}, spec = R.render(info.binding, f, arg.values);
        return {follows: info.binding.follows, before, title: spec.title, views: views(spec), same: spec === f};""",
               {"ctx": context or figure_context(), "tv": trace_view_json(trace), "fig": figure, "values": values})


def test_render_redraws_a_live_figure_with_its_own_function(page, traces):
    """A live figure is its figure function called again at the control's values: z, the shared colour domain and
    the α in the title follow (in place: the host then repaints the cells), a clicked row's bars panel stays."""
    dsa, _ = traces
    enc = dsa.premise.encoder
    out = _rendered(page, dsa, "alpha-mean-premise", {"alpha": 0.3})
    assert out["follows"] == "alpha" and out["same"]
    fw, bw = enc.fw.probs_at(0.3)[0].mean(0).numpy(), enc.bw.probs_at(0.3)[0].mean(0).numpy()
    z = [np.array(v["z"], float) for v in out["views"][:2]]
    assert np.nanmax(np.abs(z[0] - fw)) <= 1e-5 and np.nanmax(np.abs(z[1] - bw)) <= 1e-5
    lim = [[v["zmin"], v["zmax"]] for v in out["views"][:2]]
    both = np.stack([fw, bw])  # one scale over both panels, from their finite values
    assert lim[0] == lim[1] == pytest.approx([both.min(), both.max()], abs=1e-6)
    assert "α = 0.3" in out["title"] and "α = 0.3" not in out["before"]["title"]
    assert out["views"][2] == out["before"]["views"][2]  # the row's bars (the host fills them on a click)


def test_render_pools_the_heads_as_their_figure_was_drawn(page, traces):
    """The heads of a long sentence are redrawn block-averaged as viz_app.reduce.block_mean averages them
    (HEAD_CELLS), the colour domain taken from the pooled cells."""
    dsa, _ = traces
    context = figure_context()  # a copy: figure_context() is cached
    context = {**context, "constants": {**context["constants"], "HEAD_CELLS": 4}}
    out = _rendered(page, dsa, "alpha-heads-fw-premise", {"alpha": 0.3}, context)
    pooled, block = block_mean(dsa.premise.encoder.fw.probs_at(0.3)[0][1].numpy(), 4)
    v = out["views"][1]
    assert block > 1 and np.array(v["z"], float).shape == pooled.shape
    assert np.allclose(np.array(v["z"], float), pooled, atol=1e-5, equal_nan=True)
    every = np.stack([block_mean(h.numpy(), 4)[0] for h in dsa.premise.encoder.fw.probs_at(0.3)[0]])
    assert [v["zmin"], v["zmax"]] == pytest.approx([np.nanmin(every), np.nanmax(every)], abs=1e-6)


def test_render_follows_feature_k_in_disan_s_one_feature_maps(page, traces):
    _, disan = traces
    out = _rendered(page, disan, "feature-premise", {"alpha": None, "feature": 9})
    assert out["follows"] == "feature" and out["title"].endswith("feature k = 9")
    for v, block in zip(out["views"][:2], (disan.premise.encoder.fw, disan.premise.encoder.bw)):
        assert np.abs(np.array(v["z"], float) - block.probs[0, :, :, 9].numpy()).max() <= 1e-5

