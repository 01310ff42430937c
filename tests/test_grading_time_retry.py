"""A submission whose grading reached a *time* limit is graded again, alone, at the end of the run.

A wall-clock limit can be reached by an honest submission because the machine is busy (two
workers, other users): then the grade would depend on the machine, and a from-scratch regrade
on a quiet machine would differ.  So such a submission is graded once more after every other
job, with no other worker running, and that second grading is its grade (only once).

The slow-only-at-first answer is slow until a wall-clock instant ``T`` chosen here, so the
test does not depend on the machine's load: its first grading (before ``T``) reaches the time
limit of a call, its second (after ``T``; the test waits for ``T`` before it if need be) does
not.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from course.sandbox import sandbox_available

sys.path.insert(0, os.path.dirname(__file__))

import term_support  # noqa: E402
from term_support import A, due_date, ok, tiny_class  # noqa: E402

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")

#: Seconds a cell (and a call of the student's function, plus the session's read margin) may run.
CELL_TIMEOUT = "1"


# --------------------------------------------------------------- what counts as a time limit
SLOW_SEARCH = '''
import time
def slow_minimax(game, state):
    time.sleep(30)
'''
FORGED = '''
class CellTimeoutError(BaseException):
    pass
class SearchTimeout(Exception):
    pass
def forged(x):
    raise SearchTimeout("your function did not finish within 1 second")
raise CellTimeoutError("stopped after 1 seconds")
'''


def test_each_kind_of_time_limit_is_told_and_nothing_else():
    """A test cell whose search ran past its ``time_limit`` (SearchTimeout), a cell stopped at the
    cell time limit: each is told (``timed``); a student's own exceptions with those names, a
    wrong answer, a pass are not.  (A call that stops answering within the grader's wait is the
    grading run's test below.)"""
    from course.grading.job.sandboxed import grade_notebook

    locked = "from course.grading import check_minimax_value, textbook_cases\n"
    cells = [
        {"kind": "locked", "source": locked, "trusted_source": locked},
        {"kind": "student", "source": SLOW_SEARCH, "trusted_source": SLOW_SEARCH},
        {"kind": "student", "source": FORGED, "trusted_source": FORGED},
        {"kind": "student", "source": "import time\ntime.sleep(30)\n", "trusted_source": ""},
        {"kind": "test", "source": "", "trusted_source":
            "check_minimax_value(slow_minimax, textbook_cases('minimax')[:1], time_limit=0.5)\n"},
        {"kind": "test", "source": "", "trusted_source": "forged(1)\n"},
        {"kind": "test", "source": "", "trusted_source": "assert 1 + 1 == 3\n"},
        {"kind": "test", "source": "", "trusted_source": "x = 1\n"},
    ]
    results = grade_notebook(cells, secret=None, cell_timeout=1)
    timed = [bool(r["timed"]) for r in results]
    assert timed == [False, False, False, True, True, False, False, False], \
        [r["timed"] for r in results]
    assert "SearchTimeout" in results[4]["timed"]
    assert [r["passed"] for r in results[4:]] == [False, False, False, True]


# --------------------------------------------------------------- the grading run
def _slow_until(instant: float) -> str:
    return ("import time\ndef square(x):\n"
            f"    if time.time() < {instant!r}:\n        time.sleep(600)\n    return x * x\n")


SLOW_ALWAYS = "import time\ndef square(x):\n    time.sleep(600)\n    return x * x\n"


@pytest.fixture
def graded_calls(monkeypatch):
    """Every job the local pool gives a worker, in order: ``[[student, given at, done at]]``;
    ``wait_for[student] = T`` holds that student's *second* job until ``T`` has passed."""
    from course.grading.job import queue

    calls: list[list] = []
    wait_for: dict[str, float] = {}
    real = queue._Worker.grade

    def grade(self, student, assignment, limit):
        if student in wait_for and any(c[0] == student for c in calls):
            time.sleep(max(0.0, wait_for[student] - time.time() + 0.5))
        call = [student, time.time(), None]
        calls.append(call)
        try:
            return real(self, student, assignment, limit)
        finally:
            call[2] = time.time()

    monkeypatch.setattr(queue._Worker, "grade", grade)
    return calls, wait_for


@pytest.mark.nbgrader
def test_a_time_limit_reached_under_load_is_graded_again_alone(tmp_path, graded_calls):
    calls, wait_for = graded_calls
    due = due_date() - dt.timedelta(hours=2)
    term_support.CODE.update(slow_always=SLOW_ALWAYS)
    root = tiny_class(tmp_path / "course", {"amy": ("right", "x", due),
                                            "bea": ("slow_always", "x", due),
                                            "cal": ("right", "x", due)})
    # amy's answer, slow until an instant after her first grading starts (the run's start takes
    # a few seconds) and before her second (after every first grading, among them bea's, which
    # reaches the time limit: 6 s at least); the fixture holds her second until then if need be
    instant = time.time() + 16
    term_support.CODE.update(slow_until=_slow_until(instant))
    term_support.hand_in(root, "amy", "slow_until", "x", due)
    wait_for["amy"] = instant
    # amy's and bea's first gradings run with each other and with cal's (two workers)
    out = ok(root, "autograde", "--timeout", CELL_TIMEOUT, "--jobs", "2")
    first_amy = next(when for who, when, _ in calls if who == "amy")
    assert first_amy < instant - 1, "the machine is too slow for this test: amy's first " \
        "grading started after the instant her answer becomes fast"
    # graded twice: amy and bea (again after every first grading, one at a time); cal once
    students = [who for who, _, _ in calls]
    assert sorted(students[:3]) == ["amy", "bea", "cal"] and sorted(students[3:]) == ["amy", "bea"]
    # alone: each second grading starts after every grading before it has ended
    for k in (3, 4):
        assert calls[k][1] >= max(end for _, _, end in calls[:k]), calls
    _, rows = term_support.grades(root)
    assert sorted(rows) == [(s, A) for s in ("amy", "bea", "cal")]      # every student a row
    scores = {s: float(rows[(s, A)]["score"]) for s in ("amy", "bea", "cal")}
    assert scores["amy"] == scores["cal"] > 0, (scores, out)     # the second grading counts
    assert scores["bea"] == 0, (scores, out)                     # slow every time: still fails
    # the record says so, in the instructor's words
    report = json.loads((root / "autograded" / ".course-grading" / "report.json").read_text())
    again = {s: [r for r in report[f"{s}/{A}"]["review"] if "graded again" in r]
             for s in ("amy", "bea", "cal")}
    assert len(again["amy"]) == len(again["bea"]) == 1 and not again["cal"], again
    assert "t1-test-square" in again["amy"][0] and "time limit" in again["amy"][0], again
    assert "reached a time limit again" in again["bea"][0], again
    assert report[f"amy/{A}"]["status"] == "graded", report[f"amy/{A}"]


@pytest.mark.nbgrader
def test_an_honest_class_is_graded_once(tmp_path, graded_calls):
    calls, _ = graded_calls
    due = due_date() - dt.timedelta(hours=2)
    root = tiny_class(tmp_path / "course", {"ada": ("right", "x", due), "bob": ("wrong", "x", due)})
    out = ok(root, "autograde", "--timeout", "5", "--jobs", "2")
    assert sorted(who for who, _, _ in calls) == ["ada", "bob"]
    assert "graded again" not in out


@pytest.mark.nbgrader
def test_an_interrupt_during_the_second_gradings_leaves_them_grading(tmp_path, monkeypatch):
    """Ctrl-C while a submission is graded again: it stays "grading" (no grade) and waits for a
    look in the gradebook, as any submission in flight; the finished ones keep their grades."""
    import _thread

    from nbgrader.api import Gradebook

    from course.grading.job import queue

    due = due_date() - dt.timedelta(hours=2)
    term_support.CODE.update(slow_always=SLOW_ALWAYS)
    root = tiny_class(tmp_path / "course", {"bea": ("slow_always", "x", due),
                                            "cal": ("right", "x", due)})
    given: list[str] = []
    real = queue._Worker.grade

    def grade(self, student, assignment, limit):
        given.append(student)
        if given.count(student) == 2:
            _thread.interrupt_main()          # Ctrl-C, as the second grading starts
        return real(self, student, assignment, limit)

    monkeypatch.setattr(queue._Worker, "grade", grade)
    # Ctrl-C as a terminal sends it: a process started in the background by a shell without job
    # control inherits SIGINT ignored, and interrupt_main() then does nothing
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status, out = term_support.run("--root", str(root), "autograde", "--timeout", CELL_TIMEOUT,
                                       "--jobs", "2")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert status == 130, out
    assert sorted(given) == ["bea", "bea", "cal"], given
    report = json.loads((root / "autograded" / ".course-grading" / "report.json").read_text())
    assert report[f"bea/{A}"]["status"] == "grading", report[f"bea/{A}"]
    assert report[f"cal/{A}"]["status"] == "graded", report[f"cal/{A}"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        assert gb.find_submission(A, "bea").needs_manual_grade


# --------------------------------------------------------------- the formgrader's Autograde button
@pytest.mark.nbgrader
def test_the_formgraders_autograde_grades_a_time_limit_again_at_once(tmp_path, monkeypatch):
    """The formgrader's *Autograde* button (nbgrader's API, one submission, no grading run): a
    notebook whose grading reached a time limit is graded again at once, by itself, and that
    second grading is its grade, as ``make autograde`` would give it; only once."""
    from course.formgrader_guard import guard_grading_api
    from course.grading.job import sandboxed
    from course.grading.term.course_dir import course_layout, nbgrader_api

    guard_grading_api()             # as the Jupyter server that serves the formgrader does
    calls: list[float] = []
    wait_for: dict[str, float] = {}
    real = sandboxed.grade_notebook

    def grade_notebook(cells, **kwargs):
        if calls and "instant" in wait_for:        # the second grading: after the instant
            time.sleep(max(0.0, wait_for["instant"] - time.time() + 0.5))
        calls.append(time.time())
        return real(cells, **kwargs)

    monkeypatch.setattr(sandboxed, "grade_notebook", grade_notebook)
    due = due_date() - dt.timedelta(hours=2)
    term_support.CODE.update(slow_always=SLOW_ALWAYS)
    root = tiny_class(tmp_path / "course", {"cal": ("right", "x", due), "bea": ("slow_always", "x", due)})
    (root / "nbgrader_config.py").write_text(term_support.course_config()
                                             + f"c.SandboxedGrade.cell_timeout = {CELL_TIMEOUT}\n")
    ok(root, "approve-config")
    api = nbgrader_api(course_layout(root))

    def points(student: str) -> float:
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
            return gb.find_submission(A, student).score

    del calls[:]                     # (the release's own check graded the source and the release)
    assert api.autograde(A, "cal", force=True, create=True)["success"]
    full = points("cal")
    assert full > 0 and len(calls) == 1                 # a pass: graded once
    # slow until an instant after its first grading started
    instant = time.time() + 6
    term_support.CODE.update(slow_until=_slow_until(instant))
    term_support.hand_in(root, "amy", "slow_until", "x", due)
    wait_for["instant"] = instant
    del calls[:]
    result = api.autograde(A, "amy", force=True, create=True)
    assert result["success"], result
    assert calls[0] < instant - 1, "the machine is too slow for this test"
    assert len(calls) == 2 and calls[1] >= instant, calls
    assert points("amy") == full, result["log"][-2000:]   # the second grading counts
    assert "graded again" in result["log"] and "t1-test-square" in result["log"]
    assert "slow there" not in result["log"]
    # slow every time: exactly two gradings, and the test fails
    del wait_for["instant"], calls[:]
    result = api.autograde(A, "bea", force=True, create=True)
    assert result["success"], result
    assert len(calls) == 2 and points("bea") == 0, calls
    assert "reached a time limit again" in result["log"]

