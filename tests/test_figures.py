"""Figure builders (viz_app/draw/figures.py) on small literal matrices: shapes, shared scales, escaping, hover data."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.subplots import make_subplots

from viz_app.draw import figures
from viz_app.draw.theme import NORMAL, PRESENTATION

TOKENS = ["the", "<script>", "a&b", "the"]
A = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.2, 0.3, 0.5, 0.0]])
B = np.full((4, 4), 0.25)


def _all_text(fig) -> str:
    """Every string Plotly will render: layout and trace JSON."""
    return fig.to_json()


def test_heatmap_shapes_and_hover_customdata():
    fig = figures.heatmap(A, TOKENS, title="t")
    heat = fig.data[0]
    assert np.asarray(heat.z).shape == (4, 4)
    custom = np.asarray(heat.customdata)
    assert custom.shape == (4, 4, 2)
    assert custom[3, 0, 0] == "#3 the" and custom[3, 0, 1] == "#0 the"
    assert "%{customdata[0]}" in heat.hovertemplate and "%{customdata[1]}" in heat.hovertemplate
    assert "%{z:.6g}" in heat.hovertemplate
    assert fig.layout.yaxis.autorange == "reversed"


def test_repeated_tokens_keep_their_own_rows():
    fig = figures.heatmap(A, TOKENS)
    assert list(fig.layout.xaxis.tickvals) == [0, 1, 2, 3]
    assert list(fig.layout.xaxis.ticktext).count("the") == 2


def test_script_tokens_are_escaped_everywhere():
    fig = figures.heatmap(A, TOKENS, title="<script>alert(1)</script>")
    text = _all_text(fig)
    assert "<script" not in text
    assert "&lt;script&gt;" in fig.layout.xaxis.ticktext[1]
    assert fig.layout.xaxis.ticktext[2] == "a&amp;b"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in fig.layout.title.text
    assert "&lt;script&gt;" in np.asarray(fig.data[0].customdata)[1, 1, 0]


@pytest.mark.parametrize(
    "build",
    [
        lambda: figures.bar_chart({"<b>s</b>": [1, 2, 3, 4]}, TOKENS),
        lambda: figures.heatmap_grid([A, B], ["<i>x</i>", "y"], TOKENS),
        lambda: figures.compare_heatmaps(A, B, TOKENS, titles=("<u>A</u>", "B")),
        lambda: figures.small_multiples(np.stack([A, B]), TOKENS, ["h1", "h2"]),
        lambda: figures.vector_grids([np.arange(6.0)], ["<script>x</script>"], cols=3),
        lambda: figures.token_feature_heatmap(A, TOKENS),
        lambda: figures.prediction_chart({"<img src=x>": 0.7, "b": 0.3}),
    ],
)
def test_no_raw_tags_from_user_text_in_any_builder(build):
    text = _all_text(build())
    for tag in ("<script", "<b>", "<i>", "<u>", "<img"):
        assert tag not in text


def test_compare_shares_one_scale_and_difference_is_a_minus_b():
    fig = figures.compare_heatmaps(A, B, TOKENS, titles=("masked", "unmasked"))
    a, b, d = fig.data
    assert a.zmin == b.zmin and a.zmax == b.zmax
    assert a.zmin == pytest.approx(0.0) and a.zmax == pytest.approx(1.0)
    assert a.colorscale == b.colorscale
    np.testing.assert_allclose(np.asarray(d.z), A - B)
    assert d.zmid == 0.0 and d.zmin == pytest.approx(-d.zmax)
    assert d.zmax == pytest.approx(np.abs(A - B).max())
    assert [ann.text for ann in fig.layout.annotations] == ["masked", "unmasked", "masked − unmasked"]


def test_compare_scale_covers_both_panels():
    fig = figures.compare_heatmaps(A * 0.5, B * 3, TOKENS)
    assert fig.data[0].zmax == fig.data[1].zmax == pytest.approx(0.75)


def test_grid_panels_share_zmin_zmax_and_one_colour_bar():
    fig = figures.heatmap_grid([A, B * 2], ["fw", "bw"], TOKENS)
    z = [(t.zmin, t.zmax) for t in fig.data]
    assert z[0] == z[1] == (0.0, 1.0)
    assert [t.showscale for t in fig.data] == [False, True]


def test_mask_panels_draw_minus_infinity_as_a_separate_layer():
    inf = -np.inf
    fw = np.array([[inf, inf], [0.0, inf]])
    fig = figures.mask_panels({"fw": fw}, ["x", "y"])
    main, overlay = fig.data
    z = np.asarray(main.z, dtype=float)
    assert np.isnan(z[0, 0]) and z[1, 0] == 0.0
    oz = np.asarray(overlay.z, dtype=float)
    assert oz[0, 0] == 1.0 and np.isnan(oz[1, 0])
    assert "−∞" in overlay.hovertemplate
    assert overlay.colorscale[0][1] == NORMAL.masked
    json.loads(fig.to_json())  # no bare -Infinity in the JSON


def test_small_multiples_downsample_long_sentences():
    T = 100
    stack = np.random.default_rng(0).random((3, T, T))
    fig = figures.small_multiples(stack, [f"w{i}" for i in range(T)], ["h1", "h2", "h3"], max_cells=20)
    assert np.asarray(fig.data[0].z).shape == (20, 20)
    np.testing.assert_allclose(np.asarray(fig.data[0].z)[0, 0], stack[0, :5, :5].mean())
    assert "blocks of 5 tokens" in fig.layout.title.text


def test_big_sentences_hide_cell_text_and_thin_ticks():
    T = 128
    z = np.eye(T)
    fig = figures.heatmap(z, [f"t{i}" for i in range(T)])
    assert fig.data[0].texttemplate is None
    assert len(fig.layout.xaxis.tickvals) <= figures.TICK_MAX
    small = figures.heatmap(A, TOKENS)
    assert small.data[0].texttemplate == "%{z:.2f}"


def test_bar_chart_series_and_hover():
    fig = figures.bar_chart({"forward": [1, 2, 3, 4], "backward": [4, 3, 2, 1]}, TOKENS, y_range=(0, 5))
    assert len(fig.data) == 2
    assert list(fig.data[1].y) == [4, 3, 2, 1]
    assert list(fig.data[0].customdata) == ["#0 the", "#1 &lt;script&gt;", "#2 a&amp;b", "#3 the"]
    assert tuple(fig.layout.yaxis.range) == (0, 5)


def test_vector_grids_fold_and_share_scale():
    fig = figures.vector_grids([np.arange(10.0), np.arange(10.0) * 2], ["a", "b"], cols=4)
    z0 = np.asarray(fig.data[0].z, dtype=float)
    assert z0.shape == (3, 4) and np.isnan(z0[2, 3]) and z0[1, 0] == 4.0
    assert fig.data[0].zmin == fig.data[1].zmin == 0.0 and fig.data[0].zmax == fig.data[1].zmax == 18.0


def test_prediction_chart_highlights_the_argmax():
    fig = figures.prediction_chart({"neg": 0.2, "pos": 0.8})
    colors = list(fig.data[0].marker.color)
    assert colors[1] != colors[0]


def test_presentation_theme_is_larger_and_colour_blind_safe():
    fig = figures.heatmap(A, TOKENS, theme=PRESENTATION)
    assert fig.layout.font.size == PRESENTATION.font_size > NORMAL.font_size
    assert PRESENTATION.sequential in ("Cividis", "Viridis") and NORMAL.sequential in ("Cividis", "Viridis")
    assert figures.heatmap(A - B, TOKENS, diverging=True).data[0].zmid == 0.0


def test_standalone_html_inlines_plotly_and_needs_no_cdn():
    html = figures.standalone_html(figures.heatmap(A, TOKENS), {"displaylogo": False})
    assert "<script src=" not in html and "cdn.plot.ly/plotly" not in html
    assert len(html) > 1_000_000  # plotly.js itself is inside
    assert "&lt;script&gt;" in html or "\\u0026lt;script\\u0026gt;" in html


_EVERY_BUILDER = {
    "heatmap": lambda: figures.heatmap(A, TOKENS, title="t", masked=A == 0),
    "heatmap_diverging": lambda: figures.heatmap(A - B, TOKENS, diverging=True, theme=PRESENTATION),
    "grid": lambda: figures.heatmap_grid([A, B], ["fw", "bw"], TOKENS, masked=[A == 0, None]),
    "grid_clickable": lambda: figures.heatmap_grid([A, B, A], ["a", "b", "c"], TOKENS, cols=2, clickable=True),
    "compare": lambda: figures.compare_heatmaps(A, B, TOKENS),
    "small_multiples": lambda: figures.small_multiples(np.stack([A, B, A]), TOKENS, ["h1", "h2", "h3"]),
    "bar": lambda: figures.bar_chart({"fw": [1, 2, 3, 4], "bw": [0, 1, 0, 1]}, TOKENS, y_range=(0, 5)),
    "prediction": lambda: figures.prediction_chart({"neg": 0.3, "pos": 0.7}, theme=PRESENTATION),
    "token_feature": lambda: figures.token_feature_heatmap(A, TOKENS),
    "vector_grids": lambda: figures.vector_grids([np.arange(7.0), np.arange(7.0)], ["a", "b"], cols=3),
    "mask_panels": lambda: figures.mask_panels({"fw": np.where(A > 0, 0.0, -np.inf)}, TOKENS),
}


@pytest.mark.parametrize("name", sorted(_EVERY_BUILDER))
def test_builders_emit_what_plotly_validation_would_build(name):
    """Builders skip Plotly's validation for speed; validating their output must change nothing."""
    fig = _EVERY_BUILDER[name]()
    fast = json.loads(fig.to_json(validate=False))
    validated = json.loads(go.Figure(fig.to_dict()).to_json())
    assert fast == validated


@pytest.mark.parametrize("rows,cols,h,v", [(1, 1, 0.02, 0.05), (1, 3, 0.09, 0.0), (2, 5, 0.06, 0.12), (3, 2, 0.06, 0.12)])
def test_grid_layout_matches_make_subplots(rows, cols, h, v):
    titles = [f"p{k}" for k in range(rows * cols)]
    ours = figures._grid(rows, cols, titles, h_space=h, v_space=v, font_size=13)
    ref = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=h, vertical_spacing=v).layout
    for k in range(rows * cols):
        xa, ya, xr, yr = figures._axis_names(k)
        np.testing.assert_allclose(ours[xa]["domain"], ref[xa].domain, atol=1e-12)
        np.testing.assert_allclose(ours[ya]["domain"], ref[ya].domain, atol=1e-12)
        assert (ours[xa]["anchor"], ours[ya]["anchor"]) == (ref[xa].anchor, ref[ya].anchor) == (yr, xr)
    for mine, theirs in zip(ours["annotations"], ref.annotations, strict=True):
        assert mine["text"] == theirs.text
        assert (mine["x"], mine["y"]) == pytest.approx((theirs.x, theirs.y))


def test_template_edits_do_not_leak_between_figures():
    first = figures.heatmap(A, TOKENS)
    first.layout.template.layout.paper_bgcolor = "#ff0000"
    assert figures.heatmap(A, TOKENS).layout.template.layout.paper_bgcolor != "#ff0000"
