"""report.js on the typing path (issue 54, item 6: no main-thread task over 50 ms while typing): a typed sentence's
page (``Report.show`` with ``typing``) and its early maps (``Report.preview``) read which figures are on screen from
an IntersectionObserver's record, never by measuring the page the key just changed (``getBoundingClientRect`` forces
a synchronous layout in the key's task). Shown on a report file, whose sticky header covers the figures under it."""

from __future__ import annotations

import pytest

from tests.test_report_browser import DISAN, SENTENCE, open_offline, write  # noqa: F401  (open_offline: fixture)

pytestmark = pytest.mark.browser

#: The report's own page again, shown as a typed sentence (and previewed), with every layout read counted.
TYPED_AGAIN = """async () => {
  const root = document.getElementById('report');
  const unpack = async id => {
    const bytes = Uint8Array.from(atob(document.getElementById(id).textContent.trim()), c => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  };
  const data = JSON.parse(new TextDecoder().decode(await unpack('report-data')));
  const tv = Disan.TraceView.decode(data.view, await unpack('report-arrays'));
  const page = Disan.Sections.page(tv, {compact: data.compact, only: data.only, params: data.params});
  const measure = Element.prototype.getBoundingClientRect;
  let reads = 0;
  Element.prototype.getBoundingClientRect = function () { reads += 1; return measure.call(this); };
  try {
    await Disan.Report.show(root, page, {typing: true});
    await Disan.Report.preview(root, () => null);
  } finally {
    Element.prototype.getBoundingClientRect = measure;
  }
  const header = document.querySelector('header').getBoundingClientRect().bottom;
  const figures = [...root.querySelectorAll('.plot[data-fig]')].map(el => {
    const r = el.getBoundingClientRect();
    return {fig: el.dataset.fig, stale: el.classList.contains('stale'), seen: r.bottom > header && r.top < innerHeight};
  });
  return {reads, figures};
}"""


def test_a_typed_page_reads_no_layout_and_draws_the_figures_on_screen_now(tmp_path, open_offline):  # noqa: F811
    page, blocked, errors = open_offline(write(tmp_path, "disan", DISAN, SENTENCE), width=1400)
    page.set_viewport_size({"width": 1400, "height": 900})
    # a section part way down: figures above the window, under the sticky header, in the window and below it
    page.evaluate("() => document.querySelector('.plot[data-fig=\"mean-premise\"]').scrollIntoView()")
    page.wait_for_timeout(500)  # the observers' first records
    got = page.evaluate(TYPED_AGAIN)
    assert got["reads"] == 0, got  # no forced layout on the typing path
    seen = [f for f in got["figures"] if f["seen"]]
    assert seen and not any(f["stale"] for f in seen), got  # on screen: drawn for the typed page in its task
    assert any(f["stale"] for f in got["figures"] if not f["seen"]), got  # off screen: hidden until typing rests
    # once typing rests (report.js REST_MS) every figure is drawn; one scrolled into view meanwhile is drawn too
    page.wait_for_function("() => !document.querySelector('#report .plot.stale')", timeout=10_000)
    assert blocked == [] and errors == [], (blocked, errors)
