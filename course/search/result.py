"""What a search returns: a :class:`SearchResult`, optionally with a :class:`Trace`.

Counting conventions, shared by every search in :mod:`course.search`:

* ``expanded`` counts the internal nodes (decision or chance) whose children
  the search began to iterate; the root counts.  A depth-limited search does
  not expand the nodes it evaluates at its horizon.
* ``evaluated`` counts leaf evaluations (UTILITY at terminal states, EVAL at
  the horizon), and ``leaves`` lists the evaluated nodes' paths in order.

A trace is a list of :class:`TraceEvent`, in the order the search did things:

========  =====================================================================
kind      meaning
========  =====================================================================
enter     the search entered an internal node, with its window (alpha, beta)
          and, for bounded searches, its initial bounds [lower, upper]
leaf      a leaf was evaluated; ``lower == upper ==`` its value
update    the node took in a child's result (``child`` is the child's index):
          its new window and its value so far (``lower == upper``) or bounds
cutoff    the node stopped early: ``pruned`` are the children it skips, and
          ``reason`` says which test fired
exit      the node returned: its value (``lower == upper``) or its bounds
========  =====================================================================

What a search *returned* for a node is not always the node's value.  Alpha-beta
returns one number ``v`` per node, and its trace says ``lower == upper == v``, but
a node that came back at or below the alpha it was searched with is only known
to be worth *at most* ``v``, and one at or above its beta *at least* ``v``
(fail-soft alpha-beta, Knuth & Moore 1975: :func:`fail_soft_bounds`).  Star1 and
BAB return true bounds ``[L, U]``.  Whatever the search, the course shows what
is *known* about a node:

* :attr:`SearchResult.children` holds one :class:`ChildResult` per searched root
  child: ``(index, lower, upper)`` with the bounds the search established
  (``-inf``/``+inf`` for a side it knows nothing about), never a returned
  number passed off as a value;
* :func:`known_bounds` reads the same out of a trace, for every node the search
  finished (pictures, step-through and narration use it);
* :func:`bounds_text` writes bounds as the course does: ``3`` (exact), ``≤2``,
  ``≥0`` or ``[1, 4]``.

For a search's author (a new search in this package): append one
``ChildResult`` per root child to ``SearchContext.root_children``, built with
``ChildResult(index, v, v)`` when ``v`` is the child's value (for the value the
search computes: depth-limited, Chen's backed-up value, ...),
``ChildResult(index, L, U)`` for true bounds, or
``ChildResult.fail_soft(index, v, alpha, beta)`` for a fail-soft return ``v``
from the window ``(alpha, beta)`` the child was searched with; and add the
search's name to :data:`FAIL_SOFT` (or :data:`PROPAGATED`) if its trace reports
returned numbers that are only bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..game import Path

__all__ = ["SearchResult", "TraceEvent", "Trace", "NodeRecord", "ChildResult", "bounds_text",
           "fail_soft_bounds", "known_bounds", "KnownBounds", "FAIL_SOFT", "PROPAGATED"]

INF = float("inf")

FAIL_SOFT = frozenset({"alphabeta", "alphabeta-tt"})
"""Searches that return one number per node which, outside the window the node was searched
with, is only a bound (:func:`fail_soft_bounds`)."""

PROPAGATED = frozenset({"naive-epsilon"})
"""Searches whose returned numbers need not even be bounds (the naive epsilon rule): what is known
about a node is computed from its children (:func:`known_bounds`)."""


def bounds_text(lower: Any, upper: Any, number: Callable[[Any], str] = str) -> str:
    """Bounds on a value as the course writes them.

    ``3`` when they meet (the value), ``≤2`` when only an upper bound is known (``lower`` is
    ``-inf``), ``≥0`` when only a lower bound is, ``[1, 4]`` for both, ``?`` for none.

    Parameters
    ----------
    lower, upper : number
        The bounds (``-inf`` / ``+inf`` for an unknown side).
    number : callable, optional
        How to write one number (default ``str``; pictures pass their own formatter).

    Examples
    --------
    >>> bounds_text(3, 3), bounds_text(-math.inf, 2), bounds_text(0, math.inf), bounds_text(1, 4)
    ('3', '≤2', '≥0', '[1, 4]')
    >>> bounds_text(-math.inf, math.inf)
    '?'
    """
    if lower == upper:
        return number(lower)
    low_known = not (isinstance(lower, float) and lower == -INF)
    high_known = not (isinstance(upper, float) and upper == INF)
    if low_known and high_known:
        return f"[{number(lower)}, {number(upper)}]"
    if high_known:
        return f"≤{number(upper)}"
    if low_known:
        return f"≥{number(lower)}"
    return "?"


def fail_soft_bounds(returned: Any, alpha: Any, beta: Any) -> tuple[Any, Any]:
    """What a fail-soft alpha-beta return says about a node's value: ``(lower, upper)``.

    A node searched with the window ``(alpha, beta)`` that returns ``v`` is worth

    * at most ``v`` if ``v <= alpha`` (it "failed low": a cut somewhere below may have
      left out children that are lower still),
    * at least ``v`` if ``v >= beta`` (it "failed high"),
    * exactly ``v`` otherwise

    (Knuth & Moore 1975, for the rules of :func:`course.search.alphabeta`, which cut on
    equality).  The bound can be loose: a node that failed low without any cut below it is
    worth exactly ``v``, but alpha-beta does not tell the two apart.

    Examples
    --------
    >>> fail_soft_bounds(2, 3, math.inf)       # AIMA's C: 2 <= alpha = 3
    (-inf, 2)
    >>> fail_soft_bounds(3, -math.inf, math.inf)
    (3, 3)
    >>> fail_soft_bounds(0, -math.inf, 0)      # >= beta: at least 0
    (0, inf)
    """
    if returned <= alpha:
        return -INF, returned
    if returned >= beta:
        return returned, INF
    return returned, returned


#: A cut-off by a transposition table's answer (course.search.iterative): "table: lower value 3 ..."
_TABLE_FLAG = re.compile(r"table: (exact|lower|upper) value ")


def known_bounds(events: Iterable["TraceEvent"], algorithm: str) -> dict[Path, tuple[Any, Any]]:
    """What a traced search knows about each node it has finished: ``path -> (lower, upper)``.

    A leaf is known once evaluated, an internal node once it returns (``exit``); a node the
    search has not finished (or whose return the trace does not record) is absent.  The bounds
    are those of the trace for exact and bounded searches (minimax, expectimax, Star1, BAB,
    ...); for the searches of :data:`FAIL_SOFT` (alpha-beta) a returned number is turned into
    the bound it is by :func:`fail_soft_bounds`, from the window the node was entered with; for
    those of :data:`PROPAGATED` (the naive epsilon rule, whose returned numbers need not be
    bounds at all) each MAX or MIN node's bounds are computed from its children's: the largest
    (smallest) lower and upper bounds, and no upper (lower) bound at a MAX (MIN) node that
    skipped children.

    Parameters
    ----------
    events : iterable of TraceEvent
        A trace, or its first events (the state of a step-through).
    algorithm : str
        The search's name (``SearchResult.algorithm``).

    Examples
    --------
    >>> from course import alphabeta, parse_tree
    >>> result = alphabeta(parse_tree([[3, 12, 8], [2, 1, 6], [14, 5, 2]]), trace=True)
    >>> known = known_bounds(result.trace, "alphabeta")
    >>> known[()], known[(0,)], known[(1,)], (1, 1) in known
    ((3, 3), (3, 3), (-inf, 2), False)
    """
    tracker = KnownBounds(algorithm)
    for event in events:
        tracker.add(event)
    return tracker.known


class KnownBounds:
    """:func:`known_bounds` one event at a time: feed events to :meth:`add`, read :attr:`known`.

    For a picture or a step-through that replays a trace event by event.
    """

    __slots__ = ("known", "_windows", "_players", "_taken", "_cut", "_table", "_fail_soft",
                 "_propagated")

    def __init__(self, algorithm: str) -> None:
        self.known: dict[Path, tuple[Any, Any]] = {}
        """Path -> ``(lower, upper)`` of every node finished so far."""
        self._windows: dict[Path, tuple[Any, Any]] = {}
        self._players: dict[Path, str | None] = {}
        self._taken: dict[Path, list[int]] = {}
        self._cut: set[Path] = set()
        self._table: dict[Path, tuple[Any, Any]] = {}
        self._fail_soft = algorithm in FAIL_SOFT
        self._propagated = algorithm in PROPAGATED

    def add(self, e: "TraceEvent") -> tuple[Any, Any] | None:
        """Take in the next event; return the bounds of the node it finished, if it finished one."""
        kind, path = e.kind, e.path
        if kind == "enter":
            self._windows[path] = (e.alpha, e.beta)
            self._players[path] = e.player
            self._taken[path] = []
            self._cut.discard(path)
            self._table.pop(path, None)
            return None
        if kind == "leaf":
            self.known[path] = bounds = (e.lower, e.upper)
            return bounds
        if kind == "update":
            if e.child is not None and path in self._taken:
                self._taken[path].append(e.child)
            return None
        if kind == "cutoff":
            self._cut.add(path)
            flag = _TABLE_FLAG.match(e.reason or "")
            if flag and e.lower is not None and e.lower == e.upper:
                # a transposition table answered: its entry's flag says what the value is (the
                # window the trace shows was already narrowed by that entry)
                self._table[path] = {"exact": (e.lower, e.lower), "lower": (e.lower, INF),
                                     "upper": (-INF, e.lower)}[flag.group(1)]
            return None
        if kind != "exit" or e.lower is None or e.upper is None:
            return None
        player = self._players.get(path)
        window = self._windows.get(path)
        answered = self._table.pop(path, None)
        if answered is not None and e.lower == e.upper:
            bounds = answered
        elif e.lower != e.upper or player not in ("max", "min"):
            bounds = (e.lower, e.upper)
        elif self._fail_soft and window is not None and None not in window:
            bounds = fail_soft_bounds(e.lower, *window)
        elif self._propagated:
            children = [self.known.get(path + (i,)) for i in self._taken.get(path, [])]
            cut = path in self._cut
            if not children or None in children:
                bounds = (-INF, INF)
            elif player == "max":
                bounds = (max(c[0] for c in children), INF if cut else max(c[1] for c in children))
            else:
                bounds = (-INF if cut else min(c[0] for c in children), min(c[1] for c in children))
        else:
            bounds = (e.lower, e.upper)
        self.known[path] = bounds
        return bounds


class ChildResult(NamedTuple):
    """What a search established about one root child: bounds on its value.

    A tuple ``(index, lower, upper)``, so ``for index, lower, upper in result.children``
    works.  ``lower == upper`` means the child's value is known exactly; otherwise the value
    lies in ``[lower, upper]``, an unknown side being ``-inf`` or ``+inf``.  (A search that
    returned a single number for a cut child reports the bound that number is, never the
    number as a value: see :func:`fail_soft_bounds`.)

    Examples
    --------
    >>> from course import alphabeta, parse_tree
    >>> children = alphabeta(parse_tree([[3, 12, 8], [2, 1, 6], [14, 5, 2]])).children
    >>> children[1]
    ChildResult(index=1, lower=-inf, upper=2)
    >>> [str(c) for c in children], children[1].exact, children[1].contains(1)
    (['3', '≤2', '≤2'], False, True)
    >>> print(children[0].describe())
    root child 0: worth 3
    >>> print(children[1].describe())
    root child 1: worth at most 2 (a bound, not its value)
    """

    index: int
    """The child's index among the root's moves (as ``SearchResult.move``)."""
    lower: Any
    """A lower bound on its value (``-inf`` if none is known)."""
    upper: Any
    """An upper bound on its value (``+inf`` if none is known)."""

    @classmethod
    def fail_soft(cls, index: int, returned: Any, alpha: Any, beta: Any) -> "ChildResult":
        """The child as a fail-soft return ``returned`` from the window ``(alpha, beta)``."""
        return cls(index, *fail_soft_bounds(returned, alpha, beta))

    @property
    def exact(self) -> bool:
        """True when the bounds meet: the child's value is known."""
        return self.lower == self.upper

    @property
    def value(self) -> Any:
        """The child's value when known exactly, else None."""
        return self.lower if self.lower == self.upper else None

    def contains(self, value: Any) -> bool:
        """Whether ``value`` lies within the bounds."""
        return self.lower <= value <= self.upper

    def __str__(self) -> str:
        return bounds_text(self.lower, self.upper)

    def describe(self, number: Callable[[Any], str] = str) -> str:
        """The child in words: ``root child 1: worth at most 2 (a bound, not its value)``."""
        head = f"root child {self.index}: "
        if self.exact:
            return head + f"worth {number(self.lower)}"
        text = bounds_text(self.lower, self.upper, number)
        if text.startswith("≤"):
            return head + f"worth at most {text[1:]} (a bound, not its value)"
        if text.startswith("≥"):
            return head + f"worth at least {text[1:]} (a bound, not its value)"
        if text == "?":
            return head + "worth an unknown amount"
        return head + f"worth between {number(self.lower)} and {number(self.upper)}"


@dataclass(frozen=True)
class TraceEvent:
    """One step of a search (see the module docstring for the kinds)."""

    kind: str
    """``"enter"``, ``"leaf"``, ``"update"``, ``"cutoff"`` or ``"exit"``."""
    path: Path
    """The node the event is about."""
    player: str | None = None
    """``"max"``, ``"min"`` or ``"chance"`` (``enter`` events), ``"leaf"`` (``leaf`` events)."""
    alpha: float | None = None
    """The node's alpha after the event (None where the search keeps no window)."""
    beta: float | None = None
    """The node's beta after the event."""
    lower: float | None = None
    """The node's lower bound (or its value so far) after the event."""
    upper: float | None = None
    """The node's upper bound (or its value so far) after the event."""
    child: int | None = None
    """For ``update``: the index of the child whose result was taken in."""
    pruned: tuple[int, ...] = ()
    """For ``cutoff``: indices of the children that will not be searched."""
    reason: str = ""
    """For ``cutoff``: the test that fired, with its numbers."""

    @property
    def value(self) -> float | None:
        """``lower`` when ``lower == upper``, else None."""
        return self.lower if self.lower == self.upper else None


@dataclass(frozen=True)
class NodeRecord:
    """Everything a trace says about one node, after the search (see :meth:`Trace.nodes`)."""

    path: Path
    """The node's path."""
    player: str
    """``"max"``, ``"min"``, ``"chance"`` or ``"leaf"``."""
    alpha: float | None = None
    """The window the node was entered with (None for leaves and exact searches)."""
    beta: float | None = None
    """The window the node was entered with."""
    lower: float | None = None
    """The node's returned lower bound or value."""
    upper: float | None = None
    """The node's returned upper bound or value."""
    order: int = 0
    """Position of the node's first event in the trace (visit order)."""
    leaf_index: int | None = None
    """For a leaf: 0 for the first evaluated leaf, 1 for the next, ..."""
    pruned: tuple[int, ...] = ()
    """Children skipped by a cut-off at this node."""
    reason: str = ""
    """The cut-off's reason, or empty."""

    @property
    def value(self) -> float | None:
        """The node's value when its bounds meet, else None."""
        return self.lower if self.lower == self.upper else None


@dataclass(frozen=True)
class Trace:
    """The ordered events of one search.  Behaves like a tuple of :class:`TraceEvent`."""

    events: tuple[TraceEvent, ...]

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    def __getitem__(self, index):
        return self.events[index]

    def nodes(self, upto: int | None = None, *, algorithm: str | None = None) -> dict[Path, NodeRecord]:
        """Summarise the trace per visited node.

        Parameters
        ----------
        upto : int, optional
            Only use the first ``upto`` events (the state of a step-through).
        algorithm : str, optional
            The search's name.  When given, each finished node's ``lower`` and ``upper`` are
            what is *known* about its value (:func:`known_bounds`: alpha-beta's returns
            outside the window become one-sided bounds); by default they are what the trace
            says the node returned.

        Returns
        -------
        dict
            Path -> :class:`NodeRecord` for every node the search visited.

        Examples
        --------
        >>> from course import alphabeta, parse_tree
        >>> trace = alphabeta(parse_tree([[3, 12, 8], [2, 1, 6]]), trace=True).trace
        >>> trace.nodes()[(1,)].value, trace.nodes(algorithm="alphabeta")[(1,)].value
        (2, None)
        >>> trace.nodes(algorithm="alphabeta")[(1,)].upper
        2
        """
        records: dict[Path, dict] = {}
        leaf_count = 0
        for position, event in enumerate(self.events[:upto]):
            rec = records.get(event.path)
            if rec is None:
                rec = records[event.path] = {"path": event.path, "order": position}
            if event.kind == "enter":
                rec.update(player=event.player, alpha=event.alpha, beta=event.beta,
                           lower=event.lower, upper=event.upper)
            elif event.kind == "leaf":
                rec.update(player="leaf", lower=event.lower, upper=event.upper, leaf_index=leaf_count)
                leaf_count += 1
            elif event.kind in ("update", "exit"):
                rec.update(lower=event.lower, upper=event.upper)
            elif event.kind == "cutoff":
                rec.update(pruned=event.pruned, reason=event.reason)
        if algorithm is not None:
            for path, (lower, upper) in known_bounds(self.events[:upto], algorithm).items():
                if path in records:
                    records[path].update(lower=lower, upper=upper)
        return {path: NodeRecord(**rec) for path, rec in records.items()}

    def pruned_paths(self) -> list[Path]:
        """Paths of the children skipped by cut-offs (the roots of pruned subtrees)."""
        return [e.path + (i,) for e in self.events if e.kind == "cutoff" for i in e.pruned]


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.  ``value`` is set only when ``lower == upper``."""

    algorithm: str
    """Name of the search, e.g. ``"alphabeta"`` or ``"bab"``."""
    lower: float
    """Lower bound on the root's value (the value itself for exact searches)."""
    upper: float
    """Upper bound on the root's value (the value itself for exact searches)."""
    move: int | None
    """Index of the chosen root move in the root's original move order, or None
    (terminal or chance root)."""
    expanded: int
    """Internal nodes whose children the search began to iterate (root included)."""
    evaluated: int
    """Leaf evaluations (terminal utilities and horizon evaluations)."""
    leaves: tuple[Path, ...]
    """Paths of the evaluated leaves, in evaluation order."""
    children: tuple[ChildResult, ...] = ()
    """One :class:`ChildResult` ``(index, lower, upper)`` per searched root child, in search
    order: the bounds the search established on the child's value (equal when it is exact)."""
    epsilon: float | None = None
    """The error bound the search was run with (bounded searches only)."""
    trace: Trace | None = field(default=None, repr=False, compare=False)
    """The search's events when run with ``trace=True``, else None."""

    @property
    def value(self) -> float | None:
        """The root value when ``lower == upper``, else None."""
        return self.lower if self.lower == self.upper else None

    @property
    def width(self) -> float:
        """``upper - lower``: 0 for exact searches, at most epsilon for BAB (the AMB)."""
        return self.upper - self.lower

    def to_dict(self) -> dict:
        """The result as JSON-ready data (the CLI's ``--json`` object)."""
        return {
            "algorithm": self.algorithm,
            "value": self.value,
            "lower": self.lower,
            "upper": self.upper,
            "move": self.move,
            "expanded": self.expanded,
            "evaluated": self.evaluated,
            "leaves": [list(p) for p in self.leaves],
        }
