// The browser half of course.widgets.player.Player: one Play/Pause button that steps `value`
// from `min` to `max`, one step every `interval` ms.
//
// Pausing keeps the step shown (ipywidgets' Play has a square "stop" button that jumps back to
// the start, which students took for pause).  Playing from the last step starts again from
// `min`.  The button is a native <button>: Tab reaches it, Space and Enter press it; its
// accessible name says what pressing it does ("Play the search" / "Pause").

const CSS = `
.course-player button { font: inherit; font-size: 13px; padding: 2px 12px; min-width: 6.5em;
  cursor: pointer; border-radius: 3px; border: 1px solid #767676; background: #f3f3f3;
  color: #1a1a1a; }
.course-player button:hover { background: #e3e3e3; }
.course-player button:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
`;

function render({ model, el }) {
  if (!document.getElementById("course-player-css")) {
    const style = document.createElement("style");
    style.id = "course-player-css";
    style.textContent = CSS;
    document.head.appendChild(style);
  }
  el.classList.add("course-player");
  const button = document.createElement("button");
  button.type = "button";
  el.appendChild(button);
  let timer = null;

  function show() {
    const playing = model.get("playing");
    button.textContent = playing ? "❚❚ pause" : "▶ play";
    button.setAttribute("aria-label", playing ? "Pause" : model.get("label") || "Play");
    button.title = playing ? "Pause (the step shown stays)" : "Play the steps one by one";
  }

  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  }

  function tick() {
    timer = null;
    if (!model.get("playing")) return;
    const next = model.get("value") + model.get("step");
    if (next > model.get("max")) {
      model.set("playing", false);
    } else {
      model.set("value", next);
      if (next >= model.get("max")) model.set("playing", false);
      else timer = setTimeout(tick, model.get("interval"));
    }
    model.save_changes();
  }

  function onPlaying() {
    show();
    stop();
    if (model.get("playing")) {
      if (model.get("value") >= model.get("max")) {      // from the end: start again
        model.set("value", model.get("min"));
        model.save_changes();
      }
      timer = setTimeout(tick, model.get("interval"));
    }
  }

  button.addEventListener("click", () => {
    model.set("playing", !model.get("playing"));
    model.save_changes();
  });
  model.on("change:playing", onPlaying);
  model.on("change:label", show);
  show();
  if (model.get("playing")) onPlaying();
  return () => {
    stop();
    model.off("change:playing", onPlaying);
    model.off("change:label", show);
  };
}

export default { render };
