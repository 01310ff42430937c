"""The grader's ``strict`` option: an instructor may grade alpha-beta by CS188's rule.

``check(..., strict=True)`` compares the student's search with the reference run with
``strict=True`` (prune only on a strict inequality).  On CS188's ``q3/6-tied-root`` tree a
student who prunes on equality then fails (C must be evaluated) and one who does not passes;
by default it is the other way round.
"""

from __future__ import annotations

import math

import pytest

from course import parse_tree
from course.game import Player
from course.grading import check_alphabeta, check_star1
from course.grading.checks.searches import STRICT_RULES, check, explain
from course.grading.checks.failures import CheckFailed, GradingFailure

TIED_ROOT = parse_tree({"label": "max", "max": [
    {"label": "min1", "min": [{"label": "A", "value": 10}]},
    {"label": "min2", "min": [{"label": "B", "value": 10}, {"label": "C", "value": 0}]},
]})


def make_alphabeta(strict):
    def alphabeta_decision(game, state):
        def value(s, alpha, beta):
            if game.is_terminal(s):
                return game.utility(s)
            maximizing = game.turn(s) is Player.MAX
            v = -math.inf if maximizing else math.inf
            for move in game.moves(s):
                child = value(game.result(s, move), alpha, beta)
                if maximizing:
                    v = max(v, child)
                    if (v > beta) if strict else (v >= beta):
                        return v
                    alpha = max(alpha, v)
                else:
                    v = min(v, child)
                    if (v < alpha) if strict else (v <= alpha):
                        return v
                    beta = min(beta, v)
            return v

        maximizing = game.turn(state) is Player.MAX
        alpha, beta, best = -math.inf, math.inf, None
        for move in game.moves(state):
            v = value(game.result(state, move), alpha, beta)
            if best is None or (v > best[0] if maximizing else v < best[0]):
                best = (v, move)
            if maximizing:
                alpha = max(alpha, best[0])
            else:
                beta = min(beta, best[0])
        return best

    return alphabeta_decision


def test_strict_student_passes_only_the_strict_check(capsys):
    student = make_alphabeta(strict=True)
    check_alphabeta(student, TIED_ROOT, strict=True, show=False)
    assert "1 case matches" in capsys.readouterr().out
    with pytest.raises(GradingFailure) as failure:
        check_alphabeta(student, TIED_ROOT, show=False)
    assert "v >= beta" in str(failure.value) or "v <= alpha" in str(failure.value)


def test_course_rule_student_fails_the_strict_check_naming_the_strict_rule():
    student = make_alphabeta(strict=False)
    check_alphabeta(student, TIED_ROOT, show=False)
    with pytest.raises(GradingFailure) as failure:
        check_alphabeta(student, TIED_ROOT, strict=True, show=False)
    message = str(failure.value)
    assert "(1, 1)" in message                 # the leaf C the student did not evaluate
    assert "never on equality" in message and "v <= alpha" not in message


def test_explain_takes_strict_too():
    comp = explain("alphabeta_decision", make_alphabeta(strict=True), TIED_ROOT, strict=True,
                   show=False)
    assert comp.ok and comp.task.strict and comp.task.rule == STRICT_RULES["alphabeta"]
    assert [p for p in comp.reference.leaves] == [(0, 0), (1, 0), (1, 1)]


def test_the_default_and_strict_references_do_not_share_a_memo():
    # the same case object checked both ways: each check must run its own reference
    check_alphabeta(make_alphabeta(strict=False), TIED_ROOT, show=False)
    check_alphabeta(make_alphabeta(strict=True), TIED_ROOT, strict=True, show=False)
    check_alphabeta(make_alphabeta(strict=False), TIED_ROOT, show=False)


@pytest.mark.parametrize("task", ["minimax_value", "expectimax_value", "naive_epsilon_value"])
def test_strict_is_refused_where_nothing_is_pruned(task):
    with pytest.raises(CheckFailed, match="strict=True applies to the pruning searches"):
        check(task, lambda game, state: 0, TIED_ROOT, strict=True, show=False)


def test_strict_must_be_a_bool():
    with pytest.raises(CheckFailed, match="strict must be True or False"):
        check_star1(lambda game, state: (0, 0), TIED_ROOT, strict="yes", show=False)
