"""Graded results kept by their inputs, and hand grades kept by the answer they grade.

* :class:`ResultStore` -- ``autograded/.course-grading/results/<student>/<assignment>/<key>/``:
  one graded result per grading key (:mod:`.inputs`): the graded notebooks nbgrader wrote
  (``files/``), each cell's autograded points and comment, the grading report's record, and
  a fingerprint of each graded answer.  A version graded once under the same inputs is never
  run again: its result is restored into the gradebook and ``autograded/`` (:meth:`restore`).
* :class:`HandGrades` -- ``autograded/.course-grading/hand-grades.json``: every hand grade
  (points, extra credit, comment) given in the formgrader, kept by the **answer** it grades:
  the written answer's text (for an answer cell) or the submission's files (for a grade
  given to a test cell).  A version whose answer is the same keeps the grade; a changed
  answer waits for a new one.
* :class:`TermState` -- ``autograded/.course-grading/term.json``: which result and version the
  gradebook shows for each submission, and the total it was given last.

These files hold verdicts and the instructor's grades, never a student's code that runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .course_dir import CourseLayout

__all__ = ["Result", "ResultStore", "HandGrades", "TermState", "answer_fingerprints", "forget_student"]

_STATE_DIR = Path("autograded") / ".course-grading"
#: Results kept per submission besides those of its versions' current inputs.
KEEP_RECENT = 4


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def _read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return default


def _text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def answer_fingerprints(folder: Path, files: str) -> dict[str, dict[str, str]]:
    """``{notebook: {cell: fingerprint}}`` of a graded submission's graded cells.

    An answer cell's fingerprint is its text; any other graded cell (a test cell, a task) is
    graded on the whole submission, so its fingerprint is the submission's files (``files``).
    """
    found: dict[str, dict[str, str]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError, AttributeError):
            cells = []
        mine = found.setdefault(path.stem, {})
        for cell in cells if isinstance(cells, list) else []:
            # the student wrote these notebooks: anything that is not nbgrader's shape is skipped
            meta = cell.get("metadata") if isinstance(cell, dict) else None
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            if not isinstance(grade_id, str):
                continue
            if meta.get("solution"):
                mine[grade_id] = "answer:" + hashlib.sha256(_text(cell.get("source")).encode()).hexdigest()
            else:
                mine[grade_id] = "files:" + files
    return found


@dataclass
class Result:
    """One graded result (see :class:`ResultStore`)."""

    key: str
    components: dict[str, str]
    limits: dict[str, Any]
    record: dict[str, Any]
    """The grading report's record of it (status, reason, review, ...)."""
    grades: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """``{notebook: {cell: {"auto_score", "max_score", "autograded"}}}``."""
    comments: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``{notebook: {cell: auto_comment}}``."""
    answers: dict[str, dict[str, str]] = field(default_factory=dict)
    """:func:`answer_fingerprints` of the graded notebooks."""
    folder: Path | None = None

    def limits_match(self, limits: dict[str, Any]) -> bool:
        """Graded under these time limits and sandbox (a result kept after an interrupted run
        knows only its sandbox: any time limits match)."""
        if set(self.limits) == {"sandboxed"}:
            return self.limits["sandboxed"] == limits.get("sandboxed")
        return self.limits == limits

    @property
    def graded(self) -> bool:
        """It has a grade (not ``failed``): its notebooks and points are kept."""
        from .results.report import GRADED

        return self.record.get("status") in GRADED

    def cells(self, hand: dict | None = None) -> list:
        """Its cells as :class:`~.policies.CellGrade` (with ``hand`` grades by answer, if given)."""
        from .policies import CellGrade

        out = []
        for nb, cells in sorted(self.grades.items()):
            for cell, info in sorted(cells.items()):
                given = (hand or {}).get(HandGrades.key(nb, cell, self.answers.get(nb, {}).get(cell, "")))
                out.append(CellGrade(nb, cell, float(info.get("max_score") or 0.0), bool(info.get("autograded")),
                                     auto_score=info.get("auto_score"),
                                     manual_score=(given or {}).get("manual_score"),
                                     extra_credit=(given or {}).get("extra_credit")))
        return out


class ResultStore:
    """Graded results of a course, by student, assignment and grading key."""

    def __init__(self, layout: CourseLayout) -> None:
        self.layout = layout
        self.base = layout.root / _STATE_DIR / "results"

    def _folder(self, student: str, assignment: str, key: str) -> Path:
        return self.base / student / assignment / key[:32]

    def get(self, student: str, assignment: str, key: str) -> Result | None:
        folder = self._folder(student, assignment, key)
        data = _read_json(folder / "result.json", None)
        if not data or data.get("key") != key:
            return None
        result = Result(key, data.get("components", {}), data.get("limits", {}), data.get("record", {}),
                        data.get("grades", {}), data.get("comments", {}), data.get("answers", {}), folder)
        if result.graded and not (folder / "files").is_dir():
            return None
        return result

    def all(self, student: str, assignment: str) -> list[Result]:
        """Every result kept for the submission (any key), newest graded last."""
        found = []
        folder = self.base / student / assignment
        for sub in sorted(folder.iterdir()) if folder.is_dir() else []:
            data = _read_json(sub / "result.json", None)
            if data and "key" in data:
                result = self.get(student, assignment, data["key"])
                if result is not None:
                    found.append(result)
        return sorted(found, key=lambda r: r.record.get("graded_at", ""))

    def capture(self, gb, student: str, assignment: str, key: str, components: dict[str, str],
                limits: dict[str, Any], record: dict[str, Any]) -> Result:
        """Keep what grading just wrote for the submission (gradebook and ``autograded/``)."""
        from nbgrader.api import MissingEntry

        from .results.report import GRADED

        folder = self._folder(student, assignment, key)
        tmp = folder.with_name(folder.name + ".incoming")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        grades: dict[str, dict[str, dict[str, Any]]] = {}
        comments: dict[str, dict[str, Any]] = {}
        answers: dict[str, dict[str, str]] = {}
        graded = self.layout.autograded / student / assignment
        if record.get("status") in GRADED and not graded.is_dir():
            record = dict(record, status="failed", reason="its graded notebooks are missing")
        if record.get("status") in GRADED:
            shutil.copytree(graded, tmp / "files", symlinks=True,
                            ignore=shutil.ignore_patterns("timestamp.txt", ".ipynb_checkpoints"))
            answers = answer_fingerprints(tmp / "files", components.get("files", ""))
            try:
                sub = gb.find_submission(assignment, student)
            except MissingEntry:
                sub = None
            for nb in sub.notebooks if sub is not None else []:
                answer_cells = {c.name for c in nb.notebook.solution_cells}
                grades[nb.name] = {g.name: {"auto_score": g.auto_score, "max_score": float(g.max_score or 0),
                                            "autograded": g.name not in answer_cells and g.cell_type == "code"}
                                   for g in nb.grades}
                comments[nb.name] = {c.name: c.auto_comment for c in nb.comments}
        _write_json(tmp / "result.json", {"key": key, "components": components, "limits": limits,
                                          "record": record, "grades": grades, "comments": comments,
                                          "answers": answers})
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(tmp, folder)
        return self.get(student, assignment, key)

    def restore(self, gb, result: Result, version) -> None:
        """Make the gradebook and ``autograded/`` show ``result`` for ``version`` (no code runs).

        Hand grades are put back separately (:meth:`HandGrades.apply`).
        """
        from .results.report import GRADED

        student, assignment = version.student, version.assignment
        if result.record.get("status") not in GRADED:
            return
        dest = self.layout.autograded / student / assignment
        incoming = dest.with_name(f".{assignment}.incoming")
        shutil.rmtree(incoming, ignore_errors=True)
        incoming.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(result.folder / "files", incoming, symlinks=True)
        stamp = version.path / "timestamp.txt"
        if stamp.is_file():
            shutil.copy(stamp, incoming / "timestamp.txt")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(incoming, dest)
        gb.update_or_create_student(student)
        sub = gb.update_or_create_submission(assignment, student)
        sub.timestamp = version.timestamp
        for nb in sub.notebooks:
            kept = result.grades.get(nb.name, {})
            for grade in nb.grades:
                if grade.name in kept:
                    grade.auto_score = kept[grade.name].get("auto_score")
            notes = result.comments.get(nb.name, {})
            for comment in nb.comments:
                if comment.name in notes:
                    comment.auto_comment = notes[comment.name]
        gb.db.commit()

    def prune(self, student: str, assignment: str, keep: set[str], *, recent: int = KEEP_RECENT) -> None:
        """Remove the submission's results but those whose key is in ``keep`` and the ``recent``
        others graded last (a test changed back costs no regrade)."""
        others = [r for r in self.all(student, assignment) if r.key not in keep]
        for result in others[:max(0, len(others) - recent)]:
            shutil.rmtree(result.folder, ignore_errors=True)

    def remove_student(self, student: str) -> Path | None:
        folder = self.base / student
        if folder.is_dir():
            shutil.rmtree(folder)
            return folder
        return None


class HandGrades:
    """The hand grades of a course, kept by student, assignment and answer (see the module)."""

    def __init__(self, layout: CourseLayout) -> None:
        self.path = layout.root / _STATE_DIR / "hand-grades.json"
        self.data: dict[str, dict[str, dict[str, Any]]] = _read_json(self.path, {})
        self.changed = False

    @staticmethod
    def key(notebook: str, cell: str, answer: str) -> str:
        return json.dumps([notebook, cell, answer])

    def of(self, student: str, assignment: str) -> dict[str, dict[str, Any]]:
        """``{key(notebook, cell, answer): {"manual_score", "extra_credit", "manual_comment"}}``."""
        return self.data.get(f"{student}/{assignment}", {})

    def give(self, student: str, assignment: str, notebook: str, cell: str, answer: str, *,
             manual_score: float | None = None, extra_credit: float | None = None,
             manual_comment: str | None = None) -> None:
        """Record a hand grade for an answer (or, all None, remove it)."""
        mine = self.data.setdefault(f"{student}/{assignment}", {})
        key = self.key(notebook, cell, answer)
        value = {"manual_score": manual_score, "extra_credit": extra_credit, "manual_comment": manual_comment}
        if all(v is None for v in value.values()):
            if key in mine:
                del mine[key]
                self.changed = True
        elif mine.get(key) != value:
            mine[key] = value
            self.changed = True
        if not mine:
            self.data.pop(f"{student}/{assignment}", None)

    def harvest(self, sub, answers: dict[str, dict[str, str]]) -> None:
        """Read the hand grades of a gradebook submission that shows the result with ``answers``."""
        student, assignment = sub.student.id, sub.assignment.name
        for nb in sub.notebooks:
            fingerprints = answers.get(nb.name, {})
            comments = {c.name: c.manual_comment for c in nb.comments}
            names = {g.name for g in nb.grades} | set(comments)
            grades = {g.name: g for g in nb.grades}
            for name in sorted(names):
                if name not in fingerprints:
                    continue
                grade = grades.get(name)
                self.give(student, assignment, nb.name, name, fingerprints[name],
                          manual_score=grade.manual_score if grade is not None else None,
                          extra_credit=grade.extra_credit if grade is not None else None,
                          manual_comment=comments.get(name) or None)

    def apply(self, gb, sub, answers: dict[str, dict[str, str]], *, attention: bool = False) -> None:
        """Put the hand grades of the answers shown back into the gradebook submission; an answer
        without one waits for it (``needs_manual_grade``).  ``attention``: every cell is shown as
        needing a look (a notebook could not be read)."""
        mine = self.of(sub.student.id, sub.assignment.name)
        for nb in sub.notebooks:
            fingerprints = answers.get(nb.name, {})
            for grade in nb.grades:
                given = mine.get(self.key(nb.name, grade.name, fingerprints.get(grade.name, "")), {})
                grade.manual_score = given.get("manual_score")
                grade.extra_credit = given.get("extra_credit")
                grade.needs_manual_grade = bool(
                    (grade.manual_score is None and grade.auto_score is None)
                    or (attention and grade.manual_score is None))
            for comment in nb.comments:
                given = mine.get(self.key(nb.name, comment.name, fingerprints.get(comment.name, "")), {})
                comment.manual_comment = given.get("manual_comment")
        gb.db.commit()

    def remove_student(self, student: str) -> int:
        gone = [k for k in self.data if k.split("/", 1)[0] == student]
        for k in gone:
            del self.data[k]
        self.changed = self.changed or bool(gone)
        return len(gone)

    def save(self) -> None:
        if self.changed:
            _write_json(self.path, self.data)
            self.changed = False


class TermState:
    """Which result and version the gradebook shows for each submission (see the module)."""

    def __init__(self, layout: CourseLayout) -> None:
        self.path = layout.root / _STATE_DIR / "term.json"
        self.data: dict[str, dict[str, Any]] = _read_json(self.path, {})

    def get(self, student: str, assignment: str) -> dict[str, Any]:
        return self.data.get(f"{student}/{assignment}", {})

    def set(self, student: str, assignment: str, value: dict[str, Any]) -> None:
        self.data[f"{student}/{assignment}"] = value

    def drop(self, student: str, assignment: str | None = None) -> None:
        for k in list(self.data):
            s, _, a = k.partition("/")
            if s == student and (assignment is None or a == assignment):
                del self.data[k]

    def save(self) -> None:
        _write_json(self.path, self.data)


def forget_student(layout: CourseLayout, student: str) -> list[str]:
    """Remove the results, hand grades and state kept for a student who left; what went."""
    said = []
    if ResultStore(layout).remove_student(student) is not None:
        said.append("their graded results kept by the term (autograded/.course-grading/results/)")
    hand = HandGrades(layout)
    if hand.remove_student(student):
        said.append("their hand grades kept by answer (autograded/.course-grading/hand-grades.json)")
        hand.save()
    state = TermState(layout)
    if state.path.exists():
        state.drop(student)
        state.save()
    return said
