"""The report in headless Chromium with every request blocked: it draws, its controls match the core.

Writes reports with `python -m viz_app report` (the bundled models when present, else the random-weight
ones), opens them from disk with every request except the file itself aborted, and reads the numbers
plotly holds after the α / feature controls move. Saves report.png (to docs/screenshots/ under DISAN_REFRESH_DOCS=1).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import disan
from viz_app.cli import main
from viz_app.draw import live
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


def z_of(page, fig: str, trace: int) -> np.ndarray:
    values = page.evaluate(
        "([f, t]) => { const gd = document.querySelector(`.plot[data-fig='${f}']`);"
        " return Array.from(gd.data[t].z, r => Array.from(r, v => v === null ? NaN : v)); }",
        [fig, trace],
    )
    return np.asarray(values, dtype=np.float64)


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
    assert page.locator(".js-plotly-plot").count() == n_figures >= 6
    assert page.locator(".plot[data-fig] .heatmaplayer .hm, .plot[data-fig] .heatmaplayer image").count() >= 4
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
        title = page.evaluate("() => document.querySelector(`.plot[data-fig='alpha-mean-premise']`).layout.title.text")
        assert f"α = {alpha:g}" in title
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
        np.testing.assert_allclose(got, want, atol=live.QUANTISATION_ERROR + 1e-7, rtol=0)  # the stated error
        assert np.all(got[~block.allowed[0, :T, :T].numpy()] == 0)

    page.select_option('select[data-control="word"]', "2")
    page.wait_for_function(
        "() => document.querySelector(`.plot[data-fig='s2t-premise']`).layout.annotations[0].text.startsWith('#2 ')"
    )
    page.locator("h1").click()
    first = page.evaluate("() => location.hash")
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.evaluate("() => location.hash") not in (first, "")
    page.keyboard.press("t")
    assert page.evaluate("() => document.body.classList.contains('talk')")
    size = page.evaluate("() => document.querySelector('.plot[data-fig]').layout.font.size")
    assert size > 13
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
    assert frame.locator(".js-plotly-plot").count() >= 2
    assert blocked == [] and errors == [], (blocked, errors)


#: After talk mode is switched, once its drawings are done: tick and colour-bar labels outside their figure's SVG,
#: and the font size of each heatmap's first cell number (by figure).
_TALK_READ = """async () => {
  const v = document.getElementById('report').__disanView;
  for (let i = 0; i < 5; i++) { await v.busy; await new Promise(r => setTimeout(r, 50)); }
  const cut = [], cells = {};
  for (const gd of document.querySelectorAll('.plot[data-fig]')) {
    if (!gd._fullLayout) continue;
    const svg = gd.querySelector('svg.main-svg').getBoundingClientRect();
    for (const e of gd.querySelectorAll('g.xtick text, g.ytick text, g.cbaxis text')) {
      const r = e.getBoundingClientRect();
      if (e.textContent && (r.left < svg.left - 0.5 || r.right > svg.right + 0.5)) cut.push([gd.dataset.fig, e.textContent]);
    }
    const cell = gd.querySelector('g.hm text');
    if (cell) cells[gd.dataset.fig] = parseFloat(getComputedStyle(cell).fontSize);
  }
  return {cut, cells};
}"""


def test_talk_mode_refits_the_margins_to_its_fonts_and_grows_the_cell_numbers(tmp_path, open_offline):
    """Issue 58 item 7: in talk mode long tick labels were clipped ("orgeous", "eductive": the margins fitted to
    the normal fonts stayed) and the cell numbers kept their size. Each drawn figure is drawn again in talk mode:
    no tick label outside its figure, every cell number larger; and back again to the normal sizes."""
    path = write(tmp_path, "talk", DISAN, "a gorgeous , witty , seductive movie .")
    page, blocked, errors = open_offline(path)
    for _ in range(12):  # every section in view once, so each figure is drawn
        page.keyboard.press("j")
    normal = page.evaluate(_TALK_READ)
    assert normal["cut"] == [] and normal["cells"], normal
    page.keyboard.press("t")
    talk = page.evaluate(_TALK_READ)
    assert talk["cut"] == [], talk["cut"]
    shared = set(normal["cells"]) & set(talk["cells"])
    assert shared and all(talk["cells"][f] > normal["cells"][f] for f in shared), (normal["cells"], talk["cells"])
    page.keyboard.press("t")
    again = page.evaluate(_TALK_READ)
    assert again["cut"] == [] and all(again["cells"][f] == normal["cells"][f] for f in shared if f in again["cells"])
    assert blocked == [] and errors == [], (blocked, errors)
