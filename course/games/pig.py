"""Pig: a dice game small enough to solve exactly, for expectimax and Star1.

Pig is a folk dice game.  The course plays a *finite* two-player variant so
that its whole game tree can be searched in about a second.

Rules
-----
* Two players, MAX and MIN, each with a *banked* score starting at 0.  MAX
  takes the first turn; turns alternate.
* During a turn the player to move has a *turn total*, starting at 0, and
  decides again and again between

  - **roll**: throw a die with ``faces`` equally likely faces 1..faces.
    A 1 loses the turn total and ends the turn.  Any other face is added to
    the turn total, and the player decides again;
  - **hold**: add the turn total to the banked score and end the turn.
    Holding is only allowed with a turn total above 0 (it would be a pass).

* The player whose banked score plus turn total reaches ``target`` wins at
  once (the roll that gets there is banked automatically: holding would be the
  only sensible choice anyway).
* After ``turn_limit`` turns in all (both players' turns count) the game
  stops: the higher banked score wins, equal scores are a draw.

Utilities are +1 when MAX wins, -1 when MIN wins, 0 for a draw, so
``vmin = -1`` and ``vmax = 1``.

Why it is finite: within a turn every roll that does not end it adds at least
2 to the turn total, and the turn ends once the total reaches the target; the
turn limit bounds the number of turns.  :attr:`Pig.max_plies` is the exact
length of the longest game.

In the game tree the die is a CHANCE state of its own: *roll* leads to a
state whose outcomes are the faces, each with probability ``1/faces``, kept as
:class:`fractions.Fraction` so that expectimax and Star1 compute exactly the
same value, digit for digit.

References
----------
H. Strass, *Playing Games: Alpha-Beta Tree Search*, TU Dresden 2024 (seed 001):
    the state-based game model.
*Adversarial Search* course notes (seed 004): chance ("expectation") nodes,
    expectimax, and pruning them with known bounds.
D. Atzmon, R. Stern, A. Saffidine, *Bounded Suboptimal Game Tree Search*, SoCS 2018
    (seed 000): CHANCE nodes as state-action pairs (Definition 1), Star1 / BAB.

Examples
--------
>>> from course.search import expectimax, star1
>>> game = Pig(target=4, faces=3, turn_limit=2)
>>> exact = expectimax(game)
>>> fast = star1(game)
>>> exact.value == fast.value, exact.value
(True, Fraction(2, 27))
>>> fast.evaluated < exact.evaluated
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["Pig", "PigState", "ROLL", "HOLD"]

ROLL = "roll"
"""The move that throws the die."""
HOLD = "hold"
"""The move that banks the turn total and ends the turn."""


@dataclass(frozen=True, slots=True)
class PigState:
    """A moment of a Pig game.  Immutable and hashable.

    Examples
    --------
    >>> game = Pig()
    >>> s = game.result(game.initial_state(), ROLL)
    >>> s.rolling, game.turn(s)
    (True, Player.CHANCE)
    >>> print(game.render(game.result(s, 3)))
    MAX 0, MIN 0; MAX to move with 3 this turn; turn 1 of 4
    """

    max_score: int
    """MAX's banked score."""
    min_score: int
    """MIN's banked score."""
    turn_total: int
    """Points the player to move has gathered this turn but not banked."""
    to_move: Player
    """Whose turn it is (MAX or MIN); while the die rolls, the player who threw it."""
    rolling: bool
    """True for the CHANCE state in which the die is in the air."""
    turns_done: int
    """Turns completed so far (both players' turns count)."""


class Pig(Game[PigState, object]):
    """A finite two-player Pig with a die as chance nodes (rules in the module docstring).

    Parameters
    ----------
    target : int, optional
        Banked score (with the turn total) that wins at once; >= 2.  Default 6.
    faces : int, optional
        Faces of the die, 1..faces, equally likely; >= 2.  Default 4.
    turn_limit : int, optional
        Turns in all (MAX's and MIN's together) before the game stops and the
        scores are compared; >= 1.  Default 4, two turns each.

    Raises
    ------
    ParameterError
        If a parameter is not an integer in its range.

    Examples
    --------
    >>> game = Pig()
    >>> s = game.initial_state()
    >>> game.turn(s), list(game.moves(s))        # no hold with nothing to bank
    (Player.MAX, ['roll'])
    >>> s = game.result(s, ROLL)
    >>> [(face, str(p)) for face, p in game.chance_outcomes(s)]
    [(1, '1/4'), (2, '1/4'), (3, '1/4'), (4, '1/4')]
    >>> s = game.result(s, 3)
    >>> list(game.moves(s)), game.evaluate(s)
    (['roll', 'hold'], Fraction(1, 2))

    Notes
    -----
    The defaults give a tree of 39,435 nodes, which expectimax and Star1
    each solve in under a second.  The tree grows quickly with ``target`` and
    ``turn_limit``: keep them small.
    """

    vmin = -1
    vmax = 1

    def __init__(self, target: int = 6, faces: int = 4, turn_limit: int = 4) -> None:
        for name, value, least in (("target", target, 2), ("faces", faces, 2),
                                   ("turn_limit", turn_limit, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ParameterError(f"Pig {name} must be an integer >= {least}, got {value!r}")
        self.target = target
        self.faces = faces
        self.turn_limit = turn_limit
        self._outcomes = tuple((face, Fraction(1, faces)) for face in range(1, faces + 1))

    def __repr__(self) -> str:
        return f"Pig(target={self.target}, faces={self.faces}, turn_limit={self.turn_limit})"

    @property
    def max_plies(self) -> int:
        """The length, in plies (decisions and die rolls), of the longest possible game.

        A turn that does not end the game rolls at most ``ceil(target/2) - 1``
        times without reaching the target (every such roll adds at least 2),
        then ends with one more roll or a hold: at most ``2 * ceil(target/2)``
        plies.  All ``turn_limit`` turns can be that long (roll 2s, then a 1).
        """
        return self.turn_limit * 2 * -(-self.target // 2)

    # -- the Game interface ---------------------------------------------------
    def initial_state(self) -> PigState:
        """Both scores 0, MAX to move with an empty turn total."""
        return PigState(0, 0, 0, Player.MAX, False, 0)

    def turn(self, state: PigState) -> Player:
        """CHANCE while the die rolls, else the player whose turn it is."""
        return Player.CHANCE if state.rolling else state.to_move

    def moves(self, state: PigState) -> Sequence[object]:
        """``["roll", "hold"]`` (just ``["roll"]`` with a zero turn total), or the die faces."""
        if state.rolling:
            return [face for face, _ in self._outcomes]
        return [ROLL, HOLD] if state.turn_total > 0 else [ROLL]

    def chance_outcomes(self, state: PigState) -> Sequence[tuple[int, Fraction]]:
        """``[(1, 1/faces), (2, 1/faces), ...]`` while the die rolls.

        Raises
        ------
        ParameterError
            If ``state`` is not a CHANCE state.
        """
        if not state.rolling:
            raise ParameterError(f"no die is rolling in {state!r}; chance outcomes exist after 'roll'")
        return list(self._outcomes)

    def result(self, state: PigState, move: object) -> PigState:
        """The state after ``move``: ``"roll"``/``"hold"``, or a die face while rolling.

        Raises
        ------
        ParameterError
            If ``move`` is not legal in ``state``.
        """
        if state.rolling:
            if not isinstance(move, int) or not 1 <= move <= self.faces:
                raise ParameterError(f"a die with {self.faces} faces cannot show {move!r}")
            if move == 1:
                return self._end_turn(state, banked=0)
            total = state.turn_total + move
            if self._banked(state) + total >= self.target:
                return self._end_turn(state, banked=total)       # reaching the target wins
            return PigState(state.max_score, state.min_score, total, state.to_move, False,
                            state.turns_done)
        if move == ROLL:
            return PigState(state.max_score, state.min_score, state.turn_total, state.to_move, True,
                            state.turns_done)
        if move == HOLD and state.turn_total > 0:
            return self._end_turn(state, banked=state.turn_total)
        raise ParameterError(f"illegal Pig move {move!r} in {state!r}; legal: {list(self.moves(state))}")

    def is_terminal(self, state: PigState) -> bool:
        """True once a player has reached the target or the turn limit is used up."""
        return (max(state.max_score, state.min_score) >= self.target
                or state.turns_done >= self.turn_limit)

    def utility(self, state: PigState) -> int:
        """+1 if MAX won, -1 if MIN won, 0 for a draw (equal scores at the turn limit)."""
        if not self.is_terminal(state):
            raise ParameterError(f"utility of a game in progress: {state!r}")
        return (state.max_score > state.min_score) - (state.max_score < state.min_score)

    def evaluate(self, state: PigState) -> Fraction | int:
        """EVAL: the lead in points, counting the turn total, as a fraction of the target.

        ``(a - b) / target`` where ``a`` is MAX's banked score plus the turn
        total if it is MAX's turn, and ``b`` the same for MIN.  Both are below
        the target before the game ends, so the estimate is strictly between
        -1 and 1; a terminal state gets its utility.
        """
        if self.is_terminal(state):
            return self.utility(state)
        a, b = state.max_score, state.min_score
        if state.to_move is Player.MAX:
            a += state.turn_total
        else:
            b += state.turn_total
        return Fraction(a - b, self.target)

    def describe_move(self, state: PigState, move: object) -> str:
        """``"roll"``, ``"hold"``, or the face shown: ``"rolled 4"`` / ``"rolled 1: turn lost"``."""
        if state.rolling:
            return "rolled 1: turn lost" if move == 1 else f"rolled {move}"
        return str(move)

    def end_reason(self, state: PigState) -> str:
        """Why a finished game ended, in words ("" while it goes on).

        Examples
        --------
        >>> game = Pig(target=6, turn_limit=2)
        >>> game.end_reason(PigState(6, 2, 0, Player.MIN, False, 1))
        'MAX reached the target 6'
        >>> game.end_reason(PigState(4, 2, 0, Player.MAX, False, 2))
        'the turn limit (2 turns) is used up and MAX has more points, 4 to 2 (the target 6 was not reached)'
        >>> game.end_reason(PigState(3, 3, 0, Player.MAX, False, 2))
        'the turn limit (2 turns) is used up with equal scores, 3 to 3: a draw'
        """
        if not self.is_terminal(state):
            return ""
        for player, score in ((Player.MAX, state.max_score), (Player.MIN, state.min_score)):
            if score >= self.target:
                return f"{player.name} reached the target {self.target}"
        limit = f"the turn limit ({self.turn_limit} turn{'s' if self.turn_limit != 1 else ''}) is used up"
        a, b = state.max_score, state.min_score
        if a == b:
            return f"{limit} with equal scores, {a} to {b}: a draw"
        leader = "MAX" if a > b else "MIN"
        return (f"{limit} and {leader} has more points, {max(a, b)} to {min(a, b)} "
                f"(the target {self.target} was not reached)")

    # -- helpers ----------------------------------------------------------------
    def render(self, state: PigState) -> str:
        """One line of text: the scores, whose turn, the turn total and the turn count."""
        scores = f"MAX {state.max_score}, MIN {state.min_score}"
        if self.is_terminal(state):
            outcome = {1: "MAX wins", -1: "MIN wins", 0: "draw"}[self.utility(state)]
            return f"{scores}; game over: {outcome} ({self.end_reason(state)})"
        player = state.to_move.name
        doing = "rolling" if state.rolling else "to move"
        return (f"{scores}; {player} {doing} with {state.turn_total} this turn; "
                f"turn {state.turns_done + 1} of {self.turn_limit}")

    def _banked(self, state: PigState) -> int:
        return state.max_score if state.to_move is Player.MAX else state.min_score

    def _end_turn(self, state: PigState, *, banked: int) -> PigState:
        max_score, min_score = state.max_score, state.min_score
        if state.to_move is Player.MAX:
            max_score += banked
        else:
            min_score += banked
        return PigState(max_score, min_score, 0, state.to_move.opponent(), False, state.turns_done + 1)
