"""Where a one-input-event sentence's time goes in the static explorer (docs/benchmarks-and-reliability.md, "Why
the one-event row missed"; docs/figure-components.md): a CDP CPU profile of the page's thread over N typed
sentences of 5-20 tokens, self and inclusive ms per function (``profile``), a Chromium trace of the wasm's
top-tier compiles per sentence after an idle wait (``tier``), or a timeline from the open through N sentences
of the wasm's unoptimised compiles of large functions (by index) and its long optimised ones (``compiles``: a
function compiled unoptimised twice was deoptimised; viz_app/draw/site_probe.py), or the page thread's compositor
commits and its tasks over 40 ms (with the longest events inside each) while ``bench site``'s typing with the maps in
view runs its T ≤ 20 and T ≈ 64 rows (``commits``: a long task there was one commit of 54 ms), or N opens on a
link's sentence with the first maps and the page's marks, the last one traced: each thread's busy ms until its first
maps (``opens``: bench site's row "a link's sentence"). Usage:
    python -m viz_app site --out DIR --model disan-sst5
    PYTHONPATH=. python scripts/probe_site_events.py profile DIR disan-sst5 [N]
    PYTHONPATH=. python scripts/probe_site_events.py tier DIR disan-sst5 [IDLE_MS]
    PYTHONPATH=. python scripts/probe_site_events.py compiles DIR disan-sst5 [N]
    PYTHONPATH=. python scripts/probe_site_events.py commits DIR dsa-sst5
    PYTHONPATH=. python scripts/probe_site_events.py opens DIR disan-sst5 [N]
"""
import bisect
import collections
import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.common import folder_context, sentence
from benchmarks.site import _FIRST_DRAWS, _ON_SCREEN, _TYPE, TIMEOUT_MS, _browser, _in_view, _open


def _events(path: Path) -> list[dict]:
    """A Chromium trace file's events (a bare list or under ``traceEvents``)."""
    events = json.loads(path.read_text())
    return events["traceEvents"] if isinstance(events, dict) else events


def profile(page, ctx, n: int) -> None:
    for i in range(40):  # untimed: past the open's tier-up
        page.evaluate(_TYPE, [sentence(5 + (i * 5) % 16, offset=i + 200)])
    cdp = ctx.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    cdp.send("Profiler.start")
    res = [page.evaluate(_TYPE, [sentence(5 + (i * 7) % 16, offset=i + 20)]) for i in range(n)]
    prof = cdp.send("Profiler.stop")["profile"]
    print("drawn ms", sorted(round(r["ms"], 1) for r in res))
    nodes = {nd["id"]: nd for nd in prof["nodes"]}
    parent = {c: nd["id"] for nd in prof["nodes"] for c in nd.get("children", [])}
    spent = collections.Counter()
    for s, d in zip(prof["samples"], prof["timeDeltas"]):
        spent[s] += d / 1000
    key = lambda nid: (nodes[nid]["callFrame"]["functionName"] or "(anonymous)",
                       nodes[nid]["callFrame"]["url"].split("/")[-1], nodes[nid]["callFrame"]["lineNumber"])
    own, incl = collections.Counter(), collections.Counter()
    for nid, t in spent.items():
        own[key(nid)] += t
        seen, x = set(), nid
        while x is not None:
            if key(x) not in seen:
                incl[key(x)] += t
                seen.add(key(x))
            x = parent.get(x)
    print(f"total {sum(spent.values()):.0f} ms over {n} sentences")
    for title, c in (("self", own), ("inclusive", incl)):
        print("--", title)
        for k, v in c.most_common(25):
            print(f"{v:8.1f} ms  {k}")


def tier(page, browser, idle_ms: int) -> None:
    out = Path(tempfile.mkdtemp()) / "trace.json"
    browser.start_tracing(page=page, path=str(out), categories=["v8.wasm", "blink.user_timing"])
    page.evaluate("performance.mark('ev-start')")
    page.wait_for_timeout(idle_ms)
    drawn = []
    for i in range(40):
        page.evaluate("performance.mark('ev-start')")
        drawn.append(round(page.evaluate(_TYPE, [sentence(5 + (i * 7) % 16, offset=i + 20)])["ms"], 1))
    browser.stop_tracing()
    events = _events(out)
    marks = sorted(e["ts"] for e in events if e.get("name") == "ev-start")
    per = [0.0] * len(marks)
    for e in events:
        if e.get("name") == "wasm.TopTierCompilation" and e.get("ph") == "X":
            per[bisect.bisect_right(marks, e["ts"]) - 1] += e["dur"] / 1000
    print("drawn ms", drawn)
    print(f"top-tier compile ms: idle window {per[0]:.0f}; per sentence {[round(x) for x in per[1:]]}")


def compiles(browser, folder: Path, model: str, n: int) -> None:
    out = Path(tempfile.mkdtemp()) / "trace.json"
    browser.start_tracing(path=str(out), categories=["v8.wasm", "disabled-by-default-v8.wasm.detailed",
                                                     "blink.user_timing"])
    ctx, page = _open(browser, folder, {"m": model, "t": sentence(8)})
    drawn = []
    for i in range(n):
        page.evaluate(f"performance.mark('sentence-{i}')")
        drawn.append(round(page.evaluate(_TYPE, [sentence(5 + (i * 7) % 16, offset=i + 20)])["ms"], 1))
    browser.stop_tracing()
    ctx.close()
    events = _events(out)
    t0 = min(e["ts"] for e in events if e.get("ts"))
    rows = []
    for e in events:
        name, args = e.get("name", ""), e.get("args") or {}
        if name.startswith(("sentence-", "disan:")) and name != "disan:computed" and "user_timing" in e.get("cat", ""):
            rows.append((e["ts"], f"mark {name}"))
        elif name == "wasm.CompileBaseline" and args.get("bodySize", 0) > 40_000:
            rows.append((e["ts"], f"  unoptimised #{args.get('funcIndex')} ({args['bodySize']:,} bytes)"))
        elif name == "wasm.TopTierCompilation" and e.get("dur", 0) > 100_000:
            rows.append((e["ts"], f"  optimised compile of {e['dur'] / 1000:.0f} ms (thread {e['tid']})"))
    print("drawn ms", drawn)
    for ts, what in sorted(set(rows)):
        print(f"{(ts - t0) / 1000:8.0f} ms  {what}")


def commits(browser, folder: Path, model: str) -> None:
    from urllib.parse import urlencode

    out = Path(tempfile.mkdtemp()) / "trace.json"
    ctx, _ = folder_context(browser, folder, height=900)  # as bench site's typing with the maps in view
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto((folder / "index.html").as_uri() + "#" + urlencode({"m": model, "t": sentence(8)}))
    page.wait_for_function("() => document.body.dataset.drawnAt || document.body.dataset.state === 'error'")
    browser.start_tracing(page=page, path=str(out), categories=["devtools.timeline", "toplevel", "v8",
                                                                "disabled-by-default-devtools.timeline"])
    rows = _in_view(page, 4, 60, large=())
    browser.stop_tracing()
    pixels = page.evaluate("() => Array.from(document.querySelectorAll('canvas'), c => c.width * c.height)")
    ctx.close()
    for r in rows:
        print(f"{r['class']}: long tasks {r['longtasks']} ms")
    print(f"{len(pixels)} canvases, {sum(pixels) / 1e6:.1f} M pixels of backing store")
    events = _events(out)
    threads = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
               and e["args"].get("name") == "CrRendererMain"}
    on_main = [e for e in events if (e.get("pid"), e.get("tid")) in threads and e.get("ph") == "X"]
    commit = sorted(e["dur"] / 1000 for e in on_main if e["name"] == "Commit")
    if commit:
        print(f"commits: {len(commit)}, median {commit[len(commit) // 2]:.1f} ms, "
              f"90th percentile {commit[int(len(commit) * 0.9)]:.1f} ms, longest {commit[-1]:.1f} ms")
    for task in (e for e in on_main if e["name"] == "ThreadControllerImpl::RunTask" and e["dur"] > 40_000):
        inside = [e for e in on_main if e is not task and task["ts"] <= e["ts"] <= task["ts"] + task["dur"]]
        longest = sorted(inside, key=lambda e: -e["dur"])[:4]
        print(f"task of {task['dur'] / 1000:.1f} ms: "
              + ", ".join(f"{e['name']} {e['dur'] / 1000:.1f}" for e in longest))


def opens(browser, folder: Path, model: str, n: int) -> None:
    out = Path(tempfile.mkdtemp()) / "trace.json"
    for i in range(n):
        if i == n - 1:
            browser.start_tracing(path=str(out), categories=["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"])
        ctx, page = _open(browser, folder, {"m": model, "t": sentence(12)}, init_script=_FIRST_DRAWS)
        page.wait_for_timeout(1500)  # as bench site's _first_maps
        seen = page.evaluate(_ON_SCREEN)
        first = max([float(seen["visibleAt"])] + [t for _, t in seen["onScreen"] if t is not None])
        marks = page.evaluate("performance.getEntriesByType('mark').map(m => [m.name, m.startTime])")
        if i == n - 1:
            browser.stop_tracing()
        ctx.close()
        print(f"first maps {first:.0f} ms; marks: {', '.join(f'{name} {t:.0f}' for name, t in marks)}")
    events = _events(out)
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    # the page's time origin in the trace's clock, from the last open's first mark (its startTime is page time)
    name, at = marks[0]
    mark = next(e for e in events if e.get("name") == name and e.get("ph") in ("R", "I", "n", "b"))
    t0, end, spans = mark["ts"] - at * 1000, mark["ts"] + (first - at) * 1000, collections.defaultdict(list)
    for e in events:  # the page's process: its main thread, the model's workers, V8's background threads
        if (e.get("pid") == mark["pid"] and e.get("name") in ("RunTask", "ThreadControllerImpl::RunTask", "ThreadPool_RunTask")
                and e.get("ph") == "X" and t0 <= e["ts"] <= end):
            spans[e["tid"]].append((e["ts"], min(e["ts"] + e["dur"], end)))
    busy = collections.Counter()
    for tid, task in spans.items():  # nested task events (RunTask around ThreadControllerImpl::RunTask) once
        thread, reach = names.get((mark["pid"], tid), "?"), t0
        for a, b in sorted(task):
            busy[thread] += max(0, b - max(a, reach))
            reach = max(reach, b)
    print(f"the traced open: busy ms per thread until its first maps ({first:.0f} ms):")
    for thread, us in busy.most_common(8):
        print(f"  {thread}: {us / 1000:.0f}")


def main() -> None:
    what, folder, model = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    extra = int(sys.argv[4]) if len(sys.argv) > 4 else (40 if what == "profile" else 30 if what == "compiles" else 0)
    with sync_playwright() as pw:
        browser = _browser(pw)
        if what == "compiles":
            return compiles(browser, folder, model, extra)
        if what == "commits":
            return commits(browser, folder, model)
        if what == "opens":
            return opens(browser, folder, model, extra or 5)
        ctx, page = _open(browser, folder, {"m": model, "t": sentence(8)})
        profile(page, ctx, extra) if what == "profile" else tier(page, browser, extra)
        ctx.close()


if __name__ == "__main__":
    main()
