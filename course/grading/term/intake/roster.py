"""The class roster: ``roster.csv`` in the course directory, the list of who is a student.

Where a roster exists, every entry point that files work under a student id
(exchange collect, zip import, the ``submitted/`` folders autograde scans,
feedback and grades) accepts only its ids; JupyterHub's allowed users can be
read from it too (:func:`read_roster`).

The file
--------
nbgrader's own student CSV (``nbgrader db student import roster.csv`` reads
it as it is), plus three columns of the course's:

==================  ========  ===========================================================
column              required  meaning
==================  ========  ===========================================================
``id``              yes       the student id (:data:`.student_ids.STUDENT_ID_PATTERN`): the
                              Unix account on a shared machine or hub, the LMS login otherwise
``first_name``      no        as nbgrader's gradebook keeps it
``last_name``       no
``email``           no
``lms_user_id``     no        the LMS's numeric user id (Canvas puts it in every file name;
                              Canvas's gradebook export calls it ``ID``)
``lms_names``       no        other names the LMS uses for this student, separated by ``;``:
                              a Canvas or Blackboard login that is not the id, the full name
                              Moodle writes (``Ada Lovelace``) when it differs from
                              ``first_name last_name``
``sis_user_id``     no        the institution's student number: Canvas's ``SIS User ID``,
                              Moodle's ``ID number``
``sis_login_id``    no        the login the LMS knows the student by: Canvas's ``SIS Login
                              ID``, Moodle's ``Username``
==================  ========  ===========================================================

The last two are read only by the grade exports for the LMS
(:mod:`course.grading.term.results.lms`), which write them where the LMS's import
looks for a student; copy them from the LMS's own gradebook export.

For example::

    id,first_name,last_name,email,lms_user_id,lms_names
    ada,Ada,Lovelace,ada@example.org,1234,lovelaceada
    grace,Grace,Hopper,,4321,hopperg;Grace B. Hopper

Lines are read as UTF-8 (a spreadsheet's byte-order mark is fine), blank lines
are ignored, cells are stripped.  The file is refused as a whole (with the line
named) when an id is missing or invalid, when two rows have ids equal
ignoring case, or when an ``lms_user_id``, a ``sis_user_id``, a
``sis_login_id`` (ignoring case) or an LMS name belongs to two students: a roster that cannot tell two students apart must not decide whose
work is whose.  Names (first, last, ``lms_names``) are free text, shown by the
course's pages only escaped.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ....errors import CourseError
from .student_ids import describe_name, is_student_id

__all__ = ["ROSTER_FILE", "ROSTER_COLUMNS", "RosterError", "RosterStudent", "Roster", "read_roster",
           "parse_roster", "course_roster", "name_key", "names_into_gradebook"]

#: The roster's file name, in the course directory.
ROSTER_FILE = "roster.csv"
#: Its columns: nbgrader's student columns, then the course's ``lms_names``.
ROSTER_COLUMNS = ("id", "first_name", "last_name", "email", "lms_user_id", "lms_names", "sis_user_id",
                  "sis_login_id")
#: The separator of several names in ``lms_names``.
LMS_NAMES_SEPARATOR = ";"


class RosterError(CourseError):
    """``roster.csv`` cannot be used (its message names the file and the line)."""


def name_key(text: str) -> str:
    """How two names are compared: case, repeated spaces, ``_`` for spaces ignored.

    >>> name_key("  Ada   LOVELACE ") == name_key("ada_lovelace")
    True
    """
    return " ".join(text.replace("_", " ").split()).casefold()


@dataclass(frozen=True)
class RosterStudent:
    """One row of the roster."""

    id: str
    """The student id."""
    first_name: str = ""
    """First name (free text)."""
    last_name: str = ""
    """Last name (free text)."""
    email: str = ""
    """E-mail address (free text)."""
    lms_user_id: str = ""
    """The learning-management system's user id, if known."""
    lms_names: tuple[str, ...] = ()
    """Other names the learning-management system uses for this student."""
    sis_user_id: str = ""
    """The institution's student number (Canvas's ``SIS User ID``, Moodle's ``ID number``)."""
    sis_login_id: str = ""
    """The student's LMS login (Canvas's ``SIS Login ID``, Moodle's ``Username``)."""

    @property
    def full_name(self) -> str:
        """``first_name last_name`` (empty if both are)."""
        return " ".join(part for part in (self.first_name, self.last_name) if part)

    def names(self) -> set[str]:
        """Every name (as :func:`name_key` keys) this student can appear under in an LMS file."""
        found = {name_key(self.id)} | {name_key(n) for n in self.lms_names}
        if self.full_name:
            found.add(name_key(self.full_name))
        return {n for n in found if n}


@dataclass(frozen=True)
class Roster:
    """The students of a course, read from ``roster.csv`` by :func:`read_roster`."""

    path: Path
    """The file read."""
    students: tuple[RosterStudent, ...]
    """In the file's order."""
    _by_id: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update({s.id: s for s in self.students})

    def __contains__(self, student_id: object) -> bool:
        return student_id in self._by_id

    def __iter__(self) -> Iterator[RosterStudent]:
        return iter(self.students)

    def __len__(self) -> int:
        return len(self.students)

    @property
    def ids(self) -> list[str]:
        """The student ids, in the file's order."""
        return [s.id for s in self.students]

    def get(self, student_id: str) -> RosterStudent | None:
        """The student with this id, or None."""
        return self._by_id.get(student_id)

    def by_name(self, name: str) -> list[RosterStudent]:
        """The students an LMS name can mean (id, ``lms_names`` or full name; see :func:`name_key`)."""
        key = name_key(name)
        return [s for s in self.students if key and key in s.names()]

    def by_lms_user_id(self, value: str) -> list[RosterStudent]:
        """The students with this LMS user id (at most one in a valid roster)."""
        return [s for s in self.students if value and s.lms_user_id == value]


def parse_roster(text: str, source: str | os.PathLike = ROSTER_FILE) -> Roster:
    """Read a roster from the text of a CSV file (see the module notes for the columns).

    Parameters
    ----------
    text : str
        The file's contents.
    source : path
        Where it came from (for messages, and :attr:`Roster.path`).

    Returns
    -------
    Roster

    Raises
    ------
    RosterError
        If there is no ``id`` column, or a row has an invalid or repeated id, or
        an ``lms_user_id``, ``sis_user_id``, ``sis_login_id`` or LMS name is shared by two
        students.

    Examples
    --------
    >>> roster = parse_roster("id,first_name,last_name,lms_user_id,lms_names\\n"
    ...                       "ada,Ada,Lovelace,1234,lovelaceada\\n"
    ...                       "grace,Grace,Hopper,4321,hopperg;Grace B. Hopper\\n")
    >>> roster.ids, "ada" in roster, [s.id for s in roster.by_name("Grace B. Hopper")]
    (['ada', 'grace'], True, ['grace'])
    >>> parse_roster("id\\nada\\nAda\\n")
    Traceback (most recent call last):
    ...
    course.grading.term.intake.roster.RosterError: roster.csv, line 3: 'Ada' and 'ada' (line 2) differ only in case: they would share one folder on macOS and Windows
    """
    path = Path(source)
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = [c.strip() for c in (reader.fieldnames or [])]
    if "id" not in columns:
        raise RosterError(f"{path}: no 'id' column (the first line must name the columns: "
                          f"{','.join(ROSTER_COLUMNS)}; only id is required)")
    reader.fieldnames = columns
    students: list[RosterStudent] = []
    seen: dict[str, tuple[str, int]] = {}
    lms_ids: dict[str, tuple[str, int]] = {}
    unique: dict[str, dict[str, tuple[str, int]]] = {"sis_user_id": {}, "sis_login_id": {}}
    for row in reader:
        line = reader.line_num
        cells = {k: (v or "").strip() for k, v in row.items() if isinstance(k, str)}
        if not any(cells.values()):
            continue
        sid = cells.get("id", "")
        where = f"{path}, line {line}"
        if not is_student_id(sid):
            raise RosterError(f"{where}: {describe_name(sid)} is not a valid student id (1-64 ASCII "
                              "letters, digits and _ . @ -, starting with a letter or digit)")
        if sid.casefold() in seen:
            other, other_line = seen[sid.casefold()]
            if other == sid:
                raise RosterError(f"{where}: the id {sid!r} is already on line {other_line}")
            raise RosterError(f"{where}: {sid!r} and {other!r} (line {other_line}) differ only in case: "
                              "they would share one folder on macOS and Windows")
        seen[sid.casefold()] = (sid, line)
        lms_user_id = cells.get("lms_user_id", "")
        if lms_user_id:
            if lms_user_id in lms_ids:
                other, other_line = lms_ids[lms_user_id]
                raise RosterError(f"{where}: lms_user_id {lms_user_id!r} is also the one of {other!r} "
                                  f"(line {other_line})")
            lms_ids[lms_user_id] = (sid, line)
        for column, owners_of in unique.items():
            value = cells.get(column, "")
            key = value.casefold()
            if value and key in owners_of:
                other, other_line = owners_of[key]
                raise RosterError(f"{where}: {column} {value!r} is also the one of {other!r} "
                                  f"(line {other_line})")
            if value:
                owners_of[key] = (sid, line)
        names = tuple(n.strip() for n in cells.get("lms_names", "").split(LMS_NAMES_SEPARATOR) if n.strip())
        students.append(RosterStudent(sid, cells.get("first_name", ""), cells.get("last_name", ""),
                                      cells.get("email", ""), lms_user_id, names,
                                      cells.get("sis_user_id", ""), cells.get("sis_login_id", "")))
    owners: dict[str, str] = {}
    for student in students:
        explicit = {name_key(student.id)} | {name_key(n) for n in student.lms_names}
        for key in explicit:
            if key in owners and owners[key] != student.id:
                raise RosterError(f"{path}: the name {key!r} belongs to both {owners[key]!r} and "
                                  f"{student.id!r} (ids and lms_names must tell students apart)")
            owners[key] = student.id
    return Roster(path, tuple(students))


def read_roster(path: str | os.PathLike) -> Roster:
    """Read ``roster.csv`` (nbgrader's student CSV plus ``lms_names``; see the module notes).

    This is the one reader of the roster: the grading commands use it to check
    student ids, and a JupyterHub set-up can take its allowed users from it::

        from course.grading.term.intake.roster import read_roster
        c.Authenticator.allowed_users = set(read_roster("/home/alice/game-tree-search/roster.csv").ids)

    Parameters
    ----------
    path : path
        The CSV file.

    Returns
    -------
    Roster
        Its students, in the file's order; ``roster.ids`` is the list of ids.

    Raises
    ------
    RosterError
        If the file cannot be read or a row is invalid (the message names the line).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "roster.csv").write_text("id,first_name,last_name\\nada,Ada,Lovelace\\n")
    >>> read_roster(folder / "roster.csv").get("ada").full_name
    'Ada Lovelace'
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RosterError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); "
                          "save it as CSV UTF-8") from None
    except OSError as exc:
        raise RosterError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return parse_roster(text, path)


def course_roster(root: str | os.PathLike) -> Roster | None:
    """The roster of the course directory ``root`` (``root/roster.csv``), or None if it has none.

    Raises
    ------
    RosterError
        If the file exists but is invalid: a broken roster is never ignored.
    """
    path = Path(root) / ROSTER_FILE
    if not path.exists():
        return None
    return read_roster(path)


def names_into_gradebook(roster: Roster, gradebook) -> list[str]:
    """Give the gradebook the roster's names, so that the formgrader lists students by name.

    nbgrader's autograde adds a student to the gradebook by id only, and the
    formgrader then shows them as "None, None".  This sets, for every student
    of the roster, the first and last name and the e-mail address the roster
    has (a student the gradebook does not know yet is added); a field the roster
    leaves empty is left as the gradebook has it, and nobody is removed.

    Parameters
    ----------
    roster : Roster
        The course's roster (:func:`course_roster`).
    gradebook : nbgrader.api.Gradebook
        An open gradebook.

    Returns
    -------
    list of str
        The ids whose entry was added or changed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from nbgrader.api import Gradebook
    >>> from course.grading.term.course_dir import ensure_tools_on_path
    >>> ensure_tools_on_path()            # nbgrader runs alembic, installed beside it
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> roster = parse_roster("id,first_name,last_name\\nada,Ada,Lovelace\\ngrace,,Hopper\\n")
    >>> with Gradebook(f"sqlite:///{folder / 'gradebook.db'}") as gb:
    ...     _ = gb.add_student("grace", first_name="Grace")
    ...     changed = names_into_gradebook(roster, gb)
    ...     names = sorted((s.id, s.first_name, s.last_name) for s in gb.students)
    >>> changed, names
    (['ada', 'grace'], [('ada', 'Ada', 'Lovelace'), ('grace', 'Grace', 'Hopper')])
    """
    from nbgrader.api import MissingEntry

    changed = []
    for student in roster:
        wanted = {key: value for key, value in (("first_name", student.first_name),
                                                ("last_name", student.last_name),
                                                ("email", student.email)) if value}
        try:
            entry = gradebook.find_student(student.id)
        except MissingEntry:
            gradebook.add_student(student.id, **wanted)
            changed.append(student.id)
            continue
        if any(getattr(entry, key) != value for key, value in wanted.items()):
            gradebook.update_or_create_student(student.id, **wanted)
            changed.append(student.id)
    return changed
