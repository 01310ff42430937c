"""Autograding: every submission repaired, its code run in a sandbox, its tests in the grader.

This package is where students' code is **run**, and only through
:mod:`course.sandbox`:

* :func:`autograde` (here) -- stage and repair each submission, grade the class on parallel
  workers, record every outcome, audit copies;
* :mod:`.queue` -- the worker processes, wall-clock limits, restarts;
* :mod:`.worker` -- one worker: nbgrader's autograde on its jobs;
* :mod:`.sandboxed` -- nbgrader's execute step replaced: the student's cells in a bubblewrap
  sandbox, every test in the grader;
* :mod:`.integrity` -- the tripwire on the grader's own files.

**A class is never lost.**  Each submission is copied to a staging folder,
repaired there (:mod:`course.grading.intake.repair`: missing and duplicated
cells, damaged metadata; unreadable notebooks are set aside with the reason),
and graded by a worker process with a wall-clock limit, several in parallel
(``--jobs``, default the number of cores).  A cell that hangs or kills its
process is stopped and reported, and the next cells run.  Whatever happens to
one submission is written to the grading report
(``autograded/.course-grading/report.json``) and the others go on.
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..course_dir import CourseLayout, WorkflowError, course_layout, pick_assignments
from ..intake.repair import describe, repair_submission
from ..release import ensure_in_gradebook
from ..results.report import GradeRecord, describe_record, fill_scores, read_report, write_report
from ..results.similarity import report_copies, start_copy_audit
from .queue import run_jobs

__all__ = ["autograde"]


def _stage(layout: CourseLayout, student: str, assignment: str, staging: Path) -> GradeRecord:
    """Copy one submission to the staging folder and repair it there; a record for its results."""
    record = GradeRecord(student, assignment, "failed",
                         graded_at=_dt.datetime.now().isoformat(timespec="seconds"))
    stage = staging / student / assignment
    shutil.copytree(layout.submitted / student / assignment, stage,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    record.submission_sha = _fingerprint(stage)
    repair = repair_submission(stage, layout.release / assignment)
    record.changes = list(repair.changes)
    record.review = list(repair.review)
    record.unreadable = dict(repair.unreadable)
    record.reason = "; ".join(line for line in describe(repair)
                              if "could not be read" in line or "not submitted" in line)
    return record


def _fingerprint(folder: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def autograde(root: str | os.PathLike = ".", submissions: str | os.PathLike | None = None, *,
              assignment: str | None = None, student: str | None = None,
              cell_timeout: int | None = None, wall_limit: float | None = None,
              log: Any = None, jobs: int | None = None,
              unsafe_no_sandbox: bool = False) -> list[GradeRecord]:
    """Autograde every submission: repaired, its code run in a sandbox, its tests in the grader.

    Parameters
    ----------
    root : path
        The course directory.
    submissions : path, optional
        Folder of ``<student>/<assignment>/`` submissions (default nbgrader's ``submitted/``).
    assignment, student : str, optional
        Grade only these.
    cell_timeout : int, optional
        Seconds a cell may run (default: ``Execute.timeout`` of the config).
    wall_limit : float, optional
        Seconds for a whole submission (default: generous, from the number of cells).
    log : callable, optional
        Called with one line of progress per submission (e.g. ``print``).
    jobs : int, optional
        Submissions graded in parallel (default: the number of cores).
    unsafe_no_sandbox : bool
        Grade without the bubblewrap sandbox, where it cannot start.  The
        students' code then runs with your rights: only for code you trust.

    Returns
    -------
    list of GradeRecord
        Also merged into the grading report.

    Raises
    ------
    WorkflowError
        If the submissions folder does not exist or holds nothing to grade, or
        the sandbox cannot start and ``unsafe_no_sandbox`` is not set.
    IntegrityError
        If the grader's own files changed during grading (grading stops).
    """
    from ...sandbox import SandboxUnavailable, check_sandbox
    from .sandboxed import course_secret

    layout = course_layout(root, submissions)
    if unsafe_no_sandbox:
        if log is not None:
            log("WARNING: grading WITHOUT a sandbox (--unsafe-no-sandbox): the students' code runs "
                "with your rights and can read and change your files. Only for code you trust.")
    else:
        try:
            check_sandbox()
        except SandboxUnavailable as exc:
            raise WorkflowError(
                f"{exc}. Students' code is only graded in a sandbox: install bubblewrap "
                "(apt-get install bubblewrap), grade inside a Linux container or VM (macOS, "
                "Windows), or pass --unsafe-no-sandbox for code you trust") from None
    course_secret(layout.root, create=True)
    if not layout.submitted.is_dir():
        raise WorkflowError(f"no submissions folder {layout.submitted}")
    names = pick_assignments(layout, assignment)
    todo = []
    for student_dir in sorted(p for p in layout.submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if student is not None and student_dir.name != student:
            continue
        for name in names:
            if (student_dir / name).is_dir():
                todo.append((student_dir.name, name))
    if not todo:
        raise WorkflowError(f"nothing to grade in {layout.submitted} (expected <student>/<assignment>/ folders)")
    ensure_in_gradebook(layout, sorted({a for _, a in todo}))
    timeout = cell_timeout or layout.cell_timeout
    report = read_report(layout)
    records: list[GradeRecord] = []

    def done(record: GradeRecord) -> None:
        records.append(record)
        report[f"{record.student}/{record.assignment}"] = asdict(record)
        write_report(layout, report)
        if log is not None:
            note = f"  ({record.reason})" if record.reason else ""
            log(f"{describe_record(record)}{note}  [{record.seconds:.1f} s]")
            for item in record.review:
                log(f"    review: {item}")

    assignments = sorted({a for _, a in todo})
    copies = start_copy_audit(layout, assignments)
    with tempfile.TemporaryDirectory(prefix="course-grading-") as tmp:
        staged: dict[tuple[str, str], GradeRecord] = {}
        for who, what in todo:
            try:
                staged[(who, what)] = _stage(layout, who, what, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                record = GradeRecord(who, what, "failed", reason=f"could not be prepared: {exc}",
                                     graded_at=_dt.datetime.now().isoformat(timespec="seconds"))
                fill_scores(layout, record)
                done(record)
        if staged:
            run_jobs(layout, Path(tmp), staged, timeout, wall_limit, done,
                      jobs=jobs or os.cpu_count() or 1, sandbox=not unsafe_no_sandbox)
    report_copies(layout, assignments, log, copies())
    return records
