"""Hypothesis strategies for random game trees in the JSON tree format.

Trees are built as Python data and parsed with :func:`course.parse_tree`, so
every generated tree also exercises the parser.  Leaf values come from a small
integer range by default, so ties are frequent.  Chance probabilities are
exact :class:`fractions.Fraction` values, so expectimax and Star1 agree exactly.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from course import parse_tree


@st.composite
def tree_objects(draw, *, max_depth=4, max_branching=4, chance=False, low=0, high=9, kind=None):
    """A random tree object.  ``kind`` forces the root's kind ("max"/"min"/"chance")."""
    def node(depth, parent_kind):
        if depth >= max_depth or (depth > 0 and draw(st.integers(0, 4)) == 0):
            return draw(st.integers(low, high))
        kinds = ["max", "min"] + (["chance"] if chance else [])
        if depth == 0 and kind is not None:
            k = kind
        else:
            k = draw(st.sampled_from(kinds))
        n = draw(st.integers(1, max_branching))
        if k == "chance":
            weights = [draw(st.integers(1, 4)) for _ in range(n)]
            total = sum(weights)
            return {"chance": [[Fraction(w, total), node(depth + 1, k)] for w in weights]}
        return {k: [node(depth + 1, k) for _ in range(n)]}

    return node(0, None)


@st.composite
def games(draw, *, bounds=None, **kwargs):
    """A parsed :class:`course.TreeGame`; ``bounds`` default: the extreme leaves."""
    return parse_tree(draw(tree_objects(**kwargs)), bounds=bounds)


@st.composite
def uniform_games(draw, *, max_branching=4, max_depth=5, distinct=False, max_leaves=1100):
    """A uniform tree (every internal node has b children, every leaf at depth d), MAX at the root."""
    b = draw(st.integers(2, max_branching))
    d = draw(st.integers(1, max_depth))
    while b ** d > max_leaves:
        d -= 1
    n = b ** d
    if distinct:
        values = draw(st.permutations(list(range(n))))
    else:
        values = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    it = iter(values)

    def build(level):
        if level == d:
            return next(it)
        return [build(level + 1) for _ in range(b)]

    return parse_tree(build(0)), b, d
