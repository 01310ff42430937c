"""Practice drills: a fresh seeded tree, one kind of question, an answer checked at once.

A drill draws a tree (:mod:`course.drills.generate`) at a difficulty level
from 1 (four leaves) to 5 (depth 4, with chance nodes where the kind has
them), runs the reference search with a trace, and asks one question about it:

==========  =========================================================================
kind        the question
==========  =========================================================================
minimax     the value of every inner node (expectimax at chance nodes), and the
            root's move
pruning     which leaves alpha-beta never looks at, for a given move ordering
window      alpha and beta when alpha-beta enters each node
root        alpha and beta when alpha-beta enters each child of the root
star1       Star1's bounds L and U at a chance node after each child, and after which
            child (if any) it cuts
c6          the window Star1 gives each child of a chance node (condition C6)
bab         which leaves Bounded Alpha-Beta skips for a given epsilon
bounds      the bounds [L, U] each inner node returns in Star1 or Bounded Alpha-Beta,
            and the root's move
star2       Star2's probing phase at a chance node: the bound each probe gives, the
            node's L and U after it, and after which probe (if any) it is cut
==========  =========================================================================

:mod:`course.drills.kinds` says how to add a kind.

A wrong answer is explained from the *first* place it differs from the
search, in the order the search did things, with the trace's own numbers
("at C (MIN), after child C1 returned 2, v = 2 ≤ α = 3 ... so C2 and C3 are
never looked at"), the node to highlight and the moment of the search to draw.

Every drill has a share code, ``kind-level-seed`` (``"pruning-3-4182"``):
the same code gives the same drill everywhere, so students can redo a drill or
send it to a classmate.  Grading feedback builds drills on the tree where a
submission went wrong (``drill("pruning", tree=..., focus=...)``, the widget of
:func:`course.widgets.drill`).

Examples
--------
>>> d = make_drill("pruning", level=1, seed=12)
>>> d.code
'pruning-1-12'
>>> make_drill(code="pruning-1-12").expected == d.expected
True
>>> d.check(d.expected).correct
True
>>> from course.examples import aima_figure_5_2
>>> d = make_drill("pruning", tree=aima_figure_5_2())
>>> v = d.check(["C2"])
>>> v.correct, v.node, v.wrong
(False, (1,), ('C3',))
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..game import Game
from ..trees import TreeGame, parse_tree
from .generate import LEVELS, SHAPES, drill_tree
from .bounded import BabDrill, BoundsDrill, C6Drill, Star1Drill
from .probing import Star2Drill
from .kinds import (
    ORDER_WORDS,
    Drill,
    Field,
    MinimaxDrill,
    PruningDrill,
    RootDrill,
    Verdict,
    WindowDrill,
)
from .numbers import AnswerError, fmt, parse_number
from .progress import SESSION, Progress

__all__ = [
    "KINDS", "KIND_CLASSES", "LEVELS", "make_drill", "Drill", "Verdict", "Field", "Progress",
    "SESSION", "MinimaxDrill", "PruningDrill", "WindowDrill", "RootDrill", "Star1Drill", "C6Drill",
    "BabDrill", "BoundsDrill", "Star2Drill", "AnswerError", "parse_number", "fmt", "ORDER_WORDS", "new_seed",
]

KIND_CLASSES: dict[str, type[Drill]] = {
    # the first five keep their places: a kind's place salts its trees (share codes stay valid)
    "minimax": MinimaxDrill,
    "pruning": PruningDrill,
    "window": WindowDrill,
    "star1": Star1Drill,
    "bab": BabDrill,
    "root": RootDrill,
    "c6": C6Drill,
    "bounds": BoundsDrill,
    "star2": Star2Drill,
}
"""Every drill kind, by name (see :mod:`course.drills.kinds` to add one)."""

KINDS = tuple(KIND_CLASSES)
"""The drill kinds' names."""

#: Largest seed a drill draws by itself (short enough to read out and type).
MAX_SEED = 99_999

_CODE = re.compile(r"^\s*([a-z0-9]+)-([1-5])-(\d{1,9})\s*$")


def new_seed() -> int:
    """A fresh seed for a drill, 1 to :data:`MAX_SEED` (not reproducible: that is the point)."""
    return random.SystemRandom().randint(1, MAX_SEED)


def make_drill(kind: str = "pruning", *, level: int = 1, seed: int | None = None,
               tree: Any = None, code: str | None = None, order: str | None = None,
               epsilon: Any = None, node: Any = None, focus: Any = None) -> Drill:
    """Build a drill: a seeded tree of a level, or a given tree, and one kind of question.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    level : int
        1 (a 4-leaf tree) to 5 (a depth-4 tree, with chance nodes for
        ``minimax``, ``star1``, ``c6``, ``bab``, ``bounds`` and ``star2``).  Ignored
        with ``tree``.
    seed : int, optional
        Seed of the tree (and of the ordering or epsilon the drill picks);
        default: a fresh one (see :func:`new_seed`).
    tree : TreeGame or tree data, optional
        Drill on this tree instead (anything :func:`course.parse_tree` takes).
    code : str, optional
        A share code ``"kind-level-seed"``; replaces ``kind``, ``level`` and ``seed``.
    order : str, optional
        For ``pruning``, ``window`` and ``root``: ``"given"``, ``"reversed"``,
        ``"best-first"`` or ``"worst-first"``.  Default: ``"given"`` on a given
        tree; on a seeded pruning drill, left to right at levels 1-2 and picked by
        the seed above.
    epsilon : number, optional
        For ``bab`` (default 1 on a given tree) and ``bounds`` (default 0,
        Star1); picked by the seed on a seeded tree.
    node : name or path, optional
        For ``star1``, ``c6`` and ``star2``: the chance node to ask about (default:
        the last one the search enters, for ``star2`` the last whose outcomes it
        probes; on a seeded tree, one picked by the seed).
    focus : path, optional
        A node to point the student to (grading feedback sets it).

    Returns
    -------
    Drill

    Raises
    ------
    ParameterError
        For an unknown kind, a level outside 1-5, a bad seed or code, or a
        tree the kind cannot ask about (chance nodes for alpha-beta drills).

    Examples
    --------
    >>> d = make_drill("window", level=2, seed=5)
    >>> d.code, sorted(d.expected)[:2]
    ('window-2-5', ['B', 'C'])
    >>> make_drill("bab", tree=[[1, 2], [0, 3]]).epsilon
    1
    >>> make_drill("pruning", level=9)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: level must be 1, 2, 3, 4 or 5, got 9
    """
    if code is not None:
        match = _CODE.match(str(code))
        if not match or match.group(1) not in KIND_CLASSES:
            raise ParameterError(f"{code!r} is not a drill code: it looks like 'pruning-3-4182' "
                                 f"(kind-level-seed, kind one of {', '.join(KINDS)})")
        kind, level, seed = match.group(1), int(match.group(2)), int(match.group(3))
    if kind not in KIND_CLASSES:
        raise ParameterError(f"unknown drill kind {kind!r}; choose one of {', '.join(KINDS)}")
    cls = KIND_CLASSES[kind]
    if tree is not None:
        game = tree if isinstance(tree, TreeGame) else _as_tree(tree)
        params = cls.given_params(game, order=order, epsilon=epsilon, node=_path(node))
        try:
            return cls(game, focus=_path(focus), **params)
        except AnswerError as exc:
            raise ParameterError(str(exc)) from None
    if isinstance(level, bool) or level not in LEVELS:
        raise ParameterError(f"level must be 1, 2, 3, 4 or 5, got {level!r}")
    if seed is None:
        seed = new_seed()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return _seeded(cls, kind, level, seed, order=order, epsilon=epsilon)


def _path(node: Any) -> Any:
    if node is None or isinstance(node, (str, tuple)):
        return node
    if isinstance(node, list):
        return tuple(node)
    raise ParameterError(f"a node is a name like 'B' or a path like (0, 1), got {node!r}")


def _as_tree(tree: Any) -> TreeGame:
    """A tree in the JSON format of :mod:`course.trees`; probabilities may also be written as
    strings like ``"1/3"`` (exact, as grading feedback writes them)."""
    if isinstance(tree, Game):
        raise ParameterError("drills need an explicit tree (course.parse_tree), not a game: "
                             "expand a small game with course.game_to_tree first")
    return parse_tree(_fractions(tree))


def _fractions(obj: Any) -> Any:
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if key == "chance" and isinstance(value, list):
                out[key] = [[_probability(item[0]), _fractions(item[1])]
                            if isinstance(item, (list, tuple)) and len(item) == 2 else item
                            for item in value]
            else:
                out[key] = _fractions(value)
        return out
    if isinstance(obj, list):
        return [_fractions(x) for x in obj]
    return obj


def _probability(p: Any) -> Any:
    if isinstance(p, str):
        try:
            return Fraction(p.strip())
        except ValueError:
            raise ParameterError(f"probability {p!r} is not a number like 1/3") from None
    return p


def _seeded(cls: type[Drill], kind: str, level: int, seed: int, *, order: str | None,
            epsilon: Any) -> Drill:
    """The drill of ``(kind, level, seed)``: retries (attempt 1, 2, ...) until the tree makes a
    worthwhile question (:meth:`Drill.worthwhile`: something pruned, a window that moved, ...)."""
    shape = SHAPES[kind][level]
    pick = random.Random(f"drill-params/{kind}/{level}/{seed}")    # str seeds: stable everywhere
    choices = cls.seeded_choices(pick, level, order=order, epsilon=epsilon)
    last = None
    for attempt in range(200):
        game = drill_tree(shape, seed, attempt, salt=KINDS.index(kind))
        params = cls.tree_params(game, level, seed)
        if params is None:
            continue
        d = cls(game, level=level, seed=seed, **choices, **params)
        last = d
        if d.worthwhile():
            return d
    return last  # pragma: no cover - every shape has worthwhile trees among 200 draws
