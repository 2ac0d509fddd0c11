/* What every figure component shares: a root carrying the test contract (data-figure, data-drawn), a focusable
 * stage of stacked canvases (one per layer, sized for devicePixelRatio), hover, the keyboard, an aria-live
 * region, a one-line error, the table fallback (a <details> built when opened) and the exports' entry. The
 * heatmap and the bars give what differs (`def`): draw(next) (calls render), reset(), view(), layout(), layers
 * (name → paint(painter, live)), grid() → [R, C], describe(cell) → lines, separator, select(cell), table(),
 * data(), csv(prov), and optionally regions (layer → () → the part of the stage it paints) and pixels ({layer,
 * rect}: a layer of cells alone, one canvas pixel each; `place` says how). */
import { FONT_FAMILY, canvasPainter, cellImage } from "./painter.mjs";
import { exportFigure } from "./export.mjs";

const CSS = `.disan-fig { position: relative; display: block; font-family: ${FONT_FAMILY}; color: #2a3f5f; }
.disan-fig__stage { position: relative; } .disan-fig__layers { position: absolute; inset: 0; overflow: hidden; }
.disan-fig__layers canvas { position: absolute; left: 0; top: 0; }
.disan-fig__stage:focus-visible { outline: 2px solid #0072B2; outline-offset: 2px; } .disan-fig__error { color: #a4000f; margin: 4px 0; }
.disan-fig__tip { position: absolute; z-index: 1; pointer-events: none; white-space: pre; font-size: 12px;
  background: rgba(255, 255, 255, 0.96); border: 1px solid #6b7a8f; border-radius: 3px; padding: 4px 6px; }
.disan-fig__live { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.disan-fig__table table { border-collapse: collapse; font-size: 12px; }
.disan-fig__table th, .disan-fig__table td { border: 1px solid #c8d4e3; padding: 1px 4px; text-align: right; }`;

/* The layers' backing stores grow to the next multiple of this many CSS pixels (figure.mjs resize). */
const ROOM_STEP = 128;
const roomFor = (px) => Math.max(ROOM_STEP, Math.ceil(px / ROOM_STEP) * ROOM_STEP);

/* An element with its properties and attributes (figure_host.js builds with it too). */
export function el(tag, props = {}, attrs = {}) {
  const e = Object.assign(document.createElement(tag), props);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/* A <style> of `css` in the document's head, once per id. */
export function addStyle(doc, id, css) {
  if (!doc.getElementById(id)) doc.head.append(el("style", { id, textContent: css }));
}

/* The table fallback: caption, one header row (corner + column headers), one row per row header; text goes in
 * with textContent, so a token holding HTML stays text. */
export function dataTable(caption, corner, colHeaders, rowHeaders, valueAt) {
  const table = el("table"), th = (textContent, scope) => el("th", { textContent, scope }), body = table.createTBody();
  table.createCaption().textContent = caption;
  table.createTHead().insertRow().append(...[corner, ...colHeaders].map((h) => th(h, "col")));
  rowHeaders.forEach((h, r) => body.insertRow().append(th(h, "row"), ...colHeaders.map((_, c) => el("td", { textContent: valueAt(r, c) }))));
  return table;
}

/* The cell after `key` from [r, c] in an R × C grid (bars are R × 1 or 1 × C), or null for a key that does
 * not move: arrows by one, Home / End to the row's ends, PageUp / PageDown to the column's. */
export function nextCell([r, c], key, R, C) {
  const to = { ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1], Home: [r, 0], End: [r, C - 1],
    PageUp: [0, c], PageDown: [R - 1, c] }[key];
  return to ? [Math.max(0, Math.min(R - 1, to[0])), Math.max(0, Math.min(C - 1, to[1]))] : null;
}

/* The cell [r, c] of an R × C grid over `plot` {x, y, w, h} under a point, or null outside it (bars: R × 1, 1 × C). */
export function cellAt(plot, R, C, x, y) {
  const r = Math.floor((y - plot.y) / (plot.h / R)), c = Math.floor((x - plot.x) / (plot.w / C));
  return r >= 0 && r < R && c >= 0 && c < C ? [r, c] : null;
}

export function createFigure(parent, def) {
  const { kind, name } = def, layers = Object.keys(def.layers), doc = parent.ownerDocument;
  addStyle(doc, "disan-fig-style", CSS);
  const root = el("div", { className: "disan-fig" }, { "data-figure": `${kind}:${name}`, "data-drawn": "" });
  const stage = el("div", { className: "disan-fig__stage" }, { tabindex: "0", role: "application", "aria-roledescription": kind });
  const canvases = layers.map((layer) => el("canvas", {}, { "aria-hidden": "true", "data-layer": layer }));
  const tip = el("div", { className: "disan-fig__tip", hidden: true }, { "aria-hidden": "true" });
  const live = el("div", { className: "disan-fig__live" }, { "aria-live": "polite", "aria-atomic": "true" });
  const error = el("p", { className: "disan-fig__error", hidden: true }, { role: "alert" });
  const details = el("details", { className: "disan-fig__table" });
  const clip = el("div", { className: "disan-fig__layers" });
  clip.append(...canvases);
  stage.append(clip, tip);
  details.append(el("summary", { textContent: "Data as a table" }));
  const refreshTable = () => details.replaceChildren(details.firstChild, ...(details.open ? [ready() ? def.table() : el("table")] : []));
  details.addEventListener("toggle", refreshTable);
  root.append(stage, live, error, details);
  parent.append(root);

  const paints = Object.fromEntries(layers.map((l) => [l, 0]));
  let count = 0, size = [0, 0], dpr = 1, painters = {}, last = {}, hover = null, focus = null, at = null;
  const ready = () => def.view() !== null;
  const point = (e) => { const b = stage.getBoundingClientRect(); return [e.clientX - b.left, e.clientY - b.top]; };
  const hit = (x, y) => cellAt(def.layout().plot, ...def.grid(), x, y);
  /* Each layer's canvas covers only where it paints: the stage, or def.regions[layer]() {x, y, w, h} (CSS pixels of
   * the stage), or with def.pixels (its cells alone, no text) one canvas pixel per cell, scaled up by the page
   * (image-rendering: pixelated) over pixels.rect() {x, y, w, h, R, C} (null: where numbers fit in the cells, a
   * region of its own). The compositor copies every repainted canvas whole in the page's commit, which took up to
   * 54 ms a key at T = 64 with four stage-sized layers a heatmap (docs/figure-components.md). The backing stores
   * (× devicePixelRatio) only grow, in steps of ROOM_STEP, and the stage clips them: a sentence of another length
   * repaints the canvases it has instead of reallocating every one (8 ms of the page's thread per sentence at
   * T ≤ 20). */
  const rooms = {};  // layer → [w, h, dpr] of its backing store in CSS pixels; null while one pixel per cell
  function place(layer, rect, pixelated) {
    const c = canvases[layers.indexOf(layer)], room = rooms[layer] ?? null;
    if (pixelated) {
      if (room || c.width !== rect.C || c.height !== rect.R) Object.assign(c, { width: rect.C, height: rect.R });
      rooms[layer] = null;
    } else if (!room || rect.w > room[0] || rect.h > room[1] || room[2] !== dpr) {
      const kept = room?.[2] === dpr ? room : [0, 0];
      rooms[layer] = [Math.max(kept[0], roomFor(rect.w)), Math.max(kept[1], roomFor(rect.h)), dpr];
      Object.assign(c, { width: Math.round(rooms[layer][0] * dpr), height: Math.round(rooms[layer][1] * dpr) });
    }
    const [w, h] = pixelated ? [rect.w, rect.h] : rooms[layer];
    Object.assign(c.style, { left: `${rect.x}px`, top: `${rect.y}px`, width: `${w}px`, height: `${h}px`,
      imageRendering: pixelated ? "pixelated" : "" });
    const ctx = c.getContext("2d"), own = painters[layer] || (painters[layer] = { ctx, canvas: canvasPainter(ctx) });
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, c.width, c.height);
    if (!pixelated) ctx.setTransform(dpr, 0, 0, dpr, -rect.x * dpr, -rect.y * dpr);
    own.painter = !pixelated ? own.canvas : own.pixels || (own.pixels = { ...own.canvas,
      cells: (x, y, cw, ch, R, C, rgbAt) => ctx.putImageData(cellImage(R, C, rgbAt), 0, 0) });
  }
  function resize(w, h) {
    dpr = window.devicePixelRatio || 1;
    size = [w, h];
    Object.assign(stage.style, { width: `${w}px`, height: `${h}px` });
  }
  const fig = {
    root, paints,
    get measure() {
      if (!painters[layers[0]]) place(layers[0], { x: 0, y: 0, w: size[0], h: size[1] }, false);
      return painters[layers[0]].canvas.measure;
    },
    /* Draw a view (merged into the last one); false, with one line shown instead, when it cannot be drawn. */
    update(next) {
      let message = null;
      try { def.draw(next || {}); } catch (err) { message = `${kind} ${name}: ${err.message}`; last = {}; def.reset(); }
      Object.assign(error, { hidden: message === null, textContent: message || "" });
      stage.hidden = message !== null;
      if (message !== null) root.dataset.drawn = `${++count}:error`;
      return message === null;
    },
    /* Paint what changed: a new keys.frame (or `relayout`) resizes, lays out (layout(measure)) and paints every
     * layer; otherwise only the layers whose key (any JSON value) changed. Then the contract
     * (docs/figure-components.md): data-drawn's new counter and tokens, set in the same task as the pixels. */
    render({ width, height, keys, relayout = false, layout, tokens, label }) {
      const now = Object.fromEntries(layers.map((l) => [l, JSON.stringify(keys[l] ?? null)]));
      if (relayout || now.frame !== last.frame) { last = {}; resize(width, height); layout(fig.measure); }
      const changed = layers.filter((l) => now[l] !== last[l]);
      last = now;
      if (!changed.length) return;
      changed.forEach(fig.paint);
      root.dataset.drawn = `${++count}:${JSON.stringify(tokens)}`;
      stage.setAttribute("aria-label", label);
      if (details.open) refreshTable();
    },
    /* Paint one layer again: def.layers[layer](painter, {hover, focus}) (the exports pass null: no hover). */
    paint(layer) {
      const cells = def.pixels?.layer === layer ? def.pixels.rect() : null;
      place(layer, cells || def.regions?.[layer]?.() || { x: 0, y: 0, w: size[0], h: size[1] }, Boolean(cells));
      def.layers[layer](painters[layer].painter, { hover, focus });
      paints[layer]++;
    },
    announce(text) { live.textContent = text; },
    /* The component as its host sees it: root, update, exportAs, and for tests paints, layout and view. */
    api: (extra) => Object.defineProperties({ root, update: fig.update, exportAs: fig.exportAs, paints, ...extra },
      { layout: { get: def.layout }, view: { get: def.view } }),
    exportAs(type) {
      if (!ready()) return Promise.reject(new Error(`${kind} ${name}: nothing drawn to export`));
      return exportFigure(type, { id: `${kind}:${name}`, provenance: def.provenance, measure: fig.measure, width: size[0],
        height: size[1], title: def.view().title, paint: (q) => layers.forEach((l) => def.layers[l](q, null)), data: def.data, csv: def.csv });
    },
  };

  stage.addEventListener("pointermove", (e) => {
    if (!ready()) return;
    const [x, y] = point(e), key = hit(x, y);
    if (String(key) !== String(hover)) { hover = key; fig.paint("marks"); }
    if (key === null) { tip.hidden = true; return; }
    tip.textContent = def.describe(key).join("\n");
    tip.hidden = false;
    tip.style.left = `${Math.min(x + 12, Math.max(0, size[0] - tip.offsetWidth - 2))}px`;
    tip.style.top = `${y + 14 + tip.offsetHeight > size[1] ? Math.max(0, y - tip.offsetHeight - 8) : y + 14}px`;
  });
  stage.addEventListener("pointerleave", () => { hover = null; tip.hidden = true; if (ready()) fig.paint("marks"); });
  stage.addEventListener("click", (e) => { const key = ready() ? hit(...point(e)) : null; if (key !== null) def.select?.(key); });
  new ResizeObserver(() => {  // a figure without a fixed width follows its parent's
    if (parent.clientWidth > 0 && ready() && !def.view().width && Math.round(parent.clientWidth) !== size[0]) fig.update({});
  }).observe(parent);
  // the keyboard focus: from [0, 0], kept inside the grid; drawn for a key's focus, not a click's (a box no one chose)
  const move = (cell) => {
    focus = cell;
    if (!ready()) return;
    fig.paint("marks");
    if (cell) live.textContent = def.describe(focus).join(def.separator);
  };
  const grid = () => {  // [R, C] ([0, 0] before a drawing), the focus clamped inside
    const [R, C] = ready() ? def.grid() : [0, 0];
    if (R && C) at = [Math.min(at?.[0] ?? 0, R - 1), Math.min(at?.[1] ?? 0, C - 1)];
    return [R, C];
  };
  stage.addEventListener("focus", () => { if (grid()[0] && stage.matches(":focus-visible")) move(at); });
  stage.addEventListener("blur", () => move(null));
  stage.addEventListener("keydown", (e) => {
    const [R, C] = grid(), next = R && C && nextCell(at, e.key, R, C);
    if (R && C && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); def.select?.(at); }
    else if (next) { e.preventDefault(); at = next; move(at); }
  });
  return fig;
}
