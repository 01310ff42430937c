"""The term's rules: the late penalty, what it is taken from, and which version is graded.

Set in ``nbgrader_config.py`` (then ``make approve-config``)::

    c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"   # the late rule
    c.PercentPerDay.percent_per_day = 10     # 10 % per day or part of a day late
    c.TermPolicy.late_penalty_base = "all"   # or "autograded"
    c.TermPolicy.resubmission = "latest"     # or "latest-before-due", "best"

**The late penalty** is computed whenever grades or feedback are written
(:func:`submission_grade`), never stored at autograde time: from the score *as it stands*
(hand grades included), the student's own due date (:mod:`.extensions`) and the rule.  So
``grades.csv`` is the same whatever the order of autograding, hand grading, extensions and
resubmissions.  The rule is any nbgrader late-submission plugin (``AssignLatePenalties.plugin_class``:
nbgrader's own ``LateSubmissionPlugin`` with ``penalty_method = "zero"`` works too); it is given
the **base**:

* ``"all"`` (the default): every point of the submission, the hand-graded ones included;
* ``"autograded"``: only the points of the autograded tests; hand-graded points are never reduced.

The penalty is at most the base and never negative.

**Resubmissions**: every version a student hands in is kept (:mod:`.versions`) and graded
once; the policy chooses the one that counts:

* ``"latest"`` (the default): the last one handed in;
* ``"latest-before-due"``: the last one handed in by the student's own due date; if none was
  on time, the last one;
* ``"best"``: the one with the highest score after its late penalty (hand grades given so far
  count; an answer not yet graded by hand counts 0; a version that could not be graded
  counts 0); on a tie, the later one.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Enum, Float
from traitlets.config import LoggingConfigurable

from .course_dir import WorkflowError

__all__ = ["TermPolicy", "PercentPerDay", "CellGrade", "SubmissionGrade", "submission_grade",
           "choose_version", "late_rule", "notebook_penalties", "RESUBMISSION_POLICIES", "PENALTY_BASES"]

RESUBMISSION_POLICIES = ("latest", "latest-before-due", "best")
PENALTY_BASES = ("all", "autograded")


class TermPolicy(LoggingConfigurable):
    """The term's settings in ``nbgrader_config.py`` (``c.TermPolicy.…``): see the module."""

    resubmission = Enum(RESUBMISSION_POLICIES, default_value="latest",
                        help="Which of a student's versions counts: the latest, the latest "
                             "handed in by their due date, or the best.").tag(config=True)
    late_penalty_base = Enum(PENALTY_BASES, default_value="all",
                             help="What the late penalty is taken from: all points (hand-graded "
                                  "included) or the autograded points only.").tag(config=True)


class PercentPerDay(LateSubmissionPlugin):
    """A late penalty: ``percent_per_day`` of the base for each day or part of a day late.

    Chosen in ``nbgrader_config.py`` (then ``make approve-config``)::

        c.AssignLatePenalties.plugin_class = "course.grading.term.PercentPerDay"
        c.PercentPerDay.percent_per_day = 10      # 10 % of the score per day late
        c.PercentPerDay.grace_minutes = 15        # up to 15 minutes late: no penalty
        c.PercentPerDay.max_percent = 50          # never more than half the score

    Examples
    --------
    >>> plugin = PercentPerDay(percent_per_day=10, grace_minutes=15, max_percent=50)
    >>> plugin.late_submission_penalty("ada", 8.0, 10 * 60)        # in the grace period
    0.0
    >>> plugin.late_submission_penalty("ada", 8.0, 3600)           # one (started) day late
    0.8
    >>> plugin.late_submission_penalty("ada", 8.0, 30 * 86400)     # capped at 50 %
    4.0
    """

    percent_per_day = Float(10.0, help="Percent of the score taken per day (or part of a day) late.").tag(config=True)
    grace_minutes = Float(0.0, help="Minutes late without a penalty.").tag(config=True)
    max_percent = Float(100.0, help="The most percent of the score taken.").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        if total_seconds_late <= self.grace_minutes * 60:
            return 0.0
        days = math.ceil(total_seconds_late / 86400)
        percent = min(self.max_percent, self.percent_per_day * days)
        return round(score * percent / 100, 6)


def late_rule(config) -> Any:
    """The late-submission plugin ``nbgrader_config.py`` names (nbgrader's default: no penalty).

    Raises
    ------
    WorkflowError
        If the class it names cannot be imported or is not a late-submission plugin.
    """
    from traitlets.utils.importstring import import_item

    name = config.AssignLatePenalties.get("plugin_class", LateSubmissionPlugin) \
        if "AssignLatePenalties" in config else LateSubmissionPlugin
    try:
        cls = import_item(name) if isinstance(name, str) else name
    except (ImportError, AttributeError, ValueError) as exc:
        raise WorkflowError(f"nbgrader_config.py: AssignLatePenalties.plugin_class = {name!r} cannot "
                            f"be imported ({exc})") from None
    if not (isinstance(cls, type) and hasattr(cls, "late_submission_penalty")):
        raise WorkflowError(f"nbgrader_config.py: AssignLatePenalties.plugin_class = {name!r} is not a "
                            "late-submission plugin (it needs a late_submission_penalty method)")
    return cls(config=config)


@dataclass(frozen=True)
class CellGrade:
    """One graded cell of a submission, as nbgrader's gradebook holds it."""

    notebook: str
    cell: str
    max_score: float
    autograded: bool
    """A test cell (its points come from the tests), not an answer graded by hand."""
    auto_score: float | None = None
    manual_score: float | None = None
    extra_credit: float | None = None

    @property
    def score(self) -> float:
        """nbgrader's rule: the hand grade if given, else the autograder's, plus any extra credit."""
        if self.manual_score is not None:
            return self.manual_score + (self.extra_credit or 0.0)
        if self.auto_score is not None:
            return self.auto_score + (self.extra_credit or 0.0)
        return 0.0

    @property
    def pending(self) -> bool:
        """Waiting for a hand grade (nothing scored it yet)."""
        return self.manual_score is None and self.auto_score is None


@dataclass(frozen=True)
class SubmissionGrade:
    """A submission's grade under the term's rules (:func:`submission_grade`)."""

    total: float
    """Points before the late penalty."""
    autograded: float
    """Points of the autograded tests (before the penalty)."""
    max_score: float
    pending: float
    """Points of answers still to be graded by hand (in ``max_score``, not in ``total``)."""
    base: float
    """What the penalty was taken from (``total`` or ``autograded``)."""
    seconds_late: float
    penalty: float
    score: float
    """``total - penalty``, never below 0."""


def submission_grade(cells: list[CellGrade], *, student: str, timestamp: _dt.datetime | None,
                     due: _dt.datetime | None, rule: Any, base: str = "all") -> SubmissionGrade:
    """The grade of one submission: its points, and the late penalty on ``base``.

    This is the one definition of a grade's total: ``grades.csv``, feedback, the console and
    the ``best`` resubmission policy all use it.

    Examples
    --------
    >>> from datetime import datetime
    >>> cells = [CellGrade("nb", "test", 9, True, auto_score=9.0),
    ...          CellGrade("nb", "written", 2, False, manual_score=2.0)]
    >>> rule = PercentPerDay(percent_per_day=10)
    >>> late = dict(student="barbara", timestamp=datetime(2026, 12, 2, 18, 15),
    ...             due=datetime(2026, 12, 1, 17), rule=rule)
    >>> submission_grade(cells, **late).score                      # 20 % of 11
    8.8
    >>> submission_grade(cells, **late, base="autograded").score   # 20 % of 9
    9.2
    """
    if base not in PENALTY_BASES:
        raise ValueError(f"base must be one of {PENALTY_BASES}, not {base!r}")
    ordered = sorted(cells, key=lambda c: (c.notebook, c.cell))
    total = sum(c.score for c in ordered)
    autograded = sum(c.score for c in ordered if c.autograded)
    max_score = sum(c.max_score for c in ordered)
    pending = sum(c.max_score for c in ordered if c.pending)
    on = total if base == "all" else autograded
    late = 0.0
    if timestamp is not None and due is not None and timestamp > due:
        late = (timestamp - due).total_seconds()
    penalty = 0.0
    if late > 0 and rule is not None:
        value = rule.late_submission_penalty(student, on, late)
        penalty = min(max(float(value or 0.0), 0.0), max(on, 0.0))
    return SubmissionGrade(total=total, autograded=autograded, max_score=max_score, pending=pending,
                           base=on, seconds_late=late, penalty=penalty, score=max(0.0, total - penalty))


def notebook_penalties(cells: list[CellGrade], grade: SubmissionGrade, base: str) -> dict[str, float]:
    """The penalty shared among the notebooks, in proportion to each one's base (for nbgrader's
    per-notebook field, which its feedback pages show)."""
    parts: dict[str, float] = {}
    for c in cells:
        if base == "all" or c.autograded:
            parts[c.notebook] = parts.get(c.notebook, 0.0) + c.score
        else:
            parts.setdefault(c.notebook, 0.0)
    whole = sum(parts.values())
    if not grade.penalty or whole <= 0:
        return {nb: 0.0 for nb in parts}
    return {nb: grade.penalty * value / whole for nb, value in parts.items()}


def choose_version(policy: str, versions: list, *, due: _dt.datetime | None = None,
                   scores: dict[str, float | None] | None = None):
    """The version that counts under ``policy`` (see the module), or None if there is none.

    Parameters
    ----------
    policy : str
        ``"latest"``, ``"latest-before-due"`` or ``"best"``.
    versions : list of Version
        A student's versions of one assignment (:mod:`.versions`).
    due : datetime, optional
        The student's own due date (for ``latest-before-due``).
    scores : dict, optional
        ``{version name: score after penalty, or None if it could not be graded}`` (for ``best``).

    Examples
    --------
    >>> from datetime import datetime
    >>> from types import SimpleNamespace as V
    >>> on_time = V(name="1", number=1, timestamp=datetime(2026, 12, 1, 9), sort_key=lambda: (datetime(2026, 12, 1, 9), 1))
    >>> late = V(name="2", number=2, timestamp=datetime(2026, 12, 2, 9), sort_key=lambda: (datetime(2026, 12, 2, 9), 2))
    >>> choose_version("latest", [on_time, late]).name
    '2'
    >>> choose_version("latest-before-due", [on_time, late], due=datetime(2026, 12, 1, 17)).name
    '1'
    >>> choose_version("best", [on_time, late], scores={"1": 8.0, "2": 7.2}).name
    '1'
    """
    if policy not in RESUBMISSION_POLICIES:
        raise ValueError(f"policy must be one of {RESUBMISSION_POLICIES}, not {policy!r}")
    if not versions:
        return None
    if policy == "latest-before-due" and due is not None:
        on_time = [v for v in versions if v.timestamp is None or v.timestamp <= due]
        return max(on_time or versions, key=lambda v: v.sort_key())
    if policy == "best":
        scores = scores or {}
        return max(versions, key=lambda v: (scores.get(v.name) or 0.0, v.sort_key()))
    return max(versions, key=lambda v: v.sort_key())
