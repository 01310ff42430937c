"""The instructor's commands: ``python -m course.grading COMMAND``.

=================================================  ===============================================
command                                            what it does
=================================================  ===============================================
``prepare``                                        the exchange folder and a complete gradebook (``make lab``)
``release``                                        regenerate ``exercises/`` from ``solutions/``
``student-bundle [--output Z] [--exchange DIR]``    the students' copy of the course (no solutions)
``collect-zip ZIP [--assignment A]``               unpack an LMS zip into ``submitted/<student>/<assignment>/``
                                                   (``--timezone Z``: how to read its dates)
``approve-config [--show]``                        show how nbgrader_config.py changed, and approve it
``autograde [--submissions DIR] [--assignment A]``  autograde every submission (one process each;
                                                   ``--submission-timeout S``, ``--regrade``)
``feedback [--assignment A]``                      write feedback HTML for every graded submission
``grades [--output grades.csv]``                   one CSV row per student and released assignment;
                                                   ``--format canvas|moodle``: the LMS's import
``feedback-zip A --lms L --from-zip Z``            the feedback pages of A for the LMS's upload
``due-date A WHEN`` / ``due-date A --clear``        set or clear an assignment's due date (UTC unless
                                                   WHEN names a zone); the late penalty applies from it
``extension S A --until WHEN`` / ``--hours N``      give student S their own due date for assignment A
``extension S A --remove`` / ``extension --list``   (no code runs again: totals are recomputed)
``example-class DIR``                              a throw-away class of four students to grade first
``remove-student ID [--yes]``                      a student who left: folders, gradebook entry,
                                                   report entries and roster line (without
                                                   ``--yes``: only say what would go)
``summary [--output-dir grading-summary]``         scores and every question (mean, full credit,
                                                   failures by kind): ``summary.html``
=================================================  ===============================================

Every command takes ``--root DIR``, the course directory (default: the current
one).  The commands that change grades or their inputs hold the course lock while they run, and
those that read grades a shared one (:mod:`.term.run_lock`): a command that finds the course busy
stops at once, naming the other.  Whatever a command prints passes through
:mod:`.term.safe_text`: no character a student wrote reaches the terminal as a command.
Problems an instructor must fix end with exit status 2 and one line on
standard error; ``collect-zip`` ends with status 1 when it refused entries,
found ambiguous ones or roster students with nothing; a submission that cannot be graded never stops the others
(it is listed, with the reason, in the grading report and in ``grades.csv``); ``autograde``
and ``feedback`` end with status 1 and list every submission left without a grade or a
page, and with 130 when interrupted (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from collections.abc import Sequence

from .._optional import skip_unused_format_checks
from ..errors import CourseError

skip_unused_format_checks()      # before nbgrader (and jsonschema) are imported: 0.8 s a command

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m course.grading``."""
    parser = argparse.ArgumentParser(prog="python -m course.grading",
                                     description="The instructor's nbgrader workflow for the course.")
    parser.add_argument("--root", default=".", help="the course directory (default: .)")
    sub = parser.add_subparsers(dest="command", required=True)

    sub.add_parser("prepare", help="create the exchange folder and complete the gradebook "
                                   "(make lab runs it before JupyterLab starts)")

    p = sub.add_parser("release", help="regenerate exercises/ from solutions/, after checking that the "
                                      "model solution passes every test and the stub none")
    p.add_argument("--assignment", default=None)

    p = sub.add_parser("student-bundle", help="write the students' copy of the course (a zip "
                                              "without solutions/, gradebook or secret)")
    p.add_argument("--output", default=None, help="default: dist/<course id>-student.zip")
    p.add_argument("--exchange", default=None,
                   help="the exchange folder the students use (default: the course's Exchange.root)")

    p = sub.add_parser("collect-zip", help="unpack a zip of submissions (exit status 1 if anything "
                                           "was refused or ambiguous, or a roster student got nothing)")
    p.add_argument("zip")
    p.add_argument("--submissions", default=None,
                   help="default: nbgrader's submitted/ of the course directory (--root)")
    p.add_argument("--assignment", default=None,
                   help="the assignment the zip is for (needed when two assignments share a "
                        "notebook name)")
    p.add_argument("--timezone", default=None,
                   help="how to read the zip's dates: the zone of the computer that made it (e.g. "
                        "Europe/Berlin, UTC, local) or none; needed for Moodle's and hand-made zips "
                        "(Canvas's zips carry no submission times)")
    p.add_argument("--file-as", action="append", default=[], metavar="ENTRY=NOTEBOOK.ipynb",
                   help="file the zip's ENTRY, a notebook the student renamed, as NOTEBOOK.ipynb "
                        "(repeatable)")

    p = sub.add_parser("approve-config", help="show what changed in nbgrader_config.py since it "
                                              "was approved, and approve it (autograde and feedback "
                                              "refuse an unapproved configuration)")
    p.add_argument("--show", action="store_true", help="only show the difference, approve nothing")

    p = sub.add_parser("autograde", help="autograde every submission")
    p.add_argument("--submissions", default=None, help="default: nbgrader's submitted/")
    p.add_argument("--assignment", default=None)
    p.add_argument("--student", default=None)
    p.add_argument("--timeout", type=int, default=None, help="seconds per cell (default: the config's)")
    p.add_argument("--submission-timeout", type=float, default=None,
                   help="seconds a whole submission may take to grade, whatever it holds (default: "
                        "SandboxedGrade.submission_timeout of the config, else 300)")
    p.add_argument("--regrade", action="store_true",
                   help="grade every submission again, also those unchanged since they were graded")
    p.add_argument("--jobs", type=int, default=None,
                   help="submissions graded in parallel (default: the number of cores)")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade without the bubblewrap sandbox: the students' code runs with your "
                        "rights (only for code you trust)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="grade on a Dask cluster: the scheduler's address, e.g. tls://host:8786 "
                        "(the certificates in Dask's settings) or tcp://host:8786 "
                        "(docs/instructor/cluster.md); default: worker processes on this machine")

    p = sub.add_parser("feedback", help="write feedback HTML")
    p.add_argument("--assignment", default=None)

    p = sub.add_parser("grades", help="export grades as CSV (grades.csv, or the file an LMS imports)")
    p.add_argument("--output", default=None, help="default: grades.csv, grades-canvas.csv, grades-moodle.csv")
    p.add_argument("--format", default="csv", choices=("csv", "canvas", "moodle"),
                   help="csv: one row per student and assignment; canvas, moodle: the gradebook "
                        "import of that LMS (docs/instructor/lms.md)")
    p.add_argument("--assignment-id", action="append", default=[], metavar="ASSIGNMENT=ID",
                   help="canvas: the Canvas id of an assignment (repeatable)")
    p.add_argument("--lms-export", default=None,
                   help="canvas: a gradebook export of the Canvas course, to read assignment ids from")
    p.add_argument("--identifier", default="email", choices=("email", "idnumber", "username"),
                   help="moodle: the user field of the first column (roster: email, sis_user_id, "
                        "sis_login_id)")

    p = sub.add_parser("feedback-zip", help="one zip of an assignment's feedback pages, for the LMS's "
                                            "upload of feedback files")
    p.add_argument("assignment")
    p.add_argument("--lms", required=True, choices=("canvas", "moodle"))
    p.add_argument("--from-zip", required=True,
                   help="the LMS's download of the assignment's submissions (the zip collect-zip read)")
    p.add_argument("--output", default=None, help="default: feedback-<assignment>-<lms>.zip")

    p = sub.add_parser("due-date", help="set (or clear) an assignment's due date; submissions "
                                        "after it are late (grades.csv: hours_late, late_penalty)")
    p.add_argument("assignment")
    p.add_argument("when", nargs="?", default=None,
                   help="e.g. '2026-12-04 17:00 Europe/Berlin' or '2026-12-04 16:00 UTC'")
    p.add_argument("--clear", action="store_true", help="remove the due date")

    p = sub.add_parser("extension", help="give a student an extension (their own due date), remove "
                                         "it, or list every extension; no code runs again")
    p.add_argument("student", nargs="?", default=None)
    p.add_argument("assignment", nargs="?", default=None)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--until", default=None,
                       help="their due date, e.g. '2026-12-04 17:00 Europe/Berlin' (UTC without a zone)")
    group.add_argument("--hours", type=float, default=None,
                       help="hours after the assignment's due date (moves with it)")
    group.add_argument("--remove", action="store_true", help="remove their extension")
    group.add_argument("--list", action="store_true", help="list the extensions (of ASSIGNMENT, if given)")

    p = sub.add_parser("example-class", help="write a throw-away course with four students' "
                                             "submissions of a1_minimax, to try the term's commands on")
    p.add_argument("folder")

    p = sub.add_parser("remove-student", help="remove a student who left: their folders, gradebook "
                                              "entry, report entries and roster line")
    p.add_argument("student")
    p.add_argument("--yes", action="store_true", help="remove (without it: only list what would go)")

    p = sub.add_parser("summary", help="scores and every question: means, full credit, failures by kind "
                                       "(grading-summary/summary.html)")
    p.add_argument("--output-dir", default="grading-summary")
    return parser


def _command_lock(args: argparse.Namespace, argv: Sequence[str] | None):
    """The course lock the command takes (:mod:`.term.run_lock`), or a context that takes none."""
    import contextlib

    from .term.run_lock import LOCKS, course_lock

    mode = LOCKS.get(args.command)
    if (args.command == "remove-student" and not args.yes) or \
            (args.command == "approve-config" and args.show):
        mode = "shared"                       # only says what it would do
    if mode is None:
        return contextlib.nullcontext()
    words = list(sys.argv[1:] if argv is None else argv)
    return course_lock(args.root, "python -m course.grading " + " ".join(words),
                       shared=mode == "shared")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit status.

    What it prints goes through :class:`~.term.safe_text.ConsoleStream`: no character of a
    submission (a name, a line a cell printed) reaches the terminal as a command.
    """
    from .term.safe_text import ConsoleStream

    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ConsoleStream(out), ConsoleStream(err)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    import contextlib

    args = build_parser().parse_args(argv)
    from .job.autograde import autograde
    from .term.safe_text import console_text
    from .term.course_dir import prepare
    from .term.intake.lms_zip import collect_zip
    from .term.release import release, student_bundle
    from .term.results.feedback import feedback, pending_hand_grading
    from .term.results.grades import grades
    from .term.results.summary import summary

    status = 0
    held = contextlib.ExitStack()
    try:
        held.enter_context(_command_lock(args, argv))     # one grading command at a time
        if args.command == "prepare":
            prepare(args.root, log=print)
            from .job.approval import ConfigNotApproved, check_config_approved

            if (Path(args.root) / "solutions").is_dir():        # the instructor's side
                try:
                    check_config_approved(args.root)
                except ConfigNotApproved as exc:
                    # `make lab` runs this for students too (a clone holds solutions/): say whom
                    # the note is for, so a student does not take it for a problem to fix
                    print("For the instructor only (students: nothing to do, JupyterLab starts "
                          f"as usual): {str(exc).splitlines()[0]}")
        elif args.command == "release":
            paths = release(args.root, assignment=args.assignment, log=print)
            for path in paths:
                print(f"released {path}")
        elif args.command == "student-bundle":
            path = student_bundle(args.root, args.output, exchange=args.exchange)
            print(f"students' copy of the course written to {path}")
        elif args.command == "collect-zip":
            file_as = dict(item.split("=", 1) for item in args.file_as if "=" in item)
            if len(file_as) != len(args.file_as):
                print("python -m course.grading collect-zip: --file-as takes ENTRY=NOTEBOOK.ipynb",
                      file=sys.stderr)
                return 2
            done = collect_zip(args.zip, args.submissions, root=args.root, assignment=args.assignment,
                               timezone=args.timezone, file_as=file_as,
                               log=lambda line: print(f"WARNING: {line}"))
            for student, assignment, name, _ in done.collected:
                print(console_text(f"{student}/{assignment}/{name}"))
            for note in done.notes:
                print(f"note: {console_text(note)}")
            print(f"{len(done.collected)} files collected into {done.destination}; "
                  f"{len(done.refused)} refused, {len(done.ambiguous)} ambiguous, "
                  f"{len(done.ignored)} ignored")
            if done.warning():
                print("WARNING: look at these before grading:\n" + done.warning(), file=sys.stderr)
            if not done.ok:
                return 1
        elif args.command == "approve-config":
            return _approve_config(args.root, show_only=args.show)
        elif args.command == "autograde":
            from .job.autograde import ungraded
            from .job.queue import Interrupted

            try:
                records = autograde(args.root, args.submissions, assignment=args.assignment,
                                    student=args.student, cell_timeout=args.timeout, log=print,
                                    submission_timeout=args.submission_timeout, jobs=args.jobs,
                                    regrade=args.regrade, unsafe_no_sandbox=args.unsafe_no_sandbox,
                                    cluster=args.cluster)
            except KeyboardInterrupt:
                print("autograde interrupted: every worker and sandbox was stopped; the submissions "
                      "being graded have no grade (status \"grading\" in the report). Run autograde "
                      "again to grade the rest (graded, unchanged submissions are kept).",
                      file=sys.stderr)
                raise Interrupted() from None
            if args.unsafe_no_sandbox:
                print("WARNING: these grades were given WITHOUT the sandbox (--unsafe-no-sandbox); "
                      "report.json and grades.csv (column sandboxed) say so")
            from .job.autograde import refused_submissions
            from .term.course_dir import course_layout, pick_assignments

            layout = course_layout(args.root, args.submissions)
            _, refused = refused_submissions(layout, pick_assignments(layout, args.assignment))
            if refused:
                print(f"WARNING: {len(refused)} folder{'s' if len(refused) != 1 else ''} of "
                      f"{layout.submitted} refused, not graded (see REFUSED above)", file=sys.stderr)
                status = 1
            missing = ungraded(records)
            print(f"{len(records)} submissions graded ({len(missing)} could not be graded: see their "
                  "reasons above); the report is in autograded/.course-grading/report.json")
            if missing:
                print(f"WARNING: {len(missing)} submission{'s' if len(missing) != 1 else ''} without "
                      "a grade: " + ", ".join(f"{r.student}/{r.assignment}" for r in missing),
                      file=sys.stderr)
                status = 1
            hand = [r for r in records if r.hand_points_pending and r.status != "failed"]
            if hand:
                print(f"{len(hand)} of them have written answers to grade by hand "
                      f"({sum(r.hand_points_pending for r in hand):g} points in all, not in the scores "
                      "above): Nbgrader > Formgrader > Manage Assignments in JupyterLab (make lab)")
        elif args.command == "feedback":
            feedback(args.root, assignment=args.assignment, log=print)
            from .term.results.feedback import missing_feedback

            missing = missing_feedback(args.root, assignment=args.assignment)
            if missing:
                print(f"WARNING: no feedback page for {len(missing)} submission"
                      f"{'s' if len(missing) != 1 else ''}: {', '.join(missing)}", file=sys.stderr)
                status = 1
        elif args.command == "grades":
            warn = lambda line: print(f"WARNING: {line}", file=sys.stderr)  # noqa: E731
            from .job.approval import ConfigNotApproved, check_config_approved

            try:
                check_config_approved(args.root)
            except ConfigNotApproved as exc:
                # the late rule and resubmission policy below are read from the file as it is now
                warn(f"{exc.summary}: these grades apply its late rule and resubmission policy as they are "
                     "now, which autograde and feedback refuse until you approve them (make "
                     "approve-config shows what changed)")
            if args.format == "csv":
                path = grades(args.root, args.output or "grades.csv", log=warn)
            else:
                from .term.results.lms import lms_grades

                ids = dict(item.split("=", 1) for item in args.assignment_id if "=" in item)
                if len(ids) != len(args.assignment_id):
                    print("python -m course.grading grades: --assignment-id takes ASSIGNMENT=ID", file=sys.stderr)
                    return 2
                export = lms_grades(args.root, args.output, lms=args.format, assignment_ids=ids,
                                    canvas_export=args.lms_export, identifier=args.identifier, log=warn)
                path = export.path
                print(f"{len(export.students)} students, columns: {', '.join(export.assignments)}")
                if export.left_out:
                    status = 1
            print(f"grades written to {path}")
            pending = pending_hand_grading(args.root)
            if pending:
                print(f"WARNING: {len(pending)} submission{'s' if len(pending) != 1 else ''} still "
                      f"{'wait' if len(pending) != 1 else 'waits'} for hand grading "
                      f"({', '.join(f'{s}/{a}' for s, a, _ in pending)}): their scores lack "
                      f"{sum(p for _, _, p in pending):g} points in all (column needs_manual_grade)")
        elif args.command == "feedback-zip":
            from .term.results.lms import feedback_zip

            packed = feedback_zip(args.root, args.assignment, lms=args.lms, submissions_zip=args.from_zip,
                                  output=args.output, log=lambda line: print(f"WARNING: {line}", file=sys.stderr))
            students = sorted({who for who, _ in packed.files})
            if packed.path is None:
                print("no feedback to pack: run make feedback first, and give the LMS's download of "
                      "this assignment", file=sys.stderr)
                return 1
            print(f"feedback of {len(students)} students written to {packed.path}")
            if packed.left_out:
                status = 1
        elif args.command == "due-date":
            from .term import set_due_date

            if args.clear == (args.when is not None):
                print("python -m course.grading due-date: give a date and time, or --clear", file=sys.stderr)
                return 2
            due = set_due_date(args.root, args.assignment, None if args.clear else args.when)
            print(f"{args.assignment}: due {due.isoformat(sep=' ', timespec='minutes')} UTC" if due
                  else f"{args.assignment}: no due date")
            if due:
                print("submissions after it are late: grades.csv and feedback apply the late penalty "
                      "of nbgrader_config.py (AssignLatePenalties.plugin_class; see the instructor "
                      "guide) when they are written; no code runs again")
        elif args.command == "extension":
            return _extension(args)
        elif args.command == "example-class":
            from .term.example_class import EXAMPLE_STUDENTS, example_class

            root = example_class(args.folder)
            for student, (what, when) in EXAMPLE_STUDENTS.items():
                print(f"submitted/{student}/a1_minimax: {what} ({when})")
            # commands to paste into a shell that never activated .venv: this interpreter, by path
            import os
            import shlex

            python = os.path.relpath(sys.executable)
            python = python if not python.startswith("..") else sys.executable
            run = f"{shlex.quote(python)} -m course.grading --root {shlex.quote(str(root))}"
            grades_csv = shlex.quote(str(Path(root) / "grades.csv"))
            print(f"an example class in {root} (a1_minimax due 2026-12-01 17:00 UTC, 10 % off per day "
                  f"late). Grade it:\n  {run} autograde\n  {run} feedback\n"
                  f"  {run} grades --output {grades_csv}")
        elif args.command == "remove-student":
            from .term import remove_student

            removal = remove_student(args.root, args.student, dry_run=not args.yes,
                                     log=lambda line: print(console_text(line)))
            if not args.yes:
                for line in removal.lines():
                    print(f"would remove {console_text(line)}")
                for path in removal.exchange:
                    print(f"would leave in the exchange (the student's files): {console_text(path)}")
                print("nothing removed: add --yes to remove")
        elif args.command == "summary":
            summary(args.root, args.output_dir, log=print)
    except CourseError as exc:
        print(f"python -m course.grading {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    finally:
        held.close()
    return status


def _extension(args: argparse.Namespace) -> int:
    from .term import extensions, grant_extension, remove_extension, settle_course
    from .term.dates import utc_text
    from .term.course_dir import course_layout, gradebook

    if args.list or (args.student is None and args.until is None and args.hours is None and not args.remove):
        layout = course_layout(args.root)
        found = extensions(args.root)
        for name in (args.student, args.assignment):     # filters: a student, an assignment
            if name is not None:
                found = [e for e in found if name in (e.student, e.assignment)]
        with gradebook(layout) as gb:
            dues = {a.name: a.duedate for a in gb.assignments}
        for ext in found:
            note = "" if ext.source == "course" else "  (nbgrader's own, given with Gradebook.grant_extension)"
            print(f"{ext.student:<20} {ext.assignment:<16} {ext.describe():<28} due "
                  f"{utc_text(ext.due(dues.get(ext.assignment))) or '(the assignment has no due date)'}{note}")
        if not found:
            print("no extensions")
        return 0
    if args.student is None or args.assignment is None:
        print("python -m course.grading extension: give STUDENT ASSIGNMENT and --until, --hours or "
              "--remove (or --list)", file=sys.stderr)
        return 2
    if args.remove:
        gone = remove_extension(args.root, args.student, args.assignment)
        print(f"{args.student} {args.assignment}: extension {gone.describe()} removed" if gone
              else f"{args.student} {args.assignment}: had no extension")
    elif args.until is None and args.hours is None:
        print("python -m course.grading extension: give --until WHEN, --hours N or --remove",
              file=sys.stderr)
        return 2
    else:
        ext = grant_extension(args.root, args.student, args.assignment, until=args.until, hours=args.hours)
        layout = course_layout(args.root)
        with gradebook(layout) as gb:
            due = gb.find_assignment(args.assignment).duedate
        print(f"{args.student} {args.assignment}: extension {ext.describe()}: due "
              + (f"{utc_text(ext.due(due))} (the assignment's due date is {utc_text(due)})" if due else
                 "- the assignment has no due date yet, so nobody is late"))
        if due is not None and ext.until is not None and ext.until <= due:
            print(f"note: {utc_text(ext.until)} is not after the assignment's due date: this "
                  "extension changes nothing unless the due date moves earlier")
    done = settle_course(args.root, assignments=[args.assignment])
    mine = done.get((args.student, args.assignment))
    if mine is not None and mine.graded:
        g = mine.grade
        print(f"{args.student} {args.assignment}: {g.score:g} / {g.max_score:g} now "
              f"({g.seconds_late / 3600:.1f} h late, penalty {g.penalty:g}); no code ran again")
    elif mine is not None and mine.status in ("out of date", "not graded"):
        print(f"{args.student} {args.assignment}: {mine.status} ({mine.reason})")
    return 0


def _approve_config(root: str, *, show_only: bool) -> int:
    import json

    from .job.approval import approve_config, config_diff, config_path, read_approval

    path = config_path(root)
    diff = config_diff(root)
    previous = read_approval(root)
    if not diff:
        print(f"{path} is the file approved on {previous.approved_at} by {previous.approved_by}")
    else:
        print(diff.rstrip("\n"))
    if show_only:
        return 0
    approval = approve_config(root)
    if previous is not None and previous.policy != approval.policy:
        print("the grading policy changes from\n" + json.dumps(previous.policy, indent=1)
              + "\nto")
    print("grading policy approved:\n" + json.dumps(approval.policy, indent=1))
    print(f"approved {path} (sha256 {approval.sha256[:16]}...); autograde and feedback will use it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
