"""``disan train --data FILE --regression`` on single sentences (issue 55, item 1): a numeric label trains the
relatedness module's output on one sentence (p̂ over the grades 1..K, score rᵀp̂, KL loss; dev Pearson's r picks
the model), for both architectures; the card gives Pearson's r, Spearman's ρ and MSE with 95% intervals;
``disan evaluate --data`` scores it; and it opens everywhere a classifier does (``disan.load``, the app, the
site, the report, claims, faithfulness), as tests/test_file_model_everywhere.py shows for classifiers.

The file is written here (seeded): each sentence has four of the fixtures' words, and its score is 1 plus the
number of them that are good words, plus a little noise, so a tiny model can learn it.
"""

from __future__ import annotations

import base64
import csv
import gzip
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import disan
from disan.__main__ import main as core_main
from disan.attribution.corpus import TARGET_SENTENCE_SCORE
from tests import user_vectors
from viz_app.cli import main as cli_main

APP = Path(__file__).resolve().parent.parent / "viz_app" / "app.py"
GOOD, BAD = ("good", "great", "fine"), ("awful", "bad", "poor")
TINY = ["--glove", str(user_vectors.GLOVE), "--d-h", "10", "--batch-size", "8", "--threads", "1"]


def write_scores(path: Path, n: int = 120, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sentence", "rating"])
        for i in range(n):
            good = i % 5  # 0..4 good words of 4
            words = list(rng.choice(GOOD, good)) + list(rng.choice(BAD, 4 - good))
            score = float(np.clip(1 + good + rng.uniform(-0.3, 0.3), 1, 5))
            w.writerow([" ".join(rng.permutation(words)) + " .", f"{score:.2f}"])
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return write_scores(tmp_path_factory.mktemp("scores") / "ratings.csv")


def train(data: Path, out: Path, arch: str, epochs: int) -> tuple[int, str, str]:
    import contextlib
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = core_main(["train", "--model", arch, "--data", str(data), "--text", "sentence", "--label", "rating",
                          "--regression", "--epochs", str(epochs), "--out", str(out), *TINY])
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope="module")
def dsa(data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dsa") / "ratings-dsa"
    code, _, err = train(data, out, "dsa", 12)
    assert code == 0, err
    return out.with_suffix(".safetensors")


def card_of(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


@pytest.mark.parametrize("arch", ["dsa", "disan"])
def test_one_sentence_scores_train_a_score_with_intervals_on_the_card(arch, data, tmp_path):
    out = tmp_path / f"ratings-{arch}"
    code, stdout, err = train(data, out, arch, 12)
    assert code == 0, err
    model = disan.load(str(out.with_suffix(".safetensors")), "cpu")
    assert model.cfg.relatedness and not model.cfg.pair and model.cfg.arch == arch
    assert model.cfg.labels == ("1", "2", "3", "4", "5")  # grades 1..ceil(train's highest score)
    card = card_of(out)
    assert card["data_file"]["kind"] == "regression (one sentence, grades 1..K)"
    test = card["evaluation"]["test"]
    for measure in ("pearson_r", "spearman_rho", "mse"):
        lo, hi = test[f"{measure}_ci95"]
        assert lo <= test[measure] <= hi, measure
    assert test["n"] == card["data_file"]["splits"]["test"]["n"] == 10 and test["pearson_r"] > 0.6  # learned, not the mean
    assert "best_dev_pearson" in card["train"] and "Pearson's r" in stdout
    md = out.with_suffix(".card.md").read_text()
    assert "Regression head (one sentence" in md and "Spearman" in md and "95% percentile bootstrap" in md
    assert f"[{test['pearson_r_ci95'][0]:.4f}, {test['pearson_r_ci95'][1]:.4f}]" in md
    assert "Tai, Socher & Manning" in md and "s_a ⊙ s_b" not in md  # not the pair module's text


def test_predict_and_trace_give_the_score_and_its_grades(dsa):
    model = disan.load(str(dsa), "cpu")
    good, bad = model.predict(["good great fine good .", "awful bad poor bad ."])
    assert isinstance(good, float) and 1 <= bad < good <= 5
    trace = model.trace("good great fine good .")
    assert trace.relatedness == pytest.approx(good, abs=1e-5)
    assert list(trace.prediction) == list(model.cfg.labels) and sum(trace.prediction.values()) == pytest.approx(1)
    assert trace.relatedness == pytest.approx(sum(int(g) * p for g, p in trace.prediction.items()), abs=1e-5)


def test_evaluate_data_gives_the_cards_test_numbers(dsa, data, tmp_path, capsys):
    rows = list(csv.reader(data.open()))
    card = card_of(dsa)
    test_lines = [int(e["label"].split("line ")[1].split(" ")[0]) for e in card["presets"]]  # one per grade
    held = tmp_path / "held.csv"
    with held.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(rows[0])
        for line in test_lines:
            w.writerow(rows[line - 1])
    assert core_main(["evaluate", "--model", str(dsa), "--data", str(held)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == len(test_lines) >= 3
    model = disan.load(str(dsa), "cpu")
    predicted = np.array(model.predict([rows[line - 1][0] for line in test_lines]))
    gold = np.array([float(rows[line - 1][1]) for line in test_lines])
    assert report["mse"] == pytest.approx(float(np.mean((gold - predicted) ** 2)), rel=1e-4)
    assert {"pearson_r_ci95", "spearman_rho_ci95", "mse_ci95"} <= set(report)


def test_a_score_outside_its_grades_is_one_line(dsa, tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("sentence,rating\ngood film .,7.5\n")
    assert core_main(["evaluate", "--model", str(dsa), "--data", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'7.5'" in err[0] and "from 1 to 5" in err[0]


def test_app_site_report_claims_and_faithfulness_take_it(dsa, data, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(disan.api.USER_MODELS_ENV, str(dsa))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert next(s for s in at.sidebar.selectbox if s.key == "model").value == str(dsa)
    assert [a.label for a in at.sidebar.text_area if a.key == "sentence"] == ["Sentence"]  # one, not "Sentence A"
    assert not [t for t in at.sidebar.text_input if t.key == "hypothesis"]
    preset = next(s for s in at.sidebar.selectbox if s.key == "preset")
    mine = [o for o in preset.options if o.startswith("ratings-dsa: test")]
    assert len(mine) == len(card_of(dsa)["presets"]) >= 3
    assert cli_main(["site", "--model", str(dsa), "--out", str(tmp_path / "site")]) == 0
    payload = (tmp_path / "site" / "assets" / "site-data.js").read_text()
    [entry] = json.loads(payload.split("=", 1)[1].strip().rstrip(";"))["models"]
    assert entry["name"] == "ratings-dsa" and tuple(entry["labels"]) == ("1", "2", "3", "4", "5")
    assert cli_main(["report", "good great film .", "--model", str(dsa), "--out", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    packed = re.search(r'<script type="application/gzip-base64" id="report-data">([^<]*)</script>', html).group(1)
    view = json.loads(gzip.decompress(base64.b64decode(packed)))
    score = disan.load(str(dsa), "cpu").trace("good great film .").relatedness
    assert "ratings-dsa" in html and json.dumps(view).count(f'"relatedness": {score}') == 1  # the score the page shows
    capsys.readouterr()
    assert core_main(["claims", "--model", str(dsa), "--json", "--no-progress"]) == 0
    claims = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert claims["n_examples"] == card_of(dsa)["evaluation"]["test"]["n"]
    assert core_main(["faithfulness", "--model", str(dsa), "--data", str(data), "--limit", "4", "--json",
                      "--no-progress"]) == 0  # the card's columns
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["n"] == 4
    assert result["target"] == TARGET_SENTENCE_SCORE  # a rating of the sentence, not a pair's relatedness


def test_a_one_sentence_score_is_called_a_score_never_a_relatedness(dsa, capsys):
    """The pair page, the attributions and the app's Attribution and Minimal pair views name a one-sentence
    model's rᵀp̂ "score": "relatedness" (SICK's pair of sentences) read as if the model compared two sentences."""
    from html import unescape

    from disan.attribution import attribute, method_text
    from tests.page_js import pair_page, report_data, unpack
    from tests.test_app import assert_clean, run_app
    from viz_app.draw import pair_report

    model = disan.load(str(dsa), "cpu")
    ta, tb = model.trace("good great film ."), model.trace("bad great film .")
    html = pair_report.pair_report_html(ta, tb, pair_report.pair_leave_one_out(model, ta, tb))
    data = report_data(html)
    views = [(data["view"], base64.b64encode(unpack(html, "report-arrays")).decode("ascii")),
             (data["pair"]["view"], base64.b64encode(unpack(html, "report-arrays-b")).decode("ascii"))]
    page = pair_page(views, {"swap": False, "alphaControl": False})
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", page["body"])).split())
    assert f"score A {ta.relatedness:.2f} → B {tb.relatedness:.2f}" in text
    assert "leave-one-out: the drop in the score when" in text
    assert page["figures"]["pair-prediction"]["title"] == "p̂ over the grades, A and B"
    assert "relatedness" not in text.lower() and "sentence A" not in text
    assert core_main(["trace", "--model", str(dsa), "good great film ."]) == 0
    assert f"score: {ta.relatedness:.2f} (1–5); grade probabilities" in capsys.readouterr().out
    explained = attribute(model, ta, steps=4)
    assert explained.to_json()["explained"] == "score ŷ = rᵀp̂"
    assert "the drop in the score ŷ" in method_text("leave_one_out", score=True, pair=False)
    os.environ[disan.api.USER_MODELS_ENV] = str(dsa)
    try:
        for view in ("attribution", "pair"):
            at = run_app(view=view, model=str(dsa), sentence="good great film .")
            assert_clean(at)
            shown = " ".join(str(e.value) for kind in ("markdown", "caption") for e in at.get(kind))
            assert "relatedness" not in shown.lower(), view
            if view == "attribution":
                assert "the predicted score ŷ = rᵀp̂" in shown.replace("\\", "")
    finally:
        del os.environ[disan.api.USER_MODELS_ENV]


@pytest.mark.slow
@pytest.mark.browser
def test_the_explorer_calls_the_box_sentence_and_the_pairs_change_a_score(chromium, dsa, tmp_path):
    """The static explorer of a one-sentence score model: its one box is "sentence" (not SICK's "sentence A"), and
    the minimal pair's line and leave-one-out name the score."""
    from urllib.parse import urlencode

    from tests.conftest import guarded_page

    out = tmp_path / "site"
    assert cli_main(["site", "--model", str(dsa), "--out", str(out)]) == 0
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(out.as_uri()), 120_000)
    try:
        a, b = "good great film .", "bad great film ."
        page.goto((out / "index.html").as_uri() + "#" + urlencode({"t": a}))
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        assert page.evaluate("document.body.dataset.state") == "ready", page.inner_text("#status")
        assert page.inner_text("label:has(#text)").strip() == "sentence"
        page.goto((out / "index.html").as_uri() + "#" + urlencode({"t": a, "view": "pair", "bt": b}))
        page.wait_for_function("() => document.querySelector('.pair-change')")
        model = disan.load(str(dsa), "cpu")
        score_a, score_b = model.predict([a, b])
        assert page.inner_text(".pair-change").startswith(f"score A {score_a:.2f} → B {score_b:.2f}")
        assert "the drop in the score when" in page.inner_text("#report")
        labels = [page.inner_text(f"label:has(#{box})").strip() for box in ("text", "b-text")]
        assert labels == ["sentence", "B: sentence"]
    finally:
        context.close()
    assert blocked == [] and errors == []
