"""No picture, text alternative, step line or narration shows a bound as a value (issue 30, item 3).

Every drawn node's "value ..." in a picture's text alternative (:meth:`TreePicture.describe`, the
same words as the tooltips and "The tree in text") is read back and checked against the node's
true value, computed here by brute force: an exact number must be the value, ``≤v``/``≥v``/
``[L, U]`` must contain it.  The same for each step of a step-through, for :func:`narrate`, and
for the play widget, whose picture used to label three of O's options ``0`` (alpha-beta's bound
``≥0``) although they are worth 1.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import games

from course import alphabeta, bab, expectimax, minimax, naive_epsilon, parse_tree, star1
from course.draw import draw_tree
from course.examples import naive_epsilon_counterexample
from course.game import Player
from course.text import narrate
from test_children_bounds import true_values

LINE = re.compile(r"^(\w+): (\w+) node (root|\([\d, ]*\))(?: \([^)]*\))?; value (.+?)(?:;|, the |, evaluated|$)")


def number(text: str):
    text = text.strip().replace("−", "-")
    if text in ("+∞", "∞"):
        return math.inf
    if text == "-∞":
        return -math.inf
    return Fraction(text)


def claim(text: str):
    """``(lower, upper)`` claimed by a label: ``3``, ``≤2``, ``≥0``, ``[1, 4]``; None for ``…``."""
    text = text.strip()
    if text in ("…", "?") or text.startswith("so far"):
        return None
    if text.startswith("≤"):
        return -math.inf, number(text[1:])
    if text.startswith("≥"):
        return number(text[1:]), math.inf
    if text.startswith("["):
        low, high = text[1:-1].split(",")
        return number(low), number(high)
    x = number(text)
    return x, x


def close(a, b) -> bool:
    """Equal up to the pictures' rounding (three significant digits)."""
    if a == b:
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= Fraction(1, 1000) + abs(b) * Fraction(6, 1000)


def check_lines(lines, value_of) -> int:
    """Each ``value ...`` in ``lines`` is true of its node; returns how many were checked."""
    checked = 0
    for line in lines:
        match = LINE.match(line.strip())
        if not match:
            continue
        path = () if match.group(3) == "root" else tuple(int(i) for i in re.findall(r"\d+", match.group(3)))
        said = claim(match.group(4))
        if said is None:
            continue
        v = value_of(path)
        if v is None:
            continue
        low, high = said
        if low == high:
            assert close(low, v), f"{line!r}: drawn as the value {low}, but the node is worth {v}"
        else:
            assert (low <= v or close(low, v)) and (v <= high or close(high, v)), \
                f"{line!r}: the bounds do not contain the node's value {v}"
        checked += 1
    return checked


def outline_lines(picture):
    return [text for _, text in picture.outline]


# -- the examples --------------------------------------------------------------------------------

def test_lesson_2_tree_picture_and_steps_say_at_most_2():
    game = parse_tree([[3, 12, 8], [2, 1, 6], [14, 5, 2]])
    result = alphabeta(game, trace=True)
    text = draw_tree(game, result).describe()
    assert "MIN node (1,); value ≤2" in text and "MIN node (1,); value 2;" not in text
    assert check_lines(text.splitlines(), true_values(game.root).get) == 13
    lines = narrate(result)
    assert "  (1,) returns 2, only a bound: its value is at most 2" in lines


def test_naive_epsilon_picture_shows_what_is_known():
    game = naive_epsilon_counterexample(m=3, x=10, epsilon=1)
    result = naive_epsilon(game, epsilon=1, trace=True)
    text = draw_tree(game, result).describe()
    assert check_lines(text.splitlines(), true_values(game.root).get) > 0
    assert "MAX node root (A); value [10, 13]" in text, text.splitlines()[:2]


def test_step_through_lines_say_bounds():
    from course.widgets import step_through

    game = parse_tree([[3, 12, 8], [2, 1, 6], [14, 5, 2]])
    player = step_through(game)
    said = []
    for upto in range(1, player.slider.max + 1):
        player.slider.value = upto
        said.append(player.event.value)
        picture = player.tree_picture
        # a node that has returned is drawn with what is known about it, at every step
        check_lines(outline_lines(picture), true_values(game.root).get)
    returns = [line for line in said if "(1,) returns" in line]
    assert returns and "only a bound: worth at most 2" in returns[0], returns


# -- properties over random trees ----------------------------------------------------------------

lean = settings(max_examples=120, deadline=None)


@lean
@given(games(max_depth=3), st.sampled_from(["alphabeta", "naive1", "minimax"]), st.data())
def test_pictures_of_decision_searches_never_show_a_bound_as_a_value(game, which, data):
    search = {"alphabeta": lambda g: alphabeta(g, trace=True),
              "naive1": lambda g: naive_epsilon(g, epsilon=1, trace=True),
              "minimax": lambda g: minimax(g, trace=True)}[which]
    result = search(game)
    truth = true_values(game.root)
    assert check_lines(outline_lines(draw_tree(game, result)), truth.get) > 0
    upto = data.draw(st.integers(0, len(result.trace)))
    check_lines(outline_lines(draw_tree(game, result, upto=upto)), truth.get)
    check_narration(narrate(result), truth)


@lean
@given(games(chance=True, max_depth=3), st.sampled_from([0, 1, 3]))
def test_pictures_of_bounded_searches_never_show_a_bound_as_a_value(game, epsilon):
    truth = true_values(game.root)
    for result in (bab(game, epsilon=epsilon, trace=True), expectimax(game, trace=True)):
        assert check_lines(outline_lines(draw_tree(game, result)), truth.get) > 0
        check_narration(narrate(result), truth)


NARRATED = re.compile(r"^(root|\([\d, ]*\)) returns (?:value )?(\S+?)(?:,|:|$)")


def check_narration(lines, truth):
    """A "returns v" line without "only a bound" claims the value v."""
    for line in lines:
        match = NARRATED.match(line.strip())
        if not match or "only a bound" in line or "bounds [" in line:
            continue
        path = () if match.group(1) == "root" else tuple(int(i) for i in re.findall(r"\d+", match.group(1)))
        said = Fraction(match.group(2)) if re.fullmatch(r"-?[\d./]+", match.group(2)) else None
        if said is not None:
            assert close(said, truth[path]), f"{line!r}: the node is worth {truth[path]}"


# -- the play widget ------------------------------------------------------------------------------

def replay(game, state, path):
    for i in path:
        moves = ([m for m, _ in game.chance_outcomes(state)] if game.turn(state) is Player.CHANCE
                 else list(game.moves(state)))
        state = game.result(state, moves[i])
    return state


def play_values(game, start, search):
    cache = {}

    def value(path):
        if path not in cache:
            state = replay(game, start, path)
            cache[path] = game.utility(state) if game.is_terminal(state) else search(game, state).value
        return cache[path]

    return value


@pytest.mark.parametrize("human", ["X", "O"])
def test_play_widget_never_labels_a_bound_as_a_value(human):
    from course.widgets.play import play_tictactoe

    w = play_tictactoe(human=human, seed=1)
    checked, bounds_seen = 0, 0
    if w.match.last is None:                       # X: the person moves first
        w.move(0)
    for _ in range(3):
        made = w.match.last
        value = play_values(w.match.game, made.state, alphabeta)
        shown = [text for _, text, _ in w.picture.outline]        # "The tree in text" as sent
        assert shown, "the widget draws the machine's search"
        checked += check_lines(shown, value)
        bounds_seen += sum("value ≥" in t or "value ≤" in t for t in shown)
        assert "value" not in w.board.view["last"]["value"]
        if w.match.over:
            break
        w.move(0)
    assert checked > 10 and bounds_seen > 0


def test_play_widget_issue_example_o_options_are_at_least_0():
    """The issue's picture: X in the centre, the machine (O) answers; its options were drawn "0"."""
    from course.widgets.play import play_tictactoe

    w = play_tictactoe(human="X", seed=1)
    w.move(4)
    made = w.match.last
    value = play_values(w.match.game, made.state, alphabeta)
    rows = [text for _, text, _ in w.picture.outline]
    ones = [r for r in rows if r.startswith("visited: MAX node (") and value(
        tuple(int(i) for i in re.findall(r"\d+", r.split(";")[0]))) == 1]
    assert ones, rows
    for row in ones:
        assert "; value 0" not in row and "; value ≥0" in row, row
    assert check_lines(rows, value) == len(rows)


def test_pig_play_widget_pictures_are_honest():
    from course.widgets.play import play_pig

    w = play_pig(seed=3, target=4, faces=3, turn_limit=2, human="MIN")   # the machine starts
    made = w.match.last
    assert made is not None
    value = play_values(w.match.game, made.state, expectimax)
    rows = [text for _, text, _ in w.picture.outline]
    assert check_lines(rows, value) > 3
