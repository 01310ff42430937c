"""Plumbing shared by the experiments: seeds, progress, parallel runs, CSV, tables, figures.

Nothing here knows about a particular experiment.  Figures are drawn on a
bare :class:`matplotlib.figure.Figure` with the Agg canvas, so running an
experiment never touches pyplot's global state or needs a display.
"""

from __future__ import annotations

import csv
import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .._optional import lazy_module
from ..errors import ParameterError

np = lazy_module("numpy")  # imported on first use: `python -m course` loads this module

__all__ = [
    "DEFAULT_OUT",
    "ExperimentOutput",
    "Progress",
    "derive_seed",
    "parallel_map",
    "write_csv",
    "format_table",
    "mean_ci",
    "new_figure",
    "save_figure",
    "default_jobs",
]

DEFAULT_OUT = "experiment-results"
"""Where experiments write their files unless told otherwise (``--out``)."""


@dataclass
class ExperimentOutput:
    """What an experiment produced."""

    name: str
    """The experiment's command-line name, e.g. ``"bab-rt"``."""
    files: list[Path] = field(default_factory=list)
    """The files written (CSV first, then the PNG plot)."""
    table: str = ""
    """The summary table printed on standard output."""
    summary: dict = field(default_factory=dict)
    """The key numbers, for tests and the reproduction report."""
    seconds: float = 0.0
    """Wall-clock time of the run."""


def default_jobs() -> int:
    """Worker processes by default: the CPU cores available, at most 2."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


def derive_seed(*key: int) -> int:
    """A seed for one instance, derived from the experiment's seed and the instance's key.

    Uses :class:`numpy.random.SeedSequence`, so nearby keys give unrelated
    seeds and the mapping never changes between runs or machines.

    >>> derive_seed(0, 4, 9, 1) == derive_seed(0, 4, 9, 1) != derive_seed(0, 4, 9, 2)
    True
    """
    return int(np.random.SeedSequence([int(k) for k in key]).generate_state(1)[0])


class Progress:
    """Progress lines on standard error for runs longer than a few seconds.

    On a terminal the line is redrawn in place; otherwise (logs, CI) a plain
    line is printed at most every ``interval`` seconds, and once at the end.

    Parameters
    ----------
    label : str
        What is running, e.g. ``"bab-rt"``.
    total : int
        Number of work items.
    enabled : bool
        False silences it (``--quiet``).
    stream : file, optional
        Default ``sys.stderr``.
    interval : float
        Seconds between plain lines.
    """

    def __init__(self, label: str, total: int, *, enabled: bool = True,
                 stream: TextIO | None = None, interval: float = 2.0) -> None:
        self.label, self.total, self.enabled = label, max(0, int(total)), enabled
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        self.done = 0
        self.start = time.perf_counter()
        self._last = -math.inf
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def _line(self) -> str:
        elapsed = time.perf_counter() - self.start
        fraction = self.done / self.total if self.total else 1.0
        width = 24
        bar = "#" * int(width * fraction) + "-" * (width - int(width * fraction))
        eta = ""
        if 0 < self.done < self.total:
            eta = f", about {elapsed / self.done * (self.total - self.done):.0f} s left"
        return (f"{self.label}: [{bar}] {self.done}/{self.total} ({100 * fraction:.0f}%) "
                f"{elapsed:.1f} s{eta}")

    def advance(self, n: int = 1) -> None:
        """Record ``n`` finished items and maybe print."""
        self.done += n
        if not self.enabled:
            return
        now = time.perf_counter()
        finished = self.done >= self.total
        if self._tty:
            if finished or now - self._last >= 0.1:
                self.stream.write("\r" + self._line() + ("\n" if finished else ""))
                self.stream.flush()
                self._last = now
        elif finished or now - self._last >= self.interval:
            self.stream.write(self._line() + "\n")
            self.stream.flush()
            self._last = now


def parallel_map(func: Callable[[Any], Any], tasks: Sequence[Any], *, jobs: int = 1,
                 progress: Progress | None = None) -> list[Any]:
    """``[func(t) for t in tasks]``, in worker processes when ``jobs > 1``.

    The results come back in task order whatever order the workers finish
    in, so a run's output does not depend on ``jobs``.  ``func`` must be a
    module-level function (it is pickled).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ParameterError(f"jobs must be an integer >= 1, got {jobs!r}")
    results: list[Any] = [None] * len(tasks)
    if jobs == 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            results[i] = func(task)
            if progress is not None:
                progress.advance()
        return results
    # imported here: processes (multiprocessing) do not exist in the browser (Pyodide)
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
        futures = {pool.submit(func, task): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            if progress is not None:
                progress.advance()
    return results


def write_csv(path: Path, rows: Iterable[dict], *, columns: Sequence[str] | None = None) -> Path:
    """Write dictionaries as CSV (columns: ``columns`` or the first row's keys)."""
    rows = list(rows)
    if columns is None:
        columns = list(rows[0]) if rows else []
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _csv_value(row.get(k)) for k in columns})
    return path


def _csv_value(x: Any) -> Any:
    if isinstance(x, float):
        return repr(x) if math.isfinite(x) else ""
    if isinstance(x, np.generic):
        return x.item()
    return "" if x is None else x


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str = "") -> str:
    """A plain-text table with right-aligned columns (floats to 3 decimals).

    >>> print(format_table(["eps", "ER"], [[0, 1.0], [8, 0.52]]))
    eps     ER
      0  1.000
      8  0.520
    """
    def cell(x: Any) -> str:
        if x is None:
            return "-"
        if isinstance(x, (float, np.floating)):
            return f"{x:.3f}" if math.isfinite(x) else "-"
        return str(x)

    body = [[cell(x) for x in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(headers)]
    lines = ([title] if title else []) + ["  ".join(h.rjust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def mean_ci(values: Sequence[float], *, z: float = 1.96) -> tuple[float, float]:
    """Mean and the half-width of its normal-approximation confidence interval (95%).

    >>> mean_ci([1, 2, 3])  # doctest: +ELLIPSIS
    (2.0, 1.131...)
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    if x.size == 1:
        return float(x[0]), math.nan
    return float(x.mean()), float(z * x.std(ddof=1) / math.sqrt(x.size))


def new_figure(ncols: int = 1, nrows: int = 1, *, width: float = 5.0, height: float = 3.8):
    """A figure and its axes, drawn with Agg (no display, no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def save_figure(fig, path: Path) -> Path:
    """Save ``fig`` as a PNG at ``path`` (creating the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    return path
