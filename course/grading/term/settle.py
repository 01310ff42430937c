"""Bringing every grade up to date without running code: :class:`TermBook`.

A submission's grade is a function of the rules alone (docs/instructor/term.md):

* its **code-run inputs** (:mod:`.inputs`) decide its autograded result -- kept by its grading
  key (:class:`~.store.ResultStore`) once ``autograde`` has graded it;
* the **term's rules** decide the rest, computed here each time, never stored at grading time:
  which version counts (:func:`~.policies.choose_version`), the hand grades of its answers
  (:class:`~.store.HandGrades`), the student's own due date (:mod:`.extensions`) and the late
  penalty on the chosen base (:func:`~.policies.submission_grade`).

:meth:`TermBook.settle` does this for each submission: it reads the hand grades given since
(the formgrader writes them to the gradebook), chooses the version, restores its result into
the gradebook and ``autograded/`` if another is shown, puts the hand grades of its answers
back, writes the late penalty where nbgrader's feedback reads it, and returns the grade.
A submission whose result is missing -- a new version, or a test, the secret or the course's
code changed since it was graded -- is **out of date**: nothing is restored for it, and the
grades and feedback say so until ``make autograde`` grades it.  ``autograde``, ``grades``,
``feedback`` and ``extension`` call it; it never runs a student's code.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .course_dir import CourseLayout, course_config, course_layout, gradebook
from .dates import utc_text
from .extensions import Extension, extension_for, student_due, sync_nbgrader_extension
from .inputs import GradingInputs, assignment_inputs, config_digest, course_code, describe_changes, secret_digest
from .policies import CellGrade, SubmissionGrade, TermPolicy, choose_version, late_rule, notebook_penalties, \
    submission_grade
from .store import HandGrades, Result, ResultStore, TermState
from .versions import Version, keep_version, materialise, versions

__all__ = ["TermBook", "Settled", "settle_course"]


@dataclass
class Settled:
    """A submission's grade under the term's rules, as :meth:`TermBook.settle` found it."""

    student: str
    assignment: str
    status: str
    """The grading report's status (``graded``, ``needs attention``, ``failed``, ``grading``), or
    ``out of date`` / ``not graded`` (its result is missing: ``reason`` says why)."""
    reason: str = ""
    grade: SubmissionGrade | None = None
    timestamp: _dt.datetime | None = None
    due: _dt.datetime | None = None
    """The student's own due date."""
    extension: Extension | None = None
    version: Version | None = None
    versions: int = 0
    sandboxed: bool = True
    needs_manual_grade: bool = False
    recomputed: list[str] = field(default_factory=list)
    """What changed in its total since it was last settled, without a regrade (for the console)."""

    @property
    def graded(self) -> bool:
        from .results.report import GRADED

        return self.status in GRADED and self.grade is not None


class TermBook:
    """The term's bookkeeping for one command (see the module)."""

    def __init__(self, layout: CourseLayout, *, log: Any = None, config=None) -> None:
        from .results.report import read_report

        self.layout = layout
        self.config = config if config is not None else course_config(layout.root)
        self.policy = TermPolicy(config=self.config)
        self.rule = late_rule(self.config)
        self.log = log
        self.results = ResultStore(layout)
        self.hand = HandGrades(layout)
        self.state = TermState(layout)
        self.fresh: dict[tuple[str, str], tuple[str, str]] = {}
        """``{(student, assignment): (key, version)}`` of results graded by this run and kept, which
        the gradebook and ``autograded/`` show already (:meth:`settle` need not restore them)."""
        self.report = read_report(layout)
        self.report_changed: set[str] = set()
        """Keys of the report's entries changed here (written by :meth:`save`, only those)."""
        self._assignments: dict[str, dict[str, str]] = {}
        self._common: dict[str, str] | None = None
        self.managed = layout.submitted == course_layout(layout.root).submitted
        """The submissions folder is the course's own: versions are kept and chosen there."""

    # ------------------------------------------------------------------ inputs
    def common(self) -> dict[str, str]:
        if self._common is None:
            from ..job.sandboxed import course_secret

            self._common = {"secret": secret_digest(course_secret(self.layout.root)), "code": course_code(),
                            "config": config_digest(self.config)}
        return self._common

    def inputs(self, gb, assignment: str, files: str, limits: dict | None = None) -> GradingInputs:
        """The grading inputs of a submission of ``assignment`` whose files hash to ``files``."""
        if assignment not in self._assignments:
            self._assignments[assignment] = assignment_inputs(gb, self.layout, assignment)
        return GradingInputs({"files": files, **self._assignments[assignment], **self.common()},
                             dict(limits or {}))

    def rules_digest(self) -> str:
        """The late rule and the term's policy, as one digest (a change recomputes totals)."""
        sections = {name: dict(self.config[name]) for name in ("AssignLatePenalties", "TermPolicy")
                    if name in self.config}
        rule = type(self.rule)
        sections["rule"] = f"{rule.__module__}.{rule.__qualname__}"
        sections["rule_settings"] = {k: getattr(self.rule, k) for k in sorted(self.rule.trait_names())
                                     if self.rule.trait_metadata(k, "config")}
        return hashlib.sha256(json.dumps(sections, sort_keys=True, default=repr).encode()).hexdigest()

    # ------------------------------------------------------------------ submissions
    def pairs(self, gb, assignments: list[str] | None = None, student: str | None = None) -> list[tuple[str, str]]:
        """Every (student, assignment) the course knows: submissions, versions, report entries."""
        from .intake.submissions import valid_ids

        wanted = set(assignments) if assignments is not None else set(self.layout.assignments())
        found: set[tuple[str, str]] = set()
        for entry in self.report.values():
            if isinstance(entry.get("student"), str) and entry.get("assignment") in wanted:
                found.add((entry["student"], entry["assignment"]))
        store = self.layout.root / "versions"
        for folder in store.glob("*/*") if store.is_dir() else []:
            if folder.is_dir() and folder.name in wanted:
                found.add((folder.parent.name, folder.name))
        for name in wanted:
            try:
                subs = gb.find_assignment(name).submissions
            except Exception:  # noqa: BLE001 - MissingEntry: not in the gradebook yet
                continue
            found.update((sub.student.id, name) for sub in subs)
        if self.layout.submitted.is_dir():
            from .intake.roster import course_roster

            roster = course_roster(self.layout.root)     # a folder of no student is refused, not graded
            for folder in self.layout.submitted.glob("*/*"):
                if folder.is_dir() and not folder.name.startswith(".") and folder.name in wanted \
                        and (roster is None or folder.parent.name in roster):
                    found.add((folder.parent.name, folder.name))
        ok, _ = valid_ids(sorted({s for s, _ in found}))
        return sorted(p for p in found if p[0] in ok and (student is None or p[0] == student))

    def sync(self, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """Keep every submitted folder's content as a version; ``{pair: "kept" | "refused" | "absent"}``.

        A folder that may not be graded (not on the roster, links, special files) is left as it
        is, for ``autograde`` to name.
        """
        from .intake.roster import course_roster
        from .intake.student_ids import InvalidStudentId, check_student_id
        from .intake.submissions import check_submission

        seen: dict[tuple[str, str], str] = {}
        if not self.managed:
            return seen
        roster = course_roster(self.layout.root)
        for student, assignment in pairs:
            try:
                check_student_id(student, roster=roster)
            except InvalidStudentId:
                seen[(student, assignment)] = "refused"
                continue
            folder = self.layout.submitted / student / assignment
            if not (folder.exists() or folder.is_symlink()):
                seen[(student, assignment)] = "absent"
                continue
            if (self.layout.submitted / student).is_symlink() or check_submission(folder) is not None:
                seen[(student, assignment)] = "refused"
                continue
            try:
                keep_version(self.layout.root, student, assignment, folder,
                             handed_in=self._changed_since_filled(student, assignment, folder))
                seen[(student, assignment)] = "kept"
            except Exception:  # noqa: BLE001 - UnsafeSubmission, OSError: autograde names it
                seen[(student, assignment)] = "refused"
        return seen

    def _changed_since_filled(self, student: str, assignment: str, folder: Path) -> bool:
        """Whether ``folder`` differs from the version the term last put there: then whatever is
        in it was handed in (collected, or edited by hand) after that version, and is the latest
        even if an earlier version had the same content (an edit undone: A, B, then A again)."""
        from .versions import content_sha

        entry = self.state.get(student, assignment)
        shown = entry.get("filled") or entry.get("version")
        if not shown:
            return False
        last = next((v for v in versions(self.layout.root, student, assignment) if v.name == shown), None)
        return last is not None and content_sha(folder) != last.content

    def note_filled(self, student: str, assignment: str, version: Version) -> None:
        """Remember that the term put ``version`` in ``submitted/`` (to grade it, or as the one
        that counts): what is there later and differs from it was handed in after it."""
        entry = dict(self.state.get(student, assignment))
        entry["filled"] = version.name
        self.state.set(student, assignment, entry)

    def harvest(self, gb, student: str, assignment: str) -> None:
        """Read the hand grades given in the formgrader to the answers the gradebook shows."""
        from nbgrader.api import MissingEntry

        from .results.report import GRADED

        shown = self.state.get(student, assignment).get("key")
        entry = self.report.get(f"{student}/{assignment}", {})
        if not shown or entry.get("grading_key") != shown or entry.get("status") not in GRADED:
            return                # the gradebook shows a result whose answers are not known
        result = self.results.get(student, assignment, shown)
        if result is None:
            return
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            return
        self.hand.harvest(sub, result.answers)

    def result_for(self, gb, version: Version) -> tuple[GradingInputs, Result | None]:
        inputs = self.inputs(gb, version.assignment, version.files)
        result = self.results.get(version.student, version.assignment, inputs.key)
        if result is None:
            result = self.adopt(gb, version.student, version.assignment, inputs,
                                self.report.get(f"{version.student}/{version.assignment}", {}))
        return inputs, result

    def adopt(self, gb, student: str, assignment: str, inputs: GradingInputs, entry: dict,
              limits: dict | None = None) -> Result | None:
        """The result a run graded and stopped before keeping (interrupted): the grading report,
        the gradebook and ``autograded/`` show it under this key.  Kept now, or None.

        Without ``limits`` (the run's), only the sandbox is known: such a result is accepted
        under any time limits (:meth:`Result.limits_match`).
        """
        from .results.report import GRADED

        if entry.get("grading_key") != inputs.key or entry.get("status") not in GRADED \
                or not (self.layout.autograded / student / assignment).is_dir():
            return None
        try:
            return self.results.capture(gb, student, assignment, inputs.key, inputs.components,
                                        limits or {"sandboxed": bool(entry.get("sandboxed", True))}, dict(entry))
        except Exception:  # noqa: BLE001 - then it is graded again
            return None

    def why_missing(self, version: Version, inputs: GradingInputs, count: int) -> str:
        """Why ``version`` has no result under ``inputs``, in words."""
        same_files = [r for r in self.results.all(version.student, version.assignment)
                      if r.components.get("files") == version.files]
        which = f"version {version.number} of {count} ({version.when()})" if count > 1 else \
            f"the submission ({version.when()})"
        if not same_files:
            return f"{which} is not graded yet"
        changed = describe_changes(same_files[-1].components, inputs.components, version.assignment)
        return f"{which}: {', '.join(changed) or 'its inputs changed'} since it was graded"

    def grade_of(self, student: str, assignment: str, result: Result, version: Version | None,
                 due: _dt.datetime | None) -> SubmissionGrade:
        return submission_grade(result.cells(self.hand.of(student, assignment)), student=student,
                                timestamp=version.timestamp if version is not None else None, due=due,
                                rule=self.rule, base=self.policy.late_penalty_base)

    def candidates(self, found: list[Version]) -> list[Version]:
        """The versions the policy may choose from (all of them but for ``latest``)."""
        if self.policy.resubmission == "latest":
            return [max(found, key=lambda v: v.sort_key())]
        return list(found)

    def choose(self, gb, student: str, assignment: str, found: list[Version],
               due: _dt.datetime | None) -> tuple[Version, dict[str, tuple[GradingInputs, Result | None]]]:
        """The version that counts, and each candidate's inputs and result."""
        results = {v.name: self.result_for(gb, v) for v in self.candidates(found)}
        scores = None
        if self.policy.resubmission == "best":
            scores = {}
            for v in found:
                _, result = results[v.name]
                scores[v.name] = self.grade_of(student, assignment, result, v, due).score \
                    if result is not None and result.graded else None
        return choose_version(self.policy.resubmission, [v for v in found if v.name in results] or found,
                              due=due, scores=scores), results

    def penalise(self, gb, sub, grade: SubmissionGrade, cells: list[CellGrade]) -> None:
        """nbgrader's per-notebook late penalty field (its feedback pages show it) = the term's."""
        split = notebook_penalties(cells, grade, self.policy.late_penalty_base)
        for nb in sub.notebooks:
            value = split.get(nb.name, 0.0) or None
            if nb.late_submission_penalty != value:
                nb.late_submission_penalty = value
        gb.db.commit()

    def due(self, gb, student: str, assignment: str) -> _dt.datetime | None:
        """The student's own due date for the assignment (None: nobody is late)."""
        from nbgrader.api import MissingEntry

        try:
            assignment_due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None
        return student_due(assignment_due, extension_for(gb, student, assignment))

    def settle(self, gb, student: str, assignment: str, *, restore: bool = True) -> Settled:
        """Bring one submission's grade up to date without running code (see the module)."""
        from nbgrader.api import MissingEntry

        from .results.report import GRADED

        key = f"{student}/{assignment}"
        entry = self.report.get(key, {})
        try:
            assignment_due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            assignment_due = None
        extension = extension_for(gb, student, assignment)
        due = student_due(assignment_due, extension)
        found = versions(self.layout.root, student, assignment) if self.managed else []
        out = Settled(student, assignment, entry.get("status", "not submitted"), entry.get("reason", ""),
                      due=due, extension=extension, versions=len(found),
                      sandboxed=bool(entry.get("sandboxed", True)))
        try:
            sub = gb.find_submission(assignment, student)
        except MissingEntry:
            sub = None
        if not found:
            return self._settle_unversioned(gb, out, entry, sub)
        if entry.get("status") == "grading":
            return out                # grading of it did not finish: no grade (run autograde)
        chosen, results = self.choose(gb, student, assignment, found, due)
        missing = [v for v in results if results[v][1] is None]
        if missing:
            first = next(v for v in found if v.name in missing)
            out.status = "out of date" if any(r is not None for _, r in results.values()) or entry else "not graded"
            out.reason = self.why_missing(first, results[first.name][0], len(found)) + ": run make autograde"
            return out
        inputs, result = results[chosen.name]
        out.version, out.timestamp = chosen, chosen.timestamp
        out.status, out.reason = result.record.get("status", "graded"), result.record.get("reason", "")
        out.sandboxed = bool(result.record.get("sandboxed", True))
        if restore:
            materialise(self.layout.submitted, chosen)
            self.note_filled(student, assignment, chosen)
            shown = self.state.get(student, assignment)
            if self.fresh.get((student, assignment)) == (result.key, chosen.name):
                shown = {"key": result.key, "version": chosen.name}     # just graded: shown
            if (shown.get("key") != result.key or shown.get("version") != chosen.name
                    or entry.get("grading_key") != result.key
                    or not (self.layout.autograded / student / assignment).is_dir()):
                self.results.restore(gb, result, chosen)
                record = dict(result.record, grading_key=result.key)
                if self.report.get(key) != record:
                    self.report[key] = record
                    self.report_changed.add(key)
        if result.record.get("status") not in GRADED:
            return out
        grade = self.grade_of(student, assignment, result, chosen, due)
        out.grade = grade
        out.needs_manual_grade = grade.pending > 0
        if restore:
            try:
                sub = gb.find_submission(assignment, student)
            except MissingEntry:
                sub = None
            if sub is not None:
                self.hand.apply(gb, sub, result.answers, attention=out.status == "needs attention")
                self.penalise(gb, sub, grade, result.cells(self.hand.of(student, assignment)))
                sync_nbgrader_extension(gb, student, assignment)
            totals = {"version": chosen.name, "due": utc_text(due), "rules": self.rules_digest(),
                      "hand": hashlib.sha256(json.dumps(self.hand.of(student, assignment), sort_keys=True)
                                             .encode()).hexdigest(),
                      "score": round(grade.score, 6), "penalty": round(grade.penalty, 6)}
            scores = {"score": grade.score, "max_score": grade.max_score, "late_penalty": grade.penalty,
                      "hand_points_pending": grade.pending, "needs_manual_grade": grade.pending > 0}
            entry = self.report.get(key)
            if entry is not None and any(entry.get(k) != v for k, v in scores.items()):
                entry.update(scores)          # the report's record says what grades.csv says
                self.report_changed.add(key)
            before = self.state.get(student, assignment)
            if before.get("key") == result.key and before.get("totals") \
                    and before["totals"].get("score") != totals["score"]:
                out.recomputed = _what_changed(before["totals"], totals, chosen, extension, found)
            self.state.set(student, assignment, {"key": result.key, "version": chosen.name, "totals": totals,
                                                 "filled": chosen.name})
        return out

    def _settle_unversioned(self, gb, out: Settled, entry: dict, sub) -> Settled:
        """A submission graded from another folder than the course's (or before versions were
        kept): its grade is the gradebook's, with the late penalty of the term's rule."""
        from .results.report import GRADED

        if sub is None or (entry and entry.get("status") not in GRADED):
            return out
        if not entry:
            out.status = "graded"
        cells = [CellGrade(nb.name, g.name, float(g.max_score or 0.0),
                           g.name not in {c.name for c in nb.notebook.solution_cells} and g.cell_type == "code",
                           auto_score=g.auto_score, manual_score=g.manual_score, extra_credit=g.extra_credit)
                 for nb in sub.notebooks for g in nb.grades]
        out.timestamp = sub.timestamp
        out.grade = submission_grade(cells, student=out.student, timestamp=sub.timestamp, due=out.due,
                                     rule=self.rule, base=self.policy.late_penalty_base)
        out.needs_manual_grade = bool(sub.needs_manual_grade)
        self.penalise(gb, sub, out.grade, cells)
        return out

    def settle_all(self, pairs: list[tuple[str, str]] | None = None, *, assignments: list[str] | None = None,
                   restore: bool = True) -> dict[tuple[str, str], Settled]:
        """:meth:`settle` every submission (or those of ``pairs``); saves what changed."""
        done: dict[tuple[str, str], Settled] = {}
        with gradebook(self.layout) as gb, one_commit(gb):
            if pairs is None:
                pairs = self.pairs(gb, assignments)
            # read at once, and kept alive while the class is settled
            known = known_rows(gb, sorted({a for _, a in pairs}))
            seen = self.sync(pairs) if restore else {}
            for student, assignment in pairs:
                self.harvest(gb, student, assignment)
            with answered_from(gb, known):
                for pair in pairs:
                    # a folder autograde refuses (links, not on the roster) is left as it is
                    done[pair] = self.settle(gb, *pair, restore=restore and seen.get(pair) != "refused")
        if restore:
            self.save()
        return done

    def save(self) -> None:
        from .results.report import update_report

        self.hand.save()
        self.state.save()
        if self.report_changed:
            update_report(self.layout, {k: self.report[k] for k in sorted(self.report_changed)})
            self.report_changed = set()


def known_rows(gb, assignments: list[str]) -> list:
    """The gradebook's cells, notebooks, assignments, students and submissions (with their
    notebooks' grades and comments), read in a few queries.

    Settling a submission reads each of its grades' and comments' cell, its student, its
    assignment, its notebooks and their grades and comments: a query each (about 35 a
    submission), unless they are in the session already, where SQLAlchemy finds them without a
    query.  The rows are the same; they are only read sooner, once (settling a class of 504
    submissions: 5.0 -> 1.9 s of CPU).  The session holds them weakly: the caller keeps the list
    while it settles.  ``assignments``: the submissions of these are read (the others'
    are not needed: a course's whole gradebook may be large).
    """
    from nbgrader.api import Assignment, BaseCell, Notebook, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import selectinload

    rows = [row for model in (BaseCell, Notebook, Assignment, Student) for row in gb.db.query(model).all()]
    notebooks = selectinload(SubmittedAssignment.notebooks)
    rows += gb.db.query(SubmittedAssignment).join(SubmittedAssignment.assignment).filter(
        Assignment.name.in_(assignments)).options(
        notebooks.selectinload(SubmittedNotebook.grades),
        notebooks.selectinload(SubmittedNotebook.comments)).all()
    return rows


@contextlib.contextmanager
def answered_from(gb, rows: list):
    """Inside, ``gb.find_submission``, ``gb.find_assignment`` and the course's extensions
    (:func:`.extensions.extension_for`) are answered from ``rows`` (:func:`known_rows`) and one
    read of the extensions' table, without a query each; what is not among them is asked as
    before (and a missing one raises ``MissingEntry`` as before).

    For a stretch of work that adds or removes no submission, assignment or extension (keeping
    results, settling): the objects are the session's own, the ones the queries would return.
    Settling a class asked each of these a few times per submission, in the run's last,
    serial, part.
    """
    from nbgrader.api import Assignment, SubmittedAssignment

    from .extensions import known_extensions

    submissions = {(r.assignment.name, r.student.id): r for r in rows if isinstance(r, SubmittedAssignment)}
    assignments = {r.name: r for r in rows if isinstance(r, Assignment)}
    real_submission, real_assignment = gb.find_submission, gb.find_assignment

    def find_submission(assignment, student):
        found = submissions.get((assignment, student)) if type(assignment) is str else None
        return found if found is not None else real_submission(assignment, student)

    def find_assignment(assignment):
        found = assignments.get(assignment) if type(assignment) is str else None
        return found if found is not None else real_assignment(assignment)

    gb.find_submission, gb.find_assignment = find_submission, find_assignment
    try:
        with known_extensions(gb):
            yield
    finally:
        del gb.find_submission, gb.find_assignment


@contextlib.contextmanager
def one_commit(gb):
    """Inside, the gradebook's commits only flush; one commit at the end (none if it raised).

    Settling a class writes a few rows per submission, and each commit of SQLite writes and
    syncs its journal and the file (measured: 9-17 ms a commit on this course's machines, two
    or three commits per submission before).  Nothing inside reads the gradebook through
    another connection, so it sees the same rows; an error rolls every change back, and the
    next ``autograde`` or ``grades`` settles again.
    """
    db = gb.db
    db.commit = db.flush
    try:
        yield gb
    except BaseException:
        del db.commit
        db.rollback()
        raise
    del db.commit
    db.commit()


def _what_changed(before: dict, after: dict, version: Version, extension: Extension | None,
                  found: list[Version]) -> list[str]:
    said = []
    if before.get("version") != after["version"]:
        said.append(f"version {version.number} of {len(found)} ({version.when()}) counts now")
    if before.get("due") != after["due"]:
        said.append(f"due {after['due'] or 'never'}"
                    + (f" (extension {extension.describe()})" if extension is not None else ""))
    if before.get("rules") != after["rules"]:
        said.append("the late rule or resubmission policy changed")
    if before.get("hand") != after["hand"]:
        said.append("hand grades changed")
    return said or ["recomputed"]


def settle_course(root: str | Path = ".", *, assignments: list[str] | None = None, log: Any = None
           ) -> dict[tuple[str, str], Settled]:
    """Settle every submission of the course (``grades``, ``feedback`` and ``extension`` call it)."""
    book = TermBook(course_layout(root), log=log)
    return book.settle_all(assignments=assignments)
