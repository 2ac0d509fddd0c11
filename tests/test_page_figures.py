"""The page's figures against the trace: every number a figure draws is the trace's (within 1e-6; DiSAN's
per-feature P within the report's uint16 quantisation, 7.6e-6), rows attend and columns are attended, and the
axes name the tokens. The figures are built where every surface builds them, by ``Sections.page``
(viz_app/browser/sections.js) in Node, from a report file's own packed trace view; the same definitions give
the same figures for the report, the notebook view (its compact subset) and the static site's trace view.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import disan
from tests.conftest import make_tiny
from tests.page_js import node_jobs, report_page
from viz_app.draw import report
from viz_app.draw.site_view import trace_view_json

ROOT = Path(__file__).resolve().parents[1]
EXACT = 1e-6
QUANTISED = 1 / 65535 / 2 + 1e-7


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64)


def _z(view: dict) -> np.ndarray:
    """A heatmap panel's view's z (figure spec, figure_spec.js; JSON carries NaN as null)."""
    return np.asarray([[np.nan if v is None else v for v in row] for row in view["z"]], np.float64)


def heat_panels(fig: dict) -> list[np.ndarray]:
    """The heatmap panels of a figure spec, in panel order."""
    return [_z(p["view"]) for p in fig["panels"] if p["kind"] == "heatmap"]


def bars(fig: dict) -> list[np.ndarray]:
    return [np.asarray([np.nan if v is None else v for v in p["view"]["values"]], np.float64)
            for p in fig["panels"] if p["kind"] == "bars"]


def same_spec(a: dict, b: dict, tol: float, what: str) -> None:
    """Two figure specs draw the same: the same panels and views, numbers within ``tol``."""
    assert {k: v for k, v in a.items() if k != "panels"} == {k: v for k, v in b.items() if k != "panels"}, what
    assert [(p["kind"], p["name"]) for p in a["panels"]] == [(p["kind"], p["name"]) for p in b["panels"]], what
    for p, q in zip(a["panels"], b["panels"]):
        for key in p["view"].keys() | q["view"].keys():
            x, y = p["view"].get(key), q["view"].get(key)
            if key in ("z", "values"):
                got = np.asarray(x, dtype=object).astype(float)
                close(got, np.asarray(y, dtype=object).astype(float), tol, f"{what}.{p['name']}.{key}")
            else:
                assert x == y, f"{what}.{p['name']}.{key}"


def close(got: np.ndarray, want: np.ndarray, tol: float, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, atol=tol, rtol=0, err_msg=what)


def check_tokens_on_axes(fig: dict, tokens, what: str) -> None:
    """Rows and columns are the tokens in order, as text (the canvas draws them; nothing is HTML-escaped)."""
    for p in fig["panels"]:
        if p["kind"] == "heatmap":
            assert p["view"]["rowTokens"] == list(tokens), f"{what}.{p['name']}: rows"
            assert p["view"].get("colTokens", p["view"]["rowTokens"]) == list(tokens), f"{what}.{p['name']}: columns"


def check_sentence(figs: dict, trace, side: str) -> None:
    sent = trace.hypothesis if side == "hypothesis" else trace.premise
    enc, T, tokens = sent.encoder, len(sent.tokens), sent.tokens
    gates = [_np(enc.fw.gate[0, :T]).mean(-1), _np(enc.bw.gate[0, :T]).mean(-1)]  # Shen Eq. 19 / Im Eq. 12
    s2t = _np(enc.s2t_probs[0, :T])  # (T, 2D)
    if trace.arch == "disan":
        mean = figs[f"mean-{side}"]
        fw, bw = heat_panels(mean)
        close(fw, _np(enc.fw.probs_mean[0, :T, :T]), EXACT, "forward P mean")  # Shen Fig. 6
        close(bw, _np(enc.bw.probs_mean[0, :T, :T]), EXACT, "backward P mean")
        allowed = _np(enc.fw.allowed[0, :T, :T]).astype(bool)
        assert np.all(np.nan_to_num(fw)[~allowed] == 0), "a masked forward entry is drawn non-zero"
        check_tokens_on_axes(mean, tokens, "mean")
        feature = heat_panels(figs[f"feature-{side}"])
        close(feature[0], _np(enc.fw.probs[0, :T, :T, 0]), QUANTISED, "forward P[:, :, 0]")  # Shen Eq. 15
        close(feature[1], _np(enc.bw.probs[0, :T, :T, 0]), QUANTISED, "backward P[:, :, 0]")
        for got, want in zip(bars(figs[f"gate-{side}"]), gates):
            close(got, want, EXACT, "fusion gate")
        [weight] = bars(figs[f"s2t-mean-{side}"])
        close(weight, s2t.mean(-1), EXACT, "source2token weight")
        word = _z(figs[f"s2t-{side}"]["panels"][0]["view"]).ravel()
        close(word[~np.isnan(word)], s2t[0], EXACT, "source2token vector of word 0")  # Shen Fig. 8
    else:
        mean = figs[f"alpha-mean-{side}"]
        for got, block, what in zip(heat_panels(mean), (enc.fw, enc.bw), ("forward", "backward")):
            close(got, _np(block.probs[0, :, :T, :T]).mean(0), EXACT, f"{what} head mean")  # Im Eq. 7
        check_tokens_on_axes(mean, tokens, "mean")
        for d, block in (("fw", enc.fw), ("bw", enc.bw)):
            panels = heat_panels(figs[f"alpha-heads-{d}-{side}"])
            heads = _np(block.probs[0, :, :T, :T])
            assert len(panels) == heads.shape[0]
            for h, got in enumerate(panels):
                close(got, heads[h], EXACT, f"{d} head {h}")
        for got, want in zip(bars(figs[f"gate-{side}"]), gates):
            close(got, want, EXACT, "fusion gate")
        deact = bars(figs[f"ffn-deact-{side}"])
        close(deact[0], _np(enc.fw.ffn_deactivation[0, :T]), EXACT, "FFN deactivation")  # Im Fig. 10a
        close(deact[1], _np(enc.bw.ffn_deactivation[0, :T]), EXACT, "FFN deactivation")
        ln = bars(figs[f"ffn-max-{side}"])
        close(ln[0], _np(enc.fw.ln_max[0, :T]), EXACT, "LayerNorm max")  # Im Fig. 10b
        pool = bars(figs[f"pool-{side}"])
        close(pool[0], s2t.mean(-1), EXACT, "pooling weight")  # Im Eqs. 14-16
        close(pool[1], _np(enc.maxpool_share[0, :T]), EXACT, "max-pool share")


def check_page(page: dict, trace) -> None:
    figs = page["data"]["figures"]
    prediction = figs["prediction"]["panels"][0]["view"]
    close(np.asarray(prediction["values"]), np.asarray(list(trace.prediction.values())), EXACT, "prediction")
    assert prediction["labels"] == list(trace.prediction)
    assert prediction["highlight"] == int(np.argmax(list(trace.prediction.values())))
    check_sentence(figs, trace, "premise")
    if trace.hypothesis is not None:
        check_sentence(figs, trace, "hypothesis")


@pytest.fixture(scope="module")
def traces(tiny_glove):
    out = {
        "tiny-disan": make_tiny("disan", tiny_glove).trace("the movie is n't good , the dog is ."),
        "tiny-dsa-pair": make_tiny("dsa", tiny_glove, pair=True).trace("a man pours the tea .", "the man drinks tea"),
        "disan-masks": disan.load("disan", device="cpu").trace("a <b> & the the", masks=("none", "diag")),
        "dsa-alpha": disan.load("dsa", device="cpu").trace("good movie , bad plot", alpha=0.5),
    }
    for name, text, hyp in (("disan-sst5", "a gorgeous , witty , seductive movie .", None),
                            ("dsa-nli", "A lady stands outside of a Mexican market .", "A woman is outdoors .")):
        if (ROOT / "pretrained" / f"{name}.safetensors").exists():
            out[name] = disan.load(name, device="cpu").trace(text, hyp)
    return out


@pytest.mark.parametrize("name", ["tiny-disan", "tiny-dsa-pair", "disan-masks", "dsa-alpha", "disan-sst5", "dsa-nli"])
def test_report_figures_equal_the_trace(traces, name):
    if name not in traces:
        pytest.skip(f"the bundled model of case {name} is not in pretrained/")
    trace = traces[name]
    check_page(report_page(report.report_html(trace)), trace)


def test_a_wrong_number_is_caught(traces):
    """The check above can fail: one changed cell of the drawn forward map is found."""
    trace = traces["tiny-disan"]
    page = report_page(report.report_html(trace))
    page["data"]["figures"]["mean-premise"]["panels"][0]["view"]["z"][2][1] += 1e-3
    with pytest.raises(AssertionError, match="forward P mean"):
        check_page(page, trace)
    page = report_page(report.report_html(trace))
    z = page["data"]["figures"]["mean-premise"]["panels"][0]["view"]["z"]
    z[:] = [list(row) for row in zip(*z)]  # transposed: columns attending
    with pytest.raises(AssertionError):
        check_page(page, trace)


@pytest.mark.parametrize("name", ["tiny-disan", "tiny-dsa-pair", "dsa-nli"])
def test_report_notebook_and_site_draw_the_same_figures(traces, name):
    """The report file, the notebook view (its compact subset) and the static site's trace view (plain lists, as
    ``disan site`` writes its presets) give the same figures from the same definitions."""
    if name not in traces:
        pytest.skip(f"the bundled model of case {name} is not in pretrained/")
    trace = traces[name]
    full = report_page(report.report_html(trace))["data"]["figures"]
    compact = report_page(report.report_html(trace, compact=True))["data"]["figures"]
    [site] = node_jobs([{"fn": "page", "args": [trace_view_json(trace), {}]}])
    assert "error" not in site, site.get("error")
    assert set(compact) < set(full) and {"prediction"} <= set(compact)
    assert list(site["data"]["figures"]) == list(full)
    for fid, fig in compact.items():
        assert fig == full[fid], fid
    for fid, fig in full.items():
        same_spec(fig, site["data"]["figures"][fid], QUANTISED if fid.startswith("feature-") else EXACT, fid)


def _app_view(trace) -> tuple[dict, str]:
    """The packed trace view the app sends its charts (``loaders.page_view``: numpy records, no per-feature P)."""
    import base64
    import json

    from viz_app.draw.records import trace_view
    from viz_app.draw.site_view import packed_records_view

    view, arrays = packed_records_view(trace_view(trace))
    return json.loads(json.dumps(view)), base64.b64encode(arrays).decode("ascii")


@pytest.mark.parametrize("name", ["tiny-disan", "tiny-dsa-pair", "dsa-alpha"])
def test_the_app_draws_the_reports_figures(traces, name):
    """The app's charts (``Sections.draw`` on the view ``chart.draw_figure`` sends) equal the report's
    figures of the same trace, and so the trace; every figure of the page but the per-feature ones (their P
    travels only to the views that reduce over features)."""
    from tests.page_js import page_figures

    trace = traces[name]
    full = report_page(report.report_html(trace))["data"]["figures"]
    ids = [fid for fid in full if not fid.startswith("feature-")]
    built = page_figures([([_app_view(trace)], fid, {}, "normal") for fid in ids])
    for fid, b in zip(ids, built):
        same_spec(b["figure"], full[fid], EXACT, fid)


def test_one_figure_reports_hold_that_figure_alone(traces):
    """The app's per-figure HTML download: the report of one figure of the page, or of a defined figure at its
    parameters, holds that figure and nothing else, still equal to the trace."""
    trace = traces["tiny-disan"]
    one = report_page(report.report_html(trace, only="mean-premise"))
    assert list(one["data"]["figures"]) == ["mean-premise"]
    full = report_page(report.report_html(trace))["data"]["figures"]
    assert one["data"]["figures"]["mean-premise"] == full["mean-premise"]
    row = report_page(report.report_html(trace, only="disan-row",
                                         params={"side": "premise", "reduction": "mean", "feature": 0, "token": 2}))
    [fig] = row["data"]["figures"].values()
    T = len(trace.premise.tokens)
    want = _np(trace.premise.encoder.fw.probs[0, :T, :T].mean(-1))[2]
    close(bars(fig)[0], want, EXACT, "row 2 of the forward mean")


@pytest.mark.parametrize("pair,alpha", [(True, None), (False, 0.5)])
@pytest.mark.parametrize("kind", ["none", "diag"])
def test_the_page_derives_a_dsa_under_other_masks_from_its_scores(tiny_glove, pair, alpha, kind):
    """Compare follows typing (issue 27): the page draws panel B (other direction masks, same weights) from the
    typed trace view's pre-mask scores (recompute.js remask); it equals the model's own trace under those masks."""
    model = make_tiny("dsa", tiny_glove, pair=pair)
    text, hyp = "a man pours the tea .", ("the man drinks tea" if pair else None)
    [got] = node_jobs([{"fn": "remask", "args": [_app_view(model.trace(text, hyp, alpha=alpha)), kind]}])
    other = model.trace(text, hyp, alpha=alpha, masks=(kind, kind))
    for side in ("premise", "hypothesis"):
        want = getattr(other, side)
        if want is None:
            assert got[side] is None
            continue
        T = len(want.tokens)
        assert got[side]["masks"] == [kind, kind]
        for d in ("fw", "bw"):
            expected = getattr(want.encoder, d).probs[0].mean(0).numpy()  # (T, T): Im Fig. 7's mean over heads
            np.testing.assert_allclose(np.array(got[side][d]).reshape(T, T), expected, atol=2e-6)
            if kind == "none":
                assert (expected > 0).all()  # the masks did change: every key is allowed, the diagonal too


@pytest.mark.parametrize("kind", ["none", "diag"])
def test_the_page_derives_disan_under_other_masks_from_its_logits(tiny_glove, kind):
    """DiSAN's panel B: Shen Eq. 15's keys and queries (fields of every trace view, docs/trace-view.md: the
    in-page model's outputs fw_keys / fw_queries, Python's from the trace) give every cell's logit before the
    mask; the page's mean over features under other masks equals the model's own trace under them. A view
    without them cannot."""
    model = make_tiny("disan", tiny_glove, pair=True)
    text, hyp = "a man pours the tea .", "the man drinks tea"
    trace = model.trace(text, hyp)
    stripped = {side: {d: {"keys": None} for d in ("fw", "bw")} for side in ("premise", "hypothesis")}
    got, without = node_jobs([{"fn": "remask", "args": [_app_view(trace), kind]},
                              {"fn": "remask", "args": [_app_view(trace), kind, stripped]}])
    assert without is None
    other = model.trace(text, hyp, masks=(kind, kind))
    for side in ("premise", "hypothesis"):
        want = getattr(other, side)
        T = len(want.tokens)
        assert got[side]["masks"] == [kind, kind]
        for d in ("fw", "bw"):
            expected = getattr(want.encoder, d).probs_mean[0].numpy()  # (T, T)
            np.testing.assert_allclose(np.array(got[side][d]).reshape(T, T), expected, atol=2e-6)
            assert (np.diag(expected) > 0).all() == (kind == "none")  # the masks did change the diagonal


def test_the_page_computes_disans_per_feature_p_from_its_logits_parts(tiny_glove):
    """No trace view holds a (T, T, D) tensor, only Eq. 15's keys, queries and c (docs/trace-view.md; the page's
    per-feature P is computed from them, recompute.js perFeature): it equals the trace's P, masked cells exactly
    0, and the figures of one feature k, the feature entropy and the max over features draw from a view that
    carries nothing else of P. A view without them names what it lacks."""
    model = make_tiny("disan", tiny_glove, pair=True)
    trace = model.trace("a man pours the tea .", "the man drinks tea")
    stripped = {side: {d: {"keys": None} for d in ("fw", "bw")} for side in ("premise", "hypothesis")}
    figures = [["feature-premise", {}], ["disan-pair", {"side": "hypothesis", "reduction": "entropy"}]]
    got, without, most = node_jobs([
        {"fn": "perFeature", "args": [_app_view(trace), {}, figures]},
        {"fn": "perFeature", "args": [_app_view(trace), stripped, figures[:1]]},
        {"fn": "figure", "args": [[_app_view(trace)], "disan-pair", {"side": "premise", "reduction": "max"}, "normal"]}])
    assert "error" in without and "keys, queries and c are needed for one feature k" in without["error"]
    assert "error" not in got, got.get("error")
    for side in ("premise", "hypothesis"):
        sent = getattr(trace, side)
        T, D = len(sent.tokens), model.cfg.d_h
        for d in ("fw", "bw"):
            want = getattr(sent.encoder, d).probs[0].numpy()  # (T, T, D)
            mine = np.array(got[side][d]).reshape(T, T, D)
            np.testing.assert_allclose(mine, want, atol=1e-6)
            assert np.array_equal(mine == 0, ~getattr(sent.encoder, d).allowed[0].numpy()[..., None] | (want == 0))
    fw = heat_panels(got["figures"]["feature-premise"])[0]
    np.testing.assert_allclose(fw, trace.premise.encoder.fw.probs[0, :, :, 0].numpy(), atol=1e-6)
    from viz_app.draw.reduce import feature_entropy

    heatmaps = heat_panels(got["figures"]["disan-pair"])  # and its bars panel, which a clicked row fills
    for drawn, block in zip(heatmaps, (trace.hypothesis.encoder.fw, trace.hypothesis.encoder.bw), strict=True):
        np.testing.assert_allclose(drawn, feature_entropy(block.probs[0].numpy()), atol=1e-5)
    for drawn, block in zip(heat_panels(most["figure"]), (trace.premise.encoder.fw, trace.premise.encoder.bw),
                            strict=True):
        want = np.where(block.allowed[0].numpy(), block.probs_max[0].numpy(), np.nan)  # Shen Eq. 15, max over k
        np.testing.assert_allclose(drawn[np.isfinite(want)], want[np.isfinite(want)], atol=1e-6)


def test_the_word_in_two_contexts_draws_its_difference_on_a_diverging_scale(tiny_glove):
    """Shen Fig. 8's comparison (the Source2token view's "'glass' in two contexts"): the two vectors on one
    sequential scale, their difference, which runs below 0, on the diverging scale about 0 (issue 58 item 7: it
    was drawn on the probability scale, a negative "probability")."""
    model = make_tiny("disan", tiny_glove)
    views = [trace_view_json(model.trace(s)) for s in ("the glass is good .", "a man do tea glass")]
    [drawn, plain] = node_jobs([
        {"fn": "S.draw", "args": [views, "s2t-pair", {"word": "glass", "titles": ["A", "B"], "scale": "probability"}]},
        {"fn": "S.draw", "args": [views, "s2t-pair", {"word": "glass", "titles": ["A", "B"], "scale": "probability",
                                                      "difference": False}]},
    ])
    a, b, diff = (p["view"] for p in drawn["figure"]["panels"])
    va, vb, vd = (_z(t)[np.isfinite(_z(t))] for t in (a, b, diff))
    close(vd, va - vb, EXACT, "A − B")
    assert vd.min() < 0 < vd.max()
    assert a["scale"] == b["scale"] == "sequential" and diff["scale"] == "diverging"  # centred on 0 (palettes.mjs)
    assert diff["zmin"] == -diff["zmax"] and diff["zmax"] == pytest.approx(np.abs(vd).max(), abs=EXACT)
    assert a["zmin"] == pytest.approx(min(va.min(), vb.min()), abs=EXACT) and a["zmin"] >= 0
    views = [p["view"] for p in plain["figure"]["panels"]]
    assert len(views) == 2 and {v["scale"] for v in views} == {"sequential"}
