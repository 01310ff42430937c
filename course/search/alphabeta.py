"""Alpha-beta pruning, and the naive (unsafe) way of adding an epsilon to it.

Alpha-beta (Knuth & Moore 1975) searches with a window ``(alpha, beta)``:
``alpha`` is the best value MAX is already sure of on the path to the root,
``beta`` the best MIN is sure of.  A node whose value falls outside the
window cannot change the root's value, so its remaining children are skipped.
The rules below are those of Russell & Norvig's pseudocode, as quoted by
Atzmon et al. (2018, Figure 1) and the adversarial-search lecture notes:

* MAX node: ``v = max(v, child)``; **cut when v >= beta**; then
  ``alpha = max(alpha, v)``.
* MIN node: ``v = min(v, child)``; **cut when v <= alpha**; then
  ``beta = min(beta, v)``.

Cuts happen on equality.  The root is searched with ``(-inf, +inf)``; its
value is exact, but the values returned by inner nodes may only be bounds.

With ``strict=True`` the cuts need a strict inequality instead (**cut when
v > beta** at MAX, **v < alpha** at MIN), the rule of Berkeley's CS188
autograder, which expects a node whose value ties the window to be searched
on.  Both rules give the same root value; the strict one may evaluate more
leaves, never fewer (see :func:`alphabeta`'s example).

The *naive epsilon* rule (Atzmon et al. 2018, "Naive approach") instead cuts
whenever ``beta <= alpha + epsilon`` after a child is taken in (and the child
was not the last).  Its error is not bounded by epsilon: see
:func:`course.examples.naive_epsilon_counterexample`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from ..game import Game, Path, Player
from ._context import EXPAND, SearchContext, check_epsilon, first_best
from .result import ChildResult, SearchResult

__all__ = ["alphabeta", "naive_epsilon"]

INF = float("inf")


def alphabeta(
    game: Game,
    state: Any = None,
    *,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
    strict: bool = False,
) -> SearchResult:
    """Minimax value by alpha-beta pruning (Russell & Norvig's rules, cut on equality).

    Takes the same parameters as :func:`course.search.minimax`, and

    Parameters
    ----------
    strict : bool, optional
        Cut only on a strict inequality (v > beta at MAX, v < alpha at MIN),
        as CS188's autograder requires.  Default False: cut on equality too.

    Returns
    -------
    SearchResult
        ``lower == upper ==`` the minimax value.  ``move`` is the first root
        child, in search order, whose returned value equals the root value:
        that child's value is exact, while a later child returning the same
        number may only have been bounded by it.

    Raises
    ------
    ChanceNodeError
        If the search reaches a chance node (use :func:`course.search.star1`).
    ParameterError
        For an invalid ``depth`` or ``order``.

    Examples
    --------
    AIMA figure 5.2: the second MIN node is cut after its first leaf (2 <= 3).

    >>> from course import parse_tree
    >>> result = alphabeta(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    >>> result.value, result.move, result.leaves
    (3, 0, ((0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 1), (2, 2)))

    CS188's tree ``q3/6-tied-root``: the second MIN node's first leaf ties
    alpha = 10.  The course's rule cuts there; the strict rule evaluates C too.

    >>> tied = parse_tree([[10], [10, 0]])
    >>> alphabeta(tied).leaves, alphabeta(tied, strict=True).leaves
    (((0, 0), (1, 0)), ((0, 0), (1, 0), (1, 1)))

    Notes
    -----
    With perfect move ordering a uniform tree of branching b and depth d has
    exactly ``b**ceil(d/2) + b**floor(d/2) - 1`` leaves evaluated (Knuth &
    Moore 1975); with the worst ordering, all ``b**d``.
    """
    ctx = SearchContext(game, order=order, seed=seed, depth=depth, evaluate=evaluate,
                        cutoff=cutoff, trace=trace, allow_chance=False)
    return _search("alphabeta", ctx, state, epsilon=None, strict=_check_strict(strict))


def naive_epsilon(
    game: Game,
    state: Any = None,
    *,
    epsilon: float = 0,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Alpha-beta with the naive epsilon rule: cut when ``beta <= alpha + epsilon``.

    Kept to show why it fails: its error is *not* bounded by ``epsilon``.
    At a MAX node: ``v = max(v, child)``, ``alpha = max(alpha, v)``; at a MIN
    node: ``v = min(v, child)``, ``beta = min(beta, v)``; then, unless the child
    was the last one, cut when ``beta <= alpha + epsilon`` and return ``v``.
    With ``epsilon = 0`` it evaluates exactly the leaves alpha-beta does.  The parameters
    other than ``epsilon`` are those of :func:`alphabeta`.

    Parameters
    ----------
    epsilon : float
        The (meant) error margin, >= 0.

    Returns
    -------
    SearchResult
        ``lower == upper ==`` the value it finds, which may be off by more than
        ``epsilon``.

    Raises
    ------
    ParameterError
        If ``epsilon`` is negative or not a number.
    ChanceNodeError
        If the search reaches a chance node.

    Examples
    --------
    >>> from course.examples import naive_epsilon_counterexample
    >>> game = naive_epsilon_counterexample(m=3, x=10, epsilon=1)
    >>> naive_epsilon(game, epsilon=1).value, alphabeta(game).value
    (13, 10)
    """
    epsilon = check_epsilon(epsilon)
    ctx = SearchContext(game, order=order, seed=seed, depth=depth, evaluate=evaluate,
                        cutoff=cutoff, trace=trace, allow_chance=False)
    return _search("naive-epsilon", ctx, state, epsilon=epsilon)


def _check_strict(strict: Any) -> bool:
    """Validate the ``strict`` option (a bool, not a truthy string)."""
    if not isinstance(strict, bool):
        raise ParameterError(f"strict must be True or False, got {strict!r}")
    return strict


def _search(name: str, ctx: SearchContext, state: Any, *, epsilon: float | None,
            strict: bool = False) -> SearchResult:
    game = ctx.game
    naive = epsilon is not None
    leaf, expand, result = ctx.leaf, ctx.expand, game.result
    events, emit, root_children = ctx.events, ctx.emit, ctx.root_children
    returned: list[tuple[int, float, float]] = []   # root children's returned numbers: the move
    leaves = ctx.leaves
    # What is known about the node value() last returned (naive rule only): its returned number
    # need not be a bound, so the bounds are carried up from the leaves (see known_bounds).
    known = [0.0, 0.0]

    def value(state: Any, path: Path, depth: int, alpha: float, beta: float) -> float:
        v = leaf(state, path, depth)
        if v is not EXPAND:
            if naive:
                known[0] = known[1] = v
            return v
        player, moves, _, order = expand(state, path)
        is_max = player is Player.MAX
        if events is not None:
            emit("enter", path, player=player.value, alpha=alpha, beta=beta)
        v = -INF if is_max else INF
        low = high = v                       # naive: max (min) of the children's known bounds
        last = len(order) - 1
        for k, index in enumerate(order):
            child_value = value(result(state, moves[index]), path + (index,), depth + 1, alpha, beta)
            if naive:
                if is_max:
                    low, high = max(low, known[0]), max(high, known[1])
                else:
                    low, high = min(low, known[0]), min(high, known[1])
            if not path:
                returned.append((index, child_value, child_value))
                if naive:
                    root_children.append(ChildResult(index, known[0], known[1]))
                elif leaves and leaves[-1] == (index,):      # a leaf: its value, whatever the window
                    root_children.append(ChildResult(index, child_value, child_value))
                else:
                    root_children.append(ChildResult.fail_soft(index, child_value, alpha, beta))
            # v = max(v, child) at MAX, min(v, child) at MIN (written out: the same comparisons)
            if child_value > v if is_max else child_value < v:
                v = child_value
            if naive:
                if is_max:
                    if v > alpha:
                        alpha = v
                elif v < beta:
                    beta = v
                cut = k < last and beta <= alpha + epsilon
            else:
                # Russell & Norvig: test against the window first, then tighten it.
                if strict:                                 # CS188: no cut on equality
                    cut = v > beta if is_max else v < alpha
                else:
                    cut = v >= beta if is_max else v <= alpha
                if not cut:
                    if is_max:
                        if v > alpha:
                            alpha = v
                    elif v < beta:
                        beta = v
            if events is not None:
                emit("update", path, child=index, alpha=alpha, beta=beta, lower=v, upper=v)
            if cut:
                if events is not None and k < last:
                    if naive:
                        reason = f"beta={beta} <= alpha={alpha} + epsilon={epsilon}"
                    elif strict:
                        reason = f"v={v} > beta={beta}" if is_max else f"v={v} < alpha={alpha}"
                    else:
                        reason = f"v={v} >= beta={beta}" if is_max else f"v={v} <= alpha={alpha}"
                    emit("cutoff", path, alpha=alpha, beta=beta, lower=v, upper=v,
                         pruned=tuple(order[k + 1:]), reason=reason)
                break
        if events is not None:
            emit("exit", path, alpha=alpha, beta=beta, lower=v, upper=v)
        if naive:                            # skipped children: no upper (lower) bound at MAX (MIN)
            known[0], known[1] = (low, INF if cut else high) if is_max else (-INF if cut else low, high)
        return v

    root = game.initial_state() if state is None else state
    v = value(root, (), 0, -INF, INF)
    move = first_best(returned, game.turn(root), by="lower") if returned else None
    return ctx.result(name, v, v, move, epsilon=epsilon)
