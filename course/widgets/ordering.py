"""The move-ordering explorer: the same tree, searched by alpha-beta in different orders."""

from __future__ import annotations

import ipywidgets as widgets

from ..draw import draw_tree
from ..errors import ParameterError
from ..game import Game
from ..search import ORDERINGS, alphabeta
from ..theory import best_case_leaves
from ..trees import TreeGame, TreeNode
from ._common import Explorer, as_tree, fmt

__all__ = ["OrderingExplorer", "ordering_explorer", "best_case_leaves", "uniform_shape"]


def uniform_shape(root: TreeNode) -> tuple[int, int] | None:
    """``(b, d)`` if every internal node has b children and every leaf is at depth d, else None.

    >>> from course import parse_tree
    >>> uniform_shape(parse_tree([[1, 2], [3, 4]]).root), uniform_shape(parse_tree([1, [2, 3]]).root)
    ((2, 2), None)
    """
    if root.is_leaf:
        return None
    branching = len(root.children)
    depths = set()
    for node in root.iter_nodes():
        if node.is_leaf:
            depths.add(len(node.path) - len(root.path))
        elif len(node.children) != branching:
            return None
    return (branching, depths.pop()) if len(depths) == 1 else None


class _AverageEstimate(TreeGame):
    """An explicit tree whose EVAL is the average of the leaves below a node.

    Explicit trees have no evaluation function; this stand-in lets the
    ``heuristic`` ordering run on them.  It is informed (it looks at the
    leaves) but imperfect: an average is not a minimax value.
    """

    def __init__(self, game: TreeGame) -> None:
        super().__init__(game.root, (game.vmin, game.vmax))
        self._average: dict[int, float] = {}
        self._fill(game.root)

    def _fill(self, node: TreeNode) -> tuple[float, int]:
        if node.is_leaf:
            return float(node.value), 1
        total, count = 0.0, 0
        for child in node.children:
            t, c = self._fill(child)
            total, count = total + t, count + c
        self._average[id(node)] = total / count
        return total, count

    def evaluate(self, state: TreeNode) -> float:
        if state.is_leaf:
            return state.value
        return self._average[id(state)]


def _has_evaluate(game: TreeGame) -> bool:
    inner = next((c for c in game.root.children if not c.is_leaf), None)
    if inner is None:
        return True
    try:
        game.evaluate(inner)
    except NotImplementedError:
        return False
    return True


class OrderingExplorer(Explorer):
    """Widget state of :func:`ordering_explorer`; drive it through its controls' ``value``.

    Attributes
    ----------
    order : ipywidgets.Dropdown
        One of :data:`course.search.ORDERINGS`.
    seed : ipywidgets.IntText
        Seed of the ``random`` ordering (enabled only for it).
    branching, depth, tree_seed : ipywidgets.IntSlider, IntSlider, IntText
        The generated tree (hidden when a game is given).
    result : SearchResult
        The last alpha-beta search (traced).
    """

    def __init__(self, game: Game | None, *, order: str, seed: int, branching: int, depth: int,
                 tree_seed: int, max_nodes: int) -> None:
        if order not in ORDERINGS:
            raise ParameterError(f"unknown move ordering {order!r}; choose one of {', '.join(ORDERINGS)}")
        self.max_nodes = max_nodes
        self.order = widgets.Dropdown(options=list(ORDERINGS), value=order, description="ordering")
        self.seed = widgets.IntText(value=seed, description="order seed",
                                    layout=widgets.Layout(width="180px"))
        self.branching = widgets.IntSlider(value=branching, min=2, max=5, description="branching",
                                           continuous_update=False)
        self.depth = widgets.IntSlider(value=depth, min=1, max=6, description="depth",
                                       continuous_update=False)
        self.tree_seed = widgets.IntText(value=tree_seed, description="tree seed",
                                         layout=widgets.Layout(width="180px"))
        tree_box = widgets.HBox([self.branching, self.depth, self.tree_seed])
        if game is not None:
            tree_box.layout.display = "none"
        super().__init__([widgets.HBox([self.order, self.seed]), tree_box])
        if game is not None:
            self.game: TreeGame | None = self._prepare(game)
        else:
            self._load_generated()
        self._sync_seed()
        self.watch(self.order, handler=lambda change: (self._sync_seed(), self.refresh()))
        self.watch(self.seed)
        self.watch(self.branching, self.depth, self.tree_seed, handler=self._new_tree)
        self.refresh()

    def _sync_seed(self) -> None:
        self.seed.disabled = self.order.value != "random"

    @staticmethod
    def _prepare(game: Game) -> TreeGame:
        tree = as_tree(game)
        return tree if _has_evaluate(tree) else _AverageEstimate(tree)

    def _load_generated(self) -> None:
        """Generate the RT the controls describe; refuse one too big to redraw."""
        from ..games import random_tree

        try:
            self.game = self._prepare(random_tree(self.branching.value, self.depth.value,
                                                  seed=self.tree_seed.value))
            self.refused = ""
        except ParameterError as exc:
            self.game, self.refused = None, str(exc)    # said in the widget until fixed

    def _new_tree(self, change: dict) -> None:
        self._load_generated()
        self.refresh()

    def compute(self):
        if self.refused:
            raise ParameterError(self.refused)
        game = self.game
        order = self.order.value
        self.result = result = alphabeta(game, order=order, seed=self.seed.value, trace=True)
        picture = draw_tree(game, result, max_nodes=self.max_nodes)
        shape = uniform_shape(game.root)
        total = len(game.root.leaves())
        rows = [("leaves evaluated by alpha-beta", f"{result.evaluated} of {total}"),
                ("value", fmt(result.value))]
        if shape is not None:
            b, d = shape
            best = best_case_leaves(b, d)
            rows.append(("best case b<sup>⌈d/2⌉</sup> + b<sup>⌊d/2⌋</sup> − 1",
                         f"{best} &nbsp; (b = {b}, d = {d})"))
            rows.append(("minimax: b<sup>d</sup>", str(b ** d)))
        else:
            rows.append(("best-case formula", "needs a uniform tree (same b everywhere, leaves at one depth)"))
        note = ""
        if order == "heuristic" and isinstance(game, _AverageEstimate):
            note = ("<p>This tree has no evaluation function, so <i>heuristic</i> orders "
                    "children by the average of the leaves below them.</p>")
        table = "".join(f"<tr><td>{k}</td><td><b>{v}</b></td></tr>" for k, v in rows)
        return picture, f"<table>{table}</table>{note}"


def ordering_explorer(
    game: Game | None = None,
    *,
    order: str = "given",
    seed: int = 0,
    branching: int = 3,
    depth: int = 4,
    tree_seed: int = 0,
    max_nodes: int = 200,
) -> OrderingExplorer:
    """Explore move ordering: alpha-beta on one tree under each ordering.

    Shows the pruned tree, the leaves alpha-beta evaluated, and, for a
    uniform tree, the best case ``b**ceil(d/2) + b**floor(d/2) - 1`` beside
    minimax's ``b**d``.

    Parameters
    ----------
    game : Game, optional
        The tree (any game is expanded to a tree).  Default: an RT from
        :func:`course.games.random_tree` with controls for its shape and seed.
    order : str
        The starting ordering, one of :data:`course.search.ORDERINGS`.
    seed : int
        Seed of the ``random`` ordering.
    branching, depth, tree_seed : int
        The generated tree's shape and seed.
    max_nodes : int
        Size of the drawing (see :func:`course.draw.draw_tree`).

    Returns
    -------
    OrderingExplorer
        A VBox; set ``.order.value`` or ``.seed.value`` to update it.

    Raises
    ------
    ParameterError
        For an unknown ordering or a ``game`` that is not a game.

    Examples
    --------
    >>> from course.examples import aima_figure_5_2
    >>> explorer = ordering_explorer(aima_figure_5_2())
    >>> explorer.result.evaluated
    7
    >>> explorer.order.value = "best-first"
    >>> explorer.result.evaluated
    5

    Notes
    -----
    Explicit trees have no evaluation function; for them ``heuristic`` orders
    children by the average of the leaves below them (said in the widget).

    References
    ----------
    Knuth & Moore (1975); Strass, *Playing Games: Alpha-Beta Tree Search*
    (seed 001) on move ordering; the adversarial-search notes (seed 004).
    """
    return OrderingExplorer(game, order=order, seed=seed, branching=branching, depth=depth,
                            tree_seed=tree_seed, max_nodes=max_nodes)
