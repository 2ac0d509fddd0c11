"""``python -m viz_app bench`` (``benchmarks/``): a --quick run prints every table with its columns and writes the
Markdown report.

Only that the command works is tested here; speed targets live in the
benchmark report (docs/benchmarks.md), never in timed tests.
"""

import re
from pathlib import Path

import pytest

from disan.errors import OutputError

from benchmarks import cli as bench
from benchmarks import server
from benchmarks import train as bench_train
from benchmarks.common import Stats, Table, background_jobs, sentence
from disan.vocab import tokenize


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One in-process ``all --quick`` run (app excluded), hermetic: no dataset folder, one thread."""
    tmp = tmp_path_factory.mktemp("bench")
    md, js = tmp / "benchmarks.md", tmp / "raw.json"
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench.main(["all", "--quick", "--threads", "1", "--data-dir", str(tmp / "no-data"),
                           "--predict-inputs", "32", "--markdown", str(md), "--json", str(js)])
    lines = out.getvalue()
    return code, lines, md.read_text(), js.read_text(), (str(js), str(md))


def test_quick_run_prints_trace_table(quick_run):
    code, out, *_ = quick_run
    assert code == 0
    for column in ("model", "trace median ms", "trace p95 ms", "trace peak RSS MiB", "predict median ms",
                   "predict p95 ms"):
        assert column in out
    assert "disan" in out and "dsa" in out


def test_quick_run_prints_training_table_against_the_papers(quick_run):
    _, out, *_ = quick_run
    for column in ("s / epoch", "sentences / s", "vs paper", "speed-up vs naive"):
        assert column in out
    assert "587" in out and "693" in out
    assert "naive reference" in out and "fused token2token" in out
    assert "fallback lengths" in out  # no SNLI files in the given data dir: says so


def test_quick_run_prints_predict_and_target_tables(quick_run):
    _, out, *_ = quick_run
    assert "Batch prediction" in out and "inputs / s" in out
    assert "Targets (issues 5, 12 and 19)" in out
    assert "H100" in out and "not measured" in out  # no GPU here, and the app is not run by --quick


def test_markdown_report_has_command_machine_and_tables(quick_run):
    _, _, md, raw, _ = quick_run
    assert md.startswith("# Benchmarks")
    assert "python -m viz_app bench all --quick" in md
    for item in ("| CPU |", "| logical CPUs |", "| torch |", "Smoke run", "load average at start", "nice ≥ 10"):
        assert item in md
    assert md.count("### ") >= 4 and "| model |" in md
    assert '"trace"' in raw and '"train"' in raw


def test_the_runs_page_is_what_bench_render_writes_from_its_json(quick_run):
    """The run writes its JSON first and its page from it: rendering that JSON again gives the same page."""
    from benchmarks import render

    _, _, md, raw, (js, md_path) = quick_run
    again = Path(md_path).with_name("again.md")
    assert render.main(["--json", js, "--markdown", str(again)]) == 0
    assert again.read_text().replace(str(again), md_path) == md
    assert "| run time |" in md and "not recorded" not in md  # a new run stores its date and duration
    assert '"finished"' in raw and '"elapsed_s"' in raw


def test_cli_dispatch_through_python_m_viz_app(capsys):
    from viz_app.cli import main

    assert main(["bench", "trace", "--quick", "--threads", "1", "--models", "dsa", "--sizes", "8"]) == 0
    assert "trace median ms" in capsys.readouterr().out


def test_device_cuda_without_a_gpu_says_so_and_runs_nothing(capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert bench.main(["all", "--quick", "--device", "cuda"]) == 2
    err = capsys.readouterr().err
    assert "no CUDA device" in err and "--device auto or cpu" in err


def test_device_cuda_runs_only_the_gpu_rows(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    args = bench.parse_args(["all", "--device", "cuda"])
    assert bench.devices(args) == ["cuda"]
    assert bench.devices(bench.parse_args(["all", "--device", "cpu"])) == ["cpu"]
    assert bench.devices(bench.parse_args(["all"])) == ["cpu", "cuda"]


def test_stats_and_tables():
    st = Stats.of([0.1, 0.2, 0.3, 0.4, 10.0])
    assert st.median == pytest.approx(0.3) and st.n == 5 and st.p95 > 0.4
    t = Table("T", ["a", "b"])
    t.add("x", "1.5")
    assert "| x | 1.5 |" in t.to_markdown() and t.to_text().startswith("T")
    with pytest.raises(ValueError):
        t.add("only one cell")


@pytest.mark.parametrize("n", [1, 8, 20, 64, 1024])
def test_benchmark_sentences_have_exact_lengths(n):
    assert len(tokenize(sentence(n))) == n


def test_epoch_plan_is_an_snli_epoch(tmp_path):
    pool = bench_train.load_pairs(tmp_path, limit=500)  # fallback: no SNLI here
    plan = bench_train.plan_epoch(pool, n_timed=5, n_warmup=2)
    assert len(plan.pair_of) == 549_367 and len(plan.batches) == 8_584
    assert len(plan.timed) == 5 and not set(plan.timed) & set(plan.warmup)


def test_model_package_holds_no_benchmarks():
    import disan

    package = Path(disan.__file__).parent
    assert not list(package.glob("bench*.py"))
    for path in package.glob("*.py"):
        text = path.read_text()
        assert "playwright" not in text and "import streamlit" not in text, path.name


def test_background_jobs_are_listed_as_text():
    jobs = background_jobs(sample_s=0.05)
    assert isinstance(jobs, list) and all("nice" in j for j in jobs)


@pytest.mark.slow
@pytest.mark.browser
def test_app_latency_rows(capsys):
    why = server.unavailable()
    if why:
        pytest.skip(why)
    assert bench.main(["app", "--quick", "--app-lengths", "10", "--app-models", "disan-sst5"]) == 0
    out = capsys.readouterr().out
    for row in ("α step → every map", "α keys at 3/s", "feature step → redrawn", "submit → explore heatmaps",
                "submit → disan_attention heatmaps", "browser", "server", "server CPU"):
        assert row in out
    assert "p95 ms" in out and "failed" not in out
    assert "one frame" in out  # the 16 ms goal is reported beside the limits


def test_readme_block_carries_the_app_targets_and_the_load(tmp_path):
    from benchmarks.report import README_END, README_START, readme_block, write_readme

    targets = Table("Targets", ["target", "measured", "verdict"])
    targets.add("app α step → every map, dsa T=10: p95 ≤ 50 ms", "median 8.0 ms, p95 12.0 ms", "met")
    targets.add("trace T=20, CPU, dsa: median ≤ 20 ms", "median 5 ms", "met")
    info = {"logical_cpus": 2, "cpu": "test CPU", "load_average_at_start": [3.5, 2.0, 1.0],
            "background_jobs_at_start": ["1 python (nice 19, 90% of a core)"]}
    block = readme_block(targets, info, ["app"])
    assert "p95 ≤ 50 ms" in block and "trace T=20" not in block
    assert "load average at start 3.5" in block and "nice 19" in block and "python -m viz_app bench app" in block
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{README_START}\nold\n{README_END}\nrest\n")
    write_readme(readme, block)
    text = readme.read_text()
    assert "old" not in text and "median 8.0 ms" in text and text.startswith("intro") and text.endswith("rest\n")
    plain = tmp_path / "plain.md"
    plain.write_text("no markers here")
    with pytest.raises(OutputError, match="markers"):
        write_readme(plain, block)


def test_the_full_tables_link_is_relative_to_the_page_the_block_is_written_into():
    from benchmarks.report import link_from, readme_block

    assert link_from("docs/benchmarks-and-reliability.md", "docs/benchmarks.md") == "benchmarks.md"
    assert link_from("README.md", "docs/benchmarks.md") == "docs/benchmarks.md"
    info = {"logical_cpus": 2, "cpu": "test CPU", "load_average_at_start": [0.5, 0.5, 0.5]}
    block = readme_block(Table("Targets", ["target", "measured", "verdict"]), info, ["app"], "benchmarks.md")
    assert "Full tables: [benchmarks.md](benchmarks.md)." in block


def test_a_baseline_checkout_holds_that_commits_app_and_is_removed_afterwards():
    import subprocess

    head = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=server.REPO_ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    with server.checkout(head) as tree:
        assert (tree / "viz_app" / "app.py").is_file() and (tree / "pretrained").is_dir()
        shown = subprocess.run(["git", "show", f"{head}:viz_app/app.py"], cwd=server.REPO_ROOT, capture_output=True,
                               text=True, check=True).stdout
        assert (tree / "viz_app" / "app.py").read_text() == shown
    assert not tree.exists()
    with pytest.raises(SystemExit, match="--baseline-rev 'no-such-rev'.*--no-baseline"):
        with server.checkout("no-such-rev"):
            pass


def _load_figures(**change) -> dict:
    f = dict(setup="1 process", protocol_sessions=48, browser_sessions=2, latency_p95_s=1.5, browser_p95_s=1.9,
             errors=0, error_counts={"failed_sessions": 0, "heatmaps_missing": 0}, heatmaps_differing_from_core=0,
             interactions_total=296, rss_growth_mb=4.0)
    return {**f, **change}


def test_load_verdicts_are_met_when_every_target_holds():
    from benchmarks import load

    rows = load.verdicts([_load_figures()]).rows
    assert [r[2] for r in rows] == ["met"] * 5
    assert all(r[0].startswith("1 process, 50 sessions: ") for r in rows)


def test_load_verdicts_say_by_how_much_a_target_is_missed():
    from benchmarks import load

    rows = load.verdicts([_load_figures(latency_p95_s=2.5, errors=3, error_counts={"failed_sessions": 3,
                                        "heatmaps_missing": 0}, heatmaps_differing_from_core=1,
                                        rss_growth_mb=180.0)]).rows
    verdict = {r[0].split(": ", 1)[1]: (r[1], r[2]) for r in rows}
    assert verdict["p95 ≤ 2 s"] == ("p95 2.50 s", "missed by 0.50 s (1.2× the limit)")
    assert verdict["in Chromium, p95 ≤ 2 s"][1] == "met"
    assert verdict["0 errors"] == ("3 (failed sessions 3)", "missed by 3 errors")
    assert verdict["0 heatmaps differing from the core"] == ("1 of 296", "missed by 1 heatmaps")
    assert verdict["memory growth ≤ 150 MB"] == ("+180.0 MB", "missed by 30.00 MB (1.2× the limit)")


def test_load_arguments_name_the_bad_value(capsys):
    from benchmarks import load

    with pytest.raises(SystemExit):
        load.parse_args(["--processes", "one"])
    assert "--processes 'one'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.browser
def test_cold_start_quick_run_times_the_first_heatmap(capsys, tmp_path):
    """One cold start of this checkout with each launcher and of its parent commit (a temporary copy, removed
    afterwards)."""
    why = server.unavailable()
    if why:
        pytest.skip(why)
    import tempfile

    from benchmarks import cold_start

    copies = set(Path(tempfile.gettempdir()).glob("disan-baseline-*"))
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{cold_start.README_START}\nstale figures\n{cold_start.README_END}\n")
    assert bench.main(["cold-start", "--quick", "--baseline-rev", "HEAD~1", "--docs", str(readme)]) == 0
    out = capsys.readouterr().out
    assert "failed" not in out.lower() and "cold start → first heatmap (disan app): median ≤ 3 s" in out
    rows = re.findall(r"^(now, streamlit run(?:, no stored page \(first start\)|, first start after install)?|"
                      r"now, disan app|baseline, streamlit run)\s+([0-9.]+)\s+([0-9.]+)", out, re.M)
    assert [r[0] for r in rows] == ["now, streamlit run", "now, disan app", "now, streamlit run, first start after "
                                    "install", "now, streamlit run, no stored page (first start)",
                                    "baseline, streamlit run"]
    assert all(0.3 < float(median) < 120 for _, median, _ in rows)
    assert re.search(r"script [0-9.]+, imported [0-9.]+, stored-view [0-9.]+", out)  # drawn from the stored page
    assert re.search(r"model [0-9.]+, trace [0-9.]+", out)  # the first start traces it
    text = readme.read_text()
    assert "stale figures" not in text and "| now, disan app |" in text and "load average at start" in text
    assert "| baseline, streamlit run |" in text and "**Baseline:** commit `HEAD~1`" in text  # named in the header
    assert set(Path(tempfile.gettempdir()).glob("disan-baseline-*")) == copies  # the baseline's copy is gone


def test_cold_start_phases_keep_the_first_line_of_each():
    from benchmarks.cold_start import phases

    log = "noise\nviz-startup script 1.5\nviz-startup model 3.25\nviz-startup script 9.0\nviz-startup bad x\n"
    assert phases(log) == {"script": 1.5, "model": 3.25}


def test_site_open_only_times_the_cold_opens_and_nothing_typed(tmp_path, monkeypatch):
    """``bench site --open-only``: parsed, and a run that times only the two cold-open rows (its own sentence and a
    link's) and reads the sizes; a typed, in-view or pair measure would fail the run."""
    from benchmarks import site as bench_site

    args = bench_site.parse_args(["--open-only", "--site", str(tmp_path), "--baseline", "", "--opens", "2"])
    assert args.open_only and not bench_site.parse_args([]).open_only
    (tmp_path / "models").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "models" / "m.js").write_text("x" * 10)
    (tmp_path / "assets" / "site.js").write_text("y")
    (tmp_path / "index.html").write_text("z")
    opened = []
    monkeypatch.setattr(bench_site, "_first_maps", lambda b, f, model, link=False: opened.append(link) or 5.0)
    for name in ("_measure", "_measure_view", "measure_pair"):
        monkeypatch.setattr(bench_site, name, lambda *a, **k: pytest.fail("an --open-only run measured typing"))
    result = bench_site.run(args, browser=object())
    assert opened == [False, True, False, True] and result["first_maps_ms"] == [5.0, 5.0] and result["typed"] == []
    assert result["sizes"]["models"] == {"m": 10}
    view, typed, opened_table, sizes = bench_site.tables(result)
    assert len(opened_table.rows) == 2 and not typed.rows


def test_site_opens_take_this_commit_and_the_baseline_in_turn_and_a_failing_baseline_costs_only_its_rows(
        tmp_path, monkeypatch):
    """The cold opens of this commit's folder and the baseline's alternate (the first of each pair alternating), so
    both meet the same load; timed in two blocks minutes apart, a published baseline met a target it misses
    interleaved. A baseline whose open fails leaves this commit's opens whole and says why."""
    from benchmarks import site as bench_site

    for name in ("models", "assets"):
        (tmp_path / name).mkdir()
    (tmp_path / "models" / "m.js").write_text("x")
    (tmp_path / "index.html").write_text("z")
    base = tmp_path / "base"
    monkeypatch.setattr(bench_site, "_baseline_site", lambda commit, models, work: base)
    monkeypatch.setattr(bench_site, "_remove_worktree", lambda work: None)
    opened, fail_at = [], [None]

    def first_maps(browser, folder, model, link=False):
        who = "base" if folder == base else "mine"
        opened.append((who, "link" if link else "own"))
        if who == "base" and len([o for o in opened if o[0] == "base"]) == fail_at[0]:
            raise SystemExit("error: a figure in the window was never drawn")
        return 7.0 if who == "base" else 5.0

    monkeypatch.setattr(bench_site, "_first_maps", first_maps)
    args = bench_site.parse_args(["--open-only", "--site", str(tmp_path), "--baseline", "abc1234", "--opens", "2"])
    result = bench_site.run(args, browser=object())
    assert opened == [("mine", "own"), ("base", "own"), ("mine", "link"), ("base", "link"),
                      ("base", "own"), ("mine", "own"), ("base", "link"), ("mine", "link")]
    assert result["first_maps_ms"] == [5.0, 5.0] and result["baseline"] == {
        "first_maps_own_ms": [7.0, 7.0], "first_maps_ms": [7.0, 7.0]}

    opened.clear()
    fail_at[0] = 2
    result = bench_site.run(args, browser=object())
    assert [o for o in opened if o[0] == "mine"] == [("mine", "own"), ("mine", "link")] * 2
    assert len([o for o in opened if o[0] == "base"]) == 2  # none after the failure
    assert result["first_maps_own_ms"] == [5.0, 5.0] and result["first_maps_ms"] == [5.0, 5.0]
    assert result["baseline"]["first_maps_own_ms"] == [7.0] and "never drawn" in result["baseline"]["error"]
