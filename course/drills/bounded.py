"""The drill kinds about Star1 and Bounded Alpha-Beta: bounds L and U, windows below chance nodes.

==========  ================================================================  ====================
kind        the question                                                      reference search
==========  ================================================================  ====================
star1       a chance node's L and U after each child, and after which child   :func:`~course.search.star1`
            (if any) it cuts
c6          the window a chance node gives each child before searching it     :func:`~course.search.star1`
            (condition C6)
bab         which leaves Bounded Alpha-Beta skips for an epsilon              :func:`~course.search.bab`
bounds      the bounds [L, U] every searched inner node returns, and the      :func:`~course.search.bab`
            root's move (epsilon 0: Star1)
==========  ================================================================  ====================

See :mod:`course.drills.kinds` for what every kind provides and how to add one.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import ParameterError
from ..game import Path
from ..search import bab, star1
from ..search.result import SearchResult, TraceEvent
from ..theory.chance import chance_child_window
from ..trees import TreeGame
from .kinds import (
    _EMPTY,
    Drill,
    Field,
    Verdict,
    _bounds,
    _box,
    _field_error,
    _Index,
    _LeafSetDrill,
    _names_list,
    _op,
    _parse,
    _record_move,
    _run_part,
)
from .numbers import AnswerError, fmt, parse_number, same

__all__ = ["BabDrill", "Star1Drill", "C6Drill", "BoundsDrill"]


class _BoundedWords:
    """Explanations for the searches with bounds (Star1, BAB): L, U, alpha, beta, epsilon."""

    epsilon: Any
    index: _Index

    def _test(self, e: TraceEvent) -> tuple[bool, str]:
        eps = self.epsilon or 0
        right = fmt(e.alpha) if not eps else f"α + ε = {fmt(e.alpha)} + {fmt(eps)} = {fmt(e.alpha + eps)}"
        left = f"β = {fmt(e.beta)}"
        if e.beta <= e.alpha + eps:
            return True, f"{left} ≤ {'α = ' if not eps else ''}{right}"
        return False, f"{left} > {'α = ' if not eps else ''}{right}"

    def _state_words(self, parent: Path, e: TraceEvent) -> str:
        kind = self.node(parent).kind
        rule = {"max": "L = max(L, L(c))", "min": "U = min(U, U(c))",
                "chance": "L += p·(L(c) − vmin), U −= p·(vmax − U(c))"}[kind]
        return (f"{rule} gives L = {fmt(e.lower)}, U = {fmt(e.upper)}; then α = max(L, α) = "
                f"{fmt(e.alpha)} and β = min(U, β) = {fmt(e.beta)}")

    def _no_cut_words(self, parent: Path, previous: int, e: TraceEvent, next_name: str) -> str:
        got = _bounds(self.index.returned(parent + (previous,)))
        prev = self.names[parent + (previous,)]
        _, test = self._test(e)
        return (f"At {self.who(parent)}, after child {prev} returned {got}: "
                f"{self._state_words(parent, e)}. {test}, so {self.names[parent]} does not prune "
                f"and goes on to {next_name}.")

    def _why_cut(self, cut: int) -> str:
        idx = self.index
        e = idx.events[cut]
        parent = e.path
        u = idx.events[cut - 1]
        last = self.names[parent + (u.child,)]
        got = _bounds(idx.returned(parent + (u.child,)))
        skipped = _names_list([self.names[parent + (i,)] for i in e.pruned])
        never = "is" if len(e.pruned) == 1 else "are"
        _, test = self._test(e)
        return (f"At {self.who(parent)}, after child {last} returned {got}: "
                f"{self._state_words(parent, e)}. {test}, and {last} is not "
                f"{self.names[parent]}'s last child, so {self.names[parent]} prunes: {skipped} "
                f"{never} never looked at.")


def _epsilon(value: Any) -> Any:
    eps = parse_number(value)
    if isinstance(eps, float) or eps < 0:
        raise AnswerError(f"epsilon must be a finite number >= 0, got {value!r}")
    return eps


def _epsilon_recipe(eps: Any) -> str:
    return f', epsilon="{fmt(eps)}"' if isinstance(eps, Fraction) else f", epsilon={eps!r}"


def _entered_chance_nodes(game: TreeGame) -> list[Path]:
    """The chance nodes Star1 enters on ``game``, in the order it enters them."""
    result = star1(game, trace=True)
    return [e.path for e in result.trace.events if e.kind == "enter" and e.player == "chance"]


def _chance_node_param(game: TreeGame, node: Any) -> dict[str, Any]:
    if not game.has_chance:
        raise ParameterError("a star1 or c6 drill needs a tree with a chance node")
    return {"node": node}


# =============================================================================================
class BabDrill(_BoundedWords, _LeafSetDrill):
    """Which leaves does Bounded Alpha-Beta skip for a given epsilon?

    >>> from course.drills import make_drill
    >>> from course.examples import bab_figure3
    >>> d = make_drill("bab", tree=bab_figure3(), epsilon=2)
    >>> d.expected
    ['D']
    """

    kind = "bab"
    title = "Bounded Alpha-Beta"
    label = "Bounded Alpha-Beta: leaves skipped"
    family = "bab"

    def _setup(self, epsilon: Any = 1) -> None:
        self.epsilon = _epsilon(epsilon)

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        return {"epsilon": 1 if epsilon is None else epsilon}

    @classmethod
    def seeded_choices(cls, pick: Any, level: int, *, order: Any = None,
                       epsilon: Any = None) -> dict[str, Any]:
        if epsilon is None:
            epsilon = pick.choice((1, 2, 3) if level < 4 else (1, 2))
        return {"epsilon": epsilon}

    def worthwhile(self) -> bool:
        return bool(self.expected)

    def _search(self) -> SearchResult:
        return bab(self.game, epsilon=self.epsilon, trace=True)

    def _search_name(self) -> str:
        return f"Bounded Alpha-Beta with ε = {fmt(self.epsilon)}"

    @property
    def question(self) -> str:
        return (f"Bounded Alpha-Beta with ε = {fmt(self.epsilon)} searches each node's children "
                f"left to right, starting from L = vmin = {fmt(self.game.vmin)}, U = vmax = "
                f"{fmt(self.game.vmax)}, and prunes when β ≤ α + ε after a child that is not the "
                "last. Mark every leaf it never looks at.")

    def _recipe_params(self) -> str:
        return _epsilon_recipe(self.epsilon)


class _ChanceNodeDrill(_BoundedWords, Drill):
    """A Star1 question about one chance node (``node``: a name or path; default the last one
    Star1 enters)."""

    epsilon = 0
    family = "star1"

    def _setup(self, node: Path | None = None) -> None:
        self._node = node

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        return _chance_node_param(game, node)

    def _search(self) -> SearchResult:
        result = star1(self.game, trace=True)
        idx = _Index(tuple(result.trace.events))
        if self._node is None:
            entered = [p for p in idx.enter if self.node(p).kind == "chance"]
            if not entered:
                raise AnswerError("Star1 enters no chance node of this tree: there is nothing to ask")
            self._node = entered[-1]
        else:
            path = self._node if isinstance(self._node, tuple) else self.resolve(self._node)
            if self.node(path).kind != "chance":
                raise AnswerError(f"node {self.names.get(path, path)} is not a chance node")
            if path not in idx.enter:
                raise AnswerError(f"Star1 never enters {self.names[path]}: choose a chance node "
                                  "it searches")
            self._node = path
        return result

    @property
    def chance_node(self) -> Path:
        """The chance node the drill asks about."""
        return self._node

    def _recipe_params(self) -> str:
        return f", node={self._node!r}"

    def _children(self) -> list[Path]:
        return [c.path for c in self.node(self._node).children]

    def _entered_words(self) -> str:
        n = self._node
        e = self.index.events[self.index.enter[n]]
        return (f"Star1 enters the chance node {self.names[n]} with α = {fmt(e.alpha)}, "
                f"β = {fmt(e.beta)}; every leaf lies in [vmin, vmax] = [{fmt(self.game.vmin)}, "
                f"{fmt(self.game.vmax)}].")

    def _position(self, name: str) -> int:
        return self._children().index(self.resolve(name)) + 1


class Star1Drill(_ChanceNodeDrill):
    """Star1's bounds L and U at one chance node after each child, and whether it cuts.

    Answer: ``{"rows": [(L, U), ...], "stop": child}``: the node's ``(L, U)``
    after each child it takes in, in order, and the child after which it cuts
    (name or 1-based position), or None if it searches every child.  Every row
    is checked: after a cut the node takes no child in, so the rows after it
    must be empty.

    >>> from course.drills import make_drill
    >>> from course.examples import chance_note_game
    >>> d = make_drill("star1", tree=chance_note_game(u_a2_c1=-1), node=(1,))
    >>> d.expected
    {'rows': [(Fraction(-1, 1), Fraction(-3, 5))], 'stop': 'F'}
    >>> print(d.check({"rows": [(-1, "-1/2")], "stop": "F"}).explanation)
    After F (probability 4/5, worth −1), C has L = −1 and U = −3/5 (not L = −1, U = −1/2): before any child L = vmin = −1 and U = vmax = 1; the child replaces its share of vmin in L and of vmax in U: L = −1 + 4/5·(−1 − (−1)) = −1, U = 1 − 4/5·(1 − (−1)) = −3/5.
    """

    kind = "star1"
    title = "Star1 at a chance node"
    label = "Star1: bounds at a chance node"

    @classmethod
    def tree_params(cls, game: TreeGame, level: int, seed: int) -> dict[str, Any] | None:
        """A chance node with leaf children that Star1 enters, not the first one it enters."""
        entered = _entered_chance_nodes(game)
        good = [p for p in entered if all(c.is_leaf for c in game.node(p).children)]
        later = good[1:] or good
        if not later:
            return None
        return {"node": later[seed % len(later)]}

    def worthwhile(self) -> bool:
        n = self.chance_node
        e = self.index.events[self.index.enter[n]]
        return ((e.alpha, e.beta) != (self.game.vmin, self.game.vmax)
                or self.expected["stop"] is not None)

    @property
    def question(self) -> str:
        n = self._node
        return (f"{self._entered_words()} Write {self.names[n]}'s bounds L and U after each child, "
                "left to right, and say after which child (if any) it cuts (leave the rows after "
                "a cut empty).")

    def fields(self) -> list[Field]:
        out = []
        n = self._node
        node = self.node(n)
        for k, c in enumerate(self._children(), 1):
            name = self.names[c]
            group = f"after child {name} (probability {fmt(node.probabilities[k - 1])})"
            out += [Field(f"row{k}.L", f"L after {name}", "number", c, group),
                    Field(f"row{k}.U", f"U after {name}", "number", c, group)]
        options = tuple((self.names[c], f"after {self.names[c]}") for c in self._children()[:-1])
        options += (("none", "never: it searches every child"),)
        out.append(Field("stop", f"{self.names[n]} cuts", "choice", n, "the cut-off", options))
        return out

    def _rows(self) -> list[tuple[Any, Any]]:
        return [(self.index.events[i].lower, self.index.events[i].upper)
                for i in self.index.updates.get(self._node, [])]

    def _stop(self) -> str | None:
        cut = self.index.cutoff.get(self._node)
        if cut is None:
            return None
        return self.names[self._node + (self.index.events[cut - 1].child,)]

    @property
    def expected(self) -> dict:
        return {"rows": self._rows(), "stop": self._stop()}

    def from_form(self, values: Mapping[str, Any]) -> dict:
        rows = [(_parse(values, f"row{k}.L", optional=True), _parse(values, f"row{k}.U", optional=True))
                for k in range(1, len(self._children()) + 1)]
        while rows and rows[-1] == _EMPTY:      # every row is read; trailing empty ones say nothing
            rows.pop()
        stop = values.get("stop") or None
        return {"rows": rows, "stop": None if stop == "none" else stop}

    def form(self, answer: Mapping[str, Any]) -> dict[str, Any]:
        rows = list(answer.get("rows", []))
        values: dict[str, Any] = {}
        for k in range(1, len(self._children()) + 1):
            lo, hi = rows[k - 1] if k <= len(rows) else _EMPTY
            values[f"row{k}.L"], values[f"row{k}.U"] = _box(lo), _box(hi)
        stop = answer.get("stop")
        values["stop"] = "none" if stop is None else (self.names[self.resolve(stop)]
                                                      if not isinstance(stop, int) else
                                                      self.names[self._children()[stop - 1]])
        return values

    def answer_from(self, run: Any) -> dict:
        n = self._node
        tests, cut_after = _run_part(run, "tests"), _run_part(run, "cut_after")
        rows = []
        for c in self._children():
            state = tests.get((n, c[-1]))
            if state is None:
                break
            rows.append((state[0], state[1]))
            if cut_after.get(n) == c[-1]:
                break
        stop = cut_after.get(n)
        return {"rows": rows, "stop": None if stop is None else self.names[n + (stop,)]}

    def check(self, answer: Mapping[str, Any]) -> Verdict:
        rows = [tuple(None if x is None else parse_number(x) for x in row)
                for row in answer.get("rows", [])]
        stop = answer.get("stop")
        children = self._children()
        if len(rows) > len(children):
            raise AnswerError(f"{self.names[self._node]} has {len(children)} children: give at most "
                              f"{len(children)} rows, got {len(rows)}")
        if isinstance(stop, int):
            if not 1 <= stop <= len(children):
                raise AnswerError(f"stop must be a child position 1..{len(children)}, got {stop}")
            stop = self.names[children[stop - 1]]
        elif stop is not None:
            stop = self.names[self.resolve(stop)]
        want_rows, want_stop = self._rows(), self._stop()
        n = self._node
        updates = self.index.updates.get(n, [])
        total = len(children) * 2 + 1         # every box, the rows a cut leaves empty included
        wrong_ids: list[str] = []
        first: int | None = None              # the first wrong row the search takes in
        extra: int | None = None              # the first row filled after the cut
        for k in range(1, len(children) + 1):
            got = rows[k - 1] if k - 1 < len(rows) else _EMPTY
            want = want_rows[k - 1] if k <= len(want_rows) else _EMPTY
            for part, w, g in (("L", want[0], got[0]), ("U", want[1], got[1])):
                if (g is not None) if w is None else not same(g, w):
                    wrong_ids.append(f"row{k}.{part}")
                    if k <= len(want_rows):
                        first = first or k
                    else:
                        extra = extra or k
        stop_wrong = stop != want_stop
        if stop_wrong:
            wrong_ids.append("stop")
        right = total - len(wrong_ids)
        if not wrong_ids:
            words = (f"Right: {self.names[n]} cuts after {want_stop}." if want_stop
                     else f"Right: {self.names[n]} searches every child; its value is "
                          f"{_bounds(self.index.returned(n))}.")
            return Verdict(True, words, right=total, total=total)
        # the first difference in search order: a row, or the cut decision after a row
        stop_at = (self._position(stop) if stop else None)
        want_at = (self._position(want_stop) if want_stop else None)
        decision_k = min(x for x in (stop_at, want_at, len(want_rows) + 1) if x is not None)
        if first is not None and first <= decision_k:
            k = first
            got = rows[k - 1] if k - 1 < len(rows) else _EMPTY
            return Verdict(False, self._row_words(k, got), node=children[k - 1],
                           upto=updates[k - 1] + 1, wrong=tuple(wrong_ids), right=right, total=total)
        # the rows up to the decision are right: the cut decision differs
        if want_stop is not None and (stop_at is None or stop_at > want_at):
            cut = self.index.cutoff[n]
            return Verdict(False, self._why_cut(cut), node=n, upto=cut + 1,
                           wrong=tuple(wrong_ids), right=right, total=total)
        if stop_wrong:
            k = stop_at
            i = updates[k - 1]
            e = self.index.events[i]
            _, test = self._test(e)
            words = (f"{self.names[n]} does not cut after {stop}: {self._state_words(n, e)}; "
                     f"{test}, so it goes on to {self.names[children[k]]}.")
            return Verdict(False, words, node=n, upto=i + 1, wrong=tuple(wrong_ids), right=right,
                           total=total)
        # the rows and the cut are right, but a row after the cut is filled in
        cut = self.index.cutoff[n]
        skipped = self.names[children[extra - 1]]
        words = (f"{self.names[n]} cuts after {want_stop}, so it never takes {skipped} in: the row "
                 f"after {skipped} stays empty. " + self._why_cut(cut))
        return Verdict(False, words, node=n, upto=cut + 1,
                       wrong=tuple(wrong_ids), right=right, total=total)

    def _row_words(self, k: int, got: tuple[Any, Any]) -> str:
        n = self._node
        node = self.node(n)
        child = self._children()[k - 1]
        p = node.probabilities[k - 1]
        lc, uc = self.index.returned(child)
        if k == 1:
            L0, U0 = self.game.vmin, self.game.vmax
            before = f"before any child L = vmin = {fmt(L0)} and U = vmax = {fmt(U0)}"
        else:
            prev = self.index.events[self.index.updates[n][k - 2]]
            L0, U0 = prev.lower, prev.upper
            before = f"after {self.names[self._children()[k - 2]]}, L = {fmt(L0)} and U = {fmt(U0)}"
        e = self.index.events[self.index.updates[n][k - 1]]
        said = ("you left it empty" if got[0] is None and got[1] is None
                else f"not L = {fmt(got[0])}, U = {fmt(got[1])}")
        vmin, vmax = self.game.vmin, self.game.vmax
        return (f"After {self.names[child]} (probability {fmt(p)}, worth {_bounds((lc, uc))}), "
                f"{self.names[n]} has L = {fmt(e.lower)} and U = {fmt(e.upper)} ({said}): "
                f"{before}; the child replaces its share of vmin in L and of vmax in U: "
                f"L = {fmt(L0)} + {fmt(p)}·({fmt(lc)} − {_op(vmin)}) = {fmt(e.lower)}, "
                f"U = {fmt(U0)} − {fmt(p)}·({fmt(vmax)} − {_op(uc)}) = {fmt(e.upper)}.")


class C6Drill(_ChanceNodeDrill):
    """The window a chance node gives each child before searching it (condition C6).

    Below a chance node Star1 gives child ``c`` (probability ``p``) the window
    ``α(c) = max(vmin, (α − U)/p + vmax)``, ``β(c) = min(vmax, (β − L)/p + vmin)``
    with the chance node's *current* window ``α, β`` and bounds ``L, U`` (after
    the children searched before ``c``).  Answer: a dict from child (name or
    path) to ``(alpha, beta)``, or None for a child never searched (after a cut).

    >>> from course.drills import make_drill
    >>> from course.examples import chance_note_game
    >>> d = make_drill("c6", tree=chance_note_game(u_a2_c1=-1), node=(1,))
    >>> d.expected                # C cuts after F: G is never searched
    {'F': (Fraction(-7, 8), 1), 'G': None}
    >>> print(d.check({"F": ("-1/2", 1), "G": None}).explanation)
    F gets α = −7/8, β = 1 (not α = −1/2, β = 1). Before any child, C's bounds are L = vmin = −1, U = vmax = 1, and its window is α = −1/2, β = 1 (the one it was entered with); F's probability is p = 4/5. So α(F) = max(vmin, (α − U)/p + vmax) = max(−1, (−1/2 − 1)/(4/5) + 1) = −7/8 and β(F) = min(vmax, (β − L)/p + vmin) = min(1, (1 − (−1))/(4/5) + (−1)) = 1.
    """

    kind = "c6"
    title = "Star1: the window below a chance node"
    label = "Star1: the window of each chance child (C6)"

    @classmethod
    def tree_params(cls, game: TreeGame, level: int, seed: int) -> dict[str, Any] | None:
        """A chance node whose windows are worth asking (see :meth:`worthwhile`), picked by the
        seed, the ones Star1 enters later first; None when the tree has none."""
        result = star1(game, trace=True)
        idx = _Index(tuple(result.trace.events))
        good = [p for p in idx.enter if game.node(p).kind == "chance"
                and _c6_informative(idx, game, p)]
        if not good:
            return None
        later = good[1:] or good
        return {"node": later[seed % len(later)]}

    def worthwhile(self) -> bool:
        """A child after the first gets a window that its parent's bounds so far decide: with
        the initial vmin and vmax in their place, or with the parent's own window, it differs."""
        return _c6_informative(self.index, self.game, self._node)

    @property
    def question(self) -> str:
        n = self.names[self._node]
        return (f"{self._entered_words()} Before it searches a child, {n} gives it a window "
                f"computed from {n}'s current window and bounds L, U and the child's probability "
                "(condition C6). Write that window (α, β) for each child, left to right, or tick "
                "'never searched' for a child after a cut.")

    def fields(self) -> list[Field]:
        out = []
        node = self.node(self._node)
        for k, c in enumerate(self._children()):
            name = self.names[c]
            group = f"child {name} (probability {fmt(node.probabilities[k])})"
            out += [Field(f"{name}.alpha", f"alpha given to {name}", "number", c, group),
                    Field(f"{name}.beta", f"beta given to {name}", "number", c, group)]
            if k:          # the first child is always searched
                out.append(Field(f"{name}.skip", f"{name} is never searched", "toggle", c, group))
        return out

    def _state_before(self, k: int) -> TraceEvent | None:
        """The chance node's event before it searches its ``k``-th child (0-based): its entry,
        or the update that took the previous child in; None after a cut."""
        idx = self.index
        n = self._node
        if k == 0:
            return idx.events[idx.enter[n]]
        updates = idx.updates.get(n, [])
        if k > len(updates) or (n in idx.cutoff and k >= len(updates)):
            return None
        return idx.events[updates[k - 1]]

    def _window(self, child: Path) -> tuple[Any, Any] | None:
        """The window the chance node gives ``child``: from the trace where the child is an
        inner node (its ``enter`` event), else by C6 from the node's state before it."""
        idx = self.index
        if child in idx.enter:
            e = idx.events[idx.enter[child]]
            return e.alpha, e.beta
        k = self._children().index(child)
        e = self._state_before(k)
        if e is None:
            return None
        p = self.node(self._node).probabilities[k]
        return chance_child_window(e.alpha, e.beta, e.lower, e.upper, p, self.game.vmin, self.game.vmax)

    @property
    def expected(self) -> dict:
        return {self.names[c]: self._window(c) for c in self._children()}

    def from_form(self, values: Mapping[str, Any]) -> dict:
        out = {}
        for c in self._children():
            name = self.names[c]
            window = (_parse(values, f"{name}.alpha", optional=True),
                      _parse(values, f"{name}.beta", optional=True))
            if values.get(f"{name}.skip") in (True, "true", "on", 1):
                if window != _EMPTY:
                    fid = f"{name}.alpha" if window[0] is not None else f"{name}.beta"
                    raise _field_error(fid, f"you ticked '{name} is never searched' and gave {name} "
                                            "a window: a child never searched gets none, so leave "
                                            "its α and β empty (or untick the box)")
                out[name] = None
            else:
                out[name] = window
        return out

    def form(self, answer: Mapping[Any, Any]) -> dict[str, Any]:
        given = {self.names[self.resolve(k)]: v for k, v in dict(answer).items()}
        values: dict[str, Any] = {}
        for k, c in enumerate(self._children()):
            name = self.names[c]
            window = given.get(name, _EMPTY)
            if k:
                values[f"{name}.skip"] = window is None
            window = window or _EMPTY
            values[f"{name}.alpha"], values[f"{name}.beta"] = _box(window[0]), _box(window[1])
        return values

    def answer_from(self, run: Any) -> dict:
        windows = _run_part(run, "child_windows")
        n = self._node
        return {self.names[c]: windows.get((n, c[-1])) for c in self._children()}

    def check(self, answer: Mapping[Any, Any]) -> Verdict:
        given: dict[Path, Any] = {}
        for key, value in dict(answer).items():
            path = self.resolve(key)
            if value is None:
                given[path] = None
            else:
                a, b = value
                given[path] = (None if a is None else parse_number(a),
                               None if b is None else parse_number(b))
        children = self._children()
        wrong: list[Path] = []
        ids: list[str] = []
        for c in children:
            want, got = self._window(c), given.get(c, _EMPTY)
            name = self.names[c]
            if want is None or got is None:
                if (want is None) != (got is None):
                    wrong.append(c)
                    ids.append(f"{name}.skip")
                continue
            bad = [f"{name}.{k}" for k, w, g in (("alpha", want[0], got[0]), ("beta", want[1], got[1]))
                   if g is None or not same(g, w)]
            if bad:
                wrong.append(c)
                ids += bad
        total = len(children)
        if not wrong:
            return Verdict(True, f"Right: every window is the one {self.names[self._node]} gives "
                                 "the child (C6).", right=total, total=total)
        first = wrong[0]                  # children in order: the search order at a chance node
        k = children.index(first)
        want, got = self._window(first), given.get(first, _EMPTY)
        name = self.names[first]
        n = self._node
        if want is None:
            cut = self.index.cutoff[n]
            return Verdict(False, f"{name} is never searched. " + self._why_cut(cut), node=n,
                           upto=cut + 1, wrong=tuple(ids), right=total - len(wrong), total=total)
        if got is None:
            words, upto = self._why_go_on(n, first[-1])
            return Verdict(False, f"{name} is searched. " + words, node=n, upto=upto,
                           wrong=tuple(ids), right=total - len(wrong), total=total)
        said = ("you left it empty" if None in got else f"not α = {fmt(got[0])}, β = {fmt(got[1])}")
        e = self._state_before(k)
        upto = (self.index.enter[n] if k == 0 else self.index.updates[n][k - 1]) + 1
        return Verdict(False, f"{name} gets α = {fmt(want[0])}, β = {fmt(want[1])} ({said}). "
                       + self._c6_words(k, e), node=first, upto=upto, wrong=tuple(ids),
                       right=total - len(wrong), total=total)

    def _c6_words(self, k: int, e: TraceEvent) -> str:
        n, c = self._node, self._children()[k]
        name, pname = self.names[c], self.names[n]
        p = self.node(n).probabilities[k]
        vmin, vmax = self.game.vmin, self.game.vmax
        a, b = chance_child_window(e.alpha, e.beta, e.lower, e.upper, p, vmin, vmax)
        if k == 0:
            state = (f"Before any child, {pname}'s bounds are L = vmin = {fmt(e.lower)}, U = vmax = "
                     f"{fmt(e.upper)}, and its window is α = {fmt(e.alpha)}, β = {fmt(e.beta)} "
                     "(the one it was entered with)")
        else:
            prev = self.names[self._children()[k - 1]]
            state = (f"After {prev}, {pname} has L = {fmt(e.lower)}, U = {fmt(e.upper)} and the "
                     f"window α = {fmt(e.alpha)}, β = {fmt(e.beta)}: its current bounds and window, "
                     "not the initial vmin, vmax and the window it was entered with")
        q = _div(p)
        return (f"{state}; {name}'s probability is p = {fmt(p)}. So α({name}) = max(vmin, "
                f"(α − U)/p + vmax) = max({fmt(vmin)}, ({fmt(e.alpha)} − {_op(e.upper)})/{q} + "
                f"{_op(vmax)}) = {fmt(a)} and β({name}) = min(vmax, (β − L)/p + vmin) = "
                f"min({fmt(vmax)}, ({fmt(e.beta)} − {_op(e.lower)})/{q} + {_op(vmin)}) = {fmt(b)}.")


def _c6_informative(idx: _Index, game: TreeGame, node: Path) -> bool:
    """Whether a child after the first of chance node ``node`` gets a window that differs both
    from the one computed with the initial vmin, vmax and from the chance node's own window."""
    vmin, vmax = game.vmin, game.vmax
    updates = idx.updates.get(node, [])
    probabilities = game.node(node).probabilities
    for k in range(1, len(updates)):          # child k (0-based) is searched after update k - 1
        e = idx.events[updates[k - 1]]
        p = probabilities[k]
        window = chance_child_window(e.alpha, e.beta, e.lower, e.upper, p, vmin, vmax)
        initial = chance_child_window(e.alpha, e.beta, vmin, vmax, p, vmin, vmax)
        if window != initial and window != (e.alpha, e.beta):
            return True
    return False


def _div(x: Any) -> str:
    """A number as a divisor: in parentheses when it is a fraction or negative."""
    text = fmt(x)
    return f"({text})" if "/" in text or text.startswith("−") else text


class BoundsDrill(_BoundedWords, Drill):
    """The bounds ``[L, U]`` every searched inner node returns, and the root's move.

    Bounded Alpha-Beta with the drill's epsilon (0: Star1).  Answer: a dict from
    inner node (name or path) to ``(L, U)``, or None for a node never searched,
    plus ``"move"`` (the root's move) when the root is MAX or MIN.

    >>> from course.drills import make_drill
    >>> d = make_drill("bounds", tree={"tree": [[2, 7], [1, 5]], "bounds": [0, 9]})
    >>> d.expected
    {'A': (2, 2), 'B': (2, 2), 'C': (0, 1), 'move': 'B'}
    >>> print(d.check({"A": (2, 2), "B": (2, 2), "C": (1, 1), "move": "B"}).explanation)
    C (MIN) returns [0, 1] (not 1): it pruned after C1 (β = 1 ≤ α = 2), so it keeps L = vmin = 0 (the children it never searched could be worth as little as vmin) and U = min(U(c)) over the children it searched = min(1) = 1.
    """

    kind = "bounds"
    title = "Bounds L and U"
    label = "Star1 / BAB: the bounds each node returns"
    family = "bab"

    def _setup(self, epsilon: Any = 0) -> None:
        self.epsilon = _epsilon(epsilon)

    @classmethod
    def given_params(cls, game: TreeGame, *, order: Any = None, epsilon: Any = None,
                     node: Any = None) -> dict[str, Any]:
        return {"epsilon": 0 if epsilon is None else epsilon}

    @classmethod
    def seeded_choices(cls, pick: Any, level: int, *, order: Any = None,
                       epsilon: Any = None) -> dict[str, Any]:
        if epsilon is None:
            epsilon = pick.choice((0, 0, 1, 2) if level < 4 else (0, 1))
        return {"epsilon": epsilon}

    def worthwhile(self) -> bool:
        """Something is pruned, and some node returns bounds that have not met."""
        idx = self.index
        return bool(idx.cutoff) and any(lo != hi for lo, hi in
                                        (idx.returned(p) for p in self._inner() if idx.returned(p)))

    def _search(self) -> SearchResult:
        return bab(self.game, epsilon=self.epsilon, trace=True)

    def _recipe_params(self) -> str:
        return _epsilon_recipe(self.epsilon)

    def _search_name(self) -> str:
        return f"Bounded Alpha-Beta with ε = {fmt(self.epsilon)}" if self.epsilon else "Star1"

    def _inner(self) -> list[Path]:
        return [p for p in sorted(self.names, key=lambda p: (len(p), p)) if not self.node(p).is_leaf]

    @property
    def has_move(self) -> bool:
        return self.game.root.kind in ("max", "min")

    @property
    def question(self) -> str:
        test = "β ≤ α + ε" if self.epsilon else "β ≤ α"
        move = (f", and {self.names[()]}'s move (at a MAX root the first child with the highest "
                "L, at a MIN root the first with the lowest U)" if self.has_move else "")
        return (f"{self._search_name()} searches each node's children left to right, starting "
                f"from L = vmin = {fmt(self.game.vmin)}, U = vmax = {fmt(self.game.vmax)}, and "
                f"prunes when {test} after a child that is not the last. Write the bounds L and U "
                "every inner node returns (tick 'never searched' for a node it never reaches)"
                f"{move}.")

    def fields(self) -> list[Field]:
        out = []
        for p in self._inner():
            name = self.names[p]
            kids = ", ".join(self.names[c.path] for c in self.node(p).children)
            group = f"{self.who(p)}, children {kids}"
            out += [Field(f"{name}.L", f"L that {name} returns", "number", p, group),
                    Field(f"{name}.U", f"U that {name} returns", "number", p, group)]
            if p:
                out.append(Field(f"{name}.skip", f"{name} is never searched", "toggle", p, group))
        if self.has_move:
            options = tuple((self.names[c.path], self.names[c.path]) for c in self.game.root.children)
            out.append(Field("move", f"move of {self.names[()]}", "choice", (),
                             f"the move of {self.names[()]}", options))
        return out

    @property
    def expected(self) -> dict:
        out: dict[str, Any] = {self.names[p]: self.index.returned(p) for p in self._inner()}
        if self.has_move:
            out["move"] = self.names[(self.reference.move,)]
        return out

    def from_form(self, values: Mapping[str, Any]) -> dict:
        out: dict[str, Any] = {}
        for p in self._inner():
            name = self.names[p]
            pair = (_parse(values, f"{name}.L", optional=True),
                    _parse(values, f"{name}.U", optional=True))
            if values.get(f"{name}.skip") in (True, "true", "on", 1):
                if pair != _EMPTY:
                    fid = f"{name}.L" if pair[0] is not None else f"{name}.U"
                    raise _field_error(fid, f"you ticked '{name} is never searched' and gave {name} "
                                            "bounds: a node never searched returns none, so leave "
                                            "its L and U empty (or untick the box)")
                out[name] = None
            else:
                out[name] = pair
        if self.has_move and values.get("move"):
            out["move"] = values["move"]
        return out

    def form(self, answer: Mapping[Any, Any]) -> dict[str, Any]:
        given = {k if k == "move" else self.names[self.resolve(k)]: v for k, v in dict(answer).items()}
        values: dict[str, Any] = {}
        for p in self._inner():
            name = self.names[p]
            pair = given.get(name, _EMPTY)
            if p:
                values[f"{name}.skip"] = pair is None
            pair = pair or _EMPTY
            values[f"{name}.L"], values[f"{name}.U"] = _box(pair[0]), _box(pair[1])
        if self.has_move:
            values["move"] = given.get("move") or ""
        return values

    def answer_from(self, run: Any) -> dict:
        returned = _run_part(run, "returned")
        out: dict[str, Any] = {self.names[p]: returned.get(p) for p in self._inner()}
        if self.has_move:
            out["move"] = _record_move(run, self.names)
        return out

    def check(self, answer: Mapping[Any, Any]) -> Verdict:
        given: dict[Path, Any] = {}
        move = None
        for key, value in dict(answer).items():
            if key == "move":
                move = value
                continue
            path = self.resolve(key)
            if value is None:
                given[path] = None
            else:
                lo, hi = value
                given[path] = (None if lo is None else parse_number(lo),
                               None if hi is None else parse_number(hi))
        inner = self._inner()
        wrong: list[Path] = []
        ids: list[str] = []
        for p in inner:
            want, got = self.index.returned(p), given.get(p, _EMPTY)
            name = self.names[p]
            if want is None or got is None:
                if (want is None) != (got is None):
                    wrong.append(p)
                    ids.append(f"{name}.skip")
                continue
            bad = [f"{name}.{k}" for k, w, g in (("L", want[0], got[0]), ("U", want[1], got[1]))
                   if g is None or not same(g, w)]
            if bad:
                wrong.append(p)
                ids += bad
        right_move = self.names[(self.reference.move,)] if self.has_move else None
        move_name = None
        if move is not None:
            try:
                move_name = (self.names[(move,)] if isinstance(move, int)
                             else self.names[self.resolve(move)])
            except (AnswerError, KeyError):
                move_name = str(move)
        move_wrong = self.has_move and move_name != right_move
        if move_wrong:
            ids.append("move")
        total = len(inner) + self.has_move
        right = total - len(wrong) - move_wrong
        if not wrong and not move_wrong:
            root = _bounds(self.index.returned(()))
            return Verdict(True, f"Right: {self.names[()]} returns {root}"
                           + (f" and moves to {right_move}." if self.has_move else "."),
                           right=total, total=total)
        if wrong:
            first = min(wrong, key=lambda p: (self.index.position(p), p))
            want, got = self.index.returned(first), given.get(first, _EMPTY)
            name = self.names[first]
            if want is None:
                cut = self.index.pruned_by(first)
                return Verdict(False, f"{name} is never searched. " + self._why_cut(cut),
                               node=self.index.events[cut].path, upto=cut + 1, wrong=tuple(ids),
                               right=right, total=total)
            if got is None:
                words, upto = self._why_go_on(first[:-1], first[-1])
                return Verdict(False, f"{name} is searched. " + words, node=first[:-1], upto=upto,
                               wrong=tuple(ids), right=right, total=total)
            said = "you left it empty" if None in got else f"not {_bounds(got)}"
            return Verdict(False, f"{self.who(first)} returns {_bounds(want)} ({said}): "
                           + self._returns_words(first), node=first,
                           upto=self.index.exit[first] + 1, wrong=tuple(ids), right=right,
                           total=total)
        return Verdict(False, self._move_words(move_name), node=(self.reference.move,),
                       wrong=tuple(ids), right=right, total=total)

    def _returns_words(self, path: Path) -> str:
        """Why ``path`` returns its bounds: the rule for its kind, pruned or not, with numbers."""
        idx = self.index
        node = self.node(path)
        kids = [c.path for c in node.children]
        searched = [c for c in kids if idx.returned(c) is not None]
        vmin, vmax = self.game.vmin, self.game.vmax
        lo, hi = idx.returned(path)
        cut = idx.cutoff.get(path)
        if cut is not None:
            e = idx.events[cut]
            last = self.names[path + (idx.events[cut - 1].child,)]
            _, test = self._test(e)
            pruned = f"it pruned after {last} ({test}), so "
        else:
            pruned = "it searched every child, so "
        if node.kind == "chance":
            probs = node.probabilities
            terms_L = " + ".join(f"{fmt(q)}·{_op(idx.returned(c)[0]) if c in searched else 'vmin'}"
                                 for q, c in zip(probs, kids))
            terms_U = " + ".join(f"{fmt(q)}·{_op(idx.returned(c)[1]) if c in searched else 'vmax'}"
                                 for q, c in zip(probs, kids))
            unsearched = ("" if len(searched) == len(kids) else
                          f" (a child never searched counts as vmin = {fmt(vmin)} in L and vmax = "
                          f"{fmt(vmax)} in U)")
            how = "it pruned, and " if cut is not None else ""
            return (f"{how}a chance node weighs its children's bounds by their probabilities"
                    f"{unsearched}: L = {terms_L} = {fmt(lo)}, U = {terms_U} = {fmt(hi)}.")
        listed = ([_op(idx.returned(c)[0]) for c in searched],
                  [_op(idx.returned(c)[1]) for c in searched])
        if node.kind == "max":
            low = f"L = max(L(c)) = max({', '.join(listed[0])}) = {fmt(lo)}"
            if cut is not None:
                return (f"{pruned}it keeps U = vmax = {fmt(vmax)} (the children it never searched "
                        f"could be worth as much as vmax), and {low} over the children it searched.")
            return (f"{pruned}{low} and U = best_U = max(U(c)) = max({', '.join(listed[1])}) = "
                    f"{fmt(hi)}.")
        high = f"U = min(U(c)) over the children it searched = min({', '.join(listed[1])}) = {fmt(hi)}"
        if cut is not None:
            return (f"{pruned}it keeps L = vmin = {fmt(vmin)} (the children it never searched could "
                    f"be worth as little as vmin) and {high}.")
        return (f"{pruned}L = best_L = min(L(c)) = min({', '.join(listed[0])}) = {fmt(lo)} and "
                f"U = min(U(c)) = min({', '.join(listed[1])}) = {fmt(hi)}.")

    def _move_words(self, given: Any) -> str:
        root = self.game.root
        idx = self.index
        said = "you chose no move" if given is None else f"not {given}"
        searched = [c.path for c in root.children if idx.returned(c.path) is not None]
        if root.kind == "max":
            listed = ", ".join(f"{self.names[c]}: L = {fmt(idx.returned(c)[0])}" for c in searched)
            rule = ("the first child (in order) with the highest lower bound L: L is what the move "
                    "is sure to be worth, U only what it might be worth")
        else:
            listed = ", ".join(f"{self.names[c]}: U = {fmt(idx.returned(c)[1])}" for c in searched)
            rule = ("the first child (in order) with the lowest upper bound U: U is the most the "
                    "move can give MAX, L only the least")
        right = self.names[(self.reference.move,)]
        return f"{self.who(())} moves to {rule}: {right} ({said}). Its children: {listed}."
