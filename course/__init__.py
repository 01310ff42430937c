"""course: the helper library of the game-tree search course.

Data flows one way: a game (:mod:`course.game`, :mod:`course.trees`,
:mod:`course.games`) is searched (:mod:`course.search`), and a search's
result and trace are drawn (:mod:`course.draw`), explored (:mod:`course.widgets`),
plotted (:mod:`course.plots`) and graded (:mod:`course.grading`).

>>> from course import parse_tree, alphabeta
>>> alphabeta(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])).value
3
"""

import sys

from .errors import BoundsError, ChanceNodeError, CourseError, ParameterError, TreeFormatError
from .game import Game, Path, Player
from .search import (
    ALGORITHMS,
    ORDERINGS,
    SearchResult,
    Trace,
    TraceEvent,
    alphabeta,
    bab,
    expectimax,
    minimax,
    naive_epsilon,
    iterative_deepening,
    selective,
    star1,
    star2,
)
from .trees import (
    TreeGame,
    TreeNode,
    dumps_tree,
    game_to_tree,
    loads_tree,
    parse_tree,
    read_tree,
    tree_to_obj,
)

__version__ = "0.1.0"

from ._browser import install_in_browser as _install_in_browser

# In JupyterLite (Pyodide) only: a cell that needs numpy/matplotlib, which Pyodide's CDN serves,
# prints one line when they cannot be loaded, instead of a traceback.  Elsewhere: nothing.
_install_in_browser()


def _show_picture(picture):
    """IPython's display of a :class:`course.draw.TreePicture`: its SVG figure when this machine
    lays pictures out, else a :class:`course.widgets.TreeView` that lays it out in the browser.

    The package root wires the two layers together, so that the drawing layer never imports the
    widget layer above it.
    """
    bundle = picture._repr_mimebundle_()
    if "image/svg+xml" in bundle:
        return bundle
    from .widgets.tree_view import TreeView

    return TreeView(picture)._repr_mimebundle_()


def _register_display() -> None:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.display_formatter.mimebundle_formatter.for_type_by_name(
            "course.draw.picture", "TreePicture", _show_picture)


_register_display()

__all__ = [
    "Game", "Player", "Path", "TreeGame", "TreeNode",
    "parse_tree", "loads_tree", "game_to_tree", "read_tree", "tree_to_obj", "dumps_tree",
    "minimax", "expectimax", "alphabeta", "naive_epsilon", "star1", "star2", "bab", "selective",
    "iterative_deepening", "SearchResult", "Trace", "TraceEvent", "ALGORITHMS", "ORDERINGS",
    "CourseError", "TreeFormatError", "ChanceNodeError", "BoundsError", "ParameterError",
]
