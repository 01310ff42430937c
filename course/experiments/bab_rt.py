"""BAB on random trees: the BAB paper's Figure 4 (RT) and Figure 6a, b (stochastic RT).

For every tree and every epsilon, Bounded Alpha-Beta runs once and two
numbers are kept (Atzmon, Stern & Saffidine 2018, "Experimental Results"):

* **ER**, the expanded ratio: nodes BAB(epsilon) expanded divided by the nodes
  BAB(0) expanded on the same tree (BAB(0) is alpha-beta / Star1);
* **AMB**, the actual minimax bound: ``U - L`` at the root, at most epsilon by
  Theorem 1.

Both are averaged over the instances (the mean of the per-tree ratios).  The
ER-bin view (Figure 4c) pools every (tree, epsilon) run of one depth, sorts
them into ER bins 0-0.2, 0.2-0.4, ..., and averages AMB per bin.

Searches run on :mod:`course.experiments.fast`, whose results are identical
to :func:`course.search.bab` (``--engine reference`` uses the reference
search itself, to check that on a run).  "Expanded" is the course's count:
internal nodes (decision and chance) whose children the search began to
iterate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from ..games.random_trees import random_tree, stochastic_random_tree
from ..search import bab
from .common import (ExperimentOutput, Progress, derive_seed, format_table, mean_ci,
                     new_figure, parallel_map, save_figure, write_csv)
from .fast import fast_search
from .paper import BAB_RT_AMB_DEPTH9, BAB_RT_ER_AT_EPS32, BAB_STOCHASTIC_RT_B4

__all__ = ["run_bab_rt", "run_bab_stochastic_rt", "ER_BINS", "value_quantile", "er_bins"]

ER_BINS = (0.0, 0.2, 0.4, 0.6, 0.8)
"""Left edges of Figure 4c's ER bins; the last bin also takes ER >= 1."""

_COLUMNS = ["family", "branching", "depth", "instance", "seed", "epsilon", "expanded",
            "evaluated", "lower", "upper", "amb", "er", "er_leaves", "root_children", "root_pruned",
            "root_value"]


def _search_task(task: tuple) -> list[dict]:
    """All epsilons on one tree (a worker-process task)."""
    family, b, d, instance, seed, epsilons, engine, p = task
    if family == "rt":
        game = random_tree(b, d, seed=seed)
    else:
        game = stochastic_random_tree(b, d, seed=seed, p=p)
    rows = []
    for eps in epsilons:
        if engine == "fast":
            r = fast_search("bab", game, epsilon=eps, leaves=False)
        else:
            r = bab(game, epsilon=eps)
        rows.append({"family": family, "branching": b, "depth": d, "instance": instance,
                     "seed": seed, "epsilon": eps, "expanded": r.expanded,
                     "evaluated": r.evaluated, "lower": float(r.lower), "upper": float(r.upper),
                     "amb": float(r.upper - r.lower), "root_children": len(r.children),
                     "root_pruned": int(len(r.children) < b)})
    base = next(row for row in rows if row["epsilon"] == 0)
    for row in rows:
        row["er"] = row["expanded"] / base["expanded"]
        row["er_leaves"] = row["evaluated"] / base["evaluated"]
        row["root_value"] = base["lower"]          # exact: epsilon 0 gives lower == upper
    return rows


def value_quantile(b: int) -> float:
    """Where the value of a deep random tree concentrates, as a quantile of the leaf range.

    For uniform trees with i.i.d. continuous leaves, MAX at the bottom, the
    value of a node two levels up has CDF ``g(F) = 1 - (1 - F**b)**b`` in terms
    of its grandchildren's CDF ``F``; repeated, ``g`` drives every ``F`` to 0 or
    1 except at its fixed point ``xi`` (``g(xi) = xi``), so deep trees have
    values near the ``xi``-quantile of the leaves (Pearl 1980; Knuth & Moore
    1975 for the same recursion).  Solved here by bisection.

    >>> round(value_quantile(4), 4)
    0.7245
    """
    lo, hi = 1e-12, 1 - 1e-12
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - (1 - mid ** b) ** b < mid:   # g below the diagonal: the fixed point is above
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _run(family: str, *, sizes: list[tuple[int, int]], instances: int,
         epsilons: list[float], seed: int, engine: str, p: float, jobs: int,
         quiet: bool) -> list[dict]:
    epsilons = sorted(set([0] + list(epsilons)))
    tasks = [(family, b, d, i, derive_seed(seed, b, d, i), epsilons, engine, p)
             for (b, d) in sizes for i in range(instances)]
    label = "bab-rt" if family == "rt" else "bab-stochastic-rt"
    progress = Progress(label, len(tasks), enabled=not quiet)
    return [row for rows in parallel_map(_search_task, tasks, jobs=jobs, progress=progress)
            for row in rows]


def _summarise(rows: list[dict], key: str) -> list[dict]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row[key], row["epsilon"]].append(row)
    out = []
    for (k, eps), group in sorted(groups.items()):
        er, er_ci = mean_ci([r["er"] for r in group])
        amb, amb_ci = mean_ci([r["amb"] for r in group])
        out.append({key: k, "epsilon": eps, "instances": len(group), "er": er, "er_ci95": er_ci,
                    "er_leaves": float(np.mean([r["er_leaves"] for r in group])),
                    "amb": amb, "amb_ci95": amb_ci, "max_amb": max(r["amb"] for r in group),
                    "expanded": float(np.mean([r["expanded"] for r in group])),
                    "root_pruned": float(np.mean([r["root_pruned"] for r in group])),
                    "root_value": float(np.mean([r["root_value"] for r in group]))})
    return out


def _non_monotonic(rows: list[dict], key: str) -> int:
    """Runs that expanded more nodes than the same tree at the previous epsilon (Figure 3)."""
    by_tree: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        by_tree[row[key], row["instance"]].append(row)
    count = 0
    for group in by_tree.values():
        group.sort(key=lambda r: r["epsilon"])
        count += sum(1 for a, c in zip(group, group[1:]) if c["expanded"] > a["expanded"])
    return count


def er_bins(rows: list[dict]) -> list[dict]:
    """Figure 4c: AMB averaged over the runs whose ER falls in each bin."""
    out = []
    for i, left in enumerate(ER_BINS):
        right = ER_BINS[i + 1] if i + 1 < len(ER_BINS) else math.inf
        members = [r["amb"] for r in rows if left <= r["er"] < right]
        amb, ci = mean_ci(members)
        out.append({"bin": f"{left:.1f}-{right:.1f}" if right < math.inf else f"{left:.1f}+",
                    "runs": len(members), "amb": amb, "amb_ci95": ci})
    return out


def _plot(summary: list[dict], key: str, bins: list[dict] | None, path: Path, *, title: str,
          bin_label: str = "") -> Path:
    panels = 3 if bins is not None else 2
    fig, axes = new_figure(panels, 1, width=4.6)
    series = sorted({row[key] for row in summary})
    for k in series:
        rows = [r for r in summary if r[key] == k]
        eps = [r["epsilon"] for r in rows]
        axes[0].errorbar(eps, [r["er"] for r in rows], yerr=[r["er_ci95"] for r in rows],
                         marker="o", ms=3, capsize=2, label=f"{key} {k}")
        axes[1].errorbar(eps, [r["amb"] for r in rows], yerr=[r["amb_ci95"] for r in rows],
                         marker="o", ms=3, capsize=2, label=f"{key} {k}")
    top = max(r["epsilon"] for r in summary)
    axes[1].plot([0, top], [0, top], "k:", lw=1, label="AMB = epsilon")
    axes[0].set(xlabel="epsilon", ylabel="ER (expanded / expanded at epsilon 0)",
                title="(a) expanded ratio")
    axes[1].set(xlabel="epsilon", ylabel="AMB (U - L at the root)", title="(b) actual bound")
    for ax in axes[:2]:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if bins is not None:
        axes[2].bar([b["bin"] for b in bins], [0 if b["runs"] == 0 else b["amb"] for b in bins],
                    yerr=[0 if not b["runs"] or math.isnan(b["amb_ci95"]) else b["amb_ci95"]
                          for b in bins], capsize=3, color="tab:gray")
        axes[2].set(xlabel="ER bin", ylabel="average AMB", title=f"(c) AMB by ER bin {bin_label}")
        axes[2].grid(alpha=0.3, axis="y")
    fig.suptitle(title)
    return save_figure(fig, path)


def _nearest(summary: list[dict], key: str, k: int, eps: float) -> dict | None:
    for row in summary:
        if row[key] == k and row["epsilon"] == eps:
            return row
    return None


def _fmt(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def run_bab_rt(*, out: Path, branching: int = 4, depths=(3, 5, 7, 9), instances: int = 50,
               epsilons=tuple(range(0, 65, 4)), bin_depth: int = 5, seed: int = 0,
               engine: str = "fast", jobs: int = 1, quiet: bool = False) -> ExperimentOutput:
    """Figure 4: BAB on RT with branching ``branching``, ER and AMB against epsilon.

    Parameters
    ----------
    out : Path
        Output folder; ``bab-rt.csv`` (one row per search), ``bab-rt-summary.csv``,
        ``bab-rt-bins.csv`` and ``bab-rt.png`` are written there.
    branching : int
        ``b`` (the paper: 4).
    depths : sequence of int
        Tree depths (the paper: 3, 5, 7, 9).
    instances : int
        Trees per depth (the paper: 50).
    epsilons : sequence of float
        Epsilon values; 0 is always added (ER's denominator).
    bin_depth : int
        The depth whose runs make the ER-bin view (the paper: 5).
    seed : int
        Master seed; tree ``i`` of depth ``d`` uses ``derive_seed(seed, b, d, i)``.
    engine : {"fast", "reference"}
        :func:`course.experiments.fast.fast_search` or :func:`course.search.bab`.
    jobs : int
        Worker processes.
    quiet : bool
        No progress lines.

    Returns
    -------
    ExperimentOutput
        ``summary`` has ``"er"`` and ``"amb"``: ``{(depth, epsilon): mean}``,
        ``"bins"`` and ``"non_monotonic"`` (runs that expanded more than at the
        previous epsilon).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     o = run_bab_rt(out=pathlib.Path(tmp), depths=(3,), instances=3, epsilons=(0, 32),
    ...                    bin_depth=3, quiet=True)
    ...     sorted(f.name for f in o.files)
    ['bab-rt-bins.csv', 'bab-rt-summary.csv', 'bab-rt.csv', 'bab-rt.png']
    >>> o.summary["er"][3, 0], o.summary["amb"][3, 0]
    (1.0, 0.0)
    """
    depths = sorted(set(depths))
    rows = _run("rt", sizes=[(branching, d) for d in depths], instances=instances,
                epsilons=list(epsilons), seed=seed, engine=engine, p=0.8, jobs=jobs, quiet=quiet)
    summary = _summarise(rows, "depth")
    bin_rows = [r for r in rows if r["depth"] == bin_depth]
    bins = er_bins(bin_rows) if bin_rows else None
    files = [write_csv(out / "bab-rt.csv", rows, columns=_COLUMNS),
             write_csv(out / "bab-rt-summary.csv", summary)]
    if bins is not None:
        files.append(write_csv(out / "bab-rt-bins.csv", bins))
    files.append(_plot(summary, "depth", bins, out / "bab-rt.png",
                       title=f"BAB on random trees, b={branching}, {instances} trees per depth",
                       bin_label=f"(depth {bin_depth})"))
    eps_list = sorted({r["epsilon"] for r in summary})
    table = format_table(
        ["epsilon"] + [f"ER d={d}" for d in depths] + [f"AMB d={d}" for d in depths],
        [[e] + [_nearest(summary, "depth", d, e)["er"] for d in depths]
         + [_nearest(summary, "depth", d, e)["amb"] for d in depths] for e in eps_list],
        title=f"bab-rt: BAB on RT (b={branching}), mean over {instances} trees per depth",
    )
    lines = ["", "Paper (Atzmon et al. 2018) vs this run:"]
    for d, er in BAB_RT_ER_AT_EPS32.items():
        row = _nearest(summary, "depth", d, 32)
        lines.append(f"  ER  depth {d}, eps 32: paper {er:.2f}, ours {_fmt(row and row['er'])}")
    for e, amb in BAB_RT_AMB_DEPTH9.items():
        row = _nearest(summary, "depth", 9, e)
        lines.append(f"  AMB depth 9, eps {e}: paper {amb:.2f}, ours {_fmt(row and row['amb'])}")
    if bins is not None:
        lines.append("")
        lines.append(format_table(["ER bin", "runs", "mean AMB"],
                                  [[b["bin"], b["runs"], b["amb"]] for b in bins],
                                  title=f"ER bins (Figure 4c), depth {bin_depth}:"))
    lines.append("\nShare of trees in which the root itself stopped early (searched fewer than its "
                 f"{branching} children):")
    for d in depths:
        shares = [(e, (_nearest(summary, "depth", d, e) or {}).get("root_pruned")) for e in (28, 32, 36)]
        shares = [f"{share:.0%} at eps {e}" for e, share in shares if share is not None]
        lines.append(f"  depth {d}: " + (", ".join(shares) if shares
                                          else "not measured (run with eps 28, 32 or 36)"))
    xi = value_quantile(branching)
    lines.append("Mean root value by depth: " + ", ".join(
        f"depth {d}: {_nearest(summary, 'depth', d, 0)['root_value']:.1f}" for d in depths) + ".")
    lines.append(f"On very deep trees with {branching} children per node the root value settles near "
                 f"{100 * xi:.1f} (leaves lie between 0 and 100), so the root can stop after its "
                 f"first child once eps exceeds about {100 * (1 - xi):.0f} (100 - {100 * xi:.1f}).")
    nm = _non_monotonic(rows, "depth")
    lines.append(f"runs expanding more than at the previous epsilon (non-monotonic pruning): {nm}")
    worst = max(r["amb"] - r["epsilon"] for r in rows)
    lines.append(f"largest AMB - epsilon over all runs: {worst:.3g} (Theorem 1: <= 0)")
    return ExperimentOutput(
        name="bab-rt", files=files, table=table + "\n" + "\n".join(lines),
        summary={"er": {(r["depth"], r["epsilon"]): r["er"] for r in summary},
                 "amb": {(r["depth"], r["epsilon"]): r["amb"] for r in summary},
                 "bins": bins, "non_monotonic": nm, "max_amb_minus_eps": worst},
    )


def run_bab_stochastic_rt(*, out: Path, depth: int = 4, branchings=(2, 3, 4, 5),
                          instances: int = 50, epsilons=tuple(range(0, 101, 4)), p: float = 0.8,
                          seed: int = 0, engine: str = "fast", jobs: int = 1,
                          quiet: bool = False) -> ExperimentOutput:
    """Figure 6a, b: BAB on stochastic RT of ``depth`` decision levels, by branching factor.

    Parameters
    ----------
    out : Path
        Output folder (``bab-stochastic-rt.csv``, ``-summary.csv``, ``.png``).
    depth : int
        Decision levels (the paper: 4).
    branchings : sequence of int
        Branching factors (the paper: 2, 3, 4, 5).
    instances, epsilons, seed, engine, jobs, quiet
        As for :func:`run_bab_rt`.
    p : float
        Probability that a chosen move happens (the paper: 0.8).

    Returns
    -------
    ExperimentOutput
        ``summary["er"]`` and ``summary["amb"]``: ``{(branching, epsilon): mean}``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     o = run_bab_stochastic_rt(out=pathlib.Path(tmp), depth=2, branchings=(2,),
    ...                               instances=2, epsilons=(0, 8), quiet=True)
    >>> o.summary["er"][2, 0]
    1.0
    """
    branchings = sorted(set(branchings))
    rows = _run("stochastic-rt", sizes=[(b, depth) for b in branchings],
                instances=instances, epsilons=list(epsilons), seed=seed, engine=engine, p=p,
                jobs=jobs, quiet=quiet)
    summary = _summarise(rows, "branching")
    files = [write_csv(out / "bab-stochastic-rt.csv", rows, columns=_COLUMNS),
             write_csv(out / "bab-stochastic-rt-summary.csv", summary)]
    files.append(_plot(summary, "branching", None, out / "bab-stochastic-rt.png",
                       title=f"BAB on stochastic random trees, depth {depth}, p={p}, "
                             f"{instances} trees each"))
    eps_list = sorted({r["epsilon"] for r in summary})
    table = format_table(
        ["epsilon"] + [f"ER b={b}" for b in branchings] + [f"AMB b={b}" for b in branchings],
        [[e] + [_nearest(summary, "branching", b, e)["er"] for b in branchings]
         + [_nearest(summary, "branching", b, e)["amb"] for b in branchings] for e in eps_list],
        title=f"bab-stochastic-rt: BAB on stochastic RT (depth {depth}, p={p}), "
              f"mean over {instances} trees",
    )
    lines = ["", "Paper (Atzmon et al. 2018), branching 4, vs this run:"]
    for e, (er, amb) in BAB_STOCHASTIC_RT_B4.items():
        row = _nearest(summary, "branching", 4, e)
        lines.append(f"  eps {e}: ER paper {er:.2f}, ours {_fmt(row and row['er'])};  "
                     f"AMB paper {amb:.2f}, ours {_fmt(row and row['amb'])}")
    nm = _non_monotonic(rows, "branching")
    lines.append(f"\nruns expanding more than at the previous epsilon (non-monotonic pruning): {nm}")
    worst = max(r["amb"] - r["epsilon"] for r in rows)
    lines.append(f"largest AMB - epsilon over all runs: {worst:.3g} (Theorem 1: <= 0, "
                 "up to floating-point rounding)")
    return ExperimentOutput(
        name="bab-stochastic-rt", files=files, table=table + "\n" + "\n".join(lines),
        summary={"er": {(r["branching"], r["epsilon"]): r["er"] for r in summary},
                 "amb": {(r["branching"], r["epsilon"]): r["amb"] for r in summary},
                 "non_monotonic": nm, "max_amb_minus_eps": worst},
    )
