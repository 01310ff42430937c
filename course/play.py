"""Play against a search: a game loop between a person and a search function, and what the
search did for each of its moves.

The machine's player is a *search*: the course's own (a name of
:data:`course.search.ALGORITHMS`, or the function itself) or a student's, the
function written in an exercise, passed as it is.  A student's function is
called as the exercises call it (``f(game, state)``, plus ``depth``,
``epsilon`` or ``estimate`` when it takes a third argument), on a recording
copy of the game (:mod:`course.grading.checks.instrument`), under the graders' guards
(a time limit, captured output, a capped recursion limit); a search that only
returns a value (``minimax_value``) is asked once per move.

For each machine move, :class:`MachineMove` keeps the move, the value the
search gave, the nodes it visited (expansions and leaf evaluations) and the time
it took, its search as a traced :class:`~course.search.SearchResult` (to draw),
and the position's true value with each move's value, from the course's
reference search: the same depth limit and evaluation, so a depth-limited search
is judged against depth-limited minimax.  When the two disagree, on the value
or because the move chosen is worse than the best, :attr:`MachineMove.verdict`
says so in words: a wrong alpha-beta is *seen* to play badly.

Chance nodes (Pig's die) are rolled by the :class:`Match` with a generator seeded per game:
each new game rolls new dice, and a game is replayed by starting a match with that game's seed
(:attr:`Match.game_seed`).  When a game ends, :meth:`Match.outcome` says who won and why (a game
may say why it ended: Pig's turn limit, for one, ends a game below the target).

Examples
--------
>>> from course.games import TicTacToe
>>> match = Match(TicTacToe(), "alphabeta", human="O", seed=1)
>>> log = match.advance()              # the machine (X) moves first
>>> move = match.last
>>> (move.value, move.agrees, match.human_to_move)
(0, True, True)
>>> match.play(match.legal_moves()[0][0])     # O takes the first empty cell
>>> _ = match.advance()
>>> match.last.nodes > 0 and match.last.seconds >= 0
True
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .errors import ParameterError
from .game import Game, GameView, Player
from .search import ALGORITHMS, alphabeta, star1
from .search.result import SearchResult, Trace, TraceEvent

__all__ = ["SearchPlayer", "MachineMove", "Match", "play_values", "show_value"]

#: Seconds a search may take for one move before it is stopped.
DEFAULT_TIME_LIMIT = 10.0


def show_value(x: Any) -> str:
    """A value as the play widget shows it: ``1``, ``−1/2``, ``−0.281 (−1151/4096)``.

    >>> from fractions import Fraction
    >>> show_value(Fraction(-1151, 4096)), show_value(Fraction(1, 2)), show_value(None)
    ('−0.281 (−1151/4096)', '1/2', '?')
    """
    from fractions import Fraction

    from .drills.numbers import fmt

    if x is None:
        return "?"
    text = fmt(x)
    if isinstance(x, Fraction) and x.denominator > 16:
        return f"{float(x):.3f} ({text})".replace("-", "−")
    return text


def _has_chance(game: Game, state: Any, probe: int = 400) -> bool:
    """True if a chance node appears within the first ``probe`` nodes below ``state``."""
    stack, seen = [state], 0
    while stack and seen < probe:
        s = stack.pop()
        seen += 1
        if game.is_terminal(s):
            continue
        if game.turn(s) is Player.CHANCE:
            return True
        stack.extend(game.result(s, m) for m in list(game.moves(s))[:3])
    return False


@dataclass
class MachineMove:
    """What the machine's search did for one move, and how it compares with minimax."""

    move: Any
    """The move played."""
    label: str
    """The move in words (``game.describe_move``)."""
    state: Any = None
    """The position the search started from."""
    value: Any = None
    """The value the search returned (``lower`` when it returned bounds)."""
    lower: Any = None
    upper: Any = None
    expanded: int = 0
    """Nodes whose children the search generated."""
    evaluated: int = 0
    """Leaves (terminal or at the depth limit) it evaluated."""
    seconds: float = 0.0
    """Wall-clock time of the search."""
    result: SearchResult | None = None
    """The search as a traced result (for drawing), or None if it failed."""
    true_value: Any = None
    """The position's value by the course's reference search (same depth, same EVAL)."""
    move_values: dict = field(default_factory=dict)
    """Move -> its value by the reference search."""
    best: list = field(default_factory=list)
    """The moves with the best value."""
    error: str = ""
    """Why the search failed (then the first legal move was played), or ""."""
    output: str = ""
    """What the search printed."""
    verdict: str = ""
    """Agreement or disagreement with minimax, in words."""
    agrees: bool = True
    """False when the search's value or its move disagrees with minimax."""

    @property
    def nodes(self) -> int:
        """Nodes visited: expansions plus leaf evaluations."""
        return self.expanded + self.evaluated

    def picture(self, game: Game, *, depth: int = 2, max_nodes: int = 120) -> Any:
        """The search's tree, its first ``depth`` levels drawn (a TreePicture), or None.

        Deeper nodes are left out of the trace drawn, so a big search draws as fast as a
        small one; a node at the last level drawn shows the value its subtree returned.
        """
        if self.result is None or self.result.trace is None:
            return None
        from .draw import draw_tree

        r = self.result
        events = tuple(e for e in r.trace.events if len(e.path) <= depth)
        shallow = SearchResult(r.algorithm, r.lower, r.upper, r.move, r.expanded, r.evaluated,
                               r.leaves, r.children, r.epsilon, Trace(events))
        levels = "first level" if depth == 1 else f"first {depth} levels"
        title = f"the machine's search, its {levels}"
        return draw_tree(_Unvalued(game, _edge_counts(game, self.state, r, depth)), shallow,
                         state=self.state, max_depth=depth, max_nodes=max_nodes, title=title)


class SearchPlayer:
    """A search function that chooses moves, with everything it did recorded.

    Parameters
    ----------
    search : str or callable
        A name of :data:`course.search.ALGORITHMS` (``"alphabeta"``, ``"star1"``, ...), one
        of those functions, or a student's function with an exercise's signature:
        ``f(game, state)`` returning ``(value, move)``, ``(lower, upper, move)`` or just a
        value, optionally with a third argument named ``depth``, ``epsilon`` or ``estimate``.
    depth : int, optional
        A depth limit (with ``evaluate``, default the game's EVAL).
    epsilon : number, optional
        For Bounded Alpha-Beta (the course's ``"bab"``, or a student's ``bab_search``).
    evaluate : callable, optional
        EVAL at the depth limit (default ``game.evaluate``).
    time_limit : float
        Seconds one move's search may take.
    name : str, optional
        How the widget names the player (default: the function's name).

    Raises
    ------
    ParameterError
        For an unknown search name or something that is not callable.
    """

    def __init__(self, search: Any = "alphabeta", *, depth: int | None = None,
                 epsilon: Any = None, evaluate: Callable | None = None,
                 time_limit: float = DEFAULT_TIME_LIMIT, name: str | None = None) -> None:
        reference = {f: n for n, f in ALGORITHMS.items()}
        if isinstance(search, str):
            if search not in ALGORITHMS:
                raise ParameterError(f"unknown search {search!r}; choose one of "
                                     f"{', '.join(ALGORITHMS)} or pass a function")
            self.reference, self.function = search, ALGORITHMS[search]
        elif callable(search) and search in reference:
            self.reference, self.function = reference[search], search
        elif callable(search):
            self.reference, self.function = None, search
        else:
            raise ParameterError(f"a search is a name like 'alphabeta' or a function, got "
                                 f"{type(search).__name__} {search!r}")
        self.depth, self.epsilon, self.evaluate = depth, epsilon, evaluate
        self.time_limit = time_limit
        default = (f"the course's {self.reference}" if self.reference
                   else f"your {getattr(search, '__name__', 'search')}")
        self.name = name or default

    def __repr__(self) -> str:
        return f"<SearchPlayer {self.name}>"

    # ----------------------------------------------------------------------------------------
    def choose(self, game: Game, state: Any) -> MachineMove:
        """Search ``state`` and return the move with its record and minimax's opinion."""
        moves = list(game.moves(state))
        if not moves:
            raise ParameterError("no move to choose: the game is over")
        made = self._reference_move(game, state) if self.reference else self._student_move(game, state)
        if made.move is None or not any(_same_move(made.move, m) for m in moves):
            if not made.error:
                made.error = (f"the search chose {made.move!r}, which is not a legal move here "
                              f"(legal: {moves!r})")
            made.move = moves[0]
        made.state = state
        made.label = game.describe_move(state, made.move)
        _judge(game, state, made, self)
        return made

    def _reference_move(self, game: Game, state: Any) -> MachineMove:
        search = self.function
        name = self.reference
        if name in ("minimax", "alphabeta", "naive-epsilon") and _has_chance(game, state):
            raise ParameterError(f"{name} cannot search a game with chance nodes; use star1, "
                                 "bab or expectimax")
        options: dict[str, Any] = {"trace": True}
        if self.depth is not None:
            options["depth"] = self.depth
            if self.evaluate is not None:
                options["evaluate"] = self.evaluate
        if name in ("bab", "naive-epsilon"):
            options["epsilon"] = self.epsilon if self.epsilon is not None else 0
        start = time.perf_counter()
        result = search(game, state, **options)
        seconds = time.perf_counter() - start
        moves = list(game.moves(state))
        move = moves[result.move] if result.move is not None else None
        return MachineMove(move, "", value=result.value if result.value is not None else result.lower,
                           lower=result.lower, upper=result.upper, expanded=result.expanded,
                           evaluated=result.evaluated, seconds=seconds, result=result)

    def _student_move(self, game: Game, state: Any) -> MachineMove:
        from .grading.checks.cases import Case
        from .grading.checks.compare import Task, run_student

        fn = self.function
        third = _third_parameter(fn)
        task = Task(self.name, "alphabeta", "decision", "your search",
                    takes_depth=third == "depth", takes_epsilon=third == "epsilon",
                    takes_estimate=third == "estimate")
        case = Case("play", game, state=state, depth=self.depth,
                    epsilon=self.epsilon if self.epsilon is not None else 0,
                    evaluate=self.evaluate)
        if third == "depth" and self.depth is None:
            return MachineMove(None, "", error="this search takes a depth limit: "
                               "pass depth=... (e.g. play_tictactoe(search, depth=3))")
        calls = [0]

        def call(g: Any, s: Any, *extra: Any) -> Any:
            calls[0] += 1
            return fn(g, s, *extra)

        def decide(g: Any, s: Any, *extra: Any) -> Any:
            """The exercise's function; a value-only one is asked about each move."""
            answer = call(g, s, *extra)
            if _is_number(answer):
                player = g.turn(s)
                best = None
                for m in g.moves(s):
                    v = call(g, g.result(s, m), *extra)
                    if best is None or (v > best[0] if player is Player.MAX else v < best[0]):
                        best = (v, m)
                return ("value-only", answer, best)
            return answer

        run = run_student(task, decide, case, time_limit=self.time_limit)
        made = MachineMove(None, "", seconds=run.seconds, output=run.output)
        events = run.events
        made.expanded = sum(1 for k, _ in events if k == "expand")
        made.evaluated = sum(1 for k, _ in events if k == "leaf")
        if run.timed_out:
            made.error = f"the search did not finish within {self.time_limit:g} seconds"
        elif run.error is not None:
            from .grading.checks.failures import raised

            made.error = f"the search raised {raised(run.error)}"
        elif run.reference_calls:
            made.error = "the search called the course's reference search instead of searching"
        if made.error:
            return made
        answer = run.returned
        if isinstance(answer, tuple) and len(answer) == 3 and answer[0] == "value-only":
            _, value, best = answer
            made.value = made.lower = made.upper = value
            made.move = best[1] if best else None
        elif isinstance(answer, (tuple, list)) and len(answer) == 2 and _is_number(answer[0]):
            made.value = made.lower = made.upper = answer[0]
            made.move = answer[1]
        elif isinstance(answer, (tuple, list)) and len(answer) == 3 and _is_number(answer[0]):
            made.lower, made.upper, made.move = answer
            made.value = made.lower
        else:
            made.error = (f"the search returned {answer!r}; expected (value, move), "
                          "(lower, upper, move) or a value")
            return made
        made.result = record_result(game, state, events, made)
        return made


def _third_parameter(fn: Callable) -> str | None:
    """``"depth"``, ``"epsilon"`` or ``"estimate"``: what a student's function takes third."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None
    if len(params) < 3:
        return None
    name = params[2].name.lower()
    for key, words in (("depth", ("depth", "d", "limit")), ("epsilon", ("epsilon", "eps", "e")),
                       ("estimate", ("estimate", "h", "heuristic", "evaluate"))):
        if name in words or name.startswith(key):
            return key
    return None


def _is_number(x: Any) -> bool:
    from numbers import Real

    return isinstance(x, Real) and not isinstance(x, bool)


def _same_move(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a strange move simply does not match
        return False


def _edge_counts(game: Game, state: Any, result: SearchResult, depth: int) -> dict:
    """``(parent state, move) -> nodes the search visited below that edge``, for the drawn levels."""
    below: dict = {}
    for event in result.trace.events:
        if event.kind in ("enter", "leaf"):
            for k in range(1, min(len(event.path), depth) + 1):
                below[event.path[:k]] = below.get(event.path[:k], 0) + 1
    counts: dict = {}
    for path, n in below.items():
        try:
            s = state
            for i in path[:-1]:
                s = game.result(s, _listed(game, s)[i])
            counts[(s, _listed(game, s)[path[-1]])] = n
        except Exception:  # noqa: BLE001 - a label is only decoration
            continue
    return counts


def _listed(game: Game, state: Any) -> list:
    if game.turn(state) is Player.CHANCE:
        return [m for m, _ in game.chance_outcomes(state)]
    return list(game.moves(state))


class _Unvalued(GameView):
    """A game drawn without estimates: a node cut off the drawing shows "…", not its EVAL
    (which no search computed there); each edge says how many nodes the search visited below it."""

    def __init__(self, game: Game, counts: dict | None = None) -> None:
        super().__init__(game)
        self.counts = counts or {}

    def evaluate(self, state):
        return self.game.utility(state) if self.game.is_terminal(state) else float("nan")

    def describe_move(self, state, move):
        label = self.game.describe_move(state, move)
        try:
            n = self.counts.get((state, move))
        except TypeError:             # unhashable states: no counts
            n = None
        return f"{label}\n{n:,} nodes" if n else label


def record_result(game: Game, state: Any, events: tuple, made: MachineMove) -> SearchResult:
    """A student's recorded search as a traced :class:`SearchResult`, to draw like any search.

    Each expansion becomes an ``enter`` event, each leaf evaluation a ``leaf``
    event with its value; each expanded node gets an ``exit`` at the end.
    """
    from .grading.checks.instrument import replay_path

    trace: list[TraceEvent] = []
    order: list = []
    seen: set = set()
    for kind, path in events:
        try:
            s = replay_path(game, path, state)
        except Exception:  # noqa: BLE001 - a path the game does not have is skipped
            continue
        if kind == "expand":
            trace.append(TraceEvent("enter", path, player=game.turn(s).value))
            if path not in seen:
                seen.add(path)
                order.append(path)
        else:
            value = game.utility(s) if game.is_terminal(s) else game.evaluate(s)
            trace.append(TraceEvent("leaf", path, player="leaf", lower=value, upper=value))
    for path in reversed(order):
        if path:
            trace.append(TraceEvent("exit", path))      # what it returned there is not recorded
        else:
            trace.append(TraceEvent("exit", path, lower=made.lower, upper=made.upper))
    moves = list(game.moves(state))
    index = next((i for i, m in enumerate(moves) if _same_move(m, made.move)), None)
    leaves = tuple(p for k, p in events if k == "leaf")
    lower = made.lower if made.lower is not None else made.value
    upper = made.upper if made.upper is not None else made.value
    return SearchResult("your search", lower, upper, index, made.expanded, made.evaluated, leaves,
                        trace=Trace(tuple(trace)))


def play_values(game: Game, state: Any, *, depth: int | None = None,
                evaluate: Callable | None = None) -> dict:
    """Each legal move's value by the course's reference search (exact; chance games by Star1).

    Returns
    -------
    dict
        Move -> the value of the position it leads to (for MAX), searched to
        ``depth - 1`` below it when a depth limit is given.
    """
    chance = _has_chance(game, state)
    search = star1 if chance else alphabeta
    out = {}
    for move in game.moves(state):
        child = game.result(state, move)
        options: dict[str, Any] = {}
        if depth is not None:
            options["depth"] = max(depth - 1, 0)
            if evaluate is not None:
                options["evaluate"] = evaluate
        if game.is_terminal(child):
            out[move] = game.utility(child)
        else:
            out[move] = search(game, child, **options).lower
    return out


def _judge(game: Game, state: Any, made: MachineMove, player: SearchPlayer) -> None:
    """Fill in minimax's values and the verdict."""
    fmt = show_value
    values = play_values(game, state, depth=player.depth, evaluate=player.evaluate)
    maximizing = game.turn(state) is Player.MAX
    best_value = max(values.values()) if maximizing else min(values.values())
    made.true_value, made.move_values = best_value, values
    made.best = [m for m, v in values.items() if v == best_value]
    chance = _has_chance(game, state)
    what = "expectimax" if chance else "minimax"
    if player.depth is not None:
        what += f" to the same depth ({player.depth})"
    eps = player.epsilon or 0
    problems = []
    if made.error:
        problems.append(f"the search failed ({made.error}), so the first legal move was played")
    elif made.lower is not None:
        inside = made.lower - eps <= best_value <= made.upper + eps if made.lower != made.upper \
            else made.lower == best_value or abs(made.lower - best_value) <= eps
        if not inside:
            said = (fmt(made.lower) if made.lower == made.upper
                    else f"[{fmt(made.lower)}, {fmt(made.upper)}]")
            problems.append(f"it says the position is worth {said}, {what} says {fmt(best_value)}")
    chosen = values.get(made.move)
    if chosen is not None and not made.error:
        worse = chosen < best_value - eps if maximizing else chosen > best_value + eps
        if worse:
            best_labels = ", ".join(game.describe_move(state, m) for m in made.best)
            problems.append(f"its move {made.label} is worth {fmt(chosen)} by {what}; the best "
                            f"({best_labels}) {'are' if len(made.best) > 1 else 'is'} worth "
                            f"{fmt(best_value)}")
    made.agrees = not problems
    side = f" (values are {max_name(game)}'s payoff)"
    if problems:
        made.verdict = "Disagrees with " + what + ": " + "; ".join(problems) + "." + side
    else:
        made.verdict = (f"Agrees with {what}: the position is worth {fmt(best_value)}, and "
                        f"{made.label} is {'a' if len(made.best) > 1 else 'the'} best move.{side}")


def max_name(game: Game) -> str:
    """What MAX is called in ``game``: ``"X"`` in tic-tac-toe, else ``"MAX"``."""
    from .games.tictactoe import TicTacToe

    return "X" if isinstance(game, TicTacToe) else "MAX"


# =============================================================================================
class Match:
    """A game between a person and a :class:`SearchPlayer`.

    Parameters
    ----------
    game : Game
        Tic-tac-toe, Pig or any small course game.
    machine : SearchPlayer, str or callable
        The machine's search (anything :class:`SearchPlayer` takes).
    human : Player or str
        The side the person plays: ``Player.MAX``/``Player.MIN``, or ``"X"``/``"O"`` in
        tic-tac-toe.  Default MAX (who moves first).
    seed : int, optional
        Seed of the first game's die rolls (chance nodes); each new game gets a seed of its
        own, derived from it (:attr:`game_seed`).  Default: a fresh random seed.
    **options
        Passed to :class:`SearchPlayer` when ``machine`` is not one already.

    Attributes
    ----------
    state
        The current position.
    log : list of str
        What happened, one line per move or roll.
    machine_moves : list of MachineMove
        Every machine move, in order (``last`` is the latest).
    game_seed : int
        The seed of this game's dice: ``Match(game, machine, human=..., seed=game_seed)`` plays
        the same rolls again (given the same moves).
    games : int
        Games started in this match (1 for the first).

    Examples
    --------
    Each game rolls its own dice; a game's seed replays it:

    >>> from course.games import Pig
    >>> match = Match(Pig(target=4, faces=3, turn_limit=2), "star1", seed=8)
    >>> first = match.game_seed
    >>> match.new_game()
    >>> match.games, match.game_seed != first
    (2, True)
    >>> replay = Match(Pig(target=4, faces=3, turn_limit=2), "star1", seed=match.game_seed)
    >>> replay.game_seed == match.game_seed
    True
    """

    def __init__(self, game: Game, machine: Any = "alphabeta", *, human: Any = Player.MAX,
                 seed: int | None = None, **options: Any) -> None:
        if not isinstance(game, Game):
            raise ParameterError(f"Match needs a course Game, got {type(game).__name__}")
        self.game = game
        self.machine = machine if isinstance(machine, SearchPlayer) else SearchPlayer(machine, **options)
        if isinstance(human, str):
            human = {"x": Player.MAX, "o": Player.MIN, "max": Player.MAX,
                     "min": Player.MIN}.get(human.lower())
        if human not in (Player.MAX, Player.MIN):
            raise ParameterError("human must be Player.MAX or Player.MIN ('X' or 'O' in tic-tac-toe)")
        self.human = human
        self.seed = seed if seed is not None else random.SystemRandom().randint(1, 99_999)
        self.games = 0
        self.new_game(seed=self.seed)

    def new_game(self, seed: int | None = None) -> None:
        """Start again from the game's initial position, same sides, with new dice.

        Parameters
        ----------
        seed : int, optional
            The new game's dice seed (:attr:`game_seed`); default: the next seed of this match
            (derived from :attr:`seed` and the game's number, so a match with the same seed
            rolls the same dice game after game).
        """
        self.games += 1
        if seed is None:
            seed = random.Random(f"match/{self.seed}/game/{self.games}").randint(1, 99_999)
        self.game_seed = seed
        self.rng = random.Random(f"match/{seed}")
        self.state = self.game.initial_state()
        self.log: list[str] = []
        self.machine_moves: list[MachineMove] = []

    # -- queries -------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True when the game has ended."""
        return self.game.is_terminal(self.state)

    @property
    def to_move(self) -> Player | None:
        """Who is to move (CHANCE while a die rolls), None at the end."""
        return None if self.over else self.game.turn(self.state)

    @property
    def human_to_move(self) -> bool:
        """True when the person is to move."""
        return self.to_move is self.human

    @property
    def last(self) -> MachineMove | None:
        """The machine's latest move, or None."""
        return self.machine_moves[-1] if self.machine_moves else None

    def legal_moves(self) -> list[tuple[Any, str]]:
        """``(move, label)`` for each legal move (empty unless a player is to move)."""
        if self.over or self.to_move is Player.CHANCE:
            return []
        return [(m, self.game.describe_move(self.state, m)) for m in self.game.moves(self.state)]

    def outcome(self) -> str:
        """The result in words, and why the game ended when the game says ("" while it goes on).

        A game that can end in more than one way says which with a method
        ``end_reason(state) -> str`` (Pig: the target reached, or the turn limit used up).

        Examples
        --------
        >>> from course.games import Pig
        >>> from course.games.pig import PigState
        >>> match = Match(Pig(target=6, turn_limit=2), "star1", seed=1)
        >>> match.state = PigState(4, 2, 0, Player.MAX, False, 2)   # 2 turns done, 4 to 2
        >>> match.outcome()
        'you win: the turn limit (2 turns) is used up and MAX has more points, 4 to 2 (the target 6 was not reached)'
        """
        if not self.over:
            return ""
        u = self.game.utility(self.state)
        if u == 0:
            words = "a draw"
        else:
            winner = Player.MAX if u > 0 else Player.MIN
            words = "you win" if winner is self.human else "the machine wins"
        reason = getattr(self.game, "end_reason", None)
        if callable(reason):
            why = reason(self.state)
            if why:
                words += f": {why}"
        return words

    # -- moves ---------------------------------------------------------------------------------
    def play(self, move: Any) -> None:
        """The person plays ``move``.

        Raises
        ------
        ParameterError
            If it is not the person's turn or ``move`` is not legal.
        """
        if not self.human_to_move:
            raise ParameterError("it is not your turn" if not self.over else "the game is over")
        moves = list(self.game.moves(self.state))
        if not any(_same_move(move, m) for m in moves):
            raise ParameterError(f"{move!r} is not a legal move here; legal: {moves!r}")
        self.log.append(f"You: {self.game.describe_move(self.state, move)}.")
        self.state = self.game.result(self.state, move)

    def advance(self) -> list[str]:
        """Roll the dice and let the machine move until it is the person's turn or the game ends.

        Returns
        -------
        list of str
            The log lines added.
        """
        start = len(self.log)
        for _ in range(10_000):
            if self.over or self.human_to_move:
                break
            if self.to_move is Player.CHANCE:
                self._roll()
            else:
                made = self.machine.choose(self.game, self.state)
                self.machine_moves.append(made)
                self.log.append(f"Machine: {made.label}." + (" (Its search failed.)" if made.error else ""))
                self.state = self.game.result(self.state, made.move)
        if self.over:
            self.log.append(f"Game over: {self.outcome()}.")
        return self.log[start:]

    def _roll(self) -> None:
        outcomes = list(self.game.chance_outcomes(self.state))
        u = self.rng.random()
        total = 0.0
        pick = outcomes[-1][0]
        for outcome, p in outcomes:
            total += float(p)
            if u < total:
                pick = outcome
                break
        self.log.append(f"Die: {self.game.describe_move(self.state, pick)}.")
        self.state = self.game.result(self.state, pick)
