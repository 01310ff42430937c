"""Journey 4: a student opens an exercise, fills it in, and nbgrader's Validate button agrees.

For every exercise notebook ``exercises/A/N.ipynb`` that has an instructor version
``solutions/A/N.ipynb``: opened from JupyterLab's file browser and validated untouched, the stub
reports failures; with every cell the student must fill in typed into its editor -- the code of
the solution notebook's cell with the same nbgrader ``grade_id`` without its ``### BEGIN/END
SOLUTION`` marker lines, and the model answer for written questions -- Validate reports success.
The notebook is saved into the server's temporary copy only.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
_MARKER = re.compile(r"^[ \t]*#+[ \t]*(BEGIN|END) SOLUTION[ \t]*\n?", re.MULTILINE)


def exercise_pairs() -> list:
    """Exercise notebooks (``exercises/...``) that have a solution notebook beside them."""
    found = sorted(p.relative_to(REPO).as_posix()
                   for p in (REPO / "exercises").glob("*/*.ipynb")
                   if (REPO / "solutions" / p.relative_to(REPO / "exercises")).is_file())
    return found or [pytest.param(None, marks=pytest.mark.skip(
        reason="no exercises/*/*.ipynb with a solutions/ twin yet"))]


def student_answers(solution: Path) -> dict[str, str]:
    """What a student who did everything would have in each cell they must fill in.

    Parameters
    ----------
    solution : Path
        An nbgrader source notebook.

    Returns
    -------
    dict
        ``grade_id`` -> source, for every cell marked ``solution``: code cells without their
        solution marker lines, written (Markdown) answers as the model answer.

    Examples
    --------
    >>> _MARKER.sub("", "def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n")
    'def f():\\n    return 1\\n'
    """
    nb = nbformat.read(solution, as_version=4)
    return {cell.metadata["nbgrader"]["grade_id"]: _MARKER.sub("", cell.source).rstrip("\n")
            for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("solution")}


def answer_cells(exercise: Path, shown: int) -> dict[str, int]:
    """``grade_id`` -> index of each cell the student must fill in, in the released exercise
    (``shown``: how many cells the page shows, as a check that it is the same notebook)."""
    nb = nbformat.read(exercise, as_version=4)
    assert len(nb.cells) == shown, "the page shows a different notebook"
    return {c.metadata["nbgrader"]["grade_id"]: i for i, c in enumerate(nb.cells)
            if c.metadata.get("nbgrader", {}).get("solution")}


def validate_and_look(lab, screenshot: Path) -> tuple[str, str, list]:
    """Like ``lab.validate()``, but before closing the dialog save a screenshot of it and measure
    its ``<pre>`` blocks: ``(outcome, text, [(scrollWidth, clientWidth), ...])``."""
    button = lab.page.locator(
        ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar .validate-button")
    button.locator("jp-button, button").first.click()
    message = lab.page.locator(".jp-Dialog #validation-message")
    message.wait_for(state="visible", timeout=120_000)
    classes = (message.get_attribute("class") or "").split()
    outcome = next((name.removeprefix("validation-") for name in classes
                    if name.startswith("validation-")), "error")
    text = message.inner_text()
    widths = message.evaluate(
        "m => Array.from(m.querySelectorAll('pre')).map(p => [p.scrollWidth, p.clientWidth])")
    lab.page.locator(".jp-Dialog .jp-Dialog-content").screenshot(path=str(screenshot))
    lab.page.locator(".jp-Dialog .jp-mod-accept").click()
    lab.page.locator(".jp-Dialog").wait_for(state="detached")
    return outcome, text, widths


@pytest.mark.parametrize("exercise", exercise_pairs())
def test_validate_fails_on_stub_and_passes_when_solved(lab, exercise, tmp_path):
    answers = student_answers(REPO / "solutions" / Path(exercise).relative_to("exercises"))
    assert answers, f"no solution cells found for {exercise}"

    lab.open_from_file_browser(exercise)
    outcome, text, widths = validate_and_look(lab, tmp_path / "validate-dialog.png")
    assert outcome == "failed", f"the untouched {exercise} validated as {outcome!r}:\n{text}"
    assert "NotImplementedError" in text, f"the stub's failures do not name the stubs:\n{text}"
    # what a student reads first for each failed test: one line naming the check, the case and
    # what went wrong, no traceback through the grader, and nothing running off the right edge
    flat = " ".join(text.split())
    assert "SearchCrashed: " in flat and "your function raised NotImplementedError." in flat, text
    assert "course/grading" not in text and "Traceback" not in text, text
    for pre_width, shown_width in widths:
        assert pre_width <= shown_width + 1, f"a block of the dialog is cut on the right:\n{text}"

    cells = answer_cells(REPO / exercise, len(lab.state()["cells"]))
    assert set(cells) == set(answers), \
        f"solution cells differ: exercise {sorted(cells)}, solutions {sorted(answers)}"
    for grade_id, index in sorted(cells.items(), key=lambda item: item[1]):
        stub = lab.state()["cells"][index]["source"]
        assert re.search(r"NotImplementedError|YOUR CODE HERE|YOUR ANSWER HERE", stub), stub
        lab.replace_cell_source(index, answers[grade_id])
        assert lab.state()["cells"][index]["source"] == answers[grade_id]

    outcome, text = lab.validate()
    assert outcome == "success", f"the solved {exercise} validated as {outcome!r}:\n{text}"
