"""The Attribution view in headless Chromium: its aligned bar series (LRP among them) and the τ matrix are drawn,
offline."""

from __future__ import annotations

import numpy as np
from urllib.parse import quote

import pytest

from tests.app_figures import panel_values, titles
from tests.test_browser import SHOWCASE_MODEL, assert_no_exception, settle, shot

pytestmark = pytest.mark.browser
SENTENCE = "a gorgeous , witty , seductive movie ."


def test_attribution_view_renders_bars_and_tau(server, browser_page):
    page, outside, page_errors = browser_page
    page.goto(f"{server}/?view=attribution&model={SHOWCASE_MODEL}&sentence={quote(SENTENCE)}")
    settle(page, "seductive")
    fig = "document.querySelector(`.st-key-chart_${k} [data-figure^='figure:'][data-drawn]`)"
    page.wait_for_function(f"() => ['attr_bars', 'attr_tau'].every(k => {fig})")
    assert_no_exception(page)
    count = "([k, kind]) => document.querySelectorAll(`.st-key-chart_${k} [data-figure^='${kind}:']`).length"
    assert page.evaluate(count, ["attr_bars", "bars"]) == 7  # DiSAN: 7 series, one bars panel each, one axis
    for i in range(7):
        assert len(panel_values(page, "attr_bars", i, kind="bars")) == len(SENTENCE.split())
    assert all(name in titles(page, "attr_bars") for name in
               ("Integrated Gradients", "leave-one-out", "LRP (AttnLRP)", "gated rollout", "attention flow"))
    tau = panel_values(page, "attr_tau", 0)  # the Kendall τ matrix: methods × methods, 1 on the diagonal
    assert tau.shape[0] == tau.shape[1] >= 5 and np.allclose(np.diag(tau), 1.0)
    assert "view=attribution" in page.evaluate("() => location.search")
    shot(page, "attribution")
    assert outside == [] and page_errors == []
