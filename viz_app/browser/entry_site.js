/* The static explorer's bundle (viz_app/draw/site.py copies it into the folder as assets/site.js): its one global,
 * `Disan`, is this module: the report's modules (entry_report.js) and the explorer's own. index.html calls
 * `Disan.preload()`; the app's Explore runs the model with `Disan.Site` (chart.js); tests reach every module here. */
import * as Site from "./site.js";
import * as SitePair from "./site_pair.js";
import * as SiteSearch from "./site_search.js";

export * from "./entry_report.js";
export * as Tokenize from "./tokenize.js";
export * as SearchQuery from "./search_query.js";
export * as SearchSignature from "./search_signature.js";
export { Site, SitePair, SiteSearch };

/** The page's start: the Pair and Search modes' controls bound (before site.js reads the address), then the page. */
export function preload() {
  SitePair.bind();
  SiteSearch.bind();
  Site.use(SitePair, SiteSearch);
  return Site.preload();
}
