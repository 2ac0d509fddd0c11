"""The plotly.js the app and the static explorer load (viz_app/draw/plotly_bundle.py) draws every figure."""

from __future__ import annotations

import re
from pathlib import Path

import plotly.graph_objects as go
import pytest

from tests.conftest import offline_page
from viz_app.draw import plotly_bundle as pb

DRAW = Path(pb.__file__).resolve().parent


def test_trace_types_lists_every_trace_the_figures_use():
    """Every plotly trace type named in viz_app/draw is in TRACE_TYPES (the list the bundle is checked against)."""
    known = set(go.Figure()._data_validator.class_strs_map)
    used = {t for path in DRAW.glob("*.py") for t in re.findall(r'"type": "(\w+)"', path.read_text(encoding="utf-8"))
            if t in known}
    assert used and used <= set(pb.TRACE_TYPES), sorted(used - set(pb.TRACE_TYPES))


def test_the_built_bundle_is_chosen_only_at_the_figures_version(tmp_path, monkeypatch):
    monkeypatch.setattr(pb, "NODE_MODULES", tmp_path)
    assert pb.plotly_bundle() == pb.PLOTLY_JS  # not installed: the plotly package's full bundle
    bundle = tmp_path / pb.PLOTLY_BUNDLE[0] / pb.PLOTLY_BUNDLE[1]
    bundle.parent.mkdir(parents=True)
    bundle.write_text("/**\n* plotly.js (disan: scatter, bar, heatmap - minified) v0.0.1\n*/\n")
    assert pb.plotly_bundle() == pb.PLOTLY_JS  # another version: not used
    bundle.write_text(f"/**\n* plotly.js (disan: scatter, bar, heatmap - minified) v{pb.plotly_version(pb.PLOTLY_JS)}\n*/\n")
    assert pb.plotly_bundle() == bundle


@pytest.mark.browser
def test_the_chosen_bundle_draws_every_trace_type():
    """Each trace type, with the error bars, shapes and annotations the figures use, is drawn by the bundle."""
    with offline_page() as page:
        page.set_content("<!doctype html><body><div id=g style='width:400px;height:300px'></div></body>")
        page.add_script_tag(path=str(pb.plotly_bundle()))
        drawn = page.evaluate("""async (types) => {
          const data = types.map((type, i) => ({type, x: [0, 1], y: [1, 2], z: [[1, 2], [3, 4]],
                                                error_x: type === 'scatter' ? {type: 'data', array: [0.1, 0.2]} : undefined,
                                                xaxis: 'x' + (i + 1), yaxis: 'y' + (i + 1)}));
          const layout = {grid: {rows: 1, columns: types.length, pattern: 'independent'},
                          shapes: [{type: 'line', x0: 0, x1: 1, y0: 0, y1: 1}], annotations: [{text: 'a', x: 0, y: 0}]};
          const gd = document.getElementById('g');
          await Plotly.newPlot(gd, data, layout);
          // each type by what it drew (a type the bundle lacks draws nothing in its layer)
          return {scatter: gd.querySelectorAll('.scatterlayer .trace .point').length, errorbars: gd.querySelectorAll('.errorbar').length,
                  heatmaps: gd.querySelectorAll('.hm image').length, bars: gd.querySelectorAll('.bars .point').length,
                  shapes: gd.querySelectorAll('.shapelayer path').length};
        }""", list(pb.TRACE_TYPES))
    assert set(pb.TRACE_TYPES) == {"heatmap", "bar", "scatter"}  # each one checked below
    assert drawn["scatter"] >= 2
    assert drawn["errorbars"] >= 1 and drawn["heatmaps"] >= 1 and drawn["bars"] >= 1 and drawn["shapes"] >= 1


def test_the_built_bundle_asks_to_be_compiled_as_it_loads():
    """The built bundle opens with V8's explicit compile hint (scripts/plotly_bundle.mjs): the first drawing does not
    compile plotly.js's code on the page's thread."""
    bundle = pb.plotly_bundle()
    if bundle == pb.PLOTLY_JS:
        pytest.skip("plotly.js is not built in this checkout (npm ci, run by scripts/setup.sh, builds it)")
    with bundle.open(encoding="utf-8") as f:
        assert f.readline().rstrip("\n") == "//# allFunctionsCalledOnLoad"
