"""figures.js's heatmap, tokenFeatureHeatmap, compareHeatmaps and maskPanels (issue 27: every per-sentence figure is
built in the page), run in Node on small literal inputs (repeated tokens, HTML-ish tokens, a token past the
tick-label limit, NaN cells and −∞ mask cells) and checked against the input itself: z is the matrix, A − B
cell by cell, −∞ drawn by the masked overlay. The other builders are checked in tests/test_figures.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.page_js import node_jobs, node_module
from viz_app.draw.site_view import figure_context
from viz_app.draw.theme import NORMAL, PRESENTATION

STRICT = 1e-12
TOKENS = ["the", "<b>", "the", "&", "x" * 30]  # repeated, HTML-ish, clipped at TICK_LABEL_MAX
SQUARE = ["a", "<b>", "a", '"c"']


def rows(matrix: np.ndarray) -> list:
    """A matrix as JSON rows, non-finite cells as null (JSON has no NaN or −∞)."""
    return [[float(v) if np.isfinite(v) else None for v in row] for row in np.asarray(matrix, np.float64)]


def z(trace: dict) -> np.ndarray:
    return np.asarray([[np.nan if v is None else v for v in row] for row in trace["z"]], np.float64)


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(27)


def _masks(T: int) -> dict:
    i, j = np.indices((T, T))
    return {
        "fw <mask>": np.where(j < i, 0.0, -np.inf),  # Shen Eq. 17: earlier tokens only
        "bw": np.where(j > i, 0.0, -np.inf),  # Shen Eq. 18: later tokens only
        "distance": np.where(i == j, -np.inf, -1.5 * np.abs(i - j)),  # Im Eq. 7, α = 1.5, diagonal masked
        "none": np.zeros((T, T)),  # nothing masked: no overlay
    }


def test_heatmap_draws_z_with_row_and_column_labels(rng):
    matrix = rng.random((3, 4)) * 0.6 - 0.2  # in [-0.2, 0.4]: an asymmetric range
    matrix[2, 1] = np.nan
    row_names, col_names = ["r0", "<r1>", "r0"], ["c0", "c&1", "c2", "c3"]
    [plain_fig, normal, presentation, bounded, square, bad] = node_jobs([
        {"fn": "F.heatmap", "args": [rows(matrix), row_names, col_names, {"valueName": "τ", "xTitle": "by <x>"}]},
        {"fn": "F.heatmap", "args": [rows(matrix), row_names, col_names, {"diverging": True}]},
        {"fn": "F.heatmap", "args": [rows(matrix), row_names, col_names, {"diverging": True, "theme": "presentation"}]},
        {"fn": "F.heatmap", "args": [rows(matrix), row_names, col_names, {"diverging": True, "zmin": -1.0, "zmax": 0.5}]},
        {"fn": "F.heatmap", "args": [rows(matrix[:, :3]), row_names]},
        {"fn": "F.heatmap", "args": [rows(matrix), row_names, col_names[:3]]},
    ])
    [heat] = plain_fig["data"]
    np.testing.assert_array_equal(z(heat), matrix)  # NaN where the input has NaN
    assert heat["y"] == [0, 1, 2] and heat["x"] == [0, 1, 2, 3]
    finite = matrix[np.isfinite(matrix)]
    assert (heat["zmin"], heat["zmax"]) == (finite.min(), finite.max()) and "zmid" not in heat
    assert heat["customdata"][1][2] == ["#1 &lt;r1&gt;", "#2 c2"]  # hover names the row and the column label
    assert heat["customdata"][2][0] == ["#2 r0", "#0 c0"]  # the repeated row label keeps its own row
    assert "τ = %{z:.6g}" in heat["hovertemplate"]
    assert plain_fig["layout"]["xaxis"]["ticktext"] == ["c0", "c&amp;1", "c2", "c3"]
    assert plain_fig["layout"]["yaxis"]["ticktext"] == ["r0", "&lt;r1&gt;", "r0"]
    assert plain_fig["layout"]["yaxis"]["autorange"] == "reversed"  # row 0 at the top
    assert plain_fig["layout"]["xaxis"]["title"]["text"] == "by &lt;x&gt;"
    assert heat["colorscale"] == figure_context()["colorscales"][NORMAL.sequential]
    bound = np.abs(finite).max()
    for fig, th in ((normal, NORMAL), (presentation, PRESENTATION)):
        [d] = fig["data"]
        np.testing.assert_array_equal(z(d), matrix)
        assert d["colorscale"] == figure_context()["colorscales"][th.diverging] != heat["colorscale"]
        assert (d["zmin"], d["zmid"], d["zmax"]) == (-bound, 0.0, bound)  # centred at 0
    assert (bounded["data"][0]["zmin"], bounded["data"][0]["zmax"]) == (-1.0, 1.0)  # the wider side, both ways
    assert square["data"][0]["customdata"][0][2] == ["#0 r0", "#2 r0"]  # no column labels: the row labels
    assert bad == {"error": "heatmap needs one matrix row per row label and one column per column label: "
                            "z is 3 × 4 for 3 row labels and 3 column labels."}


def test_token_feature_heatmap_draws_the_matrix_with_tokens_as_rows(rng):
    matrix = rng.random((len(TOKENS), 6)) - 0.5
    matrix[3, 2] = np.nan
    [fig, bounded, bad] = node_jobs([
        {"fn": "F.tokenFeatureHeatmap", "args": [rows(matrix), TOKENS, {"valueName": "F"}]},
        {"fn": "F.tokenFeatureHeatmap", "args": [rows(matrix), TOKENS, {"zmin": -1.0, "zmax": 1.0}]},
        {"fn": "F.tokenFeatureHeatmap", "args": [rows(matrix), TOKENS[:3]]},
    ])
    [heat] = fig["data"]
    np.testing.assert_array_equal(z(heat), matrix)  # NaN where the matrix has NaN
    assert heat["y"] == list(range(len(TOKENS))) and heat["x"] == list(range(6))
    finite = matrix[np.isfinite(matrix)]
    assert (heat["zmin"], heat["zmax"]) == (finite.min(), finite.max())
    assert (bounded["data"][0]["zmin"], bounded["data"][0]["zmax"]) == (-1.0, 1.0)
    assert fig["layout"]["yaxis"]["ticktext"] == ["the", "&lt;b&gt;", "the", "&amp;", "x" * 23 + "…"]
    assert fig["layout"]["yaxis"]["autorange"] == "reversed"  # token 0 at the top
    assert heat["customdata"][1][4] == ["#1 &lt;b&gt;", "#4 feature 4"]
    assert heat["customdata"][2][0][0] == "#2 the"  # the repeated token keeps its own row
    assert "F = %{z:.6g}" in heat["hovertemplate"]
    assert bad == {"error": "tokenFeatureHeatmap needs one matrix row per token: the matrix has 5 rows for 3 tokens."}


def test_compare_heatmaps_third_panel_is_a_minus_b_on_a_shared_scale(rng):
    a, b = rng.random((4, 4)), rng.random((4, 4)) * 3
    a[0, 1] = np.nan
    [fig, bad] = node_jobs([
        {"fn": "F.compareHeatmaps", "args": [rows(a), rows(b), SQUARE, {"titles": ["<u>A</u>", "B"]}]},
        {"fn": "F.compareHeatmaps", "args": [rows(a), rows(b[:, :3]), SQUARE]},
    ])
    first, second, diff = fig["data"]
    np.testing.assert_array_equal(z(first), a)
    np.testing.assert_array_equal(z(second), b)
    np.testing.assert_allclose(z(diff), a - b, atol=STRICT, rtol=0)  # NaN where A is NaN
    both = np.concatenate([a[np.isfinite(a)], b.ravel()])
    assert first["zmin"] == second["zmin"] == both.min() and first["zmax"] == second["zmax"] == both.max()
    assert first["colorscale"] == second["colorscale"] != diff["colorscale"]
    bound = np.nanmax(np.abs(a - b))
    assert diff["zmid"] == 0.0 and diff["zmax"] == pytest.approx(bound, abs=STRICT) and diff["zmin"] == -diff["zmax"]
    assert [t["showscale"] for t in fig["data"]] == [False, True, True]
    titles = [n["text"] for n in fig["layout"]["annotations"]]
    assert titles == ["&lt;u&gt;A&lt;/u&gt;", "B", "&lt;u&gt;A&lt;/u&gt; − B"]
    assert [t.get("xaxis", "x") for t in fig["data"]] == ["x", "x2", "x3"]
    assert bad == {"error": "compareHeatmaps needs A and B of the same shape with one row per token: "
                            "A is 4 × 4, B is 4 × 3 for 4 tokens."}


def test_constant_maps_still_get_a_scale_of_positive_width():
    """A map whose cells are all equal (A − A, an all-zero τ) gets zmax > zmin, or Plotly has no colour to draw: one
    unit wide, so an all-masked attention map (a one-word sentence) has the [0, 1] of a longer sentence's maps."""
    flat = np.full((3, 3), 0.25)
    [same, zeros, grid] = node_jobs([
        {"fn": "F.compareHeatmaps", "args": [rows(flat), rows(flat), SQUARE[:3]]},
        {"fn": "F.heatmap", "args": [rows(np.zeros((2, 2))), SQUARE[:2], None, {"diverging": True}]},
        {"fn": "F.heatmapGrid", "args": [[rows(flat)], ["p"], SQUARE[:3]]},
    ])
    diff = same["data"][2]
    # A equal to B (issue 58 item 7: a 1e-9 scale was labelled "−1n…1n"): the A/B scale's width, here one unit
    assert z(diff).tolist() == np.zeros((3, 3)).tolist() and (diff["zmin"], diff["zmid"], diff["zmax"]) == (-1, 0.0, 1)
    assert (same["data"][0]["zmin"], same["data"][0]["zmax"]) == (0.25, 1.25)
    assert (zeros["data"][0]["zmin"], zeros["data"][0]["zmax"]) == (-1, 1)
    assert (grid["data"][0]["zmin"], grid["data"][0]["zmax"]) == (0.25, 1.25)
    [masked] = node_jobs([{"fn": "F.heatmapGrid", "args": [[rows(np.zeros((1, 1)))], ["p"], SQUARE[:1], {"zmin": 0}]}])
    assert (masked["data"][0]["zmin"], masked["data"][0]["zmax"]) == (0, 1)


def test_equal_maps_difference_spans_the_shared_scale_width(rng):
    """B equal to A (the minimal pair on arrival): B − A is all zero and is drawn on [−w, w], w the width of the
    scale A and B share, so its colour bar has plain ticks, not Plotly's SI labels of a 1e-9 bound ("−1n…1n")."""
    a = rng.random((3, 3)) * 0.5 + 0.1
    [same] = node_jobs([{"fn": "F.compareHeatmaps", "args": [rows(a), rows(a), SQUARE[:3]]}])
    width = a.max() - a.min()
    assert same["data"][2]["zmax"] == pytest.approx(width, abs=STRICT) and same["data"][2]["zmin"] == -same["data"][2]["zmax"]


def test_vector_grids_draw_a_difference_on_a_diverging_scale_of_its_own(rng):
    """Shen Fig. 8's 'glass' in two contexts: the two vectors share the sequential scale, their difference (which
    runs below 0, no probability) has the diverging scale centred on 0 and a colour bar of its own (issue 58 item 7)."""
    a, b = rng.random(12), rng.random(12) * 0.5
    [fig, zero, plain] = node_jobs([
        {"fn": "F.vectorGrids", "args": [[a.tolist(), b.tolist(), (a - b).tolist()], ["A", "B", "A − B"],
                                         {"cols": 4, "difference": True}]},
        {"fn": "F.vectorGrids", "args": [[a.tolist(), a.tolist(), [0.0] * 12], ["A", "A", "A − A"],
                                         {"cols": 4, "difference": True}]},
        {"fn": "F.vectorGrids", "args": [[a.tolist(), b.tolist()], ["A", "B"], {"cols": 4}]},
    ])
    first, second, diff = fig["data"]
    both = np.concatenate([a, b])
    assert first["zmin"] == second["zmin"] == both.min() and first["zmax"] == second["zmax"] == both.max()
    assert first["colorscale"] == second["colorscale"] != diff["colorscale"]
    assert diff["zmid"] == 0.0 and diff["zmax"] == pytest.approx(np.abs(a - b).max(), abs=STRICT)
    assert diff["zmin"] == -diff["zmax"] and diff["zmin"] < 0 < diff["zmax"]
    np.testing.assert_allclose(z(diff).ravel(), a - b, atol=STRICT, rtol=0)
    assert [t["showscale"] for t in fig["data"]] == [False, True, True]
    assert second["colorbar"]["x"] < fig["layout"]["xaxis3"]["domain"][0]  # B's bar sits left of the third grid
    assert diff["colorbar"]["title"]["text"].startswith("Δ")
    assert zero["data"][2]["zmax"] == pytest.approx(a.max() - a.min(), abs=STRICT)  # no 1e-9 scale
    assert [t["zmin"] for t in plain["data"]] == [both.min()] * 2 and "zmid" not in plain["data"][1]


#: Builds maskPanels in Node from matrices written as JS source, so −Infinity reaches it as a number.
MINUS_INFINITY = r"""
Figures.configure(JSON.parse(fs.readFileSync(0, "utf8")));
const tokens = ["a", "<b>", "a"], I = -Infinity;
const build = (m) => Figures.maskPanels([["fw", m]], tokens);
process.stdout.write(JSON.stringify([build([[I, I, I], [0, I, I], [0, 0, I]]),
                                     build([[null, null, null], [0, null, null], [0, 0, null]])]));
"""


def test_mask_panels_draw_minus_infinity_or_null_cells_in_the_masked_overlay():
    panels = _masks(len(SQUARE))
    [fig, bad] = node_jobs([
        {"fn": "F.maskPanels", "args": [[[name, rows(m)] for name, m in panels.items()], SQUARE]},
        {"fn": "F.maskPanels", "args": [[["fw", [[0, None]]]], SQUARE]},
    ])
    traces = fig["data"]
    values = [t for t in traces if t.get("name") != "masked"]
    overlays = [t for t in traces if t.get("name") == "masked"]
    assert len(values) == 4 and len(overlays) == 3  # "none" masks nothing: no overlay
    for (name, mask), value in zip(panels.items(), values):
        masked = ~np.isfinite(mask)
        got = z(value)
        assert np.isnan(got[masked]).all(), name  # −∞ cells are null in z, not a colour on the scale
        np.testing.assert_array_equal(got[~masked], mask[~masked])
        lowest = min(m[np.isfinite(m)].min() for m in panels.values())
        assert (value["zmin"], value["zmax"]) == (lowest, 0.0)  # one scale for every panel, capped at 0
    for (name, mask), overlay in zip(list(panels.items())[:3], overlays):
        masked = ~np.isfinite(mask)
        np.testing.assert_array_equal(np.isfinite(z(overlay)), masked)
        assert (z(overlay)[masked] == 1.0).all()
        assert overlay["text"][0][0] == ("−∞" if masked[0, 0] else "")
        assert overlay["colorscale"] == [[0.0, NORMAL.masked], [1.0, NORMAL.masked]]
        assert "−∞ (masked)" in overlay["hovertemplate"]
    assert [n["text"] for n in fig["layout"]["annotations"]] == ["fw &lt;mask&gt;", "bw", "distance", "none"]
    assert traces[-1]["xaxis"] == "x4"  # one panel per mask, three a row
    assert bad == {"error": "maskPanels needs one matrix row per token: panel fw is 1 × 2 for 4 tokens."}

    proc = node_module(MINUS_INFINITY, stdin=json.dumps(figure_context()), timeout=120)
    assert proc.returncode == 0, proc.stderr
    infinite, null = json.loads(proc.stdout)
    assert infinite == null  # −Infinity and null are the same masked cell
    value, overlay = infinite["data"]
    assert value["z"] == [[None, None, None], [0, None, None], [0, 0, None]]
    assert overlay["z"] == [[1, 1, 1], [None, 1, 1], [None, None, 1]]
