"""The Python look the corpus figures still use (viz_app/draw/figures.py: ``_layout``, ``_template``, ``_scale``,
``standalone_html``). The per-sentence figures are built by the page (viz_app/browser/figures.js) as figure specs
and tested as JavaScript: tests/js/figures.test.mjs (run by tests/test_front_end.py).
"""

from __future__ import annotations

from viz_app.draw import figures
from viz_app.draw.theme import NORMAL, PRESENTATION


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


def test_standalone_html_inlines_plotly_and_needs_no_cdn():
    layout = figures._layout(NORMAL, "<script>alert(1)</script>", 300)
    fig = figures._figure([{"type": "heatmap", "z": [[0.0, 1.0]], "y": ["<script>alert(1)</script>"]}], layout)
    html = figures.standalone_html(fig, {"displaylogo": False})
    assert "<script src=" not in html and "cdn.plot.ly/plotly" not in html
    assert len(html) > 1_000_000  # plotly.js itself is inside
    assert "<script>alert(1)" not in html
    assert "&lt;script&gt;" in html or "\\u0026lt;script\\u0026gt;" in html
