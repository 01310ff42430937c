"""How many leaves a tree has, and how many alpha-beta looks at in the best case.

Exact counts (:func:`full_tree_leaves`, :func:`best_case_leaves`,
:func:`notes_recurrence`, :func:`minimal_tree_counts`), what the shallower
iterations of iterative deepening cost (:func:`iterative_deepening_overhead`), the notes' growth rates
(:func:`characteristic_roots`, :func:`sqrt_b_bound`), an order of growth for
random move order (:func:`random_order_estimate`) and the size of a tree too big
to write out (:func:`log10_leaves`).  ``b`` is the branching factor, ``d`` the
depth of a uniform tree (see :mod:`course.theory`).

References
----------
[KM] Knuth & Moore, An analysis of alpha-beta pruning,
    *Artificial Intelligence* 6(4), 1975.

[NOTES] *Adversarial Search* course notes (seed 004): the best-case recurrence,
    the (sqrt(b)+0.5) bound, b^(3m/4).

[STRASS] H. Strass, *Playing Games: Alpha-Beta Tree Search*, 2024 (seed 001).
"""

from __future__ import annotations

import math
from numbers import Real

from fractions import Fraction

from ..errors import ParameterError
from ._checks import check_count, check_nonneg

__all__ = [
    "full_tree_leaves",
    "log10_leaves",
    "best_case_leaves",
    "notes_recurrence",
    "minimal_tree_counts",
    "iterative_deepening_overhead",
    "characteristic_roots",
    "sqrt_b_bound",
    "random_order_estimate",
]


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
    return check_count("b", b, minimum=1) ** check_count("d", d)


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
    check_nonneg("d", d)
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
    The lower bound assumes that nothing is known about the leaf values before
    they are looked at.  A search that knows bounds ``[vmin, vmax]`` can stop
    early when a leaf reaches one of them, and one that accepts an error
    ``epsilon`` can stop earlier still: Bounded Alpha-Beta decides
    ``{"tree": [[96, 97], [50, 60]], "bounds": [0, 100]}`` within
    ``epsilon = 5`` from 2 leaves, against this function's 3 (lesson 5).

    References
    ----------
    [KM], [STRASS] (the b^(d/2) slide), [NOTES].
    """
    b, d = check_count("b", b, minimum=1), check_count("d", d)
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
    b, d = check_count("b", b, minimum=1), check_count("d", d)
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
    b, d = check_count("b", b, minimum=1), check_count("d", d)
    exact = refuted = full = 1        # a leaf is all three
    for _ in range(d):
        exact, refuted, full = exact + (b - 1) * refuted, full, b * refuted
    return {"exact": exact, "refuted": refuted, "full": full}


def iterative_deepening_overhead(b: int, d: int, *, search: str = "minimax") -> Fraction:
    """What iterations 1 .. d-1 of iterative deepening cost, as a fraction of iteration d.

    Iterative deepening searches to depth 1, then 2, ..., then ``d``; the
    iteration to depth ``k`` evaluates the leaves of a depth-``k`` search.
    This is the total of iterations ``1 .. d-1`` divided by iteration ``d``,
    counting leaves evaluated, on a uniform tree of branching ``b``:

    * ``search="minimax"`` (full width): ``(b + ... + b**(d-1)) / b**d``,
      just below ``1 / (b - 1)``;
    * ``search="alphabeta"`` with perfect move ordering:
      :func:`best_case_leaves` of each depth, the Knuth-Moore counts.  Each
      iteration then costs about ``sqrt(b)`` times the one before, not ``b``
      times, so the earlier iterations weigh far more than ``1 / (b - 1)``,
      and for small ``b`` they can cost more than the last one.

    Parameters
    ----------
    b : int
        Branching factor, >= 2.
    d : int
        Depth of the last iteration, >= 1.
    search : {"minimax", "alphabeta"}
        Full-width search, or alpha-beta with perfect ordering.

    Returns
    -------
    Fraction
        Exact.

    Raises
    ------
    ParameterError
        For ``b < 2``, ``d < 1`` or another ``search``.

    Examples
    --------
    >>> round(float(iterative_deepening_overhead(35, 4)), 4), round(1 / 34, 4)
    (0.0294, 0.0294)
    >>> round(float(iterative_deepening_overhead(35, 4, search="alphabeta")), 3)
    0.557
    >>> iterative_deepening_overhead(4, 6, search="alphabeta")  # more than the last iteration
    Fraction(140, 127)

    References
    ----------
    [KM]; [STRASS] and [NOTES] list iterative deepening among alpha-beta's improvements.
    """
    b, d = check_count("b", b, minimum=2), check_count("d", d, minimum=1)
    if search == "minimax":
        count = full_tree_leaves
    elif search == "alphabeta":
        count = best_case_leaves
    else:
        raise ParameterError(f"search must be 'minimax' or 'alphabeta' (perfect ordering), got {search!r}")
    return Fraction(sum(count(b, k) for k in range(1, d)), count(b, d))


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
    check_nonneg("b", b)
    check_nonneg("d", d)
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
    check_nonneg("b", b)
    check_nonneg("d", d)
    return b ** (3 * d / 4)
