/* The attention signature of one sentence of the page's trace view: disan/corpus/measures.py `signature`, so that
 * Search's "nearest to the page's sentence" orders hits as `disan search --like SENTENCE` does (issue 56).
 *
 * Per block (fw, bw): the attention mass per |i − j| bin averaged over rows that attend (EDGES), the mean row
 * entropy over log n_i (rows with n_i > 1 allowed keys), the mean gate (Shen Eq. 19 / Im Eq. 12); for the DSA each
 * head's mean attended distance over live rows, over T (Im Eq. 7's heads); then source2token's entropy (features
 * averaged, Shen Eqs. 12–13 / Im Eq. 15) over log T. The page's model runs float16 weights (docs/static-explorer.md),
 * so the numbers agree with Python's to about 1e-3, not bit for bit (tests/test_site_search_browser.py). */

/** Lower edges of the distance bins: 0, 1, 2, 3, 4–7, 8–15, ≥ 16 (measures.DISTANCE_BIN_EDGES). */
export const EDGES = [0, 1, 2, 3, 4, 8, 16];

const bin = d => EDGES.findLastIndex(e => d >= e);

/** Entropy in nats of `values[from, from + n)` (0·log 0 = 0). */
function entropy(values, from, n) {
  let h = 0;
  for (let j = 0; j < n; j++) { const p = values[from + j]; if (p > 0) h -= p * Math.log(p); }
  return h;
}

/** One block's part of the signature. @param {any} b @param {number} T @param {boolean} dsa */
function blockPart(b, T, dsa) {
  const hist = new Array(EDGES.length).fill(0), live = [];
  let rows = 0, ent = 0, entRows = 0, gate = 0;
  for (let i = 0; i < T; i++) {
    const n = b.allowed.slice(i * T, (i + 1) * T).reduce((a, v) => a + (v ? 1 : 0), 0);
    live.push(n > 0);
    if (n > 0) {
      rows += 1;
      for (let j = 0; j < T; j++) hist[bin(Math.abs(i - j))] += b.attention[i * T + j];
    }
    if (n > 1) { ent += entropy(b.attention, i * T, T) / Math.log(n); entRows += 1; }
    gate += b.gate.slice(i * b.D, (i + 1) * b.D).reduce((a, v) => a + v, 0) / b.D;
  }
  const out = hist.map(v => v / Math.max(rows, 1));
  out.push(entRows ? ent / entRows : 0, gate / T);
  if (dsa) {
    const H = b.heads.length / (T * T);
    for (let h = 0; h < H; h++) {
      let sum = 0;
      for (let i = 0; i < T; i++) {
        if (!live[i]) continue;
        for (let j = 0; j < T; j++) sum += b.heads[h * T * T + i * T + j] * Math.abs(i - j);
      }
      out.push(rows ? sum / rows / T : 0);
    }
  }
  return out;
}

/** The signature of side `S` ({T, fw, bw, s2t, D2}) of a trace view of architecture `arch`.
 * @param {any} S @param {string} arch @returns {number[]} */
export function signatureOf(S, arch) {
  const T = S.T, out = [];
  for (const name of ["fw", "bw"]) out.push(...blockPart(S[name], T, arch === "dsa"));
  const mean = Array.from({ length: T }, (_, t) => S.s2t.slice(t * S.D2, (t + 1) * S.D2).reduce((a, v) => a + v, 0) / S.D2);
  out.push(entropy(mean, 0, T) / Math.log(Math.max(T, 2)));
  return out;
}
