"""BAB on Cops & Robbers: the BAB paper's Figure 5 (deterministic) and Figure 6c, d (stochastic).

Instances are :class:`course.games.CopsAndRobbers` games on a 6 x 6
4-connected grid with 3 cops, ``vmin = 0`` and ``vmax = 12``, searched by the
reference :func:`course.search.bab` to a depth limit with the game's
distance heuristic at the horizon (the game's module explains its exact score
and heuristic).  ER and AMB are as in :mod:`course.experiments.bab_rt`.

Depth is counted the paper's way, in decision levels: the deterministic
search of depth 3 looks 3 plies ahead (robber, cops, robber); in the
stochastic game every decision is followed by a chance event, so depth 3
searches 6 plies.

These searches use the reference implementation (there is no fast path for
this game), so the paper's depth 7 takes hours in pure Python: the default
depths are 3 and 5, and ``--depths 3,5,7`` runs the full figure.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..search import bab
from .bab_rt import _fmt, er_bins
from .common import (ExperimentOutput, Progress, derive_seed, format_table, mean_ci,
                     new_figure, parallel_map, save_figure, write_csv)
from .paper import BAB_CR_STOCHASTIC

__all__ = ["run_bab_cops_robbers"]


def _task(task: tuple) -> list[dict]:
    from ..games import CopsAndRobbers

    mode, depth, instance, seed, epsilons, width, height, cops, obstacles = task
    stochastic = mode == "stochastic"
    game = CopsAndRobbers(width, height, cops, obstacles, seed, stochastic=stochastic, p=0.8)
    plies = 2 * depth if stochastic else depth
    rows = []
    for eps in epsilons:
        r = bab(game, epsilon=eps, depth=plies)
        rows.append({"mode": mode, "depth": depth, "plies": plies, "instance": instance,
                     "seed": seed, "epsilon": eps, "expanded": r.expanded,
                     "evaluated": r.evaluated, "lower": float(r.lower), "upper": float(r.upper),
                     "amb": float(r.upper - r.lower)})
    base = next(row for row in rows if row["epsilon"] == 0)
    for row in rows:
        row["er"] = row["expanded"] / base["expanded"]
        row["er_leaves"] = row["evaluated"] / base["evaluated"]
    return rows


def _summary(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["mode"], row["depth"], row["epsilon"]].append(row)
    out = []
    for (mode, depth, eps), group in sorted(groups.items()):
        er, er_ci = mean_ci([r["er"] for r in group])
        amb, amb_ci = mean_ci([r["amb"] for r in group])
        er_leaves, _ = mean_ci([r["er_leaves"] for r in group])
        out.append({"mode": mode, "depth": depth, "epsilon": eps, "instances": len(group),
                    "er": er, "er_ci95": er_ci, "er_leaves": er_leaves, "amb": amb,
                    "amb_ci95": amb_ci})
    return out


def run_bab_cops_robbers(*, out: Path, depths=(3, 5), epsilons=(0, 1, 2, 3, 4, 6, 8, 10, 12),
                         stochastic_depth: int = 3, stochastic_epsilons=(0, 1, 2, 4, 6, 8),
                         instances: int = 50, width: int = 6, height: int = 6, cops: int = 3,
                         obstacles: float = 0.2, modes=("deterministic", "stochastic"),
                         seed: int = 0, jobs: int = 1, quiet: bool = False) -> ExperimentOutput:
    """Figures 5 and 6c, d: BAB on Cops & Robbers, ER and AMB against epsilon.

    Parameters
    ----------
    out : Path
        Output folder: ``bab-cops-robbers.csv`` (one row per search),
        ``bab-cops-robbers-summary.csv``, ``bab-cops-robbers-bins.csv`` and
        ``bab-cops-robbers.png``.
    depths : sequence of int
        Search depths (plies) of the deterministic game (the paper: 3, 5, 7).
    epsilons : sequence of float
        Epsilons for the deterministic game (0 is always added).
    stochastic_depth : int
        Decision levels of the stochastic search (the paper: 3).
    stochastic_epsilons : sequence of float
        Epsilons for the stochastic game.
    instances : int
        Random games per setting (the paper: 50).
    width, height, cops : int
        The grid and the number of cops (the paper: 6 x 6, 3 cops).
    obstacles : float
        Fraction of blocked cells in the stochastic game (the paper: 0.2);
        the deterministic game is an open grid.
    modes : sequence of str
        ``"deterministic"`` and/or ``"stochastic"``.
    seed, jobs, quiet
        Master seed, worker processes, no progress lines.

    Returns
    -------
    ExperimentOutput
        ``summary["er"]`` and ``summary["amb"]``: ``{(mode, depth, epsilon): mean}``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     o = run_bab_cops_robbers(out=pathlib.Path(tmp), depths=(1,), epsilons=(0, 2),
    ...                              stochastic_depth=1, stochastic_epsilons=(0, 2),
    ...                              instances=2, quiet=True)
    >>> o.summary["er"]["deterministic", 1, 0], o.summary["amb"]["stochastic", 1, 0]
    (1.0, 0.0)
    """
    tasks = []
    if "deterministic" in modes:
        eps = tuple(sorted(set([0] + list(epsilons))))
        tasks += [("deterministic", d, i, derive_seed(seed, 0, d, i) % 2 ** 31, eps, width,
                   height, cops, 0.0) for d in sorted(set(depths)) for i in range(instances)]
    if "stochastic" in modes:
        eps = tuple(sorted(set([0] + list(stochastic_epsilons))))
        tasks += [("stochastic", stochastic_depth, i, derive_seed(seed, 1, stochastic_depth, i) % 2 ** 31,
                   eps, width, height, cops, obstacles) for i in range(instances)]
    progress = Progress("bab-cops-robbers", len(tasks), enabled=not quiet)
    rows = [row for part in parallel_map(_task, tasks, jobs=jobs, progress=progress) for row in part]
    summary = _summary(rows)
    det_depths = sorted({r["depth"] for r in rows if r["mode"] == "deterministic"})
    bins = er_bins([r for r in rows if r["mode"] == "deterministic" and r["depth"] == det_depths[0]]) \
        if det_depths else None
    files = [write_csv(out / "bab-cops-robbers.csv", rows),
             write_csv(out / "bab-cops-robbers-summary.csv", summary)]
    if bins is not None:
        files.append(write_csv(out / "bab-cops-robbers-bins.csv", bins))

    present = [m for m in ("deterministic", "stochastic") if any(r["mode"] == m for r in summary)]
    fig, axes = new_figure(3, len(present), width=4.4, height=3.6)
    for row_index, mode in enumerate(present):
        ax_er, ax_amb, ax_bin = axes[3 * row_index: 3 * row_index + 3]
        mode_rows = [r for r in summary if r["mode"] == mode]
        for depth in sorted({r["depth"] for r in mode_rows}):
            series = [r for r in mode_rows if r["depth"] == depth]
            x = [r["epsilon"] for r in series]
            ax_er.errorbar(x, [r["er"] for r in series], yerr=[r["er_ci95"] for r in series],
                           marker="o", ms=3, capsize=2, label=f"depth {depth}")
            ax_amb.errorbar(x, [r["amb"] for r in series], yerr=[r["amb_ci95"] for r in series],
                            marker="o", ms=3, capsize=2, label=f"depth {depth}")
        if mode_rows:
            top = max(r["epsilon"] for r in mode_rows)
            ax_amb.plot([0, top], [0, top], "k:", lw=1, label="AMB = epsilon")
            ax_er.legend(fontsize=8)
            ax_amb.legend(fontsize=8)
        ax_er.set(xlabel="epsilon", ylabel="ER", title=f"{mode}: expanded ratio")
        ax_amb.set(xlabel="epsilon", ylabel="AMB", title=f"{mode}: actual bound")
        ax_er.grid(alpha=0.3)
        ax_amb.grid(alpha=0.3)
        if mode == "deterministic" and bins is not None:
            ax_bin.bar([b["bin"] for b in bins], [0 if not b["runs"] else b["amb"] for b in bins],
                       color="tab:gray")
            ax_bin.set(xlabel="ER bin", ylabel="average AMB",
                       title=f"deterministic, depth {det_depths[0]}: AMB by ER bin")
        else:
            ax_bin.set_axis_off()
    fig.suptitle(f"BAB on Cops & Robbers ({width}x{height}, {cops} cops, {instances} games)")
    files.append(save_figure(fig, out / "bab-cops-robbers.png"))

    lines = []
    for mode in modes:
        mode_rows = [r for r in summary if r["mode"] == mode]
        if not mode_rows:
            continue
        mode_depths = sorted({r["depth"] for r in mode_rows})
        eps_list = sorted({r["epsilon"] for r in mode_rows})
        get = {(r["depth"], r["epsilon"]): r for r in mode_rows}
        lines.append(format_table(
            ["epsilon"] + [f"ER d={d}" for d in mode_depths] + [f"AMB d={d}" for d in mode_depths],
            [[e] + [get[d, e]["er"] for d in mode_depths] + [get[d, e]["amb"] for d in mode_depths]
             for e in eps_list],
            title=f"bab-cops-robbers, {mode}" + (f" ({obstacles:.0%} obstacles)" if mode == "stochastic" else "")
                  + f": mean over {instances} games",
        ))
    if "stochastic" in modes:
        lines.append("Paper (Atzmon et al. 2018), stochastic C&R depth 3, vs this run:")
        get = {r["epsilon"]: r for r in summary if r["mode"] == "stochastic"}
        for e, (er, amb) in BAB_CR_STOCHASTIC.items():
            row = get.get(e)
            lines.append(f"  eps {e}: ER paper {er:.2f}, ours {_fmt(row and row['er'])} "
                         f"(by leaves {_fmt(row and row['er_leaves'])});  "
                         f"AMB paper {amb:.2f}, ours {_fmt(row and row['amb'])}")
    if bins is not None:
        lines.append(format_table(["ER bin", "runs", "mean AMB"],
                                  [[b["bin"], b["runs"], b["amb"]] for b in bins],
                                  title=f"ER bins (Figure 5c), deterministic depth {det_depths[0]}:"))
    return ExperimentOutput(
        name="bab-cops-robbers", files=files, table="\n".join(lines),
        summary={"er": {(r["mode"], r["depth"], r["epsilon"]): r["er"] for r in summary},
                 "amb": {(r["mode"], r["depth"], r["epsilon"]): r["amb"] for r in summary},
                 "bins": bins},
    )
