"""Pictures a screen reader and a keyboard can use (issue 21), checked in Chromium.

One notebook holds a static figure (``draw_tree``), the ε explorer and the step-through.  After
Run All:

* axe-core (WCAG 2.1 A/AA) finds no violation in the outputs -- before this, every static figure
  was an ``<img>`` without ``alt`` and every slider handle was nameless;
* every picture is one image named by its search (static and live alike) and has "The tree in
  text", a nested list with a line per drawn node;
* Chromium's accessibility tree names the pictures and the sliders (printed: what a screen
  reader gets for the ε explorer);
* by keyboard alone: the ε slider moves with the arrow keys and the picture's new summary is
  announced in a live region; the picture takes the focus (a visible ring), arrow keys pan it
  and ``+`` zooms it, and the notebook does not take those keys (the active cell stays).

The attack side (kept): the same page with the text alternatives switched off (the HTML figure
removed, the sliders' names taken away) is what axe fails -- so the test cannot pass vacuously.
"""
from __future__ import annotations

import re

import nbformat
import pytest

pytestmark = pytest.mark.browser

FOLDER = "_browser_a11y_pictures"

CELLS = [
    "from course import alphabeta\nfrom course.draw import draw_tree\n"
    "from course.examples import aima_figure_5_2\n"
    "game = aima_figure_5_2()\ndraw_tree(game, alphabeta(game, trace=True))",
    "from course.widgets import epsilon_explorer\nexplorer = epsilon_explorer()\nexplorer",
    "from course.widgets import step_through\nstep_through(aima_figure_5_2())",
]


@pytest.fixture(scope="module")
def notebook(lab_server):
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, folder / "pictures.ipynb")
    return f"{FOLDER}/pictures.ipynb"


def _ax_nodes(page):
    """Chromium's full accessibility tree as (role, name) pairs."""
    session = page.context.new_cdp_session(page)
    try:
        tree = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    out = []
    for node in tree:
        role = (node.get("role") or {}).get("value", "")
        name = (node.get("name") or {}).get("value", "")
        out.append((role, name))
    return out


def test_pictures_have_text_alternatives_and_work_by_keyboard(lab, notebook, axe):
    lab.open(notebook)
    lab.run_all()
    assert lab.error_report() == []
    page = lab.page
    page.wait_for_function(
        "() => document.querySelectorAll('.course-tree-view .ctv-port svg').length >= 2",
        timeout=30_000)

    # -- the text alternatives -----------------------------------------------------------------
    static = page.locator(".course-picture > [role=img]")
    assert static.count() == 1
    assert static.first.get_attribute("aria-label").startswith(
        "Search tree, alphabeta: value 3, 7 leaves evaluated.")
    ports = page.locator(".course-tree-view .ctv-port[role=img]")
    assert ports.count() == 2
    for i in range(2):
        assert ports.nth(i).get_attribute("aria-label").startswith("Search tree"), i
    for details in page.locator(".course-picture details, .course-tree-view details.ctv-text").all():
        assert details.locator("summary").inner_text() == "The tree in text"
        assert details.locator("li").count() >= 5

    # -- axe on everything the cells show --------------------------------------------------------
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)

    # -- what a screen reader gets -----------------------------------------------------------------
    nodes = _ax_nodes(page)
    images = [name for role, name in nodes if role == "image" and name.startswith("Search tree")]
    sliders = [name for role, name in nodes if role == "slider"]
    print("accessibility tree, pictures:", *images, sep="\n  ")
    print("accessibility tree, sliders:", sliders)
    assert len(images) == 3
    assert "ε" in sliders and "branching" in sliders and "depth" in sliders

    # -- keyboard alone: the ε slider, and the announcement ------------------------------------
    view = lab.output_locator(1)
    live = view.locator(".course-tree-view [aria-live=polite]").first
    before = ports.nth(0).get_attribute("aria-label")
    slider = lab.slider(view, re.compile(r"^ε$"))
    lab.press_slider(slider, "End")
    page.wait_for_function(
        "el => el.textContent.trim() !== ''", arg=live.element_handle(), timeout=10_000)
    said = live.inner_text()
    print("announced after ε → End:", said)
    assert said != before and said == ports.nth(0).get_attribute("aria-label")
    assert "ε=" in said and re.search(r"\d+ lea(f|ves) evaluated", said)

    # -- keyboard alone: the picture pans and zooms, the notebook keeps its active cell -------------
    active = page.evaluate("() => document.querySelector('.jp-Notebook-cell.jp-mod-active') ? "
                           "Array.from(document.querySelectorAll('.jp-Notebook-cell'))"
                           ".indexOf(document.querySelector('.jp-Notebook-cell.jp-mod-active')) : -1")
    port = ports.nth(0)
    port.focus()
    ring = port.evaluate("el => getComputedStyle(el).outlineStyle + ' ' + getComputedStyle(el).outlineWidth")
    assert ring.startswith("solid") and not ring.endswith(" 0px"), ring
    svg = port.locator("svg").first
    moved = svg.evaluate("el => el.style.transform")
    zoom = view.locator(".ctv-zoom").first.inner_text()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    assert svg.evaluate("el => el.style.transform") != moved
    page.keyboard.press("+")
    assert view.locator(".ctv-zoom").first.inner_text() != zoom
    after = page.evaluate("() => Array.from(document.querySelectorAll('.jp-Notebook-cell'))"
                          ".indexOf(document.querySelector('.jp-Notebook-cell.jp-mod-active'))")
    assert after == active, "the notebook took the picture's arrow keys"


def test_without_the_text_alternatives_axe_fails(lab, notebook, axe):
    """The control: strip what this issue added and the same outputs fail axe."""
    lab.open(notebook)
    lab.run_all()
    page = lab.page
    page.wait_for_function(
        "() => document.querySelectorAll('.course-tree-view .ctv-port svg').length >= 2",
        timeout=30_000)
    page.evaluate("""() => {
        for (const fig of document.querySelectorAll('.course-picture')) {
            const img = document.createElement('img');            // what JupyterLab showed before
            img.src = 'data:image/svg+xml,' + encodeURIComponent(fig.querySelector('svg').outerHTML);
            fig.replaceWith(img);
        }
        for (const h of document.querySelectorAll('.noUi-handle')) h.removeAttribute('aria-label');
    }""")
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    rules = {v["id"] for v in violations}
    assert {"image-alt", "aria-input-field-name"} <= rules, rules
