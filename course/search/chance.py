"""Chance-node arithmetic shared by every search: one rule, exact or floating point.

A chance node's value is the probability-weighted mean of its children's
values.  Probabilities given as floats rarely sum to exactly 1: ``1/6, 2/3,
1/6`` written as floats sum to ``0.9999999999999999``, and three children
worth 2 then average to ``1.9999999999999998``, below every child and below
``vmin``.  The course therefore computes, for probabilities ``p_1 .. p_n``
(which must sum to 1 within ``1e-9``) and children values ``v_1 .. v_n``
searched in this order::

    S = p_1 v_1 + p_2 v_2 + ... + p_n v_n      (added left to right)
    T = p_1 + p_2 + ... + p_n                  (added left to right)
    value = clamp(S / T, min v_i, max v_i)     (no division when T == 1)

That is: the probabilities are normalised by their sum, and rounding can never
move a value outside its children's range (nor, hence, outside
``[vmin, vmax]``).  With exact numbers (``int`` and :class:`~fractions.Fraction`)
that sum to 1 this is exactly ``sum(p * v)``: no rounding, no clamping.

Star1 and Bounded Alpha-Beta keep running bounds ``L <= V <= U`` at a chance
node after its first ``k`` children (condition C3 of Atzmon et al. 2018): the
unexplored children count as ``vmin`` in ``L`` and as ``vmax`` in ``U``.  They
are computed with the same rule, term by term in the same order, ``vmin``
(for ``L``) or ``vmax`` (for ``U``) standing in for each unexplored child::

    L_k = clamp((p_1 L(c_1) + ... + p_k L(c_k) + p_{k+1} vmin + ... + p_n vmin) / T, ...)

(With exact numbers the unexplored terms are added as one product, ``(p_{k+1} + ... + p_n) vmin``,
kept up to date as children return: the same number, at a cost that does not grow with ``n``.)

Every step of this computation is monotone (a rounded sum or product never
decreases when an operand grows, nor does a max, min or clamp), and the same
computation with the children's exact values gives expectimax's value.  So,
in floating point as in exact arithmetic, by induction over the tree:
``L <= expectimax value <= U`` at every node searched in the same order, and
``L <= U``: a search never returns crossed bounds, and where Star1's bounds
meet they equal expectimax's value bit for bit.

The child's window (condition C6) must match this arithmetic exactly.  C6
says: if child ``k`` turns out to be worth at most ``alpha_k``, the node's
``U`` falls to ``alpha`` or below and the node can be cut.  In exact
arithmetic ``alpha_k = (alpha - U) / q_k + vmax`` is that threshold; computed
in floating point it can be one rounding too high, and then the child cuts
although the node's own rounded ``U`` stays above ``alpha``: the node goes on,
and returns bounds that are neither within ``epsilon`` of each other nor
outside its window (the root's ``U`` ended ``3.0000000000000004`` with
``L = 3`` at ``epsilon = 0``).  So :meth:`ChanceBounds.window` takes the
formula's value and, when the numbers are floats and the node's own
computation with that child bound would not reach ``alpha``, moves it down to
the largest float that does (and ``beta_k`` up to the smallest float that
reaches ``beta``).  The window is then exactly the set of child bounds for
which the node's computed ``L`` and ``U`` cut, whatever the rounding: a child
that fails low makes the node's ``U <= alpha``, one that fails high makes
``L >= beta``, and the window is never empty while the node's is not.  With
exact numbers the formula is exact and nothing moves.

The fast path of :mod:`course.experiments.fast` inlines exactly this rule.

Examples
--------
>>> from fractions import Fraction as F
>>> chance_value([F(1, 2), F(1, 3), F(1, 6)], [8, 24, 12])
Fraction(14, 1)
>>> 2 * (1 / 6) + 2 * (2 / 3) + 2 * (1 / 6)          # naive sum: below every child
1.9999999999999998
>>> chance_value([1 / 6, 2 / 3, 1 / 6], [2, 2, 2])
2.0
>>> bounds = ChanceBounds([0.25, 0.75], vmin=0, vmax=4)
>>> bounds.add(1, 1)                                    # after the first child: (L, U)
(0.25, 3.25)
>>> bounds.add(2, 2)
(1.75, 1.75)
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

__all__ = ["chance_value", "ChanceBounds", "fit_window"]


def _exact(x: Any) -> bool:
    return isinstance(x, (int, Fraction))


def normalise(s: Any, total: Any) -> Any:
    """``s / total``, leaving ``s`` untouched when the probabilities sum to exactly 1."""
    if total == 1:
        return s
    if _exact(s) and _exact(total):
        return Fraction(s) / total
    return s / total


def clamp(x: Any, lo: Any, hi: Any) -> Any:
    """``x`` moved into ``[lo, hi]``."""
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def _ordinal(x: float) -> int:
    """Floats in order as integers: consecutive floats get consecutive integers."""
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    return bits if bits < 1 << 63 else -(bits - (1 << 63))


def _from_ordinal(n: int) -> float:
    bits = n if n >= 0 else (-n) | (1 << 63)
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _last_true(pred: Callable[[Any], bool], good: Any, bad: float) -> Any:
    """The largest float in ``[good, bad)`` where ``pred`` holds (``pred`` true, then false)."""
    lo, hi = _ordinal(float(good)), _ordinal(bad)
    best = good
    while hi - lo > 1:
        mid = (lo + hi) // 2
        x = _from_ordinal(mid)
        if pred(x):
            lo, best = mid, x
        else:
            hi = mid
    return best


def _first_true(pred: Callable[[Any], bool], bad: float, good: Any) -> Any:
    """The smallest float in ``(bad, good]`` where ``pred`` holds (``pred`` false, then true)."""
    lo, hi = _ordinal(bad), _ordinal(float(good))
    best = good
    while hi - lo > 1:
        mid = (lo + hi) // 2
        x = _from_ordinal(mid)
        if pred(x):
            hi, best = mid, x
        else:
            lo = mid
    return best


def bound_after(probabilities: Sequence[Any], total: Any, k: int, t: Any, s: Any, lo: Any,
                hi: Any, fill: Any) -> Any:
    """A chance node's ``L`` (or ``U``) if child ``k`` returned ``t`` (as :class:`ChanceBounds`).

    ``s`` is the sum over the children before ``k`` (``p * L(c)`` or ``p * U(c)``),
    ``lo`` and ``hi`` their smallest and largest bound (None when ``k == 0``),
    ``fill`` is ``vmin`` (for ``L``) or ``vmax`` (for ``U``): the same operations
    in the same order as :meth:`ChanceBounds.add` followed by :meth:`ChanceBounds.bounds`
    (which, with exact numbers, adds the unexplored children's weight at once: exact sums do
    not depend on the order of their terms, so the number is the same).
    """
    s += probabilities[k] * t
    if k == 0:
        lo = hi = t
    else:
        lo, hi = min(lo, t), max(hi, t)
    if k + 1 < len(probabilities):
        for p in probabilities[k + 1:]:
            s += p * fill
        lo, hi = min(lo, fill), max(hi, fill)
    return clamp(normalise(s, total), lo, hi)


def fit_window(
    child_alpha: Any,
    child_beta: Any,
    alpha: Any,
    beta: Any,
    upper_after: Callable[[Any], Any],
    lower_after: Callable[[Any], Any],
    vmin: Any,
    vmax: Any,
) -> tuple[Any, Any]:
    """C6's child window made exact for the node's own (floating-point) arithmetic.

    Parameters
    ----------
    child_alpha, child_beta : number
        The window C6's formula gives the next child.
    alpha, beta : number
        The chance node's window now.
    upper_after, lower_after : callable
        The node's ``U`` (``L``) as it would be computed if the next child
        returned the upper (lower) bound ``t``; non-decreasing in ``t``.
    vmin, vmax : number
        Bounds on every utility.

    Returns
    -------
    (child_alpha, child_beta)
        Unchanged when both are exact numbers, or when the node's computation
        with them reaches ``alpha`` (``beta``); otherwise ``child_alpha`` is the
        largest float with ``upper_after(child_alpha) <= alpha`` (``vmin`` if
        none) and ``child_beta`` the smallest with ``lower_after(child_beta) >= beta``
        (``vmax`` if none).

    Examples
    --------
    Weights 0.6 and 0.4 and vmax = 6: after the first child returns ``U = 1``
    the node's ``U`` is ``0.6 * 1 + 0.4 * 6``, which rounds to
    ``3.0000000000000004``, above ``alpha = 3``, although the formula's
    threshold ``(3 - 6) / 0.6 + 6`` is 1.

    >>> bounds = ChanceBounds([0.6, 0.4], 0, 6)
    >>> (3 - 6) / 0.6 + 6, bounds.upper_after(1)
    (1.0, 3.0000000000000004)
    >>> a, b = bounds.window(3, 6, 0, 6)
    >>> a < 1, bounds.upper_after(a) <= 3
    (True, True)
    """
    if isinstance(child_alpha, float) and child_alpha > vmin and upper_after(child_alpha) > alpha:
        if upper_after(vmin) > alpha:
            child_alpha = vmin
        else:
            child_alpha = _last_true(lambda t: upper_after(t) <= alpha, vmin, child_alpha)
    if isinstance(child_beta, float) and child_beta < vmax and lower_after(child_beta) < beta:
        if lower_after(vmax) < beta:
            child_beta = vmax
        else:
            child_beta = _first_true(lambda t: lower_after(t) >= beta, child_beta, vmax)
    return child_alpha, child_beta


def chance_value(probabilities: Sequence[Any], values: Sequence[Any]) -> Any:
    """The value of a chance node: its children's values weighted by their probabilities.

    Parameters
    ----------
    probabilities, values : sequences of numbers
        In search order; the probabilities are positive and sum to 1 within
        ``1e-9``.

    Returns
    -------
    number
        ``clamp(S / T, min(values), max(values))`` with ``S`` and ``T`` summed
        left to right (see the module notes).
    """
    s = 0
    total = 0
    for p, v in zip(probabilities, values):
        s += p * v
        total += p
    return clamp(normalise(s, total), min(values), max(values))


class ChanceBounds:
    """Running bounds ``(L, U)`` of a chance node as its children return.

    Parameters
    ----------
    probabilities : sequence of numbers
        The children's probabilities, in search order.
    vmin, vmax : number
        Bounds on every utility: an unexplored child counts as ``vmin`` in
        ``L`` and as ``vmax`` in ``U``.
    """

    __slots__ = ("probabilities", "vmin", "vmax", "total", "k", "sum_L", "sum_U",
                 "lo_L", "hi_L", "lo_U", "hi_U", "rest")

    def __init__(self, probabilities: Sequence[Any], vmin: Any, vmax: Any) -> None:
        self.probabilities = tuple(probabilities)
        self.vmin, self.vmax = vmin, vmax
        total = 0
        for p in self.probabilities:
            total += p
        self.total = total
        self.k = 0
        self.sum_L = self.sum_U = 0
        self.lo_L = self.hi_L = self.lo_U = self.hi_U = None
        # With exact numbers the unexplored probability is kept as one running sum, so that
        # bounds() costs the same after every child (term by term it grows with the children:
        # a chance node of 125 outcomes, as in Cops & Robbers, cost 125 times more).  Exact
        # sums do not depend on the order of the terms: the bounds are the same numbers.
        exact = _exact(vmin) and _exact(vmax) and all(_exact(p) for p in self.probabilities)
        self.rest = total if exact else None

    def weight(self, k: int) -> Any:
        """The normalised probability of child ``k`` (what condition C6 divides by)."""
        return normalise(self.probabilities[k], self.total)

    def window(self, alpha: Any, beta: Any, lower: Any, upper: Any) -> tuple[Any, Any]:
        """The next child's window (C6), given the node's window and its bounds ``(L, U)`` now.

        ``max(vmin, (alpha - U) / q + vmax)`` and ``min(vmax, (beta - L) / q + vmin)``,
        with ``q`` the child's normalised probability, made exact for this
        node's arithmetic by :func:`fit_window` (see the module notes).
        """
        vmin, vmax = self.vmin, self.vmax
        q = self.weight(self.k)
        child_alpha = max(vmin, (alpha - upper) / q + vmax)
        child_beta = min(vmax, (beta - lower) / q + vmin)
        return fit_window(child_alpha, child_beta, alpha, beta, self.upper_after,
                          self.lower_after, vmin, vmax)

    def upper_after(self, t: Any) -> Any:
        """The node's ``U`` if the next child returned the upper bound ``t`` (as :meth:`add`)."""
        return bound_after(self.probabilities, self.total, self.k, t, self.sum_U,
                           self.lo_U, self.hi_U, self.vmax)

    def lower_after(self, t: Any) -> Any:
        """The node's ``L`` if the next child returned the lower bound ``t`` (as :meth:`add`)."""
        return bound_after(self.probabilities, self.total, self.k, t, self.sum_L,
                           self.lo_L, self.hi_L, self.vmin)

    def bounds(self) -> tuple[Any, Any]:
        """``(L, U)`` now (``(vmin, vmax)`` before any child returned)."""
        if self.k == 0:
            return self.vmin, self.vmax
        L, U = self.sum_L, self.sum_U
        lo_L, hi_L, lo_U, hi_U = self.lo_L, self.hi_L, self.lo_U, self.hi_U
        if self.k < len(self.probabilities):           # unexplored children: vmin / vmax
            vmin, vmax = self.vmin, self.vmax
            if self.rest is not None and _exact(L) and _exact(U):
                L += self.rest * vmin                  # exact: all of them at once
                U += self.rest * vmax
            else:
                for p in self.probabilities[self.k:]:  # term by term, as expectimax adds them
                    L += p * vmin
                    U += p * vmax
            lo_L, hi_L = min(lo_L, vmin), max(hi_L, vmin)
            lo_U, hi_U = min(lo_U, vmax), max(hi_U, vmax)
        return (clamp(normalise(L, self.total), lo_L, hi_L),
                clamp(normalise(U, self.total), lo_U, hi_U))

    def add(self, lower: Any, upper: Any) -> tuple[Any, Any]:
        """Take the next child's bounds ``(L(c), U(c))``; return the node's new ``(L, U)``."""
        p = self.probabilities[self.k]
        self.sum_L += p * lower
        self.sum_U += p * upper
        if self.rest is not None:
            self.rest -= p
        if self.k == 0:
            self.lo_L = self.hi_L = lower
            self.lo_U = self.hi_U = upper
        else:
            self.lo_L, self.hi_L = min(self.lo_L, lower), max(self.hi_L, lower)
            self.lo_U, self.hi_U = min(self.lo_U, upper), max(self.hi_U, upper)
        self.k += 1
        return self.bounds()
