"""What every explorer shares: a picture pane (laid out in the browser), a text pane, safe redrawing."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from ..draw import RenderError, TreePicture
from ..errors import CourseError, ParameterError
from ..game import Game
from ..trees import TreeGame, TreeNode, game_to_tree
from .control_names import ControlNames
from .tree_view import TreeView

__all__ = ["Explorer", "fmt", "as_tree", "MAX_TREE_NODES"]

#: Largest tree an explorer searches and redraws on every change (bigger ones are refused).
MAX_TREE_NODES = 20_000


def as_tree(game: Any) -> TreeGame:
    """An explicit tree to search and draw: a TreeGame as it is, any other game expanded.

    An expanded game's nodes are labelled with move descriptions, which would
    be drawn as node names; they are dropped (paths still name the nodes).

    Raises
    ------
    ParameterError
        If ``game`` is not a game, or has more than :data:`MAX_TREE_NODES` nodes.
    """
    if not isinstance(game, Game):
        raise ParameterError(f"expected a course Game (e.g. from course.parse_tree), got {type(game).__name__}")
    if isinstance(game, TreeGame):
        if game.root.size > MAX_TREE_NODES:
            raise ParameterError(_too_big(game.root.size))
        return game
    try:
        expanded = game_to_tree(game, max_nodes=MAX_TREE_NODES)
    except ParameterError:
        raise ParameterError(_too_big(None)) from None
    return TreeGame(_unlabelled(expanded.root), (expanded.vmin, expanded.vmax))


def _too_big(size: int | None) -> str:
    what = f"{size} nodes" if size is not None else f"more than {MAX_TREE_NODES} nodes"
    return (f"this tree has {what}; an explorer redraws at most {MAX_TREE_NODES}: "
            "choose a smaller depth or branching")


def _unlabelled(node: TreeNode) -> TreeNode:
    children = tuple(_unlabelled(c) for c in node.children)
    return TreeNode(node.kind, node.path, children, node.probabilities, node.value, None, _size=node.size)


def fmt(x: Any) -> str:
    """A number for the text panes (the pictures' format)."""
    from ..draw.style import fmt_number

    return fmt_number(x)


class Explorer(widgets.VBox):
    """A VBox with a picture pane and a text pane, redrawn in place on every change.

    Subclasses build their controls, call :meth:`watch` on them and implement
    :meth:`compute`, which returns ``(picture, info_html)``.  The panes are
    replaced, never appended to, so the output does not grow or flicker.

    The controls come first and the picture right below them (or, with
    ``beside=True``, the controls in a column with the picture to their right),
    so a control and the picture it changes are seen together; the numbers
    follow.  The picture is a :class:`~course.widgets.TreeView`: Python sends
    DOT, the browser lays it out (Graphviz in WebAssembly) and the reader pans
    and zooms it.

    Attributes
    ----------
    picture : TreeView
        The drawn tree (``picture.dot`` is its DOT text; ``picture.fit()`` shows it whole).
    info : ipywidgets.HTML
        Numbers and explanations.
    tree_picture : TreePicture or None
        The last picture computed (None while the controls describe a refused tree).
    error : str
        The last problem met while redrawing ("" if none); shown in ``info``.
    refused : str
        Why the tree the controls describe is not shown ("" if it is).
    redraws : int
        How many times the panes were redrawn (handy in tests).
    """

    def __init__(self, controls: list[widgets.Widget], *, beside: bool = False,
                 max_height: int = 480, **kwargs: Any) -> None:
        self.picture = TreeView(max_height=max_height, layout=widgets.Layout(width="100%"))
        self.tree_picture: TreePicture | None = None
        self.info = widgets.HTML()
        self.error = ""
        self.refused = ""
        self.redraws = 0
        self._busy = False
        if beside:
            column = widgets.VBox(controls, layout=widgets.Layout(flex="0 0 auto"))
            self.picture.layout = widgets.Layout(flex="1 1 0%", min_width="0", width="auto")
            children = [widgets.HBox([column, self.picture],
                                     layout=widgets.Layout(align_items="flex-start", width="100%")),
                        self.info]
        else:
            children = [*controls, self.picture, self.info]
        super().__init__(children=[*children, ControlNames()], **kwargs)
        self.add_class("course-explorer")

    def watch(self, *controls: widgets.Widget, handler: Callable[[dict], None] | None = None) -> None:
        """Redraw (or call ``handler``) whenever one of ``controls`` changes value."""
        for control in controls:
            control.observe(handler or (lambda change: self.refresh()), names="value")

    def compute(self) -> tuple[TreePicture | None, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def refresh(self) -> None:
        """Recompute and replace both panes (errors are shown, not raised)."""
        if self._busy:
            return
        self._busy = True
        try:
            try:
                picture, info = self.compute()
                self.error = ""
            except (CourseError, RenderError) as exc:
                picture, info = None, ""
                self.error = str(exc)
            if self.error:
                info = f'<p style="color:#b00020"><b>Cannot show this:</b> {html.escape(self.error)}</p>'
            self.tree_picture = picture
            self.picture.show(picture)
            self.info.value = info
            self.redraws += 1
        finally:
            self._busy = False
