"""Formulas the lessons compare searches against, and a few small teaching helpers.

Every number a lesson quotes from a source is *computed* by one of these
functions (or by running a search), never typed in as a result.

Vocabulary
----------
b
    The branching factor of a uniform tree: every internal node has ``b`` children.
d (or m)
    The depth (height) of a uniform tree: number of moves from the root to a leaf.
leaves evaluated
    The cost measure of the alpha-beta analyses: how many leaves a search
    looks at (``SearchResult.evaluated``).

Groups of functions
-------------------
* Tree sizes and alpha-beta's best case: :func:`full_tree_leaves`,
  :func:`log10_leaves`, :func:`best_case_leaves`, :func:`notes_recurrence`,
  :func:`minimal_tree_counts`, :func:`characteristic_roots`,
  :func:`sqrt_b_bound`, :func:`random_order_estimate`.
* Chen's decision-error bounds and tree model: :func:`backup_error_bound`,
  :func:`decision_error_bound`, :func:`nodes_generated`,
  :func:`array_tree_size`, :func:`array_parent`, :func:`array_children`,
  :func:`array_level`.
* Chance nodes: :func:`chance_bounds` (condition C3),
  :func:`chance_child_window` (condition C6, lines 9-10 of Algorithm 1).
* Opponent models: :func:`strategy_value` (optimism and pessimism).
* A one-player evaluation trap: :class:`PacmanCorridor` and :func:`play`.

References
----------
[AIMA] Russell & Norvig, *Artificial Intelligence: A Modern Approach*.
[KM] Knuth & Moore, An analysis of alpha-beta pruning, *Artificial
    Intelligence* 6(4), 1975 (cited by [BAB]).
[NOTES] *Adversarial Search (minimax, alpha-beta pruning, expectimax)*,
    course notes (seed 004): the best-case recurrence, the (sqrt(b)+0.5)
    bound, b^(3m/4), the Pacman evaluation trap, optimism and pessimism.
[STRASS] H. Strass, *Playing Games: Alpha-Beta Tree Search*, 2024 (seed 001).
[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2, 3.1, Tables 2 and 4,
    the compact array layout.
[CS520] *alpha-beta Pruning with Chance* (seed 002).
[BAB] Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000): conditions C3 and C6, Algorithm 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from .errors import ParameterError
from .game import Game, Player

__all__ = [
    "full_tree_leaves",
    "log10_leaves",
    "best_case_leaves",
    "notes_recurrence",
    "minimal_tree_counts",
    "characteristic_roots",
    "sqrt_b_bound",
    "random_order_estimate",
    "backup_error_bound",
    "decision_error_bound",
    "nodes_generated",
    "array_tree_size",
    "array_parent",
    "array_children",
    "array_level",
    "chance_bounds",
    "chance_child_window",
    "strategy_value",
    "PacmanCorridor",
    "play",
]


# -- checks ---------------------------------------------------------------------------------
def _count(name: str, value: Any, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def _nonneg(name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, Real) or not value >= 0:
        raise ParameterError(f"{name} must be a number >= 0, got {value!r}")
    return value


# -- tree sizes and alpha-beta's best case -----------------------------------------------------
def full_tree_leaves(b: int, d: int) -> int:
    """Leaves of a uniform tree: ``b ** d``, what minimax evaluates.

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Depth, >= 0.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        If ``b < 1`` or ``d < 0``.

    Examples
    --------
    >>> full_tree_leaves(3, 2)     # AIMA figure 5.2 has 9 leaves
    9
    """
    return _count("b", b, minimum=1) ** _count("d", d)


def log10_leaves(b: float, d: float) -> float:
    """``log10(b ** d)``: the order of magnitude of a tree too big to write out.

    Parameters
    ----------
    b : float
        Branching factor, > 0.
    d : float
        Depth, >= 0.

    Returns
    -------
    float

    Examples
    --------
    Strass: chess has b about 35 and games of about 80 plies.

    >>> round(log10_leaves(35, 80), 1)
    123.5
    """
    if isinstance(b, bool) or not isinstance(b, Real) or b <= 0:
        raise ParameterError(f"b must be a number > 0, got {b!r}")
    _nonneg("d", d)
    return d * math.log10(b)


def best_case_leaves(b: int, d: int) -> int:
    """Leaves alpha-beta evaluates with perfect move ordering: ``b**ceil(d/2) + b**floor(d/2) - 1``.

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Depth, >= 0.

    Returns
    -------
    int

    Examples
    --------
    >>> [best_case_leaves(3, d) for d in range(6)]
    [1, 3, 5, 11, 17, 35]

    Notes
    -----
    Knuth & Moore (1975) proved that every search that determines the
    minimax value must look at least at this many leaves, and alpha-beta with
    the best ordering looks at exactly this many (when no two leaves tie).

    References
    ----------
    [KM], [STRASS] (the b^(d/2) slide), [NOTES].
    """
    b, d = _count("b", b, minimum=1), _count("d", d)
    return b ** ((d + 1) // 2) + b ** (d // 2) - 1


def notes_recurrence(b: int, d: int) -> int:
    """The lecture notes' best-case recurrence ``B_m = B_{m-1} + (b-1) B_{m-2}``.

    Started from ``B_0 = 1`` (a leaf) and ``B_1 = b`` (a node over ``b`` leaves).

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Depth ``m``, >= 0.

    Returns
    -------
    int

    Examples
    --------
    Equal to :func:`best_case_leaves` up to depth 3, larger afterwards:

    >>> [notes_recurrence(3, d) for d in range(6)]
    [1, 3, 5, 11, 21, 43]

    Notes
    -----
    The recurrence assumes that each refuted child of a node needs the
    *exact* value of its first child (``B_{m-2}``).  It only needs a bound:
    the grandchild must have all its children looked at, but each of those
    needs a single refutation in turn (see :func:`minimal_tree_counts`).  So
    the recurrence over-counts from depth 4 on; it is still an upper bound,
    and its growth rate ``(1 + sqrt(4b - 3)) / 2 <= sqrt(b) + 1/2`` is where
    the notes' ``O((sqrt(b) + 0.5) ** (m + 1))`` comes from.

    References
    ----------
    [NOTES], "Best case analysis of the alpha-beta pruning".
    """
    b, d = _count("b", b, minimum=1), _count("d", d)
    previous, current = 1, b          # B_0, B_1
    if d == 0:
        return previous
    for _ in range(d - 1):
        previous, current = current, current + (b - 1) * previous
    return current


def minimal_tree_counts(b: int, d: int) -> dict[str, int]:
    """Leaves below each kind of node of the minimal (perfectly ordered) alpha-beta tree.

    With perfect ordering there are three kinds of nodes (Knuth & Moore's
    types 1, 2 and 3):

    * ``"exact"``: its value must be known exactly (the root, and the first
      child of an exact node).  Its first child is exact, each other child
      needs only to be *refuted*;
    * ``"refuted"``: shown to be no better than a sibling; one child (the
      first, the best) is enough, and that child must be examined in full;
    * ``"full"``: every child must be looked at, and each only refuted.

    So ``exact(m) = exact(m-1) + (b-1) refuted(m-1)``,
    ``refuted(m) = full(m-1)`` and ``full(m) = b refuted(m-1)``.

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Depth, >= 0.

    Returns
    -------
    dict
        ``{"exact": ..., "refuted": ..., "full": ...}`` for a node of height ``d``.

    Examples
    --------
    >>> minimal_tree_counts(3, 4)
    {'exact': 17, 'refuted': 9, 'full': 9}
    >>> all(minimal_tree_counts(b, d)["exact"] == best_case_leaves(b, d)
    ...     for b in range(1, 6) for d in range(9))
    True
    """
    b, d = _count("b", b, minimum=1), _count("d", d)
    exact = refuted = full = 1        # a leaf is all three
    for _ in range(d):
        exact, refuted, full = exact + (b - 1) * refuted, full, b * refuted
    return {"exact": exact, "refuted": refuted, "full": full}


def characteristic_roots(b: float) -> tuple[float, float]:
    """Roots of ``x**2 = x + (b - 1)``, the characteristic equation of :func:`notes_recurrence`.

    Parameters
    ----------
    b : float
        Branching factor, >= 1.

    Returns
    -------
    (float, float)
        ``((1 + sqrt(4b - 3)) / 2, (1 - sqrt(4b - 3)) / 2)``.

    Examples
    --------
    >>> x1, x2 = characteristic_roots(4)
    >>> round(x1, 4), round(x2, 4), x1 <= 4 ** 0.5 + 0.5
    (2.3028, -1.3028, True)
    """
    if isinstance(b, bool) or not isinstance(b, Real) or b < 1:
        raise ParameterError(f"b must be a number >= 1, got {b!r}")
    root = math.sqrt(4 * b - 3)
    return (1 + root) / 2, (1 - root) / 2


def sqrt_b_bound(b: float, d: float) -> float:
    """The notes' best-case bound ``(sqrt(b) + 0.5) ** (d + 1)``.

    Examples
    --------
    >>> all(notes_recurrence(b, d) <= sqrt_b_bound(b, d) for b in range(1, 8) for d in range(12))
    True
    """
    _nonneg("b", b)
    _nonneg("d", d)
    return (math.sqrt(b) + 0.5) ** (d + 1)


def random_order_estimate(b: float, d: float) -> float:
    """The rough size ``b ** (3d/4)`` the notes give for alpha-beta with random move order.

    An order of growth for moderate ``b``, not an exact count: compare its
    slope on a log scale with measured counts, not its values.

    Examples
    --------
    >>> random_order_estimate(16, 1)
    8.0
    """
    _nonneg("b", b)
    _nonneg("d", d)
    return b ** (3 * d / 4)


# -- Chen's decision-error analysis ----------------------------------------------------------
def backup_error_bound(*, d: int, e: float = 0, e0: float = 0) -> float:
    """How far a (selective) depth-``d`` backed-up value can be from the true value.

    Parameters
    ----------
    d : int
        Search depth, >= 0.
    e : float
        Error bound of the evaluation function at the search frontier.
    e0 : float
        Omission error bound: at every interior node, the best value over
        the kept children is within ``e0`` of the best over all children.

    Returns
    -------
    float
        ``e + d * e0``: Proposition 1 (``e0 = 0``: the error stays ``e``,
        whatever the depth), Proposition 2 (``e = 0``: it grows to ``d e0``)
        and Proposition 3 (both).

    Examples
    --------
    >>> backup_error_bound(d=5, e=1), backup_error_bound(d=5, e0=1), backup_error_bound(d=5, e=1, e0=1)
    (1, 5, 6)

    References
    ----------
    [CHEN], Section 2.
    """
    _count("d", d)
    return _nonneg("e", e) + d * _nonneg("e0", e0)


def decision_error_bound(*, d: int, e: float = 0, e0: float = 0, optimal_kept: bool = False) -> float:
    """Chen's bound on the decision error of a depth-``d`` (selective) search.

    The decision error is how much worse (in true value) the chosen move is
    than the best move.

    Parameters
    ----------
    d : int
        Search depth, >= 1.
    e, e0 : float
        Evaluation and omission error bounds (see :func:`backup_error_bound`).
    optimal_kept : bool
        True if the search is known to keep an optimal move at the root.

    Returns
    -------
    float
        * ``2 e`` with ``e0 = 0`` (after Proposition 1);
        * ``2 (d - 1) e0`` if ``optimal_kept`` (Corollary 2.1, with ``e = 0``);
        * ``(2d - 1) e0`` otherwise (Corollary 2.2, with ``e = 0``);
        * ``2 e + (2d - 1) e0`` in general (Corollary 3.1), and
          ``2 e + 2 (d - 1) e0`` if ``optimal_kept`` (the same argument as
          Corollary 2.1 applied to Proposition 3).

    Raises
    ------
    ParameterError
        If ``d < 1`` or an error bound is negative.

    Examples
    --------
    >>> decision_error_bound(d=3, e=1)
    2
    >>> decision_error_bound(d=3, e0=1, optimal_kept=True), decision_error_bound(d=3, e0=1)
    (4, 5)
    >>> decision_error_bound(d=3, e=1, e0=1)
    7

    References
    ----------
    [CHEN], Proposition 1 and Corollaries 2.1, 2.2, 3.1.
    """
    _count("d", d, minimum=1)
    e, e0 = _nonneg("e", e), _nonneg("e0", e0)
    return 2 * e + (2 * (d - 1) if optimal_kept else 2 * d - 1) * e0


def nodes_generated(b: int, d: int, s: int = 0) -> int:
    """Nodes a depth-``d`` selective search generates when it skips ``s`` of ``b`` moves.

    Every expanded node keeps ``b - s`` children, so the search generates
    ``1 + (b-s) + (b-s)**2 + ... + (b-s)**d`` nodes, the root included
    (Chen's Tables 2 and 4).

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Search depth, >= 0.
    s : int
        Skip number, ``0 <= s < b``.

    Returns
    -------
    int

    Examples
    --------
    >>> nodes_generated(5, 1), nodes_generated(5, 9, 3)
    (6, 1023)
    """
    b, d, s = _count("b", b, minimum=1), _count("d", d), _count("s", s)
    if s >= b:
        raise ParameterError(f"the skip number s={s} must be smaller than b={b}")
    k = b - s
    return sum(k ** i for i in range(d + 1))


def array_tree_size(b: int, h: int) -> int:
    """Length of the array holding a uniform tree of height ``h``: ``b**0 + ... + b**h``.

    Examples
    --------
    >>> array_tree_size(2, 3)
    15
    """
    b, h = _count("b", b, minimum=1), _count("h", h)
    return sum(b ** i for i in range(h + 1))


def array_parent(k: int, b: int) -> int:
    """Index of the parent of node ``k`` (``k >= 1``) in Chen's level-order array: ``(k - 1) // b``.

    Examples
    --------
    >>> [array_parent(k, 3) for k in range(1, 8)]
    [0, 0, 0, 1, 1, 1, 2]
    """
    k, b = _count("k", k, minimum=1), _count("b", b, minimum=1)
    return (k - 1) // b


def array_children(k: int, b: int) -> range:
    """Indices of the children of node ``k``: ``k*b + 1, ..., k*b + b``.

    Examples
    --------
    >>> list(array_children(1, 3))
    [4, 5, 6]
    """
    k, b = _count("k", k), _count("b", b, minimum=1)
    return range(k * b + 1, k * b + b + 1)


def array_level(k: int, b: int) -> int:
    """Level (depth) of node ``k``: the smallest ``m`` with ``b**0 + ... + b**m > k``.

    Examples
    --------
    >>> [array_level(k, 2) for k in range(8)]
    [0, 1, 1, 2, 2, 2, 2, 3]
    """
    k, b = _count("k", k), _count("b", b, minimum=1)
    m, total = 0, 1
    while total <= k:
        m += 1
        total += b ** m
    return m


# -- chance nodes ----------------------------------------------------------------------------
def chance_bounds(explored: Iterable[tuple[Any, Any, Any]], vmin: Any, vmax: Any) -> tuple[Any, Any]:
    """Bounds on a chance node's value when only some outcomes are searched (condition C3).

    Each searched outcome contributes its probability times its bounds; the
    unsearched probability mass is assumed worst (``vmin``) for the lower
    bound and best (``vmax``) for the upper bound.

    Parameters
    ----------
    explored : iterable of (p, L, U)
        Probability and bounds of each searched outcome (``L == U`` when exact).
    vmin, vmax : number
        Bounds on every utility.

    Returns
    -------
    (lower, upper)

    Raises
    ------
    ParameterError
        If the probabilities are negative or sum to more than 1.

    Examples
    --------
    The CS 520 note, eq. (4): after seeing U(a1, c1, b1) = 0 with P(c1|a1) = 1/2:

    >>> from fractions import Fraction as F
    >>> chance_bounds([(F(1, 2), -1, 0)], -1, 1)
    (Fraction(-1, 1), Fraction(1, 2))

    References
    ----------
    [BAB] condition C3; [CS520] equations (3), (4), (6), (7), (11).
    """
    lower = upper = 0
    mass = 0
    for p, low, high in explored:
        if not p >= 0:
            raise ParameterError(f"probabilities must be >= 0, got {p!r}")
        lower += p * low
        upper += p * high
        mass += p
    if mass > 1 + 1e-9:
        raise ParameterError(f"the explored probabilities sum to {mass!r} > 1")
    rest = 1 - mass
    return lower + rest * vmin, upper + rest * vmax


def chance_child_window(alpha: Any, beta: Any, lower: Any, upper: Any, p: Any,
                        vmin: Any, vmax: Any) -> tuple[Any, Any]:
    """The window BAB gives the next child of a chance node (Algorithm 1, lines 9-10).

    Parameters
    ----------
    alpha, beta : number
        The chance node's current window.
    lower, upper : number
        The chance node's current bounds ``L``, ``U`` (the child not yet searched
        counted at ``vmin`` and ``vmax``).
    p : number
        The child's probability, > 0.
    vmin, vmax : number
        Bounds on every utility.

    Returns
    -------
    (alpha_child, beta_child)
        ``alpha_child = max(vmin, (alpha - upper)/p + vmax)``: if the child
        turns out no more than this, the chance node's upper bound falls to
        ``alpha`` or below.  ``beta_child = min(vmax, (beta - lower)/p + vmin)``
        symmetrically.

    Examples
    --------
    The CS 520 example: after U(a1) = -1/2, the first outcome of a2 (p = 4/5)
    gets the window (-7/8, 1) -- the note's first threshold.

    >>> from fractions import Fraction as F
    >>> chance_child_window(F(-1, 2), 1, -1, 1, F(4, 5), -1, 1)
    (Fraction(-7, 8), 1)

    References
    ----------
    [BAB] condition C6 and Algorithm 1; [CS520] equation (14).
    """
    if not p > 0:
        raise ParameterError(f"the child's probability must be > 0, got {p!r}")
    return max(vmin, (alpha - upper) / p + vmax), min(vmax, (beta - lower) / p + vmin)


# -- opponent models -----------------------------------------------------------------------------
_PLANS = ("minimax", "expectimax")
_OPPONENTS = ("adversarial", "random")


def strategy_value(game: Game, *, plan: str, opponent: str) -> Any:
    """Expected payoff of MAX planning with one opponent model while MIN behaves by another.

    MAX fixes its strategy by assuming MIN is adversarial (``plan="minimax"``)
    or picks uniformly at random (``plan="expectimax"``).  That fixed strategy
    is then scored against a MIN who really is adversarial or really is random.

    Parameters
    ----------
    game : Game
        A game without chance nodes (MAX and MIN only).
    plan : {"minimax", "expectimax"}
        MAX's model of MIN.
    opponent : {"adversarial", "random"}
        How MIN really plays.

    Returns
    -------
    number
        MAX's expected payoff.  Ties in MAX's plan go to the first move.

    Raises
    ------
    ParameterError
        For an unknown ``plan`` or ``opponent``, or a chance node in ``game``.

    Examples
    --------
    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> strategy_value(g, plan="minimax", opponent="adversarial")
    3
    >>> from fractions import Fraction as F
    >>> F(strategy_value(g, plan="expectimax", opponent="random")).limit_denominator()
    Fraction(23, 3)

    References
    ----------
    [NOTES], "The dangers of optimism and pessimism".
    """
    if plan not in _PLANS:
        raise ParameterError(f"plan must be one of {_PLANS}, got {plan!r}")
    if opponent not in _OPPONENTS:
        raise ParameterError(f"opponent must be one of {_OPPONENTS}, got {opponent!r}")

    def children(state):
        return [game.result(state, m) for m in game.moves(state)]

    def model_value(state, model):
        """Value of ``state`` when MIN follows ``model`` and MAX plays its best reply."""
        if game.is_terminal(state):
            return game.utility(state)
        player = game.turn(state)
        if player is Player.CHANCE:
            raise ParameterError("strategy_value handles MAX and MIN nodes only")
        values = [model_value(c, model) for c in children(state)]
        if player is Player.MAX:
            return max(values)
        if model in ("minimax", "adversarial"):
            return min(values)
        return sum(values) / len(values)

    def scored(state):
        """MAX follows its plan; MIN plays as ``opponent``."""
        if game.is_terminal(state):
            return game.utility(state)
        player = game.turn(state)
        kids = children(state)
        if player is Player.MAX:
            planned = [model_value(c, plan) for c in kids]
            return scored(kids[planned.index(max(planned))])
        if player is Player.CHANCE:
            raise ParameterError("strategy_value handles MAX and MIN nodes only")
        values = [scored(c) for c in kids]
        return min(values) if opponent == "adversarial" else sum(values) / len(values)

    return scored(game.initial_state())


# -- a one-player evaluation trap ---------------------------------------------------------------
@dataclass(frozen=True)
class CorridorState:
    """Pacman's position, the dots left, and the moves made so far."""

    position: int
    """Pacman's cell, 0 .. length-1."""
    dots: frozenset[int]
    """Cells that still hold a dot."""
    eaten: int = 0
    """Dots eaten so far."""
    time: int = 0
    """Moves made so far."""


class PacmanCorridor(Game[CorridorState, str]):
    """A one-player Pacman in a corridor, the lecture notes' evaluation-function trap.

    Pacman (MAX, the only player) stands in a corridor of ``length`` cells
    and may ``"stop"``, go ``"left"`` or go ``"right"`` (in that order).
    Entering a cell with a dot eats it.  The game ends when every dot is
    eaten or after ``horizon`` moves; the utility is ``10 * eaten - time``.

    Parameters
    ----------
    length : int
        Number of cells, >= 2.
    start : int
        Pacman's starting cell.
    dots : sequence of int
        Cells holding a dot (not ``start``).
    horizon : int
        Maximum number of moves.

    Examples
    --------
    >>> game = PacmanCorridor(length=5, start=2, dots=[3])
    >>> s = game.initial_state()
    >>> game.moves(s), game.eaten_eval(game.result(s, "right"))
    (['stop', 'left', 'right'], 10)

    References
    ----------
    [NOTES], "Quality of the evaluation function".
    """

    MOVES = ("stop", "left", "right")

    def __init__(self, *, length: int = 7, start: int = 3, dots: Sequence[int] = (4,),
                 horizon: int = 20) -> None:
        self.length = _count("length", length, minimum=2)
        if not 0 <= start < length:
            raise ParameterError(f"start must be a cell 0..{length - 1}, got {start!r}")
        dots = frozenset(dots)
        if not dots or any(not 0 <= x < length for x in dots) or start in dots:
            raise ParameterError(
                f"dots must be a non-empty set of cells 0..{length - 1} other than start, got {sorted(dots)}"
            )
        self.start, self.dots = start, dots
        self.horizon = _count("horizon", horizon, minimum=1)
        self.vmin, self.vmax = -horizon, 10 * len(dots)

    def initial_state(self) -> CorridorState:
        return CorridorState(self.start, self.dots)

    def turn(self, state: CorridorState) -> Player:
        return Player.MAX

    def moves(self, state: CorridorState) -> list[str]:
        return list(self.MOVES)

    def result(self, state: CorridorState, move: str) -> CorridorState:
        step = {"stop": 0, "left": -1, "right": 1}[move]
        position = min(max(state.position + step, 0), self.length - 1)
        eaten = position in state.dots
        return CorridorState(position, state.dots - {position}, state.eaten + eaten, state.time + 1)

    def is_terminal(self, state: CorridorState) -> bool:
        return not state.dots or state.time >= self.horizon

    def utility(self, state: CorridorState) -> float:
        return 10 * state.eaten - state.time

    def eaten_eval(self, state: CorridorState) -> float:
        """The notes' first evaluation: 10 points per dot eaten."""
        return 10 * state.eaten

    def distance_eval(self, state: CorridorState) -> float:
        """The notes' fix: also subtract the distance to the nearest dot (weight 1)."""
        nearest = min((abs(x - state.position) for x in state.dots), default=0)
        return 10 * state.eaten - nearest

    def evaluate(self, state: CorridorState) -> float:
        return self.eaten_eval(state)

    def render(self, state: CorridorState) -> str:
        """The corridor as text: ``P`` Pacman, ``o`` a dot, ``.`` an empty cell."""
        return "".join("P" if i == state.position else "o" if i in state.dots else "."
                       for i in range(self.length))


def play(game: Game, choose: Callable[[Game, Any], Any], *, steps: int) -> list[Any]:
    """Play a one-player game by asking ``choose(game, state)`` for each move.

    Parameters
    ----------
    game : Game
    choose : callable
        Returns the move to play in a non-terminal state.
    steps : int
        Stop after this many moves (or at a terminal state).

    Returns
    -------
    list
        The states visited, the initial state first.

    Examples
    --------
    >>> game = PacmanCorridor(length=4, start=0, dots=[3])
    >>> states = play(game, lambda g, s: "right", steps=10)
    >>> [game.render(s) for s in states]
    ['P..o', '.P.o', '..Po', '...P']
    """
    _count("steps", steps)
    state = game.initial_state()
    states = [state]
    for _ in range(steps):
        if game.is_terminal(state):
            break
        state = game.result(state, choose(game, state))
        states.append(state)
    return states
