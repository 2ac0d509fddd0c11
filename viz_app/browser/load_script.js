/* A classic script of another address added to the page once (the app's chart component: plotly.js and the
 * explorer folder's bundles); resolves once it ran. Chromium compiles a <script src> off the main thread while it
 * downloads (issue 19). */
const LOADED = new Map();

/** @param {string} src @returns {Promise<void>} */
export function loadScript(src) {
  if (!LOADED.has(src)) {
    LOADED.set(src, /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
      const el = document.createElement("script");
      el.src = src;
      el.async = true;
      el.onload = () => resolve();
      el.onerror = () => reject(new Error(`${src} could not be loaded`));
      document.head.appendChild(el);
    })));
  }
  return LOADED.get(src);
}
