/* Two painters with one interface, so a figure is drawn by one piece of code on screen (canvas) and in its
 * exports (SVG as vectors: cells as <rect>, text as <text>):
 *
 *   rect(x, y, w, h, fill)            frame(x, y, w, h, stroke, width)    line(x1, y1, x2, y2, stroke, width)
 *   text(s, x, y, {size, weight, fill, align: left|center|right, baseline: top|middle|bottom, angle (deg)})
 *   gradient(x, y, w, h, stops)       a vertical colour ramp, stops [[position, css]] with 0 at the bottom
 *   cells(x, y, cw, ch, R, C, rgbAt)  R × C cells, rgbAt(r, c) → [r, g, b] (or null: nothing drawn)
 *   measure(s, size, weight)          text width in CSS pixels */

export const FONT_FAMILY = '"Open Sans", verdana, arial, sans-serif';  // Plotly's, as today's figures
const font = (size, weight) => `${weight || "normal"} ${size}px ${FONT_FAMILY}`;
const BASELINES = { top: "top", middle: "middle", bottom: "alphabetic" };

/* A painter drawing into a 2D context already scaled to CSS pixels. */
export function canvasPainter(ctx) {
  const widths = new Map();
  let scratch = null, scratchCtx = null;
  const stroke = (colour, width) => { ctx.strokeStyle = colour; ctx.lineWidth = width; };
  return {
    rect(x, y, w, h, fill) { ctx.fillStyle = fill; ctx.fillRect(x, y, w, h); },
    frame(x, y, w, h, colour, width = 1) { stroke(colour, width); ctx.strokeRect(x, y, w, h); },
    line(x1, y1, x2, y2, colour, width = 1) { stroke(colour, width); ctx.beginPath(); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); ctx.stroke(); },
    text(s, x, y, o) {
      // no save/restore around a level label (most of them: every cell number): every method sets what it draws with
      Object.assign(ctx, { font: font(o.size, o.weight), fillStyle: o.fill || "#222", textAlign: o.align || "left",
        textBaseline: BASELINES[o.baseline || "middle"] });
      if (!o.angle) return ctx.fillText(s, x, y);
      ctx.save(); ctx.translate(x, y); ctx.rotate((-o.angle * Math.PI) / 180);
      ctx.fillText(s, 0, 0);
      ctx.restore();
    },
    gradient(x, y, w, h, stops) {
      const g = ctx.createLinearGradient(0, y + h, 0, y);
      for (const [p, c] of stops) g.addColorStop(p, c);
      ctx.fillStyle = g;
      ctx.fillRect(x, y, w, h);
    },
    cells(x, y, cw, ch, R, C, rgbAt) {
      // one pixel per cell, scaled up without smoothing: a T × T map is one table look-up per cell
      const img = cellImage(R, C, rgbAt);
      // the scratch canvas only grows (a new one per sentence length cost a context each): its top-left C × R
      if (!scratch || scratch.width < C || scratch.height < R) {
        scratch = new OffscreenCanvas(Math.max(C, scratch ? scratch.width : 0), Math.max(R, scratch ? scratch.height : 0));
        scratchCtx = scratch.getContext("2d");
      }
      scratchCtx.putImageData(img, 0, 0);
      ctx.save();
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(scratch, 0, 0, C, R, x, y, cw * C, ch * R);
      ctx.restore();
    },
    measure(s, size, weight) {
      const key = `${size}|${weight || ""}|${s}`;
      if (!widths.has(key)) {
        ctx.font = font(size, weight);
        if (widths.size > 20000) widths.clear();
        widths.set(key, ctx.measureText(s).width);
      }
      return widths.get(key);
    },
  };
}

/* R × C cells as an ImageData of one pixel per cell, rgbAt(r, c) → [r, g, b] (null: transparent). */
export function cellImage(R, C, rgbAt) {
  const img = new ImageData(C, R), px = img.data;
  for (let r = 0, k = 0; r < R; r++) {
    for (let c = 0; c < C; c++, k += 4) {
      const rgb = rgbAt(r, c);
      if (rgb) { px[k] = rgb[0]; px[k + 1] = rgb[1]; px[k + 2] = rgb[2]; px[k + 3] = 255; }
    }
  }
  return img;
}

/* XML text: escaped, without the characters XML 1.0 forbids (C0 controls, lone surrogates). */
export function xmlText(s) {
  return String(s)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
    .replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
}

const n = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
const ANCHORS = { left: "start", center: "middle", right: "end" };
const SVG_BASELINES = { top: "hanging", middle: "central", bottom: "alphabetic" };

/* A painter collecting SVG elements; `measure` comes from the screen (or a test's stand-in). body() is the
 * markup painted so far. */
export function svgPainter(measure) {
  const out = [];
  let gradients = 0;
  const rect = (x, y, w, h, paint, cls = "") => out.push(`<rect${cls} x="${n(x)}" y="${n(y)}" width="${n(w)}" height="${n(h)}" ${paint}/>`);
  const stroke = (colour, width) => `stroke="${colour}" stroke-width="${width}"`;
  return {
    rect(x, y, w, h, fill) { rect(x, y, w, h, `fill="${fill}"`); },
    frame(x, y, w, h, colour, width = 1) { rect(x, y, w, h, `fill="none" ${stroke(colour, width)}`); },
    line(x1, y1, x2, y2, colour, width = 1) { out.push(`<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" ${stroke(colour, width)}/>`); },
    text(s, x, y, o) {
      const rot = o.angle ? ` transform="rotate(${-o.angle} ${n(x)} ${n(y)})"` : "";
      out.push(`<text x="${n(x)}" y="${n(y)}" font-size="${o.size}" font-weight="${o.weight || "normal"}" ` +
        `fill="${o.fill || "#222"}" text-anchor="${ANCHORS[o.align || "left"]}" ` +
        `dominant-baseline="${SVG_BASELINES[o.baseline || "middle"]}"${rot}>${xmlText(s)}</text>`);
    },
    gradient(x, y, w, h, stops) {
      const id = `ramp${gradients++}`, s = stops.map(([p, c]) => `<stop offset="${p}" stop-color="${c}"/>`).join("");
      out.push(`<defs><linearGradient id="${id}" x1="0" y1="1" x2="0" y2="0">${s}</linearGradient></defs>`);
      rect(x, y, w, h, `fill="url(#${id})"`);
    },
    cells(x, y, cw, ch, R, C, rgbAt) {
      for (let r = 0; r < R; r++) {
        for (let c = 0; c < C; c++) {
          const rgb = rgbAt(r, c);
          if (rgb) rect(x + c * cw, y + r * ch, cw, ch, `fill="rgb(${rgb[0]},${rgb[1]},${rgb[2]})"`, ' class="cell"');
        }
      }
    },
    measure,
    body: () => out.join("\n"),
  };
}

/* Outlines over a plot {x, y, w, h} cut in R × C cells: {r, c, colour, width, inset} frames cell [r, c], or a whole
 * row (c null) or column (r null), inset (by default half the line) so the line stays inside. */
export function paintBoxes(p, plot, R, C, boxes) {
  const cw = plot.w / C, ch = plot.h / R;
  for (const { r, c, colour, width, inset = width / 2 } of boxes) {
    p.frame((c === null ? plot.x : plot.x + c * cw) + inset, (r === null ? plot.y : plot.y + r * ch) + inset,
      (c === null ? plot.w : cw) - 2 * inset, (r === null ? plot.h : ch) - 2 * inset, colour, width);
  }
}
/* The hovered or focused cell or bar, and talk mode's highlighted one (thicker, vermilion). */
export const HOVER = { colour: "#000000", width: 2 }, HIGHLIGHT = { colour: "#D55E00", width: 3 };
