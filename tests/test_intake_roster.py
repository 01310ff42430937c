"""The roster (``roster.csv``) and the one student id pattern every entry point checks.

Names that could do harm where an id is used (a path, a page, a spreadsheet, the exchange's
``+``-separated entry names) are refused; a roster that cannot tell two students apart is
refused as a whole, with the line named; nbgrader itself reads the same file.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from course.grading.term.intake.roster import (Roster, RosterError, course_roster, parse_roster,
                                          read_roster)
from course.grading.term.intake.student_ids import InvalidStudentId, check_student_id, is_student_id

HOSTILE_NAMES = [
    "../ada", "ada/../../etc", "/etc/passwd", ".hidden", "..", "-rf", "=HYPERLINK(\"x\")", "+cmd",
    "@SUM(1)", "ada+a1_minimax+2024", "a*", "<img src=x onerror=alert(1)>", "ada\"", "ada'", "a b",
    "ada\n", "ada\x00", "\u0430da", "ad\u200ba", "con", "NUL.txt", "x" * 65, "", "ada.", "a%2e",
    "a:b", "a\\b",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_names_are_not_student_ids(name):
    assert not is_student_id(name)
    with pytest.raises(InvalidStudentId, match="not a valid student id"):
        check_student_id(name, where="submitted/x")


@pytest.mark.parametrize("name", ["ada", "student_01", "alan.turing", "ada@uni.edu", "20231234",
                                  "Ada_Lovelace", "a", "s-1_"])
def test_ordinary_ids_are(name):
    assert check_student_id(name) == name


def test_the_roster_decides_who_is_a_student(tmp_path):
    roster = parse_roster("id,first_name,last_name\nada,Ada,Lovelace\n", tmp_path / "roster.csv")
    assert check_student_id("ada", roster=roster) == "ada"
    with pytest.raises(InvalidStudentId, match="not a student of the roster"):
        check_student_id("mallory", roster=roster)


def test_a_spreadsheet_export_reads(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffid , first_name,last_name,email,lms_user_id,lms_names\r\n"
                     "ada,Ada,Lovelace,ada@example.org,1234,lovelaceada\r\n\r\n"
                     " grace ,Grace,Hopper,,4321, hopperg ; Grace B. Hopper \r\n"
                     "alan,Alan,Turing,,,\r\n".encode("utf-8"))
    roster = read_roster(path)
    assert isinstance(roster, Roster) and roster.ids == ["ada", "grace", "alan"]
    assert roster.get("grace").lms_names == ("hopperg", "Grace B. Hopper")
    assert [s.id for s in roster.by_name("GRACE_B._HOPPER")] == ["grace"]
    assert [s.id for s in roster.by_name("Ada Lovelace")] == ["ada"]
    assert [s.id for s in roster.by_lms_user_id("1234")] == ["ada"]
    assert course_roster(tmp_path).ids == roster.ids
    assert course_roster(tmp_path / "nowhere") is None


@pytest.mark.parametrize("text, message", [
    ("name\nada\n", "no 'id' column"),
    ("id\nada\n../x\n", "line 3: '../x' is not a valid student id"),
    ("id\nada\nada\n", "line 3: the id 'ada' is already on line 2"),
    ("id\nada\nADA\n", "differ only in case"),
    ("id,lms_user_id\nada,12\ngrace,12\n", "lms_user_id '12' is also the one of 'ada'"),
    ("id,lms_names\nada,gh\ngrace,GH\n", "belongs to both 'ada' and 'grace'"),
    ("id,lms_names\nada,grace\ngrace,\n", "belongs to both"),
])
def test_a_roster_that_cannot_tell_students_apart_is_refused(text, message):
    with pytest.raises(RosterError, match=message):
        parse_roster(text)


def test_an_unreadable_roster_is_never_ignored(tmp_path):
    (tmp_path / "roster.csv").write_bytes(b"id\n\xff\xfe\n")
    with pytest.raises(RosterError, match="not UTF-8"):
        course_roster(tmp_path)


@pytest.mark.nbgrader
def test_nbgrader_imports_the_same_file(tmp_path):
    """``nbgrader db student import roster.csv`` reads the roster, the extra column ignored."""
    (tmp_path / "roster.csv").write_text("id,first_name,last_name,email,lms_user_id,lms_names\n"
                                         "ada,Ada,Lovelace,ada@example.org,1234,lovelaceada\n")
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.course_id = 'x'\n")
    nbgrader = Path(sys.executable).parent / "nbgrader"
    done = subprocess.run([str(nbgrader), "db", "student", "import", "roster.csv"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": f"{nbgrader.parent}:/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", "x") as gb:
        ada = gb.find_student("ada")
        assert (ada.first_name, ada.last_name, ada.email, ada.lms_user_id) == \
            ("Ada", "Lovelace", "ada@example.org", "1234")
