"""The checks the exercise notebooks' test cells call.

Each ``check_*`` function runs a student's function on one or more cases
(a game, a :class:`~course.grading.checks.cases.Case`, or a list of them), compares
every run with the reference search (:func:`course.grading.checks.compare.compare`)
and either prints one line saying how many cases matched, or raises a
:class:`~course.grading.checks.failures.GradingFailure` explaining the first case
that did not.  In a notebook, a failure on a small tree also shows the tree
twice, drawn with the student's visits and with the reference's.

====================================  ===========================================
check                                 the student's function
====================================  ===========================================
:func:`check_minimax_value`           ``minimax_value(game, state) -> value``
:func:`check_minimax_decision`        ``minimax_decision(game, state) -> (value, move)``
:func:`check_depth_limited`           ``depth_limited_decision(game, state, depth)``
:func:`check_alphabeta`               ``alphabeta_decision(game, state) -> (value, move)``
:func:`check_expectimax`              ``expectimax_value(game, state) -> value``
:func:`check_star1`                   ``star1_decision(game, state) -> (value, move)``
:func:`check_naive_epsilon`           ``naive_epsilon_value(game, state, epsilon) -> value``
:func:`check_bab`                     ``bab_search(game, state, epsilon) -> (L, U, move)``
:func:`check_ordered_alphabeta`       ``ordered_alphabeta(game, state, estimate)``
====================================  ===========================================

Examples
--------
>>> from course.grading.checks.cases import textbook_cases
>>> aima = textbook_cases("minimax")[0]
>>> def minimax_value(game, state):
...     if game.is_terminal(state):
...         return game.utility(state)
...     values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
...     return max(values) if game.turn(state).name == "MAX" else min(values)
>>> check_minimax_value(minimax_value, aima)
minimax value: 1 case matches the reference search (value, leaves and expansions, in order).
>>> def lazy(game, state):
...     return 3
>>> check_minimax_value(lazy, aima)
Traceback (most recent call last):
...
course.grading.checks.failures.WrongLeaves: minimax value on AIMA figure 5.2: your function did not search at all ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .cases import as_cases
from .compare import DEFAULT_TIME_LIMIT, DRAW_LIMIT, TASKS, Comparison, compare
from .failures import CheckFailed

__all__ = [
    "check",
    "explain",
    "check_minimax_value",
    "check_minimax_decision",
    "check_depth_limited",
    "check_alphabeta",
    "check_expectimax",
    "check_star1",
    "check_naive_epsilon",
    "check_bab",
    "check_ordered_alphabeta",
]


#: The pruning rule in words under ``strict=True``, by reference search (see :func:`check`).
STRICT_RULES = {
    "alphabeta": ("alpha-beta cuts at a MAX node when v > beta and at a MIN node when v < alpha "
                  "(never on equality: CS188's rule), testing before it updates alpha or beta"),
    "star1": ("the node prunes when beta < alpha (never on equality) after taking in a child that "
              "is not its last, with alpha = max(L, alpha) and beta = min(U, beta) updated first"),
    "bab": ("the node prunes when beta < alpha + epsilon (never on equality) after taking in a "
            "child that is not its last, with alpha = max(L, alpha) and beta = min(U, beta) "
            "updated first"),
}


def _task(task: str, strict: bool):
    """The task's specification, with the strict pruning rule if asked for."""
    if task not in TASKS:
        raise CheckFailed(f"unknown task {task!r}; known tasks: {', '.join(TASKS)}")
    spec = TASKS[task]
    if not isinstance(strict, bool):
        raise CheckFailed(f"strict must be True or False, got {strict!r}")
    if strict:
        if spec.reference not in STRICT_RULES:
            raise CheckFailed(f"strict=True applies to the pruning searches "
                              f"({', '.join(STRICT_RULES)}), not to {task}")
        spec = dataclasses.replace(spec, strict=True, rule=STRICT_RULES[spec.reference])
    return spec


def check(task: str, fn: Callable, cases: Any, *, depth: int | None = None,
          epsilon: Any = None, time_limit: float | None = DEFAULT_TIME_LIMIT,
          show: bool = True, strict: bool = False) -> None:
    """Check a student's function against the reference search on some cases.

    Parameters
    ----------
    task : str
        A key of :data:`course.grading.checks.compare.TASKS`, e.g. ``"alphabeta_decision"``.
    fn : callable
        The student's function.
    cases : Game, Case or iterable of them
        What to search.  Cases are tried in order; the first mismatch fails.
    depth, epsilon : optional
        Defaults for cases that do not set their own depth limit or epsilon.
    time_limit : float or None
        Seconds allowed per case.
    show : bool
        In a notebook, draw a small failing tree with both searches' visits.
    strict : bool
        Compare with the reference search run with ``strict=True``: it prunes only on a
        strict inequality (v > beta, v < alpha; beta < alpha + epsilon), the rule CS188's
        autograder requires, instead of the course's pruning on equality.  For the tasks
        whose reference is alpha-beta, Star1 or BAB (an instructor's choice per assignment).

    Returns
    -------
    None
        On success it prints one line (and returns nothing, so that a test
        cell shows no result value: nbgrader would read one as partial credit).

    Raises
    ------
    GradingFailure
        A subclass naming what differed, with a message explaining the first
        difference of the first failing case.
    CheckFailed
        If ``fn`` is not callable or a case lacks a needed parameter.
    """
    spec = _task(task, strict)
    name = spec.signature.split("(")[0]
    if not callable(fn):
        raise CheckFailed(f"{name} must be a function, but it is {type(fn).__name__} {fn!r}; "
                          "run the cell that defines it first")
    items = as_cases(cases, depth=depth, epsilon=epsilon)
    for case in items:
        if spec.takes_depth and case.depth is None:
            raise CheckFailed(f"case {case.name!r} has no depth limit, which {name} needs")
        if spec.takes_epsilon and case.epsilon is None:
            raise CheckFailed(f"case {case.name!r} has no epsilon, which {name} needs")
    __tracebackhide__ = True  # pytest: the failure's message is the report, not this frame
    for i, case in enumerate(items):
        comp = compare(spec, fn, case, time_limit=time_limit)
        if not comp.ok:
            if show:
                _show_pictures(comp)
            position = ""
            if len(items) > 1:
                position = f"case {i + 1} of {len(items)}" + (f", the {i} before it passed" if i else "")
            raise comp.failure(position) from None
    what = "value, move" if spec.returns != "value" else "value"
    if spec.returns == "bounds":
        what = "bounds, move"
    count = f"{len(items)} case{'s' if len(items) != 1 else ''}"
    verb = "match" if len(items) != 1 else "matches"
    print(f"{spec.title}: {count} {verb} the reference search ({what}, leaves and expansions, in order).")


def explain(task: str, fn: Callable, case: Any, *, time_limit: float | None = DEFAULT_TIME_LIMIT,
            show: bool = True, strict: bool = False) -> Comparison:
    """Compare a student's function with the reference on one case, without raising.

    For debugging: prints the comparison's message (and, in a notebook, draws
    a small tree with both searches' visits) and returns the
    :class:`~course.grading.checks.compare.Comparison`.

    Parameters
    ----------
    task : str
        A key of :data:`course.grading.checks.compare.TASKS`.
    fn : callable
    case : Game or Case
    time_limit : float or None
    show : bool
    strict : bool
        As for :func:`check`.

    Returns
    -------
    Comparison
    """
    spec = _task(task, strict)
    (item,) = as_cases(case)[:1]
    comp = compare(spec, fn, item, time_limit=time_limit)
    print(comp.message())
    if show and not comp.ok:
        _show_pictures(comp)
    return comp


def _show_pictures(comp: Comparison) -> None:
    """In a notebook, display the case's tree drawn with the student's and the reference's visits."""
    from ...trees import TreeGame

    game = comp.case.game
    if comp.reference is None or not isinstance(game, TreeGame) or game.root.size > DRAW_LIMIT:
        return
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display

        shell = get_ipython()
        if shell is None or not hasattr(shell, "kernel"):
            return
        from ...draw import draw_tree
    except Exception:  # noqa: BLE001 - pictures are optional; the message has the text version
        return
    try:
        mine = draw_tree(game, comp.student_result(), state=comp.case.state,
                         title="your search (#k: the k-th leaf it evaluated)")
        theirs = draw_tree(game, comp.reference, state=comp.case.state,
                           title=f"the reference {comp.task.title}")
        display(Markdown(f"**{comp.case.describe()}**: the nodes each search visited, in order "
                         "(greyed: never visited)."), mine, theirs)
    except Exception:  # noqa: BLE001 - a drawing problem must not hide the grading message
        return


def check_minimax_value(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``minimax_value(game, state) -> value`` against :func:`course.search.minimax`.

    Options are those of :func:`check`.
    """
    __tracebackhide__ = True
    return check("minimax_value", fn, cases, **options)


def check_minimax_decision(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``minimax_decision(game, state) -> (value, move)`` against :func:`course.search.minimax`."""
    __tracebackhide__ = True
    return check("minimax_decision", fn, cases, **options)


def check_depth_limited(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``depth_limited_decision(game, state, depth) -> (value, move)``.

    Compared with :func:`course.search.minimax` run with the case's depth
    limit and evaluation function.
    """
    __tracebackhide__ = True
    return check("depth_limited_decision", fn, cases, **options)


def check_alphabeta(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``alphabeta_decision(game, state) -> (value, move)`` against :func:`course.search.alphabeta`."""
    __tracebackhide__ = True
    return check("alphabeta_decision", fn, cases, **options)


def check_expectimax(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``expectimax_value(game, state) -> value`` against :func:`course.search.expectimax`."""
    __tracebackhide__ = True
    return check("expectimax_value", fn, cases, **options)


def check_star1(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``star1_decision(game, state) -> (value, move)`` against :func:`course.search.star1`."""
    __tracebackhide__ = True
    return check("star1_decision", fn, cases, **options)


def check_naive_epsilon(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``naive_epsilon_value(game, state, epsilon) -> value`` against :func:`course.search.naive_epsilon`."""
    __tracebackhide__ = True
    return check("naive_epsilon_value", fn, cases, **options)


def check_bab(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``bab_search(game, state, epsilon) -> (lower, upper, move)`` against :func:`course.search.bab`."""
    __tracebackhide__ = True
    return check("bab_search", fn, cases, **options)


def check_ordered_alphabeta(fn: Callable, cases: Any, **options: Any) -> None:
    """Check ``ordered_alphabeta(game, state, estimate)`` against ``alphabeta(order="heuristic")``."""
    __tracebackhide__ = True
    return check("ordered_alphabeta", fn, cases, **options)

