"""The Streamlit shell: sidebar, session and URL state, loaders, chart component, exports and the views.

It wires widgets to the loaders and to the pure builders in ``viz_app.draw``; the entry script Streamlit runs
is ``viz_app/app.py``.
"""
