/* The static explorer's Search mode (issue 56): `disan search` over the model's bundled test set, in the page.
 * Its file (search/<name>.js, viz_app/draw/site_search.py) is loaded only when Search is opened; the query runs
 * in search_query.js. Filters (column, operator, value; all or any), a sort, hits per page and paging; each hit's
 * tokens coloured by the measure searched, the hit token outlined; each hit opens the sentence view, the pair
 * view with the hit as A, or "more like this" (nearest sentences by attention signature). The search lives in
 * the address: #view=search&m=MODEL&q=JSON. site.js hands the mode the page (useSearchView). */
import { inflate } from "./bytes.js";
import * as Query from "./search_query.js";
import { signatureOf } from "./search_signature.js";

const FILTERS = 4;
const doc = document;
/** @type {Record<string, Promise<any>>} */
const loaded = {};
/** The search shown: the address's q. @type {any} */
let q = { where: [], any: false, sort: null, asc: false, top: 20, page: 0, measure: null, like: null, likeText: null };
/** The signature of q.likeText under the model, once computed: {key, sig} or {key, problem}. @type {any} */
let likeSig = null;
let model = null, readFrom = null, badLink = false;

function data() { return window.DisanSiteData; }
function meta(name) { return data().models.find(m => m.name === name); }
/** @returns {any} */
function el(id) { return doc.getElementById(id); }

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/* The model's search file, unpacked once. */
function load(name) {
  if (!loaded[name]) {
    const file = (data().base || "") + meta(name).search;
    loaded[name] = new Promise(function (resolve, reject) {
      const script = doc.createElement("script");
      script.src = file;
      script.onload = () => resolve(null);
      script.onerror = () => reject(new Error("the file " + file + " is missing from this folder; rebuild it with python -m viz_app site --search"));
      doc.head.appendChild(script);
    }).then(function () {
      const packed = window.DisanSiteSearch[name];
      return inflate(packed.packed).then(Query.unpack);
    });
    loaded[name].catch(function () { delete loaded[name]; });
  }
  return loaded[name];
}

/* ------------------------------------------------------------- address */

function readQ() {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  let got = {};
  try { got = JSON.parse(params.get("q") || "{}"); } catch (err) { got = null; }
  const ok = got && typeof got === "object" && !Array.isArray(got);
  const g = ok ? got : {};
  q = {
    where: Array.isArray(g.where) ? g.where.filter(f => Array.isArray(f) && f.length === 3).slice(0, FILTERS).map(f => f.map(String)) : [],
    any: g.any === true, sort: typeof g.sort === "string" ? g.sort : null, asc: g.asc === true,
    top: Number.isInteger(g.top) ? g.top : 20, page: Number.isInteger(g.page) && g.page >= 0 ? g.page : 0,
    measure: typeof g.measure === "string" ? g.measure : null, like: Number.isInteger(g.like) ? g.like : null,
    likeText: typeof g.likeText === "string" && g.likeText.trim() ? g.likeText : null,
  };
  return ok;
}

/* q from the address, when the address changed since it was last read (a link, a hash change, the back button). */
function sync() {
  if (readFrom === window.location.hash) return;
  badLink = !readQ();
  readFrom = window.location.hash;
}

/** site.js's writeHash: the search's part of the address. @param {URLSearchParams} params */
export function address(params) {
  sync();
  const out = {};
  if (q.where.length) out.where = q.where;
  if (q.any) out.any = true;
  if (q.sort) out.sort = q.sort;
  if (q.asc) out.asc = true;
  if (q.top !== 20) out.top = q.top;
  if (q.page) out.page = q.page;
  if (q.measure) out.measure = q.measure;
  if (q.like !== null) out.like = q.like;
  if (q.likeText !== null) out.likeText = q.likeText;
  params.set("q", JSON.stringify(out));
}

function linkTo(state) {
  const p = new URLSearchParams();
  Object.keys(state).forEach(k => { if (state[k] !== null && state[k] !== undefined) p.set(k, state[k]); });
  return "#" + p.toString();
}

/* --------------------------------------------------------------- panel */

/** The Search mode's entry and panel (entry_site.js, before site.js reads the address). */
export function bind() {
  const controls = el("controls");
  if (!controls || el("search-panel")) return;
  const open = doc.createElement("a");
  open.id = "search-open";
  open.className = "field";
  open.textContent = "search the test set";
  open.hidden = true;
  controls.appendChild(open);
  const panel = doc.createElement("section");
  panel.id = "search-panel";
  panel.hidden = true;
  let rows = "";
  for (let i = 0; i < FILTERS; i++) {
    rows += '<div class="sq-filter"><select id="sq-col' + i + '"></select> <select id="sq-op' + i + '"></select> ' +
      '<input id="sq-val' + i + '" size="14" spellcheck="false"></div>';
  }
  panel.innerHTML = '<p id="sq-corpus" class="sub"></p>' + rows +
    '<label class="field"><input type="checkbox" id="sq-any"> a hit needs any filter (or), not all (and)</label> ' +
    '<label class="field">sort <select id="sq-sort"></select></label> ' +
    '<label class="field"><input type="checkbox" id="sq-asc"> ascending</label> ' +
    '<label class="field">hits a page <input id="sq-top" type="number" min="1" value="20" style="width:5em"></label> ' +
    '<label class="field">colour tokens by <select id="sq-measure"></select></label> ' +
    '<button type="button" id="sq-like-page">nearest to the page\'s sentence</button> ' +
    '<button type="button" id="sq-prev">previous page</button> <button type="button" id="sq-next">next page</button> ' +
    '<a id="sq-back" href="#">back to the sentence</a>' +
    '<p id="sq-summary" role="status"></p><table id="sq-hits" class="disan-search-hits"></table>';
  const report = el("report");
  report.parentNode.insertBefore(panel, report);
  // text fields on each key; selects and boxes on change (a text field's change on blur would redraw the hits
  // under the pointer of a click on one of them)
  panel.addEventListener("input", ev => { if (/** @type {any} */ (ev.target).tagName === "INPUT") changed(ev); });
  panel.addEventListener("change", ev => { const t = /** @type {any} */ (ev.target); if (t.tagName !== "INPUT" || t.type === "checkbox") changed(ev); });
  el("sq-prev").addEventListener("click", () => { q.page = Math.max(0, q.page - 1); rerun(); });
  el("sq-next").addEventListener("click", () => { q.page += 1; rerun(); });
  el("sq-like-page").addEventListener("click", function () {
    const text = site && site.state().text;
    if (!text || !text.trim()) return;
    q.likeText = text;
    q.like = null;
    q.page = 0;
    rerun();
  });
  panel.addEventListener("click", function (ev) {
    const like = /** @type {any} */ (ev.target).closest && /** @type {any} */ (ev.target).closest("button[data-like]");
    if (!like) return;
    q.like = Number(like.dataset.like);
    q.likeText = null;
    q.page = 0;
    rerun();
  });
}

/* A control changed: the query is read from the controls, the first page shown. */
function changed(ev) {
  if (!model || ev.target.tagName === "BUTTON") return;
  const where = [];
  for (let i = 0; i < FILTERS; i++) {
    const col = el("sq-col" + i).value;
    if (ev.target.id === "sq-col" + i) fillOps(i, col, null);
    if (col) where.push([col, el("sq-op" + i).value, el("sq-val" + i).value]);
  }
  const top = Number(el("sq-top").value);
  const was = JSON.stringify(q);
  q = { where, any: el("sq-any").checked, sort: el("sq-sort").value || null, asc: el("sq-asc").checked,
        top: Number.isInteger(top) ? top : 20, page: 0,
        measure: ev.target.id === "sq-measure" ? el("sq-measure").value || null : q.measure, like: q.like, likeText: q.likeText };
  if (JSON.stringify(Object.assign({}, q, { page: JSON.parse(was).page })) === was) return; // nothing new
  rerun();
}

function rerun() {
  writeAddress();
  show();
}

let site = null;
/** site.js's page functions (set, state): how the mode writes the address. @param {any} s */
export function useSite(s) { site = s; }
function writeAddress() {
  readFrom = window.location.hash; // q is newer than the address: written now, not read back
  if (site) site.set({});
  readFrom = window.location.hash;
}

function option(select, value, label) {
  const o = doc.createElement("option");
  o.value = value;
  o.textContent = label;
  select.appendChild(o);
}

function fillOps(i, col, op) {
  const select = el("sq-op" + i), spec = data().search;
  select.textContent = "";
  const c = col && model.header.columns[col];
  (c ? spec.kind_operators[c[1]] : []).filter(o => o !== "==").forEach(o => option(select, o, o));
  if (op !== null && c) select.value = op;
}

/* The controls for the model's columns, holding q. */
function fillControls() {
  const cols = Object.keys(model.header.columns).sort();
  const numbers = cols.filter(c => model.header.columns[c][0] === "tokens" && model.header.columns[c][1] === "number"
    && !["sentence_id", "position"].includes(c));
  for (let i = 0; i < FILTERS; i++) {
    const select = el("sq-col" + i);
    select.textContent = "";
    option(select, "", "— column —");
    cols.forEach(c => option(select, c, c));
    const f = q.where[i];
    select.value = f && model.header.columns[f[0]] ? f[0] : "";
    fillOps(i, select.value, f ? f[1] : null);
    el("sq-val" + i).value = f ? f[2] : "";
  }
  const sort = el("sq-sort");
  sort.textContent = "";
  option(sort, "", q.like !== null || q.likeText !== null ? "— nearest first —" : "— sentence order —");
  cols.forEach(c => option(sort, c, c));
  sort.value = q.sort && model.header.columns[q.sort] ? q.sort : "";
  const measure = el("sq-measure");
  measure.textContent = "";
  numbers.forEach(c => option(measure, c, c));
  el("sq-any").checked = q.any;
  el("sq-asc").checked = q.asc;
  el("sq-top").value = String(q.top);
  measure.value = measureOf();
}

/* The measure the tokens are coloured by: the chosen one, else the token column searched, else s2t. */
function measureOf() {
  const cols = model.header.columns, isTokenNumber = c => c && cols[c] && cols[c][0] === "tokens" && cols[c][1] === "number"
    && c !== "sentence_id" && c !== "position";
  if (isTokenNumber(q.measure)) return q.measure;
  if (isTokenNumber(q.sort)) return q.sort;
  const f = q.where.find(w => isTokenNumber(w[0]));
  return f ? f[0] : "s2t";
}

function colour(v, lo, hi) {
  if (v === null) return "";
  const share = hi <= lo ? 0 : (v - lo) / (hi - lo);
  return "background: rgba(0, 114, 178, " + (0.08 + 0.72 * share).toFixed(2) + ");";
}

function tokenSpans(s, side, hit, measure, lo, hi) {
  const out = [], first = model.first[s];
  for (let j = first; j >= 0 && j < first + model.count[s]; j++) {
    if (Query.value(model, "tokens", "side", j) !== side) continue;
    const v = Query.value(model, "tokens", measure, j);
    const mark = j === hit ? " outline: 2px solid #D55E00;" : "";
    out.push('<span class="sq-token" title="' + escapeHtml(measure + " = " + (v === null ? "–" : v.toFixed(3))) +
      '" style="padding: 1px 3px; border-radius: 3px; ' + colour(v, lo, hi) + mark + '">' +
      escapeHtml(Query.value(model, "tokens", "word", j)) + "</span>");
  }
  return out.join(" ");
}

function cell(v) {
  return escapeHtml(v === null ? "–" : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(4) : String(v));
}

/* The hits of q, drawn. */
function draw(state) {
  const spec = data().search, summary = el("sq-summary"), table = el("sq-hits");
  let result;
  try {
    result = Query.run(model, spec, { where: q.where, any: q.any, sort: q.sort, asc: q.asc, top: q.top,
                                      offset: q.page * q.top, like: q.like,
                                      likeSignature: q.likeText !== null ? likeSig.sig : null });
  } catch (err) {
    summary.textContent = err.message;
    summary.className = "error";
    table.textContent = "";
    doc.body.dataset.searchState = "error";
    return;
  }
  summary.className = "note";
  const measure = measureOf();
  if (!result.hits.length) {
    summary.textContent = "No hit: no " + result.level.slice(0, -1) + " of this corpus matches the filters; loosen one of them.";
    table.textContent = "";
    doc.body.dataset.searchState = "empty";
    return;
  }
  let lo = Infinity, hi = -Infinity;
  result.hits.forEach(function (h) {
    for (let j = model.first[h.s]; j >= 0 && j < model.first[h.s] + model.count[h.s]; j++) {
      const v = Query.value(model, "tokens", measure, j);
      if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
  });
  if (lo > hi) { lo = 0; hi = 1; }
  const first = q.page * q.top + 1;
  summary.textContent = result.total.toLocaleString("en") + " hits; showing " + first.toLocaleString("en") + "–" +
    (first + result.hits.length - 1).toLocaleString("en") + ", tokens coloured by " + measure + " (light " +
    lo.toPrecision(3) + " → dark " + hi.toPrecision(3) + ")" + (q.like !== null ? ", nearest to sentence " + q.like + " first" : "") +
    (q.likeText !== null ? ", nearest to \u201c" + q.likeText + "\u201d first (its signature from the page's model run)" : "") + ".";
  const extra = result.columns.filter((c, i, a) => a.indexOf(c) === i && !["sentence_id", "text", "hypothesis", "word", "side", "position"].includes(c));
  const pair = meta(state.model).pair;
  let html = "<thead><tr><th>#</th><th>hit</th>" + extra.map(c => "<th>" + escapeHtml(c) + "</th>").join("") +
    (q.like !== null || q.likeText !== null ? "<th>signature distance</th>" : "") + "<th>prediction (gold)</th><th>open</th></tr></thead><tbody>";
  result.hits.forEach(function (h, k) {
    const text = Query.value(model, "sentences", "text", h.s), hyp = Query.value(model, "sentences", "hypothesis", h.s);
    const side = h.t === null ? (pair ? "premise" : "text") : Query.value(model, "tokens", "side", h.t);
    let cells = tokenSpans(h.s, pair ? "premise" : "text", side === "hypothesis" ? null : h.t, measure, lo, hi);
    if (pair) cells += "<br><small>" + tokenSpans(h.s, "hypothesis", side === "hypothesis" ? h.t : null, measure, lo, hi) + "</small>";
    const values = extra.map(c => "<td>" + cell(Query.value(model, model.header.columns[c][0], c,
      model.header.columns[c][0] === "tokens" ? h.t : h.s)) + "</td>").join("");
    const id = Query.value(model, "sentences", "sentence_id", h.s);
    const sentence = linkTo({ m: state.model, t: text, h: pair ? hyp : null });
    const asA = linkTo({ m: state.model, t: text, h: pair ? hyp : null, view: "pair", bt: text, bh: pair ? hyp : null });
    html += '<tr data-sentence-id="' + id + '"' + (h.t === null ? "" : ' data-position="' +
      Query.value(model, "tokens", "position", h.t) + '" data-side="' + escapeHtml(side) + '"') + "><td>" + (first + k) +
      "</td><td>" + cells + "</td>" + values + (h.distance !== null ? "<td>" + h.distance.toFixed(4) + "</td>" : "") +
      "<td>" + escapeHtml(Query.value(model, "sentences", "pred", h.s) + " (" + (Query.value(model, "sentences", "gold", h.s) || "–") + ")") +
      '</td><td><a class="sq-open" href="' + escapeHtml(sentence) + '">sentence</a> · <a class="sq-pair" href="' +
      escapeHtml(asA) + '">pair (as A)</a> · <button type="button" data-like="' + id + '">more like this</button></td></tr>';
  });
  table.innerHTML = html + "</tbody>";
  el("sq-prev").disabled = q.page === 0;
  el("sq-next").disabled = first + result.hits.length - 1 >= result.total;
  doc.body.dataset.searchState = "ready";
}

function show() {
  const state = site.state();
  if (!model) return;
  fillControls();
  if (q.likeText !== null && !likeReady(state)) return;
  draw(state);
  if (badLink) {
    el("sq-summary").textContent = "The search in the link could not be read; showing an empty search. " + el("sq-summary").textContent;
    badLink = false;
  }
}

/* Whether q.likeText's signature is at hand; if not, the page's model runs the sentence and shows the hits after.
 * A sentence the model refuses gets its one line. */
function likeReady(state) {
  const key = state.model + "\u0000" + q.likeText;
  if (likeSig && likeSig.key === key) {
    if (likeSig.sig) return true;
    el("sq-summary").textContent = "Cannot find sentences like \u201c" + q.likeText + "\u201d: " + likeSig.problem;
    el("sq-summary").className = "error";
    doc.body.dataset.searchState = "error";
    return false;
  }
  el("sq-summary").textContent = "Running " + state.model + " on \u201c" + q.likeText + "\u201d for its attention signature…";
  doc.body.dataset.searchState = "loading";
  const pair = meta(state.model).pair;
  site.traceOf(state.model, q.likeText, pair ? q.likeText : undefined).then(function (tv) {
    likeSig = tv.problem ? { key, problem: tv.problem } : { key, sig: signatureOf(tv.premise, tv.arch) };
  }, function (err) {
    likeSig = { key, problem: err && err.message ? err.message : String(err) };
  }).then(function () {
    if (q.likeText !== null && state.model + "\u0000" + q.likeText === key) show();
  });
  return false;
}

/** Show or hide the mode (site.js's update, every state). @param {boolean} on @param {any} state */
export function toggle(on, state) {
  const panel = el("search-panel");
  if (!panel) return;
  const m = meta(state.model), open = el("search-open");
  open.hidden = !(m && m.search) || on;
  open.href = linkTo({ m: state.model, t: state.text, view: "search" });
  panel.hidden = !on;
  el("report").hidden = on;
  // boot's "Loading MODEL…" is about the model, which Search does not run
  if (on && el("status").textContent.startsWith("Loading ")) { el("status").textContent = ""; el("status").className = ""; }
  ["preset", "text"].forEach(id => { el(id).parentNode.hidden = on; });
  if (on) el("hyp-row").hidden = true;
  el("sq-back").href = linkTo({ m: state.model, t: state.text, h: m && m.pair ? state.hypothesis : null });
}

/** site.js's update in Search mode: the model's file loaded (once), then the address's search drawn.
 * @param {any} state */
export function update(state) {
  const m = meta(state.model), summary = el("sq-summary");
  sync();
  if (!m.search) {
    model = null;
    summary.textContent = "This folder has no search for " + state.model + "; rebuild it with python -m viz_app site --search.";
    doc.body.dataset.searchState = "error";
    return Promise.resolve();
  }
  if (!model || model.header.model !== state.model) summary.textContent = "Loading the index of " + state.model + "'s test set…";
  doc.body.dataset.searchState = "loading";
  return load(state.model).then(function (db) {
    model = db;
    el("sq-corpus").textContent = state.model + " over " + db.header.corpus + ": " + db.header.examples.toLocaleString("en") +
      " examples, " + db.header.rows.tokens.toLocaleString("en") + " tokens (the index of disan index, docs/search.md)";
    show();
  }, function (err) {
    summary.textContent = err.message;
    doc.body.dataset.searchState = "error";
  });
}
