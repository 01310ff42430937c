"""Benchmark: seconds per submission to autograde (run it, it is not a test).

Builds a throw-away course directory with ``--students`` copies of the
solutions of every assignment (so every test cell, hidden tests included,
runs to the end) and times ``course.grading.workflow.autograde`` on it.

Usage::

    .venv/bin/python tests/benchmarks/bench_autograde.py [--students 3] [--assignment a2_alphabeta]

Prints the wall-clock time per submission, over the whole run (the number
for planning a class: it includes starting the grading process) and per
submission as the grading report measures it.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--assignment", default=None, help="only this assignment")
    args = parser.parse_args(argv)

    from course.grading import workflow

    with tempfile.TemporaryDirectory(prefix="bench-autograde-") as tmp:
        root = Path(tmp)
        shutil.copytree(ROOT / "solutions", root / "solutions")
        shutil.copytree(ROOT / "exercises", root / "exercises")
        shutil.copy(ROOT / "nbgrader_config.py", root)
        workflow.release(root, release_directory=root / "regenerated")   # fills the gradebook
        for notebook in sorted((root / "solutions").glob("*/*.ipynb")):
            if args.assignment and notebook.parent.name != args.assignment:
                continue
            for k in range(args.students):
                target = root / "submitted" / f"student{k:03d}" / notebook.parent.name
                target.mkdir(parents=True)
                shutil.copy(notebook, target)
        start = time.perf_counter()
        records = workflow.autograde(root)
        total = time.perf_counter() - start
    per = [r.seconds for r in records]
    by_assignment: dict[str, list[float]] = {}
    for r in records:
        by_assignment.setdefault(r.assignment, []).append(r.seconds)
    print(f"{len(records)} submissions autograded in {total:.1f} s: "
          f"{total / len(records):.2f} s per submission overall, median {statistics.median(per):.2f} s "
          f"per submission in the grading report")
    for name, seconds in sorted(by_assignment.items()):
        print(f"  {name:<14} median {statistics.median(seconds):.2f} s")
    failed = [r for r in records if r.status != "graded"]
    if failed:
        print(f"warning: {len(failed)} submissions were not graded cleanly: {failed[0].reason}")


if __name__ == "__main__":
    main()
