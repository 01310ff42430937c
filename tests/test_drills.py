"""Practice drills (course.drills): each kind generates, checks and explains.

* Generation: every kind at every level draws a tree of the promised size from
  its seed alone (the same tree for the same code on any machine: pinned
  below), and a question worth asking (something pruned, a window that moved).
* Checking: the reference's own answer is right; every one-part mistake is
  wrong, marked, and explained at the first place it differs, naming the node
  that decided and highlighting it.
* Explanations on textbook trees, word for word where the words matter.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from course import parse_tree, tree_to_obj
from course.drills import KINDS, LEVELS, Progress, make_drill, parse_number
from course.drills.numbers import AnswerError, fmt, same
from course.errors import ParameterError
from course.examples import aima_figure_5_2, bab_figure3, chance_note_game
from course.grading.checks.diagnose import Case, simulate

SEEDS = range(6)
CASES = [(kind, level, seed) for kind in KINDS for level in LEVELS for seed in SEEDS]


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- generation ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_levels_grow_from_four_leaves_to_depth_four(kind):
    first = make_drill(kind, level=1, seed=3)
    assert len(first.game.root.leaves()) == 4 and first.game.root.height() == 2
    last = make_drill(kind, level=5, seed=3)
    assert last.game.root.height() == 4
    assert last.game.has_chance == (kind in ("minimax", "star1", "c6", "bab", "bounds", "star2"))
    sizes = [sum(len(make_drill(kind, level=lv, seed=s).game.root.leaves()) for s in range(5))
             for lv in LEVELS]
    assert sizes[0] < sizes[1] <= sizes[2] <= max(sizes[3:]), sizes


def test_the_same_code_gives_the_same_drill_everywhere():
    """Share codes are stable: these trees come from numpy's PCG64 written in pure Python."""
    pinned = {
        "pruning-1-7": {"max": [{"min": [8, 9]}, {"min": [8, 0]}]},
        "star1-2-31": {"max": [{"chance": [[0.25, 5], [0.25, 0], [0.5, 0]]},
                               {"chance": [[0.5, 7], [0.5, 1]]}]},
    }
    for code, tree in pinned.items():
        d = make_drill(code=code)
        assert tree_to_obj(d._plain_for_recipe(), with_bounds=False) == \
            tree_to_obj(parse_tree(tree), with_bounds=False), code
        assert make_drill(code=code).expected == d.expected
    assert make_drill("pruning", level=1, seed=7).code == "pruning-1-7"


def test_kinds_draw_different_trees_from_one_seed():
    trees = {json.dumps(tree_to_obj(make_drill(k, level=2, seed=9)._plain_for_recipe()),
                        default=str) for k in KINDS}
    assert len(trees) == len(KINDS)


@pytest.mark.parametrize("kind, level, seed", CASES)
def test_every_drill_is_worth_asking_and_its_own_answer_is_right(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    verdict = d.check(d.expected)
    assert verdict.correct, verdict.explanation
    assert verdict.explanation.startswith("Right") and verdict.right == verdict.total > 0
    assert d.question and d.tree_text().count("\n") >= d.game.root.size - 1
    if kind in ("pruning", "bab"):
        assert d.expected, "a pruning drill where nothing is pruned asks nothing"
    if kind == "star1":
        assert all(c.is_leaf for c in d.node(d.chance_node).children)
    # the form holds the same answer
    assert d.check_form(_form(d, d.expected)).correct


def _form(d, answer) -> dict:
    """The form values (text boxes, ticks) that say ``answer``: every field, empty ones too."""
    values = d.form(answer)
    assert set(values) == {f.id for f in d.fields()}
    return values


# --- every one-part mistake is caught and explained at the node that decided ----------------------
def _ancestors(path):
    return {path[:k] for k in range(len(path))}


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] in ("pruning", "bab")])
def test_leaf_drills_explain_each_flipped_leaf(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    skipped = set(d.expected)
    for leaf in d.game.root.leaves():
        name = d.names[leaf.path]
        answer = skipped ^ {name}
        v = d.check(answer)
        assert not v.correct and v.wrong == (name,), (name, v)
        text = v.explanation
        assert text.startswith(f"{name} is "), text
        assert v.node in _ancestors(leaf.path), (name, v.node)
        assert d.names[v.node] in text
        assert v.upto is not None and 0 < v.upto <= len(d.reference.trace)
        if name in skipped:        # the student thought it was looked at: the cut-off is named
            assert "never looked at" in text and ("≤" in text or "≥" in text)
        else:
            assert "goes on to" in text or "first child" in text


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "minimax"])
def test_minimax_drills_explain_each_wrong_value(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    for name, value in d.expected.items():
        if name == "move":
            continue
        answer = dict(d.expected, **{name: value + 1})
        v = d.check(answer)
        assert not v.correct and v.wrong == (name,)
        assert v.node == d.paths[name] and v.explanation.startswith(f"{name} (")
        assert f"= {fmt(value)} (not {fmt(value + 1)})" in v.explanation
    if "move" in d.expected:
        others = [c for c in d.game.root.children if d.names[c.path] != d.expected["move"]]
        v = d.check(dict(d.expected, move=d.names[others[0].path]))
        assert v.wrong == ("move",) and d.expected["move"] in v.explanation


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "window"])
def test_window_drills_explain_each_wrong_window(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    for name, window in d.expected.items():
        if window is None:
            answer = dict(d.expected, **{name: (0, 1)})
            v = d.check(answer)
            assert v.wrong == (f"{name}.skip",)
            assert v.explanation.startswith(f"{name} is never entered.")
            continue
        alpha, beta = window
        wrong_alpha = alpha + 1 if math.isfinite(alpha) else 0
        v = d.check(dict(d.expected, **{name: (wrong_alpha, beta)}))
        assert not v.correct and v.wrong == (f"{name}.alpha",)
        assert v.node == d.paths[name]
        assert v.explanation.startswith(f"{name} is entered with α = {fmt(alpha)}, β = {fmt(beta)}")
        assert d.names[d.paths[name][:-1]] in v.explanation        # the parent it came from
        v = d.check(dict(d.expected, **{name: None}))
        assert v.wrong == (f"{name}.skip",) and v.explanation.startswith(f"{name} is entered.")


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "star1"])
def test_star1_drills_explain_each_wrong_bound_and_cut(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    rows, stop = d.expected["rows"], d.expected["stop"]
    children = [d.names[c.path] for c in d.node(d.chance_node).children]
    for k, (lo, hi) in enumerate(rows):
        for part, bad in (("L", (lo + 1, hi)), ("U", (lo, hi - 1))):
            wrong_rows = list(rows)
            wrong_rows[k] = bad
            v = d.check({"rows": wrong_rows, "stop": stop})
            assert not v.correct and v.wrong == (f"row{k + 1}.{part}",)
            assert v.explanation.startswith(f"After {children[k]} (probability")
            assert f"L = {fmt(lo)} and U = {fmt(hi)}" in v.explanation
    others = [c for c in children[:-1] if c != stop] + ([None] if stop else [])
    for other in others:
        v = d.check({"rows": rows, "stop": other})
        assert "stop" in v.wrong and not v.correct
        assert ("prunes" in v.explanation) == (stop is not None and (
            other is None or children.index(other) > children.index(stop)))


# --- explanations on the textbook trees -------------------------------------------------------------
def test_pruning_explains_the_cut_that_skips_a_leaf():
    d = make_drill("pruning", tree=aima_figure_5_2())
    v = d.check([])
    assert v.node == (1,) and v.wrong == ("C2", "C3")
    assert _flat(v.explanation) == (
        "C2 is never looked at. At C (MIN), after child C1 returned 2, the value so far is v = 2 ≤ "
        "α = 3 (α = 3 is what MAX at A is already sure of: its child B is worth 3): MAX will never "
        "let the game reach C, so it stops and C2 and C3 are never looked at.")
    v = d.check(["C2", "C3", "D2"])
    assert v.node == (2,) and "v = 14 > α = 3, so there is no cut-off and D goes on to D2" in v.explanation


def test_pruning_follows_the_move_ordering():
    given = make_drill("pruning", tree=aima_figure_5_2())
    best = make_drill("pruning", tree=aima_figure_5_2(), order="best-first")
    backwards = make_drill("pruning", tree=aima_figure_5_2(), order="reversed")
    assert given.expected == ["C2", "C3"]
    assert best.expected == ["C2", "C3", "D1", "D2"] and best.check(best.expected).correct
    assert "right to left" in backwards.question
    assert backwards.expected != given.expected and backwards.check(backwards.expected).correct


def test_a_marked_inner_node_stands_for_its_leaves():
    d = make_drill("pruning", tree=aima_figure_5_2())
    assert d.check(["C2", "C3"]).correct and d.check([(1, 1), (1, 2)]).correct
    v = d.check(["C"])
    assert v.wrong == ("C1",) and "C1 is looked at (it lies below C)" in v.explanation
    assert v.node == ()       # the root decided to go on to C


def test_window_explains_where_alpha_comes_from():
    d = make_drill("window", tree=aima_figure_5_2())
    v = d.check({"B": ("-inf", "inf"), "C": ("-inf", "inf"), "D": (3, "inf")})
    assert v.node == (1,) and v.wrong == ("C.alpha",)
    assert _flat(v.explanation) == (
        "C is entered with α = 3, β = +∞, not α = −∞, β = +∞. C is the 2nd child A searches: after "
        "child B returned 3, A (MAX) has α = max(α, v) = 3 and β = +∞, the window it passes on to C.")


def test_minimax_explains_the_rule_and_the_tie():
    d = make_drill("minimax", tree=[[3, 5], [3, 9]])
    v = d.check({"A": 3, "B": 3, "C": 3, "move": "C"})
    assert v.wrong == ("move",)
    assert "B and C are all worth 3: on a tie the move is the first of them" in v.explanation
    d = make_drill("minimax", tree={"chance": [[Fraction(1, 4), 8], [Fraction(3, 4), 4]]})
    v = d.check({"A": 6})
    assert "1/4·8 + 3/4·4 = 5 (not 6)" in v.explanation and "move" not in d.expected


def test_star1_explains_the_chance_bounds_and_the_cut():
    d = make_drill("star1", tree=chance_note_game(u_a2_c1=-1), node=(1,))
    assert d.expected == {"rows": [(-1, Fraction(-3, 5))], "stop": "F"}
    v = d.check({"rows": [(-1, "-3/5"), (0, 0)], "stop": None})
    assert v.wrong == ("row2.L", "row2.U", "stop") and v.node == (1,)
    assert "β = −3/5 ≤ α = −1/2, and F is not C's last child, so C prunes: G is never looked at" \
        in v.explanation
    v = d.check({"rows": [(-1, "-1/2")], "stop": "F"})
    assert v.wrong == ("row1.U",) and v.node == (1, 0)
    assert "U = 1 − 4/5·(1 − (−1)) = −3/5" in v.explanation
    assert "ε" not in v.explanation and "epsilon" not in v.explanation


def test_bab_explains_the_epsilon_test():
    d = make_drill("bab", tree=bab_figure3(), epsilon=2)
    v = d.check([])
    assert v.node == (1, 0) and v.wrong == ("D",)
    assert "β = 10 ≤ α + ε = 8 + 2 = 10, and 8 is not C's last child, so C prunes" in v.explanation
    d = make_drill("bab", tree=bab_figure3(), epsilon=1)
    v = d.check(["D", "E"])
    assert "β = 10 > α + ε = 8 + 1 = 9, so C does not prune and goes on to D" in v.explanation


def test_recipes_rebuild_the_drill():
    from course.widgets import drill  # noqa: F401 - the recipe's name

    for d in (make_drill("bab", tree=bab_figure3(), epsilon=Fraction(1, 2)),
              make_drill("star1", tree=chance_note_game(), node=(1,)),
              make_drill("pruning", tree=aima_figure_5_2(), order="reversed", focus=(1,)),
              make_drill("window", level=3, seed=11)):
        call = d.recipe.replace("drill(", "make_drill(", 1)
        again = eval(call, {"make_drill": make_drill})
        assert again.expected == d.expected and again.question == d.question


# --- answers as students type them --------------------------------------------------------------
def test_numbers_as_typed():
    assert parse_number("−∞") == -math.inf and parse_number("+inf") == math.inf
    assert parse_number("7/2") == Fraction(7, 2) and parse_number(" -3 ") == -3
    assert same(parse_number("0.33"), Fraction(1, 3)) and not same(parse_number("0.3"), Fraction(1, 3))
    assert same(parse_number("3.5"), Fraction(7, 2)) and not same(3, Fraction(7, 2))
    for bad in ("", "3,5", "x", "1/0", "--2"):
        with pytest.raises(AnswerError):
            parse_number(bad)


def test_a_form_that_cannot_be_read_is_explained_not_raised():
    d = make_drill("minimax", tree=aima_figure_5_2())
    v = d.check_form({"A": "3", "B": "3,0", "C": "2", "D": "2", "move": "B"})
    assert not v.correct and v.wrong == ("B",) and "cannot read '3,0'" in v.explanation
    assert v.node == (0,)
    v = d.check_form({"A": "3", "B": "3", "C": "", "D": "2", "move": "B"})
    assert v.wrong == ("C",) and "(you left it empty)" in v.explanation


def test_bad_parameters_say_how_to_fix_them():
    with pytest.raises(ParameterError, match="unknown drill kind"):
        make_drill("alphabeta")
    with pytest.raises(ParameterError, match="level must be"):
        make_drill("window", level=0)
    with pytest.raises(ParameterError, match="not a drill code"):
        make_drill(code="pruning-seven")
    with pytest.raises(ParameterError, match="no chance nodes"):
        make_drill("pruning", tree=chance_note_game())
    with pytest.raises(ParameterError, match="needs a tree with a chance node"):
        make_drill("star1", tree=[[1, 2], [3, 4]])
    with pytest.raises(ParameterError, match="not a chance node"):
        make_drill("star1", tree=chance_note_game(), node=(1, 0))
    with pytest.raises(AnswerError, match="no node"):
        make_drill("pruning", tree=aima_figure_5_2()).check(["Z9"])


# --- streaks and mastery ---------------------------------------------------------------------------
def test_streaks_and_mastery_per_kind():
    p = Progress()
    for ok in (True, True, True, True, True):
        p.record("window", ok, level=2)
    p.record("pruning", False, level=1)
    w, q = p.stats("window"), p.stats("pruning")
    assert (w.streak, w.best, w.mastery, w.mastered) == (5, 5, 5, True)
    assert "try level 3" in w.line()
    assert (q.streak, q.attempts, q.mastered) == (0, 1, False)
    p.record("window", False, level=2)
    assert p.stats("window").streak == 0 and p.stats("window").best == 5
    assert p.stats("window").mastery == 4


# --- the kinds added for the misconception catalogue: root, c6, bounds ------------------------------
@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "root"])
def test_root_drills_ask_the_root_children_and_explain_the_running_window(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    inf = math.inf
    asked = list(d.expected)
    assert asked == [d.names[c.path] for c in d.game.root.children if not c.is_leaf]
    assert not any(f.kind == "toggle" for f in d.fields())      # the root never cuts
    full = {name: (-inf, inf) for name in asked}                 # the misconception
    v = d.check(full)
    assert not v.correct
    first = v.wrong[0].split(".")[0]
    assert d.expected[first] != (-inf, inf)
    assert v.explanation.startswith(f"{first} is entered with α = ")
    assert f"child {d.names[()]} searches" in v.explanation


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "c6"])
def test_c6_drills_explain_each_wrong_window(kind, level, seed):
    from course.theory.chance import chance_child_window

    d = make_drill(kind, level=level, seed=seed)
    n = d.chance_node
    children = [c.path for c in d.node(n).children]
    for c in children:                       # an inner child's window is its enter event's
        if c in d.index.enter:
            e = d.index.events[d.index.enter[c]]
            assert d.expected[d.names[c]] == (e.alpha, e.beta)
    vmin, vmax = d.game.vmin, d.game.vmax
    for k, c in enumerate(children):
        name, window = d.names[c], d.expected[d.names[c]]
        if window is None:
            v = d.check(dict(d.expected, **{name: (vmin, vmax)}))
            assert v.wrong == (f"{name}.skip",) and v.explanation.startswith(f"{name} is never searched.")
            continue
        v = d.check(dict(d.expected, **{name: (window[0] + 1, window[1])}))
        assert not v.correct and v.wrong == (f"{name}.alpha",) and v.node == c
        assert v.explanation.startswith(f"{name} gets α = {fmt(window[0])}, β = {fmt(window[1])}")
        assert "(α − U)/p + vmax" in v.explanation and "(β − L)/p + vmin" in v.explanation
        if k:            # the misconception: vmin and vmax for the chance node's current L and U
            state = d.index.events[d.index.updates[n][k - 1]]
            initial = chance_child_window(state.alpha, state.beta, vmin, vmax,
                                          d.node(n).probabilities[k], vmin, vmax)
            if initial != window:
                v = d.check(dict(d.expected, **{name: initial}))
                assert "its current bounds and window, not the initial vmin" in v.explanation
    assert d.worthwhile()


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "bounds"])
def test_bounds_drills_explain_each_wrong_bound(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    for name, pair in d.expected.items():
        if name == "move":
            continue
        if pair is None:
            v = d.check(dict(d.expected, **{name: (0, 1)}))
            assert v.wrong == (f"{name}.skip",) and v.explanation.startswith(f"{name} is never searched.")
            continue
        lo, hi = pair
        v = d.check(dict(d.expected, **{name: (lo, hi + 1)}))
        assert not v.correct and v.wrong == (f"{name}.U",) and v.node == d.paths[name]
        assert v.explanation.startswith(f"{name} (") and f"returns {'[' if lo != hi else ''}" in v.explanation
        kind_of = d.node(d.paths[name]).kind
        words = {"max": ("searched every child", "pruned after"), "min": ("searched every child",
                 "pruned after"), "chance": ("weighs its children's bounds",)}[kind_of]
        assert any(w in v.explanation for w in words), v.explanation
    if "move" in d.expected:
        others = [d.names[c.path] for c in d.game.root.children if d.names[c.path] != d.expected["move"]]
        v = d.check(dict(d.expected, move=others[0]))
        assert v.wrong == ("move",) and "the first child (in order) with the" in v.explanation


def test_bounds_explains_a_pruned_node_keeps_vmin():
    d = make_drill("bounds", tree={"tree": [[2, 7], [1, 5]], "bounds": [0, 9]})
    v = d.check({"A": (2, 2), "B": (2, 2), "C": (1, 1), "move": "B"})
    assert v.wrong == ("C.L",) and "it keeps L = vmin = 0" in v.explanation
    assert "β = 1 ≤ α = 2" in v.explanation


# --- every answer row is checked, and "Show answer" clears what the answer leaves empty ----------------
def test_a_star1_row_after_the_cut_is_wrong_and_the_answer_clears_it():
    d = make_drill(code="star1-1-76390")                 # C cuts after C1
    assert d.expected == {"rows": [(0, 3)], "stop": "C1"}
    typed = {"row1.L": "0", "row1.U": "3", "row2.L": "99", "row2.U": "-5", "stop": "C1"}
    v = d.check_form(typed)
    assert not v.correct and v.summary() == "3 of 5 right" and v.wrong == ("row2.L", "row2.U")
    assert v.explanation.startswith("C cuts after C1, so it never takes C2 in: the row after C2 "
                                    "stays empty. At C (chance), after child C1 returned 0")
    assert not d.check_form(dict(typed, **{"row2.L": "", "row2.U": "-5"})).correct
    assert d.check_form(dict(typed, **{"row2.L": "", "row2.U": ""})).correct
    assert d.form(d.expected) == {"row1.L": "0", "row1.U": "3", "row2.L": "", "row2.U": "",
                                  "stop": "C1"}
    # a row left empty before a filled one is still read (and explained)
    v = d.check_form({"row1.L": "", "row1.U": "", "row2.L": "0", "row2.U": "3", "stop": "C1"})
    assert v.wrong[:2] == ("row1.L", "row1.U") and "(you left it empty)" in v.explanation


def test_never_entered_with_a_window_typed_is_explained():
    d = make_drill("window", tree=aima_figure_5_2())
    values = d.form(d.expected)
    values.update({"B.skip": True})                       # B's window still typed in
    v = d.check_form(values)
    assert not v.correct and v.wrong == ("B.alpha",)
    assert "you ticked 'B is never entered' and gave B a window" in v.explanation


def test_every_kind_fills_every_field_of_its_form():
    for kind in KINDS:
        d = make_drill(kind, level=3, seed=2)
        assert set(d.form(d.expected)) == {f.id for f in d.fields()}, kind


# --- right to left: "first" is the first in the search order ------------------------------------------
def test_a_right_to_left_drill_says_first_in_the_search_order():
    d = make_drill("pruning", tree=aima_figure_5_2(), order="reversed")
    first_leaf = d.names[(2, 2)]                    # D3: D's first child right to left
    v = d.check(d.expected + [first_leaf])
    assert v.wrong == (first_leaf,)
    assert "its first child in the search order (right to left)" in v.explanation, v.explanation
    w = make_drill("window", tree=aima_figure_5_2(), order="reversed")
    v = w.check(dict(w.expected, D=(0, 1)))
    assert "D is the first child A searches (right to left)" in v.explanation, v.explanation


# --- Star2: the probing phase ------------------------------------------------------------------------
_PROBE_TREE = {"tree": {"max": [6, {"chance": [[Fraction(1, 2), {"min": [4, 9, 9]}],
                                               [Fraction(1, 2), {"min": [3, 9]}]]}]},
               "bounds": [0, 10]}


def test_star2_asks_the_probes_and_the_cut_before_any_outcome_is_searched():
    d = make_drill("star2", tree=_PROBE_TREE)
    assert d.expected == {"C": ("upper", 4, 0, 7), "D": ("upper", 3, 0, Fraction(7, 2)), "stop": "D"}
    # which bound: a MIN outcome's probe gives "at most"
    v = d.check(dict(d.expected, C=("lower", 4, 0, 7)))
    assert not v.correct and v.wrong == ("C.side",) and v.node == (1, 0)
    assert v.explanation.startswith("The probe shows that C is at most 4 (not C at least 4). "
                                    "C (MIN) is probed: only its first child, C1, is searched")
    # L and U count the probed outcomes by their probes' bounds
    v = d.check(dict(d.expected, D=("upper", 3, 0, 7)))
    assert v.wrong == ("D.U",) and "U = 1/2·4 + 1/2·3 = 7/2" in v.explanation
    # the cut in the probing phase
    v = d.check(dict(d.expected, stop=None))
    assert v.wrong == ("stop",) and "β = 7/2 ≤ α = 6, so B is cut in the probing phase" in v.explanation
    assert d.check_form(d.form(d.expected)).correct
    assert set(d.form(d.expected)) == {f.id for f in d.fields()}


def test_star2_a_star1_mental_model_answers_it_wrong():
    """A student who knows Star1 but not probing searches each outcome in full: the drill says
    where that differs from probing (issue 31: the Star2 drill must catch that model)."""
    d = make_drill("star2", tree=_PROBE_TREE)
    model = d.star1_answer()
    assert model == {"C": ("upper", 4, 2, 7), "D": ("upper", 3, 2, Fraction(7, 2)), "stop": None}
    v = d.check(model)
    assert not v.correct and v.wrong[0] == "C.L"
    assert "a probed one by its probe's bounds" in v.explanation
    # on every seeded drill, at every level
    for level in LEVELS:
        for seed in range(8):
            d = make_drill("star2", level=level, seed=seed)
            assert not d.check(d.star1_answer()).correct, d.code
            # a Star1 *record* (grading's simulations have no probing phase) answers the same
            record = simulate("star1", Case("drill", d.game), order=d.search_order)
            assert d.answer_from(record) == d.star1_answer(), d.code


@pytest.mark.parametrize("kind, level, seed", [c for c in CASES if c[0] == "star2"])
def test_star2_drills_explain_each_wrong_part(kind, level, seed):
    d = make_drill(kind, level=level, seed=seed)
    probed = [k for k, v in d.expected.items() if k != "stop" and v is not None]
    assert probed, "a star2 drill asks at least one probe"
    for name in probed:
        side, value, lo, hi = d.expected[name]
        flipped = "lower" if side == "upper" else "upper"
        for part, row in (("side", (flipped, value, lo, hi)), ("value", (side, value + 1, lo, hi)),
                          ("L", (side, value, lo + 1, hi)), ("U", (side, value, lo, hi - 1))):
            v = d.check(dict(d.expected, **{name: row}))
            assert not v.correct and v.wrong == (f"{name}.{part}",), (d.code, part, v.wrong)
            if part in ("side", "value"):
                assert v.explanation.startswith(f"The probe shows that {name} is "), v.explanation
            else:
                assert v.explanation.startswith(f"After the probe of {name},"), v.explanation
                assert f"L = {fmt(lo)} and U = {fmt(hi)}" in v.explanation
    stop = d.expected["stop"]
    for other in [n for n in probed if n != stop] + ([None] if stop else []):
        v = d.check(dict(d.expected, stop=other))
        assert not v.correct and "stop" in v.wrong


def test_a_half_filled_pair_is_not_called_empty():
    """A window or a row of bounds with one box typed and the other empty: the explanation says
    which box is empty and what the other says (the c6 drill said "you left it empty" to a student
    who had typed alpha; the Star1 drill wrote "U = ?"; the Star2 drill "G ? 1")."""
    c6 = make_drill("c6", level=2, seed=34251)
    first = c6._children()[0]
    name = c6.names[first]
    v = c6.check({name: ("1", None)})
    assert not v.correct and f"{name} gets α = " in v.explanation
    assert "(you wrote α = 1 and left β empty)" in v.explanation, v.explanation
    star1 = make_drill(code="star1-1-76390")
    v = star1.check_form({"row1.L": "1", "row1.U": "", "row2.L": "", "row2.U": "", "stop": "C1"})
    assert "(you wrote L = 1 and left U empty)" in v.explanation, v.explanation
    window = make_drill("window", level=2, seed=5)
    some = next(iter(window.expected))
    v = window.check({some: (None, "3")})
    assert "(you left α empty and wrote β = 3)" in v.explanation, v.explanation
    star2 = make_drill("star2", level=3, seed=48599)
    form = star2.form(star2.expected)
    side = next(k for k in form if k.endswith(".side"))
    value = side[:-len(".side")] + ".value"
    v = star2.check_form(dict(form, **{side: "", value: "1"}))
    assert "(you wrote 1 but did not say at most or at least)" in v.explanation, v.explanation
