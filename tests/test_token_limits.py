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


def test_explores_in_page_run_is_built_with_the_apps_limit(tmp_path, monkeypatch):
    """Explore's explorer folder refuses what the app's server refuses (it was built with a page's 256)."""
    from pathlib import Path

    from viz_app.shell import explorer

    seen: dict = {}

    def build_site(out, models, **kwargs):
        seen.update(kwargs, models=models)
        Path(out).mkdir(parents=True)
        (Path(out) / site.MARKER).write_text("test\n")

    monkeypatch.setattr(site, "build_site", build_site)
    monkeypatch.setenv(explorer.ENV, str(tmp_path))
    monkeypatch.setattr(settings, "MAX_TOKENS", 100)
    build = explorer.build_now("dsa-sst5", "source")
    assert build.problem is None and seen == {"models": ["dsa-sst5"], "max_tokens": 100}
    before = explorer.folder_name("dsa-sst5", "source")
    monkeypatch.setattr(settings, "MAX_TOKENS", 90)  # another limit: another folder, never one built for 100
    assert explorer.folder_name("dsa-sst5", "source") != before


def test_the_page_data_carries_the_limit_it_was_built_with():
    models = [{"name": "dsa-sst5"}]
    assert site.site_data(models, max_tokens=100)["limits"]["max_tokens"] == 100
    assert site.site_data(models)["limits"]["max_tokens"] == settings.REPORT_MAX_TOKENS
