"""Drawing game trees and searches on them as Graphviz pictures.

:func:`draw_tree` turns a game (an explicit :class:`~course.trees.TreeGame`, or
any :class:`~course.game.Game` expanded with :func:`~course.trees.game_to_tree`)
and optionally a traced :class:`~course.search.SearchResult` into a
:class:`~course.draw.TreePicture`.  The conventions are those of
:mod:`course.draw.style` (and of :func:`course.draw.legend`):

* MAX is a triangle pointing up, MIN one pointing down, CHANCE a circle and a
  leaf a box with its utility; probabilities label the edges below chance
  nodes, moves the edges of expanded games.
* With a search: each visited node shows its value, or ``[L, U]`` for the
  bounded searches (Star1, BAB), and the window ``α=.. β=..`` it was searched
  with; evaluated leaves show ``#k``, their place in the evaluation order.
  Alpha-beta's inner values that are only bounds are written ``≤v`` or
  ``≥v`` (a node returning ``v <= alpha`` is worth at most ``v``, one returning
  ``v >= beta`` at least ``v``: Knuth & Moore 1975); the naive epsilon rule's
  nodes show the bounds carried up from their children (its returned numbers
  need not be bounds): :func:`course.search.result.known_bounds`.  A node the
  search expanded but whose children are not drawn keeps its kind's shape and
  shows what is known about it, never a returned number as a value.
* Pruned subtrees are dashed and faded; ``cut`` marks the first skipped edge
  of the node where the cut-off happened; the chosen root move is bold.
* ``upto=k`` shows the search after its first ``k`` trace events: the node the
  last event was about is outlined thick, the path to it is thick, nodes not
  reached yet are dotted, and nodes still being searched show their live
  window and value so far (``v=..``).  Each node is sized for the widest
  label it takes anywhere in the trace, so the layout does not move between
  steps.

Every drawn tree node is one Graphviz node whose ``id`` is ``n`` followed by
``_i`` for each step of its path (``n`` is the root, ``n_0_2`` the node at path
``(0, 2)``); its tooltip starts with its status (``visited``, ``pruned``,
``current``, ``pending``, ``unvisited``).  Big trees are cut down to about
``max_nodes`` drawn nodes: the children of a node that is not expanded are
summarised by one node ``s_<path>`` ("... 64 leaves").  With a search, the
visited part is expanded first, breadth first; the rest is expanded a whole
level at a time while it fits.

References
----------
Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search* (SoCS 2018),
Algorithm 1 and Figures 2-3 (seed 000); Russell & Norvig's alpha-beta as quoted
there (Figure 1); Knuth & Moore (1975) on fail-soft bounds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import combinations
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..errors import ParameterError, format_path
from ..game import Game, Path
from ..search.result import KnownBounds, PROPAGATED, SearchResult, TraceEvent, bounds_text, known_bounds
from ..trees import TreeGame, TreeNode, game_to_tree
from .picture import TreePicture
from .style import FONT, PALETTE, fmt_number, fmt_probability, text_width

__all__ = ["draw_tree", "describe_event", "room_for_bounds"]

#: Largest tree :func:`draw_tree` expands from a general game before collapsing it.
EXPAND_LIMIT = 20_000

BOUNDED = frozenset({"bab", "star1", "star2", "bab-tt"})
"""Searches whose nodes carry bounds [L, U] rather than a single value."""


_KIND_NAMES = {"max": "MAX", "min": "MIN", "chance": "CHANCE", "leaf": "leaf"}

# Font sizes (points) and geometry (points; 72 per inch).
VALUE_PT = 12
NOTE_PT = 10
NAME_PT = 10
EDGE_PT = 10
TITLE_PT = 13
SUMMARY_PT = 10
_LINE = 1.22          # line height per point of font size
_PAD = 5.0            # horizontal room left beside text inside a shape


# -- replaying a trace -----------------------------------------------------------------------

@dataclass
class _Rec:
    """What the trace has said about one node so far."""

    player: str | None = None
    alpha0: float | None = None
    beta0: float | None = None
    alpha: float | None = None
    beta: float | None = None
    lower: float | None = None
    upper: float | None = None
    leaf_index: int | None = None
    leaf_indices: list[int] = field(default_factory=list)   # every evaluation (a search may repeat)
    entered: int = 0                                         # how many times it was expanded
    active: bool = False
    cut: tuple[int, ...] = ()
    reason: str = ""
    known: tuple[Any, Any] | None = None                      # bounds once it returned


@dataclass
class _Replay:
    """The state of a search after some prefix of its trace."""

    recs: dict[Path, _Rec] = field(default_factory=dict)
    pruned_roots: set[Path] = field(default_factory=set)
    current: Path | None = None
    widths: dict[Path, dict[str, float]] = field(default_factory=dict)

    def is_pruned(self, path: Path) -> bool:
        return any(path[:k] in self.pruned_roots for k in range(len(path) + 1))


def _replay(events: Sequence[TraceEvent], algorithm: str, *, show_window: bool,
            measure: bool = False) -> _Replay:
    """Apply ``events`` in order; with ``measure``, track the widest label per kind."""
    state = _Replay()
    recs = state.recs
    leaf_count = 0
    known = KnownBounds(algorithm)
    for event in events:
        rec = recs.get(event.path)
        if rec is None:
            rec = recs[event.path] = _Rec()
        kind = event.kind
        finished = known.add(event)
        if kind == "enter":
            rec.player, rec.active, rec.known = event.player, True, None
            rec.entered += 1
            rec.alpha0 = rec.alpha = event.alpha
            rec.beta0 = rec.beta = event.beta
            rec.lower, rec.upper = event.lower, event.upper
        elif kind == "leaf":
            rec.player, rec.lower, rec.upper = "leaf", event.lower, event.upper
            rec.leaf_index = leaf_count
            rec.leaf_indices.append(leaf_count)
            leaf_count += 1
        else:
            if event.alpha is not None or event.beta is not None:
                rec.alpha, rec.beta = event.alpha, event.beta
            if event.lower is not None or event.upper is not None:
                rec.lower, rec.upper = event.lower, event.upper
            if kind == "cutoff":
                rec.cut, rec.reason = event.pruned, event.reason
                state.pruned_roots.update(event.path + (i,) for i in event.pruned)
            elif kind == "exit":
                rec.active = False
                rec.known = finished
        state.current = event.path
        if measure:
            _measure(state.widths, event.path, rec, algorithm, show_window)
    return state


def _measure(widths: dict[Path, dict[str, float]], path: Path, rec: _Rec, algorithm: str,
             show_window: bool) -> None:
    """Widen ``path``'s record to hold its label as it is now (its widest state wins)."""
    if rec.player in (None, "leaf"):
        texts = {"value": fmt_number(rec.lower), "note": _visits_text(rec) or "#1"}
    else:
        texts = {"value": _value_text(rec, algorithm),
                 "note": _note_text(rec, show_window)}
    _widen(widths, path, texts)


def _visits_text(rec: _Rec) -> str:
    """``#3`` for the 3rd leaf evaluated; ``#3,#9`` when the search evaluated it twice."""
    return ",".join(f"#{i + 1}" for i in rec.leaf_indices)


def _note_text(rec: _Rec, show_window: bool) -> str:
    """An inner node's small line: its window, and ``expanded 2×`` if the search came back."""
    parts = [_window_text(rec)] if show_window else []
    if rec.entered > 1:
        parts.append(f"expanded {rec.entered}×")
    return " ".join(p for p in parts if p)


def _value_text(rec: _Rec, algorithm: str) -> str:
    """The value line of a visited internal node."""
    lower, upper = rec.lower, rec.upper
    if algorithm in BOUNDED:
        if lower is None:
            return ""
        return fmt_number(lower) if lower == upper else f"[{fmt_number(lower)}, {fmt_number(upper)}]"
    if lower is None:
        return ""
    if rec.active:
        return f"v={fmt_number(lower)}"
    if rec.known is not None:              # what is known: ≤v, ≥v, [L, U] or the value
        return bounds_text(*rec.known, fmt_number)
    return fmt_number(lower)


def _window_text(rec: _Rec) -> str:
    """The window line: the live window while the node is searched, else the one it got."""
    alpha, beta = (rec.alpha, rec.beta) if rec.active else (rec.alpha0, rec.beta0)
    if alpha is None or beta is None:
        return ""
    return f"α={fmt_number(alpha)} β={fmt_number(beta)}"


_NUMBER_IN_REASON = re.compile(r"(?<==)(-?(?:\d+\.\d*|\.\d+)(?:e[+-]?\d+)?)")


def readable_reason(reason: str | None) -> str:
    """A search's cut-off reason with its numbers as the picture writes them (three significant
    digits), so that the text alternative reads ``v=3.36 <= alpha=22.7``, not seventeen digits.

    >>> readable_reason("v=3.3585575305464355 <= alpha=22.715759353337972")
    'v=3.36 <= alpha=22.7'
    >>> readable_reason("beta=10 <= alpha=8 + epsilon=2")
    'beta=10 <= alpha=8 + epsilon=2'
    """
    if not reason:
        return ""
    return _NUMBER_IN_REASON.sub(lambda m: fmt_number(float(m.group(1))), reason)


def describe_event(event: TraceEvent, *, index: int | None = None, name: str | None = None,
                   known: tuple[Any, Any] | None = None) -> str:
    """One line of English saying what a trace event did.

    Parameters
    ----------
    event : TraceEvent
    index : int, optional
        Its position in the trace (shown as ``step index + 1``).
    name : str, optional
        A label for the node (e.g. ``"B"``), shown before its path.
    known : (lower, upper), optional
        For an ``exit`` event: what is known about the node's value once it returned
        (:func:`course.search.result.known_bounds`).  When it is only a bound, the line says
        so ("returns 2, only a bound: worth at most 2") instead of reading like a value.

    Returns
    -------
    str

    Examples
    --------
    >>> from course import alphabeta, parse_tree
    >>> trace = alphabeta(parse_tree([[3, 12, 8], [2, 4, 6]]), trace=True).trace
    >>> describe_event(trace[0])
    'enter MAX node root with window α=-∞ β=+∞'
    >>> [describe_event(e) for e in trace if e.kind == "cutoff"]
    ['cut-off at (1,): v=2 <= alpha=3; skipping children 1, 2']
    >>> exit_c = next(e for e in trace if e.kind == "exit" and e.path == (1,))
    >>> describe_event(exit_c, known=(-math.inf, 2))
    '(1,) returns 2, only a bound: worth at most 2'
    """
    where = format_path(event.path)
    if name:
        where = f"{name} {where}"
    step = f"step {index + 1}: " if index is not None else ""
    window = ""
    if event.alpha is not None and event.beta is not None:
        window = f"α={fmt_number(event.alpha)} β={fmt_number(event.beta)}"
    if event.lower is None:
        bounds = "?"
    elif event.lower == event.upper:
        bounds = fmt_number(event.lower)
    else:
        bounds = f"[{fmt_number(event.lower)}, {fmt_number(event.upper)}]"
    kind = event.kind
    if kind == "enter":
        text = f"enter {_KIND_NAMES.get(event.player or '', event.player)} node {where}"
        if window:
            text += f" with window {window}"
        if event.lower is not None and event.lower != event.upper:
            text += f", bounds {bounds}"
    elif kind == "leaf":
        text = f"evaluate leaf {where}: {bounds}"
    elif kind == "update":
        text = f"{where} takes in child {event.child}: now {bounds}"
        if window:
            text += f", window {window}"
        if event.reason:                                  # e.g. Star2's "probe"
            text += f" ({event.reason})"
    elif kind == "cutoff":
        skipped = ", ".join(str(i) for i in event.pruned)
        plural = "ren" if len(event.pruned) != 1 else ""
        text = f"cut-off at {where}: {readable_reason(event.reason)}; skipping child{plural} {skipped}"
    elif kind == "exit":
        text = f"{where} returns {bounds}"
        if known is not None and known[0] != known[1] and event.lower == event.upper:
            text += ", only a bound: worth " + _bound_words(*known)
        elif known is not None and known[0] == known[1] and known[0] != event.lower:
            text += f": its value is {fmt_number(known[0])}"
    else:
        text = f"{kind} at {where}"
    return step + text


def _bound_words(lower: Any, upper: Any) -> str:
    """``at most 2``, ``at least 0``, ``between 1 and 4`` or ``an unknown amount``."""
    text = bounds_text(lower, upper, fmt_number)
    if text.startswith("≤"):
        return f"at most {text[1:]}"
    if text.startswith("≥"):
        return f"at least {text[1:]}"
    if text == "?":
        return "an unknown amount"
    return f"between {fmt_number(lower)} and {fmt_number(upper)}"


# -- choosing what to draw ----------------------------------------------------------------------

class _Tree:
    """The drawn tree: TreeNodes addressed by paths relative to the drawn root."""

    def __init__(self, root: TreeNode, names_are_moves: bool) -> None:
        self.root = root
        self.names_are_moves = names_are_moves
        self._leaves: dict[int, int] = {}

    def node(self, path: Path) -> TreeNode | None:
        node = self.root
        for i in path:
            if not 0 <= i < len(node.children):
                return None
            node = node.children[i]
        return node

    def leaf_count(self, node: TreeNode) -> int:
        """Leaves in the subtree of ``node`` (a leaf counts itself)."""
        key = id(node)
        known = self._leaves.get(key)
        if known is None:
            if node.is_leaf:
                known = 1
            else:
                known = sum(self.leaf_count(c) for c in node.children)
            self._leaves[key] = known
        return known


def _expansion_cost(node: TreeNode) -> int:
    """Drawn nodes added by expanding ``node``: its children and their summaries, less its own."""
    return len(node.children) + sum(1 for c in node.children if not c.is_leaf) - 1


def _choose_expanded(tree: _Tree, visited: set[Path] | None, horizon: set[Path],
                     max_nodes: int, max_depth: int | None) -> set[Path]:
    """Paths of the nodes whose children are drawn (see the module docstring)."""
    root = tree.root
    expanded: set[Path] = set()
    count = 1 if root.is_leaf else 2          # the root and, until expanded, its summary

    def expandable(node: TreeNode, path: Path) -> bool:
        return (not node.is_leaf and path not in horizon
                and (max_depth is None or len(path) < max_depth))

    deferred: list[tuple[TreeNode, Path]] = []
    stopped = False
    if visited is not None:
        queue = [(root, ())]
        head = 0
        while head < len(queue):
            node, path = queue[head]
            head += 1
            if path not in visited:
                deferred.append((node, path))
                continue
            if not expandable(node, path):
                continue
            cost = _expansion_cost(node)
            if count + cost > max_nodes:
                stopped = True
                break
            count += cost
            expanded.add(path)
            queue.extend((c, path + (i,)) for i, c in enumerate(node.children) if not c.is_leaf)
    else:
        deferred.append((root, ()))
    if stopped:
        return expanded
    pending = [(n, p) for n, p in deferred if expandable(n, p)]
    while pending:
        depth = min(len(p) for _, p in pending)
        level = [(n, p) for n, p in pending if len(p) == depth]
        rest = [(n, p) for n, p in pending if len(p) != depth]
        cost = sum(_expansion_cost(n) for n, _ in level)
        if count + cost > max_nodes:
            break
        count += cost
        for node, path in level:
            expanded.add(path)
            rest.extend((c, path + (i,)) for i, c in enumerate(node.children)
                        if expandable(c, path + (i,)))
        pending = rest
    return expanded


# -- building the DOT text ------------------------------------------------------------------------

def _node_id(path: Path, prefix: str = "n") -> str:
    return prefix + "".join(f"_{i}" for i in path)


def _quote(text: str) -> str:
    if "\\" in text or '"' in text or "\n" in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def _attrs(**attrs: Any) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        if type(value) is str:
            parts.append(f"{key}={_quote(value)}")
        elif isinstance(value, _Html):
            parts.append(f"{key}=<{value.text}>")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{key}={value:.4g}")
        else:
            parts.append(f"{key}={_quote(str(value))}")
    return "[" + ", ".join(parts) + "]"


@dataclass(frozen=True)
class _Html:
    text: str


_SHAPES = {"max": "triangle", "min": "invtriangle", "chance": "circle", "leaf": "box"}

# Label lines: (role, text).  Roles fix the font: a node's name, its value, a small note.
_ROLE_PT = {"name": NAME_PT, "value": VALUE_PT, "note": NOTE_PT}
_ORDER = {"max": ("name", "value", "note"), "min": ("name", "note", "value"),
          "chance": ("name", "value", "note"), "leaf": ("name", "value", "note")}


def _html_label(kind: str, texts: dict[str, str], *, value_pt: int = VALUE_PT) -> _Html | str:
    """An HTML label stacking a node's lines in its kind's order (empty lines left out).

    MAX puts the window (note) under the value and MIN above it, so the wider
    line sits near the triangle's base.
    """
    parts = []
    for role in _ORDER.get(kind, ("name", "value", "note")):
        text = texts.get(role, "")
        if not text:
            continue
        body = escape(text)
        if role == "name":
            parts.append(f'<FONT POINT-SIZE="{NAME_PT}"><B>{body}</B></FONT>')
        elif role == "value":
            parts.append(f'<FONT POINT-SIZE="{value_pt}">{body}</FONT>')
        else:
            parts.append(f'<FONT POINT-SIZE="{NOTE_PT}" COLOR="{PALETTE["note"]}">{body}</FONT>')
    return _Html("<BR/>".join(parts)) if parts else ""


#: Room left in triangles and circles for a wider font than Helvetica, per line role.  SVG
#: pictures carry their font (CourseSans, Helvetica's widths: course.fonts), but a viewer that
#: drops it (an untrusted notebook's sanitised HTML, an SVG tool without web fonts) and has no
#: Helvetica or metric twin (Arial, Liberation Sans) draws labels in its own sans-serif, often
#: DejaVu Sans: digits 14 % wider, "α=-∞ β=+∞" 24 % wider.  A box keeps its margins instead; a
#: triangle narrows towards its tip, so it needs the room.
_FONT_SLACK = {"name": 1.15, "value": 1.15, "note": 1.25}


def _lines(kind: str, widths: dict[str, float]) -> list[tuple[float, float]]:
    """(room, height) of each present line of a kind's label, top to bottom (room: its width
    with the slack for wider fonts)."""
    return [(widths[role] * _FONT_SLACK[role], _ROLE_PT[role] * _LINE)
            for role in _ORDER[kind] if widths.get(role)]


def _triangle_width(lines: list[tuple[float, float]], height: float, *, up: bool) -> float:
    """Width a fixed-size triangle needs so that every label line fits inside it.

    Graphviz draws a fixed-size triangle over 3/4 of the node's height (the
    top 3/4 when it points up, the bottom 3/4 when it points down) and centres
    the label block in the node.  A line's tightest spot is its top edge in a
    triangle pointing up and its bottom edge in one pointing down.
    """
    total = sum(h for _, h in lines)
    poly = 0.75 * height
    y = height / 2 + total / 2            # top of the block, measured from the node's bottom
    need = 0.0
    for width, h in lines:
        top, bottom = y, y - h
        y = bottom
        if up:
            frac = (height - top) / poly
        else:
            frac = bottom / poly
        need = max(need, (width + _PAD) / max(frac, 0.05))
    return need


def _circle_diameter(lines: list[tuple[float, float]]) -> float:
    """Diameter of a circle holding the centred label block."""
    total = sum(h for _, h in lines)
    y = total / 2                         # top of the block, measured from the centre
    radius = 0.0
    for width, h in lines:
        far = max(abs(y), abs(y - h))
        radius = max(radius, math.hypot((width + _PAD) / 2, far))
        y -= h
    return 2 * radius


def _heights(kinds_widths: list[tuple[str, dict[str, float]]]) -> dict[str, float]:
    """One triangle height and one leaf height for the whole picture, so ranks line up."""
    tri_block, leaf_block = VALUE_PT * _LINE, VALUE_PT * _LINE
    for kind, widths in kinds_widths:
        if kind in ("max", "min"):
            tri_block = max(tri_block, sum(h for _, h in _lines(kind, widths)))
        elif kind == "leaf":
            leaf_block = max(leaf_block, sum(h for _, h in _lines(kind, widths)))
    # 22 pt for a value alone, 30 pt with "#k" below it, more with a name above
    return {"tri": max(36.0, 1.9 * tri_block + 8), "leaf": max(22.0, round(leaf_block + 5.6, 1))}


def _size(kind: str, widths: dict[str, float], heights: dict[str, float]) -> tuple[float, float]:
    """(width, height) in points of a node whose label lines have these widths."""
    lines = _lines(kind, widths)
    if kind in ("max", "min"):
        # a step-through shows some lines only at some steps (the window before the value):
        # the lines then stack differently, so every combination of them must fit
        height = heights["tri"]
        combos = (combo for n in range(1, len(lines) + 1) for combo in combinations(lines, n))
        width = max((_triangle_width(list(combo), height, up=kind == "max") for combo in combos),
                    default=0.0)
        return max(36.0, width), height
    if kind == "chance":
        diameter = max(30.0, _circle_diameter(lines))
        return diameter, diameter
    width = max(22.0, *(widths.get(role, 0.0) + 2 * _PAD for role in ("name", "value", "note")))
    return width, heights["leaf"]


def _widen(widths: dict[Path, dict[str, float]], key: Path, texts: dict[str, str]) -> None:
    """Record the widths of a node's lines (the widest seen per role wins)."""
    entry = widths.setdefault(key, {})
    for role, text in texts.items():
        if text:
            w = text_width(text, _ROLE_PT[role])
            if w > entry.get(role, 0.0):
                entry[role] = w


def _at_least(widths: dict[Path, dict[str, float]],
              floor: dict[Path, dict[str, float]]) -> dict[Path, dict[str, float]]:
    """A copy of ``widths`` in which every line is at least as wide as in ``floor``."""
    merged = {path: dict(roles) for path, roles in widths.items()}
    for path, roles in floor.items():
        entry = merged.setdefault(path, {})
        for role, width in roles.items():
            if width > entry.get(role, 0.0):
                entry[role] = width
    return merged


def room_for_bounds(game: Game, low: float, high: float) -> dict[Path, dict[str, float]]:
    """Sizes (for :func:`draw_tree`'s ``sizes``) holding the bounds ``[L, U]`` in every inner node.

    ``game`` is a :class:`~course.trees.TreeGame` or a game expanded to one.

    ``L`` and ``U`` are taken between ``low`` and ``high``; the widest of a few values of that
    range as :func:`~course.draw.style.fmt_number` writes them (``88.9``, ``-5.56``) is reserved,
    so that bounded searches (BAB, Star1) at other settings rarely need bigger nodes.

    >>> from course.examples import bab_figure3
    >>> room = room_for_bounds(bab_figure3(), 0, 100)
    >>> room[()]["value"] > text_width("[0, 100]", VALUE_PT)
    True
    """
    span = high - low
    numbers = [low, high] + [low + span * k / 9 for k in range(1, 9)] if math.isfinite(span) else []
    widest = max((fmt_number(x) for x in numbers), key=lambda t: text_width(t, VALUE_PT), default="0")
    width = text_width(f"[{widest}, {widest}]", VALUE_PT)
    tree = game if isinstance(game, TreeGame) else game_to_tree(game, max_nodes=EXPAND_LIMIT)
    room: dict[Path, dict[str, float]] = {}
    stack: list[tuple[TreeNode, Path]] = [(tree.root, ())]
    while stack:
        node, path = stack.pop()
        if not node.is_leaf:
            room[path] = {"value": width}
            stack.extend((child, path + (i,)) for i, child in enumerate(node.children))
    return room


def _inches(points: float) -> float:
    return round(points / 72.0, 3)


def _node_style(status: str, kind: str) -> dict[str, Any]:
    fill = PALETTE.get(f"{kind}_fill", PALETTE["leaf_fill"])
    if status == "pruned":
        return {"style": "dashed,filled", "fillcolor": PALETTE["faded_fill"],
                "color": PALETTE["faded"], "fontcolor": PALETTE["faded"], "penwidth": 1.2}
    if status == "pending":
        return {"style": "dotted,filled", "fillcolor": "#FFFFFF",
                "color": PALETTE["pending"], "fontcolor": PALETTE["pending"], "penwidth": 1.4}
    if status == "current":
        return {"style": "filled", "fillcolor": fill, "color": PALETTE["current"],
                "fontcolor": PALETTE["ink"], "penwidth": 3.5}
    return {"style": "filled", "fillcolor": fill, "color": PALETTE["ink"],
            "fontcolor": PALETTE["ink"], "penwidth": 1.2}


def _edge_style(status: str) -> dict[str, Any]:
    if status == "pruned":
        return {"style": "dashed", "color": PALETTE["faded"], "fontcolor": PALETTE["faded"]}
    if status == "pending":
        return {"style": "dotted", "color": PALETTE["pending"], "fontcolor": PALETTE["pending"]}
    return {"style": "solid", "color": PALETTE["ink"], "fontcolor": PALETTE["ink"]}


def _default_title(result: SearchResult, upto: int | None, total: int) -> str:
    name = result.algorithm
    if result.epsilon is not None and name not in ("star1", "star2"):
        name += f" (ε={fmt_number(result.epsilon)})"
    if upto is not None and upto < total:
        return f"{name}: after step {upto} of {total}"
    known = None
    if result.algorithm in PROPAGATED and result.trace is not None:
        known = known_bounds(result.trace, result.algorithm).get(())
    if known is not None and known[0] != known[1] and result.value is not None:
        # the naive rule's answer is not the value: say what it returned, and what is known
        outcome = f"returns {fmt_number(result.value)}, worth {_bound_words(*known)}"
    elif result.value is not None:
        outcome = f"value {fmt_number(result.value)}"
    else:
        outcome = f"value in [{fmt_number(result.lower)}, {fmt_number(result.upper)}]"
    noun = "leaf" if result.evaluated == 1 else "leaves"
    return f"{name}: {outcome}, {result.evaluated} {noun} evaluated"


def _safe_evaluate(game: Game):
    def evaluate(state: Any) -> float:
        try:
            return game.evaluate(state)
        except NotImplementedError:
            return math.nan
    return evaluate


def _build_tree(game: Game, state: Any, max_depth: int | None,
                events: Sequence[TraceEvent] | None) -> _Tree:
    if isinstance(game, TreeGame):
        root = game.root if state is None else state
        if not isinstance(root, TreeNode):
            raise ParameterError(
                f"state must be a node of the tree (a TreeNode, e.g. game.node(path)), "
                f"got {type(root).__name__}"
            )
        if root.path:
            root = _rebase(root, len(root.path))
        return _Tree(root, names_are_moves=False)
    # With a search, expand to its deepest node (``max_depth`` then only limits the drawing).
    depth = max(len(e.path) for e in events) if events else max_depth
    try:
        expanded = game_to_tree(game, state, depth=depth, evaluate=_safe_evaluate(game),
                                max_nodes=EXPAND_LIMIT)
    except ParameterError:
        raise ParameterError(
            f"this game's tree has more than {EXPAND_LIMIT} nodes; pass max_depth=... to draw "
            "its first levels"
        ) from None
    return _Tree(expanded.root, names_are_moves=True)


def _rebase(node: TreeNode, cut: int) -> TreeNode:
    """A copy of a subtree whose paths start at the subtree's root."""
    children = tuple(_rebase(c, cut) for c in node.children)
    return TreeNode(node.kind, node.path[cut:], children, node.probabilities, node.value,
                    node.label, _size=node.size)


def _explored(tree: _Tree, search: SearchResult) -> tuple[set[Path], set[Path]]:
    """The inner nodes ``search`` visited, and those it evaluated as leaves (its horizon).

    Raises
    ------
    ParameterError
        If ``search`` is not a traced search result.
    """
    if not isinstance(search, SearchResult) or search.trace is None:
        raise ParameterError("expand_from must be a search result run with trace=True")
    recs = _replay(tuple(search.trace.events), search.algorithm, show_window=False).recs
    visited = {p for p, rec in recs.items() if rec.player not in (None, "leaf")}
    horizon = set()
    for path, rec in recs.items():
        node = tree.node(path)
        if rec.player == "leaf" and node is not None and not node.is_leaf:
            horizon.add(path)
    return visited, horizon


def _check_int(name: str, value: Any, minimum: int, *, allow_none: bool) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        extra = " or None" if allow_none else ""
        raise ParameterError(f"{name} must be an integer >= {minimum}{extra}, got {value!r}")


def draw_tree(
    game: Game,
    result: SearchResult | None = None,
    *,
    state: Any = None,
    upto: int | None = None,
    max_depth: int | None = None,
    max_nodes: int = 200,
    legend: bool = False,
    show_window: bool = True,
    title: str | None = None,
    sizes: dict[Path, dict[str, float]] | None = None,
    expand_from: SearchResult | None = None,
) -> TreePicture:
    """Draw a game tree, or a search on it, as a Graphviz picture.

    Parameters
    ----------
    game : Game
        An explicit :class:`~course.trees.TreeGame`, or any game; a game that
        is not a tree is expanded with :func:`~course.trees.game_to_tree` (to
        ``max_depth``, or to the deepest node the search's trace reaches), its
        move descriptions becoming edge labels.
    result : SearchResult, optional
        A search on ``game`` (from the same ``state``) run with ``trace=True``.
    state : optional
        Draw the tree below this state (for a TreeGame, one of its nodes);
        paths, ids and the search's paths are then relative to it.
    upto : int, optional
        Show the search after its first ``upto`` trace events
        (``0 <= upto <= len(result.trace)``), for stepping through it.
    max_depth : int, optional
        Draw nodes down to this depth; deeper subtrees are summarised.
    max_nodes : int
        Draw about this many nodes at most (summaries included, at least the
        root and one summary); the rest is summarised.  Default 200.
    legend : bool
        Add the legend (:func:`course.draw.legend`) beside the tree.
    show_window : bool
        Show each searched node's window ``α=.. β=..``.  Default True.
    title : str, optional
        A caption.  Default: for a search, its name, result and leaf count
        (or the step shown); for a bare tree, none.  ``""`` draws none.
    sizes : dict, optional
        The widths (points) of the label lines of each node drawn so far with
        this dict (path -> line role -> width), read and updated in place:
        every node is drawn at least as big as it was in those pictures.  An
        explorer passes one dict to the successive pictures of one tree, so
        nodes never shrink and a slider that only changes labels and colours
        keeps the layout (the browser then restyles the picture instead of
        laying it out again).
    expand_from : SearchResult, optional
        A traced search on the same tree whose visited part decides which
        nodes are drawn when the tree is cut down to ``max_nodes`` (default:
        ``result``).  An explorer passes one search (ε = 0) for all the
        pictures of one tree, so the same nodes are drawn whatever ε prunes.

    Returns
    -------
    TreePicture
        ``.source`` is the DOT text; ``.svg()``, ``.png()`` and ``.save()``
        lay it out; ``.nodes`` maps drawn node ids to their status.

    Raises
    ------
    ParameterError
        If ``game`` is not a game, ``result`` has no trace or does not belong
        to ``game``, ``upto`` is out of range, or a size limit is invalid.

    Examples
    --------
    >>> from course import alphabeta
    >>> from course.examples import aima_figure_5_2
    >>> game = aima_figure_5_2()
    >>> pic = draw_tree(game, alphabeta(game, trace=True))
    >>> pic.title
    'alphabeta: value 3, 7 leaves evaluated'
    >>> sorted(path for path, status in pic.nodes.items() if status == "pruned")
    ['n_1_1', 'n_1_2']
    >>> pic.svg().count('class="node"') == len(pic.nodes) == 13
    True
    >>> draw_tree(game, alphabeta(game, trace=True), upto=3).nodes["n_0_0"]
    'current'

    Notes
    -----
    Windows are those a node was entered with, except while a step-through is
    inside the node, where its live window (the one its next child gets) is
    shown.  A node of a depth-limited search evaluated at the horizon is drawn
    with its kind's shape, its value and ``#k``; its subtree is summarised.
    """
    if not isinstance(game, Game):
        raise ParameterError(
            f"draw_tree needs a course Game (e.g. from course.parse_tree), got {type(game).__name__}"
        )
    _check_int("max_nodes", max_nodes, 1, allow_none=False)
    _check_int("max_depth", max_depth, 0, allow_none=True)
    events: tuple[TraceEvent, ...] | None = None
    algorithm = ""
    if result is not None:
        if not isinstance(result, SearchResult):
            raise ParameterError(f"result must be a SearchResult, got {type(result).__name__}")
        if result.trace is None:
            raise ParameterError(
                f"the {result.algorithm} result has no trace: run the search with trace=True to draw it"
            )
        events = tuple(result.trace.events)
        algorithm = result.algorithm
    if upto is not None:
        if events is None:
            raise ParameterError("upto= needs a search result (run the search with trace=True)")
        _check_int("upto", upto, 0, allow_none=False)
        if upto > len(events):
            raise ParameterError(f"upto={upto} is past the end of the trace ({len(events)} events)")

    tree = _build_tree(game, state, max_depth, events)

    # The whole search decides what is drawn and how big nodes are; ``upto`` only restyles.
    widths: dict[Path, dict[str, float]] = {}
    full = step = None
    visited: set[Path] | None = None
    horizon: set[Path] = set()
    if events is not None:
        full = _replay(events, algorithm, show_window=show_window, measure=True)
        widths = full.widths
        for path, rec in full.recs.items():
            node = tree.node(path)
            if node is None:
                raise ParameterError(
                    f"the {algorithm} result visits node {format_path(path)}, which this tree does "
                    "not have: was it computed on another game or from another state?"
                )
            if rec.player == "leaf" and not node.is_leaf:
                horizon.add(path)
        visited = {p for p, rec in full.recs.items() if rec.player not in (None, "leaf")}
        step = full if upto is None else _replay(events[:upto], algorithm, show_window=show_window)

    if expand_from is not None:
        visited, horizon = _explored(tree, expand_from)
    expanded = _choose_expanded(tree, visited, horizon, max_nodes, max_depth)
    if sizes is not None:
        widths = _at_least(widths, sizes)
    builder = _Builder(tree, algorithm, step, show_window, widths, upto is not None)
    builder.walk(tree.root, (), expanded)
    if sizes is not None:
        sizes.update(_at_least(sizes, builder.widths))
    if result is not None and (upto is None or upto >= len(events)):
        builder.highlight_move(result.move)
    if title is None and result is not None:
        title = _default_title(result, upto, len(events))
    legend_lines: list[str] = []
    if legend:
        from .legend import legend_cluster

        legend_lines = legend_cluster(builder.deepest())
    source = builder.source(title or None, legend_lines)
    return TreePicture(source, nodes=builder.statuses, title=title or None,
                       summary=builder.summary(title or None), outline=builder.outline())


class _Builder:
    """Collects the DOT statements of one picture."""

    def __init__(self, tree: _Tree, algorithm: str, step: _Replay | None, show_window: bool,
                 widths: dict[Path, dict[str, float]], stepping: bool) -> None:
        self.tree = tree
        self.algorithm = algorithm
        self.step = step
        self.show_window = show_window
        self.stepping = stepping
        self.widths = {k: dict(v) for k, v in widths.items()}
        self.nodes: list[tuple[str, dict]] = []
        self.edges: list[tuple[str, str, dict]] = []
        self.statuses: dict[str, str] = {}
        self.edge_index: dict[str, int] = {}
        self.on_path: set[Path] = set()
        self._below: dict[Path, list] | None = None
        if step is not None and stepping and step.current is not None:
            cur = step.current
            self.on_path = {cur[:k] for k in range(len(cur) + 1)}

    # statuses --------------------------------------------------------------------------------
    def status(self, path: Path) -> str:
        step = self.step
        if step is None:
            return "unvisited"
        if self.stepping and path == step.current:
            return "current"
        if path in step.recs:
            return "visited"
        if step.is_pruned(path):
            return "pruned"
        return "pending"

    # walking the tree ------------------------------------------------------------------------
    def walk(self, node: TreeNode, path: Path, expanded: set[Path]) -> None:
        stack = [(node, path)]
        while stack:
            node, path = stack.pop()
            self.add_node(node, path)
            if node.is_leaf:
                continue
            if path in expanded:
                for i, child in enumerate(node.children):
                    self.add_edge(node, path, i, child)
                stack.extend((c, path + (i,)) for i, c in reversed(list(enumerate(node.children))))
            else:
                self.add_summary(node, path)

    def label_texts(self, node: TreeNode, path: Path) -> tuple[dict[str, str], str]:
        """The lines of a tree node's label by role, and details for its tooltip."""
        rec = self.step.recs.get(path) if self.step is not None else None
        if node.is_leaf and rec is not None and rec.player in ("max", "min", "chance"):
            # expanded by the search, drawn without its children: what it returned is what is
            # known about it (a bound, maybe), never its EVAL or a number passed off as a value
            texts, details = self.inner_texts(rec)
            if not texts.get("value"):         # a student's search: what it returned is unknown
                texts["value"] = "…"
                details = (details + "; " if details else "") + "what it returned is not recorded"
            return texts, (details + "; " if details else "") + "its children are not drawn"
        if node.is_leaf or (rec is not None and rec.player == "leaf"):
            value = rec.lower if rec is not None and rec.lower is not None else node.value
            unknown = value is None or (isinstance(value, float) and math.isnan(value))
            main = "…" if unknown else fmt_number(value)
            evaluated = rec is not None and rec.leaf_index is not None
            note = _visits_text(rec) if evaluated else ""
            details = f"value {main}"
            if evaluated and len(rec.leaf_indices) > 1:
                times = ", ".join(_ordinal(i + 1) for i in rec.leaf_indices)
                details += (f", evaluated {len(rec.leaf_indices)} times: the {times} leaf "
                            "evaluations")
            elif evaluated:
                details += f", the {_ordinal(rec.leaf_index + 1)} leaf evaluated"
            return {"value": main, "note": note}, details
        if rec is None or rec.player is None:
            return {}, ""
        return self.inner_texts(rec)

    def inner_texts(self, rec: _Rec) -> tuple[dict[str, str], str]:
        """The label lines and details of a node the search expanded."""
        main = _value_text(rec, self.algorithm)
        window = _window_text(rec)
        note = _note_text(rec, self.show_window)
        details = []
        if main:
            details.append(("value so far " if rec.active else "value ") + main)
        if window:
            details.append(("window " if rec.active else "searched with ") + window)
        if rec.cut:
            details.append(f"cut-off ({readable_reason(rec.reason)})")
        if rec.entered > 1:
            details.append(f"expanded {rec.entered} times")
        return {"value": main, "note": note}, "; ".join(details)

    def add_node(self, node: TreeNode, path: Path) -> None:
        nid = _node_id(path)
        status = self.status(path)
        self.statuses[nid] = status
        texts, details = self.label_texts(node, path)
        kind = node.kind
        rec = self.step.recs.get(path) if self.step is not None else None
        if node.is_leaf and rec is not None and rec.player in ("max", "min", "chance"):
            kind = rec.player                  # expanded by the search: its own shape
        name = None if self.tree.names_are_moves else _informative(node.label, path)
        attrs: dict[str, Any] = {"id": nid}
        attrs.update(_node_style(status, kind))
        if name:                  # inside the shape: never between leaves, never crossed by edges
            texts["name"] = name
        _widen(self.widths, path, texts)
        attrs["_kind"], attrs["_texts"], attrs["_path"] = kind, texts, path
        where = format_path(path) + (f" ({name})" if name else "")
        tip = f"{status}: {_KIND_NAMES[kind]} node {where}"
        if details:
            tip += f"; {details}"
        attrs["tooltip"] = tip
        self.nodes.append((nid, attrs))

    def add_edge(self, parent: TreeNode, path: Path, index: int, child: TreeNode) -> None:
        child_path = path + (index,)
        status = self.status(child_path)
        style_status = "visited" if status == "current" else status
        attrs: dict[str, Any] = {"id": _node_id(child_path, "e")}
        attrs.update(_edge_style(style_status))
        label = None
        move = _informative(child.label, child_path) if self.tree.names_are_moves else None
        if parent.kind == "chance":
            p = fmt_probability(parent.probabilities[index])
            label = move if move and p in move else (f"{move}: {p}" if move else p)
        elif move:
            label = move
        rec = self.step.recs.get(path) if self.step is not None else None
        cut = rec is not None and rec.cut and index == rec.cut[0]
        mark = f'<FONT POINT-SIZE="10" COLOR="{PALETTE["cut"]}"><B>cut</B></FONT>'
        if cut and label:
            # one label for both, so Graphviz keeps "cut" clear of the probability
            attrs["label"] = _Html(f"{escape(label)}<BR/>{mark}")
        elif label:
            attrs["label"] = label
        if child_path in self.on_path:
            attrs.update(color=PALETTE["current"], penwidth=3.0, style="solid")
        if cut and not label:
            attrs["taillabel"] = _Html(mark)
            attrs["labelangle"] = 0
            attrs["labeldistance"] = 1.6
        self.edge_index[_node_id(child_path)] = len(self.edges)
        self.edges.append((_node_id(path), _node_id(child_path), attrs))

    def add_summary(self, node: TreeNode, path: Path) -> None:
        sid = _node_id(path, "s")
        leaves = self.tree.leaf_count(node)
        line = f"… {leaves} lea{'f' if leaves == 1 else 'ves'}"
        note = ""
        status = "unvisited"
        step = self.step
        extra = ""
        if step is not None:
            rec = step.recs.get(path)
            seen, evaluated, cut = self.below(path)
            inside_current = (self.stepping and step.current is not None
                              and len(step.current) > len(path) and step.current[:len(path)] == path)
            if rec is not None and rec.player == "leaf":
                status, note = "pending", "beyond depth limit"
            elif step.is_pruned(path):
                status, note = "pruned", "pruned"
            elif seen:
                status = "current" if inside_current else "visited"
                note = f"{evaluated} evaluated"
                if cut or (rec is not None and rec.cut):
                    extra = ", some subtrees pruned"
            else:
                status, note = "pending", "not reached yet" if self.stepping else "not visited"
        self.statuses[sid] = "summary"
        # sized for every note it can take, so a new search on the same tree keeps the layout
        notes = (note, "pruned", "not reached yet" if self.stepping else "not visited",
                 f"{leaves} evaluated")
        width = max(text_width(line, SUMMARY_PT), *(text_width(n, NOTE_PT) for n in notes))
        attrs = {"id": sid, "shape": "box3d", "fixedsize": "true",
                 "width": _inches(width * _FONT_SLACK["value"] + 2 * _PAD + 4),
                 "height": _inches(36.0),
                 "tooltip": f"summary of the children of {format_path(path)}: {line[2:]}"
                            + (f", {note}" if note else "") + extra}
        style_status = "visited" if status in ("unvisited", "current") else status
        attrs.update(_node_style(style_status, "summary"))
        if status == "current":
            attrs.update(color=PALETTE["current"], penwidth=3.0)
        attrs["label"] = _html_label("summary", {"value": line, "note": note}, value_pt=SUMMARY_PT)
        attrs["_kind"], attrs["_depth"] = "summary", len(path) + 1
        self.nodes.append((sid, attrs))
        edge = {"id": _node_id(path, "e_s")}
        edge.update(_edge_style(style_status if status != "current" else "visited"))
        if status == "current":
            edge.update(color=PALETTE["current"], penwidth=3.0)
        self.edges.append((_node_id(path), sid, edge))

    def below(self, path: Path) -> tuple[int, int, bool]:
        """(nodes visited, leaves evaluated, any cut-off) strictly below ``path`` so far."""
        if self._below is None:
            table: dict[Path, list] = {}
            for p, rec in self.step.recs.items():
                for k in range(len(p)):
                    entry = table.setdefault(p[:k], [0, 0, False])
                    entry[0] += 1
                    entry[1] += rec.player == "leaf"
                    entry[2] = entry[2] or bool(rec.cut)
            self._below = table
        seen, evaluated, cut = self._below.get(path, (0, 0, False))
        return seen, evaluated, cut

    def deepest(self) -> str:
        """Id of a drawn node on the lowest rank (the legend goes below it)."""
        depth = {nid: nid.count("_") + (1 if nid.startswith("s") else 0) for nid, _ in self.nodes}
        return max(depth, key=depth.get)

    def highlight_move(self, move: int | None) -> None:
        if move is None:
            return
        position = self.edge_index.get(_node_id((move,)))
        if position is None:
            return
        tail, head, attrs = self.edges[position]
        attrs.update(color=PALETTE["chosen"], penwidth=4.0, style="bold")
        attrs["tooltip"] = f"the chosen root move: {move}"
        nid = _node_id((move,))
        for node_id, node_attrs in self.nodes:
            if node_id == nid:
                node_attrs["tooltip"] += "; the chosen root move"

    # output --------------------------------------------------------------------------------
    # the picture in words -----------------------------------------------------------------
    def summary(self, title: str | None) -> str:
        """One sentence for the picture's accessible name: what was searched and how it went."""
        counts: dict[str, int] = {}
        for status in self.statuses.values():
            counts[status] = counts.get(status, 0) + 1
        drawn = sum(n for s, n in counts.items() if s != "summary")
        what = "Search tree" if self.algorithm else "Game tree"
        text = what + (f", {title}" if title else "") + f". {drawn} nodes drawn"
        parts = [f"{counts[s]} {word}" for s, word in
                 (("visited", "visited"), ("current", "current"), ("pruned", "pruned"),
                  ("pending", "not reached yet")) if counts.get(s)]
        if parts:
            text += ": " + ", ".join(parts)
        if counts.get("summary"):
            text += f", {counts['summary']} subtrees summarised"
        return text + "."

    def outline(self) -> tuple[tuple[int, str], ...]:
        """The drawn nodes depth first, each with its depth and its description."""
        rows = []
        for _, attrs in self.nodes:
            path = attrs.get("_path")
            depth = attrs["_depth"] if path is None else len(path)
            rows.append((depth, attrs.get("tooltip", "")))
        return tuple(rows)

    def source(self, title: str | None, legend_lines: list[str]) -> str:
        kinds = [(attrs["_kind"], self.widths.get(attrs.get("_path"), {})) for _, attrs in self.nodes
                 if "_path" in attrs]
        heights = _heights(kinds)
        lines = ["digraph tree {"]
        graph = {"fontname": FONT, "fontsize": TITLE_PT, "nodesep": 0.14, "ranksep": 0.38,
                 "ordering": "out", "bgcolor": "white", "pad": 0.12, "forcelabels": "true",
                 "outputorder": "edgesfirst", "newrank": "true"}
        if title:
            graph.update(label=title, labelloc="t", labeljust="c")
        lines.append("graph " + _attrs(**graph) + ";")
        lines.append("node " + _attrs(fontname=FONT, fontsize=VALUE_PT, margin=0,
                                      fixedsize="true") + ";")
        lines.append("edge " + _attrs(fontname=FONT, fontsize=EDGE_PT, arrowhead="none",
                                      penwidth=1.2) + ";")
        for nid, attrs in self.nodes:
            attrs = dict(attrs)
            kind = attrs.pop("_kind")
            attrs.pop("_depth", None)
            texts = attrs.pop("_texts", None)
            path = attrs.pop("_path", None)
            if path is not None:
                width, height = _size(kind, self.widths.get(path, {}), heights)
                attrs.update(shape=_SHAPES[kind], width=_inches(width), height=_inches(height))
            if texts is not None:
                attrs["label"] = _html_label(kind, texts)
            lines.append(f"{nid} {_attrs(**attrs)};")
        for tail, head, attrs in self.edges:
            lines.append(f"{tail} -> {head} {_attrs(**attrs)};")
        lines.extend(legend_lines)
        lines.append("}")
        return "\n".join(lines) + "\n"


def _informative(label: str | None, path: Path) -> str | None:
    """``label``, unless it only repeats the node's index (``"2"``, or ``"2 (0.8)"`` below chance).

    Trees expanded from games label every node with its move, often just its
    index; drawing those would repeat what the path and the edges already say.
    """
    if not label or not path:
        return label or None
    index = str(path[-1])
    if label == index or (label.startswith(index + " (") and label.endswith(")")):
        return None
    return label


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

