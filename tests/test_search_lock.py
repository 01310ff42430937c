"""Lock test: every reference search, on a broad set of trees and games, exactly as recorded.

The reference searches grade students, so making them faster must not change what they do.
This test runs every search of :mod:`course.search` (with and without a trace, every move
ordering, depth limits, cut-off functions, several epsilons, error cases) on explicit trees
(seeded random ones with ties, exact and floating-point chance, bounds that leaves reach),
the worked examples, the BAB paper's random trees, Chen's trees, tic-tac-toe, Pig and Cops &
Robbers, and compares a digest of the *complete* outcome with the one recorded in
``tests/data/search_lock.json``:

* the result's fields (``algorithm``, ``lower``, ``upper``, ``move``, ``expanded``,
  ``evaluated``, ``children``, ``epsilon``), numbers by ``repr`` so that ``0``, ``0.0`` and
  ``Fraction(0, 1)`` differ;
* the evaluated leaves' paths, in order;
* every trace event, field by field;
* for a search that raises: the exception's class, message and path.

It also locks what the course's games answer on every reachable state (tic-tac-toe) or on a
large sample of states (Pig, Cops & Robbers): ``turn``, ``moves``, ``chance_outcomes``,
``is_terminal``, ``utility``, ``evaluate``, ``describe_move`` and the error for illegal moves.

The record was written by the code *before* the speed work of issue 23.  Regenerate it only
for a deliberate change of behaviour::

    .venv/bin/python tests/test_search_lock.py --record
"""

from __future__ import annotations

import hashlib
import math
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from course import parse_tree  # noqa: E402
from course.examples import (aima_figure_5_2, bab_figure3, chance_note_game,  # noqa: E402
                             expectimax_example, expectimax_pruning_example,
                             naive_epsilon_counterexample)
from course.game import Player  # noqa: E402
from course.games import CopsAndRobbers, Pig, TicTacToe, TicTacToeState  # noqa: E402
from course.games.chen import ChenTree  # noqa: E402
from course.games.random_trees import random_tree, stochastic_random_tree  # noqa: E402
from course.search import (alphabeta, bab, expectimax, minimax, naive_epsilon,  # noqa: E402
                           selective, star1)

RECORD = Path(__file__).with_name("data") / "search_lock.json"


# -- fingerprints ------------------------------------------------------------------------------
def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _event(e) -> tuple:
    return (e.kind, e.path, e.player, repr(e.alpha), repr(e.beta), repr(e.lower), repr(e.upper),
            e.child, e.pruned, e.reason)


def fingerprint(run) -> str:
    """What a search did: a digest of everything, then ``expanded/evaluated`` (or the error)."""
    try:
        result = run()
    except Exception as exc:  # noqa: BLE001 - the error is part of what is locked
        return f"! {type(exc).__name__}: {exc} @ {getattr(exc, 'path', None)!r}"
    fields = (result.algorithm, repr(result.lower), repr(result.upper), result.move,
              result.expanded, result.evaluated,
              tuple((i, repr(lo), repr(hi)) for i, lo, hi in result.children), repr(result.epsilon),
              result.leaves)
    trace = None if result.trace is None else [_event(e) for e in result.trace]
    return f"{_digest(repr((fields, trace)))} {result.expanded}/{result.evaluated}" + \
        ("" if trace is None else f" {len(trace)}t")


# -- the trees and games -----------------------------------------------------------------------
def _random_tree_obj(rng: random.Random, *, depth: int, branching: int, chance: bool,
                     floats: bool, low: int, high: int):
    def node(level: int):
        if level >= depth or (level > 0 and rng.random() < 0.2):
            return rng.randint(low, high)
        kinds = ["max", "min"] + (["chance"] if chance else [])
        kind = rng.choice(kinds)
        n = rng.randint(1, branching)
        if kind == "chance":
            if floats:
                probabilities = rng.choice([[1 / n] * n, [0.1, 0.2, 0.7][:n] if n == 3 else [1 / n] * n,
                                            [1 / 6, 2 / 3, 1 / 6] if n == 3 else [1 / n] * n])
            else:
                weights = [rng.randint(1, 4) for _ in range(n)]
                probabilities = [Fraction(w, sum(weights)) for w in weights]
            return {"chance": [[p, node(level + 1)] for p in probabilities]}
        return {kind: [node(level + 1) for _ in range(n)]}

    return node(0)


def _evaluator(game):
    """A deterministic EVAL within the game's bounds, for depth limits and ordering."""
    lo, hi = game.vmin, game.vmax
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0, 8

    def evaluate(state):
        return lo + (sum(map(ord, repr(state))) % 5) * Fraction(hi - lo) / 4

    return evaluate


def _cutoff(state, depth):
    if hasattr(state, "children"):
        return depth >= 1 and len(state.children) > 2
    return depth >= 2 and sum(map(ord, repr(state))) % 3 == 0


def _reverse(game, state, path, player):
    return list(range(len(game.moves(state))))[::-1]


def tree_cases():
    """(name, game, bounded) for the explicit trees."""
    rng = random.Random(20231123)
    cases = []
    for k in range(40):
        obj = _random_tree_obj(rng, depth=rng.randint(1, 4), branching=rng.randint(1, 4), chance=False,
                               floats=False, low=0, high=rng.choice([2, 9, 20]))
        bounds = (0, 20) if k % 3 == 0 else None        # None: the extreme leaves, which cut
        cases.append((f"tree{k}", parse_tree(obj, bounds=bounds), False))
    for k in range(40):
        floats = k % 2 == 1
        obj = _random_tree_obj(rng, depth=rng.randint(1, 4), branching=rng.randint(1, 4), chance=True,
                               floats=floats, low=0, high=rng.choice([2, 9, 20]))
        bounds = (0, 20) if k % 3 == 0 else None
        cases.append((f"chance{k}{'f' if floats else ''}", parse_tree(obj, bounds=bounds), True))
    cases += [
        ("aima", aima_figure_5_2(), False),
        ("naive", naive_epsilon_counterexample(m=4, x=10, epsilon=1), False),
        ("bab3", bab_figure3(), True),
        ("note", chance_note_game(), True),
        ("note09", chance_note_game(u_a2_c1=-0.9), True),
        ("expectimax_example", expectimax_example(), True),
        ("expectimax_pruning", expectimax_pruning_example(), True),
        ("rt", random_tree(3, 5, seed=4), False),
        ("rt_ties", random_tree(3, 4, seed=9, low=0, high=3), False),
        ("srt", stochastic_random_tree(3, 2, seed=5), True),
        ("srt_p", stochastic_random_tree(2, 3, seed=1, p=0.6), True),
        ("chen", ChenTree(3, 4, seed=2), False),
    ]
    return cases


@dataclass(frozen=True)
class Run:
    """One search call: ``search(*args, **kwargs)``."""

    name: str
    search: Callable
    args: tuple
    kwargs: dict

    def __call__(self, **override):
        return self.search(*self.args, **{**self.kwargs, **override})


def _tree_runs(name, game, chance):
    runs = []
    evaluate = _evaluator(game)
    decision_searches = [("minimax", minimax, {}), ("alphabeta", alphabeta, {}),
                         ("naive0", naive_epsilon, {"epsilon": 0}),
                         ("naive2", naive_epsilon, {"epsilon": 2})]
    chance_searches = [("expectimax", expectimax, {}), ("star1", star1, {}),
                       ("bab0.5", bab, {"epsilon": 0.5}), ("bab2", bab, {"epsilon": 2}),
                       ("bab7", bab, {"epsilon": 7})]
    searches = chance_searches + ([] if chance else decision_searches)
    if chance:
        searches.append(("minimax", minimax, {}))            # the ChanceNodeError, locked too
    orders = ["given", "best-first", "worst-first", "random", _reverse]
    for label, fn, extra in searches:
        runs.append(Run(f"{name}/{label}/n", fn, (game,), extra))
        for order in orders:
            oname = order if isinstance(order, str) else "callable"
            runs.append(Run(f"{name}/{label}/{oname}", fn, (game,),
                            dict(extra, order=order, seed=3, trace=True)))
        runs.append(Run(f"{name}/{label}/heuristic", fn, (game,),
                        dict(extra, order="heuristic", evaluate=evaluate, trace=True)))
        runs.append(Run(f"{name}/{label}/depth2", fn, (game,),
                        dict(extra, depth=2, evaluate=evaluate, trace=True)))
        runs.append(Run(f"{name}/{label}/cutoff", fn, (game,),
                        dict(extra, cutoff=_cutoff, evaluate=evaluate, trace=True)))
    if not chance:
        for skip in (0, 1, 2):
            runs.append(Run(f"{name}/selective{skip}", selective, (game,),
                            dict(depth=3, skip=skip, evaluate=evaluate, trace=True)))
    return runs


def _x_count_cutoff(state, depth):
    return state.cells.count("X") >= 3


def game_runs():
    runs = []
    ttt = TicTacToe()
    # the full tree, untraced (549,946 nodes for minimax) and alpha-beta traced
    runs.append(Run("ttt/minimax/full", minimax, (ttt,), {}))
    runs.append(Run("ttt/alphabeta/full", alphabeta, (ttt,), {}))
    runs.append(Run("ttt/alphabeta/full/t", alphabeta, (ttt,), {"trace": True}))
    runs.append(Run("ttt/star1/full", star1, (ttt,), {}))
    runs.append(Run("ttt/bab0.5/full", bab, (ttt,), {"epsilon": 0.5}))
    positions = ["X.. / ... / ...", "X.. / .O. / ...", "XO. / .X. / ...", "X.O / .X. / O..",
                 "XOX / .O. / ...", "X.. / ... / ..O", "OX. / X.. / ...", "XXO / OOX / X..",
                 "XO. / XO. / ..."]
    searches = [("minimax", minimax, {}), ("expectimax", expectimax, {}), ("alphabeta", alphabeta, {}),
                ("naive1", naive_epsilon, {"epsilon": 1}), ("star1", star1, {}),
                ("bab0.3", bab, {"epsilon": 0.3}), ("bab1", bab, {"epsilon": 1})]
    for text in positions:
        start = TicTacToe(text)
        key = text.replace(" ", "").replace("/", "")
        for label, fn, extra in searches:
            orders = ("given", "best-first", "worst-first", "random", "heuristic")
            for order in orders if text.count(".") < 8 else orders[:1]:   # one mark: 60k nodes
                runs.append(Run(f"ttt[{key}]/{label}/{order}", fn, (start,),
                                dict(extra, order=order, seed=1, trace=True)))
            runs.append(Run(f"ttt[{key}]/{label}/depth3", fn, (start,), dict(extra, depth=3, trace=True)))
            runs.append(Run(f"ttt[{key}]/{label}/depth2/n", fn, (start,), dict(extra, depth=2)))
        runs.append(Run(f"ttt[{key}]/selective", selective, (start,), dict(depth=3, skip=2, trace=True)))
    # a state given to the search, not the game's start
    state = TicTacToeState.from_string("X.. / .O. / ..X")
    runs.append(Run("ttt/state/alphabeta", alphabeta, (ttt, state), {"trace": True}))
    runs.append(Run("ttt/state/minimax/cutoff", minimax, (ttt, state),
                    {"cutoff": _x_count_cutoff, "trace": True}))

    for target, faces, limit in ((4, 3, 2), (5, 3, 3), (6, 4, 4), (7, 2, 3)):
        pig = Pig(target=target, faces=faces, turn_limit=limit)
        key = f"pig{target}.{faces}.{limit}"
        small = pig.target * pig.turn_limit <= 18
        for label, fn, extra in (("expectimax", expectimax, {}), ("star1", star1, {}),
                                 ("bab0.1", bab, {"epsilon": Fraction(1, 10)}),
                                 ("bab0.5", bab, {"epsilon": 0.5}), ("minimax", minimax, {})):
            runs.append(Run(f"{key}/{label}", fn, (pig,), extra))
            if small:
                runs.append(Run(f"{key}/{label}/t", fn, (pig,), dict(extra, trace=True)))
            for order in ("best-first", "random", "heuristic"):
                runs.append(Run(f"{key}/{label}/{order}/depth5", fn, (pig,),
                                dict(extra, order=order, seed=2, depth=5, trace=True)))
            runs.append(Run(f"{key}/{label}/depth4", fn, (pig,), dict(extra, depth=4, trace=True)))

    for stochastic in (False, True):
        cr = CopsAndRobbers(width=3, height=3, cops=1, seed=2, stochastic=stochastic,
                            time_limit=2 if stochastic else 3)
        key = f"cr{'s' if stochastic else 'd'}"
        searches = [("expectimax", expectimax, {}), ("star1", star1, {}), ("bab1", bab, {"epsilon": 1})]
        if not stochastic:
            searches += [("minimax", minimax, {}), ("alphabeta", alphabeta, {}),
                         ("naive1", naive_epsilon, {"epsilon": 1})]
        for label, fn, extra in searches:
            for order in ("given", "heuristic", "random"):
                runs.append(Run(f"{key}/{label}/{order}/depth4", fn, (cr,),
                                dict(extra, order=order, depth=4, trace=True)))
            runs.append(Run(f"{key}/{label}/full", fn, (cr,), extra))
        big = CopsAndRobbers(width=5, height=5, cops=2, obstacles=0.2, seed=3, stochastic=stochastic)
        for label, fn, extra in searches:
            runs.append(Run(f"{key}5/{label}/depth3", fn, (big,), dict(extra, depth=3)))
    # parameter errors are part of the behaviour too
    aima = aima_figure_5_2()
    runs += [
        Run("err/depth", minimax, (aima,), {"depth": -1}),
        Run("err/order", alphabeta, (aima,), {"order": "sideways"}),
        Run("err/eps", bab, (aima,), {"epsilon": -1}),
        Run("err/bounds", bab, (aima,), {"vmin": 5, "vmax": 6}),
        Run("err/evaluate", minimax, (aima,), {"depth": 1}),
        Run("err/callable", alphabeta, (aima,), {"order": _bad_order}),
        Run("err/notgame", minimax, ("tree",), {}),
        Run("err/selective", selective, (aima,), {"depth": 0}),
    ]
    return runs


def _bad_order(game, state, path, player):
    return [0] * len(game.moves(state))


def all_runs():
    runs = []
    for name, game, chance in tree_cases():
        runs += _tree_runs(name, game, chance)
    return runs + game_runs()


# -- the games' answers --------------------------------------------------------------------------
def _answers(game, state) -> tuple:
    """Everything the game says about ``state`` (errors included, as text)."""
    def ask(fn, *args):
        try:
            return repr(fn(*args))
        except Exception as exc:  # noqa: BLE001
            return f"{type(exc).__name__}: {exc}"

    terminal = game.is_terminal(state)
    out = [repr(state), terminal, ask(game.evaluate, state)]
    if terminal:
        out.append(ask(game.utility, state))
        out.append(ask(game.moves, state))
        return tuple(out)
    out.append(ask(game.utility, state))
    turn = game.turn(state)
    out.append(repr(turn))
    moves = list(game.chance_outcomes(state)) if turn is Player.CHANCE else list(game.moves(state))
    out.append(repr(moves))
    out.append(ask(game.moves, state))
    for move in (moves if turn is not Player.CHANCE else [m for m, _ in moves]):
        out.append(game.describe_move(state, move))
    for bad in (-1, 99, "roll", None):
        out.append(ask(game.result, state, bad))
    return tuple(out)


def _walk(game, limit: int, *, seed: int):
    """Up to ``limit`` distinct states reachable from the start, breadth first then sampled."""
    rng = random.Random(seed)
    start = game.initial_state()
    seen = {start: None}
    frontier = [start]
    while frontier and len(seen) < limit:
        state = frontier.pop(0)
        if game.is_terminal(state):
            continue
        if game.turn(state) is Player.CHANCE:
            moves = [m for m, _ in game.chance_outcomes(state)]
        else:
            moves = list(game.moves(state))
        rng.shuffle(moves)
        for move in moves:
            child = game.result(state, move)
            if child not in seen:
                seen[child] = None
                frontier.append(child)
    return list(seen)


def game_answers():
    out = {}
    for name, game, limit in (("ttt", TicTacToe(), 10_000), ("ttt_start", TicTacToe("X.. / .O. / ..."), 10_000),
                              ("pig", Pig(), 3_000), ("pig7", Pig(target=7, faces=3, turn_limit=3), 3_000),
                              ("crs", CopsAndRobbers(width=4, height=3, cops=2, seed=1, stochastic=True,
                                                     time_limit=3), 1_500)):
        states = _walk(game, limit, seed=1)
        out[f"{name}/{len(states)}"] = _digest(repr([_answers(game, s) for s in states]))
    return out


# -- record / compare ----------------------------------------------------------------------------
def compute() -> dict:
    return {"searches": {run.name: fingerprint(run) for run in all_runs()},
            "games": game_answers()}


def test_searches_and_games_unchanged():
    recorded = json.loads(RECORD.read_text())
    now = compute()
    assert now["games"] == recorded["games"], "a game answers differently (see _answers)"
    assert now["searches"].keys() == recorded["searches"].keys()
    changed = [f"{name}: {recorded['searches'][name]} -> {now['searches'][name]}"
               for name in recorded["searches"] if now["searches"][name] != recorded["searches"][name]]
    assert not changed, f"{len(changed)} searches changed, e.g.\n" + "\n".join(changed[:10])


def test_lock_covers_enough():
    """The record is broad: thousands of runs, traced and untraced, errors included."""
    recorded = json.loads(RECORD.read_text())["searches"]
    assert len(recorded) > 4000
    assert sum(v.endswith("t") for v in recorded.values()) > 3000
    assert sum(v.startswith("!") for v in recorded.values()) >= 60
    assert recorded["ttt/minimax/full"].endswith(" 294778/255168")


def test_trace_changes_nothing_else():
    """A traced search returns the same result as the untraced one (the trace aside)."""
    checked = 0
    for run in all_runs():
        if not run.kwargs.get("trace"):
            continue
        try:
            traced = run()
        except Exception:  # noqa: BLE001 - errors are locked above
            continue
        assert traced == run(trace=False), run.name
        checked += 1
    assert checked > 3000


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        RECORD.write_text(json.dumps(compute(), indent=0, sort_keys=True) + "\n")
        print(f"wrote {RECORD}")
    else:
        sys.exit(pytest.main([__file__, "-q"]))
