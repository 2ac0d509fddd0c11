"""viz_app.shell.chart: one component per chart. Per-sentence figures are built by the page's own definitions and
drawn by the figure host (canvas components, docs/figure-components.md), with the provenance their exports name;
plotly.js (served from the static folder, else inlined) only draws the server's corpus figures."""

from __future__ import annotations

import re

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


def test_sentence_charts_are_figure_specs_with_provenance_and_no_plotly():
    at = run_app(view="explore")
    assert_clean(at)
    payloads = chart_payloads(at)
    assert {p["id"].rsplit("-", 1)[-1] for p in payloads} >= {"chart_prediction", "chart_overview"}
    figures = [p for p in payloads if p["role"] == "figure"]
    assert figures and all("plotly_url" not in p for p in figures)  # drawn by the figure host, not plotly.js
    for p in figures:  # what the host's exports write (figure_host.js)
        assert re.fullmatch(r"[0-9a-f]{64}", p["provenance"]["checkpointSha256"]), p["provenance"]
        assert p["provenance"]["version"] not in ("", "unknown")
    specs = charts(at)
    assert all(s["kind"] == "figure" for s in specs)
    assert any(panel["kind"] == "heatmap" for s in specs for panel in s["panels"])
    assert not at.get("plotly_chart")


def test_corpus_charts_are_drawn_by_plotly_from_the_static_url():
    at = run_app(view="evidence")
    assert_clean(at)
    corpus = [p for p in chart_payloads(at) if p["role"] == "chart"]
    assert corpus and all(p["plotly_url"] == f"app/static/{plotly_js.PLOTLY_JS}" for p in corpus)


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
    assert len(payloads) >= 3 and all(p.get("plotly_url") is None for p in payloads)
    names = {c.proto.component_name for c in at.get("bidi_component")}
    assert {n for n in names if n.startswith("viz_plotly_chart")} == {"viz_plotly_chart_inline"}
    assert any(panel["kind"] == "heatmap" for s in charts(at) for panel in s["panels"])
    assert not at.get("plotly_chart")


def test_the_served_component_s_messages_carry_a_loader_not_the_bundle(tmp_path, monkeypatch):
    """Streamlit sends a component's module text in every element's message on every rerun: the served component's
    module is a loader of the bundle served from viz_app/static/ (chart-<digest>.js), not the bundle (235 kB)."""
    from viz_app.draw import bundles

    monkeypatch.setattr(chart, "STATIC_DIR", tmp_path / "static")
    chart.chart_js_copied.clear()
    try:
        at = run_app(view="explore")
        assert_clean(at)
        protos = [c.proto for c in at.get("bidi_component") if c.proto.component_name.startswith("viz_plotly_chart")]
        bundle = bundles.text("chart")
        assert len(protos) >= 3 and {p.component_name for p in protos} == {"viz_plotly_chart"}
        for p in protos:
            assert len(p.js_content.encode()) < 1000 < len(bundle.encode()) / 100, len(p.js_content)
            assert f'"app/static/{chart.chart_js_name()}"' in p.js_content and "mountPageFigure" not in p.js_content
        assert (tmp_path / "static" / chart.chart_js_name()).read_text(encoding="utf-8") == bundle
    finally:
        chart.chart_js_copied.clear()


def test_the_chart_that_asks_for_a_trace_view_carries_it_on_the_next_rerun(monkeypatch):
    """A page that lacks a view asks through the chart that needs it; that chart's next message must carry it:
    carried by another chart only, the asking chart's message stays the same and Streamlit renders it no more."""
    from types import SimpleNamespace

    from viz_app.draw.site_view import PageView

    fake = SimpleNamespace(session_state={})
    monkeypatch.setattr(chart, "st", fake)
    view = PageView(id="v1", view="{}", arrays="")
    first, second = {}, {}
    chart._carry([view], first, "maps")
    chart._carry([view], second, "bars")
    assert "v1" in first["views"] and "views" not in second  # sent once, with the first chart
    fake.session_state["bars"] = {"missing": "v1"}
    chart._view_missing("bars")
    again_maps, again_bars = {}, {}
    chart._carry([view], again_maps, "maps")
    chart._carry([view], again_bars, "bars")
    assert "views" not in again_maps and "v1" in again_bars["views"]  # the chart that asked
    later = {}
    chart._carry([view], later, "bars")
    assert "views" not in later  # once
