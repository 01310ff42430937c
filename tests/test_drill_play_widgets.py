"""The drill and play widgets in the kernel: what the browser sends, what Python answers.

The browser halves (drill.js, play.js, player.js) are driven in tests/browser/test_browser_drills.py;
here the messages they send are sent directly, and the traits they draw from are checked.  Also:
the step-through's player pauses instead of resetting, and drills and play work without numpy
(the JupyterLite edition).
"""

from __future__ import annotations

import ipywidgets
import pytest

from course.drills import Progress, make_drill
from course.examples import aima_figure_5_2
from course.games import Pig, TicTacToe
from course.play import Match
from course.widgets import drill, play_pig, play_tictactoe
from course.widgets.drill import DrillWidget
from course.widgets.play import PlayWidget
from course.widgets.player import Player


def _send(widget, content):
    widget._handle_custom_msg(content, [])


# --- the drill widget -----------------------------------------------------------------------------
def test_a_wrong_answer_is_explained_drawn_and_counted_once():
    progress = Progress()
    w = DrillWidget(make_drill("pruning", tree=aima_figure_5_2()), progress=progress)
    assert [f["id"] for f in w.answer.drill["fields"]][:3] == ["B1", "B2", "B3"]
    assert w.picture.dot and "n_1_1" in w.picture.nodes
    _send(w.answer, {"type": "check", "values": {"C3": True}})
    v = w.answer.verdict
    assert v["checked"] and not v["correct"] and v["wrong"] == ["C2"] and v["node"] == "C"
    assert v["explanation"].startswith("C2 is never looked at. At C (MIN)")
    assert w.picture.nodes["n_1"] == "current"          # the search stopped where C decides
    _send(w.answer, {"type": "check", "values": {"C2": True, "C3": True}})
    assert w.answer.verdict["correct"] and w.picture.nodes["n_1_1"] == "pruned"
    stats = progress.stats("pruning")
    assert stats.attempts == 1 and stats.streak == 0      # only the first check counts
    assert w.answer.progress["streak"] == 0 and "pruning:" in w.answer.progress["line"]


def test_new_drills_codes_and_bad_codes():
    w = drill("window", level=2, seed=5, progress=Progress())
    assert w.drill.code == "window-2-5" and w.top.drill["code"] == "window-2-5"
    _send(w.top, {"type": "new", "kind": "bab", "level": 3})
    assert w.drill.kind == "bab" and w.drill.level == 3 and w.top.announce_new
    _send(w.top, {"type": "new", "code": "minimax-1-9"})
    assert w.drill.code == "minimax-1-9"
    _send(w.top, {"type": "new", "code": "not a code"})
    assert w.drill.code == "minimax-1-9" and "not a drill code" in w.top.message
    _send(w.top, {"type": "new", "kind": "os.system", "level": 99})     # ignored, not raised
    assert w.drill.kind == "minimax"


def test_show_answer_fills_the_form_and_counts_as_a_miss():
    progress = Progress()
    w = DrillWidget(make_drill("star1", level=2, seed=3), progress=progress)
    _send(w.answer, {"type": "reveal"})
    v = w.answer.verdict
    assert v["correct"] and v["summary"] == "The answer:" and v["answer"] == w.drill.form(w.drill.expected)
    assert progress.stats("star1").attempts == 1 and progress.stats("star1").streak == 0


def test_a_click_on_a_node_goes_to_its_box():
    w = DrillWidget(make_drill("pruning", tree=aima_figure_5_2()), progress=Progress())
    w.picture._handle_custom_msg({"type": "node-click", "id": "n_2_1"}, [])
    assert w.answer.select["field"] == "D2" and w.answer.select["toggle"]
    w.picture._handle_custom_msg({"type": "node-click", "id": "n_2_1"}, [])
    assert w.answer.select["n"] == 2                      # a second click is a new event
    w.picture._handle_custom_msg({"type": "node-click", "id": "<img onerror=x>"}, [])
    assert w.answer.select["n"] == 2
    assert w.picture.click_zoom is False


def test_every_kind_round_trips_through_the_form():
    from course.drills import KINDS

    for kind in KINDS:
        w = drill(kind, level=3, seed=21, progress=Progress())
        assert w.check(w.drill.form(w.drill.expected)).correct, kind


# --- the play widget ------------------------------------------------------------------------------
def test_playing_tictactoe_through_the_board():
    w = play_tictactoe(human="X", seed=1)
    view = w.board.view
    assert view["your_turn"] and len(view["legal"]) == 9 and "last" not in view
    _send(w.board, {"type": "move", "index": 4})          # X takes the centre
    view = w.board.view
    assert view["board"][4] == "X" and view["last"]["agrees"]
    assert "nodes in" in view["announce"] and "Agrees with minimax" in view["announce"]
    assert w.picture.dot.startswith("digraph")
    _send(w.board, {"type": "move", "index": 99})         # not a legal move: said, not raised
    assert "not playable" in w.board.view["status"]
    _send(w.board, {"type": "new", "human": "O"})
    assert w.match.human is not None and w.board.view["human"] == "O"
    assert w.board.view["board"].count("X") == 1 and w.board.view["your_turn"]


def test_a_broken_search_shows_its_disagreement_on_the_board():
    def max_everywhere(game, state):
        def value(s):
            if game.is_terminal(s):
                return game.utility(s)
            return max(value(game.result(s, m)) for m in game.moves(s))
        return max((value(game.result(state, m)), m) for m in game.moves(state))

    w = play_tictactoe(max_everywhere, human="X", seed=1)
    _send(w.board, {"type": "move", "index": 0})
    last = w.board.view["last"]
    assert not last["agrees"] and last["verdict"].startswith("Disagrees with minimax")


def test_pig_on_the_board():
    w = play_pig(target=4, faces=3, turn_limit=2, human="MIN", seed=4)
    view = w.board.view
    assert view["kind"] == "other" and view["scores"][0][0] == "You (MIN)"
    while w.match.human_to_move:
        _send(w.board, {"type": "move", "index": len(w.board.view["legal"]) - 1})
    assert w.match.over and "Game over" in w.board.view["status"]
    assert any(line.startswith("Die:") for line in w.board.view["log"])


# --- the step-through's player: pausing keeps the step ----------------------------------------------
def test_the_step_through_has_one_play_pause_button():
    from course.widgets import step_through

    player = step_through(aima_figure_5_2())
    assert isinstance(player.play, Player) and not isinstance(player.play, ipywidgets.Play)
    player.slider.value = 7
    player.play.playing = True
    player.play.playing = False                            # pause
    assert player.slider.value == 7
    assert player.play.label == "Play the search step by step"


# --- without numpy: the JupyterLite edition ------------------------------------------------------------
def test_drills_and_play_without_numeric_packages():
    from test_lite_imports import run_blocked

    run_blocked("""
        from course.drills import make_drill
        from course.widgets import drill
        from course.play import Match
        from course.widgets import play_tictactoe
        from course.games import TicTacToe
        d = make_drill("bab", level=5, seed=3)
        assert d.check(d.expected).correct
        assert make_drill(code="bab-5-3").expected == d.expected
        w = drill("star1", level=2, seed=1)
        m = Match(TicTacToe(), "alphabeta", human="O", seed=1)
        m.advance()
        assert m.last.agrees
        play_tictactoe(human="X")
    """)


def test_pinned_trees_are_the_same_without_numpy():
    """The share code's tree comes from the pure-Python PCG64 whether numpy is there or not."""
    from test_lite_imports import run_blocked

    expected = make_drill(code="pruning-4-77").expected
    out = run_blocked("""
        from course.drills import make_drill
        print(make_drill(code="pruning-4-77").expected)
    """)
    assert repr(expected) in out
