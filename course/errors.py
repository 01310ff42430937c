"""Exceptions raised by the course library.

Every error the library raises on bad input is a :class:`CourseError`, and
every one of those is also a :class:`ValueError`, so ``except ValueError``
keeps working for callers that do not know this module.  Messages name the
offending node by its *path* (the tuple of child indices from the root) and,
where there is one, say how to fix the problem.
"""

from __future__ import annotations

__all__ = [
    "CourseError",
    "TreeFormatError",
    "ChanceNodeError",
    "BoundsError",
    "ParameterError",
]


def format_path(path: tuple[int, ...]) -> str:
    """Return a node path as students see it in messages: ``root`` or ``(0, 2, 1)``."""
    if not path:
        return "root"
    return "(" + ", ".join(str(i) for i in path) + ("," if len(path) == 1 else "") + ")"


class CourseError(ValueError):
    """Base class of every error raised by the course library on bad input.

    Attributes
    ----------
    path : tuple of int or None
        The node the error is about, as child indices from the root, or
        ``None`` when the error is not about one node.
    """

    def __init__(self, message: str, *, path: tuple[int, ...] | None = None) -> None:
        self.path = path
        if path is not None:
            message = f"node {format_path(path)}: {message}"
        super().__init__(message)


class TreeFormatError(CourseError):
    """A tree (JSON text or Python literal) does not follow the tree format."""


class ChanceNodeError(CourseError):
    """A chance node was given to a search that only handles MAX and MIN nodes."""


class BoundsError(CourseError):
    """A utility lies outside the game's declared bounds ``[vmin, vmax]``."""


class ParameterError(CourseError):
    """A search parameter (epsilon, depth, ordering, ...) is invalid."""
