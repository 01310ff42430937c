"""Releasing: the students' version of the assignments, and the students' copy of the course.

* :func:`release` -- regenerate ``exercises/`` from ``solutions/`` (``nbgrader generate_assignment``);
* :func:`student_bundle` -- the students' copy of the course (a zip without ``solutions/``);
* :func:`ensure_in_gradebook` -- record assignments in the gradebook before grading.

Reads only the instructor's own files.
"""

from __future__ import annotations

import os
import re
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .rules import sync_rule_text
from .course_dir import (CourseLayout, WorkflowError, course_config, course_layout, exchange_root,
                         gradebook, nbgrader_api, nbgrader_error, pick_assignments)

__all__ = ["release", "student_bundle", "ensure_in_gradebook", "sync_points_line", "STUDENT_FOLDERS",
           "STUDENT_FILES"]

#: The line of an assignment's introduction that states its points, e.g.
#: ``*Points: 9 checked automatically, 2 for a written answer read by your instructor.``
_POINTS_LINE = re.compile(r"(?P<lead>\*?Points: )(?P<auto>\d+(?:\.\d+)?) checked automatically, "
                          r"(?P<hand>\d+(?:\.\d+)?) for (?P<what>a written answer|written answers)")


_QUESTION_POINTS = re.compile(r"\((\d+(?:\.\d+)?) points?\)")


def _points(cells: list) -> tuple[float, float, int]:
    """(points of the autograded test cells, points graded by hand, number of hand-graded cells)."""
    auto = hand = 0.0
    hand_cells = 0
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade") or not meta.get("points"):
            continue
        if cell.get("cell_type") == "code" and not meta.get("solution"):
            auto += float(meta["points"])
        else:
            hand += float(meta["points"])
            hand_cells += 1
    return auto, hand, hand_cells


def sync_points_line(notebook_path: str | os.PathLike) -> str | None:
    """Make a source notebook's "Points:" line agree with its cells' points; say what changed.

    The points of a test cell live in its nbgrader metadata (the *Points* field of
    JupyterLab's *Create Assignment* panel); the assignment's introduction states the total in
    prose.  :func:`release` calls this on every source notebook, so the prose never
    disagrees with what is graded.

    Parameters
    ----------
    notebook_path : path
        A notebook of ``solutions/``.

    Returns
    -------
    str or None
        What was changed (the notebook is rewritten), or None if it agreed or has no such line.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> test = {"cell_type": "code", "source": "assert f(1) == 2", "metadata": {"nbgrader": {
    ...     "grade": True, "solution": False, "points": 3, "grade_id": "t", "locked": True}}}
    >>> intro = {"cell_type": "markdown", "metadata": {},
    ...          "source": "*Points: 2 checked automatically, 0 for written answers.*"}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.ipynb"
    >>> _ = path.write_text(json.dumps({"cells": [intro, test], "metadata": {}, "nbformat": 4,
    ...                                 "nbformat_minor": 5}))
    >>> print(sync_points_line(path))
    a.ipynb: "Points: 2 checked automatically, 0 for written answers" is now "Points: 3 checked automatically, 0 for written answers" (the cells' points)
    >>> sync_points_line(path) is None
    True
    """
    import json

    path = Path(notebook_path)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook.get("cells", [])
    auto, hand, hand_cells = _points(cells)
    changes = []

    def text(cell: dict) -> str:
        return "".join(cell["source"]) if isinstance(cell.get("source"), list) else cell.get("source", "")

    def put(cell: dict, value: str) -> None:
        cell["source"] = value.splitlines(keepends=True) if isinstance(cell.get("source"), list) else value

    # A written question states its points before its answer cell: "**Question (2 points).**"
    for before, cell in zip(cells, cells[1:]):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if before.get("cell_type") != "markdown" or not (meta.get("grade") and meta.get("solution")):
            continue
        points = float(meta.get("points") or 0)
        old = text(before)
        new = _QUESTION_POINTS.sub(lambda m: f"({points:g} point{'s' if points != 1 else ''})", old, count=1)
        if new != old:
            changes.append((_QUESTION_POINTS.search(old).group(0), f"({points:g} points)"))
            put(before, new)
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = text(cell)

        def fix(match: re.Match) -> str:
            what = "a written answer" if hand_cells == 1 else "written answers"
            new = f"{match['lead']}{auto:g} checked automatically, {hand:g} for {what}"
            if new != match.group(0):
                changes.append((match.group(0).lstrip("*"), new.lstrip("*")))
            return new

        fixed = _POINTS_LINE.sub(fix, source)
        if fixed != source:
            put(cell, fixed)
    if not changes:
        return None
    path.write_text(json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return f"{path.name}: " + "; ".join(f'"{old}" is now "{new}"' for old, new in changes) + " (the cells' points)"


def release(root: str | os.PathLike = ".", *, assignment: str | None = None,
            release_directory: str | os.PathLike | None = None, log: Any = None,
            check: bool | None = None) -> list[Path]:
    """Regenerate the student version of the assignments (``nbgrader generate_assignment --force``).

    Before an assignment is released, its source is checked
    (:func:`~course.grading.term.release_check.check_source`): the model solution must pass every
    visible and hidden test, graded as submissions are, and the released stub must fail
    every test; otherwise nothing of it is released and the error names the tests.

    Parameters
    ----------
    root : path
        The course directory.
    assignment : str, optional
        Only this assignment (default: all of ``solutions/``).
    release_directory : path, optional
        Write the release here instead of ``exercises/`` (used to check that
        the committed release is up to date).
    log : callable, optional
        Receives a line for every "Points:" line of ``solutions/`` brought in line with
        its cells' points (:func:`sync_points_line`), for every rules text brought in
        line with the assignment's ``STRICT_RULE`` (:func:`course.grading.term.rules.sync_rule_text`),
        and one per assignment checked.
    check : bool, optional
        Check the source first (default: when releasing to ``exercises/``, not to
        ``release_directory``).

    Returns
    -------
    list of Path
        The released notebooks.

    Raises
    ------
    SourceCheckFailed
        If the model solution fails a test or the stub passes one (the assignment is not
        released; those before it are).
    WorkflowError
        If nbgrader refuses (for example: cells were added to or removed from
        an assignment that already has submissions in the gradebook).
    """
    from .release_check import SourceCheckFailed, check_source

    layout = course_layout(root)
    if check is None:
        check = release_directory is None
    overrides = {}
    target = layout.release
    if release_directory is not None:
        target = Path(release_directory).resolve()
        overrides["CourseDirectory.release_directory"] = str(target)
    api = nbgrader_api(layout, **overrides)
    written = []
    for name in pick_assignments(layout, assignment):
        for source in sorted((layout.source / name).glob("*.ipynb")):
            for sync in (sync_points_line, sync_rule_text):
                changed = sync(source)
                if changed and log is not None:
                    log(f"updated {changed}")
        if check:
            found = check_source(layout, name)
            if not found.ok:
                raise SourceCheckFailed(f"{name} not released: " + "; ".join(found.problems)
                                        + f" (fix solutions/{name}, then release again)")
            if log is not None:
                how = "unchanged since it was checked" if found.cached else \
                    "in the sandbox" if found.sandboxed else "without the sandbox (bubblewrap cannot start here)"
                log(f"{name}: the model solution passes all {found.tests} tests, the stub none ({how})")
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

# A formgrader started in this copy is served only behind the course's guard, as the
# instructor's is (it shows notebooks in the browser; course/formgrader_guard).
try:
    from course.formgrader_guard import guard_this_formgrader
except ImportError:        # the course is not importable here: nothing of it runs, nor this
    pass
else:
    guard_this_formgrader()

c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = os.environ.get("COURSE_EXCHANGE") or {exchange!r}
# Submissions stay writable by their owner only (course/grading/term/intake/exchange/submit.py).
c.ExchangeFactory.submit = "course.grading.term.intake.exchange.ExchangeSubmit"

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
