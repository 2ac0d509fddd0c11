"""End-to-end: a real headless Chromium drives `streamlit run viz_app/app.py` on 127.0.0.1.

Types a sentence, waits for the Plotly heatmaps, walks through the views,
moves α on the Compare view and saves screenshots (to docs/screenshots/ under DISAN_REFRESH_DOCS=1).
Fails on any Streamlit exception box, page error or request that leaves
127.0.0.1. Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import docs_out

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = docs_out("screenshots")
SENTENCE = "The lighthouse keeper waved at the passing ships ."


def settle(page, contains: str | None = None) -> None:
    """Wait for heatmaps (optionally containing ``contains``), then let the rerun finish drawing."""
    page.wait_for_selector(".js-plotly-plot", state="attached")
    if contains is not None:
        page.wait_for_function(
            "(t) => Array.from(document.querySelectorAll('.js-plotly-plot')).some(e => e.textContent.includes(t))",
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


def first_plot_data(page) -> str:
    return page.evaluate("() => JSON.stringify(document.querySelector('.js-plotly-plot').data.map(t => t.z))")


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
    hover = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => t.hovertemplate || '')")
    assert any("customdata[0]" in h and "customdata[1]" in h for h in hover)
    shot(page, "disan_attention")
    cell = page.evaluate(
        """() => { const gd = document.querySelector('.js-plotly-plot'); const r = gd.getBoundingClientRect();
        const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
        return [r.left + xa._offset + xa.l2p(0), r.top + ya._offset + ya.l2p(3)]; }"""
    )
    # The click layers of a selectable chart are drawn without markers (chart.js), yet hover and click find cells.
    assert page.evaluate("""() => { const gd = document.querySelector('.js-plotly-plot');
        const layers = gd._fullData.filter(t => t.name === 'cells');
        return layers.length === 2 && layers.every(t => t.mode === 'none') && !gd.querySelector('.scatterlayer .point'); }""")
    page.mouse.move(*cell)
    page.wait_for_function("() => /row: #3 /.test(document.querySelector('.js-plotly-plot .hoverlayer')?.textContent || '')")
    page.mouse.click(*cell)  # clicking a heatmap cell picks its row (token #3) via on_select
    page.wait_for_function("() => /[?&]token=3(&|$)/.test(location.search)")
    settle(page, "lighthouse")
    assert_no_exception(page)

    goto_view(page, "Distance attention")
    page.get_by_role("button", name="Switch to").click()
    settle(page, "lighthouse")
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() >= 3
    shot(page, "distance_attention")
    alpha = page.locator('[data-testid="stMain"] .viz-live input[type="range"]').first  # α inside the chart component
    alpha.focus()
    alpha.press("Home")  # α → 0: the page redraws the maps itself, then the link follows
    page.wait_for_function("() => /[?&]alpha=0(&|$)/.test(location.search)")
    page.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')].some(gd => (gd.layout.title.text || '')"
        ".includes('α = 0 '))"
    )
    assert_no_exception(page)

    goto_view(page, "Compare")
    settle(page, "lighthouse")
    page.get_by_text("distance mask α vs α = 0").click()
    settle(page, "lighthouse")
    before = first_plot_data(page)
    slider = page.locator('[data-testid="stMain"] .viz-live input[type="range"]').first
    slider.focus()
    slider.press("End")  # one key event: α jumps to 5
    page.wait_for_function("() => /[?&]alpha=5(&|$)/.test(location.search)")
    page.wait_for_function(
        "(b) => JSON.stringify(document.querySelector('.js-plotly-plot').data.map(t => t.z)) !== b", arg=before
    )
    settle(page, "lighthouse")
    assert_no_exception(page)
    zs = page.evaluate("() => document.querySelector('.js-plotly-plot').data.map(t => [t.zmin, t.zmax])")
    assert zs[0] == zs[1]
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
    ticks = page.evaluate(
        "() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(e => e.layout.xaxis.ticktext || [])"
    )
    assert "&lt;" in ticks
    assert page.locator(".js-plotly-plot .xtick text", has_text="<").count() >= 1
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
