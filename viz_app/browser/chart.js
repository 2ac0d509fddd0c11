/* The app's chart component (viz_app/shell/chart.py): an ES module that Streamlit calls on every render.
 *
 * data.role "figure":  a figure of the page's own definitions (Sections.draw: a report figure by id or a
 *                      `define`d figure with data.params) of the trace views data.view_ids. A view travels
 *                      once per session (data.views) and is kept here by id; a chart that lacks one asks the
 *                      server again ("missing"). With data.live ({group, payload_id}) the chart joins a live
 *                      group with the figure's own binding and is drawn at the group's values. A rerun that
 *                      names the same views, figure, params and theme draws nothing.
 * data.role "chart":   a figure the server built (corpus figures), drawn with Plotly.react.
 * data.role "pair":    the Minimal pair view: PairView.page of the trace views data.view_ids (A, B), drawn by
 *                      Report.show as the report and the explorer draw it; data.loo (computed by the server)
 *                      fills its leave-one-out rows, on the same drawing when only it changed.
 * data.role "control": an ordinary <input type=range> that owns a live group: it decodes the payload
 *                      once, redraws every chart of the group on each input event (at most once per
 *                      animation frame), and sends the value to the server data.send_after_ms after the
 *                      last move, so the URL and the other views learn it without holding up drawing.
 * The entry of the app's bundle (scripts/build_browser.mjs; docs/front-end.md), which chart.py hands Streamlit.
 */
import { fromBase64 } from "./bytes.js";
import * as Figures from "./figures.js";
import * as Paint from "./paint.js";
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

function bound(g, gd) {
  return gd.__live && g.live && gd.__live.payload_id === g.live.id;
}

/* When a chart's new drawing reaches the screen: the start of the next frame after the task that drew it
 * (benchmarks/app.py reads gd.__vizShown). Repaints inside an animation frame are shown by that frame. */
function markShown(gd) {
  gd.__vizDrawn = performance.now();
  requestAnimationFrame(() => { gd.__vizShown = performance.now(); });
}

/* A full Plotly.react of this chart at these values is drawn or queued: nothing more to draw for them. The
 * record is set when the draw is queued, so a redraw scheduled before it finishes does not repeat it. */
function fullAt(gd, g, values) {
  return Boolean(gd.__full && g.live && gd.__full.id === g.live.id && sameValues(gd.__full.values, values));
}

function fullDraw(gd, values) {
  gd.__full = { id: gd.__live && gd.__live.payload_id, values: values };
  gd.__vizQueue = gd.__vizQueue
    .then(() => { Paint.unswap(gd); return reactFitted(window.Plotly, gd, null, gd.__config); })
    .then(() => { gd.__shown = values; markShown(gd); });
  return gd.__vizQueue;
}

function sameValues(a, b) {
  if (!a || !b) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every(k => a[k] === b[k]);
}

/* Recompute every chart of the group once, on the next animation frame: heatmaps are repainted in place
 * (Paint, well under a frame); what cannot be (bar charts) gets Plotly.react. When the control has
 * rested data.settle_ms, every chart is redrawn by Plotly.react (colour limits, colour bars and click
 * layers follow the new values too), one chart per task, and a new input stops the rest: a key press never
 * waits for more than one chart's redraw (issue 19). */
function scheduleRedraw(g) {
  g.stamp = (g.stamp || 0) + 1;
  if (g.frame) return;
  g.frame = requestAnimationFrame(() => {
    g.frame = 0;
    const values = Object.assign({}, g.values);
    const draws = [];
    let painted = 0;
    for (const gd of g.charts) {
      if (!gd.isConnected) { g.charts.delete(gd); continue; }
      if (!bound(g, gd) || fullAt(gd, g, values)) continue; // e.g. a new sentence's figure, drawn at these values
      Recompute.render(g.live, gd.__live.binding, gd.__figure, values);
      if (gd.__vizDrawn && Paint.repaint(gd, gd.__figure, gd.__live.binding)) {
        painted += 1;
        gd.__full = null; // colour bars and limits are the old ones until the settle's Plotly.react
        gd.__shown = values;
        draws.push(Promise.resolve(gd.__vizDrawn = gd.__vizShown = performance.now())); // shown by this frame
      } else {
        draws.push(fullDraw(gd, values));
      }
    }
    Promise.all(draws).then(() => {
      g.drawn = { values: values, charts: draws.length, painted: painted === draws.length, t: performance.now() };
      window.dispatchEvent(new CustomEvent("disan-live-drawn", { detail: g.drawn }));
    });
    clearTimeout(g.settle);
    const stamp = g.stamp;
    g.settle = setTimeout(() => settle(g, stamp), g.settleMs);
  });
}

function settle(g, stamp) {
  const charts = [...g.charts].filter(gd => gd.isConnected && bound(g, gd) && !fullAt(gd, g, g.values));
  const next = i => {
    if (i >= charts.length || g.stamp !== stamp) return;
    fullDraw(charts[i], Object.assign({}, g.values)).then(() => setTimeout(() => next(i + 1), 0));
  };
  next(0);
}

/* Plotly.react of the chart's figure (`layout`: the figure's own by default) as it fits this chart's width: cell
 * numbers only where they fit (Paint.fitCellText), margins that hold the labels (Paint.fitMargins). */
function reactFitted(Plotly, gd, layout, config) {
  const width = gd.clientWidth || 1000, given = layout || gd.__figure.layout;
  const data = Paint.fitCellText(gd.__figure.data, given, width);
  return Plotly.react(gd, data, Paint.fitMargins(data, given, width), config);
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
  const { el: gd, made } = ownElement(component.parentElement, "viz-chart");
  if (made) gd.__vizQueue = Promise.resolve();
  gd.__vizSelect = data.selectable ? component.setTriggerValue : null;
  return gd;
}

/* The chart already shows exactly this (the same static parts, and a live chart at its group's values). */
function alreadyDrawn(gd, live, config) {
  if (!gd.__live && !live) return gd.__configText === config && gd.__staticKey !== undefined;
  const g = live ? group(live.group) : null;
  return Boolean(live && gd.__live && gd.__live.static === live.static && gd.__live.payload_id === live.payload_id &&
    gd.__configText === config && bound(g, gd) && sameValues(gd.__shown, g.values));
}

/* Draw `figure` ({data, layout}) into gd with Plotly.react; with `live`, the chart joins its live group and is
 * drawn at the group's current values. */
function drawChart(gd, figure, data, live, config) {
  const g = live ? group(live.group) : null;
  gd.__figure = figure;
  gd.__config = Object.assign({ responsive: true }, data.config);
  gd.__configText = config;
  gd.__live = live;
  let values = null;
  if (live) {
    g.charts.add(gd);
    // A figure the server built for an earlier value is redrawn at the control's current one (no jump back).
    if (bound(g, gd)) {
      values = Object.assign({}, g.values);
      Recompute.render(g.live, live.binding, gd.__figure, values);
    }
  }
  gd.__full = { id: live && live.payload_id, values: values };
  gd.__vizQueue = gd.__vizQueue
    .then(() => plotlyReady(data.plotly_url))
    .then(Plotly => { Paint.unswap(gd); return reactFitted(Plotly, gd, null, gd.__config); })
    .then(() => {
      gd.__shown = values;
      markShown(gd);
      if (gd.__vizBound) return;
      gd.__vizBound = true;
      gd.on("plotly_click", ev => {
        // A new sentence of another length painted without a layout yet (Paint.swap): its click layer is
        // the old sentence's until the redraw at rest.
        if (!gd.__vizSelect || !ev.points.length || gd.__swapped) return;
        const p = ev.points[0];
        gd.__vizSelect("selection", { points: [{ x: p.x, y: p.y, curve_number: p.curveNumber }] });
      });
    })
    .catch(err => { gd.textContent = `This chart could not be drawn: ${err.message}`; });
}

/* A new sentence's heatmaps painted straight into the chart Plotly drew last (Paint.swap: the cells into
 * its image, the token labels over its axes; a few milliseconds, no layout), as the static explorer does while
 * typing; Plotly lays the chart out again once the page rests (REST_MS), and until then hover is off where the
 * length changed. False, with nothing changed, where the chart cannot be painted so (another structure, bars). */
function swapFirst(gd, figure, data, config, live) {
  if (!gd._fullLayout || !figure.data.some(t => t.type === "heatmap")) return false;
  if (live) { // drawn at its control's values, as drawChart would; the control of this sentence has mounted first
    const g = group(live.group);
    if (!g.live || g.live.id !== live.payload_id) return false;
    Recompute.render(g.live, live.binding, figure, Object.assign({}, g.values));
  }
  const spec = { data: Paint.fitCellText(figure.data, figure.layout, gd.clientWidth || 1000), layout: figure.layout };
  if (!Paint.swap(gd, spec)) return false;
  gd.__figure = figure;
  markShown(gd);
  clearTimeout(gd.__restTimer);
  gd.__restTimer = setTimeout(() => { if (gd.isConnected && gd.__figure === figure) drawChart(gd, figure, data, live, config); },
                              REST_MS);
  return true;
}

/* role "chart": a figure built by the server (corpus figures: Evidence, Models); a rerun that sends the same
 * figure again draws nothing. */
function mountChart(component, data) {
  const gd = chartElement(component, data);
  const config = JSON.stringify(data.config);
  if (gd.__specText === data.spec && gd.__configText === config) return;
  gd.__staticKey = undefined;
  gd.__specText = data.spec;
  drawChart(gd, JSON.parse(data.spec), data, null, config);
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

/* A click is learnt from plotly_click, which finds the cell from the data: the 2·T² invisible markers of a
 * selectable figure need not be drawn (at T = 64 they were most of the DiSAN pair's redraw, issue 19). */
function hideClickLayer(figure) {
  for (const t of figure.data) if (t.type === "scatter" && t.name === "cells") t.mode = "none";
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

function mountFigure(component, data) {
  const gd = chartElement(component, data);
  if (!data.follow && typingAhead()) { HELD.set(gd, () => mountFigure(component, data)); return; }
  HELD.delete(gd);
  const config = JSON.stringify(data.config);
  if (data.follow) {
    gd.__follow = { figure: data.figure, theme: data.theme, data: data, config: config };
    TYPING.follow.add(gd);
    // The server's figure is of a sentence the box has moved on from (typing went on after it was sent):
    // the page's own drawing of the newer text stays; the views still travel (viewsFor) for later charts.
    if (gd._fullLayout && boxesAhead(data.follow)) { viewsFor(data); return; }
  }
  const staticKey = JSON.stringify([data.view_ids, data.figure, data.params, data.theme]);
  const want = data.live ? Object.assign({}, data.live, { static: staticKey }) : null;
  const fresh = viewsFor(data);
  if (gd.__staticKey === staticKey && alreadyDrawn(gd, want, config)) return; // nothing changed for this chart
  if (data.follow && adoptTyped(gd, data, staticKey, want, config)) return; // the page drew these maps already
  gd.__staticKey = staticKey;
  gd.__typedDrawn = null;
  const token = (gd.__figureToken = (gd.__figureToken || 0) + 1);
  fresh.then(views => {
    if (token !== gd.__figureToken) return; // a newer render of this chart came first
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      gd.__staticKey = undefined;
      gd.textContent = "Loading this sentence's trace…";
      component.setTriggerValue("missing", missing); // the server sends it again
      return;
    }
    gd.__specText = undefined;
    const built = Sections.draw(views, data.figure, data.params, data.theme);
    if (data.selectable) hideClickLayer(built.figure);
    const live = want && built.binding ? Object.assign(want, { binding: built.binding }) : null;
    if (swapFirst(gd, built.figure, data, config, live)) return;
    if (gd._fullLayout && !built.figure.data.some(t => t.type === "heatmap")) {
      // Bars of a new sentence: drawn after the next frame, so that the heatmaps painted in this turn show first.
      requestAnimationFrame(() => setTimeout(() => {
        if (token === gd.__figureToken) drawChart(gd, built.figure, data, live, config);
      }, 0));
      return;
    }
    drawChart(gd, built.figure, data, live, config);
  }).catch(err => {
    gd.__staticKey = undefined;
    gd.textContent = `This chart could not be drawn: ${err.message}`;
  });
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
 * paints nothing (issue 58, item 10: it repainted the same maps about 240 ms later). A live chart joins its
 * group again with the binding of the page's figure. False, with nothing changed, where the drawings differ. */
function adoptTyped(gd, data, staticKey, want, config) {
  const typed = gd.__typedDrawn;
  if (!typed || typed.config !== config) return false;
  if (typed.key !== followKey(data.follow, data.figure, data.params, data.live, data.theme)) return false;
  if (want) {
    const g = group(want.group);
    if (!typed.binding || !g.live || g.live.id !== want.payload_id) return false;
    gd.__live = Object.assign(want, { binding: typed.binding });
    g.charts.add(gd);
    gd.__shown = Object.assign({}, g.values);
    gd.__full = { id: want.payload_id, values: gd.__shown };
  } else {
    gd.__live = null;
  }
  gd.__figureToken = (gd.__figureToken || 0) + 1; // an older render still waiting for its views draws nothing
  gd.__staticKey = staticKey;
  gd.__configText = config;
  gd.__specText = undefined;
  gd.__figure = typed.spec;
  return true;
}

/* role "section": the HTML of a section of the page's own definitions (Sections.sectionBody: the tokens with
 * their vocabulary status), from the chart's trace view; with data.follow it follows typing too. */
function mountSection(component, data) {
  const { el } = ownElement(component.parentElement, "viz-section");
  const key = JSON.stringify([data.view_ids, data.section, data.params]);
  const fresh = viewsFor(data);
  if (data.follow) {
    el.__follow = data;
    TYPING.sections.add(el);
    if (el.__key && boxesAhead(data.follow)) return; // the box holds newer text, drawn by the page itself
  }
  if (el.__key === key) return;
  el.__key = key;
  fresh.then(views => {
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      el.__key = undefined;
      component.setTriggerValue("missing", missing);
      return;
    }
    el.innerHTML = Sections.sectionBody(views, data.section, data.params);
  }).catch(err => { el.__key = undefined; el.textContent = `This section could not be drawn: ${err.message}`; });
}

/* ------------------------------------------------------------ role "pair": the minimal pair's page */

/* The pair page of A and B (PairView.page) drawn into the component's element by Report.show, which
 * redraws in place what a new pair keeps; α is the server's (its slider above, a rerun); with data.swap B's words
 * are buttons whose click tells the server "side:index" (trigger "swap": it offers the nearest words, runs the
 * model and sends the new pair); the page is compact: the app's keys stay Streamlit's (no section keys, no talk
 * mode). The leave-one-out rows are filled once the maps are drawn and data.loo has come. */
function mountPair(component, data) {
  const { el, made } = ownElement(component.parentElement, "viz-pair");
  el.__swap = data.swap ? component.setTriggerValue : null;
  if (made) {
    el.addEventListener("click", (ev) => {
      const button = ev.target.closest && ev.target.closest("button[data-swap]");
      if (button && el.__swap) el.__swap("swap", button.dataset.swap);
    });
  }
  const key = JSON.stringify([data.view_ids, data.theme, !!data.swap]);
  const fresh = viewsFor(data);
  el.__loo = data.loo;
  if (el.__key === key) {
    if (el.__drawn === key) fillPairLoo(el);
    return;
  }
  el.__key = key;
  el.__drawn = null;
  Promise.all([fresh, plotlyReady(data.plotly_url)]).then(([views]) => {
    if (el.__key !== key) return null; // a newer pair came first
    const missing = data.view_ids.find((id, i) => !views[i]);
    if (missing) {
      el.__key = undefined;
      component.setTriggerValue("missing", missing); // the server sends it again
      return null;
    }
    const page = PairView.page(views[0], views[1], { theme: data.theme, alphaControl: false, swap: !!data.swap });
    page.data.compact = true;
    return Report.show(el, page, { hash: false }).then(() => {
      if (el.__key !== key) return;
      el.__drawn = key;
      fillPairLoo(el);
    });
  }).catch(err => {
    el.__key = undefined;
    Report.showError(el, err);
  });
}

function fillPairLoo(el) {
  if (!el.__loo) return;
  PairView.fillLeaveOneOut(el, "a", el.__loo.a);
  PairView.fillLeaveOneOut(el, "b", el.__loo.b);
  el.dataset.loo = el.__key;
}

/* ------------------------------------------------------------ role "typing": the views follow the keys */

/* The sentence box (the sidebar's) drives the model in the page (site.js, in the static explorer's bundle loaded
 * from the model's explorer folder: viz_app/shell/explorer.py) and every chart with data.follow redraws from the
 * trace view it computes, with the chart's own figure and parameters (a live chart at its control's current value):
 * heatmaps by Paint.swap (no layout, a few ms), the rest by Plotly.react one per task, and every chart by
 * Plotly.react once typing rests (REST_MS). One model run is in flight at a time; the newest text waits. The model
 * runs at the α control's current value where the page has one. The server learns the text data.send_after_ms after
 * the last key, or on Enter once the page has drawn that text (submitTyped). A view without the typing element
 * leaves the box to Streamlit. */
const TYPING = (window.__disanTyping = window.__disanTyping ||
  { follow: new Set(), sections: new Set(), base: null, ready: null, running: false, pending: null, typed: null, stamp: 0, shown: null });
const REST_MS = 300;
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
  const here = g && Number.isFinite(g.values.alpha) && [...g.charts].some(gd => gd.isConnected);
  return alpha !== null && alpha !== undefined && here ? g.values.alpha : alpha;
}

/* The chart's figure for the typed trace view of `input` ({text, hypothesis, alpha}), with its live binding and
 * its key (followKey): its own figure and parameters, a live chart's at its control's current values; null where
 * this sentence cannot have it (a chosen token beyond its length, DiSAN's per-feature P not in the page's output):
 * the chart keeps its drawing until the server's rerun. */
function typedFigure(gd, tv, input) {
  const f = gd.__follow, live = f.data.live, g = live ? GROUPS[live.group] : null;
  const params = Object.assign({}, f.data.params, g ? g.values : {});
  // A chart of several views of this sentence names their masks (Compare): the page derives them from the
  // logits before the mask (recompute.js remask; null where the view lacks them).
  const views = (f.data.follow.masks || ["default"]).map(m => (m === "default" ? tv : Recompute.remask(tv, m)));
  if (views.some(v => !v)) return null;
  let built;
  try { built = Sections.draw(views, f.figure, params, f.theme); } catch (err) { return null; }
  if (f.data.selectable) hideClickLayer(built.figure);
  const sentence = { text: input.text, hypothesis: input.hypothesis, masks: f.data.follow.masks,
                     model: TYPING.data.model, alpha: input.alpha };
  return { spec: built.figure, binding: built.binding || null, config: f.config,
           key: followKey(sentence, f.figure, f.data.params, live, f.theme) };
}

function drawTyped(tv, input) {
  TYPING.typed = input;
  const stamp = input.stamp, later = [];
  for (const gd of TYPING.follow) {
    if (!gd.isConnected) { TYPING.follow.delete(gd); continue; }
    const typed = typedFigure(gd, tv, input);
    if (!typed) continue;
    const spec = typed.spec;
    gd.__typed = spec;
    gd.__typedDrawn = typed; // what the chart shows now, until the server's rerun (adoptTyped) or another sentence
    gd.__staticKey = undefined; // the chart no longer shows the server's figure
    // Its control's payload is the server's sentence: the chart leaves the group until the server's rerun
    // brings this sentence's payload (a move of the control meanwhile must not paint the old sentence here).
    gd.__live = null;
    const painted = gd._fullLayout && Paint.swap(gd, {
      data: Paint.fitCellText(spec.data, spec.layout, gd.clientWidth || 1000), layout: spec.layout });
    if (painted) gd.__vizDrawn = performance.now();
    else later.push(gd);
  }
  for (const el of TYPING.sections) {
    if (!el.isConnected) { TYPING.sections.delete(el); continue; }
    el.innerHTML = Sections.sectionBody([tv], el.__follow.section, el.__follow.params);
  }
  typedShown(stamp);
  // Any chart the swap cannot paint (a line, a table-like chart) one per task, unless a newer sentence came.
  later.reduce((done, gd) => done.then(() => new Promise(r => setTimeout(r, 0))).then(() => {
    if (TYPING.typed.stamp !== stamp || !gd.isConnected) return null;
    return fullTyped(gd);
  }), Promise.resolve());
  clearTimeout(TYPING.restTimer);
  TYPING.restTimer = setTimeout(() => {
    for (const gd of TYPING.follow) if (gd.isConnected && TYPING.typed.stamp === stamp) fullTyped(gd);
  }, REST_MS);
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

function fullTyped(gd) {
  const spec = gd.__typed, f = gd.__follow;
  if (!spec) return null;
  gd.__typed = null;
  gd.__figure = spec;
  gd.__vizQueue = gd.__vizQueue
    .then(() => plotlyReady(f.data.plotly_url))
    .then(Plotly => { Paint.unswap(gd); return reactFitted(Plotly, gd, spec.layout, JSON.parse(f.config)); })
    .then(() => markShown(gd))
    .catch(() => null);
  return gd.__vizQueue;
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
    for (const [gd, draw] of held) if (gd.isConnected) draw();
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

function mountTyping(component, data) {
  const { el: line } = ownElement(component.parentElement, "viz-typing");
  TYPING.data = data;
  TYPING.line = line;
  TYPING.send = component.setStateValue;
  TYPING.sent = { text: data.text, hypothesis: data.hypothesis };
  line.textContent = "The maps follow typing: the model runs in this page. Enter submits.";
  startModel(data).catch(err => { line.textContent = `Typing does not redraw the maps here (${err.message}); Ctrl+Enter submits.`; });
  listenToBoxes();
}

function show(data, value) {
  return data.param === "alpha" ? Recompute.formatValue(value) : String(value);
}

function mountControl(component, data) {
  const { parentElement, setStateValue } = component;
  let box = parentElement.querySelector(".viz-live");
  if (!box) {
    box = document.createElement("div");
    box.className = "viz-live";
    box.innerHTML = '<label><span class="viz-live-label"></span> <output></output></label>' +
      '<input type="range"><div class="viz-live-help"></div>';
    parentElement.appendChild(box);
    const input = box.querySelector("input");
    input.addEventListener("input", () => {
      const g = group(box.__data.group), value = Number(input.value);
      g.values[box.__data.param] = value;
      box.querySelector("output").textContent = show(box.__data, value);
      window.__disanLiveInput = { group: box.__data.group, value: value, t: performance.now() };
      scheduleRedraw(g);
      clearTimeout(box.__timer);
      box.__timer = setTimeout(() => {
        if (value === box.__server) return;
        box.__sent = value;
        box.__send("value", value);
      }, box.__data.send_after_ms);
    });
  }
  const input = box.querySelector("input");
  box.__data = data;
  box.__send = setStateValue;
  const id = `viz-live-${data.group}`;
  input.id = id;
  input.min = data.min; input.max = data.max; input.step = data.step;
  input.setAttribute("aria-label", data.label);
  box.querySelector("label").htmlFor = id;
  box.querySelector(".viz-live-label").textContent = data.label;
  box.querySelector(".viz-live-help").textContent = data.help || "";
  // Adopt the server's value unless it is the echo of one this control sent (the user may have moved on).
  if (box.__server !== data.value) {
    box.__server = data.value;
    if (data.value !== box.__sent) input.value = data.value;
  }
  box.querySelector("output").textContent = show(data, Number(input.value));
  const g = group(data.group), value = Number(input.value);
  g.settleMs = data.settle_ms;
  const changed = !g.live || g.live.id !== data.payload.id || g.values[data.param] !== value;
  if (!g.live || g.live.id !== data.payload.id) g.live = Recompute.prepare(data.payload);
  g.values = Object.assign({}, data.values, { [data.param]: value });
  if (changed) plotlyReady(data.plotly_url).then(() => scheduleRedraw(g));
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
  else if (data.role === "figure") mountFigure(component, data);
  else mountChart(component, data);
}
