/* The table fallback: a figure's data as an HTML <table> (screen readers, copying, no canvas). Text goes in
 * with textContent, so a token holding HTML stays text. */

function cell(tag, text, scope) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (scope) el.scope = scope;
  return el;
}

/* A table with a caption, one header row (corner + column headers) and one row per row header. */
export function dataTable(caption, corner, colHeaders, rowHeaders, valueAt) {
  const table = document.createElement("table");
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  head.append(cell("th", corner, "col"), ...colHeaders.map((h) => cell("th", h, "col")));
  const body = table.createTBody();
  rowHeaders.forEach((h, r) => {
    const tr = body.insertRow();
    tr.append(cell("th", h, "row"), ...colHeaders.map((_, c) => cell("td", valueAt(r, c))));
  });
  return table;
}
