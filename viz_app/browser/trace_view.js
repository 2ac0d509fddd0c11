/* The trace view: the one format every per-sentence figure reads (docs/trace-view.md, the written contract).
 *
 * Two producers fill the same fields: Python (viz_app/draw/site_view.py, from a torch trace or the app's numpy
 * records) and the page's own model run (fromOutputs, from its ONNX outputs). One decoder (decode) turns a packed
 * view back into typed arrays, for every host: the report file and notebook view, the app's charts, the static
 * explorer's stored runs. tests/test_trace_view.py fails when the two producers' field sets differ.
 *
 * DiSAN's per-feature P and its max over features are no fields: they follow from Shen Eq. 15's keys, queries
 * and c, which both producers fill (recompute.js perFeature, featureMax, computed when a figure first asks). */

import * as Recompute from "./recompute.js";

/* The fields of each level, in the order docs/trace-view.md lists them. Every producer sets every one (null
 * where it does not apply to the architecture, or where a partial run lacks it: fromOutputs' `maps`). */
const FIELDS = {
  view: ["model", "arch", "random_weights", "prediction", "relatedness", "masks", "alpha", "premise", "hypothesis"],
  sentence: ["tokens", "status", "T", "fw", "bw", "s2t", "D2", "maxpool_share"],
  block: ["mask", "T", "D", "H", "allowed", "attention", "gate", "keys", "queries", "c", "heads", "scores",
          "ffn_deactivation", "ln_max"],
};

/* A packed view ({$a: [dtype, offset, count]} references into `bytes`, a Uint8Array; site_view._Packer) with
 * typed arrays in place of the references: views into bytes' buffer, not copies. */
function decode(view, bytes) {
  const buffer = bytes.buffer, base = bytes.byteOffset;
  const array = ref => {
    if (!ref || !ref.$a) return ref;
    const [dtype, offset, count] = ref.$a;
    if (dtype === "u1") return new Uint8Array(buffer, base + offset, count);
    if (dtype === "f4") return new Float32Array(buffer, base + offset, count);
    throw new Error("the trace view holds an array of type " + dtype + " (f4 or u1 expected); write it again with this version");
  };
  for (const sent of [view.premise, view.hypothesis]) {
    if (!sent) continue;
    for (const key of ["s2t", "maxpool_share"]) sent[key] = array(sent[key]);
    for (const block of [sent.fw, sent.bw]) for (const key of Object.keys(block)) block[key] = array(block[key]);
  }
  return view;
}

function output(out, name) {
  const t = out[name];
  if (!t) throw new Error("the model gave no output " + name + "; rebuild the folder with this version");
  return t.data;
}

/* The graph's output names that differ from the view's field (disan/onnx_export.py's `fw_mean`, `fw_probs`). */
const RENAMED = { mean: "attention", probs: "heads" };

/* One sentence from the model's outputs `out`; `names` maps each graph output's field to its ONNX name
 * (site-data.js, written by viz_app/draw/site.py _outputs from the export's own list). Every output whose
 * field is in FIELDS fills it, every other field is null: an output added to the graph under a field's name
 * needs no change here. `maps`: out holds at least the attention's outputs (site.js paintMaps), and the
 * fields it lacks are null. */
function sentenceOf(meta, out, names, tokens, status, maps) {
  const T = tokens.length;
  const fill = (into, of, fields) => {
    for (const [field, name] of Object.entries(of)) {
      const key = RENAMED[field] || field;
      if (fields.includes(key) && typeof name === "string") into[key] = maps && !out[name] ? null : output(out, name);
    }
    return into;
  };
  const empty = fields => Object.fromEntries(fields.map(k => [k, null]));
  const block = dir => {
    const mask = meta.masks[dir === "fw" ? 0 : 1], disan = meta.arch === "disan";
    const b = fill(empty(FIELDS.block), names[dir], FIELDS.block);
    Object.assign(b, { mask, T, D: meta.d_model, H: disan ? null : meta.heads,
                       allowed: Recompute.directionAllowed(T, mask) });
    if (disan) b.c = meta.c; // Shen Eq. 15's c: with keys and queries, every cell's logit before the mask
    else b.attention = b.heads && Recompute.headMean(b.heads, T); // Im Eq. 7, averaged over heads
    return b;
  };
  const sent = fill(empty(FIELDS.sentence), names, FIELDS.sentence);
  return Object.assign(sent, { tokens, status, T, fw: block("fw"), bw: block("bw"), D2: 2 * meta.d_model });
}

/* The page's model run's trace view of `input` ({premise: {tokens, status}, hypothesis?, alpha}) from its
 * outputs `out` (name → {data}); `maps` as sentenceOf (the prediction is then null too). */
function fromOutputs(meta, input, out, maps) {
  const names = meta.outputs, probs = maps ? null : output(out, names.prediction);
  const prediction = probs && Object.fromEntries(meta.labels.map((label, i) => [label, probs[i]]));
  const side = s => sentenceOf(meta, out, names[s], input[s].tokens, input[s].status, maps);
  return {
    model: meta.name, arch: meta.arch, random_weights: false, prediction,
    relatedness: names.relatedness && !maps ? output(out, names.relatedness)[0] : null,
    masks: meta.masks.slice(), alpha: meta.arch === "dsa" ? input.alpha : null,
    premise: side("premise"), hypothesis: meta.pair ? side("hypothesis") : null,
  };
}

/* The view's field names as "view.x", "sentence.x", "block.x" (each level once), for checking a producer
 * against FIELDS. */
function fieldsOf(tv) {
  const out = new Set(Object.keys(tv).map(k => "view." + k));
  for (const s of [tv.premise, tv.hypothesis]) {
    if (!s) continue;
    Object.keys(s).forEach(k => out.add("sentence." + k));
    for (const d of ["fw", "bw"]) Object.keys(s[d]).forEach(k => out.add("block." + k));
  }
  return [...out].sort();
}

export { FIELDS, decode, fromOutputs, fieldsOf };
