"""The instrumented game and the guards around a student's search: what is recorded, and
that a search cannot pass by calling the reference search, reading the record, or altering the
instrumentation."""

from __future__ import annotations

import gc
import math
import sys

import pytest

import course.search
from course import Player, parse_tree
from course.examples import aima_figure_5_2, chance_note_game
from course.grading import (
    GameUsageError,
    GradingFailure,
    InstrumentationTampered,
    ReferenceSearchUsed,
    SearchCrashed,
    SearchTimeout,
    WrongLeaves,
    check_alphabeta,
    check_minimax_value,
    compare,
    instrument,
)
from course.grading.checks.compare import TASKS
from course.grading.checks.instrument import EXPAND, LEAF, Recording

AIMA_AB_LEAVES = [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 1), (2, 2)]


# --- students' functions used below ----------------------------------------------------------
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
                if v >= beta:
                    return v
                alpha = max(alpha, v)
            else:
                v = min(v, child)
                if v <= alpha:
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


def minimax_value(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    values = [minimax_value(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)


# --- recording ---------------------------------------------------------------------------------
def test_records_expansions_and_leaves_in_order():
    game, rec = instrument(aima_figure_5_2())
    assert alphabeta_decision(game, game.initial_state()) == (3, 0)
    assert rec.leaves() == AIMA_AB_LEAVES
    assert rec.expansions() == [(), (0,), (1,), (2,)]
    assert rec.events()[:3] == ((EXPAND, ()), (EXPAND, (0,)), (LEAF, (0, 0)))


def test_asking_twice_is_not_searching_twice_but_regenerating_is():
    game, rec = instrument(parse_tree([[1, 2]]))
    root = game.initial_state()
    game.moves(root)
    game.moves(root)                              # same token: not a new expansion
    child = game.result(root, 0)
    leaf = game.result(child, 0)
    game.utility(leaf)
    game.utility(leaf)                            # same token: not a new evaluation
    again = game.result(game.result(root, 0), 0)  # a new token for the same node
    game.utility(again)
    assert rec.events() == ((EXPAND, ()), (EXPAND, (0,)), (LEAF, (0, 0)), (EXPAND, (0,)), (LEAF, (0, 0)))


def test_chance_paths_follow_chance_outcomes_and_estimate_is_free():
    game, rec = instrument(chance_note_game())
    root = game.initial_state()
    a2 = game.result(root, game.moves(root)[1])
    assert game.turn(a2) is Player.CHANCE
    outcomes = game.chance_outcomes(a2)
    assert [p for _, p in outcomes] == [pytest.approx(0.8), pytest.approx(0.2)]
    c2 = game.result(a2, outcomes[1][0])
    estimate = rec.estimator()
    leaf = game.result(c2, game.moves(c2)[0])
    assert estimate(leaf) == 0                    # utility, uncounted
    assert rec.events() == ((EXPAND, ()), (EXPAND, (1,)), (EXPAND, (1, 1)))
    assert repr(c2) == "<state (1, 1)>"


@pytest.mark.parametrize("call, words", [
    (lambda g, leaf, root: g.turn(leaf), "terminal state"),
    (lambda g, leaf, root: g.moves(leaf), "terminal state"),
    (lambda g, leaf, root: g.utility(root), "not over"),
    (lambda g, leaf, root: g.result(root, 7), "not legal"),
    (lambda g, leaf, root: g.moves("root"), "not a state of this game"),
    (lambda g, leaf, root: g.chance_outcomes(root), "not a CHANCE state"),
])
def test_rule_breaking_calls_raise_game_usage_errors(call, words):
    game, _ = instrument(parse_tree([[1, 2], 3]))
    root = game.initial_state()
    leaf = game.result(root, 1)
    with pytest.raises(GameUsageError, match=words):
        call(game, leaf, root)


def test_game_is_read_only():
    game, rec = instrument(parse_tree([1, 2]))
    with pytest.raises(GameUsageError, match="read-only"):
        game.log = []
    with pytest.raises(GameUsageError, match="read-only"):
        del game.vmin
    assert not hasattr(game, "_events") and not hasattr(game, "events")
    rec.verify()


# --- the recording cannot be altered ---------------------------------------------------------------
def test_replacing_a_method_is_detected():
    game, rec = instrument(parse_tree([1, 2]))
    type(game).utility = lambda self, state: 0
    with pytest.raises(InstrumentationTampered, match="utility"):
        rec.verify()


def test_replacing_method_code_is_detected():
    game, rec = instrument(parse_tree([1, 2]))
    moves = type(game).__dict__["moves"]
    moves.__code__ = moves.__code__.replace(co_name="patched")
    with pytest.raises(InstrumentationTampered, match=r"code\s+of\s+method\s+moves"):
        rec.verify()


def test_sneaking_attributes_in_is_detected():
    game, rec = instrument(parse_tree([1, 2]))
    object.__setattr__(game, "cheat", True)
    with pytest.raises(InstrumentationTampered, match="attributes"):
        rec.verify()


def test_editing_the_log_through_a_closure_is_detected():
    game, rec = instrument(parse_tree([1, 2]))
    game.utility(game.result(game.initial_state(), 0))
    # the methods' closure holds the reader of the game's hidden slot; the slot holds the record
    cells = [c.cell_contents for c in type(game).__dict__["utility"].__closure__ or ()]
    reader = next(c for c in cells if callable(c))
    record = reader(game)
    log = next(v for v in (getattr(record, name) for name in type(record).__slots__)
               if isinstance(v, list) and v and isinstance(v[0], tuple))
    log.append((LEAF, (1,)))
    with pytest.raises(InstrumentationTampered, match=r"record\s+of\s+calls\s+was\s+edited"):
        rec.verify()


def test_swapping_the_record_through_a_closure_is_detected():
    game, rec = instrument(parse_tree([1, 2]))
    other, _ = instrument(parse_tree([1, 2]))
    cells = [c.cell_contents for c in type(game).__dict__["utility"].__closure__ or ()]
    reader = next(c for c in cells if callable(c))
    reader.__self__.__set__(game, reader(other))      # the slot's descriptor, found from its reader
    with pytest.raises(InstrumentationTampered, match=r"record\s+of\s+calls\s+was\s+replaced"):
        rec.verify()


def test_a_class_altered_in_one_run_is_not_used_again():
    """Instrumented classes are made once per kind of game: one a search altered is made anew."""
    game, rec = instrument(parse_tree([1, 2]))
    type(game).vmin = property(lambda self: -99)      # not a method verify() looks at
    type(game).__dict__["moves"].__code__ = type(game).__dict__["turn"].__code__
    again, rec2 = instrument(parse_tree([1, 2]))
    assert type(again) is not type(game) and type(again).__name__ == "InstrumentedTreeGame"
    assert again.vmin == 1 and list(again.moves(again.initial_state())) == [0, 1]
    rec2.verify()
    fresh, _ = instrument(parse_tree([1, 2]))
    assert type(fresh) is type(again)                  # an unaltered class is used again


def test_tokens_of_another_game_are_refused_and_show_nothing_new():
    game, _ = instrument(parse_tree([[1, 2], 3]))
    other, _ = instrument(parse_tree([[1, 2], 3]))
    token = other.result(other.initial_state(), 0)
    assert type(token) is type(game.initial_state())
    with pytest.raises(GameUsageError, match=r"moves\(\) was given <state \(0,\)>, which is not a state of this game"):
        game.moves(token)
    assert [n for n in dir(token) if not n.startswith("__")] == []
    with pytest.raises(AttributeError):
        token._path
    assert repr(type(token)()) == "<state>"


# --- a search cannot pass by calling the reference, reading the record, or altering it -------------
def test_calling_the_reference_on_the_game_is_caught():
    def cheat(game, state):
        result = course.search.alphabeta(game, state)
        return result.value, game.moves(state)[result.move]

    comp = compare(TASKS["alphabeta_decision"], cheat, aima_figure_5_2())
    assert comp.failure_class is ReferenceSearchUsed
    with pytest.raises(ReferenceSearchUsed, match=r"reference\s+search"):
        check_alphabeta(cheat, aima_figure_5_2())


def test_replaying_the_reference_run_on_a_copy_is_caught():
    """The cheat computes the reference's trace on its own copy of the tree, then replays it."""
    def cheat(game, state):
        copy = aima_figure_5_2()
        result = course.search.alphabeta(copy, trace=True)
        tokens = {(): state}

        def token(path):
            if path not in tokens:
                parent = token(path[:-1])
                tokens[path] = game.result(parent, game.moves(parent)[path[-1]])
            return tokens[path]

        for event in result.trace:
            if event.kind == "enter":
                game.moves(token(event.path))
            elif event.kind == "leaf":
                game.utility(token(event.path))
        return result.value, result.move

    game, rec = instrument(aima_figure_5_2())
    assert cheat(game, game.initial_state()) == (3, 0)
    assert rec.leaves() == AIMA_AB_LEAVES          # the replay alone would look perfect
    with pytest.raises(ReferenceSearchUsed):
        check_alphabeta(cheat, aima_figure_5_2())


def test_switching_off_the_watch_is_caught():
    def cheat(game, state):
        sys.settrace(None)
        return alphabeta_decision(game, state)

    with pytest.raises(InstrumentationTampered, match="settrace"):
        check_alphabeta(cheat, aima_figure_5_2())


def test_forging_the_record_found_through_the_garbage_collector_is_caught():
    def cheat(game, state):
        recording = next(o for o in gc.get_objects() if isinstance(o, Recording) and o.game is game)
        recording._events[:] = [(EXPAND, ()), (EXPAND, (0,))] + [(LEAF, p) for p in AIMA_AB_LEAVES]
        return 3, 0

    with pytest.raises(InstrumentationTampered):
        check_alphabeta(cheat, aima_figure_5_2())


def test_patching_the_reference_search_does_not_fool_the_checker(monkeypatch):
    def cheat(game, state):
        course.search.alphabeta.__code__ = (lambda *a, **k: None).__code__
        return 99, 0

    original = course.search.alphabeta.__code__
    try:
        with pytest.raises(InstrumentationTampered, match=r"reference\s+search"):
            check_alphabeta(cheat, aima_figure_5_2())
    finally:
        course.search.alphabeta.__code__ = original


def test_returning_the_answer_without_searching_fails():
    with pytest.raises(WrongLeaves, match=r"did\s+not\s+search\s+at\s+all"):
        check_alphabeta(lambda game, state: (3, 0), aima_figure_5_2())


# --- guards: time, recursion, output, exceptions ------------------------------------------------------
def test_an_endless_loop_is_stopped_even_if_it_catches_exceptions():
    def loop(game, state):
        while True:
            try:
                game.moves(state)
            except Exception:  # noqa: BLE001 - the student's code tries to swallow everything
                pass

    comp = compare(TASKS["minimax_value"], loop, parse_tree([1, 2]), time_limit=0.3)
    assert comp.failure_class is SearchTimeout
    assert "did not finish within 0.3 seconds" in comp.message()


def test_recursion_overflow_is_reported_with_a_hint():
    def endless(game, state):
        return endless(game, game.result(state, game.moves(state)[0]) if not game.is_terminal(state) else state)

    with pytest.raises(SearchCrashed, match=r"(?s)RecursionError.*is_terminal"):
        check_minimax_value(endless, parse_tree([[1, 2], [3, 4]]))
    assert sys.getrecursionlimit() >= 1000


def test_printed_output_is_captured_truncated_and_never_on_stderr(capsys):
    def chatty(game, state):
        print("x" * 100_000)
        print("oops", file=sys.stderr)
        return 0

    with pytest.raises(GradingFailure) as info:
        check_minimax_value(chatty, parse_tree([1, 2]))
    out, err = capsys.readouterr()
    assert err == "" and out == ""
    assert "more characters not shown" in str(info.value)
    assert len(str(info.value)) < 10_000


def test_success_prints_one_line_on_stdout(capsys):
    assert check_minimax_value(minimax_value, aima_figure_5_2()) is None
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1 and "matches the reference" in out


def test_exit_and_not_implemented_become_failures():
    with pytest.raises(SearchCrashed, match="SystemExit"):
        check_minimax_value(lambda g, s: sys.exit(3), parse_tree([1, 2]))
    def stub(game, state):
        raise NotImplementedError()
    with pytest.raises(SearchCrashed, match=r"Replace\s+`raise\s+NotImplementedError"):
        check_minimax_value(stub, parse_tree([1, 2]))


def test_failures_are_assertion_errors_with_messages():
    with pytest.raises(AssertionError) as info:
        check_minimax_value(lambda g, s: 0, aima_figure_5_2())
    assert type(info.value) is not AssertionError
    assert "evaluated 0 leaves" in str(info.value)


def test_evaluate_on_terminal_states_and_children_made_twice_are_noted():
    game, rec = instrument(parse_tree([[3, 12], [2, 4]]))
    root = game.initial_state()
    first = game.result(root, game.moves(root)[0])
    again = game.result(root, game.moves(root)[0])          # the same child, created twice
    leaf = game.result(first, game.moves(first)[1])
    game.evaluate(leaf)                                     # EVAL on a terminal state
    game.result(again, game.moves(again)[0])                 # a different parent token: not noted
    assert rec.regenerated() == [(0,)]
    assert rec.terminal_evaluations() == [(0, 1)]
    assert rec.events() == (("expand", ()), ("expand", (0,)), ("leaf", (0, 1)), ("expand", (0,)))
