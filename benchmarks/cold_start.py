"""Cold start the way a person meets it (issue 19): server start → browser opens ``/`` → first heatmap drawn.

One run: Chromium is already open (a person's browser is), with a fresh context (empty cache). The clock
starts at the ``Popen`` of ``streamlit run viz_app/app.py`` from the repository root (the README's command,
with the flags of ``benchmarks/server.py``: headless, 127.0.0.1, a free port); ``/_stcore/health`` is polled
every 50 ms, ``/`` opened as soon as it answers, and the clock stops at the frame that shows the first heatmap
chart: the frame after the task that first set a heatmap figure's ``data-drawn`` (the figures' test contract,
docs/figure-components.md; ``FIRST_DRAWN``), or on a baseline commit whose charts are Plotly's, ``gd.__vizShown``
as its ``chart.js`` set it; read against ``performance.timeOrigin``.
Requests go to 127.0.0.1 only.

``baseline_rev`` measures the same thing for an earlier commit, its files in a temporary folder
(``server.checkout``: ``git archive``, removed afterwards) run with the same Python, in the same run: the
earlier figures as a baseline.
Each code version gets one untimed launch first (its ``.pyc`` files written, plotly.js copied into
``viz_app/static/``, the opening page stored by ``viz_app/draw/view_store.py`` in a folder of the run's own), as
on an installed machine that has run the app before. The row "no stored page (first start)" gives every start
an empty folder instead, and an empty folder of Explore's in-page models (whose builds, queued once the page is
drawn, run during the timed start): the first start after installing, or after a checkpoint changed.

The server prints ``viz-startup <phase> <seconds since the Popen>`` lines when ``VIZ_STARTUP_T0`` is set
(``viz_app/shell/startup.py``); they are collected as the server-side phases where the code under test has
them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .common import BASELINE_LABEL, REPO_ROOT, Stats, Table, measured_by
from viz_app.serve import stop

from .server import CHROMIUM_ARGS, checkout, free_port

#: The issue's target: first heatmap at most this many seconds after ``streamlit run``.
TARGET_S = 3.0

#: Installed in every page: the start of the frame after a heatmap figure's data-drawn was first set
#: (window.__firstDrawn; the figures' test contract).
FIRST_DRAWN = """(() => {
  window.__firstDrawn = 0;
  new MutationObserver(records => {
    if (window.__firstDrawn || !records.some(r => r.target.closest && r.target.closest('.viz-chart') &&
        (r.target.dataset.figure || '').startsWith('heatmap:'))) return;
    requestAnimationFrame(() => { if (!window.__firstDrawn) window.__firstDrawn = performance.now(); });
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-drawn']});
})()"""

#: Epoch milliseconds of the frame that showed the first heatmap chart, else false.
FIRST_HEATMAP = """() => {
  const shown = [...document.querySelectorAll('.viz-chart')]
    .filter(gd => gd.data && gd.data.some(t => t.type === 'heatmap') && gd.__vizShown > 0)
    .map(gd => gd.__vizShown);
  if (window.__firstDrawn) shown.push(window.__firstDrawn);
  return shown.length ? performance.timeOrigin + Math.min(...shown) : false;
}"""

_PHASE = re.compile(r"^viz-startup (\S+) ([0-9.]+)$")


#: The row of starts with an empty folder of stored opening pages (``viz_app/draw/view_store.py``).
NO_STORED_PAGE = "no stored page (first start)"
#: The row of a newcomer's first start: an empty user cache, ``python -m viz_app prepare`` (what
#: ``bash scripts/app.sh`` runs after installing, untimed), then the start.
AFTER_INSTALL = "first start after install"

#: The two ways the README starts the app: a checkout's ``streamlit run viz_app/app.py`` and the installed
#: ``disan app`` (``python -m viz_app app``: Streamlit in-process, with the core warmed up beside it).
LAUNCHERS = ("streamlit run", "disan app")


def command(app: Path, port: int, launcher: str = "streamlit run") -> list[str]:
    """The launcher's command with the flags of ``benchmarks/server.py`` (headless, 127.0.0.1 only)."""
    start = ([sys.executable, "-m", "streamlit", "run", str(app)] if launcher == "streamlit run"
             else [sys.executable, "-m", "viz_app", "app"])
    return start + ["--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
                    "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


def _health(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def phases(log_text: str) -> dict[str, float]:
    """``{phase: seconds since the server process started}`` from its ``viz-startup`` lines (first of each)."""
    out: dict[str, float] = {}
    for line in log_text.splitlines():
        m = _PHASE.match(line.strip())
        if m:
            out.setdefault(m.group(1), float(m.group(2)))
    return out


def one_run(browser, root: Path, timeout_s: float, launcher: str = "streamlit run", store: Path | None = None,
            explorer: Path | None = None, glove: Path | None = None) -> dict:
    """Seconds from the server's ``Popen`` to its health answer and to the first heatmap on screen; ``store``: the
    folder of the app's stored opening pages (``viz_app/draw/view_store.py``, ``DISAN_VIEW_CACHE``); ``explorer``:
    the folder of Explore's in-page models (``viz_app/shell/explorer.py``, ``DISAN_EXPLORER_CACHE``; default the
    user's own cache); ``glove``: the folder of the GloVe word index (``disan/glove_index.py``, ``DISAN_GLOVE_CACHE``;
    default the user's own cache)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if store is not None:
        env["DISAN_VIEW_CACHE"] = str(store)
    if explorer is not None:
        env["DISAN_EXPLORER_CACHE"] = str(explorer)
    if glove is not None:
        env["DISAN_GLOVE_CACHE"] = str(glove)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.add_init_script(FIRST_DRAWN)
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base) else route.abort())
    page.set_default_timeout(timeout_s * 1000)
    with tempfile.TemporaryFile("w+") as log:
        t0_epoch = time.time()
        t0 = time.monotonic()
        env["VIZ_STARTUP_T0"] = repr(t0_epoch)
        proc = subprocess.Popen(command(root / "viz_app" / "app.py", port, launcher), cwd=root, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while not _health(port):
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited with status {proc.returncode} before serving")
                if time.monotonic() - t0 > timeout_s:
                    raise RuntimeError(f"streamlit did not answer within {timeout_s:.0f} s")
                time.sleep(0.05)
            health = time.monotonic() - t0
            page.goto(base + "/")
            shown = page.wait_for_function(FIRST_HEATMAP, polling="raf").json_value()
        finally:
            stop(proc)
            context.close()
        log.seek(0)
        server_phases = phases(log.read())
    return {"seconds": shown / 1e3 - t0_epoch, "health": health, "phases": server_phases}


def load_line() -> str:
    """The machine's load (``uptime``'s three averages), printed beside a row's figures."""
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else ""


def prepare(root: Path, cache: Path, timeout_s: float = 600.0) -> float:
    """``python -m viz_app prepare`` of ``root`` into the user cache ``cache`` (its ``views``, ``explorer`` and
    ``glove`` folders; the install step of ``bash scripts/app.sh``); its seconds."""
    env = {**os.environ, "DISAN_VIEW_CACHE": str(cache / "views"), "DISAN_EXPLORER_CACHE": str(cache / "explorer"),
           "DISAN_GLOVE_CACHE": str(cache / "glove"),
           "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "viz_app", "prepare"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=timeout_s)
    if done.returncode != 0:
        raise RuntimeError(f"prepare failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    return time.monotonic() - t0


def _measure_after_install(browser, code: str, root: Path, runs: int, timeout_s: float, log) -> dict:
    """``runs`` first starts after install: one ``prepare`` into an empty user cache (untimed; its seconds kept as
    ``prepare_s``), then each start with a fresh copy of that cache, no untimed launch before (the install step
    writes the bytecode and plotly.js)."""
    row: dict = {"code": code, "times": [], "health": [], "phases": [], "load": load_line()}
    log(f"  [{code}] {row['load']}")
    try:
        with tempfile.TemporaryDirectory(prefix="disan-cache-installed-") as cache:
            row["prepare_s"] = prepare(root, Path(cache))
            log(f"  [{code}] python -m viz_app prepare into an empty cache: {row['prepare_s']:.1f} s (untimed)")
            for k in range(runs):
                with tempfile.TemporaryDirectory(prefix="disan-cache-start-") as start:
                    shutil.copytree(cache, start, dirs_exist_ok=True)
                    r = one_run(browser, root, timeout_s, LAUNCHERS[0], Path(start) / "views",
                                Path(start) / "explorer", Path(start) / "glove")
                _add_run(row, k, r, log)
    except Exception as err:  # noqa: BLE001 - a failed row must not hide the others
        row["error"] = str(err).splitlines()[0][:160]
        log(f"  [{code}] FAILED ({row['error']})")
    return row


def _add_run(row: dict, k: int, r: dict, log) -> None:
    row["times"].append(r["seconds"])
    row["health"].append(r["health"])
    row["phases"].append(r["phases"])
    log(f"  [{row['code']}] run {k + 1}: first heatmap {r['seconds']:.2f} s (server answered at {r['health']:.2f} s)"
        + "".join(f", {p} {s:.2f}" for p, s in r["phases"].items()))


def _measure(browser, code: str, root: Path, runs: int, timeout_s: float, log,
             launcher: str = "streamlit run", stored: bool = True) -> dict:
    """``runs`` timed starts after one untimed one. ``stored``: the starts share a folder of stored opening
    pages, which the untimed start fills, as on a machine that has run the app before; else every start gets an
    empty folder, as the first start after a checkpoint changed (or one after installing without ``prepare``)."""
    row: dict = {"code": code, "times": [], "health": [], "phases": [], "load": load_line()}
    log(f"  [{code}] {row['load']}")
    try:
        with tempfile.TemporaryDirectory(prefix="disan-views-") as folder:
            _measure_in(browser, row, root, runs, timeout_s, log, launcher, Path(folder) if stored else None)
    except Exception as err:  # noqa: BLE001 - a failed version must not hide the other's row
        row["error"] = str(err).splitlines()[0][:160]
        log(f"  [{code}] FAILED ({row['error']})")
    return row


def _measure_in(browser, row: dict, root: Path, runs: int, timeout_s: float, log, launcher: str,
                store: Path | None) -> None:
    code = row["code"]
    with tempfile.TemporaryDirectory(prefix="disan-views-untimed-") as untimed:
        # untimed: .pyc written, plotly.js copied into viz_app/static/, the opening page stored
        one_run(browser, root, timeout_s, launcher, store or Path(untimed))
    for k in range(runs):
        # A first start (no stored page) also finds no in-page model built (the user cache is empty after
        # installing): its builds, queued once the page is drawn, are timed with it.
        with tempfile.TemporaryDirectory(prefix="disan-views-empty-") as empty, \
                tempfile.TemporaryDirectory(prefix="disan-explorer-empty-") as no_explorer:
            r = one_run(browser, root, timeout_s, launcher, store or Path(empty),
                        None if store is not None else Path(no_explorer))
        _add_run(row, k, r, log)


def run(runs: int = 5, baseline_rev: str | None = None, timeout_s: float = 120.0, log=print) -> list[dict]:
    """Rows ``{"code", "times", "health", "phases"}`` (or ``"error"``): this checkout, then ``baseline_rev``."""
    from playwright.sync_api import sync_playwright

    baseline = BASELINE_LABEL if baseline_rev else None  # the commit is named once, in the report's header
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            for launcher in LAUNCHERS:
                rows.append(_measure(browser, f"now, {launcher}", REPO_ROOT, runs, timeout_s, log, launcher))
            rows.append(_measure_after_install(browser, f"now, {LAUNCHERS[0]}, {AFTER_INSTALL}", REPO_ROOT, runs,
                                               timeout_s, log))
            rows.append(_measure(browser, f"now, {LAUNCHERS[0]}, {NO_STORED_PAGE}", REPO_ROOT, runs, timeout_s, log,
                                 LAUNCHERS[0], stored=False))
            if baseline:
                with checkout(baseline_rev) as root:
                    rows.append(_measure(browser, f"{baseline}, streamlit run", root, runs, timeout_s, log))
        finally:
            browser.close()
    return rows


def _phase_medians(row: dict) -> str:
    names = list(dict.fromkeys(name for ph in row["phases"] for name in ph))
    parts = []
    for name in names:
        values = [ph[name] for ph in row["phases"] if name in ph]
        parts.append(f"{name} {Stats.of(values).median:.2f}")
    return ", ".join(parts) or "–"


def table(rows: list[dict]) -> Table:
    t = Table("Cold start in headless Chromium: `streamlit run viz_app/app.py` → first heatmap drawn",
              ["code", "median s", "max s", "server answers (median s)", "server phases (median s)", "n",
               "load at the row's start"])
    for r in rows:
        load = r.get("load", "").removeprefix("load average ") or "–"
        if "error" in r:
            t.add(r["code"], "failed: " + r["error"], "–", "–", "–", 0, load)
            continue
        t.add(r["code"], f"{Stats.of(r['times']).median:.2f}", f"{max(r['times']):.2f}",
              f"{Stats.of(r['health']).median:.2f}", _phase_medians(r), len(r["times"]), load)
    t.notes.append(
        "Clock: from the `Popen` of the server (Chromium already running, a fresh context each run: nothing cached) "
        "until the frame that shows the first heatmap of the default view (`chart.js`'s `gd.__vizShown`, or the "
        "first animation frame that sees a figure component's `[data-figure^=\"heatmap:\"][data-drawn]`). "
        "`/_stcore/health` is polled every 50 ms and `/` opened as soon as it answers. One untimed launch per code "
        "version comes first (bytecode written, plotly.js copied, the opening page stored in a folder of the run's "
        "own), as on a machine that has run the app before."
    )
    t.notes.append(
        f"Row '{AFTER_INSTALL}': what a newcomer's `bash scripts/app.sh` meets. An empty user cache, then "
        "`python -m viz_app prepare` (the install step app.sh runs: the default model's opening page and Explore's "
        "in-page copy of it; untimed), then each timed start on a fresh copy of that cache, with no untimed launch "
        f"before (the GloVe word index too is in that cache). Row '{NO_STORED_PAGE}': every run starts with an empty "
        "folder of stored pages and of Explore's in-page models, whose builds then run during the start, and finds "
        "the GloVe word index in the user's cache (written by the untimed launch): a first start after a checkpoint "
        "changed, or one without the install step."
    )
    t.notes.append("Server phases: seconds after the `Popen`, from the server's `viz-startup` log lines "
                   "(`viz_app/shell/startup.py`), where the code has them. Server, browser and benchmark share the CPU.")
    return t


def _is_now(row: dict) -> bool:
    return row["code"].startswith("now")


def verdicts(v, rows: list[dict] | None, why: str) -> None:
    """The issue's ≤ 3 s target on the median (max shown) for each launcher; baseline rows as the reference."""
    for r in [r for r in rows or [] if not _is_now(r) and "times" in r]:
        v.note(f"baseline: cold start → first heatmap, {r['code']}",
               f"median {Stats.of(r['times']).median:.2f} s, max {max(r['times']):.2f} s", "reference (no target)")
    now = [r for r in rows or [] if _is_now(r)]
    if not now:
        v.note(f"cold start → first heatmap: median ≤ {TARGET_S:g} s", "–", f"not measured: {why or 'not run'}")
    for r in now:
        name = f"cold start → first heatmap ({r['code'].removeprefix('now, ')}): median ≤ {TARGET_S:g} s"
        if "times" not in r:
            v.note(name, "–", f"not measured: {r.get('error')}")
            continue
        v.check(name, Stats.of(r["times"]).median, TARGET_S, "s", f"max {max(r['times']):.2f} s, median")


README_START, README_END = "<!-- cold-start:start -->", "<!-- cold-start:end -->"


def readme_block(rows: list[dict], info: dict, command: str, date: str | None = None,
                 baseline_rev: str | None = None) -> str:
    """Every code version's cold start with the command, the machine's load and the run's ``date``, for the
    cold-start block of docs/benchmarks-and-reliability.md; ``baseline_rev``: the commit of the *baseline* row."""
    from .render import baseline_line

    lines = [measured_by(command, info, date), ""] + ([baseline_line(baseline_rev), ""] if baseline_rev else []) + [
        f"| code | median s | max s | runs | verdict (median ≤ {TARGET_S:g} s) |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        if "error" not in r:
            median = Stats.of(r["times"]).median
            verdict = "met" if median <= TARGET_S else f"missed by {median - TARGET_S:.2f} s"
            lines.append(f"| {r['code']} | {median:.2f} | {max(r['times']):.2f} | {len(r['times'])} | "
                         + (verdict if _is_now(r) else "reference") + " |")
        else:
            lines.append(f"| {r['code']} | – | – | 0 | failed: {r['error']} |")
    return "\n".join(lines)
