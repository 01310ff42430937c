"""Benchmark: a synthetic class autograded in sandboxes (run it, it is not a test).

Builds a throw-away course directory with ``--students`` students, each handing in every
assignment, mixed like a real class: 60 % hand in the model solutions (every test cell,
hidden tests included, runs to the end), 25 % the untouched release (every check fails
early), 15 % a hostile notebook (the solutions plus a cell that tries to read the course,
plant code, fork a daemon and hog memory).  Then it times ``course.grading.autograde``
with ``--jobs`` parallel workers, and checks that every student got the expected score.

Usage::

    .venv/bin/python tests/benchmarks/bench_autograde.py [--students 100] [--jobs 2]
"""

from __future__ import annotations

import argparse
import os
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)

    import nbformat
    from nbgrader.api import Gradebook

    from course.grading.autograde import autograde
    from course.grading.course_dir import course_layout
    from course.grading.release import release
    from test_grading_support import copy_course, read_cells

    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as tmp:
        root = Path(tmp) / "course"
        os.environ["COURSE_GRADING_APPROVALS"] = str(Path(tmp) / "approvals")
        copy_course(root)                    # approved for grading, as make approve-config does
        release(root, release_directory=root / "regenerated")   # fills the gradebook
        expected = {}
        kinds = {"honest": 0, "wrong": 0, "hostile": 0}
        for k in range(args.students):
            kind = "honest" if k % 20 < 12 else "wrong" if k % 20 < 17 else "hostile"
            kinds[kind] += 1
            for solution in sorted((root / "solutions").glob("*/*.ipynb")):
                name = solution.parent.name
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
        import resource

        def cpu() -> float:
            own, kids = (resource.getrusage(resource.RUSAGE_SELF),
                         resource.getrusage(resource.RUSAGE_CHILDREN))
            return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

        start, cpu_start = time.perf_counter(), cpu()
        records = autograde(root, jobs=args.jobs)
        total, cpu_total = time.perf_counter() - start, cpu() - cpu_start
        layout = course_layout(root)
        wrong = []
        with Gradebook(layout.db_url, layout.course_id) as gb:
            for (student, assignment), score in expected.items():
                sub = gb.find_submission(assignment, student)
                got = sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades
                          if g.cell_type == "code")
                if got != score:
                    wrong.append((student, assignment, got, score))
    per = [r.seconds for r in records]
    by_assignment: dict[str, list[float]] = {}
    for r in records:
        by_assignment.setdefault(r.assignment, []).append(r.seconds)
    print(f"{args.students} students ({kinds}), {len(records)} submissions, {args.jobs} jobs, "
          f"{os.cpu_count()} cores: {total:.1f} s wall, {total / len(records):.2f} s per submission "
          f"(median {statistics.median(per):.2f} s per submission in a worker)")
    print(f"  CPU time (grader, workers and sandboxes): {cpu_total:.0f} s, "
          f"{cpu_total / len(records):.2f} s per submission; on 2 idle cores that is about "
          f"{cpu_total / 2:.0f} s of wall clock")
    slowest = max(records, key=lambda r: r.seconds)
    print(f"  in workers: {sum(per):.0f} s in all, slowest {slowest.seconds:.1f} s "
          f"({slowest.student}/{slowest.assignment})")
    for name, seconds in sorted(by_assignment.items()):
        print(f"  {name:<14} median {statistics.median(seconds):.2f} s")
    print("every score as expected" if not wrong else f"UNEXPECTED SCORES: {wrong[:10]}")


if __name__ == "__main__":
    main()
