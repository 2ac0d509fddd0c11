"""The live sliders in a real page: after moving α (or feature k) in headless Chromium, the numbers the
page draws equal the Python core — ``DistanceBlockTrace.probs_at(α)`` within 1e-5, DiSAN's P[:, :, k]
within 1e-5 (both recomputed from the charts' trace views) — and the server learns the final value (the link).

Everything is read through the figures' contract (tests/app_figures.py): ``data-figure`` / ``data-drawn`` and
each panel's data table."""

from __future__ import annotations

import numpy as np
import pytest

import disan
from tests.app_figures import FIGURE, drawn, panel_values, titles

pytestmark = pytest.mark.browser

SENTENCE = "the old man saw a small dog on the beach"  # 10 tokens

#: True once the page has redrawn group ``g`` at ``v`` (chart.js records each redraw in window.__disanLive).
DRAWN = "([g, k, v]) => { const s = (window.__disanLive || {})[g]; return !!(s && s.drawn && s.drawn.values[k] === v); }"


def _open(page, base: str, query: str) -> None:
    page.goto(f"{base}/?{query}")
    page.wait_for_selector(".viz-live input[type=range]")
    page.wait_for_selector(".viz-chart [data-figure^='figure:'][data-drawn]")


def _idle(page) -> None:
    """Wait until the app's script run has finished."""
    page.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                           ".getAttribute('data-test-script-state') !== 'running'")


def _step(page, group: str, key: str, presses: int, expected: float) -> None:
    slider = page.locator(".viz-live input[type=range]").first
    slider.focus()
    for _ in range(presses):
        slider.press("ArrowRight")
    page.wait_for_function(DRAWN, arg=[group, key, expected])


def test_alpha_maps_in_the_page_equal_probs_at(server, browser_page):  # noqa: F811
    page, outside, errors = browser_page
    trace = disan.load("dsa", device="cpu").trace(SENTENCE)
    enc = trace.premise.encoder
    _open(page, server, f"view=distance_attention&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _step(page, "alpha", "alpha", 3, 1.8)
    for trace_index, block in ((0, enc.fw), (1, enc.bw)):
        ref = block.probs_at(1.8)[0].mean(0).numpy()  # (T, T) head average
        got = np.nan_to_num(panel_values(page, "dsa_pair", trace_index))  # a row with no allowed key: 0 or masked
        assert np.abs(got - ref).max() <= 1e-5
        empty = ~block.allowed[0].numpy().any(-1)
        assert empty.any() and (got[empty] == 0).all()  # the row with no allowed key is exactly 0
    heads = enc.bw.probs_at(1.8)[0].numpy()  # (H, T, T); T ≤ 48: no block averaging
    for h in range(heads.shape[0]):
        assert np.abs(np.nan_to_num(panel_values(page, "dsa_heads_bw", h)) - heads[h]).max() <= 1e-5
    assert "α = 1.8" in titles(page, "dsa_pair")
    page.wait_for_function("() => /[?&]alpha=1.8(&|$)/.test(location.search)")  # the server learnt it
    assert outside == [] and errors == []


def test_maps_follow_a_mouse_drag_before_release(server, browser_page):  # noqa: F811
    page, _, errors = browser_page
    _open(page, server, "view=compare&model=dsa&cmp=distance&alpha=1.5")
    box = page.locator(".viz-live input[type=range]").first.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.3, y)
    page.mouse.down()
    page.mouse.move(box["x"] + 4, y, steps=8)  # drag to the left end: α = 0
    page.wait_for_function(DRAWN, arg=["alpha", "alpha", 0])
    a, b = panel_values(page, "compare", 0), panel_values(page, "compare", 1)
    assert np.array_equal(np.isnan(a), np.isnan(b)) and np.nanmax(np.abs(a - b)) <= 1e-6  # at α = 0, panel A equals panel B (α = 0) while still held
    page.mouse.up()
    page.wait_for_function("() => /[?&]alpha=0(&|$)/.test(location.search)")
    assert errors == []


def test_masks_panel_follows_alpha(server, browser_page):  # noqa: F811
    page, _, errors = browser_page
    _open(page, server, f"view=masks&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _step(page, "alpha", "alpha", 5, 2.0)
    T = len(SENTENCE.split())
    idx = np.arange(T)
    dist = panel_values(page, "masks", 3)  # M_diag, M_fw, M_bw, then α·M_dis (view_figures.js MASK_PANELS)
    assert np.allclose(dist, -2.0 * np.abs(idx[:, None] - idx[None, :]))
    assert errors == []


def test_feature_slice_in_the_page_equals_the_trace(server, browser_page):  # noqa: F811
    page, _, errors = browser_page
    trace = disan.load("disan", device="cpu").trace(SENTENCE)
    enc = trace.premise.encoder
    _open(page, server, f"view=disan_attention&model=disan&reduce=feature&feature=5&sentence={SENTENCE.replace(' ', '+')}")
    _step(page, "feature", "feature", 2, 7)
    for index, block in ((0, enc.fw), (1, enc.bw)):
        ref = block.probs[0, :, :, 7].numpy()
        got = panel_values(page, "disan_pair", index)
        allowed = block.allowed[0].numpy()
        assert np.abs(got[allowed] - ref[allowed]).max() <= 1e-5  # float32 Shen Eq. 15 from the view's parts
        assert (np.nan_to_num(got[~allowed]) == 0).all()  # masked cells: 0 or shown as masked
    page.wait_for_function("() => /[?&]feature=7(&|$)/.test(location.search)")
    assert errors == []


#: Counts every change of each chart figure's data-drawn (a drawing of new pixels), per Streamlit chart key.
COUNT_DRAWS = """() => { window.__draws = {};
  for (const el of document.querySelectorAll('.viz-chart')) {
    const key = [...el.closest('[class*="st-key-chart_"]').classList].find(c => c.startsWith('st-key-chart_'));
    new MutationObserver(records => { window.__draws[key] = (window.__draws[key] || 0) + records.length; })
      .observe(el, {attributes: true, subtree: true, attributeFilter: ['data-drawn']});
  } }"""


def _figure_draws(page) -> dict:
    """How often each chart's figure root changed its data-drawn since COUNT_DRAWS (panels' own changes too: a
    panel's data-drawn moves with the figure's)."""
    return page.evaluate("() => window.__draws")


@pytest.mark.slow  # kept out of the default set's 10 minutes (issue 54 item 8)
def test_the_servers_echo_of_alpha_redraws_nothing(server, browser_page):  # noqa: F811
    """Issue 19: the rerun that the control's own value causes brings figures for what the page already
    shows; chart.js must draw none of them again (a redraw there would hold up the next key press). After two
    steps each of the view's three charts has drawn the values the slider set, and the echo draws nothing."""
    page, outside, errors = browser_page
    _open(page, server, f"view=distance_attention&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _idle(page)
    page.wait_for_timeout(800)
    _step(page, "alpha", "alpha", 2, 1.7)
    keys = ["dsa_pair", "dsa_heads_fw", "dsa_heads_bw"]
    before = {k: drawn(page, k) for k in keys}
    assert page.evaluate("() => document.querySelectorAll('.viz-chart').length") == 3
    page.evaluate(COUNT_DRAWS)
    page.wait_for_function("() => /[?&]alpha=1.7(&|$)/.test(location.search)")  # the echo rerun ran
    _idle(page)
    page.wait_for_timeout(1000)
    assert _figure_draws(page) == {} and {k: drawn(page, k) for k in keys} == before
    assert "α = 1.7" in titles(page, "dsa_pair")
    assert not errors and not outside


@pytest.mark.slow  # kept out of the default set's 10 minutes (issue 54 item 8)
def test_a_new_sentence_draws_each_live_chart_once(server, browser_page):  # noqa: F811
    """Issue 19: a submit brings a new payload (the control redraws its group) and new figures (each chart
    draws itself); the page must draw each chart once, not again for the group's redraw: those repeats held up
    the draws of the next submit on the Distance view."""
    page, outside, errors = browser_page
    _open(page, server, f"view=distance_attention&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _idle(page)
    page.wait_for_timeout(1000)
    page.evaluate(COUNT_DRAWS)
    box = page.locator("section[data-testid=stSidebar] textarea").first
    box.fill("a brand new sentence about the quiet harbour")
    box.press("Control+Enter")
    page.wait_for_function(f"() => ({FIGURE})('chart_dsa_pair').dataset.drawn.includes('harbour')")
    _idle(page)
    page.wait_for_timeout(1500)
    panels = page.evaluate("() => [...document.querySelectorAll('.viz-chart')].map(el => "
                           "el.querySelectorAll('[data-figure]').length)")
    # each chart drew once: its figure root and each of its panels changed data-drawn once
    assert sorted(_figure_draws(page).values()) == sorted(panels)
    assert not errors and not outside


def test_a_selected_row_picks_the_token_and_the_exports_name_the_checkpoint(server, browser_page):  # noqa: F811
    """The word-choice click on the DiSAN pair: a heatmap row selected (here by the keyboard: focus, ↓ ↓, Enter)
    becomes the chosen token on the server (the address's token); its bars follow in the figure. Each figure's
    export menu writes vectors (SVG) and CSV whose provenance names the checkpoint's SHA-256 and the version."""
    from viz_app.draw.provenance import checkpoint_sha256, project_version

    page, outside, errors = browser_page
    page.goto(f"{server}/?view=disan_attention&model=disan-sst5&sentence={SENTENCE.replace(' ', '+')}")
    page.wait_for_selector(".st-key-chart_disan_pair [data-figure^='figure:'][data-drawn]")
    _idle(page)
    bars = page.locator(".st-key-chart_disan_pair [data-figure^='bars:']").first
    before = bars.get_attribute("data-drawn")
    stage = page.locator(".st-key-chart_disan_pair [data-figure^='heatmap:'] [tabindex='0']").first
    stage.focus()
    for key in ("ArrowDown", "ArrowDown", "Enter"):
        stage.press(key)
    page.wait_for_function("() => /[?&]token=2(&|$)/.test(location.search)")  # the server learnt the row
    assert bars.get_attribute("data-drawn") != before  # the row's bars were drawn in the figure
    _idle(page)
    page.locator(".st-key-chart_disan_pair .disan-figure__export summary").first.click()
    sha = checkpoint_sha256("disan-sst5")
    assert len(sha) == 64
    for kind, head in (("svg", "<svg"), ("csv", "# figure=")):
        with page.expect_download() as got:
            page.locator(f".st-key-chart_disan_pair button[data-export='{kind}']").first.click()
        text = open(got.value.path(), encoding="utf-8").read()
        assert head in "\n".join(text.splitlines()[:3])  # the provenance is in the file's first lines
        assert sha in text and project_version() in text, (kind, text[:300])
        if kind == "svg":  # vectors: one shape per cell of the forward map (T × T), text as text
            T = len(SENTENCE.split())
            assert text.count('<rect class="cell"') >= T * T and "<text" in text
    assert not errors and not outside
