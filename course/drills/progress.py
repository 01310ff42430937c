"""Streaks and mastery per drill kind.

A drill counts once, at its first check: right on the first try or not.
Checking again after reading the explanation shows whether the corrected
answer is right, but does not change the counts (the point is to get the
*next* drill right first time).

* the **streak** is the number of drills of a kind answered right on the
  first try in a row (and the best streak so far);
* **mastery** is how many of the last :data:`WINDOW` drills of a kind were
  right on the first try; all of them means the kind is mastered at that
  level, and the next level is suggested.

Progress lives in the kernel (one :class:`Progress` per session shared by
every drill widget, :data:`SESSION`): a restart starts afresh.

Examples
--------
>>> p = Progress()
>>> for ok in (True, True, False, True):
...     _ = p.record("pruning", ok, level=1)
>>> s = p.stats("pruning")
>>> s.streak, s.best, s.mastery, s.attempts
(1, 2, 3, 4)
>>> s.line()
'pruning: streak 1 (best 2); 3 of the last 4 right first time'
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Progress", "KindStats", "WINDOW", "SESSION"]

#: Mastery looks at this many most recent drills of a kind.
WINDOW = 5


@dataclass
class KindStats:
    """The counts of one drill kind."""

    kind: str
    streak: int = 0
    """Drills right on the first try in a row, up to now."""
    best: int = 0
    """The longest streak so far."""
    attempts: int = 0
    """Drills of this kind checked at least once."""
    recent: list[bool] = field(default_factory=list)
    """First-try results of the last :data:`WINDOW` drills, oldest first."""
    level: int | None = None
    """Level of the last drill."""

    @property
    def mastery(self) -> int:
        """Right first tries among the last :data:`WINDOW` drills."""
        return sum(self.recent)

    @property
    def mastered(self) -> bool:
        """True when the last :data:`WINDOW` drills were all right first time."""
        return len(self.recent) == WINDOW and all(self.recent)

    def line(self) -> str:
        """One line for the widget and its announcements."""
        if not self.attempts:
            return f"{self.kind}: no drill checked yet"
        text = (f"{self.kind}: streak {self.streak} (best {self.best}); {self.mastery} of the last "
                f"{len(self.recent)} right first time")
        if self.mastered and self.level is not None and self.level < 5:
            text += f"; mastered at level {self.level}: try level {self.level + 1}"
        elif self.mastered:
            text += "; mastered"
        return text


class Progress:
    """Streaks and mastery of every drill kind (see the module docstring)."""

    def __init__(self) -> None:
        self._stats: dict[str, KindStats] = {}

    def stats(self, kind: str) -> KindStats:
        """The counts of ``kind`` (zeros if none was checked yet)."""
        return self._stats.setdefault(kind, KindStats(kind))

    def record(self, kind: str, correct: bool, *, level: int | None = None) -> KindStats:
        """Count a drill's first check; returns the kind's new counts."""
        s = self.stats(kind)
        s.attempts += 1
        s.level = level
        s.streak = s.streak + 1 if correct else 0
        s.best = max(s.best, s.streak)
        s.recent = (s.recent + [bool(correct)])[-WINDOW:]
        return s

    def reset(self) -> None:
        """Forget everything."""
        self._stats.clear()


SESSION = Progress()
"""The progress every drill widget of this kernel shares."""
