/* The app's chart component (viz_app/shell/chart.py): an ES module Streamlit calls on every render, by data.role:
 *   "figure":  a figure of the page's own definitions (Sections.draw) of the trace views data.view_ids, drawn by
 *              figure_host.js as the report draws it. A view travels once per session (data.views) and is kept
 *              here by id; a chart lacking one asks the server again ("missing"). With data.live the chart joins
 *              a live group and is drawn at its values. A rerun naming the same views, figure, params and theme
 *              draws nothing. A clicked (or Enter-selected) row of a selectable figure goes to the server.
 *   "chart":   a figure the server built (corpus figures: Evidence, Models), drawn with Plotly.react.
 *   "section": a section's HTML (Sections.sectionBody).
 *   "pair":    the Minimal pair view (PairView.page of views A, B) drawn by Report.show; data.loo (the server's
 *              leave-one-out) fills its rows, on the same drawing when only it changed.
 *   "control": an <input type=range> owning a live group: redraws the group's charts on each input (at most once
 *              a frame) and sends the value data.send_after_ms after the last move.
 *   "typing":  the sentence box drives the model in the page; every chart with data.follow redraws from it.
 * Every figure carries figure_host.js's test contract (data-figure, data-drawn). */
import { fromBase64 } from "./bytes.js";
import { keepView, viewsOf } from "./chart_views.js";
import { drawIn, hostIn } from "./figure_host.js";
import * as Figures from "./figures.js";
import { loadScript } from "./load_script.js";
import * as PairView from "./pair_view.js";
import { plotlyReady } from "./plotly_ready.js";
import * as Recompute from "./recompute.js";
import * as Report from "./report.js";
import * as Sections from "./sections.js";
import { decode } from "./trace_view.js";
import "./view_figures.js";

const GROUPS = (window.__disanLive = window.__disanLive || {});

/** @returns {{live: any, values: any, charts: Set<Element>, frame: number, drawn: any}} */
function group(name) {
  if (!GROUPS[name]) GROUPS[name] = { live: null, values: {}, charts: new Set(), frame: 0, drawn: null };
  return GROUPS[name];
}

/* What the page keeps per element of the component, made by `init` on its first render. */
const STATES = new WeakMap();

function stateIn(el, init) {
  if (!STATES.has(el)) STATES.set(el, init());
  return STATES.get(el);
}

/* Per chart element (its figure host, with the spec it shows, is figure_host.js's hostIn): the key of the server's
 * figure it shows (undefined: another), its live binding and the values drawn at, the selection callback, what it
 * follows of typing, what the page drew, its newest render (drawViews). */
const stateOf = el => stateIn(el, () => ({ key: undefined, live: null, shown: null, select: null, follow: null,
                                           typed: null, token: 0, specText: null }));

function bound(g, s) {
  return Boolean(s.live && g.live && s.live.payload_id === g.live.id);
}

function sameValues(a, b) {
  if (!a || !b) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every(k => a[k] === b[k]);
}

/* Recompute every chart of the group once, on the next animation frame (its host repaints what changed). */
function scheduleRedraw(g) {
  if (g.frame) return;
  g.frame = requestAnimationFrame(() => {
    g.frame = 0;
    const values = Object.assign({}, g.values);
    let charts = 0;
    for (const el of g.charts) {
      if (!el.isConnected) { g.charts.delete(el); continue; }
      const s = stateOf(el), host = hostIn(el);
      if (!bound(g, s) || !host || sameValues(s.shown, values)) continue; // e.g. a chart drawn at these values
      host.update(Recompute.render(s.live.binding, host.spec, values));
      s.shown = values;
      charts += 1;
    }
    g.drawn = { values: values, charts: charts, t: performance.now() }; // tests and bench app read it
  });
}

/* The component's one element of class `className` (made on its first render; `made` tells), kept between reruns. */
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

/* A copy of `spec` this chart may change (Recompute.render writes into its panels; Sections shares its figures). */
function own(spec) {
  return Object.assign({}, spec, { panels: spec.panels.map(p => Object.assign({}, p)) });
}

/* The host's options for a chart's data: its provenance, and talk mode (a clicked row's top cell outlined). */
const looks = data => ({ provenance: data.provenance || null, theme: data.theme === "presentation" ? "presentation" : null });

function problem(el, s, text) {
  s.key = undefined;
  el.textContent = text;
}

/* The page's figure of `views` for the server's data; with data.live, the chart joins its group and is drawn at
 * the group's current values (not at the earlier value the server built it for: no jump back). */
function drawBuilt(el, s, views, data, want) {
  const built = Sections.draw(views, data.figure, data.params, data.theme), spec = own(built.figure);
  const live = want && built.binding ? Object.assign(want, { binding: built.binding }) : null;
  let values = null;
  if (live) {
    const g = group(live.group);
    g.charts.add(el);
    if (g.live && g.live.id === live.payload_id) {
      values = Object.assign({}, g.values);
      Recompute.render(live.binding, spec, values);
    }
  }
  s.live = live;
  s.shown = values;
  drawIn(el, spec, looks(data));
}

/* The chart already shows exactly this (the same figure, and a live chart at its group's values). */
function alreadyDrawn(el, s, live) {
  if (!hostIn(el)) return false;
  if (!s.live && !live) return true;
  const g = live ? group(live.group) : null;
  return Boolean(live && s.live && s.live.static === live.static && s.live.payload_id === live.payload_id &&
    bound(g, s) && sameValues(s.shown, g.values));
}

/* role "chart": the server's corpus figure, drawn by plotly.js; the same figure again draws nothing. */
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

/* The trace views the chart carries (chart.py sends each once per session), unpacked and kept (chart_views.js). */
function keepCarried(data) {
  if (!data.views) return;
  if (data.context) Figures.configure(data.context);
  for (const [id, v] of Object.entries(data.views)) keepView(id, decode(JSON.parse(v.view), fromBase64(v.arrays)));
}

/* Draw `key` in element `el` (state `s`: its key and newest render's token) from the trace views data.view_ids:
 * `draw(views, wanted)` once they are here, unless a newer render came first (wanted() is then false). A missing
 * view is asked of the server (chart_views.js viewsOf; `how.loading()` before the first ask). Where one never came
 * (unless `how.lost` is false: the element stays as it is) or the drawing failed, `how.fail(message)` says why in
 * one line and the next render draws again. */
function drawViews(component, data, el, s, key, draw, how) {
  const token = ++s.token, wanted = () => token === s.token;
  const fail = message => { s.key = undefined; how.fail(message); };
  s.key = key;
  viewsOf(data.view_ids, { ask: id => component.setTriggerValue("missing", id), wanted, loading: how.loading || (() => {}) })
    .then(views => {
      if (!wanted()) return null;
      if (!views) return how.lost === false ? null : fail("its trace views did not reach the page; rerun the app (R)");
      s.key = key; // `how.loading` may have cleared it
      return draw(views, wanted);
    })
    .catch(err => { if (wanted()) fail(err.message); });
}

/* Charts that do not follow typing, brought while the box holds newer text than the server knows (e.g. the
 * Attribution view's bars of the sentence left): drawing them (68-85 ms at T = 64) would hold the new sentence's
 * maps. Each waits here: drawn if the box comes back to the server's text, dropped once the server learns more. */
const HELD = new Map();

function typingAhead() {
  return typingHere() && TYPING.data.draws && Boolean(TYPING.sent) && boxesAhead(TYPING.sent);
}

/* role "figure": the page's figure `data.figure` of the trace views `data.view_ids`. */
function mountPageFigure(component, data) {
  const el = chartElement(component, data), s = stateOf(el);
  keepCarried(data); // also by a chart held or left as it is: the server sends a view once
  if (!data.follow && typingAhead()) { HELD.set(el, () => mountPageFigure(component, data)); return; }
  HELD.delete(el);
  if (data.follow) {
    s.follow = data;
    TYPING.follow.add(el);
    // the server's figure is of a sentence the box has left: the page's drawing stays
    if (hostIn(el) && boxesAhead(data.follow)) return;
  }
  const key = JSON.stringify([data.view_ids, data.figure, data.params, data.theme, data.provenance || null]);
  const want = data.live ? Object.assign({}, data.live, { static: key }) : null;
  if (s.key === key && alreadyDrawn(el, s, want)) return; // nothing changed for this chart
  const adopted = Boolean(data.follow && adoptTyped(el, s, data, want)), kept = s.typed; // the page drew it already
  if (!adopted) s.typed = null;
  drawViews(component, data, el, s, key, views => {
    // the page's drawing is from its own model, which reads GloVe words beyond the export's as <unk>: where the
    // server's read a token otherwise (vocabularyKey), the numbers differ beyond the export's rounding: redrawn
    if (adopted && vocabularyKey(views[0]) === kept.vocabulary) return;
    s.typed = null;
    drawBuilt(el, s, views, data, want);
  }, { fail: message => problem(el, s, `This chart could not be drawn: ${message}`), lost: !adopted,
       loading: adopted ? null : () => problem(el, s, "Loading this sentence's trace…") });
}

/* A trace view's tokens with their vocabulary status: the page's run and the server's of the same text agree on it
 * exactly when they embedded the same rows (numbers equal up to the export's rounding). */
function vocabularyKey(tv) {
  const side = (sv) => (sv ? [Array.from(sv.tokens), Array.from(sv.status)] : null);
  return JSON.stringify([side(tv.premise), side(tv.hypothesis)]);
}

/* What a chart that follows typing draws, as one key (the sentence {text, hypothesis, masks, model, alpha}, figure,
 * parameters at the group's values, theme): the page's drawing of a text and the server's figure of it share it. */
function followKey(follow, data) {
  const g = data.live ? GROUPS[data.live.group] : null;
  // a number as the page's run and the server's agree on it; "several" (export.py: panels at other α) matches none
  const alpha = typeof follow.alpha === "number" ? follow.alpha.toPrecision(9)
    : follow.alpha === "several" ? "several" : null;
  return JSON.stringify([follow.model, alpha, follow.text, follow.hypothesis || "", follow.masks || ["default"],
                         data.figure, Object.assign({}, data.params, g ? g.values : {}), data.theme]);
}

/* The server's rerun brings the sentence the page drew from its own run: the chart keeps its drawing (and takes
 * the server's key, drawViews), so the rerun paints nothing (issue 58, item 10); a live chart rejoins its group.
 * False, with nothing changed, where the drawings differ. */
function adoptTyped(el, s, data, want) {
  const typed = s.typed;
  if (!typed || !hostIn(el) || typed.key !== followKey(data.follow, data)) return false;
  if (typed.look !== JSON.stringify(looks(data))) return false;
  if (want) {
    const g = group(want.group);
    if (!typed.binding || !g.live || g.live.id !== want.payload_id) return false;
    s.live = Object.assign(want, { binding: typed.binding });
    g.charts.add(el);
    s.shown = Object.assign({}, g.values);
  } else {
    s.live = null;
  }
  return true;
}

/* role "section": Sections.sectionBody of the chart's trace view; with data.follow it follows typing too. */

function mountSection(component, data) {
  const { el } = ownElement(component.parentElement, "viz-section");
  const s = stateIn(el, () => ({ key: undefined, token: 0, section: null, params: null }));
  const key = JSON.stringify([data.view_ids, data.section, data.params]);
  keepCarried(data);
  s.section = data.section;
  s.params = data.params;
  if (data.follow) {
    TYPING.sections.add(el);
    if (s.key && boxesAhead(data.follow)) return; // the box holds newer text, drawn by the page itself
  }
  if (s.key === key) return;
  drawViews(component, data, el, s, key, views => { el.innerHTML = Sections.sectionBody(views, data.section, data.params); },
            { fail: message => { el.textContent = `This section could not be drawn: ${message}`; } });
}

/* role "pair": PairView.page of A and B drawn by Report.show (compact: the app's keys stay Streamlit's); α is the
 * server's; with data.swap B's words are buttons telling the server "side:index" (trigger "swap"). The
 * leave-one-out rows are filled once the maps are drawn and data.loo has come. */

function mountPair(component, data) {
  const { el, made } = ownElement(component.parentElement, "viz-pair");
  const p = stateIn(el, () => ({ swap: null, key: undefined, token: 0, drawn: null, loo: null }));
  p.swap = data.swap ? component.setTriggerValue : null;
  if (made) {
    el.addEventListener("click", (ev) => {
      const button = ev.target instanceof Element && ev.target.closest("button[data-swap]");
      if (button instanceof HTMLElement && p.swap) p.swap("swap", button.dataset.swap);
    });
  }
  const key = JSON.stringify([data.view_ids, data.theme, !!data.swap, data.provenance || null]);
  keepCarried(data);
  // the rows of this pair stay once they came: a message without them may be rendered after one with them (seen
  // under load: the first rerun's, which carried the views, after the rerun that brought the rows)
  if (data.loo || p.key !== key) p.loo = data.loo;
  if (p.key === key) {
    if (p.drawn === key && p.loo) Report.fillLeaveOneOut(el, p.loo, key);
    return;
  }
  p.drawn = null;
  drawViews(component, data, el, p, key, (views, wanted) => {
    const page = PairView.page(views[0], views[1], { theme: data.theme, alphaControl: false, swap: !!data.swap });
    page.data.compact = true;
    return Report.show(el, page, { hash: false, provenance: data.provenance || null }).then(() => {
      if (!wanted()) return; // a newer pair came first
      p.drawn = key;
      if (p.loo) Report.fillLeaveOneOut(el, p.loo, key);
    });
  }, { fail: message => Report.showError(el, message) });
}

/* role "typing": the sentence box drives the model in the page (the explorer folder's site.js,
 * viz_app/shell/explorer.py) and every chart with data.follow redraws from its trace view, at the chart's own
 * figure and parameters, in the task that has the view. One run at a time; the newest text waits; the α control's
 * value where the page has one. The server learns the text data.send_after_ms after the last key, or on Enter once
 * the page drew it (submitTyped). Every page has the element; where no chart follows it only sends (data.draws). */
const TYPING = (window.__disanTyping = window.__disanTyping ||
  { follow: new Set(), sections: new Set(), base: null, ready: null, running: false, pending: null, typed: null, stamp: 0, shown: null,
    pressedAt: -Infinity });

const site = () => window.Disan.Site; // the explorer folder's bundle last loaded

function startModel(data) {
  if (TYPING.base === data.base) return TYPING.ready;
  TYPING.base = data.base;
  const assets = data.base + "assets/";
  TYPING.ready = loadScript(assets + "ort-runtime.js")
    .then(() => loadScript(assets + "site-data.js"))
    .then(() => loadScript(assets + "site.js"))
    .then(() => { site().init(data.base); return site().traceOf(data.model, data.text, data.hypothesis, data.alpha); })
    .then(() => true);
  TYPING.ready.catch(err => { TYPING.problem = String(err && err.message || err); });
  return TYPING.ready;
}

/* The sentence box holds other text than `shown` ({text, hypothesis}: what a server figure was drawn for). */
function boxesAhead(shown) {
  const boxes = boxText(null);
  return Boolean(TYPING.typed && ((boxes.text !== null && boxes.text !== shown.text) ||
                                  (boxes.hypothesis !== null && boxes.hypothesis !== shown.hypothesis)));
}

/* The box of widget `key` (a text area or a text input): its selector, and the box on the page or null. */
const boxSelector = key => `.st-key-${key} textarea, .st-key-${key} input`;
const boxOf = key => /** @type {HTMLInputElement | null} */ (document.querySelector(boxSelector(key)));

/* The view's own boxes whose text the element sends: {widget key: the server's text} (shell/follow.py hold). */
const heldBoxes = () => (TYPING.data ? TYPING.data.boxes : {});

/* What the boxes hold now: {text, hypothesis}, `none` for a sidebar box the page lacks, and boxes: the text of each
 * held box (the server's where the page lacks it). */
function boxText(none = "") {
  const text = boxOf("sentence"), hypothesis = boxOf("hypothesis");
  const boxes = Object.fromEntries(Object.entries(heldBoxes()).map(([key, server]) => [key, boxOf(key)?.value ?? server]));
  return { text: text ? text.value : none, hypothesis: hypothesis ? hypothesis.value : none, boxes: boxes };
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
      else if (TYPING.submit && !same(TYPING.typed, TYPING.submit)) submitNow();
    });
}

/* The α the page's model runs at: a live α control's on this page, else the server's (null for DiSAN). */
function typedAlpha() {
  const g = GROUPS.alpha, alpha = TYPING.data.alpha;
  const here = g && Number.isFinite(g.values.alpha) && [...g.charts].some(el => el.isConnected);
  return alpha !== null && alpha !== undefined && here ? g.values.alpha : alpha;
}

/* The chart's figure of the typed trace view of `input` with its binding and key (followKey); null where this
 * sentence cannot have it (a chosen token beyond its length): the chart keeps its drawing until the rerun. */
function typedFigure(el, tv, input) {
  const f = stateOf(el).follow, g = f.live ? GROUPS[f.live.group] : null;
  const params = Object.assign({}, f.params, g ? g.values : {});
  // Compare's views under other masks (recompute.js remask; null where the view lacks the logits)
  const views = (f.follow.masks || ["default"]).map(m => (m === "default" ? tv : Recompute.remask(tv, m)));
  if (views.some(v => !v)) return null;
  let built;
  try { built = Sections.draw(views, f.figure, params, f.theme); } catch (err) { return null; }
  const sentence = { text: input.text, hypothesis: input.hypothesis, masks: f.follow.masks,
                     model: TYPING.data.model, alpha: input.alpha };
  return { spec: own(built.figure), binding: built.binding || null, vocabulary: vocabularyKey(tv),
           look: JSON.stringify(looks(f)), key: followKey(sentence, f) };
}

/* The typed sentence's figures, every following chart in this task, then its sections. */
function drawTyped(tv, input) {
  TYPING.typed = input;
  // words the page's model reads as <unk> (it holds only the export's GloVe words): the server's rerun may redraw
  const unknown = [tv.premise, tv.hypothesis].filter(Boolean)
    .flatMap(sv => Array.from(sv.tokens).filter((_, i) => sv.status[i] === "unknown"));
  TYPING.line.textContent = unknown.length // a run starts from a key in the typing element's page (onTyped)
    ? `The maps follow typing: the model runs in this page, which reads ${[...new Set(unknown)].slice(0, 3)
      .map(w => `"${w}"`).join(", ")}${unknown.length > 3 ? " …" : ""} as unknown; the server's model may know ` +
      "it and redraws once typing rests. Enter submits."
    : TYPING_LINE;
  for (const el of TYPING.follow) {
    if (!el.isConnected) { TYPING.follow.delete(el); continue; }
    const s = stateOf(el), typed = typedFigure(el, tv, input);
    if (!typed) continue;
    s.typed = typed; // what the chart shows now, until the server's rerun (adoptTyped) or another sentence
    s.key = undefined; // the chart no longer shows the server's figure
    // the group's key names the server's sentence: the chart leaves it until the rerun brings this one's
    s.live = null;
    s.shown = null;
    drawIn(el, typed.spec, looks(s.follow));
  }
  for (const el of TYPING.sections) {
    if (!el.isConnected) { TYPING.sections.delete(el); continue; }
    const s = STATES.get(el);
    el.innerHTML = Sections.sectionBody([tv], s.section, s.params);
  }
  // the frame that shows the typed maps of `input` (tests and bench app read TYPING.shown and the event)
  requestAnimationFrame(() => {
    TYPING.shown = { stamp: input.stamp, t: performance.now(), input: input.t };
    window.dispatchEvent(new CustomEvent("disan-typed-shown", { detail: TYPING.shown }));
    // after this frame is painted
    if (same(TYPING.typed, TYPING.submit)) setTimeout(submitNow, 0);
  });
}

/* The typing element is on this page (the app mounts one on every page: shell/follow.py keep_following). */
function typingHere() {
  return Boolean(TYPING.line && TYPING.line.isConnected);
}

/* A key in one of the boxes; `sentence`: in the sidebar's (the page's model runs on it; not for a view's own box). */
function onTyped(sentence) {
  if (!typingHere()) return;
  if (HELD.size && !typingAhead()) { // back to the server's text: its charts are current again
    const held = [...HELD];
    HELD.clear();
    for (const [el, draw] of held) if (el.isConnected) draw();
  }
  const input = Object.assign(boxText(), { stamp: ++TYPING.stamp, t: performance.now() });
  if (TYPING.data.draws && sentence) runTyped(input);
  clearTimeout(TYPING.sendTimer);
  TYPING.sendTimer = setTimeout(() => sendTyped(input), TYPING.data.send_after_ms);
}

/* A click anywhere but the boxes may open another view: its rerun carries the boxes' held text there, and a send
 * made before that rerun has started names the page the click left. Streamlit keeps the later request's page, so
 * the click was lost (docs/app.md). A send waits this long after a pointer press; when the click opened a view the
 * element is mounted there with the text (TYPING.sent) and the send has nothing left to say. */
const CLICK_GRACE_MS = 1000;

function sendTyped(input) {
  clearTimeout(TYPING.sendTimer);
  const wait = TYPING.pressedAt + CLICK_GRACE_MS - performance.now();
  if (wait > 0) {
    TYPING.sendTimer = setTimeout(() => sendTyped(input), wait);
    return;
  }
  if (same(TYPING.sent, input)) return;
  HELD.clear(); // of the sentence the server is leaving
  TYPING.sent = { text: input.text, hypothesis: input.hypothesis, boxes: input.boxes };
  TYPING.send("typed", TYPING.sent);
}

const SIDEBAR = boxSelector("sentence") + ", " + boxSelector("hypothesis");

/* The sidebar's boxes and the held ones. */
const isBox = target => target instanceof Element &&
  target.matches([SIDEBAR, ...Object.keys(heldBoxes()).map(boxSelector)].join(", "));

let listening = false;

/* The boxes' keys, listened to on the document once (Streamlit may replace a box's element on a rerun). */
function listenToBoxes() {
  if (listening) return;
  listening = true;
  document.addEventListener("input", ev => {
    if (isBox(ev.target)) onTyped(/** @type {Element} */ (ev.target).matches(SIDEBAR));
  }, true);
  document.addEventListener("pointerdown", ev => {
    if (!isBox(ev.target)) TYPING.pressedAt = performance.now();
  }, true);
  document.addEventListener("keydown", ev => {
    // Enter and Ctrl+Enter submit (Shift+Enter keeps a new line in the sentence box): while this element is on
    // the page the boxes' own commits do not rerun (shell/follow.py), so their text is sent from here.
    if (!isBox(ev.target)) return;
    if (ev.key !== "Enter" || ev.shiftKey || ev.isComposing || !typingHere()) return;
    ev.preventDefault();
    submitTyped(boxText());
  }, true);
}

/* Enter: the server learns `input` once the page has drawn it (the task after that frame), at once where the page
 * cannot, at the latest SUBMIT_WAIT_MS later: its rerun (30-120 ms of CPU at T = 64) would share the cores. */
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

/* Two sentences ({text, hypothesis, boxes}: typed, sent, drawn) are the same text. */
function same(a, b) {
  return Boolean(a && b && a.text === b.text && a.hypothesis === b.hypothesis &&
                 JSON.stringify(a.boxes || {}) === JSON.stringify(b.boxes || {}));
}

const TYPING_LINE = "The maps follow typing: the model runs in this page. Enter submits.";
/* Where no chart follows (the view drew none: shell/follow.py keep_following), the element only sends the text. */
const SEND_LINE = "Enter submits the sentence; it is also sent once typing rests.";

function mountTyping(component, data) {
  const { el: line } = ownElement(component.parentElement, "viz-typing");
  TYPING.data = data;
  TYPING.line = line;
  TYPING.send = component.setStateValue;
  TYPING.sent = { text: data.text, hypothesis: data.hypothesis, boxes: data.boxes };
  line.textContent = data.draws ? TYPING_LINE : SEND_LINE;
  if (data.draws) startModel(data).catch(err => { line.textContent = `Typing does not redraw the maps here (${err.message}); Enter submits.`; });
  listenToBoxes();
}

/* The control's box → {data, send, timer, server, sent}. */
const controlOf = box => stateIn(box, () => ({ data: null, send: null, timer: 0, server: undefined, sent: undefined }));

/* The control's value (returned): shown in its <output> and set in its group. */
function showValue(box, data) {
  const value = Number(box.querySelector("input").value);
  box.querySelector("output").textContent = data.param === "alpha" ? Recompute.formatValue(value) : String(value);
  group(data.group).values[data.param] = value;
  return value;
}

function mountControl(component, data) {
  const { el: box, made } = ownElement(component.parentElement, "viz-live"), c = controlOf(box);
  if (made) {
    box.innerHTML = '<label><span class="viz-live-label"></span> <output></output></label>' +
      '<input type="range"><div class="viz-live-help"></div>';
    box.querySelector("input").addEventListener("input", () => {
      const value = showValue(box, c.data);
      window.__disanLiveInput = { group: c.data.group, value: value, t: performance.now() };
      scheduleRedraw(group(c.data.group));
      clearTimeout(c.timer);
      c.timer = setTimeout(() => {
        if (value === c.server) return;
        c.sent = value;
        c.send("value", value);
      }, c.data.send_after_ms);
    });
  }
  const input = box.querySelector("input");
  c.data = data;
  c.send = component.setStateValue;
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
  const g = group(data.group), fresh = !g.live || g.live.id !== data.payload.id, before = g.values[data.param];
  if (fresh) g.live = { id: data.payload.id }; // the sentence the group's charts follow (viz_app/draw/live.py)
  if (showValue(box, data) !== before || fresh) scheduleRedraw(g);
}

/* The fields chart.py sent as JSON text (data.json names them): nested objects made Streamlit import pandas. */
function unwire(raw) {
  const data = Object.assign({}, raw);
  for (const name of (raw.json || "").split(",").filter(Boolean)) data[name] = JSON.parse(raw[name]);
  return data;
}

const ROLES = { control: mountControl, typing: mountTyping, section: mountSection, pair: mountPair, figure: mountPageFigure };

export default function (component) {
  const data = unwire(component.data);
  (ROLES[data.role] || mountChart)(component, data);
}
