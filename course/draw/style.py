"""The look of every picture: shapes, line styles, colours, fonts and number formats.

Meaning is carried by shape and line style first, colour second, so the
pictures work in grey scale and for colour-blind readers:

==========================  ===============================================
drawn as                    means
==========================  ===============================================
triangle (point up)         MAX node
triangle (point down)       MIN node
circle                      CHANCE node
box                         leaf, showing its utility; ``#k`` = k-th leaf evaluated
3-D box ("... 64 leaves")   collapsed subtree, summarised
solid outline               visited by the search
dashed, faded               pruned: the search never looked at it
dotted, faded               not reached yet (step-through)
thick outline               the node the step-through is at
thick edges                 the path from the root to that node
bold edge                   the root move the search chose
``cut`` beside an edge      a cut-off happened at the node above; the dashed
                            edges to its right were skipped
==========================  ===============================================

Colours come from the Okabe-Ito palette (Okabe & Ito 2008), designed to stay
distinguishable under the common colour-vision deficiencies.
"""

from __future__ import annotations

import math
from functools import lru_cache
from fractions import Fraction
from numbers import Real

__all__ = ["FONT", "OKABE_ITO", "PALETTE", "fmt_number", "fmt_probability", "text_width"]

FONT = "Helvetica"
"""Font of every label.  Both engines know its metrics, so layouts agree; pictures are drawn in
CourseSans, shipped with the course and embedded in each SVG (:mod:`course.fonts`), whose widths
are Helvetica's, so a viewer without Helvetica or Arial draws them as they were laid out."""

OKABE_ITO = {
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
    "black": "#000000",
}
"""The eight Okabe-Ito colours."""

PALETTE = {
    # fills: light tints of Okabe-Ito colours, one per kind of node
    "max_fill": "#D4ECFA",      # sky blue tint
    "min_fill": "#FBE5BD",      # orange tint
    "chance_fill": "#FAF5C4",   # yellow tint
    "leaf_fill": "#FFFFFF",
    "summary_fill": "#EFEFEF",
    # lines and text
    "ink": "#000000",
    "faded": "#6A6A6A",         # pruned: outline and text (4.9:1 on faded_fill)
    "faded_fill": "#F4F4F4",
    "pending": "#6E6E6E",       # not reached yet (5.1:1 on white; dotted tells it apart)
    "current": OKABE_ITO["vermillion"],
    "chosen": OKABE_ITO["blue"],
    "cut": "#A84C00",           # vermillion darkened for text: 5.7:1 on white
    "note": "#555555",          # small annotations (order, windows)
}
"""Named colours used by the renderer and the legend."""

# Approximate Helvetica advance widths, in ems, for the characters labels use.
_WIDTHS = {
    **{d: 0.556 for d in "0123456789"},
    " ": 0.278, ".": 0.278, ",": 0.278, "[": 0.278, "]": 0.278, "(": 0.333, ")": 0.333,
    "-": 0.333, "+": 0.584, "=": 0.584, "#": 0.556, "/": 0.278, "?": 0.556,
    "≤": 0.584, "≥": 0.584, "∞": 0.713, "…": 1.0, "α": 0.6, "β": 0.58, "ε": 0.5, "Σ": 0.65,
}


@lru_cache(maxsize=8192)
def text_width(text: str, size: float) -> float:
    """Estimated width in points of ``text`` in Helvetica at ``size`` points.

    >>> round(text_width("[0, 100]", 10), 1)
    33.4
    """
    return size * sum(_WIDTHS.get(ch, 0.6 if ch.isupper() else 0.52) for ch in text)


@lru_cache(maxsize=8192, typed=True)      # typed: 2/3 as a Fraction and as a float read differently
def fmt_number(x: object, *, signed_infinity: bool = True) -> str:
    """A value as students read it: ``3``, ``-0.5``, ``51.2``, ``2/3``, ``+∞``; ``?`` if unknown.

    Integral values lose their ``.0``; exact fractions read as fractions (up to
    denominator 99, as the lessons write them: ``22/3``); others keep three
    significant digits, or three decimals below 1 (and none from 100 on), so
    labels stay short.  (Cached: equal numbers always read the same.)

    >>> [fmt_number(v) for v in (3, 3.0, -0.5, 2 / 3, 51.182, 123.4, float("inf"), -float("inf"), None)]
    ['3', '3', '-0.5', '0.667', '51.2', '123', '+∞', '-∞', '?']
    >>> fmt_number(Fraction(-7, 8)), fmt_number(Fraction(22, 3)), fmt_number(0.2 / 3)
    ('-7/8', '22/3', '0.067')
    """
    if x is None or not isinstance(x, Real):
        return "?"
    if isinstance(x, Fraction) and 1 < x.denominator < 100:
        return f"{x.numerator}/{x.denominator}"
    value = float(x)
    if math.isnan(value):
        return "?"
    if math.isinf(value):
        return ("+∞" if signed_infinity else "∞") if value > 0 else "-∞"
    if value.is_integer():
        return str(int(value))
    size = abs(value)
    decimals = 3 if size < 1 else max(0, 2 - int(math.floor(math.log10(size))))
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def fmt_probability(p: object) -> str:
    """A probability: exact fractions as ``1/3``, floats with at most three decimals.

    >>> fmt_probability(Fraction(1, 3)), fmt_probability(0.8), fmt_probability(0.2 / 3)
    ('1/3', '0.8', '0.067')
    """
    if isinstance(p, Fraction) and p.denominator != 1:
        return f"{p.numerator}/{p.denominator}"
    return fmt_number(p)
