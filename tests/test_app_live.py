"""Live sliders (viz_app.shell.chart.live_control): the views send the payload and bindings that let the page
recompute α and feature maps itself, and keep the server path where the page cannot."""

from __future__ import annotations

import pytest

from tests.test_app import assert_clean, chart_payloads, live_controls, page_built, release_live, run_app
from viz_app.draw import live, settings


def _live_of(at, key: str) -> dict | None:
    """The chart's live group and payload id, with the binding the page draws it with (``page_built``)."""
    c, built = next((c, b) for c, b in page_built(at) if c["id"].endswith(f"-chart_{key}"))
    return None if c["live"] is None else {**c["live"], "binding": built["binding"]}


def test_distance_view_binds_every_map_to_the_alpha_payload():
    at = run_app(view="distance_attention", model="dsa", alpha="0.7")
    assert_clean(at)
    control = live_controls(at)["alpha"]
    payload = control["payload"]
    assert control["value"] == pytest.approx(0.7) and payload["kind"] == "distance"
    assert (control["min"], control["max"], control["step"]) == (settings.ALPHA_MIN, settings.ALPHA_MAX,
                                                                 settings.ALPHA_STEP)
    T = payload["T"]
    assert live.decode(payload["blocks"]["fw"]["scores"]).shape[1:] == (T, T)
    for key in ("dsa_pair", "dsa_heads_fw", "dsa_heads_bw"):
        bound = _live_of(at, key)
        assert bound["group"] == "alpha" and bound["payload_id"] == payload["id"]
    pair = _live_of(at, "dsa_pair")["binding"]
    assert [p["z"] for p in pair["panels"]] == [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}]
    # binding.texts: dotted paths into the figure spec (its title, a panel's view.title) → templates
    assert any(t.startswith("Head-averaged attention weights at α = {alpha}") for t in pair["texts"].values())
    heads = _live_of(at, "dsa_heads_fw")["binding"]["panels"]
    assert [p["z"]["head"] for p in heads] == list(range(len(heads))) and heads[0]["pool"] == settings.HEAD_CELLS


def test_final_alpha_from_the_page_redraws_on_the_server_and_goes_into_the_link():
    at = run_app(view="compare", model="dsa", cmp="distance")
    release_live(at, "alpha", 3.0)
    assert_clean(at)
    assert at.query_params["alpha"] == "3" and live_controls(at)["alpha"]["value"] == pytest.approx(3.0)
    binding = _live_of(at, "compare")["binding"]
    assert binding["panels"][1]["z"] == {"op": "mean", "dir": "fw", "alpha": 0.0}  # B stays at α = 0
    assert binding["scales"][1]["diverging"] and any("A: α = {alpha}" in t for t in binding["texts"].values())


def test_masks_view_recomputes_the_distance_panels_only():
    at = run_app(view="masks", model="disan")
    assert_clean(at)
    panels = _live_of(at, "masks")["binding"]["panels"]
    fixed = [p["z"] for p in panels if p["z"].get("alpha") == 0.0]
    moving = [p["z"] for p in panels if "alpha" not in p["z"]]
    assert [z["dir"] for z in fixed] == ["diag", "fw", "bw"] and [z["dir"] for z in moving] == ["none", "fw", "bw"]


def test_disan_feature_scrubber_sends_every_feature_once():
    at = run_app(view="disan_attention", model="disan", reduce="feature", feature="7", token="1")
    assert_clean(at)
    control = live_controls(at)["feature"]
    payload = control["payload"]
    assert control["value"] == 7 and control["max"] == 299 and payload["kind"] == "features"
    stored = live.decode(payload["blocks"]["fw"]["features"])
    allowed = live.decode(payload["blocks"]["fw"]["allowed"]).astype(bool)
    assert stored.shape == (300, int(allowed.sum()))
    rows = _live_of(at, "disan_row")["binding"]["rows"]
    assert [r["row"] for r in rows] == [1, 1]
    pair = _live_of(at, "disan_pair")["binding"]
    assert [p["panel"] for p in pair["panels"]] == [0, 1]  # the spec's forward and backward heatmap panels


def test_long_sentences_keep_the_server_feature_path():
    sentence = " ".join(["the dog is good ."] * 13)  # 65 tokens
    at = run_app(view="disan_attention", model="disan", reduce="feature", feature="3", sentence=sentence)
    assert_clean(at)
    assert "feature" not in live_controls(at)
    assert at.number_input(key="feature").value == 3
    assert all(p["live"] is None for p in chart_payloads(at))


def test_server_path_when_browser_recompute_is_off(monkeypatch):
    monkeypatch.setattr(settings, "BROWSER_RECOMPUTE", False)
    at = run_app(view="distance_attention", model="dsa")
    assert_clean(at)
    assert not live_controls(at) and at.slider(key="alpha").value == pytest.approx(1.5)
    at.slider(key="alpha").set_value(0.0).run()
    assert_clean(at)
    assert all(p["live"] is None for p in chart_payloads(at)) and at.query_params["alpha"] == "0"
