"""Star2 (probing *-minimax) against brute force, Star1 and the measurements of issue 31.

The brute force is an independent recursion over the tree's nodes (the BAB paper's Eq. 1).
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import parse_tree
from course.errors import BoundsError, ParameterError
from course.games import stochastic_random_tree
from course.search import ALGORITHMS, expectimax, star1, star2
from course.trees import TreeNode, tree_to_obj


def true_value(node: TreeNode):
    if node.is_leaf:
        return node.value
    values = [true_value(c) for c in node.children]
    if node.kind == "max":
        return max(values)
    if node.kind == "min":
        return min(values)
    return sum(p * v for p, v in zip(node.probabilities, values))


def check_move(game, result):
    root = game.root
    if root.kind not in ("max", "min"):
        assert result.move is None
        return
    v_root, v_move = true_value(root), true_value(root.children[result.move])
    assert v_move == v_root, (result.move, v_move, v_root)


# -- the value, on random trees with known bounds --------------------------------------------

@given(games(chance=True), st.sampled_from(["probability", "given", "random", "best-first"]),
       st.booleans(), st.booleans(), st.booleans())
def test_star2_value_is_expectimax(game, order, keep_probes, strict, loose):
    # loose: bounds strictly outside every leaf (no cut from a leaf equal to vmin or vmax)
    bounds = {"vmin": -1, "vmax": 10} if loose else {}
    result = star2(game, order=order, keep_probes=keep_probes, strict=strict, **bounds)
    assert result.lower == result.upper == true_value(game.root)   # exact: Fractions
    check_move(game, result)
    valid = {leaf.path for leaf in game.root.leaves()}
    assert set(result.leaves) <= valid
    assert result.evaluated == len(result.leaves)


@given(games(chance=True, max_depth=3), st.integers(1, 2))
def test_star2_depth_limited_is_depth_limited_expectimax(game, depth):
    evaluate = lambda node: Fraction(len(node.path) + 1, 3)  # noqa: E731 - any EVAL in [0, 9]
    expected = expectimax(game, depth=depth, evaluate=evaluate).value
    result = star2(game, depth=depth, evaluate=evaluate, vmin=0, vmax=9)
    assert result.lower == result.upper == expected
    assert all(len(p) <= depth for p in result.leaves)


@settings(max_examples=500)
@given(games(chance=True), st.sampled_from(["probability", "given", "random"]), st.booleans())
def test_star2_without_probing_is_star1(game, order, strict):
    a = star2(game, order=order, probing=False, strict=strict)
    b = star1(game, order=order, strict=strict)
    assert (a.lower, a.upper, a.leaves, a.expanded, a.move, a.children) == \
        (b.lower, b.upper, b.leaves, b.expanded, b.move, b.children)


@settings(max_examples=500)
@given(games(chance=True, max_depth=4, low=0, high=100))
def test_star2_value_is_exact_in_floating_point(game):
    floaty = parse_tree(json.loads(json.dumps(tree_to_obj(game), default=float)))
    for keep in (True, False):
        s = star2(floaty, keep_probes=keep)
        e = expectimax(floaty, order="probability")     # the same outcome order, the same sums
        assert s.value is not None and s.value == e.value


@settings(max_examples=400)
@given(games(chance=True), st.booleans())
def test_star2_trace_agrees_with_counters(game, keep_probes):
    result = star2(game, trace=True, keep_probes=keep_probes)
    events = result.trace.events
    assert [e.path for e in events if e.kind == "leaf"] == list(result.leaves)
    assert sum(e.kind == "enter" for e in events) == result.expanded
    assert sum(e.kind == "exit" for e in events) == result.expanded
    untraced = star2(game, keep_probes=keep_probes)
    assert (untraced.lower, untraced.upper, untraced.leaves, untraced.expanded) == \
        (result.lower, result.upper, result.leaves, result.expanded)
    for event in events:                         # bounds never cross, and contain the value
        if event.lower is not None and event.kind != "leaf":
            assert event.lower <= event.upper


def test_keeping_probes_never_costs_more_leaves_here():
    # Not a theorem in general; measured on the stochastic random trees of the measurement below.
    for b in (2, 3):
        for seed in range(5):
            game = stochastic_random_tree(b, 3, seed=seed)
            assert star2(game).evaluated <= star2(game, keep_probes=False).evaluated


# -- fixed trees ---------------------------------------------------------------------------------

def test_docstring_tree_probes_cut_the_chance_node():
    game = parse_tree({"tree": {"max": [
        6, {"chance": [[0.5, {"min": [4, 9, 9]}], [0.5, {"min": [3, 9]}]]}]}, "bounds": [0, 10]})
    result = star2(game, trace=True)
    assert result.value == 6 and result.leaves == ((0,), (1, 0, 0), (1, 1, 0))
    cut = [e for e in result.trace if e.kind == "cutoff" and e.path == (1,)]
    assert len(cut) == 1 and cut[0].reason.startswith("probe: ") and cut[0].pruned == (0, 1)
    assert star1(game).evaluated == 5


def test_star2_can_evaluate_more_leaves_than_star1():
    # MAX has 5.  Star1 searches the first outcome in full (min(9, 0) = 0), and the chance node is
    # then worth at most 0.5 * 0 + 0.5 * 10 = 5 <= 5: cut, 3 leaves.  Star2 first probes both
    # outcomes (leaf 9 of each, which cuts nothing), then searches the first outcome (its probed
    # leaf reused): the second outcome's probe was wasted.  Probing is a bet, not a free lunch.
    game = parse_tree({"tree": {"max": [
        5, {"chance": [[Fraction(1, 2), {"min": [9, 0]}], [Fraction(1, 2), {"min": [9, 9]}]]}]},
        "bounds": [0, 10]})
    s1, s2 = star1(game), star2(game)
    assert s1.value == s2.value == 5
    assert s1.leaves == ((0,), (1, 0, 0), (1, 0, 1))
    assert s2.leaves == ((0,), (1, 0, 0), (1, 1, 0), (1, 0, 1))


def test_probability_order_searches_the_likeliest_outcome_first():
    game = parse_tree({"chance": [[Fraction(1, 4), 1], [Fraction(3, 4), {"max": [2, 3]}]]})
    result = star2(game, trace=True, vmin=0, vmax=3)
    entered = [e.path for e in result.trace if e.kind in ("enter", "leaf")]
    assert entered[1] == (1,)                    # the 3/4 outcome is probed (and searched) first
    assert result.value == Fraction(1, 4) + Fraction(9, 4)


def test_star2_is_registered_and_drawable():
    from course.draw import draw_tree
    from course.draw.render import describe_event

    assert ALGORITHMS["star2"] is star2
    game = parse_tree({"tree": {"max": [
        6, {"chance": [[0.5, {"min": [4, 9, 9]}], [0.5, {"min": [3, 9]}]]}]}, "bounds": [0, 10]})
    result = star2(game, trace=True)
    picture = draw_tree(game, result)
    assert picture.nodes["n_1_0_1"] == "pruned" and picture.nodes["n_1_1_0"] == "visited"
    texts = [describe_event(e) for e in result.trace]
    assert any("(probe)" in t for t in texts)
    assert any(t.startswith("cut-off at (1,): probe: ") for t in texts)


@pytest.mark.parametrize("kwargs, error", [
    ({"probing": "yes"}, ParameterError),
    ({"keep_probes": 1}, ParameterError),
    ({"strict": None}, ParameterError),
    ({"vmin": 5, "vmax": 1}, ParameterError),
    ({"vmin": float("-inf")}, ParameterError),
    ({"vmin": 2, "vmax": 9}, BoundsError),
])
def test_star2_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error):
        star2(parse_tree({"chance": [[0.5, 1], [0.5, 3]]}), **kwargs)


# -- the measurement of issue 31 (stochastic RT, b = 2, 3, 4, depth 3, seeds 0-4) ---------------

def _leaf_share(b, search):
    full = pruned = 0
    for seed in range(5):
        game = stochastic_random_tree(b, 3, seed=seed)
        exact, result = expectimax(game), search(game)
        assert abs(result.lower - exact.value) < 1e-9 and result.width < 1e-9
        full, pruned = full + exact.evaluated, pruned + result.evaluated
    return round(100 * pruned / full)


@pytest.mark.slow
def test_issue_31_measurement_on_stochastic_random_trees():
    # Lesson 4's table: 5 trees per b, depth 3, p = 0.8, leaves as a % of expectimax's.
    assert [_leaf_share(b, star1) for b in (2, 3, 4)] == [84, 71, 67]
    assert [_leaf_share(b, lambda g: star1(g, order="probability")) for b in (2, 3, 4)] == [61, 39, 32]
    assert [_leaf_share(b, star2) for b in (2, 3, 4)] == [63, 38, 34]
    assert [_leaf_share(b, lambda g: star2(g, keep_probes=False)) for b in (2, 3, 4)] == [144, 74, 60]


def test_command_line_star2_keeps_its_own_ordering(tmp_path, capsys):
    from course.cli import main

    path = tmp_path / "tree.json"
    path.write_text(json.dumps({"tree": {"chance": [[0.25, 1], [0.75, {"max": [2, 3]}]]},
                                "bounds": [0, 3]}))
    assert main(["search", "star2", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)          # probe (1, 0), then the 3/4 outcome
    assert data["leaves"] == [[1, 0], [1, 1], [0]]
    assert main(["search", "star2", str(path), "--order", "given", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["leaves"] == [[1, 0], [0], [1, 1]]
