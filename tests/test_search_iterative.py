"""Iterative deepening and transposition tables against brute force (issue 31, item 4).

Brute force: :func:`course.search.minimax` with the same depth limit (every leaf, no table),
from random positions of tic-tac-toe and connect four, where positions recur by transposition.
Every table entry is also checked against the brute-force value of its position at its draft:
the flag (or [L, U]) must be true, whatever window the position was searched with.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import parse_tree
from course.errors import ChanceNodeError, ParameterError
from course.games import ConnectFour, TicTacToe
from course.search import (BoundsEntry, Entry, Flag, TranspositionTable, alphabeta, alphabeta_tt,
                           bab, bab_tt, expectimax, iterative_deepening, minimax)
from test_search_properties import true_value


def random_position(game, plies, seed):
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        state = game.result(state, rng.choice(list(game.moves(state))))
    return state


def brute(game, state, depth):
    return minimax(game, state, depth=None if depth == math.inf else depth).value


def check_entries(game, table):
    """Every entry's bounds contain the brute-force value of its position at its draft."""
    for state, entry in table.entries.items():          # keyed by the states themselves
        v = brute(game, state, entry.depth)
        assert entry.lower <= v <= entry.upper, (state, entry, v)


GAMES = {
    "tictactoe": (TicTacToe(), (2, 7)),
    "connect4-4x4": (ConnectFour(4, 4), (0, 10)),
    "connect4-5x4": (ConnectFour(5, 4), (0, 10)),
}


@settings(max_examples=60)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 10 ** 6), st.integers(1, 4))
def test_alphabeta_tt_is_brute_force_on_random_positions(name, seed, depth):
    game, (low, high) = GAMES[name]
    state = random_position(game, random.Random(seed).randint(low, high), seed)
    if game.is_terminal(state):
        return
    table = TranspositionTable()
    result = alphabeta_tt(game, state, depth=depth, table=table)
    assert result.value == brute(game, state, depth)
    # the move (the root is searched with an exact window): its child is worth the root value
    child = game.result(state, game.moves(state)[result.move])
    assert brute(game, child, depth - 1) == result.value
    check_entries(game, table)


@settings(max_examples=40)
@given(st.sampled_from(sorted(GAMES)), st.integers(0, 10 ** 6), st.integers(1, 5),
       st.sampled_from(["alphabeta", "bab"]))
def test_iterative_deepening_is_brute_force(name, seed, depth, search):
    game, (low, high) = GAMES[name]
    state = random_position(game, random.Random(seed).randint(low, high), seed)
    if game.is_terminal(state):
        return
    expected = brute(game, state, depth)
    for table in (True, False):
        result = iterative_deepening(game, state, depth=depth, search=search, table=table)
        assert result.depth == depth and len(result.iterations) == depth
        assert result.lower == result.upper == expected
        child = game.result(state, game.moves(state)[result.move])
        assert brute(game, child, depth - 1) == expected
        for d, iteration in enumerate(result.iterations, start=1):
            assert iteration.value == brute(game, state, d)
        if table:
            check_entries(game, result.table)


@settings(max_examples=40)
@given(st.integers(0, 10 ** 6), st.integers(1, 5), st.sampled_from([0, Fraction(1, 24), Fraction(1, 4), 1]))
def test_bab_tt_keeps_theorem_1_on_connect_four(seed, depth, epsilon):
    game = ConnectFour(5, 4)
    state = random_position(game, random.Random(seed).randint(0, 10), seed)
    if game.is_terminal(state):
        return
    table = TranspositionTable()
    v = brute(game, state, depth)
    result = bab_tt(game, state, depth=depth, epsilon=epsilon, table=table)
    assert result.lower <= v <= result.upper and result.width <= epsilon
    check_entries(game, table)
    again = bab_tt(game, state, depth=depth, epsilon=epsilon, table=table)   # the table is warm
    assert again.lower <= v <= again.upper and again.width <= epsilon and again.move is not None


@settings(max_examples=500)
@given(games(), st.integers(1, 4))
def test_alphabeta_tt_on_trees_is_alphabeta(game, depth):
    evaluate = lambda node: Fraction(len(node.path), 5)  # noqa: E731
    plain = alphabeta(game, depth=depth, evaluate=evaluate)
    tt = alphabeta_tt(game, depth=depth, evaluate=evaluate)
    # a tree has no transpositions and the table starts empty: the very same search
    assert (tt.value, tt.leaves, tt.expanded, tt.move) == (plain.value, plain.leaves, plain.expanded, plain.move)
    result = iterative_deepening(game, depth=depth, evaluate=evaluate)
    assert result.value == plain.value


@settings(max_examples=500)
@given(games(chance=True), st.integers(0, 3), st.integers(1, 4))
def test_bab_tt_with_chance_and_iterations(game, epsilon, depth):
    evaluate = lambda node: Fraction(sum(node.path) % 10)  # noqa: E731 - in the bounds [0, 9]
    v = expectimax(game, depth=depth, evaluate=evaluate).value
    result = iterative_deepening(game, depth=depth, search="bab", epsilon=epsilon, vmin=0, vmax=9,
                                 evaluate=evaluate)
    assert result.lower <= v <= result.upper and result.upper - result.lower <= epsilon
    if epsilon == 0:
        plain = bab(game, depth=depth, epsilon=0, vmin=0, vmax=9, evaluate=evaluate)
        once = bab_tt(game, depth=depth, epsilon=0, vmin=0, vmax=9, evaluate=evaluate)
        assert (once.lower, once.upper, once.leaves) == (plain.lower, plain.upper, plain.leaves)


def test_tic_tac_toe_whole_game():
    table = TranspositionTable()
    result = alphabeta_tt(TicTacToe(), table=table)
    assert result.value == 0
    assert all(entry.depth == math.inf for entry in table.entries.values())
    # spot-check the flags against brute force on a sample of the stored positions
    sample = sorted(table.entries.items(), key=lambda item: item[0].cells)[::50]
    for state, entry in sample:
        v = minimax(TicTacToe(), state).value
        assert entry.lower <= v <= entry.upper
    flags = {entry.flag for entry in table.entries.values()}
    assert flags == {Flag.EXACT, Flag.LOWER, Flag.UPPER}


def test_root_is_searched_even_when_the_table_knows_it():
    game = ConnectFour(4, 4)
    table = TranspositionTable()
    first = alphabeta_tt(game, depth=4, table=table)
    second = alphabeta_tt(game, depth=4, table=table)
    assert second.value == first.value and second.move is not None
    assert second.expanded + second.evaluated < first.expanded + first.evaluated
    # the root's entry is exact, and its best move leads the second search
    root_entry = table.entries[game.initial_state()]
    assert root_entry.flag is Flag.EXACT and second.children[0][0] == root_entry.move


def test_answered_positions_are_traced():
    game = TicTacToe("X O X / . O . / . . .")
    result = alphabeta_tt(game, trace=True)
    events = result.trace.events
    answered = [e for e in events if e.kind == "cutoff" and e.reason.startswith("table: ")]
    assert answered, "some position must be answered by the table here"
    assert [e.path for e in events if e.kind == "leaf"] == list(result.leaves)
    assert sum(e.kind == "enter" for e in events) == result.expanded + len(answered)
    nodes = result.trace.nodes()                      # a well-formed trace (every node entered)
    assert all(nodes[e.path].reason == e.reason for e in answered)


def test_entries_as_bounds():
    assert (Entry(3, Flag.LOWER, 5, None).lower, Entry(3, Flag.LOWER, 5, None).upper) == (5, math.inf)
    assert (Entry(3, Flag.UPPER, 5, 0).lower, Entry(3, Flag.UPPER, 5, 0).upper) == (-math.inf, 5)
    assert (Entry(3, Flag.EXACT, 5, 0).lower, Entry(3, Flag.EXACT, 5, 0).upper) == (5, 5)
    assert BoundsEntry(2, 1, 1, 0).flag is Flag.EXACT and BoundsEntry(2, 0, 1, 0).flag is None


def test_deepening_result_reads_well():
    result = iterative_deepening(ConnectFour(4, 4), depth=3)
    text = repr(result)
    assert text.startswith("<DeepeningResult alphabeta-tt to depth 3: value ")
    assert "nodes per iteration" in text and "TranspositionTable(" in text
    assert result.nodes == sum(r.expanded + r.evaluated for r in result.iterations)
    traced = iterative_deepening(ConnectFour(4, 4), depth=2, trace=True)
    assert len(traced.trace) == sum(len(r.trace) for r in traced.iterations)
    assert result.trace is None


@pytest.mark.parametrize("call, error", [
    (lambda: iterative_deepening(TicTacToe(), depth=0), ParameterError),
    (lambda: iterative_deepening(TicTacToe(), depth=2, search="minimax"), ParameterError),
    (lambda: iterative_deepening(TicTacToe(), depth=2, epsilon=1), ParameterError),
    (lambda: alphabeta_tt(TicTacToe(), table={}), ParameterError),
    (lambda: TranspositionTable(key=3), ParameterError),
    (lambda: alphabeta_tt(TicTacToe(), depth=2, table=TranspositionTable(key=lambda s: [s])),
     ParameterError),
    (lambda: alphabeta_tt(parse_tree({"chance": [[0.5, 1], [0.5, 2]]})), ChanceNodeError),
    (lambda: bab_tt(TicTacToe(), epsilon=-1), ParameterError),
])
def test_errors(call, error):
    with pytest.raises(error):
        call()


# -- the measurement: how much do the iterations cost, with and without a table? -----------------

def _nodes(result):
    return result.expanded + result.evaluated


@pytest.mark.slow
def test_iterative_deepening_overhead_measured():
    rows = {}
    for name, game, depth in (("tictactoe", TicTacToe(), 8), ("connect4-5x4", ConnectFour(5, 4), 8),
                              ("connect4-7x6", ConnectFour(), 6)):
        plain = alphabeta(game, depth=depth)
        with_tt = iterative_deepening(game, depth=depth)
        without = iterative_deepening(game, depth=depth, table=False)
        assert with_tt.value == without.value == plain.value
        rows[name] = (_nodes(plain), without.nodes, round(100 * without.overhead),
                      with_tt.nodes, round(100 * with_tt.overhead))
    # (plain alpha-beta to the depth, ID without a table and its overhead %, ID with a table and
    #  its overhead %): the overhead is the earlier iterations as a % of the last one
    assert rows == {
        "tictactoe": (13451, 33351, 148, 6016, 452),
        "connect4-5x4": (23032, 36994, 61, 11576, 78),
        "connect4-7x6": rows["connect4-7x6"],
    }
    plain, without, _, with_tt, _ = rows["connect4-7x6"]
    assert with_tt < plain < without
