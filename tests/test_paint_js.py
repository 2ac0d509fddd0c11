"""viz_app/browser/paint.js: repainting a drawn chart in place gives what Plotly itself would draw.

A blank page holds plotly.js and the report's bundle (``bundles.text("report")``), draws a figure the page's builders
made (``viz_app/browser/figures.js``, bound by ``sections.js``'s ``gridBinding``, both run in Node) with Plotly,
moves α (or feature k) with ``Disan.Paint.repaint`` and compares the result with a full ``Plotly.react`` of the
same figure: every cell's colour, every cell label, the values hover reads, the titles, and the bar heights.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import plotly
import pytest

from tests.conftest import make_tiny, offline_page
from tests.page_js import node_jobs
from viz_app.draw import bundles, live

pytestmark = pytest.mark.browser

PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"

#: Draw with Plotly, repaint to `values` with the limits Plotly drew, snapshot; then let Plotly draw the
#: same figure and snapshot again. Snapshots: per heatmap trace its cells' RGBA, labels, hover z; texts.
COMPARE = """async ({spec, payload, binding, values, keepRange}) => {
  const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
  const fig = JSON.parse(spec);
  await Plotly.newPlot(gd, fig.data, fig.layout);
  const live = Disan.Recompute.prepare(payload);
  Disan.Recompute.render(live, binding, fig, values);
  for (const p of binding.panels) { fig.data[p.trace].zmin = gd._fullData[p.trace].zmin; fig.data[p.trace].zmax = gd._fullData[p.trace].zmax; }
  if (keepRange) { fig.layout.yaxis.range = gd._fullLayout.yaxis.range.slice(); fig.layout.yaxis.autorange = false; }
  const snap = async () => {
    const out = {cells: {}, labels: {}, hover: {}, bars: {}, title: (gd.querySelector('text.gtitle') || {}).textContent};
    for (const node of gd.querySelectorAll('g.hm')) {
      const t = node.__data__[0].trace.index, img = new Image();
      img.src = node.querySelector('image').getAttribute('href') || node.querySelector('image').getAttributeNS('http://www.w3.org/1999/xlink', 'href');
      await img.decode();
      const z = gd.calcdata[t][0].z, rows = z.length, cols = z[0].length;
      const c = document.createElement('canvas'); c.width = cols; c.height = rows;
      const ctx = c.getContext('2d'); ctx.imageSmoothingEnabled = false; ctx.drawImage(img, 0, 0, cols, rows);
      out.cells[t] = Array.from(ctx.getImageData(0, 0, cols, rows).data);
      out.labels[t] = [...node.querySelectorAll('text')].map(e => [e.textContent, getComputedStyle(e).fill]);
      out.hover[t] = z;
    }
    for (const node of gd.querySelectorAll('g.trace.bars')) {
      out.bars[node.__data__[0].trace.index] = [...node.querySelectorAll('g.point path')].map(p => p.getAttribute('d'));
    }
    return out;
  };
  if (!Disan.Paint.repaint(gd, fig, binding)) return null;
  const fast = await snap();
  await Plotly.react(gd, fig.data, fig.layout);
  return {fast, full: await snap()};
}"""


@pytest.fixture(scope="module")
def page():
    with offline_page({"path": str(PLOTLY_JS)}, {"content": bundles.text("report")}) as pg:
        yield pg


def built(*jobs: tuple) -> list:
    """Each ``("F.name" | "S.name", *args)`` run in Node (figures.js / sections.js)."""
    out = node_jobs([{"fn": fn, "args": list(args)} for fn, *args in jobs])
    for job, got in zip(jobs, out):
        assert not (isinstance(got, dict) and "error" in got), f"{job[0]}: {got['error']}"
    return out


def grid(maps, titles, tokens, exprs, replacements, opts=None, bind=None) -> tuple[str, dict]:
    """A figures.js heatmapGrid of ``maps`` (as JSON) and its sections.js gridBinding."""
    [fig] = built(("F.heatmapGrid", [np.asarray(m).tolist() for m in maps], titles, list(tokens), opts or {}))
    [binding] = built(("S.gridBinding", fig, exprs, replacements, bind or {}))
    return json.dumps(fig), binding


def _numbers(path: str) -> list[float]:
    return [float(x) for x in path.replace("M", " ").replace("V", " ").replace("H", " ").replace("Z", " ")
            .replace(",", " ").split()]


def _same_drawing(result) -> None:
    assert result is not None, "repaint refused a figure it should handle"
    fast, full = result["fast"], result["full"]
    assert fast["title"] == full["title"]
    for t, cells in full["cells"].items():
        assert np.abs(np.array(fast["cells"][t]) - np.array(cells)).max() <= 1  # RGBA of every cell
        assert fast["labels"][t] == full["labels"][t]  # cell labels and their contrast colour
        assert np.allclose(np.array(fast["hover"][t], float), np.array(full["hover"][t], float), equal_nan=True)
    for t, paths in full["bars"].items():
        assert len(fast["bars"][t]) == len(paths)
        for a, b in zip(fast["bars"][t], paths):
            assert np.allclose(_numbers(a), _numbers(b), atol=0.5)


def test_alpha_repaint_equals_plotly(page, tiny_glove):
    trace = make_tiny("dsa", tiny_glove).trace("the movie is good . the dog is bad")
    enc = trace.premise.encoder
    spec, binding = grid([enc.fw.probs_at(1.5)[0].mean(0).numpy(), enc.bw.probs_at(1.5)[0].mean(0).numpy()],
                         ["fw", "bw"], trace.tokens, [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}],
                         {"α = 1.5": "α = {alpha}"}, {"title": "maps at α = 1.5"})  # T ≤ 12: cell labels drawn
    result = page.evaluate(COMPARE, {"spec": spec, "payload": live.distance_payload(trace.premise),
                                     "binding": binding, "values": {"alpha": 0.2}, "keepRange": False})
    _same_drawing(result)
    assert result["fast"]["title"] == "maps at α = 0.2"
    assert any(label != "0.00" for label, _ in result["fast"]["labels"]["0"])


def test_heads_and_masks_repaint_equal_plotly(page, tiny_glove):
    trace = make_tiny("dsa", tiny_glove).trace("the movie is good . the dog is bad")
    stack = trace.premise.encoder.bw.probs_at(1.5)[0].numpy()
    [fig] = built(("F.smallMultiples", stack.tolist(), list(trace.tokens), ["h1", "h2"],
                   {"title": "heads", "maxCells": 4}))  # pooled 3×3
    assert len(fig["data"][0]["z"]) == 3
    [binding] = built(("S.gridBinding", fig, [{"op": "head", "dir": "bw", "head": h} for h in range(2)], {},
                       {"pool": 4}))
    payload = live.distance_payload(trace.premise)
    _same_drawing(page.evaluate(COMPARE, {"spec": json.dumps(fig), "payload": payload, "binding": binding,
                                          "values": {"alpha": 4.0}, "keepRange": False}))
    T = len(trace.tokens)
    fw = np.where(np.tri(T, k=-1, dtype=bool), -1.5 * np.abs(np.subtract.outer(range(T), range(T))), -np.inf)
    [masks] = built(("F.maskPanels", [["fw", [[v if np.isfinite(v) else None for v in row] for row in fw.tolist()]]],
                     list(trace.tokens)))  # null: a −∞ cell
    [bind] = built(("S.gridBinding", masks, [{"op": "mask", "dir": "fw"}], {}, {"zmax": 0.0}))
    _same_drawing(page.evaluate(COMPARE, {"spec": json.dumps(masks), "payload": live.mask_payload(trace.tokens),
                                          "binding": bind, "values": {"alpha": 0.5}, "keepRange": False}))


def test_feature_repaint_with_click_layers_and_bars_equals_plotly(page, tiny_glove):
    trace = make_tiny("disan", tiny_glove).trace("the movie is good . a dog")
    enc = trace.premise.encoder
    payload = live.feature_payload(trace.premise)
    fw, bw = enc.fw.probs[0, :, :, 2].numpy(), enc.bw.probs[0, :, :, 2].numpy()
    exprs = [{"op": "feature", "dir": "fw"}, {"op": "feature", "dir": "bw"}]
    spec, binding = grid([fw, bw], ["fw", "bw"], trace.tokens, exprs, {"P[k=2]": "P[k={feature}]"},
                         {"valueName": "P[k=2]", "clickable": True}, {"hover": True})
    assert [p["hover_trace"] for p in binding["panels"]] == [1, 3]
    _same_drawing(page.evaluate(COMPARE, {"spec": spec, "payload": payload, "binding": binding,
                                          "values": {"feature": 7}, "keepRange": False}))
    [bars] = built(("F.barChart", [["forward", fw[3].tolist()], ["backward", bw[3].tolist()]], list(trace.tokens),
                    {"yTitle": "P[k=2]"}))
    [texts] = built(("S.templates", bars, {"P[k=2]": "P[k={feature}]"}))
    rows = {"panels": [], "scales": [], "texts": texts, "rows": [{"trace": k, "z": z, "row": 3} for k, z in enumerate(exprs)]}
    _same_drawing(page.evaluate(COMPARE, {"spec": json.dumps(bars), "payload": payload, "binding": rows,
                                          "values": {"feature": 7}, "keepRange": True}))


def test_repaint_refuses_what_it_cannot_draw(page, tiny_glove):
    trace = make_tiny("dsa", tiny_glove).trace("the movie is good")
    [fig] = built(("F.heatmapGrid", [np.eye(4).tolist()], ["p"], list(trace.tokens), {"title": "t"}))
    binding = {"panels": [{"trace": 0, "z": {"op": "mean", "dir": "fw"}}], "scales": [], "rows": [],
               "texts": {"layout.xaxis.tickfont.family": "x {alpha}"}}  # no such drawn text
    assert page.evaluate(COMPARE, {"spec": json.dumps(fig), "payload": live.distance_payload(trace.premise),
                                   "binding": binding, "values": {"alpha": 1.0}, "keepRange": False}) is None


#: Draws a figure at `width` through Disan.Paint.fitCellText, as report.js and chart.js draw; returns the cell
#: labels drawn (per heatmap trace) and whether any two of them overlap on screen.
FIT = """async ({spec, width}) => {
  const gd = document.createElement('div'); gd.style.width = width + 'px'; document.body.appendChild(gd);
  const fig = JSON.parse(spec);
  await Plotly.newPlot(gd, Disan.Paint.fitCellText(fig.data, fig.layout, gd.clientWidth), fig.layout);
  const boxes = [...gd.querySelectorAll('g.hm text')].filter(e => e.textContent).map(e => e.getBoundingClientRect());
  let overlap = false;
  for (let i = 0; i < boxes.length && !overlap; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) { overlap = true; break; }
    }
  }
  gd.remove();
  return {labels: boxes.length, overlap};
}"""


@pytest.mark.parametrize("T,panels,width", [(4, 1, 1300), (4, 2, 1300), (8, 2, 700), (12, 2, 700), (12, 1, 500),
                                            (12, 2, 1300)])
def test_cell_numbers_are_drawn_only_where_they_fit_and_never_overlap(page, T, panels, width):
    rng = np.random.default_rng(T)
    mats = [rng.random((T, T)) for _ in range(panels)]
    tokens = [f"w{i}" for i in range(T)]
    [fig] = built(("F.heatmapGrid", [m.tolist() for m in mats], [f"p{k}" for k in range(panels)], tokens, {"title": "fit"}))
    drawn = page.evaluate(FIT, {"spec": json.dumps(fig), "width": width})
    assert not drawn["overlap"], f"cell numbers overlap at T={T}, {panels} panels, {width}px"
    if (T, panels, width) == (4, 1, 1300):
        assert drawn["labels"] == T * T  # where they fit, every cell keeps its number
    if (T, panels, width) == (12, 2, 700):
        assert drawn["labels"] == 0  # the app's Explore column at T = 12: no numbers (they ran together)


def test_fit_cell_text_leaves_a_figure_that_fits_untouched(page):
    [fig] = built(("F.heatmapGrid", [np.eye(3).tolist()], ["one"], ["a", "b", "c"], {"title": "small"}))
    same = page.evaluate("(spec) => { const f = JSON.parse(spec); return Disan.Paint.fitCellText(f.data, f.layout, 1200) === f.data; }",
                         json.dumps(fig))
    assert same is True


#: Draw bars `a` with Plotly, Disan.Paint.swap to bars `b` (a new sentence while typing), read every bar's
#: rectangle on screen; then unswap and let Plotly draw `b` with the value axis it had drawn, and read them again.
SWAP_BARS = """async ({a, b}) => {
  const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
  const A = JSON.parse(a), B = JSON.parse(b);
  await Plotly.newPlot(gd, A.data, A.layout);
  const rects = () => {
    const out = [];
    for (const p of gd.querySelectorAll('g.trace.bars g.point path')) {
      const r = p.getBoundingClientRect();  // Plotly's bars, where shown
      if (getComputedStyle(p.closest('g.trace.bars')).visibility !== 'hidden' && r.width) out.push([r.left, r.right, r.top, r.bottom]);
    }
    for (const p of gd.querySelectorAll('g.disan-swap path')) {  // a swap's bars: one sub-path per bar
      const svg = p.ownerSVGElement.getBoundingClientRect();
      for (const d of p.getAttribute('d').split('Z').filter(s => s.trim())) {
        const v = d.replace(/[MVH]/g, ' ').replace(/,/g, ' ').trim().split(/\\s+/).map(Number);  // M x0,base V top H x1 V base
        out.push([svg.left + v[0], svg.left + v[3], svg.top + Math.min(v[1], v[2]), svg.top + Math.max(v[1], v[2])]);
      }
    }
    return out.map(r => r.map(x => Math.round(x * 10) / 10)).sort((p, q) => p[0] - q[0] || p[2] - q[2]);
  };
  const ok = Disan.Paint.swap(gd, B);
  const ticks = [...gd.querySelectorAll('g.xtick text, g.disan-swap text')]
    .filter(t => getComputedStyle(t).visibility !== 'hidden').map(t => t.textContent);
  const fast = rects();
  Disan.Paint.unswap(gd);
  B.layout.yaxis = Object.assign({}, B.layout.yaxis, {range: gd._fullLayout.yaxis.range.slice(), autorange: false});
  await Plotly.react(gd, B.data, B.layout);
  const full = rects();
  gd.remove();
  return {ok, fast, full, ticks};
}"""


@pytest.mark.parametrize("T_b", [6, 9])
def test_swap_paints_bars_where_plotly_draws_them(page, T_b):
    """A new sentence's bars (FFN and pooling's charts) painted without a Plotly layout sit where Plotly's own
    bars at the same value axis sit: the same length rewrites Plotly's bars, another length draws over them."""
    rng = np.random.default_rng(T_b)
    words_a, words_b = [f"a{i}" for i in range(6)], [f"b{i}" for i in range(T_b)]
    a = [rng.random(6), rng.random(6)]
    top = max(x.max() for x in a)  # b stays inside the value axis Plotly drew for a (a swap keeps that axis)
    b = [rng.random(T_b) * top, rng.random(T_b) * top]
    [fig_a, fig_b] = built(
        ("F.barChart", [["weight", a[0].tolist()], ["share", a[1].tolist()]], words_a, {"yTitle": "v"}),
        ("F.barChart", [["weight", b[0].tolist()], ["share", b[1].tolist()]], words_b, {"yTitle": "v"}))
    got = page.evaluate(SWAP_BARS, {"a": json.dumps(fig_a), "b": json.dumps(fig_b)})
    assert got["ok"] is True
    assert got["ticks"] == words_b  # the new sentence's tokens label the bars
    fast, full = np.array(got["fast"]), np.array(got["full"])
    assert fast.shape == full.shape == (2 * T_b, 4)
    assert np.abs(fast - full).max() <= 1.0  # every bar's left, right, top and bottom within a pixel


#: Draw prediction chart `a` with Plotly, Disan.Paint.swap to `b` (a key's new prediction), read each bar's path,
#: colour, text and the text's place on screen; then let Plotly draw `b` itself and read them again.
SWAP_PREDICTION = """async ({a, b}) => {
  const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
  const A = JSON.parse(a), B = JSON.parse(b);
  await Plotly.newPlot(gd, A.data, A.layout);
  const read = () => [...gd.querySelectorAll('g.trace.bars g.point')].map(g => {
    const p = g.querySelector('path'), t = g.querySelector('text'), r = t.getBoundingClientRect();
    return {d: p.getAttribute('d'), fill: getComputedStyle(p).fill, text: t.textContent, x: r.left + r.width / 2, y: r.top};
  });
  const ok = Disan.Paint.swap(gd, B), fast = read(), hover = gd.calcdata[0].map(d => d.s);
  await Plotly.react(gd, B.data, B.layout);
  const full = read();
  gd.remove();
  return {ok, fast, full, hover};
}"""


def test_swap_paints_the_prediction_chart_as_plotly_draws_it(page):
    """A key's new prediction is painted into the horizontal bars Plotly drew (no Plotly layout per key): each
    bar's length, the predicted label's accent colour, the probability text and where it sits equal Plotly's own
    drawing of the new prediction, and hover reads the new probabilities. Two keys in a row (the text's place
    moves from where the last key put it). A chart with other labels is refused."""
    labels = ["very negative", "negative", "neutral", "positive", "very positive"]
    preds = [[0.1, 0.2, 0.4, 0.2, 0.1], [0.7, 0.05, 0.05, 0.1, 0.1], [0.02, 0.03, 0.05, 0.1, 0.8]]
    figs = built(*[("F.predictionChart", [[lab, p] for lab, p in zip(labels, ps)], {}) for ps in preds])
    for a, b, ps in ((figs[0], figs[1], preds[1]), (figs[1], figs[2], preds[2])):
        got = page.evaluate(SWAP_PREDICTION, {"a": json.dumps(a), "b": json.dumps(b)})
        assert got["ok"] is True
        assert np.allclose(got["hover"], ps)
        for fast, full in zip(got["fast"], got["full"]):
            assert np.allclose(_numbers(fast["d"]), _numbers(full["d"]), atol=0.5)
            assert (fast["fill"], fast["text"]) == (full["fill"], full["text"])
            assert abs(fast["x"] - full["x"]) <= 1.0 and abs(fast["y"] - full["y"]) <= 1.0
    # a second swap onto a chart already swapped: its texts move from where the first swap left them
    twice = page.evaluate("""async ({a, b, c}) => {
      const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
      const [A, B, C] = [a, b, c].map(JSON.parse);
      await Plotly.newPlot(gd, A.data, A.layout);
      Disan.Paint.swap(gd, B); Disan.Paint.swap(gd, C);
      const place = () => [...gd.querySelectorAll('g.trace.bars text')].map(t => Math.round(t.getBoundingClientRect().left));
      const fast = place();
      await Plotly.react(gd, C.data, C.layout);
      const full = place(); gd.remove();
      return {fast, full};
    }""", {"a": json.dumps(figs[0]), "b": json.dumps(figs[1]), "c": json.dumps(figs[2])})
    assert np.abs(np.array(twice["fast"]) - np.array(twice["full"])).max() <= 1
    [other] = built(("F.predictionChart", [["a", 0.5], ["b", 0.5]], {}))
    refused = page.evaluate("""async ({a, b}) => {
      const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
      const A = JSON.parse(a); await Plotly.newPlot(gd, A.data, A.layout);
      const ok = Disan.Paint.swap(gd, JSON.parse(b)); gd.remove(); return ok; }""",
                            {"a": json.dumps(figs[0]), "b": json.dumps(other)})
    assert refused is False


#: Draw a figure as Plotly lays it out itself (automargin on its axes), then as report.js and chart.js draw it,
#: through Disan.Paint.fitMargins: the margins each got, how often Plotly laid the fitted one out again to fit
#: it, and the tick and colour-bar labels of the fitted one that reach outside its SVG.
MARGINS = """async ({spec, width}) => {
  const draw = async (layout) => {
    const gd = document.createElement('div'); gd.style.width = width + 'px'; document.body.appendChild(gd);
    const fig = JSON.parse(spec);
    await Plotly.newPlot(gd, fig.data, layout ? layout(fig) : fig.layout);
    return gd;
  };
  const own = await draw(null), s = own._fullLayout._size, plotly = {l: s.l, r: s.r, t: s.t, b: s.b};
  own.remove();
  const gd = await draw(fig => Disan.Paint.fitMargins(fig.data, fig.layout, width));
  const f = gd._fullLayout._size, fitted = {l: f.l, r: f.r, t: f.t, b: f.b}, given = gd.layout.margin;
  const svg = gd.querySelector('svg.main-svg').getBoundingClientRect();
  const outside = [...gd.querySelectorAll('g.xtick text, g.ytick text, g.cbaxis text, g.colorbar text, g.trace.bars text')]
    .filter(e => e.textContent).map(e => [e.textContent, e.getBoundingClientRect()])
    .filter(([, r]) => r.left < svg.left - 0.5 || r.right > svg.right + 0.5 || r.top < svg.top - 0.5 || r.bottom > svg.bottom + 0.5)
    .map(([text]) => text);
  const automargin = Object.keys(gd._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k)).map(k => gd._fullLayout[k].automargin);
  const redraws = gd._fullLayout._redrawFromAutoMarginCount || 0;
  gd.remove();
  return {plotly, fitted, given, outside, automargin, redraws};
}"""

LONG_TOKENS = ["extraordinarily", "naïve", "«quoted»", "日本語", "&amp;", "a", "Ünïcödé", "x" * 24]


def _margin_figures() -> list[tuple[str, dict]]:
    rng = np.random.default_rng(0)
    jobs = []
    for T, panels, theme in [(5, 2, "normal"), (12, 2, "normal"), (12, 2, "presentation"), (30, 1, "normal"),
                             (64, 2, "normal")]:
        tokens = [LONG_TOKENS[i % len(LONG_TOKENS)] for i in range(T)]
        mats = [rng.random((T, T)).tolist() for _ in range(panels)]
        jobs.append((f"grid T={T} panels={panels} {theme}",
                     ("F.heatmapGrid", mats, [f"p{k}" for k in range(panels)], tokens, {"title": "t", "theme": theme})))
    for theme in ("normal", "presentation"):
        jobs.append((f"prediction {theme}", ("F.predictionChart", {"very negative": 0.1, "negative": 0.2, "neutral": 0.4,
                                                                   "positive": 0.2, "very positive": 0.1},
                                            {"theme": theme})))
        # a certain prediction (disan-subj's): its bar reaches the axis's end and "1.00" is drawn outside it
        jobs.append((f"certain prediction {theme}", ("F.predictionChart", {"objective": 0.0, "subjective": 1.0},
                                                     {"theme": theme})))
    tokens = LONG_TOKENS * 2
    jobs.append(("bars, two series", ("F.barChart", [["gate", rng.random(len(tokens)).tolist()],
                                                     ["other", (-40 * rng.random(len(tokens))).tolist()]],
                                      tokens, {"yTitle": "share of features", "title": "bars"})))
    jobs.append(("vector grids", ("F.vectorGrids", [rng.random(300).tolist(), rng.random(300).tolist()], ["a", "b"], {})))
    jobs.append(("compare", ("F.compareHeatmaps", rng.random((6, 6)).tolist(), rng.random((6, 6)).tolist(),
                             tokens[:6], {"title": "compare"})))
    figures = built(*[job for _, job in jobs])
    return [(name, fig) for (name, _), fig in zip(jobs, figures)]


@pytest.mark.parametrize("width", [1300, 700])
def test_fitted_margins_hold_every_label_and_plotly_lays_the_figure_out_once(page, width):
    """Disan.Paint.fitMargins gives each figure margins at least those Plotly's automargin finds (so no label is
    cut), at most 40 px more on a side, with automargin off: Plotly draws it once, without moving a margin."""
    for name, fig in _margin_figures():
        got = page.evaluate(MARGINS, {"spec": json.dumps(fig), "width": width})
        assert got["automargin"] and not any(got["automargin"]), f"{name}: automargin left on: {got['automargin']}"
        assert got["redraws"] == 0, f"{name}: Plotly moved a margin and drew again: {got}"
        for side in "lrtb":
            assert got["fitted"][side] == pytest.approx(got["given"][side], abs=0.5), f"{name}: {side} pushed: {got}"
            assert got["fitted"][side] >= got["plotly"][side] - 1, f"{name}: {side} narrower than automargin: {got}"
            assert got["fitted"][side] <= got["plotly"][side] + 40, f"{name}: {side} 40 px wider than needed: {got}"
        assert not got["outside"], f"{name}: labels cut off at the figure's edge: {got['outside']}"


#: Draw heatmap grid `a` with Plotly, paint grid `b` into it (Disan.Paint.swap, then labelCells: a sentence once
#: typing rests) and read its cells, numbers and their places on screen; then let Plotly draw `b` and read again.
SETTLE = """async ({a, b, width}) => {
  const gd = document.createElement('div'); gd.style.width = width + 'px'; document.body.appendChild(gd);
  const A = JSON.parse(a), B = JSON.parse(b);
  const fit = F => ({data: Disan.Paint.fitCellText(F.data, F.layout, width), layout: F.layout});
  await Plotly.newPlot(gd, fit(A).data, A.layout);
  const read = async () => {
    const out = {cells: [], labels: []};
    for (const node of gd.querySelectorAll('g.hm')) {
      const img = new Image(), t = node.__data__[0].trace.index;
      img.src = node.querySelector('image').getAttribute('href') || node.querySelector('image').getAttributeNS('http://www.w3.org/1999/xlink', 'href');
      await img.decode();
      const rows = B.data[t].z.length, cols = B.data[t].z[0].length;
      const c = document.createElement('canvas'); c.width = cols; c.height = rows;
      const ctx = c.getContext('2d'); ctx.imageSmoothingEnabled = false; ctx.drawImage(img, 0, 0, cols, rows);
      out.cells.push(Array.from(ctx.getImageData(0, 0, cols, rows).data));
      out.labels.push([...node.querySelectorAll('text')].map(e => {
        const r = e.getBoundingClientRect();
        return [e.textContent, getComputedStyle(e).fill, r.left + r.width / 2, r.top + r.height / 2];
      }));
    }
    return out;
  };
  const swapped = Disan.Paint.swap(gd, fit(B)), settled = Disan.Paint.settled(gd, fit(B));
  const labelled = Disan.Paint.labelCells(gd, fit(B)), fast = await read();
  Disan.Paint.unswap(gd);
  await Plotly.react(gd, fit(B).data, B.layout);
  const full = await read();
  gd.remove();
  return {swapped, settled, labelled, fast, full};
}"""


@pytest.mark.parametrize("T_a, T_b", [(4, 5), (5, 5), (6, 3)])
def test_a_painted_grid_with_its_cell_numbers_is_what_plotly_draws(page, T_a, T_b):
    """Once typing rests, a figure whose colour limits did not change is left painted (Disan.Paint.settled): its
    cells and the numbers labelCells writes (text, contrast colour, place) equal Plotly's own drawing of it."""
    rng = np.random.default_rng(T_a * 10 + T_b)
    def maps(T):
        return [rng.dirichlet(np.ones(T), size=T).tolist() for _ in range(2)]
    fig_a, fig_b = built(*[("F.heatmapGrid", maps(T), ["fw", "bw"], [f"w{i}" for i in range(T)],
                            {"title": "maps", "zmin": 0, "zmax": 1}) for T in (T_a, T_b)])
    got = page.evaluate(SETTLE, {"a": json.dumps(fig_a), "b": json.dumps(fig_b), "width": 1300})
    assert got["swapped"] and got["settled"] and got["labelled"]
    fast, full = got["fast"], got["full"]
    assert [len(x) for x in full["labels"]] == [T_b * T_b] * 2  # the numbers fit at this width
    for k in range(2):
        assert np.abs(np.array(fast["cells"][k]) - np.array(full["cells"][k])).max() <= 1  # RGBA of every cell
        assert [x[:2] for x in fast["labels"][k]] == [x[:2] for x in full["labels"][k]]  # text and colour
        places = np.array([x[2:] for x in fast["labels"][k]]) - np.array([x[2:] for x in full["labels"][k]])
        assert np.abs(places).max() <= 1.5, places  # each number at its cell's centre, as Plotly puts it


#: Disan.Paint.settled of a chart drawn from `a` for figure `b`.
SETTLED = """({a, b}) => {
  const gd = document.createElement('div'); gd.style.width = '900px'; document.body.appendChild(gd);
  const A = JSON.parse(a), B = JSON.parse(b);
  return Plotly.newPlot(gd, A.data, A.layout).then(() => { const r = Disan.Paint.settled(gd, B); gd.remove(); return r; });
}"""


def test_a_figure_is_left_painted_only_where_the_painting_shows_what_plotly_would(page):
    """New colour limits (the colour bar would change), a title with markup, a bar chart whose value axis follows
    its values or another kind of figure: Plotly must draw it."""
    eye, half = np.eye(3).tolist(), (np.eye(3) / 2).tolist()
    words = ["a", "b", "c"]
    same, moved, auto, fixed, marked = built(
        ("F.heatmapGrid", [eye], ["one"], words, {"title": "t"}),
        ("F.heatmapGrid", [half], ["one"], words, {"title": "t"}),
        ("F.barChart", [["w", [0.1, 0.2, 0.3]]], words, {"yTitle": "v"}),
        ("F.barChart", [["w", [0.1, 0.2, 0.3]]], words, {"yTitle": "v", "yRange": [0, 1]}),
        ("F.heatmapGrid", [eye], ["one"], words, {"title": "t"}))
    marked["layout"]["title"]["text"] = "two<br>lines"  # Plotly breaks the line; a painting would not
    def settled(a, b):
        return page.evaluate(SETTLED, {"a": json.dumps(a), "b": json.dumps(b)})
    assert settled(same, same) is True
    assert settled(same, moved) is False  # limits [0, 1] drawn, [0, 0.5] wanted
    assert settled(fixed, fixed) is True and settled(auto, auto) is False
    assert settled(marked, marked) is False


def test_a_certain_prediction_painted_into_an_uncertain_ones_layout_is_not_cut(page):
    """Explore on disan-subj (issue 58 item 7): the prediction chart drawn for an uncertain sentence (0.40 / 0.60)
    through fitMargins, then a key's certain prediction painted into it (Paint.swap; a settled painting is never
    laid out again): its "1.00", outside the bar at the axis's end, lies inside the figure, as for any sentence."""
    [a, b] = built(("F.predictionChart", {"objective": 0.4, "subjective": 0.6}, {}),
                   ("F.predictionChart", {"objective": 0.0, "subjective": 1.0}, {}))
    got = page.evaluate("""async ({a, b}) => {
      const gd = document.createElement('div'); gd.style.width = '700px'; document.body.appendChild(gd);
      const A = JSON.parse(a), B = JSON.parse(b);
      await Plotly.newPlot(gd, A.data, Disan.Paint.fitMargins(A.data, A.layout, 700));
      const ok = Disan.Paint.swap(gd, B), svg = gd.querySelector('svg.main-svg').getBoundingClientRect();
      const texts = [...gd.querySelectorAll('g.trace.bars text')].map(e => [e.textContent, e.getBoundingClientRect().right]);
      gd.remove();
      return {ok, texts, right: svg.right};
    }""", {"a": json.dumps(a), "b": json.dumps(b)})
    assert got["ok"] is True and "1.00" in [t for t, _ in got["texts"]]
    assert all(right <= got["right"] + 0.5 for _, right in got["texts"]), got
