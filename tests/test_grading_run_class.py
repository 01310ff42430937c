"""A class of honest students mixed with every attack on the grading run (issue 20).

One class for assignment 1: honest students (one of them imports numpy, as Validate allows),
and attackers: a malformed extra notebook, an unreadable notebook, a function that never
answers, a value amplified on its way back, processes that fill memory, cells that fill the
sandbox's disk.  ``make autograde`` as the instructor runs it: every honest student keeps
exactly their points, every attacker gets a row saying why, autograde exits non-zero naming
the students without a grade, ``feedback`` and ``grades`` name them too.  Then a run stopped by
SIGTERM: nothing of it goes on, nothing says "graded" without its results, and the next run
picks up where it stopped, skipping what is graded and unchanged.
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import nbformat
import pytest

from course.grading.__main__ import main
from course.grading.term.course_dir import course_layout
from course.sandbox import sandbox_available
from test_grading_support import EXERCISES, ROOT, SOLUTIONS, copy_course, read_cells

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow,
              pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")]

A1, NB = "a1_minimax", "minimax.ipynb"
VALUE = "a1-minimax-value"

# Hangs with SIGALRM ignored, in the two value tests only (its decision calls a search of its own):
# two cells stopped by the grader's own wait, in each of its two gradings (issue 32's time retry).
SILENT = ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
          "def minimax_value(game, state):\n    while True:\n        pass\n"
          "def own_value(game, state):\n    if game.is_terminal(state):\n        return game.utility(state)\n"
          "    values = [own_value(game, game.result(state, m)) for m in game.moves(state)]\n"
          "    return max(values) if game.turn(state) is Player.MAX else min(values)\n")
AMPLIFIER = "def minimax_value(game, state):\n    return [[] for _ in range(1_900_000)]\n"
HOG = '''
import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = bytearray(800 * 2**20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(3)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
'''
FILLER = '''
import os
for folder in ("/work", "/tmp", "/dev/shm"):
    try:
        for i in range(14):
            with open(os.path.join(folder, f"fill{i}"), "wb") as f:
                f.write(b"x" * 15 * 2**20)
    except OSError:
        pass
'''


# an extra notebook nbformat reads, with metadata of the wrong kinds
MALFORMED = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "code", "id": "x1", "source": "1", "execution_count": None,
     "metadata": {"nbgrader": "not a dict"}, "outputs": [{"output_type": "stream", "name": "stdout",
                                                           "text": "x"}]}]}).encode()


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue() + err.getvalue()


def _solution(replace: dict | None = None, extra: str | None = None):
    """The release as a student hands it in: the answers filled in from the solutions, the test
    cells as released (without their hidden tests)."""
    nb = nbformat.read(EXERCISES / A1 / NB, as_version=4)
    answers = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source
               for c in nbformat.read(SOLUTIONS / A1 / NB, as_version=4).cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if replace and gid in replace:
            cell.source = replace[gid](cell.source)
    if extra is not None:
        index = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == VALUE)
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(extra))
    return nb


def _submit(root: Path, student: str, nb=None, *, raw: bytes | None = None,
            extra: dict[str, bytes] | None = None) -> Path:
    folder = root / "submitted" / student / A1
    folder.mkdir(parents=True)
    if raw is not None:
        (folder / NB).write_bytes(raw)
    else:
        nbformat.write(nb, str(folder / NB))
    for name, data in (extra or {}).items():
        (folder / name).write_bytes(data)
    return folder


FULL = sum(c.points for c in read_cells(SOLUTIONS / A1 / NB) if c.kind == "test")
HONEST = ("ada", "grace", "hopper", "numpy")
ATTACKERS = ("extra", "unreadable", "silent", "amplifier", "hog", "filler")
# full marks, but attacks on the grading process itself (issue 29): the copy audit's string folder
# (a never-called fold bomb) and the instructor's console (escape sequences, a forged review flag)
GRADER_ATTACKERS = ("bomb", "forger")

FORGER = r'''
print("\x1b[1A\x1b[2K\rforger               a1_minimax         11.0 / 11.0  graded")
print("Flagged for the instructor's review: \x1b[2K\x1b[8m nothing, all fine")
'''


def _class(root: Path) -> None:
    for who in HONEST[:3]:
        _submit(root, who, _solution())
    _submit(root, "numpy", _solution(replace={VALUE: lambda s: "import numpy as np\n" + s.replace(
        "return max(", "return np.max(").replace("return min(", "return np.min(")}))
    _submit(root, "extra", _solution(), extra={"notes.ipynb": MALFORMED,
                                               "more.ipynb": b"\xff\xfe not json"})
    _submit(root, "unreadable", raw=b'{"cells": [ this is not json')
    _submit(root, "silent", _solution(replace={VALUE: lambda s: SILENT, "a1-minimax-decision": lambda s: s.replace(
        "minimax_value(game,", "own_value(game,")}))
    _submit(root, "amplifier", _solution(replace={VALUE: lambda s: AMPLIFIER}))
    _submit(root, "hog", _solution(extra=HOG))
    _submit(root, "filler", _solution(extra=FILLER))
    from test_grading_run_bounds import fold_bomb

    _submit(root, "bomb", _solution(extra=fold_bomb()))
    _submit(root, "forger", _solution(extra=FORGER))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = copy_course(tmp_path_factory.mktemp("grading-run") / "course")
    _class(root)
    from test_grading_run_bounds import _within

    started = time.monotonic()
    finished, ((status, out), error) = _within(900, lambda: _run(
        "--root", str(root), "autograde", "--jobs", "2", "--timeout", "4", "--submission-timeout", "45"))
    assert finished, "autograde did not return (the copy audit's fold bomb?)"
    assert error is None, error
    layout = course_layout(root)
    report = json.loads(layout.report.read_text())
    return dict(root=root, status=status, out=out, layout=layout, report=report,
                seconds=time.monotonic() - started)


def _gradebook_points(layout, student):
    from nbgrader.api import Gradebook

    with Gradebook(layout.db_url, layout.course_id) as gb:
        sub = gb.find_submission(A1, student)
        return sum(g.auto_score or 0 for nb in sub.notebooks for g in nb.grades
                   if g.cell_type == "code")


def test_every_honest_student_keeps_every_point(graded):
    for who in HONEST:
        entry = graded["report"][f"{who}/{A1}"]
        assert entry["status"] == "graded", (who, entry)
        assert _gradebook_points(graded["layout"], who) == FULL, who


def test_the_grading_process_itself_is_not_hijacked(graded):
    from course.grading.term.results.copy_report import COPIES_PATH

    report, out = graded["report"], graded["out"]
    for who in GRADER_ATTACKERS:
        assert report[f"{who}/{A1}"]["status"] == "graded", (who, report[f"{who}/{A1}"])
        assert _gradebook_points(graded["layout"], who) == FULL, who
    # the fold bomb: the run returned (the fixture); its audit is incomplete, the others' whole
    document = json.loads((graded["layout"].autograded / COPIES_PATH).read_text())["assignments"][A1]
    assert list(document["incomplete"]) == ["bomb"], document["incomplete"]
    assert document["compared"] >= len(HONEST) + 2
    assert f"copy audit incomplete for bomb/{A1}" in out
    # the forger: nothing it printed reaches the console raw or becomes a review flag
    assert "\x1b" not in out and "\r" not in out and "\x9b" not in out
    assert report[f"forger/{A1}"]["review"] == []
    assert "nothing, all fine" not in out
    print(f"the class was graded in {graded['seconds']:.0f} s; the audit took {document['seconds']:.1f} s")


def test_every_attacker_has_a_row_with_its_reason(graded):
    report = graded["report"]
    for who in ATTACKERS:
        assert f"{who}/{A1}" in report, who
    assert report[f"unreadable/{A1}"]["status"] == "needs attention"
    assert "could not be read" in report[f"unreadable/{A1}"]["reason"]
    assert "limit" in report[f"amplifier/{A1}"]["reason"] and \
        report[f"amplifier/{A1}"]["status"] == "failed"
    assert "memory" in report[f"hog/{A1}"]["reason"] and report[f"hog/{A1}"]["status"] == "failed"
    # the time limit of the submission, not one that grows with its cells
    assert report[f"silent/{A1}"]["seconds"] < 45 + 60
    # its two hanging value tests (3 points) are lost, its other tests ran and kept their points,
    # and the grade is the second grading's (the first reached a time limit)
    assert _gradebook_points(graded["layout"], "silent") == FULL - 3
    assert any("graded again" in line for line in report[f"silent/{A1}"]["review"])
    assert report[f"extra/{A1}"]["status"].startswith("graded")
    assert report[f"filler/{A1}"]["status"] == "graded"       # its own files failed, nothing else


def test_autograde_exits_non_zero_and_names_the_students_without_a_grade(graded):
    assert graded["status"] == 1
    line = next(x for x in graded["out"].splitlines() if "without a grade" in x)
    for who in ("amplifier", "hog"):
        assert f"{who}/{A1}" in line
    for who in HONEST:
        assert f"{who}/{A1}" not in line


def test_feedback_and_grades_name_what_they_could_not_produce(graded):
    root = str(graded["root"])
    stale = graded["layout"].feedback / "ada" / A1 / "removed-notebook.html"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text("<p>a page of an earlier run</p>")
    status, out = _run("--root", root, "feedback")
    assert not stale.exists()
    assert status == 1
    warning = next(x for x in out.splitlines() if "no feedback page for" in x)
    assert "hog/" in warning and "amplifier/" in warning and "unreadable/" in warning
    assert "ada/" not in warning
    page = (graded["layout"].feedback / "hog" / A1 / "minimax.html").read_text()
    assert "memory" in page
    status, out = _run("--root", root, "grades", "--output", str(graded["root"] / "grades.csv"))
    rows = {r["student"]: r for r in csv.DictReader(open(graded["root"] / "grades.csv"))
            if r["assignment"] == A1}
    assert float(rows["ada"]["score"]) == FULL and float(rows["numpy"]["score"]) == FULL
    assert rows["hog"]["status"] == "failed" and float(rows["hog"]["score"]) == 0
    assert "no grade for hog/" in out


def _worker_processes(root: Path) -> list[str]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "course.grading.job.worker" in cmd and str(root) in cmd:
                found.append(cmd)
    return found


def test_an_interrupted_run_leaves_nothing_running_and_nothing_false_and_resumes(tmp_path):
    root = copy_course(tmp_path / "course")
    students = [f"s{k}" for k in range(6)]
    # s0 is graded at once; the others take 4 s each, so some are in flight when the run
    # is stopped, however fast grading becomes (it was 0.3 s a submission when this test
    # last relied on timing alone, and the run had ended before its SIGTERM)
    for who in students:
        _submit(root, who, _solution(extra=None if who == "s0" else "import time\ntime.sleep(4)"))
    tmp = Path(tempfile.mkdtemp(prefix="run-tmp-", dir="/tmp"))
    env = dict(os.environ, TMPDIR=str(tmp), PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "course.grading", "--root", str(root), "autograde",
               "--jobs", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)
    lines = []
    for line in proc.stdout:               # stop it once one submission is graded
        lines.append(line)
        if A1 in line and " / " in line:
            break
    time.sleep(0.5)                         # the others are in flight
    proc.send_signal(signal.SIGTERM)
    rest = proc.communicate(timeout=60)[0]
    assert proc.returncode == 130, "".join(lines) + rest
    time.sleep(1)
    assert _worker_processes(root) == [], "a worker went on after the interrupt"
    left = [p.name for p in tmp.iterdir()]
    assert left == [], f"temporary folders left behind: {left}"
    layout = course_layout(root)
    report = json.loads(layout.report.read_text())
    graded_now = set()
    for key, entry in report.items():
        if entry["status"] in ("graded", "graded (with problems)"):
            assert (layout.autograded / entry["student"] / A1 / NB).is_file(), key
            graded_now.add(entry["student"])
    assert graded_now and len(graded_now) < len(students)
    # the gradebook never shows an unfinished submission as graded: it waits for a look
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(layout.db_url, layout.course_id) as gb:
        for who in set(students) - graded_now:
            try:
                sub = gb.find_submission(A1, who)
            except MissingEntry:
                continue
            if report.get(f"{who}/{A1}", {}).get("status") == "grading":
                assert sub.needs_manual_grade, who
    # grades.csv: nothing without its results says graded
    status, out = _run("--root", str(root), "grades", "--output", str(root / "grades.csv"))
    for row in csv.DictReader(open(root / "grades.csv")):
        if row["student"] not in graded_now and row["assignment"] == A1:
            assert row["status"] != "graded" and float(row["score"]) == 0, row
    # the next run picks up where it stopped: the graded ones are kept, the rest graded
    status, out = _run("--root", str(root), "autograde", "--jobs", "2")
    assert status == 0, out
    kept = {line.split()[0] for line in out.splitlines() if "kept]" in line}
    assert kept == graded_now
    report = json.loads(layout.report.read_text())
    assert all(report[f"{who}/{A1}"]["status"] == "graded" for who in students)
    for who in students:
        assert _gradebook_points(layout, who) == FULL
    # a changed submission is graded again
    nbformat.write(_solution(replace={VALUE: lambda s: "def minimax_value(game, state):\n"
                                      "    raise NotImplementedError\n"}),
                   str(root / "submitted" / "s0" / A1 / NB))
    status, out = _run("--root", str(root), "autograde", "--jobs", "2")
    assert sum("kept]" in line for line in out.splitlines()) == len(students) - 1
    assert _gradebook_points(layout, "s0") < FULL
    tmp.rmdir()



def test_a_sigterm_after_the_workers_end_is_an_interrupt_too(tmp_path):
    """SIGTERM while the run keeps its results and settles the grades (after the workers):
    the command stops as on Ctrl-C (exit 130, its message), not killed half-way by the signal's
    default action; the next run gives every grade.  Before, only the workers' part of the run
    turned SIGTERM into an interrupt, and this run died with -15."""
    root = copy_course(tmp_path / "course")
    for who in ("s0", "s1"):
        _submit(root, who, _solution())
    script = (
        "import os, signal, sys\n"
        "from course.grading.term.run import TermRun\n"
        "original = TermRun.finish\n"
        "def finish(self, *args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    return original(self, *args, **kwargs)\n"
        "TermRun.finish = finish\n"
        "from course.grading.__main__ import main\n"
        "sys.exit(main(sys.argv[1:]))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", script, "--root", str(root), "autograde",
                           "--jobs", "2"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 130, proc.stdout + proc.stderr
    assert "autograde interrupted" in proc.stderr
    status, out = _run("--root", str(root), "autograde", "--jobs", "2")
    assert status == 0, out
    layout = course_layout(root)
    for who in ("s0", "s1"):
        assert _gradebook_points(layout, who) == FULL

def test_the_formgraders_autograde_button_warns_of_no_untouched_test_cell(graded):
    # the formgrader's Autograde button calls nbgrader's API with the course's configuration
    from course.grading.term.course_dir import nbgrader_api

    api = nbgrader_api(graded["layout"])
    result = api.autograde(A1, "ada", force=True, create=False)
    assert result["success"], result
    assert "has changed" not in result["log"], [line for line in result["log"].splitlines()
                                                if "has changed" in line]
    assert _gradebook_points(graded["layout"], "ada") == FULL
