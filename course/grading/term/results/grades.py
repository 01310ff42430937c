"""The grades: one CSV row per student and assignment, for the learning-management system.

Only sees verdicts: the gradebook and the grading report.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

from nbgrader.api import MissingEntry

from ..course_dir import CourseLayout, course_layout, gradebook
from .report import GRADED

__all__ = ["grades"]


def _grade_rows(layout: CourseLayout, log: Any = None) -> list[dict[str, Any]]:
    from ..intake.roster import course_roster
    from ..intake.submissions import valid_ids
    from ..dates import utc_text
    from ..settle import TermBook

    book = TermBook(layout, log=log)
    settled = book.settle_all()               # the term's rules applied now (no code runs)
    report = book.report
    rows = []
    with gradebook(layout) as gb:
        roster = course_roster(layout.root)         # every student of the roster gets rows
        students = sorted({s.id for s in gb.students} | {e["student"] for e in report.values()}
                          | set(roster.ids if roster is not None else ()))
        # a row per valid student id only: no path, markup or spreadsheet formula (issue 19)
        students, refused = valid_ids(students)
        for name, why in refused:
            if log is not None:
                log(f"no row for {why}")
        from .. import released_assignments

        assignments = released_assignments(layout)
        unreleased = [a for a in layout.assignments() if a not in assignments]
        if unreleased and log is not None:
            log(f"not in the grades, not released yet (no due date, no release in the exchange, "
                f"no submission): {', '.join(unreleased)}")
        maxima = {}
        for name in assignments:
            try:
                maxima[name] = float(gb.find_assignment(name).max_score)
            except MissingEntry:
                maxima[name] = 0.0
        for who in students:
            for name in assignments:
                entry = report.get(f"{who}/{name}", {})
                done = settled.get((who, name))
                row = {"student": who, "assignment": name, "score": 0.0, "max_score": maxima[name],
                       "autograded_score": 0.0, "needs_manual_grade": False,
                       "submitted_at": "", "due": "", "hours_late": 0.0, "late_penalty": 0.0,
                       "status": entry.get("status", "not submitted"), "reason": entry.get("reason", ""),
                       "sandboxed": ("" if not entry else "yes" if entry.get("sandboxed", True)
                                     else "NO (--unsafe-no-sandbox)"),
                       "version": "", "extension": ""}
                if done is None:
                    rows.append(row)
                    continue
                row["due"] = utc_text(done.due)
                row["extension"] = done.extension.describe() if done.extension is not None else ""
                row["status"], row["reason"] = done.status, done.reason
                if done.version is not None:
                    row["version"] = f"{done.version.number} of {done.versions}"
                if done.timestamp is not None:
                    row["submitted_at"] = utc_text(done.timestamp, "seconds")
                if done.graded:
                    g = done.grade
                    row["hours_late"] = round(g.seconds_late / 3600, 2)
                    row["late_penalty"] = round(g.penalty, 6)
                    row["score"] = round(g.score, 6)
                    row["max_score"] = g.max_score
                    row["autograded_score"] = g.autograded
                    row["needs_manual_grade"] = done.needs_manual_grade
                    row["sandboxed"] = "yes" if done.sandboxed else "NO (--unsafe-no-sandbox)"
                rows.append(row)
    for row in rows:
        if log is not None and row["status"] not in GRADED and row["status"] != "not submitted":
            log(f"no grade for {row['student']}/{row['assignment']} ({row['status']}: "
                f"{row['reason'] or 'no reason recorded'}): its row has score 0")
    return rows


def grades(root: str | os.PathLike = ".", output: str | os.PathLike = "grades.csv", *,
           log: Any = None) -> Path:
    """Export the grades: one CSV row per student and assignment.

    Columns: ``student, assignment, score, max_score, autograded_score,
    needs_manual_grade, submitted_at, due, hours_late, late_penalty, status,
    reason, sandboxed, version, extension``.  Every total is computed here by the
    term's rules (:mod:`course.grading.term`, no code runs): ``score`` is after the late
    penalty (``late_penalty`` points, by the rule and base of ``nbgrader_config.py``, on the
    student's own ``due`` date, which ``extension`` moved); ``version`` is the version graded
    (``2 of 3``, chosen by the resubmission policy); times are UTC; ``sandboxed`` is ``yes``,
    or ``NO (--unsafe-no-sandbox)`` when the submission's code ran without the sandbox.  A
    submission whose result is missing (a new version, or a test, the secret or the course's
    code changed since it was graded) has status ``out of date`` or ``not graded``, score 0,
    and the reason: run ``make autograde``.
    Only released assignments have rows (:func:`course.grading.term.released_assignments`:
    a due date, a release in the exchange or a submission); every student of the
    roster (``roster.csv``) has a row for every one of them.  A student without a submission for
    an assignment gets a row with score 0 and status ``not submitted``; a
    submission that could not be graded (``failed``) or whose grading did not finish
    (``grading``) keeps its reason, scores 0 (never an earlier run's score) and is named in
    the log.

    Returns
    -------
    Path
        The CSV file.
    """
    layout = course_layout(root)
    rows = _grade_rows(layout, log)
    path = Path(output)
    if not path.is_absolute():
        path = Path.cwd() / path
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = ["student", "assignment", "score", "max_score", "autograded_score", "needs_manual_grade",
              "submitted_at", "due", "hours_late", "late_penalty", "status", "reason", "sandboxed",
              "version", "extension"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{row[k]:g}" if isinstance(row[k], float) else row[k]) for k in fields})
    return path
