"""Alpha-beta's cost against move ordering: leaves evaluated vs depth, and the textbook formulas.

On random trees (:func:`course.games.random_trees.random_tree`) the reference
:func:`course.search.alphabeta` runs with each move ordering of
:mod:`course.search.ordering`, and the leaves it evaluates are compared with

* ``b**ceil(d/2) + b**floor(d/2) - 1``, the exact count with perfect ordering
  (Knuth & Moore 1975), :func:`course.theory.best_case_leaves`;
* ``b**(3d/4)``, the lecture notes' rough size for random ordering,
  :func:`course.theory.random_order_estimate`;
* ``b**d``, every leaf (minimax, and alpha-beta with the worst ordering),
  :func:`course.theory.full_tree_leaves`.

The ``"heuristic"`` ordering needs an evaluation function at inner nodes,
which random trees do not have, so it is not part of this experiment.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from ..games.random_trees import random_tree
from ..search import alphabeta
from ..theory import best_case_leaves, full_tree_leaves, random_order_estimate
from .common import (ExperimentOutput, Progress, derive_seed, format_table, new_figure,
                     parallel_map, save_figure, write_csv)

__all__ = ["run_alphabeta_ordering", "ORDERS"]

ORDERS = ("best-first", "given", "random", "worst-first")
"""The orderings compared (``given`` is the tree's own, random, order)."""


def _task(task: tuple) -> list[dict]:
    b, d, instance, seed, orders = task
    game = random_tree(b, d, seed=seed)
    rows = []
    for order in orders:
        r = alphabeta(game, order=order, seed=seed)
        rows.append({"branching": b, "depth": d, "instance": instance, "seed": seed,
                     "ordering": order, "evaluated": r.evaluated, "expanded": r.expanded,
                     "value": float(r.value)})
    return rows


def run_alphabeta_ordering(*, out: Path, branching: int = 4, depths=tuple(range(1, 8)),
                           instances: int = 20, orders=ORDERS, seed: int = 0, jobs: int = 1,
                           quiet: bool = False) -> ExperimentOutput:
    """Leaves alpha-beta evaluates vs depth, per move ordering, against the formulas.

    Parameters
    ----------
    out : Path
        Output folder: ``alphabeta-ordering.csv`` (one row per search),
        ``alphabeta-ordering-summary.csv`` and ``alphabeta-ordering.png``.
    branching : int
        ``b`` of the random trees.
    depths : sequence of int
        Tree depths.
    instances : int
        Random trees per depth.
    orders : sequence of str
        Move orderings (names of :data:`course.search.ORDERINGS`).
    seed : int
        Master seed (trees and the random ordering).
    jobs, quiet
        Worker processes; no progress lines.

    Returns
    -------
    ExperimentOutput
        ``summary["mean"][(ordering, depth)]`` is the mean number of leaves
        evaluated; ``summary["best_case_exact"]`` says whether best-first
        matched ``b**ceil(d/2) + b**floor(d/2) - 1`` on every tree.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     o = run_alphabeta_ordering(out=pathlib.Path(tmp), branching=3, depths=(2, 3),
    ...                                instances=2, quiet=True)
    >>> o.summary["mean"]["best-first", 3], o.summary["mean"]["worst-first", 3]
    (11.0, 27.0)
    """
    depths = sorted(set(depths))
    tasks = [(branching, d, i, derive_seed(seed, branching, d, i), tuple(orders))
             for d in depths for i in range(instances)]
    progress = Progress("alphabeta-ordering", len(tasks), enabled=not quiet)
    rows = [row for part in parallel_map(_task, tasks, jobs=jobs, progress=progress) for row in part]
    groups: dict[tuple, list[int]] = defaultdict(list)
    for row in rows:
        groups[row["ordering"], row["depth"]].append(row["evaluated"])
    summary_rows = []
    for d in depths:
        formulas = {"best_case": best_case_leaves(branching, d),
                    "b^(3d/4)": random_order_estimate(branching, d),
                    "b^d": full_tree_leaves(branching, d)}
        for order in orders:
            values = groups[order, d]
            summary_rows.append({"ordering": order, "depth": d, "instances": len(values),
                                 "mean_evaluated": float(np.mean(values)),
                                 "min_evaluated": int(min(values)), "max_evaluated": int(max(values)),
                                 **formulas})
    best_exact = all(row["evaluated"] == best_case_leaves(branching, row["depth"])
                     for row in rows if row["ordering"] == "best-first")
    worst_full = all(row["evaluated"] == full_tree_leaves(branching, row["depth"])
                     for row in rows if row["ordering"] == "worst-first")
    files = [write_csv(out / "alphabeta-ordering.csv", rows),
             write_csv(out / "alphabeta-ordering-summary.csv", summary_rows)]

    fig, (ax,) = new_figure(1, 1, width=6.0, height=4.4)
    for order in orders:
        ax.plot(depths, [np.mean(groups[order, d]) for d in depths], marker="o", label=order)
    ax.plot(depths, [best_case_leaves(branching, d) for d in depths], "k--", lw=1,
            label="b^ceil(d/2) + b^floor(d/2) - 1")
    ax.plot(depths, [random_order_estimate(branching, d) for d in depths], "k-.", lw=1,
            label="b^(3d/4)")
    ax.plot(depths, [full_tree_leaves(branching, d) for d in depths], "k:", lw=1, label="b^d")
    ax.set_yscale("log")
    ax.set(xlabel="depth d", ylabel="leaves evaluated (mean)",
           title=f"alpha-beta on random trees, b={branching}, {instances} trees per depth")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    files.append(save_figure(fig, out / "alphabeta-ordering.png"))

    table = format_table(
        ["d"] + list(orders) + ["best case", "b^(3d/4)", "b^d"],
        [[d] + [float(np.mean(groups[o, d])) for o in orders]
         + [best_case_leaves(branching, d), random_order_estimate(branching, d),
            full_tree_leaves(branching, d)] for d in depths],
        title=f"alphabeta-ordering: mean leaves evaluated, b={branching}, {instances} trees per depth",
    )
    table += (f"\nbest-first == b^ceil(d/2) + b^floor(d/2) - 1 on every tree: {best_exact}"
              f"\nworst-first evaluated all b^d leaves on every tree: {worst_full} (deep cut-offs "
              "can still happen below a worst-first root)")
    return ExperimentOutput(
        name="alphabeta-ordering", files=files, table=table,
        summary={"mean": {(o, d): float(np.mean(groups[o, d])) for o in orders for d in depths},
                 "best_case_exact": best_exact, "worst_is_full": worst_full},
    )
