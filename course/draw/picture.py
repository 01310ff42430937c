"""A drawn picture: DOT source plus the means to show and save it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import ParameterError
from .engine import RenderError, run_engine

__all__ = ["TreePicture"]

#: Resolution of :meth:`TreePicture.png` unless told otherwise (sharp on most screens).
PNG_DPI = 144


class TreePicture:
    """A picture of a tree, a search on it, or the legend, as Graphviz DOT text.

    The picture is laid out when asked for (:meth:`svg`, :meth:`png`,
    :meth:`save`, or inline display in JupyterLab).  In JupyterLab it is SVG from
    the server-side engine (:mod:`course.draw.engine`); without one, the same
    DOT is laid out in the browser by :class:`course.widgets.TreeView`.  The
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

    Examples
    --------
    >>> pic = TreePicture('digraph { a -> b }')
    >>> pic.svg().count('class="node"')
    2
    >>> pic.png()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """

    __slots__ = ("source", "nodes", "title", "_cache")

    def __init__(self, source: str, *, nodes: Mapping[str, str] | None = None,
                 title: str | None = None) -> None:
        self.source = source
        self.nodes = MappingProxyType(dict(nodes or {}))
        self.title = title
        self._cache: dict[tuple, bytes] = {}

    def __repr__(self) -> str:
        caption = f" {self.title!r}" if self.title else ""
        return f"<TreePicture{caption}: {len(self.nodes)} nodes>"

    def _render(self, fmt: str, dpi: float | None = None) -> bytes:
        key = (fmt, dpi)
        if key not in self._cache:
            self._cache[key] = run_engine(self.source, fmt, dpi=dpi)
        return self._cache[key]

    def svg(self) -> str:
        """The picture as SVG text (sizes in points).

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

    def _repr_svg_(self) -> str | None:
        """Inline SVG for JupyterLab, or None when no server-side engine is installed."""
        try:
            return self.svg()
        except RenderError:
            return None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict | tuple:
        """How JupyterLab shows the picture: SVG laid out in the kernel by the server-side
        engine, or, when none is installed, a :class:`course.widgets.TreeView` that lays the
        same DOT out in the browser (Graphviz compiled to WebAssembly, shipped in the package).
        """
        try:
            return {"image/svg+xml": self.svg()}
        except RenderError:
            pass
        # Display only, imported on use: the widget layer sits above the drawing layer.
        from importlib import import_module

        view = import_module("course.widgets.tree_view").TreeView(self)
        return view._repr_mimebundle_(include=include, exclude=exclude)

    def inline_svg(self) -> str:
        """The SVG element alone (no XML prolog), ready to embed in HTML."""
        text = self.svg()
        start = text.find("<svg")
        return text[start:] if start >= 0 else text
