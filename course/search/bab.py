"""Bounded Alpha-Beta (BAB) and Star1: pruning with bounds, with or without chance.

Atzmon, Stern & Saffidine (2018, Algorithm 1) keep, for every node ``n``,
bounds ``L(n) <= V(n) <= U(n)`` on its value, starting from the game's known
utility bounds ``[vmin, vmax]``, and a window ``(alpha(n), beta(n))``:

* at the root, ``alpha = vmin`` and ``beta = vmax``;
* below a MAX or MIN parent ``p``, ``alpha = alpha(p)`` and ``beta = beta(p)``;
* below a CHANCE parent ``p``, reached with probability ``pi``, using the
  parent's current ``L(p)``, ``U(p)`` and the child's initial ``L = vmin``,
  ``U = vmax`` (condition C6)::

      alpha = max(vmin, (alpha(p) - U(p)) / pi + U)
      beta  = min(vmax, (beta(p)  - L(p)) / pi + L)

After each child ``c`` returns ``(L(c), U(c))``:

* MAX: ``L = max(L, L(c))``, ``best_U = max(best_U, U(c))``;
* MIN: ``U = min(U, U(c))``, ``best_L = min(best_L, L(c))``;
* CHANCE: ``L += pi(c) (L(c) - vmin)``, ``U -= pi(c) (vmax - U(c))`` (C3, incrementally);

then ``alpha = max(L, alpha)``, ``beta = min(U, beta)``, and the node **prunes
when beta <= alpha + epsilon and c is not its last child**.  A MAX node that
pruned keeps ``U = vmax`` and a MIN node keeps ``L = vmin``; a fully expanded
MAX node takes ``U = best_U`` and a MIN node ``L = best_L``.  Theorem 1: the
root's bounds contain the minimax value and ``U - L <= epsilon``.

The CHANCE update is computed as :mod:`course.search.chance` describes:
with exact numbers it is the incremental C3 update above; with floating-point
probabilities (which sum to 1 only within 1e-9) the probabilities are
normalised by their sum and rounding is kept from crossing the bounds
(``U < L``) or moving them outside the children's range.  A fully expanded
chance node whose children's bounds meet returns exactly expectimax's value.

The extracted pseudocode prints the pruning test as ``beta < alpha + eps``;
the paper's text ("prunes states whenever beta <= alpha + eps") and its claim
that epsilon = 0 is standard alpha-beta both need ``<=``, which is used here.

With epsilon = 0 this is Star1, the basic member of Ballard's (1983)
*-minimax family (rediscovered by Hauk, Buro & Schaeffer 2004; Star2, the
member that probes first, is :func:`course.search.star2`): on trees without
chance it evaluates the same leaves as alpha-beta, except that a leaf equal
to vmin or vmax can trigger extra, still safe, cuts.

``strict=True`` prunes only when ``beta < alpha + epsilon`` (the pseudocode's
printed test): with epsilon = 0 that is the strict rule of
:func:`course.search.alphabeta` (CS188's), and on trees without chance and
with bounds strictly outside the leaves it evaluates the same leaves as
``alphabeta(strict=True)``.  The guarantee ``U - L <= epsilon`` holds either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Real
from typing import Any

from ..errors import BoundsError, ParameterError
from ..game import Game, Path, Player
from ..trees import TreeGame
from ._context import EXPAND, SearchContext, check_epsilon, first_best
from .alphabeta import _check_strict
from .chance import ChanceBounds
from .result import ChildResult, SearchResult

__all__ = ["bab", "star1"]


def bab(
    game: Game,
    state: Any = None,
    *,
    epsilon: float = 0,
    vmin: float | None = None,
    vmax: float | None = None,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
    strict: bool = False,
) -> SearchResult:
    """Bounded Alpha-Beta: bounds on the value, at most ``epsilon`` apart.

    Parameters
    ----------
    game : Game
        Any game, with or without chance nodes.
    state : optional
        Where to search from; default ``game.initial_state()``.
    epsilon : float, optional
        The allowed error, >= 0.  Default 0 (Star1).
    vmin, vmax : float, optional
        Bounds on every utility; default ``game.vmin`` and ``game.vmax``.
    order, seed, depth, evaluate, cutoff, trace
        As for :func:`course.search.minimax`.
    strict : bool, optional
        Prune only when ``beta < alpha + epsilon`` (no prune on equality, as
        CS188 requires of alpha-beta).  Default False: ``beta <= alpha + epsilon``.

    Returns
    -------
    SearchResult
        ``lower`` and ``upper`` are the root's ``L`` and ``U``, with
        ``lower <= V(root) <= upper`` and ``upper - lower <= epsilon``; ``value``
        is set when they meet.  ``move`` is, at a MAX root, the searched child
        with the highest ``L``, at a MIN root the one with the lowest ``U``
        (the first in search order on ties); None at a chance root.

    Raises
    ------
    ParameterError
        If ``epsilon`` is negative, or the bounds are missing or inverted.
    BoundsError
        If a leaf lies outside ``[vmin, vmax]`` (for an explicit tree, checked
        for every leaf before the search).

    Examples
    --------
    The BAB paper's Figure 3, rebuilt from its text (vmin = 0, vmax = 10):
    with epsilon = 2 node C's second child is pruned, with epsilon = 1 node B's.

    >>> from course.examples import bab_figure3
    >>> game = bab_figure3()
    >>> [bab(game, epsilon=e).leaves for e in (1, 2)]
    [((0,), (1, 0, 0), (1, 0, 1)), ((0,), (1, 0, 0), (1, 1))]

    Notes
    -----
    Choose the move by ``L``: it guarantees at least ``V(root) - epsilon``,
    whereas choosing by ``U`` does not (Atzmon et al. 2018).
    """
    epsilon = check_epsilon(epsilon)
    return _run("bab", game, state, epsilon=epsilon, vmin=vmin, vmax=vmax, order=order,
                seed=seed, depth=depth, evaluate=evaluate, cutoff=cutoff, trace=trace,
                strict=_check_strict(strict))


def star1(
    game: Game,
    state: Any = None,
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    order: Any = "given",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
    strict: bool = False,
) -> SearchResult:
    r"""Star1, the basic \*-minimax search: :func:`bab` with ``epsilon = 0``, the exact value.

    Takes the parameters of :func:`bab` other than ``epsilon`` (``strict``
    included: with it, prune only when ``beta < alpha``).

    Examples
    --------
    The CS 520 note's game with U(a2, c1) = -0.9: below the threshold -0.875,
    so branch c2 of a2 is never searched.

    >>> from course.examples import chance_note_game
    >>> result = star1(chance_note_game(u_a2_c1=-0.9))
    >>> float(result.value), (1, 1) in {leaf[:2] for leaf in result.leaves}
    (-0.5, False)
    """
    return _run("star1", game, state, epsilon=0, vmin=vmin, vmax=vmax, order=order,
                seed=seed, depth=depth, evaluate=evaluate, cutoff=cutoff, trace=trace,
                strict=_check_strict(strict))


def _run(name, game, state, *, epsilon, vmin, vmax, trace, strict=False, **options) -> SearchResult:
    vmin = game.vmin if vmin is None else vmin
    vmax = game.vmax if vmax is None else vmax
    if not all(isinstance(b, Real) and math.isfinite(b) for b in (vmin, vmax)):
        raise ParameterError(
            f"{name} needs finite utility bounds, got [{vmin}, {vmax}]; "
            "pass vmin=... and vmax=..., or give the game (tree file) bounds"
        )
    if vmin > vmax:
        raise ParameterError(f"vmin={vmin} exceeds vmax={vmax}")
    if isinstance(game, TreeGame):
        # An explicit tree is checked whole, so a bad leaf is reported even if it would be pruned.
        for leaf in (game.root if state is None else state).leaves():
            if not vmin <= leaf.value <= vmax:
                raise BoundsError(
                    f"leaf value {leaf.value!r} lies outside the bounds [{vmin}, {vmax}]; "
                    "give bounds that contain every leaf",
                    path=leaf.path,
                )
    ctx = SearchContext(game, trace=trace, check_bounds=(vmin, vmax), **options)
    leaf, expand, result = ctx.leaf, ctx.expand, game.result
    events, emit, root_children = ctx.events, ctx.emit, ctx.root_children

    def search(state: Any, path: Path, depth: int, alpha: float, beta: float) -> tuple[float, float]:
        value = leaf(state, path, depth)                   # lines 1-2
        if value is not EXPAND:
            return value, value
        player, moves, probabilities, order = expand(state, path)
        is_max, is_min = player is Player.MAX, player is Player.MIN
        L, U = vmin, vmax                                  # line 3
        best_U, best_L = vmin, vmax                        # lines 4-5
        if probabilities is not None:                      # C3, see course.search.chance
            chance = ChanceBounds([probabilities[i] for i in order], vmin, vmax)
        # lines 6-10: the window (alpha, beta) was computed by the caller, see below
        if events is not None:
            emit("enter", path, player=player.value, alpha=alpha, beta=beta, lower=L, upper=U)
        last = len(order) - 1
        # max(a, b) and min(a, b) are written out below as the same comparisons (max keeps a
        # unless b > a), which keeps every number, and its type, exactly as the pseudocode's.
        for k, index in enumerate(order):                  # line 11
            if probabilities is not None:                  # the child's window, lines 9-10 (C6),
                # exact for the node's own arithmetic (see course.search.chance)
                child_alpha, child_beta = chance.window(alpha, beta, L, U)
            else:                                          # lines 7-8 (C5)
                child_alpha, child_beta = alpha, beta
            Lc, Uc = search(result(state, moves[index]), path + (index,), depth + 1,
                            child_alpha, child_beta)       # line 12
            if not path:
                root_children.append(ChildResult(index, Lc, Uc))
            if is_max:                                     # lines 13-15
                if Uc > best_U:
                    best_U = Uc                            # best_U = max(best_U, U(c))
                if Lc > L:
                    L = Lc                                 # L = max(L, L(c))
            elif is_min:                                   # lines 16-18
                if Lc < best_L:
                    best_L = Lc                            # best_L = min(best_L, L(c))
                if Uc < U:
                    U = Uc                                 # U = min(U, U(c))
            else:                                          # lines 19-21 (C3)
                L, U = chance.add(Lc, Uc)
            if not alpha > L:
                alpha = L                                  # line 22: alpha = max(L, alpha)
            if not beta < U:
                beta = U                                   # line 23: beta = min(U, beta)
            if events is not None:
                emit("update", path, child=index, alpha=alpha, beta=beta, lower=L, upper=U)
            # line 24 (<=, see module notes; strict: <, as the pseudocode prints it)
            if (beta < alpha + epsilon if strict else beta <= alpha + epsilon) and k < last:
                if events is not None:
                    emit("cutoff", path, alpha=alpha, beta=beta, lower=L, upper=U,
                         pruned=tuple(order[k + 1:]),
                         reason=f"beta={beta} {'<' if strict else '<='} alpha={alpha} "
                                f"+ epsilon={epsilon}")
                    emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
                return L, U
        if is_max:                                         # line 25
            U = best_U
        elif is_min:                                       # line 26
            L = best_L
        if events is not None:
            emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
        return L, U                                        # line 27

    root = game.initial_state() if state is None else state
    lower, upper = search(root, (), 0, vmin, vmax)
    move = None
    if ctx.root_children:
        root_player = game.turn(root)
        move = first_best(ctx.root_children, root_player,
                          by="lower" if root_player is Player.MAX else "upper")
    return ctx.result(name, lower, upper, move, epsilon=epsilon)
