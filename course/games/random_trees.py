"""Random game trees of the BAB paper: RT and stochastic RT.

Atzmon, Stern & Saffidine (2018, "Domains") test Bounded Alpha-Beta on
*random trees* (RT): every internal node has the same branching factor ``b``,
every leaf lies at the same depth ``d``, MAX moves at the root and the players
alternate, and each leaf's utility is drawn uniformly from ``[0, 100]``.

Their *stochastic* RT adds chance to every move: when a player picks move
``j`` of a node with ``b`` moves, move ``j`` happens with probability ``p``
(0.8 in the paper) and each of the other ``b - 1`` moves with probability
``(1 - p) / (b - 1)``.  In game-tree terms each decision node has ``b`` CHANCE
children, and all ``b`` of them lead to the *same* ``b`` successor states; only
the probabilities differ.  ``depth`` counts decision levels, so a stochastic
RT of depth 4 has 4 decision levels, 4 chance levels and ``b**4`` distinct
leaf states (reached along ``(b*b)**4`` root-to-leaf paths).

States are small tuples of integers, not tree nodes, so a tree with millions
of leaves costs one array of leaf values:

* a decision state is ``(t, i)``: level ``t`` (0 at the root) and position
  ``i`` among the ``b**t`` states of that level, left to right.  Its ``k``-th
  successor is ``(t + 1, i*b + k)``.  Leaf ``(d, i)`` has utility
  ``leaf_values[i]``;
* a chance state (stochastic RT only) is ``(t, i, j)``: decision state
  ``(t, i)`` after its player chose move ``j``.

Both games subclass :class:`course.game.Game`, so every reference search runs
on them, and :meth:`RandomTree.to_tree` turns a small one into an explicit
:class:`course.trees.TreeGame` for drawing.  :mod:`course.experiments.fast`
searches them much faster, with identical results.

References
----------
D. Atzmon, R. Stern and A. Saffidine, *Bounded Suboptimal Game Tree Search*,
SoCS 2018 (seed 000), section "Experimental Results", "Domains".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Integral, Real
from typing import TypeVar

from .. import _pcg64
from .._optional import Values, optional_import
from ..errors import ParameterError
from ..game import Game, Path, Player
from ..trees import TreeGame, game_to_tree

__all__ = [
    "RandomTree",
    "StochasticRandomTree",
    "random_tree",
    "stochastic_random_tree",
    "MAX_LEAVES",
]

#: Largest number of leaf values a generator agrees to draw (about 400 MB of floats).
MAX_LEAVES = 50_000_000

DecisionState = tuple[int, int]
ChanceState = tuple[int, int, int]
_State = TypeVar("_State")


def _check_int(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_range(low, high) -> tuple[float, float]:
    for name, x in (("low", low), ("high", high)):
        if isinstance(x, bool) or not isinstance(x, Real) or not math.isfinite(x):
            raise ParameterError(f"{name} must be a finite number, got {x!r}")
    if not low < high:
        raise ParameterError(f"need low < high for the leaf values, got low={low!r}, high={high!r}")
    return low, high


def _draw_leaves(branching: int, depth: int, seed: int, low: float,
                 high: float) -> Sequence[float]:
    """``default_rng(seed).uniform(low, high, size=b**d)``: numpy's, or the same numbers without it.

    With numpy, a read-only array; without (JupyterLite offline), :mod:`course._pcg64`'s
    bit-identical draws as a :class:`~course._optional.Values` tuple.
    """
    n = branching ** depth
    if n > MAX_LEAVES:
        raise ParameterError(
            f"a tree with branching {branching} and depth {depth} has {n} leaves, more than "
            f"{MAX_LEAVES}; choose a smaller branching factor or depth"
        )
    numpy = optional_import("numpy")
    if numpy is None:
        return Values(_pcg64.default_rng(seed).uniform(low, high, size=n))
    values = numpy.random.default_rng(seed).uniform(low, high, size=n)
    values.setflags(write=False)
    return values


class _UniformRandomTree(Game[_State, int]):
    """What RT and stochastic RT share: ``b`` moves everywhere, leaves at one depth.

    Subclasses call :meth:`_set_shape` and then :meth:`_set_leaves` from their
    ``__init__`` (their own checks may come in between) and add the rest of
    the :class:`~course.game.Game` interface.
    """

    def _set_shape(self, branching: int, depth: int, seed: int, *, min_branching: int) -> None:
        self.branching = _check_int("branching", branching, min_branching)
        self.depth = _check_int("depth", depth, 0)
        self.seed = _check_int("seed", seed, 0)

    def _set_leaves(self, low: float, high: float) -> None:
        self.vmin, self.vmax = _check_range(low, high)
        self.leaf_values = _draw_leaves(self.branching, self.depth, self.seed, low, high)
        self._values = self.leaf_values.tolist()
        self._moves = range(self.branching)

    # -- the Game interface -------------------------------------------------------
    def initial_state(self) -> DecisionState:
        return (0, 0)

    def moves(self, state: _State) -> Sequence[int]:
        return self._moves

    def utility(self, state: _State) -> float:
        return self._values[state[1]]

    # -- conveniences -------------------------------------------------------------
    @property
    def num_leaves(self) -> int:
        """``b**depth``, the number of (distinct) leaf states."""
        return self.branching ** self.depth

    def to_tree(self, *, max_nodes: int = 100_000) -> TreeGame:
        """The tree as an explicit :class:`~course.trees.TreeGame` (for drawing small ones).

        A stochastic tree's shared successor states are copied below each
        chance node.

        Raises
        ------
        ParameterError
            If the tree has more than ``max_nodes`` nodes.

        Examples
        --------
        >>> tree = random_tree(2, 2, seed=1).to_tree()
        >>> [leaf.value for leaf in tree.root.leaves()] == random_tree(2, 2, seed=1).leaf_values.tolist()
        True
        >>> tree = stochastic_random_tree(2, 1, seed=3).to_tree()
        >>> tree.root.kind, [c.kind for c in tree.root.children], tree.root.children[1].probabilities
        ('max', ['chance', 'chance'], (0.19999999999999996, 0.8))
        """
        return game_to_tree(self, max_nodes=max_nodes)


class RandomTree(_UniformRandomTree[DecisionState]):
    """The BAB paper's random tree (RT); build one with :func:`random_tree`.

    Attributes
    ----------
    branching, depth : int
        ``b`` and ``d``: every internal node has ``b`` children, every leaf is
        at depth ``d``.
    seed : int
        Seed of :func:`numpy.random.default_rng` that drew the leaves.
    leaf_values : numpy.ndarray
        The ``b**d`` leaf utilities, in left-to-right order (read-only).  Without numpy
        (JupyterLite offline) the same numbers, drawn by :mod:`course._pcg64`, in a tuple.
    vmin, vmax : float
        ``low`` and ``high``: the range the leaves were drawn from.
    """

    def __init__(self, branching: int, depth: int, *, seed: int = 0,
                 low: float = 0, high: float = 100) -> None:
        self._set_shape(branching, depth, seed, min_branching=1)
        self._set_leaves(low, high)

    def __repr__(self) -> str:
        return (f"random_tree(branching={self.branching}, depth={self.depth}, seed={self.seed}, "
                f"low={self.vmin!r}, high={self.vmax!r})")

    # -- the Game interface (initial_state, moves, utility: shared) ---------------
    def turn(self, state: DecisionState) -> Player:
        return Player.MAX if state[0] % 2 == 0 else Player.MIN

    def result(self, state: DecisionState, move: int) -> DecisionState:
        t, i = state
        return (t + 1, i * self.branching + move)

    def is_terminal(self, state: DecisionState) -> bool:
        return state[0] == self.depth

    # -- conveniences (num_leaves, to_tree: shared) ---------------------------------
    def leaf_path(self, index: int) -> Path:
        """The path of leaf number ``index`` (its base-``b`` digits, ``d`` of them).

        >>> random_tree(3, 2).leaf_path(5)
        (1, 2)
        """
        return _digits(index, self.branching, self.depth)

    def leaf_index(self, path: Sequence[int]) -> int:
        """The position in :attr:`leaf_values` of the leaf at ``path``.

        >>> random_tree(3, 2).leaf_index((1, 2))
        5
        """
        if len(path) != self.depth or not all(0 <= k < self.branching for k in path):
            raise ParameterError(f"{tuple(path)!r} is not a leaf path of {self!r}")
        index = 0
        for k in path:
            index = index * self.branching + k
        return index


class StochasticRandomTree(_UniformRandomTree[tuple]):
    """The BAB paper's stochastic random tree; build one with :func:`stochastic_random_tree`.

    Attributes
    ----------
    branching, depth : int
        ``b`` and the number of decision levels.
    p : float
        Probability that the chosen move happens.
    q : float
        ``(1 - p) / (b - 1)``, the probability of each other move.
    seed : int
        Seed of the leaf values.
    leaf_values : numpy.ndarray
        The ``b**depth`` utilities of the leaf states, left to right (read-only).
    vmin, vmax : float
        ``low`` and ``high``.
    """

    def __init__(self, branching: int, depth: int, *, seed: int = 0, p: float = 0.8,
                 low: float = 0, high: float = 100) -> None:
        self._set_shape(branching, depth, seed, min_branching=2)
        if isinstance(p, bool) or not isinstance(p, Real) or not 0 < p < 1:
            raise ParameterError(
                f"p must be a probability strictly between 0 and 1, got {p!r} "
                "(every outcome of a chance node needs a positive probability)"
            )
        self.p = p
        self.q = (1 - p) / (self.branching - 1)
        self._set_leaves(low, high)
        b = self.branching
        #: outcome probabilities after move j: p for outcome j, q for the others
        self.outcome_probabilities = tuple(
            tuple(self.p if k == j else self.q for k in range(b)) for j in range(b)
        )
        self._outcomes = tuple(
            tuple(enumerate(probs)) for probs in self.outcome_probabilities
        )

    def __repr__(self) -> str:
        return (f"stochastic_random_tree(branching={self.branching}, depth={self.depth}, "
                f"seed={self.seed}, p={self.p!r}, low={self.vmin!r}, high={self.vmax!r})")

    # -- the Game interface (initial_state, moves, utility: shared) ---------------
    def turn(self, state: tuple) -> Player:
        if len(state) == 3:
            return Player.CHANCE
        return Player.MAX if state[0] % 2 == 0 else Player.MIN

    def result(self, state: tuple, move: int) -> tuple:
        if len(state) == 3:                      # a chance outcome: the successor decision state
            t, i, _ = state
            return (t + 1, i * self.branching + move)
        t, i = state                             # a decision: remember which move was chosen
        return (t, i, move)

    def is_terminal(self, state: tuple) -> bool:
        return len(state) == 2 and state[0] == self.depth

    def chance_outcomes(self, state: tuple) -> Sequence[tuple[int, float]]:
        return self._outcomes[state[2]]

    def describe_move(self, state: tuple, move: int) -> str:
        if len(state) == 3:
            return f"{move} ({self.outcome_probabilities[state[2]][move]:g})"
        return str(move)

    # -- conveniences (num_leaves, to_tree: shared) ---------------------------------
    def leaf_index(self, path: Sequence[int]) -> int:
        """The position in :attr:`leaf_values` of the leaf state at ``path``.

        A path alternates decisions and chance outcomes; only the outcomes
        say which state is reached.

        >>> stochastic_random_tree(3, 2).leaf_index((0, 1, 2, 2))
        5
        """
        b = self.branching
        if len(path) != 2 * self.depth or not all(0 <= k < b for k in path):
            raise ParameterError(f"{tuple(path)!r} is not a leaf path of {self!r}")
        index = 0
        for k in path[1::2]:
            index = index * b + k
        return index


def _digits(index: int, base: int, length: int) -> Path:
    digits = [0] * length
    for position in range(length - 1, -1, -1):
        index, digits[position] = divmod(index, base)
    return tuple(digits)


def random_tree(branching: int, depth: int, *, seed: int = 0, low: float = 0,
                high: float = 100) -> RandomTree:
    """A random tree (RT) of the BAB paper: uniform branching and depth, random leaves.

    Parameters
    ----------
    branching : int
        ``b >= 1``, the number of children of every internal node.
    depth : int
        ``d >= 0``, the depth of every leaf.  MAX moves at even depths (the
        root), MIN at odd depths.
    seed : int, optional
        Seed for :func:`numpy.random.default_rng`; the same seed gives the same tree, with
        or without numpy installed (:mod:`course._pcg64` draws the same numbers).
    low, high : float, optional
        The leaves are uniform reals in ``[low, high)``; these are also the
        game's ``vmin`` and ``vmax``.  Default ``[0, 100]`` as in the paper.

    Returns
    -------
    RandomTree
        States are ``(level, position)`` pairs; ``leaf_values`` holds the
        ``b**d`` utilities left to right.

    Raises
    ------
    ParameterError
        For a branching factor below 1, a negative depth or seed, ``low >= high``,
        or more than :data:`MAX_LEAVES` leaves.

    Examples
    --------
    >>> from course.search import alphabeta, minimax
    >>> game = random_tree(3, 4, seed=7)
    >>> game.num_leaves, len(game.leaf_values)
    (81, 81)
    >>> alphabeta(game).value == minimax(game).value
    True
    >>> bool(random_tree(3, 4, seed=7).leaf_values[5] == game.leaf_values[5])  # reproducible
    True

    References
    ----------
    Atzmon, Stern & Saffidine (2018), "Domains": branching 2-5, depths 3-9,
    leaves uniform in [0, 100].
    """
    return RandomTree(branching, depth, seed=seed, low=low, high=high)


def stochastic_random_tree(branching: int, depth: int, *, seed: int = 0, p: float = 0.8,
                           low: float = 0, high: float = 100) -> StochasticRandomTree:
    """A stochastic random tree of the BAB paper: every move succeeds with probability ``p``.

    Parameters
    ----------
    branching : int
        ``b >= 2`` moves at every decision node, and ``b`` outcomes at every
        chance node.
    depth : int
        The number of decision levels (MAX at the root, then alternating).
    seed : int, optional
        Seed for :func:`numpy.random.default_rng`.
    p : float, optional
        Probability that the chosen move happens, strictly between 0 and 1;
        each other move happens with ``(1 - p) / (b - 1)``.  Default 0.8.
    low, high : float, optional
        Range of the uniform leaf values, and the game's ``vmin``/``vmax``.

    Returns
    -------
    StochasticRandomTree
        Move ``j`` of decision state ``(t, i)`` leads to chance state
        ``(t, i, j)``, whose outcome ``k`` (listed in successor order ``k = 0 ..
        b-1``) is decision state ``(t + 1, i*b + k)``.

    Raises
    ------
    ParameterError
        For ``branching < 2``, a negative depth or seed, ``p`` outside (0, 1),
        ``low >= high`` or too many leaves.

    Examples
    --------
    >>> from course.search import expectimax, star1
    >>> game = stochastic_random_tree(3, 2, seed=1)
    >>> game.turn(game.result(game.initial_state(), 2))
    Player.CHANCE
    >>> [round(p, 2) for _, p in game.chance_outcomes((0, 0, 2))]
    [0.1, 0.1, 0.8]
    >>> abs(star1(game).lower - expectimax(game).value) < 1e-9
    True

    Notes
    -----
    The ``b`` chance nodes below a decision node share their ``b`` successor
    states, so the leaf values are the same whichever move was chosen; only
    how likely each successor is changes.
    """
    return StochasticRandomTree(branching, depth, seed=seed, p=p, low=low, high=high)
