"""Depth-limited minimax and expectimax with EVAL, and the linear-transformation rule.

The brute force is an independent recursion over the tree that stops at the depth limit and
applies EVAL there (Strass's hmm(s, d), with chance nodes averaged).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import parse_tree
from course.errors import ParameterError
from course.search import (decision_table, eval_transformation_example, expectimax, minimax,
                           star1, transform_values)
from course.trees import TreeNode


def horizon_eval(node: TreeNode):
    """An EVAL in [0, 9] that depends on where the node is (not on what lies below)."""
    return Fraction(sum(node.path) % 10, 1) + Fraction(len(node.path), 7) % 1


def brute(node: TreeNode, depth, limit, evaluate, f=lambda v: v):
    if node.is_leaf:
        return f(node.value)
    if limit is not None and depth >= limit:
        return f(evaluate(node))
    values = [brute(c, depth + 1, limit, evaluate, f) for c in node.children]
    if node.kind == "max":
        return max(values)
    if node.kind == "min":
        return min(values)
    return sum(p * v for p, v in zip(node.probabilities, values))


@settings(max_examples=500)
@given(games(chance=True), st.integers(0, 4))
def test_depth_limited_expectimax_is_brute_force(game, limit):
    result = expectimax(game, depth=limit, evaluate=horizon_eval)
    assert result.value == brute(game.root, 0, limit, horizon_eval)
    assert all(len(p) <= limit for p in result.leaves)


@settings(max_examples=500)
@given(games(chance=True), st.integers(1, 3))
def test_cutoff_is_is_cutoff(game, limit):
    # IS-CUTOFF(state, depth) = depth >= limit is the same search as depth=limit
    by_cutoff = expectimax(game, cutoff=lambda state, depth: depth >= limit, evaluate=horizon_eval)
    by_depth = expectimax(game, depth=limit, evaluate=horizon_eval)
    assert (by_cutoff.value, by_cutoff.leaves) == (by_depth.value, by_depth.leaves)


INCREASING = {
    "cube": lambda v: v ** 3,
    "affine": lambda v: 3 * v - 7,
    "piecewise": lambda v: v if v < 4 else 10 * v - 36,
}


def best_moves(game, values):
    best = max(values) if game.root.kind == "max" else min(values)
    return {i for i, v in enumerate(values) if v == best}


def move_values(game, search, limit, f=None):
    view = game if f is None else transform_values(game, f, evaluate=horizon_eval)
    return [search(view, child, depth=limit - 1, evaluate=None if f else horizon_eval).value
            for child in game.root.children]


@settings(max_examples=500)
@given(games(kind="max", low=0, high=9), st.sampled_from(["cube", "affine", "piecewise"]),
       st.integers(1, 3))
def test_minimax_commutes_with_any_increasing_map(game, name, limit):
    f = INCREASING[name]
    plain = minimax(game, depth=limit, evaluate=horizon_eval).value
    mapped = minimax(transform_values(game, f, evaluate=horizon_eval), depth=limit).value
    assert mapped == f(plain)
    assert best_moves(game, move_values(game, minimax, limit)) == \
        best_moves(game, move_values(game, minimax, limit, f))


@settings(max_examples=500)
@given(games(chance=True, kind="max", low=0, high=9), st.integers(1, 4), st.integers(-5, 5),
       st.integers(1, 3))
def test_expectimax_commutes_with_positive_linear_maps(game, a, b, limit):
    f = lambda v: a * v + b  # noqa: E731
    plain = expectimax(game, depth=limit, evaluate=horizon_eval).value
    mapped = expectimax(transform_values(game, f, evaluate=horizon_eval), depth=limit).value
    assert mapped == f(plain)
    assert best_moves(game, move_values(game, expectimax, limit)) == \
        best_moves(game, move_values(game, expectimax, limit, f))


def test_the_example_monotone_map_changes_expectimax_only():
    example = eval_transformation_example()
    ex, mm = example.expectimax, example.minimax
    assert [r.name for r in ex.rows] == ["EVAL", "10 ** EVAL", "10 * EVAL + 5"]
    assert ex.rows[0].values == (Fraction(21, 10), Fraction(13, 10)) and ex.rows[0].move == 0
    assert ex.rows[1].values == (190, 1009) and ex.rows[1].move == 1
    assert ex.rows[2].values == (26, 18) and ex.rows[2].move == 0
    assert [r.values for r in mm.rows] == [(2, 1), (100, 10), (25, 15)]
    assert [r.move for r in mm.rows] == [0, 0, 0]
    assert (ex.changed("10 ** EVAL"), mm.changed("10 ** EVAL")) == (True, False)
    assert (ex.changed("10 * EVAL + 5"), mm.changed("10 * EVAL + 5")) == (False, False)
    # the horizon is real: the searches stopped at depth 2 and never saw the leaves below it
    result = expectimax(example.chance_game, depth=2, evaluate=example.evaluate)
    assert result.leaves == ((0, 0), (0, 1), (1, 0), (1, 1)) and result.value == Fraction(21, 10)
    assert expectimax(example.chance_game).value == Fraction(31, 10)   # below the horizon: 3.1
    # the transformation is strictly increasing on the EVALs involved
    evals = sorted({example.evaluate(n) for n in example.chance_game.root.iter_nodes()
                    if n.label and n.label.startswith("s")})
    for f in example.transforms.values():
        assert all(f(x) < f(y) for x, y in zip(evals, evals[1:]))
    assert "(changed)" in example.expectimax._repr_markdown_()


def test_transformed_game_maps_bounds_and_star1_still_agrees():
    game = parse_tree({"tree": {"max": [{"chance": [[Fraction(1, 2), 1], [Fraction(1, 2), 3]]}, 2]},
                       "bounds": [0, 4]})
    view = transform_values(game, lambda v: v * v, name="square")
    assert (view.vmin, view.vmax) == (0, 16) and "square" in repr(view)
    assert star1(view).value == expectimax(view).value == 5


@pytest.mark.parametrize("kwargs", [
    {"search": "alphabeta", "depth": 2},
    {"depth": 0},
    {"depth": True},
])
def test_decision_table_rejects_bad_arguments(kwargs):
    example = eval_transformation_example()
    with pytest.raises(ParameterError):
        decision_table(example.chance_game, {}, evaluate=example.evaluate, **kwargs)


def test_decision_table_needs_a_decision_at_the_root():
    with pytest.raises(ParameterError, match="MAX or MIN"):
        decision_table(parse_tree({"chance": [[0.5, 1], [0.5, 2]]}), {}, depth=1)


def test_transform_values_rejects_non_games():
    with pytest.raises(ParameterError):
        transform_values([1, 2], lambda v: v)
    with pytest.raises(ParameterError):
        transform_values(parse_tree([1, 2]), 3)
