"""The research pages' experiments and benchmarks, run when the site is built (a Sphinx extension).

``{course-experiment} NAME`` (``docs/research/experiments.md``) puts into the page what
``python -m course experiment NAME --small`` measures, run when the site is built:

* **the run**: the command, in a fresh process (``sys.executable -m course experiment NAME
  --small --out <folder> --quiet``, plus the directive's ``:args:``), exactly as a reader types
  it; a run that fails stops the build with its error output.  Its CSV files, its own PNG and
  what it printed are kept in ``build/docs-cache/research/NAME.<key>/``, ``<key>`` a hash of
  every file of the ``course`` package, ``pyproject.toml``, the name and the arguments
  (:func:`course_lessons.source_key`, the lessons' cache key): a rebuild runs nothing until the
  course changes.  The page itself (figure and tables) is cached beside it, under a key that adds
  this file, so editing the page's layout never re-runs an experiment.
* **the figure**: drawn from the run's CSV by the course's own plotting functions
  (:mod:`course.plots`: ``plot_er_amb``, ``plot_decision_error``, ``plot_leaves_vs_depth``) and
  shown as :func:`course.plots.figure_html` shows it in a lesson: a PNG whose ``alt`` is
  :func:`course.plots.describe_figure` of the figure (its panels, axes and every line), never
  written by hand.  The PNG the command writes, and its CSV files, are linked from the page.
* **the tables**: this run's numbers (read from its CSV files) beside the papers' (from
  :mod:`course.experiments.paper`, where they are typed once and checked against the papers),
  with a line that says the size it was run at, how long it took, and the command for the full
  size (the sizes are read from :data:`course.experiments.cli.EXPERIMENTS`).

``{course-benchmark-nodes}`` (the benchmarks) does not run the timed benchmarks (``make
benchmark`` takes minutes and its times are the machine's): it counts, with the benchmark's own
list of searches (``tests/benchmarks/run_all.py``), the nodes each search visits on the trees
the benchmark times, which any machine reproduces exactly (about a second, cached the same way).
"""
from __future__ import annotations

import csv
import html
import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.errors import ExtensionError
from sphinx.util import logging

from course_lessons import source_key

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
#: Bumped when the way an experiment is run changes (part of every run's cache key).
RUN_VERSION = "1"
#: Where a run's files are linked from, inside the built site.
RUNS = "research/runs"


# ---------------------------------------------------------------------------------------------
# running an experiment (cached)
# ---------------------------------------------------------------------------------------------
@dataclass
class Run:
    """One run of ``python -m course experiment NAME --small``: its files in ``folder``."""

    name: str
    args: tuple[str, ...]
    folder: Path
    seconds: float

    @property
    def command(self) -> str:
        """The command a reader types for this run."""
        return " ".join(["python -m course experiment", self.name, "--small", *self.args])

    def rows(self, file: str) -> list[dict]:
        """The CSV file ``file`` of the run, as dictionaries (numbers as numbers)."""
        with open(self.folder / file, newline="", encoding="utf-8") as handle:
            return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(handle)]

    @property
    def files(self) -> list[str]:
        """The files the command wrote (CSV and PNG), by name."""
        return sorted(p.name for p in self.folder.iterdir() if p.suffix in (".csv", ".png"))


def _number(text: str):
    if text in ("True", "False"):
        return text == "True"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None if text == "" else text


def course_key(root: Path) -> str:
    """The hash of what a run depends on: the ``course`` package and ``pyproject.toml``."""
    return source_key([root / "course", root / "pyproject.toml"], extra=RUN_VERSION)


def run_key(common: str, name: str, args: tuple[str, ...]) -> str:
    """The cache key of one run: the course (``common``, :func:`course_key`), name, arguments.

    Examples
    --------
    >>> run_key("abc", "bab-rt", ()) == run_key("abc", "bab-rt", ())
    True
    >>> len({run_key("abc", "bab-rt", ()), run_key("abd", "bab-rt", ()),
    ...      run_key("abc", "chen", ()), run_key("abc", "bab-rt", ("--seed", "1"))})
    4
    """
    return source_key([], extra=f"{common}|{name}|{' '.join(args)}")


def run_small(name: str, args: tuple[str, ...], *, cache: Path, root: Path, common: str) -> Run:
    """The run of ``python -m course experiment NAME --small ARGS``: from the cache, or now.

    Raises
    ------
    sphinx.errors.ExtensionError
        If the command fails (its exit status and the end of its error output), or times out.
    """
    key = run_key(common, name, args)
    folder = cache / "research" / f"{name}.{key}"
    done = folder / "run.json"
    if done.exists():
        return Run(name, args, folder, json.loads(done.read_text())["seconds"])
    staging = cache / "research" / f".{name}.{key}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    command = [sys.executable, "-m", "course", "experiment", name, "--small", *args,
               "--out", str(staging), "--quiet"]
    shown = " ".join(["python -m course experiment", name, "--small", *args])
    logger.info(f"[course_research] running {shown} ...")
    start = time.perf_counter()
    try:
        ran = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=1800,
                             env={**os.environ, "MPLBACKEND": "Agg"})
    except subprocess.TimeoutExpired as exc:
        raise ExtensionError(f"`{shown}` took more than {exc.timeout} s") from exc
    seconds = time.perf_counter() - start
    if ran.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise ExtensionError(f"`{shown}` failed (exit status {ran.returncode}) while building "
                             f"the research pages:\n{(ran.stderr or ran.stdout)[-3000:]}")
    (staging / "stdout.txt").write_text(ran.stdout, encoding="utf-8")
    (staging / "run.json").write_text(json.dumps({"command": shown, "seconds": seconds,
                                                  "args": list(args)}))
    for old in (cache / "research").glob(f"{name}.*/run.json"):   # this run's older versions
        if json.loads(old.read_text()).get("args") == list(args):
            shutil.rmtree(old.parent)
    staging.rename(folder)
    return Run(name, args, folder, seconds)


# ---------------------------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------------------------
def _f(x, digits: int = 2) -> str:
    """A number as the pages write it: ``digits`` decimals, a dash for a missing value.

    >>> _f(0.4567), _f(12), _f(None), _f(float("nan")), _f(0.5, 3)
    ('0.46', '12.00', '–', '–', '0.500')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


def _values(values) -> str:
    """A list of sizes in words: an arithmetic run of more than three is shortened.

    >>> _values([0, 8, 16, 24, 32]), _values([3, 5, 7]), _values(["table1", "table3"]), _values(4)
    ('0, 8, …, 32', '3, 5, 7', 'table1, table3', '4')
    """
    if not isinstance(values, (list, tuple)):
        return str(values)
    steps = {b - a for a, b in zip(values, values[1:])} if all(
        isinstance(v, (int, float)) for v in values) else set()
    if len(values) > 3 and len(steps) == 1:
        return f"{values[0]}, {values[1]}, …, {values[-1]}"
    return ", ".join(str(v) for v in values)


def table(caption: str, headers: list[str], rows: list[list[str]]) -> str:
    """An HTML table as the theme draws Markdown tables (first column: row headers).

    >>> print(table("T", ["a", "b"], [["x", "1"]]))  # doctest: +NORMALIZE_WHITESPACE
    <div class="table-wrapper container docutils"><table class="docutils align-default
    course-research-table"><caption>T</caption><thead><tr><th scope="col">a</th><th
    scope="col">b</th></tr></thead><tbody><tr><th scope="row">x</th><td>1</td></tr></tbody></table></div>
    """
    def text(value) -> str:
        return html.escape(str(value), quote=False)

    head = "".join(f'<th scope="col">{text(h)}</th>' for h in headers)
    body = "".join("<tr>" + "".join(
        (f'<th scope="row">{text(c)}</th>' if i == 0 else f"<td>{text(c)}</td>")
        for i, c in enumerate(row)) + "</tr>" for row in rows)
    return ('<div class="table-wrapper container docutils"><table class="docutils align-default '
            f'course-research-table"><caption>{text(caption)}</caption><thead><tr>{head}'
            f"</tr></thead><tbody>{body}</tbody></table></div>")


def figure(fig, caption: str) -> str:
    """The figure as a lesson shows it (:func:`course.plots.figure_html`: a PNG whose ``alt`` is
    :func:`course.plots.describe_figure`), with a caption, at a resolution for sharp screens."""
    from course.plots import figure_html

    fig.set_dpi(144)
    return (f'<figure class="course-output course-experiment-figure">{figure_html(fig)}'
            f"<figcaption>{caption}</figcaption></figure>")


def _new_figure(panels: int, *, width: float = 5.0, height: float = 4.0):
    from course.experiments.common import new_figure

    return new_figure(panels, 1, width=width, height=height)


# ---------------------------------------------------------------------------------------------
# the page's part for each experiment: (figure, tables, the figure's source)
# ---------------------------------------------------------------------------------------------
def _full(run: Run, flag: str):
    """The full-size (the papers') value of an experiment's setting, from the command line's own
    table of defaults (:data:`course.experiments.cli.EXPERIMENTS`)."""
    from course.experiments.cli import EXPERIMENTS

    return EXPERIMENTS[run.name][1][flag][0]


def _by(rows: list[dict], *keys) -> dict:
    return {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r for r in rows}


def _theorem1(rows: list[dict]) -> list[str]:
    worst = max(r["amb"] - r["epsilon"] for r in rows)
    holds = worst <= 1e-9
    return ["Theorem 1 (AMB ≤ ε)", "holds",
            (f"holds on all {len(rows)} runs" if holds else f"fails: AMB − ε up to {worst:.3g}")
            + f" (largest AMB − ε: {worst:.2g})"]


def _er_amb_table(caption: str, summary: list[dict], key: str, label: str) -> str:
    series = sorted({r[key] for r in summary})
    get = _by(summary, key, "epsilon")
    eps = sorted({r["epsilon"] for r in summary})
    headers = ["ε"] + [f"ER {label}{k}" for k in series] + [f"AMB {label}{k}" for k in series]
    rows = [[_f(e, 0)] + [_f(get.get((k, e), {}).get("er")) for k in series]
            + [_f(get.get((k, e), {}).get("amb")) for k in series] for e in eps]
    return table(caption, headers, rows)


def _bins_table(caption: str, bins: list[dict]) -> str:
    return table(caption, ["ER bin", "runs", "mean AMB"],
                 [[b["bin"], b["runs"], _f(b["amb"])] for b in bins])


def render_bab_rt(run: Run) -> tuple[str, list[str], str]:
    from course.experiments.paper import BAB_RT_AMB_DEPTH9, BAB_RT_ER_AT_EPS32
    from course.plots import plot_er_amb

    summary, rows = run.rows("bab-rt-summary.csv"), run.rows("bab-rt.csv")
    get = _by(summary, "depth", "epsilon")
    depths = sorted({r["depth"] for r in summary})
    trees = summary[0]["instances"]
    fig, axes = _new_figure(2)
    plot_er_amb([{k: r[k] for k in ("depth", "epsilon", "er", "amb")} for r in summary], ax=axes)

    def ours(d, e, what, ci):
        row = get.get((d, e))
        if row is None:
            return f"not in this run (depths {_values(depths)})"
        return f"{_f(row[what])} ± {_f(row[ci])}"

    compare = [[f"ER, depth {d}, ε = 32", _f(p), ours(d, 32, "er", "er_ci95")]
               for d, p in BAB_RT_ER_AT_EPS32.items()]
    compare += [[f"AMB, depth 9, ε = {e}", _f(p), ours(9, e, "amb", "amb_ci95")]
                for e, p in BAB_RT_AMB_DEPTH9.items()]
    compare.append(_theorem1(rows))
    tables = [table(f"The paper's numbers (Atzmon et al. 2018, Figure 4, {_full(run, 'instances')} "
                    f"trees per depth) beside this "
                    f"run's ({trees} trees per depth, mean ± 95% interval)",
                    ["", "paper", "this run"], compare),
              _er_amb_table(f"This run, every ε: mean ER and AMB over {trees} trees per depth "
                            "(bab-rt-summary.csv)", summary, "depth", "d = ")]
    bin_file = run.folder / "bab-rt-bins.csv"
    if bin_file.exists():
        tables.append(_bins_table("This run's ER bins (Figure 4c): AMB averaged over the runs "
                                  "whose ER falls in each bin (bab-rt-bins.csv)",
                                  run.rows("bab-rt-bins.csv")))
    return (figure(fig, "ER and AMB against ε, one line per depth, drawn with "
                        "<code>course.plots.plot_er_amb</code> from this run's "
                        "<code>bab-rt-summary.csv</code>."), tables, "bab-rt-summary.csv")


def render_bab_stochastic_rt(run: Run) -> tuple[str, list[str], str]:
    from course.experiments.paper import BAB_STOCHASTIC_RT_B4
    from course.plots import plot_er_amb

    summary, rows = run.rows("bab-stochastic-rt-summary.csv"), run.rows("bab-stochastic-rt.csv")
    get = _by(summary, "branching", "epsilon")
    trees = summary[0]["instances"]
    fig, axes = _new_figure(2)
    plot_er_amb([{k: r[k] for k in ("branching", "epsilon", "er", "amb")} for r in summary],
                ax=axes)
    compare = []
    for e, (er, amb) in BAB_STOCHASTIC_RT_B4.items():
        row = get.get((4, e))
        compare.append([f"ε = {e}", _f(er),
                        f"{_f(row['er'])} ({_f(row['er_leaves'])})" if row else "not in this run",
                        _f(amb), _f(row["amb"]) if row else "not in this run"])
    theorem = _theorem1(rows)
    compare.append([theorem[0], "–", theorem[2], "–", "–"])
    tables = [table(f"b = 4: the paper's numbers (Figure 6a, b, {_full(run, 'instances')} trees) "
                    "beside this run's "
                    f"({trees} trees; ER by evaluated leaves in brackets)",
                    ["", "paper ER", "this run's ER", "paper AMB", "this run's AMB"], compare),
              _er_amb_table(f"This run, every ε: mean ER and AMB over {trees} trees per "
                            "branching factor (bab-stochastic-rt-summary.csv)", summary,
                            "branching", "b = ")]
    return (figure(fig, "ER and AMB against ε, one line per branching factor, drawn with "
                        "<code>course.plots.plot_er_amb</code> from this run's "
                        "<code>bab-stochastic-rt-summary.csv</code>."),
            tables, "bab-stochastic-rt-summary.csv")


def render_bab_cops_robbers(run: Run) -> tuple[str, list[str], str]:
    from course.experiments.paper import BAB_CR_STOCHASTIC
    from course.plots import plot_er_amb

    summary, rows = run.rows("bab-cops-robbers-summary.csv"), run.rows("bab-cops-robbers.csv")
    games = summary[0]["instances"]
    fig, axes = _new_figure(2)
    plot_er_amb([{"label": f"{r['mode']}, depth {r['depth']}", "epsilon": r["epsilon"],
                  "er": r["er"], "amb": r["amb"]} for r in summary], ax=axes)
    stochastic = {r["epsilon"]: r for r in summary if r["mode"] == "stochastic"}
    depth = next(iter(stochastic.values()))["depth"] if stochastic else None
    compare = []
    for e, (er, amb) in BAB_CR_STOCHASTIC.items():
        row = stochastic.get(e)
        compare.append([f"ε = {e}", _f(er),
                        f"{_f(row['er'])} ({_f(row['er_leaves'])})" if row else "not in this run",
                        _f(amb), _f(row["amb"]) if row else "not in this run"])
    theorem = _theorem1(rows)
    compare.append([theorem[0], "–", theorem[2], "–", "–"])
    tables = [table(f"Stochastic game (20% obstacles): the paper's numbers (Figure 6c, d, depth "
                    f"{_full(run, 'stochastic_depth')}, {_full(run, 'instances')} games) beside "
                    f"this run's (depth {depth}, {games} games; ER by evaluated "
                    "leaves in brackets)",
                    ["", "paper ER", "this run's ER", "paper AMB", "this run's AMB"], compare)]
    for mode in ("deterministic", "stochastic"):
        part = [r for r in summary if r["mode"] == mode]
        if part:
            tables.append(_er_amb_table(f"This run, {mode} game, every ε: mean ER and AMB over "
                                        f"{games} games (bab-cops-robbers-summary.csv)", part,
                                        "depth", "depth "))
    bin_file = run.folder / "bab-cops-robbers-bins.csv"
    if bin_file.exists():
        tables.append(_bins_table("This run's ER bins (Figure 5c), deterministic game at its "
                                  "smallest depth (bab-cops-robbers-bins.csv)",
                                  run.rows("bab-cops-robbers-bins.csv")))
    return (figure(fig, "ER and AMB against ε, one line per game and depth, drawn with "
                        "<code>course.plots.plot_er_amb</code> from this run's "
                        "<code>bab-cops-robbers-summary.csv</code>."),
            tables, "bab-cops-robbers-summary.csv")


def render_chen(run: Run) -> tuple[str, list[str], str]:
    from course.plots import plot_decision_error

    rows = run.rows("chen.csv")
    cases = list(dict.fromkeys(r["case"] for r in rows))
    fig, axes = _new_figure(len(cases), width=5.2, height=4.4)
    tables = []
    for axis, case in zip(axes, cases):
        part = [r for r in rows if r["case"] == case]
        b, h, h1, n = (part[0][k] for k in ("b", "h", "h1", "simulations"))
        plot_decision_error([{"skip": r["s"], "depth": r["d"], "nodes": r["nodes_counted"],
                              "error": r["mean_error"]} for r in part], ax=axis)
        axis.set_title(f"b = {b}, h = {h}, h1 = {h1}, {n} simulations")
        skips = sorted({r["s"] for r in part})
        get = _by(part, "d", "s")
        grid = [[f"d = {d}"] + [_f(get[d, s]["mean_error"], 3)
                                + (f" ({_f(get[d, s]['paper_error'], 3)})"
                                   if get[d, s]["paper_error"] is not None else "")
                                for s in skips] for d in sorted({r["d"] for r in part})]
        compared = [r for r in part if r["paper_within_ci"] is not None]
        inside = sum(1 for r in compared if r["paper_within_ci"])
        counted = [r for r in part if r["nodes_paper"] is not None]
        same = sum(1 for r in counted if r["nodes_counted"] == r["nodes_paper"])
        number = {"table1": ("1", "2"), "table3": ("3", "4")}.get(case)
        title = (f"Chen's Table {number[0]}" if number else case) + f" (b = {b}, h = {h}, h1 = {h1})"
        notes = []
        if compared:
            notes.append(f"Chen's value inside this run's 95% interval in {inside} of "
                         f"{len(compared)} cells")
        if counted:
            notes.append(f"nodes counted equal Table {number[1]} in {same} of {len(counted)} cells")
        tables.append(table(f"{title}: this run's mean decision error over {n} simulations"
                            + (", Chen's in brackets" if compared else "")
                            + ("; " + "; ".join(notes) if notes else "") + " (chen.csv)",
                            ["depth \\ skip"] + [f"s = {s}" for s in skips], grid))
    return (figure(fig, "Decision error against the nodes searched, one line per skip number "
                        "and one panel per case, drawn with "
                        "<code>course.plots.plot_decision_error</code> from this run's "
                        "<code>chen.csv</code>."), tables, "chen.csv")


def render_alphabeta_ordering(run: Run) -> tuple[str, list[str], str]:
    from course.plots import plot_leaves_vs_depth

    summary, rows = run.rows("alphabeta-ordering-summary.csv"), run.rows("alphabeta-ordering.csv")
    b = rows[0]["branching"]
    trees = summary[0]["instances"]
    orders = list(dict.fromkeys(r["ordering"] for r in summary))
    depths = sorted({r["depth"] for r in summary})
    get = _by(summary, "ordering", "depth")
    fig, (axis,) = _new_figure(1, width=6.4, height=4.4)
    plot_leaves_vs_depth({o: {d: get[o, d]["mean_evaluated"] for d in depths} for o in orders}, b,
                         ax=axis)
    formula = ["best_case", "b^(3d/4)", "b^d"]
    grid = [[f"d = {d}"] + [_f(get[o, d]["mean_evaluated"], 1) for o in orders]
            + [_f(get[orders[0], d][k], 1) for k in formula] for d in depths]
    best = [r for r in rows if r["ordering"] == "best-first"]
    exact = all(r["evaluated"] == get["best-first", r["depth"]]["best_case"] for r in best)
    caption = (f"This run: mean leaves evaluated over {trees} random trees per depth, b = {b} "
               "(alphabeta-ordering-summary.csv)"
               + (f"; best-first evaluated exactly b^⌈d/2⌉ + b^⌊d/2⌋ − 1 leaves on "
                  f"{'every one of the' if exact else 'not all'} {len(best)} trees" if best else ""))
    tables = [table(caption, ["depth"] + orders + ["b^⌈d/2⌉+b^⌊d/2⌋−1", "b^(3d/4)", "b^d"], grid)]
    return (figure(fig, "Leaves evaluated against depth, one line per move ordering, with the "
                        "theory's curves, drawn with <code>course.plots.plot_leaves_vs_depth</code>"
                        " from this run's <code>alphabeta-ordering-summary.csv</code>."),
            tables, "alphabeta-ordering-summary.csv")


RENDER = {"bab-rt": render_bab_rt, "bab-stochastic-rt": render_bab_stochastic_rt,
          "bab-cops-robbers": render_bab_cops_robbers, "chen": render_chen,
          "alphabeta-ordering": render_alphabeta_ordering}
"""How each experiment's part of the page is made from its run."""


def sizes(run: Run) -> tuple[str, str]:
    """(the sizes this run used, the paper's sizes), in words, from the command line's own table
    of defaults (:data:`course.experiments.cli.EXPERIMENTS`) and, for Chen's simulations, from the
    run's CSV and :func:`course.experiments.chen.paper_simulations`."""
    from course.experiments.cli import EXPERIMENTS

    small, full = [], []
    for flag, (big, little) in EXPERIMENTS[run.name][1].items():
        if big == little:
            continue
        words = flag.replace("_", " ").replace("eps", "ε")
        small.append(f"{words} {_values(little)}")
        full.append(f"{words} {_values(big)}")
    if run.name == "chen":
        from course.experiments.chen import paper_simulations

        cases = {r["case"]: r["simulations"] for r in run.rows("chen.csv")}
        small.append("simulations " + ", ".join(f"{n} for {c}" for c, n in cases.items()))
        full.append("simulations " + ", ".join(f"{paper_simulations(c)} for {c}" for c in cases
                                               if c.startswith("table")))
    return "; ".join(small), "; ".join(full)


def experiment_html(run: Run, href: str) -> str:
    """The page's part for the run: the line about its size, the figure, the tables, the files."""
    made, tables, source = RENDER[run.name](run)
    small, full = sizes(run)
    line = (f'<p class="course-experiment-run">Run by the build of this site (and kept until the '
            f"course's code changes), at the small size ({html.escape(small)}), in "
            f"{run.seconds:.1f} s: "
            f"<code>{html.escape(run.command)}</code>. At full size ({html.escape(full)}): "
            f"<code>python -m course experiment {html.escape(run.name)}</code>.</p>")
    links = ", ".join(f'<a href="{href}/{name}">{name}</a>' for name in run.files)
    files = (f'<p class="course-experiment-files">The files this run wrote, its own plot among '
             f"them: {links}.</p>")
    return (f'<div class="course-experiment" data-experiment="{html.escape(run.name)}" '
            f'data-source="{html.escape(source)}">' + line + made + "".join(tables) + files
            + "</div>")


# ---------------------------------------------------------------------------------------------
# the benchmarks' node counts
# ---------------------------------------------------------------------------------------------
def benchmark_nodes(root: Path) -> list[list[str]]:
    """Rows (game, search, nodes): the nodes each search of ``make benchmark`` visits on the trees
    it times, counted with the benchmark's own list of searches (nodes = expanded + evaluated);
    each fast-path search is checked equal to the reference on the way."""
    sys.path.insert(0, str(root / "tests" / "benchmarks"))
    try:
        import run_all
    finally:
        sys.path.remove(str(root / "tests" / "benchmarks"))
    from course.experiments.fast import fast_search
    from course.games import TicTacToe
    from course.games.random_trees import random_tree
    from course.search import alphabeta, minimax

    game = random_tree(4, 9, seed=0)
    rows = []
    for name, search in run_all.SEARCHES:
        result = search(game, False)
        nodes = result.expanded + result.evaluated
        fast = ""
        if name in run_all.FAST:
            algorithm, eps = run_all.FAST[name]
            quick = fast_search(algorithm, game, epsilon=eps, leaves=False)
            if (quick.expanded, quick.evaluated, quick.lower, quick.upper) != \
                    (result.expanded, result.evaluated, result.lower, result.upper):
                raise ExtensionError(f"the fast path's {name} differs from the reference on RT")
            fast = " (the fast path: the same)"
        rows.append(["random tree RT(b = 4, d = 9, seed 0)", name, f"{nodes:,}{fast}"])
    ttt = TicTacToe()
    for name, search in (("minimax", minimax), ("alphabeta", alphabeta)):
        result = search(ttt)
        rows.append(["tic-tac-toe, the whole tree (the course's TicTacToe)", name,
                     f"{result.expanded + result.evaluated:,}"])
    return rows


def benchmark_html(rows: list[list[str]]) -> str:
    return table("Nodes each search visits (expanded + evaluated) on the trees make benchmark "
                 "times, counted when this site was built with the benchmark's own list of "
                 "searches (tests/benchmarks/run_all.py)", ["tree", "search", "nodes"], rows)


# ---------------------------------------------------------------------------------------------
# directives
# ---------------------------------------------------------------------------------------------
def _state(app) -> dict:
    """Per build: the course's hash (computed once) and the runs used, by page."""
    if not hasattr(app, "course_research"):
        app.course_research = {"common": course_key(Path(app.config.course_root)), "runs": {}}
    return app.course_research


def _page_cache(app, kind: str, key: str, make) -> str:
    """The HTML ``make()`` returns, cached under ``key`` plus this file's hash."""
    key = source_key([Path(__file__).resolve()], extra=key)
    target = Path(app.config.course_docs_cache) / "research" / "pages" / f"{kind}.{key}.html"
    if target.exists():
        return target.read_text(encoding="utf-8")
    markup = make()
    target.parent.mkdir(parents=True, exist_ok=True)
    for old in target.parent.glob(f"{kind}.*.html"):
        old.unlink()
    target.write_text(markup, encoding="utf-8")
    return markup


def _note(app, docname: str, key: str) -> None:
    env = app.env
    if not hasattr(env, "course_research_keys"):
        env.course_research_keys = {}
    env.course_research_keys.setdefault(docname, set()).add(key)


class ExperimentDirective(Directive):
    """``{course-experiment} NAME``: the experiment's small run, as a figure and tables
    (:func:`experiment_html`).  ``:args:`` adds flags to the command (they win over
    ``--small``'s defaults, as on the command line)."""

    required_arguments = 1
    option_spec = {"args": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        app = env.app
        name = self.arguments[0]
        if name not in RENDER:
            raise self.error(f"unknown experiment {name!r}; one of {', '.join(RENDER)}")
        args = tuple(self.options.get("args", "").split())
        state = _state(app)
        cache = Path(app.config.course_docs_cache)
        run = run_small(name, args, cache=cache, root=Path(app.config.course_root),
                        common=state["common"])
        state["runs"][run.folder.name] = run
        key = run_key(state["common"], name, args)
        _note(app, env.docname, f"experiment|{name}|{' '.join(args)}|{key}")
        depth = env.docname.count("/")
        href = "../" * depth + f"{RUNS}/{run.folder.name}"
        kind = "-".join([name, *(a.strip("-") for a in args), env.docname.replace("/", "-")])
        markup = _page_cache(app, kind, f"{key}|{href}",
                             lambda: experiment_html(run, href))
        return [nodes.raw("", markup, format="html")]


class BenchmarkNodesDirective(Directive):
    """``{course-benchmark-nodes}``: the node counts of the benchmarked searches
    (:func:`benchmark_nodes`), counted when the site is built."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        app = env.app
        root = Path(app.config.course_root)
        key = source_key([root / "tests" / "benchmarks" / "run_all.py"],
                         extra=_state(app)["common"])
        _note(app, env.docname, f"benchmark|{key}")
        markup = _page_cache(app, f"benchmark-{env.docname.replace('/', '-')}", key,
                             lambda: benchmark_html(benchmark_nodes(root)))
        return [nodes.raw("", markup, format="html")]


# ---------------------------------------------------------------------------------------------
# Sphinx hooks
# ---------------------------------------------------------------------------------------------
def _current(app, recorded: str) -> bool:
    """Whether a key recorded by a page (``experiment|...`` or ``benchmark|...``) still holds."""
    kind, *rest = recorded.split("|")
    common = _state(app)["common"]
    if kind == "experiment":
        name, args, key = rest
        return run_key(common, name, tuple(args.split())) == key
    root = Path(app.config.course_root)
    return source_key([root / "tests" / "benchmarks" / "run_all.py"], extra=common) == rest[0]


def _on_outdated(app, env, added, changed, removed) -> list[str]:
    keys = getattr(env, "course_research_keys", {})
    return [doc for doc, recorded in keys.items()
            if doc not in added and doc not in removed
            and not all(_current(app, k) for k in recorded)]


def _on_purge(app, env, docname: str) -> None:
    getattr(env, "course_research_keys", {}).pop(docname, None)


def _on_finished(app, exception) -> None:
    """Copy the files of every run a page links to into ``<site>/research/runs/``."""
    if exception is not None or app.builder.format != "html":
        return
    cache = Path(app.config.course_docs_cache) / "research"
    wanted = {f"{key.split('|')[1]}.{key.split('|')[3]}"
              for keys in getattr(app.env, "course_research_keys", {}).values()
              for key in keys if key.startswith("experiment|")}
    target = Path(app.outdir) / RUNS
    shutil.rmtree(target, ignore_errors=True)
    for folder in sorted(wanted):
        source = cache / folder
        if source.is_dir():
            shutil.copytree(source, target / source.name,
                            ignore=shutil.ignore_patterns("*.json", "*.txt"))


def setup(app):
    # the same settings as course_lessons (which defines them when it is loaded too)
    for setting, default in (("course_root", str(ROOT)),
                             ("course_docs_cache", str(ROOT / "build" / "docs-cache"))):
        if setting not in app.config:
            app.add_config_value(setting, default, "env")
    app.add_directive("course-experiment", ExperimentDirective)
    app.add_directive("course-benchmark-nodes", BenchmarkNodesDirective)
    app.connect("env-get-outdated", _on_outdated)
    app.connect("env-purge-doc", _on_purge)
    app.connect("build-finished", _on_finished)
    return {"version": RUN_VERSION, "parallel_read_safe": False, "parallel_write_safe": True,
            "env_version": 1}


__all__ = ["Run", "run_small", "run_key", "course_key", "sizes", "experiment_html", "table",
           "figure", "benchmark_nodes", "RENDER"]
