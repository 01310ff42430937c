"""The misconception catalogue: every rule mistake the diagnosis knows, made by a student's code.

For each mistake of :data:`course.grading.checks.diagnose.MISTAKES` there is a student implementation
below with that mistake (the exercise's search as a student writes it, the mistake's line marked
``# the mistake``).  It runs through the grader's comparison on the cases of its assignment, and
on every case where it fails (the first few) the message must

* name the student's mistake, and only mistakes that reproduce the student's record exactly (each
  named mistake's simulation is run again here, independently of the message);
* never say the visits are the reference's when they are not;
* offer a drill, built from the very call the message prints, that the student's mistake answers
  wrongly -- the mistake's simulation run through the drill's own checker -- and that every
  mistake listed beside it answers wrongly too.

Two realistic bugs of issue 30 are checked word for word: the root that searches every child
with the full window (assignment 2, ``a2-test-move``) and the chance child's window computed from
vmin and vmax instead of the chance node's current L and U (assignment 3, ``a3-test-star1-chance``).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from course import Player, parse_tree
from course.drills import make_drill
from course.grading import Case, exercise_cases, pig_cases, textbook_cases
from course.grading.checks.cases import tictactoe_cases
from course.grading.checks.compare import TASKS, compare
from course.grading.checks.diagnose import MISTAKES, catches, reproduces

INF = math.inf


# =============================================================================================
# the students' searches; ``bug`` switches on one mistake (None: the rules as stated)
# =============================================================================================
def minimax_value(game, state, bug=None):
    if game.is_terminal(state):
        return game.utility(state)
    if game.turn(state) is Player.CHANCE:
        outcomes = list(game.chance_outcomes(state))
        if bug == "plain-average":                                      # the mistake
            return Fraction(sum(minimax_value(game, game.result(state, o), bug) for o, _ in outcomes),
                            len(outcomes))
        total = 0
        for outcome, p in outcomes:
            total += p * minimax_value(game, game.result(state, outcome), bug)
        return total
    values = [minimax_value(game, game.result(state, m), bug) for m in game.moves(state)]
    if game.turn(state) is Player.MAX or bug == "max-everywhere":     # the mistake
        return max(values)
    return min(values)


def minimax_decision(game, state, bug=None):
    maximizing = game.turn(state) is Player.MAX or bug == "root-max"   # the mistake
    best_value, best_move = None, None
    for move in game.moves(state):
        v = minimax_value(game, game.result(state, move), bug)
        if best_move is None:
            better = True
        elif bug == "last-tie":                                         # the mistake
            better = v >= best_value if maximizing else v <= best_value
        else:
            better = v > best_value if maximizing else v < best_value
        if better:
            best_value, best_move = v, move
    return best_value, best_move


def alphabeta_decision(game, state, bug=None):
    def value(s, alpha, beta):
        if game.is_terminal(s):
            return game.utility(s)
        if game.turn(s) is Player.MAX or bug == "max-everywhere":     # the mistake
            v = -INF
            for move in game.moves(s):
                v = max(v, value(game.result(s, move), alpha, beta))
                if bug == "update-first":                               # the mistake
                    alpha = max(alpha, v)
                    if v >= alpha:
                        return v
                if bug != "no-cut" and (v > beta if bug == "strict-cut" else v >= beta):
                    return v
                alpha = max(alpha, v)
        else:
            v = INF
            for move in game.moves(s):
                v = min(v, value(game.result(s, move), alpha, beta))
                if bug == "update-first":
                    beta = min(beta, v)
                    if v <= beta:
                        return v
                if bug != "no-cut" and (v < alpha if bug == "strict-cut" else v <= alpha):
                    return v
                beta = min(beta, v)
        return v

    maximizing = game.turn(state) is Player.MAX or bug == "root-max"   # the mistake
    alpha, beta = -INF, INF
    best_value, best_move = None, None
    for move in game.moves(state):
        if bug == "root-window":                                        # the mistake
            v = value(game.result(state, move), -INF, INF)
        else:
            v = value(game.result(state, move), alpha, beta)
        if best_move is None:
            better = True
        elif bug == "last-tie":                                         # the mistake
            better = v >= best_value if maximizing else v <= best_value
        else:
            better = v > best_value if maximizing else v < best_value
        if better:
            best_value, best_move = v, move
        if maximizing:
            alpha = max(alpha, best_value)
        else:
            beta = min(beta, best_value)
    return best_value, best_move


def bounded_search(game, state, epsilon, bug=None):
    """Bounded Alpha-Beta as assignment 4 states it (Star1 with epsilon 0): (L, U, move)."""
    vmin, vmax = game.vmin, game.vmax
    root_children = []

    def search(s, alpha, beta, at_root=False):
        if game.is_terminal(s):
            u = game.utility(s)
            return u, u
        player = game.turn(s)
        L, U = vmin, vmax
        best_U, best_L = vmin, vmax
        if player is Player.CHANCE:
            children = list(game.chance_outcomes(s))
        else:
            children = [(move, None) for move in game.moves(s)]
        for k, (move, p) in enumerate(children):
            if player is not Player.CHANCE or bug == "chance-parent-window":   # (the mistake)
                child_alpha, child_beta = alpha, beta
            elif bug == "chance-initial-window":                        # the mistake
                child_alpha = max(vmin, (alpha - vmax) / p + vmax)
                child_beta = min(vmax, (beta - vmin) / p + vmin)
            elif bug == "chance-swapped-window":                        # the mistake
                child_alpha = max(vmin, (alpha - L) / p + vmin)
                child_beta = min(vmax, (beta - U) / p + vmax)
            else:
                child_alpha = max(vmin, (alpha - U) / p + vmax)
                child_beta = min(vmax, (beta - L) / p + vmin)
            Lc, Uc = search(game.result(s, move), child_alpha, child_beta)
            if at_root:
                root_children.append((move, Lc, Uc))
            if player is Player.MAX:
                best_U = max(best_U, Uc)
                L = max(L, Lc)
            elif player is Player.MIN:
                best_L = min(best_L, Lc)
                U = min(U, Uc)
            else:
                L = L + p * (Lc - vmin)
                U = U - p * (vmax - Uc)
            if bug != "no-narrowing":                                   # (the mistake)
                alpha = max(L, alpha)
                beta = min(U, beta)
            eps = 0 if bug == "epsilon-ignored" else epsilon            # (the mistake)
            prune = beta < alpha + eps if bug == "strict-prune" else beta <= alpha + eps
            if player is Player.CHANCE and bug == "no-chance-prune":   # the mistake
                prune = False
            last = k == len(children) - 1
            if prune and (not last or bug == "prune-last"):             # (the mistake)
                if bug == "pruned-best":                                # the mistake
                    if player is Player.MAX:
                        U = best_U
                    elif player is Player.MIN:
                        L = best_L
                return L, U
        if bug != "keep-bounds":                                        # (the mistake)
            if player is Player.MAX:
                U = best_U
            elif player is Player.MIN:
                L = best_L
        return L, U

    L, U = search(state, vmin, vmax, at_root=True)
    if bug == "lower-is-U":                                             # the mistake
        L = U
    if game.turn(state) is Player.CHANCE:
        return L, U, None
    maximizing = game.turn(state) is Player.MAX
    best = None
    for move, Lc, Uc in root_children:
        if bug == "move-by-U":                                          # the mistake
            better = best is None or (Uc > best[2] if maximizing else Lc < best[1])
        else:
            better = best is None or (Lc > best[1] if maximizing else Uc < best[2])
        if better:
            best = (move, Lc, Uc)
    return L, U, best[0]


def star1_decision(game, state, bug=None):
    L, _, move = bounded_search(game, state, 0, bug)
    return L, move


# =============================================================================================
# the assignments' cases, as the notebooks give them (visible first)
# =============================================================================================
def _cases(task: str) -> list[Case]:
    if task == "minimax_value":
        return textbook_cases("minimax") + exercise_cases(1, 6, values=(0, 2), roots=("max", "min"),
                                                          leaf_probability=0.3)
    if task == "minimax_decision":
        return (textbook_cases("minimax") + exercise_cases(2, 6, values=(0, 2), roots=("min", "max"))
                + tictactoe_cases(1, 1, marks=4))
    if task == "expectimax_value":
        return textbook_cases("chance") + exercise_cases(301, 6, chance=0.5, roots=("max", "min"))
    if task == "alphabeta_decision":
        return (textbook_cases("minimax") + [Case("ties", parse_tree([[3, 5], [3, 9]])),
                                             Case("the move", parse_tree([[3], [3, 1]]))]
                + exercise_cases(202, 8, values=(0, 2), roots=("max", "min"), leaf_probability=0.2)
                + tictactoe_cases(2, 1, marks=4))
    if task == "star1_decision":
        return (textbook_cases("chance") + exercise_cases(3, 4, values=(0, 3), roots=("max", "min"))
                + exercise_cases(8, 1, chance=0.6, values=(0, 4))
                + exercise_cases(4, 4, chance=0.6, values=(0, 4), roots=("max", "min"))
                + pig_cases([(3, 2, 2)]))
    if task == "bab_search":
        return (textbook_cases("bounded")
                + exercise_cases(5, 4, values=(0, 3), roots=("max", "min"), epsilons=(0, 1))
                + exercise_cases(6, 4, chance=0.5, values=(0, 8), epsilons=(1, 2))
                + [Case("three MIN nodes", parse_tree({"tree": [[4, 1, 3], [7, 4, 8], [5, 3]],
                                                       "bounds": [0, 9]}), epsilon=2)]
                + exercise_cases(404, 6, values=(0, 9), roots=("max", "min"), epsilons=(1, 2, 3)))
    raise KeyError(task)


def _student(task: str, bug: str):
    if task == "minimax_value":
        return lambda game, state: minimax_value(game, state, bug)
    if task == "expectimax_value":
        return lambda game, state: minimax_value(game, state, bug)
    if task == "minimax_decision":
        return lambda game, state: minimax_decision(game, state, bug)
    if task == "alphabeta_decision":
        return lambda game, state: alphabeta_decision(game, state, bug)
    if task == "star1_decision":
        return lambda game, state: star1_decision(game, state, bug)
    return lambda game, state, epsilon: bounded_search(game, state, epsilon, bug)


#: Each catalogue mistake, and the exercise whose student makes it.
CATALOGUE = {
    "max-everywhere": "minimax_value",
    "root-max": "minimax_decision",
    "last-tie": "alphabeta_decision",
    "strict-cut": "alphabeta_decision",
    "root-window": "alphabeta_decision",
    "no-cut": "alphabeta_decision",
    "update-first": "alphabeta_decision",
    "plain-average": "expectimax_value",
    "strict-prune": "star1_decision",
    "epsilon-ignored": "bab_search",
    "prune-last": "bab_search",
    "keep-bounds": "star1_decision",
    "pruned-best": "bab_search",
    "no-narrowing": "star1_decision",
    "no-chance-prune": "star1_decision",
    "chance-parent-window": "star1_decision",
    "chance-initial-window": "star1_decision",
    "chance-swapped-window": "bab_search",
    "move-by-U": "bab_search",
    "lower-is-U": "bab_search",
}

#: Failing cases checked per mistake (the first ones, as a student meets them).
CHECKED = 3


def test_every_catalogue_mistake_has_a_student():
    assert set(CATALOGUE) == set(MISTAKES), set(MISTAKES) ^ set(CATALOGUE)


def test_the_students_without_a_mistake_pass():
    for task in sorted(set(CATALOGUE.values())):
        for case in _cases(task):
            comp = compare(TASKS[task], _student(task, None), case)
            assert comp.ok, comp.message()


def _offered(text: str) -> list[str]:
    """The drill calls a message offers, as a student pastes them (wrapped lines joined)."""
    lines = text.split("\n")
    calls, k = [], 0
    while k < len(lines):
        if "drill(" in lines[k] and not lines[k].startswith(("#", " ")):
            call = [lines[k]]
            while k + 1 < len(lines) and lines[k + 1].startswith("  "):
                k += 1
                call.append(lines[k])
            calls.append("\n".join(call))
        k += 1
    return calls


def _build(call: str):
    """The drill a pasted call builds (``drill(`` becomes ``make_drill(``, imports kept)."""
    namespace: dict = {"make_drill": make_drill}
    source = call.replace("from course.widgets import drill; ", "").replace("drill(", "_ = make_drill(", 1)
    exec(source, namespace)
    return namespace["_"]


@pytest.mark.parametrize("key", sorted(CATALOGUE))
def test_a_student_with_the_mistake_is_told_it_and_gets_a_drill_that_catches_it(key):
    task = TASKS[CATALOGUE[key]]
    student = _student(CATALOGUE[key], key)
    checked = 0
    for case in _cases(CATALOGUE[key]):
        comp = compare(task, student, case)
        if comp.ok:
            continue
        checked += 1
        text = comp.message()
        assert comp.diagnosis is not None, text
        named = [m.key for m in comp.diagnosis.named]
        assert key in named, text
        for other in comp.diagnosis.named:           # every mistake named reproduces the record
            assert reproduces(other, task, comp.case, comp.run.events, comp.run.returned), (other.key, text)
        if comp.reference is not None and "the visits are the reference's" in text:
            assert [e for e in comp.run.events] == _reference_events(comp), text
        offers = [o for o in comp.offers if key in o.catches]
        assert offers, text
        calls = _offered(text)
        assert {o.call for o in comp.offers} <= {" ".join(c.split()) for c in calls} | \
            {c for c in calls}, (calls, text)
        for offer in comp.offers:                    # the drill the message prints, built as pasted
            drill = _build(offer.call)
            for caught in offer.catches:
                assert catches(drill, MISTAKES[caught]), (caught, offer.call)
            if key in offer.catches and offer.kind in _LEAF_KINDS.get(task.reference, ()):
                assert _student_leaves_wrong(task, student, drill), offer.call
        if checked >= CHECKED:
            break
    assert checked, f"the {key} student passes every case of {CATALOGUE[key]}"


#: Drill kinds a student's own code answers by running on the drill's tree: the leaves it never
#: evaluates (the search families where that answer is the student's search's).
_LEAF_KINDS = {"alphabeta": ("pruning",), "star1": ("bab",), "bab": ("bab",)}


def _student_leaves_wrong(task, student, drill) -> bool:
    """The student's own code, run on the drill's tree: do the leaves it never evaluates answer
    the drill wrongly?  (The simulation stands for the student's mental model; this checks that
    it also stands for the student's code on the drill's tree.)"""
    from course.grading.checks.compare import run_student

    epsilon = drill.epsilon if task.takes_epsilon else None
    if task.reference == "star1" and drill.epsilon:
        return True                       # a BAB drill with epsilon > 0 is not Star1's question
    run = run_student(task, student, Case("drill", drill.game, epsilon=epsilon))
    seen = {path for kind, path in run.events if kind == "leaf"}
    answer = [drill.names[leaf.path] for leaf in drill.game.root.leaves() if leaf.path not in seen]
    return not drill.check(answer).correct


def _reference_events(comp) -> list:
    from course.grading.checks.compare import _RefIndex

    return _RefIndex(comp.reference).events


# =============================================================================================
# the two realistic bugs of issue 30, before and after
# =============================================================================================
def test_the_root_searching_every_child_with_the_full_window():
    """a2-test-move: the message named "every node takes the largest child value" first, said the
    search was the reference's, and offered a minimax drill this student answers right."""
    case = Case("the move", parse_tree([[3], [3, 1]]))
    comp = compare(TASKS["alphabeta_decision"], _student("alphabeta_decision", "root-window"), case)
    text = " ".join(comp.message().split())
    assert "root-window" in [m.key for m in comp.diagnosis.named]
    assert "the search itself is the reference's" not in text
    assert "the visits are the reference's" not in text
    assert ("with this mistake your search enters node (1,) with alpha = -inf, beta = inf; the reference enters it "
            "with alpha = 3, beta = inf") in text
    assert ('Practise the rule on this tree (paste into a cell): from course.widgets import drill; '
            'drill("pruning", tree=[[3], [3, 1]], focus=(1,))') in text
    assert "(Checked: a search with any of the mistakes (a), (b) and (c) gets this drill wrong.)" in text
    old = make_drill("minimax", tree=[[3], [3, 1]], focus=())      # what it offered before
    assert not catches(old, MISTAKES["root-window"])
    assert catches(make_drill("pruning", tree=[[3], [3, 1]]), MISTAKES["root-window"])
    assert catches(make_drill("root", tree=[[3], [3, 1]]), MISTAKES["root-window"])


def test_the_chance_window_from_vmin_and_vmax():
    """a3-test-star1-chance: the Star1 drill it offered asks L and U after each child and the
    cut, the same with and without this bug; the c6 drill asks the windows."""
    case = exercise_cases(8, 1, chance=0.6, values=(0, 4))[0]
    comp = compare(TASKS["star1_decision"], _student("star1_decision", "chance-initial-window"), case)
    text = comp.message()
    assert [m.key for m in comp.diagnosis.named] == ["chance-initial-window"]
    (offer,) = comp.offers
    assert offer.kind == "c6" and re.search(r'drill\("c6", tree=.*, node=\(1, 0\)\)', offer.call)
    drill = _build(offer.call)
    assert catches(drill, MISTAKES["chance-initial-window"])
    old = make_drill("star1", tree=case.game, node=(1, 0))          # what it offered before
    assert not catches(old, MISTAKES["chance-initial-window"])
    assert "(Checked: a search with this mistake gets this drill wrong.)" in text


# =============================================================================================
# the models and the drills agree; a run no mistake reproduces is checked against its own record
# =============================================================================================
@pytest.mark.parametrize("kind", sorted(__import__("course.drills", fromlist=["KINDS"]).KINDS))
def test_a_search_without_a_mistake_answers_every_drill_right(kind):
    """The simulations (``simulate``) and the drills (``answer_from``, ``check``) agree: the
    correct search's record answers every drill right, at every level."""
    from course.grading.checks.diagnose import model_answer, simulate

    probe = make_drill(kind, level=1, seed=1)
    if simulate(probe.family, Case("drill", probe.game)) is None:
        # a search the simulations do not know (Star2: no exercise writes it): feedback can
        # check no mistake against this kind, so no mistake may offer it
        assert probe.family == "star2", f"{kind}: no simulation of {probe.family!r}"
        assert not [m.key for m in MISTAKES.values() if kind in m.drills]
        return
    for level in (1, 2, 3, 4, 5):
        for seed in (1, 2):
            drill = make_drill(kind, level=level, seed=seed)
            verdict = drill.check(model_answer(drill))
            assert verdict.correct, (drill.code, verdict.explanation)


def test_without_a_named_mistake_the_drill_is_checked_against_the_record():
    """A mistake outside the catalogue (below a MIN node the children get alpha = -inf): no
    mistake is named; the drill offered is one the student's own visits answer wrongly."""
    def forgets_alpha(game, state):
        def value(s, alpha, beta):
            if game.is_terminal(s):
                return game.utility(s)
            if game.turn(s) is Player.MAX:
                v = -INF
                for m in game.moves(s):
                    v = max(v, value(game.result(s, m), alpha, beta))
                    if v >= beta:
                        return v
                    alpha = max(alpha, v)
            else:
                v = INF
                for m in game.moves(s):
                    v = min(v, value(game.result(s, m), -INF, beta))       # the mistake
                    if v <= alpha:
                        return v
                    beta = min(beta, v)
            return v
        best = None
        for m in game.moves(state):
            v = value(game.result(state, m), best[0] if best else -INF, INF)
            if best is None or v > best[0]:
                best = (v, m)
        return best

    offered = 0
    for case in exercise_cases(21, 30, depth=4, values=(0, 9)):
        comp = compare(TASKS["alphabeta_decision"], forgets_alpha, case)
        if comp.ok or comp.diagnosis is not None:
            continue
        text = comp.message()
        assert "Likely mistake" not in text
        for offer in comp.offers:
            assert offer.catches == ("record",) and offer.kind == "pruning"
            drill = _build(offer.call)
            leaves = {p for kind, p in comp.run.events if kind == "leaf"}
            answer = [drill.names[leaf.path] for leaf in drill.game.root.leaves()
                      if leaf.path not in leaves]
            assert not drill.check(answer).correct          # the student's leaves, checked wrong
            assert "(Checked: what your search visited gives a wrong answer in this drill.)" in text
            offered += 1
    assert offered, "no run without a named mistake got a drill"


def test_under_the_strict_rule_no_mistake_and_no_drill_of_the_courses_rule():
    """An instructor may grade by CS188's strict rule (check(..., strict=True)): the catalogue's
    words and the drills state the course's rule (cut on equality), so none is offered there."""
    from course.grading.checks.searches import _task

    task = _task("alphabeta_decision", True)
    failed = 0
    for case in _cases("alphabeta_decision"):
        comp = compare(task, _student("alphabeta_decision", "root-window"), case)
        if comp.ok:
            continue
        failed += 1
        assert comp.diagnosis is None and comp.offers == ()
        assert "Likely mistake" not in comp.message() and "drill(" not in comp.message()
    assert failed


# =============================================================================================
# a slip outside the catalogue that visits what a catalogue mistake visits (found in review)
# =============================================================================================
def _star1_clamps_swapped(windows: dict, slip: str = "clamps"):
    """Star1 with C6's clamps the wrong way round, min(vmin, ...) and max(vmax, ...): a chance
    node's children are never cut by their window (``slip="c3-no-vmin"``: C3 written
    ``L += p * Lc`` instead, right whenever vmin = 0).  ``windows`` collects ``(path, child) ->
    window`` where the states carry their paths (explicit trees, unrecorded)."""
    def star1_decision(game, state):
        vmin, vmax = game.vmin, game.vmax
        root_children = []

        def search(s, alpha, beta, at_root=False):
            if game.is_terminal(s):
                u = game.utility(s)
                return u, u
            player = game.turn(s)
            L, U, best_U, best_L = vmin, vmax, vmin, vmax
            if player is Player.CHANCE:
                children = list(game.chance_outcomes(s))
            else:
                children = [(m, None) for m in game.moves(s)]
            for k, (move, p) in enumerate(children):
                if player is Player.CHANCE and slip == "clamps":
                    window = (min(vmin, (alpha - U) / p + vmax),           # the slip
                              max(vmax, (beta - L) / p + vmin))
                elif player is Player.CHANCE:
                    window = (max(vmin, (alpha - U) / p + vmax), min(vmax, (beta - L) / p + vmin))
                else:
                    window = (alpha, beta)
                if hasattr(s, "path"):
                    windows[(s.path, k)] = window
                Lc, Uc = search(game.result(s, move), *window)
                if at_root:
                    root_children.append((move, Lc, Uc))
                if player is Player.MAX:
                    best_U, L = max(best_U, Uc), max(L, Lc)
                elif player is Player.MIN:
                    best_L, U = min(best_L, Lc), min(U, Uc)
                elif slip == "c3-no-vmin":
                    L, U = L + p * Lc, U - p * (vmax - Uc)                   # the slip
                else:
                    L, U = L + p * (Lc - vmin), U - p * (vmax - Uc)
                alpha, beta = max(L, alpha), min(U, beta)
                if beta <= alpha and k < len(children) - 1:
                    return L, U
            if player is Player.MAX:
                U = best_U
            elif player is Player.MIN:
                L = best_L
            return L, U

        L, _ = search(state, vmin, vmax, at_root=True)
        if game.turn(state) is Player.CHANCE:
            return L, None
        best = None
        for move, Lc, Uc in root_children:
            if best is None or (Lc > best[1] if game.turn(state) is Player.MAX else Uc < best[2]):
                best = (move, Lc, Uc)
        return L, best[0]
    return star1_decision


def test_a_slip_that_visits_like_a_catalogue_mistake_is_told_as_that_mistake_s_window():
    """Swapped C6 clamps visit exactly what "chance-initial-window" visits on a3-test-star1-chance's
    first tree, so that mistake is named (it reproduces the record); but the windows are the
    mistake's, not the student's (a record shows visits, not windows): the message says "with this
    mistake your search enters ...", never "your search entered ...".  The c6 drill it offers,
    answered with the student's own windows, is wrong too."""
    case = exercise_cases(8, 1, chance=0.6, values=(0, 4))[0]
    comp = compare(TASKS["star1_decision"], _star1_clamps_swapped({}), case)
    text = " ".join(comp.message().split())
    assert [m.key for m in comp.diagnosis.named] == ["chance-initial-window"]
    assert "with this mistake your search enters node (1, 0, 2)" in text
    assert "your search entered node" not in text
    # what the record itself says at the node where the visits part (true of the slip too)
    assert ("Your search went on, so its test did not fire there: its beta was above its alpha. "
            "The reference's numbers there (after child 0: L = 3, U = 4) fire it, so your L or U "
            "after that child, or the window your search entered the node with, differs from the "
            "reference's; the reference entered it with alpha = 1, beta = 5/2.") in text
    (offer,) = comp.offers
    drill = _build(offer.call)
    windows: dict = {}
    _star1_clamps_swapped(windows)(drill.game, drill.game.initial_state())
    node = drill._node
    answer = {drill.names[c]: windows.get((node, c[-1])) for c in drill._children()}
    verdict = drill.check(answer)
    assert not verdict.correct, answer


def test_a_bounded_search_that_stops_early_is_told_which_test_fired():
    """No catalogue mistake is C3 without "- vmin": the message names none, but says what the
    record shows at the node where the visits part (as alpha-beta's messages do)."""
    case = textbook_cases("chance")[0]                  # one chance node, bounds [8, 24]
    comp = compare(TASKS["star1_decision"], _star1_clamps_swapped({}, "c3-no-vmin"), case)
    text = " ".join(comp.message().split())
    assert comp.diagnosis is None and "Likely mistake" not in text
    assert ("Your search stopped, so its test fired there: its beta was at or below its alpha. "
            "The reference's numbers there (after child 1: L = 40/3, U = 16) do not fire it, so "
            "your L or U after that child, or the window your search entered the node with, "
            "differs from the reference's.") in text


def test_strass_s_slide_rule_strict_at_min_only():
    """Strass's slide prints MIN's test as v < alpha (appendix, D2): a student who copies it
    fails a2-test-ties with a message whose named mistakes reproduce the record (strict-cut does
    on this tree: no MAX node meets its beta) and whose hint names the strict test at MIN."""
    def strass(game, state):
        def value(s, alpha, beta):
            if game.is_terminal(s):
                return game.utility(s)
            if game.turn(s) is Player.MAX:
                v = -INF
                for m in game.moves(s):
                    v = max(v, value(game.result(s, m), alpha, beta))
                    if v >= beta:
                        return v
                    alpha = max(alpha, v)
            else:
                v = INF
                for m in game.moves(s):
                    v = min(v, value(game.result(s, m), alpha, beta))
                    if v < alpha:                                   # Strass's slide
                        return v
                    beta = min(beta, v)
            return v
        best = None
        for m in game.moves(state):
            v = value(game.result(state, m), best[0] if best else -INF, INF)
            if best is None or v > best[0]:
                best = (v, m)
        return best

    comp = compare(TASKS["alphabeta_decision"], strass, Case("ties", parse_tree([[3, 5], [3, 9]])))
    text = " ".join(comp.message().split())
    assert "strict-cut" in [m.key for m in comp.diagnosis.named]
    for named in comp.diagnosis.named:
        assert reproduces(named, TASKS["alphabeta_decision"], comp.case, comp.run.events,
                          comp.run.returned)
    assert ("Your search went on, so its test did not fire: with v = 3 its alpha there was below 3 "
            "(or it cuts only on a strict inequality, v < alpha); the reference has alpha = 3.") in text
