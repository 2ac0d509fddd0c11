/* Paint — repaint the heatmaps (and bars) of an already drawn Plotly chart in well under a frame.
 *
 * An ES module of pure DOM work on Plotly's drawing (no network). While a
 * slider moves, `Plotly.react` of a multi-panel chart costs several frames on a 2-core machine: it lays
 * out every axis, colour bar and label again. Only the cell colours change, so `repaint` writes each
 * heatmap's new z straight into the image Plotly drew for it (Plotly's own "fast" heatmap mode: one
 * pixel per cell, scaled with image-rendering: pixelated), updates the cell labels and the values
 * hover reads (bars: their heights), and leaves everything else alone. Colours use the limits Plotly last drew, so they
 * always agree with the colour bar; the caller redraws with `Plotly.react` once the slider rests
 * (new limits, colour bar, click layers). It returns false whenever it cannot: then call Plotly.react.
 * Before any Plotly draw, report.js and chart.js fit the figure to its width: cell numbers only where they
 * fit (`fitCellText`), and margins measured here so that Plotly lays it out once (`fitMargins`).
 *
 * Plotly internals read (stable since plotly.js 1.x): gd.calcdata, gd._fullData, gd._fullLayout axes
 * (c2p) and the `g.hm` node of each heatmap trace.
 */
function parseColor(text) {
  var s = String(text).trim(), m;
  if (s[0] === "#") {
    if (s.length === 4) s = "#" + s[1] + s[1] + s[2] + s[2] + s[3] + s[3];
    return [parseInt(s.slice(1, 3), 16), parseInt(s.slice(3, 5), 16), parseInt(s.slice(5, 7), 16), 1];
  }
  m = s.match(/rgba?\(([^)]+)\)/);
  if (!m) return null;
  var p = m[1].split(",").map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}

/* Plotly's colour scale (d3 linear over the stops, clamped) as v → [r, g, b, a]; null for NaN. */
function colorScale(stops, zmin, zmax) {
  var pos = stops.map(function (s) { return zmin + s[0] * (zmax - zmin); });
  var rgba = stops.map(function (s) { return parseColor(s[1]); });
  if (rgba.some(function (c) { return !c; })) return null;
  return function (v) {
    if (v === null || v === undefined || v !== v) return null;
    if (v <= pos[0]) return rgba[0];
    var k = 1;
    while (k < pos.length - 1 && v > pos[k]) k++;
    if (v >= pos[k]) return rgba[k];
    var t = (v - pos[k - 1]) / (pos[k] - pos[k - 1]), a = rgba[k - 1], b = rgba[k];
    return [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]), a[3] + t * (b[3] - a[3])];
  };
}

/* Dark cells get white labels, light ones Plotly's #444 (Color.contrast: brightness < 128 is dark). */
function labelColor(c) {
  return c && (c[0] * 299 + c[1] * 587 + c[2] * 114) / 1000 < 128 ? "#fff" : "#444";
}

function heatmapNodes(gd) {
  var out = {};
  gd.querySelectorAll("g.hm").forEach(function (node) {
    var cd = node.__data__;
    if (cd && cd[0] && cd[0].trace) out[cd[0].trace.index] = node;
  });
  return out;
}

var scratch = null; // one canvas for every image: a new one and its context cost more than the painting (0.35 ms)

/* The n·m PNG of z (rows of numbers/null), oriented as the trace's axes draw it. */
function image(z, color, rowsDown, colsRight) {
  var m = z.length, n = m ? z[0].length : 0;
  var canvas = scratch || (scratch = document.createElement("canvas"));
  canvas.width = n; // which clears it
  canvas.height = m;
  var ctx = canvas.getContext("2d"), img = ctx.createImageData(n, m), px = img.data;
  for (var r = 0; r < m; r++) {
    var y = rowsDown ? r : m - 1 - r;
    for (var c = 0; c < n; c++) {
      var x = colsRight ? c : n - 1 - c, rgba = color(z[r][c]), o = (y * n + x) * 4;
      if (!rgba) continue; // NaN cells stay transparent, as Plotly leaves them
      px[o] = Math.round(rgba[0]); px[o + 1] = Math.round(rgba[1]); px[o + 2] = Math.round(rgba[2]);
      px[o + 3] = Math.round(rgba[3] * 255);
    }
  }
  ctx.putImageData(img, 0, 0);
  return canvas.toDataURL("image/png");
}

function defined(v) {
  return v !== null && v !== undefined && v === v;
}

/* Cell labels of a `texttemplate` such as "%{z:.2f}" (the only kind figures.py writes): Plotly draws one
 * per cell with a value, row by row. Returns the digits, -1 when no labels are drawn, or null when they
 * cannot be rewritten in place (another template, or the cells with a value changed). */
function labelDigits(node, z, old, template) {
  var texts = node.querySelectorAll("text");
  if (!texts.length) return -1;
  var m = /^%\{z:\.(\d+)f\}$/.exec(template || ""), count = 0;
  if (!m) return null;
  for (var r = 0; r < z.length; r++) {
    for (var c = 0; c < z[r].length; c++) {
      if (defined(z[r][c]) !== defined(old[r][c])) return null;
      if (defined(z[r][c])) count++;
    }
  }
  return texts.length === count ? Number(m[1]) : null;
}

function relabel(node, z, digits, color) {
  if (digits < 0) return;
  var texts = node.querySelectorAll("text"), k = 0;
  for (var r = 0; r < z.length; r++) {
    for (var c = 0; c < z[r].length; c++) {
      var v = z[r][c];
      if (!defined(v)) continue;
      texts[k].textContent = v.toFixed(digits);
      texts[k++].style.fill = labelColor(color(v));
    }
  }
}

var ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'" };

/* Plain text of a figure label (builders escape & < > "); null when it holds markup. */
function plain(text) {
  if (/<[a-z/]/i.test(text)) return null;
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, function (e) { return ENTITIES[e]; });
}

/* A function that writes the templated text at `path` (now `value`) into the drawn chart, or null. */
function textSetter(gd, path, value) {
  var m, shown = typeof value === "string" ? plain(value) : null;
  if ((m = /^data\.(\d+)\.hovertemplate$/.exec(path))) {
    var k = Number(m[1]);
    return gd._fullData[k] ? function () { gd._fullData[k].hovertemplate = value; } : null;
  }
  if (shown === null) return null;
  if (path === "layout.title.text") {
    var title = gd.querySelector("text.gtitle");
    return title && function () { title.textContent = shown; };
  }
  if ((m = /^layout\.annotations\.(\d+)\.text$/.exec(path))) {
    var note = gd.querySelector('g.annotation[data-index="' + m[1] + '"] text.annotation-text');
    return note && function () { note.textContent = shown; };
  }
  if ((m = /^layout\.([xy])axis(\d*)\.title\.text$/.exec(path))) {
    var axis = gd.querySelector("text." + m[1] + m[2] + "title");
    return axis && function () { axis.textContent = shown; };
  }
  if ((m = /^data\.(\d+)\.colorbar\.title\.text$/.exec(path))) {
    var full = gd._fullData[Number(m[1])], bar = full && gd.querySelector("g.cb" + full.uid + " .cbtitle text");
    if (full && !full.showscale) return function () {}; // no colour bar drawn for this panel
    return bar && function () { bar.textContent = shown; };
  }
  return null;
}

/* Vertical bars of the `rows` of a binding: new heights on the axes as drawn (base 0), or null. */
function barJobs(gd, figure, rows) {
  var nodes = {};
  gd.querySelectorAll("g.trace.bars").forEach(function (node) {
    var cd = node.__data__;
    if (cd && cd[0] && cd[0].trace) nodes[cd[0].trace.index] = node;
  });
  var jobs = [];
  for (var i = 0; i < rows.length; i++) {
    var t = rows[i].trace, full = gd._fullData[t], node = nodes[t], cd = gd.calcdata[t], y = figure.data[t].y;
    if (!full || full.type !== "bar" || full.orientation === "h" || !node || !cd || !y) return null;
    var points = node.querySelectorAll("g.point path");
    var xa = gd._fullLayout[full.xaxis.replace("x", "xaxis")], ya = gd._fullLayout[full.yaxis.replace("y", "yaxis")];
    if (points.length !== y.length || cd.length !== y.length || !xa || !ya) return null;
    jobs.push({ points: points, cd: cd, y: y, xa: xa, ya: ya });
  }
  return jobs;
}

function reshape(job) {
  var base = job.ya.c2p(0);
  job.points.forEach(function (path, k) {
    var di = job.cd[k], top = job.ya.c2p(job.y[k]), x0 = job.xa.c2p(di.p0), x1 = job.xa.c2p(di.p1);
    path.setAttribute("d", "M" + x0 + "," + base + "V" + top + "H" + x1 + "V" + base + "Z");
    di.s = di.s1 = job.y[k]; // what hover reads
  });
}

/* How to paint z into heatmap trace t as Plotly drew it (its node, image, axes and colours on the limits it
 * drew), or null when the trace is not a heatmap Plotly drew. Shared by `repaint` (α, feature k) and `swap`
 * (a new sentence while typing). */
function heatJob(gd, nodes, t, z) {
  var full = gd._fullData[t], node = nodes[t], img = node && node.querySelector("image");
  if (!full || full.type !== "heatmap" || !img || !Array.isArray(z) || !z.length) return null;
  var xName = full.xaxis.replace("x", "xaxis"), yName = full.yaxis.replace("y", "yaxis");
  var xa = gd._fullLayout[xName], ya = gd._fullLayout[yName], color = colorScale(full.colorscale, full.zmin, full.zmax);
  if (!color || !xa || !ya || !xa.c2p || !ya.c2p) return null;
  var old = gd.calcdata[t][0].z;
  return { t: t, z: z, node: node, img: img, color: color, old: old, xName: xName, yName: yName, xa: xa, ya: ya,
           same: !!old && old.length === z.length && old[0].length === z[0].length,
           down: ya.c2p(0) < ya.c2p(1), right: xa.c2p(0) < xa.c2p(1) };
}

/* Write a job's cells into its image (one pixel per cell, scaled without smoothing) and record them as drawn. */
function paintCells(gd, job) {
  job.img.setAttributeNS("http://www.w3.org/1999/xlink", "xlink:href", image(job.z, job.color, job.down, job.right));
  job.img.style.imageRendering = "pixelated";
  gd.calcdata[job.t][0].z = job.z; // what is drawn, and what heatmap hover reads
}

/* Repaint the chart gd from figure (after Recompute.render with `binding`): heatmap images, cell
 * labels, hover values and the templated texts. Returns false, having changed nothing, when it cannot
 * (a shape change, an unknown text or trace type): then use Plotly.react. */
function repaint(gd, figure, binding) {
  if (!gd.calcdata || !gd._fullData || !gd._fullLayout) return false;
  var nodes = heatmapNodes(gd), jobs = [], setters = [], bars = barJobs(gd, figure, binding.rows || []);
  if (!bars) return false;
  for (var i = 0; i < binding.panels.length; i++) {
    var job = heatJob(gd, nodes, binding.panels[i].trace, figure.data[binding.panels[i].trace].z);
    if (!job || !job.same) return false; // not a drawn heatmap, or a shape change
    job.digits = labelDigits(job.node, job.z, job.old, gd._fullData[job.t].texttemplate);
    if (job.digits === null) return false;
    job.hover = binding.panels[i].hover_trace;
    jobs.push(job);
  }
  var texts = binding.texts || {};
  for (var path in texts) {
    var value = path.split(".").reduce(function (o, key) { return o === undefined ? o : o[key]; }, figure);
    var set = textSetter(gd, path, value);
    if (!set) return false;
    setters.push(set);
  }
  jobs.forEach(function (job) {
    paintCells(gd, job);
    relabel(job.node, job.z, job.digits, job.color);
    if (job.hover !== undefined && gd._fullData[job.hover]) gd._fullData[job.hover].customdata = figure.data[job.hover].customdata;
  });
  bars.forEach(reshape);
  setters.forEach(function (set) { set(); });
  return true;
}


/* ---------------------------------------------------------------- swap: a new sentence while typing */

var SVG = "http://www.w3.org/2000/svg";

/* Labels of `spec`'s axis drawn over the plot where Plotly's own tick labels were, for a sentence whose
 * length differs from the one Plotly laid out: row/column v of T sits at offset + (v + ½)·length/T (rows top
 * down, as the heatmaps' reversed y axes draw them). Plotly's own labels are hidden until its next draw.
 * They go in a group of their own per axis, kept from key to key: each key moves and retexts the labels
 * already there and adds or removes only the difference (a new text element and its style were most of a
 * key's labels: about 1 ms a key for DSA's α maps here). */
function overlayTicks(gd, layer, axis, specAxis, T, letter) {
  var labels = gd.querySelectorAll("g." + axis._id + "tick text");
  var sample = labels[0];
  labels.forEach(function (t) { if (t.style.visibility !== "hidden") t.style.visibility = "hidden"; });
  var group = tickGroup(layer, axis._id);
  if (!specAxis || specAxis.showticklabels === false || !specAxis.tickvals || !sample) {
    group.textContent = "";
    return;
  }
  var style = sample.getAttribute("style") || "", offset = axis._offset, length = axis._length;
  var counter = letter === "x" ? gd._fullLayout[axis.anchor.replace("y", "yaxis")] : null;
  var x = letter === "x" ? null : String(gd._fullLayout[axis.anchor.replace("x", "xaxis")]._offset - 4);
  var texts = group.children, n = specAxis.tickvals.length;
  while (texts.length > n) group.lastChild.remove();
  specAxis.tickvals.forEach(function (v, i) {
    var text = texts[i], at = offset + (v + 0.5) * length / T;
    if (!text) {
      text = group.appendChild(document.createElementNS(SVG, "text"));
      text.setAttribute("style", style);
      text.style.visibility = "visible";
      text.setAttribute("text-anchor", "end");
      if (letter !== "x") text.setAttribute("dominant-baseline", "middle");
    }
    var shown = plain(String(specAxis.ticktext[i]));
    if (shown === null) shown = String(specAxis.ticktext[i]);
    if (text.textContent !== shown) text.textContent = shown;
    if (letter === "x") setIf(text, "transform", "translate(" + at + "," + (counter._offset + counter._length + 6) + ") rotate(-60)");
    else {
      setIf(text, "x", x);
      setIf(text, "y", String(at));
    }
  });
}

/* The group of layer that holds axis `id`'s labels (made on first use). */
function tickGroup(layer, id) {
  for (var g = layer.firstElementChild; g; g = g.nextElementSibling) {
    if (g.getAttribute("data-axis") === id) return g;
  }
  var group = layer.appendChild(document.createElementNS(SVG, "g"));
  group.setAttribute("data-axis", id);
  return group;
}

function setIf(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/* The tick labels Plotly drew for `specAxis`, rewritten in place (same sentence length, same ticks). */
function retext(gd, axis, specAxis) {
  var labels = gd.querySelectorAll("g." + axis._id + "tick text");
  if (!specAxis || !specAxis.ticktext || labels.length !== specAxis.ticktext.length) return labels.length === 0;
  for (var i = 0; i < labels.length; i++) {
    var shown = plain(String(specAxis.ticktext[i]));
    if (shown === null) return false;
    labels[i].textContent = shown;
  }
  return true;
}

/* Undo what `swap` added (its tick labels, hidden Plotly labels), before Plotly draws the chart again. */
function unswap(gd) {
  var layer = gd.querySelector("g.disan-swap");
  if (layer) layer.remove();
  gd.querySelectorAll("g[class$='tick'] text, g.trace.bars").forEach(function (t) {
    if (t.style.visibility === "hidden") t.style.visibility = "";
  });
  gd.__swapped = false;
}

/* The <g> Plotly drew bar trace t into, or null. */
function barNode(gd, t) {
  var node = null;
  gd.querySelectorAll("g.trace.bars").forEach(function (n) {
    var d = n.__data__;
    if (d && d[0] && d[0].trace && d[0].trace.index === t) node = n;
  });
  return node;
}

/* How to paint the new heights y of vertical bar trace t as Plotly drew it, or null when it cannot (not a
 * vertical bar trace Plotly drew on the same axes, or bars with text). */
function barSwapJob(gd, t, trace) {
  var full = gd._fullData[t], cd = gd.calcdata[t], y = trace.y;
  if (!full || full.type !== "bar" || full.orientation === "h" || trace.orientation === "h" || !cd || !y) return null;
  if ((trace.xaxis || "x") !== full.xaxis || (trace.yaxis || "y") !== full.yaxis || trace.text || trace.texttemplate) {
    return null;
  }
  var node = barNode(gd, t);
  var xName = full.xaxis.replace("x", "xaxis"), xa = gd._fullLayout[xName];
  var ya = gd._fullLayout[full.yaxis.replace("y", "yaxis")];
  if (!node || !xa || !ya || !xa.c2p || !ya.c2p) return null;
  var points = node.querySelectorAll("g.point path"), ys = Array.from(y);
  return { t: t, node: node, points: points, cd: cd, y: ys, xa: xa, ya: ya, xName: xName,
           color: full.marker && typeof full.marker.color === "string" ? full.marker.color : null,
           same: points.length === ys.length && cd.length === ys.length };
}

/* How to paint the new lengths of horizontal bar trace t as Plotly drew it (the prediction chart: the same
 * labels in the same order, lengths on the value axis Plotly drew), texts and colours included, or null when it
 * cannot (not a horizontal bar trace Plotly drew with these labels). */
function hBarSwapJob(gd, t, trace) {
  var full = gd._fullData[t], cd = gd.calcdata[t], x = trace.x, labels = full && full.y;
  if (!full || full.type !== "bar" || full.orientation !== "h" || trace.orientation !== "h" || !cd || !x) return null;
  if ((trace.xaxis || "x") !== full.xaxis || (trace.yaxis || "y") !== full.yaxis || !labels || !trace.y) return null;
  if (x.length !== cd.length || trace.y.length !== labels.length) return null;
  for (var i = 0; i < labels.length; i++) if (trace.y[i] !== labels[i]) return null;
  var node = barNode(gd, t);
  var xa = gd._fullLayout[full.xaxis.replace("x", "xaxis")], ya = gd._fullLayout[full.yaxis.replace("y", "yaxis")];
  var points = node ? node.querySelectorAll("g.point") : [];
  if (!node || points.length !== x.length || !xa || !ya || !xa.c2p || !ya.c2p) return null;
  var color = trace.marker && trace.marker.color;
  return { points: points, cd: cd, x: Array.from(x), xa: xa, ya: ya, text: trace.text || null,
           colors: Array.isArray(color) ? color : null };
}

/* New lengths into the horizontal bars Plotly drew: each bar's path, colour and text, the text moved as far as
 * the bar's end (Plotly's transform kept under one translate of the page's, reset when Plotly draws it anew);
 * hover reads the new lengths too. */
function relength(job) {
  var base = job.xa.c2p(0);
  job.points.forEach(function (g, k) {
    var di = job.cd[k], v = job.x[k], path = g.querySelector("path"), text = g.querySelector("text");
    if (!path) return;
    if (!defined(v)) { path.setAttribute("d", "M0,0Z"); if (text) text.textContent = ""; return; }
    var y0 = job.ya.c2p(di.p0), y1 = job.ya.c2p(di.p1), end = job.xa.c2p(v), was = job.xa.c2p(di.s);
    path.setAttribute("d", "M" + base + "," + y0 + "V" + y1 + "H" + end + "V" + y0 + "Z");
    if (job.colors) path.style.fill = job.colors[k];
    if (text && job.text) {
      if (text.getAttribute("transform") !== text.__disanSet) { text.__disanBase = text.getAttribute("transform") || ""; text.__disanDx = 0; }
      text.__disanDx += defined(di.s) ? end - was : 0;
      text.__disanSet = "translate(" + text.__disanDx.toFixed(2) + ",0) " + text.__disanBase;
      text.setAttribute("transform", text.__disanSet);
      text.textContent = job.text[k];
    }
    di.s = di.s1 = di.x = v;
    if (job.text) di.tx = job.text[k];
  });
}

/* The bars of `jobs` (one group, barmode "group") for a sentence of another length: drawn as new paths in
 * `layer` where Plotly would put T categories on the axis it laid out ([−½, T − ½]), heights on the value axis
 * as drawn (clipped to the plot); Plotly's own bars are hidden until its next draw. */
function overlayBars(gd, layer, jobs) {
  var K = jobs.length, gap = gd._fullLayout.bargap === undefined ? 0.2 : gd._fullLayout.bargap;
  jobs.forEach(function (job, k) {
    var xa = job.xa, ya = job.ya, T = job.y.length, w = xa._length / T, sw = w * (1 - gap) / K;
    var lo = ya._offset, hi = ya._offset + ya._length;
    var clip = function (v) { return Math.min(hi, Math.max(lo, v)); };
    var base = clip(ya._offset + ya.c2p(0)), d = "";
    job.y.forEach(function (v, i) {
      if (!defined(v)) return;
      var x0 = xa._offset + i * w + w * gap / 2 + k * sw, top = clip(ya._offset + ya.c2p(v));
      d += "M" + x0.toFixed(2) + "," + base.toFixed(2) + "V" + top.toFixed(2) + "H" + (x0 + sw).toFixed(2) +
           "V" + base.toFixed(2) + "Z";
    });
    var path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    if (job.color) path.setAttribute("fill", job.color);
    layer.appendChild(path);
    job.node.style.visibility = "hidden";
  });
}

/* New heights into the bars Plotly drew (same length): hover reads them too. */
function reheight(job) {
  var base = job.ya.c2p(0);
  job.points.forEach(function (path, k) {
    var di = job.cd[k], v = job.y[k];
    if (!defined(v)) { path.setAttribute("d", "M0,0Z"); return; }
    var x0 = job.xa.c2p(di.p0), x1 = job.xa.c2p(di.p1);
    path.setAttribute("d", "M" + x0 + "," + base + "V" + job.ya.c2p(v) + "H" + x1 + "V" + base + "Z");
    di.s = di.s1 = v;
  });
}

/* Draw the new sentence's heatmaps of `spec` into the chart gd without Plotly laying it out: each heatmap's
 * cells go straight into the image Plotly drew for it (colours on the limits it drew, so they agree with
 * its colour bar), cell labels are rewritten or (another length) dropped, and the axes' token labels are
 * rewritten or drawn over the axes. Hover reads the new values when the length is the same and is off
 * otherwise. Vertical bars get their new heights on the value axis Plotly drew (another length: new bars drawn
 * over the hidden old ones where Plotly puts T categories); horizontal bars with the same labels (the
 * prediction chart) their new lengths, texts and colours. The caller draws the chart with Plotly once typing
 * rests (`unswap` first). Returns false, having changed nothing, when the chart is not a set of heatmaps and
 * bars Plotly drew as `spec` has them. */
function swap(gd, spec) {
  if (!gd.calcdata || !gd._fullData || !gd._fullLayout || !gd.data) return false;
  if (spec.data.length !== gd._fullData.length || !spec.data.length) return false;
  var nodes = heatmapNodes(gd), jobs = [], bars = [], hbars = [];
  for (var t = 0; t < spec.data.length; t++) {
    var trace = spec.data[t];
    // An invisible layer (the app's click layer, drawn with mode "none") shows nothing to repaint; until the
    // Plotly.react at rest it holds the old cells' points, the same cells where the length is the same.
    if (trace.type === "scatter" && trace.mode === "none" && gd._fullData[t].type === "scatter") continue;
    if (trace.type === "bar" && trace.orientation === "h") {
      var hbar = hBarSwapJob(gd, t, trace);
      if (!hbar) return false;
      hbars.push(hbar);
      continue;
    }
    if (trace.type === "bar") {
      var bar = barSwapJob(gd, t, trace);
      if (!bar) return false;
      bars.push(bar);
      continue;
    }
    var job = trace.type === "heatmap" ? heatJob(gd, nodes, t, trace.z) : null;
    if (!job || (trace.xaxis || "x") !== gd._fullData[t].xaxis || (trace.yaxis || "y") !== gd._fullData[t].yaxis) {
      return false;
    }
    jobs.push(job);
  }
  // the axes Plotly laid out fit the new cells only when every length is the one it laid out
  if (!jobs.length && !bars.length && !hbars.length) return false;
  // bars of one chart share their category axis (barmode "group"): painted together
  if (bars.some(function (b) { return b.xName !== bars[0].xName || b.y.length !== bars[0].y.length; })) return false;
  var same = jobs.every(function (j) { return j.same; }) && bars.every(function (b) { return b.same; }) && !gd.__swapped;
  // the last key's overlaid bars go; its axis labels stay, to be moved (overlayTicks) or dropped (below)
  var layer = gd.querySelector("g.disan-swap"), overlaid = {};
  if (layer) Array.from(layer.children).forEach(function (g) { if (!g.hasAttribute("data-axis")) g.remove(); });
  hbars.forEach(relength);
  var done = {};
  var ensureLayer = function () {
    if (!layer) {
      layer = document.createElementNS(SVG, "g");
      layer.setAttribute("class", "disan-swap");
      gd.querySelector(".main-svg").appendChild(layer);
    }
    return layer;
  };
  if (bars.length) {
    if (same) bars.forEach(reheight);
    else overlayBars(gd, ensureLayer(), bars);
    done[bars[0].xName] = true;
    var barAxis = spec.layout[bars[0].xName];
    if (!(same && retext(gd, bars[0].xa, barAxis))) {
      overlayTicks(gd, ensureLayer(), bars[0].xa, barAxis, bars[0].y.length, "x");
      overlaid[bars[0].xa._id] = true;
    }
    bars.forEach(function (b) {
      if (same && spec.data[b.t].customdata) gd._fullData[b.t].customdata = spec.data[b.t].customdata;
    });
  }
  jobs.forEach(function (job) {
    var digits = same ? labelDigits(job.node, job.z, job.old, gd._fullData[job.t].texttemplate) : null;
    paintCells(gd, job);
    if (digits !== null) relabel(job.node, job.z, digits, job.color);
    else job.node.querySelectorAll("text").forEach(function (e) { e.remove(); });
    if (same && spec.data[job.t].customdata) gd._fullData[job.t].customdata = spec.data[job.t].customdata;
    [["x", job.xName, job.xa], ["y", job.yName, job.ya]].forEach(function (axis) {
      var letter = axis[0], name = axis[1];
      if (done[name]) return;
      done[name] = true;
      var specAxis = spec.layout[name], T = letter === "x" ? job.z[0].length : job.z.length;
      if (same && retext(gd, axis[2], specAxis)) return;
      overlayTicks(gd, ensureLayer(), axis[2], specAxis, T, letter);
      overlaid[axis[2]._id] = true;
    });
  });
  if (layer) Array.from(layer.children).forEach(function (g) {
    if (g.hasAttribute("data-axis") && !overlaid[g.getAttribute("data-axis")]) g.remove();
  });
  retitle(gd, spec.layout);
  if (!same) {
    gd.__swapped = true;
    gd._fullLayout.hovermode = false; // the axes Plotly laid out no longer match the cells
  }
  return true;
}


/* The figure's title as the new figure has it (a chosen word's title names the word): plain text until the
 * Plotly.react at rest draws its markup. */
function retitle(gd, layout) {
  var title = layout.title, want = title && typeof title === "object" ? title.text : title;
  var node = gd.querySelector(".g-gtitle .gtitle");
  if (!node || typeof want !== "string") return;
  var plain = want.replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, "");
  if (node.textContent !== plain) node.textContent = plain;
}

/* ------------------------------------------------------------ a painted figure left as it is */

/* Whether chart gd, once `spec` is painted into it (swap) and its cell numbers written (labelCells), shows what
 * Plotly's drawing of `spec` would show, hover and Plotly's own tick labels apart: every heatmap on the colour
 * limits Plotly drew (so its colour bar holds) with numbers, if any, of the form %{z:.Nf}; every bar chart's value
 * axis a fixed range; the title plain text. `spec`'s data as fitted to the plot's width (fitCellText). Then the
 * page can leave Plotly's drawing until a person reaches for the chart: on this 2-core machine one Plotly.react
 * of a figure takes 50–226 ms, a paint a few. */
function settled(gd, spec) {
  if (!gd._fullData || !gd._fullLayout || spec.data.length !== gd._fullData.length) return false;
  for (var t = 0; t < spec.data.length; t++) {
    var trace = spec.data[t], full = gd._fullData[t];
    if (trace.type === "scatter" && trace.mode === "none") continue; // the click layer: no pixels
    if (trace.type === "heatmap") {
      if (full.type !== "heatmap" || !defined(trace.zmin) || trace.zmin !== full.zmin || trace.zmax !== full.zmax) return false;
      if (trace.texttemplate && !/^%\{z:\.\d+f\}$/.test(trace.texttemplate)) return false;
    } else if (trace.type === "bar") {
      var letter = trace.orientation === "h" ? "x" : "y", name = (trace[letter + "axis"] || letter).replace(letter, letter + "axis");
      var axis = spec.layout[name];
      if (!axis || !axis.range) return false;
    } else return false;
  }
  var title = spec.layout.title, text = title && typeof title === "object" ? title.text : title;
  return typeof text !== "string" || !/<[a-z/]/i.test(text);
}

/* Cell numbers as `spec` has them (%{z:.Nf}, as fitted to the plot's width) written over the cells painted into
 * gd: each heatmap's numbers at its cells' centres on the axes Plotly drew (T cells over the length it laid out,
 * as overlayTicks places the tokens), in Plotly's own elements (g.heatmap-label > text, so that Plotly's next
 * drawing replaces them), white on dark cells; numbers a trace no longer has are removed. False when a heatmap
 * is not one Plotly drew. */
function labelCells(gd, spec) {
  if (!gd.calcdata || !gd._fullData || !gd._fullLayout) return false;
  var nodes = heatmapNodes(gd);
  for (var t = 0; t < spec.data.length; t++) {
    var trace = spec.data[t];
    if (trace.type !== "heatmap") continue;
    var node = nodes[t], full = gd._fullData[t], z = gd.calcdata[t] && gd.calcdata[t][0].z;
    var m = /^%\{z:\.(\d+)f\}$/.exec(trace.texttemplate || "");
    if (!node || !z || !z.length) return false;
    node.querySelectorAll("g.heatmap-label").forEach(function (g) { g.remove(); });
    if (!m) continue;
    var xa = gd._fullLayout[full.xaxis.replace("x", "xaxis")], ya = gd._fullLayout[full.yaxis.replace("y", "yaxis")];
    var color = colorScale(full.colorscale, full.zmin, full.zmax);
    if (!xa || !ya || !xa.c2p || !ya.c2p || !color) return false;
    var rows = z.length, cols = z[0].length, digits = Number(m[1]);
    var down = ya.c2p(0) < ya.c2p(1), right = xa.c2p(0) < xa.c2p(1);
    var font = trace.textfont || {}, size = font.size || 12, family = font.family || gd._fullLayout.font.family;
    var style = "font-family: " + family + "; font-size: " + size + "px; fill-opacity: 1; white-space: pre;";
    var fragment = document.createDocumentFragment();
    for (var r = 0; r < rows; r++) {
      // Plotly's cap shift: a one-line label sits 0.35 of its size below the cell's centre
      var y = ((down ? r : rows - 1 - r) + 0.5) * ya._length / rows + 0.35 * size;
      for (var c = 0; c < cols; c++) {
        var v = z[r][c];
        if (!defined(v)) continue;
        var g = document.createElementNS(SVG, "g"), text = document.createElementNS(SVG, "text");
        g.setAttribute("class", "heatmap-label");
        text.setAttribute("text-anchor", "middle");
        text.setAttribute("data-notex", "1");
        text.setAttribute("x", (((right ? c : cols - 1 - c) + 0.5) * xa._length / cols).toFixed(2));
        text.setAttribute("y", y.toFixed(2));
        text.setAttribute("style", style + " fill: " + labelColor(color(v)) + ";");
        text.textContent = v.toFixed(digits);
        g.appendChild(text);
        fragment.appendChild(g);
      }
    }
    node.appendChild(fragment);
  }
  return true;
}

/* [rows, columns] of a heatmap's z: an array of rows, or Plotly's typed-array spec {dtype, bdata, shape}. */
function gridShape(z) {
  if (!z) return null;
  if (z.shape !== undefined) {
    var shape = String(z.shape).split(",").map(Number);
    return shape.length === 2 ? shape : null;
  }
  return z.length && z[0] && z[0].length ? [z.length, z[0].length] : null;
}

/* Cell numbers only where they fit: the heatmap traces of `data` whose cells, at this plot's width and the
 * figure's height, are narrower than their label ("0.00", or the masked "−∞") or lower than its font lose
 * their texttemplate; the value stays in the hover. Returns `data` itself when nothing changes, else a copy
 * (the traces themselves are left as built). `width` is the plot's width in pixels (its element's). */
function fitCellText(data, layout, width) {
  var changed = false, out = data.map(function (trace) {
    var dims = gridShape(trace.z);
    if (trace.type !== "heatmap" || !trace.texttemplate || !dims) return trace;
    var ax = (trace.xaxis || "x").replace("x", "xaxis"), ay = (trace.yaxis || "y").replace("y", "yaxis");
    var xd = (layout[ax] && layout[ax].domain) || [0, 1], yd = (layout[ay] && layout[ay].domain) || [0, 1];
    var margin = layout.margin || {}, font = (trace.textfont && trace.textfont.size) || 12;
    // tick labels take room beside the plot area that the margins do not count (automargin)
    var plotWidth = Math.max(0, width - (margin.l || 0) - (margin.r || 0) - 90);
    var plotHeight = Math.max(0, (layout.height || 450) - (margin.t || 0) - (margin.b || 0) - 60);
    var cellWidth = plotWidth * (xd[1] - xd[0]) / dims[1];
    var cellHeight = plotHeight * (yd[1] - yd[0]) / dims[0];
    if (cellWidth >= 4 * 0.62 * font + 6 && cellHeight >= font + 2) return trace;
    changed = true;
    return textless(trace);
  });
  return changed ? out : data;
}

/* A heatmap trace without its cell numbers (a copy; the value stays in the hover). */
function textless(trace) {
  var copy = Object.assign({}, trace);
  delete copy.texttemplate;
  delete copy.text;
  return copy;
}

/* `data` with no heatmap's cell numbers: itself when none has them, else a copy (the traces left as built). */
function withoutCellText(data) {
  if (!data.some(function (t) { return t.type === "heatmap" && t.texttemplate; })) return data;
  return data.map(function (t) { return t.type === "heatmap" && t.texttemplate ? textless(t) : t; });
}

/* ------------------------------------------------------------ margins */

// Plotly's font when a layout names none (plotly.js src/plots/layout_attributes.js)
var PLOTLY_FAMILY = '"Open Sans", verdana, arial, sans-serif';
var measureContext = null;

/* Text width in px as the browser lays it out (a canvas measures with the same fonts as the SVG), or null
 * outside a browser. */
function textWidth(text, size, family) {
  if (!measureContext) {
    if (typeof document === "undefined" || !document.createElement) return null;
    var canvas = document.createElement("canvas");
    measureContext = canvas.getContext && canvas.getContext("2d");
    if (!measureContext) return null;
  }
  measureContext.font = size + "px " + family;
  return measureContext.measureText(text).width;
}

/* A label's text as shown: markup dropped, entities read. */
function plainText(html) {
  return plain(String(html).replace(/<br\s*\/?>/gi, " ").replace(/<[^>]*>/g, ""));
}

/* A linear axis's tick labels as Plotly's auto ticks give them: multiples of a round step (1, 2 or 5 × 10^k,
 * about six over the range), with the step's decimals. */
function numberLabels(lo, hi) {
  if (!(isFinite(lo) && isFinite(hi))) return ["0.0"];
  if (hi < lo) { var swap = lo; lo = hi; hi = swap; }
  var span = hi - lo || Math.abs(hi) || 1, step = Math.pow(10, Math.floor(Math.log10(span / 6)));
  step *= span / step <= 12 ? 2 : span / step <= 30 ? 5 : 10;
  while (span / step > 8) step *= 2;
  var decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9)), out = [];
  for (var k = Math.ceil(lo / step - 1e-9); k <= Math.floor(hi / step + 1e-9) && out.length < 40; k++) {
    out.push((k * step).toFixed(decimals).replace("-", "\u2212"));
  }
  return out.length ? out : [lo.toFixed(decimals)];
}

function extent(values) {
  var lo = Infinity, hi = -Infinity;
  (function walk(v) {
    if (v === null || v === undefined) return;
    if (typeof v === "number") { if (isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } return; }
    if (typeof v === "object" && typeof v.length === "number") for (var i = 0; i < v.length; i++) walk(v[i]);
  })(values);
  return lo === Infinity ? [0, 1] : [lo, hi];
}

function templateLayout(layout) {
  return (layout.template && layout.template.layout) || {};
}

/* Tick marks outside the colour bars (simple_white, the talk-mode template): they push its labels out. */
function barTicks(layout) {
  var heat = layout.template && layout.template.data && layout.template.data.heatmap;
  return Boolean(heat && heat[0] && heat[0].colorbar && heat[0].colorbar.ticks);
}

/* The tick labels of one axis as drawn: {labels, size}, or null where it shows none. */
function axisLabels(name, axis, data, fontSize) {
  if (axis.showticklabels === false || axis.visible === false) return null;
  var size = (axis.tickfont && axis.tickfont.size) || fontSize, letter = name[0], id = name.replace("axis", "");
  if (axis.tickmode === "array" && axis.ticktext) return { labels: axis.ticktext.map(plainText), size: size };
  var traces = data.filter(function (t) { return (t[letter + "axis"] || letter) === id && t.visible !== false; });
  var categorical = axis.type === "category" || traces.some(function (t) {
    var v = t[letter];
    return v && v.length && typeof v[0] === "string";
  });
  if (categorical) {
    var labels = [];
    traces.forEach(function (t) { (t[letter] || []).forEach(function (v) { labels.push(plainText(v)); }); });
    return { labels: labels, size: size };
  }
  var values = axis.range || extent(traces.map(function (t) {
    return t.type === "bar" ? [0, t[letter]] : t.type === "heatmap" ? [] : t[letter];
  }));
  if (traces.some(function (t) { return t.type === "heatmap"; }) && !axis.range) return null; // index axes: ticks off
  return { labels: numberLabels(values[0], values[1]), size: size };
}

/* The layout with margins that hold its tick labels, axis titles and colour bars, and automargin off on
 * every axis. The templates' axes have automargin on: Plotly then measures every tick label on screen and,
 * when the margins must grow (nearly always: the builders give 10 px), lays the whole figure out again.
 * With the margins measured here (a canvas, the same fonts) Plotly lays it out once; tests/test_paint_js.py
 * checks they are never narrower than automargin's. Colour bars and legends still push the margins
 * themselves should these be short. Outside a browser (no canvas to measure text with), the layout as given. */
function fitMargins(data, layout, width) {
  var font = layout.font || {}, fontSize = font.size || 12, family = font.family || PLOTLY_FAMILY;
  if (textWidth("0", fontSize, family) === null) return layout;
  var base = layout.margin || {}, need = { l: base.l || 0, r: base.r || 0, t: base.t || 0, b: base.b || 0 };
  var out = Object.assign({}, layout);
  Object.keys(layout).forEach(function (name) {
    if (!/^[xy]axis\d*$/.test(name) || !layout[name]) return;
    var axis = layout[name], x = name[0] === "x", dflt = templateLayout(layout)[name[0] + "axis"] || {};
    out[name] = Object.assign({}, axis, { automargin: false });
    var ticks = axisLabels(name, axis, data, fontSize), title = axis.title && axis.title.text ? plainText(axis.title.text) : "";
    var titleSize = (axis.title && axis.title.font && axis.title.font.size) || fontSize;
    var widest = 0, first = 0, last = 0;
    if (ticks) ticks.labels.forEach(function (label, i) {
      var w = textWidth(label, ticks.size, family);
      if (w > widest) widest = w;
      if (i === 0) first = w;
      last = w;
    });
    var depth = 0, angle = (axis.tickangle || 0) * Math.PI / 180, tickHeight = ticks ? 1.3 * ticks.size : 0;
    if (ticks) {
      depth = x ? Math.abs(Math.sin(angle)) * widest + Math.abs(Math.cos(angle)) * tickHeight
                : Math.abs(Math.cos(angle)) * widest + Math.abs(Math.sin(angle)) * tickHeight;
      var tickMarks = axis.ticks !== undefined ? axis.ticks : dflt.ticks;
      depth += 10 + 0.3 * ticks.size + (tickMarks ? (axis.ticklen || dflt.ticklen || 5) : 0);
    }
    if (title) depth += 15 + 1.3 * titleSize;
    var side = axis.side || (x ? "bottom" : "left"), key = side[0];
    if (depth) need[key] = Math.max(need[key], depth + 4);
    // a tilted first label of a bottom axis at the left edge reaches past it
    if (x && ticks && angle && side === "bottom" && (!axis.domain || axis.domain[0] === 0)) {
      need.l = Math.max(need.l, Math.abs(Math.cos(angle)) * first + tickHeight);
    }
    // level labels of a bottom axis: the last is centred on the plot's right edge
    if (x && ticks && !angle && (!axis.domain || axis.domain[1] === 1)) need.r = Math.max(need.r, last / 2 + 4);
  });
  // a horizontal bar's number drawn outside it (predictionChart's "1.00", cliponaxis off) reaches past the plot's
  // right edge when the bar ends near the axis's end: the margin holds it, or the SVG cuts it to "1.". On a fixed
  // range any bar may reach the end: the next sentence's numbers are painted into this layout (Paint.swap), and a
  // settled painting is never laid out again, so the margin holds the widest number at the end whatever the bars
  data.forEach(function (t) {
    if (t.type !== "bar" || t.orientation !== "h" || t.textposition !== "outside" || !t.text) return;
    var axis = layout[(t.xaxis || "x").replace("x", "xaxis")] || {}, range = axis.range || extent([0, t.x]);
    var span = range[1] - range[0], size = (t.textfont && t.textfont.size) || fontSize;
    if (!(span > 0)) return;
    var plot = Math.max(0, width - need.l - need.r);
    Array.from(t.x).forEach(function (v, i) {
      if (!isFinite(v) || t.text[i] === undefined) return;
      var end = axis.range ? range[1] : Math.min(v, range[1]);
      var reach = (end - range[0]) / span * plot + 3 + textWidth(plainText(t.text[i]), size, family);
      need.r = Math.max(need.r, reach - plot + 4);
    });
  });
  // vertical colour bars at the right: Plotly's x = 1.02 of the plot, xpad 10 each side, thickness 30
  data.forEach(function (t) {
    if (t.showscale === false || !(t.type === "heatmap" || t.type === "contour")) return;
    var bar = t.colorbar || {}, x = bar.x === undefined ? 1.02 : bar.x;
    var thick = bar.thickness === undefined ? 30 : bar.thickness, range = [t.zmin, t.zmax];
    if (!(isFinite(range[0]) && isFinite(range[1]))) range = extent(t.z);
    var labels = numberLabels(range[0], range[1]).map(function (s) { return textWidth(s, fontSize, family); });
    var title = bar.title && bar.title.text ? textWidth(plainText(bar.title.text), fontSize, family) : 0;
    var outer = 60 + thick + Math.max(Math.max.apply(null, labels), title - thick) + (barTicks(layout) ? 8 : 0);
    // Plotly's push counts a bar beyond the plot (x > 1) from its right edge
    need.r = Math.max(need.r, Math.min(0, x - 1) * Math.max(0, width - need.l - need.r) + outer);
  });
  out.margin = Object.assign({}, base, { l: Math.ceil(need.l), r: Math.ceil(need.r), t: Math.ceil(need.t),
                                         b: Math.ceil(need.b) });
  return out;
}

export { parseColor, colorScale, labelColor, repaint, fitCellText, withoutCellText, fitMargins, swap, unswap, settled,
  labelCells };
