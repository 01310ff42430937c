"""The lessons' corrected claims, checked by the course's own code (issue 31, item 1).

Each test would fail if the wrong claim came back: the lessons print these computations, and
``tests/test_lessons.py`` checks what they print; here the claims are checked directly, fast,
without running a notebook.
"""

from fractions import Fraction

import pytest

from course import alphabeta, bab, minimax, parse_tree, star1
from course.analysis import node_values, noisy_evaluation
from course.games import TicTacToe, random_tree, stochastic_random_tree
from course.theory import best_case_leaves, iterative_deepening_overhead


def test_lesson_1_only_one_depth_limit_estimates_tic_tac_toe_exactly():
    """Lesson 1 said the depth-limited estimates differ from 0; the depth-4 one is exactly 0."""
    game = TicTacToe()
    estimates = {d: minimax(game, depth=d).value for d in range(1, 6)}
    assert [d for d, v in estimates.items() if v == 0] == [4]
    assert min(v for d, v in estimates.items() if d % 2) > max(v for d, v in estimates.items() if not d % 2)


@pytest.mark.parametrize("b", [2, 3, 4])
def test_iterative_deepening_overhead_is_the_counted_one(b):
    """Earlier iterations / last, counted: b^k for minimax, alpha-beta best-first = Knuth-Moore."""
    for d in range(2, 7):
        full = [minimax(random_tree(b, k, seed=k)).evaluated for k in range(1, d + 1)]
        best = [alphabeta(random_tree(b, k, seed=k), order="best-first").evaluated for k in range(1, d + 1)]
        assert iterative_deepening_overhead(b, d) == Fraction(sum(full[:-1]), full[-1])
        assert iterative_deepening_overhead(b, d, search="alphabeta") == Fraction(sum(best[:-1]), best[-1])


def test_the_full_width_overhead_is_wrong_for_alpha_beta():
    """1/(b-1) is right without pruning, far too small with it (lesson 2 used to say 'about 1/(b-1)')."""
    for b, d in [(4, 6), (10, 6), (35, 4)]:
        assert iterative_deepening_overhead(b, d) < Fraction(1, b - 1)
        assert iterative_deepening_overhead(b, d, search="alphabeta") > 3 * Fraction(1, b - 1)
    assert iterative_deepening_overhead(35, 4, search="alphabeta") > Fraction(1, 2)
    assert iterative_deepening_overhead(4, 6, search="alphabeta") == Fraction(140, 127)


def test_bab_can_beat_alpha_beta_best_case_with_known_bounds():
    """The BAB paper conjectures that its best case cannot beat alpha-beta's unless
    epsilon = vmax - vmin; with known bounds close to the values it can."""
    tiny = parse_tree({"tree": [[96, 97], [50, 60]], "bounds": [0, 100]})
    quick = bab(tiny, epsilon=5)
    exact = minimax(tiny).value
    assert quick.evaluated == 2 < best_case_leaves(2, 2) == 3
    assert quick.lower <= exact <= quick.upper and quick.upper - quick.lower <= 5 < 100 - 0
    assert alphabeta(tiny, order="best-first").evaluated == star1(tiny).evaluated == 3


def _depth_limited_cases():
    for seed in range(30):
        yield random_tree(3, 5, seed=seed).to_tree(), 3
        yield random_tree(2, 6, seed=seed).to_tree(), 4
        yield stochastic_random_tree(2, 3, seed=seed).to_tree(), 3


@pytest.mark.parametrize("e, eps", [(0, 3), (1, 0), (2, 5), (5, 5), (5, 20), (10, 1)])
def test_bab_with_a_depth_limit_is_within_e_plus_epsilon(e, eps):
    """The course's own combination of Theorem 1 with Chen's Proposition 1 (lesson 5): EVAL off by
    at most e at the horizon gives bounds within e + eps of the game's value and a decision error
    of at most 2e + eps, with and without chance nodes."""
    for case, (tree, depth) in enumerate(_depth_limited_cases()):
        true = node_values(tree)
        evaluate = noisy_evaluation(true, e, seed=case)
        r = bab(tree, epsilon=eps, depth=depth, evaluate=evaluate, vmin=tree.vmin - e, vmax=tree.vmax + e)
        tolerance = 1e-9 * (1 + abs(true[()]))
        assert max(abs(r.lower - true[()]), abs(r.upper - true[()])) <= e + eps + tolerance, case
        assert true[()] - true[(r.move,)] <= 2 * e + eps + tolerance, case


def test_the_decision_bound_two_e_plus_epsilon_is_reached():
    tight = parse_tree({"tree": [[[3]], [[6], [7]]], "bounds": [0, 10]})
    estimates = {(0, 0): 4, (1, 0): 5, (1, 1): 6}          # each off by e = 1
    r = bab(tight, epsilon=1, depth=2, evaluate=lambda node: estimates[node.path])
    true = node_values(tight)
    assert (r.lower, r.upper, r.move) == (4, 5, 0)
    assert true[()] - true[(r.move,)] == 3 == 2 * 1 + 1


def test_chen_table_1_setting_shows_a_plateau_not_a_rise():
    """Lesson 3's run (500 decisions): for s = 3 the paired difference err(9) - err(5) is within
    two standard errors of 0; for s = 0 the same four levels remove most of the error."""
    from course.experiments.chen import paired_difference, simulate

    run = simulate(5, 10, 9, simulations=500, depths=[5, 9], skips=[0, 3], last_level="max")
    change, se = paired_difference(run["errors"][9, 3], run["errors"][5, 3])
    assert abs(change) <= 2 * se, (change, se)
    change0, se0 = paired_difference(run["errors"][9, 0], run["errors"][5, 0])
    assert change0 + 2 * se0 < 0 and change0 < change - 0.1
