"""The grading run survives any submission (issue 20): the sandbox's side.

Each test is an attack a hostile submission makes on the grader through the sandbox, and the
defence that stops it: a function that never answers, a value amplified on its way back, a
torrent of data, files filling memory or disk, processes filling memory, state carried from a
hidden test into the next report.  Every one of them succeeded on the code before issue 20
(the note ``issue-20-grading-run.md`` shows each one failing there); the class-level tests are in
``test_grading_run_class.py``.
"""

from __future__ import annotations

import threading
import time

import pytest

from course.grading import check_minimax_value, textbook_cases
from course.sandbox import SessionError, StudentSession, sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")

MINIMAX = '''
from course import Player
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''


def _within(seconds: float, work):
    """Run ``work()`` in a thread: (finished in time, its result or exception)."""
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


def test_a_function_that_never_answers_is_stopped():
    # the student's function ignores the sandbox's alarm and never returns: the grader's read
    # has its own clock (before: the read blocked forever, and the worker with it)
    session = StudentSession(cell_timeout=2)
    session.load(["import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                  "def minimax_value(game, state):\n    while True:\n        pass\n"])
    try:
        finished, (value, error) = _within(30, lambda: session.function("minimax_value")(1, 2))
        assert finished, "the grader still waits for the sandbox"
        assert isinstance(error, SessionError)
        assert "stopped answering" in str(error)
    finally:
        session.close()


def test_an_amplified_value_is_refused():
    # 7.6 MB of "[], [], ..." decodes to 1.9 million lists (about 120 MB in the grader)
    session = StudentSession()
    session.load(["def f():\n    return [[] for _ in range(1_900_000)]\n"])
    try:
        with pytest.raises(SessionError, match="to the grader at once"):
            session.function("f")()
    finally:
        session.close()


def test_a_torrent_of_data_is_cut_off():
    # every call sends 0.9 MB back: over 300 calls that is more than the grader reads in all
    session = StudentSession()
    session.load(["def f():\n    return 'x' * 900_000\n"])
    calls = 0
    try:
        with pytest.raises(SessionError, match="in all"):
            for calls in range(1, 320):
                session.function("f")()
    finally:
        session.close()
    assert calls < 300


FILL = '''
import os
def fill(folder, files=14, size=15 * 2**20):
    written = 0
    try:
        for i in range(files):
            with open(os.path.join(folder, f"fill{i}"), "wb") as f:
                f.write(b"x" * size)
            written += size
    except OSError:
        pass
    return written // 2**20
print({folder: fill(folder) for folder in ("/work", "/tmp", "/dev/shm", "/")})
'''


def test_files_written_are_capped():
    # 14 files of 15 MB (each under the size of one file) in every writable place
    session = StudentSession()
    try:
        (result,) = session.load([FILL])
    finally:
        session.close()
    written = eval(result.stdout)              # {folder: MB written}
    assert written["/"] == 0
    for folder in ("/work", "/tmp", "/dev/shm"):
        assert written[folder] <= 64, (folder, written)


HOG = '''
import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = bytearray(800 * 2**20)            # under the address-space limit of a process
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(3)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print("all allocated")
'''


def test_memory_of_all_processes_together_is_capped():
    session = StudentSession()
    try:
        (result,) = session.load([HOG])
    finally:
        session.close()
    assert "all allocated" not in result.stdout
    assert result.error is not None and "memory" in result.error["message"]


LEAKER = '''
from course import Player
seen = []
def minimax_value(game, state):
    if seen and seen[0] != id(game):
        raise RuntimeError(f"seen: {len(seen)} calls of another test")
    seen.append(id(game))
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''


def test_one_hidden_tests_state_never_reaches_another_test():
    from course.grading.job.sandboxed import grade_notebook

    locked = "from course.grading import check_minimax_value, textbook_cases, exercise_cases\n"
    cells = [
        {"kind": "locked", "source": locked, "trusted_source": locked},
        {"kind": "student", "source": LEAKER, "trusted_source": LEAKER},
        {"kind": "test", "source": "", "trusted_source":
            "### BEGIN HIDDEN TESTS\ncheck_minimax_value(minimax_value, exercise_cases(5, 2))\n"
            "### END HIDDEN TESTS\n"},
        {"kind": "test", "source": "", "trusted_source":
            "check_minimax_value(minimax_value, textbook_cases('minimax')[:1])\n"},
    ]
    results = grade_notebook(cells, secret="s")
    shown = str(results[3]["outputs"])
    assert "another test" not in shown, shown
    assert results[3]["passed"], shown


def test_numpy_imported_in_an_answer_works_as_under_validate():
    session = StudentSession()
    try:
        (numpy, course_search) = session.load([
            "import numpy as np\nprint(int(np.arange(4).sum()))",
            "import course.search\ncourse.search.minimax(None, None)"])
    finally:
        session.close()
    assert numpy.error is None and numpy.stdout.strip() == "6"
    assert "not available" in course_search.error["message"]   # the reference stays out


def test_a_dead_process_is_reported_without_the_graders_frames():
    session = StudentSession()
    session.load(["import os\ndef minimax_value(game, state):\n    os._exit(3)\n"])
    try:
        with pytest.raises(AssertionError) as failed:
            check_minimax_value(session.function("minimax_value"), textbook_cases("minimax")[:1])
    finally:
        session.close()
    assert "exit status 3" in str(failed.value)
    assert "session.py" not in str(failed.value) and "course/sandbox" not in str(failed.value)


def test_a_locked_question_cell_shows_its_printout():
    from course.grading.job.sandboxed import NOT_RUN_NOTE, grade_notebook

    locked = ("from course.grading import textbook_cases\n"
              "print('cases to think about:', len(textbook_cases('minimax')))\n")
    cells = [{"kind": "locked", "source": locked, "trusted_source": locked}]
    (result,) = grade_notebook(cells, secret=None)
    text = "".join(o.get("text", "") for o in result["outputs"])
    assert "cases to think about:" in text and NOT_RUN_NOTE not in text


def test_the_time_limit_does_not_grow_with_the_cells():
    from course.grading.job.sandboxed import grade_notebook

    sleepy = "import time\ntime.sleep(0.9)\n"
    cells = [{"kind": "student", "source": sleepy, "trusted_source": sleepy}] * 15
    start = time.monotonic()
    with pytest.raises(SessionError, match="time limit"):
        grade_notebook(cells, secret=None, cell_timeout=1, deadline=time.monotonic() + 3)
    assert time.monotonic() - start < 12


FILE_LEAKER = '''
import os
from course import Player
def minimax_value(game, state):
    if os.path.exists("/tmp/seen"):
        seen = open("/tmp/seen").read()
        if not seen.startswith(f"{os.getpid()}:"):          # written by another test
            raise RuntimeError("seen: " + seen)
    else:
        open("/tmp/seen", "w").write(f"{os.getpid()}:")
    value = _search(game, state)
    with open("/tmp/seen", "a") as f:
        f.write(f"{value};")
    return value
def _search(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [_search(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''


def test_a_hidden_test_leaves_no_file_for_a_later_report():
    # what student code writes while a hidden test runs would be read back in a later test's
    # failure message: hidden tests run after every visible test, so no later report exists
    from course.grading.job.sandboxed import grade_notebook

    locked = "from course.grading import check_minimax_value, textbook_cases, exercise_cases\n"
    cells = [
        {"kind": "locked", "source": locked, "trusted_source": locked},
        {"kind": "student", "source": FILE_LEAKER, "trusted_source": FILE_LEAKER},
        {"kind": "test", "source": "", "trusted_source":
            "### BEGIN HIDDEN TESTS\ncheck_minimax_value(minimax_value, exercise_cases(5, 2))\n"
            "### END HIDDEN TESTS\n"},
        {"kind": "test", "source": "", "trusted_source":
            "check_minimax_value(minimax_value, textbook_cases('minimax')[:1])\n"},
    ]
    results = grade_notebook(cells, secret="s")
    assert "seen:" not in str(results[3]["outputs"]), results[3]["outputs"]
