"""Tic-tac-toe as a state-based game: the course's first complete game tree.

Vocabulary
----------
*Board*
    Nine cells numbered row by row, ``0 1 2 / 3 4 5 / 6 7 8``.  A cell holds
    ``"X"``, ``"O"`` or ``"."`` (empty).
*State*
    A :class:`TicTacToeState`: an immutable, hashable wrapper around the nine
    cells.  Whose turn it is follows from the board: X (the MAX player) moves
    first, so X is to move whenever both have placed the same number of marks.
*Move*
    The index (0..8) of the empty cell the player to move marks.  Moves are
    listed in increasing cell order, so a search's child ``i`` is always the
    ``i``-th empty cell.
*Utility*
    +1 when X completes a line, -1 when O does, 0 for a full board without a
    line (a draw).  So ``vmin = -1`` and ``vmax = 1``.

With perfect play the game is a draw (its minimax value is 0, as the
adversarial-search notes point out), and the complete game tree has 549,946
nodes: 255,168 finished games (leaves) and 294,778 positions where a player
still has to move.  These counts treat every move sequence separately; the
number of *distinct* reachable boards is far smaller (5,478), which is what a
transposition table (Strass 2024) would exploit.

For depth-limited search, :meth:`TicTacToe.evaluate` scores a position by a
weighted count of the lines each player can still complete, one of the
"goal proximity" features Strass's lecture suggests (a line's worth grows
with the marks already on it).

References
----------
H. Strass, *Playing Games: Alpha-Beta Tree Search*, TU Dresden 2024 (seed 001):
    the state-based game model, EVAL as a weighted sum of features, the
    tic-tac-toe goal-proximity example.
*Adversarial Search* course notes (seed 004): the tic-tac-toe tree and its value 0.

Examples
--------
>>> from course.search import alphabeta
>>> game = TicTacToe()
>>> state = TicTacToeState.from_string('''
...     X O X
...     . O .
...     . . .
... ''')
>>> game.turn(state)
Player.MAX
>>> result = alphabeta(game, state)
>>> result.value, game.describe_move(state, game.moves(state)[result.move])
(0, 'X bottom')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["TicTacToe", "TicTacToeState", "LINES", "CELL_NAMES"]

#: The eight winning lines: three rows, three columns, two diagonals.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)

#: Readable names of the cells 0..8, used in move labels.
CELL_NAMES: tuple[str, ...] = (
    "top-left", "top", "top-right",
    "left", "centre", "right",
    "bottom-left", "bottom", "bottom-right",
)

_EMPTY = "."
_EMPTY_INPUT = {".": ".", "-": ".", "_": "."}
_MARK_INPUT = {"x": "X", "o": "O"}

# Worth of a line that only one player can still complete, by the number of
# marks that player already has on it (EVAL's weights; 3 marks = a win).
_LINE_WEIGHTS = (0, 1, 3)
# The largest |sum of line worths|: all eight lines at the top weight.
_EVAL_SCALE = len(LINES) * _LINE_WEIGHTS[-1]


@lru_cache(maxsize=None)
def _winner(cells: str) -> str | None:
    """The player ("X" or "O") with a complete line on ``cells``, else None."""
    for a, b, c in LINES:
        mark = cells[a]
        if mark != _EMPTY and mark == cells[b] == cells[c]:
            return mark
    return None


def _line_count(cells: str) -> Fraction:
    """EVAL of a non-terminal board (see :meth:`TicTacToe.evaluate`)."""
    total = 0
    for a, b, c in LINES:
        line = cells[a] + cells[b] + cells[c]
        x, o = line.count("X"), line.count("O")
        if o == 0:
            total += _LINE_WEIGHTS[x]
        elif x == 0:
            total -= _LINE_WEIGHTS[o]
    return Fraction(total, _EVAL_SCALE)


class _Board:
    """What the game's rules say about one board, worked out once (see :func:`_board`)."""

    __slots__ = ("player", "moves", "terminal", "utility", "evaluation", "children")

    def __init__(self, cells: str) -> None:
        winner = _winner(cells)
        self.player = Player.MAX if cells.count("X") == cells.count("O") else Player.MIN
        self.moves = () if winner is not None else tuple(i for i, ch in enumerate(cells) if ch == _EMPTY)
        self.terminal = winner is not None or _EMPTY not in cells
        self.utility = (1 if winner == "X" else -1) if winner is not None else 0 if self.terminal else None
        self.evaluation = None                  # EVAL, computed when first asked for
        self.children: dict[int, TicTacToeState] = {}   # move -> the (shared) next state


#: Every board the game has been asked about, by its cells.  At most 3**9 entries.
_BOARDS: dict[str, _Board] = {}


def _board(state: "TicTacToeState") -> _Board:
    """The :class:`_Board` of ``state``, analysed on first use."""
    board = _BOARDS.get(state.cells)
    if board is None:
        board = _BOARDS[state.cells] = _Board(state.cells)
    return board


@dataclass(frozen=True, slots=True)
class TicTacToeState:
    """A tic-tac-toe position: nine cells, row by row.

    Build one with :meth:`from_string` (or :meth:`TicTacToe.initial_state`);
    the constructor only checks the cells' characters.  ``str(state)`` shows
    the board as three lines, and ``repr(state)`` is valid Python.

    Examples
    --------
    >>> state = TicTacToeState("X...O....")
    >>> print(state)
    X . .
    . O .
    . . .
    >>> state
    TicTacToeState('X...O....')
    >>> TicTacToeState.from_string(str(state)) == state
    True
    """

    cells: str
    """Nine characters, each ``"X"``, ``"O"`` or ``"."``, for cells 0..8."""

    def __post_init__(self) -> None:
        if not isinstance(self.cells, str) or len(self.cells) != 9 or set(self.cells) - {"X", "O", "."}:
            raise ParameterError(
                f"a tic-tac-toe state needs nine cells of 'X', 'O' or '.', got {self.cells!r}; "
                "use TicTacToeState.from_string for boards written in other ways"
            )

    @classmethod
    def from_string(cls, text: str) -> "TicTacToeState":
        """Read a board written as text, e.g. ``"X O .\\n. X .\\n. . O"``.

        Parameters
        ----------
        text : str
            Nine cell symbols read row by row: ``X`` or ``x``, ``O`` or ``o``,
            and ``.``, ``-`` or ``_`` for an empty cell.  Spaces, newlines and
            the separators ``|``, ``+`` and ``/`` are ignored, so the output of
            ``str(state)``, ``"XO./.X./..O"`` and ``"XO..X...O"`` all work.

        Returns
        -------
        TicTacToeState

        Raises
        ------
        ParameterError
            If the text has another number of cells or an unknown symbol, or
            the position cannot arise in a game: O has more marks than X, X
            has more than one extra, both players have a line, or the player
            with a line was not the last to move.

        Examples
        --------
        >>> TicTacToeState.from_string("x o . / . x . / . . o")
        TicTacToeState('XO..X...O')
        >>> TicTacToeState.from_string("O . . / . . . / . . .")
        Traceback (most recent call last):
            ...
        course.errors.ParameterError: impossible board: O has 1 marks and X 0, but X moves first...
        """
        if not isinstance(text, str):
            raise ParameterError(f"a board must be given as text, got {type(text).__name__}")
        cells = []
        for ch in text:
            if ch.isspace() or ch in "|+/":
                continue
            if ch in _EMPTY_INPUT:
                cells.append(_EMPTY)
            elif ch.lower() in _MARK_INPUT:
                cells.append(_MARK_INPUT[ch.lower()])
            else:
                raise ParameterError(
                    f"unknown symbol {ch!r} in the board {text!r}; use X, O and . (or - or _) for empty"
                )
        if len(cells) != 9:
            raise ParameterError(f"a board has 9 cells, found {len(cells)} in {text!r}")
        state = cls("".join(cells))
        state._check_reachable()
        return state

    def _check_reachable(self) -> None:
        x, o = self.cells.count("X"), self.cells.count("O")
        if not 0 <= x - o <= 1:
            raise ParameterError(
                f"impossible board: O has {o} marks and X {x}, but X moves first and the players "
                "alternate, so X has as many marks as O or one more"
            )
        cells = self.cells
        winners = {cells[a] for a, b, c in LINES if cells[a] != _EMPTY and cells[a] == cells[b] == cells[c]}
        if len(winners) > 1:
            raise ParameterError("impossible board: both players have a complete line")
        if winners == {"X"} and x != o + 1 or winners == {"O"} and x != o:
            raise ParameterError(
                f"impossible board: {winners.pop()} has a line but was not the last to move"
            )

    @property
    def to_move(self) -> str:
        """``"X"`` or ``"O"``: who would move next (X when the counts are equal)."""
        return "X" if self.cells.count("X") == self.cells.count("O") else "O"

    @property
    def winner(self) -> str | None:
        """``"X"`` or ``"O"`` if that player has a complete line, else None."""
        return _winner(self.cells)

    def __str__(self) -> str:
        c = self.cells
        return "\n".join(" ".join(c[r * 3:r * 3 + 3]) for r in range(3))

    def __repr__(self) -> str:
        return f"TicTacToeState({self.cells!r})"


def _unchecked_state(cells: str) -> TicTacToeState:
    """A state for cells known to be valid (a legal move from a valid board), built unchecked."""
    state = object.__new__(TicTacToeState)
    object.__setattr__(state, "cells", cells)
    return state


class TicTacToe(Game[TicTacToeState, int]):
    """Tic-tac-toe: X (MAX) against O (MIN), utilities +1 / 0 / -1 for X.

    Parameters
    ----------
    start : str or TicTacToeState, optional
        The position :meth:`initial_state` returns, as a state or as text for
        :meth:`TicTacToeState.from_string`.  Default: the empty board.  The
        player to move follows from the marks (X when the counts are equal).

    Raises
    ------
    ParameterError
        If ``start`` is not a readable, reachable board.

    Examples
    --------
    >>> game = TicTacToe()
    >>> s = game.result(game.initial_state(), 4)
    >>> game.turn(s), list(game.moves(s))[:3], game.describe_move(s, 0)
    (Player.MIN, [0, 1, 2], 'O top-left')

    Notes
    -----
    ``vmin = -1`` and ``vmax = 1``.  :meth:`evaluate` stays strictly inside
    these bounds on every non-terminal position, so a depth-limited search
    never mistakes an estimate for a certain win or loss.
    """

    vmin = -1
    vmax = 1

    def __init__(self, start: str | TicTacToeState | None = None) -> None:
        if start is None:
            start = TicTacToeState("." * 9)
        elif isinstance(start, str):
            start = TicTacToeState.from_string(start)
        elif isinstance(start, TicTacToeState):
            start._check_reachable()
        else:
            raise ParameterError(
                f"start must be a board string or a TicTacToeState, got {type(start).__name__}"
            )
        self.start = start

    def __repr__(self) -> str:
        if self.start.cells == "." * 9:
            return "TicTacToe()"
        return f"TicTacToe(start={self.start.cells!r})"

    # -- the Game interface ---------------------------------------------------
    # What the rules say about a board (whose turn, the moves, the end, the utility, EVAL and the
    # next boards) is worked out the first time a board is seen and kept (see _Board): a search
    # of the whole tree meets its 5,478 boards 549,946 times.  The next board after a legal move
    # is the same (immutable) state object every time.
    def initial_state(self) -> TicTacToeState:
        """The empty board, or the ``start`` position given to the constructor."""
        return self.start

    def turn(self, state: TicTacToeState) -> Player:
        """MAX when X is to move, MIN when O is."""
        return (_BOARDS.get(state.cells) or _board(state)).player

    def moves(self, state: TicTacToeState) -> Sequence[int]:
        """The empty cells' indices, in increasing order (empty at a terminal state)."""
        return list((_BOARDS.get(state.cells) or _board(state)).moves)

    def result(self, state: TicTacToeState, move: int) -> TicTacToeState:
        """The board after the player to move marks cell ``move``.

        Raises
        ------
        ParameterError
            If ``move`` is not an empty cell's index, or the game is over.
        """
        children = (_BOARDS.get(state.cells) or _board(state)).children
        if type(move) is int:
            child = children.get(move)
            if child is not None:
                return child
        cells = state.cells
        if not isinstance(move, int) or not 0 <= move < 9 or cells[move] != _EMPTY:
            raise ParameterError(f"illegal tic-tac-toe move {move!r}: pick an empty cell 0..8 of\n{state}")
        if _winner(cells) is not None:
            raise ParameterError(f"the game is over ({_winner(cells)} has a line); no move is legal")
        child = _unchecked_state(cells[:move] + state.to_move + cells[move + 1:])
        if type(move) is int:
            children[move] = child
        return child

    def is_terminal(self, state: TicTacToeState) -> bool:
        """True when a player has a line or the board is full."""
        return (_BOARDS.get(state.cells) or _board(state)).terminal

    def utility(self, state: TicTacToeState) -> int:
        """+1 if X has a line, -1 if O has, 0 for a full board without one.

        Raises
        ------
        ParameterError
            If the game is not over in ``state``.
        """
        utility = (_BOARDS.get(state.cells) or _board(state)).utility
        if utility is None:
            raise ParameterError(f"utility of a game in progress: nobody has won yet on\n{state}")
        return utility

    def evaluate(self, state: TicTacToeState) -> Fraction | int:
        """EVAL: the weighted count of open lines, scaled into (-1, 1); UTILITY at the end.

        A line that holds no O is *open for X*; it is worth 1 if it holds one
        X and 3 if it holds two (an empty line is worth 0, for both players).
        Lines open for O count the same, negatively.  The sum lies strictly
        between -24 and 24 (eight lines worth at most 3 each, and no position
        before the end has every line worth 3), so it is divided by 24.

        Returns
        -------
        Fraction or int
            An exact fraction strictly between -1 and 1 for a non-terminal
            state; the utility (-1, 0 or 1) for a terminal one.

        Examples
        --------
        >>> game = TicTacToe()
        >>> game.evaluate(TicTacToeState.from_string("X.. / ... / ..."))  # 3 lines with one X
        Fraction(1, 8)
        >>> game.evaluate(TicTacToeState.from_string("X.. / .O. / ..."))  # 2 lines open for X, 3 for O
        Fraction(-1, 24)
        """
        board = _BOARDS.get(state.cells) or _board(state)
        if board.terminal:
            return board.utility
        if board.evaluation is None:
            board.evaluation = _line_count(state.cells)
        return board.evaluation

    def describe_move(self, state: TicTacToeState, move: int) -> str:
        """``"X centre"``, ``"O top-left"``, ...: the mark and the cell's name."""
        return f"{state.to_move} {CELL_NAMES[move]}"

    # -- conveniences -----------------------------------------------------------
    def parse(self, text: str) -> TicTacToeState:
        """The state written in ``text`` (see :meth:`TicTacToeState.from_string`)."""
        return TicTacToeState.from_string(text)

    def render(self, state: TicTacToeState) -> str:
        """The board as three lines of text (the same as ``str(state)``)."""
        return str(state)
