"""``viz_app.draw.view_store``: stored opening pages, and the app drawing its first page from one without torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

import disan
from disan.config import NLI_LABELS
from tests.page_js import page_figures
from viz_app.draw import settings, view_store
from viz_app.draw.records import trace_view

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "viz_app" / "app.py"


def _assert_same(a, b, path="view"):
    """Every field of two records equal: arrays exactly, floats exactly, nested records field by field."""
    if hasattr(a, "__dataclass_fields__"):
        assert type(a) is type(b), path
        for f in fields(a):
            _assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape, path
        np.testing.assert_array_equal(a, b, err_msg=path)
    else:
        assert a == b and type(a) is type(b), (path, a, b)


@pytest.fixture(scope="module")
def views():
    dsa_nli = disan.random_model("dsa", "cpu", pair=True, labels=NLI_LABELS)
    return {
        "disan": trace_view(disan.load("disan", device="cpu").trace("a gorgeous , witty , seductive movie .")),
        "dsa-pair": trace_view(dsa_nli.trace("A lady stands outside .", "A woman is outdoors .", alpha=0.5)),
    }


@pytest.mark.parametrize("name", ["disan", "dsa-pair"])
def test_a_record_reads_back_equal_field_by_field(views, tmp_path, name):
    path = tmp_path / "r.npz"
    assert view_store.write(views[name], path)
    back = view_store.read(path)
    _assert_same(views[name], back)
    with np.load(path, allow_pickle=False) as stored:  # plain arrays only: reading one never unpickles
        assert all(stored[k].dtype != object for k in stored.files)


def test_the_record_name_follows_the_checkpoint_and_the_inputs(tmp_path):
    ckpt = tmp_path / "m.safetensors"
    ckpt.write_bytes(b"x" * 10)
    inputs = {"text": "a b", "hypothesis": None, "masks": "default"}
    first = view_store.record_path("m", view_store.source_id(ckpt, "disan", "g"), inputs)
    assert first == view_store.record_path("m", view_store.source_id(ckpt, "disan", "g"), dict(inputs))
    assert first != view_store.record_path("m", view_store.source_id(ckpt, "disan", "g"), {**inputs, "text": "a c"})
    assert first != view_store.record_path("m", view_store.source_id(None, "disan", "g"), inputs)
    ckpt.write_bytes(b"y" * 11)  # a retrained checkpoint: another size and time
    assert first != view_store.record_path("m", view_store.source_id(ckpt, "disan", "g"), inputs)
    assert first.parent == Path(os.environ[view_store.ENV])


@pytest.mark.parametrize("damage", ["missing", "garbage", "no_meta", "old_format", "truncated"])
def test_a_damaged_record_is_not_used(views, tmp_path, damage):
    path = tmp_path / "r.npz"
    view_store.write(views["disan"], path)
    if damage == "missing":
        path.unlink()
    elif damage == "garbage":
        path.write_bytes(b"<html>not a record</html>")
    elif damage == "no_meta":
        np.savez(path, x=np.zeros(3))
    elif damage == "old_format":
        with np.load(path) as stored:
            arrays = {k: stored[k] for k in stored.files}
        meta = json.loads(arrays.pop("__meta__").tobytes())
        meta["format"] = view_store.FORMAT + 1
        np.savez(path, __meta__=np.frombuffer(json.dumps(meta).encode(), np.uint8), **arrays)
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert view_store.read(path) is None


def test_an_unwritable_folder_costs_only_the_head_start(views, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert view_store.write(views["disan"], blocker / "r.npz") is False


def test_at_most_keep_records_stay(views, tmp_path, monkeypatch):
    monkeypatch.setattr(view_store, "KEEP", 3)
    paths = [tmp_path / f"r{k}.npz" for k in range(5)]
    for k, path in enumerate(paths):
        view_store.write(views["disan"], path)
        os.utime(path, ns=(k * 10**9, k * 10**9))  # distinct times, oldest first
    assert sorted(p.name for p in tmp_path.glob("*.npz")) == ["r2.npz", "r3.npz", "r4.npz"]


_FIRST_PAGE = """
import json, sys, threading
from streamlit.testing.v1 import AppTest
from viz_app.shell.chart import unwire
at = AppTest.from_file({app!r}, default_timeout=120).run()
assert not at.exception, [e.value for e in at.exception]
charts = [unwire(json.loads(c.proto.json)) for c in at.get("bidi_component")
          if c.proto.component_name.startswith("viz_plotly_chart")]
warm = any(t.name.startswith("disan-warm-") for t in threading.enumerate())
print(json.dumps({{"torch": "torch" in sys.modules, "warm": warm, "errors": [e.value for e in at.error],
                  "charts": [c for c in charts if c.get("role") == "figure"],
                  "views": {{k: v for c in charts for k, v in (c.get("views") or {{}}).items()}}}}))
"""


def _first_page(folder: Path) -> dict:
    """What a fresh app process sends first, and the first heatmap the page draws from it (built in Node by
    the page's own code, ``tests.page_js``)."""
    env = {**os.environ, view_store.ENV: str(folder)}
    out = subprocess.run([sys.executable, "-c", _FIRST_PAGE.format(app=str(APP))], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    page = json.loads(out.stdout.strip().splitlines()[-1])
    views = {k: (json.loads(v["view"]), v["arrays"]) for k, v in page["views"].items()}
    built = page_figures([([views[v] for v in c["view_ids"]], c["figure"], c["params"], c["theme"])
                          for c in page["charts"]])
    heat = [b["figure"]["panels"][0]["view"] for b in built if b["figure"]["panels"][0]["kind"] == "heatmap"]
    return {**page, "z": heat[0]["z"], "x": heat[0].get("colTokens", heat[0]["rowTokens"])}


def test_a_restarted_app_draws_its_opening_page_without_torch(tmp_path):
    """Issue 19's cold start: the first start computes the opening page and stores it; the next start (a fresh
    process) draws the same heatmap from the record without importing torch, then loads the model in the
    background."""
    first = _first_page(tmp_path)
    assert first["torch"] and first["errors"] == [] and not first["warm"]  # the model is loaded already
    assert len(list(tmp_path.glob("*.npz"))) == 1
    again = _first_page(tmp_path)
    assert again["torch"] is False and again["errors"] == [] and again["warm"]  # loading in the background
    assert again["z"] == first["z"] and again["x"] == first["x"]


def test_the_warm_up_loads_the_model_and_never_raises(monkeypatch):
    from viz_app.shell import loaders

    monkeypatch.setattr(settings, "WARM_UP_DELAY_S", 0)
    traced = []

    class Model:
        def trace(self, text):
            traced.append(text)

    monkeypatch.setattr(disan, "load", lambda name, device: Model())
    loaders._warm("disan")
    assert traced == [settings.DEFAULT_SENTENCE]
    monkeypatch.setattr(disan, "load", lambda name, device: 1 / 0)
    loaders._warm("disan")  # a broken checkpoint is the page's to report, not the warm-up's
