"""OpenSpiel's games as course games: every course search, and every student's, on them.

`OpenSpiel <https://github.com/google-deepmind/open_spiel>`_ (DeepMind) is a collection of
games written in C++ with Python bindings (the ``pyspiel`` module of the ``open_spiel``
package): tic-tac-toe, connect four, Pig, backgammon, chess, go, hex, ... :class:`OpenSpielGame`
wraps one of them in the course's :class:`~course.game.Game` interface, so that
:func:`course.search.minimax`, :func:`~course.search.alphabeta`,
:func:`~course.search.expectimax`, :func:`~course.search.star1`, :func:`~course.search.bab`
and every exercise's function (which only use that interface) run on it unchanged.

Vocabulary
----------
*pyspiel game*
    ``pyspiel.load_game("connect_four")``: the rules.  Any game whose type is sequential
    (one player moves at a time), of perfect information, with one or two players and with
    no chance or *explicit* chance (every outcome listed with its probability) can be adapted.
*State*
    A ``pyspiel.State``, used as an opaque value: the adapter never changes one
    (``result`` returns a new state), and neither should a search.
*Move*
    An OpenSpiel *action*, an integer: ``moves(state)`` is ``state.legal_actions()`` at a
    decision, the outcomes of ``state.chance_outcomes()`` at a chance node, in OpenSpiel's
    order.  Searches name a move by its index in that list, as for every course game.
*MAX*
    OpenSpiel player ``max_player`` (default 0, the player who moves first); the other player
    is MIN; OpenSpiel's chance player is CHANCE.  The utility is MAX's return
    (``state.player_return(max_player)``), so ``vmin``/``vmax`` are the game's
    ``min_utility()``/``max_utility()``.  In a game that is not zero-sum, MIN is taken to play
    against MAX: the value is what MAX can guarantee.

Depth limits
------------
A course search's ``depth=d`` counts every level of the tree, chance nodes included.
OpenSpiel's ``expectiminimax`` counts only decisions; :meth:`OpenSpielGame.decisions_cutoff`
gives a ``cutoff=`` that does the same.  At the horizon the search calls ``evaluate``: pass an
evaluation function (state -> MAX's estimated value) to the search or to the adapter
(:func:`open_lines_evaluation` is one for tic-tac-toe, connect four and other
k-in-a-row boards).

Where it works
--------------
``pip install '.[openspiel]'`` in the course folder installs ``open_spiel`` where PyPI has a
wheel for it: Python 3.11 or newer on Linux (x86-64, ARM64), macOS on Apple silicon and
Windows (x86-64).  Elsewhere (Python 3.10, Intel Macs, the JupyterLite edition) this module
still imports, :func:`available` is False, :func:`missing_reason` says why and what to do, and
:class:`OpenSpielGame` raises :class:`OpenSpielUnavailable` with that message.

Examples
--------
Examples that need OpenSpiel are marked ``+SKIP`` (they cannot run everywhere);
``tests/test_openspiel.py`` runs them where OpenSpiel is installed.

>>> from course.games.openspiel import OpenSpielGame
>>> from course.search import alphabeta
>>> game = OpenSpielGame("tic_tac_toe")                   # doctest: +SKIP
>>> result = alphabeta(game)                              # doctest: +SKIP
>>> result.value, result.expanded + result.evaluated      # doctest: +SKIP
(0, 18297)
>>> root = game.initial_state()                           # doctest: +SKIP
>>> game.describe_move(root, game.moves(root)[result.move])   # doctest: +SKIP
'x(0,0)'
"""

from __future__ import annotations

import importlib
import math
import platform
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..game import Game, Player

__all__ = ["OpenSpielGame", "OpenSpielUnavailable", "OpenSpielResult", "available", "missing_reason",
           "open_lines_evaluation", "openspiel_search", "INSTALL"]

INSTALL = "pip install '.[openspiel]'"
"""The command, run in the course folder, that installs OpenSpiel where it has wheels."""

_CHANCE, _TERMINAL = -1, -4          # pyspiel.PlayerId.CHANCE, pyspiel.PlayerId.TERMINAL


class OpenSpielUnavailable(ModuleNotFoundError):
    """OpenSpiel (``pyspiel``) cannot be imported here; the message says why and what to do."""


def missing_reason(*, system: str | None = None, machine: str | None = None,
                   python: tuple[int, int] | None = None) -> str:
    """One line: why OpenSpiel is not available on this machine, and the fix.

    Parameters
    ----------
    system, machine, python : optional
        ``sys.platform``, ``platform.machine()`` and ``sys.version_info[:2]``; default: this
        machine's (given only to show the message for another one).

    Examples
    --------
    >>> missing_reason(system="linux", machine="x86_64", python=(3, 10))[:62]
    "OpenSpiel's wheels need Python 3.11 or newer, and this is 3.10"
    >>> "JupyterLab" in missing_reason(system="emscripten", machine="wasm32", python=(3, 12))
    True
    """
    system = sys.platform if system is None else system
    machine = platform.machine() if machine is None else machine
    python = tuple(sys.version_info[:2]) if python is None else python
    version = f"{python[0]}.{python[1]}"
    if system == "emscripten":
        return ("OpenSpiel is a C++ library with no build for the browser edition (Pyodide): run "
                "this part in JupyterLab on your own machine (make lab) after "
                f"{INSTALL}; everything else in this notebook runs here.")
    if python < (3, 11):
        return (f"OpenSpiel's wheels need Python 3.11 or newer, and this is {version}: make the "
                "course's virtual environment with a newer Python (make clean; make "
                f"PYTHON=python3.11 install) and run {INSTALL}.")
    wheels = (system == "linux" and machine in ("x86_64", "aarch64")
              or system == "darwin" and machine == "arm64"
              or system == "win32" and machine.upper() == "AMD64")
    if not wheels:                    # the same platforms as the openspiel extra's marker
        where = "an Intel Mac" if system == "darwin" else f"{system} on {machine}"
        return ("OpenSpiel publishes wheels for Linux (x86-64, ARM64), macOS on Apple silicon and "
                f"Windows (x86-64) only, and this is {where}: use one of those, or build OpenSpiel "
                "from source (its install guide).")
    return f"OpenSpiel is not installed: run {INSTALL} in the course folder (or pip install open_spiel)."


def _import_pyspiel():
    """``pyspiel``, or :class:`OpenSpielUnavailable` with :func:`missing_reason`."""
    try:
        return importlib.import_module("pyspiel")
    except ModuleNotFoundError as exc:
        if exc.name not in ("pyspiel", "open_spiel"):
            raise OpenSpielUnavailable(f"OpenSpiel is installed but cannot load: {exc}",
                                       name="pyspiel") from exc
        raise OpenSpielUnavailable(missing_reason(), name="pyspiel") from None
    except ImportError as exc:        # installed, but its compiled part does not load here
        raise OpenSpielUnavailable(f"OpenSpiel is installed but cannot load here: {exc}",
                                   name="pyspiel") from exc


def available() -> bool:
    """True if OpenSpiel can be imported here (see :func:`missing_reason` when not).

    >>> isinstance(available(), bool)
    True
    """
    try:
        _import_pyspiel()
    except OpenSpielUnavailable:
        return False
    return True


class OpenSpielGame(Game):
    """A perfect-information OpenSpiel game as a course :class:`~course.game.Game`.

    Parameters
    ----------
    game : str or pyspiel.Game
        A game name such as ``"tic_tac_toe"``, ``"connect_four"`` or
        ``"pig(winscore=8,horizon=6)"``, or a game from ``pyspiel.load_game``.
    params : mapping, optional
        Game parameters, with a name: ``OpenSpielGame("pig", {"winscore": 8})``.
    max_player : int, optional
        The OpenSpiel player who is MAX (0 or 1).  Default 0.
    evaluate : callable, optional
        EVAL: ``evaluate(state)``, MAX's estimated value of a non-terminal state, used by
        depth-limited searches (a search's own ``evaluate=`` takes precedence).  Default: none,
        so a depth-limited search asks for one.
    exact : bool, optional
        Give chance probabilities as fractions (``Fraction(1, 6)``, not ``0.16666666666666666``)
        and whole utilities as integers, so that expectimax, Star1 and BAB compute exactly, as
        on the course's own games (default).  A float is replaced only by the fraction it was
        rounded from (the simplest one with denominator at most 10**6 whose float is that
        float); others stay floats.  With ``exact=False`` OpenSpiel's floats are used as they are.

    Raises
    ------
    OpenSpielUnavailable
        If OpenSpiel cannot be imported here (the message says why and what to do).
    ParameterError
        If the game is not one the course's searches apply to: simultaneous moves, imperfect
        information, sampled chance or more than two players; or an unknown name or bad
        ``max_player``.

    Attributes
    ----------
    pyspiel_game : pyspiel.Game
        The OpenSpiel game.
    max_player : int
    vmin, vmax : float
        The game's ``min_utility()`` and ``max_utility()``.

    Examples
    --------
    >>> from course.search import expectimax, star1
    >>> pig = OpenSpielGame("pig", {"winscore": 4, "horizon": 4})   # doctest: +SKIP
    >>> rolled = pig.result(pig.initial_state(), 0)          # doctest: +SKIP
    >>> pig.turn(rolled), pig.describe_move(rolled, 5)       # doctest: +SKIP
    (Player.CHANCE, 'Roll 6')
    >>> expectimax(pig).value, star1(pig).value             # exact: the die's sixths  # doctest: +SKIP
    (Fraction(137, 216), Fraction(137, 216))

    Notes
    -----
    States are OpenSpiel's: not hashable by value, and mutable through OpenSpiel's own methods
    (the adapter never mutates one).  With ``exact=False`` values may differ from OpenSpiel's
    in the last digit (the course normalises a chance node's float probabilities by their sum,
    :mod:`course.search.chance`, and OpenSpiel does not), and two correct searches that round
    differently can prune differently: the grader's checks compare leaf by leaf, so give them
    exact games.
    """

    def __init__(self, game: Any, params: Mapping[str, Any] | None = None, *, max_player: int = 0,
                 evaluate: Callable[[Any], float] | None = None, exact: bool = True) -> None:
        pyspiel = _import_pyspiel()
        if isinstance(game, str):
            try:
                game = pyspiel.load_game(game, dict(params)) if params else pyspiel.load_game(game)
            except pyspiel.SpielError as exc:
                raise ParameterError(f"OpenSpiel cannot load {game!r}: {exc}".strip()) from None
        elif params:
            raise ParameterError("params go with a game name; a loaded pyspiel game has its own")
        elif not isinstance(game, pyspiel.Game):
            raise ParameterError(f"expected an OpenSpiel game name or a pyspiel.Game, got {type(game).__name__}")
        kind = game.get_type()
        name = kind.short_name
        Type = pyspiel.GameType
        if kind.dynamics != Type.Dynamics.SEQUENTIAL:
            raise ParameterError(f"{name} has simultaneous moves; the course's searches need players "
                                 "who move one at a time")
        if kind.information != Type.Information.PERFECT_INFORMATION:
            raise ParameterError(f"{name} has imperfect information (hidden cards or moves); "
                                 "minimax and its relatives need every player to see the state")
        if kind.chance_mode == Type.ChanceMode.SAMPLED_STOCHASTIC:
            raise ParameterError(f"{name} only samples its chance events and cannot list them with "
                                 "their probabilities, which expectimax, Star1 and BAB need")
        players = game.num_players()
        if players not in (1, 2):
            raise ParameterError(f"{name} has {players} players; the course's games have MAX and MIN")
        if isinstance(max_player, bool) or not isinstance(max_player, int) or not 0 <= max_player < players:
            raise ParameterError(f"max_player must be an OpenSpiel player of {name}: 0"
                                 + (" or 1" if players == 2 else "") + f", got {max_player!r}")
        if evaluate is not None and not callable(evaluate):
            raise ParameterError(f"evaluate must be a function of a state, got {type(evaluate).__name__}")
        self.pyspiel_game = game
        self.max_player = max_player
        self.exact = bool(exact)
        self._number = _exact_number if self.exact else float
        self.vmin = self._number(game.min_utility())
        self.vmax = self._number(game.max_utility())
        self._evaluate = evaluate
        self._spiel_error = pyspiel.SpielError
        # OpenSpiel's player ids -> the course's players (TERMINAL and others: absent)
        self._players = {max_player: Player.MAX, 1 - max_player: Player.MIN, _CHANCE: Player.CHANCE}

    def __repr__(self) -> str:
        extra = f", max_player={self.max_player}" if self.max_player else ""
        return f"OpenSpielGame({str(self.pyspiel_game)!r}{extra})"

    # -- the Game interface ---------------------------------------------------------------------
    def initial_state(self) -> Any:
        """A new initial state (``new_initial_state()``; a chance node in some games)."""
        return self.pyspiel_game.new_initial_state()

    def turn(self, state: Any) -> Player:
        """MAX for ``max_player``, MIN for the other player, CHANCE for OpenSpiel's chance player.

        Raises
        ------
        ParameterError
            At a terminal state, where nobody moves.
        """
        player = self._players.get(state.current_player())
        if player is None:
            raise ParameterError(f"nobody moves in a terminal state:\n{state}")
        return player

    def moves(self, state: Any) -> Sequence[int]:
        """The legal actions, or at a chance node the outcomes, in OpenSpiel's order."""
        if state.is_chance_node():
            return [action for action, _ in state.chance_outcomes()]
        return state.legal_actions()

    def chance_outcomes(self, state: Any) -> Sequence[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance node.

        Raises
        ------
        ParameterError
            If ``state`` is not a chance node.
        """
        if not state.is_chance_node():
            raise ParameterError(f"not a chance node (player {state.current_player()} moves):\n{state}")
        if not self.exact:
            return state.chance_outcomes()
        return [(outcome, _exact_number(p)) for outcome, p in state.chance_outcomes()]

    def result(self, state: Any, move: int) -> Any:
        """The state after ``move`` (a new state; ``state`` is unchanged).

        Raises
        ------
        ParameterError
            If ``move`` is not legal in ``state`` (OpenSpiel checks it).
        """
        child = state.clone()
        try:
            child.apply_action_with_legality_check(move)
        except (self._spiel_error, TypeError):
            legal = "none: the game is over" if state.is_terminal() else self.moves(state)
            raise ParameterError(f"illegal move {move!r}; legal moves: {legal}, in\n{state}") from None
        return child

    def is_terminal(self, state: Any) -> bool:
        """True when the game is over."""
        return state.is_terminal()

    def utility(self, state: Any) -> float:
        """MAX's return in a terminal state.

        Raises
        ------
        ParameterError
            If the game is not over in ``state``.
        """
        if not state.is_terminal():
            raise ParameterError(f"utility of a game in progress:\n{state}")
        return self._number(state.player_return(self.max_player))

    def evaluate(self, state: Any) -> float:
        """EVAL: the ``evaluate`` given to the adapter; UTILITY at a terminal state."""
        if state.is_terminal():
            return self.utility(state)
        if self._evaluate is None:
            return super().evaluate(state)          # raises, saying how to give one
        return self._evaluate(state)

    def describe_move(self, state: Any, move: int) -> str:
        """OpenSpiel's name of the action (``"x(1,1)"``, ``"roll"``, ``"Roll 6"``, ...)."""
        return state.action_to_string(state.current_player(), move)

    # -- conveniences -----------------------------------------------------------------------------
    def render(self, state: Any) -> str:
        """OpenSpiel's text picture of ``state``."""
        return str(state)

    def decisions_cutoff(self, depth: int, state: Any = None) -> Callable[[Any, int], bool]:
        """A search ``cutoff=`` that stops after ``depth`` decisions, chance nodes not counted.

        This is OpenSpiel's ``expectiminimax`` depth; a course search's own ``depth=`` counts
        chance nodes too.

        Parameters
        ----------
        depth : int
            Decisions (MAX's and MIN's moves) below ``state``, >= 0.
        state : optional
            The state the search starts from; default the initial state.

        Examples
        --------
        >>> pig = OpenSpielGame("pig", {"winscore": 4, "horizon": 4})   # doctest: +SKIP
        >>> cutoff = pig.decisions_cutoff(1)                    # doctest: +SKIP
        >>> rolled = pig.result(pig.initial_state(), 0)         # doctest: +SKIP
        >>> cutoff(rolled, 1), cutoff(pig.initial_state(), 0)  # after 'roll', and before  # doctest: +SKIP
        (True, False)
        """
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise ParameterError(f"depth must be a non-negative integer, got {depth!r}")
        start = _decisions(self.initial_state() if state is None else state)

        def cutoff(state: Any, _depth: int) -> bool:
            return _decisions(state) - start >= depth

        return cutoff


@dataclass(frozen=True)
class OpenSpielResult:
    """What one of OpenSpiel's own searches found (see :func:`openspiel_search`)."""

    value: float
    """The root's value for MAX, as OpenSpiel computes it (a float)."""
    action: int | None
    """OpenSpiel's best action at the root (None at a chance root or a leaf)."""
    nodes: int | None
    """States the search looked at, the root included (None when not counted)."""
    evaluated: int | None
    """Terminal states and depth-limit evaluations among them (None when not counted)."""


def openspiel_search(game: OpenSpielGame, algorithm: str = "expectiminimax", *, state: Any = None,
                     depth: int | None = None, evaluate: Callable[[Any], float] | None = None,
                     count: bool = True) -> OpenSpielResult:
    """Run OpenSpiel's own Python search on ``game``, to compare with the course's.

    Parameters
    ----------
    game : OpenSpielGame
    algorithm : {"expectiminimax", "alpha_beta"}
        OpenSpiel's ``expectiminimax`` (chance allowed; its depth counts decisions only) or
        ``alpha_beta_search`` (no chance; depth in plies), from
        ``open_spiel.python.algorithms.minimax``.
    state : optional
        Where to search from; default the initial state.
    depth : int, optional
        OpenSpiel's depth limit; default: deeper than the longest game.
    evaluate : callable, optional
        OpenSpiel's ``value_function`` at the depth limit; default the game's ``evaluate``.
    count : bool, optional
        Count the states the search looks at (through a proxy around each state, which slows
        OpenSpiel down: time it with ``count=False``).

    Returns
    -------
    OpenSpielResult

    Examples
    --------
    >>> from course.search import alphabeta
    >>> ttt = OpenSpielGame("tic_tac_toe")                        # doctest: +SKIP
    >>> openspiel_search(ttt, "alpha_beta")                       # doctest: +SKIP
    OpenSpielResult(value=0.0, action=0, nodes=18297, evaluated=7330)
    >>> ours = alphabeta(ttt)                                     # doctest: +SKIP
    >>> ours.value, ours.expanded + ours.evaluated, ours.evaluated    # doctest: +SKIP
    (0, 18297, 7330)
    """
    if not isinstance(game, OpenSpielGame):
        raise ParameterError(f"openspiel_search needs an OpenSpielGame, got {type(game).__name__}")
    if algorithm not in ("expectiminimax", "alpha_beta"):
        raise ParameterError(f"algorithm must be 'expectiminimax' or 'alpha_beta', got {algorithm!r}")
    from open_spiel.python.algorithms import minimax as spiel_minimax

    if depth is None:
        depth = game.pyspiel_game.max_game_length() + 1
    if evaluate is None and game._evaluate is not None:
        evaluate = game._evaluate
    root = (game.initial_state() if state is None else state).clone()
    counter = _Counter() if count else None
    if counter is not None:
        root = _CountedState(root, counter)
        if evaluate is not None:
            evaluate = counter.counted(evaluate)
    if algorithm == "expectiminimax":
        value, action = spiel_minimax.expectiminimax(root, depth, evaluate, game.max_player)
    else:
        if counter is not None:
            counter.nodes = 0          # alpha_beta_search clones the root first: the clone counts
        value, action = spiel_minimax.alpha_beta_search(
            game.pyspiel_game, root, value_function=evaluate, maximum_depth=depth,
            maximizing_player_id=game.max_player)
    return OpenSpielResult(value, action, counter.nodes if counter else None,
                           counter.leaves if counter else None)


class _Counter:
    def __init__(self) -> None:
        self.nodes = 1             # the root; each clone() is one more state
        self.leaves = 0

    def counted(self, evaluate: Callable[[Any], float]) -> Callable[[Any], float]:
        def value_function(state: Any) -> float:
            self.leaves += 1
            return evaluate(state.state)
        return value_function


class _CountedState:
    """A pyspiel state that counts clones and terminal tests (OpenSpiel's searches use these)."""

    def __init__(self, state: Any, counter: _Counter) -> None:
        self.state, self.counter = state, counter

    def clone(self) -> "_CountedState":
        self.counter.nodes += 1
        return _CountedState(self.state.clone(), self.counter)

    def is_terminal(self) -> bool:
        terminal = self.state.is_terminal()
        self.counter.leaves += terminal
        return terminal

    def __getattr__(self, name: str) -> Any:
        return getattr(self.state, name)


_EXACT: dict[float, Any] = {}


def _exact_number(x: float) -> Any:
    """``x`` as an int if whole, else as the fraction it was rounded from, else ``x``.

    >>> _exact_number(1.0), _exact_number(1 / 6), _exact_number(0.1), _exact_number(2 ** -30 / 3)
    (1, Fraction(1, 6), Fraction(1, 10), 3.104408582051595e-10)
    """
    found = _EXACT.get(x)
    if found is None:
        if not math.isfinite(x):
            return x
        if x.is_integer():
            found = int(x)
        else:
            fraction = Fraction(x).limit_denominator(10 ** 6)
            found = fraction if float(fraction) == x else x
        if len(_EXACT) < 100_000:
            _EXACT[x] = found
    return found


def _decisions(state: Any) -> int:
    """Moves made by players (not chance) so far."""
    return sum(1 for step in state.full_history() if step.player != _CHANCE)


def open_lines_evaluation(k: int, *, player: int = 0) -> Callable[[Any], float]:
    """EVAL for k-in-a-row boards (tic-tac-toe, connect four, ...): weighted open lines.

    The board is read from OpenSpiel's text picture of the state: rows of ``x`` (player 0),
    ``o`` (player 1) and ``.``.  Every run of ``k`` cells in a row, column or diagonal that
    holds marks of one player only is worth ``3**(m - 1)`` to that player for its ``m`` marks;
    the difference, player ``player``'s minus the other's, is divided by the largest possible
    total, so the estimate lies strictly between -1 and 1 (the utilities of a win and a loss).

    Parameters
    ----------
    k : int
        Marks in a row that win (3 for tic-tac-toe, 4 for connect four).
    player : int, optional
        The OpenSpiel player whose estimate it is (MAX's: the adapter's ``max_player``).

    Returns
    -------
    callable
        ``evaluate(state) -> float``.

    Examples
    --------
    >>> ttt = OpenSpielGame("tic_tac_toe")                     # doctest: +SKIP
    >>> centre = ttt.result(ttt.initial_state(), 4)          # doctest: +SKIP
    >>> open_lines_evaluation(3)(centre)     # 4 of the 8 lines hold one x  # doctest: +SKIP
    0.0555...
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ParameterError(f"k must be an integer >= 2, got {k!r}")
    if player not in (0, 1):
        raise ParameterError(f"player must be 0 or 1, got {player!r}")
    sign = 1 if player == 0 else -1
    weights = [0] + [3 ** (m - 1) for m in range(1, k + 1)]
    shapes: dict[tuple[int, int], tuple[list, float]] = {}

    def lines(rows: int, columns: int) -> tuple[list, float]:
        found = shapes.get((rows, columns))
        if found is None:
            runs = []
            for r in range(rows):
                for c in range(columns):
                    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                        cells = [(r + i * dr, c + i * dc) for i in range(k)]
                        if all(0 <= rr < rows and 0 <= cc < columns for rr, cc in cells):
                            runs.append([rr * columns + cc for rr, cc in cells])
            found = shapes[(rows, columns)] = (runs, float(max(1, len(runs)) * weights[k]))
        return found

    def evaluate(state: Any) -> float:
        board = [line.strip() for line in str(state).strip().splitlines() if line.strip()]
        cells = "".join(board)
        runs, scale = lines(len(board), len(board[0]) if board else 0)
        total = 0
        for run in runs:
            x = sum(1 for i in run if cells[i] == "x")
            o = sum(1 for i in run if cells[i] == "o")
            if o == 0:
                total += weights[x]
            elif x == 0:
                total -= weights[o]
        return sign * total / scale

    return evaluate
