"""What a graded result depends on: the inputs of running a submission's code.

A submission's autograded points are a function of

========================  ============================================================
component                 what
========================  ============================================================
``files``                 the submitted files (not ``timestamp.txt``: when is not what)
``visible_tests``         the assignment's test cells, their visible part
``hidden_tests``          their hidden part (``### BEGIN HIDDEN TESTS``), from ``solutions/``
``points``                every graded cell's points
``read_only``             the instructor's other read-only cells (setup, questions)
``release``               the released notebooks (``exercises/``: what a submission is repaired to)
``secret``                the grading secret (it derives the hidden cases)
``code``                  the course's code (checks, cases, sandbox, grader)
``config``                ``nbgrader_config.py`` as approved, less the term's settings below
========================  ============================================================

plus the run's time limits and sandbox (``limits``).  Each is a SHA-256; :class:`GradingInputs`
hashes them into the **grading key**.  The tests, points and read-only cells are read from the
gradebook -- where ``make release`` puts them and where grading reads them -- and
:func:`unreleased_changes` says when ``solutions/`` differs from it.

The term's settings -- the late rule (``AssignLatePenalties``, its plugin's section,
``TermPolicy``), the due dates, extensions and hand grades -- are not inputs of the code run:
changing them recomputes totals (:mod:`.settle`) and runs no code.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .course_dir import CourseLayout

__all__ = ["GradingInputs", "course_code", "assignment_inputs", "secret_digest", "config_digest",
           "describe_changes", "unreleased_changes", "COMPONENTS", "TERM_SECTIONS"]

#: The components of a grading key, in order, with what a change of each means.
COMPONENTS = {
    "files": "the submitted files changed",
    "visible_tests": "visible tests of {assignment} changed",
    "hidden_tests": "hidden tests of {assignment} changed",
    "points": "points of {assignment} changed",
    "read_only": "read-only cells of {assignment} changed",
    "release": "the release of {assignment} (exercises/) changed",
    "secret": "the grading secret changed",
    "code": "the course's code changed",
    "config": "nbgrader_config.py changed",
}
#: Sections of ``nbgrader_config.py`` that are the term's rules, not inputs of the code run
#: (the late rule's own plugin section is added by :func:`config_digest`), and sections that
#: only concern the exchange, Validate and feedback.
TERM_SECTIONS = ("TermPolicy", "AssignLatePenalties", "LateSubmissionPlugin", "GenerateFeedback",
                 "Validator", "Exchange", "ExchangeFactory", "ExchangeCollect", "ExchangeSubmit",
                 "ExchangeReleaseAssignment", "ExchangeFetchAssignment", "ExchangeFetchFeedback",
                 "ExchangeReleaseFeedback", "ExchangeList")


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=repr).encode()).hexdigest()


def course_code() -> str:
    """SHA-256 of the course package's code (what grades: checks, cases, sandbox, grader)."""
    import course

    digest = hashlib.sha256()
    package = Path(course.__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def secret_digest(secret: str | None) -> str:
    """A digest of the grading secret (never the secret itself)."""
    return hashlib.sha256(b"course-grading-secret\0" + (secret or "").encode()).hexdigest()


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict") and not isinstance(value, dict):
        return {"lazy": _plain(value.to_dict())}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}"
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def config_digest(config) -> str:
    """SHA-256 of the loaded configuration, less the term's sections (:data:`TERM_SECTIONS`)."""
    skip = set(TERM_SECTIONS)
    if "AssignLatePenalties" in config:
        plugin = config.AssignLatePenalties.get("plugin_class")
        if plugin is not None:
            skip.add((plugin if isinstance(plugin, str) else plugin.__name__).rsplit(".", 1)[-1])
    kept = {name: _plain(section) for name, section in config.items() if name not in skip}
    kept.get("CourseDirectory", {}).pop("root", None)     # where the course is, not how it grades
    return _digest(kept)


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def assignment_inputs(gb, layout: CourseLayout, assignment: str) -> dict[str, str]:
    """The assignment's components (tests, points, read-only cells, release), from the gradebook."""
    from nbgrader.api import MissingEntry

    from ..job.sandboxed import split_hidden

    visible, hidden, points, read_only = [], [], [], []
    try:
        notebooks = sorted(gb.find_assignment(assignment).notebooks, key=lambda n: n.name)
    except MissingEntry:
        notebooks = []
    for nb in notebooks:
        answers = {c.name for c in nb.solution_cells}
        tests = {c.name for c in nb.grade_cells if c.cell_type == "code" and c.name not in answers}
        for cell in sorted(nb.grade_cells, key=lambda c: c.name):
            points.append((nb.name, cell.name, float(cell.max_score or 0), cell.cell_type))
        for cell in sorted(nb.source_cells, key=lambda c: c.name):
            if cell.name in tests:
                seen, unseen = split_hidden(cell.source)
                visible.append((nb.name, cell.name, seen))
                hidden.append((nb.name, cell.name, unseen))
            elif cell.locked:
                read_only.append((nb.name, cell.name, cell.cell_type, cell.source))
    release = hashlib.sha256()
    folder = layout.release / assignment
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if path.is_file() and ".ipynb_checkpoints" not in path.parts:
            release.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return {"visible_tests": _digest(visible), "hidden_tests": _digest(hidden), "points": _digest(points),
            "read_only": _digest(read_only), "release": release.hexdigest()}


@dataclass(frozen=True)
class GradingInputs:
    """The inputs of one code run (see the module): a digest per component."""

    components: dict[str, str]
    limits: dict[str, Any] = field(default_factory=dict)
    """The run's time limits and sandbox: a result graded under other limits is graded again
    by ``autograde``, but still counts for grades and feedback."""

    @property
    def key(self) -> str:
        """The grading key: one SHA-256 of every component (not the limits)."""
        return _digest({name: self.components.get(name, "") for name in COMPONENTS})

    def changes(self, before: dict[str, str], assignment: str) -> list[str]:
        """What changed since ``before`` (an earlier result's components), in words."""
        return describe_changes(before, self.components, assignment)


def describe_changes(before: dict[str, str], after: dict[str, str], assignment: str) -> list[str]:
    """The components that differ, in words.

    >>> describe_changes({"files": "a", "hidden_tests": "b"}, {"files": "a", "hidden_tests": "c"}, "a1")
    ['hidden tests of a1 changed']
    """
    return [text.format(assignment=assignment) for name, text in COMPONENTS.items()
            if before.get(name) != after.get(name)]


def unreleased_changes(gb, layout: CourseLayout, assignment: str) -> list[str]:
    """How ``solutions/``'s test cells and points differ from what was released to the gradebook.

    Grading reads the tests from the gradebook, which ``make release`` fills: a test edited in
    ``solutions/`` but not released would not be graded.  Empty if they agree.
    """
    from nbgrader.api import MissingEntry

    said: list[str] = []
    for name in layout.notebooks(assignment):
        path = layout.source / assignment / f"{name}.ipynb"
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError) as exc:
            said.append(f"{path.name} cannot be read ({exc})")
            continue
        try:
            notebook = gb.find_notebook(name, assignment)
        except MissingEntry:
            said.append(f"{path.name} was never released")
            continue
        sources = {c.name: c.source for c in notebook.source_cells}
        released_points = {c.name: float(c.max_score or 0) for c in notebook.grade_cells}
        points = {}
        for cell in cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            grade_id = meta.get("grade_id")
            if not grade_id or not meta.get("grade"):
                continue
            points[grade_id] = float(meta.get("points") or 0)
            if cell.get("cell_type") == "code" and not meta.get("solution"):
                if sources.get(grade_id) != _text(cell.get("source")):
                    said.append(f"{path.name}: test cell {grade_id} differs from the release")
        for grade_id in sorted(set(points) | set(released_points)):
            if points.get(grade_id) != released_points.get(grade_id):
                said.append(f"{path.name}: the points of {grade_id} differ from the release")
    return said


def files_component(folder: str | os.PathLike) -> str:
    """The ``files`` component of a submission folder."""
    from .versions import files_sha

    return files_sha(folder)
