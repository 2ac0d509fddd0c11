"""--data (issue 56, item 1): the named corpora through the project's loaders (on the fixture data), all and
comma lists, gold label names, and the refusals; a file read by its columns (CSV, TSV, JSON Lines, Parquet),
the model card's columns as defaults, strict UTF-8 for a text file."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from disan.__main__ import main
from disan.corpus.sources import open_corpus
from disan.data import NLI_LABELS, SST5_LABELS
from disan.errors import InputError
from tests.fixture_data import fixture_data_dir


def test_all_reads_every_corpus_the_model_can_read():
    data = str(fixture_data_dir())
    single = list(open_corpus("all", False, data).read())
    assert {it.corpus for it in single} == {"sst", "trec", "subj", "mpqa", "cr"}
    assert all(it.hypothesis is None and it.text for it in single)
    assert {it.gold for it in single if it.corpus == "sst"} <= set(SST5_LABELS)
    pairs = list(open_corpus("all", True, data).read())
    assert {it.corpus for it in pairs} == {"snli", "sick"}
    assert all(it.hypothesis and it.gold in NLI_LABELS for it in pairs)
    two = list(open_corpus("trec,cr", False, data).read())
    assert [it.corpus for it in two] == sorted((it.corpus for it in two), key=["trec", "cr"].index)


def test_chunks_cover_every_example_once_in_order():
    corpus = open_corpus("sst", False, str(fixture_data_dir()))
    items = list(corpus.read())
    chunks = list(corpus.chunks(3))
    assert [start for start, _ in chunks] == list(range(0, len(items), 3))
    assert [it for _, part in chunks for it in part] == items


@pytest.mark.parametrize("data, pair, needle", [
    ("snli", False, "holds pairs"), ("sst", True, "single sentences"), ("all,nope", False, "neither"),
    ("sst5:nosplit", False, "sst5:nosplit"), ("nosuchtask:test", False, "no task"),
])
def test_refusals_name_the_bad_value(data, pair, needle):
    with pytest.raises(InputError, match=needle):
        list(open_corpus(data, pair, str(fixture_data_dir())).read())


# --data FILE read by its columns (disan.data.table_file): the file a model was trained on, not its raw lines.

def _csv(tmp_path, name="reviews.csv"):
    path = tmp_path / name
    path.write_text('text,label\n"good, really good .",positive\nbad film .,negative\nfine .,\n', encoding="utf-8")
    return path


def test_a_csv_gives_its_rows_with_their_gold_labels_not_its_header(tmp_path):
    corpus = open_corpus(str(_csv(tmp_path)), False)
    items = list(corpus.read())
    assert [it.text for it in items] == ["good, really good .", "bad film .", "fine ."]  # no header, no ",label"
    assert [it.gold for it in items] == ["positive", "negative", None]
    assert [it.source for it in items] == ["reviews.csv:2", "reviews.csv:3", "reviews.csv:4"]  # header = line 1
    assert corpus.ident["columns"] == {"text": "text", "text_pair": None, "label": "label"}


def test_an_index_reads_a_missing_gold_label_as_none_not_as_a_class(tmp_path):
    """Unlabelled rows are a corpus's right (train refuses them): "nan" or "NA" was a gold class "nan" in the index,
    and a score model refused it as not a number."""
    path = tmp_path / "reviews.csv"
    path.write_text("text,label\na fine film .,pos\na dull film .,nan\nbad .,NA\nokay .,\n", encoding="utf-8")
    assert [it.gold for it in open_corpus(str(path), False).read()] == ["pos", None, None, None]
    path.write_text("text,label\na fine film .,4.5\na dull film .,NaN\n", encoding="utf-8")
    items = list(open_corpus(str(path), False, relatedness=True).read())
    assert [(it.gold, it.gold_score) for it in items] == [(None, 4.5), (None, None)]


def test_a_tables_sources_are_its_file_lines_past_blank_lines_and_quoted_line_breaks(tmp_path):
    """Before, a row's line was its row number + 2 (JSON Lines: + 1): a blank line, which the reader skips, or a
    quoted text over two lines put the source of every later row too low."""
    path = tmp_path / "reviews.csv"
    path.write_text('text,label\n\n"a film\nin two lines .",pos\nbad film .,neg\n\n   \nfine .,pos\n', encoding="utf-8")
    items = list(open_corpus(str(path), False).read())
    assert [(it.text, it.source) for it in items] == [("a film\nin two lines .", "reviews.csv:3"),
                                                      ("bad film .", "reviews.csv:5"), ("fine .", "reviews.csv:8")]
    tsv = tmp_path / "pairs.tsv"  # no quoting in TSV: a quote is text, and still one line
    tsv.write_text('text\thypothesis\n\n"A man\tsings .\n\nA dog runs .\tAn animal runs .\n', encoding="utf-8")
    assert [it.source for it in open_corpus(str(tsv), True).read()] == ["pairs.tsv:3", "pairs.tsv:5"]
    jsonl = tmp_path / "reviews.jsonl"
    jsonl.write_text('\n{"text": "a fine film ."}\n\n{"text": "dull ."}\n', encoding="utf-8")
    assert [it.source for it in open_corpus(str(jsonl), False).read()] == ["reviews.jsonl:2", "reviews.jsonl:4"]
    pair = tmp_path / "blank.csv"  # an error names the true line too
    pair.write_text('text,hypothesis\n"A man\nsings .",Someone sings .\n\nA dog runs .,\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"^blank\.csv:5: a blank 'hypothesis'"):
        list(open_corpus(str(pair), True).read())


def test_an_existing_file_whose_name_holds_a_comma_is_read_not_split_into_corpora(tmp_path):
    """Before, any --data with a comma was a list of corpora: "my,data.csv" became "…/my" and "data.csv"."""
    path = _csv(tmp_path, "my,data.csv")
    corpus = open_corpus(str(path), False)
    assert [it.source for it in corpus.read()] == ["my,data.csv:2", "my,data.csv:3", "my,data.csv:4"]
    assert corpus.ident["file"] == str(path.resolve())
    missing = tmp_path / "gone,data.csv"
    with pytest.raises(InputError, match=r"gone,data\.csv' is not an existing file, and as a list of corpora its "
                                         r"part '.*gone' is neither a corpus .* or an existing file's path"):
        open_corpus(str(missing), False)


def test_the_columns_default_to_those_the_models_card_trained_on(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text("id,review,sentiment\n1,a fine film .,pos\n2,a dull film .,neg\n", encoding="utf-8")
    (tmp_path / "mine.json").write_text(json.dumps({"name": "mine", "data_file": {"columns": {
        "text": "review", "text_pair": None, "label": "sentiment", "split": None}}}))
    items = list(open_corpus(str(path), False, model=str(tmp_path / "mine.safetensors")).read())
    assert [(it.text, it.gold) for it in items] == [("a fine film .", "pos"), ("a dull film .", "neg")]
    assert [it.text for it in open_corpus(str(path), False, text="id").read()] == ["1", "2"]  # an option wins


def test_tsv_pairs_are_read_by_their_columns_and_a_score_model_gets_gold_score(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("text\thypothesis\tlabel\nA man sings .\tSomeone sings .\tentailment\n"
                    "A dog runs .\tA cat sleeps .\tneutral\n", encoding="utf-8")
    expected = [("A man sings .", "Someone sings .", "entailment"), ("A dog runs .", "A cat sleeps .", "neutral")]
    assert [(it.text, it.hypothesis, it.gold) for it in open_corpus(str(path), True).read()] == expected
    named = tmp_path / "named.tsv"
    named.write_text("premise\tsecond\tjudgment\n" + path.read_text().split("\n", 1)[1], encoding="utf-8")
    items = open_corpus(str(named), True, text="premise", text_pair="second", label="judgment").read()
    assert [(it.text, it.hypothesis, it.gold) for it in items] == expected
    scored = tmp_path / "scored.tsv"
    scored.write_text("a\tb\tscore\nA man sings .\tSomeone sings .\t4.5\n", encoding="utf-8")
    [item] = open_corpus(str(scored), True, text="a", text_pair="b", label="score", relatedness=True).read()
    assert (item.hypothesis, item.gold, item.gold_score) == ("Someone sings .", None, 4.5)


def test_a_one_sentence_json_lines_table_is_read_not_taken_for_snli(tmp_path):
    path = tmp_path / "reviews.jsonl"
    path.write_text('{"text": "a fine film .", "label": "pos"}\n{"text": "dull .", "label": "neg"}\n',
                    encoding="utf-8")
    items = list(open_corpus(str(path), False).read())
    assert [(it.text, it.gold, it.source) for it in items] == [("a fine film .", "pos", "reviews.jsonl:1"),
                                                               ("dull .", "neg", "reviews.jsonl:2")]
    path.write_text('{"review": "a fine film .", "sentiment": "pos"}\n', encoding="utf-8")
    [item] = open_corpus(str(path), False, text="review", label="sentiment").read()
    assert (item.text, item.gold) == ("a fine film .", "pos")


def test_parquet_is_read_by_its_columns(tmp_path):
    path = tmp_path / "reviews.parquet"
    pd.DataFrame({"text": ["a fine film .", "dull ."], "label": ["pos", "neg"], "n": [1, 2]}).to_parquet(path)
    items = list(open_corpus(str(path), False).read())
    assert [(it.text, it.gold, it.source) for it in items] == [("a fine film .", "pos", "reviews.parquet:1"),
                                                               ("dull .", "neg", "reviews.parquet:2")]


def test_a_text_file_that_is_not_utf8_is_one_error_naming_its_line(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("a fine film .\nun café .\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.txt, line 2: not UTF-8.*save the file as UTF-8"):
        list(open_corpus(str(latin), False).read())
    binary = tmp_path / "table.txt"  # Parquet renamed .txt: refused, not indexed as junk
    pd.DataFrame({"text": ["a fine film ."]}).to_parquet(binary)
    with pytest.raises(InputError, match="not UTF-8"):
        list(open_corpus(str(binary), False).read())


def test_a_missing_column_lists_the_files_columns(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_text("review,sentiment\na fine film .,pos\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"no column 'text'; its columns are: 'review', 'sentiment'.*--text"):
        open_corpus(str(path), False)
    with pytest.raises(InputError, match=r"no column 'hypothesis'.*--text-pair"):
        open_corpus(str(path), True, text="review")
    with pytest.raises(InputError, match="single sentences; drop --text-pair"):
        open_corpus(str(path), False, text="review", text_pair="sentiment")


def test_a_bad_column_through_the_cli_is_one_line_and_a_good_one_indexes(tmp_path, capsys):
    path = _csv(tmp_path)
    assert main(["index", "--model", "disan-sst5", "--data", str(path), "--out", str(tmp_path / "bad"),
                 "--text", "review", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "no column 'review'" in err and "'text', 'label'" in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()
    out = tmp_path / "good"
    assert main(["index", "--model", "disan-sst5", "--data", str(path), "--out", str(out), "--text", "text",
                 "--label", "label", "--no-progress", "--threads", "1"]) == 0
    table = pq.read_table(out / "sentences").to_pandas().sort_values("sentence_id")
    assert table["text"].tolist() == ["good, really good .", "bad film .", "fine ."]
    assert table["gold"].tolist()[:2] == ["positive", "negative"] and table["gold"].isna().tolist()[2]
