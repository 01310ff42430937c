"""Extensions: one student's own due date for one assignment.

``python -m course.grading extension ada a1_minimax --hours 48`` (or ``--until '2026-12-04
17:00 Europe/Berlin'``, ``--remove``, ``--list``).  An extension is stored in the gradebook's
database, in the course's table ``course_extension`` (one row per student and assignment):
nbgrader's own field (``SubmittedAssignment.extension``) exists only once the student has
handed something in, and holds a length of time, where an extension is often given before
anything is handed in, and to a date.  Whenever the student has a submission in the
gradebook, nbgrader's field is set to the same due date (so nbgrader's own tools agree); an
extension given with nbgrader's ``Gradebook.grant_extension`` and none of the course's is
honoured too.

* ``--hours N``: the student's due date is the assignment's plus N hours (it moves with it);
* ``--until WHEN``: the student's due date is WHEN -- or the assignment's, if that is later
  (an extension never shortens the time a student has).

Without a due date for the assignment nobody is late, with or without an extension.  Nothing
here runs a student's code: the late penalty is computed from the due date when grades and
feedback are written (:mod:`.policies`).
"""

from __future__ import annotations

import contextlib

import datetime as _dt
import math
import os
from dataclasses import dataclass

from .course_dir import CourseLayout, WorkflowError, course_layout, gradebook
from .dates import parse_when, utc_text

__all__ = ["Extension", "grant_extension", "remove_extension", "extensions", "extension_for",
           "student_due", "sync_nbgrader_extension", "remove_student_extensions"]


@dataclass(frozen=True)
class Extension:
    """A student's extension for one assignment."""

    student: str
    assignment: str
    until: _dt.datetime | None = None
    """The student's due date (naive UTC), for an extension given ``--until``."""
    hours: float | None = None
    """Hours after the assignment's due date, for an extension given ``--hours``."""
    source: str = "course"
    """``"course"`` (the course's command) or ``"nbgrader"`` (``Gradebook.grant_extension``)."""

    def due(self, assignment_due: _dt.datetime | None) -> _dt.datetime | None:
        """The student's due date given the assignment's (None: no due date, nobody is late).

        >>> from datetime import datetime
        >>> due = datetime(2026, 12, 1, 17)
        >>> Extension("ada", "a1", hours=48).due(due)
        datetime.datetime(2026, 12, 3, 17, 0)
        >>> Extension("ada", "a1", until=datetime(2026, 12, 2, 9)).due(due)
        datetime.datetime(2026, 12, 2, 9, 0)
        >>> Extension("ada", "a1", until=datetime(2026, 11, 2, 9)).due(due)   # never earlier
        datetime.datetime(2026, 12, 1, 17, 0)
        """
        if assignment_due is None:
            return None
        if self.until is not None:
            return max(assignment_due, self.until)
        return assignment_due + _dt.timedelta(hours=self.hours or 0.0)

    def describe(self) -> str:
        """``48 h`` or ``until 2026-12-04 16:00 UTC``."""
        if self.until is not None:
            return f"until {utc_text(self.until)}"
        return f"{self.hours:g} h"


def student_due(assignment_due: _dt.datetime | None, extension: Extension | None) -> _dt.datetime | None:
    """A student's own due date: the assignment's, moved by their extension."""
    return extension.due(assignment_due) if extension is not None else assignment_due


def _table():
    from sqlalchemy import Column, DateTime, Float, MetaData, String, Table

    global _TABLE
    if _TABLE is None:
        _TABLE = Table("course_extension", MetaData(),
                       Column("assignment", String(128), primary_key=True),
                       Column("student", String(128), primary_key=True),
                       Column("until", DateTime, nullable=True),
                       Column("hours", Float, nullable=True),
                       Column("granted_at", DateTime, nullable=True))
    return _TABLE


_TABLE = None


def _ensure_table(gb) -> object:
    """The course's table in the gradebook's database (created the first time), used through
    the gradebook's own session, so that one transaction sees both."""
    table = _table()
    if not getattr(gb, "_course_extension_table", False):
        table.metadata.create_all(gb.db.connection(), tables=[table], checkfirst=True)
        gb._course_extension_table = True
    return table


def _course_rows(gb, assignment: str | None = None, student: str | None = None) -> list[Extension]:
    from sqlalchemy import select

    table = _ensure_table(gb)
    query = select(table)
    if assignment is not None:
        query = query.where(table.c.assignment == assignment)
    if student is not None:
        query = query.where(table.c.student == student)
    rows = gb.db.execute(query).mappings().all()
    return [Extension(r["student"], r["assignment"], r["until"], r["hours"]) for r in rows]


@contextlib.contextmanager
def known_extensions(gb):
    """Inside, the course's extensions are read once, not at each :func:`extension_for` or
    :func:`sync_nbgrader_extension` (for work that changes none of them: settling a class)."""
    by_pair: dict[tuple[str, str], list[Extension]] = {}
    for row in _course_rows(gb):
        by_pair.setdefault((row.assignment, row.student), []).append(row)
    gb._course_extensions_known = by_pair
    try:
        yield
    finally:
        del gb._course_extensions_known


def _rows_for(gb, assignment: str, student: str) -> list[Extension]:
    known = getattr(gb, "_course_extensions_known", None)
    if known is not None:
        return known.get((assignment, student), [])
    return _course_rows(gb, assignment, student)


def extension_for(gb, student: str, assignment: str) -> Extension | None:
    """The student's extension for the assignment: the course's, else nbgrader's own, else None."""
    from nbgrader.api import MissingEntry

    found = _rows_for(gb, assignment, student)
    if found:
        return found[0]
    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return None
    if sub.extension:
        return Extension(student, assignment, hours=sub.extension.total_seconds() / 3600, source="nbgrader")
    return None


def sync_nbgrader_extension(gb, student: str, assignment: str) -> None:
    """Set nbgrader's own extension field to the course's (if the student has a submission)."""
    from nbgrader.api import MissingEntry

    found = _rows_for(gb, assignment, student)
    if not found:
        return
    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return
    due = sub.assignment.duedate
    own = found[0].due(due)
    wanted = None if due is None or own is None or own == due else own - due
    if sub.extension != wanted:
        sub.extension = wanted
        gb.db.commit()


def extensions(root: str | os.PathLike, assignment: str | None = None) -> list[Extension]:
    """Every extension (the course's and nbgrader's own), by assignment and student."""
    layout = course_layout(root)
    with gradebook(layout) as gb:
        found = {(e.assignment, e.student): e for e in _course_rows(gb, assignment)}
        for a in gb.assignments:
            if assignment is not None and a.name != assignment:
                continue
            for sub in a.submissions:
                if sub.extension and (a.name, sub.student.id) not in found:
                    found[(a.name, sub.student.id)] = Extension(
                        sub.student.id, a.name, hours=sub.extension.total_seconds() / 3600, source="nbgrader")
    return [found[k] for k in sorted(found)]


def _check(layout: CourseLayout, student: str, assignment: str) -> None:
    from .intake.roster import course_roster
    from .intake.student_ids import InvalidStudentId, check_student_id

    if assignment not in layout.assignments():
        raise WorkflowError(f"no assignment {assignment!r} (there are: {', '.join(layout.assignments())})")
    try:
        check_student_id(student, roster=course_roster(layout.root))
    except InvalidStudentId as exc:
        raise WorkflowError(str(exc)) from None


def grant_extension(root: str | os.PathLike, student: str, assignment: str, *,
                    until: str | _dt.datetime | None = None, hours: float | None = None) -> Extension:
    """Give ``student`` an extension for ``assignment`` (replacing any they had).

    Parameters
    ----------
    root : path
        The course directory.
    student, assignment : str
        A student of the roster (or a valid student id, without a roster) and an assignment.
    until : str or datetime, optional
        Their due date (``"2026-12-04 17:00 Europe/Berlin"``; UTC without a zone).
    hours : float, optional
        Hours after the assignment's due date.  Give exactly one of ``until`` and ``hours``.

    Returns
    -------
    Extension

    Raises
    ------
    WorkflowError
        If the student or assignment is unknown, both or neither of ``until`` and ``hours``
        are given, or ``hours`` is not a positive number.  An ``until`` that is not after the
        assignment's due date is kept: it changes nothing while the due date is later (an
        extension never shortens anyone's time).
    """
    from sqlalchemy import delete, insert

    layout = course_layout(root)
    _check(layout, student, assignment)
    if (until is None) == (hours is None):
        raise WorkflowError("give the extension either --until DATE or --hours N")
    if hours is not None and not (isinstance(hours, (int, float)) and math.isfinite(hours) and hours > 0):
        raise WorkflowError(f"--hours must be a positive number of hours, not {hours!r}")
    when = parse_when(until) if isinstance(until, str) else until
    with gradebook(layout) as gb:
        gb.update_or_create_assignment(assignment)
        due = gb.find_assignment(assignment).duedate
        # An ``until`` not after the due date is kept as given (the command says it changes
        # nothing now): the due date may move earlier later, and an extension given before the
        # due date moved later must be re-entered as it was (a course rebuilt from its inputs).
        table = _ensure_table(gb)
        gb.db.execute(delete(table).where(table.c.assignment == assignment, table.c.student == student))
        gb.db.execute(insert(table).values(
            assignment=assignment, student=student, until=when,
            hours=float(hours) if hours is not None else None,
            granted_at=_dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)))
        gb.db.commit()
        sync_nbgrader_extension(gb, student, assignment)
    return Extension(student, assignment, until=when, hours=float(hours) if hours is not None else None)


def remove_extension(root: str | os.PathLike, student: str, assignment: str) -> Extension | None:
    """Remove ``student``'s extension for ``assignment`` (the course's and nbgrader's own).

    Returns the extension removed, or None if there was none.
    """
    from nbgrader.api import MissingEntry
    from sqlalchemy import delete

    layout = course_layout(root)
    _check(layout, student, assignment)
    with gradebook(layout) as gb:
        before = extension_for(gb, student, assignment)
        table = _ensure_table(gb)
        gb.db.execute(delete(table).where(table.c.assignment == assignment, table.c.student == student))
        gb.db.commit()
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            sub = None
        if sub is not None and sub.extension is not None:
            sub.extension = None
            gb.db.commit()
    return before


def remove_student_extensions(gb, student: str) -> int:
    """Remove a student's extensions (a student who left); how many there were."""
    from sqlalchemy import delete

    table = _ensure_table(gb)
    count = gb.db.execute(delete(table).where(table.c.student == student)).rowcount
    gb.db.commit()
    return count
