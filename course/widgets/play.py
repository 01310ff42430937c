"""The play widget: a board to play a game on against a search, and the search's last tree.

A :class:`PlayWidget` is a column of a :class:`PlayBoard` (one small ES module,
``play.js``: the board or the move buttons, the scores, the machine's last move with
its value, nodes, time and minimax's verdict, the moves so far) and a
:class:`~course.widgets.TreeView` drawing the machine's last search, its first levels.
The game itself is a :class:`course.play.Match`; a notebook builds the widget with
:func:`play_tictactoe`, :func:`play_pig` or :func:`play` (``from course.widgets import
play_tictactoe``).

>>> from course.games import TicTacToe
>>> from course.play import Match
>>> w = PlayWidget(Match(TicTacToe(), "alphabeta", human="O", seed=1))
>>> w.board.view["your_turn"], w.board.view["last"]["agrees"]
(True, True)
>>> w.move(0)                       # the first legal move: the first empty cell
>>> w.match.last.nodes > 0 and "nodes" in w.board.view["announce"]
True
"""

from __future__ import annotations

from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

from ..errors import CourseError
from ..game import Game, Player
from ..play import DEFAULT_TIME_LIMIT, Match, SearchPlayer, max_name, show_value
from ._esm import esm
from .tree_view import TreeView

__all__ = ["play", "play_tictactoe", "play_pig", "PlayWidget", "PlayBoard"]


class PlayBoard(anywidget.AnyWidget):
    """The board and the numbers (see the module docstring)."""

    _esm = esm("play.js")

    view = traitlets.Dict().tag(sync=True)


class PlayWidget(widgets.VBox):
    """A game against a search, on screen.

    Attributes
    ----------
    match : Match
        The game being played.
    board : PlayBoard
        The board, the scores and the machine's last move.
    picture : TreeView
        The machine's last search (its first :attr:`depth` levels).
    depth : int
        Levels of the machine's search drawn: at most this many (default 2 for tic-tac-toe, 3
        otherwise), fewer when the deepest level would have more than :data:`DRAWN_NODES` nodes.
    error : str
        The last problem (an illegal move sent, a search that could not run), or "".
    """

    def __init__(self, match: Match, *, depth: int | None = None) -> None:
        self.match = match
        self._auto_depth = depth is None
        self.depth = depth if depth is not None else (2 if _is_tictactoe(match.game) else 3)
        self.board = PlayBoard()
        self.board.on_msg(self._on_message)
        self.picture = TreeView(max_height=360, announce=False, layout=widgets.Layout(width="100%"))
        self.error = ""
        self._n = 0
        super().__init__(children=[self.board, self.picture])
        self._advance()

    # -- what the student does -------------------------------------------------------------------
    def move(self, index: int) -> None:
        """Play the ``index``-th legal move (the board's order), then let the machine answer."""
        legal = self.match.legal_moves()
        if not self.match.human_to_move or not 0 <= index < len(legal):
            self.error = "that move is not playable now"
            self._refresh(announce=self.error)
            return
        self.match.play(legal[index][0])
        self._advance(after=f"You played {legal[index][1]}. ")

    def new_game(self, human: Any = None) -> None:
        """Start again (optionally changing sides), with new dice: the machine moves at once if
        it starts.  The match goes on (its next game's seed, :attr:`Match.game_seed`)."""
        if human is not None:
            old = self.match
            try:
                self.match = Match(old.game, old.machine, human=human, seed=old.seed)
                self.match.games = old.games          # the match's next game: new dice
            except CourseError as exc:
                self.error = str(exc)
        self.match.new_game()
        self._advance(after="New game. ")

    # -- internals -----------------------------------------------------------------------------
    def _advance(self, after: str = "") -> None:
        before = len(self.match.machine_moves)
        try:
            self.match.advance()
            self.error = ""
        except CourseError as exc:
            self.error = str(exc)
        made = self.match.last if len(self.match.machine_moves) > before else None
        words = after
        if made is not None:
            words += (f"The machine played {made.label}: {made.nodes:,} nodes in "
                      f"{made.seconds:.2f} s. {made.verdict} ")
        if self.match.over:
            words += f"Game over: {self.match.outcome()}."
        elif self.match.human_to_move:
            words += "Your move."
        self._refresh(announce=words or None)
        if made is not None:
            self._draw(made)

    def _draw(self, made: Any) -> None:
        depth = self.depth
        if self._auto_depth:
            depth = _readable_depth(self.match.game, made.state, depth)
        try:
            self.picture.show(made.picture(self.match.game, depth=depth))
        except CourseError:
            self.picture.show(None)

    def _refresh(self, announce: str | None = None) -> None:
        m = self.match
        game = m.game
        tictactoe = _is_tictactoe(game)
        human = ("X" if m.human is Player.MAX else "O") if tictactoe else m.human.name
        machine_name = m.machine.name
        view: dict[str, Any] = {
            "title": f"{_game_name(game)} against {machine_name}",
            "kind": "tictactoe" if tictactoe else "other",
            "human": human,
            "sides": ([["X", "X (you move first)"], ["O", "O (the machine moves first)"]] if tictactoe
                      else [["MAX", "MAX (you move first)"], ["MIN", "MIN (the machine moves first)"]]),
            "your_turn": m.human_to_move,
            "legal": [{"label": label, "cell": move if tictactoe else None}
                      for move, label in m.legal_moves()] if m.human_to_move else [],
            "log": list(m.log),
            "status": self._status(human),
            "n": self._n + 1,
        }
        self._n += 1
        if tictactoe:
            from ..games.tictactoe import CELL_NAMES

            view["board"] = m.state.cells
            view["cell_names"] = list(CELL_NAMES)
            last = m.last
            view["last_cell"] = last.move if last is not None and isinstance(last.move, int) else None
        elif hasattr(m.state, "turn_total"):
            view["scores"] = _pig_scores(m, human)
        if m.last is not None:
            made = m.last
            value = (show_value(made.value) if made.lower == made.upper or made.upper is None
                     else f"[{show_value(made.lower)}, {show_value(made.upper)}]")
            view["last"] = {
                "label": made.label, "value": f"{value} (for {max_name(game)})",
                "nodes": f"{made.nodes:,} ({made.expanded:,} expanded, {made.evaluated:,} leaves)",
                "time": f"{made.seconds:.3f} s", "true_value": show_value(made.true_value),
                "verdict": made.verdict, "agrees": made.agrees, "error": made.error,
                "output": made.output[:2000],
            }
        if self.error:
            view["status"] = f"{view['status']} ({self.error})"
        view["announce"] = announce or ""
        self.board.view = view

    def _status(self, human: str) -> str:
        m = self.match
        if m.over:
            return f"Game over: {m.outcome()}."
        if m.human_to_move:
            return f"Your move: you play {human}."
        return "The machine is searching…"

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("type") == "move" and isinstance(content.get("index"), int):
            self.move(content["index"])
        elif content.get("type") == "new":
            human = content.get("human")
            self.new_game(human if human in ("X", "O", "MAX", "MIN") else None)


#: A drawn level of the machine's search holds at most about this many nodes (else one level less).
DRAWN_NODES = 40


def play(game: Game, search: Any = "alphabeta", *, human: Any = Player.MAX, seed: int | None = None,
         depth: int | None = None, epsilon: Any = None, evaluate: Any = None,
         time_limit: float = DEFAULT_TIME_LIMIT, draw_depth: int | None = None) -> PlayWidget:
    """Play ``game`` against ``search`` in a notebook.

    Parameters are those of :class:`course.play.Match` and :class:`course.play.SearchPlayer`;
    ``draw_depth`` is how many levels of the machine's search are drawn (default 2 for
    tic-tac-toe, 3 otherwise).

    Examples
    --------
    >>> from course.games import TicTacToe
    >>> w = play(TicTacToe(), "alphabeta", human="O", seed=1)
    >>> w.board.view["your_turn"]
    True
    """
    machine = SearchPlayer(search, depth=depth, epsilon=epsilon, evaluate=evaluate,
                           time_limit=time_limit)
    return PlayWidget(Match(game, machine, human=human, seed=seed), depth=draw_depth)


def play_tictactoe(search: Any = "alphabeta", *, human: str = "X", **options: Any) -> PlayWidget:
    """Tic-tac-toe against ``search`` (the course's by name, or your function).

    ``play_tictactoe()`` plays against the course's alpha-beta; ``play_tictactoe(alphabeta_decision,
    human="O")`` against the function you wrote in assignment 2, which then moves first.

    Examples
    --------
    >>> play_tictactoe(human="O", seed=1).match.last.nodes > 0     # the machine (X) has moved
    True
    """
    from ..games.tictactoe import TicTacToe

    return play(TicTacToe(), search, human=human, **options)


def play_pig(search: Any = "star1", *, target: int = 6, faces: int = 4, turn_limit: int = 4,
             human: str = "MAX", **options: Any) -> PlayWidget:
    """Pig (a dice game, :class:`course.games.Pig`) against ``search``; Star1 by default.

    Examples
    --------
    >>> play_pig(seed=3).match.game.target
    6
    """
    from ..games.pig import Pig

    return play(Pig(target=target, faces=faces, turn_limit=turn_limit), search, human=human,
                **options)


def _readable_depth(game: Any, state: Any, most: int) -> int:
    """The deepest level, up to ``most``, whose node count stays under :data:`DRAWN_NODES`."""
    level, depth = [state], 0
    while depth < most:
        following = []
        for s in level:
            if not game.is_terminal(s):
                following.extend(game.result(s, m) for m in game.moves(s))
            if len(following) > DRAWN_NODES:
                return max(depth, 1)
        if not following:
            break
        level, depth = following, depth + 1
    return max(depth, 1)


def _is_tictactoe(game: Any) -> bool:
    from ..games.tictactoe import TicTacToe

    return isinstance(game, TicTacToe)


def _game_name(game: Any) -> str:
    if _is_tictactoe(game):
        return "Tic-tac-toe"
    return type(game).__name__


def _pig_scores(m: Match, human: str) -> list:
    s = m.state
    you = "MAX" if m.human is Player.MAX else "MIN"
    them = "MIN" if you == "MAX" else "MAX"
    score = {"MAX": s.max_score, "MIN": s.min_score}
    rows = [[f"You ({you})", score[you]], [f"Machine ({them})", score[them]]]
    if not m.over:
        rows.append([f"Turn total ({s.to_move.name} to play)", s.turn_total])
        rows.append(["Turn", f"{s.turns_done + 1} of {m.game.turn_limit}"])
    rows.append(["Target", m.game.target])
    rolls = [line for line in m.log if line.startswith("Die:")]
    if rolls:
        rows.append(["Last roll", rolls[-1][5:].rstrip(".")])
    rows.append(["Dice seed (replay: seed=…)", m.game_seed])
    return rows
