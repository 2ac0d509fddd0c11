"""The Evidence and Models views under AppTest, on the stored results in pretrained/ (no model is run)."""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import parse_qs, urlsplit

import pytest

import disan
from disan.cards import read_card
from disan.paper_tables import LABELS
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


def _shown(measure: str, value: float) -> str:
    return f"{100 * value:.2f}%" if measure == "accuracy" else f"{value:.4f}"


def check_multi_run_page(at, card: dict, claims: dict | None) -> None:
    """A model of several seeds or folds: every run's test numbers in one table, the shipped run marked, each
    measure's mean (and, where the card stores them, sd and interval) over the runs in the caption, and the plots
    of its kind: a confusion matrix for a classifier, predicted against gold relatedness for a relatedness model."""
    assert_clean(at)
    block = card["test_runs"]
    measures = block.get("measures", ["accuracy"])
    relatedness = "pearson_r" in measures
    assert chart_by_key(at, "mdl_curve") and chart_by_key(at, "mdl_scatter" if relatedness else "mdl_cm")
    if claims and claims.get("accuracy_by_length"):
        assert chart_by_key(at, "mdl_length")
    columns = [f"test {LABELS[m]}" for m in measures]
    (table,) = [t.value for t in at.table if columns[0] in t.value.columns]
    for m, column in zip(measures, columns):
        assert list(table[column]) == [_shown(m, v) for v in block[m]]
    assert ("dev Pearson's r" if relatedness else "dev accuracy") in table.columns
    shipped = [row for row in table[block["unit"]] if row.endswith("(shipped)")]
    assert shipped == [f"{block['shipped'][block['unit']]} (shipped)"]
    captions = " ".join(plain(c.value) for c in at.caption)
    assert f"mean {_shown(measures[0], block['mean'])}" in captions and "picked on dev" in captions
    for m, stats in block.get("stats", {}).items():
        sd = f"{100 * stats['sd']:.2f}" if m == "accuracy" else f"{stats['sd']:.4f}"
        assert f"Test {LABELS[m]} over the {len(block['runs'])} {block['unit']}s" in captions
        assert f"mean {_shown(m, stats['mean'])}, sd {sd}, 95% interval of the mean [" in captions


MULTI_RUN = [n for n in disan.available() if read_card(n).get("test_runs")]


@pytest.mark.parametrize("name", MULTI_RUN)
def test_a_multi_run_model_page_lists_every_run_and_says_which_ships(name):
    at = run_app(view="models", model=name)
    stored = STORED.by_name(name)
    check_multi_run_page(at, read_card(name), stored.data if stored else None)


def test_paper_figures_verdicts_link_to_the_corpus_result():
    at = run_app(view="paper_figures", fig="shen7", model="disan")
    assert_clean(at)
    links = _links(at)
    assert any(u.startswith("evidence?") and "claim=shen7-gate-stop-words" in u for u in links), links


def test_evidence_shows_the_papers_tables_with_our_number_beside_each_cell():
    """Issue 28: a page of the Evidence view shows Shen Tables 1, 2, 4, 5 and Im Table 1, the paper's number
    beside ours per cell, the same rows `disan tables` writes (read from the cards, never typed in)."""
    from disan.locations import PRETRAINED_DIR
    from disan.paper_tables import TABLES, table_rows

    at = run_app(view="evidence")
    assert_clean(at)
    frames = [df.value for df in at.dataframe]
    shown = [f for f in frames if "paper's row" in f.columns]
    assert len(shown) == len(TABLES)
    for table, frame in zip(TABLES, shown):
        want = table_rows(table, PRETRAINED_DIR)
        assert frame.to_dict("records") == want
    sick = next(f for t, f in zip(TABLES, shown) if t.number == 4 and "Shen" in t.heading)
    pearson = sick[sick["measure"] == LABELS["pearson_r"]].iloc[0]
    runs = read_card("disan-sick")["test_runs"]["pearson_r"] if (PRETRAINED_DIR / "disan-sick.json").is_file() else None
    if runs:  # our cell is the mean of the five seeds' test Pearson's r, as the card records them
        assert pearson["ours"] == f"{sum(runs) / len(runs):.4f}"
    assert any("MultiNLI" in m.value for m in at.markdown)


def test_evidence_draws_the_stored_plausibility_per_model_and_method():
    """Issue 57: the Plausibility tab draws every stored pretrained/<name>.plausibility.json's AUPRC per method
    (and chance) with its interval, against the word and the phrase labels."""
    from viz_app.shell.views.evidence_plausibility import read_plausibility

    stored = read_plausibility()
    if not stored:
        pytest.skip("no pretrained/<name>.plausibility.json stored")
    at = run_app(view="evidence")
    assert_clean(at)
    for reference in ("word", "phrase"):
        drawn = {}
        for trace in chart_by_key(at, f"ev_plaus_{reference}")["data"]:
            for x, minus, plus in zip(trace["x"], trace["error_x"]["arrayminus"], trace["error_x"]["array"]):
                drawn.setdefault(trace["name"], []).append((round(x, 6), round(x - minus, 6), round(x + plus, 6)))
        for name, data, _ in stored:
            ig = data["references"][reference]["integrated_gradients"]["auprc"]
            assert (round(ig["value"], 6), round(ig["ci95"][0], 6), round(ig["ci95"][1], 6)) in drawn[
                "Integrated Gradients"]
        assert len(drawn["chance (share of positives)"]) == len(stored)
