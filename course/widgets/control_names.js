// The browser half of course.widgets.control_names.ControlNames: an invisible helper placed in
// an explorer that names its ipywidgets controls for assistive technology and keeps the
// notebook's keyboard shortcuts out of them.
//
// ipywidgets 8 draws a slider's handle as a <div role="slider"> with no accessible name (its
// description is a separate <label> that is not tied to it), so a screen reader says "slider"
// and nothing more.  This module gives each handle the description as aria-label and the
// readout as aria-valuetext, again whenever ipywidgets redraws a control, and marks the whole
// explorer data-lm-suppress-shortcuts so arrow keys move a slider or a dropdown instead of the
// notebook's cell selection.

function nameControls(box) {
  for (const slider of box.querySelectorAll(".widget-slider, .widget-hslider, .widget-vslider")) {
    const label = slider.querySelector(".widget-label");
    const name = label ? label.textContent.trim() : "";
    const readout = slider.querySelector(".widget-readout");
    for (const handle of slider.querySelectorAll("[role=slider], .noUi-handle")) {
      if (name && handle.getAttribute("aria-label") !== name) handle.setAttribute("aria-label", name);
      const value = readout ? readout.textContent.trim() : "";
      if (value && handle.getAttribute("aria-valuetext") !== value) {
        handle.setAttribute("aria-valuetext", value);
      }
    }
    if (readout && name && readout.getAttribute("aria-label") !== `${name} value`) {
      readout.setAttribute("aria-label", `${name} value`);
    }
  }
}

// Notebook shortcuts stay out of this widget (issue 21).  Lumino skips its key bindings for a
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

function render({ el }) {
  el.style.display = "none";
  let observer = null;
  let tries = 0;
  // The explorer's box may not hold this view yet when it renders: look again shortly.
  const attach = () => {
    const box = el.closest(".course-explorer");
    if (!box) {
      if (tries++ < 50) setTimeout(attach, 100);
      return;
    }
    keepKeys(box);
    nameControls(box);
    observer = new MutationObserver(() => nameControls(box));
    observer.observe(box, { subtree: true, childList: true, characterData: true });
  };
  attach();
  return () => observer && observer.disconnect();
}

export default { render };
