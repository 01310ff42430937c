"""Reproductions of the source papers' experiments, runnable as ``python -m course experiment NAME``.

=======================  =======================================================  ==========================
experiment               what it reproduces                                       module
=======================  =======================================================  ==========================
``bab-rt``               BAB on random trees: ER, AMB vs epsilon, ER bins          :mod:`.bab_rt`
                         (Atzmon et al. 2018, Figure 4)
``bab-stochastic-rt``    the same on stochastic random trees (Figure 6a, b)       :mod:`.bab_rt`
``bab-cops-robbers``     Cops & Robbers, deterministic and stochastic             :mod:`.cops_robbers`
                         (Figures 5 and 6c, d)
``chen``                 Chen's decision-error simulation (Tables 1-4)           :mod:`.chen`
``alphabeta-ordering``   alpha-beta's leaves vs depth per move ordering           :mod:`.ordering`
=======================  =======================================================  ==========================

:mod:`.fast` runs alpha-beta, Star1 and BAB on random trees with results
identical to :mod:`course.search`, fast enough for the full-size runs;
:mod:`.paper` holds the papers' reported numbers for comparison; :mod:`.cli`
is the command line.  Every experiment is also a function (``run_bab_rt``,
...) that returns an :class:`~.common.ExperimentOutput` and writes a CSV and a
PNG plot.
"""

from importlib import import_module

# Imported on first use (PEP 562): the experiments need numpy, while :mod:`.paper`'s printed
# numbers do not, and the lessons read those in places (JupyterLite) where numpy may be missing.
_EXPORTS = {
    "run_bab_rt": ".bab_rt", "run_bab_stochastic_rt": ".bab_rt", "run_chen": ".chen",
    "ExperimentOutput": ".common", "run_bab_cops_robbers": ".cops_robbers",
    "fast_search": ".fast", "run_alphabeta_ordering": ".ordering",
}


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "fast_search",
    "run_bab_rt",
    "run_bab_stochastic_rt",
    "run_bab_cops_robbers",
    "run_chen",
    "run_alphabeta_ordering",
    "ExperimentOutput",
]
