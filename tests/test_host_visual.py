"""Visual regression of the figures as the hosts draw them: report files (figure_host.js over the canvas
components, the report's bundle) opened in headless Chromium at fixed inputs, each figure's element compared
with a stored PNG in tests/fixtures/visual/host-*.png (tests/visual.py).

The inputs are fixed: the test session's tiny random-weight models (tests/conftest.py make_tiny, seeded) on
fixed sentences, the page 1000 × 900 CSS pixels at devicePixelRatio 1. The kinds:

- host-masked: the masks view (a one-figure report, the app's HTML download) of a DSA at α = 0.5: −∞ cells in
  the theme's masked colour beside finite ones, six panels;
- host-shared-bar: the report's mean map, forward and backward panels sharing one colour bar (on one panel), the
  cells each block's mask excludes in the masked colour;
- host-diverging: a minimal pair's forward maps, A, B and the diverging B − A map centred on 0, the inserted
  word's row and column outlined (green) and A's cells that B's word has no counterpart for empty;
- host-bars: the report's gate figure, two bar charts;
- host-talk: talk mode (the key t), a clicked row's bars and its largest cell outlined.

Tolerance: at most 0.1 % of a figure's pixels may differ by more than 24 (of 255) in any channel. The same
Chromium draws these figures identically (canvas cells from one colour table, no smoothing); another build may
anti-alias glyph edges differently, which moves single pixels by more than 24 along text, far fewer than one
cell. One cell is the smallest change that matters (a wrong colour, a lost mask), and the test checks that each
figure's smallest cell covers more than 0.1 % of the image, so a one-cell change fails. To regenerate after a
deliberate change of the look (then look at the PNGs before committing):
``DISAN_UPDATE_VISUAL=1 .venv/bin/python -m pytest tests/test_host_visual.py -k visual``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import guarded_page, make_tiny
from tests.visual import check_against_stored

pytestmark = pytest.mark.browser
MAX_SHARE = 0.001
A, B = "the movie is good .", "the movie is very good ."  # B inserts a word: its row and column outlined
HOST = "f => Disan.Report.figureHost(document.getElementById('report'), f)"


@pytest.fixture(scope="module")
def reports(tmp_path_factory, tiny_glove) -> dict[str, Path]:
    """Three report files of the tiny models: DiSAN's report, a DSA's masks figure alone, DiSAN's minimal pair."""
    from viz_app.draw import pair_report, report

    out = tmp_path_factory.mktemp("host-visual")
    disan, dsa = make_tiny("disan", tiny_glove), make_tiny("dsa", tiny_glove)
    a, b = disan.trace(A), disan.trace(B)
    pages = {
        "report": report.report_html(a),
        "masks": report.report_html(dsa.trace(A, alpha=0.5), only="masks", params={"side": "premise", "alpha": 0.5}),
        "pair": pair_report.pair_report_html(a, b, pair_report.pair_leave_one_out(disan, a, b)),
    }
    for name, html in pages.items():
        (out / f"{name}.html").write_text(html, encoding="utf-8")
    return {name: out / f"{name}.html" for name in pages}


@pytest.fixture
def open_report(chromium):
    opened = []

    def opener(path: Path):
        own = path.resolve().as_uri()
        context, page, blocked, errors = guarded_page(chromium, lambda url: url == own, 30_000, width=1000)
        page.set_viewport_size({"width": 1000, "height": 900})
        page.goto(own)
        page.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
        opened.append((context, blocked, errors))
        return page

    yield opener
    for context, blocked, errors in opened:
        context.close()
        assert not blocked and not errors, (blocked, errors)


def figure_png(page, fig: str) -> bytes:
    """The figure's element (title line, panels) as the page shows it, once its drawing is settled."""
    el = page.locator(f'[data-figure="figure:{fig}"]')
    el.scroll_into_view_if_needed()
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return el.screenshot(animations="disabled", caret="hide")


def smallest_cell_share(page, fig: str) -> float:
    """The area of the figure's smallest heatmap cell over the figure element's area (1.0 when it has none)."""
    return page.evaluate(
        f"""f => {{ const h = ({HOST})(f), box = h.root.getBoundingClientRect();
               const cells = h.panels.filter(p => p.kind === 'heatmap').map(p => p.component.layout.cw * p.component.layout.ch);
               return cells.length ? Math.min(...cells) / (box.width * box.height) : 1; }}""", fig)


def compare(page, fig: str, name: str) -> None:
    assert smallest_cell_share(page, fig) > MAX_SHARE, f"{name}: one cell is within the tolerance"
    check_against_stored(figure_png(page, fig), name, MAX_SHARE, __file__)


def test_visual_masked_cells(open_report, reports):
    page = open_report(reports["masks"])
    [fig] = page.evaluate("() => Array.from(document.querySelectorAll('[data-figure^=\"figure:\"]'), e => e.dataset.figure.slice(7))")
    masked = page.evaluate(f"f => ({HOST})(f).panels.map(p => (p.component.view.masked || []).flat().filter(Boolean).length)", fig)
    assert masked[1] > 0 and masked[3] == 0, masked  # M_fw has −∞ cells, α·M_dis none
    compare(page, fig, "host-masked")


def test_visual_shared_colour_bar(open_report, reports):
    page = open_report(reports["report"])
    bars = page.evaluate(f"f => ({HOST})(f).panels.map(p => p.kind === 'heatmap' ? !!p.component.layout.bar : null)", "mean-premise")
    assert bars == [False, True, None], bars  # one colour bar for the pair of maps; the row's bars hidden
    # each block's excluded cells (DiSAN: the diagonal and one side of it, DESIGN.md) are masked, nothing else
    masked = page.evaluate(f"f => ({HOST})(f).panels.filter(p => p.kind === 'heatmap').map(p => "
                           "p.component.view.masked.map(row => row.map(Number)))", "mean-premise")
    T = len(A.split())
    assert masked == [[[int(j >= i) for j in range(T)] for i in range(T)], [[int(j <= i) for j in range(T)] for i in range(T)]]
    compare(page, "mean-premise", "host-shared-bar")


def test_visual_diverging_difference(open_report, reports):
    page = open_report(reports["pair"])
    fig = "pair-mean-fw-premise"
    views = page.evaluate(f"f => ({HOST})(f).panels.map(p => [p.component.view.scale, p.component.view.outlines])", fig)
    assert [scale for scale, _ in views] == ["sequential", "sequential", "diverging"], views
    assert all({o["axis"] for o in outlines} == {"row", "column"} for _, outlines in views), views
    compare(page, fig, "host-diverging")


def test_visual_bars(open_report, reports):
    page = open_report(reports["report"])
    kinds = page.evaluate(f"f => ({HOST})(f).panels.map(p => p.kind)", "gate-premise")
    assert kinds == ["bars", "bars"], kinds
    compare(page, "gate-premise", "host-bars")


def test_visual_talk_mode_highlighted_cell(open_report, reports):
    page = open_report(reports["report"])
    page.locator("h1").click()
    page.keyboard.press("t")
    host = f"({HOST})('mean-premise')"
    page.wait_for_function(f"() => {host}.panels[0].component.view.theme === 'presentation'")
    stage = page.locator('[data-figure="heatmap:mean-premise/forward"] .disan-fig__stage')
    stage.scroll_into_view_if_needed()
    L = page.evaluate(f"() => {{ const L = {host}.panels[0].component.layout; return {{x: L.plot.x, y: L.plot.y, cw: L.cw, ch: L.ch}}; }}")
    box = stage.bounding_box()
    page.mouse.click(box["x"] + L["x"] + 0.5 * L["cw"], box["y"] + L["y"] + 3.5 * L["ch"])  # row 3 of the forward map
    view = page.evaluate(f"() => {{ const v = {host}.panels[0].component.view; return [v.theme, v.highlight]; }}")
    assert view[0] == "presentation" and view[1] is not None and view[1][0] == 3, view
    page.mouse.move(0, 0)  # no hover outline in the picture
    compare(page, "mean-premise", "host-talk")
