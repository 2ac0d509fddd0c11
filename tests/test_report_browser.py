"""The report in headless Chromium with every request blocked: it draws, its controls match the core.

Writes reports with `python -m viz_app report` (the bundled models when present, else the random-weight
ones), opens them from disk with every request except the file itself aborted, and reads the numbers each
figure's canvas components draw (their public `view`, through `Disan.Report.figureHost`; the contract of
docs/figure-components.md) after the α / feature controls move. Saves report.png (to docs/screenshots/ under
DISAN_REFRESH_DOCS=1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import disan
from viz_app.cli import main
from tests.conftest import guarded_page, docs_out

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = docs_out("screenshots")
TIMEOUT_MS = 90_000
SENTENCE = "A lady stands outside of a Mexican market ."
TRAINED = (ROOT / "pretrained" / "dsa-nli.safetensors").exists()
DSA = ("dsa-nli", "A woman is outdoors .") if TRAINED else ("dsa", None)
DISAN = "disan-sst5" if (ROOT / "pretrained" / "disan-sst5.safetensors").exists() else "disan"


@pytest.fixture
def open_offline(chromium):
    """Open a file with every other request aborted; yields (page, blocked requests, page errors)."""
    opened = []

    def opener(path: Path, width: int = 1400):
        own = path.resolve().as_uri()
        context, page, blocked, errors = guarded_page(chromium, lambda url: url == own, TIMEOUT_MS, width)
        page.goto(own)
        page.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
        opened.append(context)
        return page, blocked, errors

    yield opener
    for context in opened:
        context.close()


def write(tmp_path: Path, name: str, model: str, text: str, *extra: str) -> Path:
    out = tmp_path / f"{name}.html"
    assert main(["report", text, "--model", model, "--out", str(out), "--device", "cpu", *extra]) == 0
    return out


#: A figure's host (figure_host.js) by id, as the report drew it.
HOST = "f => Disan.Report.figureHost(document.getElementById('report'), f)"


def z_of(page, fig: str, panel: int) -> np.ndarray:
    """The z that panel ``panel`` of figure ``fig`` draws (its component's public view)."""
    values = page.evaluate(
        f"([f, p]) => Array.from(({HOST})(f).panels[p].component.view.z, r => Array.from(r, v => v === null ? NaN : v))",
        [fig, panel],
    )
    return np.asarray(values, dtype=np.float64)


def view_of(page, fig: str, panel: int, key: str):
    return page.evaluate(f"([f, p, k]) => ({HOST})(f).panels[p].component.view[k]", [fig, panel, key])


def move(page, control: str, key: str, expect: str) -> None:
    """Focus the first ``control`` slider, press ``key`` and wait until every live map is redrawn."""
    page.locator(f'input[data-control="{control}"]').first.focus()
    page.keyboard.press(key)
    page.wait_for_function(
        "([c, v]) => document.getElementById('report').dataset[c] === v", arg=[control, expect]
    )


def test_dsa_report_draws_offline_and_alpha_matches_probs_at(tmp_path, open_offline):
    model_name, hypothesis = DSA
    path = write(tmp_path, "dsa", model_name, SENTENCE, *(["--hypothesis", hypothesis] if hypothesis else []))
    page, blocked, errors = open_offline(path)
    n_figures = page.locator(".plot[data-fig]").count()
    # every figure drawn by the components (data-figure / data-drawn), none by a plotting library
    assert page.locator(".plot[data-fig] > .disan-figure[data-figure^='figure:']").count() == n_figures >= 6
    assert page.locator(".plot[data-fig] [data-figure^='heatmap:'] canvas[data-layer='cells']").count() >= 4
    assert page.locator(".js-plotly-plot").count() == 0 and page.evaluate("() => typeof Plotly") == "undefined"
    cells_before = page.evaluate(f"() => ({HOST})('alpha-mean-premise').panels[0].component.paints.cells")
    trace = disan.load(model_name, device="cpu").trace(SENTENCE, hypothesis)
    for key, alpha in (("Home", 0.0), ("End", 5.0)):
        move(page, "alpha", key, f"{alpha:g}")
        for side, sent in (("premise", trace.premise), ("hypothesis", trace.hypothesis)):
            if sent is None:
                continue
            T = len(sent.tokens)
            for d, block in (("fw", sent.encoder.fw), ("bw", sent.encoder.bw)):
                want = block.probs_at(alpha)[0, :, :T, :T].numpy().astype(np.float64)  # (H, T, T)
                for h in range(want.shape[0]):
                    got = z_of(page, f"alpha-heads-{d}-{side}", h)
                    np.testing.assert_allclose(got, want[h], atol=1e-5, rtol=0)
                got = z_of(page, f"alpha-mean-{side}", 0 if d == "fw" else 1)
                np.testing.assert_allclose(got, want.mean(0), atol=1e-5, rtol=0)
        title = page.evaluate(f"() => ({HOST})('alpha-mean-premise').spec.title")
        assert f"α = {alpha:g}" in title
        assert f"α = {alpha:g}" in page.locator(".plot[data-fig='alpha-mean-premise'] .disan-figure__title").text_content()
    # the α moves repainted the cells of the components kept from the first drawing (update(view), no new figure)
    assert page.evaluate(f"() => ({HOST})('alpha-mean-premise').panels[0].component.paints.cells") >= cells_before + 2
    slider = page.locator('input[data-control="alpha"]').first
    for _ in range(5):  # a fast drag: events arrive while the page is still drawing
        slider.press("ArrowLeft")
    page.wait_for_function("() => document.getElementById('report').dataset.alpha === '4.5'")
    T = len(trace.premise.tokens)
    want = trace.premise.encoder.bw.probs_at(4.5)[0, :, :T, :T].numpy().astype(np.float64)
    np.testing.assert_allclose(z_of(page, "alpha-mean-premise", 1), want.mean(0), atol=1e-5, rtol=0)
    move(page, "alpha", "End", "5")
    move(page, "alpha", "ArrowLeft", "4.9")
    page.locator("h1").click()
    page.keyboard.press("j")  # Tokens → Head-averaged attention (the first maps come before the prediction chart)
    assert page.evaluate("() => location.hash") == "#dsa-mean"
    page.keyboard.press("j")
    assert page.evaluate("() => location.hash") == "#prediction"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "report.png"), full_page=False)
    assert blocked == [] and errors == [], (blocked, errors)


def test_disan_report_feature_scrubber_keyboard_and_talk_mode(tmp_path, open_offline):
    path = write(tmp_path, "disan", DISAN, SENTENCE)
    page, blocked, errors = open_offline(path)
    trace = disan.load(DISAN, device="cpu").trace(SENTENCE)
    T = len(trace.tokens)
    for step in range(3):
        move(page, "feature", "ArrowRight", str(step + 1))
    for index, block in enumerate((trace.premise.encoder.fw, trace.premise.encoder.bw)):
        want = block.probs[0, :T, :T, 3].numpy()
        got = z_of(page, "feature-premise", index)
        np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)  # Shen Eq. 15 from the view's parts, float32
        assert np.all(got[~block.allowed[0, :T, :T].numpy()] == 0)

    page.select_option('select[data-control="word"]', "2")
    page.wait_for_function(f"() => ({HOST})('s2t-premise').panels[0].component.view.title.startsWith('#2 ')")
    want_s2t = trace.premise.encoder.s2t_probs[0, 2].numpy()  # (2D,)
    np.testing.assert_allclose(z_of(page, "s2t-premise", 0).ravel()[:want_s2t.size], want_s2t, atol=1e-5, rtol=0)
    page.locator("h1").click()
    first = page.evaluate("() => location.hash")
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate("() => location.hash") not in (first, "")
    page.keyboard.press("t")
    assert page.evaluate("() => document.body.classList.contains('talk')")
    assert view_of(page, "mean-premise", 0, "theme") == "presentation"
    assert page.evaluate(f"() => ({HOST})('mean-premise').panels[0].component.layout.f.tick") > 13
    page.keyboard.press("k")
    assert page.evaluate("() => location.hash").endswith("-talk")
    assert blocked == [] and errors == [], (blocked, errors)


def test_notebook_view_draws_offline(tmp_path, open_offline):
    trace = disan.load("dsa", device="cpu").trace(SENTENCE)
    page_file = tmp_path / "notebook.html"
    page_file.write_text(
        f'<!DOCTYPE html><html><body><div id="report" data-ready="1"></div>{trace._repr_html_()}</body></html>',
        encoding="utf-8",
    )
    page, blocked, errors = open_offline(page_file)
    frame = page.frames[1]
    frame.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
    assert frame.locator("[data-figure^='heatmap:'] canvas[data-layer='cells']").count() >= 2
    assert frame.locator(".js-plotly-plot").count() == 0
    assert blocked == [] and errors == [], (blocked, errors)


def test_talk_mode_row_click_highlight_hover_and_exports(tmp_path, open_offline):
    """Talk mode: every panel takes the presentation theme (bigger text, its palette); a clicked row shows its bars
    and outlines the row's largest cell; hover names the cell and its value; each export names the checkpoint's
    SHA-256 and the project's version (docs/figure-components.md "Figure specs and the host")."""
    from viz_app.draw.provenance import provenance

    path = write(tmp_path, "talk", DISAN, "a gorgeous , witty , seductive movie .")
    page, blocked, errors = open_offline(path)
    prov = provenance(DISAN, DISAN == "disan")
    stage = page.locator("[data-figure='heatmap:mean-premise/forward'] .disan-fig__stage")
    stage.scroll_into_view_if_needed()
    box = stage.bounding_box()
    layout = page.evaluate(f"() => ({HOST})('mean-premise').panels[0].component.layout")
    plot = layout["plot"]
    x, y = box["x"] + plot["x"] + 1.5 * layout["cw"], box["y"] + plot["y"] + 3.5 * layout["ch"]  # row 3, column 1
    page.mouse.move(x, y)
    tip = page.locator("[data-figure='heatmap:mean-premise/forward'] .disan-fig__tip")
    tip.wait_for(state="visible")
    want = z_of(page, "mean-premise", 0)
    assert tip.text_content().startswith("row: #3 ") and "column: #1 " in tip.text_content(), tip.text_content()
    assert f"P = {want[3, 1]:.6g}"[:8] in tip.text_content(), tip.text_content()
    page.keyboard.press("t")
    assert view_of(page, "mean-premise", 0, "theme") == "presentation"
    stage.scroll_into_view_if_needed()
    box, layout = stage.bounding_box(), page.evaluate(f"() => ({HOST})('mean-premise').panels[0].component.layout")
    plot = layout["plot"]
    page.mouse.click(box["x"] + plot["x"] + 1.5 * layout["cw"], box["y"] + plot["y"] + 3.5 * layout["ch"])
    bars = page.evaluate(f"() => ({HOST})('mean-premise').panels[2].component.view")
    np.testing.assert_allclose(np.asarray(bars["values"], np.float64), want[3], atol=1e-6)
    assert bars["title"].startswith("Row #3 ")
    assert view_of(page, "mean-premise", 0, "highlight") == [3, int(np.nanargmax(want[3]))]
    svg = page.evaluate(f"() => ({HOST})('mean-premise').exportAs('svg', 'forward').then(f => f.data)")
    assert prov["checkpointSha256"] in svg and prov["version"] in svg and svg.count('class="cell"') == want.size
    html = page.evaluate(f"() => ({HOST})('mean-premise').exportAs('html').then(f => f.data)")
    assert html.splitlines()[1] == (f"<!-- figure=mean-premise model={prov['model']} checkpoint_sha256={prov['checkpointSha256']} "
                                    f"version={prov['version']} -->")
    csv = page.evaluate(f"() => ({HOST})('mean-premise').exportAs('csv', 'backward').then(f => f.data)")
    assert csv.splitlines()[0] == (f"# figure=heatmap:mean-premise/backward model={prov['model']} "
                                   f"checkpoint_sha256={prov['checkpointSha256']} "
                                   f"version={prov['version']}")
    page.keyboard.press("t")
    assert view_of(page, "mean-premise", 0, "theme") in (None, "normal") and view_of(page, "mean-premise", 0, "highlight") is None
    assert blocked == [] and errors == [], (blocked, errors)


_HOST_CHECK = """async () => {
  const div = document.createElement('div');
  document.body.append(div);
  const spec = (z, names) => ({kind: 'figure', name: 'check', title: 'check <b>', panels: names.map(n =>
    ({kind: 'heatmap', name: n, view: {z, rowTokens: ['x', 'y'], valueName: 'P'}}))});
  const h = Disan.FigureHost.mountFigure(div, spec([[1, 0], [0, 1]], ['a']), {provenance: {checkpointSha256: 'abc', version: '9'}});
  const first = h.panels[0].component, out = {title: div.querySelector('.disan-figure__title').textContent};
  out.same = h.update(spec([[0, 1], [1, 0]], ['a'])) && h.panels[0].component === first;
  out.cells = first.paints.cells;
  out.frame = first.paints.frame;
  out.badSpec = h.update({kind: 'figure', name: 'check', panels: []});
  out.badSpecLine = div.querySelector('.disan-figure__error').textContent;
  out.badSpecDrawn = div.querySelector('.disan-figure').dataset.drawn;
  out.badView = h.update(spec([[1, 0]], ['a']));
  out.badViewLine = div.querySelector('.disan-fig__error').textContent;
  out.good = h.update(spec([[1, 0], [0, 1]], ['a', 'b']));
  out.rebuilt = h.panels.length === 2 && h.panels[0].component !== first;
  out.drawn = div.querySelector('.disan-figure').dataset.drawn;
  out.errorHidden = div.querySelector('.disan-figure__error').hidden;
  const png = await h.exportAs('png', 'b');
  out.png = [png.filename, png.mime, png.data.size];
  out.unknown = await h.exportAs('svg', 'c').then(() => '', e => e.message);
  return out;
}"""


def test_the_figure_host_updates_in_place_rebuilds_on_new_panels_and_refuses_bad_input_in_one_line(tmp_path, open_offline):
    """figure_host.js on its own (docs/figure-components.md "Figure specs and the host"): the same panels keep their
    components (only the cells repaint), other panels rebuild the grid, a bad spec or a bad view is one line naming
    it (data-drawn says error), and the next good spec draws again; titles are text, never HTML."""
    path = write(tmp_path, "host", DISAN, "a good film .")
    page, blocked, errors = open_offline(path)
    got = page.evaluate(_HOST_CHECK)
    assert got["title"] == "check <b>"
    assert got["same"] is True and got["cells"] == 2 and got["frame"] == 1, got
    assert got["badSpec"] is False and "panels should list at least one panel" in got["badSpecLine"], got
    assert "\n" not in got["badSpecLine"] and got["badSpecDrawn"].endswith(":error"), got
    assert got["badView"] is False and "z has 1 rows but there are 2 row tokens" in got["badViewLine"], got
    assert got["good"] is True and got["rebuilt"] and got["errorHidden"] and got["drawn"].endswith(':["x","y"]'), got
    assert got["png"][0] == "heatmap_check_b.png" and got["png"][1] == "image/png" and got["png"][2] > 1000, got
    assert "has no panel \"c\"" in got["unknown"], got
    assert blocked == [] and errors == [], (blocked, errors)


_ROW_BARS_CHECK = """() => {
  const div = document.createElement('div');
  document.body.append(div);
  const spec = (z) => ({kind: 'figure', name: 'follow', panels: [
    {kind: 'heatmap', name: 'forward', view: {z, rowTokens: ['x', 'y', 'z'], valueName: 'P'}},
    {kind: 'bars', name: 'row', view: {values: z[2], labels: ['x', 'y', 'z'], title: 'Row #2 (click a row)'}}],
    rowBars: {panel: '*', bars: 'row', title: 'Row'}});
  const h = Disan.FigureHost.mountFigure(div, spec([[1, 0, 0], [0.2, 0.3, 0.5], [0, 0, 1]]));
  h.panels[0].component.selectRow(1);
  const bars = h.panels[1].component, out = {clicked: Array.from(bars.view.values)};
  h.update(spec([[1, 0, 0], [0.6, 0.3, 0.1], [0, 0, 1]]));  // feature k moved: the same panels, new numbers
  out.followed = Array.from(bars.view.values);
  out.title = bars.view.title;
  return out;
}"""


def test_the_clicked_rows_bars_follow_a_new_spec_of_the_same_figure(tmp_path, open_offline):
    """A clicked row's bars follow the figure's next numbers (feature k's slider, α) without another click
    (figure_host.js keeps the selected row across update(spec))."""
    path = write(tmp_path, "follow", DISAN, "a good film .")
    page, blocked, errors = open_offline(path)
    got = page.evaluate(_ROW_BARS_CHECK)
    assert got["clicked"] == [0.2, 0.3, 0.5], got
    assert got["followed"] == [0.6, 0.3, 0.1] and got["title"].startswith("Row #1 'y'"), got
    assert blocked == [] and errors == [], (blocked, errors)


_OUTLINES_CHECK = """async () => {
  const div = document.createElement('div');
  document.body.append(div);
  const view = {z: [[1, 0], [0, 1]], rowTokens: ['x', '+y'], valueName: 'P'};
  const h = Disan.FigureHost.mountFigure(div, {kind: 'figure', name: 'edits', panels: [{kind: 'heatmap', name: 'A',
    view: {...view, outlines: [{axis: 'row', index: 1, colour: '#1a9850'}, {axis: 'column', index: 1, colour: '#1a9850'}]}}]});
  const marks = h.panels[0].component.paints.marks, svg = String((await h.exportAs('svg')).data);
  h.update({kind: 'figure', name: 'edits', panels: [{kind: 'heatmap', name: 'A', view: {...view, outlines: []}}]});
  return {svg, marks, again: h.panels[0].component.paints.marks,
          after: String((await h.exportAs('svg')).data)};
}"""


def test_a_heatmaps_outlined_rows_and_columns_are_drawn_and_exported(tmp_path, open_offline):
    """The heatmap's `outlines` (the pair view's inserted and deleted steps) are painted on its marks layer and
    kept in the SVG export; a view without them repaints the marks without them."""
    path = write(tmp_path, "outlines", DISAN, "a good film .")
    page, blocked, errors = open_offline(path)
    got = page.evaluate(_OUTLINES_CHECK)
    assert got["svg"].lower().count("#1a9850") == 2, got["svg"][-600:]
    assert got["again"] == got["marks"] + 1 and "#1a9850" not in got["after"].lower()
    assert blocked == [] and errors == [], (blocked, errors)


def test_a_report_with_attribution_draws_every_method_lrp_included_offline(tmp_path, open_offline):
    """``report --attribution``: the last section holds the Attribution view's bars (one panel per method, LRP
    among them, each divided by its largest magnitude) and the Kendall τ map, drawn offline with the contract."""
    from disan.attribution import METHODS

    page, blocked, errors = open_offline(write(tmp_path, "attribution", DISAN, SENTENCE, "--attribution"))
    assert not blocked and not errors, (blocked, errors)
    page.locator("#attribution").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.plot[data-fig=\"tau-premise\"] [data-figure]')?.dataset.drawn")
    titles = page.evaluate(f"() => ({HOST})('attribution-premise').panels.map(p => p.component.view.title)")
    assert METHODS["lrp"][0] in titles and METHODS["integrated_gradients"][0] in titles, titles
    lrp = page.evaluate(f"() => Array.from(({HOST})('attribution-premise').panels[{titles.index(METHODS['lrp'][0])}]"
                        ".component.view.values)")
    assert max(abs(v) for v in lrp) == pytest.approx(1.0)  # divided by its largest magnitude
    drawn = page.eval_on_selector_all("#attribution [data-figure]", "els => els.map(e => e.dataset.drawn)")
    assert drawn and all(d and not d.endswith(":error") for d in drawn), drawn
    assert page.locator("#attribution figcaption").count() == 2


def test_a_talk_links_section_is_scrolled_to_and_leaving_talk_mode_drops_talk_from_the_address(chromium, tmp_path):
    """Before, "#disan-gate-talk" turned talk mode on at the top of the page (no element has that id), and "t"
    left "-talk" in the address, so a reload reopened in talk mode."""
    path = write(tmp_path, "talk-link", DISAN, SENTENCE)
    own = path.resolve().as_uri()
    context, page, blocked, errors = guarded_page(chromium, lambda url: url == own, TIMEOUT_MS, 1400)
    try:
        page.goto(own + "#disan-gate-talk")
        page.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
        page.wait_for_function("() => document.body.classList.contains('talk')")
        page.wait_for_function("""() => { const s = document.getElementById('disan-gate').getBoundingClientRect();
                                          return s.top > -2 && s.top < innerHeight / 2; }""")
        assert page.evaluate("() => scrollY") > 500
        page.keyboard.press("t")
        page.wait_for_function("() => !document.body.classList.contains('talk')")
        assert page.evaluate("() => location.hash") == "#disan-gate"
        page.keyboard.press("t")
        assert page.evaluate("() => location.hash") == "#disan-gate-talk"
        assert not blocked and not errors, (blocked, errors)
    finally:
        context.close()
