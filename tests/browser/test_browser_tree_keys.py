"""An explorer's tree, node by node, by keyboard alone (issue 21), checked in Chromium.

"The tree in text" under every explorer is the WAI-ARIA Authoring Practices' *tree view*: one
Tab stop (a roving tabindex), Up/Down to the previous and next visible node, Right to open a
node or go to its first child, Left to close it or go to its parent, Home/End, Enter to do what
a click on the node does.  Each node is named by its description (status, kind, path, value,
window, why it was cut).  The node in focus is ringed in the picture and panned into view.  The
notebook does not take these keys (its active cell stays).  axe-core finds nothing to fault, and
Chromium's accessibility tree shows a tree with levels.

It also measures what each explorer shows when it opens: the whole tree, with no label below
the readable size (11 px) or, for a tree too big for that, as an overview that says its labels
are too small ("zoom to read"); *readable* then shows the root with every label readable.
"""
from __future__ import annotations

import re

import nbformat
import pytest

pytestmark = pytest.mark.browser

FOLDER = "_browser_tree_keys"
CELLS = [
    "from course.widgets import epsilon_explorer, ordering_explorer, chance_pruning_explorer\n"
    "explorer = epsilon_explorer()\nexplorer",
    "ordering_explorer()",
    "chance_pruning_explorer()",
]


@pytest.fixture(scope="module")
def notebook(lab_server):
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, folder / "keys.ipynb")
    return f"{FOLDER}/keys.ipynb"


def _active(page) -> dict:
    return page.evaluate("""() => {
        const a = document.activeElement;
        return {role: a.getAttribute('role'), level: a.getAttribute('aria-level'),
                pos: a.getAttribute('aria-posinset'), size: a.getAttribute('aria-setsize'),
                expanded: a.getAttribute('aria-expanded'), name: a.getAttribute('aria-label'),
                node: a.dataset ? a.dataset.node : null, tabindex: a.tabIndex};
    }""")


def _active_cell(page) -> int:
    return page.evaluate("() => Array.from(document.querySelectorAll('.jp-Notebook-cell'))"
                         ".indexOf(document.querySelector('.jp-Notebook-cell.jp-mod-active'))")


def _tree_items(page) -> list[dict]:
    """Chromium's accessibility tree: the tree items, with their names and levels."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    found = []
    for node in nodes:
        if (node.get("role") or {}).get("value") != "treeitem":
            continue
        props = {p["name"]: (p.get("value") or {}).get("value") for p in node.get("properties", [])}
        found.append({"name": (node.get("name") or {}).get("value", ""), "level": props.get("level"),
                      "expanded": props.get("expanded"), "focused": props.get("focused")})
    return found


def _view_at_open(view) -> dict:
    """Nodes of the picture inside the viewport, the root among them, and the smallest label."""
    return view.locator(".ctv-port").first.evaluate("""port => {
        const p = port.getBoundingClientRect();
        const nodes = Array.from(port.querySelectorAll('g.node'));
        const inside = (r) => r.right > p.left && r.left < p.right && r.bottom > p.top && r.top < p.bottom;
        const seen = nodes.filter((g) => inside(g.getBoundingClientRect()));
        const root = port.querySelector('g.node#n');
        let smallest = Infinity;
        for (const t of port.querySelectorAll('g.node text')) {
            const r = t.getBoundingClientRect();
            if (r.height > 0 && inside(r)) smallest = Math.min(smallest, r.height);
        }
        const view = port.closest('.course-tree-view');
        const note = view.querySelector('.ctv-view-note');
        return {nodes: nodes.length, visible: seen.length,
                root: root ? inside(root.getBoundingClientRect()) : false, smallest,
                view: view.dataset.view, note: note.hidden ? '' : note.textContent};
    }""")


def test_an_explorer_tree_is_walked_node_by_node_by_keyboard(lab, notebook, axe):
    lab.open(notebook)
    lab.run_all()
    assert lab.error_report() == []
    page = lab.page
    page.wait_for_function(
        "() => document.querySelectorAll('.course-tree-view .ctv-port svg g.node').length > 100",
        timeout=60_000)

    # -- what each explorer shows when it opens ---------------------------------------------------
    opened = {name: _view_at_open(lab.output_locator(i)) for i, name in
              enumerate(("epsilon", "ordering", "chance"))}
    print("at open:", opened)
    for name, seen in opened.items():
        assert seen["root"], f"the {name} explorer opens without its root in view: {seen}"
        assert seen["visible"] == seen["nodes"], f"the {name} explorer opens cut: {seen}"
        if seen["smallest"] < 10.5:      # 11 px, as rounded by the text's box
            assert seen["view"] == "overview" and "Zoom to read" in seen["note"], (name, seen)
        else:
            assert seen["view"] == "whole" and not seen["note"], (name, seen)

    # -- "readable" zooms to labels of 11 px, root in view; "fit" shows the whole tree again -------
    wide = lab.output_locator(1)
    wide.locator(".ctv-bar button", has_text="readable").first.click()
    readable = _view_at_open(wide)
    assert readable["smallest"] >= 10.5 and readable["root"], readable
    assert readable["view"] in ("whole", "part"), readable
    wide.locator(".ctv-bar button", has_text="fit").first.click()
    after_fit = _view_at_open(wide)
    assert after_fit["visible"] == after_fit["nodes"] and after_fit["root"], after_fit

    view = lab.output_locator(0)
    # -- into the tree: open "The tree in text", Tab lands on the root (one Tab stop) -------------
    summary = view.locator("details.ctv-text > summary").first
    summary.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    active_cell = _active_cell(page)         # the cell of the explorer, active once it has the focus
    root = _active(page)
    assert root["role"] == "treeitem" and root["level"] == "1" and root["node"] == "n", root
    assert root["expanded"] == "true" and root["tabindex"] == 0
    assert root["name"].startswith(("visited: MAX node root", "MAX node root")), root["name"]
    assert view.locator("[role=treeitem][tabindex='0']").count() == 1          # a roving tabindex
    ring = view.locator("svg .ctv-ring")
    assert ring.count() == 1 and ring.first.get_attribute("stroke") == "#0072B2"

    # -- Down, Right, Left, Home, End ---------------------------------------------------------------
    page.keyboard.press("ArrowDown")
    child = _active(page)
    assert (child["level"], child["pos"]) == ("2", "1") and child["node"] == "n_0", child
    ringed = page.evaluate("() => { const r = document.querySelector('.ctv-ring'); "
                           "const g = r && r.parentNode.querySelector('g.node#n_0'); "
                           "if (!g) return false; const a = r.getBBox(), b = g.getBBox(); "
                           "return a.x <= b.x && a.y <= b.y && a.x + a.width >= b.x + b.width; }")
    assert ringed, "the ring is not around the node in focus"
    page.keyboard.press("ArrowLeft")                     # an open node closes first
    assert _active(page)["expanded"] == "false"
    hidden = view.locator("[role=treeitem][data-node='n_0'] > [role=group]").first
    assert not hidden.is_visible()
    page.keyboard.press("ArrowRight")                    # and opens again
    assert _active(page)["expanded"] == "true"
    page.keyboard.press("ArrowRight")                    # then goes to its first child
    assert _active(page)["node"] == "n_0_0"
    if _active(page)["expanded"] == "true":
        page.keyboard.press("ArrowLeft")                 # (closed first if it has children)
    page.keyboard.press("ArrowLeft")                     # then Left is its parent
    assert _active(page)["node"] == "n_0"
    page.keyboard.press("ArrowUp")
    assert _active(page)["node"] == "n"
    page.keyboard.press("End")
    last = _active(page)
    assert last["role"] == "treeitem" and last["node"] != "n"
    page.keyboard.press("Home")
    assert _active(page)["node"] == "n"

    # -- Enter does what a click does: the picture zooms to the node's subtree -------------------
    page.keyboard.press("ArrowDown")
    svg = view.locator(".ctv-port svg").first
    before = svg.evaluate("el => el.style.transform + el.style.width")
    page.keyboard.press("Enter")
    page.wait_for_function("([el, b]) => el.style.transform + el.style.width !== b",
                           arg=[svg.element_handle(), before], timeout=5_000)

    # -- the notebook did not take any of these keys ---------------------------------------------
    assert _active_cell(page) == active_cell, "the notebook took the tree's keys"

    # -- a new picture keeps the node in focus where it still exists -------------------------------
    page.keyboard.press("Home")
    slider = lab.slider(view, re.compile(r"^ε$"))
    lab.press_slider(slider, "End")
    page.wait_for_timeout(500)
    assert view.locator("[role=treeitem][tabindex='0']").first.get_attribute("data-node") == "n"

    # -- what a screen reader gets, and axe -----------------------------------------------------
    view.locator("[role=treeitem][data-node='n']").first.focus()
    items = _tree_items(page)
    print("accessibility tree, first tree items:", *items[:4], sep="\n  ")
    # the picture is one image named by its summary: Graphviz's ids (edge titles "n->n_0", the
    # graph's "tree") are not read out as a list of groups after it
    session = page.context.new_cdp_session(page)
    try:
        exposed = [(n.get("role") or {}).get("value") + " " + (n.get("name") or {}).get("value", "")
                   for n in session.send("Accessibility.getFullAXTree")["nodes"]
                   if not n.get("ignored") and re.fullmatch(r"(n[\d_]*->n[\d_]*|tree|s[\d_]+)",
                                                           (n.get("name") or {}).get("value", ""))]
    finally:
        session.detach()
    assert not exposed, exposed[:5]
    assert items and items[0]["level"] == 1 and items[0]["focused"] is True
    assert any(i["level"] == 3 for i in items)
    assert "searched with" in items[0]["name"] or "value" in items[0]["name"]
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)

    # -- the same in JupyterLab's dark theme: axe (contrast included) and the focus ring --------
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', "
                  "{theme: 'JupyterLab Dark'})")
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=15_000)
    page.wait_for_timeout(500)
    view.locator("[role=treeitem][data-node='n']").first.focus()
    ring_colour = view.locator("[role=treeitem][data-node='n'] > .ctv-line").first.evaluate(
        "el => getComputedStyle(el).outlineColor")
    background = page.evaluate("() => getComputedStyle(document.querySelector('.jp-Notebook'))"
                               ".backgroundColor")
    ratio = axe.contrast(ring_colour, background)
    print(f"dark theme: focus ring {ring_colour} on {background}: {ratio:.1f}:1")
    assert ratio >= 3, (ring_colour, background, ratio)
    try:
        violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
        assert not violations, axe.describe_violations(violations)
    finally:
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', "
                      "{theme: 'JupyterLab Light'})")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=15_000)


def test_enter_in_the_tree_answers_a_drill_for_its_node(lab, tmp_path, lab_server):
    """A drill answered by clicking nodes (pruning: which nodes are never visited) is answered by
    keyboard too: Enter on a node in "The tree in text" marks it as a click would."""
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(
        "from course.widgets import drill\nclicked = []\nw = drill('pruning', tree=[[3, 5], [2, 9]])\n"
        "w.picture.on_node_click(clicked.append)\nw"),
        nbformat.v4.new_code_cell("print(sorted(clicked))")]
    nbformat.write(nb, folder / "drill_keys.ipynb")
    lab.open(f"{FOLDER}/drill_keys.ipynb")
    lab.run_through(0)
    page = lab.page
    view = lab.output_locator(0)
    view.locator(".course-tree-view details.ctv-text > summary").first.wait_for(timeout=30_000)
    view.locator(".course-tree-view details.ctv-text > summary").first.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")                      # n_1, the second MIN node
    node = _active(page)["node"]
    page.keyboard.press("Enter")
    page.wait_for_timeout(800)
    lab.select_cell(1)                                   # run that cell alone (not the drill again)
    lab.menu("Run", "Run Selected Cell and Do not Advance")
    lab.wait_run_finished(60, upto=2)
    printed = lab.output_locator(1).inner_text()
    assert node in printed or "n_1" in printed, (node, printed)


def test_the_notebook_keeps_save_and_run_while_a_course_control_has_the_focus(lab, lab_server):
    """Arrows, letters, Home/End and Enter belong to the course's controls, but the notebook's own
    commands a student presses anywhere still work from inside them: Ctrl+S saves the notebook
    (not the browser's "Save page as") and Shift+Enter runs the cell."""
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("from course.widgets import ordering_explorer\n"
                                          "ordering_explorer(depth=2, branching=2)")]
    nbformat.write(nb, folder / "save_keys.ipynb")
    lab.open(f"{FOLDER}/save_keys.ipynb")
    lab.run_through(0)
    page = lab.page
    view = lab.output_locator(0)
    summary = view.locator(".course-tree-view details.ctv-text > summary").first
    summary.wait_for(timeout=30_000)
    summary.focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert _active(page)["role"] == "treeitem"
    page.keyboard.press("ArrowDown")                      # the tree's key: the next node
    assert _active(page)["node"] == "n_0"
    dirty = "() => window.jupyterapp.shell.currentWidget.context.model.dirty"
    assert page.evaluate(dirty), "running the cell should have left unsaved changes"
    page.keyboard.press("Control+s")
    page.wait_for_function(f"() => !({dirty})()", timeout=10_000)

    count = "() => document.querySelector('.jp-Notebook-cell .jp-InputPrompt').textContent"
    before = page.evaluate(count)
    view.locator("[role=treeitem][tabindex='0']").first.focus()
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(f"b => ({count})() !== b && !({count})().includes('*')", arg=before,
                           timeout=30_000)
