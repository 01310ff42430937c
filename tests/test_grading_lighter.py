"""The grading worker's shortcuts through nbgrader's gradebook work (``lighter_nbgrader``,
``one_job``, ``ReleasedTestCells``) answer as nbgrader does and keep nothing past a job.

Fast: a gradebook in a temporary folder, no sandbox.  That whole classes grade the same with
them is checked by ``tests/benchmarks/autograde_fingerprint.py`` (run on two versions) and by
the grading tests, which run through them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from course.grading.job.sandboxed import _ReleaseCells
from course.grading.job.worker import lighter_nbgrader, one_job


@pytest.fixture
def gradebook_url(tmp_path, monkeypatch):
    from nbgrader.api import Gradebook

    # a new gradebook asks alembic, installed beside this Python (the Makefile puts it on PATH)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    lighter_nbgrader()
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url, "course") as gb:
        gb.add_assignment("a1")
        gb.add_notebook("nb", "a1")
        gb.add_source_cell("setup", "nb", "a1", cell_type="code", locked=True, source="x = 1",
                           checksum="c1")
        gb.add_source_cell("test", "nb", "a1", cell_type="code", locked=True, source="assert x",
                           checksum="c2")
        gb.add_grade_cell("test", "nb", "a1", max_score=2, cell_type="code")
        gb.add_source_cell("answer", "nb", "a1", cell_type="markdown", locked=False, source="",
                           checksum="c3")
        gb.add_grade_cell("answer", "nb", "a1", max_score=1, cell_type="markdown")
        gb.add_solution_cell("answer", "nb", "a1")
        gb.add_source_cell("task", "nb", "a1", cell_type="markdown", locked=True, source="do",
                           checksum="c4")
        gb.add_task_cell("task", "nb", "a1", max_score=3, cell_type="markdown")
        gb.add_notebook("other", "a1")
        gb.add_source_cell("elsewhere", "other", "a1", cell_type="code", locked=True,
                           source="y = 2", checksum="c5")
    return url


def _answer(find, *args):
    from nbgrader.api import MissingEntry

    try:
        return ("found", find(*args).id)
    except MissingEntry as exc:
        return ("missing", str(exc))


def test_the_release_cells_answer_as_the_gradebook(gradebook_url):
    from nbgrader.api import Gradebook

    names = ["setup", "test", "answer", "task", "elsewhere", "nothing", "", 1, None]
    with Gradebook(gradebook_url) as gb:
        cells = _ReleaseCells(gb, "nb", "a1")
        assert set(cells.source_cells) == {"setup", "test", "answer", "task"}
        for where in (("nb", "a1"), ("other", "a1"), ("nb", "a2")):
            for name in names:
                for method in ("find_source_cell", "find_graded_cell"):
                    assert _answer(getattr(cells, method), name, *where) == \
                        _answer(getattr(gb, method), name, *where), (method, name, where)
        assert cells.find_notebook("nb", "a1") is gb.find_notebook("nb", "a1")


def test_a_job_keeps_connections_and_closes_them_all_at_its_end(gradebook_url):
    from nbgrader.api import Gradebook

    with Gradebook(gradebook_url) as gb:
        engine = gb.engine
    assert engine.pool.checkedin() == 0          # outside a job, closing closes them
    with one_job():
        for _ in range(3):
            with Gradebook(gradebook_url) as gb:
                assert gb.engine is engine
                gb.find_notebook("nb", "a1")
        assert engine.pool.checkedin() == 1      # one idle connection, reused
    assert engine.pool.checkedin() == 0


def test_a_gradebook_made_again_between_jobs_is_opened_anew(gradebook_url, tmp_path):
    from nbgrader.api import Course, Gradebook, MissingEntry

    with one_job():
        with Gradebook(gradebook_url, "course") as gb:
            gb.add_student("s1")
    (tmp_path / "gradebook.db").unlink()
    with one_job():
        with Gradebook(gradebook_url, "course") as gb:      # tables and course made again
            with pytest.raises(MissingEntry):
                gb.find_student("s1")
            gb.add_student("s2")
        with Gradebook(gradebook_url, "course") as gb:
            assert [s.id for s in gb.students] == ["s2"]
            assert gb.db.query(Course).filter(Course.id == "course").count() == 1


def test_saving_grades_commits_once_and_keeps_what_was_saved_before_a_failure(gradebook_url):
    from nbgrader.api import Gradebook
    from nbgrader.preprocessors import saveautogrades

    with Gradebook(gradebook_url, "course") as gb:
        gb.add_student("s1")
        gb.add_submission("a1", "s1")
    with saveautogrades.Gradebook(gradebook_url) as gb:
        commits = []
        real = gb._commit
        gb._commit = lambda: (commits.append(1), real())
        grade = gb.find_grade("test", "nb", "a1", "s1")
        assert grade is gb.find_grade("test", "nb", "a1", "s1")
        assert grade.id == Gradebook.find_grade(gb, "test", "nb", "a1", "s1").id
        assert gb.find_grade("task", "nb", "a1", "s1").cell.name == "task"
        assert gb.find_comment("answer", "nb", "a1", "s1").cell.name == "answer"
        grade.auto_score = 2
        gb.db.commit()                  # as SaveAutoGrades does after each cell: a flush
        assert commits == []
    assert commits == [1]
    with pytest.raises(RuntimeError):
        with saveautogrades.Gradebook(gradebook_url) as gb:
            gb.find_grade("task", "nb", "a1", "s1").auto_score = 3
            gb.db.commit()
            raise RuntimeError("a later cell fails")
    with Gradebook(gradebook_url, "course") as gb:
        assert gb.find_grade("test", "nb", "a1", "s1").auto_score == 2
        assert gb.find_grade("task", "nb", "a1", "s1").auto_score == 3
