"""The numbers the two papers report, kept to compare our runs with.

These are the *papers'* results, not ours: every experiment prints them
beside what it measured.  They are typed in once, here, and
``tests/test_experiments.py`` checks each one against the seed texts in
``shared/seeds/`` (when that folder is present), so a typo cannot hide.

References
----------
[BAB] D. Atzmon, R. Stern, A. Saffidine, *Bounded Suboptimal Game Tree Search*,
    SoCS 2018 (seed 000), "Results for Deterministic Games" and "Games with Chance".
[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003), Tables 1-4.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = [
    "BAB_RT_ER_AT_EPS32",
    "BAB_RT_AMB_DEPTH9",
    "BAB_STOCHASTIC_RT_B4",
    "BAB_CR_STOCHASTIC",
    "CHEN_CASES",
    "CHEN_ERRORS",
    "CHEN_NODES",
    "CHEN_NODE_TABLE",
    "CHEN_NODE_VALUE",
]

# -- [BAB] ------------------------------------------------------------------------------------
BAB_RT_ER_AT_EPS32: dict[int, float] = {3: 0.67, 5: 0.37, 7: 0.18, 9: 0.05}
"""RT, branching 4: average ER at epsilon = 32, by depth (text beside Figure 4)."""

BAB_RT_AMB_DEPTH9: dict[int, float] = {0: 0.0, 32: 30.97, 64: 61.88}
"""RT, branching 4, depth 9: average AMB by epsilon (text beside Figure 4b)."""

BAB_STOCHASTIC_RT_B4: dict[int, tuple[float, float]] = {0: (1.0, 0.0), 8: (0.79, 6.58),
                                                        24: (0.4, 20.71)}
"""Stochastic RT, depth 4, branching 4: epsilon -> (ER, AMB) (text beside Figure 6a, b)."""

BAB_CR_STOCHASTIC: dict[int, tuple[float, float]] = {0: (1.0, 0.0), 4: (0.25, 3.17),
                                                     8: (0.07, 7.19)}
"""Stochastic C&R, 6x6, 20% obstacles, 3 cops, depth 3: epsilon -> (ER, AMB) (Figure 6c, d text)."""

# -- [CHEN] -----------------------------------------------------------------------------------
CHEN_CASES: dict[str, tuple[int, int, int]] = {"table1": (5, 10, 9), "table3": (11, 7, 7)}
"""The two simulated cases as (branching b, tree height h, node height h1)."""

_T1 = """
0.949 0.949 0.943 0.940
0.618 0.617 0.611 0.687
0.450 0.459 0.482 0.530
0.348 0.352 0.378 0.537
0.302 0.300 0.320 0.459
0.240 0.252 0.319 0.493
0.196 0.207 0.272 0.481
0.136 0.157 0.246 0.457
0.000 0.035 0.155 0.473
"""
_T2 = """
6 5 4 3
31 21 13 7
156 85 40 15
781 341 121 31
3906 1365 364 63
19531 5461 1093 127
97656 21845 3280 255
488281 87381 9841 511
2441406 349525 29524 1023
"""
_T3 = """
0.535 0.535 0.535 0.535 0.535 0.535 0.535 0.540 0.550 0.515
0.370 0.370 0.370 0.370 0.370 0.360 0.360 0.390 0.390 0.430
0.245 0.245 0.245 0.245 0.245 0.245 0.250 0.285 0.295 0.320
0.250 0.250 0.250 0.250 0.250 0.250 0.240 0.245 0.270 0.305
0.180 0.180 0.180 0.180 0.180 0.180 0.185 0.195 0.250 0.255
0.095 0.095 0.095 0.095 0.095 0.095 0.100 0.095 0.155 0.285
0.000 0.000 0.000 0.000 0.000 0.005 0.005 0.025 0.090 0.260
"""
_T4 = """
12 11 10 9 8 7 6 5 4 3
133 111 91 73 57 43 31 21 13 7
1464 1111 820 585 400 259 156 85 40 15
16105 11111 7381 4681 2801 1555 781 341 121 31
177156 111111 66430 37449 19608 9331 3906 1365 364 63
1948717 1111111 597871 299593 137257 55987 19531 5461 1093 127
21435888 11111111 5380840 2396745 960800 335923 97656 21845 3280 255
"""


def _grid(text: str, cast) -> dict[tuple[int, int], float]:
    """Rows are depths d = 1, 2, ...; columns skip numbers s = 0, 1, ..."""
    rows = [line.split() for line in text.strip().splitlines()]
    return {(d, s): cast(x) for d, row in enumerate(rows, start=1) for s, x in enumerate(row)}


CHEN_ERRORS: dict[str, dict[tuple[int, int], float]] = {
    "table1": _grid(_T1, float),
    "table3": _grid(_T3, float),
}
"""Average decision error in points, ``(d, s) -> error`` (Tables 1 and 3)."""

class _RenamedKeys(dict):
    """A dict whose keys were renamed: an old key still works, with a :class:`DeprecationWarning`.

    Iteration, ``len`` and ``keys()`` show the new keys only.
    """

    def __init__(self, name: str, data: dict, renamed: dict[str, str]) -> None:
        super().__init__(data)
        self._name, self._renamed = name, dict(renamed)

    def _key(self, key: Any) -> Any:
        new = self._renamed.get(key) if isinstance(key, str) else None
        if new is None:
            return key
        warnings.warn(f"{self._name}[{key!r}] is Chen's {new.replace('table', 'Table ')}: "
                      f"use {self._name}[{new!r}]", DeprecationWarning, stacklevel=3)
        return new

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._key(key))

    def __contains__(self, key: Any) -> bool:
        return super().__contains__(self._key(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(self._key(key), default)


CHEN_NODE_TABLE: dict[str, str] = {"table1": "table2", "table3": "table4"}
"""The table of node counts for the setting of each error table (Table 2 goes with Table 1)."""

CHEN_NODES: dict[str, dict[tuple[int, int], int]] = _RenamedKeys(
    "CHEN_NODES", {"table2": _grid(_T2, int), "table4": _grid(_T4, int)}, CHEN_NODE_TABLE)
"""Nodes generated per search, ``(d, s) -> count``: ``"table2"`` and ``"table4"``.

The keys used to be the error tables' names (``"table1"`` for Table 2's counts); they still
work, with a :class:`DeprecationWarning`:

>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = CHEN_NODES["table1"]
>>> old is CHEN_NODES["table2"], str(caught[0].message)
(True, "CHEN_NODES['table1'] is Chen's Table 2: use CHEN_NODES['table2']")
>>> sorted(CHEN_NODES)
['table2', 'table4']
"""

CHEN_NODE_VALUE: dict[str, float] = {"table1": 4.3, "table3": 8.9}
""""The average game theoretic node value", given for comparison under Tables 1 and 3."""
