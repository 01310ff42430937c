"""The instructor's commands: ``python -m course.grading COMMAND``.

=================================================  ===============================================
command                                            what it does
=================================================  ===============================================
``prepare``                                        the exchange folder and a complete gradebook (``make lab``)
``release``                                        regenerate ``exercises/`` from ``solutions/``
``student-bundle [--output Z] [--exchange DIR]``    the students' copy of the course (no solutions)
``collect-zip ZIP [--submissions DIR]``            unpack a zip of submissions into ``DIR/<student>/<assignment>/``
``autograde [--submissions DIR] [--assignment A]``  autograde every submission (one process each)
``feedback [--assignment A]``                      write feedback HTML for every graded submission
``grades [--output grades.csv]``                   one CSV row per student and assignment
``summary [--output-dir grading-summary]``         score histograms and the most-failed tests
=================================================  ===============================================

Every command takes ``--root DIR``, the course directory (default: the current
one).  Problems an instructor must fix end with exit status 2 and one line on
standard error; a submission that cannot be graded never stops the others
(it is listed, with the reason, in the grading report and in ``grades.csv``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import CourseError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m course.grading``."""
    parser = argparse.ArgumentParser(prog="python -m course.grading",
                                     description="The instructor's nbgrader workflow for the course.")
    parser.add_argument("--root", default=".", help="the course directory (default: .)")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("prepare", help="create the exchange folder and complete the gradebook "
                                   "(make lab runs it before JupyterLab starts)")

    p = sub.add_parser("release", help="regenerate exercises/ from solutions/")
    p.add_argument("--assignment", default=None)

    p = sub.add_parser("student-bundle", help="write the students' copy of the course (a zip "
                                              "without solutions/, gradebook or secret)")
    p.add_argument("--output", default=None, help="default: dist/<course id>-student.zip")
    p.add_argument("--exchange", default=None,
                   help="the exchange folder the students use (default: the course's Exchange.root)")

    p = sub.add_parser("collect-zip", help="unpack a zip of submissions")
    p.add_argument("zip")
    p.add_argument("--submissions", default="submitted")

    p = sub.add_parser("autograde", help="autograde every submission")
    p.add_argument("--submissions", default=None, help="default: nbgrader's submitted/")
    p.add_argument("--assignment", default=None)
    p.add_argument("--student", default=None)
    p.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: the config's)")
    p.add_argument("--jobs", type=int, default=None,
                   help="submissions graded in parallel (default: the number of cores)")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade without the bubblewrap sandbox: the students' code runs with your "
                        "rights (only for code you trust)")

    p = sub.add_parser("feedback", help="write feedback HTML")
    p.add_argument("--assignment", default=None)

    p = sub.add_parser("grades", help="export grades as CSV")
    p.add_argument("--output", default="grades.csv")

    p = sub.add_parser("summary", help="score histograms and most-failed tests")
    p.add_argument("--output-dir", default="grading-summary")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status."""
    args = build_parser().parse_args(argv)
    from .autograde import autograde
    from .course_dir import prepare
    from .intake.lms_zip import collect_zip
    from .release import release, student_bundle
    from .results.feedback import feedback, pending_hand_grading
    from .results.grades import grades
    from .results.summary import summary

    try:
        if args.command == "prepare":
            prepare(args.root, log=print)
        elif args.command == "release":
            paths = release(args.root, assignment=args.assignment)
            for path in paths:
                print(f"released {path}")
        elif args.command == "student-bundle":
            path = student_bundle(args.root, args.output, exchange=args.exchange)
            print(f"students' copy of the course written to {path}")
        elif args.command == "collect-zip":
            collected, skipped = collect_zip(args.zip, args.submissions, root=args.root,
                                                      log=lambda line: print(f"WARNING: {line}"))
            for student, assignment, name in collected:
                print(f"{student}/{assignment}/{name}")
            for entry, why in skipped:
                print(f"skipped {entry}: {why}")
            print(f"{len(collected)} files collected into {args.submissions}, {len(skipped)} skipped")
        elif args.command == "autograde":
            records = autograde(args.root, args.submissions, assignment=args.assignment,
                                         student=args.student, cell_timeout=args.timeout, log=print,
                                         jobs=args.jobs, unsafe_no_sandbox=args.unsafe_no_sandbox)
            failed = sum(1 for r in records if r.status == "failed")
            print(f"{len(records)} submissions graded ({failed} could not be graded: see their reasons "
                  "above); the report is in autograded/.course-grading/report.json")
            hand = [r for r in records if r.hand_points_pending and r.status != "failed"]
            if hand:
                print(f"{len(hand)} of them have written answers to grade by hand "
                      f"({sum(r.hand_points_pending for r in hand):g} points in all, not in the scores "
                      "above): Nbgrader > Formgrader > Manage Assignments in JupyterLab (make lab)")
        elif args.command == "feedback":
            feedback(args.root, assignment=args.assignment, log=print)
        elif args.command == "grades":
            path = grades(args.root, args.output)
            print(f"grades written to {path}")
            pending = pending_hand_grading(args.root)
            if pending:
                print(f"WARNING: {len(pending)} submission{'s' if len(pending) != 1 else ''} still "
                      f"{'wait' if len(pending) != 1 else 'waits'} for hand grading "
                      f"({', '.join(f'{s}/{a}' for s, a, _ in pending)}): their scores lack "
                      f"{sum(p for _, _, p in pending):g} points in all (column needs_manual_grade)")
        elif args.command == "summary":
            summary(args.root, args.output_dir, log=print)
    except CourseError as exc:
        print(f"python -m course.grading {args.command}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
