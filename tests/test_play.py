"""Play against a search (course.play): the game loop, a student's search run safely, and what
minimax thinks of each machine move.

* The course's alpha-beta and the solution's alpha-beta play the same moves, visit the same
  number of nodes (the recording counts what the reference counts) and always agree with minimax.
* A broken alpha-beta is seen to disagree with minimax, on its value and on its move.
* Value-only, depth-limited and bounded (epsilon) functions play; so does Star1 on Pig, whose
  die rolls come from the match's seed.
* A search that crashes, loops or returns nonsense never stops the game: the error is named and
  the first legal move played.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from course import Player
from course.errors import ParameterError
from course.games import Pig, TicTacToe
from course.play import Match, SearchPlayer, play_values

sys.path.insert(0, str(Path(__file__).parent))
from test_grading_mutants import MUTANTS, _mutated_source  # noqa: E402
from test_grading_support import SOLUTIONS, read_cells  # noqa: E402


def solution(notebook: str, cell: str, name: str):
    namespace = {"Player": Player, "math": math, "Fraction": Fraction}
    cells = {c.grade_id: c for c in read_cells(SOLUTIONS / notebook)}
    exec(cells[cell].source, namespace)
    return namespace[name]


def mutant(name: str, function: str):
    namespace = {"Player": Player, "math": math, "Fraction": Fraction}
    exec(_mutated_source(next(m for m in MUTANTS if m.name == name)), namespace)
    return namespace[function]


def play_out(match: Match, pick=lambda moves: moves[0][0]) -> Match:
    match.advance()
    while not match.over:
        match.play(pick(match.legal_moves()))
        match.advance()
    return match


def test_the_course_and_the_solution_play_alike_and_agree_with_minimax():
    ours = play_out(Match(TicTacToe(), "alphabeta", human="O", seed=1))
    theirs = play_out(Match(TicTacToe(), solution("a2_alphabeta/alphabeta.ipynb", "a2-alphabeta",
                                                  "alphabeta_decision"), human="O", seed=1))
    assert [m.move for m in ours.machine_moves] == [m.move for m in theirs.machine_moves]
    assert [m.nodes for m in ours.machine_moves] == [m.nodes for m in theirs.machine_moves]
    assert all(m.agrees and m.verdict.startswith("Agrees with minimax") for m in theirs.machine_moves)
    assert ours.outcome() == "the machine wins"       # the first-cell player loses
    assert theirs.last.result is not None and theirs.last.picture(TicTacToe()) is not None


def test_a_broken_alpha_beta_is_seen_to_disagree():
    broken = mutant("alpha-beta: window updated before the test", "alphabeta_decision")
    match = play_out(Match(TicTacToe(), broken, human="O", seed=1))
    verdicts = [m.verdict for m in match.machine_moves]
    assert not match.machine_moves[0].agrees
    assert "it says the position is worth 1, minimax says 0" in verdicts[0]
    assert any("is worth 0 by minimax; the best" in v for v in verdicts), verdicts


def test_the_machine_never_loses_with_alphabeta():
    import random

    for seed in range(3):
        rng = random.Random(seed)
        for human in ("X", "O"):
            match = play_out(Match(TicTacToe(), "alphabeta", human=human, seed=seed),
                             pick=lambda moves: rng.choice(moves)[0])
            assert match.outcome() in ("a draw", "the machine wins")
            assert all(m.agrees for m in match.machine_moves)


def test_value_only_depth_limited_and_bounded_functions_play():
    value_only = solution("a1_minimax/minimax.ipynb", "a1-minimax-value", "minimax_value")
    match = Match(TicTacToe(start="X.. / .O. / ..."), value_only, human="O", seed=2)
    match.advance()
    assert match.last.agrees and match.last.nodes > 0 and not match.last.error

    limited = solution("a1_minimax/minimax.ipynb", "a1-depth-limited", "depth_limited_decision")
    match = Match(TicTacToe(), limited, human="O", depth=2, seed=2)
    match.advance()
    assert "to the same depth (2)" in match.last.verdict and match.last.agrees
    assert match.last.nodes == sum(1 for _ in match.last.result.trace if _.kind in ("enter", "leaf"))

    bounded = solution("a4_bounded/bounded.ipynb", "a4-bab", "bab_search")
    match = Match(TicTacToe(start="XO. / ... / ..."), bounded, human="O", epsilon=1, seed=2)
    match.advance()
    assert match.last.lower <= match.last.true_value <= match.last.upper and match.last.agrees


def test_star1_plays_pig_with_seeded_dice():
    star = solution("a3_chance/chance.ipynb", "a3-star1", "star1_decision")
    logs = []
    for machine in ("star1", star, star):
        match = play_out(Match(Pig(target=4, faces=3, turn_limit=2), machine, human="MAX", seed=8),
                         pick=lambda moves: moves[-1][0])
        assert all(m.agrees and "expectimax" in m.verdict for m in match.machine_moves)
        logs.append(match.log)
    assert logs[0] == logs[1] == logs[2]
    assert any(line.startswith("Die: rolled") for line in logs[0])


def test_alphabeta_is_refused_on_a_game_with_chance():
    with pytest.raises(ParameterError, match="chance nodes"):
        Match(Pig(), "alphabeta", human="MIN").advance()


def test_a_failing_search_never_stops_the_game():
    def crashes(game, state):
        raise ValueError("not today")

    def loops(game, state):
        while True:
            game.moves(state)

    def nonsense(game, state):
        return "three"

    for fn, words in ((crashes, "raised ValueError: not today"),
                      (loops, "did not finish within 0.5 seconds"),
                      (nonsense, "expected (value, move)")):
        match = Match(TicTacToe(start="XO. / ... / ..."), fn, human="O", seed=1, time_limit=0.5)
        match.advance()
        made = match.last
        assert words in made.error, made.error
        assert made.move == match.game.moves(made.state)[0] and not made.agrees
        assert "the first legal move was played" in made.verdict
        assert match.human_to_move


def test_a_person_plays_only_legal_moves_in_turn():
    match = Match(TicTacToe(), "alphabeta", human="X", seed=1)
    with pytest.raises(ParameterError, match="not a legal move"):
        match.play(9)
    match.play(4)
    with pytest.raises(ParameterError, match="not your turn"):
        match.play(0)
    assert match.advance() and match.human_to_move
    with pytest.raises(ParameterError, match="unknown search"):
        SearchPlayer("alfabeta")


def test_play_values_are_each_moves_minimax_value():
    game = TicTacToe(start="XX. / OO. / ...")
    values = play_values(game, game.initial_state())
    assert values[2] == 1 and values[5] == 0 and values[6] == -1


# -- issue 30, item 10: new dice for each game, and why a game ended ---------------------------

def _rolls(match: Match) -> list[str]:
    return [line for line in match.log if line.startswith("Die:")]


def test_each_new_game_rolls_new_dice_and_its_seed_replays_it():
    pig = Pig(target=5, faces=3, turn_limit=4)
    hold_at_2 = lambda moves: moves[-1][0] if len(moves) > 1 else moves[0][0]  # noqa: E731
    match = play_out(Match(pig, "star1", human="MAX", seed=8), pick=hold_at_2)
    games = [(match.game_seed, _rolls(match))]
    for _ in range(3):
        match.new_game()
        play_out(match, pick=hold_at_2)
        games.append((match.game_seed, _rolls(match)))
    seeds = [seed for seed, _ in games]
    assert seeds[0] == 8 and len(set(seeds)) == 4, seeds
    assert len({tuple(rolls) for _, rolls in games}) > 1, "New game replayed the same dice"
    for seed, rolls in games:                      # any game, replayed from its seed
        again = play_out(Match(pig, "star1", human="MAX", seed=seed), pick=hold_at_2)
        assert _rolls(again) == rolls
    # the same match seed rolls the same games again, one after the other
    other = Match(pig, "star1", human="MAX", seed=8)
    for _ in range(3):
        other.new_game()
    assert other.game_seed == seeds[-1]
    assert match.new_game(seed=seeds[1]) is None and match.game_seed == seeds[1]


def test_the_widgets_new_game_and_a_change_of_sides_roll_new_dice():
    from course.widgets.play import play_pig

    w = play_pig(seed=3, target=5, faces=3, turn_limit=2)
    seeds = [w.match.game_seed]
    w._on_message(None, {"type": "new"}, [])
    seeds.append(w.match.game_seed)
    w._on_message(None, {"type": "new", "human": "MIN"}, [])
    seeds.append(w.match.game_seed)
    assert len(set(seeds)) == 3 and w.match.human is Player.MIN
    assert ["Dice seed (replay: seed=…)", seeds[-1]] in w.board.view["scores"]


def test_a_pig_win_below_the_target_says_why_the_game_ended():
    from course.widgets.play import play_pig

    w = play_pig(seed=1, target=20, faces=3, turn_limit=2)        # nobody can reach 20
    while not w.match.over:
        legal = w.match.legal_moves()
        w.move(len(legal) - 1)                                      # hold as soon as possible
    state = w.match.state
    assert max(state.max_score, state.min_score) < 20
    words = w.board.view["status"]
    assert "the turn limit (2 turns) is used up" in words, words
    assert "the target 20 was not reached" in words or "equal scores" in words, words
    assert "turn limit" in w.board.view["announce"] and "turn limit" in w.match.log[-1]
