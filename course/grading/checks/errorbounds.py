"""Checks for the exercise of lesson 3: how wrong a backed-up value or a decision can be.

Chen's Proposition 1 says that if every frontier estimate is within ``e`` of
its node's true value, so is the backed-up value of a depth-limited search,
and the decision loses at most ``2e``; Propositions 2 and 3 add the omission
error ``e0`` of a selective search at every level.  The exercise
(``solutions/a6_selective``) asks for the same arguments node by node, with an
error bound for each frontier node:

* :func:`check_value_interval` -- ``value_interval(game, state, depth, error)
  -> (value, lo, hi)``: the backed-up value of depth-limited minimax and the
  interval its true value is guaranteed to lie in;
* :func:`check_decision_bound` -- ``decision_bound(game, state, depth, error)
  -> (move, bound)``: the move of the search and the most it can lose;
* :func:`check_selective_interval` -- ``selective_interval(game, state, depth,
  error, kept, e0) -> (value, lo, hi)``: the same for a selective search that
  searches only the moves ``kept(state)`` and has omission error bound ``e0``.

The reference is a walk over the case's game with the rules of
:func:`course.theory.interval_backup` and
:func:`course.theory.decision_error_guarantee`.  When a value differs, the
student's function is run again on each inner node of the searched tree on
its own (children before parents), and the first node where the two differ is
named, with what the reference knows about its children: where each child's
true value lies and why (terminal, at the depth limit with its estimate and
error bound, or searched), and which children a selective search dropped.
The message never states the rule that combines them: deriving it is the
exercise.

The cases are the course's random exercise trees and tic-tac-toe positions
(:func:`with_error_bounds` adds the error bounds, and for the selective search
the kept moves and ``e0``); every error bound is a true bound (at least the
estimate's real error), so every reference interval contains the true value,
which ``tests/test_grading_errorbounds.py`` checks.

References
----------
[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2 and 3.1.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from ...errors import format_path
from ...examples import aima_figure_5_2
from ...game import Game, Player
from ...theory.selective import decision_error_guarantee, interval_backup
from ...trees import parse_tree
from .cases import Case, EvaluatedGame, as_cases, playout_estimate
from .compare import DEFAULT_TIME_LIMIT, Task, run_student
from .instrument import GameUsageError
from .failures import (CheckFailed, GradingFailure, InstrumentationTampered, ReferenceSearchUsed,
                       SearchCrashed, SearchTimeout, WrongBounds, WrongMove, WrongReturnType,
                       WrongValue, raised)
from .values import fmt, same_number

__all__ = ["check_value_interval", "check_decision_bound", "check_selective_interval",
           "with_error_bounds", "error_textbook_cases", "reference_intervals", "RefNode",
           "explain_intervals", "chen_comparison"]

#: The longest a failure's list of children gets.
_CHILDREN_SHOWN = 8
#: Inner nodes searched again on their own, at most, to find the first one that differs.
_LOCATE_LIMIT = 60

_VALUE_INTERVAL = Task("value interval", "intervals", "interval",
                       "value_interval(game, state, depth, error)", takes_depth=True)
_DECISION = Task("decision bound", "intervals", "decision-bound",
                 "decision_bound(game, state, depth, error)", takes_depth=True)
_SELECTIVE = Task("selective interval", "intervals", "interval",
                  "selective_interval(game, state, depth, error, kept, e0)", takes_depth=True)


# ---------------------------------------------------------------------------
# the reference
# ---------------------------------------------------------------------------
@dataclass
class RefNode:
    """What the reference knows about one node of the searched tree."""

    path: tuple
    state: Any
    kind: str
    """``"terminal"``, ``"frontier"`` (at the depth limit), ``"max"`` or ``"min"``."""
    value: Any
    """Its backed-up value (utility, EVAL, or max/min over the searched children)."""
    lo: Any
    hi: Any
    """Where its true value is guaranteed to lie."""
    estimate: Any = None
    error: Any = None
    children: list = field(default_factory=list)
    """Paths of the searched children, in order."""
    dropped: list = field(default_factory=list)
    """Indices of the children a selective search did not search."""
    remaining: int = 0
    """How many more moves deep the search goes below this node."""


def reference_intervals(case: Case) -> dict[tuple, RefNode]:
    """Every node the (selective) depth-limited search of ``case`` visits, by path, children first.

    Parameters
    ----------
    case : Case
        With ``depth`` and ``error`` (and, for a selective search, ``kept`` and ``e0``).

    Returns
    -------
    dict
        ``path -> RefNode`` in post-order (a node after its children).

    Examples
    --------
    >>> case = error_textbook_cases("decision")[0]
    >>> nodes = reference_intervals(case)
    >>> [(n.path, n.kind, n.value, n.lo, n.hi) for n in nodes.values()]
    [((0,), 'frontier', 4, 3, 5), ((1,), 'frontier', 4, 3, 5), ((), 'max', 4, 3, 5)]
    """
    game = case.game
    evaluate = case.evaluate or game.evaluate
    if case.depth is None or case.error is None:
        raise CheckFailed(f"case {case.name!r} needs a depth limit and error bounds")
    e0 = case.e0 if case.e0 is not None else 0
    nodes: dict[tuple, RefNode] = {}

    def walk(state: Any, path: tuple, depth: int) -> RefNode:
        remaining = case.depth - depth
        if game.is_terminal(state):
            u = game.utility(state)
            node = RefNode(path, state, "terminal", u, u, u, remaining=remaining)
        elif remaining <= 0:
            estimate, error = evaluate(state), case.error(state)
            node = RefNode(path, state, "frontier", estimate, estimate - error, estimate + error,
                           estimate=estimate, error=error)
        else:
            player = game.turn(state)
            if player is Player.CHANCE:
                raise CheckFailed("the error-bound exercise has no chance nodes")
            moves = list(game.moves(state))
            kept = list(case.kept(state)) if case.kept is not None else moves
            searched, dropped = [], []
            for i, move in enumerate(moves):
                if any(move == k for k in kept):
                    searched.append(walk(game.result(state, move), path + (i,), depth + 1))
                else:
                    dropped.append(i)
            kind = "max" if player is Player.MAX else "min"
            pick = max if kind == "max" else min
            lo, hi = interval_backup([(c.lo, c.hi) for c in searched], player=kind,
                                     omitted=bool(dropped), e0=e0)
            node = RefNode(path, state, kind, pick(c.value for c in searched), lo, hi,
                           children=[c.path for c in searched], dropped=dropped,
                           remaining=remaining)
        nodes[path] = node
        return node

    walk(game.initial_state() if case.state is None else case.state, (), 0)
    return nodes


def _decision(case: Case, nodes: dict[tuple, RefNode]) -> tuple[int, Any]:
    """The reference's move (index of the first root child with the best value) and its bound."""
    root = nodes[()]
    children = [nodes[p] for p in root.children]
    pick = max if root.kind == "max" else min
    best = pick(c.value for c in children)
    chosen = next(i for i, c in enumerate(children) if c.value == best)
    bound = decision_error_guarantee([(c.lo, c.hi) for c in children], chosen, player=root.kind)
    return children[chosen].path[-1], bound


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------
def _true_values(game: Game) -> Callable[[Any], Any]:
    """The game-theoretic (minimax) value of a state, memoised (a plain walk, no reference search)."""
    memo: dict = {}

    def value(state: Any) -> Any:
        try:
            return memo[state]
        except (KeyError, TypeError):
            pass
        if game.is_terminal(state):
            v = game.utility(state)
        else:
            values = [value(game.result(state, m)) for m in game.moves(state)]
            v = max(values) if game.turn(state) is Player.MAX else min(values)
        try:
            memo[state] = v
        except TypeError:
            pass
        return v

    return value


def _walk_states(game: Game, state: Any, depth: int):
    """``(path, state, depth)`` of every node down to ``depth`` moves below ``state``."""
    stack = [((), state, 0)]
    while stack:
        path, s, d = stack.pop()
        yield path, s, d
        if d < depth and not game.is_terminal(s):
            for i, m in enumerate(game.moves(s)):
                stack.append((path + (i,), game.result(s, m), d + 1))


def with_error_bounds(cases: Any, *, slack: tuple = (0, 0, 1, 2), selective: bool = False,
                      keep_all: float = 0.4, e0_slack: tuple = (0, 1)) -> list[Case]:
    """The cases with an error bound for every frontier node (and, with ``selective``, kept moves).

    Each frontier node's bound is its estimate's real error ``|EVAL - v|`` plus a
    slack drawn from ``slack``, so every bound is true.  With ``selective``,
    each inner node keeps all its moves with probability ``keep_all`` and
    otherwise a random non-empty subset of them (in their order); ``e0`` is the
    largest real omission error of the search, ``|M(all) - M(kept)|`` over the
    nodes that drop moves, plus a slack drawn from ``e0_slack``.  Everything is
    drawn from the case's name (which holds the tree's seed): the same case
    always gets the same bounds.

    Parameters
    ----------
    cases : Case or list of Case
        With a depth limit (e.g. ``exercise_cases(..., depth_limits=(1, 2))`` or
        ``tictactoe_cases(..., depth=2)``).
    slack, e0_slack : tuple of int
        What may be added to the real errors.
    selective : bool
    keep_all : float

    Returns
    -------
    list of Case

    Examples
    --------
    >>> from course.grading.checks.cases import exercise_cases
    >>> (case,) = with_error_bounds(exercise_cases(1, 1, depth_limits=(1,)))
    >>> root = case.game.initial_state()
    >>> child = case.game.result(root, case.game.moves(root)[0])
    >>> case.error(child) >= 0
    True
    """
    out = []
    for case in as_cases(cases):
        if case.depth is None:
            raise CheckFailed(f"case {case.name!r} needs a depth limit for error bounds")
        game = case.game
        evaluate = case.evaluate or game.evaluate
        true = _true_values(game)
        rng = random.Random(f"error-bounds/{case.name}/{case.depth}/{selective}")
        root = game.initial_state() if case.state is None else case.state
        errors: dict = {}
        kept: dict = {}
        worst_omission = 0
        for path, state, depth in sorted(_walk_states(game, root, case.depth), key=lambda t: t[0]):
            if game.is_terminal(state):
                continue
            errors[state] = abs(evaluate(state) - true(state)) + rng.choice(slack)
            if depth < case.depth and selective:
                moves = list(game.moves(state))
                if len(moves) == 1 or rng.random() < keep_all:
                    chosen = moves
                else:
                    size = rng.randint(1, len(moves) - 1)
                    picked = sorted(rng.sample(range(len(moves)), size))
                    chosen = [moves[i] for i in picked]
                kept[state] = chosen
                if len(chosen) < len(moves):
                    pick = max if game.turn(state) is Player.MAX else min
                    every = pick(true(game.result(state, m)) for m in moves)
                    some = pick(true(game.result(state, m)) for m in chosen)
                    worst_omission = max(worst_omission, abs(every - some))
        changes: dict[str, Any] = {"error": _lookup(errors, "error")}
        if selective:
            changes.update(kept=_lookup(kept, "kept", copy=True),
                           e0=worst_omission + rng.choice(e0_slack))
        out.append(case.with_params(**changes))
    return out


def _lookup(table: dict, name: str, *, copy: bool = False) -> Callable[[Any], Any]:
    def look(state: Any) -> Any:
        try:
            value = table[state]
        except (KeyError, TypeError):
            where = "inner node" if name == "kept" else "non-terminal node"
            raise GameUsageError(f"{name}() is defined for every {where} down to the depth limit, "
                                 "and only there") from None
        return list(value) if copy else value

    look.__name__ = name
    return look


def error_textbook_cases(kind: str) -> list[Case]:
    """The worked examples for the error-bound exercise.

    Parameters
    ----------
    kind : {"interval", "decision", "selective"}

    Returns
    -------
    list of Case
        ``"decision"``: lesson 3's tight case (two moves truly worth 3 and 5, both
        estimated 4 with error bound 1: the decision can lose 2 = 2e) and AIMA
        figure 5.2 at depth 1 with the playout estimate.  ``"interval"``: AIMA
        figure 5.2 at depth 1 and a tree whose estimates have different error
        bounds, where the interval is narrower than the value plus or minus the
        largest bound.  ``"selective"``: the last tree with one move dropped at
        a MAX node and at a MIN node (e0 = 1).

    Examples
    --------
    >>> [c.name for c in error_textbook_cases("decision")]
    ["lesson 3's tight case", 'AIMA figure 5.2']
    """
    if kind not in ("interval", "decision", "selective"):
        raise CheckFailed(f'kind must be "interval", "decision" or "selective", got {kind!r}')
    tight = parse_tree([[3], [5]])
    estimates = {(): 4, (0,): 4, (1,): 4}
    tight_case = Case("lesson 3's tight case", EvaluatedGame(tight, lambda n: estimates[n.path]),
                      depth=1, evaluate=lambda n: estimates[n.path],
                      recipe="parse_tree([[3], [5]]) with EVAL 4 for both moves, error bound 1",
                      error=_lookup({tight.root: 1, tight.root.children[0]: 1,
                                     tight.root.children[1]: 1}, "error"))
    aima = aima_figure_5_2()
    (aima_case,) = with_error_bounds(Case("AIMA figure 5.2", EvaluatedGame(aima, playout_estimate),
                                          depth=1, evaluate=playout_estimate,
                                          recipe="aima_figure_5_2() with the playout estimate"),
                                     slack=(0,))
    # Two MAX moves below a MIN root; the estimates have error bounds 1 and 4.  Proposition 1 with
    # the largest bound gives 6 +- 4; the bounds node by node give a narrower interval.
    mixed = parse_tree({"min": [{"max": [{"min": [6, 9]}, {"min": [2, 4]}]},
                                {"max": [{"min": [8, 9]}, {"min": [7, 8]}]}]})
    ests = {(): 6, (0,): 6, (1,): 8, (0, 0): 7, (0, 1): 3, (1, 0): 8, (1, 1): 4}
    errs = {(): 1, (0,): 1, (1,): 1, (0, 0): 1, (0, 1): 4, (1, 0): 1, (1, 1): 4}
    ev = lambda n: ests[n.path]  # noqa: E731 - a table, as a function
    by_state = {}
    for path, err in errs.items():
        node = mixed.root
        for i in path:
            node = node.children[i]
        by_state[node] = err
    mixed_case = Case("two error bounds", EvaluatedGame(mixed, ev), depth=2, evaluate=ev,
                      recipe=("parse_tree({'min': [{'max': [{'min': [6, 9]}, {'min': [2, 4]}]}, "
                              "{'max': [{'min': [8, 9]}, {'min': [7, 8]}]}]}) with EVAL 7, 3, 8, 4 "
                              "and error bounds 1, 4, 1, 4 at depth 2"),
                      error=_lookup(by_state, "error"))
    if kind == "decision":
        return [tight_case, aima_case]
    if kind == "interval":
        return [aima_case, mixed_case]
    # the selective search drops the second move of the first MAX node only
    keep = {mixed.root: [0, 1], mixed.root.children[0]: [0], mixed.root.children[1]: [0, 1]}
    return [mixed_case.with_params(name="two error bounds, selective",
                                   kept=_lookup(keep, "kept", copy=True), e0=1,
                                   recipe=mixed_case.recipe + "; the search keeps only move 0 at "
                                   "(0,) and every move elsewhere; e0 = 1")]


# ---------------------------------------------------------------------------
# the checks
# ---------------------------------------------------------------------------
def _extra(case: Case, selective: bool) -> Callable:
    def make(recording) -> list:
        args = [recording.state_function(case.error, "error")]
        if selective:
            args += [recording.state_function(case.kept, "kept"), case.e0]
        return args

    return make


def _is_number(x: Any) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def _run(task: Task, fn: Callable, case: Case, selective: bool, time_limit, head: str = ""):
    """Run ``fn`` on ``case``; raise the failure for a crash, a timeout or cheating."""
    run = run_student(task, fn, case, time_limit=time_limit, extra=_extra(case, selective))
    head = f"{head}: " if head else ""
    if run.timed_out:
        raise SearchTimeout(f"{head}your function did not finish within {fmt(time_limit)} "
                            "seconds.\n" + run.error_trace, case=case.name)
    if run.error is not None:
        hint = (" Replace `raise NotImplementedError()` with your code."
                if isinstance(run.error, NotImplementedError) else "")
        raise SearchCrashed(f"{head}your function raised {raised(run.error)}.{hint}\n"
                            f"{run.error_trace}", case=case.name)
    if run.reference_calls:
        raise ReferenceSearchUsed(f"{head}your function ran the course's reference search: "
                                  + ", ".join(run.reference_calls[:3]), case=case.name)
    if run.tampered:
        raise InstrumentationTampered(f"{head}the recording game was altered.\n" + run.tampered,
                                      case=case.name)
    return run.returned


def _triple(task: Task, returned: Any, case: Case, head: str) -> tuple:
    if (not isinstance(returned, (tuple, list)) or len(returned) != 3
            or not all(_is_number(x) for x in returned)):
        extra = " (did you forget a `return`?)" if returned is None else ""
        raise WrongReturnType(f"{head}: {task.signature} must return three numbers (value, lo, hi), "
                              f"but it returned {type(returned).__name__} {returned!r}{extra}.",
                              case=case.name)
    return tuple(returned)


def _show(triple: tuple) -> str:
    value, lo, hi = triple
    return f"value {fmt(value)}, interval [{fmt(lo)}, {fmt(hi)}]"


def _same(a: tuple, b: tuple) -> bool:
    return all(same_number(x, y) for x, y in zip(a, b))


def _describe_child(node: RefNode, nodes: dict) -> str:
    where = f"[{fmt(node.lo)}, {fmt(node.hi)}]"
    if node.kind == "terminal":
        return f"{format_path(node.path)}: terminal, utility {fmt(node.value)}: {where}"
    if node.kind == "frontier":
        return (f"{format_path(node.path)}: at the depth limit, EVAL {fmt(node.estimate)} with "
                f"error bound {fmt(node.error)}: {where}")
    return (f"{format_path(node.path)}: {node.kind.upper()}, searched, backed-up value "
            f"{fmt(node.value)}: {where}")


def _node_facts(node: RefNode, nodes: dict, case: Case) -> str:
    lines = [f"What the reference knows below {format_path(node.path)} ({node.kind.upper()}):"]
    shown = node.children[:_CHILDREN_SHOWN]
    lines += ["  " + _describe_child(nodes[p], nodes) for p in shown]
    if len(node.children) > len(shown):
        lines.append(f"  ... and {len(node.children) - len(shown)} more searched children")
    if node.dropped:
        lines.append(f"  not searched (the selective search drops them): child"
                     f"{'ren' if len(node.dropped) > 1 else ''} "
                     f"{', '.join(str(i) for i in node.dropped)}; e0 = {fmt(case.e0)}")
    elif case.kept is not None:
        lines.append("  the selective search keeps every child here")
    return "\n".join(lines)


def _check_interval(task: Task, fn: Callable, cases: Any, selective: bool,
                    time_limit: float | None) -> None:
    items = as_cases(cases)
    for case in items:
        if case.depth is None or case.error is None or (selective and case.kept is None):
            raise CheckFailed(f"case {case.name!r} lacks a depth limit, error bounds"
                              + (" or kept moves" if selective else ""))
    for k, case in enumerate(items):
        position = f" (case {k + 1} of {len(items)})" if len(items) > 1 else ""
        head = f"{task.title} on {case.describe()}{position}"
        nodes = reference_intervals(case)
        root = nodes[()]
        expected = (root.value, root.lo, root.hi)
        mine = _triple(task, _run(task, fn, case, selective, time_limit, head), case, head)
        if _same(mine, expected):
            continue
        cls = WrongValue if not same_number(mine[0], expected[0]) else WrongBounds
        lines = [f"{head}: you returned {_show(mine)}; the reference {_show(expected)}."]
        if case.recipe:
            lines.append(f"To rebuild this case: {case.recipe}")
        lines.append(_locate(task, fn, case, nodes, selective, time_limit))
        raise cls("\n".join(lines), case=case.name)
    n = len(items)
    print(f"{task.title}: {n} case{'s' if n != 1 else ''} match{'es' if n == 1 else ''} the "
          "reference (value and interval).")


def _locate(task: Task, fn: Callable, case: Case, nodes: dict, selective: bool,
            time_limit: float | None) -> str:
    """The first inner node (children before parents) whose own search differs, with its facts."""
    inner = [n for n in nodes.values() if n.kind in ("max", "min")]
    for node in inner[:_LOCATE_LIMIT]:
        if not node.path:
            break
        sub = case.with_params(state=node.state, depth=node.remaining,
                               name=f"{case.name}, node {format_path(node.path)}")
        try:
            mine = _triple(task, _run(task, fn, sub, selective, time_limit), sub, "")
        except GradingFailure:       # the root's verdict stands; the location is only an aid
            return _node_facts(nodes[()], nodes, case)
        expected = (node.value, node.lo, node.hi)
        if not _same(mine, expected):
            return (f"Node {format_path(node.path)} is the first node (children before parents) "
                    f"where your function and the reference differ: searched on its own "
                    f"({node.remaining} move{'s' if node.remaining != 1 else ''} deep), your "
                    f"function returns {_show(mine)}, the reference {_show(expected)}.\n"
                    + _node_facts(node, nodes, case))
    if len(inner) > 1:
        where = ("Every inner node below the root gets the reference's value and interval from "
                 "your function; the root is where they differ.")
    else:
        where = "The root is the only node with searched children here."
    return where + "\n" + _node_facts(nodes[()], nodes, case)


def check_value_interval(fn: Callable, cases: Any, *,
                         time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
    """Check ``value_interval(game, state, depth, error) -> (value, lo, hi)``.

    ``value`` must be depth-limited minimax's backed-up value (EVAL at the depth
    limit, utility at terminal states) and ``[lo, hi]`` the interval that the
    error bounds guarantee for the true value, node by node
    (:func:`course.theory.interval_backup`).

    Raises
    ------
    WrongValue, WrongBounds
        At the first case that differs, naming the first node that differs.
    WrongReturnType, SearchCrashed, SearchTimeout, ReferenceSearchUsed
    CheckFailed
        If a case lacks a depth limit or error bounds.

    Examples
    --------
    >>> def value_interval(game, state, depth, error):
    ...     if game.is_terminal(state):
    ...         u = game.utility(state)
    ...         return u, u, u
    ...     if depth == 0:
    ...         v, e = game.evaluate(state), error(state)
    ...         return v, v - e, v + e
    ...     kids = [value_interval(game, game.result(state, m), depth - 1, error)
    ...             for m in game.moves(state)]
    ...     pick = max if game.turn(state).name == "MAX" else min
    ...     return tuple(pick(k[i] for k in kids) for i in range(3))
    >>> check_value_interval(value_interval, error_textbook_cases("interval"))
    value interval: 2 cases match the reference (value and interval).
    """
    __tracebackhide__ = True
    _check_interval(_VALUE_INTERVAL, fn, cases, False, time_limit)


def check_selective_interval(fn: Callable, cases: Any, *,
                             time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
    """Check ``selective_interval(game, state, depth, error, kept, e0) -> (value, lo, hi)``.

    As :func:`check_value_interval`, for a search that searches only the
    moves ``kept(state)`` at each inner node, with omission error bound ``e0``.
    """
    __tracebackhide__ = True
    _check_interval(_SELECTIVE, fn, cases, True, time_limit)


def check_decision_bound(fn: Callable, cases: Any, *,
                         time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
    """Check ``decision_bound(game, state, depth, error) -> (move, bound)``.

    ``move`` must be the first root move (in ``game.moves`` order) whose child has
    the best backed-up value, and ``bound`` the most that choosing it can lose in
    true value, given where each root child's true value lies
    (:func:`course.theory.decision_error_guarantee`).

    Raises
    ------
    WrongMove, WrongValue
        At the first case that differs, with every root child's value and interval.
    WrongReturnType, SearchCrashed, SearchTimeout, ReferenceSearchUsed
    """
    __tracebackhide__ = True
    items = as_cases(cases)
    for k, case in enumerate(items):
        position = f" (case {k + 1} of {len(items)})" if len(items) > 1 else ""
        head = f"{_DECISION.title} on {case.describe()}{position}"
        nodes = reference_intervals(case)
        root = nodes[()]
        if root.kind not in ("max", "min"):
            raise CheckFailed(f"case {case.name!r}: the root must be a MAX or MIN node")
        index, bound = _decision(case, nodes)
        game = case.game
        start = game.initial_state() if case.state is None else case.state
        moves = list(game.moves(start))
        returned = _run(_DECISION, fn, case, False, time_limit, head)
        if (not isinstance(returned, (tuple, list)) or len(returned) != 2
                or not _is_number(returned[1])):
            raise WrongReturnType(f"{head}: {_DECISION.signature} must return a pair (move, bound), "
                                  f"but it returned {type(returned).__name__} {returned!r}.",
                                  case=case.name)
        move, mine = returned
        children = "\n".join(
            f"  child {nodes[p].path[-1]} (move {moves[nodes[p].path[-1]]!r}): backed-up value "
            f"{fmt(nodes[p].value)}, true value in [{fmt(nodes[p].lo)}, {fmt(nodes[p].hi)}]"
            for p in root.children)
        facts = f"The root ({root.kind.upper()} to move) and its children:\n{children}"
        recipe = f"\nTo rebuild this case: {case.recipe}" if case.recipe else ""
        chosen = next((i for i, m in enumerate(moves) if _equal_moves(m, move)), None)
        if chosen != index:
            raise WrongMove(f"{head}: you chose the move {move!r}, the reference {moves[index]!r} "
                            f"(child {index}): the first child with the best backed-up value.\n"
                            + facts + recipe, case=case.name)
        if not same_number(mine, bound):
            raise WrongValue(f"{head}: for the move {move!r} (child {index}) you returned the bound "
                             f"{fmt(mine)}, the reference {fmt(bound)}: the most this move can lose "
                             "in true value, whatever the true values within their intervals.\n"
                             + facts + recipe, case=case.name)
    n = len(items)
    print(f"{_DECISION.title}: {n} case{'s' if n != 1 else ''} match{'es' if n == 1 else ''} the "
          "reference (move and bound).")


def _equal_moves(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a strange object matches nothing
        return False


# ---------------------------------------------------------------------------
# for the notebook: the course's intervals, and Chen's bound beside them
# ---------------------------------------------------------------------------
def explain_intervals(case: Case) -> None:
    """Print the course's value and interval of every node of ``case``, children first.

    Examples
    --------
    >>> explain_intervals(error_textbook_cases("decision")[0])  # doctest: +NORMALIZE_WHITESPACE
    lesson 3's tight case (depth limit 1): the course's values and intervals, children first
      (0,)  at the depth limit: EVAL 4, error bound 1  value 4  [3, 5]
      (1,)  at the depth limit: EVAL 4, error bound 1  value 4  [3, 5]
      root  MAX, over children 0, 1                    value 4  [3, 5]
    """
    nodes = reference_intervals(case)
    print(f"{case.describe()}: the course's values and intervals, children first")
    for node in nodes.values():
        if node.kind == "terminal":
            what = f"terminal: utility {fmt(node.value)}"
        elif node.kind == "frontier":
            what = f"at the depth limit: EVAL {fmt(node.estimate)}, error bound {fmt(node.error)}"
        else:
            what = (f"{node.kind.upper()}, over children "
                    + ", ".join(str(p[-1]) for p in node.children))
            if node.dropped:
                what += f" (drops {', '.join(str(i) for i in node.dropped)})"
        print(f"  {format_path(node.path):<9} {what:<47} value {fmt(node.value)}  "
              f"[{fmt(node.lo)}, {fmt(node.hi)}]")


def chen_comparison(*, seed: int = 64, count: int = 4) -> list[tuple]:
    """Print and return, per case, the root interval's width and Chen's ``2 (e + d e0)``.

    ``e`` is the largest error bound at the horizon, ``d`` the depth limit and
    ``e0`` the omission bound (0 without a selective search): Proposition 3 says
    the backed-up value is within ``e + d e0`` of the true value.

    Returns
    -------
    list of (name, interval width, Chen's width)

    Examples
    --------
    >>> rows = chen_comparison(count=0)        # doctest: +NORMALIZE_WHITESPACE
    case                                       root interval   width   Chen's 2(e + d e0)
    two error bounds                           [6, 8]          2       8
    two error bounds, selective                [6, 9]          3       12
    >>> all(width <= chen for _, width, chen in rows)
    True
    """
    from .cases import exercise_cases

    cases = error_textbook_cases("interval")[1:] + error_textbook_cases("selective")
    if count:
        cases += with_error_bounds(exercise_cases(seed, count, depth=3, roots=("max", "min"),
                                                  depth_limits=(2,)))
        cases += with_error_bounds(exercise_cases(seed + 1, count, depth=3, roots=("max", "min"),
                                                  depth_limits=(2,)), selective=True)
    rows = []
    print(f"{'case':<42} {'root interval':<15} {'width':<7} Chen's 2(e + d e0)")
    for case in cases:
        nodes = reference_intervals(case)
        root = nodes[()]
        e = max((n.error for n in nodes.values() if n.kind == "frontier"), default=0)
        e0 = case.e0 if case.kept is not None else 0
        chen = 2 * (e + case.depth * e0)
        width = root.hi - root.lo
        name = case.name + (" (selective)" if case.kept is not None and "selective" not in case.name
                            else "")
        print(f"{name:<42} {f'[{fmt(root.lo)}, {fmt(root.hi)}]':<15} {fmt(width):<7} {fmt(chen)}")
        rows.append((name, width, chen))
    return rows
