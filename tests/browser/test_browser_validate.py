"""Journey 4: a student opens an exercise, fills it in, and nbgrader's Validate button agrees.

For every exercise notebook ``exercises/A/N.ipynb`` that has an instructor version
``solutions/A/N.ipynb``: opened from JupyterLab's file browser and validated untouched, the stub
reports failures; with each solution cell's code typed in (the solution notebook's cell of the
same nbgrader ``grade_id``, without its ``### BEGIN/END SOLUTION`` marker lines), Validate reports
success.  The notebook is saved into the server's temporary copy only.
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
    """The code a student who solved everything would have in each solution cell.

    Parameters
    ----------
    solution : Path
        An nbgrader source notebook.

    Returns
    -------
    dict
        ``grade_id`` -> the cell's source without its solution marker lines, for every code
        cell marked ``solution`` that has a ``BEGIN SOLUTION`` block.

    Examples
    --------
    >>> _MARKER.sub("", "def f():\\n    ### BEGIN SOLUTION\\n    return 1\\n    ### END SOLUTION\\n")
    'def f():\\n    return 1\\n'
    """
    nb = nbformat.read(solution, as_version=4)
    answers = {}
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution") and _MARKER.search(cell.source):
            answers[meta["grade_id"]] = _MARKER.sub("", cell.source).rstrip("\n")
    return answers


def stub_cells(exercise_state: dict, exercise: Path) -> dict[str, int]:
    """``grade_id`` -> cell index of each solution cell of the exercise as released."""
    nb = nbformat.read(exercise, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert len(ids) == len(exercise_state["cells"]), "the page shows a different notebook"
    return {gid: i for i, (gid, c) in enumerate(zip(ids, nb.cells))
            if gid and c.metadata["nbgrader"].get("solution") and c.cell_type == "code"}


@pytest.mark.parametrize("exercise", exercise_pairs())
def test_validate_fails_on_stub_and_passes_when_solved(lab, exercise):
    answers = student_answers(REPO / "solutions" / Path(exercise).relative_to("exercises"))
    assert answers, f"no solution cells found for {exercise}"

    lab.open_from_file_browser(exercise)
    outcome, text = lab.validate()
    assert outcome == "failed", f"the untouched {exercise} validated as {outcome!r}:\n{text}"

    cells = stub_cells(lab.state(), REPO / exercise)
    assert set(cells) == set(answers), \
        f"solution cells differ: exercise {sorted(cells)}, solutions {sorted(answers)}"
    for grade_id, index in sorted(cells.items(), key=lambda item: item[1]):
        source = lab.state()["cells"][index]["source"]
        assert "NotImplementedError" in source or "YOUR CODE HERE" in source, source
        lab.replace_cell_source(index, answers[grade_id])
        assert lab.state()["cells"][index]["source"] == answers[grade_id]

    outcome, text = lab.validate()
    assert outcome == "success", f"the solved {exercise} validated as {outcome!r}:\n{text}"
