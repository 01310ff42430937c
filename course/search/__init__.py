r"""The reference searches.  Each takes a :class:`~course.game.Game` and returns a
:class:`~course.search.result.SearchResult`; ``trace=True`` adds a step-by-step trace.

========================  ==========================================================
search                    what it computes
========================  ==========================================================
:func:`minimax`           exact value, every leaf (no chance nodes)
:func:`expectimax`        exact value, every leaf (chance nodes allowed)
:func:`alphabeta`         exact value with alpha-beta pruning (no chance nodes)
:func:`star1`             exact value with \*-minimax pruning (chance allowed)
:func:`bab`               bounds at most epsilon apart (Bounded Alpha-Beta)
:func:`naive_epsilon`     alpha-beta cutting at ``beta <= alpha + eps`` (unsafe)
:func:`selective`         Chen's selective depth-limited minimax
========================  ==========================================================
"""

from .alphabeta import alphabeta, naive_epsilon
from .bab import bab, star1
from .minimax import expectimax, minimax
from .ordering import ORDERINGS
from .result import ChildResult, NodeRecord, SearchResult, Trace, TraceEvent
from .selective import selective

ALGORITHMS = {
    "minimax": minimax,
    "expectimax": expectimax,
    "alphabeta": alphabeta,
    "star1": star1,
    "bab": bab,
    "naive-epsilon": naive_epsilon,
}
"""The searches by their command-line names."""

__all__ = [
    "minimax", "expectimax", "alphabeta", "naive_epsilon", "star1", "bab", "selective",
    "SearchResult", "ChildResult", "Trace", "TraceEvent", "NodeRecord", "ORDERINGS", "ALGORITHMS",
]
