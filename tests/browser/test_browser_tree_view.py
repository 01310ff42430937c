"""The explorers' pictures in the browser: readable, in view, redrawn fast, pan/zoom/fit working.

Each test writes a one-explorer notebook (default settings) into the server's temporary root,
runs it, and measures the :class:`course.widgets.TreeView` as drawn by Chromium at the issue's
size (the page is 1400 px wide, so the notebook pane is about 968 px):

* the smallest label (SVG ``<text>``) of the picture is at least 10 px high as drawn;
* the picture pane is no wider than the notebook pane, and has zoom controls whose labels fit;
* moving a slider (or choosing an option) redraws the picture (the time is printed);
* ``+``, Ctrl + wheel and a drag change the view; *fit* shows the whole picture (also the next
  one); clicking a node zooms to its subtree; on the ε explorer the nodes glide to new places;
* nothing is written to the browser console as an error.

A screenshot of each explorer is saved in the test's temporary folder (its path is printed), and
in ``$COURSE_SCREENSHOTS`` too when that is set, so a person can look at what a student sees.
"""
from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.browser

FOLDER = "_browser_tree_view"
MIN_LABEL_PX = 10.0
RESPONSE_SECONDS = 1.0

EXPLORERS = {
    "epsilon": ("from course.widgets import epsilon_explorer\nexplorer = epsilon_explorer()\nexplorer",
                re.compile(r"^ε$")),
    "ordering": ("from course.widgets import ordering_explorer\nexplorer = ordering_explorer()\n"
                 "explorer", re.compile(r"^depth$")),
    "chance": ("from course.widgets import chance_pruning_explorer\n"
               "explorer = chance_pruning_explorer()\nexplorer", re.compile(r"U\(a2, c1\)")),
    "step": ("from course.examples import aima_figure_5_2\nfrom course.widgets import step_through\n"
             "explorer = step_through(aima_figure_5_2())\nexplorer", re.compile(r"^step$")),
}

# Measurements of the first TreeView in a region, in CSS pixels.
_JS_MEASURE = """el => {
  const view = el.querySelector('.course-tree-view');
  const port = view.querySelector('.ctv-port'), svg = port.querySelector('svg');
  const p = port.getBoundingClientRect(), s = svg.getBoundingClientRect();
  const pane = el.closest('.jp-Notebook').getBoundingClientRect();
  const labels = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim());
  const visible = labels.map(t => t.getBoundingClientRect())
    .filter(r => r.right > p.left && r.left < p.right && r.bottom > p.top && r.top < p.bottom);
  const scale = s.width / svg.viewBox.baseVal.width;
  const fonts = labels.map(t => parseFloat(t.getAttribute('font-size')) * scale);
  const buttons = Array.from(view.querySelectorAll('.ctv-bar button')).map(b => ({
      text: b.textContent, clipped: b.scrollWidth > b.clientWidth + 1}));
  return {pane: pane.width, port: [p.left, p.top, p.width, p.height],
          svg: [s.left, s.top, s.width, s.height],
          labels: labels.length, visible: visible.length,
          minTextHeight: Math.min(...visible.map(r => r.height)),
          minFontPx: Math.min(...fonts), buttons,
          zoom: view.querySelector('.ctv-zoom').textContent,
          transform: svg.style.transform,
          outputTop: el.getBoundingClientRect().top};
}"""


@pytest.fixture(scope="module")
def explorer_notebooks(lab_server):
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    paths = {}
    for name, (code, _) in EXPLORERS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(code)]
        nbformat.write(nb, folder / f"{name}.ipynb")
        paths[name] = f"{FOLDER}/{name}.ipynb"
    return paths


def _svg_text(lab, view):
    return view.evaluate("el => { const s = el.querySelector('.ctv-port svg'); "
                         "return s ? s.outerHTML : ''; }")


def _wait_picture(lab, view, timeout=30.0):
    view.locator(".course-tree-view .ctv-port svg g.node").first.wait_for(
        state="attached", timeout=timeout * 1000)


def _screenshot(lab, view, tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.png"
    view.scroll_into_view_if_needed()
    view.screenshot(path=str(target))
    keep = os.environ.get("COURSE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(target, Path(keep) / target.name)
    print(f"[{name}] screenshot: {target}")
    return target


def _redraw(lab, view, act) -> tuple[float, int]:
    """Do ``act()``; return the seconds until the picture's SVG changed, and how many
    animations (nodes gliding or fading in) the new picture started with."""
    before = _svg_text(lab, view)
    start = time.monotonic()
    act()
    changed = lab.page.wait_for_function(
        """([el, before]) => { const s = el.querySelector('.ctv-port svg');
             return s && s.outerHTML !== before &&
                    {animations: s.getAnimations({subtree: true}).length}; }""",
        arg=[view.element_handle(), before], timeout=RESPONSE_SECONDS * 1000 * 5, polling="raf")
    return time.monotonic() - start, changed.json_value()["animations"]


@pytest.mark.parametrize("name", list(EXPLORERS))
def test_explorer_picture_is_readable_and_responsive(lab, explorer_notebooks, tmp_path, name):
    lab.open(explorer_notebooks[name])
    lab.run_all()
    assert lab.error_report() == []
    view = lab.output_locator(0)
    _wait_picture(lab, view)
    first = view.evaluate(_JS_MEASURE)
    print(f"[{name}] first view: {first}")
    _screenshot(lab, view, tmp_path, f"{name}-default")

    # readable: every label at least 10 px as drawn, and the visible ones too
    assert first["minFontPx"] >= MIN_LABEL_PX - 0.01, first
    assert first["visible"] > 0 and first["minTextHeight"] >= MIN_LABEL_PX, first
    # nothing wider than the pane; the zoom controls are there and their labels are whole
    assert first["port"][2] <= first["pane"] + 1, first
    labels = [b["text"] for b in first["buttons"]]
    assert {"fit", "readable", "−", "+"} <= set(labels), labels
    assert not any(b["clipped"] for b in first["buttons"]), first["buttons"]

    # a control redraws the picture
    slider = lab.slider(view, EXPLORERS[name][1])
    seconds, animations = _redraw(lab, view, lambda: lab.press_slider(slider, "End"))
    print(f"[{name}] slider End -> new picture in {seconds * 1000:.0f} ms, "
          f"{animations} animations")
    assert seconds < RESPONSE_SECONDS * 2
    if name == "epsilon":                # ε = 100 prunes most of the tree: the nodes move there
        assert animations > 0
    _wait_picture(lab, view)

    # zoom in with the button, with Ctrl + wheel; drag to pan
    port = view.locator(".ctv-port").first
    zoom0 = view.evaluate(_JS_MEASURE)["zoom"]
    lab.click_button(view, re.compile(r"^\+$"))
    zoom1 = view.evaluate(_JS_MEASURE)["zoom"]
    assert int(zoom1.rstrip("%")) > int(zoom0.rstrip("%")), (zoom0, zoom1)
    box = port.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    lab.page.mouse.move(cx, cy)
    lab.page.keyboard.down("Control")
    lab.page.mouse.wheel(0, -300)
    lab.page.keyboard.up("Control")
    lab.page.wait_for_timeout(50)
    zoom2 = view.evaluate(_JS_MEASURE)["zoom"]
    assert int(zoom2.rstrip("%")) > int(zoom1.rstrip("%")), (zoom1, zoom2)
    before = view.evaluate(_JS_MEASURE)["transform"]
    lab.page.mouse.move(cx, cy)
    lab.page.mouse.down()
    lab.page.mouse.move(cx + 60, cy + 30, steps=4)
    lab.page.mouse.up()
    assert view.evaluate(_JS_MEASURE)["transform"] != before

    # fit shows the whole picture inside the pane, and keeps doing so for the next pictures
    lab.click_button(view, "fit")

    def inside(m):
        (pl, pt, pw, ph), (sl, st, sw, sh) = m["port"], m["svg"]
        return sl >= pl - 1 and st >= pt - 1 and sl + sw <= pl + pw + 1 and st + sh <= pt + ph + 1

    fitted = view.evaluate(_JS_MEASURE)
    assert inside(fitted), fitted
    _screenshot(lab, view, tmp_path, f"{name}-fit")
    _redraw(lab, view, lambda: lab.press_slider(slider, "Home"))
    _wait_picture(lab, view)
    assert inside(view.evaluate(_JS_MEASURE))
    fitted = view.evaluate(_JS_MEASURE)

    # clicking a node zooms to its subtree
    node = view.locator(".ctv-port g.node#n_0").first
    node.click()
    focused = view.evaluate(_JS_MEASURE)
    assert (focused["zoom"], focused["transform"]) != (fitted["zoom"], fitted["transform"])

    if name == "step":                   # JupyterLab's dark theme: no bright white block
        try:
            lab.page.evaluate("() => window.jupyterapp.commands.execute("
                              "'apputils:change-theme', {theme: 'JupyterLab Dark'})")
            lab.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'")
            view.locator(".course-tree-view.ctv-dark").wait_for(state="attached")
            lab.page.wait_for_timeout(300)
            _screenshot(lab, view, tmp_path, f"{name}-dark")
        finally:
            lab.page.evaluate("() => window.jupyterapp.commands.execute("
                              "'apputils:change-theme', {theme: 'JupyterLab Light'})")
            lab.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'")
    assert lab.console_errors == [], lab.console_errors
    assert lab.error_report() == []
