"""Pictures and explorers in Jupyter Notebook 7 as in JupyterLab (issue 21), checked in Chromium.

Notebook 7 (the ``notebook`` package, which nbgrader 0.9 depends on, so every course install
has it) is what a student gets from ``jupyter notebook``.  It is built from JupyterLab's pieces
but is its own application: one document per page, its own shell, menus, keyboard shortcuts and
CSS.  The session's JupyterLab server (``lab_server``) serves it too, at ``/notebooks/<path>``;
these tests open the lessons there in a page of their own (the session's browser, a second
context), so no server is started for them.

* Run > Run All Cells on a lesson draws every picture: every static figure (its SVG has nodes),
  every plot image (decoded, non-empty) and every explorer (its SVG has nodes); no picture says
  "Cannot draw this picture", no output is an error; axe-core finds no WCAG 2.1 A/AA violation
  in the outputs.  Lesson 05 (an ε explorer, a step-through and games) and lesson 02.
* By keyboard alone in lesson 02: the ordering explorer's "tree in text" (a WAI-ARIA tree)
  takes the focus and the arrow keys move between its tree items; its slider and dropdown, a
  drill's menu and answer box and the game board take their keys; Notebook 7's own shortcuts
  (which it reads before a widget does, unlike JupyterLab) never move its active cell.
* Saved and reloaded (Notebook 7 is one notebook per tab, and tabs get reloaded), lesson 02
  draws the same pictures again with its kernel still running.

Lesson 02 is run once for the last three tests (05 runs first; the later tests reuse the page
and run it again only if they find it elsewhere), which keeps the module near 80 s.
Screenshots go to the test's temporary folder, and to ``$COURSE_SHOTS`` (as ``nb7-*.png``) when
that variable names a folder.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lab_driver import Notebook7

pytestmark = pytest.mark.browser

# 05 first: the keyboard and reload tests then find lesson 02 run and shown
LESSONS = ["lessons/05_bounded_suboptimal.ipynb", "lessons/02_alpha_beta.ipynb"]
KEYS_LESSON = "lessons/02_alpha_beta.ipynb"

# Every picture in the notebook's outputs, and what is wrong with any of them: a static figure
# or explorer whose SVG has no node, an image that did not decode, an explorer still waiting or
# showing an error, any output saying "Cannot draw this picture".  A view given no picture yet
# (a game's search tree before the first move) says "No picture." and is counted apart.
_JS_PICTURES = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const outs = Array.from(panel.querySelectorAll('.jp-OutputArea-output'));
  const drawn = {figures: 0, images: 0, explorers: 0, empty: 0}, wrong = [];
  for (const out of outs) {
    for (const fig of out.querySelectorAll('.course-picture')) {
      // an <img> of the SVG (TreePicture.html), decoded, whose SVG has nodes
      const im = fig.querySelector('img[alt]');
      im && im.complete && im.naturalWidth > 0 && im.src.startsWith('data:image/svg+xml;base64,')
        && atob(im.src.split(',')[1]).includes('class="node"') ? drawn.figures++
        : wrong.push('static figure without nodes: ' + fig.textContent.slice(0, 80));
    }
    for (const img of out.querySelectorAll('img')) {
      img.complete && img.naturalWidth > 0 ? drawn.images++
        : wrong.push('image not decoded: ' + (img.alt || img.src).slice(0, 80));
    }
    for (const view of out.querySelectorAll('.course-tree-view')) {
      const error = (view.querySelector('.ctv-error') || {}).textContent || '';
      if (error.trim()) wrong.push('explorer: ' + error.trim().slice(0, 160));
      else if ((view.querySelector('.ctv-port') || {getAttribute: () => ''})
                 .getAttribute('aria-label') === 'No picture.') drawn.empty++;   // nothing yet (a game before its first move)
      else if (!view.querySelector('.ctv-port svg g.node')) {
        const cell = out.closest('.jp-Cell'), port = view.querySelector('.ctv-port');
        wrong.push('explorer not drawn in cell ' + Array.from(cell.parentNode.children).indexOf(cell) +
                   ': ' + (port ? port.getAttribute('aria-label') : 'no viewport'));
      }
      else drawn.explorers++;
    }
    if (out.textContent.includes('Cannot draw this picture'))
      wrong.push('says: ' + out.textContent.slice(out.textContent.indexOf('Cannot draw'), 200));
  }
  return {drawn, wrong};
}"""

# True once every explorer of the page has drawn or said why not.
_JS_EXPLORERS_SETTLED = """() => Array.from(document.querySelectorAll(
    '.jp-NotebookPanel:not(.lm-mod-hidden) .course-tree-view')).every(v =>
      v.querySelector('.ctv-port svg g.node') ||
      (v.querySelector('.ctv-error') || {}).textContent.trim() ||
      (v.querySelector('.ctv-port') || {getAttribute: () => ''}).getAttribute('aria-label') === 'No picture.')"""


def _shoot(what, tmp_path: Path, name: str) -> Path:
    """Save a screenshot of ``what`` (a page, or a locator: that element scrolled into view) in
    the test's folder, and in ``$COURSE_SHOTS`` as ``nb7-<name>.png``."""
    target = tmp_path / f"nb7-{name}.png"
    what.screenshot(path=str(target))
    shots = os.environ.get("COURSE_SHOTS")
    if shots and Path(shots).is_dir():
        target.replace(Path(shots) / target.name)
        return Path(shots) / target.name
    return target


@pytest.fixture(scope="module")
def _nb7_page(browser, lab_server):
    """One Notebook 7 page for the module, in its own context of the session's browser."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    page = context.new_page()
    notebook7 = Notebook7(page, lab_server)
    notebook7.load()
    yield notebook7
    notebook7.close_all()
    context.close()


@pytest.fixture
def nb7(_nb7_page):
    """Notebook 7 in the browser.  A test leaves its notebook shown (the next one may use it);
    :meth:`Notebook7.open` shuts the kernels of the page down before it opens another."""
    _nb7_page.console_errors.clear()
    _nb7_page.dismiss_dialogs()
    yield _nb7_page


@pytest.mark.parametrize("lesson", LESSONS)
def test_run_all_draws_every_picture_in_notebook7(nb7, lesson, axe, tmp_path):
    start = time.monotonic()
    nb7.open(lesson)
    assert nb7.page.evaluate("() => window.jupyterapp.name") == "Jupyter Notebook"
    state = nb7.run_all(timeout=240)
    ran = time.monotonic() - start
    problems = nb7.error_report()
    assert not problems, f"{lesson} shows errors after Run All Cells in Notebook 7:\n" + \
        "\n".join(problems)
    unnumbered = [i for i, c in enumerate(state["cells"]) if c["type"] == "code"
                  and c["source"].strip() and not any(ch.isdigit() for ch in c["prompt"])]
    assert not unnumbered, f"{lesson}: cells {unnumbered} were not run by Run All Cells"
    nb7.page.wait_for_function(_JS_EXPLORERS_SETTLED, timeout=60_000)
    pictures = nb7.page.evaluate(_JS_PICTURES)
    name = Path(lesson).stem
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"
    shots = [_shoot(nb7.page.locator(f"{panel}:has(.course-picture)").first, tmp_path,
                    f"{name}-figure")]
    explorers = nb7.page.locator(f"{panel}:has(.course-explorer .course-tree-view)")
    shots += [_shoot(explorers.nth(i), tmp_path, f"{name}-explorer{i}")
              for i in range(explorers.count())]
    print(f"{lesson}: Run All {ran:.1f} s; drawn {pictures['drawn']}; screenshots "
          f"{[str(s) for s in shots]}")
    assert not pictures["wrong"], f"{lesson} in Notebook 7: {pictures['wrong'][:5]}"
    expected_figures = sum(c["source"].count("draw_tree(") for c in state["cells"]
                           if c["type"] == "code")
    assert pictures["drawn"]["figures"] + pictures["drawn"]["explorers"] >= expected_figures, \
        pictures["drawn"]
    assert pictures["drawn"]["explorers"] >= 1, f"{lesson}: no explorer drawn {pictures['drawn']}"
    violations = axe.run_axe(nb7.page, include=[".jp-NotebookPanel:not(.lm-mod-hidden) "
                                                ".jp-OutputArea-output"])
    assert not violations, f"{lesson} in Notebook 7: " + axe.describe_violations(violations)


def _active(page) -> dict:
    return page.evaluate("""() => {
        const a = document.activeElement;
        return {role: a.getAttribute('role'), level: a.getAttribute('aria-level'),
                pos: a.getAttribute('aria-posinset'), node: a.dataset ? a.dataset.node : null,
                expanded: a.getAttribute('aria-expanded'), label: a.getAttribute('aria-label'),
                tag: a.tagName};
    }""")


def _active_cell(page) -> int:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.content.activeCellIndex")


def test_controls_keep_their_keys_in_notebook7(nb7, tmp_path):
    """By keyboard alone in lesson 02 (after the Run All above, else run again): the ordering
    explorer's tree view (role=tree) takes the focus and the arrow keys move between its tree
    items; its slider and dropdown, the drill's answer box and menu, and the game board take
    their keys too -- and Notebook 7 never moves its active cell.

    Notebook 7 reads its shortcuts on the way down (capture phase), before a widget sees the key;
    JupyterLab on the way up, after it.  So a control that works in JupyterLab may lose its keys
    here: this test is what caught it (course/widgets/*.js ``keepKeys``)."""
    state = nb7.state()
    if not (state and state["path"] == KEYS_LESSON and all(
            any(ch.isdigit() for ch in c["prompt"]) for c in state["cells"]
            if c["type"] == "code" and c["source"].strip())):
        nb7.open(KEYS_LESSON)
        nb7.run_all(timeout=240)
    page = nb7.page
    page.wait_for_function(_JS_EXPLORERS_SETTLED, timeout=60_000)
    view = nb7.output_locator(nb7.find_cell("ordering_explorer("))
    failures = []

    # -- the explorer's tree view: Tab to the root, arrows move between tree items -------------
    summary = view.locator("details.ctv-text > summary").first
    summary.scroll_into_view_if_needed()
    summary.focus()
    page.keyboard.press("Enter")                          # open "The tree in text"
    page.keyboard.press("Tab")                            # one Tab stop: the root
    active_cell = _active_cell(page)
    root = _active(page)
    assert root["role"] == "treeitem" and root["level"] == "1" and root["node"] == "n", root
    page.keyboard.press("ArrowDown")
    child = _active(page)
    if (child["role"], child["level"], child["pos"], child["node"]) != ("treeitem", "2", "1", "n_0"):
        failures.append(f"tree: ArrowDown from the root went to {child}, cell "
                        f"{_active_cell(page)} active (was {active_cell})")
    else:
        page.keyboard.press("ArrowDown")
        assert _active(page)["level"] == "3", _active(page)
        if _active(page)["expanded"] == "true":
            page.keyboard.press("ArrowLeft")              # an open node closes first
        page.keyboard.press("ArrowLeft")                  # then Left goes to its parent
        assert _active(page)["node"] == "n_0"
        page.keyboard.press("ArrowLeft")                  # an open node closes
        assert _active(page)["expanded"] == "false"
        page.keyboard.press("ArrowRight")
        assert _active(page)["expanded"] == "true"
        page.keyboard.press("End")
        assert _active(page)["role"] == "treeitem" and _active(page)["node"] != "n"
        page.keyboard.press("Home")
        assert _active(page)["node"] == "n"
        page.keyboard.press("ArrowDown")
        assert _active(page)["node"] == "n_0", "the focus left the tree"
        assert view.locator("svg .ctv-ring").count() == 1, "the node in focus is not ringed"
        if _active_cell(page) != active_cell:
            failures.append("tree: Notebook 7 moved its active cell on the tree's keys")
    _shoot(page, tmp_path, "tree-keys")                  # the focused item, ringed

    def check(what: str, locator, key: str, read: str, *, type_text: str = "") -> None:
        """Focus ``locator``, press ``key`` (or type ``type_text``); ``read`` (a JS function of
        the element) must change and the active cell must stay."""
        locator.scroll_into_view_if_needed()
        locator.focus()
        handle = locator.element_handle()
        before, cell = handle.evaluate(read), _active_cell(page)
        page.keyboard.type(type_text) if type_text else page.keyboard.press(key)
        try:
            page.wait_for_function(f"([el, b]) => ({read})(el) !== b", arg=[handle, before],
                                   timeout=3_000)
        except Exception:  # noqa: BLE001 - reported with the others below
            failures.append(f"{what}: {type_text or key} left it at {before!r}; focus on "
                            f"{_active(page)}")
        if _active_cell(page) != cell:
            failures.append(f"{what}: Notebook 7 moved its active cell from {cell} to "
                            f"{_active_cell(page)}")

    check("slider", view.locator(".widget-slider .noUi-handle").first, "ArrowRight",
          "el => el.getAttribute('aria-valuenow')")
    check("dropdown", view.locator(".widget-dropdown select").first, "ArrowDown",
          "el => el.selectedIndex")
    drill = nb7.output_locator(nb7.find_cell('drill("window"'))
    check("drill menu", drill.locator(".course-drill select").first, "ArrowDown",
          "el => el.selectedIndex")
    check("drill answer", drill.locator(".course-drill input[type=text]").first, "",
          "el => el.value", type_text="-3")
    board = nb7.output_locator(nb7.find_cell("play_tictactoe()"))
    check("board", board.locator(".cp-cell[tabindex='0']").first, "ArrowRight",
          "el => document.activeElement.getAttribute('aria-label')")
    assert not failures, "Notebook 7 took keys the course's controls need:\n" + "\n".join(failures)


def test_pictures_draw_again_after_saving_and_reloading(nb7, lab_server, tmp_path):
    """Notebook 7 shows one notebook per browser tab, and students save and reload tabs: with
    the kernel still running, every picture of lesson 02 (after the Run All above, else run
    again) draws again from the saved outputs and the widget state the page gets back from the
    kernel (Viz.js included).  The server's copy of the lesson is put back afterwards."""
    served = lab_server.root / KEYS_LESSON
    original = served.read_bytes()
    state = nb7.state()
    if not (state and state["path"] == KEYS_LESSON):
        nb7.open(KEYS_LESSON)
        nb7.run_all(timeout=240)
    page = nb7.page
    page.wait_for_function(_JS_EXPLORERS_SETTLED, timeout=60_000)
    before = page.evaluate(_JS_PICTURES)["drawn"]
    try:
        nb7.menu("File", "Save Notebook")
        page.wait_for_function(
            "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        start = time.monotonic()
        page.reload()
        page.wait_for_function("() => !!(window.jupyterapp && window.jupyterapp.shell)")
        nb7._wait_notebook_ready(KEYS_LESSON, 60)
        page.wait_for_function(
            "n => document.querySelectorAll('.jp-NotebookPanel .course-tree-view').length >= n",
            arg=before["explorers"] + before["empty"], timeout=30_000)
        page.wait_for_function(_JS_EXPLORERS_SETTLED, timeout=30_000)
        after = page.evaluate(_JS_PICTURES)
        print(f"after saving and reloading: {after['drawn']} in {time.monotonic() - start:.1f} s")
        _shoot(page.locator(".jp-OutputArea-output:has(.course-explorer .course-tree-view)")
               .first, tmp_path, "reloaded-explorer")
    finally:
        served.write_bytes(original)
    assert not after["wrong"], after["wrong"][:5]
    assert after["drawn"] == before, (before, after["drawn"])
