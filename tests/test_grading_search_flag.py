"""An evaluation function that searches is flagged for review (it keeps its score).

The sandbox counts the lines of Python the student's evaluation function runs on the ordering
check's sample positions; a median far above what a board's features need is printed as a
review flag, which ``python -m course.grading autograde`` lists for the instructor.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from course.grading.checks.evaluation import REVIEW_MARK, SEARCH_LINES, _sample_positions, check_evaluation_ordering
from course.sandbox import StudentSession, sandbox_available

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")


def _model_evaluate() -> str:
    nb = json.loads((ROOT / "solutions" / "a5_ordering" / "ordering.ipynb").read_text())
    return next("".join(c["source"]) for c in nb["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == "a5-evaluate")


SEARCHING = '''
def _children(cells, who):
    return [cells[:i] + who + cells[i + 1:] for i, c in enumerate(cells) if c == "."]

class _Board:
    def __init__(self, cells, to_move):
        self.cells, self.to_move = cells, to_move

def deep_evaluate(state, depth=2):
    # the model estimate, two moves ahead: a search inside the evaluation function
    cells = "".join(state.cells)
    if depth == 0 or "." not in cells:
        return my_evaluate(state)
    other = "O" if state.to_move == "X" else "X"
    values = [deep_evaluate(_Board(c, other), depth - 1) for c in _children(cells, state.to_move)]
    return (max(values) if state.to_move == "X" else min(values)) * 0.99

def hidden_evaluate(state):
    # the same search with the count switched off
    import sys
    sys.settrace(None)
    return deep_evaluate(state)
'''


@pytest.fixture(scope="module")
def session():
    session = StudentSession(sandbox=True)
    session.load([_model_evaluate(), SEARCHING])
    yield session
    session.close()


def _lines(session, name):
    f = session.function(name)
    return sorted(f.counted(p)[1] for p in _sample_positions())


def test_the_count_tells_an_estimate_from_a_search(session):
    model, deep = _lines(session, "my_evaluate"), _lines(session, "deep_evaluate")
    assert model[len(model) // 2] * 4 < SEARCH_LINES < deep[len(deep) // 2]
    assert set(_lines(session, "hidden_evaluate")) == {-1}


@pytest.mark.parametrize("name, flagged", [("my_evaluate", None), ("deep_evaluate", "lines of Python"),
                                           ("hidden_evaluate", "switched off")])
def test_a_searching_evaluation_is_flagged_not_failed(session, capsys, name, flagged):
    try:
        check_evaluation_ordering(session.function(name))
    except Exception as exc:  # noqa: BLE001 - the flag does not depend on passing
        print(f"(failed: {type(exc).__name__})")
    out = capsys.readouterr().out
    flags = [line for line in out.splitlines() if line.startswith(REVIEW_MARK)]
    if flagged is None:
        assert not flags, out
    else:
        assert len(flags) == 1 and flagged in flags[0], out


def test_the_workflow_lists_the_flags_the_grader_raised(session):
    # the flag is the grader's own record of the check (issue 29): the test cell's check raises
    # it in the grader; a line the student prints with the same mark is not one
    from course.grading.job.sandboxed import grade_notebook

    cells = [{"kind": "locked", "source": "", "trusted_source":
              "from course.grading.checks.evaluation import check_evaluation_ordering"},
             {"kind": "student", "source": _model_evaluate() + SEARCHING
              + f"\nprint({REVIEW_MARK!r} + ' it is fine, really')\n", "trusted_source": ""},
             {"kind": "test", "source": "", "trusted_source": "check_evaluation_ordering(my_evaluate)"},
             {"kind": "test", "source": "", "trusted_source":
              "try:\n    check_evaluation_ordering(deep_evaluate)\nexcept AssertionError:\n    pass"}]
    results = grade_notebook(cells, secret=None)
    assert results[1]["review"] == [] and results[2]["review"] == []
    (flag,) = results[3]["review"]
    assert "lines of Python" in flag and "it is fine" not in flag


def test_a_failing_instructor_cell_stops_grading_instead_of_failing_every_test():
    # before: the error was swallowed, every test then failed with a NameError, and the student
    # got zero for the course's own mistake
    from course.grading.job.sandboxed import GraderSetupError, grade_notebook

    cells = [{"kind": "locked", "source": "", "trusted_source": "from course.grading import no_such_check"},
             {"kind": "student", "source": "def f():\n    return 1", "trusted_source": ""},
             {"kind": "test", "source": "", "trusted_source": "no_such_check(f)"}]
    with pytest.raises(GraderSetupError, match="read-only cell 1 .*ImportError"):
        grade_notebook(cells, secret=None)
    cells[0]["trusted_source"] = "from course.grading import check_minimax_value"
    results = grade_notebook(cells, secret=None)
    assert results[2]["passed"] is False       # the test itself runs (and fails on its own terms)
