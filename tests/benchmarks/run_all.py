"""Speed benchmarks of the course, printed side by side in one run (``make benchmark``).

1. Nodes per second of every reference search on the BAB paper's random tree
   (RT, b = 4, d = 9), with tracing off and on, next to the fast path.  A run
   that would visit more than ``--budget`` nodes with tracing on is stopped
   after that many nodes and its speed extrapolated from them (said so in the
   table).
2. The course against OpenSpiel, side by side in one run: full-depth minimax and alpha-beta
   on tic-tac-toe -- the course's searches on the course's ``TicTacToe`` and, through
   ``course.games.openspiel``, on OpenSpiel's C++ tic-tac-toe, against OpenSpiel's Python
   ``expectiminimax`` and ``alpha_beta_search`` on its C++ game (plus, for alpha-beta, a
   plain recursion and a re-implementation of OpenSpiel's algorithm over the course's game);
   expectimax and Star1 on OpenSpiel's Pig; depth-limited alpha-beta on connect four.  Node
   counts for OpenSpiel's searches come from a separate counting run.  Without the
   ``open_spiel`` package only the course's rows are printed.
3. The epsilon explorer's slider-to-SVG latency (``course.widgets``).
4. Autograding (``course.grading``): the grading authors' ``bench_autograde.py`` beside this
   file when it is there -- a class of ``--grading-students`` students (six submissions each)
   graded with 1, 2, ... workers up to the machine's cores (throughput against workers), then
   ``bench_cluster.py``, the cluster path's cost per job against the local pool's --, else a
   copy of the course with the released exercises submitted unchanged.

Parts 3 and 4 print "not available" when those parts of the course (or their
tools) are missing.  Usage::

    python tests/benchmarks/run_all.py [--quick] [--repeat N] [--budget NODES] [--skip-grading]
        [--grading-students N]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from course.game import Game, Player  # noqa: E402
from course.games.random_trees import random_tree  # noqa: E402
from course.experiments.fast import fast_search  # noqa: E402
from course.search import (alphabeta, bab, expectimax, minimax, naive_epsilon,  # noqa: E402
                           star1)

INF = float("inf")


# -- the machine --------------------------------------------------------------------------------
def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    memory = ""
    try:
        kb = int(next(l for l in Path("/proc/meminfo").read_text().splitlines()
                      if l.startswith("MemTotal")).split()[1])
        memory = f", {kb / 2 ** 20:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} at start"
    import numpy

    return (f"{cpu}, {cores} cores{memory}{load}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {numpy.__version__}")


def best_time(fn, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


# -- 1. nodes per second on RT(4, 9) ------------------------------------------------------------
class _Stop(Exception):
    pass


class BudgetGame(Game):
    """A game that stops the search (raises) after ``budget`` generated nodes."""

    def __init__(self, inner: Game, budget: int) -> None:
        self.inner, self.budget, self.count = inner, budget, 1
        self.vmin, self.vmax = inner.vmin, inner.vmax

    def initial_state(self):
        return self.inner.initial_state()

    def turn(self, s):
        return self.inner.turn(s)

    def moves(self, s):
        return self.inner.moves(s)

    def result(self, s, m):
        self.count += 1
        if self.count > self.budget:
            raise _Stop
        return self.inner.result(s, m)

    def is_terminal(self, s):
        return self.inner.is_terminal(s)

    def utility(self, s):
        return self.inner.utility(s)

    def chance_outcomes(self, s):
        return self.inner.chance_outcomes(s)


SEARCHES = [
    ("minimax", lambda g, t: minimax(g, trace=t)),
    ("expectimax", lambda g, t: expectimax(g, trace=t)),
    ("alphabeta", lambda g, t: alphabeta(g, trace=t)),
    ("naive_epsilon (eps 8)", lambda g, t: naive_epsilon(g, epsilon=8, trace=t)),
    ("star1", lambda g, t: star1(g, trace=t)),
    ("bab (eps 8)", lambda g, t: bab(g, epsilon=8, trace=t)),
    ("bab (eps 32)", lambda g, t: bab(g, epsilon=32, trace=t)),
]
FAST = {"alphabeta": ("alphabeta", 0), "star1": ("star1", 0), "bab (eps 8)": ("bab", 8),
        "bab (eps 32)": ("bab", 32)}


def bench_searches(repeat: int, budget: int) -> list[list[str]]:
    game = random_tree(4, 9, seed=0)
    rows = []
    for name, run in SEARCHES:
        seconds, result = best_time(lambda: run(game, False), repeat)
        nodes = result.expanded + result.evaluated
        off = nodes / seconds
        if nodes <= budget:
            t_seconds, _ = best_time(lambda: run(game, True), repeat)
            on, note = nodes / t_seconds, "full run"
        else:
            wrapped = BudgetGame(game, budget)
            start = time.perf_counter()
            try:
                run(wrapped, True)
            except _Stop:
                pass
            on = wrapped.count / (time.perf_counter() - start)
            note = f"traced: first {budget} nodes, extrapolated"
        fast = ""
        if name in FAST:
            algorithm, eps = FAST[name]
            f_seconds, f_result = best_time(
                lambda: fast_search(algorithm, game, epsilon=eps, leaves=False), repeat)
            assert f_result.expanded == result.expanded and f_result.lower == result.lower
            fast = f"{nodes / f_seconds:,.0f} ({off and (nodes / f_seconds) / off:.1f}x)"
        rows.append([name, f"{nodes:,}", f"{seconds:.3f}", f"{off:,.0f}", f"{on:,.0f}",
                     f"{off / on:.1f}x", fast or "-", note])
    return rows


# -- 2. tic-tac-toe ------------------------------------------------------------------------------
def plain_alphabeta(game: Game, state, alpha: float, beta: float) -> float:
    """The textbook recursion, nothing else: no counting, no paths, no trace."""
    if game.is_terminal(state):
        return game.utility(state)
    if game.turn(state) is Player.MAX:
        v = -INF
        for move in game.moves(state):
            v = max(v, plain_alphabeta(game, game.result(state, move), alpha, beta))
            if v >= beta:
                return v
            alpha = max(alpha, v)
        return v
    v = INF
    for move in game.moves(state):
        v = min(v, plain_alphabeta(game, game.result(state, move), alpha, beta))
        if v <= alpha:
            return v
        beta = min(beta, v)
    return v


def openspiel_style_alphabeta(game: Game, state, depth: int, alpha: float, beta: float):
    """OpenSpiel's ``_alpha_beta`` (python/algorithms/minimax.py), re-implemented over the
    course's Game interface: returns (value, best move), updates alpha/beta *before*
    testing ``alpha >= beta``, and keeps a depth budget.  Not OpenSpiel's code."""
    if game.is_terminal(state):
        return game.utility(state), None
    if depth == 0:
        raise NotImplementedError("depth budget exhausted")
    best_action = -1
    if game.turn(state) is Player.MAX:
        value = -INF
        for action in game.moves(state):
            child_value, _ = openspiel_style_alphabeta(game, game.result(state, action), depth - 1,
                                                       alpha, beta)
            if child_value > value:
                value, best_action = child_value, action
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return value, best_action
    value = INF
    for action in game.moves(state):
        child_value, _ = openspiel_style_alphabeta(game, game.result(state, action), depth - 1,
                                                   alpha, beta)
        if child_value < value:
            value, best_action = child_value, action
        beta = min(beta, value)
        if alpha >= beta:
            break
    return value, best_action


def first_and_best(fn, repeat: int, reset=None) -> tuple[float, float, object]:
    """(first run, best of ``repeat`` runs, result); ``reset()`` runs before the first."""
    if reset is not None:
        reset()
    start = time.perf_counter()
    result = fn()
    first = time.perf_counter() - start
    best, result = best_time(fn, repeat)
    return first, min(first, best), result


def _cold_tictactoe() -> None:
    """Forget every tic-tac-toe board the course's game has worked out (its first search)."""
    from course.games import tictactoe

    tictactoe._BOARDS.clear()
    tictactoe._winner.cache_clear()


def bench_openspiel(repeat: int) -> tuple[list[list[str]], str]:
    """Rows: search, solver, nodes, first run, best, ours / OpenSpiel (best), value."""
    from course.games import TicTacToe

    game = TicTacToe()
    root = game.initial_state()
    rows: list[list[str]] = []
    try:
        from course.games import openspiel

        have = openspiel.available()
    except ImportError:
        have = False
    note = "" if have else f"OpenSpiel rows left out: {openspiel.missing_reason()}"
    theirs: dict[str, float] = {}
    if have:
        import pyspiel
        from open_spiel.python.algorithms import minimax as os_minimax

        spiel_ttt = pyspiel.load_game("tic_tac_toe")
        adapter = openspiel.OpenSpielGame("tic_tac_toe")
        for name, fn, algorithm in (
                ("minimax", lambda: os_minimax.expectiminimax(spiel_ttt.new_initial_state(), 9, None, 0),
                 "expectiminimax"),
                ("alpha-beta", lambda: os_minimax.alpha_beta_search(spiel_ttt), "alpha_beta")):
            first, best, (value, _) = first_and_best(fn, repeat)
            theirs[name] = best
            count = openspiel.openspiel_search(adapter, algorithm)
            label = {"alpha_beta": "alpha_beta_search"}.get(algorithm, algorithm)
            theirs[name + " row"] = [name, f"OpenSpiel {label}, its C++ tic-tac-toe",
                                     f"{count.nodes:,}", f"{first:.3f}", f"{best:.3f}", "1.00",
                                     f"{value}"]

    def row(name, solver, fn, reset=None, nodes=None):
        first, best, result = first_and_best(fn, repeat, reset)
        count = nodes(result) if nodes else result.expanded + result.evaluated
        value = result.value if hasattr(result, "value") else result
        ratio = f"{best / theirs[name]:.2f}" if name in theirs else "-"
        rows.append([name, solver, f"{count:,}" if count is not None else "-", f"{first:.3f}",
                     f"{best:.3f}", ratio, f"{value}"])

    row("minimax", "course minimax, course TicTacToe", lambda: minimax(game), _cold_tictactoe)
    if have:
        row("minimax", "course minimax, OpenSpiel's game (adapter)", lambda: minimax(adapter))
        rows.append(theirs["minimax row"])
    row("alpha-beta", "course alphabeta, course TicTacToe", lambda: alphabeta(game), _cold_tictactoe)
    row("alpha-beta", "plain recursive alpha-beta, course TicTacToe",
        lambda: plain_alphabeta(game, root, -INF, INF), nodes=lambda r: None)
    row("alpha-beta", "OpenSpiel's algorithm re-implemented, course TicTacToe",
        lambda: openspiel_style_alphabeta(game, root, 30, -INF, INF)[0], nodes=lambda r: None)
    if have:
        row("alpha-beta", "course alphabeta, OpenSpiel's game (adapter)", lambda: alphabeta(adapter))
        rows.append(theirs["alpha-beta row"])
        # chance: OpenSpiel's Pig, the same tree for both
        pig = openspiel.OpenSpielGame("pig", {"winscore": 5, "horizon": 8})
        pig_floats = openspiel.OpenSpielGame("pig", {"winscore": 5, "horizon": 8}, exact=False)
        first, best, value = first_and_best(
            lambda: openspiel.openspiel_search(pig, count=False).value, repeat)
        theirs["pig"] = best
        count = openspiel.openspiel_search(pig)
        row("pig", "course expectimax, exact fractions (adapter)", lambda: expectimax(pig))
        row("pig", "course expectimax, OpenSpiel's floats (adapter)", lambda: expectimax(pig_floats))
        row("pig", "course star1, OpenSpiel's floats (adapter)", lambda: star1(pig_floats))
        rows.append(["pig", "OpenSpiel expectiminimax", f"{count.nodes:,}", f"{first:.3f}",
                     f"{best:.3f}", "1.00", f"{value}"])
        # depth-limited: connect four, alpha-beta to depth 5 with the same evaluation
        evaluate = openspiel.open_lines_evaluation(4)
        c4 = openspiel.OpenSpielGame("connect_four", evaluate=evaluate)
        first, best, value = first_and_best(
            lambda: openspiel.openspiel_search(c4, "alpha_beta", depth=5, count=False).value, repeat)
        theirs["connect four"] = best
        count = openspiel.openspiel_search(c4, "alpha_beta", depth=5)
        row("connect four", "course alphabeta(depth=5) (adapter)", lambda: alphabeta(c4, depth=5))
        rows.append(["connect four", "OpenSpiel alpha_beta_search(maximum_depth=5)", f"{count.nodes:,}",
                     f"{first:.3f}", f"{best:.3f}", "1.00", f"{value}"])
    return rows, note


# -- 3. explorer latency ---------------------------------------------------------------------------
def bench_explorer(repeat: int) -> str:
    try:
        from course.widgets import epsilon_explorer
    except Exception as exc:  # noqa: BLE001 - any import problem means "not available"
        return f"not available ({type(exc).__name__}: {exc})"
    try:
        explorer = epsilon_explorer(branching=3, depth=4, seed=1)
        top = explorer.epsilon.max
        values = [top * k / 10 for k in range(1, 11)]
        times = []
        for _ in range(repeat):
            for v in values:
                start = time.perf_counter()
                explorer.epsilon.value = v          # observers redraw synchronously
                times.append(time.perf_counter() - start)
        return (f"epsilon explorer (b=3, d=4 tree, {len(times)} slider moves): median "
                f"{1000 * statistics.median(times):.0f} ms, max {1000 * max(times):.0f} ms "
                "from slider value to new SVG")
    except Exception as exc:  # noqa: BLE001
        return f"not available ({type(exc).__name__}: {exc})"


# -- 4. autograding --------------------------------------------------------------------------------
def bench_grading_script(quick: bool, students: int) -> str | None:
    """Run the grading benchmark of ``course.grading``'s authors, if it is there: the same class
    graded with 1, 2, ... workers (up to the machine's cores), then the cluster path's cost per
    job against the local pool's (``bench_cluster.py``, where Dask is installed)."""
    script = Path(__file__).with_name("bench_autograde.py")
    if not script.is_file():
        return None
    import re
    import subprocess

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    lines, rows = [], []
    for workers in sorted({1, *range(2, cores + 1)}) if not quick else [1]:
        command = [sys.executable, str(script), "--students", "1" if quick else str(students),
                   "--jobs", str(workers)]
        if quick:
            command += ["--assignment", "a1_minimax"]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"not available (bench_autograde.py failed: {last})"
        out = done.stdout.strip().splitlines()
        lines += out
        head = re.search(r"(\d+) submissions, .*load average ([\d.]+) .*: ([\d.]+) s wall", out[0])
        cpu = re.search(r"([\d.]+) s per submission", out[1]) if len(out) > 1 else None
        if head and cpu:
            n, wall = int(head.group(1)), float(head.group(3))
            rows.append([str(workers), str(n), f"{wall:.1f}", f"{n / wall:.2f}", cpu.group(1),
                         head.group(2), "yes" if "every score as expected" in done.stdout else "NO"])
    result = "(tests/benchmarks/bench_autograde.py, a mixed class: model answers, stubs, hostile)\n"
    if rows:
        result += table(["workers", "submissions", "wall s", "submissions/s", "CPU s each",
                         "load before", "scores as expected"], rows) + "\n"
    result += "\n".join("  " + line for line in lines)
    cluster = Path(__file__).with_name("bench_cluster.py")
    if quick or not cluster.is_file():
        return result
    try:
        import distributed  # noqa: F401
    except ImportError:
        return result + "\n  cluster path: not available (pip install -e '.[cluster]')"
    done = subprocess.run([sys.executable, str(cluster), "--students", "40", "--workers",
                           str(min(2, cores))], capture_output=True, text=True, cwd=ROOT)
    tail = done.stdout.strip().splitlines() if done.returncode == 0 else \
        [f"not available (bench_cluster.py failed: {(done.stderr.strip().splitlines() or ['?'])[-1]})"]
    return result + "\n  cluster path against the local pool (tests/benchmarks/bench_cluster.py):\n" + \
        "\n".join("  " + line for line in tail)


def bench_grading(assignments: int) -> str:
    try:
        from course.grading.autograde import autograde
    except Exception as exc:  # noqa: BLE001
        return f"not available ({type(exc).__name__}: {exc})"
    if not (ROOT / "exercises").is_dir() or not (ROOT / "nbgrader_config.py").is_file():
        return "not available (no exercises/ or nbgrader_config.py in the repository)"
    names = sorted(p.name for p in (ROOT / "exercises").iterdir() if p.is_dir())[:assignments]
    if not names:
        return "not available (no released assignments)"
    with tempfile.TemporaryDirectory() as tmp:
        course = Path(tmp) / "course"
        course.mkdir()
        shutil.copy(ROOT / "nbgrader_config.py", course)
        for folder in ("solutions", "exercises"):
            if (ROOT / folder).is_dir():
                shutil.copytree(ROOT / folder, course / folder)
        for name in names:
            shutil.copytree(ROOT / "exercises" / name, course / "submitted" / "bench-student" / name)
        try:
            start = time.perf_counter()
            records = []
            for name in names:
                records += list(autograde(course, assignment=name) or [])
            seconds = time.perf_counter() - start
        except Exception as exc:  # noqa: BLE001
            return f"not available ({type(exc).__name__}: {exc})"
    count = max(1, len(records))
    return (f"{seconds / count:.1f} s per submission ({count} submissions: the released "
            f"{', '.join(names)} submitted unchanged)")


# -- output -----------------------------------------------------------------------------------------
def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repetition, smaller budgets")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions; the best time counts")
    parser.add_argument("--budget", type=int, default=120_000,
                        help="largest traced run done in full (nodes)")
    parser.add_argument("--skip-grading", action="store_true", help="skip the autograding benchmark")
    parser.add_argument("--grading-students", type=int, default=84,
                        help="students of the autograding benchmark's class (6 submissions each; "
                             "84: the 500 submissions of issue 32)")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else max(1, args.repeat)
    budget = 30_000 if args.quick else args.budget

    print("Machine:", machine())
    print()
    print("1. Reference searches on RT(b=4, d=9, seed 0); nodes = expanded + evaluated, "
          f"best of {repeat}")
    print(table(["search", "nodes", "seconds", "nodes/s trace off", "nodes/s trace on",
                 "trace cost", "fast path nodes/s (speed-up)", "note"],
                bench_searches(repeat, budget)))
    print()
    print(f"2. The course against OpenSpiel (first run, and best of {repeat}); "
          "ratio = our best time / OpenSpiel's best time for the same search")
    rows, note = bench_openspiel(repeat)
    print(table(["search", "solver", "nodes", "first s", "best s", "ours / OpenSpiel", "value"], rows))
    if note:
        print("  " + note)
    print()
    print("3. Explorer latency:", bench_explorer(1 if args.quick else 2))
    print()
    if args.skip_grading:
        print("4. Autograding: skipped (--skip-grading)")
    else:
        print("4. Autograding:", bench_grading_script(args.quick, args.grading_students)
              or bench_grading(1 if args.quick else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
