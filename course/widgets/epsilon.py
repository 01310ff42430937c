"""The epsilon explorer: how Bounded Alpha-Beta trades accuracy for pruning."""

from __future__ import annotations


import ipywidgets as widgets

from ..draw import draw_tree
from ..draw.render import room_for_bounds
from ..errors import ParameterError
from ..game import Game
from ..search import bab, expectimax
from ..trees import TreeGame
from ._common import Explorer, as_tree, fmt

__all__ = ["EpsilonExplorer", "epsilon_explorer"]


def _slider_step(span: float) -> float:
    """A slider step giving about 100 positions, 1 for integer spans of 20 or more."""
    if span >= 20 and float(span).is_integer():
        return 1.0
    return span / 100 if span > 0 else 0.01


class EpsilonExplorer(Explorer):
    """Widget state of :func:`epsilon_explorer`; drive it through its controls' ``value``.

    Attributes
    ----------
    epsilon : ipywidgets.FloatSlider
        The error bound, from 0 to ``vmax - vmin``.
    branching, depth, seed : ipywidgets.IntSlider, IntSlider, IntText
        Shape and seed of the generated tree (hidden when a game is given).
    stochastic : ipywidgets.Checkbox
        Generate a stochastic RT instead of an RT.
    game : TreeGame
        The tree being searched.
    result, baseline : SearchResult
        BAB at the chosen epsilon (traced) and at epsilon = 0.
    """

    def __init__(self, game: Game | None, *, epsilon: float, branching: int, depth: int, seed: int,
                 stochastic: bool, max_nodes: int) -> None:
        self.max_nodes = max_nodes
        self.given = game is not None
        self.branching = widgets.IntSlider(value=branching, min=2, max=6, description="branching",
                                           continuous_update=False)
        self.depth = widgets.IntSlider(value=depth, min=1, max=6, description="depth",
                                       continuous_update=False)
        self.seed = widgets.IntText(value=seed, description="seed", layout=widgets.Layout(width="160px"))
        self.stochastic = widgets.Checkbox(value=stochastic, description="stochastic (chance nodes)",
                                           indent=False)
        self.epsilon = widgets.FloatSlider(value=0.0, min=0.0, max=1.0, description="ε",
                                           continuous_update=False, readout_format=".3g",
                                           layout=widgets.Layout(width="480px"))
        tree_box = widgets.HBox([self.branching, self.depth, self.seed, self.stochastic])
        if self.given:
            tree_box.layout.display = "none"
        super().__init__([tree_box, self.epsilon])
        self._baseline_for: TreeGame | None = None
        if game is not None:
            self.game: TreeGame | None = as_tree(game)
            self.bounds = (self.game.vmin, self.game.vmax)
        else:
            self._load_generated()
        self._set_range(epsilon)
        self.watch(self.epsilon)
        self.watch(self.branching, self.depth, self.seed, self.stochastic, handler=self._new_tree)
        self.refresh()

    def _load_generated(self) -> None:
        """Generate the RT (or stochastic RT) the controls describe; refuse one too big to redraw."""
        from ..games import random_tree, stochastic_random_tree

        make = stochastic_random_tree if self.stochastic.value else random_tree
        raw = make(self.branching.value, self.depth.value, seed=self.seed.value)
        self.bounds = (raw.vmin, raw.vmax)
        try:
            self.game, self.refused = as_tree(raw), ""
        except ParameterError as exc:
            self.game, self.refused = None, str(exc)    # said in the widget until fixed

    def _set_range(self, epsilon: float) -> None:
        span = self.bounds[1] - self.bounds[0]
        step = _slider_step(span)
        with self.epsilon.hold_trait_notifications():
            self.epsilon.max = max(float(span), step)
            self.epsilon.step = step
            self.epsilon.value = min(max(float(epsilon), 0.0), float(span))

    def _new_tree(self, change: dict) -> None:
        self._load_generated()
        self._busy = True           # one redraw for the new tree, not two
        try:
            self._set_range(self.epsilon.value)
        finally:
            self._busy = False
        self.refresh()

    def compute(self):
        if self.refused:
            raise ParameterError(self.refused)
        game = self.game
        if self._baseline_for is not game:
            self.baseline = bab(game, epsilon=0, trace=True)
            self.true_value = expectimax(game).value
            self._baseline_for = game
            # room for any [L, U], and nodes of this tree never shrink: an ε change keeps the layout
            self._sizes = room_for_bounds(game, game.vmin, game.vmax)
        eps = self.epsilon.value
        self.result = result = bab(game, epsilon=eps, trace=True)
        # the nodes drawn are those BAB(ε=0) leads to, whatever ε prunes: an ε change keeps them
        picture = draw_tree(game, result, max_nodes=self.max_nodes, show_window=False,
                            sizes=self._sizes, expand_from=self.baseline)
        base = self.baseline
        er = result.expanded / base.expanded if base.expanded else 1.0
        amb = result.upper - result.lower
        rows = [
            ("root bounds [L, U]", f"[{fmt(result.lower)}, {fmt(result.upper)}]"
             + f" &nbsp; (true value {fmt(self.true_value)})"),
            ("ER = expanded / expanded by BAB(ε=0)", f"{result.expanded} / {base.expanded} = {er:.3f}"),
            ("AMB = U − L", f"{fmt(amb)} &nbsp; (at most ε = {fmt(eps)})"),
            ("leaves evaluated", f"{result.evaluated} (BAB(ε=0): {base.evaluated})"),
            ("move chosen by L", "-" if result.move is None else str(result.move)),
        ]
        note = ""
        if eps == 0:
            chance = any(n.kind == "chance" for n in game.root.iter_nodes())
            note = ("<p>ε = 0: BAB is Star1 (the basic *-minimax search), exact and safe"
                    + ("." if chance else "; on this tree without chance nodes it prunes as "
                       "alpha-beta does, plus safe cuts where a leaf reaches vmin or vmax.")
                    + "</p>")
        table = "".join(f"<tr><td>{k}</td><td><b>{v}</b></td></tr>" for k, v in rows)
        return picture, f"<table>{table}</table>{note}"


def epsilon_explorer(
    game: Game | None = None,
    *,
    epsilon: float = 0,
    branching: int = 4,
    depth: int = 4,
    seed: int = 0,
    stochastic: bool = False,
    max_nodes: int = 120,
) -> EpsilonExplorer:
    """Explore Bounded Alpha-Beta: an ε slider over a given or random tree.

    Shows the BAB-pruned tree, the root's bounds ``[L, U]`` (and the true
    value), ER (expansions relative to BAB with ε = 0) and AMB (``U - L``, at
    most ε by Theorem 1).  At ε = 0 BAB is Star1, which prunes like
    alpha-beta on trees without chance nodes.

    Parameters
    ----------
    game : Game, optional
        The tree to search (any game is expanded to a tree).  Default: an RT
        from :func:`course.games.random_tree`, or with ``stochastic=True`` a
        stochastic RT from :func:`course.games.stochastic_random_tree`, with
        controls for ``branching``, ``depth`` and ``seed``.
    epsilon : float
        Starting ε (clamped to ``[0, vmax - vmin]``).
    branching, depth, seed : int
        The generated tree's shape and seed.
    stochastic : bool
        Generate a stochastic RT.
    max_nodes : int
        Size of the drawing (see :func:`course.draw.draw_tree`); deeper parts
        are summarised.  Which nodes are drawn is decided by BAB at ε = 0 and
        every node is sized for any ``[L, U]``, so moving ε only restyles the
        same drawing (the browser does it without laying it out again).  Default 120, which keeps a redraw of the 341-node
        b = 4, d = 4 tree under 50 ms.  The drawing leaves out the (α, β)
        windows to stay narrow; a node's tooltip still gives its window.

    Returns
    -------
    EpsilonExplorer
        A VBox; set ``.epsilon.value`` (or the tree controls) to update it.

    Raises
    ------
    ParameterError
        If ``game`` is not a game.

    Examples
    --------
    >>> from course.examples import bab_figure3
    >>> explorer = epsilon_explorer(bab_figure3(), epsilon=2)
    >>> explorer.result.leaves
    ((0,), (1, 0, 0), (1, 1))
    >>> explorer.epsilon.value = 1
    >>> explorer.result.leaves
    ((0,), (1, 0, 0), (1, 0, 1))

    References
    ----------
    Atzmon, Stern & Saffidine (2018), Algorithm 1, Theorem 1 and Figures 4-6
    (ER and AMB), seed 000.
    """
    return EpsilonExplorer(game, epsilon=epsilon, branching=branching, depth=depth, seed=seed,
                           stochastic=stochastic, max_nodes=max_nodes)
