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
from .result import SearchResult, Trace, TraceEvent


class SearchContext:
    """State of one search run: statistics, trace and the leaf/ordering rules."""

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
        self.expanded = 0
        self.leaves: list[Path] = []
        self.events: list[TraceEvent] | None = [] if trace else None
        self.root_children: list[tuple[int, float, float]] = []
        self.orderer = make_orderer(order, game, seed=seed, leaf_value=self.leaf_value_or_none,
                                    estimate=self.static_value)

    # -- leaves ------------------------------------------------------------------
    def is_leaf(self, state: Any, depth: int) -> bool:
        """Does the search treat ``state`` (at ``depth``) as a leaf?"""
        if self.game.is_terminal(state):
            return True
        if self.depth_limit is not None and depth >= self.depth_limit:
            return True
        return self.cutoff is not None and bool(self.cutoff(state, depth))

    def static_value(self, state: Any) -> float:
        """UTILITY of a terminal state, EVAL of a horizon state (uncounted)."""
        game = self.game
        if game.is_terminal(state):
            return game.utility(state)
        try:
            return self.evaluate(state)
        except NotImplementedError as exc:
            raise ParameterError(f"{exc}") from None

    def leaf_value_or_none(self, state: Any, depth: int) -> float | None:
        return self.static_value(state) if self.is_leaf(state, depth) else None

    def evaluate_leaf(self, state: Any, path: Path) -> float:
        """Evaluate a leaf: count it, record its path, trace it, check its bounds."""
        value = self.static_value(state)
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

    # -- internal nodes ------------------------------------------------------------
    def begin(self, state: Any, path: Path, *, allow_chance: bool = True) -> tuple[Player, list]:
        """Start expanding a node: count it and return its player and ordered children.

        The children are ``(index, move, probability)`` triples in search order,
        ``probability`` being None below decision nodes.
        """
        game = self.game
        player = game.turn(state)
        if player is Player.CHANCE:
            if not allow_chance:
                raise ChanceNodeError(
                    "this search handles MAX and MIN nodes only, and this is a chance node; "
                    "use expectimax, star1 or bab for trees with chance",
                    path=path,
                )
            outcomes = list(game.chance_outcomes(state))
            children = [(i, move, p) for i, (move, p) in enumerate(outcomes)]
        else:
            children = [(i, move, None) for i, move in enumerate(game.moves(state))]
        if not children:
            raise ParameterError(
                f"non-terminal state has no moves ({type(game).__name__}.moves returned nothing)",
                path=path,
            )
        if self.orderer is not None:
            children = [children[i] for i in self.orderer(state, path, player, len(children))]
        self.expanded += 1
        return player, children

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


def first_best(children: list[tuple[int, float, float]], player: Player, *, by: str) -> int | None:
    """The root move: the first searched child with the best ``by`` (lower/upper) value."""
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
