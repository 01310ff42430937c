"""Tests of course.plots: each helper returns a figure with labelled axes and a legend."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from course.errors import ParameterError  # noqa: E402
from course.plots import plot_decision_error, plot_er_amb, plot_leaves_vs_depth  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def labelled(ax) -> bool:
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel()) and ax.get_legend() is not None


ROWS = [{"branching": 4, "depth": d, "epsilon": e, "er": 1 - e / (20 * d), "amb": e * 0.8}
        for d in (3, 5) for e in (16, 0, 8)]


def test_er_amb_from_rows():
    fig = plot_er_amb(ROWS)
    er, amb = fig.axes
    assert labelled(er) and labelled(amb)
    labels = [t.get_text() for t in er.get_legend().get_texts()]
    assert labels == ["b=4, d=3", "b=4, d=5"]
    line = er.get_lines()[0]
    assert list(line.get_xdata()) == [0, 8, 16]            # sorted by epsilon
    assert list(line.get_ydata()) == [1.0, 1 - 8 / 60, 1 - 16 / 60]
    # the AMB panel carries the AMB = eps bound of Theorem 1
    assert any("Theorem 1" in t.get_text() for t in amb.get_legend().get_texts())


def test_er_amb_from_mapping_on_given_axes():
    fig, axes = plt.subplots(1, 2)
    out = plot_er_amb({"d=3": ([0, 10], [1.0, 0.5], [0.0, 7.5])}, ax=axes)
    assert out is fig
    assert list(axes[1].get_lines()[0].get_ydata()) == [0.0, 7.5]


@pytest.mark.parametrize("table, message", [
    ([], "empty"),
    ([{"epsilon": 0, "er": 1}], "lacks"),
    ([{"epsilon": 0, "er": 1, "amb": 0}], "label"),
    ({"x": ([0, 1], [1], [0, 1])}, "differ in length"),
    ([{"label": "a", "epsilon": "zero", "er": 1, "amb": 0}], "must be a number"),
])
def test_er_amb_errors(table, message):
    with pytest.raises(ParameterError, match=message):
        plot_er_amb(table)


def test_leaves_vs_depth():
    counts = {"best-first": {1: 3, 2: 5, 3: 11, 4: 17}, "random": [(4, 40), (1, 3), (2, 7), (3, 19)]}
    fig = plot_leaves_vs_depth(counts, 3)
    (ax,) = fig.axes
    assert labelled(ax) and ax.get_yscale() == "log"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["random"].get_xdata()) == [1, 2, 3, 4]
    assert list(lines[r"minimax: $b^d$"].get_ydata()) == [3, 9, 27, 81]
    best = next(line for label, line in lines.items() if label.startswith("best case"))
    assert list(best.get_ydata()) == [3, 5, 11, 17]


@pytest.mark.parametrize("counts, branching, message", [
    ({}, 3, "non-empty"),
    ({"given": {1: 0}}, 3, "positive"),
    ({"given": {1: 3}}, 1, "branching"),
    ({"given": 5}, 3, "depth -> leaves"),
])
def test_leaves_vs_depth_errors(counts, branching, message):
    with pytest.raises(ParameterError, match=message):
        plot_leaves_vs_depth(counts, branching)


def test_decision_error():
    rows = [{"skip": s, "depth": d, "nodes": 5 ** d - s * d, "error": 1 / (d + s)}
            for s in (0, 2) for d in (3, 1, 2)]
    fig = plot_decision_error(rows)
    (ax,) = fig.axes
    assert labelled(ax) and ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["s = 0", "s = 2"]
    assert list(ax.get_lines()[0].get_xdata()) == [5, 25, 125]   # joined in order of nodes
    assert sum(1 for t in ax.texts if t.get_text().startswith("d=")) == 6


@pytest.mark.parametrize("rows, message", [
    ([{"nodes": 5}], "'nodes' and 'error'"),
    ([{"nodes": 5, "error": 0.1}], "skip"),
    ([{"nodes": 0, "error": 0.1, "skip": 0}], "positive"),
    ([], "no rows"),
    ("rows", "list of dicts"),
])
def test_decision_error_errors(rows, message):
    with pytest.raises(ParameterError, match=message):
        plot_decision_error(rows)


def test_best_case_line_drawn_above_a_measurement_on_it():
    """Best-first ordering lies exactly on the best case: the formula must stay visible on top."""
    counts = {"best-first": {d: 4 ** -(-d // 2) + 4 ** (d // 2) - 1 for d in range(1, 6)}}
    fig = plot_leaves_vs_depth(counts, 4)
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    best = next(line for label, line in lines.items() if label.startswith("best case"))
    measured = lines["best-first"]
    assert list(best.get_ydata()) == list(measured.get_ydata())       # the same points...
    assert best.get_zorder() > measured.get_zorder()                   # ...formula drawn on top,
    assert best.get_linestyle() == ":" and best.get_marker() not in (None, "", "None")
    assert measured.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))  # hollow markers
    assert best.get_color() != measured.get_color()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "best-first" in legend and any(t.startswith("best case") for t in legend)


def _overlapping_annotations(fig):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.axes[0].texts]
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:]
            if box_a.overlaps(box_b)]


def test_decision_error_depth_labels_do_not_pile_up():
    """At depth 1 every skip number searches 3-6 nodes with the same error: one readable label,
    not "d=d=d=1"."""
    rows = [{"skip": s, "depth": d, "nodes": (6 - s) ** d, "error": 1.0 if d == 1 else 1 / d}
            for d in (1, 2, 3, 4) for s in range(4)]
    fig = plot_decision_error(rows)
    assert not _overlapping_annotations(fig)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("d=1") == 1                    # four coinciding points, one label
    assert {"d=1", "d=2", "d=3", "d=4"} <= set(texts)  # every depth is still written somewhere


# -- the course's font and a background for dark pages (issue 21) ---------------------------------

def test_plots_write_every_text_in_the_course_font():
    import io
    import re

    from matplotlib.text import Text

    fig = plot_leaves_vs_depth({"given": [(2, 10), (3, 30), (4, 80)]}, 3)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")            # glyphs as outlines (svg.fonttype "path")
    svg = buffer.getvalue()
    fonts = set(re.findall(r'<path id="([A-Za-z-]+)-[0-9a-f]+"', svg))
    # CourseSans for the words; mathtext's own DejaVu for the formulas ($b^d$)
    assert "CourseSans-Regular" in fonts and fonts <= {"CourseSans-Regular", "DejaVuSans",
                                                        "DejaVuSans-Oblique"}
    texts = [t for t in fig.findobj(Text) if t.get_text()]
    ticks = [t for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()]
    assert ticks and all(t.get_fontfamily()[0] == "CourseSans" for t in texts + ticks)


def test_figure_html_is_opaque_even_when_the_figure_is_transparent():
    import base64
    import io

    import matplotlib.image

    from course.plots import figure_html

    # Jupyter's inline backend makes figures transparent: on a dark theme black text vanished
    with matplotlib.rc_context({"figure.facecolor": (1, 1, 1, 0)}):
        fig = plot_er_amb(ROWS)
    data = figure_html(fig).split("base64,")[1].split('"')[0]
    pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")
    assert pixels.shape[2] == 4 and pixels[0, 0, 3] == 1.0 and pixels[0, 0, :3].min() == 1.0
    fig.set_facecolor("#222222")                 # a colour chosen on purpose is kept
    data = figure_html(fig).split("base64,")[1].split('"')[0]
    pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")
    assert abs(pixels[0, 0, 0] - 0x22 / 255) < 0.01


# -- a plot shows once in a notebook (issue 21) ------------------------------------------------

SHOWN_ONCE = {
    "last expression": "plot_er_amb(ROWS)",
    "assigned": "fig = plot_er_amb(ROWS)",
    "semicolon": "plot_er_amb(ROWS);",
    "displayed, then the cell ends": "fig = plot_er_amb(ROWS)\ndisplay(fig)",
    "on given axes, returned": "fig, ax = plt.subplots(1, 2)\nplot_er_amb(ROWS, ax=ax)",
    "plain pyplot, returned": "fig, ax = plt.subplots()\nax.plot([0, 1], [1, 2], label='a')\nfig",
    "two plots": "plot_leaves_vs_depth({'given': [(2, 10), (3, 30)]}, 3)\nplot_er_amb(ROWS)",
}


def test_every_plot_shows_once_with_its_text_alternative():
    """In a kernel (Jupyter's inline backend, as JupyterLab runs it) a figure from course.plots
    shows exactly once, as the HTML image with its alt text -- not again by the inline backend
    when the cell ends (it showed twice when returned as the cell's last expression)."""
    nbclient = pytest.importorskip("nbclient")
    import nbformat

    setup = ("import matplotlib.pyplot as plt\n"
             "from course.plots import plot_er_amb, plot_leaves_vs_depth\n"
             f"ROWS = {ROWS!r}")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(setup)] + [
        nbformat.v4.new_code_cell(code) for code in SHOWN_ONCE.values()]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    counts = {}
    for name, cell in zip(SHOWN_ONCE, nb.cells[1:]):
        images = [out for out in cell.outputs if "image/png" in out.get("data", {})
                  or "<img" in out.get("data", {}).get("text/html", "")]
        counts[name] = len(images)
        for out in images:        # JupyterLab shows the HTML: the image with its alt text
            assert '<img alt="Plot' in out["data"]["text/html"], name
    expected = {name: 2 if name == "two plots" else 1 for name in SHOWN_ONCE}
    assert counts == expected


def test_a_plot_in_words_has_no_tex_and_says_log_scale_once():
    """The alt text is read aloud: mathtext labels are written out, a log axis is named once,
    and error-bar series (the experiments' plots) are described like lines."""
    from course.plots import describe_figure

    fig = plot_leaves_vs_depth({"best-first": {2: 9, 4: 40}, "random": {2: 12, 4: 90}}, 3)
    words = describe_figure(fig)
    assert "$" not in words and "\\" not in words and "{" not in words, words
    assert "b^(⌈d/2⌉) + b^(⌊d/2⌋) - 1" in words and "b^(3d/4)" in words
    assert words.count("(log scale)") == 1, words
    plt.close(fig)

    fig, ax = plt.subplots()
    ax.errorbar([0, 4, 8], [1, 0.8, 0.6], yerr=[0.1, 0.1, 0.1], label="d=5")
    assert "d=5 (3 points, from 1 at x=0 to 0.6 at x=8)" in describe_figure(fig)
    plt.close(fig)
