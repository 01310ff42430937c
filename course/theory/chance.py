"""Bounds at chance nodes, as Star1 and BAB use them: conditions C3 and C6.

:func:`chance_bounds` (C3: a chance node's bounds from the outcomes searched so
far) and :func:`chance_child_window` (C6: the window of its next child, lines
9-10 of Algorithm 1), for :func:`course.search.star1` and :func:`course.search.bab`.

References
----------
[CS520] *alpha-beta Pruning with Chance* (seed 002).

[BAB] Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000): conditions C3 and C6, Algorithm 1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import ParameterError

__all__ = ["chance_bounds", "chance_child_window"]


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
