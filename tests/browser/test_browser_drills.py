"""Drills, play and the step-through's player in the browser, by keyboard, checked with axe-core.

* A drill answered by keyboard alone (Tab, Space, Enter) with a wrong answer: the result names the
  node that decided, the live region announces it, the picture shows the search stopped there,
  and axe finds no WCAG 2.1 A/AA violation in the output.
* Tic-tac-toe played by keyboard alone (arrow keys and Enter on the board) against the course's
  alpha-beta to the end: it never loses and always agrees with minimax; then against a
  deliberately broken search (it maximises at every node): its disagreement with minimax is shown
  and announced.  axe-clean too.
* The step-through's Play/Pause: pausing keeps the step shown (ipywidgets' Play had a square
  button that reset it to step 0).
* Two drills in one notebook: every element id is unique in the page, a click on the second
  drill's label ticks the second drill's box, and Chromium's accessibility tree names each select
  and tick box by its own drill's label.
* Enter in a drill's text box checks the answer in JupyterLab; a Star1 drill checks the rows the
  cut leaves empty (star1-1-76390 with a row after C2 is not right) and "Show answer" clears them.
* Enter on a node of "The tree in text" of a pruning drill goes to the leaf's box and says its
  state: it never unticks an answer.
* A drill's picture after "Check answer" (levels 3 and 5): the node asked about and every leaf
  inside the picture's viewport, labels at the readable size.
* The mastery bar on the dark theme: its boxes at least 3:1 against the background.
* The kinds added for the misconception catalogue (root, c6, bounds) and the Star2 drill by
  keyboard: every box named by its label in Chromium's accessibility tree (Star2's "which bound"
  radio groups and radios too, chosen with Space), Enter checks, the result announced, axe-clean.

Each test writes a one-purpose notebook into the server's temporary root and shares the session's
JupyterLab.  Screenshots go to the test's temporary folder, and to ``$COURSE_SCREENSHOTS`` when
set (``23-drill-wrong.png``, ``23-play.png``).
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

FOLDER = "_browser_drills"

BROKEN = '''from course import Player

def max_everywhere(game, state):
    "Alpha-beta's mistake of the missing negation: every node maximises."
    def value(s):
        if game.is_terminal(s):
            return game.utility(s)
        return max(value(game.result(s, m)) for m in game.moves(s))
    return max((value(game.result(state, m)), m) for m in game.moves(state))

broken = play_tictactoe(max_everywhere, human="X", seed=1)
broken'''

NOTEBOOKS = {
    "drill": ["from course.widgets import drill\nw = drill('pruning', level=2, seed=4)\nw"],
    "two": ["from course.widgets import drill\ndrill('pruning', level=1, seed=7)",
            "drill('pruning', level=1, seed=12)"],
    "star1": ["from course.widgets import drill\ndrill(code='star1-1-76390')"],
    "kinds": ["from course.widgets import drill\ndrill('root', level=3, seed=2)",
              "drill('c6', level=3, seed=2)", "drill('bounds', level=3, seed=2)",
              "drill('star2', level=3, seed=3)"],
    "sizes": ["from course.widgets import drill\ndrill('pruning', level=3, seed=4)",
              "drill('pruning', level=5, seed=4)", "drill('star1', level=5, seed=4)",
              "drill('c6', level=5, seed=3)"],       # SIZES below
    "play": ["from course.widgets import play_tictactoe\ngame = play_tictactoe(human='X', seed=1)\ngame",
             BROKEN],
    "step": ["from course.examples import aima_figure_5_2\nfrom course.widgets import step_through\n"
             "st = step_through(aima_figure_5_2(), interval=250)\nst"],
}


@pytest.fixture(scope="module")
def notebooks(lab_server):
    folder = lab_server.root / FOLDER
    folder.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
        nbformat.write(nb, folder / f"{name}.ipynb")
    return folder


def _open(lab, name):
    lab.open(f"{FOLDER}/{name}.ipynb")
    lab.run_all()
    problems = lab.error_report()
    assert not problems, "\n".join(problems)


def _shot(region, tmp_path, name):
    """Screenshot of ``region`` whole: the page is made tall enough for it, then put back."""
    target = Path(tmp_path) / name
    page = region.page
    size = page.viewport_size
    height = region.evaluate("el => el.getBoundingClientRect().height")
    page.set_viewport_size({"width": size["width"], "height": int(max(size["height"], height + 300))})
    try:
        region.scroll_into_view_if_needed()
        region.screenshot(path=str(target))
    finally:
        page.set_viewport_size(size)
    keep = os.environ.get("COURSE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(target, Path(keep) / name)
    print(f"screenshot: {target}")


def _tab_to(page, accessible_name: str, limit: int = 40) -> None:
    """Press Tab until the focused element's text or aria-label is ``accessible_name``."""
    for _ in range(limit):
        name = page.evaluate("() => { const e = document.activeElement; "
                             "return e.getAttribute('aria-label') || e.textContent.trim(); }")
        if name == accessible_name:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {accessible_name!r}")


def _live(region) -> str:
    """What the region's live region says now (its text is set 50 ms after it is cleared)."""
    live = region.locator("[aria-live]").last
    region.page.wait_for_function("el => el.textContent.trim() !== ''", arg=live.element_handle(),
                                  timeout=10_000)
    return live.inner_text().strip()


def test_a_drill_by_keyboard_explains_a_wrong_answer(lab, notebooks, axe, tmp_path):
    _open(lab, "drill")
    out = lab.output_locator(0)
    out.locator(".course-drill input[type=checkbox]").first.wait_for(state="visible")
    out.locator(".course-drill input[type=checkbox]").first.focus()     # then the keyboard only
    page = lab.page
    page.keyboard.press("Space")              # B1 ticked: wrong (a first child is always searched)
    page.keyboard.press("Shift+Tab")          # back out of the form, then forward to Check
    page.keyboard.press("Tab")
    _tab_to(page, "Check answer")
    page.keyboard.press("Enter")
    result = out.locator(".cd-result")
    page.wait_for_function("el => el.textContent.includes('of 6 right')", arg=result.element_handle(),
                           timeout=15_000)
    text = result.inner_text()
    assert "B1 is looked at. B (MIN) is searched, and a node always looks at its first child" in text
    assert "D2 is" not in text                # the first difference only
    assert out.locator("input[aria-invalid=true]").count() == 2      # B1, and D2 left unticked
    page.wait_for_function("el => el.textContent.includes('B1 is looked at')",
                           arg=out.locator(".course-drill [aria-live]").nth(1).element_handle())
    assert lab.wait_current_nodes(out, ["n_0"]) == ["n_0"]  # the search stopped at B, drawn as current
    # the missed cut: untick B1, check again
    out.locator("#" + out.locator("input[type=checkbox]").first.get_attribute("id")).focus()
    page.keyboard.press("Space")
    _tab_to(page, "Check answer")
    page.keyboard.press("Enter")
    page.wait_for_function("el => el.textContent.includes('D2 is never looked at')",
                           arg=result.element_handle(), timeout=15_000)
    text = result.inner_text()
    assert ("At D (MIN), after child D1 returned 1, the value so far is v = 1 ≤ α = 5 (α = 5 is "
            "what MAX at A is already sure of: its child C is worth 5)") in text
    assert lab.wait_current_nodes(out, ["n_2"]) == ["n_2"]
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)
    _shot(out, tmp_path, "23-drill-wrong.png")
    assert lab.console_errors == []


def _board(out) -> str:
    return "".join((t or ".") for t in out.locator(".cp-cell").all_inner_texts())


def _play_cell(page, out, cell: int) -> None:
    """Move the board's focus to ``cell`` with Home and the arrow keys, then press Enter."""
    out.locator(".cp-cell[tabindex='0']").focus()
    page.keyboard.press("Home")
    for _ in range(cell // 3):
        page.keyboard.press("ArrowDown")
    for _ in range(cell % 3):
        page.keyboard.press("ArrowRight")
    before = _board(out)
    page.keyboard.press("Enter")
    page.wait_for_function(
        "([el, before]) => { const cells = Array.from(el.querySelectorAll('.cp-cell'))"
        ".map(c => c.textContent || '.').join(''); const s = el.querySelector('.cp-status');"
        " return cells !== before && s && !s.textContent.includes('searching'); }",
        arg=[out.element_handle(), before.replace("", "")], timeout=60_000)


def _play_to_the_end(page, out, announcements: list) -> str:
    for _ in range(6):
        status = out.locator(".cp-status").inner_text()
        if "Game over" in status:
            return status
        board = _board(out)
        _play_cell(page, out, board.index("."))
        announcements.append(_live(out))
    return out.locator(".cp-status").inner_text()


def test_tictactoe_against_alphabeta_and_against_a_broken_search(lab, notebooks, axe, tmp_path):
    _open(lab, "play")
    page = lab.page
    good = lab.output_locator(0)
    good.locator(".cp-cell").first.wait_for(state="visible")
    heard: list[str] = []
    status = _play_to_the_end(page, good, heard)
    assert "Game over" in status and "you win" not in status, status
    machine_moves = [h for h in heard if "The machine played" in h]
    assert machine_moves and all("Agrees with minimax" in h for h in machine_moves), heard
    assert "✓ Agrees with minimax" in good.locator(".cp-machine").inner_text()
    assert good.locator(".course-tree-view svg g.node").count() > 3      # its search, drawn

    bad = lab.output_locator(1)
    bad.scroll_into_view_if_needed()
    heard = []
    _play_cell(page, bad, 4)
    heard.append(_live(bad))
    machine = bad.locator(".cp-machine").inner_text()
    if "Disagrees" not in machine:            # not every position shows it at once
        _play_cell(page, bad, _board(bad).index("."))
        heard.append(_live(bad))
        machine = bad.locator(".cp-machine").inner_text()
    assert "⚠ Disagrees with minimax" in machine, machine
    assert any("Disagrees with minimax" in h for h in heard), heard
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)
    _shot(bad, tmp_path, "23-play.png")
    status = _play_to_the_end(page, bad, heard)
    assert "Game over" in status
    assert lab.console_errors == []


def test_the_step_through_pauses_where_it_is(lab, notebooks):
    _open(lab, "step")
    out = lab.output_locator(0)
    buttons = out.locator(".course-player button, .widget-play button")
    buttons.first.wait_for(state="visible")
    readout = out.locator(".widget-readout").first
    buttons.first.click()                                     # play
    lab.page.wait_for_function("el => Number(el.textContent) >= 3", arg=readout.element_handle(),
                               timeout=10_000)
    # what a student presses to pause: the button now named "Pause" (with ipywidgets' Play it was
    # the square one beside play/pause, which jumped back to step 0)
    named = out.get_by_role("button", name="Pause")
    (named if named.count() else out.locator(".widget-play button").nth(1)).click()
    time.sleep(0.3)
    paused = int(readout.inner_text())
    time.sleep(1.0)                       # four intervals: a playing player would have moved
    assert int(readout.inner_text()) == paused > 0, f"paused at {paused}: reset or still playing"
    assert out.locator("button", has_text=re.compile("■|stop", re.IGNORECASE)).count() == 0
    out.get_by_role("button", name="Play the search step by step").click()
    lab.page.wait_for_function("([el, n]) => Number(el.textContent) > n",
                               arg=[readout.element_handle(), paused], timeout=10_000)


# --- two drills in one notebook ---------------------------------------------------------------------
def _ax_names(page, selector: str) -> list[str]:
    """Chromium's accessible name of every element ``selector`` matches, in document order."""
    session = page.context.new_cdp_session(page)
    try:
        root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        ids = session.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
        names = []
        for node in ids:
            ax = session.send("Accessibility.getPartialAXTree", {"nodeId": node,
                                                                  "fetchRelatives": False})["nodes"]
            names.append(next((n.get("name", {}).get("value", "") for n in ax if not n.get("ignored")), ""))
        return names
    finally:
        session.detach()


def test_two_drills_in_one_notebook_by_mouse_and_accessibility_tree(lab, notebooks):
    _open(lab, "two")
    page = lab.page
    first, second = lab.output_locator(0), lab.output_locator(1)
    for out in (first, second):
        out.locator(".course-drill input[type=checkbox]").first.wait_for(state="visible")
    ids = page.evaluate("() => Array.from(document.querySelectorAll('.course-drill [id]'))"
                        ".map(e => e.id)")
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    # by mouse: the second drill's label ticks the second drill's box, and only it
    label = second.locator("label", has_text=re.compile(r"^C2 = \d+: never looked at"))
    label.click()
    assert second.locator("label", has_text="C2 = ").locator("input").is_checked()
    assert not any(b.is_checked() for b in first.locator("input[type=checkbox]").all())
    # by Chromium's accessibility tree: every select and box named by its own drill's label
    for index, out in enumerate((first, second)):
        out.evaluate("(el, i) => el.querySelectorAll('.course-drill select, .course-drill input')"
                     ".forEach(e => e.setAttribute('data-drill-test', String(i)))", index)
    # the question's own text tree is named apart from the picture's "The tree in text"
    summaries = first.locator("details > summary").all_inner_texts()
    assert "The question's tree in text" in summaries and "The tree in text" in summaries, summaries
    assert len(summaries) == len(set(summaries)), summaries
    for index in (0, 1):
        selects = _ax_names(page, f"select[data-drill-test='{index}']")
        assert selects == ["Kind of question", "Level"], (index, selects)
        boxes = _ax_names(page, f"input[type=checkbox][data-drill-test='{index}']")
        labels = (first if index == 0 else second).locator("input[type=checkbox]").evaluate_all(
            "els => els.map(e => e.labels[0].textContent.trim())")
        assert boxes == labels and all(boxes), (boxes, labels)
    assert lab.console_errors == []


# --- Enter in a text box, and every Star1 row ---------------------------------------------------------
def test_enter_checks_and_every_star1_row_is_checked(lab, notebooks):
    """star1-1-76390 cuts after C1: a row typed after C2 is wrong, found by Enter in a box (which
    JupyterLab used to swallow), and Show answer empties it again."""
    _open(lab, "star1")
    out = lab.output_locator(0)
    page = lab.page
    box = out.get_by_label("L after C1", exact=True)
    box.wait_for(state="visible")
    box.fill("0")
    out.get_by_label("U after C1", exact=True).fill("3")
    out.get_by_label("after C1", exact=True).check()             # C cuts after C1: right
    out.get_by_label("L after C2", exact=True).fill("99")
    after = out.get_by_label("U after C2", exact=True)
    after.fill("-5")
    after.focus()
    page.keyboard.press("Enter")
    result = out.locator(".cd-result")
    page.wait_for_function("el => el.textContent.includes('right')", arg=result.element_handle(),
                           timeout=15_000)
    text = result.inner_text()
    assert text.startswith("3 of 5 right"), text
    assert "C cuts after C1, so it never takes C2 in: the row after C2 stays empty." in text
    assert out.locator("input[aria-invalid=true]").count() == 2
    assert "3 of 5 right" in _live(out)
    out.get_by_role("button", name="Show answer").click()
    page.wait_for_function("el => el.textContent.startsWith('The answer:')",
                           arg=result.element_handle(), timeout=15_000)
    values = [out.get_by_label(name, exact=True).input_value()
              for name in ("L after C1", "U after C1", "L after C2", "U after C2")]
    assert values == ["0", "3", "", ""], values
    assert out.locator("input[aria-invalid=true]").count() == 0
    assert lab.console_errors == []


def test_enter_on_the_tree_never_unticks_an_answer(lab, notebooks):
    _open(lab, "drill")                                      # pruning-2-4: D2 is never looked at
    out = lab.output_locator(0)
    page = lab.page
    box = out.locator("label", has_text=re.compile(r"^D2 = ")).locator("input")
    box.wait_for(state="visible")
    box.check()
    out.locator(".ctv-text > summary").click()
    out.locator("[role=treeitem][aria-label*='(D2)']").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.type === 'checkbox'",
                           timeout=10_000)
    assert box.is_checked(), "Enter on the tree item unticked the answer"
    assert page.evaluate("() => document.activeElement.id") == box.get_attribute("id")
    heard = _live(out.locator(".course-drill").last)
    assert "D2 = " in heard and "ticked. Space ticks or unticks it." in heard, heard
    page.keyboard.press("Space")                             # the box itself still answers
    assert not box.is_checked()


# --- the picture after a check: the node asked about and the leaf row, readable ------------------------
_IN_VIEW = r"""(out) => {
  const port = out.querySelector('.course-tree-view .ctv-port');
  const p = port.getBoundingClientRect();
  const svg = port.querySelector('svg');
  const inside = (g) => { const r = g.getBoundingClientRect();
    return r.width > 0 && r.top >= p.top - 1 && r.bottom <= p.bottom + 1 && r.left >= p.left - 1 &&
           r.right <= p.right + 1; };
  const nodes = Array.from(svg.querySelectorAll('g.node'));
  const ids = new Set(nodes.map((g) => g.id));
  const leaves = nodes.filter((g) => /^n(_\d+)*$/.test(g.id) &&
                              !nodes.some((h) => h.id.startsWith(g.id + '_')));
  const current = nodes.filter((g) => g.id === out.dataset.decides || g.id === out.dataset.asked);
  const text = Array.from(svg.querySelectorAll('text')).map((t) => t.getBoundingClientRect().height)
                    .filter((h) => h > 0);
  return { leaves: leaves.length, hidden: leaves.filter((g) => !inside(g)).map((g) => g.id),
           asked: current.map((g) => [g.id, inside(g)]), smallest: Math.min(...text),
           port: [Math.round(p.width), Math.round(p.height)] };
}"""


SIZES = [("pruning", 3, 4), ("pruning", 5, 4), ("star1", 5, 4), ("c6", 5, 3)]


@pytest.mark.parametrize("cell", range(len(SIZES)), ids=[f"{k} level {lv}" for k, lv, _ in SIZES])
def test_after_a_check_the_picture_shows_the_node_asked_and_the_leaf_row(lab, notebooks, cell,
                                                                         tmp_path):
    from course.drills import make_drill

    state = lab.state()
    if cell == 0 or not (state and state["path"].endswith("sizes.ipynb")):
        _open(lab, "sizes")
    kind, level, seed = SIZES[cell]
    drill = make_drill(kind, level=level, seed=seed)
    out = lab.output_locator(cell)
    out.scroll_into_view_if_needed()
    out.locator(".course-tree-view svg g.node").first.wait_for(state="visible")
    if kind in ("star1", "c6"):                  # the chance node the question is about
        out.evaluate("(el, id) => { el.dataset.asked = id; }",
                     "n" + "".join(f"_{i}" for i in drill.chance_node))
        before = out.evaluate(_IN_VIEW)          # in view at first sight too
        assert before["asked"] and all(inside for _, inside in before["asked"]), before
    out.get_by_role("button", name="Check answer").click()
    page = lab.page
    page.wait_for_function("el => el.textContent.includes('right')",
                           arg=out.locator(".cd-result").element_handle(), timeout=15_000)
    current = lab.wait_current_nodes(out)                # the search drawn, stopped where it decides
    assert current, "no node drawn as current"
    out.evaluate("(el, id) => { el.dataset.decides = id; }", current[0])
    seen = out.evaluate(_IN_VIEW)
    assert seen["leaves"] >= 8 and not seen["hidden"], seen
    assert seen["asked"] and all(inside for _, inside in seen["asked"]), seen
    assert seen["smallest"] >= 10, seen                  # the readable size (min_label_px)
    _shot(out.locator(".course-tree-view"), tmp_path, f"30-drill-picture-{kind}-{level}.png")


# --- the mastery bar on the dark theme --------------------------------------------------------------------
_CONTRAST = r"""(el) => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 :
    Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05); };
  let back = null;
  for (let e = el.parentElement; e && !back; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.99)) back = c.slice(0, 3);
  }
  const boxes = Array.from(el.querySelectorAll('span'));
  return boxes.map((b) => { const s = getComputedStyle(b);
    const on = b.classList.contains('cd-on');
    const mark = rgb(on ? s.backgroundColor : s.borderTopColor).slice(0, 3);
    return [on, Math.round(ratio(mark, back) * 100) / 100]; });
}"""


def test_the_mastery_bar_on_the_dark_theme(lab, notebooks, axe):
    _open(lab, "drill")
    page = lab.page
    out = lab.output_locator(0)
    out.locator(".cd-bar").wait_for(state="attached")
    out.get_by_role("button", name="Show answer").click()      # one box filled, four empty
    page.wait_for_function("el => el.querySelector('.cd-bar span') !== null",
                           arg=out.element_handle(), timeout=15_000)
    try:
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', "
                      "{theme: 'JupyterLab Dark'})")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=20_000)
        contrasts = out.locator(".cd-bar").evaluate(_CONTRAST)
        assert contrasts and all(r >= 3 for _, r in contrasts), contrasts
        violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
        assert not violations, axe.describe_violations(violations)
    finally:
        page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', "
                      "{theme: 'JupyterLab Light'})")
        page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=20_000)


def test_enter_checks_in_notebook7(browser, lab_server, notebooks):
    """Notebook 7 reads its shortcuts on the way down, before the drill sees the key: Enter in a
    drill's text box still checks the answer there (and leaves the cell where it is)."""
    from lab_driver import Notebook7

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    nb7 = Notebook7(context.new_page(), lab_server)
    try:
        nb7.load()
        nb7.open(f"{FOLDER}/star1.ipynb")
        nb7.run_all()
        out = nb7.output_locator(0)
        box = out.get_by_label("L after C1", exact=True)
        box.wait_for(state="visible")
        box.fill("1")
        box.focus()
        box_id = box.get_attribute("id")
        nb7.page.keyboard.press("Enter")
        nb7.page.wait_for_function("el => el.textContent.includes('right')",
                                   arg=out.locator(".cd-result").element_handle(), timeout=15_000)
        assert "After C1 (probability 5/8, worth 0), C has L = 0" in out.locator(".cd-result").inner_text()
        assert nb7.page.evaluate("() => document.activeElement.id") == box_id
    finally:
        nb7.close_all()
        context.close()


@pytest.mark.parametrize("cell, kind", [(0, "root"), (1, "c6"), (2, "bounds"), (3, "star2")])
def test_the_new_kinds_by_keyboard_and_screen_reader(lab, notebooks, axe, cell, kind):
    state = lab.state()
    if cell == 0 or not (state and state["path"].endswith("kinds.ipynb")):
        _open(lab, "kinds")
    out = lab.output_locator(cell)
    page = lab.page
    first = out.locator(".course-drill form input[type=text]").first
    first.wait_for(state="visible")
    out.evaluate("el => el.querySelectorAll('.course-drill input, .course-drill select')"
                 ".forEach((e) => e.setAttribute('data-kind-test', '1'))")
    names = _ax_names(page, "input[data-kind-test]:not([type=radio])")
    labels = out.locator("input[data-kind-test]:not([type=radio])").evaluate_all(
        "els => els.map((e) => e.labels[0].textContent.trim())")
    assert names == labels and all(names), (names, labels)
    if kind == "star2":                               # "which bound": radio groups, by keyboard
        out.evaluate("el => el.querySelectorAll('.course-drill [role=radiogroup]')"
                     ".forEach((g) => g.setAttribute('data-kind-test-group', '1'))")
        groups = _ax_names(page, "[data-kind-test-group]")
        assert groups == ["what the probe of F shows", "what the probe of G shows", "C is cut"], groups
        radios = _ax_names(page, "input[data-kind-test][type=radio]")
        assert radios[:2] == ["at most (an upper bound)", "at least (a lower bound)"], radios
        side = out.locator("input[data-kind-test][type=radio]").first
        side.focus()
        page.keyboard.press("Space")
        assert side.is_checked()
    first.focus()                                     # then the keyboard only
    page.keyboard.type("99")
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    result = out.locator(".cd-result")
    page.wait_for_function("el => el.textContent.includes('right')", arg=result.element_handle(),
                           timeout=15_000)
    assert "right" in _live(out.locator(".course-drill").last)
    assert out.locator("input[aria-invalid=true]").count() >= 1
    violations = axe.run_axe(page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)
    assert lab.console_errors == []
