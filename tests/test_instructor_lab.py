"""``make lab`` on a fresh clone: the Formgrader and the Assignment List work the first time.

The server is started exactly as a student or instructor starts it -- ``make lab`` from a shell
whose PATH does *not* hold the virtual environment's ``bin`` -- in a temporary copy of the course
(no ``gradebook.db``, no ``nbgrader_exchange/``), on a free port with a random token.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from test_grading_support import ROOT

pytestmark = pytest.mark.nbgrader

VENV = Path(sys.prefix)
ASSIGNMENTS = ["a1_minimax", "a2_alphabeta", "a3_chance", "a4_bounded", "a5_ordering",
               "a6_selective"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_clone(dest: Path) -> Path:
    """What ``git clone`` gives: the tracked folders and files, none of nbgrader's working files."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "*.egg-info")
    for name in ("lessons", "exercises", "solutions", "course"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    for name in ("Makefile", "nbgrader_config.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


def clean_env(home: Path) -> dict[str, str]:
    """A login shell's environment: the venv's ``bin`` is not on PATH, Jupyter's folders are private."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV"))}
    bindir = str(VENV / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != Path(bindir).resolve())
    env["HOME"] = str(home)
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("IPYTHONDIR", "ipython"),
                     ("MPLCONFIGDIR", "matplotlib")):
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    env.pop("COURSE_EXCHANGE", None)
    return env


def make_command(course: Path, target: str, *variables: str) -> list[str]:
    """``make TARGET`` in ``course`` with this test run's virtual environment (never reinstalled)."""
    installed = str(VENV / ".installed")
    return ["make", "--no-print-directory", "-C", str(course), target, f"VENV={VENV}",
            "-o", installed, *variables]


def _get(base: str, path: str, token: str) -> tuple[int, object]:
    request = urllib.request.Request(base + path, headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")


@pytest.fixture
def lab(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    if not (VENV / ".installed").exists():
        pytest.skip("run the tests with the course's .venv (make install-test)")
    course = fresh_clone(tmp_path / "clone")
    home = tmp_path / "home"
    port, token = _free_port(), os.urandom(16).hex()
    args = (f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} "
            f"--ServerApp.port_retries=0 --IdentityProvider.token={token} --LabApp.news_url=")
    log_path = tmp_path / "lab.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(make_command(course, "lab", f"LAB_ARGS={args}"), env=clean_env(home),
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"make lab exited:\n{log_path.read_text(errors='replace')}"
            try:
                urllib.request.urlopen(base + "api/status?token=" + token, timeout=2).read()
                break
            except (urllib.error.URLError, OSError):
                pass
            assert time.monotonic() < deadline, f"no server:\n{log_path.read_text(errors='replace')}"
            time.sleep(0.3)
        yield course, base, token, log_path
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
            proc.wait(10)


def test_make_lab_on_a_fresh_clone_serves_the_formgrader_and_the_assignment_list(lab):
    course, base, token, log_path = lab
    status, body = _get(base, "formgrader/api/assignments", token)
    assert status == 200, f"{body}\n{log_path.read_text(errors='replace')[-3000:]}"
    assert sorted(a["name"] for a in body) == ASSIGNMENTS
    # the gradebook is complete (nbgrader stamps its schema version with the alembic command)
    with sqlite3.connect(course / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchone()
    exchange = course / "nbgrader_exchange"
    assert exchange.is_dir()
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777   # everyone writes; sticky (issue 19)
    # make lab enables the course's formgrader guard: its pages carry a nonce policy
    request = urllib.request.Request(base + "formgrader/manage_assignments",
                                     headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert "script-src 'nonce-" in response.headers.get("Content-Security-Policy", "")
    status, body = _get(base, "assignments?course_id=game-tree-search", token)
    assert status == 200, body
    assert body["success"] is True, body["value"]
    assert body["value"] == []     # nothing released yet
    status, body = _get(base, "courses", token)
    assert status == 200 and body["success"] is True, body


def test_a_half_made_gradebook_is_completed_before_the_lab_starts(tmp_path):
    """A gradebook left without its schema version by an earlier failed start is stamped."""
    course = fresh_clone(tmp_path / "clone")
    with sqlite3.connect(course / "gradebook.db") as db:      # tables, but no alembic_version
        db.execute("CREATE TABLE course (id VARCHAR(128) PRIMARY KEY)")
    env = clean_env(tmp_path / "home")
    result = subprocess.run([sys.executable, "-m", "course.grading", "--root", str(course), "prepare"],
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(course / "gradebook.db") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchone()
    assert "gradebook" in result.stdout
    assert (course / "nbgrader_exchange").is_dir()


def test_the_lab_start_note_about_grading_says_it_is_for_the_instructor(tmp_path):
    """`make lab` runs `prepare` for students too (issue 30): the approval note must not read
    like a problem a student has to fix; without solutions/ (the students' bundle) it is not
    printed at all."""
    course = fresh_clone(tmp_path / "clone")
    env = clean_env(tmp_path / "home")
    command = [sys.executable, "-m", "course.grading", "--root", str(course), "prepare"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if "approve" in line]
    assert notes and all(line.startswith("For the instructor only (students: nothing to do")
                         for line in notes), result.stdout
    assert not any(line.startswith("NOTE:") for line in result.stdout.splitlines())
    shutil.rmtree(course / "solutions")
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "approve" not in result.stdout, result.stdout


def test_make_collect_zip_without_a_zip_says_how(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    course = fresh_clone(tmp_path / "clone")
    result = subprocess.run(make_command(course, "collect-zip"), env=clean_env(tmp_path / "home"),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "usage: make collect-zip ZIP=submissions.zip" in result.stdout + result.stderr


def test_the_students_copy_starts_with_make_lab_and_shows_no_solutions(tmp_path):
    """What the README's student quick start gives: the students' copy (``make student-bundle``),
    unpacked, started with ``make lab``.  JupyterLab serves the lessons and the exercises, and no
    file of ``solutions/`` is anywhere in the copy."""
    import zipfile

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    if not (VENV / ".installed").exists():
        pytest.skip("run the tests with the course's .venv (make install-test)")
    course = fresh_clone(tmp_path / "instructor")
    bundle = tmp_path / "students.zip"
    env = clean_env(tmp_path / "instructor-home")
    env["COURSE_EXCHANGE"] = str(tmp_path / "exchange")
    done = subprocess.run(make_command(course, "student-bundle", f"BUNDLE={bundle}"), env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(tmp_path / "student")
    copy = tmp_path / "student" / "game-tree-search"
    solution_names = {p.name for p in (ROOT / "solutions").rglob("*.ipynb")}
    assert not (copy / "solutions").exists()
    assert not [p for p in copy.rglob("*") if "solutions" in p.parts]
    port, token = _free_port(), os.urandom(16).hex()
    args = (f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --ServerApp.port_retries=0 "
            f"--IdentityProvider.token={token} --LabApp.news_url=")
    log_path = tmp_path / "student-lab.log"
    student_env = clean_env(tmp_path / "student-home")
    student_env["COURSE_EXCHANGE"] = str(tmp_path / "exchange")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(make_command(copy, "lab", f"LAB_ARGS={args}"), env=student_env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 150
        while True:
            assert proc.poll() is None, f"make lab exited:\n{log_path.read_text(errors='replace')}"
            try:
                urllib.request.urlopen(base + "api/status?token=" + token, timeout=2).read()
                break
            except (urllib.error.URLError, OSError):
                pass
            assert time.monotonic() < deadline, f"no server:\n{log_path.read_text(errors='replace')}"
            time.sleep(0.3)
        status, listing = _get(base, "api/contents", token)
        assert status == 200
        names = {item["name"] for item in listing["content"]}
        assert {"lessons", "exercises"} <= names and "solutions" not in names, names
        status, listing = _get(base, "api/contents/exercises/a1_minimax", token)
        assert status == 200 and {i["name"] for i in listing["content"]} & solution_names   # the release
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
