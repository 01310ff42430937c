"""Issue 28, item 5, and what a grade depends on (item 1), on a tiny class (tests/term_support.py).

* every version a student hands in is kept (``versions/``), whether it comes from an LMS zip,
  the exchange's collect or a copy into ``submitted/``; ``submitted/`` holds the one the
  resubmission policy chooses -- ``latest``, ``latest-before-due`` or ``best`` -- and
  ``grades.csv`` says which; changing the policy runs no code;
* the grading secret and the hidden tests are inputs of a grade (a change regrades, saying
  why); a test edited in ``solutions/`` but not released stops ``autograde``;
* a hand grade belongs to the answer it graded: a resubmission with the same written answer
  keeps it, a changed answer waits for a new one.
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from term_support import A, WRITTEN, due_date, give_hand_grade, grades, hand_in, lms_zip, ok, run, set_rules, \
    tiny_class, write_source  # noqa: E402

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

GRADED_LINE = re.compile(r"\[\d+\.\d+ s\]")
DUE = due_date()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """ada: right, on time; bob: right but 1 hour late."""
    root = tiny_class(tmp_path_factory.mktemp("tiny") / "class", {
        "ada": ("right", WRITTEN[0], DUE - dt.timedelta(hours=5)),
        "bob": ("right", WRITTEN[1], DUE + dt.timedelta(hours=1))})
    ok(root, "autograde", "--jobs", "1")
    return root


@pytest.fixture
def course(graded, tmp_path):
    root = tmp_path / "class"
    shutil.copytree(graded, root)
    ok(root, "approve-config")
    return root


def _import(root: Path, student: str, code: str, written: str, when: dt.datetime) -> str:
    zipped = lms_zip(root.parent / "upload.zip", student, code, written, when)
    return ok(root, "collect-zip", str(zipped), "--assignment", A, "--submissions", str(root / "submitted"),
              "--timezone", "UTC")


def test_item5_every_version_is_kept_and_the_policy_chooses_which_counts(course):
    from course.grading.term.versions import versions

    # ada resubmits late, a wrong answer; then an on-time file of the same zip date order arrives
    _import(course, "ada", "wrong", WRITTEN[0], DUE + dt.timedelta(hours=3))
    kept = versions(course, "ada", A)
    assert [v.number for v in kept] == [1, 2] and kept[0].timestamp == DUE - dt.timedelta(hours=5)
    out = ok(course, "autograde", "--jobs", "1")
    assert re.search(r"ada +t1_square +grading: version 2 of 2 .* is new", out), out
    ada = grades(course)[1][("ada", A)]
    assert (ada["version"], ada["autograded_score"], ada["late_penalty"]) == ("2 of 2", "0", "0")

    set_rules(course, policy="latest-before-due")
    out = ok(course, "autograde", "--jobs", "1")
    assert not GRADED_LINE.search(out), f"code ran for a change of policy:\n{out}"
    ada = grades(course)[1][("ada", A)]
    assert (ada["version"], ada["autograded_score"], ada["submitted_at"]) == \
        ("1 of 2", "2", (DUE - dt.timedelta(hours=5)).strftime("%Y-%m-%d %H:%M:%S UTC"))
    assert "return x * x" in (course / "submitted" / "ada" / A / "square.ipynb").read_text()

    # best: the highest score after the late penalty (bob: on time 0 points, late 2 - 10 %)
    _import(course, "bob", "wrong", WRITTEN[1], DUE - dt.timedelta(hours=2))    # older than his
    assert len(versions(course, "bob", A)) == 2
    ok(course, "autograde", "--jobs", "1")
    set_rules(course, policy="best")
    rows = grades(course)[1]                            # no autograde needed: no code to run
    assert (rows[("bob", A)]["version"], rows[("bob", A)]["score"]) == ("1 of 2", "1.8")
    assert (rows[("ada", A)]["version"], rows[("ada", A)]["score"]) == ("1 of 2", "2")

    # an exchange collect and a copy by hand into submitted/ are kept too
    hand_in(course, "bob", "integers", WRITTEN[2], DUE + dt.timedelta(hours=9))
    ok(course, "autograde", "--jobs", "1")
    assert len(versions(course, "bob", A)) == 3


def test_item5_collect_keeps_the_submission_it_replaces(course, tmp_path, monkeypatch):
    """nbgrader's collect (the course's ExchangeCollect) replaced submitted/<student>/<assignment>:
    the copy it replaces is kept as a version first."""
    from course.grading.term.course_dir import course_layout
    from course.grading.term.intake.exchange.collect import ExchangeCollect
    from course.grading.term.versions import versions

    layout = course_layout(course)
    exchange = tmp_path / "exchange"
    inbound = exchange / layout.course_id / "inbound" / f"ada+{A}+2026-01-01 00:00:00.000000 UTC+x"
    inbound.mkdir(parents=True)
    shutil.copy(course / "submitted" / "ada" / A / "square.ipynb", inbound / "square.ipynb")
    (inbound / "square.ipynb").write_text((inbound / "square.ipynb").read_text().replace(
        "return x * x", "return x ** 2"))
    from nbgrader.coursedir import CourseDirectory
    from course.grading.term.course_dir import course_config

    config = course_config(course)
    config.CourseDirectory.assignment_id = A
    config.Exchange.root = str(exchange)
    config.ExchangeCollect.update = True
    collect = ExchangeCollect(coursedir=CourseDirectory(config=config), config=config)
    collect.start()
    kept = versions(course, "ada", A)
    assert len(kept) == 2 and "x ** 2" in (course / "submitted" / "ada" / A / "square.ipynb").read_text()
    assert "return x * x" in (kept[0].path / "square.ipynb").read_text()


def test_item1_the_secret_and_the_hidden_tests_are_inputs_of_a_grade(course):
    (course / ".grading-secret").write_text("another secret\n")
    out = ok(course, "autograde", "--jobs", "1")
    assert re.search(r"ada +t1_square +grading: the grading secret changed", out), out
    write_source(course, hidden="fractions")
    ok(course, "release")
    status, out = run("--root", str(course), "grades", "--output", str(course / "g.csv"))
    assert "hidden tests of t1_square changed since it was graded: run make autograde" in out, out
    out = ok(course, "autograde", "--jobs", "1")
    assert re.search(r"bob +t1_square +grading: hidden tests of t1_square changed", out), out
    # a test edited in solutions/ but not released: grading would use the released one
    write_source(course, hidden="negatives", points=3)
    status, out = run("--root", str(course), "autograde", "--jobs", "1")
    assert status == 2 and "solutions/t1_square changed since it was released" in out, out


def test_a_hand_grade_belongs_to_the_answer_it_graded(course):
    give_hand_grade(course, "ada", 2.0)
    assert grades(course)[1][("ada", A)]["score"] == "4"
    _import(course, "ada", "integers", WRITTEN[0], DUE - dt.timedelta(hours=1))   # same written answer
    ok(course, "autograde", "--jobs", "1")
    ada = grades(course)[1][("ada", A)]
    assert (ada["version"], ada["score"], ada["needs_manual_grade"]) == ("2 of 2", "4", "False")
    _import(course, "ada", "integers", WRITTEN[2], DUE - dt.timedelta(minutes=30))  # another answer
    ok(course, "autograde", "--jobs", "1")
    ada = grades(course)[1][("ada", A)]
    assert (ada["score"], ada["needs_manual_grade"]) == ("2", "True")
    set_rules(course, policy="best")                         # the graded answer's version wins
    ada = grades(course)[1][("ada", A)]
    assert (ada["version"], ada["score"]) == ("2 of 3", "4")


def test_a_refused_submission_is_neither_kept_nor_replaced(course):
    """A submitted folder holding a link (to the instructor's files) is refused by autograde and
    grades: it is never copied into versions/ (the link followed) nor silently replaced by an
    earlier version, so the instructor sees what was handed in."""
    from course.grading.term.versions import versions

    folder = course / "submitted" / "ada" / A
    (folder / "square.ipynb").unlink()
    (folder / "square.ipynb").symlink_to(course / "nbgrader_config.py")
    status, out = run("--root", str(course), "autograde", "--jobs", "1")
    assert status == 1 and "REFUSED" in out and "symbolic link" in out, out
    run("--root", str(course), "grades", "--output", str(course / "g.csv"))
    assert (folder / "square.ipynb").is_symlink()                      # left as it was
    assert len(versions(course, "ada", A)) == 1                         # the honest one only
    assert not any("c.CourseDirectory" in p.read_text(errors="replace")
                   for p in (course / "versions").rglob("*") if p.is_file() and not p.is_symlink())


def test_the_same_notebook_handed_in_earlier_is_an_earlier_version(course):
    """An LMS zip with the notebook already collected, dated earlier: the earlier hand-in is a
    version of its own (under latest-before-due its time decides whether it was late)."""
    from course.grading.term.versions import versions

    _import(course, "bob", "right", WRITTEN[1], DUE + dt.timedelta(hours=6))    # the same, later
    _import(course, "bob", "right", WRITTEN[1], DUE - dt.timedelta(hours=2))    # the same, on time
    times = sorted(v.timestamp for v in versions(course, "bob", A))
    assert times == [DUE - dt.timedelta(hours=2), DUE + dt.timedelta(hours=1), DUE + dt.timedelta(hours=6)]
    set_rules(course, policy="latest-before-due")
    bob = grades(course)[1][("bob", A)]
    assert (bob["late_penalty"], bob["submitted_at"]) == \
        ("0", (DUE - dt.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S UTC"))


@pytest.mark.nbgrader
def test_an_edit_of_submitted_undone_by_hand_is_graded_as_undone(tmp_path):
    """troubleshooting.md, "A renamed notebook": the instructor edits ``submitted/`` in place (a
    rename), grades, then undoes the edit and grades again.  The folder's content is then that of
    version 1 again; it used to be taken for version 1, so "latest" chose version 2 (the edit)
    and autograde put the renamed notebook back: 0 points.  A folder changed since the term
    filled it is a hand-in of its own, the latest."""
    from term_support import NB, tiny_class

    due = due_date() - dt.timedelta(hours=2)
    root = tiny_class(tmp_path / "course", {"amy": ("right", "x", due)})
    folder = root / "submitted" / "amy" / A
    ok(root, "autograde")
    _, rows = grades(root)
    full = float(rows[("amy", A)]["autograded_score"])
    assert full > 0
    (folder / f"{NB}.ipynb").rename(folder / "my answers.ipynb")            # the edit
    ok(root, "autograde")
    assert float(grades(root)[1][("amy", A)]["autograded_score"]) == 0
    (folder / "my answers.ipynb").rename(folder / f"{NB}.ipynb")            # undone
    ok(root, "autograde")
    assert (folder / f"{NB}.ipynb").exists() and not (folder / "my answers.ipynb").exists()
    assert float(grades(root)[1][("amy", A)]["autograded_score"]) == full
    # and nothing changes when it is graded again
    ok(root, "autograde")
    assert (folder / f"{NB}.ipynb").exists()
