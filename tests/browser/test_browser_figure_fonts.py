"""Static figures read the same without Helvetica or Arial (issue 21), checked in Chromium.

Graphviz lays the pictures out with Helvetica's widths; a machine with neither Helvetica nor
Arial (this one: ``fc-match Helvetica`` gives DejaVu Sans, about 10 % wider) used to draw their
text wider than that, so legend lines ran out of the legend's box and out of the picture, and
over the samples next to them.  Now every picture carries a subset of the course's font
(Liberation Sans 2 renamed CourseSans, :mod:`course.fonts`), whose widths are Helvetica's.

Each picture is opened as an SVG document of its own (as an ``<img>`` shows it) and all of them
inline in one HTML page (as the notebook's HTML output and the documentation site show them):

* every text stays inside the picture, inside its node's shape (at its baseline and at its
  capital height, so a label in a triangle fits the slanted sides), inside the legend's box, and
  clear of every other text;
* every text is as wide as CourseSans's advance widths say (so it is drawn in the embedded font,
  not a local one), also when several pictures with different subsets share a page;
* the matplotlib plot's texts (glyph outlines: no font needed) stay inside its picture and do not
  overlap;
* on a dark page (JupyterLab's dark theme) a tree and a plot keep a white background, so black
  text stays readable -- the plot is made as Jupyter's inline backend makes figures, transparent.
"""
from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]

# Problems of one picture: a text out of the picture, out of its node's shape or the legend's box,
# or over another text.  `selector` picks the texts (Graphviz: <text>; matplotlib: glyph groups).
CHECK = r"""
([selector, widths, index]) => {
  const svg = document.querySelectorAll("svg")[index];
  const problems = [];
  const tol = 0.75;
  const outer = svg.getBoundingClientRect();
  const screen = (el, x, y) => {
    const p = svg.createSVGPoint(); p.x = x; p.y = y;
    return p.matrixTransform(el.getScreenCTM());
  };
  const span = (shape, y) => {            // [left, right] of a node's shape at screen height y
    if (shape.tagName === "ellipse") {
      const c = screen(shape, shape.cx.baseVal.value, shape.cy.baseVal.value);
      const e = screen(shape, shape.cx.baseVal.value + shape.rx.baseVal.value,
                       shape.cy.baseVal.value + shape.ry.baseVal.value);
      const dy = (y - c.y) / (e.y - c.y);
      if (Math.abs(dy) >= 1) return null;
      const half = (e.x - c.x) * Math.sqrt(1 - dy * dy);
      return [c.x - half, c.x + half];
    }
    if (shape.tagName === "polygon") {
      const pts = Array.from(shape.points, (p) => screen(shape, p.x, p.y));
      const xs = [];
      for (let i = 0; i < pts.length; i++) {
        const a = pts[i], b = pts[(i + 1) % pts.length];
        if ((a.y - y) * (b.y - y) > 0 || a.y === b.y) continue;
        xs.push(a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y));
      }
      return xs.length ? [Math.min(...xs), Math.max(...xs)] : null;
    }
    const r = shape.getBoundingClientRect();
    return y >= r.top && y <= r.bottom ? [r.left, r.right] : null;
  };
  const legend = svg.querySelector("g.cluster[id$=legend] > path");
  const texts = Array.from(svg.querySelectorAll(selector)).filter(
    (t) => t.tagName !== "text" || t.textContent.trim());
  const boxes = [];
  for (const t of texts) {
    const r = t.getBoundingClientRect();
    const name = `${JSON.stringify(t.textContent || t.id)} (${(t.closest("g[id]") || svg).id})`;
    if (r.left < outer.left - tol || r.right > outer.right + tol ||
        r.top < outer.top - tol || r.bottom > outer.bottom + tol)
      problems.push(`${name} leaves the picture`);
    if (t.tagName === "text" && widths) {
      const em = widths[t.getAttribute("font-weight") === "bold" ? "bold" : "normal"];
      let want = 0;
      for (const ch of t.textContent) want += em[ch] ?? NaN;
      want *= parseFloat(t.getAttribute("font-size"));
      const got = t.getComputedTextLength();
      if (!(Math.abs(got - want) <= 0.005 * want + 0.05))
        problems.push(`${name} is ${got.toFixed(2)} wide, CourseSans says ${want.toFixed(2)}`);
    }
    const node = t.closest("g.node");
    const shape = node && node.querySelector("polygon, ellipse");
    if (t.tagName === "text" && shape && shape.getAttribute("fill") !== "none") {
      const base = screen(t, 0, t.y.baseVal[0].value).y;
      const size = parseFloat(t.getAttribute("font-size")) * t.getScreenCTM().a;
      for (const y of [base, base - 0.72 * size]) {
        const s = span(shape, y);
        if (!s || r.left < s[0] - tol || r.right > s[1] + tol)
          problems.push(`${name} sticks out of its ${shape.tagName}`);
      }
    }
    if (legend && node && /legend_/.test(node.id)) {
      const b = legend.getBoundingClientRect();
      if (r.left < b.left - tol || r.right > b.right + tol)
        problems.push(`${name} leaves the legend's box`);
    }
    boxes.push([name, r, t.closest("g.node, g.edge, g.cluster") || t]);
  }
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) {
      const [n1, a, g1] = boxes[i], [n2, b, g2] = boxes[j];
      if (g1 === g2 || g1.contains(g2) || g2.contains(g1)) continue;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 2) problems.push(`${n1} overlaps ${n2} by ${w.toFixed(1)} px`);
    }
  return {problems, count: texts.length};
}
"""


def _widths() -> dict[str, dict[str, float]]:
    """Advance widths in ems of the shipped font's characters, by weight."""
    from fontTools.ttLib import TTFont

    out = {}
    for weight, name in (("normal", "Regular"), ("bold", "Bold")):
        font = TTFont(REPO / "course" / "fonts" / f"CourseSans-{name}.ttf")
        em = font["head"].unitsPerEm
        hmtx = font["hmtx"]
        out[weight] = {chr(cp): hmtx[glyph][0] / em for cp, glyph in font.getBestCmap().items()}
    return out


@pytest.fixture(scope="module")
def figures():
    """A big search with a title and legend, a chance tree, the legend and a matplotlib plot."""
    import matplotlib

    matplotlib.use("Agg")
    from course import alphabeta, bab, expectimax
    from course.draw import draw_tree, legend
    from course.examples import bab_figure3, chance_note_game
    from course.games.random_trees import random_tree
    from course.plots import plot_er_amb

    big = random_tree(3, 5, seed=7)
    small = bab_figure3()
    chance = chance_note_game()
    pictures = {
        "alphabeta on 243 leaves": draw_tree(big, alphabeta(big, trace=True), legend=True,
                                             max_nodes=80),
        "bab with bounds": draw_tree(small, bab(small, epsilon=2, trace=True), legend=True),
        "expectimax": draw_tree(chance, expectimax(chance, trace=True)),
        "legend": legend(),
    }
    rows = [{"depth": d, "epsilon": e, "er": 1 - e / (30 * d), "amb": e * 0.4}
            for d in (3, 5, 7) for e in (0, 10, 20, 40)]
    buffer = io.StringIO()
    plot_er_amb(rows).savefig(buffer, format="svg")
    return pictures, buffer.getvalue()


def _check(page, selector: str, widths, index: int = 0) -> dict:
    page.evaluate("document.fonts.ready.then(() => true)")
    return page.evaluate(CHECK, [selector, widths, index])


def test_every_label_fits_in_the_font_it_is_drawn_with(browser, figures, tmp_path):
    pictures, plot = figures
    widths = _widths()
    page = browser.new_page()
    try:
        failures = []
        for name, picture in pictures.items():            # each alone, as an <img> shows it
            path = tmp_path / f"{name}.svg"
            path.write_text(picture.svg(), encoding="utf-8")
            page.goto(path.as_uri())
            result = _check(page, "text", widths)
            assert result["count"] > 10, name
            failures += [f"{name}: {p}" for p in result["problems"]]
        path = tmp_path / "plot.svg"
        path.write_text(plot, encoding="utf-8")
        page.goto(path.as_uri())
        result = _check(page, 'g[id^="text_"]', None)
        assert result["count"] > 20
        failures += [f"plot: {p}" for p in result["problems"]]
        # every picture inline in one page (as the documentation site's legend shows it): their
        # subsets differ, each keeps its own
        page.goto("about:blank")
        page.set_content("<!doctype html><body>" + "".join(
            f'<div style="width:max-content">{p.inline_svg()}</div>' for p in pictures.values())
            + "</body>")
        for i in range(len(pictures)):
            result = _check(page, "text", widths, i)
            failures += [f"inline picture {i + 1}: {p}" for p in result["problems"]]
        failures.sort(key=lambda p: "CourseSans says" in p)      # overflows first, then widths
        assert not failures, f"{len(failures)} problems:\n" + "\n".join(failures[:25])
    finally:
        page.close()


def test_figures_keep_a_white_background_on_a_dark_page(browser, figures):
    import matplotlib
    import matplotlib.image
    import matplotlib.pyplot as plt

    from course.plots import figure_html, plot_er_amb

    pictures, _ = figures
    svg = pictures["bab with bounds"].svg().encode("utf-8")
    tree = f'<img id="tree" src="data:image/svg+xml;base64,{base64.b64encode(svg).decode()}">'
    # Jupyter's inline backend makes every figure transparent (matplotlib_inline's defaults)
    with matplotlib.rc_context({"figure.facecolor": (1, 1, 1, 0),
                                "figure.edgecolor": (1, 1, 1, 0)}):
        fig = plot_er_amb({"d=3": ([0, 10, 20], [1.0, 0.7, 0.5], [0.0, 4.0, 8.0])})
        plot = figure_html(fig).replace("<img ", '<img id="plot" ', 1)
        plt.close(fig)
    page = browser.new_page()
    try:                                      # JupyterLab's dark theme: --jp-layout-color0 #111
        page.set_content(f'<!doctype html><body style="background:#111111;margin:8px">'
                         f"{tree}<br>{plot}</body>")
        page.wait_for_function("Array.from(document.images).every((i) => i.complete)")
        for name in ("tree", "plot"):
            box = page.locator(f"#{name}").bounding_box()
            shot = page.screenshot(full_page=True, clip={"x": box["x"] + 1, "y": box["y"] + 1, "width": 4,
                                         "height": 4})
            pixels = matplotlib.image.imread(io.BytesIO(shot), format="png")
            assert pixels[..., :3].min() > 0.95, f"the {name}'s corner is not white on a dark page"
    finally:
        page.close()


def test_explorers_draw_their_text_in_the_course_font(browser):
    """The explorers' CSS (``TreeView._css``) beats the widget's own rule, in either order."""
    import re

    from course.widgets.tree_view import TreeView

    widget_css = re.search(r"const CSS = `(.*?)`;", (REPO / "course" / "widgets" / "tree_view.js")
                           .read_text(encoding="utf-8"), re.S).group(1)
    widths = _widths()
    label = "α=-∞ β=+∞ [3, 7] … 64 leaves"
    want = {w: sum(widths[w][c] for c in label) * 12 for w in ("normal", "bold")}
    page = browser.new_page()
    try:
        for styles in ((widget_css, TreeView._css), (TreeView._css, widget_css)):
            page.set_content(
                "<!doctype html><head>" + "".join(f"<style>{s}</style>" for s in styles)
                + '</head><body><div class="course-tree-view"><div class="ctv-port">'
                '<svg width="400" height="60"><text x="5" y="20" font-family="Helvetica,sans-Serif"'
                f' font-size="12">{label}</text><text x="5" y="40" font-weight="bold" '
                f'font-family="Helvetica,sans-Serif" font-size="12">{label}</text></svg></div></div>')
            page.evaluate("document.fonts.load('12px CourseSans').then(() => document.fonts.ready)"
                          ".then(() => document.fonts.load('bold 12px CourseSans'))")
            got = page.evaluate("Array.from(document.querySelectorAll('text'),"
                                " (t) => t.getComputedTextLength())")
            assert got == pytest.approx([want["normal"], want["bold"]], rel=0.005), styles[0][:40]
    finally:
        page.close()


# -- the legend: no label over a symbol (issue 21) ------------------------------------------------

# Every text of the legend against every symbol of the legend (sample shapes, sample lines and
# their end dots, strokes included): a text may only sit inside its own node's shape (a sample's
# value); an edge's own label ("cut") must clear its line.
LEGEND_OVERLAPS = r"""
([index]) => {
  const svg = document.querySelectorAll("svg")[index];
  const problems = [];
  const grown = (el) => {                  // the drawn box: half the stroke width around it
    const r = el.getBoundingClientRect();
    const half = (parseFloat(el.getAttribute("stroke-width") || "1") / 2) * el.getScreenCTM().a;
    return {left: r.left - half, right: r.right + half, top: r.top - half, bottom: r.bottom + half};
  };
  const groups = Array.from(svg.querySelectorAll("g.node[id^=legend_], g.edge[id^=legend_]"));
  const shapes = [];
  for (const g of groups)
    for (const s of g.querySelectorAll("polygon, ellipse, path, polyline"))
      if (s.getAttribute("stroke") !== "transparent" && s.getAttribute("fill") !== "none" ||
          s.getAttribute("stroke") && s.getAttribute("stroke") !== "transparent")
        shapes.push([g, grown(s)]);
  let texts = 0;
  for (const g of groups)
    for (const t of g.querySelectorAll("text")) {
      if (!t.textContent.trim()) continue;
      texts++;
      const r = t.getBoundingClientRect();
      for (const [owner, b] of shapes) {
        if (owner === g && g.classList.contains("node")) continue;   // a sample's own value
        const w = Math.min(r.right, b.right) - Math.max(r.left, b.left);
        const h = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
        if (w > 0.5 && h > 0.5)
          problems.push(`${JSON.stringify(t.textContent)} (${g.id}) is over the symbol of ` +
                        `${owner.id} by ${w.toFixed(1)} x ${h.toFixed(1)} px`);
      }
    }
  return {problems, texts, shapes: shapes.length};
}
"""


def test_legend_labels_clear_their_symbols(browser, figures):
    """Each legend label beside its sample, never over it or another (the "cut" mark sat on its
    dashed line); the samples' own text at the tree's sizes (α/β was 7 pt, 9 px)."""
    pictures, _ = figures
    page = browser.new_page()
    try:
        failures = []
        for name in ("legend", "bab with bounds", "alphabeta on 243 leaves"):
            page.set_content("<!doctype html><body>" + pictures[name].inline_svg() + "</body>")
            page.evaluate("document.fonts.ready.then(() => true)")
            result = page.evaluate(LEGEND_OVERLAPS, [0])
            assert result["texts"] >= 20 and result["shapes"] >= 20, (name, result)
            failures += [f"{name}: {p}" for p in result["problems"]]
            small = page.evaluate("""() => Array.from(document.querySelectorAll(
                'g[id^=legend_] text'), (t) => [t.textContent, t.getBoundingClientRect().height,
                parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])
                .filter(([, , px]) => px < 13)""")
            failures += [f"{name}: {t!r} is drawn at {px:.1f} px" for t, _, px in small]
        assert not failures, "\n".join(failures)
    finally:
        page.close()


# -- the picture as an image keeps its font (issue 21) -------------------------------------------

def test_a_picture_shown_as_an_image_draws_its_embedded_font(browser, figures):
    """html() shows the SVG as an <img> (a data: URI): inside an image no other file may load,
    but the font is a data: URI too.  The image looks like the same SVG drawn inline (in
    CourseSans, checked above), and unlike the SVG without its font (the viewer's sans-serif)."""
    import re

    import matplotlib.image
    import numpy as np

    pictures, _ = figures
    picture = pictures["bab with bounds"]
    svg = picture.svg()
    bare = re.sub(r"<style>.*?</style>", "", svg, flags=re.S)
    assert bare != svg

    def img(text: str, key: str) -> str:
        data = base64.b64encode(text.encode("utf-8")).decode()
        return f'<img id="{key}" style="display:block" src="data:image/svg+xml;base64,{data}">'

    html = picture.html().replace('<img ', '<img id="html" ', 1)
    # inline at the image's size in whole pixels (html() rounds the points), so both scale alike
    width, height = re.search(r'<img [^>]*width="(\d+)" height="(\d+)"', html).groups()
    inline_svg = re.sub(r'(<svg\b[^>]*?)\swidth="[\d.]+pt"\s+height="[\d.]+pt"',
                        rf'\1 width="{width}px" height="{height}px"', picture.inline_svg(), count=1)
    page = browser.new_page(device_scale_factor=1)
    try:
        page.set_content("<!doctype html><body style='margin:0'>"
                         f"<div id='inline' style='width:max-content'>{inline_svg}</div>"
                         f"{html}{img(bare, 'bare')}</body>")
        page.wait_for_function("Array.from(document.images).every((i) => i.complete)")
        page.evaluate("document.fonts.ready.then(() => true)")
        page.wait_for_timeout(300)

        def shot(selector: str):
            return matplotlib.image.imread(io.BytesIO(page.locator(selector).screenshot()),
                                           format="png")[..., :3]

        inline, shown, fallback = shot("#inline svg"), shot("#html"), shot("#bare")
        rows = min(len(inline), len(shown), len(fallback))      # a pixel row may round apart
        assert rows > 0.99 * len(inline) and inline.shape[1] == shown.shape[1] == fallback.shape[1]
        inline, shown, fallback = inline[:rows], shown[:rows], fallback[:rows]
        # pixels that differ a lot (a glyph's stroke here, none there), not by anti-aliasing
        same = int((np.abs(inline - shown).max(axis=2) > 0.5).sum())
        other = int((np.abs(inline - fallback).max(axis=2) > 0.5).sum())
        print(f"pixels far apart: image vs inline {same}, without its font vs inline {other}")
        assert other > 1000 and same < other / 20, (same, other)
    finally:
        page.close()
