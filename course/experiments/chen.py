"""Chen's decision-error simulation: Tables 1-4 of *A Study of Decision Error in Selective Game Tree Search*.

One *simulation* is one node of height ``h1`` in a random tree of height
``h`` (:class:`course.games.chen.ChenTree`): the selective search of depth
``d`` and skip ``s`` picks a move there, and the *decision error* is how many
points worse that move's game-theoretic value is than the best move's, from
the mover's side.  Errors are averaged over the simulations for every
``(d, s)`` with a 95% confidence interval, and the nodes each search
generates are counted (they are the same in every simulation).

All ``b**(h - h1)`` nodes of height ``h1`` of a tree are used as simulations:
their subtrees are disjoint, so their arcs are independent, and the arcs above
them only shift EVAL by a constant that changes no decision.  Every ``(d, s)``
is run on the same nodes (common random numbers), which makes the differences
between cells sharper than independent runs would.

References
----------
K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search* (seed 003),
sections 3 and 4, Tables 1-4, Figures 1 and 2.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np

from ..errors import ParameterError
from ..games.chen import ChenTree, ChenTreeTop, selective_sweep
from ..theory import nodes_generated
from .common import (ExperimentOutput, Progress, derive_seed, format_table, mean_ci,
                     new_figure, parallel_map, save_figure, write_csv)
from .paper import CHEN_CASES, CHEN_ERRORS, CHEN_NODE_TABLE, CHEN_NODE_VALUE, CHEN_NODES

__all__ = ["run_chen", "simulate", "paper_simulations", "paired_difference"]


def paper_simulations(table: str) -> int:
    """The largest number of simulations a table's printed digits allow.

    Each error is a mean of integers over ``N`` simulations, so every entry
    is a multiple of ``1/N``; this returns ``1000`` divided by the largest
    step (in thousandths) that divides every entry.  For Table 1 that is just
    its printed precision: any number printed with three decimals is a
    multiple of 1/1000, which says nothing about ``N`` (the text says "at
    least 1000").  Every entry of Table 3 is a multiple of 0.005, which
    three-decimal means would rarely all be by chance: Table 3 looks like
    means over 200 simulations.

    >>> paper_simulations("table1"), paper_simulations("table3")
    (1000, 200)
    """
    entries = [Fraction(str(x)) for x in CHEN_ERRORS[table].values()]
    step = reduce(math.gcd, (int(x * 1000) for x in entries if x))
    return 1000 // step


def paired_difference(deep, shallow) -> tuple[float, float]:
    """Mean and standard error of ``deep - shallow``, decision by decision.

    Every ``(d, s)`` of :func:`simulate` decides at the same nodes, so two
    cells are compared on their differences node by node: the noise the two
    share (a hard node is hard at every depth) cancels, and the standard error
    of the difference is smaller than the two cells' own would suggest.

    Parameters
    ----------
    deep, shallow : array of numbers
        Decision errors at the same nodes, in the same order.

    Returns
    -------
    (float, float)
        The mean difference and its standard error (``nan`` for one decision).

    Examples
    --------
    >>> paired_difference([1, 0, 2, 1], [1, 1, 2, 2])
    (-0.5, 0.28867513459481287)
    """
    diff = np.asarray(deep, dtype=float) - np.asarray(shallow, dtype=float)
    if diff.shape != np.shape(shallow) or diff.ndim != 1 or diff.size == 0:
        raise ParameterError("paired_difference needs two equally long, non-empty rows of errors")
    se = float(diff.std(ddof=1) / math.sqrt(diff.size)) if diff.size > 1 else math.nan
    return float(diff.mean()), se


def _tree_task(task: tuple) -> dict:
    """One tree: every node of height h1 (up to ``count``), every (d, s)."""
    b, h, h1, max_arc, seed, count, depths, skips, last_level = task
    tree = (ChenTreeTop if last_level == "max" else ChenTree)(b, h, max_arc=max_arc, seed=seed)
    roots = tree.nodes_at_height(h1)[:count]
    outcomes = selective_sweep(tree, roots, depths=depths, skips=skips)
    return {
        "errors": {key: o.errors for key, o in outcomes.items()},
        "nodes": {key: o.nodes for key, o in outcomes.items()},
        "values": tree.values[roots].astype(np.int64),
        "evals": tree.evals[roots].astype(np.int64),
    }


def simulate(b: int, h: int, h1: int, *, simulations: int, depths=None, skips=None,
             max_arc: int = 9, seed: int = 0, jobs: int = 1, quiet: bool = True,
             label: str = "chen", last_level: str = "arcs") -> dict:
    """Run Chen's simulation for one ``(b, h, h1)`` case.

    Parameters
    ----------
    b, h, h1 : int
        Branching factor, tree height, height of the decision node (``1 <= h1 <= h``).
    simulations : int
        Number of decision nodes (``N``).
    depths : iterable of int, optional
        Search depths; default ``1 .. h1``.
    skips : iterable of int, optional
        Skip numbers; default ``0 .. b-2`` (Chen's range).
    max_arc : int
        Arc gains are ``0 .. max_arc`` (Chen: 9).
    seed : int
        Master seed; tree ``t`` uses ``derive_seed(seed, b, h, h1, t)``.
    jobs : int
        Worker processes.
    quiet : bool
        No progress lines.
    label : str
        Progress label.
    last_level : {"arcs", "max"}
        ``"arcs"`` draws every leaf's arc (:class:`~course.games.chen.ChenTree`, Chen's
        trees as he describes them); ``"max"`` draws, for each node above the leaves,
        only the largest of its leaf arcs, from that maximum's exact distribution
        (:class:`~course.games.chen.ChenTreeTop`): the decision errors have the same
        distribution, the trees cost ``b`` times fewer random numbers, but they are
        other trees (other numbers for the same seed).  ``"max"`` needs ``h1 >= 2``.

    Returns
    -------
    dict
        ``"errors"``: ``(d, s) -> array`` of the N decision errors;
        ``"nodes"``: ``(d, s) -> nodes generated per search``;
        ``"values"``, ``"evals"``: ``v`` and EVAL of the N decision nodes;
        ``"trees"``: how many trees were generated.

    Raises
    ------
    ParameterError
        For an impossible case (``h1 > h``, a depth beyond the leaves, ...).

    Examples
    --------
    >>> out = simulate(3, 4, 3, simulations=6, depths=[1, 3], skips=[0, 1])
    >>> out["nodes"][3, 1], len(out["errors"][1, 0]), out["trees"]
    (15, 6, 2)
    >>> bool((out["errors"][3, 0] == 0).all())     # a full-depth full-width search is exact
    True
    >>> fast = simulate(3, 4, 3, simulations=6, depths=[1, 3], skips=[0, 1], last_level="max")
    >>> fast["nodes"] == out["nodes"], bool((fast["errors"][3, 0] == 0).all())
    (True, True)
    """
    for name, value, least in (("b", b, 2), ("h", h, 1), ("h1", h1, 1), ("simulations", simulations, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ParameterError(f"{name} must be an integer >= {least}, got {value!r}")
    if h1 > h:
        raise ParameterError(f"the node height h1={h1} cannot exceed the tree height h={h}")
    if last_level not in ("arcs", "max"):
        raise ParameterError(f"last_level must be 'arcs' or 'max', got {last_level!r}")
    if last_level == "max" and h1 < 2:
        raise ParameterError("last_level='max' keeps no leaves: it needs decision nodes of height h1 >= 2")
    depths = list(range(1, h1 + 1)) if depths is None else sorted(set(depths))
    skips = list(range(0, max(1, b - 1))) if skips is None else sorted(set(skips))
    per_tree = b ** (h - h1)
    trees = -(-simulations // per_tree)
    tasks = [(b, h, h1, max_arc, derive_seed(seed, b, h, h1, t),
              min(per_tree, simulations - t * per_tree), depths, skips, last_level) for t in range(trees)]
    progress = Progress(label, len(tasks), enabled=not quiet)
    parts = parallel_map(_tree_task, tasks, jobs=jobs, progress=progress)
    nodes = parts[0]["nodes"]
    for part in parts[1:]:
        if part["nodes"] != nodes:  # pragma: no cover - would be a bug in selective_sweep
            raise AssertionError("node counts differ between simulations")
    return {
        "errors": {key: np.concatenate([p["errors"][key] for p in parts]) for key in nodes},
        "nodes": nodes,
        "values": np.concatenate([p["values"] for p in parts]),
        "evals": np.concatenate([p["evals"] for p in parts]),
        "trees": trees,
    }


def _plot(results: list[tuple[str, tuple, dict]], path: Path) -> Path:
    fig, axes = new_figure(len(results), 1, width=5.4, height=4.2)
    for ax, (table, (b, h, h1), sim) in zip(axes, results):
        paper = CHEN_ERRORS.get(table, {}) if table else {}
        skips = sorted({s for _, s in sim["nodes"]})
        for s in skips:
            keys = sorted(k for k in sim["nodes"] if k[1] == s)
            x = [math.log10(sim["nodes"][k]) for k in keys]
            stats = [mean_ci(sim["errors"][k]) for k in keys]
            line = ax.errorbar(x, [m for m, _ in stats], yerr=[0 if math.isnan(c) else c for _, c in stats],
                               marker="o", ms=3, capsize=2, label=f"s={s}")
            if paper:
                px = [math.log10(CHEN_NODES[CHEN_NODE_TABLE[table]][k]) for k in keys if k in paper]
                ax.plot(px, [paper[k] for k in keys if k in paper], ls=":", marker="x", ms=4,
                        color=line.lines[0].get_color())
        ax.set(xlabel="log10(nodes generated per search)", ylabel="average decision error (points)",
               title=f"b={b}, h={h}, h1={h1}, N={len(next(iter(sim['errors'].values())))}"
                     + (" (dotted: Chen)" if paper else ""))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("Chen's selective search: decision error vs effort")
    return save_figure(fig, path)


def run_chen(*, out: Path, cases=None, simulations: int | dict | None = None, max_arc: int = 9,
             depths=None, skips=None, seed: int = 0, jobs: int = 1,
             quiet: bool = False, last_level: str = "arcs") -> ExperimentOutput:
    """Chen's Tables 1-4: decision errors and node counts of selective search.

    Parameters
    ----------
    out : Path
        Output folder: ``chen.csv`` (one row per case and (d, s)) and ``chen.png``.
    cases : list, optional
        ``"table1"``, ``"table3"`` or ``(b, h, h1)`` tuples; default both tables.
    simulations : int or dict, optional
        Simulations per case (or a dict ``case -> count``); default the number
        each table's precision implies (:func:`paper_simulations`: 1000 and
        200), and 1000 for other cases.
    max_arc, depths, skips, seed, jobs, quiet, last_level
        As for :func:`simulate`.

    Returns
    -------
    ExperimentOutput
        ``summary[case]`` holds ``"errors"`` (``(d, s) -> (mean, ci)``),
        ``"nodes"``, ``"nodes_match"`` (counted == the paper's table, or None),
        ``"within_ci"`` (share of the paper's errors inside our 95% interval),
        ``"node_value"`` (mean ``|v|`` of the decision nodes) and ``"deeper"``
        (``s -> (mean, standard error)`` of the paired difference between the
        errors at the deepest depth and at the middle one, :func:`paired_difference`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     o = run_chen(out=pathlib.Path(tmp), cases=[(3, 4, 3)], simulations=12, quiet=True)
    ...     [f.name for f in o.files]
    ['chen.csv', 'chen.png']
    >>> o.summary["b3-h4-h1_3"]["nodes"][3, 0]
    40
    """
    cases = ["table1", "table3"] if cases is None else list(cases)
    rows, results, summary, text = [], [], {}, []
    for case in cases:
        if isinstance(case, str):
            if case not in CHEN_CASES:
                raise ParameterError(f"unknown Chen case {case!r}; use table1, table3 or (b, h, h1)")
            table, (b, h, h1) = case, CHEN_CASES[case]
            name = case
        else:
            table, (b, h, h1) = None, tuple(int(x) for x in case)
            name = f"b{b}-h{h}-h1_{h1}"
        n = simulations.get(case) if isinstance(simulations, dict) else simulations
        if n is None:
            n = paper_simulations(table) if table else 1000
        sim = simulate(b, h, h1, simulations=n, depths=depths, skips=skips, max_arc=max_arc,
                       seed=seed, jobs=jobs, quiet=quiet, label=f"chen {name}",
                       last_level=last_level if h1 >= 2 else "arcs")
        paper_err = CHEN_ERRORS.get(table, {}) if table and max_arc == 9 else {}
        paper_nodes = CHEN_NODES[CHEN_NODE_TABLE[table]] if table else {}
        cell_stats, inside, compared = {}, 0, 0
        for (d, s), count in sorted(sim["nodes"].items()):
            mean, ci = mean_ci(sim["errors"][d, s])
            cell_stats[d, s] = (mean, ci)
            p = paper_err.get((d, s))
            within = None
            if p is not None:
                within = bool(abs(mean - p) <= (0 if math.isnan(ci) else ci))
                inside += within
                compared += 1
            rows.append({"case": name, "b": b, "h": h, "h1": h1, "d": d, "s": s,
                         "simulations": n, "mean_error": mean, "ci95": ci,
                         "paper_error": p, "paper_within_ci": within,
                         "nodes_counted": count, "nodes_paper": paper_nodes.get((d, s)),
                         "nodes_formula": nodes_generated(b, d, s) if s < b else None})
        nodes_match = (all(sim["nodes"][k] == v for k, v in paper_nodes.items() if k in sim["nodes"])
                       if paper_nodes else None)
        values = sim["values"]
        node_value = float(np.abs(values).mean())
        d_all = sorted({d for d, _ in sim["nodes"]})
        deep, middle = d_all[-1], d_all[(len(d_all) - 1) // 2]
        deeper = {s: paired_difference(sim["errors"][deep, s], sim["errors"][middle, s])
                  for s in sorted({s for _, s in sim["nodes"]})} if deep != middle else {}
        summary[name] = {"errors": cell_stats, "nodes": dict(sim["nodes"]), "nodes_match": nodes_match,
                         "deeper": deeper,
                         "within_ci": (inside / compared) if compared else None,
                         "node_value": node_value, "mean_value": float(values.mean()),
                         "simulations": n, "trees": sim["trees"]}
        results.append((table, (b, h, h1), sim))
        d_list = sorted({d for d, _ in sim["nodes"]})
        s_list = sorted({s for _, s in sim["nodes"]})
        def cell(d, s):
            mean, ci = cell_stats[d, s]
            p = paper_err.get((d, s))
            return f"{mean:.3f}" + (f" ({p:.3f})" if p is not None else "")
        text.append(format_table(
            ["d \\ s"] + [str(s) for s in s_list],
            [[d] + [cell(d, s) for s in s_list] for d in d_list],
            title=f"chen {name}: b={b}, h={h}, h1={h1}, arcs 0..{max_arc}, N={n} "
                  f"({sim['trees']} trees{', leaf level drawn as best arcs' if last_level == 'max' and h1 >= 2 else ''}): "
                  "mean decision error" +
                  (" (Chen's value in brackets)" if paper_err else ""),
        ))
        half = max((c for _, c in cell_stats.values() if not math.isnan(c)), default=math.nan)
        text.append(f"  95% confidence half-widths up to {half:.3f} points")
        if compared:
            text.append(f"  Chen's error inside our 95% interval: {inside}/{compared} cells")
        counted = ", ".join(f"d={d}: " + "/".join(str(sim['nodes'][d, s]) for s in s_list)
                            for d in d_list[-2:])
        if nodes_match is not None:
            text.append(f"  nodes generated per search: counted == Table {'2' if table == 'table1' else '4'}"
                        f" in all {len(paper_nodes)} cells: {nodes_match}  ({counted}, ...)")
        else:
            text.append(f"  nodes generated per search ({counted}, ...)")
        reference = CHEN_NODE_VALUE.get(table) if table and max_arc == 9 else None
        if deeper:
            text.append(f"  searching deeper, decision by decision: error at d={deep} minus error at "
                        f"d={middle} (mean ± standard error): " + ", ".join(
                            f"s={s}: {m:+.3f} ± {se:.3f}" for s, (m, se) in deeper.items()))
        text.append(f"  average |v| of the decision nodes: {node_value:.2f}"
                    + (f" (Chen: {reference})" if reference is not None else "")
                    + f"; mean v {values.mean():.2f}")
    files = [write_csv(out / "chen.csv", rows), _plot(results, out / "chen.png")]
    return ExperimentOutput(name="chen", files=files, table="\n".join(text), summary=summary)
