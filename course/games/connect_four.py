"""Connect four on a board of any size: a game too big to search whole, small enough to study.

Vocabulary
----------
*Board*
    ``width`` columns of ``height`` cells.  Players drop discs into a column; a disc falls to
    the lowest empty cell.  Columns are numbered ``0 .. width - 1`` from the left, rows
    ``0 .. height - 1`` from the bottom.
*State*
    A :class:`ConnectFourState`: the discs of each column, bottom up, as strings of ``"X"``
    and ``"O"``.  Immutable and hashable, so a transposition table can key on it.  X (MAX)
    moves first, so X is to move whenever both have dropped as many discs.
*Move*
    The column to drop into (an ``int``); :meth:`ConnectFour.moves` lists the columns that are
    not full, left to right.
*Utility*
    +1 when X has ``connect`` (default 4) discs in a row (horizontally, vertically or
    diagonally), -1 when O has, 0 for a full board without one.

The standard game is 7 x 6 (solved: the first player wins, Allis 1988).  Smaller boards are
the useful ones here: on 4 x 4 or 5 x 4 a depth-limited alpha-beta search runs in well under a
second in pure Python, and the same position is reached by many move orders (dropping in
column 0 then 3 or in 3 then 0), which is what a transposition table exploits.  A position
always has as many discs as moves were played, so a position recurs only at the same depth,
and the game cannot repeat a position (graph-history interaction does not arise).

:meth:`ConnectFour.evaluate` is the same kind of EVAL as tic-tac-toe's: a weighted count of
the windows (``connect`` cells in a row) that only one player can still complete, a window
with ``k`` of that player's discs worth ``3 ** (k - 1)``, scaled into (-1, 1).

References
----------
L. V. Allis, *A Knowledge-based Approach of Connect-Four*, MSc thesis, Vrije Universiteit
    Amsterdam, 1988 (the standard board is a first-player win).
H. Strass, *Playing Games: Alpha-Beta Tree Search*, TU Dresden 2024 (seed 001): the state-based
    game model, EVAL as a weighted sum of features, transposition tables.

Examples
--------
X to move has two discs in the bottom row; a third in column 3 threatens both ends, which O
cannot both block, so a 3-ply search already sees the win.

>>> from course.search import alphabeta
>>> game = ConnectFour(width=5, height=4)
>>> state = game.play([1, 1, 2, 2])           # X: columns 1 and 2, O on top of them
>>> print(state)
. . . . .
. . . . .
. O O . .
. X X . .
>>> result = alphabeta(game, state, depth=3)
>>> result.value, game.describe_move(state, game.moves(state)[result.move])
(1, 'X column 3')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["ConnectFour", "ConnectFourState"]

_MARKS = ("X", "O")


@lru_cache(maxsize=None)
def _windows(width: int, height: int, connect: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Every run of ``connect`` cells in a row, as ``(column, row)`` pairs."""
    runs = []
    for c in range(width):
        for r in range(height):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                end_c, end_r = c + dc * (connect - 1), r + dr * (connect - 1)
                if 0 <= end_c < width and 0 <= end_r < height:
                    runs.append(tuple((c + dc * k, r + dr * k) for k in range(connect)))
    return tuple(runs)


@lru_cache(maxsize=None)
def _windows_through(width: int, height: int, connect: int) -> dict:
    """For each cell, the windows that contain it."""
    through: dict[tuple[int, int], list] = {}
    for window in _windows(width, height, connect):
        for cell in window:
            through.setdefault(cell, []).append(window)
    return {cell: tuple(ws) for cell, ws in through.items()}


def _cell(columns: Sequence[str], c: int, r: int) -> str:
    column = columns[c]
    return column[r] if r < len(column) else "."


class ConnectFourState:
    """A connect-four position: each column's discs, bottom up.

    Build one with :meth:`ConnectFour.play`, :meth:`ConnectFour.parse` or
    :meth:`ConnectFour.initial_state`.  ``str(state)`` draws the board (top row first) and
    ``repr(state)`` is valid Python.

    Parameters
    ----------
    columns : sequence of str
        One string per column, bottom disc first, of ``"X"`` and ``"O"``.
    height : int
        The number of rows.
    connect : int, optional
        How many in a row win (default 4): needed to know whether the game is over.

    Raises
    ------
    ParameterError
        For a column taller than the board, an unknown disc, or disc counts no game reaches.

    Examples
    --------
    >>> state = ConnectFourState(("X", "", "OX"), height=2)
    >>> print(state)
    . . X
    X . O
    >>> state
    ConnectFourState(('X', '', 'OX'), height=2)
    """

    __slots__ = ("columns", "height", "connect", "winner")

    def __init__(self, columns: Iterable[str], height: int, *, connect: int = 4) -> None:
        columns = tuple(columns)
        if not isinstance(height, int) or isinstance(height, bool) or height < 1:
            raise ParameterError(f"height must be an integer >= 1, got {height!r}")
        for column in columns:
            if not isinstance(column, str) or set(column) - set(_MARKS) or len(column) > height:
                raise ParameterError(
                    f"each column must be a string of at most {height} discs 'X'/'O' (bottom "
                    f"first), got {column!r}"
                )
        x = sum(col.count("X") for col in columns)
        o = sum(col.count("O") for col in columns)
        if not 0 <= x - o <= 1:
            raise ParameterError(f"impossible position: X has {x} discs and O {o}, but X moves "
                                 "first and the players alternate")
        self.columns = columns
        self.height = height
        self.connect = connect
        winners = {mark for window in _windows(len(columns), height, connect)
                   for mark in _MARKS
                   if all(_cell(columns, c, r) == mark for c, r in window)}
        if len(winners) > 1:
            raise ParameterError("impossible position: both players have a line")
        #: ``"X"`` or ``"O"`` if that player has ``connect`` in a row, else None.
        self.winner = winners.pop() if winners else None

    @classmethod
    def _after(cls, state: "ConnectFourState", column: int, mark: str) -> "ConnectFourState":
        """The state after ``mark`` drops into ``column`` (a legal move), winner checked locally."""
        new = object.__new__(cls)
        columns = list(state.columns)
        row = len(columns[column])
        columns[column] += mark
        new.columns = tuple(columns)
        new.height, new.connect = state.height, state.connect
        winner = None
        for window in _windows_through(len(columns), state.height, state.connect)[(column, row)]:
            if all(_cell(new.columns, c, r) == mark for c, r in window):
                winner = mark
                break
        new.winner = winner
        return new

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConnectFourState) and self.columns == other.columns
                and self.height == other.height and self.connect == other.connect)

    def __hash__(self) -> int:
        return hash((self.columns, self.height, self.connect))

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, "winner"):
            raise AttributeError("a ConnectFourState is immutable")
        object.__setattr__(self, name, value)

    @property
    def discs(self) -> int:
        """How many discs are on the board (the number of moves played)."""
        return sum(len(col) for col in self.columns)

    @property
    def to_move(self) -> str:
        """``"X"`` or ``"O"``: who would move next."""
        return "X" if self.discs % 2 == 0 else "O"

    def __str__(self) -> str:
        width = len(self.columns)
        return "\n".join(" ".join(_cell(self.columns, c, r) for c in range(width))
                         for r in range(self.height - 1, -1, -1))

    def __repr__(self) -> str:
        extra = "" if self.connect == 4 else f", connect={self.connect}"
        return f"ConnectFourState({self.columns!r}, height={self.height}{extra})"


class ConnectFour(Game[ConnectFourState, int]):
    """Connect four (X is MAX, O is MIN) on a ``width`` x ``height`` board, ``connect`` to win.

    Parameters
    ----------
    width, height : int, optional
        The board's size; default the standard 7 x 6.
    connect : int, optional
        How many discs in a row win; default 4.  At most ``max(width, height)``.
    start : ConnectFourState or str, optional
        The position :meth:`initial_state` returns (a board as text, see :meth:`parse`).

    Raises
    ------
    ParameterError
        For sizes below 1, ``connect`` below 2 or longer than the board, or a bad ``start``.

    Examples
    --------
    >>> game = ConnectFour(width=5, height=4)
    >>> game
    ConnectFour(width=5, height=4)
    >>> s = game.result(game.initial_state(), 2)
    >>> game.turn(s), game.moves(s), game.describe_move(s, 2)
    (Player.MIN, [0, 1, 2, 3, 4], 'O column 2')

    Notes
    -----
    ``vmin = -1`` and ``vmax = 1``; :meth:`evaluate` stays strictly between them on every
    non-terminal position.
    """

    vmin = -1
    vmax = 1

    def __init__(self, width: int = 7, height: int = 6, *, connect: int = 4,
                 start: ConnectFourState | str | None = None) -> None:
        sizes = (("width", width, 1), ("height", height, 1), ("connect", connect, 2))
        for name, value, low in sizes:
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
        if connect > max(width, height):
            raise ParameterError(
                f"connect={connect} cannot fit on a {width} x {height} board; choose connect <= "
                f"{max(width, height)}"
            )
        self.width, self.height, self.connect = width, height, connect
        windows = _windows(width, height, connect)
        self._weights = tuple([0] + [3 ** (k - 1) for k in range(1, connect)])
        self._scale = len(windows) * self._weights[-1] + 1
        if start is None:
            start = ConnectFourState(("",) * width, height, connect=connect)
        elif isinstance(start, str):
            start = self.parse(start)
        elif not isinstance(start, ConnectFourState):
            raise ParameterError(f"start must be a board string or a ConnectFourState, "
                                 f"got {type(start).__name__}")
        if (len(start.columns), start.height, start.connect) != (width, height, connect):
            raise ParameterError(f"start is a {len(start.columns)} x {start.height} board "
                                 f"(connect {start.connect}), not {width} x {height} "
                                 f"(connect {connect})")
        self.start = start

    def __repr__(self) -> str:
        args = [f"width={self.width}", f"height={self.height}"]
        if self.connect != 4:
            args.append(f"connect={self.connect}")
        if self.start.discs:
            args.append(f"start={str(self.start)!r}")
        return f"ConnectFour({', '.join(args)})"

    # -- the Game interface -----------------------------------------------------------------
    def initial_state(self) -> ConnectFourState:
        """The empty board, or the ``start`` position."""
        return self.start

    def turn(self, state: ConnectFourState) -> Player:
        """MAX when X is to move, MIN when O is."""
        return Player.MAX if state.to_move == "X" else Player.MIN

    def moves(self, state: ConnectFourState) -> list[int]:
        """The columns that are not full, left to right (none once someone has won)."""
        if state.winner is not None:
            return []
        return [c for c, column in enumerate(state.columns) if len(column) < state.height]

    def result(self, state: ConnectFourState, move: int) -> ConnectFourState:
        """The position after the player to move drops a disc into column ``move``.

        Raises
        ------
        ParameterError
            If ``move`` is not a column that has room, or the game is over.
        """
        if state.winner is not None:
            raise ParameterError(f"the game is over ({state.winner} has {state.connect} in a row)")
        if (not isinstance(move, int) or isinstance(move, bool)
                or not 0 <= move < len(state.columns) or len(state.columns[move]) >= state.height):
            raise ParameterError(f"illegal move {move!r}: choose a column with room among "
                                 f"{self.moves(state)} on\n{state}")
        return ConnectFourState._after(state, move, state.to_move)

    def is_terminal(self, state: ConnectFourState) -> bool:
        """True when a player has ``connect`` in a row or the board is full."""
        return state.winner is not None or all(len(c) == state.height for c in state.columns)

    def utility(self, state: ConnectFourState) -> int:
        """+1 if X has a line, -1 if O has, 0 for a full board without one.

        Raises
        ------
        ParameterError
            If the game is not over.
        """
        if state.winner is not None:
            return 1 if state.winner == "X" else -1
        if self.is_terminal(state):
            return 0
        raise ParameterError(f"utility of a game in progress:\n{state}")

    def evaluate(self, state: ConnectFourState) -> Fraction | int:
        """EVAL: the weighted count of windows only one player can still fill, in (-1, 1).

        A window (``connect`` cells in a row) with ``k >= 1`` discs of one player and none of
        the other is worth ``3 ** (k - 1)`` to that player; the sum (X's minus O's) is divided
        by one more than its largest possible size.  UTILITY at a terminal state.

        Examples
        --------
        >>> game = ConnectFour(width=4, height=4)
        >>> game.evaluate(game.play([0]))   # X in a corner: 3 windows, worth 1 each
        Fraction(3, 91)
        """
        if self.is_terminal(state):
            return self.utility(state)
        columns, weights = state.columns, self._weights
        total = 0
        for window in _windows(len(columns), state.height, state.connect):
            x = o = 0
            for c, r in window:
                mark = _cell(columns, c, r)
                if mark == "X":
                    x += 1
                elif mark == "O":
                    o += 1
            if o == 0:
                total += weights[x]
            elif x == 0:
                total -= weights[o]
        return Fraction(total, self._scale)

    def describe_move(self, state: ConnectFourState, move: int) -> str:
        """``"X column 3"``: the mark and the column."""
        return f"{state.to_move} column {move}"

    # -- conveniences --------------------------------------------------------------------------
    def play(self, moves: Iterable[int], state: ConnectFourState | None = None) -> ConnectFourState:
        """The position after dropping discs into ``moves`` in turn (from ``state`` or the start).

        >>> print(ConnectFour(4, 4).play([0, 0, 1]))
        . . . .
        . . . .
        O . . .
        X X . .
        """
        state = self.initial_state() if state is None else state
        for move in moves:
            state = self.result(state, move)
        return state

    def parse(self, text: str) -> ConnectFourState:
        """A position written as rows of ``X``, ``O`` and ``.``, top row first.

        Raises
        ------
        ParameterError
            If the rows do not match the board's size, a disc floats above an empty cell,
            or the position cannot arise.

        Examples
        --------
        >>> game = ConnectFour(4, 4)
        >>> game.parse('''
        ...     . . . .
        ...     . . . .
        ...     . X . .
        ...     X O . .''') == game.play([0, 1, 1])
        True
        """
        rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
        if len(rows) != self.height or any(len(row) != self.width for row in rows):
            raise ParameterError(f"a {self.width} x {self.height} board needs {self.height} rows "
                                 f"of {self.width} cells, got {rows!r}")
        columns = []
        for c in range(self.width):
            column = "".join(rows[self.height - 1 - r][c] for r in range(self.height))
            stacked = column.rstrip(".")
            if "." in stacked or set(stacked) - set(_MARKS):
                raise ParameterError(f"column {c} is not discs stacked from the bottom: {column!r}")
            columns.append(stacked)
        return ConnectFourState(columns, self.height, connect=self.connect)
