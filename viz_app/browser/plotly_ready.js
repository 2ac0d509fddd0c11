/* plotly.js for the app's components (viz_app/shell/plotly_js.py): fetched once per page and shared through
 * window.__vizPlotly, by the preloader of the first script run and by every chart (chart.js). */
function plotlyReady(url) {
  if (!window.__vizPlotly) {
    // Fetched as text: Streamlit serves unknown types as text/plain with nosniff, which a <script src> would refuse.
    window.__vizPlotly = fetch(url)
      .then(r => { if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`); return r.text(); })
      .then(src => { const s = document.createElement("script"); s.textContent = src;
                     document.head.appendChild(s); return window.Plotly; });
  }
  return window.__vizPlotly;
}
