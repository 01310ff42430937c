"""A hostile class graded end to end with ``make autograde``'s code (issue: grades you can trust).

One temporary course, one class: honest students, a wrong one, and students whose notebooks
attack the grading in every way we could think of: forging their own grade, reading what they
must not, damaging the class's data or the grader, leaving processes behind, exhausting the
machine, reaching the network.  After grading, every student has exactly the points their code
earns, nothing the attackers targeted changed, nothing leaked into their graded notebooks or
feedback, and nothing of theirs is still running.

The attacks are written as a student would write them, with the real paths of this machine
(a student can guess them); ``tests/test_sandbox.py`` shows the same attacks succeeding
without the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import pytest

import course
from course.grading.job.autograde import autograde
from course.grading.term.course_dir import WorkflowError, course_layout
from course.grading.term.release import release
from course.grading.term.results.feedback import feedback
from course.grading.job.sandboxed import SECRET_FILE
from course.sandbox import sandbox_available
from test_grading_support import copy_course, EXERCISES, ROOT, SOLUTIONS, read_cells

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow,
              pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")]

A1, A1_NB = "a1_minimax", "minimax.ipynb"
A5, A5_NB = "a5_ordering", "ordering.ipynb"
COURSE_PKG = Path(course.__file__).resolve().parent
STUB = "def minimax_value(game, state):\n    raise NotImplementedError()\n"


def _points(path: Path) -> dict[str, float]:
    return {c.grade_id: c.points for c in read_cells(path) if c.kind == "test"}


def _notebook(source: Path, *, replace: dict[str, str] | None = None, after: str | None = None,
              extra: str | None = None):
    nb = nbformat.read(source, as_version=4)
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if replace and gid in replace:
            cell.source = replace[gid]
    if extra is not None:
        index = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == after)
        nb.cells.insert(index + 1, nbformat.v4.new_code_cell(extra))
    return nb


def _fingerprint(paths) -> dict[str, str]:
    out = {}
    for root in paths:
        root = Path(root)
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()
                                                     and "__pycache__" not in p.parts)
        for p in files:
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


class _Listener:
    """A TCP server on localhost that counts connections (the network attack's target)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                pass

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


def _class(root: Path, port: int) -> dict[tuple[str, str], float]:
    """Write the class's submissions; return the autograded score each must get."""
    sol = SOLUTIONS / A1 / A1_NB
    total = sum(_points(sol).values())
    db = root / "gradebook.db"
    secret = root / SECRET_FILE
    submitted = root / "submitted"
    site_dirs = [str(Path(d)) for d in site.getsitepackages()]
    victims = [str(COURSE_PKG / "grading" / "__init__.py"), str(root / "nbgrader_config.py"),
               str(root / "solutions" / A1 / A1_NB), str(submitted / "honest" / A1 / A1_NB),
               str(root / "autograded" / "honest" / A1 / A1_NB)] + [
        str(Path(d) / "zz_planted.pth") for d in site_dirs]
    students: dict[str, tuple[Path, object, float]] = {}

    def add(name, nb, score):
        students[name] = (A1, nb, score)

    add("honest", _notebook(sol), total)
    add("honest-2", _notebook(sol, replace={"a1-minimax-value": (
        "def minimax_value(game, state):\n"
        "    if game.is_terminal(state):\n        return game.utility(state)\n"
        "    best = None\n"
        "    for move in game.moves(state):\n"
        "        v = minimax_value(game, game.result(state, move))\n"
        "        if best is None or (v > best if game.turn(state) is Player.MAX else v < best):\n"
        "            best = v\n"
        "    return best\n")}), total)
    add("wrong", _notebook(EXERCISES / A1 / A1_NB), 0.0)

    # -- forging a grade (with a stub or a wrong search) -------------------------------------
    forge = {
        "forge-rebind": "check_minimax_value = check_minimax_decision = check_depth_limited = "
                        "lambda *a, **k: None\n",
        "forge-transformer": "get_ipython().input_transformers_post.append(lambda lines: [])\n",
        "forge-patch-grader": ("import importlib\n"
                               "for name in ('course.grading.checks.searches', 'course.grading.checks.compare'):\n"
                               "    m = importlib.import_module(name)\n"
                               "    m.check = m.compare = lambda *a, **k: None\n"
                               "from course.grading import Recording\n"
                               "Recording.verify = lambda self: None\n"),
        "forge-builtins": ("import builtins\n"
                           "builtins.AssertionError = type('Harmless', (Exception,), {})\n"
                           "builtins.NotImplementedError = builtins.AssertionError\n"),
        "forge-files": ("import glob, json\n"
                        "for path in glob.glob('/**/*.ipynb', recursive=True)[:50]:\n"
                        "    try:\n        open(path, 'a').write(' ')\n    except OSError:\n        pass\n"),
    }
    for name, attack in forge.items():
        add(name, _notebook(sol, replace={"a1-minimax-value": STUB, "a1-minimax-decision":
                                        "def minimax_decision(game, state):\n    raise NotImplementedError()\n",
                                        "a1-depth-limited": "def depth_limited_decision(game, state, depth):\n"
                                                            "    raise NotImplementedError()\n"},
                           after="a1-minimax-value", extra=attack), 0.0)
    # the depth-limited search is independent of minimax_value: a broken minimax_value loses the
    # value and decision cells, and keeps these
    depth_only = _points(sol)["a1-test-depth-limited"] + _points(sol)["a1-test-depth-limited-tictactoe"]
    add("forge-reference", _notebook(sol, replace={"a1-minimax-value": (
        "import threading\nfrom course.search import minimax\n"
        "def minimax_value(game, state):\n"
        "    box = []\n"
        "    t = threading.Thread(target=lambda: box.append(minimax(game, state).value))\n"
        "    t.start(); t.join()\n"
        "    return box[0] if box else minimax(game, state).value\n")}),
depth_only)
    add("forge-anything", _notebook(sol, replace={"a1-minimax-value": (
        "class Anything:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"
        "    __hash__ = object.__hash__\n"
        "def minimax_value(game, state):\n    return Anything()\n")}),
depth_only)
    add("forge-protocol", _notebook(sol, replace={"a1-minimax-value": (
        "import os, json\n"
        "def minimax_value(game, state):\n"
        "    for fd in range(3, 30):\n"
        "        try:\n"
        "            os.write(fd, (json.dumps({'op': 'return', 'value': 3, 'stdout': ''}) + '\\n').encode())\n"
        "        except OSError:\n            pass\n"
        "    return 3\n")}),
depth_only)

    # -- reading what it must not (a correct notebook that prints what it finds) --------------
    readable = [str(SOLUTIONS), str(db), str(secret), str(root / "solutions"), str(submitted),
                str(root / "autograded"), str(ROOT), "/root/.local/share/jupyter/runtime",
                os.path.expanduser("~/.jupyter"), "/tmp"]
    add("reader", _notebook(sol, after="a1-minimax-value", extra=(
        "import os, glob\n"
        f"for p in {readable!r}:\n"
        "    if os.path.isdir(p):\n"
        "        for f in glob.glob(p + '/**/*', recursive=True)[:200]:\n"
        "            try:\n                print(f, open(f, errors='replace').read()[:2000])\n"
        "            except OSError:\n                pass\n"
        "    elif os.path.exists(p):\n"
        "        print(p, open(p, errors='replace').read()[:2000])\n"
        "import sys\nprint([f.f_code.co_filename for f in [sys._getframe()]])\n")), total)

    # -- damage: the course, the configuration, site-packages, the gradebook, other students ----
    add("vandal", _notebook(sol, after="a1-minimax-value", extra=(
        "import os, sqlite3\n"
        f"for p in {victims!r}:\n"
        "    try:\n        open(p, 'a').write('\\nimport os  # planted\\n')\n    except OSError:\n        pass\n"
        "try:\n"
        f"    con = sqlite3.connect({str(db)!r}); con.execute('UPDATE grade SET auto_score = 0, "
        "manual_score = 100'); con.commit()\n"
        "except Exception:\n    pass\n")), total)
    add("daemon", _notebook(sol, after="a1-minimax-value", extra=(
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        for _ in range(40):\n"
        "            time.sleep(0.5)\n"
        f"            for p in {victims!r}:\n"
        "                try:\n                    open(p, 'a').write('# later\\n')\n"
        "                except OSError:\n                    pass\n"
        "        os._exit(0)\n"
        "    os._exit(0)\n")), total)
    add("exhaust", _notebook(sol, after="a1-minimax-value", extra=(
        "import os\n"
        "try:\n    hog = bytearray(3 * 1024 ** 3)\nexcept MemoryError:\n    pass\n"
        "try:\n    open('huge', 'wb').write(b'x' * (500 * 1024 ** 2))\nexcept OSError:\n    pass\n"
        "for _ in range(500):\n"
        "    try:\n        if os.fork() == 0:\n            import time; time.sleep(60); os._exit(0)\n"
        "    except OSError:\n        break\n"
        "print('x' * 10_000_000)\n")), total)
    add("network", _notebook(sol, after="a1-minimax-value", extra=(
        "import socket\n"
        "for host in ('127.0.0.1', 'localhost', '::1'):\n"
        "    try:\n"
        f"        socket.create_connection((host, {port}), timeout=2)\n"
        "    except OSError:\n        pass\n")), total)

    # -- A5: an evaluation function that uses the course's own (forbidden) ----------------------
    a5 = SOLUTIONS / A5 / A5_NB
    a5_points = _points(a5)
    students["a5-course-evaluate"] = (A5, _notebook(a5, replace={"a5-evaluate": (
        "from course.games.tictactoe import TicTacToe\n"
        "def my_evaluate(state):\n    return TicTacToe().evaluate(state)\n")}),
        sum(a5_points.values()) - a5_points["a5-test-evaluation-ordering"]
        - a5_points["a5-test-evaluation-play"])

    expected = {}
    for name, (assignment, nb, score) in students.items():
        target = submitted / name / assignment
        target.mkdir(parents=True)
        nbformat.write(nb, str(target / f"{'minimax' if assignment == A1 else 'ordering'}.ipynb"))
        expected[(name, assignment)] = score
    return expected, victims


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-course")
    copy_course(root)
    release(root, release_directory=root / "regenerated")
    listener = _Listener()
    expected, victims = _class(root, listener.port)
    watched = [COURSE_PKG, root / "nbgrader_config.py", SOLUTIONS, root / "solutions"] + [
        Path(v) for v in victims if Path(v).exists() and "autograded" not in v]
    before = _fingerprint(watched)
    # the grading workers make their sandboxes' folders under $TMPDIR: a private one here, so
    # that what is left there is what this class left (other processes use /tmp too)
    private_tmp = Path(tempfile.mkdtemp(prefix="hostile-tmp-", dir="/tmp"))
    private_tmp.chmod(0o755)                 # reachable by the sandbox's user
    old_tmp = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(private_tmp)
    start = time.perf_counter()
    try:
        records = autograde(root, jobs=2, cell_timeout=20)
    finally:
        if old_tmp is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_tmp
    seconds = time.perf_counter() - start
    time.sleep(3)                      # the daemon would have written by now
    listener.close()
    yield dict(root=root, records={(r.student, r.assignment): r for r in records},
               expected=expected, before=before, after=_fingerprint(watched), watched=watched,
               victims=victims, accepted=listener.accepted, seconds=seconds,
               sandboxes=set(private_tmp.glob("course-sandbox-*")), tmp=str(private_tmp))
    for v in victims:
        if v.endswith("zz_planted.pth"):
            Path(v).unlink(missing_ok=True)
    shutil.rmtree(private_tmp, ignore_errors=True)


def test_every_student_gets_exactly_what_their_code_earns(graded):
    from nbgrader.api import Gradebook

    layout = course_layout(graded["root"])
    scores = {}
    with Gradebook(layout.db_url, layout.course_id) as gb:
        for (student, assignment) in graded["expected"]:
            sub = gb.find_submission(assignment, student)
            scores[(student, assignment)] = sum(g.auto_score or 0 for nb in sub.notebooks
                                                for g in nb.grades if g.cell_type == "code")
            manual = [g.manual_score for nb in sub.notebooks for g in nb.grades
                      if g.manual_score is not None]
            assert not manual, (student, manual)            # nobody raised their own grade
    wrong = {k: (scores[k], v) for k, v in graded["expected"].items() if scores[k] != v}
    assert not wrong, f"(got, expected): {wrong}"
    assert all(r.status == "graded" for r in graded["records"].values()), graded["records"]


def test_nothing_the_attackers_targeted_changed(graded):
    assert graded["before"] == graded["after"]
    assert not any(Path(v).exists() for v in graded["victims"] if v.endswith("zz_planted.pth"))
    honest = graded["root"] / "autograded" / "honest" / A1 / A1_NB
    assert "planted" not in honest.read_text() and "# later" not in honest.read_text()


def test_nothing_secret_reached_a_student(graded):
    root = graded["root"]
    secret = (root / SECRET_FILE).read_text().strip()
    feedback(root)
    for student in ("reader", "vandal", "honest"):
        for folder in ("autograded", "feedback"):
            for path in (root / folder / student).rglob("*.*"):
                text = path.read_text(errors="replace")
                assert secret not in text
                if folder == "feedback":
                    assert "BEGIN HIDDEN TESTS" not in text and "exercise_cases(101" not in text
    nb = nbformat.read(root / "autograded" / "reader" / A1 / A1_NB, as_version=4)
    attack = next(c for c in nb.cells if "glob.glob(p + '/**/*'" in c.source)
    found = json.dumps(attack.outputs)
    for text in ("BEGIN HIDDEN TESTS", "SQLite format", "Model answer", "gradebook", secret):
        assert text not in found, text


def test_nothing_is_left_running_or_lying_around(graded):
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert graded["tmp"] not in ps          # this class's sandboxes ran under its private TMPDIR
    assert not graded["sandboxes"]
    assert graded["accepted"] == 0
    sizes = [p.stat().st_size for p in (graded["root"] / "autograded").rglob("*") if p.is_file()]
    assert max(sizes) < 5_000_000


def test_the_class_is_graded_in_reasonable_time(graded):
    # 17 submissions on 2 workers; under a minute on a quiet 2-core machine
    assert graded["seconds"] < 600, graded["seconds"]


def test_without_a_sandbox_autograde_refuses(graded, monkeypatch):
    from course.sandbox import bwrap

    bwrap.check_sandbox.cache_clear()
    monkeypatch.setattr(bwrap, "bwrap_path", lambda: None)
    try:
        with pytest.raises(WorkflowError, match="--unsafe-no-sandbox"):
            autograde(graded["root"], student="honest")
    finally:
        bwrap.check_sandbox.cache_clear()
