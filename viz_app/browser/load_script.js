/* A classic script of another address added to the page once (the app's chart component: plotly.js and the
 * explorer folder's bundles; the static explorer: its model, stored-run and search files); resolves once it ran.
 * Chromium compiles a <script src> off the main thread while it downloads (issue 19). A script that failed is
 * tried again by the next call. `fix`: the command that writes the file, named in the error. */
const LOADED = new Map();

/** @param {string} src @param {string} [fix] @returns {Promise<void>} */
export function loadScript(src, fix) {
  if (!LOADED.has(src)) {
    LOADED.set(src, /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = src;
      el.async = true;
      el.onload = () => resolve();
      el.onerror = () => {
        LOADED.delete(src);
        reject(new Error(fix ? `the file ${src} is missing from this folder; rebuild it with ${fix}`
          : `${src} could not be loaded`));
      };
      document.head.appendChild(el);
    })));
  }
  return LOADED.get(src);
}
