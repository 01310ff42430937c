"""Chen's bounds for selective search: how wrong a value or a decision can be, and what it costs.

:func:`backup_error_bound` (Propositions 1-3), :func:`decision_error_bound`
(Corollaries 2.1, 2.2, 3.1) and :func:`nodes_generated` (Tables 2 and 4), for the
search :func:`course.search.selective`.  The compact array layout of Chen's
random trees is :class:`course.games.ChenTree`.

References
----------
[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2, 3.1, Tables 2 and 4.
"""

from __future__ import annotations

from ..errors import ParameterError
from ._checks import check_count, check_nonneg

__all__ = ["backup_error_bound", "decision_error_bound", "nodes_generated"]


def backup_error_bound(*, d: int, e: float = 0, e0: float = 0) -> float:
    """How far a (selective) depth-``d`` backed-up value can be from the true value.

    Parameters
    ----------
    d : int
        Search depth, >= 0.
    e : float
        Error bound of the evaluation function at the search frontier.
    e0 : float
        Omission error bound: at every interior node, the best value over
        the kept children is within ``e0`` of the best over all children.

    Returns
    -------
    float
        ``e + d * e0``: Proposition 1 (``e0 = 0``: the error stays ``e``,
        whatever the depth), Proposition 2 (``e = 0``: it grows to ``d e0``)
        and Proposition 3 (both).

    Examples
    --------
    >>> backup_error_bound(d=5, e=1), backup_error_bound(d=5, e0=1), backup_error_bound(d=5, e=1, e0=1)
    (1, 5, 6)

    References
    ----------
    [CHEN], Section 2.
    """
    check_count("d", d)
    return check_nonneg("e", e) + d * check_nonneg("e0", e0)


def decision_error_bound(*, d: int, e: float = 0, e0: float = 0, optimal_kept: bool = False) -> float:
    """Chen's bound on the decision error of a depth-``d`` (selective) search.

    The decision error is how much worse (in true value) the chosen move is
    than the best move.

    Parameters
    ----------
    d : int
        Search depth, >= 1.
    e, e0 : float
        Evaluation and omission error bounds (see :func:`backup_error_bound`).
    optimal_kept : bool
        True if the search is known to keep an optimal move at the root.

    Returns
    -------
    float
        * ``2 e`` with ``e0 = 0`` (after Proposition 1);
        * ``2 (d - 1) e0`` if ``optimal_kept`` (Corollary 2.1, with ``e = 0``);
        * ``(2d - 1) e0`` otherwise (Corollary 2.2, with ``e = 0``);
        * ``2 e + (2d - 1) e0`` in general (Corollary 3.1), and
          ``2 e + 2 (d - 1) e0`` if ``optimal_kept`` (the same argument as
          Corollary 2.1 applied to Proposition 3).

    Raises
    ------
    ParameterError
        If ``d < 1`` or an error bound is negative.

    Examples
    --------
    >>> decision_error_bound(d=3, e=1)
    2
    >>> decision_error_bound(d=3, e0=1, optimal_kept=True), decision_error_bound(d=3, e0=1)
    (4, 5)
    >>> decision_error_bound(d=3, e=1, e0=1)
    7
    >>> decision_error_bound(d=0, e=1)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: d must be an integer >= 1, got 0

    References
    ----------
    [CHEN], Proposition 1 and Corollaries 2.1, 2.2, 3.1.
    """
    check_count("d", d, minimum=1)
    e, e0 = check_nonneg("e", e), check_nonneg("e0", e0)
    return 2 * e + (2 * (d - 1) if optimal_kept else 2 * d - 1) * e0


def nodes_generated(b: int, d: int, s: int = 0) -> int:
    """Nodes a depth-``d`` selective search generates when it skips ``s`` of ``b`` moves.

    Every expanded node keeps ``b - s`` children, so the search generates
    ``1 + (b-s) + (b-s)**2 + ... + (b-s)**d`` nodes, the root included
    (Chen's Tables 2 and 4).

    Parameters
    ----------
    b : int
        Branching factor, >= 1.
    d : int
        Search depth, >= 0.
    s : int
        Skip number, ``0 <= s < b``.

    Returns
    -------
    int

    Examples
    --------
    >>> nodes_generated(5, 1), nodes_generated(5, 9, 3)
    (6, 1023)
    >>> nodes_generated(5, 2, 5)
    Traceback (most recent call last):
    ...
    course.errors.ParameterError: the skip number s=5 must be smaller than b=5
    """
    b, d, s = check_count("b", b, minimum=1), check_count("d", d), check_count("s", s)
    if s >= b:
        raise ParameterError(f"the skip number s={s} must be smaller than b={b}")
    k = b - s
    return sum(k ** i for i in range(d + 1))
