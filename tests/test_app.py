"""Every view of the Streamlit app under ``streamlit.testing.v1.AppTest`` (in-process, no browser).

Uses the random-weight ``disan``/``dsa`` models unless a test needs a trained
one, so it runs with or without checkpoints in ``pretrained/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import disan
from benchmarks.load import decode  # noqa: F401 - Plotly arrays (corpus charts); other app tests import it here
from tests.page_js import page_figures, pair_page
from disan.config import NLI_LABELS
from viz_app.shell import loaders
from viz_app.shell.chart import SENT_VIEWS, unwire
from viz_app.draw import settings
from viz_app.shell.catalog import VIEW_IDS
from viz_app.draw.presets import IM_SENTENCE, PRESETS
from viz_app.draw.text import md_escape
from viz_app.draw.verdicts import SENTENCE_READINGS

APP = Path(__file__).resolve().parent.parent / "viz_app" / "app.py"
TIMEOUT = 120

#: view → (model that has it, at least this many charts, widgets that must exist as (kind, key)).
EXPECT = {
    "explore": ("disan", 3, []),
    "disan_attention": ("disan", 2, [("radio", "reduce"), ("selectbox", "token")]),
    "fusion_gate": ("dsa", 2, [("radio", "dir"), ("slider", "alpha")]),
    "source2token": ("disan", 2, [("selectbox", "token"), ("radio", "s2t_pair"), ("radio", "s2t_scale")]),
    "distance_attention": ("dsa", 3, [("live", "alpha")]),
    "ffn_pooling": ("dsa", 3, [("slider", "alpha")]),
    "masks": ("disan", 1, [("live", "alpha")]),
    "compare": ("dsa", 1, [("radio", "cmp"), ("radio", "dir"), ("radio", "cmp_b"), ("slider", "alpha")]),
    # (the pair's page is one component; its charts are the figures of Disan.PairView.page: tests/test_app_pair.py)
    "pair": ("dsa", 5, [("text_area", "sentence_b"), ("slider", "alpha")]),
    "attribution": ("dsa", 2, [("selectbox", "cls"), ("slider", "alpha")]),
    # (kind "live": a slider inside the chart component, ``viz_app.shell.chart.live_control``, named by its group)
    "paper_figures": ("disan", 2, [("selectbox", "shen_model"), ("selectbox", "im_model")]),
    "evidence": ("disan", 2, [("selectbox", "claim"), ("selectbox", "ev_model")]),
    "models": ("dsa", 2, [("selectbox", "models_pick")]),
}
ARCH_ONLY = {"disan_attention": "disan", "distance_attention": "dsa"}
#: Views that draw a sentence; Search draws a corpus index instead (tests/test_app_search.py).
SENTENCE_VIEWS = tuple(v for v in VIEW_IDS if v != "search")


def run_app(**params) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def chart_payloads(at: AppTest) -> list[dict]:
    """``{"id", "spec", "config", "selectable"}`` of every chart (``viz_app.shell.chart`` components), in page order."""
    out = []
    for c in at.get("bidi_component"):
        if c.proto.component_name.startswith("viz_plotly_chart"):
            data = unwire(json.loads(c.proto.json))
            # live sliders, the typing control and sections share the component (chart.live_control, …)
            if data.get("role") not in ("control", "typing", "section"):
                out.append({"id": c.proto.id, **data})
    return out


def _record_views(at: AppTest) -> None:
    """Keep every trace view a component of this run carried (a chart or a section: the first to draw it)."""
    for c in at.get("bidi_component"):
        if c.proto.component_name.startswith("viz_plotly_chart"):
            for view_id, v in (unwire(json.loads(c.proto.json)).get("views") or {}).items():
                _VIEWS[view_id] = (json.loads(v["view"]), v["arrays"])


def section_html(at: AppTest, key: str) -> str:
    """The HTML the page builds for the section drawn under ``key`` (``chart.draw_section``), in Node."""
    from tests.page_js import node_jobs

    _record_views(settled(at))
    for c in at.get("bidi_component"):
        if c.proto.component_name.startswith("viz_plotly_chart") and c.proto.id.endswith(f"-{key}"):
            data = unwire(json.loads(c.proto.json))
            [out] = node_jobs([{"fn": "section", "args": [[_VIEWS[v] for v in data["view_ids"]], data["section"],
                                                           data["params"]]}])
            assert "error" not in out, out.get("error")
            return out["html"]
    raise AssertionError(f"no section {key!r}")


def live_controls(at: AppTest) -> dict[str, dict]:
    """The live sliders (``chart.live_control``) by group: label, value, bounds and payload."""
    out = {}
    for c in at.get("bidi_component"):
        if c.proto.component_name.startswith("viz_plotly_chart"):
            data = unwire(json.loads(c.proto.json))
            if data.get("role") == "control":
                out[data["group"]] = data
    return out


def release_live(at: AppTest, key: str, value) -> AppTest:
    """What the page sends when a live slider stops: its final value becomes the session's ``key``."""
    at.session_state[key] = value
    return at.run()


#: Trace views the app sent to the page, by id (``chart.draw_figure`` sends each once per session).
_VIEWS: dict[str, tuple[dict, str]] = {}


def _live_of(chart: dict, controls: dict[str, dict]) -> dict | None:
    """What a bound chart is drawn at in the page: its group's control payload and value."""
    live = chart.get("live")
    control = controls.get(live["group"]) if live else None
    if control is None or control["payload"]["id"] != live["payload_id"]:
        return None
    return {"payload": control["payload"], "values": control["values"]}


#: The Attribution and Minimal pair views' line while their background job runs (``shell/waiting.py``).
COMPUTING = "Computing the attributions"


def settled(at: AppTest) -> AppTest:
    """``at``, checked to be done: a view waits for its background job inside its own run (``shell/waiting.py``),
    so no run ends while a view still shows that it is computing."""
    assert not any(COMPUTING in c.value for c in at.caption), "a run ended before its view's job was drawn"
    return at


def page_built(at: AppTest) -> list[tuple[dict, dict]]:
    """``(payload, {figure, binding})`` of every chart in page order: the server's spec for role "chart"
    (binding: its live binding), or for role "figure" what the page builds from its trace views, built in Node
    by the page's own code (``page_js``) and, for a chart bound to a live control, drawn at the control's value
    as the page draws it."""
    payloads, controls = chart_payloads(settled(at)), live_controls(at)
    _record_views(at)
    wanted = [c for c in payloads if c.get("role") == "figure"]
    if any(v not in _VIEWS for c in payloads if c.get("role") in ("figure", "pair") for v in c["view_ids"]):
        # Sent in a run this test did not read: ask again, as the page does for a view it lacks.
        at.session_state[SENT_VIEWS] = set()
        at.run()
        return page_built(at)
    built = iter(page_figures([([_VIEWS[v] for v in c["view_ids"]], c["figure"], c["params"], c["theme"],
                                 _live_of(c, controls)) for c in wanted]) if wanted else [])
    out = []
    for c in payloads:
        if c.get("role") == "pair":  # the Minimal pair's page: each of its figures, as the page builds them
            page = pair_page([_VIEWS[v] for v in c["view_ids"]], {"theme": c["theme"], "alphaControl": False})
            out.extend((c, {"figure": f, "binding": None}) for f in page["figures"].values())
        else:
            out.append((c, next(built) if c.get("role") == "figure" else
                        {"figure": json.loads(c["spec"]), "binding": (c.get("live") or {}).get("binding")}))
    return out


def charts(at: AppTest) -> list[dict]:
    """Every chart's figure, in page order: a figure spec (``{"kind": "figure", "panels", ...}``:
    docs/figure-components.md) for the page's own figures, Plotly's JSON (``{"data", "layout"}``) for the server's
    corpus charts."""
    return [b["figure"] for _, b in page_built(at)]


def heatmaps(spec: dict) -> list[dict]:
    """The views of a figure spec's heatmap panels, in panel order."""
    return [p["view"] for p in spec["panels"] if p["kind"] == "heatmap"]


def zs(view: dict) -> np.ndarray:
    """A heatmap view's z as floats (a cell the JSON holds as null: NaN)."""
    return np.array([[np.nan if v is None else v for v in row] for row in view["z"]], dtype=float)


def chart_by_key(at: AppTest, key: str) -> dict:
    for c, b in page_built(at):
        if c["id"].endswith(f"chart_{key}"):
            return b["figure"]
    raise AssertionError(f"no chart {key!r}")


def plain(markdown: str) -> str:
    """Markdown with backslash escapes removed (the app escapes user text with viz_app.draw.text.md_escape)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def warnings_text(at: AppTest) -> str:
    return " ".join(plain(w.value) for w in at.warning)


@pytest.mark.parametrize("view", SENTENCE_VIEWS)
def test_every_view_runs_on_the_default_model(view):
    at = run_app(view=view)
    assert_clean(at)
    model = at.session_state["model"]
    assert model in disan.available()
    needs = ARCH_ONLY.get(view)
    if needs and not model.startswith(needs):
        assert any(b.key == f"switch_{needs}" for b in at.button)
    else:
        assert len(charts(at)) >= 1
    if model in ("disan", "dsa"):
        assert "random weights" in warnings_text(at) + " ".join(plain(i.value) for i in at.info)


@pytest.mark.parametrize("view", SENTENCE_VIEWS)
def test_every_view_runs_on_a_preset_with_its_charts_and_widgets(view):
    model, n_charts, widgets = EXPECT[view]
    at = run_app(view=view, model=model)
    assert_clean(at)
    preset = next(p for p in PRESETS if p.sentence == IM_SENTENCE)
    at.selectbox(key="preset").set_value(preset.label).run()
    assert_clean(at)
    assert at.text_area(key="sentence").value == IM_SENTENCE
    assert not at.error, [e.value for e in at.error]
    assert len(charts(at)) >= n_charts
    for kind, key in widgets:
        if kind == "live":
            assert key in live_controls(at)
        else:
            getattr(at, kind)(key=key)  # raises KeyError when missing
    assert at.query_params["sentence"] == IM_SENTENCE


def test_alpha_reweights_cached_scores_without_an_encoder_pass(monkeypatch):
    at = run_app(view="distance_attention", model="dsa")
    assert_clean(at)
    before = zs(heatmaps(chart_by_key(at, "dsa_pair"))[0])
    calls = []
    original = disan.model.SentenceModel.trace
    monkeypatch.setattr(
        disan.model.SentenceModel, "trace", lambda self, *a, **k: calls.append(a) or original(self, *a, **k)
    )
    release_live(at, "alpha", 4.0)
    assert_clean(at)
    after = zs(heatmaps(chart_by_key(at, "dsa_pair"))[0])
    assert before.shape == after.shape
    assert not np.allclose(before, after)
    assert calls == []
    assert at.query_params["alpha"] == "4"


def test_compare_alpha_slider_changes_panel_a_on_one_shared_scale():
    at = run_app(view="compare", model="dsa", cmp="distance")
    assert_clean(at)
    first = chart_by_key(at, "compare")
    release_live(at, "alpha", 0.5)
    assert_clean(at)
    second = chart_by_key(at, "compare")
    a1, a2 = zs(heatmaps(first)[0]), zs(heatmaps(second)[0])
    assert not np.allclose(a1, a2, equal_nan=True)
    for spec in (first, second):
        a, b, diff = heatmaps(spec)
        assert (a["zmin"], a["zmax"]) == (b["zmin"], b["zmax"])
        np.testing.assert_allclose(zs(diff), zs(a) - zs(b), atol=1e-6)
        assert diff["scale"] == "diverging"  # centred on 0
    assert any("mean attention distance" in m.value for m in at.markdown)


def test_compare_direction_masks_on_disan():
    at = run_app(view="compare", model="disan", cmp="direction", cmp_b="diag", dir="bw")
    assert_clean(at)
    spec = chart_by_key(at, "compare")
    assert "masks diag" in json.dumps(spec)
    assert at.radio(key="dir").value == "bw"


def test_compare_ablation_names_a_missing_checkpoint():
    at = run_app(view="compare", model="disan", cmp="ablation")
    assert_clean(at)
    names = disan.available()
    if {"disan-sst5", "disan-sst5-nodir"} <= set(names):
        assert chart_by_key(at, "compare")
    else:
        text = warnings_text(at)
        assert "missing" in text and ("disan-sst5" in text)


def test_compare_ablation_of_an_nli_model_is_its_own_ablation():
    """Before, disan-nli's pair defaulted to "disan-sst5 vs disan-sst5-nodir": the app's table lacked disan-nli."""
    if not {"disan-nli", "disan-nli-nodir"} <= set(disan.available()):
        pytest.skip("disan-nli and disan-nli-nodir are not both bundled")
    at = run_app(view="compare", model="disan-nli", cmp="ablation")
    assert_clean(at)
    assert at.selectbox(key="cmp_pair").value == "disan-nli vs disan-nli-nodir"
    assert chart_by_key(at, "compare")


def test_query_params_restore_state():
    sentence = "The keys that the old man left are missing ."
    at = run_app(view="disan_attention", model="disan", sentence=sentence, reduce="feature", feature="5", token="2")
    assert_clean(at)
    assert at.text_area(key="sentence").value == sentence
    assert at.radio(key="reduce").value == "feature"
    assert live_controls(at)["feature"]["value"] == 5
    assert at.selectbox(key="token").value == 2
    assert "k=5" in json.dumps(chart_by_key(at, "disan_pair"))
    link = dict(at.query_params)
    assert link["view"] == "disan_attention" and link["feature"] == "5" and link["token"] == "2"
    again = run_app(**link)
    assert_clean(again)
    assert live_controls(again)["feature"]["value"] == 5 and again.selectbox(key="token").value == 2


def test_widget_changes_are_written_to_the_url_and_reopen_the_same_view():
    at = run_app(view="masks", model="dsa")
    release_live(at, "alpha", 2.3)
    at.toggle(key="present").set_value(True).run()
    assert_clean(at)
    link = dict(at.query_params)
    assert link["alpha"] == "2.3" and link["present"] == "1" and link["view"] == "masks"
    again = run_app(**link)
    assert_clean(again)
    assert live_controls(again)["alpha"]["value"] == pytest.approx(2.3)
    assert again.toggle(key="present").value is True
    assert {v["theme"] for v in heatmaps(chart_by_key(again, "masks"))} == {"presentation"}  # talk mode's look


def test_bad_query_params_fall_back_with_warnings():
    at = run_app(view="disan_attention", model="nope", alpha="abc", feature="99999", reduce="feature", token="77")
    assert_clean(at)
    text = warnings_text(at)
    assert "'nope'" in text and "'abc'" in text and "feature=99999" in text and "token=77" in text
    assert live_controls(at)["feature"]["value"] == 0
    assert len(charts(at)) >= 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("\x00\x00", "no words"),
        (" ".join(["word"] * (settings.MAX_TOKENS + 1)), f"at most {settings.MAX_TOKENS}"),
        ("\u200b\u200b", "no words"),
    ],
)
def test_bad_input_shows_one_error_not_an_exception(text, message):
    at = run_app(view="explore", model="disan")
    at.text_area(key="sentence").set_value(text).run()
    assert_clean(at)
    errors = [plain(e.value) for e in at.error]
    assert len(errors) == 1 and message in errors[0], errors


def test_over_long_link_text_is_refused_with_a_warning():
    at = run_app(view="explore", model="disan", sentence="a" * (settings.MAX_CHARS + 5))
    assert_clean(at)
    assert "characters" in warnings_text(at)
    assert at.text_area(key="sentence").value == settings.DEFAULT_SENTENCE


@pytest.mark.parametrize(
    "text", ["<script>alert(1)</script>", "I 😀 it 👍", "שלום עולם مرحبا بكم", "a\x00b & <b>c</b>"]
)
def test_odd_input_renders_as_text(text):
    at = run_app(view="explore", model="dsa")
    at.text_area(key="sentence").set_value(text).run()
    assert_clean(at)
    assert not at.error
    # the figures hold the tokens as data, drawn as canvas text and table text nodes (never parsed as HTML)
    overview = heatmaps(chart_by_key(at, "overview"))[0]
    assert overview["rowTokens"] == overview["colTokens"] == disan.tokenize(text)
    tokens = section_html(at, "tokens")
    assert "<script" not in tokens and "<b>c" not in tokens


def test_long_input_up_to_the_limit_renders():
    text = " ".join(f"w{i % 50}" for i in range(settings.MAX_TOKENS))
    for view, model in (("disan_attention", "disan"), ("distance_attention", "dsa")):
        at = run_app(view=view, model=model, sentence=text)
        assert_clean(at)
        assert not at.error
        T = settings.MAX_TOKENS
        assert zs(heatmaps(charts(at)[0])[0]).shape == (T, T)  # cell numbers: only where they fit (text.mjs)


def figure_downloads(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button") if b.proto.label in FIGURE_DOWNLOADS]


FIGURE_DOWNLOADS = {"HTML (self-contained)", "Matrix as CSV", "Trace as JSON"}


def test_a_figures_table_and_downloads_are_built_when_opened():
    """Issue 19: a closed "Table and downloads" sends no widgets on a rerun; opened, it offers all three."""
    at = run_app(view="explore", model="disan")
    assert [e.label for e in at.expander].count("Table and downloads") == 3
    assert figure_downloads(at) == [] and [t.key for t in at.toggle] == ["present"]
    at.session_state["overview_more"] = True
    at.run()
    assert_clean(at)
    assert sorted(figure_downloads(at)) == sorted(FIGURE_DOWNLOADS)
    assert sorted(t.key for t in at.toggle) == ["overview_table", "present"]


def test_presentation_mode_hides_tables_and_downloads():
    normal = run_app(view="explore", model="disan")
    assert len(normal.expander) >= 1
    talk = run_app(view="explore", model="disan", present="1")
    assert_clean(talk)
    assert len(talk.get("download_button")) == 0 and len(talk.expander) == 0
    assert heatmaps(chart_by_key(talk, "overview"))[0]["theme"] == "presentation"  # its palettes: Cividis / PuOr
    assert heatmaps(chart_by_key(normal, "overview"))[0]["theme"] == "normal"


def test_exports_offer_html_csv_and_json():
    at = run_app(view="distance_attention", model="dsa")
    at.session_state["dsa_pair_more"] = True
    at.run()
    assert set(figure_downloads(at)) == FIGURE_DOWNLOADS
    config = chart_payloads(at)[0]["config"]
    assert config["toImageButtonOptions"]["format"] == "svg"


def test_disan_feature_and_entropy_reductions():
    at = run_app(view="disan_attention", model="disan", reduce="entropy")
    assert_clean(at)
    z = zs(heatmaps(chart_by_key(at, "disan_pair"))[0])
    finite = z[np.isfinite(z)]
    assert finite.size and finite.min() >= 0 and finite.max() <= 1 + 1e-6
    at.radio(key="reduce").set_value("max").run()
    assert_clean(at)


def test_arch_specific_view_offers_a_switch():
    at = run_app(view="distance_attention", model="disan")
    assert_clean(at)
    button = next(b for b in at.button if b.key == "switch_dsa")
    button.click().run()
    assert_clean(at)
    assert at.session_state["model"].startswith("dsa")
    assert len(charts(at)) >= 3


@pytest.mark.parametrize("figure", ["shen6", "shen7", "shen8", "im7", "im8", "im9", "im10", "im11", "im12", "im13"])
def test_each_paper_figure_renders_with_a_measured_verdict(figure):
    at = run_app(view="paper_figures", fig=figure)
    assert_clean(at)
    assert not at.error
    assert len(charts(at)) >= 1
    text = " ".join(m.value for m in at.markdown)
    assert "**Paper:**" in text and any(reading in text for reading in SENTENCE_READINGS.values())
    if figure == "im8":  # one statistic over both blocks: its test-set line once, naming it (was twice, unnamed)
        tests = [m.value for m in at.markdown if "**Test set" in m.value]
        assert len(tests) == 1 and ("no stored result" in tests[0] or "mean attention distance" in tests[0]), tests


@pytest.fixture
def fake_nli(monkeypatch):
    """A random-weight NLI DSA model listed as ``dsa-nli`` (no checkpoint needed)."""
    real_available, real_load = disan.available, disan.load
    monkeypatch.setattr(disan, "available", lambda *a: ["dsa-nli"] + [n for n in real_available(*a) if n != "dsa-nli"])
    monkeypatch.setattr(
        disan,
        "load",
        lambda name, device=None: (
            disan.random_model("dsa", "cpu", pair=True, labels=NLI_LABELS)
            if name == "dsa-nli"
            else real_load(name, device)
        ),
    )
    fake_cfg = disan.random_model("dsa", "cpu", pair=True, labels=NLI_LABELS).cfg
    real_describe = disan.describe
    monkeypatch.setattr(disan, "describe", lambda name, verify=False: fake_cfg if name == "dsa-nli"
                        else real_describe(name, verify))
    loaders.load_model.clear()
    loaders.model_config.clear()
    yield
    loaders.load_model.clear()
    loaders.model_config.clear()
    loaders.trace_view.clear()
    loaders.full_trace.clear()


def test_nli_model_has_a_hypothesis_and_sides(fake_nli):
    at = run_app(view="explore", model="dsa-nli")
    assert_clean(at)
    assert at.text_input(key="hypothesis").value == settings.DEFAULT_HYPOTHESIS
    assert set(json.dumps(chart_by_key(at, "prediction")).split('"')) >= set(NLI_LABELS)
    at.radio(key="side").set_value("hypothesis").run()
    assert_clean(at)
    at.text_input(key="hypothesis").set_value("").run()
    assert_clean(at)
    assert any("hypothesis" in plain(e.value) for e in at.error)


def test_a_sentence_models_address_drops_the_nli_hypothesis_which_the_session_restores_on_switching_back(fake_nli):
    """Switching from an NLI model to a sentence model left the hypothesis (and the side drawn) in the address, so
    a copied link carried a hypothesis its page does not show, and an NLI model that link was switched to took it
    up. The address holds only what the shown model reads; the session still restores the hypothesis and side
    when this session switches back."""
    hypothesis = "A woman sings loudly ."
    at = run_app(view="explore", model="dsa-nli", hypothesis=hypothesis)
    at.radio(key="side").set_value("hypothesis").run()
    assert_clean(at)
    assert at.query_params["hypothesis"] == hypothesis
    at.selectbox(key="model").set_value("disan").run()
    assert_clean(at)
    link = dict(at.query_params)
    assert link["model"] == "disan" and not {"hypothesis", "side"} & set(link), link
    at.selectbox(key="model").set_value("dsa-nli").run()  # back in the same session: its hypothesis and side
    assert_clean(at)
    assert at.text_input(key="hypothesis").value == hypothesis and at.radio(key="side").value == "hypothesis"
    assert at.query_params["hypothesis"] == hypothesis and at.query_params["side"] == "hypothesis"
    again = run_app(**link)  # the sentence model's link in a new session, then an NLI model: the default
    again.selectbox(key="model").set_value("dsa-nli").run()
    assert_clean(again)
    assert again.text_input(key="hypothesis").value == settings.DEFAULT_HYPOTHESIS


def test_a_picked_example_is_named_under_the_boxes_until_its_text_is_edited(fake_nli):
    """The preset menu goes back to "— choose a preset sentence —" after a pick (a value derived from the boxes each
    run let a click replay a stale pick over typed text: tests/test_browser_typing.py), and the example's label
    (here a TREC test line's gold class) was then gone. A caption names the example the boxes hold; an edit of the
    sentence (or of an NLI model's hypothesis) takes it away, and picking the same preset again restores its text."""
    placeholder = "— choose a preset sentence —"
    preset = next(p for p in PRESETS if p.task == "trec")
    named = f"Example: {md_escape(preset.label)}"
    captions = lambda at: [c.value for c in at.sidebar.caption]  # noqa: E731
    at = run_app(view="explore", model="disan", sentence="a dull mess .")
    assert at.selectbox(key="preset").value == placeholder and named not in captions(at)
    at.selectbox(key="preset").set_value(preset.label).run()
    assert_clean(at)
    assert at.text_area(key="sentence").value == preset.sentence
    assert at.selectbox(key="preset").value == placeholder and named in captions(at)
    at.text_area(key="sentence").set_value(preset.sentence + " really").run()
    assert named not in captions(at)
    at.selectbox(key="preset").set_value(preset.label).run()
    assert at.text_area(key="sentence").value == preset.sentence and named in captions(at)
    nli = run_app(view="explore", model="dsa-nli")
    nli.selectbox(key="preset").set_value(preset.label).run()
    assert named in captions(nli)
    nli.text_input(key="hypothesis").set_value("Nobody asks .").run()  # the pair no longer the preset's
    assert_clean(nli)
    assert named not in captions(nli)


def test_table_fallback_is_drawn_on_demand_with_the_figure_values():
    at = run_app(view="explore", model="disan")
    assert_clean(at)
    assert not at.dataframe  # nothing serialised until asked for
    at.session_state["overview_more"] = True
    at.run()
    assert not at.dataframe
    at.toggle(key="overview_table").set_value(True).run()
    assert_clean(at)
    (frame,) = [d.value for d in at.dataframe]
    z = zs(heatmaps(chart_by_key(at, "overview"))[0])
    T = z.shape[0]
    assert frame.shape == (T, 2 * T)
    np.testing.assert_allclose(frame["forward"].to_numpy(), z, atol=1e-12)
    assert frame.index[0].startswith("#0 ")


@pytest.mark.parametrize("view", sorted(set(EXPECT) - {"evidence", "models", "pair"}))
def test_every_figures_table_opens_with_one_row_per_token(view):
    """Tables are built only when their "Table and downloads" is opened (issue 19); opened, each figure's table
    and its CSV exist on every view, and token tables have one labelled row per token."""
    model = EXPECT[view][0]
    at = run_app(view=view, model=model)
    assert_clean(at)
    assert not at.dataframe
    keys = [c["id"].rsplit("chart_", 1)[1] for c in chart_payloads(at)]  # show_figure's chart_<key>
    assert len(keys) == [e.label for e in at.expander].count("Table and downloads"), keys
    for key in keys:
        at.session_state[f"{key}_more"] = True
    at.run()
    for key in keys:
        toggle = [t for t in at.toggle if t.key == f"{key}_table"]
        if toggle:
            toggle[0].set_value(True)
    at.run()
    assert_clean(at)
    frames = [d.value for d in at.dataframe]
    assert frames and all(f.shape[0] > 0 for f in frames)
    assert "Matrix as CSV" in figure_downloads(at)
    tokenised = [f for f in frames if str(f.index[0]).startswith("#0 ")]
    assert tokenised and all(f.index.is_unique for f in tokenised)  # "#i token": repeated tokens stay apart


def test_first_page_imports_no_pandas():
    """Issue 19's cold start: the opening page builds no table and hands Streamlit no nested component data
    (``chart.wire``), so pandas (0.4 s to import here) is not imported until a table or the Evidence view needs it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        f"at = AppTest.from_file({str(APP)!r}, default_timeout={TIMEOUT}).run()\n"
        "assert not at.exception, [e.value for e in at.exception]\n"
        "assert len(at.get('bidi_component')) >= 3\n"
        "print('pandas' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT,
                         cwd=APP.parent.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-1] == "False"


def test_wire_round_trips_nested_fields_as_text():
    from viz_app.shell.chart import wire

    data = {"role": "chart", "spec": "{}", "config": {"a": [1, 2]}, "live": None, "values": {"alpha": 0.5},
            "list": [1, "x"], "n": 3}
    sent = wire(data)
    assert all(not isinstance(v, (dict, list)) for v in sent.values())
    assert sorted(sent["json"].split(",")) == ["config", "list", "values"]
    assert {k: v for k, v in unwire(sent).items() if k != "json"} == data


def typing_elements(at: AppTest) -> list[dict]:
    """The data of every typing element (``chart.typing_control``) of the run, in page order."""
    datas = (unwire(json.loads(c.proto.json)) for c in at.get("bidi_component")
             if c.proto.component_name.startswith("viz_plotly_chart"))
    return [d for d in datas if d.get("role") == "typing"]


@pytest.mark.parametrize("view", ["models", "evidence", "paper_figures", "pair"])
def test_a_page_that_cannot_follow_typing_still_carries_the_element_that_sends_the_text(view):
    """The sidebar's boxes never rerun on a commit of their own (shell/follow.py: that rerun named the page it
    was made on and cancelled a click on another view), so every page carries the typing element; on a view
    without a sentence figure it runs no model and only sends the boxes' text, once typing rests or at Enter."""
    at = run_app(view=view)
    assert_clean(at)
    typing = typing_elements(at)
    assert [(d["draws"], d["text"]) for d in typing] == [(False, at.text_area(key="sentence").value)]


@pytest.mark.parametrize("view, keys", [("pair", ["sentence_b"]), ("source2token", ["s2t_other"])])
def test_a_views_own_text_boxes_are_sent_by_the_typing_element_not_their_commits(view, keys):
    """A view's own text boxes (the Minimal pair's B, Source2token's other sentence) never rerun on a commit of
    their own, as the sidebar's (shell/follow.py hold: that rerun cancelled a click on another view); the page's
    typing element carries their keys and the server's text, and sends them with the sidebar's."""
    at = run_app(view=view)
    assert_clean(at)
    typing = typing_elements(at)
    assert len(typing) == 1
    assert typing[0]["boxes"] == {key: at.session_state[key] for key in keys}
    assert all(isinstance(v, str) and v for v in typing[0]["boxes"].values())
