"""viz_app.shell.chart: figures drawn by the in-place Plotly component, with st.plotly_chart as the fallback."""

from __future__ import annotations

from tests.test_app import assert_clean, chart_payloads, charts, run_app
from viz_app.draw.plotly_bundle import plotly_bundle
from viz_app.shell import chart, plotly_js


def test_plotly_js_is_copied_to_the_static_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(plotly_js, "STATIC_DIR", tmp_path / "static")
    plotly_js.plotly_js_served.clear()
    try:
        assert plotly_js.plotly_js_served()
        assert (tmp_path / "static" / plotly_js.PLOTLY_JS).read_bytes() == plotly_bundle().read_bytes()
    finally:
        plotly_js.plotly_js_served.clear()


def test_charts_are_components_with_the_figure_and_the_static_plotly_url():
    at = run_app(view="explore")
    assert_clean(at)
    payloads = chart_payloads(at)
    assert {p["id"].rsplit("-", 1)[-1] for p in payloads} >= {"chart_prediction", "chart_overview"}
    assert all(p["plotly_url"] == f"app/static/{plotly_js.PLOTLY_JS}" for p in payloads)
    assert any(t["type"] == "heatmap" for fig in charts(at) for t in fig["data"])
    assert not at.get("plotly_chart")


def test_clickable_heatmap_asks_for_selection_events():
    at = run_app(view="disan_attention", model="disan")
    assert_clean(at)
    selectable = {p["id"].rsplit("-", 1)[-1]: p["selectable"] for p in chart_payloads(at)}
    assert selectable["chart_disan_pair"] is True
    assert not any(v for k, v in selectable.items() if k != "chart_disan_pair")


def test_without_static_serving_the_component_carries_plotly_js(monkeypatch):
    monkeypatch.setattr(chart, "plotly_js_served", lambda: False)
    at = run_app(view="explore")
    assert_clean(at)
    payloads = chart_payloads(at)
    assert len(payloads) >= 3 and all(p["plotly_url"] is None for p in payloads)
    names = {c.proto.component_name for c in at.get("bidi_component")}
    assert {n for n in names if n.startswith("viz_plotly_chart")} == {"viz_plotly_chart_inline"}
    assert any(t["type"] == "heatmap" for fig in charts(at) for t in fig["data"])
    assert not at.get("plotly_chart")
