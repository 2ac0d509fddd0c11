/* The palettes and themes of today's figures (viz_app/draw/theme.py), for the canvas components.
 *
 * The colour stops are Plotly's, exactly as viz_app.draw.site_view.figure_context() writes them, so a cell
 * has the colour it has in the Plotly figures; tests/test_figure_components.py asserts both tables equal
 * figure_context()'s, so they cannot drift. A host that has the figure context may pass its stops instead. */

export const PALETTES = Object.freeze({
  Viridis: [[0.0, "#440154"], [0.1111111111111111, "#482878"], [0.2222222222222222, "#3e4989"],
    [0.3333333333333333, "#31688e"], [0.4444444444444444, "#26828e"], [0.5555555555555556, "#1f9e89"],
    [0.6666666666666666, "#35b779"], [0.7777777777777777, "#6ece58"], [0.8888888888888888, "#b5de2b"],
    [1.0, "#fde725"]],
  Cividis: [[0.0, "#00224e"], [0.1111111111111111, "#123570"], [0.2222222222222222, "#3b496c"],
    [0.3333333333333333, "#575d6d"], [0.4444444444444444, "#707173"], [0.5555555555555556, "#8a8678"],
    [0.6666666666666666, "#a59c74"], [0.7777777777777777, "#c3b369"], [0.8888888888888888, "#e1cc55"],
    [1.0, "#fee838"]],
  RdBu: [[0.0, "rgb(103,0,31)"], [0.1, "rgb(178,24,43)"], [0.2, "rgb(214,96,77)"],
    [0.30000000000000004, "rgb(244,165,130)"], [0.4, "rgb(253,219,199)"], [0.5, "rgb(247,247,247)"],
    [0.6000000000000001, "rgb(209,229,240)"], [0.7000000000000001, "rgb(146,197,222)"], [0.8, "rgb(67,147,195)"],
    [0.9, "rgb(33,102,172)"], [1.0, "rgb(5,48,97)"]],
  PuOr: [[0.0, "rgb(127,59,8)"], [0.1, "rgb(179,88,6)"], [0.2, "rgb(224,130,20)"],
    [0.30000000000000004, "rgb(253,184,99)"], [0.4, "rgb(254,224,182)"], [0.5, "rgb(247,247,247)"],
    [0.6000000000000001, "rgb(216,218,235)"], [0.7000000000000001, "rgb(178,171,210)"], [0.8, "rgb(128,115,172)"],
    [0.9, "rgb(84,39,136)"], [1.0, "rgb(45,0,75)"]],
});

/* Okabe & Ito (2008), theme.OKABE_ITO: categorical colours safe for the common colour-vision deficiencies. */
const OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

/* theme.NORMAL and theme.PRESENTATION (talk mode: bigger text, Cividis / PuOr), less Plotly's template name. */
export const THEMES = Object.freeze({
  normal: { name: "normal", font_size: 13, sequential: "Viridis", diverging: "RdBu", categorical: OKABE_ITO,
    masked: "#d9d9d9", cell_height: 24 },
  presentation: { name: "presentation", font_size: 20, sequential: "Cividis", diverging: "PuOr",
    categorical: OKABE_ITO, masked: "#ffffff", cell_height: 34 },
});

/* A theme object from its name ("normal", "presentation", or "talk" for the latter) or the object itself. */
export function themeOf(nameOrTheme) {
  if (nameOrTheme && typeof nameOrTheme === "object") return nameOrTheme;
  const name = nameOrTheme === "talk" ? "presentation" : nameOrTheme || "normal";
  const theme = THEMES[name];
  if (!theme) throw new Error(`unknown theme ${JSON.stringify(nameOrTheme)}: use "normal" or "presentation"`);
  return theme;
}
