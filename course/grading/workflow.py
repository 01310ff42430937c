"""The instructor's workflow around nbgrader: one function (and one command) per step.

======================  ================================================================================
step                    what it does
======================  ================================================================================
:func:`prepare`         before JupyterLab starts: the exchange folder, a complete ``gradebook.db``
:func:`release`         regenerate ``exercises/`` from ``solutions/`` (``nbgrader generate_assignment``)
:func:`student_bundle`  the students' copy of the course (a zip without ``solutions/``)
:func:`collect_zip`     unpack a zip of submissions into ``submitted/<student>/<assignment>/``
:func:`autograde`       autograde every submission, each in its own process, after repairing it
:func:`feedback`        write feedback HTML for every graded submission
:func:`grades`          export one CSV row per student and assignment
:func:`summary`         per-assignment score histograms (PNG) and the tests students fail most
======================  ================================================================================

The course directory (``root``) holds ``nbgrader_config.py``, ``solutions/``
(nbgrader's source), ``exercises/`` (its release), and the working folders
nbgrader creates: ``submitted/``, ``autograded/``, ``feedback/`` and
``gradebook.db``.

**Grades that mean something.**  A student's code never runs with the
instructor's rights: :class:`course.grading.sandboxed.SandboxedGrade` runs it
in a bubblewrap sandbox (:mod:`course.sandbox`) that sees none of the course,
and computes every test's verdict in the grader, where the student's code
cannot reach.  An :class:`~course.grading.integrity.IntegrityWatch` checks
after every submission that the grader's own files are unchanged, and stops
for review if not.

**A class is never lost.**  Each submission is copied to a staging folder,
repaired there (:mod:`course.grading.repair`: missing and duplicated cells,
damaged metadata; unreadable notebooks are set aside with the reason), and
graded by a ``python -m course.grading.worker`` process with a wall-clock
limit, several in parallel (``--jobs``, default the number of cores).  A cell
that hangs or kills its process is stopped and reported, and the next cells
run.  Whatever happens to one submission is written to the grading report
(``autograded/.course-grading/report.json``) and the others go on.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import CourseError
from .repair import describe, repair_submission

__all__ = [
    "WorkflowError",
    "CourseLayout",
    "GradeRecord",
    "course_layout",
    "exchange_root",
    "prepare",
    "release",
    "student_bundle",
    "collect_zip",
    "lms_student",
    "autograde",
    "feedback",
    "grades",
    "summary",
    "REPORT_PATH",
]

#: Where the grading report lives, relative to the course directory.
REPORT_PATH = Path("autograded") / ".course-grading" / "report.json"
#: Wall-clock seconds for one submission: this much per code cell, plus a margin.
SECONDS_PER_CELL_FACTOR = 2.0


class WorkflowError(CourseError):
    """An instructor command cannot run (missing folders, nbgrader refusing a step, ...)."""


@dataclass(frozen=True)
class CourseLayout:
    """Where a course's folders are."""

    root: Path
    """The course directory."""
    source: Path
    """nbgrader's source folder (``solutions/``)."""
    release: Path
    """nbgrader's release folder (``exercises/``)."""
    submitted: Path
    """Submissions, ``<student>/<assignment>/``."""
    autograded: Path
    """nbgrader's graded copies."""
    feedback: Path
    """Feedback HTML."""
    db_url: str
    """The gradebook database."""
    course_id: str
    """nbgrader's course id."""
    cell_timeout: int
    """Seconds a cell may run (``Execute.timeout``)."""

    @property
    def report(self) -> Path:
        """The grading report (JSON)."""
        return self.root / REPORT_PATH

    def assignments(self) -> list[str]:
        """The assignments: the folders of ``solutions/``, in order."""
        if not self.source.is_dir():
            raise WorkflowError(f"no source folder {self.source}; is {self.root} the course directory?")
        return sorted(p.name for p in self.source.iterdir() if p.is_dir() and not p.name.startswith("."))

    def notebooks(self, assignment: str) -> list[str]:
        """The notebook names (without ``.ipynb``) of an assignment."""
        return sorted(p.stem for p in (self.source / assignment).glob("*.ipynb"))


def _ensure_tools_on_path() -> None:
    """Put this Python's ``bin`` folder on PATH: nbgrader runs the ``alembic`` command from there.

    ``make`` calls ``.venv/bin/python`` without activating the virtual
    environment, so ``alembic`` (installed beside nbgrader) is not on PATH and
    nbgrader fails to create a new gradebook.
    """
    bindir = os.path.dirname(sys.executable)
    parts = os.environ.get("PATH", "").split(os.pathsep)
    if bindir not in parts:
        os.environ["PATH"] = os.pathsep.join([bindir, *parts])


def _config(root: Path):
    from .worker import load_course_config

    return load_course_config(str(root))


def course_layout(root: str | os.PathLike = ".", submissions: str | os.PathLike | None = None) -> CourseLayout:
    """Read the course's folders from its ``nbgrader_config.py``.

    Parameters
    ----------
    root : path
        The course directory.
    submissions : path, optional
        The submissions folder, if not nbgrader's ``submitted/`` (relative to
        the current directory, or absolute).

    Raises
    ------
    WorkflowError
        If ``root`` is not a directory.
    """
    root = Path(root).resolve()
    if not root.is_dir():
        raise WorkflowError(f"course directory {root} does not exist")
    _ensure_tools_on_path()
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=_config(root))

    def folder(name: str) -> Path:
        value = Path(getattr(coursedir, name))
        return value if value.is_absolute() else root / value

    config = _config(root)
    timeout = config.Execute.get("timeout", 30) if "Execute" in config else 30
    return CourseLayout(
        root=root,
        source=folder("source_directory"),
        release=folder("release_directory"),
        submitted=Path(submissions).resolve() if submissions else folder("submitted_directory"),
        autograded=folder("autograded_directory"),
        feedback=folder("feedback_directory"),
        db_url=coursedir.db_url,
        course_id=coursedir.course_id,
        cell_timeout=int(timeout),
    )


#: nbgrader's exchange is shared by the instructor and every student: nbgrader's own
#: ``release_assignment`` creates it (and resets it) with these permissions.
EXCHANGE_MODE = 0o777


def exchange_root(root: str | os.PathLike = ".") -> Path | None:
    """The exchange folder the course's ``nbgrader_config.py`` names (``Exchange.root``), if any."""
    config = _config(Path(root).resolve())
    value = config.Exchange.get("root") if "Exchange" in config else None
    return Path(value) if value else None


def _ensure_exchange(path: Path | None, log: Any = None) -> bool:
    """Create the exchange folder with nbgrader's permissions; False (and a warning) if impossible."""
    if path is None:
        return False
    try:
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, EXCHANGE_MODE)
            if log is not None:
                log(f"created the nbgrader exchange {path} (writable by every user, as nbgrader needs)")
        return True
    except OSError as exc:
        if log is not None:
            log(f"WARNING: the nbgrader exchange {path} does not exist and cannot be created ({exc}); "
                "ask your instructor, or set COURSE_EXCHANGE to the course's exchange folder")
        return False


def _complete_gradebook(layout: CourseLayout, log: Any = None) -> None:
    """Create ``gradebook.db``, or stamp the schema version of one an earlier failed start left.

    nbgrader creates the tables first and then asks the ``alembic`` command for the schema
    version; when ``alembic`` was not on PATH, the database is left without ``alembic_version``
    and later upgrades of nbgrader cannot migrate it.
    """
    import sqlite3

    from nbgrader.api import get_alembic_version

    if not layout.db_url.startswith("sqlite:///"):
        return
    path = Path(layout.db_url[len("sqlite:///"):])
    if path.exists():
        with contextlib.closing(sqlite3.connect(path)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "alembic_version" not in tables:
                version = get_alembic_version()
                db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
                db.execute("INSERT INTO alembic_version (version_num) VALUES (?)", (version,))
                db.commit()
                if log is not None:
                    log(f"completed the gradebook {path} (schema version {version} was missing)")
                return
    existed = path.exists() and path.stat().st_size > 0
    with _gradebook(layout):
        pass
    if not existed and log is not None:
        log(f"created the gradebook {path}")


def prepare(root: str | os.PathLike = ".", *, log: Any = None) -> None:
    """Make ``jupyter lab`` work the first time (``make lab`` runs this before the server).

    * the exchange folder of ``nbgrader_config.py`` exists, writable by every
      user (``Exchange.root``; the students' Assignment List needs it);
    * on the instructor's side (a ``solutions/`` folder): ``gradebook.db`` exists
      and is complete, so the formgrader's first page does not fail.
    """
    layout = course_layout(root)
    _ensure_exchange(exchange_root(layout.root), log)
    if layout.source.is_dir():
        _complete_gradebook(layout, log)


def _api(layout: CourseLayout, **overrides: Any):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = _config(layout.root)
    exchange = config.Exchange.get("root") if "Exchange" in config else None
    if exchange:
        _ensure_exchange(Path(exchange))       # NbGraderAPI complains if it cannot write there
    for key, value in overrides.items():
        section, name = key.split(".")
        config[section][name] = value
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def _nbgrader_error(result: dict) -> str:
    """The most telling error line of an nbgrader result (not its generic "see above")."""
    text = "\n".join(str(result.get(k) or "") for k in ("log", "error"))
    found = re.findall(r"(\w+(?:Error|Exception|Exit)): (.+)", text)
    useful = [f"{name}: {message.strip()}" for name, message in found
              if "see the the above traceback" not in message and "see the above" not in message]
    if useful:
        return useful[-1]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "unknown error"


def _pick(layout: CourseLayout, assignment: str | None) -> list[str]:
    known = layout.assignments()
    if assignment is None:
        return known
    if assignment not in known:
        raise WorkflowError(f"unknown assignment {assignment!r}; the assignments are {', '.join(known)}")
    return [assignment]


# ---------------------------------------------------------------------------
# release
# ---------------------------------------------------------------------------
def release(root: str | os.PathLike = ".", *, assignment: str | None = None,
            release_directory: str | os.PathLike | None = None) -> list[Path]:
    """Regenerate the student version of the assignments (``nbgrader generate_assignment --force``).

    Parameters
    ----------
    root : path
        The course directory.
    assignment : str, optional
        Only this assignment (default: all of ``solutions/``).
    release_directory : path, optional
        Write the release here instead of ``exercises/`` (used to check that
        the committed release is up to date).

    Returns
    -------
    list of Path
        The released notebooks.

    Raises
    ------
    WorkflowError
        If nbgrader refuses (for example: cells were added to or removed from
        an assignment that already has submissions in the gradebook).
    """
    layout = course_layout(root)
    overrides = {}
    target = layout.release
    if release_directory is not None:
        target = Path(release_directory).resolve()
        overrides["CourseDirectory.release_directory"] = str(target)
    api = _api(layout, **overrides)
    written = []
    for name in _pick(layout, assignment):
        result = api.generate_assignment(name, force=True, create=True)
        if not result.get("success"):
            raise WorkflowError(f"nbgrader could not generate {name}: {_nbgrader_error(result)}")
        written += sorted((target / name).glob("*.ipynb"))
    return written


# ---------------------------------------------------------------------------
# the students' copy of the course
# ---------------------------------------------------------------------------
#: What students get: the course package (its checks grade their notebooks as they work), the
#: lessons, the released exercises, and what installs and starts it.  Never ``solutions/``, the
#: gradebook, the grading secret, submissions, tests or CI.
STUDENT_FOLDERS = ("course", "lessons", "exercises")
STUDENT_FILES = ("pyproject.toml", "README.md", "Makefile")
_NOT_FOR_STUDENTS = ("__pycache__", ".ipynb_checkpoints", "*.pyc", "*.egg-info", ".*")

STUDENT_CONFIG = '''"""nbgrader configuration of a student's copy of the course (written by make student-bundle).

Assignments come and go through the course's exchange folder:

    nbgrader list                        what the instructor has released
    nbgrader fetch_assignment a1_minimax copies it to ./a1_minimax/ (or: Nbgrader > Assignment List)
    nbgrader submit a1_minimax           hands ./a1_minimax/ in (or: Submit in the Assignment List)

Set COURSE_EXCHANGE to use another exchange folder than the one below.
"""

import os

c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file

c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = os.environ.get("COURSE_EXCHANGE") or {exchange!r}

# Validate (the button, and `nbgrader validate`): the same time limit and line width as grading.
c.Execute.timeout = {timeout}
c.Validator.width = {width}
'''


def student_bundle(root: str | os.PathLike = ".", output: str | os.PathLike | None = None, *,
                   exchange: str | os.PathLike | None = None) -> Path:
    """Write the students' copy of the course: a zip with one folder, ``<course id>/``.

    It holds ``course/`` (the package: the tests in the exercises call its
    checks), ``lessons/``, ``exercises/`` (the release), ``pyproject.toml``,
    ``README.md``, the ``Makefile`` (``make lab``) and a student's
    ``nbgrader_config.py`` (course id, exchange, Validate's settings).  It
    never holds ``solutions/``, ``gradebook.db``, the grading secret,
    submissions, tests or hidden files.

    Parameters
    ----------
    root : path
        The course directory.
    output : path, optional
        The zip to write (default ``dist/<course id>-student.zip`` in the course directory).
    exchange : path, optional
        The exchange folder the students' nbgrader uses (default: the course's
        ``Exchange.root``; a student can override it with ``COURSE_EXCHANGE``).

    Returns
    -------
    Path
        The zip file.
    """
    import fnmatch

    layout = course_layout(root)
    config = _config(layout.root)
    exchange = Path(exchange) if exchange else exchange_root(layout.root)
    if exchange is None:
        raise WorkflowError("no exchange folder: set c.Exchange.root in nbgrader_config.py or pass --exchange")
    path = Path(output) if output else layout.root / "dist" / f"{layout.course_id}-student.zip"
    if not path.is_absolute():
        path = Path.cwd() / path
    missing = [n for n in (*STUDENT_FOLDERS, *STUDENT_FILES) if not (layout.root / n).exists()]
    if missing:
        raise WorkflowError(f"{layout.root} has no {', '.join(missing)}: is it the course directory?")
    width = config.Validator.get("width", 110) if "Validator" in config else 110
    text = STUDENT_CONFIG.format(course_id=layout.course_id, exchange=str(Path(exchange).resolve()),
                                 timeout=layout.cell_timeout, width=width)
    top = layout.course_id

    def hidden(name: str) -> bool:
        return any(fnmatch.fnmatch(name, pattern) for pattern in _NOT_FOR_STUDENTS)

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for folder in STUDENT_FOLDERS:
            for dirpath, dirnames, filenames in os.walk(layout.root / folder):
                dirnames[:] = sorted(d for d in dirnames if not hidden(d))
                for name in sorted(filenames):
                    if hidden(name):
                        continue
                    file = Path(dirpath) / name
                    archive.write(file, f"{top}/{file.relative_to(layout.root).as_posix()}")
        for name in STUDENT_FILES:
            archive.write(layout.root / name, f"{top}/{name}")
        archive.writestr(f"{top}/nbgrader_config.py", text)
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------
# zip collection
# ---------------------------------------------------------------------------
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
# autograding
# ---------------------------------------------------------------------------
@dataclass
class GradeRecord:
    """The outcome of autograding one submission (one entry of the grading report)."""

    student: str
    assignment: str
    status: str
    """``"graded"``, ``"graded (with problems)"`` or ``"failed"``."""
    score: float = 0.0
    """Points so far (autograded, plus manual grades already given)."""
    max_score: float = 0.0
    """Points available."""
    needs_manual_grade: bool = False
    """Written answers still to be graded by hand."""
    hand_points_pending: float = 0.0
    """Points of the written answers still to be graded by hand (in ``max_score``, not in ``score``)."""
    reason: str = ""
    """Why the submission failed or lost points outright (unreadable notebook, ...)."""
    changes: list[str] = field(default_factory=list)
    """What the repair step changed."""
    review: list[str] = field(default_factory=list)
    """Audit findings for the instructor."""
    unreadable: dict[str, str] = field(default_factory=dict)
    """Notebooks that could not be read (graded as blank), with the reason."""
    seconds: float = 0.0
    """Time spent grading it."""
    graded_at: str = ""
    """When (ISO 8601)."""
    submission_sha: str = ""
    """Fingerprint of the submitted files: hand grades survive re-grading an unchanged submission."""


def _read_report(layout: CourseLayout) -> dict[str, dict]:
    try:
        return json.loads(layout.report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_report(layout: CourseLayout, report: dict[str, dict]) -> None:
    layout.report.parent.mkdir(parents=True, exist_ok=True)
    tmp = layout.report.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, layout.report)


def _gradebook(layout: CourseLayout):
    from nbgrader.api import Gradebook

    return Gradebook(layout.db_url, layout.course_id)


def _ensure_gradebook(layout: CourseLayout, assignments: Iterable[str]) -> None:
    """Record the assignments in the gradebook if missing (without touching ``exercises/``)."""
    from nbgrader.api import MissingEntry

    missing = []
    with _gradebook(layout) as gb:
        for name in assignments:
            try:
                for nb in layout.notebooks(name):
                    gb.find_notebook(nb, name)
            except MissingEntry:
                missing.append(name)
    if missing:
        with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
            for name in missing:
                release(layout.root, assignment=name, release_directory=tmp)


def _descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (Linux /proc; empty elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _kill_tree(proc: subprocess.Popen) -> None:
    pids = _descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in [proc.pid, *pids]:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        try:
            proc.wait(timeout=3)
            if sig == signal.SIGTERM:
                continue
        except subprocess.TimeoutExpired:
            pass


def _count_code_cells(directory: Path) -> int:
    total = 0
    for path in directory.glob("*.ipynb"):
        try:
            total += sum(1 for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                         if c.get("cell_type") == "code")
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return total


def _stage(layout: CourseLayout, student: str, assignment: str, staging: Path) -> GradeRecord:
    """Copy one submission to the staging folder and repair it there; a record for its results."""
    record = GradeRecord(student, assignment, "failed",
                         graded_at=_dt.datetime.now().isoformat(timespec="seconds"))
    stage = staging / student / assignment
    shutil.copytree(layout.submitted / student / assignment, stage,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    record.submission_sha = _fingerprint(stage)
    repair = repair_submission(stage, layout.release / assignment)
    record.changes = list(repair.changes)
    record.review = list(repair.review)
    record.unreadable = dict(repair.unreadable)
    record.reason = "; ".join(line for line in describe(repair)
                              if "could not be read" in line or "not submitted" in line)
    return record


def _fingerprint(folder: Path) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@contextlib.contextmanager
def _locked_submission(layout: CourseLayout, job: tuple[str, str], lock: Path):
    """The gradebook (under the workers' lock) and ``job``'s submission, or None if it has none."""
    from nbgrader.api import MissingEntry

    from .worker import FileLock

    with FileLock(str(lock)), _gradebook(layout) as gb:
        try:
            sub = gb.find_submission(job[1], job[0])
        except MissingEntry:
            sub = None
        yield gb, sub


def _hand_grades(layout: CourseLayout, job: tuple[str, str], lock: Path) -> dict:
    """``{(notebook, cell): manual score}`` of the answers already graded by hand."""
    with _locked_submission(layout, job, lock) as (_, sub):
        if sub is None:
            return {}
        return {(nb.name, grade.name): grade.manual_score for nb in sub.notebooks
                for grade in nb.grades
                if grade.manual_score is not None and not grade.needs_manual_grade}


def _keep_hand_grades(layout: CourseLayout, job: tuple[str, str], kept: dict, lock: Path) -> None:
    """After re-grading an unchanged submission, its hand-graded answers stay graded."""
    if not kept:
        return
    with _locked_submission(layout, job, lock) as (gb, sub):
        if sub is None:
            return
        for nb in sub.notebooks:
            for grade in nb.grades:
                if kept.get((nb.name, grade.name)) == grade.manual_score and grade.needs_manual_grade:
                    grade.needs_manual_grade = False
        gb.db.commit()


class _Worker:
    """A ``course.grading.worker`` process and a thread reading its JSON lines."""

    def __init__(self, layout: CourseLayout, staging: Path, jobs: list[tuple[str, str]],
                 cell_timeout: int, *, lock: Path, sandbox: bool) -> None:
        import queue
        import threading

        command = [sys.executable, "-m", "course.grading.worker", "--root", str(layout.root),
                   "--submitted", str(staging), "--timeout", str(cell_timeout), "--handshake",
                   "--lock", str(lock)]
        if not sandbox:
            command.append("--unsafe-no-sandbox")
        for student, assignment in jobs:
            command += ["--job", f"{student}/{assignment}"]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                                     cwd=str(layout.root))
        self.lines: "queue.Queue[dict | None]" = queue.Queue()
        self.stderr: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if line.startswith("{"):
                try:
                    self.lines.put(json.loads(line))
                except ValueError:
                    pass
        self.lines.put(None)            # end of output: the worker exited

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)
            del self.stderr[:-40]

    def go(self) -> None:
        """Let the worker start its next job (it waits for this after each one)."""
        try:
            self.proc.stdin.write("go\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass                          # the worker is gone; next() will say so

    def next(self, timeout: float) -> dict | None:
        """The next JSON line; None if the worker exited; raises TimeoutError after ``timeout``."""
        import queue

        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError from None

    def stop(self) -> None:
        if self.proc.poll() is None:
            _kill_tree(self.proc)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


#: Seconds a new worker may take to start (import nbgrader, load the config).
WORKER_STARTUP = 180


def _run_queue(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
               pending: list[tuple[str, str]], cell_timeout: int, wall_limit: float | None,
               done: Any, *, lock: Path, sandbox: bool, watch: Any, stop: Any) -> None:
    """Grade ``pending`` jobs one after the other, restarting the worker after one that hangs."""
    from .integrity import IntegrityError

    previous = _read_report(layout)
    while pending and not stop.is_set():
        worker = _Worker(layout, staging, pending, cell_timeout, lock=lock, sandbox=sandbox)
        try:
            while pending and not stop.is_set():
                job = pending[0]
                record = records[job]
                limit = wall_limit
                if limit is None:
                    cells = _count_code_cells(staging / job[0] / job[1])
                    limit = 120 + SECONDS_PER_CELL_FACTOR * cell_timeout * max(1, cells)
                unchanged = previous.get(f"{job[0]}/{job[1]}", {}).get("submission_sha") == \
                    record.submission_sha
                kept = _hand_grades(layout, job, lock) if unchanged else {}
                worker.go()
                start = time.perf_counter()
                try:
                    message = worker.next(WORKER_STARTUP)
                    while message is not None and message.get("event") != "done":
                        message = worker.next(limit)
                except TimeoutError:
                    message = {"success": False, "error":
                               f"autograding took longer than {limit:.0f} seconds and was stopped"}
                    worker.stop()
                pending.pop(0)
                if message is None:
                    tail = "".join(worker.stderr).strip().splitlines()
                    message = {"success": False, "error": "the grading process ended unexpectedly"
                               + (f" ({tail[-1]})" if tail else "")}
                record.seconds = round(time.perf_counter() - start, 2)
                if message.get("success"):
                    record.status = "graded (with problems)" if record.reason else "graded"
                else:
                    why = f"nbgrader failed: {_nbgrader_error(message)}"
                    record.reason = "; ".join(r for r in (record.reason, why) if r)
                if message.get("success"):
                    _keep_hand_grades(layout, job, kept, lock)
                    record.review += _review_flags(layout, *job)
                _fill_scores(layout, record, lock)
                try:
                    watch.check(f"{job[0]}/{job[1]}")
                except IntegrityError as exc:
                    stop.set()
                    stop.error = exc
                done(record)
                if pending and worker.proc.poll() is not None:
                    break                 # start a new worker for the rest
        finally:
            worker.stop()


def _run_jobs(layout: CourseLayout, staging: Path, records: dict[tuple[str, str], GradeRecord],
              cell_timeout: int, wall_limit: float | None, done: Any, *, jobs: int = 1,
              sandbox: bool = True) -> None:
    """Grade every staged job on ``jobs`` parallel workers.

    After every job an :class:`~course.grading.integrity.IntegrityWatch` checks
    that the grader's own files are unchanged; if not, grading stops with
    :class:`~course.grading.integrity.IntegrityError` for the instructor to review.
    """
    import threading

    from .integrity import IntegrityWatch

    watch = IntegrityWatch(layout.root)
    lock = staging / ".gradebook.lock"
    queues: list[list[tuple[str, str]]] = [[] for _ in range(max(1, jobs))]
    for i, job in enumerate(records):
        queues[i % len(queues)].append(job)
    stop = threading.Event()
    stop.error = None
    report_lock = threading.Lock()

    def locked_done(record: GradeRecord) -> None:
        with report_lock:
            done(record)

    threads = [threading.Thread(target=_run_queue, daemon=True,
                                args=(layout, staging, records, queue, cell_timeout, wall_limit,
                                      locked_done),
                                kwargs=dict(lock=lock, sandbox=sandbox, watch=watch, stop=stop))
               for queue in queues if queue]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if stop.error is not None:
        raise stop.error


def _fill_scores(layout: CourseLayout, record: GradeRecord, lock: Path | None = None) -> None:
    from nbgrader.api import MissingEntry

    from .worker import FileLock

    try:
        with (FileLock(str(lock)) if lock is not None else contextlib.nullcontext()), \
                _gradebook(layout) as gb:
            assignment = gb.find_assignment(record.assignment)
            record.max_score = float(assignment.max_score)
            if record.status == "failed":
                return
            sub = gb.find_submission(record.assignment, record.student)
            record.score = float(sub.score)
            record.needs_manual_grade = bool(sub.needs_manual_grade)
            record.hand_points_pending = _hand_points_pending(sub)
    except MissingEntry:
        pass


def _hand_points_pending(sub) -> float:
    """Points of a gradebook submission's answers that wait for a hand grade."""
    return float(sum(g.max_score or 0 for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade))


def _points(value: float) -> str:
    return f"{value:g} point{'' if value == 1 else 's'}"


def describe_record(record: GradeRecord) -> str:
    """One console line: score, what is autograded, what waits for a hand grade.

    >>> describe_record(GradeRecord("ada", "a1_minimax", "graded", 9.0, 11.0, True, 2.0))
    'ada                  a1_minimax          9.0 / 11.0  autograded, 2 points to grade by hand'
    >>> describe_record(GradeRecord("ada", "a1_minimax", "graded", 10.0, 11.0))
    'ada                  a1_minimax         10.0 / 11.0  graded'
    """
    what = record.status
    if record.hand_points_pending and record.status != "failed":
        what = f"autograded, {_points(record.hand_points_pending)} to grade by hand"
        if record.status != "graded":
            what += f" ({record.status})"
    return (f"{record.student:<20} {record.assignment:<16} {record.score:6.1f} / "
            f"{record.max_score:<5.1f} {what}")


def autograde(root: str | os.PathLike = ".", submissions: str | os.PathLike | None = None, *,
              assignment: str | None = None, student: str | None = None,
              cell_timeout: int | None = None, wall_limit: float | None = None,
              log: Any = None, jobs: int | None = None,
              unsafe_no_sandbox: bool = False) -> list[GradeRecord]:
    """Autograde every submission: repaired, its code run in a sandbox, its tests in the grader.

    Parameters
    ----------
    root : path
        The course directory.
    submissions : path, optional
        Folder of ``<student>/<assignment>/`` submissions (default nbgrader's ``submitted/``).
    assignment, student : str, optional
        Grade only these.
    cell_timeout : int, optional
        Seconds a cell may run (default: ``Execute.timeout`` of the config).
    wall_limit : float, optional
        Seconds for a whole submission (default: generous, from the number of cells).
    log : callable, optional
        Called with one line of progress per submission (e.g. ``print``).
    jobs : int, optional
        Submissions graded in parallel (default: the number of cores).
    unsafe_no_sandbox : bool
        Grade without the bubblewrap sandbox, where it cannot start.  The
        students' code then runs with your rights: only for code you trust.

    Returns
    -------
    list of GradeRecord
        Also merged into the grading report.

    Raises
    ------
    WorkflowError
        If the submissions folder does not exist or holds nothing to grade, or
        the sandbox cannot start and ``unsafe_no_sandbox`` is not set.
    IntegrityError
        If the grader's own files changed during grading (grading stops).
    """
    from ..sandbox import SandboxUnavailable, check_sandbox
    from .sandboxed import course_secret

    layout = course_layout(root, submissions)
    if unsafe_no_sandbox:
        if log is not None:
            log("WARNING: grading WITHOUT a sandbox (--unsafe-no-sandbox): the students' code runs "
                "with your rights and can read and change your files. Only for code you trust.")
    else:
        try:
            check_sandbox()
        except SandboxUnavailable as exc:
            raise WorkflowError(
                f"{exc}. Students' code is only graded in a sandbox: install bubblewrap "
                "(apt-get install bubblewrap), grade inside a Linux container or VM (macOS, "
                "Windows), or pass --unsafe-no-sandbox for code you trust") from None
    course_secret(layout.root, create=True)
    if not layout.submitted.is_dir():
        raise WorkflowError(f"no submissions folder {layout.submitted}")
    names = _pick(layout, assignment)
    todo = []
    for student_dir in sorted(p for p in layout.submitted.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if student is not None and student_dir.name != student:
            continue
        for name in names:
            if (student_dir / name).is_dir():
                todo.append((student_dir.name, name))
    if not todo:
        raise WorkflowError(f"nothing to grade in {layout.submitted} (expected <student>/<assignment>/ folders)")
    _ensure_gradebook(layout, sorted({a for _, a in todo}))
    timeout = cell_timeout or layout.cell_timeout
    report = _read_report(layout)
    records: list[GradeRecord] = []

    def done(record: GradeRecord) -> None:
        records.append(record)
        report[f"{record.student}/{record.assignment}"] = asdict(record)
        _write_report(layout, report)
        if log is not None:
            note = f"  ({record.reason})" if record.reason else ""
            log(f"{describe_record(record)}{note}  [{record.seconds:.1f} s]")
            for item in record.review:
                log(f"    review: {item}")

    assignments = sorted({a for _, a in todo})
    copies = _start_copy_audit(layout, assignments)
    with tempfile.TemporaryDirectory(prefix="course-grading-") as tmp:
        staged: dict[tuple[str, str], GradeRecord] = {}
        for who, what in todo:
            try:
                staged[(who, what)] = _stage(layout, who, what, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                record = GradeRecord(who, what, "failed", reason=f"could not be prepared: {exc}",
                                     graded_at=_dt.datetime.now().isoformat(timespec="seconds"))
                _fill_scores(layout, record)
                done(record)
        if staged:
            _run_jobs(layout, Path(tmp), staged, timeout, wall_limit, done,
                      jobs=jobs or os.cpu_count() or 1, sandbox=not unsafe_no_sandbox)
    _audit_copies(layout, assignments, log, copies())
    return records


COPIES_PATH = Path(".course-grading") / "copies.json"


def _find_copies(layout: CourseLayout, assignments: list[str]) -> dict[str, list]:
    from .similarity import audit_copies

    return {a: audit_copies(layout.root, layout.submitted, a, notes=[]) for a in assignments}


def _start_copy_audit(layout: CourseLayout, assignments: list[str]) -> Callable[[], dict]:
    """Compare the submissions in a thread while they are graded (they do not change meanwhile,
    and the grading workers leave a core idle while they wait on their sandboxes); the function
    returned waits for the findings."""
    import threading

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["found"] = _find_copies(layout, assignments)
        except Exception as exc:  # noqa: BLE001 - the audit never stops grading
            box["found"] = {}
            box["error"] = exc

    thread = threading.Thread(target=run, name="copy-audit", daemon=True)
    thread.start()

    def wait() -> dict:
        thread.join()
        return box["found"]

    return wait


def _audit_copies(layout: CourseLayout, assignments: list[str], log: Any,
                  computed: dict[str, list] | None = None) -> list:
    """List near-copies (of another student's code or of the reference searches) for review.

    Written to ``autograded/.course-grading/copies.json`` and printed; scores are not changed.
    ``computed`` holds the findings if already made (:func:`_start_copy_audit`).
    """
    findings: dict[str, list] = {}
    found_by = computed if computed is not None else _find_copies(layout, assignments)
    for assignment in assignments:
        found = found_by.get(assignment, [])
        findings[assignment] = [asdict(f) for f in found]
        if log is not None:
            for finding in found:
                log(f"review (possible copy) {assignment}: {finding.line}")
    path = layout.autograded / COPIES_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(findings, indent=1), encoding="utf-8")
    return findings


# ---------------------------------------------------------------------------
# feedback, grades, summary
# ---------------------------------------------------------------------------
def feedback(root: str | os.PathLike = ".", *, assignment: str | None = None,
             log: Any = None) -> list[Path]:
    """Write feedback HTML for every autograded submission (``feedback/<student>/<assignment>/``).

    A notebook that could not be graded gets a short page saying why.

    Returns
    -------
    list of Path
        The feedback files written.
    """
    layout = course_layout(root)
    api = _api(layout)
    report = _read_report(layout)
    written: list[Path] = []
    for name in _pick(layout, assignment):
        students = sorted(p.parent.name for p in layout.autograded.glob(f"*/{name}") if p.is_dir())
        for who in students:
            try:
                result = api.generate_feedback(name, who, force=True)
                ok = result.get("success")
            except Exception as exc:  # noqa: BLE001 - one submission must never stop the class
                ok, result = False, {"error": str(exc)}
            out = layout.feedback / who / name
            if ok:
                written += sorted(out.glob("*.html"))
            elif log is not None:
                log(f"{who} {name}: no feedback ({_nbgrader_error(result)})")
        for key, entry in report.items():
            if entry.get("assignment") != name or not entry.get("reason"):
                continue
            out = layout.feedback / entry["student"] / name
            troubled = set(entry.get("unreadable") or {})
            for nb in layout.notebooks(name):
                target = out / f"{nb}.html"
                if target.exists() and f"{nb}.ipynb" not in troubled:
                    continue
                out.mkdir(parents=True, exist_ok=True)
                target.write_text(_problem_page(entry, nb), encoding="utf-8")
                if target not in written:
                    written.append(target)
    if log is not None:
        log(f"{len(written)} feedback files in {layout.feedback}")
        pending = pending_hand_grading(layout.root, assignment=assignment)
        if pending:
            who = ", ".join(f"{s} ({a}: {_points(p)})" for s, a, p in pending)
            log(f"WARNING: hand grading is pending for {len(pending)} submission"
                f"{'s' if len(pending) != 1 else ''}: {who}. Their feedback shows the autograded "
                "points only: grade the written answers in the formgrader (Nbgrader > Formgrader > "
                "Manage Assignments), then run make feedback again.")
    return written


def pending_hand_grading(root: str | os.PathLike = ".", *,
                         assignment: str | None = None) -> list[tuple[str, str, float]]:
    """``(student, assignment, points)`` of every submission with answers still to grade by hand."""
    from nbgrader.api import MissingEntry

    layout = course_layout(root)
    found = []
    with _gradebook(layout) as gb:
        for name in _pick(layout, assignment):
            try:
                spec = gb.find_assignment(name)
            except MissingEntry:
                continue
            for sub in spec.submissions:
                points = _hand_points_pending(sub)
                if points:
                    found.append((sub.student.id, name, points))
    return sorted(found)


def _problem_page(entry: dict, notebook: str) -> str:
    from html import escape

    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(notebook)}</title></head>"
            f"<body><h1>{escape(entry['assignment'])}: {escape(notebook)}</h1>"
            f"<p>Your submission could not be graded automatically: {escape(entry['reason'])}.</p>"
            f"<p>Score recorded: {entry.get('score', 0)} of {entry.get('max_score', 0)}. "
            "Please contact your instructor.</p></body></html>\n")


def _grade_rows(layout: CourseLayout) -> list[dict[str, Any]]:
    from nbgrader.api import MissingEntry

    report = _read_report(layout)
    rows = []
    with _gradebook(layout) as gb:
        students = sorted({s.id for s in gb.students} | {e["student"] for e in report.values()})
        assignments = [a for a in layout.assignments()]
        for who in students:
            for name in assignments:
                entry = report.get(f"{who}/{name}", {})
                row = {"student": who, "assignment": name, "score": 0.0, "max_score": 0.0,
                       "autograded_score": 0.0, "needs_manual_grade": False,
                       "status": entry.get("status", "not submitted"), "reason": entry.get("reason", "")}
                try:
                    row["max_score"] = float(gb.find_assignment(name).max_score)
                    sub = gb.find_submission(name, who)
                except MissingEntry:
                    rows.append(row)
                    continue
                if entry.get("status", "graded").startswith("graded") or not entry:
                    row["score"] = float(sub.score)
                    row["autograded_score"] = float(sum(
                        (g.auto_score or 0) for nb in sub.notebooks for g in nb.grades))
                    row["needs_manual_grade"] = bool(sub.needs_manual_grade)
                    if not entry:
                        row["status"] = "graded"
                rows.append(row)
    return rows


def grades(root: str | os.PathLike = ".", output: str | os.PathLike = "grades.csv") -> Path:
    """Export the grades: one CSV row per student and assignment.

    Columns: ``student, assignment, score, max_score, autograded_score,
    needs_manual_grade, status, reason``.  A student without a submission for
    an assignment gets a row with score 0 and status ``not submitted``; a
    submission that could not be graded keeps its reason.

    Returns
    -------
    Path
        The CSV file.
    """
    layout = course_layout(root)
    rows = _grade_rows(layout)
    path = Path(output)
    if not path.is_absolute():
        path = Path.cwd() / path
    path.parent.mkdir(parents=True, exist_ok=True)
    fields = ["student", "assignment", "score", "max_score", "autograded_score", "needs_manual_grade",
              "status", "reason"]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{row[k]:g}" if isinstance(row[k], float) else row[k]) for k in fields})
    return path


@dataclass
class AssignmentSummary:
    """Scores and most-failed tests of one assignment."""

    assignment: str
    max_score: float
    scores: list[float]
    failed_tests: list[tuple[str, int, int, list[tuple[str, int]]]]
    """``(test id, submissions failing it, submissions graded, [(error name, count), ...])``, most failed first."""
    histogram: Path | None = None
    not_attempted: list[str] = field(default_factory=list)
    """Students who handed in the untouched release (every answer cell as released): they score 0."""
    crashed: list[str] = field(default_factory=list)
    """Students whose notebook could not be graded (unreadable, or the grading failed): they score 0."""
    autograded_points: float = 0.0
    """Points of the test cells (autograded)."""
    hand_points: float = 0.0
    """Points of the written answers (graded by hand in the formgrader)."""
    hand_pending: list[str] = field(default_factory=list)
    """Students whose written answers are still to be graded by hand."""


def _answer_sources(notebooks: Iterable[Path]) -> dict[str, str] | None:
    """grade_id -> source of every answer cell (nbgrader ``solution`` cells); None if unreadable."""
    import nbformat

    found: dict[str, str] = {}
    for path in notebooks:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - an unreadable notebook is not an untouched release
            return None
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if meta.get("solution") and meta.get("grade_id"):
                found[meta["grade_id"]] = cell.source.strip()
    return found


def _untouched(layout: CourseLayout, student: str, assignment: str) -> bool:
    """Whether a submission's answer cells all equal the release's (the student attempted nothing)."""
    release = _answer_sources(sorted((layout.release / assignment).glob("*.ipynb")))
    if not release:
        return False
    for folder in (layout.autograded / student / assignment, layout.submitted / student / assignment):
        notebooks = sorted(folder.glob("*.ipynb"))
        if notebooks:
            answers = _answer_sources(notebooks)
            return answers is not None and all(answers.get(g, text) == text for g, text in release.items())
    return False


def _review_flags(layout: CourseLayout, student: str, assignment: str) -> list[str]:
    """The review flags the tests printed in the autograded notebooks (they change no score)."""
    import nbformat

    from .evaluation import REVIEW_MARK

    flags = []
    for path in sorted((layout.autograded / student / assignment).glob("*.ipynb")):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - a broken graded copy has no flags to report
            continue
        for cell in nb.cells:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", "?")
            for output in cell.get("outputs", []) if cell.cell_type == "code" else ():
                for line in str(output.get("text", "")).splitlines():
                    if line.startswith(REVIEW_MARK):
                        flags.append(f"{path.name} [{gid}]: {line[len(REVIEW_MARK):].strip()}")
    return flags


def _error_names(layout: CourseLayout, student: str, assignment: str) -> dict[str, str]:
    """grade_id -> the error name of that test cell in the autograded notebooks."""
    import nbformat

    out = {}
    for path in (layout.autograded / student / assignment).glob("*.ipynb"):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # noqa: BLE001 - a broken graded copy only loses the detail
            continue
        for cell in nb.cells:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if not gid or cell.cell_type != "code":
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    out[gid] = output.get("ename", "error")
                    break
    return out


def summary(root: str | os.PathLike = ".", output_dir: str | os.PathLike = "grading-summary", *,
            top: int = 5, log: Any = None) -> list[AssignmentSummary]:
    """Per assignment: a histogram of the scores (PNG) and the tests students fail most.

    Submissions are told apart: *not attempted* (the untouched release: every
    answer cell as released), *crashed* (the notebook could not be graded:
    unreadable, or the grading failed) and the others; each counts with its
    score (0 for the first two) and is drawn in its own colour, one bar per
    integer score.  The text says which points are autograded and which are
    graded by hand, and how many submissions still wait for a hand grade
    (their scores do not include those points yet).

    Parameters
    ----------
    root : path
        The course directory.
    output_dir : path
        Where to write ``<assignment>-scores.png`` and ``summary.txt``
        (relative paths are inside ``root``).
    top : int
        How many of the most-failed tests to list.
    log : callable, optional
        Receives the text summary, line by line.

    Returns
    -------
    list of AssignmentSummary
    """
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    layout = course_layout(root)
    report = _read_report(layout)
    out_dir = Path(output_dir)
    if not out_dir.is_absolute():
        out_dir = layout.root / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    results: list[AssignmentSummary] = []
    from nbgrader.api import MissingEntry

    with _gradebook(layout) as gb:
        for name in layout.assignments():
            try:
                spec = gb.find_assignment(name)
            except MissingEntry:
                continue
            scores, failures, graded = [], Counter(), Counter()
            kinds: dict[str, Counter] = {}
            test_ids = {c.name for nb in spec.notebooks for c in nb.grade_cells
                        if c.cell_type == "code"}
            auto_points = float(sum(c.max_score for nb in spec.notebooks for c in nb.grade_cells
                                    if c.cell_type == "code"))
            groups: dict[str, list[float]] = {"attempted": [], "not attempted": [], "crashed": []}
            crashed, untouched, pending = [], [], []
            seen = set()
            for sub in spec.submissions:
                who = sub.student.id
                seen.add(who)
                entry = report.get(f"{who}/{name}", {})
                failed = entry.get("status") == "failed"
                score = 0.0 if failed else float(sub.score)
                if failed or entry.get("unreadable"):
                    crashed.append(who)
                    group = "crashed"
                elif _untouched(layout, who, name):
                    untouched.append(who)
                    group = "not attempted"
                else:
                    group = "attempted"
                if not failed and _hand_points_pending(sub):
                    pending.append(who)
                scores.append(score)
                groups[group].append(score)
                errors = _error_names(layout, who, name)
                for nb in sub.notebooks:
                    for grade in nb.grades:
                        if grade.name not in test_ids:
                            continue
                        graded[grade.name] += 1
                        if failed or (grade.auto_score or 0) < grade.max_score:
                            failures[grade.name] += 1
                            kind = ("not graded" if failed else "not attempted" if group == "not attempted"
                                    else errors.get(grade.name, "no points"))
                            kinds.setdefault(grade.name, Counter())[kind] += 1
            # failed submissions the gradebook does not hold (e.g. restored after tampering) score 0
            for key, entry in report.items():
                if key.endswith(f"/{name}") and entry.get("status") == "failed" \
                        and entry.get("student") not in seen:
                    scores.append(0.0)
                    groups["crashed"].append(0.0)
                    crashed.append(entry.get("student", key.split("/")[0]))
            if not scores:
                continue
            ranked = sorted(failures, key=lambda t: (-failures[t], t))[:top]
            item = AssignmentSummary(name, float(spec.max_score), scores,
                                     [(t, failures[t], graded[t], kinds[t].most_common(3)) for t in ranked],
                                     not_attempted=sorted(untouched), crashed=sorted(crashed),
                                     autograded_points=auto_points,
                                     hand_points=float(spec.max_score) - auto_points,
                                     hand_pending=sorted(pending))
            fig, ax = plt.subplots(figsize=(6, 3.2))
            top_score = max(1, math.ceil(max(spec.max_score or 0, max(scores))))
            edges = [i - 0.5 for i in range(top_score + 2)]      # one bar centred on each integer
            colours = {"attempted": "#4C72B0", "not attempted": "#BBBBBB", "crashed": "#C44E52"}
            shown = [g for g in groups if groups[g]]
            ax.hist([groups[g] for g in shown], bins=edges, stacked=True, color=[colours[g] for g in shown],
                    label=[f"{g} ({len(groups[g])})" for g in shown], edgecolor="white", rwidth=0.9)
            ax.set_xlim(-0.75, top_score + 0.75)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel(f"score (out of {spec.max_score:g}: {auto_points:g} autograded"
                          f" + {item.hand_points:g} by hand)")
            ax.set_ylabel("submissions")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            if len(shown) > 1:
                ax.legend(fontsize="small")
            ax.set_title(f"{name}: {len(scores)} submissions, mean {sum(scores) / len(scores):.1f}")
            fig.tight_layout()
            item.histogram = out_dir / f"{name}-scores.png"
            fig.savefig(item.histogram, dpi=100)
            plt.close(fig)
            results.append(item)
    lines = []
    for item in results:
        s = sorted(item.scores)
        median = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        lines.append(f"{item.assignment}: {len(s)} submissions, mean {sum(s) / len(s):.2f}, median "
                     f"{median:g}, min {s[0]:g}, max {s[-1]:g} (out of {item.max_score:g}: "
                     f"{item.autograded_points:g} autograded + {item.hand_points:g} graded by hand); "
                     f"histogram {item.histogram}")
        lines.append(f"    not attempted (the untouched release, 0 points): {len(item.not_attempted)}"
                     + (f" ({', '.join(item.not_attempted)})" if item.not_attempted else ""))
        lines.append(f"    crashed (could not be graded, 0 points): {len(item.crashed)}"
                     + (f" ({', '.join(item.crashed)})" if item.crashed else ""))
        if item.hand_pending:
            lines.append(f"    still to grade by hand: {len(item.hand_pending)} submissions "
                         f"({', '.join(item.hand_pending)}); their scores are autograded points only")
        for test, failed, total, kinds in item.failed_tests:
            detail = ", ".join(f"{k} x{n}" for k, n in kinds)
            lines.append(f"    {test}: failed by {failed} of {total} ({detail})")
        if not item.failed_tests:
            lines.append("    no test failed")
    (out_dir / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if log is not None:
        for line in lines or ["no graded submissions yet: run the autograder first"]:
            log(line)
    return results
