"""The course's games, each a :class:`~course.game.Game` that every search runs on unchanged.

=============================  ==============================================================
game                           what it shows
=============================  ==============================================================
:class:`TicTacToe`             a complete game tree small enough to search whole (value 0)
:class:`ConnectFour`           connect four on a board of any size (4 x 4 and 5 x 4 for speed):
                               transpositions and iterative deepening
:class:`Pig`                   dice: chance nodes, expectimax and Star1 on an exact game
:class:`CopsAndRobbers`        the BAB paper's pursuit domain, deterministic or stochastic,
                               searched to a depth limit with a distance heuristic
:class:`PacmanCorridor`        one player in a corridor: an EVAL that cannot tell "eat now"
                               from "eat later" freezes a depth-limited search
``random_tree``,               the BAB paper's random trees (RT) and stochastic RT
``stochastic_random_tree``
``ChenTree``                   Chen's Go-like random tree model
:class:`OpenSpielGame`         any perfect-information game of OpenSpiel (connect four, Pig,
                               backgammon, ...), when OpenSpiel is installed
                               (:mod:`course.games.openspiel`)
=============================  ==============================================================

The random-tree generators live in :mod:`course.games.random_trees` and
:mod:`course.games.chen`; they are exported here when those modules are present.
"""

from __future__ import annotations

import importlib

from .connect_four import ConnectFour, ConnectFourState
from .cops_robbers import CopsAndRobbers, CopsRobbersState
from .openspiel import OpenSpielGame
from .pacman_corridor import CorridorState, PacmanCorridor
from .pig import Pig, PigState
from .tictactoe import TicTacToe, TicTacToeState

__all__ = [
    "TicTacToe", "TicTacToeState",
    "ConnectFour", "ConnectFourState",
    "Pig", "PigState",
    "CopsAndRobbers", "CopsRobbersState",
    "PacmanCorridor", "CorridorState",
    "OpenSpielGame",
]


def _export_optional(module: str, names: tuple[str, ...]) -> None:
    """Export ``names`` from the optional ``course.games.<module>`` if it is installed."""
    qualified = f"{__name__}.{module}"
    try:
        mod = importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name != qualified:
            raise  # the module exists, but something it imports is missing: a real error
        return
    for name in names:
        if hasattr(mod, name):
            globals()[name] = getattr(mod, name)
            __all__.append(name)


# Maintained separately; exported when present.
_export_optional("random_trees", ("random_tree", "stochastic_random_tree"))
_export_optional("chen", ("ChenTree",))
