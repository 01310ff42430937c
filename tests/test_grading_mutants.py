"""Wrong implementations lose points on the test cells meant to catch them, and Validate says so.

Each mutant is the solution cell of an exercise notebook with a targeted
edit: a mistake of *rule* a student can make (not a special case of the
visible trees).  The notebook's cells (hidden tests included, as in the
solutions) run in-process with the mutant in place of the solution, and the
test asserts that every test cell meant to catch the mistake fails, with a
:class:`~course.grading.GradingFailure` (never a bare assertion or an
unrelated crash of the checker).

A second test runs the same notebook with the *visible* tests only (what a
student's Validate runs) and asserts that at least one of them fails: a rule
mistake that passes Validate and then loses points to hidden tests is a bug
of the exercise, fixed by strengthening its visible tests.

Not in the list: choosing Star1's root move by U instead of L.  It passes
the hidden tests as well as the visible ones (with epsilon = 0 the best
root child's bounds have met on every tree the tests use), so Validate and
the autograder agree; BAB, where epsilon > 0 separates the two rules, has
that mutant.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

import pytest

from course import Player
from course.grading import CheckFailed, GradingFailure, RuleBroken, WrongBounds, WrongValue
from test_grading_support import SOLUTIONS, read_cells, run_notebook


@dataclass(frozen=True)
class Mutant:
    name: str
    notebook: str
    cell: str
    edits: tuple[tuple[str, str], ...]
    catches: frozenset[str]
    """Test cells that must fail."""


def M(name, notebook, cell, edits, catches):
    return Mutant(name, notebook, cell, tuple(edits), frozenset(catches))


A6 = "a6_selective/selective.ipynb"
_A4_TRAP = '    return {"tree": [[10 * epsilon], [11 * epsilon, 0]], "bounds": [0, 12 * epsilon]}'
_A6_BACKUP = ("    return (pick(c[0] for c in children), pick(c[1] for c in children),\n"
              "            pick(c[2] for c in children))")


MUTANTS = [
    # --- Assignment 1: minimax -------------------------------------------------------------
    M("minimax: max at every node", "a1_minimax/minimax.ipynb", "a1-minimax-value",
      [("    if game.turn(state) is Player.MAX:\n        return max(values)\n    return min(values)",
        "    return max(values)")],
      {"a1-test-value-textbook", "a1-test-value-random"}),
    M("minimax: utility called on every node visited twice (re-search)", "a1_minimax/minimax.ipynb",
      "a1-minimax-value",
      [("    values = [minimax_value(game, game.result(state, move)) for move in game.moves(state)]",
        "    values = [minimax_value(game, game.result(state, move)) for move in game.moves(state)]\n"
        "    values = [minimax_value(game, game.result(state, move)) for move in game.moves(state)]")],
      {"a1-test-value-textbook", "a1-test-value-random"}),
    M("decision: last best move on ties", "a1_minimax/minimax.ipynb", "a1-minimax-decision",
      [("(value > best_value if maximizing else value < best_value)",
        "(value >= best_value if maximizing else value <= best_value)")],
      {"a1-test-decision"}),
    M("decision: duplicated expansion (child searched twice)", "a1_minimax/minimax.ipynb",
      "a1-minimax-decision",
      [("            best_value, best_move = value, move",
        "            best_value, best_move = minimax_value(game, game.result(state, move)), move")],
      {"a1-test-decision", "a1-test-decision-tictactoe"}),
    M("depth limit: one level too deep", "a1_minimax/minimax.ipynb", "a1-depth-limited",
      [("        if d == depth:", "        if d == depth + 1:")],
      {"a1-test-depth-limited", "a1-test-depth-limited-tictactoe"}),
    M("depth limit: evaluates terminal states at the limit... and expands horizon nodes",
      "a1_minimax/minimax.ipynb", "a1-depth-limited",
      [("        values = [value(game.result(s, move), d + 1) for move in game.moves(s)]\n",
        "        moves = game.moves(s)\n"
        "        values = [value(game.result(s, move), d + 1) for move in moves]\n"),
       ("        if d == depth:\n            return game.evaluate(s)",
        "        if d == depth:\n            game.moves(s)\n            return game.evaluate(s)")],
      {"a1-test-depth-limited", "a1-test-depth-limited-tictactoe"}),
    M("depth limit: one level too shallow", "a1_minimax/minimax.ipynb", "a1-depth-limited",
      [("        if d == depth:", "        if d == depth - 1:")],
      {"a1-test-depth-limited", "a1-test-depth-limited-tictactoe"}),
    M("depth limit: EVAL before the terminal test (evaluate on terminal states)",
      "a1_minimax/minimax.ipynb", "a1-depth-limited",
      [("        if game.is_terminal(s):\n            return game.utility(s)\n        if d == depth:\n"
        "            return game.evaluate(s)",
        "        if d == depth:\n            return game.evaluate(s)\n        if game.is_terminal(s):\n"
        "            return game.utility(s)")],
      {"a1-test-depth-limited"}),
    M("decision: always maximizes at the root", "a1_minimax/minimax.ipynb", "a1-minimax-decision",
      [("    maximizing = game.turn(state) is Player.MAX", "    maximizing = True")],
      {"a1-test-decision"}),
    # --- Assignment 2: alpha-beta ----------------------------------------------------------
    M("alpha-beta: no pruning (minimax)", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("                if v >= beta:\n                    return v\n", ""),
       ("                if v <= alpha:\n                    return v\n", "")],
      {"a2-test-textbook", "a2-test-ties", "a2-test-tictactoe"}),
    M("alpha-beta: strict-inequality cut", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("if v >= beta:", "if v > beta:"), ("if v <= alpha:", "if v < alpha:")],
      {"a2-test-ties"}),
    M("alpha-beta: window updated before the test", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("                if v >= beta:\n                    return v\n                alpha = max(alpha, v)",
        "                alpha = max(alpha, v)\n                if v >= alpha:\n                    return v"),
       ("                if v <= alpha:\n                    return v\n                beta = min(beta, v)",
        "                beta = min(beta, v)\n                if v <= beta:\n                    return v")],
      {"a2-test-textbook", "a2-test-ties", "a2-test-tictactoe"}),
    M("alpha-beta: the root does not pass its alpha on", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("        v = value(game.result(state, move), alpha, beta)",
        "        v = value(game.result(state, move), -math.inf, math.inf)")],
      {"a2-test-textbook", "a2-test-ties"}),
    M("alpha-beta: last root child with the best value", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("(v > best_value if maximizing else v < best_value)",
        "(v >= best_value if maximizing else v <= best_value)")],
      {"a2-test-move"}),
    M("alpha-beta: the root never narrows its window", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("        if maximizing:\n            alpha = max(alpha, best_value)\n        else:\n"
        "            beta = min(beta, best_value)\n", "")],
      {"a2-test-textbook", "a2-test-ties"}),
    M("alpha-beta: always maximizes at the root", "a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
      [("    maximizing = game.turn(state) is Player.MAX", "    maximizing = True")],
      {"a2-test-ties"}),
    # --- Assignment 3: expectimax and Star1 -------------------------------------------------
    M("expectimax: plain average of the outcomes", "a3_chance/chance.ipynb", "a3-expectimax",
      [("            total += probability * expectimax_value(game, game.result(state, outcome))\n"
        "        return total",
        "            total += expectimax_value(game, game.result(state, outcome))\n"
        "        return total / len(game.chance_outcomes(state))")],
      {"a3-test-expectimax"}),  # Pig's die is fair: a plain average is right there
    M("Star1: wrong chance window (the parent's window passed down)", "a3_chance/chance.ipynb",
      "a3-star1",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - L) / p + vmin)",
        "                child_alpha, child_beta = alpha, beta")],
      {"a3-test-star1-textbook", "a3-test-star1-chance"}),
    M("Star1: strict pruning test", "a3_chance/chance.ipynb", "a3-star1",
      [("if beta <= alpha and", "if beta < alpha and")],
      {"a3-test-star1-minmax", "a3-test-star1-chance"}),
    M("Star1: no pruning below chance nodes", "a3_chance/chance.ipynb", "a3-star1",
      [("            if beta <= alpha and k < len(children) - 1:",
        "            if player is not Player.CHANCE and beta <= alpha and k < len(children) - 1:")],
      {"a3-test-star1-textbook", "a3-test-star1-chance"}),
    M("Star1: fully expanded nodes keep vmin/vmax", "a3_chance/chance.ipynb", "a3-star1",
      [("        if player is Player.MAX:\n            U = best_U\n        elif player is Player.MIN:\n"
        "            L = best_L\n        return L, U", "        return L, U")],
      {"a3-test-star1-minmax", "a3-test-star1-chance"}),
    M("Star1: chance window from the initial [vmin, vmax], not the current L, U",
      "a3_chance/chance.ipynb", "a3-star1",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - L) / p + vmin)",
        "                child_alpha = max(vmin, (alpha - vmax) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - vmin) / p + vmin)")],
      {"a3-test-star1-chance"}),
    M("Star1: the window not narrowed by L and U", "a3_chance/chance.ipynb", "a3-star1",
      [("            alpha = max(L, alpha)\n            beta = min(U, beta)\n", "")],
      {"a3-test-star1-textbook", "a3-test-star1-chance"}),
    # the window below a chance node is derived by the students (Assignment 3, Part 2)
    M("Star1: derived window, child_alpha only (child_beta = the chance node's beta)",
      "a3_chance/chance.ipynb", "a3-star1",
      [("                child_beta = min(vmax, (beta - L) / p + vmin)",
        "                child_beta = beta")],
      {"a3-test-star1-chance", "a3-test-star1-pig"}),
    M("Star1: derived window, child_beta only (child_alpha = the chance node's alpha)",
      "a3_chance/chance.ipynb", "a3-star1",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)",
        "                child_alpha = alpha")],
      {"a3-test-star1-textbook", "a3-test-star1-pig"}),
    M("Star1: derived window, child_alpha from L and vmin", "a3_chance/chance.ipynb", "a3-star1",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)",
        "                child_alpha = max(vmin, (alpha - L) / p + vmin)")],
      {"a3-test-star1-chance"}),
    M("Star1: derived window, multiplied by p instead of divided", "a3_chance/chance.ipynb",
      "a3-star1",
      [("(alpha - U) / p + vmax", "(alpha - U) * p + vmax"),
       ("(beta - L) / p + vmin", "(beta - L) * p + vmin")],
      {"a3-test-star1-textbook", "a3-test-star1-chance", "a3-test-star1-pig"}),
    M("expectimax: a float sum (0.0)", "a3_chance/chance.ipynb", "a3-expectimax",
      [("        total = 0\n", "        total = 0.0\n")],
      {"a3-test-expectimax", "a3-test-expectimax-pig"}),
    # game.moves at chance nodes lists the outcomes of chance_outcomes, in the same order: using it
    # is harmless (test_harmless_variants_pass below); sorting the outcomes, or passing an
    # outcome's position for the outcome, is not -- and went unnoticed while every test game
    # listed its outcomes in sorted order (0, 1, ... or die faces 1..6).
    M("expectimax: chance outcomes sorted (game.moves + a probability look-up)", "a3_chance/chance.ipynb",
      "a3-expectimax",
      [("        for outcome, probability in game.chance_outcomes(state):\n",
        "        probabilities = dict(game.chance_outcomes(state))\n"
        "        for outcome in sorted(game.moves(state)):\n"
        "            probability = probabilities[outcome]\n")],
      {"a3-test-expectimax"}),
    M("expectimax: an outcome's position passed for the outcome", "a3_chance/chance.ipynb",
      "a3-expectimax",
      [("        for outcome, probability in game.chance_outcomes(state):\n"
        "            total += probability * expectimax_value(game, game.result(state, outcome))",
        "        for i, (outcome, probability) in enumerate(game.chance_outcomes(state)):\n"
        "            total += probability * expectimax_value(game, game.result(state, i))")],
      {"a3-test-expectimax", "a3-test-expectimax-pig"}),
    M("Star1: chance outcomes sorted", "a3_chance/chance.ipynb", "a3-star1",
      [("            children = list(game.chance_outcomes(s))\n",
        "            children = sorted(game.chance_outcomes(s), key=lambda outcome: outcome[0])\n")],
      {"a3-test-star1-chance"}),
    M("Star1: float probabilities", "a3_chance/chance.ipynb", "a3-star1",
      [("        for k, (move, p) in enumerate(children):\n",
        "        for k, (move, p) in enumerate(children):\n            p = float(p) if p is not None else None\n")],
      {"a3-test-star1-textbook", "a3-test-star1-chance"}),
    # --- Assignment 4: Bounded Alpha-Beta ----------------------------------------------------
    M("naive epsilon: alpha-beta's test (epsilon ignored)", "a4_bounded/bounded.ipynb", "a4-naive",
      [("            if beta <= alpha + epsilon and k < len(moves) - 1:",
        "            if beta <= alpha and k < len(moves) - 1:")],
      {"a4-test-naive", "a4-test-drift"}),
    M("naive epsilon: strict test", "a4_bounded/bounded.ipynb", "a4-naive",
      [("if beta <= alpha + epsilon and", "if beta < alpha + epsilon and")],
      {"a4-test-naive"}),
    M("naive epsilon: the drift measured the wrong way round", "a4_bounded/bounded.ipynb", "a4-naive",
      [("    return naive_epsilon_value(game, root, epsilon) - naive_epsilon_value(game, root, 0)",
        "    return naive_epsilon_value(game, root, 0) - naive_epsilon_value(game, root, epsilon)")],
      {"a4-test-drift"}),
    M("BAB: naive epsilon (alpha-beta values, cut at beta <= alpha + eps)", "a4_bounded/bounded.ipynb",
      "a4-bab",
      [("    L, U = search(state, vmin, vmax, at_root=True)\n",
        "    L, U = search(state, vmin, vmax, at_root=True)\n    L = U = (L + U) / 2\n"),
       ("            if beta <= alpha + epsilon and k < len(children) - 1:\n                return L, U",
        "            if beta <= alpha + epsilon and k < len(children) - 1:\n"
        "                return (L, L) if player is Player.MIN else (U, U)")],
      {"a4-test-textbook", "a4-test-ties", "a4-test-chance"}),
    M("BAB: strict pruning test", "a4_bounded/bounded.ipynb", "a4-bab",
      [("if beta <= alpha + epsilon and", "if beta < alpha + epsilon and")],
      {"a4-test-textbook", "a4-test-ties"}),
    M("BAB: the move by U instead of L", "a4_bounded/bounded.ipynb", "a4-bab",
      [("(Lc > best[1] if maximizing else Uc < best[2])", "(Uc > best[2] if maximizing else Lc < best[1])")],
      {"a4-test-move"}),
    M("BAB: returns U instead of L as the lower bound", "a4_bounded/bounded.ipynb", "a4-bab",
      [("    return L, U, best[0]", "    return U, U, best[0]")],
      {"a4-test-textbook", "a4-test-chance", "a4-test-move"}),
    M("BAB: wrong chance window", "a4_bounded/bounded.ipynb", "a4-bab",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - L) / p + vmin)",
        "                child_alpha = max(vmin, (alpha - L) / p + vmin)\n"
        "                child_beta = min(vmax, (beta - U) / p + vmax)")],
      {"a4-test-chance"}),
    M("BAB: prunes after the last child too", "a4_bounded/bounded.ipynb", "a4-bab",
      [("            if beta <= alpha + epsilon and k < len(children) - 1:",
        "            if beta <= alpha + epsilon:")],
      {"a4-test-textbook"}),
    M("BAB: chance window from the initial [vmin, vmax], not the current L, U",
      "a4_bounded/bounded.ipynb", "a4-bab",
      [("                child_alpha = max(vmin, (alpha - U) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - L) / p + vmin)",
        "                child_alpha = max(vmin, (alpha - vmax) / p + vmax)\n"
        "                child_beta = min(vmax, (beta - vmin) / p + vmin)")],
      {"a4-test-chance"}),
    M("BAB: a pruned node returns its best bounds (U = best_U even when pruned)",
      "a4_bounded/bounded.ipynb", "a4-bab",
      [("            if beta <= alpha + epsilon and k < len(children) - 1:\n                return L, U",
        "            if beta <= alpha + epsilon and k < len(children) - 1:\n"
        "                if player is Player.MAX:\n                    U = best_U\n"
        "                elif player is Player.MIN:\n                    L = best_L\n"
        "                return L, U")],
      {"a4-test-textbook", "a4-test-ties"}),
    M("BAB: epsilon ignored (Star1)", "a4_bounded/bounded.ipynb", "a4-bab",
      [("if beta <= alpha + epsilon and", "if beta <= alpha and")],
      {"a4-test-textbook", "a4-test-ties"}),
    M("BAB: float arithmetic", "a4_bounded/bounded.ipynb", "a4-bab",
      [("        for k, (move, p) in enumerate(children):\n",
        "        for k, (move, p) in enumerate(children):\n            p = float(p) if p is not None else None\n")],
      {"a4-test-textbook", "a4-test-chance"}),
    M("trap: the move test's tree (by U loses 1, within epsilon)", "a4_bounded/bounded.ipynb",
      "a4-u-trap",
      [(_A4_TRAP, '    return {"tree": [[4, 1, 3], [7, 4, 8], [5, 3]], "bounds": [0, 9]}')],
      {"a4-test-u-trap"}),
    M("trap: vmax too small, the root prunes the trap", "a4_bounded/bounded.ipynb", "a4-u-trap",
      [('"bounds": [0, 12 * epsilon]', '"bounds": [0, 11 * epsilon]')],
      {"a4-test-u-trap"}),
    M("trap: by U loses exactly epsilon", "a4_bounded/bounded.ipynb", "a4-u-trap",
      [("[[10 * epsilon], [11 * epsilon, 0]]", "[[10 * epsilon], [11 * epsilon, 9 * epsilon]]")],
      {"a4-test-u-trap"}),
    M("trap: no bounds", "a4_bounded/bounded.ipynb", "a4-u-trap",
      [(_A4_TRAP, "    return [[10 * epsilon], [11 * epsilon, 0]]")],
      {"a4-test-u-trap"}),
    # --- Assignment 5: move ordering ---------------------------------------------------------
    M("ordering: MIN nodes sorted like MAX nodes", "a5_ordering/ordering.ipynb", "a5-ordered-alphabeta",
      [("key=lambda mc: -estimate(mc[1]) if maximizing else estimate(mc[1])",
        "key=lambda mc: -estimate(mc[1])")],
      {"a5-test-ordered-trees", "a5-test-ordered-tictactoe"}),
    M("ordering: evaluates leaves to sort them", "a5_ordering/ordering.ipynb", "a5-ordered-alphabeta",
      [("key=lambda mc: -estimate(mc[1]) if maximizing else estimate(mc[1])",
        "key=lambda mc: (-1 if maximizing else 1) * (game.utility(mc[1]) if game.is_terminal(mc[1]) "
        "else estimate(mc[1]))")],
      {"a5-test-ordered-trees", "a5-test-ordered-tictactoe"}),
    M("evaluation: counts marks only", "a5_ordering/ordering.ipynb", "a5-evaluate",
      [("        if o == 0 and x > 0:\n            score += 10 if x == 2 else 1\n"
        "        elif x == 0 and o > 0:\n            score -= 10 if o == 2 else 1",
        "        score += x - o")],
      {"a5-test-evaluation-play"}),
    M("ordering: ties in reverse order at MAX nodes", "a5_ordering/ordering.ipynb", "a5-ordered-alphabeta",
      [("        return sorted(children, key=lambda mc: -estimate(mc[1]) if maximizing else estimate(mc[1]))",
        "        if maximizing:\n            return sorted(children, key=lambda mc: estimate(mc[1]))[::-1]\n"
        "        return sorted(children, key=lambda mc: estimate(mc[1]))")],
      {"a5-test-ordered-trees", "a5-test-ordered-tictactoe"}),
    M("ordering: the move is the first best in game.moves order", "a5_ordering/ordering.ipynb",
      "a5-ordered-alphabeta",
      [("    for move, child in ordered(state, maximizing):\n        v = value(child, alpha, beta)\n",
        "    found = {}\n    for move, child in ordered(state, maximizing):\n"
        "        found[move] = v = value(child, alpha, beta)\n"),
       ("    return best_value, best_move\n",
        "    return best_value, next(m for m in game.moves(state) if found.get(m) == best_value)\n")],
      {"a5-test-ordered-trees"}),
    M("ordering: children created again to search them", "a5_ordering/ordering.ipynb",
      "a5-ordered-alphabeta",
      [("        for _, child in ordered(s, maximizing):",
        "        for move, _ in ordered(s, maximizing):\n            child = game.result(s, move)")],
      {"a5-test-ordered-trees", "a5-test-ordered-tictactoe"}),
    M("evaluation: the game's own TicTacToe.evaluate", "a5_ordering/ordering.ipynb", "a5-evaluate",
      [("    score = 0\n", "    from course.games import TicTacToe\n    return TicTacToe().evaluate(state)\n    score = 0\n")],
      {"a5-test-evaluation-ordering", "a5-test-evaluation-play"}),
    M("best case: b ** (d / 2)", "a5_ordering/ordering.ipynb", "a5-best-case",
      [("    return b ** math.ceil(d / 2) + b ** (d // 2) - 1", "    return round(b ** (d / 2))")],
      {"a5-test-best-case"}),
    # --- Assignment 6: error bounds (lesson 3) ------------------------------------------------
    M("intervals: Proposition 1 with the largest error bound below", A6, "a6-value-interval",
      [(_A6_BACKUP, "    value = pick(c[0] for c in children)\n"
                    "    e = max(max(c[0] - c[1], c[2] - c[0]) for c in children)\n"
                    "    return value, value - e, value + e")],
      {"a6-test-interval-textbook", "a6-test-interval-random"}),
    M("intervals: the hull of the children's intervals", A6, "a6-value-interval",
      [(_A6_BACKUP, "    return (pick(c[0] for c in children), min(c[1] for c in children),\n"
                    "            max(c[2] for c in children))")],
      {"a6-test-interval-textbook", "a6-test-interval-random"}),
    M("intervals: error bounds added up the tree", A6, "a6-value-interval",
      [(_A6_BACKUP, "    value = pick(c[0] for c in children)\n"
                    "    e = sum(c[2] - c[0] for c in children)\n"
                    "    return value, value - e, value + e")],
      {"a6-test-interval-textbook", "a6-test-interval-random"}),
    M("intervals: the lower end taken the other way at MIN nodes", A6, "a6-value-interval",
      [(_A6_BACKUP, "    low = max if pick is min else pick\n"
                    "    return (pick(c[0] for c in children), low(c[1] for c in children),\n"
                    "            pick(c[2] for c in children))")],
      {"a6-test-interval-textbook", "a6-test-interval-random"}),
    M("decision: Chen's 2e (the widest interval)", A6, "a6-decision-bound",
      [("    if maximizing:\n        loss = max(c[2] for c in others) - lo\n"
        "    else:\n        loss = hi - min(c[1] for c in others)\n",
        "    loss = max(c[2] - c[1] for c in children)\n")],
      {"a6-test-decision"}),
    M("decision: the chosen move compared with itself too", A6, "a6-decision-bound",
      [("    others = [c for i, c in enumerate(children) if i != best]", "    others = children")],
      {"a6-test-decision"}),
    M("decision: a negative bound when the move is surely best", A6, "a6-decision-bound",
      [("    return moves[best], max(loss, 0)", "    return moves[best], loss")],
      {"a6-test-decision"}),
    M("decision: the last best move on ties", A6, "a6-decision-bound",
      [("        if value > children[best][0] if maximizing else value < children[best][0]:",
        "        if value >= children[best][0] if maximizing else value <= children[best][0]:")],
      {"a6-test-decision"}),
    M("decision: the move by the upper end of its interval", A6, "a6-decision-bound",
      [("    for i, (value, _, _) in enumerate(children):\n"
        "        if value > children[best][0] if maximizing else value < children[best][0]:",
        "    for i, (_, _, value) in enumerate(children):\n"
        "        if value > children[best][2] if maximizing else value < children[best][2]:")],
      {"a6-test-decision"}),
    M("selective: e0 on both ends", A6, "a6-selective-interval",
      [("        if maximizing:\n            hi = hi + e0\n        else:\n            lo = lo - e0",
        "        lo, hi = lo - e0, hi + e0")],
      {"a6-test-selective-textbook", "a6-test-selective-random"}),
    M("selective: e0 at every node, also where nothing is dropped", A6, "a6-selective-interval",
      [("    if len(searched) < len(game.moves(state)):", "    if True:")],
      {"a6-test-selective-textbook", "a6-test-selective-random"}),
    M("selective: e0 ignored", A6, "a6-selective-interval",
      [("            hi = hi + e0", "            hi = hi"),
       ("            lo = lo - e0", "            lo = lo")],
      {"a6-test-selective-textbook", "a6-test-selective-random"}),
    M("selective: e0 on the wrong end (MAX lowers lo, MIN raises hi)", A6, "a6-selective-interval",
      [("            hi = hi + e0\n        else:\n            lo = lo - e0",
        "            lo = lo - e0\n        else:\n            hi = hi + e0")],
      {"a6-test-selective-textbook", "a6-test-selective-random"}),
    M("selective: every move searched (kept ignored)", A6, "a6-selective-interval",
      [("    searched = kept(state)", "    searched = game.moves(state)")],
      {"a6-test-selective-textbook", "a6-test-selective-random"}),
]


def _mutated_source(mutant: Mutant) -> str:
    cells = {c.grade_id: c for c in read_cells(SOLUTIONS / mutant.notebook)}
    source = cells[mutant.cell].source
    for old, new in mutant.edits:
        assert old in source, f"{mutant.name}: the solution no longer contains {old!r}; update the mutant"
        source = source.replace(old, new)
    return source


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_loses_points(mutant: Mutant) -> None:
    outcomes = run_notebook(SOLUTIONS / mutant.notebook, replace={mutant.cell: _mutated_source(mutant)})
    assert mutant.catches <= set(outcomes), f"unknown test cells in {sorted(mutant.catches)}"
    survived = sorted(t for t in mutant.catches if outcomes[t] is None)
    assert not survived, f"{mutant.name} passes {survived}"
    for test in mutant.catches:
        failure = outcomes[test]
        assert isinstance(failure, GradingFailure), f"{test}: {type(failure).__name__}: {failure}"
        assert type(failure) is not AssertionError and str(failure), "a failure needs a full message"


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_fails_a_visible_test(mutant: Mutant) -> None:
    """Validate (visible tests only) and the autograder agree: the mistake fails before submission."""
    outcomes = run_notebook(SOLUTIONS / mutant.notebook, replace={mutant.cell: _mutated_source(mutant)},
                            visible_only=True)
    failed = {t: f for t, f in outcomes.items() if f is not None}
    assert failed, f"{mutant.name} passes every visible test (Validate says Success!)"
    for test, failure in failed.items():
        assert isinstance(failure, GradingFailure), f"{test}: {type(failure).__name__}: {failure}"


def test_mutants_are_not_caught_everywhere() -> None:
    """A mutant of one function leaves the other functions' test cells passing (partial credit)."""
    mutant = next(m for m in MUTANTS if m.name == "decision: last best move on ties")
    outcomes = run_notebook(SOLUTIONS / mutant.notebook, replace={mutant.cell: _mutated_source(mutant)})
    assert outcomes["a1-test-value-textbook"] is None
    assert outcomes["a1-test-depth-limited"] is None


# --- the feedback each kind of mistake gets ------------------------------------------------------
def _failure(name: str, test: str, *, visible_only: bool = True) -> BaseException:
    mutant = next(m for m in MUTANTS if m.name == name)
    outcomes = run_notebook(SOLUTIONS / mutant.notebook, replace={mutant.cell: _mutated_source(mutant)},
                            visible_only=visible_only)
    failure = outcomes[test]
    assert isinstance(failure, GradingFailure), (name, test, failure)
    return failure


def _flat(failure: BaseException) -> str:
    """The message with its wrapping undone (lines joined, indentation collapsed)."""
    return " ".join(str(failure).split())


def test_depth_one_too_deep_says_expanded_where_the_reference_evaluates() -> None:
    text = _flat(_failure("depth limit: one level too deep", "a1-test-depth-limited"))
    assert "You expanded node (0,) where the reference evaluates it: it is at depth 1, the depth limit" in text
    assert "different order" not in text


def test_depth_one_too_shallow_says_evaluated_where_the_reference_expands() -> None:
    from course.grading import check_depth_limited, exercise_cases

    def too_shallow(game, state, depth):
        def value(s, d):
            if game.is_terminal(s):
                return game.utility(s)
            if d >= depth - 1:
                return game.evaluate(s)
            values = [value(game.result(s, m), d + 1) for m in game.moves(s)]
            return max(values) if game.turn(s) is Player.MAX else min(values)
        maximizing = game.turn(state) is Player.MAX
        best = None
        for move in game.moves(state):
            v = value(game.result(state, move), 1)
            if best is None or (v > best[0] if maximizing else v < best[0]):
                best = (v, move)
        return best

    with pytest.raises(GradingFailure) as info:
        check_depth_limited(too_shallow, exercise_cases(3, 1, depth=3, depth_limits=(2,)), show=False)
    text = _flat(info.value)
    assert "where the reference expands it: it is at depth 1 and the depth limit is 2" in text, text
    assert "different order" not in text


def test_reversed_ties_are_named_as_ties_out_of_moves_order() -> None:
    text = _flat(_failure("ordering: ties in reverse order at MAX nodes", "a5-test-ordered-tictactoe"))
    assert "their estimates are equal" in text and "game.moves order" in text, text
    assert "different order" not in text


def test_ordered_search_move_rule_is_the_order_searched() -> None:
    text = _flat(_failure("ordering: the move is the first best in game.moves order", "a5-test-ordered-trees"))
    assert "in the order your search visited the root's children" in text, text
    assert "in the order of game.moves" not in text
    assert "searched the root's children in the order [3, 2, 1, 0]" in text


def test_star1_cut_reasons_have_no_epsilon() -> None:
    text = _flat(_failure("Star1: no pruning below chance nodes", "a3-test-star1-textbook"))
    assert "because beta = 22/3 <= alpha = 8" in text, text
    reasons = text.split("Practise the rule")[0]      # the drill it points to is BAB with epsilon=0
    assert "epsilon" not in reasons


def test_bab_cut_reasons_add_epsilon_to_alpha() -> None:
    text = _flat(_failure("BAB: strict pruning test", "a4-test-textbook"))
    assert re.search(r"beta = \S+ <= alpha \+ epsilon = \S+ \+ \S+ = \S+", text), text
    assert "+ epsilon = 0" not in text


def test_bab_bounds_name_the_first_node_that_differs() -> None:
    from course import parse_tree
    from course.grading import Case, check_bab

    mutant = next(m for m in MUTANTS if m.name.startswith("BAB: a pruned node returns its best bounds"))
    namespace = {"Player": Player, "math": math, "Fraction": Fraction}
    exec(_mutated_source(mutant), namespace)
    case = Case("two MIN nodes", parse_tree({"tree": [[2, 7], [1, 5]], "bounds": [0, 9]}), epsilon=2)
    with pytest.raises(WrongBounds) as info:
        check_bab(namespace["bab_search"], case, show=False)
    text = _flat(info.value)
    assert "you returned the bounds [2, 2], the reference [0, 2]" in text
    assert ("Node (0,) is the first node (children before parents) whose bounds differ: searched on "
            "its own, your function returns [2, 2], the reference [0, 2]") in text, text


@pytest.mark.parametrize("name, test, cls, words", [
    ("depth limit: EVAL before the terminal test (evaluate on terminal states)", "a1-test-depth-limited",
     RuleBroken, "you called game.evaluate on the terminal state"),
    ("expectimax: a float sum (0.0)", "a3-test-expectimax", WrongValue, "the reference's value is exact"),
    ("BAB: float arithmetic", "a4-test-chance", WrongBounds, "the reference's are exact"),
    ("ordering: children created again to search them", "a5-test-ordered-trees", RuleBroken,
     "twice with game.result"),
    ("evaluation: the game's own TicTacToe.evaluate", "a5-test-evaluation-ordering", CheckFailed,
     "exactly the values of the course's TicTacToe.evaluate"),
])
def test_stated_rules_are_enforced(name, test, cls, words) -> None:
    failure = _failure(name, test)
    assert type(failure) is cls, f"{type(failure).__name__}: {failure}"
    assert words in _flat(failure), _flat(failure)


def test_a_failure_shows_one_line_first_and_no_grader_frames() -> None:
    from course.grading import check_alphabeta, textbook_cases
    from course.grading.checks.failures import WIDTH

    def no_pruning(game, state):
        def value(s):
            if game.is_terminal(s):
                return game.utility(s)
            values = [value(game.result(s, m)) for m in game.moves(s)]
            return max(values) if game.turn(s) is Player.MAX else min(values)
        return value(state), game.moves(state)[0]

    try:
        check_alphabeta(no_pruning, textbook_cases("minimax"), show=False)
    except GradingFailure as exc:
        failure = exc
    lines = failure._render_traceback_()
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in lines]
    assert plain[0].startswith("WrongLeaves: alpha-beta search on AIMA figure 5.2 (case 1 of 3): at step 8"), plain[0]
    assert "you evaluated leaf (1, 1) (= 4), the reference expanded node (2,)." in " ".join(
        " ".join(plain[:2]).split()), plain[:2]
    assert all(len(line) <= WIDTH for line in plain), max(plain, key=len)
    assert not any("course/grading" in line or "Traceback" in line for line in plain)
    where = plain[plain.index("") + 1 if "" in plain else -1:]
    assert where[0].startswith("Raised by line") and "check_alphabeta" in where[0], where
    assert failure.__suppress_context__
