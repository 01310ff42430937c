"""EVAL at the horizon: depth-limited minimax and expectimax, and what rescaling EVAL changes.

A *depth-limited* search (Strass 2024, ``hmm(s, d)``; Russell & Norvig, section 5.4) stops at
depth ``d`` (or wherever IS-CUTOFF says) and scores the states there with an evaluation
function EVAL instead of searching on.  Every search of :mod:`course.search` does this when
given ``depth=`` (and ``evaluate=``, default ``game.evaluate``, and/or ``cutoff=``)::

    expectimax(game, depth=2, evaluate=my_eval)     # depth-limited expectimax

What may an EVAL's *scale* be?

* **Minimax** only compares values, so any strictly increasing transformation ``f`` of every
  value it sees (EVAL at the horizon, UTILITY at terminal states) leaves its decisions
  unchanged: the minimax value of the transformed tree is ``f`` of the old one, node by node.
  Only the *order* of positions matters.
* **Expectimax** averages values, and an average commutes only with *positive linear*
  (affine) maps ``f(x) = a x + b`` with ``a > 0``.  A strictly increasing non-linear ``f``
  can change its choice: the values now have to be proportional to the expected payoff
  (AIMA 3rd ed., Figure 5.12; the adversarial-search notes among the sources).

:func:`transform_values` builds the transformed game, and :func:`decision_table` computes the
value of every root move and the choice, for several transformations side by side;
:func:`eval_transformation_example` is the textbook's demonstration, computed.

Examples
--------
>>> example = eval_transformation_example()
>>> print(example.expectimax)
expectimax at depth 2: values of the root moves (a1, a2), and the choice
  EVAL           21/10, 13/10  ->  a1
  10 ** EVAL       190, 1009   ->  a2  (changed)
  10 * EVAL + 5     26, 18     ->  a1
>>> print(example.minimax)
minimax at depth 2: values of the root moves (a1, a2), and the choice
  EVAL             2, 1   ->  a1
  10 ** EVAL     100, 10  ->  a1
  10 * EVAL + 5   25, 15  ->  a1
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..game import Game, GameView, Player
from ..trees import TreeGame, parse_tree
from .minimax import expectimax, minimax

__all__ = [
    "TransformedGame",
    "transform_values",
    "DecisionRow",
    "DecisionTable",
    "decision_table",
    "TransformationExample",
    "eval_transformation_example",
]

_SEARCHES = {"minimax": minimax, "expectimax": expectimax}


class TransformedGame(GameView):
    """A game whose every payoff, UTILITY and EVAL, is passed through ``f``.

    Build one with :func:`transform_values`.
    """

    def __init__(self, game: Game, f: Callable[[Any], Any], *, evaluate: Callable | None = None,
                 name: str | None = None) -> None:
        super().__init__(game)
        self.f = f
        self.name = name or getattr(f, "__name__", "f")
        self._evaluate = evaluate if evaluate is not None else game.evaluate
        # f is strictly increasing, so the bounds map to bounds (infinite ones stay infinite)
        self.vmin = f(game.vmin) if _finite(game.vmin) else game.vmin
        self.vmax = f(game.vmax) if _finite(game.vmax) else game.vmax

    def __repr__(self) -> str:
        return f"transform_values({self.game!r}, {self.name})"

    def utility(self, state: Any) -> Any:
        return self.f(self.game.utility(state))

    def evaluate(self, state: Any) -> Any:
        if self.game.is_terminal(state):
            return self.utility(state)
        return self.f(self._evaluate(state))


def _finite(x: Any) -> bool:
    return x not in (float("inf"), float("-inf"))


def transform_values(game: Game, f: Callable[[Any], Any], *, evaluate: Callable | None = None,
                     name: str | None = None) -> TransformedGame:
    """The game with every value a search can see passed through ``f``.

    Parameters
    ----------
    game : Game
    f : callable
        A strictly increasing function of numbers (the caller's promise; a search cannot
        check it), e.g. ``lambda v: 10 ** v`` or ``lambda v: 3 * v + 1``.
    evaluate : callable, optional
        The EVAL to transform; default ``game.evaluate``.
    name : str, optional
        How tables name the transformation; default ``f.__name__``.

    Returns
    -------
    TransformedGame
        UTILITY is ``f(utility)``, EVAL is ``f(evaluate)``; ``vmin``/``vmax`` are mapped
        by ``f`` too.  Moves, turns and probabilities are the game's.

    Raises
    ------
    ParameterError
        If ``game`` is not a game or ``f`` is not callable.

    Examples
    --------
    >>> from course import parse_tree
    >>> from course.search import minimax
    >>> game = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    >>> minimax(transform_values(game, lambda v: v ** 3)).value     # 3 ** 3: f of the old value
    27
    """
    if not isinstance(game, Game):
        raise ParameterError(f"transform_values needs a course Game, got {type(game).__name__}")
    if not callable(f):
        raise ParameterError(f"f must be a function of numbers, got {f!r}")
    return TransformedGame(game, f, evaluate=evaluate, name=name)


@dataclass(frozen=True)
class DecisionRow:
    """One line of a :class:`DecisionTable`."""

    name: str
    """The transformation's name (``"EVAL"`` for none)."""
    values: tuple
    """The depth-limited value of each root move, in the game's move order."""
    best: tuple[int, ...]
    """Indices of every move attaining the best value."""

    @property
    def move(self) -> int:
        """The chosen move: the first best one."""
        return self.best[0]


@dataclass(frozen=True)
class DecisionTable:
    """Values and choices of one search under several transformations (:func:`decision_table`)."""

    search: str
    """``"minimax"`` or ``"expectimax"``."""
    depth: int | None
    """The depth limit at the root."""
    move_names: tuple[str, ...]
    """How the root moves are named (``game.describe_move``)."""
    rows: tuple[DecisionRow, ...]
    """One row per transformation, the untransformed values first."""

    def changed(self, name: str) -> bool:
        """Does the transformation ``name`` change the choice of the first row?"""
        row = next((r for r in self.rows if r.name == name), None)
        if row is None:
            raise ParameterError(f"no row {name!r}; the rows are {[r.name for r in self.rows]}")
        return row.move != self.rows[0].move

    def __str__(self) -> str:
        head = (f"{self.search} at depth {self.depth}: values of the root moves "
                f"({', '.join(self.move_names)}), and the choice")
        cells = [[_fmt(v) for v in row.values] for row in self.rows]
        widths = [max(len(c[i]) for c in cells) for i in range(len(self.move_names))]
        name_width = max(len(row.name) for row in self.rows)
        lines = [head]
        for row, texts in zip(self.rows, cells):
            values = ", ".join(t.rjust(w) if i == 0 else t.ljust(w)
                               for i, (t, w) in enumerate(zip(texts, widths)))
            note = "  (changed)" if row.move != self.rows[0].move else ""
            lines.append(f"  {row.name.ljust(name_width)}  {values}  ->  "
                         f"{self.move_names[row.move]}{note}")
        return "\n".join(line.rstrip() for line in lines)

    def _repr_markdown_(self) -> str:
        header = "| | " + " | ".join(self.move_names) + " | choice |"
        rule = "|---|" + "---:|" * len(self.move_names) + "---|"
        lines = [f"**{self.search}** at depth {self.depth}", "", header, rule]
        for row in self.rows:
            changed = " (changed)" if row.move != self.rows[0].move else ""
            lines.append(f"| {row.name} | " + " | ".join(_fmt(v) for v in row.values)
                         + f" | {self.move_names[row.move]}{changed} |")
        return "\n".join(lines)


def _fmt(x: Any) -> str:
    if isinstance(x, Fraction) and x.denominator == 1:
        return str(x.numerator)
    if isinstance(x, float):
        return f"{x:.6g}"
    return str(x)


def decision_table(
    game: Game,
    transforms: Mapping[str, Callable[[Any], Any]],
    *,
    depth: int | None,
    search: str = "expectimax",
    evaluate: Callable[[Any], Any] | None = None,
    state: Any = None,
) -> DecisionTable:
    """The value of every root move, and the choice, under each transformation of the values.

    Parameters
    ----------
    game : Game
        A game whose root is a MAX or MIN node.
    transforms : mapping
        ``{name: f}`` with strictly increasing functions ``f``; the untransformed values
        (named ``"EVAL"``) come first in the table.
    depth : int or None
        The depth limit at the root (each move's child is searched to ``depth - 1``).
    search : {"expectimax", "minimax"}
        The depth-limited search that values the moves.
    evaluate : callable, optional
        EVAL; default ``game.evaluate``.
    state : optional
        The root; default ``game.initial_state()``.

    Returns
    -------
    DecisionTable
        ``str(table)`` is a plain-text table, and a notebook shows it as markdown.

    Raises
    ------
    ParameterError
        For an unknown search, a depth below 1, or a root that is not a MAX or MIN node.
    """
    if search not in _SEARCHES:
        raise ParameterError(f"search must be one of {', '.join(_SEARCHES)}, got {search!r}")
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        raise ParameterError(f"depth must be an integer >= 1 or None, got {depth!r}")
    root = game.initial_state() if state is None else state
    if game.is_terminal(root) or game.turn(root) is Player.CHANCE:
        raise ParameterError("the root must be a MAX or MIN node: a decision to make")
    run = _SEARCHES[search]
    moves = list(game.moves(root))
    children = [game.result(root, m) for m in moves]
    is_max = game.turn(root) is Player.MAX
    rows = []
    for name, f in {"EVAL": None, **dict(transforms)}.items():
        view = game if f is None else transform_values(game, f, evaluate=evaluate, name=name)
        eval_fn = evaluate if f is None else None
        values = tuple(run(view, child, depth=None if depth is None else depth - 1,
                           evaluate=eval_fn).value for child in children)
        best_value = max(values) if is_max else min(values)
        rows.append(DecisionRow(name, values, tuple(i for i, v in enumerate(values)
                                                    if v == best_value)))
    names = tuple(game.describe_move(root, m) for m in moves)
    return DecisionTable(search, depth, names, tuple(rows))


@dataclass(frozen=True)
class TransformationExample:
    """The linear-transformation rule, computed (see :func:`eval_transformation_example`)."""

    chance_game: TreeGame
    """MAX chooses a1 or a2, then chance (0.9 / 0.1), then the horizon states."""
    adversarial_game: TreeGame
    """The same tree with MIN nodes in place of the chance nodes."""
    evaluate: Callable[[Any], Any]
    """EVAL of the four horizon states (by label: 2, 3, 1, 4)."""
    transforms: Mapping[str, Callable[[Any], Any]]
    """``10 ** EVAL`` (strictly increasing, not linear) and ``10 * EVAL + 5`` (positive linear)."""
    expectimax: DecisionTable
    """Depth-limited expectimax on :attr:`chance_game`."""
    minimax: DecisionTable
    """Depth-limited minimax on :attr:`adversarial_game`."""

    def __str__(self) -> str:
        return f"{self.expectimax}\n{self.minimax}"


#: EVAL of the horizon states of :func:`eval_transformation_example` (AIMA's Figure 5.12 numbers).
_HORIZON_EVAL = {"s11": 2, "s12": 3, "s21": 1, "s22": 4}


def _example_tree(node_kind: str) -> TreeGame:
    def horizon(label: str, leaves: Sequence[int]) -> dict:
        return {"label": label, "max": list(leaves)}

    def move(label: str, first: dict, second: dict) -> dict:
        if node_kind == "chance":
            return {"label": label, "chance": [[Fraction(9, 10), first], [Fraction(1, 10), second]]}
        return {"label": label, "min": [first, second]}

    # Below the horizon (depth 2) each state has two leaves; the search never sees them.
    return parse_tree({"label": "root", "max": [
        move("a1", horizon("s11", [1, 3]), horizon("s12", [2, 4])),
        move("a2", horizon("s21", [0, 2]), horizon("s22", [3, 5])),
    ]})


def _horizon_eval(node: Any) -> Any:
    """EVAL of the example's horizon states, looked up by label."""
    try:
        return _HORIZON_EVAL[node.label]
    except (AttributeError, KeyError):
        raise ParameterError(
            f"this EVAL knows the horizon states s11..s22 only, not {node!r}") from None


class _Power10:
    __name__ = "10 ** EVAL"

    def __call__(self, v):
        return 10 ** v


class _Affine:
    __name__ = "10 * EVAL + 5"

    def __call__(self, v):
        return 10 * v + 5


def eval_transformation_example() -> TransformationExample:
    """A strictly increasing change of EVAL that changes expectimax's choice but not minimax's.

    MAX chooses ``a1`` or ``a2``; each leads to a chance node (probabilities 9/10 and 1/10) whose
    outcomes are non-terminal states at the horizon, depth 2, with EVAL 2 and 3 (after
    ``a1``) and 1 and 4 (after ``a2``): the numbers of AIMA's Figure 5.12.  The adversarial twin
    has MIN nodes where the chance nodes were.

    * ``10 ** EVAL`` keeps the order of every pair of positions, yet expectimax switches from
      ``a1`` (2.1 against 1.3) to ``a2`` (190 against 1009): the average rewards the rare 4.
      Minimax keeps ``a1``, as it must for any strictly increasing map.
    * ``10 * EVAL + 5`` is positive linear: expectimax's values become ``10 v + 5`` and its
      choice stays.

    Returns
    -------
    TransformationExample
        The games, the EVAL, the transformations and the two computed tables.

    Examples
    --------
    >>> example = eval_transformation_example()
    >>> example.expectimax.changed("10 ** EVAL"), example.minimax.changed("10 ** EVAL")
    (True, False)
    >>> example.expectimax.changed("10 * EVAL + 5"), example.minimax.changed("10 * EVAL + 5")
    (False, False)
    """
    transforms = {"10 ** EVAL": _Power10(), "10 * EVAL + 5": _Affine()}
    chance_game, adversarial_game = _example_tree("chance"), _example_tree("min")
    return TransformationExample(
        chance_game=chance_game,
        adversarial_game=adversarial_game,
        evaluate=_horizon_eval,
        transforms=transforms,
        expectimax=decision_table(chance_game, transforms, depth=2, search="expectimax",
                                  evaluate=_horizon_eval),
        minimax=decision_table(adversarial_game, transforms, depth=2, search="minimax",
                               evaluate=_horizon_eval),
    )
