"""Issue 28, item 3: extensions from the command line -- each refusal, and what is stored.

(The extension applied to grades without running code: tests/test_term_example_class.py.)
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from term_support import A, course_config, ok, run, write_source  # noqa: E402

pytestmark = pytest.mark.nbgrader


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    write_source(root)
    (root / "nbgrader_config.py").write_text(course_config(), encoding="utf-8")
    (root / "roster.csv").write_text("id,first_name,last_name\nada,Ada,Lovelace\n", encoding="utf-8")
    ok(root, "due-date", A, "2026-12-01 17:00 UTC")
    return root


def test_hours_and_until_give_the_students_own_due_date(course):
    from course.grading.term.course_dir import course_layout, gradebook
    from course.grading.term import extensions
    from course.grading.term.extensions import extension_for

    out = ok(course, "extension", "ada", A, "--hours", "48")
    assert "due 2026-12-03 17:00 UTC (the assignment's due date is 2026-12-01 17:00 UTC)" in out
    ok(course, "due-date", A, "2026-12-02 17:00 UTC")                  # --hours moves with it
    (found,) = extensions(course)
    assert found.due(dt.datetime(2026, 12, 2, 17)) == dt.datetime(2026, 12, 4, 17)
    ok(course, "extension", "ada", A, "--until", "2026-12-05 09:00 Europe/Berlin")
    with gradebook(course_layout(course)) as gb:                       # stored in the gradebook
        ext = extension_for(gb, "ada", A)
    assert (ext.until, ext.hours, ext.source) == (dt.datetime(2026, 12, 5, 8), None, "course")
    assert "until 2026-12-05 08:00 UTC" in ok(course, "extension", "--list")
    assert "extension until 2026-12-05 08:00 UTC removed" in ok(course, "extension", "ada", A, "--remove")
    assert "no extensions" in ok(course, "extension", "--list")
    assert "had no extension" in ok(course, "extension", "ada", A, "--remove")


@pytest.mark.parametrize("argv, message", [
    (("ada", A, "--hours", "-3"), "--hours must be a positive number"),
    (("ada", A, "--hours", "nan"), "--hours must be a positive number"),
    (("ada", A, "--until", "next tuesday-ish"), "not a date and time"),
    (("linus", A, "--hours", "5"), "not a student of the roster"),
    (("ada", "a9_nothing", "--hours", "5"), "no assignment 'a9_nothing'"),
    (("ada", A), "give --until WHEN, --hours N or --remove"),
    (("../ada", A, "--hours", "5"), "not a valid student id"),
])
def test_each_refusal_says_why(course, argv, message):
    status, out = run("--root", str(course), "extension", *argv)
    assert status == 2 and message in out, out


def test_an_extension_before_the_due_date_is_kept_and_changes_nothing_now(course):
    """Found by the term simulator (seed 4242, sequence 3): an extension given, then the due date
    moved past it -- a course rebuilt from the same inputs (due date, then extensions) was refused
    the extension. It is kept as given, said to change nothing now, and counts again if the due
    date moves earlier."""
    from course.grading.term import extensions

    out = ok(course, "extension", "ada", A, "--until", "2026-11-30 12:00 UTC")
    assert "changes nothing unless the due date moves earlier" in out
    assert "due 2026-12-01 17:00 UTC" in out
    (found,) = extensions(course)
    assert found.until == dt.datetime(2026, 11, 30, 12)
    assert found.due(dt.datetime(2026, 12, 1, 17)) == dt.datetime(2026, 12, 1, 17)
    assert found.due(dt.datetime(2026, 11, 29, 17)) == dt.datetime(2026, 11, 30, 12)
