"""The step-through player: a search's trace, one event at a time."""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from ..draw import describe_event, draw_tree
from ..errors import ParameterError
from ..game import Game
from ..search import ALGORITHMS
from ..search.result import KnownBounds
from ..trees import TreeGame
from ._common import Explorer, as_tree, fmt
from .live_line import LiveLine
from .player import Player

__all__ = ["StepThrough", "step_through"]


class StepThrough(Explorer):
    """Widget state of :func:`step_through`; drive it through ``slider.value``.

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        How many trace events have happened (0 to ``len(trace)``).
    play : Player
        Plays the trace forward in the browser (linked to the slider there); its one button
        plays and pauses, and pausing keeps the step shown.
    previous, next : ipywidgets.Button
        One event back or forward.
    event : LiveLine
        One line saying what the last event did (``event.value``), announced to screen readers
        at each step (a polite live region; the picture's own announcements are off, so the
        widget has one).
    result : SearchResult
        The traced search being played.
    """

    def __init__(self, game: TreeGame, result: Any, *, interval: int) -> None:
        self.game = game
        self.result = result
        self.events = result.trace.events
        tracker = KnownBounds(result.algorithm)       # what each exit event tells about its node
        self._known = [tracker.add(event) for event in self.events]
        n = len(self.events)
        self.slider = widgets.IntSlider(value=0, min=0, max=n, description="step",
                                        continuous_update=True, layout=widgets.Layout(width="420px"))
        # one Play/Pause button: pausing keeps the step shown (ipywidgets' Play has a square
        # button that jumps back to step 0, which students pressed to pause)
        self.play = Player(value=0, min=0, max=n, step=1, interval=interval,
                           label="Play the search step by step")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.previous = widgets.Button(description="◀ previous", layout=widgets.Layout(width="110px"))
        self.next = widgets.Button(description="next ▶", layout=widgets.Layout(width="110px"))
        self.previous.on_click(lambda _: self.step(-1))
        self.next.on_click(lambda _: self.step(+1))
        self.event = LiveLine()
        self._pictures: dict[int, Any] = {}
        super().__init__([widgets.HBox([self.play, self.previous, self.next, self.slider]), self.event])
        self.picture.announce = False         # the step line says what changed: one live region
        self.watch(self.slider)
        self.refresh()

    def step(self, delta: int) -> None:
        """Move ``delta`` events forward (negative: back), staying inside the trace."""
        self.slider.value = min(max(self.slider.value + delta, 0), self.slider.max)

    def describe(self, upto: int) -> str:
        """The line shown (and announced) after ``upto`` events."""
        return " ".join(self._line(upto)).strip()

    def _line(self, upto: int) -> tuple[str, str]:
        """``(what the step did, the rest)``: the step line's bold part and what follows it."""
        n = len(self.events)
        if upto == 0:
            return f"Step 0 of {n}: nothing searched yet.", "Press ▶ or next to start."
        event = self.events[upto - 1]
        node = self.game.node(event.path) if event.path is not None else None
        name = node.label if node is not None and node.label else None
        text = describe_event(event, index=upto - 1, name=name, known=self._known[upto - 1])
        detail = f"(of {n} steps)"
        if upto == n:
            detail += " " + self._finished()
        return text, detail

    def _finished(self) -> str:
        result = self.result
        outcome = (f"value {fmt(result.value)}" if result.value is not None
                   else f"[{fmt(result.lower)}, {fmt(result.upper)}]")
        return (f"Finished: {outcome}; {result.evaluated} leaves evaluated, "
                f"{result.expanded} nodes expanded; root move {result.move}.")

    def compute(self):
        upto = self.slider.value
        picture = self._pictures.get(upto)
        if picture is None:
            picture = draw_tree(self.game, self.result, upto=upto, title="")
            self._pictures[upto] = picture
        self.event.say(*self._line(upto))
        done = f"<p>{html.escape(self._finished())}</p>" if upto == len(self.events) else ""
        return picture, done


def step_through(game: Game, algorithm: str = "alphabeta", **search_kwargs: Any) -> StepThrough:
    """Play a search's trace forward and back: slider, ◀ previous / next ▶, and ▶ play / ❚❚ pause.

    Each step shows the tree after that many trace events: the node the event
    was about (thick outline), the path to it, each node's window or bounds
    as they are then, cut-offs as they happen (``cut``, dashed subtrees), and
    a line of text saying what the event did.

    Parameters
    ----------
    game : Game
        An explicit tree (other games are expanded with
        :func:`~course.trees.game_to_tree`; keep them small).
    algorithm : str
        One of :data:`course.search.ALGORITHMS` (``minimax``, ``expectimax``,
        ``alphabeta``, ``star1``, ``bab``, ``naive-epsilon``).
    **search_kwargs
        Passed to the search (e.g. ``epsilon=2`` for ``bab``, ``order=...``);
        ``interval=`` (milliseconds between played steps, default 800) is
        taken by the player itself.

    Returns
    -------
    StepThrough
        A VBox; set ``.slider.value`` to move.

    Raises
    ------
    ParameterError
        For an unknown algorithm or a ``game`` that is not a game (and
        whatever the search raises for its arguments).

    Examples
    --------
    >>> from course.examples import aima_figure_5_2
    >>> player = step_through(aima_figure_5_2())
    >>> player.slider.max
    26
    >>> player.slider.value = 1
    >>> "enter MAX node A root" in player.event.value
    True
    """
    if algorithm not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    interval = search_kwargs.pop("interval", 800)
    tree = as_tree(game)
    result = ALGORITHMS[algorithm](tree, trace=True, **search_kwargs)
    return StepThrough(tree, result, interval=interval)
