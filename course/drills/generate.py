"""Seeded drill trees, from 4-leaf trees (level 1) to depth-4 trees with chance nodes (level 5).

A drill tree is a pure function of ``(shape, seed)``: the numbers come from
:func:`course._pcg64.default_rng`, numpy's generator written in pure Python,
so a seed gives the same tree in JupyterLab, in the JupyterLite edition (no
numpy) and on any Python version.  Leaves are small integers; chance nodes get
*dyadic* probabilities (1/2, 1/4, 3/8, ...), so every value a drill asks for is
a short exact fraction.

A *shape* is the kind of node on each level from the root down (``"max"``,
``"min"``, ``"chance"``, ``"leaf"``) with the range of children at that level.

Node names.  Drills name nodes as textbooks do: the inner nodes ``A`` (the
root), ``B``, ``C``, ... level by level, left to right, and each leaf after its
parent and its position: ``B1``, ``B2``, ...  A tree whose every node already
has a distinct label keeps its labels.

Examples
--------
>>> tree = drill_tree(SHAPES["minimax"][1], seed=7)
>>> tree.root.kind, [c.kind for c in tree.root.children], len(tree.root.leaves())
('max', ['min', 'min'], 4)
>>> drill_tree(SHAPES["minimax"][1], seed=7).to_obj() == tree.to_obj()
True
>>> names = node_names(tree)
>>> names[()], names[(0,)], names[(1, 1)]
('A', 'B', 'C2')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .. import _pcg64
from ..game import Path
from ..trees import TreeGame, TreeNode, parse_tree

__all__ = ["Shape", "SHAPES", "LEVELS", "drill_tree", "node_names", "DYADIC"]

LEVELS = (1, 2, 3, 4, 5)
"""Difficulty levels: 1 is a 4-leaf tree, 5 a depth-4 tree (with chance nodes where the kind has them)."""

#: Chance distributions by number of outcomes: exact, short, and dyadic.
DYADIC: dict[int, tuple[tuple[Fraction, ...], ...]] = {
    2: tuple(tuple(Fraction(a, d) for a in pair) for pair, d in
             (((1, 1), 2), ((1, 3), 4), ((3, 1), 4), ((1, 1), 2), ((3, 5), 8), ((5, 3), 8))),
    3: tuple(tuple(Fraction(a, d) for a in triple) for triple, d in
             (((1, 1, 2), 4), ((2, 1, 1), 4), ((1, 2, 1), 4))),
}


@dataclass(frozen=True)
class Shape:
    """How a drill tree of one level looks."""

    levels: tuple[str, ...]
    """Node kind on each level from the root down; the last is ``"leaf"``."""
    branching: tuple[tuple[int, int], ...]
    """(fewest, most) children of a node on each level above the leaves."""
    values: tuple[int, int] = (0, 9)
    """Leaves are integers in this range, which is also the tree's ``[vmin, vmax]``."""
    early_leaf: float = 0.0
    """Chance that a decision node below the root is a leaf already (irregular trees)."""
    max_leaves: int = 30
    """A draw with more leaves than this is drawn again (a drill stays readable)."""
    min_leaves: int = 4
    """A draw with fewer leaves than this is drawn again (each level a step up)."""
    flip_root: bool = False
    """Let the seed make the root MIN (and swap every MAX and MIN below) half the time."""

    @property
    def has_chance(self) -> bool:
        """True if the shape has chance nodes."""
        return "chance" in self.levels


def _shape(levels: str, branching: tuple[tuple[int, int], ...], **kw: Any) -> Shape:
    return Shape(tuple(levels.split()), branching, **kw)


_PLAIN = {
    1: _shape("max min leaf", ((2, 2), (2, 2))),
    2: _shape("max min leaf", ((2, 3), (2, 3)), min_leaves=6),
    3: _shape("max min max leaf", ((2, 3), (2, 2), (2, 3)), early_leaf=0.15, flip_root=True,
              min_leaves=8),
    4: _shape("max min max min leaf", ((2, 2), (2, 2), (2, 2), (2, 2)), flip_root=True),
    5: _shape("max min max min leaf", ((2, 3), (2, 2), (2, 3), (2, 2)), early_leaf=0.1,
              flip_root=True, max_leaves=28),
}
_CHANCE = {
    1: _PLAIN[1],
    2: _PLAIN[2],
    3: _PLAIN[3],
    4: _shape("max chance min leaf", ((2, 3), (2, 3), (2, 2)), values=(0, 8), flip_root=True),
    5: _shape("max chance min chance leaf", ((2, 2), (2, 2), (2, 2), (2, 2)), values=(0, 8),
              flip_root=True),
}
_STAR1 = {
    1: _shape("max chance leaf", ((2, 2), (2, 2)), values=(0, 8)),
    2: _shape("max chance leaf", ((2, 3), (2, 3)), values=(0, 8), min_leaves=5),
    3: _shape("min max chance leaf", ((2, 2), (2, 2), (2, 2)), values=(0, 8)),
    4: _shape("max min chance leaf", ((2, 3), (2, 2), (2, 3)), values=(0, 8), flip_root=True),
    5: _shape("max chance min chance leaf", ((2, 2), (2, 2), (2, 2), (2, 2)), values=(0, 8),
              flip_root=True),
}

_C6 = {     # chance nodes whose children are leaves (levels 1-2), then MIN nodes or chance nodes
    1: _STAR1[1],
    2: _STAR1[2],
    3: _shape("max chance min leaf", ((2, 2), (2, 2), (2, 2)), values=(0, 8)),
    4: _CHANCE[4],
    5: _STAR1[5],
}
_BOUNDS = {  # MIN nodes first (a pruned one keeps L = vmin), then chance nodes
    1: _PLAIN[1],
    2: _PLAIN[2],
    3: _STAR1[3],
    4: _CHANCE[4],
    5: _STAR1[5],
}

_STAR2 = {  # chance nodes whose outcomes are MIN (or MAX) nodes: every outcome is probed
    1: _shape("chance min leaf", ((2, 2), (2, 2)), values=(0, 8), flip_root=True),
    2: _shape("chance min leaf", ((2, 3), (2, 3)), values=(0, 8), flip_root=True, min_leaves=6),
    3: _C6[3],
    4: _CHANCE[4],
    5: _STAR1[5],
}

SHAPES: dict[str, dict[int, Shape]] = {
    "minimax": _CHANCE,     # levels 4-5: expectimax values
    "pruning": _PLAIN,      # alpha-beta: no chance nodes
    "window": _PLAIN,
    "root": _PLAIN,
    "star1": _STAR1,        # a chance node whose children are leaves, at every level
    "c6": _C6,              # a chance node's children at every level
    "bab": _CHANCE,
    "bounds": _BOUNDS,
    "star2": _STAR2,        # a chance node whose outcomes are probed, at every level
}
"""The tree shape of each drill kind at each level."""


class _Draw:
    """Integers and choices from numpy's generator (pure Python: the same draws everywhere)."""

    def __init__(self, words: list[int]) -> None:
        self.rng = _pcg64.default_rng(words)

    def integer(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return self.rng.integers(low, high + 1)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def choice(self, items: tuple) -> Any:
        return items[self.integer(0, len(items) - 1)]


def drill_tree(shape: Shape, seed: int, attempt: int = 0, *, salt: int = 0) -> TreeGame:
    """The drill tree of ``shape`` for ``seed`` (and ``attempt``, the retries of a drill).

    Parameters
    ----------
    shape : Shape
    seed : int
        A non-negative integer.
    attempt : int
        Drills that need a tree with some property (a cut-off somewhere) draw
        again with ``attempt`` 1, 2, ... until one has it.
    salt : int
        Mixed into the seed, so that each drill kind draws its own trees.

    Returns
    -------
    TreeGame
        Bounds ``shape.values``; at most ``shape.max_leaves`` leaves.
    """
    for extra in range(1000):
        draw = _Draw([seed, salt, attempt * 1000 + extra])
        flip = shape.flip_root and draw.chance(0.5)
        obj = _node(shape, draw, 0, flip)
        game = parse_tree({"tree": obj, "bounds": list(shape.values)})
        if shape.min_leaves <= len(game.root.leaves()) <= shape.max_leaves:
            return game
    raise RuntimeError("no drill tree small enough")  # pragma: no cover - shapes are small


def _node(shape: Shape, draw: _Draw, level: int, flip: bool) -> Any:
    kind = shape.levels[level]
    if kind == "leaf" or (level > 0 and kind != "chance" and shape.early_leaf
                          and draw.chance(shape.early_leaf)):
        low, high = shape.values
        return draw.integer(low, high)
    lo, hi = shape.branching[level]
    n = draw.integer(lo, hi)
    if kind == "chance":
        probabilities = draw.choice(DYADIC[min(n, 3)])
        return {"chance": [[p, _node(shape, draw, level + 1, flip)] for p in probabilities]}
    if flip:
        kind = "min" if kind == "max" else "max"
    return {kind: [_node(shape, draw, level + 1, flip) for _ in range(n)]}


def node_names(game: TreeGame) -> dict[Path, str]:
    """A short name for every node: the tree's own labels if they are all there and distinct,
    else ``A``, ``B``, ... for inner nodes (level by level) and ``B1``, ``B2``, ... for leaves.

    >>> from course.examples import aima_figure_5_2
    >>> names = node_names(aima_figure_5_2())
    >>> names[(1,)], names[(2, 0)]
    ('C', 'D1')
    """
    nodes = list(game.root.iter_nodes())
    labels = [n.label for n in nodes]
    if all(labels) and len(set(labels)) == len(labels):
        return {n.path: n.label for n in nodes}
    names: dict[Path, str] = {}
    level = [game.root]
    count = 0
    while level:
        following: list[TreeNode] = []
        for node in level:
            if not node.is_leaf:
                names[node.path] = _letters(count)
                count += 1
                following.extend(node.children)
        level = following
    for node in nodes:
        if node.is_leaf:
            if node.path:
                names[node.path] = f"{names[node.path[:-1]]}{node.path[-1] + 1}"
            else:
                names[node.path] = "A"
    return names


def _letters(k: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA, ..."""
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(65 + r) + out
    return out
