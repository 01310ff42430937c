"""Explicit game trees and their JSON format.

An *explicit tree* is a game whose every state is written down: the trees of
textbook figures, of exercises and of random experiments.  It is one more
:class:`~course.game.Game`, so every search runs on it unchanged.

The tree format (JSON, or the same thing as a Python literal):

* a **leaf** is a number, or ``{"label": "B1", "value": 3}``;
* a **decision node** is ``{"max": [children]}`` or ``{"min": [children]}``;
  a bare list ``[children]`` belongs to the opponent of the nearest decision
  ancestor, and a bare list with no decision ancestor is MAX, so
  ``[[3, 12, 8], [2, 4, 6], [14, 5, 2]]`` is the tree of AIMA figure 5.2;
* a **chance node** is ``{"chance": [[p, child], ...]}`` with every ``p > 0``
  and the ``p`` summing to 1 (within ``1e-9``);
* any object node may carry a ``"label"``;
* a file may wrap the root as ``{"tree": ROOT, "bounds": [vmin, vmax]}``.

Every node knows its *path*, the tuple of child indices from the root in the
tree's original child order; searches report leaves by these paths.

Examples
--------
>>> game = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
>>> game.root.kind, game.root.children[0].kind
('max', 'min')
>>> game.root.children[1].children[2]
TreeNode(kind='leaf', path=(1, 2), value=6)
>>> game.vmin, game.vmax   # no bounds given: the extreme leaves
(2, 14)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

from .errors import TreeFormatError
from .game import Game, Path, Player

__all__ = [
    "TreeNode",
    "TreeGame",
    "parse_tree",
    "loads_tree",
    "read_tree",
    "tree_to_obj",
    "dumps_tree",
    "game_to_tree",
]

PROBABILITY_TOLERANCE = 1e-9
_KINDS = ("max", "min", "chance")


@dataclass(frozen=True, eq=False)
class TreeNode:
    """One node of an explicit tree.  Build trees with :func:`parse_tree`."""

    kind: str
    """``"max"``, ``"min"``, ``"chance"`` or ``"leaf"``."""
    path: Path
    """Child indices from the root, in the original child order."""
    children: tuple["TreeNode", ...] = ()
    """The children, in their original order (empty for a leaf)."""
    probabilities: tuple[float, ...] = ()
    """For a chance node, the probability of each child; else empty."""
    value: float | None = None
    """For a leaf, its utility for MAX; else None."""
    label: str | None = None
    """Optional name shown in pictures and messages."""
    _size: int = field(default=1, repr=False, compare=False)

    @property
    def is_leaf(self) -> bool:
        """True for a leaf."""
        return self.kind == "leaf"

    @property
    def player(self) -> Player | None:
        """The :class:`Player` to move, or None for a leaf."""
        return None if self.is_leaf else Player(self.kind)

    @property
    def size(self) -> int:
        """Number of nodes in the subtree rooted here (this node included)."""
        return self._size

    def iter_nodes(self) -> Iterator["TreeNode"]:
        """Yield the nodes of this subtree in depth-first, left-to-right order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> list["TreeNode"]:
        """The leaves of this subtree, left to right."""
        return [n for n in self.iter_nodes() if n.is_leaf]

    def height(self) -> int:
        """Number of edges on the longest path from here down to a leaf."""
        if self.is_leaf:
            return 0
        return 1 + max(c.height() for c in self.children)

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label is not None else ""
        if self.is_leaf:
            return f"TreeNode(kind='leaf', path={self.path!r}, value={self.value!r}{extra})"
        return (
            f"TreeNode(kind={self.kind!r}, path={self.path!r}, "
            f"children={len(self.children)}{extra})"
        )


#: The players by a node's kind (``Player(kind)`` without the enum's call: searches ask it often).
_PLAYERS: dict[str, Player] = {player.value: player for player in Player}


class TreeGame(Game[TreeNode, int]):
    """An explicit tree as a :class:`~course.game.Game`.

    States are :class:`TreeNode` objects and moves are child indices.

    Parameters
    ----------
    root : TreeNode
        The root, as built by :func:`parse_tree`.
    bounds : (vmin, vmax), optional
        Known utility bounds.  Default: the smallest and largest leaf.
    """

    def __init__(self, root: TreeNode, bounds: tuple[float, float] | None = None) -> None:
        self.root = root
        values = [leaf.value for leaf in root.leaves()]
        if bounds is None:
            bounds = (min(values), max(values))
        vmin, vmax = _check_bounds(bounds)
        self.vmin, self.vmax = vmin, vmax
        self.bounds_given = bounds is not None

    def __repr__(self) -> str:
        return f"<TreeGame: {self.root.size} nodes, bounds [{self.vmin}, {self.vmax}]>"

    # -- the Game interface ---------------------------------------------------
    def initial_state(self) -> TreeNode:
        return self.root

    def turn(self, state: TreeNode) -> Player:
        try:
            player = _PLAYERS.get(state.kind)
        except TypeError:              # an unhashable kind: Player() says what is wrong
            player = None
        return player if player is not None else Player(state.kind)   # a leaf: ValueError

    def moves(self, state: TreeNode) -> Sequence[int]:
        return range(len(state.children))

    def result(self, state: TreeNode, move: int) -> TreeNode:
        return state.children[move]

    def is_terminal(self, state: TreeNode) -> bool:
        return state.kind == "leaf"

    def utility(self, state: TreeNode) -> float:
        return state.value

    def chance_outcomes(self, state: TreeNode) -> Sequence[tuple[int, float]]:
        return list(enumerate(state.probabilities))

    def describe_move(self, state: TreeNode, move: int) -> str:
        child = state.children[move]
        return child.label if child.label is not None else str(move)

    # -- conveniences -----------------------------------------------------------
    def node(self, path: Sequence[int]) -> TreeNode:
        """Return the node at ``path`` (a KeyError naming the path if absent)."""
        node = self.root
        for depth, index in enumerate(path):
            if not 0 <= index < len(node.children):
                raise KeyError(f"no node at path {tuple(path)}: stops at depth {depth}")
            node = node.children[index]
        return node

    @property
    def has_chance(self) -> bool:
        """True if any node is a chance node."""
        return any(n.kind == "chance" for n in self.root.iter_nodes())

    def to_obj(self) -> Any:
        """The tree in the JSON format (see :func:`tree_to_obj`)."""
        return tree_to_obj(self)


def _check_bounds(bounds: Any) -> tuple[float, float]:
    if (
        not isinstance(bounds, (list, tuple))
        or len(bounds) != 2
        or not all(_is_number(b) for b in bounds)
    ):
        raise TreeFormatError(f'"bounds" must be [vmin, vmax], two numbers; got {bounds!r}')
    vmin, vmax = bounds
    if vmin > vmax:
        raise TreeFormatError(f"bounds [{vmin}, {vmax}]: vmin must not exceed vmax")
    return vmin, vmax


def _is_number(x: Any) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool) and math.isfinite(x)


def _build(obj: Any, path: Path, ancestor: str | None) -> TreeNode:
    """Recursively build a TreeNode; ``ancestor`` is the nearest decision kind above."""
    if _is_number(obj):
        return TreeNode("leaf", path, value=obj)
    if isinstance(obj, Real) and not isinstance(obj, bool):
        raise TreeFormatError(f"leaf value {obj!r} is not a finite number", path=path)
    label = None
    if isinstance(obj, list):
        kind, items = ("min" if ancestor == "max" else "max"), obj
    elif isinstance(obj, dict):
        label = obj.get("label")
        if label is not None and not isinstance(label, str):
            raise TreeFormatError(f'"label" must be a string, got {label!r}', path=path)
        keys = set(obj) - {"label"}
        if keys == {"value"}:
            value = obj["value"]
            if not _is_number(value):
                raise TreeFormatError(f"leaf value {value!r} is not a finite number", path=path)
            return TreeNode("leaf", path, value=value, label=label)
        kinds = [k for k in _KINDS if k in keys]
        unknown = sorted(keys - set(_KINDS))
        if unknown or len(kinds) != 1:
            what = f"unknown key(s) {unknown}" if unknown else f"keys {sorted(keys)}"
            raise TreeFormatError(
                f"unknown node kind ({what}); a node object needs exactly one of "
                '"max", "min", "chance" or "value" (plus an optional "label")',
                path=path,
            )
        kind, items = kinds[0], obj[kinds[0]]
        if not isinstance(items, list):
            raise TreeFormatError(f'"{kind}" must hold a list, got {type(items).__name__}', path=path)
    else:
        raise TreeFormatError(
            f"expected a number, a list or an object, got {type(obj).__name__} {obj!r}",
            path=path,
        )
    if not items:
        raise TreeFormatError(f"empty {kind} node: a node needs at least one child", path=path)

    if kind == "chance":
        probabilities, children = [], []
        for i, item in enumerate(items):
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise TreeFormatError(
                    f"chance outcome {i} must be a pair [probability, child], got {item!r}",
                    path=path,
                )
            p, child = item
            if not _is_number(p) or p <= 0:
                raise TreeFormatError(
                    f"probability of outcome {i} must be a number > 0, got {p!r}", path=path
                )
            probabilities.append(p)
            children.append(_build(child, path + (i,), ancestor))
        total = math.fsum(probabilities)
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            raise TreeFormatError(
                f"chance probabilities sum to {total!r}, not 1 (tolerance {PROBABILITY_TOLERANCE})",
                path=path,
            )
        probs = tuple(probabilities)
    else:
        children = [_build(child, path + (i,), kind) for i, child in enumerate(items)]
        probs = ()
    size = 1 + sum(c.size for c in children)
    return TreeNode(kind, path, tuple(children), probs, None, label, _size=size)


def parse_tree(obj: Any, *, bounds: tuple[float, float] | None = None) -> TreeGame:
    """Build a :class:`TreeGame` from a tree in the JSON format (as Python data).

    Parameters
    ----------
    obj : number, list or dict
        The root, or a wrapper ``{"tree": ROOT, "bounds": [vmin, vmax]}``.
    bounds : (vmin, vmax), optional
        Utility bounds; they override the wrapper's.  Default: the wrapper's
        bounds, else the smallest and largest leaf.

    Returns
    -------
    TreeGame

    Raises
    ------
    TreeFormatError
        If ``obj`` does not follow the format; the message names the node path.

    Examples
    --------
    >>> g = parse_tree({"tree": {"chance": [[0.5, 1], [0.5, 3]]}, "bounds": [0, 4]})
    >>> g.root.probabilities, (g.vmin, g.vmax)
    ((0.5, 0.5), (0, 4))
    >>> parse_tree({"max": []})
    Traceback (most recent call last):
    ...
    course.errors.TreeFormatError: node root: empty max node: a node needs at least one child
    """
    if isinstance(obj, dict) and "tree" in obj:
        unknown = sorted(set(obj) - {"tree", "bounds"})
        if unknown:
            raise TreeFormatError(f'unknown key(s) {unknown} beside "tree"; allowed: "tree", "bounds"')
        if bounds is None and "bounds" in obj:
            bounds = _check_bounds(obj["bounds"])
        obj = obj["tree"]
    root = _build(obj, (), None)
    return TreeGame(root, bounds)


def loads_tree(text: str, *, bounds: tuple[float, float] | None = None) -> TreeGame:
    """Parse a tree from JSON text (a :class:`TreeFormatError` if it is not JSON).

    >>> loads_tree('[[3, 12, 8], [2, 4, 6], [14, 5, 2]]').root.size
    13
    """
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TreeFormatError(f"malformed JSON: {exc}") from None
    return parse_tree(obj, bounds=bounds)


def read_tree(source: str | os.PathLike, *, bounds: tuple[float, float] | None = None) -> TreeGame:
    """Read a tree from a JSON file (``"-"`` reads standard input)."""
    if str(source) == "-":
        import sys

        return loads_tree(sys.stdin.read(), bounds=bounds)
    with open(source, encoding="utf-8") as handle:
        return loads_tree(handle.read(), bounds=bounds)


def _node_to_obj(node: TreeNode) -> Any:
    if node.is_leaf:
        return node.value if node.label is None else {"label": node.label, "value": node.value}
    if node.kind == "chance":
        body = [[p, _node_to_obj(c)] for p, c in zip(node.probabilities, node.children)]
    else:
        body = [_node_to_obj(c) for c in node.children]
    out: dict[str, Any] = {} if node.label is None else {"label": node.label}
    out[node.kind] = body
    return out


def tree_to_obj(game: TreeGame, *, with_bounds: bool = True) -> Any:
    """The tree as JSON-ready data, explicit kinds everywhere (round-trips with :func:`parse_tree`).

    >>> g = parse_tree([[1, 2], 3])
    >>> tree_to_obj(g, with_bounds=False)
    {'max': [{'min': [1, 2]}, 3]}
    """
    body = _node_to_obj(game.root)
    if with_bounds:
        return {"tree": body, "bounds": [game.vmin, game.vmax]}
    return body


def dumps_tree(game: TreeGame, **json_kwargs: Any) -> str:
    """The tree as JSON text.

    JSON has no fractions: :class:`~fractions.Fraction` values (exact
    probabilities, utilities) are written as floats.

    >>> from fractions import Fraction
    >>> dumps_tree(parse_tree({"chance": [[Fraction(1, 4), 1], [Fraction(3, 4), 2]]}))
    '{"tree": {"chance": [[0.25, 1], [0.75, 2]]}, "bounds": [1, 2]}'
    """
    json_kwargs.setdefault("default", _json_number)
    return json.dumps(tree_to_obj(game), **json_kwargs)


def _json_number(x: Any) -> float:
    if isinstance(x, Real):
        return float(x)
    raise TypeError(f"{type(x).__name__} is not JSON serializable")


def game_to_tree(
    game: Game,
    state: Any = None,
    *,
    depth: int | None = None,
    evaluate: Any = None,
    max_nodes: int = 100_000,
) -> TreeGame:
    """Expand any game (from ``state``) into an explicit tree, e.g. to draw it.

    Parameters
    ----------
    game : Game
    state : optional
        Root of the expansion; default ``game.initial_state()``.
    depth : int, optional
        Expand to this depth; non-terminal states there become leaves valued
        by ``evaluate`` (default ``game.evaluate``).
    max_nodes : int
        Refuse to build more nodes than this (a :class:`ParameterError`).

    Returns
    -------
    TreeGame
        Same bounds as ``game`` when they are finite.  Labels come from
        ``game.describe_move``; paths and child order are the game's.

    Examples
    --------
    >>> g = parse_tree([[3, 12, 8], [2, 4, 6]])
    >>> game_to_tree(g).root.size == g.root.size
    True
    """
    from .errors import ParameterError

    evaluate = game.evaluate if evaluate is None else evaluate
    count = 0

    def build(s: Any, path: Path, label: str | None) -> TreeNode:
        nonlocal count
        count += 1
        if count > max_nodes:
            raise ParameterError(
                f"the game tree has more than {max_nodes} nodes; pass a smaller depth= "
                "or a larger max_nodes="
            )
        if game.is_terminal(s):
            return TreeNode("leaf", path, value=game.utility(s), label=label)
        if depth is not None and len(path) >= depth:
            return TreeNode("leaf", path, value=evaluate(s), label=label)
        player = game.turn(s)
        if player is Player.CHANCE:
            outcomes = list(game.chance_outcomes(s))
            moves = [m for m, _ in outcomes]
            probs = tuple(p for _, p in outcomes)
        else:
            moves, probs = list(game.moves(s)), ()
        children = tuple(
            build(game.result(s, m), path + (i,), game.describe_move(s, m)) for i, m in enumerate(moves)
        )
        size = 1 + sum(c.size for c in children)
        return TreeNode(player.value, path, children, probs, None, label, _size=size)

    root = build(game.initial_state() if state is None else state, (), None)
    finite = all(math.isfinite(b) for b in (game.vmin, game.vmax))
    return TreeGame(root, (game.vmin, game.vmax) if finite else None)
