"""A small class to grade before the real one: ``python -m course.grading example-class DIR``.

Writes a throw-away course directory with the course's ``solutions/``, ``exercises/`` and
``nbgrader_config.py`` (approved), a ``roster.csv`` and submissions of ``a1_minimax`` by four
students -- one solved it, one solved part of it, one handed in the release untouched, one
solved it a day after the due date -- so that an instructor can run the term's commands on it
(``autograde``, the formgrader, ``feedback``, ``grades``) and see each outcome once.

Reads only the course's own files.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .course_dir import WorkflowError

__all__ = ["example_class", "EXAMPLE_STUDENTS"]

#: The example students: id -> (what they hand in, when).
EXAMPLE_STUDENTS = {
    "ada": ("solved", "2026-12-01 15:02:11 UTC"),
    "grace": ("part 1 only", "2026-12-01 16:40:00 UTC"),
    "alan": ("the release, untouched", "2026-12-01 09:30:00 UTC"),
    "barbara": ("solved, a day late", "2026-12-02 18:15:00 UTC"),
}
_ASSIGNMENT, _NOTEBOOK, _DUE = "a1_minimax", "minimax.ipynb", "2026-12-01 17:00 UTC"


def _package_root() -> Path:
    return Path(__file__).resolve().parents[3]


def _notebook(solution: dict, release: dict, solved_parts: int | None) -> dict:
    """The solution with only its first ``solved_parts`` answer cells solved (None: all)."""
    released = {c["metadata"].get("nbgrader", {}).get("grade_id"): c["source"] for c in release["cells"]}
    notebook = json.loads(json.dumps(solution))
    solved = 0
    for cell in notebook["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            if solved_parts is not None and solved >= solved_parts:
                cell["source"] = released.get(meta.get("grade_id"), cell["source"])
            solved += 1
    return notebook


def example_class(target: str | os.PathLike, *, course: str | os.PathLike | None = None) -> Path:
    """Write the example class into ``target`` (which must not exist or be empty).

    Parameters
    ----------
    target : path
        The new course directory.
    course : path, optional
        The course to copy from (default: the one this package belongs to).

    Returns
    -------
    Path
        ``target``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = example_class(pathlib.Path(tempfile.mkdtemp()) / "class")
    >>> sorted(p.name for p in (root / "submitted").iterdir())
    ['ada', 'alan', 'barbara', 'grace']
    """
    from ..job.approval import approve_config
    from . import set_due_date

    source = Path(course) if course is not None else _package_root()
    target = Path(target)
    if target.exists() and any(target.iterdir()):
        raise WorkflowError(f"{target} is not empty: give a new folder for the example class")
    if not (source / "solutions" / _ASSIGNMENT).is_dir():
        raise WorkflowError(f"{source} has no solutions/{_ASSIGNMENT}: is it the course directory?")
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(source / "solutions", target / "solutions")
    shutil.copytree(source / "exercises", target / "exercises")
    shutil.copy(source / "nbgrader_config.py", target / "nbgrader_config.py")
    with open(target / "nbgrader_config.py", "a", encoding="utf-8") as config:
        config.write("\n# The example class: 10 % of the score per day late (see the instructor guide).\n"
                     'c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"\n'
                     "c.PercentPerDay.percent_per_day = 10\n")
    approve_config(target)
    (target / "roster.csv").write_text(
        "id,first_name,last_name\nada,Ada,Lovelace\ngrace,Grace,Hopper\nalan,Alan,Turing\n"
        "barbara,Barbara,Liskov\n", encoding="utf-8")
    solution = json.loads((target / "solutions" / _ASSIGNMENT / _NOTEBOOK).read_text(encoding="utf-8"))
    release = json.loads((target / "exercises" / _ASSIGNMENT / _NOTEBOOK).read_text(encoding="utf-8"))
    versions = {"solved": _notebook(solution, release, None), "part 1 only": _notebook(solution, release, 1),
                "the release, untouched": release, "solved, a day late": _notebook(solution, release, None)}
    for student, (what, when) in EXAMPLE_STUDENTS.items():
        folder = target / "submitted" / student / _ASSIGNMENT
        folder.mkdir(parents=True)
        (folder / _NOTEBOOK).write_text(json.dumps(versions[what], indent=1), encoding="utf-8")
        (folder / "timestamp.txt").write_text(when + "\n", encoding="utf-8")
    set_due_date(target, _ASSIGNMENT, _DUE)
    return target
