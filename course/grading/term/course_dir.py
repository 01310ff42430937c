"""A course directory: where its folders are, its nbgrader configuration, its gradebook.

Every instructor command starts here.  The course directory (``root``) holds
``nbgrader_config.py``, ``solutions/`` (nbgrader's source), ``exercises/`` (its
release), and the working folders nbgrader creates: ``submitted/``,
``autograded/``, ``feedback/`` and ``gradebook.db``.  Everything in this module
reads only the instructor's own files.

* :func:`course_layout` -- the folders, from ``nbgrader_config.py``;
* :func:`prepare` -- before JupyterLab starts: the exchange folder and a complete ``gradebook.db``;
* :func:`gradebook`, :func:`nbgrader_api` -- nbgrader's gradebook and API on this course.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import CourseError

__all__ = ["WorkflowError", "CourseLayout", "FileLock", "course_layout", "course_config", "load_course_config",
           "exchange_root", "ensure_exchange", "prepare", "gradebook", "nbgrader_api",
           "nbgrader_error", "pick_assignments", "REPORT_PATH"]

#: Where the grading report lives, relative to the course directory.
REPORT_PATH = Path("autograded") / ".course-grading" / "report.json"


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


class FileLock:
    """An exclusive ``flock`` on a file, shared by the workers grading in parallel.

    The parent also takes it to read the gradebook.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)

    def release(self) -> None:
        import fcntl

        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def ensure_tools_on_path() -> None:
    """Put this Python's ``bin`` folder on PATH: nbgrader runs the ``alembic`` command from there.

    ``make`` calls ``.venv/bin/python`` without activating the virtual
    environment, so ``alembic`` (installed beside nbgrader) is not on PATH and
    nbgrader fails to create a new gradebook.
    """
    bindir = os.path.dirname(sys.executable)
    parts = os.environ.get("PATH", "").split(os.pathsep)
    if bindir not in parts:
        os.environ["PATH"] = os.pathsep.join([bindir, *parts])


def load_course_config(root: str, config_file: str | None = None):
    """The traitlets Config of the course: ``<root>/nbgrader_config.py`` (or ``config_file``).

    ``CourseDirectory.root`` is set to ``root`` whatever the file says.
    """
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    path = config_file or os.path.join(root, "nbgrader_config.py")
    config = Config()
    if os.path.exists(path):
        loader = PyFileConfigLoader(os.path.basename(path), path=os.path.dirname(os.path.abspath(path)))
        config.merge(loader.load_config())
        _check_moved_classes(config, path)
    config.CourseDirectory.root = os.path.abspath(root)
    return config


#: Where the grading classes that a course's ``nbgrader_config.py`` names lived before
#: ``course/grading/`` was laid out in checks/, job/ and term/ (a file written for the old layout).
MOVED_MODULES = {
    "course.grading.autograde.": "course.grading.job.",
    "course.grading.results.": "course.grading.term.results.",
    "course.grading.intake.": "course.grading.term.intake.",
}


def _check_moved_classes(config, path: str) -> None:
    """Refuse, with the new names, a configuration naming a grading class by its old module
    (nbgrader would stop later with an ``ImportError`` that does not say what to change)."""
    found = []

    def walk(value):
        if isinstance(value, str):
            for old, new in MOVED_MODULES.items():
                if value.startswith(old):
                    found.append((value, new + value[len(old):]))
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk(config)
    if found:
        renames = "; ".join(f"{old} -> {new}" for old, new in sorted(set(found)))
        raise WorkflowError(f"{path} names grading classes by their old modules ({renames}): "
                            "rename them, then make approve-config")


def course_config(root: Path):
    """The course's nbgrader configuration (:func:`load_course_config` of ``root``)."""
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
    ensure_tools_on_path()
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=course_config(root))

    def folder(name: str) -> Path:
        value = Path(getattr(coursedir, name))
        return value if value.is_absolute() else root / value

    config = course_config(root)
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


#: nbgrader's exchange is shared by the instructor and every student: everyone may create entries,
#: and the sticky bit keeps anyone but their owner from renaming or removing them (issue 19).
EXCHANGE_MODE = 0o1777


def exchange_root(root: str | os.PathLike = ".") -> Path | None:
    """The exchange folder the course's ``nbgrader_config.py`` names (``Exchange.root``), if any."""
    config = course_config(Path(root).resolve())
    value = config.Exchange.get("root") if "Exchange" in config else None
    return Path(value) if value else None


def ensure_exchange(path: Path | None, log: Any = None) -> bool:
    """Create the exchange folder with nbgrader's permissions; False (and a warning) if impossible."""
    if path is None:
        return False
    try:
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, EXCHANGE_MODE)
            if log is not None:
                log(f"created the nbgrader exchange {path} (writable by every user, as nbgrader needs; "
                    "sticky: nobody removes another's files)")
        return True
    except OSError as exc:
        if log is not None:
            log(f"WARNING: the nbgrader exchange {path} does not exist and cannot be created ({exc}); "
                "ask your instructor, or set COURSE_EXCHANGE to the course's exchange folder")
        return False


def gradebook(layout: CourseLayout):
    from nbgrader.api import Gradebook

    return Gradebook(layout.db_url, layout.course_id)


def complete_gradebook(layout: CourseLayout, log: Any = None) -> None:
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
    with gradebook(layout):
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
    ensure_exchange(exchange_root(layout.root), log)
    if layout.source.is_dir():
        complete_gradebook(layout, log)


def nbgrader_api(layout: CourseLayout, **overrides: Any):
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    config = course_config(layout.root)
    exchange = config.Exchange.get("root") if "Exchange" in config else None
    if exchange:
        ensure_exchange(Path(exchange))       # NbGraderAPI complains if it cannot write there
    for key, value in overrides.items():
        section, name = key.split(".")
        config[section][name] = value
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def nbgrader_error(result: dict) -> str:
    """The most telling error line of an nbgrader result (not its generic "see above")."""
    text = "\n".join(str(result.get(k) or "") for k in ("log", "error"))
    found = re.findall(r"(\w+(?:Error|Exception|Exit)): (.+)", text)
    useful = [f"{name}: {message.strip()}" for name, message in found
              if "see the the above traceback" not in message and "see the above" not in message]
    if useful:
        return useful[-1]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "unknown error"


def pick_assignments(layout: CourseLayout, assignment: str | None) -> list[str]:
    known = layout.assignments()
    if assignment is None:
        return known
    if assignment not in known:
        raise WorkflowError(f"unknown assignment {assignment!r}; the assignments are {', '.join(known)}")
    return [assignment]


# ---------------------------------------------------------------------------
