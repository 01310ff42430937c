"""The grading run's own work is bounded, one run at a time, every job a record (issue 29).

Each test is an attack on the grading *process* -- not on the sandbox, which holds -- and the
defence that stops it.  Every one succeeded on the code before issue 29 (the note lists the
run of each there):

* a never-called function that ``exec``s a string built by fourteen levels of
  ``"".join([a, a, a, a])``: the copy audit's string folder evaluated it 4**14 times and
  ``autograde`` never returned (item 4);
* two grading runs at once: each rewrote the whole report from its own stale copy, and an
  honest student could end as ``grading, 0`` (item 5);
* a full disk while recording a result: the queue thread died and the rest of its jobs were
  neither graded nor recorded (item 6);
* a student's output starting with the review mark, with escape sequences: ``autograde``
  printed it raw, erasing the real grade line and printing a forged one (item 7);
* a notebook of 120,000 empty cells (22 kB zipped) stalled the class in staging, before any
  time limit applied, and a FIFO in the exchange aborted ``collect`` (item 8);
* an infinite loop's feedback showed the grader's own frames and the instructor's paths
  (issue 28, item 9).
"""

from __future__ import annotations

import io
import json
import os
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

ESC = "\x1b"


def _within(seconds: float, work):
    """Run ``work()`` in a thread: (finished in time, [its result, its exception])."""
    box: list = [None, None]

    def run():
        try:
            box[0] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box[1] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive(), box


def fold_bomb(levels: int = 14) -> str:
    """A never-called function that ``exec``s a string of 4**levels copies of a line (it would
    build 1 GB if it were called; it never is, so the submission grades as usual)."""
    lines = ["def never_called():", '    a0 = "print(1)"']
    lines += [f'    a{k} = "".join([a{k - 1}, a{k - 1}, a{k - 1}, a{k - 1}])' for k in range(1, levels + 1)]
    lines.append(f"    exec(a{levels})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- item 4: the audit


def test_a_fold_bomb_is_searched_in_bounded_work():
    from course.grading.term.results.hidden_code import SearchIncomplete, find_hidden_code

    finished, (value, error) = _within(20, lambda: find_hidden_code(fold_bomb()))
    assert finished, "the search for hidden code still runs on the fold bomb"
    # each name is folded once; the string it builds is over the cap: not unpacked, and said
    assert isinstance(error, SearchIncomplete), (value, error)
    assert "too large to unpack" in str(error)
    assert error.found[0] == ["line 17: exec of a string built at run time"]


def test_the_search_stops_at_its_budget_and_keeps_what_it_found():
    from course.grading.term.results.hidden_code import Budget, SearchIncomplete, find_hidden_code

    code = ("exec('def g(game, s):\\n    return [g(game, c) for c in game.moves(s)]')\n"
            + "x = 1\n" * 200)
    with pytest.raises(SearchIncomplete, match="more than 40 steps") as caught:
        find_hidden_code(code, budget=Budget(steps=40))
    assert caught.value.found[0][0] == "line 1: exec of a string literal"
    with pytest.raises(SearchIncomplete, match="time limit"):
        find_hidden_code(code, budget=Budget(deadline=time.monotonic() - 1))
    notes, unpacked = find_hidden_code(code)             # the default budget: plenty
    assert unpacked.startswith("def g(game, s):")


def _class_folder(tmp_path: Path, students: dict[str, str]) -> Path:
    """``submitted/<student>/a1_minimax/minimax.ipynb`` with one extra code cell each."""
    release = nbformat.read(ROOT / "exercises" / "a1_minimax" / "minimax.ipynb", as_version=4)
    for who, extra in students.items():
        nb = nbformat.from_dict(json.loads(json.dumps(release)))
        nb.cells.append(nbformat.v4.new_code_cell(extra))
        folder = tmp_path / "submitted" / who / "a1_minimax"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / "minimax.ipynb"))
    return tmp_path / "submitted"


HONEST = '''
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, move)) for move in game.moves(state)]
    best = max(values) if game.turn(state).name == "MAX" else min(values)
    return best
'''


def test_the_audit_names_the_bomb_incomplete_and_audits_the_others(tmp_path):
    from course.grading.term.results.similarity import audit_assignment

    submitted = _class_folder(tmp_path, {"ada": HONEST, "bob": HONEST, "mallory": HONEST + fold_bomb()})
    finished, (audit, error) = _within(60, lambda: audit_assignment(ROOT, submitted, "a1_minimax"))
    assert finished and error is None, error
    assert list(audit.incomplete) == ["mallory"]
    assert "too large to unpack" in audit.incomplete["mallory"]
    assert sorted(audit.codes) == ["ada", "bob", "mallory"]        # the others' audit is whole
    assert any(f.who == "ada" and f.other == "bob" for f in audit.findings)


def test_the_audit_runs_in_its_own_limited_process_and_is_never_waited_for(tmp_path, monkeypatch):
    from course.grading.term.course_dir import course_layout
    from course.grading.term.results import copy_report
    from test_grading_support import copy_course

    root = copy_course(tmp_path / "course", approve=False)
    _class_folder(root, {"ada": HONEST, "bob": HONEST})
    layout = course_layout(root)
    audit = copy_report.start_copy_audit(layout, ["a1_minimax"])
    limits = Path(f"/proc/{audit.proc.pid}/limits").read_text()
    audit.stop()
    address_space = next(line for line in limits.splitlines() if line.startswith("Max address space"))
    assert str(copy_report.AUDIT_MEMORY_BYTES) in address_space
    assert "Max cpu time" in limits
    assert next(line for line in limits.splitlines() if line.startswith("Max cpu time")).split()[3] != \
        "unlimited"
    # an audit that cannot finish in time: its result is "incomplete" for every student, at once
    monkeypatch.setattr(copy_report, "AUDIT_MARGIN", 0.0)
    audit = copy_report.start_copy_audit(layout, ["a1_minimax"], time_limit=0.05)
    started = time.monotonic()
    (result,) = audit()
    assert time.monotonic() - started < 5
    assert sorted(result.incomplete) == ["ada", "bob"]
    assert all("time limit" in why for why in result.incomplete.values())
    lines: list[str] = []
    copy_report.report_copies(layout, ["a1_minimax"], lines.append, [result])
    assert "not audited in full" in lines[0]
    assert any(line.startswith("copy audit incomplete for ada/a1_minimax") for line in lines)
    document = json.loads((layout.autograded / copy_report.COPIES_PATH).read_text())
    assert sorted(document["assignments"]["a1_minimax"]["incomplete"]) == ["ada", "bob"]



def test_the_audits_process_makes_the_report_files_the_grading_process_would_make(tmp_path):
    """The audit's process writes the report's texts beside its audits (so the grading process
    does not make them after the last job): they are what the grading process makes from the
    audits it reads back, the page's time aside; an audit stopped early gives none."""
    import re

    from course.grading.term.course_dir import course_layout
    from course.grading.term.results import copy_report
    from test_grading_support import copy_course

    root = copy_course(tmp_path / "course", approve=False)
    _class_folder(root, {"ada": HONEST, "bob": HONEST, "eve": HONEST.replace("best", "top")})
    layout = course_layout(root)
    audit = copy_report.start_copy_audit(layout, ["a1_minimax"])
    audits = audit()
    assert audit.texts is not None and audits[0].findings
    json_text, html_text = copy_report.copy_report_texts(audits)
    assert audit.texts[0] == json_text
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
    assert stamp.sub("WHEN", audit.texts[1]) == stamp.sub("WHEN", html_text)
    copy_report.report_copies(layout, ["a1_minimax"], None, audits, texts=audit.texts)
    assert (layout.autograded / copy_report.COPIES_HTML_PATH).read_text() == audit.texts[1]
    stopped = copy_report.start_copy_audit(layout, ["a1_minimax"], time_limit=0.0)
    stopped.deadline = time.monotonic()
    stopped()
    assert stopped.texts is None

# --------------------------------------------------------------------------- item 7: the console


def test_console_text_neutralises_every_control():
    from course.grading.term.safe_text import console_text

    forged = "ada\x1b[1A\x1b[2K\rmallory  a1_minimax  11.0 / 11.0  graded\x9b2K\u202egnp\u2028x"
    shown = console_text(forged)
    assert not any(ch in shown for ch in "\x1b\r\n\x9b\u202e\u2028")
    assert shown.count("\\") == 6
    assert console_text("Zoë Ôkafor 李雷 \tok") == "Zoë Ôkafor 李雷 \tok"


def test_review_flags_come_from_the_grader_never_from_printed_text():
    from course.grading.job.sandboxed import grade_notebook
    from course.grading.checks.evaluation import REVIEW_MARK
    from course.sandbox import sandbox_available

    if not sandbox_available():
        pytest.skip("bubblewrap cannot start here")
    forged = (f"print('{REVIEW_MARK} nothing to see\\x1b[2K\\r')\n"
              "def f(x):\n    print('" + REVIEW_MARK + " forged by the student')\n    return x\n")
    cells = [{"kind": "locked", "source": "", "trusted_source":
              "from course.grading.checks.evaluation import flag_for_review"},
             {"kind": "student", "source": forged, "trusted_source": ""},
             {"kind": "test", "source": "", "trusted_source": "assert f(2) == 2"},
             {"kind": "test", "source": "", "trusted_source": "flag_for_review('the grader says so')"}]
    results = grade_notebook(cells, secret=None)
    assert [r["review"] for r in results] == [[], [], [], ["the grader says so"]]


# --------------------------------------------------------------------------- issue 28 item 9


def test_a_timed_out_call_shows_no_grader_frames_or_paths():
    from course.grading.checks.compare import TASKS, compare
    from course.grading.checks.cases import textbook_cases
    from course.sandbox import StudentSession, sandbox_available

    if not sandbox_available():
        pytest.skip("bubblewrap cannot start here")
    session = StudentSession(cell_timeout=5)
    try:
        session.load(["def minimax_value(game, state):\n    while True:\n        pass\n"])
        case = textbook_cases("minimax")[0]
        comp = compare(TASKS["minimax_value"], session.function("minimax_value"), case, time_limit=1)
    finally:
        session.close()
    (kind, message), = comp.problems
    assert kind.__name__ == "SearchTimeout"
    assert "within 1 seconds" in message
    package = str(ROOT / "course")
    assert package not in message and "session.py" not in message and "File " not in message, message
    assert "TimeLimitExceeded" not in message


# --------------------------------------------------------------------------- item 8: staging


def _cells_notebook(count: int) -> bytes:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
          "cells": [{"cell_type": "raw", "metadata": {}, "source": ""}] * count}
    return json.dumps(nb, separators=(",", ":")).encode()


def test_a_notebook_of_120000_cells_is_refused_in_bounded_time(tmp_path):
    import zipfile

    from course.grading.term.intake.repair import repair_submission

    data = _cells_notebook(120_000)
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("minimax.ipynb", data)
    assert len(packed.getvalue()) < 25_000                 # what the student uploads
    (tmp_path / "minimax.ipynb").write_bytes(data)
    started = time.process_time()
    report = repair_submission(tmp_path, ROOT / "exercises" / "a1_minimax")
    assert time.process_time() - started < 5               # before: 19 s of CPU for this one
    assert report.unreadable == {"minimax.ipynb": "it has 120,000 cells, more than the limit of 2,000"}
    assert (tmp_path / "minimax.ipynb.unreadable").exists()


def test_a_huge_notebook_file_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    from course.grading.term.intake import repair

    monkeypatch.setattr(repair, "MAX_NOTEBOOK_BYTES", 1000)
    (tmp_path / "minimax.ipynb").write_bytes(_cells_notebook(100))
    report = repair.repair_submission(tmp_path, ROOT / "exercises" / "a1_minimax")
    assert "larger than the limit" in report.unreadable["minimax.ipynb"]


# --------------------------------------------------------------------------- a class, graded


def _class_tools():
    from course.sandbox import sandbox_available

    if not sandbox_available():
        pytest.skip("bubblewrap cannot start here")
    import test_grading_run_class as run_class

    return run_class


class _FullDisk:
    """The report module's text of the report: fails like a full disk on the writes in ``fail``."""

    def __init__(self, fail: set[int], text) -> None:
        self.calls, self.fail, self.text = 0, fail, text

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls in self.fail:
            raise OSError(28, "No space left on device")
        return self.text(*args, **kwargs)


@pytest.mark.slow
@pytest.mark.nbgrader
def test_a_full_disk_loses_no_staged_job_and_names_it(tmp_path, monkeypatch):
    from course.grading.term.course_dir import course_layout
    from course.grading.term.results import report as report_module
    from test_grading_support import copy_course

    rc = _class_tools()
    root = copy_course(tmp_path / "course")
    students = ["s0", "s1", "s2"]
    for who in students:
        rc._submit(root, who, rc._solution())
    # the disk is full when s0's result is written (the 2nd write of the report: after
    # "grading" for s0), then has room again
    monkeypatch.setattr(report_module, "_report_text", _FullDisk({2}, report_module._report_text))
    status, out = rc._run("--root", str(root), "autograde", "--jobs", "1")
    assert status == 1, out
    without = next(line for line in out.splitlines() if "without a grade" in line)
    assert f"s0/{rc.A1}" in without and "s1/" not in without and "s2/" not in without, without
    assert "could not be written to the grading report" in out
    assert "3 submissions graded" in out or "3 submissions" in out
    report = json.loads(course_layout(root).report.read_text())
    # s0's entry never said "graded": its result was not saved; the next run grades it
    assert report[f"s0/{rc.A1}"]["status"] == "grading"
    for who in ("s1", "s2"):
        assert report[f"{who}/{rc.A1}"]["status"] == "graded", report[f"{who}/{rc.A1}"]


@pytest.mark.slow
@pytest.mark.nbgrader
def test_two_runs_started_together_leave_every_honest_grade(tmp_path):
    import subprocess
    import sys

    from course.grading.term.course_dir import course_layout
    from test_grading_support import copy_course

    rc = _class_tools()
    root = copy_course(tmp_path / "course")
    students = [f"s{i}" for i in range(8)]       # the first run holds the lock ~15 s or more
    for who in students:
        rc._submit(root, who, rc._solution())
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    base = [sys.executable, "-m", "course.grading", "--root", str(root), "autograde", "--jobs", "1"]
    first = subprocess.Popen(base, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env)
    # the first run holds the course lock once its holder's note is there (waiting for its first
    # line raced: grading got fast enough that the run ended while the second one started)
    note = root / ".grading-run" / f"{first.pid}.json"
    deadline = time.monotonic() + 300
    while not note.exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()[0]
        time.sleep(0.05)
    second = subprocess.run(base + ["--student", "s0", "--regrade"], capture_output=True,
                            text=True, env=env, timeout=600)
    out = first.communicate(timeout=600)[0]
    assert first.returncode == 0, out
    assert second.returncode == 2, second.stdout + second.stderr
    said = second.stderr
    assert "the course is busy" in said and f"process {first.pid}" in said, said
    assert "autograde --jobs 1" in said
    report = json.loads(course_layout(root).report.read_text())
    layout = course_layout(root)
    for who in students:
        assert report[f"{who}/{rc.A1}"]["status"] == "graded", report[f"{who}/{rc.A1}"]
        assert rc._gradebook_points(layout, who) == rc.FULL
    # once the first has finished, the course is free again
    again = subprocess.run(base + ["--student", "s0", "--regrade"], capture_output=True, text=True,
                           env=env, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr


# --------------------------------------------------------------------------- item 8: collect


def test_collect_leaves_out_special_files_wherever_they_sit_and_names_them(tmp_path, monkeypatch):
    import secrets

    from course.grading.term.course_dir import course_layout, nbgrader_api, prepare
    from test_grading_support import copy_course

    monkeypatch.setenv("COURSE_EXCHANGE", str(tmp_path / "exchange"))
    root = copy_course(tmp_path / "course")
    prepare(root)
    layout = course_layout(root)
    assert nbgrader_api(layout).release_assignment("a1_minimax")["success"]
    inbound = tmp_path / "exchange" / layout.course_id / "inbound"
    body = json.dumps({"cells": [], "metadata": {"tag": "work"}, "nbformat": 4, "nbformat_minor": 5})

    def entry(student: str) -> Path:
        path = inbound / f"{student}+a1_minimax+2024-01-01 00:00:00.000000 UTC+{secrets.token_hex(3)}"
        path.mkdir()
        (path / "minimax.ipynb").write_text(body)
        return path

    entry("ada")
    os.mkfifo(inbound / "amy+a1_minimax+2024-01-01 00:00:00.000000 UTC+fifo")     # an entry
    deep = entry("mal") / "sub"
    deep.mkdir()
    os.mkfifo(deep / "pipe")                                                       # deep inside
    os.mkfifo(deep.parent / "notes\x1b[2K\rforged.txt")                             # a name that erases
    entry("zed")
    # a FIFO where the collector reads the previous collection's time
    (root / "submitted" / "zed" / "a1_minimax").mkdir(parents=True)
    os.mkfifo(root / "submitted" / "zed" / "a1_minimax" / "timestamp.txt")
    finished, (result, error) = _within(120, lambda: nbgrader_api(layout).collect("a1_minimax"))
    assert finished, "collect waits on a FIFO"
    assert error is None and result["success"], (error, result)
    for who in ("ada", "mal", "zed"):
        assert (root / "submitted" / who / "a1_minimax" / "minimax.ipynb").is_file(), who
    assert not (root / "submitted" / "amy").exists()
    assert not (root / "submitted" / "mal" / "a1_minimax" / "sub" / "pipe").exists()
    log = result["log"]
    assert "FIFO" in log and "sub/pipe" in log and "amy+a1_minimax" in log
    assert ESC not in log and "\r" not in log


# --------------------------------------------------------------------------- item 5: the lock


def test_the_course_lock_names_the_other_run_and_is_freed_when_it_ends(tmp_path):
    import signal
    import subprocess
    import sys

    from course.grading.term.run_lock import CourseBusy, course_lock

    root = tmp_path / "course"
    root.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom course.grading.term.run_lock import course_lock\n"
         f"with course_lock({str(root)!r}, 'autograde --regrade\\x1b[2K'):\n"
         "    print('held', flush=True)\n    time.sleep(120)\n"],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert holder.stdout.readline().strip() == "held"
        for shared in (False, True):
            with pytest.raises(CourseBusy) as busy:
                with course_lock(root, "feedback", shared=shared):
                    pass
            said = str(busy.value)
            assert f"process {holder.pid}" in said and "autograde --regrade" in said, said
            assert "running since" in said and ESC not in said
    finally:
        holder.send_signal(signal.SIGKILL)             # however it ends, the lock is free
        holder.wait()
    with course_lock(root, "feedback"):
        with course_lock(root, "autograde"):           # re-entrant in one process
            pass
    with course_lock(root, "grades", shared=True), course_lock(root, "summary", shared=True):
        pass


def test_report_updates_keep_what_others_wrote_meanwhile(tmp_path):
    from course.grading.term.course_dir import course_layout
    from course.grading.term.results.report import read_report, update_report
    from test_grading_support import copy_course

    layout = course_layout(copy_course(tmp_path / "course", approve=False))
    update_report(layout, {"ada/a1": {"status": "graded"}, "bob/a1": {"status": "grading"}})
    stale = read_report(layout)                       # a run's copy, read before the others wrote
    update_report(layout, {"bob/a1": {"status": "graded"}})
    update_report(layout, {"ada/a1": dict(stale["ada/a1"], score=9.0)})
    assert read_report(layout) == {"ada/a1": {"status": "graded", "score": 9.0},
                                   "bob/a1": {"status": "graded"}}
    update_report(layout, {"ada/a1": None})
    assert list(read_report(layout)) == ["bob/a1"]


def test_zip_entry_names_reach_the_console_escaped(tmp_path):
    import zipfile

    from course.grading.__main__ import main
    from test_grading_support import copy_course

    root = copy_course(tmp_path / "course", approve=False)
    body = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo("ada_1234_5678_minimax.ipynb", (2024, 3, 1, 9, 0, 0)), body)
        # a second file of ada's: the line that says which was kept names it (before: raw)
        zf.writestr(zipfile.ZipInfo("ada_1234_5679_minimax_\x1b[2K\rforged.ipynb", (2024, 3, 1, 10, 0, 0)), body)
        zf.writestr(zipfile.ZipInfo("bob_4321_5679_my_minimax_\x1b]0;x\x07.ipynb", (2024, 3, 1, 10, 0, 0)), body)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        main(["--root", str(root), "collect-zip", str(archive), "--submissions", str(root / "submitted")])
    text = out.getvalue() + err.getvalue()
    assert "two files in the zip" in text and "forged.ipynb" in text
    assert ESC not in text and "\r" not in text and "\x07" not in text
    lines: list[str] = []
    from course.grading.term.intake.lms_zip import collect_zip

    collect_zip(archive, tmp_path / "again", root=root, log=lines.append)    # the library's log too
    assert lines and not any(ESC in line for line in lines)


def test_a_queue_that_dies_leaves_every_job_a_record(tmp_path, monkeypatch):
    from course.grading.job import queue
    from course.grading.term.course_dir import course_layout
    from course.grading.term.results.report import GradeRecord
    from test_grading_support import copy_course

    layout = course_layout(copy_course(tmp_path / "course", approve=False))

    class NoWorker:
        def __init__(self, *args, **kwargs):
            raise OSError(24, "Too many open files")

    monkeypatch.setattr(queue, "_Worker", NoWorker)
    staged = {(who, "a1_minimax"): GradeRecord(who, "a1_minimax", "failed") for who in ("ada", "bob", "cy")}
    ended: list[GradeRecord] = []
    queue.run_jobs(layout, tmp_path / "staging", staged, 4, 30.0, ended.append, jobs=2)
    assert sorted(r.student for r in ended) == ["ada", "bob", "cy"]
    assert all(r.status == "failed" and "not graded: OSError" in r.reason for r in ended), ended
