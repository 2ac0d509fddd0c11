"""A relatedness model's inputs are SICK's "sentence A" and "sentence B" wherever a reader sees them (the report's
header, headings, figure titles and word controls, the notebook view, the model's and the report command's
messages), not a premise and a hypothesis; an NLI model keeps its premise and hypothesis. On the tiny seeded
relatedness checkpoint (tests/relatedness_model.py) and a tiny NLI model (tests/conftest.make_tiny).
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from disan.api import load
from disan.errors import InputError
from tests.conftest import make_tiny
from tests.page_js import report_page
from tests.relatedness_model import PAIRS, write_relatedness_model


@pytest.fixture(scope="module")
def sick_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels") / "pretrained"
    return load(str(write_relatedness_model(folder, "disan")), device="cpu")


def visible(page: dict) -> str:
    """The page's header and body text and every figure's title."""
    titles = []
    for fig in page["data"]["figures"].values():  # figure specs: the figure's title and each panel's
        titles.append(fig.get("title") or "")
        titles += [p["view"].get("title") or "" for p in fig["panels"]]
    return unescape(re.sub(r"<[^>]+>", " ", page["header"] + page["body"])) + " " + " ".join(titles)


def test_the_report_and_the_notebook_view_call_a_relatedness_pair_sentence_a_and_b(sick_model, tmp_path):
    a, b = PAIRS[0]
    trace = sick_model.trace(a, b)
    page = report_page(trace.to_html(tmp_path / "r.html").read_text(encoding="utf-8"))
    assert f'<p class="sub hyp">sentence B: {b}</p>' in page["header"]
    assert "<h3>Sentence A</h3>" in page["body"] and "<h3>Sentence B</h3>" in page["body"]
    assert "sentence A word" in page["body"] and "sentence B word" in page["body"]
    text = visible(page)
    assert "— sentence A" in text and "— sentence B" in text
    assert not re.search(r"\b(premise|hypothesis)\b", text, re.IGNORECASE), text
    frame = trace._repr_html_()
    srcdoc = unescape(frame.split('srcdoc="', 1)[1].split('" sandbox=', 1)[0])
    compact = report_page(srcdoc)
    assert "sentence B: " in compact["header"] and "hypothesis" not in visible(compact).lower()


def test_an_nli_report_keeps_premise_and_hypothesis(tiny_glove, tmp_path):
    model = make_tiny("disan", tiny_glove, pair=True, unk_zero=True)
    page = report_page(model.trace("the man is good .", "a dog .").to_html(tmp_path / "n.html").read_text("utf-8"))
    assert '<p class="sub hyp">hypothesis: a dog .</p>' in page["header"]
    assert "<h3>Premise</h3>" in page["body"] and "— hypothesis" in visible(page)
    assert "sentence A" not in visible(page)


def test_the_models_messages_name_sentence_a_and_b(sick_model, tiny_glove):
    with pytest.raises(InputError, match=r"needs \(sentence A, sentence B\) pairs, got 'a man runs \.'"):
        sick_model.predict(["a man runs ."])
    with pytest.raises(InputError, match="The sentence A is empty"):
        sick_model.trace("", "a dog .")
    with pytest.raises(InputError, match="The sentence B is empty"):
        sick_model.predict([("a man runs .", " ")])
    with pytest.raises(InputError, match="is a relatedness model; give a sentence B as well as a sentence A"):
        sick_model([["a", "man"]])
    nli = make_tiny("disan", tiny_glove, pair=True, unk_zero=True)
    assert nli.cfg.input_names == ("premise", "hypothesis")
    with pytest.raises(InputError, match=r"needs \(premise, hypothesis\) pairs"):
        nli.predict(["a man ."])
    with pytest.raises(InputError, match="is an NLI model; give a hypothesis as well as a premise"):
        nli([["a", "man"]])


def test_the_report_command_refuses_a_long_sentence_a_in_one_line(sick_model, tmp_path, capsys):
    from viz_app.cli import main
    from viz_app.draw import settings

    long = " ".join(["man"] * (settings.REPORT_MAX_TOKENS + 1))
    path = str(tmp_path / "pretrained" / "disan-sick.safetensors")
    write_relatedness_model(tmp_path / "pretrained", "disan")
    code = main(["report", long, "--hypothesis", "a dog .", "--model", path, "--out", str(tmp_path / "x.html")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"The sentence A has {settings.REPORT_MAX_TOKENS + 1} tokens" in err[0]
