"""Latency of an explorer's redraw: ε slider changes on a 341-node random tree (b = 4, d = 4).

Run it (not collected by pytest)::

    .venv/bin/python tests/benchmarks/bench_explorer.py [--changes 60] [--max-nodes 120]

Each change sets ``explorer.epsilon.value`` as the browser would; the widget
re-runs Bounded Alpha-Beta with a trace, builds the picture and lays it out
with the Graphviz engine (``graphviz-pure``), and replaces its HTML panes.
The script prints p50 / p95 / max of the whole change (wall time, and CPU
time, which other programs sharing the machine do not inflate), then the same
split into search, DOT building and layout, and the layout cost of drawing all
341 nodes for comparison.  The budget is 50 ms p95; this is a measurement, not a
test, so it never fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from course.draw import draw_tree, find_engine  # noqa: E402
from course.search import bab  # noqa: E402
from course.widgets import epsilon_explorer  # noqa: E402


def cpu_time() -> float:
    """CPU seconds used by this process and its finished children (the layout engine).

    Unlike wall time it does not grow when other programs share the CPUs.
    NaN where the ``resource`` module is missing (Windows).
    """
    try:
        import resource
    except ImportError:
        return float("nan")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def percentile(samples: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by nearest rank."""
    ordered = sorted(samples)
    rank = max(1, round(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(name: str, samples: list[float]) -> str:
    ms = [1000 * s for s in samples]
    return (f"{name:<34s} p50 {statistics.median(ms):6.1f} ms   p95 {percentile(ms, 95):6.1f} ms"
            f"   max {max(ms):6.1f} ms   (n = {len(ms)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=60, help="slider changes to time (default 60)")
    parser.add_argument("--max-nodes", type=int, default=120,
                        help="the explorer's drawing size (default 120, the explorer's default)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random tree")
    args = parser.parse_args(argv)

    explorer = epsilon_explorer(branching=4, depth=4, seed=args.seed, max_nodes=args.max_nodes)
    game = explorer.game
    kind, program = find_engine()
    print(f"tree: RT b=4 d=4, {game.root.size} nodes; engine: {kind} ({program})")
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
          f"drawing at most {args.max_nodes} nodes")

    values = [5.0 * (i % 13) for i in range(1, args.changes + 2)]   # 5, 10, ..., 60, 0, 5, ...
    explorer.epsilon.value = values[0]                                 # warm-up
    changes, cpu = [], []
    for value in values[1:]:
        start, cpu_start = time.perf_counter(), cpu_time()
        explorer.epsilon.value = value
        changes.append(time.perf_counter() - start)
        cpu.append(cpu_time() - cpu_start)
    assert explorer.error == "", explorer.error

    search, build, layout, full_layout = [], [], [], []
    for value in values[1:]:
        t0 = time.perf_counter()
        result = bab(game, epsilon=value, trace=True)
        t1 = time.perf_counter()
        picture = draw_tree(game, result, max_nodes=args.max_nodes)
        t2 = time.perf_counter()
        picture.svg()
        t3 = time.perf_counter()
        search.append(t1 - t0)
        build.append(t2 - t1)
        layout.append(t3 - t2)
    for value in values[1:1 + max(5, args.changes // 4)]:
        picture = draw_tree(game, bab(game, epsilon=value, trace=True), max_nodes=400)
        t0 = time.perf_counter()
        picture.svg()
        full_layout.append(time.perf_counter() - t0)

    print(summary("slider change (search + redraw)", changes))
    if cpu[0] == cpu[0]:   # not NaN: CPU time is measurable here
        print(summary("  the same, CPU time (this + engine)", cpu))
    print(summary("  BAB search with trace", search))
    print(summary("  draw_tree (DOT text)", build))
    print(summary("  layout to SVG", layout))
    print(summary("layout of all 341 nodes", full_layout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
