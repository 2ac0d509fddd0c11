/* Moving a keyboard focus across a grid of R × C cells (a heatmap; bars are R × 1 or 1 × C).
 * Arrows move by one, Home / End to the row's ends, PageUp / PageDown to the column's ends. */

/* The cell after `key` from [r, c], or null for a key that does not move. */
export function nextCell([r, c], key, R, C) {
  const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
  switch (key) {
    case "ArrowUp": return [clamp(r - 1, R), c];
    case "ArrowDown": return [clamp(r + 1, R), c];
    case "ArrowLeft": return [r, clamp(c - 1, C)];
    case "ArrowRight": return [r, clamp(c + 1, C)];
    case "Home": return [r, 0];
    case "End": return [r, C - 1];
    case "PageUp": return [0, c];
    case "PageDown": return [R - 1, c];
    default: return null;
  }
}

/* Keys on a focusable element: move(cell) after a moving key, activate(cell) on Enter or Space. size() gives
 * [R, C] now; the focus starts at [0, 0] and is kept inside the grid when the data shrinks. */
export function attachKeys(el, { size, move, activate }) {
  let at = null;
  const clampTo = ([r, c], [R, C]) => [Math.min(r, R - 1), Math.min(c, C - 1)];
  el.addEventListener("focus", () => {
    const [R, C] = size();
    if (R > 0 && C > 0) { at = clampTo(at || [0, 0], [R, C]); move(at); }
  });
  el.addEventListener("blur", () => move(null));
  el.addEventListener("keydown", (e) => {
    const [R, C] = size();
    if (!R || !C) return;
    at = clampTo(at || [0, 0], [R, C]);
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); activate(at); return; }
    const next = nextCell(at, e.key, R, C);
    if (next) { e.preventDefault(); at = next; move(at); }
  });
  return { focused: () => at };
}
