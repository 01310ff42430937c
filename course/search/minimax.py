"""Minimax and expectimax: the exact values, every leaf evaluated.

The *minimax value* (Atzmon et al. 2018, Eq. 1) of a node is the utility of
a leaf, the largest child value at a MAX node, the smallest at a MIN node and
the probability-weighted mean at a CHANCE node.  Minimax computes it for
trees without chance; expectimax (Michie 1966) for any tree.  Both visit the
whole tree depth-first (to the depth limit, if one is given), so they are the
brute force that every pruning search is checked against.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game import Game, Path, Player
from ._context import EXPAND, SearchContext, first_best
from .chance import ChanceBounds, chance_value
from .result import ChildResult, SearchResult

__all__ = ["minimax", "expectimax"]


def minimax(
    game: Game,
    state: Any = None,
    *,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Exact minimax value of a game without chance, evaluating every leaf.

    Parameters
    ----------
    game : Game
        The game (e.g. from :func:`course.parse_tree`).
    state : optional
        Where to search from; default ``game.initial_state()``.
    order : str or callable, optional
        Move ordering (see :mod:`course.search.ordering`); default ``"given"``.
    seed : int, optional
        Seed of the ``"random"`` ordering.
    depth : int, optional
        Depth limit: states at this depth (root = 0) are evaluated with
        ``evaluate`` instead of being expanded (heuristic minimax, Strass's
        ``hmm(s, d)``).  Default: search to terminal states.
    evaluate : callable, optional
        EVAL for horizon states; default ``game.evaluate``.
    cutoff : callable, optional
        IS-CUTOFF: ``cutoff(state, depth)`` returns True to evaluate ``state``
        instead of expanding it.
    trace : bool, optional
        Record a :class:`~course.search.result.Trace` of every step.

    Returns
    -------
    SearchResult
        ``lower == upper ==`` the value; ``move`` is the first child (in
        search order) attaining it.

    Raises
    ------
    ChanceNodeError
        If the search reaches a chance node (use :func:`expectimax`).
    ParameterError
        For an invalid ``depth`` or ``order``.

    Examples
    --------
    >>> from course import parse_tree
    >>> result = minimax(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    >>> result.value, result.move, result.evaluated
    (3, 0, 9)

    Notes
    -----
    Time O(b^d), space O(b d) for branching factor b and depth d.
    """
    return _run("minimax", game, state, allow_chance=False, order=order, seed=seed,
                depth=depth, evaluate=evaluate, cutoff=cutoff, trace=trace)


def expectimax(
    game: Game,
    state: Any = None,
    *,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Exact expectimax value of any game, evaluating every leaf.

    Takes the same parameters as :func:`minimax`; a CHANCE node's value is
    ``sum(p * value(child))``, accumulated in the order the children are
    searched (with floating-point probabilities: normalised by their sum and
    kept within the children's range, see :mod:`course.search.chance`).

    Examples
    --------
    >>> from course import parse_tree
    >>> # the lecture notes' example: (1/2)(8) + (1/3)(24) + (1/6)(12)
    >>> from fractions import Fraction as F
    >>> expectimax(parse_tree({"chance": [[F(1, 2), 8], [F(1, 3), 24], [F(1, 6), 12]]})).value
    Fraction(14, 1)
    """
    return _run("expectimax", game, state, allow_chance=True, order=order, seed=seed,
                depth=depth, evaluate=evaluate, cutoff=cutoff, trace=trace)


def _run(name, game, state, *, allow_chance, trace, **options) -> SearchResult:
    ctx = SearchContext(game, trace=trace, allow_chance=allow_chance, **options)
    leaf, expand, result = ctx.leaf, ctx.expand, game.result
    events, emit, root_children = ctx.events, ctx.emit, ctx.root_children

    def value(state: Any, path: Path, depth: int) -> float:
        v = leaf(state, path, depth)
        if v is not EXPAND:
            return v
        player, moves, probabilities, order = expand(state, path)
        if events is not None:
            emit("enter", path, player=player.value)
        is_max = player is Player.MAX
        if probabilities is not None:
            probabilities = [probabilities[i] for i in order]
            # A trace shows the value after each child (ChanceBounds); without one, only the
            # final value is needed, which chance_value computes with the same arithmetic.
            chance = ChanceBounds(probabilities, 0, 0) if events is not None else None
            values = []
        v = None
        for index in order:
            child_value = value(result(state, moves[index]), path + (index,), depth + 1)
            if not path:
                root_children.append(ChildResult(index, child_value, child_value))
            if probabilities is not None:
                if events is None:
                    values.append(child_value)
                    continue
                v = chance.add(child_value, child_value)[0]
            elif v is None or (child_value > v if is_max else child_value < v):
                v = child_value
            if events is not None:
                emit("update", path, child=index, lower=v, upper=v)
        if events is not None:
            emit("exit", path, lower=v, upper=v)
        elif probabilities is not None:
            v = chance_value(probabilities, values)
        return v

    root = game.initial_state() if state is None else state
    v = value(root, (), 0)
    move = None
    if root_children:
        move = first_best(root_children, game.turn(root), by="lower")
    return ctx.result(name, v, v, move)
