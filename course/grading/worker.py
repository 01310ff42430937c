"""Autograde submissions in a separate process: ``python -m course.grading.worker``.

:func:`course.grading.workflow.autograde` runs the autograder here, not in
its own process, so that nothing a notebook does (a hung kernel, a crash,
exhausted memory) can stop the grading of the others.  The worker loads the
course's ``nbgrader_config.py`` once and grades the jobs it is given one
after the other, printing a JSON line when it starts a job
(``{"event": "start", ...}``) and when it finishes it
(``{"event": "done", "success": ..., "error": ..., "log": ...}``).  The parent
watches those lines: a job that does not finish in time gets the worker
killed, is recorded as failed, and a new worker takes the remaining jobs.

Usage::

    python -m course.grading.worker --root COURSE --submitted DIR [--timeout SECONDS] \\
        --job STUDENT/ASSIGNMENT [--job ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

__all__ = ["main", "load_course_config"]

LOG_LIMIT = 20_000


def load_course_config(root: str, config_file: str | None = None):
    """The traitlets Config of the course: ``<root>/nbgrader_config.py`` (or ``config_file``).

    ``CourseDirectory.root`` is set to ``root`` whatever the file says.
    """
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    path = config_file or os.path.join(root, "nbgrader_config.py")
    config = Config()
    if os.path.exists(path):
        loader = PyFileConfigLoader(os.path.basename(path), path=os.path.dirname(os.path.abspath(path)))
        config.merge(loader.load_config())
    config.CourseDirectory.root = os.path.abspath(root)
    return config


def _emit(payload: dict) -> None:
    sys.stdout.write("\n" + json.dumps(payload) + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Autograde the jobs one by one, printing a JSON line per start and per result."""
    parser = argparse.ArgumentParser(prog="python -m course.grading.worker",
                                     description="Autograde submissions (used by python -m course.grading).")
    parser.add_argument("--root", required=True, help="the course directory")
    parser.add_argument("--config", default=None, help="nbgrader_config.py (default: ROOT/nbgrader_config.py)")
    parser.add_argument("--submitted", required=True, help="folder holding <student>/<assignment>/")
    parser.add_argument("--timeout", type=int, default=None, help="seconds per cell")
    parser.add_argument("--job", action="append", required=True, help="STUDENT/ASSIGNMENT")
    parser.add_argument("--handshake", action="store_true",
                        help="wait for a line on standard input before each job (the parent "
                             "snapshots the gradebook meanwhile)")
    args = parser.parse_args(argv)

    config = load_course_config(args.root, args.config)
    config.CourseDirectory.submitted_directory = args.submitted
    if args.timeout is not None:
        config.Execute.timeout = args.timeout
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    status = 0
    for job in args.job:
        student, _, assignment = job.partition("/")
        if args.handshake and not sys.stdin.readline():
            break                       # the parent went away
        _emit({"event": "start", "student": student, "assignment": assignment})
        try:
            api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
            result = api.autograde(assignment, student, force=True, create=True)
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which goes on
            result = {"success": False, "error": f"{type(exc).__name__}: {exc}"}
        ok = bool(result.get("success"))
        status = status or (0 if ok else 1)
        _emit({"event": "done", "student": student, "assignment": assignment, "success": ok,
               "error": (result.get("error") or "")[-LOG_LIMIT:],
               "log": (result.get("log") or "")[-LOG_LIMIT:]})
    return status


if __name__ == "__main__":
    sys.exit(main())
