"""A line of text that screen readers announce when it changes (a polite live region).

The step-through says what each step did in a :class:`LiveLine`: the line a sighted student
reads under the buttons is the very text a screen reader says after each *next* (issue 30:
before, the line sat outside any live region and only the picture's node counts were announced).
One live region per widget: a widget that holds a LiveLine switches its picture's own
announcements off.

>>> line = LiveLine(text="step 1: enter MAX node root", detail="(of 26 steps)")
>>> line.value
'step 1: enter MAX node root (of 26 steps)'
"""

from __future__ import annotations

import anywidget
import traitlets

from ._esm import esm

__all__ = ["LiveLine"]


class LiveLine(anywidget.AnyWidget):
    """One announced line: :attr:`text` (bold) and :attr:`detail` after it, both plain text.

    Attributes
    ----------
    text : str
        The main words (what changed).
    detail : str
        Words after them (context, shown in normal weight; announced too).
    """

    _esm = esm("live_line.js")

    text = traitlets.Unicode("").tag(sync=True)
    detail = traitlets.Unicode("").tag(sync=True)

    @property
    def value(self) -> str:
        """The whole line as it is shown and announced."""
        return f"{self.text} {self.detail}".strip()

    def say(self, text: str, detail: str = "") -> None:
        """Show and announce ``text`` (with ``detail``), in one change of the page."""
        with self.hold_sync():
            self.text, self.detail = text, detail
