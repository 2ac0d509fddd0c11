"""Streamlit app that draws the attention traces of DiSAN (Shen et al. 2018) and the DSA (Im & Cho 2017).

Run from the repository root: ``streamlit run viz_app/app.py``. ``figures.py``
and the other non-view modules are plain Python and import without Streamlit
running; ``disan/`` never imports anything from here.
"""
