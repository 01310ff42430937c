"""Benchmark: a synthetic class autograded in sandboxes (run it, it is not a test).

Builds a throw-away course directory with ``--students`` students, each handing in every
assignment, mixed like a real class: 60 % hand in the model solutions (every test cell,
hidden tests included, runs to the end), 25 % the untouched release (every check fails
early), 15 % a hostile notebook (the solutions plus a cell that tries to read the course,
plant code, fork a daemon and hog memory).  Then it times ``course.grading.job.autograde``
with ``--jobs`` parallel workers, and checks that every student got the expected score.

CPU time is what to compare on a shared machine (wall-clock time depends on what else
runs; the load average is printed).  Where the script may make a cgroup (Linux, cgroup v2,
as root or with a delegated cgroup) it counts the CPU of *every* process of the run,
sandboxes included; otherwise it falls back on ``getrusage``, which misses the sandboxes'
processes (they are killed, never waited for) and says so.

``--breakdown N`` then grades N submissions of each kind again in this process (one
worker's loop, no queue) and prints where one submission's CPU goes in the grading process:
nbgrader's steps, the gradebook, the sandbox's start, the student's calls, the rest of the
tests (the sandboxes' own processes are counted in the total above, not here).

Usage::

    .venv/bin/python tests/benchmarks/bench_autograde.py [--students 100] [--jobs 2]
        [--assignment a1_minimax] [--breakdown 20]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import io
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

HOSTILE = (
    "import os, glob, time\n"
    "found = [p for root in ('/work', '/tmp', '/root', '/home', '/srv', '/grader')\n"
    "         for p in glob.glob(root + '/**/*', recursive=True)]\n"
    "for p in glob.glob('/usr/lib/python3*/**/course/grading/__init__.py', recursive=True):\n"
    "    try:\n        open(p, 'a').write('# planted\\n')\n    except OSError:\n        pass\n"
    "try:\n    hog = bytearray(2 * 1024 ** 3)\nexcept MemoryError:\n    pass\n"
    "if os.fork() == 0:\n    os.setsid(); time.sleep(30); os._exit(0)\n"
    "print(found)\n"
)


def kind_of(k: int) -> str:
    """The kind of the ``k``-th student: 12 in 20 honest, 5 wrong, 3 hostile."""
    return "honest" if k % 20 < 12 else "wrong" if k % 20 < 17 else "hostile"


def build_class(root: Path, students: int, assignment: str | None = None
                ) -> tuple[dict[tuple[str, str], float], dict[str, int]]:
    """A course at ``root`` with its submissions; ``(expected scores, students by kind)``.

    Students are interleaved (honest000, wrong012, ...), so any first N of them in the
    order of their numbers are mixed roughly like the class.
    """
    import nbformat

    from course.grading.term.release import release
    from test_grading_support import copy_course, read_cells

    copy_course(root)                    # approved for grading, as make approve-config does
    release(root, release_directory=root / "regenerated")   # fills the gradebook
    expected = {}
    kinds = {"honest": 0, "wrong": 0, "hostile": 0}
    for k in range(students):
        kind = kind_of(k)
        kinds[kind] += 1
        for solution in sorted((root / "solutions").glob("*/*.ipynb")):
            name = solution.parent.name
            if assignment is not None and name != assignment:
                continue
            target = root / "submitted" / f"{kind}{k:03d}" / name
            target.mkdir(parents=True)
            points = sum(c.points for c in read_cells(solution) if c.kind == "test")
            if kind == "wrong":
                shutil.copy(root / "exercises" / name / solution.name, target)
                expected[(target.parent.name, name)] = 0.0
                continue
            nb = nbformat.read(solution, as_version=4)
            if kind == "hostile":
                nb.cells.insert(3, nbformat.v4.new_code_cell(HOSTILE))
            nbformat.write(nb, str(target / solution.name))
            expected[(target.parent.name, name)] = points
    return expected, kinds


# -- CPU time of every process of the run -------------------------------------------------------
class CpuMeter:
    """CPU seconds of this process and everything it starts.

    With a cgroup (v2) of its own, every process is counted, also those killed and never
    waited for (the sandboxes); else ``getrusage``: this process and the children it waited
    for (the workers, not the sandboxes inside them).
    """

    def __init__(self) -> None:
        self.cgroup: Path | None = None
        for mount in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
            if not (mount / "cgroup.procs").is_file() or not (mount / "cgroup.controllers").exists():
                continue                  # not a cgroup v2 hierarchy
            try:
                here = Path(open("/proc/self/cgroup").read().splitlines()[-1].split(":", 2)[2])
                group = mount / here.relative_to("/") / f"bench-autograde-{os.getpid()}"
                group.mkdir()
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self.cgroup, self.parent = group, group.parent
                break
            except (OSError, ValueError, IndexError):
                with contextlib.suppress(OSError, UnboundLocalError):
                    group.rmdir()
        self.kind = "cgroup: every process counted" if self.cgroup else \
            "getrusage: the sandboxes' processes are NOT counted"

    def total(self) -> float:
        if self.cgroup is not None:
            for line in (self.cgroup / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec"):
                    return int(line.split()[1]) / 1e6
        return self.own() + self.children()

    @staticmethod
    def own() -> float:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime

    @staticmethod
    def children() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    def close(self) -> None:
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                (self.parent / "cgroup.procs").write_text(str(os.getpid()))
                time.sleep(0.2)
                self.cgroup.rmdir()


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


# -- where one submission's CPU goes --------------------------------------------------------------
def phase_cpu(root: Path, jobs: list[tuple[str, str]]) -> tuple[dict[str, float], dict[str, float]]:
    """Grade ``jobs`` with one worker's loop in this process: ``(CPU s, calls)`` per phase and job.

    The sandboxes' own processes are not included (they are other processes).
    """
    import nbformat
    from nbconvert.preprocessors import base as pp_base
    from nbconvert.writers import FilesWriter
    from nbgrader.apps import NbGraderAPI
    from nbgrader.converters import autograde as nb_autograde, base as nb_base

    from course.grading.job import sandboxed, worker
    from course.sandbox import session

    cpu: collections.Counter = collections.Counter()
    calls: collections.Counter = collections.Counter()
    stack: list[str] = []

    def wrap(owner, name, label):
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args, **kwargs):
            key = label(args) if callable(label) else label
            start = time.process_time()
            stack.append(key)
            try:
                return original(*args, **kwargs)
            finally:
                stack.pop()
                spent = time.process_time() - start
                cpu[key] += spent                   # self time: the callee's is taken off
                calls[key] += 1
                if stack:
                    cpu[stack[-1]] -= spent
        setattr(owner, name, timed)
        return original

    rest = "nbgrader: the rest (API, logs, files, loop)"
    patches = [
        (worker, "_grade", rest),
        (NbGraderAPI, "autograde", rest),
        (nb_autograde.Autograde, "init_assignment", "nbgrader: gradebook set-up (student, submission)"),
        (nb_base.BaseConverter, "set_permissions", rest),
        (pp_base.Preprocessor, "__call__", lambda a: f"nbgrader step {type(a[0]).__name__}"),
        (FilesWriter, "write", rest),
        (nbformat, "read", "nbgrader: read notebook"),
        (sandboxed, "grade_notebook", "tests: the grader's side (checks, reference searches)"),
        (session.StudentSession, "start", "sandbox: start (folder, bwrap)"),
        (session.StudentSession, "load", "sandbox: run the cells"),
        (session.StudentSession, "close", "sandbox: stop"),
        (session.StudentSession, "_fork", "sandbox: a process per test"),
        (session.StudentSession, "_join", "sandbox: a process per test"),
        (session.StudentSession, "call", "tests: the student's functions (protocol)"),
    ]
    originals = [(owner, name, wrap(owner, name, label)) for owner, name, label in patches
                 if hasattr(owner, name)]
    start = time.process_time()
    args = ["--root", str(root), "--submitted", str(root / "submitted")]
    for student, assignment in jobs:
        args += ["--job", f"{student}/{assignment}"]
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            worker.main(args)
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)
    n = len(jobs)
    cpu["all"] = time.process_time() - start
    return {k: v / n for k, v in cpu.items()}, {k: v / n for k, v in calls.items()}


def breakdown(root: Path, expected: dict[tuple[str, str], float], per_kind: int) -> None:
    """Print where one submission's CPU goes in the grading process, by kind of submission."""
    import warnings

    warnings.simplefilter("ignore")
    kinds = ("honest", "wrong", "hostile")
    weights = {"honest": 12 / 20, "wrong": 5 / 20, "hostile": 3 / 20}
    found = {}
    for kind in kinds:
        jobs = sorted(job for job in expected if job[0].startswith(kind))[:per_kind]
        if jobs:
            found[kind] = phase_cpu(root, jobs)
    if not found:
        return
    keys = sorted({k for cpu, _ in found.values() for k in cpu} - {"all"},
                  key=lambda k: -sum(found[kind][0].get(k, 0) for kind in found))
    print(f"\nWhere the grading process's CPU goes, s per submission ({per_kind} of each kind graded "
          "again in this process; its sandboxes' processes not included):")
    print(f"  {'':56}" + "".join(f"{kind:>9}" for kind in found) + "  class mix")

    def row(label, values):
        mix = sum(weights[kind] * values[kind] for kind in found) / sum(weights[k] for k in found)
        print(f"  {label[:56]:56}" + "".join(f"{values[kind]:9.3f}" for kind in found)
              + f"  {mix:9.3f}")

    for key in keys:
        values = {kind: found[kind][0].get(key, 0.0) for kind in found}
        if max(values.values()) >= 0.001:
            row(key, values)
    row("all", {kind: found[kind][0]["all"] for kind in found})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--assignment", default=None, help="only this assignment")
    parser.add_argument("--breakdown", type=int, default=0, metavar="N",
                        help="then grade N submissions of each kind again in this process and "
                             "show where its CPU goes")
    args = parser.parse_args(argv)

    from nbgrader.api import Gradebook

    from course.grading.job.autograde import autograde
    from course.grading.term.course_dir import course_layout

    meter = CpuMeter()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-autograde-") as tmp:
            root = Path(tmp) / "course"
            os.environ["COURSE_GRADING_APPROVALS"] = str(Path(tmp) / "approvals")
            expected, kinds = build_class(root, args.students, args.assignment)
            load_before = load()
            start, cpu_start = time.perf_counter(), meter.total()
            own_start, children_start = meter.own(), meter.children()
            records = autograde(root, jobs=args.jobs)
            total, cpu_total = time.perf_counter() - start, meter.total() - cpu_start
            own, children = meter.own() - own_start, meter.children() - children_start
            load_after = load()
            layout = course_layout(root)
            wrong = []
            with Gradebook(layout.db_url, layout.course_id) as gb:
                for (student, assignment), score in expected.items():
                    sub = gb.find_submission(assignment, student)
                    got = sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades
                              if g.cell_type == "code")
                    if got != score:
                        wrong.append((student, assignment, got, score))
            report(args, kinds, records, total, cpu_total, own, children, meter,
                   load_before, load_after, wrong)
            if args.breakdown:
                breakdown(root, expected, args.breakdown)
    finally:
        meter.close()


def report(args, kinds, records, total, cpu_total, own, children, meter, load_before,
           load_after, wrong) -> None:
    n = len(records)
    per = [r.seconds for r in records]
    by_assignment: dict[str, list[float]] = {}
    for r in records:
        by_assignment.setdefault(r.assignment, []).append(r.seconds)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"{args.students} students ({kinds}), {n} submissions, {args.jobs} jobs, {cores} cores, "
          f"load average {load_before} before, {load_after} after: {total:.1f} s wall, "
          f"{total / n:.2f} s per submission (median {statistics.median(per):.2f} s per "
          "submission in a worker)")
    print(f"  CPU time ({meter.kind}): {cpu_total:.1f} s, {cpu_total / n:.3f} s per submission; "
          f"on {cores} idle cores that is about {cpu_total / max(1, min(cores, args.jobs)):.0f} s "
          "of wall clock")
    if meter.cgroup is not None:
        print(f"    grading process {own / n:.3f} s, workers {children / n:.3f} s, sandboxes "
              f"{(cpu_total - own - children) / n:.3f} s per submission")
    else:
        print(f"    grading process {own / n:.3f} s, workers {children / n:.3f} s per submission")
    slowest = max(records, key=lambda r: r.seconds)
    print(f"  in workers: {sum(per):.0f} s in all, slowest {slowest.seconds:.1f} s "
          f"({slowest.student}/{slowest.assignment})")
    for name, seconds in sorted(by_assignment.items()):
        print(f"  {name:<14} median {statistics.median(seconds):.2f} s")
    print("every score as expected" if not wrong else f"UNEXPECTED SCORES: {wrong[:10]}")


if __name__ == "__main__":
    main()
