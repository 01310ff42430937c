"""Student ids: the one pattern every entry point checks a name against.

A *student id* names a student everywhere the grading tools keep their work:
the folder ``submitted/<id>/<assignment>/``, nbgrader's gradebook, the
exchange's ``inbound/<id>+<assignment>+...`` entries, ``feedback/<id>/``, the
rows of ``grades.csv``.  Every one of those names arrives from outside -- a
folder a student created, a zip entry, an LMS export -- so each entry point
checks it against :data:`STUDENT_ID_PATTERN` (and against the roster, where
there is one: :mod:`.roster`) before any file is written under it.

The pattern
-----------
1 to 64 characters: ASCII letters, digits and ``_ . @ -``; the first
character a letter or a digit, the last a letter, a digit or ``_``.  This
keeps every id that Unix accounts, LMS logins and e-mail style names use
(``ada``, ``student_01``, ``alan.turing``, ``20231234``, ``ada@uni.edu``)
and refuses everything that could mean something else somewhere an id is
used:

* a path (``/``, ``\\``, ``..``, a leading ``.``: hidden folders);
* markup or script in a page (``< > " ' &``), a URL part (``% ? # :``);
* nbgrader's exchange separator ``+`` and its glob ``*``;
* an option or a spreadsheet formula (a leading ``-``, ``=``, ``+`` or ``@``);
* spaces, control characters, non-ASCII look-alikes (``аda`` with a Cyrillic ``а``);
* the names Windows reserves for devices (``con``, ``nul``, ``com1``, ...).

Two ids that differ only in case (``Ada`` and ``ada``) name the same folder on
macOS and Windows, so a roster may not hold both, and :func:`casefold_clash`
finds such pairs among folder names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ....errors import CourseError

__all__ = ["STUDENT_ID_PATTERN", "InvalidStudentId", "check_student_id", "is_student_id",
           "casefold_clash", "describe_name"]

#: The one pattern a student id must match (see the module notes).
STUDENT_ID_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.@-]{0,62}[A-Za-z0-9_])?")

_WINDOWS_DEVICES = re.compile(r"(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:\..*)?", re.IGNORECASE)


class InvalidStudentId(CourseError):
    """A name that is used as a student id does not match :data:`STUDENT_ID_PATTERN`
    (or is not on the roster)."""


def describe_name(name: object, limit: int = 80) -> str:
    """A name as it can be shown in a message: quoted, control characters escaped, cut.

    >>> describe_name("ada")
    "'ada'"
    >>> describe_name("<img src=x onerror=alert(1)>\\n")
    "'<img src=x onerror=alert(1)>\\\\n'"
    """
    text = repr(str(name))
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def is_student_id(name: object) -> bool:
    """Whether ``name`` matches the student id pattern.

    >>> [is_student_id(n) for n in ("ada", "student_01", "alan.turing", "ada@uni.edu", "20231234")]
    [True, True, True, True, True]
    >>> [is_student_id(n) for n in ("", "../ada", ".ada", "-rf", "=cmd()", "ada+a1", "a b",
    ...                            "<b>x</b>", "NUL", "\\u0430da", "ada.")]
    [False, False, False, False, False, False, False, False, False, False, False]
    """
    return (isinstance(name, str) and STUDENT_ID_PATTERN.fullmatch(name) is not None
            and _WINDOWS_DEVICES.fullmatch(name) is None)


def check_student_id(name: object, *, roster=None, where: str = "") -> str:
    """Return ``name`` if it is a valid student id (and on ``roster``); raise otherwise.

    Parameters
    ----------
    name : str
        The candidate id (a folder name, a zip entry's student part, ...).
    roster : Roster, optional
        The course's roster (:func:`.roster.read_roster`); when given, the id
        must be one of its students.
    where : str, optional
        What the name came from (a path, a zip entry), for the message.

    Returns
    -------
    str
        ``name`` unchanged.

    Raises
    ------
    InvalidStudentId
        With a message naming ``where`` and the rule broken.

    Examples
    --------
    >>> check_student_id("ada")
    'ada'
    >>> check_student_id("<img src=x>", where="submitted/<img src=x>")
    Traceback (most recent call last):
    ...
    course.grading.term.intake.student_ids.InvalidStudentId: submitted/<img src=x>: '<img src=x>' is not a valid student id (1-64 ASCII letters, digits and _ . @ -, starting with a letter or digit)
    """
    prefix = f"{where}: " if where else ""
    if not is_student_id(name):
        raise InvalidStudentId(f"{prefix}{describe_name(name)} is not a valid student id (1-64 ASCII "
                               "letters, digits and _ . @ -, starting with a letter or digit)")
    if roster is not None and name not in roster:
        raise InvalidStudentId(f"{prefix}{describe_name(name)} is not a student of the roster "
                               f"{roster.path} (add them there, or correct the name)")
    return name


def casefold_clash(names: Iterable[str]) -> dict[str, list[str]]:
    """Groups of names that are equal ignoring case (one folder on macOS and Windows).

    >>> casefold_clash(["ada", "Ada", "grace", "ADA", "alan"])
    {'ada': ['ADA', 'Ada', 'ada']}
    """
    groups: dict[str, set[str]] = {}
    for name in names:
        groups.setdefault(name.casefold(), set()).add(name)
    return {key: sorted(group) for key, group in sorted(groups.items()) if len(group) > 1}
