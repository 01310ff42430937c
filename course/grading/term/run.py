"""What ``autograde`` grades, and what it keeps: :class:`TermRun`.

``autograde`` calls it at three points and nowhere else:

1. :meth:`TermRun.start` -- before anything is staged: every submitted folder is kept as a
   version (:mod:`.versions`), the hand grades given since are read, and for each submission
   the version to grade in this pass is put in ``submitted/`` (one not graded yet under the
   current inputs, else the one that counts);
2. :meth:`TermRun.reuse` -- for each staged submission: its grading key (:mod:`.inputs`); a
   result graded before under the same inputs is kept or restored (no code runs), otherwise
   the console says why it is graded ("grading: hidden tests of a1_minimax changed");
3. :meth:`TermRun.finish` -- after the workers: the new results are kept by their key; if a
   student has more versions still to grade, another pass grades them (``autograde`` again,
   with this run); then every grade is settled (:mod:`.settle`) and the totals that changed
   without a regrade are named.

Every version is graded once, so changing the resubmission policy, a due date, an extension,
the late rule or a hand grade never runs code.
"""

from __future__ import annotations

import contextlib

from dataclasses import asdict
from typing import Any, Callable

from .course_dir import CourseLayout, gradebook, pick_assignments
from .settle import TermBook
from .versions import Version, content_sha, files_sha, materialise, read_timestamp, versions

__all__ = ["TermRun"]

#: Passes one ``autograde`` makes at most (a student with more new versions than this since the
#: last run has the rest graded by the next run).
MAX_PASSES = 20
#: Why a submission never graded is graded (not said: the first run grades everything).
FIRST = "not graded before"


class TermRun:
    """The term's side of one ``autograde`` run (see the module)."""

    def __init__(self, layout: CourseLayout, *, assignment: str | None, student: str | None,
                 regrade: bool, limits: dict[str, Any], log: Any = None) -> None:
        self.layout = layout
        self.book = TermBook(layout, log=log)
        self.assignments = pick_assignments(layout, assignment)
        self.student = student
        self.regrade = regrade
        self.limits = dict(limits)
        self.log = log
        self.passes = 0
        self.selected: list[tuple[str, str]] = []
        self.todo: set[tuple[str, str]] = set()
        self.plan: dict[tuple[str, str], Version] = {}
        self.inputs: dict[tuple[str, str], Any] = {}
        self.kept: set[tuple[str, str]] = set()
        self.attempted: set[tuple[str, str, str]] = set()
        self.regraded: set[str] = set()
        self._staging_gb: Any = None          # the gradebook opened for staging (staging())
        self.shown: dict[tuple[str, str], float] = {}

    # ------------------------------------------------------------------ 1. before staging
    def _needs_grading(self, gb, version: Version) -> bool:
        if (version.student, version.assignment, version.content) in self.attempted:
            return False
        inputs, result = self.book.result_for(gb, version)
        if self.regrade and inputs.key not in self.regraded:
            return True
        return result is None or not result.graded or not result.limits_match(self.limits)

    def start(self) -> None:
        """Keep the versions, read the hand grades, and put in ``submitted/`` what this pass grades.

        Raises
        ------
        WorkflowError
            If ``solutions/`` differs from what was released (a test edited, points changed,
            and ``make release`` not run): grading would use the released tests.
        """
        from .course_dir import WorkflowError
        from .release import ensure_in_gradebook
        from .inputs import unreleased_changes
        from .policies import choose_version

        self.plan.clear()
        self.kept.clear()
        self.inputs.clear()
        if self.passes == 0:
            with gradebook(self.layout) as gb:
                pairs = self.book.pairs(gb, self.assignments, self.student)
            ensure_in_gradebook(self.layout, sorted({a for _, a in pairs}))
            with gradebook(self.layout) as gb:
                for name in sorted({a for _, a in pairs}):
                    stale = unreleased_changes(gb, self.layout, name)
                    if stale:
                        raise WorkflowError(
                            f"solutions/{name} changed since it was released ({'; '.join(stale[:3])}"
                            f"{'; …' if len(stale) > 3 else ''}): run make release (python -m "
                            "course.grading release), then autograde")
                seen = self.book.sync(pairs)
                for pair in pairs:
                    self.book.harvest(gb, *pair)
            self.book.save()
            self.selected = [p for p in pairs if seen.get(p) != "refused"]
        todo = set()
        with gradebook(self.layout) as gb:
            for student, assignment in self.selected:
                found = versions(self.layout.root, student, assignment) if self.book.managed else []
                if not found:
                    if self.passes == 0:
                        todo.add((student, assignment))     # graded as it is (not kept as versions)
                    continue
                pending = [v for v in found if self._needs_grading(gb, v)]
                if not pending and self.passes > 0:
                    continue
                due = self.book.due(gb, student, assignment)
                if pending and self.book.policy.resubmission != "best":
                    # the one likely to count last, so that the last pass leaves it in submitted/
                    last = choose_version(self.book.policy.resubmission, found, due=due)
                    pending.sort(key=lambda v: v.name == last.name)
                version = pending[0] if pending else self.book.choose(gb, student, assignment, found, due)[0]
                materialise(self.layout.submitted, version)
                self.book.note_filled(student, assignment, version)
                self.plan[(student, assignment)] = version
                todo.add((student, assignment))
        self.book.state.save()           # what the term put in submitted/, before it is graded
        self.todo = todo
        self.passes += 1

    def wanted(self, student: str, assignment: str) -> bool:
        """Whether this pass grades (or keeps) the submission."""
        return (student, assignment) in self.todo

    # ------------------------------------------------------------------ 2. each staged submission
    @contextlib.contextmanager
    def staging(self):
        """While the submissions are staged (no worker runs), :meth:`reuse` asks one gradebook
        instead of opening its own for each submission (an opening reads the database's tables
        and the course's row: a few milliseconds, 504 times in a class)."""
        with gradebook(self.layout) as gb:
            self._staging_gb = gb
            try:
                yield
            finally:
                self._staging_gb = None

    @contextlib.contextmanager
    def _gradebook(self):
        gb = self._staging_gb
        if gb is None:
            with gradebook(self.layout) as gb:
                yield gb
            return
        try:
            yield gb
        finally:
            # as a gradebook of its own would be closed: what was not committed is dropped, no
            # transaction stays open (nor its lock), and the next submission reads afresh
            gb.db.rollback()

    def reuse(self, student: str, assignment: str, record, before: dict) -> tuple[Any, str]:
        """``(kept record, note)`` if a result graded under the same inputs can stand, else
        ``(None, "")`` after saying why it is graded.  Sets ``record.grading_key``."""
        from .results.report import GRADED, GradeRecord, fill_scores

        pair = (student, assignment)
        folder = self.layout.submitted / student / assignment
        version = self.plan.get(pair) or Version(student, assignment, 0, "", folder, read_timestamp(folder),
                                                 files_sha(folder), content_sha(folder))
        self.attempted.add((student, assignment, version.content))
        with self._gradebook() as gb:
            inputs = self.book.inputs(gb, assignment, version.files, self.limits)
            record.grading_key = inputs.key
            self.inputs[pair] = inputs
            result = self.book.results.get(student, assignment, inputs.key)
            if result is None and not self.regrade:
                # graded by a run that stopped before keeping its results
                result = self.book.adopt(gb, student, assignment, inputs, before, self.limits)
            fresh = self.regrade and inputs.key not in self.regraded
            if result is not None and result.graded and result.limits_match(self.limits) and not fresh:
                shown = self.book.state.get(student, assignment)
                if before.get("grading_key") == inputs.key and before.get("status") in GRADED \
                        and (self.layout.autograded / student / assignment).is_dir():
                    note = f"unchanged since {result.record.get('graded_at', '?')}: kept"
                else:
                    self.book.results.restore(gb, result, version)
                    note = (f"graded on {result.record.get('graded_at', '?')} with the same inputs: "
                            "restored, no code run")
                sub = gb.find_submission(assignment, student)
                if version.number and sub.timestamp != version.timestamp:
                    sub.timestamp = version.timestamp     # the same files, handed in at another time
                self.book.hand.apply(gb, sub, result.answers, attention=result.record.get("status") == "needs attention")
                due = self.book.due(gb, student, assignment)
                grade = self.book.grade_of(student, assignment, result, version, due)
                self.book.penalise(gb, sub, grade, result.cells(self.book.hand.of(student, assignment)))
                self.book.state.set(student, assignment, {"key": inputs.key, "version": version.name,
                                                          "totals": shown.get("totals") if shown.get("key") == inputs.key else None})
                kept = GradeRecord(**{k: v for k, v in result.record.items() if k in GradeRecord.__dataclass_fields__})
                kept.grading_key = inputs.key
                self.kept.add(pair)
                fill_scores(self.layout, kept)
                self.shown[pair] = kept.score
                return kept, note
            why = self._why(student, assignment, version, inputs, result, fresh)
            try:
                self._clear_penalty(gb, gb.find_submission(assignment, student))
            except Exception:  # noqa: BLE001 - MissingEntry: not graded before
                pass
        if self.log is not None and why != FIRST:
            self.log(f"{student:<20} {assignment:<16} grading: {why}")
        return None, ""

    @staticmethod
    def _clear_penalty(gb, sub) -> None:
        """The console line of a submission being graded shows its points before the late penalty
        (computed after grading, with the hand grades, by :mod:`.settle`)."""
        for nb in sub.notebooks:
            nb.late_submission_penalty = None
        gb.db.commit()

    def _why(self, student: str, assignment: str, version: Version, inputs, result, fresh: bool) -> str:
        from .inputs import describe_changes

        if fresh:
            return "--regrade"
        if result is not None and not result.graded:
            return f"it could not be graded before ({result.record.get('reason') or result.record.get('status')}): trying again"
        if result is not None:
            return "the time limits or the sandbox changed"
        others = self.book.results.all(student, assignment)
        same = [r for r in others if r.components.get("files") == version.files]
        if same:
            return ", ".join(describe_changes(same[-1].components, inputs.components, assignment)) or "its inputs changed"
        count = len(versions(self.layout.root, student, assignment)) if self.book.managed else 0
        if others or count > 1:
            which = f"version {version.number} of {count}" if version.number else "the submission"
            return f"{which} ({version.when()}) is new"
        return FIRST

    # ------------------------------------------------------------------ 3. after the workers
    def finish(self, records: list, again: Callable[["TermRun"], list]) -> list:
        """Keep the new results, grade the remaining versions, settle; the records of the run."""
        from .results.report import GRADED, GradeRecord, read_report

        from .settle import answered_from, known_rows

        with gradebook(self.layout) as gb, contextlib.ExitStack() as stack:
            # read at once, and kept alive while the results are kept
            known = known_rows(gb, sorted({r.assignment for r in records}))
            stack.enter_context(answered_from(gb, known))
            for record in records:
                pair = (record.student, record.assignment)
                self.book.fresh.pop(pair, None)     # what the gradebook shows is this run's now
                inputs = self.inputs.get(pair)
                if pair in self.kept or inputs is None or record.grading_key != inputs.key \
                        or record.status == "grading":
                    continue
                try:
                    self.book.results.capture(gb, record.student, record.assignment, inputs.key,
                                              inputs.components, self.limits, asdict(record))
                    version = self.plan.get(pair)
                    if version is not None:
                        # the gradebook and autograded/ show what was just kept: settling
                        # restores it only if another version or result is to count
                        self.book.fresh[pair] = (inputs.key, version.name)
                except Exception as exc:  # noqa: BLE001 - not kept: graded again next time
                    if self.log is not None:
                        self.log(f"WARNING: the result of {record.student}/{record.assignment} could not "
                                 f"be kept ({type(exc).__name__}: {exc}); the next run grades it again")
                self.regraded.add(inputs.key)
                self.shown[pair] = record.score
            more = self.passes < MAX_PASSES and self.book.managed and any(
                self._needs_grading(gb, v) for s, a in self.selected for v in versions(self.layout.root, s, a))
        self.book.state.save()
        if more:
            return again(self)
        self.book.report = read_report(self.layout)
        settled = self.book.settle_all(self.selected)
        with gradebook(self.layout) as gb:        # results of older inputs: a few are kept
            for student, assignment in self.selected:
                current = {self.book.result_for(gb, v)[0].key for v in versions(self.layout.root, student, assignment)}
                self.book.results.prune(student, assignment, current)
        final = []
        for pair in self.selected:
            entry = self.book.report.get(f"{pair[0]}/{pair[1]}")
            if entry is None:
                continue
            record = GradeRecord(**{k: v for k, v in entry.items() if k in GradeRecord.__dataclass_fields__})
            done = settled.get(pair)
            if done is not None and done.grade is not None and record.status in GRADED:
                g = done.grade
                record.score, record.max_score, record.late_penalty = g.score, g.max_score, g.penalty
                record.hand_points_pending, record.needs_manual_grade = g.pending, g.pending > 0
                self._say(record, done)
            elif done is not None and done.status in ("out of date", "not graded"):
                record.status, record.reason = "failed", done.reason
            final.append(record)
        return final

    def _say(self, record, done) -> None:
        """A line for a total that differs from the one printed while grading (late penalty,
        another version, hand grades): what counts, and why."""
        from .results.report import describe_record

        if self.log is None:
            return
        before = self.shown.get((record.student, record.assignment))
        why = list(done.recomputed)
        if done.grade.penalty:
            why.append(f"{done.grade.seconds_late / 3600:.1f} h late (due {done.due.isoformat(sep=' ', timespec='minutes')} UTC)")
        if done.version is not None and done.versions > 1:
            why.append(f"version {done.version.number} of {done.versions} ({done.version.when()}) counts "
                       f"({self.book.policy.resubmission})")
        if before is not None and abs(before - record.score) < 1e-9 and not done.recomputed:
            return
        if not why:
            return
        self.log(f"{describe_record(record)}  [{'; '.join(why)}]")
