"""The worked examples of the source documents, built by code (never retyped results).

Each function builds a tree from the facts its source states; the lessons
and tests then *compute* the numbers the sources report.

Sources
-------
[AIMA] Russell & Norvig, *Artificial Intelligence: A Modern Approach*, fig. 5.2,
    as used by the adversarial-search lecture notes (seed 004).
[BAB] Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search*, SoCS 2018
    (seed 000): Figure 2 (naive epsilon) and Figure 3 (non-monotonic pruning).
[CS520] *alpha-beta Pruning with Chance*, CS 520 note (seed 002), section 1.
[NOTES] *Adversarial Search* lecture notes (seed 004): the expectimax examples.

The figures themselves are missing from the extracted texts; the trees here
are rebuilt from what the texts say about them, and their docstrings say
which values are the texts' and which are choices of ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .trees import TreeGame, parse_tree

__all__ = [
    "aima_figure_5_2",
    "naive_epsilon_counterexample",
    "bab_figure3",
    "chance_note_game",
    "chance_note_thresholds",
    "ChanceNoteThresholds",
    "expectimax_example",
    "expectimax_pruning_example",
]


def aima_figure_5_2() -> TreeGame:
    """The two-ply tree of AIMA figure 5.2: root A (MAX), MIN nodes B, C, D.

    >>> from course.search import alphabeta
    >>> game = aima_figure_5_2()
    >>> result = alphabeta(game)
    >>> result.value, [game.node(p).label for p in result.leaves]
    (3, ['B1', 'B2', 'B3', 'C1', 'D1', 'D2', 'D3'])
    """
    values = {"B": [3, 12, 8], "C": [2, 4, 6], "D": [14, 5, 2]}
    return parse_tree({
        "label": "A",
        "max": [
            {"label": name, "min": [{"label": f"{name}{i + 1}", "value": v} for i, v in enumerate(vs)]}
            for name, vs in values.items()
        ],
    })


def naive_epsilon_counterexample(m: int = 3, x: float = 10, epsilon: float = 1, *,
                                 vmin: float | None = None) -> TreeGame:
    """[BAB] Figure 2: the tree on which naive epsilon pruning ends at ``x + m * epsilon``.

    The root A (MAX) has a leaf ``x`` and then ``m`` MIN children; the k-th has
    a left leaf ``x + k * epsilon`` and a right leaf ``x``.  The minimax value
    is ``x``; the naive rule prunes every right leaf and, each MIN node
    returning ``x + k * epsilon``, drifts to ``x + m * epsilon``.  The text
    fixes the left leaves; the right leaves (any value <= x works) are ours.

    The tree's bounds are ``[vmin, x + m * epsilon]``, ``vmin = x`` unless
    given.  With ``vmin`` below ``x`` the bounds of Bounded Alpha-Beta show
    what a cut MIN node really knows, ``[vmin, U]``; with ``vmin = x`` its
    lower end happens to be the node's true value.

    >>> from course.search import bab, minimax, naive_epsilon
    >>> g = naive_epsilon_counterexample(m=5, x=0, epsilon=2)
    >>> minimax(g).value, naive_epsilon(g, epsilon=2).value
    (0, 10)
    >>> g = naive_epsilon_counterexample(m=3, x=10, epsilon=1, vmin=0)
    >>> b = bab(g, epsilon=1, trace=True).trace.nodes()[(1,)]      # B, cut after its first leaf
    >>> g.vmin, g.vmax, (b.lower, b.upper)
    (0, 13, (0, 11))
    """
    if m < 1:
        raise ValueError(f"m must be >= 1, got {m}")
    if vmin is not None and not vmin <= x:
        raise ValueError(f"vmin must be at most x = {x}, got {vmin}")
    names = ["B", "C"] + [f"N{k}" for k in range(3, m)] + ["D"] if m >= 3 else ["B", "C"][:m]
    children: list[Any] = [{"label": "X", "value": x}]
    for k in range(1, m + 1):
        children.append({"label": names[k - 1], "min": [x + k * epsilon, x]})
    low = x if vmin is None else vmin
    return parse_tree({"tree": {"label": "A", "max": children}, "bounds": [low, x + m * epsilon]})


def bab_figure3(d: Any = 6, e: Any = 9) -> TreeGame:
    """[BAB] Figure 3: a larger epsilon may prune less (vmin = 0, vmax = 10).

    Rebuilt from the text: the root A (MAX) has a leaf 7 and then B (MIN);
    B's children are C (MAX) and the subtree E; C's children are a leaf 8 and
    the subtree D.  With epsilon = 2, C prunes D (beta 10 <= alpha 8 + 2) and
    B must search E; with epsilon = 1, C searches D, returns (8, 8), and B
    prunes E (beta 8 <= alpha 7 + 1).  D must be worth at most 8 for the
    second case; the values of D and E (or whole subtrees, in the tree
    format) are parameters, 6 and 9 by default.
    """
    tree = {"label": "A", "max": [
        {"label": "7", "value": 7},
        {"label": "B", "min": [
            {"label": "C", "max": [{"label": "8", "value": 8}, _labelled(d, "D")]},
            _labelled(e, "E"),
        ]},
    ]}
    return parse_tree({"tree": tree, "bounds": [0, 10]})


def _labelled(subtree: Any, label: str) -> Any:
    if isinstance(subtree, (int, float, Fraction)):
        return {"label": label, "value": subtree}
    if isinstance(subtree, dict) and "label" not in subtree:
        return {"label": label, **subtree}
    if isinstance(subtree, list):
        return {"label": label, "max" if label == "D" else "min": subtree}
    return subtree


def chance_note_game(
    *,
    p_c1_a1: Any = Fraction(1, 2),
    p_c1_a2: Any = Fraction(4, 5),
    u_a1_c1: Any = -1,
    u_a1_c2: Any = 0,
    u_a2_c1: Any = 0,
    u_a2_c2: Any = 0,
) -> TreeGame:
    """[CS520] MAX picks a1 or a2, chance picks c1 or c2, MIN picks b1 or b2; utilities in [-1, 1].

    Each ``u_a_c`` is the value of the MIN node after ``a`` and ``c``: the
    MIN node gets the leaves ``[u, 1]`` (b1 worth ``u``, b2 worth the maximum),
    so its value is ``u``; pass a list to give the leaves yourself.  Defaults
    are the note's example: P(c1|a1) = 1/2, P(c1|a2) = 4/5, U(a1, c1) = -1 and
    U(a1, c2) = 0, so U(a1) = -1/2.  Paths: a1 = (0,), (a2, c1) = (1, 0),
    (a2, c2) = (1, 1).
    """
    def min_node(u, label):
        leaves = u if isinstance(u, list) else [u, 1]
        return {"label": label, "min": [{"label": f"b{i + 1}", "value": v} for i, v in enumerate(leaves)]}

    def chance(a, p, u1, u2):
        return {"label": a, "chance": [[p, min_node(u1, f"{a},c1")], [1 - p, min_node(u2, f"{a},c2")]]}

    tree = {"label": "root", "max": [
        chance("a1", p_c1_a1, u_a1_c1, u_a1_c2),
        chance("a2", p_c1_a2, u_a2_c1, u_a2_c2),
    ]}
    return parse_tree({"tree": tree, "bounds": [-1, 1]})


@dataclass(frozen=True)
class ChanceNoteThresholds:
    """The note's early-termination test for branch c2 below a2 (equations 12-14)."""

    u_a1: Any
    """U(a1), the value of the first move, eq. (9)."""
    prune_at_or_below: Any
    """If U(a2, c1) <= this, a2's upper bound cannot beat U(a1): take a1 (eq. 12)."""
    prune_at_or_above: Any
    """If U(a2, c1) >= this, a2's lower bound already matches U(a1): take a2 (eq. 13)."""

    def prunes(self, u_a2_c1: Any) -> bool:
        """Does the note's rule skip branch c2 below a2 for this U(a2, c1)?"""
        return u_a2_c1 <= self.prune_at_or_below or u_a2_c1 >= self.prune_at_or_above


def chance_note_thresholds(
    *,
    p_c1_a1: Any = Fraction(1, 2),
    p_c1_a2: Any = Fraction(4, 5),
    u_a1_c1: Any = -1,
    u_a1_c2: Any = 0,
    lo: Any = -1,
    hi: Any = 1,
) -> ChanceNoteThresholds:
    """[CS520] U(a1) and the two thresholds on U(a2, c1), derived as in the note.

    After a2's first branch, U(a2) lies in
    ``[P u + (1 - P) lo, P u + (1 - P) hi]`` with ``P = P(c1|a2)`` and
    ``u = U(a2, c1)`` (eq. 11).  Solving "upper end <= U(a1)" and "lower end
    >= U(a1)" for ``u`` gives the thresholds of eq. (14).  (The extracted
    eq. (14) names U(a2, c2) in its second condition; the derivation, and
    eq. (18), give U(a2, c1).)

    >>> t = chance_note_thresholds()
    >>> t.u_a1, t.prune_at_or_below, t.prune_at_or_above
    (Fraction(-1, 2), Fraction(-7, 8), Fraction(-3, 8))
    >>> float(t.prune_at_or_below), float(t.prune_at_or_above)
    (-0.875, -0.375)
    """
    u_a1 = p_c1_a1 * u_a1_c1 + (1 - p_c1_a1) * u_a1_c2
    below = (u_a1 - (1 - p_c1_a2) * hi) / p_c1_a2
    above = (u_a1 - (1 - p_c1_a2) * lo) / p_c1_a2
    return ChanceNoteThresholds(u_a1, below, above)


def expectimax_example() -> TreeGame:
    """[NOTES] A chance node with outcomes 8, 24, 12 at probabilities 1/2, 1/3, 1/6 (value 14)."""
    F = Fraction
    return parse_tree({"chance": [[F(1, 2), 8], [F(1, 3), 24], [F(1, 6), 12]]})


def expectimax_pruning_example(bound: Any = 10) -> TreeGame:
    """[NOTES] Pruning below a chance node needs a known upper bound on the utilities.

    MAX chooses between two fair three-way chance nodes.  The first is worth
    8; the second's first outcome is 2.  With every utility at most 10 the
    second can be worth at most (2 + 10 + 10)/3 = 22/3 < 8, so its other
    outcomes need not be searched.  The text fixes 8, 2 and 10; the other
    leaves (9, 5, 10 under the first node; 4 and 6 under the second) are ours.
    """
    third = Fraction(1, 3)
    tree = {"max": [
        {"label": "first", "chance": [[third, 9], [third, 5], [third, 10]]},
        {"label": "second", "chance": [[third, 2], [third, 4], [third, 6]]},
    ]}
    return parse_tree({"tree": tree, "bounds": [0, bound]})
