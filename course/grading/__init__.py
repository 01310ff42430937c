"""Grading the course's exercises: the checks the test cells call, the grading job, the term.

The package has three parts, one per place it runs:

==============  ==============================================  ===================================
part            what it is                                      where it runs, what it trusts
==============  ==============================================  ===================================
``checks/``     what the exercises' test cells call: run a     in the student's kernel (Validate,
                student's search on recorded cases and         which does not grade) and in the
                compare it with the reference search           grader (autograde), where the
                (``searches``, ``compare``, ``cases``,          student's functions are proxies
                ``instrument``, ``evaluation``,                 into the sandbox; imports nothing
                ``errorbounds``, ``diagnose``, ``failures``,    of ``job/`` or ``term/``
                ``values``)
``job/``        the grading job, sandbox in, verdicts out:     **runs student code**, only inside
                a job as data (``data``), the local pool        :mod:`course.sandbox`, on any
                (``queue``, ``worker``), nbgrader's sandboxed   machine: a worker needs no course
                execute step (``sandboxed``), the approved      folder or gradebook; only the
                configuration (``approval``), the integrity     instructor's process writes the
                tripwire, the gradebook writer, the Dask        gradebook (``writer``)
                cluster path (``cluster``), and the grading
                run that feeds them (``autograde``)
``term/``       the term's bookkeeping: the course folder,     only the instructor's own files and
                its config and gradebook (``course_dir``),      the gradebook; reads **hostile
                releasing (``release``, ``release_check``,      input** as data and never runs it
                ``rules``), one command at a time               (``intake/``); renders what
                (``run_lock``), the console (``safe_text``),    students wrote inert
                what a submission brings in (``intake/``:       (``results/safe_html``)
                ids, roster, LMS zips, the exchange, repair),
                grading inputs, versions, due dates,
                extensions, late and resubmission policies
                settled at export, results kept
                (``store``), and what goes out
                (``results/``: report, feedback, grades.csv,
                LMS exports, summary, copy audit)
==============  ==============================================  ===================================

What the exercise notebooks' test cells call is re-exported here (``from course.grading import
check_alphabeta, exercise_cases, ...``):

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
* :mod:`course.grading.checks.instrument` -- the recording game the checks run a
  student's search on;
* :mod:`course.grading.checks.failures` -- the :class:`AssertionError` subclasses a
  failed check raises.

An assignment's pruning rule (``STRICT_RULE``) is a line of its setup cell; the text that states
it is kept in step by ``release`` (:mod:`course.grading.term.rules`).  Notebooks released before
the three parts import ``course.grading.cases``, ``.errorbounds`` and ``.evaluation``: those
names still reach the modules in ``checks/``.

The formgrader's pages are guarded by the server extension :mod:`course.formgrader_guard`
(docs/instructor/security.md says what each defence stops).

The instructor's commands (``python -m course.grading prepare | release |
student-bundle | collect-zip | approve-config | autograde | extension | due-date | feedback |
grades | feedback-zip | summary | remove-student``,
:mod:`course.grading.__main__`) each call one function of ``job/`` or ``term/`` and
only import nbgrader when they run.
"""

import sys as _sys

from .checks import cases, errorbounds, evaluation
from .checks.cases import (
    Case,
    EvaluatedGame,
    exercise_cases,
    exercise_tree,
    fixed_cases,
    moves_by_bounds_differ,
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
                                 chen_comparison, error_textbook_cases, explain_intervals,
                                 with_error_bounds)
from .checks.evaluation import (check_best_case_formula, check_evaluation_ordering, check_evaluation_play,
                                check_naive_drift, check_u_trap, choice_losses)
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
    "with_reversed_outcomes", "fixed_cases", "moves_by_bounds_differ",
    "check_evaluation_ordering", "check_evaluation_play", "check_best_case_formula", "check_naive_drift",
    "check_u_trap", "choice_losses",
    "check", "explain", "check_minimax_value", "check_minimax_decision",
    "check_depth_limited", "check_alphabeta", "check_expectimax", "check_star1", "check_naive_epsilon", "check_bab",
    "check_ordered_alphabeta",
    "check_value_interval", "check_decision_bound", "check_selective_interval",
    "with_error_bounds", "error_textbook_cases", "explain_intervals", "chen_comparison",
    "TASKS", "Comparison", "compare",
    "GradingFailure", "WrongLeaves", "WrongExpansions", "WrongValue", "WrongBounds", "WrongMove",
    "WrongReturnType", "RuleBroken", "SearchCrashed", "SearchTimeout", "ReferenceSearchUsed",
    "InstrumentationTampered", "CheckFailed",
    "GameUsageError", "Recording", "instrument",
]

# The paths the exercise notebooks imported before the package had its three parts
# (``from course.grading.cases import fixed_cases``): a student's copy, or a term's gradebook,
# may still hold them.
for _module in (cases, errorbounds, evaluation):
    _sys.modules.setdefault(f"{__name__}.{_module.__name__.rpartition('.')[2]}", _module)
del _module
