"""Chen's Go-like tree model: the layout, EVAL, values, selective search and Tables 2 and 4.

The node counts of Tables 2 and 4 are *counted*: by the reference search
(:func:`course.search.selective`) wherever that is cheap, and by the
vectorised :func:`course.games.chen.selective_sweep` for every cell.
"""

import numpy as np
import pytest

from course.errors import ParameterError
from course.game import Player
from course.games.chen import ChenTree, level_start, selective_sweep
from course.search import minimax, selective
from course.experiments.paper import CHEN_CASES, CHEN_NODE_VALUE, CHEN_NODES


def _path(tree, k):
    path = []
    while k:
        path.append(k)
        k = tree.parent(k)
    return path[::-1]


@pytest.mark.parametrize("b, h", [(2, 1), (2, 5), (3, 4), (5, 3)])
def test_layout_eval_and_values(b, h):
    tree = ChenTree(b, h, seed=b * 10 + h)
    assert tree.size == sum(b ** L for L in range(h + 1)) == tree.level_starts[-1]
    assert int(tree.arcs[0]) == 0 and 0 <= tree.arcs.min() and tree.arcs.max() <= 9
    for k in range(tree.size):
        level = tree.level(k)
        assert tree.level_starts[level] <= k < tree.level_starts[level + 1]
        if k:
            assert k in tree.children(tree.parent(k))
        # EVAL: v1 - v2 + v3 - ... along the path from the root
        expected = sum(int(tree.arcs[n]) * (1 if tree.level(n) % 2 == 1 else -1) for n in _path(tree, k))
        assert int(tree.evals[k]) == expected
        assert tree.turn(k) is (Player.MAX if level % 2 == 0 else Player.MIN) or tree.is_terminal(k)
    # v: the minimax backup of the leaf payoffs, from every node
    for k in range(min(tree.size, 40)):
        assert tree.value(k) == minimax(tree, k).value
    assert tree.vmin <= tree.evals.min() and tree.evals.max() <= tree.vmax


def test_same_seed_same_tree():
    a, b = ChenTree(3, 5, seed=4), ChenTree(3, 5, seed=4)
    assert np.array_equal(a.arcs, b.arcs) and np.array_equal(a.values, b.values)
    assert not np.array_equal(a.arcs, ChenTree(3, 5, seed=5).arcs)


def test_level_start_is_chens_formula():
    assert [level_start(11, L) for L in range(4)] == [0, 1, 12, 133]


def test_to_tree_draws_signed_arcs():
    tree = ChenTree(2, 3, seed=1)
    explicit = tree.to_tree()
    assert explicit.root.size == tree.size
    assert minimax(explicit).value == tree.value(0)
    shallow = tree.to_tree(1, depth=1)
    assert [leaf.value for leaf in shallow.root.leaves()] == [int(tree.evals[c]) for c in tree.children(1)]


@pytest.mark.parametrize("kwargs", [{"branching": 1, "height": 3}, {"branching": 3, "height": 0},
                                    {"branching": 3, "height": 2, "max_arc": -1},
                                    {"branching": 40, "height": 6}])
def test_rejects_bad_parameters(kwargs):
    with pytest.raises(ParameterError):
        ChenTree(**kwargs)


def test_sweep_rejects_bad_requests():
    tree = ChenTree(3, 3, seed=0)
    with pytest.raises(ParameterError, match="same level"):
        selective_sweep(tree, [0, 1], depths=[1], skips=[0])
    with pytest.raises(ParameterError, match="below the leaves"):
        selective_sweep(tree, [1], depths=[3], skips=[0])
    with pytest.raises(ParameterError):
        selective_sweep(tree, [], depths=[1], skips=[0])


@pytest.mark.parametrize("b, h, seed, arcs", [(2, 5, 0, 9), (3, 4, 1, 2), (4, 3, 2, 9), (5, 3, 3, 1)])
def test_vectorised_search_equals_reference(b, h, seed, arcs):
    """Moves, backed-up values, node counts and errors agree with course.search.selective
    (small arc ranges make ties frequent, so tie-breaking is exercised)."""
    tree = ChenTree(b, h, seed=seed, max_arc=arcs)
    for level in range(h):
        roots = tree.nodes_at_height(h - level)
        out = selective_sweep(tree, roots, depths=range(1, h - level + 1), skips=range(b + 1))
        for (d, s), o in out.items():
            for i, root in enumerate(roots.tolist()):
                ref = selective(tree, root, depth=d, skip=s)
                values = [tree.value(c) for c in tree.children(root)]
                best = max(values) if level % 2 == 0 else min(values)
                error = abs(best - values[ref.move])
                assert (o.nodes, int(o.moves[i]), int(o.values[i]), int(o.errors[i])) == \
                    (ref.expanded + ref.evaluated, ref.move, ref.value, error)


def _counted_by_reference(case, budget):
    b, h, h1 = CHEN_CASES[case]
    tree = ChenTree(b, h, seed=0)
    node = int(tree.nodes_at_height(h1)[0])
    counted = {}
    for (d, s), expected in CHEN_NODES[case].items():
        if expected <= budget:
            result = selective(tree, node, depth=d, skip=s)
            counted[d, s] = result.expanded + result.evaluated
    return counted


def test_table2_counted_by_the_reference_search():
    counted = _counted_by_reference("table1", 6000)
    assert len(counted) >= 25
    assert counted == {k: CHEN_NODES["table1"][k] for k in counted}


def test_table4_counted_by_the_reference_search():
    counted = _counted_by_reference("table3", 6000)
    assert len(counted) >= 35
    assert counted == {k: CHEN_NODES["table3"][k] for k in counted}


@pytest.mark.parametrize("case", ["table1", "table3"])
def test_tables_2_and_4_counted_by_the_vectorised_search(case):
    b, h, h1 = CHEN_CASES[case]
    tree = ChenTree(b, h, seed=1)
    out = selective_sweep(tree, tree.nodes_at_height(h1)[:2], depths=range(1, h1 + 1),
                          skips=range(b - 1))
    assert {key: o.nodes for key, o in out.items()} == CHEN_NODES[case]


def test_full_width_full_depth_search_is_exact():
    tree = ChenTree(3, 5, seed=7)
    roots = tree.nodes_at_height(4)
    out = selective_sweep(tree, roots, depths=[4], skips=[0])[4, 0]
    assert (out.errors == 0).all()
    assert out.values.tolist() == [tree.value(int(r)) for r in roots]


def _heights(b, h, h1, seed):
    tree = ChenTree(b, h, seed=seed)
    return tree.values[tree.nodes_at_height(h1)].astype(float)


def test_average_node_value_matches_table1_note():
    """Chen: "the average game theoretic node value is 4.3" for (5, 10, 9); we read it as the
    mean |v| of the decision nodes (v is negative on average there: MIN moves first)."""
    values = np.abs(np.concatenate([_heights(5, 10, 9, 100 + t) for t in range(30)]))
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert abs(values.mean() - CHEN_NODE_VALUE["table1"]) < 3 * se


@pytest.mark.slow
def test_average_node_value_matches_table3_note():
    values = np.abs(np.concatenate([_heights(11, 7, 7, 100 + t) for t in range(40)]))
    se = values.std(ddof=1) / np.sqrt(values.size)
    assert abs(values.mean() - CHEN_NODE_VALUE["table3"]) < 3 * se


def test_exported_from_course_games():
    import course.games as games

    assert games.ChenTree is ChenTree
