"""The figure components in headless Chromium, on the demo page (tests/components_page.py): they draw, hover
names the cell, a click emits the row, the keyboard moves and announces, update() repaints only what
changed and data-drawn changes with the pixels, the exports, bad input, the table fallback, axe-core, and
visual regression against tests/fixtures/visual/.

Visual regression (tests/visual.py): a figure passes when at most 0.5 % of its pixels differ from the stored PNG
by more than 24 (of 255) in any channel (text anti-aliasing varies a little between Chromium builds). After a
deliberate change of the look, regenerate the stored PNGs and look at them before committing:
``DISAN_UPDATE_VISUAL=1 .venv/bin/python -m pytest tests/test_figure_components_browser.py -k visual``. The hosts'
figures have their own (tests/test_host_visual.py)."""

from __future__ import annotations

import base64
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from plotly.colors import sample_colorscale, unlabel_rgb

from tests.components_page import build_demo
from tests.conftest import guarded_page
from tests.visual import check_against_stored

pytestmark = pytest.mark.browser
KINDS = ("sequential", "diverging", "talk", "horizontal", "vertical")
MAX_SHARE = 0.005


@pytest.fixture(scope="module")
def demo_url(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("components")).as_uri()


@pytest.fixture
def page(chromium, demo_url):
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith("file://"), 10_000, width=700)
    page.goto(demo_url)
    page.wait_for_function("window.demo !== undefined")
    yield page
    context.close()
    assert not blocked and not errors, (blocked, errors)


def layout(page, fig: str) -> dict:
    return page.evaluate(f"(() => {{ const L = demo.figures.{fig}.layout; return {{plot: L.plot, cw: L.cw, ch: L.ch}}; }})()")


def cell_point(page, fig: str, r: int, c: int, fx: float = 0.5, fy: float = 0.5) -> tuple[float, float]:
    """A point in cell (r, c) in page coordinates (fx, fy: where inside the cell, 0..1)."""
    L = layout(page, fig)
    box = page.locator(f"#fig-{fig} .disan-fig__stage").bounding_box()
    return box["x"] + L["plot"]["x"] + (c + fx) * L["cw"], box["y"] + L["plot"]["y"] + (r + fy) * L["ch"]


def pixel(page, fig: str, layer: str, x: float, y: float) -> list[int]:
    """RGBA of a layer's canvas at a point in the stage's CSS pixels."""
    return page.evaluate(
        f"""([fig, layer, x, y]) => {{ const c = document.querySelector(`#fig-${{fig}} canvas[data-layer=${{layer}}]`);
           return Array.from(c.getContext('2d').getImageData(...({AT})(c, x, y), 1, 1).data); }}""",
        [fig, layer, x, y])


#: JS: (canvas, x, y in the stage's CSS pixels) → [column, row] of that canvas's backing store: a layer's canvas
#: covers only where it paints (figure.mjs place: its CSS box over the stage, scaled by devicePixelRatio, or a
#: pixel layer's one pixel per cell).
AT = """(c, x, y) => { const s = c.style, l = parseFloat(s.left) || 0, t = parseFloat(s.top) || 0;
  return [Math.floor((x - l) * c.width / parseFloat(s.width)), Math.floor((y - t) * c.height / parseFloat(s.height))]; }"""


def demo_z(page) -> list:
    return page.evaluate("demo.figures.sequential.view.z.map(r => Array.from(r))")


def cell_pixel(page, fig: str, r: int, c: int) -> list[int]:
    L = layout(page, fig)  # near the cell's top-left corner, clear of its number
    return pixel(page, fig, "cells", L["plot"]["x"] + (c + 0.15) * L["cw"], L["plot"]["y"] + (r + 0.2) * L["ch"])


def expected_rgb(scale: str, t: float) -> list[float]:
    return list(unlabel_rgb(sample_colorscale(scale, [min(1.0, max(0.0, t))])[0]))


def test_every_figure_draws_with_its_contract(page):
    figures = page.eval_on_selector_all("[data-figure]", "els => els.map(e => [e.dataset.figure, e.dataset.drawn])")
    tokens = page.evaluate("demo.TOKENS")
    assert [f for f, _ in figures] == ["heatmap:attention", "heatmap:difference", "heatmap:talk", "bars:row", "bars:vertical"]
    for _, drawn in figures:
        count, shown = drawn.split(":", 1)
        assert count == "1" and json.loads(shown) == tokens


def test_cells_have_the_palettes_colours(page):
    z = page.evaluate("demo.figures.sequential.view.z")
    for r, c in [(0, 0), (3, 4), (5, 2), (9, 9)]:
        assert np.allclose(cell_pixel(page, "sequential", r, c)[:3], expected_rgb("Viridis", z[r][c]), atol=3), (r, c)
    zt = page.evaluate("demo.figures.talk.view.z")
    assert np.allclose(cell_pixel(page, "talk", 5, 2)[:3], expected_rgb("Cividis", zt[5][2]), atol=3)
    # diverging: 0 is RdBu's middle whatever the data's range
    page.evaluate("""(() => { const f = demo.figures.diverging, z = f.view.z.map(r => r.slice()); z[2][3] = 0; z[0][0] = -0.05; z[0][1] = 0.6;
                        f.update({z}); })()""")
    assert np.allclose(cell_pixel(page, "diverging", 2, 3)[:3], [247, 247, 247], atol=2)
    assert np.allclose(cell_pixel(page, "diverging", 0, 0)[:3], expected_rgb("RdBu", 0.5 - 0.05 / 1.2), atol=3)


def test_hover_names_the_cell_and_its_value(page):
    page.mouse.move(*cell_point(page, "sequential", 3, 4))
    tip = page.locator("#fig-sequential .disan-fig__tip")
    v = page.evaluate("demo.figures.sequential.view.z[3][4]")
    assert tip.is_visible()
    assert tip.inner_text() == f"row: #3 <b>bold</b>\ncolumn: #4 naïve\nP = {v:.6g}"
    page.mouse.move(5, 5)
    assert not tip.is_visible()


def test_bar_hover_names_the_bar_and_talk_mode_outlines_its_cell(page):
    L = page.evaluate("(() => { const L = demo.figures.horizontal.layout; return {plot: L.plot, band: L.band}; })()")
    page.locator("#fig-horizontal .disan-fig__stage").scroll_into_view_if_needed()
    box = page.locator("#fig-horizontal .disan-fig__stage").bounding_box()
    page.mouse.move(box["x"] + L["plot"]["x"] + 3, box["y"] + L["plot"]["y"] + 3.5 * L["band"])
    v = page.evaluate("demo.figures.horizontal.view.values[3]")
    assert page.locator("#fig-horizontal .disan-fig__tip").inner_text() == f"#3 <b>bold</b>\nP = {v:.6g}"
    T = layout(page, "talk")  # highlight [3, 4]: a 3 px vermilion (#D55E00) outline on the marks layer
    edge = pixel(page, "talk", "marks", T["plot"]["x"] + 4.5 * T["cw"], T["plot"]["y"] + 3 * T["ch"] + 1.5)
    assert edge == [0xD5, 0x5E, 0x00, 255]
    inside = pixel(page, "talk", "marks", T["plot"]["x"] + 4.5 * T["cw"], T["plot"]["y"] + 3.5 * T["ch"])
    assert inside[3] == 0


def test_a_masked_bar_has_no_bar_and_its_hover_and_table_say_masked(page):
    """A row's bars beside a masked map: the cells the block excludes get no bar (before: a "0.00" bar each)."""
    page.locator("#fig-horizontal .disan-fig__stage").scroll_into_view_if_needed()
    geometry = """() => { const L = demo.figures.horizontal.layout, vs = demo.figures.horizontal.view.values;
                          return {plot: L.plot, band: L.band, mid: Array.from(vs, v => (L.value(0) + L.value(v)) / 2)}; }"""
    L = page.evaluate(geometry)
    y = L["plot"]["y"] + 3.5 * L["band"]
    L["x"] = L["mid"][3]
    assert pixel(page, "horizontal", "bars", L["x"], y)[3] == 255  # bar 3 is drawn
    page.evaluate("demo.figures.horizontal.update({masked: Array.from(demo.figures.horizontal.view.values, (_, i) => i === 3)})")
    page.wait_for_function("demo.figures.horizontal.view.masked !== undefined")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert pixel(page, "horizontal", "bars", L["x"], y)[3] == 0  # no bar
    assert pixel(page, "horizontal", "bars", L["mid"][2], L["plot"]["y"] + 2.5 * L["band"])[3] == 255  # bar 2's
    box = page.locator("#fig-horizontal .disan-fig__stage").bounding_box()
    page.mouse.move(box["x"] + L["plot"]["x"] + 3, box["y"] + y)
    v = page.evaluate("demo.figures.horizontal.view.values[3]")
    assert page.locator("#fig-horizontal .disan-fig__tip").inner_text() == f"#3 <b>bold</b>\nP = {v:.6g} (masked)"


def test_a_figure_without_a_fixed_width_follows_its_parent(page):
    page.evaluate("""(() => { const host = document.createElement('div'); host.id = 'fluid'; host.style.width = '500px';
        document.querySelector('main').append(host);
        window.fluid = demo.createBars(host, {name: 'fluid'}); fluid.update({values: [0.2, 0.8], labels: ['a', 'b']}); })()""")
    assert page.evaluate("fluid.layout.width") == 500
    page.evaluate("document.getElementById('fluid').style.width = '320px'")
    page.wait_for_function("fluid.layout.width === 320")
    assert page.evaluate("fluid.root.querySelector('.disan-fig__stage').style.width") == "320px"
    assert page.get_attribute("[data-figure='bars:fluid']", "data-drawn").startswith("2:")


def test_canvases_follow_the_device_pixel_ratio(chromium, demo_url):
    context = chromium.new_context(viewport={"width": 700, "height": 900}, device_scale_factor=2)
    try:
        page = context.new_page()
        page.goto(demo_url)
        page.wait_for_function("window.demo !== undefined")
        stage = page.eval_on_selector("#fig-sequential .disan-fig__stage", "s => [s.style.width, s.style.height]")
        assert stage == ["560px", "440px"]
        # a layer's backing store has room for where it paints (figure.mjs place: a multiple of 128 CSS pixels), × 2:
        # the frame the stage, the cells, colour bar and marks their own part of it; a pixel layer one per cell
        sizes = page.eval_on_selector_all("#fig-sequential canvas", """cs => cs.map(c => [c.dataset.layer, c.width, c.height,
          parseFloat(c.style.width), parseFloat(c.style.height), c.style.imageRendering])""")
        assert sizes[0] == ["frame", 1280, 1024, 640, 512, ""], sizes
        for layer, w, h, css_w, css_h, rendering in sizes[1:]:
            if rendering == "pixelated":
                assert layer == "cells" and (w, h) == (len(demo_z(page)[0]), len(demo_z(page))), sizes
            else:
                assert (w, h) == (2 * css_w, 2 * css_h) and css_w % 128 == 0 and css_h % 128 == 0 and css_w < 640, sizes
    finally:
        context.close()


def test_a_smaller_view_keeps_the_canvases_and_the_stage_clips_them(page):
    """A view of another size repaints the backing stores the figure has while they hold it (a new one per
    sentence length cost the page 8 ms a sentence, figure.mjs resize) and the stage shows only its own size: a
    larger drawing's pixels beyond it are cleared or clipped. A larger view than the room grows it. (A cells layer of
    one pixel per cell is left out: its backing store is R × C, a few kB, made for each size.)"""
    stores = "[...demo.figures.sequential.root.querySelectorAll('canvas')].filter(c => !c.style.imageRendering)"
    page.evaluate(f"window.__stores = {stores}; window.__sizes = __stores.map(c => [c.width, c.height])")
    before = page.eval_on_selector("#fig-sequential .disan-fig__stage", "s => s.getBoundingClientRect().height")
    page.evaluate("demo.figures.sequential.update({z: demo.attention(3, 3), rowTokens: ['a', 'b', 'c'], colTokens: ['a', 'b', 'c'], height: 300})")
    kept = page.evaluate(f"{stores}.every((c, i) => c === __stores[i] && c.width === __sizes[i][0] && c.height === __sizes[i][1])")
    assert kept
    stage = page.locator("#fig-sequential .disan-fig__stage").bounding_box()
    clip = page.locator("#fig-sequential .disan-fig__layers").bounding_box()
    assert stage["height"] < before and clip == stage
    assert page.eval_on_selector("#fig-sequential .disan-fig__layers", "c => getComputedStyle(c).overflow") == "hidden"
    # the new cells are drawn where the new layout puts them (the cells layer, top-left of the backing store)
    assert cell_pixel(page, "sequential", 2, 2)[3] == 255
    grown = page.evaluate("""(() => { const f = demo.figures.sequential, n = 40, toks = Array.from({length: n}, (_, i) => 't' + i);
        f.update({z: demo.attention(n, n), rowTokens: toks, colTokens: toks, height: 1100});
        const c = f.root.querySelector('canvas'), s = f.root.querySelector('.disan-fig__stage');
        return [c.width / devicePixelRatio, parseFloat(s.style.width), c.height / devicePixelRatio, parseFloat(s.style.height)]; })()""")
    assert grown[0] >= grown[1] and grown[3] == 1100 and grown[2] == 1152, grown


def test_cells_too_small_for_numbers_are_one_canvas_pixel_each_and_land_on_their_cells_on_screen(page):
    """Where no number fits in a cell, the cells layer is one canvas pixel per cell that the page scales over the
    plot (figure.mjs place): on screen (a screenshot of the stage) each cell's centre has its own colour, and the
    backing store is R × C."""
    import io

    from PIL import Image

    n = 40
    page.evaluate(f"""demo.figures.sequential.update({{z: demo.attention({n}, {n}),
        rowTokens: Array.from({{length: {n}}}, (_, i) => 't' + i), colTokens: null, height: 700}})""")
    canvas = page.eval_on_selector("#fig-sequential canvas[data-layer=cells]",
                                   "c => [c.width, c.height, c.style.imageRendering]")
    assert canvas == [n, n, "pixelated"]
    z, L = demo_z(page), layout(page, "sequential")
    shot = Image.open(io.BytesIO(page.locator("#fig-sequential .disan-fig__stage").screenshot())).convert("RGB")
    scale = shot.width / page.locator("#fig-sequential .disan-fig__stage").bounding_box()["width"]
    for r, c in [(0, 0), (5, 3), (17, 17), (n - 1, 0), (n - 1, n - 1), (22, 39)]:
        x, y = L["plot"]["x"] + (c + 0.5) * L["cw"], L["plot"]["y"] + (r + 0.5) * L["ch"]
        got = shot.getpixel((int(x * scale), int(y * scale)))
        assert np.allclose(got, expected_rgb("Viridis", z[r][c]), atol=3), (r, c, got)


def test_click_on_a_row_emits_it_and_the_host_shows_its_bars(page):
    before = page.get_attribute("#fig-horizontal [data-figure]", "data-drawn") or page.get_attribute("[data-figure='bars:row']", "data-drawn")
    page.mouse.click(*cell_point(page, "sequential", 2, 5))
    event = page.evaluate("demo.events[demo.events.length - 1]")
    z = page.evaluate("demo.figures.sequential.view.z")
    assert (event["figure"], event["row"], event["token"]) == ("heatmap:attention", 2, "is")
    assert event["values"] == z[2]
    assert page.evaluate("Array.from(demo.figures.horizontal.view.values)") == z[2]
    assert page.get_attribute("[data-figure='bars:row']", "data-drawn") != before


def test_keyboard_moves_the_focus_and_announces_the_value(page):
    stage = page.locator("#fig-sequential .disan-fig__stage")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement") is not None
    assert stage.evaluate("el => el === document.activeElement")
    live = page.locator("#fig-sequential .disan-fig__live")
    z = page.evaluate("demo.figures.sequential.view.z")
    assert live.inner_text() == f"row: #0 the, column: #0 the, P = {z[0][0]:.6g}"
    for key in ["ArrowDown", "ArrowRight", "ArrowRight"]:
        page.keyboard.press(key)
    assert live.inner_text() == f"row: #1 film, column: #2 is, P = {z[1][2]:.6g}"
    assert live.get_attribute("aria-live") == "polite"
    page.keyboard.press("Enter")
    assert page.evaluate("demo.events[demo.events.length - 1].row") == 1
    assert live.inner_text() == "row #1 film selected"
    # the focused cell is outlined in black on the marks layer
    L = layout(page, "sequential")
    edge = pixel(page, "sequential", "marks", L["plot"]["x"] + 2 * L["cw"] + 1, L["plot"]["y"] + 1.5 * L["ch"])
    assert edge[3] == 255 and max(edge[:3]) < 60
    page.keyboard.press("Tab")  # the table fallback's summary comes next, then the next figure
    assert page.evaluate("document.activeElement.textContent") == "Data as a table"
    page.keyboard.press("Tab")
    assert page.locator("#fig-diverging .disan-fig__stage").evaluate("el => el === document.activeElement")
    page.locator("#fig-horizontal .disan-fig__stage").focus()
    page.keyboard.press("ArrowDown")
    bars = page.evaluate("Array.from(demo.figures.horizontal.view.values)")
    assert page.locator("#fig-horizontal .disan-fig__live").inner_text() == f"#1 film: P = {bars[1]:.6g}"


def test_a_click_draws_no_keyboard_focus_box_until_a_key_moves_it(page):
    """Before, a click's focus outlined cell [0, 0] in black: in talk mode, beside the clicked row's largest cell, a
    mark on a cell no one chose (a masked one on a forward map)."""
    page.locator("#fig-talk .disan-fig__stage").scroll_into_view_if_needed()
    L = layout(page, "talk")
    corner = (L["plot"]["x"] + 1, L["plot"]["y"] + 0.5 * L["ch"])  # on the left edge of cell [0, 0], where its box is

    def box_at_first_cell() -> bool:
        edge = pixel(page, "talk", "marks", *corner)
        return edge[3] == 255 and max(edge[:3]) < 60

    page.mouse.click(*cell_point(page, "talk", 3, 2))
    assert page.locator("#fig-talk .disan-fig__stage").evaluate("el => el === document.activeElement")
    assert not box_at_first_cell()
    page.keyboard.press("ArrowLeft")  # the key brings the box, from [0, 0]: still there at the grid's edge
    assert box_at_first_cell()


def test_update_with_new_values_repaints_only_the_cells_and_data_drawn_changes_with_them(page):
    paints = page.evaluate("({...demo.figures.sequential.paints})")
    seen = page.evaluate("""(() => {
        const f = demo.figures.sequential, root = f.root, canvas = root.querySelector('canvas[data-layer=cells]');
        const L = f.layout, x = L.plot.x + 0.15 * L.cw, y = L.plot.y + 0.2 * L.ch;
        const read = () => Array.from(canvas.getContext('2d').getImageData(...(%s)(canvas, x, y), 1, 1).data);
        const seen = {before: read()};
        new MutationObserver(() => { seen.atChange = read(); seen.drawn = root.dataset.drawn; })
            .observe(root, {attributes: true, attributeFilter: ['data-drawn']});
        const z = f.view.z.map(r => r.slice()); z[0][0] = 1.0;
        f.update({z});
        return new Promise(done => requestAnimationFrame(() => done(seen)));
    })()""" % AT)
    after = page.evaluate("({...demo.figures.sequential.paints})")
    assert after == {**paints, "cells": paints["cells"] + 1}
    assert seen["drawn"].startswith("2:")
    assert np.allclose(seen["atChange"][:3], expected_rgb("Viridis", 1.0), atol=3) and seen["before"] != seen["atChange"]
    # new tokens lay the figure out again; a talk-mode highlight alone repaints the marks
    page.evaluate("demo.figures.sequential.update({z: demo.attention(4, 9), rowTokens: ['a', 'b', 'c', 'd'], colTokens: null})")
    relaid = page.evaluate("({...demo.figures.sequential.paints})")
    assert relaid["frame"] == after["frame"] + 1 and relaid["cells"] == after["cells"] + 1
    assert page.get_attribute("[data-figure='heatmap:attention']", "data-drawn") == '3:["a","b","c","d"]'
    page.evaluate("demo.figures.sequential.update({highlight: [1, 2]})")
    marked = page.evaluate("({...demo.figures.sequential.paints})")
    assert marked == {**relaid, "marks": relaid["marks"] + 1}


def test_bars_update_repaints_only_the_bars_on_the_same_axis(page):
    paints = page.evaluate("({...demo.figures.horizontal.paints})")
    page.evaluate("demo.figures.horizontal.update({values: demo.attention(10, 5)[0]})")
    assert page.evaluate("({...demo.figures.horizontal.paints})") == {**paints, "bars": paints["bars"] + 1}


def test_bars_layers_cover_only_where_they_paint(page):
    """The bars' and marks' canvases cover the plot, the bars' with its value texts' room (past a horizontal bar up
    to the stage's edge, a line above and below a vertical one: bars.mjs regions), not the whole stage, so a new
    row's values repaint less (figure.mjs place); on screen a bar's middle is still its colour (Okabe & Ito blue,
    vermilion below 0)."""
    for fig in ("horizontal", "vertical"):
        got = page.evaluate("""(fig) => { const f = demo.figures[fig], L = f.layout, v = f.view.values[0];
            const box = (l) => { const s = f.root.querySelector(`canvas[data-layer=${l}]`).style;
              return [parseFloat(s.left), parseFloat(s.top), parseFloat(s.width), parseFloat(s.height)]; };
            const mid = (L.value(0) + L.value(v)) / 2, across = (L.horizontal ? L.plot.y : L.plot.x) + L.band / 2;
            return { plot: L.plot, cell: L.f.cell, width: L.width, bars: box('bars'), marks: box('marks'), frame: box('frame'),
              v, at: L.horizontal ? [mid, across] : [across, mid] }; }""", fig)
        P, cell = got["plot"], got["cell"]
        region = ([P["x"], P["y"], got["width"] - P["x"], P["h"]] if fig == "horizontal"
                  else [P["x"], P["y"] - cell - 4, P["w"], P["h"] + 2 * (cell + 4)])
        assert got["bars"][:2] == region[:2] and got["bars"][2] >= region[2] and got["bars"][3] >= region[3], got
        assert got["marks"][:2] == [P["x"], P["y"]] and got["frame"][:2] == [0, 0], got
        assert got["bars"][2] * got["bars"][3] < got["frame"][2] * got["frame"][3], got
        shot = Image.open(io.BytesIO(page.locator(f"#fig-{fig} .disan-fig__stage").screenshot())).convert("RGB")
        scale = shot.width / page.locator(f"#fig-{fig} .disan-fig__stage").bounding_box()["width"]
        colour = [0xD5, 0x5E, 0x00] if got["v"] < 0 else [0x00, 0x72, 0xB2]
        assert np.allclose(shot.getpixel((int(got["at"][0] * scale), int(got["at"][1] * scale))), colour, atol=3), got


def test_svg_export_is_vectors_with_its_provenance(page):
    out = page.evaluate("demo.figures.sequential.exportAs('svg').then(e => [e.filename, e.mime, e.data])")
    name, mime, svg = out
    assert (name, mime) == ("heatmap_attention.svg", "image/svg+xml")
    root = ET.fromstring(svg.encode())
    ns = {"s": "http://www.w3.org/2000/svg"}
    cells = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "cell"]
    assert len(cells) == 100
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "<b>bold</b>" in texts and "Forward attention P" in texts
    meta = json.loads(root.find("s:metadata", ns).text)
    assert meta == {"figure": "heatmap:attention", "checkpoint_sha256": "ab" * 32, "version": "0.0.0-demo"}
    bars = page.evaluate("demo.figures.vertical.exportAs('svg').then(e => e.data)")
    assert len(list(ET.fromstring(bars.encode()).iter("{http://www.w3.org/2000/svg}rect"))) >= 10


def test_png_json_csv_exports_name_the_checkpoint_and_version(page):
    b64, name = page.evaluate("""demo.figures.talk.exportAs('png').then(async e => {
        const bytes = new Uint8Array(await e.data.arrayBuffer()); let s = '';
        for (const b of bytes) s += String.fromCharCode(b); return [btoa(s), e.filename]; })""")
    image = Image.open(io.BytesIO(base64.b64decode(b64)))
    assert name == "heatmap_talk.png" and image.size == (1120, 1040)
    assert image.info["Comment"] == f"figure=heatmap:talk checkpoint_sha256={'ab' * 32} version=0.0.0-demo"
    csv = page.evaluate("demo.figures.horizontal.exportAs('csv').then(e => e.data)")
    assert csv.splitlines()[0] == f"# figure=bars:row checkpoint_sha256={'ab' * 32} version=0.0.0-demo"
    assert len(csv.splitlines()) == 2 + 10
    data = json.loads(page.evaluate("demo.figures.sequential.exportAs('json').then(e => e.data)"))
    assert list(data)[0] == "provenance" and data["provenance"]["version"] == "0.0.0-demo"
    assert data["z"] == page.evaluate("demo.figures.sequential.view.z")


def test_bad_input_gets_one_line_and_the_next_good_view_draws(page):
    page.evaluate("demo.figures.sequential.update({z: [[1, 2]], rowTokens: ['a', 'b']})")
    error = page.locator("#fig-sequential .disan-fig__error")
    assert error.inner_text() == "heatmap attention: z has 1 rows but there are 2 row tokens; give one row per token"
    assert not page.locator("#fig-sequential .disan-fig__stage").is_visible()
    assert page.get_attribute("[data-figure='heatmap:attention']", "data-drawn").endswith(":error")
    page.evaluate("demo.figures.sequential.update({z: [[0.5]], rowTokens: ['<script>alert(1)</script>']})")
    assert not error.is_visible()
    assert page.evaluate("demo.figures.sequential.update({palette: 'Jet'})") is False
    assert error.inner_text() == ('heatmap attention: unknown palette "Jet": use one of Viridis, Cividis, RdBu, PuOr '
                                  'or stops')
    assert page.evaluate("demo.figures.horizontal.update({theme: 'dark'})") is False
    assert page.locator("#fig-horizontal .disan-fig__error").inner_text() == (
        'bars row: unknown theme "dark": use "normal" or "presentation"')
    assert page.evaluate("demo.figures.sequential.update({z: [[0.5]], rowTokens: ['x']})") is True
    assert page.locator("#fig-sequential .disan-fig__stage").is_visible()


def test_table_fallback_holds_the_data_as_text(page):
    page.locator("#fig-sequential summary").click()
    table = page.locator("#fig-sequential table")
    table.wait_for()  # built on the details' toggle event
    assert table.locator("tbody tr").count() == 10 and table.locator("thead th").count() == 11
    assert table.locator("tbody tr").nth(3).locator("th").inner_text() == "#3 <b>bold</b>"
    assert table.locator("b").count() == 0
    z = page.evaluate("demo.figures.sequential.view.z")
    assert table.locator("tbody tr").nth(3).locator("td").nth(4).inner_text() == f"{z[3][4]:.6g}"


def test_axe_finds_no_serious_or_critical_violation(page, demo_url):
    page.add_script_tag(path=str(Path(demo_url.removeprefix("file://")).parent / "axe.min.js"))
    page.locator("#fig-sequential summary").click()  # with a table open and a figure focused
    page.locator("#fig-sequential table").wait_for()
    page.locator("#fig-horizontal .disan-fig__stage").focus()
    result = page.evaluate("axe.run(document)")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]]) for v in result["violations"]
           if v["impact"] in ("serious", "critical")]
    assert bad == []
    assert len(result["passes"]) >= 10  # axe did check the page (28 rules passed when this was written)


@pytest.mark.parametrize("kind", KINDS)
def test_visual_regression(page, kind):
    check_against_stored(page.locator(f"#fig-{kind} .disan-fig__stage").screenshot(), kind, MAX_SHARE, __file__)
