/* A view checked before anything is drawn: a bad one becomes one line naming the bad value and the fix
 * (the component shows it instead of the figure), never a half-drawn figure or a stack trace. */

/** @param {any} v @returns {v is ArrayLike<any>} */
const isList = (v) => Array.isArray(v) || (ArrayBuffer.isView(v) && "length" in v);
const LIMIT = 4096;  // tokens per axis: beyond this a canvas would be larger than browsers allow per cell
const fail = (message) => { throw new Error(message); };

function tokens(list, what) {
  if (!isList(list)) fail(`${what} must be a list of strings, got ${typeof list}`);
  if (list.length > LIMIT) fail(`${what} has ${list.length} tokens; at most ${LIMIT} can be drawn, shorten the input`);
  return Array.from(list, (t) => (t === null || t === undefined ? "" : String(t)));
}

/* The heatmap view to draw: {z, rowTokens, colTokens, masked, scale, …} with tokens as strings and every
 * row of z as long as there are column tokens. */
export function checkHeatmapView(v) {
  if (!v || typeof v !== "object") fail("update() needs a view object such as {z, rowTokens}");
  if (!isList(v.z)) fail("z must be a list of rows of numbers");
  const rowTokens = tokens(v.rowTokens, "rowTokens"), colTokens = tokens(v.colTokens ?? v.rowTokens, "colTokens"), R = rowTokens.length;
  if (R === 0 || colTokens.length === 0) fail("nothing to draw: the view has no tokens; give at least one");
  if (v.z.length !== R) fail(`z has ${v.z.length} rows but there are ${R} row tokens; give one row per token`);
  v.z.forEach((row, r) => {
    const n = isList(row) ? row.length : "no";
    if (n !== colTokens.length) fail(`row ${r} of z has ${n} values but there are ${colTokens.length} column tokens; give one per token`);
  });
  if (v.masked && (!isList(v.masked) || v.masked.length !== R)) fail(`masked must have one row per row token (${R})`);
  if (v.outlines && (!Array.isArray(v.outlines) || v.outlines.some((o) => !o || (o.axis !== "row" && o.axis !== "column") ||
      !Number.isInteger(o.index) || typeof o.colour !== "string"))) {
    fail('outlines must be a list of {axis: "row" or "column", index (an integer), colour (a CSS colour)}');
  }
  const scale = v.scale || "sequential";
  if (scale !== "sequential" && scale !== "diverging") fail(`scale ${JSON.stringify(scale)} is unknown: use "sequential" or "diverging"`);
  return { ...v, rowTokens, colTokens, scale };
}

/* The bars view to draw: {values, labels, orientation, …}, one label per value. */
export function checkBarsView(v) {
  if (!v || typeof v !== "object") fail("update() needs a view object such as {values, labels}");
  if (!isList(v.values)) fail("values must be a list of numbers");
  const labels = tokens(v.labels, "labels"), orientation = v.orientation || "horizontal";
  if (labels.length === 0) fail("nothing to draw: the view has no bars; give at least one value");
  if (labels.length !== v.values.length) fail(`there are ${v.values.length} values but ${labels.length} labels; give one label per value`);
  if (v.masked && (!isList(v.masked) || v.masked.length !== labels.length)) fail(`masked must be null or one boolean per bar (${labels.length})`);
  if (orientation !== "horizontal" && orientation !== "vertical") {
    fail(`orientation ${JSON.stringify(orientation)} is unknown: use "horizontal" or "vertical"`);
  }
  return { ...v, labels, orientation };
}
