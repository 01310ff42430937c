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
repaired there (:mod:`course.grading.term.intake.repair`: missing and duplicated
cells, damaged metadata; unreadable notebooks are set aside with the reason),
and graded by a worker process with a wall-clock limit, several in parallel
(``--jobs``, default the number of cores).  A cell that hangs or kills its
process is stopped and reported, and the next cells run.  Whatever happens to
one submission is written to the grading report
(``autograded/.course-grading/report.json``) and the others go on.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..term.course_dir import CourseLayout, WorkflowError, course_layout, pick_assignments
from ..term.intake.repair import describe, repair_submission
from ..term.intake.student_ids import describe_name
from ..term.release import ensure_in_gradebook
from ..term.results.report import GRADED, GradeRecord, describe_record, fill_scores, read_report, update_report
from ..term.results.copy_report import report_copies, start_copy_audit
from ..term.run_lock import course_lock
from ..term.safe_text import console_log, console_text
from .queue import run_jobs

__all__ = ["autograde", "refused_submissions", "ungraded", "GRADED"]


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


def refused_submissions(layout: CourseLayout, assignments: list[str]
                        ) -> tuple[list[tuple[str, str]], list[tuple[Path, str]]]:
    """``(student, assignment)`` submissions that may be graded, and the folders refused with why.

    A folder is refused when its name is not a valid student id or not on the roster
    (:mod:`course.grading.term.intake.submissions`), or when it holds links or special files.
    """
    from ..term.intake.roster import course_roster
    from ..term.intake.submissions import check_submission, student_folders

    students, refused = student_folders(layout.submitted, course_roster(layout.root))
    valid = []
    for who in students:
        for name in assignments:
            folder = layout.submitted / who / name
            if folder.is_symlink() or folder.is_dir():
                why = check_submission(folder)
                if why is None:
                    valid.append((who, name))
                else:
                    refused.append((folder, why))
    return valid, refused


def _fingerprint(folder: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM (and SIGHUP) stop grading as Ctrl-C does: workers, sandboxes and folders go."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def autograde(root: str | os.PathLike = ".", submissions: str | os.PathLike | None = None, *,
              assignment: str | None = None, student: str | None = None,
              cell_timeout: int | None = None, submission_timeout: float | None = None,
              log: Any = None, jobs: int | None = None, regrade: bool = False,
              unsafe_no_sandbox: bool = False, cluster: str | None = None,
              _term: Any = None) -> list[GradeRecord]:
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
    submission_timeout : float, optional
        Seconds a whole submission may take to grade, whatever it holds (default:
        ``SandboxedGrade.submission_timeout`` of the config, else 300;
        docs/instructor/grading-limits.md).
    log : callable, optional
        Called with one line of progress per submission (e.g. ``print``).
    jobs : int, optional
        Submissions graded in parallel (default: the number of cores).
    regrade : bool
        Grade every submission (every version) again, even those whose inputs are unchanged
        since they were graded (:mod:`course.grading.term.inputs`).
    unsafe_no_sandbox : bool
        Grade without the bubblewrap sandbox, where it cannot start.  The
        students' code then runs with your rights: only for code you trust.
    cluster : str, optional
        The address of a Dask scheduler (``tls://host:8786`` with the certificates in Dask's
        settings, or ``tcp://host:8786``; :mod:`.cluster`): every submission is graded there
        as a job of data (:mod:`course.grading.job`), and only this process writes the
        gradebook; default: the local pool of ``jobs`` workers.

    Returns
    -------
    list of GradeRecord
        Also merged into the grading report: one per submission, graded (or kept unchanged)
        or with the reason it has no grade; scores after the term's rules (late penalty,
        chosen version, hand grades: :mod:`course.grading.term`).

    What is graded is decided by :class:`course.grading.term.run.TermRun`: every version a
    student handed in is kept and graded once; a submission whose inputs (files, tests,
    points, secret, code, configuration, limits) are those of a result graded before is kept
    or restored without running code.

    Raises
    ------
    WorkflowError
        If the submissions folder does not exist or holds nothing to grade, or
        the sandbox cannot start and ``unsafe_no_sandbox`` is not set; with ``cluster``, if
        Dask's TLS settings do not fit its address or it cannot be reached (nothing is graded).
    IntegrityError
        If the grader's own files changed during grading (grading stops).
    ConfigNotApproved, SandboxPolicyError
        If ``nbgrader_config.py`` or the grading policy differ from what the
        instructor approved, or would grade outside the sandbox (:mod:`.approval`).
    Interrupted
        On Ctrl-C or SIGTERM: every worker and sandbox is stopped, the temporary folders
        are removed, and the submissions in flight stay ``"grading"`` in the report (not
        graded); a re-run grades them and skips the ones already graded.
    CourseBusy
        If another grading command holds the course (:mod:`course.grading.term.run_lock`).

    Every submission staged for grading ends as a record, whatever fails (a worker, the
    queue, the disk): one that has no grade has status ``"failed"`` and the reason; one whose
    result could not be written to the report says so.
    """
    what = "autograde" + (" --regrade" if regrade else "") + (f" --assignment {assignment}"
                                                               if assignment else "") \
        + (f" --student {student}" if student else "")
    # the whole run, not only its workers: a SIGTERM while results are kept and grades
    # settled stops it as Ctrl-C does, never half-way by the signal's default action
    with _sigterm_as_interrupt(), course_lock(root, what):
        return _autograde(root, submissions, assignment=assignment, student=student,
                          cell_timeout=cell_timeout, submission_timeout=submission_timeout,
                          log=console_log(log), jobs=jobs, regrade=regrade,
                          unsafe_no_sandbox=unsafe_no_sandbox, term=_term, cluster=cluster)


def _autograde(root: str | os.PathLike, submissions: str | os.PathLike | None, *,
               assignment: str | None, student: str | None, cell_timeout: int | None,
               submission_timeout: float | None, log: Any, jobs: int | None, regrade: bool,
               unsafe_no_sandbox: bool, term: Any = None, cluster: str | None = None) -> list[GradeRecord]:
    from ...sandbox import SandboxUnavailable, check_sandbox
    from ..term.course_dir import course_config
    from .approval import check_config_approved, check_policy_approved
    from .sandboxed import DEFAULT_SUBMISSION_TIMEOUT, course_secret

    check_config_approved(root)          # before nbgrader_config.py runs (issue 19: approval.py)
    from .worker import lighter_nbgrader

    lighter_nbgrader()       # staging opens the gradebook once a submission, settling more
    layout = course_layout(root, submissions)
    config = course_config(layout.root)
    check_policy_approved(config, layout.root)
    if submission_timeout is None:
        submission_timeout = float(config.SandboxedGrade.get("submission_timeout",
                                                             DEFAULT_SUBMISSION_TIMEOUT))
    if unsafe_no_sandbox:
        if log is not None:
            log("WARNING: grading WITHOUT a sandbox (--unsafe-no-sandbox): the students' code runs "
                "with your rights and can read and change your files. Only for code you trust.")
    elif cluster:
        # the sandbox runs on the cluster's workers (each job checks it there); Dask's TLS
        # settings are checked against the address here, before the term's work
        from .cluster import cluster_security

        cluster_security(cluster)
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
    timeout = cell_timeout or layout.cell_timeout
    settings = {"cell_timeout": timeout, "submission_timeout": submission_timeout,
                "sandboxed": not unsafe_no_sandbox}
    from ..term.run import TermRun

    term = term or TermRun(layout, assignment=assignment, student=student, regrade=regrade,
                           limits=settings, log=log)
    term.start()                   # versions kept; what this pass grades put in submitted/
    todo = []
    # every folder name is a student id (the pattern, the roster), never a link (issue 19)
    valid, refused = refused_submissions(layout, names)
    for path, why in refused:
        if log is not None and term.passes == 1:
            log(f"REFUSED {describe_name(str(path), 200)}: {console_text(why)}")
    for who, name in valid:
        if (student is None or who == student) and term.wanted(who, name):
            todo.append((who, name))
    if not todo and term.passes > 1:
        return term.finish([], lambda again: [])
    if not todo:
        raise WorkflowError(f"nothing to grade in {layout.submitted} (expected <student>/<assignment>/ folders)")
    ensure_in_gradebook(layout, sorted({a for _, a in todo}))
    report = read_report(layout)
    records: list[GradeRecord] = []

    def save(record: GradeRecord) -> None:
        """Write the record to the report (its entry only); a failure is said in the record."""
        try:
            update_report(layout, {f"{record.student}/{record.assignment}": asdict(record)})
        except OSError as exc:
            # e.g. a full disk: the record stays in this run's results, without a grade
            if record.status in GRADED:
                record.reason = "; ".join(r for r in (record.reason, f"graded ({record.score:g} "
                                                      "points) but not saved") if r)
            record.status = "failed"
            record.reason = "; ".join(r for r in (record.reason, "its result could not be written "
                                                  f"to the grading report ({exc.strerror or exc}): "
                                                  "run autograde again") if r)

    def done(record: GradeRecord) -> None:
        record.sandboxed = not unsafe_no_sandbox        # recorded next to the grade (issue 19)
        records.append(record)
        save(record)
        if log is not None:
            note = f"  ({record.reason})" if record.reason else ""
            log(f"{console_text(describe_record(record))}{console_text(note)}  [{record.seconds:.1f} s]")
            for item in record.review:
                log(f"    review: {console_text(item)}")

    def begin(record: GradeRecord) -> None:
        # written before nbgrader touches the gradebook or autograded/: if the run stops here,
        # the report says "grading" (no grade), never the old score beside a missing folder
        entry = dict(report.get(f"{record.student}/{record.assignment}", {}))
        entry.update(student=record.student, assignment=record.assignment, status="grading",
                     score=0.0, grading_key="",
                     reason="grading did not finish (interrupted?): run autograde again")
        update_report(layout, {f"{record.student}/{record.assignment}": entry})

    assignments = sorted({a for _, a in todo})
    copies = start_copy_audit(layout, assignments)
    try:
        _grade(layout, todo, report, records, term, timeout,
               submission_timeout, jobs, unsafe_no_sandbox, done, begin, log, cluster=cluster)
    except BaseException:
        copies.stop()
        raise
    audits = copies()
    report_copies(layout, assignments, log, audits, texts=copies.texts)
    # more versions to grade: another pass; then every grade settled by the term's rules
    return term.finish(records, lambda again: autograde(
        root, submissions, assignment=assignment, student=student, cell_timeout=cell_timeout,
        submission_timeout=submission_timeout, log=log, jobs=jobs, regrade=regrade,
        unsafe_no_sandbox=unsafe_no_sandbox, cluster=cluster, _term=again))


def _grade(layout: CourseLayout, todo: list[tuple[str, str]], report: dict, records: list,
           term: Any, timeout: int, submission_timeout: float, jobs: int | None,
           unsafe_no_sandbox: bool, done: Any, begin: Any, log: Any, cluster: str | None = None) -> None:
    """Stage every submission of ``todo`` (or keep it, unchanged), then grade the staged ones."""
    with tempfile.TemporaryDirectory(prefix="course-grading-") as tmp:
        # the workers' sandboxes make their folders in here too: gone with it, even after a kill
        os.chmod(tmp, 0o711)
        sandboxes = Path(tmp) / "sandboxes"
        sandboxes.mkdir(mode=0o755)
        os.chmod(sandboxes, 0o755)
        staged: dict[tuple[str, str], GradeRecord] = {}
        with term.staging():
            _stage_all(layout, todo, Path(tmp) / "submissions", report, records, term, staged, done, log)
        if staged:
            old_tmpdir = os.environ.get("TMPDIR")
            os.environ["TMPDIR"] = str(sandboxes)          # inherited by the workers
            try:
                if cluster:
                    from .cluster import run_cluster_jobs

                    run_cluster_jobs(layout, Path(tmp) / "submissions", staged, timeout,
                                     submission_timeout, done, address=cluster,
                                     sandbox=not unsafe_no_sandbox, begin=begin, log=log)
                else:
                    run_jobs(layout, Path(tmp) / "submissions", staged, timeout, submission_timeout,
                             done, jobs=jobs or os.cpu_count() or 1, sandbox=not unsafe_no_sandbox,
                             begin=begin)
            finally:
                if old_tmpdir is None:
                    os.environ.pop("TMPDIR", None)
                else:
                    os.environ["TMPDIR"] = old_tmpdir


def _stage_all(layout: CourseLayout, todo: list[tuple[str, str]], staging: Path, report: dict,
               records: list, term: Any, staged: dict, done: Any, log: Any) -> None:
    """Stage each submission of ``todo`` into ``staged``, or keep its earlier result."""
    for who, what in todo:
        try:
            record = _stage(layout, who, what, staging)
            # graded before under the same inputs: kept (or restored), no code runs
            kept, note = term.reuse(who, what, record, report.get(f"{who}/{what}", {}))
            if kept is not None:
                records.append(kept)
                if log is not None:
                    log(f"{console_text(describe_record(kept))}  [{console_text(note)}]")
                try:
                    update_report(layout, {f"{who}/{what}": asdict(kept)})
                except OSError:
                    pass              # the report keeps its entry: the same grade
                continue
            staged[(who, what)] = record
        except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
            record = GradeRecord(who, what, "failed", reason=f"could not be prepared: {exc}",
                                 graded_at=_dt.datetime.now().isoformat(timespec="seconds"))
            try:
                fill_scores(layout, record)
            except Exception:  # noqa: BLE001 - the row matters, not its maximum
                pass
            done(record)


def ungraded(records: list[GradeRecord]) -> list[GradeRecord]:
    """The records of submissions without a grade (failed, interrupted)."""
    return [r for r in records if r.status not in GRADED]
