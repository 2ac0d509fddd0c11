/* Recompute — the attention maths the app, the report and the explorer run in the page: pure functions, arrays in,
 * new arrays out (`render` alone writes into the spec it is given). Conventions (disan/masks.py): a T×T matrix is
 * flat, row-major, [attending row i, attended column j]; allowed[i*T + j] != 0 where row i may attend column j; a
 * row with no allowed key stays exactly 0 (masked_softmax). A live figure (α, feature k) is its own figure function
 * called again at the controls' values (sections.js `figure`, `draw`: the binding's `redraw`), from the fields of
 * its trace view (docs/trace-view.md): a DSA's pre-mask scores, DiSAN's Eq. 15 parts. */

/* Im Eq. 7: softmax_j(scores[h,i,j] − α|i − j|) over the allowed j of each row.
 * scores: H·T·T (pre-mask QKᵀ/√d_k); allowed: T·T, shared by every head. Returns Float32Array H·T·T. */
export function distanceProbs(scores, T, allowed, alpha) {
  const out = new Float32Array(scores.length), row = new Float64Array(T), H = scores.length / (T * T);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < T; i++) {
      const base = (h * T + i) * T;
      let max = -Infinity, sum = 0;
      for (let j = 0; j < T; j++) {
        if (!allowed[i * T + j]) continue;
        row[j] = scores[base + j] - alpha * Math.abs(i - j);
        if (row[j] > max) max = row[j];
      }
      if (max === -Infinity) continue; // no allowed key: the row stays exactly 0
      for (let j = 0; j < T; j++) if (allowed[i * T + j]) { row[j] = Math.exp(row[j] - max); sum += row[j]; }
      for (let j = 0; j < T; j++) if (allowed[i * T + j]) out[base + j] = row[j] / sum;
    }
  }
  return out;
}

/* Mean over the H stacked T×T maps of `stack` (H·T·T) → Float32Array T·T (Im Fig. 7). */
export function headMean(stack, T) {
  const n = T * T, H = stack.length / n, out = new Float32Array(n);
  for (let c = 0; c < n; c++) {
    let s = 0;
    for (let h = 0; h < H; h++) s += stack[h * n + c];
    out[c] = s / H;
  }
  return out;
}

/* A DSA block's per-head probabilities at α (H·T·T, Im Eq. 7) from its pre-mask scores, the last α's kept per
 * block: a live mean map and the heads of one α share one softmax. */
const lastAlpha = new WeakMap();

export function headsAt(b, T, alpha) {
  const got = lastAlpha.get(b);
  if (got && got.alpha === alpha) return got.probs;
  const probs = distanceProbs(b.scores, T, b.allowed, alpha);
  lastAlpha.set(b, { alpha, probs });
  return probs;
}

/* The boolean direction mask (Shen Eqs. 16–18, Im Fig. 3) as Uint8Array T·T. */
export function directionAllowed(T, kind) {
  const out = new Uint8Array(T * T);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      const ok = kind === "fw" ? j < i : kind === "bw" ? j > i : kind === "diag" ? j !== i : kind === "none";
      out[i * T + j] = ok ? 1 : 0;
    }
  }
  return out;
}

/* Shen Eq. 15 under the mask `allowed` (T·T, rows = query j): for every query j and feature k (`only`: k alone),
 * the softmax over the allowed keys i of c·tanh((queries[j, k] + keys[i, k]) / c), handed to visit(j, k, kept, n,
 * w, sum): the n allowed keys kept[0..n) and their terms w (P = w / sum). keys: T·D (W1 h_i + b1), queries: T·D
 * (W2 h_j). tanh(y) = 1 − 2 / (e^{2y} + 1) and e^{2(q + k)/c} = e^{2q/c} · e^{2k/c}: one exp per key and query
 * feature, a product per cell. The logits lie in [−c, c], so the softmax is shifted by c (as fused_attention.py). */
function eachSoftmax(keys, queries, T, allowed, c, visit, only) {
  const D = keys.length / T, w = new Float64Array(T), kept = new Int32Array(T);
  const [k0, k1] = only === undefined ? [0, D] : [only, only + 1];
  const ek = new Float64Array(D * T); // feature-major: ek[k·T + i] = e^{2·keys[i, k]/c}
  for (let i = 0; i < T; i++) for (let k = k0; k < k1; k++) ek[k * T + i] = Math.exp(2 * keys[i * D + k] / c);
  for (let j = 0; j < T; j++) {
    let n = 0;
    for (let i = 0; i < T; i++) if (allowed[j * T + i]) kept[n++] = i;
    if (!n) continue;
    for (let k = k0; k < k1; k++) {
      const eq = Math.exp(2 * queries[j * D + k] / c), base = k * T;
      let sum = 0;
      for (let m = 0; m < n; m++) {
        const e = Math.exp(c * (1 - 2 / (eq * ek[base + kept[m]] + 1)) - c);
        w[m] = e;
        sum += e;
      }
      visit(j, k, kept, n, w, sum);
    }
  }
}

/* P averaged over the D features (Shen Fig. 6): Float32Array T·T, [j·T + i]. */
function disanMean(keys, queries, T, allowed, c) {
  const D = keys.length / T, sums = new Float64Array(T * T); // summed in doubles, stored as floats
  eachSoftmax(keys, queries, T, allowed, c, (j, k, kept, n, w, sum) => {
    for (let m = 0; m < n; m++) sums[j * T + kept[m]] += w[m] / (sum * D);
  });
  return Float32Array.from(sums);
}

/* DiSAN's per-feature P: Float32Array T·T·D, [(j·T + i)·D + k], masked cells exactly 0; with `only` (feature k) its
 * P[:, :, k] alone (T·T, [j·T + i]) for T² terms instead of T²·D. */
export function disanProbs(keys, queries, T, allowed, c, only) {
  const D = only === undefined ? keys.length / T : 1, out = new Float32Array(T * T * D);
  eachSoftmax(keys, queries, T, allowed, c, (j, k, kept, n, w, sum) => {
    for (let m = 0; m < n; m++) out[(j * T + kept[m]) * D + (D === 1 ? 0 : k)] = w[m] / sum;
  }, only);
  return out;
}

/* Whether a DiSAN block carries Eq. 15's parts (the page's own model's view), from which its P follows. */
export const hasParts = b => Boolean(b.keys && b.queries && b.c);

/* compute(keys, queries, T, allowed, c) of a DiSAN block, once per block, from Eq. 15's parts (else null). */
function perBlock(compute) {
  const memo = new WeakMap();
  return (b, T) => {
    if (!hasParts(b)) return null;
    let got = memo.get(b);
    if (!got) memo.set(b, got = compute(b.keys, b.queries, T, b.allowed, b.c));
    return got;
  };
}

/* A DiSAN block's per-feature P (T·T·D, as disanProbs), or null. */
export const perFeature = perBlock(disanProbs);

/* DiSAN's P maximised over the D features (T·T, [j·T + i]; masked cells 0). */
function disanMax(keys, queries, T, allowed, c) {
  const out = new Float32Array(T * T);
  eachSoftmax(keys, queries, T, allowed, c, (j, k, kept, n, w, sum) => {
    for (let m = 0; m < n; m++) {
      const p = w[m] / sum, at = j * T + kept[m];
      if (p > out[at]) out[at] = p;
    }
  });
  return out;
}

/* A DiSAN block's max over features (Shen Eq. 15), or null. */
export const featureMax = perBlock(disanMax);

/* The trace view under the direction masks `kind` ("none", "diag", "fw", "bw"; both blocks), for Compare; null
 * where the view lacks what it needs. The masks enter after the logits, so a DSA's heads are its pre-mask scores'
 * softmax at the view's α (Im Eq. 7) and a DiSAN's mean is recomputed from Eq. 15's parts. Only the attention
 * maps change (not gates or outputs). Kept per view and kind: charts of one page share them. */
const remasked = new WeakMap();

export function remask(tv, kind) {
  const byKind = remasked.get(tv) || remasked.set(tv, {}).get(tv);
  if (!(kind in byKind)) byKind[kind] = remaskOnce(tv, kind);
  return byKind[kind];
}

function remaskOnce(tv, kind) {
  const sentence = sent => {
    if (!sent) return sent;
    const T = sent.tokens.length, allowed = directionAllowed(T, kind), out = { ...sent };
    for (const dir of ["fw", "bw"]) {
      const b = sent[dir], block = out[dir] = { ...b, mask: kind, allowed };
      if (tv.arch === "dsa") {
        block.heads = distanceProbs(b.scores, T, allowed, tv.alpha || 0);
        block.attention = headMean(block.heads, T);
        continue;
      }
      // computed when first read: Compare draws one direction, and its T·T·D terms are the remask's cost
      let mean = null;
      Object.defineProperty(block, "attention", { enumerable: true, configurable: true,
        get: () => mean || (mean = disanMean(b.keys, b.queries, T, allowed, b.c)) });
    }
    return out;
  };
  const has = tv.arch === "dsa" ? b => Boolean(b.scores) : hasParts;
  if (![tv.premise, tv.hypothesis].filter(Boolean).every(s => has(s.fw) && has(s.bw))) return null;
  return { ...tv, masks: [kind, kind], premise: sentence(tv.premise), hypothesis: sentence(tv.hypothesis) };
}

/* Im Eq. 7's additive term M_dir + α·M_dis (Float64Array T·T; cells M_dir forbids are NaN, shown as −∞).
 * kind "none" gives α·M_dis alone (Im Fig. 4 times α). */
export function maskPanel(T, kind, alpha) {
  const allowed = directionAllowed(T, kind), out = new Float64Array(T * T);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) out[i * T + j] = allowed[i * T + j] ? -alpha * Math.abs(i - j) : NaN;
  }
  return out;
}

/* α as Python's f"{alpha:g}" writes the app's 0.1-step values: 1.5, 0, 5, 0.3. */
export const formatValue = x => String(Number(Number(x).toPrecision(6)));

/* Figure spec `spec` drawn again in place at `values` {alpha, feature} by its binding ({follows, redraw: values →
 * the figure built at them}), and returned: its title and panels' views (a clicked row's bars panel kept). The
 * host's update(spec) then repaints the cells (and titles) only. */
export function render(binding, spec, values) {
  const next = binding.redraw(values);
  spec.title = next.title;
  next.panels.forEach((p, i) => { if (!spec.rowBars || p.name !== spec.rowBars.bars) spec.panels[i].view = p.view; });
  return spec;
}
