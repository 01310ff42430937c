"""Grades and feedback for a learning-management system: the files Canvas's and Moodle's imports read.

Only sees verdicts -- the rows of ``grades.csv`` (the function that writes
:func:`.grades.grades`, so every format shares its numbers), the roster and the feedback pages already
written -- and writes files for the LMS.

Grades
------
:func:`lms_grades` writes one row per student and one column per released
assignment, in the layout the LMS's gradebook import reads:

``canvas``
    Canvas's *Gradebook > Import* (its ``GradebookImporter``): the header
    ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per
    assignment named as Canvas names it -- ``Title (12345)`` when the Canvas
    assignment id is known (``assignment_ids``, or read from a gradebook export
    of the course), else the assignment's name, which Canvas matches to an
    assignment of that exact title or offers to create --; then the row
    ``    Points Possible``, then one row per student.  Canvas finds the student
    by ``ID`` (the roster's ``lms_user_id``), then ``SIS User ID``, then ``SIS
    Login ID`` (the roster's ``sis_user_id``, ``sis_login_id``), and last by name
    (``Student``: ``Last, First``, Canvas's sortable name).
``moodle``
    Moodle's *Grades > Import > CSV file* (``gradeimport_csv``): one identifier
    column that the import maps to a user field -- ``Email address`` (the
    roster's ``email``, the default), ``ID number`` (``sis_user_id``) or
    ``Username`` (``sis_login_id``) -- then one column per assignment, which the
    import's form maps to a grade item.

A student the LMS could not find, or could find twice, is never written with
a guess: a row without the identifier Moodle maps on would be filed under the
*previous* row's student (Moodle keeps the last user it found when a row's
identifier is empty), and a Moodle import stops at the first identifier it
cannot find.  Such students are left out and named (:attr:`LmsExport.left_out`).
Every cell written from the roster's free text (names, section) is made inert
for spreadsheets: control characters become spaces and a cell that would start
a formula (``= + - @``) is prefixed with ``'``; an identifier that would start
a formula is not mangled (the LMS would not find it) but left out with the
student.

Feedback
--------
:func:`feedback_zip` packs the feedback pages of one assignment
(``feedback/<student>/<assignment>/*.html``) into one zip laid out as the LMS's
re-upload reads it, addressed with the numbers of the LMS's own download of
the submissions (the zip given to ``collect-zip``):

``moodle``
    *Upload multiple feedback files in a zip* (``assignfeedback_file``): a
    folder per student named as Moodle's download names it,
    ``<Full Name>_<participant id>_assignsubmission_file_/``; Moodle reads the
    participant id (the assignment's own number for the student) and files
    everything in the folder as that student's feedback files.
``canvas``
    Canvas has no feedback-file import.  Its *Re-Upload Submissions* reads a zip
    of files named as its download named them, ``<name>_<user id>_<attachment
    id>_<anything>``, and attaches each file to a comment on the submission of
    ``<user id>`` -- but only when ``<attachment id>`` is a file of that
    submission, and under that file's name (``minimax.ipynb``), whatever the
    file holds.  The zip is written so; the user id must be the roster's
    ``lms_user_id`` of the student, else the student is left out.

Each student's folder or files hold only that student's own pages; a student
the download names twice (two participant ids, two user ids), or whose number
another student also has, is left out and named.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import os
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..course_dir import WorkflowError, course_layout

__all__ = ["LMS_FORMATS", "CANVAS_STUDENT_COLUMNS", "MOODLE_IDENTIFIERS", "GradeTable", "LmsExport",
           "FeedbackZip", "grade_table", "canvas_csv", "moodle_csv", "canvas_assignment_ids",
           "lms_grades", "feedback_zip", "spreadsheet_text"]

#: The LMS formats :func:`lms_grades` writes.
LMS_FORMATS = ("canvas", "moodle")
#: The student columns of Canvas's gradebook import, in its order.
CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: The first cell of Canvas's points-possible row (as Canvas's own export writes it).
CANVAS_POINTS_POSSIBLE = "    Points Possible"
#: Moodle's user fields a grade import can map on: identifier -> (column header, roster field).
MOODLE_IDENTIFIERS = {"email": ("Email address", "email"), "idnumber": ("ID number", "sis_user_id"),
                      "username": ("Username", "sis_login_id")}

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_FORMULA_START = ("=", "+", "-", "@")
_CANVAS_TITLE_ID = re.compile(r"\A(.*)\s\((\d+)\)\Z")     # Canvas's Assignment.title_and_id


def spreadsheet_text(text: object) -> str:
    """Free text made inert for a spreadsheet: control characters become spaces, and a cell that
    would start a formula gets a leading ``'``.

    >>> spreadsheet_text('=HYPERLINK("http://x", "click")'), spreadsheet_text("Lovelace,\\nAda")
    ('\\'=HYPERLINK("http://x", "click")', 'Lovelace, Ada')
    >>> spreadsheet_text("Ada"), spreadsheet_text("-1")
    ('Ada', "'-1")
    """
    text = _CONTROL.sub(" ", str(text)).strip()
    return "'" + text if text.startswith(_FORMULA_START) else text


def _formula(text: str) -> bool:
    return text.strip().startswith(_FORMULA_START) or _CONTROL.search(text) is not None


def _points(value: float) -> str:
    """A score as the LMS reads it: at most two decimals, ``.`` as the decimal point."""
    text = f"{round(float(value), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class GradeTable:
    """The grades of ``grades.csv`` as a table: one score per student and released assignment."""

    students: tuple[str, ...]
    """Student ids, sorted."""
    assignments: tuple[str, ...]
    """Released assignments, in the course's order."""
    scores: Mapping[tuple[str, str], float]
    """``(student, assignment) -> score`` (after the late penalty, as in ``grades.csv``)."""
    max_scores: Mapping[str, float]
    """``assignment -> points possible``."""


def grade_table(rows: Iterable[Mapping[str, Any]]) -> GradeTable:
    """The rows of ``grades.csv`` (dicts with ``student``, ``assignment``, ``score``, ``max_score``)
    as a :class:`GradeTable`.

    >>> t = grade_table([{"student": "ada", "assignment": "a1", "score": 9.5, "max_score": 11.0},
    ...                  {"student": "alan", "assignment": "a1", "score": 0.0, "max_score": 11.0}])
    >>> t.students, t.assignments, t.scores[("ada", "a1")], t.max_scores["a1"]
    (('ada', 'alan'), ('a1',), 9.5, 11.0)
    """
    students: set[str] = set()
    assignments: list[str] = []
    scores: dict[tuple[str, str], float] = {}
    max_scores: dict[str, float] = {}
    for row in rows:
        who, name = str(row["student"]), str(row["assignment"])
        students.add(who)
        if name not in max_scores:
            assignments.append(name)
            max_scores[name] = float(row.get("max_score") or 0.0)
        max_scores[name] = max(max_scores[name], float(row.get("max_score") or 0.0))
        scores[(who, name)] = float(row.get("score") or 0.0)
    return GradeTable(tuple(sorted(students)), tuple(assignments), scores, max_scores)


def _roster_student(roster: Any, student: str) -> Any:
    from ..intake.roster import RosterStudent

    found = roster.get(student) if roster is not None else None
    return found if found is not None else RosterStudent(student)


def canvas_csv(table: GradeTable, roster: Any = None, *,
               assignment_ids: Mapping[str, str] | None = None) -> tuple[str, list[tuple[str, str]]]:
    """The grades as Canvas's gradebook import reads them.

    Parameters
    ----------
    table : GradeTable
    roster : Roster, optional
        Where the students' Canvas ids and names come from (without one, or for a student
        not on it, only the student id is known and written as ``SIS Login ID``).
    assignment_ids : mapping, optional
        ``assignment -> Canvas assignment id``; a column is then ``<name> (<id>)``.

    Returns
    -------
    (str, list of (student, reason))
        The CSV text, and the students left out with why.

    Examples
    --------
    >>> from course.grading.term.intake.roster import parse_roster
    >>> roster = parse_roster("id,first_name,last_name,lms_user_id,sis_user_id\\n"
    ...                       "ada,Ada,Lovelace,1234,S-1\\n")
    >>> table = grade_table([{"student": "ada", "assignment": "a1_minimax", "score": 9.2,
    ...                       "max_score": 11.0}])
    >>> text, left_out = canvas_csv(table, roster, assignment_ids={"a1_minimax": "777"})
    >>> print(text, end="")
    Student,ID,SIS User ID,SIS Login ID,Section,a1_minimax (777)
        Points Possible,,,,,11
    "Lovelace, Ada",1234,S-1,,,9.2
    """
    ids = dict(assignment_ids or {})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CANVAS_STUDENT_COLUMNS,
                     *(f"{a} ({ids[a]})" if ids.get(a) else a for a in table.assignments)])
    writer.writerow([CANVAS_POINTS_POSSIBLE, "", "", "", "",
                     *(_points(table.max_scores[a]) for a in table.assignments)])
    left_out: list[tuple[str, str]] = []
    rows = []
    names: dict[str, list[str]] = {}
    for who in table.students:
        s = _roster_student(roster, who)
        in_roster = roster is not None and who in roster
        login = s.sis_login_id or ("" if in_roster else who)
        keys = {"ID": s.lms_user_id, "SIS User ID": s.sis_user_id, "SIS Login ID": login}
        bad = [k for k, v in keys.items() if v and _formula(v)]
        if bad:
            left_out.append((who, f"its {bad[0]} {keys[bad[0]]!r} would start a spreadsheet formula"))
            continue
        if s.lms_user_id and not s.lms_user_id.isdigit():
            left_out.append((who, f"lms_user_id {s.lms_user_id!r} is not a Canvas user id (digits)"))
            continue
        name = (f"{s.last_name}, {s.first_name}" if s.last_name and s.first_name
                else s.full_name or who)
        if not any(keys.values()):
            names.setdefault(name.casefold(), []).append(who)
        rows.append((who, [spreadsheet_text(name), keys["ID"], keys["SIS User ID"], keys["SIS Login ID"], ""]))
    # a student Canvas can find by name only must be the only one with that name
    twins = {w for group in names.values() if len(group) > 1 for w in group}
    for who, cells in rows:
        if who in twins:
            left_out.append((who, "no lms_user_id, sis_user_id or sis_login_id in the roster, and "
                                  "another student has the same name: Canvas could not tell them apart"))
            continue
        writer.writerow([*cells, *(_points(table.scores.get((who, a), 0.0)) for a in table.assignments)])
    return out.getvalue(), left_out


def moodle_csv(table: GradeTable, roster: Any = None, *,
               identifier: str = "email") -> tuple[str, list[tuple[str, str]]]:
    """The grades as Moodle's CSV grade import reads them: an identifier column, then one column
    per assignment.

    Parameters
    ----------
    table : GradeTable
    roster : Roster, optional
        Where the identifiers come from (a student without one is left out).
    identifier : {"email", "idnumber", "username"}
        The Moodle user field the import will map the first column to (the roster's
        ``email``, ``sis_user_id`` or ``sis_login_id``).

    Returns
    -------
    (str, list of (student, reason))

    Raises
    ------
    ValueError
        If ``identifier`` is not one of :data:`MOODLE_IDENTIFIERS`.

    Examples
    --------
    >>> from course.grading.term.intake.roster import parse_roster
    >>> roster = parse_roster("id,email\\nada,ada@example.org\\nalan,\\n")
    >>> table = grade_table([{"student": s, "assignment": "a1_minimax", "score": 9.0,
    ...                       "max_score": 11.0} for s in ("ada", "alan")])
    >>> text, left_out = moodle_csv(table, roster)
    >>> print(text, end="")
    Email address,a1_minimax
    ada@example.org,9
    >>> left_out
    [('alan', 'no email in the roster (Moodle would file the row under the previous student)')]
    """
    if identifier not in MOODLE_IDENTIFIERS:
        raise ValueError(f"unknown Moodle identifier {identifier!r}: use one of {', '.join(MOODLE_IDENTIFIERS)}")
    header, attribute = MOODLE_IDENTIFIERS[identifier]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header, *table.assignments])
    left_out: list[tuple[str, str]] = []
    keyed: dict[str, list[str]] = {}
    values: dict[str, str] = {}
    for who in table.students:
        value = getattr(_roster_student(roster, who), attribute).strip()
        if not value:
            left_out.append((who, f"no {attribute} in the roster (Moodle would file the row under the "
                                  "previous student)"))
            continue
        if _formula(value):
            left_out.append((who, f"its {attribute} {value!r} would start a spreadsheet formula"))
            continue
        values[who] = value
        keyed.setdefault(value.casefold(), []).append(who)
    for who, value in values.items():
        if len(keyed[value.casefold()]) > 1:
            others = ", ".join(w for w in keyed[value.casefold()] if w != who)
            left_out.append((who, f"its {attribute} {value!r} is also the one of {others}"))
            continue
        writer.writerow([value, *(_points(table.scores.get((who, a), 0.0)) for a in table.assignments)])
    return out.getvalue(), sorted(left_out)


def canvas_assignment_ids(export: str | os.PathLike, assignments: Sequence[str]) -> dict[str, str]:
    """The Canvas ids of ``assignments``, read from a gradebook export of the Canvas course.

    A column ``<title> (<id>)`` of the export's header belongs to an assignment when its
    title is the assignment's name, ignoring case and ``_`` for spaces (``A1 Minimax`` is
    ``a1_minimax``); an assignment matched by no column, or by two, gets no id.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "export.csv"
    >>> _ = path.write_text("Student,ID,SIS User ID,SIS Login ID,Section,A1 Minimax (3301),Quiz (12)\\n")
    >>> canvas_assignment_ids(path, ["a1_minimax", "a2_alphabeta"])
    {'a1_minimax': '3301'}
    """
    from ..intake.roster import name_key

    path = Path(export)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise WorkflowError(f"{path}: cannot be read as a Canvas gradebook export ({exc})") from None
    found: dict[str, list[str]] = {}
    for cell in header:
        match = _CANVAS_TITLE_ID.match(cell.strip())
        if match:
            found.setdefault(name_key(match.group(1)), []).append(match.group(2))
    return {a: found[name_key(a)][0] for a in assignments if len(found.get(name_key(a), [])) == 1}


@dataclass
class LmsExport:
    """What :func:`lms_grades` wrote."""

    path: Path
    """The CSV file."""
    lms: str
    """``canvas`` or ``moodle``."""
    students: list[str] = field(default_factory=list)
    """The students with a row."""
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """``(student, why)``: students without a row (the LMS could not find them, or could mistake them)."""
    assignments: list[str] = field(default_factory=list)
    """The assignment columns, as written (with Canvas's ids where known)."""


def lms_grades(root: str | os.PathLike = ".", output: str | os.PathLike | None = None, *,
               lms: str, assignment_ids: Mapping[str, str] | None = None,
               canvas_export: str | os.PathLike | None = None, identifier: str = "email",
               log: Any = None) -> LmsExport:
    """Export the grades as the LMS's gradebook import reads them (see the module notes).

    The numbers are those of ``grades.csv`` (:func:`.grades.grades`' rows): the same students
    (every student of the roster), the same released assignments, the same scores after the
    late penalty, rounded to two decimals.

    Parameters
    ----------
    root : path
        The course directory.
    output : path, optional
        Default: ``grades-<lms>.csv`` in the current folder.
    lms : {"canvas", "moodle"}
    assignment_ids : mapping, optional
        Canvas: ``assignment -> Canvas assignment id`` (wins over ``canvas_export``).
    canvas_export : path, optional
        Canvas: a gradebook export of the Canvas course, to read the assignment ids from
        (:func:`canvas_assignment_ids`).
    identifier : {"email", "idnumber", "username"}
        Moodle: the user field the first column holds (:func:`moodle_csv`).
    log : callable, optional
        Receives a line per student left out and per note.

    Returns
    -------
    LmsExport

    Raises
    ------
    WorkflowError
        If ``lms`` is unknown, or the export cannot be read.
    """
    from ..intake.roster import course_roster
    from .grades import _grade_rows as grade_rows     # the rows of grades.csv: one set of numbers

    if lms not in LMS_FORMATS:
        raise WorkflowError(f"unknown LMS format {lms!r}: use one of {', '.join(LMS_FORMATS)}")
    from ..safe_text import console_log

    log = console_log(log)             # roster values are free text
    say = log if log is not None else (lambda line: None)
    layout = course_layout(root)
    roster = course_roster(layout.root)
    table = grade_table(grade_rows(layout, log))
    if roster is None:
        say(f"no roster ({layout.root / 'roster.csv'}): the LMS can find students only by the course's "
            "ids (Canvas: as SIS Login ID); add roster.csv with lms_user_id / email for a safe import")
    if lms == "canvas":
        ids = canvas_assignment_ids(canvas_export, table.assignments) if canvas_export else {}
        ids.update({k: str(v) for k, v in (assignment_ids or {}).items()})
        unknown = sorted(set(ids) - set(table.assignments))
        if unknown:
            raise WorkflowError(f"no released assignment {', '.join(unknown)} (the released ones: "
                                f"{', '.join(table.assignments) or 'none'})")
        bad = [f"{a}={i}" for a, i in ids.items() if not str(i).isdigit()]
        if bad:
            raise WorkflowError(f"a Canvas assignment id is a number (its page's address ends with it): "
                                f"{', '.join(bad)}")
        text, left_out = canvas_csv(table, roster, assignment_ids=ids)
        for a in table.assignments:
            if a not in ids:
                say(f"{a}: no Canvas assignment id: Canvas will match the column to an assignment titled "
                    f"exactly {a!r}, or offer to create one (give --assignment-id {a}=ID)")
        columns = [f"{a} ({ids[a]})" if a in ids else a for a in table.assignments]
    else:
        text, left_out = moodle_csv(table, roster, identifier=identifier)
        columns = list(table.assignments)
    path = Path(output) if output is not None else Path(f"grades-{lms}.csv")
    if not path.is_absolute():
        path = Path.cwd() / path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    for who, why in left_out:
        say(f"no row for {who}: {why}")
    written = [s for s in table.students if s not in {w for w, _ in left_out}]
    return LmsExport(path, lms, written, left_out, columns)


# --------------------------------------------------------------------------- feedback zips


@dataclass
class FeedbackZip:
    """What :func:`feedback_zip` wrote."""

    path: Path | None
    """The zip (None if no student could be addressed)."""
    lms: str
    """``canvas`` or ``moodle``."""
    files: list[tuple[str, str]] = field(default_factory=list)
    """``(student, entry name)`` of every page packed."""
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """``(student, why)``: students with feedback that the zip does not carry."""


def _moodle_folder_name(student: Any) -> str:
    """A Moodle folder's name part: the full name without ``_`` (Moodle splits the folder name on
    it) and without characters a file name cannot hold; never empty."""
    text = (student.full_name or student.id).replace("_", " ")
    text = re.sub(r"[^\w .-]", "", text, flags=re.UNICODE)
    text = " ".join(text.split()).strip(" .")
    return text or "student"


def _addresses(submissions_zip: Path, assignment: str, lms: str, layout: Any, roster: Any
               ) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """``student -> (lms user id, file id)`` from the LMS's download, and ``student -> why not``."""
    from ..intake.lms_zip import _resolve, lms_identity

    if not zipfile.is_zipfile(submissions_zip):
        raise WorkflowError(f"{submissions_zip} is not a zip archive")
    seen: dict[str, set[tuple[str, str]]] = {}
    with zipfile.ZipFile(submissions_zip) as archive:
        names = [i.filename.replace("\\", "/") for i in archive.infolist()]
    for name in names:
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if not parts or any(p == "__MACOSX" or p.startswith(".") for p in parts):
            continue
        identity = lms_identity("/".join(parts), assignments=layout.assignments())
        if identity is None or identity.system != lms or not identity.file_id:
            continue
        student, _ = _resolve(identity, roster)
        if student is not None:
            seen.setdefault(student, set()).add((identity.lms_user_id, identity.file_id))
    addresses: dict[str, tuple[str, str]] = {}
    problems: dict[str, str] = {}
    owners: dict[tuple[str, str], list[str]] = {}
    for student, found in seen.items():
        users = {u for u, _ in found}
        if lms == "moodle" and len({f for _, f in found}) > 1:
            problems[student] = (f"the download names them with {len({f for _, f in found})} participant "
                                 "ids: whose folder is whose cannot be told")
            continue
        if lms == "canvas" and len(users) > 1:
            problems[student] = "the download names them with several Canvas user ids"
            continue
        user, file_id = sorted(found)[0]
        if lms == "canvas":
            expected = roster.get(student).lms_user_id if roster is not None and student in roster else ""
            if not expected:
                problems[student] = ("no lms_user_id in roster.csv: Canvas files feedback under the user id "
                                     "in its name, which only the roster can vouch for")
                continue
            if user != expected:
                problems[student] = (f"the download's user id {user} is not their lms_user_id {expected} "
                                     "in roster.csv")
                continue
        addresses[student] = (user, file_id)
        owners.setdefault(user if lms == "canvas" else file_id, []).append(student)
    for key, students in owners.items():
        if len(students) > 1:
            for student in students:
                addresses.pop(student, None)
                problems[student] = f"{', '.join(s for s in students if s != student)} has the same LMS number"
    return addresses, problems


def feedback_zip(root: str | os.PathLike, assignment: str, *, lms: str,
                 submissions_zip: str | os.PathLike, output: str | os.PathLike | None = None,
                 log: Any = None) -> FeedbackZip:
    """One zip of an assignment's feedback pages, laid out for the LMS's re-upload (module notes).

    Parameters
    ----------
    root : path
        The course directory (its ``feedback/`` folder and ``roster.csv``).
    assignment : str
    lms : {"canvas", "moodle"}
    submissions_zip : path
        The LMS's download of this assignment's submissions (the zip ``collect-zip`` read):
        its names hold the numbers the LMS files feedback by.
    output : path, optional
        Default: ``feedback-<assignment>-<lms>.zip`` in the current folder.
    log : callable, optional
        Receives a line per student left out.

    Returns
    -------
    FeedbackZip

    Raises
    ------
    WorkflowError
        If ``lms`` or the assignment is unknown, or the download is not a zip.
    """
    from ..intake.roster import RosterStudent, course_roster
    from ..intake.submissions import valid_ids

    if lms not in LMS_FORMATS:
        raise WorkflowError(f"unknown LMS {lms!r}: use one of {', '.join(LMS_FORMATS)}")
    layout = course_layout(root)
    if assignment not in layout.assignments():
        raise WorkflowError(f"unknown assignment {assignment!r}; the assignments are "
                            f"{', '.join(layout.assignments())}")
    source = Path(submissions_zip)
    if not source.is_file():
        raise WorkflowError(f"no zip file {source}")
    from ..safe_text import console_log

    log = console_log(log)             # names from the LMS's zip are the students'
    say = log if log is not None else (lambda line: None)
    roster = course_roster(layout.root)
    addresses, problems = _addresses(source, assignment, lms, layout, roster)
    students = sorted(p.parent.name for p in layout.feedback.glob(f"*/{assignment}")
                      if p.is_dir() and not p.is_symlink() and not p.parent.is_symlink())
    students, refused = valid_ids(students, roster)
    result = FeedbackZip(None, lms, left_out=[(who, why) for who, why in refused])
    entries: list[tuple[str, str, bytes]] = []
    for who in students:
        folder = layout.feedback / who / assignment
        pages = sorted(p for p in folder.iterdir() if p.suffix == ".html" and p.is_file()
                       and not p.is_symlink())
        if not pages:
            continue
        if who not in addresses:
            result.left_out.append((who, problems.get(who) or f"no file of theirs in {source.name}: the LMS "
                                                               "has no number to file their feedback by"))
            continue
        user, file_id = addresses[who]
        student = roster.get(who) if roster is not None and who in roster else RosterStudent(who)
        for page in pages:
            if lms == "moodle":
                name = f"{_moodle_folder_name(student)}_{file_id}_assignsubmission_file_/{page.name}"
            else:
                stem = re.sub(r"[^A-Za-z0-9.-]", "-", page.name)
                name = f"feedback_{user}_{file_id}_{assignment.replace('_', '-')}-{stem}"
            entries.append((who, name, page.read_bytes()))
    for who, why in result.left_out:
        say(f"no feedback in the zip for {who}: {why}")
    if not entries:
        return result
    path = Path(output) if output is not None else Path(f"feedback-{assignment}-{lms}.zip")
    if not path.is_absolute():
        path = Path.cwd() / path
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = _dt.datetime.now(_dt.timezone.utc).timetuple()[:6]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for who, name, body in entries:
            archive.writestr(zipfile.ZipInfo(name, stamp), body, zipfile.ZIP_DEFLATED)
            result.files.append((who, name))
    result.path = path
    return result
