"""Bounds are bounds: what a search reports about a node is never a bound passed off as a value.

``SearchResult.children`` holds one :class:`~course.search.ChildResult` per searched root child;
:func:`~course.search.result.known_bounds` says the same for every node of a trace.  For every
search of :mod:`course.search`, on thousands of random trees: an exact child (``lower ==
upper``) is worth exactly that (by brute force, written independently below); a child that is
only bounded has its true value inside the bounds.  Issue 30, item 3: alpha-beta used to report
a cut child as ``(index, v, v)``, e.g. ``(1, 2, 2)`` for a child worth 1.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import alphabeta, bab, expectimax, minimax, naive_epsilon, parse_tree, star1
from course.search import ChildResult, selective
from course.search.result import bounds_text, fail_soft_bounds, known_bounds
from course.trees import TreeNode


def true_values(node: TreeNode, out: dict | None = None) -> dict:
    """Every node's minimax / expectimax value (Atzmon et al. 2018, Eq. 1), by direct recursion."""
    out = {} if out is None else out
    if node.is_leaf:
        out[node.path] = node.value
        return out
    for child in node.children:
        true_values(child, out)
    values = [out[c.path] for c in node.children]
    if node.kind == "max":
        out[node.path] = max(values)
    elif node.kind == "min":
        out[node.path] = min(values)
    else:
        out[node.path] = sum(p * v for p, v in zip(node.probabilities, values))
    return out


def check_children(game, result, *, tolerance=0):
    truth = true_values(game.root)
    assert all(isinstance(c, ChildResult) for c in result.children)
    for child in result.children:
        index, lower, upper = child                       # still unpacks as a triple
        v = truth[(index,)]
        if child.exact:
            assert abs(child.value - v) <= tolerance, (child, v)
        else:
            assert lower - tolerance <= v <= upper + tolerance, (child, v)
    return truth


def check_known(game, result, truth, *, tolerance=0):
    """Every finished node of the trace: exact means exact, bounds contain the value."""
    known = known_bounds(result.trace, result.algorithm)
    assert known, "a traced search finishes at least the root"
    for path, (lower, upper) in known.items():
        v = truth[path]
        if lower == upper:
            assert abs(lower - v) <= tolerance, (path, lower, v)
        else:
            assert lower - tolerance <= v <= upper + tolerance, (path, lower, upper, v)
    # the result's children and the trace say the same about the root's children
    for child in result.children:
        assert known[(child.index,)] == (child.lower, child.upper), child


# -- the examples of the issue -------------------------------------------------------------------

def test_lesson_2_tree_cut_child_is_at_most_2_not_2():
    result = alphabeta(parse_tree([[3, 12, 8], [2, 1, 6], [14, 5, 2]]))
    assert result.children == ((0, 3, 3), (1, -math.inf, 2), (2, -math.inf, 2))
    assert [str(c) for c in result.children] == ["3", "≤2", "≤2"]
    assert result.children[1].value is None and result.children[1].contains(1)
    assert "worth 2" not in result.children[1].describe()
    assert result.children[1].describe() == "root child 1: worth at most 2 (a bound, not its value)"


def test_fail_high_children_of_a_min_root_are_lower_bounds():
    # MIN root: its first child settles beta = 0; the second is cut at 1 >= 0 (worth 5)
    result = alphabeta(parse_tree({"min": [{"max": [0, -1]}, {"max": [1, 5]}]}))
    assert result.children == ((0, 0, 0), (1, 1, math.inf))
    assert str(result.children[1]) == "≥1"


def test_naive_epsilon_children_are_what_is_known_not_what_it_returned():
    from course.examples import naive_epsilon_counterexample

    game = naive_epsilon_counterexample(m=3, x=10, epsilon=1)
    result = naive_epsilon(game, epsilon=1, trace=True)
    assert result.value == 13                        # what the naive rule claims, unchanged
    assert [str(c) for c in result.children] == ["10", "≤11", "≤12", "≤13"]
    assert known_bounds(result.trace, "naive-epsilon")[()] == (10, 13)


def test_bounds_text_and_fail_soft():
    assert bounds_text(2, 2) == "2" and bounds_text(-math.inf, 2) == "≤2"
    assert bounds_text(0, math.inf) == "≥0" and bounds_text(0, 1) == "[0, 1]"
    assert fail_soft_bounds(3, 3, 9) == (-math.inf, 3)      # equality: cut, so only a bound
    assert fail_soft_bounds(9, 3, 9) == (9, math.inf)
    assert fail_soft_bounds(5, 3, 9) == (5, 5)


def test_children_stay_tuples_for_old_code():
    result = alphabeta(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]]))
    first = result.children[0]
    assert first == (0, 3, 3) and first[1] == 3 and len(first) == 3 and tuple(first) == (0, 3, 3)
    assert max(result.children, key=lambda c: c[2])[0] == 0


# -- properties ------------------------------------------------------------------------------------

ORDERS = st.sampled_from(["given", "best-first", "worst-first", "random"])

#: Each property runs on this many random trees (the suite's default, 1,500, takes minutes here).
lean = settings(max_examples=300)


@lean
@given(games(), ORDERS, st.integers(0, 3))
def test_alphabeta_children_and_trace_are_honest(game, order, seed):
    result = alphabeta(game, order=order, seed=seed, trace=True)
    truth = check_children(game, result)
    check_known(game, result, truth)
    assert result == alphabeta(game, order=order, seed=seed)       # the trace changes nothing


@lean
@given(games(), st.sampled_from([0, 1, 2.5]))
def test_naive_epsilon_children_and_trace_are_honest(game, epsilon):
    result = naive_epsilon(game, epsilon=epsilon, trace=True)
    truth = check_children(game, result)
    check_known(game, result, truth)


@lean
@given(games(chance=True), st.sampled_from([0, 1, 3]))
def test_bab_and_star1_children_are_honest(game, epsilon):
    for result in (bab(game, epsilon=epsilon, trace=True), star1(game, trace=True)):
        truth = check_children(game, result)
        check_known(game, result, truth)


@lean
@given(games(chance=True))
def test_expectimax_and_minimax_children_are_exact(game):
    result = expectimax(game, trace=True)
    truth = check_children(game, result)
    assert all(c.exact for c in result.children)
    check_known(game, result, truth)


@lean
@given(games())
def test_minimax_children_are_exact(game):
    result = minimax(game, trace=True)
    check_known(game, result, check_children(game, result))
    assert all(c.exact for c in result.children)


@lean
@given(games())
def test_selective_children_are_its_own_values(game):
    result = selective(game, depth=2, skip=1, evaluate=lambda node: 0)
    assert all(c.exact for c in result.children)


@pytest.mark.parametrize("search", [alphabeta, star1])
def test_depth_limited_children_bound_the_depth_limited_value(search):
    from course.games import TicTacToe

    game = TicTacToe("X.. / .O. / ...")
    exact = minimax(game, depth=3)
    result = search(game, depth=3)
    values = {c.index: c.value for c in minimax(game, depth=3).children}
    assert exact.value == result.lower
    for child in result.children:
        assert child.contains(values[child.index]), (child, values[child.index])


# -- the searches with a transposition table, and Star2 -------------------------------------------

@lean
@given(games(chance=True))
def test_star2_children_and_trace_are_honest(game):
    from course.search import star2

    result = star2(game, trace=True)
    check_known(game, result, check_children(game, result))


@lean
@given(games(), st.sampled_from([0, 1]))
def test_tt_searches_on_trees_are_honest(game, epsilon):
    from course.search import alphabeta_tt, bab_tt

    for result in (alphabeta_tt(game, trace=True), bab_tt(game, epsilon=epsilon, trace=True)):
        check_known(game, result, check_children(game, result))


@pytest.mark.parametrize("start", [".X. / ... / ...", "X.. / .O. / ..."])
def test_alphabeta_tt_table_answers_are_read_as_the_bounds_they_are(start):
    """Tic-tac-toe transposes: the table answers positions ("table: lower value 1 ..."), with
    the window already narrowed by the entry; what is known must still contain each value."""
    from course.games import TicTacToe
    from course.search import alphabeta_tt
    from test_pictures_honest import play_values

    game = TicTacToe(start)
    root = game.initial_state()
    result = alphabeta_tt(game, trace=True)
    answered = [e for e in result.trace if e.kind == "cutoff" and e.reason.startswith("table: ")]
    assert any("lower value" in e.reason or "upper value" in e.reason for e in answered)
    value = play_values(game, root, alphabeta)
    known = known_bounds(result.trace, result.algorithm)
    for path, (lower, upper) in known.items():
        v = value(path)
        assert lower <= v <= upper and (lower != upper or lower == v), (path, lower, upper, v)
    for child in result.children:
        assert child.contains(value((child.index,))), child
