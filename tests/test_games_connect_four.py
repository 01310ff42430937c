"""Connect four: the rules, the incremental win test against a full scan, EVAL's range."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course.errors import ParameterError
from course.game import Player
from course.games import ConnectFour, ConnectFourState
from course.search import alphabeta, minimax


def test_lines_in_every_direction():
    game = ConnectFour(5, 4)
    assert game.play([0, 0, 1, 1, 2, 2, 3]).winner == "X"               # horizontal
    assert game.play([0, 1, 0, 1, 0, 1, 0]).winner == "X"               # vertical
    diagonal = game.parse("""
        . . . X .
        . . X O .
        . X O O .
        X O X O .""")                                                   # / from (0,0) to (3,3)
    assert diagonal.winner == "X" and game.is_terminal(diagonal)
    anti = game.parse("""
        . X . . .
        . O X . .
        . O O X .
        O X X O X""")                                                   # \ from (4,0) to (1,3)
    assert anti.winner == "X" and game.utility(anti) == 1
    blocked = game.play([0, 0, 1, 1, 2, 2, 4])
    assert blocked.winner is None and not game.is_terminal(blocked)
    o_wins = game.play([0, 1, 0, 1, 4, 1, 4, 1])
    assert o_wins.winner == "O" and game.utility(o_wins) == -1 and game.moves(o_wins) == []


def test_full_board_without_a_line_is_a_draw():
    with pytest.raises(ParameterError):
        ConnectFour(2, 2)  # connect 4 does not fit
    game = ConnectFour(3, 2, connect=3)
    full = game.play([0, 1, 2, 0, 1, 2])
    assert full.winner is None and game.is_terminal(full) and game.utility(full) == 0


@settings(max_examples=200)
@given(st.integers(4, 7), st.integers(4, 6), st.integers(0, 10 ** 6))
def test_incremental_winner_equals_a_full_scan(width, height, seed):
    game = ConnectFour(width, height)
    rng = random.Random(seed)
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.result(state, rng.choice(game.moves(state)))
        scanned = ConnectFourState(state.columns, height)
        assert scanned == state and hash(scanned) == hash(state)
        assert scanned.winner == state.winner
        assert game.parse(str(state)) == state
        if not game.is_terminal(state):
            assert -1 < game.evaluate(state) < 1
    assert game.evaluate(state) == game.utility(state)


def test_turns_moves_and_labels():
    game = ConnectFour(4, 4)
    s = game.initial_state()
    assert game.turn(s) is Player.MAX and game.moves(s) == [0, 1, 2, 3]
    s = game.play([0, 0, 0, 0])
    assert game.turn(s) is Player.MAX and game.moves(s) == [1, 2, 3]
    assert game.describe_move(s, 1) == "X column 1"
    assert repr(game) == "ConnectFour(width=4, height=4)"
    assert "start=" in repr(ConnectFour(4, 4, start=game.play([1])))


def test_small_board_value_by_search():
    # 4 x 4: a draw with perfect play (both searches agree; the table makes it quick)
    from course.search import alphabeta_tt

    game = ConnectFour(4, 4)
    assert alphabeta_tt(game).value == 0
    threat = game.play([0, 1, 0, 1, 0])                 # X has three in column 0; O must block
    result = minimax(game, threat, depth=2)
    assert game.moves(threat)[result.move] == 0 and result.value < 1


@pytest.mark.parametrize("call", [
    lambda: ConnectFour(0, 4),
    lambda: ConnectFour(4, 4, connect=1),
    lambda: ConnectFour(4, 4, connect=5),
    lambda: ConnectFour(4, 4, start=3),
    lambda: ConnectFour(4, 4, start=ConnectFour(5, 4).initial_state()),
    lambda: ConnectFour(4, 4).result(ConnectFour(4, 4).play([0, 0, 0, 0]), 0),   # full column
    lambda: ConnectFour(4, 4).result(ConnectFour(4, 4).initial_state(), 4),
    lambda: ConnectFour(4, 4).result(ConnectFour(4, 4).initial_state(), True),
    lambda: ConnectFour(4, 4).result(ConnectFour(4, 4).play([0, 1, 0, 1, 0, 1, 0]), 2),  # over
    lambda: ConnectFour(4, 4).utility(ConnectFour(4, 4).initial_state()),
    lambda: ConnectFour(4, 4).parse(". . . .\n. . . .\nX . . .\n. . . ."),            # floats
    lambda: ConnectFour(4, 4).parse(". . .\n. . .\n. . .\n. . ."),                     # size
    lambda: ConnectFourState(("OO", ""), 2),                                         # counts
    lambda: ConnectFourState(("XXX", ""), 2),                                        # too tall
    lambda: ConnectFourState(("XZ", ""), 2),
])
def test_errors(call):
    with pytest.raises(ParameterError):
        call()


def test_states_are_immutable():
    state = ConnectFour(4, 4).initial_state()
    with pytest.raises(AttributeError):
        state.columns = ("X",)


def test_alphabeta_finds_the_double_threat():
    game = ConnectFour(5, 4)
    state = game.play([1, 1, 2, 2])
    result = alphabeta(game, state, depth=3)
    assert result.value == 1 and game.moves(state)[result.move] == 3


@pytest.mark.slow
def test_five_by_four_is_a_draw():
    # the claim of docs/reference/games.md (about 6 s of CPU: 464,989 nodes with the table)
    from course.search import alphabeta_tt

    result = alphabeta_tt(ConnectFour(5, 4))
    assert result.value == 0 and result.expanded + result.evaluated == 464_989
