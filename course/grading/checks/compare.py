"""Run a student's search on an instrumented game and compare it with the reference search.

The comparison is strict, because the exercises state exact rules: the same
value (or bounds), the same root move, and the same *ordered* sequence of
expansions and leaf evaluations as the reference search of
:mod:`course.search`.  When something differs, :class:`Comparison` explains
the first difference in terms of the tree: which node, what the reference's
window or bounds were there, and which rule decided.

Some rules are not visible in that sequence and are checked from the
instrumented game's notes instead: ``evaluate`` called on a terminal state, a
child created twice by ``result`` on the same state and move, and (for the
tasks with chance nodes) a float where the reference's value is an exact
fraction.  These fail with :class:`~course.grading.checks.failures.RuleBroken`, or
:class:`WrongValue`/:class:`WrongBounds` for inexact numbers.

The student's function runs under guards (see :func:`run_student`): a time
limit, a cap on the recursion limit, captured output, and a trace hook that
notices any reference-search frame, so that calling :func:`course.search.alphabeta`
(even on a separate copy of the tree) is detected.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
import _signal
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Real
from typing import Any

from ...errors import format_path
from ...game import Player
from ...search import alphabeta, bab, expectimax, minimax, naive_epsilon, star1
from ...search.result import SearchResult, bounds_text
from ...trees import TreeGame
from .values import fmt, same_move, same_number
from .cases import Case, as_cases
from .failures import (
    GradingFailure,
    InstrumentationTampered,
    ReferenceSearchUsed,
    RuleBroken,
    SearchCrashed,
    SearchTimeout,
    TimeLimitExceeded,
    WrongBounds,
    WrongExpansions,
    WrongLeaves,
    WrongMove,
    WrongReturnType,
    WrongValue,
    raised,
)
from .instrument import EXPAND, LEAF, instrument, is_reference_code, replay_path

__all__ = ["Task", "TASKS", "StudentRun", "Comparison", "run_student", "compare", "DEFAULT_TIME_LIMIT"]

#: Seconds a student's search may take on one case before it is stopped.
DEFAULT_TIME_LIMIT = 10.0
#: The recursion limit while a student's search runs (never raised, only capped).
RECURSION_CAP = 5000
#: Characters of a search's printed output kept for feedback.
OUTPUT_LIMIT = 2000
#: Trees with at most this many nodes are drawn (as a table, and as pictures in a notebook).
DRAW_LIMIT = 60

_REFERENCES = {
    "minimax": minimax,
    "expectimax": expectimax,
    "alphabeta": alphabeta,
    "star1": star1,
    "bab": bab,
    "naive_epsilon": naive_epsilon,
}
_REFERENCE_CODE = {name: f.__code__ for name, f in _REFERENCES.items()}


@dataclass(frozen=True)
class Task:
    """What an exercise's function does, and how it is called and checked."""

    title: str
    """How messages name the search, e.g. ``"alpha-beta search"``."""
    reference: str
    """Key of the reference search: minimax, expectimax, alphabeta, star1 or bab."""
    returns: str
    """``"value"`` (a number), ``"decision"`` ((value, move)) or ``"bounds"`` ((lower, upper, move))."""
    signature: str
    """The call, as the notebook states it, e.g. ``"alphabeta_decision(game, state)"``."""
    order: str = "given"
    """Move ordering of the reference search."""
    takes_depth: bool = False
    """The function takes the depth limit as its third argument."""
    takes_epsilon: bool = False
    """The function takes epsilon as its third argument."""
    takes_estimate: bool = False
    """The function takes an (uncounted) ``estimate(state)`` as its third argument."""
    rule: str = ""
    """The pruning rule in words, quoted when a cut-off differs."""
    exact: bool = False
    """The exercise asks for exact arithmetic: a float where the reference is exact fails."""
    move_rule: str = ("the first move (in the order of game.moves) whose child value equals "
                      "the root value")
    """The rule for the root move, quoted when the move differs."""
    strict: bool = False
    """The reference prunes only on a strict inequality (CS188's rule; see
    :func:`course.grading.checks.searches.check`'s ``strict``)."""


_AB_RULE = ("alpha-beta cuts at a MAX node when v >= beta and at a MIN node when v <= alpha "
            "(on equality too), testing before it updates alpha or beta")
_BAB_RULE = ("the node prunes when beta <= alpha + epsilon after taking in a child that is not its "
             "last, with alpha = max(L, alpha) and beta = min(U, beta) updated first")
_NAIVE_RULE = ("after each child that is not the last, MAX sets alpha = max(alpha, v), MIN sets "
               "beta = min(beta, v), and the node cuts when beta <= alpha + epsilon")
_BY_L = ("at a MAX root the first child (in order) with the highest L, at a MIN root the first "
         "with the lowest U")

TASKS: dict[str, Task] = {
    "minimax_value": Task("minimax value", "minimax", "value", "minimax_value(game, state)"),
    "minimax_decision": Task("minimax decision", "minimax", "decision",
                             "minimax_decision(game, state)"),
    "depth_limited_decision": Task("depth-limited minimax", "minimax", "decision",
                                   "depth_limited_decision(game, state, depth)", takes_depth=True),
    "alphabeta_decision": Task("alpha-beta search", "alphabeta", "decision",
                               "alphabeta_decision(game, state)", rule=_AB_RULE),
    "expectimax_value": Task("expectimax value", "expectimax", "value", "expectimax_value(game, state)",
                             exact=True),
    "star1_decision": Task("Star1 search", "star1", "decision", "star1_decision(game, state)",
                           rule=_BAB_RULE.replace(" + epsilon", ""), exact=True,
                           move_rule=_BY_L),
    "naive_epsilon_value": Task("naive-epsilon alpha-beta", "naive_epsilon", "value",
                                "naive_epsilon_value(game, state, epsilon)", takes_epsilon=True,
                                rule=_NAIVE_RULE),
    "bab_search": Task("Bounded Alpha-Beta", "bab", "bounds", "bab_search(game, state, epsilon)",
                       takes_epsilon=True, rule=_BAB_RULE, exact=True, move_rule=_BY_L),
    "ordered_alphabeta": Task("alpha-beta with move ordering", "alphabeta", "decision",
                              "ordered_alphabeta(game, state, estimate)", order="heuristic",
                              takes_estimate=True, rule=_AB_RULE,
                              move_rule=("the first move, in the order your search visited the "
                                         "root's children (best estimate first), whose child "
                                         "returned the root value")),
}
"""The exercises' functions, by name."""


# ---------------------------------------------------------------------------
# running the student's function
# ---------------------------------------------------------------------------
@dataclass
class StudentRun:
    """What happened when a student's function ran on one case."""

    returned: Any = None
    """The function's return value (None if it raised)."""
    error: BaseException | None = None
    """The exception it raised, if any."""
    timed_out: bool = False
    """True if it was stopped by the time limit."""
    error_trace: str = ""
    """The traceback of ``error``, reduced to the student's frames."""
    output: str = ""
    """What it printed (truncated to :data:`OUTPUT_LIMIT` characters)."""
    events: tuple = ()
    """The recorded ``(kind, path)`` events."""
    reference_calls: tuple[str, ...] = ()
    """Reference-search functions that ran during the call."""
    tampered: str | None = None
    """Why the instrumentation is no longer trusted, or None."""
    seconds: float = 0.0
    """Wall-clock time of the call."""
    terminal_evaluations: tuple = ()
    """Paths of terminal states the function called ``evaluate`` on."""
    regenerated: tuple = ()
    """Paths of children the function created twice with ``result`` (same state, same move)."""


class _BoundedText(io.TextIOBase):
    """A text sink that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def value(self) -> str:
        text = "".join(self.parts)
        if self.total > self.kept:
            text += f"\n... ({self.total - self.kept} more characters not shown)"
        return text


#: Without an interval timer, the trace hook checks the clock once every this many calls.
STEP_CHECK_EVERY = 64


def _alarm_usable(seconds: float | None) -> bool:
    """Whether SIGALRM can stop a search after ``seconds``: Unix, the main thread, and not Pyodide
    (in the browser there are no signals; :func:`run_student` checks the clock instead)."""
    return (seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
            and sys.platform != "emscripten"
            and threading.current_thread() is threading.main_thread())


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`TimeLimitExceeded` in the running code after ``seconds`` (Unix, main thread)."""
    if not _alarm_usable(seconds):
        yield
        return

    def on_alarm(signum, frame):
        raise TimeLimitExceeded(f"more than {seconds:g} seconds")

    # _signal.signal is what signal.signal calls, without turning the previous handler into an
    # enum and back (a cost at each of the thousands of checks a grading worker runs)
    previous = _signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, previous)


_COURSE_PACKAGE = str(Path(__file__).resolve().parents[2]).replace("\\", "/") + "/"


def _in_course(filename: str) -> bool:
    """Whether a frame's file is the course library's own (the grader, the sandbox, the games)."""
    name = filename.replace("\\", "/")
    try:
        name = str(Path(filename).resolve()).replace("\\", "/")
    except (OSError, ValueError):
        pass
    return name.startswith(_COURSE_PACKAGE) or "/course/grading/" in name


def _student_traceback(exc: BaseException) -> str:
    """The traceback lines of ``exc`` that are not inside the course library.

    The course's own frames (the grader, the sandbox's client, the instrumented games) are
    left out: they say nothing to a student, and name the instructor's folders.  A time limit
    reached while the grader waited for the sandbox has no frame of the student's: nothing
    is shown for it (the message says the limit)."""
    remote = getattr(exc, "student_traceback", None)
    if isinstance(remote, str) and remote:        # raised in the sandbox (course.sandbox)
        return remote.rstrip()
    frames = traceback.extract_tb(exc.__traceback__)
    keep = [f for f in frames if not _in_course(f.filename)]
    if isinstance(exc, TimeLimitExceeded) and not keep:
        return ""
    lines = traceback.format_list(keep[-6:])
    lines += traceback.format_exception_only(type(exc), exc)
    text = "".join(lines).rstrip()
    # the ^^^ markers under a line mean nothing once a long line is wrapped
    return "\n".join(line for line in text.split("\n") if line.strip(" ^~"))


def _runs_in_sandbox(fn: Callable) -> bool:
    """Whether ``fn`` is a student's function run in a sandbox (:class:`course.sandbox.RemoteFunction`).

    Only the grader makes those (the sandbox's module is then loaded); in a student's own
    kernel (Validate) the function is the student's, and runs here.
    """
    session = sys.modules.get("course.sandbox.session")
    return session is not None and isinstance(fn, session.RemoteFunction)


def run_student(task: Task, fn: Callable, case: Case, *,
                time_limit: float | None = DEFAULT_TIME_LIMIT,
                extra: Callable[[Any], list] | None = None) -> StudentRun:
    """Call the student's ``fn`` on an instrumented copy of ``case``'s game.

    Parameters
    ----------
    task : Task
        How ``fn`` is called (which extra argument it takes).
    fn : callable
        The student's function.
    case : Case
    time_limit : float or None
        Seconds before the call is stopped (Unix main thread only).
    extra : callable, optional
        ``extra(recording)`` returns further arguments, appended after the task's
        (e.g. an error bound per state, made with :meth:`Recording.state_function`).

    Returns
    -------
    StudentRun
        Never raises for anything ``fn`` does, except ``KeyboardInterrupt``.
    """
    elsewhere = _runs_in_sandbox(fn)
    game, recording = instrument(case.game, state=case.state, evaluate=case.evaluate,
                                 callers=not elsewhere)
    args: list[Any] = [game, game.initial_state()]
    if task.takes_depth:
        args.append(case.depth)
    if task.takes_epsilon:
        args.append(case.epsilon)
    if task.takes_estimate:
        args.append(recording.estimator())
    if extra is not None:
        args += list(extra(recording))
    run = StudentRun()
    seen: list[str] = []
    # Where no SIGALRM can interrupt the search (Pyodide, threads), the watch below enforces the
    # time limit itself: every STEP_CHECK_EVERY function calls it reads the clock.  (A loop that
    # calls no function at all cannot be stopped this way; the kernel's interrupt still can.)
    budget = [None if _alarm_usable(time_limit) or not time_limit or time_limit <= 0
              else time_limit, 0, 0.0]          # seconds, calls so far, deadline

    def watch(frame, event, arg):
        if event == "call":
            if budget[0] is not None:
                budget[1] += 1
                if budget[1] % STEP_CHECK_EVERY == 0 and time.perf_counter() > budget[2]:
                    budget[0] = None                  # raise once; the hook is then removed
                    raise TimeLimitExceeded(f"more than {time_limit:g} seconds")
            if is_reference_code(frame.f_code.co_filename):
                code = frame.f_code
                seen.append(getattr(code, "co_qualname", code.co_name))
        return None

    # A function that runs in a sandbox (course.sandbox) executes none of the student's code
    # here: only the grader's own code runs, answering its requests, and the reference searches
    # do not exist in the sandbox.  The hook would watch nothing there but cost a trace call per
    # function call of the grader's (half the grader's CPU on a submission), so it is left out,
    # unless it must keep the clock (no SIGALRM).
    hook = watch if budget[0] is not None or not elsewhere else None
    sink = _BoundedText(OUTPUT_LIMIT)
    old_limit = sys.getrecursionlimit()
    old_trace = sys.gettrace()
    watching = [True]
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(sink), \
                contextlib.redirect_stderr(sink):
            warnings.simplefilter("ignore")
            sys.setrecursionlimit(min(old_limit, RECURSION_CAP))
            budget[2] = time.perf_counter() + (budget[0] or 0.0)
            if hook is not None:
                sys.settrace(hook)
            try:
                with _time_limit(time_limit):
                    run.returned = fn(*args)
            finally:
                if hook is not None:
                    watching[0] = sys.gettrace() is hook
                    sys.settrace(old_trace)
                sys.setrecursionlimit(old_limit)
    except KeyboardInterrupt:
        raise
    except TimeLimitExceeded as exc:
        run.error, run.timed_out = exc, True
        run.error_trace = _student_traceback(exc)
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises is reported
        run.error = exc
        run.error_trace = _student_traceback(exc)
    run.seconds = time.perf_counter() - start
    run.output = sink.value()
    run.events = recording.events()
    run.terminal_evaluations = tuple(recording.terminal_evaluations())
    run.regenerated = tuple(recording.regenerated())
    run.reference_calls = tuple(dict.fromkeys(seen + list(recording.reference_calls)))
    try:
        recording.verify()
    except InstrumentationTampered as exc:
        run.tampered = str(exc)
    if not watching[0] and run.tampered is None and run.error is None:
        run.tampered = ("the trace hook that watches the search was removed during your search "
                        "(sys.settrace was called); do not change sys.settrace while being graded")
    return run


# ---------------------------------------------------------------------------
# the reference search
# ---------------------------------------------------------------------------
def reference_result(task: Task, case: Case) -> SearchResult:
    """Run the reference search for ``task`` on ``case`` (with a trace).

    Raises
    ------
    InstrumentationTampered
        If the reference search functions were replaced in this process.
    """
    memo = _REFERENCE_MEMO.get((task.reference, task.order, task.strict, id(case)))
    if memo is not None and memo[0] is case:
        return memo[1]
    search = _REFERENCES[task.reference]
    if search.__code__ is not _REFERENCE_CODE[task.reference]:
        raise InstrumentationTampered(
            f"the reference search {task.reference} was modified in this notebook; restart the "
            "kernel and do not change the course library's functions"
        )
    options: dict[str, Any] = {"order": task.order, "trace": True}
    if task.strict:
        options["strict"] = True
    if case.depth is not None:
        options["depth"] = case.depth
        if case.evaluate is not None:
            options["evaluate"] = case.evaluate
    if task.reference in ("bab", "naive_epsilon"):
        options["epsilon"] = case.epsilon if case.epsilon is not None else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = search(case.game, case.state, **options)
    if len(_REFERENCE_MEMO) >= _REFERENCE_MEMO_SIZE:     # traces are large: keep a few thousand
        _REFERENCE_MEMO.clear()
    _REFERENCE_MEMO[(task.reference, task.order, task.strict, id(case))] = (case, result)
    return result


# The reference result of a case object already checked (the grader checks the same cases for
# every student: the case builders are memoised there, see course.grading.job.sandboxed).
_REFERENCE_MEMO: dict[tuple[str, str, bool, int], tuple[Case, SearchResult]] = {}
_REFERENCE_MEMO_SIZE = 2000
"""Enough for every case of the assignments, visible and hidden (about 630 for the first five;
400 made a grading worker search most of them again for each submission), at about 15 MB per
1,000."""


# ---------------------------------------------------------------------------
# comparing
# ---------------------------------------------------------------------------
def _is_number(x: Any) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


@dataclass
class Comparison:
    """The verdict on one case: empty ``problems`` means the student's search matches."""

    task: Task
    case: Case
    run: StudentRun
    reference: SearchResult | None
    problems: list[tuple[type, str]] = field(default_factory=list)
    """``(failure class, explanation)`` pairs, most important first."""
    table: str = ""
    """For small trees, every node with the student's and the reference's visits."""
    focus: tuple | None = None
    """The node where the first difference was decided (where the student's code went wrong)."""
    diagnosis: Any = None
    """The named mistake that reproduces the student's run
    (:class:`~course.grading.checks.diagnose.Diagnosis`), or None."""
    offers: tuple = ()
    """The drills offered (:class:`~course.grading.checks.diagnose.Practice`), each checked to be answered
    wrongly by the named mistakes (or by the student's own record)."""
    practice: str = ""
    """The lines of the message that offer them ("" when none is offered)."""
    cut_related: bool = False
    """True when the first difference in the visits is a cut-off (one taken or missed)."""

    @property
    def ok(self) -> bool:
        """True when nothing differs."""
        return not self.problems

    @property
    def failure_class(self) -> type:
        """The :class:`GradingFailure` subclass of the first problem."""
        return self.problems[0][0] if self.problems else GradingFailure

    def summary(self) -> str:
        """One line: what differs first (the first line of the first problem)."""
        return self.problems[0][1].split("\n", 1)[0] if self.problems else "matches the reference search."

    def message(self, position: str = "") -> str:
        """The full feedback text.

        Its first line names the search, the case (``position`` adds e.g.
        ``"case 2 of 3"``) and what differs first; the details follow.
        """
        where = f" ({position})" if position else ""
        head = f"{self.task.title} on {self.case.describe()}{where}"
        if self.ok:
            return f"{head}: matches the reference search."
        first, _, rest = self.problems[0][1].partition("\n")
        lines = [f"{head}: {first}"]
        if rest:
            lines.append(rest)
        if self.diagnosis is not None:
            lines.append(self.diagnosis.text())
        if len(self.problems) > 1:
            more = len(self.problems) - 1
            lines.append(f"{more} more difference{'s' if more > 1 else ''}:")
            lines += [f"({i}) {text}" for i, (_, text) in enumerate(self.problems[1:], 2)]
        if self.case.recipe:
            lines.append(f"To rebuild this case: {self.case.recipe}")
        if self.practice:
            lines.append(self.practice)
        if self.case.state is not None and not isinstance(self.case.game, TreeGame):
            lines.append(f"Searched from the state {self.case.state!r}.")
        if self.table:
            lines.append(self.table)
        if self.run.output.strip():
            lines.append("What your function printed:\n" + self.run.output.rstrip())
        return "\n".join(lines)

    def failure(self, position: str = "") -> GradingFailure:
        """The exception to raise for this comparison (its message is wrapped to :data:`WIDTH`)."""
        return self.failure_class(self.message(position), case=self.case.describe())

    def student_result(self) -> SearchResult:
        """The student's run as a :class:`SearchResult` with a trace, for drawing.

        The trace has an ``enter`` event per expansion and a ``leaf`` event per
        evaluation, in the student's order; at the end every expanded node of
        an explicit tree gets a ``cutoff`` event listing the children the
        student never visited, then its ``exit``.
        """
        from ...search.result import Trace, TraceEvent

        events = self.run.events
        case, cache = self.case, {}
        tree = case.game if isinstance(case.game, TreeGame) else None
        trace: list = []
        seen: set = set()
        order: list = []
        for kind, path in events:
            seen.add(path)
            if kind == EXPAND:
                player = None
                if tree is not None:
                    player = tree.node(path).kind
                trace.append(TraceEvent("enter", path, player=player))
                if path not in order:
                    order.append(path)
            else:
                value = _leaf_value(case, path, cache)
                trace.append(TraceEvent("leaf", path, player="leaf", lower=value, upper=value))
        for path in reversed(order):
            if tree is not None:
                missing = tuple(i for i in range(len(tree.node(path).children)) if path + (i,) not in seen)
                if missing:
                    trace.append(TraceEvent("cutoff", path, pruned=missing, reason="not visited by your search"))
            trace.append(TraceEvent("exit", path))
        leaves = tuple(p for k, p in events if k == LEAF)
        lower = upper = None
        returned = self.run.returned
        if self.task.returns == "value" and _is_number(returned):
            lower = upper = returned
        elif isinstance(returned, (tuple, list)) and returned and _is_number(returned[0]):
            lower = upper = returned[0]
            if self.task.returns == "bounds" and len(returned) == 3 and _is_number(returned[1]):
                upper = returned[1]
        return SearchResult(algorithm="your search", lower=lower, upper=upper, move=None,
                            expanded=len(order), evaluated=len(leaves), leaves=leaves,
                            trace=Trace(tuple(trace)))


@dataclass(frozen=True)
class _WithChild:
    """A node's bounds after a child (for :meth:`_RefIndex.bounded_hint`)."""

    lower: Any
    upper: Any
    child: int | None


class _RefIndex:
    """Look-ups into the reference trace: who cut where, and each node's window."""

    def __init__(self, result: SearchResult, epsilon: Any = None) -> None:
        self.epsilon = epsilon
        self.cutoffs: dict[tuple, list] = {}
        self.updates: dict[tuple, list] = {}
        self.player: dict[tuple, str] = {}
        self.entered: dict[tuple, Any] = {}
        self.events: list[tuple[str, tuple]] = []
        self.position: dict[tuple[str, tuple], int] = {}
        for event in result.trace:
            if event.kind == "enter":
                self.player.setdefault(event.path, event.player)
                self.entered.setdefault(event.path, event)
                self._add_event((EXPAND, event.path))
            elif event.kind == "leaf":
                self._add_event((LEAF, event.path))
            elif event.kind == "cutoff":
                self.cutoffs.setdefault(event.path, []).append(event)
            elif event.kind == "update":
                self.updates.setdefault(event.path, []).append((len(self.events), event))

    def _add_event(self, item: tuple[str, tuple]) -> None:
        self.position.setdefault(item, len(self.events))
        self.events.append(item)

    def why_never(self, path: tuple) -> str | None:
        """Why the reference never reaches ``path``: the cut-off above it, in words."""
        for depth in range(len(path) - 1, -1, -1):
            node = path[:depth]
            for cut in self.cutoffs.get(node, []):
                if path[depth] in cut.pruned:
                    skipped = ", ".join(str(i) for i in cut.pruned)
                    who = self.player.get(node, "")
                    return (f"at node {format_path(node)} ({who.upper()}) the reference stops before "
                            f"child{'ren' if len(cut.pruned) > 1 else ''} {skipped}, because "
                            f"{_cut_reason(cut, self.epsilon)}")
        return None

    def cut_above(self, path: tuple) -> Any:
        """The reference's cut-off event that skips ``path`` (or an ancestor of it), or None."""
        for depth in range(len(path) - 1, -1, -1):
            node = path[:depth]
            for cut in self.cutoffs.get(node, []):
                if path[depth] in cut.pruned:
                    return cut
        return None

    def window_hint(self, path: tuple, before: int | None, *, went_on: bool) -> str:
        """What the student's record says about their window where the two searches part.

        ``went_on``: the student went on past the reference's cut-off above ``path``;
        otherwise the student stopped at ``path``'s parent where the reference goes on to it.
        """
        from .diagnose import window_hint

        if went_on:
            cut = self.cut_above(path)
            if cut is None or self.player.get(cut.path) not in ("max", "min"):
                return ""
            return window_hint(self.player[cut.path], True, cut.lower, cut.alpha, cut.beta)
        parent = path[:-1]
        last = None
        for position, event in self.updates.get(parent, []):
            if before is None or position <= before:
                last = event
        if last is None or self.player.get(parent) not in ("max", "min"):
            return ""
        return window_hint(self.player[parent], False, last.lower, last.alpha, last.beta)

    def bounded_hint(self, path: tuple, before: int | None, *, went_on: bool) -> str:
        """:meth:`window_hint` for Star1 and BAB: which test fired in the student's search, and
        the window the reference entered the node with."""
        from .diagnose import bounded_hint

        if went_on:
            cut = self.cut_above(path)
            if cut is None or cut.lower is None or cut.upper is None:
                return ""
            node, event = cut.path, cut
            updates = self.updates.get(node, [])
            taken = [e for _, e in updates if e.child is not None and e.child < min(cut.pruned)]
            child = taken[-1].child if taken else None
            event = _WithChild(cut.lower, cut.upper, child)
        else:
            node = path[:-1]
            event = None
            for position, update in self.updates.get(node, []):
                if before is None or position <= before:
                    event = update
            if event is None or event.lower is None:
                return ""
        return bounded_hint(went_on, event, self.entered.get(node), self.epsilon)

    def why_next(self, path: tuple, before: int) -> str | None:
        """Why the reference goes on to ``path``: its window at the parent after the previous child."""
        if not path:
            return None
        parent = path[:-1]
        last = None
        for position, event in self.updates.get(parent, []):
            if position <= before:
                last = event
        if last is None:
            return None
        who = self.player.get(parent, "")
        if last.lower == last.upper:
            state = f"v = {fmt(last.lower)}"
        else:
            state = f"L = {fmt(last.lower)}, U = {fmt(last.upper)}"
        window = ""
        if last.alpha is not None:
            window = f", alpha = {fmt(last.alpha)}, beta = {fmt(last.beta)}"
        entry = self.entered.get(parent)
        came = ""
        if entry is not None and entry.alpha is not None:
            came = (f" (the reference entered {format_path(parent)} with the window alpha = "
                    f"{fmt(entry.alpha)}, beta = {fmt(entry.beta)})")
        return (f"at node {format_path(parent)} ({who.upper()}), after child {last.child}, the "
                f"reference has {state}{window}: no cut-off, so it goes on to child {path[-1]}{came}")


def _ref_index(result: SearchResult, epsilon: Any) -> _RefIndex:
    """``_RefIndex(result, epsilon)``, kept per process for a result met again (the references
    are memoised per case, :func:`reference_result`, and every student is compared with the
    same ones); nothing reads an index but to look things up."""
    found = _INDEX_MEMO.get(id(result))
    if found is not None and found[0] is result and type(found[1]) is type(epsilon) \
            and found[1] == epsilon:
        return found[2]
    index = _RefIndex(result, epsilon=epsilon)
    if len(_INDEX_MEMO) >= _REFERENCE_MEMO_SIZE:
        _INDEX_MEMO.clear()
    _INDEX_MEMO[id(result)] = (result, epsilon, index)
    return index


_INDEX_MEMO: dict[int, tuple[SearchResult, Any, _RefIndex]] = {}


def _cut_reason(cut: Any, epsilon: Any) -> str:
    """The test that fired at a cut-off, with its numbers as messages show them.

    ``beta = 3 <= alpha = 3`` when epsilon is 0 (Star1, or BAB with epsilon 0),
    ``beta = 4 <= alpha + epsilon = 2 + 2`` otherwise.
    """
    if "epsilon" in cut.reason and cut.alpha is not None and cut.beta is not None:
        if not epsilon:
            return f"beta = {fmt(cut.beta)} <= alpha = {fmt(cut.alpha)}"
        return (f"beta = {fmt(cut.beta)} <= alpha + epsilon = {fmt(cut.alpha)} + {fmt(epsilon)}"
                f" = {fmt(cut.alpha + epsilon)}")
    return _pretty_reason(cut.reason)


def _pretty_reason(reason: str) -> str:
    """``"v=3 >= beta=3"`` -> ``"v = 3 >= beta = 3"``."""
    return re.sub(r"\b(v|alpha|beta|epsilon|L|U)=", r"\1 = ", reason)


def _describe_event(kind: str, path: tuple, value: Any = None) -> str:
    if kind == LEAF:
        return f"evaluated leaf {format_path(path)}" + (f" (= {fmt(value)})" if value is not None else "")
    return f"expanded node {format_path(path)}"


def compare(task: Task, fn: Callable, case: Case, *,
            time_limit: float | None = DEFAULT_TIME_LIMIT) -> Comparison:
    """Run ``fn`` on ``case`` and compare it with the reference search.

    Parameters
    ----------
    task : Task
    fn : callable
        The student's function, called as ``task.signature`` says.
    case : Case or Game
    time_limit : float or None
        Seconds allowed for the student's call.

    Returns
    -------
    Comparison
        ``ok`` when value, move, leaves (in order) and expansions (in order)
        all match; otherwise the problems, explained.
    """
    if not isinstance(case, Case):
        (case,) = as_cases(case)
    run = run_student(task, fn, case, time_limit=time_limit)
    comp = Comparison(task, case, run, None)
    steps = len(run.events)
    if run.timed_out:
        comp.problems.append((SearchTimeout, (
            f"your function did not finish within {fmt(time_limit)} seconds.\nIt had made "
            f"{steps} expansions and leaf evaluations. Look for a loop that never ends, or a "
            "search that generates the same nodes again and again."
            + (f"\n{run.error_trace}" if run.error_trace else ""))))
        return comp
    if run.error is not None:
        exc = run.error
        hint = ""
        if isinstance(exc, NotImplementedError):
            hint = " Replace `raise NotImplementedError()` with your code."
        elif isinstance(exc, RecursionError):
            hint = (" Your recursion does not stop: return game.utility(state) when "
                    "game.is_terminal(state) (and evaluate at the depth limit).")
        last = f"The last thing it did: {_describe_event(*run.events[-1])}." if run.events else ""
        details = " ".join(part for part in (last, hint.strip()) if part)
        comp.problems.append((SearchCrashed, (
            f"your function raised {raised(exc)}."
            + (f"\n{details}" if details else "") + f"\n{run.error_trace}")))
        return comp
    if run.reference_calls:
        comp.problems.append((ReferenceSearchUsed, (
            "your function ran the course's reference search instead of searching itself.\n"
            "It ran " + ", ".join(run.reference_calls[:3])
            + ". Write the search with the game's methods only.")))
        return comp
    if run.tampered:
        comp.problems.append((InstrumentationTampered, "the recording game was altered.\n" + run.tampered))
        return comp

    ref = reference_result(task, case)
    comp.reference = ref
    shape = _check_shape(task, run.returned)
    if shape is not None:
        comp.problems.append((WrongReturnType, shape))
        return comp

    _compare_numbers(comp, ref)
    _compare_events(comp, ref)
    _compare_move(comp, ref)
    _compare_rules(comp)
    if (task.returns == "bounds" and not any(c in (WrongLeaves, WrongExpansions) for c, _ in comp.problems)
            and any(c is WrongBounds for c, _ in comp.problems)):
        _locate_bounds(comp, fn, time_limit)
    order = {WrongValue: 0, WrongBounds: 0, WrongLeaves: 1, WrongExpansions: 2, WrongMove: 3,
             RuleBroken: 4}
    comp.problems.sort(key=lambda item: order.get(item[0], 9))
    if comp.problems and comp.failure_class is not RuleBroken:
        _name_the_mistake(comp)
    if comp.problems and isinstance(case.game, TreeGame) and case.game.root.size <= DRAW_LIMIT:
        comp.table = visit_table(case, run.events, ref)
    return comp


def _name_the_mistake(comp: Comparison) -> None:
    """Add the named mistakes that reproduce the student's run, and the drills that catch them."""
    from .diagnose import diagnose

    try:
        comp.diagnosis = diagnose(comp.task, comp.case, comp.run.events, comp.run.returned,
                                  comp.reference)
    except Exception:  # noqa: BLE001 - a diagnosis is only an aid: the verdict stands without it
        comp.diagnosis = None
    try:
        comp.offers = _offers(comp)
    except Exception:  # noqa: BLE001 - nor is a drill
        comp.offers = ()
    comp.practice = _practice_text(comp)


def _offers(comp: Comparison) -> tuple:
    """The drills to offer, each checked: the named mistakes' simulations (or, when none is
    named, the student's own record) answer it wrongly.  None for what no drill practises."""
    from .diagnose import practice, record_practice

    task = comp.task
    if comp.diagnosis is not None:
        focus = comp.diagnosis.node if comp.diagnosis.node is not None else comp.focus
        return practice(comp.diagnosis.named, comp.case, focus=focus)
    if task.takes_depth or task.order != "given" or task.reference == "naive_epsilon":
        return ()
    if comp.failure_class in (WrongLeaves, WrongExpansions) and not comp.cut_related:
        return ()          # an order, a depth or a repeat: no drill practises those
    return record_practice(task, comp.case, comp.run.events, comp.run.returned, focus=comp.focus)


def _practice_text(comp: Comparison) -> str:
    """The message's lines that offer the drills, and what was checked about them."""
    offers = comp.offers
    if not offers:
        return ""
    named = comp.diagnosis.named if comp.diagnosis is not None else ()
    letter = {m.key: f"({chr(97 + i)})" for i, m in enumerate(named)}
    if len(offers) == 1:
        offer = offers[0]
        where = "on this tree" if offer.on_case else "on a tree of its own"
        if offer.catches == ("record",):
            why = "what your search visited gives a wrong answer in this drill"
        elif len(named) == 1:
            why = "a search with this mistake gets this drill wrong"
        else:
            why = ("a search with any of the mistakes "
                   + _and([letter[k] for k in offer.catches]) + " gets this drill wrong")
        return (f"Practise the rule {where} (paste into a cell):\n{offer.call}\n"
                f"(Checked: {why}.)")
    lines = ["Practise the rules (paste into a cell):"]
    for offer in offers:
        lines.append(f"# {_and([letter[k] for k in offer.catches])}:")
        lines.append(offer.call)
    lines.append("(Checked: a search with the mistake named above a drill gets that drill wrong.)")
    return "\n".join(lines)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _check_shape(task: Task, returned: Any) -> str | None:
    want = {"value": "a number", "decision": "a pair (value, move)",
            "bounds": "a triple (lower, upper, move)"}[task.returns]
    got = f"{type(returned).__name__} {returned!r}"
    if task.returns == "value":
        if not _is_number(returned):
            extra = (" (return only the value here)" if isinstance(returned, (tuple, list)) else
                     " (did you forget a `return`?)" if returned is None else "")
            return f"{task.signature} must return {want}, but it returned {got}{extra}."
        return None
    size = 2 if task.returns == "decision" else 3
    if not isinstance(returned, (tuple, list)) or len(returned) != size:
        extra = " (did you forget a `return`?)" if returned is None else ""
        return f"{task.signature} must return {want}, but it returned {got}{extra}."
    numbers = returned[:size - 1]
    for name, x in zip(("value",) if size == 2 else ("lower", "upper"), numbers):
        if not _is_number(x):
            return f"{task.signature} must return {want}; its {name} is {type(x).__name__} {x!r}."
    return None


def _is_exact(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _compare_numbers(comp: Comparison, ref: SearchResult) -> None:
    task, returned = comp.task, comp.run.returned
    if task.returns == "bounds":
        lower, upper = returned[0], returned[1]
        if not (same_number(lower, ref.lower) and same_number(upper, ref.upper)):
            comp.problems.append((WrongBounds, (
                f"you returned the bounds [{fmt(lower)}, {fmt(upper)}], the reference "
                f"[{fmt(ref.lower)}, {fmt(ref.upper)}] (its root L and U).")))
        elif task.exact and _is_exact(ref.lower) and _is_exact(ref.upper) and \
                not (_is_exact(lower) and _is_exact(upper)):
            comp.problems.append((WrongBounds, (
                f"your bounds [{fmt(lower)}, {fmt(upper)}] are floats; the reference's are exact: "
                f"[{fmt(ref.lower)}, {fmt(ref.upper)}].\n" + _EXACT_HINT)))
        return
    value = returned if task.returns == "value" else returned[0]
    if not same_number(value, ref.value):
        comp.problems.append((WrongValue, f"you returned the value {fmt(value)}, the reference {fmt(ref.value)}."))
    elif task.exact and _is_exact(ref.value) and not _is_exact(value):
        comp.problems.append((WrongValue, (
            f"you returned the float {fmt(value)}; the reference's value is exact: {fmt(ref.value)}.\n"
            + _EXACT_HINT)))


_EXACT_HINT = ("The rules ask for exact arithmetic: the probabilities are Fractions, so start sums at 0 "
               "(not 0.0) and never convert a number to float.")


def _compare_rules(comp: Comparison) -> None:
    """Rules the record alone does not show: EVAL at terminal states, children created twice."""
    run = comp.run
    if run.terminal_evaluations:
        paths = run.terminal_evaluations
        more = f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""
        comp.problems.append((RuleBroken, (
            f"you called game.evaluate on the terminal state {format_path(paths[0])}{more}.\n"
            "A terminal state gets game.utility(state), at any depth, also at the depth limit: "
            "ask game.is_terminal(state) before you check the depth.")))
    if run.regenerated:
        paths = run.regenerated
        more = f" (and {len(paths) - 1} more)" if len(paths) > 1 else ""
        comp.problems.append((RuleBroken, (
            f"you created the child {format_path(paths[0])} twice with game.result{more}.\n"
            "The rules say: create each child once with game.result(state, move), keep it, and "
            "use that object (to estimate it, to search it, to remember it).")))


def _locate_bounds(comp: Comparison, fn: Callable, time_limit: float | None) -> None:
    """Visits match but the root's bounds differ: find the first node whose ``[L, U]`` differs.

    The student's ``[L, U]`` of an inner node cannot be read from outside, so
    each node the reference searched (children before parents, as the search
    finishes them) is searched again on its own, by the student's function and
    by the reference, with the root window ``[vmin, vmax]``; the first node where
    the two differ is named with both values, and with the bounds the reference
    computed there during the whole search.  Explicit trees up to
    :data:`DRAW_LIMIT` nodes only.
    """
    case, ref = comp.case, comp.reference
    if not isinstance(case.game, TreeGame) or case.game.root.size > DRAW_LIMIT or ref is None:
        return
    finished = [(e.path, e.lower, e.upper) for e in ref.trace if e.kind == "exit" and e.path]
    for path, lower, upper in finished:
        state = _node_state(case, path)
        if state is None or case.game.is_terminal(state):
            continue
        sub = case.with_params(state=state, name=f"{case.name}, node {format_path(path)}")
        run = run_student(comp.task, fn, sub, time_limit=time_limit)
        if run.error is not None or _check_shape(comp.task, run.returned) is not None:
            return
        mine = run.returned
        theirs = reference_result(comp.task, sub)
        if not (same_number(mine[0], theirs.lower) and same_number(mine[1], theirs.upper)):
            k = next(i for i, (c, _) in enumerate(comp.problems) if c is WrongBounds)
            comp.problems[k] = (WrongBounds, comp.problems[k][1] + "\n" + (
                f"Node {format_path(path)} is the first node (children before parents) whose bounds "
                f"differ: searched on its own, your function returns [{fmt(mine[0])}, {fmt(mine[1])}], "
                f"the reference [{fmt(theirs.lower)}, {fmt(theirs.upper)}]. In the whole search the "
                f"reference's [L, U] at {format_path(path)} is [{fmt(lower)}, {fmt(upper)}]."))
            return
    pruned = {e.path for e in ref.trace if e.kind == "cutoff"}
    kinds = {e.path: e.player for e in ref.trace if e.kind == "enter"}
    notes = []
    for path, lower, upper in finished:
        note = ""
        if path in pruned and kinds.get(path) in ("max", "min"):
            note = (" pruned, so U = vmax" if kinds[path] == "max" else " pruned, so L = vmin")
        notes.append(f"{format_path(path)} [{fmt(lower)}, {fmt(upper)}]{note}")
    k = next(i for i, (c, _) in enumerate(comp.problems) if c is WrongBounds)
    comp.problems[k] = (WrongBounds, comp.problems[k][1] + "\n" + (
        "Searched on its own, every inner node gets the reference's bounds from your function, so "
        "the difference comes from the windows of the whole search (a cut-off, and what a pruned "
        "node returns). The reference's [L, U] of each node, as it finished them: "
        + "; ".join(notes) + "."))


def _compare_move(comp: Comparison, ref: SearchResult) -> None:
    task, case, returned = comp.task, comp.case, comp.run.returned
    if task.returns == "value":
        return
    move = returned[-1]
    game = case.game
    root = game.initial_state() if case.state is None else case.state
    if game.is_terminal(root) or game.turn(root) is Player.CHANCE:
        if move is not None:
            comp.problems.append((WrongMove, f"the root is not a decision node, so the move must be None; you returned {move!r}."))
        return
    moves = list(game.moves(root))
    expected = moves[ref.move]
    index = next((i for i, m in enumerate(moves) if same_move(m, move)), None)
    if index is None:
        comp.problems.append((WrongMove, (
            f"you returned the move {move!r}, which is not one of the root's moves {moves!r}; "
            "return a move from game.moves(state).")))
        return
    if index != ref.move:
        player = game.turn(root)
        rule = task.move_rule
        children = ", ".join(
            f"child {i}: {bounds_text(lo, hi, fmt)}" for i, lo, hi in ref.children)
        searched = ""
        if task.order != "given":
            visited = [i for i, _, _ in ref.children]
            searched = f" The reference searched the root's children in the order {visited}."
        comp.problems.append((WrongMove, (
            f"you chose the move {move!r} (child {index}), the reference {expected!r} (child "
            f"{ref.move}).\nThe rule: {rule}. The reference's root children "
            f"({player.name} to move): {children}.{searched}")))


def _leaf_value(case: Case, path: tuple, cache: dict) -> Any:
    if path in cache:
        return cache[path]
    try:
        state = replay_path(case.game, path, case.state)
        game = case.game
        if game.is_terminal(state):
            value = game.utility(state)
        elif case.evaluate is not None:
            value = case.evaluate(state)
        else:
            value = game.evaluate(state)
    except Exception:  # noqa: BLE001 - a value is only decoration in a message
        value = None
    cache[path] = value
    return value


def _compare_events(comp: Comparison, ref: SearchResult) -> None:
    mine = list(comp.run.events)
    index = _ref_index(ref, comp.case.epsilon if comp.task.takes_epsilon else 0)
    theirs = index.events
    if mine == theirs:
        return
    case, cache = comp.case, {}
    my_leaves = [p for k, p in mine if k == LEAF]
    my_expanded = [p for k, p in mine if k == EXPAND]
    cls = WrongLeaves if my_leaves != list(ref.leaves) else WrongExpansions
    k = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))

    def event(items, who):
        if k < len(items):
            kind, path = items[k]
            return f"{who} " + _describe_event(kind, path, _leaf_value(case, path, cache) if kind == LEAF else None)
        return f"{who} stopped after {len(items)} steps" if who == "you" else f"{who} stops there"

    if not mine:
        first = "your function did not search at all (no expansion, no leaf)."
    else:
        first = f"at step {k + 1}, {event(mine, 'you')}, {event(theirs, 'the reference')}."
    lines = [
        first,
        f"You evaluated {_n(len(my_leaves), 'leaf', 'leaves')} and expanded "
        f"{_n(len(my_expanded), 'node', 'nodes')}; the reference evaluates "
        f"{_n(len(ref.leaves), 'leaf', 'leaves')} and expands {_n(ref.expanded, 'node', 'nodes')} "
        "(steps count expansions and leaf evaluations together, in order).",
    ]
    if not mine:
        lines.append("Ask the game for moves (game.moves, game.result) and values (game.utility).")
    why = _explain_difference(comp, index, mine, theirs, k) if mine else None
    if why is not None:
        lines.append(why.text)
        if why.hint:
            lines.append(why.hint)
        comp.focus = why.node
        comp.cut_related = why.about_cut
    if comp.task.rule and (why is None or why.about_cut):
        # the pruning rule, only where a cut-off is what differs (not an order, a depth or a repeat)
        lines.append(f"Rule: {comp.task.rule}.")
    lines.append("Leaves, reference: " + _leaf_list(list(ref.leaves), case, cache))
    lines.append("Leaves, yours:     " + _leaf_list(my_leaves, case, cache))
    comp.problems.append((cls, "\n".join(lines)))


def _node_state(case: Case, path: tuple) -> Any:
    try:
        return replay_path(case.game, path, case.state)
    except Exception:  # noqa: BLE001 - only used to explain
        return None


def _estimate_of(case: Case, path: tuple) -> Any:
    """The estimate the ordered search sorts by: UTILITY if terminal, else EVAL (None if unknown)."""
    state = _node_state(case, path)
    if state is None:
        return None
    try:
        game = case.game
        if game.is_terminal(state):
            return game.utility(state)
        return case.evaluate(state) if case.evaluate is not None else game.evaluate(state)
    except Exception:  # noqa: BLE001 - only used to explain
        return None


@dataclass(frozen=True)
class _Explained:
    """Why two records part: the words, whether a cut-off is what differs, the node that decided,
    and what the record says about the student's window there."""

    text: str
    about_cut: bool = False
    node: tuple | None = None
    hint: str = ""


def _explain_difference(comp: Comparison, index: "_RefIndex", mine: list, theirs: list,
                        k: int) -> _Explained | None:
    """Why the two records part at step ``k``, in words (None if nothing specific is known)."""
    case, task = comp.case, comp.task
    if k < len(mine):
        kind, path = mine[k]
        earlier = [i for i in range(k) if mine[i] == (kind, path)]
        if earlier:
            return _Explained(
                f"You {'evaluated' if kind == LEAF else 'expanded'} {format_path(path)} a second "
                f"time (the first time was step {earlier[0] + 1}): generate each child once with "
                "game.result and search it once, keeping the value it returns.", node=path)
    if k < len(mine) and k < len(theirs):
        (my_kind, my_path), (ref_kind, ref_path) = mine[k], theirs[k]
        if my_path == ref_path and my_kind != ref_kind:
            state = _node_state(case, my_path)
            terminal = state is not None and case.game.is_terminal(state)
            depth = len(my_path)
            if my_kind == LEAF:
                limit = (f"it is at depth {depth} and the depth limit is {case.depth}, so it is "
                         f"expanded; only nodes at depth {case.depth} (or terminal ones) are evaluated"
                         if case.depth is not None else "it is not a terminal state")
                return _Explained(
                    f"You evaluated node {format_path(my_path)} where the reference expands it: "
                    f"{limit} (the root is at depth 0).", node=my_path)
            limit = ("it is a terminal state" if terminal else
                     f"it is at depth {depth}, the depth limit" if case.depth is not None else "it is a leaf")
            return _Explained(
                f"You expanded node {format_path(my_path)} where the reference evaluates it: "
                f"{limit} (the root is at depth 0).", node=my_path)
        mine_seen = set(mine[:k])
        if (my_path and ref_path and my_path[:-1] == ref_path[:-1] and my_path != ref_path
                and (EXPAND, my_path) not in mine_seen and (LEAF, my_path) not in mine_seen):
            parent, i, j = my_path[:-1], my_path[-1], ref_path[-1]
            if task.order == "heuristic":
                mi, mj = _estimate_of(case, my_path), _estimate_of(case, ref_path)
                if mi is not None and mi == mj:
                    return _Explained(
                        f"At node {format_path(parent)} you searched child {i} before child {j}, "
                        f"but their estimates are equal ({fmt(mi)}): children with equal "
                        "estimates are searched in their game.moves order (a stable sort), so "
                        f"child {j} comes first.", node=parent)
                who = index.player.get(parent, "")
                order = "highest" if who == "max" else "lowest"
                return _Explained(
                    f"At node {format_path(parent)} ({who.upper()}) you searched child {i} "
                    f"(estimate {fmt(mi)}) before child {j} (estimate {fmt(mj)}): the reference "
                    f"searches the {order} estimate first.", node=parent)
            if i > j:
                listed = _listed_outcomes(case, parent)
                if listed is not None:
                    return _Explained(
                        f"At node {format_path(parent)}, a chance node, you searched child {i} "
                        f"before child {j}: its chance_outcomes are listed {listed}, and child "
                        f"{j} is the outcome {listed[j]!r}. Take the outcomes in the order "
                        "chance_outcomes gives (do not sort them), and pass each outcome itself "
                        "to game.result (not its position in the list).", node=parent)
                return _Explained(
                    f"At node {format_path(parent)} you searched child {i} before child {j}: "
                    "search the children in the order game.moves(state) (or "
                    "chance_outcomes) lists them.", node=parent)
    mine_set, theirs_set = set(mine), set(theirs)
    if k < len(theirs) and theirs[k] not in mine_set:
        kind, path = theirs[k]
        why = index.why_next(path, index.position.get((kind, path), k))
        if why:
            hint = ""
            stopped = not (k < len(mine) and _below(mine[k][1], path[:-1]))
            if task.reference == "alphabeta" and stopped:
                hint = index.window_hint(path, index.position.get((kind, path), k), went_on=False)
            elif task.reference in ("star1", "bab") and stopped and not task.strict:
                hint = index.bounded_hint(path, index.position.get((kind, path), k), went_on=False)
            return _Explained(
                f"You never {'evaluate' if kind == LEAF else 'expand'} {format_path(path)}, but {why}.",
                about_cut=True, node=path[:-1], hint=hint)
    if k < len(mine) and mine[k] not in theirs_set:
        kind, path = mine[k]
        why = index.why_never(path)
        if why:
            cut = index.cut_above(path)
            hint = ""
            if task.reference == "alphabeta" and cut is not None:
                hint = index.window_hint(path, None, went_on=True)
            elif task.reference in ("star1", "bab") and cut is not None and not task.strict:
                hint = index.bounded_hint(path, None, went_on=True)
            return _Explained(
                f"The reference never {'evaluates' if kind == LEAF else 'expands'} "
                f"{format_path(path)}: {why}.", about_cut=True,
                node=cut.path if cut is not None else None, hint=hint)
    if k >= len(theirs):
        return _Explained("The reference stops there: look for a cut-off your search misses.",
                          about_cut=True)
    if k >= len(mine):
        kind, path = theirs[k]
        return _Explained(
            f"You stopped before the reference's step {k + 1} ({_describe_event(kind, path)}): "
            "look for a cut-off or a return that comes too early.", about_cut=True,
            node=path[:-1] if path else None)
    return None


def _listed_outcomes(case: Case, path: tuple) -> list | None:
    """The outcomes a chance node lists, in order (None if it is not a chance node)."""
    state = _node_state(case, path)
    try:
        if state is None or case.game.is_terminal(state) or case.game.turn(state) is not Player.CHANCE:
            return None
        return [m for m, _ in case.game.chance_outcomes(state)]
    except Exception:  # noqa: BLE001 - only used to explain
        return None


def _below(path: tuple, node: tuple) -> bool:
    """True if ``path`` is ``node`` or lies below it."""
    return path[:len(node)] == node


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _leaf_list(paths: list, case: Case, cache: dict, limit: int = 24) -> str:
    items = []
    for path in paths[:limit]:
        value = _leaf_value(case, path, cache)
        items.append(format_path(path) + (f"={fmt(value)}" if value is not None else ""))
    more = f" ... ({len(paths) - limit} more)" if len(paths) > limit else ""
    return (" ".join(items) if items else "(none)") + more


def visit_table(case: Case, events: tuple | list, ref: SearchResult) -> str:
    """A text drawing of a small tree with the student's and the reference's visits.

    Each node gets a line: its path and kind (or leaf value), then ``E3``
    when it was the 3rd node expanded, ``L5`` when it was the 5th leaf
    evaluated, ``.`` when not visited (several marks for repeated visits).

    Parameters
    ----------
    case : Case
        Its game must be a :class:`~course.trees.TreeGame`.
    events : sequence of (kind, path)
        The student's record.
    ref : SearchResult
        The reference search's result, with its trace.

    Returns
    -------
    str
    """
    game = case.game
    root = game.root if case.state is None else case.state

    def marks(evs):
        out: dict[tuple, list[str]] = {}
        counters = {EXPAND: 0, LEAF: 0}
        for kind, path in evs:
            counters[kind] += 1
            out.setdefault(path, []).append(("E" if kind == EXPAND else "L") + str(counters[kind]))
        return out

    ref_events = [(EXPAND if e.kind == "enter" else LEAF, e.path)
                  for e in ref.trace if e.kind in ("enter", "leaf")]
    yours, theirs = marks(events), marks(ref_events)
    rows = [("node", "", "you", "reference")]
    base = len(root.path)

    def walk(node, prefix, last, top, probability=None):
        rel = node.path[base:]
        connector = "" if top else ("└─ " if last else "├─ ")
        label = f"{rel[-1]}" if rel else "root"
        if probability is not None:
            label += f" (p={fmt(probability)})"
        if node.is_leaf:
            what = fmt(node.value)
        elif node.kind == "chance":
            what = "CHANCE"
        else:
            what = node.kind.upper()
        if node.label:
            what += f" '{node.label}'"
        rows.append((prefix + connector + label, what, ",".join(yours.get(rel, ["."])),
                     ",".join(theirs.get(rel, ["."]))))
        child_prefix = prefix + ("" if top else ("   " if last else "│  "))
        for i, child in enumerate(node.children):
            p = node.probabilities[i] if node.kind == "chance" else None
            walk(child, child_prefix, i == len(node.children) - 1, False, p)

    walk(root, "", True, True)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["Visits, yours and the reference's (E = expanded, L = leaf evaluated, . = not visited):"]
    for r in rows:
        lines.append(f"  {r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    return "\n".join(lines)
