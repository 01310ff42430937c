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
:class:`RuleBroken`            the search broke a rule the exercise states (EVAL
                               on a terminal state, a child created twice, ...)
:class:`CheckFailed`           any other failed expectation of a check
=============================  ===================================================

How a failure reads.  The first line of the message says, in one sentence,
which search, which case and what differs; the details follow, every line at
most :data:`WIDTH` characters (nbgrader's ``validate`` cuts longer lines and
JupyterLab's Validate dialog does not wrap them).  In IPython (a notebook, or
nbgrader executing one) a failure is shown by :meth:`GradingFailure._render_traceback_`:
the message and the line of the test cell that failed, without the grader's
own frames.
"""

from __future__ import annotations

import linecache
import os
import textwrap

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
    "RuleBroken",
    "CheckFailed",
    "TimeLimitExceeded",
    "WIDTH",
    "wrap_text",
    "raised",
]

#: Longest line of a failure's message (nbgrader's validator is configured to show 100).
WIDTH = 88


def wrap_text(text: str, width: int = WIDTH) -> str:
    """Wrap every line of ``text`` longer than ``width``, keeping its indentation (plus two spaces).

    >>> print(wrap_text("  Leaves: B1=3 B2=12 B3=8 C1=2 D1=14 D2=5 D3=2", width=24))
      Leaves: B1=3 B2=12
        B3=8 C1=2 D1=14 D2=5
        D3=2
    """
    out = []
    for line in str(text).split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[:len(line) - len(line.lstrip())]
        out.extend(textwrap.wrap(line.strip(), width=width, initial_indent=indent,
                                 subsequent_indent=indent + "  ", break_on_hyphens=False,
                                 break_long_words=True) or [line[:width]])
    return "\n".join(out)


def raised(exc: BaseException, *, limit: int = 60) -> str:
    """An exception as a sentence ends it: ``NotImplementedError`` when it has no message,
    ``ValueError: bad move`` when it has one (first line, at most ``limit`` characters), never a
    stray ``": ."`` or a doubled full stop.

    >>> raised(NotImplementedError()), raised(ValueError("bad move.")), raised(KeyError("x"))
    ('NotImplementedError', 'ValueError: bad move', "KeyError: 'x'")
    """
    said = str(exc).strip().split("\n", 1)[0].rstrip(" .")
    if len(said) > limit:
        said = said[:limit - 3] + "..."
    return type(exc).__name__ + (f": {said}" if said else "")


class GradingFailure(AssertionError):
    """Base class of every failed check: an :class:`AssertionError` with a full message.

    Attributes
    ----------
    case : str or None
        The name of the test case (tree or position) the check failed on.
    """

    def __init__(self, message: str, *, case: str | None = None) -> None:
        self.case = case
        # wrapped as it will be shown, after "ClassName: ", so that no line exceeds WIDTH
        prefix = f"{type(self).__name__}: "
        super().__init__(wrap_text(prefix + str(message))[len(prefix):])

    def _render_traceback_(self) -> list[str]:
        """The lines IPython shows for this failure instead of a traceback.

        The failure's class and message (its first line says what differs),
        then where the test cell called the check.  The grader's own frames
        (``course/grading/...``) are left out: they say nothing to a student.
        """
        lines = f"{type(self).__name__}: {self}".split("\n")
        lines[0] = f"\x1b[0;31m{type(self).__name__}\x1b[0m" + lines[0][len(type(self).__name__):]
        where = _calling_line(self.__traceback__)
        if where:
            lines += [""] + wrap_text(where).split("\n")
        return lines


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


class RuleBroken(GradingFailure):
    """The search broke a rule the exercise states, although its visits and answer may match."""


class CheckFailed(GradingFailure):
    """A check's expectation failed in a way none of the other classes names."""


class TimeLimitExceeded(BaseException):
    """Raised inside a student's function when its time is up.

    A :class:`BaseException`, not an :class:`Exception`, so that student code
    catching ``Exception`` cannot swallow it; the checks turn it into a
    :class:`SearchTimeout`.
    """


_COURSE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _calling_line(tb) -> str:
    """``"Raised by line 2 of the test cell: check_...(...)"``: the last frame before the grader's."""
    outside = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_COURSE_DIR):
            break
        outside = tb
        tb = tb.tb_next
    if outside is None:
        return ""
    filename, lineno = outside.tb_frame.f_code.co_filename, outside.tb_lineno
    text = linecache.getline(filename, lineno).strip()
    return f"Raised by line {lineno} of the test cell" + (f": {text}" if text else ".")
