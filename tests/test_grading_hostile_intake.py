"""A hostile class beside honest students, through every door work comes in (issue 19).

The sibling of ``test_grading_hostile.py`` (attacks from inside the grader's sandbox): here the
attacks travel with what the instructor's tools read, store and render.  One class, a roster,
an LMS zip with crafted names, folders put into ``submitted/`` by hand (an HTML tag for a name,
a stranger, a link to the solution), an answer full of script; then ``autograde``, ``feedback``
and ``grades`` as the instructor runs them.  Every honest student keeps exactly their work and
their points; nothing hostile is graded under another name, reaches a path, a page or a CSV row.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import zipfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import nbformat
import pytest

from course.grading.__main__ import main
from course.grading.term.intake.lms_zip import collect_zip
from course.sandbox import sandbox_available
from test_grading_support import EXERCISES, SOLUTIONS, copy_course, read_cells

pytestmark = [pytest.mark.nbgrader, pytest.mark.slow,
              pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot start here")]

A1, NB = "a1_minimax", "minimax.ipynb"
ROSTER = ("id,first_name,last_name,lms_user_id,lms_names\n"
          "ada,Ada,Lovelace,1234,lovelaceada\n"
          "grace,Grace,Hopper,4321,hopperg\n"
          "eve,Eve,Sdropper,7777,sdroppere\n"
          "mallory,Mallory,Jones,6666,jonesm\n")
XSS = ('<img src=x onerror="(top.PWN=top.PWN||[]).push(1)"><script>(top.PWN=top.PWN||[]).push(2)</script>'
       '<a href="javascript:alert(3)">x</a>')
HOSTILE_FOLDER = '<img src=x onerror="fetch(\'api\')">'


def _auto_points(path: Path) -> float:
    return sum(c.points for c in read_cells(path) if c.kind == "test")


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile-intake")
    root = copy_course(tmp / "course")
    (root / "roster.csv").write_text(ROSTER)
    solution, release = (SOLUTIONS / A1 / NB).read_bytes(), (EXERCISES / A1 / NB).read_bytes()
    eve = nbformat.read(SOLUTIONS / A1 / NB, as_version=4)
    for cell in eve.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "a1-answer":
            cell.source = XSS
    archive = tmp / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo("lovelaceada_1234_11_minimax.ipynb", (2024, 3, 1, 9, 0, 0)), solution)
        zf.writestr(zipfile.ZipInfo("hopperg_4321_12_minimax.ipynb", (2024, 3, 1, 9, 0, 0)), release)
        zf.writestr(zipfile.ZipInfo("sdroppere_7777_13_minimax.ipynb", (2024, 3, 1, 9, 0, 0)),
                    nbformat.writes(eve))
        # mallory's uploads, named to be filed as ada's (newer, so they would replace hers)
        zf.writestr(zipfile.ZipInfo("jonesm_6666_14_lovelaceada_1234_11_minimax.ipynb", (2024, 3, 2, 9, 0, 0)),
                    release)
        zf.writestr(zipfile.ZipInfo("jonesm_6666_15_ada/a1_minimax/minimax.ipynb", (2024, 3, 2, 9, 0, 0)), release)
    imported = collect_zip(archive, root / "submitted", root=root, timezone="UTC", assignment=A1)
    # folders put into submitted/ by hand
    hostile = root / "submitted" / HOSTILE_FOLDER / A1
    hostile.mkdir(parents=True)
    hostile.joinpath(NB).write_bytes(solution)
    stranger = root / "submitted" / "stranger" / A1
    stranger.mkdir(parents=True)
    stranger.joinpath(NB).write_bytes(solution)
    linked = root / "submitted" / "mallory" / A1
    for p in linked.glob("*.ipynb"):
        p.unlink()
    os.symlink(root / "solutions" / A1 / NB, linked / NB)      # the solution, as mallory's work
    status, out = _run("--root", str(root), "autograde", "--jobs", "2", "--timeout", "20")
    fb_status, fb_out = _run("--root", str(root), "feedback")
    gr_status, gr_out = _run("--root", str(root), "grades", "--output", str(tmp / "grades.csv"))
    return dict(root=root, imported=imported, status=status, out=out, feedback=(fb_status, fb_out),
                grades=(gr_status, gr_out, tmp / "grades.csv"))


def test_the_zip_filed_each_file_under_its_own_student(graded):
    imported = graded["imported"]
    assert sorted(c[0] for c in imported.collected) == ["ada", "eve", "grace", "mallory"]
    assert (graded["root"] / "submitted" / "ada" / A1 / NB).read_bytes() == (SOLUTIONS / A1 / NB).read_bytes()


def test_honest_students_get_exactly_their_points_and_the_rest_is_refused(graded):
    from nbgrader.api import Gradebook

    status, out = graded["status"], graded["out"]
    assert status == 1, out                                   # something was refused: it says so
    for name in ("stranger", "mallory", "img src=x"):
        assert re.search(rf"REFUSED .*{re.escape(name)}", out), (name, out)
    full = _auto_points(SOLUTIONS / A1 / NB)
    root = graded["root"]
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "game-tree-search") as gb:
        auto = {s.id: sum(g.auto_score or 0 for nb in gb.find_submission(A1, s.id).notebooks for g in nb.grades)
                for s in gb.students}
    assert auto == {"ada": full, "grace": 0.0, "eve": full}, auto
    report = json.loads((root / "autograded" / ".course-grading" / "report.json").read_text())
    assert sorted(report) == [f"{s}/{A1}" for s in ("ada", "eve", "grace")]
    assert not (root / "autograded" / "mallory").exists() and not (root / "autograded" / "stranger").exists()


def test_no_page_or_row_carries_what_a_student_wrote_as_markup(graded):
    root = graded["root"]
    page = (root / "feedback" / "eve" / A1 / "minimax.html").read_text()
    assert "Content-Security-Policy" in page
    assert "onerror=" not in page and "(top.PWN" not in page.replace("&lt;script&gt;", "")
    assert 'href="javascript:' not in page
    status, _, path = graded["grades"]
    assert status == 0
    rows = list(csv.DictReader(open(path)))
    assert {r["student"] for r in rows} == {"ada", "eve", "grace", "mallory"}   # the roster's ids only
    assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.@-]*", r["student"]) for r in rows)
    assert not any(p.name.startswith("<") for p in (root / "feedback").iterdir())
