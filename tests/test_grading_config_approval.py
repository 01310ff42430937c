"""The sandbox is switched off only on the command line, never by a configuration file (issue 19).

Before: one line in ``nbgrader_config.py`` (``c.SandboxedGrade.sandbox = False``, or nbgrader's
own ``Execute`` in the preprocessor list) made the next autograde run every student's code with
the instructor's rights, without a word -- a student cell below writes a file into the course
directory to show it.  Now autograde (``make autograde``, nbgrader's own ``nbgrader autograde``
and the formgrader's button) refuses a configuration that differs from the approved one, says
what changed, and ``approve-config`` refuses to approve one that grades outside the sandbox;
``--unsafe-no-sandbox`` is the only switch, and the report and ``grades.csv`` record it.
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course.grading.job.autograde import autograde
from course.grading.job.approval import (ConfigNotApproved, SandboxPolicyError, approve_config,
                                               check_config_approved, read_approval)
from course.sandbox import sandbox_available
from test_grading_support import EXERCISES, SOLUTIONS, copy_course

pytestmark = [pytest.mark.nbgrader]

A1, NB = "a1_minimax", "minimax.ipynb"
DISABLE = "\nc.SandboxedGrade.sandbox = False   # 'bubblewrap is slow on this laptop'\n"
KERNEL = ('\nc.Autograde.autograde_preprocessors = ["nbgrader.preprocessors.Execute", '
          '"nbgrader.preprocessors.SaveAutoGrades"]\n')


def _class(root: Path) -> Path:
    """One student whose notebook writes a file into the course directory if it can."""
    marker = root / "WRITTEN-BY-A-STUDENT"
    nb = nbformat.read(SOLUTIONS / A1 / NB, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "a1-minimax-value")
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(
        f"try:\n    open({str(marker)!r}, 'w').write('the grader ran me with its rights')\n"
        "except OSError:\n    pass\n"))
    (root / "submitted" / "mallory" / A1).mkdir(parents=True)
    nbformat.write(nb, str(root / "submitted" / "mallory" / A1 / NB))
    return marker


@pytest.fixture
def course(tmp_path):
    root = copy_course(tmp_path / "course")
    return root, _class(root)


@pytest.mark.parametrize("line", [DISABLE, KERNEL], ids=["sandbox-false", "kernel-preprocessors"])
def test_a_changed_configuration_stops_autograde(course, line):
    root, marker = course
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write(line)
    with pytest.raises(ConfigNotApproved, match="changed since it was approved") as caught:
        autograde(root, jobs=1)
    assert line.strip().splitlines()[0][:30] in str(caught.value)     # the difference is shown
    assert not marker.exists()
    assert not (root / "autograded").exists()


@pytest.mark.parametrize("line", [DISABLE, KERNEL], ids=["sandbox-false", "kernel-preprocessors"])
def test_a_configuration_that_grades_outside_the_sandbox_cannot_be_approved(course, line):
    root, _ = course
    before = read_approval(root)
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write(line)
    with pytest.raises(SandboxPolicyError):
        approve_config(root)
    assert read_approval(root) == before


def test_an_unapproved_course_is_not_graded(tmp_path):
    root = copy_course(tmp_path / "course", approve=False)
    marker = _class(root)
    with pytest.raises(ConfigNotApproved, match="has not been approved for grading yet"):
        autograde(root, jobs=1)
    assert not marker.exists()


def test_the_command_shows_the_difference_and_approves(course, capsys):
    from course.grading.__main__ import main

    root, _ = course
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write("\nc.Execute.timeout = 60\n")
    assert main(["--root", str(root), "approve-config", "--show"]) == 0
    assert "+c.Execute.timeout = 60" in capsys.readouterr().out
    with pytest.raises(ConfigNotApproved):
        check_config_approved(root)                     # --show approved nothing
    assert main(["--root", str(root), "approve-config"]) == 0
    out = capsys.readouterr().out
    assert "grading policy approved" in out and "SandboxedGrade" in out
    check_config_approved(root)
    assert main(["--root", str(root), "autograde", "--jobs", "1"]) in (0, 1)
    capsys.readouterr()


def test_another_configuration_file_cannot_change_the_formgraders_grading(course):
    """The formgrader's Autograde button calls NbGraderAPI.autograde in the Jupyter server, with
    the configuration Jupyter loaded (also ~/.jupyter/nbgrader_config.py): the guard refuses."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from course.formgrader_guard import guard_grading_api
    from course.grading.term.course_dir import course_config

    root, marker = course
    guard_grading_api()
    config = course_config(root)
    config.Autograde.autograde_preprocessors = ["nbgrader.preprocessors.Execute",
                                                "nbgrader.preprocessors.SaveAutoGrades"]
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    result = api.autograde(A1, "mallory")
    assert result["success"] is False
    assert "would not run students' code in the sandbox" in result["error"]
    assert not marker.exists()


@pytest.mark.slow
@pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")
def test_nbgraders_own_autograde_command_refuses_too(course):
    """``nbgrader autograde`` run by hand goes through SandboxedGrade, which checks first."""
    root, marker = course
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    subprocess.run([nbgrader, "generate_assignment", A1, "--force"], cwd=root, capture_output=True, timeout=300)
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write("\nc.SandboxedGrade.cell_timeout = 5\n")
    done = subprocess.run([nbgrader, "autograde", A1, "--student", "mallory", "--force"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert "changed since it was approved" in done.stdout + done.stderr, done.stderr[-2000:]
    assert not marker.exists()
    graded = root / "autograded" / "mallory" / A1 / NB
    assert not graded.exists() or not nbformat.read(graded, as_version=4).cells[0].get("outputs")


@pytest.mark.slow
def test_unsafe_no_sandbox_is_said_and_recorded_next_to_the_grades(tmp_path, capsys):
    from course.grading.__main__ import main

    root = copy_course(tmp_path / "course")
    (root / "submitted" / "ada" / A1).mkdir(parents=True)
    shutil.copy(SOLUTIONS / A1 / NB, root / "submitted" / "ada" / A1 / NB)
    (root / "submitted" / "grace" / A1).mkdir(parents=True)
    shutil.copy(EXERCISES / A1 / NB, root / "submitted" / "grace" / A1 / NB)
    assert main(["--root", str(root), "autograde", "--student", "ada", "--unsafe-no-sandbox",
                 "--jobs", "1", "--timeout", "30"]) == 0
    out = capsys.readouterr().out
    assert "WARNING: grading WITHOUT a sandbox" in out and "were given WITHOUT the sandbox" in out
    if sandbox_available():
        assert main(["--root", str(root), "autograde", "--student", "grace", "--jobs", "1",
                     "--timeout", "30"]) == 0
    report = json.loads((root / "autograded" / ".course-grading" / "report.json").read_text())
    assert report[f"ada/{A1}"]["sandboxed"] is False
    assert main(["--root", str(root), "grades", "--output", str(tmp_path / "grades.csv")]) == 0
    rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(open(tmp_path / "grades.csv"))}
    assert rows[("ada", A1)]["sandboxed"] == "NO (--unsafe-no-sandbox)"
    if sandbox_available():
        assert report[f"grace/{A1}"]["sandboxed"] is True and rows[("grace", A1)]["sandboxed"] == "yes"


@pytest.mark.slow
def test_the_formgraders_autograde_button_takes_the_course_lock(course):
    """The formgrader's Autograde button (NbGraderAPI.autograde in the Jupyter server) wrote the
    gradebook while ``make autograde`` ran, bypassing the course lock that keeps two grading
    commands apart.  Now a click while a command holds the lock is refused, naming the command,
    and nothing is graded; once the command has finished the button works again."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from course.formgrader_guard import guard_grading_api
    from course.grading.term.course_dir import course_config

    root, marker = course
    approve_config(root)
    guard_grading_api()
    config = course_config(root)
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\n"
         "from course.grading.term.run_lock import course_lock\n"
         f"with course_lock({str(root)!r}, 'make autograde (a test)'):\n"
         "    print('held', flush=True)\n"
         "    sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = api.autograde(A1, "mallory")
        assert result["success"] is False
        assert "the course is busy" in result["error"] and "make autograde (a test)" in result["error"]
        assert not (root / "autograded" / "mallory").exists()
    finally:
        holder.communicate("", timeout=60)
    result = api.autograde(A1, "mallory")
    assert "busy" not in result.get("error", "") + result.get("log", "")
    assert not marker.exists()


def test_grades_say_when_the_rules_they_apply_are_not_approved(tmp_path, capsys):
    """``grades`` applies the late rule and resubmission policy of ``nbgrader_config.py`` as the
    file is now, while autograde and feedback refuse a file changed since it was approved: the
    instructor is told that this grades.csv follows rules not approved yet."""
    from course.grading.__main__ import main

    root = copy_course(tmp_path / "course")
    out = ["--root", str(root), "grades", "--output", str(tmp_path / "grades.csv")]
    assert main(out) == 0
    assert "approve" not in capsys.readouterr().err
    with (root / "nbgrader_config.py").open("a") as handle:
        handle.write('\nc.TermPolicy.late_penalty_base = "autograded"\n')
    assert main(out) == 0
    err = capsys.readouterr().err
    assert "WARNING: " in err and "changed since it was approved" in err and "approve-config" in err
