"""Chen's bounds for selective search: how wrong a value or a decision can be, and what it costs.

:func:`backup_error_bound` (Propositions 1-3), :func:`decision_error_bound`
(Corollaries 2.1, 2.2, 3.1) and :func:`nodes_generated` (Tables 2 and 4), for the
search :func:`course.search.selective`.  :func:`interval_backup` and
:func:`decision_error_guarantee` are the same arguments node by node, with an error
bound for each frontier node instead of one ``e`` for all (the graded exercise of
lesson 3, ``solutions/a6_selective``).  The compact array layout of Chen's
random trees is :class:`course.games.ChenTree`.

References
----------
[CHEN] K.-H. Chen, *A Study of Decision Error in Selective Game Tree Search*
    (seed 003): Propositions 1-3, Corollaries 2.1, 2.2, 3.1, Tables 2 and 4.
"""

from __future__ import annotations

from ..errors import ParameterError
from ._checks import check_count, check_nonneg

__all__ = ["backup_error_bound", "decision_error_bound", "nodes_generated", "interval_backup",
           "decision_error_guarantee"]


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


def interval_backup(intervals, *, player: str, omitted: bool = False, e0: float = 0) -> tuple:
    """Where a MAX or MIN node's true value lies, given where its searched children's lie.

    Proposition 1's induction, node by node: if the true value of each
    searched child ``c`` lies in ``[lo(c), hi(c)]``, then the true value of a
    MAX node lies in ``[max lo(c), max hi(c)]`` (the largest of numbers that
    each lie in an interval lies between the largest lower ends and the
    largest upper ends), and of a MIN node in ``[min lo(c), min hi(c)]``.
    With one error bound ``e`` for every frontier node, each interval is the
    backed-up value ``+- e``: Proposition 1.  With a bound per node the
    interval can be narrower than ``Backup +- max e``.

    If the node dropped children (a selective search) with omission error
    bound ``e0``, the best true value over *all* children is within ``e0`` of
    the best over the searched ones, and dropping a child can only lower a
    maximum (raise a minimum): a MAX node's upper end grows by ``e0``, a MIN
    node's lower end falls by ``e0``; the other end stays (Proposition 2's
    argument, one-sided).

    Parameters
    ----------
    intervals : sequence of (lo, hi)
        The searched children's intervals, at least one.
    player : {"max", "min"}
    omitted : bool
        True if the node dropped at least one child.
    e0 : number
        The omission error bound, >= 0 (used only when ``omitted``).

    Returns
    -------
    (lo, hi)

    Examples
    --------
    A child estimated 10 +- 1 and one estimated 0 +- 5: MAX is sure of [9, 11],
    narrower than 10 +- 5.

    >>> interval_backup([(9, 11), (-5, 5)], player="max")
    (9, 11)
    >>> interval_backup([(9, 11), (-5, 5)], player="min")
    (-5, 5)
    >>> interval_backup([(9, 11)], player="max", omitted=True, e0=2)
    (9, 13)
    >>> interval_backup([(9, 11)], player="min", omitted=True, e0=2)
    (7, 11)

    References
    ----------
    [CHEN], Propositions 1-3 and their proofs.
    """
    pairs = [tuple(pair) for pair in intervals]
    if not pairs or any(len(pair) != 2 or not pair[0] <= pair[1] for pair in pairs):
        raise ParameterError(f"intervals must be a non-empty list of (lo, hi) with lo <= hi, "
                             f"got {intervals!r}")
    if player not in ("max", "min"):
        raise ParameterError(f'player must be "max" or "min", got {player!r}')
    e0 = check_nonneg("e0", e0)
    pick = max if player == "max" else min
    lo, hi = pick(lo for lo, _ in pairs), pick(hi for _, hi in pairs)
    if omitted:
        if player == "max":
            hi = hi + e0
        else:
            lo = lo - e0
    return lo, hi


def decision_error_guarantee(intervals, chosen: int, *, player: str) -> float:
    """The most a decision can lose, knowing only where each move's true value lies.

    The decision error of choosing move ``chosen`` at a MAX node is
    ``max_c v(c) - v(chosen)`` (0 if it is a best move).  If each true value
    ``v(c)`` can be anywhere in ``[lo(c), hi(c)]``, independently of the
    others, the worst case puts another move at its upper end and the chosen
    one at its lower end: ``max(0, max over c != chosen of hi(c) - lo(chosen))``;
    at a MIN node ``max(0, hi(chosen) - min over c != chosen of lo(c))``.  With
    intervals ``Backup +- e`` and the move with the best backed-up value, this
    is at most ``2 e`` (the consequence of Proposition 1).

    Parameters
    ----------
    intervals : sequence of (lo, hi)
        One interval per move of the node.
    chosen : int
        Index of the chosen move.
    player : {"max", "min"}

    Returns
    -------
    number

    Examples
    --------
    Chen's tight case: moves truly worth 3 and 5, both estimated 4 with e = 1,
    so both intervals are [3, 5]: choosing either can lose 2 = 2e.  A move whose
    interval lies above every other one's loses nothing.

    >>> decision_error_guarantee([(3, 5), (3, 5)], 0, player="max")
    2
    >>> decision_error_guarantee([(9, 11), (-5, 5)], 0, player="max")
    0
    >>> decision_error_guarantee([(9, 11), (-5, 5)], 1, player="min")
    0
    >>> decision_error_guarantee([(4, 4)], 0, player="max")
    0

    References
    ----------
    [CHEN], Section 2 (the decision error; the bound 2e after Proposition 1).
    """
    pairs = [tuple(pair) for pair in intervals]
    if not pairs or any(len(pair) != 2 or not pair[0] <= pair[1] for pair in pairs):
        raise ParameterError(f"intervals must be a non-empty list of (lo, hi) with lo <= hi, "
                             f"got {intervals!r}")
    if player not in ("max", "min"):
        raise ParameterError(f'player must be "max" or "min", got {player!r}')
    if isinstance(chosen, bool) or not isinstance(chosen, int) or not 0 <= chosen < len(pairs):
        raise ParameterError(f"chosen must be the index of one of the {len(pairs)} moves, "
                             f"got {chosen!r}")
    others = [pair for i, pair in enumerate(pairs) if i != chosen]
    if not others:
        return 0
    lo, hi = pairs[chosen]
    if player == "max":
        worst = max(h for _, h in others) - lo
    else:
        worst = hi - min(l for l, _ in others)
    return worst if worst > 0 else 0
