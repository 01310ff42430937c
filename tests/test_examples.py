"""The worked examples of the seeds, recomputed (nothing here is retyped from a result)."""

from __future__ import annotations

import math

from fractions import Fraction

import pytest

from course import alphabeta, bab, expectimax, minimax, naive_epsilon, parse_tree, star1
from course.examples import (
    aima_figure_5_2,
    bab_figure3,
    chance_note_game,
    chance_note_thresholds,
    expectimax_example,
    expectimax_pruning_example,
    naive_epsilon_counterexample,
)


# AIMA figure 5.2:
#            A (max)
#      /       |       \
#   B(min)   C(min)   D(min)
#   3 12 8   2 4 6    14 5 2
def test_aima_5_2_alphabeta_prunes_c2_and_c3():
    game = aima_figure_5_2()
    result = alphabeta(game, trace=True)
    assert result.value == 3 and result.move == 0
    labels = [game.node(p).label for p in result.leaves]
    assert labels == ["B1", "B2", "B3", "C1", "D1", "D2", "D3"]
    assert result.trace.pruned_paths() == [(1, 1), (1, 2)]
    assert {game.node(p).label for p in result.trace.pruned_paths()} == {"C2", "C3"}
    assert minimax(game).evaluated == 9


def test_aima_5_2_bare_list_format_is_the_same_tree():
    bare = parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    assert alphabeta(bare).leaves == alphabeta(aima_figure_5_2()).leaves


def test_aima_5_2_inner_values_are_bounds():
    # C returns 2 <= alpha = 3: only "at most 2" (its true value is 2 here); D too, although it
    # looked at every leaf: fail-soft alpha-beta cannot tell the two apart
    result = alphabeta(aima_figure_5_2())
    assert result.children == ((0, 3, 3), (1, -math.inf, 2), (2, -math.inf, 2))


# BAB paper, Figure 2: naive epsilon pruning drifts to X + m*eps
@pytest.mark.parametrize("m", [1, 2, 3, 6])
@pytest.mark.parametrize("x,eps", [(10, 1), (0, 2.5), (Fraction(1, 3), Fraction(1, 7))])
def test_naive_epsilon_error_grows_with_m(m, x, eps):
    game = naive_epsilon_counterexample(m=m, x=x, epsilon=eps)
    assert minimax(game).value == x
    naive = naive_epsilon(game, epsilon=eps)
    assert naive.value == x + m * eps
    if m >= 2:
        assert naive.value - x > eps  # the error exceeds epsilon
    bounded = bab(game, epsilon=eps)
    assert bounded.lower <= x <= bounded.upper and bounded.width <= eps


def test_naive_epsilon_prunes_every_right_leaf():
    game = naive_epsilon_counterexample(m=4, x=0, epsilon=1)
    leaves = naive_epsilon(game, epsilon=1).leaves
    assert leaves == ((0,), (1, 0), (2, 0), (3, 0), (4, 0))


# BAB paper, Figure 3: eps = 2 may search more than eps = 1
def test_figure3_windows_match_the_text():
    game = bab_figure3()
    r2 = bab(game, epsilon=2, trace=True)
    nodes = r2.trace.nodes()
    # "after we explored the left child of node A, we update alpha = 7 and beta = 10"
    b_node, c_node = nodes[(1,)], nodes[(1, 0)]
    assert (b_node.alpha, b_node.beta) == (7, 10) and (c_node.alpha, c_node.beta) == (7, 10)
    # "after we explored the left child of node C, alpha = 8 and beta = 10": eps = 2 prunes D
    cut = [e for e in r2.trace if e.kind == "cutoff"]
    assert [(e.path, e.alpha, e.beta, e.pruned) for e in cut] == [((1, 0), 8, 10, (1,))]
    assert (c_node.lower, c_node.upper) == (8, 10)
    r1 = bab(game, epsilon=1, trace=True)
    c1 = r1.trace.nodes()[(1, 0)]
    assert (c1.lower, c1.upper) == (8, 8)
    cut1 = [e for e in r1.trace if e.kind == "cutoff"]
    assert [(e.path, e.alpha, e.beta, e.pruned) for e in cut1] == [((1,), 7, 8, (1,))]


@pytest.mark.parametrize("d_size,e_size", [(1, 1), (3, 1), (1, 3)])
def test_figure3_subtree_sizes_decide_which_epsilon_expands_more(d_size, e_size):
    # D (value <= 8) and E as MIN/MAX subtrees with many leaves
    def subtree(kind, n, value):
        return {kind: [value] * (2 ** n)} if n > 1 else value

    game = bab_figure3(d=subtree("max", d_size, 6), e=subtree("min", e_size, 10))
    n1, n2 = (bab(game, epsilon=e).evaluated for e in (1, 2))
    if d_size == e_size:
        assert n1 == n2
    elif d_size > e_size:
        assert n1 > n2  # eps = 1 searches D, the big one
    else:
        assert n2 > n1  # eps = 2 searches E, the big one: a larger eps, more work
    for e in (1, 2):
        r = bab(game, epsilon=e)
        assert r.lower <= minimax(game).value <= r.upper and r.width <= e


# CS 520 note: pruning below a chance node
def test_chance_note_thresholds():
    t = chance_note_thresholds()
    assert t.u_a1 == Fraction(-1, 2)
    assert (t.prune_at_or_below, t.prune_at_or_above) == (Fraction(-7, 8), Fraction(-3, 8))
    assert (float(t.prune_at_or_below), float(t.prune_at_or_above)) == (-0.875, -0.375)
    # U(a1) is what expectimax computes on the note's game
    assert expectimax(chance_note_game()).children[0][1] == Fraction(-1, 2)


@pytest.mark.parametrize("u", [Fraction(k, 16) for k in range(-16, 17)])
def test_star1_prunes_c2_exactly_below_the_first_threshold(u):
    t = chance_note_thresholds()
    game = chance_note_game(u_a2_c1=u)
    result = star1(game)
    searched_c2 = any(leaf[:2] == (1, 1) for leaf in result.leaves)
    assert searched_c2 == (u > t.prune_at_or_below)
    assert result.value == expectimax(game).value
    # the note's rule also skips c2 at or above -3/8: it decides the move, not the value
    assert t.prunes(u) == (u <= Fraction(-7, 8) or u >= Fraction(-3, 8))


def test_lecture_expectimax_example():
    assert expectimax(expectimax_example()).value == 14


def test_expectimax_pruning_needs_a_bound():
    game = expectimax_pruning_example()
    result = star1(game)
    assert result.value == expectimax(game).value == 8
    # after the 2, the second node is worth at most (2 + 10 + 10)/3 = 22/3 < 8: pruned
    assert result.leaves == ((0, 0), (0, 1), (0, 2), (1, 0))
    assert result.children[1][2] == Fraction(22, 3)
    # without a useful bound (vmax huge) nothing is pruned
    assert star1(game, vmax=100).evaluated == 6


# Lecture notes: best case of alpha-beta, B_m = B_{m-1} + (b - 1) B_{m-2}.
# The notes ask each refuted child for the *exact* value of its first child (B_{m-2});
# a bound suffices, which costs b^floor((m-1)/2) leaves.  So the notes' recurrence
# matches Knuth & Moore's exact count up to depth 3 and over-counts beyond.
def notes_recurrence(b, m):
    previous, current = 1, b  # B_0 = 1 leaf, B_1 = b leaves
    if m == 0:
        return previous
    for _ in range(m - 1):
        previous, current = current, current + (b - 1) * previous
    return current


def exact_recurrence(b, m):
    """P_m = P_{m-1} + (b - 1) b^floor((m-1)/2): the first child exact, the others refuted."""
    total = 1
    for k in range(1, m + 1):
        total += (b - 1) * b ** ((k - 1) // 2)
    return total


def uniform_tree(b, d, values):
    it = iter(values)

    def build(level):
        return next(it) if level == d else [build(level + 1) for _ in range(b)]

    return parse_tree(build(0))


@pytest.mark.parametrize("b", [2, 3, 4])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 6])
def test_best_case_recurrence_formula_and_measurement(b, d):
    import random

    values = random.Random(b * 100 + d).sample(range(10 * b ** d), b ** d)
    measured = alphabeta(uniform_tree(b, d, values), order="best-first").evaluated
    formula = b ** ((d + 1) // 2) + b ** (d // 2) - 1
    assert exact_recurrence(b, d) == formula == measured
    if d <= 3:
        assert notes_recurrence(b, d) == formula
    else:
        assert notes_recurrence(b, d) > formula
    assert alphabeta(uniform_tree(b, d, values), order="worst-first").evaluated >= measured
