"""A drawn picture: DOT source plus the means to show and save it."""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import ParameterError
from ..fonts import embed_font
from .engine import RenderError, run_engine

__all__ = ["TreePicture"]

#: Resolution of :meth:`TreePicture.png` unless told otherwise (sharp on most screens).
PNG_DPI = 144


class TreePicture:
    """A picture of a tree, a search on it, or the legend, as Graphviz DOT text.

    The picture is laid out when asked for (:meth:`svg`, :meth:`png`,
    :meth:`save`, or inline display in JupyterLab).  In JupyterLab it is SVG from
    the server-side engine (:mod:`course.draw.engine`); without one (the browser
    edition), the same DOT is laid out in the browser by :class:`course.widgets.TreeView`,
    which the ``course`` package registers as the picture's display.  The
    object is immutable; each format is laid out at most once per object.

    Attributes
    ----------
    source : str
        The DOT text.
    nodes : Mapping[str, str]
        Graphviz id of every drawn node -> its status: ``"visited"``,
        ``"pruned"``, ``"current"``, ``"pending"`` (not reached yet),
        ``"unvisited"`` (no search given), or for a collapsed-subtree summary
        ``"summary"``.  Tree nodes have ids ``n`` + ``_i`` per step of their path
        (``n`` for the root, ``n_0_2`` for path ``(0, 2)``); the summary of a node's
        children is ``s`` + the node's path (``s_0_2``).  Legend nodes are not
        listed.
    title : str or None
        The caption drawn above the picture.
    summary : str
        One sentence that says what the picture shows (the search, its result, how many
        nodes were visited and pruned): the picture's accessible name.
    outline : tuple of (int, str)
        The drawn nodes depth first, each as (depth, description): its status, kind,
        path, value, window and why it was cut.  :meth:`describe` prints it; in
        JupyterLab it is the expandable "The tree in text" below the picture.
    heading : str
        The name of that expandable text (``"The tree in text"``; the legend's is
        ``"The legend in text"``).

    Examples
    --------
    >>> pic = TreePicture('digraph { a -> b }')
    >>> pic.svg().count('class="node"')
    2
    >>> pic.png()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """

    __slots__ = ("source", "nodes", "title", "summary", "outline", "heading", "_cache")

    def __init__(self, source: str, *, nodes: Mapping[str, str] | None = None,
                 title: str | None = None, summary: str | None = None,
                 outline: tuple[tuple[int, str], ...] = (),
                 heading: str = "The tree in text") -> None:
        self.source = source
        self.nodes = MappingProxyType(dict(nodes or {}))
        self.title = title
        self.summary = summary or (f"Picture: {title}." if title else "Picture of a graph.")
        self.outline = tuple((int(depth), str(text)) for depth, text in outline)
        self.heading = heading
        self._cache: dict[tuple, bytes] = {}

    def __repr__(self) -> str:
        caption = f" {self.title!r}" if self.title else ""
        return f"<TreePicture{caption}: {len(self.nodes)} nodes>"

    def _render(self, fmt: str, dpi: float | None = None) -> bytes:
        key = (fmt, dpi)
        if key not in self._cache:
            picture = run_engine(self.source, fmt, dpi=dpi)
            if fmt == "svg":      # text in the font it was laid out with, on any machine
                try:
                    picture = embed_font(picture.decode("utf-8")).encode("utf-8")
                except ImportError:   # pragma: no cover - fontTools (a dependency) removed
                    pass              # the picture still shows, in the viewer's Helvetica
            self._cache[key] = picture
        return self._cache[key]

    def svg(self) -> str:
        """The picture as SVG text (sizes in points).

        Its text is drawn in the course's font, embedded in the picture (a subset holding the
        characters used: :func:`course.fonts.embed_font`), whose widths are those the picture
        was laid out with, so no label overflows its box whatever fonts the viewer has.

        Raises
        ------
        course.draw.RenderError
            If no Graphviz program is installed.
        """
        return self._render("svg").decode("utf-8")

    def png(self, *, dpi: float = PNG_DPI) -> bytes:
        """The picture as PNG bytes at ``dpi`` dots per inch (default 144).

        Raises
        ------
        course.draw.RenderError
            If no Graphviz program is installed.
        """
        if not isinstance(dpi, (int, float)) or isinstance(dpi, bool) or not 10 <= dpi <= 1200:
            raise ParameterError(f"dpi must be a number between 10 and 1200, got {dpi!r}")
        return self._render("png", float(dpi))

    def save(self, path: str | os.PathLike, *, dpi: float = PNG_DPI) -> Path:
        """Write the picture to ``path``; its suffix (``.svg`` or ``.png``) picks the format.

        Returns
        -------
        pathlib.Path
            The path written.

        Raises
        ------
        ParameterError
            For any other suffix.
        """
        target = Path(path)
        suffix = target.suffix.lower()
        if suffix == ".svg":
            target.write_text(self.svg(), encoding="utf-8")
        elif suffix == ".png":
            target.write_bytes(self.png(dpi=dpi))
        else:
            raise ParameterError(
                f"cannot tell the picture format from {str(path)!r}: name the file *.svg or *.png"
            )
        return target

    def describe(self) -> str:
        """The picture in words: its summary, then one indented line per drawn node.

        What a screen reader reads, and a way to debug a search in text.

        Examples
        --------
        >>> from course import alphabeta
        >>> from course.draw import draw_tree
        >>> from course.examples import aima_figure_5_2
        >>> game = aima_figure_5_2()
        >>> print(draw_tree(game, alphabeta(game, trace=True)).describe())  # doctest: +ELLIPSIS
        Search tree, alphabeta: value 3, 7 leaves evaluated. 13 nodes drawn: 11 visited, 2 pruned.
        visited: MAX node root (A); value 3; searched with α=-∞ β=+∞
          visited: MIN node (0,) (B); value 3; searched with α=-∞ β=+∞; the chosen root move
            visited: leaf node (0, 0) (B1); value 3, the 1st leaf evaluated
        ...
          visited: MIN node (1,) (C); value ≤2; searched with α=3 β=+∞; cut-off (...)
            visited: leaf node (1, 0) (C1); value 2, the 4th leaf evaluated
            pruned: leaf node (1, 1) (C2); value 4
        ...
        """
        lines = [self.summary]
        lines.extend("  " * depth + text for depth, text in self.outline)
        return "\n".join(lines)

    def html(self) -> str:
        """The picture as an HTML figure with its text alternative.

        The SVG is shown as one image (``<img>`` of a ``data:`` URI, the font inside it) whose
        ``alt`` is :attr:`summary`, at its natural size in a box that scrolls a wide tree
        sideways and takes the keyboard focus; below it a ``<details>`` holds the outline as a
        nested list a screen reader can walk.  JupyterLab shows a notebook's outputs it did not
        sign (one saved elsewhere) through its HTML sanitiser, which keeps exactly this: an
        inline ``<svg>`` would be dropped, and with it the picture.

        Raises
        ------
        course.draw.RenderError
            If no Graphviz program is installed.

        Examples
        --------
        >>> html = TreePicture('digraph { a -> b }', summary="Two nodes.").html()
        >>> '<img alt="Two nodes." aria-hidden="true" width=' in html and '<svg' not in html
        True
        >>> 'src="data:image/svg+xml;base64,' in html and 'role="img" aria-label="Two nodes."' in html
        True
        """
        svg = self.svg()
        size = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"', svg)
        width, height = ((round(float(v) * 4 / 3) for v in size.groups()) if size else (None, None))
        sized = f' width="{width}" height="{height}"' if size else ""
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        name = escape(self.summary, quote=True)
        # The box scrolls a wide picture sideways, so it must take the keyboard focus.  Trusted
        # output: the box is the one named, focusable image (the <img> inside is hidden from
        # screen readers, or they would say the picture twice).  JupyterLab's sanitiser drops
        # role and aria-* all together: then the <img> and its alt are the image.  It keeps
        # tabindex only on a few tags (a, button, input, select, textarea, area): so the box is
        # an <a> without href (no link, no role of its own), which stays focusable either way.
        parts = ['<figure class="course-picture" style="margin:0">',
                 f'<a class="course-picture-view" role="img" aria-label="{name}" tabindex="0" '
                 'style="display:block;max-width:100%;overflow-x:auto">'
                 f'<img alt="{name}" aria-hidden="true"{sized} class="jp-mod-unconfined" '
                 'style="max-width:none;height:auto;display:block" '
                 f'src="data:image/svg+xml;base64,{data}"/></a>']
        if self.outline:
            parts.append(f'<details class="course-picture-text"><summary>{escape(self.heading)}'
                         "</summary>" + _nested_list(self.outline) + "</details>")
        parts.append("</figure>")
        return "".join(parts)

    def _repr_svg_(self) -> str | None:
        """Inline SVG for JupyterLab, or None when no server-side engine is installed."""
        try:
            return self.svg()
        except RenderError:
            return None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        """How JupyterLab shows the picture: SVG laid out in the kernel by the server-side
        engine, as a figure with its text alternative.

        Without an engine (the JupyterLite edition) the picture is drawn in the browser by
        :class:`course.widgets.TreeView`: the ``course`` package registers that display with
        IPython when it is imported (the drawing layer never imports the widget layer).  Shown
        anywhere else, it is its text alternative with the reason it is not drawn.
        """
        try:
            return {"text/html": self.html(), "image/svg+xml": self.svg(),
                    "text/plain": self.describe()}
        except RenderError as exc:
            return {"text/html": self.text_html(f"This picture is not drawn here: {exc}"),
                    "text/plain": self.describe()}

    def text_html(self, note: str = "") -> str:
        """The text alternative alone, as HTML: the summary, an optional note, the outline.

        Examples
        --------
        >>> html = TreePicture('digraph { a }', summary="One node.").text_html("no engine")
        >>> html.startswith('<figure class="course-picture"><p>One node.</p><p>no engine</p>')
        True
        """
        parts = ['<figure class="course-picture">', f"<p>{escape(self.summary)}</p>"]
        if note:
            parts.append(f"<p>{escape(note)}</p>")
        if self.outline:
            parts.append('<details class="course-picture-text" open><summary>'
                         f"{escape(self.heading)}</summary>" + _nested_list(self.outline) + "</details>")
        parts.append("</figure>")
        return "".join(parts)

    def inline_svg(self) -> str:
        """The SVG element alone (no XML prolog), ready to embed in HTML."""
        text = self.svg()
        start = text.find("<svg")
        return text[start:] if start >= 0 else text


def _nested_list(outline: tuple[tuple[int, str], ...]) -> str:
    """(depth, text) rows, depth first, as nested ``<ul>`` lists (text escaped)."""
    out: list[str] = []
    depth = -1
    for level, text in outline:
        level = max(0, min(level, depth + 1))         # never skip a level
        if level > depth:
            out.append("<ul>")
        else:
            out.append("</li>")
            while depth > level:
                out.append("</ul></li>")
                depth -= 1
        out.append(f"<li>{escape(text)}")
        depth = level
    while depth >= 0:
        out.append("</li></ul>")
        depth -= 1
    return "".join(out)
