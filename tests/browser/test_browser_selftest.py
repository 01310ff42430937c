"""The browser harness tested on small notebooks written into the server's temporary root.

These prove, independently of the course material, that the harness can see what it claims to
see: a clean run is clean, an exception is reported, a slider moved with the keyboard changes a
drawing, and nbgrader's Validate tells a solved notebook from an unsolved one.
"""
from __future__ import annotations

import sys

import nbformat
import pytest

pytestmark = pytest.mark.browser

FOLDER = "_browser_selftest"

SLIDER_CELL = '''\
import ipywidgets as w
slider = w.IntSlider(value=2, min=1, max=6, description="n")
picture = w.HTML()
def draw(change=None):
    n = slider.value
    circles = "".join(f'<circle cx="{20 + 30 * i}" cy="20" r="10"/>' for i in range(n))
    picture.value = f'<svg width="200" height="40">{circles}</svg><p class="count">{n} circles</p>'
slider.observe(draw, "value")
draw()
w.VBox([slider, picture])'''

STEPPER_CELL = """\
import ipywidgets as w
from course import alphabeta
from course.draw import draw_tree
from course.examples import aima_figure_5_2
game = aima_figure_5_2()
result = alphabeta(game, trace=True)
step = w.IntSlider(value=3, min=0, max=len(result.trace))
forward = w.Button(description="Next", tooltip="one step forward")
out = w.Output()
inline = w.HTML()
def show(change=None):
    picture = draw_tree(game, result, upto=step.value)
    inline.value = picture.inline_svg()
    with out:
        out.clear_output(wait=True)
        display(picture)
def advance(_):
    step.value += 1
step.observe(show, "value")
forward.on_click(advance)
show()
w.VBox([w.HBox([step, forward]), out, inline])"""

NBGRADER_SOLUTION = {"grade": False, "solution": True, "locked": False, "task": False,
                     "grade_id": "square", "schema_version": 3}
NBGRADER_TESTS = {"grade": True, "solution": False, "locked": True, "task": False,
                  "points": 1, "grade_id": "test_square", "schema_version": 3}
STUB = "def square(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()"
SOLVED = "def square(x):\n    return x * x"


def _write(root, name, cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = cells
    (root / FOLDER).mkdir(exist_ok=True)
    nbformat.write(nb, root / FOLDER / name)
    return f"{FOLDER}/{name}"


@pytest.fixture(scope="module")
def selftest_notebooks(lab_server):
    root, code, md = lab_server.root, nbformat.v4.new_code_cell, nbformat.v4.new_markdown_cell
    graded = [code(STUB, metadata={"nbgrader": NBGRADER_SOLUTION}),
              code("assert square(3) == 9", metadata={"nbgrader": NBGRADER_TESTS})]
    return {
        "clean": _write(root, "clean.ipynb", [md("# Clean"), code("x = 6 * 7\nx"), code(""),
                                               code("import sys\nsys.prefix")]),
        "broken": _write(root, "broken.ipynb", [code("1 + 1"), code("raise ValueError('boom')"),
                                                 code("print('never runs')")]),
        "slider": _write(root, "slider.ipynb", [code(SLIDER_CELL)]),
        "stepper": _write(root, "stepper.ipynb", [md("Run the cell below."), code("x = 1"),
                                                   code(STEPPER_CELL), code("raise SystemExit")]),
        "graded": _write(root, "graded.ipynb", graded),
    }


def test_clean_notebook_runs_without_errors(lab, selftest_notebooks):
    lab.open(selftest_notebooks["clean"])
    state = lab.run_all()
    prompts = [c["prompt"] for c in state["cells"] if c["type"] == "code"]
    assert prompts[0].strip() == "[1]:" and prompts[2].strip() == "[2]:", prompts
    assert state["cells"][1]["outputs"][0]["data"]["text/plain"] == "42"
    # the kernel is this environment's Python
    assert state["cells"][3]["outputs"][0]["data"]["text/plain"] == repr(sys.prefix)
    assert lab.error_report() == []


def test_exception_is_reported(lab, selftest_notebooks):
    lab.open(selftest_notebooks["broken"])
    lab.run_all()
    problems = lab.error_report()
    assert any("ValueError: boom" in p for p in problems), problems
    assert any("Traceback" in p or "ValueError" in p for p in problems if p.startswith("shown")), \
        problems


def test_keyboard_moves_slider_and_redraws_svg(lab, selftest_notebooks):
    lab.open(selftest_notebooks["slider"])
    lab.run_all()
    view = lab.output_locator(0)
    before = lab.snapshot(view)
    assert before["svg"].count("<circle") == 2 and "2 circles" in before["text"]
    lab.press_slider(view.locator(".widget-slider").first, "ArrowRight")
    after, seconds = lab.wait_changed(view, before, timeout=1.0)
    assert after["svg"].count("<circle") == 3 and "3 circles" in after["text"], after
    assert seconds < 1.0


def test_validate_tells_stub_from_solution(lab, selftest_notebooks):
    lab.open(selftest_notebooks["graded"])
    outcome, text = lab.validate()
    assert outcome == "failed", text
    assert "NotImplementedError" in text
    lab.replace_cell_source(0, SOLVED)
    assert lab.state()["cells"][0]["source"] == SOLVED
    outcome, text = lab.validate()
    assert outcome == "success", text


def test_button_moves_current_node_of_a_course_drawing(lab, selftest_notebooks):
    from course import alphabeta
    from course.draw import draw_tree
    from course.examples import aima_figure_5_2

    game = aima_figure_5_2()
    result = alphabeta(game, trace=True)
    expected = [[node for node, status in draw_tree(game, result, upto=k).nodes.items()
                 if status == "current"] for k in (3, 4)]
    assert expected[0] != expected[1]

    lab.open(selftest_notebooks["stepper"])
    index = lab.find_cell("forward.on_click")
    state = lab.run_through(index)
    assert state["cells"][index + 1]["prompt"].strip() == "[ ]:"  # the cell below did not run
    view = lab.output_locator(index)
    view.locator("img, svg").first.wait_for()
    # the same picture twice: as an SVG image (Output widget) and inline (HTML widget)
    assert lab.current_nodes(view) == expected[0] * 2
    before = lab.snapshot(view)
    lab.click_button(view, "next")
    after, seconds = lab.wait_changed(view, before, parts=("svg",))
    assert lab.current_nodes(view) == expected[1] * 2
    assert seconds < 1.0


def test_axe_finds_violations_and_passes_clean_pages(browser, axe):
    """The shared axe-core helper reports a missing alt, a nameless button and low contrast, and
    nothing on the same content made accessible: an accessibility test built on it can fail."""
    page = browser.new_page()
    try:
        page.set_content("<html lang='en'><title>t</title><body><main>"
                         "<img src='x.png'><button></button><p style='color:#aaa'>low</p>"
                         "</main></body></html>")
        found = {v["id"] for v in axe.run_axe(page)}
        assert {"image-alt", "button-name", "color-contrast"} <= found
        page.set_content("<html lang='en'><title>t</title><body><main>"
                         "<img src='x.png' alt='a tree'><button>next</button>"
                         "<p style='color:#595959'>readable</p></main></body></html>")
        violations = axe.run_axe(page)
        assert not violations, axe.describe_violations(violations)
    finally:
        page.close()
