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
    assert lab.current_nodes(out) == ["n_0"]  # the search stopped at B, drawn as current
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
    assert lab.current_nodes(out) == ["n_2"]
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
