"""What the instructor reads after autograding: hand grading still to do, and a summary that
tells an untouched release from a notebook that could not be graded (marked ``nbgrader``)."""

from __future__ import annotations

import contextlib
import io
import shutil

import nbformat
import pytest

from course.grading.term.results.feedback import pending_hand_grading
from course.grading.term.results.summary import summary
from course.grading.__main__ import main
from test_grading_support import EXERCISES, SOLUTIONS, copy_course

pytestmark = pytest.mark.nbgrader

A1 = "a1_minimax"
NB = "minimax.ipynb"


def partial_notebook(solution, release, keep: int):
    """The solution with only its first ``keep`` answer cells solved (the rest as released)."""
    nb = nbformat.read(solution, as_version=4)
    released = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
                for c in nbformat.read(release, as_version=4).cells}
    solved = 0
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution") and cell.cell_type == "code":
            if solved >= keep:
                cell.source = released[meta["grade_id"]]
            solved += 1
    return nb


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    copy_course(root)
    submitted = root / "submitted"
    solution, release = SOLUTIONS / A1 / NB, EXERCISES / A1 / NB
    for student in ("perfect", "untouched", "partial", "invalid-json"):
        (submitted / student / A1).mkdir(parents=True)
    shutil.copy(solution, submitted / "perfect" / A1 / NB)
    shutil.copy(release, submitted / "untouched" / A1 / NB)
    nbformat.write(partial_notebook(solution, release, 1), str(submitted / "partial" / A1 / NB))
    (submitted / "invalid-json" / A1 / NB).write_text(solution.read_text()[:4000])
    status, out = _run("--root", str(root), "autograde", "--jobs", "2", "--timeout", "20")
    assert status == 0, out
    return root, out


def _line(out: str, student: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(student + " "))


def test_the_console_says_what_waits_for_hand_grading(graded):
    _, out = graded
    perfect = _line(out, "perfect")
    assert "9.0 / 11.0  autograded, 2 points to grade by hand" in perfect, perfect
    assert " graded" not in perfect.split("autograded")[1]
    assert "autograded, 2 points to grade by hand" in _line(out, "partial")
    # nbgrader gives an untouched written answer 0 itself: nothing to grade by hand there
    assert _line(out, "untouched").split("[")[0].rstrip().endswith("0.0 / 11.0  graded")
    assert "2 of them have written answers to grade by hand" in out
    assert "Nbgrader > Formgrader > Manage Assignments" in out


def test_feedback_warns_while_hand_grades_are_pending(graded):
    root, _ = graded
    status, out = _run("--root", str(root), "feedback")
    assert status == 1           # the unreadable notebook has a page saying why, not feedback
    from course.grading.term.results.feedback import missing_feedback

    assert missing_feedback(root) == [f"invalid-json/{A1}"]
    warning = next(line for line in out.splitlines() if line.startswith("WARNING: hand grading is pending"))
    assert "perfect (a1_minimax: 2 points)" in warning and "partial (a1_minimax: 2 points)" in warning
    # an unreadable notebook needs the instructor's look: every cell of it waits (issue 20)
    assert pending_hand_grading(root) == [
        ("invalid-json", A1, 11.0), ("partial", A1, 2.0), ("perfect", A1, 2.0)]


def test_summary_separates_not_attempted_from_crashed_and_centres_the_bars(graded, monkeypatch):
    root, _ = graded
    import matplotlib.figure

    figures = []
    original = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kwargs):
        figures.append(fig)
        return original(fig, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    lines: list[str] = []
    (a1,) = summary(root, "summary", log=lines.append)
    assert a1.not_attempted == ["untouched"]
    assert a1.crashed == ["invalid-json"]
    assert (a1.autograded_points, a1.hand_points) == (9.0, 2.0)
    assert a1.hand_pending == ["invalid-json", "partial", "perfect"]
    text = "\n".join(lines)
    assert "(out of 11: 9 autograded + 2 graded by hand)" in text
    assert "not attempted (the untouched release, 0 points): 1 (untouched)" in text
    assert "crashed (could not be graded, 0 points): 1 (invalid-json)" in text
    assert "still to grade by hand: 3 submissions" in text
    fig, questions = figures                   # the scores, then a histogram per question
    bars = [p for p in fig.axes[0].patches if p.get_height() > 0]
    centres = {round(p.get_x() + p.get_width() / 2, 6) for p in bars}
    assert centres and all(c == int(c) for c in centres), centres
    assert 9.0 in centres and 0.0 in centres
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["attempted (2)", "not attempted (1)", "crashed (1)"]
    # per question: every graded cell, tests and written answers, in the notebook's order
    cells = [c for c in nbformat.read(SOLUTIONS / A1 / NB, as_version=4).cells
             if c.metadata.get("nbgrader", {}).get("points")]
    assert [q.grade_id for q in a1.questions] == [c.metadata["nbgrader"]["grade_id"] for c in cells]
    assert len([ax for ax in questions.axes if ax.get_visible()]) == len(cells)
    written = [q for q in a1.questions if q.by_hand]
    assert written and all(q.pending for q in written)     # nobody graded by hand yet
    for q in a1.questions:
        if not q.by_hand:
            assert len(q.scores) + q.pending == 4 and sum(n for _, n in q.failures) == q.failed
            assert ("not attempted", 1) in q.failures            # the untouched release
            assert q.full_credit >= 1                            # the perfect submission
    assert "per question" in text and "full credit" in text
    page = (root / "summary" / "summary.html").read_text(encoding="utf-8")
    assert "default-src 'none'" in page and "<script" not in page
    assert page.count('<img alt="') == 2


def test_grades_warn_while_hand_grades_are_pending(graded, tmp_path):
    root, _ = graded
    status, out = _run("--root", str(root), "grades", "--output", str(tmp_path / "grades.csv"))
    assert status == 0
    assert ("WARNING: 3 submissions still wait for hand grading (invalid-json/a1_minimax, "
            "partial/a1_minimax, perfect/a1_minimax): their scores lack 15 points in all") in out
