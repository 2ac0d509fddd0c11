"""``python -m viz_app bench render`` (``benchmarks/render.py``): the benchmark pages and their docs blocks are
written from the stored JSON, never by hand, and name the baseline commit once, in their header."""

import json
import re

import pytest

from benchmarks import app as bench_app
from benchmarks import cold_start, render
from benchmarks.common import REPO_ROOT
from benchmarks.verdicts import Verdicts, app_verdicts

DOCS = "docs/benchmarks-and-reliability.md"
PAGES = [("docs/benchmarks.json", "docs/benchmarks.md"), ("docs/load-benchmark.json", "docs/load-benchmark.md"),
         ("docs/app-benchmark.json", "docs/app-benchmark.md"),
         ("docs/app-typing-benchmark.json", "docs/app-typing-benchmark.md"),
         ("docs/cold-start-benchmark.json", "docs/cold-start-benchmark.md")]
#: Pages whose run does not write the docs blocks (the app-latency and cold-start blocks are the last `bench all`'s).
PAGES_ONLY = {"docs/app-benchmark.md", "docs/app-typing-benchmark.md", "docs/cold-start-benchmark.md"}


def _committed(json_path: str, markdown: str):
    result = render.stored(json.loads((REPO_ROOT / json_path).read_text(encoding="utf-8")))
    docs = None if markdown in PAGES_ONLY else DOCS
    return result, render.texts(result, render.Outputs(json_path, markdown, docs))


@pytest.mark.parametrize("json_path, markdown", PAGES)
def test_the_committed_page_and_its_blocks_are_rendered_from_the_stored_json(json_path, markdown):
    _, (page, blocks) = _committed(json_path, markdown)
    assert page == (REPO_ROOT / markdown).read_text(encoding="utf-8"), (
        f"{markdown} is not what its JSON renders: run python -m viz_app bench render --json {json_path} "
        f"--markdown {markdown} --docs {DOCS}")
    if markdown in PAGES_ONLY:
        return
    docs = (REPO_ROOT / DOCS).read_text(encoding="utf-8")
    assert blocks
    for start, end, block, what in blocks:
        assert f"{start}\n{block}\n{end}" in docs, f"{what} in {DOCS} differ from {json_path}"


@pytest.mark.parametrize("json_path, markdown", PAGES)
def test_the_baseline_commit_is_named_once_per_page_and_block_in_its_header(json_path, markdown):
    result, (page, blocks) = _committed(json_path, markdown)
    rev = result["baseline_rev"]
    if markdown in PAGES_ONLY:
        blocks = []  # not written into the docs page
        if rev is None:  # a run of the current code alone (--no-baseline)
            assert "Baseline:" not in page
            return
    assert rev and page.count(rev) == 1
    assert page.index(rev) < page.index("|")  # above the first table
    compared = [b for _, _, b, _ in blocks if f"*{render.BASELINE_LABEL}* rows" in b]
    assert compared or markdown in PAGES_ONLY  # the app, cold-start and load blocks compare with the baseline
    for _, _, block, what in blocks:
        assert block.count(rev) == (1 if block in compared else 0), what
    assert re.search(r"^\| baseline[,:] ", page, re.M)  # the rows say "baseline", not the commit


def _result(app_path: str = "before abc1234", cold_code: str = "baseline abc1234") -> dict:
    """A ``bench app cold-start``-like result; by default as runs stored it before ``baseline_rev``, with the commit
    in the row labels."""
    rows = [{"kind": "α step → every map", "path": path, "model": "dsa", "tokens": 10, "times": [0.010, 0.012, 0.011],
             "server_cpu": []} for path in ("browser", "server", app_path)]
    cold = [{"code": "now, streamlit run", "times": [2.5, 2.7], "health": [0.6, 0.7], "phases": [{}, {}]},
            {"code": f"{cold_code}, streamlit run", "times": [6.0, 6.5], "health": [0.6, 0.6], "phases": [{}, {}]}]
    v = Verdicts()
    app_verdicts(v, rows, "")
    cold_start.verdicts(v, cold, "")
    tables = [bench_app.table(rows, 3), cold_start.table(cold), v.table()]
    info = {"cpu": "test CPU", "logical_cpus": 2, "torch_threads": 2, "torch": "2", "python": "3", "platform": "x",
            "gpu": None, "load_average_at_start": [0.1, 0.1, 0.1], "background_jobs_at_start": [],
            "load_average_at_end": [0.2, 0.1, 0.1]}
    return json.loads(json.dumps({"machine": info, "argv": ["app", "--markdown", "b.md"], "app": rows,
                                  "cold_start": cold, "tables": [t.to_dict() for t in tables]}))


def test_an_older_result_is_read_with_its_commit_from_the_labels_and_no_figure_changed():
    old = _result()
    new = render.stored(old)
    assert new["baseline_rev"] == "abc1234" and new["missing"] == list(render.RUN_FIELDS)
    assert [r["path"] for r in new["app"]] == ["browser", "server", "baseline"]
    assert new["cold_start"][1]["code"] == "baseline, streamlit run"
    assert [r["times"] for r in new["app"]] == [r["times"] for r in old["app"]]
    assert "abc1234" not in json.dumps(new["tables"]) and "abc1234" in json.dumps(old["tables"])
    page, _ = render.texts(new, render.Outputs("b.json", "b.md"))
    assert page.count("abc1234") == 1 and "not recorded" in page and "`git log -1 -- b.json`" in page
    assert "| baseline: app α step → every map, baseline commit, dsa T=10 |" in page


def test_an_older_result_naming_two_baseline_commits_is_refused():
    old = _result()
    old["cold_start"][1]["code"] = "baseline fff0000, streamlit run"
    with pytest.raises(ValueError, match="several baseline commits"):
        render.stored(old)


def test_a_run_and_a_later_render_write_the_same_page_and_blocks(tmp_path, monkeypatch):
    """``publish`` (a run's end) stores the JSON and writes from it; ``bench render`` on that JSON writes the same."""
    from benchmarks.report import README_END, README_START

    monkeypatch.chdir(tmp_path)
    result = {**_result("baseline", "baseline"), **render.run_fields(0.0, "abc1234")}
    (tmp_path / "docs.md").write_text(f"intro\n{README_START}\nstale\n{README_END}\nmiddle\n"
                                      f"{cold_start.README_START}\nstale\n{cold_start.README_END}\n")
    out = render.Outputs("b.json", "b.md", "docs.md")
    render.publish(result, out, log=lambda _: None)
    page, docs = (tmp_path / "b.md").read_text(), (tmp_path / "docs.md").read_text()
    (tmp_path / "b.md").write_text("stale")
    assert render.main(["--json", "b.json", "--markdown", "b.md", "--docs", "docs.md"]) == 0
    assert (tmp_path / "b.md").read_text() == page and (tmp_path / "docs.md").read_text() == docs
    assert page.count("abc1234") == 1 and "finished" in page and "not recorded" not in page
    assert f"`{out.render_command()}`" in page
    assert docs.count("abc1234") == 2 and "stale" not in docs  # once per block: app targets, cold start


def test_render_of_a_file_that_is_not_benchmark_results_says_so_in_one_line(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"rows": []}')
    assert render.main(["--json", str(bad), "--markdown", str(tmp_path / "x.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(bad) in err and "bench all --json" in err
    assert render.main(["--json", str(tmp_path / "missing.json"), "--markdown", str(tmp_path / "x.md")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "plain.md").write_text("no markers here")
    assert render.main(["--json", str(REPO_ROOT / PAGES[1][0]), "--docs", str(tmp_path / "plain.md")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "markers" in err


def test_a_load_result_names_its_baseline_once_and_says_how_long_it_took():
    from benchmarks import load

    figures = [{"setup": setup, "processes": 1, "protocol_sessions": 48, "browser_sessions": 2,
                "sessions_per_process": None, "interactions_total": 296, "interactions_after_warmup": 248,
                "latency_p50_s": 1.0, "latency_p95_s": 1.5, "latency_max_s": 2.0, "browser_p50_s": 1.0,
                "browser_p95_s": 1.9, "throughput_per_s": 30.0, "server_cpu_per_interaction_ms": 30.0,
                "rss_after_warmup_mb": 400.0, "rss_end_mb": 404.0, "rss_growth_mb": 4.0, "errors": 0,
                "error_counts": {"heatmaps_missing": 0}, "heatmaps_differing_from_core": 0}
               for setup in ("baseline, 1 process", "1 process")]
    info = {"cpu": "test CPU", "logical_cpus": 2, "load_average_at_start": [0.3, 0.3, 0.3],
            "load_average_at_end": [1.0, 0.5, 0.4], "background_jobs_at_start": []}
    result = {"machine": info, "command": "python -m viz_app bench load", "argv": ["load"], "figures": figures,
              "tables": [load.table(figures).to_dict(), load.verdicts(figures).to_dict()],
              "baseline_rev": "abc1234", "finished": "2026-12-01 10:00 UTC", "elapsed_s": 90.0}
    page, [(_, _, block, _)] = render.texts(render.stored(result), render.Outputs("l.json", "l.md", "d.md"))
    assert page.count("abc1234") == 1 and block.count("abc1234") == 1
    assert "Took 1.5 min." in page and "2026-12-01" in block
