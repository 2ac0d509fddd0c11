"""The Streamlit app under hostile input (issue #6, items 1, 2, 4 and 5), in-process with AppTest.

* Every case of ``tests/bad_text.py`` typed into the sentence box: no exception,
  and either finite heatmaps or exactly one error sentence; user text reaches
  Plotly HTML-escaped and markdown backslash-escaped, never as raw HTML.
* A corrupt, tampered, mismatched, missing or pickled checkpoint in the
  pretrained folder: the app says what is wrong with which file, falls back to
  the random-weight model and keeps drawing — on every view.
* Two sessions share one cached model; α = 0 in one never changes the other.
* The app's token limit (``VIZ_MAX_TOKENS``) and the core's per-request memory
  limit both reach the page as one clear message.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

import disan
import disan.api
from disan import checkpoint
from viz_app.draw import settings
from viz_app.shell import loaders
from tests.bad_text import CASES
from tests.test_app import assert_clean, chart_by_key, charts, plain, run_app, section_html

#: Cases the app refuses, with a fragment of its one-sentence message. The app's limits
#: are lower than the API's: MAX_CHARS characters and MAX_TOKENS tokens (viz_app/draw/settings.py).
APP_ERRORS = {
    "empty": "is empty",
    "whitespace": "is empty",
    "zero_width_only": "no words",
    "nul_only": "no words",
    # The text box keeps at most MAX_CHARS characters (the browser cuts a longer paste, as AppTest
    # does): 10,000 characters of words become 1,000 tokens, over MAX_TOKENS; one 10,000-character
    # word becomes one 5,000-character token, drawn with a clipped label.
    "chars_10000_words": f"at most {settings.MAX_TOKENS}",
    "over_token_limit": f"at most {settings.MAX_TOKENS}",
}
#: A browser encodes text as UTF-8 before it reaches the server, which turns a lone surrogate
#: into U+FFFD; AppTest would instead fail inside protobuf. The API and CLI cases cover it.
APP_CASES = [c for c in CASES if c.id != "lone_surrogate"]

_BADGE = re.compile(r":\w+-badge\[((?:\\.|[^\]\\])*)\]")
_ASCII_PUNCT = re.compile(r"[!-/:-@\[-`{-~]")


def _heatmaps(spec: dict) -> list[dict]:
    return [p["view"] for p in spec["panels"] if p["kind"] == "heatmap"]


def _values(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def assert_escaped(at) -> None:
    """User text is inert: the figures hold tokens as data, drawn as canvas text and table text nodes (no HTML
    is parsed from them: the components set textContent), and every punctuation mark in a badge is escaped."""
    for md in at.markdown:
        if md.allow_html:  # the only HTML the app writes itself is its presentation-mode CSS
            assert md.value.lstrip().startswith("<style>"), md.value[:80]
        for content in _BADGE.findall(md.value):
            bare = re.sub(r"\\.", "", content)
            assert not _ASCII_PUNCT.search(bare), f"unescaped markdown in badge {content!r}"


@pytest.mark.parametrize("case", APP_CASES, ids=[c.id for c in APP_CASES])
def test_bad_text_gives_a_heatmap_or_one_clear_error(case):
    at = run_app(view="explore", model="dsa")
    at.text_area(key="sentence").set_value(case.text).run()
    assert_clean(at)
    assert [t.value for t in at.title] == ["Explore"]  # never a blank page
    assert len(at.text_area(key="sentence").value) <= settings.MAX_CHARS
    errors = [plain(e.value) for e in at.error]
    expected = APP_ERRORS.get(case.id)
    if expected is not None:
        assert len(errors) == 1 and expected in errors[0], errors
        assert "\n" not in errors[0] and errors[0].rstrip().endswith(".")
    else:
        assert errors == [], errors
        overview = chart_by_key(at, "overview")
        panels = _heatmaps(overview)
        assert len(panels) == 2
        for panel in panels:
            z = np.array([[np.nan if v is None else v for v in row] for row in panel["z"]], dtype=float)
            allowed = np.isfinite(z)  # masked cells (no allowed key) are null
            assert z.size and allowed.any() and (z[allowed] >= 0).all() and (z[allowed] <= 1 + 1e-6).all()
        bars = [p["view"] for p in chart_by_key(at, "prediction")["panels"] if p["kind"] == "bars"][0]
        probs = _values(bars["values"])
        assert np.isfinite(probs).all() and abs(probs.sum() - 1) < 1e-4
        ticks = panels[0]["colTokens"]  # the tokens as data; the component clips labels to a pixel width
        if case.tokens is not None:
            assert len(ticks) == len(case.tokens)
    assert_escaped(at)


def test_injection_cases_show_escaped_characters_not_markup():
    at = run_app(view="explore", model="dsa")
    at.text_area(key="sentence").set_value("<b>bold</b> **strong** [x](javascript:alert(1))").run()
    assert_clean(at)
    ticks = _heatmaps(chart_by_key(at, "overview"))[0]["colTokens"]
    assert ticks[:3] == ["<", "b", ">"]  # text, drawn as text: never markup
    tokens = section_html(at, "tokens")  # the page's Tokens section: every token escaped, one badge each
    assert '">&lt;</span>' in tokens and '">**strong**</span>' in tokens and "<b>bold" not in tokens
    assert not any(m.allow_html and "strong" in m.value for m in at.markdown)


# ------------------------------------------------------------- checkpoints (item 2)
MARKER_NAME = "pwned.txt"


class _Exploit:
    """Unpickling this creates a file: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _corrupt(kind: str, path, tmp_path) -> None:
    if kind == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        checkpoint.update_manifest(path)  # the hash matches; the content is still cut short
    elif kind == "wrong_hash":
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF
        path.write_bytes(bytes(data))
    elif kind == "config_mismatch":
        tensors = load_file(str(path))
        cfg = disan.random_model("disan", d_h=12).cfg.to_dict()
        meta = {"format": checkpoint.FORMAT, "config": json.dumps(cfg), "vocab": json.dumps(["<pad>", "<unk>"])}
        save_file(tensors, str(path), metadata=meta)
        checkpoint.update_manifest(path)
    elif kind == "missing":
        path.unlink()
    elif kind == "pickle":
        path.write_bytes(pickle.dumps({"weights": _Exploit(tmp_path / MARKER_NAME)}))
        checkpoint.update_manifest(path)
    elif kind == "wrong_format":
        save_file(load_file(str(path)), str(path), metadata={"format": "something-else"})
        checkpoint.update_manifest(path)
    else:  # pragma: no cover
        raise ValueError(kind)


@pytest.fixture
def broken_pretrained(tmp_path, monkeypatch, request):
    """A pretrained/ folder whose only checkpoint, ``broken``, is damaged as ``request.param`` says."""
    folder = tmp_path / "pretrained"
    path = checkpoint.save(disan.random_model("disan", d_h=10), folder / "broken")
    _corrupt(request.param, path, tmp_path)
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", folder)
    monkeypatch.setattr(disan, "available", lambda *a: ["broken", "disan", "dsa"])  # whatever is bundled
    loaders.load_model.clear()
    loaders.model_config.clear()
    yield request.param, path
    loaders.load_model.clear()
    loaders.model_config.clear()
    assert not (tmp_path / MARKER_NAME).exists(), "unpickling ran code"


CORRUPTIONS = {
    "truncated": "cannot be read",
    "wrong_hash": "SHA-256",
    "config_mismatch": "do not match its config",
    "missing": "No model named 'broken'",
    "pickle": "cannot be read",
    "wrong_format": "has format",
}


@pytest.mark.parametrize("broken_pretrained", list(CORRUPTIONS), indirect=True)
@pytest.mark.parametrize("view", ["explore", "distance_attention", "paper_figures"])
def test_corrupt_checkpoint_is_a_message_naming_the_file(broken_pretrained, view):
    kind, path = broken_pretrained
    at = run_app(view=view)  # ``broken`` is the default model: the only "trained" checkpoint
    assert_clean(at)
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1, errors
    assert CORRUPTIONS[kind] in errors[0]
    assert (path.name if kind != "missing" else "broken") in errors[0]
    assert "random-weight DiSAN model instead" in errors[0]
    assert len(charts(at)) >= 1 or any(b.key == "switch_dsa" for b in at.button)


def test_checkpoint_whose_input_size_does_not_match_its_glove(tmp_path, monkeypatch):
    from tests.conftest import WORDS, make_tiny
    from disan.vocab import Glove

    glove8 = Glove(WORDS, np.random.default_rng(0).standard_normal((len(WORDS), 8)).astype(np.float32), source="t")
    path = checkpoint.save(make_tiny("disan", glove8), tmp_path / "pretrained" / "tiny")  # cfg.glove: real 50-d
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", path.parent)
    monkeypatch.setattr(disan, "available", lambda *a: ["tiny", "disan", "dsa"])
    loaders.load_model.clear()
    loaders.model_config.clear()
    try:
        at = run_app(view="explore", sentence="the glass is good")
        assert_clean(at)
        assert any("tiny" in plain(e.value) for e in at.error)
    finally:
        loaders.load_model.clear()
        loaders.model_config.clear()
        loaders.trace_view.clear()
        loaders.full_trace.clear()


# ------------------------------------------------------------ determinism (item 4)
def _digest(model) -> str:
    h = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        h.update(name.encode())
        h.update(tensor.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    h.update(json.dumps(model.cfg.to_dict(), sort_keys=True).encode())
    return h.hexdigest()


def _snapshot(at) -> dict:
    """The overview heatmaps (z of every trace) and the prediction bars of the Explore view."""
    return {
        "overview": [np.array([[np.nan if v is None else v for v in row] for row in p["z"]], dtype=float)
                     for p in _heatmaps(chart_by_key(at, "overview"))],
        "prediction": [_values(p["view"]["values"]) for p in chart_by_key(at, "prediction")["panels"]
                       if p["kind"] == "bars"],
    }


def _same(a: dict, b: dict) -> bool:
    """Bit-identical (NaN = NaN: the masked-cell overlay is NaN off the mask by design)."""
    return all(
        len(a[k]) == len(b[k]) and all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a[k], b[k])) for k in a
    )


def test_alpha_zero_in_one_session_does_not_touch_another():
    sentence = "The restaurant is about to close , said the tired waiter ."
    model = loaders.load_model("dsa")
    before = _digest(model)
    a = run_app(view="explore", model="dsa", sentence=sentence)  # default: the trained α
    b = run_app(view="explore", model="dsa", sentence=sentence, alpha="0")
    assert_clean(a)
    assert_clean(b)
    assert a.slider(key="alpha").value == pytest.approx(model.cfg.alpha) and b.slider(key="alpha").value == 0
    snap_a, snap_b = _snapshot(a), _snapshot(b)
    assert not _same(snap_a, snap_b)  # α = 0 really changes the maps and the prediction
    for _ in range(2):  # interleave reruns; each session keeps exactly its own picture
        b.slider(key="alpha").set_value(0.0).run()
        a.run()
        assert_clean(a)
        assert_clean(b)
        assert _same(_snapshot(a), snap_a) and _same(_snapshot(b), snap_b)
    fresh = run_app(view="explore", model="dsa", sentence=sentence)
    assert _same(_snapshot(fresh), snap_a)  # a new user sees what the first one saw
    assert loaders.load_model("dsa") is model  # one shared cached model …
    assert _digest(model) == before and model.cfg.alpha == 1.5 and not model.training  # … never mutated
    direct = model.trace(sentence, alpha=0.0).premise.encoder.fw.probs[0].mean(0).numpy()
    np.testing.assert_allclose(snap_b["overview"][0], direct, atol=1e-6)


# --------------------------------------------------------- resource limits (item 5)
def test_app_token_limit_is_configurable_and_shown(monkeypatch):
    monkeypatch.setattr(settings, "MAX_TOKENS", 8)
    at = run_app(view="explore", model="disan")
    at.text_area(key="sentence").set_value("one two three four five six seven eight nine").run()
    assert_clean(at)
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and "9 tokens" in errors[0] and "at most 8" in errors[0] and "VIZ_MAX_TOKENS" in errors[0]
    at.text_area(key="sentence").set_value("one two three four five six seven eight").run()
    assert_clean(at)
    assert not at.error and len(charts(at)) >= 3


def test_env_var_sets_the_app_token_limit(monkeypatch):
    import importlib

    try:
        monkeypatch.setenv("VIZ_MAX_TOKENS", "40")
        assert importlib.reload(settings).MAX_TOKENS == 40
        monkeypatch.setenv("VIZ_MAX_TOKENS", "lots")
        assert importlib.reload(settings).MAX_TOKENS == 128  # invalid → default
    finally:
        monkeypatch.undo()  # the environment as it was, then the settings read from it
        importlib.reload(settings)


@pytest.fixture
def tight_memory_model(monkeypatch):
    """``disan`` served with a 1 MB per-request limit (the core refuses before encoding)."""
    real_load = disan.load
    small = disan.random_model("disan", "cpu", max_request_mb=1)
    monkeypatch.setattr(disan, "load", lambda name, device=None: small if name == "disan" else real_load(name, device))
    calls = []
    monkeypatch.setattr(small.encoder, "forward", lambda *a, **k: calls.append(1) or (_ for _ in ()).throw(AssertionError))
    loaders.load_model.clear()
    loaders.trace_view.clear()
    loaders.full_trace.clear()
    yield calls
    loaders.load_model.clear()
    loaders.trace_view.clear()
    loaders.full_trace.clear()


def test_memory_limit_is_shown_as_a_message(tight_memory_model):
    at = run_app(view="explore", model="disan", sentence="a sentence the cache has never seen before today")
    assert_clean(at)
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and "per-request limit of 1 MB" in errors[0] and "shorten" in errors[0]
    assert tight_memory_model == []  # refused before the encoder ran
