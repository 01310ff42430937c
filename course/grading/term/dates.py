"""Due dates: an assignment's (in the gradebook, nbgrader's own field) and a student's own.

Times are stored as nbgrader stores them: naive datetimes in UTC.
"""

from __future__ import annotations

import datetime as _dt
import os

from .course_dir import CourseLayout, WorkflowError, course_layout, gradebook

__all__ = ["parse_when", "set_due_date", "due_dates", "utc_text"]


def parse_when(text: str) -> _dt.datetime:
    """A date and time with its zone (UTC without one) as nbgrader stores it: naive UTC.

    >>> parse_when("2026-12-04 17:00 Europe/Berlin")
    datetime.datetime(2026, 12, 4, 16, 0)
    >>> parse_when("2026-12-04T16:00:00Z")
    datetime.datetime(2026, 12, 4, 16, 0)
    """
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text)
    except (ValueError, OverflowError, TypeError) as error:
        raise WorkflowError(f"not a date and time: {text!r} (write e.g. '2026-12-04 17:00 Europe/Berlin' "
                            f"or '2026-12-04 16:00 UTC')") from error


def utc_text(when: _dt.datetime | None, timespec: str = "minutes") -> str:
    """``2026-12-01 17:00 UTC`` (empty for None).

    >>> utc_text(_dt.datetime(2026, 12, 1, 17, 0))
    '2026-12-01 17:00 UTC'
    """
    return "" if when is None else when.isoformat(sep=" ", timespec=timespec) + " UTC"


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
    due = parse_when(when) if when is not None else None
    with gradebook(layout) as gb:
        gb.update_or_create_assignment(assignment, duedate=due)
    return due


def due_dates(layout: CourseLayout) -> dict[str, str]:
    """``{assignment: due date (ISO, UTC)}`` for the assignments that have one."""
    with gradebook(layout) as gb:
        return {a.name: a.duedate.isoformat() for a in gb.assignments if a.duedate is not None}
