"""A relatedness model (SICK) everywhere a classifier works: the ONNX export and the static site, the report and
the notebook view, on tiny seeded relatedness checkpoints (tests/relatedness_model.py).

What a surface shows is checked against the public ``predict()`` (the score rᵀp̂) and ``trace()`` (p̂ and both
sentences' attention), not against the code that drew it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import disan
import disan.api
from disan.api import load
from tests.conftest import guarded_page
from tests.page_js import node_jobs
from tests.relatedness_model import PAIRS, write_relatedness_model
from viz_app.draw import site
from viz_app.draw.site_view import trace_view_json

#: The page (onnxruntime-web) equals the torch model within this (tests/test_site.py's tolerance).
TOLERANCE = 1e-4
TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory):
    """A pretrained/ folder holding tiny disan-sick and dsa-sick relatedness checkpoints."""
    folder = tmp_path_factory.mktemp("rel") / "pretrained"
    for arch in ("disan", "dsa"):
        write_relatedness_model(folder, arch)
    return folder


@pytest.fixture()
def bundled(pretrained, monkeypatch):
    """disan.load / describe read the tiny checkpoints by name."""
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", pretrained)
    return pretrained


def model_of(pretrained, arch: str):
    return load(str(pretrained / f"{arch}-sick.safetensors"), device="cpu")


# ------------------------------------------------------------------ the export


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_exported_graph_gives_the_relatedness_score_that_predict_gives(pretrained, tmp_path, arch):
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")
    from disan.onnx_export import SiteRunner, export_site_model

    model = model_of(pretrained, arch)
    export = export_site_model(model, tmp_path)
    meta = json.loads(export.vocab_path.read_text())
    assert meta["relatedness"] is True and meta["labels"] == ["1", "2", "3", "4", "5"]
    assert [o["name"] for o in meta["outputs"]][:2] == ["probs", "score"]
    assert export.runtime_error["score"] <= 1e-5
    runner = SiteRunner.open(tmp_path, model.name)
    scores = model.predict(list(PAIRS))
    for (a, b), score in zip(PAIRS, scores):
        got = runner.run(a, b)
        trace = model.trace(a, b)
        assert got["score"].shape == (1,) and 1.0 <= got["score"][0] <= 5.0
        assert got["score"][0] == pytest.approx(score, abs=1e-3)  # float16 GloVe rows in the export
        grades = np.arange(1, 6)
        assert got["score"][0] == pytest.approx(float(grades @ got["probs"]), abs=1e-5)  # rᵀp̂
        np.testing.assert_allclose(got["probs"], list(trace.prediction.values()), atol=1e-3)
    assert len(set(np.round(scores, 3))) == len(scores)  # the pairs score differently: the check can fail


def test_a_classifier_export_has_no_score_output(tmp_path, tiny_glove):
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")
    export = export_site_model(make_tiny("disan", tiny_glove, pair=True), tmp_path, extra_words=4, name="nli")
    meta = json.loads(export.vocab_path.read_text())
    assert meta["relatedness"] is False and "score" not in [o["name"] for o in meta["outputs"]]


# ------------------------------------------------------------------ the sections (Node)


def page_of(tv: dict, compact: bool = False) -> dict:
    [page] = node_jobs([{"fn": "page", "args": [tv, {"compact": compact}]}])
    assert "error" not in page, page
    return page


def test_the_prediction_section_names_the_score_and_draws_the_grade_distribution(pretrained):
    model = model_of(pretrained, "disan")
    a, b = PAIRS[0]
    trace = model.trace(a, b)
    [score] = model.predict([(a, b)])
    tv = trace_view_json(trace)
    assert tv["relatedness"] == pytest.approx(score, abs=1e-6)
    for compact in (False, True):
        page = page_of(tv, compact)
        text = f"relatedness {score:.2f} (1–5)"
        assert f"prediction: <b>{text}</b>" in page["body"]
        fig = page["data"]["figures"]["prediction"]  # a figure spec: one horizontal bars panel over the grades
        [bar] = [p["view"] for p in fig["panels"] if p["kind"] == "bars"]
        assert bar["title"].startswith("Relatedness " + f"{score:.2f} (1–5)")
        assert bar["labels"] == ["1", "2", "3", "4", "5"] and bar["orientation"] == "horizontal"
        np.testing.assert_allclose(bar["values"], list(trace.prediction.values()), atol=1e-6)
        assert "p̂" in bar["xLabel"]
        # both sentences' attention, as the NLI models show it
        assert {"mean-premise", "mean-hypothesis"} <= set(page["data"]["figures"])
    classifier = dict(tv, relatedness=None)
    body = page_of(classifier)["body"]
    best = max(trace.prediction, key=trace.prediction.get)
    assert f"prediction: <b>{best}</b>" in body and "relatedness" not in body


def test_a_one_sentence_score_model_is_captioned_as_a_score_not_a_relatedness(pretrained):
    """A single-sentence model trained with --regression (grades 1..K, score rᵀp̂) has no hypothesis: its line,
    chart title and caption name a one-sentence score, never relatedness or the pair's features."""
    model = model_of(pretrained, "disan")
    a, b = PAIRS[0]
    tv = trace_view_json(model.trace(a, b))
    pair_page = page_of(tv)
    assert "relatedness output" in pair_page["body"] and "product and absolute difference" in pair_page["body"]
    one = dict(tv, hypothesis=None)  # the trace view of a one-sentence score model: the same head's fields, no pair
    for compact in (False, True):
        page = page_of(one, compact)
        text = f"score {tv['relatedness']:.2f} (1–5)"
        assert f"prediction: <b>{text}</b>" in page["body"]
        [bar] = [p["view"] for p in page["data"]["figures"]["prediction"]["panels"] if p["kind"] == "bars"]
        assert bar["title"].startswith("Score " + f"{tv['relatedness']:.2f} (1–5)")
        if not compact:
            assert "the sentence encoding; the score is rᵀp̂" in page["body"]
        assert "relatedness" not in page["body"].lower() and "absolute difference" not in page["body"]


# ------------------------------------------------------------------ the static site (Chromium)


@pytest.fixture(scope="module")
def built(pretrained, tmp_path_factory):
    try:
        site.ort_dir()
    except disan.DisanError as err:
        pytest.skip(f"onnxruntime-web is not installed: {err}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(disan.api, "PRETRAINED_DIR", pretrained)
        return site.build_site(tmp_path_factory.mktemp("site") / "explorer", ["disan-sick", "dsa-sick"])


@pytest.mark.slow
def test_the_site_lists_the_relatedness_models_with_their_score_output(built):
    data = (built.out / "assets" / "site-data.js").read_text(encoding="utf-8")
    models = json.loads(data.split("=", 1)[1].strip().rstrip(";"))["models"]
    for m in models:
        assert m["relatedness"] is True and m["pair"] is True and m["outputs"]["relatedness"] == "score"
        assert m["title"].endswith("SICK relatedness")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_page_computes_and_shows_the_score_of_a_typed_pair(chromium, built, pretrained, arch):
    name = f"{arch}-sick"
    folder = built.out.as_uri() + "/"
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(folder), TIMEOUT_MS)
    try:
        from urllib.parse import urlencode

        a, b = PAIRS[1]
        page.goto((built.out / "index.html").as_uri() + "#" + urlencode({"m": name, "t": a, "h": b}))
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        assert page.evaluate("document.body.dataset.state") == "ready", page.inner_text("#status")
        [score] = model_of(pretrained, arch).predict([(a, b)])
        lines = page.eval_on_selector_all("section#tokens .counts", "els => els.map(e => e.innerText)")
        assert f"prediction: relatedness {score:.2f} (1–5)" in lines
        titles = page.evaluate("() => Disan.Report.figureHost(document.getElementById('report'), 'prediction')"
                               ".panels.map(p => p.component.view.title)")  # the drawn bars' title (canvas text)
        assert [t for t in titles if t.startswith(f"Relatedness {score:.2f} (1–5)")] == titles[:1]
        tv = page.evaluate("([m, t, h]) => Disan.Site.traceOf(m, t, h).then(v => JSON.parse(JSON.stringify(v, "
                           "(k, x) => ArrayBuffer.isView(x) ? Array.from(x) : x)))", [name, a, b])
        assert tv["relatedness"] == pytest.approx(score, abs=TOLERANCE)
        trace = model_of(pretrained, arch).trace(a, b)
        got = [tv["prediction"][k] for k in trace.prediction]
        np.testing.assert_allclose(got, list(trace.prediction.values()), atol=TOLERANCE)
        for side, sent in (("premise", trace.premise), ("hypothesis", trace.hypothesis)):
            T = len(sent.tokens)
            block = sent.encoder.fw
            mean = block.probs_mean[0] if arch == "disan" else block.probs[0].mean(0)
            np.testing.assert_allclose(np.reshape(tv[side]["fw"]["attention"], (T, T)), mean.numpy(), atol=TOLERANCE)
        assert page.inner_text("#hyp-row").strip() == "sentence B"
        page.fill("#hypothesis", "")
        page.wait_for_function("() => document.body.dataset.state === 'error'")
        assert "relatedness of two sentences: type sentence B" in page.inner_text("#status")
    finally:
        context.close()
    assert blocked == [] and errors == []


# ------------------------------------------------------------------ the report, the notebook, the trace command


def check_relatedness_page(page: dict, trace, score: float) -> None:
    assert f"prediction: <b>relatedness {score:.2f} (1–5)</b>" in page["body"]
    figures = page["data"]["figures"]
    [bar] = [p["view"] for p in figures["prediction"]["panels"] if p["kind"] == "bars"]
    np.testing.assert_allclose(bar["values"], list(trace.prediction.values()), atol=1e-6)
    mean = "mean-" if trace.arch == "disan" else "alpha-mean-"
    assert {mean + "premise", mean + "hypothesis"} <= set(figures)  # both sentences' attention
    assert page["view"]["relatedness"] == pytest.approx(score, abs=1e-6)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_report_file_and_the_notebook_view_show_the_score(pretrained, tmp_path, arch):
    from html import unescape

    from tests.page_js import report_page
    from viz_app.cli import main

    model = model_of(pretrained, arch)
    a, b = PAIRS[2]
    trace = model.trace(a, b)
    [score] = model.predict([(a, b)])
    out = tmp_path / "pair.html"
    assert main(["report", a, "--hypothesis", b, "--model", str(pretrained / f"{arch}-sick.safetensors"),
                 "--out", str(out)]) == 0
    check_relatedness_page(report_page(out.read_text(encoding="utf-8")), trace, score)
    assert trace.to_html(tmp_path / "api.html").read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    frame = trace._repr_html_()
    srcdoc = unescape(frame.split('srcdoc="', 1)[1].split('" sandbox=', 1)[0])
    check_relatedness_page(report_page(srcdoc), trace, score)


def test_the_trace_command_prints_the_score_and_the_grade_distribution(pretrained, capsys):
    from disan.__main__ import main

    a, b = PAIRS[0]
    path = str(pretrained / "disan-sick.safetensors")
    [score] = model_of(pretrained, "disan").predict([(a, b)])
    assert main(["trace", a, "--hypothesis", b, "--model", path, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["relatedness"] == pytest.approx(score, abs=1e-6) and list(out["prediction"]) == list("12345")
    assert main(["trace", a, "--hypothesis", b, "--model", path]) == 0
    text = capsys.readouterr().out
    assert f"relatedness: {score:.2f} (1–5); grade probabilities p̂:" in text


def test_the_plain_notebook_fallback_names_the_score(pretrained, monkeypatch):
    import disan.trace as trace_module
    from disan.errors import DisanError

    def missing():
        raise DisanError("no plotly here")

    monkeypatch.setattr(trace_module, "drawing_backend", missing)
    a, b = PAIRS[0]
    trace = model_of(pretrained, "disan").trace(a, b)
    assert f"relatedness {trace.relatedness:.2f}" in trace._repr_html_()
    assert " ".join(trace.hypothesis.tokens) in trace._repr_html_()  # sentence B too (it showed A alone)


# ------------------------------------------------------------------ the app


@pytest.fixture()
def app_models(bundled, monkeypatch):
    """The app's model picker lists the tiny relatedness checkpoints (and the random-weight ones)."""
    from disan.config import ARCHS
    from viz_app.shell import loaders

    monkeypatch.setattr(disan, "available", lambda *a: ["disan-sick", "dsa-sick", *ARCHS])
    caches = (loaders.load_model, loaders.model_config, loaders.trace_view, loaders.full_trace)
    for cache in caches:
        cache.clear()
    yield bundled
    for cache in caches:
        cache.clear()


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_explore_names_the_score_and_the_sidebar_names_sentence_a_and_b(app_models, arch):
    from tests.test_app import assert_clean, chart_by_key, plain, run_app, section_html

    a, b = PAIRS[1]
    at = run_app(view="explore", model=f"{arch}-sick", sentence=a)
    at.text_input(key="hypothesis").set_value(b).run()
    assert_clean(at)
    assert at.text_area(key="sentence").label == "Sentence A" and at.text_input(key="hypothesis").label == "Sentence B"
    model = model_of(app_models, arch)
    [score] = model.predict([(a, b)])
    assert f"prediction: <b>relatedness {score:.2f} (1–5)</b>" in section_html(at, "tokens")
    chart = chart_by_key(at, "prediction")  # a figure spec: one bars panel over the grades
    [bars] = [p["view"] for p in chart["panels"] if p["kind"] == "bars"]
    assert any(t.startswith(f"Relatedness {score:.2f} (1–5)") for t in (chart["title"], bars.get("title") or ""))
    assert bars["values"] == pytest.approx(list(model.trace(a, b).prediction.values()), abs=1e-5)
    at.text_input(key="hypothesis").set_value("").run()
    assert_clean(at)
    assert any("The sentence B is empty" in plain(e.value) for e in at.error)


def test_every_view_runs_on_a_relatedness_model_with_stored_claims(app_models, sick_data, capsys):
    from disan.__main__ import main
    from tests.test_app import assert_clean, run_app
    from viz_app.shell.catalog import VIEW_IDS

    for arch in ("disan", "dsa"):  # stored claims, as `claims --write` stores them; no model card
        assert main(["claims", "--model", str(app_models / f"{arch}-sick.safetensors"), "--data-dir", str(sick_data),
                     "--write", "--no-progress"]) == 0
    assert "Pearson's r" in capsys.readouterr().out
    for view in VIEW_IDS:
        at = run_app(view=view, model="disan-sick")
        assert_clean(at)
        assert at.session_state["model"] == "disan-sick", view


# ------------------------------------------------------------------ the claims


def test_a_claim_that_compares_accuracy_compares_pearsons_r_for_a_relatedness_model():
    from disan.claims import claim_by_id
    from disan.evidence import Outcome, ablation_gap, long_gap

    gold = np.array([1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0])
    mine = np.array([1.5, 2.5, 3.5, 4.5, 4.0, 3.0, 2.0, 1.0])  # short: r = +1; long: r = −1
    lengths = np.array([5, 6, 7, 8, 40, 41, 42, 43], dtype=float)
    shen5 = long_gap(Outcome(gold=gold, predicted=mine), lengths, claim_by_id("shen5-long-sentences"))
    assert shen5["value"] == pytest.approx(-1.0 - 1.0) and shen5["n_long"] == 4
    assert shen5["statistic"].startswith("test Pearson's r (gold against predicted relatedness) on sentences")
    assert "accuracy" not in shen5["statistic"]
    theirs = np.array([1.5, 2.5, 3.5, 4.5, 1.0, 2.0, 3.0, 4.0])  # the ablation: r = +1 on the long pairs
    im6 = ablation_gap(Outcome(gold=gold, predicted=mine), Outcome(gold=gold, predicted=theirs), lengths,
                       claim_by_id("im6-distance-mask-long"))
    assert im6["value"] == pytest.approx(-2.0) and im6["n"] == 4
    assert "Pearson's r (gold against predicted relatedness) of this model" in im6["statistic"]


@pytest.fixture(scope="module")
def sick_data(tmp_path_factory):
    from tests.task_files import write_task_data

    return write_task_data(tmp_path_factory.mktemp("sick-data"))


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_the_claims_of_a_relatedness_model_report_pearson_spearman_and_mse_with_intervals(pretrained, sick_data, arch):
    import jsonschema
    from scipy.stats import pearsonr, spearmanr

    from disan.claims import claims_for
    from disan.data import load_task
    from disan.evaluate import unpack_scores
    from disan.evidence import run
    from tests.test_evidence import SCHEMA

    model = model_of(pretrained, arch)
    test = load_task("sick", "test", sick_data)
    out = run(model, test, "sick", "test", "0" * 64, progress=False)
    jsonschema.validate(out, SCHEMA)
    predicted = np.asarray(model.predict([(e.text, e.hypothesis) for e in test]))  # the public path
    gold = np.asarray([e.score for e in test])
    assert "accuracy" not in out and "accuracy_by_length" not in out and "correct_bits" not in out
    block = out["relatedness"]
    expected = {"pearson_r": pearsonr(gold, predicted).statistic, "spearman_rho": spearmanr(gold, predicted).statistic,
                "mse": float(np.mean((gold - predicted) ** 2))}
    for name, value in expected.items():
        assert block[name]["value"] == pytest.approx(value, abs=1e-5) and block[name]["n"] == len(test)
        lo, hi = block[name]["ci95"]
        assert lo <= block[name]["value"] <= hi and lo < hi
    assert unpack_scores(out["scores_f32"]["predicted"], len(test)) == pytest.approx(predicted, abs=1e-5)
    assert unpack_scores(out["scores_f32"]["gold"], len(test)) == pytest.approx(gold, abs=1e-6)
    buckets = out["relatedness_by_length"]
    assert sum(b["n"] for b in buckets) == len(test)
    for b in buckets:
        lengths = np.array([(len(disan.tokenize(e.text)) + len(disan.tokenize(e.hypothesis))) / 2 for e in test])
        sel = (lengths >= b["lo"]) & (lengths < b["hi"])
        assert b["n"] == sel.sum() and b["mse"] == pytest.approx(np.mean((gold[sel] - predicted[sel]) ** 2), abs=1e-5)
    ids = [c["id"] for c in out["claims"]] + [s["id"] for s in out["skipped"]]
    assert sorted(ids) == sorted(c.id for c in claims_for(arch, "sick", False))
    assert {"shen7-gate-stop-words", "im9-gate-of-period"} <= set(ids)  # the gates, as for SST-5 and SNLI
    for c in out["claims"]:
        assert c["ci95"][0] <= c["value"] + 1e-9 and c["value"] <= c["ci95"][1] + 1e-9 or c["n"] < 3


def test_the_claims_command_measures_a_relatedness_checkpoint_and_says_pearsons_r(pretrained, sick_data, capsys):
    from disan.__main__ import main

    path = str(pretrained / "disan-sick.safetensors")
    assert main(["claims", "--model", path, "--data-dir", str(sick_data), "--no-progress"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("disan-sick on sick test (16 examples; Pearson's r ") and "MSE " in head  # no card: sick
    assert main(["claims", "--model", path, "--data-dir", str(sick_data), "--no-progress", "--task", "cr"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "scores relatedness" in err[0] and "--task sick" in err[0]
