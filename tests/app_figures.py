"""The app's per-sentence figures read from outside, through the figures' contract (docs/figure-components.md):
each figure's root carries ``data-figure="figure:<id>"`` and ``data-drawn="<n>:<tokens as JSON>"`` (set in the
same task as its pixels), each panel ``data-figure="heatmap:<id>/<panel>"`` (or ``bars:``), and every panel
has its data as a table (the ``<details>`` fallback a reader opens). No test reads a component's internals.
"""

from __future__ import annotations

import numpy as np

#: The figure root of the chart under Streamlit key ``chart_<key>``.
FIGURE = "key => document.querySelector(`.st-key-${key} [data-figure^='figure:']`)"

_OPEN = """([key, kind, index]) => {
  const fig = (%s)(key);
  const panel = fig && fig.querySelectorAll(`[data-figure^='${kind}:']`)[index];
  if (!panel) return false;
  const d = panel.querySelector('details');
  if (!d.open) d.open = true;
  return Boolean(d.querySelector('table'));
}""" % FIGURE

_TABLE = """([key, kind, index]) => {
  const panel = (%s)(key).querySelectorAll(`[data-figure^='${kind}:']`)[index];
  return [...panel.querySelector('details table').tBodies[0].rows].map(r => [...r.cells].slice(1).map(c => c.textContent));
}""" % FIGURE


def _number(text: str) -> float:
    if "masked" in text or text == "no value":
        return float("nan")
    return float(text.replace("−", "-").replace("∞", "inf"))


def panel_values(page, key: str, index: int, kind: str = "heatmap") -> np.ndarray:
    """The numbers panel ``index`` (of its kind, in page order) of chart ``chart_<key>`` shows, from its data
    table (six significant digits, ``components/text.mjs``); masked cells and missing values are NaN. A heatmap gives
    rows × columns, bars one column."""
    args = [f"chart_{key}", kind, index]
    page.wait_for_function(_OPEN, arg=args)
    return np.array([[_number(t) for t in row] for row in page.evaluate(_TABLE, args)], dtype=float)


def drawn(page, key: str) -> str | None:
    """``data-drawn`` of chart ``chart_<key>``'s figure, or None before it is drawn."""
    return page.evaluate(f"key => {{ const f = ({FIGURE})(key); return f ? f.dataset.drawn : null; }}", f"chart_{key}")


def wait_drawn_after(page, key: str, before: str | None) -> str:
    """Wait until chart ``chart_<key>``'s figure has drawn since ``before`` (its earlier ``data-drawn``)."""
    page.wait_for_function(f"([key, b]) => {{ const f = ({FIGURE})(key); return f && f.dataset.drawn !== b; }}",
                           arg=[f"chart_{key}", before])
    return drawn(page, key)


_PANELS = "f => [...f.querySelectorAll('[data-figure^=\"heatmap:\"], [data-figure^=\"bars:\"]')]"


def titles(page, key: str) -> str:
    """The figure's title line and each panel's title (its data table's caption; a panel draws its title on the
    canvas), as one text."""
    opened = f"""key => {{ const f = ({FIGURE})(key); if (!f) return false;
      return ({_PANELS})(f).every(p => {{ const d = p.querySelector('details'); if (!d.open) d.open = true;
                                         return Boolean(d.querySelector('table')); }}); }}"""
    page.wait_for_function(opened, arg=f"chart_{key}")
    return page.evaluate(f"""key => {{ const f = ({FIGURE})(key);
      return [f.querySelector('.disan-figure__title').textContent,
              ...({_PANELS})(f).map(p => p.querySelector('details table').caption.textContent)].join(' | '); }}""",
                         f"chart_{key}")


#: JS: the tokens chart ``key`` (a Streamlit key, ``chart_…``) shows now, from its figure's data-drawn ([] before
#: it is drawn or after a bad spec).
TOKENS = f"""key => {{ const f = ({FIGURE})(key), d = f && f.dataset.drawn;
  if (!d || d.endsWith(':error')) return [];
  return JSON.parse(d.slice(d.indexOf(':') + 1)) || []; }}"""

#: JS: ``[key, index]`` → the text of heatmap panel ``index``'s data table (rows of cell texts), or null while the
#: table is closed (``open_table`` opens it; once open it follows every update).
TABLE = f"""([key, index]) => {{ const f = ({FIGURE})(key);
  const p = f && f.querySelectorAll("[data-figure^='heatmap:']")[index], t = p && p.querySelector('details table');
  return t ? [...t.tBodies[0].rows].map(r => [...r.cells].slice(1).map(c => c.textContent)) : null; }}"""


def open_table(page, key: str, index: int = 0) -> None:
    """Open heatmap panel ``index``'s data table of chart ``chart_<key>`` (it then follows every update)."""
    page.wait_for_function(_OPEN, arg=[f"chart_{key}", "heatmap", index])


def parse(rows) -> np.ndarray:
    """A data table's cell texts (``TABLE``) as numbers; masked cells NaN."""
    return np.array([[_number(t) for t in row] for row in rows], dtype=float)
