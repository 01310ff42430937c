"""nbgrader's formgrader is served only behind the course's guard, however the server is started.

Each documented way to start a Jupyter server in the course's environment is started for real
on a fresh copy of the course, and ``/formgrader`` must carry the guard's Content-Security-Policy
(a script nonce): ``make lab``'s command; ``.venv/bin/jupyter lab`` and ``jupyter server`` by hand
from an editable install (``pip install -e .``, which does not install the course's
``jupyter_server_config.d`` file); and a wheel install of the course (which does).  Then the
guard failing: when it cannot be installed (a dependency missing, the guard's module missing),
the formgrader is not served at all (fail closed), while JupyterLab still is.

And two things nbgrader's formgrader does on a mere GET, which the guard refuses:
``/formgrader?path=DIR`` runs ``DIR/nbgrader_config.py`` in the instructor's server (any account
can write one in ``/tmp``; a picture in a student's answer is enough to send the GET), and a
submission file whose path climbs out of the submission is served from anywhere in the course
directory (the solutions, the grading secret).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from test_instructor_lab import VENV, clean_env, fresh_clone, make_command

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, command: list[str], cwd: Path, env: dict, port: int, token: str, log: Path):
        self.port, self.token, self.log = port, token, log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(command, cwd=str(cwd), env=env, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        self.base = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 150
        while True:
            assert self.proc.poll() is None, f"the server exited:\n{self.log_text()[-4000:]}"
            try:
                urllib.request.urlopen(self.base + "api/status?token=" + token, timeout=2).read()
                return
            except (urllib.error.URLError, OSError):
                pass
            assert time.monotonic() < deadline, f"no server:\n{self.log_text()[-4000:]}"
            time.sleep(0.3)

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def get(self, path: str) -> tuple[int, dict, str]:
        request = urllib.request.Request(self.base + path, headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, dict(response.headers), response.read().decode(errors="replace")
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read().decode(errors="replace")

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            with_kill = True
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                with_kill = False
            if with_kill:
                self.proc.wait(10)


def _server_args(port: int, token: str) -> list[str]:
    return ["--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}", *(["--allow-root"] if os.geteuid() == 0 else [])]


def _start(way: str, course: Path, home: Path, *, extra_env: dict | None = None,
           python: Path | None = None) -> Server:
    """Start a server the way ``way`` names, serving ``course``."""
    port, token = _free_port(), os.urandom(16).hex()
    env = {**clean_env(home), **(extra_env or {})}
    args = _server_args(port, token)
    if way == "make lab":
        command = make_command(course, "lab", "LAB_ARGS=" + " ".join(args + ["--LabApp.news_url="]))
    elif way == "make lab LAB_DIR":           # make run in another checkout, serving this course
        maker = fresh_clone(home.parent / "maker")
        command = make_command(maker, "lab", f"LAB_DIR={course}",
                               "LAB_ARGS=" + " ".join(args + ["--LabApp.news_url="]))
    elif way == "jupyter lab":
        command = [str(VENV / "bin" / "jupyter"), "lab", *args, "--LabApp.news_url="]
    elif way == "jupyter server":
        command = [str(VENV / "bin" / "jupyter"), "server", *args]
    elif way == "wheel":
        command = [str(python), "-m", "jupyter_server", *args]
    else:
        raise ValueError(way)
    return Server(command, course, env, port, token, home / f"server-{port}.log")


def _guarded(server: Server) -> tuple[int, str]:
    status, headers, body = server.get("formgrader/manage_assignments")
    return status, headers.get("Content-Security-Policy", "")


@pytest.fixture
def course(tmp_path):
    if not (VENV / ".installed").exists():
        pytest.skip("run the tests with the course's .venv (make install-test)")
    return fresh_clone(tmp_path / "clone")


@pytest.mark.parametrize("way", ["make lab", "make lab LAB_DIR", "jupyter lab", "jupyter server"])
def test_every_way_to_start_the_server_serves_the_formgrader_guarded(course, tmp_path, way):
    if way.startswith("make") and shutil.which("make") is None:
        pytest.skip("make is not installed")
    server = _start(way, course, tmp_path / "home")
    try:
        status, policy = _guarded(server)
        assert status == 200, server.log_text()[-3000:]
        assert "script-src 'nonce-" in policy, (way, policy)
        status, _, body = server.get("formgrader/api/assignments")     # it serves this course
        assert status == 200 and "a1_minimax" in body, (status, body[:300])
        assert (course / "gradebook.db").exists()
    finally:
        server.stop()


def _wheel_prefix(tmp_path: Path) -> Path:
    """A fresh environment with the course installed from its wheel (``pip install course.whl``).

    The course's dependencies come from the test's environment (a ``.pth`` file) instead of
    being downloaded again, and the configuration files they install into a prefix (nbgrader's
    ``nbgrader.json``, JupyterLab's) are copied over: what differs from a full install is only
    where the dependencies' code is read from.
    """
    build = tmp_path / "build-src"
    build.mkdir()
    shutil.copytree(REPO / "course", build / "course",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, build / name)
    wheels = tmp_path / "wheels"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                           "-w", str(wheels), str(build)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"cannot build the course's wheel here: {done.stderr.strip()[-500:]}")
    wheel = next(wheels.glob("course-*.whl"))
    prefix = tmp_path / "wheel-env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True, timeout=120)
    site = next((prefix / "lib").glob("python3*/site-packages"))
    own_site = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()
                    and Path(p).resolve().is_relative_to(Path(sys.prefix).resolve()))
    (site / "course-test-deps.pth").write_text(str(own_site) + "\n")
    # --ignore-installed: never touch the course installed in this (the test's) environment
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-installed",
                           "--prefix", str(prefix),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    shipped = prefix / "etc" / "jupyter" / "jupyter_server_config.d"
    assert any(shipped.glob("*course-formgrader-guard.json")), sorted(p.name for p in shipped.glob("*"))
    for json_file in (Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d").glob("*.json"):
        if "course" not in json_file.name:
            shutil.copy2(json_file, shipped / json_file.name)
    share = prefix / "share" / "jupyter"          # nbconvert's templates, the lab extensions
    share.mkdir(parents=True, exist_ok=True)
    for entry in (Path(sys.prefix) / "share" / "jupyter").iterdir():
        if not (share / entry.name).exists():
            (share / entry.name).symlink_to(entry)
    return prefix


def test_a_wheel_install_serves_the_formgrader_guarded(course, tmp_path):
    prefix = _wheel_prefix(tmp_path)
    python = prefix / "bin" / "python"
    found = subprocess.run([str(python), "-c", "import course; print(course.__file__)"], capture_output=True,
                           text=True, timeout=60, cwd=str(tmp_path))
    assert str(prefix) in found.stdout, found      # the wheel's copy, not the checkout
    server = _start("wheel", course, tmp_path / "home", python=python)
    try:
        status, policy = _guarded(server)
        assert status == 200, server.log_text()[-3000:]
        assert "script-src 'nonce-" in policy, policy
    finally:
        server.stop()


BROKEN_DEPENDENCY = "raise ImportError('nh3 is broken (tests/test_formgrader_launch_paths.py)')\n"
NO_GUARD_MODULE = """\
import importlib.abc, sys
class _NoGuard(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "course.formgrader_guard":
            raise ImportError("the guard's module is missing (tests/test_formgrader_launch_paths.py)")
sys.meta_path.insert(0, _NoGuard())
"""


@pytest.mark.parametrize("way, broken", [("make lab", "dependency"), ("make lab", "module"),
                                         ("jupyter lab", "dependency")])
def test_without_its_guard_the_formgrader_is_not_served(course, tmp_path, way, broken):
    """Fail closed: the guard cannot be installed, so there is no formgrader (JupyterLab still runs)."""
    if way == "make lab" and shutil.which("make") is None:
        pytest.skip("make is not installed")
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    if broken == "dependency":
        (shadow / "nh3.py").write_text(BROKEN_DEPENDENCY)
    else:
        (shadow / "sitecustomize.py").write_text(NO_GUARD_MODULE)
    server = _start(way, course, tmp_path / "home", extra_env={"PYTHONPATH": str(shadow)})
    try:
        status, headers, body = server.get("formgrader/manage_assignments")
        assert status in (404, 503), (status, body[:500])
        assert "Manage Assignments" not in body
        status, _, _ = server.get("formgrader/api/assignments")
        assert status in (404, 503), status
        status, _, _ = server.get("lab")
        assert status == 200
    finally:
        server.stop()


def _gradebook_with_a_submission(course: Path) -> int:
    """A submission of a1_minimax by ``ada`` in the course's gradebook (its id)."""
    from nbgrader.api import Gradebook

    from course.grading.term.course_dir import ensure_tools_on_path

    ensure_tools_on_path()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", "game-tree-search") as gb:
        gb.add_assignment("a1_minimax")
        gb.add_notebook("minimax", "a1_minimax")
        gb.add_student("ada")
        submission = gb.add_submission("a1_minimax", "ada")
        return submission.notebooks[0].id


def test_nothing_nbgrader_does_on_a_get_escapes_the_course(course, tmp_path):
    """``/formgrader?path=DIR`` ran ``DIR/nbgrader_config.py`` in the instructor's server; ``..`` in a
    submission file's path served any file of the course directory (the solution, the grading
    secret).  Both are refused; a link in a submission goes through the warning page; the roster's
    names reach the formgrader."""
    planted = tmp_path / "planted"                # what another account could write in /tmp
    planted.mkdir()
    marker = tmp_path / "ran-as-the-instructor"
    (planted / "nbgrader_config.py").write_text(f"open({str(marker)!r}, 'w').write('owned')\n")
    (course / ".grading-secret").write_text("s3cret-of-the-class\n")
    notebook = _gradebook_with_a_submission(course)
    (course / "roster.csv").write_text("id,first_name,last_name\nada,Ada,Lovelace\ngrace,Grace,Hopper\n")
    server = _start("jupyter lab", course, tmp_path / "home")
    try:
        # the formgrader lists students by the roster's names (nbgrader's autograde adds ids only)
        status, _, body = server.get("formgrader/api/students")
        named = {s["id"]: (s["first_name"], s["last_name"]) for s in json.loads(body)}
        assert named == {"ada": ("Ada", "Lovelace"), "grace": ("Grace", "Hopper")}, named
        status, _, _ = server.get(f"formgrader?path={planted}")
        time.sleep(0.5)
        assert not marker.exists(), "a GET ran another folder's nbgrader_config.py in the server"
        assert status == 403, status
        for target in ("solutions/a1_minimax/minimax.ipynb", ".grading-secret", "nbgrader_config.py"):
            climb = "..%2F..%2F..%2F" + target.replace("/", "%2F")
            status, _, body = server.get(f"formgrader/submissions/{notebook}/{climb}")
            assert "BEGIN SOLUTION" not in body and "s3cret" not in body and "get_config" not in body, target
            assert status == 404, (target, status)
        status, headers, body = server.get("formgrader/course-leave?to=/user/mallory/pwn")
        assert status == 200 and "leads into this server or hub" in body and "/user/mallory/pwn" in body
        assert "script-src" not in headers.get("Content-Security-Policy", "default-src 'none'")
        status, _, body = server.get("formgrader/course-leave?to=javascript:alert(1)")
        assert status == 400 and "alert" not in body
    finally:
        server.stop()
