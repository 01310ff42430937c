"""The term simulator: random sequences of a term's operations, each ending with ``grades.csv``
compared with a regrade of everything from scratch.

A tiny class (tests/term_support.py: three students, one assignment with a visible and a hidden
test and a written answer) goes through a seeded random sequence of what happens in a term:
a hidden test changed (and released), points changed, an extension granted or removed, a
written answer graded by hand (through nbgrader's gradebook, as the formgrader does), a late
resubmission imported from an LMS zip, a student removed, the late rule, its base or the
resubmission policy changed, the due date moved, ``autograde`` and ``grades`` run.  Each
sequence ends as the documented path says -- ``make autograde`` (no flag), ``make grades`` --
and the file must be byte for byte the one a new course directory makes from the same inputs
alone: the source, the secret, the roster, every version handed in (``versions/``), the due
date and extensions (through the commands) and the hand grades (given to the same answers),
graded with ``autograde --regrade`` on a new gradebook.  Along the way it also checks that

* every submission handed in is kept as a version;
* a ``grades.csv`` written in the middle of a sequence never shows a grade that the
  from-scratch regrade would change: such a row says ``out of date`` (or ``not graded``);
* an ``autograde`` after changes of the rules alone (extension, hand grade, late rule, due
  date, resubmission policy) runs no student code.

``make test`` runs :data:`SEQUENCES` sequences of :data:`OPERATIONS` operations (two at a time,
one process each: grading is mostly waiting); ``TERM_SIMULATOR_SEQUENCES=n`` (and
``TERM_SIMULATOR_OPERATIONS``, ``TERM_SIMULATOR_SEED``) run more.  The numbers tried are printed.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from term_support import A, CODE, NB, WRITTEN, WRITTEN_ID, due_date, give_hand_grade, grades, lms_zip, \
    ok, set_rules, tiny_class, write_source  # noqa: E402

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

SEQUENCES = int(os.environ.get("TERM_SIMULATOR_SEQUENCES", "6"))
OPERATIONS = int(os.environ.get("TERM_SIMULATOR_OPERATIONS", "9"))
SEED = int(os.environ.get("TERM_SIMULATOR_SEED", "2028"))
STUDENTS = ("ada", "bob", "cy")

#: Operations and their weights.
OPS = {"resubmit": 3, "hand": 3, "extend": 2, "unextend": 1, "rules": 2, "policy": 2, "hidden": 2,
       "points": 1, "due": 1, "remove": 1, "autograde": 3, "grades": 1}
#: A submission graded (its code run) in autograde's output: ``[1.3 s]``.
GRADED_LINE = re.compile(r"\[\d+\.\d+ s\]")
#: Operations that change only the term's rules: an autograde after them runs no code.
RULES_ONLY = {"hand", "extend", "unextend", "rules", "policy", "due", "grades"}


@dataclass
class Model:
    """What the instructor did: the inputs of every grade."""

    students: list[str]
    due: dt.datetime
    hidden: str = "negatives"
    points: float = 2
    rules: dict = field(default_factory=lambda: {"percent": 10, "base": "all", "policy": "latest"})
    extensions: dict = field(default_factory=dict)
    hand: dict = field(default_factory=dict)                  # (student, answer) -> points
    handed_in: dict = field(default_factory=dict)             # student -> [(when, code, written)]


def _start(root: Path, rng: random.Random) -> Model:
    due = due_date()
    first = {s: (rng.choice(list(CODE)), rng.choice(WRITTEN), due - dt.timedelta(hours=rng.choice((30, 2))))
             for s in STUDENTS}
    tiny_class(root, first)
    model = Model(list(STUDENTS), due)
    model.handed_in = {s: [(w, c, t)] for s, (c, t, w) in first.items()}
    ok(root, "autograde", "--jobs", "1")
    return model


def _step(root: Path, model: Model, op: str, rng: random.Random, log: list[str]) -> str:
    """Do one operation; the words for the log (or "" if it did not apply)."""
    students = model.students
    if op == "resubmit":
        student = rng.choice(students)
        when = model.due + dt.timedelta(hours=rng.choice((-20, -1, 3, 26, 50)), minutes=2 * rng.randrange(30))
        code, written = rng.choice(list(CODE)), rng.choice(WRITTEN)
        zipped = lms_zip(root.parent / f"{root.name}-upload.zip", student, code, written, when)
        ok(root, "collect-zip", str(zipped), "--assignment", A, "--submissions", str(root / "submitted"),
           "--timezone", "UTC")
        model.handed_in.setdefault(student, []).append((when, code, written))
        return f"resubmit {student} {code} {when:%m-%d %H:%M}"
    if op == "hand":
        import json

        from course.grading.term.results.report import GRADED

        report = json.loads((root / "autograded/.course-grading/report.json").read_text())
        graded = [s for s in students if report.get(f"{s}/{A}", {}).get("status") in GRADED
                  and (root / "autograded" / s / A).is_dir()]
        if not graded:
            return ""
        student, score = rng.choice(graded), rng.choice((0.0, 0.5, 1.0, 2.0))
        model.hand[(student, give_hand_grade(root, student, score))] = score
        return f"hand {student} {score}"
    if op == "extend":
        student = rng.choice(students)
        if rng.random() < 0.5:
            hours = rng.choice((4, 30, 60))
            ok(root, "extension", student, A, "--hours", str(hours))
            model.extensions[student] = ("--hours", str(hours))
        else:
            until = model.due + dt.timedelta(hours=rng.choice((10, 40)))
            ok(root, "extension", student, A, "--until", until.strftime("%Y-%m-%d %H:%M UTC"))
            model.extensions[student] = ("--until", until.strftime("%Y-%m-%d %H:%M UTC"))
        return f"extend {student} {' '.join(model.extensions[student])}"
    if op == "unextend":
        if not model.extensions:
            return ""
        student = rng.choice(sorted(model.extensions))
        ok(root, "extension", student, A, "--remove")
        del model.extensions[student]
        return f"unextend {student}"
    if op == "rules":
        model.rules.update(percent=rng.choice((10, 25)), base=rng.choice(("all", "autograded")))
        set_rules(root, **model.rules)
        return f"rules {model.rules['percent']} % of {model.rules['base']}"
    if op == "policy":
        model.rules["policy"] = rng.choice(("latest", "latest-before-due", "best"))
        set_rules(root, **model.rules)
        return f"policy {model.rules['policy']}"
    if op in ("hidden", "points"):
        if op == "hidden":
            model.hidden = "fractions" if model.hidden == "negatives" else "negatives"
        else:
            model.points = 3 if model.points == 2 else 2
        write_source(root, hidden=model.hidden, points=model.points)
        ok(root, "release")
        return f"{op} {model.hidden} {model.points:g}"
    if op == "due":
        model.due += dt.timedelta(hours=rng.choice((-24, -3, 3, 24)))
        ok(root, "due-date", A, model.due.strftime("%Y-%m-%d %H:%M UTC"))
        return f"due {model.due:%m-%d %H:%M}"
    if op == "remove":
        if len(students) <= 2:
            return ""
        student = rng.choice(students)
        ok(root, "remove-student", student, "--yes")
        students.remove(student)
        model.extensions.pop(student, None)
        model.hand = {k: v for k, v in model.hand.items() if k[0] != student}
        model.handed_in.pop(student, None)
        return f"remove {student}"
    if op == "autograde":
        out = ok(root, "autograde", "--jobs", "1")
        return f"autograde ({len(GRADED_LINE.findall(out))} graded)"
    if op == "grades":
        return "grades"
    raise AssertionError(op)


def _from_scratch(root: Path, model: Model) -> tuple[str, dict]:
    """A new course directory from the inputs alone, everything graded again."""
    from course.grading.term.course_dir import course_layout
    from course.grading.term.store import HandGrades

    fresh = root.parent / f"{root.name}-from-scratch"
    fresh.mkdir()
    for name in ("solutions", "exercises", "versions"):
        if (root / name).is_dir():
            shutil.copytree(root / name, fresh / name)
    for name in ("nbgrader_config.py", "roster.csv", ".grading-secret"):
        shutil.copy(root / name, fresh / name)
    (fresh / "submitted").mkdir()                   # filled from versions/ by autograde
    ok(fresh, "approve-config")
    ok(fresh, "due-date", A, model.due.strftime("%Y-%m-%d %H:%M UTC"))
    for student, (flag, value) in sorted(model.extensions.items()):
        ok(fresh, "extension", student, A, flag, value)
    hand = HandGrades(course_layout(fresh))
    for (student, answer), score in sorted(model.hand.items()):
        hand.give(student, A, NB, WRITTEN_ID, answer, manual_score=score)
    hand.save()
    ok(fresh, "autograde", "--jobs", "1", "--regrade")
    return grades(fresh)


def _kept_versions(root: Path, model: Model) -> None:
    """Every submission handed in is a version in versions/."""
    from course.grading.term.versions import versions

    for student in model.students:
        kept = {(v.timestamp.replace(microsecond=0), v.files) for v in versions(root, student, A)}
        handed = {w.replace(second=w.second // 2 * 2) for w, _, _ in model.handed_in[student]}
        assert handed <= {w for w, _ in kept}, (student, handed, kept)


def run_sequence(number: int, seed: int, operations: int, base: str) -> dict:
    """One sequence in its own folder; what it did (raises on a difference, with the sequence's
    operations: ``TERM_SIMULATOR_SEED=seed`` replays it)."""
    log: list[str] = [f"sequence {number} (seed {seed})"]
    try:
        return _run_sequence(number, seed, operations, base, log)
    except AssertionError as exc:
        raise AssertionError("\n".join(log) + f"\n{exc}") from None


def _run_sequence(number: int, seed: int, operations: int, base: str, log: list[str]) -> dict:
    rng = random.Random(seed * 1000 + number)
    root = Path(base) / f"seq{number}" / "course"
    root.parent.mkdir(parents=True)
    started = time.perf_counter()
    model = _start(root, rng)
    since_autograde: set[str] = set()
    for _ in range(operations):
        op = rng.choices(list(OPS), weights=list(OPS.values()))[0]
        said = _step(root, model, op, rng, log)
        if not said:
            continue
        log.append(said)
        if op == "autograde":
            if since_autograde and since_autograde <= RULES_ONLY:
                assert said.endswith("(0 graded)"), "code ran after changes of the rules alone:\n" + "\n".join(log)
            since_autograde = set()
        else:
            since_autograde.add(op)
        if op == "grades":
            grades(root, "middle.csv")
    _kept_versions(root, model)
    _, before = grades(root, "before.csv")            # the inputs are final: only autograde is left
    out = ok(root, "autograde", "--jobs", "1")
    log.append(f"autograde ({len(GRADED_LINE.findall(out))} graded)")
    text, rows = grades(root)
    expected_text, expected = _from_scratch(root, model)
    assert text == expected_text, "\n".join(log + ["grades.csv:", text, "from scratch:", expected_text])
    for key, row in before.items():
        # a grade shown before autograde ran is the right one, or says it is out of date
        if row["status"] not in ("out of date", "not graded"):
            assert row == expected[key], "\n".join(log + [f"before the last autograde: {row}",
                                                          f"from scratch: {expected[key]}"])
    return {"operations": len(log) - 1, "log": log, "seconds": round(time.perf_counter() - started, 1)}


def test_the_term_simulator_finds_grades_equal_to_a_regrade_from_scratch(capsys):
    import multiprocessing
    import resource

    with tempfile.TemporaryDirectory(prefix="term-simulator-") as base:
        started = time.perf_counter()
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
            found = list(pool.map(run_sequence, range(SEQUENCES), [SEED] * SEQUENCES,
                                  [OPERATIONS] * SEQUENCES, [base] * SEQUENCES))
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        with capsys.disabled():
            print(f"\nterm simulator: {len(found)} sequences, {sum(f['operations'] for f in found)} "
                  f"operations, each sequence's grades.csv equal to a regrade from scratch "
                  f"({time.perf_counter() - started:.0f} s wall, "
                  f"{used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime:.0f} s CPU; "
                  f"load {os.getloadavg()[0]:.1f})")
            for f in found:
                print(f"  {f['seconds']:.0f} s: " + "; ".join(f["log"]))
