"""Pictures of game trees and of searches on them (Graphviz, no system install needed).

>>> from course import alphabeta
>>> from course.draw import draw_tree
>>> from course.examples import aima_figure_5_2
>>> game = aima_figure_5_2()
>>> picture = draw_tree(game, alphabeta(game, trace=True))
>>> picture.svg().startswith("<?xml")
True

Shapes and styles are explained by :func:`legend` and :mod:`course.draw.style`;
:func:`draw_tree` documents what a picture shows; :mod:`course.draw.engine`
finds the Graphviz program (``graphviz-pure``, installed by pip).  Nothing in
:mod:`course.search` imports this package: data flows from searches to pictures.
"""

from .engine import RenderError, find_engine, run_engine
from .legend import legend
from .picture import TreePicture
from .render import describe_event, draw_tree

__all__ = ["draw_tree", "TreePicture", "legend", "describe_event", "RenderError", "find_engine",
           "run_engine"]
