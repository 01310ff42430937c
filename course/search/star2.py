r"""Star2: \*-minimax with a probing phase and probability-ordered outcomes.

Ballard (1983) gave a family of \*-minimax searches for trees with chance
nodes.  Star1 (:func:`course.search.star1`) prunes below a chance node from
bounds alone: each outcome it has not searched yet counts as ``vmin`` in the
node's lower bound and as ``vmax`` in its upper bound, so nothing is cut until
enough probability mass has been searched.  **Star2** first buys cheap
information about *every* outcome, then searches as Star1 does with it:

1. **Probing phase.**  For each outcome ``c_k`` of the chance node (in search
   order) that is a MAX or MIN node, search only its *first* child ``g`` (in
   that node's search order).  A MAX node is worth at least any of its
   children, so ``L(g)`` is a lower bound ``l_k`` on ``V(c_k)``; a MIN node is
   worth at most any child, so ``U(g)`` is an upper bound ``u_k``.  After each
   probe the chance node's bounds are recomputed with ``l_k``/``u_k`` in place
   of ``vmin``/``vmax``, and the node is cut at once when its window closes
   (``beta <= alpha``, as in Star1), before any outcome is searched in full.
   Outcomes that are leaves or chance nodes are not probed.
2. **Search phase.**  Star1's loop over the outcomes, except that an outcome
   not searched yet counts as ``l_k`` (not ``vmin``) in ``L`` and ``u_k`` (not
   ``vmax``) in ``U``.  The child window (condition C6 of Atzmon et al. 2018)
   becomes, for outcome ``k`` of normalised probability ``q_k``, with the
   node's current ``L`` and ``U``::

       alpha_k = max(vmin, (alpha - U) / q_k + u_k)
       beta_k  = min(vmax, (beta  - L) / q_k + l_k)

   (the value of ``c_k`` below ``alpha_k`` brings ``U`` below ``alpha``: the
   same derivation as C6, with ``c_k``'s known bounds instead of
   ``[vmin, vmax]``).  A searched outcome's bounds are intersected with its
   probe's: both are true bounds on ``V(c_k)``.

The probed child ``g`` is the first child the search phase visits below
``c_k``.  With ``keep_probes=True`` (the default) its probe result is reused
there, without searching ``g`` again, when that result already settles
``g``'s new window (its bounds meet, or ``U(g) <= alpha_g``, or ``L(g) >=
beta_g``); otherwise ``g`` is searched again.  A transposition table would
keep that result in a game-playing program; ``keep_probes`` keeps exactly this
one result, and ``keep_probes=False`` re-searches every probed child (the
procedure with no memory at all).

**Outcome order.**  By default the outcomes are searched (and probed) in
decreasing probability (``order="probability"``, see
:mod:`course.search.ordering`): a likely outcome moves both bounds the most,
so the window closes soonest.  MAX and MIN nodes keep the game's order.

**Which variant.**  Ballard and Hauk et al. state Star2 for *regular*
\*-minimax trees, where MAX, chance, MIN, chance levels alternate, so every
outcome of a chance node is a decision node of one kind, and a probe tightens
only the side that can cut (a chance node below MAX has MIN outcomes whose
probes lower ``U``, enabling the cut ``U <= alpha``).  The course's trees may
mix kinds, so this implementation probes every MAX or MIN outcome and tightens
whichever bound its kind gives; on regular trees that is Ballard's probing.
The course's version takes arbitrary outcome probabilities (C3 and C6 with
weights, as in the BAB paper) and keeps MAX and MIN explicit rather than in
negamax form.  Probing repeats work: every probed outcome is expanded once
more in the search phase (``expanded`` counts every expansion, ``evaluated``
and ``leaves`` every evaluation), so Star2 can evaluate *more* leaves than
Star1 on some trees; it saves work when probes cut whole chance nodes.

**Trace.**  The events are those of :func:`course.search.bab`, plus: a probed
outcome is entered, takes in its first child, emits a ``cutoff`` whose
``reason`` starts with ``"probe"`` (the children it did not look at) and
exits with its probe bounds; the chance node then emits an ``update`` with
``reason="probe"``.  A cut in the probing phase is a ``cutoff`` at the chance
node whose ``reason`` starts with ``"probe:"`` and whose ``pruned`` lists
every outcome (none is searched in full; the probed ones were entered).  A
reused probe result is an ``update`` at the outcome with ``reason="probe
result reused"``.  Nodes expanded twice are entered twice (pictures say
``expanded 2×``).

The chance arithmetic is :mod:`course.search.chance`'s: with exact numbers
plain sums; with floats normalised and clamped, so that ``L <= expectimax
value <= U`` at every node and the root's bounds meet at the expectimax value
computed in the same outcome order.

References
----------
B. W. Ballard, *The \*-minimax search procedure for trees containing chance
    nodes*, Artificial Intelligence 21(3):327-350, 1983 (Star1 and Star2).
T. Hauk, M. Buro and J. Schaeffer, *Rediscovering \*-Minimax Search*,
    Computers and Games 2004, LNCS 3846, 35-50 (Star1, Star2 with probing, and
    their measurements with a transposition table).
D. Atzmon, R. Stern and A. Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000): conditions C3 and C6, Algorithm 1.
CS 520 note *alpha-beta Pruning with Chance* (seed 002): the bound of a chance
    node from its searched and unsearched outcomes, equations (3)-(14).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from ..game import Game, Path, Player
from ._context import EXPAND, SearchContext, check_utility_bounds, first_best
from .alphabeta import _check_strict
from .chance import chance_value, normalise
from .result import ChildResult, SearchResult

__all__ = ["star2"]


def star2(
    game: Game,
    state: Any = None,
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    order: Any = "probability",
    seed: int | None = 0,
    depth: int | None = None,
    evaluate: Callable[[Any], float] | None = None,
    cutoff: Callable[[Any, int], bool] | None = None,
    trace: bool = False,
    probing: bool = True,
    keep_probes: bool = True,
    strict: bool = False,
) -> SearchResult:
    r"""Star2 (\*-minimax with probing): the exact expectimax value, probing before searching.

    Parameters
    ----------
    game : Game
        Any game, with or without chance nodes, with finite utility bounds.
    state : optional
        Where to search from; default ``game.initial_state()``.
    vmin, vmax : float, optional
        Bounds on every utility (and EVAL); default ``game.vmin``, ``game.vmax``.
    order : str or callable, optional
        Move ordering (:mod:`course.search.ordering`).  Default
        ``"probability"``: chance outcomes by decreasing probability.
    seed, depth, evaluate, cutoff, trace
        As for :func:`course.search.minimax`.
    probing : bool, optional
        Run the probing phase (default True).  Without it this is exactly
        :func:`course.search.star1` with the same ordering.
    keep_probes : bool, optional
        Reuse a probe's result in the search phase when it settles the new
        window (default True); False searches every probed child again.
    strict : bool, optional
        Cut only when ``beta < alpha`` (see :func:`course.search.alphabeta`).

    Returns
    -------
    SearchResult
        ``lower == upper ==`` the expectimax value (``algorithm="star2"``).
        ``move`` is, at a MAX root, the first searched child with the highest
        ``L``; at a MIN root the one with the lowest ``U``; None at a chance
        root.  ``expanded``, ``evaluated`` and ``leaves`` include the probes.

    Raises
    ------
    ParameterError
        If the bounds are missing, infinite or inverted, or an option is not a bool.
    BoundsError
        If a leaf lies outside ``[vmin, vmax]``.

    Examples
    --------
    MAX already has 6 from its first move.  Probing the first leaf of each MIN
    outcome of the chance node shows that it is worth at most
    ``0.5 * 4 + 0.5 * 3 = 3.5 <= 6``: it is cut before either outcome is
    searched in full.  Star1 searches the first outcome in full first.

    >>> from course import parse_tree, star1
    >>> game = parse_tree({"tree": {"max": [
    ...     6, {"chance": [[0.5, {"min": [4, 9, 9]}], [0.5, {"min": [3, 9]}]]}]},
    ...     "bounds": [0, 10]})
    >>> result = star2(game)
    >>> result.value, result.leaves
    (6, ((0,), (1, 0, 0), (1, 1, 0)))
    >>> star1(game).leaves
    ((0,), (1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 1, 0))

    Notes
    -----
    Star2 is not always cheaper than Star1: a probe costs a subtree search,
    and a probe that cuts nothing is (with ``keep_probes=False``) searched
    again.  See the module docstring for the measured trade-off.
    """
    for name, flag in (("probing", probing), ("keep_probes", keep_probes)):
        if not isinstance(flag, bool):
            raise ParameterError(f"{name} must be True or False, got {flag!r}")
    strict = _check_strict(strict)
    vmin, vmax = check_utility_bounds("star2", game, state, vmin, vmax)
    ctx = SearchContext(game, order=order, seed=seed, depth=depth, evaluate=evaluate,
                        cutoff=cutoff, trace=trace, check_bounds=(vmin, vmax))
    return _Star2(ctx, vmin, vmax, probing=probing, keep_probes=keep_probes,
                  strict=strict).run(state)


def _settles(bounds: tuple[Any, Any], alpha: Any, beta: Any) -> bool:
    """Do a node's known bounds answer a search with window (alpha, beta)?

    A fresh search returns bounds that meet, or that show the value at most
    alpha (fail low) or at least beta (fail high); known bounds with one of
    these properties are as good as a search.
    """
    lower, upper = bounds
    return lower == upper or upper <= alpha or lower >= beta


class _Star2:
    """One run of Star2 (the recursion and its options)."""

    def __init__(self, ctx: SearchContext, vmin: Any, vmax: Any, *, probing: bool,
                 keep_probes: bool, strict: bool) -> None:
        self.ctx, self.vmin, self.vmax = ctx, vmin, vmax
        self.probing, self.keep_probes, self.strict = probing, keep_probes, strict
        self.game = ctx.game
        self.events = ctx.events

    def closed(self, alpha: Any, beta: Any) -> bool:
        """The pruning test (Algorithm 1, line 24, with epsilon = 0)."""
        return beta < alpha if self.strict else beta <= alpha

    def reason(self, alpha: Any, beta: Any) -> str:
        """The pruning test with its numbers, as a cut-off's reason."""
        return f"beta={beta} {'<' if self.strict else '<='} alpha={alpha} + epsilon=0"

    def run(self, state: Any) -> SearchResult:
        game, ctx = self.game, self.ctx
        root = game.initial_state() if state is None else state
        lower, upper = self.search(root, (), 0, self.vmin, self.vmax)
        move = None
        if ctx.root_children:
            player = game.turn(root)
            move = first_best(ctx.root_children, player,
                              by="lower" if player is Player.MAX else "upper")
        return ctx.result("star2", lower, upper, move)

    # -- any node -----------------------------------------------------------------------
    def search(self, state: Any, path: Path, depth: int, alpha: Any, beta: Any,
               known: tuple | None = None) -> tuple[Any, Any]:
        """Bounds ``(L, U)`` of ``state``, searched in full with window (alpha, beta).

        ``known`` is ``(index, L, U)``: the probe's result for the node's first child.
        """
        value = self.ctx.leaf(state, path, depth)
        if value is not EXPAND:
            return value, value
        player, moves, probabilities, order = self.ctx.expand(state, path)
        if player is Player.CHANCE:
            return self.chance(state, path, depth, alpha, beta, moves, probabilities, order)
        return self.decision(state, path, depth, alpha, beta, player, moves, order,
                             probe=False, known=known)[:2]

    def probe(self, state: Any, path: Path, depth: int, alpha: Any,
              beta: Any) -> tuple[Any, Any, tuple]:
        """Search only the first child of decision node ``state``: ``(L, U, (index, Lg, Ug))``."""
        player, moves, _, order = self.ctx.expand(state, path)
        return self.decision(state, path, depth, alpha, beta, player, moves, order,
                             probe=True, known=None)

    # -- MAX and MIN nodes: BAB's lines 3-27, or one child only when probing -------------
    def decision(self, state, path, depth, alpha, beta, player, moves, order, *,
                 probe: bool, known: tuple | None) -> tuple[Any, Any, tuple | None]:
        ctx, events, result = self.ctx, self.events, self.game.result
        vmin, vmax = self.vmin, self.vmax
        is_max = player is Player.MAX
        L, U = vmin, vmax
        best_U, best_L = vmin, vmax
        if events is not None:
            ctx.emit("enter", path, player=player.value, alpha=alpha, beta=beta, lower=L, upper=U)
        last = len(order) - 1
        first = None
        for k, index in enumerate(order):
            reused = (k == 0 and known is not None and known[0] == index
                      and _settles(known[1:], alpha, beta))
            if reused:
                Lc, Uc = known[1], known[2]
            else:
                Lc, Uc = self.search(result(state, moves[index]), path + (index,), depth + 1,
                                     alpha, beta)
            if k == 0:
                first = (index, Lc, Uc)
            if not path and not probe:
                ctx.root_children.append(ChildResult(index, Lc, Uc))
            if is_max:
                if Uc > best_U:
                    best_U = Uc
                if Lc > L:
                    L = Lc
            else:
                if Lc < best_L:
                    best_L = Lc
                if Uc < U:
                    U = Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if events is not None:
                ctx.emit("update", path, child=index, alpha=alpha, beta=beta, lower=L, upper=U,
                         reason="probe result reused" if reused else "")
            if k < last and (self.closed(alpha, beta) or probe):
                if events is not None:
                    if self.closed(alpha, beta):
                        reason = self.reason(alpha, beta)
                    else:
                        reason = "probe: only the first child is searched in the probing phase"
                    ctx.emit("cutoff", path, alpha=alpha, beta=beta, lower=L, upper=U,
                             pruned=tuple(order[k + 1:]), reason=reason)
                    ctx.emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
                return L, U, first
        if is_max:
            U = best_U
        else:
            L = best_L
        if events is not None:
            ctx.emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
        return L, U, first

    # -- chance nodes: probing phase, then Star1's loop with the probes' bounds --------------
    def chance(self, state, path, depth, alpha, beta, moves, probabilities, order):
        ctx, events, game = self.ctx, self.events, self.game
        vmin, vmax = self.vmin, self.vmax
        probs = [probabilities[i] for i in order]          # in search order
        total = 0
        for p in probs:
            total += p
        n = len(order)
        lows, highs = [vmin] * n, [vmax] * n               # l_k, u_k: what is known of outcome k
        L, U = vmin, vmax
        if events is not None:
            ctx.emit("enter", path, player="chance", alpha=alpha, beta=beta, lower=L, upper=U)

        def window(k):                                      # C6 with outcome k's known bounds
            q = normalise(probs[k], total)
            return (max(vmin, (alpha - U) / q + highs[k]),
                    min(vmax, (beta - L) / q + lows[k]))

        firsts: dict[int, tuple] = {}
        if self.probing:
            for k, index in enumerate(order):
                child = game.result(state, moves[index])
                if ctx.is_leaf(child, depth + 1) or game.turn(child) is Player.CHANCE:
                    continue                       # a leaf or a chance node: nothing to probe
                child_alpha, child_beta = window(k)
                Lc, Uc, first = self.probe(child, path + (index,), depth + 1,
                                           child_alpha, child_beta)
                if self.keep_probes:
                    firsts[k] = first
                lows[k], highs[k] = max(lows[k], Lc), min(highs[k], Uc)
                L, U = chance_value(probs, lows), chance_value(probs, highs)
                if not alpha > L:
                    alpha = L
                if not beta < U:
                    beta = U
                if events is not None:
                    ctx.emit("update", path, child=index, alpha=alpha, beta=beta, lower=L,
                             upper=U, reason="probe")
                if self.closed(alpha, beta):
                    if events is not None:
                        ctx.emit("cutoff", path, alpha=alpha, beta=beta, lower=L, upper=U,
                                 pruned=tuple(order),       # no outcome is searched in full
                                 reason="probe: " + self.reason(alpha, beta))
                        ctx.emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
                    return L, U
        last = n - 1
        for k, index in enumerate(order):
            child_alpha, child_beta = window(k)
            Lc, Uc = self.search(game.result(state, moves[index]), path + (index,), depth + 1,
                                 child_alpha, child_beta, known=firsts.get(k))
            if not path:
                ctx.root_children.append(ChildResult(index, Lc, Uc))
            lows[k], highs[k] = max(lows[k], Lc), min(highs[k], Uc)
            L, U = chance_value(probs, lows), chance_value(probs, highs)
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if events is not None:
                ctx.emit("update", path, child=index, alpha=alpha, beta=beta, lower=L, upper=U)
            if k < last and self.closed(alpha, beta):
                if events is not None:
                    ctx.emit("cutoff", path, alpha=alpha, beta=beta, lower=L, upper=U,
                             pruned=tuple(order[k + 1:]),
                             reason=self.reason(alpha, beta))
                    ctx.emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
                return L, U
        if events is not None:
            ctx.emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
        return L, U
