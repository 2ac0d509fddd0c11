"""Evidence's layout (issue 58, item 5): the two gate claims' panel titles do not overlap, the models' names
are not drawn into a plot, and the Verdict table's columns are wide enough for their cells.

The figure is drawn by plotly.js in headless Chromium at the widths the app gives it, and the boxes of what
it drew (its SVG elements on the page, no field of plotly.js's own state) are compared."""

from __future__ import annotations

from pathlib import Path

import plotly
import pytest

from disan.claims import GATE_CLAIMS, claim_by_id
from tests.conftest import offline_page
from viz_app.draw import corpus_figures as cf
from viz_app.draw.theme import NORMAL, PRESENTATION
from viz_app.shell.results import forest_rows, read_results, verdict_column_config, verdict_table

pytestmark = pytest.mark.slow

PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"

BOXES = """async ([fig, width]) => {
  const gd = document.createElement('div'); gd.style.width = width + 'px'; document.body.replaceChildren(gd);
  await Plotly.newPlot(gd, fig.data, fig.layout, {responsive: false});
  const box = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    titles: Array.from(gd.querySelectorAll('.annotation'), box),
    title: box(gd.querySelector('.gtitle')),
    // each subplot's plot area as drawn: the rectangle plotly.js lays over it to take pointer drags
    subplots: Array.from(gd.querySelectorAll('.draglayer .nsewdrag'), box),
    yticks: Array.from(gd.querySelectorAll('.ytick text'), box),
  };
}"""


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.fixture(scope="module")
def results():
    results = read_results()
    if not any(forest_rows(results, cid) for cid in GATE_CLAIMS):
        pytest.skip("no stored gate-claim results in pretrained/")
    return results


def _gate_figure(results, theme):
    """What ``evidence.gate_section`` draws."""
    panels = []
    for claim_id in GATE_CLAIMS:
        c = claim_by_id(claim_id)
        side = "below" if c.direction < 0 else "above"
        panels.append(cf.ForestPanel(f"{c.figure}: supported {side} 0", forest_rows(results, claim_id), c.no_effect,
                                     "stop − content" if c.direction < 0 else "'of','.' − content"))
    return cf.forest_plot(panels, title="The two papers' gate claims, side by side", theme=theme)


@pytest.mark.parametrize("theme, width", [(NORMAL, 700), (NORMAL, 1000), (PRESENTATION, 1000)])
def test_the_gate_panels_titles_and_model_names_stay_apart(results, theme, width):
    import json

    fig = json.loads(_gate_figure(results, theme).to_json())
    with offline_page({"path": str(PLOTLY_JS)}) as page:
        got = page.evaluate(BOXES, [fig, width])
    titles, plots, yticks = got["titles"], got["subplots"], got["yticks"]
    assert len(titles) == 2 and len(plots) == 2
    assert not _overlap(titles[0], titles[1]), titles
    assert all(not _overlap(t, got["title"]) for t in titles), (titles, got["title"])
    # the titles fit the figure and sit over their own panel
    assert all(t[0] >= 0 and t[2] <= width + 8 for t in titles), titles  # (the page's 8 px body margin)
    assert titles[0][2] <= plots[1][0] + 1 and titles[1][0] >= plots[0][2] - 1, (titles, plots)
    # every model named once, left of both plots, none drawn into one
    assert len(yticks) == len({r.label for cid in GATE_CLAIMS for r in forest_rows(results, cid)})
    assert all(not _overlap(t, p) for t in yticks for p in plots), (yticks, plots)


def test_the_verdict_tables_columns_fit_their_cells(results):
    table = verdict_table(results)
    config = verdict_column_config(table)
    for column in table.columns:  # each column as wide as its own longest cell (the models' cells differ)
        longest = max(len(str(v)) for v in table[column])
        width = config[column]["width"]
        assert isinstance(width, int) and width >= 7.5 * longest, (column, width, longest)
    assert config["_index"]["pinned"] is True


def test_the_evidence_view_gives_its_verdict_table_the_column_widths(results):
    import json

    from tests.test_app import assert_clean, run_app

    at = run_app(view="evidence", model="disan-sst5")
    assert_clean(at)
    table = verdict_table(results)
    want = verdict_column_config(table)
    shown = next(json.loads(d.proto.columns) for d in at.dataframe if d.proto.columns.startswith('{"_index": {"label": "claim"'))
    assert {k: v["width"] for k, v in shown.items()} == {k: v["width"] for k, v in want.items()}
