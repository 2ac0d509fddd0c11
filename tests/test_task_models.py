"""Issue 28: each task model in pretrained/ (TREC, SUBJ, MPQA, CR, SICK) works where the other models do.

The app's model picker lists it and Explore draws it on a preset of its own task; the page's figures (the ones the
report, the notebook view, the static site and the app draw, ``viz_app/browser/``) name its classes with the
probabilities ``predict()`` gives. The static site and the wheel take every bundled checkpoint already
(tests/test_site.py ``test_every_bundled_model_draws_offline_from_disk``, tests/test_wheel.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import disan
from disan.api import PRETRAINED_DIR
from tests.page_js import node_jobs
from tests.test_app import assert_clean, charts, run_app
from viz_app.draw.presets import PRESETS
from viz_app.draw.site_view import trace_view_json

#: Issue 28's models and the task whose presets they read.
TASK_MODELS = {"disan-trec": "trec", "disan-subj": "subj", "disan-mpqa": "mpqa", "disan-cr": "cr",
               "disan-sick": "sick"}
PRESENT = [name for name in TASK_MODELS if (PRETRAINED_DIR / f"{name}.safetensors").is_file()]

pytestmark = pytest.mark.skipif(not PRESENT, reason="no task model of issue 28 in pretrained/")


def _inputs(name: str) -> tuple[str, str | None]:
    """The first preset of the model's task: (sentence, hypothesis or None)."""
    preset = next(p for p in PRESETS if p.task == TASK_MODELS[name])
    return preset.sentence, (preset.hypothesis if TASK_MODELS[name] == "sick" else None)


def _bars(name: str) -> list[str]:
    """The prediction figure's categories: the classes, or a relatedness model's grades 1–5."""
    return ["1", "2", "3", "4", "5"] if TASK_MODELS[name] == "sick" else list(disan.load(name).cfg.labels)


@pytest.mark.parametrize("name", PRESENT)
def test_the_app_lists_the_model_and_explore_draws_its_prediction_on_a_preset_of_its_task(name):
    sentence, hypothesis = _inputs(name)
    at = run_app(view="explore", model=name, sentence=sentence, **({"hypothesis": hypothesis} if hypothesis else {}))
    assert_clean(at)
    assert at.session_state["model"] == name and name in at.selectbox(key="model").options
    model = disan.load(name)
    trace = model.trace(sentence, hypothesis)
    predictions = [f["panels"][0]["view"] for f in charts(at)
                   if f.get("panels") and list(f["panels"][0]["view"].get("labels") or []) == _bars(name)]
    assert predictions, f"{name}: no prediction bars over {_bars(name)} on Explore"
    np.testing.assert_allclose(predictions[0]["values"], list(trace.prediction.values()), atol=1e-4)


@pytest.mark.parametrize("name", PRESENT)
def test_the_page_figures_of_the_report_name_its_classes_with_predict_s_probabilities(name):
    sentence, hypothesis = _inputs(name)
    model = disan.load(name)
    trace = model.trace(sentence, hypothesis)
    [page] = node_jobs([{"fn": "page", "args": [trace_view_json(trace), {"compact": False}]}])
    assert "error" not in page, page
    [out] = model.predict([(sentence, hypothesis) if hypothesis else sentence])
    if TASK_MODELS[name] == "sick":
        assert f"prediction: <b>relatedness {out:.2f} (1–5)</b>" in page["body"]
    else:
        assert f"prediction: <b>{max(out, key=out.get)}</b>" in page["body"]
    [panel] = page["data"]["figures"]["prediction"]["panels"]
    bar = panel["view"]
    assert bar["labels"] == _bars(name)
    np.testing.assert_allclose(bar["values"], list(trace.prediction.values()), atol=1e-6)
