"""Importing a zip of submissions from a learning-management system (Canvas, Moodle, Blackboard).

Everything here reads **hostile input**: the zip's entry names, dates and
contents come from students (through the LMS) and are read as data, never run.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..course_dir import WorkflowError, course_layout

__all__ = ["collect_zip", "lms_student"]


def _safe_id(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", text).strip("._-")


#: Blackboard: ``<assignment name>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>[_<file name>]``.
_BLACKBOARD = re.compile(r"^(?:.*_)?(?P<user>[^_]+)_attempt_\d{4}(?:-\d{2}){5}$")
#: Moodle's folder per student: ``<full name>_<participant id>_assignsubmission_<plugin>_``.
_MOODLE = re.compile(r"^(?P<user>.+?)_\d+_assignsubmission_[a-z]+_?$", re.IGNORECASE)
#: Canvas: ``<login>[_LATE]_<user id>[_<submission id>]`` (ids of three or more digits).
_CANVAS = re.compile(r"^(?P<user>.+?)(?:_late)?(?:_\d{3,}){1,2}$", re.IGNORECASE)
#: A copy number a download or a resubmission adds to a file name: ``minimax-1``, ``minimax (2)``.
_COPY_NUMBER = re.compile(r"(?:-\d+| \(\d+\))$")


def lms_student(raw: str) -> str:
    """The student's id in a learning-management system's file or folder name.

    ==========  ==========================================================  ================
    system      name (before the notebook's own name)                       student
    ==========  ==========================================================  ================
    Canvas      ``lovelaceada_1234_5678_`` (login, user id, submission id)  ``lovelaceada``
    Canvas      ``lovelaceada_LATE_1234_5678_`` (a late submission)         ``lovelaceada``
    Moodle      ``Ada Lovelace_1234_assignsubmission_file_`` (a folder)     ``Ada_Lovelace``
    Blackboard  ``A1 Minimax_lovelaceada_attempt_2024-03-01-09-30-00_``     ``lovelaceada``
    ==========  ==========================================================  ================

    The systems' numeric ids (three digits or more) and ``LATE`` markers are
    dropped, so the same student gets the same id in every assignment; other
    names are kept as they are (``student_01`` stays ``student_01``).

    >>> [lms_student(s) for s in ("lovelaceada_1234_5678", "lovelaceada_LATE_1234_5678",
    ...  "Ada Lovelace_1234_assignsubmission_file_", "A1_lovelaceada_attempt_2024-03-01-09-30-00",
    ...  "ada", "alan.turing", "student_01", "20231234")]
    ['lovelaceada', 'lovelaceada', 'Ada_Lovelace', 'lovelaceada', 'ada', 'alan.turing', 'student_01', '20231234']
    """
    text = raw.strip().rstrip("-. ")
    for pattern in (_BLACKBOARD, _MOODLE, _CANVAS):
        found = pattern.match(text.rstrip("_") if pattern is not _MOODLE else text)
        if found:
            return _safe_id(found.group("user"))
    return _safe_id(text)


def _notebook_name(filename: str, notebooks: Iterable[str]) -> str | None:
    """The assignment notebook a submitted file name is (``minimax-1.ipynb`` is ``minimax``)."""
    if not filename.endswith(".ipynb"):
        return None
    stem = filename[:-6]
    for candidate in (stem, _COPY_NUMBER.sub("", stem)):
        if candidate in notebooks:
            return candidate
    return None


def _when_on_disk(folder: Path, path: Path) -> _dt.datetime:
    """When an already collected file was submitted: its ``timestamp.txt``, else its file time."""
    try:
        text = (folder / "timestamp.txt").read_text(encoding="utf-8").strip()
        return _dt.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    except (OSError, ValueError):
        return _dt.datetime.fromtimestamp(path.stat().st_mtime).replace(microsecond=0)


def collect_zip(zip_path: str | os.PathLike, submissions: str | os.PathLike = "submitted", *,
                root: str | os.PathLike = ".",
                log: Any = None) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """Unpack a zip of submissions into nbgrader's ``<student>/<assignment>/`` layout.

    Entries are recognised by their paths (a leading folder, as in a zip of a
    whole ``submitted/`` folder, is ignored):

    * ``.../<student>/<assignment>/<file>`` for a known assignment (the student
      folder is taken as it is);
    * ``.../<student>/<notebook>.ipynb`` for a known notebook name (the
      layout of learning-management systems that make a folder per student,
      such as Moodle's ``Ada Lovelace_1234_assignsubmission_file_/``);
    * ``<student><sep><notebook>.ipynb`` with ``sep`` one of ``_ - .`` or a
      space (the flat layout, e.g. ``ada_lovelace_minimax.ipynb``, Canvas's
      ``lovelaceada_1234_5678_minimax.ipynb`` or Blackboard's
      ``A1_lovelaceada_attempt_2024-03-01-09-30-00_minimax.ipynb``).

    In the last two layouts the student part is normalised by
    :func:`lms_student` (numeric ids, ``LATE`` markers and the Canvas, Moodle
    and Blackboard decorations are dropped), and a copy number the system
    added to the notebook's name (``minimax-1.ipynb``, ``minimax (2).ipynb``)
    is removed, so one student gets one folder.  Student ids keep letters,
    digits and ``_ . @ -``; other characters become ``_``.

    **Nothing is overwritten silently.**  When two entries of the zip are the
    same student's same file, or a file was already collected with other
    contents, the newer one (by the zip's dates, and ``timestamp.txt`` for a
    file already collected) is kept, and ``log`` is told which.  Each
    submission folder gets a ``timestamp.txt`` (the newest of its files'
    dates), which nbgrader uses for late penalties.

    Parameters
    ----------
    zip_path : path
    submissions : path
        Destination folder (created if needed).
    root : path
        The course directory (for the assignment and notebook names).
    log : callable, optional
        Receives one line per submission kept or replaced over another.

    Returns
    -------
    (collected, skipped)
        ``(student, assignment, file name)`` for each file written, and
        ``(entry, reason)`` for each entry left out.

    Raises
    ------
    WorkflowError
        If the file is missing or not a zip archive.
    """
    layout = course_layout(root)
    zip_path = Path(zip_path)
    if not zip_path.is_file():
        raise WorkflowError(f"no zip file {zip_path}")
    if not zipfile.is_zipfile(zip_path):
        raise WorkflowError(f"{zip_path} is not a zip archive")
    destination = Path(submissions)
    if not destination.is_absolute():
        destination = Path.cwd() / destination
    assignments = layout.assignments()
    notebook_of = {nb: a for a in assignments for nb in layout.notebooks(a)}
    by_length = sorted(notebook_of, key=len, reverse=True)
    say = log if log is not None else (lambda line: None)
    collected, skipped = [], []
    stamps: dict[tuple[str, str], _dt.datetime] = {}
    with zipfile.ZipFile(zip_path) as archive:
        chosen: dict[tuple[str, str, str], tuple[zipfile.ZipInfo, str]] = {}
        for info in archive.infolist():
            name = info.filename.replace("\\", "/")
            parts = [p for p in name.split("/") if p not in ("", ".")]
            if info.is_dir() or not parts:
                continue
            if any(p.startswith(".") or p == "__MACOSX" or p == ".." for p in parts):
                skipped.append((name, "hidden, system or unsafe path"))
                continue
            student = assignment = None
            filename = parts[-1]
            notebook = _notebook_name(filename, notebook_of)
            if len(parts) >= 3 and parts[-2] in assignments:
                student, assignment = _safe_id(parts[-3]), parts[-2]
            elif notebook is not None and len(parts) >= 2:
                student, assignment, filename = lms_student(parts[-2]), notebook_of[notebook], notebook + ".ipynb"
            elif filename.endswith(".ipynb"):
                for nb in by_length:
                    for suffix in (nb + ".ipynb", *(nb + f"-{n}.ipynb" for n in range(1, 10))):
                        if filename.endswith(suffix) and len(filename) > len(suffix):
                            head = filename[: -len(suffix)]
                            if head[-1] in "_-. ":
                                student, assignment, filename = lms_student(head), notebook_of[nb], nb + ".ipynb"
                                break
                    if student is not None:
                        break
            if not student or assignment is None:
                skipped.append((name, "cannot tell the student and the assignment from the path"))
                continue
            key = (student, assignment, filename)
            if key in chosen:
                other, other_name = chosen[key]
                newer, older = ((info, name), (other, other_name)) \
                    if info.date_time >= other.date_time else ((other, other_name), (info, name))
                say(f"{student}/{assignment}/{filename}: two submissions in the zip; kept the newer "
                    f"{newer[1]} ({_dt.datetime(*newer[0].date_time)}), not {older[1]} "
                    f"({_dt.datetime(*older[0].date_time)})")
                skipped.append((older[1], f"an older submission of {student}/{assignment}/{filename}"))
                chosen[key] = newer
            else:
                chosen[key] = (info, name)
        for (student, assignment, filename), (info, name) in chosen.items():
            folder = destination / student / assignment
            target = folder / filename
            when = _dt.datetime(*info.date_time)
            body = archive.read(info)
            if target.exists() and target.read_bytes() != body:
                before = _when_on_disk(folder, target)
                if before > when:
                    say(f"{student}/{assignment}/{filename}: kept the newer submission already in "
                        f"{destination} ({before}); the zip's {name} ({when}) is older")
                    skipped.append((name, f"older than the submission already in {folder}"))
                    continue
                say(f"{student}/{assignment}/{filename}: replaced the submission already collected "
                    f"({before}) by the zip's newer {name} ({when})")
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(body)
            collected.append((student, assignment, filename))
            key = (student, assignment)
            stamps[key] = max(stamps.get(key, when), when)
    for (student, assignment), when in stamps.items():
        stamp = destination / student / assignment / "timestamp.txt"
        with contextlib.suppress(OSError, ValueError):
            when = max(when, _dt.datetime.strptime(stamp.read_text(encoding="utf-8").strip()[:19],
                                                   "%Y-%m-%d %H:%M:%S"))
        stamp.write_text(when.strftime("%Y-%m-%d %H:%M:%S") + "\n", encoding="utf-8")
    return collected, skipped


# ---------------------------------------------------------------------------
