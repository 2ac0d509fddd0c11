"""Streamlit app, offline report and static explorer that draw the attention traces of DiSAN (Shen et al. 2018)
and the DSA (Im & Cho 2017).

Two layers, one folder each:

- ``viz_app.draw``: code that draws without Streamlit — figure builders (``figures``, ``corpus_figures``),
  records and reductions of a trace, in-page payloads (``live``), the offline report and the static site.
  It never imports Streamlit.
- ``viz_app.shell``: the Streamlit shell — sidebar, session and URL state, loaders, the chart component,
  exports and the views (``shell/views/``). It only wires widgets to loaders and to ``viz_app.draw``.

``viz_app/app.py`` is the script Streamlit runs (``streamlit run viz_app/app.py``); ``browser/`` holds the
classic scripts both layers put in pages, ``static/`` what Streamlit serves. ``cli.py`` is the command line
(``python -m viz_app``, the installed ``disan``): the core's commands plus ``report``, ``site``, ``app`` and
``bench``. ``disan/`` imports nothing from here but ``viz_app.draw.report``, in one function that runs when a
trace draws itself (``disan.trace.drawing_backend``; tests/test_layers.py).
"""
