"""Streamlit app, offline report and static explorer that draw the attention traces of DiSAN (Shen et al. 2018)
and the DSA (Im & Cho 2017).

Two layers, one folder each:

- ``viz_app.draw``: code that draws without Streamlit — figure builders (``figures``, ``corpus_figures``),
  records and reductions of a trace, in-page payloads (``live``), the offline report and the static site.
  It never imports Streamlit.
- ``viz_app.shell``: the Streamlit shell — sidebar, session and URL state, loaders, the chart component,
  exports and the views (``shell/views/``). It only wires widgets to loaders and to ``viz_app.draw``.

``viz_app/app.py`` is the script Streamlit runs (``streamlit run viz_app/app.py``); ``browser/`` holds the
classic scripts both layers put in pages, ``static/`` what Streamlit serves. ``disan/`` imports nothing from
here at module level; only ``python -m disan report`` and ``ModelTrace.to_html`` / ``_repr_html_`` import
``viz_app.draw.report``, when they are called.
"""
