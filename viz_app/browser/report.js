/* The standalone report, the notebook view and the static explorer's report part: draws every figure
 * with plotly.js, redraws the live ones when a control moves, and moves between sections from the keyboard.
 * Every recomputed number comes from Recompute (recompute.js, the code the app's charts run:
 * α by Im Eq. 7, feature k by Shen Eq. 15) through the figure's binding from viz_app/draw/live.py (or its
 * port in sections.js); this file only wires controls to it. An ES module; no network.
 *
 * Two ways in:
 *   Report.boot(document)        the report file (viz_app/draw/report.py): unpacks plotly.js and the
 *                                     trace view, then draws Sections.page(tv) as `show` does;
 *   Report.show(root, page, opts) the explorer: draws page = Sections.page(tv) into `root`, and
 *                                     draws again for each new sentence in the same document.
 * A redraw reuses the plot of every figure the new page still has (Plotly.react), keeps talk mode and the
 * α / feature values, and binds nothing twice: controls are delegated from `root` once, keys and the talk
 * button from the document once. */
import { inflate } from "./bytes.js";
import * as Figures from "./figures.js";
import * as Paint from "./paint.js";
import * as PairView from "./pair_view.js";
import * as Recompute from "./recompute.js";
import * as Sections from "./sections.js";
import { decode } from "./trace_view.js";

const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"] };
/* Typing has rested when no new sentence came for this long (longer than the gap between keys at 5 a second). */
const REST_MS = 300;
const KEYS = { j: 1, n: 1, ArrowRight: 1, PageDown: 1, k: -1, p: -1, ArrowLeft: -1, PageUp: -1,
               Home: "first", End: "last" };

/* What belongs to the document, not to one drawing: talk mode, the view the keys move, keys bound or not. */
function docState(doc) {
  if (!doc.__disanReport) doc.__disanReport = { talk: false, keys: false, hashChecked: false, current: null, views: [] };
  return doc.__disanReport;
}

/* One drawn report in `root`: its data, prepared payloads, plots, control values and the queue of drawings. */
function view(root) {
  if (root.__disanView) return root.__disanView;
  const doc = root.ownerDocument;
  const v = { root, doc, data: null, payloads: {}, plots: [], inputs: [], values: { alpha: null, feature: 0 },
              generation: 0, restTimer: null, observer: null, held: false,
              busy: Promise.resolve(), queued: false, next: null, nextQueued: false, drawn: 0, hash: true };
  root.__disanView = v;
  docState(doc).views.push(v);
  root.addEventListener("input", ev => {
    const input = ev.target;
    if (!input.matches || !input.matches('input[data-control="alpha"], input[data-control="feature"]')) return;
    const key = input.dataset.control;
    v.values[key] = key === "alpha" ? +input.value : Math.round(+input.value);
    syncInputs(v, key);
    redraw(v);
  });
  root.addEventListener("change", ev => {
    if (ev.target.matches && ev.target.matches('select[data-control="word"]')) showWord(v, ev.target);
  });
  root.addEventListener("pointermove", ev => reach(v, ev));
  root.addEventListener("focusin", ev => reach(v, ev));
  return v;
}

/* A person reaches for a figure left painted once typing rested (settle): Plotly draws it now, before its hover
 * handles the move, so hover, clicks and the mode bar's exports read this sentence. */
function reach(v, ev) {
  const gd = ev.target.closest ? ev.target.closest(".plot[data-fig]") : null;
  if (!gd || !v.data || gd.__painted !== v.generation || gd.__full === v.generation) return;
  drawOne(v, gd, false).catch(err => console.error(err));
}

/* Run `job` after every drawing queued before it, whether or not that one failed. */
function enqueue(v, job) {
  v.busy = v.busy.catch(() => {}).then(job);
  return v.busy;
}

/* Queue one Plotly drawing in a task of its own. Each Plotly.react resolves at once, so drawings queued together
 * (figures coming into view, those the key's frame found) ran in one task of 196–357 ms (probe of d2d727b): a key
 * typed meanwhile waited for all of them. Now it waits for one at most. */
function enqueueTask(v, job) {
  return enqueue(v, () => nextTask().then(job));
}

function syncInputs(v, key) {
  for (const input of v.inputs) {
    if (input.dataset.control !== key) continue;
    const value = key === "alpha" ? v.values.alpha : v.values.feature;
    if (value === null || value === undefined) continue;
    if (key === "feature" && value > +input.max) v.values.feature = +input.max;
    input.value = String(key === "alpha" ? value : v.values.feature);
    input.nextElementSibling.textContent = input.value;
  }
}

/* A payload as recompute.js works on it: already prepared (sections.js) or live.py's base64 form. */
function prepared(payload) {
  const blocks = Object.values(payload.blocks || {});
  return blocks.length && blocks.every(b => b.cells) ? payload : Recompute.prepare(payload);
}

function talkScale(v) {
  return docState(v.doc).talk ? v.data.fonts.talk / v.data.fonts.normal : 1;
}

function baseOf(spec, data) {
  return { font: (spec.layout.font || {}).size || data.fonts.normal, height: spec.layout.height,
           annotations: (spec.layout.annotations || []).map(a => (a.font || {}).size) };
}

/* The layout with talk mode's font sizes and height (the spec itself is left as built). */
function scaledLayout(layout, base, scale) {
  if (scale === 1) return layout;
  const out = Object.assign({}, layout, { font: Object.assign({}, layout.font, { size: Math.round(base.font * scale) }) });
  if (base.height) out.height = Math.round(base.height * scale);
  if (layout.annotations) {
    out.annotations = layout.annotations.map((a, i) => base.annotations[i]
      ? Object.assign({}, a, { font: Object.assign({}, a.font, { size: Math.round(base.annotations[i] * scale) }) }) : a);
  }
  return out;
}

/* Draw (or, for a plot already drawn, react) one figure of v.data; a live one at the current values. Resolves
 * true when drawn whole. `lean`: a plot's first drawing (Plotly.newPlot) leaves its heatmaps' cell numbers out
 * (gd.__full stays unset); drawAll draws it whole right after the maps on screen. On a cold open that first
 * drawing pays for plotly.js compiling its code, and the numbers' text was a third of it (probe, 8 cold opens
 * each way: the first map's newPlot 332 → 210 ms, median). */
function drawOne(v, gd, recompute, lean) {
  const spec = v.data.figures[gd.dataset.fig], info = v.data.live[gd.dataset.fig];
  if (!spec) return Promise.reject(new Error(`the page has no figure ${gd.dataset.fig}`));
  if (recompute && info) Recompute.render(v.payloads[info.side], info.binding, spec, v.values);
  gd.__base = baseOf(spec, v.data);
  const width = gd.clientWidth || 1000, scaled = scaledLayout(spec.layout, gd.__base, talkScale(v));
  // talk mode's cell numbers grow with its fonts (a trace's own textfont is not the layout's font)
  const scale = talkScale(v), own = scale === 1 ? spec.data : spec.data.map(t => t.textfont && t.textfont.size
    ? Object.assign({}, t, { textfont: Object.assign({}, t.textfont, { size: Math.round(t.textfont.size * scale) }) }) : t);
  const fitted = Paint.fitCellText(own, scaled, width);
  const data = lean && !gd._fullLayout ? Paint.withoutCellText(fitted) : fitted;
  const layout = Paint.fitMargins(data, scaled, width), whole = data === fitted;
  const generation = v.generation;
  if (gd.__swapped) Paint.unswap(gd);
  const drawn = gd._fullLayout ? Plotly.react(gd, data, layout, CONFIG) : Plotly.newPlot(gd, data, layout, CONFIG);
  return drawn.then(() => {
    shows(gd, spec, width, talkScale(v));
    gd.__shown = generation;
    gd.__full = whole ? generation : null;
    gd.classList.remove("stale");
    return whole;
  });
}

/* What a plot shows: the figure (before its cell text is fitted), the width it was fitted to, talk mode's scale. */
function shows(gd, spec, width, scale) {
  gd.__spec = spec;
  gd.__fit = width + "/" + scale;
}

/* Whether two figures (JSON values: objects, arrays, typed arrays, numbers where NaN equals NaN) are equal. */
/** @param {any} a @param {any} b @returns {boolean} */
function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a !== a && b !== b;
  if (!a || !b || typeof a !== "object" || typeof b !== "object" || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) || ArrayBuffer.isView(a)) {
    const x = /** @type {ArrayLike<any>} */ (a), y = /** @type {ArrayLike<any>} */ (b);
    if (!(Array.isArray(b) || ArrayBuffer.isView(b)) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!sameValue(x[i], y[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(k => Object.prototype.hasOwnProperty.call(b, k) && sameValue(a[k], b[k]));
}

/* Whether plot gd, drawn and not stale, shows `spec` at this width and talk mode off. */
function showing(gd, spec, width) {
  return Boolean(gd.__spec) && gd.__fit === width + "/1" && !gd.classList.contains("stale") && sameValue(gd.__spec, spec);
}

/* A plot on screen that shows this page's figure already (while one sentence of an NLI pair is typed, the other's
 * figures) is left as it is: nothing is built into its image or laid out (2.5 ms a key for DSA's hypothesis map
 * here), and what Plotly or a painting did for it holds for this page too, so once typing rests it is not drawn
 * again. */
function kept(v, gd, spec, width) {
  if (!showing(gd, spec, width)) return false;
  const was = gd.__shown;
  for (const k of ["__full", "__painted", "__settled"]) if (was != null && gd[k] === was) gd[k] = v.generation;
  shows(gd, spec, width, 1);
  gd.__shown = v.generation;
  return true;
}

/* While typing: a visible figure of heatmaps and bars gets the new sentence painted into what Plotly drew
 * (Paint.swap, a few milliseconds); Plotly lays it out again once typing rests (REST_MS). */
function swapOne(v, gd, width) {
  const spec = v.data.figures[gd.dataset.fig];
  if (!spec || !gd._fullLayout || talkScale(v) !== 1) return false;
  if (kept(v, gd, spec, width || 1000)) return true;
  if (!paint(gd, spec, width || 1000)) return false;
  gd.__shown = v.generation;
  gd.classList.remove("stale");
  return true;
}

/* `spec` painted into what Plotly drew in gd (Paint.swap), its cell text fitted to `width`; false, having
 * changed nothing, where it cannot be. */
function paint(gd, spec, width) {
  if (!Paint.swap(gd, { data: Paint.fitCellText(spec.data, spec.layout, width), layout: spec.layout })) return false;
  shows(gd, spec, width, 1);
  return true;
}

/* The bottom of the page's sticky header (0 without one): what lies above it is covered. */
function coveredTop(doc) {
  const header = doc.querySelector("header");
  return header && getComputedStyle(header).position === "sticky" ? header.getBoundingClientRect().bottom : 0;
}

/* Whether a plot is seen: in the window and not under the sticky header (read once per pass). A figure scrolled
 * up behind the explorer's header is left stale (hidden) by a key, as one below the window, to be drawn once
 * typing rests, rather than painted or drawn. */
function seenIn(doc) {
  const top = coveredTop(doc), bottom = doc.defaultView.innerHeight;
  return el => { const r = el.getBoundingClientRect(); return r.bottom > top && r.top < bottom; };
}

function nextTask() {
  return new Promise(resolve => setTimeout(resolve, 0));
}

function nextFrame(win) {
  return new Promise(resolve => win.requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/* Draw every figure: those on screen first, together (a plot's first drawing without its cell numbers, drawOne's
 * `lean`); then, one per task, those again with their numbers and the others, so the page paints the visible
 * maps and takes keystrokes in between. A newer page (v.next), or a key that is computing one
 * (hold), stops this one: it redraws them all anyway. Resolves to true when every figure was drawn. */
function drawAll(v, recompute) {
  // On screen is judged one figure at a time, top down, once the figures above it have their drawn height
  // (Plotly sizes a plot as it draws it): an empty plot is shorter than its figure, and would count the
  // figures below the window as on screen, which the first screen then waits for.
  const now = [], drawing = [], onScreen = seenIn(v.doc);
  for (const gd of v.plots) {
    if (!onScreen(gd)) continue;
    now.push(gd);
    drawing.push(drawOne(v, gd, recompute, true));
  }
  const win = v.doc.defaultView;
  return Promise.all(drawing).then(whole => {
    v.root.dataset.visibleAt = win.performance.now().toFixed(2); // the maps on screen are drawn
    // then, one per task: the maps on screen with their cell numbers, the figures below the window
    return now.filter((gd, i) => !whole[i]).concat(v.plots.filter(gd => !now.includes(gd)));
  }).then(later => later.reduce(
    (done, gd, i) => done.then(complete => {
      if (!complete) return false;
      return (i === 0 ? nextFrame(win) : nextTask()).then(() => v.next || v.held ? false
        : drawOne(v, gd, recompute).then(() => true));
    }), Promise.resolve(true)));
}

/* A sentence being typed (opts.typing): only the figures on screen follow each key, heatmaps painted in
 * place where they can be (swapOne), others drawn by Plotly; the figures off screen are marked stale (hidden,
 * never shown with another sentence's tokens) and drawn when they come near the window or once typing rests
 * for REST_MS, one per task, so no key waits behind a long layout. Resolves when the visible ones are shown. */
function drawTyping(v, seen) {
  const win = v.doc.defaultView, now = v.plots.filter(gd => seen.has(gd.dataset.fig));
  for (const gd of v.plots) if (!now.includes(gd)) gd.classList.add("stale");
  const others = now.filter(gd => !swapOne(v, gd, seen.get(gd.dataset.fig))); // the heatmaps on screen show the new sentence now
  v.root.dataset.visibleAt = win.performance.now().toFixed(2);
  // The new header or body may have moved a figure into the window that was out of it before they were
  // written: checked at the next frame, whose layout this read takes, and drawn.
  win.requestAnimationFrame(() => {
    const onScreen = seenIn(v.doc), generation = v.generation;
    for (const gd of v.plots) {
      if (!gd.classList.contains("stale") || !onScreen(gd)) continue;
      enqueueTask(v, () => v.generation === generation && gd.isConnected && gd.__shown !== generation
        ? drawOne(v, gd, false) : null);
    }
  });
  if (!others.length) { // every figure on screen is painted: nothing waits for a frame (the next key's run, leave-one-out)
    rest(v);
    return Promise.resolve(true);
  }
  // the other figures on screen (bars) after the next frame, one per task, unless a newer sentence came
  return nextFrame(win).then(() => others.reduce((done, gd) => done.then(() => v.next ? null
    : drawOne(v, gd, false).then(nextTask)), Promise.resolve())).then(() => {
    rest(v);
    return true;
  });
}

/* Whether a plot is in or near the window: within half a window of it, the margin `watch` draws within. */
function nearIn(doc) {
  const h = doc.defaultView.innerHeight;
  return el => { const r = el.getBoundingClientRect(); return r.bottom > -h / 2 && r.top < 1.5 * h; };
}

/* A figure Plotly drew for an earlier sentence, shown with this one by painting (swapOne: while typing, or now)
 * and its cell numbers written (Paint.labelCells), when that shows all that Plotly's drawing would but
 * hover (Paint.settled: the same colour limits, fixed bar ranges, a plain title). Plotly then draws it
 * when a person reaches for it (`reach`: the pointer moves over it, focus, a control). True when left so. */
function settle(v, gd) {
  const spec = v.data.figures[gd.dataset.fig], generation = v.generation, width = gd.clientWidth || 1000;
  if (!spec || !gd._fullLayout || talkScale(v) !== 1) return false;
  const fitted = { data: Paint.fitCellText(spec.data, spec.layout, width), layout: spec.layout };
  const shown = gd.__shown === generation || swapOne(v, gd, width);
  if (shown) gd.__painted = generation;
  if (!shown || !Paint.settled(gd, fitted) || !Paint.labelCells(gd, fitted)) return false;
  gd.__settled = generation;
  return true;
}

/* Typing rested: every figure Plotly has not drawn for this sentence, those on screen first, one per task, is
 * painted whole where it can be (settle) and left so; the others Plotly draws, those in or near the window now
 * and the farther ones (painted, or stale) as they come near (watch). Each Plotly.react takes 50–226 ms on this
 * machine, a key typed after a pause waits behind the one running, and most figures (attention maps on [0, 1])
 * need none. A key (hold) stops it before its next figure: the key's sentence would otherwise wait behind that
 * figure's Plotly.react while the model runs it. */
function rest(v) {
  const win = v.doc.defaultView;
  win.clearTimeout(v.restTimer);
  v.restTimer = win.setTimeout(() => {
    const generation = v.generation, onScreen = seenIn(v.doc), near = nearIn(v.doc);
    const todo = v.plots.filter(gd => gd.__full !== generation && gd.__settled !== generation);
    todo.sort((a, b) => Number(onScreen(b)) - Number(onScreen(a)));
    todo.reduce((done, gd) => done.then(() => nextTask()).then(() => {
      if (v.generation !== generation || v.next || v.held || !gd.isConnected || gd.__full === generation) return null;
      if (settle(v, gd) || !near(gd)) return null; // far: watch draws it as it comes near
      return enqueue(v, () => v.generation === generation && gd.__full !== generation ? drawOne(v, gd, false) : null);
    }), Promise.resolve());
  }, REST_MS);
}

/* Stale figures (not drawn for this sentence) and those painted but not settled once typing rested (rest) are
 * drawn by Plotly as they come near the window (half a window ahead), one per task. The observer starts with the
 * first page, so its first report (every figure, at once) finds none stale: made at the first key, it drew every
 * figure near the window behind that key's maps. */
function watch(v) {
  const win = v.doc.defaultView;
  if (v.observer || !win.IntersectionObserver) return;
  v.observer = new win.IntersectionObserver(entries => {
    for (const entry of entries) {
      const gd = entry.target, generation = v.generation;
      const unsettled = gd.__painted === generation && gd.__settled !== generation;
      if (!entry.isIntersecting || !(gd.classList.contains("stale") || unsettled)) continue;
      enqueueTask(v, () => v.generation === generation && gd.isConnected && gd.__full !== generation
        ? drawOne(v, gd, false) : null);
    }
  }, { rootMargin: "50% 0px" });
  for (const gd of v.plots) v.observer.observe(gd);
}

/* Redraw every live figure for the controls' latest values. Redraws run one at a time, and events that
 * arrive meanwhile collapse into one more redraw, so a fast drag never falls behind the slider. */
function redraw(v) {
  if (v.queued) return v.busy;
  v.queued = true;
  return enqueue(v, () => {
    v.queued = false;
    if (v.next) return null; // a newer page is queued; it is drawn at these values
    const values = { alpha: v.values.alpha, feature: v.values.feature };
    return Promise.all(v.plots.map(gd => {
      const info = v.data.live[gd.dataset.fig];
      if (!info || !gd._fullLayout) return null;
      if (gd.__full !== v.generation) return drawOne(v, gd, true); // painted or stale while typing: draw it whole
      const figure = Recompute.render(v.payloads[info.side], info.binding, { data: gd.data, layout: gd.layout },
                                           values);
      return Plotly.react(gd, figure.data, figure.layout, CONFIG);
    })).then(() => { v.root.dataset.alpha = values.alpha; v.root.dataset.feature = values.feature; });
  });
}

function showWord(v, select) {
  const frame = v.data.words[select.dataset.side][+select.value];
  const gd = v.root.querySelector(`.plot[data-fig="s2t-${select.dataset.side}"]`);
  // painted once typing rested (rest): Plotly holds another sentence's figure, drawn whole first
  if (gd.__full !== v.generation && !gd.classList.contains("stale")) enqueue(v, () => drawOne(v, gd, false));
  enqueue(v, () => Plotly.restyle(gd, { z: [frame.z], zmin: [frame.zmin], zmax: [frame.zmax] }, [0])
    .then(() => Plotly.relayout(gd, { "annotations[0].text": frame.title })));
}

function setTalk(doc, on) {
  const ds = docState(doc);
  ds.talk = on;
  doc.body.classList.toggle("talk", on);
  for (const button of doc.querySelectorAll('[data-control="talk"]')) button.setAttribute("aria-pressed", String(on));
  for (const v of ds.views) {
    if (!v.data) continue;
    const generation = v.generation;
    for (const gd of v.plots) {
      if (!gd.__base || !gd._fullLayout) continue;
      if (gd.__full !== generation) { // painted or stale: Plotly holds another sentence; drawn at the new scale
        if (!gd.classList.contains("stale")) {
          enqueueTask(v, () => v.generation === generation && gd.__full !== generation ? drawOne(v, gd, false) : null);
        }
        continue;
      }
      // drawn again, not relaid out at a new font size: the margins are measured for the new fonts (fitMargins;
      // automargin is off, so a relayout kept the old margins and cut long tick labels, "orgeous") and the cell
      // numbers take talk mode's size (and are left out where they no longer fit)
      // numbers (a live figure: at the controls' values; the word a source2token figure shows: chosen again)
      const live = Boolean(v.data.live[gd.dataset.fig]), side = /^s2t-(\w+)$/.exec(gd.dataset.fig || "");
      enqueueTask(v, () => v.generation === generation ? drawOne(v, gd, live) : null);
      const select = side && v.root.querySelector(`select[data-control="word"][data-side="${side[1]}"]`);
      if (select && v.data.words && v.data.words[side[1]]) showWord(v, select);
    }
  }
}

function go(doc, step) {
  const v = docState(doc).current;
  if (!v) return;
  const all = Array.from(v.root.querySelectorAll(".section"));
  if (!all.length) return;
  const top = coveredTop(doc);
  let current = 0;
  all.forEach((s, i) => { if (s.getBoundingClientRect().top <= top + 8) current = i; });
  const target = all[Math.max(0, Math.min(all.length - 1, step === "first" ? 0 : step === "last"
    ? all.length - 1 : current + step))];
  target.style.scrollMarginTop = `${top}px`;
  target.scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
  if (v.hash) history.replaceState(null, "", `#${target.id}${docState(doc).talk ? "-talk" : ""}`);
}

/* Keys and the talk button, bound once per document whatever is drawn or redrawn. */
function keyboard(doc) {
  const ds = docState(doc);
  if (ds.keys) return;
  ds.keys = true;
  doc.addEventListener("keydown", ev => {
    if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.target.closest && ev.target.closest("input, select, textarea, [contenteditable]")) return;
    if (ev.key === "t") { setTalk(doc, !ds.talk); ev.preventDefault(); return; }
    if (ev.key in KEYS) { go(doc, KEYS[ev.key]); ev.preventDefault(); }
  });
  doc.addEventListener("click", ev => {
    if (ev.target.closest && ev.target.closest('[data-control="talk"]')) setTalk(doc, !ds.talk);
  });
}

function isPlot(node) {
  return node.nodeType === 1 && node.matches(".plot[data-fig]");
}

function purgeIn(node) {
  if (node.nodeType !== 1) return;
  for (const gd of isPlot(node) ? [node] : node.querySelectorAll(".plot[data-fig]")) if (gd._fullLayout) Plotly.purge(gd);
}

function syncAttributes(target, source) {
  for (const name of target.getAttributeNames()) if (!source.hasAttribute(name)) target.removeAttribute(name);
  for (const name of source.getAttributeNames()) {
    if (target.getAttribute(name) !== source.getAttribute(name)) target.setAttribute(name, source.getAttribute(name));
  }
}

/* Make target's children those of source in place: equal nodes stay, every drawn plot whose figure the new
 * page still has stays where it is (Plotly.react then redraws it), the rest is replaced. Taking a drawn
 * plot out of the document and back would cost a style pass over all its SVG (10–30 ms a page here). */
function morph(target, source) {
  const old = Array.from(target.childNodes), fresh = Array.from(source.childNodes);
  fresh.forEach((n, i) => {
    const o = old[i];
    if (o && isPlot(n) && isPlot(o) && o.dataset.fig === n.dataset.fig) return;
    if (o && n.nodeType === 1 && !isPlot(n) && o.nodeName === n.nodeName && !isPlot(o) &&
        n.querySelector(".plot[data-fig]")) {
      syncAttributes(o, n);
      morph(o, n);
      return;
    }
    if (o && o.isEqualNode(n)) return;
    if (o) { purgeIn(o); target.replaceChild(n, o); } else target.appendChild(n);
  });
  for (const o of old.slice(fresh.length)) { purgeIn(o); o.remove(); }
}

/* Make container's children those of `parts` (HTML, one element each) where the parts its children were made
 * from (container.__parts, kept by `madeFrom`) hold other HTML: only those are parsed and morphed. A key
 * changes a few of a page's parts (the tokens, a word menu, the header's sentence), and parsing and comparing
 * all of them was about 1.5 ms of each key here. False, having changed nothing, when container has no such
 * parts or a part is not one element; the caller then writes container whole and calls madeFrom. */
function patchParts(container, parts) {
  const kids = container.childNodes, last = container.__parts;
  if (!parts || !last || last.length !== parts.length || kids.length !== parts.length) return false;
  const fresh = parts.map((html, i) => {
    if (html === last[i]) return null;
    const box = container.ownerDocument.createElement("div");
    box.innerHTML = html;
    return box;
  });
  const fits = fresh.every((box, i) => !box || (box.childNodes.length === 1 && kids[i].nodeType === 1 &&
                                                box.firstChild.nodeName === kids[i].nodeName));
  if (!fits) return false;
  fresh.forEach((box, i) => {
    if (!box) return;
    syncAttributes(kids[i], box.firstChild);
    morph(kids[i], box.firstChild);
  });
  container.__parts = parts;
  return true;
}

/* Record that container's children were written whole from `parts` (null: from no parts patchParts can use). */
function madeFrom(container, parts) {
  if (container) container.__parts = parts && container.childNodes.length === parts.length ? parts : null;
}

/* Put the page's body into root (morph: the plots of figures it keeps stay drawn); `parts`, its sections'
 * HTML (Sections.page), where the page has them. */
function replaceBody(v, body, parts) {
  if (patchParts(v.root, parts)) return;
  const fresh = v.doc.createElement("div");
  fresh.innerHTML = body;
  morph(v.root, fresh);
  madeFrom(v.root, parts);
}

/* The body's plots and its α / feature sliders, in document order, found in one walk that never enters a
 * plot: a querySelectorAll of the body visits every node of every plot's SVG (a cell label per cell), and
 * its three searches were a tenth of each key's work here. */
function plotsAndSliders(root) {
  const plots = [], inputs = [];
  (function walk(node) {
    for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
      if (el.classList.contains("plot")) {
        if (el.hasAttribute("data-fig")) plots.push(el);
      } else if (el.tagName === "INPUT") {
        if (el.dataset.control === "alpha" || el.dataset.control === "feature") inputs.push(el);
      } else if (el.firstElementChild) walk(el);
    }
  })(root);
  return { plots, inputs };
}

/* The control values a new page is drawn at: opts.values, else those the user last set, else the page's. */
function valuesFor(v, data, opts) {
  const given = opts.values || {}, kept = v.data && v.data.arch === data.arch ? v.values : {};
  const alpha = given.alpha !== undefined ? given.alpha : kept.alpha !== undefined && kept.alpha !== null ? kept.alpha : data.alpha;
  const feature = given.feature !== undefined ? given.feature : kept.feature !== undefined ? kept.feature : 0;
  return { alpha, feature: Math.max(0, Math.round(feature)) };
}

/* The figures on screen, by id, with their widths, read before a key's page is written: the layout is then the
 * last frame's, and reading it costs nothing, where after the writes it would force a layout of its own (3–5 ms
 * a key here). */
function seenFigures(v) {
  const onScreen = seenIn(v.doc);
  return new Map(v.plots.filter(onScreen).map(gd => [gd.dataset.fig, gd.clientWidth]));
}

/* The header's HTML into `header`, morphed one level down: only the children of its <header> that changed are
 * replaced (a key changes the sentence's line, not the links and buttons below it, whose style and layout then
 * stay as they were). `lines`: the <header>'s children's HTML (Sections.page headerLines), where the page
 * has them: only those that changed since the last page are parsed (patchParts). */
function writeHeader(header, html, lines) {
  const a = header.firstElementChild;
  if (a && header.childNodes.length === 1 && patchParts(a, lines)) return;
  const fresh = header.ownerDocument.createElement("div");
  fresh.innerHTML = html;
  const b = fresh.firstElementChild;
  if (a && b && header.childNodes.length === 1 && fresh.childNodes.length === 1 && a.nodeName === b.nodeName) {
    syncAttributes(a, b);
    morph(a, b);
  } else morph(header, fresh);
  madeFrom(header.childNodes.length === 1 ? header.firstElementChild : null, lines);
}


function install(v, page, opts) {
  const data = page.data, doc = v.doc;
  const seen = opts.typing && v.drawn > 0 ? seenFigures(v) : null;
  if (opts.header) writeHeader(opts.header, page.header, page.headerLines);
  // the talk button the header just written has (each search of the document walks every plot's SVG)
  for (const button of (opts.header || doc).querySelectorAll('[data-control="talk"]')) {
    button.setAttribute("aria-pressed", String(docState(doc).talk));
  }
  for (const box of Array.from(v.root.children)) if (box.matches("p.error")) box.remove();
  if (page.body !== undefined) replaceBody(v, page.body, page.parts);
  const found = plotsAndSliders(v.root);
  const payloads = {}; // prepared when a live figure first needs one (a keystroke draws none)
  for (const side of Object.keys(data.payloads)) {
    Object.defineProperty(payloads, side, { enumerable: true, configurable: true, get() {
      const value = prepared(data.payloads[side]);
      Object.defineProperty(payloads, side, { value, enumerable: true });
      return value;
    } });
  }
  const values = valuesFor(v, data, opts);
  Object.assign(v, { data, payloads, plots: found.plots, inputs: found.inputs,
                     values, hash: opts.hash !== false, generation: v.generation + 1, held: false });
  if (v.observer) for (const gd of v.plots) v.observer.observe(gd);
  else watch(v);
  syncInputs(v, "alpha");
  syncInputs(v, "feature");
  const ds = docState(doc);
  ds.current = v;
  if (!data.compact) {
    keyboard(doc);
    if (!ds.hashChecked) {
      ds.hashChecked = true;
      if (/-talk$|^#talk$/.test(location.hash)) setTalk(doc, true);
    }
  }
  const typing = seen !== null && !moved(v);
  return (typing ? drawTyping(v, seen) : drawAll(v, moved(v))).then(complete => {
    if (!complete) return;
    v.drawn += 1;
    v.root.dataset.alpha = v.values.alpha;
    v.root.dataset.feature = v.values.feature;
    v.root.dataset.drawn = String(v.drawn);
    v.root.dataset.ready = "1";
  });
}

/* One sentence in the page: the error box a failed drawing leaves. */
function showError(root, err) {
  const doc = root.ownerDocument;
  for (const box of root.querySelectorAll(":scope > p.error")) box.remove();
  const box = doc.createElement("p");
  box.className = "error";
  box.textContent = `This report could not be drawn: ${err && err.message || err}`;
  root.prepend(box);
}

/* Draw page = Sections.page(tv, …) ({header, body, data}) into root (the <main> element), replacing
 * what an earlier call drew there. opts: {header: an element that receives page.header, values: {alpha,
 * feature} to draw at (default: those the user last set on this root, else the page's), hash: false to
 * leave the address alone when the keys move between sections}. Calls that arrive while one is drawing
 * collapse: only the latest page is drawn, and a page still drawing its off-screen figures stops for it.
 * Resolves when every figure of this page is drawn (then root.dataset.drawn counts up) or a newer page
 * took its place; a failure is shown in root as one sentence and rejects. */
function show(root, page, opts) {
  const v = view(root);
  v.next = { page, opts: opts || {} };
  if (!v.nextQueued) {
    v.nextQueued = true;
    enqueue(v, () => {
      v.nextQueued = false;
      const job = v.next;
      v.next = null;
      return install(v, job.page, job.opts);
    });
  }
  const done = v.busy;
  done.catch(err => { console.error(err); showError(root, err); });
  return done;
}

/* Whether α or feature k is away from the values v's figures were built at (the page then draws its live
 * figures at the controls' values, not as built). */
function moved(v) {
  return (v.data.alpha !== null && v.values.alpha !== v.data.alpha) || v.values.feature !== 0;
}

/* While typing: the maps on screen painted with a new sentence ahead of its page (site.js paintMaps: from the
 * lean graph of the attention maps, which the worker runs before the whole graph, or a long input's forward and
 * backward parts before the head). `build(id)` gives the figure as the page will build it, or null for one that
 * needs more of the trace (bars, the prediction): those wait for the page. Each is painted as swapOne paints it,
 * and left marked as no page's drawing (__shown null): the page that follows keeps it where its figure is the
 * same (kept), else paints it again. Nothing is painted in talk mode, with α or feature k moved (the page draws
 * those live), or while a page waits to be installed. Resolves true when a plot was painted, after a
 * "disan:preview" event on root, {detail: {built: id → figure built, painted}}, for tests to watch from outside
 * (docs/front-end.md). */
function preview(root, build) {
  const v = view(root), built = {};
  return enqueue(v, () => {
    if (!v.data || !v.drawn || v.next || talkScale(v) !== 1 || moved(v)) return false;
    const onScreen = seenIn(v.doc);
    let painted = false;
    for (const gd of v.plots) {
      if (!gd._fullLayout || gd.classList.contains("stale") || !onScreen(gd)) continue;
      const spec = build(gd.dataset.fig), width = gd.clientWidth || 1000;
      if (spec) built[gd.dataset.fig] = spec;
      // the other sentence's maps of an NLI pair, where this key left them as they were: nothing to paint
      if (!spec || showing(gd, spec, width) || !paint(gd, spec, width)) continue;
      gd.__shown = null;
      painted = true;
    }
    return painted;
  }).then(painted => {
    root.dispatchEvent(new CustomEvent("disan:preview", { detail: { built, painted } }));
    return painted;
  });
}

/* A new sentence is being computed for root (a key in its sentence box): the figures still being drawn for
 * the last one once typing rested stop (rest), so the new sentence's maps follow the model's answer at once.
 * Those figures are drawn for the new sentence when it rests in turn. */
function hold(root) {
  view(root).held = true; // until the new sentence's page is installed
}

/* The control values and talk mode now: {alpha, feature, talk}. */
function values(root) {
  const v = view(root);
  return { alpha: v.values.alpha, feature: v.values.feature, talk: docState(v.doc).talk };
}

/* The report file: unpack plotly.js, the trace view and its arrays, build the page with Sections (the
 * one definition of the figures, shared with the explorer and the app; a pair report's: PairView) and
 * draw it. Every failure is shown on the page in one sentence. */
function boot(doc) {
  const root = doc.getElementById("report");
  const fail = err => {
    console.error(err);
    showError(root, err);
  };
  if (typeof DecompressionStream === "undefined") {
    fail("this browser cannot unpack it (no DecompressionStream); open it in a current Chrome, Edge, Firefox or Safari");
    return Promise.resolve();
  }
  const packed = id => inflate(doc.getElementById(id).textContent.trim());
  const text = id => packed(id).then(b => new TextDecoder().decode(b));
  return text("plotly-js").then(source => {
    const script = doc.createElement("script");
    script.textContent = source;
    doc.head.appendChild(script);
    const second = doc.getElementById("report-arrays-b");
    return Promise.all([text("report-data"), packed("report-arrays"), second ? packed("report-arrays-b") : null]);
  }).then(([json, bytes, bytesB]) => {
    const data = JSON.parse(json);
    Figures.configure(data.context);
    const tv = decode(data.view, bytes);
    // A minimal pair (viz_app/draw/pair_report.py): PairView's page of A and B. The file has no model to
    // run, so α stays at the value it was written with, B's words are no swap buttons, and the leave-one-out
    // rows hold what Python computed with disan.attribution's leave-one-out (data.pair.loo).
    const page = data.pair
      ? PairView.page(tv, decode(data.pair.view, bytesB), { alphaControl: false, swap: false })
      : Sections.page(tv, { compact: data.compact, only: data.only, params: data.params });
    doc.title = page.title;
    return show(root, page, { header: doc.getElementById("report-header") }).then(() => {
      if (!data.pair) return;
      PairView.fillLeaveOneOut(root, "a", data.pair.loo.a);
      PairView.fillLeaveOneOut(root, "b", data.pair.loo.b);
      root.dataset.loo = "1";
    });
  }).catch(fail);
}

export { boot, show, preview, hold, values, showError, setTalk };
