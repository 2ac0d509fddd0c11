"""The minimal pair of a relatedness model (SICK: two sentences per side), issue 30 with issue 28's names.

Its two inputs are its "first sentence" and "second sentence" in the pair's page (headings, figure titles,
controls, presets, messages: settings.PAIR_RELATEDNESS_NAMES), never a premise or a hypothesis, nor SICK's own
"sentence A" and "sentence B", which beside the pair's sides A and B would read "B: sentence A"; the prediction
line gives both relatedness scores ŷ = rᵀp̂ and their change; leave-one-out explains the score, as ``disan.attribution.attribute`` does for such a model: in Python (the report and the app) equal to
attribute()'s, in the page (``Pair.leaveOneOut`` with target "score") equal to the drop of rᵀp̂. On the tiny
seeded relatedness checkpoint (tests/relatedness_model.py); the app on pretrained/disan-sick where it exists.
"""

from __future__ import annotations

import base64
import json
import re
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from disan.api import load
from disan.attribution import attribute
from tests.page_js import node_module, pair_page, report_data, unpack
from tests.relatedness_model import PAIRS, write_relatedness_model
from viz_app.cli import main
from viz_app.draw import pair_report

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 1e-5


@pytest.fixture(scope="module")
def sick_path(tmp_path_factory) -> str:
    return str(write_relatedness_model(tmp_path_factory.mktemp("pair-sick") / "pretrained", "disan"))


@pytest.fixture(scope="module")
def sick_model(sick_path):
    return load(sick_path, device="cpu")


def visible(page: dict) -> str:
    titles = [f["title"] or " ".join(p["view"].get("title") or "" for p in f["panels"]) for f in page["figures"].values()]
    return unescape(re.sub(r"<[^>]+>", " ", page["body"])) + " " + " ".join(titles)


def test_the_pair_page_and_report_say_first_and_second_sentence_show_the_score_change_and_explain_the_score(
        sick_model):
    a_text, a_hyp = PAIRS[0]
    b_hyp = a_hyp.replace("dog", "man")
    ta, tb = sick_model.trace(a_text, a_hyp), sick_model.trace(a_text, b_hyp)
    loo = pair_report.pair_leave_one_out(sick_model, ta, tb)
    html = pair_report.pair_report_html(ta, tb, loo)
    data = report_data(html)
    views = [(data["view"], base64.b64encode(unpack(html, "report-arrays")).decode("ascii")),
             (data["pair"]["view"], base64.b64encode(unpack(html, "report-arrays-b")).decode("ascii"))]
    page = pair_page(views, {"swap": False, "alphaControl": False})
    text = visible(page)
    assert "<h3>First sentence</h3>" in page["body"] and "<h3>Second sentence</h3>" in page["body"]
    assert "— first sentence" in text and "— second sentence" in text
    assert not re.search(r"\bsentence [AB]\b", text, re.IGNORECASE), text  # SICK's names would clash with A and B
    assert not re.search(r"\b(premise|hypothesis)\b", text, re.IGNORECASE), text
    # the prediction line: both scores and the change
    assert page["change"]["relatedness"] == pytest.approx([ta.relatedness, tb.relatedness], abs=1e-6)
    delta = tb.relatedness - ta.relatedness
    assert abs(delta) > 1e-3  # the edit moved the score, so the line shows a change
    line = f"relatedness A {ta.relatedness:.2f} → B {tb.relatedness:.2f} ({'+' if delta >= 0 else '−'}{abs(delta):.2f})"
    assert line in " ".join(text.split())
    assert "leave-one-out: the drop in the relatedness score" in text
    # leave-one-out of the score ŷ for A and B: attribute()'s default for a relatedness model
    assert data["pair"]["loo"] == loo
    for which, trace in (("a", ta), ("b", tb)):
        want = attribute(sick_model, trace, steps=4)
        assert want.target == "relatedness"
        for side, sa in zip(("premise", "hypothesis"), want.sides):
            np.testing.assert_allclose(loo[which][side], sa.scores["leave_one_out"].double().numpy(), rtol=0,
                                       atol=TOLERANCE)


#: A fake model runner (p̂ from the ids, softmax of fixed logits) and Pair.leaveOneOut on it.
RUNNER = r"""
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const probs = (p, h) => {
  const logits = [0, 0, 0, 0, 0];
  p.concat(h || []).forEach((id, t) => { logits[(id + t) % 5] += id === 1 ? 0.1 : 0.3 * id; });
  const e = logits.map(Math.exp), s = e.reduce((x, y) => x + y, 0);
  return Promise.resolve(e.map((v) => v / s));
};
// the runner's shape (Site.runner): probsMany runs inputs one after another on a lane; one lane here
const probsMany = (inputs) => Promise.all(inputs.map(([p, h]) => probs(p, h)));
const runner = { probs: probs, probsMany: probsMany, lanes: () => 1, unk: 1 };
const input = { premise: { ids: job.p }, hypothesis: { ids: job.h }, alpha: null };
Promise.all([Pair.leaveOneOut(runner, input, { target: "score" }), Pair.leaveOneOut(runner, input, { target: 2 }),
             Pair.leaveOneOut(runner, input, { target: "grade" }).catch((e) => e.message)])
  .then(([score, grade, bad]) => {
    const arr = (r) => ({ target: r.target, probability: r.probability, premise: Array.from(r.premise),
                          hypothesis: Array.from(r.hypothesis) });
    process.stdout.write(JSON.stringify({ score: arr(score), grade: arr(grade), bad: bad }));
  });
"""


def _probs(p: list[int], h: list[int]) -> np.ndarray:
    logits = np.zeros(5)
    for t, i in enumerate(p + h):
        logits[(i + t) % 5] += 0.1 if i == 1 else 0.3 * i
    e = np.exp(logits)
    return e / e.sum()


def test_in_page_leave_one_out_of_a_relatedness_model_explains_its_score():
    p, h = [4, 7, 2, 9], [3, 1, 5]
    proc = node_module(RUNNER, stdin=json.dumps({"p": p, "h": h}), timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    r = np.arange(1, 6)

    def erased(side: str, t: int) -> tuple[list[int], list[int]]:
        pp, hh = list(p), list(h)
        (pp if side == "premise" else hh)[t] = 1
        return pp, hh

    base = _probs(p, h)
    assert out["score"]["target"] == "score" and out["score"]["probability"] == pytest.approx(r @ base, abs=1e-12)
    for side, ids in (("premise", p), ("hypothesis", h)):
        want = [0.0 if i == 1 else r @ base - r @ _probs(*erased(side, t)) for t, i in enumerate(ids)]
        np.testing.assert_allclose(out["score"][side], want, rtol=0, atol=1e-12)
        want_grade = [0.0 if i == 1 else base[2] - _probs(*erased(side, t))[2] for t, i in enumerate(ids)]
        np.testing.assert_allclose(out["grade"][side], want_grade, rtol=0, atol=1e-12)
    assert out["bad"] == 'class index grade is out of range; choose 0 to 4 or "score"'


@pytest.mark.skipif(not (ROOT / "pretrained" / "disan-sick.safetensors").exists(),
                    reason="pretrained/disan-sick is not in this checkout")
def test_the_app_pair_view_of_disan_sick_says_first_and_second_sentence_and_sends_the_scores_leave_one_out():
    from tests.test_app import assert_clean, run_app, settled
    from tests.test_app_pair import pair_payload

    a_text, a_hyp = "A man is jumping into an empty pool", "There is no biker jumping in the air"
    at = settled(run_app(view="pair", model="disan-sick", sentence=a_text, hypothesis=a_hyp,
                         hypothesis_b="There is a biker jumping in the air"))
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    assert at.text_area(key="sentence_b").label == "B: first sentence"
    assert at.text_input(key="hypothesis_b").label == "B: second sentence"
    presets = at.selectbox(key="pair_preset").options[1:]
    assert presets and all(o.startswith("relatedness: the second sentence") for o in presets)
    labels = [w.label for w in (*at.text_area, *at.text_input, *at.selectbox)] + presets
    assert not [x for x in labels if "B:" in x and re.search(r"sentence [AB]\b", x)], labels
    net = load("disan-sick", device="cpu")
    loo = pair_payload(at)["loo"]
    for which, hyp in (("a", a_hyp), ("b", "There is a biker jumping in the air")):
        want = attribute(net, net.trace(a_text, hyp), steps=4)  # the score ŷ, attribute()'s default here
        for side, sa in zip(("premise", "hypothesis"), want.sides):
            np.testing.assert_allclose(loo[which][side], sa.scores["leave_one_out"].double().numpy(), rtol=0,
                                       atol=TOLERANCE)


@pytest.mark.parametrize("pair,first,second", [(["--pair", "A man runs ."], "first sentence", "second sentence"),
                                               ([], "sentence A", "sentence B")])
def test_a_report_of_a_relatedness_model_without_sentence_b_is_one_line_naming_the_flag(sick_path, tmp_path, capsys,
                                                                                         pair, first, second):
    # a pair report names the inputs as the pair view does (its sides are A and B); a sentence report, SICK's way
    out, path = tmp_path / "x.html", sick_path
    assert main(["report", "a man runs .", *pair, "--model", path, "--out", str(out), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {path} reads two sentences ({first} and {second}); give its {second} with --hypothesis."
    assert not out.exists()


# ------------------------------------------------------------------ in Chromium


@pytest.mark.browser
@pytest.mark.skipif(not (ROOT / "pretrained" / "disan-sick.safetensors").exists(),
                    reason="pretrained/disan-sick is not in this checkout")
def test_the_explorers_pair_view_of_disan_sick_names_first_and_second_sentence_and_leaves_out_words_of_the_score(
        chromium, static_site):
    from tests.conftest import guarded_page
    from tests.test_site import fragment

    built = static_site  # the session's site of every bundled model, disan-sick among them
    a_text, a_hyp = "A man is jumping into an empty pool", "There is no biker jumping in the air"
    b_hyp = "There is a biker jumping in the air"
    folder = built.out.as_uri() + "/"
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(folder), 120_000)
    try:
        page.goto((built.out / "index.html").as_uri() + fragment(m="disan-sick", view="pair", t=a_text, h=a_hyp,
                                                                  bt=a_text, bh=b_hyp))
        page.wait_for_function("() => document.body.dataset.state === 'ready' && "
                               "document.getElementById('report').dataset.loo")
        got = page.evaluate("""() => ({
          labels: ['text', 'hypothesis', 'b-text', 'b-hypothesis'].map(id =>
            document.getElementById(id).parentNode.innerText.trim()),
          shown: Array.from(document.querySelectorAll('#controls label, #report h2, #report h3, #report .disan-figure__title'))
            .filter(e => e.checkVisibility()).map(e => e.textContent.trim()),
          presets: Array.from(document.getElementById('pair-preset').options).slice(1).map(o => o.textContent),
          change: document.querySelector('#report .pair-change').textContent,
          counts: document.querySelector('#report .counts').textContent,
          loo: Object.fromEntries(Array.from(document.querySelectorAll('#report table.pair-align td[data-loo]'))
            .map(td => { const [w, t] = td.dataset.loo.split(':');
                         return [w + ':' + td.closest('table').dataset.side + ':' + t, Number(td.dataset.value)]; }))})""")
        page.fill("#b-hypothesis", "")  # B refused: the one line names B's second sentence
        page.wait_for_function("() => document.body.dataset.state === 'error'")
        refusal = page.inner_text("#status")
    finally:
        context.close()
    assert blocked == [] and errors == []
    assert got["labels"] == ["first sentence", "second sentence", "B: first sentence", "B: second sentence"]
    assert got["presets"] and all(p.startswith("relatedness: the second sentence") for p in got["presets"])
    shown = got["shown"] + got["presets"]
    assert "Second sentence" in shown and any(t.endswith(("— first sentence", "— second sentence")) for t in shown), shown
    assert not [x for x in shown if "B:" in x and re.search(r"sentence [AB]\b", x)], shown
    assert refusal == "B: this model scores the relatedness of two sentences: type the second sentence as well."
    net = load("disan-sick", device="cpu")
    ta, tb = net.trace(a_text, a_hyp), net.trace(a_text, b_hyp)
    assert re.fullmatch(r"relatedness A (\S+) → B (\S+) \((\S+)\)", got["change"])
    assert f"A {ta.relatedness:.2f} → B {tb.relatedness:.2f}" in got["change"]
    assert "the drop in the relatedness score" in got["counts"]
    # the page's leave-one-out (one model run per token, float16 word table) is attribute()'s of the score
    for which, trace in (("a", ta), ("b", tb)):
        want = attribute(net, trace, steps=4)
        for side, sa in zip(("premise", "hypothesis"), want.sides):
            drawn = [got["loo"][f"{which}:{side}:{t}"] for t in range(len(sa.tokens))]
            np.testing.assert_allclose(drawn, sa.scores["leave_one_out"].double().numpy(), rtol=0, atol=1e-4)
