"""Releasing: the students' version of the assignments, and the students' copy of the course.

* :func:`release` -- regenerate ``exercises/`` from ``solutions/`` (``nbgrader generate_assignment``);
* :func:`student_bundle` -- the students' copy of the course (a zip without ``solutions/``);
* :func:`ensure_in_gradebook` -- record assignments in the gradebook before grading.

Reads only the instructor's own files.
"""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from .course_dir import (CourseLayout, WorkflowError, course_config, course_layout, exchange_root,
                         gradebook, nbgrader_api, nbgrader_error, pick_assignments)

__all__ = ["release", "student_bundle", "ensure_in_gradebook", "STUDENT_FOLDERS", "STUDENT_FILES"]


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
    api = nbgrader_api(layout, **overrides)
    written = []
    for name in pick_assignments(layout, assignment):
        result = api.generate_assignment(name, force=True, create=True)
        if not result.get("success"):
            raise WorkflowError(f"nbgrader could not generate {name}: {nbgrader_error(result)}")
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
    config = course_config(layout.root)
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


def ensure_in_gradebook(layout: CourseLayout, assignments: Iterable[str]) -> None:
    """Record the assignments in the gradebook if missing (without touching ``exercises/``)."""
    from nbgrader.api import MissingEntry

    missing = []
    with gradebook(layout) as gb:
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
