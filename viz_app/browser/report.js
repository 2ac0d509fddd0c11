/* The report page: the report file and notebook view (`boot`), the static explorer and the app's minimal pair
 * (`show`). Draws every figure through figure_host.js's drawIn, redraws the live ones when α or feature k moves
 * (recompute.js through each figure's binding, sections.js), and moves between sections from the keyboard.
 * A new page keeps the DOM of every section whose HTML is unchanged and every figure element with its host
 * (a figure whose spec draws what it shows repaints nothing). Talk mode and the control values are kept;
 * controls are delegated from `root` once, keys and the talk button from the document once. No network. */
import { inflate } from "./bytes.js";
import { drawIn, hostIn } from "./figure_host.js";
import { sameSpec } from "./figure_spec.js";
import { nextTask } from "./util.js";
import * as PairView from "./pair_view.js";
import * as Recompute from "./recompute.js";
import * as Sections from "./sections.js";
import * as Figures from "./figures.js";
import { decode } from "./trace_view.js";

/* Typing has rested when no new sentence came for this long (longer than the gap between keys at 5 a second). */
const REST_MS = 300;
const KEYS = { j: 1, n: 1, ArrowRight: 1, PageDown: 1, k: -1, p: -1, ArrowLeft: -1, PageUp: -1,
               Home: "first", End: "last" };

const docStates = new WeakMap(), views = new WeakMap(), partsOf = new WeakMap();

/* The document's: talk mode, the view the keys move, keys bound or not. */
function docState(doc) {
  if (!docStates.has(doc)) docStates.set(doc, { talk: false, keys: false, hashChecked: false, current: null, views: [], linked: null });
  return docStates.get(doc);
}

/* One drawn report in `root`: its data (with the live figures' bindings: sections.js pageData), figure elements,
 * control values, queued drawings. */
function view(root) {
  if (views.has(root)) return views.get(root);
  const doc = root.ownerDocument;
  const v = { root, doc, data: null, plots: [], inputs: [], values: { alpha: null, feature: 0 },
              generation: 0, restTimer: null, observer: null, seer: null, seen: new WeakSet(), header: null,
              resized: null, held: false, hidden: false, provenance: null,
              busy: Promise.resolve(), queued: false, next: null, nextQueued: false, drawn: 0, hash: true };
  views.set(root, v);
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
  return v;
}

/* Run `job` after every drawing queued before it, whether or not that one failed. */
function enqueue(v, job) {
  v.busy = v.busy.catch(() => {}).then(job);
  return v.busy;
}

/* The page's `key` controls (alpha | feature) show the value v's figures are drawn at (feature k at most their max). */
function syncInputs(v, key) {
  for (const input of v.inputs) {
    if (input.dataset.control !== key || v.values[key] === null || v.values[key] === undefined) continue;
    if (key === "feature") v.values.feature = Math.min(v.values.feature, +input.max);
    input.value = String(v.values[key]);
    input.nextElementSibling.textContent = input.value;
  }
}

const talkTheme = v => (docState(v.doc).talk ? "presentation" : null);

/* Draw figure element `el` for this page (a live one at the controls' values). */
function drawOne(v, el) {
  const id = el.dataset.fig, spec = v.data.figures[id], info = v.data.live[id];
  if (!spec) throw new Error(`the page has no figure ${id}`);
  if (info && moved(v)) Recompute.render(info.binding, spec, v.values);
  drawIn(el, spec, { provenance: v.provenance, theme: talkTheme(v) });
  el.classList.remove("stale");
}

/* Whether el shows this page's spec already: the same spec, or an equal one where building it costs nothing more
 * (on screen, which the key draws anyway; a figure off screen is built only when drawn). */
function showing(v, el, onScreen) {
  const host = hostIn(el, v.provenance), id = el.dataset.fig;
  if (!host || el.classList.contains("stale") || (v.data.live[id] && moved(v))) return false;
  const spec = v.data.figures[id];
  return host.spec === spec || (onScreen(el) && sameSpec(host.spec, spec));
}

/* The bottom of the page's sticky header (0 without one): what lies above it is covered. */
function coveredTop(doc) {
  const header = doc.querySelector("header");
  return header && getComputedStyle(header).position === "sticky" ? header.getBoundingClientRect().bottom : 0;
}

/* Whether a figure is seen: in the window and not under the sticky header. While typing (`typing`) it is read from
 * what the observer recorded (watch: v.seen): measuring forces a layout of the page the key just changed, in the
 * key's task (item 6 of issue 54: no main-thread task over 50 ms while typing). */
function seenIn(v, typing) {
  if (typing) return el => v.seen.has(el);
  const top = coveredTop(v.doc), bottom = v.doc.defaultView.innerHeight;
  return el => { const r = el.getBoundingClientRect(); return r.bottom > top && r.top < bottom; };
}

/* Draw the figures on screen now, top down; mark the others stale (hidden, never shown with another sentence)
 * and draw them one per task (at once, or once typing rests for REST_MS) or as they come near the window. A newer
 * page (v.next) or a key computing one (hold) stops them. Resolves true when every figure was drawn (typing: those
 * on screen). */
function drawAll(v, typing) {
  const generation = v.generation, onScreen = seenIn(v, typing);
  for (const el of v.plots) if (!showing(v, el, onScreen)) el.classList.add("stale");
  for (const el of v.plots) if (el.classList.contains("stale") && onScreen(el)) drawOne(v, el);
  // a page drawn hidden (show's opts.hidden: site.js warmPage) stays so; the next page is shown with its figures
  if (!v.hidden) v.root.style.visibility = "";
  v.root.dataset.visibleAt = v.doc.defaultView.performance.now().toFixed(2);
  if (!typing) return drawRest(v, generation);
  rest(v); // what the new header or body moved into the window is drawn as the observer sees it (watch)
  return Promise.resolve(true);
}

/* The stale figures, one per task, unless a newer page or a key comes. Resolves true when all are drawn. */
async function drawRest(v, generation) {
  for (const el of v.plots) {
    if (!el.classList.contains("stale")) continue;
    await nextTask();
    if (v.generation !== generation || v.next || v.held) return false;
    if (el.isConnected && el.classList.contains("stale")) drawOne(v, el);
  }
  return true;
}

/* Typing rested: the figures left stale are drawn, one per task (drawRest). */
function rest(v) {
  const win = v.doc.defaultView;
  win.clearTimeout(v.restTimer);
  v.restTimer = win.setTimeout(() => enqueue(v, () => drawRest(v, v.generation)), REST_MS);
}

/* An IntersectionObserver of v's figures within `margin` of the window: a stale figure coming in is drawn in a task
 * of its own; with `seen`, the figures inside are kept there. */
function watcher(v, margin, seen) {
  return new v.doc.defaultView.IntersectionObserver(entries => {
    for (const entry of entries) {
      const el = entry.target, generation = v.generation;
      if (seen) seen[entry.isIntersecting ? "add" : "delete"](el);
      if (!entry.isIntersecting || !el.classList.contains("stale")) continue;
      enqueue(v, () => nextTask().then(() => v.generation === generation && el.isConnected && el.classList.contains("stale")
        ? drawOne(v, el) : null));
    }
  }, { rootMargin: margin });
}

/* Stale figures are drawn as they come near the window (v.observer: half a window ahead) and into it (v.seer: the
 * window below the sticky header, whose figures it keeps in v.seen for the typing path). v.seer's top margin is the
 * header's height, measured again when a new header comes or its size changes (a ResizeObserver, after layout). */
function watch(v) {
  const win = v.doc.defaultView, header = v.doc.querySelector("header");
  v.observer = v.observer || watcher(v, "50% 0px");
  const see = () => { // v.seen stays until the new observer's first entries (one per figure) replace it
    if (v.seer) v.seer.disconnect();
    v.seer = watcher(v, `${-coveredTop(v.doc)}px 0px 0px 0px`, v.seen);
    for (const el of v.plots) v.seer.observe(el);
  };
  if (!v.seer || header !== v.header) {
    v.header = header;
    if (v.resized) v.resized.disconnect();
    see();
    if (header) (v.resized = new win.ResizeObserver(see)).observe(header);
  }
  for (const el of v.plots) {
    v.observer.observe(el);
    v.seer.observe(el);
  }
}

/* Redraw every live figure at the controls' latest values, one redraw at a time; events meanwhile collapse into
 * one more, so a fast drag never falls behind the slider. */
function redraw(v) {
  if (v.queued) return v.busy;
  v.queued = true;
  return enqueue(v, () => {
    v.queued = false;
    if (v.next || !v.data) return null; // a newer page is queued; it is drawn at these values
    for (const el of v.plots) {
      const info = v.data.live[el.dataset.fig], host = hostIn(el);
      if (!info || !host || el.classList.contains("stale")) continue; // a stale one is drawn at these values later
      host.update(Recompute.render(info.binding, v.data.figures[el.dataset.fig], v.values));
    }
    v.root.dataset.alpha = v.values.alpha;
    v.root.dataset.feature = v.values.feature;
  });
}

/* The word control: the Shen Fig. 8 figure of that side shows the chosen word's vector. */
function showWord(v, select) {
  const id = `s2t-${select.dataset.side}`, frame = v.data.words[select.dataset.side][+select.value];
  const spec = v.data.figures[id], el = v.root.querySelector(`.plot[data-fig="${id}"]`);
  spec.panels[0].view = Object.assign({}, spec.panels[0].view, frame);
  if (el && hostIn(el) && !el.classList.contains("stale")) hostIn(el).update(spec);
}

function setTalk(doc, on) {
  const ds = docState(doc);
  ds.talk = on;
  // a report file's address says talk mode too ("#section-talk"): left on, a reload reopened in talk mode
  if (ds.current && ds.current.hash && location.hash) {
    const base = location.hash.replace(/^#talk$|-talk$/, "");
    history.replaceState(null, "", base && base !== "#" ? `${base}${on ? "-talk" : ""}` : (on ? "#talk" : location.pathname + location.search));
  }
  doc.body.classList.toggle("talk", on);
  for (const button of doc.querySelectorAll('[data-control="talk"]')) button.setAttribute("aria-pressed", String(on));
  for (const v of ds.views) {
    for (const el of v.plots) if (hostIn(el)) hostIn(el).setTheme(on ? "presentation" : null);
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
  scrollTo(doc, v, all[Math.max(0, Math.min(all.length - 1, step === "first" ? 0 : step === "last"
    ? all.length - 1 : current + step))]);
}

/* A section scrolled to just below the sticky header, and focused; a report file's address names it, the static
 * explorer's keeps its state (its address holds the sentence and model: a section's id there would read as a link
 * naming neither, and the page would reopen on the folder's own sentence). */
function scrollTo(doc, v, target) {
  target.style.scrollMarginTop = `${coveredTop(doc)}px`;
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
    const link = ev.target.closest && ev.target.closest('nav a[href^="#"]'), v = ds.current;
    const section = link && v && v.root.querySelector(`.section[id="${CSS.escape(link.hash.slice(1))}"]`);
    if (section) { ev.preventDefault(); scrollTo(doc, v, section); }
  });
}

/* The figure elements under `node`, by id. */
function figuresIn(node) {
  return new Map(Array.from(node.querySelectorAll(".plot[data-fig]"), el => [el.dataset.fig, el]));
}

/* Put the kept figure elements (with their components) in place of the new HTML's empty ones of the same id. */
function adopt(node, keep) {
  for (const slot of node.querySelectorAll(".plot[data-fig]")) {
    const old = keep.get(slot.dataset.fig);
    if (old) slot.replaceWith(old);
  }
}

/* Make container's children those of `parts` (HTML, one element each; else `html` whole): only a part whose HTML
 * changed is replaced, and every figure element moves into the new DOM with its host (a moved canvas keeps its
 * pixels). */
function writeParts(container, parts, html) {
  const doc = container.ownerDocument, last = partsOf.get(container), kids = container.children;
  const keep = figuresIn(container), refocus = focusedControl(container);
  const boxes = parts && last && last.length === parts.length && kids.length === parts.length &&
    container.childNodes.length === parts.length ? parts.map((h, i) => {
      if (h === last[i]) return null;
      const box = doc.createElement("div");
      box.innerHTML = h;
      return box;
    }) : null;
  if (boxes && boxes.every(box => !box || (box.childNodes.length === 1 && box.firstElementChild))) {
    boxes.forEach((box, i) => {
      if (!box) return;
      adopt(box, keep);
      container.replaceChild(box.firstElementChild, kids[i]);
    });
  } else {
    container.innerHTML = parts ? parts.join("") : html;
    adopt(container, keep);
  }
  partsOf.set(container, parts && container.childNodes.length === parts.length ? parts : null);
  refocus();
}

/* A control with the keyboard's focus (the α slider, whose let-go value reruns the model and redraws its section)
 * keeps it in the new HTML: its next arrow key moves it again instead of going to the page's section keys. */
function focusedControl(container) {
  const active = container.ownerDocument.activeElement, control = active && active.dataset && active.dataset.control;
  if (!control || !container.contains(active)) return () => {};
  const selector = `[data-control="${control}"]` + (active.dataset.side ? `[data-side="${active.dataset.side}"]` : "");
  return () => {
    const now = container.querySelector(selector);
    if (now && now !== active && !container.contains(active)) now.focus({ preventScroll: true });
  };
}

/* The header's HTML into `header`: only its <header>'s lines that changed are replaced. */
function writeHeader(header, html, lines) {
  const inner = header.firstElementChild;
  if (inner && header.childNodes.length === 1 && partsOf.get(inner)) { writeParts(inner, lines, null); return; }
  header.innerHTML = html;
  if (header.firstElementChild) partsOf.set(header.firstElementChild, lines || null);
}

/* The control values a new page is drawn at: opts.values, else those the user last set, else the page's. */
function valuesFor(v, data, opts) {
  const given = opts.values || {}, kept = v.data && v.data.arch === data.arch ? v.values : {};
  const alpha = given.alpha !== undefined ? given.alpha : kept.alpha !== undefined && kept.alpha !== null ? kept.alpha : data.alpha;
  const feature = given.feature !== undefined ? given.feature : kept.feature !== undefined ? kept.feature : 0;
  return { alpha, feature: Math.max(0, Math.round(feature)) };
}

function install(v, page, opts) {
  const data = page.data, doc = v.doc, typing = Boolean(opts.typing) && v.drawn > 0;
  if (opts.header) writeHeader(opts.header, page.header, page.headerLines);
  for (const button of (opts.header || doc).querySelectorAll('[data-control="talk"]')) {
    button.setAttribute("aria-pressed", String(docState(doc).talk));
  }
  for (const box of Array.from(v.root.children)) if (box.matches("p.error")) box.remove();
  if (page.body !== undefined) writeParts(v.root, page.parts, page.body);
  Object.assign(v, { data, plots: Array.from(v.root.querySelectorAll(".plot[data-fig]")),
                     inputs: Array.from(v.root.querySelectorAll('input[data-control="alpha"], input[data-control="feature"]')),
                     values: valuesFor(v, data, opts), hash: opts.hash !== false, generation: v.generation + 1,
                     held: false, provenance: opts.provenance || data.provenance || v.provenance || null,
                     hidden: opts.hidden === true });
  if (v.hidden) v.root.style.visibility = "hidden";
  watch(v);
  syncInputs(v, "alpha");
  syncInputs(v, "feature");
  const ds = docState(doc);
  ds.current = v;
  if (!data.compact) {
    keyboard(doc);
    if (!ds.hashChecked) {
      ds.hashChecked = true;
      if (/-talk$|^#talk$/.test(location.hash)) setTalk(doc, true);
      // "#dsa-heads-talk" names a section the browser cannot find (no element has that id): scrolled to once drawn
      ds.linked = v.hash && /-talk$/.test(location.hash) ? location.hash.slice(1).replace(/-talk$/, "") : null;
    }
  }
  return drawAll(v, typing).then(complete => {
    if (!complete) return;
    v.drawn += 1;
    v.root.dataset.alpha = v.values.alpha;
    v.root.dataset.feature = v.values.feature;
    v.root.dataset.drawn = String(v.drawn);
    v.root.dataset.ready = "1";
    const target = ds.linked && doc.getElementById(ds.linked);
    ds.linked = null;
    if (target) scrollTo(doc, v, target);
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

/* Draw page = Sections.page(tv, …) ({header, body, parts, data}) into root (<main>), replacing the last one.
 * opts: {header: the element for page.header, values: {alpha, feature} (default: the user's last, else the
 * page's), hash: false to leave the address alone, typing: a sentence being typed (figures off screen wait until
 * typing rests), provenance: {checkpointSha256, version} (default: page.data.provenance)}. Calls meanwhile
 * collapse to the latest. Resolves when every figure is drawn (root.dataset.drawn counts up) or a newer page
 * took its place; a failure is shown in root in one sentence and rejects. */
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

/* While typing: the maps on screen drawn with a new sentence ahead of its page (site.js paintMaps, from the lean
 * graph the worker runs first). `build(id)` gives the figure as the page will, or null for one that needs more of
 * the trace. Nothing is drawn with α or feature k moved or while a page waits. Resolves true when a figure was
 * drawn, after a "disan:preview" event on root ({detail: {built: id → spec, painted}}; docs/front-end.md). */
function preview(root, build) {
  const v = view(root), built = {};
  return enqueue(v, () => {
    if (!v.data || !v.drawn || v.next || moved(v)) return false;
    const onScreen = seenIn(v, true);
    let painted = false;
    for (const el of v.plots) {
      const host = hostIn(el);
      if (!host || el.classList.contains("stale") || !onScreen(el)) continue;
      const spec = build(el.dataset.fig);
      if (spec) built[el.dataset.fig] = spec;
      // the other sentence's maps of an NLI pair, where this key left them as they were: nothing to draw
      if (!spec || sameSpec(host.spec, spec)) continue;
      host.update(spec);  // the page that follows draws its own spec (equal: nothing repaints)
      painted = true;
    }
    return painted;
  }).then(painted => {
    root.dispatchEvent(new CustomEvent("disan:preview", { detail: { built, painted } }));
    return painted;
  });
}

/* A new sentence is being computed for root: the figures still being drawn for the last one stop. */
function hold(root) {
  view(root).held = true; // until the new sentence's page is installed
}

/* The control values and talk mode now: {alpha, feature, talk}. */
function values(root) {
  const v = view(root);
  return { alpha: v.values.alpha, feature: v.values.feature, talk: docState(v.doc).talk };
}

/* The figure host of figure `id` in root, or null before it is drawn (what tests reach). */
function figureHost(root, id) {
  const el = root.querySelector(`.plot[data-fig="${id}"]`);
  return el && hostIn(el);
}

/* The report file: decode the trace view (trace_view.js), build the page (Sections; a pair report's: PairView)
 * and draw it. Every failure is shown on the page in one sentence. */
function boot(doc) {
  const root = doc.getElementById("report");
  const fail = err => { console.error(err); showError(root, err); };
  if (typeof DecompressionStream === "undefined") {
    fail("this browser cannot unpack it (no DecompressionStream); open it in a current Chrome, Edge, Firefox or Safari");
    return Promise.resolve();
  }
  const packed = id => inflate(doc.getElementById(id).textContent.trim());
  const second = doc.getElementById("report-arrays-b");
  return Promise.all([packed("report-data"), packed("report-arrays"), second ? packed("report-arrays-b") : null])
    .then(([json, bytes, bytesB]) => {
      const data = JSON.parse(new TextDecoder().decode(json));
      Figures.configure(data.context);
      const tv = decode(data.view, bytes);
      // A minimal pair (pair_report.py): no model to run, so α stays, B's words are no buttons, and the
      // leave-one-out rows hold Python's (docs/trace-view.md "Leave-one-out").
      const page = data.pair
        ? PairView.page(tv, decode(data.pair.view, bytesB), { alphaControl: false, swap: false })
        : Sections.page(tv, { compact: data.compact, only: data.only, params: data.params, extra: data.extra });
      doc.title = page.title;
      return show(root, page, { header: doc.getElementById("report-header"), provenance: data.provenance })
        .then(() => data.pair && fillLeaveOneOut(root, data.pair.loo, "1"));
    }).catch(fail);
}

/* A minimal pair's leave-one-out rows under A's and B's tokens (pair_view.js); root.dataset.loo = `mark`. */
function fillLeaveOneOut(root, loo, mark) {
  PairView.fillLeaveOneOut(root, "a", loo.a);
  PairView.fillLeaveOneOut(root, "b", loo.b);
  root.dataset.loo = mark;
}

export { boot, show, preview, hold, values, showError, setTalk, figureHost, fillLeaveOneOut };
