/* SitePair — the static explorer's Pair mode (issue 30: minimal pairs), beside site.js.
 *
 * In the address, view=pair turns it on; bt and bh hold sentence B (its text and hypothesis; B starts as a
 * copy of A). site.js keeps the state and the address and hands each update to `update` here while the view is
 * "pair"; this file runs A and B through the page's model (Site.traceOf, each trace view kept while its
 * input stays the same, so a key typed in B runs the model once), draws PairView.page (pair_view.js; the
 * figures a new B leaves unchanged are the last page's, so they are not drawn again) with Report.show
 * (a key: the maps on screen painted at once, the rest when they near the window or typing rests), then fills the
 * leave-one-out rows under A's and B's tokens (Pair.leaveOneOut, one model run per token, each in a task of its
 * own; a newer input stops it between runs, so typing never waits for it).
 * Clicking a word of B offers its nearest words in the model's own table (Pair.nearestWords), beside them the
 * nearest 50 ranked by how much each changes B's prediction (Pair.swapEffects, run in batches, cancelled by new
 * input), and a free-text entry; picking one edits B and updates everything. The page's body records for tests
 * and the benchmark: data-state / data-generation / data-drawn-at as the sentence view does, and data-loo-at when leave-one-out
 * is drawn (#report's data-loo: the generation it belongs to).
 */
import * as Figures from "./figures.js";
import * as Pair from "./pair.js";
import * as PairView from "./pair_view.js";
import * as Report from "./report.js";
import * as Site from "./site.js";

var doc = window.document;
var running = null, pending = false, typing = false, generation = 0;
var traces = {}; // input key → trace view, only the latest A and B
var looCache = {}, looKeys = []; // input key → leave-one-out, the last LOO_KEEP inputs
var LOO_KEEP = 24;
var NEAREST = 8;
// the swaps ranked by their effect: the nearest RANKED words, one model run each (bounded work: RANKED runs),
// in batches between keystrokes; RANKED_SHOWN of them offered
var RANKED = 50, RANKED_SHOWN = 8, offers = 0;
var presetsOf = null, presetList = [], lastB = null, lastPage = null;
// B as typed and not yet written to Site's state: it waits until B's run has gone to the worker (flushB), and
// the address until typing rests (Site.set's `typed`)
var typedB = null;

/** The page's element `id` (an input, a select or a box: any, for the checker). @returns {any} */
function el(id) { return doc.getElementById(id); }

function data() { return window.DisanSiteData; }

function metaOf(name) {
  return data().models.filter(function (m) { return m.name === name; })[0];
}

function say(text, kind) {
  var box = el("status");
  box.textContent = text || "";
  box.className = text ? (kind || "note") : "";
}

/* Site's state with B as last typed (typedB) in it. */
function current() {
  return Object.assign(Site.state(), typedB || {});
}

/* Write a typed B into Site's state and its controls, and the address (now, or once typing rests: `typed`). */
function flushB(typed) {
  if (!typedB) return;
  var patch = typedB;
  typedB = null;
  Site.set(patch, typed === true);
}

/* B's text and hypothesis; until B is edited it is a copy of A. */
function sideB(s) {
  return { text: s.bText === null ? s.text : s.bText, hypothesis: s.bHyp === null ? s.hypothesis : s.bHyp };
}

function alphaOf(s) {
  return metaOf(s.model).arch === "dsa" ? s.alpha : null;
}

function key(model, text, hypothesis, alpha) {
  return [model, text, metaOf(model).pair ? hypothesis : "", alpha === null ? "" : String(alpha)].join("\u0001");
}

/* ------------------------------------------------------------ controls */

/* The pair controls for the state: shown only in pair mode, B's hypothesis only for a two-sentence model,
 * B's fields holding B (left alone while they already do, so the caret stays where it is). */
function showControls(state) {
  var s = Object.assign({}, state, typedB || {}), pair = s.view === "pair", meta = metaOf(s.model), b = sideB(s);
  el("view").value = pair ? "pair" : "sentence";
  ["pair-preset-row", "b-text-row"].forEach(function (id) { el(id).hidden = !pair; });
  el("b-hyp-row").hidden = !pair || !meta.pair;
  // a relatedness model's inputs are its first and second sentence here, A's too (site.js's showState gave them
  // SICK's "sentence A" / "sentence B", which beside the pair's sides A and B would read "B: sentence A")
  var names = meta.relatedness ? PairView.inputNames(true) : ["sentence", "hypothesis"];
  el("b-text-row").firstChild.textContent = "B: " + names[0] + " ";
  el("b-hyp-row").firstChild.textContent = "B: " + names[1] + " ";
  if (pair && meta.relatedness) {
    el("text").parentNode.firstChild.textContent = names[0] + " ";
    el("hyp-row").firstChild.textContent = names[1] + " ";
  }
  if (el("b-text").value !== b.text) el("b-text").value = b.text;
  if (el("b-hypothesis").value !== b.hypothesis) el("b-hypothesis").value = b.hypothesis;
  if (presetsOf !== s.model) {
    presetsOf = s.model;
    presetList = meta.pair_presets || []; // presets.pair_presets_for, written by site.py
    var select = el("pair-preset");
    while (select.options.length > 1) select.remove(1);
    presetList.forEach(function (p, i) {
      var opt = doc.createElement("option");
      opt.value = String(i);
      opt.textContent = p.label;
      select.appendChild(opt);
    });
  }
}

/* A refusal of side A or B as one line naming the side ("B's sentence has 70 tokens; …"). */
function sideProblem(which, problem) {
  return /^The /.test(problem) ? which + "'s " + problem.slice(4) : which + ": " + problem.charAt(0).toLowerCase() + problem.slice(1);
}

/* ------------------------------------------------------------ run and draw */

function traceOf(s, text, hypothesis) {
  var alpha = alphaOf(s), k = key(s.model, text, hypothesis, alpha);
  if (traces[k]) return Promise.resolve({ key: k, tv: traces[k] });
  var names = PairView.inputNames(metaOf(s.model).relatedness); // its refusals name the pair view's inputs
  return Site.traceOf(s.model, text, hypothesis, alpha === null ? undefined : alpha, names).then(function (tv) {
    return { key: k, tv: tv };
  });
}

/* Compute and draw the current pair; a newer request replaces one still waiting, as site.js's update does. */
function update(typed) {
  typing = typing || typed === true;
  pending = true;
  if (running) return running;
  running = step().catch(function (err) {
    console.error(err);
    say("This pair could not be computed: " + (err && err.message || err), "error");
    doc.body.dataset.state = "error";
  }).then(function () { running = null; });
  return running;
}

function step() {
  if (!pending) return Promise.resolve();
  pending = false;
  var mine = ++generation, s = current(), b = sideB(s), t0 = window.performance.now();
  if (s.view !== "pair") return Promise.resolve();
  showControls(s);
  doc.body.dataset.state = "computing";
  var both = traceOf(s, s.text, s.hypothesis).then(function (a) {
    return traceOf(s, b.text, b.hypothesis).then(function (bb) { return [a, bb]; });
  });
  // a task runs after the microtasks that hand B's run to the worker: the state is written while it runs
  if (typedB) window.setTimeout(function () { flushB(true); }, 0);
  return both.then(function (both) {
    var a = both[0], bb = both[1];
    var problem = a.tv.problem ? sideProblem("A", a.tv.problem) : bb.tv.problem ? sideProblem("B", bb.tv.problem) : null;
    if (problem) {
      say(problem, "error");
      doc.body.dataset.state = "error";
      return step();
    }
    traces = {};
    traces[a.key] = a.tv;
    traces[bb.key] = bb.tv;
    if (pending) return step();
    // the figures whose numbers this B leaves as they were are the last page's own objects (nothing to redraw)
    var page = PairView.page(a.tv, bb.tv, { previous: lastPage }), wasTyping = typing;
    typing = false;
    lastB = bb.tv;
    lastPage = page;
    doc.title = page.title + " — attention explorer";
    return Report.show(el("report"), page, {
      header: el("page-header"), values: { alpha: s.alpha, feature: 0 }, hash: false, typing: wasTyping,
      provenance: (Site.modelMeta(s.model) || {}).provenance,
    }).then(function () {
      if (mine !== generation) return step();
      say("");
      doc.body.dataset.state = "ready";
      doc.body.dataset.generation = "pair-" + mine;
      doc.body.dataset.computeMs = (window.performance.now() - t0).toFixed(2);
      window.requestAnimationFrame(function () { doc.body.dataset.drawnAt = window.performance.now().toFixed(2); });
      // after the maps, not beside them: leave-one-out's runs in both workers would take the two cores the
      // drawing needs (started beside it: dsa-sst5's maps median 44–47 ms instead of 34–41, pair benchmark)
      leaveOneOut(s, b, page, mine);
      return step();
    });
  });
}

/* ------------------------------------------------------------ leave-one-out */

function remember(k, value) {
  if (!looCache[k]) looKeys.push(k);
  looCache[k] = value;
  while (looKeys.length > LOO_KEEP) delete looCache[looKeys.shift()];
}

function fill(which, loo) {
  PairView.fillLeaveOneOut(el("report"), which, loo);
}

/* A's, then B's leave-one-out of A's predicted class or a relatedness model's score (kept per input, so typing in B never reruns A's), after
 * the maps are drawn; stops between runs as soon as a newer pair is asked for. */
function leaveOneOut(s, b, page, mine) {
  // a relatedness model's score ŷ, as disan.attribution explains it; else A's predicted class
  var alpha = alphaOf(s), target = page.change.relatedness ? "score" : page.change.labels.indexOf(page.change.target);
  var jobs = [["a", s.text, s.hypothesis], ["b", b.text, b.hypothesis]];
  // a newer pair, or the one-sentence view chosen meanwhile, ends the runs
  var stale = function () { return mine !== generation || Site.state().view !== "pair"; };
  return Site.runner(s.model).then(function (r) {
    return jobs.reduce(function (done, job) {
      return done.then(function (going) {
        if (!going || stale()) return false;
        var k = key(s.model, job[1], job[2], alpha) + "\u0001" + target;
        if (looCache[k]) { fill(job[0], looCache[k]); return true; }
        var input = r.prepare(job[1], job[2], alpha);
        if (input.problem) return false;
        return Pair.leaveOneOut(r, input, { target: target, stale: stale }).then(function (v) {
          if (!v) return false;
          remember(k, v);
          if (!stale()) fill(job[0], v);
          return !stale();
        });
      });
    }, Promise.resolve(true));
  }).then(function (complete) {
    if (!complete || stale()) return;
    el("report").dataset.loo = "pair-" + mine;
    doc.body.dataset.looAt = window.performance.now().toFixed(2);
  }).catch(function (err) {
    console.error(err);
    say("Leave-one-out could not be computed: " + (err && err.message || err), "error");
  });
}

/* ------------------------------------------------------------ swapping a word of B */

function words(text) {
  return text.trim() === "" ? [] : text.trim().split(/\s+/);
}

/* B with token `index` of `side` replaced by `text` (several words insert, an empty entry deletes it). B's
 * text becomes its tokens joined by spaces: the tokens the model reads, which the page tokenizes back. */
function swap(side, index, text) {
  flushB();
  var s = Site.state(), b = sideB(s);
  var tokens = Array.from(lastB[side].tokens);
  tokens.splice.apply(tokens, [index, 1].concat(words(text)));
  var patch = { bText: b.text, bHyp: b.hypothesis };
  patch[side === "premise" ? "bText" : "bHyp"] = tokens.join(" ");
  /** @type {HTMLElement} */ (el("report").querySelector(".pair-swap")).hidden = true;
  Site.set(patch);
  update();
}

function offer(button) {
  var parts = button.dataset.swap.split(":"), side = parts[0], index = Number(parts[1]);
  var s = Site.state(), box = /** @type {HTMLElement | null} */ (el("report").querySelector(".pair-swap"));
  if (!lastB || !lastB[side] || !box) return;
  var word = lastB[side].tokens[index], esc = Figures.htmlEscape;
  Site.runner(s.model).then(function (r) {
    var near = Pair.nearestWords(r, word, NEAREST);
    box.innerHTML = "Swap B's <b>" + esc(word) + "</b> (#" + index + (lastB.hypothesis ? ", " + side : "") + ") for " +
      (near.length ? "one of its nearest words in the model's table: " + near.map(function (n) {
        return '<button type="button" data-pick="' + esc(n.word) + '" title="cosine ' + n.cosine.toFixed(3) + '">' +
          esc(n.word) + "</button>";
      }).join("") : "(the model has no vector for it) ") +
      ' or <input type="text" data-free aria-label="another word" placeholder="other words" size="14">' +
      '<button type="button" data-use>use</button> <button type="button" data-cancel>cancel</button>';
    box.dataset.side = side;
    box.dataset.index = String(index);
    box.hidden = false;
    rankSwaps(r, s, box, side, index, word);
  }).catch(function (err) { say("No nearest words: " + (err && err.message || err), "error"); });
}

/* Beside the neighbours: the nearest RANKED words ranked by how much each, swapped in, changes B's prediction
 * (B's predicted class's probability; a relatedness model's score), run in the page as leave-one-out is
 * (Pair.swapEffects). A newer input, another word clicked or the box closed stops the runs between batches.
 * The list (.pair-ranked) records data-state (computing / ready / stopped) and each button its data-change. */
function rankSwaps(r, s, box, side, index, word) {
  var mine = ++offers, generationAt = generation, esc = Figures.htmlEscape, b = sideB(s);
  var near = Pair.nearestWords(r, word, RANKED);
  if (!near.length) return;
  var list = doc.createElement("div");
  list.className = "pair-ranked";
  list.dataset.state = "computing";
  list.textContent = "Ranking its " + near.length + " nearest words by how much each changes B's prediction…";
  box.appendChild(list);
  var stale = function () {
    return mine !== offers || generationAt !== generation || box.hidden || !list.isConnected || Site.state().view !== "pair";
  };
  var input = r.prepare(b.text, b.hypothesis, alphaOf(s));
  var tokens = input.problem ? [] : Array.from(input[side] ? input[side].tokens || [] : []);
  // the input the model reads must be the B whose word was clicked (its token `index` is `word`)
  if (input.problem || (tokens.length && tokens[index] !== word)) { list.remove(); return; }
  var relatedness = lastPage && lastPage.change.relatedness, labels = lastPage ? lastPage.change.labels : [];
  Pair.swapEffects(r, input, {
    side: side, index: index, ids: near.map(function (n) { return n.id; }),
    target: relatedness ? "score" : undefined, stale: stale,
    onProgress: function (done, total) {
      if (!stale()) list.textContent = "Ranking its nearest words by how much each changes B's prediction: " + done + " of " + total + "…";
    },
  }).then(function (res) {
    if (!res || stale()) { list.dataset.state = "stopped"; return; }
    var what = relatedness ? "the relatedness score" : "p(" + esc(String(labels[res.label] === undefined ? res.label : labels[res.label])) + ")";
    list.innerHTML = "By how much each changes B's " + what + " (" + res.value.toFixed(3) + " now), of its " + near.length +
      " nearest words: " + res.ranked.slice(0, RANKED_SHOWN).map(function (x) {
        // a relatedness model's grades are no verdict that flips: its change is the score's alone
        var w = r.words[x.id], label = labels[x.label] === undefined ? String(x.label) : labels[x.label];
        x.flips = x.flips && !relatedness;
        return '<button type="button" data-pick="' + esc(w) + '" data-change="' + x.change + '"' +
          (x.flips ? ' data-flips="' + esc(label) + '"' : "") + ' title="' + what + " " + x.value.toFixed(3) +
          (x.flips ? ", predicts " + esc(label) : "") + '">' + esc(w) + " " + PairView.signed(x.change, 3) + (x.flips ? " → " + esc(label) : "") + "</button>";
      }).join("");
    list.dataset.state = "ready";
  }).catch(function (err) {
    console.error(err);
    if (!stale()) list.textContent = "The swaps could not be ranked: " + (err && err.message || err);
  });
}

function onReportClick(ev) {
  var t = ev.target;
  if (!t.closest || Site.state().view !== "pair") return;
  var button = t.closest("button[data-swap]");
  if (button) { offer(button); return; }
  var box = t.closest(".pair-swap");
  if (!box) return;
  if (t.matches("button[data-pick]")) swap(box.dataset.side, Number(box.dataset.index), t.dataset.pick);
  else if (t.matches("button[data-use]")) swap(box.dataset.side, Number(box.dataset.index), box.querySelector("input[data-free]").value);
  else if (t.matches("button[data-cancel]")) box.hidden = true;
}

function onReportKey(ev) {
  if (ev.key === "Enter" && ev.target.matches && ev.target.matches(".pair-swap input[data-free]")) {
    var box = ev.target.closest(".pair-swap");
    swap(box.dataset.side, Number(box.dataset.index), ev.target.value);
  }
}

/* ------------------------------------------------------------ binding */

function bind() {
  if (!el("view")) return;
  var limit = function (text) { return text.slice(0, data().limits.max_chars); };
  el("view").addEventListener("change", function () {
    flushB();
    var s = Site.state(), pair = el("view").value === "pair";
    Site.set(pair && s.bText === null ? { view: "pair", bText: s.text, bHyp: s.hypothesis }
      : { view: pair ? "pair" : "sentence" });
    showControls(Site.state());
    Site.update();
  });
  // a key in B: B's run starts first, and the state and address follow while the worker runs it (flushB)
  el("b-text").addEventListener("input", function () {
    typedB = { bText: limit(el("b-text").value), bHyp: sideB(current()).hypothesis };
    update(true);
  });
  el("b-hypothesis").addEventListener("input", function () {
    typedB = { bText: sideB(current()).text, bHyp: limit(el("b-hypothesis").value) };
    update(true);
  });
  // a new address replaces a typed B not yet written into it (capture: before site.js reads the address)
  window.addEventListener("hashchange", function () { typedB = null; }, true);
  el("pair-preset").addEventListener("change", function () {
    flushB();
    var p = presetList[+el("pair-preset").value];
    el("pair-preset").value = "";
    if (!p) return;
    var patch = { text: p.text, hypothesis: p.hypothesis, bText: p.bText, bHyp: p.bHypothesis };
    if (p.alpha !== null) patch.alpha = p.alpha;
    Site.set(patch);
    update();
  });
  el("report").addEventListener("click", onReportClick);
  el("report").addEventListener("keydown", onReportKey);
}

export { update, bind, showControls };
