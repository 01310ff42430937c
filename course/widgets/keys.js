// keys.js: what every course widget's ES module starts with (course/widgets/_esm.py puts it
// in front of the widget's own module, so the four widgets share one copy).

// Notebook shortcuts stay out of a course widget (issue 21).  Lumino skips its key bindings for a
// key whose target, or an ancestor below the matching one, carries data-lm-suppress-shortcuts;
// but the notebook's bindings (arrows, letters) match the focused element itself
// (".jp-Notebook.jp-mod-commandMode :focus"), so only the attribute on that element stops them.
// JupyterLab reads keys on the way up, after our handlers (preventDefault is enough there);
// Jupyter Notebook 7 reads them on the way down, before any handler here: without this, its
// ArrowDown moves to the next cell instead of the next tree node, slider value, option or square.
// Two of the notebook's commands still work from inside: Shift/Ctrl/Alt+Enter (run the cell) and
// Ctrl/Cmd+S (save), as from any other output.  A capturing listener on window sees each key
// before Lumino's on document does, and marks the focused element for it, or unmarks it.
function keepKeys(root) {
  root.classList.add("course-keeps-keys");
  if (window.__courseKeepKeys) return;
  window.__courseKeepKeys = true;
  window.addEventListener("keydown", (event) => {
    const target = event.target;
    if (!target || !target.closest || !target.closest(".course-keeps-keys")) return;
    const command = event.ctrlKey || event.metaKey;
    const notebooks = (event.key === "Enter" && (event.shiftKey || command || event.altKey))
      || (command && !event.altKey && (event.key === "s" || event.key === "S"));
    for (let up = target.parentElement; up && up.closest(".course-keeps-keys"); up = up.parentElement) {
      up.removeAttribute("data-lm-suppress-shortcuts");     // left from an earlier focus
    }
    if (notebooks) target.removeAttribute("data-lm-suppress-shortcuts");
    else target.setAttribute("data-lm-suppress-shortcuts", "true");
  }, true);
}
