"""Feedback pages: one HTML page per graded notebook, for the student.

Renders graded notebooks, whose cells and outputs the student wrote.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..course_dir import course_layout, gradebook, nbgrader_api, nbgrader_error, pick_assignments
from ..intake.submissions import valid_ids
from .report import GRADED, hand_points_pending, points_text, read_report

__all__ = ["feedback", "pending_hand_grading", "missing_feedback", "PROBLEM_MARK"]


#: Marks a page that says why there is no feedback (so it is never taken for feedback).
PROBLEM_MARK = '<meta name="course-feedback" content="no-feedback">'


def feedback(root: str | os.PathLike = ".", *, assignment: str | None = None,
             log: Any = None) -> list[Path]:
    """Write feedback HTML for every autograded submission (``feedback/<student>/<assignment>/``).

    A submission without a grade (it failed, or its grading was interrupted) and a notebook
    that could not be graded get a short page saying why, never an earlier run's page; pages
    left from an earlier run that this run did not write are removed.  Every submission
    without a feedback page is named in the log (:func:`missing_feedback` lists them).

    Returns
    -------
    list of Path
        The feedback files written.

    Raises
    ------
    CourseBusy
        If another grading command holds the course (:mod:`course.grading.term.run_lock`).
    """
    from ..run_lock import course_lock
    from ..safe_text import console_log

    with course_lock(root, "feedback" + (f" --assignment {assignment}" if assignment else "")):
        return _feedback(root, assignment, console_log(log))


def _feedback(root: str | os.PathLike, assignment: str | None, log: Any) -> list[Path]:
    from ...job.approval import check_config_approved, check_policy_approved
    from ..course_dir import course_config

    check_config_approved(root)          # feedback's preprocessors hide the hidden tests (issue 19)
    layout = course_layout(root)
    check_policy_approved(course_config(layout.root), layout.root)
    from ..settle import TermBook

    # the term's rules now (chosen version, hand grades, late penalty on the student's due date):
    # the pages show what grades.csv shows; a submission whose result is out of date gets none
    settled = TermBook(layout, log=log).settle_all(assignments=pick_assignments(layout, assignment))
    api = nbgrader_api(layout)
    report = read_report(layout)
    written: list[Path] = []
    for name in pick_assignments(layout, assignment):
        students = {p.parent.name for p in layout.autograded.glob(f"*/{name}")
                    if p.is_dir() and not p.parent.name.startswith(".")}
        students |= {e.get("student") for e in report.values()
                     if e.get("assignment") == name and isinstance(e.get("student"), str)}
        students, refused = valid_ids(sorted(students))     # names become paths below (issue 19)
        for who, why in refused:
            if log is not None:
                log(f"no feedback for {why}")
        for who in students:
            entry = report.get(f"{who}/{name}")
            done = settled.get((who, name))
            if done is not None and done.status in ("out of date", "not graded"):
                entry = dict(entry or {"assignment": name, "student": who}, status=done.status,
                             reason=done.reason)
            out = layout.feedback / who / name
            stale = set(out.glob("*.html")) if out.is_dir() else set()
            graded = (entry is None or entry.get("status") in GRADED) \
                and (layout.autograded / who / name).is_dir()
            ok, result = False, {"error": (entry or {}).get("reason") or "not graded"}
            began = time.time() - 1
            if graded:
                try:
                    result = api.generate_feedback(name, who, force=True)
                    ok = bool(result.get("success"))
                except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                    ok, result = False, {"error": str(exc)}
            made = [p for p in sorted(out.glob("*.html")) if p.stat().st_mtime >= began] if ok else []
            troubled = dict((entry or {}).get("unreadable") or {})
            problem = dict(entry or {"assignment": name, "student": who})
            if not ok:
                problem["reason"] = (entry or {}).get("reason") if entry and entry.get("status") \
                    not in GRADED else f"feedback could not be written ({nbgrader_error(result)})"
                if log is not None:
                    log(f"{who} {name}: no feedback ({problem['reason']})")
            for nb in layout.notebooks(name):
                target = out / f"{nb}.html"
                if ok and target in made and f"{nb}.ipynb" not in troubled:
                    continue
                out.mkdir(parents=True, exist_ok=True)
                if f"{nb}.ipynb" in troubled and ok:
                    problem["reason"] = f"{nb}.ipynb could not be read: {troubled[f'{nb}.ipynb']}"
                target.write_text(_problem_page(problem, nb), encoding="utf-8")
                made.append(target)
            for old in stale - set(made):
                old.unlink(missing_ok=True)      # a page of an earlier run that this run replaced
            written += [p for p in made if p not in written]
    if log is not None:
        log(f"{len(written)} feedback files in {layout.feedback}")
        pending = pending_hand_grading(layout.root, assignment=assignment)
        if pending:
            who = ", ".join(f"{s} ({a}: {points_text(p)})" for s, a, p in pending)
            log(f"WARNING: hand grading is pending for {len(pending)} submission"
                f"{'s' if len(pending) != 1 else ''}: {who}. Their feedback shows the autograded "
                "points only: grade the written answers in the formgrader (Nbgrader > Formgrader > "
                "Manage Assignments), then run make feedback again.")
    return written


def missing_feedback(root: str | os.PathLike = ".", *, assignment: str | None = None) -> list[str]:
    """``student/assignment`` of every submission in the grading report without feedback: no
    page, or a page that says why there is none (not graded, a notebook unreadable)."""
    layout = course_layout(root)
    report = read_report(layout)
    missing = []
    for name in pick_assignments(layout, assignment):
        for key, entry in sorted(report.items()):
            if entry.get("assignment") != name or not valid_ids([entry.get("student")])[0]:
                continue
            out = layout.feedback / entry["student"] / name
            for nb in layout.notebooks(name):
                page = out / f"{nb}.html"
                try:
                    text = page.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    text = PROBLEM_MARK
                if PROBLEM_MARK in text:
                    missing.append(f"{entry['student']}/{name}")
                    break
    return missing


def pending_hand_grading(root: str | os.PathLike = ".", *,
                         assignment: str | None = None) -> list[tuple[str, str, float]]:
    """``(student, assignment, points)`` of every submission with answers still to grade by hand."""
    from nbgrader.api import MissingEntry

    layout = course_layout(root)
    found = []
    with gradebook(layout) as gb:
        for name in pick_assignments(layout, assignment):
            try:
                spec = gb.find_assignment(name)
            except MissingEntry:
                continue
            for sub in spec.submissions:
                points = hand_points_pending(sub)
                if points:
                    found.append((sub.student.id, name, points))
    return sorted(found)


def _problem_page(entry: dict, notebook: str) -> str:
    from html import escape

    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>{PROBLEM_MARK}"
            f"<title>{escape(notebook)}</title></head>"
            f"<body><h1>{escape(entry['assignment'])}: {escape(notebook)}</h1>"
            f"<p>Your submission could not be graded automatically: "
            f"{escape(str(entry.get('reason') or 'it was not graded'))}.</p>"
            f"<p>Score recorded: {entry.get('score', 0)} of {entry.get('max_score', 0)}. "
            "Please contact your instructor.</p></body></html>\n")
