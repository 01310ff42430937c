r"""Iterative deepening and transposition tables: alpha-beta and BAB that remember positions.

Strass's lecture (seed 001) lists both as the standard improvements of alpha-beta; the BAB
paper plays its games "in an iterative deepening manner" (seed 000).

**Iterative deepening** (ID) searches to depth 1, then 2, ..., then ``d``.  The earlier
iterations are overhead; what they buy is (a) a move at any time and (b) *move ordering*: the
best move each position had in the previous iteration is tried first in the next, which is
what makes alpha-beta prune well.  How large the overhead is depends on the pruning, so
:func:`iterative_deepening` measures it (:attr:`DeepeningResult.overhead`) rather than assuming
full-width search's ``1 / (b - 1)``.

A **transposition table** (TT) maps a position to what a search learned about it.  A position
reached again (by another move order: a *transposition*) is then answered, or at least
searched with its best move first.  Each entry records:

* ``depth``: the *draft*, how many plies were searched below the position (``math.inf`` when
  the search went to the end of the game).  An entry answers a search only if its draft is at
  least the draft now needed: a shallower result is a different (depth-limited) value.
* for alpha-beta, a **flag** and a value (:class:`Entry`).  Fail-soft alpha-beta returns ``v``
  with: ``v <= alpha`` means V <= v (an **upper** bound), ``v >= beta`` means V >= v (a
  **lower** bound), anything between is **exact**.  The flag is decided against the window
  the position was actually searched with (after the table narrowed it); storing a fail-low
  or fail-high ``v`` as exact is the classic bug.
* for Bounded Alpha-Beta, the node's bounds ``[L, U]`` themselves (:class:`BoundsEntry`), which
  are always true bounds whatever the window; a flag is the special case where one side is
  infinite.
* the **best move** found, tried first the next time (even when the draft is too small to
  answer).

Looking an entry up in :func:`alphabeta_tt`: an exact value of enough draft is returned; a
lower bound raises ``alpha``, an upper bound lowers ``beta``, and the position is answered when
the window closes (``alpha >= beta``).  In :func:`bab_tt`, ``[L, U]`` become the node's initial
bounds and narrow its window; the node is answered when BAB's own test already holds
(``min(U, beta) <= max(L, alpha) + epsilon``).  The root is always searched.

Pitfalls, and why they do not bite here:

* *Draft.*  The table answers only with enough draft, and stores results with the draft
  searched.  An entry with *more* draft than needed answers too (standard practice): the
  answer is then a deeper, usually better, value than plain depth-limited search computes.  In
  tic-tac-toe and connect four a position has as many marks as moves were played, so it only
  recurs at the same depth, and the values equal plain alpha-beta's (tested).
* *Graph-history interaction* (a position whose value depends on how it was reached: draws by
  repetition, move counters) cannot arise in these games: no position repeats, and the value
  depends on the board alone.  Games where it can need the history in the key.
* *Chance nodes* are not stored (a chance node's bounds come from its outcomes'); BAB with a
  table searches them as :func:`course.search.bab` does.

References
----------
H. Strass, *Playing Games: Alpha-Beta Tree Search*, TU Dresden 2024 (seed 001): iterative
    deepening and transposition tables as the improvements of alpha-beta.
D. Breuker, J. Uiterwijk and H. van den Herik, *Replacement schemes for transposition tables*,
    ICCA Journal 17(4), 1994 (drafts and replacement).
A. Plaat, J. Schaeffer, W. Pijls and A. de Bruin, *Best-first fixed-depth minimax algorithms*,
    Artificial Intelligence 87, 1996 (fail-soft bounds in the table).
D. Atzmon, R. Stern and A. Saffidine, *Bounded Suboptimal Game Tree Search*, SoCS 2018.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ..errors import ParameterError
from ..game import Game, Path, Player
from ._context import EXPAND, SearchContext, check_epsilon, check_utility_bounds, first_best
from .alphabeta import alphabeta
from .bab import bab
from .chance import ChanceBounds
from .result import ChildResult, SearchResult, Trace

__all__ = [
    "Flag",
    "Entry",
    "BoundsEntry",
    "TranspositionTable",
    "alphabeta_tt",
    "bab_tt",
    "DeepeningResult",
    "iterative_deepening",
]

INF = math.inf


class Flag(enum.Enum):
    """What an alpha-beta table entry's value is."""

    EXACT = "exact"
    """The value itself."""
    LOWER = "lower"
    """A lower bound (the search failed high: ``v >= beta``)."""
    UPPER = "upper"
    """An upper bound (the search failed low: ``v <= alpha``)."""

    def __repr__(self) -> str:
        return f"Flag.{self.name}"


@dataclass(frozen=True)
class Entry:
    """An alpha-beta transposition-table entry: a flagged value."""

    depth: float
    """The draft: plies searched below the position (``math.inf``: to the end of the game)."""
    flag: Flag
    """Whether :attr:`value` is exact, a lower or an upper bound."""
    value: Any
    """The fail-soft value the search returned."""
    move: int | None
    """The best move's index in ``game.moves(state)``, tried first next time."""

    @property
    def lower(self) -> Any:
        """The entry as bounds: ``value`` for EXACT and LOWER, else ``-inf``."""
        return self.value if self.flag is not Flag.UPPER else -INF

    @property
    def upper(self) -> Any:
        """``value`` for EXACT and UPPER, else ``+inf``."""
        return self.value if self.flag is not Flag.LOWER else INF


@dataclass(frozen=True)
class BoundsEntry:
    """A BAB transposition-table entry: the bounds ``[lower, upper]`` on the position's value."""

    depth: float
    """The draft, as for :class:`Entry`."""
    lower: Any
    """L: the value is at least this."""
    upper: Any
    """U: the value is at most this."""
    move: int | None
    """The best move's index (at MAX the child with the highest L, at MIN the lowest U)."""

    @property
    def flag(self) -> Flag | None:
        """EXACT when the bounds meet, else None (both sides are informative)."""
        return Flag.EXACT if self.lower == self.upper else None


class TranspositionTable:
    """Positions a search has seen, with what it learned (:class:`Entry` or :class:`BoundsEntry`).

    Parameters
    ----------
    key : callable, optional
        ``key(state)``: a hashable key for a position; default the state itself (which must be
        hashable, as tic-tac-toe's and connect four's states are).

    Attributes
    ----------
    probes : int
        Look-ups made.
    found : int
        Look-ups that found an entry (used at least to order the moves).
    answered : int
        Look-ups that answered the position without searching it.
    stores : int
        Entries written (new or replaced).

    Examples
    --------
    >>> from course.games import TicTacToe
    >>> table = TranspositionTable()
    >>> alphabeta_tt(TicTacToe(), table=table).value
    0
    >>> len(table)          # distinct non-terminal positions stored
    1994
    >>> table
    TranspositionTable(1994 entries; 3716 probes, 1722 found, 1531 answered, 2185 stores)
    """

    def __init__(self, key: Callable[[Any], Hashable] | None = None) -> None:
        if key is not None and not callable(key):
            raise ParameterError(f"key must be a function of a state, got {key!r}")
        self.key = key
        self.entries: dict[Hashable, Entry | BoundsEntry] = {}
        self.probes = self.found = self.answered = self.stores = 0

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return (f"TranspositionTable({len(self)} entries; {self.probes} probes, "
                f"{self.found} found, {self.answered} answered, {self.stores} stores)")

    def key_of(self, state: Any) -> Hashable:
        """The key of ``state``."""
        key = state if self.key is None else self.key(state)
        try:
            hash(key)
        except TypeError:
            raise ParameterError(
                f"a transposition table needs hashable positions, got {type(key).__name__}; "
                "pass TranspositionTable(key=...) to make one"
            ) from None
        return key

    def get(self, state: Any) -> Entry | BoundsEntry | None:
        """The entry of ``state``, or None (counted as a probe)."""
        self.probes += 1
        entry = self.entries.get(self.key_of(state))
        if entry is not None:
            self.found += 1
        return entry

    def put(self, state: Any, entry: Entry | BoundsEntry) -> None:
        """Store ``entry`` for ``state`` unless one with more draft is there (depth-preferred)."""
        key = self.key_of(state)
        old = self.entries.get(key)
        if old is None or entry.depth >= old.depth:
            self.entries[key] = entry
            self.stores += 1

    def clear(self) -> None:
        """Forget every entry and reset the counters."""
        self.entries.clear()
        self.probes = self.found = self.answered = self.stores = 0


def _table(table: Any) -> TranspositionTable:
    if table is None:
        return TranspositionTable()
    if not isinstance(table, TranspositionTable):
        raise ParameterError(
            f"table must be a TranspositionTable or None, got {type(table).__name__}")
    return table


def _first(order: Any, move: int | None) -> list[int]:
    """The search order with the table's best move first."""
    order = list(order)
    if move is not None and move in order and order[0] != move:
        order.remove(move)
        order.insert(0, move)
    return order


def _answered(ctx: SearchContext, state: Any, path: Path, player: Player, alpha: Any, beta: Any,
              lower: Any, upper: Any, reason: str) -> None:
    """Trace a position the table answered: entered, cut before its first child, left."""
    if ctx.events is None:
        return
    n = len(ctx.game.moves(state))
    ctx.emit("enter", path, player=player.value, alpha=alpha, beta=beta)
    ctx.emit("cutoff", path, alpha=alpha, beta=beta, lower=lower, upper=upper,
             pruned=tuple(range(n)), reason=reason)
    ctx.emit("exit", path, alpha=alpha, beta=beta, lower=lower, upper=upper)


def alphabeta_tt(
    game: Game,
    state: Any = None,
    *,
    depth: int | None = None,
    table: TranspositionTable | None = None,
    order: Any = "given",
    seed: int | None = 0,
    evaluate: Callable[[Any], float] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Alpha-beta (Russell & Norvig's rules, fail-soft) with a transposition table.

    Parameters
    ----------
    game : Game
        A game without chance nodes whose states are hashable (or use ``table.key``).
    state : optional
        Where to search from; default ``game.initial_state()``.
    depth : int, optional
        Depth limit (EVAL at the horizon); default: to the end of the game.
    table : TranspositionTable, optional
        The table to read and write; default a new, empty one.  Pass the same table to
        several searches to share what they learn (as :func:`iterative_deepening` does).
    order, seed, evaluate, trace
        As for :func:`course.search.alphabeta`; the table's best move goes first.

    Returns
    -------
    SearchResult
        ``algorithm="alphabeta-tt"``; the value equals plain alpha-beta's when positions recur
        only at one depth (see the module notes).  ``expanded`` and ``evaluated`` do not count
        positions the table answered.  ``move`` is the first root child, in search order,
        returning the root value.

    Raises
    ------
    ChanceNodeError
        If the search reaches a chance node.
    ParameterError
        For an invalid depth, ordering or table, or unhashable states.

    Examples
    --------
    From the empty tic-tac-toe board the table saves most of the work (the whole tree has
    549,946 nodes; plain alpha-beta visits 18,297 of them):

    >>> from course.games import TicTacToe
    >>> from course.search import alphabeta
    >>> plain, tt = alphabeta(TicTacToe()), alphabeta_tt(TicTacToe())
    >>> plain.value == tt.value == 0
    True
    >>> plain.expanded + plain.evaluated, tt.expanded + tt.evaluated
    (18297, 3235)
    """
    table = _table(table)
    ctx = SearchContext(game, order=order, seed=seed, depth=depth, evaluate=evaluate, trace=trace,
                        allow_chance=False)
    limit = INF if depth is None else depth
    leaf, expand, result = ctx.leaf, ctx.expand, game.result
    events, emit, root_children = ctx.events, ctx.emit, ctx.root_children
    returned: list[tuple[int, Any, Any]] = []    # root children's returned numbers: the move
    leaves = ctx.leaves

    def value(state: Any, path: Path, d: int, alpha: Any, beta: Any) -> Any:
        v = leaf(state, path, d)
        if v is not EXPAND:
            return v
        draft = limit - d
        entry = table.get(state)
        best_move = None
        if entry is not None:
            best_move = entry.move
            if entry.depth >= draft and path:          # the root is always searched
                if entry.flag is Flag.EXACT:
                    answer = True
                else:
                    if entry.flag is Flag.LOWER and entry.value > alpha:
                        alpha = entry.value
                    elif entry.flag is Flag.UPPER and entry.value < beta:
                        beta = entry.value
                    answer = alpha >= beta
                if answer:
                    table.answered += 1
                    _answered(ctx, state, path, game.turn(state), alpha, beta, entry.value,
                              entry.value, f"table: {entry.flag.value} value {entry.value} "
                                           f"(draft {entry.depth})")
                    return entry.value
        player, moves, _, order = expand(state, path)
        order = _first(order, best_move)
        is_max = player is Player.MAX
        a0, b0 = alpha, beta                           # the window this position is searched with
        if events is not None:
            emit("enter", path, player=player.value, alpha=alpha, beta=beta)
        v = -INF if is_max else INF
        best = None
        last = len(order) - 1
        for k, index in enumerate(order):
            child_value = value(result(state, moves[index]), path + (index,), d + 1, alpha, beta)
            if not path:
                returned.append((index, child_value, child_value))
                if leaves and leaves[-1] == (index,):        # a leaf: its value, whatever the window
                    root_children.append(ChildResult(index, child_value, child_value))
                else:                                        # the window it was called with
                    root_children.append(ChildResult.fail_soft(index, child_value, alpha, beta))
            if child_value > v if is_max else child_value < v:
                v, best = child_value, index
            cut = v >= beta if is_max else v <= alpha
            if not cut:
                if is_max:
                    if v > alpha:
                        alpha = v
                elif v < beta:
                    beta = v
            if events is not None:
                emit("update", path, child=index, alpha=alpha, beta=beta, lower=v, upper=v)
            if cut:
                if events is not None and k < last:
                    reason = f"v={v} >= beta={beta}" if is_max else f"v={v} <= alpha={alpha}"
                    emit("cutoff", path, alpha=alpha, beta=beta, lower=v, upper=v,
                         pruned=tuple(order[k + 1:]), reason=reason)
                break
        if events is not None:
            emit("exit", path, alpha=alpha, beta=beta, lower=v, upper=v)
        flag = Flag.UPPER if v <= a0 else Flag.LOWER if v >= b0 else Flag.EXACT
        table.put(state, Entry(draft, flag, v, best))
        return v

    root = game.initial_state() if state is None else state
    v = value(root, (), 0, -INF, INF)
    move = first_best(returned, game.turn(root), by="lower") if returned else None
    return ctx.result("alphabeta-tt", v, v, move)


def bab_tt(
    game: Game,
    state: Any = None,
    *,
    epsilon: float = 0,
    depth: int | None = None,
    table: TranspositionTable | None = None,
    vmin: float | None = None,
    vmax: float | None = None,
    order: Any = "given",
    seed: int | None = 0,
    evaluate: Callable[[Any], float] | None = None,
    trace: bool = False,
) -> SearchResult:
    """Bounded Alpha-Beta with a transposition table whose entries are bounds ``[L, U]``.

    Parameters
    ----------
    game : Game
        Any game with finite utility bounds; MAX and MIN positions must be hashable.
    state : optional
        Where to search from.
    epsilon : float, optional
        The allowed error, >= 0 (0: Star1 with a table).
    depth, table, order, seed, evaluate, trace
        As for :func:`alphabeta_tt`.
    vmin, vmax : float, optional
        Bounds on every utility; default the game's.

    Returns
    -------
    SearchResult
        ``algorithm="bab-tt"``; ``lower <= V <= upper`` and ``upper - lower <= epsilon`` at the
        root (Theorem 1 of the BAB paper, with the table's bounds as extra knowledge).

    Raises
    ------
    ParameterError
        For a bad epsilon, bounds, depth, ordering or table.
    BoundsError
        If a leaf lies outside ``[vmin, vmax]``.

    Examples
    --------
    >>> from course.games import TicTacToe
    >>> result = bab_tt(TicTacToe(), epsilon=1)
    >>> result.lower <= 0 <= result.upper, result.width <= 1
    (True, True)
    """
    epsilon = check_epsilon(epsilon)
    table = _table(table)
    vmin, vmax = check_utility_bounds("bab_tt", game, state, vmin, vmax)
    ctx = SearchContext(game, order=order, seed=seed, depth=depth, evaluate=evaluate, trace=trace,
                        check_bounds=(vmin, vmax))
    limit = INF if depth is None else depth
    leaf, expand, result = ctx.leaf, ctx.expand, game.result
    events, emit, root_children = ctx.events, ctx.emit, ctx.root_children

    def search(state: Any, path: Path, d: int, alpha: Any, beta: Any) -> tuple[Any, Any]:
        value = leaf(state, path, d)
        if value is not EXPAND:
            return value, value
        L, U = vmin, vmax
        best_move = None
        draft = limit - d
        decision = game.turn(state) is not Player.CHANCE
        if decision:
            entry = table.get(state)
            if entry is not None:
                best_move = entry.move
                if entry.depth >= draft:
                    L, U = entry.lower, entry.upper    # true bounds: start from them
                    if L > alpha:
                        alpha = L
                    if U < beta:
                        beta = U
                    if path and beta <= alpha + epsilon:   # BAB's own test already holds
                        table.answered += 1
                        _answered(ctx, state, path, game.turn(state), alpha, beta, L, U,
                                  f"table: [{L}, {U}] (draft {entry.depth}), beta={beta} <= "
                                  f"alpha={alpha} + epsilon={epsilon}")
                        return L, U
        player, moves, probabilities, order = expand(state, path)
        if decision:
            order = _first(order, best_move)
        is_max, is_min = player is Player.MAX, player is Player.MIN
        best_U, best_L = vmin, vmax
        best_index = best_key = None
        if probabilities is not None:
            chance = ChanceBounds([probabilities[i] for i in order], vmin, vmax)
        if events is not None:
            emit("enter", path, player=player.value, alpha=alpha, beta=beta, lower=L, upper=U)
        last = len(order) - 1
        for k, index in enumerate(order):
            if probabilities is not None:              # C6, see course.search.chance
                child_alpha, child_beta = chance.window(alpha, beta, L, U)
            else:                                      # C5
                child_alpha, child_beta = alpha, beta
            Lc, Uc = search(result(state, moves[index]), path + (index,), d + 1,
                            child_alpha, child_beta)
            if not path:
                root_children.append(ChildResult(index, Lc, Uc))
            if is_max:
                if Uc > best_U:
                    best_U = Uc
                if Lc > L:
                    L = Lc
                if best_index is None or Lc > best_key:    # the move: highest L, first on ties
                    best_index, best_key = index, Lc
            elif is_min:
                if Lc < best_L:
                    best_L = Lc
                if Uc < U:
                    U = Uc
                if best_index is None or Uc < best_key:    # the move: lowest U, first on ties
                    best_index, best_key = index, Uc
            else:
                L, U = chance.add(Lc, Uc)
            if not alpha > L:
                alpha = L
            if not beta < U:
                beta = U
            if events is not None:
                emit("update", path, child=index, alpha=alpha, beta=beta, lower=L, upper=U)
            if beta <= alpha + epsilon and k < last:
                if events is not None:
                    emit("cutoff", path, alpha=alpha, beta=beta, lower=L, upper=U,
                         pruned=tuple(order[k + 1:]),
                         reason=f"beta={beta} <= alpha={alpha} + epsilon={epsilon}")
                    emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
                if decision:
                    table.put(state, BoundsEntry(draft, L, U, best_index))
                return L, U
        if is_max and best_U < U:                      # fully expanded: U = best_U (or the table's)
            U = best_U
        elif is_min and best_L > L:
            L = best_L
        if events is not None:
            emit("exit", path, alpha=alpha, beta=beta, lower=L, upper=U)
        if decision:
            table.put(state, BoundsEntry(draft, L, U, best_index))
        return L, U

    root = game.initial_state() if state is None else state
    lower, upper = search(root, (), 0, vmin, vmax)
    move = None
    if root_children:
        player = game.turn(root)
        move = first_best(root_children, player, by="lower" if player is Player.MAX else "upper")
    return ctx.result("bab-tt", lower, upper, move, epsilon=epsilon)


@dataclass(frozen=True)
class DeepeningResult:
    """What :func:`iterative_deepening` did: one search per depth, and their totals."""

    iterations: tuple[SearchResult, ...]
    """The search of each iteration (depth 1, 2, ...), its counts its own."""
    table: TranspositionTable | None = None
    """The table the iterations shared, or None (ID without a table)."""

    @property
    def last(self) -> SearchResult:
        """The deepest iteration's result: its value and move are ID's answer."""
        return self.iterations[-1]

    @property
    def value(self) -> Any:
        return self.last.value

    @property
    def lower(self) -> Any:
        return self.last.lower

    @property
    def upper(self) -> Any:
        return self.last.upper

    @property
    def move(self) -> int | None:
        return self.last.move

    @property
    def depth(self) -> int:
        """The deepest depth searched."""
        return len(self.iterations)

    @property
    def expanded(self) -> int:
        """Internal nodes expanded, summed over the iterations."""
        return sum(r.expanded for r in self.iterations)

    @property
    def evaluated(self) -> int:
        """Leaves evaluated, summed over the iterations."""
        return sum(r.evaluated for r in self.iterations)

    @property
    def nodes(self) -> int:
        """``expanded + evaluated`` over all iterations: the nodes ID visited."""
        return self.expanded + self.evaluated

    @property
    def overhead(self) -> float:
        """The iterations before the last, as a fraction of the last: ``nodes / last - 1``."""
        last = self.last.expanded + self.last.evaluated
        return self.nodes / last - 1 if last else 0.0

    @property
    def trace(self) -> Trace | None:
        """The iterations' traces one after the other (None unless run with ``trace=True``)."""
        if any(r.trace is None for r in self.iterations):
            return None
        return Trace(tuple(e for r in self.iterations for e in r.trace))

    def __repr__(self) -> str:
        last = self.last
        value = (f"value {last.value!r}" if last.value is not None
                 else f"value in [{last.lower!r}, {last.upper!r}]")
        counts = ", ".join(str(r.expanded + r.evaluated) for r in self.iterations)
        table = "" if self.table is None else f"; {self.table!r}"
        return (f"<DeepeningResult {last.algorithm} to depth {self.depth}: {value}, move "
                f"{last.move}; nodes per iteration {counts} (overhead {self.overhead:.0%}){table}>")


def iterative_deepening(
    game: Game,
    state: Any = None,
    *,
    depth: int,
    search: str = "alphabeta",
    table: bool | TranspositionTable = True,
    epsilon: float = 0,
    vmin: float | None = None,
    vmax: float | None = None,
    order: Any = "given",
    seed: int | None = 0,
    evaluate: Callable[[Any], float] | None = None,
    trace: bool = False,
) -> DeepeningResult:
    """Search to depth 1, 2, ..., ``depth``, the iterations sharing a transposition table.

    Parameters
    ----------
    game : Game
    state : optional
        Where to search from.
    depth : int
        The last iteration's depth limit (>= 1).
    search : {"alphabeta", "bab"}
        Alpha-beta (:func:`alphabeta_tt`, or :func:`course.search.alphabeta` without a table)
        or Bounded Alpha-Beta (:func:`bab_tt`, or :func:`course.search.bab`).
    table : bool or TranspositionTable, optional
        True (default): a new table shared by the iterations; False: no table, each iteration
        starts from nothing (the plain searches); or a table to continue with.
    epsilon, vmin, vmax
        For ``search="bab"``.
    order, seed, evaluate, trace
        As for the searches.

    Returns
    -------
    DeepeningResult
        The iterations' results; ``value``/``move`` are the last one's, ``overhead`` what the
        earlier iterations cost relative to it.

    Raises
    ------
    ParameterError
        For a depth below 1, an unknown search, or options that do not apply.

    Examples
    --------
    Connect four on a 5 x 4 board, 7 plies ahead: with a table the iterations cost less
    together than plain alpha-beta's one search to depth 7.

    >>> from course.games import ConnectFour
    >>> from course.search import alphabeta
    >>> game = ConnectFour(width=5, height=4)
    >>> with_tt = iterative_deepening(game, depth=7)
    >>> without = iterative_deepening(game, depth=7, table=False)
    >>> with_tt.value == without.value == alphabeta(game, depth=7).value
    True
    >>> plain = alphabeta(game, depth=7)
    >>> with_tt.nodes < plain.expanded + plain.evaluated < without.nodes
    True
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ParameterError(f"depth must be an integer >= 1, got {depth!r}")
    if search not in ("alphabeta", "bab"):
        raise ParameterError(f"search must be 'alphabeta' or 'bab', got {search!r}")
    if search == "alphabeta" and (epsilon != 0 or vmin is not None or vmax is not None):
        raise ParameterError("epsilon, vmin and vmax apply to search='bab' only")
    if table is True:
        shared = TranspositionTable()
    elif table is False or table is None:
        shared = None
    else:
        shared = _table(table)
    options = dict(order=order, seed=seed, evaluate=evaluate, trace=trace)
    if search == "bab":
        options.update(epsilon=epsilon, vmin=vmin, vmax=vmax)
    results = []
    for d in range(1, depth + 1):
        if shared is None:
            run = alphabeta if search == "alphabeta" else bab
            results.append(run(game, state, depth=d, **options))
        else:
            run = alphabeta_tt if search == "alphabeta" else bab_tt
            results.append(run(game, state, depth=d, table=shared, **options))
    return DeepeningResult(tuple(results), shared)
