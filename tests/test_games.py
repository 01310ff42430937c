"""Tests of course.games: tic-tac-toe, Pig and Cops & Robbers.

Each game is checked against the rules written in its module docstring,
against brute force (exhaustive enumeration, expectimax), and on the bounds
[vmin, vmax] that Star1 and BAB rely on.
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

import course.games
from course.errors import BoundsError, ParameterError
from course.game import Player
from course.games import CopsAndRobbers, CopsRobbersState, Pig, PigState, TicTacToe, TicTacToeState
from course.games.pig import HOLD, ROLL
from course.search import alphabeta, bab, expectimax, minimax, star1


# -- helpers --------------------------------------------------------------------------

def reachable(game, state=None):
    """Every distinct state reachable from ``state`` (default: the start), by DFS."""
    start = game.initial_state() if state is None else state
    seen = {start}
    stack = [start]
    while stack:
        s = stack.pop()
        if game.is_terminal(s):
            continue
        for move in game.moves(s):
            child = game.result(s, move)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def longest_game(game, state=None):
    """Plies in the longest path from ``state`` to a terminal state (memoised on states)."""
    memo = {}

    def height(s):
        if s in memo:
            return memo[s]
        h = 0 if game.is_terminal(s) else 1 + max(height(game.result(s, m)) for m in game.moves(s))
        memo[s] = h
        return h

    return height(game.initial_state() if state is None else state)


def random_playout(game, rng, state=None):
    """States visited by uniformly random moves (chance outcomes drawn by their probabilities)."""
    s = game.initial_state() if state is None else state
    visited = [s]
    while not game.is_terminal(s):
        if game.turn(s) is Player.CHANCE:
            outcomes = game.chance_outcomes(s)
            move = rng.choices([m for m, _ in outcomes], weights=[float(p) for _, p in outcomes])[0]
        else:
            move = rng.choice(list(game.moves(s)))
        s = game.result(s, move)
        visited.append(s)
    return visited


def check_chance_state(game, s):
    """A CHANCE state lists its outcomes as its moves, with positive probabilities summing to 1."""
    outcomes = list(game.chance_outcomes(s))
    assert [m for m, _ in outcomes] == list(game.moves(s))
    assert all(p > 0 for _, p in outcomes)
    assert sum(p for _, p in outcomes) == 1


# -- the package ------------------------------------------------------------------------

def test_package_exports_the_games():
    for name in ("TicTacToe", "TicTacToeState", "Pig", "PigState", "CopsAndRobbers", "CopsRobbersState"):
        assert name in course.games.__all__
        assert getattr(course.games, name) is not None
    # The random-tree generators are exported exactly when their modules define them.
    for name in ("random_tree", "stochastic_random_tree", "ChenTree"):
        assert (name in course.games.__all__) == hasattr(course.games, name)


@pytest.mark.parametrize("state", [
    TicTacToeState("X...O...."),
    PigState(1, 2, 3, Player.MAX, False, 1),
    CopsRobbersState((0, 0), ((1, 1),), 0, Player.MAX),
])
def test_states_are_immutable_and_hashable(state):
    assert {state: 1}[dataclasses.replace(state)] == 1
    field = dataclasses.fields(state)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(state, field, None)


# -- tic-tac-toe ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ttt():
    return TicTacToe()


def test_tictactoe_minimax_searches_the_whole_tree(ttt):
    # 255,168 possible games; 549,946 nodes in the complete game tree.
    result = minimax(ttt)
    assert result.value == 0
    assert result.evaluated == 255168
    assert result.expanded == 294778
    assert result.evaluated + result.expanded == 549946


def test_tictactoe_alphabeta_value_zero_with_far_fewer_leaves(ttt):
    result = alphabeta(ttt)
    assert result.value == 0
    assert result.evaluated == 7330          # measured; 2.9% of minimax's 255,168
    assert result.evaluated * 30 < 255168
    # Star1 with the bounds [-1, 1] also cuts when a line is already won.
    s = star1(ttt)
    assert (s.lower, s.upper) == (0, 0) and s.evaluated < result.evaluated


def test_tictactoe_distinct_positions(ttt):
    states = reachable(ttt)
    assert len(states) == 5478
    assert sum(ttt.is_terminal(s) for s in states) == 958


def test_tictactoe_rules(ttt):
    s = ttt.initial_state()
    assert ttt.turn(s) is Player.MAX and list(ttt.moves(s)) == list(range(9))
    s = ttt.result(s, 4)
    assert s == TicTacToeState("....X....")
    assert ttt.turn(s) is Player.MIN and list(ttt.moves(s)) == [0, 1, 2, 3, 5, 6, 7, 8]
    assert ttt.describe_move(s, 0) == "O top-left"
    won = ttt.parse("XXX / OO. / ...")
    assert ttt.is_terminal(won) and ttt.utility(won) == 1 and list(ttt.moves(won)) == []
    lost = ttt.parse("XX. / OOO / X..")
    assert ttt.utility(lost) == -1
    draw = ttt.parse("XOX / XOO / OXX")
    assert ttt.is_terminal(draw) and ttt.utility(draw) == 0


def test_tictactoe_search_from_a_position_finds_the_block(ttt):
    state = ttt.parse("X O X / . O . / . . .")     # O threatens the middle column
    result = alphabeta(ttt, state)
    assert result.value == 0
    assert ttt.moves(state)[result.move] == 7


def test_tictactoe_board_text_round_trip(ttt):
    for s in random.Random(1).sample(sorted(reachable(ttt), key=repr), 50):
        assert TicTacToeState.from_string(str(s)) == s
        assert TicTacToeState.from_string(s.cells) == s
        assert eval(repr(s)) == s
        assert ttt.render(s) == str(s) and len(str(s).splitlines()) == 3
    assert TicTacToe("x o . / . x . / . . o").initial_state() == TicTacToeState("XO..X...O")


@pytest.mark.parametrize("text, fragment", [
    ("XO.", "9 cells"),
    ("XO..X...Q", "unknown symbol"),
    ("OO. / X.. / ...", "O has 2 marks"),
    ("XXX / X.. / OO.", "O has 2 marks and X 4"),
    ("XXX / OOO / ...", "both players"),
    ("XXX / OO. / O..", "X has a line but was not the last"),
    ("OOO / XX. / X.X", "O has a line but was not the last"),
])
def test_tictactoe_rejects_bad_boards(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        TicTacToeState.from_string(text)


def test_tictactoe_rejects_bad_arguments(ttt):
    with pytest.raises(ParameterError, match="nine cells"):
        TicTacToeState("X")
    with pytest.raises(ParameterError, match="board string or a TicTacToeState"):
        TicTacToe(start=42)
    with pytest.raises(ParameterError, match="impossible board"):
        TicTacToe(start=TicTacToeState("OO......."))
    with pytest.raises(ParameterError, match="illegal tic-tac-toe move"):
        ttt.result(ttt.parse("X........"), 0)
    with pytest.raises(ParameterError, match="illegal tic-tac-toe move"):
        ttt.result(ttt.initial_state(), 9)
    with pytest.raises(ParameterError, match="game is over"):
        ttt.result(ttt.parse("XXX / OO. / ..."), 8)
    with pytest.raises(ParameterError, match="nobody has won yet"):
        ttt.utility(ttt.initial_state())


def test_tictactoe_evaluation_stays_inside_the_bounds(ttt):
    for s in reachable(ttt):
        value = ttt.evaluate(s)
        if ttt.is_terminal(s):
            assert value == ttt.utility(s)
        else:
            assert -1 < value < 1
    # X's corner is on 3 open lines; O in the centre blocks one and holds 3 (see evaluate's doctest).
    assert ttt.evaluate(ttt.parse("X.. / ... / ...")) > 0 > ttt.evaluate(ttt.parse("X.. / .O. / ..."))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_tictactoe_depth_limited_search_opens_in_the_centre(ttt, depth):
    result = alphabeta(ttt, depth=depth)
    assert result.move == 4 and -1 < result.value < 1
    assert bab(ttt, depth=depth).value == minimax(ttt, depth=depth).value == result.value


# -- Pig ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pig():
    return Pig()


def test_pig_expectimax_equals_star1_exactly(pig):
    exact = expectimax(pig)
    pruned = star1(pig)
    assert isinstance(exact.value, Fraction)
    assert pruned.value == exact.value
    assert -1 < exact.value < 1
    assert pruned.evaluated < exact.evaluated
    assert exact.evaluated + exact.expanded == 39435      # the size the docstring quotes


@pytest.mark.parametrize("target, faces, turn_limit", [(2, 2, 1), (4, 3, 2), (5, 3, 3), (7, 2, 2)])
def test_pig_small_games_agree_and_are_finite(target, faces, turn_limit):
    game = Pig(target=target, faces=faces, turn_limit=turn_limit)
    assert star1(game).value == expectimax(game).value
    assert longest_game(game) == game.max_plies
    for s in reachable(game):
        if game.is_terminal(s):
            assert game.utility(s) in (-1, 0, 1)
        elif game.turn(s) is Player.CHANCE:
            check_chance_state(game, s)
            assert [p for _, p in game.chance_outcomes(s)] == [Fraction(1, faces)] * faces
        else:
            assert -1 < game.evaluate(s) < 1


def test_pig_values_worked_by_hand():
    # One turn, a coin for a die: MAX rolls 2 and wins, or rolls 1 and the game is drawn.
    assert expectimax(Pig(target=2, faces=2, turn_limit=1)).value == Fraction(1, 2)
    # Two turns: after MAX's 1, MIN wins with a 2 or draws with a 1 (value -1/2).
    assert expectimax(Pig(target=2, faces=2, turn_limit=2)).value == Fraction(1, 4)


def test_pig_rules(pig):
    s = pig.initial_state()
    assert pig.turn(s) is Player.MAX and list(pig.moves(s)) == [ROLL]
    with pytest.raises(ParameterError, match="illegal Pig move"):
        pig.result(s, HOLD)                                 # nothing to bank
    rolling = pig.result(s, ROLL)
    assert pig.turn(rolling) is Player.CHANCE and pig.moves(rolling) == [1, 2, 3, 4]
    assert pig.describe_move(rolling, 1) == "rolled 1: turn lost"
    s = pig.result(rolling, 3)
    assert (s.turn_total, s.to_move, list(pig.moves(s))) == (3, Player.MAX, [ROLL, HOLD])
    bust = pig.result(pig.result(s, ROLL), 1)               # a 1 loses the 3 and passes the turn
    assert (bust.max_score, bust.turn_total, bust.to_move, bust.turns_done) == (0, 0, Player.MIN, 1)
    held = pig.result(s, HOLD)                              # hold banks the 3
    assert (held.max_score, held.to_move, held.turns_done) == (3, Player.MIN, 1)
    win = pig.result(pig.result(s, ROLL), 4)                # 3 + 4 >= 6 wins on the spot
    assert pig.is_terminal(win) and pig.utility(win) == 1 and win.max_score == 7
    assert "MAX wins" in pig.render(win)


def test_pig_turn_limit_compares_scores():
    game = Pig(target=10, faces=6, turn_limit=2)
    s = game.result(game.result(game.result(game.initial_state(), ROLL), 4), HOLD)   # MAX banks 4
    assert not game.is_terminal(s) and game.evaluate(s) == Fraction(4, 10)
    s = game.result(game.result(s, ROLL), 1)                # MIN busts: 2 turns played
    assert game.is_terminal(s) and game.utility(s) == 1
    drawn = PigState(3, 3, 0, Player.MAX, False, 2)
    assert game.is_terminal(drawn) and game.utility(drawn) == 0


@pytest.mark.parametrize("kwargs, fragment", [
    ({"target": 1}, "target must be an integer >= 2"),
    ({"faces": 1}, "faces must be an integer >= 2"),
    ({"turn_limit": 0}, "turn_limit must be an integer >= 1"),
    ({"target": 4.0}, "target must be an integer"),
    ({"faces": True}, "faces must be an integer"),
])
def test_pig_rejects_bad_parameters(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        Pig(**kwargs)


def test_pig_rejects_bad_calls(pig):
    rolling = pig.result(pig.initial_state(), ROLL)
    with pytest.raises(ParameterError, match="cannot show 5"):
        pig.result(rolling, 5)
    with pytest.raises(ParameterError, match="no die is rolling"):
        pig.chance_outcomes(pig.initial_state())
    with pytest.raises(ParameterError, match="game in progress"):
        pig.utility(pig.initial_state())


# -- Cops & Robbers ----------------------------------------------------------------------------

GAME_SETTINGS = [
    dict(),
    dict(obstacles=0.2, seed=3),
    dict(width=5, height=4, cops=2, obstacles=0.25, seed=7),
    dict(stochastic=True),
    dict(obstacles=0.2, seed=5, stochastic=True, p=0.6),
    dict(width=4, height=4, cops=1, stochastic=True, p=Fraction(9, 10), time_limit=5),
]


@pytest.mark.parametrize("settings", GAME_SETTINGS)
def test_cops_robbers_values_stay_inside_the_bounds(settings):
    game = CopsAndRobbers(**settings)
    assert (game.vmin, game.vmax) == (0, settings.get("time_limit", 12))
    rng = random.Random(0)
    for _ in range(20):
        for s in random_playout(game, rng):
            assert game.vmin <= game.evaluate(s) <= game.vmax
            if game.is_terminal(s):
                assert game.vmin <= game.utility(s) <= game.vmax
                assert s.caught or s.rounds == game.time_limit
            elif game.turn(s) is Player.CHANCE:
                check_chance_state(game, s)
            else:
                assert game.evaluate(s) >= (s.rounds + 1 if s.to_move is Player.MAX else s.rounds)


def test_cops_robbers_grid_and_placement():
    for seed in range(10):
        game = CopsAndRobbers(obstacles=0.2, seed=seed)
        assert len(game.blocked) == round(0.2 * 36)
        free = {(r, c) for r in range(6) for c in range(6)} - game.blocked
        assert reachable_cells(free) == free                      # kept connected
        start = game.initial_state()
        cells = [start.robber, *start.cops]
        assert len(set(cells)) == 4 and set(cells) <= free        # distinct free cells
        same = CopsAndRobbers(obstacles=0.2, seed=seed)
        assert same.blocked == game.blocked and same.initial_state() == start
    layouts = {(CopsAndRobbers(obstacles=0.2, seed=s).blocked, CopsAndRobbers(seed=s).initial_state())
               for s in range(10)}
    assert len(layouts) == 10


def reachable_cells(free):
    start = min(free)
    seen, stack = {start}, [start]
    while stack:
        r, c = stack.pop()
        for nxt in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
            if nxt in free and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def test_cops_robbers_moves_and_rounds():
    game = CopsAndRobbers.from_text("""
        . # . .
        R . . C
        . . C .
    """)
    s = game.initial_state()
    assert (s.robber, s.cops, s.rounds) == ((1, 0), ((1, 3), (2, 2)), 0)
    assert game.moves(s) == ["stay", "N", "E", "S"]              # west of (1, 0) is off the grid
    s = game.result(s, "E")
    assert (s.robber, s.rounds, game.turn(s), game.ply(s)) == ((1, 1), 1, Player.MIN, 1)
    joint = game.moves(s)
    assert len(joint) == 4 * 4 and joint[0] == ("stay", "stay") and joint == sorted(
        joint, key=lambda m: [list(("stay", "N", "E", "S", "W")).index(d) for d in m])
    assert game.describe_move(s, ("W", "stay")) == "C W,-"
    s = game.result(s, ("W", "N"))
    assert (s.cops, s.rounds, game.turn(s), game.ply(s)) == (((1, 2), (1, 2)), 1, Player.MAX, 2)
    assert game.render(s) == ". # . .\n. R 2 .\n. . . ."
    with pytest.raises(ParameterError, match="illegal move 'N'"):
        game.result(s, "N")                                      # (0, 1) is blocked


def test_cops_robbers_text_round_trip():
    for seed in range(5):
        game = CopsAndRobbers(obstacles=0.2, seed=seed)
        again = CopsAndRobbers.from_text(game.render())
        start, back = game.initial_state(), again.initial_state()
        assert again.blocked == game.blocked and back.robber == start.robber
        assert sorted(back.cops) == sorted(start.cops)          # read back row by row


def test_cornered_robber_is_caught_in_the_first_round():
    board = """
        R C .
        C . .
        . . .
    """
    # Whole games (every line ends by the time limit), searched to the end.
    assert minimax(CopsAndRobbers.from_text(board, time_limit=2)).value == 1
    game = CopsAndRobbers.from_text(board, time_limit=3)
    assert alphabeta(game).value == 1 and star1(game).value == 1
    for move in game.moves(game.initial_state()):   # whatever the robber does, a cop lands on it
        after = game.result(game.initial_state(), move)
        assert after.caught or any(
            game.result(after, joint).caught for joint in game.moves(after))


def test_robber_walking_onto_a_cop_is_caught():
    game = CopsAndRobbers.from_text("R C .")
    s = game.result(game.initial_state(), "E")
    assert s.caught and game.is_terminal(s) and game.utility(s) == 1
    assert game.render(s, status=True).endswith("caught in round 1: score 1")


def test_status_lines_say_how_the_game_ended():
    game = CopsAndRobbers.from_text("R .\n. C", time_limit=1)
    s = game.result(game.result(game.initial_state(), "stay"), ("stay",))
    assert game.is_terminal(s) and game.utility(s) == 1
    assert game.render(s, status=True).endswith("escaped: 1 rounds without capture, score 1")
    limited = CopsAndRobbers.from_text("R . .\nC . C", depth_limit=1)
    s = limited.result(limited.initial_state(), "E")               # distances 2 and 2
    assert limited.is_terminal(s) and limited.utility(s) == 2       # 0 rounds completed + 2
    assert limited.render(s, status=True).endswith("depth limit reached: estimated score 2")
    limited = CopsAndRobbers.from_text("R . .\nC C .", depth_limit=1)
    s = limited.result(limited.initial_state(), "stay")            # distances 1 and 2
    assert limited.utility(s) == Fraction(3, 2)
    assert limited.render(s, status=True).endswith("estimated score 3/2 (~1.50)")
    assert game.render(game.result(game.initial_state(), "E"), status=True).endswith(
        "round 1 of 1: cops to move")


def test_one_cop_never_catches_the_robber_on_a_cycle():
    # A 2x2 grid is a 4-cycle: the robber can always step away from a single cop.
    game = CopsAndRobbers.from_text("R . / . C".replace("/", "\n"), time_limit=3)
    assert alphabeta(game).value == 3 == game.vmax
    # The same robber is caught at once if it waits next to two cops.
    two = CopsAndRobbers.from_text("R C / C .".replace("/", "\n"), time_limit=3)
    assert alphabeta(two).value == 1


def test_capture_time_counts_rounds():
    # Corridor: robber at the west end, cop 4 cells east; the robber can only wait.
    game = CopsAndRobbers.from_text("R . . . C", time_limit=6)
    assert alphabeta(game).value == 4    # the cop needs 4 moves; round k holds the cop's k-th move
    assert star1(game).value == 4


@pytest.mark.parametrize("stochastic", [False, True])
def test_cops_robbers_bab_at_depth_3(stochastic):
    game = CopsAndRobbers(stochastic=stochastic)
    exact = expectimax(game, depth=3)
    assert star1(game, depth=3).value == exact.value
    for epsilon in (0, 1, 2, 4, 8):
        result = bab(game, depth=3, epsilon=epsilon)
        assert result.lower <= exact.value <= result.upper
        assert result.width <= epsilon
        assert game.vmin <= result.lower and result.upper <= game.vmax


@pytest.mark.parametrize("settings", [
    dict(width=4, height=4, cops=2, stochastic=True, seed=1),
    dict(width=5, height=5, cops=2, obstacles=0.2, stochastic=True, p=0.7, seed=2),
    dict(width=4, height=4, cops=2, seed=3),
])
def test_cops_robbers_star1_equals_expectimax_at_depth_4(settings):
    game = CopsAndRobbers(**settings)
    exact = expectimax(game, depth=4)
    pruned = star1(game, depth=4)
    assert pruned.value == exact.value
    assert pruned.evaluated <= exact.evaluated


def test_depth_limit_makes_the_searched_tree_a_game():
    for stochastic in (False, True):
        plain = CopsAndRobbers(width=4, height=4, cops=2, stochastic=stochastic, seed=4)
        limited = CopsAndRobbers(width=4, height=4, cops=2, stochastic=stochastic, seed=4, depth_limit=3)
        assert expectimax(limited).value == expectimax(plain, depth=3).value
        assert longest_game(limited) == 3


def test_stochastic_chance_states():
    game = CopsAndRobbers(width=4, height=4, cops=2, stochastic=True, seed=0)
    s = game.initial_state()
    legal = game.moves(s)
    chosen = legal[1]
    c = game.result(s, chosen)
    assert game.turn(c) is Player.CHANCE and c.chosen == chosen and c.robber == s.robber
    outcomes = dict(game.chance_outcomes(c))
    assert list(outcomes) == legal
    assert outcomes[chosen] == Fraction(4, 5)
    assert all(p == Fraction(1, 5) / (len(legal) - 1) for m, p in outcomes.items() if m != chosen)
    assert "chance decides" in game.render(c, status=True)
    # The cops' chance node spreads 1 - p over all other joint moves.
    after = game.result(c, legal[0])
    cops_chance = game.result(after, game.moves(after)[0])
    b = len(game.moves(after))
    check_chance_state(game, cops_chance)
    assert len(game.chance_outcomes(cops_chance)) == b
    # With p = 1 the chosen move always happens.
    sure = CopsAndRobbers(width=4, height=4, cops=2, stochastic=True, p=1, seed=0)
    assert sure.chance_outcomes(sure.result(sure.initial_state(), chosen)) == [(chosen, 1)]


def test_state_at_places_pieces():
    game = CopsAndRobbers.from_text("R . # . C")
    s = game.state_at((0, 1), [(0, 4)])
    assert game.evaluate(s) == 3 and not s.caught
    t = game.state_at((0, 3), [(0, 4)], rounds=2, to_move=Player.MIN)
    assert game.turn(t) is Player.MIN and game.evaluate(t) == 2    # 1 round completed + distance 1
    with pytest.raises(ParameterError, match="blocked"):
        game.state_at((0, 2), [(0, 4)])
    with pytest.raises(ParameterError, match="off the grid"):
        game.state_at((1, 0), [(0, 4)])
    with pytest.raises(ParameterError, match="1 cops, got 2"):
        game.state_at((0, 0), [(0, 4), (0, 3)])
    with pytest.raises(ParameterError, match="rounds must be an integer from 1"):
        game.state_at((0, 0), [(0, 4)], to_move=Player.MIN)
    for bad in (3, (0, 1, 2), ("0", 1), (0, True)):
        with pytest.raises(ParameterError, match=r"\(row, column\), two integers"):
            game.state_at(bad, [(0, 4)])


def test_bab_rejects_estimates_outside_the_bounds():
    # The game's own EVAL always fits; a foreign one that does not is caught by BAB.
    game = CopsAndRobbers()
    with pytest.raises(BoundsError):
        bab(game, depth=1, evaluate=lambda s: game.vmax + 1)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"width": 0}, "width must be an integer >= 1"),
    ({"height": 2.5}, "height must be an integer"),
    ({"cops": 0}, "cops must be an integer >= 1"),
    ({"obstacles": 1.0}, "obstacles is the fraction"),
    ({"obstacles": -0.1}, "obstacles is the fraction"),
    ({"seed": "x"}, "seed must be an integer"),
    ({"stochastic": "yes"}, "stochastic must be True or False"),
    ({"p": 0}, "0 < p <= 1"),
    ({"p": 1.5}, "0 < p <= 1"),
    ({"time_limit": 0}, "time_limit must be an integer >= 1"),
    ({"depth_limit": 0}, "depth_limit must be an integer >= 1"),
    ({"width": 2, "height": 2, "cops": 3, "obstacles": 0.25}, "too few for 3 cops"),
    ({"width": 1, "height": 1, "cops": 1}, "too few for 1 cops"),
])
def test_cops_robbers_rejects_bad_parameters(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        CopsAndRobbers(**kwargs)


@pytest.mark.parametrize("text, fragment", [
    ("", "the map is empty"),
    ("R . C\n. .", "different lengths"),
    ("R . X", "unknown map symbol 'X'"),
    ("R R C", "exactly one robber"),
    (". . C", "exactly one robber"),
    ("R . .", "at least one cop"),
])
def test_cops_robbers_rejects_bad_maps(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        CopsAndRobbers.from_text(text)


def test_cops_robbers_rejects_bad_calls():
    game = CopsAndRobbers(width=3, height=3, cops=1)
    with pytest.raises(ParameterError, match="only in the stochastic game"):
        game.chance_outcomes(game.initial_state())
    with pytest.raises(ParameterError, match="game in progress"):
        game.utility(game.initial_state())
    with pytest.raises(ParameterError, match="illegal move"):
        game.result(game.initial_state(), ("N",))


@pytest.mark.parametrize("game", [
    CopsAndRobbers(obstacles=0.2, seed=9, stochastic=True, p=0.7, depth_limit=5),
    CopsAndRobbers.from_text("R . # C\n. . . C", time_limit=4),
    CopsAndRobbers(width=3, height=3, cops=1, stochastic=True, p=Fraction(2, 3)),
])
def test_cops_robbers_repr_rebuilds_the_game(game):
    again = eval(repr(game))
    assert again.blocked == game.blocked and again.initial_state() == game.initial_state()
    assert (again.stochastic, again.p, again.time_limit, again.depth_limit) == (
        game.stochastic, game.p, game.time_limit, game.depth_limit)
