/* A figure's exports: PNG (its layers painted again at twice the resolution, the provenance in tEXt chunks),
 * SVG as vectors (the same painting code on the SVG painter), JSON and CSV of its data. */
import { FONT_FAMILY, canvasPainter, svgPainter } from "./painter.mjs";
import { pngWithText } from "./png.mjs";
import { figureJson, provenanceLine, provenanceOf, svgDocument } from "./exportText.mjs";

export const EXPORT_KINDS = ["png", "svg", "json", "csv"];
const MIME = { png: "image/png", svg: "image/svg+xml", json: "application/json", csv: "text/csv" };

/* {filename, mime, data (Blob or string)}. fig: {id ("heatmap:x"), provenance, width, height, title,
 * paint(painter) (every layer), measure, data() (JSON fields), csv(prov)}. */
export async function exportFigure(kind, fig) {
  if (!EXPORT_KINDS.includes(kind)) throw new Error(`unknown export ${JSON.stringify(kind)}: use ${EXPORT_KINDS.join(", ")}`);
  const prov = provenanceOf(fig.id, fig.provenance);
  const filename = `${fig.id.replace(/[^\w.-]+/g, "_")}.${kind}`;
  let data;
  if (kind === "svg") {
    const p = svgPainter(fig.measure);
    fig.paint(p);
    data = svgDocument(prov, fig.width, fig.height, fig.title, p.body(), FONT_FAMILY);
  } else if (kind === "png") {
    const scale = Math.max(2, window.devicePixelRatio || 1);
    const canvas = new OffscreenCanvas(Math.round(fig.width * scale), Math.round(fig.height * scale));
    const ctx = canvas.getContext("2d");
    ctx.scale(scale, scale);
    fig.paint(canvasPainter(ctx));
    const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: "image/png" })).arrayBuffer());
    data = new Blob([pngWithText(bytes, [["Comment", provenanceLine(prov)], ["Software", "DiSAN figure components"]])],
      { type: MIME.png });
  } else if (kind === "json") {
    data = figureJson(prov, fig.data());
  } else {
    data = fig.csv(prov);
  }
  return { filename, mime: MIME[kind], data };
}

/* Save an export through the browser's download (an <a download> clicked once). */
export function download({ filename, mime, data }) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type: mime }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
