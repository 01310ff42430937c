"""Checks for the open tasks of the move-ordering assignment: an evaluation function, a formula.

Unlike the searches, an evaluation function has no single right answer; it is
graded by what it achieves, measured with the reference searches:

* :func:`check_evaluation_ordering` -- ordering alpha-beta's moves by the
  student's EVAL must evaluate at most a third of the leaves that the game's
  own move order costs, over a fixed set of tic-tac-toe positions;
* :func:`check_evaluation_play` -- a two-move-deep alpha-beta search using the
  student's EVAL must never lose to any perfect opponent (every game every
  opponent that never gives away value can play is followed), from the empty
  board and from every first move, playing either side;
* :func:`check_naive_drift` -- the drift of the naive epsilon rule, measured
  by the student on the BAB paper's Figure 2 tree, must be the reference's;
* :func:`check_best_case_formula` -- a formula for alpha-beta's best case must
  match the leaves alpha-beta evaluates with perfect ordering (Knuth and
  Moore 1975) on uniform trees;
* :func:`check_u_trap` -- a tree built by the student, for any epsilon, on which
  Bounded Alpha-Beta's move chosen by the upper bound ``U`` loses more than
  epsilon (the move chosen by ``L`` never does: Theorem 1 of the BAB paper).

Every threshold is computed from a reference search when the check runs.

References
----------
H. Strass, *Playing Games: Alpha-Beta Tree Search*, TU Dresden 2024 (seed 001):
    evaluation functions as weighted features, move ordering, O(b^(d/2)).
D. E. Knuth, R. W. Moore, *An analysis of alpha-beta pruning*, Artificial Intelligence 6, 1975.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from numbers import Real
from typing import Any

from ...search import alphabeta
from ...game import Player
from .cases import EvaluatedGame, exercise_tree, tictactoe_cases
from .compare import DEFAULT_TIME_LIMIT, _runs_in_sandbox, _time_limit
from .values import fmt
from .failures import CheckFailed, SearchCrashed, SearchTimeout, TimeLimitExceeded, WrongValue, raised

__all__ = ["check_evaluation_ordering", "check_evaluation_play", "check_best_case_formula",
           "check_naive_drift", "check_u_trap", "choice_losses"]

#: Ordering by the student's EVAL must cost at most this fraction of the given order's leaves.
ORDERING_FRACTION = 1 / 3  # the messages call it "a third"


class _Guarded:
    """Wrap a student's EVAL: check every value; ask for each position's value once.

    An evaluation function is a function of the position, so its value for a
    board asked for again (the searches meet the same boards many times) is
    taken from a memo instead of another call into the student's sandbox.

    :meth:`ask_ahead` asks the sandbox for the values of several boards in one
    message, in the order the search asks for them next; each answer is taken
    (and checked, or its exception raised) when the search asks for its board, so
    the calls made, their order and where a failure is raised are those of asking
    one board at a time.
    """

    def __init__(self, fn: Callable, vmin: float, vmax: float) -> None:
        self.fn, self.vmin, self.vmax = fn, vmin, vmax
        self.memo: dict[Any, Any] = {}
        self.ahead: dict[Any, Any] = {}    # answers asked ahead, not yet taken: value or exception
        self.halted = False                # an answer asked ahead ends the check: ask no more

    def __call__(self, state: Any) -> Any:
        try:
            return self.memo[state]
        except (KeyError, TypeError):      # new, or unhashable: ask the student's function
            pass
        try:
            answer = self.ahead.pop(state)
        except (KeyError, TypeError):
            answer = self.fn(state)
        else:
            if isinstance(answer, BaseException):
                raise answer
        value = self._checked(state, answer)
        try:
            self.memo[state] = value
        except TypeError:
            pass
        return value

    def ask_ahead(self, states: list) -> None:
        """Ask for the values of ``states`` not known yet in one message to the sandbox
        (:meth:`course.sandbox.RemoteFunction.each`), in this order: the caller's next
        calls must ask for exactly these boards, in this order.

        The sandbox stops at a value this wrapper would refuse (or at an exception), as
        asking one by one stops there; nothing is asked ahead of a function run in this
        process (not a :class:`~course.sandbox.RemoteFunction`), for an unhashable board, or with bounds that are not plain
        numbers.
        """
        each = self.fn.each if _runs_in_sandbox(self.fn) else None
        if self.halted or each is None or type(self.vmin) not in (int, float) or type(self.vmax) not in (int, float):
            return
        todo: list = []
        try:
            for state in states:
                if state not in self.memo and state not in self.ahead and state not in todo:
                    todo.append(state)
        except TypeError:
            return
        while len(todo) > 1:               # one board: asked when the search asks
            values, error = each([(state,) for state in todo], within=(self.vmin, self.vmax))
            self.ahead.update(zip(todo, values))
            if error is not None:
                self.ahead[todo[len(values)]] = error
                self.halted = True         # raised when the search asks for that board
                return
            if not values or (len(values) < len(todo) and not self._fine(values[-1])):
                self.halted = True         # refused when the search asks for that board
                return
            todo = todo[len(values):]

    def _fine(self, value: Any) -> bool:
        return (not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)
                and self.vmin < value < self.vmax)

    def _checked(self, state: Any, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise CheckFailed(f"your evaluation function returned {value!r} for the board\n{state}\n"
                              "it must return a finite number")
        if not self.vmin < value < self.vmax:
            raise CheckFailed(
                f"your evaluation function returned {fmt(value)} for the unfinished board\n{state}\n"
                f"an estimate must lie strictly between vmin = {self.vmin} and vmax = {self.vmax}, so "
                "that a search never mistakes it for a won or lost game")
        return value


class _AskedAhead(EvaluatedGame):
    """An :class:`~course.grading.checks.cases.EvaluatedGame` whose EVAL (a :class:`_Guarded`) is asked
    for the values of a node's children in one message when the search lists the node's moves.

    Alpha-beta with ``order="heuristic"`` lists a node's moves, then asks EVAL for every
    child that is not terminal, in the order of the moves (:mod:`course.search.ordering`),
    before it does anything else; without a depth limit it asks EVAL nowhere else.  So the
    student's function is called on the same boards in the same order as without asking
    ahead (``tests/test_evaluation_batch.py`` compares the two).
    """

    def moves(self, state: Any) -> Any:
        game = self.game
        moves = game.moves(state)
        if game.turn(state) is not Player.CHANCE:
            children = [game.result(state, move) for move in moves]
            self._evaluate.ask_ahead([c for c in children if not game.is_terminal(c)])
        return moves


def _each_value(fn: Callable, arg_lists: list, *, count: bool = False) -> list:
    """``[fn(*args) for args in arg_lists]`` (with ``count``: ``fn.counted(*args)``), in as few
    messages to the sandbox as its answers allow (:meth:`~course.sandbox.RemoteFunction.each`)."""
    out: list = []
    while len(out) < len(arg_lists):
        values, error = fn.each(arg_lists[len(out):], count=count)
        out += values
        if error is not None:
            raise error
        if not values:
            raise CheckFailed("the sandbox answered no call")
    return out


#: How many sample positions :func:`_own_evaluation` compares with ``TicTacToe.evaluate``.
SAMPLE_POSITIONS = 40

#: Lines of Python per position (median over the sample positions) above which an evaluation
#: function is flagged for review as one that searches: a feature count over the eight lines of
#: a board runs about a hundred, a search two moves ahead thousands.
SEARCH_LINES = 1000

#: Printed in a test's output (for the student) before a finding that does not change the score
#: but that the instructor should look at.  ``python -m course.grading autograde`` lists the
#: findings from the grader's own record (:func:`take_review_flags`), never from printed text:
#: a student's cell can print this mark too.
REVIEW_MARK = "Flagged for the instructor's review:"

#: The review flags raised in this process since :func:`take_review_flags` last took them.
_RAISED: list[str] = []


def flag_for_review(text: str) -> None:
    """Raise a review flag: printed for the student (after :data:`REVIEW_MARK`) and recorded for
    the grader, which lists it for the instructor (:func:`take_review_flags`)."""
    print(f"{REVIEW_MARK} {text}")
    _RAISED.append(text)


def take_review_flags() -> list[str]:
    """The review flags raised in this process since the last call (and forget them).

    The grader calls it around each test cell it runs: a flag is the grader's own finding,
    recorded in its memory, which nothing the student's code prints or returns can add to.
    """
    taken = list(_RAISED)
    del _RAISED[:]
    return taken


def _sample_positions() -> list:
    """Unfinished tic-tac-toe positions (0 to 5 marks, seeded), where EVALs are compared."""
    from ...games.tictactoe import TicTacToe

    game = TicTacToe()
    out = [game.initial_state()]
    for case in tictactoe_cases(577, SAMPLE_POSITIONS, marks=(1, 5)):
        out.append(case.game.initial_state())
    return out[:SAMPLE_POSITIONS]


def _own_evaluation(evaluate: Callable[[Any], float], time_limit: float | None, *,
                    measure: bool = False) -> None:
    """Fail if ``evaluate`` returns exactly ``TicTacToe.evaluate``'s value on every sample position.

    The assignment asks for the student's own evaluation function; the game's
    own one would pass the targets without any work.  With ``measure``, an
    evaluation function graded in the sandbox also has its work counted (lines
    of Python per position): one that searches ahead is flagged for review.
    """
    from ...games.tictactoe import TicTacToe

    game = TicTacToe()
    positions = _sample_positions()
    theirs = [game.evaluate(s) for s in positions]
    counted = getattr(evaluate, "counted", None) if measure else None
    each = evaluate.each if _runs_in_sandbox(evaluate) else None
    if counted is None:
        mine = _run("your evaluation function on sample positions",
                    (lambda: [evaluate(s) for s in positions]) if each is None else
                    (lambda: _each_value(evaluate, [(s,) for s in positions])), time_limit)
    else:
        pairs = _run("your evaluation function on sample positions",
                     (lambda: [counted(s) for s in positions]) if each is None else
                     (lambda: _each_value(evaluate, [(s,) for s in positions], count=True)),
                     time_limit)
        mine = [value for value, _ in pairs]
        _flag_search([lines for _, lines in pairs])
    if all(isinstance(a, Real) and not isinstance(a, bool) and a == b for a, b in zip(mine, theirs)):
        raise CheckFailed(
            f"your evaluation function returns exactly the values of the course's TicTacToe.evaluate "
            f"on all {len(positions)} sample positions.\nThe assignment asks for your own idea: do "
            "not call or copy TicTacToe.evaluate.")


def _flag_search(lines: list) -> None:
    """Print a review flag if the counted lines per position say the function searches."""
    known = [n for n in lines if isinstance(n, int)]
    if not known:
        return
    if any(n < 0 for n in known):
        flag_for_review("your evaluation function switched off the grader's count of its "
                        "work (sys.settrace); it is looked at by hand.")
        return
    median = sorted(known)[len(known) // 2]
    if median > SEARCH_LINES:
        flag_for_review(f"your evaluation function runs about {median} lines of Python per "
                        f"position (an estimate from the board's features needs far fewer than "
                        f"{SEARCH_LINES}); an evaluation function that searches ahead is looked "
                        "at by hand.")


def _run(what: str, call: Callable[[], Any], time_limit: float | None) -> Any:
    try:
        with _time_limit(time_limit):
            return call()
    except CheckFailed:
        raise
    except TimeLimitExceeded:
        raise SearchTimeout(f"{what} took longer than {fmt(time_limit)} seconds; make your "
                            "evaluation function faster (it is called thousands of times)") from None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported with its type and message
        hint = " Replace `raise NotImplementedError()` with your code." if isinstance(exc, NotImplementedError) else ""
        raise SearchCrashed(f"{what}: your function raised {raised(exc)}.{hint}") from exc


@functools.lru_cache(maxsize=32)
def _given_order_leaves(seed: int, count: int) -> int:
    """Leaves alpha-beta evaluates in the game's own move order on the ordering check's positions
    (the same for every student: computed once per grading process)."""
    return sum(alphabeta(c.game).evaluated for c in tictactoe_cases(seed, count, marks=(1, 3)))


def check_evaluation_ordering(evaluate: Callable[[Any], float], *, seed: int = 501, count: int = 12,
                              time_limit: float | None = 4 * DEFAULT_TIME_LIMIT) -> None:
    """Check that ordering by ``evaluate`` makes alpha-beta cheap on tic-tac-toe positions.

    Parameters
    ----------
    evaluate : callable
        The student's EVAL: a tic-tac-toe state -> a number strictly between -1 and 1.
    seed, count : int
        The positions (:func:`~course.grading.checks.cases.tictactoe_cases` with 1 to 3 marks).
    time_limit : float or None
        Seconds for the whole check.

    Raises
    ------
    CheckFailed
        If ``evaluate`` returns something that is not a number strictly inside (-1, 1),
        returns exactly ``TicTacToe.evaluate``'s values on the sample positions, or
        ordering by it costs more than :data:`ORDERING_FRACTION` of the given order's leaves.
    SearchCrashed, SearchTimeout
        If ``evaluate`` raises or is too slow.
    """
    __tracebackhide__ = True
    _own_evaluation(evaluate, time_limit, measure=True)
    cases = tictactoe_cases(seed, count, marks=(1, 3))
    given = _given_order_leaves(seed, count)
    guarded = _Guarded(evaluate, cases[0].game.vmin, cases[0].game.vmax)

    def measure() -> list[int]:
        return [alphabeta(_AskedAhead(c.game, guarded), order="heuristic").evaluated for c in cases]

    counts = _run("ordering by your evaluation function", measure, time_limit)
    total, limit = sum(counts), given * ORDERING_FRACTION
    if total > limit:
        worst = max(range(len(cases)), key=lambda i: counts[i])
        raise CheckFailed(
            f"with moves ordered by your evaluation function alpha-beta evaluates {total} leaves on "
            f"{len(cases)} tic-tac-toe positions; the game's own order costs {given}, and the target "
            f"is at most {math.floor(limit)} (a third of it). The costliest position "
            f"is {cases[worst].name} ({counts[worst]} leaves). Rate the moves that win, block or "
            "create threats higher.")
    print(f"ordering by your evaluation function: {total} leaves on {len(cases)} positions "
          f"(the game's own order: {given}; target: at most {math.floor(limit)}).")


@functools.lru_cache(maxsize=None)
def _ttt_value(state: Any) -> int:
    """The minimax value of a tic-tac-toe board (a plain walk; every board is asked once)."""
    from ...games.tictactoe import TicTacToe

    game = TicTacToe()
    if game.is_terminal(state):
        return game.utility(state)
    values = [_ttt_value(game.result(state, m)) for m in game.moves(state)]
    return max(values) if state.to_move == "X" else min(values)


@functools.lru_cache(maxsize=None)
def _perfect_moves(state: Any) -> tuple[int, ...]:
    """Indices (in ``moves``) of every move that keeps the mover's minimax value: a perfect
    player may play any of them, and every perfect player plays only these."""
    from ...games.tictactoe import TicTacToe

    game = TicTacToe()
    value = _ttt_value(state)
    return tuple(i for i, m in enumerate(game.moves(state))
                 if _ttt_value(game.result(state, m)) == value)


def check_evaluation_play(evaluate: Callable[[Any], float], *, depth: int = 2,
                          time_limit: float | None = 4 * DEFAULT_TIME_LIMIT) -> None:
    """Check that a shallow search with ``evaluate`` never loses tic-tac-toe to any perfect opponent.

    The student's side searches ``depth`` moves deep with alpha-beta and
    ``evaluate`` at the horizon.  A *perfect* opponent never makes a move that
    lowers its minimax value; at each of its turns it may play any of the moves
    that keep it, so there are many perfect opponents (and randomised ones).
    The check plays against all of them at once: from the empty board and from
    each of the nine first moves, with the student as X and as O, it follows
    every move every perfect opponent can make (the student's moves are
    determined by the search), which covers every game a perfect opponent can
    play.  All these starting positions are draws with perfect play.

    Raises
    ------
    CheckFailed
        If a game is lost (the message gives the moves of one), ``evaluate``
        returns something that is not a number strictly inside (-1, 1), or
        exactly ``TicTacToe.evaluate``'s values on the sample positions.
    SearchCrashed, SearchTimeout
        If ``evaluate`` raises or is too slow.
    """
    from ...games.tictactoe import TicTacToe

    __tracebackhide__ = True
    _own_evaluation(evaluate, time_limit)
    game = TicTacToe()
    guarded = _Guarded(evaluate, game.vmin, game.vmax)
    shallow = EvaluatedGame(game, guarded)
    starts = [game.initial_state()] + [game.result(game.initial_state(), m) for m in range(9)]
    chosen: dict[Any, int] = {}            # the student's move on a board (their search decides)

    def play_all() -> list[tuple[str, Any, int, list | None]]:
        out = []
        for start in starts:
            for side in ("X", "O"):
                sign = 1 if side == "X" else -1
                memo: dict[Any, tuple[int, list | None]] = {}

                def explore(state: Any) -> tuple[int, list | None]:
                    """(games below ``state``, the moves of one lost game or None)."""
                    if state in memo:
                        return memo[state]
                    if game.is_terminal(state):
                        result = (1, [] if game.utility(state) * sign < 0 else None)
                    else:
                        moves = list(game.moves(state))
                        if state.to_move == side:
                            if state not in chosen:
                                chosen[state] = alphabeta(shallow, state, depth=depth).move
                            indices: tuple[int, ...] = (chosen[state],)
                        else:
                            indices = _perfect_moves(state)
                        games, lost = 0, None
                        for i in indices:
                            n, line = explore(game.result(state, moves[i]))
                            games += n
                            if line is not None and lost is None:
                                lost = [game.describe_move(state, moves[i])] + line
                        result = (games, lost)
                    memo[state] = result
                    return result

                games, lost = explore(start)
                out.append((side, start, games, lost))
        return out

    results = _run("playing with your evaluation function", play_all, time_limit)
    total = sum(games for _, _, games, _ in results)
    lost = [r for r in results if r[3] is not None]
    if lost:
        side, start, _, line = lost[0]
        raise CheckFailed(
            f"searching {depth} moves deep with your evaluation function, you can lose against a "
            f"perfect opponent (all these games can be drawn): from {len(lost)} of the "
            f"{len(results)} starts (the empty board and each first move, as X and as O). For "
            f"example, playing {side} from\n{start}\nthe game went: {', '.join(line)}. Value the "
            "threats that the opponent can complete on its next move.")
    print(f"searching {depth} moves deep with your evaluation function, you never lose: {total} "
          f"games, every game any perfect opponent can play against you from the empty board and "
          "from each first move, as X and as O.")


def check_best_case_formula(formula: Callable[[int, int], int], *, branching=range(2, 5),
                            depths=range(1, 5)) -> None:
    """Check a formula for alpha-beta's best case against searches with perfect ordering.

    For each branching factor ``b`` and depth ``d``, ``formula(b, d)`` must
    equal the leaves alpha-beta evaluates with ``order="best-first"`` on a
    uniform tree of branching ``b`` and depth ``d`` with distinct leaf values.

    Raises
    ------
    WrongValue
        At the first ``(b, d)`` where they differ (the message gives both).
    SearchCrashed
        If ``formula`` raises.
    """
    for b in branching:
        for d in depths:
            tree = exercise_tree(7 * b + d, depth=d, branching=(b, b), values=(0, 10**9),
                                 leaf_probability=0.0)
            expected = alphabeta(tree, order="best-first").evaluated
            got = _run(f"formula({b}, {d})", lambda: formula(b, d), DEFAULT_TIME_LIMIT)
            if got != expected:
                raise WrongValue(
                    f"for b = {b}, d = {d} your formula gives {got!r}; alpha-beta with perfect "
                    f"ordering evaluates {expected} leaves (a full tree has {b ** d}).")
    print(f"your formula matches alpha-beta with perfect ordering for b in {list(branching)} and "
          f"d in {list(depths)}.")



def check_naive_drift(drift: Callable[[int, Any], Any], *, ms=range(1, 5), epsilons=(1, 2)) -> None:
    """Check a measured drift of the naive epsilon rule on the BAB paper's Figure 2 trees.

    ``drift(m, epsilon)`` must return how far the naive rule's value lies above
    the minimax value on ``naive_epsilon_counterexample(m=m, x=10, epsilon=epsilon)``,
    as :func:`course.search.naive_epsilon` and :func:`course.search.alphabeta` measure it.

    Raises
    ------
    WrongValue
        At the first ``(m, epsilon)`` where they differ (the message gives both,
        and BAB's error bound for comparison).
    SearchCrashed, SearchTimeout
        If ``drift`` raises or is too slow.
    """
    from ...examples import naive_epsilon_counterexample
    from ...search import naive_epsilon

    __tracebackhide__ = True
    for m in ms:
        for eps in epsilons:
            game = naive_epsilon_counterexample(m=m, x=10, epsilon=eps)
            expected = naive_epsilon(game, epsilon=eps).value - alphabeta(game).value
            got = _run(f"naive_drift({m}, {fmt(eps)})", lambda: drift(m, eps), DEFAULT_TIME_LIMIT)
            if isinstance(got, bool) or not isinstance(got, Real) or not math.isclose(got, expected):
                raise WrongValue(
                    f"naive_drift({m}, {fmt(eps)}) returned {got!r}; the naive rule's value lies "
                    f"{fmt(expected)} above the true value.\nOn this tree the naive value is "
                    f"{fmt(naive_epsilon(game, epsilon=eps).value)} and the true value "
                    f"{fmt(alphabeta(game).value)}; BAB's bounds are never more than epsilon = "
                    f"{fmt(eps)} apart.")
    print(f"your drift matches the naive rule's for m in {list(ms)} and epsilon in "
          f"{[fmt(e) for e in epsilons]}: it grows as m * epsilon.")


#: The largest tree :func:`check_u_trap` accepts (nodes).
TRAP_NODES = 200


def choice_losses(game: Any, epsilon: Any) -> dict:
    """What choosing Bounded Alpha-Beta's root move by ``L`` or by ``U`` loses, in true value.

    Parameters
    ----------
    game : TreeGame
        With a MAX root.
    epsilon : number

    Returns
    -------
    dict
        ``children``: ``(index, L, U, true value)`` of every root child BAB searched;
        ``value``: the root's minimax value; ``by_L``, ``by_U``: the child chosen by the
        highest ``L`` (BAB's move) and by the highest ``U`` (first on ties);
        ``loss_L``, ``loss_U``: how much less than the root's value each is worth.

    Examples
    --------
    The move test of Assignment 4: by U one would take child 2, worth 3, one less
    than the best, so within epsilon = 2.

    >>> from course import parse_tree
    >>> out = choice_losses(parse_tree({"tree": [[4, 1, 3], [7, 4, 8], [5, 3]],
    ...                                 "bounds": [0, 9]}), 2)
    >>> out["by_L"], out["loss_L"], out["by_U"], out["loss_U"]
    (1, 0, 2, 1)
    """
    from ...search import bab, minimax

    result = bab(game, epsilon=epsilon)
    root = game.initial_state()
    moves = list(game.moves(root))
    children = [(i, lo, hi, minimax(game, game.result(root, moves[i])).value)
                for i, lo, hi in result.children]
    value = minimax(game).value
    by_l = max(children, key=lambda c: (c[1], -c[0]))
    by_u = max(children, key=lambda c: (c[2], -c[0]))
    return {"children": children, "value": value, "by_L": by_l[0], "by_U": by_u[0],
            "loss_L": value - by_l[3], "loss_U": value - by_u[3]}


def check_u_trap(build: Callable[[Any], Any], *, epsilons=(1, 2),
                 time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
    """Check a student's trap: a tree on which choosing BAB's move by ``U`` loses more than epsilon.

    ``build(epsilon)`` must return a tree as :func:`course.parse_tree` reads it, with
    bounds (``{"tree": ..., "bounds": [vmin, vmax]}``) and a MAX root, such that Bounded
    Alpha-Beta run with that epsilon, choosing the root child with the highest upper
    bound ``U`` (the first on ties), picks a child whose minimax value is more than
    epsilon below the root's.

    Raises
    ------
    CheckFailed
        If the tree cannot be read, has no bounds or a MIN root, is too big, or is no trap
        for one of the epsilons (the message gives every root child's bounds and true value).
    SearchCrashed, SearchTimeout
        If ``build`` raises or is too slow.

    Examples
    --------
    >>> check_u_trap(lambda eps: {"tree": [[10 * eps], [11 * eps, 0]], "bounds": [0, 12 * eps]})
    your trap works for epsilon = 1, 2: BAB's move by U loses more than epsilon (by L: never).
    """
    from ...errors import CourseError
    from ...game import Player
    from ...trees import TreeGame, parse_tree

    __tracebackhide__ = True
    for eps in epsilons:
        spec = _run(f"u_trap({fmt(eps)})", lambda: build(eps), time_limit)
        try:
            game = parse_tree(spec)
        except (CourseError, TypeError, ValueError, KeyError) as exc:
            raise CheckFailed(f"u_trap({fmt(eps)}) returned something parse_tree cannot read: "
                              f"{raised(exc, limit=200)}") from None
        if not isinstance(game, TreeGame):
            raise CheckFailed(f"u_trap({fmt(eps)}) must return a tree for parse_tree")
        if not all(isinstance(b, Real) and math.isfinite(b) for b in (game.vmin, game.vmax)) \
                or not (isinstance(spec, dict) and "bounds" in spec):
            raise CheckFailed(f"u_trap({fmt(eps)}): give the tree bounds, "
                              '{"tree": ..., "bounds": [vmin, vmax]}: BAB needs them')
        if game.root.size > TRAP_NODES:
            raise CheckFailed(f"u_trap({fmt(eps)}): your tree has {game.root.size} nodes; a trap "
                              f"needs far fewer (at most {TRAP_NODES} are accepted)")
        if game.root.is_leaf or game.turn(game.initial_state()) is not Player.MAX:
            raise CheckFailed(f"u_trap({fmt(eps)}): the root must be a MAX node")
        out = choice_losses(game, eps)
        if not out["loss_U"] > eps:
            children = "; ".join(f"child {i}: [{fmt(lo)}, {fmt(hi)}], truly {fmt(v)}"
                                 for i, lo, hi, v in out["children"])
            searched = ""
            if len(out["children"]) < len(game.root.children):
                searched = (f" BAB searched only {len(out['children'])} of the root's "
                            f"{len(game.root.children)} children (the root itself pruned).")
            raise CheckFailed(
                f"with epsilon = {fmt(eps)} your tree is no trap: choosing by U takes child "
                f"{out['by_U']}, which loses {fmt(out['loss_U'])}, not more than epsilon.\n"
                f"BAB's root children (the root is worth {fmt(out['value'])}): {children}."
                + searched)
    print(f"your trap works for epsilon = {', '.join(fmt(e) for e in epsilons)}: BAB's move by U "
          "loses more than epsilon (by L: never).")
