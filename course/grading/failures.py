"""What a failed check raises: :class:`GradingFailure` and its subclasses.

Every check in :mod:`course.grading` that finds a problem raises one of these.
They are :class:`AssertionError` subclasses, so nbgrader (and pytest) count
them as failed tests, but never *bare* assertion errors: the class names the
kind of mistake and the message says what differs and where, in words a
student can act on.

=============================  ===================================================
class                          raised when
=============================  ===================================================
:class:`WrongLeaves`           the ordered sequence of evaluated leaves differs
:class:`WrongExpansions`       the ordered sequence of expanded nodes differs
                               (a node expanded twice, too early, or not at all)
:class:`WrongValue`            the returned value differs from the reference's
:class:`WrongBounds`           the returned ``(lower, upper)`` differ
:class:`WrongMove`             the returned root move differs
:class:`WrongReturnType`       the function returned something of the wrong shape
:class:`SearchCrashed`         the function raised an exception
:class:`SearchTimeout`         the function ran longer than its time limit
:class:`ReferenceSearchUsed`   the function ran one of the course's reference
                               searches instead of its own code
:class:`InstrumentationTampered`  the recording game, its log or the profiler
                               watching the run were changed
:class:`CheckFailed`           any other failed expectation of a check
=============================  ===================================================
"""

from __future__ import annotations

__all__ = [
    "GradingFailure",
    "WrongLeaves",
    "WrongExpansions",
    "WrongValue",
    "WrongBounds",
    "WrongMove",
    "WrongReturnType",
    "SearchCrashed",
    "SearchTimeout",
    "ReferenceSearchUsed",
    "InstrumentationTampered",
    "CheckFailed",
    "TimeLimitExceeded",
]


class GradingFailure(AssertionError):
    """Base class of every failed check: an :class:`AssertionError` with a full message.

    Attributes
    ----------
    case : str or None
        The name of the test case (tree or position) the check failed on.
    """

    def __init__(self, message: str, *, case: str | None = None) -> None:
        self.case = case
        super().__init__(message)


class WrongLeaves(GradingFailure):
    """The leaves evaluated, or their order, differ from the reference search's."""


class WrongExpansions(GradingFailure):
    """The nodes expanded, or their order, differ from the reference search's."""


class WrongValue(GradingFailure):
    """The value returned differs from the reference search's value."""


class WrongBounds(GradingFailure):
    """The bounds ``(lower, upper)`` returned differ from the reference search's."""


class WrongMove(GradingFailure):
    """The root move returned differs from the reference search's move."""


class WrongReturnType(GradingFailure):
    """The function returned a value of the wrong type or shape."""


class SearchCrashed(GradingFailure):
    """The student's function raised an exception (chained as ``__cause__``)."""


class SearchTimeout(GradingFailure):
    """The student's function did not finish within its time limit."""


class ReferenceSearchUsed(GradingFailure):
    """The student's function called a reference search from :mod:`course.search`."""


class InstrumentationTampered(GradingFailure):
    """The recording game, its log, or the watch on the run was altered."""


class CheckFailed(GradingFailure):
    """A check's expectation failed in a way none of the other classes names."""


class TimeLimitExceeded(BaseException):
    """Raised inside a student's function when its time is up.

    A :class:`BaseException`, not an :class:`Exception`, so that student code
    catching ``Exception`` cannot swallow it; the checks turn it into a
    :class:`SearchTimeout`.
    """
