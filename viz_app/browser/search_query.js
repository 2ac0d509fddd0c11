/* The static explorer's search, as `disan search` runs it (disan/corpus/query.py, search.py), over the packed
 * index of viz_app/draw/site_search.py. The allow-lists (operators per kind of column, the flag words, the
 * limits) come from Python as JSON (`spec`: site_search.search_spec) and the columns from the file's header;
 * only what each SQL operator does is code here. The semantics follow DuckDB's: a comparison with null is
 * never true; a float32 column is compared as a double; a sort puts nulls last and breaks ties by
 * sentence_id, side, position (the file's row order, kept by a stable sort); text orders by code point. */

/** The packed blob (uint32 header length, header JSON, 4-byte-aligned columns) → the table.
 * @param {Uint8Array} blob */
export function unpack(blob) {
  const n = new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(0, true), base = blob.byteOffset + 4 + n;
  const header = JSON.parse(new TextDecoder().decode(blob.subarray(4, 4 + n)));
  /** @type {Record<string, Record<string, any>>} */
  const cols = { sentences: {}, tokens: {} };
  for (const f of header.fields) {
    const rows = header.rows[f.table] * Math.max(f.width || 1, 1), at = base + f.offset;
    const Kind = f.type === "f32" ? Float32Array : f.type === "bool" ? Int8Array : Int32Array;
    const data = new Kind(/** @type {ArrayBuffer} */ (blob.buffer.slice(at, at + Kind.BYTES_PER_ELEMENT * rows)));
    cols[f.table][f.name] = { type: f.type, data, values: f.values || null, width: f.width || 0 };
  }
  // sentence_id → its row, and each sentence's first token row and count (tokens are in sentence_id order)
  const ids = cols.sentences.sentence_id.data, rowOf = new Map();
  for (let i = 0; i < ids.length; i++) rowOf.set(ids[i], i);
  const tokenSentence = new Int32Array(header.rows.tokens), first = new Int32Array(ids.length).fill(-1);
  const count = new Int32Array(ids.length), tid = cols.tokens.sentence_id.data;
  for (let j = 0; j < tid.length; j++) {
    const s = rowOf.get(tid[j]);
    tokenSentence[j] = s;
    if (first[s] < 0) first[s] = j;
    count[s]++;
  }
  return { header, cols, rowOf, tokenSentence, first, count };
}

/** The value of column `name` of `table` at row `i` (null where the index holds null).
 * @param {any} db @param {string} table @param {string} name @param {number} i */
export function value(db, table, name, i) {
  const c = db.cols[table][name], v = c.data[i];
  if (c.type === "f32") return Number.isNaN(v) ? null : v;
  if (c.type === "dict") return v < 0 ? null : c.values[v];
  if (c.type === "bool") return v < 0 ? null : v === 1;
  return v;
}

/** The signature of sentence row `s`. @param {any} db @param {number} s */
export function signature(db, s) {
  const c = db.cols.sentences.signature;
  return c.data.subarray(s * c.width, (s + 1) * c.width);
}

/* query._short: Python's repr of the value (its first 40 characters): quotes as repr chooses them. */
function short(raw) {
  const chars = Array.from(raw);
  const s = (chars.length <= 40 ? raw : chars.slice(0, 40).join("") + "…").replace(/\\/g, "\\\\");
  if (s.includes("'") && !s.includes('"')) return '"' + s + '"';
  return "'" + s.replace(/'/g, "\\'") + "'";
}

// Python's float(): optional sign, digits with single underscores between them, a point, an exponent
const NUMBER = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const NOT_FINITE = /^[+-]?(?:inf|infinity|nan)$/i;

/** A filter's typed value, or an Error whose message is `disan search`'s line (query.parse_value).
 * @param {any} spec @param {string} column @param {string} kind @param {string} raw */
export function parseValue(spec, column, kind, raw) {
  raw = String(raw);
  if (kind === spec.kinds.number) {
    const s = raw.trim();
    if (NOT_FINITE.test(s)) throw new Error(column + " holds finite numbers; " + short(raw) + " is not one (no NaN or infinity).");
    if (!NUMBER.test(s)) throw new Error(column + " holds numbers; " + short(raw) + " is not a number.");
    const v = Number(s.replace(/_/g, ""));
    if (!Number.isFinite(v)) throw new Error(column + " holds finite numbers; " + short(raw) + " is not one (no NaN or infinity).");
    return v;
  }
  if (kind === spec.kinds.flag) {
    const low = raw.trim().toLowerCase();
    if (spec.true.includes(low) || spec.false.includes(low)) return spec.true.includes(low);
    throw new Error(column + " is true or false; " + short(raw) + " is neither.");
  }
  const n = Array.from(raw).length;
  if (n > spec.max_text) throw new Error("The value for " + column + " has " + n.toLocaleString("en") + " characters, over the limit of " + spec.max_text.toLocaleString("en") + ".");
  if (raw.includes("\u0000")) throw new Error("The value for " + column + " holds a NUL character; remove it.");
  return raw;
}

/** The column's (table, kind), or an Error (query.column_of). @param {any} db @param {string} name */
export function columnOf(db, name) {
  const c = Object.hasOwn(db.header.columns, name) ? db.header.columns[name] : null;
  if (!c) throw new Error("Unknown column " + short(String(name)) + "; use one of " + Object.keys(db.header.columns).sort().join(", ") + ".");
  return { name, table: c[0], kind: c[1] };
}

/** The operator's SQL, or an Error (query.check_operator). @param {any} spec */
export function checkOperator(spec, column, kind, op) {
  const allowed = spec.kind_operators[kind];
  if (!Object.hasOwn(spec.operators, op)) throw new Error("Unknown operator " + short(String(op)) + "; use one of " + allowed.join(", ") + ".");
  if (!allowed.includes(op)) throw new Error(column + " holds " + kind + "s, which '" + op + "' does not compare; use one of " + allowed.join(", ") + ".");
  return spec.operators[op];
}

/** What each SQL operator of query.OPERATORS does with a non-null value. */
const TEST = { "=": (a, b) => a === b, "<>": (a, b) => a !== b, "<": (a, b) => a < b, "<=": (a, b) => a <= b,
               ">": (a, b) => a > b, ">=": (a, b) => a >= b, contains: (a, b) => a.includes(b) };

/** Code-point order (DuckDB's binary collation of UTF-8), false < true, numbers by value. */
function compare(a, b) {
  if (typeof a === "string") {
    const x = Array.from(a), y = Array.from(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const d = x[i].codePointAt(0) - y[i].codePointAt(0);
      if (d) return d;
    }
    return x.length - y.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The hits of `query` ({where: [[column, op, value]], any, sort, asc, top, offset, like: a sentence_id}):
 * {level, total, hits: [{s: sentence row, t: token row or null, distance}], columns: the filter and sort
 * columns}, or an Error with `disan search`'s line (checked in build_sql's order). @param {any} db @param {any} spec */
export function run(db, spec, query) {
  const top = query.top === undefined ? 20 : query.top, offset = query.offset || 0;
  if (!(Number.isInteger(top) && top >= 1 && top <= spec.max_top)) throw new Error("Hits a page: " + top + " is out of range; use 1 to " + spec.max_top.toLocaleString("en") + ".");
  if (!(Number.isInteger(offset) && offset >= 0)) throw new Error("The page offset " + offset + " is negative; use 0 or more.");
  const filters = (query.where || []).map(f => {
    const c = columnOf(db, f[0]), sql = checkOperator(spec, c.name, c.kind, f[1]);
    return { c, test: TEST[sql], value: parseValue(spec, c.name, c.kind, f[2]) };
  });
  const sort = query.sort ? columnOf(db, query.sort) : null;
  const named = filters.map(f => f.c).concat(sort ? [sort] : []);
  const level = named.some(c => c.table === "tokens") ? "tokens" : "sentences", n = db.header.rows[level];
  const get = level === "tokens"
    ? (c, j) => value(db, c.table, c.name, c.table === "tokens" ? j : db.tokenSentence[j])
    : (c, i) => value(db, "sentences", c.name, i);
  const any = query.any === true, rows = [], ok = (f, r) => { const v = get(f.c, r); return v !== null && f.test(v, f.value); };
  for (let r = 0; r < n; r++) {
    if (!filters.length || (any ? filters.some(f => ok(f, r)) : filters.every(f => ok(f, r)))) rows.push(r);
  }
  let like = null;
  if (Array.isArray(query.likeSignature)) like = query.likeSignature; // a sentence outside the index (--like SENTENCE)
  else if (query.like !== undefined && query.like !== null) {
    const s = db.rowOf.get(Number(query.like));
    if (s === undefined) throw new Error("No sentence " + query.like + " in this index to find sentences like.");
    like = signature(db, s);
  }
  const sentenceOf = r => level === "tokens" ? db.tokenSentence[r] : r;
  const distance = new Map(like ? rows.map(r => [r, Math.sqrt(signature(db, sentenceOf(r)).reduce((sum, v, k) => sum + (v - like[k]) ** 2, 0))]) : []);
  if (sort || like) {
    const desc = sort && query.asc !== true;
    rows.sort((a, b) => {
      if (sort) {
        const x = get(sort, a), y = get(sort, b);
        if (x === null || y === null) { if (x !== y) return x === null ? 1 : -1; }
        else { const d = compare(x, y); if (d) return desc ? -d : d; }
      }
      return like ? distance.get(a) - distance.get(b) : 0;
    });
  }
  const page = rows.slice(offset, offset + top).map(r => ({
    s: sentenceOf(r), t: level === "tokens" ? r : null, distance: like ? distance.get(r) : null }));
  return { level, total: rows.length, hits: page, columns: named.map(c => c.name) };
}
