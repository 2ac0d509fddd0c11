/* SitePair — the static explorer's Pair mode (issue 30: minimal pairs). view=pair in the address turns it on; bt and
 * bh hold sentence B (a copy of A until edited). site.js keeps the state and hands each update here; A and B run
 * through Site.traceOf (each trace view kept while its input stays: a key in B runs the model once), PairView.page is
 * drawn with Report.show, then leave-one-out fills the rows under A's and B's tokens (Pair.leaveOneOut; a newer input
 * stops it between runs). A click on a word of B offers its nearest words in the model's table, the nearest RANKED
 * ranked by how much each changes B's prediction (Pair.swapEffects), and a free entry. The body records data-state,
 * data-generation and data-drawn-at as the sentence view does, and data-loo-at when leave-one-out is drawn. */
import * as Figures from "./figures.js";
import * as Pair from "./pair.js";
import * as PairView from "./pair_view.js";
import * as Report from "./report.js";
import * as Site from "./site.js";
import { el, markDrawn, options, say, why } from "./site.js";

const doc = window.document, LOO_KEEP = 24, NEAREST = 8, RANKED = 50, RANKED_SHOWN = 8;
let running = null, pending = false, typing = false, generation = 0, offers = 0;
let traces = {}; // input key → trace view, only the latest A and B
const looCache = new Map(); // input key → leave-one-out, the last LOO_KEEP inputs
let presetsOf = null, presetList = [], lastB = null, lastPage = null;
let typedB = null; // B as typed, not yet in Site's state: written once its run has gone to the worker (flushB)

const current = () => Object.assign(Site.state(), typedB || {});
// B's text and hypothesis; until B is edited it is a copy of A
const sideB = s => ({ text: s.bText ?? s.text, hypothesis: s.bHyp ?? s.hypothesis });
const alphaOf = s => Site.modelMeta(s.model).arch === "dsa" ? s.alpha : null;
const key = (model, text, hypothesis, alpha) => [model, text, Site.modelMeta(model).pair ? hypothesis : "", alpha ?? ""].join("\u0001");

function flushB(typed) {
  const patch = typedB;
  typedB = null;
  if (patch) Site.set(patch, typed === true);
}

/* The pair controls for the state: shown in pair mode (B's hypothesis for a two-sentence model), B's fields holding
 * B (left alone while they do, so the caret stays); their labels are site.js's (showState). */
export function showControls(state) {
  const s = Object.assign({}, state, typedB || {}), pair = s.view === "pair", meta = Site.modelMeta(s.model), b = sideB(s);
  const search = el("view").querySelector('option[value="search"]');
  search.hidden = search.disabled = !meta.search || !Site.searchable(); // a folder built with --search, in the site
  el("view").value = s.view === "search" && !search.disabled ? "search" : pair ? "pair" : "sentence";
  el("pair-preset-row").hidden = el("b-text-row").hidden = !pair;
  el("b-hyp-row").hidden = !pair || !meta.pair;
  for (const [id, value] of [["b-text", b.text], ["b-hypothesis", b.hypothesis]]) if (el(id).value !== value) el(id).value = value;
  if (presetsOf !== s.model) {
    presetsOf = s.model;
    presetList = meta.pair_presets || []; // presets.pair_presets_for, written by site.py
    options(el("pair-preset"), presetList.map((p, i) => [String(i), p.label]), 1);
  }
}

/* A refusal of side A or B as one line naming the side ("B's sentence has 70 tokens; …"). */
function sideProblem(which, problem) {
  return /^The /.test(problem) ? which + "'s " + problem.slice(4) : which + ": " + problem.charAt(0).toLowerCase() + problem.slice(1);
}

function traceOf(s, text, hypothesis) {
  const alpha = alphaOf(s), k = key(s.model, text, hypothesis, alpha);
  if (traces[k]) return Promise.resolve({ key: k, tv: traces[k] });
  const names = PairView.inputNames(Site.modelMeta(s.model).relatedness); // its refusals name the pair view's inputs
  return Site.traceOf(s.model, text, hypothesis, alpha ?? undefined, names).then(tv => ({ key: k, tv }));
}

/* Compute and draw the current pair; a newer request replaces one still waiting, as site.js's update does. */
export function update(typed) {
  typing = typing || typed === true;
  pending = true;
  return running || (running = step().catch(err => {
    console.error(err);
    say("This pair could not be computed: " + why(err), "error");
    doc.body.dataset.state = "error";
  }).then(() => { running = null; }));
}

async function step() {
  while (pending) {
    pending = false;
    const mine = ++generation, s = current(), b = sideB(s), t0 = performance.now();
    if (s.view !== "pair") return;
    showControls(s);
    doc.body.dataset.state = "computing";
    const both = traceOf(s, s.text, s.hypothesis).then(a => traceOf(s, b.text, b.hypothesis).then(bb => [a, bb]));
    // a task runs after the microtasks that hand B's run to the worker: the state is written while it runs
    if (typedB) setTimeout(() => flushB(true), 0);
    const [a, bb] = await both;
    const problem = a.tv.problem ? sideProblem("A", a.tv.problem) : bb.tv.problem ? sideProblem("B", bb.tv.problem) : null;
    if (problem) { say(problem, "error"); doc.body.dataset.state = "error"; Site.hideOthers(s.model); continue; }
    traces = { [a.key]: a.tv, [bb.key]: bb.tv };
    if (pending) continue;
    // the figures whose numbers this B leaves as they were are the last page's own objects (nothing to redraw)
    const page = lastPage = PairView.page(a.tv, bb.tv, { previous: lastPage }), wasTyping = typing;
    typing = false;
    lastB = bb.tv;
    doc.title = page.title + " — attention explorer";
    await Report.show(el("report"), page, { header: el("page-header"), values: { alpha: s.alpha, feature: 0 }, hash: false,
                                            typing: wasTyping, provenance: Site.modelMeta(s.model).provenance });
    Site.shownFor(s.model);
    Site.drawnSay();
    doc.body.dataset.computeMs = (performance.now() - t0).toFixed(2);
    markDrawn("pair-" + mine);
    // after the maps, not beside them: leave-one-out's runs in both workers would take the two cores the drawing
    // needs (started beside it: dsa-sst5's maps median 44–47 ms instead of 34–41, pair benchmark)
    leaveOneOut(s, b, page, mine);
  }
}

/* A's, then B's leave-one-out of A's predicted class or a relatedness model's score ŷ, kept per input (typing in B
 * never reruns A's); it stops between runs once a newer pair is asked for. */
async function leaveOneOut(s, b, page, mine) {
  const alpha = alphaOf(s), target = page.change.relatedness ? "score" : page.change.labels.indexOf(page.change.target);
  // a newer pair, or the one-sentence view chosen meanwhile, ends the runs
  const stale = () => mine !== generation || Site.state().view !== "pair";
  try {
    const r = await Site.runner(s.model);
    for (const [which, text, hypothesis] of [["a", s.text, s.hypothesis], ["b", b.text, b.hypothesis]]) {
      const k = key(s.model, text, hypothesis, alpha) + "\u0001" + target;
      let loo = looCache.get(k);
      if (stale()) return;
      if (!loo) {
        const input = r.prepare(text, hypothesis, alpha);
        if (input.problem || !(loo = await Pair.leaveOneOut(r, input, { target, stale }))) return;
        looCache.set(k, loo);
        if (looCache.size > LOO_KEEP) looCache.delete(looCache.keys().next().value);
        if (stale()) return;
      }
      PairView.fillLeaveOneOut(el("report"), which, loo);
    }
    if (stale()) return;
    el("report").dataset.loo = "pair-" + mine;
    doc.body.dataset.looAt = performance.now().toFixed(2);
  } catch (err) {
    console.error(err);
    say("Leave-one-out could not be computed: " + why(err), "error");
  }
}

/* B with token `index` of `side` replaced by `text` (several words insert, an empty entry deletes it). B's text
 * becomes its tokens joined by spaces: the tokens the model reads, which the page tokenizes back. */
function swap(side, index, text) {
  flushB();
  const b = sideB(Site.state()), tokens = Array.from(lastB[side].tokens);
  tokens.splice(index, 1, ...(text.trim() === "" ? [] : text.trim().split(/\s+/)));
  el("report").querySelector(".pair-swap").hidden = true;
  Site.set({ bText: side === "premise" ? tokens.join(" ") : b.text, bHyp: side === "premise" ? b.hypothesis : tokens.join(" ") });
  update();
}

function offer(button) {
  const [side, at] = button.dataset.swap.split(":"), index = Number(at), s = Site.state();
  const box = el("report").querySelector(".pair-swap"), esc = Figures.htmlEscape;
  if (!lastB || !lastB[side] || !box) return;
  const word = lastB[side].tokens[index];
  Site.runner(s.model).then(r => {
    const near = Pair.nearestWords(r, word, NEAREST);
    box.innerHTML = "Swap B's <b>" + esc(word) + "</b> (#" + index + (lastB.hypothesis ? ", " + side : "") + ") for " +
      (near.length ? "one of its nearest words in the model's table: " + near.map(n =>
        `<button type="button" data-pick="${esc(n.word)}" title="cosine ${n.cosine.toFixed(3)}">${esc(n.word)}</button>`).join("")
        : "(the model has no vector for it) ") +
      ' or <input type="text" data-free aria-label="another word" placeholder="other words" size="14">' +
      '<button type="button" data-use>use</button> <button type="button" data-cancel>cancel</button>';
    Object.assign(box.dataset, { side, index: String(index) });
    box.hidden = false;
    rankSwaps(r, s, box, side, index, word);
  }).catch(err => say("No nearest words: " + why(err), "error"));
}

/* The nearest RANKED words ranked by how much each, swapped in, changes B's prediction (its class's probability, or
 * a relatedness score); a newer input, another word or the box closed stops the runs between batches. The list
 * (.pair-ranked) records data-state (computing / ready / stopped), each button its data-change. */
function rankSwaps(r, s, box, side, index, word) {
  const mine = ++offers, generationAt = generation, esc = Figures.htmlEscape, b = sideB(s);
  const near = Pair.nearestWords(r, word, RANKED);
  if (!near.length) return;
  const list = box.appendChild(doc.createElement("div"));
  list.className = "pair-ranked";
  list.dataset.state = "computing";
  list.textContent = "Ranking its " + near.length + " nearest words by how much each changes B's prediction…";
  const stale = () => mine !== offers || generationAt !== generation || box.hidden || !list.isConnected || Site.state().view !== "pair";
  const input = r.prepare(b.text, b.hypothesis, alphaOf(s));
  // the input the model reads must be the B whose word was clicked (its token `index` is `word`)
  if (input.problem || (input[side] && input[side].tokens[index] !== word)) { list.remove(); return; }
  const relatedness = lastPage && lastPage.change.relatedness, labels = lastPage ? lastPage.change.labels : [];
  const labelOf = k => String(labels[k] ?? k);
  Pair.swapEffects(r, input, {
    side, index, ids: near.map(n => n.id), target: relatedness ? "score" : undefined, stale,
    onProgress(done, total) {
      if (!stale()) list.textContent = "Ranking its nearest words by how much each changes B's prediction: " + done + " of " + total + "…";
    },
  }).then(res => {
    if (!res || stale()) { list.dataset.state = "stopped"; return; }
    const what = relatedness ? PairView.scoreOf(lastPage.change) : "p(" + esc(labelOf(res.label)) + ")";
    list.innerHTML = "By how much each changes B's " + what + " (" + res.value.toFixed(3) + " now), of its " + near.length +
      " nearest words: " + res.ranked.slice(0, RANKED_SHOWN).map(x => {
        // a relatedness model's grades are no verdict that flips: its change is the score's alone
        const w = esc(r.words[x.id]), label = esc(labelOf(x.label)), flips = x.flips && !relatedness;
        return `<button type="button" data-pick="${w}" data-change="${x.change}"${flips ? ` data-flips="${label}"` : ""} title="${what} ` +
          x.value.toFixed(3) + (flips ? ", predicts " + label : "") + `">${w} ${PairView.signed(x.change, 3)}${flips ? " → " + label : ""}</button>`;
      }).join("");
    list.dataset.state = "ready";
  }).catch(err => {
    console.error(err);
    if (!stale()) list.textContent = "The swaps could not be ranked: " + why(err);
  });
}

/* A click or Enter in the report: a word of B offers its swaps; in the swap box a word picked, typed, or cancel. */
function onReport(ev) {
  const t = ev.target, box = t.closest && t.closest(".pair-swap");
  if (!t.closest || Site.state().view !== "pair") return;
  const use = text => swap(box.dataset.side, Number(box.dataset.index), text);
  if (ev.type === "keydown") { if (ev.key === "Enter" && box && t.matches("input[data-free]")) use(t.value); return; }
  const button = t.closest("button[data-swap]");
  if (button) offer(button);
  else if (!box) return;
  else if (t.matches("button[data-pick]")) use(t.dataset.pick);
  else if (t.matches("button[data-use]")) use(box.querySelector("input[data-free]").value);
  else if (t.matches("button[data-cancel]")) box.hidden = true;
}

export function bind() {
  el("view").addEventListener("change", () => {
    flushB();
    const s = Site.state(), view = el("view").value, pair = view === "pair";
    // Site.set shows the controls (showState → showControls)
    Site.set(pair && s.bText === null ? { view: "pair", bText: s.text, bHyp: s.hypothesis } : { view });
    Site.update();
  });
  // a key in B: B's run starts first, and the state and address follow while the worker runs it (flushB)
  for (const [id, field] of [["b-text", "bText"], ["b-hypothesis", "bHyp"]]) {
    el(id).addEventListener("input", () => {
      const b = sideB(current());
      typedB = Object.assign({ bText: b.text, bHyp: b.hypothesis }, { [field]: el(id).value.slice(0, window.DisanSiteData.limits.max_chars) });
      update(true);
    });
  }
  // a new address replaces a typed B not yet written into it (capture: before site.js reads the address)
  window.addEventListener("hashchange", () => { typedB = null; }, true);
  el("pair-preset").addEventListener("change", () => {
    flushB();
    const p = presetList[+el("pair-preset").value];
    el("pair-preset").value = "";
    if (!p) return;
    Site.set(Object.assign({ text: p.text, hypothesis: p.hypothesis, bText: p.bText, bHyp: p.bHypothesis }, p.alpha !== null ? { alpha: p.alpha } : {}));
    update();
  });
  el("report").addEventListener("click", onReport);
  el("report").addEventListener("keydown", onReport);
}
