"""Property tests: the pruning searches against brute force on thousands of random trees.

The brute force here is written independently of ``course.search``: a direct
recursion over the tree's nodes (Atzmon et al. 2018, Eq. 1).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import games, uniform_games

from course import alphabeta, bab, expectimax, minimax, naive_epsilon, parse_tree, star1
from course.search.chance import rounding_bound
from course.trees import TreeNode


def true_value(node: TreeNode):
    """Eq. (1) of the BAB paper, by direct recursion."""
    if node.is_leaf:
        return node.value
    values = [true_value(c) for c in node.children]
    if node.kind == "max":
        return max(values)
    if node.kind == "min":
        return min(values)
    return sum(p * v for p, v in zip(node.probabilities, values))


def is_subsequence(short, long):
    it = iter(long)
    return all(x in it for x in short)


def check_move(game, result, slack=0):
    """The chosen root child's true value is within ``slack`` of the root's, on MAX's side."""
    root = game.root
    if root.kind not in ("max", "min"):
        assert result.move is None
        return
    v_root = true_value(root)
    v_move = true_value(root.children[result.move])
    if root.kind == "max":
        assert v_move >= v_root - slack, (result.move, v_move, v_root)
    else:
        assert v_move <= v_root + slack, (result.move, v_move, v_root)


# -- deterministic trees -----------------------------------------------------------------

@given(games())
def test_minimax_is_brute_force(game):
    result = minimax(game)
    assert result.value == true_value(game.root)
    assert result.evaluated == len(game.root.leaves())
    assert list(result.leaves) == [leaf.path for leaf in game.root.leaves()]
    assert result.expanded == game.root.size - len(game.root.leaves())
    check_move(game, result)


@given(games())
def test_alphabeta_value_and_move(game):
    result = alphabeta(game)
    assert result.value == true_value(game.root)
    check_move(game, result)
    # alpha-beta visits a subsequence of minimax's leaves, never more
    assert is_subsequence(result.leaves, minimax(game).leaves)


@given(games(), st.sampled_from(["given", "best-first", "worst-first", "random", "heuristic"]),
       st.integers(0, 3))
def test_alphabeta_any_ordering(game, order, seed):
    result = alphabeta(game, order=order, seed=seed, evaluate=lambda node: 0)
    assert result.value == true_value(game.root)
    check_move(game, result)
    valid = {leaf.path for leaf in game.root.leaves()}
    assert set(result.leaves) <= valid and len(set(result.leaves)) == len(result.leaves)


@given(games())
def test_naive_epsilon_zero_is_alphabeta(game):
    a, n = alphabeta(game), naive_epsilon(game, epsilon=0)
    assert (n.value, n.leaves, n.expanded, n.move) == (a.value, a.leaves, a.expanded, a.move)


@given(games(low=1, high=8))
def test_star1_is_alphabeta_when_bounds_are_strict(game):
    # bounds strictly outside every leaf value: Star1 prunes exactly like alpha-beta
    s, a = star1(game, vmin=0, vmax=9), alphabeta(game)
    assert (s.value, s.leaves, s.expanded, s.move) == (a.value, a.leaves, a.expanded, a.move)


@given(games())
def test_star1_with_tight_bounds_prunes_at_least_as_much(game):
    s, a = star1(game), alphabeta(game)
    assert s.value == a.value
    assert is_subsequence(s.leaves, a.leaves)


@given(uniform_games())
def test_perfect_ordering_evaluates_the_minimal_tree(case):
    game, b, d = case
    result = alphabeta(game, order="best-first")
    assert result.evaluated == b ** ((d + 1) // 2) + b ** (d // 2) - 1


@given(uniform_games(distinct=True), st.sampled_from(["given", "worst-first", "random"]), st.integers(0, 9))
def test_no_ordering_beats_the_minimal_tree(case, order, seed):
    # Knuth & Moore: with distinct leaves every ordering evaluates at least the minimal tree
    game, b, d = case
    assert alphabeta(game, order=order, seed=seed).evaluated >= b ** ((d + 1) // 2) + b ** (d // 2) - 1


# -- trees with chance ---------------------------------------------------------------------

@given(games(chance=True))
def test_expectimax_is_brute_force(game):
    result = expectimax(game)
    assert result.value == true_value(game.root)
    check_move(game, result)


@given(games(chance=True))
def test_star1_equals_expectimax(game):
    result = star1(game)
    assert result.value == true_value(game.root)  # exact: probabilities are Fractions
    assert is_subsequence(result.leaves, expectimax(game).leaves)
    check_move(game, result)


@given(games(chance=True), st.sampled_from(["random", "best-first", "worst-first"]), st.integers(0, 5))
def test_star1_any_ordering(game, order, seed):
    assert star1(game, order=order, seed=seed).value == true_value(game.root)


@given(games(chance=True), st.fractions(min_value=0, max_value=12, max_denominator=8))
def test_bab_bounds_contain_the_value_within_epsilon(game, epsilon):
    result = bab(game, epsilon=epsilon)
    v = true_value(game.root)
    assert result.lower <= v <= result.upper
    assert result.upper - result.lower <= epsilon
    assert is_subsequence(result.leaves, expectimax(game).leaves)
    check_move(game, result, slack=epsilon)


@given(games(chance=True, low=-5, high=5), st.floats(min_value=0, max_value=20, allow_nan=False))
def test_bab_float_epsilon_with_loose_bounds(game, epsilon):
    # the float guarantee of course.search.bab, exactly: the value (exact here: Fraction
    # probabilities, integer leaves) within [L, U], U - L <= epsilon + 2 delta (delta = 0
    # without chance nodes: every cut-off is decided exactly, and MAX and MIN only compare)
    result = bab(game, epsilon=epsilon, vmin=-7, vmax=6.5)
    v = true_value(game.root)
    delta = rounding_bound(game, vmin=-7, vmax=6.5)
    assert result.lower <= v <= result.upper
    assert Fraction(result.upper) - Fraction(result.lower) <= Fraction(epsilon) + 2 * delta
    assert delta > 0 or not game.has_chance        # only chance nodes round


@given(games(chance=True))
def test_bab_epsilon_zero_is_star1(game):
    a, b_ = bab(game, epsilon=0), star1(game)
    assert (a.lower, a.upper, a.leaves, a.expanded, a.move) == (b_.lower, b_.upper, b_.leaves, b_.expanded, b_.move)


@given(games(chance=True), st.integers(0, 3))
def test_trace_agrees_with_counters(game, epsilon):
    for result in (bab(game, epsilon=epsilon, trace=True), expectimax(game, trace=True)):
        events = result.trace.events
        assert [e.path for e in events if e.kind == "leaf"] == list(result.leaves)
        assert sum(e.kind == "enter" for e in events) == result.expanded
        assert sum(e.kind == "exit" for e in events) == result.expanded
        untraced = type(result)(**{**result.__dict__, "trace": None})
        again = bab(game, epsilon=epsilon) if result.algorithm == "bab" else expectimax(game)
        assert again == untraced


@given(games(chance=True, max_depth=3))
def test_depth_limited_search_uses_eval_at_the_horizon(game):
    evaluate = lambda node: Fraction(len(node.path), 7)  # any EVAL in the bounds
    limited = expectimax(game, depth=1, evaluate=evaluate)
    assert all(len(p) <= 1 for p in limited.leaves)
    assume(game.root.kind != "leaf")
    s = star1(game, depth=1, evaluate=evaluate, vmin=0, vmax=9)
    assert s.value == limited.value


@given(games(chance=True, max_depth=4, low=0, high=100))
def test_star1_value_is_exact_in_floating_point(game):
    # float probabilities: the bounds must still meet, and equal expectimax's number
    from course.trees import parse_tree, tree_to_obj
    import json

    floaty = parse_tree(json.loads(json.dumps(tree_to_obj(game), default=float)))
    s, e = star1(floaty), expectimax(floaty)
    assert s.value is not None  # the bounds meet exactly
    assert s.value == e.value   # bit for bit (course.search.chance)


@given(st.integers(1, 8), st.integers(-50, 50), st.fractions(min_value=Fraction(1, 10), max_value=10))
def test_naive_epsilon_error_is_unbounded(m, x, epsilon):
    # BAB paper, Figure 2: the naive rule ends at x + m*eps while the value is x; BAB stays within eps
    from course.examples import naive_epsilon_counterexample

    game = naive_epsilon_counterexample(m=m, x=x, epsilon=epsilon)
    assert true_value(game.root) == x
    assert naive_epsilon(game, epsilon=epsilon).value == x + m * epsilon
    result = bab(game, epsilon=epsilon)
    assert result.lower <= x <= result.upper and result.width <= epsilon
