"""The sandbox a submission's code runs in (course.sandbox): each attack tried, each defence shown.

Every test writes the attack as a student would, runs it in a sandbox, and checks that it
failed.  ``test_the_attacks_work_without_the_sandbox`` runs the same attacks *without*
bubblewrap (the unsafe mode) and checks that they succeed there: the defences are the
sandbox's, not an accident of the test.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

import course
from course import Player, parse_tree
from course.grading import check_minimax_value, textbook_cases
from course.grading.checks.failures import GradingFailure
from course.sandbox import SessionError, StudentCodeError, StudentSession, sandbox_available
from course.sandbox.bwrap import SandboxUnavailable, check_sandbox

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

ROOT = Path(__file__).resolve().parents[1]
COURSE_INIT = Path(course.__file__).resolve()
MINIMAX = '''
from course import Player
def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''


def run(cells, sandbox=True, **options):
    session = StudentSession(sandbox=sandbox, **options)
    results = session.load(cells)
    return session, results


def printed(cells, sandbox=True, **options):
    session, results = run(cells, sandbox, **options)
    session.close()
    return "".join(r.stdout for r in results), results


# -- it works -----------------------------------------------------------------------------------
def test_a_correct_search_passes_through_the_sandbox():
    session, _ = run([MINIMAX])
    with session:
        check_minimax_value(session.function("minimax_value"), textbook_cases("minimax"))


def test_values_cross_exactly():
    session, _ = run(["from fractions import Fraction\n"
                      "def f(x):\n    return x, Fraction(1, 3), [1.5, float('inf')], None, True"])
    with session:
        assert session.function("f")((1, "a")) == ((1, "a"), Fraction(1, 3), [1.5, float("inf")],
                                                   None, True)


def test_a_fraction_from_the_grader_arrives_without_fractions_imported_first():
    # fractions is imported in the sandbox only when a fraction arrives (3 ms of every start)
    session, (result,) = run(["import sys\nprint('fractions' in sys.modules)\n"
                              "def f(x):\n    return type(x).__name__, x * 3, x"])
    with session:
        assert result.stdout == "False\n"
        assert session.function("f")(Fraction(1, 3)) == ("Fraction", Fraction(1), Fraction(1, 3))


def test_player_and_state_identity():
    game = parse_tree([[3, 12], [2, 4]])
    session, _ = run(["from course import Player\n"
                      "def f(game, state):\n"
                      "    a = game.result(state, 0)\n"
                      "    return game.turn(state) is Player.MAX, game.turn(a) is Player.MIN, "
                      "game.result(state, 0) is a, game.vmin, game.vmax"])
    root = game.initial_state()
    same = game.result(root, 0) is game.result(root, 0)      # identity as the grader's game has it
    with session:
        assert session.function("f")(game, root) == (True, True, same, 2, 12)


def test_student_errors_keep_their_type_and_traceback():
    session, _ = run(["def f():\n    raise NotImplementedError()"])
    with session:
        with pytest.raises(NotImplementedError) as info:
            session.function("f")()
    assert isinstance(info.value, StudentCodeError)
    assert 'File "<cell 1>", line 2, in f' in info.value.student_traceback


# -- forging a grade -----------------------------------------------------------------------------
def test_the_course_is_not_importable_inside():
    out, results = printed([
        "import course.search, course.grading\n"
        "try:\n    course.search.minimax(None)\nexcept RuntimeError as e:\n    print('blocked:', e)\n",
        "import sys\nprint([m for m, v in sys.modules.items() if getattr(v, '__file__', None) and\n"
        "       m.startswith(('course.search', 'course.grading', 'course.games', 'nbgrader'))])\n"
        # the students' packages are there (numpy, as under Validate), read-only, without .pth
        "import os\nsite = [p for p in sys.path if p.startswith('/packages/')]\n"
        "print(bool(site), [p for p in site if os.access(p, os.W_OK)],\n"
        "      [m for m in sys.modules if m.startswith('__editable__')])",
        # the student-facing part is there: the game model and the worked examples
        "from course.examples import aima_figure_5_2\nfrom course import Player, parse_tree\n"
        "g = aima_figure_5_2(); print('examples', g.turn(g.initial_state()) is Player.MAX)",
    ])
    assert "blocked: course.search.minimax is not available" in out
    assert "[]\nTrue [] []" in out
    assert "examples True" in out


def test_rebinding_the_checks_changes_nothing():
    # the two-line forgery of the issue: it only rebinds a name inside the sandbox
    session, _ = run(["def minimax_value(game, state):\n    raise NotImplementedError()",
                      "check_minimax_value = lambda *a, **k: None\n"
                      "import builtins; builtins.AssertionError = type('X', (Exception,), {})"])
    with session, pytest.raises(GradingFailure):
        check_minimax_value(session.function("minimax_value"), textbook_cases("minimax"))


def test_an_object_equal_to_everything_is_not_a_value():
    session, _ = run(["class Anything:\n    def __eq__(self, other): return True\n"
                      "    __hash__ = object.__hash__\n"
                      "def minimax_value(game, state):\n    return Anything()"])
    with session, pytest.raises(GradingFailure):
        check_minimax_value(session.function("minimax_value"), textbook_cases("minimax"))


def test_forged_protocol_messages_do_not_forge_the_record():
    # the student writes a "return" message with the right value straight to the grader's pipe,
    # without searching: the grader's record has no expansions, so the check fails
    forge = (
        "import os, json\n"
        "def minimax_value(game, state):\n"
        "    for fd in range(3, 20):\n"
        "        try:\n"
        "            os.write(fd, (json.dumps({'op': 'return', 'value': 3, 'stdout': ''}) + '\\n').encode())\n"
        "        except OSError:\n"
        "            pass\n"
        "    return 3\n")
    session, _ = run([forge])
    with session, pytest.raises(GradingFailure):
        check_minimax_value(session.function("minimax_value"), textbook_cases("minimax")[:1])


def test_handles_the_grader_never_issued_are_refused():
    forge = ("import os, json\n"
             "def f(game, state):\n"
             "    return game.utility(type(state).__new__(type(state)))\n")
    game = parse_tree([1, 2])
    session, _ = run([forge])
    with session, pytest.raises((StudentCodeError, SessionError)):
        session.function("f")(game, game.initial_state())


# -- reading what it must not ------------------------------------------------------------------------
def test_the_course_and_home_are_invisible(tmp_path):
    secret = tmp_path / "gradebook.db"
    secret.write_text("SECRET-GRADEBOOK")
    paths = [str(ROOT / "solutions"), str(ROOT / "nbgrader_config.py"), str(secret), str(COURSE_INIT),
             "/root/.local/share/jupyter/runtime", "/root/.bash_history", "/etc/passwd",
             "/etc/shadow", str(Path(sys.prefix) / "lib")]
    out, _ = printed(["import os\n"
                      f"for p in {paths!r}:\n"
                      "    print(p, os.path.exists(p))\n"
                      "print(sorted(os.listdir('/')))\n"
                      "print(os.getuid(), os.getcwd())\n"
                      "print('ENV', dict(os.environ))"])
    for p in paths:
        assert f"{p} False" in out, out
    assert "'home'" not in out and "'etc'" not in out and "'var'" not in out
    assert "65534 /work" in out
    # the Python installation may live under /root (pyenv): only it is visible there
    home = "\n".join(line for line in out.splitlines() if line.startswith("/root/"))
    assert "True" not in home
    env = out.split("ENV ")[1].upper()
    assert "TOKEN" not in env and "JUPYTER" not in env


def test_no_network():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.settimeout(3)
    port = server.getsockname()[1]
    accepted = []

    def accept():
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    out, _ = printed(["import socket\n"
                      "for host in ('127.0.0.1', 'localhost', '::1', '8.8.8.8'):\n"
                      "    try:\n"
                      f"        socket.create_connection((host, {port}), timeout=2); print('connected', host)\n"
                      "    except OSError as e:\n"
                      "        print('refused', host)\n"])
    thread.join()
    server.close()
    assert "connected" not in out and not accepted


USERNS = ("import ctypes, os\n"
          "libc = ctypes.CDLL(None, use_errno=True)\n"
          "if libc.unshare(0x10000000) == 0:                    # CLONE_NEWUSER\n"
          "    print('made', libc.unshare(0x40000000 | 0x00020000) == 0)  # then network, mounts\n"
          "else:\n"
          "    print('refused', os.strerror(ctypes.get_errno()))\n")


def test_no_user_namespace_can_be_made_inside():
    # a user namespace of its own gives the code every capability over new network and mount
    # namespaces (nf_tables, mounts of many file systems): the kernel's most attacked surface
    from course.sandbox import bwrap

    if not bwrap.disables_userns(bwrap.bwrap_path()):
        pytest.skip("this bubblewrap (older than 0.8.0) cannot forbid user namespaces inside")
    out, _ = printed([USERNS])
    assert out.startswith("refused"), out


# -- damage, persistence, exhaustion -------------------------------------------------------------------
def test_writing_the_course_or_site_packages_fails():
    import site

    targets = [str(COURSE_INIT), str(ROOT / "nbgrader_config.py")] + [
        str(Path(d) / "evil.pth") for d in site.getsitepackages()]
    before = COURSE_INIT.read_bytes()
    out, _ = printed(["import os\n"
                      f"for p in {targets!r}:\n"
                      "    try:\n"
                      "        open(p, 'a').write('import os  # planted\\n'); print('wrote', p)\n"
                      "    except OSError as e:\n"
                      "        print('failed', p)\n"])
    assert "wrote" not in out
    assert COURSE_INIT.read_bytes() == before
    assert not any(Path(t).exists() for t in targets if t.endswith("evil.pth"))


def test_every_process_dies_with_the_sandbox(tmp_path):
    marker = tmp_path / "alive"
    # a double-forked daemon in a new session that would write a file on the host 3 s later
    daemon = ("import os, time\n"
              "if os.fork() == 0:\n"
              "    os.setsid()\n"
              "    if os.fork() == 0:\n"
              "        time.sleep(3)\n"
              f"        open({str(marker)!r}, 'w').write('x')\n"
              "        os._exit(0)\n"
              "    os._exit(0)\n"
              "print('forked')")
    session, results = run([daemon])
    assert results[0].stdout == "forked\n"
    mine = session.tmp                  # in this sandbox's command line (other tests run sandboxes too)
    session.close()
    time.sleep(4)
    assert not marker.exists()
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert mine not in ps


def test_memory_file_size_and_processes_are_limited():
    out, results = printed([
        "try:\n    block = bytearray(3 * 1024 ** 3)\n    print('got 3 GiB')\n"
        "except MemoryError:\n    print('no memory')",
        "open('big', 'wb').write(b'x' * (500 * 1024 * 1024))\nprint('wrote 500 MB')",
        "import os\nn = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
        "            import time; time.sleep(5); os._exit(0)\n        n += 1\n"
        "except OSError:\n    pass\nprint('forked', n)",
        "print('still running')"])
    assert "no memory" in out and "got 3 GiB" not in out
    assert "wrote 500 MB" not in out and results[1].error is not None
    forked = int(out.split("forked ")[1].split()[0])
    assert forked < 40
    assert "still running" in out


HOLD_PROCESSES = ("import os, time\ndef hold():\n    n = 0\n    try:\n        for _ in range(200):\n"
                  "            if os.fork() == 0:\n                time.sleep(60); os._exit(0)\n"
                  "            n += 1\n    except OSError:\n        pass\n    return n")
FORK_FIVE = ("import os\ndef fork_five():\n    kids = []\n    try:\n        for _ in range(5):\n"
             "            pid = os.fork()\n            if pid == 0:\n                os._exit(0)\n"
             "            kids.append(pid)\n    except OSError as exc:\n        return f'refused after {len(kids)}'\n"
             "    finally:\n        for pid in kids:\n            os.waitpid(pid, 0)\n    return 'forked 5'")


def test_a_sandbox_holding_every_process_it_may_leaves_the_next_sandbox_its_own():
    """Two submissions graded side by side (two workers): the one started first must keep its 32
    processes whatever the other does.  The limit used to count every process of the sandboxes'
    host user, so a hostile notebook holding its processes made an honest one's forks fail (its
    tests then failed: a grade changed by another student's code)."""
    with StudentSession() as honest, StudentSession() as hostile:
        assert honest.load([FORK_FIVE])[0].error is None          # started first, as in a run
        assert hostile.load([HOLD_PROCESSES, FORK_FIVE])[0].error is None
        held = hostile.call("hold", [])
        assert held >= 25, held
        assert honest.call("fork_five", []) == "forked 5"
        assert hostile.call("fork_five", []).startswith("refused")    # still held to its own


def test_a_hanging_cell_is_stopped_and_the_next_cells_run():
    out, results = printed(["def f():\n    return 1",
                            "while True:\n    try:\n        pass\n    except BaseException:\n        pass",
                            "print('after', f())"], cell_timeout=2)
    assert results[1].error["type"] in ("CellTimeoutError", "TimeoutError")
    assert "after 1" in out


def test_a_cell_that_kills_its_process_is_skipped():
    out, results = printed(["def f():\n    return 1", "import os\nos._exit(3)", "print('after', f())"])
    assert results[1].error["type"] == "ProcessDied" and "exit status 3" in results[1].error["message"]
    assert "after 1" in out


# -- the control: the same attacks succeed without the sandbox ---------------------------------------
def test_the_attacks_work_without_the_sandbox(tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("grades")
    out, _ = printed(["import os\n"
                      f"print(os.path.exists({str(ROOT / 'solutions')!r}))\n"
                      f"open({str(target)!r}, 'a').write(' changed')\n"], sandbox=False)
    assert "True" in out and target.read_text() == "grades changed"


def test_no_sandbox_is_reported_in_one_line(monkeypatch):
    from course.sandbox import bwrap

    check_sandbox.cache_clear()
    monkeypatch.setattr(bwrap, "bwrap_path", lambda: None)
    try:
        with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
            check_sandbox()
    finally:
        check_sandbox.cache_clear()
