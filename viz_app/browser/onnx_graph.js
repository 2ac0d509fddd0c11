/* Graph — reading and cutting the exported ONNX graph's bytes in the page (no onnx library there).
 *
 *   initializer(graph, names)   the first initializer named one of `names`: {name, dims, type, raw};
 *   lean(graph, outputs)        the graph with only `outputs` and the nodes they need (leave-one-out's runs);
 *   parts(graph)                the graph cut in three, {fw, bw, head, ...}: the forward and the backward
 *                               block (Shen §4, Im & Cho Fig. 2: neither reads the other) run in two
 *                               workers at once, then the head (source2token or pooling, classifier)
 *                               runs on what they computed; null where the graph cannot be cut.
 *
 * The protobuf is walked field by field (onnx/onnx.proto's field numbers) and copied, never re-encoded, so a
 * part is the original bytes of the fields it keeps. The same module runs in the page (pair.js, site.js) and in
 * the model's worker (worker.js imports it); it therefore reads nothing around it.
 */
/* ONNX's protobuf field numbers (onnx/onnx.proto): ModelProto.graph, GraphProto.initializer, and a
 * TensorProto's dims, data_type, name, raw_data. */
var MODEL_GRAPH = 7, GRAPH_INITIALIZER = 5, TENSOR_DIMS = 1, TENSOR_TYPE = 2, TENSOR_NAME = 8, TENSOR_RAW = 9;

/* The varint at bytes[pos] (before `end`): [value, the position after it]. By multiplication, so values
 * past 2³¹ (lengths, dims) stay exact. */
function varint(bytes, pos, end) {
  var value = 0, scale = 1, byte;
  do {
    if (pos >= end) throw new Error("the ONNX graph is cut short; rebuild the folder with python -m viz_app site");
    byte = bytes[pos++];
    value += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte & 0x80);
  return [value, pos];
}

/* Each field of the protobuf message bytes[start:end] as fn(number, wireType, value, from, to, at, next):
 * value is the number of a varint field, from/to the span of a length-delimited one's contents, at/next the
 * span of the whole field (its key included; fixed-size fields are passed with these alone). */
function eachField(bytes, start, end, fn) {
  var pos = start, r;
  while (pos < end) {
    var at = pos;
    r = varint(bytes, pos, end);
    var number = Math.floor(r[0] / 8), wire = r[0] % 8;
    pos = r[1];
    if (wire === 0) { r = varint(bytes, pos, end); pos = r[1]; fn(number, wire, r[0], undefined, undefined, at, pos); }
    else if (wire === 2) {
      r = varint(bytes, pos, end);
      var from = r[1];
      pos = from + r[0];
      if (pos > end) throw new Error("the ONNX graph is cut short; rebuild the folder with python -m viz_app site");
      fn(number, wire, r[0], from, pos, at, pos);
    }
    else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > end) throw new Error("the ONNX graph is cut short; rebuild the folder with python -m viz_app site");
      fn(number, wire, undefined, undefined, undefined, at, pos);
    }
    else throw new Error("the ONNX graph holds a protobuf field of wire type " + wire + "; rebuild the folder");
  }
}

/* The initializer named one of `names` in the ONNX model `bytes`: {name, dims, type, raw (Uint8Array)}. */
function initializer(bytes, names) {
  var found = null;
  eachField(bytes, 0, bytes.length, function (n, w, v, from, to) {
    if (found || n !== MODEL_GRAPH || w !== 2) return;
    eachField(bytes, from, to, function (n2, w2, v2, f2, t2) {
      if (found || n2 !== GRAPH_INITIALIZER || w2 !== 2) return;
      var t = { name: null, dims: [], type: null, raw: null };
      eachField(bytes, f2, t2, function (n3, w3, v3, f3, t3) {
        if (n3 === TENSOR_NAME) t.name = new TextDecoder().decode(bytes.subarray(f3, t3));
        else if (n3 === TENSOR_TYPE) t.type = v3;
        else if (n3 === TENSOR_RAW) t.raw = bytes.subarray(f3, t3);
        else if (n3 === TENSOR_DIMS && w3 === 0) t.dims.push(v3);
        else if (n3 === TENSOR_DIMS && w3 === 2) { // packed repeated int64
          for (var p = f3, r; p < t3; p = r[1]) { r = varint(bytes, p, t3); t.dims.push(r[0]); }
        }
      });
      if (names.indexOf(t.name) >= 0) found = t;
    });
  });
  return found;
}

/* ------------------------------------------------------- a lean graph */

/* More of onnx/onnx.proto's field numbers: GraphProto.node, .input, .output, .value_info; NodeProto.input,
 * .output, .attribute; AttributeProto.g and .graphs (a subgraph); ValueInfoProto.name. */
var GRAPH_NODE = 1, GRAPH_INPUT = 11, GRAPH_OUTPUT = 12, GRAPH_VALUE_INFO = 13;
var NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_ATTRIBUTE = 5, ATTRIBUTE_GRAPH = 6, ATTRIBUTE_GRAPHS = 11, VALUE_NAME = 1;

function varintBytes(n) {
  var out = [];
  while (n >= 128) { out.push(n % 128 + 128); n = Math.floor(n / 128); }
  out.push(n);
  return out;
}

/* The ONNX model `bytes` with only the graph outputs named in `keep`, and only the nodes, initializers and
 * value infos those need (a node is needed when an output of it is; reached backwards from `keep`, so the
 * order of the nodes does not matter). The trace outputs the page draws (T × T maps, gates, pooling) take
 * nodes of their own that leave-one-out, which reads only the class probabilities, need not run: onnxruntime
 * runs every node of a graph whatever is fetched. A node with a subgraph (If, Loop, Scan) may read any
 * name of the graph around it, so a graph holding one keeps every node. Returns a new Uint8Array; the
 * graph's other fields (inputs, name, …) and the model's are copied unchanged. */
function lean(bytes, keep) {
  var g = read(bytes);
  keep.forEach(function (name) {
    if (g.outputs.indexOf(name) < 0) throw new Error("the graph has no output " + JSON.stringify(name) + " (it has " + g.outputs.join(", ") + "); rebuild the folder with python -m viz_app site");
  });
  var live = g.subgraph ? new Set(g.nodes) : closure(g, producers(g), keep), needed = new Set(keep);
  live.forEach(function (node) { node.inputs.forEach(function (i) { if (i) needed.add(i); }); });
  return write(g, g.fields.filter(function (f) {
    if (f.number === GRAPH_NODE) return live.has(f);
    if (f.number === GRAPH_OUTPUT) return keep.indexOf(f.name) >= 0;
    if (f.number === GRAPH_INITIALIZER || f.number === GRAPH_VALUE_INFO) return needed.has(f.name);
    // an initializer may be listed among the inputs too (ONNX IR < 4): it goes with the initializer
    if (f.number === GRAPH_INPUT) return !g.initializers.has(f.name) || needed.has(f.name);
    return true;
  }), []);
}

/* ------------------------------------------------------------ three parts */

/* Graph, nodes and named fields of the ONNX model `bytes` (lean's reading, shared with parts). */
function read(bytes) {
  var decode = new TextDecoder(), text = function (f, t) { return decode.decode(bytes.subarray(f, t)); };
  var graph = null;
  eachField(bytes, 0, bytes.length, function (n, w, v, from, to, at, next) {
    if (n === MODEL_GRAPH && w === 2) graph = { from: from, to: to, at: at, next: next };
  });
  if (!graph) throw new Error("the model file holds no ONNX graph; rebuild the folder with python -m viz_app site");
  var g = { bytes: bytes, graph: graph, fields: [], nodes: [], outputs: [], initializers: new Set(), subgraph: false };
  eachField(bytes, graph.from, graph.to, function (n, w, v, from, to, at, next) {
    var f = { number: n, at: at, next: next, name: null };
    g.fields.push(f);
    if (w !== 2) return;
    if (n === GRAPH_NODE) {
      f.inputs = []; f.outputs = [];
      eachField(bytes, from, to, function (n2, w2, v2, f2, t2) {
        if (w2 !== 2) return;
        if (n2 === NODE_INPUT) f.inputs.push(text(f2, t2));
        else if (n2 === NODE_OUTPUT) f.outputs.push(text(f2, t2));
        else if (n2 === NODE_ATTRIBUTE) eachField(bytes, f2, t2, function (n3, w3) {
          if (w3 === 2 && (n3 === ATTRIBUTE_GRAPH || n3 === ATTRIBUTE_GRAPHS)) g.subgraph = true;
        });
      });
      g.nodes.push(f);
    } else if (n === GRAPH_OUTPUT || n === GRAPH_VALUE_INFO || n === GRAPH_INPUT || n === GRAPH_INITIALIZER) {
      var nameField = n === GRAPH_INITIALIZER ? TENSOR_NAME : VALUE_NAME;
      eachField(bytes, from, to, function (n2, w2, v2, f2, t2) { if (n2 === nameField && w2 === 2) f.name = text(f2, t2); });
      if (n === GRAPH_OUTPUT) g.outputs.push(f.name);
      if (n === GRAPH_INITIALIZER) g.initializers.add(f.name);
    }
  });
  return g;
}

/* The model with the graph's fields `kept` (in their order) and `extra` (byte arrays, whole fields). */
function write(g, kept, extra) {
  var bytes = g.bytes, graph = g.graph;
  var length = kept.reduce(function (s, f) { return s + f.next - f.at; }, 0) +
    extra.reduce(function (s, e) { return s + e.length; }, 0);
  var head = [MODEL_GRAPH * 8 + 2].concat(varintBytes(length));
  var out = new Uint8Array(graph.at + head.length + length + bytes.length - graph.next), pos = 0;
  out.set(bytes.subarray(0, graph.at), pos); pos += graph.at;
  out.set(head, pos); pos += head.length;
  kept.forEach(function (f) { out.set(bytes.subarray(f.at, f.next), pos); pos += f.next - f.at; });
  extra.forEach(function (e) { out.set(e, pos); pos += e.length; });
  out.set(bytes.subarray(graph.next), pos);
  return out;
}

/* Each tensor name → the node that outputs it. */
function producers(g) {
  var producer = new Map();
  g.nodes.forEach(function (node) { node.outputs.forEach(function (o) { if (o) producer.set(o, node); }); });
  return producer;
}

/* The nodes that compute `names`, reached backwards; a tensor in `stop` is taken as given (not computed). */
function closure(g, producer, names, stop) {
  var live = new Set(), todo = names.slice();
  while (todo.length) {
    var name = todo.pop(), node = producer.get(name);
    if (!node || live.has(node) || (stop && stop(name, node))) continue;
    live.add(node);
    node.inputs.forEach(function (i) { if (i) todo.push(i); });
  }
  return live;
}

/* A value info's field (key 13) as a graph input (11) or output (12): the same ValueInfoProto bytes, so the
 * cut tensor keeps the type and shape onnx's shape inference gave it (disan/onnx_export.py store_weights). */
function retag(g, f, number) {
  var field = g.bytes.slice(f.at, f.next);
  field[0] = number * 8 + 2; // each of these keys is one byte
  return field;
}

/* The graph cut by its outputs: each of `groups` ([[key, regex], …]; an output goes to the first whose regex
 * it matches) computes its outputs, and `head` the rest, reading what it needs of the groups' tensors as
 * inputs of its own. Nodes two groups need (the embedding lookup, the masks) run in each; a node that reads
 * only initializers (a float16 weight's Cast) runs wherever it is needed, never passed between parts. Each part
 * keeps every graph input, so one feeds object runs them all. `keep` (default every output): the outputs to
 * compute; a group then keeps only what head reads and its own kept outputs (leave-one-out's parts).
 * Returns {<key>…, head: model bytes, outputs: {<key>…, head: the kept outputs each computes}, cuts: {<key>:
 * the tensors it passes to head}, reads: {<key>: the graph inputs it reads}}, or null where the graph cannot be
 * cut: it holds a subgraph (If, Loop, Scan), a group or the head has no output, or a cut tensor has no value
 * info (an export older than the parts).
 * Pure bookkeeping on names: that the parts compute what the whole graph computes is tests/test_onnx_parts.py's. */
function cut(bytes, groups, keep) {
  var g = read(bytes);
  if (g.subgraph) return null;
  (keep || []).forEach(function (name) {
    if (g.outputs.indexOf(name) < 0) throw new Error("the graph has no output " + JSON.stringify(name) + "; rebuild the folder with python -m viz_app site");
  });
  var wanted = function (o) { return !keep || keep.indexOf(o) >= 0; };
  var producer = producers(g), infos = new Map(), keys = groups.map(function (x) { return x[0]; });
  // a cut tensor's type: its value info, or its output field where it is a graph output itself
  g.fields.forEach(function (f) { if (f.number === GRAPH_VALUE_INFO || f.number === GRAPH_OUTPUT) infos.set(f.name, f); });
  // constant: a node that reads only initializers and constants (its value never depends on the input)
  var constant = new Set(), grew = true;
  while (grew) {
    grew = false;
    g.nodes.forEach(function (node) {
      if (constant.has(node)) return;
      if (node.inputs.every(function (i) { var p = producer.get(i); return !i || (p ? constant.has(p) : g.initializers.has(i)); })) {
        constant.add(node);
        grew = true;
      }
    });
  }
  var outs = {}, blocks = {}, cuts = {}, taken = new Set();
  groups.forEach(function (x) {
    outs[x[0]] = g.outputs.filter(function (o) { return !taken.has(o) && x[1].test(o); });
    outs[x[0]].forEach(function (o) { taken.add(o); });
    // a group's block: every node its outputs need, kept or not (the nodes head takes from it)
    blocks[x[0]] = closure(g, producer, outs[x[0]]);
    cuts[x[0]] = [];
  });
  var headOuts = g.outputs.filter(function (o) { return !taken.has(o) && wanted(o); });
  if (!headOuts.length || keys.some(function (k) { return !outs[k].length; })) return null;
  var head = closure(g, producer, headOuts, function (name, node) {
    if (constant.has(node)) return false;
    var k = keys.filter(function (k) { return blocks[k].has(node); })[0];
    if (k === undefined) return false;
    if (cuts[k].indexOf(name) < 0) cuts[k].push(name);
    return true;
  });
  var passedAll = [].concat.apply([], keys.map(function (k) { return cuts[k]; }));
  if (passedAll.some(function (name) { return !infos.has(name); })) return null;
  function part(live, outputs, given, passed) {
    var needed = new Set(outputs);
    live.forEach(function (node) { node.inputs.forEach(function (i) { if (i) needed.add(i); }); node.outputs.forEach(function (o) { needed.add(o); }); });
    var kept = g.fields.filter(function (f) {
      if (f.number === GRAPH_NODE) return live.has(f);
      if (f.number === GRAPH_OUTPUT) return outputs.indexOf(f.name) >= 0 || passed.indexOf(f.name) >= 0;
      if (f.number === GRAPH_INITIALIZER) return needed.has(f.name);
      if (f.number === GRAPH_VALUE_INFO) return needed.has(f.name) && given.indexOf(f.name) < 0 && passed.indexOf(f.name) < 0;
      if (f.number === GRAPH_INPUT) return !g.initializers.has(f.name) || needed.has(f.name);
      return true;
    });
    var extra = given.map(function (name) { return retag(g, infos.get(name), GRAPH_INPUT); })
      .concat(passed.filter(function (name) { return g.outputs.indexOf(name) < 0; })
        .map(function (name) { return retag(g, infos.get(name), GRAPH_OUTPUT); }));
    return write(g, kept, extra);
  }
  var inputs = g.fields.filter(function (f) { return f.number === GRAPH_INPUT && !g.initializers.has(f.name); })
    .map(function (f) { return f.name; });
  var out = { head: part(head, headOuts, passedAll, []), outputs: { head: headOuts }, cuts: cuts, reads: {} };
  keys.forEach(function (k) {
    var kept = outs[k].filter(wanted), live = closure(g, producer, kept.concat(cuts[k])), read = new Set();
    live.forEach(function (node) { node.inputs.forEach(function (i) { read.add(i); }); });
    out[k] = part(live, kept, [], cuts[k]);
    out.outputs[k] = kept;
    out.reads[k] = inputs.filter(function (i) { return read.has(i); });
  });
  return out;
}

var FW = /(^|_)fw_/, BW = /(^|_)bw_/, PREMISE = /^p_/, HYPOTHESIS = /^h_/;

/* The graph in three: `fw` computes the outputs named fw_… (with any p_/h_ prefix), `bw` those named bw_…,
 * `head` the rest. The forward and the backward block (Shen §4, Im & Cho Fig. 2) do not read each other, so
 * the page runs the two in two workers at once, then the head on what they computed. */
function parts(bytes) {
  return cut(bytes, [["fw", FW], ["bw", BW]]);
}

/* An NLI graph in three: `p` computes the premise's outputs (p_…), `h` the hypothesis's (h_…), `head` the
 * class probabilities from the two sentence encodings. The encoder reads one sentence (Shen §5.2, Im & Cho
 * §4.2), so a key typed in the premise leaves the hypothesis's part as it was: the page's worker keeps its
 * outputs and runs the premise's part and the head alone. null for a single-sentence graph. `keep` as cut's. */
function sentences(bytes, keep) {
  return cut(bytes, [["p", PREMISE], ["h", HYPOTHESIS]], keep);
}

export { varint, eachField, initializer, lean, cut, parts, sentences };
