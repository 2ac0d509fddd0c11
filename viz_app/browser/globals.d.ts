// What the page code finds around it rather than imports: plotly.js (a classic script the page loads), the
// static explorer's data scripts (viz_app/draw/site.py writes them), onnxruntime-web in the worker, and the
// worker bundle's text that scripts/build_browser.mjs hands site.js.
declare const Plotly: any;
declare const ort: any;
interface Window {
  Plotly: any;
  Disan: any;
  DisanSiteData: any;
  DisanSiteModels: any;
  DisanSiteStart: any;
  DisanSiteSearch: any;
  DisanOrtRuntime: any;
  // the app's state shared by every chart component's module on the page (chart.js, plotly_ready.js)
  __disanLive: any;
  __disanTyping: any;
  __disanLiveInput: any;
  __vizPlotly: Promise<any>;
}
declare module "disan:worker" {
  const text: string;
  export default text;
}
