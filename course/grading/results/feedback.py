"""Feedback pages: one HTML page per graded notebook, for the student.

Renders graded notebooks, whose cells and outputs the student wrote.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..course_dir import course_layout, gradebook, nbgrader_api, nbgrader_error, pick_assignments
from .report import hand_points_pending, points_text, read_report

__all__ = ["feedback", "pending_hand_grading"]


def feedback(root: str | os.PathLike = ".", *, assignment: str | None = None,
             log: Any = None) -> list[Path]:
    """Write feedback HTML for every autograded submission (``feedback/<student>/<assignment>/``).

    A notebook that could not be graded gets a short page saying why.

    Returns
    -------
    list of Path
        The feedback files written.
    """
    layout = course_layout(root)
    api = nbgrader_api(layout)
    report = read_report(layout)
    written: list[Path] = []
    for name in pick_assignments(layout, assignment):
        students = sorted(p.parent.name for p in layout.autograded.glob(f"*/{name}") if p.is_dir())
        for who in students:
            try:
                result = api.generate_feedback(name, who, force=True)
                ok = result.get("success")
            except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                ok, result = False, {"error": str(exc)}
            out = layout.feedback / who / name
            if ok:
                written += sorted(out.glob("*.html"))
            elif log is not None:
                log(f"{who} {name}: no feedback ({nbgrader_error(result)})")
        for key, entry in report.items():
            if entry.get("assignment") != name or not entry.get("reason"):
                continue
            out = layout.feedback / entry["student"] / name
            troubled = set(entry.get("unreadable") or {})
            for nb in layout.notebooks(name):
                target = out / f"{nb}.html"
                if target.exists() and f"{nb}.ipynb" not in troubled:
                    continue
                out.mkdir(parents=True, exist_ok=True)
                target.write_text(_problem_page(entry, nb), encoding="utf-8")
                if target not in written:
                    written.append(target)
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

    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(notebook)}</title></head>"
            f"<body><h1>{escape(entry['assignment'])}: {escape(notebook)}</h1>"
            f"<p>Your submission could not be graded automatically: {escape(entry['reason'])}.</p>"
            f"<p>Score recorded: {entry.get('score', 0)} of {entry.get('max_score', 0)}. "
            "Please contact your instructor.</p></body></html>\n")
