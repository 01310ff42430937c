"""What the exercise texts tell students, computed (issue 31, "Exercises").

* Assignment 2: a fail-hard alpha-beta (returning the bound at a cut) is accepted under the
  course's rule -- it passes every test cell, hidden tests included -- and the text says so;
  under the strict rule it is not (the text says that too).
* Assignment 3: the CS 520 note's threshold -7/8 is the child window the students derive; not
  clipping the window to [vmin, vmax] changes no leaf (the text says it may be left out).
* Assignment 4: on the move test's tree the choice by U loses 1 <= epsilon = 2 (why Question 2
  asks for a trap); the model trap loses more than epsilon by U and nothing by L for every
  epsilon; by L never loses more than epsilon (Theorem 1); a trap hard-coded for the visible
  epsilons passes Validate and loses the hidden points.
* Assignment 5: "never lose against any perfect opponent" is checked against every perfect
  opponent: an evaluation function that never loses to the one fixed perfect player the check
  used before loses to another one.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from course import Player, parse_tree
from course.grading import GradingFailure, exercise_cases
from course.grading.checks.evaluation import check_evaluation_play, choice_losses
from course.search import alphabeta, bab
from test_grading_support import SOLUTIONS, read_cells, run_notebook

A2 = "a2_alphabeta/alphabeta.ipynb"


def _source(notebook: str, cell: str) -> str:
    return {c.grade_id: c.source for c in read_cells(SOLUTIONS / notebook)}[cell]


def _fail_hard(source: str) -> str:
    hard = source.replace("                if v >= beta:\n                    return v",
                          "                if v >= beta:\n                    return beta")
    hard = hard.replace("                if v <= alpha:\n                    return v",
                        "                if v <= alpha:\n                    return alpha")
    assert hard.count("return beta") == 1 and hard.count("return alpha") == 1
    return hard


def test_fail_hard_alphabeta_passes_every_test_of_assignment_2():
    outcomes = run_notebook(SOLUTIONS / A2, replace={"a2-alphabeta": _fail_hard(
        _source(A2, "a2-alphabeta"))})
    assert outcomes and all(v is None for v in outcomes.values()), outcomes


def test_fail_hard_ordered_alphabeta_passes_assignment_5():
    a5 = "a5_ordering/ordering.ipynb"
    source = _fail_hard(_source(a5, "a5-ordered-alphabeta"))
    outcomes = run_notebook(SOLUTIONS / a5, replace={"a5-ordered-alphabeta": source})
    assert all(v is None for k, v in outcomes.items() if "ordered" in k), outcomes


def test_the_text_says_fail_hard_is_accepted_and_why_not_under_the_strict_rule():
    from course.grading.term.rules import RULE_TEXTS

    rules = " ".join(_source(A2, "a2-rules").split())
    assert '("fail-hard"), is accepted too' in rules
    strict = " ".join(RULE_TEXTS[("alphabeta", True)].split())
    assert 'Return `v` itself, not the bound ("fail-hard"' in strict


def test_fail_hard_differs_under_the_strict_rule():
    """Under the strict rule a value equal to the bound does not cut, so returning the bound
    instead of the value beyond it lets the node above go on: some tree shows it."""
    from course.grading import check_alphabeta

    namespace = {"Player": Player, "math": math}
    exec(_fail_hard(_source(A2, "a2-alphabeta")).replace("v >= beta", "v > beta")
         .replace("v <= alpha", "v < alpha"), namespace)
    with pytest.raises(GradingFailure):
        check_alphabeta(namespace["alphabeta_decision"],
                        exercise_cases(77, 30, values=(0, 3), roots=("max", "min"), depth=(2, 5)),
                        strict=True, show=False)


# --- Assignment 3 ---------------------------------------------------------------------------
def test_the_cs520_threshold_is_the_derived_child_alpha():
    from course.examples import chance_note_thresholds
    from course.theory import chance_child_window

    t = chance_note_thresholds()
    alpha, beta = chance_child_window(t.u_a1, 1, -1, 1, Fraction(4, 5), -1, 1)
    assert alpha == t.prune_at_or_below == Fraction(-7, 8)
    assert "threshold −7/8" in _source("a3_chance/chance.ipynb", "a3-part2")


@pytest.mark.parametrize("seed", range(4))
def test_clipping_the_chance_window_changes_no_leaf(seed):
    from course.grading import check_star1

    star1 = _source("a3_chance/chance.ipynb", "a3-star1")
    unclipped = (star1.replace("max(vmin, (alpha - U) / p + vmax)", "(alpha - U) / p + vmax")
                 .replace("min(vmax, (beta - L) / p + vmin)", "(beta - L) / p + vmin"))
    assert unclipped != star1
    namespace = {"Player": Player, "math": math, "Fraction": Fraction}
    exec(unclipped, namespace)
    check_star1(namespace["star1_decision"],
                exercise_cases(900 + seed, 60, chance=0.6, values=(0, 4), roots=("max", "min"),
                               depth=(2, 5)), show=False)


# --- Assignment 4 ---------------------------------------------------------------------------
MOVE_TEST = {"tree": [[4, 1, 3], [7, 4, 8], [5, 3]], "bounds": [0, 9]}


def test_the_move_tests_tree_loses_within_epsilon_by_u():
    out = choice_losses(parse_tree(MOVE_TEST), 2)
    assert (out["by_L"], out["loss_L"], out["by_U"], out["loss_U"]) == (1, 0, 2, 1)
    answer = " ".join(_source("a4_bounded/bounded.ipynb", "a4-answer-move").split())
    assert "the choice by U loses 1 <= ε there" in answer


@pytest.mark.parametrize("eps", [Fraction(1, 3), Fraction(1, 2), 1, 2, 5, 30, 1000])
def test_the_model_trap_loses_more_than_epsilon_by_u_and_nothing_by_l(eps):
    namespace: dict = {}
    exec(_source("a4_bounded/bounded.ipynb", "a4-u-trap"), namespace)
    out = choice_losses(parse_tree(namespace["u_trap"](eps)), eps)
    assert out["loss_U"] > eps and out["loss_L"] == 0
    if eps == 2:                          # the numbers of the model answer
        assert [c[1:] for c in out["children"]] == [(20, 20, 20), (0, 22, 0)]


@pytest.mark.parametrize("eps", [0, 1, 2, 3])
def test_by_l_never_loses_more_than_epsilon(eps):
    for case in exercise_cases(950 + eps, 60, values=(0, 9), roots=("max",), depth=(2, 4)):
        out = choice_losses(case.game, eps)
        assert out["loss_L"] <= eps, case.name


def test_a_trap_hard_coded_for_the_visible_epsilons_loses_the_hidden_points():
    a4 = "a4_bounded/bounded.ipynb"
    fixed = _source(a4, "a4-u-trap").replace(
        '    return {"tree": [[10 * epsilon], [11 * epsilon, 0]], "bounds": [0, 12 * epsilon]}',
        '    return {"tree": [[10], [10 + epsilon, 0]], "bounds": [0, 10 + 2 * epsilon]}')
    visible = run_notebook(SOLUTIONS / a4, replace={"a4-u-trap": fixed}, visible_only=True)
    full = run_notebook(SOLUTIONS / a4, replace={"a4-u-trap": fixed})
    assert visible["a4-test-u-trap"] is None
    assert isinstance(full["a4-test-u-trap"], GradingFailure)


def test_bab_prunes_the_model_trap_as_the_answer_says():
    result = bab(parse_tree({"tree": [[20], [22, 0]], "bounds": [0, 24]}), epsilon=2)
    assert [c[1:] for c in result.children] == [(20, 20), (0, 22)]
    assert result.move == 0 and alphabeta(parse_tree([[20], [22, 0]])).value == 20


# --- Assignment 5 ---------------------------------------------------------------------------
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def blind_to_threats(state):
    """Counts open lines with one mark and ignores two-mark threats."""
    score = 0
    for line in LINES:
        marks = [state.cells[i] for i in line]
        x, o = marks.count("X"), marks.count("O")
        if o == 0 and x == 1:
            score += 1
        elif x == 0 and o == 1:
            score -= 1
    return score / 100


def _never_loses_to_the_first_perfect_move(evaluate) -> bool:
    """The check before: 20 games against one perfect player (the first best move)."""
    from course.games import TicTacToe
    from course.grading.checks.cases import EvaluatedGame

    game = TicTacToe()
    shallow = EvaluatedGame(game, evaluate)
    starts = [game.initial_state()] + [game.result(game.initial_state(), m) for m in range(9)]
    for start in starts:
        for side in "XO":
            state = start
            while not game.is_terminal(state):
                search = alphabeta(shallow, state, depth=2) if state.to_move == side else \
                    alphabeta(game, state)
                state = game.result(state, list(game.moves(state))[search.move])
            if game.utility(state) * (1 if side == "X" else -1) < 0:
                return False
    return True


def test_a_player_safe_against_one_perfect_opponent_loses_to_another(capsys):
    assert _never_loses_to_the_first_perfect_move(blind_to_threats)
    with pytest.raises(GradingFailure, match=r"you can lose against\s+a perfect opponent"):
        check_evaluation_play(blind_to_threats)


def test_the_model_evaluation_never_loses_in_every_game(capsys):
    namespace: dict = {}
    exec(_source("a5_ordering/ordering.ipynb", "a5-evaluate"), namespace)
    check_evaluation_play(namespace["my_evaluate"])
    out = capsys.readouterr().out
    assert "you never lose: 333 games, every game any perfect opponent can play" in out
