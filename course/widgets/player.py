"""A Play/Pause button that steps a value forward in the browser (the step-through's player).

ipywidgets' ``Play`` has a square *stop* button beside play/pause that jumps back to the start;
students pressed it to pause and lost their place.  :class:`Player` has one button, which plays
and pauses: pausing keeps the step shown, and playing from the last step starts again.  The
stepping runs in the browser (a timer in ``player.js``), so it does not wait for a busy kernel;
link ``value`` to a slider with :func:`ipywidgets.jslink`.

>>> p = Player(max=5)
>>> p.value, p.playing
(0, False)
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

__all__ = ["Player"]


class Player(anywidget.AnyWidget):
    """One Play/Pause button stepping :attr:`value` from :attr:`min` to :attr:`max`.

    Attributes
    ----------
    value : int
        The current step.
    min, max, step : int
        The range stepped through, and the size of a step.
    interval : int
        Milliseconds between steps while playing.
    playing : bool
        True while it plays (set by the button; setting it from Python plays or pauses too).
    label : str
        The button's accessible name while paused (default "Play").
    """

    _esm = Path(__file__).parent / "player.js"

    value = traitlets.Int(0).tag(sync=True)
    min = traitlets.Int(0).tag(sync=True)
    max = traitlets.Int(100).tag(sync=True)
    step = traitlets.Int(1).tag(sync=True)
    interval = traitlets.Int(800).tag(sync=True)
    playing = traitlets.Bool(False).tag(sync=True)
    label = traitlets.Unicode("Play").tag(sync=True)
