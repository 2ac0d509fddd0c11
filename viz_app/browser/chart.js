/* The app's chart component (viz_app/shell/chart.py): an ES module that Streamlit calls on every render.
 *
 * data.role "figure":  a figure of the page's own definitions (Sections.draw: a report figure by id or a
 *                      `define`d figure with data.params) of the trace views data.view_ids, drawn as a figure
 *                      spec by the figure host (figure_host.js: the canvas components, docs/figure-components.md),
 *                      as the report and the static explorer draw it. A view travels once per session
 *                      (data.views) and is kept here by id; a chart that lacks one asks the server again
 *                      ("missing"). With data.live ({group, payload_id}) the chart joins a live group with the
 *                      figure's own binding and is drawn at the group's values. A rerun that names the same
 *                      views, figure, params and theme draws nothing. A clicked (or Enter-selected) heatmap row
 *                      of a selectable figure tells the server its row ("selection").
 * data.role "chart":   a figure the server built (corpus figures: Evidence, Models), drawn with Plotly.react.
 * data.role "pair":    the Minimal pair view: PairView.page of the trace views data.view_ids (A, B), drawn by
 *                      Report.show as the report and the explorer draw it; data.loo (computed by the server)
 *                      fills its leave-one-out rows, on the same drawing when only it changed.
 * data.role "control": an ordinary <input type=range> that owns a live group: it decodes the payload
 *                      once, redraws every chart of the group on each input event (at most once per
 *                      animation frame: each chart's host repaints the layers that changed), and sends the value
 *                      to the server data.send_after_ms after the last move, so the URL and the other views learn
 *                      it without holding up drawing.
 * data.role "typing":  the sentence box drives the model in the page; every chart with data.follow redraws
 *                      from the trace view it computes.
 * Every per-sentence figure carries the test contract of figure_host.js: data-figure="figure:<id>" and a
 * data-drawn that changes in the same task as its pixels. The entry of the app's bundle
 * (scripts/build_browser.mjs; docs/front-end.md), which chart.py hands Streamlit.
 */
import { fromBase64 } from "./bytes.js";
import { mountFigure } from "./figure_host.js";
import * as Figures from "./figures.js";
import * as PairView from "./pair_view.js";
import { plotlyReady } from "./plotly_ready.js";
import * as Recompute from "./recompute.js";
import * as Report from "./report.js";
import * as Sections from "./sections.js";
import { decode } from "./trace_view.js";
import "./view_figures.js";

const GROUPS = (window.__disanLive = window.__disanLive || {});

function group(name) {
  if (!GROUPS[name]) GROUPS[name] = { live: null, values: {}, charts: new Set(), frame: 0, drawn: null };
  return GROUPS[name];
}

/* What each chart element draws and shows, kept beside it (never on the DOM node): its figure host, the key of
 * the server's figure it shows (undefined: another), its spec, live binding and the values it was drawn at, the
 * server's selection callback, what it follows of typing and what the page drew of a typed sentence. */
const CHARTS = new WeakMap();

function stateOf(el) {
  if (!CHARTS.has(el)) {
    CHARTS.set(el, { host: null, look: null, key: undefined, spec: null, live: null, shown: null, select: null,
                     follow: null, typed: null, token: 0, specText: null });
  }
  return CHARTS.get(el);
}

function bound(g, s) {
  return Boolean(s.live && g.live && s.live.payload_id === g.live.id);
}

function sameValues(a, b) {
  if (!a || !b) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every(k => a[k] === b[k]);
}

/* Recompute every chart of the group once, on the next animation frame: Recompute.render writes the maps at the
 * group's values into the chart's spec and its host repaints what changed (the cells; the colour bar where the
 * limits moved), well within the frame. */
function scheduleRedraw(g) {
  if (g.frame) return;
  g.frame = requestAnimationFrame(() => {
    g.frame = 0;
    const values = Object.assign({}, g.values);
    let charts = 0;
    for (const el of g.charts) {
      if (!el.isConnected) { g.charts.delete(el); continue; }
      const s = stateOf(el);
      if (!bound(g, s) || !s.host || sameValues(s.shown, values)) continue; // e.g. a chart drawn at these values
      s.host.update(Recompute.render(g.live, s.live.binding, s.spec, values));
      s.shown = values;
      charts += 1;
    }
    g.drawn = { values: values, charts: charts, t: performance.now() };
    window.dispatchEvent(new CustomEvent("disan-live-drawn", { detail: g.drawn }));
  });
}

/* The component's one element of class `className` (made on its first render; `made` tells): Streamlit calls
 * the component on every rerun, and the element, with what it drew, persists between them. */
function ownElement(parent, className) {
  const found = parent.querySelector("." + className);
  if (found) return { el: found, made: false };
  const el = document.createElement("div");
  el.className = className;
  parent.appendChild(el);
  return { el: el, made: true };
}

function chartElement(component, data) {
  const { el, made } = ownElement(component.parentElement, "viz-chart");
  const s = stateOf(el);
  s.select = data.selectable ? component.setTriggerValue : null;
  if (made) {
    // A clicked heatmap row (or Enter on a focused cell) picks its row as the chosen token on the server.
    el.addEventListener("figure-rowselect", ev => {
      const d = /** @type {CustomEvent} */ (ev).detail, select = stateOf(el).select;
      if (select) select("selection", { points: [{ x: null, y: d.row, token: d.token, figure: d.figure }] });
    });
  }
  return el;
}

/* A copy of `spec` this chart may change (Recompute.render writes into its panels' views): Sections keeps the
 * figures it built per trace view, which another chart of the same view may draw too. */
function own(spec) {
  return Object.assign({}, spec, { panels: spec.panels.map(p => Object.assign({}, p)) });
}

/* Draw `spec` with the chart's figure host: kept, updated (each component repaints only what changed), unless the
 * provenance or the theme changed (a new host). */
function paint(el, s, spec, data) {
  const theme = data.theme === "presentation" ? "presentation" : null; // talk mode: a clicked row's top cell outlined
  const look = JSON.stringify([data.provenance || null, theme]);
  s.spec = spec;
  if (s.host && s.look === look && s.host.root.isConnected) s.host.update(spec);
  else {
    s.host = mountFigure(el, spec, { provenance: data.provenance || null, theme: theme });
    s.look = look;
  }
}

function problem(el, s, text) {
  s.host = null;
  s.key = undefined;
  el.textContent = text;
}

/* The server's figure `spec` of a chart; with `live`, the chart joins its live group and is drawn at the group's
 * current values (a figure the server built for an earlier value is not drawn at that one: no jump back). */
function drawServer(el, s, spec, data, live) {
  let values = null;
  if (live) {
    const g = group(live.group);
    g.charts.add(el);
    if (g.live && g.live.id === live.payload_id) {
      values = Object.assign({}, g.values);
      Recompute.render(g.live, live.binding, spec, values);
    }
  }
  s.live = live;
  s.shown = values;
  paint(el, s, spec, data);
}

/* The chart already shows exactly this (the same figure, and a live chart at its group's values). */
function alreadyDrawn(s, live) {
  if (!s.host || !s.host.root.isConnected) return false;
  if (!s.live && !live) return true;
  const g = live ? group(live.group) : null;
  return Boolean(live && s.live && s.live.static === live.static && s.live.payload_id === live.payload_id &&
    bound(g, s) && sameValues(s.shown, g.values));
}

/* role "chart": a figure built by the server (corpus figures: Evidence, Models), drawn by plotly.js, which stays
 * for the figures drawn once for a corpus; a rerun that sends the same figure again draws nothing. */
function mountChart(component, data) {
  const el = chartElement(component, data), s = stateOf(el);
  const text = data.spec + JSON.stringify(data.config);
  if (s.specText === text) return;
  s.specText = text;
  const figure = JSON.parse(data.spec);
  plotlyReady(data.plotly_url)
    .then(Plotly => Plotly.react(el, figure.data, figure.layout, Object.assign({ responsive: true }, data.config)))
    .catch(err => { s.specText = null; el.textContent = `This chart could not be drawn: ${err.message}`; });
}

/* ------------------------------------------------------------ role "figure": the page's own definitions */

/* Trace views by id (chart.py sends each once per session; every chart of a page names the one it draws). */
const VIEWS = (window.__disanViews = window.__disanViews || { byId: new Map(), waiting: new Map() });
const VIEW_KEEP = 16;
const VIEW_WAIT_MS = 3000;

function keepView(id, view) {
  VIEWS.byId.delete(id);
  VIEWS.byId.set(id, view);
  while (VIEWS.byId.size > VIEW_KEEP) VIEWS.byId.delete(VIEWS.byId.keys().next().value);
  for (const resolve of VIEWS.waiting.get(id) || []) resolve(view);
  VIEWS.waiting.delete(id);
}

/* The trace view `id`: the one an earlier chart brought, or a moment's wait for a chart of the same rerun that
 * carries it; null when none comes. */
function viewById(id) {
  if (VIEWS.byId.has(id)) return Promise.resolve(VIEWS.byId.get(id));
  return new Promise(resolve => {
    const list = VIEWS.waiting.get(id) || [];
    list.push(resolve);
    VIEWS.waiting.set(id, list);
    setTimeout(() => resolve(null), VIEW_WAIT_MS);
  });
}

/* The chart's trace views, in order; the views it carries are unpacked and kept first. */
function viewsFor(data) {
  if (data.views) {
    if (data.context) Figures.configure(data.context);
    for (const [id, v] of Object.entries(data.views)) keepView(id, decode(JSON.parse(v.view), fromBase64(v.arrays)));
  }
  return Promise.all(data.view_ids.map(viewById));
}

/* Charts that do not follow typing, brought by a rerun while the box held newer text than the server knows: they
 * are of a sentence the reader has left (the Attribution view's bars and τ when the last sentence's attributions
 * land just after a new one was typed or submitted), and drawing them (68-85 ms of the page's thread for the
 * bars at T = 64 in a probe) would hold the drawing of the new sentence's maps. Each waits here, per chart: drawn
 * if the box comes back to the server's text, dropped once the server learns the newer one (its rerun draws the
 * charts of that sentence). */
const HELD = new Map();

function typingAhead() {
  return typingHere() && Boolean(TYPING.sent) && boxesAhead(TYPING.sent);
}

/* role "figure": the page's figure `data.figure` of the trace views `data.view_ids`. */
function mountPageFigure(component, data) {
  const el = chartElement(component, data), s = stateOf(el);
  if (!data.follow && typingAhead()) { HELD.set(el, () => mountPageFigure(component, data)); return; }
  HELD.delete(el);
  if (data.follow) {
    s.follow = { figure: data.figure, theme: data.theme, data: data };
    TYPING.follow.add(el);
    // The server's figure is of a sentence the box has moved on from (typing went on after it was sent):
    // the page's own drawing of the newer text stays; the views still travel (viewsFor) for later charts.
    if (s.host && boxesAhead(data.follow)) { viewsFor(data); return; }
  }
  const key = JSON.stringify([data.view_ids, data.figure, data.params, data.theme, data.provenance || null]);
  const want = data.live ? Object.assign({}, data.live, { static: key }) : null;
  const fresh = viewsFor(data);
  if (s.key === key && alreadyDrawn(s, want)) return; // nothing changed for this chart
  if (data.follow && adoptTyped(el, s, data, key, want)) { // the page drew this sentence already ...
    const kept = s.typed, token = s.token;
    // ... from its own model, whose vocabulary holds only the export's extra GloVe words: where the server's
    // model read a token otherwise (a GloVe word the page lacks, which it ran as <unk>), its numbers differ
    // beyond the export's rounding, and the server's figure is drawn after all.
    fresh.then(views => {
      if (token !== s.token || views.some(v => !v) || vocabularyKey(views[0]) === kept.vocabulary) return;
      s.typed = null;
      const built = Sections.draw(views, data.figure, data.params, data.theme);
      const live = want && built.binding ? Object.assign(want, { binding: built.binding }) : null;
      drawServer(el, s, own(built.figure), data, live);
    }).catch(err => problem(el, s, `This chart could not be drawn: ${err.message}`));
    return;
  }
  s.key = key;
  s.typed = null;
  const token = ++s.token;
  fresh.then(views => {
    if (token !== s.token) return; // a newer render of this chart came first
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      problem(el, s, "Loading this sentence's trace…");
      component.setTriggerValue("missing", missing); // the server sends it again
      return;
    }
    const built = Sections.draw(views, data.figure, data.params, data.theme);
    const live = want && built.binding ? Object.assign(want, { binding: built.binding }) : null;
    drawServer(el, s, own(built.figure), data, live);
  }).catch(err => problem(el, s, `This chart could not be drawn: ${err.message}`));
}

/* A trace view's tokens with the vocabulary status its model gave each ("vocab", "glove", "unknown"), both
 * sentences: the page's run and the server's of the same text agree on it exactly when they embedded the same
 * rows, i.e. when their numbers agree up to the export's rounding. */
function vocabularyKey(tv) {
  const side = (sv) => (sv ? [Array.from(sv.tokens), Array.from(sv.status)] : null);
  return JSON.stringify([side(tv.premise), side(tv.hypothesis)]);
}

/* What a chart that follows typing draws, as one key: the sentence (`follow`: {text, hypothesis, masks, model,
 * alpha}), the figure, its parameters (a live chart's at its group's current values) and the theme. The page's
 * own drawing of a typed text and the server's figure of the same sentence get the same key. */
function followKey(follow, figure, params, live, theme) {
  const g = live ? GROUPS[live.group] : null;
  // a number as the page's run and the server's agree on it; "several" (export.py: panels at other α) matches none
  const alpha = typeof follow.alpha === "number" ? follow.alpha.toPrecision(9)
    : follow.alpha === "several" ? "several" : null;
  return JSON.stringify([follow.model, alpha, follow.text, follow.hypothesis || "", follow.masks || ["default"],
                         figure, Object.assign({}, params, g ? g.values : {}), theme]);
}

/* The server's rerun brings the sentence the page already drew from its own model run (Enter, or typing at
 * rest, after the maps followed the keys): the chart takes the server's key and keeps its drawing, so the rerun
 * paints nothing (issue 58, item 10). A live chart joins its group again with the binding of the page's figure.
 * False, with nothing changed, where the drawings differ. */
function adoptTyped(el, s, data, key, want) {
  const typed = s.typed;
  if (!typed || !s.host || typed.key !== followKey(data.follow, data.figure, data.params, data.live, data.theme)) return false;
  if (typed.look !== JSON.stringify([data.provenance || null, data.theme === "presentation" ? "presentation" : null])) return false;
  if (want) {
    const g = group(want.group);
    if (!typed.binding || !g.live || g.live.id !== want.payload_id) return false;
    s.live = Object.assign(want, { binding: typed.binding });
    g.charts.add(el);
    s.shown = Object.assign({}, g.values);
  } else {
    s.live = null;
  }
  s.token += 1; // an older render still waiting for its views draws nothing
  s.key = key;
  s.spec = typed.spec;
  return true;
}

/* role "section": the HTML of a section of the page's own definitions (Sections.sectionBody: the tokens with
 * their vocabulary status), from the chart's trace view; with data.follow it follows typing too. */
const SECTIONS = new WeakMap(); // element → {key, section, params}

function mountSection(component, data) {
  const { el } = ownElement(component.parentElement, "viz-section");
  if (!SECTIONS.has(el)) SECTIONS.set(el, { key: undefined, section: null, params: null });
  const s = SECTIONS.get(el);
  const key = JSON.stringify([data.view_ids, data.section, data.params]);
  const fresh = viewsFor(data);
  s.section = data.section;
  s.params = data.params;
  if (data.follow) {
    TYPING.sections.add(el);
    if (s.key && boxesAhead(data.follow)) return; // the box holds newer text, drawn by the page itself
  }
  if (s.key === key) return;
  s.key = key;
  fresh.then(views => {
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      s.key = undefined;
      component.setTriggerValue("missing", missing);
      return;
    }
    el.innerHTML = Sections.sectionBody(views, data.section, data.params);
  }).catch(err => { s.key = undefined; el.textContent = `This section could not be drawn: ${err.message}`; });
}

/* ------------------------------------------------------------ role "pair": the minimal pair's page */

/* The pair page of A and B (PairView.page) drawn into the component's element by Report.show, which
 * redraws in place what a new pair keeps; α is the server's (its slider above, a rerun); with data.swap B's words
 * are buttons whose click tells the server "side:index" (trigger "swap": it offers the nearest words, runs the
 * model and sends the new pair); the page is compact: the app's keys stay Streamlit's (no section keys, no talk
 * mode). The leave-one-out rows are filled once the maps are drawn and data.loo has come. */
const PAIRS = new WeakMap();

function mountPair(component, data) {
  const { el, made } = ownElement(component.parentElement, "viz-pair");
  if (!PAIRS.has(el)) PAIRS.set(el, { swap: null, key: undefined, drawn: null, loo: null });
  const p = PAIRS.get(el);
  p.swap = data.swap ? component.setTriggerValue : null;
  if (made) {
    el.addEventListener("click", (ev) => {
      const button = ev.target instanceof Element && ev.target.closest("button[data-swap]");
      if (button instanceof HTMLElement && p.swap) p.swap("swap", button.dataset.swap);
    });
  }
  const key = JSON.stringify([data.view_ids, data.theme, !!data.swap, data.provenance || null]);
  const fresh = viewsFor(data);
  p.loo = data.loo;
  if (p.key === key) {
    if (p.drawn === key) fillPairLoo(el, p);
    return;
  }
  p.key = key;
  p.drawn = null;
  fresh.then(views => {
    if (p.key !== key) return null; // a newer pair came first
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      p.key = undefined;
      component.setTriggerValue("missing", missing); // the server sends it again
      return null;
    }
    const page = PairView.page(views[0], views[1], { theme: data.theme, alphaControl: false, swap: !!data.swap });
    page.data.compact = true;
    return Report.show(el, page, { hash: false, provenance: data.provenance || null }).then(() => {
      if (p.key !== key) return;
      p.drawn = key;
      fillPairLoo(el, p);
    });
  }).catch(err => {
    p.key = undefined;
    Report.showError(el, err);
  });
}

function fillPairLoo(el, p) {
  if (!p.loo) return;
  PairView.fillLeaveOneOut(el, "a", p.loo.a);
  PairView.fillLeaveOneOut(el, "b", p.loo.b);
  el.dataset.loo = p.key;
}

/* ------------------------------------------------------------ role "typing": the views follow the keys */

/* The sentence box (the sidebar's) drives the model in the page (site.js, in the static explorer's bundle loaded
 * from the model's explorer folder: viz_app/shell/explorer.py) and every chart with data.follow redraws from the
 * trace view it computes, with the chart's own figure and parameters (a live chart at its control's current value),
 * each chart's host repainting what changed, all in the task that has the view. One model run is in flight at a
 * time; the newest text waits. The model runs at the α control's current value where the page has one. The server
 * learns the text data.send_after_ms after the last key, or on Enter once the page has drawn that text
 * (submitTyped). A view without the typing element leaves the box to Streamlit. */
const TYPING = (window.__disanTyping = window.__disanTyping ||
  { follow: new Set(), sections: new Set(), base: null, ready: null, running: false, pending: null, typed: null, stamp: 0, shown: null });
const SCRIPTS = {};

/* site.js of the explorer folder's bundle last loaded (its one global, `Disan`). */
function site() {
  return window.Disan.Site;
}

function loadOnce(src) {
  if (!SCRIPTS[src]) {
    SCRIPTS[src] = /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = src;
      el.onload = () => resolve();
      el.onerror = () => reject(new Error(`${src} could not be loaded`));
      document.head.appendChild(el);
    }));
  }
  return SCRIPTS[src];
}

function startModel(data) {
  if (TYPING.base === data.base) return TYPING.ready;
  TYPING.base = data.base;
  const assets = data.base + "assets/";
  TYPING.ready = loadOnce(assets + "ort-runtime.js")
    .then(() => loadOnce(assets + "site-data.js"))
    .then(() => loadOnce(assets + "site.js"))
    .then(() => { site().init(data.base); return site().traceOf(data.model, data.text, data.hypothesis, data.alpha); })
    .then(() => true);
  TYPING.ready.catch(err => { TYPING.problem = String(err && err.message || err); });
  return TYPING.ready;
}

/* The sentence box holds other text than `shown` ({text, hypothesis}: what a server figure was drawn for). */
function boxesAhead(shown) {
  const boxes = sentenceBoxes();
  return Boolean(TYPING.typed && ((boxes.text && boxes.text.value !== shown.text) ||
                                  (boxes.hypothesis && boxes.hypothesis.value !== shown.hypothesis)));
}

/** @returns {{text: HTMLTextAreaElement | null, hypothesis: HTMLInputElement | null}} */
function sentenceBoxes() {
  return { text: document.querySelector(".st-key-sentence textarea"),
           hypothesis: document.querySelector(".st-key-hypothesis input") };
}

/* One model run at a time: the newest text waits, older waiting texts are dropped. */
function runTyped(input) {
  TYPING.pending = input;
  if (TYPING.running) return;
  TYPING.running = true;
  const next = TYPING.pending;
  TYPING.pending = null;
  let alpha = null;
  TYPING.ready
    .then(() => site().traceOf(TYPING.data.model, next.text, next.hypothesis, alpha = typedAlpha()))
    .then(tv => { if (!tv.problem) drawTyped(tv, Object.assign({}, next, { alpha: alpha })); })
    .catch(err => { TYPING.problem = String(err && err.message || err); })
    .then(() => {
      TYPING.running = false;
      if (TYPING.pending) runTyped(TYPING.pending);
      // a submitted text the page did not draw (a bad sentence, a failed run) goes to the server now
      else if (TYPING.submit && !drawnAs(TYPING.submit)) submitNow();
    });
}

/* The α the page's model runs at: the current value of a live α control on this page, else the server's (a DSA;
 * null for DiSAN). */
function typedAlpha() {
  const g = GROUPS.alpha, alpha = TYPING.data.alpha;
  const here = g && Number.isFinite(g.values.alpha) && [...g.charts].some(el => el.isConnected);
  return alpha !== null && alpha !== undefined && here ? g.values.alpha : alpha;
}

/* The chart's figure for the typed trace view of `input` ({text, hypothesis, alpha}), with its live binding and
 * its key (followKey): its own figure and parameters, a live chart's at its control's current values; null where
 * this sentence cannot have it (a chosen token beyond its length): the chart keeps its drawing until the server's
 * rerun. */
function typedFigure(el, tv, input) {
  const s = stateOf(el), f = s.follow, live = f.data.live, g = live ? GROUPS[live.group] : null;
  const params = Object.assign({}, f.data.params, g ? g.values : {});
  // A chart of several views of this sentence names their masks (Compare): the page derives them from the
  // logits before the mask (recompute.js remask; null where the view lacks them).
  const views = (f.data.follow.masks || ["default"]).map(m => (m === "default" ? tv : Recompute.remask(tv, m)));
  if (views.some(v => !v)) return null;
  let built;
  try { built = Sections.draw(views, f.figure, params, f.theme); } catch (err) { return null; }
  const sentence = { text: input.text, hypothesis: input.hypothesis, masks: f.data.follow.masks,
                     model: TYPING.data.model, alpha: input.alpha };
  return { spec: own(built.figure), binding: built.binding || null, vocabulary: vocabularyKey(tv),
           look: JSON.stringify([f.data.provenance || null, f.theme === "presentation" ? "presentation" : null]),
           key: followKey(sentence, f.figure, f.data.params, live, f.theme) };
}

/* The typed sentence's figures, every following chart in this task (each host repaints what changed: a few
 * milliseconds a map), then its sections. */
function drawTyped(tv, input) {
  TYPING.typed = input;
  // words the page's model runs as <unk> (it holds only the export's extra GloVe words): the server's may know
  // them, and its rerun then draws its own numbers (mountPageFigure); the line says so meanwhile
  const unknown = [tv.premise, tv.hypothesis].filter(Boolean)
    .flatMap(sv => Array.from(sv.tokens).filter((_, i) => sv.status[i] === "unknown"));
  if (TYPING.line) {
    TYPING.line.textContent = unknown.length
      ? `The maps follow typing: the model runs in this page, which reads ${[...new Set(unknown)].slice(0, 3)
        .map(w => `"${w}"`).join(", ")}${unknown.length > 3 ? " …" : ""} as unknown; the server's model may know ` +
        "it and redraws once typing rests. Enter submits."
      : TYPING_LINE;
  }
  for (const el of TYPING.follow) {
    if (!el.isConnected) { TYPING.follow.delete(el); continue; }
    const s = stateOf(el), typed = typedFigure(el, tv, input);
    if (!typed) continue;
    s.typed = typed; // what the chart shows now, until the server's rerun (adoptTyped) or another sentence
    s.key = undefined; // the chart no longer shows the server's figure
    // Its control's payload is the server's sentence: the chart leaves the group until the server's rerun
    // brings this sentence's payload (a move of the control meanwhile must not paint the old sentence here).
    s.live = null;
    s.shown = null;
    paint(el, s, typed.spec, s.follow.data);
  }
  for (const el of TYPING.sections) {
    if (!el.isConnected) { TYPING.sections.delete(el); continue; }
    el.innerHTML = Sections.sectionBody([tv], SECTIONS.get(el).section, SECTIONS.get(el).params);
  }
  typedShown(input.stamp);
}

function typedShown(stamp) {
  requestAnimationFrame(() => {
    const t = performance.now();
    TYPING.shown = { stamp: stamp, t: t, input: TYPING.inputs[stamp] };
    window.dispatchEvent(new CustomEvent("disan-typed-shown", { detail: TYPING.shown }));
    // after this frame is painted
    if (TYPING.submit && drawnAs(TYPING.submit)) setTimeout(submitNow, 0);
  });
}

/* What the sentence boxes hold now: {text, hypothesis}. */
function boxText() {
  const boxes = sentenceBoxes();
  return { text: boxes.text ? boxes.text.value : "", hypothesis: boxes.hypothesis ? boxes.hypothesis.value : "" };
}

/* The typing element is on this page (Streamlit keeps the sidebar's box when the view changes; a view without
 * the element leaves its keys to Streamlit: Ctrl+Enter submits there). */
function typingHere() {
  return Boolean(TYPING.line && TYPING.line.isConnected);
}

function onTyped() {
  if (!typingHere()) return;
  if (HELD.size && !typingAhead()) { // back to the server's text: its charts are current again
    const held = [...HELD];
    HELD.clear();
    for (const [el, draw] of held) if (el.isConnected) draw();
  }
  const input = Object.assign(boxText(), { stamp: ++TYPING.stamp, t: performance.now() });
  TYPING.inputs = TYPING.inputs || {};
  TYPING.inputs[input.stamp] = input.t;
  runTyped(input);
  clearTimeout(TYPING.sendTimer);
  TYPING.sendTimer = setTimeout(() => sendTyped(input), TYPING.data.send_after_ms);
}

function sendTyped(input) {
  clearTimeout(TYPING.sendTimer);
  if (TYPING.sent && TYPING.sent.text === input.text && TYPING.sent.hypothesis === input.hypothesis) return;
  HELD.clear(); // of the sentence the server is leaving
  TYPING.sent = { text: input.text, hypothesis: input.hypothesis };
  TYPING.send("typed", TYPING.sent);
}

const BOXES = ".st-key-sentence textarea, .st-key-hypothesis input";

/* The sentence boxes' keys, listened to on the document once: Streamlit may replace a box's element on a rerun,
 * and a listener on the old element would miss every key after it. */
function listenToBoxes() {
  if (window.__disanTypingListens) return;
  window.__disanTypingListens = true;
  document.addEventListener("input", ev => {
    if (ev.target instanceof Element && ev.target.matches(BOXES)) onTyped();
  }, true);
  document.addEventListener("keydown", ev => {
    // Enter submits (Shift+Enter keeps a new line in the sentence box; Ctrl+Enter is Streamlit's own submit).
    if (!(ev.target instanceof Element) || !ev.target.matches(BOXES)) return;
    if (ev.key !== "Enter" || ev.shiftKey || ev.ctrlKey || ev.metaKey || ev.isComposing || !typingHere()) return;
    ev.preventDefault();
    submitTyped(boxText());
  }, true);
}

/* Enter: the server learns `input` once the page has drawn it (the task after the frame that shows its maps),
 * at once where the page's model cannot draw it, and at the latest SUBMIT_WAIT_MS later. The server's rerun (a
 * trace per view, 30-120 ms of CPU at T = 64 in `bench app`) would otherwise share the cores with the page's own
 * run and drawing of the same text; what it brings (the address, the other views, the exports) does not follow
 * a key. */
const SUBMIT_WAIT_MS = 1000;

function submitTyped(input) {
  clearTimeout(TYPING.submitTimer);
  TYPING.submit = input;
  // no run in flight or waiting: the page is done with this text (its input event started a run at once)
  if (TYPING.problem || !TYPING.ready || (!TYPING.running && !TYPING.pending)) return submitNow();
  TYPING.submitTimer = setTimeout(submitNow, SUBMIT_WAIT_MS);
}

function submitNow() {
  const input = TYPING.submit;
  clearTimeout(TYPING.submitTimer);
  TYPING.submit = null;
  if (input) sendTyped(input);
}

/* The page's last drawing is of `input`'s text. */
function drawnAs(input) {
  return Boolean(TYPING.typed && TYPING.typed.text === input.text && TYPING.typed.hypothesis === input.hypothesis);
}

const TYPING_LINE = "The maps follow typing: the model runs in this page. Enter submits.";

function mountTyping(component, data) {
  const { el: line } = ownElement(component.parentElement, "viz-typing");
  TYPING.data = data;
  TYPING.line = line;
  TYPING.send = component.setStateValue;
  TYPING.sent = { text: data.text, hypothesis: data.hypothesis };
  line.textContent = TYPING_LINE;
  startModel(data).catch(err => { line.textContent = `Typing does not redraw the maps here (${err.message}); Ctrl+Enter submits.`; });
  listenToBoxes();
}

function shownValue(data, value) {
  return data.param === "alpha" ? Recompute.formatValue(value) : String(value);
}

const CONTROLS = new WeakMap(); // the control's box → {data, send, timer, server, sent}

function mountControl(component, data) {
  const { parentElement, setStateValue } = component;
  let box = parentElement.querySelector(".viz-live");
  if (!box) {
    box = document.createElement("div");
    box.className = "viz-live";
    box.innerHTML = '<label><span class="viz-live-label"></span> <output></output></label>' +
      '<input type="range"><div class="viz-live-help"></div>';
    parentElement.appendChild(box);
    CONTROLS.set(box, { data: null, send: null, timer: 0, server: undefined, sent: undefined });
    const input = box.querySelector("input"), c = CONTROLS.get(box);
    input.addEventListener("input", () => {
      const g = group(c.data.group), value = Number(input.value);
      g.values[c.data.param] = value;
      box.querySelector("output").textContent = shownValue(c.data, value);
      window.__disanLiveInput = { group: c.data.group, value: value, t: performance.now() };
      scheduleRedraw(g);
      clearTimeout(c.timer);
      c.timer = setTimeout(() => {
        if (value === c.server) return;
        c.sent = value;
        c.send("value", value);
      }, c.data.send_after_ms);
    });
  }
  const input = box.querySelector("input"), c = CONTROLS.get(box);
  c.data = data;
  c.send = setStateValue;
  const id = `viz-live-${data.group}`;
  input.id = id;
  input.min = data.min; input.max = data.max; input.step = data.step;
  input.setAttribute("aria-label", data.label);
  box.querySelector("label").htmlFor = id;
  box.querySelector(".viz-live-label").textContent = data.label;
  box.querySelector(".viz-live-help").textContent = data.help || "";
  // Adopt the server's value unless it is the echo of one this control sent (the user may have moved on).
  if (c.server !== data.value) {
    c.server = data.value;
    if (data.value !== c.sent) input.value = data.value;
  }
  box.querySelector("output").textContent = shownValue(data, Number(input.value));
  const g = group(data.group), value = Number(input.value);
  const changed = !g.live || g.live.id !== data.payload.id || g.values[data.param] !== value;
  if (!g.live || g.live.id !== data.payload.id) g.live = Recompute.prepare(data.payload);
  g.values = Object.assign({}, data.values, { [data.param]: value });
  if (changed) scheduleRedraw(g);
}

/* The fields that chart.py sent as JSON text (data.json names them, comma-separated): a nested object in the
 * component's data made Streamlit import pandas to look for data frames in it (issue 19's cold start). */
function unwire(raw) {
  const data = Object.assign({}, raw);
  for (const name of (raw.json || "").split(",").filter(Boolean)) data[name] = JSON.parse(raw[name]);
  return data;
}

export default function (component) {
  const data = unwire(component.data);
  if (data.role === "control") mountControl(component, data);
  else if (data.role === "typing") mountTyping(component, data);
  else if (data.role === "section") mountSection(component, data);
  else if (data.role === "pair") mountPair(component, data);
  else if (data.role === "figure") mountPageFigure(component, data);
  else mountChart(component, data);
}
