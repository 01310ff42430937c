"""Whole-game walks: what a game is worth at every node, how big it is, and how a plan fares.

These take a :class:`~course.game.Game` and walk all of it (no pruning, no
:class:`~course.search.SearchResult`), to give the lessons the facts the
searches are measured against:

* :func:`node_values`: every node's exact (expectimax, hence minimax) value, by path;
* :func:`noisy_evaluation`: an EVAL within a known error of those values (Chen's Proposition 1);
* :func:`count_states`: tree nodes against distinct states (what a transposition table saves);
* :func:`strategy_value`: what MAX's plan under one opponent model earns against another
  (optimism and pessimism);
* :func:`play`: a one-player game played out move by move by a chooser, e.g. a
  depth-limited search on :class:`~course.games.PacmanCorridor`.

References
----------
[NOTES] *Adversarial Search (minimax, alpha-beta pruning, expectimax)*, course
    notes (seed 004): "The dangers of optimism and pessimism".

[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Proposition 1.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Any

from .errors import ParameterError
from .game import Game, Player

__all__ = ["node_values", "noisy_evaluation", "count_states", "strategy_value", "play"]


def node_values(game: Game, state: Any = None, *, depth: int | None = None,
                evaluate: Callable[[Any], Any] | None = None) -> dict[tuple[int, ...], Any]:
    """The exact (expectimax, hence minimax) value of every node, by path.

    Parameters
    ----------
    game : Game
    state : optional
        Root of the computation; default ``game.initial_state()``.
    depth : int, optional
        Treat nodes at this depth as leaves valued by ``evaluate``.
    evaluate : callable, optional
        EVAL at the depth limit; default ``game.evaluate``.

    Returns
    -------
    dict
        ``{path: value}`` for every node down to the leaves (or the depth limit).

    Examples
    --------
    >>> from course import parse_tree
    >>> values = node_values(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    >>> values[()], values[(1,)], values[(2, 0)]
    (3, 2, 14)
    """
    evaluate = game.evaluate if evaluate is None else evaluate
    values: dict[tuple[int, ...], Any] = {}

    def visit(s: Any, path: tuple[int, ...]) -> Any:
        if game.is_terminal(s):
            v = game.utility(s)
        elif depth is not None and len(path) >= depth:
            v = evaluate(s)
        else:
            player = game.turn(s)
            if player is Player.CHANCE:
                v = sum(p * visit(game.result(s, m), path + (i,))
                        for i, (m, p) in enumerate(game.chance_outcomes(s)))
            else:
                kids = [visit(game.result(s, m), path + (i,)) for i, m in enumerate(game.moves(s))]
                v = max(kids) if player is Player.MAX else min(kids)
        values[path] = v
        return v

    visit(game.initial_state() if state is None else state, ())
    return values


def noisy_evaluation(values: dict[tuple[int, ...], Any], e: float, *, seed: int = 0
                     ) -> Callable[[Any], float]:
    """An evaluation function with error at most ``e``: the true value plus uniform noise.

    For studying Chen's Proposition 1 on explicit trees: each node's estimate
    is ``values[node.path] + u`` with ``u`` drawn once per node, uniformly from
    ``[-e, e]``.

    Parameters
    ----------
    values : dict
        ``{path: true value}``, e.g. from :func:`node_values`.
    e : float
        The error bound, >= 0.
    seed : int
        Seed of the noise.

    Returns
    -------
    callable
        ``evaluate(node)`` for nodes of a :class:`~course.trees.TreeGame`.

    Examples
    --------
    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12, 8], [2, 4, 6]])
    >>> v = node_values(g)
    >>> evaluate = noisy_evaluation(v, 0.5, seed=1)
    >>> all(abs(evaluate(g.node(p)) - v[p]) <= 0.5 for p in v)
    True

    References
    ----------
    [CHEN], Proposition 1.
    """
    import random

    if isinstance(e, bool) or not isinstance(e, Real) or not e >= 0:
        raise ParameterError(f"e must be a number >= 0, got {e!r}")
    rng = random.Random(seed)
    noise = {path: rng.uniform(-e, e) for path in sorted(values)}

    def evaluate(node: Any) -> float:
        return values[node.path] + noise[node.path]

    return evaluate


def count_states(game: Game, state: Any = None) -> tuple[int, int]:
    """Count the nodes of the game tree and the distinct states they stand for.

    Parameters
    ----------
    game : Game
        A game whose states are hashable.
    state : optional
        Where to start; default ``game.initial_state()``.

    Returns
    -------
    (nodes, distinct)
        ``nodes`` counts every move sequence separately (the game tree);
        ``distinct`` counts each reachable state once, which is all a
        search with a transposition table has to look at.

    Examples
    --------
    >>> from course import parse_tree
    >>> count_states(parse_tree([[1, 2], [3, 4]]))
    (7, 7)
    """
    seen: set[Any] = set()
    nodes = 0

    def visit(s: Any) -> None:
        nonlocal nodes
        nodes += 1
        seen.add(s)
        if not game.is_terminal(s):
            for m in game.moves(s):
                visit(game.result(s, m))

    visit(game.initial_state() if state is None else state)
    return nodes, len(seen)


_PLANS = ("minimax", "expectimax")
_OPPONENTS = ("adversarial", "random")


def strategy_value(game: Game, *, plan: str, opponent: str) -> Any:
    """Expected payoff of MAX planning with one opponent model while MIN behaves by another.

    MAX fixes its strategy by assuming MIN is adversarial (``plan="minimax"``)
    or picks uniformly at random (``plan="expectimax"``).  That fixed strategy
    is then scored against a MIN who really is adversarial or really is random.

    Parameters
    ----------
    game : Game
        A game without chance nodes (MAX and MIN only).
    plan : {"minimax", "expectimax"}
        MAX's model of MIN.
    opponent : {"adversarial", "random"}
        How MIN really plays.

    Returns
    -------
    number
        MAX's expected payoff.  Ties in MAX's plan go to the first move.

    Raises
    ------
    ParameterError
        For an unknown ``plan`` or ``opponent``, or a chance node in ``game``.

    Examples
    --------
    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> strategy_value(g, plan="minimax", opponent="adversarial")
    3
    >>> strategy_value(g, plan="optimistic", opponent="random")
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: plan must be one of ('minimax', 'expectimax'), got 'optimistic'
    >>> from fractions import Fraction as F
    >>> F(strategy_value(g, plan="expectimax", opponent="random")).limit_denominator()
    Fraction(23, 3)

    References
    ----------
    [NOTES], "The dangers of optimism and pessimism".
    """
    if plan not in _PLANS:
        raise ParameterError(f"plan must be one of {_PLANS}, got {plan!r}")
    if opponent not in _OPPONENTS:
        raise ParameterError(f"opponent must be one of {_OPPONENTS}, got {opponent!r}")

    def children(state):
        return [game.result(state, m) for m in game.moves(state)]

    def model_value(state, model):
        """Value of ``state`` when MIN follows ``model`` and MAX plays its best reply."""
        if game.is_terminal(state):
            return game.utility(state)
        player = game.turn(state)
        if player is Player.CHANCE:
            raise ParameterError("strategy_value handles MAX and MIN nodes only")
        values = [model_value(c, model) for c in children(state)]
        if player is Player.MAX:
            return max(values)
        if model in ("minimax", "adversarial"):
            return min(values)
        return sum(values) / len(values)

    def scored(state):
        """MAX follows its plan; MIN plays as ``opponent``."""
        if game.is_terminal(state):
            return game.utility(state)
        player = game.turn(state)
        kids = children(state)
        if player is Player.MAX:
            planned = [model_value(c, plan) for c in kids]
            return scored(kids[planned.index(max(planned))])
        if player is Player.CHANCE:
            raise ParameterError("strategy_value handles MAX and MIN nodes only")
        values = [scored(c) for c in kids]
        return min(values) if opponent == "adversarial" else sum(values) / len(values)

    return scored(game.initial_state())


def play(game: Game, choose: Callable[[Game, Any], Any], *, steps: int) -> list[Any]:
    """Play a one-player game by asking ``choose(game, state)`` for each move.

    Parameters
    ----------
    game : Game
    choose : callable
        Returns the move to play in a non-terminal state.
    steps : int
        Stop after this many moves (or at a terminal state).

    Returns
    -------
    list
        The states visited, the initial state first.

    Examples
    --------
    >>> from course.games import PacmanCorridor
    >>> game = PacmanCorridor(length=4, start=0, dots=[3])
    >>> states = play(game, lambda g, s: "right", steps=10)
    >>> [game.render(s) for s in states]
    ['P..o', '.P.o', '..Po', '...P']
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ParameterError(f"steps must be an integer >= 0, got {steps!r}")
    state = game.initial_state()
    states = [state]
    for _ in range(steps):
        if game.is_terminal(state):
            break
        state = game.result(state, choose(game, state))
        states.append(state)
    return states
