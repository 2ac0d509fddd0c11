"""The minimal pair's report (issue 30): `python -m viz_app report TEXT --pair B` writes one HTML file that draws
PairView's page of A and B (viz_app/browser/pair_view.js, the view the explorer and the app draw too).

Opened from disk in headless Chromium with every other request aborted, its drawn maps, gates and predictions
equal the two traces Python computed (on the aligned tokens; B − A on the aligned cells) within 1e-6, and its
leave-one-out rows equal disan.attribution.attribute's leave-one-out of A's predicted class for A and for B.
Bad input (an empty or too long side, B's hypothesis for a one-sentence model) is one line naming the side.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import disan
from tests.conftest import guarded_page
from tests.test_pair_site import TOLERANCE, check_maps
from viz_app.cli import main
from viz_app.draw import settings
from viz_app.draw.site_view import trace_view_json

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_MS = 90_000


def trained(name: str, fallback: str) -> str:
    return name if (ROOT / "pretrained" / f"{name}.safetensors").exists() else fallback


#: model → (A, A's hypothesis, B, B's hypothesis): negation in a sentence; one word of an NLI hypothesis changed.
CASES = {
    trained("disan-sst5", "disan"): ("the acting is good and the story is moving .", None,
                                     "the acting is not good and the story is moving", None),
    trained("dsa-nli", "dsa"): ("A lady stands outside of a Mexican market .", "A woman is outdoors .",
                                "A lady stands outside of a market .", "A woman is indoors ."),
}


def write(tmp_path: Path, model: str, a, ha, b, hb) -> Path:
    out = tmp_path / f"{model}-pair.html"
    args = ["report", a, "--model", model, "--out", str(out), "--device", "cpu", "--pair", b]
    if ha is not None:
        args += ["--hypothesis", ha, "--pair-hypothesis", hb]
    assert main(args) == 0
    return out


#: Each drawn figure's panels as its canvas components draw them (their public view: heatmaps' z, bars' values as
#: y), and the leave-one-out cells' values by side ("a" / "b") and sentence.
_READ = """() => {
  const figs = {}, root = document.getElementById('report');
  const rows = m => m && Array.from(m, r => Array.from(r, x => (x === x ? x : null)));
  for (const gd of document.querySelectorAll('#report .plot[data-fig]')) {
    figs[gd.dataset.fig] = Disan.Report.figureHost(root, gd.dataset.fig).panels.map(p => {
      const v = p.component.view;
      return {type: p.kind, name: p.name, z: rows(v.z) || null, y: v.values ? Array.from(v.values, x => (x === x ? x : null)) : null};
    });
  }
  const loo = {};
  for (const table of document.querySelectorAll('table.pair-align')) {
    for (const w of ['a', 'b']) {
      loo[w + ':' + table.dataset.side] = Array.from(table.querySelectorAll(`td[data-loo^="${w}:"]`))
        .map(td => td.dataset.value === undefined ? null : +td.dataset.value);
    }
  }
  return {figs, loo, swaps: document.querySelectorAll('button[data-swap]').length,
          sliders: document.querySelectorAll('input[data-control="alpha"]').length};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("model", list(CASES))
def test_the_pair_report_draws_both_traces_offline_with_python_leave_one_out(tmp_path, chromium, model):
    from disan.attribution import attribute

    a, ha, b, hb = CASES[model]
    path = write(tmp_path, model, a, ha, b, hb)
    own = path.resolve().as_uri()
    context, page, blocked, errors = guarded_page(chromium, lambda url: url == own, TIMEOUT_MS)
    try:
        page.goto(own)
        page.wait_for_function("() => document.getElementById('report').dataset.loo === '1'"
                               " || document.querySelector('#report p.error')")
        assert page.locator("#report p.error").count() == 0, page.locator("#report p.error").all_inner_texts()
        got = page.evaluate(_READ)
        assert blocked == [] and errors == []
    finally:
        context.close()
    net = disan.load(model, device="cpu")
    ta, tb = net.trace(a, ha), net.trace(b, hb)
    got.update(a=trace_view_json(ta), b=trace_view_json(tb))
    sides = ["premise"] + (["hypothesis"] if ha is not None else [])
    ops = {side: check_maps(got, side) for side in sides}  # maps, heads, gates, predictions within 1e-6
    assert any(o["op"] != "keep" for side in sides for o in ops[side])  # a pair with an edit
    # no model in the file: no α slider and no word swap, the numbers are those it was written with
    assert got["sliders"] == 0 and got["swaps"] == 0
    target = max(ta.prediction, key=ta.prediction.get)  # A's predicted class explains both rows
    for which, trace in (("a", ta), ("b", tb)):
        want = attribute(net, trace, target=target, steps=4)  # few IG steps: only leave-one-out is compared
        for side, sa in zip(sides, want.sides):
            drawn = np.array(got["loo"][f"{which}:{side}"], dtype=float)
            assert drawn.shape == (len(sa.tokens),) and not np.isnan(drawn).any()
            np.testing.assert_allclose(drawn, sa.scores["leave_one_out"].double().numpy(), rtol=0, atol=TOLERANCE)
    assert max(abs(v) for row in got["loo"].values() for v in row) > 0


@pytest.mark.parametrize("args,line", [
    (["good", "--pair", "   "], "B's sentence is empty; give it a sentence."),
    (["  ", "--pair", "good"], "A's sentence is empty; give it a sentence."),
    (["good", "--pair", " ".join(["word"] * (settings.REPORT_MAX_TOKENS + 1))],
     f"B's sentence has {settings.REPORT_MAX_TOKENS + 1} tokens; a report holds at most "
     f"{settings.REPORT_MAX_TOKENS} per sentence"),
    (["good", "--pair-hypothesis", "bad"], "disan reads one sentence; leave out --pair-hypothesis."),
])
def test_bad_pair_input_is_one_line_naming_the_side(tmp_path, capsys, args, line):
    out = tmp_path / "x.html"
    assert main(["report", *args, "--model", "disan", "--out", str(out), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and line in err
    assert not out.exists()


def test_b_s_hypothesis_alone_makes_the_pair_and_names_the_side_too_long(tmp_path, capsys):
    if not (ROOT / "pretrained" / "dsa-nli.safetensors").exists():
        pytest.skip("needs the bundled NLI checkpoint dsa-nli")
    long = " ".join(["word"] * (settings.REPORT_MAX_TOKENS + 1))
    code = main(["report", "a man sleeps", "--hypothesis", "a man rests", "--pair-hypothesis", long,
                 "--model", "dsa-nli", "--out", str(tmp_path / "x.html")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err == (f"error: B's hypothesis has {settings.REPORT_MAX_TOKENS + 1} tokens; a report holds "
                                 f"at most {settings.REPORT_MAX_TOKENS} per sentence (its in-page maps grow with the "
                                 "square of the length). Shorten it.")
