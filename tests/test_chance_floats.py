"""Floating-point chance nodes (issue 15): probabilities that sum to 1 only within 1e-9.

The rule (course.search.chance): a chance node's value is sum(p v) / sum(p), added
left to right and clamped into its children's range; Star1/BAB bounds use the same
computation with vmin / vmax for unexplored children, so they never cross and meet
exactly at expectimax's value.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from course import parse_tree
from course.experiments.fast import fast_search
from course.search import bab, expectimax, star1
from course.search.chance import ChanceBounds, chance_value

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


@given(float_chance_objects(), st.sampled_from([0, 0.5, 1, 3]))
@example(json.loads(CROSSED.read_text())["tree"], 0)
@example(ROUNDED_WINDOW, 0)
def test_float_probabilities_never_cross_and_meet_at_expectimax(obj, epsilon):
    game = parse_tree(obj)
    vmin, vmax = game.vmin, game.vmax
    e = expectimax(game)
    assert vmin <= e.value <= vmax
    result = bab(game, epsilon=epsilon, trace=True)
    assert result.lower <= e.value <= result.upper      # bit for bit, not only up to rounding
    assert result.upper <= result.lower + epsilon       # the pruning test itself, in floats
    assert vmin <= result.lower <= result.upper <= vmax
    for event in result.trace:
        if event.lower is not None and event.upper is not None:
            assert vmin <= event.lower <= event.upper <= vmax, event
    if epsilon == 0:
        s = star1(game)
        assert s.value is not None and s.value == e.value


@pytest.mark.parametrize("b, d, p", [(2, 2, 0.8), (3, 2, 0.8), (4, 2, 0.7), (5, 1, 0.9), (3, 3, 0.8)])
@pytest.mark.parametrize("seed", range(4))
def test_stochastic_random_trees(b, d, p, seed):
    from course.games.random_trees import stochastic_random_tree

    game = stochastic_random_tree(b, d, seed=seed, p=p)
    e = expectimax(game)
    s = star1(game)
    assert s.value is not None and s.value == e.value and game.vmin <= e.value <= game.vmax
    assert fast_search("star1", game) == s
    for eps in (0.5, 2.0):
        r = bab(game, epsilon=eps)
        assert r.lower <= e.value <= r.upper and r.upper <= r.lower + eps
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
