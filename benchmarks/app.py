"""App latency in headless Chromium against a local Streamlit server (``benchmarks/server.py``).

Rows (every figure after warm-up interactions; the clock runs inside the page, from the input
event's own timestamp to the start of the frame that shows the last affected chart's new drawing). A figure
drawn by the figure host is read through its contract (docs/figure-components.md): its root's ``data-drawn``
changes in the same task as its pixels, and the frame after that change shows it (``PROBES`` records that
frame per figure); its tokens are in ``data-drawn``, and what else it names (a word vector grid's word) in its
title line and its panels' ``aria-label`` (``__figureSays``). The baseline commit's Plotly charts are read as that
commit's ``chart.js`` records them (``__vizShown``):

* **α step → every map** (Distance attention view, DSA): one → key press on the α slider.
  *browser* = the live slider of ``viz_app/browser`` (recomputed in the page); *server* = the
  baseline, the same app with ``VIZ_BROWSER_RECOMPUTE=0`` (``st.slider`` → fragment rerun → every
  chart receives a new figure). Both paths wait until all three charts show the new α.
* **feature step → redrawn** (DiSAN attention, "one feature k"): → on the live feature slider
  (browser), or the number input's + button (server baseline); both charts (maps and row bars).
* **submit → <view> heatmaps**: a new sentence pasted into the sidebar's sentence box and submitted at once
  (Enter where the page has the typing element, Ctrl+Enter where it has none) → the first frame in which every
  heatmap chart of the view names its first token (no cached trace reused), clocked from the paste's input event.

Between two interactions the page is left to settle (the app idle, the live value sent and the
rerun it causes drawn), so each step starts from a quiet page. Requests go to 127.0.0.1 only.
"""

from __future__ import annotations

import shutil
from urllib.parse import urlencode

import contextlib
import time

import numpy as np

from viz_app.draw import settings

from .common import BASELINE_LABEL, REPO_ROOT, Stats, Table, fmt_ms, process_cpu_s, sentence
from .server import CHROMIUM_ARGS, checkout, free_port, streamlit_server

#: In every page: the timestamp of the last key press or pointer press (the start of each clock), and for each
#: figure root of the contract (``data-figure="figure:…"``) its last drawing (window.__drawnAt): ``task``, when
#: its ``data-drawn`` changed, ``drawn``, the new value, ``says``, what the figure names then (``__figureSays``),
#: and ``t``, the start of the next animation frame (null
#: until it comes): the first frame that shows a drawing made in a task. A drawing made inside an animation frame
#: (the live sliders' repaint) is shown by that frame: the live rows read its time from ``chart.js``'s group.
PROBES = """(() => {
  window.__inputT = 0;
  for (const type of ['keydown', 'pointerdown']) {
    window.addEventListener(type, e => { window.__inputT = e.timeStamp; }, true);
  }
  window.__drawnAt = new WeakMap();
  // What a figure names, read from outside: its data-drawn (the first panel's tokens: a sentence's, or a word
  // vector grid's feature rows), its title line and each panel's accessible label (which holds the panel's
  // title: Source2token's chosen-word grid names its word there only). All are set in the task of the drawing.
  const says = window.__figureSays = f => [f.dataset.drawn || '',
    (f.querySelector('.disan-figure__title') || {}).textContent || '',
    ...[...f.querySelectorAll('[data-figure] [aria-roledescription]')].map(s => s.getAttribute('aria-label') || '')].join('\\n');
  new MutationObserver(records => {
    for (const r of records) {
      const el = r.target;
      if (!(el.dataset.figure || '').startsWith('figure:')) continue;
      const rec = {task: performance.now(), t: null, drawn: el.dataset.drawn, says: says(el)};
      window.__drawnAt.set(el, rec);
      requestAnimationFrame(() => { rec.t = performance.now(); });
    }
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-drawn']});
})()"""

#: JS helpers: a chart element's figure root of the contract (null on the baseline's Plotly charts), and the
#: frame that showed its last drawing ({t, drawn}) or null.
CONTRACT = """const fig = gd => gd.querySelector('[data-figure^="figure:"]');
  const shownAt = gd => { const f = fig(gd); return f ? window.__drawnAt.get(f) || null : null; };
  const isHeatmap = gd => fig(gd) ? !!fig(gd).querySelector('[data-figure^="heatmap:"]')
                                  : !!gd.data && gd.data.some(t => t.type === 'heatmap');"""

_IDLE = """() => { const a = document.querySelector('[data-testid=stApp]');
  return !!a && a.getAttribute('data-test-script-state') !== 'running'; }"""

#: Milliseconds from the input until every chart of the live group shows ``value`` on screen (else false).
LIVE_DRAWN = """([group, param, value, charts]) => {
  const g = (window.__disanLive || {})[group];
  if (!g || !g.drawn || g.drawn.values[param] !== value || g.drawn.t < window.__inputT) return false;
  if (g.drawn.charts < charts) return false;
  const gds = [...g.charts].filter(gd => gd.isConnected);
  """ + CONTRACT + """
  if (gds.every(fig)) { // each chart's figure drew after the input, inside the group's frame, which shows it
    if (gds.map(shownAt).some(a => !a || !(a.task >= window.__inputT))) return false;
    return {ms: g.drawn.t - window.__inputT};
  }
  if (g.drawn.painted) return {ms: g.drawn.t - window.__inputT}; // repainted inside the frame that shows it
  if (gds.some(gd => !(gd.__vizShown >= window.__inputT))) return false;
  return {ms: Math.max(...gds.map(gd => gd.__vizShown)) - window.__inputT};
}"""

#: ``LIVE_DRAWN`` for whatever value the last input event set (chart.js records it in window.__disanLiveInput):
#: a server update landing between key presses may move the slider elsewhere than the benchmark expects.
LIVE_DRAWN_LATEST = """([group, param, charts]) => {
  const input = window.__disanLiveInput;
  if (!input || input.group !== group || !(input.t >= window.__inputT)) return false;
  return (""" + LIVE_DRAWN + """)([group, param, input.value, charts]);
}"""

#: Milliseconds from the input until every chart matching ``which`` was redrawn after it, on screen, and one of
#: them shows ``marker``: a token in a figure's data-drawn, or text of its title line; a value label drawn on the
#: canvas ("α = 0.5", "P[k=3]": it holds "=") is not in the DOM, and the first drawing after the input counts.
CHARTS_DRAWN = """([which, marker, count]) => {
  """ + CONTRACT + """
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') === 'running') return false;
  const gds = [...document.querySelectorAll('.viz-chart')].filter(gd => (fig(gd) || gd.data) && (which === 'heatmaps'
    ? isHeatmap(gd) : which === 'charts' || which.some(k => gd.closest('.st-key-' + k))));
  if (gds.length < count) return false;
  let last = 0;
  for (const gd of gds) {
    const t = fig(gd) ? (shownAt(gd) || {t: null}).t : gd.__vizShown;
    if (!(t > window.__inputT)) return false;
    last = Math.max(last, t);
  }
  const names = gd => fig(gd)
    ? window.__figureSays(fig(gd)).includes(marker) || marker.includes('=')
    // The figure each chart shows: Plotly's own layout, or the one chart.js painted in without a layout yet (swap).
    : JSON.stringify((gd.__figure || gd).layout).includes(marker);
  if (!gds.some(names)) return false;
  return {ms: last - window.__inputT};
}"""

ALPHA_CHARTS = ["chart_dsa_pair", "chart_dsa_heads_fw", "chart_dsa_heads_bw"]
FEATURE_CHARTS = ["chart_disan_pair", "chart_disan_row"]


def _url(base: str, **params) -> str:
    return f"{base}/?{urlencode(params)}"


def _settle(page, timeout_ms: float, pause_ms: int = settings.LIVE_SEND_AFTER_MS + 100) -> None:
    """Let the page go quiet: the live value sent, the rerun it causes finished and drawn."""
    page.wait_for_timeout(pause_ms)
    page.wait_for_function(_IDLE, timeout=timeout_ms)
    page.wait_for_timeout(150)


def _measure(page, act, predicate: str, arg, timeout_ms: float) -> float:
    act()
    return page.wait_for_function(predicate, arg=arg, timeout=timeout_ms, polling="raf").json_value()["ms"] / 1e3


def alpha_steps(page, base: str, T: int, path: str, warmup: int, n: int, timeout_ms: float) -> list[float]:
    """Seconds from one → press on the α slider until every map of the Distance view shows the new α."""
    page.goto(_url(base, model="dsa", view="distance_attention", sentence=sentence(T, offset=T), alpha="0.5"))
    selector = ".viz-live input[type=range]" if path == "browser" else "[data-testid=stSlider] input[type=range]"
    slider = page.locator(selector).first
    slider.wait_for(timeout=timeout_ms)
    page.wait_for_function(CHARTS_DRAWN, arg=[ALPHA_CHARTS, "α = 0.5", 3], timeout=timeout_ms)
    _settle(page, timeout_ms)
    out = []
    for k in range(warmup + n):
        value = round(0.6 + 0.1 * k, 1)  # every α new for this sentence (0.6 … ≤ 5)
        slider.focus()
        if path == "browser":
            s = _measure(page, lambda: slider.press("ArrowRight"), LIVE_DRAWN, ["alpha", "alpha", value, 3], timeout_ms)
        else:
            s = _measure(page, lambda: slider.press("ArrowRight"), CHARTS_DRAWN,
                         [ALPHA_CHARTS, f"α = {value:g}\"", 3], timeout_ms)
        if k >= warmup:
            out.append(s)
        _settle(page, timeout_ms)
    return out


def alpha_keys(page, base: str, T: int, rate: float, warmup: int, n: int, timeout_ms: float) -> list[float]:
    """Seconds from each → press to every map of the Distance view at the new α, pressing ``rate`` times a
    second without waiting for the page to settle (a person stepping α with the keyboard, issue 19): the
    settle redraw and the server's update must not hold up the next step."""
    page.goto(_url(base, model="dsa", view="distance_attention", sentence=sentence(T, offset=3 * T), alpha="0.5"))
    slider = page.locator(".viz-live input[type=range]").first
    slider.wait_for(timeout=timeout_ms)
    page.wait_for_function(CHARTS_DRAWN, arg=[ALPHA_CHARTS, "α = 0.5", 3], timeout=timeout_ms)
    _settle(page, timeout_ms)
    slider.focus()
    period = 1.0 / rate
    out = []
    for k in range(warmup + n):
        start = time.monotonic()
        s = _measure(page, lambda: slider.press("ArrowRight"), LIVE_DRAWN_LATEST, ["alpha", "alpha", 3], timeout_ms)
        if k >= warmup:
            out.append(s)
        time.sleep(max(0.0, period - (time.monotonic() - start)))
    return out


def feature_steps(page, base: str, T: int, path: str, warmup: int, n: int, timeout_ms: float) -> list[float]:
    """Seconds from one feature step (→ on the live slider, + on the number input) to both charts redrawn."""
    page.goto(_url(base, model="disan", view="disan_attention", reduce="feature", feature="0",
                   sentence=sentence(T, offset=2 * T)))
    page.wait_for_function(CHARTS_DRAWN, arg=[FEATURE_CHARTS, "P[k=0]", 2], timeout=timeout_ms)
    if path == "browser":
        control = page.locator(".viz-live input[type=range]").first
    else:
        control = page.locator("[data-testid=stNumberInput] button[data-testid=stNumberInputStepUp]").first
    control.wait_for(timeout=timeout_ms)
    _settle(page, timeout_ms)
    out = []
    for k in range(warmup + n):
        value = k + 1
        if path == "browser":
            control.focus()
            s = _measure(page, lambda: control.press("ArrowRight"), LIVE_DRAWN, ["feature", "feature", value, 2],
                         timeout_ms)
        else:
            s = _measure(page, control.click, CHARTS_DRAWN, [FEATURE_CHARTS, f"P[k={value}]", 2], timeout_ms)
        if k >= warmup:
            out.append(s)
        _settle(page, timeout_ms)
    return out


#: Views whose maps follow the sentence, with the model they are measured on (issue 19: "the same holds for
#: the other views' first draw after a submit"; Explore is measured on both models). Trained models, as the app
#: opens on: the page runs a trained model itself (issue 27), a random-weight one only on the server.
SUBMIT_VIEWS = (("explore", "disan-sst5"), ("explore", "dsa-sst5"), ("disan_attention", "disan-sst5"),
                ("fusion_gate", "disan-sst5"), ("source2token", "disan-sst5"), ("distance_attention", "dsa-sst5"),
                ("ffn_pooling", "dsa-sst5"), ("compare", "dsa-sst5"), ("compare", "disan-sst5"),
                ("attribution", "disan-sst5"))
#: The views whose charts follow typing (``viz_app/shell/follow.py``); Compare where it compares one model under
#: other masks or α (the page derives panel B from the logits before the mask: recompute.js remask).
FOLLOWING = frozenset({"explore", "disan_attention", "fusion_gate", "source2token", "distance_attention",
                       "ffn_pooling", "attribution", "compare"})
#: Which charts a submit must redraw where it is not every heatmap (the default): every chart where a heatmap
#: does not name the tokens (the Attribution view's Kendall τ matrix), or named charts (Source2token's word
#: chart, whose rows are feature ranges and whose panel title names the chosen word, the sentence's first token
#: here; its pair chart shows the word in a second sentence and may not change).
SUBMIT_CHARTS = {"attribution": ["chart_attr_maps"], "ffn_pooling": "charts", "source2token": ["chart_s2t_word"]}
#: The baseline commit's charts where they differ: its Attribution view drew no attention map, only the
#: attributions, computed on the submit path.
BASELINE_SUBMIT_CHARTS = {"attribution": "charts"}

#: Installed on the sentence box before a new sentence is put in: the paste's input event starts the clock, and
#: every animation frame after it looks at the charts matching ``which`` (at least ``count``). A figure of the
#: contract counts from the frame that showed its first drawing after the paste that names ``marker`` (its
#: data-drawn, title line or a panel's accessible label: ``__figureSays``)
#: (the page's own model run or the server's rerun, whichever drew it). On the baseline: a chart the page
#: painted from its own model run (``chart.js`` ``__typed``) counts from the first frame after a paint whose figure
#: names ``marker`` (among its tokens, shown or not: a long sentence hides the tick labels); any other chart from
#: the frame ``chart.js`` recorded for its first drawing after the paste (``__vizShown``: the server's rerun).
#: The clock stops at the latest chart's frame once every chart counts and one of them names ``marker`` (a chart
#: such as Attribution's Kendall τ matrix names no token).
FIRST_SHOWN = """([which, marker, count]) => {
  const box = document.querySelector('section[data-testid=stSidebar] textarea');
  window.__firstShown = null;
  box.addEventListener('input', ev => {
    const t0 = ev.timeStamp, seen = new Map();
    """ + CONTRACT + """
    const names = f => !!f && JSON.stringify(f.layout).includes(marker);
    const check = () => {
      const now = performance.now(); // not the frame's timestamp, which may precede a paint of this frame's tasks
      const gds = [...document.querySelectorAll('.viz-chart')].filter(gd => (fig(gd) || gd.data) && (which === 'heatmaps'
        ? isHeatmap(gd) : which === 'charts' || which.some(k => gd.closest('.st-key-' + k))));
      for (const gd of gds) {
        if (seen.has(gd)) continue;
        const at = shownAt(gd);
        if (fig(gd)) { if (at && at.task > t0 && at.t !== null && at.says.includes(marker)) seen.set(gd, at.t); }
        else if (gd.__typed) { if (names(gd.__typed) && gd.__vizDrawn > t0) seen.set(gd, now); }
        else if (gd.__vizShown > t0) seen.set(gd, gd.__vizShown);
      }
      const named = gds.some(gd => fig(gd) ? window.__figureSays(fig(gd)).includes(marker)
                                           : names(gd.__typed) || names(gd.__figure));
      if (gds.length >= count && named && gds.every(gd => seen.has(gd))) {
        window.__firstShown = {ms: Math.max(...gds.map(gd => seen.get(gd))) - t0};
        return;
      }
      requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  }, {once: true});
}"""


def _wait_for_typing(page, url: str, timeout_ms: float) -> None:
    """Reload ``url`` until the page offers typing (the model's in-page folder is exported on the first visit)."""
    deadline = time.monotonic() + max(timeout_ms / 1e3, 300.0)
    while not page.locator(".viz-typing", has_text="follow typing").count():  # not the element that only sends
        if time.monotonic() > deadline:
            raise RuntimeError("the view never offered typing (the explorer folder was not built)")
        page.wait_for_timeout(3000)
        page.reload()
        page.wait_for_function(_IDLE, timeout=timeout_ms)
        page.wait_for_timeout(500)
    page.wait_for_function("() => window.__disanTyping && window.__disanTyping.ready", timeout=timeout_ms)
    page.evaluate("() => window.__disanTyping.ready")


def submit_steps(page, base: str, model: str, T: int, warmup: int, n: int, timeout_ms: float,
                 view: str = "explore", server_pid: int | None = None,
                 charts: dict | None = None, typing: bool = False) -> tuple[list[float], list[float]]:
    """Seconds from a new sentence put into the sentence box (one input event, as a paste) and submitted at once
    (Enter where the page follows typing, else Ctrl+Enter) until the first frame in which every heatmap of
    ``view`` names its first token, and the server's CPU seconds per submit (its rerun; empty without
    ``server_pid``). ``charts``: which charts count, per view, where not ``SUBMIT_CHARTS``. ``typing``: the view
    should follow typing (wait for the model's in-page folder first)."""
    which = (charts or {}).get(view, SUBMIT_CHARTS.get(view, "heatmaps"))
    url = _url(base, model=model, view=view, sentence=sentence(T))
    page.goto(url)
    page.wait_for_function(CHARTS_DRAWN, arg=[which, sentence(T).split()[0], 1], timeout=timeout_ms)
    if typing:
        _wait_for_typing(page, url, timeout_ms)
    submit = "Enter" if page.locator(".viz-typing").count() else "Control+Enter"
    box = page.locator("section[data-testid=stSidebar] textarea").first
    out, cpu = [], []
    for k in range(warmup + n):
        marker = f"zq{T}x{k}"  # first token: in every figure's token labels, shown or thinned
        box.click()
        box.press("Control+a")
        page.evaluate(FIRST_SHOWN, [which, marker, 1])
        before = process_cpu_s(server_pid) if server_pid else 0.0
        page.keyboard.insert_text(f"{marker} {sentence(T - 1, offset=k)}")
        box.press(submit)
        s = page.wait_for_function("() => window.__firstShown", timeout=timeout_ms, polling="raf").json_value()["ms"]
        _settle(page, timeout_ms, pause_ms=settings.TYPING_SEND_AFTER_MS + 200)
        if k >= warmup:
            out.append(s / 1e3)
            if server_pid:
                cpu.append(process_cpu_s(server_pid) - before)
    return out, cpu


#: Milliseconds from the last key until the frame that showed Explore's maps of the text typed so far: the
#: overview figure's data-drawn names ``tokens`` (the sentence's tokens), and the frame after that drawing.
TYPED_SHOWN = """tokens => {
  const f = document.querySelector('.st-key-chart_overview [data-figure^="figure:"]'), input = window.__inputT;
  const at = f && window.__drawnAt.get(f), want = JSON.stringify(tokens);
  if (!at || !(at.task >= input) || at.t === null || at.drawn.slice(at.drawn.indexOf(':') + 1) !== want) return false;
  return {ms: at.t - input};
}"""

#: The overview chart of Explore is drawn (its figure carries data-drawn).
OVERVIEW_DRAWN = "() => !!document.querySelector('.st-key-chart_overview [data-figure^=\"figure:\"][data-drawn]')"

#: Explore's in-page model: a trained model (the explorer exports trained checkpoints only).
TYPING_MODEL = "disan-sst5"


def typing_keys(page, base: str, T: int, rate: float, warmup: int, n: int, timeout_ms: float) -> list[float]:
    """Seconds from each key typed into the sidebar's sentence box (``rate`` keys a second, no waiting, no
    submit) until Explore's heatmaps show the sentence typed so far (issue 27: Explore follows typing)."""
    url = _url(base, model=TYPING_MODEL, view="explore", sentence=sentence(T - 1, offset=5 * T))
    from disan.vocab import tokenize

    page.goto(url)
    page.wait_for_function(OVERVIEW_DRAWN, timeout=timeout_ms)
    _wait_for_typing(page, url, timeout_ms)
    page.wait_for_function(OVERVIEW_DRAWN, timeout=timeout_ms)
    box = page.locator(".st-key-sentence textarea")
    box.click()
    box.press("Control+End")  # the end of the text: "End" goes to the end of a wrapped visual line only
    box.press(" ")
    text = box.input_value()
    page.wait_for_function(TYPED_SHOWN, arg=tokenize(text), timeout=timeout_ms)
    period, out = 1.0 / rate, []
    letters = "zebrashumquietly" * 4
    for k in range(warmup + n):
        start = time.monotonic()
        text += letters[k % len(letters)]
        try:
            s = _measure(page, lambda: box.press(text[-1]), TYPED_SHOWN, tokenize(text), timeout_ms)
        except Exception as err:  # noqa: BLE001 - say what the page knows, then fail the row
            state = page.evaluate("() => { const t = window.__disanTyping || {}; return {problem: t.problem || null, "
                                  "running: !!t.running, stamp: t.stamp, shown: t.shown && t.shown.stamp}; }")
            raise RuntimeError(f"key {k}: {str(err).splitlines()[0]}; page state {state}") from None
        if k >= warmup:
            out.append(s)
        time.sleep(max(0.0, period - (time.monotonic() - start)))
    return out


#: Installed once the page is loaded: the timestamp of the sentence box's last input event (a paste fires no key),
#: the start of the paste row's clock.
PASTE_PROBE = """() => { if (window.__pasteProbe) return; window.__pasteProbe = true; window.__pasteT = 0;
  document.addEventListener('input', e => {
    if (e.target.matches && e.target.matches('.st-key-sentence textarea')) window.__pasteT = e.timeStamp; }, true); }"""

#: Milliseconds from the paste's input event until the frame that showed Explore's maps of the pasted text: the
#: overview figure's data-drawn names its ``tokens`` (drawn from the page's own model run of it).
PASTE_SHOWN = """tokens => {
  const f = document.querySelector('.st-key-chart_overview [data-figure^="figure:"]'), input = window.__pasteT;
  const at = f && window.__drawnAt.get(f), want = JSON.stringify(tokens);
  if (!at || !input || !(at.task >= input) || at.t === null || at.drawn.slice(at.drawn.indexOf(':') + 1) !== want) return false;
  return {ms: at.t - input};
}"""


#: Tokens fewer in every other pasted sentence: a paste changes the sentence's length, as a person's does (the
#: maps of another length are painted with their token labels drawn over the axes until Plotly lays them out).
PASTE_SHORTER = 4


def paste_steps(page, base: str, T: int, warmup: int, n: int, timeout_ms: float) -> list[float]:
    """Seconds from a whole new sentence pasted over Explore's sentence (select all, one input event, no submit)
    until the frame that shows the heatmaps drawn from the page's own run of it. The pasted sentences have ``T``
    and ``T - PASTE_SHORTER`` tokens in turn (each paste changes the length); the page is left to settle between
    pastes (the text sent once typing rests, and the server's rerun of it)."""
    url = _url(base, model=TYPING_MODEL, view="explore", sentence=sentence(T, offset=3 * T))
    from disan.vocab import tokenize

    page.goto(url)
    page.wait_for_function(OVERVIEW_DRAWN, timeout=timeout_ms)
    _wait_for_typing(page, url, timeout_ms)
    page.wait_for_function(OVERVIEW_DRAWN, timeout=timeout_ms)
    page.evaluate(PASTE_PROBE)
    box = page.locator(".st-key-sentence textarea")
    out = []
    for k in range(warmup + n):
        # a new sentence each time, every word in the vocabulary; the box holds T tokens before the first
        text = sentence(T - PASTE_SHORTER * ((k + 1) % 2), offset=7 * k + 1)
        box.click()
        box.press("Control+a")
        s = _measure(page, lambda: page.keyboard.insert_text(text), PASTE_SHOWN, tokenize(text), timeout_ms)
        if k >= warmup:
            out.append(s)
        _settle(page, timeout_ms, pause_ms=settings.TYPING_SEND_AFTER_MS + 200)
    return out


def _row(rows: list, log, kind: str, path: str, model: str, T: int, fn) -> None:
    """Run ``fn`` (times, or (times, server CPU seconds per interaction)) and append its row."""
    try:
        result = fn()
        times, cpu = result if isinstance(result, tuple) else (result, [])
        rows.append({"kind": kind, "path": path, "model": model, "tokens": T, "times": times, "server_cpu": cpu})
        st = Stats.of(times)
        extra = f", server CPU {fmt_ms(float(np.median(cpu)))} ms per rerun" if cpu else ""
        log(f"  {kind} [{path}] {model} T={T}: median {fmt_ms(st.median)} ms, p95 {fmt_ms(st.p95)} ms{extra}")
    except Exception as err:  # noqa: BLE001 - a broken view must not hide the other rows
        msg = str(err).splitlines()[0][:160]
        rows.append({"kind": kind, "path": path, "model": model, "tokens": T, "error": msg})
        log(f"  {kind} [{path}] {model} T={T}: FAILED ({msg})")


def _session(base: str, work, timeout_s: float) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.add_init_script(PROBES)
            page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base)
                       else route.abort())  # 127.0.0.1 only
            page.set_default_timeout(timeout_s * 1000)
            work(page)
        finally:
            browser.close()


#: `bench app --baseline-rev` default, measured in the same run: main before issue 27 moved the app's figures into
#: the page (its Python figure builders, issue 27's "today").
BASELINE_REV = "18fbda6"


def run(
    lengths=(10, 64), interactions: int = 20, warmup: int = 3, submit_views=SUBMIT_VIEWS,
    timeout_s: float = 120.0, threads: int | None = None, log=print, baseline: bool = True,
    key_rates=(3.0, 5.0), baseline_rev: str | None = None, only_typing: bool = False,
) -> list[dict]:
    """Every row: ``{"kind", "path", "model", "tokens", "times", "server_cpu"}`` or ``"error"`` instead of times.

    Paths: *browser* (this checkout), *server* (this checkout with ``VIZ_BROWSER_RECOMPUTE=0``: the α and
    feature rows' baseline) and, with ``baseline_rev``, *baseline*: the submit and α-key rows against a
    copy of that commit (``server.checkout``), the earlier figures measured in the same run (the report names the
    commit once, in its header). ``only_typing``: the rows of Explore's typing alone (keys, paste), browser path."""
    rows: list[dict] = []
    ms = timeout_s * 1000
    paths = [("browser", {}, None)]
    if baseline and not only_typing:
        paths.append(("server", {"VIZ_BROWSER_RECOMPUTE": "0"}, None))
    if baseline_rev and not only_typing:
        paths.append((BASELINE_LABEL, {}, baseline_rev))
    for path, env, rev in paths:
        log(f"  [{path} path] starting a Streamlit server")
        with contextlib.ExitStack() as stack:
            root = stack.enter_context(checkout(rev)) if rev else REPO_ROOT
            base, proc = stack.enter_context(streamlit_server(free_port(), max(lengths), threads=threads, env=env,
                                                              root=root))

            def work(page, path=path, base=base, pid=proc.pid):
                if only_typing:
                    if not settings.EXPLORE_TYPING:
                        log("  Explore's typing is off (VIZ_EXPLORE_TYPING=0): no typing rows")
                    for T in [t for t in lengths if t <= 20] if settings.EXPLORE_TYPING else []:
                        _row(rows, log, "keys at 5/s → Explore maps", path, TYPING_MODEL, T,
                             lambda: typing_keys(page, base, T, 5.0, warmup, interactions, ms))
                        _row(rows, log, "paste → Explore maps", path, TYPING_MODEL, T,
                             lambda: paste_steps(page, base, T, warmup, interactions, ms))
                    return
                if path != "server":
                    for rate in key_rates:
                        for T in lengths:
                            _row(rows, log, f"α keys at {rate:g}/s → every map", path, "dsa", T,
                                 lambda: alpha_keys(page, base, T, rate, warmup, interactions, ms))
                if path in ("browser", "server"):
                    for T in lengths:
                        _row(rows, log, "α step → every map", path, "dsa", T,
                             lambda: alpha_steps(page, base, T, path, warmup, interactions, ms))
                    for T in lengths:
                        _row(rows, log, "feature step → redrawn", path, "disan", T,
                             lambda: feature_steps(page, base, T, path, warmup, interactions, ms))
                if path == "browser" and settings.EXPLORE_TYPING:  # VIZ_EXPLORE_TYPING=0 (the tests) skips it
                    for T in [t for t in lengths if t <= 20]:
                        _row(rows, log, "keys at 5/s → Explore maps", path, TYPING_MODEL, T,
                             lambda: typing_keys(page, base, T, 5.0, warmup, interactions, ms))
                        _row(rows, log, "paste → Explore maps", path, TYPING_MODEL, T,
                             lambda: paste_steps(page, base, T, warmup, interactions, ms))
                if path != "server":
                    for view, model in submit_views:
                        for T in lengths:
                            _row(rows, log, f"submit → {view} heatmaps", path, model, T,
                                 lambda: submit_steps(page, base, model, T, warmup, interactions, ms, view, pid,
                                                      BASELINE_SUBMIT_CHARTS if path == BASELINE_LABEL else None,
                                                      typing=path == "browser" and settings.EXPLORE_TYPING
                                                      and view in FOLLOWING))

            _session(base, work, timeout_s)
    return rows


def table(rows: list[dict], warmup: int) -> Table:
    t = Table("App latency in headless Chromium (viz_app/app.py, local Streamlit server)",
              ["interaction", "path", "model", "T", "median ms", "p95 ms", "max ms", "n", "server CPU ms / rerun"])
    for r in rows:
        if "error" in r:
            t.add(r["kind"], r["path"], r["model"], r["tokens"], "failed: " + r["error"], "–", "–", 0, "–")
            continue
        st = Stats.of(r["times"])
        cpu = fmt_ms(float(np.median(r["server_cpu"]))) if r.get("server_cpu") else "–"
        t.add(r["kind"], r["path"], r["model"], r["tokens"], fmt_ms(st.median), fmt_ms(st.p95),
              fmt_ms(max(r["times"])), st.n, cpu)
    t.notes.append(
        f"After {warmup} warm-up interactions per row (model loaded, first trace done). The clock runs in the page: "
        "from the key press's (or click's) event timestamp until the frame that shows the last affected chart at "
        "the new value: for this checkout's figures, the frame after the task that changed the figure's "
        "`data-drawn` (the figures' test contract, docs/figure-components.md; for keys and paste, the first "
        "drawing whose `data-drawn` names the typed sentence's tokens); on the baseline commit, as its `chart.js` "
        "records it (a repaint inside an animation frame is shown by that frame; a `Plotly.react` by the next "
        "frame after its task)."
    )
    t.notes.append(
        "Path *browser*: this checkout; the live slider recomputes the maps in the page "
        f"(`viz_app/browser/recompute.js`) and the server learns the final value {settings.LIVE_SEND_AFTER_MS} ms "
        "after the last move. Path *server*: a Streamlit rerun per step (`VIZ_BROWSER_RECOMPUTE=0`). Path "
        f"*{BASELINE_LABEL}*: the same rows against the baseline commit's files (`git archive`), in the same run. "
        "Keys → Explore maps: letters typed into the sidebar's sentence box 5 times a second, no submit, until the "
        "frame that shows the maps drawn from the page's own model run (issue 27). Paste → Explore maps: a whole new "
        f"sentence of T and T − {PASTE_SHORTER} tokens in turn (each paste changes the length) put over the box's "
        "text as one input event (no submit), from that event until the frame that shows the maps of the page's own "
        "run of it (issue 58; target p95 ≤ 50 ms at T ≤ 20). α step: one → press after the page settled, all 3 "
        "charts of the Distance view; "
        "α keys: → pressed 3 or 5 times a second without waiting; feature: the DiSAN maps and the row bars; submit: "
        "a new sentence put into the sentence box as one input event (a paste) and submitted at once (Enter where "
        "the page has the typing element, Ctrl+Enter where it has none, as on the baseline), clocked from the paste "
        "until the first frame in which every heatmap of the view names it, whichever draws it: the page's own model run "
        f"(views that follow typing: {', '.join(sorted(FOLLOWING))}) or the server's rerun."
    )
    t.notes.append(
        "Server CPU per rerun: the Streamlit process's user + system time (/proc, 10 ms ticks) from the key press "
        "until the page settled, median over the row; the median hides the tick granularity."
    )
    t.notes.append("Server, browser and benchmark share the same CPU. α and feature rows: random-weight models "
                   "(speed does not depend on the weights); typing and submit rows: the bundled trained models, "
                   "which the page can run itself.")
    return t
