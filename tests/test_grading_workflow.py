"""The instructor workflow without running notebooks: zip collection, repairing submissions,
auditing, and the command line's handling of mistakes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest

from course.grading.term.course_dir import WorkflowError, course_layout
from course.grading.term.intake.lms_zip import collect_zip
from course.grading.term.intake.repair import audit_notebook, repair_notebook, repair_submission
from test_grading_support import EXERCISES, SOLUTIONS, copy_course

RELEASE_A2 = EXERCISES / "a2_alphabeta" / "alphabeta.ipynb"


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    copy_course(root)
    return root


def _grade_ids(nb):
    return [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]


# --- zip collection ------------------------------------------------------------------------------
def test_collect_zip_understands_three_layouts(course, tmp_path):
    archive = tmp_path / "class.zip"
    body = RELEASE_A2.read_bytes()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(zipfile.ZipInfo("ada/a2_alphabeta/alphabeta.ipynb", (2024, 3, 1, 9, 30, 0)), body)
        zf.writestr("Grace Hopper_123_assignsubmission_file_/minimax.ipynb", body)
        zf.writestr("alan.turing_ordering.ipynb", body)
        zf.writestr("__MACOSX/ada/._alphabeta.ipynb", b"junk")
        zf.writestr("../../etc/passwd", b"x")
        zf.writestr("notes.txt", b"hello")
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC")
    assert sorted(c[:3] for c in done.collected) == [
        ("Grace_Hopper", "a1_minimax", "minimax.ipynb"),
        ("ada", "a2_alphabeta", "alphabeta.ipynb"),
        ("alan.turing", "a5_ordering", "ordering.ipynb"),
    ]
    assert (out / "ada" / "a2_alphabeta" / "alphabeta.ipynb").read_bytes() == body
    assert (out / "ada" / "a2_alphabeta" / "timestamp.txt").read_text().strip() == "2024-03-01 09:30:00"
    assert [e for e, _ in done.ignored] == ["__MACOSX/ada/._alphabeta.ipynb"]
    assert dict(done.refused).keys() == {"../../etc/passwd", "notes.txt"} and not done.ok
    assert not (tmp_path / "etc").exists()


def test_a_zip_of_a_submitted_folder_keeps_its_layout(course, tmp_path):
    archive = tmp_path / "submitted.zip"
    body = RELEASE_A2.read_bytes()
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("submitted/ada/a2_alphabeta/alphabeta.ipynb", body)
        zf.writestr("submitted/ada/a2_alphabeta/timestamp.txt", "2024-03-01 09:30:00")
        zf.writestr("submitted/grace/a2_alphabeta/alphabeta.ipynb", body)
    done = collect_zip(archive, tmp_path / "out", root=course, timezone="UTC")
    assert sorted(c[:2] for c in done.collected) == [("ada", "a2_alphabeta"), ("grace", "a2_alphabeta")]
    assert [e for e, _ in done.ignored] == ["submitted/ada/a2_alphabeta/timestamp.txt"]


def test_collect_zip_rejects_what_is_not_a_zip(course, tmp_path):
    bogus = tmp_path / "class.zip"
    bogus.write_text("not a zip")
    with pytest.raises(WorkflowError, match="not a zip archive"):
        collect_zip(bogus, tmp_path / "out", root=course, timezone="UTC")
    with pytest.raises(WorkflowError, match="no zip file"):
        collect_zip(tmp_path / "missing.zip", tmp_path / "out", root=course, timezone="UTC")


# --- repairing submissions -------------------------------------------------------------------------
def test_missing_cells_come_back_in_place():
    release = nbformat.read(RELEASE_A2, as_version=4)
    ids = _grade_ids(release)
    gone = {"a2-test-ties", "a2-alphabeta", "a2-answer"}
    damaged = json.loads(nbformat.writes(release))
    damaged["cells"] = [c for c in damaged["cells"]
                        if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") not in gone]
    fixed, changes = repair_notebook(damaged, release)
    assert _grade_ids(fixed) == ids
    assert sorted(changes) == sorted(f"re-added missing cell {g}" for g in gone)


def test_copies_unknown_ids_metadata_and_types_are_repaired():
    release = nbformat.read(RELEASE_A2, as_version=4)
    nb = json.loads(nbformat.writes(release))
    test = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "a2-test-move")
    nb["cells"].append(json.loads(json.dumps(test)))                       # a copy of a test cell
    nb["cells"].append({"cell_type": "code", "source": "x = 1", "metadata": {
        "nbgrader": {"grade_id": "mine", "grade": True, "points": 50}}, "outputs": []})
    test["metadata"]["nbgrader"]["points"] = 99
    answer = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "a2-answer")
    answer["cell_type"] = "code"
    nb["cells"].append("not a cell")
    fixed, changes = repair_notebook(nb, release)
    text = "\n".join(changes)
    assert "second copy of cell a2-test-move" in text and "unknown id 'mine'" in text
    assert "restored the grading metadata of cell a2-test-move" in text
    assert "changed cell a2-answer back to a markdown cell" in text
    assert "dropped 1 malformed cell" in text
    assert [g for g in _grade_ids(fixed) if g] == [g for g in _grade_ids(release) if g]
    nbformat.validate(fixed)


def _repair_a2_submission(tmp_path, text):
    """A fresh a2 submission whose alphabeta.ipynb holds ``text``, and its repair report."""
    submission = tmp_path / "a2"
    submission.mkdir()
    (submission / "alphabeta.ipynb").write_text(text, encoding="utf-8")
    return submission, repair_submission(submission, RELEASE_A2.parent)


def test_unreadable_and_missing_notebooks_become_blank_releases(tmp_path):
    submission, report = _repair_a2_submission(tmp_path, '{"cells": [')
    assert "not valid JSON" in report.unreadable["alphabeta.ipynb"]
    assert (submission / "alphabeta.ipynb.unreadable").exists()
    assert (submission / "alphabeta.ipynb").read_bytes() == RELEASE_A2.read_bytes()
    (submission / "alphabeta.ipynb").unlink()
    report = repair_submission(submission, RELEASE_A2.parent)
    assert report.missing == ["alphabeta.ipynb"]


def test_json_that_is_not_a_notebook_is_unreadable(tmp_path):
    _, report = _repair_a2_submission(tmp_path, '{"hello": 1}')
    assert "not a notebook" in report.unreadable["alphabeta.ipynb"]


def test_audit_flags_suspicious_student_code_only():
    release = nbformat.read(RELEASE_A2, as_version=4)
    nb = nbformat.read(SOLUTIONS / "a2_alphabeta" / "alphabeta.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "a2-alphabeta":
            cell.source += "\nimport sys\nsys.settrace(None)\nfrom course.search import alphabeta\n"
    findings = audit_notebook(nb, release)
    assert any("tracing hooks" in f for f in findings)
    assert any("reference search" in f for f in findings)
    assert all("a2-run-question" not in f for f in findings)   # locked cells are not the student's


# --- the command line ----------------------------------------------------------------------------
def test_cli_reports_instructor_mistakes_in_one_line(course, tmp_path, capsys, monkeypatch):
    from course.grading.__main__ import main

    monkeypatch.chdir(course)
    assert main(["autograde", "--submissions", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "no submissions folder" in err
    assert main(["--root", str(course), "feedback", "--assignment", "a9"]) == 2
    assert "unknown assignment 'a9'" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["autograde", "--submissions", str(tmp_path / "empty")]) == 2
    assert "nothing to grade" in capsys.readouterr().err


def test_the_module_runs_as_a_command(course, tmp_path):
    result = subprocess.run([sys.executable, "-m", "course.grading", "--root", str(course), "grades",
                             "--output", str(tmp_path / "g.csv")], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "g.csv").read_text().startswith("student,assignment,score,max_score")


def test_layout_reads_the_config(course):
    layout = course_layout(course)
    assert layout.source == course / "solutions" and layout.release == course / "exercises"
    assert layout.course_id == "game-tree-search"
    assert 0 < layout.cell_timeout < 3600
    assert layout.assignments() == ["a1_minimax", "a2_alphabeta", "a3_chance", "a4_bounded", "a5_ordering",
                                    "a6_selective"]


def test_a_release_changed_between_two_repairs_is_read_again(tmp_path):
    """The released notebook is read once while unchanged; a release rewritten since (a new cell
    added: its metadata must be restored in the next submission repaired) is read again."""
    release = tmp_path / "release"
    release.mkdir()
    shutil.copyfile(RELEASE_A2, release / RELEASE_A2.name)

    def repaired(name):
        submission = tmp_path / name
        submission.mkdir()
        shutil.copyfile(RELEASE_A2, submission / RELEASE_A2.name)
        repair_submission(submission, release)
        return nbformat.read(submission / RELEASE_A2.name, as_version=4)

    first = repaired("ann")
    nb = nbformat.read(release / RELEASE_A2.name, as_version=4)
    extra = nbformat.v4.new_markdown_cell("New hint")
    extra.metadata["nbgrader"] = {"grade_id": "a2-new-hint", "locked": True, "solution": False,
                                  "grade": False, "schema_version": 3}
    nb.cells.append(extra)
    nbformat.write(nb, release / RELEASE_A2.name)
    second = repaired("bob")
    assert "a2-new-hint" not in _grade_ids(first)
    assert "a2-new-hint" in _grade_ids(second)


@pytest.mark.parametrize("source", sorted(p.relative_to(SOLUTIONS).as_posix()
                                          for p in SOLUTIONS.glob("*/*.ipynb")))
def test_a_repaired_notebook_reads_back_as_nbformat_writes_it(tmp_path, source):
    """The staged notebook is written as one line of JSON (the worker reads it, nobody else):
    nbformat reads the same notebook from it as from nbformat's own indented form, for every
    assignment's solutions with unusual text and metadata added (unicode, a multi-line output,
    a trusted flag, orig_nbformat)."""
    release = EXERCISES / source
    raw = json.loads((SOLUTIONS / source).read_text(encoding="utf-8"))
    raw["metadata"]["orig_nbformat"] = 3
    raw["cells"].insert(0, {"cell_type": "code", "id": "planted", "execution_count": 3,
                            "metadata": {"trusted": True, "tags": ["é", "😀"]},
                            "source": ["x = '\\u2028 ü 😀'\n", "print(x)\r\n", "y = '\\\\n'"],
                            "outputs": [{"output_type": "stream", "name": "stdout",
                                         "text": ["a\n", "b\u2028c\n"]}]})
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / release.name).write_text(json.dumps(raw), encoding="utf-8")
    repair_submission(folder, release.parent)
    fixed, _ = repair_notebook(json.loads(json.dumps(raw)), nbformat.read(release, as_version=4))
    expected = nbformat.reads(nbformat.v4.writes(fixed), as_version=4)
    staged = nbformat.read(folder / release.name, as_version=4)
    assert staged == expected
    assert "trusted" not in staged.cells[0].metadata and "orig_nbformat" not in staged.metadata
