"""Chen's Go-like random game tree, on his compact level-ordered array.

K.-H. Chen (*A Study of Decision Error in Selective Game Tree Search*,
section 3) models a game in which every move scores points, as in Go:

* the tree is uniform, with branching factor ``b`` and height ``h``;
* every arc carries a random integer gain ``0 .. m`` (``max_arc``), the points
  won by the player who makes that move;
* a leaf's payoff for MAX is ``v1 - v2 + v3 - v4 ...`` over the arcs on its
  path: MAX moves at even levels (the root is level 0) and gains the odd
  arcs, MIN moves at odd levels and gains the even ones;
* the static evaluation ``EVAL(n)`` is the same alternating sum over the
  path to ``n`` so far, exact at the leaves and better the deeper ``n`` is;
* a node's game-theoretic value ``v(n)`` is the minimax backup of the payoffs.

Chen stores the tree level by level in one array, which is what this module
does with numpy:

* node ``k``'s children are ``k*b + 1 .. k*b + b`` and its parent is ``(k - 1) // b``;
* level ``L`` occupies ``(b**L - 1)/(b - 1) .. (b**(L+1) - 1)/(b - 1) - 1``;
* ``evals`` is filled top-down, one level per numpy operation (parent's EVAL
  plus or minus the arc), and ``values`` bottom-up, one max or min per level.

:class:`ChenTree` is also a :class:`~course.game.Game` whose states are array
indices, so the reference :func:`course.search.selective` runs on it; and
:func:`selective_sweep` runs Chen's selective search for many nodes, depths
and skip numbers at once, vectorised per level, for the simulation of his
Tables 1-4 (:mod:`course.experiments.chen`).  :class:`ChenTreeTop` is the
part of a tree that simulation reads, drawn without the leaf level (five
times fewer random numbers for ``b = 5``, with the same distribution).

References
----------
K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
(seed 003), sections 3 and 4.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from numbers import Integral

from .. import _pcg64
from .._optional import Values, lazy_module, optional_import
from ..errors import ParameterError
from ..game import Game, Player
from ..trees import TreeGame, game_to_tree

np = lazy_module("numpy")  # imported on first use: the vectorised sweep needs it

__all__ = ["ChenTree", "ChenTreeTop", "SelectiveOutcome", "selective_sweep", "level_start",
           "best_arc_counts", "MAX_NODES"]

#: The largest tree :class:`ChenTree` agrees to build (about 0.5 GB of arrays).
MAX_NODES = 100_000_000


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def level_start(branching: int, level: int) -> int:
    """Index of the first node of ``level`` in the compact array: ``(b**L - 1) / (b - 1)``.

    >>> [level_start(5, L) for L in range(4)]
    [0, 1, 6, 31]
    """
    return (branching ** level - 1) // (branching - 1)


class ChenTree(Game[int, int]):
    """Chen's random tree with arc gains, in the compact level-ordered layout.

    Parameters
    ----------
    branching : int
        ``b >= 2``.
    height : int
        ``h >= 1``: the leaves are at level ``h``.
    max_arc : int, optional
        Arc gains are uniform integers ``0 .. max_arc`` (Chen: 9).
    seed : int, optional
        Seed for :func:`numpy.random.default_rng`.  Without numpy (JupyterLite offline)
        :mod:`course._pcg64` draws the same arc gains, so the tree is the same.

    Attributes
    ----------
    size : int
        ``b**0 + ... + b**h``, the number of nodes.
    level_starts : tuple of int
        ``level_starts[L]`` is the first index of level ``L``; one more entry
        marks the end of the array.
    arcs : numpy.ndarray
        ``arcs[k]`` is the gain on the arc into node ``k`` (``arcs[0] = 0``).
    evals : numpy.ndarray
        ``EVAL(k)``: the alternating sum ``v1 - v2 + ...`` from the root to ``k``.
    values : numpy.ndarray
        ``v(k)``, the game-theoretic value (minimax backup of the leaf payoffs).
    vmin, vmax : int
        The most MIN and MAX can win: ``-max_arc * floor(h/2)`` and
        ``max_arc * ceil(h/2)``.

    Raises
    ------
    ParameterError
        For ``branching < 2``, ``height < 1``, a negative ``max_arc`` or seed,
        or a tree of more than :data:`MAX_NODES` nodes.

    Examples
    --------
    >>> tree = ChenTree(3, 2, seed=1)
    >>> tree.size, tree.level_starts
    (13, (0, 1, 4, 13))
    >>> k = 5                      # the second child of node 1
    >>> tree.parent(k), list(tree.children(1))
    (1, [4, 5, 6])
    >>> int(tree.evals[k]) == int(tree.arcs[1]) - int(tree.arcs[k])
    True
    >>> from course.search import minimax
    >>> minimax(tree).value == tree.value(0)
    True

    Notes
    -----
    All arrays are read-only; without numpy they are tuples
    (:class:`~course._optional.Values`) holding the same numbers, built by plain loops.  The
    decision errors Chen studies compare
    ``v`` of the move a search picks with ``v`` of the best move; see
    :func:`selective_sweep`.
    """

    def __init__(self, branching: int, height: int, *, max_arc: int = 9, seed: int = 0) -> None:
        self.branching = b = _check_int("branching", branching, 2)
        self.height = h = _check_int("height", height, 1)
        self.max_arc = m = _check_int("max_arc", max_arc, 0)
        self.seed = _check_int("seed", seed, 0)
        self.level_starts = tuple(level_start(b, L) for L in range(h + 2))
        self.size = size = self.level_starts[-1]
        if size > MAX_NODES:
            raise ParameterError(
                f"a Chen tree with branching {b} and height {h} has {size} nodes, more than "
                f"{MAX_NODES}; choose a smaller branching factor or height"
            )
        self.vmin = -m * (h // 2)
        self.vmax = m * ((h + 1) // 2)
        numpy = optional_import("numpy")
        build = _build_numpy if numpy is not None else _build_pure
        self.arcs, self.evals, self.values = build(b, h, m, self.seed, self.level_starts,
                                                   max(self.vmax, -self.vmin))
        self._moves = range(b)

    def __repr__(self) -> str:
        return (f"ChenTree(branching={self.branching}, height={self.height}, "
                f"max_arc={self.max_arc}, seed={self.seed})")

    # -- the layout ------------------------------------------------------------------
    def level(self, k: int) -> int:
        """The level of node ``k`` (0 for the root): the ``m`` with ``level_starts[m] <= k``."""
        self._check_node(k)
        return bisect.bisect_right(self.level_starts, k) - 1

    def node_height(self, k: int) -> int:
        """Chen's *height* of node ``k``: ``height - level(k)`` (0 for a leaf)."""
        return self.height - self.level(k)

    def parent(self, k: int) -> int:
        """``(k - 1) // b``; a :class:`ParameterError` for the root."""
        self._check_node(k)
        if k == 0:
            raise ParameterError("the root (node 0) has no parent")
        return (k - 1) // self.branching

    def children(self, k: int) -> range:
        """``k*b + 1 .. k*b + b`` (empty for a leaf)."""
        if self.level(k) == self.height:
            return range(0)
        first = k * self.branching + 1
        return range(first, first + self.branching)

    def nodes_at_height(self, node_height: int) -> np.ndarray:
        """Indices of every node of the given height, left to right.

        >>> ChenTree(2, 3).nodes_at_height(2)
        array([1, 2])

        Without numpy, a :class:`range` of the same indices.
        """
        node_height = _check_int("node_height", node_height, 0)
        if node_height > self.height:
            raise ParameterError(f"node_height must be at most the tree height {self.height}, "
                                 f"got {node_height}")
        L = self.height - node_height
        if optional_import("numpy") is None:
            return range(self.level_starts[L], self.level_starts[L + 1])
        return np.arange(self.level_starts[L], self.level_starts[L + 1])

    def value(self, k: int) -> int:
        """The game-theoretic value ``v(k)`` of node ``k``."""
        self._check_node(k)
        return int(self.values[k])

    def _check_node(self, k) -> None:
        if isinstance(k, bool) or not isinstance(k, Integral) or not 0 <= k < self.size:
            raise ParameterError(f"node must be an index 0 .. {self.size - 1}, got {k!r}")

    # -- the Game interface ------------------------------------------------------------
    def initial_state(self) -> int:
        return 0

    def turn(self, state: int) -> Player:
        return Player.MAX if self.level(state) % 2 == 0 else Player.MIN

    def moves(self, state: int) -> Sequence[int]:
        return self._moves

    def result(self, state: int, move: int) -> int:
        return state * self.branching + 1 + move

    def is_terminal(self, state: int) -> bool:
        return state >= self.level_starts[self.height]

    def utility(self, state: int) -> int:
        return int(self.evals[state])           # a Python int, not a numpy scalar

    def evaluate(self, state: int) -> int:
        """Chen's EVAL: the alternating sum of the arc gains from the root to ``state``."""
        return int(self.evals[state])

    def describe_move(self, state: int, move: int) -> str:
        child = self.result(state, move)
        sign = "+" if self.level(child) % 2 == 1 else "-"
        return f"{sign}{int(self.arcs[child])}"

    def to_tree(self, state: int = 0, *, depth: int | None = None,
                max_nodes: int = 100_000) -> TreeGame:
        """The (sub)tree below ``state`` as an explicit :class:`~course.trees.TreeGame`.

        With ``depth``, nodes that deep are leaves valued by EVAL.  Edges are
        labelled with the signed arc gain.

        >>> t = ChenTree(2, 2, seed=3).to_tree()
        >>> t.root.size, [c.label for c in t.root.children] == [ChenTree(2, 2, seed=3).describe_move(0, j) for j in (0, 1)]
        (7, True)
        """
        return game_to_tree(self, state, depth=depth, max_nodes=max_nodes)


def best_arc_counts(branching: int, max_arc: int) -> list[int]:
    """How many of the ``(max_arc + 1) ** branching`` equally likely arc draws have each best arc.

    The largest of ``b`` independent arcs uniform on ``0 .. m`` is at most ``k``
    with probability ``((k + 1) / (m + 1)) ** b``, so exactly
    ``(k + 1) ** b - k ** b`` of the ``(m + 1) ** b`` draws have best arc ``k``.
    :class:`ChenTreeTop` draws the best arc with exactly these weights.

    >>> best_arc_counts(5, 9)[:3], sum(best_arc_counts(5, 9)) == 10 ** 5
    ([1, 31, 211], True)
    """
    b, m = _check_int("branching", branching, 2), _check_int("max_arc", max_arc, 0)
    return [(k + 1) ** b - k ** b for k in range(m + 1)]


class ChenTreeTop:
    """A Chen tree without its leaves: every level but the last, and the values of the last-but-one.

    Chen's simulation (:func:`selective_sweep`) reads a leaf's arc only through
    the best arc below its parent: a node one level above the leaves is worth
    its EVAL plus (at a MAX node) or minus (at a MIN node) the largest of its
    ``b`` leaf arcs, and a search that reaches the leaves backs up exactly that
    value there, whatever its skip number (the mover keeps its best-looking
    child).  So this class draws the arcs of levels ``1 .. h-1`` as
    :class:`ChenTree` does, and for each node of level ``h - 1`` only the
    largest of its ``b`` leaf arcs, directly from that maximum's distribution
    (:func:`best_arc_counts`: an integer drawn uniformly from
    ``0 .. (m+1)**b - 1`` is mapped to ``k`` on exactly ``(k+1)**b - k**b`` of
    the values).  The trees have the same distribution as :class:`ChenTree`'s
    in everything the simulation reads, and cost ``b`` times fewer random
    numbers; they are *other* trees than ``ChenTree`` with the same seed.

    Parameters
    ----------
    branching, height, max_arc, seed
        As for :class:`ChenTree`; ``height >= 2``.

    Attributes
    ----------
    branching, height, max_arc, seed, level_starts
        As for :class:`ChenTree` (``level_starts`` still names the leaf level).
    size : int
        Nodes held: levels ``0 .. h-1``, ``level_starts[h]`` of them.
    arcs, evals, values : numpy.ndarray
        As for :class:`ChenTree`, for the nodes held.

    Examples
    --------
    The top of an existing tree (:meth:`from_tree`) gives the sweep the very
    numbers the whole tree gives:

    >>> tree = ChenTree(3, 4, seed=2)
    >>> top = ChenTreeTop.from_tree(tree)
    >>> roots = tree.nodes_at_height(3)
    >>> whole = selective_sweep(tree, roots, depths=[1, 3], skips=[0, 1])
    >>> part = selective_sweep(top, roots, depths=[1, 3], skips=[0, 1])
    >>> all((whole[k].errors == part[k].errors).all() and whole[k].nodes == part[k].nodes for k in whole)
    True
    >>> ChenTreeTop(5, 10, seed=0).size, ChenTree(5, 2).size    # levels 0 .. 9 only
    (2441406, 31)
    """

    def __init__(self, branching: int, height: int, *, max_arc: int = 9, seed: int = 0) -> None:
        self.branching = b = _check_int("branching", branching, 2)
        self.height = h = _check_int("height", height, 2)
        self.max_arc = m = _check_int("max_arc", max_arc, 0)
        self.seed = _check_int("seed", seed, 0)
        self.level_starts = tuple(level_start(b, L) for L in range(h + 2))
        self.size = size = self.level_starts[h]
        if size > MAX_NODES:
            raise ParameterError(f"a Chen tree top of branching {b} and height {h} has {size} nodes, "
                                 f"more than {MAX_NODES}; choose a smaller branching factor or height")
        arc_dtype, dtype = _dtypes(m, max(m * ((h + 1) // 2), m * (h // 2)))
        rng = np.random.default_rng(self.seed)
        arcs = rng.integers(0, m + 1, size=size, dtype=arc_dtype)
        arcs[0] = 0
        best = _draw_best_arcs(rng, b, m, self.level_starts[h] - self.level_starts[h - 1])
        self.arcs, self.evals, self.values = _top_arrays(b, h, arcs, best, dtype)

    @classmethod
    def from_tree(cls, tree: ChenTree) -> "ChenTreeTop":
        """The top of ``tree``: its arcs, EVAL and values above the leaves (views, no copy)."""
        if tree.height < 2:
            raise ParameterError("a tree of height 1 is all root and leaves: it has no top to keep")
        top = cls.__new__(cls)
        top.branching, top.height, top.max_arc, top.seed = tree.branching, tree.height, tree.max_arc, tree.seed
        top.level_starts = tree.level_starts
        top.size = end = tree.level_starts[tree.height]
        top.arcs, top.evals, top.values = tree.arcs[:end], tree.evals[:end], tree.values[:end]
        return top

    def __repr__(self) -> str:
        return (f"ChenTreeTop(branching={self.branching}, height={self.height}, "
                f"max_arc={self.max_arc}, seed={self.seed})")

    def level(self, k: int) -> int:
        """The level of node ``k`` (0 for the root)."""
        if isinstance(k, bool) or not isinstance(k, Integral) or not 0 <= k < self.size:
            raise ParameterError(f"node must be an index 0 .. {self.size - 1}, got {k!r}")
        return bisect.bisect_right(self.level_starts, k) - 1

    def nodes_at_height(self, node_height: int) -> np.ndarray:
        """Indices of every node of the given height (at least 1: the leaves are not held)."""
        node_height = _check_int("node_height", node_height, 1)
        if node_height > self.height:
            raise ParameterError(f"node_height must be at most the tree height {self.height}, "
                                 f"got {node_height}")
        L = self.height - node_height
        return np.arange(self.level_starts[L], self.level_starts[L + 1])


def _draw_best_arcs(rng, b: int, m: int, count: int) -> np.ndarray:
    """``count`` draws of the largest of ``b`` arcs uniform on ``0 .. m`` (exact weights)."""
    outcomes = (m + 1) ** b
    if outcomes >= 2 ** 62:                      # too many to index: draw the arcs themselves
        return rng.integers(0, m + 1, size=(count, b), dtype=np.int64).max(axis=1)
    index = np.int32 if outcomes < 2 ** 31 else np.int64
    draws = rng.integers(0, outcomes, size=count, dtype=index)
    if outcomes <= 1 << 20:                      # small: a lookup table, one gather
        return _best_arc_table(b, m)[draws]
    # ends[k] = (k+1)**b: a draw u in [k**b, (k+1)**b) means a best arc of k.
    return np.searchsorted(np.array([(k + 1) ** b for k in range(m + 1)], dtype=np.int64), draws,
                           side="right")


@functools.lru_cache(maxsize=8)
def _best_arc_table(b: int, m: int) -> np.ndarray:
    """``table[u]`` = the best arc of draw ``u``: ``k`` on ``(k+1)**b - k**b`` values of ``u``."""
    table = np.repeat(np.arange(m + 1, dtype=np.int16), best_arc_counts(b, m))
    table.setflags(write=False)
    return table


def _top_arrays(b: int, h: int, arcs, best, dtype):
    """EVAL and values of levels ``0 .. h-1`` from their arcs and the best leaf arcs."""
    starts = tuple(level_start(b, L) for L in range(h + 1))
    size = starts[h]
    evals = np.empty(size, dtype=dtype)
    evals[0] = 0
    for L in range(1, h):
        out = evals[starts[L]:starts[L + 1]].reshape(-1, b)
        op = np.add if L % 2 == 1 else np.subtract
        op(evals[starts[L - 1]:starts[L]][:, None], arcs[starts[L]:starts[L + 1]].reshape(-1, b),
           out=out, casting="unsafe")
    values = np.empty(size, dtype=dtype)
    # the mover at level h-1 gains the leaf arc: MAX adds its best arc, MIN subtracts it
    last = slice(starts[h - 1], starts[h])
    if (h - 1) % 2 == 0:
        np.add(evals[last], best, out=values[last], casting="unsafe")
    else:
        np.subtract(evals[last], best, out=values[last], casting="unsafe")
    for L in range(h - 2, -1, -1):
        _reduce_children(values[starts[L + 1]:starts[L + 2]], b, maximise=L % 2 == 0,
                         out=values[starts[L]:starts[L + 1]])
    for array in (arcs, evals, values):
        array.setflags(write=False)
    return arcs, evals, values


def _dtypes(max_arc: int, bound: int) -> tuple[str, str]:
    """The numpy integer dtypes of the arcs and of EVAL/v: the smallest that hold them."""
    dtype = "int16" if bound < 2 ** 15 else ("int32" if bound < 2 ** 31 else "int64")
    return ("int8" if max_arc < 2 ** 7 else dtype), dtype


def _build_numpy(b: int, h: int, m: int, seed: int, starts: tuple[int, ...], bound: int):
    """Arcs, EVAL and v as read-only numpy arrays, one vectorised step per level."""
    arc_dtype, dtype = _dtypes(m, bound)
    size = starts[-1]
    rng = np.random.default_rng(seed)
    arcs = rng.integers(0, m + 1, size=size, dtype=arc_dtype)
    arcs[0] = 0
    # EVAL, top-down: one vectorised step per level (Chen's dynamic programming pass).
    evals = np.empty(size, dtype=dtype)
    evals[0] = 0
    for L in range(1, h + 1):
        parents = evals[starts[L - 1]:starts[L]]
        out = evals[starts[L]:starts[L + 1]].reshape(-1, b)
        gains = arcs[starts[L]:starts[L + 1]].reshape(-1, b)
        op = np.add if L % 2 == 1 else np.subtract      # MAX gains odd arcs, MIN even ones
        op(parents[:, None], gains, out=out, casting="unsafe")
    # v, bottom-up: the leaves' payoff is their EVAL; one max or min per level.
    values = np.empty(size, dtype=dtype)
    values[starts[h]:] = evals[starts[h]:]
    for L in range(h - 1, -1, -1):
        _reduce_children(values[starts[L + 1]:starts[L + 2]], b, maximise=L % 2 == 0,
                         out=values[starts[L]:starts[L + 1]])
    for array in (arcs, evals, values):
        array.setflags(write=False)
    return arcs, evals, values


def _build_pure(b: int, h: int, m: int, seed: int, starts: tuple[int, ...], bound: int):
    """The same numbers as :func:`_build_numpy`, in tuples, without numpy.

    >>> tree = ChenTree(3, 3, seed=4)
    >>> pure = _build_pure(3, 3, 9, 4, tree.level_starts, 18)
    >>> [list(a) for a in pure] == [a.tolist() for a in (tree.arcs, tree.evals, tree.values)]
    True
    """
    arc_dtype, _ = _dtypes(m, bound)
    size = starts[-1]
    arcs = _pcg64.default_rng(seed).integers(0, m + 1, size=size, dtype=arc_dtype)
    arcs[0] = 0
    evals = [0] * size
    for L in range(1, h + 1):          # MAX gains odd arcs, MIN even ones
        sign = 1 if L % 2 == 1 else -1
        for k in range(starts[L], starts[L + 1]):
            evals[k] = evals[(k - 1) // b] + sign * arcs[k]
    values = evals[:]
    for L in range(h - 1, -1, -1):
        pick = max if L % 2 == 0 else min
        for k in range(starts[L], starts[L + 1]):
            values[k] = pick(values[k * b + 1:k * b + 1 + b])
    return Values(arcs), Values(evals), Values(values)


def _ranks(key: np.ndarray) -> np.ndarray:
    """Each entry's place in its row sorted by ``key``, ties by column: a stable argsort's inverse.

    ``b * b`` vectorised comparisons, several times faster than ``np.argsort`` on the short
    rows of a game tree.

    >>> _ranks(np.array([[5, 3, 5, 1]])).tolist()
    [[2, 1, 3, 0]]
    """
    width = key.shape[1]
    ranks = np.zeros(key.shape, dtype=np.int16)
    for i in range(width):
        column = key[:, i:i + 1]
        ranks += column < key                       # i sorts before j: a smaller key ...
        ranks[:, i + 1:] += column == key[:, i + 1:]   # ... or an equal one in an earlier column
    return ranks


def _reduce_children(child_values: np.ndarray, width: int, *, maximise: bool,
                     out: np.ndarray | None = None) -> np.ndarray:
    """Max (or min) over each consecutive group of ``width`` values.

    Done column by column, which is several times faster than
    ``reshape(-1, width).max(axis=1)`` for the small widths of game trees.
    """
    groups = child_values.reshape(-1, width)
    op = np.maximum if maximise else np.minimum
    if out is None:
        out = groups[:, 0].copy()
    else:
        out[...] = groups[:, 0]
    for j in range(1, width):
        op(out, groups[:, j], out=out)
    return out


@dataclass(frozen=True, eq=False)
class SelectiveOutcome:
    """What Chen's selective search did from each of a batch of nodes, for one (d, s)."""

    depth: int
    """Search depth ``d``."""
    skip: int
    """Skip number ``s``: children dropped at every expanded node."""
    nodes: int
    """Nodes generated per search: the node itself, its kept descendants down to
    depth ``d`` (Chen's Tables 2 and 4).  The same for every node of the batch."""
    values: np.ndarray
    """The backed-up value of each searched node."""
    moves: np.ndarray
    """The chosen move (child offset ``0 .. b-1``) at each searched node."""
    errors: np.ndarray
    """Decision error at each node: ``v(best child) - v(chosen child)`` for a MAX
    node, ``v(chosen) - v(best)`` for a MIN node (>= 0, in points)."""


def selective_sweep(
    tree: ChenTree | ChenTreeTop,
    roots: Iterable[int],
    *,
    depths: Iterable[int],
    skips: Iterable[int],
) -> dict[tuple[int, int], SelectiveOutcome]:
    """Chen's selective search from many nodes, for many depths and skips, vectorised.

    For each skip number ``s`` the set of children the search keeps does not
    depend on the depth, so it is computed once, level by level, for all
    ``roots`` at once: at each kept node, rank the ``b`` children by EVAL from
    the mover's side (MAX prefers high, MIN low; ties by lower index, as in
    :func:`course.search.selective`) and keep the ``b - s`` best (at least one).
    Each depth then backs EVAL up from its level with one max or min per level.

    Parameters
    ----------
    tree : ChenTree or ChenTreeTop
        A whole tree, or its top (then the roots must be at least 2 above the leaves).
    roots : iterable of int
        The nodes to decide at; all at the same level, each at least
        ``max(depths)`` above the leaves.
    depths : iterable of int
        Search depths ``d >= 1``.
    skips : iterable of int
        Skip numbers ``s >= 0``.

    Returns
    -------
    dict
        ``(d, s) -> SelectiveOutcome``.

    Raises
    ------
    ParameterError
        If ``roots`` is empty, mixes levels, or is too close to the leaves for a
        depth, or a depth or skip is invalid.

    Examples
    --------
    The node counts are Chen's ``1 + (b-s) + ... + (b-s)**d``, and the moves
    and values are those of the reference search:

    >>> from course.search import selective
    >>> tree = ChenTree(4, 4, seed=2)
    >>> out = selective_sweep(tree, [0], depths=[3], skips=[1])[3, 1]
    >>> out.nodes
    40
    >>> ref = selective(tree, depth=3, skip=1)
    >>> (ref.expanded + ref.evaluated, ref.move, ref.value) == (out.nodes, int(out.moves[0]), int(out.values[0]))
    True

    Notes
    -----
    Memory grows with the largest kept level, ``len(roots) * (b - s)**max(depths)``
    indices; for ``s = 0`` and a whole level of roots no index array is built.
    """
    roots = np.asarray(list(roots) if not isinstance(roots, np.ndarray) else roots, dtype=np.int64)
    depths = sorted({_check_int("depth", d, 1) for d in depths})
    skips = sorted({_check_int("skip", s, 0) for s in skips})
    if roots.size == 0 or not depths or not skips:
        raise ParameterError("need at least one root, one depth and one skip number")
    if roots.min() < 0 or roots.max() >= tree.size:
        raise ParameterError(f"roots must be node indices 0 .. {tree.size - 1}")
    b, starts = tree.branching, tree.level_starts
    level0 = tree.level(int(roots[0]))
    if not (roots >= starts[level0]).all() or not (roots < starts[level0 + 1]).all():
        raise ParameterError("all roots must be at the same level (Chen's node height h1)")
    max_d = depths[-1]
    if level0 + max_d > tree.height:
        raise ParameterError(
            f"depth {max_d} goes below the leaves: nodes at level {level0} have height "
            f"{tree.height - level0}"
        )
    if isinstance(tree, ChenTreeTop) and level0 + 1 >= tree.height:
        raise ParameterError("a ChenTreeTop holds no leaves: decide at nodes of height 2 or more")
    evals, values = tree.evals, tree.values
    n = roots.size
    contiguous = bool(n == 1 or (np.diff(roots) == 1).all())
    offsets = np.arange(b, dtype=np.int64)
    root_max = level0 % 2 == 0
    first_children = roots * b + 1
    child_values = values[first_children[:, None] + offsets]          # (n, b): v of each move
    best = child_values.max(axis=1) if root_max else child_values.min(axis=1)

    r_lo, r_hi = int(roots.min()), int(roots.max()) + 1

    def span(l: int) -> tuple[int, int]:
        """The index range holding every depth-``l`` descendant of the roots."""
        return r_lo * b ** l + level_start(b, l), r_hi * b ** l + level_start(b, l)

    # One-step lookahead: a kept node at depth d-1 backs up the best EVAL of its
    # kept children, and since the mover keeps exactly its best-looking children,
    # that is the best EVAL of *all* its children, whatever s is.  So the search's
    # last level is one max/min over contiguous blocks, computed once per level.
    # One level above the leaves that is the node's own value v (the leaves' payoff is
    # their EVAL), which a ChenTreeTop holds without holding the leaves.
    lookahead: dict[int, tuple[int, np.ndarray]] = {}
    for l in range(1, max_d):
        lo, hi = span(l)
        if level0 + l + 1 == tree.height:
            lookahead[l] = (lo, values[lo:hi])
        else:
            lookahead[l] = (lo, _reduce_children(evals[lo * b + 1:hi * b + 1], b,
                                                 maximise=(level0 + l) % 2 == 0))

    results: dict[tuple[int, int], SelectiveOutcome] = {}
    rows = np.arange(n)
    for s in skips:
        keep = max(1, b - s)
        # frontier[l]: the kept nodes at depth l, grouped by parent (either an index
        # array or, for s = 0 below a contiguous block of roots, a (start, stop) range).
        frontiers: list = [(r_lo, r_hi) if contiguous else roots]
        for l in range(max(1, max_d - 1)):
            f = frontiers[-1]
            if keep == b and isinstance(f, tuple):
                frontiers.append((f[0] * b + 1, f[1] * b + 1))
                continue
            parents = np.arange(*f, dtype=np.int64) if isinstance(f, tuple) else f
            kids = (parents * b + 1)[:, None] + offsets                    # (m, b)
            if keep < b:
                ev = evals[kids]
                mover_max = (level0 + l) % 2 == 0
                key = -ev.astype(np.int32) if mover_max else ev
                if keep == b - 1:                 # drop one: the worst, the last of equal worsts
                    kept = np.ones(key.shape, dtype=bool)
                    kept[np.arange(len(key)), b - 1 - key[:, ::-1].argmax(axis=1)] = False
                else:
                    kept = _ranks(key) < keep
                kids = kids[kept].reshape(-1, keep)                       # kept, in move order
            frontiers.append(kids.ravel())
        sizes = [(f[1] - f[0]) if isinstance(f, tuple) else f.size for f in frontiers]
        f1 = frontiers[1]
        kept_children = (np.arange(*f1, dtype=np.int64) if isinstance(f1, tuple) else f1).reshape(n, keep)
        for d in depths:
            # generated: the kept nodes down to depth d-1, and the kept children of those
            count = sum(sizes[:d]) + sizes[d - 1] * keep
            if d == 1:
                backed = evals[kept_children.ravel()]
            else:
                lo, block = lookahead[d - 1]
                f = frontiers[d - 1]
                backed = block[f[0] - lo:f[1] - lo] if isinstance(f, tuple) else block[f - lo]
                for l in range(d - 2, 0, -1):                              # back up to depth 1
                    backed = _reduce_children(backed, keep, maximise=(level0 + l) % 2 == 0)
            backed = backed.reshape(n, keep)
            position = backed.argmax(axis=1) if root_max else backed.argmin(axis=1)
            chosen = kept_children[rows, position]
            moves = chosen - first_children
            chosen_value = child_values[rows, moves].astype(np.int64)
            errors = (best - chosen_value) if root_max else (chosen_value - best)
            results[d, s] = SelectiveOutcome(
                depth=d, skip=s, nodes=int(count // n),
                values=backed[rows, position].astype(np.int64),
                moves=moves, errors=errors.astype(np.int64),
            )
    return results
