"""viz_app/browser/pair_view.js in Node (issue 30, the minimal-pair view): the aligned maps and series against a
numpy reference on seeded random cases (B − A equals the element-wise difference on the aligned cells, the
inserted and deleted rows and columns are kept and marked, and every other cell is exactly null), and the page
of two trace views of tiny random-weight models, whose figures hold the trace views' own numbers on the aligned
tokens. The page drawn in Chromium from the models run in the page: tests/test_pair_site.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.page_js import node_module
from tests.test_pair_js import reference_script

#: Configures the figures, answers each job {fn, args}; "page" returns the page without its
#: lazily built section objects and its inputs (the figures are built as JSON reads them); "again" draws page 1 of
#: its args (every figure built, as a host draws them), then page 2 with {previous: page 1}, and returns page 2 and
#: the figures page 2 took from page 1 as the same objects; "chain" draws page 1, builds page 2 on it without
#: drawing it, page 3 on page 2, and returns the figures page 3 holds as page 1's own objects.
RUNNER = r"""
const input = JSON.parse(fs.readFileSync(0, "utf8"));
Figures.configure(input.context);
const run = (job) => {
  try {
    if (job.fn === "page") { const p = PairView.page(...job.args); delete p.sections; delete p.inputs; return p; }
    if (job.fn === "again") {
      const [first, second] = job.args, p1 = PairView.page(...first);
      for (const id of Object.keys(p1.data.figures)) void p1.data.figures[id];
      const p2 = PairView.page(second[0], second[1], Object.assign({ previous: p1 }, second[2] || {}));
      const kept = Object.keys(p2.data.figures).filter(id => p2.data.figures[id] === p1.data.figures[id]);
      delete p2.sections; delete p2.inputs;
      return { kept, page: p2 };
    }
    if (job.fn === "chain") {  // page 2 never built (keys typed faster than the figures below were drawn)
      const [first, second, third] = job.args, p1 = PairView.page(...first);
      for (const id of Object.keys(p1.data.figures)) void p1.data.figures[id];
      const p2 = PairView.page(second[0], second[1], { previous: p1 });
      const p3 = PairView.page(third[0], third[1], { previous: p2 });
      return Object.keys(p3.data.figures).filter(id => p3.data.figures[id] === p1.data.figures[id]);
    }
    if (job.fn === "align") return Pair.align(...job.args);
    return PairView[job.fn](...job.args);
  } catch (e) { return { error: String(e && e.message || e) }; }
};
process.stdout.write(JSON.stringify(input.jobs.map(run), (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v));
"""


def jobs(items: list[dict]) -> list:
    from viz_app.draw.site_view import figure_context

    payload = json.dumps({"context": figure_context(), "jobs": items}, allow_nan=False)
    proc = node_module(RUNNER, stdin=payload)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def grid_reference(a: np.ndarray, b: np.ndarray, ops: list[dict]) -> tuple:
    """A and B on the aligned grid and B − A, by index arithmetic in numpy (NaN where a side has no token)."""
    ia = np.array([np.nan if o["a"] is None else o["a"] for o in ops])
    ib = np.array([np.nan if o["b"] is None else o["b"] for o in ops])

    def put(m, idx):
        out = np.full((len(ops), len(ops)), np.nan)
        ok = ~np.isnan(idx)
        rows = idx[ok].astype(int)
        out[np.ix_(ok, ok)] = m[np.ix_(rows, rows)]
        return out

    ga, gb = put(a, ia), put(b, ib)
    return ga, gb, gb - ga


def as_array(rows: list) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)


WORDS = list("abcdef")


def random_pair(rng) -> tuple[list[str], list[str]]:
    a = [str(w) for w in rng.choice(WORDS, rng.integers(1, 9))]
    b = list(a)
    for _ in range(rng.integers(0, 4)):  # a few edits: the pairs the view is for
        kind = rng.integers(3)
        if kind == 0 and b:
            b.pop(rng.integers(len(b)))
        elif kind == 1:
            b.insert(rng.integers(len(b) + 1), str(rng.choice(WORDS)))
        elif b:
            b[rng.integers(len(b))] = str(rng.choice(WORDS))
    return a, (b or ["a"])


def test_aligned_maps_are_b_minus_a_on_aligned_cells_marked_edits_and_exactly_null_elsewhere():
    rng = np.random.default_rng(30)
    cases = [(["the", "film", "is", "good"], ["the", "film", "is", "not", "good"]),
             (["a", "very", "good", "film"], ["a", "good", "film"]), (["x"], ["y"])]
    cases += [random_pair(rng) for _ in range(40)]
    items, refs = [], []
    for ta, tb in cases:
        ops = reference_script(ta, tb)
        ma, mb = rng.random((len(ta), len(ta))), rng.random((len(tb), len(tb)))
        items.append({"fn": "alignedMaps", "args": [ma.ravel().tolist(), len(ta), mb.ravel().tolist(), len(tb), ops]})
        va, vb = rng.random(len(ta)), rng.random(len(tb))
        items.append({"fn": "alignedSeries", "args": [va.tolist(), vb.tolist(), ops]})
        items.append({"fn": "stepLabels", "args": [ops, ta, tb]})
        refs.append((ops, ma, mb, va, vb, ta, tb))
    out = jobs(items)
    marked = set()
    for k, (ops, ma, mb, va, vb, ta, tb) in enumerate(refs):
        maps, series, labels = out[3 * k], out[3 * k + 1], out[3 * k + 2]
        ga, gb, diff = grid_reference(ma, mb, ops)
        got_a, got_b, got_d = as_array(maps["a"]), as_array(maps["b"]), as_array(maps["diff"])
        for got, want in ((got_a, ga), (got_b, gb), (got_d, diff)):
            assert got.shape == (len(ops), len(ops))
            assert np.array_equal(np.isnan(got), np.isnan(want))  # null exactly where the reference has no value
            np.testing.assert_array_equal(got[~np.isnan(got)], want[~np.isnan(want)])  # float64 in both: exact
        aligned = np.array([o["op"] in ("keep", "replace") for o in ops])
        assert np.array_equal(~np.isnan(got_d), np.outer(aligned, aligned))  # a difference exactly where both align
        for p, o in enumerate(ops):
            marked.add(o["op"])
            if o["op"] == "insert":  # kept on the grid, empty in A, B's row there
                assert np.isnan(got_a[p]).all() and np.isnan(got_a[:, p]).all() and labels[p] == "+" + tb[o["b"]]
                assert not np.isnan(got_b[p]).all()
            if o["op"] == "delete":
                assert np.isnan(got_b[p]).all() and np.isnan(got_b[:, p]).all() and labels[p] == "−" + ta[o["a"]]
                assert not np.isnan(got_a[p]).all()
            if o["op"] == "replace":
                assert labels[p] == ta[o["a"]] + "→" + tb[o["b"]]
        want_sa = [None if o["a"] is None else va[o["a"]] for o in ops]
        want_sb = [None if o["b"] is None else vb[o["b"]] for o in ops]
        assert series["a"] == want_sa and series["b"] == want_sb
        assert series["diff"] == [None if x is None or y is None else y - x for x, y in zip(want_sa, want_sb)]
    assert marked == {"keep", "insert", "delete", "replace"}  # every kind of step was checked


@pytest.fixture(scope="module")
def glove():
    from disan.vocab import Glove
    from tests.conftest import WORDS as GLOVE_WORDS

    rng = np.random.default_rng(0)
    return Glove(GLOVE_WORDS, rng.standard_normal((len(GLOVE_WORDS), 8)).astype(np.float32), source="test")


def views(model, a: tuple, b: tuple) -> tuple[dict, dict]:
    from viz_app.draw.site_view import trace_view_json

    return trace_view_json(model.trace(*a)), trace_view_json(model.trace(*b))


def heat_views(fig: dict) -> list[dict]:
    """The heatmap panels' views of a figure spec (figure_spec.js)."""
    return [p["view"] for p in fig["panels"] if p["kind"] == "heatmap"]


def heat_panels(fig: dict) -> list[np.ndarray]:
    return [as_array(v["z"]) for v in heat_views(fig)]


#: the outlines of test_the_page_s_figures_hold_the_trace_views_numbers_on_the_aligned_tokens's edits (step 0
#: deleted, step 3 inserted) on each heatmap panel
EDIT_OUTLINES = [{"axis": axis, "index": step, "colour": colour}
                 for step, colour in ((0, "#d73027"), (3, "#1a9850")) for axis in ("row", "column")]


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_page_s_figures_hold_the_trace_views_numbers_on_the_aligned_tokens(glove, arch):
    from tests.conftest import make_tiny

    model = make_tiny(arch, glove)
    A, B = ("the movie is good .",), ("movie is not good .",)
    tva, tvb = views(model, A, B)
    [page] = jobs([{"fn": "page", "args": [tva, tvb]}])
    assert "error" not in page, page
    ta, tb = tva["premise"]["tokens"], tvb["premise"]["tokens"]
    ops = reference_script(ta, tb)
    assert page["aligned"]["premise"]["ops"] == ops
    assert [o["op"] for o in ops] == ["delete", "keep", "keep", "insert", "keep", "keep"]
    figs = page["data"]["figures"]
    heads = [f"pair-heads-{d}-premise-{row}" for d in ("fw", "bw") for row in ("a", "b", "diff")] if arch == "dsa" else []
    assert set(figs) == {"pair-mean-fw-premise", "pair-mean-bw-premise", "pair-prediction", "pair-gate-premise",
                         "pair-pool-premise" if arch == "dsa" else "pair-s2t-premise", *heads}
    sa, sb = tva["premise"], tvb["premise"]
    TA, TB = len(ta), len(tb)
    for d in ("fw", "bw"):
        ga, gb, diff = grid_reference(np.reshape(sa[d]["attention"], (TA, TA)), np.reshape(sb[d]["attention"], (TB, TB)), ops)
        fig = figs[f"pair-mean-{d}-premise"]
        pa, pb, pd = heat_panels(fig)
        for got, want in ((pa, ga), (pb, gb), (pd, diff)):
            assert np.array_equal(np.isnan(got), np.isnan(want))
            np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)
        va, vb, vd = heat_views(fig)
        assert vd["title"] == "B − A (aligned cells)"
        assert (va["zmin"], va["zmax"]) == (vb["zmin"], vb["zmax"])
        assert vd["scale"] == "diverging" and vd["zmin"] == -vd["zmax"]  # centred on 0
        # the deleted (step 0) and inserted (step 3) tokens are marked on both axes of each of the three panels
        for v in (va, vb, vd):
            assert v["rowTokens"][3] == v["colTokens"][3] == "+not" and v["rowTokens"][0] == "−the"
            # and outlined, rows and columns: the inserted step green, the deleted one red (the heatmap's outlines)
            assert v["outlines"] == EDIT_OUTLINES
    if arch == "dsa":
        H = sa["fw"]["H"]
        rows = [figs[f"pair-heads-fw-premise-{row}"] for row in ("a", "b", "diff")]
        panels = [p for fig in rows for p in heat_panels(fig)]  # A's heads, B's, B − A: one row of H panels each
        assert [len(heat_panels(fig)) for fig in rows] == [H, H, H]
        stack_a = np.reshape(sa["fw"]["heads"], (H, TA, TA))
        stack_b = np.reshape(sb["fw"]["heads"], (H, TB, TB))
        for h in range(H):
            ga, gb, diff = grid_reference(stack_a[h], stack_b[h], ops)
            for got, want in ((panels[h], ga), (panels[H + h], gb), (panels[2 * H + h], diff)):
                assert np.array_equal(np.isnan(got), np.isnan(want))
                np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=0, atol=1e-12)
        ab = [v for fig in rows[:2] for v in heat_views(fig)]
        assert len({(v["zmin"], v["zmax"]) for v in ab}) == 1  # A's heads and B's on one colour scale
        bound = np.nanmax(np.abs(np.stack(panels[2 * H:])))
        assert all(v["scale"] == "diverging" and v["zmin"] == -v["zmax"] == -bound for v in heat_views(rows[2]))
        for fig in rows:  # the deleted (step 0) and inserted (step 3) tokens marked and outlined in each panel
            assert all(v["rowTokens"][0] == "−the" and v["rowTokens"][3] == "+not" for v in heat_views(fig))
            assert all(v["outlines"] == EDIT_OUTLINES for v in heat_views(fig))
    gate = figs["pair-gate-premise"]
    names = [p["name"] for p in gate["panels"]]
    assert names == ["A: forward gate", "B: forward gate", "A: backward gate", "B: backward gate"]
    mean_a = np.reshape(sa["fw"]["gate"], (TA, -1)).mean(-1)
    want = [None if o["a"] is None else mean_a[o["a"]] for o in ops]
    got = gate["panels"][0]["view"]["values"]
    assert [g is None for g in got] == [w is None for w in want]
    np.testing.assert_allclose([g for g in got if g is not None], [w for w in want if w is not None], atol=1e-7)
    pred = figs["pair-prediction"]
    np.testing.assert_allclose(pred["panels"][0]["view"]["values"], list(tva["prediction"].values()), atol=1e-12)
    np.testing.assert_allclose(pred["panels"][1]["view"]["values"], list(tvb["prediction"].values()), atol=1e-12)
    for hook in ('data-swap="premise:3"', 'data-loo="a:4"', 'data-loo="b:4"'):  # B's words; both rows' cells
        assert hook in page["body"]


def test_an_nli_pair_aligns_each_side_and_a_mismatched_pair_is_one_sentence(glove):
    from tests.conftest import make_tiny

    model = make_tiny("dsa", glove, pair=True)
    tva, tvb = views(model, ("the movie is good", "the movie is good ."), ("the movie is good", "the movie is bad ."))
    other = make_tiny("disan", glove, pair=True)
    tvo = views(other, ("the movie", "is good"), ("the movie", "is good"))[0]
    far = dict(tvb, alpha=3.0)
    page, mixed, alphas = jobs([{"fn": "page", "args": [tva, tvb]}, {"fn": "page", "args": [tva, tvo]},
                                {"fn": "page", "args": [tva, far]}])
    assert [o["op"] for o in page["aligned"]["premise"]["ops"]] == ["keep"] * 4
    assert [o["op"] for o in page["aligned"]["hypothesis"]["ops"]] == ["keep"] * 3 + ["replace", "keep"]
    assert page["aligned"]["hypothesis"]["labels"][3] == "good→bad"
    assert "pair-mean-fw-hypothesis" in page["data"]["figures"] and "pair-pool-premise" in page["data"]["figures"]
    fig = page["data"]["figures"]["pair-mean-fw-premise"]
    assert np.isnan(heat_panels(fig)[2]).sum() == 0  # nothing edited in the premise: B − A on every cell
    assert "a pair is compared through one model" in mixed["error"]
    assert "run both at one α" in alphas["error"]


def test_a_new_b_keeps_the_figures_whose_numbers_it_leaves_and_rebuilds_the_others(glove):
    """page(…, {previous}) (the explorer's typed B): a figure whose side has the same tokens and numbers in A and B
    is the previous page's object (the figure host then finds nothing to draw again); every other one is built anew
    from the new B, and a new α keeps none."""
    from tests.conftest import make_tiny

    model = make_tiny("dsa", glove, pair=True)
    p, h, h2 = "the movie is good", "the movie is good .", "the movie is bad ."
    tva, tvb = views(model, (p, h), (p, h))
    tvb2 = views(model, (p, h), (p, h2))[1]
    far = views(model, (p, h), (p, h2))
    for tv in far:
        tv["alpha"] = 3.0
    same, other = jobs([{"fn": "again", "args": [[tva, tvb], [tva, tvb2]]},
                        {"fn": "again", "args": [[tva, tvb], far]}])
    figs = same["page"]["data"]["figures"]
    premise = {f for f in figs if f.endswith("-premise") or "-premise-" in f}
    assert len(premise) == 2 + 6 + 2 and set(same["kept"]) == premise  # maps, head rows, gate, pooling
    # the rebuilt hypothesis figures hold the new B: its replaced token on the axis, its maps in B's panel
    ops = reference_script(tva["hypothesis"]["tokens"], tvb2["hypothesis"]["tokens"])
    fig = figs["pair-mean-fw-hypothesis"]
    assert heat_views(fig)[1]["colTokens"][3] == "good→bad"
    TB = len(tvb2["hypothesis"]["tokens"])
    _, gb, _ = grid_reference(np.reshape(tva["hypothesis"]["fw"]["attention"], (TB, TB)),
                              np.reshape(tvb2["hypothesis"]["fw"]["attention"], (TB, TB)), ops)
    np.testing.assert_allclose(heat_panels(fig)[1], gb, rtol=0, atol=1e-12)
    assert other["kept"] == []
    # three pages, the second never drawn: the third holds the first's objects, built once for all three
    [chained] = jobs([{"fn": "chain", "args": [[tva, tvb], [tva, tvb2], [tva, tvb]]}])
    assert set(chained) == premise


def test_b_equal_to_a_draws_the_zero_difference_on_the_shared_scale_width(glove):
    """The minimal pair on arrival (B = A): every B − A cell is 0, and its colour bar spans the width of the scale A
    and B share (plain ticks), not ±1e-9, which Plotly labelled "−1n…1n" (issue 58 item 7)."""
    from tests.conftest import make_tiny

    model = make_tiny("dsa", glove)
    tva, tvb = views(model, ("the movie is good .",), ("the movie is good .",))
    [page] = jobs([{"fn": "page", "args": [tva, tvb]}])
    figs = page["data"]["figures"]
    mean = figs["pair-mean-fw-premise"]
    a, _, diff = heat_panels(mean)
    assert np.nanmax(np.abs(diff)) == 0
    va, _, vd = heat_views(mean)
    width = va["zmax"] - va["zmin"]
    assert width > 0.01 and vd["zmax"] == pytest.approx(width) and vd["zmin"] == -vd["zmax"]
    heads_ab = [v for row in "ab" for v in heat_views(figs[f"pair-heads-fw-premise-{row}"])]
    heads_width = heads_ab[0]["zmax"] - heads_ab[0]["zmin"]
    heads_diff = heat_views(figs["pair-heads-fw-premise-diff"])
    assert all(t["zmax"] == pytest.approx(heads_width) and t["zmin"] == -t["zmax"] for t in heads_diff)


def test_the_legend_is_a_key_that_counts_each_kind_of_edit(glove):
    """Issue 58 item 8: "1 edit · replaced, inserted in B, deleted from A" read as if all three had happened. The
    legend names what each mark means and how many edits of that kind B has; B = A says there are none."""
    import re

    from tests.conftest import make_tiny

    model = make_tiny("dsa", glove)
    tva, tvb = views(model, ("the movie is good .",), ("movie is not good .",))
    tvr = views(model, ("the movie is good .",), ("the movie is bad .",))[1]
    pages = jobs([{"fn": "page", "args": [tva, tvb]}, {"fn": "page", "args": [tva, tvr]},
                  {"fn": "page", "args": [tva, tva]}])

    def key(page):
        legend = re.search(r'<p class="counts">(.*?)</p>', page["body"]).group(1)
        counts = dict(re.findall(r'data-kind="(\w+)" data-count="(\d+)"', legend))
        return legend, {k: int(v) for k, v in counts.items()}

    (moved, moved_counts), (replaced, replaced_counts), (same, same_counts) = map(key, pages)
    assert moved_counts == {"replace": 0, "insert": 1, "delete": 1} and moved.startswith("2 edits")
    assert replaced_counts == {"replace": 1, "insert": 0, "delete": 0} and replaced.startswith("1 edit ")
    assert "replaced</span> = a word of A replaced in B: 1" in replaced and "inserted</span> = a word of B not in A: 0" in replaced
    assert same_counts == {"replace": 0, "insert": 0, "delete": 0} and same.startswith("no edits")
