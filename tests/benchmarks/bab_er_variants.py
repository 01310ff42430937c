"""Which detail could explain the BAB paper's expansion ratio (ER) on random trees?

The course's reference Bounded Alpha-Beta (``course.search.bab``, and its exact
fast twin ``course.experiments.fast``) reproduces the AMB numbers of Atzmon,
Stern & Saffidine (2018, seed 000, "Experimental Results") on random trees but
not their ER.  This script does not touch the reference.  It re-runs the
paper's two random-tree experiments with small, clearly labelled **variant**
searches, each differing from Algorithm 1 as implemented in the course in one
way the paper's program or measurement might have differed, and prints, per
variant, the numbers the paper quotes:

* RT, b = 4: ER at epsilon = 32 for depths 3, 5, 7, 9, AMB at depth 9 for
  epsilon = 32 and 64 (paper: ER 0.67 / 0.37 / 0.18 / 0.05, AMB 30.97 / 61.88);
* stochastic RT, b = 4, depth 4, p = 0.8: ER and AMB at epsilon = 0, 8, 24
  (paper: ER 1 / 0.79 / 0.40, AMB 0 / 6.58 / 20.71);
* soundness: the largest AMB / epsilon over all runs with epsilon > 0
  (Theorem 1: at most 1) and the number of runs whose interval [L, U] misses
  the exact minimax value (computed independently, with numpy).

Variants of the **measurement** (same searches, ER computed differently):
mean of per-tree ratios (the course's ER) / ratio of totals / median of
per-tree ratios; counting expanded internal nodes (the course's count),
evaluated leaves, all generated nodes (internal + leaves), and, with chance,
decision nodes only or decision nodes + leaves; dividing by the work of an
unpruned search of the whole tree instead of BAB(0)'s; reading ER at
epsilon = 28, 36 or 40 instead of 32 (another epsilon grid or scale).

Variants of the **search or the instances** (ER as the course measures it,
with a second table counting evaluated leaves):

``reference``      Algorithm 1 as in ``course.search.bab`` (checked equal to
                   ``course.experiments.fast`` on every tree, as a self-test);
``strict``         prune when ``beta < alpha + eps`` (the pseudocode as printed);
``int leaves``     leaves are integers 0..100 (ties), ``floor(1.01 x)`` of the
                   same uniform draws; ``int + strict`` both;
``best on prune``  a pruned MAX node returns ``U = best_U`` (a MIN node
                   ``L = best_L``) instead of vmax / vmin: unsound by C1/C2;
``test at last``   the prune test also runs after the last child (a node whose
                   window closes there returns ``(L, vmax)`` / ``(vmin, U)``);
``entry test``     the prune test also runs on entry, before the first child;
                   a node whose inherited window already passes it is not
                   expanded and returns ``(vmin, vmax)``;
``entry window``   children get the window the node was called with, not the
                   one narrowed by its earlier children (C5/C6 with the
                   parent's initial alpha, beta);
``root (-inf,inf)`` the root window is infinite instead of ``(vmin, vmax)``;
``depth = levels`` the paper's depth counts node levels, so "depth d" has
                   ``d - 1`` edges (stochastic: "depth 4" counts chance levels
                   too, i.e. 2 decision levels);
``b = 3``, ``b = 5`` other branching factors (the paper's Figure 4a is b = 4);
``more trees``     four times the paper's instance count (reference search).

Columns ``n0`` and ``n32`` give the mean work per tree behind the ratio (at
the deepest depth), so a lower ER can be traced to less work at epsilon > 0
or to more work at epsilon = 0.

Usage (from the repository root; about one minute on a quiet 2-core machine,
single process)::

    .venv/bin/python tests/benchmarks/bab_er_variants.py [--trees 50] [--seed 0] [--quick]

``--quick`` uses 10 trees and skips depth 9 (a smoke test).  Trees are the
ones ``python -m course experiment bab-rt`` / ``bab-stochastic-rt`` use:
tree ``i`` of branching ``b`` and depth ``d`` has seed
``derive_seed(seed, b, d, i)``.

References
----------
D. Atzmon, R. Stern, A. Saffidine, *Bounded Suboptimal Game Tree Search*,
SoCS 2018 (seed 000): Algorithm 1, conditions C1-C6, "Experimental Results".
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from course.experiments.common import derive_seed  # noqa: E402
from course.experiments.fast import fast_search  # noqa: E402
from course.experiments.paper import (BAB_RT_AMB_DEPTH9, BAB_RT_ER_AT_EPS32,  # noqa: E402
                                      BAB_STOCHASTIC_RT_B4)
from course.games.random_trees import random_tree, stochastic_random_tree  # noqa: E402

INF = float("inf")
DEPTHS = (3, 5, 7, 9)
RT_EPS = (0, 32, 64)
EXTRA_EPS = (28, 36, 40)       # reference only: where ER would be read on another epsilon grid
ST_EPS = (0, 8, 24)
ST_DEPTH = 4
TOL = 1e-9


# ----------------------------------------------------------------------------------------------
# The variants
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Variant:
    """One way the paper's program might differ from the course's Algorithm 1."""

    name: str
    strict: bool = False          # prune when beta < alpha + eps (else <=)
    best_on_prune: bool = False   # a pruned MAX (MIN) node returns best_U (best_L)
    test_last: bool = False       # the prune test also runs after the last child
    entry_test: bool = False      # ... and on entry, before the first child
    entry_window: bool = False    # children get the node's entry window
    infinite_root: bool = False   # root window (-inf, inf)
    int_leaves: bool = False      # leaves floor(1.01 x) in 0..100
    levels: bool = False          # "depth d" = d - 1 edges (stochastic: 2 decision levels)
    branching: int = 4
    trees_factor: int = 1         # instances = trees_factor * --trees
    fast: bool = False            # run the reference through course.experiments.fast


VARIANTS = [
    Variant("reference"),
    Variant("strict <", strict=True),
    Variant("int leaves", int_leaves=True),
    Variant("int + strict", int_leaves=True, strict=True),
    Variant("best on prune (unsound)", best_on_prune=True),
    Variant("test at last child", test_last=True),
    Variant("entry test", entry_test=True),
    Variant("entry window", entry_window=True),
    Variant("root (-inf, inf)", infinite_root=True),
    Variant("depth = levels", levels=True),
    Variant("b = 3", branching=3, fast=True),
    Variant("b = 5", branching=5, fast=True),
    Variant("more trees", trees_factor=4, fast=True),
]


def _cut(strict: bool, alpha: float, beta: float, eps: float) -> bool:
    return beta < alpha + eps if strict else beta <= alpha + eps


# ----------------------------------------------------------------------------------------------
# Variant searches (NOT the reference: see course.search.bab for that)
# ----------------------------------------------------------------------------------------------
def variant_bab_rt(vals: list, b: int, d: int, eps: float, v: Variant,
                   vmin: float = 0.0, vmax: float = 100.0) -> tuple:
    """Algorithm 1 on a random tree's leaf list, with the switches of ``v``.

    Returns ``(L, U, expanded, evaluated)``; ``expanded`` counts internal nodes
    whose children the search began to iterate (the course's count).
    """
    strict, best_on_prune, test_last = v.strict, v.best_on_prune, v.test_last
    entry_test, entry_window = v.entry_test, v.entry_window
    last = b - 1
    rng = range(b)
    count = [0, 0]                                   # expanded, evaluated

    def node(t: int, i: int, alpha: float, beta: float) -> tuple:
        if t == d:
            count[1] += 1
            x = vals[i]
            return x, x
        if entry_test and _cut(strict, alpha, beta, eps):
            return vmin, vmax                         # not expanded: no information
        count[0] += 1
        L, U = vmin, vmax
        is_max = t % 2 == 0
        best = vmin if is_max else vmax
        a0, b0 = alpha, beta
        base = i * b
        t1 = t + 1
        for k in rng:
            if entry_window:
                Lc, Uc = node(t1, base + k, a0, b0)
            else:
                Lc, Uc = node(t1, base + k, alpha, beta)
            if is_max:
                if Uc > best:
                    best = Uc
                if Lc > L:
                    L = Lc
            else:
                if Lc < best:
                    best = Lc
                if Uc < U:
                    U = Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if (k < last or test_last) and _cut(strict, alpha, beta, eps):
                if best_on_prune:
                    return (L, best) if is_max else (best, U)
                return L, U
        return (L, best) if is_max else (best, U)

    window = (-INF, INF) if v.infinite_root else (vmin, vmax)
    L, U = node(0, 0, *window)
    return L, U, count[0], count[1]


def variant_bab_stochastic(vals: list, b: int, d: int, probs: tuple, eps: float, v: Variant,
                           vmin: float = 0.0, vmax: float = 100.0) -> tuple:
    """Algorithm 1 on a stochastic random tree (``d`` decision levels), switches of ``v``.

    Returns ``(L, U, expanded decision nodes, expanded chance nodes, evaluated leaves)``.
    """
    strict, best_on_prune, test_last = v.strict, v.best_on_prune, v.test_last
    entry_test, entry_window = v.entry_test, v.entry_window
    last = b - 1
    rng = range(b)
    count = [0, 0, 0]                                # decision, chance, leaves

    def decision(t: int, i: int, alpha: float, beta: float) -> tuple:
        if entry_test and _cut(strict, alpha, beta, eps):
            return vmin, vmax
        count[0] += 1
        L, U = vmin, vmax
        is_max = t % 2 == 0
        best = vmin if is_max else vmax
        a0, b0 = alpha, beta
        for j in rng:
            if entry_window:
                Lc, Uc = chance(t, i, j, a0, b0)
            else:
                Lc, Uc = chance(t, i, j, alpha, beta)
            if is_max:
                if Uc > best:
                    best = Uc
                if Lc > L:
                    L = Lc
            else:
                if Lc < best:
                    best = Lc
                if Uc < U:
                    U = Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if (j < last or test_last) and _cut(strict, alpha, beta, eps):
                if best_on_prune:
                    return (L, best) if is_max else (best, U)
                return L, U
        return (L, best) if is_max else (best, U)

    def chance(t: int, i: int, j: int, alpha: float, beta: float) -> tuple:
        if entry_test and _cut(strict, alpha, beta, eps):
            return vmin, vmax
        count[1] += 1
        L, U = vmin, vmax
        sum_L = sum_U = 0.0
        p_j = probs[j]
        base = i * b
        leaf_level = t == d - 1
        a0, b0 = alpha, beta
        for k in rng:
            p = p_j[k]
            if leaf_level:
                count[2] += 1
                Lc = Uc = vals[base + k]
            else:
                wa, wb = (a0, b0) if entry_window else (alpha, beta)
                ca = (wa - U) / p + vmax                 # C6 with the child's U = vmax
                if vmin > ca:
                    ca = vmin
                cb = (wb - L) / p + vmin                 # C6 with the child's L = vmin
                if vmax < cb:
                    cb = vmax
                Lc, Uc = decision(t + 1, base + k, ca, cb)
            L = L + p * (Lc - vmin)                      # C3, incrementally
            U = U - p * (vmax - Uc)
            sum_L += p * Lc
            sum_U += p * Uc
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if (k < last or test_last) and _cut(strict, alpha, beta, eps):
                return L, U
        return sum_L, sum_U

    window = (-INF, INF) if v.infinite_root else (vmin, vmax)
    L, U = decision(0, 0, *window)
    return L, U, count[0], count[1], count[2]


# ----------------------------------------------------------------------------------------------
# Exact values, independently of any search
# ----------------------------------------------------------------------------------------------
def minimax_value(vals: np.ndarray, b: int, d: int) -> float:
    x = vals
    for t in range(d - 1, -1, -1):
        x = x.reshape(-1, b)
        x = x.max(axis=1) if t % 2 == 0 else x.min(axis=1)
    return float(x[0])


def expectimax_value(vals: np.ndarray, b: int, d: int, probs: tuple) -> float:
    P = np.array(probs)                              # P[j, k]: outcome k after move j
    x = vals
    for t in range(d - 1, -1, -1):
        chance = x.reshape(-1, b) @ P.T              # chance[:, j] = sum_k P[j, k] x[:, k]
        x = chance.max(axis=1) if t % 2 == 0 else chance.min(axis=1)
    return float(x[0])


# ----------------------------------------------------------------------------------------------
# Runs
# ----------------------------------------------------------------------------------------------
def _leaves(game, v: Variant) -> np.ndarray:
    vals = np.asarray(game.leaf_values)
    return np.floor(vals * 1.01) if v.int_leaves else vals


def run_rt(v: Variant, trees: int, depths, seed: int) -> list[dict]:
    """One row per (depth, tree, epsilon) for a variant on RT."""
    b = v.branching
    rows = []
    for d in depths:
        edges = d - 1 if v.levels else d
        for i in range(trees * v.trees_factor):
            game = random_tree(b, edges, seed=derive_seed(seed, b, d, i))
            arr = _leaves(game, v)
            vals = arr.tolist()
            value = minimax_value(arr, b, edges)
            internal = sum(b ** t for t in range(edges))
            full = _full_counts(internal, 0, b ** edges)
            for eps in RT_EPS + (EXTRA_EPS if v.name == "reference" else ()):
                if v.fast:
                    r = fast_search("bab", game, epsilon=eps, leaves=False)
                    L, U, exp_, ev = r.lower, r.upper, r.expanded, r.evaluated
                else:
                    L, U, exp_, ev = variant_bab_rt(vals, b, edges, eps, v)
                    if v.name == "reference":          # self-test of the variant engine
                        r = fast_search("bab", game, epsilon=eps, leaves=False)
                        assert (L, U, exp_, ev) == (r.lower, r.upper, r.expanded, r.evaluated), \
                            (d, i, eps)
                rows.append(dict(depth=d, tree=i, eps=eps, L=L, U=U, value=value,
                                 decision=exp_, chance=0, leaves=ev, full=full))
    return rows


def run_stochastic(v: Variant, trees: int, seed: int) -> list[dict]:
    """One row per (tree, epsilon) for a variant on stochastic RT (b = 4, depth 4)."""
    b, d = 4, ST_DEPTH
    levels = d // 2 if v.levels else d
    rows = []
    for i in range(trees * v.trees_factor):
        game = stochastic_random_tree(b, levels, seed=derive_seed(seed, b, d, i), p=0.8)
        probs = game.outcome_probabilities
        arr = _leaves(game, v)
        vals = arr.tolist()
        value = expectimax_value(arr, b, levels, probs)
        full = _full_counts(sum((b * b) ** t for t in range(levels)),
                            b * sum((b * b) ** t for t in range(levels)), (b * b) ** levels)
        for eps in ST_EPS:
            if v.fast:
                r = fast_search("bab", game, epsilon=eps, leaves=False)
                # fast_search does not split decision and chance nodes: 1 + b + ... decision nodes
                # cannot be recovered, so only the total is kept (decision=None)
                L, U, dec, ch, ev = r.lower, r.upper, None, r.expanded, r.evaluated
            else:
                L, U, dec, ch, ev = variant_bab_stochastic(vals, b, levels, probs, eps, v)
                if v.name == "reference":
                    r = fast_search("bab", game, epsilon=eps, leaves=False)
                    assert (L, U, dec + ch, ev) == (r.lower, r.upper, r.expanded, r.evaluated), \
                        (i, eps)
            rows.append(dict(depth=d, tree=i, eps=eps, L=L, U=U, value=value,
                             decision=dec, chance=ch, leaves=ev, full=full))
    return rows


# ----------------------------------------------------------------------------------------------
# Measures
# ----------------------------------------------------------------------------------------------
COUNTS = {
    "expanded": lambda r: r["decision"] + r["chance"] if r["decision"] is not None else r["chance"],
    "leaves": lambda r: r["leaves"],
    "generated": lambda r: (r["decision"] or 0) + r["chance"] + r["leaves"],
    "decision": lambda r: r["decision"],
    "decision+leaves": lambda r: None if r["decision"] is None else r["decision"] + r["leaves"],
}


def _full_counts(decision: int, chance: int, leaves: int) -> dict:
    """The counts of an unpruned search (minimax / expectimax) of the whole tree."""
    full = dict(decision=decision, chance=chance, leaves=leaves)
    return {name: f(full) for name, f in COUNTS.items()}


def er(rows: list[dict], depth: int, eps: float, count: str = "expanded",
       average: str = "mean", denominator: str = "eps0") -> float:
    """ER of ``rows`` at (depth, eps): BAB(eps) work over BAB(0) work on the same trees.

    With ``denominator="full"`` the work of an unpruned search of the whole tree
    replaces BAB(0)'s.
    """
    f = COUNTS[count]
    base = {r["tree"]: r for r in rows if r["depth"] == depth and r["eps"] == 0}
    runs = [r for r in rows if r["depth"] == depth and r["eps"] == eps]
    if not runs or any(f(r) is None for r in runs):
        return math.nan
    if denominator == "full":
        def den(r):
            return r["full"][count]
    else:
        def den(r):
            return f(base[r["tree"]])
    if average == "total":
        return sum(f(r) for r in runs) / sum(den(r) for r in runs)
    ratios = [f(r) / den(r) for r in runs]
    return statistics.median(ratios) if average == "median" else statistics.fmean(ratios)


def work(rows: list[dict], depth: int, eps: float, count: str) -> float:
    """Mean count (expanded, leaves, ...) per tree at (depth, eps)."""
    f = COUNTS[count]
    runs = [f(r) for r in rows if r["depth"] == depth and r["eps"] == eps]
    return math.nan if not runs or None in runs else statistics.fmean(runs)


def amb(rows: list[dict], depth: int, eps: float) -> float:
    runs = [r["U"] - r["L"] for r in rows if r["depth"] == depth and r["eps"] == eps]
    return statistics.fmean(runs) if runs else math.nan


def soundness(rows: list[dict]) -> tuple[float, int]:
    """Largest AMB / eps over eps > 0, and runs whose [L, U] misses the exact value."""
    ratio = max(((r["U"] - r["L"]) / r["eps"] for r in rows if r["eps"] > 0), default=math.nan)
    misses = sum(1 for r in rows if not r["L"] - TOL <= r["value"] <= r["U"] + TOL)
    return ratio, misses


# ----------------------------------------------------------------------------------------------
# Printing
# ----------------------------------------------------------------------------------------------
HEAD = (f"{'variant':<34}" + "".join(f"{'d' + str(d):>6}" for d in DEPTHS)
        + f"{'A32':>7}{'A64':>7}{'n0':>8}{'n32':>7} |" + "".join(f"{'E' + str(e):>6}" for e in ST_EPS)
        + "".join(f"{'A' + str(e):>7}" for e in ST_EPS) + f"{'AMB/eps':>9}{'miss':>6}")


def _f(x: float, w: int, p: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return f"{'-':>{w}}"
    if abs(x) < 0.5 * 10 ** -p:                      # rounding noise prints as 0, not -0
        x = 0.0
    return f"{x:>{w}.{p}f}"


def line(name: str, rt: list[dict], st: list[dict], *, count: str = "expanded",
         average: str = "mean", st_count: str | None = None, er_eps: float = 32,
         with_amb: bool = True, denominator: str = "eps0") -> str:
    st_count = st_count or count
    out = f"{name:<34}" + "".join(_f(er(rt, d, er_eps, count, average, denominator), 6)
                                  for d in DEPTHS)
    if with_amb:
        deepest = max(r["depth"] for r in rt)
        out += _f(amb(rt, 9, 32), 7) + _f(amb(rt, 9, 64), 7)
        out += _f(work(rt, deepest, 0, count), 8, 0) + _f(work(rt, deepest, 32, count), 7, 0)
    else:
        out += " " * 29
    out += " |"
    out += ("".join(_f(er(st, ST_DEPTH, e, st_count, average, denominator), 6) for e in ST_EPS)
            if st else " " * 18)
    if with_amb:
        out += "".join(_f(amb(st, ST_DEPTH, e), 7) for e in ST_EPS) if st else " " * 21
        ratio, misses = soundness(rt + st)
        out += _f(ratio, 9, 3) + f"{misses:>6}"
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=50, help="trees per depth (paper: 50)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (as `experiment bab-rt`)")
    parser.add_argument("--quick", action="store_true", help="10 trees, no depth 9: a smoke test")
    args = parser.parse_args(argv)
    trees = 10 if args.quick else args.trees
    depths = DEPTHS[:-1] if args.quick else DEPTHS
    start = time.perf_counter()

    results = {}
    for v in VARIANTS:
        t0 = time.perf_counter()
        rt = run_rt(v, trees, depths, args.seed)
        st = run_stochastic(v, trees, args.seed) if v.branching == 4 else []
        results[v.name] = (rt, st)
        print(f"  ran {v.name} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)

    paper_rt = [BAB_RT_ER_AT_EPS32[d] for d in DEPTHS]
    paper_st = BAB_STOCHASTIC_RT_B4
    paper = (f"{'PAPER (Atzmon et al. 2018)':<34}" + "".join(f"{x:>6.2f}" for x in paper_rt)
             + f"{BAB_RT_AMB_DEPTH9[32]:>7.2f}{BAB_RT_AMB_DEPTH9[64]:>7.2f}{'':>15} |"
             + "".join(f"{paper_st[e][0]:>6.2f}" for e in ST_EPS)
             + "".join(f"{paper_st[e][1]:>7.2f}" for e in ST_EPS))
    print(f"BAB ER variants: RT b=4 ({trees} trees per depth), ER at eps=32 for depths "
          f"{', '.join(map(str, depths))} and AMB at depth 9, eps 32/64 (A32, A64); stochastic RT "
          f"b=4 depth {ST_DEPTH} p=0.8: ER at eps 0/8/24 (E0..E24) and AMB (A0..A24);")
    print("n0, n32 = mean work per tree (the ER's count) at eps 0 and 32, deepest RT depth.")
    print("AMB/eps = largest (U-L)/eps over all runs with eps > 0 (Theorem 1: <= 1); miss = runs "
          "whose [L, U] misses the exact value.")
    print("Variants are NOT the reference search; 'reference' equals course.experiments.fast "
          "(asserted on every run).\n")
    print("A. The reference search, ER measured differently")
    print(HEAD)
    print(paper)
    rt, st = results["reference"]
    print(line("mean ratio, expanded (course)", rt, st))
    print(line("total ratio, expanded", rt, st, average="total"))
    print(line("median ratio, expanded", rt, st, average="median"))
    print(line("mean ratio, evaluated leaves", rt, st, count="leaves"))
    print(line("total ratio, evaluated leaves", rt, st, count="leaves", average="total"))
    print(line("mean ratio, generated (int+leaves)", rt, st, count="generated"))
    print(line("stoch. only: decision nodes", rt, st, st_count="decision"))
    print(line("stoch. only: decision + leaves", rt, st, st_count="decision+leaves"))
    print(line("expanded / whole tree's internal", rt, st, denominator="full"))
    print(line("leaves / whole tree's leaves", rt, st, count="leaves", denominator="full"))
    for e in (28, 36, 40):
        print(line(f"ER read at eps={e} (RT only)", rt, [], er_eps=e, with_amb=False))

    for count, title in (("expanded", "B. Variant searches and instances, ER by expanded "
                                      "internal nodes (mean of per-tree ratios)"),
                         ("leaves", "C. The same runs, ER by evaluated leaves "
                                    "(mean of per-tree ratios)")):
        print("\n" + title)
        print(HEAD)
        print(paper)
        for v in VARIANTS:
            rt, st = results[v.name]
            label = v.name + (f" ({trees * v.trees_factor})" if v.trees_factor > 1 else "")
            print(line(label, rt, st, count=count))
    print("\nnotes: 'stoch. only' rows change the count on stochastic RT only (RT has no chance "
          "nodes); 'whole tree' rows divide by an unpruned search's count instead of BAB(0)'s; "
          "'depth = levels' runs RT with d-1 edges (depth 3 -> 2 edges) and stochastic RT with 2 "
          "decision levels; b = 3, b = 5 (RT only) and 'more trees' run the reference "
          "(course.experiments.fast).")
    print(f"total time {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
