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
* Chen's decision-error bounds: :func:`backup_error_bound`,
  :func:`decision_error_bound`, :func:`nodes_generated` (the compact array
  layout itself is :class:`course.games.ChenTree`).
* Chance nodes: :func:`chance_bounds` (condition C3),
  :func:`chance_child_window` (condition C6, lines 9-10 of Algorithm 1).
* Opponent models: :func:`strategy_value` (optimism and pessimism).
* A one-player evaluation trap: :class:`PacmanCorridor` and :func:`play`.
* Reading searches: :func:`node_values` (every node's exact value),
  :func:`noisy_evaluation` (an EVAL with a known error bound),
  :func:`count_states` (distinct states vs tree nodes), :func:`narrate`
  (a trace in words), :func:`fmt` (a number as a lesson prints it: exact
  fractions as ``2/3``, floats to 3 significant digits) and :class:`Table`
  (a small table that shows as HTML).

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
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2, 3.1, Tables 2 and 4.
[CS520] *alpha-beta Pruning with Chance* (seed 002).
[BAB] Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000): conditions C3 and C6, Algorithm 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
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
    "chance_bounds",
    "chance_child_window",
    "strategy_value",
    "PacmanCorridor",
    "play",
    "node_values",
    "noisy_evaluation",
    "count_states",
    "narrate",
    "fmt",
    "Table",
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
    >>> decision_error_bound(d=0, e=1)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: d must be an integer >= 1, got 0

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
    >>> nodes_generated(5, 2, 5)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: the skip number s=5 must be smaller than b=5
    """
    b, d, s = _count("b", b, minimum=1), _count("d", d), _count("s", s)
    if s >= b:
        raise ParameterError(f"the skip number s={s} must be smaller than b={b}")
    k = b - s
    return sum(k ** i for i in range(d + 1))


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
    >>> chance_bounds([(0.7, 0, 1), (0.7, 0, 1)], 0, 1)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: the explored probabilities sum to 1.4 > 1

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
    >>> strategy_value(g, plan="optimistic", opponent="random")
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: plan must be one of ('minimax', 'expectimax'), got 'optimistic'
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


# -- reading searches -------------------------------------------------------------------------
def node_values(game: Game, state: Any = None, *, depth: int | None = None,
                evaluate: Callable[[Any], Any] | None = None) -> dict[tuple[int, ...], Any]:
    """The exact (expectimax, hence minimax) value of every node, by path.

    Parameters
    ----------
    game : Game
    state : optional
        Root of the computation; default ``game.initial_state()``.
    depth : int, optional
        Treat nodes at this depth as leaves valued by ``evaluate``.
    evaluate : callable, optional
        EVAL at the depth limit; default ``game.evaluate``.

    Returns
    -------
    dict
        ``{path: value}`` for every node down to the leaves (or the depth limit).

    Examples
    --------
    >>> from course import parse_tree
    >>> values = node_values(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    >>> values[()], values[(1,)], values[(2, 0)]
    (3, 2, 14)
    """
    evaluate = game.evaluate if evaluate is None else evaluate
    values: dict[tuple[int, ...], Any] = {}

    def visit(s: Any, path: tuple[int, ...]) -> Any:
        if game.is_terminal(s):
            v = game.utility(s)
        elif depth is not None and len(path) >= depth:
            v = evaluate(s)
        else:
            player = game.turn(s)
            if player is Player.CHANCE:
                v = sum(p * visit(game.result(s, m), path + (i,))
                        for i, (m, p) in enumerate(game.chance_outcomes(s)))
            else:
                kids = [visit(game.result(s, m), path + (i,)) for i, m in enumerate(game.moves(s))]
                v = max(kids) if player is Player.MAX else min(kids)
        values[path] = v
        return v

    visit(game.initial_state() if state is None else state, ())
    return values


def noisy_evaluation(values: dict[tuple[int, ...], Any], e: float, *, seed: int = 0
                     ) -> Callable[[Any], float]:
    """An evaluation function with error at most ``e``: the true value plus uniform noise.

    For studying Chen's Proposition 1 on explicit trees: each node's estimate
    is ``values[node.path] + u`` with ``u`` drawn once per node, uniformly from
    ``[-e, e]``.

    Parameters
    ----------
    values : dict
        ``{path: true value}``, e.g. from :func:`node_values`.
    e : float
        The error bound, >= 0.
    seed : int
        Seed of the noise.

    Returns
    -------
    callable
        ``evaluate(node)`` for nodes of a :class:`~course.trees.TreeGame`.

    Examples
    --------
    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12, 8], [2, 4, 6]])
    >>> v = node_values(g)
    >>> evaluate = noisy_evaluation(v, 0.5, seed=1)
    >>> all(abs(evaluate(g.node(p)) - v[p]) <= 0.5 for p in v)
    True

    References
    ----------
    [CHEN], Proposition 1.
    """
    import random

    e = _nonneg("e", e)
    rng = random.Random(seed)
    noise = {path: rng.uniform(-e, e) for path in sorted(values)}

    def evaluate(node: Any) -> float:
        return values[node.path] + noise[node.path]

    return evaluate


def count_states(game: Game, state: Any = None) -> tuple[int, int]:
    """Count the nodes of the game tree and the distinct states they stand for.

    Parameters
    ----------
    game : Game
        A game whose states are hashable.
    state : optional
        Where to start; default ``game.initial_state()``.

    Returns
    -------
    (nodes, distinct)
        ``nodes`` counts every move sequence separately (the game tree);
        ``distinct`` counts each reachable state once, which is all a
        search with a transposition table has to look at.

    Examples
    --------
    >>> from course import parse_tree
    >>> count_states(parse_tree([[1, 2], [3, 4]]))
    (7, 7)
    """
    seen: set[Any] = set()
    nodes = 0

    def visit(s: Any) -> None:
        nonlocal nodes
        nodes += 1
        seen.add(s)
        if not game.is_terminal(s):
            for m in game.moves(s):
                visit(game.result(s, m))

    visit(game.initial_state() if state is None else state)
    return nodes, len(seen)


def fmt(x: Any, digits: int = 3) -> str:
    """A number (or a tuple or list of them) as a lesson prints it.

    Exact values stay exact and read like the text: a :class:`~fractions.Fraction`
    prints as ``2/3`` (``-1`` when it is whole), never as ``Fraction(2, 3)``.
    Floats print with ``digits`` significant digits (whole ones as integers, large
    ones without an exponent), infinities as ``+inf`` / ``-inf``.

    Parameters
    ----------
    x : number, tuple, list or None
        What to print; tuples and lists are formatted element by element.
    digits : int, optional
        Significant digits for floats (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> from fractions import Fraction
    >>> fmt(Fraction(-1, 1)), fmt(Fraction(22, 3)), fmt((Fraction(-7, 8), 1))
    ('-1', '22/3', '(-7/8, 1)')
    >>> fmt(22.715759353337972), fmt(0.40009144947416553), fmt(2527.4), fmt(-3.0)
    ('22.7', '0.4', '2527', '-3')
    >>> fmt([0.0004567, float("inf")]), fmt(None)
    ('[0.000457, +inf]', '-')
    """
    if x is None:
        return "-"
    if isinstance(x, tuple):
        return "(" + ", ".join(fmt(v, digits) for v in x) + ")"
    if isinstance(x, list):
        return "[" + ", ".join(fmt(v, digits) for v in x) + "]"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if isinstance(x, float) or type(x).__name__.startswith("float"):
        x = float(x)
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        if x.is_integer() and abs(x) < 1e15:
            return str(int(x))
        text = f"{x:.{digits}g}"
        if "e" in text and abs(x) >= 1:
            text = f"{x:.0f}"
        return text
    return str(x)


_LONG_FLOAT = re.compile(r"-?\d+\.\d{4,}(?:e[+-]?\d+)?")


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isinf(x):
            return "+inf" if x > 0 else "-inf"
        return f"{x:g}"
    return str(x)


def narrate(trace: Iterable[Any], game: Any = None, *, upto: int | None = None) -> list[str]:
    """A search trace in words, one line per event.

    Parameters
    ----------
    trace : Trace
        ``SearchResult.trace`` of a search run with ``trace=True``.
    game : TreeGame, optional
        If given, nodes are named by their labels where they have one.
    upto : int, optional
        Only the first ``upto`` events.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from course import alphabeta, parse_tree
    >>> result = alphabeta(parse_tree([[3, 1], [0, 9]]), trace=True)
    >>> print("\\n".join(narrate(result.trace)[7:]))
    root takes in child 0: value 1, window (1, +inf)
      enter (1,) (min), window (1, +inf)
        leaf (1, 0) = 0
      (1,) takes in child 0: value 0, window (1, +inf)
      CUT at (1,): v=0 <= alpha=1; skips (1, 1)
      (1,) returns 0, only a bound: its value is at most 0
    root takes in child 1: value 1, window (1, +inf)
    root returns value 1

    Star1 and BAB keep true bounds, so a node cut with ``L == U`` is exact, not a bound:

    >>> from course import star1
    >>> result = star1(parse_tree({"tree": [[0, 9], [5, 9]], "bounds": [0, 9]}), trace=True)
    >>> print("\\n".join(narrate(result.trace)[:6]))
    enter root (max), window (0, 9)
      enter (0,) (min), window (0, 9)
        leaf (0, 0) = 0
      (0,) takes in child 0: value 0, window (0, 0)
      CUT at (0,): beta=0 <= alpha=0 + epsilon=0; skips (0, 1)
      (0,) returns value 0: exact, its bounds met before the cut

    Floats, in values and in the cut-off reasons, are written with 3 significant digits:

    >>> result = alphabeta(parse_tree([[22.715759353337972, 50.0], [3.3585575305464355, 9.0]]),
    ...                    trace=True)
    >>> [line for line in narrate(result.trace) if "CUT" in line]
    ['  CUT at (1,): v=3.36 <= alpha=22.7; skips (1, 1)']
    """
    events = list(trace)[:upto]

    def name(path: tuple[int, ...]) -> str:
        if game is not None and hasattr(game, "node"):
            label = game.node(path).label
            if label is not None:
                return label
        return "root" if not path else str(path)

    lines = []
    players: dict[tuple[int, ...], str] = {}
    bounded: set[tuple[int, ...]] = set()        # nodes entered with [L, U]: Star1, BAB
    cut: set[tuple[int, ...]] = set()
    _fmt = fmt                                   # noqa: N806 - narration: 3 significant digits
    for e in events:
        depth = "  " * len(e.path)
        window = "" if e.alpha is None else f", window ({_fmt(e.alpha)}, {_fmt(e.beta)})"
        bounds = (f"value {_fmt(e.lower)}" if e.lower == e.upper
                  else f"bounds [{_fmt(e.lower)}, {_fmt(e.upper)}]")
        if e.kind == "enter":
            players[e.path] = e.player
            if e.lower is not None:
                bounded.add(e.path)
            lines.append(f"{depth}enter {name(e.path)} ({e.player}){window}")
        elif e.kind == "leaf":
            lines.append(f"{depth}leaf {name(e.path)} = {_fmt(e.lower)}")
        elif e.kind == "update":
            lines.append(f"{depth}{name(e.path)} takes in child {e.child}: {bounds}{window}")
        elif e.kind == "cutoff":
            cut.add(e.path)
            skipped = ", ".join(name(e.path + (i,)) for i in e.pruned)
            reason = _LONG_FLOAT.sub(lambda m: fmt(float(m.group())), e.reason)
            lines.append(f"{depth}CUT at {name(e.path)}: {reason}; skips {skipped}")
        elif e.kind == "exit":
            if (e.path in cut and e.lower == e.upper and e.path not in bounded
                    and players.get(e.path) in ("max", "min")):
                # alpha-beta's fail-soft return after a cut: one number, but only a bound
                side = "at least" if players[e.path] == "max" else "at most"
                lines.append(f"{depth}{name(e.path)} returns {_fmt(e.lower)}, only a bound: "
                             f"its value is {side} {_fmt(e.lower)}")
            elif e.path in cut and e.lower == e.upper:
                # Star1 / BAB: L = U is exact even after a cut (e.g. a MIN child at vmin)
                lines.append(f"{depth}{name(e.path)} returns value {_fmt(e.lower)}: exact, "
                             f"its bounds met before the cut")
            else:
                lines.append(f"{depth}{name(e.path)} returns {bounds}")
    return lines


class Table:
    """A small table that shows as HTML in a notebook and as text elsewhere.

    Parameters
    ----------
    rows : iterable of sequences
        The rows, each as long as ``headers``.
    headers : sequence of str
        Column titles.
    title : str, optional
        A caption.

    Raises
    ------
    ParameterError
        If a row's length differs from the number of headers.

    Examples
    --------
    >>> print(Table([(1, 2.5), (10, None)], headers=["n", "x"]))
     n    x
     1  2.5
    10    -
    >>> Table([(1, 2)], headers=["only one"])
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: row 0 has 2 cells but there are 1 headers
    """

    def __init__(self, rows: Iterable[Sequence[Any]], *, headers: Sequence[str],
                 title: str | None = None) -> None:
        self.headers = [str(h) for h in headers]
        self.rows = [list(r) for r in rows]
        for i, row in enumerate(self.rows):
            if len(row) != len(self.headers):
                raise ParameterError(
                    f"row {i} has {len(row)} cells but there are {len(self.headers)} headers"
                )
        self.title = title

    def _cells(self) -> list[list[str]]:
        return [[_fmt(x) for x in row] for row in self.rows]

    def __str__(self) -> str:
        cells = [self.headers] + self._cells()
        widths = [max(len(r[j]) for r in cells) for j in range(len(self.headers))]
        lines = [("  ".join(c.rjust(w) for c, w in zip(r, widths))).rstrip() for r in cells]
        return "\n".join(([self.title] if self.title else []) + lines)

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        import html

        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f"<td style='text-align:right'>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in self._cells()
        )
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
