"""The grader's end of a sandbox: run a student's cells there, call their functions from here.

A :class:`StudentSession` starts one sandbox (:mod:`course.sandbox.bwrap`)
running :mod:`course.sandbox.inside`, sends it the student's code cells, and
hands out :class:`RemoteFunction` objects: ordinary Python callables in the
grader's process that run the student's function in the sandbox.  Whatever the
student's function asks of the game (``game.moves(state)``, ...) comes back over
the pipe and is answered *here*, by the grader's own (instrumented) game, so
the record of calls that the checks compare with the reference search never
exists where student code could change it.

Only plain data crosses the boundary: numbers, strings, fractions, tuples,
lists, players, and integer *handles* standing for the grader's objects
(games, states, callables).  The student's process never receives a grader
object, and the grader never unpickles or executes anything it receives.

Examples
--------
>>> from course.sandbox import StudentSession, sandbox_available
>>> with StudentSession(sandbox=sandbox_available()) as session:
...     cells = session.load(["def double(x):\\n    return 2 * x", "print('hi')"])
...     double = session.function("double")
...     double(21), cells[1].stdout
(42, 'hi\\n')
"""

from __future__ import annotations

import atexit
import builtins
import collections
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from ..errors import CourseError
from ..game import Game, Player
from .bwrap import (INSIDE, SANDBOX_ENV, Limits, _sandbox_python, bwrap_path, counts_own_processes,
                    limit_resources, sandbox_command, sandbox_layout, sandbox_reach, sandbox_tmp,
                    student_packages)
from .inside import _HANDLED, decode, encode

__all__ = ["StudentSession", "RemoteFunction", "StudentCodeError", "CellResult", "SessionError",
           "SubmissionLimitError"]

GAME_METHODS = frozenset({"initial_state", "turn", "moves", "chance_outcomes", "result",
                          "is_terminal", "utility", "evaluate", "describe_move"})


#: Nodes below a requested state whose children are sent ahead with its moves (breadth first):
#: the sandbox answers ``moves``/``result`` there itself and reports each node's first use.
PREFETCH_NODES = 48

#: A search of an explicit tree (:class:`~course.trees.TreeGame`) runs in the sandbox against a
#: copy of the tree, sent with the call, and sends back the record of its game calls, which the
#: grader replays in order against its own instrumented game (:meth:`StudentSession._replay_record`);
#: anything the copy cannot answer exactly is asked live.  False: every call is asked live (the
#: tree sent ahead as :data:`PREFETCH_NODES` says).  Read in the grader's process only (the
#: environment variable ``COURSE_REPLAY_TREES=0`` switches it off).
REPLAY_TREES = os.environ.get("COURSE_REPLAY_TREES", "1") != "0"

#: Most states a replayed record may make in one call (``result``); the sandbox asks the grader
#: live past it (at a round trip's pace, as the live protocol always does), and a record that
#: goes past it is refused: the grader's memory grows no faster than with the live protocol.
REPLAY_STATES = 200_000

#: What a refused record of game calls (:meth:`StudentSession._replay_record`) is reported as.
RECORD_REFUSED = "the sandbox sent a record of game calls that the grader refuses"

MAX_RESTARTS = 20
"""A submission whose code kills its process more often than this is not graded further."""


#: Seconds a read from the sandbox may wait beyond the operation's own time limit.
READ_MARGIN = 5.0


class SessionError(RuntimeError):
    """The sandboxed process broke the protocol, died, hit a limit, or could not start.

    ``str(exc)`` says what happened in the student's terms; ``exc.student_traceback`` is the
    same one line (the grader's own frames are never shown to the student).
    """

    def __init__(self, message: str = "") -> None:
        super().__init__(message)
        self.student_traceback = f"{type(self).__name__}: {message}"


class SubmissionLimitError(SessionError):
    """The submission ran into one of its caps (time, memory, data sent back)."""


def _capped(session: "StudentSession", message: str) -> SubmissionLimitError:
    """Stop the sandbox for a cap it reached, remember it, and the error to raise."""
    session.limit_hit = session.limit_hit or message
    session.close()
    return SubmissionLimitError(message)


class StudentCodeError(Exception):
    """An exception raised by the student's code in the sandbox.

    ``type(exc).__name__`` is the student's exception type (a subclass of the
    built-in one where that exists, so ``isinstance(exc, NotImplementedError)``
    works), ``str(exc)`` its message, and ``exc.student_traceback`` its
    traceback inside the student's cells.
    """

    student_traceback: str = ""


_ERROR_CLASSES: dict[str, type] = {}


def _student_error(name: str, message: str, trace: str) -> StudentCodeError:
    name = name if isinstance(name, str) and name.isidentifier() else "Exception"
    cls = _ERROR_CLASSES.get(name)
    if cls is None:
        base = getattr(builtins, name, None)
        cls = None
        if isinstance(base, type) and issubclass(base, Exception) and base is not Exception:
            try:
                cls = type(name, (base, StudentCodeError), {"__module__": "builtins"})
            except TypeError:
                cls = None
        if cls is None:
            cls = type(name, (StudentCodeError,), {"__module__": "builtins"})
        _ERROR_CLASSES[name] = cls
    exc = cls(str(message))
    exc.student_traceback = str(trace)
    return exc


@dataclass
class CellResult:
    """What one cell did in the sandbox."""

    stdout: str = ""
    error: dict | None = None
    """``{"type", "message", "traceback"}`` if the cell raised."""
    timed_out: bool = False
    """The cell was stopped at the cell time limit (decided by the grader's own clock: a cell
    of the student's that raises an exception named ``CellTimeoutError`` at once is not)."""


class _Unsendable:
    """Something the student's function returned that cannot cross the boundary."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return self.text


class StudentSession:
    """One student's code, running in a sandbox.

    Parameters
    ----------
    sandbox : bool
        True (the default and the only safe choice): run in bubblewrap.  False
        runs the same program as a plain subprocess, which isolates nothing;
        only for machines without bubblewrap, with the instructor's explicit
        consent.
    limits : Limits
        Memory, file size, process count and CPU limits.
    cell_timeout : float
        Seconds each cell may run (and each read from the sandbox may wait, plus
        :data:`READ_MARGIN`).
    deadline : float, optional
        ``time.monotonic()`` after which nothing more is read from the sandbox: the
        submission's own time limit (:class:`SubmissionLimitError`).
    """

    def __init__(self, *, sandbox: bool = True, limits: Limits = Limits(),
                 cell_timeout: float = 60.0, deadline: float | None = None) -> None:
        self.sandbox = sandbox
        self.limits = limits
        self.cell_timeout = cell_timeout
        self.deadline = deadline
        self.bytes_read = 0
        self.stopped_for: str | None = None
        self.limit_hit: str | None = None
        """Set once a cap of the submission was reached (the time limit, memory, bytes read)."""
        self.timeouts = 0
        """How many times the sandbox did not answer within the grader's wait (a call's or a
        cell's time limit plus :data:`READ_MARGIN`), and was stopped; never reset (the grader
        compares it before and after a test).  Not a cap: the submission's own time limit is
        :attr:`limit_hit`."""
        self._buffer = bytearray()
        self._isolated = False
        self._monitor: threading.Thread | None = None
        self.proc: subprocess.Popen | None = None
        self.workdir: str | None = None
        self.tmp: str | None = None
        self.cells: list[str] = []
        self.results: list[CellResult] = []
        self.names: list[str] = []
        self._objects: list[Any] = []
        self._handles: dict[int, int] = {}
        self._game: Any = None
        self._expanded: set[int] = set()
        self._resulted: set[int] = set()
        self._infos: dict[int, dict] = {}
        self._turn_infos: dict[tuple, dict] = {}
        """The info of a state whose turn is a player, for each (game's handle, player): one dict
        for all of a call's (:meth:`_state_info`)."""
        self._with_states: list[tuple[int, Any]] = []
        self._replay: _Replay | None = None
        self._calls = 0
        self.restarts = 0
        self.last_lines: int | None = None
        self._wants_isolation = False

    # -- process -------------------------------------------------------------
    def start(self) -> None:
        """Start the sandboxed process."""
        self.close()
        self.tmp = tempfile.mkdtemp(prefix="course-sandbox-", dir=sandbox_tmp())
        os.chmod(self.tmp, 0o755)
        self.workdir = os.path.join(self.tmp, "work")
        os.mkdir(self.workdir)
        os.chmod(self.workdir, 0o777)          # the sandbox's unprivileged uid writes here
        reach: dict[str, str] = {}
        try:
            if self.sandbox:
                layout = sandbox_layout()           # found once for this start
                packages = layout.packages
                program = program_folder(layout.python[0])
                reach = sandbox_reach(self.tmp, layout)  # what nobody cannot reach: a private view
                # this session's folder is named on the command line (``ps`` shows whose it is)
                command = sandbox_command(self.workdir, program=program, limits=self.limits,
                                          args=("-c", BOOT, "/grader", self.tmp), reach=reach,
                                          layout=layout)
            else:
                packages = student_packages()
                program = program_folder(sys.executable)
                command = [sys.executable, "-I", "-S", "-c", BOOT, program, self.tmp]
            env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **SANDBOX_ENV,
                   "COURSE_STUDENT_PATH": os.pathsep.join(packages)}
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                cwd=self.workdir, env=env, start_new_session=True,
                preexec_fn=limit_resources(self.limits, drop_root=self.sandbox, reach=reach,
                                           own_count=self.sandbox and counts_own_processes(bwrap_path())))
        except (OSError, subprocess.SubprocessError) as exc:
            raise SessionError(f"the sandbox could not start: {exc}") from None
        self._buffer = bytearray()
        self._isolated = False
        os.set_blocking(self.proc.stdout.fileno(), False)
        os.set_blocking(self.proc.stdin.fileno(), False)
        if self.limits.memory_total_bytes:
            self._monitor = threading.Thread(target=_watch_memory, args=(self, self.proc),
                                             daemon=True)
            self._monitor.start()

    def close(self) -> None:
        """Stop the process (and, with it, everything the student's code started)."""
        proc, self.proc = self.proc, None
        self._isolated = self._throwaway = False
        self._buffer = bytearray()
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = self.workdir = None

    def __enter__(self) -> "StudentSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- protocol --------------------------------------------------------------
    def _limit(self, timeout: float | None) -> float:
        """The absolute time the next read or write may wait until; past the submission's deadline
        it raises :class:`SubmissionLimitError`."""
        now = time.monotonic()
        end = now + (timeout if timeout is not None else self.cell_timeout) + READ_MARGIN
        if self.deadline is not None:
            if now >= self.deadline:
                raise _capped(self, "the submission reached its time limit for grading and "
                                    "was stopped")
            end = min(end, self.deadline)
        return end

    def _send(self, message: dict, timeout: float | None = None, raw: str = "") -> None:
        """Send ``message``; ``raw``: more of its members as JSON text (``', "key": value'``)."""
        if self.proc is None:
            raise SessionError("the sandbox is not running")
        text = _dumps(message)
        if raw:
            text = text[:-1] + raw + "}"
        data = memoryview((text + "\n").encode("utf-8"))
        end = self._limit(timeout)
        fd = self.proc.stdin.fileno()
        while data:
            try:
                sent = os.write(fd, data)
            except BlockingIOError:          # the pipe is full: wait until it takes more
                wait = end - time.monotonic()
                if wait <= 0 or not select.select([], [fd], [], wait)[1]:
                    raise SessionError(self._silent()) from None
                continue
            except (BrokenPipeError, OSError):
                raise SessionError(self._death()) from None
            data = data[sent:]

    def _silent(self) -> str:
        """Why the sandbox stopped answering (a limit that stopped it, or the grader's clock)."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise _capped(self, "the submission reached its time limit for grading and was "
                                "stopped")
        self.timeouts += 1
        self.close()
        return "your code's process stopped answering in time and was stopped"

    def _death(self) -> str:
        code = None
        if self.proc is not None:
            try:
                code = self.proc.wait(timeout=5)      # its pipe closed: it is ending
            except subprocess.TimeoutExpired:
                code = None
        if self.stopped_for:
            return self.stopped_for
        if code is not None and code < 0:
            return f"your code's process was killed by signal {-code} (memory or CPU limit?)"
        if code is not None:
            return f"your code ended its Python process (exit status {code})"
        return "your code's process stopped answering"

    def _readline(self, timeout: float | None) -> bytes:
        """One line from the sandbox, waiting at most until :meth:`_limit`; at most
        ``limits.message_bytes`` long, and ``limits.read_bytes`` in all for the session."""
        end = self._limit(timeout)
        cap = self.limits.message_bytes
        fd = self.proc.stdout.fileno()
        while True:
            buffer = self._buffer
            newline = buffer.find(b"\n", 0, cap + 1)
            if newline >= 0:
                if newline == len(buffer) - 1:       # the whole buffer is one line (the usual case)
                    line = bytes(buffer)
                    buffer.clear()
                    return line
                line = bytes(buffer[:newline + 1])
                del buffer[:newline + 1]
                return line
            if len(self._buffer) > cap:
                raise _capped(self, f"your code sent more than {_size(cap)} to the grader at once")
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:          # nothing yet: wait for it
                wait = end - time.monotonic()
                if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                    raise SessionError(self._silent()) from None
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise SessionError(self._death())
            self.bytes_read += len(chunk)
            if self.bytes_read > self.limits.read_bytes:
                raise _capped(self, f"your code sent more than {_size(self.limits.read_bytes)} "
                                    "to the grader in all (the limit for one submission)")
            self._buffer += chunk

    def _receive(self, timeout: float | None = None) -> dict:
        if self.proc is None:
            raise SessionError("the sandbox is not running")
        line = self._readline(timeout)
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            raise SessionError("the sandbox sent something that is not a message") from None
        if not isinstance(message, dict):
            raise SessionError("the sandbox sent something that is not a message")
        if message.get("op") == "joined":          # the test's process ended under us
            self._isolated = False
            raise SessionError(_ended(message.get("status")))
        # a line of n characters holds at most n values: only a long one needs counting
        if len(line) > self.limits.message_nodes and \
                _nodes(message, self.limits.message_nodes) > self.limits.message_nodes:
            raise _capped(self, f"your code sent a value of more than "
                                f"{self.limits.message_nodes} parts to the grader at once")
        return message

    # -- one test at a time -------------------------------------------------
    def isolated(self) -> "_Isolated":
        """A context in which the student's functions run in a copy of the process (a fork):
        nothing they store or change there reaches the next test.

        >>> from course.sandbox import StudentSession, sandbox_available
        >>> with StudentSession(sandbox=sandbox_available()) as session:
        ...     _ = session.load(["seen = []\\ndef f(x):\\n    seen.append(x)\\n    return len(seen)"])
        ...     f = session.function("f")
        ...     with session.isolated():
        ...         first = f(1), f(2)
        ...     with session.isolated():
        ...         second = f(3)
        ...     first, second
        ((1, 2), 1)
        """
        return _Isolated(self)

    # -- handles ---------------------------------------------------------------
    def _handle(self, obj: Any) -> dict:
        key = id(obj)
        h = self._handles.get(key)
        if h is not None:
            return {"$h": h}
        h = len(self._objects)
        self._objects.append(obj)
        self._handles[key] = h
        found = _KINDS.get(type(obj))           # (a class, never kept there, is decided each time)
        kind, names = found if found is not None else _kind_of(obj)
        if kind == "game":
            return {"$h": h, "kind": "game", "vmin": encode(obj.vmin, _no_handle),
                    "vmax": encode(obj.vmax, _no_handle)}
        if kind == "fn":
            if getattr(obj, "sent_with_states", False) is True and self._game is not None:
                self._with_states.append((h, obj))
            return {"$h": h, "kind": "fn"}
        data: dict[str, Any] = {"$h": h, "kind": "obj", "cls": type(obj).__name__}
        info = self._state_info(obj)
        if info is not None:
            if self._with_states:
                self._values_with_state(obj, info)
            data["info"] = info
            self._infos[key] = info
        if names is not None:   # plain data (a tic-tac-toe board): its fields and properties
            attrs = {}
            for name in names:
                try:
                    attrs[name] = encode(getattr(obj, name), _no_handle)
                except Exception:  # noqa: BLE001 - a property that fails is left out
                    pass
            data["attrs"] = attrs
            data["text"] = str(obj)
        return data

    def _state_info(self, obj: Any) -> dict | None:
        """What ``is_terminal`` and ``turn`` answer for a state of the game being searched.

        Neither call is recorded by the instrumented game, so the sandbox may answer them
        itself: this halves the round trips of a search.
        """
        game = self._game
        if game is None or self._replay is not None:
            return None        # (a replayed tree's states other than its stand-ins: asked live)
        try:
            terminal = bool(game.is_terminal(obj))
        except Exception:  # noqa: BLE001 - not a state of this game: no shortcut
            return None
        if not terminal:       # on a terminal state, turn() is asked of the grader if ever
            try:
                turn = game.turn(obj)
            except CourseError as exc:
                return {"game": self._handles.get(id(game)), "terminal": terminal,
                        "turn_error": str(exc)}
            except Exception:  # noqa: BLE001
                return None
            if type(turn) is Player and not self._with_states:
                # the same for every such state of the call: one dict (never changed: values of
                # functions are added to an info only while _with_states is not empty)
                key = (self._handles.get(id(game)), turn)
                info = self._turn_infos.get(key)
                if info is None:
                    info = self._turn_infos[key] = {"game": key[0], "terminal": terminal,
                                                    "turn": {"$p": _PLAYER_VALUES[turn]}}
                return info
        info: dict[str, Any] = {"game": self._handles.get(id(game)), "terminal": terminal}
        if not terminal:
            try:
                info["turn"] = encode(turn, _no_handle)
            except CourseError as exc:
                info["turn_error"] = str(exc)
            except Exception:  # noqa: BLE001
                return None
        else:
            try:
                info["utility"] = encode(_instrument().unrecorded_utility(game, obj), _no_handle)
            except Exception:  # noqa: BLE001 - then the sandbox asks, as for any state
                pass
        return info

    def _values_with_state(self, state: Any, info: dict) -> None:
        """Send with ``state`` the values of this call's functions that are pure functions of the
        game's states and record nothing (``fn.sent_with_states``: the estimate an ordered
        search sorts by, :meth:`~course.grading.checks.instrument.Recording.estimator`; an exercise's
        data per node, :meth:`~course.grading.checks.instrument.Recording.state_function`): the
        sandbox answers the student's call of one on that state itself, with this value."""
        values = []
        for h, fn in self._with_states:
            try:
                values.append([h, encode(fn(state), _no_handle)])
            except Exception:  # noqa: BLE001 - then the sandbox asks, as for any call
                pass
        if values:
            info["values"] = values

    def _resolve(self, data: dict) -> Any:
        if len(data) == 1:                 # the usual case, a handle alone: {"$h": h}
            h = data.get("$h")
            if type(h) is int and 0 <= h < len(self._objects):
                return self._objects[h]
        if "$o" in data:                   # something the student returned that cannot cross
            return _Unsendable(str(data.get("$o")), str(data.get("repr", ""))[:200])
        if "$p" in data:
            return Player(data["$p"])
        if "$s" in data:                   # a stand-in of a replayed tree: the state replayed
            replay, s = self._replay, data["$s"]
            if replay is None or type(s) is not int or not 0 <= s < len(replay.tokens):
                raise SessionError("the sandbox named a state the grader never made")
            return replay.tokens[s]
        h = data.get("$h")
        if not isinstance(h, int) or not 0 <= h < len(self._objects):
            raise SessionError("the sandbox named an object the grader never sent")
        return self._objects[h]

    # -- the student's code --------------------------------------------------
    def load(self, cells: Sequence[str]) -> list[CellResult]:
        """Run ``cells`` (source strings) in order in a fresh sandbox; what each did.

        A cell that runs longer than ``cell_timeout`` seconds, or ends its
        process, is reported as failed and left out: the sandbox is started
        again with the cells before it, and the next cells run as usual.
        """
        self.start()
        self.cells = []
        self.results = [self._run_cell(str(source)) for source in cells]
        self._send({"op": "names"})
        message = self._receive()
        names = message.get("names") if message.get("op") == "names" else None
        self.names = [n for n in names or [] if isinstance(n, str) and n.isidentifier()]
        return self.results

    def _exchange_cell(self, source: str) -> tuple[dict, bool]:
        """Run one cell under the grader's watchdog: (the sandbox's answer, whether it timed out).

        Raises SessionError (with the watchdog's verdict in ``timed_out``) if the process died.
        """
        proc = self.proc
        watchdog = threading.Timer(self.cell_timeout + 2, _kill_group, (proc,))
        watchdog.start()
        try:
            self._send({"op": "cell", "source": source, "timeout": self.cell_timeout})
            return self._receive(self.cell_timeout), False
        except SubmissionLimitError:
            raise
        except SessionError as exc:
            exc.timed_out = watchdog.finished.is_set()
            raise
        finally:
            watchdog.cancel()

    def _run_cell(self, source: str) -> CellResult:
        start = time.monotonic()
        try:
            message, _ = self._exchange_cell(source)
        except SubmissionLimitError:
            raise
        except SessionError as exc:
            timed_out = getattr(exc, "timed_out", False)
            why = (f"this cell ran longer than {self.cell_timeout:g} seconds and was stopped"
                   if timed_out else f"{exc}; the cells after it ran in a new process")
            self.restart()
            kind = "CellTimeoutError" if timed_out else "ProcessDied"
            return CellResult("", {"type": kind, "message": why, "traceback": f"{kind}: {why}"},
                              timed_out=timed_out)
        if message.get("op") != "ran":
            raise SessionError("the sandbox did not run the cell")
        error = message.get("error") if isinstance(message.get("error"), dict) else None
        if error is not None:
            error = {k: str(error.get(k, ""))[:6000] for k in ("type", "message", "traceback")}
        self.cells.append(source)
        # the sandbox's alarm stopped it (CellTimeoutError) -- if the grader's clock agrees
        # that the cell ran its whole time limit: the name alone is the student's to choose
        timed_out = error is not None and error["type"] == "CellTimeoutError" and \
            time.monotonic() - start >= self.cell_timeout
        return CellResult(str(message.get("stdout", ""))[:50_000], error, timed_out)

    def restart(self) -> None:
        """A fresh sandbox that has run the cells that ran before (after a stop or a crash)."""
        self.restarts += 1
        if self.restarts > MAX_RESTARTS:
            raise SessionError("your code stopped its process too many times")
        cells, self.cells = self.cells, []
        self.start()
        for source in cells:
            self._exchange_cell(source)
            self.cells.append(source)

    def function(self, name: str) -> "RemoteFunction":
        """The student's function ``name`` as a callable of the grader's."""
        return RemoteFunction(self, name)

    def call(self, name: str, args: Sequence[Any], *, count: bool = False) -> Any:
        """Call the student's ``name(*args)``; answer its requests until it returns.

        With ``count``, the sandbox also counts the lines of Python the call runs:
        :attr:`last_lines` (-1 if the student's code switched the counting off).
        """
        if self.proc is None or self.proc.poll() is not None:
            self.restart()
        if self._wants_isolation and not self._isolated:
            self._fork()                   # this test's own copy of the process
        self._objects, self._handles = [], {}
        self._game = args[0] if args and isinstance(args[0], Game) else None
        self._expanded, self._resulted, self._infos = set(), set(), {}
        self._turn_infos = {}
        self._with_states = []
        self._replay = None
        found = None
        if REPLAY_TREES and self._game is not None and not count:
            # (a counted call counts the sandbox's own lines too: those of the live protocol)
            found = _instrument().replay_tree(self._game)
        if found is not None:
            self._replay = _Replay(self._game, found[2])
        self._calls += 1
        call_id = f"{self._calls}-{os.urandom(6).hex()}"
        # "forget": the handles of the previous call mean nothing in this one
        request = {"op": "call", "id": call_id, "name": name, "forget": True,
                   "args": [encode(a, self._encoder) for a in args]}
        raw = ""
        if found is not None:
            request["tree"] = {"game": self._handles.get(id(self._game)),
                               "cls": type(found[2]).__name__, "limit": REPLAY_STATES,
                               "values": self._tree_values(found[1])}
            raw = ', "nodes": ' + found[0]        # the same text for every call on this tree
        if count:
            request["count"] = True
        self.last_lines = None
        self._send(request, raw=raw)
        try:
            return self._serve(call_id)
        except BaseException as exc:
            # The student's function raised and the sandbox answered so: the process waits for
            # the next request, as after a return, and is kept (a new sandbox would run every
            # cell again for the next call, and a release's stubs raise in every test).
            answered = isinstance(exc, StudentCodeError) and exc.__dict__.get("answer_of") == call_id
            if not answered and (self._isolated or not self._wants_isolation or self.proc is None
                                 or self.proc.poll() is not None):
                self.close()               # stopped mid-call: its state is unknown
            # else only the test's copy of the process ended: the cells' state is intact
            raise
        finally:
            self._objects, self._handles, self._game = [], {}, None
            self._replay = None

    def _encoder(self, obj: Any) -> dict:
        """How a grader's object crosses in a call: a replayed tree's state as its stand-in's
        number, anything else as a handle."""
        replay = self._replay
        if replay is not None:
            s = replay.serials.get(id(obj))
            if s is not None and replay.tokens[s] is obj:
                return {"$s": s}
        return self._handle(obj)

    def _tree_values(self, states: list) -> list:
        """The values of this call's functions sent with the states (``sent_with_states``) on each
        node of a replayed tree, in its numbering: ``[[handle, [[value] or None, ...]], ...]``
        (None where the function fails: the sandbox asks then)."""
        out = []
        for h, fn in self._with_states:
            of_inner = getattr(fn, "of_inner", None)
            if not callable(of_inner):
                continue
            values = []
            for state in states:
                try:
                    values.append([encode(of_inner(state), _no_handle)])
                except Exception:  # noqa: BLE001 - then the sandbox asks, as for any call
                    values.append(None)
            out.append([h, values])
        return out

    def _replay_record(self, record: Any) -> None:
        """Make the game calls of a record sent by the sandbox (:class:`inside._Local`), in order,
        on the grader's own instrumented game: ``["m", s]`` moves, ``["c", s]`` chance outcomes,
        ``["u", s]`` utility, ``["r", s, move]`` result (the state it makes is the next number);
        ``s`` a state's number (0 the initial state).  Anything else, a number not yet made, a
        call the game refuses (which the sandbox would have asked live) is a broken protocol:
        :class:`SessionError`, the student's error."""
        replay = self._replay
        if replay is None or type(record) is not list:
            raise SessionError(RECORD_REFUSED)
        game, tokens, serials = replay.game, replay.tokens, replay.serials
        try:
            moves, utility, result = game.moves, game.utility, game.result   # (a Game has all three)
            for entry in record:
                if type(entry) is not list:
                    raise ValueError
                n = len(entry)
                if n < 2:
                    raise ValueError
                op, s = entry[0], entry[1]
                if type(s) is not int or not 0 <= s < len(tokens):
                    raise ValueError
                if n == 2 and op == "m":
                    moves(tokens[s])
                elif n == 2 and op == "u":
                    utility(tokens[s])
                elif n == 3 and op == "r":
                    if len(tokens) >= REPLAY_STATES:
                        raise ValueError
                    move = entry[2]                  # an int is read as decode() reads it
                    child = result(tokens[s], move if type(move) is int
                                   else decode(move, _player_only))
                    serials[id(child)] = len(tokens)
                    tokens.append(child)
                elif n == 2 and op == "c":
                    game.chance_outcomes(tokens[s])
                else:
                    raise ValueError
        except (CourseError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                ArithmeticError, RecursionError):
            raise SessionError(RECORD_REFUSED) from None

    def call_each(self, name: str, arg_lists: Sequence[Sequence[Any]], *,
                  within: tuple[int | float, int | float] | None = None, count: bool = False
                  ) -> tuple[list[Any], StudentCodeError | None]:
        """Call the student's ``name(*args)`` for each ``args`` of ``arg_lists``, in order, in one
        message: one round trip for many calls of a function of plain data (an evaluation
        function on many states).

        Each call runs as :meth:`call` runs it, one after the other in the same process: with
        handles of its own (the sandbox forgets the previous call's), its own captured output
        (printed here, call by call) and its own line count; what the student's code sees is
        what it sees when the calls are made one at a time.  No game may be passed (a search
        is called with :meth:`call`).

        Returns ``(values, error)``: the values of the calls that returned, in order (with
        ``count``, ``(value, lines)`` pairs, see :meth:`call`), and the exception the next call
        raised (a :class:`StudentCodeError`, returned, not raised: the caller takes the values
        first), or None.  The sandbox stops after a call that raised, or that returned
        anything but a finite number strictly inside ``within`` (any finite number if
        ``within`` is None): the calls after it are not made, and ``values`` is shorter than
        ``arg_lists`` (its last value is that answer); call again with the rest to go on.
        So the calls made are exactly those a caller making them one by one, and stopping
        where the values say, would make.

        >>> from course.sandbox import StudentSession, sandbox_available
        >>> with StudentSession(sandbox=sandbox_available()) as session:
        ...     _ = session.load(["def f(x):\\n    return 1 / x"])
        ...     session.call_each("f", [(1,), (4,), (0,), (2,)])
        ([1.0, 0.25], ZeroDivisionError('division by zero'))
        """
        arg_lists = [tuple(args) for args in arg_lists]
        if within is not None and not all(type(x) in (int, float) for x in within):
            raise TypeError("call_each: within must be two numbers (int or float)")
        if any(isinstance(a, Game) for args in arg_lists for a in args):
            raise TypeError("call_each: a game goes to one call at a time (call())")
        if not arg_lists:
            return [], None
        if self.proc is None or self.proc.poll() is not None:
            self.restart()
        if self._wants_isolation and not self._isolated:
            self._fork()                   # this test's own copy of the process
        self._game, self._with_states = None, []
        self._expanded, self._resulted, self._infos = set(), set(), {}
        self._turn_infos = {}
        tables, items = [], []
        for args in arg_lists:             # each call's handles numbered as in a call of its own
            self._objects, self._handles = [], {}
            items.append([encode(a, self._handle) for a in args])
            tables.append((self._objects, self._handles))
        self._objects, self._handles = tables[0]
        self._calls += 1
        call_id = f"{self._calls}-{os.urandom(6).hex()}"
        request: dict[str, Any] = {"op": "batch", "id": call_id, "name": name, "items": items}
        if within is not None:
            request["within"] = list(within)
        if count:
            request["count"] = True
        self.last_lines = None
        self._send(request)
        try:
            return self._serve_batch(call_id, tables, count)
        except BaseException:
            # a call that raised is returned, not raised: here the batch stopped mid-call
            if self._isolated or not self._wants_isolation or self.proc is None \
                    or self.proc.poll() is not None:
                self.close()               # its state is unknown
            raise
        finally:
            self._objects, self._handles, self._game = [], {}, None

    def _serve_batch(self, call_id: str, tables: list, count: bool
                     ) -> tuple[list[Any], StudentCodeError | None]:
        """Read the answers of a batch (:meth:`call_each`) and serve its calls' requests.

        The sandbox answers the calls in order and sends the answers it holds before any
        request, so the call a request or an answer belongs to is the first one not yet
        answered; its handles are in force.  More answers than calls, or an answer out of
        turn, is a broken protocol.
        """
        values: list[Any] = []
        n = len(tables)

        def take(value_data: Any, stdout: Any, lines: Any) -> None:
            self._print(stdout)
            value = decode(value_data, self._resolve)
            if count:
                known = isinstance(lines, int) and not isinstance(lines, bool)
                values.append((value, lines if known else None))
            else:
                values.append(value)

        while True:
            message = self._receive()
            op = message.get("op")
            if op in ("return", "error", "batched") and message.get("id") != call_id:
                continue                   # not an answer to this batch (stale or forged)
            if "record" in message or op == "record":
                raise SessionError(RECORD_REFUSED)      # no tree is replayed in a batch
            if op == "notes":
                self._notes(message.get("notes"))
            elif op in ("game", "callback", "note"):
                self._answer(message)
            elif op == "batched":
                results = message.get("results")
                if not isinstance(results, list) or not results or len(results) > n - len(values):
                    raise SessionError("the sandbox sent answers to calls that were not made")
                for entry in results:
                    if not isinstance(entry, list) or len(entry) not in (2, 3):
                        raise SessionError("the sandbox sent something that is not a message")
                    take(entry[0], entry[1], entry[2] if len(entry) == 3 else None)
                    if len(values) < n:
                        self._objects, self._handles = tables[len(values)]
                if len(values) == n:
                    return values, None
            elif op in ("return", "error"):
                item = message.get("item")
                if type(item) is not int or item != len(values):
                    raise SessionError("the sandbox answered a call out of turn")
                if op == "return":
                    take(message.get("value"), message.get("stdout"), message.get("lines"))
                    return values, None
                self._print(message.get("stdout"))
                error = _student_error(message.get("type", "Exception"), message.get("message", ""),
                                       message.get("traceback", ""))
                error.answer_of = call_id
                return values, error
            else:
                raise SessionError(f"the sandbox sent an unknown request {str(op)[:40]!r}")

    def _serve(self, call_id: str) -> Any:
        while True:
            message = self._receive()
            op = message.get("op")
            if op in ("return", "error") and message.get("id") != call_id:
                continue                   # not the answer to this call (stale or forged)
            if "record" in message:        # calls answered in the sandbox: made here first
                if op not in ("record", "return", "error", "game", "callback") or \
                        (op == "record" and message.get("id") != call_id):
                    raise SessionError(RECORD_REFUSED)
                self._replay_record(message["record"])
            if op == "record":
                if "record" not in message:
                    raise SessionError(RECORD_REFUSED)
                continue
            if op == "notes":
                self._notes(message.get("notes"))
            elif op in ("game", "callback", "note"):
                self._answer(message)
            elif op == "return":
                self._print(message.get("stdout"))
                lines = message.get("lines")
                self.last_lines = lines if isinstance(lines, int) and not isinstance(lines, bool) else None
                return decode(message.get("value"), self._resolve)
            elif op == "error":
                self._print(message.get("stdout"))
                error = _student_error(message.get("type", "Exception"), message.get("message", ""),
                                       message.get("traceback", ""))
                error.answer_of = call_id          # the call ended with the sandbox's answer
                raise error
            else:
                raise SessionError(f"the sandbox sent an unknown request {str(op)[:40]!r}")

    def _print(self, text: Any) -> None:
        """What the student's function printed, to the grader's standard output (the check
        shows it with its report), unless the session is quiet (hidden tests), at most
        ``limits.output_chars`` characters per call."""
        if isinstance(text, str) and text and not self.quiet:
            cap = self.limits.output_chars
            sys.stdout.write(text if len(text) <= cap else
                             text[:cap] + f"\n... ({len(text) - cap} more characters not shown)\n")

    quiet = False
    """True while a hidden test runs: nothing the student's code prints is passed on."""

    def _fork(self) -> None:
        """Start this test's copy of the process.  If the student's own processes fill the
        limit, the sandbox is started afresh (its cells run again) and tried once more; if the
        cells themselves fill it, the test runs in the fresh process, which is closed after it."""
        for attempt in range(2):
            self._send({"op": "fork"})
            message = self._receive()
            if message.get("op") == "forked":
                self._isolated = True
                return
            if message.get("op") != "fork-failed":
                raise SessionError("the sandbox did not start the test")
            if attempt == 0:
                self.restart()
        self._isolated = self._throwaway = True

    _throwaway = False

    def _join(self) -> None:
        if self._throwaway:
            self._throwaway = False
            self.close()                   # the test ran in the process itself: not reused
            return
        if self.proc is None or not self._isolated:
            return
        self._send({"op": "exit"})
        while True:
            try:
                self._receive()
            except SessionError as exc:
                if self._isolated:         # not the end of the test's process: stop all
                    self.close()
                    raise exc from None
                return                     # "joined": the state of the cells is back

    def _notes(self, notes: Any) -> None:
        """Record what the sandbox reports it used of what was sent ahead: ``[[handle, method,
        args], ...]``, each as a ``note`` (:meth:`_answer`), in order."""
        if not isinstance(notes, list):
            raise SessionError("the sandbox sent something that is not a message")
        for note in notes:
            if not isinstance(note, list) or len(note) != 3:
                raise SessionError("the sandbox sent something that is not a message")
            self._request("note", note[0], note[1], note[2])

    def _answer(self, message: dict) -> None:
        """Answer a request (``"game"``, ``"callback"``) or record a ``"note"``."""
        self._request(message["op"], message.get("h"), message.get("method"), message.get("args"))

    def _request(self, op: str, h: Any, method: Any, arg_data: Any) -> None:
        """:meth:`_answer` for the message's members (a note is never made into a message)."""
        try:
            objects, resolve = self._objects, self._resolve
            target = resolve({"$h": h})            # (a valid handle: _resolve's first test)
            args = []
            for a in arg_data or []:
                if type(a) is dict and len(a) == 1:          # a handle alone, as decode() reads it
                    k = a.get("$h")
                    if type(k) is int and 0 <= k < len(objects):
                        args.append(objects[k])
                        continue
                args.append(decode(a, resolve))
            children = deeper = None
            if op == "game" or op == "note":
                if not _is_game(target) or method not in GAME_METHODS:
                    raise SessionError("the sandbox asked for something that is not a game method")
                if method == "result" and args:
                    self._resulted.add(id(args[0]))
                value = getattr(target, method)(*args)
                if op == "note":
                    return                 # recorded; the sandbox already had the answer
                if method in ("moves", "chance_outcomes") and target is self._game and args \
                        and self._replay is None:
                    made = self._children(target, args[0], method, value)
                    if made is not None:
                        children = [self._handle(child) for child in made]
                        deeper = self._deeper(target, made)
            else:
                if _is_game(target) or not callable(target):
                    raise SessionError("the sandbox called something that is not a function")
                value = target(*args)
            reply = {"op": "reply", "value": encode(value, self._encoder)}
            if children is not None:
                reply["children"] = children
            if deeper:
                reply["deeper"] = deeper
        except SessionError:
            raise
        except (CourseError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                NotImplementedError, ArithmeticError) as exc:
            if op == "note":
                return
            kind = "GameUsageError" if isinstance(exc, _instrument().GameUsageError) \
                else type(exc).__name__
            reply = {"op": "raise", "type": kind, "message": str(exc)}
        self._send(reply)

    def _children(self, game: Any, state: Any, method: str, listed: Any) -> list | None:
        """Every child of ``state``, sent with its moves: ``result`` then needs no trip.

        Once the moves of a state were asked for, ``result`` records nothing new (the node is
        expanded already), so making the children now changes nothing in the record; each is
        handed out once by the sandbox, and a second ``result`` for the same move comes here.
        """
        key = id(state)
        if key in self._expanded or key in self._resulted:
            return None                    # result() was asked before: make no child twice
        self._expanded.add(key)
        moves = [m for m, _ in listed] if method == "chance_outcomes" else list(listed)
        try:
            return [game.result(state, move) for move in moves]
        except Exception:  # noqa: BLE001 - then result() is asked for move by move
            return None

    def _deeper(self, game: Any, children: list) -> list:
        """The levels below ``children`` (just sent), breadth first, up to :data:`PREFETCH_NODES`.

        Each entry ``[parent, moves, probabilities or None, children]`` is made without recording
        (:func:`~course.grading.checks.instrument.unrecorded_children`); the sandbox reports the first
        use of each parent as a ``moves`` note, which records its expansion in its place.  A
        parent's handle is always sent before its entry.
        """
        unrecorded_children = _instrument().unrecorded_children
        handle = self._handle
        entries: list = []
        queue = collections.deque(children)
        sent = 0
        while queue and sent < PREFETCH_NODES:
            parent = queue.popleft()
            info = self._infos.get(id(parent))
            if info is None or info.get("terminal") or "turn_error" in info:
                continue
            try:
                found = unrecorded_children(game, parent)
            except Exception:  # noqa: BLE001 - that node is asked for when the search gets there
                continue
            if found is None:
                break                      # not an instrumented game: nothing is sent ahead
            moves, probabilities, kids = found
            self._expanded.add(id(parent))
            # (a state token's type is kept in _HANDLED: encode() would hand it to _handle; a
            # list of int moves encodes as itself, and ``moves`` is a list of its own)
            entries.append([handle(parent) if type(parent) in _HANDLED else encode(parent, handle),
                            moves if type(moves) is list and all(type(m) is int for m in moves)
                            else encode(moves, handle),
                            None if probabilities is None else encode(probabilities, handle),
                            [handle(kid) for kid in kids]])
            sent += len(kids)
            queue.extend(kids)
        return entries


#: The modules of ``course`` that a graded notebook's code may use: the game model and the worked
#: examples (standard library only).  The searches, the grader and everything else are absent.
STUDENT_MODULES = ("errors", "game", "trees", "examples")

_STUDENT_INIT = '''"""The course as a graded notebook's code sees it: the game model and the worked examples.

The reference searches, the grader and the rest of the course are not available while a
notebook is graded; their names are placeholders that say so when used.
"""
from .errors import *  # noqa: F401,F403
from .game import *  # noqa: F401,F403
from .trees import *  # noqa: F401,F403


from inside import Unavailable as _Unavailable  # noqa: E402 - the sandbox's program


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Unavailable(f"course.{name}")
'''


def _student_course(target: str) -> None:
    """Write the student-facing part of the course package into ``target``."""
    os.mkdir(target)
    for name in STUDENT_MODULES:
        shutil.copy(_COURSE / f"{name}.py", os.path.join(target, f"{name}.py"))
    with open(os.path.join(target, "__init__.py"), "w", encoding="utf-8") as f:
        f.write(_STUDENT_INIT)


_COURSE = Path(__file__).resolve().parent.parent

#: How the sandbox's Python runs :mod:`.inside`: imported as a module from the program folder
#: (its first argument), so that the bytecode compiled with the folder is used (a script given
#: to ``python`` is compiled at every start).  Further arguments are ignored.
BOOT = "import sys; sys.path.insert(0, sys.argv[1]); import inside; inside.main()"

_PROGRAMS: dict[tuple, str] = {}
_PROGRAMS_LOCK = threading.Lock()


def program_folder(python: str) -> str:
    """The sandbox's program, ready to be bound read-only at ``/grader``: :mod:`.inside` and the
    student-facing part of the course (:data:`STUDENT_MODULES`), with their bytecode.

    Made once per process (and again if the sources or ``$TMPDIR`` change) in
    :func:`~.bwrap.sandbox_tmp`, readable by the sandbox's user and writable by no one else;
    removed when the process ends.  The bytecode is compiled by ``python``, the interpreter
    the sandbox runs, so it is the version that interpreter reads; without it (the compiler
    failed) every start compiles the sources again, as it would anyway.
    """
    sources = [INSIDE] + [_COURSE / f"{name}.py" for name in STUDENT_MODULES]
    key = (python, sandbox_tmp(), tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                                        for p in sources))
    with _PROGRAMS_LOCK:
        folder = _PROGRAMS.get(key)
        if folder is not None and os.path.isfile(os.path.join(folder, "inside.py")):
            return folder
        base = tempfile.mkdtemp(prefix="course-sandbox-program-", dir=key[1])
        os.chmod(base, 0o755)
        folder = os.path.join(base, "grader")
        os.mkdir(folder)
        shutil.copy(INSIDE, os.path.join(folder, "inside.py"))
        _student_course(os.path.join(folder, "course"))
        try:
            subprocess.run([python, "-I", "-S", "-c",
                            "import compileall, sys; compileall.compile_dir(sys.argv[1], quiet=2)",
                            folder], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60, env={"LANG": "C.UTF-8"})
        except (OSError, subprocess.SubprocessError):
            pass                           # then the sandbox compiles the sources itself
        for where, _, files in os.walk(base):
            os.chmod(where, 0o755)
            for name in files:
                os.chmod(os.path.join(where, name), 0o644)
        for old in [k for k in _PROGRAMS if k[:2] == key[:2]]:
            shutil.rmtree(os.path.dirname(_PROGRAMS.pop(old)), ignore_errors=True)
        _PROGRAMS[key] = folder
        return folder


@atexit.register
def _remove_programs() -> None:
    for folder in _PROGRAMS.values():
        shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    _PROGRAMS.clear()


_KINDS: dict[type, tuple[str, list[str] | None]] = {}

#: What :func:`~.inside.encode` sends for each player (``{"$p": value}``).
_PLAYER_VALUES = {player: player.value for player in Player}

#: How every message to the sandbox is written: one line of compact JSON (the sandbox reads any
#: JSON; a message is made by :func:`encode`, which makes new lists and dicts: never a cycle).
_dumps = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode

_GAME_TYPES: dict[type, bool] = {}


def _is_game(obj: Any) -> bool:
    """``isinstance(obj, Game)``, kept for each class (the ABC's check costs more than the rest
    of a note's recording); an object whose ``__class__`` is not its type is checked each time."""
    cls = type(obj)
    found = _GAME_TYPES.get(cls)
    if found is None:
        found = isinstance(obj, Game)
        if obj.__class__ is not cls:
            return found
        if len(_GAME_TYPES) > 500:
            _GAME_TYPES.clear()
        _GAME_TYPES[cls] = found
    return found


def _dataclass_names(obj: Any) -> list[str]:
    """The fields and public properties of a dataclass's value (sent as its attributes)."""
    return [f.name for f in fields(obj)] + [
        name for name, value in vars(type(obj)).items()
        if isinstance(value, property) and not name.startswith("_")]


def _kind_of(obj: Any) -> tuple[str, list[str] | None]:
    """How the grader's object ``obj`` crosses: ``("game" | "fn" | "obj", names)``, ``names`` the
    attributes sent with a dataclass's value (:func:`_dataclass_names`), else None.

    Decided by its class alone (kept for each class: a few hundred at most), except for a
    class itself, decided each time.
    """
    cls = type(obj)
    if issubclass(cls, type):                      # a class: never a game or a function here
        return "obj", _dataclass_names(obj) if is_dataclass(obj) else None
    found = _KINDS.get(cls)
    if found is None:
        if Game in cls.__mro__:      # not issubclass(): with one class per instrumented
            found = ("game", None)   # case, the ABC's check walks thousands of subclasses
        elif any("__call__" in vars(klass) for klass in cls.__mro__):       # callable(obj)
            found = ("fn", None)
        else:
            found = ("obj", _dataclass_names(obj) if is_dataclass(cls) else None)
        if len(_KINDS) > 500:
            _KINDS.clear()
        _KINDS[cls] = found
    return found


_INSTRUMENT: Any = None


def _instrument() -> Any:
    """:mod:`course.grading.checks.instrument` (imported on first use: the grader's side of the course)."""
    global _INSTRUMENT
    if _INSTRUMENT is None:
        import importlib

        _INSTRUMENT = importlib.import_module("..grading.checks.instrument", __package__)
    return _INSTRUMENT


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _no_handle(value: Any) -> Any:
    raise TypeError(f"not plain data: {type(value).__name__}")


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:g} MB"


def _ended(status: Any) -> str:
    """Why a test's process (a fork of the sandbox's) ended, from its wait status."""
    if isinstance(status, int) and status >= 0 and os.WIFSIGNALED(status):
        return (f"your code's process was killed by signal {os.WTERMSIG(status)} "
                "(memory or CPU limit?)")
    if isinstance(status, int) and status >= 0 and os.WIFEXITED(status):
        return f"your code ended its Python process (exit status {os.WEXITSTATUS(status)})"
    return "your code's process ended"


def _nodes(data: Any, limit: int) -> int:
    """How many values ``data`` (decoded JSON) holds, counting up to just past ``limit``."""
    count, todo = 0, [data]
    while todo and count <= limit:
        item = todo.pop()
        count += 1
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
            count += len(item)
    return count


def _children_of(pid: int) -> list[int] | None:
    """Child process ids of ``pid`` (Linux ``/proc/PID/task/*/children``), None if unknown."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found += [int(x) for x in handle.read().split()]
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            continue
    return found


def _memory_of(pid: int) -> int:
    """Proportional resident memory of one process in bytes (pages shared by forks counted once
    across them: ``Pss`` of ``smaps_rollup``), or its resident memory where that is missing."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _tree_memory(pid: int) -> int:
    """Memory of ``pid`` and every process below it, in bytes (Linux /proc)."""
    total, todo, seen = 0, [pid], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        total += _memory_of(current)
        children = _children_of(current)
        if children is None:                      # no children files: scan every process
            from .bwrap import descendants

            return total + sum(_memory_of(p) for p in descendants(current) if p not in seen)
        todo += children
    return total


MEMORY_POLL = 0.2
"""Seconds between two measures of a sandbox's memory (:attr:`Limits.memory_total_bytes`)."""


def _watch_memory(session: "StudentSession", proc: subprocess.Popen) -> None:
    """Stop the sandbox when its processes together hold more than the memory cap."""
    cap = session.limits.memory_total_bytes
    while proc.poll() is None and session.proc is proc:
        if _tree_memory(proc.pid) > cap:
            session.stopped_for = (f"your code used more than {_size(cap)} of memory (the limit "
                                   "for one submission) and was stopped")
            session.limit_hit = session.limit_hit or session.stopped_for
            _kill_group(proc)
            return
        time.sleep(MEMORY_POLL)


class _Replay:
    """A call's replay of a tree's record: the grader's states by number (0 the initial state)."""

    __slots__ = ("game", "tokens", "serials")

    def __init__(self, game: Any, root: Any) -> None:
        self.game, self.tokens, self.serials = game, [root], {id(root): 0}


def _player_only(data: dict) -> Any:
    """Resolve a record's move: a player, never a handle."""
    if "$p" in data:
        return Player(data["$p"])
    raise ValueError("a handle in a record")


class _Isolated:
    """See :meth:`StudentSession.isolated`."""

    def __init__(self, session: StudentSession) -> None:
        self.session = session

    def __enter__(self) -> StudentSession:
        session = self.session
        session._wants_isolation = True
        if session.proc is not None and session.proc.poll() is None:
            try:
                session._fork()
            except SubmissionLimitError:
                raise
            except SessionError:
                session.close()            # the test's first call starts a fresh sandbox
        return session

    def __exit__(self, *exc: Any) -> None:
        session = self.session
        session._wants_isolation = False
        try:
            session._join()
        except SessionError:
            if exc[0] is None:
                raise


class RemoteFunction:
    """A student's function, called from the grader, run in the sandbox."""

    def __init__(self, session: StudentSession, name: str) -> None:
        self.session, self.name = session, name
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args: Any) -> Any:
        try:
            return self.session.call(self.name, args)
        except SessionError as exc:
            raise exc.with_traceback(None) from None     # the student's terms, no grader frames

    def each(self, arg_lists: Sequence[Sequence[Any]], *,
             within: tuple[int | float, int | float] | None = None, count: bool = False
             ) -> tuple[list[Any], StudentCodeError | None]:
        """Call it for each ``args`` of ``arg_lists`` in one message: ``(values, error)``, see
        :meth:`StudentSession.call_each` (it may stop early: call again with the rest)."""
        try:
            return self.session.call_each(self.name, arg_lists, within=within, count=count)
        except SessionError as exc:
            raise exc.with_traceback(None) from None     # the student's terms, no grader frames

    def counted(self, *args: Any) -> tuple[Any, int | None]:
        """Call it and count the lines of Python it runs: ``(value, lines)``; ``lines`` is -1
        if the student's code switched the counting off, None if the sandbox did not say."""
        value = self.session.call(self.name, args, count=True)
        return value, self.session.last_lines

    def __repr__(self) -> str:
        return f"<student's function {self.name} (sandboxed)>"
