"""How the grader writes and compares numbers and moves: the one place both the comparison
(:mod:`.compare`) and the diagnosis of mistakes (:mod:`.diagnose`) take them from.

Exact where the searches are exact (ints, fractions), with a relative tolerance once a float is
involved; written as messages show them (``3/8``, ``-inf``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Real
from typing import Any

__all__ = ["fmt", "same_number", "same_move"]


def fmt(x: Any) -> str:
    """A number as messages show it: ``3``, ``3/8``, ``-inf``, ``0.375``.

    >>> fmt(Fraction(3, 8)), fmt(Fraction(4, 2)), fmt(float("inf")), fmt(2.0), fmt(None)
    ('3/8', '2', 'inf', '2', 'None')
    """
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if isinstance(x, float):
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        if x.is_integer():
            return str(int(x))
        return repr(x)
    return repr(x) if not isinstance(x, (int, str)) else str(x)


def same_number(a: Any, b: Any) -> bool:
    """Equal numbers: exactly for ints and fractions, within 1e-9 (relative) once a float is involved.

    >>> same_number(Fraction(1, 2), 0.5), same_number(0.1 + 0.2, 0.3), same_number(1, 2)
    (True, True, False)
    """
    if isinstance(a, bool) or not isinstance(a, Real) or not isinstance(b, Real):
        return False
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isinf(a) or math.isinf(b) or math.isnan(a):
            return a == b
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def same_move(a: Any, b: Any) -> bool:
    """The same move: equal, never a bool for a number, and a move whose ``==`` fails is no match.

    >>> same_move("L", "L"), same_move(1, True), same_move((0, 1), (0, 1)), same_move(1, "1")
    (True, False, True, False)
    """
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a strange move object simply does not match
        return False
