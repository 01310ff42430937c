"""Journeys 2 and 3: the explorers react in the browser.

* Journey 2 -- in every lesson showing the epsilon explorer (the bounded-suboptimal lesson), moving
  its eps slider with the keyboard redraws the tree and changes the numbers shown within a second;
  in every lesson showing the move-ordering explorer (the alpha-beta lesson), picking another
  ordering does the same.
* Journey 3 -- in every lesson using the step-through player, its Next button advances and the
  node drawn as *current* moves.

The lessons are read when the tests are collected: each test targets the first cell calling the
explorer, runs the lesson up to that cell (Run All Above Selected Cell, then Run Selected Cell)
and works the widget's controls.  A lesson without the call yields no test.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
RESPONSE_SECONDS = 1.0  # the "within a second"
NEXT = re.compile(r"\bnext\b|forward|^\W*(>|▶|→|⏵)\W*$", re.IGNORECASE)  # the player's Next button


def calls_in_lessons(function: str) -> list:
    """Lessons (repository-relative paths) with a code cell calling ``function(``."""
    call = re.compile(rf"^[^#\n]*\b{re.escape(function)}\(", re.MULTILINE)
    found = []
    for path in sorted((REPO / "lessons").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        if any(c.get("cell_type") == "code" and call.search("".join(c.get("source", "")))
               for c in cells):
            found.append(path.relative_to(REPO).as_posix())
    return found or [pytest.param(None, marks=pytest.mark.skip(
        reason=f"no lesson calls {function}() yet"))]


def open_explorer(lab, lesson: str, function: str):
    """Open ``lesson``, run it up to its first ``function(`` call; return that cell's output."""
    lab.open_from_file_browser(lesson)
    index = next(i for i, cell in enumerate(lab.state()["cells"])
                 if cell["type"] == "code" and re.search(
                     rf"^[^#\n]*\b{re.escape(function)}\(", cell["source"], re.MULTILINE))
    lab.run_through(index)
    problems = lab.error_report()
    assert not problems, f"{lesson} fails before its {function} works:\n" + "\n".join(problems)
    view = lab.output_locator(index)
    view.locator(".jupyter-widgets").first.wait_for(state="visible")
    view.locator("svg, img[src^='data:image/svg+xml']").first.wait_for(state="visible")
    return view


def redraw(lab, view, act):
    """Do ``act()``, wait for ``view`` to change and check it did so within RESPONSE_SECONDS.

    Returns the new snapshot and the seconds the change took."""
    before = lab.snapshot(view)
    act()
    after, seconds = lab.wait_changed(view, before, timeout=RESPONSE_SECONDS)
    assert seconds < RESPONSE_SECONDS
    return after, seconds


@pytest.mark.parametrize("lesson", calls_in_lessons("epsilon_explorer"))
def test_epsilon_slider_redraws_tree_and_numbers(lab, lesson):
    view = open_explorer(lab, lesson, "epsilon_explorer")
    slider = lab.slider(view, re.compile(r"ε|eps", re.IGNORECASE))
    for key in ("Home", "End"):  # to the smallest eps (alpha-beta), then to the largest
        after, seconds = redraw(lab, view, lambda: lab.press_slider(slider, key))
        assert re.search(r"\d", after["text"]), f"no numbers shown: {after['text']!r}"
        print(f"{lesson}: eps slider {key}: redrawn in {seconds:.2f} s")
        assert "Cannot show" not in after["text"], after["text"]
    assert lab.error_report() == []


@pytest.mark.parametrize("lesson", calls_in_lessons("ordering_explorer"))
def test_ordering_choice_redraws_tree_and_numbers(lab, lesson):
    view = open_explorer(lab, lesson, "ordering_explorer")
    start = lab.chosen(view)
    # worst-first prunes nothing on a non-degenerate tree, best-first prunes the most: each of
    # the two differs from the other and from any other ordering shown at the start.
    for option in [o for o in ("worst-first", "best-first") if o not in start] or ["given"]:
        after, seconds = redraw(lab, view, lambda: lab.choose(view, option))
        assert option in lab.chosen(view)
        print(f"{lesson}: ordering {option}: redrawn in {seconds:.2f} s")
        assert "Cannot show" not in after["text"], after["text"]
    assert lab.error_report() == []


@pytest.mark.parametrize("lesson", calls_in_lessons("step_through"))
def test_step_through_next_moves_current_node(lab, lesson):
    view = open_explorer(lab, lesson, "step_through")
    seen = [lab.current_nodes(view)]
    # Step until one node is current, then until another one is: a node's cut-off and its exit
    # are consecutive events at the same node, so a single step need not move the marker.
    for _ in range(8):
        redraw(lab, view, lambda: lab.click_button(view, NEXT))
        seen.append(lab.current_nodes(view))
        marked = [ids for ids in seen if ids]
        if len(marked) >= 2 and marked[-1] != marked[0]:
            break
    assert all(len(ids) <= 1 for ids in seen), f"more than one current node: {seen}"
    marked = [ids for ids in seen if ids]
    assert len(marked) >= 2 and marked[-1] != marked[0], \
        f"the current node did not move; current node after each Next: {seen}"
    print(f"{lesson}: current node after each Next: {seen}")
    assert lab.error_report() == []
