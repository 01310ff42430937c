"""Numbers as a drill shows them and as a student types them.

A drill's numbers are exact: integer leaves, :class:`~fractions.Fraction`
probabilities and bounds, and the infinite ends of alpha-beta's first window.
Students type them as ``3``, ``-2``, ``3/4``, ``0.75``, ``inf`` or ``-∞``;
:func:`parse_number` reads all of these, and :func:`same` accepts a decimal
rounded to two places (``0.33`` for ``1/3``) as well as the exact value.

Examples
--------
>>> from fractions import Fraction
>>> fmt(Fraction(3, 4)), fmt(float("-inf")), fmt(4.0), fmt(Fraction(8, 2))
('3/4', '−∞', '4', '4')
>>> parse_number(" 7/2 "), parse_number("-inf"), parse_number("0.75")
(Fraction(7, 2), -inf, Fraction(3, 4))
>>> same(parse_number("0.33"), Fraction(1, 3)), same(parse_number("0.3"), Fraction(1, 3))
(True, False)
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Real
from typing import Any

from ..errors import CourseError

__all__ = ["AnswerError", "fmt", "parse_number", "same", "exact", "said_pair"]

INF = float("inf")


class AnswerError(CourseError):
    """An answer a drill cannot read (a number it cannot parse, a node it does not have)."""


def exact(x: Any) -> Any:
    """``x`` as an exact number: ints stay, floats become Fractions, infinities stay floats.

    A float probability written in a tree file (``0.8``) becomes the fraction
    it was meant to be (``4/5``) when a small denominator is within 1e-12.

    >>> exact(0.8), exact(0.375), exact(3), exact(float("inf"))
    (Fraction(4, 5), Fraction(3, 8), 3, inf)
    """
    if isinstance(x, bool):
        raise AnswerError(f"{x!r} is not a number")
    if isinstance(x, int):
        return x
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else x
    if isinstance(x, float):
        if math.isinf(x):
            return x
        if math.isnan(x):
            raise AnswerError("NaN is not a number a drill uses")
        near = Fraction(x).limit_denominator(1000)
        value = near if abs(float(near) - x) <= 1e-12 else Fraction(x)
        return value.numerator if value.denominator == 1 else value
    if isinstance(x, Real):
        return exact(float(x))
    raise AnswerError(f"{x!r} is not a number")


def fmt(x: Any) -> str:
    """A number as drills write it: ``3``, ``3/4``, ``−2``, ``+∞``/``−∞``.

    The minus sign is U+2212 (screen readers say "minus"); :func:`parse_number`
    reads it back.
    """
    if x is None:
        return "?"
    if isinstance(x, float) and math.isinf(x):
        return "+∞" if x > 0 else "−∞"
    x = exact(x)
    if isinstance(x, Fraction):
        text = f"{abs(x.numerator)}/{x.denominator}"
        return ("−" + text) if x < 0 else text
    return ("−" + str(-x)) if x < 0 else str(x)


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(/\d+(\.\d*)?)?$")


def parse_number(text: Any) -> Any:
    """Read a number a student typed (or passed): exact where it can be.

    Parameters
    ----------
    text : str or number
        ``"3"``, ``"-2"``, ``"3/4"``, ``"0.75"``, ``"inf"``, ``"+∞"``, ``"−∞"``
        (U+2212 minus and spaces are fine), or a Python number.

    Returns
    -------
    int, Fraction or float
        ``±inf`` as floats, everything else exact.

    Raises
    ------
    AnswerError
        If the text is empty or not a number; the message says how to write one.
    """
    if not isinstance(text, str):
        return exact(text)
    raw = text
    text = text.strip().replace("−", "-").replace("–", "-").replace(" ", "").replace("∞", "inf")
    text = text.replace("infinity", "inf").lower()
    if text in ("inf", "+inf"):
        return INF
    if text == "-inf":
        return -INF
    if not text:
        raise AnswerError("an empty box: type a number (for example 3, -2, 3/4 or inf)")
    if not _NUMBER.match(text):
        raise AnswerError(f"cannot read {raw.strip()!r} as a number: write it like 3, -2, 3/4, "
                          "0.75 or inf")
    if "/" in text:
        top, bottom = text.split("/")
        if Fraction(bottom) == 0:
            raise AnswerError(f"{raw.strip()!r} divides by zero")
        value = Fraction(top) / Fraction(bottom)
    else:
        value = Fraction(text)
    return value.numerator if value.denominator == 1 else value


def same(given: Any, expected: Any) -> bool:
    """True when a student's number is the expected one: exactly, or to two decimal places.

    A decimal is accepted when rounding the exact value to as many decimals as
    the student wrote (at least two) gives the student's number, so ``0.33``
    and ``0.333`` match ``1/3``, ``0.3`` does not.
    """
    if given is None or expected is None:
        return given is expected
    if isinstance(given, float) or isinstance(expected, float):
        if math.isinf(given) or math.isinf(expected):
            return given == expected
    if exact(given) == exact(expected):
        return True
    given, expected = exact(given), exact(expected)
    if isinstance(given, Fraction) and _is_decimal(given):
        places = max(2, _decimals(given))
        return abs(Fraction(round(expected * 10 ** places), 10 ** places) - given) == 0
    return False


def _is_decimal(x: Fraction) -> bool:
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    return d == 1


def _decimals(x: Fraction) -> int:
    places = 0
    while (x * 10 ** places).denominator != 1:
        places += 1
    return places


def said_pair(got: tuple[Any, Any], first: str, second: str) -> str:
    """What a student wrote in a pair of boxes, for "(…)" after the right answer.

    Both empty: ``you left it empty``; one empty: which one, and what the other says; both
    filled: ``not α = 1, β = 3``.  (A half-filled pair is not "empty": saying so misled a
    student who had typed α.)

    Examples
    --------
    >>> said_pair((None, None), "α", "β")
    'you left it empty'
    >>> said_pair((1, None), "α", "β")
    'you wrote α = 1 and left β empty'
    >>> said_pair((None, 3), "L", "U")
    'you left L empty and wrote U = 3'
    >>> said_pair((-2, 3), "L", "U")
    'not L = −2, U = 3'
    """
    a, b = got
    if a is None and b is None:
        return "you left it empty"
    if b is None:
        return f"you wrote {first} = {fmt(a)} and left {second} empty"
    if a is None:
        return f"you left {first} empty and wrote {second} = {fmt(b)}"
    return f"not {first} = {fmt(a)}, {second} = {fmt(b)}"
