"""Plausibility against SST's word and phrase labels (disan/attribution/plausibility.py): the tree's references,
AUPRC and precision at R on literal rankings, and the fixture trees."""

from __future__ import annotations

import numpy as np
import pytest

from disan.attribution import plausibility as P

from fixture_data import fixture_data_dir


def test_tree_nodes_mark_leaves_spans_and_depths():
    tokens, nodes = P.tree_nodes("(1 (2 Rather) (1 dull))")
    assert tokens == ["Rather", "dull"]
    assert nodes == [P.Node(1, 0, 2, 0, False), P.Node(2, 0, 1, 1, True), P.Node(1, 1, 2, 1, True)]
    with pytest.raises(ValueError):
        P.tree_nodes("(1 (2 Rather) (1 dull)")


def test_word_and_phrase_references():
    tokens, refs = P.references("(1 (2 Rather) (1 dull))")
    assert refs["word"].tolist() == [False, True] and refs["phrase"].tolist() == [False, True]
    # every leaf neutral: no word positives; the phrase reference follows each token's lowest non-neutral phrase
    tokens, refs = P.references("(1 (2 The) (1 (3 (2 good) (2 intentions)) (1 (2 fail) (2 .))))")
    assert tokens == ["The", "good", "intentions", "fail", "."]
    assert not refs["word"].any()
    assert refs["phrase"].tolist() == [False, False, False, True, True]  # 'good intentions' is positive: disagrees
    assert P.references("(2 (2 A) (2 film))")[1]["phrase"] is None  # a neutral sentence has no polarity


def test_average_precision_and_precision_at_r_on_literal_rankings():
    scores, pos = np.array([0.9, 0.1, 0.5, 0.3]), np.array([True, False, False, True])
    assert P.average_precision(scores, pos) == pytest.approx((1 + 2 / 3) / 2)
    assert P.precision_at_r(scores, pos) == 0.5
    assert P.average_precision(-scores, pos) == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert np.isnan(P.average_precision(scores, np.ones(4, bool))) and np.isnan(P.precision_at_r(scores, np.zeros(4, bool)))
    signed = P.sentence_plausibility(np.array([-0.9, 0.1, 0.5, 0.3]), pos, signed=True)  # by magnitude
    assert signed == {"auprc": pytest.approx(5 / 6), "precision_at_r": 0.5, "chance": 0.5}


def test_the_fixture_test_trees(tmp_path):
    lines = (fixture_data_dir() / "sst" / "trees" / "test.txt").read_text().splitlines()
    refs = [P.references(line) for line in lines if line.strip()]
    assert [r[0] for r in refs] == [["Rather", "dull"], ["Quite", "charming"], ["A", "film"]]
    assert [r[1]["word"].tolist() for r in refs] == [[False, True], [True, True], [False, False]]
    # a ranking that puts 'dull' first is perfect on the first tree; 'Quite charming' is all positive: undefined
    rows = [P.sentence_plausibility(np.array([0.2, 0.8]), refs[0][1]["word"], signed=False),
            P.sentence_plausibility(np.array([0.5, 0.5]), refs[1][1]["word"], signed=False),
            P.sentence_plausibility(np.array([0.5, 0.5]), refs[2][1]["word"], signed=False)]
    out = P.summarize(rows)
    assert out["auprc"]["value"] == 1.0 and out["auprc"]["n"] == 1 and out["chance"]["value"] == 0.5


def test_run_scores_every_token_series_and_skips_nothing_on_the_fixture_trees(tiny_glove):
    from conftest import make_tiny

    lines = P.tree_lines("test", fixture_data_dir())
    model = make_tiny("disan", tiny_glove)
    out = P.run(model, lines, steps=2)
    assert out["n"] == 3 and out["skipped"] == 0 and set(out["references"]) == {"word", "phrase"}
    word = out["references"]["word"]
    assert "lrp" in word and "leave_one_out" in word
    # only 'Rather dull' has both positive and negative tokens: one sentence per method, AUPRC 1 or 1/2
    assert all(v["auprc"]["n"] == 1 and v["auprc"]["value"] in (0.5, 1.0) for v in word.values())


def test_plausibility_command(capsys):
    from disan.__main__ import main

    assert main(["plausibility", "--model", "disan-sst5", "--data-dir", str(fixture_data_dir()), "--json",
                 "--no-progress"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "disan-sst5" and out["n"] == 3
    assert main(["plausibility", "--model", "dsa-nli", "--data-dir", str(fixture_data_dir())]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SST-5" in err[0]


def test_plausibility_write_stores_the_result_with_its_checkpoint_and_the_evidence_rows_read_it(tmp_path, capsys):
    """``--write`` stores pretrained/<name>.plausibility.json with the checkpoint's SHA-256; the Evidence view's
    rows are its AUPRCs per method plus chance; a changed checkpoint reads as stale."""
    import json
    import shutil

    from disan.__main__ import main
    from disan.api import PRETRAINED_DIR
    from viz_app.shell.views.evidence_plausibility import plausibility_rows, read_plausibility

    shutil.copy(PRETRAINED_DIR / "disan-sst5.safetensors", tmp_path)
    shutil.copy(PRETRAINED_DIR / "disan-sst5.json", tmp_path)
    assert main(["plausibility", "--model", "disan-sst5", "--data-dir", str(fixture_data_dir()), "--no-progress",
                 "--pretrained-dir", str(tmp_path), "--write"]) == 0
    stored = json.loads((tmp_path / "disan-sst5.plausibility.json").read_text())
    assert stored["n"] == 3 and len(stored["checkpoint_sha256"]) == 64 and "--write" in stored["command"]
    [(name, data, stale)] = read_plausibility(tmp_path)
    assert name == "disan-sst5" and stale is None
    rows = plausibility_rows([(name, data, stale)], "word")
    lrp = next(r for r in rows if r.series.startswith("LRP"))
    assert (lrp.value, lrp.n) == (data["references"]["word"]["lrp"]["auprc"]["value"], 1)
    assert rows[-1].series.startswith("chance") and len(rows) == len(data["references"]["word"]) + 1
    with open(tmp_path / "disan-sst5.safetensors", "ab") as f:
        f.write(b"\0")
    assert "changed" in read_plausibility(tmp_path)[0][2]
    capsys.readouterr()
    assert main(["plausibility", "--model", "no-such.safetensors", "--write"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
