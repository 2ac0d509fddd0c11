/* The app's preloader component (viz_app/shell/plotly_js.py): plotly.js fetched once per page, on the first
 * script run, before any chart needs it. */
import { plotlyReady } from "./plotly_ready.js";

/** @param {{data: {plotly_url: string}}} component */
export default function (component) {
  plotlyReady(component.data.plotly_url);
}
