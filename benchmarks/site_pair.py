"""The static explorer's Pair mode (issue 30, item 6): ``python -m viz_app bench site`` measures it per model.

In a 1400 × 1000 window the pair view is opened on a sentence A of T tokens; sentence B is A with one word
changed, set in B's field with one ``input`` event (as a key does), and the page is timed:

* **B typed → the pair's maps on screen**: from just before the ``input`` event to the first frame after the page
  has run B through the model (A's run is kept) and drawn what is on screen (``body.dataset.drawnAt``);
* **leave-one-out drawn**: from the same ``input`` event until both rows of leave-one-out are filled
  (``body.dataset.looAt``, set when ``#report``'s ``data-loo`` names the drawing's generation); A's rows come
  from the page's cache after the first key, so this is B's T + 1 runs;
* **long tasks**: every main-thread task over 50 ms from the ``input`` event until leave-one-out is drawn
  (PerformanceObserver ``longtask``): typing must never wait behind the runs.

Targets (issue 30): maps on screen p95 ≤ 50 ms at T ≤ 20; leave-one-out at T = 20 drawn ≤ 300 ms after the last
key, no task over 50 ms.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from .common import Stats, Table, folder_context, outside_folder, sentence

TARGETS = {"maps": 50.0, "loo": 300.0, "longtask": 50.0}
TIMEOUT_MS = 120_000
#: Sentence lengths of the timed pairs (issue 30's T ≤ 20; leave-one-out's target is for T = 20).
LENGTHS = tuple(range(8, 21))

#: One B set with one input event; resolves {ms, loo, longtasks} or {error}.
_TYPE_B = """([text]) => new Promise(resolve => {
  const body = document.body, report = document.getElementById('report'), before = body.dataset.generation;
  const field = document.getElementById('b-text'), longtasks = [];
  const observer = new PerformanceObserver(list => { for (const e of list.getEntries()) longtasks.push(e.duration); });
  observer.observe({type: 'longtask', buffered: false});
  const t0 = performance.now();
  field.value = text;
  field.dispatchEvent(new Event('input', {bubbles: true}));
  let ms = null;
  (function wait() {
    if (body.dataset.state === 'error') { observer.disconnect(); return resolve({error: document.getElementById('status').textContent}); }
    const mine = body.dataset.generation;
    if (ms === null && mine !== before && body.dataset.state === 'ready' && +body.dataset.drawnAt > t0) ms = +body.dataset.drawnAt - t0;
    if (ms !== null && report.dataset.loo === mine && +body.dataset.looAt > t0) {
      observer.disconnect();
      return resolve({ms, loo: +body.dataset.looAt - t0, longtasks: longtasks.map(Math.round)});
    }
    requestAnimationFrame(wait);
  })();
})"""


def _edited(text: str, k: int) -> str:
    """``text`` with word k replaced (a minimal pair: one replace in the alignment)."""
    words = text.split(" ")
    words[k % len(words)] = "different" if words[k % len(words)] != "different" else "other"
    return " ".join(words)


def _settle(page, before: str | None) -> None:
    """Wait until the page has drawn a pair newer than generation ``before`` and its leave-one-out (or refused it)."""
    page.wait_for_function("b => document.body.dataset.state === 'error' || (document.body.dataset.generation !== b && "
                           "document.getElementById('report').dataset.loo === document.body.dataset.generation)",
                           arg=before)


def measure_pair(browser, folder: Path, models: list[str], count: int, warmup: int) -> list[dict]:
    """Per model, ``count`` timed pairs after ``warmup`` (an NLI model's hypothesis stays the same in A and B):
    B typed → maps on screen and leave-one-out drawn."""
    rows = []
    for model in models:
        context, outside = folder_context(browser, folder)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        drawn, loo, loo_20, longest = [], [], [], []
        for i in range(warmup + count):
            n = 20 if i % 2 else LENGTHS[(i // 2) % len(LENGTHS)]  # every other pair at T = 20, leave-one-out's T
            a, h = sentence(n, offset=i), sentence(6, offset=3)
            state = {"m": model, "t": a, "h": h, "view": "pair", "bt": a, "bh": h}
            if i == 0:
                page.goto((folder / "index.html").as_uri() + "#" + urlencode(state))
                _settle(page, None)
            else:  # a new A (B its copy) through the address: its run and leave-one-out are then the page's cached
                before = page.evaluate("() => document.body.dataset.generation")
                page.evaluate("s => { location.hash = new URLSearchParams(s).toString(); }", state)
                _settle(page, before)
            result = page.evaluate(_TYPE_B, [_edited(a, i)])
            if "error" in result:
                raise SystemExit(f"error: the pair page refused a {n}-token B: {result['error']}")
            if i >= warmup:
                drawn.append(result["ms"])
                loo.append(result["loo"])
                if n == 20:
                    loo_20.append(result["loo"])
                longest.append(max(result["longtasks"], default=0))
        context.close()
        outside_folder(outside)
        rows.append({"model": model, "lengths": [LENGTHS[0], LENGTHS[-1]], "drawn_ms": drawn, "loo_ms": loo,
                     "loo_20_ms": loo_20, "longest_task_ms": longest})
        s, lo = Stats.of(drawn), Stats.of(loo_20)
        print(f"[site] pair {model}: B typed → maps on screen p95 {s.p95:.1f} ms; leave-one-out at T = 20 p95 "
              f"{lo.p95:.1f} ms; longest task {max(longest, default=0)} ms", flush=True)
    return rows


def _verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else f"missed by {value - limit:,.1f} ({value / limit:.1f}× the limit)"


def pair_table(rows: list[dict]) -> Table:
    table = Table("Minimal pair: B typed (one input event) → the pair's maps on screen, and leave-one-out drawn "
                  "(issue 30; headless Chromium, file://, 1400 × 1000)",
                  ["model", "tokens", "n", "maps on screen: median / p95 ms", "leave-one-out at T = 20: median / p95 ms",
                   "longest task ms", "target", "verdict"])
    for r in rows:
        s, lo = Stats.of(r["drawn_ms"]), Stats.of(r["loo_20_ms"])
        longest = max(r["longest_task_ms"], default=0)
        misses = []
        if not s.p95 <= TARGETS["maps"]:
            misses.append("maps " + _verdict(s.p95, TARGETS["maps"]))
        if not lo.p95 <= TARGETS["loo"]:
            misses.append("leave-one-out " + _verdict(lo.p95, TARGETS["loo"]))
        if longest > TARGETS["longtask"]:
            misses.append(f"a {longest} ms task (limit {TARGETS['longtask']:g})")
        table.add(r["model"], f"{r['lengths'][0]}–{r['lengths'][1]}", s.n, f"{s.median:.1f} / {s.p95:.1f}",
                  f"{lo.median:.1f} / {lo.p95:.1f}", longest,
                  f"maps p95 ≤ {TARGETS['maps']:g} ms, leave-one-out p95 ≤ {TARGETS['loo']:g} ms, no task > "
                  f"{TARGETS['longtask']:g} ms", ("missed: " + "; ".join(misses)) if misses else "met")
    table.notes.append("B is A with one word replaced, set in B's field with one input event; A's run and "
                       "leave-one-out are the page's cached ones, so each key runs the model once for the maps and "
                       "T + 1 times for B's leave-one-out, one run per task")
    return table
