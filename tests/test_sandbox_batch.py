"""Many calls of a student's function in one message (``StudentSession.call_each``, issue 32).

Assignment 5's checks call the student's evaluation function thousands of times per
submission, one round trip each; a batch sends the boards together and gets the values back
together.  What the student's code sees must not change: the calls made, their order, each
call's handles, output and line count, the call at which it fails; and what the grader
accepts must stay plain data with the caps of a single call.  Each attack below is a
submission trying to turn a batch into more than its function's answers.
"""

from __future__ import annotations

import pytest

from course import parse_tree
from course.grading.checks.compare import _time_limit
from course.grading.checks.failures import TimeLimitExceeded
from course.sandbox import SessionError, StudentCodeError, StudentSession, sandbox_available
from course.sandbox.session import SubmissionLimitError

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

STATEFUL = '''
seen = []
def f(x):
    seen.append(x)
    if x == "boom":
        raise ValueError("boom at call %d" % len(seen))
    return x
def log():
    return list(seen)
'''

#: the student's code finding the sandbox's protocol objects (it shares their process)
RUNNER = '''
import gc
def runner():
    return [o for o in gc.get_objects() if type(o).__name__ == "Runner"][0]
'''


def session_with(*cells):
    session = StudentSession(sandbox=True)
    session.load(list(cells))
    return session


def test_a_batch_answers_as_the_calls_one_by_one(capsys):
    cells = ("def f(x):\n    print('f of', x)\n    return x * 2 if x != 3 else 'three'\n",)
    with session_with(*cells) as one, session_with(*cells) as many:
        singles = [one.call("f", (x,)) for x in (1, 2, 3)]
        capsys.readouterr()
        values, error = many.call_each("f", [(1,), (2,), (3,)])
        assert error is None and values == singles == [2, 4, "three"]
        assert capsys.readouterr().out == "f of 1\nf of 2\nf of 3\n"      # each call's, in order
        counted = [one.function("f").counted(x) for x in (1, 2)]
        assert many.call_each("f", [(1,), (2,)], count=True) == (counted, None)
        assert all(isinstance(lines, int) and lines > 0 for _, lines in counted)


def test_a_function_that_keeps_state_sees_the_same_calls():
    with session_with(STATEFUL) as session:
        values, error = session.call_each("f", [(1,), (2,), ("boom",), (4,), (5,)])
        assert values == [1, 2] and isinstance(error, ValueError) and isinstance(error, StudentCodeError)
        assert str(error) == "boom at call 3"
        # the calls after the one that raised were never made; the process is kept, as after a call
        assert session.proc is not None and session.call("log", ()) == [1, 2, "boom"]
        assert session.call("f", (6,)) == 6 and session.call("log", ()) == [1, 2, "boom", 6]


def test_each_call_has_its_own_handles_as_a_call_of_its_own():
    cells = ("last = [None]\n"
             "def f(state):\n"
             "    same = state is last[0]\n"
             "    last[0] = state\n"
             "    return [state._grading_handle_, same, state.__class__.__name__]\n",)
    game = parse_tree([[1, 2], [3, 4]])
    root = game.initial_state()
    states = [game.result(root, 0), game.result(root, 1), game.result(root, 1)]
    with session_with(*cells) as one, session_with(*cells) as many:
        singles = [one.call("f", (s,)) for s in states]
        values = []
        while len(values) < len(states):    # a list is no number: one call per batch here
            got, error = many.call_each("f", [(s,) for s in states[len(values):]])
            assert error is None
            values += got
        assert values == singles and [v[0] for v in values] == [0, 0, 0]


def test_a_batch_stops_where_the_caller_would_stop():
    cells = (STATEFUL.replace("return x", "return x / 10 if isinstance(x, int) else x"),)
    with session_with(*cells) as session:
        values, error = session.call_each("f", [(1,), (15,), (2,)], within=(-1, 1))
        assert error is None and values == [0.1, 1.5]          # 1.5 is out: the batch ends there
        values, error = session.call_each("f", [(3,), ([7],), (4,)])
        assert error is None and values == [0.3, [7]]          # not a number: it ends there too
        assert session.call("log", ()) == [1, 15, 3, [7]]


def test_a_game_is_not_passed_in_a_batch():
    game = parse_tree([1, 2])
    with session_with("def f(g):\n    return 1\n") as session, pytest.raises(TypeError):
        session.call_each("f", [(game,)])


# -- attacks ------------------------------------------------------------------------------------
def test_output_of_many_calls_does_not_reach_the_cap_of_one_message():
    # 300 calls printing 20,000 characters each: 6 MB, six times the cap of one message; the
    # sandbox sends the answers in several lines, each below the cap, as the calls would
    cells = ("def f(x):\n    print('\\x01' * 25_000)\n    return x\n",)
    with session_with(*cells) as session:
        session.quiet = True
        values, error = session.call_each("f", [(i,) for i in range(300)])
        assert error is None and values == list(range(300)) and session.limit_hit is None


def test_a_large_value_after_many_small_ones_is_sent_as_alone():
    # 48,000 parts is below the cap of one message (50,000); after 999 answers it would not be,
    # in one line
    cells = ("def f(x):\n    return list(range(48_000)) if x == 'big' else x\n",)
    with session_with(*cells) as session:
        values, error = session.call_each("f", [(i,) for i in range(999)] + [("big",)])
        assert error is None and len(values) == 1000 and values[-1] == list(range(48_000))
        assert session.limit_hit is None
    with session_with("def f(x):\n    return list(range(60_000)) if x == 'big' else x\n") as session:
        with pytest.raises(SubmissionLimitError):              # as a single call would be
            session.call_each("f", [(1,), ("big",)])


def test_forged_answers_for_calls_never_made_are_refused():
    forge = RUNNER + (
        "def f(x):\n"
        "    r = runner()\n"
        "    r.channel.send({'op': 'batched', 'id': r.batch['id'], 'results': [[0.5, '']] * 50})\n"
        "    return x\n")
    with session_with(forge) as session, pytest.raises(SessionError, match="not made"):
        session.call_each("f", [(1,), (2,), (3,)])
    assert session.proc is None                                # stopped: its state is unknown


def test_forged_answers_out_of_turn_are_refused():
    forge = RUNNER + (
        "def f(x):\n"
        "    r = runner()\n"
        "    r.channel.send({'op': 'return', 'id': r.batch['id'], 'item': 5, 'value': 0.5,\n"
        "                    'stdout': ''})\n"
        "    return x\n")
    with session_with(forge) as session, pytest.raises(SessionError, match="out of turn"):
        session.call_each("f", [(1,), (2,)])


def test_answers_with_another_id_are_ignored_and_handles_checked():
    forge = RUNNER + (
        "def f(x):\n"
        "    r = runner()\n"
        "    r.channel.send({'op': 'batched', 'id': 'stale', 'results': [[9, '']]})\n"
        "    if x == 2:\n"
        "        r.channel.send({'op': 'batched', 'id': r.batch['id'], 'results': [[{'$h': 99}, '']]})\n"
        "    return x\n")
    with session_with(forge) as session:
        assert session.call_each("f", [(1,), (3,)]) == ([1, 3], None)
        with pytest.raises(SessionError, match="never sent"):
            session.call_each("f", [(2,), (3,)])


def test_a_call_that_sleeps_mid_batch_is_stopped_by_the_grader_s_clock():
    cells = ("import time\ndef f(x):\n    if x == 3:\n        time.sleep(60)\n    return x\n",)
    with session_with(*cells) as session:
        with pytest.raises(TimeLimitExceeded), _time_limit(1.0):
            session.call_each("f", [(i,) for i in range(6)])
        assert session.proc is None                            # stopped mid-call
        assert session.call_each("f", [(1,), (2,)]) == ([1, 2], None)     # a fresh sandbox


def test_a_call_that_forks_mid_batch_or_ends_its_process():
    forks = ("import os\n"
             "def f(x):\n"
             "    if x == 2 and os.fork() == 0:\n"
             "        return 99\n"                             # the child goes on with the batch
             "    return x\n")
    with session_with(forks) as session:
        try:
            values, error = session.call_each("f", [(i,) for i in range(5)])
        except SessionError:
            pass                                               # two writers: a broken protocol
        else:
            assert error is None and len(values) == 5 and set(values) <= {0, 1, 2, 3, 4, 99}
        assert session.call_each("f", [(7,), (8,)]) == ([7, 8], None)
    with session_with("import os\ndef f(x):\n    if x == 2:\n        os._exit(3)\n    return x\n") \
            as session, pytest.raises(SessionError, match="exit status 3"):
        session.call_each("f", [(i,) for i in range(5)])


def test_a_batch_in_an_isolated_test_leaves_nothing_behind():
    with session_with(STATEFUL) as session:
        with session.isolated():
            assert session.call_each("f", [(1,), (2,)]) == ([1, 2], None)
        with session.isolated():
            assert session.call("log", ()) == []


# -- the estimate an ordered search sorts by, sent with each state ---------------------------------
ESTIMATES = '''
def f(game, state, estimate, kept):
    """Every child's estimate, a grandchild's, the root's, and a foreign object's (refused);
    each child's data from ``kept``, after changing the list it gave the first time."""
    kids = [game.result(state, m) for m in game.moves(state)]
    for k in kids:
        kept(k).append("changed")
    out = [kept(k) for k in kids] + [estimate(k) for k in kids] + [estimate(state)]
    inner = [k for k in kids if not game.is_terminal(k)]
    if inner:
        out.append(estimate(game.result(inner[0], game.moves(inner[0])[0])))
    try:
        estimate(42)
    except Exception as exc:
        out.append(type(exc).__name__)
    return out
'''


def _instrumented(case):
    from course.grading.checks.instrument import instrument

    return instrument(case.game, state=case.state, evaluate=case.evaluate, callers=False)


@pytest.mark.parametrize("replay", [False, True])
def test_estimates_sent_with_the_states_are_the_grader_s_values(replay, monkeypatch):
    from course.grading import tictactoe_cases, with_evaluation
    from course.grading.checks.cases import exercise_cases
    from course.sandbox import session as session_module

    monkeypatch.setattr(session_module, "REPLAY_TREES", replay)

    cases = with_evaluation(exercise_cases(7, 2, values=(0, 3))) + tictactoe_cases(5, 1, marks=4)
    with session_with(ESTIMATES) as session:
        asked = []
        answer = session._answer
        session._answer = lambda message: (asked.append(message.get("op")), answer(message))[1]
        for case in cases:
            game, recording = _instrumented(case)
            estimate = recording.estimator()
            kept = recording.state_function(lambda inner: [repr(inner)[:20], 1], "kept")
            got = session.call("f", (game, game.initial_state(), estimate, kept))
            # the grader's own values, on its own states (these functions record nothing)
            root = game.initial_state()
            kids = [game.result(root, m) for m in game.moves(root)]
            want = [kept(k) for k in kids] + [estimate(k) for k in kids] + [estimate(root)]
            inner = [k for k in kids if not game.is_terminal(k)]
            if inner:
                want.append(estimate(game.result(inner[0], game.moves(inner[0])[0])))
            assert got == want + ["GameUsageError"], case.name
        # only the root's estimate (handed out before the function) and the foreign object's
        # needed the grader: two callbacks per case; a replayed tree (REPLAY_TREES) comes
        # with every node's values, the root's too: one callback for each of its cases
        trees = sum(1 for case in cases if "random tree" in case.name) if replay else 0
        assert trees == (2 if replay else 0)
        assert asked.count("callback") == 2 * len(cases) - trees


def test_a_long_batch_answers_within_the_wait_for_one_call(monkeypatch):
    # the grader waits for each line as long as for one call's answer; a batch whose calls take
    # longer than that together sends what it has every BATCH_SECONDS
    from course.sandbox import session as session_module

    monkeypatch.setattr(session_module, "READ_MARGIN", 0.6)
    session = StudentSession(sandbox=True, cell_timeout=1.9)     # a line may take 2.5 s
    session.load(["import time\ndef f(x):\n    time.sleep(0.4)\n    return x\n"])
    with session:
        assert session.call_each("f", [(i,) for i in range(9)]) == (list(range(9)), None)
