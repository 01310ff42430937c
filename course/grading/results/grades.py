"""The grades: one CSV row per student and assignment, for the learning-management system.

Only sees verdicts: the gradebook and the grading report.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

from ..course_dir import CourseLayout, course_layout, gradebook
from .report import GRADED, read_report

__all__ = ["grades"]


def _grade_rows(layout: CourseLayout, log: Any = None) -> list[dict[str, Any]]:
    from nbgrader.api import MissingEntry

    from ..intake.roster import course_roster
    from ..intake.submissions import valid_ids

    report = read_report(layout)
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
        from ..term import released_assignments

        assignments = released_assignments(layout)
        unreleased = [a for a in layout.assignments() if a not in assignments]
        if unreleased and log is not None:
            log(f"not in the grades, not released yet (no due date, no release in the exchange, "
                f"no submission): {', '.join(unreleased)}")
        for who in students:
            for name in assignments:
                entry = report.get(f"{who}/{name}", {})
                row = {"student": who, "assignment": name, "score": 0.0, "max_score": 0.0,
                       "autograded_score": 0.0, "needs_manual_grade": False,
                       "submitted_at": "", "due": "", "hours_late": 0.0, "late_penalty": 0.0,
                       "status": entry.get("status", "not submitted"), "reason": entry.get("reason", ""),
                       "sandboxed": ("" if not entry else "yes" if entry.get("sandboxed", True)
                                     else "NO (--unsafe-no-sandbox)")}
                try:
                    found = gb.find_assignment(name)
                    row["max_score"] = float(found.max_score)
                    row["due"] = found.duedate.isoformat(sep=" ", timespec="minutes") + " UTC" if found.duedate else ""
                    sub = gb.find_submission(name, who)
                except MissingEntry:
                    rows.append(row)
                    continue
                if sub.timestamp is not None:
                    row["submitted_at"] = sub.timestamp.isoformat(sep=" ", timespec="seconds") + " UTC"
                    row["hours_late"] = round(float(sub.total_seconds_late) / 3600, 2)
                if entry.get("status", "graded") in GRADED or not entry:
                    row["late_penalty"] = float(sub.late_submission_penalty or 0.0)
                    row["score"] = max(0.0, float(sub.score) - row["late_penalty"])
                    row["autograded_score"] = float(sum(
                        (g.auto_score or 0) for nb in sub.notebooks for g in nb.grades))
                    row["needs_manual_grade"] = bool(sub.needs_manual_grade)
                    if not entry:
                        row["status"] = "graded"
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
    reason, sandboxed``.  ``score`` is after the late penalty (``late_penalty``
    points, from the penalty chosen in ``nbgrader_config.py``; see
    :mod:`course.grading.term`); times are UTC; ``sandboxed`` is ``yes``, or ``NO
    (--unsafe-no-sandbox)`` when the submission's code ran without the sandbox.
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
              "submitted_at", "due", "hours_late", "late_penalty", "status", "reason", "sandboxed"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{row[k]:g}" if isinstance(row[k], float) else row[k]) for k in fields})
    return path
