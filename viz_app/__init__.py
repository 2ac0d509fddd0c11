"""Streamlit app that draws the attention traces of DiSAN (Shen et al. 2018) and the DSA (Im & Cho 2017).

Run from the repository root: ``streamlit run viz_app/app.py``. The pure
modules (``figures``, ``reduce``, ``records``, ``claims``, ``state``, ``presets``,
``theme``, ``text``, ``live``, ``report``, ``report_sections``) never import Streamlit;
``loaders``, ``session``, ``sidebar``, ``widgets``, ``export`` and ``views/`` do.
``disan/`` imports nothing from here at module level; only ``python -m disan report`` and
``ModelTrace.to_html`` / ``_repr_html_`` import ``viz_app.report``, when they are called.
"""
