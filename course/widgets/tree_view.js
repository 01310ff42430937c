// The browser half of course.widgets.TreeView: lay out the DOT that Python built with Graphviz
// compiled to WebAssembly (the vendored Viz.js), and show it in a pan/zoom viewport.
//
// Python owns the picture (trait `dot`); this module owns the view: zoom and position, the
// toolbar (fit, readable size, -, +), the legend, the dark-theme filter, and the transition
// from one picture to the next (nodes glide to their new places).  A new `dot` is framed as
// the reader last chose: the initial view again (the whole picture, fitted), fit or readable
// after those buttons, or the same zoom and position once they zoomed, panned or clicked a node.
// A line under the toolbar says what the view shows whenever it is not the whole picture at a
// readable size: an overview whose labels are too small to read (zoom to read), or a part of
// the picture (pan or fit for the rest), so a tree cut at the pane's edges never passes for
// the whole tree (issue 30).  A new `dot` whose layout is the one shown
// (same nodes and edges, same sizes) is not laid out again: the SVG is restyled in place (see
// "Restyling in place" below).  Viz.js comes with the widget state (see "Viz.js" below) and is
// shared by every TreeView of the page.

const CSS_ESCAPE = (id) => (globalThis.CSS && CSS.escape ? CSS.escape(id) : id.replace(/[^\w-]/g, "\\$&"));
const MAX_ZOOM = 4;
const MIN_ZOOM = 0.05;
const FIT_MAX = 1.5;          // a small tree is enlarged at most this much by "fit"
const PAD = 8;                // px kept free around a fitted picture

// ---- Viz.js: where the Graphviz module comes from ---------------------------------------------
// One Viz instance per page, whichever widget asked first.  The module's bytes are the state of
// the kernel's shared VizModule (trait `viz` holds its "IPY_MODEL_<id>"), which arrived with the
// widgets, so nothing waits for the kernel: a picture draws while the kernel runs later cells.
// Only when that model cannot be read is the kernel asked (a custom message answered with the
// bundle), as before.
async function bundleFromState(model) {
  const ref = model.get("viz");
  if (!ref || !model.widget_manager) return null;
  const other = typeof ref === "string"
    ? await model.widget_manager.get_model(ref.replace(/^IPY_MODEL_/, ""))
    : ref;
  const data = other && other.get && other.get("bundle");
  if (!data || !data.byteLength) return null;
  return data.buffer ? new Uint8Array(data.buffer, data.byteOffset || 0, data.byteLength) : data;
}

async function vizFrom(bytes) {
  const url = URL.createObjectURL(new Blob([bytes], { type: "text/javascript" }));
  try {
    const module = await import(/* webpackIgnore: true */ url);
    const viz = await module.instance();
    globalThis.__courseVizReady = viz;       // for restyling, which never waits
    return viz;
  } finally {
    URL.revokeObjectURL(url);
  }
}

function loadViz(model) {
  const g = globalThis;
  if (g.__courseViz) return g.__courseViz;
  g.__courseViz = bundleFromState(model).catch(() => null).then((bytes) =>
    bytes ? vizFrom(bytes) : askTheKernel(model));
  g.__courseViz.catch(() => { g.__courseViz = null; });   // let a later widget try again
  return g.__courseViz;
}

function askTheKernel(model) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      model.off("msg:custom", onMessage);
      reject(new Error("the kernel did not send the Graphviz module (is it running?)"));
    }, 30000);
    async function onMessage(msg, buffers) {
      if (!msg || msg.type !== "viz-bundle") return;
      clearTimeout(timer);
      model.off("msg:custom", onMessage);
      try {
        resolve(await vizFrom(buffers[0]));
      } catch (error) {
        reject(error);
      }
    }
    model.on("msg:custom", onMessage);
    model.send({ type: "viz-bundle?" });
  });
}
// ---- end of Viz.js loading -------------------------------------------------------------------

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
.course-tree-view .ctv-view-note { margin: 0 0 4px 0; font-size: 12px; font-style: italic;
  color: var(--jp-ui-font-color1, #222); }
.course-tree-view .ctv-port { position: relative; overflow: hidden; cursor: grab;
  border: 1px solid var(--jp-border-color2, #e0e0e0); background: white; touch-action: none; }
.course-tree-view .ctv-port.ctv-dragging { cursor: grabbing; }
.course-tree-view .ctv-port > svg { position: absolute; left: 0; top: 0; transform-origin: 0 0;
  max-width: none; }
.course-tree-view .ctv-port g.node { cursor: pointer; }
.course-tree-view .ctv-port svg text { font-family: Helvetica, Arial, "Liberation Sans", Arimo,
  "Nimbus Sans", "Nimbus Sans L", sans-serif; }
.course-tree-view.ctv-dark .ctv-port { filter: invert(0.9) hue-rotate(180deg); }
.course-tree-view .ctv-error { color: #b00020; white-space: pre-wrap; }
.course-tree-view details.ctv-legend { margin-top: 4px; }
.course-tree-view .ctv-port:focus-visible { outline: 3px solid #0072B2; outline-offset: 2px; }
.course-tree-view .ctv-sr { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
.course-tree-view details.ctv-text summary { cursor: pointer; color: var(--jp-ui-font-color1, #222); }
.course-tree-view details.ctv-text ul { margin: 2px 0; padding-left: 1.4em; }
.course-tree-view details.ctv-text ul.ctv-tree { list-style: none; padding-left: 0.2em; }
.course-tree-view details.ctv-text ul[role=group] { list-style: none; padding-left: 1.2em; }
.course-tree-view [role=treeitem] { border-radius: 3px; }
.course-tree-view [role=treeitem] > .ctv-line::before { content: "• "; color: var(--jp-ui-font-color2, #555); }
.course-tree-view [role=treeitem][aria-expanded=true] > .ctv-line::before { content: "▾ "; }
.course-tree-view [role=treeitem][aria-expanded=false] > .ctv-line::before { content: "▸ "; }
.course-tree-view [role=treeitem][aria-expanded=false] > [role=group] { display: none; }
.course-tree-view [role=treeitem]:focus { outline: none; }
.course-tree-view [role=treeitem]:focus > .ctv-line { outline: 3px solid #0072B2; outline-offset: 1px; }
.course-tree-view.ctv-dark [role=treeitem]:focus > .ctv-line { outline-color: #56B4E9; }
.course-tree-view .ctv-tree-hint { margin: 2px 0; color: var(--jp-ui-font-color2, #555); font-size: 12px; }
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
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#F4F4F4" stroke="#6A6A6A" stroke-dasharray="3,2"/>'), "dashed, faded: pruned"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#fff" stroke="#6E6E6E" stroke-dasharray="1,2"/>'), "dotted: not reached yet"],
  [ICON('<rect x="3" y="3" width="20" height="14" fill="#fff" stroke="#D55E00" stroke-width="3"/>'), "thick outline: current step"],
  [ICON('<line x1="2" y1="10" x2="24" y2="10" stroke="#0072B2" stroke-width="4"/>'), "bold: the chosen move"],
  ['<b style="color:#A84C00">cut</b>', "a cut-off: the dashed edges to its right were skipped"],
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

// ---------------------------------------------------------------------------------------------
// Restyling in place.  Most slider changes (a new ε, the next step) keep the picture's layout:
// the same nodes and edges at the same sizes; only colours, line styles, label texts, tooltips
// and "cut" marks change.  Graphviz (50 to 100 ms for 341 nodes) is then skipped: the new DOT
// is read here (as course.draw writes it: one `id [k=v, ...];` or `a -> b [...];` per line) and
// the SVG on screen is patched to what Graphviz would draw.  Anything this cannot reproduce
// exactly (a new node, a new size, a label line never seen at that place) is laid out in full.

const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";
// attributes that do not move anything (for a fixed-size node, its label does not either; a
// node's pen width does: Graphviz ends edges at the outside of its outline)
const NODE_STYLE = new Set(["style", "fillcolor", "color", "fontcolor", "tooltip", "label"]);
const EDGE_STYLE = new Set(["style", "color", "fontcolor", "penwidth", "tooltip", "taillabel",
                            "labelangle", "labeldistance"]);

// `k=v, k="v", k=<html>` up to the closing bracket -> {k: v}; null if malformed
function parseAttrs(text, at) {
  const attrs = {};
  let i = at;
  for (;;) {
    while (text[i] === " " || text[i] === ",") i++;
    if (text[i] === "]") return [attrs, i + 1];
    const eq = text.indexOf("=", i);
    if (eq < 0) return null;
    const key = text.slice(i, eq).trim();
    i = eq + 1;
    let value;
    if (text[i] === '"') {
      let j = i + 1, out = "";
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && j + 1 < text.length) { out += text[j + 1] === "n" ? "\n" : text[j + 1]; j += 2; }
        else out += text[j++];
      }
      if (j >= text.length) return null;
      value = out;
      i = j + 1;
    } else if (text[i] === "<") {
      let depth = 0, j = i;
      for (; j < text.length; j++) {
        if (text[j] === "<") depth++;
        else if (text[j] === ">" && --depth === 0) break;
      }
      if (j >= text.length) return null;
      value = { html: text.slice(i + 1, j) };
      i = j + 1;
    } else {
      const m = /^[^,\]\s]+/.exec(text.slice(i, i + 64));
      if (!m) return null;
      value = m[0];
      i += value.length;
    }
    attrs[key] = value;
  }
}

// The DOT text -> {graph, node, edge (defaults), nodes: Map id -> {raw, attrs},
// edges: Map id -> {raw, attrs}}, or null for anything not written by course.draw's builder.
function readDot(dot) {
  const lines = dot.split("\n");
  if (!/^digraph \w* ?\{$/.test(lines[0])) return null;
  const out = { graph: {}, node: {}, edge: {}, nodes: new Map(), edges: new Map(), order: [] };
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n];
    if (line === "}" || line === "") continue;
    const m = /^(\w+)(?: -> (\w+))? \[/.exec(line);
    if (!m || !line.endsWith("];")) return null;
    const parsed = parseAttrs(line, m[0].length);
    if (!parsed || parsed[1] !== line.length - 1) return null;
    const attrs = parsed[0];
    const raw = line.slice(m[0].length);
    if (m[2] === undefined && (m[1] === "graph" || m[1] === "node" || m[1] === "edge")) {
      out[m[1]] = attrs;
      Object.defineProperty(attrs, "raw", { value: raw });   // not enumerable: not in the key
      out.order.push(m[1] + raw);
    } else if (m[2] === undefined) {
      if (attrs.id !== undefined && attrs.id !== m[1]) return null;
      out.nodes.set(m[1], { raw, attrs });
    } else {
      if (!attrs.id) return null;
      attrs._ends = m[1] + "->" + m[2];
      out.edges.set(attrs.id, { raw, attrs });
    }
  }
  return out;
}

// What decides where things go: equal keys, equal layouts.
function layoutKey(picture) {
  const parts = [JSON.stringify(Object.assign({}, picture.graph, { label: null })),
                 JSON.stringify(picture.node), JSON.stringify(picture.edge)];
  const fixedDefault = picture.node.fixedsize === "true";
  for (const [id, { attrs }] of picture.nodes) {
    const fixed = attrs.fixedsize === undefined ? fixedDefault : attrs.fixedsize === "true";
    const kept = [id, "tooltip" in attrs, /bold/.test(attrs.style || "")];
    for (const k in attrs) if (!NODE_STYLE.has(k) || (k === "label" && !fixed)) kept.push(k, attrs[k]);
    parts.push(JSON.stringify(kept));
  }
  for (const [id, { attrs }] of picture.edges) {
    // a tail label away from labelangle/labeldistance is placed as an xlabel: not reproduced
    const placed = !("taillabel" in attrs) || "labelangle" in attrs || "labeldistance" in attrs;
    const kept = [id, placed];
    for (const k in attrs) if (!EDGE_STYLE.has(k)) kept.push(k, attrs[k]);
    parts.push(JSON.stringify(kept));
  }
  return parts.join("\n");
}

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
function unescapeHtml(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, name) => {
    if (name[0] === "#") return String.fromCodePoint(name[1] === "x" || name[1] === "X"
      ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    return ENTITIES[name] !== undefined ? ENTITIES[name] : all;
  });
}

// A label -> its lines [{text, size, color, bold}] (HTML: FONT POINT-SIZE/COLOR and B only).
function labelLines(label, size, color) {
  if (label === undefined) return null;
  if (typeof label === "string") {
    if (label.includes("\\")) return null;            // \N, \l, ...: Graphviz's own escapes
    return label === "" ? [] : label.split("\n").map((text) => ({ text, size, color, bold: false }));
  }
  const lines = [];
  for (const part of label.html.split(/<BR\s*\/>/i)) {
    if (/<(?!\/?(FONT|B)\b)/i.test(part)) return null;   // tables, images, ...: not handled
    const font = /<FONT([^>]*)>/i.exec(part);
    const pt = font && /POINT-SIZE="([\d.]+)"/i.exec(font[1]);
    const hue = font && /COLOR="([^"]+)"/i.exec(font[1]);
    const text = unescapeHtml(part.replace(/<[^>]*>/g, ""));
    if (!text) continue;
    lines.push({ text, size: pt ? parseFloat(pt[1]) : size, color: hue ? hue[1] : color,
                 bold: /<B>/i.test(part) });
  }
  return lines;
}

function svgColor(c) {
  return c && c[0] === "#" ? c.toLowerCase() : c;
}
function num(v, fallback) {
  const x = parseFloat(v);
  return Number.isFinite(x) ? x : fallback;
}
function strokeOf(attrs, defaults) {
  const style = String(attrs.style ?? defaults.style ?? "").split(",").map((s) => s.trim());
  const pen = attrs.penwidth ?? defaults.penwidth;
  const width = pen !== undefined ? num(pen, 1) : style.includes("bold") ? 2 : 1;
  const dash = style.includes("dashed") ? "5,2" : style.includes("dotted") ? "1,5" : null;
  return { style, width, dash, color: svgColor(attrs.color ?? defaults.color ?? "black") };
}
function setStroke(shape, stroke) {
  shape.setAttribute("stroke", stroke.color);
  if (stroke.width === 1) shape.removeAttribute("stroke-width");
  else shape.setAttribute("stroke-width", String(+stroke.width.toFixed(2)));
  if (stroke.dash) shape.setAttribute("stroke-dasharray", stroke.dash);
  else shape.removeAttribute("stroke-dasharray");
}

// Bounding box of a node's shape (its polygons, polylines, ellipses and paths), from attributes.
function shapeBox(g) {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  const take = (x, y) => {
    left = Math.min(left, x); right = Math.max(right, x);
    top = Math.min(top, y); bottom = Math.max(bottom, y);
  };
  for (const s of g.querySelectorAll("polygon, polyline, ellipse, path")) {
    if (s.tagName === "ellipse") {
      const cx = num(s.getAttribute("cx"), 0), cy = num(s.getAttribute("cy"), 0);
      const rx = num(s.getAttribute("rx"), 0), ry = num(s.getAttribute("ry"), 0);
      take(cx - rx, cy - ry); take(cx + rx, cy + ry);
    } else {
      const values = (s.getAttribute(s.tagName === "path" ? "d" : "points") || "")
        .match(/-?\d+(\.\d+)?(e-?\d+)?/g) || [];
      for (let i = 0; i + 1 < values.length; i += 2) take(+values[i], +values[i + 1]);
    }
  }
  return Number.isFinite(left) ? { cx: (left + right) / 2, cy: (top + bottom) / 2 } : null;
}

// The first bezier's start and its direction there, as Graphviz places a tail label.
function tailSpot(edge, attrs) {
  const path = edge.querySelector("path");
  const v = path && (path.getAttribute("d") || "").match(/-?\d+(\.\d+)?(e-?\d+)?/g);
  if (!v || v.length < 8) return null;
  const p = v.slice(0, 8).map(Number), t = 0.1, s = 1 - t;
  const b = [s * s * s, 3 * s * s * t, 3 * s * t * t, t * t * t];
  const fx = b[0] * p[0] + b[1] * p[2] + b[2] * p[4] + b[3] * p[6];
  const fy = b[0] * p[1] + b[1] * p[3] + b[2] * p[5] + b[3] * p[7];
  // Graphviz's y grows upwards; in the SVG it grows downwards, so the angle turns the other way
  const angle = Math.atan2(fy - p[1], fx - p[0]) - num(attrs.labelangle, -25) * Math.PI / 180;
  const dist = 10 * num(attrs.labeldistance, 1);
  return { cx: p[0] + dist * Math.cos(angle), cy: p[1] + dist * Math.sin(angle) };
}

function tailSize(attrs, defaults) {
  return num(attrs.labelfontsize ?? defaults.labelfontsize ?? attrs.fontsize ?? defaults.fontsize, 14);
}

// Where label lines go, learned from Graphviz's own pictures: "place|sizes" -> y of each line
// from the centre of the node's shape (or of a tail label's spot).
function lineKey(place, lines) {
  return place + "|" + lines.map((l) => l.size).join(",");
}

// After a full layout: centre every node's and tail label's lines on their shape (Graphviz
// starts each line at its own estimate of the text's width, which the browser's font does not
// match) and learn where the lines of each kind of node go.
function settle(svg, picture, places) {
  for (const g of svg.querySelectorAll("g.node")) {
    const entry = picture && picture.nodes.get(g.id);
    const texts = g.querySelectorAll("text");
    if (!entry || !texts.length) continue;
    const box = shapeBox(g);
    const lines = labelLines(entry.attrs.label, num(entry.attrs.fontsize ?? picture.node.fontsize, 14), "");
    if (!box || !lines || lines.length !== texts.length) continue;
    places.set(lineKey(nodePlace(entry.attrs, picture), lines),
               Array.from(texts, (t) => num(t.getAttribute("y"), 0) - box.cy));
    for (const t of texts) { t.setAttribute("text-anchor", "middle"); t.setAttribute("x", box.cx.toFixed(2)); }
  }
  if (!picture) return;
  const index = elementsById(svg);
  for (const [id, { attrs }] of picture.edges) {
    if (!("taillabel" in attrs)) continue;
    const g = index.get(id);
    const lines = labelLines(attrs.taillabel, tailSize(attrs, picture.edge), "");
    const spot = g && tailSpot(g, attrs);
    if (!spot || !lines) continue;
    const texts = Array.from(g.querySelectorAll("text")).slice(-lines.length);
    if (texts.length !== lines.length) continue;
    places.set(lineKey("tail", lines), texts.map((t) => num(t.getAttribute("y"), 0) - spot.cy));
    for (const t of texts) { t.setAttribute("text-anchor", "middle"); t.setAttribute("x", spot.cx.toFixed(2)); }
  }
}

// Line positions depend on the shape and its height only (a label is centred in its node).
function elementsById(svg) {
  const index = new Map();
  for (const g of svg.querySelectorAll("g.node, g.edge")) index.set(g.id, g);
  return index;
}

function nodePlace(attrs, picture) {
  return (attrs.shape ?? picture.node.shape) + "/" + (attrs.height ?? picture.node.height);
}

// Where the lines of a label go (see lineKey): learned from the pictures drawn, or else from
// Graphviz laying out that one node (or edge) alone, `statements` of a tiny graph (a few ms).
function linesFor(places, key, statements, id, edgeAttrs) {
  if (places.has(key)) return places.get(key);
  const viz = globalThis.__courseVizReady;
  if (!viz) return null;
  let alone;
  try {
    alone = viz.renderSVGElement(`digraph alone {\n${statements()}\n}`);
  } catch (error) {
    return null;
  }
  const g = elementsById(alone).get(id);
  if (!g) return null;
  const texts = Array.from(g.querySelectorAll("text"));
  let centre;
  if (edgeAttrs) {
    const n = key.split("|")[1].split(",").length;
    texts.splice(0, texts.length - n);
    centre = tailSpot(g, edgeAttrs);
  } else {
    centre = shapeBox(g);
  }
  if (!centre || !texts.length) return null;
  const dys = texts.map((t) => num(t.getAttribute("y"), 0) - centre.cy);
  places.set(key, dys);
  return dys;
}

// Text elements for `lines` at x, y0 + dy[i], styled like `model` (a text of the picture).
function makeTexts(lines, x, y0, dys, model) {
  return lines.map((line, i) => {
    const t = document.createElementNS(SVG_NS, "text");
    t.setAttribute("text-anchor", "middle");
    t.setAttribute("x", x.toFixed(2));
    t.setAttribute("y", (y0 + dys[i]).toFixed(2));
    t.setAttribute("font-family", model ? model.getAttribute("font-family") : "Helvetica,sans-Serif");
    styleText(t, line);
    return t;
  });
}
function styleText(t, line) {
  t.textContent = line.text;
  t.setAttribute("font-size", line.size.toFixed(2));
  if (line.bold) t.setAttribute("font-weight", "bold"); else t.removeAttribute("font-weight");
  t.setAttribute("fill", svgColor(line.color));
}

// Put an edge's drawing in a link carrying `tip` (null: take it out), as Graphviz does.
function linkEdge(g, tip) {
  const wrapper = g.querySelector(":scope > g");
  if (tip === null) {
    if (!wrapper) return;
    const link = wrapper.querySelector("a") || wrapper;
    while (link.firstChild) g.insertBefore(link.firstChild, wrapper);
    wrapper.remove();
    return;
  }
  if (wrapper) return;
  const outer = document.createElementNS(SVG_NS, "g");
  outer.id = "a_" + g.id;
  const link = document.createElementNS(SVG_NS, "a");
  link.setAttributeNS(XLINK_NS, "xlink:title", tip);
  for (const child of Array.from(g.childNodes)) if (child.nodeName !== "title") link.appendChild(child);
  outer.appendChild(link);
  g.appendChild(outer);
}

// Patch `svg` (showing `old`) to show `next`, whose layout key is the same; false (and nothing
// touched) when something cannot be reproduced without Graphviz.
function restyle(svg, old, next, places) {
  const jobs = [];
  const model = svg.querySelector("g.node text");
  const index = elementsById(svg);
  const byId = (id) => index.get(id);
  const nodeDefaults = next.node, edgeDefaults = next.edge;
  const title = svg.querySelector("g.graph > text");
  if (JSON.stringify(old.graph.label) !== JSON.stringify(next.graph.label)) {
    const text = next.graph.label;
    if (typeof text !== "string" || typeof old.graph.label !== "string" || !title) return false;
    // a title wider than the tree would widen the picture
    const wide = (s) => s.length * num(next.graph.fontsize, 14) * 0.62;
    const [w] = svgSize(svg);
    if (wide(text) > 0.9 * w || wide(old.graph.label) > 0.9 * w) return false;
    jobs.push(() => { title.textContent = text; });
  }
  for (const [id, entry] of next.nodes) {
    const before = old.nodes.get(id);
    if (before && before.raw === entry.raw) continue;
    const g = byId(id);
    if (!g) return false;
    const attrs = entry.attrs;
    const size = num(attrs.fontsize ?? nodeDefaults.fontsize, 14);
    const ink = attrs.fontcolor ?? nodeDefaults.fontcolor ?? "black";
    const lines = labelLines(attrs.label ?? nodeDefaults.label ?? "\\N", size, ink);
    if (!lines) return false;
    const texts = Array.from(g.querySelectorAll("text"));
    const sameLines = texts.length === lines.length &&
      lines.every((l, i) => num(texts[i].getAttribute("font-size"), 0) === l.size);
    let box = null, dys = null;
    if (!sameLines) {
      box = shapeBox(g);
      dys = lines.length ? linesFor(places, lineKey(nodePlace(attrs, next), lines),
                                    () => `node [${next.node.raw}\n${id} [${entry.raw}`, id, null) : [];
      if (!box || !dys) return false;
    }
    const stroke = strokeOf(attrs, nodeDefaults);
    const filled = stroke.style.includes("filled");
    const fill = filled ? svgColor(attrs.fillcolor ?? nodeDefaults.fillcolor ?? attrs.color ?? "lightgrey") : "none";
    const tip = attrs.tooltip;
    jobs.push(() => {
      for (const s of g.querySelectorAll("polygon, ellipse, path, polyline")) {
        if (s.tagName !== "polyline") s.setAttribute("fill", fill);
        setStroke(s, stroke);
      }
      const link = g.querySelector("a");
      if (link && tip !== undefined) link.setAttributeNS(XLINK_NS, "xlink:title", tip);
      if (sameLines) {
        texts.forEach((t, i) => styleText(t, lines[i]));
      } else {
        const parent = texts.length ? texts[0].parentNode : (link || g);
        for (const t of texts) t.remove();
        for (const t of makeTexts(lines, box.cx, box.cy, dys, model)) parent.appendChild(t);
      }
    });
  }
  for (const [id, entry] of next.edges) {
    const before = old.edges.get(id);
    if (before && before.raw === entry.raw) continue;
    const g = byId(id);
    if (!g || !before) return false;
    const attrs = entry.attrs;
    const stroke = strokeOf(attrs, edgeDefaults);
    const ink = svgColor(attrs.fontcolor ?? edgeDefaults.fontcolor ?? "black");
    const oldTail = labelLines(before.attrs.taillabel, tailSize(before.attrs, edgeDefaults), "") || [];
    const tail = labelLines(attrs.taillabel, tailSize(attrs, edgeDefaults), ink) || [];
    if (attrs.taillabel !== undefined && !tail.length && attrs.taillabel !== "") return false;
    const allTexts = Array.from(g.querySelectorAll("text"));
    const tailTexts = oldTail.length ? allTexts.slice(-oldTail.length) : [];
    const labelTexts = allTexts.slice(0, allTexts.length - tailTexts.length);
    // Graphviz wraps an edge with a tooltip in a link (and each of its labels in another)
    const tipped = "tooltip" in attrs;
    const wrap = tipped !== ("tooltip" in before.attrs);
    // (only for an edge without labels once restyled: the old tail label goes first)
    if (wrap && (labelTexts.length || (tipped && tail.length))) return false;
    let spot = null, dys = null;
    if (JSON.stringify(before.attrs.taillabel) !== JSON.stringify(attrs.taillabel) && tail.length) {
      spot = tailSpot(g, attrs);
      dys = linesFor(places, lineKey("tail", tail),
                     () => `edge [${next.edge.raw}\na -> b [${entry.raw}`, id, attrs);
      if (!spot || !dys) return false;
    }
    const tip = attrs.tooltip;
    jobs.push(() => {
      if (spot || !tail.length) for (const t of tailTexts) t.remove();
      else tailTexts.forEach((t, i) => styleText(t, tail[i]));
      if (wrap) linkEdge(g, tipped ? tip : null);
      for (const s of g.querySelectorAll("path, polygon")) setStroke(s, stroke);
      for (const t of labelTexts) t.setAttribute("fill", ink);
      const link = g.querySelector("a");
      if (link && tip !== undefined) link.setAttributeNS(XLINK_NS, "xlink:title", tip);
      if (spot) {
        const parent = (labelTexts[0] && labelTexts[0].parentNode) || link || g;
        for (const t of makeTexts(tail, spot.cx, spot.cy, dys, model)) parent.appendChild(t);
      }
    });
  }
  for (const job of jobs) job();
  return true;
}

// keepKeys(root): keys.js, put in front of this module by course/widgets/_esm.py.

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
  // In words (issue 21): the port is one image named by the picture's summary, "The tree in
  // text" lists every drawn node, and a polite live region says each new summary.
  port.setAttribute("role", "img");
  port.tabIndex = 0;
  const text = document.createElement("details");
  text.className = "ctv-text";
  const live = document.createElement("div");
  live.className = "ctv-sr";
  live.setAttribute("aria-live", "polite");
  live.setAttribute("role", "status");
  // What the view shows, when it is not the whole picture at a readable size (see the top).
  const viewNote = document.createElement("p");
  viewNote.className = "ctv-view-note";
  viewNote.hidden = true;
  root.append(style, bar, viewNote, port, message, text, legend);
  if (model.get("announce") !== false) root.append(live);
  el.appendChild(root);
  keepKeys(root);
  let lastAlt = null;
  // "The tree in text": the WAI-ARIA tree view pattern (role tree / treeitem / group, one Tab
  // stop, arrows move node by node).  The node in focus is ringed in the picture and kept in
  // view; Enter does what a click on the node does.
  let items = [];             // the treeitems, in document (depth-first) order
  let current = null;         // the treeitem that has the roving tabindex
  function visible(item) {
    for (let p = item.parentElement; p && p !== text; p = p.parentElement) {
      if (p.getAttribute("role") === "treeitem" && p.getAttribute("aria-expanded") === "false") return false;
    }
    return true;
  }
  function childGroup(item) {
    return item.querySelector(":scope > [role=group]");
  }
  function parentItem(item) {
    const group = item.parentElement;
    return group && group.getAttribute("role") === "group" ? group.parentElement : null;
  }
  function setCurrent(item, focusIt) {
    if (!item) return;
    if (current && current !== item) current.tabIndex = -1;
    current = item;
    item.tabIndex = 0;
    if (focusIt) {
      item.focus();
      ring(item.dataset.node);
    }
  }
  function buildTree(rows) {
    const keep = current && current.dataset.node;
    const hadFocus = current && current === document.activeElement;
    const tree = document.createElement("ul");
    tree.setAttribute("role", "tree");
    tree.setAttribute("aria-label", "The tree in text, node by node");
    tree.className = "ctv-tree";
    const groups = [tree];
    let last = null;
    items = [];
    rows.forEach((row, index) => {
      const [depth, line, node] = row;
      while (groups.length - 1 < depth && last) {
        const group = document.createElement("ul");
        group.setAttribute("role", "group");
        last.appendChild(group);
        last.setAttribute("aria-expanded", "true");
        groups.push(group);
      }
      while (groups.length - 1 > depth) groups.pop();
      const item = document.createElement("li");
      item.setAttribute("role", "treeitem");
      item.setAttribute("aria-level", String(groups.length));
      item.setAttribute("aria-label", line);
      item.tabIndex = -1;
      item.dataset.node = node || "";
      item.dataset.index = String(index);
      const label = document.createElement("span");
      label.className = "ctv-line";
      label.textContent = line;
      label.setAttribute("aria-hidden", "true");
      item.appendChild(label);
      groups[groups.length - 1].appendChild(item);
      items.push(item);
      last = item;
    });
    for (const group of [tree, ...tree.querySelectorAll("[role=group]")]) {
      const members = Array.from(group.children);
      members.forEach((m, i) => {
        m.setAttribute("aria-posinset", String(i + 1));
        m.setAttribute("aria-setsize", String(members.length));
      });
    }
    current = null;
    const again = keep && items.find((i) => i.dataset.node === keep);
    setCurrent(again || items[0], false);
    if (hadFocus && current) {
      current.focus();
      ring(current.dataset.node);
    }
    return tree;
  }
  function onTreeKey(event) {
    const item = event.target.closest && event.target.closest("[role=treeitem]");
    if (!item || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.shiftKey && event.key === "Enter") return;      // the notebook's: run the cell
    const shown = items.filter(visible);
    const at = shown.indexOf(item);
    const group = childGroup(item);
    const open = item.getAttribute("aria-expanded") === "true";
    let next = null;
    switch (event.key) {
      case "ArrowDown": next = shown[at + 1]; break;
      case "ArrowUp": next = shown[at - 1]; break;
      case "Home": next = shown[0]; break;
      case "End": next = shown[shown.length - 1]; break;
      case "ArrowRight":
        if (group && !open) { item.setAttribute("aria-expanded", "true"); }
        else if (group) { next = group.querySelector("[role=treeitem]"); }
        break;
      case "ArrowLeft":
        if (group && open) { item.setAttribute("aria-expanded", "false"); }
        else { next = parentItem(item); }
        break;
      case "Enter":
      case " ":
        if (item.dataset.node && /^n(_\d+)*$/.test(item.dataset.node)) {
          model.send({ type: "node-click", id: item.dataset.node });
          if (model.get("click_zoom") !== false && svg) focus(item.dataset.node);
          ring(item.dataset.node);
        }
        break;
      default:
        return;                 // every other key is the notebook's
    }
    event.preventDefault();
    event.stopPropagation();    // the notebook never moves its cell selection on these keys
    if (next) setCurrent(next, true);
  }
  // The ring around the node in focus: drawn over the picture, 3 px, #0072B2 (5.1:1 on white).
  let ringed = null;
  function ring(node) {
    if (!svg) return;
    const old = svg.querySelector(".ctv-ring");
    if (old) old.remove();
    ringed = node || null;
    const g = node && svg.querySelector(`g.node#${CSS_ESCAPE(node)}`);
    if (!g) return;
    const box = g.getBBox();
    const graph = svg.querySelector("g.graph") || svg;
    const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    r.setAttribute("class", "ctv-ring");
    r.setAttribute("x", String(box.x - 4));
    r.setAttribute("y", String(box.y - 4));
    r.setAttribute("width", String(box.width + 8));
    r.setAttribute("height", String(box.height + 8));
    r.setAttribute("rx", "4");
    r.setAttribute("fill", "none");
    r.setAttribute("stroke", "#0072B2");
    r.setAttribute("stroke-width", "3");
    r.setAttribute("aria-hidden", "true");
    graph.appendChild(r);
    // keep it in view: pan (never zoom) so the node is inside the port
    const b = boxOf([g]);
    const w = portWidth(), h = portH;
    const left = x + b.left * k, right = x + b.right * k, top = y + b.top * k, bottom = y + b.bottom * k;
    if (left < PAD || right > w - PAD || top < PAD || bottom > h - PAD) {
      x = w / 2 - ((b.left + b.right) / 2) * k;
      y = h / 2 - ((b.top + b.bottom) / 2) * k;
      mode = "kept";
      apply();
    }
  }
  function onWords() {
    const alt = model.get("alt") || (model.get("dot") ? "Picture of a tree." : "No picture.");
    port.setAttribute("aria-label", alt);
    if (lastAlt !== null && alt !== lastAlt) live.textContent = alt;
    lastAlt = alt;
    const rows = model.get("outline") || [];
    text.hidden = rows.length === 0;
    const summary = document.createElement("summary");
    summary.textContent = "The tree in text";
    const hint = document.createElement("p");
    hint.className = "ctv-tree-hint";
    hint.textContent = "Tab into the list, then ↑ ↓ to move, → ← to open, close or go to a child or the parent, "
      + "Home/End, Enter for " + (model.get("click_zoom") === false ? "answering for the node." : "its subtree in the picture.");
    text.replaceChildren(summary, hint, buildTree(rows));
  }
  text.addEventListener("keydown", onTreeKey);
  text.addEventListener("focusin", (event) => {
    const item = event.target.closest && event.target.closest("[role=treeitem]");
    if (item) { setCurrent(item, false); ring(item.dataset.node); }
  });
  text.addEventListener("focusout", (event) => {
    if (!text.contains(event.relatedTarget) && svg) {
      const old = svg.querySelector(".ctv-ring");
      if (old) old.remove();
      ringed = null;
    }
  });
  model.on("change:alt", onWords);
  model.on("change:outline", onWords);

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
  button("fit", "show the whole picture (its labels may then be too small to read: zoom in to read)",
         () => { mode = "fit"; frame(); });
  button("readable", "zoom so that every label is at least the readable size, root in view",
         () => { mode = "readable"; frame(); });
  button("−", "zoom out", () => zoomBy(1 / 1.25));
  button("+", "zoom in", () => zoomBy(1.25));
  bar.appendChild(zoomText);
  const hint = document.createElement("span");
  hint.className = "ctv-hint";
  hint.textContent = "drag or arrow keys to pan · Ctrl+wheel or +/− to zoom · " + (model.get("click_zoom") === false
    ? "click a node to answer for it" : "click a node to focus its subtree");
  bar.appendChild(hint);

  function portWidth() {
    return port.clientWidth || el.clientWidth || 800;
  }
  function maxHeight() {
    return model.get("max_height") || 480;
  }
  function readableZoom() {
    return svg ? (model.get("min_label_px") || 11) / smallestFont(svg) : 1;
  }
  function apply() {
    if (!svg) return;
    svg.style.width = `${width * k}px`;
    svg.style.height = `${height * k}px`;
    svg.style.transform = `translate(${x}px, ${y}px)`;
    zoomText.textContent = `${Math.round(k * 100)}%`;
    describeView();
  }
  // The line that says what the view shows: nothing when it is the whole picture at a readable
  // size, else an overview too small to read, or a part of the picture.
  function describeView() {
    const least = model.get("min_label_px") || 11;
    const px = smallestFont(svg) * k;
    const w = portWidth();
    const whole = x >= -1 && y >= -1 && x + width * k <= w + 1 && y + height * k <= portH + 1;
    let note = "";
    if (whole && px < least - 0.01) {
      note = `Overview: the whole tree, its smallest labels ${px.toFixed(1)} px high, too small ` +
             "to read. Zoom to read: “readable”, +, or click a part of the tree.";
    } else if (!whole) {
      note = "Part of the tree: drag or use the arrow keys to see the rest, or “fit” to see it whole.";
    }
    if (viewNote.textContent !== note) viewNote.textContent = note;
    viewNote.hidden = !note;
    root.dataset.view = !note ? "whole" : whole ? "overview" : "part";   // for tests
  }
  function setHeight(h) {
    portH = Math.round(Math.max(120, Math.min(maxHeight(), h)));
    port.style.height = `${portH}px`;
  }
  function fitZoom() {
    return Math.min((portWidth() - 2 * PAD) / width, (maxHeight() - 2 * PAD) / height, FIT_MAX);
  }
  // Fit: the whole picture.  When that shrinks labels below min_label_px, the line under the
  // toolbar says so (an overview: zoom to read).
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
  // The initial view: the whole picture (issue 30: a view cut on both sides hid how big the tree
  // is); where its labels are then too small, the line under the toolbar says "zoom to read".
  function initialView() {
    fit();
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

  // The picture on screen as DOT statements (null: not restylable) and its layout key.
  let shown = null, shownKey = null;
  const linePlaces = new Map();
  // Mark the moment the new picture is on screen: the first frame after the DOM change has been
  // painted (a task queued from that frame's animation callback runs after its paint).
  function markPainted() {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => { root.dataset.paintedAt = performance.now().toFixed(1); };
      channel.port2.postMessage(0);
    });
  }
  // The kernel hears of the pictures drawn (render_ms, renders) once things calm down, not at
  // each one: a message per picture would keep the kernel busy while a slider is moving.
  let drawn = 0, lastMs = 0, reportTimer = null;
  function reportSoon() {
    if (reportTimer !== null) return;
    reportTimer = setTimeout(() => {
      reportTimer = null;
      if (disposed) return;
      if (model.get("error")) model.set("error", "");
      model.set("render_ms", Math.round(lastMs * 10) / 10);
      model.set("renders", (model.get("renders") || 0) + drawn);
      drawn = 0;
      model.save_changes();
    }, 250);
  }
  // Graphviz lays out `dot` and the new SVG replaces the old one; false if Graphviz failed.
  async function layOut(dot, next) {
    let fresh;
    try {
      const viz = await loadViz(model);
      fresh = viz.renderSVGElement(dot);
      message.textContent = "";
    } catch (error) {
      message.textContent = `Cannot draw this picture: ${error && error.message || error}`;
      model.set("error", String(error && error.message || error));
      model.save_changes();
      return false;
    }
    fresh.removeAttribute("width");
    fresh.removeAttribute("height");
    // the port is the image, named by the summary; the SVG's <title>s are Graphviz ids
    fresh.setAttribute("aria-hidden", "true");
    fresh.setAttribute("focusable", "false");
    try {
      settle(fresh, next, linePlaces);
    } catch (error) {
      next = null;              // not restylable; the picture itself is fine
    }
    if (svg) svg.replaceWith(fresh); else port.appendChild(fresh);
    const first = svg === null;
    svg = fresh;
    [width, height] = svgSize(svg);
    if (first && mode === "kept") mode = "auto";
    frame();
    if (ringed && text.contains(document.activeElement)) ring(ringed);   // the ring was on the old SVG
    shown = next;
    shownKey = next && layoutKey(next);
    try {
      places = animateFrom(first ? null : places, svg);
    } catch (error) {
      places = null;          // an animation is a nicety: never let it stop a picture
    }
    return true;
  }
  // The new DOT on screen: restyled in place when its layout is the one shown, else laid out.
  async function draw() {
    if (drawing) return;
    drawing = true;
    try {
      while (pending !== null && !disposed) {
        const dot = pending;
        pending = null;
        const start = performance.now();
        let next = null, restyled = false;
        try {
          next = readDot(dot);
          restyled = Boolean(svg && shown && next && layoutKey(next) === shownKey &&
                             restyle(svg, shown, next, linePlaces));
        } catch (error) {
          restyled = false;     // lay it out in full instead
        }
        if (restyled) {
          shown = next;
          message.textContent = "";
        } else if (!(await layOut(dot, next))) {
          continue;
        }
        const ms = performance.now() - start;
        root.dataset.shownAt = performance.now().toFixed(1);   // for benchmarks and tests
        markPainted();
        root.dataset.renderMs = ms.toFixed(1);
        root.dataset.restyled = restyled ? "1" : "0";
        root.dataset.renders = String(Number(root.dataset.renders || 0) + 1);
        drawn += 1;
        lastMs = ms;
        reportSoon();
      }
    } finally {
      drawing = false;
    }
  }
  function onDot() {
    root.dataset.dotAt = performance.now().toFixed(1);
    pending = model.get("dot") || "";
    if (!pending) {
      if (svg) { svg.remove(); svg = null; }
      shown = shownKey = null;
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
    if (node && node.id && node.id.startsWith("n")) {
      model.send({ type: "node-click", id: node.id });      // for widgets answered in the picture
      if (model.get("click_zoom") !== false) focus(node.id);
    }
  });
  port.addEventListener("wheel", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;   // plain wheel scrolls the notebook
    event.preventDefault();
    const r = port.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.002), event.clientX - r.left, event.clientY - r.top);
  }, { passive: false });

  // keyboard: arrows pan, + and - zoom, f fits, r is the readable zoom; the notebook never
  // sees these keys while the picture has the focus
  port.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !svg) return;
    const step = 60;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step],
                    ArrowDown: [0, -step] };
    const r = port.getBoundingClientRect();
    if (moves[event.key]) { x += moves[event.key][0]; y += moves[event.key][1]; mode = "kept"; apply(); }
    else if (event.key === "+" || event.key === "=") zoomAt(1.25, r.width / 2, r.height / 2);
    else if (event.key === "-") zoomAt(1 / 1.25, r.width / 2, r.height / 2);
    else if (event.key === "f") { mode = "fit"; frame(); }
    else if (event.key === "r") { mode = "readable"; frame(); }
    else return;
    event.preventDefault();
    event.stopPropagation();
  });

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
  onWords();
  onDot();
  return () => {
    disposed = true;
    if (reportTimer !== null) clearTimeout(reportTimer);
    observer.disconnect();
    themeWatch.disconnect();
    model.off("change:max_height", onHeight);
    model.off("msg:custom", onCustom);
    model.off("change:dot", onDot);
    model.off("change:alt", onWords);
    model.off("change:outline", onWords);
  };
}

export default { render };
