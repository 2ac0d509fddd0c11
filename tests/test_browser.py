"""End-to-end: a real headless Chromium drives `streamlit run viz_app/app.py` on 127.0.0.1.

Types a sentence, waits for the heatmaps, walks through the views,
moves α on the Compare view and saves screenshots (to docs/screenshots/ under DISAN_REFRESH_DOCS=1). The
per-sentence figures are read through their contract (``data-figure`` / ``data-drawn``, the hover tip, the data
tables: tests/app_figures.py); the corpus figures (Evidence) are plotly.js's.
Fails on any Streamlit exception box, page error or request that leaves
127.0.0.1. Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app_figures import TABLE, open_table, titles
from tests.conftest import docs_out

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = docs_out("screenshots")
SENTENCE = "The lighthouse keeper waved at the passing ships ."


#: A drawn per-sentence figure (the figure host's root) or a corpus chart (plotly.js).
DRAWN = "[data-figure^='figure:'][data-drawn], .js-plotly-plot"


def settle(page, contains: str | None = None) -> None:
    """Wait for a figure (optionally one whose tokens hold ``contains``), then let the rerun finish drawing."""
    page.wait_for_selector(DRAWN, state="attached")
    if contains is not None:
        page.wait_for_function(
            "(t) => [...document.querySelectorAll('[data-figure^=\"figure:\"]')].some(f => (f.dataset.drawn || '')"
            ".includes(t)) || [...document.querySelectorAll('.js-plotly-plot')].some(e => e.textContent.includes(t))",
            arg=contains,
        )
    page.wait_for_timeout(1500)


def assert_no_exception(page) -> None:
    boxes = page.locator('[data-testid="stException"]')
    assert boxes.count() == 0, boxes.all_inner_texts()


def goto_view(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


#: The README's screenshots show the bundled trained model when it exists.
SHOWCASE_MODEL = "disan-sst5" if (Path(__file__).resolve().parents[1] / "pretrained" / "disan-sst5.safetensors").exists() else "disan"


def test_walk_through_the_views(server, browser_page):
    page, outside, page_errors = browser_page
    page.goto(f"{server}/?model={SHOWCASE_MODEL}")
    settle(page)
    assert_no_exception(page)

    box = page.locator('[data-testid="stSidebar"] [data-testid="stTextArea"] textarea')
    box.fill(SENTENCE)
    box.press("Control+Enter")
    settle(page, "lighthouse")
    assert_no_exception(page)
    assert page.locator('[data-testid="stMain"]').get_by_text("lighthouse", exact=True).count() >= 1
    shot(page, "explore")

    goto_view(page, "DiSAN attention")
    settle(page, "lighthouse")
    assert_no_exception(page)
    search = page.evaluate("() => location.search")
    assert "view=disan_attention" in search and "lighthouse" in search
    shot(page, "disan_attention")
    # Hover names the cell and its value: move down the forward map until the tip names row #3, then click there.
    stage = page.locator(".st-key-chart_disan_pair [data-figure^='heatmap:'] .disan-fig__stage").first
    tip = page.locator(".st-key-chart_disan_pair [data-figure^='heatmap:'] .disan-fig__tip").first
    box = stage.bounding_box()
    cell = None
    for y in range(int(box["y"]) + 2, int(box["y"] + box["height"]) - 2, 3):
        page.mouse.move(box["x"] + box["width"] * 0.6, y)
        if tip.is_visible() and tip.inner_text().startswith("row: #3 "):
            cell = (box["x"] + box["width"] * 0.6, y)
            break
    assert cell is not None, "no cell of row #3 under the pointer"
    assert "column: #" in tip.inner_text() and "P = " in tip.inner_text(), tip.inner_text()
    page.mouse.click(*cell)  # clicking a heatmap cell picks its row (token #3) via on_select
    page.wait_for_function("() => /[?&]token=3(&|$)/.test(location.search)")
    settle(page, "lighthouse")
    assert_no_exception(page)

    goto_view(page, "Distance attention")
    page.get_by_role("button", name="Switch to").click()
    settle(page, "lighthouse")
    assert_no_exception(page)
    assert page.locator("[data-figure^='figure:'][data-drawn]").count() >= 3
    shot(page, "distance_attention")
    alpha = page.locator('[data-testid="stMain"] .viz-live input[type="range"]').first  # α inside the chart component
    alpha.focus()
    alpha.press("Home")  # α → 0: the page redraws the maps itself, then the link follows
    page.wait_for_function("() => /[?&]alpha=0(&|$)/.test(location.search)")
    page.wait_for_function("() => /[?&]alpha=0(&|$)/.test(location.search)")
    page.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                           ".getAttribute('data-test-script-state') !== 'running'")
    assert "α = 0" in titles(page, "dsa_pair")
    assert_no_exception(page)

    goto_view(page, "Compare")
    settle(page, "lighthouse")
    page.get_by_text("distance mask α vs α = 0").click()
    settle(page, "lighthouse")
    open_table(page, "compare")
    before = page.evaluate(TABLE, ["chart_compare", 0])
    slider = page.locator('[data-testid="stMain"] .viz-live input[type="range"]').first
    slider.focus()
    slider.press("End")  # one key event: α jumps to 5
    page.wait_for_function("() => /[?&]alpha=5(&|$)/.test(location.search)")
    page.wait_for_function(f"b => JSON.stringify(({TABLE})(['chart_compare', 0])) !== JSON.stringify(b)", arg=before)
    settle(page, "lighthouse")
    assert_no_exception(page)
    shot(page, "compare")

    goto_view(page, "Paper figures")
    settle(page)
    page.get_by_role("radio", name="Im Fig. 8").click()
    settle(page, "luggage")
    assert_no_exception(page)
    assert page.get_by_text("Paper:").count() >= 1
    shot(page, "paper_figures")

    assert outside == [], f"requests left 127.0.0.1: {outside}"
    assert page_errors == [], json.dumps(page_errors)


def test_script_sentence_renders_as_text(server, browser_page):
    page, outside, _ = browser_page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{server}/?model=dsa&view=explore&sentence=%3Cscript%3Ealert(1)%3C%2Fscript%3E")
    settle(page, "script")
    assert_no_exception(page)
    assert dialogs == []
    # the tokens are text: drawn on the canvas, and in the data table as text nodes, never as elements
    open_table(page, "overview")
    header = page.evaluate("""() => [...document.querySelector('.st-key-chart_overview [data-figure^="heatmap:"] table')
      .tHead.rows[0].cells].map(c => c.textContent)""")
    assert any("<" in h for h in header), header
    assert page.evaluate("() => document.querySelectorAll('.viz-chart script, .viz-chart b').length") == 0
    assert outside == []


@pytest.mark.slow
def test_evidence_and_models_views(server, browser_page):
    """The Evidence view loads from the stored results; a listed sentence opens in its view; the Models page."""
    page, outside, page_errors = browser_page
    page.goto(f"{server}/evidence?model=dsa-nli&claim=shen7-gate-stop-words")
    settle(page)
    assert_no_exception(page)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].some(gd => (gd.layout.title.text || '')"
        ".includes('every model'))"
    )
    shot(page, "evidence")
    link = page.locator('[data-testid="stMain"] a[href*="sentence="]').first
    text = link.inner_text()
    with page.context.expect_page() as opened:
        link.click()  # Markdown links open a new tab: a new session that reads the link's query string
    other = opened.value
    settle(other)
    assert "view=fusion_gate" in other.evaluate("() => location.search")
    assert other.locator('[data-testid="stMain"] h1', has_text="Fusion gate").count() == 1
    box = other.locator('[data-testid="stSidebar"] [data-testid="stTextArea"] textarea')
    assert box.input_value() == text
    assert other.locator('[data-testid="stException"]').count() == 0
    other.close()

    page.goto(f"{server}/models?model=dsa-nli")
    settle(page)
    assert_no_exception(page)
    assert page.get_by_text("Test accuracy").count() >= 1
    shot(page, "models")
    assert outside == [], f"requests left 127.0.0.1: {outside}"
    assert page_errors == [], json.dumps(page_errors)
