"""Test cases for the graded exercises: textbook trees, seeded random trees, real games.

A :class:`Case` is one thing to run a student's search on: a game, the state
to search from, and the search's parameters (depth limit, epsilon).  The
generators here build the cases the exercise notebooks use, always from a
seed, so a case can be rebuilt exactly from the recipe shown in feedback.

Random *exercise trees* (:func:`exercise_tree`) are small explicit trees with
integer leaves in a narrow range, so that ties are frequent (the cut-on-
equality rule matters) and leaves often reach the bounds ``vmin`` and
``vmax`` (where Star1 and BAB prune more than alpha-beta).  Chance nodes get
*dyadic* probabilities (1/2, 1/4, 3/8, ...): with integer leaves every sum,
product and division a search makes is then exact in binary floating point as
well as in :class:`fractions.Fraction`, so a correct search never differs from
the reference by a rounding error.

References
----------
S. Russell, P. Norvig, *Artificial Intelligence: A Modern Approach*, fig. 5.2.
D. Atzmon, R. Stern, A. Saffidine, *Bounded Suboptimal Game Tree Search*, SoCS 2018
    (seed 000): Figures 2 and 3.
CS 520 note *alpha-beta Pruning with Chance* (seed 002): the two-move chance game.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...errors import ParameterError
from ...game import Game, GameView, Player
from ...trees import TreeGame, TreeNode, parse_tree, tree_to_obj

__all__ = [
    "Case",
    "as_cases",
    "exercise_tree",
    "exercise_cases",
    "textbook_cases",
    "tictactoe_cases",
    "pig_cases",
    "playout_estimate",
    "EvaluatedGame",
    "DYADIC_DISTRIBUTIONS",
    "with_depth_limit",
    "with_evaluation",
    "moves_by_bounds_differ",
    "ReversedOutcomes",
    "with_reversed_outcomes",
]

#: Chance distributions used by :func:`exercise_tree`, by number of outcomes.
DYADIC_DISTRIBUTIONS: dict[int, tuple[tuple[Fraction, ...], ...]] = {
    2: tuple(tuple(Fraction(a, d) for a in pair) for pair, d in
             (((1, 1), 2), ((1, 3), 4), ((3, 1), 4), ((3, 5), 8), ((5, 3), 8))),
    3: tuple(tuple(Fraction(a, d) for a in triple) for triple, d in
             (((1, 1, 2), 4), ((2, 1, 1), 4), ((1, 3, 4), 8), ((1, 2, 1), 4))),
}


@dataclass(frozen=True)
class Case:
    """One test case: a game, where to search from, and the search's parameters."""

    name: str
    """How feedback names the case, e.g. ``"AIMA figure 5.2"``."""
    game: Game
    """The game (the checker wraps it in an instrumented copy)."""
    state: Any = None
    """The state to search from; None means ``game.initial_state()``."""
    depth: int | None = None
    """Depth limit for depth-limited searches (None: search to terminal states)."""
    epsilon: Any = None
    """Error bound for Bounded Alpha-Beta (None for the other searches)."""
    recipe: str | None = None
    """Python code that rebuilds the game, shown in feedback."""
    evaluate: Callable[[Any], Any] | None = field(default=None, compare=False)
    """EVAL for the depth limit; None means ``game.evaluate``."""
    error: Callable[[Any], Any] | None = field(default=None, compare=False)
    """An error bound of EVAL per state (the selective-search exercise, lesson 3), or None."""
    kept: Callable[[Any], Any] | None = field(default=None, compare=False)
    """The moves a selective search keeps at a state (in ``game.moves`` order), or None."""
    e0: Any = None
    """The omission error bound of a selective search (with ``kept``), or None."""

    def describe(self) -> str:
        """The name plus the search parameters, e.g. ``"Figure 3 (epsilon = 2)"``."""
        extra = []
        if self.depth is not None:
            extra.append(f"depth limit {self.depth}")
        if self.epsilon is not None:
            extra.append(f"epsilon = {self.epsilon}")
        if self.e0 is not None:
            extra.append(f"e0 = {self.e0}")
        return self.name + (f" ({', '.join(extra)})" if extra else "")

    def with_params(self, **changes: Any) -> "Case":
        """A copy with some fields changed (e.g. ``case.with_params(epsilon=2)``)."""
        values = {f: getattr(self, f) for f in self.__dataclass_fields__}
        values.update(changes)
        return Case(**values)


def as_cases(cases: Any, *, depth: int | None = None, epsilon: Any = None) -> list[Case]:
    """Normalise what a check was given: a game, a :class:`Case`, or an iterable of them.

    Parameters
    ----------
    cases : Game, Case or iterable of those
    depth, epsilon : optional
        Parameters for cases that do not set their own.

    Returns
    -------
    list of Case

    Raises
    ------
    ParameterError
        If an item is neither a Game nor a Case, or nothing is given.

    Examples
    --------
    >>> from course import parse_tree
    >>> [c.name for c in as_cases(parse_tree([1, 2]))]
    ['the tree [1, 2]']
    """
    if isinstance(cases, (Game, Case)):
        cases = [cases]
    try:
        items = list(cases)
    except TypeError:
        raise ParameterError(
            f"expected a Game, a Case or a list of them, got {type(cases).__name__}"
        ) from None
    if not items:
        raise ParameterError("no test cases given")
    out = []
    for item in items:
        if isinstance(item, Game):
            item = Case(_game_name(item), item, recipe=_game_recipe(item))
        elif not isinstance(item, Case):
            raise ParameterError(f"expected a Game or a Case, got {type(item).__name__}")
        if item.depth is None and depth is not None:
            item = item.with_params(depth=depth)
        if item.epsilon is None and epsilon is not None:
            item = item.with_params(epsilon=epsilon)
        out.append(item)
    return out


def _game_name(game: Game) -> str:
    if isinstance(game, TreeGame):
        text = json.dumps(tree_to_obj(game, with_bounds=False), default=str)
        plain = _plain_tree(game.root)
        if plain is not None:
            text = json.dumps(plain)
        return f"the tree {text}" if len(text) <= 80 else f"a tree of {game.root.size} nodes"
    return repr(game)


def _plain_tree(node: TreeNode) -> Any:
    """The tree as nested lists if it is a plain alternating MAX-rooted tree without labels."""
    def rec(n: TreeNode, expect: str) -> Any:
        if n.is_leaf:
            return n.value if n.label is None and isinstance(n.value, int) else None
        if n.kind != expect or n.label is not None:
            return None
        items = [rec(c, "min" if expect == "max" else "max") for c in n.children]
        return None if any(i is None for i in items) else items
    return rec(node, "max")


def _game_recipe(game: Game) -> str | None:
    if isinstance(game, TreeGame):
        return f"course.parse_tree({json.dumps(tree_to_obj(game), default=_json_number)})"
    return None


def _json_number(x: Any) -> Any:
    if isinstance(x, Fraction):
        return float(x)
    raise TypeError(f"cannot write {type(x).__name__} as JSON")


# ---------------------------------------------------------------------------
# evaluation functions for depth-limited search on explicit trees
# ---------------------------------------------------------------------------
def playout_estimate(state: Any) -> Any:
    """EVAL for explicit trees: the leaf reached by always taking the first child.

    A crude "playout" estimate: cheap, deterministic, and often wrong, which
    is what makes depth-limited search on these trees interesting.

    Parameters
    ----------
    state : TreeNode

    Returns
    -------
    number
        The value of the first-child leaf below ``state`` (``state``'s own
        value if it is a leaf).

    Examples
    --------
    >>> from course import parse_tree
    >>> g = parse_tree([[3, 12], [2, 4]])
    >>> playout_estimate(g.root), playout_estimate(g.root.children[1])
    (3, 2)
    """
    node = state
    while not node.is_leaf:
        node = node.children[0]
    return node.value


class EvaluatedGame(GameView):
    """A game with a different EVAL: every other method is the wrapped game's.

    Parameters
    ----------
    game : Game
    evaluate : callable
        ``evaluate(state) -> number``, used for non-terminal states; terminal
        states keep their utility.

    Examples
    --------
    >>> from course import parse_tree
    >>> from course.search import minimax
    >>> g = EvaluatedGame(parse_tree([[3, 12], [2, 4]]), playout_estimate)
    >>> minimax(g, depth=1).value
    3
    """

    def __init__(self, game: Game, evaluate: Callable[[Any], Any]) -> None:
        if not isinstance(game, Game):
            raise ParameterError(f"EvaluatedGame needs a course Game, got {type(game).__name__}")
        super().__init__(game)
        self._evaluate = evaluate

    def __repr__(self) -> str:
        return f"{self.game!r} with EVAL {getattr(self._evaluate, '__name__', self._evaluate)!s}"

    def evaluate(self, state):
        return self.game.utility(state) if self.game.is_terminal(state) else self._evaluate(state)


# ---------------------------------------------------------------------------
# random exercise trees
# ---------------------------------------------------------------------------
def exercise_tree(
    seed: int,
    *,
    depth: int = 3,
    branching: tuple[int, int] = (2, 3),
    values: tuple[int, int] = (0, 4),
    chance: float = 0.0,
    root: str = "max",
    leaf_probability: float = 0.1,
) -> TreeGame:
    """A seeded random explicit tree for exercises.

    Parameters
    ----------
    seed : int
        The tree is a pure function of all the arguments.
    depth : int
        Levels below the root (chance levels included); leaves deeper than
        this do not occur.
    branching : (int, int)
        Decision nodes get a uniform number of children in this range.
        Chance nodes get 2 or 3 outcomes with dyadic probabilities
        (:data:`DYADIC_DISTRIBUTIONS`).
    values : (int, int)
        Leaves are integers drawn uniformly from this range, which is also
        the tree's bounds ``[vmin, vmax]``.  A narrow range gives many ties.
    chance : float
        Probability that a decision node's children are chance nodes (whose
        outcomes lead to the other player).  0 gives a MAX/MIN tree.
    root : ``"max"`` or ``"min"``
        The player at the root.
    leaf_probability : float
        Probability that a non-root node above the last level is a leaf anyway.

    Returns
    -------
    TreeGame
        With bounds ``values``.

    Raises
    ------
    ParameterError
        For a depth below 1, an empty range, or a probability outside [0, 1].

    Examples
    --------
    >>> g = exercise_tree(1, depth=2, branching=(2, 2), values=(0, 3))
    >>> g.root.kind, len(g.root.children), (g.vmin, g.vmax)
    ('max', 2, (0, 3))
    >>> exercise_tree(1, depth=2, branching=(2, 2), values=(0, 3)).to_obj() == g.to_obj()
    True
    """
    if not isinstance(depth, int) or depth < 1:
        raise ParameterError(f"depth must be an integer >= 1, got {depth!r}")
    lo_b, hi_b = branching
    if not 1 <= lo_b <= hi_b:
        raise ParameterError(f"branching must be (low, high) with 1 <= low <= high, got {branching!r}")
    lo_v, hi_v = values
    if lo_v >= hi_v:
        raise ParameterError(f"values must be (low, high) with low < high, got {values!r}")
    for name, p in (("chance", chance), ("leaf_probability", leaf_probability)):
        if not 0 <= p <= 1:
            raise ParameterError(f"{name} must lie in [0, 1], got {p!r}")
    if root not in ("max", "min"):
        raise ParameterError(f'root must be "max" or "min", got {root!r}')
    rng = random.Random(f"exercise-tree/{seed}/{depth}/{branching}/{values}/{chance}/{root}/{leaf_probability}")

    def leaf() -> int:
        return rng.randint(lo_v, hi_v)

    def decision(player: str, level: int) -> Any:
        if level >= depth or (level > 0 and rng.random() < leaf_probability):
            return leaf()
        n = rng.randint(lo_b, hi_b)
        other = "min" if player == "max" else "max"
        if level + 1 < depth and rng.random() < chance:
            kids = [chance_node(other, level + 1) for _ in range(n)]
        else:
            kids = [decision(other, level + 1) for _ in range(n)]
        return {player: kids}

    def chance_node(next_player: str, level: int) -> Any:
        k = 2 if level + 1 >= depth else rng.choice((2, 2, 3))
        probabilities = rng.choice(DYADIC_DISTRIBUTIONS[k])
        return {"chance": [[p, decision(next_player, level + 1)] for p in probabilities]}

    return parse_tree({"tree": decision(root, 0), "bounds": [lo_v, hi_v]})


def exercise_cases(
    seed: int,
    count: int,
    *,
    depth: int | Sequence[int] = (2, 4),
    branching: tuple[int, int] = (2, 3),
    values: tuple[int, int] = (0, 4),
    chance: float = 0.0,
    roots: Sequence[str] = ("max",),
    leaf_probability: float = 0.1,
    epsilons: Sequence[Any] | None = None,
    depth_limits: Sequence[int] | None = None,
    evaluate: Callable[[Any], Any] | None = None,
    where: Callable[[Case], bool] | None = None,
    max_tries: int = 10_000,
) -> list[Case]:
    """``count`` seeded random exercise trees as cases.

    Parameters
    ----------
    seed : int
        Case ``i`` uses tree seed ``seed * 1000 + i`` (and so on past
        rejected candidates, see ``where``).
    count : int
    depth : int or (int, int)
        Tree depth, or a range to draw it from.
    branching, values, chance, leaf_probability
        As for :func:`exercise_tree`.
    roots : sequence of ``"max"``/``"min"``
        Root players, used in turn.
    epsilons : sequence, optional
        For Bounded Alpha-Beta: epsilons, used in turn.
    depth_limits : sequence of int, optional
        For depth-limited search: depth limits, used in turn (with
        ``evaluate``, default :func:`playout_estimate`).
    where : callable, optional
        Keep only cases for which ``where(case)`` is true (e.g. trees where
        choosing the move by ``U`` would be wrong).
    max_tries : int
        Give up (a :class:`ParameterError`) after this many candidates.

    Returns
    -------
    list of Case

    Examples
    --------
    >>> cases = exercise_cases(3, 4, roots=("max", "min"))
    >>> [c.game.root.kind for c in cases]
    ['max', 'min', 'max', 'min']
    >>> cases[0].name
    'random tree #1 (seed 3000)'
    """
    if not isinstance(count, int) or count < 1:
        raise ParameterError(f"count must be a positive integer, got {count!r}")
    rng = random.Random(f"exercise-cases/{seed}")
    out: list[Case] = []
    tries = 0
    while len(out) < count:
        if tries >= max_tries:
            raise ParameterError(f"found only {len(out)} of {count} cases in {max_tries} tries")
        tree_seed = seed * 1000 + tries
        tries += 1
        d = depth if isinstance(depth, int) else rng.randint(depth[0], depth[1])
        k = len(out)
        root = roots[k % len(roots)]
        kwargs = dict(depth=d, branching=branching, values=values, chance=chance, root=root,
                      leaf_probability=leaf_probability)
        game = exercise_tree(tree_seed, **kwargs)
        args = ", ".join(f"{key}={value!r}" for key, value in kwargs.items())
        recipe = f"course.grading.exercise_tree({tree_seed}, {args})"
        case = Case(f"random tree #{k + 1} (seed {tree_seed})", game, recipe=recipe)
        if epsilons is not None:
            case = case.with_params(epsilon=epsilons[k % len(epsilons)])
        if depth_limits is not None:
            limit = depth_limits[k % len(depth_limits)]
            case = case.with_params(depth=limit, evaluate=evaluate or playout_estimate,
                                    game=EvaluatedGame(game, evaluate or playout_estimate))
        if where is None or where(case):
            out.append(case)
    return out


#: Builders :func:`fixed_cases` can call.
_FIXED_BUILDERS = ("exercise_cases", "tictactoe_cases")


def fixed_cases(builder: str, seed: int, count: int, **kwargs: Any) -> list[Case]:
    """Cases that are the same in every class: a builder run with the seed written here.

    The hidden tests draw most of their cases from the class's grading secret, so that the
    seeds published in ``solutions/`` do not give them away.  Whether a random draw catches a
    given rule mistake depends on the draw, so the same wrong code could lose a point in one
    class and keep it in another.  Each hidden test therefore adds, beside its random cases,
    fixed cases found to expose every rule mistake its checks know (the mutants of
    ``tests/test_grading_mutants.py``); the grader never derives their seed from the secret
    (only the builders named in ``SALTED_BUILDERS`` are salted, and this one takes the
    builder's *name*).  ``tests/test_grading_secret.py`` grades every mutant under many
    secrets and finds the same points each time.

    Parameters
    ----------
    builder : {"exercise_cases", "tictactoe_cases"}
        Which case builder of this module to run.
    seed, count, **kwargs
        Its arguments, as written.

    Returns
    -------
    list of Case

    Raises
    ------
    ParameterError
        For another builder name.

    Examples
    --------
    >>> [c.name for c in fixed_cases("exercise_cases", 4, 2)]
    ['random tree #1 (seed 4000)', 'random tree #2 (seed 4001)']
    """
    if builder not in _FIXED_BUILDERS:
        raise ParameterError(f"fixed_cases runs one of {list(_FIXED_BUILDERS)}, got {builder!r}")
    return globals()[builder](seed, count, **kwargs)


# ---------------------------------------------------------------------------
# textbook trees
# ---------------------------------------------------------------------------
def textbook_cases(kind: str) -> list[Case]:
    """The worked examples of the sources, as cases for one kind of search.

    Parameters
    ----------
    kind : str
        ``"minimax"`` (MAX/MIN trees), ``"chance"`` (trees with chance nodes)
        or ``"bounded"`` (trees for Bounded Alpha-Beta, with epsilons).

    Returns
    -------
    list of Case

    Raises
    ------
    ParameterError
        For an unknown ``kind``.

    Examples
    --------
    >>> [c.name for c in textbook_cases("minimax")][:2]
    ['AIMA figure 5.2', 'BAB paper figure 2 (naive epsilon), m = 3']
    """
    from ... import examples as ex

    if kind == "minimax":
        return [
            Case("AIMA figure 5.2", ex.aima_figure_5_2(), recipe="course.examples.aima_figure_5_2()"),
            Case("BAB paper figure 2 (naive epsilon), m = 3", ex.naive_epsilon_counterexample(),
                 recipe="course.examples.naive_epsilon_counterexample()"),
            Case("BAB paper figure 3", ex.bab_figure3(), recipe="course.examples.bab_figure3()"),
        ]
    if kind == "chance":
        cases = [
            Case("lecture notes: one chance node", ex.expectimax_example(),
                 recipe="course.examples.expectimax_example()"),
            Case("lecture notes: pruning with known bounds", ex.expectimax_pruning_example(),
                 recipe="course.examples.expectimax_pruning_example()"),
            Case("CS 520 chance game", ex.chance_note_game(), recipe="course.examples.chance_note_game()"),
        ]
        for u in (-1, 0, 1):
            cases.append(Case(f"CS 520 chance game, U(a2, c1) = {u}", ex.chance_note_game(u_a2_c1=u),
                              recipe=f"course.examples.chance_note_game(u_a2_c1={u})"))
        return cases
    if kind == "bounded":
        cases = []
        for eps in (0, 1, 2):
            cases.append(Case("BAB paper figure 3", ex.bab_figure3(), epsilon=eps,
                              recipe="course.examples.bab_figure3()"))
        for eps in (0, 1):
            cases.append(Case("BAB paper figure 2 (naive epsilon), m = 3",
                              ex.naive_epsilon_counterexample(), epsilon=eps,
                              recipe="course.examples.naive_epsilon_counterexample()"))
        cases.append(Case("CS 520 chance game", ex.chance_note_game(), epsilon=Fraction(1, 4),
                          recipe="course.examples.chance_note_game()"))
        return cases
    raise ParameterError(f'unknown kind {kind!r}; choose "minimax", "chance" or "bounded"')


# ---------------------------------------------------------------------------
# real games
# ---------------------------------------------------------------------------
def tictactoe_cases(seed: int, count: int, *, marks: int | Sequence[int] = (3, 4),
                    depth: int | None = None) -> list[Case]:
    """Tic-tac-toe positions reached by seeded random play, as cases.

    Parameters
    ----------
    seed : int
    count : int
    marks : int or (int, int)
        How many marks are on the board (drawn from the range); fewer marks
        mean bigger trees (6 empty cells: at most 720 move sequences).
    depth : int, optional
        A depth limit (searches then use :meth:`TicTacToe.evaluate`).

    Returns
    -------
    list of Case
        Positions where the game is not over; X or O to move.

    Examples
    --------
    >>> [c.game.initial_state().cells.count(".") for c in tictactoe_cases(1, 3, marks=4)]
    [5, 5, 5]
    """
    from ...games.tictactoe import TicTacToe, TicTacToeState

    game = TicTacToe()
    rng = random.Random(f"tictactoe-cases/{seed}")
    out: list[Case] = []
    while len(out) < count:
        k = marks if isinstance(marks, int) else rng.randint(marks[0], marks[1])
        state = game.initial_state()
        for _ in range(k):
            if game.is_terminal(state):
                break
            state = game.result(state, rng.choice(list(game.moves(state))))
        if game.is_terminal(state):
            continue
        board = state.cells
        rows = " / ".join(board[i:i + 3] for i in (0, 3, 6))
        position = TicTacToe(start=TicTacToeState(board))
        out.append(Case(f"tic-tac-toe {rows} ({state.to_move} to move)", position, depth=depth,
                        recipe=f"course.games.TicTacToe(start={rows!r})"))
    return out


def pig_cases(settings: Iterable[tuple[int, int, int]] = ((3, 2, 2), (4, 2, 2), (3, 3, 2))) -> list[Case]:
    """Small games of Pig (dice: chance nodes) as cases.

    Parameters
    ----------
    settings : iterable of (target, faces, turn_limit)

    Returns
    -------
    list of Case

    Examples
    --------
    >>> [c.name for c in pig_cases([(3, 2, 2)])]
    ['Pig(target=3, faces=2, turn_limit=2)']
    """
    from ...games.pig import Pig

    return [Case(repr(Pig(t, f, n)), Pig(t, f, n), recipe=f"course.games.{Pig(t, f, n)!r}")
            for t, f, n in settings]


def with_depth_limit(cases: Any, depth: int, *,
                     evaluate: Callable[[Any], Any] = playout_estimate) -> list[Case]:
    """The same cases searched to a depth limit, explicit trees valued by ``evaluate`` there.

    Parameters
    ----------
    cases : Game, Case or iterable of them
    depth : int
        The depth limit (root = depth 0), >= 1.
    evaluate : callable
        EVAL for explicit trees (:class:`~course.trees.TreeGame`); other games
        keep their own ``evaluate``.

    Returns
    -------
    list of Case

    Examples
    --------
    >>> from course.search import minimax
    >>> (case,) = with_depth_limit(textbook_cases("minimax")[:1], 1)
    >>> case.describe(), minimax(case.game, depth=1, evaluate=case.evaluate).value  # D's playout: 14
    ('AIMA figure 5.2 (depth limit 1)', 14)
    """
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise ParameterError(f"depth must be an integer >= 1, got {depth!r}")
    out = []
    for case in as_cases(cases):
        if isinstance(case.game, TreeGame):
            case = case.with_params(game=EvaluatedGame(case.game, evaluate), evaluate=evaluate)
        out.append(case.with_params(depth=depth))
    return out


def with_evaluation(cases: Any, evaluate: Callable[[Any], Any] = playout_estimate) -> list[Case]:
    """The same cases, explicit trees given ``evaluate`` as their EVAL (for move ordering).

    >>> from course.search import alphabeta
    >>> (case,) = with_evaluation(textbook_cases("minimax")[:1])
    >>> alphabeta(case.game, order="heuristic").evaluated
    7
    """
    out = []
    for case in as_cases(cases):
        if isinstance(case.game, TreeGame):
            case = case.with_params(game=EvaluatedGame(case.game, evaluate))
        out.append(case)
    return out


def moves_by_bounds_differ(case: Case) -> bool:
    """True if Bounded Alpha-Beta's root move by L differs from the root move by U on ``case``.

    Such cases catch a search that picks the move with the best *upper*
    bound at a MAX root (or the best lower bound at a MIN root).

    Examples
    --------
    >>> from course.examples import bab_figure3
    >>> moves_by_bounds_differ(Case("figure 3", bab_figure3(), epsilon=2))
    False
    """
    from ...search import bab

    result = bab(case.game, case.state, epsilon=case.epsilon or 0, depth=case.depth,
                 evaluate=case.evaluate)
    if not result.children:
        return False
    game = case.game
    root = game.initial_state() if case.state is None else case.state
    maximise = game.turn(root) is Player.MAX

    def first_best(key: int) -> int:
        best = None
        for child in result.children:
            if best is None or (child[key] > best[key] if maximise else child[key] < best[key]):
                best = child
        return best[0]

    by_l, by_u = first_best(1), first_best(2)
    return by_l != by_u


def root_player(case: Case) -> Player | None:
    """The player to move at the case's root (None if the root is terminal)."""
    game = case.game
    state = game.initial_state() if case.state is None else case.state
    return None if game.is_terminal(state) else game.turn(state)


# ---------------------------------------------------------------------------
# outcomes listed out of their natural order
# ---------------------------------------------------------------------------
class ReversedOutcomes(GameView):
    """A game whose chance nodes list their outcomes last-first (every other method is the
    wrapped game's).

    Every other case lists chance outcomes in their natural order (tree indices 0, 1, ...;
    die faces 1 to 6), so a search that sorts them, or that takes the outcome's *index* for
    the outcome, visits them exactly as the rule says and goes unnoticed.  Listed last-first,
    the outcomes are ``[1, 0]``: sorting gives ``[0, 1]`` and the search visits them out of
    the order ``chance_outcomes`` gives.

    Examples
    --------
    >>> from course.examples import expectimax_example
    >>> g = ReversedOutcomes(expectimax_example())
    >>> [m for m, _ in g.chance_outcomes(g.initial_state())], list(g.moves(g.initial_state()))
    ([2, 1, 0], [2, 1, 0])
    >>> from course.search import expectimax
    >>> expectimax(g).value == expectimax(expectimax_example()).value
    True
    """

    def __init__(self, game: Game) -> None:
        if not isinstance(game, Game):
            raise ParameterError(f"ReversedOutcomes needs a course Game, got {type(game).__name__}")
        super().__init__(game)

    def __repr__(self) -> str:
        return f"{self.game!r} with its chance outcomes listed last-first"

    def moves(self, state):
        moves = list(self.game.moves(state))
        return moves[::-1] if self.game.turn(state) is Player.CHANCE else moves

    def chance_outcomes(self, state):
        return list(self.game.chance_outcomes(state))[::-1]


def with_reversed_outcomes(cases: Any) -> list[Case]:
    """The same cases, each chance node listing its outcomes last-first (:class:`ReversedOutcomes`).

    >>> [c.name for c in with_reversed_outcomes(textbook_cases("chance")[:1])]
    ['lecture notes: one chance node, outcomes listed last-first']
    """
    out = []
    for case in as_cases(cases):
        recipe = f"course.grading.checks.cases.ReversedOutcomes({case.recipe})" if case.recipe else None
        out.append(case.with_params(name=f"{case.name}, outcomes listed last-first",
                                    game=ReversedOutcomes(case.game), recipe=recipe))
    return out
