"""The BAB paper's random-tree generators: reproducible, well-formed, searchable."""

import math

import numpy as np
import pytest

from course.errors import ParameterError
from course.game import Player
from course.games.random_trees import (RandomTree, StochasticRandomTree, random_tree,
                                       stochastic_random_tree)
from course.search import alphabeta, expectimax, minimax, star1


# -- RT ---------------------------------------------------------------------------------------
def test_same_seed_same_tree_other_seed_other_tree():
    a, b, c = random_tree(3, 4, seed=11), random_tree(3, 4, seed=11), random_tree(3, 4, seed=12)
    assert np.array_equal(a.leaf_values, b.leaf_values)
    assert not np.array_equal(a.leaf_values, c.leaf_values)
    # the documented recipe: numpy's default_rng(seed), uniform in [low, high)
    assert np.array_equal(a.leaf_values, np.random.default_rng(11).uniform(0, 100, 81))


@pytest.mark.parametrize("b, d", [(1, 0), (1, 5), (2, 1), (3, 3), (4, 5)])
def test_rt_is_uniform_with_alternating_players(b, d):
    game = random_tree(b, d, seed=3, low=-5, high=7.5)
    assert isinstance(game, RandomTree)
    assert (game.vmin, game.vmax) == (-5, 7.5)
    assert game.num_leaves == len(game.leaf_values) == b ** d
    assert ((game.leaf_values >= -5) & (game.leaf_values < 7.5)).all()
    assert not game.leaf_values.flags.writeable
    leaves = []

    def walk(state, depth):
        if game.is_terminal(state):
            assert depth == d
            leaves.append(game.utility(state))
            return
        assert game.turn(state) is (Player.MAX if depth % 2 == 0 else Player.MIN)
        assert list(game.moves(state)) == list(range(b))
        for m in game.moves(state):
            walk(game.result(state, m), depth + 1)

    walk(game.initial_state(), 0)
    assert leaves == game.leaf_values.tolist()          # left-to-right leaf order


def test_leaf_paths_and_indices_are_inverse():
    game = random_tree(3, 4, seed=1)
    for i in range(game.num_leaves):
        path = game.leaf_path(i)
        assert game.leaf_index(path) == i
        state = game.initial_state()
        for m in path:
            state = game.result(state, m)
        assert game.utility(state) == game.leaf_values[i]
    with pytest.raises(ParameterError):
        game.leaf_index((0, 3, 0, 0))


def test_to_tree_is_the_same_game():
    game = random_tree(3, 3, seed=5)
    tree = game.to_tree()
    assert tree.root.size == 1 + 3 + 9 + 27
    assert [leaf.value for leaf in tree.root.leaves()] == game.leaf_values.tolist()
    assert (tree.vmin, tree.vmax) == (0, 100)
    assert alphabeta(tree) == alphabeta(game)
    with pytest.raises(ParameterError):
        random_tree(4, 9).to_tree(max_nodes=1000)


def test_big_rt_is_cheap():
    game = random_tree(4, 9, seed=0)
    assert game.num_leaves == 262144
    assert alphabeta(game).value == minimax(game).value


@pytest.mark.parametrize("kwargs, fragment", [
    ({"branching": 0, "depth": 2}, "branching"),
    ({"branching": 2.5, "depth": 2}, "branching"),
    ({"branching": 2, "depth": -1}, "depth"),
    ({"branching": 2, "depth": 2, "seed": -3}, "seed"),
    ({"branching": 2, "depth": 2, "low": 5, "high": 5}, "low < high"),
    ({"branching": 2, "depth": 2, "high": math.inf}, "finite"),
    ({"branching": 10, "depth": 9}, "leaves"),
])
def test_rt_rejects_bad_parameters(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        random_tree(**kwargs)


# -- stochastic RT ------------------------------------------------------------------------------
def test_stochastic_structure_and_probabilities():
    b, d, p = 3, 2, 0.7
    game = stochastic_random_tree(b, d, seed=2, p=p)
    assert isinstance(game, StochasticRandomTree)
    root = game.initial_state()
    assert game.turn(root) is Player.MAX
    chance = game.result(root, 1)
    assert game.turn(chance) is Player.CHANCE
    outcomes = list(game.chance_outcomes(chance))
    assert [k for k, _ in outcomes] == list(game.moves(chance)) == [0, 1, 2]
    assert outcomes[1][1] == p and outcomes[0][1] == outcomes[2][1] == pytest.approx((1 - p) / 2)
    assert math.isclose(sum(q for _, q in outcomes), 1.0)
    # the b chance nodes of a decision node lead to the same b successor states
    successors = {tuple(game.result(game.result(root, j), k) for k in range(b)) for j in range(b)}
    assert len(successors) == 1
    nxt = game.result(chance, 2)
    assert game.turn(nxt) is Player.MIN and not game.is_terminal(nxt)
    leaf = game.result(game.result(nxt, 0), 1)
    assert game.is_terminal(leaf) and game.utility(leaf) == game.leaf_values[2 * b + 1]
    assert game.leaf_index((1, 2, 0, 1)) == 2 * b + 1


def test_stochastic_depth_counts_decision_levels():
    game = stochastic_random_tree(2, 3, seed=0)
    tree = game.to_tree()
    assert tree.root.height() == 6                       # 3 decisions + 3 chance events
    assert len(tree.root.leaves()) == (2 * 2) ** 3
    assert {leaf.value for leaf in tree.root.leaves()} == set(game.leaf_values.tolist())
    assert expectimax(tree).value == pytest.approx(expectimax(game).value)
    exact = star1(game)                                  # float rounding: bounds may differ by an ulp
    assert exact.lower == pytest.approx(expectimax(game).value)
    assert exact.upper == pytest.approx(expectimax(game).value)


def test_stochastic_reproducible_and_same_leaves_as_rt():
    a = stochastic_random_tree(3, 3, seed=9)
    assert np.array_equal(a.leaf_values, stochastic_random_tree(3, 3, seed=9).leaf_values)
    assert np.array_equal(a.leaf_values, random_tree(3, 3, seed=9).leaf_values)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"branching": 1, "depth": 2}, "branching"),
    ({"branching": 3, "depth": 2, "p": 1.0}, "strictly between"),
    ({"branching": 3, "depth": 2, "p": 0}, "strictly between"),
    ({"branching": 3, "depth": -2}, "depth"),
    ({"branching": 3, "depth": 2, "low": 1, "high": 0}, "low < high"),
])
def test_stochastic_rejects_bad_parameters(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        stochastic_random_tree(**kwargs)


def test_exported_from_course_games():
    import course.games as games

    assert games.random_tree is random_tree
    assert games.stochastic_random_tree is stochastic_random_tree
