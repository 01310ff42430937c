"""Journeys 2 and 3: the explorers react in the browser.

* Journey 2 -- in every lesson showing the epsilon explorer (the bounded-suboptimal lesson), moving
  its eps slider with the keyboard redraws the tree and changes the numbers shown within a second;
  in every lesson showing the move-ordering explorer (the alpha-beta lesson), picking another
  ordering does the same.
* Journey 3 -- in every lesson using the step-through player, its Next button advances and the
  node drawn as *current* moves; pressed from the keyboard, each Next makes the widget's one
  polite live region say the new step's line ("step 10: A root takes in child 0: ..."), which
  Chromium's accessibility tree shows as the text of a status (issue 30, item 7).
* Every explorer of the lessons opens showing its whole tree: readable (labels of 11 px or more)
  or, for a tree too big for that, as an overview whose note says "zoom to read" -- never at
  100 % with the tree cut on both sides (issue 30, item 8).  axe-core finds nothing to fault.

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


_OPENED = """el => {
  const tv = el.querySelector('.course-tree-view');
  const port = tv.querySelector('.ctv-port'), svg = port.querySelector('svg');
  const p = port.getBoundingClientRect(), s = svg.getBoundingClientRect();
  let smallest = Infinity;
  for (const t of svg.querySelectorAll('g.node text')) {
    const r = t.getBoundingClientRect();
    if (r.height > 0 && t.textContent.trim()) smallest = Math.min(smallest, r.height);
  }
  const note = tv.querySelector('.ctv-view-note');
  return {whole: s.left >= p.left - 1 && s.top >= p.top - 1 && s.right <= p.right + 1
                 && s.bottom <= p.bottom + 1,
          smallest, view: tv.dataset.view, note: note.hidden ? '' : note.textContent,
          zoom: tv.querySelector('.ctv-zoom').textContent};
}"""


def assert_opens_whole(view, what: str) -> dict:
    """The explorer's picture shows its whole tree: readable, or an overview that says so."""
    opened = view.evaluate(_OPENED)
    print(f"{what} opens: {opened}")
    assert opened["whole"], f"{what} opens with its tree cut: {opened}"
    if opened["smallest"] >= 10.5:                 # 11 px, as the text's box rounds it
        assert opened["view"] == "whole" and not opened["note"], opened
    else:
        assert opened["view"] == "overview" and "Zoom to read" in opened["note"], opened
    return opened


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
    assert_opens_whole(view, f"{lesson}'s ε explorer")
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
    assert_opens_whole(view, f"{lesson}'s ordering explorer")
    start = lab.chosen(view)
    # worst-first prunes nothing on a non-degenerate tree, best-first prunes the most: each of
    # the two differs from the other and from any other ordering shown at the start.
    for option in [o for o in ("worst-first", "best-first") if o not in start] or ["given"]:
        after, seconds = redraw(lab, view, lambda: lab.choose(view, option))
        assert option in lab.chosen(view)
        print(f"{lesson}: ordering {option}: redrawn in {seconds:.2f} s")
        assert "Cannot show" not in after["text"], after["text"]
    assert lab.error_report() == []


def _status_texts(page) -> list[str]:
    """Chromium's accessibility tree: the text inside each node with the role "status"."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    by_id = {n["nodeId"]: n for n in nodes}

    def text(node) -> str:
        if (node.get("role") or {}).get("value") == "StaticText":
            return (node.get("name") or {}).get("value", "")
        return "".join(text(by_id[c]) for c in node.get("childIds", []) if c in by_id)

    return [text(n).strip() for n in nodes if (n.get("role") or {}).get("value") == "status"]


@pytest.mark.parametrize("lesson", calls_in_lessons("step_through"))
def test_step_through_next_moves_current_node_and_announces_the_step(lab, lesson, axe):
    view = open_explorer(lab, lesson, "step_through")
    assert_opens_whole(view, f"{lesson}'s step-through")
    regions = view.locator("[aria-live]")
    assert regions.count() == 1, "one live region per widget"
    live = view.locator(".course-live-line[role=status][aria-live=polite]")
    assert live.count() == 1
    assert "Step 0" in live.inner_text()
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

    # by keyboard, each Next's step is said: the live region's text, as Chromium exposes it
    next_button = next(b for b in view.locator("button").all() if NEXT.search(b.inner_text() or ""))
    said = []
    first = len(seen)
    last = 16 if "alpha_beta" in lesson else first + 3      # lesson 2: up to C's return (step 15)
    for k in range(first, last + 1):
        before = live.inner_text()
        next_button.focus()
        lab.page.keyboard.press("Enter")          # keyboard only
        lab.page.wait_for_function("([el, before]) => el.textContent !== before",
                                   arg=[live.element_handle(), before], timeout=10_000)
        line = live.inner_text()
        said.append(line)
        assert line.startswith(f"step {k}:"), (k, line)
        assert re.search(rf"\(of \d+ steps\)", line)
        statuses = _status_texts(lab.page)
        assert line in statuses, (line, statuses)       # what a screen reader is given
    print(f"{lesson}: announced:", *said, sep="\n  ")
    assert not any("nodes drawn" in line for line in said)   # steps, not counts
    if "alpha_beta" in lesson:                   # AIMA: C is cut at 2 <= alpha = 3
        assert any("returns 2, only a bound: worth at most 2" in line for line in said), said
    violations = axe.run_axe(lab.page, include=[".jp-OutputArea-output"])
    assert not violations, axe.describe_violations(violations)
    assert lab.error_report() == []
