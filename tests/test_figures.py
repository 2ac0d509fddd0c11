"""Per-sentence figures as the page builds them (viz_app/browser/figures.js, ``Figures``, run in Node) on
small literal matrices: shared colour scales, masked cells, click layers, escaping, hover data, tick thinning,
block averaging, bars; and the Python look the corpus figures still use (viz_app/draw/figures.py: ``_layout``,
``_template``, ``_scale``, ``standalone_html``).

tests/test_figures_port_js.py checks heatmap, tokenFeatureHeatmap, compareHeatmaps and maskPanels against their
input; this file checks the other builders and what every builder shares.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from tests.page_js import node_jobs
from viz_app.draw import figures
from viz_app.draw.site_view import figure_context
from viz_app.draw.theme import NORMAL, PRESENTATION

TOKENS = ["the", "<script>", "a&b", "the"]
A = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.2, 0.3, 0.5, 0.0]])
B = np.full((4, 4), 0.25)


def rows(matrix) -> list:
    """A matrix as JSON rows, non-finite cells as null (JSON has no NaN or −∞)."""
    return [[float(v) if np.isfinite(v) else None for v in row] for row in np.asarray(matrix, np.float64)]


def z(trace: dict) -> np.ndarray:
    return np.asarray([[np.nan if v is None else v for v in row] for row in trace["z"]], np.float64)


def build(*jobs: tuple) -> list[dict]:
    """Each ``(name, *args)`` built by ``Figures.name`` in Node."""
    out = node_jobs([{"fn": f"F.{name}", "args": list(args)} for name, *args in jobs])
    for job, fig in zip(jobs, out):
        assert "error" not in fig, f"{job[0]}: {fig['error']}"
    return out


def test_grid_panels_share_one_scale_and_one_colour_bar():
    wide = A.copy()
    wide[3, 3] = np.nan  # NaN cells leave the scale alone and are null in z
    [fig, bounded, two_rows] = build(
        ("heatmapGrid", [rows(wide), rows(B * 2)], ["fw", "bw"], TOKENS),
        ("heatmapGrid", [rows(A), rows(B * 3)], ["fw", "bw"], TOKENS, {"zmin": -1.0, "zmax": 2.0}),
        ("heatmapGrid", [rows(A), rows(B), rows(A)], ["a", "b", "c"], TOKENS, {"cols": 2}),
    )
    first, second = fig["data"]
    np.testing.assert_array_equal(z(first), wide)
    assert first["z"][3][3] is None
    np.testing.assert_array_equal(z(second), B * 2)
    assert (first["zmin"], first["zmax"]) == (second["zmin"], second["zmax"]) == (0.0, 1.0)
    assert first["colorscale"] == second["colorscale"] == figure_context()["colorscales"][NORMAL.sequential]
    assert [t["showscale"] for t in fig["data"]] == [False, True]  # one colour bar for the shared scale
    assert [(t["xaxis"], t["yaxis"]) for t in fig["data"]] == [("x", "y"), ("x2", "y2")]
    assert [t["zmin"] for t in bounded["data"]] == [-1.0, -1.0] and [t["zmax"] for t in bounded["data"]] == [2.0, 2.0]
    layout = two_rows["layout"]
    assert [t["xaxis"] for t in two_rows["data"]] == ["x", "x2", "x3"]
    assert layout["xaxis3"]["domain"] == layout["xaxis"]["domain"]  # panel 3 starts the second row …
    assert layout["yaxis3"]["domain"][1] < layout["yaxis"]["domain"][0]  # … below the first
    assert [layout[a]["showticklabels"] for a in ("yaxis", "yaxis2", "yaxis3")] == [True, False, True]  # left column
    assert [layout[a]["showticklabels"] for a in ("xaxis", "xaxis2", "xaxis3")] == [False, True, True]  # bottom row


def test_grid_masked_cells_are_drawn_by_an_overlay_on_their_own_panel():
    masked = np.tri(4, k=-1, dtype=bool).T  # above the diagonal
    [fig] = build(("heatmapGrid", [rows(A), rows(B)], ["fw", "bw"], TOKENS,
                   {"masked": [masked.tolist(), np.zeros((4, 4), bool).tolist()]}))
    value, overlay, other = fig["data"]  # a panel with nothing masked gets no overlay
    assert overlay["name"] == "masked" and "name" not in value and "name" not in other
    assert (overlay["xaxis"], overlay["yaxis"]) == ("x", "y") and other["xaxis"] == "x2"
    assert overlay["z"] == [[1.0 if m else None for m in row] for row in masked]  # exactly null off the mask
    assert overlay["text"] == [["−∞" if m else "" for m in row] for row in masked]
    assert overlay["colorscale"] == [[0.0, NORMAL.masked], [1.0, NORMAL.masked]] and overlay["showscale"] is False
    assert "−∞ (masked)" in overlay["hovertemplate"]
    np.testing.assert_array_equal(z(value), A)


def test_clickable_grid_has_one_invisible_click_layer_per_panel_that_hover_reads():
    b = B.copy()
    b[1, 2] = np.nan
    masked = np.eye(4, dtype=bool)
    [fig] = build(("heatmapGrid", [rows(A), rows(b)], ["fw", "bw"], TOKENS,
                   {"clickable": True, "masked": [masked.tolist(), None], "valueName": "P<k>"}))
    assert [(t["type"], t.get("name")) for t in fig["data"]] == [
        ("heatmap", None), ("heatmap", "masked"), ("scatter", "cells"), ("heatmap", None), ("scatter", "cells")]
    value, overlay, cells, second, cells2 = fig["data"]
    for top in (overlay, second):  # the trace under each click layer leaves hover to it
        assert top["hoverinfo"] == "skip" and "customdata" not in top and "hovertemplate" not in top
    assert "customdata" in value  # the value trace under the overlay keeps its own
    assert cells["marker"]["opacity"] == 0 and cells["mode"] == "markers" and cells["showlegend"] is False
    assert (cells["xaxis"], cells2["xaxis"]) == ("x", "x2")
    assert cells["x"] == [c for _ in range(4) for c in range(4)] and cells["y"] == [r for r in range(4) for _ in range(4)]
    assert cells["customdata"][4 * 1 + 0] == ["#1 &lt;script&gt;", "#0 the", 1.0]  # row 1, column 0: its label and A
    assert cells2["customdata"][4 * 1 + 2] == ["#1 &lt;script&gt;", "#2 a&amp;b", None]  # a NaN cell: null
    assert "P&lt;k&gt; = %{customdata[2]:.6g}" in cells["hovertemplate"]


#: One figure of every builder, with HTML in every text a user or a model can put there.
EVERY_BUILDER = {
    "heatmap": ("heatmap", rows(A), TOKENS, None, {"title": "<script>alert(1)</script>", "masked": (A == 0).tolist()}),
    "heatmap_diverging": ("heatmap", rows(A - B), TOKENS, None, {"diverging": True, "theme": "presentation"}),
    "grid": ("heatmapGrid", [rows(A), rows(B)], ["<i>x</i>", "y"], TOKENS, {"masked": [(A == 0).tolist(), None]}),
    "grid_clickable": ("heatmapGrid", [rows(A), rows(B), rows(A)], ["a", "b", "c"], TOKENS,
                       {"cols": 2, "clickable": True, "valueName": "<b>P</b>"}),
    "compare": ("compareHeatmaps", rows(A), rows(B), TOKENS, {"titles": ["<u>A</u>", "B"]}),
    "small_multiples": ("smallMultiples", [rows(A), rows(B), rows(A)], TOKENS, ["h1", "<i>h2</i>", "h3"]),
    "bar": ("barChart", [["<b>s</b>", [1, 2, 3, 4]], ["bw", [0, 1, None, 1]]], TOKENS, {"yRange": [0, 5]}),
    "prediction": ("predictionChart", [["<img src=x>", 0.3], ["pos", 0.7]], {"theme": "presentation"}),
    "token_feature": ("tokenFeatureHeatmap", rows(A), TOKENS, {"valueName": "<u>F</u>"}),
    "vector_grids": ("vectorGrids", [list(range(7)), list(range(7))], ["<script>x</script>", "b"], {"cols": 3}),
    "mask_panels": ("maskPanels", [["<b>fw</b>", rows(np.where(A > 0, 0.0, -np.inf))]], TOKENS),
}


@pytest.fixture(scope="module")
def every_figure() -> dict:
    return dict(zip(EVERY_BUILDER, build(*EVERY_BUILDER.values())))


@pytest.mark.parametrize("name", sorted(EVERY_BUILDER))
def test_no_raw_tags_from_user_text_in_any_builder(every_figure, name):
    text = json.dumps(every_figure[name])
    for tag in ("<script", "<b>", "<i>", "<u>", "<img"):
        assert tag not in text


@pytest.mark.parametrize("name", sorted(EVERY_BUILDER))
def test_every_builder_draws_a_valid_plotly_figure(every_figure, name):
    """Plotly's validation (which raises on a property it does not know) takes the figure as it is."""
    fig = every_figure[name]
    assert json.loads(go.Figure(fig).to_json()) == fig


def test_script_tokens_are_escaped_in_ticks_hover_and_title(every_figure):
    fig = every_figure["heatmap"]
    assert fig["layout"]["xaxis"]["ticktext"] == ["the", "&lt;script&gt;", "a&amp;b", "the"]
    assert fig["layout"]["xaxis"]["tickvals"] == [0, 1, 2, 3]  # the repeated token keeps its own column
    assert fig["layout"]["title"]["text"] == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert fig["data"][0]["customdata"][1][1] == ["#1 &lt;script&gt;", "#1 &lt;script&gt;"]
    assert [a["text"] for a in every_figure["grid"]["layout"]["annotations"]] == ["&lt;i&gt;x&lt;/i&gt;", "y"]
    assert every_figure["bar"]["data"][0]["name"] == "&lt;b&gt;s&lt;/b&gt;"
    assert every_figure["prediction"]["data"][0]["y"] == ["&lt;img src=x&gt;", "pos"]


def test_big_sentences_hide_cell_text_and_thin_ticks():
    T = 128
    tokens = [f"t{i}" for i in range(T)]
    cap = figure_context()["constants"]
    [big, small, grid_big, grid_two] = build(
        ("heatmap", np.eye(T).tolist(), tokens),
        ("heatmap", rows(A), TOKENS),
        ("heatmapGrid", [np.eye(30).tolist()] * 3, ["a", "b", "c"], tokens[:30]),  # past GRID_TICK_MAX, 3 a row
        ("heatmapGrid", [np.eye(30).tolist()] * 2, ["a", "b"], tokens[:30]),  # two a row: TICK_MAX applies
    )
    assert "texttemplate" not in big["data"][0]
    ticks = big["layout"]["xaxis"]["tickvals"]
    assert 8 <= len(ticks) <= figures.TICK_MAX == cap["TICK_MAX"]
    step = ticks[1] - ticks[0]
    assert step > 1 and ticks == list(range(0, T, step))  # every step-th token, from the first
    assert big["layout"]["xaxis"]["ticktext"] == [tokens[i] for i in ticks]
    assert small["data"][0]["texttemplate"] == "%{z:.2f}"
    assert 30 > figures.GRID_TICK_MAX == cap["GRID_TICK_MAX"]
    assert not any(grid_big["layout"][a]["showticklabels"] for a in ("xaxis", "xaxis2", "xaxis3", "yaxis"))
    assert grid_two["layout"]["yaxis"]["showticklabels"] and grid_two["layout"]["xaxis2"]["showticklabels"]


def test_small_multiples_average_blocks_of_long_sentences():
    T = 100
    stack = np.random.default_rng(0).random((3, T, T))
    stack[0, 0, 0] = np.nan  # a cell with no value is left out of its block's mean
    tokens = [f"w{i}" for i in range(T)]
    [fig, short] = build(
        ("smallMultiples", [rows(m) for m in stack], tokens, ["h1", "h2", "h3"], {"maxCells": 20, "title": "heads"}),
        ("smallMultiples", [rows(A), rows(B)], TOKENS, ["h1", "h2"]),
    )
    pooled = [z(t) for t in fig["data"]]
    assert all(p.shape == (20, 20) for p in pooled)
    assert pooled[0][0, 0] == pytest.approx(np.nanmean(stack[0, :5, :5]), abs=1e-12)
    assert pooled[2][19, 3] == pytest.approx(stack[2, 95:, 15:20].mean(), abs=1e-12)
    assert fig["layout"]["title"]["text"] == "heads (averaged over blocks of 5 tokens)"
    axis = fig["layout"]["xaxis"]
    assert axis["ticktext"] == [f"w{5 * v}…w{5 * v + 4}" for v in axis["tickvals"]]  # a block names its first and last
    assert len({(t["zmin"], t["zmax"]) for t in fig["data"]}) == 1  # one scale for every head
    assert [t["showscale"] for t in fig["data"]] == [False, False, True]
    np.testing.assert_array_equal(z(short["data"][0]), A)  # short sentences are drawn cell by cell
    assert "averaged" not in short["layout"]["title"]["text"]


def test_bar_chart_series_hover_and_range(every_figure):
    fig = every_figure["bar"]
    assert [t["y"] for t in fig["data"]] == [[1, 2, 3, 4], [0, 1, None, 1]]
    assert [t["x"] for t in fig["data"]] == [[0, 1, 2, 3]] * 2
    assert fig["data"][0]["customdata"] == ["#0 the", "#1 &lt;script&gt;", "#2 a&amp;b", "#3 the"]
    assert [t["marker"]["color"] for t in fig["data"]] == list(NORMAL.categorical[:2])  # one colour a series
    assert fig["layout"]["yaxis"]["range"] == [0, 5] and fig["layout"]["showlegend"] is True
    assert fig["layout"]["barmode"] == "group"


def test_vector_grids_fold_and_share_scale():
    [fig] = build(("vectorGrids", [list(range(10)), [2.0 * v for v in range(10)]], ["a", "b"], {"cols": 4}))
    z0 = z(fig["data"][0])
    assert z0.shape == (3, 4) and np.isnan(z0[2, 3]) and z0[1, 0] == 4.0
    assert fig["data"][0]["z"][2][2] is None  # the fold's tail past the vector is null
    assert fig["data"][0]["customdata"][1][0] == 4  # hover names the feature index
    assert fig["data"][0]["zmin"] == fig["data"][1]["zmin"] == 0.0 and fig["data"][0]["zmax"] == fig["data"][1]["zmax"] == 18.0


def test_prediction_chart_highlights_the_argmax(every_figure):
    [bar] = every_figure["prediction"]["data"]
    assert bar["x"] == [0.3, 0.7] and bar["text"] == ["0.30", "0.70"]
    assert bar["marker"]["color"] == [PRESENTATION.categorical[0], PRESENTATION.categorical[1]]
    assert every_figure["prediction"]["layout"]["xaxis"]["range"] == [0, 1]


def test_presentation_theme_is_larger_and_colour_blind_safe(every_figure):
    assert every_figure["heatmap_diverging"]["layout"]["font"]["size"] == PRESENTATION.font_size > NORMAL.font_size
    assert every_figure["heatmap"]["layout"]["font"]["size"] == NORMAL.font_size
    assert PRESENTATION.sequential in ("Cividis", "Viridis") and NORMAL.sequential in ("Cividis", "Viridis")
    assert every_figure["heatmap_diverging"]["data"][0]["zmid"] == 0.0


@pytest.mark.parametrize("rows_,cols,h,v", [(1, 1, 0.02, 0.05), (1, 3, 0.09, 0.0), (2, 5, 0.06, 0.12),
                                            (3, 2, 0.06, 0.12)])
def test_grid_layout_matches_make_subplots(rows_, cols, h, v):
    titles = [f"p{k}" for k in range(rows_ * cols)]
    [ours] = build(("grid", rows_, cols, titles, h, v, 13))
    ref = make_subplots(rows=rows_, cols=cols, subplot_titles=titles, horizontal_spacing=h, vertical_spacing=v).layout
    for k in range(rows_ * cols):
        n = "" if k == 0 else str(k + 1)
        xa, ya = f"xaxis{n}", f"yaxis{n}"
        np.testing.assert_allclose(ours[xa]["domain"], ref[xa].domain, atol=1e-12)
        np.testing.assert_allclose(ours[ya]["domain"], ref[ya].domain, atol=1e-12)
        assert (ours[xa]["anchor"], ours[ya]["anchor"]) == (ref[xa].anchor, ref[ya].anchor) == (f"y{n}", f"x{n}")
    for mine, theirs in zip(ours["annotations"], ref.annotations, strict=True):
        assert mine["text"] == theirs.text
        assert (mine["x"], mine["y"]) == pytest.approx((theirs.x, theirs.y))


# ------------------------------------------------------------------ the look Python keeps (corpus figures)

def test_layout_copies_its_template_so_edits_do_not_leak_between_figures():
    first = figures._layout(NORMAL, "<b>t</b>", 300)
    first["template"]["layout"]["paper_bgcolor"] = "#ff0000"
    second = figures._layout(NORMAL, "t", 300)
    assert second["template"]["layout"].get("paper_bgcolor") != "#ff0000"
    assert second["template"] == figures._template(NORMAL.template)
    assert first["title"]["text"] == "&lt;b&gt;t&lt;/b&gt;"
    assert (first["font"]["size"], figures._layout(PRESENTATION, "", 1)["font"]["size"]) == (13, PRESENTATION.font_size)


def test_template_lets_tick_labels_overflow():
    """plotly.js measures every 'hide past div' label after each draw (a third of a redraw, issue 19)."""
    template = figures._template(NORMAL.template)
    assert template["layout"]["xaxis"]["ticklabeloverflow"] == template["layout"]["yaxis"]["ticklabeloverflow"] == "allow"
    assert template["data"]["heatmap"]
    assert all(t["colorbar"]["ticklabeloverflow"] == "allow" for t in template["data"]["heatmap"])
    assert figures._scale("Viridis") == [[p, c] for p, c in figures._colorscale("Viridis")]
    assert figures._scale([(0.0, "#000"), (1.0, "#fff")]) == [[0.0, "#000"], [1.0, "#fff"]]


def test_standalone_html_inlines_plotly_and_needs_no_cdn(every_figure):
    fig = every_figure["heatmap"]
    html = figures.standalone_html(figures._figure(fig["data"], fig["layout"]), {"displaylogo": False})
    assert "<script src=" not in html and "cdn.plot.ly/plotly" not in html
    assert len(html) > 1_000_000  # plotly.js itself is inside
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;" in html or "\\u0026lt;script\\u0026gt;" in html
