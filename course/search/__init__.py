r"""The reference searches.  Each takes a :class:`~course.game.Game` and returns a
:class:`~course.search.result.SearchResult`; ``trace=True`` adds a step-by-step trace.

========================  ==========================================================
search                    what it computes
========================  ==========================================================
:func:`minimax`           exact value, every leaf (no chance nodes)
:func:`expectimax`        exact value, every leaf (chance nodes allowed)
:func:`alphabeta`         exact value with alpha-beta pruning (no chance nodes)
:func:`star1`             exact value with \*-minimax pruning (chance allowed)
:func:`star2`             Star1 with a probing phase and likeliest outcomes first
:func:`bab`               bounds at most epsilon apart (Bounded Alpha-Beta)
:func:`naive_epsilon`     alpha-beta cutting at ``beta <= alpha + eps`` (unsafe)
:func:`selective`         Chen's selective depth-limited minimax
========================  ==========================================================

Depth-limited search is ``depth=`` (with ``evaluate=``, EVAL, and/or ``cutoff=``, IS-CUTOFF)
of every search above; :mod:`course.search.horizon` shows which transformations of EVAL keep
the decisions (:func:`transform_values`, :func:`decision_table`,
:func:`eval_transformation_example`).  :mod:`course.search.iterative` adds iterative deepening
and transposition tables (:func:`iterative_deepening`, :func:`alphabeta_tt`, :func:`bab_tt`).
"""

from .alphabeta import alphabeta, naive_epsilon
from .bab import bab, star1
from .iterative import (BoundsEntry, DeepeningResult, Entry, Flag, TranspositionTable,
                        alphabeta_tt, bab_tt, iterative_deepening)
from .horizon import decision_table, eval_transformation_example, transform_values
from .minimax import expectimax, minimax
from .ordering import ORDERINGS
from .result import ChildResult, NodeRecord, SearchResult, Trace, TraceEvent
from .selective import selective
from .star2 import star2

ALGORITHMS = {
    "minimax": minimax,
    "expectimax": expectimax,
    "alphabeta": alphabeta,
    "star1": star1,
    "star2": star2,
    "bab": bab,
    "naive-epsilon": naive_epsilon,
}
"""The searches by their command-line names."""

__all__ = [
    "minimax", "expectimax", "alphabeta", "naive_epsilon", "star1", "star2", "bab", "selective",
    "SearchResult", "ChildResult", "Trace", "TraceEvent", "NodeRecord", "ORDERINGS", "ALGORITHMS",
    "transform_values", "decision_table", "eval_transformation_example",
    "iterative_deepening", "alphabeta_tt", "bab_tt", "TranspositionTable", "Entry", "BoundsEntry",
    "Flag", "DeepeningResult",
]
