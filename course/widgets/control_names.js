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

// keepKeys(root): keys.js, put in front of this module by course/widgets/_esm.py.

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
