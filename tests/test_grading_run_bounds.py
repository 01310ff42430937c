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
    """A never-called function that ``exec``s a string of 4**levels copies of a line."""
    lines = ['a0 = "print(1)"']
    lines += [f'a{k} = "".join([a{k - 1}, a{k - 1}, a{k - 1}, a{k - 1}])' for k in range(1, levels + 1)]
    lines.append(f"def never_called():\n    exec(a{levels})")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- item 4: the audit


def test_a_fold_bomb_is_searched_in_bounded_work():
    from course.grading.results.hidden_code import SearchIncomplete, find_hidden_code

    finished, (value, error) = _within(20, lambda: find_hidden_code(fold_bomb()))
    assert finished, "the search for hidden code still runs on the fold bomb"
    # each name is folded once; the string it builds is over the cap: not unpacked, and said
    assert isinstance(error, SearchIncomplete), (value, error)
    assert "too large to unpack" in str(error)
    assert error.found[0] == ["line 17: exec of a string built at run time"]


def test_the_search_stops_at_its_budget_and_keeps_what_it_found():
    from course.grading.results.hidden_code import Budget, SearchIncomplete, find_hidden_code

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
    from course.grading.results.similarity import audit_assignment

    submitted = _class_folder(tmp_path, {"ada": HONEST, "bob": HONEST, "mallory": HONEST + fold_bomb()})
    finished, (audit, error) = _within(60, lambda: audit_assignment(ROOT, submitted, "a1_minimax"))
    assert finished and error is None, error
    assert list(audit.incomplete) == ["mallory"]
    assert "too large to unpack" in audit.incomplete["mallory"]
    assert sorted(audit.codes) == ["ada", "bob", "mallory"]        # the others' audit is whole
    assert any(f.who == "ada" and f.other == "bob" for f in audit.findings)


def test_the_audit_runs_in_its_own_limited_process_and_is_never_waited_for(tmp_path, monkeypatch):
    from course.grading.course_dir import course_layout
    from course.grading.results import copy_report
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


# --------------------------------------------------------------------------- item 7: the console


def test_console_text_neutralises_every_control():
    from course.grading.safe_text import console_text

    forged = "ada\x1b[1A\x1b[2K\rmallory  a1_minimax  11.0 / 11.0  graded\x9b2K\u202egnp\u2028x"
    shown = console_text(forged)
    assert not any(ch in shown for ch in "\x1b\r\n\x9b\u202e\u2028")
    assert shown.count("\\") == 6
    assert console_text("Zoë Ôkafor 李雷 \tok") == "Zoë Ôkafor 李雷 \tok"


def test_review_flags_come_from_the_grader_never_from_printed_text():
    from course.grading.autograde.sandboxed import grade_notebook
    from course.grading.evaluation import REVIEW_MARK
    from course.sandbox import sandbox_available

    if not sandbox_available():
        pytest.skip("bubblewrap cannot start here")
    forged = (f"print('{REVIEW_MARK} nothing to see\\x1b[2K\\r')\n"
              "def f(x):\n    print('" + REVIEW_MARK + " forged by the student')\n    return x\n")
    cells = [{"kind": "locked", "source": "", "trusted_source":
              "from course.grading.evaluation import flag_for_review"},
             {"kind": "student", "source": forged, "trusted_source": ""},
             {"kind": "test", "source": "", "trusted_source": "assert f(2) == 2"},
             {"kind": "test", "source": "", "trusted_source": "flag_for_review('the grader says so')"}]
    results = grade_notebook(cells, secret=None)
    assert [r["review"] for r in results] == [[], [], [], ["the grader says so"]]


# --------------------------------------------------------------------------- issue 28 item 9


def test_a_timed_out_call_shows_no_grader_frames_or_paths():
    from course.grading.compare import TASKS, compare
    from course.grading.cases import textbook_cases
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

    from course.grading.intake.repair import repair_submission

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
    from course.grading.intake import repair

    monkeypatch.setattr(repair, "MAX_NOTEBOOK_BYTES", 1000)
    (tmp_path / "minimax.ipynb").write_bytes(_cells_notebook(100))
    report = repair.repair_submission(tmp_path, ROOT / "exercises" / "a1_minimax")
    assert "larger than the limit" in report.unreadable["minimax.ipynb"]
