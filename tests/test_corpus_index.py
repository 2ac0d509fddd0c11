"""disan index (issue 56, item 1): the Parquet tables, their agreement with the single-sentence trace, the
manifest, docs/search.md's column list, interruption and resume."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch

from disan.__main__ import main
from disan.api import checkpoint_path, load
from disan.checkpoint import sha256
from disan.corpus import build as build_module
from disan.corpus.build import build_index
from disan.corpus.columns import SENTENCE_COLUMNS, token_columns
from disan.corpus.manifest import open_index
from disan.errors import InputError
from tests.corpus_helpers import PAIRS, SENTENCES, built_index, sentence_lines

DOC = Path(__file__).resolve().parents[1] / "docs" / "search.md"


def _tables(index: Path):
    s = pq.read_table(index / "sentences").to_pandas().sort_values("sentence_id").reset_index(drop=True)
    t = pq.read_table(index / "tokens").to_pandas()
    return s, t


def test_sentences_tokens_and_manifest():
    index = built_index("disan-sst5", str(SENTENCES))
    s, t = _tables(index)
    lines = sentence_lines()
    assert list(s["text"]) == lines  # every non-blank line, in source order
    assert list(s["sentence_id"]) == list(range(len(lines)))
    assert len(t) == int(s["T"].sum())
    assert list(t.columns) == [c.name for c in token_columns("disan", 0)]
    manifest = json.loads((index / "manifest.json").read_text())
    assert manifest["model"]["sha256"] == sha256(checkpoint_path("disan-sst5"))
    assert manifest["rows"] == {"sentences": len(lines), "tokens": len(t)}
    assert len(manifest["parts"]["sentences"]) == 3  # 8 examples in chunks of 3
    assert all(len(sig) == manifest["signature"]["length"] for sig in s["signature"])


def test_rows_equal_the_single_sentence_trace():
    """Batched, padded and chunked, every value equals what model.trace of the sentence alone gives."""
    index = built_index("disan-sst5", str(SENTENCES))
    s, t = _tables(index)
    model = load("disan-sst5", "cpu")
    for sid, text in enumerate(sentence_lines()):
        trace = model.trace(text)
        enc = trace.premise.encoder
        rows = t[t.sentence_id == sid].sort_values("position")
        assert list(rows.word) == list(trace.tokens)
        assert np.allclose(rows.fw_gate, enc.fw.gate[0].mean(-1).numpy(), atol=1e-5)
        assert np.allclose(rows.s2t, enc.s2t_probs[0].mean(-1).numpy(), atol=1e-5)
        dist = (enc.bw.probs_mean[0] * (torch.arange(len(trace.tokens))[:, None] - torch.arange(len(trace.tokens))).abs()).sum(-1)
        live = enc.bw.allowed[0].any(-1).numpy()
        assert np.allclose(rows.bw_distance.to_numpy()[live], dist.numpy()[live], atol=1e-4)
        assert rows.bw_distance.isna().to_numpy()[~live].all()  # a row with no key is null, never 0
        row = s.iloc[sid]
        assert row.pred == max(trace.prediction, key=trace.prediction.get)
        assert row.pred_prob == pytest.approx(max(trace.prediction.values()), abs=1e-5)


def test_pair_model_indexes_both_sides():
    index = built_index("dsa-nli", str(PAIRS))
    s, t = _tables(index)
    assert list(s.hypothesis) == ["A person plays music .", "No animals are outside .", "Someone is cooking ."]
    assert set(t.side) == {"premise", "hypothesis"}
    first = t[t.sentence_id == 0]
    assert list(first[first.side == "hypothesis"].word) == ["a", "person", "plays", "music", "."]
    assert {"fw_h0_distance", "bw_h4_distance", "maxpool_share"} <= set(t.columns)
    model = load("dsa-nli", "cpu")
    probs = model.predict([("A man is playing a guitar .", "A person plays music .")])[0]
    assert s.pred_prob[0] == pytest.approx(max(probs.values()), abs=1e-5)


def test_every_column_is_documented_with_an_equation():
    doc = DOC.read_text(encoding="utf-8")
    names = {c.name for c in SENTENCE_COLUMNS} | {c.name for c in token_columns("dsa", 5)}
    first_cells = re.findall(r"^\| ([^|]+) \|", doc, flags=re.M)
    documented = {name for cell in first_cells for name in re.findall(r"`([a-zA-Z_0-9{}]+)`", cell)}
    expanded = {n.replace("{b}", b).replace("{k}", str(k)) for n in documented for b in ("fw", "bw") for k in range(5)}
    assert names - expanded == set()


def test_interrupted_build_leaves_nothing_finished_and_resumes(tmp_path, monkeypatch):
    out = tmp_path / "idx"
    real = build_module.index_chunk
    calls = []

    def failing(model, start, items):
        calls.append(start)
        if len(calls) == 2:
            raise KeyboardInterrupt  # cut off in the second chunk
        return real(model, start, items)

    monkeypatch.setattr(build_module, "index_chunk", failing)
    with pytest.raises(KeyboardInterrupt):
        build_index("disan-sst5", str(SENTENCES), out, progress=False, chunk=3, threads=1)
    assert not out.exists()
    with pytest.raises(InputError, match="not finished"):
        open_index(out)
    calls.clear()
    monkeypatch.setattr(build_module, "index_chunk", lambda m, s, i: calls.append(s) or real(m, s, i))
    build_index("disan-sst5", str(SENTENCES), out, progress=False, chunk=3, threads=1)
    assert calls == [3, 6]  # the first chunk was not traced again
    assert not out.with_name("idx.partial").exists()
    fresh = built_index("disan-sst5", str(SENTENCES))
    for table in ("sentences", "tokens"):
        assert pq.read_table(out / table).equals(pq.read_table(fresh / table))


def test_bad_index_commands_are_one_line(tmp_path, capsys):
    cases = [
        (["index", "--model", "disan-sst5", "--data", "nosuchcorpus", "--out", str(tmp_path / "x")], "nosuchcorpus"),
        (["index", "--model", "disan-sst5", "--data", "snli", "--out", str(tmp_path / "x")], "holds pairs"),
        (["index", "--model", "nosuchmodel", "--data", str(SENTENCES), "--out", str(tmp_path / "x")], "nosuchmodel"),
        (["index", "--model", "disan-sst5", "--data", str(SENTENCES), "--out", str(built_index("disan-sst5", str(SENTENCES)))],
         "already exists"),
    ]
    for argv, needle in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and "\n" not in err and "Traceback" not in err
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n")
    assert main(["index", "--model", "disan-sst5", "--data", str(blank), "--out", str(tmp_path / "y"), "--no-progress"]) == 2
    assert "no example" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_a_random_weight_model_is_indexed_and_searched_like(tmp_path, capsys):
    """The random-weight architectures (no checkpoint) index too; the manifest says so instead of a SHA-256."""
    out = tmp_path / "idx"
    manifest = build_index("dsa", str(SENTENCES), out, progress=False, threads=1)
    assert manifest["model"]["sha256"].startswith("random weights")
    assert main(["search", "--index", str(out), "--like", "not good at all", "--top", "2", "--json"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
