"""Text from a submission, made safe to print on the instructor's terminal.

A terminal obeys some characters instead of showing them: ``ESC`` starts a
sequence that moves the cursor, erases lines, recolours or retitles the
window; a carriage return goes back to the start of the line, so what follows
overwrites what was printed; the C1 controls (``U+0080``-``U+009F``) are
escape sequences on some terminals; Unicode's bidirectional overrides show a
line in another order than it is written.  A student writes some of what the
grading commands print -- a folder name, a file name in a zip, a line a cell
printed, an id on a roster -- and with these characters could erase the line
that shows their grade and print a forged one, or hide the copy audit's line
that names them.

:func:`console_text` shows every such character as a visible escape
(``\\x1b``, ``\\r``, ``\\u202e``) instead; printable text of any script is
kept as it is.  Every line the grading commands print goes through it: the
functions pass student-derived names and lines through it where they print
them, and ``python -m course.grading`` also wraps its standard output and
error (:class:`ConsoleStream`) so that nothing reaches the terminal raw.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["console_text", "console_log", "ConsoleStream"]

# C0 controls but tab and newline, DEL, the C1 controls, and the Unicode format characters that
# change how a line is shown (bidirectional marks, embeddings, overrides and isolates; zero-width
# characters; line and paragraph separators; the byte-order mark; interlinear annotation).
_OBEYED = ("\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e"
           "\u2060-\u2069\u3164\ufeff\ufff9-\ufffb")
_ANY_LINE = re.compile(f"[{_OBEYED}]")
_ONE_LINE = re.compile(f"[\n{_OBEYED}]")

_NAMED = {"\r": "\\r", "\n": "\\n", "\x1b": "\\x1b", "\x08": "\\b", "\x0c": "\\f", "\x0b": "\\v",
          "\x07": "\\a", "\x00": "\\0"}


def _shown(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def console_text(text: Any, *, newlines: bool = False, limit: int | None = None) -> str:
    """``text`` as a terminal may print it: every character it would obey shown as an escape.

    Parameters
    ----------
    text : object
        A name, a line, a message (``str()`` of it is taken).
    newlines : bool
        Keep newlines (several lines printed on purpose); by default a newline is shown as
        ``\\n``, so that one name stays on one line.
    limit : int, optional
        Cut the result to this many characters (with ``...``).

    Returns
    -------
    str
        The text, with escape sequences, carriage returns, backspaces, C1 controls,
        bidirectional overrides and zero-width characters shown as ``\\x1b``, ``\\r``,
        ``\\u202e`` ...; letters of every script, tabs and (with ``newlines``) newlines kept.

    Examples
    --------
    >>> console_text("ada\\x1b[2K\\rada   10.0 / 10.0  graded")
    'ada\\\\x1b[2K\\\\rada   10.0 / 10.0  graded'
    >>> console_text("Zoë Ôkafor, 李雷")
    'Zoë Ôkafor, 李雷'
    >>> console_text("evil\\u202egnp.exe")
    'evil\\\\u202egnp.exe'
    >>> console_text("two\\nlines"), console_text("two\\nlines", newlines=True)
    ('two\\\\nlines', 'two\\nlines')
    >>> console_text("x" * 20, limit=8)
    'xxxxx...'
    """
    out = (_ANY_LINE if newlines else _ONE_LINE).sub(_shown, str(text))
    if limit is not None and len(out) > limit:
        out = out[:max(0, limit - 3)] + "..."
    return out


def console_log(log: Callable[[str], Any] | None) -> Callable[[str], Any] | None:
    """``log`` with every line passed through :func:`console_text` (newlines kept); None stays None.

    >>> lines = []
    >>> console_log(lines.append)("ada\\x1b[1A\\x1b[2K graded")
    >>> lines
    ['ada\\\\x1b[1A\\\\x1b[2K graded']
    """
    if log is None:
        return None
    if getattr(log, "_console_safe", False):
        return log

    def safe(line: Any, *args: Any, **kwargs: Any) -> Any:
        return log(console_text(line, newlines=True), *args, **kwargs)

    safe._console_safe = True          # type: ignore[attr-defined]
    return safe


class ConsoleStream(io.TextIOBase):
    """A text stream that writes through :func:`console_text` (newlines kept) to ``stream``.

    ``python -m course.grading`` runs every command with its standard output and
    error wrapped in one, so that no character of a submission reaches the
    terminal as a command, whichever code printed it (nbgrader's log included).

    >>> import io
    >>> raw = io.StringIO()
    >>> ConsoleStream(raw).write("ok\\rforged\\n") and raw.getvalue()
    'ok\\\\rforged\\n'
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(console_text(text, newlines=True))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:              # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8")
