// The browser half of course.widgets.live_line.LiveLine: one line of text that a screen reader
// announces whenever it changes (a polite live region, WAI-ARIA role "status").
//
// The region exists from the first render on and only its text changes afterwards, so every new
// line is said (a region added together with its text is not).  `text` is shown bold, `detail`
// after it; both are plain text.

const CSS = `
.course-live-line { margin: 4px 0; font-family: var(--jp-ui-font-family, sans-serif);
  font-size: 13px; color: var(--jp-ui-font-color1, #1a1a1a); line-height: 1.45; }
`;

function render({ model, el }) {
  if (!document.getElementById("course-live-line-css")) {
    const style = document.createElement("style");
    style.id = "course-live-line-css";
    style.textContent = CSS;
    document.head.appendChild(style);
  }
  const line = document.createElement("p");
  line.className = "course-live-line";
  line.setAttribute("role", "status");
  line.setAttribute("aria-live", "polite");
  line.setAttribute("aria-atomic", "true");
  const strong = document.createElement("b");
  const rest = document.createElement("span");
  line.append(strong, rest);
  el.appendChild(line);
  function show() {
    strong.textContent = model.get("text") || "";
    const detail = model.get("detail") || "";
    rest.textContent = detail ? ` ${detail}` : "";
  }
  model.on("change:text", show);
  model.on("change:detail", show);
  show();
  return () => {
    model.off("change:text", show);
    model.off("change:detail", show);
  };
}

export default { render };
