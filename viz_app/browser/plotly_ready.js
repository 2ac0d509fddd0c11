/* plotly.js for the app's components (viz_app/shell/plotly_js.py): loaded once per page and shared through
 * window.__vizPlotly (the preloader's bundle and the chart bundle are two), by the preloader of the first script
 * run and by every chart (chart.js).
 *
 * A <script src> (load_script.js: compiled off the main thread, where text put into a <script> element is
 * compiled on it, about 0.6 s of a cold open on the 2-core benchmark machine: issue 19). Streamlit serves
 * app/static/*.js as JavaScript, as the chart bundle it serves there too needs (chart.py). Where static serving is
 * off, chart.py's inline component defines window.Plotly before this runs. */
import { loadScript } from "./load_script.js";

export function plotlyReady(url) {
  if (!window.__vizPlotly && window.Plotly) window.__vizPlotly = Promise.resolve(window.Plotly); // inlined (chart.py)
  if (!window.__vizPlotly) {
    const loading = loadScript(url).then(() => window.Plotly || Promise.reject(new Error(`${url}: no Plotly`)));
    window.__vizPlotly = loading;
    // a failed load (the server restarting, a dropped connection) is tried again by the next chart
    loading.catch(() => { if (window.__vizPlotly === loading) window.__vizPlotly = null; });
  }
  return window.__vizPlotly;
}
