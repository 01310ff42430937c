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
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..game import Path

__all__ = ["SearchResult", "TraceEvent", "Trace", "NodeRecord"]


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

    def nodes(self, upto: int | None = None) -> dict[Path, NodeRecord]:
        """Summarise the trace per visited node.

        Parameters
        ----------
        upto : int, optional
            Only use the first ``upto`` events (the state of a step-through).

        Returns
        -------
        dict
            Path -> :class:`NodeRecord` for every node the search visited.
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
    children: tuple[tuple[int, float, float], ...] = ()
    """``(index, lower, upper)`` returned by each searched root child, in search order."""
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
