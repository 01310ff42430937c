"""A term's settings and changes: due dates, the late penalty, which assignments are out, leavers.

* :func:`set_due_date` -- an assignment's due date, in the gradebook (nbgrader's own field,
  which its ``AssignLatePenalties`` step compares with each submission's ``timestamp.txt``);
* :class:`PercentPerDay` -- a late penalty: a percentage of the score per day (or part of a
  day) late, after a grace period, never more than the score; chosen in ``nbgrader_config.py``;
* :func:`released_assignments` -- the assignments students have been given so far;
* :func:`remove_student` -- a student who left: their rows, folders, report entries and roster
  line go, so that grades and feedback no longer list them.

Reads and writes only the instructor's files; runs no student code.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import math
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

from .course_dir import CourseLayout, WorkflowError, course_layout, exchange_root, gradebook
from .intake.student_ids import is_student_id

__all__ = ["set_due_date", "due_dates", "PercentPerDay", "released_assignments", "remove_student",
           "Removal"]


# --------------------------------------------------------------------------- due dates


def _parse_when(text: str) -> _dt.datetime:
    """A due date as nbgrader stores it: naive UTC."""
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError) as error:
        raise WorkflowError(f"not a date and time: {text!r} (write e.g. '2026-12-04 17:00 Europe/Berlin' "
                            f"or '2026-12-04 16:00 UTC')") from error


def set_due_date(root: str | os.PathLike, assignment: str, when: str | None) -> _dt.datetime | None:
    """Set (or with ``when=None`` clear) an assignment's due date.

    Parameters
    ----------
    root : path
        The course directory.
    assignment : str
        One of ``solutions/``'s assignments.
    when : str or None
        A date and time with its time zone (``"2026-12-04 17:00 Europe/Berlin"``,
        ``"2026-12-04T16:00:00Z"``); without one, UTC is assumed.

    Returns
    -------
    datetime or None
        The due date stored (UTC).

    Raises
    ------
    WorkflowError
        If the assignment is unknown or the date cannot be read.
    """
    layout = course_layout(root)
    if assignment not in layout.assignments():
        raise WorkflowError(f"no assignment {assignment!r} in {layout.source} "
                            f"(there are: {', '.join(layout.assignments())})")
    due = _parse_when(when) if when is not None else None
    with gradebook(layout) as gb:
        gb.update_or_create_assignment(assignment, duedate=due)
    return due


def due_dates(layout: CourseLayout) -> dict[str, str]:
    """``{assignment: due date (ISO, UTC)}`` for the assignments that have one."""
    with gradebook(layout) as gb:
        return {a.name: a.duedate.isoformat() for a in gb.assignments if a.duedate is not None}


class PercentPerDay(LateSubmissionPlugin):
    """A late penalty: ``percent_per_day`` of the score for each day or part of a day late.

    Chosen in ``nbgrader_config.py`` (then ``make approve-config``)::

        c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"
        c.PercentPerDay.percent_per_day = 10      # 10 % of the score per day late
        c.PercentPerDay.grace_minutes = 15        # up to 15 minutes late: no penalty
        c.PercentPerDay.max_percent = 50          # never more than half the score

    Examples
    --------
    >>> plugin = PercentPerDay(percent_per_day=10, grace_minutes=15, max_percent=50)
    >>> plugin.late_submission_penalty("ada", 8.0, 10 * 60)        # in the grace period
    0.0
    >>> plugin.late_submission_penalty("ada", 8.0, 3600)           # one (started) day late
    0.8
    >>> plugin.late_submission_penalty("ada", 8.0, 30 * 86400)     # capped at 50 %
    4.0
    """

    percent_per_day = Float(10.0, help="Percent of the score taken per day (or part of a day) late.").tag(config=True)
    grace_minutes = Float(0.0, help="Minutes late without a penalty.").tag(config=True)
    max_percent = Float(100.0, help="The most percent of the score taken.").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        if total_seconds_late <= self.grace_minutes * 60:
            return 0.0
        days = math.ceil(total_seconds_late / 86400)
        percent = min(self.max_percent, self.percent_per_day * days)
        return round(score * percent / 100, 6)


# --------------------------------------------------------------------------- which assignments are out


def released_assignments(layout: CourseLayout) -> list[str]:
    """The assignments students have been given: those with a due date, a release in the
    exchange, or any submission (collected, imported or graded).

    An assignment still only in ``solutions/`` and ``exercises/`` is not out yet: grades
    leave it out rather than giving everyone a 0 for it.
    """
    out: set[str] = set(due_dates(layout))
    with gradebook(layout) as gb:
        for assignment in gb.assignments:
            if assignment.submissions:
                out.add(assignment.name)
    exchange = exchange_root(layout.root)
    if exchange is not None:
        try:
            outbound = exchange / layout.course_id / "outbound"
            out.update(p.name for p in outbound.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            pass
    if layout.submitted.is_dir():
        for student in layout.submitted.iterdir():
            if student.is_dir() and not student.is_symlink():
                out.update(p.name for p in student.iterdir() if p.is_dir())
    return [a for a in layout.assignments() if a in out]


# --------------------------------------------------------------------------- a student who left


@dataclass
class Removal:
    """What :func:`remove_student` removed (or, with ``dry_run``, would remove)."""

    student: str
    folders: list[Path] = field(default_factory=list)
    gradebook: bool = False
    report_entries: list[str] = field(default_factory=list)
    roster_line: bool = False
    exchange: list[Path] = field(default_factory=list)
    """Their submissions in the exchange's inbound folder (not removed: the files are theirs;
    without a roster line, collect refuses them)."""

    def lines(self) -> list[str]:
        said = [f"folder {p}" for p in self.folders]
        if self.gradebook:
            said.append("their gradebook entry (submissions, grades, comments)")
        said += [f"report entry {e}" for e in self.report_entries]
        if self.roster_line:
            said.append("their line of roster.csv")
        return said


def _without_roster_line(text: str, student: str) -> str | None:
    """``roster.csv``'s text without ``student``'s row (None if it has none); other lines as they were."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return None
    header = next(csv.reader(io.StringIO(lines[0].lstrip("\ufeff"))), [])
    try:
        column = [h.strip() for h in header].index("id")
    except ValueError:
        return None
    kept, found = [lines[0]], False
    for line in lines[1:]:
        row = next(csv.reader(io.StringIO(line)), [])
        if len(row) > column and row[column].strip().lower() == student.lower():
            found = True
            continue
        kept.append(line)
    return "".join(kept) if found else None


def remove_student(root: str | os.PathLike, student: str, *, dry_run: bool = False,
                   log: Any = None) -> Removal:
    """Remove a student who left the course: grades and feedback no longer list them.

    Removes their folders in ``submitted/``, ``autograded/`` and ``feedback/``,
    their gradebook entry (with their submissions and grades), their entries of
    the grading report, and their line of ``roster.csv``.  Their files in the
    exchange's inbound folder are theirs and are left (listed): without a
    roster line, ``collect`` refuses them; without a roster, remove them by
    hand or they are collected again.

    Parameters
    ----------
    root : path
        The course directory.
    student : str
        The student id.
    dry_run : bool
        Only say what would be removed.
    log : callable, optional
        Receives one line per thing removed.

    Returns
    -------
    Removal

    Raises
    ------
    WorkflowError
        If ``student`` is not a valid id or the course knows nothing of them.
    """
    from nbgrader.api import MissingEntry

    from .results.report import read_report, write_report

    if not is_student_id(student):
        raise WorkflowError(f"not a student id: {student!r}")
    layout = course_layout(root)
    removal = Removal(student)
    for folder in (layout.submitted, layout.autograded, layout.feedback):
        path = folder / student
        if path.is_dir() or path.is_symlink():
            removal.folders.append(path)
    with gradebook(layout) as gb:
        try:
            gb.find_student(student)
            removal.gradebook = True
        except MissingEntry:
            pass
    report = read_report(layout)
    removal.report_entries = sorted(k for k, v in report.items() if v.get("student") == student)
    roster_path = layout.root / "roster.csv"
    roster_text = roster_path.read_text(encoding="utf-8") if roster_path.is_file() else ""
    new_roster = _without_roster_line(roster_text, student) if roster_text else None
    removal.roster_line = new_roster is not None
    exchange = exchange_root(layout.root)
    if exchange is not None:
        try:
            inbound = exchange / layout.course_id / "inbound"
            removal.exchange = sorted(p for p in inbound.iterdir() if p.name.startswith(f"{student}+"))
        except OSError:
            pass
    if not (removal.folders or removal.gradebook or removal.report_entries or removal.roster_line):
        raise WorkflowError(f"the course has nothing of student {student!r} (no folder, gradebook "
                            "entry, report entry or roster line)")
    if dry_run:
        return removal
    for path in removal.folders:
        if path.is_symlink():
            path.unlink()
        else:
            shutil.rmtree(path)
    if removal.gradebook:
        with gradebook(layout) as gb:
            gb.remove_student(student)
    if removal.report_entries:
        for key in removal.report_entries:
            report.pop(key, None)
        write_report(layout, report)
    if new_roster is not None:
        roster_path.write_text(new_roster, encoding="utf-8")
    if log is not None:
        for line in removal.lines():
            log(f"removed {line}")
        for path in removal.exchange:
            log(f"left in the exchange (the student's files): {path}")
    return removal
