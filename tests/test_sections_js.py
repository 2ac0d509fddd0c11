"""The page's sections (viz_app/browser/figures.js + sections.js) in Node and, drawn by report.js, in Chromium.

Node runs ``Sections.page(trace_view_json(trace))`` for random-weight and bundled models (T = 1, 2,
HTML-ish and repeated tokens, mask and α overrides, sentences past the cell-label and tick limits, an NLI
pair): typed arrays give the page that lists give, the word frames hold the trace's source2token vectors,
and errors are one sentence. The figures against the trace are checked in ``tests/test_page_figures.py``, the
builders of figures.js on literal inputs in ``tests/test_figures.py`` and ``tests/test_figures_port_js.py``.
Then headless Chromium draws a JS-built page with report.js, moves the α and feature controls, draws further
sentences into the same page, and checks the maps against the core, talk mode and the kept control values.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import disan
from disan.errors import InputError
from tests.conftest import offline_page
from tests.page_js import node_module
from viz_app.draw import bundles, figures, report, settings
from viz_app.draw.site_view import figure_context, trace_view_json
from viz_app.draw.theme import NORMAL

ROOT = Path(__file__).resolve().parents[1]
BROWSER = ROOT / "viz_app" / "browser"

HTMLISH = "it's <b>bold</b> & \"the\" the the & <i> zzqxvw"  # zzqxvw: an unknown token
LONG = " ".join(["the", "man", "in", "a", "blue", "shirt", "is", "playing", "with", "his", "dog"] * 3)  # 33 tokens
TWENTY = "a man in a blue shirt is playing with his dog on the beach while two children watch from the boat"

#: (model, text, hypothesis, trace keywords); bundled models are skipped when their checkpoint is missing.
CASES = [
    ("disan", "A lady stands outside of a Mexican market .", None, {}),
    ("disan", "good", None, {}),
    ("disan", HTMLISH, None, {"masks": ("none", "diag")}),
    ("dsa", "good", None, {}),
    ("dsa", "good movie", None, {}),
    ("dsa", HTMLISH, None, {"alpha": 0.0, "masks": ("diag", "bw")}),
    ("dsa", LONG, None, {"alpha": 0.5}),
    ("disan-sst5", "A lady stands outside of a Mexican market .", None, {}),
    ("disan-sst5", TWENTY, None, {}),
    ("disan-sst5", "bad movie", None, {}),
    ("disan-sst5", HTMLISH, None, {}),
    ("dsa-nli", "A lady stands outside of a Mexican market .", "A woman is outdoors .", {}),
    ("dsa-nli", "<b> & & <b>", "nobody", {"alpha": 2.5}),
]

#: Runs in Node (page_js.node_module): answers each job {fn, args} with its result (typed arrays
#: as lists, errors as {error}).
RUNNER = r"""
const input = JSON.parse(fs.readFileSync(0, "utf8"));
Figures.configure(input.context);
// The trace view as onnxruntime-web hands it over: Float32Array numbers, Uint8Array masks.
const typed = (s) => {
  for (const d of ["fw", "bw"]) {
    const b = s[d];
    for (const k of ["attention", "gate", "probs_max", "heads", "scores", "ffn_deactivation", "ln_max", "probs"]) {
      if (b[k]) b[k] = Float32Array.from(b[k]);
    }
    b.allowed = Uint8Array.from(b.allowed);
  }
  for (const k of ["s2t", "maxpool_share"]) if (s[k]) s[k] = Float32Array.from(s[k]);
};
const run = (job) => {
  try {
    if (job.fn === "page") { const p = Sections.page(job.args[0], job.args[1]); delete p.sections; return p; }
    if (job.fn === "typed") { typed(job.args[0].premise); if (job.args[0].hypothesis) typed(job.args[0].hypothesis); }
    if (job.fn === "typed") { const p = Sections.page(job.args[0], job.args[1]); delete p.sections; return p; }
    const [lib, name] = job.fn.split(".");
    return (lib === "F" ? Figures : Sections)[name](...job.args);
  } catch (e) { return { error: String(e && e.message || e) }; }
};
process.stdout.write(JSON.stringify(input.jobs.map(run), (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v));
"""


def node(jobs: list[dict]) -> list:
    payload = json.dumps({"context": figure_context(), "jobs": jobs}, allow_nan=False)
    proc = node_module(RUNNER, stdin=payload)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


_MODELS: dict = {}


def trace_of(name: str, text: str, hypothesis, kw: dict):
    if name not in ("disan", "dsa") and not (ROOT / "pretrained" / f"{name}.safetensors").exists():
        pytest.skip(f"the bundled model {name} is not in pretrained/")
    if name not in _MODELS:
        _MODELS[name] = disan.load(name, device="cpu")
    return _MODELS[name].trace(text, hypothesis, **kw)


@pytest.fixture(scope="module")
def built():
    """For every case: the trace, and the JS page of its trace view, full and compact."""
    traces = [trace_of(*case) for case in CASES]
    jobs = []
    for trace in traces:
        tv = trace_view_json(trace)
        jobs += [{"fn": "page", "args": [tv, {}]}, {"fn": "page", "args": [tv, {"compact": True}]},
                 {"fn": "typed", "args": [tv, {}]}]
    pages = node(jobs)
    return [(trace, pages[3 * i], pages[3 * i + 1], pages[3 * i + 2]) for i, trace in enumerate(traces)]


@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_typed_arrays_give_the_same_page_as_lists(built, index):
    _, full, _, typed = built[index]
    assert "error" not in full, full.get("error")
    assert json.loads(json.dumps(typed)) == json.loads(json.dumps(full))


def test_the_figure_context_is_json_and_names_what_the_themes_use():
    context = figure_context()
    assert json.loads(json.dumps(context, allow_nan=False)) == context
    for theme in context["themes"].values():
        assert theme["template"] in context["templates"]
        assert {theme["sequential"], theme["diverging"]} <= context["colorscales"].keys()
    assert context["colorscales"]["Viridis"] == figures._scale("Viridis")
    assert context["themes"]["normal"]["font_size"] == NORMAL.font_size


def test_number_formats_and_escapes_follow_python():
    values = [0, -0.0, 1.5, 0.1, 2.5, 1e-5, 0.0001, 123456, 1234567, 1e16, 0.125, 0.375, 0.625, 0.875, 1.005, -0.125,
              3.14159265, 0.000123456789, 99999.95, 1 / 3]
    texts = ["a & b", "<b>\"x\"</b>", "it's", ""]
    jobs = ([{"fn": "F.formatG", "args": [v]} for v in values]
            + [{"fn": "F.formatFixed", "args": [v, 2]} for v in values]
            + [{"fn": "F.htmlEscape", "args": [t]} for t in texts] + [{"fn": "S.escape", "args": [t]} for t in texts])
    got = node(jobs)
    n, m = len(values), len(texts)
    assert got[:n] == [f"{v:g}" for v in values]
    assert got[n:2 * n] == [f"{v:.2f}" for v in values]
    from html import escape

    assert got[2 * n:2 * n + m] == got[2 * n + m:2 * n + 2 * m] == [escape(t) for t in texts]  # one escaper


def test_word_frames_and_errors_are_one_sentence():
    trace = trace_of("dsa", "a <b> man", None, {})
    tv = trace_view_json(trace)
    too_long = trace_of("dsa", " ".join(["good"] * (settings.REPORT_MAX_TOKENS + 1)), None, {})
    broken = {**tv, "premise": {**tv["premise"], "fw": {**tv["premise"]["fw"], "attention": [0.5]}}}
    got = node([{"fn": "S.wordFrames", "args": [tv["premise"]]},
                {"fn": "page", "args": [trace_view_json(too_long), {}]},
                {"fn": "page", "args": [broken, {}]}])
    s2t = trace.premise.encoder.s2t_probs[0].numpy()  # (T, 2D): each frame holds one token's vector, folded
    for t, frame in enumerate(got[0]):
        values = np.asarray([v for row in frame["z"] for v in row if v is not None])
        np.testing.assert_allclose(values, s2t[t], atol=1e-6, rtol=0)
        assert frame["title"].startswith(f"#{t} ")
    with pytest.raises(InputError) as err:
        report.check_length(too_long)
    assert got[1] == {"error": str(err.value)}
    T = len(trace.tokens)
    assert got[2] == {"error": "The trace view is not complete: "
                               f"premise.fw.attention should have {T * T} values but has 1."}


# ------------------------------------------------------------------ drawing in Chromium

@pytest.mark.browser
def test_report_js_draws_and_redraws_js_built_pages_in_one_document():
    dsa_a = trace_of("dsa", "A lady stands outside of a Mexican market .", None, {})
    dsa_b = trace_of("dsa", "the dog & <b> dog", None, {})
    dsa_c = trace_of("dsa", "good movie", None, {})
    disan_a = trace_of("disan", "the movie is good .", None, {})
    disan_b = trace_of("disan", "a bad movie", None, {})
    scripts = [{"content": bundles.text("report")}]
    with offline_page(*scripts) as page:
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.add_style_tag(content=(BROWSER / "report.css").read_text(encoding="utf-8"))
        page.evaluate("""(context) => {
            document.body.className = "report";
            document.body.innerHTML = '<div id="head"></div><main id="report"></main>';
            Disan.Figures.configure(context);
            window.draw = (tv) => Disan.Report.show(document.getElementById("report"), Disan.Sections.page(tv),
                                                   { header: document.getElementById("head") });
        }""", figure_context())

        def draw(trace, n: int) -> None:
            page.evaluate("(tv) => { draw(tv); }", trace_view_json(trace))
            page.wait_for_function("(n) => document.getElementById('report').dataset.drawn === String(n)", arg=n,
                                   timeout=60_000)

        def on(fig: str, expr: str):
            """``expr`` evaluated with ``h``, the figure host of figure ``fig`` (figure_host.js), and ``c``, its first
            panel's component."""
            find = f"Disan.Report.figureHost(document.getElementById('report'), '{fig}')"
            return page.evaluate(f"() => {{ const h = {find}, c = h.panels[0].component; return {expr}; }}")

        def z(fig: str, index: int) -> np.ndarray:
            rows = on(fig, f"Array.from(h.panels[{index}].component.view.z, r => Array.from(r, v => v === null ? NaN : v))")
            return np.asarray(rows, np.float64)

        def heads_at(trace, alpha: float, direction: str) -> np.ndarray:
            T = len(trace.tokens)
            return getattr(trace.premise.encoder, direction).probs_at(alpha)[0, :, :T, :T].numpy().astype(np.float64)

        def move(control: str, key: str, expect: str) -> None:
            page.locator(f'input[data-control="{control}"]').first.focus()
            page.keyboard.press(key)
            page.wait_for_function("([c, v]) => document.getElementById('report').dataset[c] === v",
                                   arg=[control, expect])

        # A DSA page drawn from its trace view; α moved in the page is Im Eq. 7 of the core.
        draw(dsa_a, 1)
        drawn = page.locator("#report .plot[data-fig] > .disan-figure[data-figure]")
        assert drawn.count() == page.locator(".plot[data-fig]").count() == 8
        assert page.locator("#report .js-plotly-plot").count() == 0
        assert page.locator("#head header h1").inner_text().endswith("a lady stands outside of a mexican market .")
        move("alpha", "End", "5")
        for h, want in enumerate(heads_at(dsa_a, 5.0, "fw")):
            np.testing.assert_allclose(z("alpha-heads-fw-premise", h), want, atol=1e-5, rtol=0)
        np.testing.assert_allclose(z("alpha-mean-premise", 1), heads_at(dsa_a, 5.0, "bw").mean(0), atol=1e-5, rtol=0)

        # Talk mode from the keyboard, bound once: one press switches it on.
        page.locator("h2").first.click()
        page.keyboard.press("t")
        assert page.evaluate("() => document.body.classList.contains('talk')")
        assert on("prediction", "c.view.theme") == "presentation"

        # A second sentence in the same page: its tokens, the kept α = 5 (recomputed before drawing), talk mode.
        on("alpha-mean-premise", "(window.__kept = c, c.paints.frame)")
        draw(dsa_b, 2)
        badges = page.locator("#report .tokens .tok").all_inner_texts()
        assert badges == list(dsa_b.tokens)
        assert on("alpha-mean-premise", "c === window.__kept") is True  # the component was kept (update(view))
        ticks = on("alpha-mean-premise", "c.view.colTokens")
        assert ticks == ["the", "dog", "&", "<", "b", ">", "dog"]  # text on the canvas, never parsed as HTML
        assert page.evaluate("() => document.getElementById('report').dataset.alpha") == "5"
        assert page.locator('input[data-control="alpha"]').first.input_value() == "5"
        np.testing.assert_allclose(z("alpha-heads-bw-premise", 2), heads_at(dsa_b, 5.0, "bw")[2], atol=1e-5, rtol=0)
        title = on("alpha-mean-premise", "h.spec.title")
        assert title == "Head-averaged attention weights at α = 5"
        assert page.evaluate("() => document.body.classList.contains('talk')")
        assert page.get_attribute('#head [data-control="talk"]', "aria-pressed") == "true"  # a new header, talk kept
        assert on("alpha-mean-premise", "c.view.theme") == "presentation"
        page.locator("h2").first.click()
        page.keyboard.press("j")
        assert page.evaluate("() => location.hash").endswith("-talk")
        page.keyboard.press("t")  # a second binding would switch it straight back on
        assert not page.evaluate("() => document.body.classList.contains('talk')")
        assert on("prediction", "c.view.theme") == "normal"

        # Several sentences in a row: only the last is drawn, whole.
        page.evaluate("([a, b]) => { draw(a); draw(b); }", [trace_view_json(dsa_a), trace_view_json(dsa_c)])
        page.wait_for_function("() => document.getElementById('report').dataset.drawn === '3'")
        assert on("alpha-mean-premise", "c.view.z.length") == 2
        assert page.locator("#report .tokens .tok").all_inner_texts() == ["good", "movie"]

        # DiSAN into the same page: the feature scrubber on the new payload, kept for the next sentence.
        draw(disan_a, 4)
        assert page.locator("#report .plot[data-fig] > .disan-figure[data-figure]").count() == 6
        for step in range(3):
            move("feature", "ArrowRight", str(step + 1))
        T = len(disan_a.tokens)
        for index, block in enumerate((disan_a.premise.encoder.fw, disan_a.premise.encoder.bw)):
            # the page's P[:, :, 3] from Shen Eq. 15's keys, queries and c (docs/trace-view.md: no view carries P)
            np.testing.assert_allclose(z("feature-premise", index), block.probs[0, :T, :T, 3].numpy(), atol=1e-6)
        page.select_option('select[data-control="word"]', "2")
        page.wait_for_function("() => Disan.Report.figureHost(document.getElementById('report'), 's2t-premise')"
                               ".panels[0].component.view.title.startsWith('#2 ')")
        word = f"#2 '{disan_a.tokens[2]}' ({disan_a.premise.encoder.s2t_probs.shape[-1]} features)"
        assert on("s2t-premise", "c.view.title") == word
        draw(disan_b, 5)
        T = len(disan_b.tokens)
        assert page.locator('input[data-control="feature"]').first.input_value() == "3"
        np.testing.assert_allclose(z("feature-premise", 0), disan_b.premise.encoder.fw.probs[0, :T, :T, 3].numpy(),
                                   atol=1e-6)
        features = disan_b.premise.encoder.s2t_probs.shape[-1]
        assert on("s2t-premise", "c.view.title") == f"#0 'a' ({features} features)"  # word 0 again
        assert page.locator("#report p.error").count() == 0
        assert errors == []
