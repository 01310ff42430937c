"""A term's students: which assignments are out, and a student who leaves.

* :func:`released_assignments` -- the assignments students have been given so far;
* :func:`remove_student` -- a student who left: their rows, folders, versions, kept results,
  hand grades, extensions, report entries and roster line go, so that grades and feedback
  no longer list them.

Reads and writes only the instructor's files; runs no student code.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .course_dir import CourseLayout, WorkflowError, course_layout, exchange_root, gradebook
from .intake.student_ids import is_student_id
from .dates import due_dates

__all__ = ["released_assignments", "remove_student", "Removal"]


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
    kept: list[str] = field(default_factory=list)
    """What the term kept for them and removed (extensions, results, hand grades)."""
    exchange: list[Path] = field(default_factory=list)
    """Their submissions in the exchange's inbound folder (not removed: the files are theirs;
    without a roster line, collect refuses them)."""

    def lines(self) -> list[str]:
        said = [f"folder {p}" for p in self.folders]
        if self.gradebook:
            said.append("their gradebook entry (submissions, grades, comments)")
        said += [f"report entry {e}" for e in self.report_entries]
        said += self.kept
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

    Removes their folders in ``submitted/``, ``versions/`` (every version they handed in),
    ``autograded/`` and ``feedback/``, their gradebook entry (with their submissions, grades
    and extensions), the results and hand grades the term keeps for them, their entries of
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
    from .extensions import remove_student_extensions
    from .store import forget_student
    from .versions import VERSIONS_DIR

    if not is_student_id(student):
        raise WorkflowError(f"not a student id: {student!r}")
    layout = course_layout(root)
    removal = Removal(student)
    for folder in (layout.submitted, layout.root / VERSIONS_DIR, layout.autograded, layout.feedback):
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
    with gradebook(layout) as gb:
        if remove_student_extensions(gb, student):
            removal.kept.append("their extensions")
        if removal.gradebook:
            gb.remove_student(student)
    removal.kept += forget_student(layout, student)
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
