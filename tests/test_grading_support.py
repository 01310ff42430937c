"""Shared helpers of the grading tests: read the exercise notebooks and run their cells in-process.

Running the cells of a notebook in this process (no kernel, no nbgrader) is
how the fast tests check that the solutions pass every test cell, that the
untouched release fails every one, and that each wrong implementation fails
the test cells meant to catch it.  The nbgrader pipeline itself is tested in
``test_grading_pipeline.py``.
"""

from __future__ import annotations

import contextlib
import io
import shutil
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"


@dataclass(frozen=True)
class Cell:
    """A notebook cell as the grading tests see it."""

    kind: str
    """``markdown``, ``setup`` (locked code), ``solution``, ``test``, ``answer`` or ``scratch``."""
    grade_id: str | None
    source: str
    points: float = 0.0


def read_cells(path: Path) -> list[Cell]:
    """The cells of a notebook, classified by their nbgrader metadata."""
    nb = nbformat.read(path, as_version=4)
    cells = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        gid = meta.get("grade_id")
        if cell.cell_type != "code":
            kind = "answer" if meta.get("solution") and meta.get("grade") else "markdown"
        elif meta.get("grade") and not meta.get("solution"):
            kind = "test"
        elif meta.get("solution"):
            kind = "solution"
        elif meta.get("locked"):
            kind = "setup"
        else:
            kind = "scratch"
        cells.append(Cell(kind, gid, cell.source, float(meta.get("points", 0) or 0)))
    return cells


def copy_course(root: Path, *, approve: bool = True) -> Path:
    """A throw-away course directory at ``root``: the solutions, the release and the config,
    approved for grading as the instructor would (``make approve-config``) unless ``approve`` is False."""
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(SOLUTIONS, root / "solutions")
    shutil.copytree(EXERCISES, root / "exercises")
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    if approve:
        from course.grading.job.approval import approve_config

        approve_config(root)
    return root


def notebooks(folder: Path = SOLUTIONS) -> list[Path]:
    """Every assignment notebook under ``folder``, sorted."""
    return sorted(folder.glob("*/*.ipynb"))


def visible_part(source: str) -> str:
    """A test cell's source as the release shows it: without its hidden-tests block."""
    return re.sub(r"[ \t]*### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS[ \t]*\n?", "", source,
                  flags=re.DOTALL)


def run_notebook(path: Path, *, replace: dict[str, str] | None = None,
                 extra: str | None = None, visible_only: bool = False,
                 ) -> dict[str, BaseException | None]:
    """Run a notebook's code cells in order in a fresh namespace; return each test cell's outcome.

    Parameters
    ----------
    path : Path
    replace : dict, optional
        grade_id -> source to run instead of that cell (a wrong implementation).
    extra : str, optional
        Code run after all solution cells' replacements, before the tests (unused by default).
    visible_only : bool
        Run the test cells without their hidden tests, as a student's Validate does.

    Returns
    -------
    dict
        Test cell grade_id -> None if it passed, else the exception it raised.
    """
    replace = replace or {}
    namespace: dict = {"__name__": "__exercise__"}
    outcomes: dict[str, BaseException | None] = {}
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink):
        for cell in read_cells(path):
            if cell.kind in ("markdown", "answer", "scratch"):
                continue
            source = replace.get(cell.grade_id, cell.source)
            if visible_only and cell.kind == "test":
                source = visible_part(source)
            try:
                exec(compile(source, f"<{path.stem}:{cell.grade_id}>", "exec"), namespace)
            except Exception as exc:  # noqa: BLE001 - a failing cell is an outcome
                if cell.kind != "test":
                    raise
                outcomes[cell.grade_id] = exc
            else:
                if cell.kind == "test":
                    outcomes[cell.grade_id] = None
    return outcomes
