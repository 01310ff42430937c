"""Floating-point chance nodes (issue 15): probabilities that sum to 1 only within 1e-9.

The rule (course.search.chance): a chance node's value is sum(p v) / sum(p), added
left to right and clamped into its children's range; Star1/BAB bounds use the same
computation with vmin / vmax for unexplored children, so they never cross and meet
exactly at expectimax's value.

BAB's guarantee with floats (course.search.bab, module notes), asserted as stated: with E
expectimax's value, V* the exact value of the float inputs and delta = rounding_bound(game),
vmin <= L <= E <= U <= vmax exactly, U - L <= epsilon + 2 delta exactly (L == U == E at
epsilon = 0), L - delta <= V* <= U + delta, and every cut-off decided exactly.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from course import parse_tree
from course.experiments.fast import fast_search
from course.search import bab, bab_tt, expectimax, star1
from course.search.chance import (ChanceBounds, chance_value, rounding_bound,
                                  within_epsilon)

CROSSED = Path(__file__).parent / "data" / "crossed_float_chance.json"

# Found by the "quick" profile: C6's window for the MIN child of the last chance node is
# (3 - 6) / 0.6 + 6 = 1.0 in floats, so the MIN node cut at its leaf 1, but the chance node's
# own U, 0.6 * 1 + 0.4 * 6, rounds to 3.0000000000000004 > alpha = 3: BAB at epsilon = 0
# returned [3, 3.0000000000000004].  The window is now exact for the node's arithmetic.
THIRD = 0.3333333333333333
ROUNDED_WINDOW = {"max": [
    {"max": [{"max": [{"max": [3]}, {"max": [0]}]}]},
    {"chance": [[THIRD, {"chance": [[THIRD, {"max": [0]}], [THIRD, {"max": [0]}],
                                    [THIRD, {"max": [0]}]]}],
                [THIRD, 0],
                [THIRD, {"max": [0, {"max": [0]}, {"max": [0]}]}]]},
    {"max": [0, 0, 0, {"chance": [[0.6, {"min": [1, 0]}], [0.4, 6]]}]},
]}


# Found by the explore profile at epsilon = 3: the chance node (0, 1) cut with beta =
# 3.491228070175439 <= alpha + 3, alpha = 0.4912280701754386, because that sum rounds up to beta;
# exactly, beta - alpha = 3 + 3 * 2**-54, and the root's U - L ended 3 + 2**-52.  The cut-off is
# now decided exactly (within_epsilon): (0, 1) searches its last child and U - L <= 3 exactly.
ROUNDED_CUT = {"max": [{"chance": [
    [0.25, {"max": [{"chance": [[0.25, 0], [0.25, 0], [0.25, 0], [0.25, 0]]}]}],
    [0.75, {"chance": [[0.3157894736842105, {"max": [0]}],
                       [0.3684210526315789, {"chance": [[0.16666666666666666, 6],
                                                        [0.3333333333333333, 1],
                                                        [0.16666666666666666, 0],
                                                        [0.3333333333333333, 0]]}],
                       [0.3157894736842105, 0]]}]]}]}

# Found by a random search (seed 0 of the same kind of trees): the root, a chance node, searches
# both its children, which return bounds exactly 3 apart, [0, 3] and [0.7435897435897436,
# 3.7435897435897436]; its L and U are two rounded sums, 3 + 2**-52 apart.  This is what the
# tolerance 2 delta of the float guarantee is for: no arithmetic narrows it (see bab's notes).
ROUNDED_SUMS = {"chance": [
    [0.75, {"min": [3, {"min": [{"min": [2, 0, 4]}, 1, 1]}]}],
    [0.25, {"chance": [
        [0.38461538461538464, {"min": [{"chance": [[0.4666666666666667, 3], [0.4, 3],
                                                   [0.13333333333333333, 2]]},
                                       {"min": [2, 0]}, 6,
                                       {"chance": [[0.25, 2], [0.25, 3], [0.1875, 1],
                                                   [0.3125, 1]]}]}],
        [0.23076923076923078, {"min": [{"chance": [[0.3333333333333333, 0],
                                                   [0.2222222222222222, 1],
                                                   [0.05555555555555555, 4],
                                                   [0.3888888888888889, 5]]}]}],
        [0.23076923076923078, {"max": [2, {"max": [3, 0]}]}],
        [0.15384615384615385, {"max": [{"chance": [[1.0, 0]]}, {"chance": [[1.0, 1]]},
                                       {"chance": [[1.0, 0]]},
                                       {"chance": [[0.25, 3], [0.25, 3], [0.16666666666666666, 4],
                                                   [0.3333333333333333, 0]]}]}]]}]]}


def exact_value(node):
    """V*: the value in exact arithmetic of the tree's numbers (floats read as the rationals
    they are), each chance node's probabilities normalised by their exact sum."""
    if node.is_leaf:
        return Fraction(node.value)
    values = [exact_value(child) for child in node.children]
    if node.kind == "max":
        return max(values)
    if node.kind == "min":
        return min(values)
    weights = [Fraction(p) for p in node.probabilities]
    return sum(w * v for w, v in zip(weights, values)) / sum(weights)


def check_float_guarantee(game, result, epsilon, *, vmin=None, vmax=None):
    """BAB's guarantee with floats, exactly as course.search.bab states it."""
    vmin = game.vmin if vmin is None else vmin
    vmax = game.vmax if vmax is None else vmax
    delta = rounding_bound(game, vmin=vmin, vmax=vmax)
    e, v = expectimax(game).value, exact_value(game.root)
    L, U = result.lower, result.upper
    assert abs(Fraction(e) - v) <= delta                       # the rule is within delta of V*
    assert vmin <= L <= e <= U <= vmax, (L, e, U)              # 1. bit for bit
    assert Fraction(U) - Fraction(L) <= Fraction(epsilon) + 2 * delta, (L, U)   # 2.
    if epsilon == 0:
        assert L == U == e
    assert Fraction(L) - delta <= v <= Fraction(U) + delta     # 3.
    if result.trace is not None:                               # every cut-off decided exactly
        for event in result.trace:
            if event.kind == "cutoff" and not event.reason.startswith("table"):
                assert Fraction(event.beta) - Fraction(event.alpha) <= Fraction(epsilon), event
    return delta


def _float_tree(obj):
    """The tree object with every chance probability written as a float w / total."""
    if isinstance(obj, dict):
        kind, children = next((k, v) for k, v in obj.items() if k in ("max", "min", "chance"))
        if kind == "chance":
            return {"chance": [[float(p), _float_tree(c)] for p, c in children]}
        return {kind: [_float_tree(c) for c in children]}
    return obj


@st.composite
def float_chance_objects(draw, max_depth=4, max_branching=4):
    """Trees whose probabilities are floats like 1/6, 2/3, 1/7 (rarely summing to exactly 1)."""
    def node(depth):
        if depth >= max_depth or (depth > 0 and draw(st.integers(0, 4)) == 0):
            return draw(st.integers(0, 6))
        kind = draw(st.sampled_from(["max", "min", "chance", "chance"]))
        n = draw(st.integers(1, max_branching))
        if kind == "chance":
            weights = [draw(st.integers(1, 7)) for _ in range(n)]
            total = sum(weights)
            return {"chance": [[w / total, node(depth + 1)] for w in weights]}
        return {kind: [node(depth + 1) for _ in range(n)]}

    return node(0)


def _check_invariants(game, result, vmin, vmax):
    assert result.lower <= result.upper, (result.lower, result.upper)
    assert vmin <= result.lower and result.upper <= vmax
    for (_, lo, hi) in getattr(result, "children", ()) or ():
        assert lo <= hi


def test_the_reported_tree_no_longer_crosses():
    game = parse_tree(json.loads(CROSSED.read_text()))
    e = expectimax(game)
    assert e.value == 2                               # not 1.9999999999999998 < vmin
    for result in (star1(game), bab(game, epsilon=0)):
        assert result.lower <= result.upper
        assert result.value is not None and result.value == e.value


def test_the_reported_tree_from_the_command_line():
    out = subprocess.run([sys.executable, "-m", "course", "search", "star1", str(CROSSED), "--json"],
                         capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert data["lower"] == data["upper"] == data["value"] == 2


def test_chance_value_examples():
    assert chance_value([1 / 6, 2 / 3, 1 / 6], [2, 2, 2]) == 2
    assert 2 * (1 / 6) + 2 * (2 / 3) + 2 * (1 / 6) < 2        # what the naive sum gives
    # never outside the children's range
    assert chance_value([0.1] * 10, [7] * 10) == 7
    bounds = ChanceBounds([0.1] * 10, 0, 9)
    for _ in range(10):
        lo, hi = bounds.add(7, 7)
        assert 0 <= lo <= 7 <= hi <= 9
    assert (lo, hi) == (7, 7)


@given(float_chance_objects(), st.sampled_from([0, 0.5, 1, 3, 1 / 3]))
@example(json.loads(CROSSED.read_text())["tree"], 0)
@example(ROUNDED_WINDOW, 0)
@example(ROUNDED_CUT, 3)
@example(ROUNDED_SUMS, 3)
def test_float_probabilities_never_cross_and_meet_at_expectimax(obj, epsilon):
    game = parse_tree(obj)
    vmin, vmax = game.vmin, game.vmax
    e = expectimax(game)
    assert vmin <= e.value <= vmax
    result = bab(game, epsilon=epsilon, trace=True)
    check_float_guarantee(game, result, epsilon)
    for event in result.trace:
        if event.lower is not None and event.upper is not None:
            assert vmin <= event.lower <= event.upper <= vmax, event
    check_float_guarantee(game, bab_tt(game, epsilon=epsilon, trace=True), epsilon)
    if epsilon == 0:
        s = star1(game)
        assert s.value is not None and s.value == e.value


def test_the_rounded_cut_example():
    """ROUNDED_CUT: the cut-off float arithmetic allowed, with bounds more than epsilon apart."""
    alpha, beta = 0.4912280701754386, 3.491228070175439
    assert beta <= alpha + 3 and Fraction(beta) - Fraction(alpha) == 3 + Fraction(3, 2**54)
    assert not within_epsilon(beta, alpha, 3)
    game = parse_tree(ROUNDED_CUT)
    result = bab(game, epsilon=3, trace=True)
    assert not any(e.kind == "cutoff" and e.path == (0, 1) for e in result.trace)
    assert Fraction(result.upper) - Fraction(result.lower) <= 3       # exactly, no tolerance
    check_float_guarantee(game, result, 3)


def test_the_rounded_sums_example():
    """ROUNDED_SUMS: children within epsilon, the parent's two rounded sums 3 + 2**-52 apart."""
    game = parse_tree(ROUNDED_SUMS)
    result = bab(game, epsilon=3, trace=True)
    assert not any(e.kind == "cutoff" and e.path == () for e in result.trace)   # fully searched
    assert [Fraction(c.upper) - Fraction(c.lower) for c in result.children] == [3, 3]
    gap = Fraction(result.upper) - Fraction(result.lower)
    assert gap == 3 + Fraction(1, 2**52)
    delta = check_float_guarantee(game, result, 3)
    assert gap - 3 <= 2 * delta
    # the same sums with the children's exact bounds put them exactly 3 apart
    (_, l0, u0), (_, l1, u1) = result.children
    assert (Fraction(0.75) * Fraction(u0) + Fraction(0.25) * Fraction(u1)) - \
        (Fraction(0.75) * Fraction(l0) + Fraction(0.25) * Fraction(l1)) == 3


def test_the_exact_value_can_lie_outside_star1s_bounds():
    """Why the guarantee promises V* only within delta (docs/reference/searches.md)."""
    game = parse_tree({"chance": [[1 / 3, 0], [1 / 3, 0], [1 / 3, 1]]})
    result = star1(game)
    assert exact_value(game.root) == Fraction(1, 3)
    assert result.lower == result.upper == expectimax(game).value == 0.3333333333333333
    assert Fraction(result.upper) < Fraction(1, 3)
    check_float_guarantee(game, result, 0)


@given(st.data())
def test_within_epsilon_is_the_exact_comparison(data):
    """Floats, ints and fractions, with ties to a rounded sum made frequent."""
    numbers = (st.floats(-1e6, 1e6, allow_nan=False) | st.integers(-10**6, 10**6)
               | st.fractions(-100, 100, max_denominator=12) | st.integers(2**53 - 3, 2**53 + 3))
    alpha = data.draw(numbers, label="alpha")
    epsilon = data.draw(numbers.filter(lambda x: x >= 0), label="epsilon")
    total = alpha + epsilon
    nearby = [total] + ([math.nextafter(total, -math.inf), math.nextafter(total, math.inf)]
                        if isinstance(total, float) else [])
    beta = data.draw(st.sampled_from(nearby) | numbers, label="beta")
    strict = data.draw(st.booleans(), label="strict")
    gap = Fraction(beta) - Fraction(alpha) - Fraction(epsilon)
    assert within_epsilon(beta, alpha, epsilon, strict) == (gap < 0 if strict else gap <= 0)


@pytest.mark.parametrize("b, d, p", [(2, 2, 0.8), (3, 2, 0.8), (4, 2, 0.7), (5, 1, 0.9), (3, 3, 0.8)])
@pytest.mark.parametrize("seed", range(4))
def test_stochastic_random_trees(b, d, p, seed):
    from course.games.random_trees import stochastic_random_tree

    game = stochastic_random_tree(b, d, seed=seed, p=p)
    e = expectimax(game)
    s = star1(game)
    assert s.value is not None and s.value == e.value and game.vmin <= e.value <= game.vmax
    assert fast_search("star1", game) == s
    delta = rounding_bound(game)
    assert delta > 0
    for eps in (0.5, 2.0):
        r = bab(game, epsilon=eps)
        assert r.lower <= e.value <= r.upper
        assert Fraction(r.upper) - Fraction(r.lower) <= Fraction(eps) + 2 * delta
        assert fast_search("bab", game, epsilon=eps) == r


def test_stochastic_cops_and_robbers_and_pig():
    from course.games.cops_robbers import CopsAndRobbers
    from course.games.pig import Pig

    games = [CopsAndRobbers(width=4, height=4, cops=1, stochastic=True, p=p, time_limit=4, seed=s)
             for p in (0.8, 0.7) for s in range(2)] + [Pig(3, 2, 2)]
    for game in games:
        e = expectimax(game, depth=4)
        s = star1(game, depth=4)
        assert s.value is not None and s.value == e.value


def test_the_rounded_window_example():
    """The example above, on its own: the root's bounds meet, at expectimax's value, by every
    search that shares the rule (BAB, BAB with a transposition table, the fast path)."""
    from course.search import bab_tt

    game = parse_tree(ROUNDED_WINDOW)
    e = expectimax(game)
    assert e.value == 3
    for result in (bab(game, epsilon=0), star1(game), bab_tt(game, epsilon=0)):
        assert (result.lower, result.upper) == (3, 3), result
    # the chance node's window for its MIN child is below the formula's 1.0 ...
    bounds = ChanceBounds([0.6, 0.4], 0, 6)
    child_alpha, _ = bounds.window(3, 6, 0, 6)
    assert child_alpha < (3 - 6) / 0.6 + 6 == 1.0
    # ... and is the largest float whose U reaches alpha
    assert bounds.upper_after(child_alpha) <= 3 < bounds.upper_after(math.nextafter(child_alpha, 7))


@given(st.lists(st.integers(1, 7), min_size=1, max_size=5), st.data())
def test_window_is_exact_for_the_nodes_arithmetic(weights, data):
    """A child bound inside the window never cuts the node; one at its edge always does."""
    total = sum(weights)
    probabilities = [w / total for w in weights]
    bounds = ChanceBounds(probabilities, 0, 6)
    L, U = 0, 6
    values = st.integers(0, 6) | st.floats(0, 6)
    alpha = data.draw(values)
    beta = data.draw(values.filter(lambda b: b > alpha))
    for _ in probabilities:
        a, b = bounds.window(alpha, beta, L, U)
        if a > 0:
            assert bounds.upper_after(a) <= alpha
        if b < 6:
            assert bounds.lower_after(b) >= beta
        assert a < b
        lo = data.draw(values)
        L, U = bounds.add(lo, data.draw(st.floats(lo, 6) | st.just(lo)))
        alpha, beta = max(alpha, L), min(beta, U)
        if beta <= alpha:
            break
