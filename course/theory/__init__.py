"""Formulas the lessons compare searches against.

Every number a lesson quotes from a source is *computed* by one of these
functions (or by running a search), never typed in as a result.  They are pure
arithmetic on numbers: no game, no search, no drawing is imported here.

Vocabulary
----------
b
    The branching factor of a uniform tree: every internal node has ``b`` children.
d (or m)
    The depth (height) of a uniform tree: number of moves from the root to a leaf.
leaves evaluated
    The cost measure of the alpha-beta analyses: how many leaves a search
    looks at (``SearchResult.evaluated``).

Modules
-------
* :mod:`course.theory.counts`, tree sizes and alpha-beta's best case:
  :func:`full_tree_leaves`, :func:`log10_leaves`, :func:`best_case_leaves`,
  :func:`notes_recurrence`, :func:`minimal_tree_counts`, :func:`iterative_deepening_overhead`,
  :func:`characteristic_roots`, :func:`sqrt_b_bound`, :func:`random_order_estimate`.
* :mod:`course.theory.selective`, Chen's decision-error bounds:
  :func:`backup_error_bound`, :func:`decision_error_bound`, :func:`nodes_generated`,
  :func:`interval_backup`, :func:`decision_error_guarantee`
  (the compact array layout itself is :class:`course.games.ChenTree`).
* :mod:`course.theory.chance`, chance nodes: :func:`chance_bounds` (condition C3),
  :func:`chance_child_window` (condition C6, lines 9-10 of Algorithm 1).

Every function is also importable from here (``from course.theory import
best_case_leaves``), which is how the lessons import them.

What used to live here and lives elsewhere now, by what it is:

* a game: :class:`~course.games.PacmanCorridor` (the notes' evaluation trap) in
  :mod:`course.games.pacman_corridor`;
* walks over a whole game: :func:`~course.analysis.node_values`,
  :func:`~course.analysis.noisy_evaluation`, :func:`~course.analysis.count_states`,
  :func:`~course.analysis.strategy_value` and :func:`~course.analysis.play` in
  :mod:`course.analysis`;
* text: :func:`~course.text.fmt`, :class:`~course.text.Table` and
  :func:`~course.text.narrate` in :mod:`course.text`.

Their old names here still work, with a :class:`DeprecationWarning` that names the new home
(so that a notebook saved from an older lesson keeps running).

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     from course.theory import Table
>>> Table.__module__, str(caught[0].message)
('course.text', 'course.theory.Table has moved: import it from course.text')

References
----------
[AIMA] Russell & Norvig, *Artificial Intelligence: A Modern Approach*.

[KM] Knuth & Moore, An analysis of alpha-beta pruning,
    *Artificial Intelligence* 6(4), 1975 (cited by [BAB]).

[NOTES] *Adversarial Search (minimax, alpha-beta pruning, expectimax)*,
    course notes (seed 004): the best-case recurrence, the (sqrt(b)+0.5)
    bound, b^(3m/4).

[STRASS] H. Strass, *Playing Games: Alpha-Beta Tree Search*, 2024 (seed 001).

[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2, 3.1, Tables 2 and 4.

[CS520] *alpha-beta Pruning with Chance* (seed 002).

[BAB] Atzmon, Stern & Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000): conditions C3 and C6, Algorithm 1.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from . import chance, counts, selective
from .chance import chance_bounds, chance_child_window
from .counts import (
    best_case_leaves,
    characteristic_roots,
    full_tree_leaves,
    log10_leaves,
    iterative_deepening_overhead,
    minimal_tree_counts,
    notes_recurrence,
    random_order_estimate,
    sqrt_b_bound,
)
from .selective import (backup_error_bound, decision_error_bound, decision_error_guarantee,
                        interval_backup, nodes_generated)

__all__ = [*counts.__all__, *selective.__all__, *chance.__all__]

#: Names that lived in ``course.theory`` until it was split, and the module each lives in now.
MOVED = {
    "CorridorState": "course.games.pacman_corridor",
    "PacmanCorridor": "course.games.pacman_corridor",
    "play": "course.analysis",
    "node_values": "course.analysis",
    "noisy_evaluation": "course.analysis",
    "count_states": "course.analysis",
    "strategy_value": "course.analysis",
    "fmt": "course.text",
    "narrate": "course.text",
    "Table": "course.text",
}


def __getattr__(name: str) -> Any:
    """Old names (see :data:`MOVED`) still resolve, with a warning that names the new home."""
    home = MOVED.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"course.theory.{name} has moved: import it from {home}",
                  DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(home), name)
