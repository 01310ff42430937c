"""The grading report: one record per graded submission, and the gradebook's scores for it.

Only sees verdicts: the gradebook's scores and what the autograder recorded.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..course_dir import CourseLayout, gradebook

__all__ = ["GRADED", "GradeRecord", "read_report", "write_report", "update_report", "fill_scores",
           "submission_scores", "apply_scores", "hand_points_pending",
           "describe_record", "points_text"]


GRADED = ("graded", "graded (with problems)", "needs attention")
"""Statuses of a submission whose results are written: its gradebook score is its grade.  Any
other status (``failed``, ``grading``) means no grade."""


@dataclass
class GradeRecord:
    """The outcome of autograding one submission (one entry of the grading report)."""

    student: str
    assignment: str
    status: str
    """``"graded"``, ``"graded (with problems)"``, ``"needs attention"`` (graded, but a notebook
    could not be read: look at it), ``"failed"`` (no grade: ``reason`` says why) or
    ``"grading"`` (grading started and did not finish: no grade)."""
    score: float = 0.0
    """Points so far (autograded, plus manual grades already given)."""
    max_score: float = 0.0
    """Points available."""
    needs_manual_grade: bool = False
    """Written answers still to be graded by hand."""
    hand_points_pending: float = 0.0
    """Points of the written answers still to be graded by hand (in ``max_score``, not in ``score``)."""
    reason: str = ""
    """Why the submission failed or lost points outright (unreadable notebook, ...)."""
    changes: list[str] = field(default_factory=list)
    """What the repair step changed."""
    review: list[str] = field(default_factory=list)
    """Audit findings for the instructor."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Notebooks that could not be read (graded as blank), with the reason."""
    seconds: float = 0.0
    """Time spent grading it."""
    graded_at: str = ""
    """When (ISO 8601)."""
    submission_sha: str = ""
    """Fingerprint of the submitted files: hand grades survive re-grading an unchanged submission."""
    sandboxed: bool = True
    """False when it was graded with ``--unsafe-no-sandbox`` (its code ran with the grader's rights)."""
    late_penalty: float = 0.0
    """Points taken for lateness (already out of ``score``; see :mod:`course.grading.term`)."""
    grading_key: str = ""
    """What the grade depends on (:attr:`course.grading.term.inputs.GradingInputs.key`): a re-run skips
    the submission while it is unchanged."""


def read_report(layout: CourseLayout) -> dict[str, dict]:
    try:
        return json.loads(layout.report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


@contextlib.contextmanager
def _report_lock(layout: CourseLayout):
    """An exclusive ``flock`` for one read-modify-write of the report (held for milliseconds)."""
    import fcntl

    layout.report.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(layout.report.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _report_text(report: dict[str, dict]) -> str:
    """The report as JSON, one submission a line, in order.

    Written after every job of a run: ``json.dumps(indent=...)`` is Python's slow encoder (4 ms a
    write for 504 submissions), a line per entry its fast one (1.3 ms).

    >>> print(_report_text({"bob/a1": {"score": 2, "status": "graded"}, "ann/a1": {"score": 1}}))
    {
    "ann/a1": {"score": 1},
    "bob/a1": {"score": 2, "status": "graded"}
    }
    >>> json.loads(_report_text({})) == {} and json.loads(_report_text({"a": {}})) == {"a": {}}
    True
    """
    if not report:
        return "{}"
    return "{\n" + ",\n".join(f"{json.dumps(key)}: {json.dumps(report[key], sort_keys=True)}"
                              for key in sorted(report)) + "\n}"


def _write(layout: CourseLayout, report: dict[str, dict]) -> None:
    tmp = layout.report.with_name(f".{layout.report.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(_report_text(report))
        os.replace(tmp, layout.report)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_report(layout: CourseLayout, report: dict[str, dict]) -> None:
    """Replace the whole report with ``report`` (atomically).  To change entries, use
    :func:`update_report`, which never writes back a stale copy of the others."""
    with _report_lock(layout):
        _write(layout, report)


def update_report(layout: CourseLayout, entries: dict[str, dict | None]) -> dict[str, dict]:
    """Set (or, with None, remove) the given entries of the report, and only those.

    The report is read, changed and written atomically under its lock, so entries written
    meanwhile by anyone else are kept.  Raises ``OSError`` if it cannot be written (a full
    disk): the report on disk is then unchanged.  Returns the report as written.
    """
    with _report_lock(layout):
        report = read_report(layout)
        for key, entry in entries.items():
            if entry is None:
                report.pop(key, None)
            else:
                report[key] = entry
        _write(layout, report)
    return report


def submission_scores(gb, assignment: str, student: str) -> dict[str, Any]:
    """What :func:`fill_scores` reads from the gradebook for one submission, as plain data:
    ``max_score`` always (None if the assignment is unknown), and ``score``, ``late_penalty``,
    ``needs_manual_grade``, ``hand_points_pending`` if the submission is there.

    A grading worker sends this with its result (read while it holds the gradebook lock), so the
    grading process need not wait for the lock to read it again.
    """
    from nbgrader.api import MissingEntry

    try:
        found: dict[str, Any] = {"max_score": float(gb.find_assignment(assignment).max_score)}
    except MissingEntry:
        return {"max_score": None}
    try:
        sub = gb.find_submission(assignment, student)
    except MissingEntry:
        return found
    penalty = float(sub.late_submission_penalty or 0.0)
    found.update(score=max(0.0, float(sub.score) - penalty), late_penalty=penalty,
                 needs_manual_grade=bool(sub.needs_manual_grade),
                 hand_points_pending=hand_points_pending(sub))
    return found


def apply_scores(record: GradeRecord, scores: dict[str, Any]) -> bool:
    """Set ``record``'s scores from :func:`submission_scores`' answer; False if it holds none
    that fit (then read the gradebook: :func:`fill_scores`)."""
    keys = ("score", "late_penalty", "needs_manual_grade", "hand_points_pending")
    if not isinstance(scores, dict) or not isinstance(scores.get("max_score"), (int, float)):
        return False
    record.max_score = float(scores["max_score"])
    if record.status == "failed":
        return True
    if not all(k in scores for k in keys):
        return False                      # no submission in the gradebook
    record.score, record.late_penalty = float(scores["score"]), float(scores["late_penalty"])
    record.needs_manual_grade = bool(scores["needs_manual_grade"])
    record.hand_points_pending = float(scores["hand_points_pending"])
    return True


def fill_scores(layout: CourseLayout, record: GradeRecord, lock: Path | None = None) -> None:
    """Read ``record``'s scores from the gradebook (under ``lock``, the workers' lock)."""
    from ..course_dir import FileLock

    with (FileLock(str(lock)) if lock is not None else contextlib.nullcontext()), \
            gradebook(layout) as gb:
        apply_scores(record, submission_scores(gb, record.assignment, record.student))


def hand_points_pending(sub) -> float:
    """Points of a gradebook submission's answers that wait for a hand grade."""
    return float(sum(g.max_score or 0 for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade))


def points_text(value: float) -> str:
    return f"{value:g} point{'' if value == 1 else 's'}"


def describe_record(record: GradeRecord) -> str:
    """One console line: score, what is autograded, what waits for a hand grade.

    >>> describe_record(GradeRecord("ada", "a1_minimax", "graded", 9.0, 11.0, True, 2.0))
    'ada                  a1_minimax          9.0 / 11.0  autograded, 2 points to grade by hand'
    >>> describe_record(GradeRecord("ada", "a1_minimax", "graded", 10.0, 11.0))
    'ada                  a1_minimax         10.0 / 11.0  graded'
    >>> describe_record(GradeRecord("ada", "a1_minimax", "graded", 7.2, 11.0, late_penalty=1.8))
    'ada                  a1_minimax          7.2 / 11.0  graded, late: -1.8'
    """
    what = record.status
    if record.hand_points_pending and record.status != "failed":
        what = f"autograded, {points_text(record.hand_points_pending)} to grade by hand"
        if record.status != "graded":
            what += f" ({record.status})"
    if record.late_penalty:
        what += f", late: -{record.late_penalty:g}"
    return (f"{record.student:<20} {record.assignment:<16} {record.score:6.1f} / "
            f"{record.max_score:<5.1f} {what}")
