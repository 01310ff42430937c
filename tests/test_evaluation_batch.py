"""The evaluation checks ask the sandbox for many boards at once; the student's function sees the
same calls (issue 32).

``check_evaluation_ordering`` asks a student's EVAL for the values of a node's children in
one message (:class:`course.grading.checks.evaluation._AskedAhead`), and the sample positions in one
message.  For functions that keep state (count their calls, fail at the n-th, answer
differently each time), the boards they are called on, in order, and the check's verdict
must be those of calling them one board at a time.
"""

from __future__ import annotations

import math

import pytest

from course.grading import check_evaluation_ordering, check_evaluation_play
from course.grading.checks.failures import GradingFailure
from course.sandbox import RemoteFunction, StudentSession, sandbox_available

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def model(state):
    """The model solution's EVAL (assignment 5)."""
    score = 0
    for line in LINES:
        marks = [state.cells[i] for i in line]
        x, o = marks.count("X"), marks.count("O")
        if o == 0 and x > 0:
            score += 10 if x == 2 else 1
        elif x == 0 and o > 0:
            score -= 10 if o == 2 else 1
    return (score + (5 if state.to_move == "X" else -5)) / 100


def stateful(kind, at):
    """An EVAL that logs its boards and misbehaves from its ``at``-th call on."""
    seen = []

    def evaluate(state):
        seen.append("".join(c or "." for c in state.cells) + state.to_move)
        n = len(seen)
        if n >= at:
            if kind == "raise":
                raise ValueError(f"call {n}")
            if kind == "not-implemented":
                raise NotImplementedError(f"call {n}")
            if kind == "out-of-range":
                return 2.0
            if kind == "nan":
                return math.nan
            if kind == "drift":                # answers differently the more it is asked
                return model(state) * (-1) ** n
        return model(state)

    return evaluate, seen


class Batched(RemoteFunction):
    """A function run here, with ``each`` as the sandbox answers a batch
    (:meth:`course.sandbox.StudentSession.call_each`)."""

    def __init__(self, fn):
        super().__init__(None, "evaluate")
        self.fn, self.batches = fn, 0

    def __call__(self, *args):
        return self.fn(*args)

    def each(self, arg_lists, *, within=None, count=False):
        self.batches += 1
        values = []
        for args in arg_lists:
            try:
                value = self.fn(*args)
            except Exception as exc:  # noqa: BLE001 - returned, as the sandbox's answer
                return values, exc
            values.append((value, None) if count else value)
            if type(value) not in (int, float) or not math.isfinite(value) or \
                    (within is not None and not within[0] < value < within[1]):
                break
        return values, None


def verdict(check, fn, capsys):
    try:
        check(fn)
    except GradingFailure as exc:
        return type(exc).__name__, str(exc)
    finally:
        out = capsys.readouterr().out
    return "passed", out


CASES = [("model", 10**9), ("raise", 1), ("raise", 300), ("not-implemented", 120),
         ("out-of-range", 41), ("out-of-range", 500), ("nan", 200), ("drift", 45), ("drift", 1)]


@pytest.mark.parametrize("kind,at", CASES)
def test_asking_ahead_makes_the_same_calls(kind, at, capsys):
    one, seen_one = stateful(kind, at)
    ahead, seen_ahead = stateful(kind, at)
    batched = Batched(ahead)
    assert verdict(check_evaluation_ordering, batched, capsys) == \
        verdict(check_evaluation_ordering, one, capsys)
    assert seen_ahead == seen_one
    if kind == "model":
        assert batched.batches * 3 < len(seen_ahead)       # fewer messages than boards


def test_a_function_run_here_is_asked_one_board_at_a_time(capsys):
    class Each:                       # a student's own callable in their kernel: not a batch
        def __init__(self):
            self.seen = []

        def __call__(self, state):
            self.seen.append(state)
            return model(state)

        def each(self, *args, **kwargs):
            raise AssertionError("not the sandbox's")

    fn = Each()
    assert verdict(check_evaluation_ordering, fn, capsys)[0] == "passed" and fn.seen


@pytest.mark.skipif(not sandbox_available(),
                    reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")
def test_in_the_sandbox_the_student_s_function_sees_the_same_calls(capsys):
    import inspect

    source = (f"import math\nLINES = {LINES!r}\n" + inspect.getsource(model)
              + inspect.getsource(stateful) + "def log():\n    return list(seen)\n")
    for kind, at in [("model", 10**9), ("raise", 300), ("not-implemented", 120),
                     ("out-of-range", 500), ("drift", 45)]:
        cells = [source, f"evaluate, seen = stateful({kind!r}, {at})"]
        results = []
        for ahead in (True, False):
            with StudentSession(sandbox=True) as session:
                session.load(cells)
                remote = session.function("evaluate")
                fn = remote if ahead else (lambda state, remote=remote: remote(state))
                found = []
                for check in (check_evaluation_ordering, check_evaluation_play):
                    found.append(verdict(check, fn, capsys))
                    found.append(session.call("log", ()))
                results.append(found)
        assert results[0] == results[1], kind
