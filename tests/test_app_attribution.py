"""The Attribution view under AppTest: the class picker and its URL state, the bars' raw table, NLI sides."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from disan.attribution import METHODS, attribute, methods_for
from tests.conftest import make_tiny
from tests.test_app import assert_clean, chart_by_key, chart_payloads, heatmaps, plain, run_app, warnings_text, zs
from viz_app.draw.attribution import LABELS, attribution_view
from viz_app.shell import loaders


def bars(at) -> dict[str, np.ndarray]:
    """Each method's bars (a bars panel per method, figures.js barChart)."""
    return {p["name"]: np.array([np.nan if v is None else v for v in p["view"]["values"]], dtype=float)
            for p in chart_by_key(at, "attr_bars")["panels"] if p["kind"] == "bars"}


def test_the_view_draws_seven_aligned_series_and_a_tau_matrix():
    at = run_app(view="attribution", model="disan", sentence="the movie is good .")
    assert_clean(at)
    series = bars(at)
    assert len(series) == len(methods_for("disan")) == 7 and all(v.shape == (5,) for v in series.values())
    assert {"gated rollout", "attention flow", "LRP (AttnLRP)"} <= set(series)
    assert "pooling (source2token + max pool)" not in series
    assert all(np.abs(v).max() == pytest.approx(1.0) or not v.any() for v in series.values())
    tau = zs(heatmaps(chart_by_key(at, "attr_tau"))[0])
    assert tau.shape == (7, 7) and np.allclose(np.diag(tau), 1.0) and np.allclose(tau, tau.T, equal_nan=True)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "Integrated Gradients" in text and "convergence delta" in text and "Abnar & Zuidema" in text
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "shares of the mixing weights" in captions and "share of the vector itself" in captions


def test_one_run_draws_the_attributions_it_waited_for_and_requests_no_rerun():
    """The view waits for its background job inside its own run (shell/waiting.py) and draws the bars below the
    maps in that run. It used to poll from a fragment and call st.rerun() when the job was done: that rerun named
    the Attribution page, and a click on another view that landed meanwhile was replaced by it. One run, with no
    polling rerun, now holds the bars; the pair view's leave-one-out likewise."""
    from tests.test_app import COMPUTING, chart_payloads, unwire

    at = run_app(view="attribution", model="disan", sentence="a sentence this test alone explains .")
    assert_clean(at)
    assert not any(COMPUTING in c.value for c in at.caption)
    assert any(c["id"].endswith("chart_attr_bars") for c in chart_payloads(at))
    pair = run_app(view="pair", model="disan", sentence="a pair this test alone draws .",
                   sentence_b="a pair this test alone drew .")
    assert_clean(pair)
    drawn = [unwire(json.loads(c.proto.json)) for c in pair.get("bidi_component")]
    (data,) = [d for d in drawn if d.get("role") == "pair"]
    assert data["loo"], "the pair was drawn without its leave-one-out rows"


def test_the_class_picker_explains_another_class_and_lives_in_the_url():
    at = run_app(view="attribution", model="disan", sentence="the movie is good .")
    before = bars(at)["gradient × input"]
    labels = at.selectbox(key="cls").options
    predicted = loaders.attribution_view("disan", "the movie is good .", None, "default", None, None).target
    other = next(label for label in labels[1:] if label != predicted)
    at.selectbox(key="cls").set_value(other).run()
    assert_clean(at)
    assert at.query_params["cls"] == other
    assert not np.allclose(bars(at)["gradient × input"], before)
    again = run_app(view="attribution", model="disan", sentence="the movie is good .", cls=other)
    assert again.selectbox(key="cls").value == other


def test_a_class_the_model_lacks_falls_back_to_the_predicted_one_with_a_warning():
    at = run_app(view="attribution", model="disan", sentence="the movie is good .", cls="entailment")
    assert_clean(at)
    assert "entailment" in warnings_text(at) and at.selectbox(key="cls").value == ""


def test_nli_records_keep_both_sentences_and_pick_the_chosen_side(tiny_glove):
    model = make_tiny("dsa", tiny_glove, pair=True, unk_zero=True)
    view = attribution_view(attribute(model, model.trace("the man is good .", "a dog .")))
    assert [len(s.tokens) for s in view.sides] == [5, 3]
    assert view.side("hypothesis").tokens == ("a", "dog", ".") and view.side("premise") is view.sides[0]
    assert {LABELS[m] for m in view.sides[1].scores} == {METHODS[m][0] for m in methods_for("dsa")}
    json.dumps(attribute(model, model.trace("the man is good .", "a dog .")).to_json())


def test_evidence_tab_draws_the_stored_faithfulness_results_or_says_how_to_make_them():
    from disan.attribution.stored import REFRESH_COMMAND
    from viz_app.shell.faithfulness_results import read_all

    results = read_all()
    at = run_app(view="evidence")
    assert_clean(at)
    keys = {c["id"].rsplit("chart_", 1)[-1] for c in chart_payloads(at)}
    if results.measured:
        assert {"ev_faith_tau", "ev_faith_comprehensiveness", "ev_faith_sufficiency"} <= keys
        text = " ".join(plain(m.value) for m in at.markdown)
        assert all(m.data["answer"] in text for m in results.measured)
        captions = " ".join(plain(c.value) for c in at.caption)
        assert "signed mean τ" in captions and "mean |τ|" not in captions + text
        assert "detached" in captions and "premise tokens only" in captions
        tau = chart_by_key(at, "ev_faith_tau")
        names = {t["name"] for t in tau["data"]}
        assert {"attention ~ IG", "gradient × input ~ IG", "IG ~ leave-one-out", "attention ~ gated rollout"} <= names
        if any(m.data.get("agreement") for m in results.measured):
            assert "ev_faith_agreement" in keys and "ev_faith_comprehensiveness_eraser" in keys
        if any(m.not_computed for m in results.measured):
            assert any("not computed" in plain(i.value) for i in at.info)
    if results.missing:
        assert any(REFRESH_COMMAND in i.value.replace("\\", "") for i in at.info)


def test_damaged_faithfulness_files_are_reported_not_raised(tmp_path):
    from viz_app.shell.faithfulness_results import read_all

    for name, text in (("broken", "{not json"), ("partial", '{"model": "partial"}'), ("none", None)):
        (tmp_path / f"{name}.safetensors").write_bytes(b"weights")
        if text is not None:
            (tmp_path / f"{name}.faithfulness.json").write_text(text)
    results = read_all(tmp_path)
    assert results.measured == () and results.missing == ("none",)
    assert [n for n, _ in results.unreadable] == ["broken", "partial"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread priorities are Linux's")
def test_attributions_run_at_a_lower_priority_than_the_script_and_its_torch_threads():
    """The background thread (and the torch threads it starts) yield the cores to the script run and the
    browser drawing the same submit's maps; the calling thread keeps its priority."""
    import glob
    import os
    import threading

    import torch

    def job():
        torch.randn(300, 300) @ torch.randn(300, 300)  # starts this thread's torch workers where it has any
        mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        stats = [open(f).read().rsplit(")", 1)[1].split() for f in glob.glob("/proc/self/task/*/stat")]
        # torch's thread count is the job thread's own: OpenMP keeps it per thread, and this thread took the
        # process's count when it first ran torch (1 once the app's load_model set settings.TORCH_THREADS)
        return mine, sorted(int(s[16]) for s in stats), torch.get_num_threads()  # field 19 of stat: nice

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    mine, nices, threads = loaders._ATTRIBUTIONS.submit(job).result(timeout=60)
    assert mine == min(before + 10, 19)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    # the job thread and, where torch runs more than one thread there, the worker it started for its matmul
    assert nices.count(mine) >= min(threads, 2), (nices, threads)


def test_evidence_tab_draws_naopc_where_the_files_hold_it(monkeypatch):
    """The Evidence view draws the normalised AOPC (Edin et al. 2024) beside ERASER's figures once a file holds
    it (schema 3): a file's NAOPC replaced by known values is what its figures draw, with its sample named."""
    import dataclasses

    from viz_app.shell import faithfulness_results
    from viz_app.shell.views import evidence_faithfulness

    stored = faithfulness_results.read_all()
    if not stored.measured:
        pytest.skip("no stored faithfulness results")
    first = stored.measured[0]
    by = {kind: {r: {"value": 0.6, "ci95": [0.5, 0.7], "n": 10} for r in first.data["aopc"][kind]}
          for kind in ("comprehensiveness", "sufficiency")}
    how = {"reference": "Edin et al. 2024", "exact_max_tokens": 10, "beam": 4,
           "sample": {"limit": 10, "seed": 1, "n": 10, "how": "seeded random sample"}}
    holding = dataclasses.replace(first, data={**first.data, "naopc": by, "aopc_steps": by, "not_computed": [],
                                               "naopc_how": how})
    results = dataclasses.replace(stored, measured=(holding, *stored.measured[1:]))
    monkeypatch.setattr(evidence_faithfulness, "load_faithfulness", lambda *a, **k: results)
    at = run_app(view="evidence")
    assert_clean(at)
    keys = {c["id"].rsplit("chart_", 1)[-1] for c in chart_payloads(at)}
    assert {"ev_faith_comprehensiveness_naopc", "ev_faith_sufficiency_naopc",
            "ev_faith_comprehensiveness_steps"} <= keys
    naopc = chart_by_key(at, "ev_faith_comprehensiveness_naopc")
    assert "Normalised AOPC" in json.dumps(naopc, ensure_ascii=False)
    # the sample each file's NAOPC is over is named beside the figure
    captions = [c.value.replace("\\", "") for c in at.caption]  # md_escape's backslashes
    assert any(f"{first.name} 10 of {first.data['n']:,}" in c for c in captions), captions
