"""A tiny class for the term's tests: one assignment (``t1_square``), one answer, one test cell
with a visible and a hidden test, one written answer; a handful of students.

Grading one of its submissions costs a sandbox and nbgrader's pipeline and little else, so the
term simulator (tests/test_term_simulator.py) can grade many.  Everything goes through the
course's own commands (``python -m course.grading ...``), as an instructor runs them.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import hashlib
import io
import json
import os
import shutil
import zipfile
from pathlib import Path

from course.grading.__main__ import main

ROOT = Path(__file__).resolve().parents[1]
A = "t1_square"
NB = "square"
ANSWER_ID, TEST_ID, WRITTEN_ID = "t1-square", "t1-test-square", "t1-why"

#: The answers students hand in, and what each gets right.
CODE = {
    "right": "def square(x):\n    return x * x\n",
    "negatives": "def square(x):\n    return x * x if x >= 0 else -x * x\n",     # wrong for x < 0
    "integers": "def square(x):\n    return int(x) * int(x)\n",                  # wrong for 0.5
    "wrong": "def square(x):\n    return x + x\n",                                # wrong for 3
}
#: Two hidden tests the model solution passes; each fails one kind of wrong answer.
HIDDEN = {
    "negatives": 'assert square(-2) == 4, "a negative number squared is positive"\n',
    "fractions": 'assert square(0.5) == 0.25, "a fraction squared is smaller"\n',
}
WRITTEN = ["Because a square is never negative.", "x times x.", "I do not know."]


def _cell(kind: str, source: str, grade_id: str, **nbgrader) -> dict:
    meta = {"grade": False, "solution": False, "locked": False, "task": False, "schema_version": 3,
            "grade_id": grade_id}
    meta.update(nbgrader)
    cell = {"cell_type": kind, "id": grade_id, "metadata": {"nbgrader": meta}, "source": source}
    if kind == "code":
        cell.update(outputs=[], execution_count=None)
    return cell


def source_notebook(hidden: str = "negatives", points: float = 2) -> dict:
    """The assignment's source (``solutions/t1_square/square.ipynb``)."""
    test = ('assert square(3) == 9, "square(3) is 9"\n### BEGIN HIDDEN TESTS\n' + HIDDEN[hidden]
            + "### END HIDDEN TESTS\n")
    cells = [
        _cell("markdown", "# Squares\n\nWrite `square(x)`.", "t1-intro", locked=True),
        _cell("code", "def square(x):\n    ### BEGIN SOLUTION\n    return x * x\n    ### END SOLUTION\n",
              ANSWER_ID, solution=True),
        _cell("code", test, TEST_ID, grade=True, locked=True, points=points),
        _cell("markdown", "**Why is a square never negative? (2 points)**", "t1-question", locked=True),
        _cell("markdown", "YOUR ANSWER HERE", WRITTEN_ID, grade=True, solution=True, points=2),
    ]
    return {"cells": cells, "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                                         "name": "python3"},
                                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def run(*argv: str) -> tuple[int, str]:
    """``python -m course.grading ARGV``: exit status and everything it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(list(argv))
    return status, out.getvalue()


def ok(root: Path, *argv: str) -> str:
    status, out = run("--root", str(root), *argv)
    assert status == 0, f"{' '.join(argv)} ended with {status}:\n{out}"
    return out


def write_source(root: Path, *, hidden: str = "negatives", points: float = 2) -> None:
    path = root / "solutions" / A / f"{NB}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(source_notebook(hidden, points), indent=1), encoding="utf-8")


def submission(code: str, written: str) -> dict:
    """A student's notebook: the source with their answer and written answer."""
    notebook = source_notebook()
    for cell in notebook["cells"]:
        if cell["id"] == ANSWER_ID:
            cell["source"] = CODE[code]
        elif cell["id"] == WRITTEN_ID:
            cell["source"] = written
    return notebook


def course_config(late: dict | None = None) -> str:
    """The course's nbgrader_config.py with the term's settings appended."""
    text = (ROOT / "nbgrader_config.py").read_text(encoding="utf-8")
    late = late or {}
    text += ("\n# the term's rules (tests/term_support.py)\n"
             'c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"\n'
             f"c.PercentPerDay.percent_per_day = {late.get('percent', 10)}\n"
             f"c.TermPolicy.late_penalty_base = {late.get('base', 'all')!r}\n"
             f"c.TermPolicy.resubmission = {late.get('policy', 'latest')!r}\n"
             # a finished submission takes well under a second; a stuck one is stopped soon
             "c.SandboxedGrade.cell_timeout = 20\n")
    return text


def set_rules(root: Path, **late) -> None:
    """Change the term's rules in nbgrader_config.py and approve it (``make approve-config``)."""
    (root / "nbgrader_config.py").write_text(course_config(late), encoding="utf-8")
    ok(root, "approve-config")


#: "Now" for the whole test run, fixed when this module is first imported and passed on to the
#: processes the tests start (the term simulator's): a module's ``DUE = due_date()`` computed
#: before midnight UTC and a course made after it were a day apart (failed at 00:08 UTC).
_NOW_VARIABLE = "COURSE_TEST_TERM_NOW"
os.environ.setdefault(_NOW_VARIABLE, dt.datetime.now(dt.timezone.utc).replace(tzinfo=None).isoformat())
_NOW = dt.datetime.fromisoformat(os.environ[_NOW_VARIABLE])


def due_date(now: dt.datetime | None = None) -> dt.datetime:
    """The assignment's due date: a month before the test run, at 17:00 UTC (LMS zips may not be
    dated ahead); the same day all run long, whenever it is called."""
    now = now or _NOW
    return (now - dt.timedelta(days=30)).replace(hour=17, minute=0, second=0, microsecond=0)


def tiny_class(root: Path, students: dict[str, tuple[str, str, dt.datetime]]) -> Path:
    """A course in ``root`` with ``t1_square`` released, due :func:`due_date`, and
    ``students``' submissions (``{id: (code kind, written answer, handed in)}``) in ``submitted/``."""
    root.mkdir(parents=True)
    write_source(root)
    (root / "nbgrader_config.py").write_text(course_config(), encoding="utf-8")
    (root / "roster.csv").write_text("id,first_name,last_name\n" + "".join(
        f"{s},{s.title()},Test\n" for s in students), encoding="utf-8")
    ok(root, "approve-config")
    ok(root, "release")
    ok(root, "due-date", A, due_date().strftime("%Y-%m-%d %H:%M UTC"))
    for student, (code, written, when) in students.items():
        hand_in(root, student, code, written, when)
    return root


def hand_in(root: Path, student: str, code: str, written: str, when: dt.datetime) -> None:
    """A submission as nbgrader's collect leaves it in ``submitted/`` (with timestamp.txt)."""
    folder = root / "submitted" / student / A
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / f"{NB}.ipynb").write_text(json.dumps(submission(code, written)), encoding="utf-8")
    (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S UTC") + "\n", encoding="utf-8")


def lms_zip(path: Path, student: str, code: str, written: str, when: dt.datetime) -> Path:
    """A one-file zip as an LMS download (``<student>_square.ipynb``, dated ``when``)."""
    info = zipfile.ZipInfo(f"{student}_{NB}.ipynb", date_time=when.timetuple()[:6])
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(info, json.dumps(submission(code, written)))
    return path


def grades(root: Path, name: str = "grades.csv") -> tuple[str, dict[tuple[str, str], dict]]:
    """``make grades``: the file's text and its rows by (student, assignment)."""
    ok(root, "grades", "--output", str(root / name))
    text = (root / name).read_text(encoding="utf-8")
    return text, {(r["student"], r["assignment"]): r for r in csv.DictReader(io.StringIO(text))}


def give_hand_grade(root: Path, student: str, score: float, *, cell: str = WRITTEN_ID) -> str:
    """Grade ``student``'s written answer as the formgrader does (nbgrader's gradebook API:
    the score, and "needs manual grade" cleared); the answer's fingerprint (what was graded)."""
    from nbgrader.api import Gradebook

    graded = json.loads((root / "autograded" / student / A / f"{NB}.ipynb").read_text(encoding="utf-8"))
    answer = next(c for c in graded["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == cell)
    text = "".join(answer["source"]) if isinstance(answer["source"], list) else answer["source"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        grade = gb.find_grade(cell, NB, A, student)
        grade.manual_score = score
        grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
        gb.db.commit()
    return "answer:" + hashlib.sha256(text.encode()).hexdigest()
