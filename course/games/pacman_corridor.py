"""Pacman in a corridor: a one-player game where a poor evaluation function freezes the player.

The lecture notes' example of an evaluation-function trap: with an EVAL that
only counts the dots eaten (:meth:`PacmanCorridor.eaten_eval`), eating a dot now
and eating it a move later score the same at the search horizon, so a
depth-limited search that takes the first of equally good moves (``"stop"``)
stands still until the time limit; subtracting the distance to the nearest dot
(:meth:`PacmanCorridor.distance_eval`) fixes it.  Lesson 1 plays it with
:func:`course.analysis.play`.

References
----------
[NOTES] *Adversarial Search (minimax, alpha-beta pruning, expectimax)*, course
    notes (seed 004), "Quality of the evaluation function".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["PacmanCorridor", "CorridorState"]


def _count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


@dataclass(frozen=True)
class CorridorState:
    """Pacman's position, the dots left, and the moves made so far."""

    position: int
    """Pacman's cell, 0 .. length-1."""
    dots: frozenset[int]
    """Cells that still hold a dot."""
    eaten: int = 0
    """Dots eaten so far."""
    time: int = 0
    """Moves made so far."""


class PacmanCorridor(Game[CorridorState, str]):
    """A one-player Pacman in a corridor, the lecture notes' evaluation-function trap.

    Pacman (MAX, the only player) stands in a corridor of ``length`` cells
    and may ``"stop"``, go ``"left"`` or go ``"right"`` (in that order).
    Entering a cell with a dot eats it.  The game ends when every dot is
    eaten or after ``horizon`` moves; the utility is ``10 * eaten - time``.

    Parameters
    ----------
    length : int
        Number of cells, >= 2.
    start : int
        Pacman's starting cell.
    dots : sequence of int
        Cells holding a dot (not ``start``).
    horizon : int
        Maximum number of moves.

    Examples
    --------
    >>> game = PacmanCorridor(length=5, start=2, dots=[3])
    >>> s = game.initial_state()
    >>> game.moves(s), game.eaten_eval(game.result(s, "right"))
    (['stop', 'left', 'right'], 10)

    References
    ----------
    [NOTES], "Quality of the evaluation function".
    """

    MOVES = ("stop", "left", "right")

    def __init__(self, *, length: int = 7, start: int = 3, dots: Sequence[int] = (4,),
                 horizon: int = 20) -> None:
        self.length = _count("length", length, 2)
        if not 0 <= start < length:
            raise ParameterError(f"start must be a cell 0..{length - 1}, got {start!r}")
        dots = frozenset(dots)
        if not dots or any(not 0 <= x < length for x in dots) or start in dots:
            raise ParameterError(
                f"dots must be a non-empty set of cells 0..{length - 1} other than start, got {sorted(dots)}"
            )
        self.start, self.dots = start, dots
        self.horizon = _count("horizon", horizon, 1)
        self.vmin, self.vmax = -horizon, 10 * len(dots)

    def initial_state(self) -> CorridorState:
        return CorridorState(self.start, self.dots)

    def turn(self, state: CorridorState) -> Player:
        return Player.MAX

    def moves(self, state: CorridorState) -> list[str]:
        return list(self.MOVES)

    def result(self, state: CorridorState, move: str) -> CorridorState:
        step = {"stop": 0, "left": -1, "right": 1}[move]
        position = min(max(state.position + step, 0), self.length - 1)
        eaten = position in state.dots
        return CorridorState(position, state.dots - {position}, state.eaten + eaten, state.time + 1)

    def is_terminal(self, state: CorridorState) -> bool:
        return not state.dots or state.time >= self.horizon

    def utility(self, state: CorridorState) -> float:
        return 10 * state.eaten - state.time

    def eaten_eval(self, state: CorridorState) -> float:
        """The notes' first evaluation: 10 points per dot eaten."""
        return 10 * state.eaten

    def distance_eval(self, state: CorridorState) -> float:
        """The notes' fix: also subtract the distance to the nearest dot (weight 1)."""
        nearest = min((abs(x - state.position) for x in state.dots), default=0)
        return 10 * state.eaten - nearest

    def evaluate(self, state: CorridorState) -> float:
        return self.eaten_eval(state)

    def render(self, state: CorridorState) -> str:
        """The corridor as text: ``P`` Pacman, ``o`` a dot, ``.`` an empty cell."""
        return "".join("P" if i == state.position else "o" if i in state.dots else "."
                       for i in range(self.length))
