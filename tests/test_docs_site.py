"""The documentation site (issue 22): it builds offline with warnings as errors, its internal links
resolve, every page is in the navigation, the README is a front page that links into it, and
every lesson is a page, executed, with its pictures and their text alternatives, its launch and
download buttons.

The site is built ONCE per test session (:func:`shared_site`, also used by the browser half,
tests/browser/test_browser_docs_site.py) into a fresh folder, with warnings as errors.  The
lessons' outputs come from ``build/docs-cache`` (executed again only when a lesson or the course
changed) and the browser edition from its cache too, so a warm build takes about 20 s.
"""
from __future__ import annotations

import doctest
import json
from html import unescape as html_unescape
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LESSONS = sorted(p.stem for p in (ROOT / "lessons").glob("*.ipynb"))

pytest.importorskip("sphinx", reason="the docs extra (pip install -e '.[docs]')")


def build_site(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                           *extra, str(DOCS), str(out)], capture_output=True, text=True,
                          timeout=1800)


_SHARED: dict = {}
#: A copy of docs/ elsewhere still documents this repository's lessons, with its caches.
_THIS_REPOSITORY = ("-D", f"course_root={ROOT}", "-D", f"course_docs_cache={ROOT / 'build' / 'docs-cache'}")


def shared_site() -> tuple[Path, float]:
    """The site, built once per test session (this process) into a new folder: (folder,
    seconds the build took).  Skips when MathJax cannot be had (no npm and nothing cached)."""
    if "site" not in _SHARED:
        mathjax = ROOT / "build" / "docs-cache" / "mathjax-3.2.2"
        if shutil.which("npm") is None and not mathjax.exists() \
                and not os.environ.get("COURSE_MATHJAX_DIR"):
            pytest.skip("the site serves MathJax itself: it needs npm once (or COURSE_MATHJAX_DIR)")
        out = Path(tempfile.mkdtemp(prefix="course-docs-site-")) / "site"
        start = time.perf_counter()
        done = build_site(out)
        seconds = time.perf_counter() - start
        assert done.returncode == 0, done.stderr[-4000:]
        _SHARED["site"] = (out, seconds)
        report = json.loads((out / ".course-lessons.json").read_text())
        print(f"\n[docs] site built in {seconds:.1f} s; lessons executed (not cached): "
              f"{report['executed'] or 'none'}")
    return _SHARED["site"]


@pytest.fixture(scope="session")
def site():
    return shared_site()[0]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if tag in ("a", "img", "link", "script") and attrs.get(key):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_the_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()


def test_a_warning_fails_the_build(tmp_path):
    """The control: a page with a broken link does not build."""
    import shutil

    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("__pycache__"))
    (docs / "student" / "setup.md").write_text("# Setup\n\nSee [nowhere](no-such-page.md).\n")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "dummy", str(docs),
                           str(tmp_path / "out"), *_THIS_REPOSITORY], capture_output=True,
                          text=True, timeout=900, cwd=ROOT, env={**os.environ, "COURSE_DOCS_LITE": "off"})
    assert done.returncode != 0 and "no-such-page" in done.stderr


def test_every_internal_link_resolves(site):
    pages = sorted(p for p in site.rglob("*.html") if "lite" not in p.relative_to(site).parts)
    parsed = {p: _parse(p) for p in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
    assert not broken, "\n".join(broken[:20])


def test_every_page_is_in_the_navigation(site):
    sources = {p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md")
               if "_ext" not in p.parts}
    index = (site / "index.html").read_text(encoding="utf-8")
    missing = [s for s in sorted(sources) if s != "index" and f'href="{s}.html"' not in index]
    assert not missing, missing


def test_the_readme_is_a_front_page_that_links_into_the_site():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "make lab" in readme and "make test" in readme and "make docs" in readme
    targets = re.findall(r"\]\(((?:docs)/[^)#]+)", readme)
    assert len(targets) >= 10
    for target in targets:
        path = ROOT / target
        assert path.is_file() or path.with_suffix(".md").is_file(), target


# --- lessons as pages ------------------------------------------------------------------------
class _Pictures(HTMLParser):
    """The pictures of a page's article and their text alternatives: an ``<img>``'s ``alt``; an
    ``<svg>``'s own ``aria-label``/``<title>``, or the ``aria-label`` of the ``role="img"``
    element around it."""

    VOID = {"img", "br", "hr", "meta", "link", "input", "source", "wbr", "col", "area"}

    def __init__(self):
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.pictures: list[tuple[str, str]] = []
        self.in_article = 0
        self.widgets: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "article":
            self.in_article += 1
        if self.in_article:
            if tag == "img":
                self.pictures.append(("img", (attrs.get("alt") or "").strip()))
            elif tag == "svg" and not any(t == "svg" for t, _ in self.stack):
                named = [a.get("aria-label", "") for t, a in self.stack + [(tag, attrs)]
                         if a.get("role") == "img"]
                self.pictures.append(("svg", (named[-1] if named else "").strip()))
            if "course-widget-static" in (attrs.get("class") or "").split():
                self.widgets.append(attrs.get("data-widget", ""))
        if tag not in self.VOID:
            self.stack.append((tag, attrs))

    def handle_endtag(self, tag):
        if tag == "article":
            self.in_article -= 1
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def pictures_of(html: str) -> _Pictures:
    parser = _Pictures()
    parser.feed(html)
    return parser


def test_the_picture_checker_sees_a_missing_text_alternative():
    """The control for the checks below: an unnamed SVG and an image without alt are found."""
    found = pictures_of('<article><div role="img" aria-label="A tree"><svg><g/></svg></div>'
                        '<svg></svg><img src="x.png"><img src="y.png" alt="a plot"></article>')
    assert found.pictures == [("svg", "A tree"), ("svg", ""), ("img", ""), ("img", "a plot")]


def _executed_notebook(name: str) -> dict:
    cached = sorted((ROOT / "build" / "docs-cache" / "executed").glob(f"{name}.*.ipynb"),
                    key=lambda p: p.stat().st_mtime)
    assert cached, f"no executed copy of {name} in build/docs-cache"
    return json.loads(cached[-1].read_text(encoding="utf-8"))


def _picture_outputs(nb: dict) -> int:
    count = 0
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = "".join(data.get("text/html", ""))
            if "<svg" in html or "<img" in html or "image/png" in data or "image/svg+xml" in data:
                count += 1
    return count


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_is_a_page_with_its_pictures_named(site, name):
    page = site / "lessons" / f"{name}.html"
    assert page.is_file(), f"lessons/{name}.ipynb has no page"
    html = page.read_text(encoding="utf-8")
    found = pictures_of(html)
    source = (ROOT / "lessons" / f"{name}.ipynb").read_text(encoding="utf-8")
    expected = _picture_outputs(_executed_notebook(name))
    if re.search(r"draw_tree|legend\(|plot_|explorer|step_through|drill\(", source):
        assert expected > 0 and len(found.pictures) > 0, name
    assert len(found.pictures) >= expected, (name, len(found.pictures), expected)
    unnamed = [kind for kind, alt in found.pictures if not alt]
    assert not unnamed, f"{name}: {len(unnamed)} picture(s) without a text alternative"
    # every tree picture carries its outline too ("The tree in text")
    assert html.count('class="course-picture"') <= html.count("course-picture-text") + \
        html.count("Picture: Legend.") + html.count("Picture of a graph."), name


def test_widgets_show_their_static_fallback(site):
    """An explorer on a static page: its first state as a named picture, and the line that says
    it is interactive elsewhere."""
    expected = {"01_minimax": {"StepThrough", "DrillWidget"},
                "02_alpha_beta": {"StepThrough", "OrderingExplorer", "DrillWidget", "PlayWidget"},
                "04_chance": {"ChancePruningExplorer", "DrillWidget", "PlayWidget"},
                "05_bounded_suboptimal": {"StepThrough", "EpsilonExplorer", "DrillWidget"}}
    for name, widgets in expected.items():
        html = (site / "lessons" / f"{name}.html").read_text(encoding="utf-8")
        found = pictures_of(html)
        assert widgets <= set(found.widgets), (name, found.widgets)
        assert "Interactive in JupyterLab and in the browser edition" in html
        assert "application/vnd.jupyter.widget-view+json" not in html
    explorer = (site / "lessons" / "05_bounded_suboptimal.html").read_text(encoding="utf-8")
    block = explorer[explorer.index('data-widget="EpsilonExplorer"'):]
    block = block[:block.index("</figure>")]
    assert 'role="img" aria-label="' in block and 'src="data:image/svg+xml;base64,' in block \
        and "ε" in block


def test_each_lesson_page_has_its_launch_and_download_buttons(site):
    report = json.loads((site / ".course-lessons.json").read_text())
    for name in LESSONS:
        html = (site / "lessons" / f"{name}.html").read_text(encoding="utf-8")
        download = re.search(r'<a class="course-button course-download" href="([^"]+)" download>',
                             html)
        assert download, name
        copied = site / "lessons" / download.group(1)
        assert copied.read_bytes() == (ROOT / "lessons" / f"{name}.ipynb").read_bytes()
        launch = re.search(r'<a class="course-button course-launch" href="([^"]+)"', html)
        if report["lite"]:
            assert launch, name
            url = urlsplit(launch.group(1).replace("&amp;", "&"))
            app = (site / "lessons" / url.path).resolve()
            assert app.is_file() and app.relative_to(site.resolve()).parts[0] == "lite", url
            (path,) = parse_qs(url.query)["path"]
            assert path == f"lessons/{name}.ipynb"
            assert (site / "lite" / "files" / path).is_file(), path
        else:
            assert launch is None and "The browser edition was not built with this site" in html
            # the page HTML-escapes the message (its quotes around '.[lite]', say)
            assert report["lite_missing"] in html_unescape(html), report["lite_missing"]


def test_math_is_served_by_the_site(site):
    html = (site / "lessons" / "04_chance.html").read_text(encoding="utf-8")
    assert html.count('class="math notranslate nohighlight"') > 50
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', html)
    assert any(s.split("?")[0].endswith("_static/mathjax/tex-mml-chtml.js") for s in scripts), scripts
    assert not [s for s in scripts if "://" in s or s.startswith("//")], scripts
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


def test_the_legend_page_is_generated_from_the_legend(site):
    from course.draw.legend import LEGEND_ENTRIES

    html = (site / "student" / "pictures.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr id="legend-([\w-]+)">', html)
    assert rows == [key for key, *_ in LEGEND_ENTRIES]
    for _, _, _, text in LEGEND_ENTRIES:
        assert text.split("\n")[0].split(";")[0] in html
    assert 'id="legend_max"' in html
    assert all(alt for _, alt in pictures_of(html).pictures)


def test_the_validate_page_shows_a_real_failure(site):
    html = (site / "student" / "validate.html").read_text(encoding="utf-8")
    assert "WrongValue: minimax value on AIMA figure 5.2 (case 1 of 3)" in html
    assert "Likely mistake" in html


def test_the_extension_doctests():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import course_lessons
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    result = doctest.testmod(course_lessons)
    assert result.attempted >= 8 and result.failed == 0


def test_a_lesson_without_a_page_fails_the_build(tmp_path):
    """A notebook added to lessons/ without docs/lessons/<name>.md: the build says so and fails
    (run on a copy of docs/ whose lessons folder lacks one page; no lesson is executed)."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("__pycache__"))
    (docs / "lessons" / f"{LESSONS[-1]}.md").unlink()
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "dummy", str(docs),
                           str(tmp_path / "out"), *_THIS_REPOSITORY],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode != 0
    assert f"lessons/{LESSONS[-1]}.ipynb has no page" in done.stderr


# --- the research pages: the experiments run when the site is built ----------------------------
def _experiment_block(html: str, name: str) -> str:
    start = html.index(f'<div class="course-experiment" data-experiment="{name}"')
    return html[start:html.index('<p class="course-experiment-files">', start)]


def _run_folder(site: Path, html: str, name: str) -> Path:
    """The folder of the run's files the page links to (copied into the site)."""
    (href,) = set(re.findall(rf'href="((?:\.\./)*research/runs/{re.escape(name)}\.[0-9a-f]+)/', html))
    return (site / "research" / href).resolve()


def _csv(path: Path) -> list[dict]:
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _series(name: str, folder: Path) -> list[tuple[str, int]]:
    """(line label as course.plots names it, its number of points), from the run's own CSV."""
    from collections import Counter

    if name == "chen":
        rows = _csv(folder / "chen.csv")
        return [(f"s = {s}", n) for (case, s), n in Counter((r["case"], r["s"]) for r in rows).items()]
    if name == "alphabeta-ordering":
        rows = _csv(folder / "alphabeta-ordering-summary.csv")
        return list(Counter(r["ordering"] for r in rows).items())
    rows = _csv(folder / f"{name}-summary.csv")
    label = {"bab-rt": lambda r: f"d={r['depth']}", "bab-stochastic-rt": lambda r: f"b={r['branching']}",
             "bab-cops-robbers": lambda r: f"{r['mode']}, depth {r['depth']}"}[name]
    return list(Counter(label(r) for r in rows).items())


def test_each_experiment_shows_its_run_its_described_figure_and_its_tables(site):
    """Every experiment of the command line is on the research page, run when the site was built:
    the command and the size it ran at, the command for the full size, a figure whose text
    alternative describes each line of the run's own CSV, and at least one table."""
    from course.experiments.cli import EXPERIMENTS

    html = (site / "research" / "experiments.html").read_text(encoding="utf-8")
    for name in EXPERIMENTS:
        block = _experiment_block(html, name)
        assert f"<code>python -m course experiment {name} --small</code>" in block, name
        assert f"<code>python -m course experiment {name}</code>" in block, name
        assert re.search(r"at the small size \([^)]+\), in [0-9.]+ s", block), name
        found = pictures_of(f"<article>{block}</article>").pictures
        assert [kind for kind, _ in found] == ["img"], (name, found)
        alt = found[0][1]
        assert alt.startswith("Plot"), (name, alt[:80])
        folder = _run_folder(site, html, name)
        for label, points in _series(name, folder):
            assert f"{label} ({points} points" in alt, (name, label, points, alt)
        assert block.count("<table") >= 1 and "<caption>" in block, name


def test_the_experiment_tables_are_the_runs_numbers_beside_the_papers(site):
    """The numbers are read from the run's CSV and from course.experiments.paper, not typed:
    every paper number is in the comparison table, and this run's cells equal its CSV."""
    from course.experiments import paper

    html = (site / "research" / "experiments.html").read_text(encoding="utf-8")

    def row(block, header):
        match = re.search(rf'<th scope="row">{re.escape(header)}</th>(.*?)</tr>', block)
        assert match, header
        return re.findall(r"<td>([^<]*)</td>", match.group(1))

    block = _experiment_block(html, "bab-rt")
    summary = {(int(r["depth"]), float(r["epsilon"])): r
               for r in _csv(_run_folder(site, html, "bab-rt") / "bab-rt-summary.csv")}
    for depth, er in paper.BAB_RT_ER_AT_EPS32.items():
        cells = row(block, f"ER, depth {depth}, ε = 32")
        assert cells[0] == f"{er:.2f}"
        ours = summary.get((depth, 32.0))
        assert cells[1] == (f"{float(ours['er']):.2f} ± {float(ours['er_ci95']):.2f}" if ours
                            else f"not in this run (depths {', '.join(str(d) for d in sorted({d for d, _ in summary}))})")
    block = _experiment_block(html, "bab-stochastic-rt")
    summary = {(int(r["branching"]), float(r["epsilon"])): r for r in
               _csv(_run_folder(site, html, "bab-stochastic-rt") / "bab-stochastic-rt-summary.csv")}
    for eps, (er, amb) in paper.BAB_STOCHASTIC_RT_B4.items():
        ours = summary[4, float(eps)]
        assert row(block, f"ε = {eps}") == [f"{er:.2f}", f"{float(ours['er']):.2f} ({float(ours['er_leaves']):.2f})",
                                          f"{amb:.2f}", f"{float(ours['amb']):.2f}"]
    block = _experiment_block(html, "bab-cops-robbers")
    for eps, (er, amb) in paper.BAB_CR_STOCHASTIC.items():
        assert row(block, f"ε = {eps}")[0::2] == [f"{er:.2f}", f"{amb:.2f}"]
    block = _experiment_block(html, "chen")
    rows = _csv(_run_folder(site, html, "chen") / "chen.csv")
    for r in rows:
        if r["case"] == "table1" and r["d"] == "9":
            assert f"{float(r['mean_error']):.3f} ({paper.CHEN_ERRORS['table1'][9, int(r['s'])]:.3f})" \
                in row(block, "d = 9")
    inside = sum(r["paper_within_ci"] == "True" for r in rows if r["case"] == "table1")
    assert f"Chen's value inside this run's 95% interval in {inside} of 36 cells" in block
    assert "nodes counted equal Table 2 in 36 of 36 cells" in block


def test_the_benchmark_node_counts_are_counted_and_the_typed_tables_agree(site):
    """The benchmarks are not run when the site is built, but the nodes they visit are counted;
    the node counts typed in the measured tables (full size, measured once) must equal them."""
    from course.games import TicTacToe
    from course.search import alphabeta

    counted = {}
    for page in ("experiments", "benchmarks-games"):
        html = (site / "research" / f"{page}.html").read_text(encoding="utf-8")
        start = html.index("<caption>Nodes each search visits")
        generated = html[start:html.index("</table>", start)]
        rows = re.findall(r'<th scope="row">([^<]*)</th><td>([^<]*)</td><td>([\d,]+)', generated)
        counted = {(tree.split(" ")[0], search): int(nodes.replace(",", "")) for tree, search, nodes in rows}
        assert len(counted) == 9, counted
    result = alphabeta(TicTacToe())
    assert counted["tic-tac-toe,", "alphabeta"] == result.expanded + result.evaluated
    rt = {n for (tree, _), n in counted.items() if tree == "random"}
    ttt = {"minimax": counted["tic-tac-toe,", "minimax"], "alpha-beta": counted["tic-tac-toe,", "alphabeta"]}

    source = (DOCS / "research" / "experiments.md").read_text(encoding="utf-8")
    part = source[source.index("Reference searches on RT(b = 4, d = 9, seed 0):"):]
    typed = [line.split("|")[2].strip() for line in part.split("\n\n")[1].splitlines()
             if line.startswith("| ") and not line.startswith("| search")]
    assert typed and {int(t.replace(",", "")) for t in typed} == rt, typed
    for page in ("experiments.md", "benchmarks-games.md"):
        text = (DOCS / "research" / page).read_text(encoding="utf-8")
        checked = 0
        for block in re.findall(r"(?:^\|.*\n)+", text, flags=re.M):
            lines = block.splitlines()
            if [c.strip() for c in lines[0].split("|")[1:4]] != ["search", "solver", "nodes"]:
                continue
            search = None
            for line in lines[2:]:
                cells = [c.strip() for c in line.split("|")[1:-1]]
                search = cells[0].split(",")[0] or search
                if search in ttt:
                    assert int(cells[2].replace(",", "")) == ttt[search], (page, line)
                    checked += 1
        assert checked >= 6, (page, checked)


def test_full_size_numbers_are_marked_as_measured_once():
    """On the experiments page every typed table of an experiment stands under its "measured at
    full size" heading, after the generated run (the run's numbers are never typed)."""
    source = (DOCS / "research" / "experiments.md").read_text(encoding="utf-8")
    from course.experiments.cli import EXPERIMENTS

    sections = re.split(r"\n## ", source)
    for name in EXPERIMENTS:
        (section,) = [s for s in sections if f"`{name}`" in s.splitlines()[0]]
        run = section.index(f"```{{course-experiment}} {name}")
        full = section.index(f"### `{name}` measured at full size")
        first_table = min(i for i in (section.find("\n| "),) if i >= 0)
        assert run < full < first_table, name
        assert "Measured once" in section[full:full + 300], name


def test_a_failing_experiment_fails_the_build(tmp_path):
    """An experiment whose command fails stops the build, with the command and its error; the
    failed run is not cached (a page with only the directive, built alone: seconds)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['myst_parser', 'course_research']\n"
        f"course_root = {str(ROOT)!r}\ncourse_docs_cache = {str(tmp_path / 'cache')!r}\n")
    (docs / "index.md").write_text("# Runs\n\n```{course-experiment} alphabeta-ordering\n"
                                   ":args: --jobs 0\n```\n")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(docs),
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "`python -m course experiment alphabeta-ordering --small --jobs 0` failed" in done.stderr
    assert "--jobs must be at least 1" in done.stderr
    assert not list((tmp_path / "cache" / "research").glob("alphabeta-ordering.*"))


def test_the_research_extension_doctests():
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import course_research
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    result = doctest.testmod(course_research)
    assert result.attempted >= 5 and result.failed == 0
