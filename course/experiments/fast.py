"""Fast alpha-beta, Star1 and BAB on the BAB paper's random trees, identical to the reference.

The reference searches of :mod:`course.search` go through the general
:class:`~course.game.Game` interface, keep paths as tuples and can record a
trace: right for teaching, too slow for the thousands of searches of the
paper's experiments.  The functions here run the *same algorithms* directly on
a random tree's array of leaf values (:mod:`course.games.random_trees`):
states become integers, the leaves below a node are a slice of the array, and
nothing is allocated per node.

"Identical" is meant literally and is property-tested
(``tests/test_experiments.py``): for every tree, search and epsilon, the
returned :class:`~course.search.result.SearchResult` compares equal to the
reference one: same ``lower``/``upper`` (the same floating-point operations
in the same order), same ``move``, same ``expanded`` and ``evaluated``
counts, the same root ``children`` bounds and, when ``leaves=True``, the same
leaf paths in the same order.  Only ``"given"`` move ordering is supported,
the ordering the paper's experiments use.

Examples
--------
>>> from course.games.random_trees import random_tree
>>> from course.search import bab
>>> game = random_tree(3, 5, seed=4)
>>> fast_search("bab", game, epsilon=10) == bab(game, epsilon=10)
True
"""

from __future__ import annotations

import math
from numbers import Real

from ..errors import BoundsError, ParameterError
from ..game import Path
from ..games.random_trees import RandomTree, StochasticRandomTree
from ..search.chance import bound_after, fit_window
from ..search.result import SearchResult

__all__ = ["fast_search", "FAST_ALGORITHMS"]

FAST_ALGORITHMS = ("alphabeta", "star1", "bab")
"""The searches :func:`fast_search` implements."""

INF = float("inf")


def fast_search(
    algorithm: str,
    game: RandomTree | StochasticRandomTree,
    *,
    epsilon: float = 0,
    leaves: bool = True,
) -> SearchResult:
    """Run a search on a random tree, with the result of the reference search.

    Parameters
    ----------
    algorithm : {"alphabeta", "star1", "bab"}
        Which search; the same as :func:`course.search.alphabeta`,
        :func:`course.search.star1` or :func:`course.search.bab` with
        ``order="given"`` and the game's own bounds.
    game : RandomTree or StochasticRandomTree
        From :func:`~course.games.random_trees.random_tree` or
        :func:`~course.games.random_trees.stochastic_random_tree`.  Alpha-beta
        needs a tree without chance (a :class:`RandomTree`).
    epsilon : float, optional
        BAB's error bound (>= 0); only for ``"bab"``.
    leaves : bool, optional
        Record the evaluated leaves' paths (default).  With False the result's
        ``leaves`` is empty, ``evaluated`` still counts them, and the search is
        a little faster: the experiments' setting.

    Returns
    -------
    SearchResult
        Equal (``==``) to the reference search's result when ``leaves=True``.
        Its ``trace`` is None.

    Raises
    ------
    ParameterError
        For an unknown algorithm, a game that is not a random tree, alpha-beta
        on a stochastic tree, an epsilon given to alpha-beta or Star1, or a
        negative epsilon.
    BoundsError
        If a leaf lies outside ``[game.vmin, game.vmax]``.

    Examples
    --------
    >>> from course.games.random_trees import random_tree, stochastic_random_tree
    >>> from course.search import alphabeta, star1
    >>> g = random_tree(4, 4, seed=2)
    >>> fast_search("alphabeta", g) == alphabeta(g)
    True
    >>> s = stochastic_random_tree(3, 2, seed=5)
    >>> r = fast_search("bab", s, epsilon=8, leaves=False)
    >>> r.upper - r.lower <= 8, r.leaves
    (True, ())
    >>> fast_search("star1", s) == star1(s)
    True

    Notes
    -----
    The speed comes from three things, none of which changes what is
    computed: integer states (a node is its position in its level), leaf
    values read straight from a Python list when a node's children are
    leaves, and no per-node allocation (paths are rebuilt at the end from the
    leaves' positions).
    """
    if algorithm not in FAST_ALGORITHMS:
        raise ParameterError(
            f"fast_search implements {', '.join(FAST_ALGORITHMS)}, not {algorithm!r}; "
            "use course.search for the others"
        )
    if not isinstance(game, (RandomTree, StochasticRandomTree)):
        raise ParameterError(
            f"fast_search needs a random_tree or stochastic_random_tree, got {type(game).__name__}; "
            "use course.search for other games"
        )
    if algorithm == "bab":
        if isinstance(epsilon, bool) or not isinstance(epsilon, Real) or not math.isfinite(epsilon):
            raise ParameterError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
        if epsilon < 0:
            raise ParameterError(f"epsilon must be >= 0, got {epsilon!r}; epsilon = 0 is exact search")
    elif epsilon != 0:
        raise ParameterError(f"epsilon applies to bab only, not {algorithm}")
    lo, hi = float(game.leaf_values.min()), float(game.leaf_values.max())
    if lo < game.vmin or hi > game.vmax:
        raise BoundsError(
            f"leaf values span [{lo}, {hi}], outside the game's bounds [{game.vmin}, {game.vmax}]"
        )
    if algorithm == "alphabeta" and isinstance(game, StochasticRandomTree):
        raise ParameterError(
            "alphabeta handles MAX and MIN nodes only and a stochastic random tree has "
            "chance nodes; use star1 or bab"
        )
    # the result's epsilon: none for alpha-beta, 0 for Star1 (BAB with epsilon = 0)
    eps = None if algorithm == "alphabeta" else (epsilon if algorithm == "bab" else 0)
    if game.depth == 0:                     # the root is the only leaf: nothing to search
        return _leaf_root(game, algorithm, eps)
    if algorithm == "alphabeta":
        return _alphabeta_rt(game, leaves)
    if isinstance(game, RandomTree):
        return _bab_rt(game, algorithm, eps, leaves)
    return _bab_stochastic(game, algorithm, eps, leaves)


def _first_best(children: list, maximise: bool, key: int) -> int | None:
    """The reference's root move: the first searched child with the best bound."""
    best = None
    for child in children:
        if best is None or (child[key] > best[key] if maximise else child[key] < best[key]):
            best = child
    return None if best is None else best[0]


def _paths(codes: list[int], base: int, length: int) -> tuple[Path, ...]:
    out = []
    for code in codes:
        digits = [0] * length
        for position in range(length - 1, -1, -1):
            code, digits[position] = divmod(code, base)
        out.append(tuple(digits))
    return tuple(out)


def _leaf_root(game, name: str, epsilon) -> SearchResult:
    """A tree of depth 0: the root is the only leaf."""
    value = game._values[0]
    return SearchResult(algorithm=name, lower=value, upper=value, move=None, expanded=0,
                        evaluated=1, leaves=((),), children=(), epsilon=epsilon)


def _result(name: str, lower: float, upper: float, epsilon, root_children: list,
            expanded: int, evaluated: int, leaf_codes: list[int], base: int,
            length: int) -> SearchResult:
    """The reference's result from a fast search's counters (``leaf_codes`` empty: no leaves)."""
    return SearchResult(
        algorithm=name, lower=lower, upper=upper,
        move=_first_best(root_children, True, 1),
        expanded=expanded, evaluated=evaluated,
        leaves=_paths(leaf_codes, base, length),
        children=tuple(root_children), epsilon=epsilon,
    )


# --------------------------------------------------------------------------------------
# Alpha-beta on RT (Russell & Norvig: cut when v >= beta at MAX, v <= alpha at MIN)
# --------------------------------------------------------------------------------------
def _alphabeta_rt(game: RandomTree, record: bool) -> SearchResult:
    b, d, vals = game.branching, game.depth, game._values
    expanded = 0
    evaluated = 0
    leaf_codes: list[int] = []
    root_children: list = []
    rng_b = range(b)

    def node(t: int, i: int, alpha: float, beta: float) -> float:
        nonlocal expanded, evaluated
        expanded += 1
        base = i * b
        if t == d - 1:                      # the children are leaves: read them from the list
            n = 0
            if t % 2 == 0:
                v = -INF
                for k in rng_b:
                    cv = vals[base + k]
                    n += 1
                    if t == 0:
                        root_children.append((k, cv, cv))
                    if cv > v:
                        v = cv
                    if v >= beta:           # cut-off
                        break
                    if v > alpha:
                        alpha = v
            else:
                v = INF
                for k in rng_b:
                    cv = vals[base + k]
                    n += 1
                    if t == 0:
                        root_children.append((k, cv, cv))
                    if cv < v:
                        v = cv
                    if v <= alpha:          # cut-off
                        break
                    if v < beta:
                        beta = v
            evaluated += n
            if record:
                leaf_codes.extend(range(base, base + n))
            return v
        t1 = t + 1
        if t % 2 == 0:
            v = -INF
            for k in rng_b:
                cv = node(t1, base + k, alpha, beta)
                if t == 0:
                    root_children.append((k, cv, cv))
                if cv > v:
                    v = cv
                if v >= beta:
                    break
                if v > alpha:
                    alpha = v
        else:
            v = INF
            for k in rng_b:
                cv = node(t1, base + k, alpha, beta)
                if t == 0:
                    root_children.append((k, cv, cv))
                if cv < v:
                    v = cv
                if v <= alpha:
                    break
                if v < beta:
                    beta = v
        return v

    v = node(0, 0, -INF, INF)
    return _result("alphabeta", v, v, None, root_children, expanded, evaluated, leaf_codes, b, d)


# --------------------------------------------------------------------------------------
# BAB / Star1 on RT (Algorithm 1 without chance nodes)
# --------------------------------------------------------------------------------------
def _bab_rt(game: RandomTree, name: str, eps: float, record: bool) -> SearchResult:
    b, d, vals = game.branching, game.depth, game._values
    vmin, vmax = game.vmin, game.vmax
    expanded = 0
    evaluated = 0
    leaf_codes: list[int] = []
    root_children: list = []
    last = b - 1
    rng_b = range(b)

    # The comparisons below are the reference's max()/min() calls written out:
    # max(x, y) returns x unless y > x, min(x, y) returns x unless y < x.
    def node(t: int, i: int, alpha: float, beta: float) -> tuple[float, float]:
        nonlocal expanded, evaluated
        expanded += 1
        base = i * b
        L, U = vmin, vmax
        leaf_level = t == d - 1
        t1 = t + 1

        if t % 2 == 0:                                     # MAX node
            best_U = vmin
            for k in rng_b:
                if leaf_level:
                    Lc = Uc = vals[base + k]
                    evaluated += 1
                    if record:
                        leaf_codes.append(base + k)
                else:
                    Lc, Uc = node(t1, base + k, alpha, beta)
                if t == 0:
                    root_children.append((k, Lc, Uc))
                if Uc > best_U:
                    best_U = Uc
                if Lc > L:
                    L = Lc
                if alpha > L:                              # alpha = max(L, alpha)
                    pass
                else:
                    alpha = L
                if beta < U:                               # beta = min(U, beta)
                    pass
                else:
                    beta = U
                if beta <= alpha + eps and k < last:       # prune
                    return L, U
            return L, best_U
        best_L = vmax                                      # MIN node
        for k in rng_b:
            if leaf_level:
                Lc = Uc = vals[base + k]
                evaluated += 1
                if record:
                    leaf_codes.append(base + k)
            else:
                Lc, Uc = node(t1, base + k, alpha, beta)
            if t == 0:
                root_children.append((k, Lc, Uc))
            if Lc < best_L:
                best_L = Lc
            if Uc < U:
                U = Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if beta <= alpha + eps and k < last:
                return L, U
        return best_L, U

    lower, upper = node(0, 0, vmin, vmax)
    return _result(name, lower, upper, eps, root_children, expanded, evaluated, leaf_codes, b, d)


# --------------------------------------------------------------------------------------
# BAB / Star1 on stochastic RT (Algorithm 1 with chance nodes)
# --------------------------------------------------------------------------------------
def _bab_stochastic(game: StochasticRandomTree, name: str, eps: float, record: bool) -> SearchResult:
    b, d, vals = game.branching, game.depth, game._values
    vmin, vmax = game.vmin, game.vmax
    probs = game.outcome_probabilities
    expanded = 0
    evaluated = 0
    leaf_codes: list[int] = []
    root_children: list = []
    last = b - 1
    rng_b = range(b)

    # ``code`` numbers a node among all nodes of its depth in the expanded tree
    # (decisions and outcomes both count as digits), so paths can be rebuilt.
    def decision(t: int, i: int, code: int, alpha: float, beta: float) -> tuple[float, float]:
        nonlocal expanded
        expanded += 1
        L, U = vmin, vmax
        is_max = t % 2 == 0
        best = vmin if is_max else vmax
        for j in rng_b:
            Lc, Uc = chance(t, i, j, code * b + j, alpha, beta)
            if t == 0:
                root_children.append((j, Lc, Uc))
            if is_max:
                if Uc > best:
                    best = Uc
                if Lc > L:
                    L = Lc
            else:
                if Lc < best:
                    best = Lc
                if Uc < U:
                    U = Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if beta <= alpha + eps and j < last:
                return L, U
        return (L, best) if is_max else (best, U)

    # C3 as course.search.chance computes it: sums term by term, left to right, an
    # unexplored child counted at vmin (L) / vmax (U), normalised by the total T, clamped.
    totals = []
    for p_j in probs:
        total = 0
        for p in p_j:
            total += p
        totals.append(total)

    def chance(t: int, i: int, j: int, code: int, alpha: float, beta: float) -> tuple[float, float]:
        nonlocal expanded, evaluated
        expanded += 1
        L, U = vmin, vmax
        sum_L = sum_U = 0
        lo_L = hi_L = lo_U = hi_U = None
        p_j = probs[j]
        total = totals[j]
        base = i * b
        leaf_level = t == d - 1
        t1 = t + 1
        for k in rng_b:
            p = p_j[k]
            if leaf_level:
                Lc = Uc = vals[base + k]
                evaluated += 1
                if record:
                    leaf_codes.append(code * b + k)
            else:
                q = p if total == 1 else p / total
                child_alpha = (alpha - U) / q + vmax       # C6, with the child's U = vmax
                if vmin > child_alpha:
                    child_alpha = vmin
                child_beta = (beta - L) / q + vmin         # C6, with the child's L = vmin
                if vmax < child_beta:
                    child_beta = vmax
                # exact for this node's rounding, as ChanceBounds.window (course.search.chance)
                child_alpha, child_beta = fit_window(
                    child_alpha, child_beta, alpha, beta,
                    lambda x, k=k, s=sum_U, lo=lo_U, hi=hi_U: bound_after(p_j, total, k, x, s, lo,
                                                                          hi, vmax),
                    lambda x, k=k, s=sum_L, lo=lo_L, hi=hi_L: bound_after(p_j, total, k, x, s, lo,
                                                                          hi, vmin),
                    vmin, vmax)
                Lc, Uc = decision(t1, base + k, code * b + k, child_alpha, child_beta)
            sum_L += p * Lc
            sum_U += p * Uc
            if k == 0:
                lo_L = hi_L = Lc
                lo_U = hi_U = Uc
            else:
                if Lc < lo_L:
                    lo_L = Lc
                if Lc > hi_L:
                    hi_L = Lc
                if Uc < lo_U:
                    lo_U = Uc
                if Uc > hi_U:
                    hi_U = Uc
            if k < last:
                L, U = sum_L, sum_U
                for r in range(k + 1, b):
                    L += p_j[r] * vmin
                    U += p_j[r] * vmax
                a, z, c, w = min(lo_L, vmin), max(hi_L, vmin), min(lo_U, vmax), max(hi_U, vmax)
            else:
                L, U = sum_L, sum_U
                a, z, c, w = lo_L, hi_L, lo_U, hi_U
            if total != 1:
                L = L / total
                U = U / total
            L = a if L < a else z if L > z else L
            U = c if U < c else w if U > w else U
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if beta <= alpha + eps and k < last:
                return L, U
        return L, U

    lower, upper = decision(0, 0, 0, vmin, vmax)
    return _result(name, lower, upper, eps, root_children, expanded, evaluated, leaf_codes,
                   b, 2 * d)
