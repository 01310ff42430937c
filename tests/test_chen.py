"""Chen's Go-like tree model: the layout, EVAL, values, selective search and Tables 2 and 4.

The node counts of Tables 2 and 4 are *counted*: by the reference search
(:func:`course.search.selective`) wherever that is cheap, and by the
vectorised :func:`course.games.chen.selective_sweep` for every cell.
"""

import numpy as np
import pytest

from course.errors import ParameterError
from course.game import Player
from course.games.chen import (ChenTree, ChenTreeTop, _best_arc_table, _draw_best_arcs, best_arc_counts,
                               level_start, selective_sweep)
from course.search import minimax, selective
from course.experiments.paper import CHEN_CASES, CHEN_NODE_TABLE, CHEN_NODE_VALUE, CHEN_NODES


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
    for (d, s), expected in CHEN_NODES[CHEN_NODE_TABLE[case]].items():
        if expected <= budget:
            result = selective(tree, node, depth=d, skip=s)
            counted[d, s] = result.expanded + result.evaluated
    return counted


def test_table2_counted_by_the_reference_search():
    counted = _counted_by_reference("table1", 6000)
    assert len(counted) >= 25
    assert counted == {k: CHEN_NODES["table2"][k] for k in counted}


def test_table4_counted_by_the_reference_search():
    counted = _counted_by_reference("table3", 6000)
    assert len(counted) >= 35
    assert counted == {k: CHEN_NODES["table4"][k] for k in counted}


@pytest.mark.parametrize("case", ["table1", "table3"])
def test_tables_2_and_4_counted_by_the_vectorised_search(case):
    b, h, h1 = CHEN_CASES[case]
    tree = ChenTree(b, h, seed=1)
    out = selective_sweep(tree, tree.nodes_at_height(h1)[:2], depths=range(1, h1 + 1),
                          skips=range(b - 1))
    assert {key: o.nodes for key, o in out.items()} == CHEN_NODES[CHEN_NODE_TABLE[case]]


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


def test_node_tables_are_named_after_their_own_tables():
    """Table 2 holds the node counts of Table 1's setting: the key is "table2", not "table1".

    The old keys still work (notebooks saved before the rename), with a DeprecationWarning that
    names the right key.
    """
    assert sorted(CHEN_NODES) == ["table2", "table4"]
    assert CHEN_NODE_TABLE == {"table1": "table2", "table3": "table4"}
    assert CHEN_NODES["table2"][9, 3] == 1023 and CHEN_NODES["table4"][7, 0] == 21435888
    for old, new in CHEN_NODE_TABLE.items():
        with pytest.warns(DeprecationWarning, match=f"use CHEN_NODES\\['{new}'\\]"):
            assert CHEN_NODES[old] is CHEN_NODES[new]
        with pytest.warns(DeprecationWarning):
            assert old in CHEN_NODES and CHEN_NODES.get(old) is CHEN_NODES[new]


# -- ChenTreeTop: the simulation's trees without their leaf level ---------------------------------

@pytest.mark.parametrize("b, h, seed, arcs", [(2, 5, 0, 9), (3, 4, 1, 2), (4, 4, 2, 9), (5, 3, 3, 1),
                                              (3, 5, 4, 9)])
def test_the_sweep_reads_nothing_below_the_top(b, h, seed, arcs):
    """Given the top of a whole tree (its leaves' best arcs), the sweep decides exactly as on the
    whole tree, at every height >= 2, depth and skip (small arc ranges: many ties)."""
    tree = ChenTree(b, h, seed=seed, max_arc=arcs)
    top = ChenTreeTop.from_tree(tree)
    assert top.size == tree.level_starts[h] and not top.values.flags.writeable
    for height in range(2, h + 1):
        roots = tree.nodes_at_height(height)
        whole = selective_sweep(tree, roots, depths=range(1, height + 1), skips=range(b))
        part = selective_sweep(top, roots, depths=range(1, height + 1), skips=range(b))
        assert whole.keys() == part.keys()
        for key, o in whole.items():
            p = part[key]
            assert o.nodes == p.nodes, key
            for field in ("values", "moves", "errors"):
                assert np.array_equal(getattr(o, field), getattr(p, field)), (key, field)


@pytest.mark.parametrize("b, m", [(2, 9), (5, 9), (11, 9), (3, 1), (4, 0)])
def test_best_arcs_are_drawn_with_their_exact_weights(b, m):
    """u uniform on 0 .. (m+1)**b - 1 is mapped to best arc k on exactly (k+1)**b - k**b values:
    the probability that the largest of b uniform arcs is k."""
    counts = best_arc_counts(b, m)
    assert sum(counts) == (m + 1) ** b
    assert counts == [sum(1 for arcs in np.ndindex(*[m + 1] * b) if max(arcs) == k) for k in range(m + 1)] \
        if (m + 1) ** b <= 10 ** 5 else counts[0] == 1
    if (m + 1) ** b <= 1 << 20:                         # the lookup table
        table = _best_arc_table(b, m)
        assert np.bincount(table, minlength=m + 1).tolist() == counts
    # the searchsorted branch maps every u as the table does (checked at each boundary)
    ends = np.cumsum(counts)
    for k, end in enumerate(ends.tolist()):
        for u in {end - 1, end} - {(m + 1) ** b}:
            expected = k if u < end else k + 1
            assert int(np.searchsorted(np.array([(j + 1) ** b for j in range(m + 1)]), u, side="right")) \
                == expected


def test_best_arcs_sampled_have_the_right_mean():
    rng = np.random.default_rng(1)
    draws = _draw_best_arcs(rng, 5, 9, 200_000)
    exact = sum(k * c for k, c in enumerate(best_arc_counts(5, 9))) / 10 ** 5
    assert abs(draws.mean() - exact) < 4 * draws.std() / np.sqrt(draws.size)
    huge = _draw_best_arcs(rng, 20, 9, 1000)            # (m+1)**b >= 2**62: the arcs themselves
    assert huge.min() >= 0 and huge.max() <= 9 and huge.mean() > 8


def test_chen_tree_top_is_a_consistent_tree():
    top = ChenTreeTop(4, 5, seed=3)
    b, starts = 4, top.level_starts
    assert top.size == starts[5] and len(top.arcs) == len(top.evals) == len(top.values) == top.size
    for k in range(1, starts[4]):                       # EVAL: parent's plus or minus the arc
        sign = 1 if top.level(k) % 2 == 1 else -1
        assert int(top.evals[k]) == int(top.evals[(k - 1) // b]) + sign * int(top.arcs[k])
    for k in range(starts[3]):                          # v: the minimax backup above level 4
        children = [int(top.values[c]) for c in range(k * b + 1, k * b + b + 1)]
        assert int(top.values[k]) == (max if top.level(k) % 2 == 0 else min)(children)
    gap = top.evals[starts[4]:] - top.values[starts[4]:]   # level 4 is MAX's: v = EVAL + best arc
    assert gap.min() >= -9 and gap.max() <= 0
    with pytest.raises(ParameterError, match="height 2 or more"):
        selective_sweep(top, top.nodes_at_height(1), depths=[1], skips=[0])
    with pytest.raises(ParameterError):
        ChenTreeTop(3, 1)


def test_simulating_on_tree_tops_gives_the_same_errors_in_distribution():
    """Same node counts; mean errors within sampling noise of the whole trees' (other trees)."""
    from course.experiments.chen import simulate

    kwargs = dict(simulations=1500, depths=[2, 4], skips=[0, 1])
    whole = simulate(3, 6, 5, **kwargs)
    tops = simulate(3, 6, 5, last_level="max", **kwargs)
    assert whole["nodes"] == tops["nodes"]
    for key in whole["errors"]:
        a, b = whole["errors"][key].astype(float), tops["errors"][key].astype(float)
        se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
        assert abs(a.mean() - b.mean()) < 4 * se + 1e-9, key
    with pytest.raises(ParameterError, match="h1 >= 2"):
        simulate(3, 4, 1, simulations=3, last_level="max")
