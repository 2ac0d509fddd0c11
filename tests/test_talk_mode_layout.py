"""Talk mode on a projector's window (1280 × 720 and 1920 × 1080 CSS pixels): each section that holds one figure fits
the screen once the keys have moved to it, and the controls take the page's large type. Found by a presenter's pass
over the report and the static explorer in talk mode, each failing before its fix:

- a 26-token sentence's pair of maps grew with talk mode's text to 1,037 px, so its lower rows and every column
  label lay below a 720 or 1080 px screen (figure_host.js now keeps a grown height within the window);
- the explorer's header stayed sticky in talk mode wherever it took at most a third of the window (report.css's
  static header lost to site.css's sticky one), so at 1920 × 1080 the controls kept 27 % of every section's screen;
- the report's word menu (Source2token) kept the browser's 13 px beside talk mode's 24 px label.

The colour bar's numbers and the bars' value axis are held by tests/js/components/layout.test.mjs."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import pytest

from viz_app.cli import main
from tests.conftest import guarded_page

pytestmark = pytest.mark.browser
TIMEOUT_MS = 120_000
#: 26 tokens: the longest sentences a presenter shows (every one of a map's rows labelled needs 26 lines of text)
LONG = ("The extraordinarily talented lighthouse keeper , who had lived alone for nearly thirty years , waved "
        "cheerfully at the enormous passing ships every single morning .")
PROJECTORS = [(1280, 720), (1920, 1080)]

#: The section the keys moved to (focused) once its figures are drawn in talk mode's theme: [id, top, the bottom of
#: its last figure or caption, its figures' count] in CSS pixels of the window.
SECTION = """() => { const s = document.activeElement;
  if (!s || !s.classList.contains('section')) return null;
  const plots = [...s.querySelectorAll('.plot')];
  if (plots.some(p => p.classList.contains('stale') || !p.querySelector('[data-drawn]'))) return null;
  const parts = [...plots, ...s.querySelectorAll('figcaption')].map(e => e.getBoundingClientRect().bottom);
  return [s.id, s.getBoundingClientRect().top, Math.max(...parts), plots.length]; }"""


def sections_fit(page) -> list[str]:
    """Press j through every section in talk mode; the one-figure sections that do not fit the window, with why.
    A page whose keys reached no one-figure section fails here: nothing would have been checked."""
    page.wait_for_function("() => document.body.classList.contains('talk')")
    ids = page.evaluate("() => [...document.querySelectorAll('#report .section')].map(s => s.id)")
    height = page.evaluate("() => innerHeight")
    misfits, checked = [], 0
    for _ in ids[1:]:
        before = page.evaluate("() => document.activeElement && document.activeElement.id")
        page.keyboard.press("j")
        page.wait_for_function(f"before => document.activeElement.id !== before && ({SECTION})() !== null", arg=before)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        sid, top, bottom, figures = page.evaluate(SECTION)
        checked += figures == 1
        if figures == 1 and (top < -2 or bottom > height + 1):
            misfits.append(f"{sid}: {top:.0f}–{bottom:.0f} px in a {height} px window")
    assert checked >= 2, f"the keys reached {checked} one-figure section(s) of {ids}"
    return misfits


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Reports of the seeded random-weight models (the layout needs no trained weights) on the 26-token sentence."""
    out = tmp_path_factory.mktemp("talk")
    for model in ("disan", "dsa"):
        assert main(["report", LONG, "--model", model, "--out", str(out / f"{model}.html"), "--device", "cpu"]) == 0
    return {model: out / f"{model}.html" for model in ("disan", "dsa")}


@pytest.fixture
def open_at(chromium):
    opened = []

    def opener(url: str, folder: str, width: int, height: int):
        context, page, blocked, errors = guarded_page(chromium, lambda u: u.startswith(folder), TIMEOUT_MS, width)
        opened.append((context, blocked, errors))
        page.set_viewport_size({"width": width, "height": height})
        page.goto(url)
        return page

    yield opener
    for context, blocked, errors in opened:
        context.close()
        assert not blocked and not errors, (blocked, errors)


@pytest.mark.parametrize("width,height", PROJECTORS)
@pytest.mark.parametrize("model", ["disan", "dsa"])
def test_each_one_figure_section_of_a_long_sentences_report_fits_a_projectors_window(reports, open_at, model, width,
                                                                                       height):
    own = reports[model].resolve().as_uri()
    page = open_at(own, own, width, height)
    page.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
    page.locator("h1").click()
    page.keyboard.press("t")
    assert sections_fit(page) == []


def test_the_reports_word_menu_takes_talk_modes_type(reports, open_at):
    own = reports["disan"].resolve().as_uri()
    page = open_at(own, own, 1280, 720)
    page.wait_for_function("() => document.getElementById('report').dataset.ready === '1'")
    page.locator("h1").click()
    page.keyboard.press("t")
    page.wait_for_function("() => document.body.classList.contains('talk')")
    sizes = page.evaluate("""() => { const menu = document.querySelector('select[data-control="word"]');
        return [parseFloat(getComputedStyle(menu).fontSize), parseFloat(getComputedStyle(menu.closest('.control')).fontSize)]; }""")
    assert sizes[0] == sizes[1] >= 20, sizes  # the menu's text as large as its label's


def test_the_explorers_header_scrolls_away_in_talk_mode_and_each_map_section_fits(static_site, open_at):
    folder = static_site.out.as_uri() + "/"
    state = urlencode({"m": "disan-sst5", "t": LONG, "talk": "1"})
    page = open_at(f"{(static_site.out / 'index.html').as_uri()}#{state}", folder, 1920, 1080)
    page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
    assert page.evaluate("() => document.body.dataset.state") == "ready"
    page.locator("#site-header h1").first.click()
    assert page.evaluate("() => getComputedStyle(document.getElementById('site-header')).position") == "static"
    assert sections_fit(page) == []
