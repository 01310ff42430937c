"""Name the mistake: which known wrong rule reproduces a student's search exactly.

The instrumented record (:mod:`course.grading.checks.instrument`) shows *what* a
student's search visited, in order, and what it returned -- not the windows
or bounds it held, which live in the student's local variables.  This module
recovers them the only honest way: it re-runs the exercise's search with each
mistake of a small catalogue (:data:`MISTAKES`: the rule mistakes students
make, the same ones the mutant tests of the exercises plant) on the same case,
outside the sandbox, and keeps the mistakes whose simulation reproduces the
student's record *and* result exactly.  When one does, feedback can say which
rule is broken, show the window or bounds the student's search most likely
had at the first node where the mistake shows (the simulation's, next to the
reference's) and where its visits part from the reference's.

The drill feedback offers (:mod:`course.drills`) is a claim too, and checked
the same way: a mistake's simulation is also the student's *mental model*,
and :func:`model_answer` runs it on a drill's own tree; :func:`practice`
offers a drill only when the drill's own checker finds that answer wrong
(:func:`catches`), on the very tree where the search went wrong when one of
the mistake's drill kinds catches it there, else on a seeded tree.  When no
mistake is named, :func:`record_practice` checks a drill against what the
student's record says (the leaves it evaluated, the root's value); when no
drill can be checked, none is offered.

When no catalogue mistake matches, :func:`window_hint` still reads an
inequality on the student's alpha or beta from the record: a node that went
on after a child where alpha-beta stops had a test that did not fire, so its
beta was above ``v`` (MAX) or its alpha below ``v`` (MIN), and a node that
stopped early had the opposite.

Everything here runs in the grader with the case's own (trusted) game; the
student's code is never run again.

Examples
--------
>>> from course import parse_tree
>>> from course.grading.checks.cases import Case
>>> case = Case("ties", parse_tree([[3, 5], [3, 9]]))
>>> sim = simulate("alphabeta", case, MISTAKES["strict-cut"])
>>> sim.events[-1], sim.value
(('leaf', (1, 1)), 3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...errors import format_path
from ...game import Game, Path, Player
from ...search.ordering import make_orderer
from ...trees import TreeGame
from .cases import Case, EvaluatedGame
from .instrument import EXPAND, LEAF
from .values import same_move

__all__ = ["Mistake", "MISTAKES", "Simulation", "simulate", "diagnose", "Diagnosis", "reproduces",
           "window_hint", "bounded_hint", "Practice", "practice", "record_practice", "model_answer", "catches",
           "drill_call"]

INF = math.inf

#: A simulation visiting more nodes than this gives up (diagnosis is for small cases).
NODE_BUDGET = 200_000


@dataclass(frozen=True)
class Mistake:
    """A wrong rule a student's search can follow, and how to simulate it."""

    key: str
    """Short name, e.g. ``"strict-cut"``."""
    searches: tuple[str, ...]
    """The reference searches (task families) it applies to."""
    words: str
    """What the search does wrong, as feedback says it."""
    shows: str
    """Where it shows first: ``"cut"``, ``"window"``, ``"returns"`` or ``"move"``."""
    drills: tuple[str, ...]
    """The drill kinds that practise the rule, most direct first (feedback offers one only
    after checking that the mistake answers it wrongly, see :func:`practice`)."""
    flags: tuple[str, ...] = ()
    """The simulation's switches."""


def _m(key, searches, words, shows, drills, *flags):
    return Mistake(key, tuple(searches.split()), words, shows, tuple(drills.split()),
                   tuple(flags) or (key,))


_CATALOGUE = [
    # --- minimax, alpha-beta ----------------------------------------------------------------
    _m("max-everywhere", "minimax alphabeta expectimax",
       "every node takes the largest child value, MIN nodes included (a MIN node takes the "
       "smallest; in a negamax search this is the missing negation)", "returns", "minimax pruning"),
    _m("root-max", "minimax alphabeta", "the root always maximises, even when MIN is to move there",
       "move", "minimax"),
    _m("last-tie", "minimax alphabeta",
       "on a tie the root keeps the LAST best child; the rule takes the first (in order)", "move",
       "minimax"),
    _m("strict-cut", "alphabeta",
       "it cuts only on a strict inequality (v > beta at MAX, v < alpha at MIN); the rule cuts on "
       "equality too", "cut", "pruning window"),
    _m("root-window", "alphabeta",
       "the root searches every child with the full window (-inf, +inf): it does not pass on the "
       "alpha (or beta) its earlier children gave it", "window", "root window pruning"),
    _m("no-cut", "alphabeta", "it never cuts off: it searches like minimax", "cut", "pruning"),
    _m("update-first", "alphabeta",
       "it tightens alpha (beta) with v before the test, then tests v against the new bound, so "
       "every node stops after its first child", "cut", "pruning window"),
    # --- expectimax -----------------------------------------------------------------------------
    _m("plain-average", "expectimax",
       "a chance node takes the plain average of its children, ignoring the probabilities",
       "returns", "minimax"),
    # --- Star1 and Bounded Alpha-Beta ----------------------------------------------------------
    _m("strict-prune", "star1 bab",
       "it prunes only when beta < alpha + epsilon; the rule prunes on equality too", "cut",
       "bab bounds star1"),
    _m("epsilon-ignored", "bab", "it prunes when beta <= alpha, ignoring epsilon (that is Star1)",
       "cut", "bab bounds"),
    _m("prune-last", "star1 bab",
       "it also 'prunes' after a node's LAST child: the test beta <= alpha + epsilon holds there, "
       "but with no child left there is nothing to prune, and a node that has searched every "
       "child must take U = best_U (MAX) or L = best_L (MIN); a pruned one keeps vmax (vmin)",
       "returns", "bounds bab"),
    _m("keep-bounds", "star1 bab",
       "a node that searched every child keeps U = vmax (MAX) or L = vmin (MIN): it never takes "
       "best_U / best_L", "returns", "bounds bab star1"),
    _m("pruned-best", "star1 bab",
       "a node that prunes returns best_U (MAX) or best_L (MIN); a pruned node must keep vmax "
       "(vmin), because its unsearched children could be worth anything", "returns", "bounds bab"),
    _m("no-narrowing", "star1 bab",
       "it never narrows the window with the node's own bounds (alpha = max(L, alpha), "
       "beta = min(U, beta))", "cut", "bab bounds star1"),
    _m("no-chance-prune", "star1 bab", "it never prunes at a chance node", "cut", "star1 bab"),
    _m("chance-parent-window", "star1 bab",
       "below a chance node it passes the chance node's own window to each child, instead of "
       "alpha = max(vmin, (alpha - U)/p + vmax), beta = min(vmax, (beta - L)/p + vmin)",
       "window", "c6 star1 bab"),
    _m("chance-initial-window", "star1 bab",
       "below a chance node it computes each child's window from vmin and vmax instead of the "
       "chance node's CURRENT L and U", "window", "c6 bab"),
    _m("chance-swapped-window", "star1 bab",
       "below a chance node it swaps L and U in the child's window: it uses (alpha - L)/p + vmin "
       "and (beta - U)/p + vmax", "window", "c6 bab"),
    _m("move-by-U", "bab",
       "the root's move is the child with the best UPPER bound at MAX (lower at MIN); the rule "
       "takes the best lower bound L at a MAX root, which guarantees V - epsilon", "move", "bounds"),
    _m("lower-is-U", "bab", "it returns U as the lower bound (the root's bounds come out [U, U])",
       "returns", "bounds"),
]

MISTAKES: dict[str, Mistake] = {m.key: m for m in _CATALOGUE}
"""The catalogue, by key."""


# =============================================================================================
# simulations
# =============================================================================================
class _TooBig(Exception):
    pass


@dataclass
class Simulation:
    """What a search with a mistake does on a case: the record the instrumented game would keep,
    and what it held at each node."""

    events: list[tuple[str, Path]] = field(default_factory=list)
    """``(kind, path)`` in the instrumented game's terms (expand, leaf)."""
    windows: dict[Path, tuple[Any, Any]] = field(default_factory=dict)
    """The window ``(alpha, beta)`` each expanded node was entered with."""
    child_windows: dict[tuple[Path, int], tuple[Any, Any]] = field(default_factory=dict)
    """(node, child) -> the window the node gave that child (a leaf child too)."""
    returned: dict[Path, tuple[Any, Any]] = field(default_factory=dict)
    """``(lower, upper)`` each searched node returned (a value twice)."""
    cut_after: dict[Path, int] = field(default_factory=dict)
    """Node -> index of the child after which it stopped early."""
    last_test: dict[Path, tuple] = field(default_factory=dict)
    """Node -> its (alpha, beta, L, U) after its last child (bounded searches)."""
    tests: dict[tuple[Path, int], tuple] = field(default_factory=dict)
    """(node, child) -> what the node tested after that child: ``(v, alpha, beta)`` in
    alpha-beta (the window before it is narrowed), ``(L, U, alpha, beta)`` in Star1/BAB."""
    value: Any = None
    lower: Any = None
    upper: Any = None
    move: Any = None


class _Sim:
    def __init__(self, case: Case, order: str = "given") -> None:
        self.game: Game = case.game
        self.root = case.game.initial_state() if case.state is None else case.state
        self.out = Simulation()
        self.count = 0
        self.orderer = make_orderer(order, self.game) if order != "given" else None

    def visit(self) -> None:
        self.count += 1
        if self.count > NODE_BUDGET:
            raise _TooBig

    def leaf(self, s: Any, path: Path) -> Any:
        self.visit()
        self.out.events.append((LEAF, path))
        value = self.game.utility(s)
        self.out.returned[path] = (value, value)
        return value

    def expand(self, s: Any, path: Path, window: tuple | None = None) -> tuple[Player, list]:
        self.visit()
        self.out.events.append((EXPAND, path))
        if window is not None:
            self.out.windows[path] = window
        game = self.game
        player = game.turn(s)
        if player is Player.CHANCE:
            children = [(i, m, p) for i, (m, p) in enumerate(game.chance_outcomes(s))]
        else:
            children = [(i, m, None) for i, m in enumerate(game.moves(s))]
        if self.orderer is not None:
            children = [children[i] for i in self.orderer(s, path, player, len(children))]
        return player, children


def simulate(search: str, case: Case, mistake: Mistake | None = None, *,
             order: str = "given") -> Simulation | None:
    """Run the exercise's search family ``search`` with ``mistake`` (None: no mistake) on ``case``.

    Returns None when the case is too big to simulate (:data:`NODE_BUDGET`).
    """
    flags = set(mistake.flags) if mistake is not None else set()
    sim = _Sim(case, order)
    try:
        if search in ("minimax", "expectimax"):
            _minimax(sim, flags)
        elif search == "alphabeta":
            _alphabeta(sim, flags)
        elif search in ("star1", "bab"):
            eps = 0 if search == "star1" or "epsilon-ignored" in flags else (case.epsilon or 0)
            _bounded(sim, flags, eps)
        else:
            return None
    except _TooBig:
        return None
    return sim.out


def _first_best(items: list[tuple[Any, Any]], maximizing: bool, *, last: bool = False) -> Any:
    best = None
    for move, v in items:
        if best is None:
            best = (move, v)
        elif maximizing and (v >= best[1] if last else v > best[1]):
            best = (move, v)
        elif not maximizing and (v <= best[1] if last else v < best[1]):
            best = (move, v)
    return best


def _minimax(sim: _Sim, flags: set) -> None:
    game = sim.game

    def value(s: Any, path: Path) -> Any:
        if game.is_terminal(s):
            return sim.leaf(s, path)
        player, children = sim.expand(s, path)
        if player is Player.CHANCE:
            if "plain-average" in flags:
                total = 0
                for i, m, _ in children:
                    total += value(game.result(s, m), path + (i,))
                v = Fraction(total, len(children)) if isinstance(total, int) else total / len(children)
            else:
                v = 0
                for i, m, p in children:
                    v += p * value(game.result(s, m), path + (i,))
        else:
            values = [value(game.result(s, m), path + (i,)) for i, m, _ in children]
            top = player is Player.MAX or "max-everywhere" in flags
            v = max(values) if top else min(values)
        sim.out.returned[path] = (v, v)
        return v

    root = sim.root
    if game.is_terminal(root) or game.turn(root) is Player.CHANCE:
        sim.out.value = sim.out.lower = sim.out.upper = value(root, ())
        return
    # the decision functions: the root's loop keeps the move (value functions return the same value)
    player, children = sim.expand(root, ())
    items = [(m, value(game.result(root, m), (i,))) for i, m, _ in children]
    maximizing = player is Player.MAX or "root-max" in flags
    move, v = _first_best(items, maximizing, last="last-tie" in flags)
    if "max-everywhere" in flags:       # a value function maximises at the root too
        v = max(x for _, x in items)
    sim.out.returned[()] = (v, v)
    sim.out.value = sim.out.lower = sim.out.upper = v
    sim.out.move = move


def _alphabeta(sim: _Sim, flags: set) -> None:
    game = sim.game
    strict, never = "strict-cut" in flags, "no-cut" in flags
    first = "update-first" in flags

    def value(s: Any, path: Path, alpha: Any, beta: Any) -> Any:
        if game.is_terminal(s):
            return sim.leaf(s, path)
        player, children = sim.expand(s, path, (alpha, beta))
        maximizing = player is Player.MAX or "max-everywhere" in flags
        v = -INF if maximizing else INF
        for k, (i, m, _) in enumerate(children):
            sim.out.child_windows[(path, i)] = (alpha, beta)
            c = value(game.result(s, m), path + (i,), alpha, beta)
            sim.out.tests[(path, i)] = (max(v, c) if maximizing else min(v, c), alpha, beta)
            if maximizing:
                v = max(v, c)
                if first:
                    alpha = max(alpha, v)
                    cut = v >= alpha
                else:
                    cut = not never and (v > beta if strict else v >= beta)
                    if not cut:
                        alpha = max(alpha, v)
            else:
                v = min(v, c)
                if first:
                    beta = min(beta, v)
                    cut = v <= beta
                else:
                    cut = not never and (v < alpha if strict else v <= alpha)
                    if not cut:
                        beta = min(beta, v)
            if cut:
                if k < len(children) - 1:
                    sim.out.cut_after[path] = i
                break
        sim.out.returned[path] = (v, v)
        return v

    root = sim.root
    if game.is_terminal(root):
        sim.out.value = sim.out.lower = sim.out.upper = sim.leaf(root, ())
        return
    player, children = sim.expand(root, (), (-INF, INF))
    maximizing = player is Player.MAX or "root-max" in flags
    alpha, beta = -INF, INF
    items = []
    best = None
    for i, m, _ in children:
        window = (-INF, INF) if "root-window" in flags else (alpha, beta)
        sim.out.child_windows[((), i)] = window
        v = value(game.result(root, m), (i,), *window)
        items.append((m, v))
        best = _first_best(items, maximizing, last="last-tie" in flags)
        if "root-window" not in flags:
            if maximizing:
                alpha = max(alpha, best[1])
            else:
                beta = min(beta, best[1])
    sim.out.returned[()] = (best[1], best[1])
    sim.out.value = sim.out.lower = sim.out.upper = best[1]
    sim.out.move = best[0]


def _bounded(sim: _Sim, flags: set, eps: Any) -> None:
    game = sim.game
    vmin, vmax = game.vmin, game.vmax
    root_children: list[tuple[Any, Any, Any]] = []

    def search(s: Any, path: Path, alpha: Any, beta: Any) -> tuple[Any, Any]:
        if game.is_terminal(s):
            u = sim.leaf(s, path)
            return u, u
        player, children = sim.expand(s, path, (alpha, beta))
        L, U = vmin, vmax
        best_U, best_L = vmin, vmax
        last = len(children) - 1
        for k, (i, m, p) in enumerate(children):
            if player is Player.CHANCE and "chance-parent-window" not in flags:
                if "chance-initial-window" in flags:
                    ca = max(vmin, (alpha - vmax) / p + vmax)
                    cb = min(vmax, (beta - vmin) / p + vmin)
                elif "chance-swapped-window" in flags:
                    ca = max(vmin, (alpha - L) / p + vmin)
                    cb = min(vmax, (beta - U) / p + vmax)
                else:
                    ca = max(vmin, (alpha - U) / p + vmax)
                    cb = min(vmax, (beta - L) / p + vmin)
            else:
                ca, cb = alpha, beta
            sim.out.child_windows[(path, i)] = (ca, cb)
            Lc, Uc = search(game.result(s, m), path + (i,), ca, cb)
            if not path:
                root_children.append((m, Lc, Uc))
            if player is Player.MAX:
                best_U = max(best_U, Uc)
                L = max(L, Lc)
            elif player is Player.MIN:
                best_L = min(best_L, Lc)
                U = min(U, Uc)
            else:
                L = L + p * (Lc - vmin)
                U = U - p * (vmax - Uc)
            if "no-narrowing" not in flags:
                alpha = max(L, alpha)
                beta = min(U, beta)
            sim.out.tests[(path, i)] = (L, U, alpha, beta)
            test = beta < alpha + eps if "strict-prune" in flags else beta <= alpha + eps
            if player is Player.CHANCE and "no-chance-prune" in flags:
                test = False
            if k == last:
                sim.out.last_test[path] = (alpha, beta, L, U, test)
            if test and (k < last or "prune-last" in flags):
                if "pruned-best" in flags:
                    if player is Player.MAX:
                        U = best_U
                    elif player is Player.MIN:
                        L = best_L
                if k < last:
                    sim.out.cut_after[path] = i
                sim.out.returned[path] = (L, U)
                return L, U
        if "keep-bounds" not in flags:
            if player is Player.MAX:
                U = best_U
            elif player is Player.MIN:
                L = best_L
        sim.out.returned[path] = (L, U)
        return L, U

    root = sim.root
    L, U = search(root, (), vmin, vmax)
    if not game.is_terminal(root) and game.turn(root) is not Player.CHANCE:
        maximizing = game.turn(root) is Player.MAX
        by_u = "move-by-U" in flags
        best = None
        for move, Lc, Uc in root_children:
            if best is None:
                best = (move, Lc, Uc)
            elif by_u and (Uc > best[2] if maximizing else Lc < best[1]):
                best = (move, Lc, Uc)
            elif not by_u and (Lc > best[1] if maximizing else Uc < best[2]):
                best = (move, Lc, Uc)
        sim.out.move = best[0]
    if "lower-is-U" in flags:
        L = U
        sim.out.returned[()] = (L, U)
    sim.out.lower, sim.out.upper = L, U
    sim.out.value = L            # what star1_decision returns as its value


# =============================================================================================
# matching a student's run
# =============================================================================================
@dataclass(frozen=True)
class Diagnosis:
    """Named mistakes that reproduce a student's run, and where each first shows."""

    mistake: Mistake
    """The catalogue entry named first."""
    where: str
    """Where it first shows, with the student's (simulated) numbers beside the reference's."""
    node: Path | None
    """That node (the drill's focus)."""
    others: tuple[tuple[Mistake, str], ...] = ()
    """Other catalogue mistakes that reproduce the run just as well, with where each shows."""
    family: str = ""
    """The search family (Star1's words never mention epsilon)."""
    reproducing: int = 0
    """How many catalogue mistakes reproduce the run (at most three are named)."""

    @property
    def named(self) -> tuple[Mistake, ...]:
        """Every mistake the text names, in its order ((a), (b), ...)."""
        return (self.mistake,) + tuple(m for m, _ in self.others)

    def text(self) -> str:
        """The paragraph feedback adds."""
        text = self._text()
        if self.family == "star1":      # Star1 is BAB with epsilon = 0: no epsilon in its words
            text = text.replace(" + epsilon", "").replace(", ignoring epsilon (that is Star1)", "")
        return text

    def _text(self) -> str:
        if not self.others:
            return (f"Likely mistake: {self.mistake.words}. A search with exactly this mistake "
                    "visits the same nodes in the same order and returns what yours returned."
                    + (f"\n{self.where}" if self.where else ""))
        shown = len(self.others) + 1
        more = (f" ({self.reproducing} known mistakes do; the ones particular to this search "
                "are named first)" if self.reproducing > shown else "")
        lines = [f"Likely mistake, one of these {shown}: each reproduces your search exactly on "
                 f"this case (the same visits, in order, and the same result){more}."]
        for i, (mistake, where) in enumerate(((self.mistake, self.where),) + self.others, 1):
            lines.append(f"({chr(96 + i)}) {mistake.words}." + (f" {where}" if where else ""))
        return "\n".join(lines)


def _same(a: Any, b: Any) -> bool:
    from .values import same_number

    if a is None or b is None:
        return a is b
    return same_number(a, b) or a == b


def _matches(sim: Simulation, task: Any, events: tuple, returned: Any) -> bool:
    if list(events) != sim.events:
        return False
    if task.returns == "value":
        return _same(returned, sim.value)
    if task.returns == "decision":
        return _same(returned[0], sim.value) and same_move(returned[1], sim.move)
    return (_same(returned[0], sim.lower) and _same(returned[1], sim.upper)
            and same_move(returned[2], sim.move))


def _family(task: Any) -> str:
    return task.reference


def diagnose(task: Any, case: Case, events: tuple, returned: Any, reference: Any) -> Diagnosis | None:
    """The catalogue mistakes that reproduce a student's run, or None.

    Every mistake named is checked first: a search with it is simulated on the
    case, and its record (the visits, in order) and its result must be exactly
    the student's.  Mistakes particular to the exercise's search come first
    (a student who reached alpha-beta has passed minimax, whose mistakes it
    shares), then the catalogue's order; at most three are named.

    Parameters
    ----------
    task : Task
        The exercise (:data:`course.grading.checks.compare.TASKS`).
    case : Case
    events : tuple
        The student's record.
    returned
        What the student's function returned (already checked for its shape).
    reference : SearchResult
        The reference search with its trace.

    Returns
    -------
    Diagnosis or None
        None when no mistake (or the correct search itself) reproduces the run,
        when the case is too big, or for a task without a catalogue (depth limits, or the
        strict pruning rule an instructor may choose: the catalogue's mistakes and the drills
        are stated for the course's rule, which cuts on equality).
    """
    family = _family(task)
    if task.takes_depth or family not in ("minimax", "expectimax", "alphabeta", "star1", "bab"):
        return None
    if getattr(task, "strict", False):
        return None       # the catalogue's simulations and words are those of the course's rule
    order = task.order
    base = simulate(family, case, None, order=order)
    if base is None or _matches(base, task, events, returned):
        return None       # the correct search reproduces it: the difference lies elsewhere
    found = []
    for mistake in _CATALOGUE:
        if family not in mistake.searches:
            continue
        if task.returns == "value" and mistake.shows == "move":
            continue
        sim = simulate(family, case, mistake, order=order)
        if sim is not None and _matches(sim, task, events, returned):      # the check
            found.append((mistake, sim))
    if not found:
        return None
    found.sort(key=lambda item: len(item[0].searches))       # stable: then the catalogue's order
    mistake, sim = found[0]
    where, node = _where(mistake, sim, base, case, family)
    others = tuple((m, _where(m, s, base, case, family)[0]) for m, s in found[1:3])
    return Diagnosis(mistake, where, node, others, family, len(found))


def reproduces(mistake: Mistake | None, task: Any, case: Case, events: tuple, returned: Any) -> bool:
    """Whether a search with ``mistake`` (None: no mistake) records ``events`` and returns
    ``returned`` on ``case``: the check every named mistake passes.

    Examples
    --------
    >>> from course import parse_tree
    >>> from course.grading.checks.compare import TASKS
    >>> case = Case("ties", parse_tree([[3, 5], [3, 9]]))
    >>> sim = simulate("alphabeta", case, MISTAKES["strict-cut"])
    >>> reproduces(MISTAKES["strict-cut"], TASKS["alphabeta_decision"], case, tuple(sim.events),
    ...            (3, 0))
    True
    >>> reproduces(None, TASKS["alphabeta_decision"], case, tuple(sim.events), (3, 0))
    False
    """
    sim = simulate(task.reference, case, mistake, order=task.order)
    return sim is not None and _matches(sim, task, events, returned)


def _name(path: Path) -> str:
    return format_path(path)


def _fmt(x: Any) -> str:
    from .values import fmt

    return fmt(x)


def _window(w: tuple[Any, Any]) -> str:
    return f"alpha = {_fmt(w[0])}, beta = {_fmt(w[1])}"


def _bounds(pair: tuple[Any, Any]) -> str:
    lo, hi = pair
    return _fmt(lo) if lo == hi else f"[{_fmt(lo)}, {_fmt(hi)}]"


def _order_key(sim: Simulation) -> dict[Path, int]:
    return {path: i for i, (_, path) in reversed(list(enumerate(sim.events)))}


def _where(mistake: Mistake, sim: Simulation, base: Simulation, case: Case,
           family: str) -> tuple[str, Path | None]:
    """Where the mistake first shows, in words with both searches' numbers.

    First what the mistake changes (a window, a cut, the bounds a node returns, the move);
    then, if the visits differ and that was not a cut, the node where they part and why.
    Every sentence compares the mistake's simulation with the reference's on this case.  What
    the student's record cannot show (a window, the bounds a node returns) is said of the
    mistake ("with this mistake your search enters ..."): the record shows visits, not windows,
    and another slip that makes the same visits can have other windows.
    """
    shows = {"window": _shows_window, "cut": _shows_cut, "returns": _shows_returns,
             "move": _shows_move}[mistake.shows]
    text, node = shows(mistake, sim, base, case, family) or ("", None)
    if sim.events != base.events and mistake.shows != "cut":
        parted = _shows_cut(mistake, sim, base, case, family,
                            lead="Where your visits part from the reference's")
        if parted is not None:
            text = f"{text} {parted[0]}".strip()
            node = node if node is not None else parted[1]
    if not text and sim.events == base.events and sim.lower is not None and base.lower is not None:
        text = (f"Where it shows: the visits are the reference's; the root's bounds "
                f"[{_fmt(base.lower)}, {_fmt(base.upper)}] come out as your "
                f"[{_fmt(sim.lower)}, {_fmt(sim.upper)}].")
        node = ()
    return text, node


def _shows_window(mistake: Mistake, sim: Simulation, base: Simulation, case: Case,
                  family: str) -> tuple[str, Path | None] | None:
    order = _order_key(sim)
    for path in sorted(sim.windows, key=lambda p: order[p]):
        mine, theirs = sim.windows[path], base.windows.get(path)
        if theirs is not None and not (_same(mine[0], theirs[0]) and _same(mine[1], theirs[1])):
            return (f"Where it first shows: with this mistake your search enters node "
                    f"{_name(path)} with {_window(mine)}; the reference enters it with "
                    f"{_window(theirs)}."
                    + _chance_window_words(path, base, case, family), path[:-1] or path)
    return None


def _shows_cut(mistake: Mistake, sim: Simulation, base: Simulation, case: Case, family: str, *,
               lead: str = "Where it first shows") -> tuple[str, Path | None] | None:
    """The first node (in the reference's order) that stops after another child than in the
    mistake's search, with what each search tested there."""
    order = _order_key(base)
    entered = {path for kind, path in sim.events if kind == EXPAND}
    nodes = sorted(set(sim.cut_after) | set(base.cut_after), key=lambda p: order.get(p, 1 << 30))
    for path in nodes:
        mine, theirs = sim.cut_after.get(path), base.cut_after.get(path)
        if mine == theirs or path not in entered:
            continue
        if mine is None:
            what = (f"the reference stops at node {_name(path)} after child {theirs}; your "
                    "search went on")
        elif theirs is None:
            what = (f"your search stopped at node {_name(path)} after child {mine}; the "
                    "reference goes on")
        else:
            what = (f"at node {_name(path)} your search stopped after child {mine}, the "
                    f"reference after child {theirs}")
        child = min(x for x in (mine, theirs) if x is not None) if mine is not None and \
            theirs is not None else (theirs if theirs is not None else mine)
        numbers = _cut_numbers(path, child, sim, base, family, case, mistake)
        if not numbers:
            window = sim.windows.get(path)
            numbers = f" (it entered that node with {_window(window)})" if window else ""
        return f"{lead}: {what}{numbers}.", path
    return None


def _shows_returns(mistake: Mistake, sim: Simulation, base: Simulation, case: Case,
                   family: str) -> tuple[str, Path | None] | None:
    order = {p: i for i, p in enumerate(sim.returned)}      # children before parents
    for path in sorted(sim.returned, key=lambda p: order[p]):
        mine, theirs = sim.returned[path], base.returned.get(path)
        if theirs is None or (_same(mine[0], theirs[0]) and _same(mine[1], theirs[1])):
            continue
        extra = _returns_words(mistake, path, sim, base, case)
        return (f"Where it first shows: with this mistake node {_name(path)} returns "
                f"{_bounds(mine)} in your search, {_bounds(theirs)} in the reference.{extra}", path)
    return None


def _shows_move(mistake: Mistake, sim: Simulation, base: Simulation, case: Case,
                family: str) -> tuple[str, Path | None] | None:
    if same_move(sim.move, base.move):
        return None
    return (f"Where it shows: your search chose the move {sim.move!r}, the reference "
            f"{base.move!r}.", ())


def _cut_numbers(path: Path, child: int, sim: Simulation, base: Simulation, family: str,
                 case: Case, mistake: Mistake | None = None) -> str:
    """Both searches' numbers after ``child`` of ``path``: what the test compared."""
    mine, theirs = sim.tests.get((path, child)), base.tests.get((path, child))
    if mine is None or theirs is None:
        return ""
    if family == "alphabeta":
        player = _player_at(case, path)
        if mistake is not None and mistake.key == "max-everywhere" and player is Player.MIN:
            return (f": node {_name(path)} is a MIN node, but with this mistake it takes the "
                    f"largest value, v = {_fmt(mine[0])}, and tests it as a MAX node does, "
                    f"v >= beta = {_fmt(mine[2])}; the reference's MIN node has v = "
                    f"{_fmt(theirs[0])} and tests v <= alpha = {_fmt(theirs[1])}")
        bound = "beta" if player is Player.MAX else "alpha"
        k = 2 if player is Player.MAX else 1
        if _same(mine[0], theirs[0]) and _same(mine[k], theirs[k]):
            return (f": after child {child}, v = {_fmt(theirs[0])} and {bound} = {_fmt(theirs[k])} "
                    "in both searches, so the difference is the test itself")
        return (f": after child {child} the reference has v = {_fmt(theirs[0])}, {bound} = "
                f"{_fmt(theirs[k])}; with this mistake your search has v = {_fmt(mine[0])}, "
                f"{bound} = {_fmt(mine[k])}")
    eps = 0 if family == "star1" else (case.epsilon or 0)
    plus = f" + epsilon ({_fmt(eps)})" if family == "bab" else ""
    if all(_same(a, b) for a, b in zip(mine, theirs)):
        return (f": after child {child} both have L = {_fmt(theirs[0])}, U = {_fmt(theirs[1])}, "
                f"alpha = {_fmt(theirs[2])}, beta = {_fmt(theirs[3])} (the reference prunes when "
                f"beta <= alpha{plus}), so the difference is the test itself")
    return (f": after child {child} the reference has L = {_fmt(theirs[0])}, U = {_fmt(theirs[1])}, "
            f"alpha = {_fmt(theirs[2])}, beta = {_fmt(theirs[3])} (it prunes when beta <= "
            f"alpha{plus}); with this mistake your search has L = {_fmt(mine[0])}, "
            f"U = {_fmt(mine[1])}, alpha = {_fmt(mine[2])}, beta = {_fmt(mine[3])}")


def _returns_words(mistake: Mistake, path: Path, sim: Simulation, base: Simulation,
                   case: Case) -> str:
    if mistake.key == "prune-last" and path in sim.last_test:
        alpha, beta, L, U, _ = sim.last_test[path]
        eps = case.epsilon or 0
        test = (f"beta = {_fmt(beta)} <= alpha + epsilon = {_fmt(alpha)} + {_fmt(eps)}" if eps
                else f"beta = {_fmt(beta)} <= alpha = {_fmt(alpha)}")
        node = _player_at(case, path)
        fix = ("U = best_U" if node is Player.MAX else "L = best_L" if node is Player.MIN
               else "its bounds as they are")
        return (f" After its last child, {test} holds, and your search returned at once as if it "
                f"had pruned; but it has searched every child, so it must take {fix}: "
                f"{_bounds(base.returned[path])}.")
    return ""


def _player_at(case: Case, path: Path) -> Player | None:
    from .instrument import replay_path

    try:
        state = replay_path(case.game, path, case.state)
        return None if case.game.is_terminal(state) else case.game.turn(state)
    except Exception:  # noqa: BLE001 - only used to explain
        return None


def _chance_window_words(path: Path, base: Simulation, case: Case, family: str) -> str:
    """The reference's child window below a chance node, as the formula with its numbers."""
    if family not in ("star1", "bab") or not path:
        return ""
    parent = path[:-1]
    if _player_at(case, parent) is not Player.CHANCE:
        return ""
    return (" Below a chance node the child's window is alpha = max(vmin, (alpha - U)/p + vmax), "
            "beta = min(vmax, (beta - L)/p + vmin), with the chance node's current window and "
            f"bounds L, U and the child's probability p (node {_name(parent)} is the chance node).")


# =============================================================================================
# what the record alone says about the student's window
# =============================================================================================
def window_hint(player: str, went_on: bool, v: Any, alpha: Any, beta: Any) -> str:
    """What an alpha-beta node's visits say about the student's window there.

    Parameters
    ----------
    player : ``"max"`` or ``"min"``
    went_on : bool
        True if the student's node went on to another child where the
        reference stops; False if it stopped where the reference goes on.
    v : number
        The node's value so far (the reference's: the student visited the same
        nodes up to there).
    alpha, beta : numbers
        The reference's window there.

    Returns
    -------
    str

    Examples
    --------
    >>> window_hint("min", True, 2, 3, float("inf"))
    'Your search went on, so its test did not fire: with v = 2 its alpha there was below 2 (or it cuts only on a strict inequality, v < alpha); the reference has alpha = 3.'
    """
    if player == "max":
        bound, op, ref = "beta", (">=", ">"), beta
        if went_on:
            return (f"Your search went on, so its test did not fire: with v = {_fmt(v)} its beta "
                    f"there was above {_fmt(v)} (or it cuts only on a strict inequality, v > beta); "
                    f"the reference has beta = {_fmt(ref)}.")
        return (f"Your search stopped, so its test fired: with v = {_fmt(v)} its beta there was "
                f"{_fmt(v)} or less; the reference has beta = {_fmt(ref)}.")
    if went_on:
        return (f"Your search went on, so its test did not fire: with v = {_fmt(v)} its alpha "
                f"there was below {_fmt(v)} (or it cuts only on a strict inequality, v < alpha); "
                f"the reference has alpha = {_fmt(alpha)}.")
    return (f"Your search stopped, so its test fired: with v = {_fmt(v)} its alpha there was "
            f"{_fmt(v)} or more; the reference has alpha = {_fmt(alpha)}.")


def bounded_hint(went_on: bool, cut: Any, entry: Any, epsilon: Any) -> str:
    """What a Star1 or BAB node's visits say about the student's numbers there.

    Visits show where a node stopped, not its L, U or window; so the hint says which test fired
    (or did not) in the student's search and what must then differ from the reference's numbers;
    where the student went on, also the window the reference entered the node with (below a
    chance node that is C6's, which the message's other lines do not print; where the student
    stopped, the line before the hint prints it).

    Parameters
    ----------
    went_on : bool
        True if the student's node went on where the reference prunes; False if it stopped
        where the reference goes on.
    cut : TraceEvent
        The reference's cut-off event at the node (``went_on``), else its update event after the
        child the student stopped after: its ``lower``, ``upper``, ``alpha``, ``beta``.
    entry : TraceEvent or None
        The reference's enter event of the node (its window), if known.
    epsilon : number
        BAB's epsilon (0 for Star1).

    Examples
    --------
    >>> from types import SimpleNamespace as E
    >>> print(bounded_hint(True, E(lower=3, upper=4, alpha=3, beta=2.5, child=0),
    ...                    E(alpha=1, beta=4), 0))
    Your search went on, so its test did not fire there: its beta was above its alpha. The reference's numbers there (after child 0: L = 3, U = 4) fire it, so your L or U after that child, or the window your search entered the node with, differs from the reference's; the reference entered it with alpha = 1, beta = 4.
    """
    plus = " + epsilon" if epsilon else ""
    came = (f"; the reference entered it with alpha = {_fmt(entry.alpha)}, beta = {_fmt(entry.beta)}"
            if entry is not None and getattr(entry, "alpha", None) is not None else "")
    child = getattr(cut, "child", None)
    numbers = (f"after child {child}: L = {_fmt(cut.lower)}, U = {_fmt(cut.upper)}" if child is not None
               else f"L = {_fmt(cut.lower)}, U = {_fmt(cut.upper)}")
    if went_on:
        return (f"Your search went on, so its test did not fire there: its beta was above its "
                f"alpha{plus}. The reference's numbers there ({numbers}) fire it, so your L or U "
                f"after that child, or the window your search entered the node with, differs from "
                f"the reference's{came}.")
    return (f"Your search stopped, so its test fired there: its beta was at or below its "
            f"alpha{plus}. The reference's numbers there ({numbers}) do not fire it, so your L or U "
            f"after that child, or the window your search entered the node with, differs from the "
            f"reference's.")


# =============================================================================================
# the drill that catches the mistake
# =============================================================================================
#: Longest tree literal written into a drill call (longer trees use the case's recipe).
TREE_LITERAL_LIMIT = 360
#: Seeded drills tried per kind and level when the case's game is not an explicit tree.
SEEDS_TRIED = 25


@dataclass(frozen=True)
class Practice:
    """A drill feedback offers, and what checking it showed."""

    call: str
    """A one-line ``drill(...)`` call (with its import) to paste into a cell."""
    kind: str
    """The drill's kind."""
    catches: tuple[str, ...]
    """Keys of the named mistakes whose simulation answers the drill wrongly (``"record"``: the
    student's own record does)."""
    on_case: bool = True
    """True when the drill is on the case's own tree (else a seeded drill of the kind)."""


def model_answer(drill: Any, mistake: Mistake | None = None) -> Any:
    """The answer a search with ``mistake`` gives to ``drill`` (None: the correct search).

    The drill's own search family is simulated on the drill's tree, with the
    drill's ordering and epsilon; a mistake of another search family leaves
    that search as it is (a student whose alpha-beta passes on no window still
    computes minimax values right).

    Examples
    --------
    >>> from course.drills import make_drill
    >>> d = make_drill("root", tree=[[3], [3, 1]])
    >>> model_answer(d, MISTAKES["root-window"])
    {'B': (-inf, inf), 'C': (-inf, inf)}
    >>> d.check(model_answer(d, MISTAKES["root-window"])).correct, d.check(model_answer(d)).correct
    (False, True)
    """
    family = drill.family
    applies = mistake if mistake is not None and family in mistake.searches else None
    case = Case("drill", drill.game, epsilon=drill.epsilon if family == "bab" else None)
    sim = simulate(family, case, applies, order=drill.search_order)
    if sim is None:
        raise ValueError(f"the drill's tree is too big to simulate ({NODE_BUDGET} nodes)")
    return drill.answer_from(sim)


def catches(drill: Any, mistake: Mistake) -> bool:
    """True when the drill's own checker finds the answer of a search with ``mistake`` wrong.

    Examples
    --------
    >>> from course.drills import make_drill
    >>> catches(make_drill("minimax", tree=[[3], [3, 1]]), MISTAKES["root-window"])
    False
    >>> catches(make_drill("pruning", tree=[[3], [3, 1]]), MISTAKES["root-window"])
    True
    """
    try:
        return not drill.check(model_answer(drill, mistake)).correct
    except Exception:  # noqa: BLE001 - an answer the drill cannot read proves nothing
        return False


def practice(named: tuple[Mistake, ...] | list[Mistake], case: Case, *,
             focus: Path | None = None) -> tuple[Practice, ...]:
    """The drills to offer for the named mistakes, each checked to catch them.

    One drill that every named mistake answers wrongly if there is one (on the
    case's own tree first, a seeded drill of the kind otherwise); else, for
    each mistake, the first drill of its kinds (:attr:`Mistake.drills`) that
    it answers wrongly.  A mistake no drill catches gets none: ``()`` when none
    is caught.

    Examples
    --------
    >>> from course import parse_tree
    >>> named = [MISTAKES["strict-cut"], MISTAKES["root-window"], MISTAKES["max-everywhere"]]
    >>> [(p.kind, p.catches) for p in practice(named, Case("t", parse_tree([[3], [3, 1]])))]
    [('pruning', ('strict-cut', 'root-window', 'max-everywhere'))]
    """
    named = list(named)
    if not named:
        return ()
    kinds = list(dict.fromkeys(k for m in named for k in m.drills))
    keys = tuple(m.key for m in named)
    if len(named) > 1:
        for source in (_case_drills, _seeded_drills):
            for kind in kinds:
                for call, drill, on_case in source(kind, case, focus):
                    if all(catches(drill, m) for m in named):
                        return (Practice(call, kind, keys, on_case),)
    offers: dict[str, Practice] = {}
    for mistake in named:
        found = None
        for source in (_case_drills, _seeded_drills):
            for kind in mistake.drills:
                found = next(((call, kind, on_case)
                              for call, drill, on_case in source(kind, case, focus)
                              if catches(drill, mistake)), None)
                if found:
                    break
            if found:
                break
        if found:
            call, kind, on_case = found
            old = offers.get(call)
            offers[call] = Practice(call, kind, (old.catches if old else ()) + (mistake.key,), on_case)
    return tuple(offers.values())


@dataclass
class _Record:
    """A student's record as a drill's model: the visits, and what the root returned."""

    events: list
    returned: dict = field(default_factory=dict)
    move: Any = None


def record_practice(task: Any, case: Case, events: tuple, returned: Any, *,
                    focus: Path | None = None) -> tuple[Practice, ...]:
    """A drill on the case's tree that the student's own record answers wrongly, when no
    catalogue mistake reproduces the run.

    The record says which leaves the search evaluated (a leaf drill's answer) and what the
    root returned (a minimax drill's root value and move); the drill's other parts are taken
    as right, so a wrong verdict comes from what the search did.  ``()`` when no drill kind
    can be checked this way (a move ordering, a depth limit, a game that is not a tree).
    """
    family = task.reference
    if task.takes_depth or task.order != "given" or getattr(task, "strict", False):
        return ()         # (a strict task: the drills ask the course's rule, which cuts on equality)
    if family in ("minimax", "expectimax"):
        kinds = ("minimax",)
    elif family in ("alphabeta", "star1", "bab"):
        kinds = ("pruning",) if family == "alphabeta" else ("bab",)
    else:
        return ()
    record = _Record(list(events))
    if task.returns == "value":
        record.returned[()] = (returned, returned)
    elif task.returns == "decision":
        record.returned[()] = (returned[0], returned[0])
        record.move = returned[1]
    for kind in kinds:
        for call, drill, _ in _case_drills(kind, case, focus):
            try:
                answer = _filled(drill.answer_from(record), drill.expected)
                wrong = not drill.check(answer).correct
            except Exception:  # noqa: BLE001 - an answer the drill cannot read proves nothing
                wrong = False
            if wrong:
                return (Practice(call, kind, ("record",)),)
    return ()


def _filled(answer: Any, expected: Any) -> Any:
    """``answer`` with the parts it leaves empty taken from ``expected``."""
    if isinstance(answer, dict) and isinstance(expected, dict):
        return {k: (answer.get(k) if answer.get(k) is not None else v) for k, v in expected.items()}
    return answer


def _tree_of(case: Case) -> TreeGame | None:
    game = case.game.game if isinstance(case.game, EvaluatedGame) else case.game
    if not isinstance(game, TreeGame) or case.state is not None:
        return None
    return game


def _case_drills(kind: str, case: Case, focus: Path | None):
    """``(call, drill, True)`` for drills of ``kind`` on the case's own tree (for a chance-node
    kind, one per chance node Star1 enters, the one above ``focus`` first)."""
    from ...drills import make_drill

    game = _tree_of(case)
    if game is None:
        return
    nodes: list[Path | None] = [None]
    if kind in ("star1", "c6"):
        nodes = _chance_nodes(game, focus)
    epsilon = _drill_epsilon(kind, case)
    for node in nodes:
        drill_focus = focus if kind not in ("star1", "c6") else None
        call, tree = _drill_spec(kind, case, game, focus=drill_focus, node=node)
        try:
            drill = make_drill(kind, tree=tree, epsilon=epsilon, node=node, focus=drill_focus)
        except Exception:  # noqa: BLE001 - the kind cannot ask about this tree (or node)
            continue
        yield call, drill, True


def _chance_nodes(game: TreeGame, focus: Path | None) -> list[Path]:
    from ...search import star1

    try:
        trace = star1(game, trace=True).trace
    except Exception:  # noqa: BLE001 - e.g. no bounds: no chance-node drill
        return []
    entered = list(dict.fromkeys(e.path for e in trace.events
                                 if e.kind == "enter" and e.player == "chance"))
    above = [focus[:d] for d in range(len(focus), -1, -1) if focus[:d] in entered] if focus else []
    return list(dict.fromkeys(above + entered))


def _drill_epsilon(kind: str, case: Case) -> Any:
    if kind in ("bab", "bounds"):
        return case.epsilon if case.epsilon is not None else 0
    return None


def _seeded_drills(kind: str, case: Case, focus: Path | None):
    """``(call, drill, False)`` for seeded drills of ``kind`` (levels 3, 4, 5; a few seeds each):
    a game that is not an explicit tree gets a drill of the kind on a tree of its own."""
    from ...drills import make_drill

    for level in (3, 4, 5):
        for seed in range(1, SEEDS_TRIED + 1):
            drill = _seeded_drill(make_drill, kind, level, seed)
            call = f'from course.widgets import drill; drill("{kind}", level={level}, seed={seed})'
            yield call, drill, False


_SEEDED: dict[tuple[str, int, int], Any] = {}


def _seeded_drill(make_drill: Any, kind: str, level: int, seed: int) -> Any:
    key = (kind, level, seed)
    if key not in _SEEDED:
        _SEEDED[key] = make_drill(kind, level=level, seed=seed)
    return _SEEDED[key]


def drill_call(kind: str, case: Case, *, focus: Path | None = None, node: Path | None = None) -> str:
    """A one-line ``drill(...)`` call that sets up drill ``kind`` on the case's tree.

    Explicit trees are written out (labels dropped, numbers kept) when short,
    else rebuilt from the case's recipe; other games get a drill of the kind at
    level 3 instead (:func:`practice` picks its seed).

    Examples
    --------
    >>> from course import parse_tree
    >>> drill_call("pruning", Case("t", parse_tree([[3, 5], [3, 9]])), focus=(1,))
    'from course.widgets import drill; drill("pruning", tree=[[3, 5], [3, 9]], focus=(1,))'
    """
    game = _tree_of(case)
    if game is None:
        return f'from course.widgets import drill; drill("{kind}", level=3)'
    return _drill_spec(kind, case, game, focus=focus, node=node)[0]


def _drill_spec(kind: str, case: Case, game: TreeGame, *, focus: Path | None,
                node: Path | None) -> tuple[str, Any]:
    """The call, and the tree exactly as the call gives it to ``drill`` (what the check builds)."""
    import json

    head = "from course.widgets import drill; "
    extra = ""
    epsilon = _drill_epsilon(kind, case)
    if epsilon is not None:
        extra += f", epsilon={_literal_number(epsilon)}"
    if kind in ("star1", "c6") and node is not None:
        extra += f", node={node!r}"
    if focus is not None:
        extra += f", focus={focus!r}"
    literal = _tree_literal(game, plain=kind in ("minimax", "pruning", "window", "root"))
    if len(literal) > TREE_LITERAL_LIMIT and case.recipe and case.recipe.startswith("course."):
        module = case.recipe.split("(")[0].rsplit(".", 1)[0]
        return f'import {module}; {head}drill("{kind}", tree={case.recipe}{extra})', game
    return f'{head}drill("{kind}", tree={literal}{extra})', json.loads(literal)


def _literal_number(x: Any) -> str:
    if isinstance(x, Fraction):
        return f'"{x.numerator}/{x.denominator}"' if x.denominator != 1 else str(x.numerator)
    return repr(x)


def _tree_literal(game: TreeGame, *, plain: bool) -> str:
    import json

    if plain:
        nested = _nested(game.root, "max")
        if nested is not None:
            return json.dumps(nested)

    def strip(node: Any) -> Any:
        if node.is_leaf:
            return _json_value(node.value)
        if node.kind == "chance":
            return {"chance": [[_probability(p), strip(c)]
                               for p, c in zip(node.probabilities, node.children)]}
        return {node.kind: [strip(c) for c in node.children]}

    obj = {"tree": strip(game.root), "bounds": [_json_value(game.vmin), _json_value(game.vmax)]}
    return json.dumps(obj)


def _nested(node: Any, expect: str) -> Any:
    """The tree as nested lists (MAX root, players alternating, integer leaves), else None."""
    if node.is_leaf:
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if node.kind != expect:
        return None
    items = [_nested(c, "min" if expect == "max" else "max") for c in node.children]
    return None if any(i is None for i in items) else items


def _probability(p: Any) -> Any:
    """A probability as the drill reads it: ``"1/3"`` for a fraction (exact, and short)."""
    if isinstance(p, Fraction) and p.denominator != 1:
        return f"{p.numerator}/{p.denominator}"
    if isinstance(p, float):
        near = Fraction(p).limit_denominator(1000)
        if abs(float(near) - p) <= 1e-12 and near.denominator != 1:
            return f"{near.numerator}/{near.denominator}"
    return p


def _json_value(x: Any) -> Any:
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else float(x)
    return x

