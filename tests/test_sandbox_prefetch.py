"""The tree sent ahead to the sandbox changes no record (course.sandbox.session.PREFETCH_NODES).

The grader sends a few levels below each expanded state ahead, and the sandbox answers
``moves``/``chance_outcomes``/``result`` there itself, reporting a node's first use.  Whatever a
student's search does -- search correctly, prune, ask twice, skip ``moves``, misuse a method,
stop half way -- the grader's record (expansions and leaves in order, regenerated children),
the value returned and the errors raised must be exactly those without anything sent ahead.
"""

from __future__ import annotations

import pytest

from course.grading import exercise_cases, textbook_cases, with_depth_limit
from course.grading.checks.instrument import instrument
from course.sandbox import SessionError, StudentCodeError, StudentSession, sandbox_available
from course.sandbox import session as session_module

pytestmark = pytest.mark.skipif(not sandbox_available(),
                                reason="bubblewrap cannot start a sandbox here (apt-get install bubblewrap)")

SEARCHES = '''
import math
from course import Player

def minimax(game, state):
    if game.is_terminal(state):
        return game.utility(state)
    if game.turn(state) is Player.CHANCE:
        return sum(p * minimax(game, game.result(state, m)) for m, p in game.chance_outcomes(state))
    values = [minimax(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)

def alphabeta(game, state, alpha=-math.inf, beta=math.inf):
    if game.is_terminal(state):
        return game.utility(state)
    maximizing = game.turn(state) is Player.MAX
    v = -math.inf if maximizing else math.inf
    for m in game.moves(state):
        w = alphabeta(game, game.result(state, m), alpha, beta)
        if maximizing:
            v = max(v, w); alpha = max(alpha, v)
        else:
            v = min(v, w); beta = min(beta, v)
        if alpha >= beta:
            break
    return v

def wasteful(game, state):
    # asks for the moves twice and makes every child twice (regenerated children)
    if game.is_terminal(state):
        return game.utility(state)
    game.moves(state)
    for m in game.moves(state):
        game.result(state, m)
    values = [wasteful(game, game.result(state, m)) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)

def twice_below(game, state):
    # makes every child twice, and goes on below the first ones (the ones sent ahead)
    if game.is_terminal(state):
        return game.utility(state)
    kids = [game.result(state, m) for m in game.moves(state)]
    again = [game.result(state, m) for m in game.moves(state)]
    values = [twice_below(game, k) for k in kids]
    return max(values) if game.turn(state) is Player.MAX else min(values)

def results_first(game, state, moves=None):
    # makes the children of the first child without asking for its moves (it reuses the
    # root's list of moves, which is wrong below a node with other moves)
    if game.is_terminal(state):
        return game.utility(state)
    if moves is None:
        moves = game.moves(state)
    values = []
    for m in moves:
        try:
            values.append(results_first(game, game.result(state, m), moves))
        except Exception as exc:
            values.append(type(exc).__name__)
    return values

def misuse(game, state):
    # chance_outcomes below a decision, utility of an inner node, moves of a leaf: all errors
    out = []
    for call in (lambda: game.chance_outcomes(state), lambda: game.utility(state)):
        try:
            out.append(call())
        except Exception as exc:
            out.append(type(exc).__name__)
    child = game.result(state, game.moves(state)[0])
    while not game.is_terminal(child):
        child = game.result(child, game.moves(child)[-1])
    try:
        game.moves(child)
    except Exception as exc:
        out.append(type(exc).__name__)
    out.append(game.utility(child))
    return out

def half(game, state):
    # looks two levels down, evaluates one leaf, and stops
    kids = [game.result(state, m) for m in game.moves(state)]
    for k in kids:
        if not game.is_terminal(k):
            grandkids = [game.result(k, m) for m in game.moves(k)]
            leaf = grandkids[0]
            while not game.is_terminal(leaf):
                leaf = game.result(leaf, game.moves(leaf)[0])
            return game.utility(leaf)
    return None

def limited(game, state, depth=2):
    if game.is_terminal(state):
        return game.utility(state)
    if depth == 0:
        return game.evaluate(state)
    values = [limited(game, game.result(state, m), depth - 1) for m in game.moves(state)]
    return max(values) if game.turn(state) is Player.MAX else min(values)
'''

NAMES = ("minimax", "alphabeta", "wasteful", "twice_below", "results_first", "misuse", "half", "limited")

CASES = (textbook_cases("minimax") + exercise_cases(11, 6, depth=(2, 4), branching=(2, 4))
         + exercise_cases(12, 4, depth=(2, 3), chance=0.4))


def _records(prefetch: int, monkeypatch) -> list:
    monkeypatch.setattr(session_module, "REPLAY_TREES", False)     # the live protocol's
    monkeypatch.setattr(session_module, "PREFETCH_NODES", prefetch)
    session = StudentSession(sandbox=True)
    session.load([SEARCHES])
    out = []
    with session:
        for case in CASES + with_depth_limit(CASES[:4], 2):
            for name in NAMES:
                game, recording = instrument(case.game, evaluate=case.evaluate)
                try:
                    value = session.function(name)(game, game.initial_state())
                except StudentCodeError as exc:
                    value = ("raised", type(exc).__name__, str(exc).splitlines()[0][:120])
                out.append((case.name, name, value, recording.events(), recording.regenerated(),
                            recording.terminal_evaluations()))
    return out


def test_the_tree_sent_ahead_changes_no_record(monkeypatch):
    ahead = _records(session_module.PREFETCH_NODES, monkeypatch)
    asked = _records(0, monkeypatch)
    assert len(ahead) == len(asked)
    for a, b in zip(ahead, asked):
        assert a == b, f"{a[0]} / {a[1]}: with the tree sent ahead {a[2:]!r}, without {b[2:]!r}"
    # the cases exercise what they should: searches that expand, regenerate and raise
    assert any(r[4] for r in ahead), "no search regenerated a child"
    assert any(isinstance(r[2], list) and "GameUsageError" in r[2] for r in ahead)


def test_fewer_trips_with_the_tree_sent_ahead(monkeypatch):
    trips = {}
    monkeypatch.setattr(session_module, "REPLAY_TREES", False)     # the live protocol's
    for prefetch in (0, session_module.PREFETCH_NODES):
        monkeypatch.setattr(session_module, "PREFETCH_NODES", prefetch)
        session = StudentSession(sandbox=True)
        session.load([SEARCHES])
        sent = []
        original = session._send
        monkeypatch.setattr(session, "_send", lambda message, **kw: (sent.append(message),
                                                                     original(message, **kw)))
        with session:
            for case in CASES:
                game, _ = instrument(case.game)
                session.function("minimax")(game, game.initial_state())
        trips[prefetch] = len(sent)
    assert trips[session_module.PREFETCH_NODES] * 2 < trips[0], trips


#: the student's code writing notes of its own (it shares the sandbox's process with the protocol)
FORGER = '''
import gc
def forge(game, state, note):
    runner = [o for o in gc.get_objects() if type(o).__name__ == "Runner"][0]
    runner.channel.note(*note)
    return game.moves(state)          # the notes go out before this request
'''


@pytest.mark.parametrize("note, refusal", [
    ((0, "moves", [{"$h": 999}]), "never sent"),            # a state the grader never sent
    ((999, "moves", [{"$h": 1}]), "never sent"),            # a game the grader never sent
    ((1, "moves", [{"$h": 1}]), "not a game method"),       # a state named as the game
    ((0, "__init__", [{"$h": 1}]), "not a game method"),    # a method that is not the game's
    ((0, "moves", [{"$h": 1, "kind": "game"}]), None),      # a longer handle: decoded as one
])
def test_forged_notes_are_refused_or_recorded_as_the_call_they_name(note, refusal, monkeypatch):
    # handles here: the game is 0, the state 1, the note's own arguments as forged
    monkeypatch.setattr(session_module, "REPLAY_TREES", False)     # the live protocol's
    game, recording = instrument(CASES[0].game)
    with StudentSession(sandbox=True) as session:
        session.load([FORGER])
        forge = session.function("forge")
        if refusal is None:
            assert forge(game, game.initial_state(), note) == list(game.moves(game.initial_state()))
            assert recording.events() == (("expand", ()),)      # one expansion, not two
        else:
            with pytest.raises(SessionError, match=refusal):
                forge(game, game.initial_state(), note)
            assert recording.events() == ()
