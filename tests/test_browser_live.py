"""The live sliders in a real page: after moving α (or feature k) in headless Chromium, the numbers the
page draws equal the Python core — ``DistanceBlockTrace.probs_at(α)`` within 1e-5, DiSAN's P[:, :, k]
within the payload's stated quantisation error — and the server learns the final value (the link)."""

from __future__ import annotations

import numpy as np
import pytest

import disan
from viz_app.draw import live

pytestmark = pytest.mark.browser

SENTENCE = "the old man saw a small dog on the beach"  # 10 tokens

#: True once the page has redrawn group ``g`` at ``v`` (chart.js records each redraw in window.__disanLive).
DRAWN = "([g, k, v]) => { const s = (window.__disanLive || {})[g]; return !!(s && s.drawn && s.drawn.values[k] === v); }"


def _z(page, key: str, trace: int) -> np.ndarray:
    z = page.evaluate(
        "([key, t]) => document.querySelector(`.st-key-${key} .js-plotly-plot`).data[t].z", [f"chart_{key}", trace]
    )
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


def _open(page, base: str, query: str) -> None:
    page.goto(f"{base}/?{query}")
    page.wait_for_selector(".viz-live input[type=range]")
    page.wait_for_function("() => document.querySelectorAll('.viz-chart .main-svg').length > 0")


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
        got = _z(page, "dsa_pair", trace_index)
        assert np.abs(got - ref).max() <= 1e-5
        empty = ~block.allowed[0].numpy().any(-1)
        assert empty.any() and (got[empty] == 0).all()  # the row with no allowed key is exactly 0
    heads = enc.bw.probs_at(1.8)[0].numpy()  # (H, T, T); T ≤ 48: no block averaging
    for h in range(heads.shape[0]):
        assert np.abs(_z(page, "dsa_heads_bw", h) - heads[h]).max() <= 1e-5
    title = page.evaluate("() => document.querySelector('.st-key-chart_dsa_pair .js-plotly-plot').layout.title.text")
    assert "α = 1.8" in title
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
    a, b = _z(page, "compare", 0), _z(page, "compare", 1)
    assert np.abs(a - b).max() <= 1e-6  # at α = 0, panel A equals panel B (α = 0) while still held
    page.mouse.up()
    page.wait_for_function("() => /[?&]alpha=0(&|$)/.test(location.search)")
    assert errors == []


def test_masks_panel_follows_alpha(server, browser_page):  # noqa: F811
    page, _, errors = browser_page
    _open(page, server, f"view=masks&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _step(page, "alpha", "alpha", 5, 2.0)
    T = len(SENTENCE.split())
    idx = np.arange(T)
    dist = _z(page, "masks", 6)  # panels 0–5 with −∞ overlays after diag, fw, bw: α·M_dis is trace 6
    assert np.allclose(dist, -2.0 * np.abs(idx[:, None] - idx[None, :]))
    assert errors == []


def test_feature_slice_in_the_page_equals_the_trace(server, browser_page):  # noqa: F811
    page, _, errors = browser_page
    trace = disan.load("disan", device="cpu").trace(SENTENCE)
    enc = trace.premise.encoder
    _open(page, server, f"view=disan_attention&model=disan&reduce=feature&feature=5&sentence={SENTENCE.replace(' ', '+')}")
    _step(page, "feature", "feature", 2, 7)
    for trace_index, block in ((0, enc.fw), (2, enc.bw)):  # traces 1 and 3 are the click layers
        ref = block.probs[0, :, :, 7].numpy()
        got = _z(page, "disan_pair", trace_index)
        assert np.abs(got - ref).max() <= live.QUANTISATION_ERROR + 1e-6
        assert (got[~block.allowed[0].numpy()] == 0).all()
    page.wait_for_function("() => /[?&]feature=7(&|$)/.test(location.search)")
    assert errors == []


def test_the_servers_echo_of_alpha_redraws_nothing(server, browser_page):  # noqa: F811
    """Issue 19: the rerun that the control's own value causes brings figures for what the page already
    shows; chart.js must not lay them out again (a Plotly.react there would hold up the next key press).
    After two steps the only full redraws are the settle redraw of each of the view's three charts."""
    page, outside, errors = browser_page
    _open(page, server, f"view=distance_attention&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _idle(page)
    page.wait_for_timeout(800)
    page.evaluate("() => { window.__reacts = 0; const react = Plotly.react; "
                  "Plotly.react = (...args) => { window.__reacts += 1; return react(...args); }; }")
    _step(page, "alpha", "alpha", 2, 1.7)
    page.wait_for_function("() => /[?&]alpha=1.7(&|$)/.test(location.search)")  # the echo rerun ran
    _idle(page)
    page.wait_for_timeout(1000)
    charts = page.evaluate("() => document.querySelectorAll('.viz-chart').length")
    assert charts == 3
    assert page.evaluate("() => window.__reacts") == charts
    assert not errors and not outside


def test_a_new_sentence_draws_each_live_chart_once(server, browser_page):  # noqa: F811
    """Issue 19: a submit brings a new payload (the control redraws its group) and new figures (each chart
    draws itself); the page must lay each chart out once, not again for the group's redraw nor at the
    settle 600 ms later: those repeats held up the draws of the next submit on the Distance view."""
    page, outside, errors = browser_page
    _open(page, server, f"view=distance_attention&model=dsa&sentence={SENTENCE.replace(' ', '+')}&alpha=1.5")
    _idle(page)
    page.wait_for_timeout(1000)
    page.evaluate("() => { window.__reacts = []; const react = Plotly.react; Plotly.react = (gd, ...args) => {"
                  "window.__reacts.push([...document.querySelectorAll('.viz-chart')].indexOf(gd));"
                  "return react(gd, ...args); }; }")
    box = page.locator("section[data-testid=stSidebar] textarea").first
    box.fill("a brand new sentence about the quiet harbour")
    box.press("Control+Enter")
    page.wait_for_function("() => document.querySelector('.st-key-chart_dsa_pair .js-plotly-plot')"
                           ".layout.xaxis.ticktext.join(' ').includes('harbour')")
    _idle(page)
    page.wait_for_timeout(1500)  # past the group's settle (LIVE_SETTLE_MS)
    reacts = page.evaluate("() => window.__reacts")
    assert sorted(reacts) == [0, 1, 2]
    assert not errors and not outside
