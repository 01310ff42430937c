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
            img.src = fig.querySelector('img').src;
            fig.replaceWith(img);
        }
        for (const h of document.querySelectorAll('.noUi-handle')) h.removeAttribute('aria-label');
    }""")
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    rules = {v["id"] for v in violations}
    assert {"image-alt", "aria-input-field-name"} <= rules, rules


# -- a notebook opened with outputs it did not sign (issue 21) --------------------------------------
#
# A notebook saved on another machine (or on a hub after a reinstall) is opened "not trusted":
# JupyterLab shows its saved outputs through its HTML sanitiser, which drops <svg>, role, aria-*
# and tabindex on a <div>.  The picture was an inline <svg> and showed as a run-on paragraph of
# its labels.  Now it is an <img> of the SVG named by its alt, which the sanitiser keeps.

UNTRUSTED_CELLS = [
    "from course import alphabeta\nfrom course.draw import draw_tree\n"
    "from course.examples import aima_figure_5_2\n"
    "game = aima_figure_5_2()\ndraw_tree(game, alphabeta(game, trace=True))",
    "from course.games.random_trees import random_tree\n"
    "wide = random_tree(3, 4, seed=3)\ndraw_tree(wide, alphabeta(wide, trace=True), max_nodes=150)",
    "from course.draw import legend\nlegend()",
]

# Each picture of the outputs: its image, its name, its size, and whether its box scrolls.
_JS_FIGURES = """() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output .course-picture'), (fig) => {
  const img = fig.querySelector('img'), box = img && img.parentElement;
  const r = img ? img.getBoundingClientRect() : null;
  return {
    svg: fig.querySelectorAll('svg').length,
    alt: img ? img.getAttribute('alt') : null,
    loaded: !!img && img.complete && img.naturalWidth > 0,
    natural: img ? [img.naturalWidth, img.naturalHeight] : null,
    shown: r ? [Math.round(r.width), Math.round(r.height)] : null,
    boxRole: box ? box.getAttribute('role') : null,
    boxName: box ? box.getAttribute('aria-label') : null,
    boxFocusable: !!box && box.tabIndex >= 0,
    scrolls: !!box && box.scrollWidth > box.clientWidth + 1,
    pane: box ? Math.round(box.clientWidth) : null,
    heading: (fig.querySelector('details > summary') || {}).textContent || null,
    items: fig.querySelectorAll('details li').length,
    text: fig.innerText.slice(0, 80),
  };
})"""


@pytest.fixture(scope="module")
def saved_notebook(lab_server):
    """The cells with their outputs saved as a kernel sends them, and no signature."""
    from course import alphabeta
    from course.draw import draw_tree, legend
    from course.examples import aima_figure_5_2
    from course.games.random_trees import random_tree

    game, wide = aima_figure_5_2(), random_tree(3, 4, seed=3)
    pictures = [draw_tree(game, alphabeta(game, trace=True)),
                draw_tree(wide, alphabeta(wide, trace=True), max_nodes=150), legend()]
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    for i, (code, picture) in enumerate(zip(UNTRUSTED_CELLS, pictures), 1):
        cell = nbformat.v4.new_code_cell(code, execution_count=i)
        cell.outputs = [nbformat.v4.new_output("execute_result", picture._repr_mimebundle_(),
                                               execution_count=i)]
        nb.cells.append(cell)
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    nbformat.write(nb, folder / "saved.ipynb")          # nbformat.write does not sign
    return f"{FOLDER}/saved.ipynb", [p.summary for p in pictures], pictures


def _check_figures(figures, summaries, *, trusted: bool):
    assert [f["alt"] for f in figures] == summaries
    for f, name in zip(figures, summaries):
        assert f["svg"] == 0 and f["loaded"], f          # an image, decoded (the SVG is valid)
        assert f["shown"] == f["natural"], f             # at its natural size, never shrunk
        assert f["heading"] in ("The tree in text", "The legend in text") and f["items"] >= 12, f
        if trusted:                                      # one named image that takes the focus
            assert (f["boxRole"], f["boxName"], f["boxFocusable"]) == ("img", name, True), f
        else:                                            # the sanitiser dropped those
            assert f["boxRole"] is None and f["boxName"] is None, f
    wide = figures[1]
    assert wide["natural"][0] > wide["pane"] and wide["scrolls"], wide   # the wide tree scrolls


def test_pictures_show_in_a_notebook_opened_untrusted_and_trusted(lab, saved_notebook, axe):
    path, summaries, _ = saved_notebook
    lab.open(path)
    page = lab.page
    assert not page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets"
                             ".some(c => c.model.trusted)"), "the notebook should be untrusted"
    page.wait_for_function("() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not("
                           ".lm-mod-hidden) .course-picture img')).filter(i => i.complete && "
                           "i.naturalWidth).length === 3", timeout=30_000)
    untrusted = page.evaluate(_JS_FIGURES)
    print("untrusted:", *untrusted, sep="\n  ")
    _check_figures(untrusted, summaries, trusted=False)
    images = [name for role, name in _ax_nodes(page) if role == "image"]
    assert all(name in images for name in summaries), images
    violations = axe.run_axe(page, include=[".jp-NotebookPanel:not(.lm-mod-hidden) "
                                            ".jp-OutputArea-output"])
    assert not violations, "untrusted: " + axe.describe_violations(violations)

    lab.run_all()                                         # the kernel's own outputs: trusted
    assert lab.error_report() == []
    page.wait_for_function("() => Array.from(document.querySelectorAll('.jp-NotebookPanel:not("
                           ".lm-mod-hidden) .course-picture [role=img] img')).filter(i => "
                           "i.complete && i.naturalWidth).length === 3", timeout=30_000)
    trusted = page.evaluate(_JS_FIGURES)
    print("trusted:", *trusted, sep="\n  ")
    _check_figures(trusted, summaries, trusted=True)
    images = [name for role, name in _ax_nodes(page) if role == "image"]
    assert sorted(n for n in images if n in summaries) == sorted(summaries), images  # once each
    violations = axe.run_axe(page, include=[".jp-NotebookPanel:not(.lm-mod-hidden) "
                                            ".jp-OutputArea-output"])
    assert not violations, "trusted: " + axe.describe_violations(violations)
