"""Before a release: the model solution earns every point and the stub earns none.

:func:`check_source` grades an assignment's source the way submissions are graded
(:func:`~course.grading.job.sandboxed.grade_notebook`: the code in the sandbox, every
visible and hidden test in the grader, the hidden cases salted by the course's secret):

* the **model solution** (``solutions/``) must pass every test cell, visible and hidden --
  a test it fails would take points from every correct student;
* the **released stub** (what ``nbgrader generate_assignment`` makes of it) must fail every
  test cell -- a test it passes gives its points for nothing.

``make release`` refuses an assignment that fails either check and names the test.  A check
that passed is remembered by the SHA-256 of what it depends on (the assignment's source files,
the course's code, the grading secret, whether the sandbox ran), in
``$COURSE_GRADING_CACHE`` or ``~/.cache/course-grading/release-checks/``, so releasing again an
unchanged assignment costs nothing.  Runs only the instructor's own code (the solution, the
stub, the tests); where bubblewrap cannot start (macOS, Windows) it runs it without the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .course_dir import CourseLayout, WorkflowError, course_config, nbgrader_api, nbgrader_error

__all__ = ["check_source", "SourceCheck", "SourceCheckFailed", "CACHE_ENV", "cache_dir"]

#: Environment variable naming the folder for remembered checks.
CACHE_ENV = "COURSE_GRADING_CACHE"


class SourceCheckFailed(WorkflowError):
    """The model solution fails a test, or the released stub passes one."""


@dataclass
class SourceCheck:
    """What :func:`check_source` found for one assignment."""

    assignment: str
    problems: list[str] = field(default_factory=list)
    tests: int = 0
    cached: bool = False
    sandboxed: bool = True

    @property
    def ok(self) -> bool:
        return not self.problems


def cache_dir() -> Path:
    """Where passed checks are remembered."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]) / "release-checks"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "course-grading" / "release-checks"


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def _cells(notebook: dict, trusted: dict[str, dict]) -> list[dict]:
    """The code cells as the grader sees them (:class:`~course.grading.job.sandboxed.SandboxedGrade`):
    tests and read-only cells with the instructor's source, the rest as handed in."""
    cells = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        grade_id = (cell.get("metadata") or {}).get("nbgrader", {}).get("grade_id")
        mine = trusted.get(grade_id)
        kind = "student"
        if mine is not None and mine["test"]:
            kind = "test"
        elif mine is not None and mine["locked"]:
            kind = "locked"
        cells.append({"kind": kind, "source": _text(cell.get("source")), "id": grade_id,
                      "points": mine["points"] if mine else 0.0,
                      "trusted_source": mine["source"] if mine is not None else _text(cell.get("source"))})
    return cells


def _trusted(source: dict) -> dict[str, dict]:
    found = {}
    for cell in source.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if not grade_id or cell.get("cell_type") != "code":
            continue
        test = bool(meta.get("grade")) and not meta.get("solution")
        found[grade_id] = {"test": test, "locked": (bool(meta.get("locked")) or test) and not meta.get("solution"),
                           "source": _text(cell.get("source")), "points": float(meta.get("points") or 0)}
    return found


def _digest(layout: CourseLayout, assignment: str, secret: str | None, sandbox: bool) -> str:
    from .inputs import course_code, secret_digest

    digest = hashlib.sha256()
    folder = layout.source / assignment
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(course_code().encode() + secret_digest(secret).encode() + (b"1" if sandbox else b"0"))
    return digest.hexdigest()


def check_source(layout: CourseLayout, assignment: str, *, use_cache: bool = True) -> SourceCheck:
    """Grade the model solution and the stub of ``assignment`` (see the module).

    Returns
    -------
    SourceCheck
        ``problems`` names every test the solution fails or the stub passes (empty: fine).

    Raises
    ------
    WorkflowError
        If nbgrader cannot generate the stub.
    """
    from ..job.sandboxed import course_secret, grade_notebook
    from ...sandbox import SandboxUnavailable, check_sandbox

    try:
        check_sandbox()
        sandbox = True
    except SandboxUnavailable:
        sandbox = False
    secret = course_secret(layout.root) or "release-check"
    key = _digest(layout, assignment, secret, sandbox)
    remembered = cache_dir() / f"{key}.json"
    check = SourceCheck(assignment, sandboxed=sandbox)
    if use_cache and remembered.is_file():
        check.cached = True
        check.tests = json.loads(remembered.read_text(encoding="utf-8")).get("tests", 0)
        return check
    config = course_config(layout.root)
    timeout = float(config.SandboxedGrade.get("cell_timeout", 60.0)) if "SandboxedGrade" in config else 60.0
    with tempfile.TemporaryDirectory(prefix="course-release-check-") as tmp:
        api = nbgrader_api(layout, **{"CourseDirectory.release_directory": str(Path(tmp) / "release"),
                                      "CourseDirectory.db_url": f"sqlite:///{Path(tmp) / 'gradebook.db'}"})
        result = api.generate_assignment(assignment, force=True, create=True)
        if not result.get("success"):
            raise WorkflowError(f"nbgrader could not generate {assignment}: {nbgrader_error(result)}")
        for path in sorted((layout.source / assignment).glob("*.ipynb")):
            source = json.loads(path.read_text(encoding="utf-8"))
            stub = json.loads((Path(tmp) / "release" / assignment / path.name).read_text(encoding="utf-8"))
            trusted = _trusted(source)
            for label, notebook in (("solution", source), ("stub", stub)):
                cells = _cells(notebook, trusted)
                try:
                    results = grade_notebook(cells, secret=secret, sandbox=sandbox, cell_timeout=timeout)
                except Exception as exc:  # noqa: BLE001 - a read-only cell fails, a limit is hit
                    check.problems.append(f"grading the {label} of {path.name} failed: "
                                          f"{type(exc).__name__}: {str(exc)[:300]}")
                    continue
                for cell, outcome in zip(cells, results):
                    if cell["kind"] != "test":
                        continue
                    name = f"test {cell['id']} of {path.name} ({cell['points']:g} points)"
                    if label == "solution":
                        check.tests += 1
                        if outcome["hidden_failed"]:
                            check.problems.append(f"the model solution fails the hidden tests of {name}")
                        elif not outcome["passed"]:
                            check.problems.append(f"the model solution fails {name}: "
                                                  f"{_error(outcome['outputs'])}")
                    elif outcome["passed"]:
                        check.problems.append(f"the released stub passes {name}: its points are given "
                                              "for no answer")
    if check.ok:
        remembered.parent.mkdir(parents=True, exist_ok=True)
        tmp_path = remembered.with_suffix(".tmp")
        tmp_path.write_text(json.dumps({"assignment": assignment, "tests": check.tests}), encoding="utf-8")
        os.replace(tmp_path, remembered)
    return check


def _error(outputs: list) -> str:
    for output in outputs:
        if output.get("output_type") == "error":
            return f"{output.get('ename')}: {output.get('evalue')}"[:300]
    return "it failed"
