"""The tree format: parsing, round trips, and one test per error."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from strategies import tree_objects

from course import ChanceNodeError, BoundsError, ParameterError, TreeFormatError
from course import alphabeta, bab, minimax, naive_epsilon, star1
from course.trees import dumps_tree, game_to_tree, loads_tree, parse_tree, tree_to_obj


def test_bare_lists_alternate_from_max():
    game = parse_tree([[1, [2, 3]], 4])
    root = game.root
    assert root.kind == "max"
    assert root.children[0].kind == "min"
    assert root.children[0].children[1].kind == "max"
    assert root.children[1].is_leaf


def test_bare_list_below_chance_is_opponent_of_nearest_decision_node():
    game = parse_tree({"min": [{"chance": [[0.5, [1, 2]], [0.5, 3]]}]})
    assert game.root.children[0].children[0].kind == "max"
    # with no decision ancestor, a bare list is MAX
    assert parse_tree({"chance": [[1, [1, 2]]]}).root.children[0].kind == "max"


def test_labels_paths_and_wrapper():
    game = parse_tree({"tree": {"label": "A", "max": [{"label": "B1", "value": 3}, 5]},
                       "bounds": [0, 10]})
    assert (game.vmin, game.vmax) == (0, 10)
    assert game.root.label == "A"
    assert game.node((0,)).label == "B1" and game.node((0,)).value == 3
    assert game.node((1,)).path == (1,)


def test_default_bounds_are_extreme_leaves():
    assert (parse_tree([[3, -2], [7]]).vmin, parse_tree([[3, -2], [7]]).vmax) == (-2, 7)


@given(tree_objects(chance=True))
def test_round_trip(obj):
    game = parse_tree(obj)
    again = loads_tree(json.dumps(tree_to_obj(game), default=float))
    assert [(n.kind, n.path, n.value) for n in again.root.iter_nodes()] == \
           [(n.kind, n.path, n.value) for n in game.root.iter_nodes()]
    assert all(math.isclose(a, b) for a, b in zip(
        [p for n in again.root.iter_nodes() for p in n.probabilities],
        [p for n in game.root.iter_nodes() for p in n.probabilities]))


def test_game_to_tree_depth_limit():
    game = parse_tree([[1, [2, 3]], 4])
    cut = game_to_tree(game, depth=1, evaluate=lambda node: 0)
    assert [n.value for n in cut.root.leaves()] == [0, 4]
    with pytest.raises(ParameterError, match="more than 3 nodes"):
        game_to_tree(game, max_nodes=3)


def test_dumps_tree_is_json():
    assert json.loads(dumps_tree(parse_tree([1, 2])))["tree"] == {"max": [1, 2]}


# -- one test per error -------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("[1, 2", "malformed JSON"),
    ('{"maxx": [1]}', "unknown node kind"),
    ('{"max": [1], "min": [2]}', "exactly one of"),
    ('{"max": []}', "empty max node"),
    ("[]", "empty max node"),
    ('[1, "x"]', "expected a number"),
    ("[1, true]", "expected a number"),
    ('{"value": "3"}', "not a finite number"),
    ('{"chance": [[0.5, 1], [0.6, 2]]}', "sum to"),
    ('{"chance": [[0, 1], [1, 2]]}', "must be a number > 0"),
    ('{"chance": [[-0.5, 1], [1.5, 2]]}', "must be a number > 0"),
    ('{"chance": [[1, 1, 2]]}', "pair"),
    ('{"tree": [1], "bounds": [5, 1]}', "must not exceed"),
    ('{"tree": [1], "bounds": [0]}', "two numbers"),
    ('{"tree": [1], "extra": 1}', "unknown key"),
    ('{"max": 3}', "must hold a list"),
    ('{"label": 3, "max": [1]}', "label"),
])
def test_format_errors(text, message):
    with pytest.raises(TreeFormatError, match=message):
        loads_tree(text)


def test_errors_name_the_node_path():
    with pytest.raises(TreeFormatError, match=r"node \(1, 0\): empty max node"):
        parse_tree([1, [[]]])


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        loads_tree("{")


@pytest.mark.parametrize("search", [minimax, alphabeta, naive_epsilon])
def test_chance_node_rejected_by_deterministic_searches(search):
    game = parse_tree({"max": [1, {"chance": [[0.5, 1], [0.5, 2]]}]})
    with pytest.raises(ChanceNodeError, match=r"node \(1,\).*chance node"):
        search(game)


@pytest.mark.parametrize("search", [bab, naive_epsilon])
def test_negative_epsilon(search):
    with pytest.raises(ParameterError, match="epsilon"):
        search(parse_tree([1, 2]), epsilon=-1)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "1", True])
def test_non_numeric_epsilon(bad):
    with pytest.raises(ParameterError):
        bab(parse_tree([1, 2]), epsilon=bad)


@pytest.mark.parametrize("search", [bab, star1])
def test_leaf_outside_bounds(search):
    game = parse_tree({"tree": [[1, 2], [12]], "bounds": [0, 10]})
    with pytest.raises(BoundsError, match=r"node \(1, 0\).*outside the bounds \[0, 10\]"):
        search(game)


def test_bab_needs_finite_bounds_on_general_games():
    from course.game import Game, Player

    class Coin(Game):
        def initial_state(self): return 0
        def turn(self, s): return Player.MAX
        def moves(self, s): return [0, 1]
        def result(self, s, m): return s + 1 + m
        def is_terminal(self, s): return s > 0
        def utility(self, s): return s

    with pytest.raises(ParameterError, match="finite utility bounds"):
        bab(Coin())
    assert bab(Coin(), vmin=0, vmax=5).value == 2


def test_unknown_ordering():
    with pytest.raises(ParameterError, match="unknown move ordering 'sideways'"):
        alphabeta(parse_tree([1, 2]), order="sideways")


def test_bad_callable_ordering():
    with pytest.raises(ParameterError, match="not a permutation"):
        alphabeta(parse_tree([1, 2]), order=lambda g, s, p, pl: [0, 0])


def test_heuristic_ordering_without_eval():
    with pytest.raises(ParameterError, match="no evaluation function"):
        alphabeta(parse_tree([[1, 2], [3]]), order="heuristic")


def test_depth_must_be_non_negative():
    with pytest.raises(ParameterError, match="depth"):
        minimax(parse_tree([1, 2]), depth=-1)
