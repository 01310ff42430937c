"""Shared plumbing of the reference searches: leaves, counting, ordering, tracing.

Private: the public searches validate their arguments, build a
:class:`SearchContext`, and run their own recursion with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Real
from typing import Any

from ..errors import BoundsError, ChanceNodeError, ParameterError
from ..game import Game, Path, Player
from .ordering import make_orderer
from .result import ChildResult, SearchResult, Trace, TraceEvent


class _Expand:
    """The type of :data:`EXPAND`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "EXPAND"


EXPAND = _Expand()
"""What :meth:`SearchContext.leaf` returns for a node the search must expand."""


class SearchContext:
    """State of one search run: statistics, trace and the leaf/ordering rules.

    A search's recursion asks two things of every node, through closures made
    once per run (so that a node costs no attribute look-ups and no option tests
    that the run does not need):

    * ``leaf(state, path, depth)``: the node's value if the search treats it as a
      leaf (counted, recorded, traced, bounds-checked), else :data:`EXPAND`;
    * ``expand(state, path)``: ``(player, moves, probabilities, order)`` of a node
      being expanded (counted): its moves in the game's order, their probabilities
      below a CHANCE node (else None), and the indices of the moves in search order.
    """

    def __init__(
        self,
        game: Game,
        *,
        order: Any = "given",
        seed: int | None = 0,
        depth: int | None = None,
        evaluate: Callable[[Any], float] | None = None,
        cutoff: Callable[[Any, int], bool] | None = None,
        trace: bool = False,
        check_bounds: tuple[float, float] | None = None,
        allow_chance: bool = True,
    ) -> None:
        if not isinstance(game, Game):
            raise ParameterError(
                f"expected a course Game (e.g. from course.parse_tree), got {type(game).__name__}"
            )
        if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
            raise ParameterError(f"depth must be a non-negative integer or None, got {depth!r}")
        self.game = game
        self.depth_limit = depth
        self.evaluate = evaluate if evaluate is not None else game.evaluate
        self.cutoff = cutoff
        self.check_bounds = check_bounds
        self.allow_chance = allow_chance
        self.expanded = 0
        self.leaves: list[Path] = []
        self.events: list[TraceEvent] | None = [] if trace else None
        self.root_children: list[ChildResult] = []      # see course.search.result
        self.orderer = make_orderer(order, game, seed=seed, leaf_value=self.leaf_value_or_none,
                                    estimate=self.static_value)
        self.leaf = self._leaf_rule()
        self.expand = self._expansion_rule()

    # -- leaves ------------------------------------------------------------------
    def is_leaf(self, state: Any, depth: int) -> bool:
        """Does the search treat ``state`` (at ``depth``) as a leaf?"""
        if self.game.is_terminal(state):
            return True
        if self.depth_limit is not None and depth >= self.depth_limit:
            return True
        return self.cutoff is not None and bool(self.cutoff(state, depth))

    def horizon_value(self, state: Any) -> float:
        """EVAL of a non-terminal state the search does not expand (uncounted)."""
        try:
            return self.evaluate(state)
        except NotImplementedError as exc:
            raise ParameterError(f"{exc}") from None

    def static_value(self, state: Any) -> float:
        """UTILITY of a terminal state, EVAL of a horizon state (uncounted)."""
        game = self.game
        if game.is_terminal(state):
            return game.utility(state)
        return self.horizon_value(state)

    def leaf_value_or_none(self, state: Any, depth: int) -> float | None:
        return self.static_value(state) if self.is_leaf(state, depth) else None

    def evaluate_leaf(self, state: Any, path: Path) -> float:
        """Evaluate a leaf: count it, record its path, trace it, check its bounds."""
        return self._record_leaf(self.static_value(state), path)

    def _record_leaf(self, value: Any, path: Path) -> Any:
        if self.check_bounds is not None:
            vmin, vmax = self.check_bounds
            if not vmin <= value <= vmax:
                raise BoundsError(
                    f"leaf value {value!r} lies outside the bounds [{vmin}, {vmax}]; give bounds "
                    "that contain every leaf (vmin/vmax, or the tree file's \"bounds\")",
                    path=path,
                )
        self.leaves.append(path)
        if self.events is not None:
            self.events.append(TraceEvent("leaf", path, player="leaf", lower=value, upper=value))
        return value

    def _leaf_rule(self) -> Callable[[Any, Path, int], Any]:
        """``leaf(state, path, depth)``: the leaf's value (recorded), or :data:`EXPAND`.

        The same rule as :meth:`is_leaf` followed by :meth:`evaluate_leaf`, asking
        the game whether ``state`` is terminal once.
        """
        is_terminal, utility = self.game.is_terminal, self.game.utility
        limit, cutoff = self.depth_limit, self.cutoff
        record_path = self.leaves.append
        if limit is None and cutoff is None and self.check_bounds is None and self.events is None:
            def leaf(state: Any, path: Path, depth: int) -> Any:      # the common case, lean
                if is_terminal(state):
                    value = utility(state)
                    record_path(path)
                    return value
                return EXPAND

            return leaf
        horizon_value, record = self.horizon_value, self._record_leaf

        def leaf(state: Any, path: Path, depth: int) -> Any:
            if is_terminal(state):
                return record(utility(state), path)
            if (limit is not None and depth >= limit) or (cutoff is not None and cutoff(state, depth)):
                return record(horizon_value(state), path)
            return EXPAND

        return leaf

    # -- internal nodes ------------------------------------------------------------
    def _expansion_rule(self) -> Callable[[Any, Path], tuple]:
        """``expand(state, path)``: ``(player, moves, probabilities, order)``, the node counted."""
        game, orderer, allow_chance = self.game, self.orderer, self.allow_chance
        turn, game_moves, chance_outcomes = game.turn, game.moves, game.chance_outcomes
        chance_player = Player.CHANCE

        def expand(state: Any, path: Path) -> tuple:
            player = turn(state)
            if player is chance_player:
                if not allow_chance:
                    raise ChanceNodeError(
                        "this search handles MAX and MIN nodes only, and this is a chance node; "
                        "use expectimax, star1 or bab for trees with chance",
                        path=path,
                    )
                outcomes = list(chance_outcomes(state))
                moves = [move for move, _ in outcomes]
                probabilities = [p for _, p in outcomes]
            else:
                moves = game_moves(state)
                if type(moves) is not list and type(moves) is not range and type(moves) is not tuple:
                    moves = list(moves)
                probabilities = None
            n = len(moves)
            if not n:
                raise ParameterError(
                    f"non-terminal state has no moves ({type(game).__name__}.moves returned nothing)",
                    path=path,
                )
            order = range(n) if orderer is None else orderer(state, path, player, n)
            self.expanded += 1
            return player, moves, probabilities, order

        return expand

    def begin(self, state: Any, path: Path, *, allow_chance: bool = True) -> tuple[Player, list]:
        """Start expanding a node: count it and return its player and ordered children.

        The children are ``(index, move, probability)`` triples in search order,
        ``probability`` being None below decision nodes.  (:attr:`expand` returns
        the same without building the triples.)
        """
        if not allow_chance and self.allow_chance and self.game.turn(state) is Player.CHANCE:
            raise ChanceNodeError(
                "this search handles MAX and MIN nodes only, and this is a chance node; "
                "use expectimax, star1 or bab for trees with chance",
                path=path,
            )
        player, moves, probabilities, order = self.expand(state, path)
        return player, [(i, moves[i], None if probabilities is None else probabilities[i])
                        for i in order]

    def emit(self, kind: str, path: Path, **fields: Any) -> None:
        """Append a trace event (callers guard with ``if ctx.events is not None``)."""
        self.events.append(TraceEvent(kind, path, **fields))

    def result(self, algorithm: str, lower: float, upper: float, move: int | None,
               epsilon: float | None = None) -> SearchResult:
        return SearchResult(
            algorithm=algorithm,
            lower=lower,
            upper=upper,
            move=move,
            expanded=self.expanded,
            evaluated=len(self.leaves),
            leaves=tuple(self.leaves),
            children=tuple(self.root_children),
            epsilon=epsilon,
            trace=Trace(tuple(self.events)) if self.events is not None else None,
        )


def check_epsilon(epsilon: Any) -> float:
    """Validate an error bound: a finite real number >= 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real) or not math.isfinite(epsilon):
        raise ParameterError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if epsilon < 0:
        raise ParameterError(f"epsilon must be >= 0, got {epsilon!r}; epsilon = 0 is exact search")
    return epsilon


def first_best(children: list, player: Player, *, by: str) -> int | None:
    """The root move: the first searched child with the best ``by`` (lower/upper) value.

    ``children`` are ``(index, lower, upper)`` triples or :class:`ChildResult`\\ s.
    """
    if player is Player.CHANCE or not children:
        return None
    key = 1 if by == "lower" else 2
    best = None
    for child in children:
        if best is None:
            best = child
        elif player is Player.MAX and child[key] > best[key]:
            best = child
        elif player is Player.MIN and child[key] < best[key]:
            best = child
    return best[0]


def check_utility_bounds(name: str, game: Game, state: Any, vmin: Any, vmax: Any) -> tuple[Any, Any]:
    """The bounds ``[vmin, vmax]`` of a bounded search (defaults: the game's), validated.

    For an explicit tree every leaf is checked before the search, so a bad leaf is reported
    even where it would be pruned (the same checks as :func:`course.search.bab`'s).
    """
    from ..trees import TreeGame

    vmin = game.vmin if vmin is None else vmin
    vmax = game.vmax if vmax is None else vmax
    if not all(isinstance(b, Real) and not isinstance(b, bool) and math.isfinite(b)
               for b in (vmin, vmax)):
        raise ParameterError(
            f"{name} needs finite utility bounds, got [{vmin}, {vmax}]; "
            "pass vmin=... and vmax=..., or give the game (tree file) bounds"
        )
    if vmin > vmax:
        raise ParameterError(f"vmin={vmin} exceeds vmax={vmax}")
    if isinstance(game, TreeGame):
        for leaf in (game.root if state is None else state).leaves():
            if not vmin <= leaf.value <= vmax:
                raise BoundsError(
                    f"leaf value {leaf.value!r} lies outside the bounds [{vmin}, {vmax}]; "
                    "give bounds that contain every leaf",
                    path=leaf.path,
                )
    return vmin, vmax
