// The browser half of course.widgets.TreeView: lay out the DOT that Python built with Graphviz
// compiled to WebAssembly (the vendored Viz.js), and show it in a pan/zoom viewport.
//
// Python owns the picture (trait `dot`); this module owns the view: zoom and position, the
// toolbar (fit, readable size, -, +), the legend, the dark-theme filter, and the transition
// from one picture to the next (nodes glide to their new places).  A new `dot` is framed as
// the reader last chose: the initial view again (fit when that keeps every label readable, else
// readable and centred on the root), fit or readable after those buttons, or the same zoom and
// position once they zoomed, panned or clicked a node.  Viz.js is asked from the kernel once per page (a custom message answered with the
// bundle as a binary buffer) and shared by every TreeView of the page.

const MAX_ZOOM = 4;
const MIN_ZOOM = 0.05;
const FIT_MAX = 1.5;          // a small tree is enlarged at most this much by "fit"
const PAD = 8;                // px kept free around a fitted picture

// One Viz instance per page, whichever widget asked first.
function loadViz(model) {
  const g = globalThis;
  if (g.__courseViz) return g.__courseViz;
  g.__courseViz = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off("msg:custom", onMessage);
      reject(new Error("the kernel did not send the Graphviz module (is it running?)"));
    }, 30000);
    async function onMessage(msg, buffers) {
      if (!msg || msg.type !== "viz-bundle") return;
      clearTimeout(timer);
      model.off("msg:custom", onMessage);
      const url = URL.createObjectURL(new Blob([buffers[0]], { type: "text/javascript" }));
      try {
        const module = await import(/* webpackIgnore: true */ url);
        resolve(await module.instance());
      } catch (error) {
        reject(error);
      } finally {
        URL.revokeObjectURL(url);
      }
    }
    model.on("msg:custom", onMessage);
    model.send({ type: "viz-bundle?" });
  });
  g.__courseViz.catch(() => { g.__courseViz = null; });   // let a later widget try again
  return g.__courseViz;
}

const CSS = `
.course-tree-view { font-family: var(--jp-ui-font-family, sans-serif); font-size: 13px;
  color: var(--jp-ui-font-color1, #222); }
.course-tree-view .ctv-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 4px;
  margin: 2px 0 4px 0; }
.course-tree-view .ctv-bar button { font: inherit; padding: 2px 10px; min-width: 2.2em;
  white-space: nowrap; cursor: pointer; border-radius: 3px;
  border: 1px solid var(--jp-border-color1, #bbb);
  background: var(--jp-layout-color2, #f3f3f3); color: var(--jp-ui-font-color1, #222); }
.course-tree-view .ctv-bar button:hover { background: var(--jp-layout-color3, #e3e3e3); }
.course-tree-view .ctv-zoom { min-width: 3.5em; text-align: right; font-variant-numeric: tabular-nums; }
.course-tree-view .ctv-hint { color: var(--jp-ui-font-color2, #666); font-size: 12px; margin-left: 6px; }
.course-tree-view .ctv-port { position: relative; overflow: hidden; cursor: grab;
  border: 1px solid var(--jp-border-color2, #e0e0e0); background: white; touch-action: none; }
.course-tree-view .ctv-port.ctv-dragging { cursor: grabbing; }
.course-tree-view .ctv-port > svg { position: absolute; left: 0; top: 0; transform-origin: 0 0;
  max-width: none; }
.course-tree-view .ctv-port g.node { cursor: pointer; }
.course-tree-view.ctv-dark .ctv-port { filter: invert(0.9) hue-rotate(180deg); }
.course-tree-view .ctv-error { color: #b00020; white-space: pre-wrap; }
.course-tree-view details.ctv-legend { margin-top: 4px; }
.course-tree-view .ctv-legend summary { cursor: pointer; color: var(--jp-ui-font-color2, #555); }
.course-tree-view .ctv-items { display: flex; flex-wrap: wrap; gap: 4px 16px; margin-top: 4px; }
.course-tree-view .ctv-item { display: inline-flex; align-items: center; gap: 5px; }
.course-tree-view .ctv-item svg { flex: none; }
.course-tree-view.ctv-dark .ctv-item svg { filter: invert(0.9) hue-rotate(180deg); }
`;

// The legend: what shapes and line styles mean (the same conventions as course.draw.style).
const ICON = (body) =>
  `<svg width="26" height="20" viewBox="0 0 26 20" aria-hidden="true">${body}</svg>`;
const LEGEND = [
  [ICON('<polygon points="13,2 24,18 2,18" fill="#D4ECFA" stroke="#000"/>'), "MAX node"],
  [ICON('<polygon points="2,2 24,2 13,18" fill="#FBE5BD" stroke="#000"/>'), "MIN node"],
  [ICON('<circle cx="13" cy="10" r="8" fill="#FAF5C4" stroke="#000"/>'), "CHANCE node (probabilities on its edges)"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#fff" stroke="#000"/>'), "leaf: utility, #k = k-th evaluated"],
  [ICON('<rect x="5" y="5" width="17" height="12" fill="#EFEFEF" stroke="#000"/><path d="M5 5 l3 -3 h17 v12 l-3 3" fill="none" stroke="#000"/>'), "… n leaves: subtree summarised"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#F4F4F4" stroke="#8C8C8C" stroke-dasharray="3,2"/>'), "dashed, faded: pruned"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#fff" stroke="#ABABAB" stroke-dasharray="1,2"/>'), "dotted: not reached yet"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#fff" stroke="#D55E00" stroke-width="3"/>'), "thick outline: current step"],
  [ICON('<line x1="2" y1="10" x2="24" y2="10" stroke="#0072B2" stroke-width="4"/>'), "bold: the chosen move"],
  ['<b style="color:#D55E00">cut</b>', "a cut-off: the dashed edges to its right were skipped"],
  ["<span>α β</span>", "the window a node was searched with; [L, U]: bounds"],
];

function svgSize(svg) {
  const box = svg.viewBox && svg.viewBox.baseVal;
  if (box && box.width > 0) return [box.width, box.height];
  return [parseFloat(svg.getAttribute("width")) || 100, parseFloat(svg.getAttribute("height")) || 100];
}

function smallestFont(svg) {
  let smallest = Infinity;
  for (const text of svg.querySelectorAll("text")) {
    const size = parseFloat(text.getAttribute("font-size"));
    if (size > 0 && size < smallest && text.textContent.trim()) smallest = size;
  }
  return Number.isFinite(smallest) ? smallest : 10;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "course-tree-view";
  const style = document.createElement("style");
  style.textContent = CSS;
  const bar = document.createElement("div");
  bar.className = "ctv-bar";
  const button = (text, title, action) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.title = title;
    b.addEventListener("click", action);
    bar.appendChild(b);
    return b;
  };
  const port = document.createElement("div");
  port.className = "ctv-port";
  const message = document.createElement("div");
  message.className = "ctv-error";
  const legend = document.createElement("details");
  legend.className = "ctv-legend";
  legend.innerHTML = "<summary>legend</summary><div class='ctv-items'>" +
    LEGEND.map(([icon, text]) => `<span class="ctv-item">${icon}<span>${text}</span></span>`).join("") +
    "</div>";
  root.append(style, bar, port, message, legend);
  el.appendChild(root);

  // view state: natural size of the picture (user units), zoom k (px per unit), offset (px)
  let svg = null, width = 1, height = 1, k = 1, x = 0, y = 0;
  let portH = 120;            // the viewport's height as last set (px)
  // How a new picture is framed: "auto" (the initial view), "fit" or "readable" (the reader
  // pressed that button: done again for each new picture), "kept" (the reader zoomed, panned or
  // clicked a node: zoom and position stay).
  let mode = "auto";
  let pending = null;         // the newest DOT waiting for layout
  let drawing = false;
  let disposed = false;

  const zoomText = document.createElement("span");
  zoomText.className = "ctv-zoom";
  button("fit", "show the whole picture", () => { mode = "fit"; frame(); });
  button("readable", "zoom so that every label is at least the readable size, root in view",
         () => { mode = "readable"; frame(); });
  button("−", "zoom out", () => zoomBy(1 / 1.25));
  button("+", "zoom in", () => zoomBy(1.25));
  bar.appendChild(zoomText);
  const hint = document.createElement("span");
  hint.className = "ctv-hint";
  hint.textContent = "drag to pan · Ctrl+wheel to zoom · click a node to focus its subtree";
  bar.appendChild(hint);

  function portWidth() {
    return port.clientWidth || el.clientWidth || 800;
  }
  function maxHeight() {
    return model.get("max_height") || 480;
  }
  function readableZoom() {
    return svg ? (model.get("min_label_px") || 10) / smallestFont(svg) : 1;
  }
  function apply() {
    if (!svg) return;
    svg.style.width = `${width * k}px`;
    svg.style.height = `${height * k}px`;
    svg.style.transform = `translate(${x}px, ${y}px)`;
    zoomText.textContent = `${Math.round(k * 100)}%`;
  }
  function setHeight(h) {
    portH = Math.round(Math.max(120, Math.min(maxHeight(), h)));
    port.style.height = `${portH}px`;
  }
  function fitZoom() {
    return Math.min((portWidth() - 2 * PAD) / width, (maxHeight() - 2 * PAD) / height, FIT_MAX);
  }
  function fit() {
    k = fitZoom();
    setHeight(height * k + 2 * PAD);
    x = (portWidth() - width * k) / 2;
    y = (portH - height * k) / 2;
    apply();
  }
  // Readable: every label at least min_label_px; the root (node "n") at the top, centred.
  function readable() {
    k = Math.max(readableZoom(), Math.min(fitZoom(), FIT_MAX));
    setHeight(height * k + 2 * PAD);
    const w = portWidth();
    apply();                  // sizes first: boxOf measures the picture as drawn
    if (width * k <= w) {
      x = (w - width * k) / 2;
    } else {
      const rootNode = svg.querySelector("g.node#n") || svg.querySelector("g.node");
      const centre = rootNode ? boxOf([rootNode]).cx : width / 2;
      x = Math.min(PAD, Math.max(w - width * k - PAD, w / 2 - centre * k));
    }
    y = height * k <= portH ? (portH - height * k) / 2 : PAD;
    apply();
  }
  // The initial view: fit if every label stays readable there, else readable.
  function initialView() {
    if (fitZoom() >= readableZoom()) fit(); else readable();
  }
  // Frame the picture as the reader last chose (see `mode`).
  function frame() {
    if (!svg) return;
    if (mode === "fit") fit();
    else if (mode === "readable") readable();
    else if (mode === "auto") initialView();
    else apply();
  }
  // Bounding box of some elements in the picture's own units.
  function boxOf(elements) {
    const outer = svg.getBoundingClientRect();
    let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    for (const e of elements) {
      const r = e.getBoundingClientRect();
      left = Math.min(left, r.left); top = Math.min(top, r.top);
      right = Math.max(right, r.right); bottom = Math.max(bottom, r.bottom);
    }
    const u = (v, o) => (v - o) / k;
    return { left: u(left, outer.left), top: u(top, outer.top), right: u(right, outer.left),
             bottom: u(bottom, outer.top), cx: u((left + right) / 2, outer.left) };
  }
  function zoomAt(factor, px, py) {
    const next = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, k * factor));
    x = px - (px - x) * (next / k);
    y = py - (py - y) * (next / k);
    k = next;
    mode = "kept";
    apply();
  }
  function zoomBy(factor) {
    zoomAt(factor, portWidth() / 2, portH / 2);
  }
  // Clicking a node shows its subtree: its node, its descendants and its summary, fitted but
  // never below the readable zoom (then the subtree's top is shown, centred on the node).
  function focus(id) {
    const path = id.slice(1);
    const parts = Array.from(svg.querySelectorAll("g.node")).filter((g) => {
      const gid = g.id || "";
      return gid === id || gid.startsWith(id + "_") || gid === "s" + path ||
             gid.startsWith("s" + path + "_");
    });
    if (!parts.length) return;
    const box = boxOf(parts);
    const bw = box.right - box.left, bh = box.bottom - box.top;
    const w = portWidth(), h = portH;
    const nodeBox = boxOf(parts.slice(0, 1));
    k = Math.max(readableZoom(), Math.min((w - 2 * PAD) / bw, (h - 2 * PAD) / bh, FIT_MAX * 1.5));
    x = bw * k <= w - 2 * PAD ? w / 2 - ((box.left + box.right) / 2) * k : w / 2 - nodeBox.cx * k;
    y = bh * k <= h - 2 * PAD ? h / 2 - ((box.top + box.bottom) / 2) * k : PAD - box.top * k;
    mode = "kept";
    apply();
    model.set("focus", id);
    model.save_changes();
  }

  // Where each node is (its centre, in the picture's units), to move nodes from one picture to
  // the next: a node found in both glides from its old place (transition_ms), a new one fades in,
  // and when anything moved the edges fade in too.  A picture whose layout is unchanged (the
  // step-through) is not animated at all.
  let places = null;
  function positions(picture) {
    const graph = picture.querySelector("g.graph");
    const shift = graph && graph.transform.baseVal.consolidate();
    const tx = shift ? shift.matrix.e : 0, ty = shift ? shift.matrix.f : 0;
    const found = new Map();
    for (const g of picture.querySelectorAll("g.node")) {
      const shape = g.querySelector("polygon, ellipse, path") || g;    // not its changing text
      const b = shape.getBBox();
      found.set(g.id, [b.x + b.width / 2 + tx, b.y + b.height / 2 + ty]);
    }
    return found;
  }
  function animateFrom(before, picture) {
    if (!port.isConnected || !port.clientWidth) return null;   // not shown yet: nothing measured
    const after = positions(picture);
    const ms = model.get("transition_ms");
    if (!ms || !before) return after;
    let anyMoved = false;
    for (const g of picture.querySelectorAll("g.node")) {
      const was = before.get(g.id), now = after.get(g.id);
      if (!was) {
        g.animate([{ opacity: 0 }, { opacity: 1 }], { duration: ms, easing: "ease-in" });
        anyMoved = true;
        continue;
      }
      const dx = was[0] - now[0], dy = was[1] - now[1];
      if (Math.abs(dx) + Math.abs(dy) < 0.5) continue;
      anyMoved = true;
      g.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0px, 0px)" }],
                { duration: ms, easing: "ease-out" });
    }
    if (anyMoved) {
      for (const e of picture.querySelectorAll("g.edge")) {
        e.animate([{ opacity: 0.1 }, { opacity: 1 }], { duration: ms, easing: "ease-in" });
      }
    }
    return after;
  }

  async function draw() {
    if (drawing) return;
    drawing = true;
    try {
      while (pending !== null && !disposed) {
        const dot = pending;
        pending = null;
        const start = performance.now();
        let fresh;
        try {
          const viz = await loadViz(model);
          fresh = viz.renderSVGElement(dot);
          message.textContent = "";
        } catch (error) {
          message.textContent = `Cannot draw this picture: ${error && error.message || error}`;
          model.set("error", String(error && error.message || error));
          model.save_changes();
          continue;
        }
        fresh.removeAttribute("width");
        fresh.removeAttribute("height");
        if (svg) svg.replaceWith(fresh); else port.appendChild(fresh);
        const first = svg === null;
        svg = fresh;
        [width, height] = svgSize(svg);
        if (first && mode === "kept") mode = "auto";
        frame();
        const ms = performance.now() - start;
        try {
          places = animateFrom(first ? null : places, svg);
        } catch (error) {
          places = null;          // an animation is a nicety: never let it stop a picture
        }
        root.dataset.renderMs = ms.toFixed(1);           // for benchmarks and browser tests
        root.dataset.renders = String(Number(root.dataset.renders || 0) + 1);
        model.set("error", "");
        model.set("render_ms", Math.round(ms * 10) / 10);
        model.set("renders", (model.get("renders") || 0) + 1);
        model.save_changes();
      }
    } finally {
      drawing = false;
    }
  }
  function onDot() {
    pending = model.get("dot") || "";
    if (!pending) {
      if (svg) { svg.remove(); svg = null; }
      pending = null;
      return;
    }
    draw();
  }

  // mouse: drag pans, Ctrl/Cmd + wheel (and a touchpad pinch) zooms, a click focuses a subtree
  let drag = null;
  port.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    drag = { x0: event.clientX, y0: event.clientY, x, y, far: false };
    port.setPointerCapture && port.setPointerCapture(event.pointerId);
  });
  port.addEventListener("pointermove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x0, dy = event.clientY - drag.y0;
    if (!drag.far && Math.hypot(dx, dy) < 4) return;
    drag.far = true;
    port.classList.add("ctv-dragging");
    x = drag.x + dx;
    y = drag.y + dy;
    mode = "kept";
    apply();
  });
  port.addEventListener("pointerup", (event) => {
    const wasDrag = drag && drag.far;
    drag = null;
    port.classList.remove("ctv-dragging");
    if (wasDrag || !svg) return;
    const target = document.elementFromPoint(event.clientX, event.clientY);
    const node = target && target.closest && target.closest("g.node");
    if (node && node.id && node.id.startsWith("n")) focus(node.id);
  });
  port.addEventListener("wheel", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;   // plain wheel scrolls the notebook
    event.preventDefault();
    const r = port.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.002), event.clientX - r.left, event.clientY - r.top);
  }, { passive: false });

  function onCustom(msg) {
    if (!msg || !svg) return;
    if (msg.type === "fit" || msg.type === "readable") { mode = msg.type; frame(); }
    else if (msg.type === "focus" && msg.id) focus(msg.id);
  }
  model.on("msg:custom", onCustom);
  model.on("change:dot", onDot);
  function onHeight() {
    frame();
  }
  model.on("change:max_height", onHeight);
  // The first picture may be laid out before the view is in the page (no size yet): choose
  // the view again once the viewport gets its width, and whenever the width changes.
  let seenWidth = 0;
  const observer = new ResizeObserver(() => {
    const w = port.clientWidth;
    if (!w || w === seenWidth) return;
    seenWidth = w;
    frame();
    if (svg && !places) places = positions(svg);
  });
  observer.observe(port);
  // JupyterLab's dark theme: show the (white) picture inverted, hues kept
  const theme = () => root.classList.toggle("ctv-dark", document.body.dataset.jpThemeLight === "false");
  const themeWatch = new MutationObserver(theme);
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  theme();
  onDot();
  return () => {
    disposed = true;
    observer.disconnect();
    themeWatch.disconnect();
    model.off("change:max_height", onHeight);
    model.off("msg:custom", onCustom);
    model.off("change:dot", onDot);
  };
}

export default { render };
