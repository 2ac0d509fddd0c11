"""The Attribution view in headless Chromium: its aligned bar series (LRP among them) and the τ matrix are drawn,
offline."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.test_browser import SHOWCASE_MODEL, assert_no_exception, settle, shot

pytestmark = pytest.mark.browser
SENTENCE = "a gorgeous , witty , seductive movie ."


def test_attribution_view_renders_bars_and_tau(server, browser_page):
    page, outside, page_errors = browser_page
    page.goto(f"{server}/?view=attribution&model={SHOWCASE_MODEL}&sentence={quote(SENTENCE)}")
    settle(page, "seductive")
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2")
    assert_no_exception(page)
    plots = json.loads(page.evaluate(
        "() => JSON.stringify(Array.from(document.querySelectorAll('.js-plotly-plot')).map("
        "gd => gd._fullData.map(t => ({type: t.type, name: t.name || '', n: t.y ? t.y.length : -1}))))"))
    bars = [p for p in plots if p and all(t["type"] == "bar" for t in p)]
    assert bars and len(bars[0]) == 7 and all(t["n"] == len(SENTENCE.split()) for t in bars[0])  # DiSAN: 7 series
    assert {t["name"] for t in bars[0]} >= {"Integrated Gradients", "leave-one-out", "LRP (AttnLRP)", "gated rollout",
                                            "attention flow"}
    assert any(p and p[0]["type"] == "heatmap" for p in plots)  # the Kendall τ matrix
    assert "view=attribution" in page.evaluate("() => location.search")
    shot(page, "attribution")
    assert outside == [] and page_errors == []
