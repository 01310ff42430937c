"""Interactive explorers for JupyterLab (ipywidgets 8, anywidget).

================================  ========================================================
widget                            what moves, what it shows
================================  ========================================================
:func:`epsilon_explorer`          ε (and a random tree's shape): the BAB-pruned tree,
                                  root [L, U], ER and AMB
:func:`ordering_explorer`         the move ordering: alpha-beta's pruned tree and leaf
                                  count beside the best case and minimax
:func:`step_through`              a search's trace, event by event
:func:`chance_pruning_explorer`   the CS 520 note's game: its thresholds and Star1
:func:`drill`                     a practice drill (:mod:`course.drills`), answered in a
                                  form or on the picture
:func:`play_tictactoe`            tic-tac-toe against a search (:mod:`course.play`)
:func:`play_pig`                  Pig against a search; :func:`play` any game
================================  ========================================================

The explorers return a container widget whose controls are attributes (e.g.
``explorer.epsilon``); setting a control's ``value`` re-searches and replaces
the picture and numbers in place (never appended to).  The picture is a
:class:`TreeView`: Python builds the DOT (:func:`course.draw.draw_tree`), the
browser lays it out with Graphviz compiled to WebAssembly and lets the reader
pan, zoom, fit and focus a subtree.
"""

from .chance import ChancePruningExplorer, chance_pruning_explorer
from .drill import drill
from .epsilon import EpsilonExplorer, epsilon_explorer
from .ordering import OrderingExplorer, best_case_leaves, ordering_explorer
from .play import play, play_pig, play_tictactoe
from .step import StepThrough, step_through
from .tree_view import TreeView

__all__ = [
    "epsilon_explorer", "ordering_explorer", "step_through", "chance_pruning_explorer",
    "EpsilonExplorer", "OrderingExplorer", "StepThrough", "ChancePruningExplorer",
    "best_case_leaves", "TreeView", "drill", "play", "play_tictactoe", "play_pig",
]
