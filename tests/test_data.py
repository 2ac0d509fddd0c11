"""Tests for disan.data: loaders against hand-written fixtures, plus opt-in real-data counts."""

from __future__ import annotations

import dataclasses
import gzip
import shutil
from collections import Counter
from pathlib import Path

import pytest

from disan import data as d
from disan.data import CorruptLineError, CorruptLineWarning, DataFileError, Example
from disan.errors import DisanError
from tests.fixture_data import fixture_data_dir

FIXTURES = fixture_data_dir()
CORRUPT = FIXTURES / "corrupt"


# --------------------------------------------------------------------------- basics


def test_example_is_frozen_with_defaults():
    ex = Example("a b", 1)
    assert (ex.hypothesis, ex.source) == (None, "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.label = 2  # type: ignore[misc]


def test_label_tuples_and_task_tables():
    assert d.SST5_LABELS[0] == "very negative" and d.SST5_LABELS[4] == "very positive"
    assert d.NLI_LABELS == ("entailment", "neutral", "contradiction")
    assert d.TREC_LABELS == ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
    assert set(d.TASK_LABELS) == {"sst5", "sst2", "nli", "snli", "trec", "subj", "mpqa", "cr", "sick"}
    assert d.TASK_LABELS["sst2"] == ("negative", "positive")
    assert d.TASK_LABELS["sick"] == ("1", "2", "3", "4", "5")
    assert d.PAIR_TASKS == {"nli", "snli", "sick"}


def test_package_reexports_its_public_names_and_each_module_stays_short():
    # disan/data/ is one small module per dataset family; the package keeps the old flat API.
    missing = [name for name in d.__all__ if not hasattr(d, name)]
    assert missing == []
    assert {"load_task", "load_snli", "load_sick", "load_sst_trees", "load_trec", "load_senteval",
            "kfold", "train_dev_split", "data_dir", "require_file", "Example"} <= set(d.__all__)
    assert d.load_task.__module__ == "disan.data.tasks"
    assert d.parse_ptb_tree.__module__ == "disan.data.sst"
    for module in Path(d.__file__).parent.glob("*.py"):
        assert len(module.read_text().splitlines()) < 300, module


def test_data_dir_prefers_argument_then_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DISAN_DATA_DIR", str(tmp_path / "env"))
    assert d.data_dir(tmp_path / "arg") == tmp_path / "arg"
    assert d.data_dir() == tmp_path / "env"


def test_data_dir_default_is_beside_repo_or_cwd(monkeypatch):
    monkeypatch.delenv("DISAN_DATA_DIR", raising=False)
    beside_repo = Path(d.__file__).resolve().parents[3] / "shared" / "data"
    from_cwd = (Path.cwd() / ".." / "shared" / "data").resolve()
    assert d.data_dir() == (beside_repo if beside_repo.is_dir() else from_cwd)


# --------------------------------------------------------------------------- missing files


@pytest.mark.parametrize(
    ("what", "url"),
    [
        ("snli", "https://nlp.stanford.edu/projects/snli/"),
        ("multinli", "https://cims.nyu.edu/~sbowman/multinli/"),
        ("sst", "https://nlp.stanford.edu/sentiment/"),
        ("sick", "https://marcobaroni.org/composes/sick.html"),
        ("trec", "https://cogcomp.seas.upenn.edu/Data/QA/QC/"),
        ("subj", "facebookresearch/SentEval"),
        ("cr", "facebookresearch/SentEval"),
    ],
)
def test_require_file_names_file_url_and_fix(tmp_path, what, url):
    missing = tmp_path / "nowhere.txt"
    with pytest.raises(DataFileError) as info:
        d.require_file(missing, what)
    message = str(info.value)
    assert str(missing) in message and url in message
    assert "--data-dir" in message and "DISAN_DATA_DIR" in message
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, DisanError)
    assert info.value.path == missing


def test_require_file_returns_existing_path_and_rejects_unknown_dataset(tmp_path):
    existing = FIXTURES / "sick" / "SICK.txt"
    assert d.require_file(str(existing), "sick") == existing
    with pytest.raises(ValueError, match="unknown dataset 'imdb'"):
        d.require_file(existing, "imdb")


def test_snli_train_absent_names_both_extensions_and_urls():
    with pytest.raises(DataFileError) as info:
        d.load_task("snli", "train", data_dir=FIXTURES)
    message = str(info.value)
    assert "snli_1.0_train.jsonl" in message and "snli_1.0_train.jsonl.gz" in message
    assert "https://nlp.stanford.edu/projects/snli/" in message
    assert "https://cims.nyu.edu/~sbowman/multinli/" in message


@pytest.mark.parametrize(
    ("load", "name"),
    [
        (lambda root: d.load_sst_trees("dev", root), "dev.txt"),
        (lambda root: d.load_sst_sentences("test", False, root), "stsa.binary.test"),
        (lambda root: d.load_sick(root), "SICK.txt"),
        (lambda root: d.load_trec("train", root), "TREC.train.all"),
        (lambda root: d.load_senteval("mpqa", root), "mpqa.all"),
    ],
)
def test_loaders_raise_data_file_error_in_empty_dir(tmp_path, load, name):
    with pytest.raises(DataFileError, match=name):
        load(tmp_path)


# --------------------------------------------------------------------------- NLI


def test_snli_gz_dev_drops_no_consensus_and_keeps_raw_text():
    dev = d.load_snli("dev", FIXTURES)
    assert [ex.label for ex in dev] == [0, 2, 1, 0, 1]
    assert [ex.source for ex in dev] == [f"snli_1.0_dev.jsonl.gz:{n}" for n in (1, 2, 4, 5, 6)]
    assert dev[0] == Example("A red kite flies over the quiet harbour.", 0,
                             "A kite is in the air.", "snli_1.0_dev.jsonl.gz:1")
    assert dev[3].text == "A cyclist  carries a loaf of bread."
    assert all("tram" not in ex.text for ex in dev)


def test_snli_plain_test_file():
    test = d.load_snli("test", FIXTURES)
    assert [(ex.label, ex.source) for ex in test] == [
        (2, "snli_1.0_test.jsonl:1"), (0, "snli_1.0_test.jsonl:3"), (1, "snli_1.0_test.jsonl:4")]
    assert test[1].hypothesis == "A boy is outside."


def test_load_nli_jsonl_reads_gz_and_plain_copies_alike(tmp_path):
    plain = tmp_path / "pairs.jsonl"
    with gzip.open(FIXTURES / "snli" / "snli_1.0_dev.jsonl.gz", "rb") as handle:
        plain.write_bytes(handle.read())
    from_gz = d.load_nli_jsonl(FIXTURES / "snli" / "snli_1.0_dev.jsonl.gz")
    from_plain = d.load_nli_jsonl(plain)
    assert [(e.text, e.hypothesis, e.label) for e in from_gz] == \
        [(e.text, e.hypothesis, e.label) for e in from_plain]


def test_sick_labels_and_pairs():
    sick = d.load_sick(FIXTURES)
    assert [ex.label for ex in sick] == [0, 2, 1, 0, 0, 2]
    assert sick[1] == Example("A man is playing a flute", 2, "Nobody is playing a flute", "SICK.txt:3")


def test_sick_bad_header_raises_at_line_one(tmp_path):
    (tmp_path / "sick").mkdir()
    (tmp_path / "sick" / "SICK.txt").write_text("id\ta\tb\n1\tx\ty\n")
    with pytest.raises(CorruptLineError, match="line 1: .*sentence_A") as info:
        d.load_sick(tmp_path, on_error="skip")
    assert info.value.line == 1


# --------------------------------------------------------------------------- corrupt lines

CORRUPT_CASES = [
    pytest.param(lambda **kw: d.load_nli_jsonl(CORRUPT / "snli" / "snli_1.0_dev.jsonl", **kw),
                 "snli_1.0_dev.jsonl", 3, [0, 2, 1], id="snli-jsonl"),
    pytest.param(lambda **kw: d.load_sst_trees("dev", CORRUPT, **kw),
                 "dev.txt", 2, [0, 4], id="sst-trees"),
    pytest.param(lambda **kw: d.load_sst_sentences("dev", True, CORRUPT, **kw),
                 "stsa.fine.dev", 3, [0, 4], id="sst-sentences"),
    pytest.param(lambda **kw: d.load_sick(CORRUPT, **kw), "SICK.txt", 3, [0, 1], id="sick"),
    pytest.param(lambda **kw: d.load_senteval("subj", CORRUPT, **kw), "subj.all", 2, [0, 1], id="subj"),
    pytest.param(lambda **kw: d.load_trec("test", CORRUPT, **kw), "TREC.test.all", 2, [5, 4], id="trec"),
]


@pytest.mark.parametrize(("load", "name", "line", "labels"), CORRUPT_CASES)
def test_corrupt_line_raises_with_file_and_line(load, name, line, labels):
    with pytest.raises(CorruptLineError) as info:
        load()
    error = info.value
    assert Path(error.file).name == name and error.line == line
    assert f"{name}, line {line}:" in str(error)
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(("load", "name", "line", "labels"), CORRUPT_CASES)
def test_corrupt_line_skipped_with_warning(load, name, line, labels):
    with pytest.warns(CorruptLineWarning, match=rf"{name}, line {line}: .*skipped"):
        examples = load(on_error="skip")
    assert [ex.label for ex in examples] == labels
    assert all(not ex.source.endswith(f":{line}") for ex in examples)


def test_corrupt_reasons_say_what_was_wrong():
    with pytest.raises(CorruptLineError, match="label 7 is outside 0..4"):
        d.load_sst_sentences("dev", True, CORRUPT)
    with pytest.raises(CorruptLineError, match="'MAYBE' is not one of"):
        d.load_sick(CORRUPT)
    with pytest.raises(CorruptLineError, match="coarse label 'FOO'"):
        d.load_trec("test", CORRUPT)


def test_invalid_on_error_value_is_rejected():
    with pytest.raises(ValueError, match="on_error must be one of .* got 'ignore'"):
        d.load_sick(FIXTURES, on_error="ignore")


# --------------------------------------------------------------------------- SST trees


def test_parse_ptb_tree_hand_worked_example():
    assert d.parse_ptb_tree("(3 (2 It) (4 (2 's) (3 good)))") == [
        (3, ["It", "'s", "good"]),
        (2, ["It"]),
        (4, ["'s", "good"]),
        (2, ["'s"]),
        (3, ["good"]),
    ]


def test_parse_ptb_tree_keeps_escaped_tokens_and_multiword_leaves():
    nodes = d.parse_ptb_tree("(2 (2 -LRB-) (1 (2 8 1\\/2) (1 n't)) (2 -RRB-))\n")
    assert nodes[0] == (2, ["-LRB-", "8", "1\\/2", "n't", "-RRB-"])
    assert nodes[2] == (1, ["8", "1\\/2", "n't"])
    assert nodes[3] == (2, ["8", "1\\/2"])


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("(3 (2 a)", "unclosed"),
        ("(2 a))", "unbalanced"),
        ("(x a)", "label 'x' is not an integer"),
        ("a (2 b)", "outside any node"),
        ("(2 a) (3 b)", "after the root"),
        ("(2 a (2 b))", "mixes words and child nodes"),
        ("(2)", "neither a word nor children"),
        ("( (2 a))", "not followed by a label"),
        ("   ", "no tree"),
    ],
)
def test_parse_ptb_tree_rejects_malformed_lines(line, reason):
    with pytest.raises(ValueError, match=reason):
        d.parse_ptb_tree(line)


def test_sst_trees_sentences():
    train = d.load_sst_trees("train", FIXTURES)
    assert [ex.label for ex in train] == [3, 0, 2, 4, 1]
    assert train[0] == Example("It 's good", 3, None, "train.txt:1")
    assert train[2].text == "-LRB- a 1\\/2 -RRB-"
    assert train[4].text == "It does n't work ."


def test_sst_trees_phrases_keep_every_node_and_duplicates():
    phrases = d.load_sst_trees("train", FIXTURES, phrases=True)
    assert len(phrases) == 37
    assert [(ex.text, ex.label) for ex in phrases[:5]] == [
        ("It 's good", 3), ("It", 2), ("'s good", 4), ("'s", 2), ("good", 3)]
    texts = Counter(ex.text for ex in phrases)
    assert texts["."] == 3 and texts["It"] == 2
    assert {ex.source for ex in phrases[:5]} == {"train.txt:1"}


def test_sst_balance_repeats_sentences_and_non_neutral_phrases():
    plain = d.load_sst_trees("train", FIXTURES, phrases=True)
    balanced = d.load_sst_trees("train", FIXTURES, phrases=True, balance=True)
    # 5 sentences + 11 non-neutral phrases, 4 copies each; 21 neutral phrases once.
    assert len(balanced) == 4 * (5 + 11) + 21 == 85
    assert [(ex.text, ex.label) for ex in balanced[:6]] == \
        [("It 's good", 3)] * 4 + [("It", 2), ("'s good", 4)]
    neutral_sentence = "-LRB- a 1\\/2 -RRB-"
    assert sum(ex.text == neutral_sentence for ex in balanced) == 4
    roots = set(d.load_sst_trees("train", FIXTURES))
    expected: Counter[Example] = Counter()
    for ex in plain:
        expected[ex] += 4 if ex.label != 2 or ex in roots else 1
    assert Counter(balanced) == expected
    three = d.load_sst_trees("train", FIXTURES, phrases=True, balance=True, balance_copies=3)
    assert len(three) == 3 * 16 + 21


def test_sst_balance_needs_phrases():
    with pytest.raises(ValueError, match="needs phrases=True"):
        d.load_sst_trees("train", FIXTURES, balance=True)


def test_sst_train_reads_only_official_8544_lines(tmp_path):
    trees = tmp_path / "sst" / "trees"
    trees.mkdir(parents=True)
    (trees / "train.txt").write_text("(2 x)\n" * d.SST_TRAIN_SENTENCES + "(4 extra)\n")
    train = d.load_sst_trees("train", tmp_path)
    assert len(train) == 8544 and all(ex.text == "x" for ex in train)


def test_sst2_from_sst5_drops_neutral():
    examples = [Example(str(label), label) for label in range(5)]
    assert [(ex.text, ex.label) for ex in d.sst2_from_sst5(examples)] == \
        [("0", 0), ("1", 0), ("3", 1), ("4", 1)]


def test_sst_sentences_fine_and_binary():
    fine = d.load_sst_sentences("train", data_dir=FIXTURES)
    binary = d.load_sst_sentences("train", fine=False, data_dir=FIXTURES)
    assert [(ex.text, ex.label) for ex in fine] == [
        ("a wonderful walk .", 4), ("the soup was awful .", 0), ("it is a film .", 2)]
    assert [ex.label for ex in binary] == [1, 0]
    assert fine[1].source == "stsa.fine.train:2"


# --------------------------------------------------------------------------- SentEval / TREC


def test_trec_numeric_codes_map_to_coarse_labels_with_latin1_fallback():
    train = d.load_trec("train", FIXTURES)
    names = [d.TREC_LABELS[ex.label] for ex in train]
    assert names[:6] == ["DESC", "ENTY", "ABBR", "HUM", "LOC", "NUM"]
    assert train[1].text == "What instrument did the caf\u00e9 pianist play ?"
    assert [d.TREC_LABELS[ex.label] for ex in d.load_trec("test", FIXTURES)] == ["NUM", "LOC", "ABBR"]


def test_trec_original_uiuc_label_format():
    train = d.load_trec("train", FIXTURES / "uiuc")
    assert [(d.TREC_LABELS[ex.label], ex.text) for ex in train] == [
        ("DESC", "How do bees make honey ?"),
        ("ABBR", "What does NASA stand for ?"),
        ("NUM", "How many legs does a spider have ?"),
    ]


def test_senteval_latin1_and_utf8_files():
    subj = d.load_senteval("subj", FIXTURES)
    assert len(subj) == 20 and Counter(ex.label for ex in subj) == {0: 10, 1: 10}
    assert subj[2].text == "si el siglo necesita de h\u00e9roes , this film has one ."
    assert subj[0].text == "a warm and funny film about growing up ."
    cr = d.load_senteval("cr", FIXTURES)
    assert cr[2].text == "setup was na\u00efve-proof and quick ."


def test_senteval_drops_label_only_lines():
    mpqa = d.load_senteval("mpqa", FIXTURES)
    assert len(mpqa) == 9
    assert "mpqa.all:3" not in {ex.source for ex in mpqa}


def test_senteval_rejects_trec_and_unknown_names():
    with pytest.raises(ValueError, match="load_trec"):
        d.load_senteval("trec", FIXTURES)
    with pytest.raises(ValueError, match="name must be one of .* got 'imdb'"):
        d.load_senteval("imdb", FIXTURES)


# --------------------------------------------------------------------------- splits


def test_train_dev_split_is_deterministic_disjoint_and_complete():
    items = list(range(100))
    train, dev = d.train_dev_split(items, 0.05, seed=13)
    assert (train, dev) == d.train_dev_split(items, 0.05, seed=13)
    assert len(dev) == 5 and len(train) == 95
    assert not set(train) & set(dev) and sorted(train + dev) == items
    assert train == sorted(train) and dev == sorted(dev)
    assert d.train_dev_split(items, 0.05, seed=14)[1] != dev


def test_train_dev_split_rejects_bad_fraction():
    with pytest.raises(ValueError, match="dev_fraction must be in"):
        d.train_dev_split([1, 2], 1.5, seed=0)


def test_kfold_covers_every_example_once():
    items = list(range(23))
    folds = list(d.kfold(items, k=10, seed=0))
    assert len(folds) == 10
    tests = [test for _, test in folds]
    assert sorted(x for test in tests for x in test) == items
    assert sorted(len(test) for test in tests) == [2] * 7 + [3] * 3
    for train, test in folds:
        assert not set(train) & set(test) and sorted(train + test) == items
    assert [t for _, t in d.kfold(items, k=10, seed=0)] == tests
    assert [t for _, t in d.kfold(items, k=10, seed=1)] != tests
    with pytest.raises(ValueError, match="k must be between 2 and"):
        list(d.kfold(items, k=1))


# --------------------------------------------------------------------------- tasks


def test_nli_task_holds_out_a_slice_of_snli_dev_plus_sick():
    train = d.load_task("nli", "train", FIXTURES)
    dev = d.load_task("nli", "dev", FIXTURES)
    test = d.load_task("nli", "test", FIXTURES)
    pool = d.load_snli("dev", FIXTURES) + d.load_sick(FIXTURES)
    assert len(pool) == 11 and len(dev) == round(11 * 0.05) == 1
    assert not set(train) & set(dev) and Counter(train + dev) == Counter(pool)
    assert dev == d.load_task("nli", "dev", FIXTURES)
    assert test == d.load_snli("test", FIXTURES)
    assert all(ex.hypothesis for ex in train + dev + test)


def test_trec_task_dev_is_slice_of_official_train():
    train = d.load_task("trec", "train", FIXTURES)
    dev = d.load_task("trec", "dev", FIXTURES)
    assert (len(train), len(dev)) == (9, 1)
    assert Counter(train + dev) == Counter(d.load_trec("train", FIXTURES))
    assert len(d.load_task("trec", "test", FIXTURES)) == 3


def test_senteval_task_fixed_80_10_10_split():
    parts = {split: d.load_task("subj", split, FIXTURES) for split in ("train", "dev", "test", "all")}
    assert [len(parts[s]) for s in ("train", "dev", "test")] == [16, 2, 2]
    assert Counter(parts["train"] + parts["dev"] + parts["test"]) == Counter(parts["all"])
    assert not set(parts["train"]) & (set(parts["dev"]) | set(parts["test"]))
    assert not set(parts["dev"]) & set(parts["test"])
    assert parts["dev"] == d.load_task("subj", "dev", FIXTURES)


def test_sst_tasks_phrases_for_train_sentences_for_eval():
    assert len(d.load_task("sst5", "train", FIXTURES)) == 37
    assert len(d.load_task("sst5", "train", FIXTURES, phrases=False)) == 5
    assert len(d.load_task("sst5", "train", FIXTURES, balance=True)) == 85
    assert [ex.label for ex in d.load_task("sst5", "dev", FIXTURES)] == [0, 2, 4]
    assert [ex.label for ex in d.load_task("sst2", "dev", FIXTURES)] == [0, 1]
    sst2_train = d.load_task("sst2", "train", FIXTURES)
    assert len(sst2_train) == 15 and {ex.label for ex in sst2_train} == {0, 1}


def test_load_task_rejects_bad_task_split_and_keyword():
    with pytest.raises(ValueError, match="task must be one of .* got 'imdb'"):
        d.load_task("imdb", "train", FIXTURES)
    with pytest.raises(ValueError, match="split for task 'trec' must be one of .* got 'all'"):
        d.load_task("trec", "all", FIXTURES)
    with pytest.raises(TypeError, match="phrases"):
        d.load_task("trec", "train", FIXTURES, phrases=True)


def test_fixture_dir_is_usable_via_environment(monkeypatch, tmp_path):
    copy = tmp_path / "data"
    shutil.copytree(FIXTURES / "sick", copy / "sick")
    monkeypatch.setenv("DISAN_DATA_DIR", str(copy))
    assert len(d.load_sick()) == 6


# --------------------------------------------------------------------------- real data


@pytest.fixture(scope="module")
def real_dir() -> Path:
    root = d.data_dir()
    if not (root / "snli").is_dir() or not (root / "sst" / "trees").is_dir():
        pytest.skip(f"real datasets not found at {root}; set DISAN_DATA_DIR to the shared data dir")
    return root


@pytest.fixture(scope="module")
def sst_train_phrases(real_dir) -> list[Example]:
    return d.load_sst_trees("train", real_dir, phrases=True)


@pytest.fixture(scope="module")
def sst_trees(real_dir) -> dict[str, list[Example]]:
    return {split: d.load_sst_trees(split, real_dir) for split in ("train", "dev", "test")}


@pytest.mark.data
class TestRealData:
    """Counts from ../shared/data/README.md."""

    def test_snli_dev_and_test(self, real_dir):
        assert len(d.load_snli("dev", real_dir)) == 9842
        assert len(d.load_snli("test", real_dir)) == 9824

    def test_sst_tree_sentences(self, sst_trees):
        assert [len(sst_trees[split]) for split in ("train", "dev", "test")] == [8544, 1101, 2210]
        assert sst_trees["train"][0].text.startswith("The Rock is destined to be the 21st Century 's")

    def test_sst_train_phrases(self, sst_train_phrases):
        assert len(sst_train_phrases) == 318582
        assert len({ex.text for ex in sst_train_phrases}) == 159274

    def test_sst_balance_counts(self, real_dir, sst_train_phrases):
        balanced = d.load_sst_trees("train", real_dir, phrases=True, balance=True)
        repeated = sum(ex.label != 2 for ex in sst_train_phrases) + sum(
            ex.label == 2 for ex in d.load_sst_trees("train", real_dir))
        assert len(balanced) == len(sst_train_phrases) + 3 * repeated

    def test_sst_binary_from_trees_matches_stsa_binary(self, real_dir, sst_trees):
        for split, expected in (("train", 6920), ("dev", 872), ("test", 1821)):
            assert len(d.sst2_from_sst5(sst_trees[split])) == expected
            assert len(d.load_sst_sentences(split, fine=False, data_dir=real_dir)) == expected

    def test_sst_sentences_fine(self, real_dir):
        counts = [len(d.load_sst_sentences(split, data_dir=real_dir)) for split in ("train", "dev", "test")]
        assert counts == [8544, 1101, 2210]

    def test_sick(self, real_dir):
        sick = d.load_sick(real_dir)
        assert len(sick) == 9927
        assert Counter(d.NLI_LABELS[ex.label] for ex in sick) == \
            {"neutral": 5611, "entailment": 2857, "contradiction": 1459}

    def test_trec(self, real_dir):
        train, test = d.load_trec("train", real_dir), d.load_trec("test", real_dir)
        assert (len(train), len(test)) == (5452, 500)
        assert Counter(d.TREC_LABELS[ex.label] for ex in train) == \
            {"ABBR": 86, "DESC": 1162, "ENTY": 1250, "HUM": 1223, "LOC": 835, "NUM": 896}

    def test_senteval_binary_sets(self, real_dir):
        # README counts lines: subj 10,000, mpqa 10,606, custrev 3,775; mpqa has 3 and
        # custrev 4 lines with a label but no sentence, which the loader drops.
        assert len(d.load_senteval("subj", real_dir)) == 10000
        assert len(d.load_senteval("mpqa", real_dir)) == 10606 - 3
        assert len(d.load_senteval("cr", real_dir)) == 3775 - 4

    def test_nli_task_sizes(self, real_dir):
        dev = d.load_task("nli", "dev", real_dir)
        train = d.load_task("nli", "train", real_dir)
        assert (len(train), len(dev)) == (9842 + 9927 - 988, 988)
        assert len(d.load_task("nli", "test", real_dir)) == 9824
