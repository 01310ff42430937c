"""Tests of course.widgets: every explorer builds, reacts to a value change and redraws in place.

The widgets are driven through their controls' traits (``slider.value = ...``),
as a browser would through the comm; no kernel or browser is needed.
"""

from __future__ import annotations

import importlib
from fractions import Fraction

import pytest

from course import alphabeta, bab, parse_tree
from course.trees import game_to_tree
from course.examples import aima_figure_5_2, bab_figure3, chance_note_thresholds
from course.errors import ParameterError
from course.widgets import (
    best_case_leaves,
    chance_pruning_explorer,
    epsilon_explorer,
    ordering_explorer,
    step_through,
)


@pytest.fixture
def generators():
    """The course's random-tree generators (RT and stochastic RT)."""
    return importlib.import_module("course.games")


def assert_redrawn(explorer, before_dot, before_count):
    """The picture was replaced (not appended to) by a different one."""
    assert explorer.redraws == before_count + 1
    assert explorer.picture.dot != before_dot
    assert explorer.picture.dot.count("digraph") == 1
    assert explorer.picture.dot == explorer.tree_picture.source
    assert explorer.error == ""


# -- epsilon explorer --------------------------------------------------------------------------

def test_epsilon_explorer_on_generated_tree(generators):
    explorer = epsilon_explorer()
    game = explorer.game
    assert explorer.epsilon.max == game.vmax - game.vmin == 100
    assert "Star1" in explorer.info.value                  # epsilon = 0
    children = len(explorer.children)
    before, count = explorer.picture.dot, explorer.redraws
    explorer.epsilon.value = 30
    assert_redrawn(explorer, before, count)
    expected = bab(game, epsilon=30)
    base = bab(game, epsilon=0)
    assert (explorer.result.lower, explorer.result.upper) == (expected.lower, expected.upper)
    assert explorer.result.expanded == expected.expanded
    info = explorer.info.value
    assert f"{expected.expanded} / {base.expanded} = {expected.expanded / base.expanded:.3f}" in info
    assert "Star1" not in info
    assert len(explorer.children) == children             # nothing appended


def test_epsilon_explorer_tree_controls(generators):
    explorer = epsilon_explorer(branching=3, depth=3, seed=1)
    first = explorer.game
    explorer.seed.value = 2
    assert explorer.game is not first
    expected = game_to_tree(generators.random_tree(3, 3, seed=2))
    assert [leaf.value for leaf in explorer.game.root.leaves()] == [
        leaf.value for leaf in expected.root.leaves()]
    count = explorer.redraws
    explorer.branching.value = 2
    assert explorer.redraws == count + 1                  # one redraw per change
    assert len(explorer.game.root.children) == 2
    explorer.stochastic.value = True
    assert any(n.kind == "chance" for n in explorer.game.root.iter_nodes())
    assert explorer.error == ""


def test_epsilon_explorer_given_tree_matches_figure3():
    explorer = epsilon_explorer(bab_figure3(), epsilon=2)
    assert explorer.children[0].layout.display == "none"  # no tree controls for a given tree
    assert explorer.result.leaves == ((0,), (1, 0, 0), (1, 1))
    explorer.epsilon.value = 1
    assert explorer.result.leaves == ((0,), (1, 0, 0), (1, 0, 1))
    assert explorer.epsilon.max == 10


def test_epsilon_explorer_rejects_non_games():
    with pytest.raises(ParameterError, match="course Game"):
        epsilon_explorer([[1, 2]])


# -- ordering explorer -------------------------------------------------------------------------

def test_ordering_explorer_reacts_to_the_ordering():
    explorer = ordering_explorer(aima_figure_5_2())
    assert explorer.result.evaluated == 7
    assert explorer.seed.disabled
    before, count = explorer.picture.dot, explorer.redraws
    explorer.order.value = "best-first"
    assert_redrawn(explorer, before, count)
    assert explorer.result.evaluated == best_case_leaves(3, 2) == 5
    assert "<b>5 &nbsp; (b = 3, d = 2)</b>" in explorer.info.value     # the best case
    assert "<b>9</b>" in explorer.info.value                             # b^d
    explorer.order.value = "worst-first"
    assert explorer.result.evaluated == 9
    explorer.order.value = "random"
    assert not explorer.seed.disabled
    leaves = {explorer.result.leaves}
    for seed in range(1, 6):
        explorer.seed.value = seed
        leaves.add(explorer.result.leaves)
        assert explorer.result.leaves == alphabeta(explorer.game, order="random", seed=seed).leaves
    assert len(leaves) > 1


def test_ordering_explorer_heuristic_on_an_explicit_tree():
    explorer = ordering_explorer(aima_figure_5_2(), order="heuristic")
    assert explorer.error == ""
    assert "average of the leaves" in explorer.info.value
    assert explorer.result.value == 3


def test_ordering_explorer_generated_and_non_uniform(generators):
    explorer = ordering_explorer(branching=3, depth=4)
    assert "b = 3, d = 4" in explorer.info.value and "<b>81</b>" in explorer.info.value
    explorer.depth.value = 3
    assert "b = 3, d = 3" in explorer.info.value
    odd = ordering_explorer(parse_tree([1, [2, 3]]))
    assert "needs a uniform tree" in odd.info.value
    with pytest.raises(ParameterError, match="unknown move ordering"):
        ordering_explorer(order="sideways")


def test_best_case_formula():
    assert [best_case_leaves(4, d) for d in range(1, 6)] == [4, 7, 19, 31, 79]


# -- step-through --------------------------------------------------------------------------------

def test_step_through_moves_and_redraws():
    player = step_through(aima_figure_5_2())
    events = player.result.trace.events
    assert player.slider.max == len(events) == 26
    assert "nothing searched yet" in player.event.value
    pictures = {player.picture.dot}
    for k in (1, 4, 14, 26):
        before, count = player.picture.dot, player.redraws
        player.slider.value = k
        assert_redrawn(player, before, count)
        pictures.add(player.picture.dot)
        current = "n" + "".join(f"_{i}" for i in events[k - 1].path)
        assert f'id="{current}"' in player.picture.dot
        assert f"step {k}:" in player.event.value
    assert len(pictures) == 5
    assert "Finished: value 3" in player.info.value
    assert "cut-off" in step_at(player, 14)
    assert player.info.value == ""


def step_at(player, k):
    player.slider.value = k
    return player.event.value


def test_step_through_buttons_stay_inside_the_trace():
    player = step_through(bab_figure3(), "bab", epsilon=2)
    player.previous.click()
    assert player.slider.value == 0
    player.next.click()
    player.next.click()
    assert player.slider.value == 2
    player.slider.value = player.slider.max
    player.next.click()
    assert player.slider.value == player.slider.max
    player.previous.click()
    assert player.slider.value == player.slider.max - 1


def test_step_through_errors():
    with pytest.raises(ParameterError, match="unknown algorithm"):
        step_through(aima_figure_5_2(), "dfs")
    with pytest.raises(ParameterError, match="course Game"):
        step_through("tree")


# -- chance pruning ----------------------------------------------------------------------------------

def test_chance_explorer_defaults_are_the_notes_example():
    explorer = chance_pruning_explorer()
    t = explorer.thresholds
    assert t == chance_note_thresholds()
    assert (t.u_a1, t.prune_at_or_below, t.prune_at_or_above) == (Fraction(-1, 2), Fraction(-7, 8),
                                                                 Fraction(-3, 8))
    info = explorer.info.value
    assert "-7/8" in info and "-3/8" in info        # the note's thresholds, exact
    # U(a2, c1) = 0 >= -0.375: only the move-deciding condition holds, so they differ
    assert (explorer.note_skips, explorer.star1_skips) == (True, False)
    assert "They differ" in info


@pytest.mark.parametrize("u, note, star", [(-0.9, True, True), (-0.875, True, True),
                                           (-0.85, False, False), (-0.5, False, False),
                                           (-0.375, True, False), (0.5, True, False)])
def test_chance_explorer_thresholds(u, note, star):
    explorer = chance_pruning_explorer()
    before, count = explorer.picture.dot, explorer.redraws
    explorer.u_a2_c1.value = u
    assert explorer.redraws == count + 1
    assert (explorer.note_skips, explorer.star1_skips) == (note, star)
    # Star1's own leaves agree with the flag
    assert star == all(leaf[:2] != (1, 1) for leaf in explorer.result.leaves)
    assert explorer.picture.dot.count("digraph") == 1


def test_chance_explorer_other_sliders():
    explorer = chance_pruning_explorer()
    explorer.p_c1_a2.value = 0.5
    t = explorer.thresholds
    assert (t.prune_at_or_below, t.prune_at_or_above) == (Fraction(-2), Fraction(0))
    assert "never met" in explorer.info.value          # -2 lies outside [-1, 1]
    explorer.u_a1_c2.value = 1.0                         # U(a1) = (-1 + 1) / 2 = 0
    t = explorer.thresholds
    assert (t.u_a1, t.prune_at_or_below, t.prune_at_or_above) == (0, -1, 1)
    explorer.u_a2_c1.value = 1.0                         # a2 >= 0 whatever c2 gives: take a2
    assert (explorer.note_skips, explorer.star1_skips) == (True, False)
    explorer.u_a2_c2.value = -1.0                        # ... and a2 = 0: the c2 value matters
    assert explorer.result.value == 0
    explorer.u_a2_c2.value = 1.0
    assert explorer.result.value == 1


def test_explorers_refuse_huge_trees(generators):
    explorer = epsilon_explorer(branching=2, depth=2)
    explorer.stochastic.value = True
    explorer.branching.value = 4
    explorer.depth.value = 4                             # (4 * 4) ** 4 paths: too many to redraw
    assert "choose a smaller depth or branching" in explorer.info.value
    assert explorer.picture.dot == ""
    explorer.depth.value = 2
    assert explorer.error == "" and explorer.picture.dot.count("digraph") == 1


def test_fit_asks_the_browser_without_searching_again(monkeypatch):
    explorer = epsilon_explorer(bab_figure3())
    count = explorer.redraws
    sent = []
    monkeypatch.setattr(explorer.picture, "send", sent.append)
    explorer.picture.fit()
    explorer.picture.readable()
    assert sent == [{"type": "fit"}, {"type": "readable"}]
    assert explorer.redraws == count


# -- the browser picture (TreeView) ------------------------------------------------------------------

def test_tree_view_takes_a_picture_or_dot():
    from course.draw import draw_tree
    from course.widgets import TreeView

    game = aima_figure_5_2()
    picture = draw_tree(game, alphabeta(game, trace=True), upto=3)
    view = TreeView(picture)
    assert view.dot == picture.source and view.nodes == dict(picture.nodes)
    assert [k for k, v in view.nodes.items() if v == "current"] == ["n_0_0"]
    view.show("digraph { a -> b }")
    assert view.dot == "digraph { a -> b }" and view.nodes == {}
    view.show(None)
    assert view.dot == ""
    with pytest.raises(ParameterError, match="TreePicture or DOT"):
        view.show(42)
    # what the browser reads: the DOT, the viewport's height, the readable label size
    state = view.get_state()
    assert {"dot", "max_height", "min_label_px", "_esm"} <= set(state)
    assert state["min_label_px"] == 11 and "export default" in state["_esm"]


def test_tree_view_sends_graphviz_wasm_when_asked(monkeypatch):
    from course.widgets import TreeView
    from course.widgets.tree_view import viz_bundle

    view = TreeView("digraph { a }")
    sent = []
    monkeypatch.setattr(view, "send", lambda content, buffers=None: sent.append((content, buffers)))
    view._answer(view, {"type": "something else"}, [])
    assert sent == []
    view._answer(view, {"type": "viz-bundle?"}, [])
    (content, buffers), = sent
    assert content == {"type": "viz-bundle", "version": "3.31.0"}
    assert buffers == [viz_bundle()]
    assert b"WebAssembly" in buffers[0] and b"export{" in buffers[0].replace(b" ", b"")


def test_vendored_viz_matches_its_notice():
    import hashlib
    import re

    from course.widgets.tree_view import VIZ_PATH, viz_bundle, viz_version

    notice = (VIZ_PATH.parent / "NOTICE.md").read_text(encoding="utf-8")
    assert f"`@viz-js/viz` {viz_version()}" in notice
    digest = re.search(r"sha256 of `viz.js`: `([0-9a-f]{64})`", notice).group(1)
    assert hashlib.sha256(viz_bundle()).hexdigest() == digest
    assert "MIT" in notice and "Eclipse Public License" in notice


def test_explorers_show_their_picture_in_a_tree_view():
    from course.widgets import TreeView

    for explorer in (epsilon_explorer(bab_figure3()), ordering_explorer(aima_figure_5_2()),
                     chance_pruning_explorer(), step_through(aima_figure_5_2())):
        assert isinstance(explorer.picture, TreeView)
        assert explorer.picture.dot == explorer.tree_picture.source
        assert explorer.picture.nodes == dict(explorer.tree_picture.nodes)
    chance = chance_pruning_explorer()
    assert chance.picture in chance.children[0].children     # beside the sliders
