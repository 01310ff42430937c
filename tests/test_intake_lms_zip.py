"""LMS zip import against crafted names and crafted zips (issue 19, item 4).

Every attack here succeeded on the zip import as it was (a folder name ignored, a greedy name
pattern, a notebook name shared by two assignments, renamed files dropped without a word);
each test now checks that the victim's work is untouched and that the import says what it
refused.  The zip's own tricks (``..``, links, bombs, duplicate names, dates in the future,
case-folding collisions) never write outside ``submitted/<id>/<assignment>/``.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import stat
import zipfile

import pytest

from course.grading.term.course_dir import WorkflowError
from course.grading.term.intake import lms_zip
from course.grading.term.intake.lms_zip import collect_zip
from test_grading_support import copy_course

ROSTER = ("id,first_name,last_name,email,lms_user_id,lms_names\n"
          "ada,Ada,Lovelace,,1234,lovelaceada\n"
          "grace,Grace,Hopper,,4321,hopperg\n"
          "knuthd,Donald,Knuth,,,\n"
          "alan,Alan,Turing,,5555,turinga\n"
          "mallory,Mallory,Jones,,6666,jonesm\n")
MARCH, LATER = (2024, 3, 1, 9, 0, 0), (2024, 3, 1, 10, 0, 0)


@pytest.fixture
def course(tmp_path):
    root = copy_course(tmp_path / "course")
    (root / "roster.csv").write_text(ROSTER)
    return root


def _nb(tag: str) -> bytes:
    return json.dumps({"cells": [], "metadata": {"tag": tag}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, when, body in entries:
            zf.writestr(zipfile.ZipInfo(name, when), body)
    return path


def _tag(path):
    return json.loads(path.read_text())["metadata"]["tag"]


# --- the attacks: one student's file filed as another's ---------------------------------

def test_a_folder_inside_a_moodle_folder_cannot_name_another_student(course, tmp_path):
    """Mallory uploads folders ``grace/a1_minimax/`` into her own Moodle submission."""
    archive = _zip(tmp_path / "moodle.zip", [
        ("Grace Hopper_88_assignsubmission_file_/minimax.ipynb", MARCH, _nb("grace")),
        ("Mallory Jones_77_assignsubmission_file_/grace/a1_minimax/minimax.ipynb", LATER, _nb("mallory")),
    ])
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert _tag(out / "grace" / "a1_minimax" / "minimax.ipynb") == "grace"
    assert _tag(out / "mallory" / "a1_minimax" / "minimax.ipynb") == "mallory"
    assert sorted(c[0] for c in done.collected) == ["grace", "mallory"]


def test_a_crafted_file_name_cannot_take_a_blackboard_identity(course, tmp_path):
    """Mallory names her upload ``knuthd_attempt_<date>_minimax.ipynb``: a greedy pattern read the
    student from the *last* ``_attempt_``, the student's part, and filed it as knuthd's."""
    archive = _zip(tmp_path / "bb.zip", [
        ("A1 Minimax_knuthd_attempt_2024-03-01-09-30-00_minimax.ipynb", MARCH, _nb("knuth")),
        ("A1 Minimax_mallory_attempt_2024-03-01-10-00-00_knuthd_attempt_2024-03-01-09-30-01_minimax.ipynb",
         LATER, _nb("mallory")),
    ])
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert _tag(out / "knuthd" / "a1_minimax" / "minimax.ipynb") == "knuth"
    assert _tag(out / "mallory" / "a1_minimax" / "minimax.ipynb") == "mallory"
    assert [e for e, _ in done.recognised] == [done.collected[1][3]]   # renamed: listed for review


@pytest.mark.parametrize("crafted", [
    "jonesm_6666_999_lovelaceada_1234_5678_minimax.ipynb",            # Canvas prefix inside the file
    "jonesm_6666_999_Ada Lovelace_1_assignsubmission_file_minimax.ipynb",
    "Mallory Jones_77_assignsubmission_file_lovelaceada_1234_5678_minimax.ipynb",
])
def test_no_name_a_student_chooses_replaces_another_students_work(course, tmp_path, crafted):
    out = tmp_path / "submitted"
    collect_zip(_zip(tmp_path / "first.zip", [("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("ada"))]),
                out, root=course, assignment="a1_minimax", timezone="UTC")
    done = collect_zip(_zip(tmp_path / "second.zip", [(crafted, LATER, _nb("mallory"))]), out, root=course,
                       assignment="a1_minimax", timezone="UTC")
    assert _tag(out / "ada" / "a1_minimax" / "minimax.ipynb") == "ada"
    assert [c[0] for c in done.collected] == ["mallory"]


def test_a_canvas_user_id_and_login_that_disagree_are_ambiguous(course, tmp_path):
    archive = _zip(tmp_path / "c.zip", [("lovelaceada_4321_5678_minimax.ipynb", MARCH, _nb("?"))])
    done = collect_zip(archive, tmp_path / "out", root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == [] and "can be ada, grace" in done.ambiguous[0][1]


def test_two_assignments_sharing_a_notebook_name_need_the_assignment(course, tmp_path):
    shutil.copytree(course / "solutions" / "a1_minimax", course / "solutions" / "a6_minimax_exam")
    archive = _zip(tmp_path / "exam.zip", [("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("exam"))])
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC")
    assert done.collected == [] and not done.ok
    assert "a notebook of a1_minimax and a6_minimax_exam: name one with --assignment" in done.ambiguous[0][1]
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a6_minimax_exam")
    assert [c[:2] for c in done.collected] == [("ada", "a6_minimax_exam")]
    assert not (out / "ada" / "a1_minimax").exists()


def test_a_notebook_of_another_assignment_is_refused_with_the_reason(course, tmp_path):
    archive = _zip(tmp_path / "a1.zip", [("lovelaceada_1234_5678_alphabeta.ipynb", MARCH, _nb("x"))])
    done = collect_zip(archive, tmp_path / "out", root=course, timezone="UTC", assignment="a1_minimax")
    assert done.refused == [("lovelaceada_1234_5678_alphabeta.ipynb", "a notebook of a2_alphabeta, not of a1_minimax")]


# --- what honest zips bring: renamed files, extra files, students who sent nothing ----------------

def test_renamed_files_are_recognised_and_the_rest_is_listed(course, tmp_path):
    archive = _zip(tmp_path / "renamed.zip", [
        ("Alan Turing_5_assignsubmission_file_/Minimax (1).ipynb", MARCH, _nb("alan")),
        ("lovelaceada_1234_5678_minimax-final.ipynb", MARCH, _nb("ada")),
        ("A1_knuthd_attempt_2024-03-01-09-30-00_Minimax_RenamedByStudent.ipynb", MARCH, _nb("knuth")),
        ("hopperg_4321_8888_notes.ipynb", MARCH, _nb("grace notes")),
        ("hopperg_4321_8888_minimax.ipynb", MARCH, _nb("grace one")),
        ("hopperg_4321_8888_Minimax (2).ipynb", MARCH, _nb("grace two")),
    ])
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert sorted(c[0] for c in done.collected) == ["ada", "alan", "knuthd"]
    assert done.recognised == [("A1_knuthd_attempt_2024-03-01-09-30-00_Minimax_RenamedByStudent.ipynb",
                                "minimax.ipynb")]
    assert done.refused == [("hopperg_4321_8888_notes.ipynb", "not a notebook of a1_minimax")]
    assert sorted(done.ambiguous) == [
        ("hopperg_4321_8888_Minimax (2).ipynb", "another file of grace is minimax.ipynb too, with the same date"),
        ("hopperg_4321_8888_minimax.ipynb", "another file of grace is minimax.ipynb too, with the same date")]
    assert not (out / "grace").exists()
    assert done.missing == [("grace", "a1_minimax"), ("mallory", "a1_minimax")]
    warning = done.warning()
    for text in ("1 refused:", "notes.ipynb", "2 ambiguous", "2 roster students with nothing collected:",
                 "  grace (a1_minimax)", "RenamedByStudent.ipynb' as minimax.ipynb"):
        assert text in warning
    assert not done.ok


def test_a_file_named_exactly_wins_over_a_renamed_one(course, tmp_path):
    archive = _zip(tmp_path / "two.zip", [
        ("Alan Turing_5_assignsubmission_file_/minimax.ipynb", MARCH, _nb("exact")),
        ("Alan Turing_5_assignsubmission_file_/old minimax answers.ipynb", LATER, _nb("renamed")),
    ])
    out = tmp_path / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert _tag(out / "alan" / "a1_minimax" / "minimax.ipynb") == "exact"
    assert [e for e, _ in done.refused] == ["Alan Turing_5_assignsubmission_file_/old minimax answers.ipynb"]


def test_the_command_exits_non_zero_and_names_every_problem(course, tmp_path, capsys):
    from course.grading.__main__ import main

    archive = _zip(tmp_path / "class.zip", [
        ("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("ada")),
        ("someone_9999_1_minimax.ipynb", MARCH, _nb("stranger")),
    ])
    status = main(["--root", str(course), "collect-zip", str(archive), "--timezone", "UTC", "--assignment", "a1_minimax",
                   "--submissions", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 1
    assert "'someone' (lms_user_id 9999) is not a student of the roster" in err
    assert "4 roster students with nothing collected" in err
    full = _zip(tmp_path / "full.zip", [(f"{login}_{uid}_1_minimax.ipynb", MARCH, _nb(login)) for login, uid in
                                        (("lovelaceada", 1234), ("hopperg", 4321), ("turinga", 5555),
                                         ("jonesm", 6666))] + [
        ("A1_knuthd_attempt_2024-03-01-09-30-00_minimax.ipynb", MARCH, _nb("knuth"))])
    assert main(["--root", str(course), "collect-zip", str(full), "--timezone", "UTC", "--assignment", "a1_minimax",
                 "--submissions", str(tmp_path / "out2")]) == 0


# --- the zip's own tricks ------------------------------------------------------------------------

def test_entry_names_never_become_paths(course, tmp_path):
    archive = _zip(tmp_path / "slip.zip", [
        ("../../evil/a1_minimax/minimax.ipynb", MARCH, _nb("slip")),
        ("/etc/ada/a1_minimax/minimax.ipynb", MARCH, _nb("abs")),
        ("C:/ada/a1_minimax/minimax.ipynb", MARCH, _nb("drive")),
        ("..\\..\\ada_minimax.ipynb", MARCH, _nb("backslash")),
        ("ada/../grace/a1_minimax/minimax.ipynb", MARCH, _nb("dotdot")),
    ])
    out = tmp_path / "sub" / "submitted"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == [] and len(done.refused) == 5
    assert not (tmp_path / "evil").exists() and not (tmp_path / "sub" / "evil").exists()
    assert not out.exists() or not any(out.iterdir())


def test_a_zip_bomb_stops_at_the_size_limit(course, tmp_path, monkeypatch):
    monkeypatch.setattr(lms_zip, "MAX_FILE_BYTES", 2 ** 20)
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("lovelaceada_1234_5678_minimax.ipynb", b"0" * (5 * 2 ** 20))
    done = collect_zip(path, tmp_path / "out", root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == [] and "larger than 1 MiB unpacked" in done.refused[0][1]
    # a header that lies about the size is caught while reading
    raw = bytearray(path.read_bytes())
    central = raw.rfind(b"PK\x01\x02")
    raw[central + 24:central + 28] = (100).to_bytes(4, "little")      # uncompressed size in the directory
    lying = tmp_path / "lying.zip"
    lying.write_bytes(bytes(raw))
    done = collect_zip(lying, tmp_path / "out", root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == [] and "cannot be unpacked" in done.refused[0][1]
    assert not (tmp_path / "out" / "ada" / "a1_minimax" / "minimax.ipynb").exists()


def test_absurd_zips_are_refused_whole(course, tmp_path, monkeypatch):
    monkeypatch.setattr(lms_zip, "MAX_ENTRIES", 5)
    archive = _zip(tmp_path / "many.zip", [(f"s{i}_minimax.ipynb", MARCH, b"{}") for i in range(6)])
    with pytest.raises(WorkflowError, match="6 entries"):
        collect_zip(archive, tmp_path / "out", root=course, timezone="UTC")


def test_duplicate_names_links_and_future_dates_are_refused(course, tmp_path):
    path = tmp_path / "tricks.zip"
    future = (dt.datetime.now() + dt.timedelta(days=30)).timetuple()[:6]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("lovelaceada_1234_5678_minimax.ipynb", MARCH), _nb("one"))
        with pytest.warns(UserWarning, match="Duplicate name"):
            zf.writestr(zipfile.ZipInfo("lovelaceada_1234_5678_minimax.ipynb", LATER), _nb("two"))
        link = zipfile.ZipInfo("hopperg_4321_1_minimax.ipynb", MARCH)
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/home/instructor/course/solutions/a1_minimax/minimax.ipynb")
        zf.writestr(zipfile.ZipInfo("turinga_5555_1_minimax.ipynb", future), _nb("future"))
    done = collect_zip(path, tmp_path / "out", root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == []
    assert [why for _, why in done.ambiguous] == ["the zip holds 2 entries with this name: they cannot be "
                                                  "told apart"] * 2
    reasons = dict(done.refused)
    assert reasons["hopperg_4321_1_minimax.ipynb"] == "a symbolic link"
    assert "in the future" in reasons["turinga_5555_1_minimax.ipynb"]


def test_names_equal_but_for_case_are_one_student_and_one_notebook(course, tmp_path):
    archive = _zip(tmp_path / "case.zip", [
        ("LoveLaceAda_1234_1_Minimax.ipynb", MARCH, _nb("upper")),
        ("lovelaceada_1234_2_minimax.ipynb", LATER, _nb("lower")),
    ])
    out = tmp_path / "out"
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert [p.name for p in out.iterdir()] == ["ada"]
    assert [p.name for p in (out / "ada" / "a1_minimax").iterdir() if p.suffix == ".ipynb"] == ["minimax.ipynb"]
    assert _tag(out / "ada" / "a1_minimax" / "minimax.ipynb") == "lower"
    assert len(done.refused) == 1


def test_without_a_roster_names_must_still_be_valid_ids(tmp_path):
    course = copy_course(tmp_path / "course")
    archive = _zip(tmp_path / "x.zip", [
        ("<img src=x onerror=alert(1)>_minimax.ipynb", MARCH, _nb("xss")),
        ("=cmd()_minimax.ipynb", MARCH, _nb("formula")),
        ("ada_minimax.ipynb", MARCH, _nb("ada")),
    ])
    done = collect_zip(archive, tmp_path / "out", root=course, timezone="UTC")
    assert [c[0] for c in done.collected] == ["ada"]
    assert all("is not a valid student id" in why for _, why in done.refused) and len(done.refused) == 2
    assert any("no roster" in note for note in done.notes)


def test_a_submissions_folder_planted_as_a_link_is_not_followed(course, tmp_path):
    out = tmp_path / "submitted"
    (out).mkdir()
    (tmp_path / "elsewhere").mkdir()
    (out / "ada").symlink_to(tmp_path / "elsewhere")
    archive = _zip(tmp_path / "a.zip", [("lovelaceada_1234_5678_minimax.ipynb", MARCH, _nb("ada"))])
    done = collect_zip(archive, out, root=course, timezone="UTC", assignment="a1_minimax")
    assert done.collected == [] and "symbolic link" in done.refused[0][1]
    assert not any((tmp_path / "elsewhere").iterdir())
