"""One grading command at a time per course: the course lock.

Two ``make autograde`` runs at once each staged, graded and recorded the same
submissions: nbgrader's ``--force`` of one removed the other's folders
(honest students failed with ``FileNotFoundError``), and each run rewrote the
grading report from its own copy, so an honest student could end with status
``grading`` and no grade.  The commands that change grades, the gradebook or
the files they come from therefore hold the **course lock** while they run,
an exclusive ``flock`` on ``.grading-run/lock`` in the course directory (beside it, each
holder's process id, command and start time, for the message another command gives):

================================================  =========================================
command                                           lock
================================================  =========================================
``autograde``, ``feedback``, ``remove-student``,  exclusive (changes grades or their files;
``grades``                                        ``grades`` brings them up to date by the
                                                  term's rules first: course.grading.term.settle)
``due-date``, ``extension``, ``release``,         exclusive (changes an input of the grades)
``collect-zip``, ``approve-config``
``summary``, ``remove-student`` without           shared (reads grades: several at once, but not
``--yes``, ``approve-config --show``              while one of the above changes them)
================================================  =========================================

A command that finds the lock taken stops at once, with status 2, naming the
other command (its process id, its command line and when it started), rather
than waiting or corrupting: run it again when the other has finished.  The
operating system releases the lock when its process ends, however it ends (a
kill, a crash, a power cut), so a stale lock never blocks a course.  Within one
process the lock is re-entrant (``autograde()`` called by the command takes it
again without blocking itself).

The formgrader's Autograde and Generate Feedback buttons take it too, exclusively
(:func:`course.formgrader_guard.guard_grading_api`): a click while a command runs
is refused with that command's name.  Hand grades and comments entered in the
formgrader do not take it: each is one gradebook write, and the grades are
settled from the gradebook when they are exported.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .course_dir import WorkflowError

__all__ = ["CourseBusy", "course_lock", "lock_path", "LOCKS"]

#: The lock each command of ``python -m course.grading`` takes: ``"exclusive"`` or ``"shared"``.
LOCKS = {
    "autograde": "exclusive", "feedback": "exclusive", "remove-student": "exclusive",
    "due-date": "exclusive", "extension": "exclusive", "release": "exclusive",
    "collect-zip": "exclusive", "approve-config": "exclusive",
    "grades": "exclusive", "summary": "shared",
}


class CourseBusy(WorkflowError):
    """Another grading command holds the course lock (the message names it)."""


#: The course lock's folder, in the course directory (never in a student's copy of the course).
LOCK_FOLDER = ".grading-run"


def lock_path(root: str | os.PathLike) -> Path:
    """The course lock's file: ``.grading-run/lock`` in the course directory ``root``."""
    return Path(root).resolve() / LOCK_FOLDER / "lock"


@dataclass
class _Held:
    fd: int
    shared: bool
    depth: int
    note: Path


_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _holders(folder: Path) -> list[dict]:
    """What the holders of the lock wrote about themselves (processes still alive only)."""
    found = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    for path in entries:
        if path.suffix != ".json":
            continue
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
            pid = int(info["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if pid != os.getpid() and _alive(pid):
            found.append(info)
        elif pid != os.getpid():
            path.unlink(missing_ok=True)         # a holder that ended without removing its note
    return found


def _busy_message(path: Path, command: str, holders: list[dict]) -> str:
    from .safe_text import console_text

    if holders:
        said = "; ".join(
            f"{console_text(h.get('command', '?'), limit=200)} (process {h.get('pid')}, "
            f"{'reading' if h.get('shared') else 'running'} since {h.get('started', '?')}"
            f"{', on ' + console_text(h['host'], limit=80) if h.get('host') else ''})"
            for h in holders)
    else:
        said = "another command (it did not say which)"
    return (f"{command}: the course is busy: {said} holds the course lock {path}. Wait until it "
            "has finished and run this again (two grading commands at once would lose grades). "
            "If no such process runs any more, the lock is already free: run this again.")


def _note_path(folder: Path) -> Path:
    return folder / f"{os.getpid()}.json"


@contextlib.contextmanager
def course_lock(root: str | os.PathLike, command: str, *, shared: bool = False) -> Iterator[Path]:
    """Hold the course lock while the ``with`` block runs.

    Parameters
    ----------
    root : path
        The course directory.
    command : str
        What holds it, as another command's message will name it (e.g. ``"autograde --regrade"``).
    shared : bool
        A reader's lock: several shared holders at once, but none while an exclusive one holds it.

    Yields
    ------
    Path
        The lock file.

    Raises
    ------
    CourseBusy
        At once, if another process holds the lock in a way that excludes this one; the message
        names it (process id, command, start time).

    Examples
    --------
    >>> import tempfile
    >>> root = tempfile.mkdtemp()
    >>> with course_lock(root, "autograde"):
    ...     with course_lock(root, "feedback"):      # the same process: re-entrant
    ...         print("both held")
    both held
    """
    import fcntl
    import socket

    if not Path(root).is_dir():
        raise WorkflowError(f"course directory {Path(root).resolve()} does not exist")
    path = lock_path(root)
    with _GUARD:
        held = _HELD.get(path)
        if held is not None:
            if held.shared and not shared:
                try:
                    fcntl.flock(held.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise CourseBusy(_busy_message(path, command, _holders(path.parent))) from None
                held.shared = False
            held.depth += 1
            fresh = None
        else:
            path.parent.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            try:
                fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise CourseBusy(_busy_message(path, command, _holders(path.parent))) from None
            note = _note_path(path.parent)
            info = {"pid": os.getpid(), "command": command, "shared": shared,
                    "started": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                    "host": socket.gethostname(), "argv": sys.argv[:20]}
            try:
                note.write_text(json.dumps(info), encoding="utf-8")
            except OSError:
                pass                              # a full disk: the lock holds all the same
            fresh = _Held(fd, shared, 1, note)
            _HELD[path] = fresh
    try:
        yield path
    finally:
        with _GUARD:
            held = _HELD[path]
            held.depth -= 1
            if held.depth == 0:
                del _HELD[path]
                held.note.unlink(missing_ok=True)
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
