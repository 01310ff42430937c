"""Grading the course's exercises: the checks the test cells call, and the instructor's commands.

The package is laid out by **which side of the trust boundary** each part runs on:

=========================  ==========================================  ==================================
part                       what it is                                   what it trusts
=========================  ==========================================  ==================================
``checks``, ``compare``,   what the exercises' test cells call: run a   runs in the student's kernel
``cases``, ``instrument``,  student's search on recorded cases and       (Validate, which does not grade)
``evaluation``,            compare it with the reference search         and in the grader (autograde),
``failures``                                                            where the student's functions
                                                                        are proxies into the sandbox
``course_dir``,            the course directory, its config and         only the instructor's own files
``release``                gradebook; releasing; the students' copy
``intake/``                what a submission brings in: student ids     reads **hostile input** as data,
                           and the roster, LMS zips, the exchange,      never runs it
                           ``submitted/`` folders, notebooks repaired
                           before grading
``autograde/``             the grading run: queue, workers, nbgrader's  **runs student code**, only inside
                           sandboxed execute step, integrity tripwire,  :mod:`course.sandbox`
                           the approved configuration
``job/``                   a grading job as data (submission and        **runs student code**, only inside
                           assignment bundle in, scores and graded      :mod:`course.sandbox`, on any
                           notebook out), the gradebook writer, and     machine: needs no course folder
                           the Dask cluster path (``--cluster``)        or gradebook
``term/``,                 the term's bookkeeping: grading inputs and   only the instructor's own files
``release_check``,         kept results, versions, due dates,           and the gradebook
``run_lock``               extensions, late rule and resubmission
                           policy settled at export; the source
                           checked at release; one command at a time
``results/``               the report, feedback pages (rendered inert:  verdicts (gradebook, report);
                           ``safe_html``), grades.csv, the summary,     feedback and the audit read what
                           the copy audit                               students wrote, as data
=========================  ==========================================  ==================================

What the exercise notebooks' test cells call:

* :mod:`course.grading.checks.searches` -- ``check_minimax_value``, ``check_alphabeta``,
  ``check_bab``, ...: run a student's search on cases and compare it with the
  reference search (value or bounds, root move, and the exact ordered
  sequence of expansions and leaf evaluations);
* :mod:`course.grading.checks.cases` -- the cases: textbook trees, seeded random
  exercise trees (ties, chance nodes), tic-tac-toe positions, games of Pig;
* :mod:`course.grading.checks.errorbounds` -- Assignment 6 (lesson 3): values and intervals
  checked against Chen's bounds node by node (``check_value_interval``, ...);
* :mod:`course.grading.checks.evaluation` -- the open tasks: an evaluation function, a
  formula, the naive-epsilon drift, a tree that traps the choice by ``U``;
* :mod:`course.grading.term.rules` -- an assignment's pruning rule (``STRICT_RULE``) and
  the text that states it;
* :mod:`course.grading.checks.instrument` -- the recording game the checks run a
  student's search on;
* :mod:`course.grading.checks.failures` -- the :class:`AssertionError` subclasses a
  failed check raises.

The formgrader's pages are guarded by the server extension :mod:`course.formgrader_guard`
(docs/instructor/security.md says what each defence stops).

The instructor's commands (``python -m course.grading prepare | release |
student-bundle | collect-zip | approve-config | autograde | extension | due-date | feedback |
grades | feedback-zip | summary | remove-student``,
:mod:`course.grading.__main__`) each call one function of the modules above and
only import nbgrader when they run.
"""

from .checks.cases import (
    Case,
    EvaluatedGame,
    exercise_cases,
    exercise_tree,
    pig_cases,
    playout_estimate,
    textbook_cases,
    tictactoe_cases,
    with_depth_limit,
    with_evaluation,
    with_reversed_outcomes,
)
from .checks.searches import (
    check,
    check_alphabeta,
    check_bab,
    check_depth_limited,
    check_expectimax,
    check_minimax_decision,
    check_minimax_value,
    check_naive_epsilon,
    check_ordered_alphabeta,
    check_star1,
    explain,
)
from .checks.compare import TASKS, Comparison, compare
from .checks.errorbounds import (check_decision_bound, check_selective_interval, check_value_interval,
                          error_textbook_cases, explain_intervals, with_error_bounds)
from .checks.evaluation import (check_best_case_formula, check_evaluation_ordering, check_evaluation_play,
                         check_naive_drift, check_u_trap)
from .checks.failures import (
    CheckFailed,
    GradingFailure,
    InstrumentationTampered,
    ReferenceSearchUsed,
    RuleBroken,
    SearchCrashed,
    SearchTimeout,
    WrongBounds,
    WrongExpansions,
    WrongLeaves,
    WrongMove,
    WrongReturnType,
    WrongValue,
)
from .checks.instrument import GameUsageError, Recording, instrument

__all__ = [
    "Case", "EvaluatedGame", "exercise_cases", "exercise_tree", "pig_cases", "playout_estimate",
    "textbook_cases", "tictactoe_cases", "with_depth_limit", "with_evaluation",
    "with_reversed_outcomes",
    "check_evaluation_ordering", "check_evaluation_play", "check_best_case_formula", "check_naive_drift",
    "check_u_trap",
    "check", "explain", "check_minimax_value", "check_minimax_decision",
    "check_depth_limited", "check_alphabeta", "check_expectimax", "check_star1", "check_naive_epsilon", "check_bab",
    "check_ordered_alphabeta",
    "check_value_interval", "check_decision_bound", "check_selective_interval",
    "with_error_bounds", "error_textbook_cases", "explain_intervals",
    "TASKS", "Comparison", "compare",
    "GradingFailure", "WrongLeaves", "WrongExpansions", "WrongValue", "WrongBounds", "WrongMove",
    "WrongReturnType", "RuleBroken", "SearchCrashed", "SearchTimeout", "ReferenceSearchUsed",
    "InstrumentationTampered", "CheckFailed",
    "GameUsageError", "Recording", "instrument",
]
