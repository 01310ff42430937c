"""Chen's selective search: expand only the moves that look best.

Chen (*A Study of Decision Error in Selective Game Tree Search*) studies a
depth-limited minimax search that, at every node it expands, ranks the
children by the static evaluation EVAL and *skips* the ``s`` worst of them,
searching the remaining ``b - s``.  Values are backed up from depth ``d``,
where EVAL is used.  Skipping lets the search go deeper for the same effort,
at the price of *omission error* (Propositions 2 and 3, Corollaries 2.1, 2.2
and 3.1 of the paper).

"Worst" is read from the point of view of the player to move: MAX keeps the
children with the highest EVAL, MIN those with the lowest (Chen's text says
"highest Eval values", and his values are MAX's, but "the s worst successor
nodes" of a MIN node are the ones best for MAX).  Ties keep the lower index.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from ..game import Game, Path, Player
from ._context import EXPAND, SearchContext, first_best
from .result import ChildResult, SearchResult

__all__ = ["selective"]


def selective(
    game: Game,
    state: Any = None,
    *,
    depth: int,
    skip: int = 0,
    evaluate: Callable[[Any], float] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Depth-limited minimax that expands only the ``b - skip`` best-looking children.

    Parameters
    ----------
    game : Game
        A game without chance nodes, with an evaluation function.
    state : optional
        Where to search from; default ``game.initial_state()``.
    depth : int
        Search depth ``d`` (>= 1): nodes at this depth are evaluated with EVAL.
    skip : int, optional
        ``s``, the number of children skipped at every expanded node.  Nodes
        with ``skip`` or fewer children keep their single best child.
    evaluate : callable, optional
        EVAL; default ``game.evaluate``.
    trace : bool, optional
        Record a trace; skipped children appear as a ``cutoff`` event.

    Returns
    -------
    SearchResult
        ``expanded + evaluated`` is the number of nodes Chen counts as
        "generated per search" (the static evaluations used for ranking are
        not counted).  ``move`` is the first kept root child with the best
        backed-up value.

    Raises
    ------
    ParameterError
        If ``depth < 1`` or ``skip < 0``.
    ChanceNodeError
        If the search reaches a chance node.

    Examples
    --------
    >>> from course import parse_tree
    >>> game = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> r = selective(game, depth=2, skip=1, evaluate=lambda node: 0)
    >>> r.value, r.expanded + r.evaluated   # 1 + 2 + 4 nodes
    (3, 7)
    """
    if not isinstance(depth, int) or depth < 1:
        raise ParameterError(f"depth must be an integer >= 1, got {depth!r}")
    if not isinstance(skip, int) or skip < 0:
        raise ParameterError(f"skip must be an integer >= 0, got {skip!r}")
    ctx = SearchContext(game, depth=depth, evaluate=evaluate, trace=trace, allow_chance=False)
    leaf = ctx.leaf

    def value(state: Any, path: Path, level: int) -> float:
        v = leaf(state, path, level)
        if v is not EXPAND:
            return v
        player, children = ctx.begin(state, path)
        keep = max(1, len(children) - skip)
        if keep < len(children):
            estimates = [ctx.static_value(game.result(state, move)) for _, move, _ in children]
            sign = -1 if player is Player.MAX else 1
            ranked = sorted(range(len(children)), key=lambda k: sign * estimates[k])
            kept = sorted(ranked[:keep])
            skipped = tuple(children[k][0] for k in sorted(ranked[keep:]))
            children = [children[k] for k in kept]
        else:
            skipped = ()
        if ctx.events is not None:
            ctx.emit("enter", path, player=player.value)
            if skipped:
                ctx.emit("cutoff", path, pruned=skipped, reason=f"skipped the {len(skipped)} worst by EVAL")
        v = None
        for index, move, _ in children:
            child_value = value(game.result(state, move), path + (index,), level + 1)
            if not path:
                ctx.root_children.append(ChildResult(index, child_value, child_value))
            if v is None or (child_value > v if player is Player.MAX else child_value < v):
                v = child_value
            if ctx.events is not None:
                ctx.emit("update", path, child=index, lower=v, upper=v)
        if ctx.events is not None:
            ctx.emit("exit", path, lower=v, upper=v)
        return v

    root = game.initial_state() if state is None else state
    v = value(root, (), 0)
    move = first_best(ctx.root_children, game.turn(root), by="lower") if ctx.root_children else None
    return ctx.result("selective", v, v, move)
