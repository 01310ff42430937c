"""Searches of an explicit tree answered in the sandbox and replayed by the grader
(course.sandbox.session.REPLAY_TREES) record exactly what the live protocol records.

With the replay, the sandbox answers a search's game calls from a copy of the case's tree and
sends back the record of those calls, which the grader makes again, in order, on its own
instrumented game.  Whatever the student's search does -- search correctly, prune, ask twice,
misuse a method, pass something that is not a state, keep a state for a later call, return a
state -- the grader's record, the value returned and the errors raised must be exactly those of
the live protocol.  And the record is the sandbox's, so it is hostile: a forged record is the
student's error (a SessionError), never a crash of the grader and never a better record.
"""

from __future__ import annotations

import pytest

from course.grading import exercise_cases, textbook_cases, with_depth_limit
from course.grading.checks.instrument import instrument
from course.sandbox import SessionError, StudentCodeError, StudentSession, sandbox_available
from course.sandbox import session as session_module
from test_sandbox_prefetch import CASES, NAMES, SEARCHES

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

ODD = '''
import math
from course import Player

kept = []

def odd_moves(game, state):
    # moves given as bool, float, str, None, a list, a tuple, a player, too large, negative
    out = []
    for move in (True, 1.0, "0", None, [0], (0,), Player.MAX, 99, -1, float("nan"), 0):
        try:
            child = game.result(state, move)
            out.append(game.is_terminal(child))
        except Exception as exc:
            out.append((type(exc).__name__, str(exc)[:200]))
    return out

def not_states(game, state):
    out = []
    for thing in (None, 3, "s", (state,), game):
        for method in ("moves", "is_terminal", "turn", "utility", "evaluate", "chance_outcomes"):
            try:
                out.append(getattr(game, method)(thing))
            except Exception as exc:
                out.append((method, type(exc).__name__, str(exc)[:200]))
    return out

def leaf_misuse(game, state):
    out = []
    s = state
    while not game.is_terminal(s):
        s = game.result(s, game.moves(s)[0])
    for method in ("moves", "turn", "chance_outcomes", "evaluate", "utility"):
        try:
            out.append(getattr(game, method)(s))
        except Exception as exc:
            out.append((method, type(exc).__name__, str(exc)[:200]))
    try:
        game.result(s, 0)
    except Exception as exc:
        out.append(("result", type(exc).__name__, str(exc)[:200]))
    return out

def arity(game, state):
    out = []
    for call in (lambda: game.moves(), lambda: game.moves(state, 1), lambda: game.result(state),
                 lambda: game.initial_state(1), lambda: game.is_terminal(),
                 lambda: game.turn(state, state), lambda: game.describe_move(state, 0)):
        try:
            out.append(call())
        except Exception as exc:
            out.append((type(exc).__name__, str(exc)[:200]))
    return out

def keep(game, state):
    kept.append((game, state, game.result(state, game.moves(state)[0])))
    return game.initial_state() is state

def use_kept(game, state):
    # stand-ins and games of an earlier call
    out = []
    for g, s, c in kept:
        for call in (lambda: game.moves(s), lambda: g.moves(c), lambda: game.result(c, 0),
                     lambda: g.is_terminal(s), lambda: game.utility(c)):
            try:
                out.append(call())
            except Exception as exc:
                out.append((type(exc).__name__, str(exc)[:200]))
    return out

def give_back(game, state):
    # returns states: the grader gets its own
    kids = [game.result(state, m) for m in game.moves(state)]
    return [state, kids[-1], (kids[0], game.initial_state())]

def chance_twice(game, state):
    out = []
    def walk(s):
        if game.is_terminal(s):
            return game.utility(s)
        if game.turn(s) is Player.CHANCE:
            pairs = game.chance_outcomes(s)
            game.chance_outcomes(s)
            out.append(pairs)
            return sum(p * walk(game.result(s, m)) for m, p in pairs)
        return max(walk(game.result(s, m)) for m in game.moves(s))
    return walk(state), out

def raises_midway(game, state):
    kids = [game.result(state, m) for m in game.moves(state)]
    game.utility(kids[0]) if game.is_terminal(kids[0]) else game.moves(kids[0])
    raise ValueError("stop")

def evaluates_everything(game, state, depth=3):
    if depth == 0 or game.is_terminal(state):
        return game.evaluate(state)
    values = [evaluates_everything(game, game.result(state, m), depth - 1) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''

ODD_NAMES = ("odd_moves", "not_states", "leaf_misuse", "arity", "keep", "use_kept", "give_back",
             "chance_twice", "raises_midway", "evaluates_everything")


def _path_of(recording, value):
    """A value returned, the grader's states in it named by their path (comparable across runs)."""
    if isinstance(value, (list, tuple)):
        return type(value)(_path_of(recording, v) for v in value)
    if type(value).__name__ == "State":
        return ("state", repr(value))
    return value


def _records(replay: bool, monkeypatch, cases, sources, names) -> list:
    monkeypatch.setattr(session_module, "REPLAY_TREES", replay)
    session = StudentSession(sandbox=True)
    session.load(sources)
    out = []
    with session:
        for case in cases:
            for name in names:
                game, recording = instrument(case.game, evaluate=case.evaluate)
                try:
                    value = session.function(name)(game, game.initial_state())
                except StudentCodeError as exc:
                    value = ("raised", type(exc).__name__, str(exc).splitlines()[0][:200])
                out.append((case.name, name, _path_of(recording, value), recording.events(),
                            recording.regenerated(), recording.terminal_evaluations()))
    return out


def _same(replayed, live):
    assert len(replayed) == len(live)
    for a, b in zip(replayed, live):
        assert a == b, f"{a[0]} / {a[1]}: replayed {a[2:]!r}, live {b[2:]!r}"


def test_a_replayed_search_records_what_the_live_protocol_records(monkeypatch):
    cases = CASES + with_depth_limit(CASES[:4], 2)
    _same(_records(True, monkeypatch, cases, [SEARCHES], NAMES),
          _records(False, monkeypatch, cases, [SEARCHES], NAMES))


def test_odd_searches_get_the_same_answers_and_errors_replayed(monkeypatch):
    cases = CASES[:3] + exercise_cases(12, 2, depth=(2, 3), chance=0.5) + \
        with_depth_limit(CASES[:2], 1)
    replayed = _records(True, monkeypatch, cases, [ODD], ODD_NAMES)
    _same(replayed, _records(False, monkeypatch, cases, [ODD], ODD_NAMES))
    flat = repr(replayed)
    for word in ("GameUsageError", "is not legal here", "not a state of this game",
                 "terminal state", "TypeError", "cannot send"):
        assert word in flat, word


def test_the_replay_is_used_and_saves_round_trips(monkeypatch):
    trips = {}
    for replay in (False, True):
        monkeypatch.setattr(session_module, "REPLAY_TREES", replay)
        session = StudentSession(sandbox=True)
        session.load([SEARCHES])
        sent = []
        original = session._send
        monkeypatch.setattr(session, "_send", lambda message, **kw: (sent.append(message),
                                                                     original(message, **kw)))
        with session:
            for case in CASES:
                game, recording = instrument(case.game)
                session.function("minimax")(game, game.initial_state())
                assert recording.leaves()
        trips[replay] = len(sent)
    assert trips[True] == len(CASES) < trips[False], trips      # one message per call


# -- the record is the sandbox's: hostile ------------------------------------------------------
#: the student's code reaching the protocol (it shares the sandbox's process with it)
FORGER = '''
import gc, os

def _runner():
    return [o for o in gc.get_objects() if type(o).__name__ == "Runner"][0]

kept = []

def forge(game, state, entries):
    # entries added to this call's record, which goes back with the return
    game.moves(state)
    _runner().local.record.extend(entries)
    return 1

def forge_then_ask(game, state, entries):
    # the same, sent with a request the grader answers live (evaluate)
    game.moves(state)
    _runner().local.record.extend(entries)
    return game.evaluate(state)

def message(game, state, msg, then):
    # a message of its own, then a return, a death or a request
    runner = _runner()
    msg = dict(msg)
    if msg.get("id") == "this call":
        msg["id"] = runner.local.call_id
    runner.channel.send(msg)
    if then == "exit":
        os._exit(3)
    if then == "ask":
        return game.evaluate(state)
    return 1

def keep_local(game, state):
    local = _runner().local
    kid = game.result(state, 0)
    game.result(kid, 0) if not game.is_terminal(kid) else None
    kept.append(local)
    return 1

def reuse_local(game, state):
    # the record of an earlier call (its stand-ins numbered 0..2), sent with this one
    _runner().local.record.extend(kept[0].record + [["m", 2]])
    return 1

def flood(game, state):
    _runner().local.record.extend([["m", 0]] * 400_000)
    return 1

def moves_forever(game, state):
    for _ in range(30_000):            # an honest record past RECORD_CHUNK: sent in parts
        game.moves(state)
    return game.utility(game.result(state, 0)) if game.is_terminal(game.result(state, 0)) else 0
'''

_REFUSED = session_module.RECORD_REFUSED


def _forger(monkeypatch):
    monkeypatch.setattr(session_module, "REPLAY_TREES", True)
    session = StudentSession(sandbox=True)
    session.load([FORGER])
    return session


@pytest.mark.parametrize("entries", [
    [["x", 0]],                              # a method that is not the game's
    [["__init__", 0]],
    [["evaluate", 0]],                       # a method the record does not carry
    [["m", 999]],                            # a state never made
    [["m", -1]],
    [["m", 1]],                              # a stand-in used before it was handed out
    [["r", 0, 0], ["m", 2]],
    [["m", True]],                           # a number that is not a number
    [["m", "0"]],
    [["m"]],                                 # malformed entries
    [["m", 0, 0]],
    [["r", 0]],
    ["m", 0],
    [{"m": 0}],
    [None],
    [["r", 0, 99]],                          # a move that is not legal
    [["r", 0, {"$h": 0}]],                   # a handle as a move
    [["r", 0, {"$s": 0}]],
    [["r", 0, {"$t": [[[[[[0]]]]]]}]],
    [["r", 0, {"$f": [1, 0]}]],
    [["u", 0]],                              # calls the game refuses: asked live, never recorded
    [["c", 0]],
])
@pytest.mark.parametrize("name", ["forge", "forge_then_ask"])
def test_a_forged_record_is_refused_as_the_students_error(entries, name, monkeypatch):
    case = CASES[1]
    with _forger(monkeypatch) as session:
        game, recording = instrument(case.game, evaluate=case.evaluate)
        with pytest.raises(SessionError, match=_REFUSED):
            session.function(name)(game, game.initial_state(), entries)
        # the session goes on: the next call is answered (in a fresh sandbox)
        game, recording = instrument(case.game, evaluate=case.evaluate)
        assert session.function("forge")(game, game.initial_state(), []) == 1
        assert recording.events() == (("expand", ()),)


@pytest.mark.parametrize("msg, then", [
    ({"op": "record", "id": "another call", "record": [["m", 0]]}, "return"),
    ({"op": "record", "id": "this call"}, "return"),                 # no record in it
    ({"op": "record", "id": "this call", "record": {"m": 0}}, "return"),
    ({"op": "notes", "notes": [], "record": [["m", 0]]}, "return"),   # a record on another message
    ({"op": "record", "id": "this call", "record": [["m", 0], ["q", 0]]}, "ask"),
    ({"op": "record", "id": "this call", "record": [["m", 0]]}, "exit"),   # without a return
])
def test_a_forged_record_message_is_refused_or_ends_the_call(msg, then, monkeypatch):
    case = CASES[1]
    with _forger(monkeypatch) as session:
        game, recording = instrument(case.game, evaluate=case.evaluate)
        with pytest.raises(SessionError):
            session.function("message")(game, game.initial_state(), msg, then)


def test_a_record_naming_another_calls_stand_ins_is_refused(monkeypatch):
    case = CASES[1]
    with _forger(monkeypatch) as session:
        game, _ = instrument(case.game, evaluate=case.evaluate)
        assert session.function("keep_local")(game, game.initial_state()) == 1
        game, recording = instrument(case.game, evaluate=case.evaluate)
        with pytest.raises(SessionError, match=_REFUSED):
            session.function("reuse_local")(game, game.initial_state())


def test_a_record_without_a_tree_is_refused(monkeypatch):
    # a game that is not an explicit tree (tic-tac-toe) is asked live: no record is taken
    from course.games.tictactoe import TicTacToe

    game, _ = instrument(TicTacToe())
    with _forger(monkeypatch) as session:
        with pytest.raises(SessionError, match=_REFUSED):
            session.function("message")(game, game.initial_state(),
                                        {"op": "record", "id": "x", "record": []}, "return")
        # nor in a batch of calls (no game)
        session.load([FORGER + "\ndef plain(x):\n    _runner().channel.send({'op': 'record', "
                      "'id': 'x', 'record': []})\n    return x\n"])
        with pytest.raises(SessionError, match=_REFUSED):
            session.function("plain").each([(1,), (2,)])


def test_a_huge_record_reaches_a_cap_and_an_honest_long_one_is_sent_in_parts(monkeypatch):
    case = CASES[1]
    with _forger(monkeypatch) as session:
        game, recording = instrument(case.game, evaluate=case.evaluate)
        with pytest.raises(SessionError, match="at once"):
            session.function("flood")(game, game.initial_state())
    with _forger(monkeypatch) as session:
        game, recording = instrument(case.game, evaluate=case.evaluate)
        session.function("moves_forever")(game, game.initial_state())
        assert recording.events()[0] == ("expand", ())


def test_a_forged_record_fails_the_check_and_never_crashes_the_grader(monkeypatch):
    from course.grading.checks.compare import compare
    from course.grading.checks.searches import _task

    monkeypatch.setattr(session_module, "REPLAY_TREES", True)
    with StudentSession(sandbox=True) as session:
        session.load([FORGER + '''
def minimax_value(game, state):
    # the right answer, and a forged record that claims the leaves were evaluated
    record = _runner().local.record
    record += [["m", 0], ["r", 0, 0], ["u", 1], ["m", 99]]
    return 3
'''])
        comp = compare(_task("minimax_value", False), session.function("minimax_value"), CASES[0])
        assert not comp.ok
        assert _REFUSED in comp.message()


STUCK = '''
def minimax_value(game, state):
    # expands the root and its first child, evaluates a leaf below, then never returns
    kid = game.result(state, game.moves(state)[0])
    game.moves(kid)
    while not game.is_terminal(kid):
        kid = game.result(kid, 0)
    game.utility(kid)
    while True:
        pass
'''


def test_a_search_stopped_by_the_time_limit_has_its_calls_until_then_recorded(monkeypatch):
    # The replay sends its record on a timer while the call runs: a search stopped by the
    # grader's clock in a loop that asks nothing has every call it made recorded (the root and
    # its first child expanded, a leaf evaluated).  The live protocol reports the first use of
    # what it sent ahead (here the leaf's utility) with the sandbox's next message, which never
    # comes: it says 2 (1 with nodes sent below the children), a count of its own timing.
    from course.grading.checks.compare import compare
    from course.grading.checks.searches import _task

    monkeypatch.setattr(session_module, "REPLAY_TREES", True)
    with StudentSession(sandbox=True) as session:
        session.load([STUCK])
        comp = compare(_task("minimax_value", False), session.function("minimax_value"),
                       CASES[0], time_limit=1.0)
    assert "did not finish" in comp.message()
    assert "made 3 expansions and leaf evaluations" in comp.message()


MANY = '''
def many(game, state):
    # makes the root's first child again and again
    kids = [game.result(state, 0) for _ in range(60)]
    return [game.is_terminal(k) for k in kids[::10]]

def forge_many(game, state):
    _runner().local.record.extend([["r", 0, 0]] * 60)
    return 1
'''


def test_past_the_limit_of_states_the_sandbox_asks_live_and_a_record_is_refused(monkeypatch):
    # (the grader's memory grows with the states a record makes: no faster than live)
    case = CASES[1]
    results = {}
    for replay in (True, False):
        monkeypatch.setattr(session_module, "REPLAY_TREES", replay)
        monkeypatch.setattr(session_module, "REPLAY_STATES", 25)
        with StudentSession(sandbox=True) as session:
            session.load([FORGER + MANY])
            game, recording = instrument(case.game, evaluate=case.evaluate)
            value = session.function("many")(game, game.initial_state())
            results[replay] = (value, recording.events(), recording.regenerated())
            if replay:
                game, recording = instrument(case.game, evaluate=case.evaluate)
                with pytest.raises(SessionError, match=_REFUSED):
                    session.function("forge_many")(game, game.initial_state())
    assert results[True] == results[False]
    assert len(results[True][2]) == 59
