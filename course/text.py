"""Results and traces as text: numbers as the lessons print them, small tables, a trace in words.

The text counterpart of the pictures (:mod:`course.draw`): it reads what a
search returns and writes it out, and imports no search.

* :func:`fmt`: a number (or a tuple or list of them) as a lesson prints it;
* :class:`Table`: a small table that shows as HTML in a notebook, as text elsewhere
  (its cells are written by :func:`fmt`);
* :func:`narrate`: a search trace in words, one line per event.

Other places write numbers for other readers, on purpose differently:
:func:`course.draw.style.fmt_number` for labels inside pictures (short, ``+∞``),
:func:`course.drills.numbers.fmt` for drills (a real minus sign that screen
readers say and the answer parser reads back) and
:func:`course.grading.checks.values.fmt` for the grader's messages (floats in full, so
that ``0.30000000000000004`` is not shown as ``0.3``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from .errors import ParameterError

__all__ = ["fmt", "Table", "narrate"]


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


def narrate(trace: Iterable[Any], game: Any = None, *, upto: int | None = None,
            algorithm: str | None = None) -> list[str]:
    """A search trace in words, one line per event.

    A node's return says what is *known* about its value
    (:func:`course.search.result.known_bounds`): alpha-beta's returns outside the window it was
    searched with are only bounds, and the line says so.

    Parameters
    ----------
    trace : Trace or SearchResult
        ``SearchResult.trace`` of a search run with ``trace=True`` (or the result itself).
    game : TreeGame, optional
        If given, nodes are named by their labels where they have one.
    upto : int, optional
        Only the first ``upto`` events.
    algorithm : str, optional
        The search's name (``SearchResult.algorithm``); default: the result's, or read from the
        trace (bounds at ``enter``: Star1 or BAB; cut-offs by ``+ epsilon``: the naive rule;
        windows: alpha-beta; neither: an exact search).

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

    A node that did not cut can still return a bound, when a node below it was cut: MAX node
    (1, 0) takes in its cut child's 2 and returns 2 <= alpha = 3, so it is only known to be worth
    at most 2 (its value is 1):

    >>> result = alphabeta(parse_tree([3, [[[2, 0], 1]]]), trace=True)
    >>> [line.strip() for line in narrate(result) if "(1, 0) returns" in line]
    ['(1, 0) returns 2, only a bound: its value is at most 2']

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
    from .search.result import KnownBounds

    if algorithm is None:
        algorithm = getattr(trace, "algorithm", None)
    trace = getattr(trace, "trace", trace)
    events = list(trace)[:upto]
    if algorithm is None:
        algorithm = _algorithm_of(events)

    def name(path: tuple[int, ...]) -> str:
        if game is not None and hasattr(game, "node"):
            label = game.node(path).label
            if label is not None:
                return label
        return "root" if not path else str(path)

    lines = []
    known = KnownBounds(algorithm)
    cut: set[tuple[int, ...]] = set()
    for e in events:
        finished = known.add(e)
        depth = "  " * len(e.path)
        window = "" if e.alpha is None else f", window ({fmt(e.alpha)}, {fmt(e.beta)})"
        bounds = (f"value {fmt(e.lower)}" if e.lower == e.upper
                  else f"bounds [{fmt(e.lower)}, {fmt(e.upper)}]")
        if e.kind == "enter":
            cut.discard(e.path)
            lines.append(f"{depth}enter {name(e.path)} ({e.player}){window}")
        elif e.kind == "leaf":
            lines.append(f"{depth}leaf {name(e.path)} = {fmt(e.lower)}")
        elif e.kind == "update":
            lines.append(f"{depth}{name(e.path)} takes in child {e.child}: {bounds}{window}")
        elif e.kind == "cutoff":
            cut.add(e.path)
            skipped = ", ".join(name(e.path + (i,)) for i in e.pruned)
            reason = _LONG_FLOAT.sub(lambda m: fmt(float(m.group())), e.reason)
            lines.append(f"{depth}CUT at {name(e.path)}: {reason}; skips {skipped}")
        elif e.kind == "exit":
            if finished is not None and finished[0] != finished[1] and e.lower == e.upper:
                # one number returned, but only a bound (alpha-beta's fail-soft return)
                lines.append(f"{depth}{name(e.path)} returns {fmt(e.lower)}, only a bound: "
                             f"its value is {_bound_words(*finished)}")
            elif e.path in cut and e.lower == e.upper and algorithm not in _ONE_NUMBER:
                # Star1 / BAB: L = U is exact even after a cut (e.g. a MIN child at vmin)
                lines.append(f"{depth}{name(e.path)} returns value {fmt(e.lower)}: exact, "
                             f"its bounds met before the cut")
            else:
                lines.append(f"{depth}{name(e.path)} returns {bounds}")
    return lines


#: Searches that return one number per node (whose bounds the narration reads off the trace).
_ONE_NUMBER = frozenset({"alphabeta", "naive-epsilon", "minimax", "expectimax", "selective"})


def _algorithm_of(events: list) -> str:
    """The kind of search a bare trace comes from, as far as :func:`narrate` needs to know."""
    enters = [e for e in events if e.kind == "enter"]
    if any(e.lower is not None for e in enters):
        return "bab"
    if any(e.kind == "cutoff" and "+ epsilon" in e.reason for e in events):
        return "naive-epsilon"
    if any(e.alpha is not None for e in enters):
        return "alphabeta"
    return "minimax"


def _bound_words(lower: Any, upper: Any) -> str:
    """``at most 2``, ``at least 0``, ``between 1 and 4`` (``lower < upper``)."""
    low = not (isinstance(lower, float) and math.isinf(lower))
    high = not (isinstance(upper, float) and math.isinf(upper))
    if low and high:
        return f"between {fmt(lower)} and {fmt(upper)}"
    if high:
        return f"at most {fmt(upper)}"
    if low:
        return f"at least {fmt(lower)}"
    return "unknown"


class Table:
    """A small table that shows as HTML in a notebook and as text elsewhere.

    Cells are written by :func:`fmt` with 6 significant digits: exact fractions as
    ``22/3``, ``None`` as ``-``.

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
    >>> from fractions import Fraction
    >>> print(Table([(Fraction(22, 3), 2 / 3, (Fraction(-7, 8), 1))], headers=["exact", "float", "window"]))
    exact     float     window
     22/3  0.666667  (-7/8, 1)
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
        return [[fmt(x, digits=6) for x in row] for row in self.rows]

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
