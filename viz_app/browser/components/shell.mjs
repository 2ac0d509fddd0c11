/* The DOM every figure component shares: a root element carrying the test contract (data-figure and
 * data-drawn), a focusable stage of stacked canvases (one per layer, sized for devicePixelRatio), a hover
 * tip, an aria-live region, a one-line error, and the table fallback in a <details> built when opened. */
import { FONT_FAMILY } from "./painter.mjs";

const CSS = `
.disan-fig { position: relative; display: block; font-family: ${FONT_FAMILY}; color: #2a3f5f; }
.disan-fig__stage { position: relative; }
.disan-fig__stage canvas { position: absolute; left: 0; top: 0; }
.disan-fig__stage:focus-visible { outline: 2px solid #0072B2; outline-offset: 2px; }
.disan-fig__tip { position: absolute; z-index: 1; pointer-events: none; white-space: pre; font-size: 12px;
  background: rgba(255, 255, 255, 0.96); border: 1px solid #6b7a8f; border-radius: 3px; padding: 4px 6px; }
.disan-fig__live { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
.disan-fig__error { color: #a4000f; margin: 4px 0; }
.disan-fig__table table { border-collapse: collapse; font-size: 12px; }
.disan-fig__table th, .disan-fig__table td { border: 1px solid #c8d4e3; padding: 1px 4px; text-align: right; }
`;

function injectStyle(doc) {
  if (doc.getElementById("disan-fig-style")) return;
  const style = doc.createElement("style");
  style.id = "disan-fig-style";
  style.textContent = CSS;
  doc.head.append(style);
}

function el(tag, cls, attrs = {}) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/* A figure's shell in `parent`. kind: "heatmap" or "bars"; layers: canvas names bottom to top;
 * buildTable(): the current data as a <table>, called when the reader opens the fallback. */
export function createShell(parent, { kind, name, layers, buildTable }) {
  injectStyle(parent.ownerDocument);
  const root = el("div", "disan-fig", { "data-figure": `${kind}:${name}`, "data-drawn": "" });
  const stage = el("div", "disan-fig__stage", { tabindex: "0", role: "application", "aria-roledescription": kind });
  const canvases = {};
  for (const layer of layers) {
    canvases[layer] = el("canvas", null, { "aria-hidden": "true", "data-layer": layer });
    stage.append(canvases[layer]);
  }
  const tip = el("div", "disan-fig__tip", { "aria-hidden": "true" });
  tip.hidden = true;
  stage.append(tip);
  const live = el("div", "disan-fig__live", { "aria-live": "polite", "aria-atomic": "true" });
  const error = el("p", "disan-fig__error", { role: "alert" });
  error.hidden = true;
  const details = el("details", "disan-fig__table");
  const summary = el("summary");
  summary.textContent = "Data as a table";
  details.append(summary);
  details.addEventListener("toggle", () => {
    details.querySelector("table")?.remove();
    if (details.open) details.append(buildTable());
  });
  root.append(stage, live, error, details);
  parent.append(root);

  let drawn = 0, size = [0, 0];
  return {
    root, stage, canvases,
    /* Size every layer to w × h CSS pixels (backing store × devicePixelRatio); their 2D contexts, scaled. */
    resize(w, h) {
      const dpr = window.devicePixelRatio || 1;
      size = [w, h];
      stage.style.width = `${w}px`;
      stage.style.height = `${h}px`;
      const ctxs = {};
      for (const [layer, c] of Object.entries(canvases)) {
        c.width = Math.max(1, Math.round(w * dpr));
        c.height = Math.max(1, Math.round(h * dpr));
        c.style.width = `${w}px`;
        c.style.height = `${h}px`;
        ctxs[layer] = c.getContext("2d");
        ctxs[layer].setTransform(dpr, 0, 0, dpr, 0, 0);
      }
      return ctxs;
    },
    /* Clear a layer's canvas (in CSS pixels). */
    clear(ctx) { ctx.clearRect(0, 0, size[0], size[1]); },
    /* The contract (docs/figure-components.md): a new counter and the tokens shown, set in the same task
     * as the pixels, so the next frame shows both. */
    drawn(tokens) { root.dataset.drawn = `${++drawn}:${JSON.stringify(tokens)}`; },
    tip(text, x, y) {
      if (text === null) { tip.hidden = true; return; }
      tip.textContent = text;
      tip.hidden = false;
      const left = Math.min(x + 12, Math.max(0, size[0] - tip.offsetWidth - 2));
      tip.style.left = `${left}px`;
      tip.style.top = `${y + 14 + tip.offsetHeight > size[1] ? Math.max(0, y - tip.offsetHeight - 8) : y + 14}px`;
    },
    announce(text) { live.textContent = text; },
    label(text) { stage.setAttribute("aria-label", text); },
    /* One line naming the bad input and the fix instead of the figure; null clears it. */
    error(message) {
      error.hidden = message === null;
      error.textContent = message || "";
      stage.hidden = message !== null;
      if (message !== null) root.dataset.drawn = `${++drawn}:error`;
    },
    refreshTable() { if (details.open) { details.querySelector("table")?.remove(); details.append(buildTable()); } },
    /* Call relayout(width) when the parent's width changes (a figure without a fixed width follows it). */
    followWidth(relayout) {
      if (typeof ResizeObserver === "undefined") return;
      new ResizeObserver(() => { if (parent.clientWidth > 0) relayout(parent.clientWidth); }).observe(parent);
    },
    /* Where a pointer event is, in the stage's CSS pixels. */
    point(e) { const b = stage.getBoundingClientRect(); return [e.clientX - b.left, e.clientY - b.top]; },
  };
}
