"""--data (issue 56, item 1): the named corpora through the project's loaders (on the fixture data), all and
comma lists, gold label names, and the refusals."""

from __future__ import annotations

import pytest

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
