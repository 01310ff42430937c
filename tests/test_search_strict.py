"""The strict-equality rule (CS188's: no cut on equality) and BAB's best case.

CS188's multi-agent autograder counts the states an alpha-beta agent generates and requires that
a node whose value *ties* the window is searched on: prune only when v > beta at MAX and v < alpha
at MIN.  The course prunes on equality (Russell & Norvig) by default; ``strict=True`` gives
CS188's rule in :func:`~course.search.alphabeta`, :func:`~course.search.bab`,
:func:`~course.search.star1` and :func:`~course.search.star2`.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import alphabeta, bab, minimax, parse_tree, star1
from course.errors import ParameterError
from course.search import star2
from test_search_properties import is_subsequence, true_value

# CS188 test_cases/q3/6-tied-root: MAX with min1 (leaf A = 10) and min2 (leaves B = 10, C = 0),
# searched left to right.
TIED_ROOT = {"label": "max", "max": [
    {"label": "min1", "min": [{"label": "A", "value": 10}]},
    {"label": "min2", "min": [{"label": "B", "value": 10}, {"label": "C", "value": 0}]},
]}


def explored(game, result):
    """The labels of the nodes the search generated, in order (CS188's "explored states")."""
    return [game.node(e.path).label for e in result.trace if e.kind in ("enter", "leaf")]


def test_cs188_tied_root_strict_rule_explores_what_cs188_expects():
    game = parse_tree(TIED_ROOT)
    result = alphabeta(game, strict=True, trace=True)
    assert explored(game, result) == ["max", "min1", "A", "min2", "B", "C"]
    assert result.value == 10 and result.move == 0


def test_cs188_tied_root_course_rule_prunes_c():
    game = parse_tree(TIED_ROOT)
    result = alphabeta(game, trace=True)
    assert explored(game, result) == ["max", "min1", "A", "min2", "B"]
    (cut,) = [e for e in result.trace if e.kind == "cutoff"]
    assert cut.path == (1,) and cut.pruned == (1,) and cut.reason == "v=10 <= alpha=10"


@pytest.mark.parametrize("search", [star1, bab, star2])
def test_cs188_tied_root_bounded_searches(search):
    # bounds strictly outside the leaves: the bounded searches cut exactly like alpha-beta
    game = parse_tree({"tree": TIED_ROOT, "bounds": [-1, 11]})
    assert explored(game, search(game, strict=True, trace=True)) == ["max", "min1", "A", "min2", "B", "C"]
    assert explored(game, search(game, trace=True)) == ["max", "min1", "A", "min2", "B"]


@given(games())
def test_strict_alphabeta_value_and_leaves(game):
    strict, default = alphabeta(game, strict=True), alphabeta(game)
    assert strict.value == default.value == true_value(game.root)
    # the strict rule cuts a subset of the default's cuts: it evaluates a superset, in order
    assert is_subsequence(default.leaves, strict.leaves)
    assert is_subsequence(strict.leaves, minimax(game).leaves)
    v_move = true_value(game.root.children[strict.move]) if game.root.kind in ("max", "min") else None
    if v_move is not None:
        assert v_move == strict.value


@given(games(low=1, high=8))
def test_strict_star1_is_strict_alphabeta_when_bounds_are_strict(game):
    s, a = star1(game, vmin=0, vmax=9, strict=True), alphabeta(game, strict=True)
    assert (s.value, s.leaves, s.expanded, s.move) == (a.value, a.leaves, a.expanded, a.move)


@settings(max_examples=500)
@given(games(chance=True), st.integers(0, 4))
def test_strict_bab_keeps_theorem_1(game, epsilon):
    # (not a superset of the default's leaves: with chance or epsilon > 0 the returned bounds, and
    # so the windows of later siblings, differ, and pruning is not monotone; cf. BAB's Figure 3)
    result = bab(game, epsilon=epsilon, strict=True)
    v = true_value(game.root)
    assert result.lower <= v <= result.upper and result.width <= epsilon


@settings(max_examples=500)
@given(games(chance=True))
def test_strict_star1_is_exact(game):
    assert star1(game, strict=True).value == true_value(game.root)


@pytest.mark.parametrize("search", [alphabeta, star1, bab])
def test_strict_must_be_a_bool(search):
    with pytest.raises(ParameterError, match="strict must be True or False"):
        search(parse_tree([[1, 2], [3]]), strict="yes")


# -- BAB's best case (issue 31, item 1) -----------------------------------------------------------

def test_bab_beats_every_alphabeta_ordering_on_a_uniform_tree():
    """``[[96, 97], [50, 60]]`` in [0, 100] with epsilon = 5: BAB evaluates 2 leaves.

    The tree is uniform with b = 2, d = 2, so alpha-beta's best case is Knuth & Moore's
    b^ceil(d/2) + b^floor(d/2) - 1 = 3 leaves; every one of its 8 move orderings evaluates at
    least 3 here.  BAB with epsilon = 5 evaluates 2: after the first MIN node (value 96) the root
    knows [96, 100], 100 - 96 <= 5, and it prunes the second MIN node whole.  So BAB's best case
    on this tree is below alpha-beta's with epsilon = 5, far from vmax - vmin = 100: the BAB
    paper's conjecture (best case no better than alpha-beta's unless epsilon = vmax - vmin) does
    not hold as stated.  The savings come from the known bound vmax lying within epsilon of the
    value; Star1 (epsilon = 0) needs 3 leaves on this tree.
    """
    game = parse_tree({"tree": [[96, 97], [50, 60]], "bounds": [0, 100]})
    result = bab(game, epsilon=5)
    assert result.leaves == ((0, 0), (0, 1))
    assert (result.lower, result.upper) == (96, 100) and result.move == 0
    assert star1(game).evaluated == 3
    b, d = 2, 2
    minimal = b ** ((d + 1) // 2) + b ** (d // 2) - 1
    assert minimal == 3

    def orderings():
        for root, first, second in itertools.product(itertools.permutations(range(2)), repeat=3):
            table = {(): root, (0,): first, (1,): second}
            yield lambda game, state, path, player, table=table: table[path]

    counts = [alphabeta(game, order=order).evaluated for order in orderings()]
    assert len(counts) == 8 and min(counts) == 3
    # epsilon = 4 is the smallest integer epsilon with 2 leaves (100 - 96 = 4)
    assert [bab(game, epsilon=e).evaluated for e in range(6)] == [3, 3, 3, 3, 2, 2]


def test_star1_beats_alphabeta_when_a_leaf_reaches_a_bound():
    # Even with epsilon = 0 known bounds can beat the minimal tree: a MIN node worth vmax
    game = parse_tree({"tree": [[100, 100], [50, 60]], "bounds": [0, 100]})
    assert star1(game).evaluated == 2 and alphabeta(game).evaluated == 3
