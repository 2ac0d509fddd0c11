"""``disan train --data FILE`` and ``disan evaluate --data FILE`` (issue 55, items 1, 2, 4 and 6) on tiny fixtures.

tests/fixtures/user_data/ holds invented files (each class has words of its own, so a tiny model learns them)
and the bad files of item 6; a Parquet copy is written by the test. Every run goes through the public command
(``disan.__main__.main``), with an 8-d GloVe file of the fixtures' words.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from disan.__main__ import main
from disan.api import describe, load
from disan.evaluate import unpack_correct
from tests import user_vectors

DATA = Path(__file__).parent / "fixtures" / "user_data"
GLOVE = str(user_vectors.GLOVE)
TINY = ["--glove", GLOVE, "--d-h", "10", "--batch-size", "8", "--threads", "1", "--epochs", "4"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def train(capsys, out: Path, data: Path | str, *extra: str, model: str = "dsa") -> tuple[int, str, str]:
    return run(capsys, "train", "--model", model, "--data", str(data), "--out", str(out), *TINY, *extra)


def card(out: Path) -> dict:
    return json.loads(out.with_suffix(".json").read_text())


def test_csv_to_checkpoint_and_card_with_the_files_labels(capsys, tmp_path):
    out = tmp_path / "runs" / "reviews"
    code, stdout, err = train(capsys, out, DATA / "reviews.csv", "--text", "review", "--label", "sentiment")
    assert code == 0, err
    assert describe(str(out.with_suffix(".safetensors"))).labels == ("neg", "plot", "pos")  # from the file, sorted
    c = card(out)
    splits = c["data_file"]["splits"]
    assert {k: v["n"] for k, v in splits.items()} == {"train": 72, "dev": 9, "test": 9}
    assert splits["test"]["seed"] == 13 and len(splits["test"]["indices_sha256"]) == 64
    assert c["data_file"]["class_counts"]["test"] == {"neg": 3, "plot": 3, "pos": 3}  # stratified
    test = c["evaluation"]["test"]
    lo, hi = test["accuracy_ci95"]
    assert lo <= test["accuracy"] <= hi and 0 <= test["macro_f1"] <= 1
    assert sum(map(sum, test["confusion_matrix"]["rows_gold_cols_pred"])) == 9
    md = out.with_suffix(".card.md").read_text()
    assert c["data_file"]["files"]["data"]["sha256"] in md and "95% interval" in md and "Learning curve" in md
    assert "disan evaluate --model" in md and "test accuracy" in stdout
    assert "ex/s=" in err and (stdout + err).count(": dev acc ") == 4  # the bar's examples/s; the dev score of every epoch
    assert sorted(p.name for p in out.parent.iterdir()) == sorted(
        f"reviews{s}" for s in (".safetensors", ".json", ".card.md", ".train.json", ".log.jsonl"))  # no staging left
    model = load(str(out.with_suffix(".safetensors")), "cpu")  # disan.load(PATH)
    assert set(model.predict(["a great film"])[0]) == {"neg", "plot", "pos"}


def test_the_cards_commands_run_from_any_folder_and_evaluate_a_new_file(capsys, tmp_path, monkeypatch):
    """Before, a run given relative paths recorded them as given (its Reproduce block ran only from that folder),
    and the evaluate example scored the training file, rows the model trained on."""
    import shlex
    import shutil

    shutil.copy(DATA / "reviews.csv", tmp_path / "reviews.csv")
    monkeypatch.chdir(tmp_path)
    code, _, err = train(capsys, Path("runs") / "rel", "reviews.csv", "--text", "review", "--label", "sentiment",
                         "--epochs", "1")
    assert code == 0, err
    c = card(tmp_path / "runs" / "rel")
    assert c["train_command"].startswith(f"cd {shlex.quote(str(tmp_path))} && python -m disan ")
    md = (tmp_path / "runs" / "rel.card.md").read_text()
    assert shlex.join(["disan", "evaluate", "--model", str(tmp_path / "runs" / "rel.safetensors"), "--data",
                       "NEW_FILE.csv", "--text", "review", "--label", "sentiment"]) in md


def test_recipe_flags_reach_the_model(capsys, tmp_path):
    out = tmp_path / "sized"
    code, _, err = train(capsys, out, DATA / "reviews.csv", "--text", "review", "--label", "sentiment", "--epochs", "1",
                         "--heads", "2", "--alpha", "0.5", "--dropout", "0.3", "--lr", "0.002")
    assert code == 0, err
    cfg = describe(str(out.with_suffix(".safetensors")))
    assert (cfg.heads, cfg.alpha, cfg.dropout, cfg.d_h) == (2, 0.5, 0.3, 10)
    tcfg = card(out)["train"]["train_config"]
    assert (tcfg["lr"], tcfg["optimizer"], tcfg["patience"]) == (0.002, "adam", 3)  # the DSA recipe, early stopping
    assert "device cpu" in out.with_suffix(".card.md").read_text()


def test_a_gzipped_glove_file_of_another_dimension(capsys, tmp_path):
    import gzip

    rows = [line.split() for line in user_vectors.GLOVE.read_text().splitlines()]
    glove = tmp_path / "glove.12d.txt.gz"
    with gzip.open(glove, "wt", encoding="utf-8") as f:  # 12-d: the 8 values and 4 more
        f.writelines(" ".join(r + r[1:5]) + "\n" for r in rows)
    out = tmp_path / "gz"
    code = main(["train", "--model", "disan", "--data", str(DATA / "reviews.csv"), "--text", "review", "--label",
                 "sentiment", "--glove", str(glove), "--d-h", "8", "--epochs", "1", "--threads", "1", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    cfg = describe(str(out.with_suffix(".safetensors")))
    assert cfg.d_in == 12 and cfg.glove == str(glove)
    assert load(str(out.with_suffix(".safetensors")), "cpu").predict(["good film"])


def test_the_seeded_split_is_the_same_on_a_rerun(capsys, tmp_path):
    for name in ("a", "b"):
        assert train(capsys, tmp_path / name, DATA / "reviews.csv", "--text", "review", "--label", "sentiment",
                     "--epochs", "1")[0] == 0
    assert card(tmp_path / "a")["data_file"]["splits"] == card(tmp_path / "b")["data_file"]["splits"]


def test_tsv_pairs_with_a_split_column(capsys, tmp_path):
    out = tmp_path / "pairs"
    code, _, err = train(capsys, out, DATA / "pairs.tsv", "--text", "premise", "--text-pair", "hypothesis",
                         "--label", "judgment", "--split", "part", model="disan")
    assert code == 0, err
    cfg = describe(str(out.with_suffix(".safetensors")))
    assert cfg.pair and cfg.labels == ("different", "same") and cfg.arch == "disan"
    assert {k: v["n"] for k, v in card(out)["data_file"]["splits"].items()} == {"train": 72, "dev": 9, "test": 9}


def test_jsonl_regression_trains_the_relatedness_module(capsys, tmp_path):
    out = tmp_path / "scores"
    code, stdout, err = train(capsys, out, DATA / "scores.jsonl", "--text", "a", "--text-pair", "b", "--label", "score",
                              "--regression")
    assert code == 0, err
    cfg = describe(str(out.with_suffix(".safetensors")))
    assert cfg.relatedness and cfg.labels == ("1", "2", "3", "4", "5")  # grades 1..ceil(max score)
    test = card(out)["evaluation"]["test"]
    assert {"pearson_r", "spearman_rho", "mse", "pearson_r_ci95"} <= set(test)
    assert "Pearson's r" in stdout


def test_parquet_and_evaluate_on_a_test_file_give_the_cards_numbers(capsys, tmp_path):
    frame = pd.read_csv(DATA / "reviews.csv")
    frame.iloc[:75].to_parquet(tmp_path / "train.parquet")
    frame.iloc[75:].to_csv(tmp_path / "held.csv", index=False)
    out = tmp_path / "pq"
    code, _, err = train(capsys, out, tmp_path / "train.parquet", "--text", "review", "--label", "sentiment",
                         "--test", str(tmp_path / "held.csv"))
    assert code == 0, err
    assert card(out)["data_file"]["splits"]["test"] == {"n": 15, "from": "file held.csv"}
    code, stdout, err = run(capsys, "evaluate", "--model", str(out.with_suffix(".safetensors")),
                            "--data", str(tmp_path / "held.csv"))
    assert code == 0, err
    report = json.loads(stdout)
    assert report["n"] == 15 and report["accuracy"] == card(out)["evaluation"]["test"]["accuracy"]
    assert report["overlap"]["duplicates"] == card(out)["evaluation"]["test"]["overlap"]["duplicates"]


def test_duplicates_after_tokenisation_are_counted_and_left_out(capsys, tmp_path):
    rows = list(csv.reader((DATA / "reviews.csv").open()))[1:]
    test = tmp_path / "test.csv"
    with test.open("w", newline="") as f:  # two train sentences with other spacing, four new ones
        w = csv.writer(f)
        w.writerow(["review", "sentiment"])
        w.writerow(["  " + rows[0][1].replace(" ", "   ") + " ", rows[0][2]])
        w.writerow([rows[1][1], rows[1][2]])
        for text, label in (("good fine", "pos"), ("awful poor", "neg"), ("film plot", "plot"), ("great good", "pos")):
            w.writerow([text, label])
    out = tmp_path / "dups"
    code, _, err = train(capsys, out, DATA / "reviews.csv", "--text", "review", "--label", "sentiment",
                         "--test", str(test))
    assert code == 0, err
    block = card(out)["evaluation"]["test"]["overlap"]
    assert (block["n_test"], block["duplicates"], block["n_duplicate_free"]) == (6, 2, 4)
    assert block["in_train"] + block["in_dev"] == 2
    correct = unpack_correct(card(out)["evaluation"]["test"]["correct_bits"], 6)
    assert block["accuracy_duplicate_free"] == pytest.approx(correct[2:].mean())
    assert block["accuracy_duplicates"] == pytest.approx(correct[:2].mean())
    assert "appear verbatim after tokenisation" in err
    assert "Duplicates (test)" in out.with_suffix(".card.md").read_text()


def test_long_rows_are_counted_and_reported(capsys, tmp_path):
    out = tmp_path / "long"
    code, _, err = train(capsys, out, DATA / "long_rows.csv", "--text", "review", "--label", "sentiment",
                         "--max-len", "64", "--epochs", "1")
    assert code == 0, err
    lengths = card(out)["lengths"]
    assert sum(r["over_max_len"] for r in lengths.values()) == 6  # every 15th of 90 rows has 200 extra tokens
    assert lengths["train"]["longest"] > 200
    assert "longer than --max-len 64 tokens" in err


# ------------------------------------------------------------------ item 6: bad files, one line, nothing written
BAD = [
    (["--data", str(DATA / "reviews.csv"), "--text", "review", "--label", "lable"],
     ["no column 'lable'", "'id', 'review', 'sentiment'"]),
    (["--data", str(DATA / "empty.csv"), "--text", "review", "--label", "sentiment"], ["is empty"]),
    (["--data", str(DATA / "header_only.csv"), "--text", "review", "--label", "sentiment"], ["no rows"]),
    (["--data", str(DATA / "one_class.csv"), "--text", "review", "--label", "sentiment"], ["one class only", "'pos'"]),
    (["--data", str(DATA / "reviews.csv"), "--text", "review", "--label", "sentiment", "--test",
      str(DATA / "unseen_label.test.csv")], ["never seen in train", "'surprise' (1 rows)"]),
    (["--data", str(DATA / "latin1.csv"), "--text", "review", "--label", "sentiment"], ["line 4", "not UTF-8"]),
    (["--data", str(DATA / "numeric_text.csv"), "--text", "review", "--label", "sentiment"],
     ["holds numbers only", "'review'"]),
    (["--data", str(DATA / "blank_text.csv"), "--text", "review", "--label", "sentiment"],
     ["2 row(s) have a blank 'review'", "line 3"]),
    (["--data", str(DATA / "score_as_class.csv"), "--text", "review", "--label", "sentiment"], ["--regression"]),
    (["--data", str(DATA / "reviews.csv"), "--text", "review", "--label", "sentiment", "--regression"],
     ["is not a number", "--regression needs a numeric label column"]),
    (["--data", str(DATA / "reviews.csv"), "--text", "review", "--label", "sentiment", "--glove",
      str(user_vectors.MIXED)], ["mixes vector sizes", "line 8 has 5 numbers"]),
    (["--data", str(DATA / "missing.csv")], ["does not exist"]),
    (["--data", str(DATA / "comma_in_text.csv"), "--text", "review", "--label", "sentiment"],
     ["line 4: 3 fields where the header has 2", "quote that text"]),
    (["--data", str(DATA / "array.json"), "--text", "review", "--label", "sentiment"],
     ["holds one JSON array", "orient='records', lines=True"]),
    (["--data", str(DATA / "broken_line.jsonl"), "--text", "review", "--label", "sentiment"],
     ["broken_line.jsonl, line 3: not one JSON object"]),
    (["--data", str(DATA / "pairs.tsv"), "--text", "premise", "--label", "judgment", "--split", "judgment"],
     ["'same'", "use train, dev"]),
    (["--data", str(DATA / "pairs.tsv"), "--text", "premise", "--label", "judgment", "--split", "part", "--test",
      str(DATA / "pairs.tsv")], ["marks 9 rows test", "use one of them"]),
]


@pytest.mark.parametrize("argv, needles", BAD, ids=[b[1][0][:30] for b in BAD])
def test_bad_file_is_one_line_and_writes_nothing(capsys, tmp_path, argv, needles):
    out = tmp_path / "out" / "model"
    glove = [] if "--glove" in argv else ["--glove", GLOVE]
    code = main(["train", "--model", "dsa", "--out", str(out), "--d-h", "10", "--epochs", "1", *glove, *argv])
    _, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for needle in needles:
        assert needle in lines[0]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_tsv_text_that_starts_with_a_quote_is_text_not_a_field_running_over_the_next_rows():
    """TSV has no quoting: read as CSV is, the quote would swallow the tab, the label and the next line."""
    from disan.data.table_file import read_chunks

    [frame] = list(read_chunks(DATA / "quote_in_text.tsv", ["review", "sentiment"]))
    assert frame["review"].tolist()[1] == '"and awful a awful'
    assert frame["sentiment"].tolist() == ["pos", "neg", "pos", "neg"]


def test_a_rows_line_is_its_file_line_past_blank_lines_and_quoted_line_breaks(tmp_path):
    """Before, a row's line was its row number + 2: a blank line (skipped by the reader) or a quoted text over two
    lines made every later row's line, in messages and in each example's source, too low."""
    from disan.data.file_task import FileSpec, read_rows
    from disan.data.table_file import TableFileError, read_chunks

    path = tmp_path / "reviews.csv"
    spec = FileSpec(str(path), text="review", label="sentiment")
    path.write_text('review,sentiment\n"a film\nin two lines .",pos\n\nbad film .,neg\n', encoding="utf-8")
    assert read_rows(str(path), spec, with_split=False).lines == ["reviews.csv:line 2", "reviews.csv:line 5"]
    path.write_text('review,sentiment\n"a film\nin two lines .",pos\n\nbad film .,\n', encoding="utf-8")
    with pytest.raises(TableFileError, match=r"no label in 'sentiment' \(empty, null, NaN or NA\) at line 5;"):
        read_rows(str(path), spec, with_split=False)
    path.write_text('review,sentiment\n"a film\nin two lines .",pos\n\nbad, film .,neg\n', encoding="utf-8")
    with pytest.raises(TableFileError, match=r"reviews\.csv, line 5: 3 fields where the header has 2"):
        list(read_chunks(path, ["review"]))  # pandas' own count (line 4) skips the quoted line break
    jsonl = tmp_path / "reviews.jsonl"
    jsonl.write_text('{"review": "a fine film .", "sentiment": "pos"}\n\n{"review": "dull .", "sentiment": ""}\n',
                     encoding="utf-8")
    with pytest.raises(TableFileError, match=r"no label in 'sentiment' \(empty, null, NaN or NA\) at line 3;"):
        read_rows(str(jsonl), FileSpec(str(jsonl), text="review", label="sentiment"), with_split=False)


def test_a_missing_label_is_refused_naming_its_lines_not_trained_as_a_class(capsys, tmp_path):
    """A label written as "nan" (pandas' astype(str)) or "NA" (R) was read as text and trained as a class of its
    own; such rows are refused with each one's file line, as empty, null and NaN labels are."""
    from disan.data.file_task import FileSpec, read_rows
    from disan.data.table_file import TableFileError

    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment\na fine film .,pos\na dull film .,nan\n\na good film .,pos\nbad .,NA\n"
                    "awful .,neg\n", encoding="utf-8")
    out = tmp_path / "out" / "model"
    assert main(["train", "--model", "dsa", "--data", str(path), "--text", "review", "--label", "sentiment", "--out",
                 str(out), "--d-h", "10", "--epochs", "1", "--glove", GLOVE]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {path}: 2 row(s) have no label in 'sentiment' (empty, null, NaN or NA) at lines 3 and 6; "
                   "fill them in or remove those rows (a class really named 'NA' needs another name).")
    assert not (tmp_path / "out").exists()
    spec = FileSpec(str(path), text="review", label="sentiment")
    path.write_text("review,sentiment\n" + "".join(f"film {i} .,{'' if i % 2 else 'pos'}\n" for i in range(16)))
    with pytest.raises(TableFileError, match=r"8 row\(s\) have no label in 'sentiment' \(empty, null, NaN or NA\) at "
                                             r"lines 3, 5, 7, 9, 11 and 3 more; fill them in or remove those rows\.$"):
        read_rows(str(path), spec, with_split=False)
    parquet = tmp_path / "reviews.parquet"
    pd.DataFrame({"review": ["a fine film .", "a dull film .", "bad ."], "sentiment": [1.0, float("nan"), 0.0]}
                 ).to_parquet(parquet)
    with pytest.raises(TableFileError, match=r"1 row\(s\) have no label in 'sentiment' \(empty, null, NaN or NA\) at "
                                             r"row 2; fill them in or remove those rows\.$"):
        read_rows(str(parquet), FileSpec(str(parquet), text="review", label="sentiment"), with_split=False)
    jsonl = tmp_path / "reviews.jsonl"
    jsonl.write_text('{"review": "a fine film .", "sentiment": "pos"}\n{"review": "dull .", "sentiment": null}\n'
                     '{"review": "bad .", "sentiment": "neg"}\n{"review": "awful ."}\n', encoding="utf-8")
    with pytest.raises(TableFileError, match=r"2 row\(s\) have no label .* at lines 2 and 4; fill them in"):
        read_rows(str(jsonl), FileSpec(str(jsonl), text="review", label="sentiment"), with_split=False)


def test_a_first_row_with_a_field_more_than_the_header_is_refused_not_shifted(tmp_path):
    """Before, pandas took the first row's extra field for an index column: "good, really good .,pos" trained the
    text ' really good .' as 'pos' and the next row's label 'neg' as its text, without a word."""
    from disan.data.table_file import TableFileError, read_chunks

    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment\ngood, really good .,pos\nbad .,neg\n", encoding="utf-8")
    with pytest.raises(TableFileError, match=r"reviews\.csv, line 2: 3 fields where the header has 2; check for a "
                                             r"comma inside a text"):
        list(read_chunks(path, ["review", "sentiment"]))
    tsv = tmp_path / "reviews.tsv"
    tsv.write_text("review\tsentiment\n\ngood\tfilm\tpos\nbad .\tneg\n", encoding="utf-8")
    with pytest.raises(TableFileError, match=r"reviews\.tsv, line 3: 3 fields where the header has 2; check for a tab"):
        list(read_chunks(tsv, ["review"]))


def test_a_glove_file_of_another_format_is_one_line_naming_its_line_and_the_fix(tmp_path):
    """Before, the vector size of a file that is not GloVe came from its words ("not 'word' followed by 3
    numbers" for a CSV), and a word2vec/fastText header was "line 1 has 1 numbers ... mixes vector sizes"."""
    from disan.errors import InputError
    from disan.train_file import check_glove

    vec = tmp_path / "vectors.vec"
    vec.write_text("2 3\nthe 0.1 0.2 0.3\nfilm 0.4 0.5 0.6\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"vectors\.vec, line 1 has 1 number where the file's vectors have 3: a "
                                         r"word2vec header .* remove it \(tail -n \+2\)"):
        check_glove(str(vec))
    table = tmp_path / "reviews.csv"
    table.write_text("review,sentiment\na good film .,pos\nbad .,neg\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"reviews\.csv, line 1: 'review,sentiment' is not 'word' followed by "
                                         r"numbers \(its fields are separated by commas; GloVe's by spaces\); pass a "
                                         r"GloVe \.txt file .*\(--glove\)$"):
        check_glove(str(table))


SETTINGS = [(["--batch-size", "0"], "--batch-size 0: give a whole number of at least 1"),
            (["--d-h", "0"], "--d-h 0: give a whole number"),
            (["--epochs", "0"], "--epochs 0: give a whole number"),
            (["--d-h", "10", "--heads", "3"], "--d-h 10 is not divisible by 3 heads"),
            (["--max-len", "0"], "--max-len 0: give a token count from 1 to 1024"),
            (["--max-len", "-3"], "--max-len -3: give a token count"),
            (["--max-len", "5000"], "--max-len 5000: give a token count"),
            (["--dropout", "1"], "--dropout 1"),
            (["--out", "{file}/sub/m"], "reviews.csv is a file, not a folder")]


@pytest.mark.parametrize("extra, needle", SETTINGS, ids=[s[1][:24] for s in SETTINGS])
def test_a_setting_no_run_can_train_with_is_one_line_and_writes_nothing(capsys, tmp_path, extra, needle):
    """Before: --batch-size 0 and --d-h 0 divided by zero, --heads 3 raised a ValueError, --max-len 0 trained on
    nothing and −3 cut the sentences' ends, an --out under a file raised NotADirectoryError: each a traceback."""
    extra = [x.replace("{file}", str(DATA / "reviews.csv")) for x in extra]
    code, _, err = train(capsys, tmp_path / "out" / "m", DATA / "reviews.csv", "--text", "review", "--label",
                         "sentiment", *extra)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], err
    assert not (tmp_path / "out").exists()


def test_an_out_that_is_a_folder_gets_the_model_inside_under_its_default_name(capsys, tmp_path):
    """Before, --out runs/ wrote runs.safetensors beside the folder."""
    folder = tmp_path / "runs"
    folder.mkdir()
    code, out, err = train(capsys, folder, DATA / "reviews.csv", "--text", "review", "--label", "sentiment",
                           "--epochs", "1")
    assert code == 0, err
    assert (folder / "dsa-reviews.safetensors").exists() and not (tmp_path / "runs.safetensors").exists()
    assert str(folder / "dsa-reviews.safetensors") in out


def test_resume_with_no_saved_state_says_to_start_over(capsys, tmp_path):
    (tmp_path / ".m.unfinished").mkdir()  # a run stopped before its first save
    code, _, err = train(capsys, tmp_path / "m", DATA / "reviews.csv", "--text", "review", "--label", "sentiment",
                         "--resume")
    assert code == 2 and "pass --overwrite instead of --resume" in err


def test_an_existing_model_is_refused_unless_overwrite(capsys, tmp_path):
    out = tmp_path / "m"
    args = ("--text", "review", "--label", "sentiment", "--epochs", "1")
    assert train(capsys, out, DATA / "reviews.csv", *args)[0] == 0
    before = out.with_suffix(".safetensors").read_bytes()
    code, _, err = train(capsys, out, DATA / "reviews.csv", *args)
    assert code == 2 and "already exists; pass --overwrite" in err and len(err.strip().splitlines()) == 1
    assert out.with_suffix(".safetensors").read_bytes() == before
    code, _, err = train(capsys, out, DATA / "reviews.csv", *args, "--overwrite", "--seed", "1")
    assert code == 0, err
    assert card(out)["train"]["train_config"]["seed"] == 1


def test_a_failed_run_leaves_no_finished_checkpoint_and_resumes(capsys, tmp_path, monkeypatch):
    import disan.evaluate

    out = tmp_path / "f"
    args = ("--text", "review", "--label", "sentiment", "--epochs", "2")

    def broken(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(disan.evaluate, "evaluate", broken)  # training finishes, scoring the test part fails
    with pytest.raises(RuntimeError):
        train(capsys, out, DATA / "reviews.csv", *args)
    capsys.readouterr()
    assert not out.with_suffix(".safetensors").exists() and not out.with_suffix(".json").exists()
    assert (tmp_path / ".f.unfinished" / "f.state.pt").exists()
    monkeypatch.undo()
    code, _, err = train(capsys, out, DATA / "reviews.csv", *args)
    assert code == 2 and "--resume" in err
    code, _, err = train(capsys, out, DATA / "reviews.csv", *args, "--resume")
    assert code == 0, err
    assert out.with_suffix(".safetensors").exists() and not (tmp_path / ".f.unfinished").exists()
    assert card(out)["train"]["epochs_run"] == 2  # nothing trained twice: the state held both epochs


def test_train_on_a_built_in_task_counts_its_test_duplicates(capsys, tmp_path):
    from tests.task_files import write_task_data

    root = write_task_data(tmp_path / "data")
    train_line = (root / "senteval" / "TREC.train.all").read_text().splitlines()[0]
    with (root / "senteval" / "TREC.test.all").open("a") as f:
        f.write(train_line.replace(" ", "  ") + "\n")  # the same question, spaced otherwise
    code, _, err = run(capsys, "train", "--model", "dsa", "--task", "trec", "--data-dir", str(root), "--out",
                       str(tmp_path / "trec"), *TINY[:-1], "1")
    assert code == 0, err
    assert "1 of 13 test examples appear verbatim after tokenisation in train/dev" in err


def test_a_glove_file_moved_after_training_is_one_line_and_disan_glove_finds_it(capsys, tmp_path, monkeypatch):
    """Before, every consumer of the model (trace, evaluate, report, site, disan.load) raised FileNotFoundError."""
    import shutil

    from disan.errors import InputError

    glove = tmp_path / "vectors.txt"
    shutil.copy(GLOVE, glove)
    out = tmp_path / "m"
    assert run(capsys, "train", "--model", "dsa", "--data", str(DATA / "reviews.csv"), "--text", "review",
               "--label", "sentiment", "--out", str(out), "--glove", str(glove), "--d-h", "10", "--epochs", "1",
               "--threads", "1")[0] == 0
    moved = glove.rename(tmp_path / "elsewhere.txt")
    monkeypatch.delenv("DISAN_GLOVE", raising=False)
    code, _, err = run(capsys, "trace", "--model", str(out.with_suffix(".safetensors")), "the plot is great")
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"trained with the GloVe file {glove}, which is gone" in err and "set DISAN_GLOVE" in err
    with pytest.raises(InputError):
        load(str(out.with_suffix(".safetensors")), "cpu")
    monkeypatch.setenv("DISAN_GLOVE", str(moved))
    code, stdout, _ = run(capsys, "trace", "--model", str(out.with_suffix(".safetensors")), "the plot is great")
    assert code == 0 and "tokens: the plot is great" in stdout


def test_a_header_that_is_not_utf8_is_one_line_for_train_and_index_alike(capsys, tmp_path):
    """The header is read first (the file's columns): a latin-1 byte there was a UnicodeDecodeError traceback."""
    bad = tmp_path / "latin1_header.csv"
    bad.write_bytes("r\xe9view,sentiment\ngreat the great is,pos\nand awful a awful,neg\n".encode("latin-1"))
    code, _, err = train(capsys, tmp_path / "m", bad, "--text", "review", "--label", "sentiment")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "line 1: not UTF-8 text" in err
