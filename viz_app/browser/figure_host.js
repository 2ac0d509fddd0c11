/* The figure host: draws a figure spec (what every per-sentence figure builder returns; docs/figure-components.md
 * "Figure specs and the host") with the canvas components, one per panel in a CSS grid, and keeps them:
 * update(spec) with the same panels hands each component its new view, so only what changed repaints.
 *
 *   const fig = mountFigure(element, spec, {provenance: {checkpointSha256, version}, theme: "normal"});
 *   fig.update(nextSpec);          // same panel kinds and names: each component's update(view); else rebuilt
 *   fig.setTheme("presentation");  // talk mode: every panel's theme, without a new spec
 *   await fig.exportAs("svg", "forward");  // png | svg | json | csv of one panel (default: the first); html: all
 *   drawIn(element, spec, {provenance, theme})  // the hosts' way: the host kept in `element`, updated; hostIn(element)
 *
 * A spec is plain data (typed arrays allowed), as figure_spec.js writes it. No plotting library is involved. */
import { THEMES, createBars, createHeatmap, download, fileStem } from "./components/index.mjs";
import { addStyle, el } from "./components/figure.mjs";
import { figureHtml, checkSpec, sameLayout, sameSpec } from "./figure_spec.js";
import { argmax } from "./util.js";

const CSS = `
.disan-figure { margin: 0 0 8px; }
.disan-figure__head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
.disan-figure__title { font-weight: 600; margin: 4px 0; }
.disan-figure__export { font-size: 12px; }
.disan-figure__export button { font-size: 12px; margin-right: 4px; }
.disan-figure__grid { display: grid; gap: 8px 16px; }
.disan-figure__rowbars { grid-column: 1 / -1; }
.disan-figure__error { color: #a4000f; margin: 4px 0; }
`;

/* Draw `spec` into `element` (its children are replaced). options: {provenance: {checkpointSha256, version}
 * (written into every export), theme: "normal" | "presentation" | null (overrides the views' own), menu:
 * false (no export menu)}. Returns the handle described at the top of this file. */
export function mountFigure(element, spec, options = {}) {
  addStyle(element.ownerDocument, "disan-figure-style", CSS);
  const opts = { provenance: null, theme: null, menu: true, ...options };
  const root = el("div", { className: "disan-figure" }), head = el("div", { className: "disan-figure__head" });
  const title = el("div", { className: "disan-figure__title" }), grid = el("div", { className: "disan-figure__grid" });
  const error = el("p", { className: "disan-figure__error", hidden: true }, { role: "alert" });
  head.append(title);
  root.append(head, error, grid);
  element.replaceChildren(root);

  // selected: the row whose bars are shown ({panel, row}), refilled from each new spec (feature k, α)
  let current = null, panels = [], drawn = 0, highlight = null, selected = null;
  const menu = opts.menu ? exportMenu() : null;
  if (menu) head.append(menu.element);

  // talk mode: the presentation theme, and a fixed height grown as its text (20 / 13) but so that its section fits the window
  const grow = THEMES.presentation.font_size / THEMES.normal.font_size, win = element.ownerDocument.defaultView;
  const withTheme = (view) => (!opts.theme ? view : { ...view, theme: opts.theme, ...(view.height && opts.theme === "presentation" &&
    view.theme !== "presentation" ? { height: Math.min(Math.round(view.height * grow), Math.max(300, win.innerHeight - 320)) } : {}) });
  // the tokens the figure shows (its first panel's rows or bars), for data-drawn
  const tokensOf = (s) => (s.panels[0].kind === "heatmap" ? s.panels[0].view.rowTokens : s.panels[0].view.labels);

  function build(next) {
    grid.replaceChildren();
    panels = next.panels.map((p) => {
      const cell = el("div", { className: "disan-figure__cell" });
      // the bars a clicked row fills: hidden until a row is clicked, then a row of the grid of their own
      if (next.rowBars && next.rowBars.bars === p.name) { cell.classList.add("disan-figure__rowbars"); cell.hidden = true; }
      grid.append(cell);
      const make = p.kind === "heatmap" ? createHeatmap : createBars;
      return { kind: p.kind, name: p.name, component: make(cell, { name: `${next.name}/${p.name}`, provenance: opts.provenance }) };
    });
    const shown = next.panels.length - (next.rowBars ? 1 : 0);
    grid.style.gridTemplateColumns = `repeat(${Math.max(1, Math.min(next.columns || shown, shown))}, minmax(0, 1fr))`;
    root.dataset.figure = `figure:${next.name}`;
    // the row bars are exported once a row fills them: before, the menu offered them empty ("Row … (click a row)")
    if (menu) menu.panels(next.panels.filter((p) => !next.rowBars || next.rowBars.bars !== p.name).map((p) => p.name));
  }

  /* Draw a spec; false (one line shown instead) when it cannot be drawn. */
  function update(next) {
    try {
      checkSpec(next);
    } catch (err) {
      return fail(`figure ${next && next.name || "?"}: ${err.message}`);
    }
    if (!current || !sameLayout(current, next)) { highlight = null; selected = null; build(next); }
    current = next;
    Object.assign(title, { textContent: next.title || "", hidden: !next.title });
    let ok = true;
    const source = selected && next.rowBars && next.panels.find((p) => p.name === selected.panel && p.kind === "heatmap");
    const row = source && selected.row < source.view.z.length ? selected.row : null;
    next.panels.forEach((p, i) => {
      if (row !== null && p.name === next.rowBars.bars) return;  // filled below with the selected row's new values
      const view = withTheme(p.view);
      if (p.kind === "heatmap" && highlight && highlight.panel === p.name && !("highlight" in p.view)) view.highlight = highlight.cell;
      ok = panels[i].component.update(view) && ok;
    });
    if (row !== null) {
      const v = source.view, colTokens = Array.from(v.colTokens || v.rowTokens, String);
      showBars(source, { row, token: String(v.rowTokens[row]), values: Array.from(v.z[row]), colTokens });
    }
    error.hidden = true;
    root.dataset.drawn = `${++drawn}:${JSON.stringify(tokensOf(next))}`;
    return ok;
  }

  function fail(message) {
    Object.assign(error, { textContent: message, hidden: false });
    root.dataset.drawn = `${++drawn}:error`;
    return false;
  }

  // a clicked row (or Enter on a focused cell) shows its bars; in talk mode its largest cell is outlined
  grid.addEventListener("figure-rowselect", (ev) => {
    const rb = current && current.rowBars, d = /** @type {CustomEvent} */ (ev).detail;
    const source = current && current.panels.find((p) => d.figure === `heatmap:${current.name}/${p.name}`);
    if (!source) return;
    if (opts.theme === "presentation") {
      const c = argmax(d.values);
      highlight = c < 0 ? null : { panel: source.name, cell: [d.row, c] };
      const i = current.panels.indexOf(source);
      panels[i].component.update({ highlight: highlight && highlight.cell });
    }
    if (!rb || (rb.panel !== "*" && rb.panel !== source.name)) return;
    selected = { panel: source.name, row: d.row };
    showBars(source, d);
  });

  /* The row bars filled with row d.row of the heatmap panel `source` ({row, token, values, colTokens}). */
  function showBars(source, d) {
    const rb = current.rowBars, i = current.panels.findIndex((p) => p.name === rb.bars);
    panels[i].component.root.parentElement.hidden = false;
    if (menu) menu.panels(current.panels.map((p) => p.name));
    const masked = source.view.masked?.[d.row];  // the row's excluded cells: no bar, as the map draws no weight
    panels[i].component.update(withTheme({ values: d.values, labels: d.colTokens, title: `${rb.title || "Row"} #${d.row} '${d.token}' (${source.name})`,
      valueName: source.view.valueName || "value", orientation: "vertical", masked: masked ? Array.from(masked, Boolean) : null }));
  }

  function setTheme(theme) {
    opts.theme = theme || null;
    if (!current) return;
    if (opts.theme !== "presentation") highlight = null;
    current.panels.forEach((p, i) => panels[i].component.update({ theme: opts.theme || p.view.theme || "normal",
      height: withTheme(p.view).height, ...(p.kind === "heatmap" && !("highlight" in p.view) ? { highlight: null } : {}) }));
    root.dataset.drawn = `${++drawn}:${JSON.stringify(tokensOf(current))}`;
  }

  /* {filename, mime, data}: one panel's png | svg | json | csv, or the whole figure's standalone html. */
  async function exportAs(kind, panel) {
    if (!current) throw new Error("nothing drawn to export");
    if (kind === "html") {
      const svgs = [], data = [];
      for (const p of panels) {
        svgs.push(String((await p.component.exportAs("svg")).data));
        data.push(JSON.parse(String((await p.component.exportAs("json")).data)));
      }
      return { filename: `${fileStem(current.name, opts.provenance)}.html`, mime: "text/html",
        data: figureHtml({ name: current.name, title: current.title, columns: current.columns, provenance: opts.provenance, svgs, data }) };
    }
    const i = panel === undefined ? 0 : panels.findIndex((p) => p.name === panel);
    if (i < 0) throw new Error(`figure ${current.name} has no panel ${JSON.stringify(panel)}: it has ${panels.map((p) => p.name).join(", ")}`);
    return panels[i].component.exportAs(kind);
  }

  function exportMenu() {
    const box = el("details", { className: "disan-figure__export" }), which = el("select", {}, { "aria-label": "panel to export" });
    box.append(el("summary", { textContent: "Export" }), which);
    for (const kind of ["png", "svg", "json", "csv", "html"]) {
      const b = el("button", { type: "button", textContent: kind.toUpperCase() }, { "data-export": kind });
      b.addEventListener("click", () => exportAs(kind, which.value || undefined).then(download, (err) => fail(err.message)));
      box.append(b);
    }
    return {
      element: box,
      panels(names) {
        const was = which.value;
        which.replaceChildren(...names.map((n) => el("option", { value: n, textContent: n })));
        if (names.includes(was)) which.value = was;
        which.hidden = names.length < 2;
      },
    };
  }

  update(spec);
  return {
    root, update, setTheme, exportAs,
    get spec() { return current; },
    get theme() { return opts.theme; },
    get panels() { return panels.map((p) => ({ kind: p.kind, name: p.name, component: p.component })); },
  };
}

/* The figure host each element shows (report.js and chart.js draw through drawIn), with its provenance as JSON. */
const KEPT = new WeakMap();

/* The host drawn in `element` (null before one is, or after its figure left the page); with `provenance`, only one
 * whose exports name that provenance. */
export function hostIn(element, provenance) {
  const kept = KEPT.get(element);
  const ok = kept && kept.host.root.isConnected && (provenance === undefined || kept.provenance === JSON.stringify(provenance || null));
  return ok ? kept.host : null;
}

/* Draw `spec` in `element`: the host kept there takes the theme and update(spec) (nothing when the spec draws what
 * it shows, e.g. an NLI pair's other sentence while one is typed); a new host where none is kept for this
 * provenance. Returns the host. */
export function drawIn(element, spec, { provenance = null, theme = null } = {}) {
  const host = hostIn(element, provenance);
  if (!host) {
    const made = mountFigure(element, spec, { provenance, theme });
    KEPT.set(element, { host: made, provenance: JSON.stringify(provenance) });
    return made;
  }
  if (host.theme !== theme) host.setTheme(theme);
  if (!sameSpec(host.spec, spec)) host.update(spec);
  return host;
}
