"""One trace view (issue 54 item 5, docs/trace-view.md): Python and the page's own model run fill the same fields.

For the same sentence, Python's view of the torch trace (``site_view.trace_view_json``, and ``packed_trace_view``
through the page's one decoder, ``trace_view.js`` ``decode``) and the page's view of the exported graph's
outputs (``trace_view.js`` ``fromOutputs``, what ``site.js`` runs on its worker's answer; the outputs here come
from onnxruntime in Python, as ``site_start.py`` stores a page's opening run) must have the same field names at
every level, null in the same places, equal to the contract's list (``FIELDS``), and the same numbers. A field
added to one producer and not the other fails here.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from tests.conftest import make_tiny
from tests.page_js import node_module
from viz_app.draw import site
from viz_app.draw.site_view import packed_trace_view, trace_view_json

#: The torch trace and onnxruntime on the exported float32 graph agree within this.
TOLERANCE = 1e-4

CASES = [("disan", False, "the movie is n't good .", None),
         ("disan", True, "a man do the tea .", "the dogs is bad"),
         ("dsa", False, "the dog is good , the movie is bad .", None),
         ("dsa", True, "a man do the tea .", "the dogs is bad")]

VIEWS = r"""
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const out = {};
for (const [name, values] of Object.entries(input.outputs)) out[name] = { data: Float32Array.from(values) };
const page = TraceView.fromOutputs(input.meta, input.input, out);
const packed = TraceView.decode(input.packed.view, Uint8Array.from(Buffer.from(input.packed.arrays, "base64")));
const nulls = tv => {
  const at = (o, prefix) => Object.keys(o).filter(k => o[k] === null).map(k => prefix + k);
  const sides = ["premise", "hypothesis"].filter(s => tv[s]);
  return [...at(tv, "view."), ...sides.flatMap(s => [...at(tv[s], s + "."),
    ...["fw", "bw"].flatMap(d => at(tv[s][d], s + "." + d + "."))])].sort();
};
const plain = v => JSON.parse(JSON.stringify(v, (k, x) => ArrayBuffer.isView(x) ? Array.from(x) : x));
process.stdout.write(JSON.stringify({
  contract: TraceView.FIELDS,
  fields: { page: TraceView.fieldsOf(page), packed: TraceView.fieldsOf(packed), json: TraceView.fieldsOf(input.json) },
  nulls: { page: nulls(page), packed: nulls(packed), json: nulls(input.json) },
  page: plain(page), packed: plain(packed),
}));
"""


def _views(tmp_path, glove, arch: str, pair: bool, text: str, hypothesis: str | None) -> tuple[dict, dict]:
    """(what Node answered, Python's JSON view) for one tiny model and sentence."""
    from disan.onnx_export import SiteRunner, export_site_model, rounded_model
    from disan.vocab import tokenize

    model = make_tiny(arch, glove, pair=pair, unk_zero=True)
    export = export_site_model(model, tmp_path, half=False, max_bytes=None, extra_words=5)
    meta = json.loads(export.vocab_path.read_text(encoding="utf-8"))
    page_meta = site._page_model("tiny", meta, "models/tiny.js")
    runner = SiteRunner(export.onnx_path.read_bytes(), meta)
    outputs = runner.run(text, hypothesis)
    sides = {"premise": text, "hypothesis": hypothesis} if pair else {"premise": text}
    inp = {}
    for side, sentence in sides.items():
        tokens = tokenize(sentence)
        inp[side] = {"tokens": tokens, "status": list(runner.ids(tokens)[1])}
    inp["alpha"] = meta["alpha"] or 0
    trace = rounded_model(model, 5, half=False).trace(text, hypothesis)  # the exported vocabulary and numbers
    view, arrays = packed_trace_view(trace)
    python = trace_view_json(trace)
    done = node_module(VIEWS, stdin=json.dumps({
        "meta": page_meta, "input": inp, "json": python,
        "outputs": {k: np.asarray(v, np.float32).ravel().tolist() for k, v in outputs.items()},
        "packed": {"view": view, "arrays": base64.b64encode(arrays).decode("ascii")},
    }))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), python


@pytest.mark.parametrize(("arch", "pair", "text", "hypothesis"), CASES, ids=[f"{c[0]}-{'pair' if c[1] else 'one'}"
                                                                             for c in CASES])
def test_python_and_the_pages_model_run_fill_the_same_fields_with_the_same_numbers(
        tmp_path, tiny_glove, arch, pair, text, hypothesis):
    got, python = _views(tmp_path, tiny_glove, arch, pair, text, hypothesis)
    contract = got["contract"]
    want = sorted([f"view.{k}" for k in contract["view"]] + [f"sentence.{k}" for k in contract["sentence"]] +
                  [f"block.{k}" for k in contract["block"]])
    # the same field names at every level, and exactly the contract's (docs/trace-view.md)
    assert got["fields"]["page"] == got["fields"]["json"] == got["fields"]["packed"] == want
    # null in the same places: no field filled by one producer and left empty by the other
    assert got["nulls"]["page"] == got["nulls"]["json"] == got["nulls"]["packed"]
    if arch == "disan":  # Shen Eq. 15's parts, filled by both (the per-feature P follows from them)
        assert "premise.fw.keys" not in got["nulls"]["page"] and "premise.fw.c" not in got["nulls"]["page"]
    page, packed = got["page"], got["packed"]
    assert page["arch"] == python["arch"] and page["masks"] == python["masks"]
    np.testing.assert_allclose([page["prediction"][k] for k in python["prediction"]],
                               list(python["prediction"].values()), atol=TOLERANCE)
    for side in ("premise", "hypothesis"):
        if python[side] is None:
            continue
        for key in ("tokens", "T", "D2"):
            assert page[side][key] == python[side][key] == packed[side][key]
        for key in ("s2t", "maxpool_share"):
            if python[side][key] is not None:
                np.testing.assert_allclose(page[side][key], python[side][key], atol=TOLERANCE)
                np.testing.assert_allclose(packed[side][key], python[side][key], atol=1e-6)
        for d in ("fw", "bw"):
            p, w, k = page[side][d], python[side][d], packed[side][d]
            for key in contract["block"]:
                if isinstance(w[key], list):
                    np.testing.assert_allclose(p[key], w[key], atol=TOLERANCE, err_msg=f"{side}.{d}.{key}")
                    np.testing.assert_allclose(k[key], w[key], atol=1e-6, err_msg=f"{side}.{d}.{key} (packed)")
                elif isinstance(w[key], float):
                    assert p[key] == pytest.approx(w[key]) == k[key]
                else:
                    assert p[key] == w[key] == k[key], f"{side}.{d}.{key}"
