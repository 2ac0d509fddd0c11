"""Typing with the maps in view, in the static explorer (issue 27): what a reader meets who watches the maps
while typing in the sticky header's sentence box.

The page is scrolled so that the first attention map section starts just below the sticky header; the
benchmark then types a sentence one key at a time at ``KEYS_PER_SECOND`` (a space goes with the next
character, so every timed key changes a token). Per key, in the page:

* **maps on screen**: from just before the ``input`` event until the first animation frame in which every
  heatmap figure of the typed sentence inside the window has been drawn again: its figure's ``data-drawn`` (the
  canvas components' contract, docs/figure-components.md, written in the same task as its pixels), or on a
  baseline commit's Plotly page a new cell image (``g.hm image``), so both pages are measured alike. A key whose maps
  come out identical (a partial word that is unknown, as the one before it was) cannot be timed this way and
  is counted apart;
* **next frame** (INP-style): from the key to the first animation frame after it;
* **model run**: the page's ``data-run-ms`` of the key's last run, read before the next key: onnxruntime-web's
  run of the whole graph in the worker, apart from drawing (null where no run ended within the key's interval);
* **long tasks**: every main-thread task over 50 ms while typing (PerformanceObserver ``longtask``), from the
  first key to 100 ms after the last;
* **below the fold**: after the last key, every attention figure of the premise is scrolled into view in turn;
  one that is visible (neither its visibility hidden nor its opacity 0) with another number of rows than the
  sentence has tokens after one frame (the tokens its ``data-drawn`` names, or a Plotly page's ``calcdata``)
  counts as stale (a canvas figure: its drawn row labels are not the sentence's tokens, or for small multiples
  averaged over blocks of tokens at long T, not the blocks' "first…last" labels);
* **once typing rests** (a pass of its own, ``restMs`` > 0): the long tasks from 100 ms after the last key for
  ``restMs``, the window scrolled as it was. The page finishes its figures then (``REST_MS`` in report.js), and
  a key typed after a pause waits behind whichever task is running.
"""

from __future__ import annotations

KEYS_PER_SECOND = 5

#: How long the rest pass watches the page after its last key.
REST_WINDOW_MS = 3000

#: Runs in the page. Scrolls the first map below the sticky header, types `text` after `prefix`, and returns
#: per-key timings, the long tasks and the stale figures (with `restMs`: the long tasks once typing rests, and
#: no figure scrolled). Needs only the page's ids (#text, #report, .plot).
TYPE_IN_VIEW = """async ({prefix, text, interval, settleMs, restMs}) => {
  const field = document.getElementById('text'), report = document.getElementById('report');
  const frame = () => new Promise(r => requestAnimationFrame(() => r(performance.now())));
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  const idle = async () => {  // the page has answered the last input and drawn it
    const t = performance.now();
    while (performance.now() - t < 60000) {
      await sleep(50);
      if (document.body.dataset.state === 'error') return false;
      if (document.body.dataset.state === 'ready' && report.dataset.ready === '1') return true;
    }
    return false;
  };
  const put = value => { field.value = value; field.dispatchEvent(new Event('input', {bubbles: true})); };
  put(prefix);
  if (!await idle()) return {error: document.getElementById('status').textContent};
  await sleep(settleMs);
  const first = report.querySelector('.plot[data-fig^="mean-"], .plot[data-fig^="alpha-mean-"]');
  const section = first.closest('.section'), header = document.querySelector('header');
  const top = header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
  window.scrollBy(0, section.getBoundingClientRect().top - top);
  await frame(); await sleep(settleMs);
  // the typed sentence's heatmaps in the window (an NLI pair's hypothesis maps do not follow the premise)
  const inView = () => Array.from(report.querySelectorAll('.plot[data-fig$="-premise"]')).filter(gd => {
    const b = gd.getBoundingClientRect();
    return (gd.querySelector(':scope > .disan-figure [data-figure^="heatmap:"]') || gd.querySelector('g.hm image')) &&
      b.bottom > top && b.top < innerHeight;
  });
  // a figure's mark: its data-drawn (canvas components), or a Plotly page's cell images
  const images = gds => gds.map(gd => { const fig = gd.querySelector(':scope > .disan-figure');
    return fig ? [fig.dataset.drawn] : Array.from(gd.querySelectorAll('g.hm image'), i => i.getAttribute('href') ||
                                                  i.getAttributeNS('http://www.w3.org/1999/xlink', 'href')); });
  const longtasks = [];
  const observer = new PerformanceObserver(list => { for (const e of list.getEntries()) longtasks.push(e); });
  observer.observe({type: 'longtask', buffered: false});
  const steps = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ' ') continue;
    const word = text.slice(0, i + 1);
    steps.push(word);
  }
  const keys = [], started = performance.now();
  let figures = [];
  for (const value of steps) {
    const gds = inView(), before = images(gds), generation = document.body.dataset.generation, t0 = performance.now();
    put(prefix + value);
    const next = await frame() - t0;
    let shown = null, same = false;
    while (performance.now() - t0 < 5000) {
      const now = images(gds);
      if (gds.length && now.every((list, k) => list.length && list.every((h, j) => h !== before[k][j]))) {
        shown = performance.now() - t0; break;
      }
      const answered = document.body.dataset.generation !== generation && document.body.dataset.state === 'ready' &&
                       report.dataset.ready === '1';
      if (answered && performance.now() - t0 > interval) { same = true; break; }  // drawn, and the maps are identical
      await frame();
    }
    figures = gds.map(gd => gd.dataset.fig);
    keys.push({t: value.split(' ').length + prefix.split(' ').filter(Boolean).length, next, shown, same});
    const wait = interval - (performance.now() - t0);
    if (wait > 0) await sleep(wait);
    // the model's own run for this key (onnxruntime-web in the worker, apart from drawing), where it ended
    const run = document.body.dataset.generation !== generation ? +document.body.dataset.runMs : NaN;
    keys[keys.length - 1].run = Number.isFinite(run) ? run : null;
  }
  const ended = performance.now();
  await sleep(100 + (restMs || 0));
  observer.disconnect();
  const during = longtasks.filter(e => e.startTime >= started && e.startTime <= ended + 100)
                          .map(e => Math.round(e.duration));
  if (restMs) {
    const rest = longtasks.filter(e => e.startTime > ended + 100).map(e => Math.round(e.duration));
    await idle();
    return {keys, longtasks: during, rest, figures, stale: 0, checked: 0};
  }
  // A canvas figure shows the sentence when its drawn row labels are its tokens, or, for small multiples
  // averaged over blocks of b tokens at long T (figures.js smallMultiples), the labels "first…last" of each block.
  const showsTokens = (drawn, toks) => {
    if (!drawn) return false;
    if (drawn.length === toks.length && drawn.every((t, i) => t === toks[i])) return true;
    for (let b = 2; b <= toks.length; b++) {
      if (Math.ceil(toks.length / b) !== drawn.length) continue;
      const labels = [];
      for (let i = 0; i < toks.length; i += b) labels.push(toks[i] + '…' + toks[Math.min(i + b, toks.length) - 1]);
      if (labels.every((l, k) => l === drawn[k])) return true;
    }
    return false;
  };
  // Below the fold: scroll each figure into view straight after the last key and check its rows one frame later.
  const tokens = () => Array.from(report.querySelectorAll('#tokens .tokens')[0].querySelectorAll('.tok'), e => e.textContent);
  let stale = 0, checked = 0;
  for (const gd of Array.from(report.querySelectorAll('.plot[data-fig^="mean-"], .plot[data-fig^="alpha-"], .plot[data-fig^="feature-"]'))) {
    if (!gd.dataset.fig.endsWith('premise')) continue;
    gd.scrollIntoView({block: 'center'});
    await frame(); await frame();
    const style = getComputedStyle(gd);  // hidden: by its visibility (the baseline's page) or its opacity (this one's)
    const fig = gd.querySelector(':scope > .disan-figure');
    const visible = style.visibility !== 'hidden' && style.opacity !== '0' && (fig || gd.querySelector('g.hm image'));
    const mark = fig ? fig.dataset.drawn : '';  // the tokens the figure's pixels show, or a Plotly page's cells
    const drawn = fig ? (mark.endsWith(':error') ? null : JSON.parse(mark.slice(mark.indexOf(':') + 1)))
      : gd.calcdata && gd.calcdata[0] && gd.calcdata[0][0] && gd.calcdata[0][0].z;
    const rows = drawn ? drawn.length : -1;
    checked += 1;
    if (visible && (fig ? !showsTokens(drawn, tokens()) : rows !== tokens().length)) stale += 1;
  }
  await idle();
  return {keys, longtasks: during, figures, stale, checked};
}"""
