"""Live sliders (viz_app.shell.chart.live_control): the views send the sentence's key (its id names the group's
sentence; nothing else: the page redraws from the charts' trace views)
and the figures that follow a control, which the page redraws at its values from their own trace views, and keep
the server path where the page cannot."""

from __future__ import annotations

import json

import pytest

from tests.test_app import assert_clean, chart_payloads, live_controls, page_built, release_live, run_app
from viz_app.draw import settings


def _live_of(at, key: str) -> dict | None:
    """The chart's live group and payload id, with what its binding follows and the figure the page draws at the
    control's value (``page_built``)."""
    c, built = next((c, b) for c, b in page_built(at) if c["id"].endswith(f"-chart_{key}"))
    return None if c["live"] is None else {**c["live"], "binding": built["binding"], "figure": built["figure"]}


def _views(figure: dict) -> list[dict]:
    return [p["view"] for p in figure["panels"]]


def test_distance_view_binds_every_map_to_the_alpha_payload():
    at = run_app(view="distance_attention", model="dsa", alpha="0.7")
    assert_clean(at)
    control = live_controls(at)["alpha"]
    payload = control["payload"]
    assert control["value"] == pytest.approx(0.7) and payload["kind"] == "distance"
    assert (control["min"], control["max"], control["step"]) == (settings.ALPHA_MIN, settings.ALPHA_MAX,
                                                                 settings.ALPHA_STEP)
    assert set(payload) == {"kind", "id"}  # no arrays: before, the pre-mask scores of every block went each rerun
    for key in ("dsa_pair", "dsa_heads_fw", "dsa_heads_bw"):
        bound = _live_of(at, key)
        assert bound["group"] == "alpha" and bound["payload_id"] == payload["id"]
        assert bound["binding"] == {"follows": "alpha"}  # redrawn by its figure function (JSON drops the function)
    pair = _live_of(at, "dsa_pair")["figure"]
    assert pair["title"].startswith("Head-averaged attention weights at α = 0.7")
    assert [p["kind"] for p in pair["panels"]] == ["heatmap", "heatmap", "bars"]
    heads = _live_of(at, "dsa_heads_fw")["figure"]
    assert [v["title"] for v in _views(heads)] == [f"head {h + 1}" for h in range(len(heads["panels"]))]


def test_final_alpha_from_the_page_redraws_on_the_server_and_goes_into_the_link():
    at = run_app(view="compare", model="dsa", cmp="distance")
    release_live(at, "alpha", 3.0)
    assert_clean(at)
    assert at.query_params["alpha"] == "3" and live_controls(at)["alpha"]["value"] == pytest.approx(3.0)
    bound = _live_of(at, "compare")
    assert bound["binding"] == {"follows": "alpha"}
    a, b, diff = _views(bound["figure"])  # A drawn at the control's α, B stays at α = 0
    assert a["title"] == "A: α = 3" and "α = 3" not in b["title"] and diff["scale"] == "diverging"


def test_masks_view_recomputes_the_distance_panels_only():
    at = run_app(view="masks", model="disan")
    assert_clean(at)
    bound = _live_of(at, "masks")
    alpha = live_controls(at)["alpha"]["value"]
    assert bound["binding"] == {"follows": "alpha"}
    titles = [v["title"] for v in _views(bound["figure"])]  # the direction masks fixed, the distance panels at α
    assert titles[:3] == ["M_diag (Shen Eq. 16)", "M_fw (Shen Eq. 17, Im Fig. 3a)", "M_bw (Shen Eq. 18, Im Fig. 3b)"]
    assert titles[3] == f"α·M_dis, α = {alpha:g} (Im Fig. 4)"


def test_disan_feature_scrubber_sends_a_key_not_the_features():
    at = run_app(view="disan_attention", model="disan", reduce="feature", feature="7", token="1")
    assert_clean(at)
    control = live_controls(at)["feature"]
    payload = control["payload"]
    assert control["value"] == 7 and control["max"] == 299 and payload["kind"] == "features"
    # a key, not P of every feature (3.2 MB of JSON at T = 64 before, on every rerun)
    assert set(payload) == {"kind", "id"} and len(json.dumps(payload)) < 100
    for key in ("disan_row", "disan_pair"):  # drawn at the control's feature k
        bound = _live_of(at, key)
        assert bound["binding"] == {"follows": "feature"} and bound["payload_id"] == payload["id"]
        assert {v["valueName"] for v in _views(bound["figure"])[:2]} == {"P[k=7]"}
    assert _live_of(at, "disan_row")["figure"]["panels"][0]["view"]["title"] == "forward"


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
