"""Move ordering: the order in which a search visits a node's children.

Every search takes ``order=`` with one of these names (or a callable):

``"given"``
    The game's own order, ``moves(state)`` as listed.  The default.
``"best-first"``
    Perfect ordering: MAX's children by decreasing value, MIN's by increasing
    value, where "value" is the exact (depth-limited, if the search is) minimax
    or expectimax value.  An oracle: computing it costs a full search, which is
    not counted in the search's statistics.  Chance outcomes keep their order.
``"worst-first"``
    The reverse preference: MAX's children by increasing value, MIN's by
    decreasing value.  Chance outcomes keep their order.
``"random"``
    A seeded shuffle of every node's children (chance outcomes included).
    The permutation at a node depends only on ``seed`` and the node's path, so
    two searches with the same seed see the same ordering.
``"heuristic"``
    By the game's evaluation of each child (EVAL, or UTILITY for a terminal
    child): MAX's children by decreasing, MIN's by increasing estimate.
``"probability"``
    Chance outcomes by decreasing probability (the likeliest first, which
    tightens a chance node's bounds fastest); MAX's and MIN's children keep
    the game's order.  The outcome ordering of Star2
    (:func:`course.search.star2`), and of ``star1(order="probability")``.

Ties keep the original order.  Whatever the ordering, searches report paths
and moves by the children's *original* indices.

A callable ``order(game, state, path, player)`` may be given instead; it must
return a permutation of ``range(len(game.moves(state)))``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ParameterError
from ..game import Game, Path, Player

__all__ = ["ORDERINGS", "Orderer", "make_orderer"]

ORDERINGS = ("given", "best-first", "worst-first", "random", "heuristic", "probability")

#: ``orderer(state, path, player, n) -> indices``; None means "given".
Orderer = Callable[[Any, Path, Player, int], Sequence[int]]


def make_orderer(
    order: str | Callable | None,
    game: Game,
    *,
    seed: int | None = 0,
    leaf_value: Callable[[Any, int], float | None] | None = None,
    estimate: Callable[[Any], float] | None = None,
) -> Orderer | None:
    """Build the per-node ordering function for a search (None for ``"given"``).

    Parameters
    ----------
    order : str or callable or None
        One of :data:`ORDERINGS`, or a callable (see the module docstring).
    game : Game
    seed : int, optional
        Seed of the ``"random"`` ordering.
    leaf_value : callable, optional
        ``leaf_value(state, depth)`` returns the value of a state the search
        treats as a leaf, or None for a state it expands.  ``"best-first"`` and
        ``"worst-first"`` use it so that "value" means the same depth-limited
        value the search computes.  Default: terminal states only.
    estimate : callable, optional
        ``estimate(state)``, the static value ``"heuristic"`` sorts by: UTILITY
        of a terminal state, the search's EVAL otherwise.  Default: the game's.

    Raises
    ------
    ParameterError
        For an unknown ordering name.
    """
    if order is None or order == "given":
        return None
    if callable(order):
        return _checked_callable(order, game)
    if order == "random":
        return _random_orderer(seed)
    if order == "heuristic":
        if estimate is None:
            def estimate(state):
                return game.utility(state) if game.is_terminal(state) else game.evaluate(state)
        return _heuristic_orderer(game, estimate)
    if order == "probability":
        return _probability_orderer(game)
    if order in ("best-first", "worst-first"):
        if leaf_value is None:
            def leaf_value(state, depth):
                return game.utility(state) if game.is_terminal(state) else None
        return _value_orderer(game, leaf_value, best=(order == "best-first"))
    raise ParameterError(f"unknown move ordering {order!r}; choose one of {', '.join(ORDERINGS)}")


def _checked_callable(order: Callable, game: Game) -> Orderer:
    def orderer(state, path, player, n):
        result = list(order(game, state, path, player))
        if sorted(result) != list(range(n)):
            raise ParameterError(
                f"move ordering returned {result!r}, not a permutation of range({n})", path=path
            )
        return result

    return orderer


def _random_orderer(seed: int | None) -> Orderer:
    def orderer(state, path, player, n):
        indices = list(range(n))
        # A string seed is hashed with SHA-512: stable across runs and platforms.
        random.Random(f"{seed}/{','.join(map(str, path))}").shuffle(indices)
        return indices

    return orderer


def _heuristic_orderer(game: Game, estimate: Callable[[Any], float]) -> Orderer:
    def orderer(state, path, player, n):
        if player is Player.CHANCE:
            return range(n)
        estimates = [estimate(game.result(state, move)) for move in game.moves(state)]
        sign = -1 if player is Player.MAX else 1
        return sorted(range(n), key=lambda i: sign * estimates[i])

    return orderer


def _probability_orderer(game: Game) -> Orderer:
    def orderer(state, path, player, n):
        if player is not Player.CHANCE:
            return range(n)
        probabilities = [p for _, p in game.chance_outcomes(state)]
        return sorted(range(n), key=lambda i: -probabilities[i])     # stable: ties keep order

    return orderer


def _value_orderer(game: Game, leaf_value: Callable, *, best: bool) -> Orderer:
    memo: dict[Path, float] = {}

    def value(state, path, depth):
        known = memo.get(path)
        if known is not None:
            return known
        v = leaf_value(state, depth)
        if v is None:
            player = game.turn(state)
            moves = game.moves(state)
            if player is Player.CHANCE:
                v = 0.0
                for i, (move, p) in enumerate(game.chance_outcomes(state)):
                    v += p * value(game.result(state, move), path + (i,), depth + 1)
            else:
                values = [value(game.result(state, m), path + (i,), depth + 1) for i, m in enumerate(moves)]
                v = max(values) if player is Player.MAX else min(values)
        memo[path] = v
        return v

    def orderer(state, path, player, n):
        if player is Player.CHANCE:
            return range(n)
        depth = len(path)
        moves = game.moves(state)
        values = [value(game.result(state, m), path + (i,), depth + 1) for i, m in enumerate(moves)]
        prefer_high = (player is Player.MAX) == best
        sign = -1 if prefer_high else 1
        return sorted(range(n), key=lambda i: sign * values[i])

    return orderer
