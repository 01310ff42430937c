"""The students' copy of the course and nbgrader's exchange, end to end (marked ``nbgrader``).

The instructor writes the students' bundle (``make student-bundle``) and releases Assignment 1
(``nbgrader release_assignment``); three students, each with their own HOME and their own unpacked
bundle, fetch it (``nbgrader fetch_assignment``), work (the solution, nothing, one function) and
submit (``nbgrader submit --student``); the instructor collects (``nbgrader collect``) and
autogrades (``python -m course.grading autograde``): each student gets their score.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest

from test_grading_support import EXERCISES, SOLUTIONS
from test_instructor_grading import partial_notebook
from test_instructor_lab import VENV, clean_env, fresh_clone, make_command

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

A1, NB = "a1_minimax", "minimax.ipynb"
NBGRADER = str(VENV / "bin" / "nbgrader")
SECRET = "0123456789abcdef-not-for-students"


def run(cmd, cwd, env, timeout=300):
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{cmd}:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def exchange_class(tmp_path_factory):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    tmp = tmp_path_factory.mktemp("exchange-class")
    course = fresh_clone(tmp / "instructor" / "course")
    (course / ".grading-secret").write_text(SECRET + "\n")
    exchange = tmp / "exchange"                                # created by the course's tools
    instructor = clean_env(tmp / "instructor" / "home")
    instructor["COURSE_EXCHANGE"] = str(exchange)
    bundle = tmp / "game-tree-search-student.zip"
    out = run(make_command(course, "student-bundle", f"BUNDLE={bundle}"), course, instructor)
    assert str(bundle) in out
    run([sys.executable, "-m", "course.grading", "prepare"], course, instructor)
    out = run([NBGRADER, "release_assignment", A1], course, instructor)
    assert "Released as" in out or "Source:" in out, out

    solution, release = SOLUTIONS / A1 / NB, EXERCISES / A1 / NB
    work = {"ada": nbformat.read(solution, as_version=4),           # everything solved
            "grace": nbformat.read(release, as_version=4),          # nothing done
            "alan": partial_notebook(solution, release, 1)}         # minimax_value only
    fetched = {}
    for student, nb in work.items():
        home = tmp / "students" / student
        home.mkdir(parents=True)
        with zipfile.ZipFile(bundle) as zf:
            zf.extractall(home)
        copy = home / "game-tree-search"
        env = clean_env(home)              # the student's own HOME; the bundle's config names the exchange
        listed = run([NBGRADER, "list"], copy, env)
        assert A1 in listed, listed
        run([NBGRADER, "fetch_assignment", A1], copy, env)
        fetched[student] = (copy / A1 / NB).read_bytes()
        nbformat.write(nb, str(copy / A1 / NB))
        run([NBGRADER, "submit", A1, f"--student={student}"], copy, env)
    out = run([NBGRADER, "collect", A1], course, instructor)
    out = run(make_command(course, "approve-config"), course, instructor)
    assert "grading policy approved" in out, out
    out = run([sys.executable, "-m", "course.grading", "autograde", "--assignment", A1, "--jobs", "2"],
              course, instructor, timeout=600)
    return course, bundle, fetched, out


def test_the_bundle_holds_what_students_need_and_nothing_of_the_instructors(exchange_class):
    course, bundle, _, _ = exchange_class
    with zipfile.ZipFile(bundle) as zf:
        names = zf.namelist()
        texts = {n: zf.read(n) for n in names}
    top = {n.split("/")[1] for n in names}
    assert top == {"course", "lessons", "exercises", "pyproject.toml", "README.md", "Makefile",
                   "nbgrader_config.py"}
    assert all(n.startswith("game-tree-search/") for n in names)
    assert "game-tree-search/course/grading/checks/searches.py" in names
    assert f"game-tree-search/exercises/{A1}/{NB}" in names
    assert not [n for n in names if "solutions" in n.split("/") or n.endswith(".db")
                or "/." in n or "__pycache__" in n or n.endswith(".pyc")]
    assert not [n for n, body in texts.items() if SECRET.encode() in body]
    assert texts[f"game-tree-search/exercises/{A1}/{NB}"] == (EXERCISES / A1 / NB).read_bytes()
    config = texts["game-tree-search/nbgrader_config.py"].decode()
    assert "c.CourseDirectory.course_id = 'game-tree-search'" in config
    assert str(bundle.parent / "exchange") in config and "COURSE_EXCHANGE" in config
    assert "solutions" not in config
    # a formgrader started in the student's copy is guarded as the instructor's is; elsewhere
    # (nbgrader in a terminal, Validate) the file runs and the guard does nothing
    assert "guard_this_formgrader()" in config

    class Config(dict):
        def __getattr__(self, name):
            return self.setdefault(name, Config())

        def __setattr__(self, name, value):
            self[name] = value

    loaded = Config()
    exec(compile(config, "nbgrader_config.py", "exec"), {"get_config": lambda: loaded})
    assert loaded.CourseDirectory.course_id == "game-tree-search"


def test_students_fetch_the_release(exchange_class):
    _, _, fetched, _ = exchange_class
    release = (EXERCISES / A1 / NB).read_bytes()
    assert all(body == release for body in fetched.values())


def test_collected_submissions_are_autograded_with_each_students_score(exchange_class):
    course, _, _, out = exchange_class
    for student in ("ada", "grace", "alan"):
        assert (course / "submitted" / student / A1 / NB).is_file()
        assert (course / "submitted" / student / A1 / "timestamp.txt").is_file()
    scores = {m.group(1): float(m.group(2)) for m in
              re.finditer(r"^(\w+)\s+a1_minimax\s+([\d.]+) / 11\.0", out, re.MULTILINE)}
    assert scores == {"ada": 9.0, "grace": 0.0, "alan": 3.0}, out
