"""The course environment's packages in the sandbox, wherever the environment lives (issue 28, 8).

An instructor's environment often sits where the sandbox's user cannot go: a virtual
environment under a home folder of mode 700 or 750, a pyenv or uv Python under ``/root``.
Graded as root, the sandbox runs as ``nobody``; the grader used to leave such packages out of
the sandbox without a word, so an answer that imports numpy passed Validate and was graded
with ``ModuleNotFoundError``.  Now the folders are shown to the sandbox read-only through a
private mount namespace of the process that starts it (nothing changes on the host), and
where they cannot be offered, grading is refused with the reason.

The environment here is a folder of packages (one small package, as pip lays it out) under a
folder of mode 700, put in the place of the course environment's ``site-packages``.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig

import pytest

from course.sandbox import PackagesUnavailable, StudentSession, sandbox_available
from course.sandbox import bwrap

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox runs as nobody only under root")


@pytest.fixture
def hidden_environment(tmp_path, monkeypatch):
    """A site-packages under a mode-700 home, as the course environment's (the only one)."""
    home = tmp_path / "home" / "instructor"
    packages = home / "venv" / "lib" / "site-packages"
    (packages / "tinypkg").mkdir(parents=True)
    (packages / "tinypkg" / "__init__.py").write_text("VALUE = 42\n")
    (packages / "tinypkg-1.0.dist-info").mkdir()
    (packages / "tinypkg-1.0.dist-info" / "METADATA").write_text("Name: tinypkg\nVersion: 1.0\n")
    (home / "notes.txt").write_text("the instructor's own file")
    for folder, _, files in os.walk(tmp_path):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    home.chmod(0o700)                      # other users (nobody) cannot enter the home folder
    real = sysconfig.get_paths

    def get_paths(*args, **kwargs):
        paths = dict(real(*args, **kwargs))
        paths["purelib"] = paths["platlib"] = str(packages)
        return paths

    monkeypatch.setattr(sysconfig, "get_paths", get_paths)
    bwrap.check_sandbox.cache_clear()
    yield packages
    bwrap.check_sandbox.cache_clear()


def test_an_environment_nobody_can_enter_is_in_the_sandbox(hidden_environment):
    if os.geteuid() == 0:
        assert not bwrap.reachable(hidden_environment)      # the situation of the issue
    with StudentSession() as session:
        result, = session.load(["import tinypkg\nprint(tinypkg.VALUE)"])
    assert result.error is None, result.error
    assert result.stdout.strip() == "42"
    assert bwrap.packages_problem() is None
    bwrap.check_sandbox()                  # grading may go on


@as_root
def test_the_private_view_shows_nothing_else(hidden_environment):
    home = hidden_environment.parents[2]
    with StudentSession() as session:
        result, = session.load([
            "import os, sys, tinypkg\n"
            f"print(os.path.exists({str(home / 'notes.txt')!r}), os.path.exists({str(home)!r}))\n"
            "print(tinypkg.__file__)\n"
            "try:\n    open(tinypkg.__file__, 'a').write('# planted')\n    print('wrote')\n"
            "except OSError:\n    print('read-only')\n"])
    lines = result.stdout.split()
    assert lines[:2] == ["False", "False"] and lines[2].startswith("/packages/")
    assert lines[3] == "read-only"
    assert (hidden_environment / "tinypkg" / "__init__.py").read_text() == "VALUE = 42\n"
    # the view was the sandbox's alone: the host sees no mount of the environment
    mounts = open("/proc/self/mountinfo").read()
    assert str(hidden_environment) not in mounts
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "course-sandbox-" not in "".join(line for line in ps.splitlines()
                                           if str(hidden_environment.parent) in line)


@as_root
def test_unreadable_packages_stop_grading_with_the_reason(hidden_environment):
    for folder, _, files in os.walk(hidden_environment):
        for name in files:
            os.chmod(os.path.join(folder, name), 0o600)     # a venv made with umask 077
    with pytest.raises(PackagesUnavailable, match="cannot read the course environment's packages"):
        bwrap.check_sandbox()
    assert sandbox_available()             # the sandbox itself works; grading is what stops


@as_root
def test_without_a_private_view_grading_stops_with_the_reason(hidden_environment, monkeypatch):
    monkeypatch.setattr(bwrap, "private_views", lambda: False)
    assert bwrap.student_packages() == []
    assert "cannot" in (bwrap.packages_problem() or "")
    with pytest.raises(PackagesUnavailable, match="grading stops"):
        bwrap.check_sandbox()
