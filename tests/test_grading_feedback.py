"""The feedback a mistake gets: named, located with the student's own numbers, and practised.

Each test keeps the wrong implementation that showed a weak message (the mutants of
``test_grading_mutants.py`` and a few written here) and asserts what the message now says:

* a4's "not the last child": which node, after which (last) child, and why it matters;
* a2/a3 window mistakes: the window the student's search had (from the named mistake's
  simulation, or the inequality the record implies), beside the reference's;
* a5's ordering mistakes: no line about the pruning rule, which is not what differs;
* "NotImplementedError: .": no stray punctuation;
* the feedback drawing: a node visited twice shows every visit;
* a3's chance nodes: game.moves there is harmless, sorting the outcomes is caught;
* every named mistake points to a drill, on the case's own tree, that its simulation gets wrong;
* the diagnosis never blames a correct search, and its simulations are the reference searches
  when no mistake is planted.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from course import Player, parse_tree
from course.grading import Case, GradingFailure, check_alphabeta, check_bab, exercise_cases
from course.grading.checks.compare import TASKS, compare, reference_result, _RefIndex
from course.grading.checks.diagnose import MISTAKES, catches, simulate
from test_grading_mutants import MUTANTS, _failure, _flat, _mutated_source
from test_grading_support import EXERCISES, SOLUTIONS, run_notebook


def _mutant_function(name: str, function: str):
    mutant = next(m for m in MUTANTS if m.name == name)
    namespace = {"Player": Player, "math": math, "Fraction": Fraction}
    exec(_mutated_source(mutant), namespace)
    return namespace[function]


# --- a4: "not the last child" -------------------------------------------------------------------
def test_pruning_after_the_last_child_names_the_node_the_child_and_why():
    text = _flat(_failure("BAB: prunes after the last child too", "a4-test-textbook"))
    assert "it also 'prunes' after a node's LAST child" in text, text
    assert ("node (1,) returns [0, 9] in your search, [8, 9] in the reference. After its last "
            "child, beta = 9 <= alpha + epsilon = 7 + 2 holds, and your search returned at once as "
            "if it had pruned; but it has searched every child, so it must take L = best_L: "
            "[8, 9].") in text, text


# --- a2/a3: the student's own window --------------------------------------------------------------
def test_a_window_mistake_shows_the_window_the_mistake_gives():
    text = _flat(_failure("alpha-beta: the root does not pass its alpha on", "a2-test-textbook"))
    assert ("with this mistake your search enters node (1,) with alpha = -inf, beta = inf; the "
            "reference enters it "
            "with alpha = 3, beta = inf") in text, text


def test_a_chance_window_mistake_shows_the_window_the_mistake_gives():
    text = _flat(_failure("Star1: chance window from the initial [vmin, vmax], not the current L, U",
                          "a3-test-star1-chance"))
    assert re.search(r"with this mistake your search enters node \(\d+(, \d+)*\) with alpha = \S+, beta = \S+; "
                     r"the reference enters it with alpha = \S+, beta = \S+", text), text
    assert "from vmin and vmax instead of the chance node's CURRENT L and U" in text


def test_without_a_named_mistake_the_record_bounds_the_students_window():
    """A mistake outside the catalogue: below a MIN node the children get alpha = -inf."""
    def forgets_alpha(game, state):
        def value(s, alpha, beta):
            if game.is_terminal(s):
                return game.utility(s)
            if game.turn(s) is Player.MAX:
                v = -math.inf
                for m in game.moves(s):
                    v = max(v, value(game.result(s, m), alpha, beta))
                    if v >= beta:
                        return v
                    alpha = max(alpha, v)
            else:
                v = math.inf
                for m in game.moves(s):
                    v = min(v, value(game.result(s, m), -math.inf, beta))   # the mistake
                    if v <= alpha:
                        return v
                    beta = min(beta, v)
            return v
        best = None
        for m in game.moves(state):
            v = value(game.result(state, m), best[0] if best else -math.inf, math.inf)
            if best is None or v > best[0]:
                best = (v, m)
        return best

    comps = [compare(TASKS["alphabeta_decision"], forgets_alpha, case)
             for case in exercise_cases(21, 30, depth=4, values=(0, 9))]
    # on some trees the visits happen to be those of a catalogue mistake (the root's full
    # window), which is then named; on the others no catalogue mistake reproduces them
    unnamed = [c for c in comps if not c.ok and c.diagnosis is None]
    assert unnamed, "the mistake shows on none of these trees"
    text = _flat(unnamed[0].message())
    assert "Your search went on, so its test did not fire: with v = " in text, text
    assert re.search(r"its (alpha|beta) there was (below|above) \d+", text), text


# --- a5: no unrelated line ------------------------------------------------------------------------
def test_an_ordering_mistake_is_not_told_the_pruning_rule():
    for name, test in (("ordering: MIN nodes sorted like MAX nodes", "a5-test-ordered-trees"),
                       ("ordering: ties in reverse order at MAX nodes", "a5-test-ordered-tictactoe")):
        text = _flat(_failure(name, test))
        assert "Rule: alpha-beta cuts" not in text, text
        assert "Practise the rule" not in text      # no drill practises a move ordering


def test_a_cut_mistake_is_still_told_the_pruning_rule():
    text = _flat(_failure("alpha-beta: strict-inequality cut", "a2-test-ties"))
    assert "Rule: alpha-beta cuts" in text


# --- "NotImplementedError: ." ------------------------------------------------------------------------
def test_an_unimplemented_function_is_named_without_a_stray_dot():
    outcomes = run_notebook(EXERCISES / "a5_ordering" / "ordering.ipynb", visible_only=True)
    for test in ("a5-test-evaluation-ordering", "a5-test-evaluation-play", "a5-test-best-case"):
        text = _flat(outcomes[test])
        assert "raised NotImplementedError. Replace `raise NotImplementedError()`" in text, text
        assert ": ." not in text


# --- the feedback drawing shows repeated visits --------------------------------------------------------
def test_the_drawing_of_a_search_shows_every_visit_of_a_node():
    from course.draw import draw_tree
    from course.grading import textbook_cases

    fn = _mutant_function("minimax: utility called on every node visited twice (re-search)",
                          "minimax_value")
    case = textbook_cases("minimax")[0]
    comp = compare(TASKS["minimax_value"], fn, case)
    source = draw_tree(case.game, comp.student_result()).source
    first = next(line for line in source.splitlines() if line.startswith("n_0_0 "))
    assert "#1,#4," in first and "evaluated 4 times" in first, first
    node = next(line for line in source.splitlines() if line.startswith("n_0 "))
    assert "expanded 2 times" in node, node
    # a search that visits each node once still shows one number per leaf
    once = draw_tree(case.game, reference_result(TASKS["minimax_value"], case)).source
    assert "#1<" in once and ",#" not in once


# --- a3: game.moves at chance nodes --------------------------------------------------------------------
def test_harmless_variants_pass():
    """At a chance node game.moves lists chance_outcomes' outcomes in the same order: a search that
    takes its outcomes from game.moves and looks the probabilities up is right, and passes."""
    variants = {
        "a3-expectimax": [("        for outcome, probability in game.chance_outcomes(state):\n",
                           "        probabilities = dict(game.chance_outcomes(state))\n"
                           "        for outcome in game.moves(state):\n"
                           "            probability = probabilities[outcome]\n")],
        "a3-star1": [("            children = list(game.chance_outcomes(s))\n",
                      "            probabilities = dict(game.chance_outcomes(s))\n"
                      "            children = [(m, probabilities[m]) for m in game.moves(s)]\n")],
    }
    from test_grading_support import read_cells

    cells = {c.grade_id: c for c in read_cells(SOLUTIONS / "a3_chance" / "chance.ipynb")}
    for cell, edits in variants.items():
        source = cells[cell].source
        for old, new in edits:
            assert old in source
            source = source.replace(old, new)
        outcomes = run_notebook(SOLUTIONS / "a3_chance" / "chance.ipynb", replace={cell: source})
        assert all(f is None for f in outcomes.values()), \
            {t: str(f)[:200] for t, f in outcomes.items() if f is not None}


def test_sorted_chance_outcomes_are_named():
    text = _flat(_failure("Star1: chance outcomes sorted", "a3-test-star1-chance"))
    assert "a chance node, you searched child 1 before child 0: its chance_outcomes are listed " \
           "[1, 0]" in text, text
    assert "do not sort them" in text


# --- every named mistake is diagnosed and points to its drill --------------------------------------------
DIAGNOSED = [
    ("minimax: max at every node", "a1-test-value-textbook", "max-everywhere", "minimax"),
    ("decision: last best move on ties", "a1-test-decision", "last-tie", "minimax"),
    ("decision: always maximizes at the root", "a1-test-decision", "root-max", "minimax"),
    ("alpha-beta: strict-inequality cut", "a2-test-ties", "strict-cut", "pruning"),
    ("alpha-beta: the root does not pass its alpha on", "a2-test-textbook", "root-window", "pruning"),
    ("alpha-beta: last root child with the best value", "a2-test-move", "last-tie", "minimax"),
    ("alpha-beta: window updated before the test", "a2-test-textbook", "update-first", "pruning"),
    ("expectimax: plain average of the outcomes", "a3-test-expectimax", "plain-average", "minimax"),
    ("Star1: wrong chance window (the parent's window passed down)", "a3-test-star1-textbook",
     "chance-parent-window", "c6"),
    ("Star1: strict pruning test", "a3-test-star1-minmax", "strict-prune", "bab"),
    ("Star1: fully expanded nodes keep vmin/vmax", "a3-test-star1-minmax", "keep-bounds", "bounds"),
    ("Star1: chance window from the initial [vmin, vmax], not the current L, U",
     "a3-test-star1-chance", "chance-initial-window", "c6"),
    ("BAB: prunes after the last child too", "a4-test-textbook", "prune-last", "bounds"),
    ("BAB: wrong chance window", "a4-test-chance", "chance-swapped-window", "c6"),
    ("BAB: a pruned node returns its best bounds (U = best_U even when pruned)", "a4-test-textbook",
     "pruned-best", "bounds"),
    ("BAB: the move by U instead of L", "a4-test-textbook", "move-by-U", "bounds"),
    ("BAB: returns U instead of L as the lower bound", "a4-test-textbook", "lower-is-U", "bounds"),
]


@pytest.mark.parametrize("name, test, key, drill", DIAGNOSED, ids=[d[0] for d in DIAGNOSED])
def test_the_mistake_is_named_and_its_drill_set_up_on_the_tree(name, test, key, drill):
    from course.drills import make_drill

    text = str(_failure(name, test))
    flat = _flat(text)
    words = MISTAKES[key].words
    if "Star1" in name:
        words = words.replace(" + epsilon", "")
    assert _flat(words) in flat, flat
    if drill is None:
        assert "Practise the rule" not in flat
        return
    after = text.split("(paste into a cell):\n", 1)[1].split("\n")
    end = next((i for i, line in enumerate(after[1:], 1) if not line.startswith("  ")), len(after))
    call = "\n".join(after[:end])                # wrapped inside its brackets: still Python
    match = re.search(r'drill\("(\w+)"', call)
    assert match and match.group(1) == drill, call
    namespace: dict = {"make_drill": make_drill}
    exec(call.replace("from course.widgets import drill; ", "")
         .replace('drill("', '_ = make_drill("', 1), namespace)
    built = namespace["_"]
    # on the case's tree, pointing to the node; or, when no drill there catches the mistake (a tie
    # that only alpha-beta's bounds make), a seeded drill that does
    assert built.focus is not None or built.kind in ("star1", "c6") or built.code is not None
    assert catches(built, MISTAKES[key])         # the drill offered gets this mistake wrong
    assert "(Checked: a search with" in flat


@pytest.mark.parametrize("task, cases", [
    ("alphabeta_decision", exercise_cases(11, 15, values=(0, 3), roots=("max", "min"))),
    ("star1_decision", exercise_cases(12, 15, chance=0.5, values=(0, 4), roots=("max", "min"))),
    ("bab_search", exercise_cases(13, 15, chance=0.5, values=(0, 8), epsilons=(0, 1, 2))),
    ("minimax_decision", exercise_cases(14, 10, roots=("max", "min"))),
    ("expectimax_value", exercise_cases(15, 10, chance=0.5)),
])
def test_simulations_without_a_mistake_are_the_reference(task, cases):
    spec = TASKS[task]
    for case in cases:
        ref = reference_result(spec, case)
        sim = simulate(spec.reference, case, None, order=spec.order)
        assert sim.events == _RefIndex(ref).events, case.name
        if spec.returns == "bounds":
            assert (sim.lower, sim.upper) == (ref.lower, ref.upper), case.name
        else:
            assert sim.value == ref.value or sim.lower == ref.value, case.name


def test_a_correct_search_is_never_blamed():
    """Every solution passes every visible test: a diagnosis is only ever made of a failure."""
    for notebook in ("a1_minimax/minimax.ipynb", "a2_alphabeta/alphabeta.ipynb",
                     "a3_chance/chance.ipynb", "a4_bounded/bounded.ipynb"):
        outcomes = run_notebook(SOLUTIONS / notebook, visible_only=True)
        assert all(f is None for f in outcomes.values()), notebook


def test_a_drill_call_rebuilds_the_failing_tree():
    from course.drills import make_drill
    from course.grading.checks.diagnose import drill_call

    case = Case("two MIN nodes", parse_tree({"tree": [[2, 7], [1, 5]], "bounds": [0, 9]}),
                epsilon=Fraction(1, 2))
    call = drill_call("bab", case, focus=(1,))
    assert call == ('from course.widgets import drill; drill("bab", tree={"tree": {"max": [{"min": '
                    '[2, 7]}, {"min": [1, 5]}]}, "bounds": [0, 9]}, epsilon="1/2", focus=(1,))')
    d = eval(call.split("; ", 1)[1].replace("drill(", "make_drill("), {"make_drill": make_drill})
    assert d.epsilon == Fraction(1, 2) and d.focus == (1,)
    assert d.game.root.leaves()[2].value == 1


def test_the_message_is_still_one_line_first_and_wrapped():
    from course.grading.checks.failures import WIDTH

    with pytest.raises(GradingFailure) as info:
        check_bab(_mutant_function("BAB: prunes after the last child too", "bab_search"),
                  Case("figure 3", __import__("course.examples", fromlist=["x"]).bab_figure3(),
                       epsilon=2), show=False)
    lines = str(info.value).split("\n")
    assert all(len(line) <= WIDTH for line in lines)
    assert lines[0].startswith("Bounded Alpha-Beta on figure 3 (epsilon = 2): you returned")
    with pytest.raises(GradingFailure):
        check_alphabeta(_mutant_function("alpha-beta: strict-inequality cut", "alphabeta_decision"),
                        parse_tree([[3, 5], [3, 9]]), show=False)
