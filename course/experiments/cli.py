"""``python -m course experiment NAME [flags]``: run a reproduction from the command line.

Each experiment writes a CSV (one row per search or simulation cell, plus
summaries) and a PNG plot to ``--out`` (default ``./experiment-results``),
prints a table with the papers' numbers beside ours, and reports progress on
standard error.  Runs are seeded (``--seed``) and give the same numbers for
any ``--jobs``.  ``--small`` runs a quick version; any flag given explicitly
overrides the ``--small`` or full-size default.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..errors import ParameterError
from .common import DEFAULT_OUT, ExperimentOutput, default_jobs

__all__ = ["add_arguments", "run", "EXPERIMENTS"]

#: name -> (one-line help, {flag: (full default, small default)})
EXPERIMENTS: dict[str, tuple[str, dict]] = {
    "bab-rt": (
        "BAB on random trees: ER and AMB vs epsilon, ER bins (BAB paper, Figure 4)",
        {"branching": (4, 4), "depths": ([3, 5, 7, 9], [3, 5, 7]), "instances": (50, 10),
         "eps": (list(range(0, 65, 4)), list(range(0, 65, 8))), "bin_depth": (5, 5),
         "engine": ("fast", "fast")},
    ),
    "bab-stochastic-rt": (
        "BAB on stochastic random trees, depth 4, branching 2-5 (BAB paper, Figure 6a, b)",
        {"depth": (4, 4), "branchings": ([2, 3, 4, 5], [2, 3, 4]), "instances": (50, 10),
         "eps": (list(range(0, 101, 4)), list(range(0, 101, 8))), "p": (0.8, 0.8),
         "engine": ("fast", "fast")},
    ),
    "bab-cops-robbers": (
        "BAB on Cops & Robbers, deterministic and stochastic (BAB paper, Figures 5 and 6c, d)",
        {"depths": ([3, 5], [1, 3]), "eps": ([0, 1, 2, 3, 4, 6, 8, 10, 12], [0, 1, 2, 4, 8]),
         "stochastic_depth": (3, 2), "stochastic_eps": ([0, 1, 2, 4, 6, 8], [0, 2, 4, 8]),
         "instances": (50, 5), "obstacles": (0.2, 0.2)},
    ),
    "chen": (
        "Chen's selective-search simulation: decision errors and node counts (Tables 1-4)",
        {"case": (["table1", "table3"], ["table1", "table3"]), "simulations": (None, None),
         "max_arc": (9, 9)},
    ),
    "alphabeta-ordering": (
        "alpha-beta leaves vs depth per move ordering, against b^ceil(d/2)+b^floor(d/2)-1, "
        "b^(3d/4), b^d",
        {"branching": (4, 3), "depths": (list(range(1, 8)), list(range(1, 6))),
         "instances": (20, 5)},
    ),
}

#: simulations per Chen case with --small (the full size follows the paper)
_CHEN_SMALL = {"table1": 50, "table3": 5}


def _int_list(text: str) -> list[int]:
    return [int(x) for x in _number_list(text)]


def _number_list(text: str) -> list[float]:
    """``"3,5,7"`` or ``"0:64:4"`` (start:stop:step, stop included) or a mix."""
    out: list[float] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if not part:
                continue
            if ":" in part:
                pieces = [float(x) for x in part.split(":")]
                if len(pieces) != 3 or pieces[2] <= 0:
                    raise ValueError
                start, stop, step = pieces
                k = 0
                while start + k * step <= stop + 1e-9:
                    out.append(start + k * step)
                    k += 1
            else:
                out.append(float(part))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected numbers like 3,5,7 or a range start:stop:step like 0:64:4, got {text!r}"
        ) from None
    if not out:
        raise argparse.ArgumentTypeError(f"no numbers in {text!r}")
    return [int(x) if float(x).is_integer() else x for x in out]


def _case_list(text: str) -> list:
    cases = []
    for part in text.split(","):
        part = part.strip()
        if part in ("table1", "table3"):
            cases.append(part)
        elif part == "both":
            cases += ["table1", "table3"]
        else:
            try:
                b, h, h1 = (int(x) for x in part.split("/"))
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"a Chen case is table1, table3, both, or b/h/h1 like 5/10/9; got {part!r}"
                ) from None
            cases.append((b, h, h1))
    return cases


def _common(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("common options")
    g.add_argument("--out", type=Path, default=Path(DEFAULT_OUT),
                   help=f"output folder for the CSV and PNG files (default ./{DEFAULT_OUT})")
    g.add_argument("--small", action="store_true",
                   help="a quick, smaller version (seconds); explicit flags still win")
    g.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    g.add_argument("--jobs", type=int, default=None,
                   help=f"worker processes (default {default_jobs()}: the cores here, at most 2)")
    g.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _specific(name: str, p: argparse.ArgumentParser) -> None:
    defaults = EXPERIMENTS[name][1]

    def d(key: str) -> str:
        full, small = defaults[key]
        show = lambda v: ",".join(map(str, v)) if isinstance(v, list) else str(v)  # noqa: E731
        if len(str(show(full))) > 40:
            return f"default {show(full)[:40]}..., --small {show(small)[:30]}"
        return f"default {show(full)}; --small {show(small)}"

    if name == "bab-rt":
        p.add_argument("--branching", type=int, help=f"branching factor b ({d('branching')})")
        p.add_argument("--depths", type=_int_list, help=f"tree depths ({d('depths')})")
        p.add_argument("--instances", type=int, help=f"trees per depth ({d('instances')})")
        p.add_argument("--eps", type=_number_list,
                       help="epsilons, e.g. 0,8,32 or 0:64:4 (default 0:64:4; --small 0:64:8)")
        p.add_argument("--bin-depth", type=int, help=f"depth of the ER-bin view ({d('bin_depth')})")
        p.add_argument("--engine", choices=["fast", "reference"],
                       help="fast path (identical results) or the reference course.search.bab "
                            "(default fast)")
    elif name == "bab-stochastic-rt":
        p.add_argument("--depth", type=int, help=f"decision levels ({d('depth')})")
        p.add_argument("--branchings", type=_int_list, help=f"branching factors ({d('branchings')})")
        p.add_argument("--instances", type=int, help=f"trees per branching factor ({d('instances')})")
        p.add_argument("--eps", type=_number_list,
                       help="epsilons (default 0:100:4; --small 0:100:8)")
        p.add_argument("--p", type=float, help="probability that the chosen move happens (default 0.8)")
        p.add_argument("--engine", choices=["fast", "reference"],
                       help="fast path or the reference course.search.bab (default fast)")
    elif name == "bab-cops-robbers":
        p.add_argument("--depths", type=_int_list,
                       help=f"deterministic search depths in plies ({d('depths')}; the paper "
                            "also has 7, which takes hours)")
        p.add_argument("--eps", type=_number_list, help=f"deterministic epsilons ({d('eps')})")
        p.add_argument("--stochastic-depth", type=int,
                       help=f"stochastic search depth in decision levels ({d('stochastic_depth')})")
        p.add_argument("--stochastic-eps", type=_number_list,
                       help=f"stochastic epsilons ({d('stochastic_eps')})")
        p.add_argument("--instances", type=int, help=f"games per setting ({d('instances')})")
        p.add_argument("--obstacles", type=float,
                       help="fraction of blocked cells in the stochastic game (default 0.2)")
        p.add_argument("--modes", type=lambda t: [m.strip() for m in t.split(",")],
                       help="deterministic,stochastic (default both)")
    elif name == "chen":
        p.add_argument("--case", type=_case_list,
                       help="table1 (b=5, h=10, h1=9), table3 (b=11, h=7, h1=7), both, or b/h/h1 "
                            "(default both)")
        p.add_argument("--simulations", type=int,
                       help="simulations per case (default: 1000 for table1 and 200 for table3, "
                            "the counts the tables' precision implies; --small 50 and 5)")
        p.add_argument("--max-arc", type=int, help="arc gains are 0..MAX_ARC (default 9)")
        p.add_argument("--depths", type=_int_list, help="search depths (default 1..h1)")
        p.add_argument("--skips", type=_int_list, help="skip numbers (default 0..b-2)")
        p.add_argument("--last-level", choices=("arcs", "max"),
                       help="arcs: draw every leaf's arc (default); max: draw only the best arc below "
                            "each node above the leaves, from its exact distribution (same "
                            "distribution of errors, other trees, several times faster)")
    elif name == "alphabeta-ordering":
        p.add_argument("--branching", type=int, help=f"branching factor ({d('branching')})")
        p.add_argument("--depths", type=_int_list, help=f"depths ({d('depths')})")
        p.add_argument("--instances", type=int, help=f"trees per depth ({d('instances')})")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``experiment`` subcommand's arguments (one sub-subcommand per experiment)."""
    parser.description = (__doc__ or "").split("\n\n", 1)[1].replace("\n", " ").strip()
    sub = parser.add_subparsers(dest="experiment", required=True, metavar="NAME")
    for name, (help_text, _) in EXPERIMENTS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        _specific(name, p)
        _common(p)
    p = sub.add_parser("all", help="every experiment, one after the other",
                       description="Run every experiment with its default (or --small) settings.")
    _common(p)


def _value(args: argparse.Namespace, name: str, key: str):
    given = getattr(args, key, None)
    if given is not None:
        return given
    full, small = EXPERIMENTS[name][1][key]
    return small if args.small else full


def run_experiment(name: str, args: argparse.Namespace) -> ExperimentOutput:
    """Run one experiment from parsed arguments."""
    from .bab_rt import run_bab_rt, run_bab_stochastic_rt
    from .chen import run_chen
    from .ordering import run_alphabeta_ordering

    jobs = args.jobs if args.jobs is not None else default_jobs()
    if jobs < 1:
        raise ParameterError(f"--jobs must be at least 1, got {jobs}")
    common = {"out": args.out, "seed": args.seed, "jobs": jobs, "quiet": args.quiet}
    v = lambda key: _value(args, name, key)  # noqa: E731
    if name == "bab-rt":
        return run_bab_rt(branching=v("branching"), depths=v("depths"), instances=v("instances"),
                          epsilons=v("eps"), bin_depth=v("bin_depth"), engine=v("engine"), **common)
    if name == "bab-stochastic-rt":
        return run_bab_stochastic_rt(depth=v("depth"), branchings=v("branchings"),
                                     instances=v("instances"), epsilons=v("eps"), p=v("p"),
                                     engine=v("engine"), **common)
    if name == "bab-cops-robbers":
        from .cops_robbers import run_bab_cops_robbers

        return run_bab_cops_robbers(depths=v("depths"), epsilons=v("eps"),
                                    stochastic_depth=v("stochastic_depth"),
                                    stochastic_epsilons=v("stochastic_eps"),
                                    instances=v("instances"), obstacles=v("obstacles"),
                                    modes=getattr(args, "modes", None) or ("deterministic", "stochastic"),
                                    **common)
    if name == "chen":
        cases = v("case")
        simulations = getattr(args, "simulations", None)
        if simulations is None and args.small:
            simulations = {case: _CHEN_SMALL.get(case, 50) if isinstance(case, str) else 50
                           for case in cases}
        return run_chen(cases=cases, simulations=simulations, max_arc=v("max_arc"),
                        depths=getattr(args, "depths", None), skips=getattr(args, "skips", None),
                        last_level=getattr(args, "last_level", None) or "arcs", **common)
    if name == "alphabeta-ordering":
        return run_alphabeta_ordering(branching=v("branching"), depths=v("depths"),
                                      instances=v("instances"), **common)
    raise ParameterError(f"unknown experiment {name!r}")  # pragma: no cover - argparse checks


def run(args: argparse.Namespace) -> int:
    """Run the experiment named in ``args``; print its table and the files written."""
    names = list(EXPERIMENTS) if args.experiment == "all" else [args.experiment]
    for name in names:
        start = time.perf_counter()
        output = run_experiment(name, args)
        seconds = time.perf_counter() - start
        print(output.table)
        print(f"{name}: {seconds:.1f} s; wrote " + ", ".join(str(f) for f in output.files))
        if len(names) > 1:
            print()
        sys.stdout.flush()
    return 0
