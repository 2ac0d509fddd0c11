"""Code that draws without Streamlit: figure builders, payloads, the report and the static site."""
