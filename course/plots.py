"""Matplotlib figures for lessons and experiments.

============================  =========================================================
function                      draws
============================  =========================================================
:func:`plot_er_amb`           ER and AMB against ε, one line per tree size (BAB Figures 4-6)
:func:`plot_leaves_vs_depth`  alpha-beta's leaves per ordering against depth, with the
                              best case, ``b**(3d/4)`` and ``b**d`` (log scale)
:func:`plot_decision_error`   Chen's decision error against nodes searched, one line per
                              skip number (log scale)
============================  =========================================================

Every function takes plain Python data (documented with it), draws on ``ax``
if given (else a new figure sized for a notebook), labels its axes, adds a
legend, and returns the :class:`matplotlib.figure.Figure`.  Lines differ by
marker and dash as well as by colour (Okabe-Ito), so the plots survive grey
scale and colour-blindness.  Matplotlib is imported only when a function is
called.

Every figure shown in a notebook after this module is imported carries a text
alternative (:func:`describe_figure`: each panel's title, axes and lines with
their ranges) as the ``alt`` of its image (:func:`figure_html`), so a screen
reader says what the plot shows instead of "image".

References
----------
Atzmon, Stern & Saffidine (2018), Figures 4-6 (seed 000); Knuth & Moore (1975)
and the adversarial-search notes (seed 004) for the best case; Chen, *A Study
of Decision Error in Selective Game Tree Search*, Figures 1-2 (seed 003).
"""

from __future__ import annotations

import math
import re
import sys
from numbers import Real
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ._optional import require
from .errors import ParameterError

__all__ = ["plot_er_amb", "plot_leaves_vs_depth", "plot_decision_error", "STYLES",
           "describe_figure", "figure_html"]

_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_DASHES = ("-", "--", "-.", ":")

STYLES = tuple({"color": c, "marker": m, "linestyle": _DASHES[i % len(_DASHES)]}
               for i, (c, m) in enumerate(zip(_COLOURS, _MARKERS)))
"""Line styles used in turn: colour, marker and dash all change."""


def _style(i: int) -> dict[str, Any]:
    return dict(STYLES[i % len(STYLES)])


def _axes(ax: Any, count: int, *, width: float = 6.4, height: float = 4.0):
    """(figure, list of axes): the caller's axes, or a new figure with ``count`` panels."""
    plt = require("matplotlib.pyplot", "this plot")

    if ax is None:
        fig, axes = plt.subplots(1, count, figsize=(width * count if count > 1 else width, height),
                                 layout="constrained")
        # the inline backend drops every Figure formatter when it is set up (on the first
        # figure): register the text alternative again now that it is
        _show_figures_with_alt_text()
        axes = list(axes) if count > 1 else [axes]
        return fig, axes
    _show_figures_with_alt_text()
    if hasattr(ax, "flat"):              # a numpy array of axes, from plt.subplots
        axes = list(ax.flat)
    else:
        axes = list(ax) if isinstance(ax, (list, tuple)) else [ax]
    if len(axes) != count:
        raise ParameterError(f"this plot needs {count} axes, got {len(axes)}")
    return axes[0].figure, axes


def _course_font(fig: Any, axes: Sequence[Any]) -> None:
    """Write every text of ``fig`` in the course's font, CourseSans (:mod:`course.fonts`).

    The same typeface and widths as the tree pictures, on every machine: matplotlib draws with
    the font file shipped in the package, not with whatever sans-serif is installed; DejaVu Sans
    (which matplotlib ships) stands in for a character CourseSans lacks.  Tick labels made later
    (when the figure is drawn) take the font from ``tick_params``.
    """
    from matplotlib.text import Text

    from .fonts import use_in_matplotlib

    family = [use_in_matplotlib(), "DejaVu Sans"]
    for text in fig.findobj(Text):
        text.set_fontfamily(family)
    for axis in axes:
        try:
            axis.tick_params(which="both", labelfontfamily=family)
        except (TypeError, ValueError):     # pragma: no cover - matplotlib < 3.8
            pass


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ParameterError(f"{what} must be a number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ParameterError(f"{what} is NaN")
    return number


def _series_label(row: Mapping[str, Any]) -> str:
    if "label" in row:
        return str(row["label"])
    parts = [f"{key[0]}={row[key]}" for key in ("branching", "depth") if key in row]
    if not parts:
        raise ParameterError(
            f'each row needs a "label", or "branching"/"depth" to name its line; got keys {sorted(row)}'
        )
    return ", ".join(parts)


def _er_amb_series(table: Any) -> dict[str, list[tuple[float, float, float]]]:
    series: dict[str, list[tuple[float, float, float]]] = {}
    if isinstance(table, Mapping):
        for label, columns in table.items():
            try:
                eps, er, amb = columns
            except (TypeError, ValueError):
                raise ParameterError(
                    f"series {label!r} must be (epsilons, ERs, AMBs), three equal-length lists"
                ) from None
            if not len(eps) == len(er) == len(amb):
                raise ParameterError(f"series {label!r}: epsilons, ERs and AMBs differ in length")
            series[str(label)] = [(_number(e, "epsilon"), _number(r, "ER"), _number(a, "AMB"))
                                  for e, r, a in zip(eps, er, amb)]
        return series
    if isinstance(table, (str, bytes)) or not isinstance(table, Iterable):
        raise ParameterError("table must be a list of row dicts or a mapping label -> (eps, ER, AMB)")
    for row in table:
        if not isinstance(row, Mapping):
            raise ParameterError(f"each row must be a dict, got {type(row).__name__}")
        missing = [k for k in ("epsilon", "er", "amb") if k not in row]
        if missing:
            raise ParameterError(f"row {dict(row)!r} lacks {missing}; rows need epsilon, er and amb")
        series.setdefault(_series_label(row), []).append(
            (_number(row["epsilon"], "epsilon"), _number(row["er"], "ER"), _number(row["amb"], "AMB")))
    return series


def plot_er_amb(table: Any, *, ax: Any = None):
    """ER and AMB against ε, one line per tree size: Figures 4-6 of the BAB paper.

    Parameters
    ----------
    table : list of dict, or mapping
        Either rows ``{"epsilon": e, "er": ER, "amb": AMB, "label": ...}``
        (instead of ``label``, ``branching`` and/or ``depth`` name the line:
        ``"b=4, d=5"``; other keys are ignored), or a mapping
        ``label -> (epsilons, ERs, AMBs)``.  Points of a line are sorted by ε.
    ax : pair of matplotlib Axes, optional
        Where to draw ER and AMB.  Default: a new figure with two panels.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ParameterError
        For rows without epsilon/er/amb or a name, or non-numbers.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"depth": 3, "epsilon": e, "er": 1 - e / 100, "amb": e / 2} for e in (0, 20, 40)]
    >>> fig = plot_er_amb(rows)
    >>> [a.get_xlabel() for a in fig.axes]
    ['ε (allowed error)', 'ε (allowed error)']

    Notes
    -----
    ER is the number of expansions divided by BAB's with ε = 0 (Star1); AMB
    is the root's ``U - L``.  Theorem 1 bounds AMB by ε; the AMB panel draws
    ``AMB = ε`` as a dotted reference line.
    """
    series = _er_amb_series(table)
    if not series:
        raise ParameterError("nothing to plot: the table is empty")
    fig, (ax_er, ax_amb) = _axes(ax, 2, width=5.0)
    largest = 0.0
    for i, (label, points) in enumerate(series.items()):
        points.sort()
        eps = [p[0] for p in points]
        largest = max(largest, max(eps))
        style = _style(i)
        ax_er.plot(eps, [p[1] for p in points], label=label, **style)
        ax_amb.plot(eps, [p[2] for p in points], label=label, **style)
    ax_amb.plot([0, largest], [0, largest], color="#888888", linestyle=":", linewidth=1.2,
                label="AMB = ε (Theorem 1 bound)")
    ax_er.set(xlabel="ε (allowed error)", ylabel="ER (expansions / expansions at ε = 0)",
              title="Expanded ratio")
    ax_amb.set(xlabel="ε (allowed error)", ylabel="AMB (U − L at the root)",
               title="Actual minimax bound")
    ax_er.set_ylim(bottom=0)
    ax_amb.set_ylim(bottom=0)
    for a in (ax_er, ax_amb):
        a.grid(True, alpha=0.3)
        a.legend(fontsize="small")
    _course_font(fig, (ax_er, ax_amb))
    return fig


def _counts(counts: Any) -> dict[str, list[tuple[int, float]]]:
    if not isinstance(counts, Mapping) or not counts:
        raise ParameterError("counts must be a non-empty mapping ordering -> {depth: leaves}")
    out: dict[str, list[tuple[int, float]]] = {}
    for name, values in counts.items():
        pairs = values.items() if isinstance(values, Mapping) else values
        try:
            points = sorted((int(d), _number(n, f"{name} leaves")) for d, n in pairs)
        except (TypeError, ValueError) as exc:
            raise ParameterError(
                f"counts[{name!r}] must map depth -> leaves (or be (depth, leaves) pairs): {exc}"
            ) from None
        if any(n <= 0 for _, n in points):
            raise ParameterError(f"counts[{name!r}]: leaf counts must be positive for a log scale")
        out[str(name)] = points
    return out


def plot_leaves_vs_depth(counts: Any, branching: int, *, ax: Any = None):
    """Leaves alpha-beta evaluates against depth, per ordering, with the theory's curves.

    Parameters
    ----------
    counts : mapping
        ``ordering -> {depth: leaves}`` (or ``ordering -> [(depth, leaves), ...]``),
        e.g. averages over random trees of branching ``branching``.
    branching : int
        The trees' branching factor b, for the reference curves: the best case
        ``b**ceil(d/2) + b**floor(d/2) - 1``, ``b**(3d/4)`` (random ordering,
        roughly) and ``b**d`` (minimax).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ParameterError
        For an empty or malformed ``counts``, non-positive counts, or a
        branching below 2.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> fig = plot_leaves_vs_depth({"best-first": {1: 3, 2: 5, 3: 11}}, 3)
    >>> ax = fig.axes[0]
    >>> ax.get_yscale(), ax.get_xlabel()
    ('log', 'depth d')
    """
    series = _counts(counts)
    if isinstance(branching, bool) or not isinstance(branching, int) or branching < 2:
        raise ParameterError(f"branching must be an integer >= 2, got {branching!r}")
    fig, (axis,) = _axes(ax, 1)
    depths = sorted({d for points in series.values() for d, _ in points})
    lo, hi = min(depths), max(depths)
    grid = list(range(lo, hi + 1))
    b = branching
    theory = [
        (r"minimax: $b^d$", [b ** d for d in grid], "-", ""),
        (r"random order, roughly: $b^{3d/4}$", [b ** (0.75 * d) for d in grid], "--", ""),
        (r"best case: $b^{\lceil d/2 \rceil} + b^{\lfloor d/2 \rfloor} - 1$",
         [b ** math.ceil(d / 2) + b ** (d // 2) - 1 for d in grid], ":", "+"),
    ]
    # The measured lines go underneath (zorder 2) with hollow markers; the theory curves are drawn
    # on top (zorder 3), thinner and dashed, so that a measurement lying exactly on a formula (best-
    # first ordering *is* the best case) shows both: the formula's dashes over the measured line.
    for i, (name, points) in enumerate(series.items()):
        style = _style(i)
        axis.plot([d for d, _ in points], [n for _, n in points], label=name, linewidth=2.6,
                  markersize=9, markerfacecolor="white", markeredgewidth=1.6, alpha=0.75,
                  zorder=2, **style)
    for label, values, dash, marker in theory:
        axis.plot(grid, values, color="#000000", linestyle=dash, linewidth=1.6, zorder=3,
                  marker=marker or None, markersize=9, markeredgewidth=1.4, label=label)
    axis.set_yscale("log")
    axis.set(xlabel="depth d", ylabel="leaves evaluated (log scale)",
             title=f"Alpha-beta leaves by move ordering (b = {b})")
    axis.set_xticks(grid)
    axis.grid(True, which="major", alpha=0.3)
    axis.legend(fontsize="small")
    _course_font(fig, (axis,))
    return fig


def _annotate_depths(axis: Any, points: list[tuple[float, float, Any]]) -> None:
    """Write ``d=<depth>`` beside points without letting two labels overlap.

    Points of equal depth from different lines often lie close together (at depth 1 every skip
    number searches 3 to 6 nodes), and writing each label would stack them into "d=d=d=1".  A
    label is placed at the first of a few offsets where its box (estimated in display pixels from
    the font size) meets no label already placed; a point whose depth is already written close by
    gets no second copy, and a label that fits nowhere is left out (its point still has a marker).
    """
    if not points:
        return
    fontsize = 7
    axis.autoscale_view()
    to_pixels = axis.transData.transform
    scale = axis.figure.dpi / 72.0                       # points -> pixels
    height = fontsize * 1.25 * scale
    offsets = [(3, 4), (3, -4 - fontsize * 1.25), (-3, 4), (-3, -4 - fontsize * 1.25)]
    placed: list[tuple[float, float, float, float, str]] = []      # label boxes
    anchors: list[tuple[float, float, str]] = []                     # labelled points

    def clashes(box):
        x0, y0, x1, y1 = box
        pad = 1 * scale
        return any(x0 < a1 + pad and a0 < x1 + pad and y0 < b1 + pad and b0 < y1 + pad
                   for a0, b0, a1, b1, _ in placed)

    for x, y, depth in points:
        text = f"d={depth}"
        width = 0.62 * fontsize * len(text) * scale
        px, py = to_pixels((x, y))
        if any(other == text and abs(px - ax_) < 40 * scale and abs(py - ay) < 20 * scale
               for ax_, ay, other in anchors):
            continue                                      # the same depth is written close by
        for dx, dy in offsets:
            left = px + dx * scale - (width if dx < 0 else 0)
            bottom = py + dy * scale
            box = (left, bottom, left + width, bottom + height)
            if not clashes(box):
                placed.append((*box, text))
                anchors.append((px, py, text))
                axis.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy),
                              ha="right" if dx < 0 else "left", va="bottom",
                              fontsize=fontsize, color="#444444", zorder=5)
                break


def plot_decision_error(rows: Sequence[Mapping[str, Any]], *, ax: Any = None):
    """Chen's decision error against nodes searched, one line per skip number.

    Parameters
    ----------
    rows : list of dict
        ``{"nodes": N, "error": E, "skip": s}``, optionally ``"depth": d``
        (written beside the point) and ``"label"`` (names the line instead of
        ``s = ...``).  Points of a line are joined in order of ``nodes``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ParameterError
        For rows without nodes/error or without skip/label, or nodes <= 0.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"skip": 0, "depth": d, "nodes": 5 ** d, "error": 1 / d} for d in (1, 2, 3)]
    >>> fig = plot_decision_error(rows)
    >>> fig.axes[0].get_xscale(), fig.axes[0].get_ylabel()
    ('log', 'average decision error')

    Notes
    -----
    A line that stops falling as nodes grow shows that searching deeper no longer
    helps (a plateau); only a line that rises beyond the sampling noise would show
    pathology, deeper search making decisions worse (Chen reads his Figures 1-2 so;
    lesson 3 compares depths node by node and finds a plateau).
    """
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Iterable):
        raise ParameterError("rows must be a list of dicts with nodes, error and skip")
    series: dict[str, list[tuple[float, float, Any]]] = {}
    for row in rows:
        if not isinstance(row, Mapping) or "nodes" not in row or "error" not in row:
            raise ParameterError(f"each row needs 'nodes' and 'error', got {row!r}")
        if "label" in row:
            label = str(row["label"])
        elif "skip" in row:
            label = f"s = {row['skip']}"
        else:
            raise ParameterError(f"each row needs 'skip' (or 'label') to name its line, got {row!r}")
        nodes = _number(row["nodes"], "nodes")
        if nodes <= 0:
            raise ParameterError(f"nodes must be positive for a log scale, got {nodes}")
        series.setdefault(label, []).append((nodes, _number(row["error"], "error"), row.get("depth")))
    if not series:
        raise ParameterError("nothing to plot: no rows")
    fig, (axis,) = _axes(ax, 1)
    for i, (label, points) in enumerate(series.items()):
        points.sort(key=lambda p: p[0])
        axis.plot([p[0] for p in points], [p[1] for p in points], label=label, **_style(i))
    axis.set_xscale("log")
    axis.set(xlabel="nodes searched (log scale)", ylabel="average decision error",
             title="Decision error of selective search")
    axis.set_ylim(bottom=0)
    _annotate_depths(axis, [(x, y, depth) for points in series.values() for x, y, depth in points
                            if depth is not None])
    axis.grid(True, alpha=0.3)
    axis.legend(title="moves skipped per node", fontsize="small")
    _course_font(fig, (axis,))
    return fig


# --- text alternatives (issue 21) ------------------------------------------------------------

def _short(value: float) -> str:
    return f"{value:.3g}"


_TEX_WORDS = {r"\lceil": "⌈", r"\rceil": "⌉", r"\lfloor": "⌊", r"\rfloor": "⌋", r"\sqrt": "√",
              r"\epsilon": "ε", r"\varepsilon": "ε", r"\alpha": "α", r"\beta": "β",
              r"\cdot": "·", r"\times": "×", r"\leq": "≤", r"\geq": "≥", r"\,": " ", r"\ ": " "}


def plain_text(label: str) -> str:
    r"""A matplotlib label as words a screen reader can say: mathtext (``$...$``) written out.

    >>> plain_text(r"best case: $b^{\lceil d/2 \rceil} + b^{\lfloor d/2 \rfloor} - 1$")
    'best case: b^(⌈d/2⌉) + b^(⌊d/2⌋) - 1'
    >>> plain_text(r"minimax: $b^d$"), plain_text("no maths, $5 bills")
    ('minimax: b^d', 'no maths, $5 bills')
    """
    def maths(match: re.Match) -> str:
        text = match.group(1)
        for word, symbol in _TEX_WORDS.items():
            text = text.replace(word + " ", symbol).replace(word, symbol)
        text = re.sub(r"\\[A-Za-z]+", "", text)                        # anything else: dropped
        while re.search(r"([\^_])\{([^{}]*)\}", text):
            text = re.sub(r"([\^_])\{([^{}]*)\}", lambda m: f"{m.group(1)}({m.group(2).strip()})", text)
        text = re.sub(r"\s*([⌉⌋])", r"\1", re.sub(r"([⌈⌊])\s*", r"\1", text))
        return text.replace("{", "").replace("}", "")
    return re.sub(r"\$([^$]+)\$", maths, label) if label.count("$") >= 2 else label


def _series(ax: Any) -> list[tuple[str, list[float], list[float]]]:
    """(label, xs, ys) of every labelled line of a panel, error-bar series included."""
    found, seen = [], set()
    for container in getattr(ax, "containers", []):
        lines = getattr(container, "lines", None)          # an ErrorbarContainer
        if lines and lines[0] is not None and not str(container.get_label()).startswith("_"):
            line = lines[0]
            seen.add(id(line))
            found.append((str(container.get_label()), list(line.get_xdata()), list(line.get_ydata())))
    for line in ax.get_lines():
        label = str(line.get_label())
        if id(line) in seen or label.startswith("_") or not len(line.get_xdata()):
            continue
        found.append((label, list(line.get_xdata()), list(line.get_ydata())))
    return found


def describe_figure(fig: Any) -> str:
    """A plot in words: each panel's title, axes (with their ranges) and lines.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    str
        One sentence per panel, each line given by its label, its number of points and
        where it starts and ends.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> rows = [{"depth": 3, "epsilon": e, "er": 1 - e / 100, "amb": e / 2} for e in (0, 20, 40)]
    >>> print(describe_figure(plot_er_amb(rows)))  # doctest: +NORMALIZE_WHITESPACE
    Plot with 2 panels. Panel 1, Expanded ratio: x is ε (allowed error) from 0 to 40, y is ER
    (expansions / expansions at ε = 0) from 0.6 to 1; lines: d=3 (3 points, from 1 at x=0 to 0.6
    at x=40). Panel 2, Actual minimax bound: x is ε (allowed error) from 0 to 40, y is AMB (U − L
    at the root) from 0 to 40; lines: d=3 (3 points, from 0 at x=0 to 20 at x=40), AMB = ε
    (Theorem 1 bound) (2 points, from 0 at x=0 to 40 at x=40).
    """
    axes = [a for a in fig.axes if a.get_visible()]
    parts = [f"Plot with {len(axes)} panel{'s' if len(axes) != 1 else ''}."]
    for i, ax in enumerate(axes, 1):
        title = plain_text(ax.get_title() or "")
        head = f"Panel {i}" + (f", {title}" if title else "") if len(axes) > 1 else (title or "Plot")
        if len(axes) == 1 and title:
            parts = [f"Plot, {title}."]
            head = ""
        data = [(list(map(float, l.get_xdata())), list(map(float, l.get_ydata())))
                for l in ax.get_lines() if len(l.get_xdata())]
        xs_all = [x for xs, _ in data for x in xs if math.isfinite(x)]
        ys_all = [y for _, ys in data for y in ys if math.isfinite(y)]
        x0, x1 = (min(xs_all), max(xs_all)) if xs_all else ax.get_xlim()
        y0, y1 = (min(ys_all), max(ys_all)) if ys_all else ax.get_ylim()
        xlabel, ylabel = plain_text(ax.get_xlabel() or "x"), plain_text(ax.get_ylabel() or "y")
        if ax.get_xscale() == "log" and "log" not in xlabel:
            xlabel += " (log scale)"
        if ax.get_yscale() == "log" and "log" not in ylabel:
            ylabel += " (log scale)"
        text = (f"x is {xlabel} from {_short(x0)} to {_short(x1)}, "
                f"y is {ylabel} from {_short(y0)} to {_short(y1)}")
        lines = []
        for label, xs, ys in _series(ax):
            label = plain_text(label)
            lines.append(f"{label} ({len(xs)} point{'s' if len(xs) != 1 else ''}, from "
                         f"{_short(float(ys[0]))} at x={_short(float(xs[0]))} to "
                         f"{_short(float(ys[-1]))} at x={_short(float(xs[-1]))})")
        if lines:
            text += "; lines: " + ", ".join(lines)
        parts.append((f"{head}: " if head else "") + text + ".")
    return " ".join(parts)


def figure_html(fig: Any) -> str:
    """A figure as an HTML ``<img>`` (PNG, as the notebook draws it) whose ``alt`` says what it shows.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [2, 3], label="a line"); _ = ax.set_title("<b>t</b>")
    >>> html = figure_html(fig)
    >>> html.startswith('<img alt="Plot, &lt;b&gt;t&lt;/b&gt;.') and "a line (2 points" in html
    True
    """
    import base64
    import io
    from html import escape

    buffer = io.BytesIO()
    # an opaque background, so the plot reads on a dark page too (Jupyter's inline backend makes
    # the figure transparent: black text on JupyterLab's dark theme); a chosen colour is kept
    face = fig.get_facecolor()
    fig.savefig(buffer, format="png", bbox_inches="tight",
                facecolor=face if face[3] > 0 else "white")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<img alt="{escape(describe_figure(fig), quote=True)}" '
            f'src="data:image/png;base64,{data}" style="max-width:100%">')


def _show_once(fig: Any) -> str:
    """:func:`figure_html` for IPython's display, which then lets pyplot forget the figure.

    Jupyter's inline backend shows every figure pyplot still holds when a cell ends; a figure
    returned as the cell's value (or shown with ``display``) was already shown, and showed twice.
    Closing it in pyplot only drops pyplot's reference: the figure can still be drawn and saved.
    """
    html = figure_html(fig)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close(fig)
    return html


def _show_figures_with_alt_text() -> None:
    """In IPython, show every matplotlib figure as :func:`figure_html` (JupyterLab prefers HTML),
    once."""
    try:
        from IPython import get_ipython
    except ImportError:                      # pragma: no cover - IPython comes with Jupyter
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    figure = sys.modules.get("matplotlib.figure")
    if figure is not None:
        formatter.for_type(figure.Figure, _show_once)
    else:
        formatter.for_type_by_name("matplotlib.figure", "Figure", _show_once)


_show_figures_with_alt_text()
