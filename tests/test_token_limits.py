"""The token limits (docs/app.md "Token limits"): each set once in ``viz_app/draw/settings.py``, read from there by
everything that applies it, and the table in the docs names the values in force."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from viz_app.draw import live, settings, site, site_view


def test_a_pages_limit_is_the_one_setting_every_page_reads():
    assert site.MAX_TOKENS == settings.REPORT_MAX_TOKENS  # the static explorer and Explore's in-page run
    assert site_view.figure_context()["constants"]["REPORT_MAX_TOKENS"] == settings.REPORT_MAX_TOKENS  # sections.js
    for module in ("report.py", "pair_report.py"):
        text = (ROOT / "viz_app" / "draw" / module).read_text(encoding="utf-8")
        assert "settings.REPORT_MAX_TOKENS" in text and not re.search(r"\b(64|128|256)\b.*tokens", text), module


def test_the_docs_table_names_the_default_limits(monkeypatch):
    import importlib

    text = (ROOT / "docs" / "app.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (the app|a page|the live feature slider) \| (\d+) \|", text, re.M))
    try:
        monkeypatch.delenv("VIZ_MAX_TOKENS", raising=False)
        app = importlib.reload(settings).MAX_TOKENS  # the default, whatever this shell sets
    finally:
        monkeypatch.undo()
        importlib.reload(settings)
    assert rows == {"the app": str(app), "a page": str(settings.REPORT_MAX_TOKENS),
                    "the live feature slider": str(live.FEATURE_MAX_TOKENS)}
