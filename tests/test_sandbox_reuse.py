"""What a sandbox shares with the next one, and what a test shares with the next test.

Grading was made cheaper per submission (issue 32) by keeping two things that used to be
made again: the sandbox's program folder (``inside.py`` and the student-facing course, with
their bytecode), made once per grading process and bound read-only into every sandbox; and
a submission's process after its function raised (each test still runs in a copy of it).
Each attack here is a submission trying to reach the next one, or a test the next test,
through what is now kept.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from course.sandbox import StudentCodeError, StudentSession, sandbox_available
from course.sandbox import session as session_module

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")


def _tree(folder: str) -> dict[str, str]:
    found = {}
    for where, _, files in os.walk(folder):
        for name in files:
            path = Path(where, name)
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


VANDAL = """import os, glob
done = []
for path in glob.glob('/grader/**', recursive=True) + ['/grader/inside.py', '/grader/planted.py']:
    for how in ('a', 'w'):
        try:
            with open(path, how) as f:
                f.write('import os; os.system("echo pwned")\\n')
            done.append(path)
        except OSError:
            pass
for folder in ('/grader', '/grader/course', '/grader/__pycache__'):
    try:
        os.chmod(folder, 0o777)
        done.append('chmod ' + folder)
    except OSError:
        pass
try:
    os.rename('/grader/inside.py', '/grader/old.py')
    done.append('renamed')
except OSError:
    pass
print('changed:', done)
"""


def test_a_submission_cannot_change_the_program_the_next_one_runs():
    with StudentSession() as first:
        first.load(["x = 1"])
        folder = session_module.program_folder(session_module._sandbox_python()[0])
        before = _tree(folder)
        assert any(name.endswith(".pyc") for name in before)        # compiled once, kept
        result, = first.load([VANDAL])
    assert result.stdout.strip() == "changed: []", result.stdout
    assert _tree(folder) == before
    with StudentSession() as second:                  # the same folder, as it was made
        assert session_module.program_folder(session_module._sandbox_python()[0]) == folder
        result, = second.load(["import inside, sys\nprint(sorted(sys.modules).count('inside'))"])
    assert result.stdout.strip() == "1" and result.error is None


def test_the_program_folder_is_made_again_when_its_sources_change(tmp_path, monkeypatch):
    course = tmp_path / "course"
    course.mkdir()
    for name in session_module.STUDENT_MODULES:
        (course / f"{name}.py").write_bytes((session_module._COURSE / f"{name}.py").read_bytes())
    monkeypatch.setattr(session_module, "_COURSE", course)
    python = session_module._sandbox_python()[0]
    folder = session_module.program_folder(python)
    (course / "examples.py").write_text((course / "examples.py").read_text() + "\nMARK = 1\n")
    again = session_module.program_folder(python)
    assert again != folder and not os.path.exists(folder)
    assert "MARK = 1" in Path(again, "course", "examples.py").read_text()


def test_a_test_after_an_exception_starts_from_the_cells_state():
    cells = ["seen = []\n"
             "def f(x):\n"
             "    seen.append(x)\n"
             "    raise ValueError(len(seen))\n"]
    with StudentSession() as session:
        session.load(cells)
        f = session.function("f")
        pid = session.proc.pid
        with session.isolated():
            with pytest.raises(StudentCodeError, match="1"):
                f("a")
            with pytest.raises(StudentCodeError, match="2"):   # within a test, state is kept
                f("b")
        with session.isolated():                               # the next test: a fresh copy
            with pytest.raises(StudentCodeError, match="1"):
                f("c")
        with pytest.raises(StudentCodeError, match="1"):       # and the cells' own state
            f("d")
        # no new sandbox was started for any of it (a release's stubs raise in every test)
        assert session.proc.pid == pid and session.restarts == 0


@pytest.mark.parametrize("ending", ["raises", "returns"])
def test_a_process_left_behind_by_a_test_is_gone_in_the_next(ending):
    cells = ["import os, time\n"
             "def spawn():\n"
             "    if os.fork() == 0:\n"
             "        os.setsid()\n"
             "        if os.fork() == 0:\n"                    # a daemon, in a session of its own
             "            time.sleep(60)\n"
             "        os._exit(0)\n"
             f"    {'raise RuntimeError(1)' if ending == 'raises' else 'return 1'}\n"
             "def state(p):\n"
             "    try:\n"
             "        with open(f'/proc/{p}/stat', 'rb') as f:\n"
             "            return f.read().rsplit(b')', 1)[1].split()[0]\n"
             "    except OSError:\n"
             "        return b'gone'\n"
             "def count():\n"               # live processes: a killed one is a zombie until the
             "    return len([p for p in os.listdir('/proc')\n"      # sandbox's PID 1 reaps it
             "                if p.isdigit() and state(p) not in (b'Z', b'gone')])\n"]
    with StudentSession() as session:
        session.load(cells)
        count = session.function("count")
        cells_alone = count()
        with session.isolated():
            alone = count()
        with session.isolated():
            try:
                session.function("spawn")()
            except StudentCodeError:
                pass
            assert count() >= alone + 1                # what it left runs during this test
        with session.isolated():
            assert count() == alone                    # and not in the next one
        assert count() == cells_alone                  # nor in the cells' own process
