// The browser half of course.widgets.drill: a drill's question, its answer form and its results.
//
// A DrillWidget shows two of these panels around its tree picture: the "top" one (the drill's
// name and share code, the controls that pick the next drill, the question, the tree in text)
// and the "answer" one (the form, Check / Show answer, the result, the streak and mastery bar).
// Python owns the drill (trait `drill`: its fields, question, code) and the verdict (trait
// `verdict`); this module only builds the DOM, collects what the student typed and sends it
// (`{type: "check", values}`), and says what changed through one polite live region per panel.
//
// Accessibility: every control is a native element with a visible label (a form of fieldsets,
// one per node); Enter in a box checks the answer; a wrong part gets aria-invalid and a visible
// "✗" mark, never colour alone; focus rings are 3 px; the panel suppresses JupyterLab's notebook
// shortcuts (data-lm-suppress-shortcuts) so arrow keys and letters reach the form.
//
// Element ids are unique in the page, whatever shows the panels: a notebook may hold several
// drills (lesson 2 has two), each panel rendered by its own copy of this module, so the counter
// lives on the page (globalThis), not in the module.  A label's `for` and a field's
// aria-describedby then always name this panel's own elements.
//
// Enter in a text box checks the answer by itself (a keydown handler): JupyterLab's page does
// not submit a form implicitly on Enter (the browser does on a plain page), so the form's submit
// is asked for explicitly, the same in JupyterLab, Notebook 7 and JupyterLite.

const CSS = `
.course-drill { font-family: var(--jp-ui-font-family, sans-serif); font-size: 14px;
  color: var(--jp-ui-font-color1, #1a1a1a); line-height: 1.45; max-width: 60em; }
.course-drill h3 { font-size: 15px; margin: 4px 0 6px 0; }
.course-drill .cd-code { font-family: var(--jp-code-font-family, monospace); font-weight: 600; }
.course-drill .cd-controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: end;
  margin: 6px 0; }
.course-drill label { display: inline-flex; flex-direction: column; gap: 2px; font-size: 13px; }
.course-drill .cd-inline { flex-direction: row; align-items: center; gap: 6px; }
.course-drill select, .course-drill input[type=text] { font: inherit; font-size: 14px;
  padding: 2px 6px; border: 1px solid #767676; border-radius: 3px;
  background: var(--jp-layout-color0, #fff); color: var(--jp-ui-font-color1, #1a1a1a); }
.course-drill input[type=text] { width: 5.5em; }
.course-drill input.cd-code-box { width: 11em; }
.course-drill button { font: inherit; font-size: 14px; padding: 3px 12px; cursor: pointer;
  border-radius: 3px; border: 1px solid #767676; background: var(--jp-layout-color2, #f3f3f3);
  color: var(--jp-ui-font-color1, #1a1a1a); }
.course-drill button.cd-primary { font-weight: 600; }
.course-drill button:hover { background: var(--jp-layout-color3, #e3e3e3); }
.course-drill :focus-visible { outline: 3px solid var(--jp-brand-color1, #1976d2);
  outline-offset: 2px; }
.course-drill fieldset { border: 1px solid var(--jp-border-color2, #d0d0d0); border-radius: 4px;
  margin: 4px 0; padding: 4px 10px 6px 10px; }
.course-drill legend { font-weight: 600; font-size: 13px; padding: 0 4px; }
.course-drill .cd-row { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; }
.course-drill .cd-mark { font-weight: 700; color: var(--jp-error-color1, #c62828); }
.course-drill [aria-invalid=true] { border: 2px solid var(--jp-error-color1, #c62828); }
.course-drill .cd-result { margin: 8px 0; padding: 6px 10px; border-radius: 4px;
  border-left: 5px solid var(--jp-border-color1, #767676);
  background: var(--jp-layout-color1, #fafafa); white-space: pre-wrap; }
.course-drill .cd-result.cd-right { border-left-color: var(--jp-success-color1, #2e7d32); }
.course-drill .cd-result.cd-wrong { border-left-color: var(--jp-error-color1, #c62828); }
.course-drill .cd-result:empty { display: none; }
.course-drill .cd-progress { display: flex; align-items: center; gap: 10px; margin-top: 6px;
  font-size: 13px; flex-wrap: wrap; }
.course-drill .cd-bar { display: inline-flex; gap: 3px; }
.course-drill .cd-bar span { width: 16px; height: 12px; border: 2px solid currentColor;
  border-radius: 2px; background: transparent; box-sizing: border-box; }
.course-drill .cd-bar span.cd-on { background: currentColor; }
.course-drill details { margin: 4px 0; }
.course-drill summary { cursor: pointer; }
.course-drill pre { font-family: var(--jp-code-font-family, monospace); font-size: 13px;
  margin: 4px 0; white-space: pre-wrap; }
.course-drill .cd-error { color: var(--jp-error-color1, #c62828); }
.course-drill .cd-sr { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
`;

function element(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.appendChild(child);
  return node;
}

// A fresh id prefix for each rendered panel, unique in the page (see the header).
function freshId() {
  globalThis.__courseDrillIds = (globalThis.__courseDrillIds || 0) + 1;
  return `cd${globalThis.__courseDrillIds}`;
}

// keepKeys(root): keys.js, put in front of this module by course/widgets/_esm.py.

function render({ model, el }) {
  if (!document.getElementById("course-drill-css")) {
    const style = element("style", { id: "course-drill-css" });
    style.textContent = CSS;
    document.head.appendChild(style);
  }
  const id = freshId();
  el.classList.add("course-drill");
  keepKeys(el);
  const section = model.get("section");
  const live = element("div", { className: "cd-sr", "aria-live": "polite", role: "status" });
  const root = element("div", { role: "region", "aria-label": section === "top"
    ? "Practice drill: the question" : "Practice drill: your answer" });
  el.appendChild(root);
  el.appendChild(live);

  function announce(text) {
    live.textContent = "";
    setTimeout(() => { live.textContent = text; }, 50);   // a change, so it is read again
  }

  // --- the top: what drill this is, how to get another, the question -------------------------
  function renderTop() {
    const d = model.get("drill") || {};
    root.replaceChildren();
    const heading = element("h3", { tabindex: "-1" });
    heading.append(`${d.title || "Drill"} `);
    if (d.code) {
      heading.append("· drill ");
      heading.appendChild(element("span", { className: "cd-code", text: d.code }));
    } else if (d.level) heading.append(`· level ${d.level}`);
    root.appendChild(heading);

    const controls = element("div", { className: "cd-controls", role: "group",
                                      "aria-label": "Choose the next drill" });
    const kind = element("select", { id: `${id}-kind` });
    for (const [value, label] of model.get("kinds") || []) {
      kind.appendChild(element("option", { value, text: label, selected: value === d.kind }));
    }
    const level = element("select", { id: `${id}-level` });
    for (let n = 1; n <= 5; n++) {
      level.appendChild(element("option", { value: n, text: `${n}${n === 1 ? " (4 leaves)" :
        n === 5 ? " (depth 4)" : ""}`, selected: n === (d.level || model.get("next_level")) }));
    }
    controls.append(
      element("label", { for: `${id}-kind` }, document.createTextNode("Kind of question"), kind),
      element("label", { for: `${id}-level` }, document.createTextNode("Level"), level));
    const fresh = element("button", { type: "button", className: "cd-primary",
                                      text: "New drill" });
    fresh.addEventListener("click", () => model.send({ type: "new", kind: kind.value,
                                                       level: Number(level.value) }));
    controls.appendChild(fresh);
    const codeBox = element("input", { type: "text", className: "cd-code-box", id: `${id}-code`,
                                       placeholder: "pruning-3-4182", autocomplete: "off" });
    const load = element("button", { type: "button", text: "Open" });
    const openCode = () => model.send({ type: "new", code: codeBox.value });
    load.addEventListener("click", openCode);
    codeBox.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); openCode(); } });
    controls.append(element("label", { for: `${id}-code` },
                            document.createTextNode("Redo a drill: its code"), codeBox), load);
    root.appendChild(controls);
    if (model.get("message")) {
      root.appendChild(element("p", { className: "cd-error", role: "alert",
                                      text: model.get("message") }));
    }
    root.appendChild(element("p", { text: d.question || "" }));
    if (d.focus_note) root.appendChild(element("p", { text: d.focus_note }));
    const details = element("details", {}, element("summary", { text: "The tree in text" }),
                            element("pre", { text: d.tree_text || "" }));
    root.appendChild(details);
    if (d.recipe) {
      root.appendChild(element("p", { text: "To redo this drill in a cell: " },
                               element("code", { text: d.recipe })));
    }
  }

  // --- the answer: the form, Check, the result, the progress --------------------------------
  const inputs = new Map();      // field id -> element(s)
  const labels = new Map();      // field id -> its label

  function renderAnswer() {
    const d = model.get("drill") || {};
    root.replaceChildren();
    inputs.clear();
    labels.clear();
    const form = element("form", { "aria-label": "Your answer", novalidate: true });
    form.addEventListener("submit", (e) => { e.preventDefault(); check(); });
    let fieldset = null;
    let group = null;
    for (const f of d.fields || []) {
      if (f.group !== group || !fieldset) {
        group = f.group;
        fieldset = element("fieldset", {}, element("legend", { text: f.group }));
        fieldset.appendChild(element("div", { className: "cd-row" }));
        form.appendChild(fieldset);
      }
      const row = fieldset.lastChild;
      labels.set(f.id, f.label);
      const fid = `${id}-${f.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
      const mark = element("span", { className: "cd-mark", id: `${fid}-mark` });
      if (f.kind === "number") {
        const box = element("input", { type: "text", id: fid, inputmode: "text",
                                       autocomplete: "off", spellcheck: "false",
                                       "aria-describedby": `${fid}-mark` });
        box.addEventListener("keydown", (e) => {        // Enter checks (see the header)
          if (e.key !== "Enter" || e.shiftKey || e.ctrlKey || e.altKey || e.metaKey ||
              e.isComposing) return;
          e.preventDefault();
          check();
        });
        row.appendChild(element("label", { for: fid, className: "cd-inline" },
                                document.createTextNode(f.label), box, mark));
        inputs.set(f.id, { kind: "number", box, mark });
      } else if (f.kind === "toggle") {
        const box = element("input", { type: "checkbox", id: fid,
                                       "aria-describedby": `${fid}-mark` });
        row.appendChild(element("label", { for: fid, className: "cd-inline" }, box,
                                document.createTextNode(f.label), mark));
        inputs.set(f.id, { kind: "toggle", box, mark });
      } else if (f.kind === "choice") {
        const radios = [];
        const choice = element("div", { role: "radiogroup", "aria-label": f.label,
                                        className: "cd-row" });
        for (const [value, label] of f.options) {
          const rid = `${fid}-${value.replace(/[^A-Za-z0-9_-]/g, "_")}`;
          const radio = element("input", { type: "radio", name: fid, id: rid, value });
          radios.push(radio);
          choice.appendChild(element("label", { for: rid, className: "cd-inline" }, radio,
                                     document.createTextNode(label)));
        }
        choice.appendChild(mark);
        row.appendChild(choice);
        inputs.set(f.id, { kind: "choice", radios, mark });
      }
    }
    const buttons = element("div", { className: "cd-controls" });
    const checkButton = element("button", { type: "submit", className: "cd-primary",
                                            text: "Check answer" });
    const reveal = element("button", { type: "button", text: "Show answer" });
    reveal.addEventListener("click", () => model.send({ type: "reveal" }));
    buttons.append(checkButton, reveal);
    form.appendChild(buttons);
    root.appendChild(form);
    const result = element("div", { className: "cd-result", id: `${id}-result` });
    root.appendChild(result);
    root.appendChild(element("div", { className: "cd-progress", id: `${id}-progress` }));
    showVerdict(false);
    showProgress();
  }

  function values() {
    const out = {};
    for (const [fid, input] of inputs) {
      if (input.kind === "number") out[fid] = input.box.value;
      else if (input.kind === "toggle") out[fid] = input.box.checked;
      else {
        const chosen = input.radios.find((r) => r.checked);
        out[fid] = chosen ? chosen.value : "";
      }
    }
    return out;
  }

  function fill(answer) {
    for (const [fid, value] of Object.entries(answer || {})) {
      const input = inputs.get(fid);
      if (!input) continue;
      if (input.kind === "number") input.box.value = value;
      else if (input.kind === "toggle") input.box.checked = Boolean(value);
      else for (const r of input.radios) r.checked = r.value === value;
    }
  }

  function check() {
    model.send({ type: "check", values: values() });
  }

  function showVerdict(speak) {
    const v = model.get("verdict") || {};
    const result = root.querySelector(".cd-result");
    if (!result) return;
    const wrong = new Set(v.wrong || []);
    for (const [fid, input] of inputs) {
      const bad = wrong.has(fid);
      const targets = input.kind === "choice" ? input.radios : [input.box];
      for (const t of targets) {
        if (bad) t.setAttribute("aria-invalid", "true");
        else t.removeAttribute("aria-invalid");
      }
      input.mark.textContent = bad ? " ✗ wrong" : "";
    }
    result.classList.toggle("cd-right", Boolean(v.correct));
    result.classList.toggle("cd-wrong", v.checked && !v.correct);
    result.textContent = v.checked ? `${v.summary}\n${v.explanation}` : "";
    if (v.answer) fill(v.answer);
    if (speak && v.checked) announce(`${v.summary} ${v.explanation}`);
  }

  function showProgress() {
    const p = model.get("progress") || {};
    const box = root.querySelector(".cd-progress");
    if (!box) return;
    box.replaceChildren();
    const bar = element("span", { className: "cd-bar", role: "progressbar",
                                  "aria-label": `${p.kind || "drill"} mastery`,
                                  "aria-valuemin": 0, "aria-valuemax": p.window || 5,
                                  "aria-valuenow": p.mastery || 0,
                                  "aria-valuetext": `${p.mastery || 0} of the last ${p.window || 5} right first time` });
    for (let i = 0; i < (p.window || 5); i++) {
      bar.appendChild(element("span", { className: i < (p.mastery || 0) ? "cd-on" : "" }));
    }
    box.append(element("span", { text: `Streak ${p.streak || 0} (best ${p.best || 0})` }), bar,
               element("span", { text: p.line || "" }));
  }

  function onDrill() {
    if (section === "top") {
      renderTop();
      const d = model.get("drill") || {};
      if (model.get("announce_new")) announce(`New drill ${d.code || ""}: ${d.question || ""}`);
    } else {
      renderAnswer();
    }
  }

  // A node of the picture was chosen: its part of the form gets the focus.  A click in the
  // picture answers for a leaf (ticks or unticks its box: the picture answers too); a key on a
  // node of "The tree in text" only goes to the box (Enter there never changes an answer behind
  // the reader's back: Space on the box does, as everywhere).  Either way the box's state is said.
  function onSelect() {
    const s = model.get("select") || {};
    const input = inputs.get(s.field);
    if (!input) return;
    const fromKeys = Boolean(document.activeElement && document.activeElement.closest &&
                             document.activeElement.closest("[role=treeitem]"));
    const target = input.kind === "choice" ? input.radios[0] : input.box;
    target.focus();
    if (input.kind !== "toggle") return;
    const label = (labels.get(s.field) || s.field);
    if (s.toggle && !fromKeys) {
      input.box.checked = !input.box.checked;
      announce(`${label}: ${input.box.checked ? "ticked" : "unticked"}`);
    } else {
      announce(`${label}: ${input.box.checked ? "ticked" : "not ticked"}. Space ticks or unticks it.`);
    }
  }

  const handlers = [
    ["change:drill", onDrill],
    ["change:verdict", () => showVerdict(true)],
    ["change:progress", showProgress],
    ["change:message", () => { if (section === "top") renderTop(); }],
    ["change:select", onSelect],
  ];
  for (const [event, handler] of handlers) model.on(event, handler);
  onDrill();
  return () => { for (const [event, handler] of handlers) model.off(event, handler); };
}

export default { render };
