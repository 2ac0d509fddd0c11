/* The app's trace views by id (viz_app/shell/chart.py sends each once per session, with the first chart that
 * draws it): kept here for every chart of the page, the newest VIEW_KEEP, and waited for by the charts that name
 * one before it came. One store per page: chart.py's loader imports the chart bundle once. */
const VIEW_KEEP = 16;
/* How long a chart waits for a view before it asks the server (a chart of the same rerun may carry it); each ask
 * after that waits a step longer (a rerun that computes attributions takes seconds on a busy machine). */
export const VIEW_WAIT_MS = 3000;
/* How many times a chart asks for a view before it gives up. */
const ASKS = 5;

const byId = new Map(), waiting = new Map();

/** @param {string} id @param {any} view */
export function keepView(id, view) {
  byId.delete(id);
  byId.set(id, view);
  while (byId.size > VIEW_KEEP) byId.delete(byId.keys().next().value);
  for (const resolve of waiting.get(id) || []) resolve(view);
  waiting.delete(id);
}

/* The trace view `id`: kept, or waited for `ms`; null when none comes. */
function viewById(id, ms) {
  if (byId.has(id)) return Promise.resolve(byId.get(id));
  return new Promise(resolve => {
    waiting.set(id, (waiting.get(id) || []).concat(resolve));
    setTimeout(() => resolve(null), ms);
  });
}

/**
 * The views `ids`, in order. A missing one is asked of the server (`ask(id)`: chart.py ASKED_VIEWS, which the
 * asking chart carries on the next rerun) and waited for again, up to ASKS times while `wanted()`: the rerun that
 * carries it may be cut short, or its message replaced before the page rendered it, and Streamlit renders a chart
 * again only when its message changes, so a chart that asked once could wait forever (test_app_latency_rows'
 * "submit → attribution heatmaps" timed out once on CI). `loading()` runs before the first ask. Resolves null
 * when a view never came or the chart stopped wanting it.
 * @param {string[]} ids
 * @param {{ask: (id: string) => void, wanted: () => boolean, loading: () => void}} how
 * @returns {Promise<any[] | null>}
 */
export async function viewsOf(ids, { ask, wanted, loading }, waitMs = VIEW_WAIT_MS) {
  for (let asked = 0; ; asked += 1) {
    const views = await Promise.all(ids.map(id => viewById(id, waitMs * (asked + 1))));
    const missing = ids.find((id, i) => !views[i]);
    if (!missing) return views;
    if (asked === ASKS || !wanted()) return null;
    if (!asked) loading();
    ask(missing);
  }
}
