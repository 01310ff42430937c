"""The lessons' corrected claims, checked by the course's own code (issue 31, item 1).

Each test would fail if the wrong claim came back: the lessons print these computations, and
``tests/test_lessons.py`` checks what they print; here the claims are checked directly, fast,
without running a notebook.
"""

from fractions import Fraction

import pytest

from course import alphabeta, bab, minimax, parse_tree, star1
from course.analysis import node_values, noisy_evaluation
from course.games import TicTacToe, random_tree, stochastic_random_tree
from course.theory import best_case_leaves, iterative_deepening_overhead


def test_lesson_1_only_one_depth_limit_estimates_tic_tac_toe_exactly():
    """Lesson 1 said the depth-limited estimates differ from 0; the depth-4 one is exactly 0."""
    game = TicTacToe()
    estimates = {d: minimax(game, depth=d).value for d in range(1, 6)}
    assert [d for d, v in estimates.items() if v == 0] == [4]
    assert min(v for d, v in estimates.items() if d % 2) > max(v for d, v in estimates.items() if not d % 2)


@pytest.mark.parametrize("b", [2, 3, 4])
def test_iterative_deepening_overhead_is_the_counted_one(b):
    """Earlier iterations / last, counted: b^k for minimax, alpha-beta best-first = Knuth-Moore."""
    for d in range(2, 7):
        full = [minimax(random_tree(b, k, seed=k)).evaluated for k in range(1, d + 1)]
        best = [alphabeta(random_tree(b, k, seed=k), order="best-first").evaluated for k in range(1, d + 1)]
        assert iterative_deepening_overhead(b, d) == Fraction(sum(full[:-1]), full[-1])
        assert iterative_deepening_overhead(b, d, search="alphabeta") == Fraction(sum(best[:-1]), best[-1])


def test_the_full_width_overhead_is_wrong_for_alpha_beta():
    """1/(b-1) is right without pruning, far too small with it (lesson 2 used to say 'about 1/(b-1)')."""
    for b, d in [(4, 6), (10, 6), (35, 4)]:
        assert iterative_deepening_overhead(b, d) < Fraction(1, b - 1)
        assert iterative_deepening_overhead(b, d, search="alphabeta") > 3 * Fraction(1, b - 1)
    assert iterative_deepening_overhead(35, 4, search="alphabeta") > Fraction(1, 2)
    assert iterative_deepening_overhead(4, 6, search="alphabeta") == Fraction(140, 127)


def test_bab_can_beat_alpha_beta_best_case_with_known_bounds():
    """The BAB paper conjectures that its best case cannot beat alpha-beta's unless
    epsilon = vmax - vmin; with known bounds close to the values it can."""
    tiny = parse_tree({"tree": [[96, 97], [50, 60]], "bounds": [0, 100]})
    quick = bab(tiny, epsilon=5)
    exact = minimax(tiny).value
    assert quick.evaluated == 2 < best_case_leaves(2, 2) == 3
    assert quick.lower <= exact <= quick.upper and quick.upper - quick.lower <= 5 < 100 - 0
    assert alphabeta(tiny, order="best-first").evaluated == star1(tiny).evaluated == 3


def _depth_limited_cases():
    for seed in range(30):
        yield random_tree(3, 5, seed=seed).to_tree(), 3
        yield random_tree(2, 6, seed=seed).to_tree(), 4
        yield stochastic_random_tree(2, 3, seed=seed).to_tree(), 3


@pytest.mark.parametrize("e, eps", [(0, 3), (1, 0), (2, 5), (5, 5), (5, 20), (10, 1)])
def test_bab_with_a_depth_limit_is_within_e_plus_epsilon(e, eps):
    """The course's own combination of Theorem 1 with Chen's Proposition 1 (lesson 5): EVAL off by
    at most e at the horizon gives bounds within e + eps of the game's value and a decision error
    of at most 2e + eps, with and without chance nodes."""
    for case, (tree, depth) in enumerate(_depth_limited_cases()):
        true = node_values(tree)
        evaluate = noisy_evaluation(true, e, seed=case)
        r = bab(tree, epsilon=eps, depth=depth, evaluate=evaluate, vmin=tree.vmin - e, vmax=tree.vmax + e)
        tolerance = 1e-9 * (1 + abs(true[()]))
        assert max(abs(r.lower - true[()]), abs(r.upper - true[()])) <= e + eps + tolerance, case
        assert true[()] - true[(r.move,)] <= 2 * e + eps + tolerance, case


def test_the_decision_bound_two_e_plus_epsilon_is_reached():
    tight = parse_tree({"tree": [[[3]], [[6], [7]]], "bounds": [0, 10]})
    estimates = {(0, 0): 4, (1, 0): 5, (1, 1): 6}          # each off by e = 1
    r = bab(tight, epsilon=1, depth=2, evaluate=lambda node: estimates[node.path])
    true = node_values(tight)
    assert (r.lower, r.upper, r.move) == (4, 5, 0)
    assert true[()] - true[(r.move,)] == 3 == 2 * 1 + 1


def test_chen_table_1_setting_shows_a_plateau_not_a_rise():
    """Lesson 3's run (500 decisions): for s = 3 the paired difference err(9) - err(5) is within
    two standard errors of 0; for s = 0 the same four levels remove most of the error."""
    from course.experiments.chen import paired_difference, simulate

    run = simulate(5, 10, 9, simulations=500, depths=[5, 9], skips=[0, 3], last_level="max")
    change, se = paired_difference(run["errors"][9, 3], run["errors"][5, 3])
    assert abs(change) <= 2 * se, (change, se)
    change0, se0 = paired_difference(run["errors"][9, 0], run["errors"][5, 0])
    assert change0 + 2 * se0 < 0 and change0 < change - 0.1


# -- the topics issue 31 adds (item 4) ---------------------------------------------------------------

F = Fraction


def test_lesson_4_scale_of_eval_only_linear_keeps_expectimax_decisions():
    """AIMA's example: 10 ** EVAL switches expectimax from a1 to a2, minimax keeps a1 under it,
    and 10 * EVAL + 5 changes neither (the lesson's tables and sums)."""
    from course.search import eval_transformation_example

    ex = eval_transformation_example()
    rows = {row.name: row for row in ex.expectimax.rows}
    assert rows["EVAL"].values == (F(21, 10), F(13, 10)) and rows["EVAL"].move == 0
    assert rows["10 ** EVAL"].values == (190, 1009) and rows["10 ** EVAL"].move == 1
    assert rows["10 * EVAL + 5"].values == (26, 18) and rows["10 * EVAL + 5"].move == 0
    assert ex.expectimax.changed("10 ** EVAL") and not ex.expectimax.changed("10 * EVAL + 5")
    assert not ex.minimax.changed("10 ** EVAL") and not ex.minimax.changed("10 * EVAL + 5")
    for chance in ex.chance_game.root.children:            # the sums the lesson writes out
        terms = [(p, ex.evaluate(s)) for p, s in zip(chance.probabilities, chance.children)]
        assert sum(p * (10 * v + 5) for p, v in terms) == 10 * sum(p * v for p, v in terms) + 5


def test_lesson_4_win_probability_is_a_linear_rescaling():
    """The 'Try it' answer: P = (payoff + 1) / 2, applied to every value the search sees (terminal
    payoffs too), keeps depth-limited expectimax's moves (on Pig, a game with dice)."""
    from course.games import Pig
    from course.search import decision_table

    pig = Pig(target=5, faces=3, turn_limit=3)
    for depth in (2, 4, None):
        table = decision_table(pig, {"P": lambda v: (v + 1) / 2}, depth=depth)
        assert not table.changed("P"), depth


def test_lesson_5_cops_and_robbers_eval_is_in_rounds():
    """Lesson 5: EVAL = rounds played + the cops' average distance, in the score's unit, capped."""
    from course.games import CopsAndRobbers

    game = CopsAndRobbers(obstacles=0.2, seed=0, stochastic=True, p=0.8)
    start = game.initial_state()
    distances = [abs(r - start.robber[0]) + abs(c - start.robber[1]) for r, c in start.cops]
    assert game.evaluate(start) == F(sum(distances), len(distances))
    state = start
    for _ in range(4):                                   # a few plies in: still rounds + distance
        state = game.result(state, game.moves(state)[0]) if game.turn(state).value != "chance" \
            else game.result(state, game.chance_outcomes(state)[0][0])
        assert 0 <= game.evaluate(state) <= game.vmax == 12


def _probe_tree(m2=(3, 9)):
    return parse_tree({"tree": {"label": "root", "max": [6, {"label": "c", "chance": [
        [F(1, 2), {"label": "m1", "min": [4, 9, 9]}], [F(1, 2), {"label": "m2", "min": list(m2)}]]}]},
        "bounds": [0, 10]})


def test_lesson_4_star2_probing_example():
    """Lesson 4 section 7: both probes, c's U 7 then 7/2 <= 6, m2's probe window alpha 8; 3 leaves
    against Star1's 5; question 6 (m2 = 9, 9): no probe cut, value 13/2."""
    from course.search import star2

    game = _probe_tree()
    r = star2(game, trace=True)
    assert (r.value, r.evaluated, star1(game).value, star1(game).evaluated) == (6, 3, 6, 5)
    probes = [(e.lower, e.upper) for e in r.trace if e.path == (1,) and e.kind == "update"]
    assert probes == [(0, 7), (0, F(7, 2))]
    assert [e for e in r.trace if e.path == (1, 1) and e.kind == "enter"][0].alpha == 8
    cut = [e for e in r.trace if e.path == (1,) and e.kind == "cutoff"]
    assert len(cut) == 1 and cut[0].reason.startswith("probe:")
    changed = star2(_probe_tree((9, 9)), trace=True)
    assert changed.value == F(13, 2) and changed.move == 1
    assert not [e for e in changed.trace if e.path == (1,) and e.kind == "cutoff"]
    assert [(e.lower, e.upper) for e in changed.trace if e.path == (1,) and e.reason == "probe"][-1][1] \
        == F(13, 2)


def test_lesson_4_probing_is_a_bet():
    from course.search import star2

    bet = parse_tree({"tree": {"max": [5, {"chance": [[F(1, 2), {"min": [9, 0]}],
                                                      [F(1, 2), {"min": [9, 9]}]]}]}, "bounds": [0, 10]})
    assert star1(bet).evaluated == 3 < star2(bet).evaluated == 4


def test_lesson_4_star2_on_stochastic_random_trees():
    """The shares the lesson recomputes (issue 31: Star1 84/71/67 %, by probability 61/39/32 %,
    Star2 63/38/34 %), and what its text says about them."""
    from course.search import expectimax, star2

    def pct(search, games, full, **kw):
        return round(100 * sum(search(g, **kw).evaluated for g in games) / full)

    for b, given, likeliest, probing in [(2, 84, 61, 63), (3, 71, 39, 38), (4, 67, 32, 34)]:
        games = [stochastic_random_tree(b, 3, seed=s) for s in range(5)]
        full = sum(expectimax(g).evaluated for g in games)
        shares = {name: pct(search, games, full, **kw) for name, search, kw in [
            ("star1", star1, {}), ("likeliest", star1, {"order": "probability"}), ("star2", star2, {}),
            ("again", star2, {"keep_probes": False}), ("s1best", star1, {"order": "best-first"}),
            ("s2best", star2, {"order": "best-first"})]}
        assert (shares["star1"], shares["likeliest"], shares["star2"]) == (given, likeliest, probing)
        assert shares["likeliest"] <= 0.75 * shares["star1"]                 # "far fewer"
        assert abs(shares["star2"] - shares["likeliest"]) <= 3                # "within a few points"
        assert shares["again"] > shares["likeliest"]                          # costs more than it saves
        assert shares["s2best"] <= shares["s1best"] - 5                      # "clearly fewer"
        if b == 2:
            assert shares["again"] > 100                                      # more than expectimax


def test_lesson_2_strict_rule_on_cs188_tied_root():
    """CS188's q3/6-tied-root: the course's rule cuts C, the strict rule visits it; same value and
    move; min2 returns the bound 10 or its exact 0."""
    tied = parse_tree({"label": "max", "max": [
        {"label": "min1", "min": [{"label": "A", "value": 10}]},
        {"label": "min2", "min": [{"label": "B", "value": 10}, {"label": "C", "value": 0}]}]})
    runs = {strict: alphabeta(tied, strict=strict, trace=True) for strict in (False, True)}
    visited = {s: [tied.node(e.path).label for e in r.trace if e.kind in ("enter", "leaf")]
               for s, r in runs.items()}
    assert visited[False] == ["max", "min1", "A", "min2", "B"]
    assert visited[True] == ["max", "min1", "A", "min2", "B", "C"]          # what CS188 expects
    assert runs[False].value == runs[True].value == 10 and runs[False].move == runs[True].move == 0
    assert runs[False].trace.nodes()[(1,)].upper == 10 and runs[True].trace.nodes()[(1,)].upper == 0


def test_lesson_2_table_entries_keep_their_promises():
    """One entry of each flag (the first stored), with the true value as the flag says; the
    lower and upper ones were stored by MAX positions (X to move), as the text explains."""
    from course.game import Player
    from course.search import Flag, TranspositionTable, alphabeta_tt

    ttt = TicTacToe()
    table = TranspositionTable()
    alphabeta_tt(ttt, table=table)
    first = {}
    for state, entry in table.entries.items():
        first.setdefault(entry.flag, (state, entry))
    assert set(first) == {Flag.EXACT, Flag.LOWER, Flag.UPPER}
    for flag, (state, entry) in first.items():          # every entry: tests/test_search_iterative.py
        true = minimax(ttt, state).value
        assert entry.lower <= true <= entry.upper and (flag is not Flag.EXACT or true == entry.value)
    for flag in (Flag.LOWER, Flag.UPPER):
        assert ttt.turn(first[flag][0]) is Player.MAX


def test_lesson_2_bab_table_holds_an_interval_with_both_ends_informative():
    from course.games import ConnectFour
    from course.search import iterative_deepening

    four = ConnectFour(width=5, height=4)
    run = iterative_deepening(four, depth=6, search="bab")
    both = [(s, e) for s, e in run.table.entries.items() if four.vmin < e.lower < e.upper < four.vmax]
    assert both
    for state, entry in both:
        assert entry.lower <= minimax(four, state, depth=entry.depth).value <= entry.upper


def test_lesson_2_iterative_deepening_with_a_table_costs_less_than_one_plain_search():
    """Issue 31: the real ID overhead, with and without a table, on tic-tac-toe and connect four."""
    from course.games import ConnectFour
    from course.search import alphabeta_tt, iterative_deepening

    nodes = lambda r: r.expanded + r.evaluated
    for game, d in [(TicTacToe(), 8), (ConnectFour(width=5, height=4), 8)]:
        b = len(game.moves(game.initial_state()))
        plain, one = alphabeta(game, depth=d), alphabeta_tt(game, depth=d)
        without = iterative_deepening(game, depth=d, table=False)
        shared = iterative_deepening(game, depth=d)
        assert plain.value == without.value == one.value == shared.value
        assert without.overhead > 2 / (b - 1)                # "far more than 1/(b - 1)"
        assert shared.nodes < nodes(plain)                   # all of ID < one plain search
        assert shared.overhead > without.overhead            # "its overhead ratio is even larger"
        assert nodes(one) < shared.nodes                     # "one search with a table is cheaper still"
