// Sphinx writes the navigation's captions as <p role="heading"> without a level, which a screen
// reader cannot place (axe: aria-required-attr); they head the sidebar's lists: level 2.
document.addEventListener("DOMContentLoaded", () => {
  for (const el of document.querySelectorAll('[role="heading"]:not([aria-level])')) {
    el.setAttribute("aria-level", "2");
  }
});
