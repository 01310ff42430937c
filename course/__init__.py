"""course: the helper library of the game-tree search course.

Data flows one way: a game (:mod:`course.game`, :mod:`course.trees`,
:mod:`course.games`) is searched (:mod:`course.search`), and a search's
result and trace are drawn (:mod:`course.draw`), explored (:mod:`course.widgets`),
plotted (:mod:`course.plots`) and graded (:mod:`course.grading`).

>>> from course import parse_tree, alphabeta
>>> alphabeta(parse_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])).value
3
"""

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
    selective,
    star1,
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

__all__ = [
    "Game", "Player", "Path", "TreeGame", "TreeNode",
    "parse_tree", "loads_tree", "game_to_tree", "read_tree", "tree_to_obj", "dumps_tree",
    "minimax", "expectimax", "alphabeta", "naive_epsilon", "star1", "bab", "selective",
    "SearchResult", "Trace", "TraceEvent", "ALGORITHMS", "ORDERINGS",
    "CourseError", "TreeFormatError", "ChanceNodeError", "BoundsError", "ParameterError",
]
