/* The standalone report and notebook view (viz_app/report.py): draws every figure with plotly.js,
 * redraws the live ones when a control moves, and moves between sections from the keyboard.
 * Every recomputed number comes from DisanRecompute (recompute.js, the code the app's charts run:
 * α by Im Eq. 7, feature k by Shen Eq. 15) through the figure's binding from viz_app/draw/live.py;
 * this file only wires controls to it. Plain classic script, no network. */
(function () {
  "use strict";

  function start(root, data) {
    const doc = root.ownerDocument;
    const state = { alpha: data.alpha, feature: 0, talk: false, busy: Promise.resolve(), queued: false };
    const payloads = {};
    for (const side of Object.keys(data.payloads)) payloads[side] = DisanRecompute.prepare(data.payloads[side]);
    const plots = Array.from(root.querySelectorAll(".plot[data-fig]"));
    const config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"] };

    function draw() {
      return plots.reduce((done, gd) => done.then(() => {
        const spec = data.figures[gd.dataset.fig];
        return Plotly.newPlot(gd, spec.data, spec.layout, config).then(() => {
          gd.__base = { font: (spec.layout.font || {}).size || data.fonts.normal, height: spec.layout.height,
                        annotations: (spec.layout.annotations || []).map(a => (a.font || {}).size) };
        });
      }), Promise.resolve());
    }

    /* Redraw every live figure for the controls' latest values. Redraws run one at a time, and events that
     * arrive meanwhile collapse into one more redraw, so a fast drag never falls behind the slider. */
    function redraw() {
      if (state.queued) return state.busy;
      state.queued = true;
      state.busy = state.busy.then(() => {
        state.queued = false;
        const values = { alpha: state.alpha, feature: state.feature };
        return Promise.all(plots.map(gd => {
          const info = data.live[gd.dataset.fig];
          if (!info) return null;
          const figure = DisanRecompute.render(payloads[info.side], info.binding, { data: gd.data, layout: gd.layout },
                                               values);
          return Plotly.react(gd, figure.data, figure.layout, config);
        })).then(() => { root.dataset.alpha = values.alpha; root.dataset.feature = values.feature; });
      });
      return state.busy;
    }

    function showWord(select) {
      const frame = data.words[select.dataset.side][+select.value];
      const gd = root.querySelector(`.plot[data-fig="s2t-${select.dataset.side}"]`);
      state.busy = state.busy.then(() => Plotly.restyle(gd, { z: [frame.z], zmin: [frame.zmin], zmax: [frame.zmax] }, [0])
        .then(() => Plotly.relayout(gd, { "annotations[0].text": frame.title })));
    }

    function bind() {
      for (const input of root.querySelectorAll('input[data-control="alpha"], input[data-control="feature"]')) {
        const key = input.dataset.control;
        state[key] = key === "alpha" ? +input.value : Math.round(+input.value);
        input.addEventListener("input", () => {
          state[key] = key === "alpha" ? +input.value : Math.round(+input.value);
          for (const other of root.querySelectorAll(`input[data-control="${key}"]`)) {
            other.value = input.value;
            other.nextElementSibling.textContent = input.value;
          }
          redraw();
        });
      }
      for (const select of root.querySelectorAll('select[data-control="word"]')) {
        select.addEventListener("change", () => showWord(select));
      }
    }

    function setTalk(on) {
      state.talk = on;
      doc.body.classList.toggle("talk", on);
      const button = doc.querySelector('[data-control="talk"]');
      if (button) button.setAttribute("aria-pressed", String(on));
      const scale = on ? data.fonts.talk / data.fonts.normal : 1;
      for (const gd of plots) {
        if (!gd.__base) continue;
        const update = { "font.size": Math.round(gd.__base.font * scale) };
        if (gd.__base.height) update.height = Math.round(gd.__base.height * scale);
        gd.__base.annotations.forEach((size, i) => {
          if (size) update[`annotations[${i}].font.size`] = Math.round(size * scale);
        });
        Plotly.relayout(gd, update).then(() => Plotly.Plots.resize(gd));
      }
    }

    function sections() { return Array.from(root.querySelectorAll(".section")); }

    function go(step) {
      const all = sections();
      const header = doc.querySelector("header");
      const top = header && getComputedStyle(header).position === "sticky" ? header.offsetHeight : 0;
      let current = 0;
      all.forEach((s, i) => { if (s.getBoundingClientRect().top <= top + 8) current = i; });
      const target = all[Math.max(0, Math.min(all.length - 1, step === "first" ? 0 : step === "last"
        ? all.length - 1 : current + step))];
      target.style.scrollMarginTop = `${top}px`;
      target.scrollIntoView({ block: "start" });
      target.focus({ preventScroll: true });
      history.replaceState(null, "", `#${target.id}${state.talk ? "-talk" : ""}`);
    }

    const KEYS = { j: 1, n: 1, ArrowRight: 1, PageDown: 1, k: -1, p: -1, ArrowLeft: -1, PageUp: -1,
                   Home: "first", End: "last" };

    function keyboard() {
      doc.addEventListener("keydown", ev => {
        if (ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
        if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
        if (ev.key === "t") { setTalk(!state.talk); ev.preventDefault(); return; }
        if (ev.key in KEYS) { go(KEYS[ev.key]); ev.preventDefault(); }
      });
      const button = doc.querySelector('[data-control="talk"]');
      if (button) button.addEventListener("click", () => setTalk(!state.talk));
    }

    bind();
    return draw().then(() => {
      if (!data.compact) {
        keyboard();
        if (/-talk$|^#talk$/.test(location.hash)) setTalk(true);
      }
      root.dataset.alpha = state.alpha;
      root.dataset.feature = state.feature;
      root.dataset.ready = "1";
    }).catch(err => {
      const box = doc.createElement("p");
      box.className = "error";
      box.textContent = `This report could not be drawn: ${err && err.message || err}`;
      root.prepend(box);
      throw err;
    });
  }

  /* gzip + base64 text (report.py `_packed`) → bytes, with the browser's own DecompressionStream. */
  function inflate(text) {
    const bin = atob(text.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).arrayBuffer().then(buffer => new Uint8Array(buffer));
  }

  function base64(bytes) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result.slice(reader.result.indexOf(",") + 1));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(new Blob([bytes]));
    });
  }

  /* A packed payload array {gz} back into live.py's own format {b64} (viz_app/report.py `packed_arrays`). */
  function unpackPayloads(payloads) {
    const jobs = [];
    for (const payload of Object.values(payloads)) {
      for (const block of Object.values(payload.blocks)) {
        for (const array of Object.values(block)) {
          if (!array || typeof array.gz !== "string") continue;
          jobs.push(inflate(array.gz).then(base64).then(b64 => { array.b64 = b64; delete array.gz; }));
        }
      }
    }
    return Promise.all(jobs);
  }

  /* Unpack plotly.js and the data, then draw. Every failure is shown on the page in one sentence. */
  function boot(doc) {
    const root = doc.getElementById("report");
    const fail = err => {
      console.error(err);
      const box = doc.createElement("p");
      box.className = "error";
      box.textContent = `This report could not be drawn: ${err && err.message || err}`;
      root.prepend(box);
    };
    if (typeof DecompressionStream === "undefined") {
      fail("this browser cannot unpack it (no DecompressionStream); open it in a current Chrome, Edge, Firefox or Safari");
      return Promise.resolve();
    }
    const text = id => inflate(doc.getElementById(id).textContent).then(b => new TextDecoder().decode(b));
    return text("plotly-js").then(source => {
      const script = doc.createElement("script");
      script.textContent = source;
      doc.head.appendChild(script);
      return text("report-data");
    }).then(json => {
      const data = JSON.parse(json);
      return unpackPayloads(data.payloads).then(() => start(root, data));
    }).catch(fail);
  }

  window.DisanReport = { boot, start };
})();
