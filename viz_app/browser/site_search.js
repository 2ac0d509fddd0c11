/* The static explorer's Search mode (issue 56): `disan search` over the model's bundled test set, in the page (its
 * file, search/<name>.js, loaded when Search is opened; the query in search_query.js). Filters (all or any), a sort,
 * paging; each hit's tokens coloured by the measure searched, the hit token outlined, and links to the sentence view,
 * the pair view with the hit as A and "more like this" (by attention signature). The address: #view=search&q=JSON. */
import { inflate } from "./bytes.js";
import { htmlEscape as esc } from "./figures.js";
import * as Query from "./search_query.js";
import { signatureOf } from "./search_signature.js";
import * as Site from "./site.js";
import { el, loadScript, options } from "./site.js";

const FILTERS = 4, doc = document, loaded = {};
const EMPTY = { where: [], any: false, sort: null, asc: false, top: 20, page: 0, measure: null, like: null, likeText: null };
/** The search shown: the address's q. @type {any} */
let q = Object.assign({}, EMPTY);
/** The signature of q.likeText under the model, once computed: {key, sig} or {key, problem}. @type {any} */
let likeSig = null;
let model = null, readFrom = null, badLink = false;

const meta = name => Site.modelMeta(name);
const linkTo = state => "#" + new URLSearchParams(Object.entries(state).filter(([, v]) => v !== null && v !== undefined));
const fmt = n => n.toLocaleString("en");

/* The body's data-search-state (tests) and the summary line (with its class `kind`). */
function searchState(value, summary, kind) {
  doc.body.dataset.searchState = value;
  if (summary !== undefined) el("sq-summary").textContent = summary;
  if (kind) el("sq-summary").className = kind;
}

/* The model's search file, unpacked once. */
function load(name) {
  if (!loaded[name]) {
    loaded[name] = loadScript((window.DisanSiteData.base || "") + meta(name).search, "python -m viz_app site --search")
      .then(() => inflate(window.DisanSiteSearch[name].packed)).then(Query.unpack);
    loaded[name].catch(() => { delete loaded[name]; });
  }
  return loaded[name];
}

/* q from the address (Site's state.q), when it changed since it was last read (a link, a hash change, the back button). */
function sync() {
  const raw = Site.state().q;
  if (readFrom === raw) return;
  readFrom = raw;
  let g = null;
  try { g = JSON.parse(raw || "{}"); } catch (err) { g = null; }
  badLink = !(g && typeof g === "object" && !Array.isArray(g));
  if (badLink) g = {};
  const str = v => typeof v === "string" ? v : null;
  q = {
    where: Array.isArray(g.where) ? g.where.filter(f => Array.isArray(f) && f.length === 3).slice(0, FILTERS).map(f => f.map(String)) : [],
    any: g.any === true, sort: str(g.sort), asc: g.asc === true, top: Number.isInteger(g.top) ? g.top : 20,
    page: Number.isInteger(g.page) && g.page >= 0 ? g.page : 0, measure: str(g.measure),
    like: Number.isInteger(g.like) ? g.like : null, likeText: str(g.likeText) && g.likeText.trim() ? g.likeText : null,
  };
}

/** The Search mode's entry and panel (entry_site.js, before site.js reads the address). */
export function bind() {
  el("controls").insertAdjacentHTML("beforeend", '<a id="search-open" class="field" hidden>search the test set</a>');
  const rows = Array.from({ length: FILTERS }, (_, i) => `<div class="sq-filter"><select id="sq-col${i}"></select> ` +
    `<select id="sq-op${i}"></select> <input id="sq-val${i}" size="14" spellcheck="false"></div>`).join("");
  el("report").insertAdjacentHTML("beforebegin", '<section id="search-panel" hidden><p id="sq-corpus" class="sub"></p>' + rows +
    '<label class="field"><input type="checkbox" id="sq-any"> a hit needs any filter (or), not all (and)</label> ' +
    '<label class="field">sort <select id="sq-sort"></select></label> <label class="field"><input type="checkbox" id="sq-asc"> ascending</label> ' +
    '<label class="field">hits a page <input id="sq-top" type="number" min="1" value="20" style="width:5em"></label> ' +
    '<label class="field">colour tokens by <select id="sq-measure"></select></label> ' +
    '<button type="button" id="sq-like-page">nearest to the page\'s sentence</button> ' +
    '<button type="button" id="sq-prev">previous page</button> <button type="button" id="sq-next">next page</button> ' +
    '<a id="sq-back" href="#">back to the sentence</a><p id="sq-summary" role="status"></p><table id="sq-hits" class="disan-search-hits"></table></section>');
  const panel = el("search-panel");
  // text fields on each key; selects and boxes on change (a text field's change on blur would redraw the hits
  // under the pointer of a click on one of them)
  panel.addEventListener("input", ev => { if (ev.target.tagName === "INPUT") changed(ev); });
  panel.addEventListener("change", ev => { if (ev.target.tagName !== "INPUT" || ev.target.type === "checkbox") changed(ev); });
  panel.addEventListener("click", ev => {
    const t = /** @type {any} */ (ev.target), like = t.closest("button[data-like]"), text = Site.state().text;
    if (t.id === "sq-prev" || t.id === "sq-next") q.page = Math.max(0, q.page + (t.id === "sq-next" ? 1 : -1));
    else if (like) Object.assign(q, { like: Number(like.dataset.like), likeText: null, page: 0 });
    else if (t.id === "sq-like-page" && text && text.trim()) Object.assign(q, { likeText: text, like: null, page: 0 });
    else return;
    rerun();
  });
}

/* A control changed: the query is read from the controls, the first page shown. */
function changed(ev) {
  if (!model || ev.target.tagName === "BUTTON") return;
  const where = [], top = Number(el("sq-top").value), was = JSON.stringify(Object.assign({}, q, { page: 0 }));
  for (let i = 0; i < FILTERS; i++) {
    const col = el("sq-col" + i).value;
    if (ev.target.id === "sq-col" + i) fillOps(i, col, null);
    if (col) where.push([col, el("sq-op" + i).value, el("sq-val" + i).value]);
  }
  q = { where, any: el("sq-any").checked, sort: el("sq-sort").value || null, asc: el("sq-asc").checked,
        top: Number.isInteger(top) ? top : 20, page: 0,
        measure: ev.target.id === "sq-measure" ? el("sq-measure").value || null : q.measure, like: q.like, likeText: q.likeText };
  if (JSON.stringify(q) !== was) rerun(); // else nothing new
}

/* q is newer than the address: its part of the address (what differs from an empty search) written now (Site.set),
 * not read back. */
function rerun() {
  const changed = Object.entries(q).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(EMPTY[k]));
  Site.set({ q: readFrom = JSON.stringify(Object.fromEntries(changed)) });
  show();
}

function fillOps(i, col, op) {
  const c = col && model.header.columns[col];
  options(el("sq-op" + i), (c ? window.DisanSiteData.search.kind_operators[c[1]] : []).filter(o => o !== "==").map(o => [o, o]));
  if (op !== null && c) el("sq-op" + i).value = op;
}

/* The controls for the model's columns, holding q. */
function fillControls() {
  const columns = model.header.columns, cols = Object.keys(columns).sort(), each = cols.map(c => [c, c]);
  for (let i = 0; i < FILTERS; i++) {
    const f = q.where[i];
    options(el("sq-col" + i), [["", "— column —"], ...each]);
    el("sq-col" + i).value = f && columns[f[0]] ? f[0] : "";
    fillOps(i, el("sq-col" + i).value, f ? f[1] : null);
    el("sq-val" + i).value = f ? f[2] : "";
  }
  options(el("sq-sort"), [["", q.like !== null || q.likeText !== null ? "— nearest first —" : "— sentence order —"], ...each]);
  el("sq-sort").value = q.sort && columns[q.sort] ? q.sort : "";
  options(el("sq-measure"), cols.filter(isTokenNumber).map(c => [c, c]));
  el("sq-any").checked = q.any;
  el("sq-asc").checked = q.asc;
  el("sq-top").value = String(q.top);
  el("sq-measure").value = measureOf();
}

/* A token column holding a measure (not an id or a position). */
function isTokenNumber(c) {
  const col = c && model.header.columns[c];
  return Boolean(col) && col[0] === "tokens" && col[1] === "number" && c !== "sentence_id" && c !== "position";
}

/* The measure the tokens are coloured by: the chosen one, else the token column searched, else s2t. */
function measureOf() {
  const f = q.where.find(w => isTokenNumber(w[0]));
  return isTokenNumber(q.measure) ? q.measure : isTokenNumber(q.sort) ? q.sort : f ? f[0] : "s2t";
}

/* The token rows of sentence row `s` (none where it has no token). */
const tokenRows = s => model.first[s] < 0 ? [] : Array.from({ length: model.count[s] }, (_, k) => model.first[s] + k);

/* Side `side` of sentence row `s` as token spans coloured by `measure` between lo and hi, token row `hit` outlined. */
function tokenSpans(s, side, hit, measure, lo, hi) {
  return tokenRows(s).filter(j => Query.value(model, "tokens", "side", j) === side).map(j => {
    const v = Query.value(model, "tokens", measure, j), share = hi <= lo ? 0 : (v - lo) / (hi - lo);
    return `<span class="sq-token" title="${esc(measure + " = " + (v === null ? "–" : v.toFixed(3)))}" style="padding: 1px 3px; ` +
      "border-radius: 3px; " + (v === null ? "" : `background: rgba(0, 114, 178, ${(0.08 + 0.72 * share).toFixed(2)});`) +
      (j === hit ? " outline: 2px solid #D55E00;" : "") + `">${esc(Query.value(model, "tokens", "word", j))}</span>`;
  }).join(" ");
}

const cell = v => esc(v === null ? "–" : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(4) : String(v));

/* The hits of q, drawn. */
function draw(state) {
  let result;
  try {
    result = Query.run(model, window.DisanSiteData.search, { where: q.where, any: q.any, sort: q.sort, asc: q.asc, top: q.top,
      offset: q.page * q.top, like: q.like, likeSignature: q.likeText !== null ? likeSig.sig : null });
  } catch (err) {
    el("sq-hits").textContent = "";
    return searchState("error", err.message, "error");
  }
  el("sq-summary").className = "note";
  const measure = measureOf(), V = (table, name, row) => Query.value(model, table, name, row);
  if (!result.hits.length) {
    el("sq-hits").textContent = "";
    return searchState("empty", "No hit: no " + result.level.slice(0, -1) + " of this corpus matches the filters; loosen one of them.");
  }
  const shown = result.hits.flatMap(h => tokenRows(h.s).map(j => V("tokens", measure, j))).filter(v => v !== null);
  const lo = shown.length ? shown.reduce((a, v) => Math.min(a, v)) : 0, hi = shown.length ? shown.reduce((a, v) => Math.max(a, v)) : 1;
  const first = q.page * q.top + 1, near = q.like !== null || q.likeText !== null;
  el("sq-summary").textContent = fmt(result.total) + " hits; showing " + fmt(first) + "–" + fmt(first + result.hits.length - 1) +
    ", tokens coloured by " + measure + " (light " + lo.toPrecision(3) + " → dark " + hi.toPrecision(3) + ")" +
    (q.like !== null ? ", nearest to sentence " + q.like + " first" : "") +
    (q.likeText !== null ? ", nearest to \u201c" + q.likeText + "\u201d first (its signature from the page's model run)" : "") + ".";
  const extra = result.columns.filter((c, i, a) => a.indexOf(c) === i && !["sentence_id", "text", "hypothesis", "word", "side", "position"].includes(c));
  const pair = meta(state.model).pair, mainSide = pair ? "premise" : "text";
  const rows = result.hits.map((h, k) => {
    const text = V("sentences", "text", h.s), hyp = pair ? V("sentences", "hypothesis", h.s) : null;
    const side = h.t === null ? mainSide : V("tokens", "side", h.t), id = V("sentences", "sentence_id", h.s);
    const tokens = tokenSpans(h.s, mainSide, side === "hypothesis" ? null : h.t, measure, lo, hi) +
      (pair ? "<br><small>" + tokenSpans(h.s, "hypothesis", side === "hypothesis" ? h.t : null, measure, lo, hi) + "</small>" : "");
    const values = extra.map(c => { const tbl = model.header.columns[c][0]; return "<td>" + cell(V(tbl, c, tbl === "tokens" ? h.t : h.s)) + "</td>"; });
    const sentence = linkTo({ m: state.model, t: text, h: hyp }), asA = linkTo({ m: state.model, t: text, h: hyp, view: "pair", bt: text, bh: hyp });
    return `<tr data-sentence-id="${id}"` + (h.t === null ? "" : ` data-position="${V("tokens", "position", h.t)}" data-side="${esc(side)}"`) +
      `><td>${first + k}</td><td>${tokens}</td>${values.join("")}` + (h.distance !== null ? `<td>${h.distance.toFixed(4)}</td>` : "") +
      `<td>${esc(V("sentences", "pred", h.s) + " (" + (V("sentences", "gold", h.s) || "–") + ")")}</td><td><a class="sq-open" ` +
      `href="${esc(sentence)}">sentence</a> · <a class="sq-pair" href="${esc(asA)}">pair (as A)</a> · ` +
      `<button type="button" data-like="${id}">more like this</button></td></tr>`;
  });
  el("sq-hits").innerHTML = "<thead><tr><th>#</th><th>hit</th>" + extra.map(c => "<th>" + esc(c) + "</th>").join("") +
    (near ? "<th>signature distance</th>" : "") + "<th>prediction (gold)</th><th>open</th></tr></thead><tbody>" + rows.join("") + "</tbody>";
  el("sq-prev").disabled = q.page === 0;
  el("sq-next").disabled = first + result.hits.length - 1 >= result.total;
  searchState("ready");
}

function show() {
  const state = Site.state();
  if (!model) return;
  fillControls();
  if (q.likeText !== null && !likeReady(state)) return;
  draw(state);
  if (badLink) el("sq-summary").textContent = "The search in the link could not be read; showing an empty search. " + el("sq-summary").textContent;
  badLink = false;
}

/* Whether q.likeText's signature is at hand; if not, the page's model runs the sentence and shows the hits after.
 * A sentence the model refuses gets its one line. */
function likeReady(state) {
  const key = state.model + "\u0000" + q.likeText;
  if (likeSig && likeSig.key === key) {
    if (!likeSig.sig) searchState("error", "Cannot find sentences like \u201c" + q.likeText + "\u201d: " + likeSig.problem, "error");
    return Boolean(likeSig.sig);
  }
  searchState("loading", "Running " + state.model + " on \u201c" + q.likeText + "\u201d for its attention signature…");
  Site.traceOf(state.model, q.likeText, meta(state.model).pair ? q.likeText : undefined).then(tv => {
    likeSig = tv.problem ? { key, problem: tv.problem } : { key, sig: signatureOf(tv.premise, tv.arch) };
  }, err => {
    likeSig = { key, problem: err && err.message ? err.message : String(err) };
  }).then(() => { if (q.likeText !== null && state.model + "\u0000" + q.likeText === key) show(); });
  return false;
}

/** Show or hide the mode (site.js's update, every state). @param {boolean} on @param {any} state */
export function toggle(on, state) {
  const m = meta(state.model);
  el("search-open").hidden = !(m && m.search) || on;
  el("search-open").href = linkTo({ m: state.model, t: state.text, view: "search" });
  el("search-panel").hidden = !on;
  el("report").hidden = el("page-header").hidden = on; // the report's section links and talk mode: not Search's
  // boot's "Loading MODEL…" is about the model, which Search does not run
  if (on && el("status").textContent.startsWith("Loading ")) Site.say("");
  for (const id of ["preset", "text"]) el(id).parentNode.hidden = on;
  if (on) el("hyp-row").hidden = true;
  el("sq-back").href = linkTo({ m: state.model, t: state.text, h: m && m.pair ? state.hypothesis : null });
}

/** site.js's update in Search mode: the model's file loaded (once), then the address's search drawn.
 * @param {any} state */
export function update(state) {
  sync();
  if (!meta(state.model).search) {
    model = null;
    searchState("error", "This folder has no search for " + state.model + "; rebuild it with python -m viz_app site --search.");
    return Promise.resolve();
  }
  if (!model || model.header.model !== state.model) el("sq-summary").textContent = "Loading the index of " + state.model + "'s test set…";
  searchState("loading");
  return load(state.model).then(db => {
    model = db;
    el("sq-corpus").textContent = state.model + " over " + db.header.corpus + ": " + fmt(db.header.examples) +
      " examples, " + fmt(db.header.rows.tokens) + " tokens (the index of disan index, docs/search.md)";
    show();
  }, err => searchState("error", err.message));
}
