"""The nbgrader pipeline end to end (marked ``nbgrader``: these take minutes).

One temporary course directory is graded once per session: a student who
hands in the solutions, one who hands in the untouched release, and a
*faulty class* on Assignment 1 whose notebooks loop forever, fail at import,
lose or edit locked cells, are not JSON, print megabytes, overflow the
recursion, or kill the kernel.  Every submission must get the points it
earned (or 0 with a reason), and the others must be graded regardless.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import nbformat
import pytest

from course.grading.job.autograde import autograde
from course.grading.term.course_dir import course_config, course_layout
from course.grading.term.release import release
from course.grading.term.results.feedback import feedback
from course.grading.term.results.grades import grades
from course.grading.term.results.summary import summary
from test_grading_support import copy_course, EXERCISES, ROOT, SOLUTIONS, read_cells

pytestmark = pytest.mark.nbgrader

A1 = "a1_minimax"
A1_NB = "minimax.ipynb"
CELL_TIMEOUT = 8


def _points(path: Path) -> dict[str, float]:
    return {c.grade_id: c.points for c in read_cells(path) if c.kind == "test"}


def _edit(nb, grade_id, fn):
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            fn(cell)
            return nb
    raise KeyError(grade_id)


def _faulty_class(solution: Path) -> dict[str, tuple[object, float, str]]:
    """student -> (notebook or raw text, expected autograded score on A1, expected status prefix)."""
    points = _points(solution)
    total = sum(points.values())
    depth_only = points["a1-test-depth-limited"] + points["a1-test-depth-limited-tictactoe"]
    base = nbformat.read(solution, as_version=4)

    def variant(edit):
        nb = nbformat.from_dict(json.loads(json.dumps(base)))
        edit(nb)
        return nb

    def add(nb, after, source):
        index = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == after)
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(source))

    students = {}
    # an endless loop that even swallows the interrupt, after minimax_value is defined: the
    # cell is stopped, what it defined before the loop stays (as in a kernel)
    students["loop"] = (variant(lambda nb: _edit(nb, "a1-minimax-value", lambda c: setattr(
        c, "source", c.source + "\n\nwhile True:\n    try:\n        pass\n    except BaseException:\n        pass\n"))),
        total, "graded")
    students["import-error"] = (variant(lambda nb: _edit(nb, "a1-minimax-value", lambda c: setattr(
        c, "source", "import a_module_that_does_not_exist\n" + c.source))), depth_only, "graded")

    def delete(nb):
        nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                    not in ("a1-test-value-textbook", "a1-depth-limited", "a1-answer")]
    students["deleted-cells"] = (variant(delete), total - depth_only, "graded")

    def tamper(nb):
        _edit(nb, "a1-test-decision", lambda c: setattr(c, "source", "pass"))
        _edit(nb, "a1-test-value-random", lambda c: c.metadata.nbgrader.update(points=100))
        _edit(nb, "a1-setup", lambda c: setattr(c, "source", c.source + "\nraise RuntimeError('edited')"))
        _edit(nb, "a1-test-depth-limited", lambda c: c.metadata.nbgrader.update(grade_id="a1-mine"))
    students["edited-locked-cells"] = (variant(tamper), total, "graded")
    students["invalid-json"] = (json.dumps(base)[: 5000], 0.0, "needs attention")
    students["gigantic-output"] = (variant(lambda nb: add(nb, "a1-minimax-value",
                                                          "for i in range(6000):\n    print('x' * 1000)")),
                                   total, "graded")
    students["recursion"] = (variant(lambda nb: _edit(nb, "a1-minimax-value", lambda c: setattr(
        c, "source", c.source.replace("minimax_value(game, game.result(state, move))",
                                      "minimax_value(game, state)")))), depth_only, "graded")
    students["kernel-death"] = (variant(lambda nb: add(nb, "a1-minimax-value",
                                                       "import os\nos._exit(1)")), total, "graded")
    # a hostile notebook: would zero everyone's grades and delete the others' graded notebooks;
    # in the sandbox it finds none of them, and its own (correct) answers earn full marks
    hostile = (
        "import os, shutil, sqlite3\n"
        "root = os.path.abspath(os.path.join(os.getcwd(), '..', '..', '..'))\n"
        "db = os.path.join(root, 'gradebook.db')\n"
        "if os.path.exists(db):\n"
        "    con = sqlite3.connect(db)\n"
        "    con.execute('UPDATE grade SET auto_score = 0')\n"
        "    con.commit()\n"
        "    con.close()\n"
        "for other in os.listdir(os.path.join(root, 'autograded')):\n"
        "    if other not in ('hostile', '.course-grading'):\n"
        "        shutil.rmtree(os.path.join(root, 'autograded', other), ignore_errors=True)\n"
    )
    students["hostile"] = (variant(lambda nb: add(nb, "a1-minimax-value", hostile)), total, "graded")
    return students


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A graded class in a temporary course directory."""
    root = tmp_path_factory.mktemp("course")
    copy_course(root)
    regenerated = root / "regenerated"
    release(root, release_directory=regenerated)      # also fills the gradebook
    submitted = root / "submitted"
    expected: dict[tuple[str, str], tuple[float, str]] = {}
    for notebook in sorted(SOLUTIONS.glob("*/*.ipynb")):
        assignment = notebook.parent.name
        for student, source in (("perfect", notebook), ("untouched", EXERCISES / assignment / notebook.name)):
            target = submitted / student / assignment
            target.mkdir(parents=True)
            shutil.copy(source, target / notebook.name)
        total = sum(_points(notebook).values())
        expected[("perfect", assignment)] = (total, "graded")
        expected[("untouched", assignment)] = (0.0, "graded")
    for student, (content, score, status) in _faulty_class(SOLUTIONS / A1 / A1_NB).items():
        target = submitted / student / A1
        target.mkdir(parents=True)
        if isinstance(content, str):
            (target / A1_NB).write_text(content, encoding="utf-8")
        else:
            nbformat.write(content, str(target / A1_NB))
        expected[(student, A1)] = (score, status)
    records = autograde(root, cell_timeout=CELL_TIMEOUT)
    return root, regenerated, {(r.student, r.assignment): r for r in records}, expected


def test_exercises_equal_a_regeneration_of_the_solutions(course):
    _, regenerated, _, _ = course
    committed = sorted(p.relative_to(EXERCISES) for p in EXERCISES.rglob("*") if p.is_file())
    fresh = sorted(p.relative_to(regenerated) for p in regenerated.rglob("*") if p.is_file())
    assert committed == fresh
    for rel in committed:
        assert (EXERCISES / rel).read_bytes() == (regenerated / rel).read_bytes(), (
            f"exercises/{rel} is out of date: run `make release` and commit the result")


def test_every_submission_gets_the_points_it_earned(course):
    root, _, records, expected = course
    assert set(records) == set(expected)
    autograded = {}
    from nbgrader.api import Gradebook, MissingEntry
    layout = course_layout(root)
    with Gradebook(layout.db_url, layout.course_id) as gb:
        for (student, assignment), record in records.items():
            try:
                sub = gb.find_submission(assignment, student)
            except MissingEntry:          # a failed submission may have no gradebook entry
                assert record.status == "failed", (student, assignment, record)
                autograded[(student, assignment)] = 0.0
                continue
            autograded[(student, assignment)] = sum(
                g.auto_score or 0 for nb in sub.notebooks for g in nb.grades if g.cell_type == "code")
    wrong = {key: (autograded[key], record.status, record.reason) for key, record in records.items()
             if autograded[key] != expected[key][0] or not record.status.startswith(expected[key][1])}
    assert not wrong, f"unexpected results (autograded score, status, reason): {wrong}"


def test_a_hostile_notebook_cannot_change_other_grades(course):
    root, _, records, _ = course
    record = records[("hostile", A1)]
    assert record.status == "graded", record
    # it reached nothing: every graded notebook is there (the scores are checked above)
    layout = course_layout(root)
    for (student, assignment), other in records.items():
        if other.status.startswith("graded"):
            assert (layout.autograded / student / assignment).is_dir(), (student, assignment)


def test_reasons_and_repairs_are_reported(course):
    _, _, records, _ = course
    assert "not valid JSON" in records[("invalid-json", A1)].reason
    changes = " ".join(records[("deleted-cells", A1)].changes)
    assert "re-added missing cell a1-test-value-textbook" in changes
    assert "re-added missing cell a1-depth-limited" in changes
    tampered = " ".join(records[("edited-locked-cells", A1)].changes)
    assert "a1-mine" in tampered and "restored the grading metadata of cell a1-test-value-random" in tampered
    assert records[("perfect", A1)].needs_manual_grade


def test_faulty_notebooks_are_marked_where_they_failed(course):
    root, _, _, _ = course

    def outputs(student, grade_id):
        nb = nbformat.read(root / "autograded" / student / A1 / A1_NB, as_version=4)
        return _edit(nb, grade_id, lambda c: None) and [
            o for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id
            for o in c.outputs]

    assert any(o.get("ename") in ("CellTimeoutError", "TimeoutError")
               for o in outputs("loop", "a1-minimax-value"))
    assert any(o.get("ename") == "SearchCrashed" and "RecursionError" in o.get("evalue", "")
               for o in outputs("recursion", "a1-test-value-textbook"))
    path = root / "autograded" / "gigantic-output" / A1 / A1_NB
    assert path.stat().st_size < 2_000_000
    assert "more characters not shown" in path.read_text(encoding="utf-8")
    died = nbformat.read(root / "autograded" / "kernel-death" / A1 / A1_NB, as_version=4)
    crash = next(c for c in died.cells if "os._exit" in c.source)
    assert any(o.get("ename") == "ProcessDied" for o in crash.outputs)


def test_feedback_grades_and_summary(course):
    root, _, records, expected = course
    written = feedback(root)
    assert (root / "feedback" / "perfect" / A1 / "minimax.html").exists()
    page = (root / "feedback" / "invalid-json" / A1 / "minimax.html").read_text(encoding="utf-8")
    assert "not valid JSON" in page
    assert len(written) >= len(records)
    path = grades(root, root / "grades.csv")
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    by_key = {(r["student"], r["assignment"]): r for r in rows}
    assert by_key[("invalid-json", A1)]["status"] == "needs attention" and float(by_key[("invalid-json", A1)]["score"]) == 0
    assert "not valid JSON" in by_key[("invalid-json", A1)]["reason"]
    assert by_key[("loop", "a2_alphabeta")]["status"] == "not submitted"
    assert float(by_key[("perfect", A1)]["autograded_score"]) == expected[("perfect", A1)][0]
    assert by_key[("perfect", A1)]["needs_manual_grade"] == "True"
    summaries = summary(root, "summary")
    a1 = next(s for s in summaries if s.assignment == A1)
    assert a1.histogram.exists() and a1.histogram.stat().st_size > 1000
    assert len(a1.scores) == len([k for k in expected if k[1] == A1])
    most_failed = dict((t, n) for t, n, _, _ in a1.failed_tests)
    assert most_failed and max(most_failed.values()) >= 4
    text = (root / "summary" / "summary.txt").read_text(encoding="utf-8")
    assert "a1-test" in text and "failed by" in text


def test_validate_passes_on_solutions_and_fails_on_the_release(course):
    root = course[0]
    from nbgrader.validator import Validator

    config = course_config(Path(root))
    config.Execute.timeout = 60
    validator = Validator(config=config)
    for notebook in sorted(SOLUTIONS.glob("*/*.ipynb")):
        result = validator.validate(str(notebook))
        assert not result, f"{notebook.name}: {list(result)} {str(result)[:500]}"
        released = EXERCISES / notebook.parent.name / notebook.name
        result = validator.validate(str(released))
        assert result.get("failed"), f"the release {released.name} passes validation"


def test_regrading_keeps_hand_grades(course):
    root = course[0]
    from nbgrader.api import Gradebook

    layout = course_layout(root)

    def answer(gb):
        sub = gb.find_submission(A1, "perfect")
        return sub, next(g for nb in sub.notebooks for g in nb.grades if g.name == "a1-answer")

    with Gradebook(layout.db_url, layout.course_id) as gb:
        sub, grade = answer(gb)
        assert grade.needs_manual_grade
        grade.manual_score, grade.needs_manual_grade = 1.5, False
        gb.db.commit()
    [record] = autograde(root, student="perfect", assignment=A1, cell_timeout=CELL_TIMEOUT)
    assert not record.needs_manual_grade
    with Gradebook(layout.db_url, layout.course_id) as gb:
        sub, grade = answer(gb)
        assert grade.manual_score == 1.5 and not grade.needs_manual_grade
        assert not sub.needs_manual_grade


def test_nbgrader_validate_names_the_test_and_what_differs_first(tmp_path):
    """`nbgrader validate` on a wrong A3 (the chance window from the initial [vmin, vmax]): for the
    failed cell, the first line of the error names the search, the case and what differs, no
    grader frame is shown, and no line is cut at the validator's width."""
    import re
    import subprocess
    import sys

    from test_grading_mutants import MUTANTS, _mutated_source

    mutant = next(m for m in MUTANTS if m.name.startswith("Star1: chance window from the initial"))
    solution = SOLUTIONS / mutant.notebook
    nb = nbformat.read(EXERCISES / mutant.notebook, as_version=4)
    answers = {c.grade_id: c.source for c in read_cells(solution) if c.kind in ("solution", "answer")}
    answers[mutant.cell] = _mutated_source(mutant)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = re.sub(r"^[ \t]*#+[ \t]*(BEGIN|END) SOLUTION[ \t]*\n?", "", answers[grade_id],
                                 flags=re.MULTILINE)
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path / "nbgrader_config.py")
    path = tmp_path / "wrong.ipynb"
    nbformat.write(nb, str(path))
    done = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "validate", str(path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = done.stdout
    assert "VALIDATION FAILED ON 1 CELL(S)" in out, out
    error = out.split("The error was:\n\n", 1)[1].split("\n")
    assert error[0].startswith("    WrongLeaves: Star1 search on random tree"), error[:3]
    assert "at step" in error[0] + error[1] and "the reference" in error[0] + error[1], error[:3]
    assert "course/grading" not in out and "Traceback" not in out
    assert "Raised by line" in out
    width = 110
    cut = [line for line in out.split("\n") if len(line) >= width - 3 and line.endswith("...")]
    assert not cut, cut
    assert max(len(line) for line in out.split("\n") if set(line) != {"="}) <= width - 3
