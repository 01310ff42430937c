"""Importing a zip of submissions from a learning-management system (Canvas, Moodle, Blackboard).

Everything here reads **hostile input**: the zip's entry names, dates and
contents come from students (through the LMS) and are read as data, never run,
never used as a path.  Each file of the zip is filed as exactly one notebook of
one assignment of one student, or refused with the reason; the import ends
with one warning listing what was refused or ambiguous and which students of
the roster got nothing, and :attr:`ZipImport.ok` is False if there is any.

Who a file belongs to
---------------------
Only the part of an entry's name that the LMS wrote says whose it is, read
from the **left**; what the student chose (the uploaded file's name, folders
inside their Moodle folder) comes after it and never decides the student:

==========  =====================================================================  ==============
system      entry name (the LMS's part, then the student's file)                   student part
==========  =====================================================================  ==============
Canvas      ``lovelaceada[_LATE]_1234_5678_<file>``                                login
                                                                                   ``lovelaceada``
                                                                                   and user id
                                                                                   ``1234``
Moodle      ``Ada Lovelace_1234_assignsubmission_file_/<file>`` (or ``..._file_<file>``)  ``Ada Lovelace``
Blackboard  ``A1 Minimax_lovelaceada_attempt_2024-03-01-09-30-00_<file>``           ``lovelaceada``
                                                                                   (before the
                                                                                   first
                                                                                   ``_attempt_``)
nbgrader    ``[<top>/]<student>/<assignment>/<file>`` (a zip of ``submitted/``)     ``<student>``
folders     ``<student>/<file>``                                                    ``<student>``
plain       ``<student>_<notebook>.ipynb`` (also ``-``, ``.``, space)               ``<student>``
==========  =====================================================================  ==============

With a roster (``roster.csv``, :mod:`.roster`) the student part must name
exactly one of its students: by id, by one of their ``lms_names``, by
``first_name last_name`` (Moodle), or by ``lms_user_id`` (Canvas's number);
a part that names nobody is refused, one that can name two students is
ambiguous.  Without a roster the student part itself becomes the id
(spaces become ``_``; Canvas and Blackboard logins as they are) and must match
the student id pattern (:mod:`.student_ids`); nobody can then be listed as
missing, and the import says so.

Which notebook a file is
------------------------
A file is one of the notebooks of ``--assignment`` (or, without it, of any
assignment) when its name, ignoring case, is the notebook's name after
removing what downloads and students add: copy numbers (``minimax (1)``,
``minimax-2``, ``minimax_3``), ``final``, ``copy``, ``v2``.  So
``Minimax (1).ipynb``, ``minimax-final.ipynb`` and ``MINIMAX.ipynb`` are all
``minimax.ipynb``.  A name that *contains* exactly one notebook's name as a
word (``Minimax_RenamedByStudent.ipynb``, ``my minimax answers.ipynb``) is
taken as that notebook too, and listed as *recognised by its name* so the
instructor can check; a file of that student named exactly wins over it.  A
name with two notebooks' names in it, a notebook name shared by two
assignments without ``--assignment``, or two different files that are the
same notebook of one student with the same date, is ambiguous; any other file
(``notes.ipynb``, ``helper.py``) is refused as *not a notebook of the
assignment*.  Operating-system debris (``__MACOSX/``, ``.DS_Store``) and the
LMS's own records (Blackboard's ``..._attempt_<date>.txt``) are ignored.

The zip itself
--------------
No entry name is ever used as a path: files are written only as
``<submissions>/<student id>/<assignment>/<notebook>.ipynb``, so ``../``,
absolute names and drive letters cannot reach anywhere else.  Entries are
refused when they are links, encrypted, corrupt, larger than
:data:`MAX_FILE_BYTES` unpacked (read in pieces: a zip bomb stops there), or
dated more than a day in the future (no LMS submission is; a day allows for
time zones); a zip with more than :data:`MAX_ENTRIES` entries or
:data:`MAX_TOTAL_BYTES` in all is refused as a whole.  Two entries with the
same name cannot be told apart and are both refused.

When each file was handed in
----------------------------
A zip's entry dates are *DOS times*: a date and a wall-clock time with no time
zone, written in the zone of the computer that made the zip -- unless the
entry also carries the extended-timestamp field (Info-ZIP's ``UT``, written by
``zip`` on Linux and macOS), which holds the time in UTC.  What the dates mean
depends on who made the zip, so ``timezone`` says how to read them:

==============  ==================================================================  ==================
zip made by     its entry dates                                                     default
==============  ==================================================================  ==================
Canvas          the time Canvas **built the zip** (its zipper dates every file      no dates: filed
                "now", in the server's zone): not when anything was handed in;      without a time
                a late file is marked ``_LATE_`` in its name
Moodle          the time Moodle stored the file's contents (identical files are     refused: give
                stored once, so possibly earlier), in the Moodle **server's** zone  ``timezone``
Blackboard,     the computer that made the zip's wall-clock time                    refused: give
a person                                                                            ``timezone``
any, with       UTC, exact                                                          used as it is
``UT`` fields
==============  ==================================================================  ==================

``timezone`` is an IANA zone (``Europe/Berlin``), ``UTC``, ``local`` (this
computer's zone) or ``none`` (file without a submission time: no late
penalty from the zip).  A submission's time (``timestamp.txt``, which the late
penalty reads) is written in UTC; a submission filed without a time has no
``timestamp.txt``.  Where a zone is needed and not given, nothing is written and
the import says why (:class:`ZipDatesUnknown`).

**Nothing is overwritten silently.**  When a student's notebook is already in
``<submissions>`` with other contents, the newer one is kept (the zip's date
against the folder's ``timestamp.txt``) and the import says which.  Into the
course's own ``submitted/``, nothing is lost either: the submission replaced, the
one imported and an older file of the zip are each kept as a version
(:mod:`course.grading.term.versions`), for the resubmission policy to choose from.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
import stat
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from ..course_dir import WorkflowError, course_layout
from .roster import Roster, course_roster
from ..safe_text import console_log, console_text
from .student_ids import describe_name, is_student_id

__all__ = ["collect_zip", "ZipImport", "LmsIdentity", "lms_identity", "notebook_match", "MAX_FILE_BYTES",
           "MAX_TOTAL_BYTES", "MAX_ENTRIES", "ZipDatesUnknown", "zip_utc_time", "read_timezone",
           "RENAMED_HELP"]

#: The largest file accepted, unpacked (a notebook with many pictures is a few MiB).
MAX_FILE_BYTES = 50 * 2 ** 20
#: The most a whole zip may unpack to.
MAX_TOTAL_BYTES = 4 * 2 ** 30
#: The most entries a zip may have.
MAX_ENTRIES = 20_000
#: How far in the future a zip's date may be (time zones) before the entry is refused.
FUTURE_SLACK = _dt.timedelta(days=1)

_DATE = r"\d{4}(?:-\d{2}){5}"
#: Canvas: ``login[_LATE]_userid_submissionid_file`` (Canvas logins are lower-case letters and digits).
_CANVAS = re.compile(r"^(?P<login>[a-z0-9]+)(?P<late>_late)?_(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)$",
                     re.IGNORECASE)
#: Moodle, a folder per student (``Full Name_participantid_assignsubmission_plugin_``) or flat.
_MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)$",
                     re.IGNORECASE)
#: Moodle's folder per student.
_MOODLE_FOLDER = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assignsubmission_[a-z]+_?$", re.IGNORECASE)
#: Blackboard: ``Assignment_username_attempt_<date>[_file]``: the first ``_attempt_<date>`` is the LMS's.
_BLACKBOARD = re.compile(rf"^(?P<prefix>.*?)_attempt_(?P<date>{_DATE})(?:_(?P<file>.*)|\.txt)?$")
#: What downloads and students add to a notebook's name.
_DECORATION = re.compile(r"(?:[\s_-]*\(\d+\)|[\s_-]+\d{1,3}|[\s_-]+(?:final|copy|v\d+))$", re.IGNORECASE)
_WORDS = re.compile(r"[\s_.()\[\]-]+")
_JUNK = re.compile(r"^(?:\.ds_store|thumbs\.db|desktop\.ini|\._.*)$", re.IGNORECASE)
#: nbgrader's own files in a zip of ``submitted/``.
_NBGRADER_FILES = ("timestamp.txt", "submission_secret.txt")
#: Where the instructor reads how to file a renamed notebook under its student.
RENAMED_HELP = ("a refused .ipynb may be the student's notebook, renamed: collect-zip --file-as "
                "'ENTRY=NOTEBOOK.ipynb' files it under its student (docs/instructor/troubleshooting.md, "
                "\"A renamed notebook\")")
#: The extended-timestamp extra field (Info-ZIP's "UT"): the modification time in UTC.
_UT_FIELD = 0x5455


class ZipDatesUnknown(WorkflowError):
    """The zip's dates carry no time zone and none was given (``collect-zip --timezone``)."""


def zip_utc_time(info: zipfile.ZipInfo) -> _dt.datetime | None:
    """The entry's modification time in UTC from its extended-timestamp field, or None without one.

    >>> import struct, zipfile
    >>> info = zipfile.ZipInfo("a.ipynb", (2026, 1, 1, 12, 0, 0))
    >>> zip_utc_time(info) is None
    True
    >>> info.extra = struct.pack("<HHBl", 0x5455, 5, 1, 1767268800)
    >>> zip_utc_time(info)
    datetime.datetime(2026, 1, 1, 12, 0)
    """
    import struct

    extra, at = info.extra or b"", 0
    while at + 4 <= len(extra):
        kind, size = struct.unpack_from("<HH", extra, at)
        body = extra[at + 4: at + 4 + size]
        if kind == _UT_FIELD and len(body) >= 5 and body[0] & 1:
            (seconds,) = struct.unpack_from("<l", body, 1)
            try:
                return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).replace(tzinfo=None)
            except (OverflowError, OSError, ValueError):
                return None
        at += 4 + size
    return None


def read_timezone(name: str | None) -> Any:
    """``timezone`` of :func:`collect_zip` as a ``tzinfo``: None (not given), ``"none"`` (the
    zip's dates are not used), or a zone.

    >>> read_timezone("UTC"), read_timezone("none"), read_timezone(None)
    (datetime.timezone.utc, 'none', None)
    >>> read_timezone("local")
    'local'

    >>> read_timezone("Europe/Berlin").key
    'Europe/Berlin'
    >>> read_timezone("Mars/Olympus")
    Traceback (most recent call last):
    ...
    course.grading.term.course_dir.WorkflowError: unknown time zone 'Mars/Olympus': give an IANA name such as Europe/Berlin or America/New_York, UTC, local (this computer's) or none
    """
    if name is None:
        return None
    text = name.strip()
    if text.casefold() == "none":
        return "none"
    if text.casefold() in ("utc", "z", "gmt"):
        return _dt.timezone.utc
    if text.casefold() == "local":
        return "local"
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise WorkflowError(f"unknown time zone {name!r}: give an IANA name such as Europe/Berlin or "
                            "America/New_York, UTC, local (this computer's) or none") from None


def _submission_time(info: zipfile.ZipInfo, system: str, zone: Any) -> tuple[_dt.datetime | None, bool]:
    """``(UTC time or None, whether a zone was needed and missing)`` of one entry."""
    if zone == "none":
        return None, False
    if system == "canvas" and zone is None:
        return None, False           # Canvas dates each file when it builds the zip
    exact = zip_utc_time(info)
    if exact is not None:
        return exact, False
    if zone is None:
        return None, True
    naive = _dt.datetime(*info.date_time)
    local = naive.astimezone() if zone == "local" else naive.replace(tzinfo=zone)
    return local.astimezone(_dt.timezone.utc).replace(tzinfo=None), False


@dataclass
class ZipImport:
    """What :func:`collect_zip` did: each entry of the zip is in exactly one of the lists."""

    collected: list[tuple[str, str, str, str]] = field(default_factory=list)
    """``(student, assignment, notebook file, entry)`` for each file written (or already there)."""
    recognised: list[tuple[str, str]] = field(default_factory=list)
    """``(entry, notebook file)``: collected although renamed by the student (check them)."""
    refused: list[tuple[str, str]] = field(default_factory=list)
    """``(entry, reason)``: not filed (unknown student, not a notebook of the assignment, unsafe...)."""
    ambiguous: list[tuple[str, str]] = field(default_factory=list)
    """``(entry, reason)``: could be more than one student, assignment or notebook: not filed."""
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """``(entry, reason)``: system debris and the LMS's own records."""
    missing: list[tuple[str, str]] = field(default_factory=list)
    """``(student, assignment)``: roster students with nothing collected for an assignment of the zip."""
    notes: list[str] = field(default_factory=list)
    """Submissions kept or replaced over another, and other remarks."""
    roster: Path | None = None
    """The roster used (None: there was none)."""
    destination: Path | None = None
    """The submissions folder the files were written to."""

    @property
    def ok(self) -> bool:
        """Whether every entry was filed or ignored and every roster student got something."""
        return not (self.refused or self.ambiguous or self.missing)

    def warning(self) -> str:
        """The closing warning: everything the instructor must look at (empty if nothing)."""
        lines = []
        for title, items in (("refused", self.refused), ("ambiguous (not collected)", self.ambiguous)):
            if items:
                lines.append(f"{len(items)} {title}:")
                lines += [f"  {describe_name(entry, 120)}: {console_text(why)}" for entry, why in items]
        if self.missing:
            lines.append(f"{len(self.missing)} roster student{'s' if len(self.missing) != 1 else ''} "
                         "with nothing collected:")
            lines += [f"  {student} ({assignment})" for student, assignment in self.missing]
        if any(why.startswith("not a notebook of") and entry.lower().endswith(".ipynb")
               for entry, why in self.refused):
            lines.append(f"  ({RENAMED_HELP})")
        if self.recognised:
            lines.append(f"{len(self.recognised)} renamed file{'s' if len(self.recognised) != 1 else ''} "
                         "collected by the notebook name in them (check them):")
            lines += [f"  {describe_name(entry, 120)} as {nb}" for entry, nb in self.recognised]
        return "\n".join(console_text(line) for line in lines)


class LmsIdentity(NamedTuple):
    """Who an entry of a zip belongs to, as its name says (:func:`lms_identity`)."""

    system: str
    """``canvas``, ``moodle``, ``blackboard``, ``nbgrader``, ``folder``, ``plain`` or ``unclear``."""
    names: tuple[str, ...]
    """The student part(s) to look up: a login, a full name, a folder name."""
    lms_user_id: str = ""
    """Canvas's numeric user id."""
    file: str = ""
    """The student's part of the name: the uploaded file's name."""
    assignment: str = ""
    """The assignment folder (nbgrader's layout)."""
    file_id: str = ""
    """The LMS's number for this file or submission: Canvas's attachment id (the second number
    of its names), Moodle's participant id (the number of its folder names).  The feedback
    zips (:mod:`course.grading.term.results.lms`) name files by it, as the LMS's re-upload expects."""


def lms_identity(name: str, *, assignments: Iterable[str] = ()) -> LmsIdentity | None:
    """Who an entry belongs to, from the LMS's part of its name (see the module notes).

    Parameters
    ----------
    name : str
        The entry's path in the zip, ``/``-separated, without a common top folder.
    assignments : iterable of str
        The course's assignments (to recognise ``<student>/<assignment>/<file>``).

    Returns
    -------
    LmsIdentity or None
        ``system``, the student ``names`` to look up, Canvas's ``lms_user_id``,
        the student's ``file`` part; None if the name has no student part.

    Examples
    --------
    >>> lms_identity("lovelaceada_LATE_1234_5678_minimax (1).ipynb")[:4]
    ('canvas', ('lovelaceada',), '1234', 'minimax (1).ipynb')
    >>> lms_identity("Ada Lovelace_77_assignsubmission_file_/sub/Minimax.ipynb")[:4]
    ('moodle', ('Ada Lovelace',), '', 'Minimax.ipynb')
    >>> lms_identity("A1 Minimax_mallory_attempt_2024-03-01-10-00-00_knuthd_attempt_"
    ...              "2024-03-01-09-30-01_minimax.ipynb").names
    ('mallory',)
    >>> lms_identity("ada/a1_minimax/minimax.ipynb", assignments=["a1_minimax"])[:5]
    ('nbgrader', ('ada',), '', 'minimax.ipynb', 'a1_minimax')
    """
    parts = name.split("/")
    first, last = parts[0], parts[-1]
    if len(parts) >= 2:
        found = _MOODLE_FOLDER.match(first)       # a Moodle folder: the student is the folder
        if found:
            return LmsIdentity("moodle", (found.group("name").strip(),), file=last,
                               file_id=found.group("pid"))
        if len(parts) == 3 and parts[1] in set(assignments):
            return LmsIdentity("nbgrader", (first,), file=last, assignment=parts[1])
        if len(parts) >= 4 and parts[-2] in set(assignments):
            # <x>/<student>/<assignment>/<file> in a zip of many top folders: whose is it, x's or
            # the student's?  Neither is taken (a student's own folders must not name another)
            return LmsIdentity("unclear", (first, parts[-3]), file=last, assignment=parts[-2])
        return LmsIdentity("folder", (first,), file=last)
    found = _CANVAS.match(name)
    if found:
        return LmsIdentity("canvas", (found.group("login"),), found.group("uid"), found.group("file"),
                           file_id=found.group("sid"))
    found = _MOODLE.match(name)
    if found and found.group("file"):
        return LmsIdentity("moodle", (found.group("name").strip(),), file=found.group("file"),
                           file_id=found.group("pid"))
    found = _BLACKBOARD.match(name)
    if found:
        words = found.group("prefix").split("_")
        # the username is the last word before _attempt_; an assignment name may hold "_" too,
        # so the longer tails are candidates (shortest first), decided by the roster
        tails = tuple("_".join(words[-k:]) for k in range(1, len(words) + 1) if words[-k:][0])
        return LmsIdentity("blackboard", tails[: max(1, len(words) - 1)] if len(words) > 1 else tails,
                         file=found.group("file") or "")
    return LmsIdentity("plain", (), file=name)


def _stem_key(stem: str) -> str:
    key = stem.strip()
    while True:
        shorter = _DECORATION.sub("", key).strip()
        if shorter == key or not shorter:
            return key.casefold()
        key = shorter


def notebook_match(filename: str, notebooks: Iterable[str]) -> tuple[str, list[str]]:
    """Which of ``notebooks`` a file name is: ``("exact" | "renamed" | "none", matches)``.

    >>> nbs = ["minimax", "alphabeta"]
    >>> [notebook_match(f, nbs) for f in ("minimax.ipynb", "Minimax (1).ipynb", "minimax-final.ipynb")]
    [('exact', ['minimax']), ('exact', ['minimax']), ('exact', ['minimax'])]
    >>> notebook_match("Minimax_RenamedByStudent.ipynb", nbs), notebook_match("notes.ipynb", nbs)
    (('renamed', ['minimax']), ('none', []))
    >>> notebook_match("minimax_vs_alphabeta.ipynb", nbs)
    ('renamed', ['alphabeta', 'minimax'])
    """
    if not filename.lower().endswith(".ipynb"):
        return "none", []
    stem = filename[: -len(".ipynb")]
    key = _stem_key(stem)
    names = sorted(set(notebooks))
    exact = [nb for nb in names if nb.casefold() == key]
    if exact:
        return "exact", exact
    words = [w for w in _WORDS.split(stem.casefold()) if w]
    found = []
    for nb in names:
        target = [w for w in _WORDS.split(nb.casefold()) if w]
        if any(words[i:i + len(target)] == target for i in range(len(words) - len(target) + 1)):
            found.append(nb)
    return ("renamed", found) if found else ("none", [])


def _plain_split(filename: str, notebooks: Iterable[str]) -> tuple[str, str] | None:
    """``(student part, notebook)`` of ``<student><sep><notebook>[decoration].ipynb``."""
    if not filename.lower().endswith(".ipynb"):
        return None
    stem = filename[: -len(".ipynb")]
    for nb in sorted(set(notebooks), key=len, reverse=True):
        found = re.match(rf"^(?P<head>.+?)[_\-. ](?P<nb>{re.escape(nb)})((?:[\s_-]*\(\d+\)|[\s_-]+\d{{1,3}}"
                         r"|[\s_-]+(?:final|copy|v\d+))*)$", stem, re.IGNORECASE)
        if found:
            return found.group("head"), nb
    return None


def _resolve(identity: LmsIdentity, roster: Roster | None) -> tuple[str | None, str]:
    """The student id an identity names: ``(id, "")`` or ``(None, reason)``; reason starts with
    ``ambiguous`` when it could be several students."""
    if roster is not None:
        found: dict[str, Any] = {}
        if identity.lms_user_id:
            found.update({s.id: s for s in roster.by_lms_user_id(identity.lms_user_id)})
        for name in identity.names:            # every reading of the LMS's part must agree
            found.update({s.id: s for s in roster.by_name(name)})
        if len(found) == 1:
            return next(iter(found)), ""
        shown = " / ".join(describe_name(n) for n in identity.names[:2]) or "(none)"
        if len(found) > 1:
            return None, f"ambiguous: {shown} can be {', '.join(sorted(found))} (add lms_names to the roster)"
        extra = f" (lms_user_id {identity.lms_user_id})" if identity.lms_user_id else ""
        return None, f"{shown}{extra} is not a student of the roster {roster.path}"
    if not identity.names:
        return None, "no student name in it"
    candidate = identity.names[0]
    if identity.system == "moodle":
        candidate = "_".join(candidate.split())
    if identity.system == "canvas":
        candidate = candidate.lower()
    if not is_student_id(candidate):
        return None, (f"{describe_name(candidate)} is not a valid student id (and there is no "
                      "roster.csv to map it to one)")
    return candidate, ""


def _read_limited(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    chunks, total = [], 0
    with archive.open(info) as handle:
        while True:
            chunk = handle.read(1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_FILE_BYTES:
                raise ValueError(f"larger than {MAX_FILE_BYTES // 2 ** 20} MiB unpacked")
            chunks.append(chunk)
    return b"".join(chunks)


def _timestamp(folder: Path) -> _dt.datetime | None:
    with contextlib.suppress(OSError, ValueError):
        text = (folder / "timestamp.txt").read_text(encoding="utf-8").strip()
        return _dt.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    return None


def _keep_before(root: Path, student: str, assignment: str, folder: Path,
                 done: set[tuple[str, str]]) -> None:
    """Keep the submission already in ``folder`` as a version, once, before the zip changes it."""
    from ..versions import keep_version

    if (student, assignment) in done:
        return
    if any(p.is_file() for p in folder.iterdir()):
        keep_version(root, student, assignment, folder)
    done.add((student, assignment))


def _keep_versions(root: Path, destination: Path, written: set[tuple[str, str]],
                   earlier: list[tuple[str, str, str, bytes, _dt.datetime]], say: Any,
                   undated: set[tuple[str, str]] = frozenset()) -> None:
    """Keep what the zip wrote, and each of its files older than the submission already there
    (that submission with this file, at the file's date), as versions.  A folder in ``undated``
    (changed by files without a time) is a new hand-in even if an earlier version had its
    content: it is the latest."""
    import shutil

    from ..versions import keep_version

    for student, assignment_id in sorted(written):
        try:
            keep_version(root, student, assignment_id, destination / student / assignment_id,
                         handed_in=(student, assignment_id) in undated)
        except Exception as exc:  # noqa: BLE001 - kept at the next autograde, or named there
            say(f"{student}/{assignment_id}: not kept as a version yet ({exc})")
    for student, assignment_id, filename, body, when in earlier:
        with tempfile.TemporaryDirectory(prefix="course-zip-version-") as tmp:
            copy = Path(tmp) / "version"
            shutil.copytree(destination / student / assignment_id, copy, symlinks=True)
            (copy / filename).write_bytes(body)
            (copy / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S") + "\n", encoding="utf-8")
            try:
                keep_version(root, student, assignment_id, copy)
            except Exception as exc:  # noqa: BLE001 - one version must never stop the import
                say(f"{student}/{assignment_id}/{filename}: the zip's older file not kept ({exc})")


def _safe_folder(destination: Path, student: str, assignment: str) -> Path:
    """``destination/student/assignment``, created; refuses links on the way."""
    destination.mkdir(parents=True, exist_ok=True)
    folder = destination
    for part in (student, assignment):
        folder = folder / part
        if folder.is_symlink():
            raise ValueError(f"{folder} is a symbolic link")
        folder.mkdir(exist_ok=True)
    return folder


def collect_zip(zip_path: str | os.PathLike, submissions: str | os.PathLike | None = None, *,
                root: str | os.PathLike = ".", assignment: str | None = None,
                timezone: str | None = None, file_as: Mapping[str, str] | None = None,
                log: Any = None) -> ZipImport:
    """Unpack a zip of submissions into nbgrader's ``<student>/<assignment>/`` layout.

    Each entry is filed as one notebook of one assignment of one student, or
    refused, or found ambiguous (see the module notes for how names are read).

    Parameters
    ----------
    zip_path : path
    submissions : path, optional
        Destination folder (created if needed); default: the course's ``submitted/``
        (nbgrader's, under ``root``).  A relative path is taken from the current directory.
    root : path
        The course directory (its assignments, notebooks and ``roster.csv``).
    assignment : str, optional
        The assignment the zip is for (an LMS exports one at a time); without
        it, a notebook name must belong to one assignment only.
    timezone : str, optional
        How to read the zip's dates (module notes, "When each file was handed in"):
        an IANA zone, ``UTC``, ``local`` or ``none``.  Without it, a Canvas zip's
        files are filed without a time and any other zip whose dates carry no zone
        is refused (:class:`ZipDatesUnknown`).
    file_as : mapping, optional
        ``entry name -> notebook file`` (``minimax.ipynb``): the instructor's word that
        the entry is that notebook, renamed by the student.  Its student is still read
        from the LMS's part of the name; it is listed as recognised.
    log : callable, optional
        Receives one line per submission kept or replaced over another.

    Returns
    -------
    ZipImport
        What was collected, recognised, refused, ambiguous, ignored and
        missing; ``.ok`` is False when the instructor must look.

    Raises
    ------
    WorkflowError
        If the file is missing or not a zip archive, the assignment is
        unknown, the roster is invalid, the zip is too large, a ``file_as`` entry
        or notebook is unknown, or (:class:`ZipDatesUnknown`) its dates need a
        ``timezone``.
    """
    zone = read_timezone(timezone)
    layout = course_layout(root)
    zip_path = Path(zip_path)
    if not zip_path.is_file():
        raise WorkflowError(f"no zip file {zip_path}")
    if not zipfile.is_zipfile(zip_path):
        raise WorkflowError(f"{zip_path} is not a zip archive")
    assignments = layout.assignments()
    if assignment is not None and assignment not in assignments:
        raise WorkflowError(f"unknown assignment {assignment!r}; the assignments are {', '.join(assignments)}")
    roster = course_roster(layout.root)
    destination = Path(submissions) if submissions is not None else layout.submitted
    if not destination.is_absolute():
        destination = Path.cwd() / destination
    owners: dict[str, list[str]] = {}
    for a in ([assignment] if assignment else assignments):
        for nb in layout.notebooks(a):
            owners.setdefault(nb, []).append(a)
    renamed_as: dict[str, str] = {}
    for entry, target in (file_as or {}).items():
        stem = target[: -len(".ipynb")] if target.lower().endswith(".ipynb") else target
        if stem not in owners:
            raise WorkflowError(f"--file-as {describe_name(entry, 120)}={describe_name(target)}: "
                                f"{describe_name(target)} is not a notebook of "
                                f"{assignment or 'any assignment'} (they are: "
                                f"{', '.join(sorted(nb + '.ipynb' for nb in owners))})")
        renamed_as[entry.replace("\\", "/")] = stem
    say = console_log(log) if log is not None else (lambda line: None)   # entry names are the students'
    result = ZipImport(roster=roster.path if roster is not None else None, destination=destination)
    # into the course's own submitted/: every version is kept (course/grading/term/versions.py)
    managed = destination.resolve() == layout.submitted.resolve()
    kept_before: set[tuple[str, str]] = set()
    latest = _dt.datetime.now() + FUTURE_SLACK

    with zipfile.ZipFile(zip_path) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_ENTRIES:
            raise WorkflowError(f"{zip_path} has {len(infos)} entries (at most {MAX_ENTRIES}): not a "
                                "zip of submissions")
        declared = sum(i.file_size for i in infos)
        if declared > MAX_TOTAL_BYTES:
            raise WorkflowError(f"{zip_path} would unpack to {declared / 2 ** 30:.1f} GiB (at most "
                                f"{MAX_TOTAL_BYTES // 2 ** 30} GiB): not a zip of submissions")
        names = [i.filename.replace("\\", "/") for i in infos]
        counts: dict[str, int] = {}
        for n in names:
            counts[n] = counts.get(n, 0) + 1
        files = [(i, n) for i, n in zip(infos, names) if not i.is_dir()]
        parts_of = {n: [p for p in n.split("/") if p not in ("", ".")] for _, n in files}
        # a zip of a whole submitted/ folder: one top folder (not a student's), then the layout
        kept = [p for p in parts_of.values() if p and not any(q == "__MACOSX" or _JUNK.match(q) for q in p)]
        tops = {p[0] for p in kept}
        strip_top = (len(tops) == 1 and all(len(p) >= 2 for p in kept)
                     and not _MOODLE_FOLDER.match(next(iter(tops)))
                     and any(len(p) == 4 and p[2] in assignments for p in kept))

        # 1. classify every entry: (student, assignment, notebook, quality) or a reason
        systems: dict[str, str] = {}
        candidates: dict[tuple[str, str, str], list[tuple[zipfile.ZipInfo, str, str]]] = {}
        for info, name in files:
            parts = parts_of[name]
            if not parts:
                continue
            if any(p == "__MACOSX" or _JUNK.match(p) for p in parts):
                result.ignored.append((name, "operating-system debris"))
                continue
            if name.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", parts[0]) \
                    or "\x00" in name:
                result.refused.append((name, "an unsafe path (absolute, drive letter or '..')"))
                continue
            if counts[name] > 1:
                result.ambiguous.append((name, f"the zip holds {counts[name]} entries with this name: "
                                               "they cannot be told apart"))
                continue
            if any(p.startswith(".") for p in parts):
                result.ignored.append((name, "a hidden file"))
                continue
            mode = info.external_attr >> 16
            if stat.S_ISLNK(mode):
                result.refused.append((name, "a symbolic link"))
                continue
            if info.flag_bits & 0x1:
                result.refused.append((name, "encrypted"))
                continue
            if info.file_size > MAX_FILE_BYTES:
                result.refused.append((name, f"larger than {MAX_FILE_BYTES // 2 ** 20} MiB unpacked"))
                continue
            when = _dt.datetime(*info.date_time)
            if when > latest:
                result.refused.append((name, f"dated {when} (in the future): the zip's dates cannot "
                                             "be trusted"))
                continue
            path = "/".join(parts[1:] if strip_top else parts)
            identity = lms_identity(path, assignments=assignments)
            filename = identity.file
            if identity.system == "blackboard" and not filename:
                result.ignored.append((name, "the LMS's record of the attempt"))
                continue
            if identity.system in ("nbgrader", "unclear") and filename in _NBGRADER_FILES:
                result.ignored.append((name, "nbgrader's record of the submission"))
                continue
            if identity.system == "unclear":
                result.ambiguous.append((name, f"the student could be {describe_name(identity.names[0])} "
                                               f"(the top folder) or {describe_name(identity.names[1])}"))
                continue
            if identity.system == "plain":
                split = _plain_split(filename, owners)
                if split is None:
                    kind, _ = notebook_match(filename, owners)
                    why = ("no student name in it (expected <student>_<notebook>.ipynb)" if kind != "none"
                           else "not a notebook of " + (assignment or "any assignment"))
                    result.refused.append((name, why))
                    continue
                identity = LmsIdentity("plain", (split[0],), file=split[1] + ".ipynb")
                filename = identity.file
            if identity.system == "nbgrader" and assignment and identity.assignment != assignment:
                result.refused.append((name, f"a submission of {identity.assignment}, not {assignment}"))
                continue
            pool = {nb: owners[nb] for nb in owners} if identity.system != "nbgrader" else \
                {nb: [identity.assignment] for nb in layout.notebooks(identity.assignment)}
            kind, matches = notebook_match(filename, pool)
            if name in renamed_as:
                kind, matches = "renamed", [renamed_as[name]]
                if renamed_as[name] not in pool:
                    result.refused.append((name, f"--file-as names {renamed_as[name]}.ipynb, not a notebook "
                                                 f"of {identity.assignment or assignment}"))
                    continue
            if kind == "none":
                other = [a for a in assignments if a != assignment and notebook_match(
                    filename, layout.notebooks(a))[0] == "exact"] if assignment else []
                why = (f"a notebook of {', '.join(other)}, not of {assignment}" if other else
                       f"not a notebook of {assignment or identity.assignment or 'any assignment'}")
                result.refused.append((name, why))
                continue
            if len(matches) > 1:
                result.ambiguous.append((name, f"its name holds {' and '.join(matches)}"))
                continue
            notebook = matches[0]
            if len(pool[notebook]) > 1:
                result.ambiguous.append((name, f"{notebook}.ipynb is a notebook of {' and '.join(pool[notebook])}:"
                                               " name one with --assignment"))
                continue
            student, why = _resolve(identity, roster)
            if student is None:
                (result.ambiguous if why.startswith("ambiguous") else result.refused).append(
                    (name, why.removeprefix("ambiguous: ")))
                continue
            candidates.setdefault((student, pool[notebook][0], notebook), []).append((info, name, kind))
            systems[name] = identity.system

        # 2. one file per student and notebook: a file named exactly wins over a renamed one,
        #    then the newest; two equally good and equally new are ambiguous
        chosen: dict[tuple[str, str, str], tuple[zipfile.ZipInfo, str, str]] = {}
        for key, found in candidates.items():
            best = [f for f in found if f[2] == "exact"] or found
            best.sort(key=lambda f: f[0].date_time, reverse=True)
            if len(best) > 1 and best[0][0].date_time == best[1][0].date_time:
                for info, name, _ in found:
                    result.ambiguous.append((name, f"another file of {key[0]} is {key[2]}.ipynb too, "
                                                   "with the same date"))
                continue
            chosen[key] = best[0]
            for info, name, _ in found:
                if name != best[0][1]:
                    result.refused.append((name, f"another file of {key[0]} was taken as {key[2]}.ipynb "
                                                 f"({best[0][1]})"))
                    say(f"{key[0]}/{key[1]}/{key[2]}.ipynb: two files in the zip; kept {best[0][1]} "
                        f"({_dt.datetime(*best[0][0].date_time)}), not {name} ({_dt.datetime(*info.date_time)})")

        # 3. when each was handed in (module notes): refuse before writing anything if a zone is
        #    needed and not given
        times: dict[str, _dt.datetime | None] = {}
        unzoned: dict[str, int] = {}
        for info, name, _ in chosen.values():
            times[name], missing_zone = _submission_time(info, systems[name], zone)
            if missing_zone:
                unzoned[systems[name]] = unzoned.get(systems[name], 0) + 1
        if unzoned:
            which = ", ".join(f"{n} {'Moodle' if k == 'moodle' else 'Blackboard' if k == 'blackboard' else 'other'}"
                              f" file{'s' if n != 1 else ''}" for k, n in sorted(unzoned.items()))
            raise ZipDatesUnknown(
                f"{zip_path}: the zip's dates ({which}) carry no time zone, and the late penalty reads "
                "them: give --timezone ZONE, the zone of the computer that made the zip (Moodle: its "
                "server's, e.g. Europe/Berlin; a zip you made here: local), or --timezone none to file "
                "the submissions without a time (no late penalty from the zip). Nothing was written.")
        undated = sorted(n for n, t in times.items() if t is None)
        if undated:
            canvas = [n for n in undated if systems[n] == "canvas"]
            if canvas and zone is None:
                late = [n for n in canvas if _CANVAS.match(n) and _CANVAS.match(n).group("late")]
                result.notes.append(
                    f"{len(canvas)} Canvas file{'s' if len(canvas) != 1 else ''} filed without a submission "
                    "time: Canvas dates every file of its zip when it builds the zip, so the zip says "
                    "nothing about when they were handed in"
                    + (f"; Canvas marked {len(late)} late: {', '.join(describe_name(n, 120) for n in late)}"
                       if late else "")
                    + " (see docs/instructor/lms.md, \"When files were handed in\")")
            elif zone == "none":
                result.notes.append(f"{len(undated)} file{'s' if len(undated) != 1 else ''} filed without a "
                                    "submission time (--timezone none)")

        # 4. write them; the submissions they replace, and older ones, are kept as versions
        stamps: dict[tuple[str, str], _dt.datetime] = {}
        undated_folders: set[tuple[str, str]] = set()
        total = 0
        earlier: list[tuple[str, str, str, bytes, _dt.datetime]] = []
        for (student, assignment_id, notebook), (info, name, kind) in sorted(chosen.items()):
            try:
                body = _read_limited(archive, info)
            except (ValueError, zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as exc:
                result.refused.append((name, f"cannot be unpacked: {exc}"))
                continue
            total += len(body)
            if total > MAX_TOTAL_BYTES:
                raise WorkflowError(f"{zip_path} unpacks to more than {MAX_TOTAL_BYTES // 2 ** 30} GiB")
            when = times[name]
            filename = f"{notebook}.ipynb"
            try:
                folder = _safe_folder(destination, student, assignment_id)
            except ValueError as exc:
                result.refused.append((name, str(exc)))
                continue
            target = folder / filename
            if target.is_symlink():
                result.refused.append((name, f"{target} is a symbolic link"))
                continue
            if managed:
                try:
                    _keep_before(layout.root, student, assignment_id, folder, kept_before)
                except Exception as exc:  # noqa: BLE001 - UnsafeSubmission, OSError
                    result.refused.append((name, f"the submission already in {folder} could not be kept "
                                                 f"as a version ({exc}), so it is not replaced"))
                    continue
            changed = not target.exists() or target.read_bytes() != body
            if managed and target.exists() and not changed and when is not None:
                before = _timestamp(folder)
                if before is not None and when < before:
                    # the same notebook handed in earlier too: an earlier version (its time counts
                    # for the late penalty under latest-before-due)
                    earlier.append((student, assignment_id, filename, body, when))
                    result.notes.append(f"{describe_name(name, 120)}: the same notebook as in {folder}, "
                                        "handed in earlier (kept as an earlier version)")
                    continue
            if target.exists() and changed:
                before = _timestamp(folder) or _dt.datetime.fromtimestamp(
                    target.stat().st_mtime, _dt.timezone.utc).replace(tzinfo=None)
                kept = " (kept as an earlier version)" if managed else ""
                if when is None:
                    say(f"{student}/{assignment_id}/{filename}: replaced the submission already collected "
                        f"({before:%Y-%m-%d %H:%M:%S} UTC) by the zip's {name} (the zip has no submission "
                        "times: its file is taken as the latest)"
                        + (" (that one is kept as a version)" if managed else ""))
                elif before > when:
                    say(f"{student}/{assignment_id}/{filename}: kept the newer submission already in "
                        f"{destination} ({before:%Y-%m-%d %H:%M:%S}); the zip's {name} ({when}) is "
                        f"older{kept}")
                    result.notes.append(f"{describe_name(name, 120)}: older than the submission "
                                        f"already in {folder}{kept}")
                    if managed:
                        earlier.append((student, assignment_id, filename, body, when))
                    continue
                else:
                    say(f"{student}/{assignment_id}/{filename}: replaced the submission already collected "
                        f"({before:%Y-%m-%d %H:%M:%S}) by the zip's newer {name} ({when})"
                        + (" (that one is kept as a version)" if managed else ""))
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".import-", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                handle.write(body)
            os.replace(tmp, target)
            result.collected.append((student, assignment_id, filename, name))
            if kind == "renamed":
                result.recognised.append((name, filename))
            if when is None:
                if changed:
                    undated_folders.add((student, assignment_id))
            else:
                stamps[(student, assignment_id)] = max(stamps.get((student, assignment_id), when), when)
    for student, assignment_id in sorted(undated_folders - set(stamps)):
        # a file without a time replaced or joined the folder's: an earlier time would be wrong
        (destination / student / assignment_id / "timestamp.txt").unlink(missing_ok=True)
    for (student, assignment_id), when in stamps.items():
        folder = destination / student / assignment_id
        before = _timestamp(folder)
        when = max(when, before) if before else when
        (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S") + "\n", encoding="utf-8")
    if managed:
        _keep_versions(layout.root, destination, set(stamps) | undated_folders, earlier, say,
                       undated=undated_folders - set(stamps))
    if roster is not None:
        seen = {(s, a) for s, a, _, _ in result.collected}
        if assignment is not None:
            zipped = {assignment}
        else:
            zipped = {a for _, a, _ in candidates} or set()
        for a in sorted(zipped):
            result.missing += [(sid, a) for sid in roster.ids if (sid, a) not in seen
                               and not (destination / sid / a).is_dir()]
    else:
        result.notes.append(f"no roster ({layout.root / 'roster.csv'}): students are named after the "
                            "LMS's names, and nobody can be listed as missing")
    return result
