"""Issue 28's reproductions on the example class (``make example-class``), each on the
documented path with no extra flag:

1. a hidden test fixed in ``solutions/`` regrades at the next ``make autograde``;
3. an extension is a command, shown in ``grades.csv`` and applied without running code;
4. the late penalty is one number, whatever the order of hand grading and autograding.

Each test starts from a copy of one graded example class (``ada`` solved it, ``grace`` part 1,
``alan`` nothing, ``barbara`` solved it 25 hours late; 10 % per day late).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from term_support import grades, ok  # noqa: E402

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

A1, NB = "a1_minimax", "minimax.ipynb"
GRADED_LINE = re.compile(r"\[\d+\.\d+ s\]")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from course.grading.term.example_class import example_class

    root = example_class(tmp_path_factory.mktemp("example") / "class")
    ok(root, "autograde", "--jobs", "2")
    return root


@pytest.fixture
def course(graded, tmp_path):
    """A copy of the graded example class (its configuration approved where it now is)."""
    root = tmp_path / "class"
    shutil.copytree(graded, root)
    ok(root, "approve-config")
    return root


def _edit_hidden_test(root: Path, broken: bool) -> None:
    path = root / "solutions" / A1 / NB
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "a1-test-value-textbook":
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if broken:
                text = text.replace("### END HIDDEN TESTS", 'assert False, "broken"\n### END HIDDEN TESTS')
            else:
                text = text.replace('assert False, "broken"\n', "")
            cell["source"] = text
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")


def _hand_grade(root: Path, student: str, points: float) -> None:
    """The written answer graded in the formgrader (nbgrader's gradebook, as its page does)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        for nb in gb.find_submission(A1, student).notebooks:
            for grade in nb.grades:
                if grade.auto_score is None:
                    grade.manual_score, grade.needs_manual_grade = points, False
        gb.db.commit()


def test_item1_a_fixed_hidden_test_regrades_at_the_next_autograde(course):
    # the broken test is released the way nbgrader's own tools do it (the formgrader's
    # Generate button, `nbgrader generate_assignment`): without the course's check of the source
    from course.grading.term.course_dir import course_layout, nbgrader_api

    _edit_hidden_test(course, broken=True)
    assert nbgrader_api(course_layout(course)).generate_assignment(A1, force=True, create=True)["success"]
    out = ok(course, "autograde")
    assert re.search(r"ada +a1_minimax +grading: hidden tests of a1_minimax changed", out), out
    rows = grades(course)[1]
    assert float(rows[("ada", A1)]["autograded_score"]) == 7            # the broken test failed

    _edit_hidden_test(course, broken=False)
    ok(course, "release")                                              # the documented path
    out = ok(course, "autograde")                                       # no --regrade
    assert not re.search(r"ada .*unchanged since", out), out
    rows = grades(course)[1]
    assert float(rows[("ada", A1)]["autograded_score"]) == 9, out       # every point back
    assert float(rows[("barbara", A1)]["autograded_score"]) == 9


def test_item3_an_extension_is_a_command_applied_without_running_code(course):
    rows = grades(course)[1]
    assert rows[("barbara", A1)]["late_penalty"] == "1.8"
    out = ok(course, "extension", "barbara", A1, "--hours", "30")
    assert "due 2026-12-02 23:00 UTC" in out and "no code ran again" in out
    rows = grades(course)[1]
    barbara = rows[("barbara", A1)]
    assert (barbara["due"], barbara["extension"], barbara["hours_late"], barbara["late_penalty"]) == \
        ("2026-12-02 23:00 UTC", "30 h", "0", "0")
    assert barbara["score"] == "9" and rows[("ada", A1)]["due"] == "2026-12-01 17:00 UTC"
    out = ok(course, "autograde")
    assert not GRADED_LINE.search(out), f"code ran for an extension:\n{out}"
    assert "barbara" in ok(course, "extension", "--list")
    ok(course, "extension", "barbara", A1, "--until", "2026-12-02 19:15 Europe/Berlin")   # 18:15 UTC
    assert grades(course)[1][("barbara", A1)]["late_penalty"] == "0"
    ok(course, "extension", "barbara", A1, "--remove")
    assert grades(course)[1][("barbara", A1)]["late_penalty"] == "1.8"

    # nbgrader's own Gradebook.grant_extension (issue 28: it was ignored, and grades.csv said
    # hours_late=0 beside the old penalty): honoured, and consistent
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "game-tree-search") as gb:
        gb.grant_extension(A1, "barbara", hours=30)
    out = ok(course, "autograde")
    assert not GRADED_LINE.search(out), out
    barbara = grades(course)[1][("barbara", A1)]
    assert (barbara["due"], barbara["hours_late"], barbara["late_penalty"], barbara["score"]) == \
        ("2026-12-02 23:00 UTC", "0", "0", "9")


def test_item4_the_late_penalty_is_one_number_whatever_the_order(course):
    _hand_grade(course, "barbara", 2)                                   # after autograde
    rows = grades(course)[1]
    assert (rows[("barbara", A1)]["score"], rows[("barbara", A1)]["late_penalty"]) == ("8.8", "2.2")
    ok(course, "feedback")
    page = (course / "feedback" / "barbara" / A1 / "minimax.html").read_text(encoding="utf-8")
    assert "Late submission penalty (Score: -2.2)" in page
    ok(course, "autograde", "--regrade", "--student", "barbara")
    rows = grades(course)[1]
    assert (rows[("barbara", A1)]["score"], rows[("barbara", A1)]["late_penalty"]) == ("8.8", "2.2")
    # the base is a setting: autograded points only (hand-graded points never reduced)
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write('\nc.TermPolicy.late_penalty_base = "autograded"\n')
    ok(course, "approve-config")
    out = ok(course, "autograde")
    assert not GRADED_LINE.search(out), f"code ran for a change of the late rule:\n{out}"
    rows = grades(course)[1]
    assert (rows[("barbara", A1)]["score"], rows[("barbara", A1)]["late_penalty"]) == ("9.2", "1.8")
