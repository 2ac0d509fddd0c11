"""The standalone report (`python -m viz_app report`, `trace.to_html`) and the notebook view, without a browser.

The browser half (drawing offline, the α and feature controls against the core) is tests/test_report_browser.py.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from viz_app.cli import main
from disan.errors import InputError, OutputError
from disan.output import write_atomic
from disan.vocab import tokenize
from tests.bad_text import CASES
from tests.conftest import make_tiny
from tests.page_js import page_figures, report_data, report_page, unpack
from viz_app.draw import bundles, report, settings

ROOT = Path(__file__).resolve().parents[1]
LONG = " ".join(["movie"] * (settings.REPORT_MAX_TOKENS + 1))


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each inline script."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def tags(html: str) -> list[tuple[str, dict]]:
    parser = Tags()
    parser.feed(html)
    return parser.tags


def assert_offline(html: str) -> None:
    """No element loads anything: no script/link/img/iframe source, no stylesheet link, no remote url()."""
    for tag, attrs in tags(html):
        assert "src" not in attrs or tag == "iframe" and not attrs["src"], (tag, attrs)
        assert not (tag == "link" and attrs.get("href")), attrs
        for value in attrs.values():
            assert not re.match(r"\s*(https?:)?//", value or ""), (tag, attrs)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", html)


def data_of(html: str) -> dict:
    """What the report draws: the page its own scripts build from its trace view (tests/page_js.py)."""
    page = report_page(html)
    return {**page["data"], "html": page["header"] + page["body"], "view": page["view"]}


@pytest.fixture(scope="module")
def tiny_traces(tiny_glove):
    disan_model = make_tiny("disan", tiny_glove)
    dsa_model = make_tiny("dsa", tiny_glove, pair=True)
    return {
        "disan": disan_model.trace("the movie is n't good , the dog is ."),
        "dsa": dsa_model.trace("a man pours the tea .", "the man drinks tea"),
    }


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_report_is_one_offline_file_with_every_section(tiny_traces, arch):
    trace = tiny_traces[arch]
    html = report.report_html(trace)
    assert_offline(html)
    scripts = [a for t, a in tags(html) if t == "script"]
    # the data and its arrays (packed); the report's bundle, as built; boot. No plotly.js: the page code's canvas
    # components draw every figure
    assert len(scripts) == 2 + 1 + 1
    assert bundles.text("report") in html and "Disan.Report.boot(document)" in html
    assert 'id="plotly-js"' not in html and "Plotly" not in bundles.text("report")
    data = data_of(html)
    html = data["html"]
    ids = set(re.findall(r'<section class="section" id="([^"]+)"', html))
    expected = {"tokens", "prediction"} | (
        {"disan-mean", "disan-feature", "disan-gate", "disan-s2t"} if arch == "disan"
        else {"dsa-mean", "dsa-heads", "dsa-gate", "dsa-ffn", "dsa-pool"}
    )
    assert ids == expected
    plots = re.findall(r'class="plot" id="fig-[^"]+" data-fig="([^"]+)"', html)
    assert sorted(plots) == sorted(data["figures"]) and plots
    captions = re.findall(r"<figcaption><b>([^<]+)\.</b> ([^<]+)</figcaption>", html)
    assert len(captions) == len(plots)
    assert all(re.search(r"(Shen|Im) (Fig|Sec)\. \d", paper) and text.strip() for paper, text in captions)
    for token in trace.premise.tokens:
        assert f">{token}</span>" in html.replace("&#x27;", "'")


def test_dsa_report_binds_every_map_to_alpha_and_disan_to_feature(tiny_traces):
    dsa = data_of(report.report_html(tiny_traces["dsa"]))
    live = {fid for fid in dsa["live"]}
    assert {f"alpha-mean-{s}" for s in ("premise", "hypothesis")} <= live
    assert {f"alpha-heads-{d}-{s}" for d in ("fw", "bw") for s in ("premise", "hypothesis")} <= live
    assert {dsa["live"][f]["side"] for f in live} == {"premise", "hypothesis"}
    data = data_of(report.report_html(tiny_traces["disan"]))
    assert '<input type="range" data-control="feature"' in data["html"]
    assert '<input type="range" data-control="alpha"' not in data["html"]
    assert set(data["live"]) == {"feature-premise"}


def test_token_text_cannot_break_out_of_the_page(tiny_glove):
    model = make_tiny("disan", tiny_glove)
    html = report.report_html(model.trace("</script><script>alert(1)</script> <b>x</b> & the"))
    assert "<script>alert(1)" not in html and "<b>x</b>" not in html
    data = data_of(html)
    assert data["figures"] and "<b>x</b>" not in data["html"] and "&lt; b &gt; x" in data["html"]


def test_notebook_view_loads_nothing_from_the_network(tiny_traces):
    for trace in tiny_traces.values():
        html = trace._repr_html_()
        outer = tags(html)
        assert [t for t, _ in outer] == ["iframe"]
        assert "allow-same-origin" not in outer[0][1]["sandbox"]
        inner = outer[0][1]["srcdoc"]
        assert_offline(inner)
        data = data_of(inner)
        assert data["compact"] is True
        assert '<button type="button" data-control="talk"' not in data["html"]


def test_notebook_view_falls_back_without_the_report_code(tiny_traces, monkeypatch):
    monkeypatch.setitem(sys.modules, "viz_app.draw.report", None)  # import now raises ImportError
    html = tiny_traces["disan"]._repr_html_()
    assert "<script" not in html and "the movie is" in html and "needs viz_app and plotly" in html
    with pytest.raises(Exception, match="needs the app's figure code"):
        tiny_traces["disan"].to_html("unused.html")


def test_to_html_writes_the_report_of_the_command(tiny_traces, tmp_path):
    path = tiny_traces["dsa"].to_html(tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>")
    assert report_data(text) == report_data(report.report_html(tiny_traces["dsa"]))
    assert data_of(text)["figures"].keys() == data_of(report.report_html(tiny_traces["dsa"]))["figures"].keys()


def test_a_folder_is_refused_by_the_name_each_caller_gave_it(tiny_traces, tmp_path, capsys):
    """to_html's caller passed a path, not --out: the refusal names the argument they know (it said --out)."""
    with pytest.raises(OutputError) as refused:
        tiny_traces["disan"].to_html(tmp_path)
    message = str(refused.value)
    assert message.startswith(f"to_html's path {str(tmp_path)!r} is a folder;") and "--out" not in message
    assert main(["report", "good movie", "--model", "disan", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith(f"--out {str(tmp_path)!r} is a folder; give a file name such as "
                                                    f"{str(tmp_path / 'report.html')!r}.")
    assert list(tmp_path.iterdir()) == []


def test_long_sentences_are_refused_before_writing(tiny_glove, tmp_path):
    trace = make_tiny("disan", tiny_glove, max_tokens=settings.REPORT_MAX_TOKENS + 8).trace(LONG)
    with pytest.raises(InputError, match=f"at most {settings.REPORT_MAX_TOKENS}"):
        trace.to_html(tmp_path / "long.html")
    assert list(tmp_path.iterdir()) == []
    assert "at most" in trace._repr_html_()


def test_a_report_over_the_size_limit_is_refused_not_written(tiny_traces, tmp_path, monkeypatch):
    monkeypatch.setattr(settings, "REPORT_MAX_BYTES", 100_000)
    with pytest.raises(InputError, match="over the 0.1 MB limit"):
        tiny_traces["dsa"].to_html(tmp_path / "big.html")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_worst_case_reports_stay_under_10_mb():
    """The README's size table: 64 + 64-token NLI pairs, the largest input a report takes."""
    proc = subprocess.run(
        [sys.executable, "scripts/report_sizes.py", "--models", "disan-nli", "dsa-nli"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sizes = [float(row.split("|")[3]) for row in proc.stdout.splitlines()[2:]]
    assert len(sizes) == 2 and all(0 < mb <= 10 for mb in sizes), proc.stdout


def notebook_example_script(folder: Path) -> Path:
    """The README's notebook example followed by checks of its output, as a script in ``folder`` (also run
    against the installed wheel by tests/test_wheel.py)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"<!-- notebook-example:start -->\n```python\n(.*?)```", readme, re.S).group(1)
    checks = (
        "html = trace._repr_html_()\n"
        "assert html.startswith('<iframe srcdoc=') and 'report-data' in html\n"
        "assert saved == Path.home() / 'lady.html', saved\n"
        "assert open(saved, encoding='utf-8').read().startswith('<!DOCTYPE html>')\n"
    )
    script = folder / "notebook_example.py"
    script.write_text(code + checks, encoding="utf-8")
    return script


def test_readme_notebook_example_runs_and_writes_to_the_home_folder_not_the_current_one(tmp_path):
    """Issue 58, item 11: run where a notebook in a clone runs (its current folder), the example writes nothing
    there; its report goes to the home folder it names and prints."""
    here, home = tmp_path / "clone", tmp_path / "home"
    here.mkdir()
    home.mkdir()
    script = notebook_example_script(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=here, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    # a whole report (the trace view, the page code; no plotly.js since the canvas components draw its figures)
    assert (home / "lady.html").stat().st_size > 100_000 and str(home / "lady.html") in proc.stdout
    assert list(here.iterdir()) == []


def test_atomic_write_leaves_nothing_when_production_fails(tmp_path):
    target = tmp_path / "out.html"
    target.write_text("old")

    def boom() -> str:
        raise RuntimeError("half way")

    with pytest.raises(RuntimeError):
        write_atomic(target, boom)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.html"]
    write_atomic(target, lambda: "new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["out.html"]
    with pytest.raises(OutputError, match="does not exist"):
        write_atomic(tmp_path / "missing" / "x.html", lambda: "x")
    with pytest.raises(OutputError, match="is a folder"):
        write_atomic(tmp_path, lambda: "x")
    with pytest.raises(OutputError, match="out.html' is a file, not a folder"):  # was "does not exist"
        write_atomic(target / "x.html", lambda: "x")


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["   "], "empty"),
        ([LONG], f"at most {settings.REPORT_MAX_TOKENS}"),
        (["good movie", "--model", "no-such-model"], "No model named"),
        (["good movie", "--alpha", "1"], "no distance mask"),
        (["good movie", "--out", "{tmp}/missing/r.html"], "does not exist"),
        (["good movie", "--out", "{tmp}"], "is a folder"),
        (["good movie", "--pair", "bad movie", "--attribution"], "leave it out with --pair"),
    ],
)
def test_cli_errors_are_one_line_status_2_and_leave_no_file(capsys, tmp_path, args, fragment):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    out = [] if "--out" in args else ["--out", str(tmp_path / "r.html")]
    model = [] if "--model" in args else ["--model", "disan"]
    assert main(["report", *args, *model, *out]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err and "Traceback" not in err
    assert list(tmp_path.rglob("*")) == []


def test_cli_failure_keeps_an_existing_report(capsys, tmp_path):
    target = tmp_path / "r.html"
    target.write_text("previous report")
    assert main(["report", "", "--model", "disan", "--out", str(target)]) == 2
    assert target.read_text() == "previous report" and len(list(tmp_path.iterdir())) == 1


def test_cli_writes_a_report_in_a_fresh_process(tmp_path):
    out = tmp_path / "dsa.html"
    proc = subprocess.run(
        [sys.executable, "-m", "viz_app", "report", "A lady stands outside .", "--model", "dsa", "--alpha", "0.5",
         "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    assert str(out) in proc.stdout
    html = out.read_text(encoding="utf-8")
    assert_offline(html)
    data = data_of(html)
    assert 'value="0.5"' in data["html"] and "random weights" in data["html"].lower()
    assert data["alpha"] == 0.5


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_report_with_attribution_adds_every_methods_scores_lrp_included(tiny_glove, arch):
    """``report --attribution``'s section: per sentence the Attribution view's bars (each method's scores divided by
    its largest magnitude, LRP among them) and the Kendall τ between the rankings, in the report's own page."""
    from disan.attribution import attribute
    from viz_app.draw.attribution import LABELS, report_section

    model = make_tiny(arch, tiny_glove, pair=arch == "dsa")
    trace = model.trace("the movie is n't good .", "the film is bad" if arch == "dsa" else None)
    a = attribute(model, trace)
    data = data_of(report.report_html(trace, extra=report_section(a)))
    assert re.search(r'<section class="section" id="attribution"', data["html"])
    sides = ["premise", "hypothesis"] if arch == "dsa" else ["premise"]
    for side, scores in zip(sides, a.sides):
        assert f'data-fig="attribution-{side}"' in data["html"] and f'data-fig="tau-{side}"' in data["html"]
        bars = json.dumps(data["figures"][f"attribution-{side}"], ensure_ascii=False)
        assert LABELS["lrp"] in bars and "LRP" in data["html"]  # the bars and the report's note / captions
        lrp = np.asarray(scores.scores["lrp"], dtype=float)
        panels = data["figures"][f"attribution-{side}"]["panels"]  # one panel per method (figures.js barChart)
        drawn = next(p["view"] for p in panels if p["view"]["title"] == LABELS["lrp"])
        assert len(panels) == len(scores.scores) and drawn["labels"] == list(scores.tokens)
        np.testing.assert_allclose(drawn["values"], lrp / np.abs(lrp).max(), rtol=1e-6)
        tau = data["figures"][f"tau-{side}"]["panels"][0]["view"]
        assert len(tau["z"]) == len(scores.scores), tau


def test_a_missing_attribution_score_draws_no_bar_not_a_zero(tiny_traces):
    """report_section writes a non-finite score as null: the bars leave that token's bar out (NaN), and the others
    are still divided by the largest finite magnitude."""
    html = report.report_html(tiny_traces["disan"])
    packed = (report_data(html)["view"], base64.b64encode(unpack(html, "report-arrays")).decode("ascii"))
    T = len(tiny_traces["disan"].premise.tokens)
    [out] = page_figures([([packed], "attribution-bars", {"side": "premise", "series": [["m", [None, -4.0] + [2.0] * (T - 2)]]},
                           "normal")])
    values = out["figure"]["panels"][0]["view"]["values"]
    assert values[0] is None and values[1:] == [-1.0] + [0.5] * (T - 2)  # NaN comes back from Node's JSON as null


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_text_gives_an_offline_report_or_one_line_and_no_file(capsys, tmp_path, case):
    """The bad-text catalogue (tests/bad_text.py) through `python -m viz_app report` (in-process: argv cannot carry NUL)."""
    out = tmp_path / "r.html"
    code = main(["report", case.text, "--model", "dsa", "--out", str(out)])
    stdout, err = capsys.readouterr()
    too_long = len(tokenize(case.text)) > settings.REPORT_MAX_TOKENS
    if case.error is not None or too_long:
        assert code == 2 and err.startswith("error: ") and err.count("\n") == 1
        assert list(tmp_path.iterdir()) == []
        return
    assert code == 0 and err == "" and str(out) in stdout
    html = out.read_text(encoding="utf-8")
    assert_offline(html)
    data = data_of(html)
    tokens = data["view"]["premise"]["tokens"]
    assert tokens and (case.tokens is None or tuple(tokens) == case.tokens)
    assert "<script>alert" not in html and "<img src=x" not in html and "<b>bold" not in html


def test_the_core_loads_no_plotly_and_the_report_no_streamlit(tmp_path):
    """disan/ reaches viz_app.draw.report only when a report is asked for; the report itself never needs Streamlit."""
    code = (
        "import sys, disan\n"
        "t = disan.load('dsa', device='cpu').trace('good movie')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'plotly', 'streamlit', 'viz_app'}))\n"
        "t.to_html(sys.argv[1])\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'plotly', 'streamlit', 'viz_app'}))\n"
    )
    out = tmp_path / "x.html"
    proc = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "['plotly', 'viz_app']"] and out.is_file()


def test_the_report_names_its_checkpoint_and_the_project_version_for_every_export(tiny_traces):
    """Every export of a figure names the checkpoint's SHA-256 and the project's version (issue 54 item 3): the
    report carries them (viz_app/draw/provenance.py) for the page's figure host. A bundled model's SHA-256 is its
    manifest's; a model without a trained checkpoint says so."""
    import tomllib

    from viz_app.draw.provenance import provenance

    version = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["version"]
    data = report_data(report.report_html(tiny_traces["disan"]))
    assert data["provenance"]["version"] == version
    assert set(data["provenance"]) == {"model", "checkpointSha256", "version"}
    manifest = json.loads((Path(__file__).resolve().parents[1] / "pretrained" / "MANIFEST.json").read_text())
    name, sha = next(iter(manifest.items()))
    stem = name.removesuffix(".safetensors")
    assert provenance(stem) == {"model": stem, "checkpointSha256": sha, "version": version}
    assert provenance(f"/somewhere/{name}")["model"] == stem  # a path: the name a reader knows it by
    assert provenance("disan", random_weights=True)["checkpointSha256"] == "random weights"
    assert provenance("no-such-model")["checkpointSha256"] == "unknown"
