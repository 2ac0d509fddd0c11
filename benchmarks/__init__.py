"""Benchmarks of the model and the app, outside the model package (``disan/`` holds only the model).

``python -m viz_app bench`` (a thin entry point) and ``python -m benchmarks`` run ``cli.main``:
trace latency (``trace.py``), batch prediction (``predict.py``), training throughput
(``train.py``) and app latency in headless Chromium (``app.py``, with the Streamlit
server of ``server.py``). ``--markdown docs/benchmarks.md`` writes the report (``report.py``)
with every target met or missed (``verdicts.py``).
"""
