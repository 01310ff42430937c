"""Protect the class's grades from the submission being graded.

nbgrader runs each student's notebook with the instructor's rights, so a
hostile (or careless) notebook could delete the gradebook, rewrite other
students' scores, or delete their graded notebooks.  :class:`GradingGuard`
takes a snapshot before each submission is graded and checks it afterwards:

* the gradebook's bytes are kept **in the grading process's memory** (out of
  the notebook's reach) together with every other submission's grades; if
  the gradebook is gone, unreadable, or any other submission's grades
  changed, it is restored from memory and the submission being graded is
  failed with a reason;
* the sizes and modification times of every other submission's graded files
  (``autograded/<student>/<assignment>/``) are recorded; submissions whose
  files changed are reported so the workflow can grade them again.

This is a tripwire, not a sandbox: code that kills the grading process or
waits for a later submission could still do harm.  For a class you do not
trust, grade inside a container or a throw-away virtual machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["GradingGuard", "GuardReport"]

Job = tuple[str, str]


@dataclass
class GuardReport:
    """What a check found."""

    gradebook: str = ""
    """Why the gradebook was restored, or empty if it was intact."""
    damaged: list[Job] = field(default_factory=list)
    """Other submissions whose graded files changed (to be graded again)."""

    def __bool__(self) -> bool:
        return bool(self.gradebook or self.damaged)

    def describe(self) -> str:
        """One line for the grading report."""
        parts = []
        if self.gradebook:
            parts.append(f"{self.gradebook}; the gradebook was restored and this submission scores 0")
        if self.damaged:
            names = ", ".join(f"{s}/{a}" for s, a in self.damaged)
            parts.append(f"it changed other students' graded files ({names}); they are graded again")
        return "the notebook tampered with the grading files: " + "; ".join(parts)


def _sqlite_path(db_url: str) -> Path | None:
    prefix = "sqlite:///"
    return Path(db_url[len(prefix):]) if db_url.startswith(prefix) else None


class GradingGuard:
    """Snapshot and check the grading files around one submission (see the module docstring).

    Parameters
    ----------
    autograded : path
        nbgrader's ``autograded/`` folder.
    db_url : str
        The gradebook's SQLAlchemy URL (only ``sqlite:///`` files are snapshotted).
    course_id : str
        nbgrader's course id.
    ignore : iterable of str
        Names under ``autograded/`` not belonging to students (e.g. the report folder).
    """

    def __init__(self, autograded: Path, db_url: str, course_id: str, *, ignore=()) -> None:
        self.autograded = Path(autograded)
        self.db_url = db_url
        self.course_id = course_id
        self.db_path = _sqlite_path(db_url)
        self.ignore = set(ignore)
        self._db_bytes: bytes | None = None
        self._grades: dict[Job, Any] = {}
        self._files: dict[Job, dict[str, tuple[int, int]]] = {}

    # -- snapshot -------------------------------------------------------------
    def _read_grades(self) -> dict[Job, Any]:
        from nbgrader.api import Gradebook

        grades: dict[Job, Any] = {}
        with Gradebook(self.db_url, self.course_id) as gb:
            for assignment in gb.assignments:
                for sub in assignment.submissions:
                    grades[(sub.student_id, assignment.name)] = tuple(sorted(
                        (nb.name, g.name, g.auto_score, g.manual_score, g.extra_credit)
                        for nb in sub.notebooks for g in nb.grades))
        return grades

    def _read_files(self) -> dict[Job, dict[str, tuple[int, int]]]:
        files: dict[Job, dict[str, tuple[int, int]]] = {}
        if not self.autograded.is_dir():
            return files
        for student in self.autograded.iterdir():
            if student.name in self.ignore or not student.is_dir():
                continue
            for assignment in student.iterdir():
                if not assignment.is_dir():
                    continue
                entry = files[(student.name, assignment.name)] = {}
                for dirpath, _, names in os.walk(assignment):
                    for name in names:
                        path = Path(dirpath) / name
                        try:
                            st = path.stat()
                        except OSError:
                            continue
                        entry[str(path.relative_to(assignment))] = (st.st_size, st.st_mtime_ns)
        return files

    def snapshot(self) -> None:
        """Remember the gradebook (bytes and grades) and the graded files, before a submission runs."""
        if self.db_path is not None and self.db_path.exists():
            self._db_bytes = self.db_path.read_bytes()
        self._grades = self._read_grades()
        self._files = self._read_files()

    # -- check ---------------------------------------------------------------------
    def check(self, job: Job) -> GuardReport:
        """Compare with the snapshot, ignoring ``job`` itself; restore the gradebook if needed."""
        report = GuardReport()
        try:
            after = self._read_grades()
        except Exception as exc:  # noqa: BLE001 - an unreadable gradebook is exactly what we look for
            after = None
            report.gradebook = f"the gradebook could not be read ({type(exc).__name__})"
        if after is not None:
            lost = [key for key in self._grades if key != job and after.get(key) != self._grades[key]]
            if lost:
                names = ", ".join(f"{s}/{a}" for s, a in lost[:5])
                report.gradebook = f"the grades of {len(lost)} other submission(s) changed ({names})"
        if report.gradebook:
            self.restore_gradebook()
        files = self._read_files()
        report.damaged = sorted(key for key, entry in self._files.items()
                                if key != job and files.get(key) != entry)
        return report

    def restore_gradebook(self) -> None:
        """Write the snapshotted gradebook back."""
        if self.db_path is None or self._db_bytes is None:
            return
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.db_path.with_name(self.db_path.name + ".restore")
        tmp.write_bytes(self._db_bytes)
        os.replace(tmp, self.db_path)
        for suffix in ("-journal", "-wal", "-shm"):
            stale = self.db_path.with_name(self.db_path.name + suffix)
            if stale.exists():
                stale.unlink()
