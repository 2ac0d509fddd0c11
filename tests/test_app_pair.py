"""The app's Minimal pair view (issue 30): sentence A from the sidebar, B in the view, drawn by Disan.PairView's page.

In-process with AppTest, for a DiSAN and a DSA model: the view hands the chart component two trace views, and the
page the component builds from them (in Node, by the page's own code: tests/page_js.py's pair_page) holds the
two traces' numbers on the aligned tokens (maps, heads, gates, predictions within 1e-6); the leave-one-out rows
the server sends are disan.attribution.attribute's leave-one-out of A's predicted class; the address keeps both
sentences, the model and α and reopens the same pair; an empty or too long B is one line. In headless Chromium
against a real server: the page is drawn and its leave-one-out rows are filled.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import disan
from tests.conftest import local_page
from tests.page_js import pair_page
from tests.test_app import _VIEWS, _record_views, assert_clean, plain, run_app, settled
from tests.test_pair_site import TOLERANCE, check_maps
from viz_app.draw import settings
from viz_app.draw.site_view import trace_view_json
from viz_app.shell.chart import SENT_VIEWS, unwire

ROOT = Path(__file__).resolve().parent.parent


def trained(name: str, fallback: str) -> str:
    return name if (ROOT / "pretrained" / f"{name}.safetensors").exists() else fallback


DISAN = trained("disan-sst5", "disan")
DSA_NLI = (ROOT / "pretrained" / "dsa-nli.safetensors").exists()
#: model → the address of a pair: negation in a sentence; one word of an NLI hypothesis changed.
CASES = {
    DISAN: {"sentence": "the acting is good and the story is moving .",
            "sentence_b": "the acting is not good and the story is moving"},
    **({"dsa-nli": {"sentence": "A lady stands outside of a Mexican market .", "hypothesis": "A woman is outdoors .",
                    "sentence_b": "A lady stands outside of a market .", "hypothesis_b": "A woman is indoors ."}}
       if DSA_NLI else
       {"dsa": {"sentence": "the plot is dull but the acting is superb .",
                "sentence_b": "the acting is superb but the plot is dull ."}}),
}


def pair_payload(at) -> dict | None:
    """The data the Minimal pair view handed the chart component (role "pair"), or None."""
    found = [unwire(json.loads(c.proto.json)) for c in at.get("bidi_component")
             if c.proto.component_name.startswith("viz_plotly_chart")]
    pairs = [d for d in found if d.get("role") == "pair"]
    assert len(pairs) <= 1
    return pairs[0] if pairs else None


def opened(model: str, **params):
    at = run_app(view="pair", model=model, **params)
    assert_clean(at)
    at = settled(at)  # the leave-one-out thread has finished and the view has drawn again
    assert_clean(at)
    at.session_state[SENT_VIEWS] = set()  # the page is sent both views again: this run's payload carries them
    at.run()
    _record_views(at)
    return at


@pytest.mark.parametrize("model", list(CASES))
def test_the_view_draws_both_traces_with_python_leave_one_out_and_the_address_reopens_it(model):
    from disan.attribution import attribute

    params = CASES[model]
    at = opened(model, **params)
    assert not at.error, [e.value for e in at.error]
    data = pair_payload(at)
    assert data is not None and len(data["view_ids"]) == 2 and data["view_ids"][0] != data["view_ids"][1]
    page = pair_page([_VIEWS[v] for v in data["view_ids"]], {"theme": data["theme"], "alphaControl": False,
                                                             "swap": False})
    net = disan.load(model, device="cpu")
    a = net.trace(params["sentence"], params.get("hypothesis"))
    b = net.trace(params["sentence_b"], params.get("hypothesis_b"))
    # each figure spec's panels as check_maps reads them: a heatmap's z, a bars panel's values as y
    figs = {k: [{"type": "heatmap", "z": p["view"]["z"]} if p["kind"] == "heatmap" else
                {"type": "bar", "y": p["view"]["values"]} for p in f["panels"]]
            for k, f in page["figures"].items()}
    got = {"a": trace_view_json(a), "b": trace_view_json(b), "figs": figs}
    sides = ["premise"] + (["hypothesis"] if a.hypothesis is not None else [])
    ops = [o for side in sides for o in check_maps(got, side)]  # maps, heads, gates, predictions within 1e-6
    assert any(o["op"] != "keep" for o in ops)
    assert ('data-control="alpha"' in page["body"]) is False and "data-swap" not in page["body"]
    # leave-one-out of A's predicted class, for A and for B: disan.attribution's
    target = max(a.prediction, key=a.prediction.get)
    assert page["change"]["target"] == target
    for which, trace in (("a", a), ("b", b)):
        want = attribute(net, trace, target=target, steps=4)  # few IG steps: only leave-one-out is compared
        for side, sa in zip(sides, want.sides):
            np.testing.assert_allclose(data["loo"][which][side], sa.scores["leave_one_out"].double().numpy(),
                                       rtol=0, atol=TOLERANCE)
    # the address holds both sentences, the model and α, and reopens the same pair
    query = {k: at.query_params[k] for k in at.query_params}
    assert query["view"] == "pair" and query["model"] == model
    for key, value in params.items():
        assert query[key] == value, key
    if net.cfg.arch == "dsa":
        assert query["alpha"] == f"{net.cfg.alpha:g}"
    again = opened(model, **{k: v for k, v in query.items() if k not in ("view", "model")})
    assert pair_payload(again)["view_ids"] == data["view_ids"]
    assert at.text_area(key="sentence_b").value == params["sentence_b"]


def test_b_starts_as_a_copy_of_a_and_alpha_reruns_both():
    model = "dsa-nli" if DSA_NLI else "dsa"
    at = opened(model, sentence="a man is sleeping .", **({"hypothesis": "a man rests ."} if DSA_NLI else {}))
    assert at.text_area(key="sentence_b").value == "a man is sleeping ."
    if DSA_NLI:
        assert at.text_input(key="hypothesis_b").value == "a man rests ."
    first = pair_payload(at)["view_ids"]
    assert first[0] == first[1]  # B is A: one trace view
    at.slider(key="alpha").set_value(0.0).run()
    assert_clean(at)
    at.session_state[SENT_VIEWS] = set()
    at.run()
    _record_views(at)
    data = pair_payload(at)
    assert data["view_ids"] != first
    views = [_VIEWS[v][0] for v in data["view_ids"]]
    assert [v["alpha"] for v in views] == [0.0, 0.0]


@pytest.mark.parametrize("model", [DISAN, "dsa"])
@pytest.mark.parametrize("b,fragment", [
    ("   ", "of B is empty; type a sentence for B"),
    (" ".join(["word"] * (settings.MAX_TOKENS + 1)),
     f"of B has {settings.MAX_TOKENS + 1} tokens; this app draws at most {settings.MAX_TOKENS}"),
])
def test_bad_b_is_one_line_and_no_pair_is_drawn(model, b, fragment):
    at = run_app(view="pair", model=model, sentence="a good film .")
    assert_clean(at)
    at.text_area(key="sentence_b").set_value(b).run()
    assert_clean(at)
    assert len(at.error) == 1 and fragment in plain(at.error[0].value)
    assert "\n" not in at.error[0].value
    assert pair_payload(at) is None


# ------------------------------------------------------------------ in Chromium against a real server


def _wait_for_loo(page, log: Path, model: str) -> None:
    """Until the pair is drawn with its leave-one-out rows; else fail with what the page and the server said
    (this wait once ran out inside the full suite, in clean-clone CI only, without a trace of why)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("() => { const el = document.querySelector('.viz-pair');"
                               " return el && el.dataset.ready === '1' && el.dataset.loo; }")
    except PlaywrightTimeout:
        state = page.evaluate("() => { const el = document.querySelector('.viz-pair'); return {"
                              " pair: el ? {ready: el.dataset.ready, loo: el.dataset.loo} : null,"
                              " said: document.querySelector('[data-testid=stMain]')?.innerText.slice(-1500)}; }")
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.exists() else "(no log)"
        pytest.fail(f"{model}: the pair's leave-one-out never came: {state}\nserver log:\n{tail}")


@pytest.mark.browser
def test_the_view_is_drawn_in_the_browser_with_its_leave_one_out_rows(chromium, server, app_server_log):
    from urllib.parse import urlencode

    context, page, outside, errors = local_page(chromium, timeout_ms=120_000)
    try:
        for model, params in CASES.items():
            page.goto(f"{server}/pair?{urlencode({'model': model, **params})}")
            _wait_for_loo(page, app_server_log, model)
            drawn = page.evaluate("""() => ({
              plots: document.querySelectorAll('.viz-pair .plot[data-fig]').length,
              shown: document.querySelectorAll('.viz-pair .plot[data-fig] [data-figure^="figure:"][data-drawn]').length,
              loo: Array.from(document.querySelectorAll('.viz-pair td[data-loo]')).map(td => td.dataset.value),
              b: Array.from(document.querySelectorAll('.viz-pair td.b:not([data-loo])'))
                .map(td => td.textContent).filter(t => t !== ""),
              exceptions: document.querySelectorAll('[data-testid="stException"]').length})""")
            assert drawn["exceptions"] == 0
            assert drawn["plots"] == drawn["shown"] >= 5
            assert drawn["loo"] and all(v is not None for v in drawn["loo"])
            want = disan.tokenize(params["sentence_b"]) + disan.tokenize(params.get("hypothesis_b", ""))
            assert drawn["b"] == want  # B's row: B's tokens, as the server's trace read them
    finally:
        context.close()
    assert outside == [] and errors == []


@pytest.mark.skipif(not (ROOT / "pretrained" / "disan-sick.safetensors").exists(), reason="no disan-sick checkpoint")
def test_a_relatedness_models_caption_names_the_sidebars_inputs_as_the_sidebar_does():
    """Met on the walk (issue 58): the caption said "the sidebar's sentence A and sentence B", while on this view
    the sidebar names them "First sentence" and "Second sentence" (sidebar.side_names)."""
    at = run_app(view="pair", model="disan-sick")
    assert_clean(at)
    labels = {w.label.lower() for w in [*at.sidebar.text_area, *at.sidebar.text_input]}
    assert set(settings.PAIR_RELATEDNESS_NAMES) <= labels, labels
    caption = next(c.value for c in at.caption if c.value.startswith("Change a word"))
    assert "the sidebar's first and second sentence" in caption, caption
    assert "the sidebar's sentence a" not in caption.lower(), caption
