"""The app's export area offers "Download report" for the current sentence and model (AppTest, no browser)."""

from __future__ import annotations

import re

from tests.page_js import report_page
from tests.test_app import assert_clean, run_app
from viz_app.shell import export
from viz_app.draw import settings


def report_button(at):
    return [b for b in at.get("download_button") if b.proto.label == "Download report"]


def test_download_report_is_the_report_of_the_current_sentence():
    at = run_app(view="distance_attention", model="dsa", sentence="the dog is outside .", alpha="0.7")
    assert_clean(at)
    (button,) = report_button(at)
    assert button.proto.deferred_file_id  # built only when clicked
    state = at.session_state
    html = export.report_bytes(state["model"], state["sentence"], None, state["masks"], 0.7).decode("utf-8")
    assert html.startswith("<!DOCTYPE html>") and not re.search(r"<script[^>]+src=", html)
    page = report_page(html)  # what the file draws, built by its own scripts
    assert ">outside</span>" in page["body"]
    assert 'data-control="alpha" min="0" max="5" step="0.1" value="0.7"' in page["body"]


def test_no_report_for_sentences_a_report_cannot_hold(monkeypatch):
    # the app's own limit (VIZ_MAX_TOKENS, 128) is below a report's (256): raised here so the app draws the sentence
    monkeypatch.setattr(settings, "MAX_TOKENS", settings.REPORT_MAX_TOKENS + 8)
    long = " ".join(["dog"] * (settings.REPORT_MAX_TOKENS + 1))
    at = run_app(view="explore", model="disan", sentence=long)
    assert_clean(at)
    assert report_button(at) == []
    assert any(f"at most {settings.REPORT_MAX_TOKENS}" in c.value for c in at.caption)


def explorer_button(at):
    return [b for b in at.get("download_button") if b.proto.label == "Download explorer (zip)"]


def test_download_explorer_is_the_static_site_of_the_current_model_opening_on_its_sentence():
    import io
    import json
    import zipfile

    from disan.errors import DisanError
    from viz_app.draw import site

    try:
        site.ort_dir()
    except DisanError as err:
        import pytest

        pytest.skip(f"onnxruntime-web is not installed: {err}")
    at = run_app(view="explore", model="disan-sst5", sentence="a dull , lifeless mess .")
    assert_clean(at)
    (button,) = explorer_button(at)
    assert button.proto.deferred_file_id  # built only when clicked: an export takes seconds
    archive = zipfile.ZipFile(io.BytesIO(export.explorer_zip("disan-sst5", "a dull , lifeless mess .", None)))
    names = set(archive.namelist())
    assert {"explorer-disan-sst5/index.html", "explorer-disan-sst5/models/disan-sst5.js"} <= names
    assert not any("/models/dsa" in n for n in names)  # the current model only
    data = archive.read("explorer-disan-sst5/assets/site-data.js").decode("utf-8")
    meta = json.loads(data[data.index("=") + 1:].strip().rstrip(";"))
    assert meta["default_text"] == "a dull , lifeless mess ." and [m["name"] for m in meta["models"]] == ["disan-sst5"]


def test_no_explorer_for_random_weights():
    at = run_app(view="explore", model="disan", sentence="a dull mess .")
    assert_clean(at)
    assert explorer_button(at) == []
