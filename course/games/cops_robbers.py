"""Cops & Robbers: the pursuit game on which the BAB paper measures its pruning.

Atzmon, Stern & Saffidine (2018) evaluate Bounded Alpha-Beta on a cops and
robbers scenario taken from Moldenhauer & Sturtevant (2009).  This module
builds that game so that every search of the course runs on it.

The board and the players
-------------------------
* A ``width`` x ``height`` grid, 4-connected: a cell's neighbours are the cells
  directly north, east, south and west of it.  A fraction ``obstacles`` of the
  cells may be blocked; they are drawn at random (seeded), and a cell is only
  blocked if the free cells stay connected.
* One robber (the MAX player) and ``cops`` cops (together the MIN player)
  start on distinct free cells drawn at random (seeded).  Cops may share cells
  later.
* The robber moves first.  A *move* is a direction: ``"stay"``, ``"N"``,
  ``"E"``, ``"S"`` or ``"W"``, always in that order, and only onto free cells
  of the grid; staying put is always possible.
* Then all cops move at once: MIN's move is a *joint move*, a tuple with one
  direction per cop, so MIN has the product of the cops' options (up to
  5 x 5 x 5 = 125 for three cops), listed in lexicographic order.
* A *round* is the robber's move followed by the cops' joint move.

Score (a precise version of the paper's)
----------------------------------------
The game ends as soon as a cop stands on the robber's cell (after the cops'
move, or after the robber walked onto a cop), or when ``time_limit`` rounds
have been played without a capture.  The utility is the number of the round
in which the game ended: a capture in round ``k`` scores ``k``, and a robber
still free after ``time_limit`` rounds scores ``time_limit`` (surviving counts
the same as being caught in the very last round).  So every utility lies in
``[vmin, vmax] = [0, time_limit]``; the default ``time_limit = 12`` gives the
paper's bounds ``[0, 12]``.

For depth-limited search, :meth:`CopsAndRobbers.evaluate` estimates the score
of a position as the number of rounds completed so far plus the average
Manhattan distance from the cops to the robber, cut at ``vmax``: the paper's
heuristic, shifted by the time already spent so that it is measured in the
same unit as the utilities, and never outside the bounds.

How this differs from the paper: the paper scores a game by how long the
cops take to catch the robber, without saying in which unit, and values its
horizon states by the average Manhattan distance alone; it gives ``vmax = 12`` as the largest Manhattan distance on the 6 x 6
grid (that distance is 10) and puts no limit on the game's length, so a late
capture or a far-away horizon state could score above its own ``vmax``.
Here time is counted in rounds, the horizon estimate adds the elapsed rounds
to the distance, and the time limit makes ``[0, time_limit]`` a true bound on
every utility and every estimate, as BAB requires (its Definition 1).

Stochastic variant
------------------
With ``stochastic=True`` a chosen move may slip, as in the paper's stochastic
C&R: the chosen move happens with probability ``p`` and each other legal move
of the same player with probability ``(1 - p) / (b - 1)``, ``b`` being that
player's number of legal moves (joint moves for the cops).  Each decision then
leads to a CHANCE state (``turn() == Player.CHANCE``) whose outcomes are the
player's legal moves in the usual order.  Outcomes of probability 0 (when
``p = 1``) are left out.

Arithmetic is exact: probabilities and estimates are :class:`fractions.Fraction`
values (a float ``p`` is read as the decimal it prints as, 0.8 as 4/5), so
expectimax, Star1 and BAB add and compare them without rounding.  With
floats, BAB's incrementally updated bounds can cross by a rounding error
(a lower bound one ulp above the upper).

A game tree of plies
--------------------
A *ply* is one decision or one chance event.  A deterministic round takes two
plies, a stochastic one four.  ``depth_limit`` (optional) ends the game that
many plies after the start: such a state is terminal and its utility is its
heuristic estimate, so the game's whole tree is exactly the tree a
depth-limited search would see from the start.  Searches can equally be
given ``depth=``; the horizon is then counted from the search's root.

References
----------
D. Atzmon, R. Stern, A. Saffidine, *Bounded Suboptimal Game Tree Search*, SoCS 2018
    (seed 000): "Domains" and "Experimental results" (the C&R settings: 6 x 6,
    3 cops, 20% obstacles, p = 0.8, depths 1 to 7, bounds [0, 12]).
C. Moldenhauer, N. R. Sturtevant, *Evaluating strategies for running from the
    cops*, IJCAI 2009.

Examples
--------
>>> from course.search import bab, star1
>>> game = CopsAndRobbers.from_text('''
...     . . . .
...     . R . .
...     . . . C
... ''')
>>> print(game.render(game.initial_state(), status=True))
. . . .
. R . .
. . . C
round 1 of 12: robber to move
>>> game.evaluate(game.initial_state())      # no round completed, cop 3 steps away
Fraction(3, 1)
>>> result = bab(game, depth=3, epsilon=1)
>>> result.lower <= star1(game, depth=3).value <= result.upper
True
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational, Real
from typing import Any, Union

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["CopsAndRobbers", "CopsRobbersState", "DIRECTIONS"]

Cell = tuple[int, int]
"""A grid cell as ``(row, column)``, row 0 at the top."""

Move = Union[str, tuple[str, ...]]
"""The robber's move is a direction; the cops' move is a tuple of directions."""

#: The directions in the fixed order moves are listed, with their (row, column) steps.
DIRECTIONS: dict[str, Cell] = {"stay": (0, 0), "N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}

_SHORT = {"stay": "-", "N": "N", "E": "E", "S": "S", "W": "W"}


@dataclass(frozen=True, slots=True)
class CopsRobbersState:
    """A position of Cops & Robbers.  Immutable and hashable.

    The grid itself (size, obstacles) belongs to the :class:`CopsAndRobbers`
    game; draw a state with :meth:`CopsAndRobbers.render`.
    """

    robber: Cell
    """The robber's cell."""
    cops: tuple[Cell, ...]
    """Each cop's cell, cop 0 first (the order of the directions in a joint move)."""
    rounds: int
    """Rounds begun: how many times the robber has moved."""
    to_move: Player
    """MAX (the robber) or MIN (the cops); in a CHANCE state, the player whose move is drawn."""
    chosen: Any = None
    """In a CHANCE state, the move the player chose; None in a decision state."""

    @property
    def caught(self) -> bool:
        """True when a cop stands on the robber's cell."""
        return self.robber in self.cops


class CopsAndRobbers(Game[CopsRobbersState, Move]):
    """The BAB paper's Cops & Robbers (rules, score and bounds in the module docstring).

    Parameters
    ----------
    width, height : int, optional
        Grid size, each >= 1 with at least 2 cells in all.  Default 6 x 6.
    cops : int, optional
        Number of cops, >= 1.  Default 3.
    obstacles : float, optional
        Fraction of the cells to block, in ``[0, 1)``; ``round(obstacles *
        width * height)`` cells are blocked.  Default 0 (an open grid).
    seed : int, optional
        Seed of the obstacles and of the starting cells: the same arguments
        give the same game.  Default 0.
    stochastic : bool, optional
        Let chosen moves slip (see the module docstring).  Default False.
    p : float or Fraction, optional
        In the stochastic game, the probability that the chosen move happens;
        ``0 < p <= 1``.  Default 0.8, as in the paper.
    time_limit : int, optional
        Rounds after which the robber has escaped; also ``vmax``.  >= 1,
        default 12 (the paper's ``vmax``).
    depth_limit : int, optional
        If given (>= 1), states this many plies after the start are terminal
        and score their heuristic estimate.  Default None (no such limit).

    Raises
    ------
    ParameterError
        For a parameter of the wrong type or out of range, or when the grid
        cannot hold the obstacles and ``cops + 1`` free starting cells.

    Attributes
    ----------
    vmin, vmax : int
        0 and ``time_limit``.
    blocked : frozenset of Cell
        The obstacles.

    Notes
    -----
    The game is finite, but its whole tree is only searchable on tiny boards
    with a short ``time_limit``: every round multiplies the tree by up to
    5 x 5^cops.  Search the paper's boards with ``depth=`` (or build the game
    with ``depth_limit``).

    Examples
    --------
    >>> game = CopsAndRobbers(width=4, height=3, cops=2, seed=1)
    >>> repr(game)[:55]
    'CopsAndRobbers(width=4, height=3, cops=2, obstacles=0.0'
    >>> eval(repr(game)).initial_state() == game.initial_state()   # the repr rebuilds the game
    True
    >>> print(game.render())
    C . . .
    . . C R
    . . . .
    >>> s = game.initial_state()
    >>> game.turn(s), list(game.moves(s))        # the robber is on the east edge
    (Player.MAX, ['stay', 'N', 'S', 'W'])
    >>> s = game.result(s, "W")
    >>> game.turn(s), len(game.moves(s)), game.moves(s)[:2]   # 3 x 5 joint moves
    (Player.MIN, 15, [('stay', 'stay'), ('stay', 'N')])
    >>> game.describe_move(s, ("stay", "N"))
    'C -,N'
    """

    vmin = 0

    def __init__(
        self,
        width: int = 6,
        height: int = 6,
        cops: int = 3,
        obstacles: float = 0.0,
        seed: int = 0,
        *,
        stochastic: bool = False,
        p: float = 0.8,
        time_limit: int = 12,
        depth_limit: int | None = None,
    ) -> None:
        _check_int("width", width, 1)
        _check_int("height", height, 1)
        _check_int("cops", cops, 1)
        if isinstance(obstacles, bool) or not isinstance(obstacles, Real) or not 0 <= obstacles < 1:
            raise ParameterError(f"obstacles is the fraction of blocked cells, in [0, 1); got {obstacles!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ParameterError(f"seed must be an integer, got {seed!r}")
        cells = width * height
        n_blocked = round(obstacles * cells)
        if cells - n_blocked < cops + 1:
            raise ParameterError(
                f"a {width}x{height} grid with {n_blocked} obstacles has {cells - n_blocked} free cells, "
                f"too few for {cops} cops and the robber; use a larger grid, fewer obstacles or fewer cops"
            )
        rng = random.Random(seed)
        blocked = _random_obstacles(width, height, n_blocked, rng)
        free = sorted((r, c) for r in range(height) for c in range(width) if (r, c) not in blocked)
        start = rng.sample(free, cops + 1)
        self._setup(width, height, blocked, start[0], tuple(start[1:]), stochastic=stochastic, p=p,
                    time_limit=time_limit, depth_limit=depth_limit)
        self.obstacles = obstacles
        self.seed = seed

    @classmethod
    def from_text(
        cls,
        text: str,
        *,
        stochastic: bool = False,
        p: float = 0.8,
        time_limit: int = 12,
        depth_limit: int | None = None,
    ) -> "CopsAndRobbers":
        """Build a game from a map drawn as text, one line per grid row.

        Parameters
        ----------
        text : str
            Cells separated by spaces or not: ``.`` free, ``#`` blocked,
            ``R`` the robber, ``C`` a cop, a digit ``2``-``9`` that many cops on
            one cell.  Exactly one ``R``; cops are numbered row by row.  Blank
            lines and surrounding spaces are ignored.  :meth:`render` writes
            this format.
        stochastic, p, time_limit, depth_limit
            As for the constructor.

        Returns
        -------
        CopsAndRobbers
            The game starting from the drawn position, robber to move.

        Raises
        ------
        ParameterError
            For rows of unequal length, an unknown symbol, no or several
            robbers, or no cop.

        Examples
        --------
        >>> game = CopsAndRobbers.from_text("R C .")
        >>> game.width, game.height, game.initial_state().cops
        (3, 1, ((0, 1),))
        """
        if not isinstance(text, str):
            raise ParameterError(f"a map must be text, got {type(text).__name__}")
        rows = [line.replace(" ", "").replace("\t", "") for line in text.splitlines()]
        rows = [row for row in rows if row]
        if not rows:
            raise ParameterError("the map is empty; draw one grid row per line, e.g. 'R . C'")
        width = len(rows[0])
        if any(len(row) != width for row in rows):
            raise ParameterError(f"map rows have different lengths {[len(r) for r in rows]}; every row "
                                 "needs one symbol per cell")
        blocked, robbers, cops = set(), [], []
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == "#":
                    blocked.add((r, c))
                elif ch == "R":
                    robbers.append((r, c))
                elif ch == "C":
                    cops.append((r, c))
                elif ch in "23456789":
                    cops.extend([(r, c)] * int(ch))
                elif ch != ".":
                    raise ParameterError(f"unknown map symbol {ch!r} in row {r}; use . # R C or a digit 2-9")
        if len(robbers) != 1:
            raise ParameterError(f"the map needs exactly one robber R, found {len(robbers)}")
        if not cops:
            raise ParameterError("the map needs at least one cop: C, or a digit for several on one cell")
        game = cls.__new__(cls)
        game._setup(width, len(rows), frozenset(blocked), robbers[0], tuple(cops), stochastic=stochastic,
                    p=p, time_limit=time_limit, depth_limit=depth_limit)
        game.obstacles = len(blocked) / (width * len(rows))
        game.seed = None
        return game

    def _setup(self, width, height, blocked, robber, cops, *, stochastic, p, time_limit, depth_limit):
        if not isinstance(stochastic, bool):
            raise ParameterError(f"stochastic must be True or False, got {stochastic!r}")
        if isinstance(p, bool) or not isinstance(p, Real) or not 0 < p <= 1:
            raise ParameterError(f"p is the probability that a chosen move happens, 0 < p <= 1; got {p!r}")
        _check_int("time_limit", time_limit, 1)
        if depth_limit is not None:
            _check_int("depth_limit", depth_limit, 1)
        self.width, self.height = width, height
        self.num_cops = len(cops)
        self.blocked = frozenset(blocked)
        self.stochastic = stochastic
        self.p = p
        # Exact arithmetic: a float p is read as the decimal it prints as (0.8 -> 4/5).
        self._p = Fraction(p) if isinstance(p, Rational) else Fraction(repr(float(p)))
        self.time_limit = time_limit
        self.vmax = time_limit
        self.depth_limit = depth_limit
        # options[cell]: the (direction, destination) pairs legal from cell, in DIRECTIONS order.
        self._options: dict[Cell, tuple[tuple[str, Cell], ...]] = {}
        for r in range(height):
            for c in range(width):
                if (r, c) in self.blocked:
                    continue
                self._options[(r, c)] = tuple(
                    (name, (r + dr, c + dc)) for name, (dr, dc) in DIRECTIONS.items()
                    if 0 <= r + dr < height and 0 <= c + dc < width and (r + dr, c + dc) not in self.blocked
                )
        self._names = {cell: tuple(name for name, _ in opts) for cell, opts in self._options.items()}
        self._joint: dict[tuple[Cell, ...], tuple[tuple[str, ...], ...]] = {}
        self._start = self.state_at(robber, cops)

    def __repr__(self) -> str:
        options = f"stochastic={self.stochastic}, p={self.p!r}, time_limit={self.time_limit}, " \
                  f"depth_limit={self.depth_limit}"
        if self.seed is None:
            return f"CopsAndRobbers.from_text({self.render()!r}, {options})"
        return (f"CopsAndRobbers(width={self.width}, height={self.height}, cops={self.num_cops}, "
                f"obstacles={self.obstacles!r}, seed={self.seed}, {options})")

    # -- positions ----------------------------------------------------------------
    def state_at(self, robber: Cell, cops: Iterable[Cell], *, rounds: int = 0,
                 to_move: Player = Player.MAX) -> CopsRobbersState:
        """A decision state with the pieces where you put them, e.g. to search from it.

        Parameters
        ----------
        robber : (row, column)
        cops : sequence of (row, column)
            One cell per cop, exactly as many as the game has cops.
        rounds : int, optional
            Rounds begun so far (the robber's moves), 0 <= rounds <= time_limit.
        to_move : Player, optional
            ``Player.MAX`` (robber, default) or ``Player.MIN`` (cops; then
            ``rounds`` must be at least 1, as the robber has moved).

        Raises
        ------
        ParameterError
            For a cell off the grid or blocked, a wrong number of cops, or
            an impossible ``rounds`` / ``to_move``.

        Examples
        --------
        >>> game = CopsAndRobbers.from_text("R . C")
        >>> game.state_at((0, 1), [(0, 2)]).caught, game.state_at((0, 2), [(0, 2)]).caught
        (False, True)
        """
        robber = self._check_cell("robber", robber)
        cops = tuple(self._check_cell(f"cop {i}", cell) for i, cell in enumerate(cops))
        if len(cops) != self.num_cops:
            raise ParameterError(f"this game has {self.num_cops} cops, got {len(cops)} cells")
        if to_move not in (Player.MAX, Player.MIN):
            raise ParameterError(f"to_move must be Player.MAX (robber) or Player.MIN (cops), got {to_move!r}")
        least = 1 if to_move is Player.MIN else 0
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not least <= rounds <= self.time_limit:
            raise ParameterError(
                f"rounds must be an integer from {least} to time_limit={self.time_limit} "
                f"with {to_move.name} to move, got {rounds!r}"
            )
        return CopsRobbersState(robber, cops, rounds, to_move)

    def _check_cell(self, what: str, cell: Any) -> Cell:
        try:
            r, c = cell
        except (TypeError, ValueError):
            r = c = None
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (r, c)):
            raise ParameterError(f"{what}: a cell is (row, column), two integers; got {cell!r}")
        if (r, c) not in self._options:
            where = "blocked" if (r, c) in self.blocked else "off the grid"
            raise ParameterError(f"{what}: cell {(r, c)} is {where} ({self.width}x{self.height} grid)")
        return (r, c)

    def ply(self, state: CopsRobbersState) -> int:
        """Plies played from the start to ``state`` (decisions and chance events)."""
        chance = state.chosen is not None
        if self.stochastic:
            base = 4 * state.rounds if state.to_move is Player.MAX else 4 * state.rounds - 2
            return base + chance
        return 2 * state.rounds if state.to_move is Player.MAX else 2 * state.rounds - 1

    # -- the Game interface ---------------------------------------------------
    def initial_state(self) -> CopsRobbersState:
        """The starting cells, robber to move, no round played."""
        return self._start

    def turn(self, state: CopsRobbersState) -> Player:
        """MAX for the robber, MIN for the cops, CHANCE while a chosen move may slip."""
        return Player.CHANCE if state.chosen is not None else state.to_move

    def moves(self, state: CopsRobbersState) -> Sequence[Move]:
        """The legal moves of the player to move (or, in a CHANCE state, the possible outcomes).

        The robber's moves are directions in the order ``stay, N, E, S, W``
        (those leading onto free cells); the cops' are tuples of directions,
        one per cop, in lexicographic order of that same order.
        """
        if state.chosen is not None:
            return [move for move, _ in self.chance_outcomes(state)]
        return list(self._legal(state))

    def _legal(self, state: CopsRobbersState) -> tuple[Move, ...]:
        if state.to_move is Player.MAX:
            return self._names[state.robber]
        joint = self._joint.get(state.cops)
        if joint is None:
            joint = tuple(itertools.product(*(self._names[cell] for cell in state.cops)))
            self._joint[state.cops] = joint
        return joint

    def _is_legal(self, state: CopsRobbersState, move: Any) -> bool:
        if state.to_move is Player.MAX:
            return isinstance(move, str) and move in self._names[state.robber]
        return (isinstance(move, tuple) and len(move) == len(state.cops)
                and all(isinstance(d, str) and d in self._names[cell] for cell, d in zip(state.cops, move)))

    def chance_outcomes(self, state: CopsRobbersState) -> Sequence[tuple[Move, Any]]:
        """The outcomes of a chosen move: itself with probability ``p``, each other legal move
        of the same player with ``(1 - p) / (b - 1)``; zero probabilities left out.

        Raises
        ------
        ParameterError
            If ``state`` is not a CHANCE state.
        """
        if state.chosen is None:
            raise ParameterError("chance outcomes exist only in the stochastic game, after a move was chosen")
        legal = self._legal(state)
        b = len(legal)
        if b == 1:
            return [(legal[0], Fraction(1))]
        slip = (1 - self._p) / (b - 1)
        if slip == 0:
            return [(state.chosen, Fraction(1))]
        return [(move, self._p if move == state.chosen else slip) for move in legal]

    def result(self, state: CopsRobbersState, move: Move) -> CopsRobbersState:
        """The state after ``move``: a chosen move (a CHANCE state, if stochastic) or an outcome.

        Raises
        ------
        ParameterError
            If ``move`` is not legal in ``state`` (or not a possible outcome).
        """
        if not self._is_legal(state, move):
            legal = list(self._legal(state))
            shown = legal if len(legal) <= 10 else legal[:10] + ["..."]
            raise ParameterError(
                f"illegal move {move!r} for the {'robber' if state.to_move is Player.MAX else 'cops'}; "
                f"legal here: {shown}"
            )
        if self.stochastic and state.chosen is None:
            return CopsRobbersState(state.robber, state.cops, state.rounds, state.to_move, move)
        if state.to_move is Player.MAX:
            dr, dc = DIRECTIONS[move]
            robber = (state.robber[0] + dr, state.robber[1] + dc)
            return CopsRobbersState(robber, state.cops, state.rounds + 1, Player.MIN)
        cops = tuple((r + DIRECTIONS[d][0], c + DIRECTIONS[d][1]) for (r, c), d in zip(state.cops, move))
        return CopsRobbersState(state.robber, cops, state.rounds, Player.MAX)

    def is_terminal(self, state: CopsRobbersState) -> bool:
        """True after a capture, after ``time_limit`` full rounds, or at ``depth_limit`` plies."""
        if state.robber in state.cops:
            return True
        if state.to_move is Player.MAX and state.chosen is None and state.rounds >= self.time_limit:
            return True
        return self.depth_limit is not None and self.ply(state) >= self.depth_limit

    def utility(self, state: CopsRobbersState) -> int | Fraction:
        """The round in which the game ended (``time_limit`` if the robber escaped).

        At a state ended by ``depth_limit`` it is the heuristic estimate
        (:meth:`evaluate`).  Always in ``[0, time_limit]``.
        """
        if state.robber in state.cops:
            return state.rounds
        if state.to_move is Player.MAX and state.chosen is None and state.rounds >= self.time_limit:
            return self.time_limit
        if self.depth_limit is not None and self.ply(state) >= self.depth_limit:
            return self._estimate(state)
        raise ParameterError(f"utility of a game in progress: {state!r}")

    def evaluate(self, state: CopsRobbersState) -> int | Fraction:
        """EVAL: rounds completed plus the cops' average Manhattan distance, at most ``vmax``.

        A position with the robber to move after ``k`` rounds cannot end
        before round ``k + 1``, and with the cops to move in round ``k`` not
        before round ``k``; the average distance (at least 1 before a capture)
        estimates the remaining rounds, so the estimate is never below the
        earliest possible score.  Terminal states get their utility.

        Returns
        -------
        int or Fraction
            Exact, so that searches that add and compare values (expectimax,
            Star1, BAB) agree to the last digit.

        Examples
        --------
        >>> game = CopsAndRobbers.from_text("R . . C")
        >>> s = game.initial_state()
        >>> game.evaluate(s), game.evaluate(game.result(s, "E"))   # 0 + 3, then 0 + 2
        (Fraction(3, 1), Fraction(2, 1))
        >>> game = CopsAndRobbers.from_text("R . C / C . .".replace("/", chr(10)))
        >>> game.evaluate(game.initial_state())                    # distances 2 and 1
        Fraction(3, 2)
        """
        if self.is_terminal(state):
            return self.utility(state)
        return self._estimate(state)

    def _estimate(self, state: CopsRobbersState) -> Fraction:
        completed = state.rounds if state.to_move is Player.MAX else state.rounds - 1
        rr, rc = state.robber
        distance = Fraction(sum(abs(r - rr) + abs(c - rc) for r, c in state.cops), len(state.cops))
        return min(Fraction(self.vmax), completed + distance)

    def describe_move(self, state: CopsRobbersState, move: Move) -> str:
        """``"R N"`` / ``"R -"`` for the robber, ``"C N,-,W"`` for the cops (``-`` = stay)."""
        if state.to_move is Player.MAX:
            return f"R {_SHORT[move]}"
        return "C " + ",".join(_SHORT[d] for d in move)

    # -- pictures -------------------------------------------------------------------
    def render(self, state: CopsRobbersState | None = None, *, status: bool = False) -> str:
        """The grid as text: ``.`` free, ``#`` blocked, ``R`` robber, ``C`` cop, a digit for
        several cops on one cell, ``*`` a cop on the robber (caught).

        Parameters
        ----------
        state : CopsRobbersState, optional
            Default: the initial state.
        status : bool, optional
            Add a line saying whose turn it is, or how the game ended.

        Returns
        -------
        str
            One line per row, cells separated by spaces; :meth:`from_text`
            reads the grid lines back (a ``*`` excepted).
        """
        state = self.initial_state() if state is None else state
        counts: dict[Cell, int] = {}
        for cell in state.cops:
            counts[cell] = counts.get(cell, 0) + 1
        lines = []
        for r in range(self.height):
            row = []
            for c in range(self.width):
                cell = (r, c)
                if cell in self.blocked:
                    row.append("#")
                elif cell == state.robber:
                    row.append("*" if cell in counts else "R")
                elif cell in counts:
                    row.append("C" if counts[cell] == 1 else str(min(counts[cell], 9)))
                else:
                    row.append(".")
            lines.append(" ".join(row))
        if status:
            lines.append(self._status(state))
        return "\n".join(lines)

    def _status(self, state: CopsRobbersState) -> str:
        if self.is_terminal(state):
            if state.caught:
                return f"caught in round {state.rounds}: score {state.rounds}"
            if state.to_move is Player.MAX and state.chosen is None and state.rounds >= self.time_limit:
                return f"escaped: {self.time_limit} rounds without capture, score {self.time_limit}"
            estimate = Fraction(self.utility(state))
            shown = str(estimate) if estimate.denominator == 1 else f"{estimate} (~{float(estimate):.2f})"
            return f"depth limit reached: estimated score {shown}"
        who = "robber" if state.to_move is Player.MAX else "cops"
        round_number = state.rounds + 1 if state.to_move is Player.MAX else state.rounds
        if state.chosen is not None:
            doing = f"{who} chose {self.describe_move(state, state.chosen)[2:]}, chance decides"
        else:
            doing = f"{who} to move"
        return f"round {round_number} of {self.time_limit}: {doing}"


def _check_int(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ParameterError(f"{name} must be an integer >= {least}, got {value!r}")


def _connected(cells: set[Cell]) -> bool:
    """Are ``cells`` one 4-connected region (True for no cells)?"""
    if not cells:
        return True
    start = next(iter(cells))
    seen = {start}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            nxt = (r + dr, c + dc)
            if nxt in cells and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen) == len(cells)


def _random_obstacles(width: int, height: int, count: int, rng: random.Random) -> frozenset[Cell]:
    """``count`` random cells whose removal leaves the other cells 4-connected.

    Cells are tried in a random order; a cell is blocked unless that would cut
    the free cells in two.  Cells refused once are tried again after later
    obstacles, until ``count`` are placed (always possible: the leaves of a
    spanning tree can be removed one by one).
    """
    free = {(r, c) for r in range(height) for c in range(width)}
    order = sorted(free)
    rng.shuffle(order)
    blocked: set[Cell] = set()
    while len(blocked) < count:
        progress = False
        for cell in order:
            if len(blocked) == count:
                break
            if cell in blocked:
                continue
            free.discard(cell)
            if _connected(free):
                blocked.add(cell)
                progress = True
            else:
                free.add(cell)
        if not progress:  # pragma: no cover - impossible by the spanning-tree argument
            raise ParameterError(f"cannot block {count} cells and keep the free cells connected")
    return frozenset(blocked)
