"""The lessons as pages of the site, executed when the site is built (a Sphinx extension).

Every notebook ``lessons/<name>.ipynb`` is the page ``lessons/<name>``: the file
``docs/lessons/<name>.md`` only says that the page exists (its text is replaced, when Sphinx reads
it, by the executed notebook as MyST Markdown); a lesson without such a file, or such a file
without a lesson, stops the build at once, saying which.

* **Executed**: each lesson runs with nbclient in a fresh ``python3`` kernel, in ``lessons/`` as
  the working folder, as ``tests/test_lessons.py`` runs it.  The executed notebook is cached in
  ``build/docs-cache/executed/`` under a hash of the notebook, of every file of the ``course``
  package and of ``pyproject.toml`` (:func:`source_key`): a rebuild runs only the lessons whose
  sources changed.  An error in a lesson fails the build, naming the cell.
* **Pictures** are the outputs' ``text/html`` as the course made them (a tree picture is an SVG
  with an accessible name and a ``<details>`` "The tree in text"; a plot is an ``<img>`` whose
  ``alt`` describes it), else SVG or PNG with the output's plain text as their name.
* **Widgets** cannot run on a static page.  Before the lesson, a hidden cell (:data:`PREAMBLE`,
  never shown) makes every widget shown add a static fallback to its output: each picture its
  panes hold, as the same accessible figure, its HTML panes (the numbers), its controls' values
  and the line "interactive in JupyterLab and in the browser edition" (:data:`WIDGET_NOTE`).
* **Buttons** at the top of each page: *Open in the browser edition* (the JupyterLite edition
  built by :func:`course.lite.build.build` into ``<site>/lite/``, cached in
  ``build/docs-cache/lite/`` under a hash of what it is built from, with
  ``build/lite-cache`` for its downloads) and *Download the notebook* (the lesson's ``.ipynb``,
  without outputs, copied next to the page).  Without the Lite build's prerequisites (the
  ``lite`` extra, npm) the first button says the edition was not built, and why.
  ``COURSE_DOCS_LITE=off`` leaves the edition out, ``=require`` fails the build without it.
* **Math** is MathJax 3.2.2 served by the site itself (:func:`mathjax_static`): the npm package
  ``mathjax``, fetched once with ``npm pack`` into ``build/docs-cache/`` (npm's own cache makes
  later fetches offline), or taken from ``COURSE_MATHJAX_DIR`` (an unpacked package).  It is the
  MathJax JupyterLab 4 renders notebooks with, so a formula reads the same in both.

The directive ``{course-legend}`` draws :func:`course.draw.legend` and a table generated from
:data:`course.draw.legend.LEGEND_ENTRIES` (``docs/student/pictures.md``); ``{course-failure}``
runs a wrong search through a check and shows the failure it prints (``docs/student/validate.md``).
"""
from __future__ import annotations

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
PAGES = "lessons"                     # docs/lessons/<name>.md: one per lessons/<name>.ipynb
MATHJAX_VERSION = "3.2.2"             # the version JupyterLab 4 renders math with
#: What of the npm package the site serves (the speech-rule engine, 20 MB, is left out).
MATHJAX_PARTS = ("tex-mml-chtml.js", "output/chtml/fonts/woff-v2", "input/tex/extensions",
                 "a11y", "ui", "adaptors")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
WIDGET_NOTE = ("Interactive in JupyterLab and in the browser edition; this page shows its "
               "first state, still.")
#: Bumped when the way lessons are executed changes (it is part of every cache key).
EXECUTION_VERSION = "2"

#: Run in the lesson's kernel before its first cell, never shown: every widget displayed adds a
#: static fallback (``text/html``) to its output, made from the widget's state when shown.
PREAMBLE = r'''
def _course_static_fallback():
    import html as _html
    import ipywidgets
    from course.draw import TreePicture
    from course.widgets import TreeView

    def walk(widget):
        yield widget
        for child in getattr(widget, "children", ()) or ():
            yield from walk(child)

    def fallback(widget):
        pictures, panes, controls, asked = [], [], [], set()
        for part in walk(widget):
            if isinstance(part, TreeView):
                if part.dot:
                    outline = tuple((row[0], row[1]) for row in part.outline)
                    pictures.append(TreePicture(part.dot, nodes=part.nodes, summary=part.alt,
                                                outline=outline).html())
            elif isinstance(part, (ipywidgets.HTML, ipywidgets.HTMLMath)):
                if part.value.strip():
                    panes.append(f'<div class="course-widget-pane">{part.value}</div>')
            elif isinstance(part, ipywidgets.ValueWidget) and getattr(part, "description", ""):
                controls.append(f"<li>{_html.escape(part.description.rstrip(':'))}: "
                                f"{_html.escape(str(part.value))}</li>")
            drill = getattr(part, "drill", None)
            if isinstance(drill, dict) and drill.get("question") and drill["question"] not in asked:
                asked.add(drill["question"])
                panes.insert(0, f'<p class="course-widget-question">{_html.escape(drill["question"])}</p>')
        name = type(widget).__name__
        parts = [f'<div class="course-widget-static" data-widget="{_html.escape(name)}">',
                 f'<p class="course-widget-note">{_html.escape(NOTE)}</p>']
        if controls:
            parts.append('<ul class="course-widget-controls">' + "".join(controls) + "</ul>")
        parts += pictures + panes + ["</div>"]
        return "".join(parts)

    original = ipywidgets.Widget._repr_mimebundle_

    def with_fallback(self, **kwargs):
        bundle = original(self, **kwargs)
        if isinstance(bundle, dict) and "text/html" not in bundle:
            try:
                bundle = {**bundle, "text/html": fallback(self)}
            except Exception as error:  # the page says so; the build goes on
                bundle = {**bundle, "text/html": f"<p>(no static picture: {_html.escape(repr(error))})</p>"}
        return bundle

    ipywidgets.Widget._repr_mimebundle_ = with_fallback

NOTE = %r
_course_static_fallback()
del _course_static_fallback
''' % WIDGET_NOTE


# ---------------------------------------------------------------------------------------------
# cache keys
# ---------------------------------------------------------------------------------------------
def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and ".ipynb_checkpoints" not in p.parts)


def source_key(paths: Iterable[Path], *, extra: str = "") -> str:
    """A short hash of the files (or folders, every file in them) ``paths``, and of ``extra``.

    Parameters
    ----------
    paths : iterable of pathlib.Path
        Files, or folders whose every file counts (``__pycache__`` left out); each file by its
        path and its bytes, so a renamed file changes the key too.
    extra : str
        Anything else the result depends on (a version, a setting).

    Returns
    -------
    str
        16 hexadecimal digits.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.py").write_text("x = 1")
    >>> first = source_key([folder])
    >>> first == source_key([folder]), len(first)
    (True, 16)
    >>> _ = (folder / "a.py").write_text("x = 2")
    >>> source_key([folder]) == first, source_key([folder], extra="v2") == source_key([folder])
    (False, False)
    """
    digest = hashlib.sha256(extra.encode())
    for path in paths:
        for file in ([path] if path.is_file() else _files(path)):
            name = file.relative_to(path.parent).as_posix() if path.is_file() else \
                file.relative_to(path).as_posix()
            digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _course_sources(root: Path) -> list[Path]:
    return [root / "course", root / "pyproject.toml"]


# ---------------------------------------------------------------------------------------------
# execution
# ---------------------------------------------------------------------------------------------
def execute_lesson(path: Path, *, timeout: int = 300):
    """Run the notebook ``path`` top to bottom in a fresh ``python3`` kernel, widgets with their
    static fallback (:data:`PREAMBLE`); return it with its outputs.

    Raises
    ------
    sphinx.errors.ExtensionError
        If a cell raises, naming the lesson and the cell.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    # nbclient keeps a cell's outputs at its index in the notebook: the preamble gets a cell of
    # its own for the run, removed after it.
    nb.cells.insert(0, nbformat.v4.new_code_cell(PREAMBLE))
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            try:
                client.execute_cell(cell, index, execution_count=index or None,
                                    store_history=index > 0)
            except CellExecutionError as exc:
                where = f"cell {index}" if index else "the widget fallback's setup"
                raise ExtensionError(f"{path.name}, {where} failed:\n{str(exc)[-3000:]}") \
                    from exc
    del nb.cells[0]
    return nb


@dataclass
class Lesson:
    """A lesson of the site: its notebook, its page, the key of what its outputs depend on."""

    name: str
    notebook: Path
    key: str

    @property
    def docname(self) -> str:
        return f"{PAGES}/{self.name}"


def executed(lesson: Lesson, cache: Path):
    """The lesson with its outputs: from the cache, or run now (and cached)."""
    import nbformat

    folder = cache / "executed"
    target = folder / f"{lesson.name}.{lesson.key}.ipynb"
    if target.exists():
        return nbformat.read(target, as_version=4), None
    start = time.perf_counter()
    logger.info(f"[course_lessons] executing {lesson.notebook.name} ...")
    nb = execute_lesson(lesson.notebook)
    seconds = time.perf_counter() - start
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(f"{lesson.name}.*.ipynb"):
        old.unlink()
    tmp = target.with_suffix(".tmp")
    nbformat.write(nb, tmp)
    tmp.replace(target)
    return nb, seconds


# ---------------------------------------------------------------------------------------------
# the notebook as MyST Markdown
# ---------------------------------------------------------------------------------------------
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")


def _fence(text: str, info: str, *, char: str = "`") -> str:
    longest = max((len(m) for m in re.findall(re.escape(char) + "+", text)), default=0)
    mark = char * max(3, longest + 1)
    return f"{mark}{info}\n{text.rstrip()}\n{mark}\n"


def _raw(markup: str) -> str:
    return _fence(markup, "{raw} html")


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def output_markup(output: dict) -> str:
    """One output of a code cell as MyST Markdown: its richest form a static page can show.

    ``text/html`` first (the course's pictures carry their text alternative in it), then SVG and
    PNG (named by the output's plain text), Markdown, and plain text last.

    Examples
    --------
    >>> print(output_markup({"output_type": "stream", "name": "stdout", "text": "3 leaves\\n"}))
    ```{code-block} text
    :class: course-output
    3 leaves
    ```
    <BLANKLINE>
    >>> print(output_markup({"output_type": "display_data", "metadata": {},
    ...                      "data": {"image/png": "iVBO", "text/plain": "<Figure>"}}))
    ```{raw} html
    <div class="course-output"><img src="data:image/png;base64,iVBO" alt="&lt;Figure&gt;"></div>
    ```
    <BLANKLINE>
    """
    kind = output.get("output_type")
    if kind == "stream":
        return _fence(_ANSI.sub("", _text(output["text"])), "{code-block} text\n:class: course-output")
    if kind == "error":
        trace = _ANSI.sub("", "\n".join(output.get("traceback", [])))
        return _fence(trace, "{code-block} text\n:class: course-output course-error")
    data = output.get("data", {})
    plain = _text(data.get("text/plain", ""))
    if "text/html" in data:
        return _raw(f'<div class="course-output">{_text(data["text/html"])}</div>')
    if "image/svg+xml" in data:
        svg = _text(data["image/svg+xml"])
        svg = svg[svg.find("<svg"):] if "<svg" in svg else svg
        return _raw(f'<div class="course-output" role="img" aria-label="{html.escape(plain)}">'
                    f"{svg}</div>")
    for mime in ("image/png", "image/jpeg"):
        if mime in data:
            image = _text(data[mime]).replace("\n", "")
            return _raw(f'<div class="course-output"><img src="data:{mime};base64,{image}" '
                        f'alt="{html.escape(plain)}"></div>')
    if "text/markdown" in data:
        return _text(data["text/markdown"]) + "\n"
    if plain:
        return _fence(_ANSI.sub("", plain), "{code-block} text\n:class: course-output")
    return ""


@dataclass
class Edition:
    """Where the browser edition is, seen from a lesson page: ``href`` of the Lite site's folder
    (``"../lite/"``), or None and the reason it was not built."""

    href: str | None
    reason: str = ""

    def lab(self, path: str) -> str | None:
        return None if self.href is None else f"{self.href}lab/index.html?path={path}"


def _markdown(source: str, edition: Edition) -> str:
    """A Markdown cell for the site: links to lessons become links to their pages, links to
    exercises open them in the browser edition (or become their file name without it)."""

    def link(match: re.Match) -> str:
        text, target = match.group(1), match.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return match.group(0)
        local = re.fullmatch(r"(?:\./)?(\d\d_[\w-]+)\.ipynb(#.*)?", target)
        if local:
            return f"[{text}]({local.group(1)}.md{local.group(2) or ''})"
        exercise = re.fullmatch(r"\.\./(exercises/[\w/.-]+\.ipynb)", target)
        if exercise:
            url = edition.lab(exercise.group(1))
            if url:
                return (f'<a href="{html.escape(url)}" class="course-lite-link">{text}</a> '
                        "(in the browser edition)")
            return f"{text} (`{exercise.group(1)}`)"
        return f"{text} (`{target}`)"

    return _LINK.sub(link, source)


def buttons(name: str, edition: Edition) -> str:
    """The two buttons at the top of a lesson page, as HTML.

    Examples
    --------
    >>> html_ = buttons("01_minimax", Edition("../lite/"))
    >>> 'href="../lite/lab/index.html?path=lessons/01_minimax.ipynb"' in html_
    True
    >>> 'href="01_minimax.ipynb" download' in html_
    True
    >>> "not built" in buttons("01_minimax", Edition(None, "it needs npm"))
    True
    """
    url = edition.lab(f"{PAGES}/{name}.ipynb")
    if url:
        launch = (f'<a class="course-button course-launch" href="{html.escape(url)}">'
                  "Open in the browser edition</a>")
    else:
        launch = ('<span class="course-button course-launch course-button-off" '
                  'aria-disabled="true">The browser edition was not built with this site'
                  f"{': ' + html.escape(edition.reason) if edition.reason else ''}</span>")
    return ('<div class="course-lesson-buttons" role="group" aria-label="This lesson">'
            f"{launch}"
            f'<a class="course-button course-download" href="{name}.ipynb" download>'
            "Download the notebook</a></div>\n"
            '<p class="course-lesson-note">This page is the notebook run when the site was built; '
            "open it to change the code and run it yourself.</p>")


def notebook_markdown(nb, name: str, edition: Edition) -> str:
    """An executed lesson as one MyST Markdown text: its cells in order, the buttons under its
    title.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Lesson\\n\\nText"),
    ...                                      nbformat.v4.new_code_cell("1 + 1")])
    >>> nb.cells[1].outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "2"})]
    >>> text = notebook_markdown(nb, "00_x", Edition(None))
    >>> text.index("# Lesson") < text.index("course-lesson-buttons") < text.index("Text")
    True
    >>> "```{code-block} ipython3" in text and "\\n2\\n" in text
    True
    """
    parts: list[str] = []
    placed = False
    for cell in nb.cells:
        source = _text(cell.source)
        if cell.cell_type == "markdown":
            text = _markdown(source, edition)
            if not placed:
                lines = text.splitlines()
                at = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
                if at is not None:
                    lines[at + 1:at + 1] = ["", _raw(buttons(name, edition))]
                    text = "\n".join(lines)
                    placed = True
            parts.append(text.rstrip() + "\n")
        elif cell.cell_type == "code":
            if source.strip():
                parts.append(_fence(source, "{code-block} ipython3\n:class: course-input"))
            for output in cell.get("outputs", []):
                markup = output_markup(output)
                if markup:
                    parts.append(markup)
    if not placed:
        parts.insert(0, f"# {name}\n\n" + _raw(buttons(name, edition)))
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# MathJax, served by the site
# ---------------------------------------------------------------------------------------------
def mathjax_static(cache: Path) -> Path:
    """A folder holding ``mathjax/`` (MathJax's browser files) for ``html_static_path``.

    From ``COURSE_MATHJAX_DIR`` (an unpacked npm package ``mathjax``) if set, else from
    ``npm pack mathjax@3.2.2`` (npm's cache serves it offline after the first time), copied once
    into ``cache``.

    Raises
    ------
    sphinx.errors.ExtensionError
        If MathJax is not in the cache and neither npm nor ``COURSE_MATHJAX_DIR`` can give it.
    """
    target = cache / f"mathjax-{MATHJAX_VERSION}"
    done = target / "mathjax" / "tex-mml-chtml.js"
    if done.exists():
        return target
    given = os.environ.get("COURSE_MATHJAX_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        if given:
            package = Path(given)
        else:
            npm = shutil.which("npm")
            if npm is None:
                raise ExtensionError(
                    "the site serves MathJax itself: install Node.js (npm) once, so that "
                    f"`npm pack mathjax@{MATHJAX_VERSION}` can fetch it into {cache}, or set "
                    "COURSE_MATHJAX_DIR to an unpacked copy of the npm package mathjax "
                    f"{MATHJAX_VERSION}")
            run = subprocess.run([npm, "pack", "--silent", "--prefer-offline",
                                  f"mathjax@{MATHJAX_VERSION}"], cwd=tmp, capture_output=True,
                                 text=True, timeout=300)
            if run.returncode:
                raise ExtensionError(f"npm pack mathjax@{MATHJAX_VERSION} failed: "
                                     f"{run.stderr[-1500:]}")
            tgz = Path(tmp) / run.stdout.strip().splitlines()[-1]
            with tarfile.open(tgz) as archive:
                if hasattr(tarfile, "data_filter"):
                    archive.extractall(tmp, filter="data")
                else:
                    archive.extractall(tmp)
            package = Path(tmp) / "package"
        es5 = package / "es5"
        if not (es5 / "tex-mml-chtml.js").exists():
            raise ExtensionError(f"{package} is not the npm package mathjax (no es5/tex-mml-chtml.js)")
        staging = Path(tmp) / "staging" / "mathjax"
        for part in MATHJAX_PARTS:
            source = es5 / part
            if source.is_dir():
                shutil.copytree(source, staging / part)
            else:
                (staging / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, staging / part)
        shutil.copy2(package / "LICENSE", staging / "LICENSE")
        shutil.rmtree(target, ignore_errors=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(staging.parent, target)
    return target


# ---------------------------------------------------------------------------------------------
# the browser edition (JupyterLite), built into <site>/lite/
# ---------------------------------------------------------------------------------------------
def lite_edition(root: Path, cache: Path) -> tuple[Path | None, str]:
    """The JupyterLite site to copy into ``<site>/lite/`` and, when there is none, why.

    Built with :func:`course.lite.build.build` (its downloads in ``build/lite-cache``) once per
    state of ``lessons/``, ``exercises/`` and the course, kept in ``cache/lite/<key>``.
    """
    mode = os.environ.get("COURSE_DOCS_LITE", "auto").strip().lower()
    if mode in ("off", "0", "no"):
        return None, "it was left out of this build (COURSE_DOCS_LITE=off)"
    try:
        from importlib import metadata

        versions = "+".join(metadata.version(p) for p in ("jupyterlite-core",
                                                           "jupyterlite-pyodide-kernel"))
    except Exception:  # noqa: BLE001 - any missing distribution
        return _no_lite(mode, "building it needs the lite extra (pip install -e '.[lite]')")
    pyodide = os.environ.get("PYODIDE_DIST") or None
    key = source_key([root / "lessons", root / "exercises", *_course_sources(root)],
                     extra=f"{versions}|{pyodide}")
    site = cache / "lite" / key
    if (site / "jupyter-lite.json").exists():
        return site, ""
    if shutil.which("npm") is None and pyodide is None:
        return _no_lite(mode, "building it needs npm, for Pyodide's core (see the browser "
                              "edition's page)")
    from course.lite.build import BuildError, build

    logger.info("[course_lessons] building the browser edition (course.lite.build) ...")
    shutil.rmtree(cache / "lite", ignore_errors=True)
    try:
        build(site, root / "build" / "lite-cache", pyodide)
    except BuildError as exc:
        shutil.rmtree(site, ignore_errors=True)
        return _no_lite(mode, f"its build failed here ({str(exc).splitlines()[0][:200]})")
    return site, ""


def _no_lite(mode: str, reason: str) -> tuple[None, str]:
    if mode == "require":
        raise ExtensionError(f"COURSE_DOCS_LITE=require, but the browser edition: {reason}")
    logger.info(f"[course_lessons] no browser edition: {reason}")
    return None, reason


# ---------------------------------------------------------------------------------------------
# the legend
# ---------------------------------------------------------------------------------------------
class LegendDirective(Directive):
    """``{course-legend}``: the legend picture and, generated from the same entries, a table of
    what each symbol, line style and colour means."""

    has_content = False

    def run(self):
        from course.draw.legend import LEGEND_ENTRIES, legend

        picture = legend()
        rows = []
        for key, sample, edge, text in LEGEND_ENTRIES:
            attrs = sample if sample is not None else edge
            shape = (sample or {}).get("shape", "line") if sample is not None else "edge"
            style = attrs.get("style", "solid")
            colours = sorted({v for k, v in attrs.items() if k in ("fillcolor", "color",
                                                                  "fontcolor")})
            swatches = "".join(f'<span class="course-swatch" style="background:{c}" '
                               f'aria-hidden="true"></span><code>{c}</code> ' for c in colours)
            penwidth = attrs.get("penwidth")
            drawn = f"{shape}, {style}" + (f", line width {penwidth:g}" if penwidth else "")
            rows.append(f'<tr id="legend-{key}"><th scope="row">{html.escape(key)}</th>'
                        f"<td>{html.escape(drawn)}</td><td>{swatches or 'black on white'}</td>"
                        f"<td>{html.escape(text.replace(chr(10), ' '))}</td></tr>")
        summary = ("The legend of the course's tree pictures: " + "; ".join(
            text.replace("\n", " ") for _, _, _, text in LEGEND_ENTRIES) + ".")
        figure = (f'<figure class="course-picture course-legend"><div role="img" '
                  f'aria-label="{html.escape(summary)}" tabindex="0" '
                  f'style="max-width:100%;overflow-x:auto">'
                  + re.sub(r"<title>[^<]*</title>", "", picture.inline_svg()).replace(
                      "<svg", '<svg aria-hidden="true" focusable="false"', 1)
                  + "</div><figcaption>The legend, drawn by <code>course.draw.legend()</code>"
                  "</figcaption></figure>")
        table = ('<table class="course-legend-table"><caption>Every entry of the legend '
                 "(<code>course.draw.legend.LEGEND_ENTRIES</code>)</caption><thead><tr>"
                 '<th scope="col">entry</th><th scope="col">drawn as</th>'
                 '<th scope="col">colours</th><th scope="col">means</th></tr></thead><tbody>'
                 + "".join(rows) + "</tbody></table>")
        return [nodes.raw("", figure + table, format="html")]


class FailureDirective(Directive):
    """``{course-failure}``: run the code in the directive's body, which must make a check of
    :mod:`course.grading` fail, and show the code and the failure as a student sees it (its
    class and message, as the check printed them when the site was built)."""

    has_content = True

    def run(self):
        from course.grading import GradingFailure

        code = "\n".join(self.content)
        failure = None
        try:
            exec(compile(code, "<course-failure>", "exec"), {})  # noqa: S102 - our own docs
        except GradingFailure as exc:
            failure = exc
        if failure is None:
            raise self.error("the example's check did not fail: it shows nothing")
        shown = f"{type(failure).__name__}: {failure}"
        source = nodes.literal_block(code, code, language="python")
        message = nodes.literal_block(shown, shown, language="text", classes=["course-output"])
        return [source, message]


# ---------------------------------------------------------------------------------------------
# Sphinx hooks
# ---------------------------------------------------------------------------------------------
def _cache(app) -> Path:
    return Path(app.config.course_docs_cache)


def _on_config(app, config) -> None:
    static = mathjax_static(Path(config.course_docs_cache))
    config.html_static_path = [*config.html_static_path, str(static)]
    config.mathjax_path = "mathjax/tex-mml-chtml.js"


def _on_builder_inited(app) -> None:
    root = Path(app.config.course_root)
    lessons_dir = root / "lessons"
    pages = Path(app.srcdir) / PAGES
    notebooks = {p.stem: p for p in sorted(lessons_dir.glob("*.ipynb"))}
    stubs = {p.stem for p in pages.glob("*.md")}
    problems = [f"lessons/{name}.ipynb has no page: add docs/{PAGES}/{name}.md (one comment "
                "line is enough; docs/_ext/course_lessons.py fills it)"
                for name in sorted(set(notebooks) - stubs)]
    problems += [f"docs/{PAGES}/{name}.md names no lesson: lessons/{name}.ipynb is missing"
                 for name in sorted(stubs - set(notebooks))]
    if problems:  # an error, not a warning: stop before executing anything
        raise ExtensionError("\n".join(problems))
    common = source_key(_course_sources(root), extra=EXECUTION_VERSION)
    app.course_lessons = {
        f"{PAGES}/{name}": Lesson(name, path, source_key([path], extra=common))
        for name, path in notebooks.items() if name in stubs}
    app.course_timings = {}
    site, reason = (None, "") if app.builder.format != "html" else lite_edition(root, _cache(app))
    app.course_lite = site
    app.course_edition = Edition("../lite/" if site else None, reason)


def _page_key(app, lesson: Lesson) -> str:
    return f"{lesson.key}|{app.course_edition.href}|{app.course_edition.reason}"


def _on_outdated(app, env, added, changed, removed) -> list[str]:
    keys = getattr(env, "course_lesson_keys", {})
    return [doc for doc, lesson in app.course_lessons.items()
            if doc not in added and keys.get(doc) != _page_key(app, lesson)]


def _on_source_read(app, docname: str, source: list[str]) -> None:
    lesson = app.course_lessons.get(docname)
    if lesson is None:
        return
    nb, seconds = executed(lesson, _cache(app))
    if seconds is not None:
        app.course_timings[lesson.name] = round(seconds, 1)
    app.env.note_dependency(str(lesson.notebook))
    if not hasattr(app.env, "course_lesson_keys"):
        app.env.course_lesson_keys = {}
    app.env.course_lesson_keys[docname] = _page_key(app, lesson)
    source[0] = notebook_markdown(nb, lesson.name, app.course_edition)


def _on_purge(app, env, docname: str) -> None:
    getattr(env, "course_lesson_keys", {}).pop(docname, None)


def _on_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    for lesson in app.course_lessons.values():
        (out / PAGES).mkdir(parents=True, exist_ok=True)
        shutil.copy2(lesson.notebook, out / PAGES / lesson.notebook.name)
    lite = out / "lite"
    stamp = lite / ".course-lite-key"
    if app.course_lite is None:
        shutil.rmtree(lite, ignore_errors=True)
    elif not stamp.exists() or stamp.read_text() != app.course_lite.name:
        shutil.rmtree(lite, ignore_errors=True)
        shutil.copytree(app.course_lite, lite)
        stamp.write_text(app.course_lite.name)
    report = {"executed": app.course_timings, "lite": str(app.course_lite or ""),
              "lite_missing": app.course_edition.reason}
    (out / ".course-lessons.json").write_text(json.dumps(report, indent=1) + "\n")
    if app.course_timings:
        logger.info(f"[course_lessons] executed: {app.course_timings}")


def setup(app):
    app.add_config_value("course_root", str(ROOT), "env")
    app.add_config_value("course_docs_cache", str(ROOT / "build" / "docs-cache"), "env")
    app.add_directive("course-legend", LegendDirective)
    app.add_directive("course-failure", FailureDirective)
    app.connect("config-inited", _on_config)
    app.connect("builder-inited", _on_builder_inited)
    app.connect("env-get-outdated", _on_outdated)
    app.connect("env-purge-doc", _on_purge)
    app.connect("source-read", _on_source_read)
    app.connect("build-finished", _on_finished)
    return {"version": EXECUTION_VERSION, "parallel_read_safe": False,
            "parallel_write_safe": True, "env_version": 1}


__all__ = ["source_key", "execute_lesson", "executed", "output_markup", "notebook_markdown",
           "buttons", "mathjax_static", "lite_edition", "Edition", "Lesson", "PREAMBLE"]
