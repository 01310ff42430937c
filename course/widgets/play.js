// The browser half of course.widgets.play: a game board the student plays on against a search.
//
// Python owns the match (trait `view`: the board, the legal moves, the status, the machine's
// last move with its numbers and minimax's verdict, the log); this module draws it and sends
// the student's move (`{type: "move", index}`, an index into view.legal) or a new game.
//
// Keyboard: tic-tac-toe's nine cells are one tab stop (a roving tabindex); arrow keys move
// between cells, Home/End go to the first/last, Enter or Space plays the focused cell.  Other
// games show their legal moves as buttons (Pig: "roll", "hold").  Each cell says its name and
// what holds it ("centre, empty"); the machine's move and minimax's opinion are announced in a
// polite live region.  The panel suppresses JupyterLab's notebook shortcuts, so arrows and
// letters stay here.

const CSS = `
.course-play { font-family: var(--jp-ui-font-family, sans-serif); font-size: 14px;
  color: var(--jp-ui-font-color1, #1a1a1a); line-height: 1.45; max-width: 60em; }
.course-play h3 { font-size: 15px; margin: 4px 0 6px 0; }
.course-play .cp-top { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.course-play .cp-grid { display: grid; grid-template-columns: repeat(3, 56px);
  grid-template-rows: repeat(3, 56px); gap: 4px; }
.course-play .cp-cell { font: inherit; font-size: 28px; font-weight: 700; width: 56px;
  height: 56px; border: 2px solid #595959; border-radius: 4px; cursor: pointer;
  background: var(--jp-layout-color0, #fff); color: var(--jp-ui-font-color1, #1a1a1a); }
.course-play .cp-cell[aria-disabled=true] { cursor: default; background: var(--jp-layout-color2, #eee); }
.course-play .cp-cell.cp-last { border-color: var(--jp-brand-color1, #1976d2); border-width: 4px; }
.course-play button { font: inherit; font-size: 14px; padding: 3px 12px; cursor: pointer;
  border-radius: 3px; border: 1px solid #767676; background: var(--jp-layout-color2, #f3f3f3);
  color: var(--jp-ui-font-color1, #1a1a1a); }
.course-play button:hover:not([aria-disabled=true]) { background: var(--jp-layout-color3, #e3e3e3); }
.course-play :focus-visible { outline: 3px solid var(--jp-brand-color1, #1976d2); outline-offset: 2px; }
.course-play .cp-moves { display: flex; flex-wrap: wrap; gap: 6px; margin: 6px 0; }
.course-play .cp-status { font-weight: 600; margin: 6px 0; }
.course-play .cp-scores { border-collapse: collapse; margin: 4px 0; }
.course-play .cp-scores th, .course-play .cp-scores td { border: 1px solid var(--jp-border-color2, #ccc);
  padding: 2px 10px; text-align: left; }
.course-play .cp-machine { margin: 6px 0; padding: 6px 10px; border-radius: 4px;
  border-left: 5px solid var(--jp-border-color1, #767676); background: var(--jp-layout-color1, #fafafa); }
.course-play .cp-machine.cp-bad { border-left-color: var(--jp-error-color1, #c62828); }
.course-play .cp-machine.cp-good { border-left-color: var(--jp-success-color1, #2e7d32); }
.course-play .cp-machine dl { display: grid; grid-template-columns: auto 1fr; gap: 0 12px; margin: 4px 0; }
.course-play .cp-machine dt { font-weight: 600; white-space: nowrap; }
.course-play .cp-machine dd { margin: 0; }
.course-play .cp-verdict { font-weight: 600; }
.course-play .cp-controls { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: end; margin: 6px 0; }
.course-play label { display: inline-flex; flex-direction: column; gap: 2px; font-size: 13px; }
.course-play select { font: inherit; font-size: 14px; padding: 2px 6px; border: 1px solid #767676;
  border-radius: 3px; background: var(--jp-layout-color0, #fff); color: var(--jp-ui-font-color1, #1a1a1a); }
.course-play ol { margin: 2px 0; padding-left: 1.6em; }
.course-play pre { white-space: pre-wrap; font-family: var(--jp-code-font-family, monospace); font-size: 12px; }
.course-play .cp-sr { position: absolute; width: 1px; height: 1px; overflow: hidden;
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

let uid = 0;

// keepKeys(root): keys.js, put in front of this module by course/widgets/_esm.py.

function render({ model, el }) {
  if (!document.getElementById("course-play-css")) {
    const style = element("style", { id: "course-play-css" });
    style.textContent = CSS;
    document.head.appendChild(style);
  }
  const id = `cp${++uid}`;
  el.classList.add("course-play");
  keepKeys(el);
  const live = element("div", { className: "cp-sr", "aria-live": "polite", role: "status" });
  const root = element("div", { role: "region", "aria-label": "Play against a search" });
  el.append(root, live);
  let focusCell = 4;          // the cell that holds the grid's tab stop
  let lastAnnounced = -1;
  let waiting = false;

  function announce(text) {
    live.textContent = "";
    setTimeout(() => { live.textContent = text; }, 50);
  }

  function send(message) {
    waiting = true;
    const status = root.querySelector(".cp-status");
    if (status) status.textContent = "The machine is searching…";
    model.send(message);
  }

  function grid(v) {
    const cells = v.board || "";
    const legal = new Map((v.legal || []).map((m, i) => [m.cell, i]));
    const box = element("div", { className: "cp-grid", role: "group",
                                 "aria-label": "The board: arrow keys move, Enter plays" });
    const buttons = [];
    for (let i = 0; i < 9; i++) {
      const mark = cells[i] && cells[i] !== "." ? cells[i] : "";
      const playable = legal.has(i) && v.your_turn && !waiting;
      const label = `${v.cell_names[i]}, ${mark || "empty"}${playable ? "" : mark ? "" : ", not playable now"}`;
      const b = element("button", { type: "button", className: "cp-cell" +
                                    (v.last_cell === i ? " cp-last" : ""),
                                    "aria-label": label, "aria-disabled": !playable,
                                    tabindex: i === focusCell ? "0" : "-1", text: mark });
      b.addEventListener("click", () => {
        focusCell = i;
        if (playable) send({ type: "move", index: legal.get(i) });
      });
      b.addEventListener("focus", () => { focusCell = i; });
      buttons.push(b);
      box.appendChild(b);
    }
    box.addEventListener("keydown", (event) => {
      const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -3, ArrowDown: 3 };
      let next = null;
      if (event.key in moves) {
        next = focusCell + moves[event.key];
        if (event.key === "ArrowLeft" && focusCell % 3 === 0) next = null;
        if (event.key === "ArrowRight" && focusCell % 3 === 2) next = null;
      } else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = 8;
      if (next === null || next < 0 || next > 8) return;
      event.preventDefault();
      buttons[focusCell].setAttribute("tabindex", "-1");
      focusCell = next;
      buttons[next].setAttribute("tabindex", "0");
      buttons[next].focus();
    });
    return box;
  }

  function scores(v) {
    const table = element("table", { className: "cp-scores" });
    table.appendChild(element("caption", { className: "cp-sr", text: "Scores" }));
    for (const [name, value] of v.scores || []) {
      table.appendChild(element("tr", {}, element("th", { scope: "row", text: name }),
                                element("td", { text: String(value) })));
    }
    return table;
  }

  function machine(v) {
    const m = v.last;
    if (!m) return element("p", { text: v.machine_first ? "" : "The machine has not moved yet." });
    const box = element("section", { className: "cp-machine " + (m.agrees ? "cp-good" : "cp-bad"),
                                     "aria-label": "The machine's last move" });
    box.appendChild(element("h3", { text: `The machine's last move: ${m.label}` }));
    const list = element("dl");
    for (const [term, value] of [["value", m.value], ["nodes visited", m.nodes],
                                 ["time", m.time], ["true value", m.true_value]]) {
      list.append(element("dt", { text: term }), element("dd", { text: value }));
    }
    box.appendChild(list);
    box.appendChild(element("p", { className: "cp-verdict",
                                   text: (m.agrees ? "✓ " : "⚠ ") + m.verdict }));
    if (m.error) box.appendChild(element("p", { text: `Problem: ${m.error}` }));
    if (m.output) box.appendChild(element("details", {}, element("summary", { text: "What the search printed" }),
                                          element("pre", { text: m.output })));
    return box;
  }

  function draw() {
    const v = model.get("view") || {};
    root.replaceChildren();
    root.appendChild(element("h3", { text: v.title || "Play" }));
    const controls = element("div", { className: "cp-controls" });
    const side = element("select", { id: `${id}-side` });
    for (const [value, label] of v.sides || []) {
      side.appendChild(element("option", { value, text: label, selected: value === v.human }));
    }
    const again = element("button", { type: "button", text: "New game" });
    again.addEventListener("click", () => send({ type: "new", human: side.value }));
    controls.append(element("label", { for: `${id}-side` }, document.createTextNode("You play"), side),
                    again);
    root.appendChild(controls);
    const status = element("p", { className: "cp-status", text: v.status || "" });
    root.appendChild(status);
    const top = element("div", { className: "cp-top" });
    if (v.kind === "tictactoe") top.appendChild(grid(v));
    else {
      const side = element("div");
      if (v.scores) side.appendChild(scores(v));
      const moves = element("div", { className: "cp-moves", role: "group", "aria-label": "Your moves" });
      (v.legal || []).forEach((m, i) => {
        const b = element("button", { type: "button", text: m.label,
                                      "aria-disabled": !v.your_turn || waiting });
        b.addEventListener("click", () => { if (v.your_turn && !waiting) send({ type: "move", index: i }); });
        moves.appendChild(b);
      });
      side.appendChild(moves);
      top.appendChild(side);
    }
    top.appendChild(machine(v));
    root.appendChild(top);
    const log = element("ol", { "aria-label": "Moves so far" });
    for (const line of v.log || []) log.appendChild(element("li", { text: line }));
    root.appendChild(element("details", { open: (v.log || []).length > 0 && (v.log || []).length < 12 },
                             element("summary", { text: "Moves so far" }), log));
    if ((v.n || 0) !== lastAnnounced) {
      lastAnnounced = v.n || 0;
      if (v.announce) announce(v.announce);
    }
  }

  function onView() {
    waiting = false;
    const hadFocus = root.contains(document.activeElement);
    const focusedCell = document.activeElement && document.activeElement.classList
      && document.activeElement.classList.contains("cp-cell");
    draw();
    if (hadFocus) {
      const target = focusedCell ? root.querySelectorAll(".cp-cell")[focusCell]
        : root.querySelector(".cp-moves button, .cp-cell[tabindex='0'], button");
      if (target) target.focus();
    }
  }
  model.on("change:view", onView);
  draw();
  return () => model.off("change:view", onView);
}

export default { render };
