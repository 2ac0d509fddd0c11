"""disan search (issue 56, items 2 and 6): filters, and/or, sort, --top, --like over an index, checked against
pandas on the same Parquet; hostile values stay data; every bad input is one line."""

from __future__ import annotations

import hashlib
import json
import shutil

import pandas as pd
import pyarrow.parquet as pq
import pytest

from disan.__main__ import main
from disan.corpus.manifest import open_index
from disan.corpus.query import Filter, Query
from disan.corpus.search import run_query
from disan.errors import InputError
from tests.corpus_helpers import SENTENCES, built_index


@pytest.fixture(scope="module")
def index():
    return open_index(built_index("disan-sst5", str(SENTENCES)))


def _frames(index):
    s = pq.read_table(index.path / "sentences").to_pandas()
    t = pq.read_table(index.path / "tokens").to_pandas()
    return s, t.merge(s[["sentence_id", "text"]], on="sentence_id")


def _digest(folder) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.name.encode()), h.update(p.read_bytes())
    return h.hexdigest()


def test_and_or_sort_top_match_pandas(index):
    _, t = _frames(index)
    both = Query((Filter("word", "=", "not"), Filter("bw_gate", ">", "0.5")), "and", "bw_gate", top=100)
    either = Query(both.filters, "or", "bw_gate", top=100)
    got_and = run_query(index, both).records()
    got_or = run_query(index, either).records()
    want_and = t[(t.word == "not") & (t.bw_gate > 0.5)].sort_values("bw_gate", ascending=False)
    want_or = t[(t.word == "not") | (t.bw_gate > 0.5)]
    assert [(r["sentence_id"], r["position"]) for r in got_and] == list(zip(want_and.sentence_id, want_and.position))
    assert len(got_or) == min(100, len(want_or)) and len(got_or) > len(got_and) > 0
    assert [r["bw_gate"] for r in got_or] == sorted((r["bw_gate"] for r in got_or), reverse=True)


def test_sentence_level_sort_top_and_paging(index):
    s, _ = _frames(index)
    first = run_query(index, Query(sort="mean_fw_distance", descending=False, top=3)).records()
    second = run_query(index, Query(sort="mean_fw_distance", descending=False, top=3, offset=3)).records()
    want = s.sort_values(["mean_fw_distance", "sentence_id"]).sentence_id.tolist()
    assert [r["sentence_id"] for r in first + second] == want[:6]
    assert run_query(index, Query()).level == "sentences"


@pytest.mark.parametrize("text", ["'; DROP TABLE sentences; --", "😀 naïve \u202e", '"quoted" ; --'])
def test_hostile_like_sentences_are_data(index, text):
    before = _digest(index.path)
    hits = run_query(index, Query(like=text, top=100)).records()
    assert len(hits) == 8 and [h["like_distance"] for h in hits] == sorted(h["like_distance"] for h in hits)
    assert _digest(index.path) == before


def test_an_empty_like_sentence_is_one_line(index, capsys):
    assert main(["search", "--index", str(index.path), "--like", "   "]) == 2
    err = capsys.readouterr().err.strip()
    assert "empty" in err and "\n" not in err


def test_like_finds_a_sentence_itself_first(index):
    text = "a great film , but not a great story ."
    hits = run_query(index, Query(like=text, top=3)).records()
    assert hits[0]["text"] == text and hits[0]["like_distance"] < 1e-5
    assert hits[1]["like_distance"] > 1e-3
    filtered = run_query(index, Query((Filter("T", "<", "8"),), like=text, top=10)).records()
    assert all(r["T"] < 8 for r in filtered) and text not in [r["text"] for r in filtered]


HOSTILE = ["'", '"', "';", "'; DROP TABLE tokens; --", "\"; DROP TABLE sentences; --", "not' OR '1'='1",
           "😀", "naïve", "ＤＲＯＰ", "\u202e", "a\\b", "%", "_", "--", "/*", "$1", "?", "1e308", "-0", " "]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_text_values_are_data(index, value):
    before = _digest(index.path)
    _, t = _frames(index)
    for op in ("=", "!=", "contains"):
        got = run_query(index, Query((Filter("word", op, value),), top=10_000)).records()
        want = t[t.word == value] if op == "=" else t[t.word != value] if op == "!=" else t[t.word.str.contains(value, regex=False)]
        assert len(got) == len(want)
    assert _digest(index.path) == before
    assert run_query(index, Query((Filter("word", "=", "not"),))).rows  # the index still answers


def test_hostile_strings_in_names_and_numbers_are_refused(index):
    for column in ("word; DROP TABLE tokens", "word'", 'word"', "sentence_id) OR (1=1", "😀", "*", ""):
        with pytest.raises(InputError, match="Unknown column"):
            run_query(index, Query((Filter(column, "=", "x"),)))
        with pytest.raises(InputError, match="Unknown column"):
            run_query(index, Query(sort=column))
    for op in ("; DROP", "= 1 OR", "LIKE", "<>"):
        with pytest.raises(InputError, match="Unknown operator"):
            run_query(index, Query((Filter("bw_gate", op, "1"),)))
    for value in ("nan", "NaN", "inf", "-Infinity", "1e400", "0x10", "1; DROP", "'", "😀", ""):
        with pytest.raises(InputError, match="number"):
            run_query(index, Query((Filter("bw_gate", ">", value),)))
    huge = run_query(index, Query((Filter("sentence_id", "<", "99999999999999999999999999999"),), top=100))
    assert len(huge.rows) == 8  # a huge bound compares as a double, no overflow
    assert run_query(index, Query((Filter("T", ">", "-1e308"),), top=100)).rows
    with pytest.raises(InputError, match="true or false"):
        run_query(index, Query((Filter("correct", "=", "maybe"),)))
    with pytest.raises(InputError, match="--top"):
        run_query(index, Query(top=0))


def _one_line(capsys, argv, status=2) -> str:
    assert main(argv) == status
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err and "\n" not in err and "Traceback" not in err, err
    return err


def test_cli_prints_hits_and_json(index, capsys):
    assert main(["search", "--index", str(index.path), "--where", "word", "=", "not", "--sort", "bw_gate", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines and all(json.loads(line)["word"] == "not" for line in lines)


def test_cli_bad_input_is_one_line(index, tmp_path, capsys):
    path = str(index.path)
    assert "No index" in _one_line(capsys, ["search", "--index", str(tmp_path / "none")])
    assert "Unknown column" in _one_line(capsys, ["search", "--index", path, "--where", "nope", "=", "1"])
    assert "is not a number" in _one_line(capsys, ["search", "--index", path, "--where", "bw_gate", ">", "high"])
    assert "No hit" in _one_line(capsys, ["search", "--index", path, "--where", "word", "=", "zzzz"], status=1)
    assert "built from disan-sst5, not dsa-nli" in _one_line(
        capsys, ["search", "--index", path, "--model", "dsa-nli", "--like", "a film"])
    # damaged: a part cut short, a manifest that is not JSON, another version, a folder that is no index
    for damage, needle in (("truncate", "damaged"), ("manifest", "damaged"), ("version", "not this"),
                           ("schema", "index format"), ("nomanifest", "not an index")):
        copy = tmp_path / damage
        shutil.copytree(index.path, copy)
        manifest = copy / "manifest.json"
        if damage == "truncate":
            part = next((copy / "tokens").glob("*.parquet"))
            part.write_bytes(part.read_bytes()[:100])
        elif damage == "manifest":
            manifest.write_text("{not json")
        elif damage in ("version", "schema"):
            data = json.loads(manifest.read_text())
            data["project_version" if damage == "version" else "schema_version"] = "0.0.1" if damage == "version" else 0
            manifest.write_text(json.dumps(data))
        else:
            manifest.unlink()
        assert needle in _one_line(capsys, ["search", "--index", str(copy)])


def test_like_refuses_a_changed_checkpoint(tmp_path, capsys):
    from disan.api import checkpoint_path

    ckpt = tmp_path / "mine.safetensors"
    shutil.copyfile(checkpoint_path("disan-sst5"), ckpt)
    for suffix in (".json", ".manifest.json"):
        src = checkpoint_path("disan-sst5").with_suffix(suffix)
        if src.is_file():
            shutil.copyfile(src, ckpt.with_suffix(suffix))
    from disan.corpus.build import build_index

    out = tmp_path / "idx"
    build_index(str(ckpt), str(SENTENCES), out, progress=False, threads=1)
    assert main(["search", "--index", str(out), "--like", "a film", "--top", "1"]) == 0
    capsys.readouterr()
    with open(ckpt, "r+b") as f:  # another version of the checkpoint: same name, other bytes
        f.seek(-8, 2)
        f.write(b"\x00" * 8)
    assert "another version" in _one_line(capsys, ["search", "--index", str(out), "--like", "a film"])
    assert "not a number" in _one_line(capsys, ["search", "--index", str(out), "--where", "T", ">", "NaN x"])
