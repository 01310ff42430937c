"""``collect-zip`` with learning-management systems' names: one folder per student, nothing
overwritten silently."""

from __future__ import annotations

import json
import zipfile

import pytest

from course.grading.term.intake.lms_zip import collect_zip
from test_grading_support import copy_course


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    copy_course(root)
    return root


def _nb(tag: str) -> bytes:
    """A distinguishable notebook body."""
    return json.dumps({"cells": [], "metadata": {"tag": tag}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, when, body in entries:
            zf.writestr(zipfile.ZipInfo(name, when), body)
    return path


MARCH = (2024, 3, 1, 9, 30, 0)
APRIL = (2024, 4, 2, 10, 0, 0)


def test_lms_names_map_one_student_to_one_folder(course, tmp_path):
    archive = _zip(tmp_path / "lms.zip", [
        ("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("canvas-a1")),           # Canvas
        ("lovelaceada_1234_9911_alphabeta.ipynb", MARCH, _nb("canvas-a2")),         # another submission id
        ("lovelaceada_LATE_1234_7777_chance.ipynb", APRIL, _nb("canvas-late-a3")),  # Canvas, late
        ("hopperg_4321_8888_bounded-1.ipynb", MARCH, _nb("canvas-resubmitted")),     # Canvas resubmission
        ("Alan Turing_5555_assignsubmission_file_/ordering.ipynb", MARCH, _nb("moodle")),  # Moodle
        ("A1 Minimax_knuthd_attempt_2024-03-01-09-30-00_minimax.ipynb", MARCH, _nb("blackboard")),
        ("A1 Minimax_knuthd_attempt_2024-03-01-09-30-00.txt", MARCH, b"comments"),
        ("student_01_minimax.ipynb", MARCH, _nb("s01")),
        ("student_02_minimax.ipynb", MARCH, _nb("s02")),
    ])
    out = tmp_path / "submitted"
    lines = []
    done = collect_zip(archive, out, root=course, timezone="UTC", log=lines.append)
    collected = [c[:3] for c in done.collected]
    assert sorted(collected) == [
        ("Alan_Turing", "a5_ordering", "ordering.ipynb"),
        ("hopperg", "a4_bounded", "bounded.ipynb"),
        ("knuthd", "a1_minimax", "minimax.ipynb"),
        ("lovelaceada", "a1_minimax", "minimax.ipynb"),
        ("lovelaceada", "a2_alphabeta", "alphabeta.ipynb"),
        ("lovelaceada", "a3_chance", "chance.ipynb"),
        ("student_01", "a1_minimax", "minimax.ipynb"),
        ("student_02", "a1_minimax", "minimax.ipynb"),
    ]
    assert sorted(p.name for p in out.iterdir()) == [
        "Alan_Turing", "hopperg", "knuthd", "lovelaceada", "student_01", "student_02"]
    assert json.loads((out / "hopperg" / "a4_bounded" / "bounded.ipynb").read_text())["metadata"]["tag"] \
        == "canvas-resubmitted"
    assert (out / "lovelaceada" / "a3_chance" / "timestamp.txt").read_text().strip() == "2024-04-02 10:00:00"
    assert [name for name, _ in done.ignored] == ["A1 Minimax_knuthd_attempt_2024-03-01-09-30-00.txt"]
    assert done.ok and not done.refused and not done.ambiguous
    assert lines == []      # nothing replaced


def test_two_submissions_in_one_zip_keep_the_newer_and_say_so(course, tmp_path):
    archive = _zip(tmp_path / "twice.zip", [
        ("lovelaceada_1234_9999_minimax.ipynb", APRIL, _nb("second")),
        ("lovelaceada_LATE_1234_5678_minimax.ipynb", MARCH, _nb("first")),
    ])
    out = tmp_path / "submitted"
    lines = []
    done = collect_zip(archive, out, root=course, timezone="UTC", log=lines.append)
    assert [c[:3] for c in done.collected] == [("lovelaceada", "a1_minimax", "minimax.ipynb")]
    body = json.loads((out / "lovelaceada" / "a1_minimax" / "minimax.ipynb").read_text())
    assert body["metadata"]["tag"] == "second"
    assert len(lines) == 1 and "kept lovelaceada_1234_9999_minimax.ipynb" in lines[0]
    assert "lovelaceada_LATE_1234_5678_minimax.ipynb" in lines[0]
    assert done.refused == [("lovelaceada_LATE_1234_5678_minimax.ipynb", "another file of lovelaceada "
                             "was taken as minimax.ipynb (lovelaceada_1234_9999_minimax.ipynb)")]
    assert (out / "lovelaceada" / "a1_minimax" / "timestamp.txt").read_text().strip() == "2024-04-02 10:00:00"


def test_an_existing_submission_is_replaced_only_by_a_newer_one_and_never_silently(course, tmp_path):
    out = tmp_path / "submitted"
    first = _zip(tmp_path / "first.zip", [("ada/a1_minimax/minimax.ipynb", APRIL, _nb("april"))])
    collect_zip(first, out, root=course, timezone="UTC")
    # an older zip does not overwrite the newer submission already collected
    older = _zip(tmp_path / "older.zip", [("ada/a1_minimax/minimax.ipynb", MARCH, _nb("march"))])
    lines = []
    done = collect_zip(older, out, root=course, timezone="UTC", log=lines.append)
    assert done.collected == [] and len(done.notes) == 2           # older; and: no roster
    assert json.loads((out / "ada" / "a1_minimax" / "minimax.ipynb").read_text())["metadata"]["tag"] == "april"
    assert len(lines) == 1 and "kept the newer submission already in" in lines[0]
    # a newer one replaces it, and says so
    newer = _zip(tmp_path / "newer.zip", [("ada/a1_minimax/minimax.ipynb", (2024, 5, 1, 8, 0, 0), _nb("may"))])
    lines = []
    done = collect_zip(newer, out, root=course, timezone="UTC", log=lines.append)
    assert [c[:3] for c in done.collected] == [("ada", "a1_minimax", "minimax.ipynb")]
    assert json.loads((out / "ada" / "a1_minimax" / "minimax.ipynb").read_text())["metadata"]["tag"] == "may"
    assert len(lines) == 1 and "replaced the submission already collected (2024-04-02 10:00:00)" in lines[0]
    assert (out / "ada" / "a1_minimax" / "timestamp.txt").read_text().strip() == "2024-05-01 08:00:00"
    # the same zip again: identical files, nothing to say
    lines = []
    collect_zip(newer, out, root=course, timezone="UTC", log=lines.append)
    assert lines == []


def test_the_command_prints_the_warnings(course, tmp_path, capsys):
    from course.grading.__main__ import main

    archive = _zip(tmp_path / "twice.zip", [
        ("lovelaceada_1234_9999_minimax.ipynb", APRIL, _nb("second")),
        ("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("first")),
    ])
    assert main(["--root", str(course), "collect-zip", str(archive), "--timezone", "UTC",
                 "--submissions", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert "WARNING: lovelaceada/a1_minimax/minimax.ipynb: two files in the zip" in captured.out
    assert "1 refused:" in captured.err and "lovelaceada_1234_5678_minimax.ipynb" in captured.err


def test_the_command_collects_into_the_course_given_by_root(course, tmp_path, monkeypatch, capsys):
    """``--root DIR collect-zip`` files the zip into DIR's ``submitted/`` (where autograde reads it
    and where versions are kept), not into a ``submitted/`` of the current directory."""
    from course.grading.__main__ import main

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    archive = _zip(tmp_path / "lms.zip", [("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("ada"))])
    assert main(["--root", str(course), "collect-zip", str(archive), "--timezone", "UTC",
                 "--assignment", "a1_minimax"]) == 0
    assert not (elsewhere / "submitted").exists()
    written = course / "submitted" / "lovelaceada" / "a1_minimax" / "minimax.ipynb"
    assert json.loads(written.read_text())["metadata"]["tag"] == "ada"
    assert list((course / "versions" / "lovelaceada" / "a1_minimax").glob("001-*"))
    assert f"1 files collected into {course.resolve() / 'submitted'}" in capsys.readouterr().out


def test_an_undated_resubmission_of_an_earlier_file_is_the_latest_version(course, tmp_path):
    """Canvas's zips carry no submission times: a student who hands in A, then B, then A again
    has A as their latest.  The third A used to be taken for version 1 (same content), so the
    policy "latest" chose B, and autograde put B back into submitted/."""
    from course.grading.term.policies import choose_version
    from course.grading.term.versions import versions

    for n, tag in enumerate(("A", "B", "A"), start=1):
        archive = _zip(tmp_path / f"canvas{n}.zip", [(f"lovelaceada_1234_56{n}_minimax.ipynb", MARCH, _nb(tag))])
        collect_zip(archive, root=course, assignment="a1_minimax")      # Canvas: no times
    submitted = course / "submitted" / "lovelaceada" / "a1_minimax" / "minimax.ipynb"
    assert json.loads(submitted.read_text())["metadata"]["tag"] == "A"
    found = versions(course, "lovelaceada", "a1_minimax")
    latest = choose_version("latest", found)
    assert json.loads((latest.path / "minimax.ipynb").read_text())["metadata"]["tag"] == "A"
    # the same zip again is no new hand-in
    collect_zip(tmp_path / "canvas3.zip", root=course, assignment="a1_minimax")
    assert len(versions(course, "lovelaceada", "a1_minimax")) == len(found)


def test_an_undated_file_collected_after_a_dated_version_is_the_latest(course, tmp_path):
    """lms.md: a file without a time (a Canvas zip) is taken as the latest.  After a version with
    a time (the exchange, a zip read with --timezone) it used to count as the *oldest* (versions
    without a time sorted first), so "latest" chose the earlier, dated version; now an undated
    version stands at the time it was collected, after every version handed in before that."""
    from course.grading.term.policies import choose_version
    from course.grading.term.versions import versions

    dated = _zip(tmp_path / "dated.zip", [("lovelaceada_1234_561_minimax.ipynb", MARCH, _nb("A"))])
    collect_zip(dated, root=course, assignment="a1_minimax", timezone="UTC")
    undated = _zip(tmp_path / "canvas.zip", [("lovelaceada_1234_562_minimax.ipynb", MARCH, _nb("B"))])
    collect_zip(undated, root=course, assignment="a1_minimax")                     # Canvas: no times
    found = versions(course, "lovelaceada", "a1_minimax")
    assert [v.timestamp is None for v in found] == [False, True]
    import datetime as dt

    for policy in ("latest", "latest-before-due"):          # (an undated file is never late)
        chosen = choose_version(policy, found, due=dt.datetime(2030, 1, 1))
        assert json.loads((chosen.path / "minimax.ipynb").read_text())["metadata"]["tag"] == "B", policy
    # a version handed in (with its time: the exchange) after the undated one was collected
    # comes after it
    from course.grading.term.versions import keep_version

    folder = tmp_path / "exchange" / "lovelaceada" / "a1_minimax"
    folder.mkdir(parents=True)
    (folder / "minimax.ipynb").write_bytes(_nb("C"))
    soon = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2)
    (folder / "timestamp.txt").write_text(soon.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    keep_version(course, "lovelaceada", "a1_minimax", folder)
    chosen = choose_version("latest", versions(course, "lovelaceada", "a1_minimax"))
    assert json.loads((chosen.path / "minimax.ipynb").read_text())["metadata"]["tag"] == "C"
