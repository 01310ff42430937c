"""What autograding a class leaves behind, as one JSON file: to compare two versions of the code.

Builds the benchmark's class (``bench_autograde.build_class``: honest, untouched and hostile
submissions) plus submissions that tamper with what nbgrader's sanitizing steps check (a test
cell edited, a test cell deleted, a cell's points raised, a test cell turned into markdown, a
cell with an unknown ``grade_id``, another kernelspec, duplicate cell ids, outputs planted;
each with a ``timestamp.txt``),
grades every one with the course's worker (one process, in order), and writes:

* every file under ``autograded/`` (path, mode, content; the course's folder written as ``ROOT``),
* the gradebook's rows for the submissions (students, submissions, notebooks, grades, comments:
  every column but the random ids),
* what the worker reported per job (success, limits, review flags, scores, error) and nbgrader's
  log lines (times taken out).

Run it on two versions of the code with the same ``--root`` and compare the outputs
(``--compare A B`` prints the differences and exits 1 if there are any)::

    .venv/bin/python tests/benchmarks/autograde_fingerprint.py --root /tmp/fp/course --out before.json
    (other version)
    .venv/bin/python tests/benchmarks/autograde_fingerprint.py --root /tmp/fp/course --out after.json
    .venv/bin/python tests/benchmarks/autograde_fingerprint.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_autograde as bench  # noqa: E402


def tamper(root: Path) -> list[tuple[str, str]]:
    """Submissions that exercise each of nbgrader's sanitizing checks; their jobs."""
    import nbformat

    jobs = []
    solutions = sorted((root / "solutions").glob("*/*.ipynb"))

    def hand_in(kind: str, solution: Path, change) -> None:
        nb = nbformat.read(solution, as_version=4)
        change(nb)
        target = root / "submitted" / f"tamper-{kind}" / solution.parent.name
        target.mkdir(parents=True, exist_ok=True)
        # as written, not repaired by nbformat (the duplicate ids stay duplicates)
        (target / solution.name).write_text(json.dumps(nb, indent=1))
        (target / "timestamp.txt").write_text(f"2026-03-{len(jobs) + 1:02d} 12:00:00.000000 UTC")
        jobs.append((f"tamper-{kind}", solution.parent.name))

    def tests(nb):
        return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
                and not c.metadata["nbgrader"].get("solution") and c.cell_type == "code"]

    def edit_test(nb):
        tests(nb)[0].source = "pass  # the student's own test\n"

    def delete_test(nb):
        nb.cells.remove(tests(nb)[-1])

    def raise_points(nb):
        tests(nb)[0].metadata.nbgrader["points"] = 100

    def to_markdown(nb):
        cell = tests(nb)[1]
        cell.cell_type = "markdown"
        cell.pop("outputs", None)
        cell.pop("execution_count", None)

    def unknown_id(nb):
        cell = nbformat.v4.new_code_cell("x = 1")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": "made-up", "locked": False,
                                     "points": 50, "solution": False, "schema_version": 3}
        nb.cells.insert(2, cell)

    def kernelspec(nb):
        nb.metadata["kernelspec"] = {"name": "evil", "display_name": "Evil", "language": "python"}

    def duplicate_ids(nb):
        for cell in nb.cells[1:4]:
            cell["id"] = nb.cells[0].get("id", "same")

    def outputs(nb):
        for cell in tests(nb):
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="all passed\n")]
            cell.execution_count = 7

    def unlock(nb):
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("locked"):
                cell.metadata.nbgrader["locked"] = False
                cell.source = "import os  # replaced\n" + cell.source
                break

    for k, change in enumerate((edit_test, delete_test, raise_points, to_markdown, unknown_id,
                                kernelspec, duplicate_ids, outputs, unlock)):
        hand_in(change.__name__.replace("_", "-"), solutions[k % len(solutions)], change)
    return jobs


def rows(root: Path) -> dict:
    """The gradebook's rows of every submission (ids left out)."""
    from nbgrader.api import Gradebook

    from course.grading.term.course_dir import course_layout

    layout = course_layout(root)
    out = {}
    with Gradebook(layout.db_url, layout.course_id) as gb:
        for student in sorted(gb.students, key=lambda s: s.id):
            out[f"student {student.id}"] = [student.first_name, student.last_name, student.email,
                                            student.lms_user_id]
            for sub in sorted(student.submissions, key=lambda s: s.assignment.name):
                key = f"{student.id}/{sub.assignment.name}"
                out[key] = {"timestamp": str(sub.timestamp), "extension": str(sub.extension)}
                for nb in sorted(sub.notebooks, key=lambda n: n.name):
                    out[key][nb.name] = {
                        "flagged": nb.flagged,
                        "late_submission_penalty": nb.late_submission_penalty,
                        "grades": sorted([g.name, g.cell_type, g.auto_score, g.manual_score,
                                          g.extra_credit, g.needs_manual_grade, g.max_score]
                                         for g in nb.grades),
                        "comments": sorted([c.name, c.auto_comment, c.manual_comment]
                                           for c in nb.comments),
                    }
    return out


def files(root: Path) -> dict:
    out = {}
    for path in sorted((root / "autograded").rglob("*")):
        if path.is_file():
            text = path.read_text(errors="replace").replace(str(root), "ROOT")
            text = _RANDOM_ID.sub('"id": "RANDOM"', text)     # nbformat's repair of duplicate ids
            out[str(path.relative_to(root))] = [oct(path.stat().st_mode), text]
    return out


_RANDOM_ID = re.compile(r'"id": "[0-9a-f]{8}"')
_TIME = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?")


def grade(root: Path, jobs: list[tuple[str, str]]) -> list:
    import warnings

    from course.grading.job import worker

    warnings.simplefilter("ignore")
    args = ["--root", str(root), "--submitted", str(root / "submitted")]
    for student, assignment in jobs:
        args += ["--job", f"{student}/{assignment}"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        worker.main(args)
    done = []
    for line in out.getvalue().splitlines():
        if line.startswith("{"):
            event = json.loads(line)
            if event["event"] == "done":
                event["log"] = [_TIME.sub("TIME", x).replace(str(root), "ROOT")
                                for x in event["log"].splitlines()]
                event["error"] = event["error"].replace(str(root), "ROOT")
                done.append(event)
    return done


def compare(a: Path, b: Path) -> int:
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    differences = 0
    for part in ("jobs", "files", "gradebook"):
        x, y = left[part], right[part]
        if isinstance(x, list):
            x, y = dict(enumerate(x)), dict(enumerate(y))
        for key in sorted(set(x) | set(y), key=str):
            if x.get(key) != y.get(key):
                differences += 1
                if differences <= 20:
                    print(f"{part} {key}:\n  {str(x.get(key))[:1500]}\n  {str(y.get(key))[:1500]}")
        print(f"{part}: {len(x)} entries, {'same' if x == y else 'DIFFERENT'}")
    return 1 if differences else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path)
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path)
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    root = args.root.resolve()
    if root.exists():
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    os.environ["COURSE_GRADING_APPROVALS"] = str(root.parent / "approvals")
    expected, _ = bench.build_class(root, args.students)
    jobs = sorted(expected) + tamper(root)
    done = grade(root, jobs)
    result = {"jobs": done, "files": files(root), "gradebook": rows(root)}
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True, default=str))
    print(f"{len(done)} jobs, {sum(j['success'] for j in done)} graded; written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
