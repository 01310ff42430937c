"""Autograde submissions in a separate process: ``python -m course.grading.autograde.worker``.

:func:`course.grading.autograde.autograde` runs the autograder here, not in
its own process, so that nothing that goes wrong with one submission can stop
the grading of the others.  The students' code itself never runs here: the
:class:`~course.grading.autograde.sandboxed.SandboxedGrade` step runs it in a sandbox.
Several workers may run at once (``--lock`` serialises their gradebook work).  The worker loads the
course's ``nbgrader_config.py`` once and grades the jobs it is given one
after the other, printing a JSON line when it starts a job
(``{"event": "start", ...}``) and when it finishes it
(``{"event": "done", "success": ..., "error": ..., "log": ...}``).  The parent
watches those lines: a job that does not finish in time gets the worker
killed, is recorded as failed, and a new worker takes the remaining jobs.

Usage::

    python -m course.grading.autograde.worker --root COURSE --submitted DIR [--timeout SECONDS] \\
        --job STUDENT/ASSIGNMENT [--job ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

from ..course_dir import FileLock, load_course_config

__all__ = ["main"]

LOG_LIMIT = 20_000


def _emit(payload: dict) -> None:
    sys.stdout.write("\n" + json.dumps(payload) + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Autograde the jobs one by one, printing a JSON line per start and per result."""
    parser = argparse.ArgumentParser(prog="python -m course.grading.autograde.worker",
                                     description="Autograde submissions (used by python -m course.grading).")
    parser.add_argument("--root", required=True, help="the course directory")
    parser.add_argument("--config", default=None, help="nbgrader_config.py (default: ROOT/nbgrader_config.py)")
    parser.add_argument("--submitted", required=True, help="folder holding <student>/<assignment>/")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per cell")
    parser.add_argument("--submission-timeout", type=float, default=None,
                        help="seconds a whole submission may take to grade (default: the config's "
                             "SandboxedGrade.submission_timeout)")
    parser.add_argument("--job", action="append", required=True, help="STUDENT/ASSIGNMENT")
    parser.add_argument("--lock", default=None,
                        help="a lock file shared by parallel workers: nbgrader's gradebook work is "
                             "done holding it, the sandboxed grading without")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run students' code without a sandbox (isolates nothing)")
    parser.add_argument("--handshake", action="store_true",
                        help="wait for a line on standard input before each job (the parent "
                             "snapshots the gradebook meanwhile)")
    args = parser.parse_args(argv)

    from .approval import check_config_approved, check_policy_approved

    if args.config is None:
        check_config_approved(args.root)          # before the file runs (issue 19)
    config = load_course_config(args.root, args.config)
    check_policy_approved(config, args.root)
    config.CourseDirectory.submitted_directory = args.submitted
    if args.timeout is not None:
        config.Execute.timeout = args.timeout
        config.SandboxedGrade.cell_timeout = float(args.timeout)
    config.SandboxedGrade.secret_root = os.path.abspath(args.root)
    if args.submission_timeout is not None:
        config.SandboxedGrade.submission_timeout = args.submission_timeout
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from . import sandboxed

    if args.unsafe_no_sandbox:
        sandboxed.allow_grading_without_sandbox()     # the command line's flag, never the config

    if args.lock:
        sandboxed.GRADEBOOK_LOCK = FileLock(args.lock)
    lock = sandboxed.GRADEBOOK_LOCK

    status = 0
    for job in args.job:
        student, _, assignment = job.partition("/")
        if args.handshake and not sys.stdin.readline():
            break                       # the parent went away
        _emit({"event": "start", "student": student, "assignment": assignment})
        del sandboxed.LIMITS_HIT[:]
        del sandboxed.REVIEW_FLAGS[:]
        timeout = args.submission_timeout or sandboxed.SandboxedGrade(config=config).submission_timeout
        sandboxed.JOB_DEADLINE = time.monotonic() + timeout     # for all its notebooks together
        lock.acquire()
        try:
            api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
            result = api.autograde(assignment, student, force=True, create=True)
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which goes on
            result = {"success": False, "error": f"{type(exc).__name__}: {exc}"}
        finally:
            lock.release()
        ok = bool(result.get("success"))
        status = status or (0 if ok else 1)
        _emit({"event": "done", "student": student, "assignment": assignment, "success": ok,
               "limit": "; ".join(sandboxed.LIMITS_HIT),
               "review": sandboxed.REVIEW_FLAGS[:50],
               "error": (result.get("error") or "")[-LOG_LIMIT:],
               "log": (result.get("log") or "")[-LOG_LIMIT:]})
    return status


if __name__ == "__main__":
    sys.exit(main())
