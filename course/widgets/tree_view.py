"""A tree picture laid out in the browser: Graphviz compiled to WebAssembly, through anywidget.

:class:`TreeView` is the picture pane of every explorer.  Python builds the DOT text (always with
:func:`course.draw.draw_tree`, the one place DOT is made) and sets :attr:`TreeView.dot`; the
browser lays it out with the vendored Viz.js (``vendor/viz.js``, see ``vendor/NOTICE.md``) and
shows it in a viewport the reader can pan (drag) and zoom (Ctrl + wheel, the ``-``/``+``
buttons), with a *fit* button (the whole picture), a *readable* button (every label at least
:attr:`min_label_px` pixels high, the root in view), a legend that wraps, and a click on a node
zooming to its subtree.  A picture opens whole (fitted); when its labels are then smaller than
:attr:`min_label_px`, or when the reader's view shows only part of it, a line under the toolbar
says so ("Overview: ... zoom to read", "Part of the tree: ...").  No layout runs in the kernel, no system Graphviz is needed, and nothing is fetched
from the internet: the Viz.js module travels with the widgets themselves, as the state of one
shared :class:`VizModule` per kernel that every TreeView refers to.  That state reaches the page
as the cell displaying the first picture runs, so a picture draws even while the kernel is busy
with the cells after it (Run All), after a restart, and in JupyterLite; no request is made to the
kernel after the picture is shown.

>>> from course import alphabeta
>>> from course.draw import draw_tree
>>> from course.examples import aima_figure_5_2
>>> game = aima_figure_5_2()
>>> view = TreeView(draw_tree(game, alphabeta(game, trace=True)))
>>> view.dot.startswith("digraph tree {")
True
>>> view.nodes["n_0"]
'visited'
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import traitlets

from ..draw import TreePicture
from ..errors import ParameterError
from ..fonts import browser_css
from ._esm import esm

__all__ = ["TreeView", "VizModule", "VIZ_PATH", "viz_bundle", "viz_version", "viz_module"]

_HERE = Path(__file__).parent

VIZ_PATH = _HERE / "vendor" / "viz.js"
"""The vendored ``@viz-js/viz`` ES module (Graphviz in WebAssembly, embedded)."""


@lru_cache(maxsize=1)
def viz_bundle() -> bytes:
    """The bytes of the vendored Viz.js module (read once)."""
    return VIZ_PATH.read_bytes()


def viz_version() -> str:
    """Version of the vendored Viz.js, read from its header.

    >>> viz_version()
    '3.31.0'
    """
    match = re.search(rb"Viz\.js (\d+\.\d+\.\d+)", viz_bundle()[:400])
    return match.group(1).decode() if match else "unknown"


class VizModule(anywidget.AnyWidget):
    """Viz.js as widget state: one model per kernel, shared by every :class:`TreeView`.

    Never displayed.  Its ``bundle`` (the vendored module's bytes, a binary buffer on the wire)
    is sent once, when the first picture is made, with the model itself -- not on request -- so
    the browser has Graphviz whatever the kernel is doing afterwards.

    >>> viz_module() is viz_module() and viz_module().version == viz_version()
    True
    """

    _esm = "export default { render() {} };"
    bundle = traitlets.Bytes(b"").tag(sync=True)
    version = traitlets.Unicode("").tag(sync=True)


_SHARED: VizModule | None = None


def viz_module() -> VizModule:
    """The kernel's shared :class:`VizModule` (made on first use, again if it was closed)."""
    global _SHARED
    if _SHARED is None or getattr(_SHARED, "comm", None) is None:
        _SHARED = VizModule(bundle=viz_bundle(), version=viz_version())
    return _SHARED


def outline_rows(picture: TreePicture) -> list[list]:
    """``[depth, description, node id]`` of each drawn node of ``picture``, depth first.

    The ids are the keys of :attr:`TreePicture.nodes`, which lists the nodes in the order
    of the outline; a picture whose two lists differ in length gets no ids ("").

    Examples
    --------
    >>> from course.draw import draw_tree
    >>> from course.examples import aima_figure_5_2
    >>> outline_rows(draw_tree(aima_figure_5_2()))[:2]
    [[0, 'unvisited: MAX node root (A)', 'n'], [1, 'unvisited: MIN node (0,) (B)', 'n_0']]
    """
    ids = list(picture.nodes) if len(picture.nodes) == len(picture.outline) else [""] * len(picture.outline)
    return [[depth, text, node] for (depth, text), node in zip(picture.outline, ids)]


class TreeView(anywidget.AnyWidget):
    """A pan/zoom picture of a tree, laid out in the browser from DOT.

    Parameters
    ----------
    picture : TreePicture or str, optional
        What to show: a picture from :func:`course.draw.draw_tree` (its DOT and node
        statuses are taken) or DOT text.
    **kwargs
        Trait values (``max_height=...``, ``min_label_px=...``).

    Attributes
    ----------
    dot : str
        The DOT text shown ("" shows nothing).  Setting it redraws in place; the reader's zoom
        and position are kept unless they never moved the view.  A DOT written by
        :func:`course.draw.draw_tree` whose nodes and edges and their sizes are those shown is
        not laid out again: the picture is restyled (colours, lines, labels, tooltips, ``cut``
        marks), as Graphviz would draw it, in a few milliseconds.
    nodes : dict
        Graphviz id -> status of the picture's nodes (from the :class:`TreePicture`).
    max_height : int
        Height in pixels of the viewport at most (smaller pictures take less).
    min_label_px : float
        The *readable* zoom makes the smallest label this many pixels high (default 11); a
        view whose labels are smaller says it is an overview to zoom into.
    transition_ms : int
        Milliseconds nodes take to glide to their new places when a new picture moves them
        (new nodes fade in); 0 switches the animation off.
    focus : str
        Id of the node last clicked (its subtree is zoomed to), set by the browser.
    render_ms : float
        Milliseconds the browser took for the last layout (or restyle) and redraw (set by the
        browser a quarter of a second after a picture, not for each one of a quick series).
    renders : int
        How many pictures the browser has drawn (set by the browser, as ``render_ms``).
    error : str
        The browser's last layout error ("" if none).
    click_zoom : bool
        Whether a click on a node zooms to its subtree (a drill answered in the picture turns
        it off: there a click marks the node).
    alt : str
        The picture's accessible name (:attr:`TreePicture.summary`); when it changes, a live
        region announces it to screen readers ("alphabeta (ε=4): value 5, 9 leaves evaluated…").
    announce : bool
        Whether a new :attr:`alt` is said through a live region (a widget that announces its
        own results, a drill or a game, turns it off so a screen reader hears one message).
    outline : list
        ``[depth, description, node id]`` of every drawn node (:attr:`TreePicture.outline`,
        the ids of :attr:`TreePicture.nodes`), shown under "The tree in text" as a tree a
        keyboard walks node by node (the WAI-ARIA *tree view* pattern: Up/Down, Right/Left to
        open and close or go to the first child and the parent, Home/End, Enter to zoom to the
        node's subtree -- or, where a click answers, to answer for it); the node in focus is
        ringed in the picture.
    """

    _esm = esm("tree_view.js")
    # the course's font for the picture's text (the widths Viz.js lays out with): course.fonts
    _css = browser_css(".course-tree-view .ctv-port")

    dot = traitlets.Unicode("").tag(sync=True)
    max_height = traitlets.Int(480).tag(sync=True)
    min_label_px = traitlets.Float(11.0).tag(sync=True)
    transition_ms = traitlets.Int(300).tag(sync=True)
    focus = traitlets.Unicode("").tag(sync=True)
    render_ms = traitlets.Float(0.0).tag(sync=True)
    renders = traitlets.Int(0).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    click_zoom = traitlets.Bool(True).tag(sync=True)
    viz = traitlets.Instance(VizModule, allow_none=True).tag(
        sync=True, **ipywidgets.widget_serialization)
    alt = traitlets.Unicode("").tag(sync=True)
    announce = traitlets.Bool(True).tag(sync=True)
    outline = traitlets.List([]).tag(sync=True)

    def __init__(self, picture: TreePicture | str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("viz", viz_module())
        super().__init__(**kwargs)
        self.nodes: dict[str, str] = {}
        self._click_handlers: list = []
        self.on_msg(self._answer)
        if picture is not None:
            self.show(picture)

    def show(self, picture: TreePicture | str | None) -> None:
        """Show ``picture`` (a TreePicture, DOT text, or None for nothing).

        Raises
        ------
        ParameterError
            For anything else.
        """
        if picture is None:
            self.nodes, self.alt, self.outline, self.dot = {}, "", [], ""
        elif isinstance(picture, TreePicture):
            self.nodes = dict(picture.nodes)
            with self.hold_sync():
                self.alt, self.outline = picture.summary, outline_rows(picture)
                self.dot = picture.source
        elif isinstance(picture, str):
            self.nodes, self.alt, self.outline, self.dot = {}, "Picture of a graph.", [], picture
        else:
            raise ParameterError(f"TreeView shows a TreePicture or DOT text, got {type(picture).__name__}")

    def fit(self) -> None:
        """Ask the browser to show the whole picture (as the *fit* button does)."""
        self.send({"type": "fit"})

    def readable(self) -> None:
        """Ask the browser for the readable zoom, root in view (the *readable* button)."""
        self.send({"type": "readable"})

    def on_node_click(self, callback: Any) -> None:
        """Call ``callback(node_id)`` whenever the reader clicks a node (``"n_0_1"``: path (0, 1))."""
        self._click_handlers.append(callback)

    def _answer(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Send Viz.js to a page that asks for it (the fallback when its shared model cannot be
        read); pass node clicks on."""
        if isinstance(content, dict) and content.get("type") == "viz-bundle?":
            self.send({"type": "viz-bundle", "version": viz_version()}, buffers=[viz_bundle()])
        elif isinstance(content, dict) and content.get("type") == "node-click":
            node = content.get("id")
            if isinstance(node, str) and re.fullmatch(r"n(_\d+)*", node):
                for callback in list(self._click_handlers):
                    callback(node)
