"""The state-based game model every search in the course is written against.

A *game* (Strass 2024, "state-based game model"; Atzmon, Stern & Saffidine
2018, Definition 1) is a set of states with an initial state and these
functions, which :class:`Game` names in Python:

====================  ==============================  =====================================
Seeds                 :class:`Game` method            meaning
====================  ==============================  =====================================
TURN(s)               ``turn(state)``                 :attr:`Player.MAX`, ``MIN`` or ``CHANCE``
MOVES(s)              ``moves(state)``                the legal moves (or chance outcomes)
RESULT(s, m)          ``result(state, move)``         the next state
IS-TERMINAL(s)        ``is_terminal(state)``          has the game ended?
UTILITY(s)            ``utility(state)``              the payoff for MAX at a terminal state
P(s, a, s')           ``chance_outcomes(state)``      ``[(move, probability), ...]``
v_min, v_max          ``vmin``, ``vmax``              known bounds on every utility
EVAL(s)               ``evaluate(state)``             heuristic estimate for depth-limited search
====================  ==============================  =====================================

A CHANCE state is "a state-action pair" of Definition 1: its moves are the
possible outcomes, each with a known probability.  Because the searches only
use these methods, one implementation serves every game: explicit trees
(:mod:`course.trees`), tic-tac-toe, Pig, Cops & Robbers and the random-tree
generators (:mod:`course.games`).

Moves are identified in search results by their *index* in ``moves(state)``,
so a leaf is named by its *path*, the tuple of indices from the root.  The
order of ``moves(state)`` must therefore be deterministic.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

__all__ = ["Player", "Game", "GameView", "Path"]

S = TypeVar("S")
M = TypeVar("M", bound=Hashable)

#: A node's position in a game tree: child indices from the root.
Path = tuple[int, ...]


class Player(enum.Enum):
    """Whose turn it is in a state."""

    MAX = "max"
    """The maximising player; utilities are MAX's payoffs."""
    MIN = "min"
    """The minimising player."""
    CHANCE = "chance"
    """Nature: the next state is drawn with known probabilities."""

    def opponent(self) -> "Player":
        """MAX for MIN and MIN for MAX (a ValueError for CHANCE)."""
        if self is Player.MAX:
            return Player.MIN
        if self is Player.MIN:
            return Player.MAX
        raise ValueError("CHANCE has no opponent")

    def __repr__(self) -> str:
        return f"Player.{self.name}"


class Game(ABC, Generic[S, M]):
    """Abstract two-player zero-sum game with chance and perfect information.

    Subclasses implement the abstract methods; :meth:`chance_outcomes` only
    needs overriding by games with chance, and :meth:`evaluate` only by games
    searched to a depth limit.

    Attributes
    ----------
    vmin, vmax : float
        Known lower and upper bounds on every utility (Definition 1 of the
        BAB paper).  Bounded searches (Star1, BAB) rely on them; exact searches
        ignore them.
    """

    vmin: float = float("-inf")
    vmax: float = float("inf")

    @abstractmethod
    def initial_state(self) -> S:
        """Return the state the game starts in (s_1, S_0 in the seeds)."""

    @abstractmethod
    def turn(self, state: S) -> Player:
        """Return whose turn it is in a non-terminal ``state`` (TURN)."""

    @abstractmethod
    def moves(self, state: S) -> Sequence[M]:
        """Return the legal moves in a non-terminal ``state`` (MOVES), in a fixed order.

        For a CHANCE state these are the outcomes, in the same order as
        :meth:`chance_outcomes`.
        """

    @abstractmethod
    def result(self, state: S, move: M) -> S:
        """Return the state reached by playing ``move`` in ``state`` (RESULT)."""

    @abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Return True when the game has ended in ``state`` (IS-TERMINAL)."""

    @abstractmethod
    def utility(self, state: S) -> float:
        """Return MAX's payoff in a terminal ``state`` (UTILITY)."""

    def chance_outcomes(self, state: S) -> Sequence[tuple[M, float]]:
        """Return ``[(outcome, probability), ...]`` for a CHANCE ``state``.

        The default raises, which is right for games without chance.
        """
        raise NotImplementedError(f"{type(self).__name__} has no chance nodes")

    def evaluate(self, state: S) -> float:
        """Heuristic value of a non-terminal ``state`` for MAX (EVAL).

        Used by depth-limited searches.  The default is the utility of a
        terminal state and an error otherwise.
        """
        if self.is_terminal(state):
            return self.utility(state)
        raise NotImplementedError(
            f"{type(self).__name__} has no evaluation function; pass evaluate=... "
            "to the search or search without a depth limit"
        )

    def describe_move(self, state: S, move: M) -> str:
        """A short label for ``move`` in ``state`` (used on drawn edges)."""
        return str(move)


class GameView(Game[S, M]):
    """Another game seen through: every method asks the wrapped game.

    A subclass overrides only what its view changes (an EVAL added, chance outcomes listed in
    another order, labels with counts) and keeps the wrapped game's bounds.

    Parameters
    ----------
    game : Game
        The game shown.

    Examples
    --------
    >>> from course.examples import aima_figure_5_2
    >>> inner = aima_figure_5_2()
    >>> view = GameView(inner)
    >>> view.moves(view.initial_state()) == inner.moves(inner.initial_state())
    True
    """

    def __init__(self, game: Game[S, M]) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"{type(self).__name__} needs a course Game, got {type(game).__name__}")
        self.game = game
        self.vmin, self.vmax = game.vmin, game.vmax

    def initial_state(self) -> S:
        return self.game.initial_state()

    def turn(self, state: S) -> Player:
        return self.game.turn(state)

    def moves(self, state: S) -> Sequence[M]:
        return self.game.moves(state)

    def chance_outcomes(self, state: S) -> Sequence[tuple[M, float]]:
        return self.game.chance_outcomes(state)

    def result(self, state: S, move: M) -> S:
        return self.game.result(state, move)

    def is_terminal(self, state: S) -> bool:
        return self.game.is_terminal(state)

    def utility(self, state: S) -> float:
        return self.game.utility(state)

    def evaluate(self, state: S) -> float:
        return self.game.evaluate(state)

    def describe_move(self, state: S, move: M) -> str:
        return self.game.describe_move(state, move)
