"""The Evidence and Models views under AppTest, on the stored results in pretrained/ (no model is run)."""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from disan.cards import read_card
from viz_app.shell import results as results_module
from viz_app.shell.links import claim_url, sentence_url
from viz_app.shell.results import read_results, verdict_table

from tests.test_app import assert_clean, chart_by_key, plain, run_app

STORED = read_results()
pytestmark = pytest.mark.skipif(not STORED.stored, reason="no pretrained/<name>.claims.json stored")


def _links(at) -> list[str]:
    return [url for m in at.markdown for url in re.findall(r"\]\(([^)]+)\)", m.value)]


def test_evidence_draws_every_model_of_the_chosen_claim_with_its_interval():
    claim_id = "im9-gate-of-period"
    at = run_app(view="evidence", claim=claim_id)
    assert_clean(at)
    assert at.selectbox(key="claim").value == claim_id
    forest = chart_by_key(at, "ev_forest")
    expected = {s.name: c for s, c in STORED.with_claim(claim_id)}
    drawn = {}
    for trace in forest["data"]:
        for y, x, minus, plus in zip(trace["y"], trace["x"], trace["error_x"]["arrayminus"], trace["error_x"]["array"]):
            drawn[y] = (x, x - minus, x + plus, trace["name"])
    assert set(drawn) == set(expected)
    for name, c in expected.items():
        value, lo, hi, verdict = drawn[name]
        assert value == pytest.approx(c["value"]) and verdict == c["verdict"]
        assert (lo, hi) == pytest.approx(tuple(c["ci95"]))
    assert forest["layout"]["shapes"][0]["x0"] == 0.0  # the no-effect line
    assert at.query_params["claim"] == claim_id


def test_choosing_a_claim_lists_linked_sentences_for_the_matching_view():
    at = run_app(view="evidence", claim="im7-locality", model="dsa-nli")
    assert_clean(at)
    name = at.selectbox(key="ev_model").value
    claim = STORED.by_name(name).claim("im7-locality")
    links = [u for u in _links(at) if "sentence=" in u]
    expected = [sentence_url("im7-locality", "distance_attention", name, row["text"])
                for key in ("strongest", "weakest") for row in claim["examples"][key]]
    assert links == expected
    query = parse_qs(urlsplit(links[0]).query)
    assert urlsplit(links[0]).path == "distance_attention" and query["model"] == [name]
    assert query["sentence"] == [claim["examples"]["strongest"][0]["text"]]
    assert chart_by_key(at, "ev_distribution")["data"]


def test_evidence_shows_both_gate_claims_and_the_corpus_figures():
    at = run_app(view="evidence")
    assert_clean(at)
    gates = chart_by_key(at, "ev_gates")
    titles = " ".join(a["text"] for a in gates["layout"]["annotations"])
    assert "Shen Fig. 7" in titles and "Im Fig. 9" in titles
    if any(s.data["task"] == "sst5" for s in STORED.stored):
        assert chart_by_key(at, "ev_shen5")
    if any(s.data["task"] == "nli" for s in STORED.stored):
        hist = chart_by_key(at, "ev_im5")
        assert sum(hist["data"][0]["y"]) == next(s for s in STORED.stored if s.data["task"] == "nli").data["n_examples"]
    if STORED.by_name("dsa-nli") and STORED.by_name("dsa-nli-nodist"):
        assert len(chart_by_key(at, "ev_im6_dsa-nli")["data"]) == 2
    table = verdict_table(STORED)
    assert list(table.columns) == [s.label for s in STORED.stored]


def test_a_stale_result_is_flagged_not_shown_as_current(monkeypatch):
    first = STORED.stored[0]
    stale = dataclasses.replace(first, stale="its checkpoint changed since these results were computed")
    faked = dataclasses.replace(STORED, stored=(stale,) + STORED.stored[1:])
    monkeypatch.setattr("viz_app.shell.views.evidence.load_results", lambda: faked)
    claim_id = first.data["claims"][0]["id"]
    at = run_app(view="evidence", claim=claim_id)
    assert_clean(at)
    assert any("STALE" in plain(w.value) and first.name in plain(w.value) for w in at.warning)
    labels = [y for t in chart_by_key(at, "ev_forest")["data"] for y in t["y"]]
    assert f"{first.name} (stale)" in labels and first.name not in labels
    assert results_module.REFRESH_COMMAND in " ".join(plain(w.value) for w in at.warning)


@pytest.mark.parametrize("name", [s.name for s in STORED.stored][:2])
def test_model_page_shows_accuracy_interval_plots_and_the_reproduce_command(name):
    at = run_app(view="models", model=name)
    assert_clean(at)
    assert at.selectbox(key="models_pick").value == name
    acc = STORED.by_name(name).data["accuracy"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Test accuracy"] == f"{100 * acc['value']:.2f}%"
    assert chart_by_key(at, "mdl_cm") and chart_by_key(at, "mdl_curve") and chart_by_key(at, "mdl_length")
    code = " ".join(c.value for c in at.code)
    assert f"python -m disan claims --model {name}" in code and "train" in code
    assert claim_url(STORED.by_name(name).data["claims"][0]["id"], name) in _links(at)


MULTI_RUN = [s.name for s in STORED.stored if read_card(s.name).get("test_runs")]


@pytest.mark.parametrize("name", MULTI_RUN)
def test_a_multi_run_model_page_lists_every_run_and_says_which_ships(name):
    at = run_app(view="models", model=name)
    assert_clean(at)
    assert chart_by_key(at, "mdl_cm") and chart_by_key(at, "mdl_curve") and chart_by_key(at, "mdl_length")
    block = read_card(name)["test_runs"]
    (table,) = [t.value for t in at.table if "test accuracy" in t.value.columns]
    assert list(table["test accuracy"]) == [f"{100 * a:.2f}%" for a in block["accuracy"]]
    shipped = [row for row in table[block["unit"]] if row.endswith("(shipped)")]
    assert shipped == [f"{block['shipped'][block['unit']]} (shipped)"]
    captions = " ".join(plain(c.value) for c in at.caption)
    assert f"mean {100 * block['mean']:.2f}%" in captions and "picked on dev" in captions


def test_paper_figures_verdicts_link_to_the_corpus_result():
    at = run_app(view="paper_figures", fig="shen7", model="disan")
    assert_clean(at)
    links = _links(at)
    assert any(u.startswith("evidence?") and "claim=shen7-gate-stop-words" in u for u in links), links
