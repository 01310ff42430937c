"""Grading on a Dask cluster (``autograde --cluster ADDRESS``) gives exactly the local pool's grades.

A real ``dask scheduler`` and two ``dask worker`` processes are started as separate processes
(tests/cluster_support.py); each worker runs in its own empty folder, with no path of the course
in its environment (so it grades from the jobs' data alone).  A small mixed class -- the model
answer, wrong answers, a submission that looks for the course's gradebook and secret (on the
instructor's machine and in the workers' folders), one that hangs and one that floods its
output -- is graded by the local pool and by the cluster on two copies of the same course;
``grades.csv``, the gradebook's scores and comments and the graded notebooks must be identical.
A second test kills one worker (SIGKILL) while it grades: every student still gets the same
grade.  The same over TLS with certificates: tests/test_grading_cluster_tls.py.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import term_support  # noqa: E402
from cluster_support import Cluster  # noqa: E402
from cluster_support import copy_course as _copy  # noqa: E402
from cluster_support import gradebook_rows as _gradebook_rows  # noqa: E402
from cluster_support import results as _results  # noqa: E402
from term_support import A, NB, due_date, ok, tiny_class  # noqa: E402


pytest.importorskip("distributed")

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow]

#: Seconds a cell may run in these tests (the hanging submission is stopped after this).
CELL_TIMEOUT = "4"


def _hostile_code(base: Path) -> str:
    """An answer right only if it finds none of the course's or the workers' files."""
    return (
        "import glob, os\n"
        "def square(x):\n"
        f"    found = glob.glob({str(base)!r} + '/**/.grading-secret', recursive=True)\n"
        f"    found += glob.glob({str(base)!r} + '/**/gradebook.db', recursive=True)\n"
        "    found += glob.glob('/tmp/**/course-job-*', recursive=True)\n"
        "    found += [k for k in os.environ if 'GRADING' in k or 'APPROVALS' in k]\n"
        "    return -1 if found else x * x\n")


HANG = "def square(x):\n    while True:\n        pass\n"
FLOOD = "while True:\n    print('x' * 100000)\n"

#: Students and what they hand in (a kind of term_support.CODE).
STUDENTS = {"ada": "right", "bob": "wrong", "cy": "negatives", "dee": "hostile", "eve": "hang",
            "fay": "flood", "gus": "right", "hal": "integers"}


def _class(root: Path, base: Path) -> Path:
    term_support.CODE.update(hostile=_hostile_code(base), hang=HANG, flood=FLOOD)
    due = due_date()
    late = {"gus", "hal"}                   # a day and more late: the term's late rule applies
    tiny_class(root, {s: (kind, "Because x times x.", due + dt.timedelta(hours=30) if s in late
                          else due - dt.timedelta(hours=2)) for s, kind in STUDENTS.items()})
    (root / ".grading-secret").write_text("the same secret for both copies\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def graded_locally(tmp_path_factory):
    """The class (ungraded, as a template) and a copy graded by the local pool."""
    base = tmp_path_factory.mktemp("cluster-class")
    template = _class(base / "template", base)
    local = _copy(template, base / "local")
    out = ok(local, "autograde", "--timeout", CELL_TIMEOUT, "--jobs", "2")
    return base, template, local, out


@pytest.fixture
def cluster():
    c = Cluster()
    try:
        yield c
    finally:
        c.close()


def test_cluster_grades_equal_the_local_pool(graded_locally, cluster):
    base, template, local, local_out = graded_locally
    remote = _copy(template, base / "remote")
    out = ok(remote, "autograde", "--timeout", CELL_TIMEOUT, "--cluster", cluster.address)
    assert "sent to the cluster" in out
    text, rows, outputs = _results(remote)
    local_text, local_rows, local_outputs = _results(local)
    assert text == local_text
    assert rows == local_rows
    assert outputs == local_outputs
    _, by = term_support.grades(remote)
    score = {s: float(by[(s, A)]["autograded_score"] or 0) for s in STUDENTS}
    # the hostile one found nothing; int(x) passes the hidden test of negative numbers
    assert score["ada"] == score["gus"] == score["dee"] == score["hal"] == 2
    assert score["bob"] == score["cy"] == score["eve"] == score["fay"] == 0
    assert float(by[("gus", A)]["late_penalty"]) > 0 and float(by[("ada", A)]["late_penalty"]) == 0
    # the hanging and the flooding answers are stopped at their time limits, as locally
    for student, error in (("eve", "SessionError"), ("fay", "CellTimeoutError")):
        cells = json.loads((remote / "autograded" / student / A / f"{NB}.ipynb").read_text())["cells"]
        assert any(o.get("ename") == error for c in cells for o in c.get("outputs", ())), student
    # both reached a time limit (a call's, a cell's): graded again, alone, both ways, and said
    for root in (local, remote):
        report = json.loads((root / "autograded" / ".course-grading" / "report.json").read_text())
        again = sorted(s for s in STUDENTS
                       if any("graded again" in line for line in report[f"{s}/{A}"]["review"]))
        assert again == ["eve", "fay"], (root.name, again)
    # a second run keeps every result (its inputs unchanged): no code runs, locally or not
    again = ok(remote, "autograde", "--timeout", CELL_TIMEOUT, "--cluster", cluster.address)
    assert "sent to the cluster" not in again
    assert _results(remote)[0] == text
    # hand grades (the written answer, and an override of a test's points), then a new version
    # handed in: nbgrader's rule (an answer graded by hand before is flagged for review when graded
    # again) and the term's hand grades give the same gradebook both ways
    hand = _copy(local, base / "local-hand")              # the module's local result stays as it is
    for root, extra in ((hand, ["--jobs", "1"]), (remote, ["--cluster", cluster.address])):
        term_support.give_hand_grade(root, "ada", 1.5)
        term_support.give_hand_grade(root, "ada", 1.0, cell=term_support.TEST_ID)
        term_support.hand_in(root, "ada", "wrong", "Because x times x.", due_date() - dt.timedelta(hours=1))
        ok(root, "autograde", "--timeout", CELL_TIMEOUT, "--student", "ada", *extra)
    assert _results(remote) == _results(hand)
    assert any(len(r) == 6 and r[:3] == ("ada", NB, term_support.WRITTEN_ID) and r[4] == 1.5
               for r in _gradebook_rows(remote))


def test_a_worker_killed_mid_run_loses_no_student(graded_locally, cluster):
    from distributed import Client

    base, template, local, _ = graded_locally
    remote = _copy(template, base / "killed")
    command = [sys.executable, "-m", "course.grading", "--root", str(remote), "autograde",
               "--timeout", CELL_TIMEOUT, "--cluster", cluster.address]
    grading = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed = None
    with Client(cluster.address, timeout=60) as client:
        pids = client.run(os.getpid)                  # {worker address: its process id}
        deadline = time.monotonic() + 240
        while killed is None and grading.poll() is None and time.monotonic() < deadline:
            busy = {w for w, keys in client.processing().items()
                    if any(str(k).startswith("course-grade-") for k in keys)}
            for address in busy:
                pid = pids.get(address)
                victim = next((p for p in cluster.workers if p.pid == pid), None)
                time.sleep(1.0)                       # into the job: its grading process started
                still = any(str(k).startswith("course-grade-")
                            for k in client.processing().get(address, ()))
                if victim is not None and still:      # killed while it grades a submission
                    os.kill(victim.pid, signal.SIGKILL)
                    killed = victim
                    break
            time.sleep(0.1)
    out, _ = grading.communicate(timeout=600)
    assert killed is not None, "no worker was seen grading"
    assert grading.returncode == 0, out
    assert killed.wait(timeout=10) == -signal.SIGKILL
    assert _results(remote) == _results(local)


# ------------------------------------------------------------------ a job refuses what it must
def _bundle_and_job(template: Path):
    from course.grading.term.course_dir import course_layout
    from course.grading.job import build_bundle, make_job

    bundle = build_bundle(course_layout(template), A, cell_timeout=4, submission_timeout=60,
                          sandboxed=True)
    return bundle, make_job("ada", A, template / "submitted" / "ada" / A)


def test_a_job_refuses_a_configuration_that_would_grade_outside_the_sandbox(graded_locally):
    import dataclasses

    from course.grading.job.approval import SandboxPolicyError
    from course.grading.job import JobError, run_job

    bundle, job = _bundle_and_job(graded_locally[1])
    assert bundle.sandboxed and bundle.gradebook and bundle.secret
    # a policy with nbgrader's own Execute (the student's code in a kernel, with the worker's rights)
    kernel = {"Autograde": {"autograde_preprocessors": ["nbgrader.preprocessors.Execute"]}}
    with pytest.raises(SandboxPolicyError):
        run_job(dataclasses.replace(bundle, approval=dict(bundle.approval, policy=kernel)), job)
    # a configuration file other than the approved one
    other = bundle.config_text + b"\nc.Autograde.autograde_preprocessors = ['nbgrader.preprocessors.Execute']\n"
    with pytest.raises(JobError, match="not the approved file"):
        run_job(dataclasses.replace(bundle, config_text=other), job)
    # other course code on the worker than the instructor's
    with pytest.raises(JobError, match="course package"):
        run_job(dataclasses.replace(bundle, course_code="0" * 64), job)


@pytest.mark.parametrize("name", ["../escape.txt", "/etc/cron.d/x", "a/../../b", "", "a\\b"])
def test_a_job_refuses_file_names_that_leave_its_folder(graded_locally, name):
    import dataclasses

    from course.grading.job import GradingJob, JobError, JobResult, run_job
    from course.grading.job.writer import write_files

    bundle, job = _bundle_and_job(graded_locally[1])
    with pytest.raises(JobError, match="could leave its folder"):
        run_job(bundle, GradingJob("ada", A, dict(job.files, **{name: b"x"})))
    with pytest.raises(JobError, match="could leave its folder"):
        run_job(dataclasses.replace(bundle, source_files={name: b"x"}), job)
    for student in ("..", "a/b", ""):
        with pytest.raises(JobError, match="plain folder name"):
            run_job(bundle, GradingJob(student, A, job.files))
    # a result's files are written only inside autograded/<student>/<assignment>/
    out = Path(tempfile.mkdtemp(prefix="course-autograded-"))
    try:
        with pytest.raises(JobError, match="could leave its folder"):
            write_files(out, JobResult("ada", A, {}, files={name: [0o644, b"x"]}))
        assert not any(p.is_file() for p in out.parent.glob("escape.txt"))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def test_the_writer_follows_nbgraders_rules(graded_locally, tmp_path):
    """What nbgrader's SaveAutoGrades and autograde do to a gradebook that has hand grades."""
    from nbgrader.api import Gradebook

    from course.grading.job import JobResult, write_result

    template = graded_locally[1]
    shutil.copy(template / "gradebook.db", tmp_path / "gradebook.db")
    test, written, answer = term_support.TEST_ID, term_support.WRITTEN_ID, term_support.ANSWER_ID

    def result(grades: dict, missing: tuple = ()) -> JobResult:
        return JobResult("ada", A, {"success": True}, {"timestamp": None, "notebooks": {NB: {
            "grades": grades, "comments": {answer: "No response.", written: None}}}},
            list(missing))

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", "game-tree-search") as gb:
        write_result(gb, result({test: [2.0, False], written: [None, True]}))
        grade = gb.find_grade(test, NB, A, "ada")
        assert (grade.auto_score, grade.needs_manual_grade) == (2.0, False)
        assert gb.find_grade(written, NB, A, "ada").needs_manual_grade
        assert gb.find_comment(answer, NB, A, "ada").auto_comment == "No response."
        grade.manual_score, grade.needs_manual_grade = 1.0, False    # a hand grade over the tests
        gb.db.commit()
        write_result(gb, result({test: [0.0, False], written: [None, True]}))
        grade = gb.find_grade(test, NB, A, "ada")
        assert (grade.auto_score, grade.manual_score, grade.needs_manual_grade) == (0.0, 1.0, True)
        grade.needs_manual_grade = False
        gb.db.commit()
        write_result(gb, result({test: [None, False], written: [None, False]}))     # not reached
        assert (gb.find_grade(test, NB, A, "ada").auto_score,
                gb.find_grade(test, NB, A, "ada").needs_manual_grade) == (0.0, False)
        write_result(gb, result({test: [0, False], written: [0, False]}, missing=(NB,)))
        assert not gb.find_grade(test, NB, A, "ada").needs_manual_grade     # a missing notebook
