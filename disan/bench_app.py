"""App latency in headless Chromium: sentence submitted → heatmap drawn, and α slider moved → re-drawn.

Starts ``streamlit run viz_app/app.py`` on a free port of 127.0.0.1 (always
stopped again), drives it with the Playwright sync API and Debian's
``chromium``, and times, after warm-up interactions (model loaded, first
trace done):

* **submit → heatmap** (Explore view): type a new sentence of T tokens in the
  sidebar's *Sentence* box, press Ctrl+Enter (Streamlit's "apply"), stop the
  clock when the run has finished and a Plotly heatmap whose layout names the
  sentence's unique last token has its image drawn. Every sentence is new, so
  no cached trace is reused.
* **α slider → re-render** (Distance attention view, DSA model): press → on
  the α slider (one 0.1 step; every value new for the sentence), stop the clock
  when the run has finished and a heatmap's title shows the new α.

Selectors: the ``Sentence``/``Premise`` text area by its label, the slider as
``SLIDER``, plots as ``.js-plotly-plot`` with
``gd.data``/``gd.layout``, the run state from ``[data-testid=stApp]``'s
``data-test-script-state``. Requests go to 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from urllib.parse import urlencode

from .bench_common import REPO_ROOT, Stats, Table, fmt_ms, sentence

APP = REPO_ROOT / "viz_app" / "app.py"
#: The α slider: Streamlit ≥ 1.50 renders a react-aria ``input[type=range]``, older ones a ``[role=slider]`` thumb.
SLIDER = "[data-testid=stSlider] input[type=range], [data-testid=stSlider] [role=slider]"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

_IDLE = "(() => { const a = document.querySelector('[data-testid=stApp]'); " \
        "return !!a && a.getAttribute('data-test-script-state') !== 'running'; })()"

#: True once the run is over and a drawn heatmap's layout (axis labels, title) contains ``marker``.
HEATMAP_SHOWS = """(marker) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') === 'running') return false;
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    if (!gd.data || !gd.data.some(d => d.type === 'heatmap')) continue;
    if (!gd.querySelector('.heatmaplayer image, .hm image')) continue;
    if (JSON.stringify(gd.layout || {}).includes(marker)) return true;
  }
  return false;
}"""


def unavailable() -> str | None:
    """Why the app benchmark cannot run here, or None."""
    if shutil.which("chromium") is None:
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    try:
        import streamlit  # noqa: F401
    except ImportError:
        return "streamlit is not installed"
    if not APP.is_file():
        return f"{APP.relative_to(REPO_ROOT)} does not exist yet"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(
    port: int, max_tokens: int | None = None, startup_s: float = 120.0, threads: int | None = None, log_path=None
):
    """A headless Streamlit server for ``viz_app/app.py`` on 127.0.0.1:``port``; stopped on exit.

    Yields ``(base_url, process)``; the server's output goes to ``log_path`` (default: discarded).
    Shared by the app benchmark, the browser test and the load test.
    """
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if max_tokens is not None:
        env["VIZ_MAX_TOKENS"] = str(max(max_tokens, 128))
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    log = open(log_path or os.devnull, "w")
    proc = subprocess.Popen(cmd, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with status {proc.returncode} before serving")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer on 127.0.0.1:{port} within {startup_s:.0f} s")
            time.sleep(0.25)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        log.close()


def _url(base: str, **params) -> str:
    return f"{base}/?{urlencode(params)}"


#: Installed in every page, to split a latency: when the page learnt that the app's script run was over
#: (``data-test-script-state``), and how long the browser's main thread was blocked by long tasks (> 50 ms).
PAGE_PROBES = """(() => {
  window.__runLog = []; window.__longTasks = [];
  new MutationObserver(ms => { for (const m of ms) {
    const s = m.target.getAttribute && m.target.getAttribute('data-test-script-state');
    if (s) window.__runLog.push([performance.now(), s]);
  } }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
  try {
    new PerformanceObserver(l => { for (const e of l.getEntries()) window.__longTasks.push([e.startTime, e.duration]); })
      .observe({type: 'longtask', buffered: true});
  } catch (e) {}
})()"""

_PROBE_READ = """t0 => ({
  ends: (window.__runLog || []).filter(e => e[0] >= t0 && e[1] !== 'running').map(e => e[0]),
  busy: (window.__longTasks || []).filter(e => e[0] >= t0).reduce((a, e) => a + e[1], 0),
})"""


def _timed(page, action, predicate: str, arg, timeout_s: float) -> dict:
    """Seconds from ``action`` until ``predicate(arg)`` holds, plus the page's probes (see ``PAGE_PROBES``)."""
    t0 = page.evaluate("performance.now()")
    start = time.perf_counter()
    action()
    page.wait_for_function(predicate, arg=arg, timeout=timeout_s * 1000, polling="raf")
    total = time.perf_counter() - start
    probe = page.evaluate(_PROBE_READ, t0)
    return {"total": total, "run_end": (probe["ends"][-1] - t0) / 1e3 if probe["ends"] else None,
            "long_tasks": probe["busy"] / 1e3}


def submit_latencies(page, base: str, model: str, T: int, warmup: int, n: int, timeout_s: float) -> list[dict]:
    """Seconds from Ctrl+Enter in the sentence box to the new heatmap, ``n`` times after ``warmup``."""
    page.goto(_url(base, model=model, view="explore", sentence=sentence(T)))
    page.wait_for_selector(".js-plotly-plot", timeout=timeout_s * 1000)
    box = page.locator("section[data-testid=stSidebar] textarea").first
    out = []
    for k in range(warmup + n):
        marker = f"zq{T}x{k}"  # first token: always among the axis labels, however thinned
        box.fill(f"{marker} {sentence(T - 1, offset=k)}")
        res = _timed(page, lambda: box.press("Control+Enter"), HEATMAP_SHOWS, marker, timeout_s)
        if k >= warmup:
            out.append(res)
    return out


def slider_latencies(page, base: str, model: str, T: int, warmup: int, n: int, timeout_s: float) -> list[dict]:
    """Seconds from one → key press on the α slider to a heatmap titled with the new α."""
    page.goto(_url(base, model=model, view="distance_attention", sentence=sentence(T, offset=T)))
    page.wait_for_selector(".js-plotly-plot", timeout=timeout_s * 1000)
    thumb = page.locator(SLIDER).first
    thumb.wait_for(state="attached", timeout=timeout_s * 1000)
    lo, hi = (float(thumb.evaluate(f"e => e.getAttribute('{a}') ?? e.getAttribute('aria-value{a}')")) for a in ("min", "max"))
    out = []
    key = "ArrowRight"
    for k in range(warmup + n):
        value = float(thumb.evaluate("e => e.value ?? e.getAttribute('aria-valuenow')"))
        if round(value + 0.1, 1) > hi:
            key = "ArrowLeft"  # values below the start are new as well
        target = round(value + (0.1 if key == "ArrowRight" else -0.1), 1)
        if target < lo:
            raise RuntimeError("the α slider ran out of new values; use fewer interactions")
        thumb.focus()
        res = _timed(page, lambda: thumb.press(key), HEATMAP_SHOWS, f"α = {target:g}", timeout_s)
        if k >= warmup:
            out.append(res)
    return out


def run(
    lengths=(10, 64), interactions: int = 20, warmup: int = 3, submit_models=("disan", "dsa"),
    slider_model: str = "dsa", timeout_s: float = 120.0, threads: int | None = None, log=print,
) -> list[dict]:
    """Every (kind, model, T) row: ``{"kind", "model", "tokens", "times"}`` or ``"error"``."""
    from playwright.sync_api import sync_playwright

    rows = []
    with streamlit_server(free_port(), max(lengths), threads=threads) as (base, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.add_init_script(PAGE_PROBES)
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                       else route.abort())  # 127.0.0.1 only
            jobs = [("submit → heatmap", m, T) for m in submit_models for T in lengths]
            jobs += [("α slider → re-render", slider_model, T) for T in lengths]
            for kind, model, T in jobs:
                fn = submit_latencies if kind.startswith("submit") else slider_latencies
                try:
                    res = fn(page, base, model, T, warmup, interactions, timeout_s)
                    times = [r["total"] for r in res]
                    rows.append({"kind": kind, "model": model, "tokens": T, "times": times,
                                 "run_end": [r["run_end"] for r in res], "long_tasks": [r["long_tasks"] for r in res]})
                    st = Stats.of(times)
                    log(f"  {kind} {model} T={T}: median {fmt_ms(st.median)} ms, p95 {fmt_ms(st.p95)} ms")
                except Exception as err:  # noqa: BLE001 - a broken view must not hide the other rows
                    msg = str(err).splitlines()[0][:160]
                    rows.append({"kind": kind, "model": model, "tokens": T, "error": msg})
                    log(f"  {kind} {model} T={T}: FAILED ({msg})")
        finally:
            browser.close()
    return rows


def table(rows: list[dict], warmup: int) -> Table:
    t = Table("App latency in headless Chromium (viz_app/app.py, local Streamlit server)",
              ["interaction", "model", "T", "median ms", "p95 ms", "max ms", "run end seen, median ms",
               "browser long tasks, median ms", "n"])
    for r in rows:
        if "error" in r:
            t.add(r["kind"], r["model"], r["tokens"], "failed: " + r["error"], "–", "–", "–", "–", 0)
            continue
        st = Stats.of(r["times"])
        ends = Stats.of([x for x in r.get("run_end") or [] if x is not None])
        busy = Stats.of(r.get("long_tasks") or [])
        t.add(r["kind"], r["model"], r["tokens"], fmt_ms(st.median), fmt_ms(st.p95), fmt_ms(max(r["times"])),
              fmt_ms(ends.median), fmt_ms(busy.median), st.n)
    t.notes.append(
        f"After {warmup} warm-up interactions per row (model loaded and warm). Submit: Ctrl+Enter in the Sentence box → "
        "the run has finished and a drawn heatmap names the new sentence's first token (every sentence new, no cache hit). "
        "Slider: one → step of α on the Distance attention view → a heatmap titled with the new α (every α new)."
    )
    t.notes.append("'run end seen' = from the key press until the page marked the app's script run finished "
                   "(`data-test-script-state`; includes the browser handling the run's messages); 'browser long tasks' "
                   "= main-thread tasks over 50 ms in that interval (PerformanceObserver `longtask`), a lower bound "
                   "of the browser's own work.")
    t.notes.append("Server, browser and benchmark share the same CPU; random-weight models.")
    return t
