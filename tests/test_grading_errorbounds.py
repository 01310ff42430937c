"""Assignment 6's reference (course.grading.checks.errorbounds): every interval it gives is true and as
narrow as the error bounds allow, it agrees with Chen's propositions where they apply, and its
messages name the node that differs."""

from __future__ import annotations

import math
import re

import pytest

from course import Player
from course.grading import GradingFailure
from course.grading.checks.cases import exercise_cases
from course.grading.checks.errorbounds import (check_decision_bound, check_selective_interval,
                                        check_value_interval, chen_comparison,
                                        error_textbook_cases, reference_intervals,
                                        with_error_bounds)
from course.theory import backup_error_bound, decision_error_bound, decision_error_guarantee


def true_values(case):
    """Every node's game-theoretic value (the whole tree searched), by path."""
    game, out = case.game, {}

    def walk(state, path):
        if game.is_terminal(state):
            v = game.utility(state)
        else:
            vs = [walk(game.result(state, m), path + (i,)) for i, m in enumerate(game.moves(state))]
            v = max(vs) if game.turn(state) is Player.MAX else min(vs)
        out[path] = v
        return v

    walk(game.initial_state(), ())
    return out


CASES = with_error_bounds(exercise_cases(31, 40, depth=(3, 4), roots=("max", "min"),
                                         depth_limits=(1, 2, 3)))
SELECTIVE = with_error_bounds(exercise_cases(32, 40, depth=(3, 4), roots=("max", "min"),
                                             depth_limits=(1, 2, 3)), selective=True)


@pytest.mark.parametrize("case", CASES + SELECTIVE, ids=lambda c: c.describe())
def test_every_interval_contains_the_true_value(case):
    true = true_values(case)
    for path, node in reference_intervals(case).items():
        assert node.lo <= true[path] <= node.hi, (path, node)
        assert node.lo <= node.value <= node.hi


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.describe())
def test_the_intervals_are_the_narrowest(case):
    """Each end is reached: put every horizon node's true value at its lower (upper) end and the
    root's true value is the root's lower (upper) end -- a game the search cannot tell apart."""
    nodes = reference_intervals(case)
    for end in ("lo", "hi"):
        def value(path):
            node = nodes[path]
            if node.kind in ("terminal", "frontier"):
                return getattr(node, end) if node.kind == "frontier" else node.value
            pick = max if node.kind == "max" else min
            return pick(value(p) for p in node.children)
        assert value(()) == getattr(nodes[()], end)


def _constant(case, e):
    """The case with the same error bound ``e`` everywhere (Proposition 1's assumption)."""
    return case.with_params(error=lambda state: e)


@pytest.mark.parametrize("case", exercise_cases(33, 20, depth=4, roots=("max", "min"),
                                                leaf_probability=0.0, depth_limits=(1, 2, 3)),
                         ids=lambda c: c.describe())
def test_one_error_bound_everywhere_is_proposition_1(case):
    (case,) = with_error_bounds(case)
    true = true_values(case)
    nodes = reference_intervals(case)
    e = max(abs(n.estimate - true[n.path]) for n in nodes.values() if n.kind == "frontier")
    nodes = reference_intervals(_constant(case, e))
    for node in nodes.values():                        # no terminal above the horizon here
        assert (node.lo, node.hi) == (node.value - e, node.value + e)
    assert abs(nodes[()].value - true[()]) <= backup_error_bound(d=case.depth, e=e)
    # the decision: the guarantee is at most Chen's 2e, and at least the real loss
    root = nodes[()]
    kids = [nodes[p] for p in root.children]
    pick = max if root.kind == "max" else min
    chosen = next(i for i, k in enumerate(kids) if k.value == pick(k.value for k in kids))
    bound = decision_error_guarantee([(k.lo, k.hi) for k in kids], chosen, player=root.kind)
    loss = abs(pick(true[k.path] for k in kids) - true[kids[chosen].path])
    assert loss <= bound <= decision_error_bound(d=case.depth, e=e)


def test_lesson_3s_tight_case_loses_2e():
    case = error_textbook_cases("decision")[0]
    nodes = reference_intervals(case)
    kids = [nodes[p] for p in nodes[()].children]
    assert decision_error_guarantee([(k.lo, k.hi) for k in kids], 0, player="max") == 2


@pytest.mark.parametrize("case", SELECTIVE, ids=lambda c: c.describe())
def test_selective_intervals_within_proposition_3(case):
    nodes = reference_intervals(case)
    root = nodes[()]
    e = max((n.error for n in nodes.values() if n.kind == "frontier"), default=0)
    reach = backup_error_bound(d=case.depth, e=e, e0=case.e0)
    assert root.value - reach <= root.lo and root.hi <= root.value + reach


def test_chen_comparison_never_wider_and_the_example_narrower():
    rows = chen_comparison(count=3)
    assert all(width <= chen for _, width, chen in rows)
    named = {name: (width, chen) for name, width, chen in rows}
    assert named["two error bounds"] == (2, 8)          # the numbers the model answer quotes


def test_the_examples_the_text_quotes():
    nodes = reference_intervals(error_textbook_cases("interval")[1])
    assert [(nodes[p].lo, nodes[p].hi) for p in ((0, 0), (0, 1), (0,), ())] == \
        [(6, 8), (-1, 7), (6, 8), (6, 8)]
    assert nodes[()].value == 7                        # Proposition 1 with e = 4: [3, 11]
    true = true_values(error_textbook_cases("interval")[1])
    assert nodes[()].lo <= true[()] <= nodes[()].hi


# --- the checks' messages -------------------------------------------------------------------
def _interval(game, state, depth, error, combine):
    if game.is_terminal(state):
        u = game.utility(state)
        return u, u, u
    if depth == 0:
        v, e = game.evaluate(state), error(state)
        return v, v - e, v + e
    kids = [_interval(game, game.result(state, m), depth - 1, error, combine)
            for m in game.moves(state)]
    return combine(game.turn(state), kids)


def _right(player, kids):
    pick = max if player is Player.MAX else min
    return tuple(pick(k[i] for k in kids) for i in range(3))


def _hull(player, kids):
    pick = max if player is Player.MAX else min
    return pick(k[0] for k in kids), min(k[1] for k in kids), max(k[2] for k in kids)


def test_a_wrong_rule_is_located_at_the_first_node_that_differs():
    def hull(game, state, depth, error):
        return _interval(game, state, depth, error, _hull)

    with pytest.raises(GradingFailure) as info:
        check_value_interval(hull, error_textbook_cases("interval")[1])
    text = " ".join(str(info.value).split())
    assert "Node (0,) is the first node (children before parents)" in text, text
    assert "your function returns value 7, interval [-1, 8], the reference value 7, interval [6, 8]" in text
    assert "(0, 1): at the depth limit, EVAL 3 with error bound 4: [-1, 7]" in text
    assert "max" not in text.split("What the reference knows")[1].lower().replace("(max)", "")


def test_right_rule_passes_and_error_called_elsewhere_is_reported():
    def right(game, state, depth, error):
        return _interval(game, state, depth, error, _right)

    check_value_interval(right, CASES[:5])

    def looks_beyond(game, state, depth, error):
        if game.is_terminal(state):
            return right(game, state, depth, error)
        if depth == 0:
            error(game.result(state, game.moves(state)[0]))      # below the horizon
            return right(game, state, depth, error)
        kids = [looks_beyond(game, game.result(state, m), depth - 1, error)
                for m in game.moves(state)]
        return _right(game.turn(state), kids)

    with pytest.raises(GradingFailure, match="error\\(\\) is defined for every non-terminal node"):
        check_value_interval(looks_beyond, error_textbook_cases("interval")[0])

    def foreign(game, state, depth, error):
        error(3)
        return right(game, state, depth, error)

    with pytest.raises(GradingFailure, match=r"error\(\) was given 3, which is not a state"):
        check_value_interval(foreign, CASES[0])


def test_the_reference_search_is_not_allowed():
    from course.search import minimax

    def cheat(game, state, depth, error):
        v = minimax(game, state, depth=depth).value
        return v, v, v

    with pytest.raises(GradingFailure, match="reference search"):
        check_value_interval(cheat, CASES[0])


def test_decision_messages_give_the_root_children():
    def two_e(game, state, depth, error):
        kids = [_interval(game, game.result(state, m), depth - 1, error, _right)
                for m in game.moves(state)]
        best = max(range(len(kids)), key=lambda i: (kids[i][0], -i))
        return game.moves(state)[best], 2 * max(k[2] - k[0] for k in kids)

    with pytest.raises(GradingFailure) as info:
        check_decision_bound(two_e, error_textbook_cases("decision"))
    text = " ".join(str(info.value).split())
    assert "AIMA figure 5.2" in text and "you returned the bound 24, the reference 1" in text, text
    assert "child 2 (move 2): backed-up value 14, true value in [2, 26]" in text


def test_selective_message_says_where_moves_were_dropped():
    def ignores_e0(game, state, depth, error, kept, e0):
        if game.is_terminal(state):
            u = game.utility(state)
            return u, u, u
        if depth == 0:
            v, e = game.evaluate(state), error(state)
            return v, v - e, v + e
        kids = [ignores_e0(game, game.result(state, m), depth - 1, error, kept, e0)
                for m in kept(state)]
        return _right(game.turn(state), kids)

    with pytest.raises(GradingFailure) as info:
        check_selective_interval(ignores_e0, error_textbook_cases("selective"))
    text = " ".join(str(info.value).split())
    assert re.search(r"not searched \(the selective search drops them\): child 1; e0 = 1", text), text


def test_cases_are_a_function_of_their_name():
    a = with_error_bounds(exercise_cases(5, 3, depth_limits=(2,)), selective=True)
    b = with_error_bounds(exercise_cases(5, 3, depth_limits=(2,)), selective=True)
    for x, y in zip(a, b):
        nx, ny = reference_intervals(x), reference_intervals(y)
        assert [(n.path, n.lo, n.hi, n.dropped) for n in nx.values()] == \
            [(n.path, n.lo, n.hi, n.dropped) for n in ny.values()]
        assert x.e0 == y.e0


def test_tictactoe_cases_work():
    from course.grading import tictactoe_cases

    cases = with_error_bounds(tictactoe_cases(601, 2, marks=(3, 5), depth=2))

    def right(game, state, depth, error):
        return _interval(game, state, depth, error, _right)

    check_value_interval(right, cases)
    for case in cases:
        nodes = reference_intervals(case)
        assert all(n.lo <= n.hi for n in nodes.values())
        assert math.isfinite(nodes[()].lo)
