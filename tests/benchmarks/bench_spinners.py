"""Benchmark: what spinning submissions cost a class's grading (run it, it is not a test).

Grades assignment 1 for ``--honest`` students handing in the model answers and ``--spinners``
students whose notebook adds cells that spin forever (``while True: pass``, each stopped at the
cell limit, the submission at its time limit), with ``--jobs`` workers and the submission time
limit ``--submission-timeout``.  Prints each kind's mean wall-clock time per submission (from
the grading report) and the estimate for a class of ``--class-size`` with ``--class-spinners``
spinners: (honest x h + spinners x s) / jobs, with the machine's load average.

Usage::

    .venv/bin/python tests/benchmarks/bench_spinners.py [--honest 6] [--spinners 1] [--jobs 2] \\
        [--submission-timeout 300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

SPIN = "while True:\n    pass\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--honest", type=int, default=6)
    parser.add_argument("--spinners", type=int, default=1)
    parser.add_argument("--spinning-cells", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--submission-timeout", type=float, default=None)
    parser.add_argument("--class-size", type=int, default=110)
    parser.add_argument("--class-spinners", type=int, default=10)
    args = parser.parse_args(argv)

    import nbformat

    from course.grading.job.autograde import autograde
    from course.grading.term.course_dir import course_layout
    from test_grading_run_class import A1, VALUE, _solution, _submit
    from test_grading_support import copy_course

    with tempfile.TemporaryDirectory(prefix="bench-spinners-") as tmp:
        root = copy_course(Path(tmp) / "course")
        for k in range(args.honest):
            _submit(root, f"honest{k:03d}", _solution())
        for k in range(args.spinners):
            nb = _solution()
            at = next(i for i, c in enumerate(nb.cells)
                      if c.metadata.get("nbgrader", {}).get("grade_id") == VALUE)
            for _ in range(args.spinning_cells):
                nb.cells.insert(at + 1, nbformat.v4.new_code_cell(SPIN))
            _submit(root, f"spinner{k:03d}", nb)
        started = time.perf_counter()
        autograde(root, jobs=args.jobs, submission_timeout=args.submission_timeout)
        wall = time.perf_counter() - started
        report = json.loads(course_layout(root).report.read_text())
    times = {"honest": [], "spinner": []}
    for entry in report.values():
        times["spinner" if entry["student"].startswith("spinner") else "honest"].append(entry["seconds"])
    h = statistics.mean(times["honest"])
    s = statistics.mean(times["spinner"]) if times["spinner"] else 0.0
    n, k, jobs = args.class_size, args.class_spinners, args.jobs
    print(f"load average {os.getloadavg()[0]:.1f}; {args.honest} honest + {args.spinners} spinners, "
          f"{jobs} jobs, submission limit {args.submission_timeout or 'default'}: {wall:.0f} s in all")
    print(f"per submission: honest {h:.1f} s (max {max(times['honest']):.1f}), spinner {s:.1f} s")
    print(f"a class of {n}: all honest ~{n * h / jobs / 60:.1f} min; with {k} spinners "
          f"~{((n - k) * h + k * s) / jobs / 60:.1f} min")


if __name__ == "__main__":
    main()
